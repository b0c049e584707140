//! What the `shard` ops do when the interpreter runs them (their [`Semantics`]).
//!
//! - Annotations are identities: `shard.shard` gives its operand unchanged and
//!   `shard.sharding` an opaque value describing the sharding, so annotated but unpartitioned
//!   programs run on one device exactly as without the annotations.
//! - The collectives and the process queries run on the device the interpreter runs as
//!   ([`OpRun::device`], set by `Interpreter::with_device` and `run_spmd`), through its
//!   [`Communicator`], whose grid must have the shape of the op's `shard.grid`. Without a
//!   device the program runs alone: a collective whose group along its grid axes is one
//!   device is local (an all-gather is the identity, an all-reduce converts to the result's
//!   element type), and a larger group is a run-time error saying a device grid is needed.

use std::sync::Arc;

use xcs_ir::DYNAMIC;

use crate::interp::devices::{Communicator, GridShape, Reduction, SingleDevice};
use crate::interp::semantics::{Control, OpRun, Semantics, ValueKernel};
use crate::interp::value::{AnyValue, RtValue, Tensor};
use crate::interp::InterpError;

use super::attrs::{grid_axes_of, ReductionKind};
use super::{GridOp, Sharding};

/// An op run by a plain function of its [`OpRun`], which gives its results.
pub struct RunFn(pub fn(&OpRun<'_>) -> Result<Vec<RtValue>, InterpError>);

impl Semantics for RunFn {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        (self.0)(run).map(Control::Values)
    }
}

/// `shard.shard`: the identity.
pub static SHARD: ValueKernel = ValueKernel(|_, operands| {
    operands.first().map(|v| (*v).clone()).ok_or_else(|| "has no operand".to_string())
});

/// `shard.sharding`: an opaque value holding the [`Sharding`] (static parts).
pub static SHARDING: ValueKernel = ValueKernel(|info, _| {
    let s = Sharding::of(info.op.ctx, info.op.body, info.op.op)?;
    Ok(RtValue::Any(AnyValue(Arc::new(s))))
});

pub static ALL_GATHER: RunFn = RunFn(|run| {
    let (device, axes, x) = collective(run)?;
    let axis = index_attr(run, "gather_axis")?;
    one(run, device.get().all_gather(&x, &axes, axis))
});

pub static ALL_REDUCE: RunFn = RunFn(|run| {
    let (device, axes, x) = collective(run)?;
    let (x, kind) = (to_result_elem(run, x)?, reduction(run)?);
    one(run, device.get().all_reduce(&x, &axes, kind))
});

pub static REDUCE_SCATTER: RunFn = RunFn(|run| {
    let (device, axes, x) = collective(run)?;
    let (x, kind) = (to_result_elem(run, x)?, reduction(run)?);
    let axis = index_attr(run, "scatter_axis")?;
    one(run, device.get().reduce_scatter(&x, &axes, kind, axis))
});

pub static ALL_TO_ALL: RunFn = RunFn(|run| {
    let (device, axes, x) = collective(run)?;
    let (split, concat) = (index_attr(run, "split_axis")?, index_attr(run, "concat_axis")?);
    one(run, device.get().all_to_all(&x, &axes, split, concat))
});

pub static ALL_SLICE: RunFn = RunFn(|run| {
    let (device, axes, x) = collective(run)?;
    let axis = index_attr(run, "slice_axis")?;
    one(run, device.get().all_slice(&x, &axes, axis))
});

pub static BROADCAST: RunFn = RunFn(|run| {
    let (device, axes, x) = collective(run)?;
    let statics = run.info().i64s("root").map_err(|e| run.error(e))?;
    let mut dynamic = run.operands()[1..].iter();
    let mut root = Vec::with_capacity(statics.len());
    for s in statics {
        let v = if s == DYNAMIC {
            dynamic.next().and_then(|v| v.as_scalar()).map(|s| s.value as i64)
        } else {
            Some(s)
        };
        match v {
            Some(v) if v >= 0 => root.push(v as usize),
            _ => return Err(run.error("has an invalid root coordinate")),
        }
    }
    one(run, device.get().broadcast(&x, &axes, &root))
});

pub static PROCESS_MULTI_INDEX: RunFn = RunFn(|run| {
    let (grid, shape) = grid_of(run)?;
    let axes = match axes_attr(run, "axes", shape.len())? {
        a if a.is_empty() => (0..shape.len()).collect(),
        a => a,
    };
    let coords = coords(run, &grid, &shape, &axes)?;
    Ok(axes.iter().map(|&a| RtValue::int(coords[a] as i128, 64)).collect())
});

pub static PROCESS_LINEAR_INDEX: RunFn = RunFn(|run| {
    let (grid, shape) = grid_of(run)?;
    let all: Vec<usize> = (0..shape.len()).collect();
    let coords = coords(run, &grid, &shape, &all)?;
    let linear = match run.device() {
        Some(d) => d.grid().linear(&coords),
        None => 0,
    };
    Ok(vec![RtValue::int(linear as i128, 64)])
});

pub static GRID_SHAPE: RunFn = RunFn(|run| {
    let (grid, shape) = grid_of(run)?;
    let axes = match axes_attr(run, "axes", shape.len())? {
        a if a.is_empty() => (0..shape.len()).collect(),
        a => a,
    };
    let device = run.device();
    if let Some(d) = device {
        check_device_grid(run, &grid, &shape, d)?;
    }
    axes.iter()
        .map(|&a| match (shape[a], device) {
            (DYNAMIC, Some(d)) => Ok(RtValue::int(d.grid().0[a] as i128, 64)),
            (DYNAMIC, None) => Err(run.error(format!("needs a device grid: axis {a} of @{grid} has a dynamic size"))),
            (n, _) => Ok(RtValue::int(n as i128, 64)),
        })
        .collect()
});

/// The communicator a collective runs on: the interpreter's device, or a lone device.
enum Device<'r> {
    Grid(&'r dyn Communicator),
    Alone(SingleDevice),
}

impl Device<'_> {
    fn get(&self) -> &dyn Communicator {
        match self {
            Device::Grid(d) => *d,
            Device::Alone(d) => d,
        }
    }
}

/// The name and static shape (`DYNAMIC` for `?`) of the grid the op names.
fn grid_of(run: &OpRun<'_>) -> Result<(String, Vec<i64>), InterpError> {
    let ctx = run.ctx;
    let name = run
        .view()
        .attr("grid")
        .and_then(|a| ctx.as_symbol(a))
        .ok_or_else(|| run.error("requires a 'grid' symbol reference"))?;
    let grid = run
        .symbol(name)
        .filter(|g| GridOp::cast(ctx, g.body, g.op).is_some())
        .ok_or_else(|| run.error(format!("names @{name}, which is not a shard.grid of the module")))?;
    let shape = grid
        .attr("shape")
        .and_then(|a| ctx.as_i64_array(a))
        .ok_or_else(|| run.error(format!("@{name} has no valid shape")))?;
    Ok((name.to_string(), shape))
}

/// The op's grid axes attribute `name`, checked against the grid's rank.
fn axes_attr(run: &OpRun<'_>, name: &str, rank: usize) -> Result<Vec<usize>, InterpError> {
    let axes = match run.view().attr(name) {
        None => Vec::new(),
        Some(a) => grid_axes_of(run.ctx, a).ok_or_else(|| run.error(format!("attribute '{name}' must be an array<i16>")))?,
    };
    axes.iter()
        .map(|&a| usize::try_from(a).ok().filter(|&a| a < rank).ok_or_else(|| run.error(format!("grid axis {a} is out of range"))))
        .collect()
}

/// Checks that the interpreter's device grid is the op's grid (`shape`, with `?` matching any
/// size).
fn check_device_grid(run: &OpRun<'_>, grid: &str, shape: &[i64], device: &dyn Communicator) -> Result<(), InterpError> {
    let dev = device.grid();
    let same = dev.rank() == shape.len() && shape.iter().zip(&dev.0).all(|(&s, &d)| s == DYNAMIC || s as usize == d);
    if !same {
        let dims: Vec<String> = shape.iter().map(|&d| if d == DYNAMIC { "?".into() } else { d.to_string() }).collect();
        return Err(run.error(format!("runs on a device grid of shape {dev}, but @{grid} has shape {}", dims.join("x"))));
    }
    Ok(())
}

/// The error of a collective or query that needs more than the lone device it runs on.
fn needs_grid(run: &OpRun<'_>, grid: &str, shape: &[i64], axes: &[usize]) -> InterpError {
    let sizes: Vec<String> = axes.iter().map(|&a| if shape[a] == DYNAMIC { "?".into() } else { shape[a].to_string() }).collect();
    let list: Vec<String> = axes.iter().map(|a| a.to_string()).collect();
    run.error(format!(
        "needs a device grid: its group along grid axes [{}] of @{grid} has {} devices, and the program runs on one \
         (run it on every device of the grid, e.g. with run_spmd or xcs-run --devices)",
        list.join(", "),
        sizes.join("x")
    ))
}

/// The device, grid axes and input tensor of a collective.
fn collective<'r>(run: &OpRun<'r>) -> Result<(Device<'r>, Vec<usize>, Tensor), InterpError> {
    let (grid, shape) = grid_of(run)?;
    let axes = axes_attr(run, "grid_axes", shape.len())?;
    let x = match run.operands().first() {
        Some(RtValue::Tensor(t)) => t.clone(),
        _ => return Err(run.error("operand #0 must be a tensor")),
    };
    if let Some(d) = run.device() {
        check_device_grid(run, &grid, &shape, d)?;
        return Ok((Device::Grid(d), axes, x));
    }
    if axes.iter().any(|&a| shape[a] != 1) {
        return Err(needs_grid(run, &grid, &shape, &axes));
    }
    let lone = GridShape(shape.iter().map(|&d| if d == DYNAMIC { 1 } else { d as usize }).collect());
    Ok((Device::Alone(SingleDevice::new(lone)), axes, x))
}

/// The device's coordinates (all of them) for a query of `axes`: a lone device is at 0 when
/// those axes have size 1.
fn coords(run: &OpRun<'_>, grid: &str, shape: &[i64], axes: &[usize]) -> Result<Vec<usize>, InterpError> {
    match run.device() {
        Some(d) => {
            check_device_grid(run, grid, shape, d)?;
            Ok(d.coords().to_vec())
        }
        None if axes.iter().all(|&a| shape[a] == 1) => Ok(vec![0; shape.len()]),
        None => Err(needs_grid(run, grid, shape, axes)),
    }
}

fn index_attr(run: &OpRun<'_>, name: &str) -> Result<usize, InterpError> {
    let v = run.info().i64(name).map_err(|e| run.error(e))?;
    usize::try_from(v).map_err(|_| run.error(format!("attribute '{name}' must not be negative")))
}

/// The op's reduction as the communicator's.
fn reduction(run: &OpRun<'_>) -> Result<Reduction, InterpError> {
    let kind = match run.view().attr("reduction") {
        None => ReductionKind::Sum,
        Some(a) => ReductionKind::from_attr(run.ctx, a).ok_or_else(|| run.error("has an invalid 'reduction'"))?,
    };
    Ok(match kind {
        ReductionKind::Sum => Reduction::Sum,
        ReductionKind::Max => Reduction::Max,
        ReductionKind::Min => Reduction::Min,
        ReductionKind::Product => Reduction::Product,
        ReductionKind::Average => Reduction::Average,
        ReductionKind::BitwiseAnd => Reduction::BitwiseAnd,
        ReductionKind::BitwiseOr => Reduction::BitwiseOr,
        ReductionKind::BitwiseXor => Reduction::BitwiseXor,
        ReductionKind::Generic => return Err(run.error("a 'generic' reduction is not supported by the interpreter")),
    })
}

/// The input converted to the result's element type (reductions accumulate in it).
fn to_result_elem(run: &OpRun<'_>, x: Tensor) -> Result<Tensor, InterpError> {
    let (_, elem) = run.info().result_tensor_type(0).map_err(|e| run.error(e))?;
    if x.elem() == elem {
        return Ok(x);
    }
    x.cast(elem).map_err(|e| run.error(e))
}

/// The op's single result, or its error located at the op.
fn one(run: &OpRun<'_>, r: Result<Tensor, String>) -> Result<Vec<RtValue>, InterpError> {
    r.map(|t| vec![RtValue::Tensor(t)]).map_err(|e| run.error(e))
}
