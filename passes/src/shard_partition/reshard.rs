//! Resharding: the collectives that take a value from one [`Layout`] to another, planned as a
//! list of single-axis [`Step`]s (the cost model's steps, `shard-cost-model.md` 3.1) and then
//! emitted as `shard` ops.
//!
//! The path is canonical (it depends only on the two layouts, not on costs):
//! 1. pending axes first, each resolved by a `reduce_scatter` onto the dim the target splits
//!    along that axis when the reduced value may be scattered there (the dim's current axes
//!    followed by this one start the target's list), else by an `all_reduce`; scatters before
//!    reductions (a scatter shrinks what is left to reduce), each group in axis order;
//! 2. then, until the layout is the target: local slices (`all_slice`) of dims whose split is
//!    a prefix of the target's, by axes the value does not use yet; an `all_to_all` when an
//!    axis must leave one dim (the minor end of a dim that is not a prefix of its target) for
//!    another that can take it next; otherwise an `all_gather` of the minor axis of the first
//!    dim that is not a prefix of its target.
//!
//! Slices come first because they shrink later messages; an all_to_all replaces a gather and
//! a slice. Swapping the split dims of a 2-D grid is therefore gather, all_to_all, slice, as
//! in the model. A plan whose reshard takes another path (a cheaper order on unequal axes)
//! writes it as a chain of annotations, one step each (docs/shard.md).

use xcs_dialects::shard::{build, Grid, ReductionKind};
use xcs_ir::{Builder, Diagnostic, Value};

use super::layout::Layout;

/// One collective on one grid axis.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Pending → replicated along `axis`.
    AllReduce { axis: usize, kind: ReductionKind },
    /// Pending → split dim `dim` along `axis`.
    ReduceScatter {
        axis: usize,
        kind: ReductionKind,
        dim: usize,
    },
    /// Split `dim` along `axis` → replicated (the minor axis of the dim).
    AllGather { axis: usize, dim: usize },
    /// Replicated → split `dim` along `axis` (local; the new minor axis of the dim).
    AllSlice { axis: usize, dim: usize },
    /// `axis` leaves `from` (its minor axis) and becomes the minor axis of `to`.
    AllToAll { axis: usize, from: usize, to: usize },
}

/// Resolves the pending axes of `from` towards `target` (which has none): the steps and the
/// layout after them (nothing pending).
pub fn resolve(from: &Layout, target: &Layout) -> (Vec<Step>, Layout) {
    let mut cur = from.clone();
    let mut steps = Vec::new();
    // reduce_scatters, repeatedly (a scatter can enable the next one on the same dim)
    loop {
        let scatter = cur.pending.iter().enumerate().find_map(|(i, &(axis, kind))| {
            let dim = target.dim_of(axis)?;
            let want = &target.dims[dim];
            let have = &cur.dims[dim];
            (want.len() > have.len() && want[..have.len()] == have[..] && want[have.len()] == axis)
                .then_some((i, axis, kind, dim))
        });
        let Some((i, axis, kind, dim)) = scatter else { break };
        cur.pending.remove(i);
        cur.dims[dim].push(axis);
        steps.push(Step::ReduceScatter { axis, kind, dim });
    }
    for (axis, kind) in std::mem::take(&mut cur.pending) {
        steps.push(Step::AllReduce { axis, kind });
    }
    (steps, cur)
}

/// The steps from `from` to `target`, neither with pending axes (see the module docs).
pub fn moves(from: &Layout, target: &Layout) -> Vec<Step> {
    let mut cur = from.clone();
    let mut steps = Vec::new();
    let is_prefix = |cur: &Layout, d: usize| {
        let (have, want) = (&cur.dims[d], &target.dims[d]);
        have.len() <= want.len() && want[..have.len()] == have[..]
    };
    while cur.dims != target.dims {
        // local slices
        let slice = (0..cur.dims.len()).find_map(|d| {
            let next = *target.dims[d].get(cur.dims[d].len())?;
            (is_prefix(&cur, d) && !cur.uses(next)).then_some((next, d))
        });
        if let Some((axis, dim)) = slice {
            cur.dims[dim].push(axis);
            steps.push(Step::AllSlice { axis, dim });
            continue;
        }
        // an axis moving from a dim that must shrink to a dim that can take it next
        let a2a = (0..cur.dims.len()).filter(|&d| !is_prefix(&cur, d)).find_map(|from| {
            let &axis = cur.dims[from].last()?;
            let to = target.dim_of(axis)?;
            let next = target.dims[to].get(cur.dims[to].len());
            (to != from && is_prefix(&cur, to) && next == Some(&axis)).then_some((axis, from, to))
        });
        if let Some((axis, from, to)) = a2a {
            cur.dims[from].pop();
            cur.dims[to].push(axis);
            steps.push(Step::AllToAll { axis, from, to });
            continue;
        }
        let Some(dim) = (0..cur.dims.len()).find(|&d| !is_prefix(&cur, d)) else {
            break; // unreachable: a layout that differs has a dim that is not a prefix or can grow
        };
        let Some(axis) = cur.dims[dim].pop() else { break };
        steps.push(Step::AllGather { axis, dim });
    }
    steps
}

/// Every step from `from` (pending axes allowed) to `target`.
pub fn plan(from: &Layout, target: &Layout) -> Vec<Step> {
    let (mut steps, cur) = resolve(from, target);
    steps.extend(moves(&cur, target));
    steps
}

/// Emits `steps` on `x` at the builder's insertion point; returns the final value.
pub fn emit(b: &mut Builder<'_>, grid: &Grid, mut x: Value, steps: &[Step]) -> Result<Value, Diagnostic> {
    for step in steps {
        x = match *step {
            Step::AllReduce { axis, kind } => build::all_reduce(b, x, grid, &[axis as i64], kind)?,
            Step::ReduceScatter { axis, kind, dim } => build::reduce_scatter(b, x, grid, &[axis as i64], kind, dim)?,
            Step::AllGather { axis, dim } => build::all_gather(b, x, grid, &[axis as i64], dim)?,
            Step::AllSlice { axis, dim } => build::all_slice(b, x, grid, &[axis as i64], dim)?,
            Step::AllToAll { axis, from, to } => build::all_to_all(b, x, grid, &[axis as i64], to, from)?,
        };
    }
    Ok(x)
}
