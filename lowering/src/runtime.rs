//! The C runtime (`runtime/xcs_runtime.c`, `runtime/xcs_collectives.c`, `runtime/xcs_matmul.c`) as seen from Rust: it is
//! compiled by `build.rs` and linked into this crate, so the JIT maps the generated code's
//! runtime calls to these symbols; [`XcsTensor`] is the C ABI's `xcs_tensor`; the thread count
//! and allocation counters; the communicators of SPMD code ([`CommGuard`], [`ShmGrid`]).

use std::ffi::{c_char, c_void, CStr};

use xcs_dialects::interp::{ElemType, Tensor, TensorData};

/// `xcs_tensor` (docs/c-abi.md).
#[repr(C)]
#[derive(Debug)]
pub struct XcsTensor {
    pub data: *mut c_void,
    pub rank: i64,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub dtype: i32,
}

impl Default for XcsTensor {
    fn default() -> Self {
        XcsTensor {
            data: std::ptr::null_mut(),
            rank: 0,
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            dtype: 0,
        }
    }
}

#[allow(dead_code)]
extern "C" {
    fn xcs_rt_alloc(bytes: i64) -> *mut c_void;
    fn xcs_rt_place(bytes: usize) -> *mut c_void;
    fn xcs_rt_free(p: *mut c_void);
    fn xcs_rt_fail(site: i32, msg: *const c_char) -> i32;
    fn xcs_rt_fail2(site: i32, fmt: *const c_char, a: i64, b: i64) -> i32;
    fn xcs_rt_call_enter() -> i32;
    fn xcs_rt_call_leave();
    fn xcs_rt_parallel_for(f: *const c_void, ctx: *mut c_void, n: i64, grain: i64) -> i32;
    fn xcs_rt_matmul_f32();
    fn xcs_rt_frame_push(f: *mut c_void, p: *mut c_void) -> i32;
    fn xcs_rt_frame_release(f: *mut c_void);
    fn xcs_rt_arg(
        t: *const XcsTensor,
        idx: i32,
        dtype: i32,
        rank: i64,
        static_dims: *const i64,
        data: *mut *mut c_void,
        dims: *mut i64,
        copy: *mut *mut c_void,
    ) -> i32;
    fn xcs_rt_result(out: *mut XcsTensor, data: *mut c_void, rank: i64, dims: *const i64, dtype: i32) -> i32;
    fn xcs_rt_f64_to_bf16(x: f64) -> u16;
    fn xcs_rt_i64_to_bf16(x: i64) -> u16;
    fn xcs_rt_div_i128(hi: i64, lo: u64, n: i64) -> i64;
    fn xcs_tensor_release(t: *mut XcsTensor);
    fn xcs_last_error() -> *const c_char;
    fn xcs_last_error_site() -> i32;
    fn xcs_clear_error();
    fn xcs_set_num_threads(n: i32);
    fn xcs_get_num_threads() -> i32;
    fn xcs_live_allocations() -> i64;
    fn xcs_total_allocations() -> i64;
    fn xcs_set_buffer_reuse(on: i32);
    fn xcs_matmul_isa() -> *const c_char;
    fn xcs_shutdown();
    fn xcs_rt_all_gather(s: *const c_void, x: *const c_void, d: *const i64, r: i32, t: i32, a: i64, o: *mut c_void) -> i32;
    fn xcs_rt_all_slice(s: *const c_void, x: *const c_void, d: *const i64, r: i32, t: i32, a: i64, o: *mut c_void) -> i32;
    fn xcs_rt_all_to_all(s: *const c_void, x: *const c_void, d: *const i64, r: i32, t: i32, a: i64, b: i64, o: *mut c_void) -> i32;
    fn xcs_rt_all_reduce(s: *const c_void, x: *const c_void, d: *const i64, r: i32, t: i32, k: i32, o: *mut c_void) -> i32;
    fn xcs_rt_reduce_scatter(s: *const c_void, x: *const c_void, d: *const i64, r: i32, t: i32, k: i32, a: i64, o: *mut c_void) -> i32;
    fn xcs_rt_broadcast(s: *const c_void, x: *const c_void, d: *const i64, r: i32, t: i32, root: *const i64, o: *mut c_void) -> i32;
    fn xcs_rt_process_coords(s: *const c_void, coords: *mut i64) -> i32;
    fn xcs_set_comm(c: *mut c_void) -> *mut c_void;
    fn xcs_comm_free(c: *mut c_void);
    fn xcs_comm_exchange(c: *mut c_void, axes: *const i32, n: i32, send: *const c_void, bytes: i64, recv: *mut c_void, err: *mut c_char) -> i32;
    fn xcs_shm_grid_new(rank: i32, shape: *const i64) -> *mut c_void;
    fn xcs_shm_grid_device(g: *mut c_void, linear: i64) -> *mut c_void;
    fn xcs_shm_grid_done(g: *mut c_void, linear: i64, status: i32, why: *const c_char);
    fn xcs_shm_grid_free(g: *mut c_void);
}

#[link(name = "m")]
extern "C" {
    fn erff(x: f32) -> f32;
    fn erf(x: f64) -> f64;
}

/// The runtime functions generated code may call, with their addresses (for the JIT).
pub fn symbols() -> Vec<(&'static str, usize)> {
    vec![
        ("xcs_rt_alloc", xcs_rt_alloc as *const () as usize),
        ("xcs_rt_free", xcs_rt_free as *const () as usize),
        ("xcs_rt_fail", xcs_rt_fail as *const () as usize),
        ("xcs_rt_fail2", xcs_rt_fail2 as *const () as usize),
        ("xcs_rt_call_enter", xcs_rt_call_enter as *const () as usize),
        ("xcs_rt_call_leave", xcs_rt_call_leave as *const () as usize),
        ("xcs_rt_parallel_for", xcs_rt_parallel_for as *const () as usize),
        ("xcs_rt_matmul_f32", xcs_rt_matmul_f32 as *const () as usize),
        ("xcs_rt_frame_push", xcs_rt_frame_push as *const () as usize),
        ("xcs_rt_frame_release", xcs_rt_frame_release as *const () as usize),
        ("xcs_rt_arg", xcs_rt_arg as *const () as usize),
        ("xcs_rt_result", xcs_rt_result as *const () as usize),
        ("xcs_rt_f64_to_bf16", xcs_rt_f64_to_bf16 as *const () as usize),
        ("xcs_rt_i64_to_bf16", xcs_rt_i64_to_bf16 as *const () as usize),
        ("xcs_rt_div_i128", xcs_rt_div_i128 as *const () as usize),
        ("xcs_tensor_release", xcs_tensor_release as *const () as usize),
        ("xcs_rt_all_gather", xcs_rt_all_gather as *const () as usize),
        ("xcs_rt_all_slice", xcs_rt_all_slice as *const () as usize),
        ("xcs_rt_all_to_all", xcs_rt_all_to_all as *const () as usize),
        ("xcs_rt_all_reduce", xcs_rt_all_reduce as *const () as usize),
        ("xcs_rt_reduce_scatter", xcs_rt_reduce_scatter as *const () as usize),
        ("xcs_rt_broadcast", xcs_rt_broadcast as *const () as usize),
        ("xcs_rt_process_coords", xcs_rt_process_coords as *const () as usize),
        ("erff", erff as *const () as usize),
        ("erf", erf as *const () as usize),
    ]
}

/// The last run-time error on this thread: (site, message).
pub fn last_error() -> (i32, String) {
    unsafe {
        let m = xcs_last_error();
        let msg = if m.is_null() {
            String::new()
        } else {
            CStr::from_ptr(m).to_string_lossy().into_owned()
        };
        (xcs_last_error_site(), msg)
    }
}

pub fn clear_error() {
    unsafe { xcs_clear_error() }
}

/// Sets the size of the runtime's thread pool (1: everything on the calling thread).
pub fn set_num_threads(n: usize) {
    unsafe { xcs_set_num_threads(n.clamp(1, 256) as i32) }
}

pub fn num_threads() -> usize {
    unsafe { xcs_get_num_threads() as usize }
}

/// Buffers allocated by generated code and not freed yet (results not yet released included).
pub fn live_allocations() -> i64 {
    unsafe { xcs_live_allocations() }
}

/// Buffers allocated by generated code so far.
pub fn total_allocations() -> i64 {
    unsafe { xcs_total_allocations() }
}

/// Whether freed big buffers (4 MiB or more) are kept for the next allocation of about their size
/// (the default) or every buffer comes fresh from the allocator (what `xcs-run --bench-buffers=fresh`
/// measures: the page faults of new memory on every call).
pub fn set_buffer_reuse(on: bool) {
    unsafe { xcs_set_buffer_reuse(on as i32) }
}

/// The instruction set of the f32 matmul library: "avx512", "avx2" (with FMA) or "generic" (SSE,
/// no FMA): the best the CPU runs, unless `XCS_MATMUL_ISA` names a lesser one.
pub fn matmul_isa() -> String {
    unsafe { CStr::from_ptr(xcs_matmul_isa()).to_string_lossy().into_owned() }
}

/// Joins the pool's worker threads (they restart on demand).
pub fn shutdown() {
    unsafe { xcs_shutdown() }
}

/// Releases a result descriptor filled by generated code.
pub fn release(t: &mut XcsTensor) {
    unsafe { xcs_tensor_release(t) }
}

/// The bytes of a tensor's elements as the C ABI stores them (i1 one byte, bf16 its bits).
pub fn tensor_bytes(t: &Tensor) -> Vec<u8> {
    t.data.to_le_bytes()
}

/// Bytes of an argument as compiled code reads them, placed as the runtime places its own
/// buffers (`xcs_rt_place`: 64-byte aligned, and from 4 MiB on 2 MiB aligned on transparent huge
/// pages, as numpy places its arrays), so that a kernel reading an argument pays no more split
/// cache lines and TLB misses than one reading its own buffers. Not counted by
/// [`live_allocations`] (the caller's memory).
pub struct ArgBytes {
    ptr: std::ptr::NonNull<c_void>,
}

impl ArgBytes {
    /// A placed copy of `bytes`.
    pub fn new(bytes: &[u8]) -> ArgBytes {
        ArgBytes::filled(bytes.len(), |b| {
            b.iter_mut().zip(bytes).for_each(|(d, &s)| {
                d.write(s);
            })
        })
    }

    /// A tensor's elements as compiled code reads them (`TensorData::write_le_bytes`), written
    /// straight into the placed buffer.
    pub fn of_tensor(t: &Tensor) -> ArgBytes {
        ArgBytes::filled(t.data.le_byte_len(), |b| t.data.write_le_bytes(b))
    }

    /// A placed buffer of `len` bytes that `fill` writes (all of them).
    fn filled(len: usize, fill: impl FnOnce(&mut [std::mem::MaybeUninit<u8>])) -> ArgBytes {
        let n = len.max(1).next_multiple_of(64);
        // SAFETY: `xcs_rt_place` returns n >= len writable bytes or NULL; they are ours until
        // `drop` frees them.
        let ptr = unsafe {
            let Some(ptr) = std::ptr::NonNull::new(xcs_rt_place(n)) else {
                std::alloc::handle_alloc_error(std::alloc::Layout::from_size_align(n, 64).expect("a valid layout"))
            };
            fill(std::slice::from_raw_parts_mut(ptr.as_ptr().cast::<std::mem::MaybeUninit<u8>>(), len));
            ptr
        };
        ArgBytes { ptr }
    }

    pub fn as_ptr(&self) -> *mut c_void {
        self.ptr.as_ptr()
    }
}

impl Drop for ArgBytes {
    fn drop(&mut self) {
        // SAFETY: allocated by `xcs_rt_place` (posix_memalign), released with free.
        unsafe { libc::free(self.ptr.as_ptr()) }
    }
}

// SAFETY: the buffer is owned and only read through shared references.
unsafe impl Send for ArgBytes {}
unsafe impl Sync for ArgBytes {}

/// Reads a result descriptor into a tensor of element type `elem` (which the descriptor's
/// dtype must match).
///
/// # Safety
/// `t` must be a descriptor filled by a successful call of generated code.
pub unsafe fn read_result(t: &XcsTensor, elem: ElemType) -> Result<Tensor, String> {
    if t.dtype != crate::codegen::types::dtype_code(elem) {
        return Err(format!("result has dtype {} but {} was expected", t.dtype, elem));
    }
    let rank = t.rank.max(0) as usize;
    let shape: Vec<usize> = (0..rank).map(|d| *t.shape.add(d) as usize).collect();
    let n: usize = shape.iter().product();
    let es = crate::codegen::types::elem_size(elem) as usize;
    let bytes: &[u8] = if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(t.data as *const u8, n * es)
    };
    tensor_from_bytes(elem, shape, bytes)
}

/// A tensor of `elem` and `shape` from its elements as the C ABI stores them (the inverse of
/// [`tensor_bytes`]).
pub fn tensor_from_bytes(elem: ElemType, shape: Vec<usize>, bytes: &[u8]) -> Result<Tensor, String> {
    let n: usize = shape.iter().product();
    let es = crate::codegen::types::elem_size(elem) as usize;
    if bytes.len() != n * es {
        return Err(format!("{} bytes for {n} {elem} elements", bytes.len()));
    }
    let ch = bytes.chunks_exact(es.max(1));
    let data = match elem {
        ElemType::F16 => TensorData::F16(
            ch.map(|c| half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        ElemType::BF16 => TensorData::BF16(
            ch.map(|c| half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        ElemType::F32 => TensorData::F32(ch.map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4]))).collect()),
        ElemType::F64 => TensorData::F64(ch.map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()),
        ElemType::I1 => TensorData::I1(ch.map(|c| c[0] != 0).collect()),
        ElemType::I8 => TensorData::I8(ch.map(|c| c[0] as i8).collect()),
        ElemType::I16 => TensorData::I16(ch.map(|c| i16::from_le_bytes([c[0], c[1]])).collect()),
        ElemType::I32 => TensorData::I32(ch.map(|c| i32::from_le_bytes(c.try_into().unwrap_or([0; 4]))).collect()),
        ElemType::I64 => TensorData::I64(ch.map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()),
        ElemType::Str => return Err("string results are not supported".into()),
    };
    Ok(Tensor { shape, data })
}

// ---------------------------------------------------------------------------- communicators

/// The calling thread's communicator for compiled SPMD code (`xcs_set_comm`) while it lives;
/// the previous one is restored when it is dropped.
pub struct CommGuard(*mut c_void);

impl CommGuard {
    /// Makes `comm` (an `xcs_comm *`, or null: run alone) the calling thread's communicator.
    ///
    /// # Safety
    /// `comm` must be null or a communicator that outlives the guard.
    pub unsafe fn set(comm: *mut c_void) -> CommGuard {
        CommGuard(xcs_set_comm(comm))
    }
}

impl Drop for CommGuard {
    fn drop(&mut self) {
        unsafe {
            xcs_set_comm(self.0);
        }
    }
}

/// A grid of devices as threads of one process, with the runtime's shared-memory transport
/// (`xcs_shm_grid`): [`ShmGrid::device`] gives each device's communicator.
pub struct ShmGrid(*mut c_void);

// SAFETY: the runtime's grid is made for concurrent use by its device threads (a mutex and
// condition variable guard its state).
unsafe impl Send for ShmGrid {}
unsafe impl Sync for ShmGrid {}

impl ShmGrid {
    pub fn new(shape: &[usize]) -> Result<ShmGrid, String> {
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let g = unsafe { xcs_shm_grid_new(dims.len() as i32, dims.as_ptr()) };
        if g.is_null() {
            return Err(format!("cannot make a device grid of shape {shape:?} (at most 8 axes of positive sizes)"));
        }
        Ok(ShmGrid(g))
    }
    /// The communicator of device `linear` (valid while the grid lives).
    pub fn device(&self, linear: usize) -> *mut c_void {
        unsafe { xcs_shm_grid_device(self.0, linear as i64) }
    }
    /// Device `linear`'s program returned; `failure` is its error (which stops the others).
    pub fn done(&self, linear: usize, failure: Option<&str>) {
        let why = std::ffi::CString::new(failure.unwrap_or("").replace('\0', " ")).unwrap_or_default();
        unsafe { xcs_shm_grid_done(self.0, linear as i64, failure.is_some() as i32, why.as_ptr()) }
    }
}

impl Drop for ShmGrid {
    fn drop(&mut self) {
        unsafe { xcs_shm_grid_free(self.0) }
    }
}

/// Gathers `send` (the same number of bytes on every member) from the group of `comm` along
/// `axes`: every member's bytes in group order.
///
/// # Safety
/// `comm` must be a live communicator.
pub unsafe fn comm_exchange(comm: *mut c_void, axes: &[usize], send: &[u8], members: usize) -> Result<Vec<u8>, String> {
    let axes: Vec<i32> = axes.iter().map(|&a| a as i32).collect();
    let mut recv = vec![0u8; send.len() * members];
    let mut err = [0 as c_char; 512];
    let st = xcs_comm_exchange(comm, axes.as_ptr(), axes.len() as i32, send.as_ptr() as *const c_void, send.len() as i64, recv.as_mut_ptr() as *mut c_void, err.as_mut_ptr());
    if st != 0 {
        return Err(CStr::from_ptr(err.as_ptr()).to_string_lossy().into_owned());
    }
    Ok(recv)
}

/// Frees a communicator made by the MPI transport.
///
/// # Safety
/// `comm` must come from `xcs_comm_mpi` and not be used afterwards.
pub unsafe fn comm_free(comm: *mut c_void) {
    xcs_comm_free(comm)
}
