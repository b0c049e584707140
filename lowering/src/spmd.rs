//! Running a compiled SPMD program (what `shard-partition` makes) on every device of a grid in
//! one process: [`run_on_devices`] compiles the function once for the devices' local shapes,
//! slices the full inputs per their shardings (`interp::spmd::shard_value`), calls the code on
//! one thread per device with that device's communicator of a shared-memory grid
//! ([`ShmGrid`], the runtime's `xcs_shm_grid`), and reassembles each result
//! (`interp::spmd::unshard_values`, which checks that replicas agree); [`run_compiled`] does the
//! same with code compiled beforehand. The interpreter's
//! counterpart is `interp::spmd::Spmd`; `xcs-run --devices` uses both.

use xcs_dialects::interp::spmd::{shard_value, unshard_values, Split};
use xcs_dialects::interp::{GridShape, RtValue};
use xcs_ir::{Diagnostic, Location};

use crate::jit::{Callable, Inputs, Jit, JitError};
use crate::runtime::{CommGuard, ShmGrid};

/// The stack of each device thread.
const DEVICE_STACK: usize = 16 << 20;

/// An error of an SPMD run: the failing device's error and which device it was.
#[derive(Clone, Debug)]
pub struct SpmdError {
    pub error: JitError,
    /// `on device (1, 0) of grid 2x2`, when one device failed first.
    pub device: Option<String>,
}

impl SpmdError {
    fn plain(message: String) -> SpmdError {
        SpmdError { error: JitError::Run { loc: Location::UNKNOWN, message }, device: None }
    }
    /// The error with a note naming the device.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let d = self.error.to_diagnostic();
        match &self.device {
            Some(dev) => d.with_note(Location::UNKNOWN, dev.clone()),
            None => d,
        }
    }
}

impl std::fmt::Display for SpmdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.device {
            Some(d) => write!(f, "{} ({d})", self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

/// `0, 1` for coordinates `[0, 1]`.
pub fn coords_text(c: &[usize]) -> String {
    c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// The part of each input that device `linear` holds.
pub fn device_inputs(grid: &GridShape, linear: usize, inputs: &[RtValue], splits: &[Split]) -> Result<Vec<RtValue>, String> {
    let coords = grid.coords(linear);
    inputs
        .iter()
        .zip(splits)
        .enumerate()
        .map(|(i, (v, split))| shard_value(v, grid, &coords, split).map_err(|e| format!("argument #{i}: {e}")))
        .collect()
}

/// Each full result from every device's parts (`per_device[d][r]`: result `r` of device `d`,
/// devices in row-major order).
pub fn join_results(grid: &GridShape, name: &str, per_device: &[Vec<RtValue>], splits: &[Split]) -> Result<Vec<RtValue>, String> {
    let count = per_device.first().map_or(0, |d| d.len());
    if splits.len() != count {
        return Err(format!("@{name} returns {count} values but {} result shardings were given", splits.len()));
    }
    (0..count)
        .map(|r| {
            let parts: Vec<RtValue> = per_device.iter().map(|d| d[r].clone()).collect();
            unshard_values(&parts, grid, &splits[r]).map_err(|e| format!("result #{r} of @{name}: {e}"))
        })
        .collect()
}

/// Runs function `name` of the JIT's module on every device of `grid` (see the module docs):
/// the full `inputs` are sliced per `arg_splits`, each result is reassembled per
/// `result_splits`. A failing device's error is reported with the device; the others' waiting
/// collectives fail instead of hanging.
pub fn run_on_devices(
    jit: &Jit,
    name: &str,
    grid: &GridShape,
    inputs: &[RtValue],
    arg_splits: &[Split],
    result_splits: &[Split],
) -> Result<Vec<RtValue>, SpmdError> {
    let args = slice_inputs(grid, inputs, arg_splits)?;
    let Some(first) = args.first() else {
        return Err(SpmdError::plain(format!("the device grid {grid} has no devices")));
    };
    let compiled = jit.compile_for(name, first).map_err(|error| SpmdError { error, device: None })?;
    run_sliced(compiled.callable(), name, grid, &args, result_splits)
}

/// [`run_on_devices`] with code compiled beforehand for the devices' local shapes (the Python
/// frontend's `xcs.shard_map` compiles once and calls many times).
pub fn run_compiled(
    code: &Callable,
    name: &str,
    grid: &GridShape,
    inputs: &[RtValue],
    arg_splits: &[Split],
    result_splits: &[Split],
) -> Result<Vec<RtValue>, SpmdError> {
    let args = slice_inputs(grid, inputs, arg_splits)?;
    run_sliced(code, name, grid, &args, result_splits)
}

/// Each device's part of the full `inputs` (devices in row-major order).
fn slice_inputs(grid: &GridShape, inputs: &[RtValue], arg_splits: &[Split]) -> Result<Vec<Vec<RtValue>>, SpmdError> {
    if inputs.len() != arg_splits.len() {
        return Err(SpmdError::plain(format!("{} inputs but {} argument shardings", inputs.len(), arg_splits.len())));
    }
    (0..grid.num_devices()).map(|d| device_inputs(grid, d, inputs, arg_splits)).collect::<Result<_, _>>().map_err(SpmdError::plain)
}

/// Calls `code` on every device with its part `args[d]` and reassembles the results.
fn run_sliced(code: &Callable, name: &str, grid: &GridShape, args: &[Vec<RtValue>], result_splits: &[Split]) -> Result<Vec<RtValue>, SpmdError> {
    if args.is_empty() {
        return Err(SpmdError::plain(format!("the device grid {grid} has no devices")));
    }
    let inputs: Vec<Inputs> = args.iter().map(|a| code.inputs(a)).collect::<Result<_, _>>().map_err(|error| SpmdError { error, device: None })?;
    let per_device = call_on_devices(grid, &inputs, &|i| code.run(i))?;
    join_results(grid, name, &per_device, result_splits).map_err(SpmdError::plain)
}

/// Runs `call` once per device (`code.run(args)`, or `run_discard` to time it), each on its own
/// thread with its communicator of a new shared-memory grid and its arguments `args[d]` (made
/// by `Callable::inputs`); every device's outcome, or the first failure (a device's own error
/// rather than the others' "stopped because ..." ones).
pub fn call_on_devices<T: Send>(
    grid: &GridShape,
    args: &[Inputs],
    call: &(dyn Fn(&Inputs) -> Result<T, JitError> + Sync),
) -> Result<Vec<T>, SpmdError> {
    let shm = ShmGrid::new(&grid.0).map_err(SpmdError::plain)?;
    let outcomes: Vec<Result<T, JitError>> = std::thread::scope(|s| {
        let handles: Vec<_> = args
            .iter()
            .enumerate()
            .map(|(d, args)| {
                let shm = &shm;
                std::thread::Builder::new().name(format!("xcs-device-{d}")).stack_size(DEVICE_STACK).spawn_scoped(s, move || {
                    let run = || {
                        // SAFETY: the grid (and so its device's communicator) outlives the call.
                        let _comm = unsafe { CommGuard::set(shm.device(d)) };
                        call(args)
                    };
                    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| {
                        Err(JitError::Run { loc: Location::UNKNOWN, message: "the device's thread panicked (this is a bug)".into() })
                    });
                    shm.done(d, out.as_ref().err().map(|e| e.message()).as_deref());
                    out
                })
            })
            .collect();
        if handles.iter().any(|h| h.is_err()) {
            // the devices that started would wait for the others forever
            for d in 0..args.len() {
                shm.done(d, Some("a device thread could not start"));
            }
        }
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| Err(JitError::Run { loc: Location::UNKNOWN, message: "a device thread panicked".into() })),
                Err(e) => Err(JitError::Run { loc: Location::UNKNOWN, message: format!("cannot start a device thread: {e}") }),
            })
            .collect()
    });
    let is_echo = |e: &JitError| e.message().contains("stopped because another device failed");
    let failed = outcomes.iter().position(|r| r.as_ref().is_err_and(|e| !is_echo(e))).or_else(|| outcomes.iter().position(|r| r.is_err()));
    if let Some(d) = failed {
        let device = Some(format!("on device ({}) of grid {grid}", coords_text(&grid.coords(d))));
        let error = outcomes.into_iter().nth(d).and_then(|r| r.err()).unwrap_or_else(|| JitError::Run { loc: Location::UNKNOWN, message: "a device failed".into() });
        return Err(SpmdError { error, device });
    }
    Ok(outcomes.into_iter().flatten().collect())
}
