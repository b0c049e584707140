//! MPI for the drivers (`xcs-run --mpi`): the runtime's MPI transport is a shared library of
//! its own (`libxcs_mpi.so`, built from `runtime/xcs_mpi.c` by `build.rs` when MPI is found)
//! that [`Mpi::load`] opens at run time, so `xcs-run` runs on machines without MPI as long as
//! `--mpi` is not used. [`Mpi`] initializes MPI and gives this process's rank, the world
//! communicator of a grid ([`MpiComm`]: rank `r` is device `r`, row-major), result gathering to
//! rank 0, agreement on failures and `MPI_Abort`. [`MpiComm`] is also the interpreter's
//! [`Communicator`] (its `exchange` is the transport's all-gather), so `--backend=interp`
//! runs under MPI too.

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use xcs_dialects::interp::{Communicator, GridShape, Tensor};

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

const RTLD_NOW: c_int = 2;
/// OpenMPI's plugins need libmpi's symbols global.
const RTLD_GLOBAL: c_int = 0x100;
const ERR_LEN: usize = 512;

type InitFn = unsafe extern "C" fn(*mut i32, *mut i32, *mut c_char, i32) -> i32;
type WorldCommFn = unsafe extern "C" fn(i32, *const i64, *mut c_char, i32) -> *mut c_void;
type GatherFn = unsafe extern "C" fn(*const c_void, i64, *mut *mut c_void, *mut i64, *mut c_char, i32) -> i32;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type AbortFn = unsafe extern "C" fn(i32);
type FinalizeFn = unsafe extern "C" fn() -> i32;
type FirstFailureFn = unsafe extern "C" fn(i32) -> i32;
type MaxFn = unsafe extern "C" fn(f64) -> f64;
type BarrierFn = unsafe extern "C" fn();

/// MPI, loaded and initialized: this process is rank [`Mpi::rank`] of [`Mpi::size`].
pub struct Mpi {
    world_comm: WorldCommFn,
    gather: GatherFn,
    free: FreeFn,
    abort: AbortFn,
    finalize: FinalizeFn,
    first_failure: FirstFailureFn,
    max: MaxFn,
    barrier: BarrierFn,
    rank: usize,
    size: usize,
}

/// The paths tried for the transport: `$XCS_MPI_LIBRARY`, the one `build.rs` made, and
/// `libxcs_mpi.so` beside the executable.
fn candidates() -> Vec<String> {
    let mut v = Vec::new();
    if let Ok(p) = std::env::var("XCS_MPI_LIBRARY") {
        v.push(p);
    }
    if let Some(p) = option_env!("XCS_MPI_LIBRARY_BUILT") {
        v.push(p.to_string());
    }
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(|d| d.to_path_buf())) {
        v.push(dir.join("libxcs_mpi.so").display().to_string());
    }
    v
}

fn last_dl_error() -> String {
    let e = unsafe { dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

fn err_text(buf: &[c_char]) -> String {
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

impl Mpi {
    /// Loads the transport and initializes MPI (`MPI_Init_thread`, serialized).
    pub fn load() -> Result<Mpi, String> {
        let paths = candidates();
        let existing: Vec<&String> = paths.iter().filter(|p| std::path::Path::new(p).exists()).collect();
        let Some(path) = existing.first() else {
            return Err("MPI is not available: this build has no MPI transport (install Debian's openmpi-bin and \
                        libopenmpi-dev and rebuild, or set XCS_MPI_LIBRARY to a libxcs_mpi.so)"
                .into());
        };
        let c = CString::new(path.as_str()).map_err(|e| e.to_string())?;
        let lib = unsafe { dlopen(c.as_ptr(), RTLD_NOW | RTLD_GLOBAL) };
        if lib.is_null() {
            return Err(format!("cannot load the MPI transport '{path}': {} (is OpenMPI installed?)", last_dl_error()));
        }
        let sym = |name: &str| -> Result<*mut c_void, String> {
            let n = CString::new(name).map_err(|e| e.to_string())?;
            let p = unsafe { dlsym(lib, n.as_ptr()) };
            if p.is_null() {
                return Err(format!("the MPI transport '{path}' has no {name}"));
            }
            Ok(p)
        };
        // SAFETY: the symbols are the functions of runtime/xcs_mpi.c with these signatures.
        unsafe {
            let init: InitFn = std::mem::transmute::<*mut c_void, InitFn>(sym("xcs_mpi_init")?);
            let mut mpi = Mpi {
                world_comm: std::mem::transmute::<*mut c_void, WorldCommFn>(sym("xcs_mpi_world_comm")?),
                gather: std::mem::transmute::<*mut c_void, GatherFn>(sym("xcs_mpi_gather")?),
                free: std::mem::transmute::<*mut c_void, FreeFn>(sym("xcs_mpi_free")?),
                abort: std::mem::transmute::<*mut c_void, AbortFn>(sym("xcs_mpi_abort")?),
                finalize: std::mem::transmute::<*mut c_void, FinalizeFn>(sym("xcs_mpi_finalize")?),
                first_failure: std::mem::transmute::<*mut c_void, FirstFailureFn>(sym("xcs_mpi_first_failure")?),
                max: std::mem::transmute::<*mut c_void, MaxFn>(sym("xcs_mpi_max")?),
                barrier: std::mem::transmute::<*mut c_void, BarrierFn>(sym("xcs_mpi_barrier")?),
                rank: 0,
                size: 0,
            };
            let (mut rank, mut size, mut err) = (0i32, 0i32, [0 as c_char; ERR_LEN]);
            if init(&mut rank, &mut size, err.as_mut_ptr(), ERR_LEN as i32) != 0 {
                return Err(err_text(&err));
            }
            mpi.rank = rank as usize;
            mpi.size = size as usize;
            Ok(mpi)
        }
    }
    pub fn rank(&self) -> usize {
        self.rank
    }
    pub fn size(&self) -> usize {
        self.size
    }
    /// This process's communicator in `grid`, whose devices are the processes of
    /// `MPI_COMM_WORLD` (their number must be the grid's).
    pub fn world_comm(&self, grid: &GridShape) -> Result<MpiComm, String> {
        let shape: Vec<i64> = grid.0.iter().map(|&d| d as i64).collect();
        let mut err = [0 as c_char; ERR_LEN];
        let comm = unsafe { (self.world_comm)(shape.len() as i32, shape.as_ptr(), err.as_mut_ptr(), ERR_LEN as i32) };
        if comm.is_null() {
            return Err(err_text(&err));
        }
        Ok(MpiComm { comm, grid: grid.clone(), coords: grid.coords(self.rank) })
    }
    /// Gathers every process's `bytes` to rank 0: there, every process's bytes in rank order;
    /// elsewhere `None`.
    pub fn gather(&self, bytes: &[u8]) -> Result<Option<Vec<Vec<u8>>>, String> {
        let mut sizes = vec![0i64; self.size];
        let (mut recv, mut err) = (std::ptr::null_mut::<c_void>(), [0 as c_char; ERR_LEN]);
        let st = unsafe {
            (self.gather)(bytes.as_ptr() as *const c_void, bytes.len() as i64, &mut recv, sizes.as_mut_ptr(), err.as_mut_ptr(), ERR_LEN as i32)
        };
        if st != 0 {
            return Err(err_text(&err));
        }
        if self.rank != 0 {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(self.size);
        let mut at = 0usize;
        for &n in &sizes {
            let n = n as usize;
            // SAFETY: rank 0's buffer holds the sum of the sizes.
            out.push(unsafe { std::slice::from_raw_parts((recv as *const u8).add(at), n) }.to_vec());
            at += n;
        }
        unsafe { (self.free)(recv) };
        Ok(Some(out))
    }
    /// The lowest rank that `failed`, if any did (collective).
    pub fn first_failure(&self, failed: bool) -> Option<usize> {
        let r = unsafe { (self.first_failure)(failed as i32) } as usize;
        (r < self.size).then_some(r)
    }
    /// The largest `x` of all processes (collective).
    pub fn max(&self, x: f64) -> f64 {
        unsafe { (self.max)(x) }
    }
    pub fn barrier(&self) {
        unsafe { (self.barrier)() }
    }
    /// Stops every process of the job with exit code `code`.
    pub fn abort(&self, code: i32) -> ! {
        unsafe { (self.abort)(code) };
        std::process::exit(code)
    }
    pub fn finalize(&self) {
        unsafe { (self.finalize)() };
    }
}

/// This process's communicator in a grid whose devices are MPI processes (`xcs_comm_mpi`):
/// give [`MpiComm::raw`] to compiled code (`runtime::CommGuard`), or use it as the
/// interpreter's [`Communicator`].
pub struct MpiComm {
    comm: *mut c_void,
    grid: GridShape,
    coords: Vec<usize>,
}

// SAFETY: MPI is initialized for serialized use from several threads; one thread at a time
// uses a communicator (the interpreter and compiled code run on the calling thread).
unsafe impl Send for MpiComm {}
unsafe impl Sync for MpiComm {}

impl MpiComm {
    /// The `xcs_comm *` (valid while `self` lives).
    pub fn raw(&self) -> *mut c_void {
        self.comm
    }
}

impl Drop for MpiComm {
    fn drop(&mut self) {
        unsafe { crate::runtime::comm_free(self.comm) }
    }
}

impl Communicator for MpiComm {
    fn grid(&self) -> &GridShape {
        &self.grid
    }
    fn coords(&self) -> &[usize] {
        &self.coords
    }
    fn exchange(&self, axes: &[usize], value: Tensor) -> Result<Vec<Tensor>, String> {
        self.grid.check_axes(axes)?;
        let n = self.grid.group_size(axes);
        let bytes = crate::runtime::tensor_bytes(&value);
        // SAFETY: the communicator lives as long as self.
        let all = unsafe { crate::runtime::comm_exchange(self.comm, axes, &bytes, n) }?;
        let elem = value.elem();
        if n == 0 || bytes.is_empty() {
            return Ok(vec![value; n]);
        }
        all.chunks_exact(bytes.len()).map(|b| crate::runtime::tensor_from_bytes(elem, value.shape.clone(), b)).collect()
    }
}
