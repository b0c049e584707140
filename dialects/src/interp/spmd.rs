//! Running an SPMD program (what `shard-partition` makes) on every device of a grid, in one
//! process: [`Spmd::run`] (or [`run_spmd`]) slices the full inputs per their shardings ([`shard_value`]), runs
//! the function once per device on its own thread with a [`ThreadDevice`] communicator, and
//! reassembles each result from the devices' blocks ([`unshard_values`]), checking that
//! replicas agree. This is what `xcs-run --devices=2x4` does on the interpreter.
//!
//! A sharding here is MLIR's split axes ([`Split`]): for each tensor dim, the grid axes it is
//! split along (none: not split; trailing dims may be left out). A dim split along axes
//! `[a, b]` is cut into `n_a * n_b` equal contiguous blocks, and a device holds the block of
//! its index in its group along `[a, b]` (row-major in that order). Grid axes that split no
//! dim replicate the value.

use super::devices::{Communicator, GridShape};
use super::error::InterpError;
use super::interpreter::Interpreter;
use super::shared_grid::{coords_text, run_on_grid, ThreadDevice};
use super::value::{RtValue, Tensor};
use xcs_ir::{Context, Location, Module};

/// The split axes of one value: for each tensor dim, the grid axes it is split along.
pub type Split = Vec<Vec<usize>>;

/// Checks a split against a grid and a tensor shape: valid axes, each used once, and dims
/// divisible by their number of blocks.
fn check_split(grid: &GridShape, shape: &[usize], split: &[Vec<usize>]) -> Result<(), String> {
    if split.len() > shape.len() {
        return Err(format!("the sharding splits {} dims of a rank-{} value", split.len(), shape.len()));
    }
    let all: Vec<usize> = split.iter().flatten().copied().collect();
    grid.check_axes(&all)?;
    for (d, axes) in split.iter().enumerate() {
        let n = grid.group_size(axes);
        if shape[d] % n != 0 {
            return Err(format!("dim {d} of size {} does not split into {n} equal blocks", shape[d]));
        }
    }
    Ok(())
}

/// The block of `t` that the device at `coords` holds under `split`.
pub fn shard_tensor(t: &Tensor, grid: &GridShape, coords: &[usize], split: &[Vec<usize>]) -> Result<Tensor, String> {
    check_split(grid, &t.shape, split)?;
    let mut out = t.clone();
    for (d, axes) in split.iter().enumerate() {
        if !axes.is_empty() {
            let n = grid.group_size(axes);
            out = super::devices::block(&out, d, n, grid.index_in_group(coords, axes))?;
        }
    }
    Ok(out)
}

/// The part of `v` that the device at `coords` holds: a tensor's block, any other value (and
/// a value with an empty split) as it is.
pub fn shard_value(v: &RtValue, grid: &GridShape, coords: &[usize], split: &[Vec<usize>]) -> Result<RtValue, String> {
    if split.iter().all(|a| a.is_empty()) {
        return Ok(v.clone());
    }
    match v {
        RtValue::Tensor(t) => shard_tensor(t, grid, coords, split).map(RtValue::Tensor),
        other => Err(format!("a {} cannot be split", other.type_string())),
    }
}

/// The full value of a result from every device's part (in device order): blocks are joined
/// along their split dims; the devices that hold the same block (replicas along the grid axes
/// that split nothing) must hold equal values.
pub fn unshard_values(parts: &[RtValue], grid: &GridShape, split: &[Vec<usize>]) -> Result<RtValue, String> {
    let n = grid.num_devices();
    if parts.len() != n {
        return Err(format!("{} parts for {n} devices", parts.len()));
    }
    // the first device holding each block, and every other must agree with it
    let block_of = |d: usize| -> Vec<usize> {
        let c = grid.coords(d);
        split.iter().map(|axes| grid.index_in_group(&c, axes)).collect()
    };
    let mut first: std::collections::HashMap<Vec<usize>, usize> = std::collections::HashMap::new();
    for d in 0..n {
        let b = block_of(d);
        match first.get(&b) {
            Some(&r) if !same_value(&parts[r], &parts[d]) => {
                return Err(format!(
                    "devices ({}) and ({}) hold different values for the same block (replicas disagree)",
                    coords_text(&grid.coords(r)),
                    coords_text(&grid.coords(d))
                ));
            }
            Some(_) => {}
            None => {
                first.insert(b, d);
            }
        }
    }
    if split.iter().all(|a| a.is_empty()) {
        return Ok(parts[0].clone());
    }
    let counts: Vec<usize> = split.iter().map(|axes| grid.group_size(axes)).collect();
    let tensor = |b: &[usize]| -> Result<&Tensor, String> {
        let d = first.get(b).copied().ok_or("a block is held by no device")?;
        parts[d].as_tensor().ok_or_else(|| format!("device ({}) returned a {}", coords_text(&grid.coords(d)), parts[d].type_string()))
    };
    join_blocks(&counts, &mut Vec::new(), &tensor).map(RtValue::Tensor)
}

/// Joins the blocks whose indices start with `prefix` along dims `prefix.len()..`.
fn join_blocks<'t>(
    counts: &[usize],
    prefix: &mut Vec<usize>,
    tensor: &dyn Fn(&[usize]) -> Result<&'t Tensor, String>,
) -> Result<Tensor, String> {
    let d = prefix.len();
    if d == counts.len() {
        return tensor(prefix).cloned();
    }
    let mut pieces = Vec::with_capacity(counts[d]);
    for i in 0..counts[d] {
        prefix.push(i);
        pieces.push(join_blocks(counts, prefix, tensor)?);
        prefix.pop();
    }
    if pieces.len() == 1 {
        return Ok(pieces.swap_remove(0));
    }
    Tensor::concat(&pieces.iter().collect::<Vec<_>>(), d)
}

fn same_value(a: &RtValue, b: &RtValue) -> bool {
    match (a, b) {
        (RtValue::Tensor(x), RtValue::Tensor(y)) => x.bit_eq(y),
        (RtValue::Str(x), RtValue::Str(y)) => x == y,
        (RtValue::Scalar(x), RtValue::Scalar(y)) => x == y,
        _ => false,
    }
}

/// The native stack of each device thread (the interpreter grows it on demand).
const DEVICE_STACK: usize = 4 << 20;

/// How each device's interpreter is set up beyond its device (providers, limits, ...).
pub type Configure = dyn for<'a> Fn(Interpreter<'a>) -> Interpreter<'a> + Sync;

/// The functions of one module run on every device of a grid (see the module docs).
pub struct Spmd<'m> {
    ctx: &'m Context,
    module: &'m Module,
    grid: GridShape,
    configure: Option<&'m Configure>,
}

impl<'m> Spmd<'m> {
    pub fn new(ctx: &'m Context, module: &'m Module, grid: GridShape) -> Self {
        Spmd { ctx, module, grid, configure: None }
    }
    /// Sets up each device's interpreter with `f` (after `Interpreter::with_device`).
    pub fn configure(mut self, f: &'m Configure) -> Self {
        self.configure = Some(f);
        self
    }
    /// Runs function `name` on every device: the full `inputs` are sliced per `arg_splits`
    /// (one per argument), each device runs the function on its own thread, and each result
    /// is reassembled per `result_splits`. If any device fails, the error is that device's
    /// (with a note naming it), never a hang.
    pub fn run(
        &self,
        name: &str,
        inputs: &[RtValue],
        arg_splits: &[Split],
        result_splits: &[Split],
    ) -> Result<Vec<RtValue>, InterpError> {
        let (grid, err) = (&self.grid, |m: String| InterpError::new(Location::UNKNOWN, m));
        if inputs.len() != arg_splits.len() {
            return Err(err(format!("{} inputs but {} argument shardings", inputs.len(), arg_splits.len())));
        }
        if grid.num_devices() == 0 {
            return Err(err(format!("the device grid {grid} has no devices")));
        }
        let located: std::sync::Mutex<Vec<(Vec<usize>, InterpError)>> = std::sync::Mutex::new(Vec::new());
        let program = |device: &ThreadDevice| -> Result<Vec<RtValue>, String> {
            let mut args = Vec::with_capacity(inputs.len());
            for (i, (v, split)) in inputs.iter().zip(arg_splits).enumerate() {
                args.push(shard_value(v, grid, device.coords(), split).map_err(|e| format!("argument #{i}: {e}"))?);
            }
            let mut interp = Interpreter::new(self.ctx, self.module).with_device(device);
            if let Some(f) = self.configure {
                interp = f(interp);
            }
            interp.call(name, args).map_err(|e| {
                let text = e.to_string();
                located.lock().unwrap_or_else(|p| p.into_inner()).push((device.coords().to_vec(), e));
                text
            })
        };
        let results = run_on_grid(grid, DEVICE_STACK, &program);
        if results.iter().any(|r| r.is_err()) {
            return Err(first_failure(grid, results, located.into_inner().unwrap_or_else(|p| p.into_inner())));
        }
        let per_device: Vec<Vec<RtValue>> = results.into_iter().flatten().collect();
        let count = per_device[0].len();
        if result_splits.len() != count {
            return Err(err(format!("@{name} returns {count} values but {} result shardings were given", result_splits.len())));
        }
        (0..count)
            .map(|r| {
                let parts: Vec<RtValue> = per_device.iter().map(|d| d[r].clone()).collect();
                unshard_values(&parts, grid, &result_splits[r]).map_err(|e| err(format!("result #{r} of @{name}: {e}")))
            })
            .collect()
    }
}

/// [`Spmd::run`] with the default interpreter settings.
pub fn run_spmd(
    ctx: &Context,
    module: &Module,
    grid: &GridShape,
    name: &str,
    inputs: &[RtValue],
    arg_splits: &[Split],
    result_splits: &[Split],
) -> Result<Vec<RtValue>, InterpError> {
    Spmd::new(ctx, module, grid.clone()).run(name, inputs, arg_splits, result_splits)
}

/// The error to report of a failed run: the first device's own failure (a located
/// interpreter error if it has one) rather than the others' "stopped because ..." errors.
fn first_failure(
    grid: &GridShape,
    results: Vec<Result<Vec<RtValue>, String>>,
    mut located: Vec<(Vec<usize>, InterpError)>,
) -> InterpError {
    let is_echo = |m: &str| m.contains("stopped because another device failed");
    let root = results
        .iter()
        .enumerate()
        .filter_map(|(d, r)| r.as_ref().err().map(|e| (d, e)))
        .find(|(_, e)| !is_echo(e))
        .or_else(|| results.iter().enumerate().find_map(|(d, r)| r.as_ref().err().map(|e| (d, e))));
    let Some((d, message)) = root else {
        return InterpError::new(Location::UNKNOWN, "the SPMD run failed");
    };
    let coords = grid.coords(d);
    let device = format!("on device ({}) of grid {grid}", coords_text(&coords));
    match located.iter().position(|(c, _)| *c == coords) {
        Some(i) => located.swap_remove(i).1.with_note(Location::UNKNOWN, device),
        None => InterpError::new(Location::UNKNOWN, format!("{device}: {message}")),
    }
}
