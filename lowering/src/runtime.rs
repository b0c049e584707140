//! The C runtime (`runtime/xcs_runtime.c`) as seen from Rust: it is compiled by `build.rs` and
//! linked into this crate, so the JIT maps the generated code's runtime calls to these symbols;
//! [`XcsTensor`] is the C ABI's `xcs_tensor`; the thread count and allocation counters.

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
    fn xcs_rt_free(p: *mut c_void);
    fn xcs_rt_fail(site: i32, msg: *const c_char) -> i32;
    fn xcs_rt_fail2(site: i32, fmt: *const c_char, a: i64, b: i64) -> i32;
    fn xcs_rt_call_enter() -> i32;
    fn xcs_rt_call_leave();
    fn xcs_rt_parallel_for(f: *const c_void, ctx: *mut c_void, n: i64, grain: i64) -> i32;
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
    fn xcs_shutdown();
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
        ("xcs_rt_frame_push", xcs_rt_frame_push as *const () as usize),
        ("xcs_rt_frame_release", xcs_rt_frame_release as *const () as usize),
        ("xcs_rt_arg", xcs_rt_arg as *const () as usize),
        ("xcs_rt_result", xcs_rt_result as *const () as usize),
        ("xcs_rt_f64_to_bf16", xcs_rt_f64_to_bf16 as *const () as usize),
        ("xcs_rt_i64_to_bf16", xcs_rt_i64_to_bf16 as *const () as usize),
        ("xcs_rt_div_i128", xcs_rt_div_i128 as *const () as usize),
        ("xcs_tensor_release", xcs_tensor_release as *const () as usize),
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
