//! The verifiers of the `shard` ops, with upstream MLIR 22's checks and messages
//! (`ShardOps.cpp`): the op's own rules (grid rank, split axes, halo sizes, matching types) and,
//! once symbols resolve, the rules that need the grid (`verifySymbolUses`): the grid exists,
//! grid axes are in range and not repeated, and each collective's result has the shape the
//! grid implies ("Dimension size mismatch for result axis 1. Expected 8, but got 5.").
//! Upstream's errors without an `'op' op` prefix (its `emitError()`) are plain here too.
//! Where upstream reads out of bounds (a tensor axis beyond the rank) XCS reports an error.

use xcs_ir::opdef::{OpView, SymbolLookup};
use xcs_ir::{Attr, Diagnostic, Type, TypeKind, DYNAMIC};

use super::attrs::{grid_axes_of, split_axes_of};
use super::GridOp;

/// An error at the op without the `'name' op` prefix (MLIR's `op->emitError()`).
fn plain(v: &OpView, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(v.body.op_loc(v.op), message)
}

/// The shape of a ranked tensor type.
fn shape_of(v: &OpView, t: Type) -> Vec<i64> {
    match v.ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, .. } => shape.to_vec(),
        _ => Vec::new(),
    }
}

/// The op's grid axes attribute `name` (absent: none).
fn axes_attr(v: &OpView, name: &str) -> Result<Vec<i64>, Diagnostic> {
    match v.attr(name) {
        None => Ok(Vec::new()),
        Some(a) => grid_axes_of(v.ctx, a)
            .ok_or_else(|| v.error(format!("attribute '{name}' failed to satisfy constraint: i16 dense array attribute"))),
    }
}

fn i64_list(v: &OpView, name: &str) -> Vec<i64> {
    v.attr(name).and_then(|a| v.ctx.as_i64_array(a)).unwrap_or_default()
}

// ---------------------------------------------------------------------------- op rules

pub(crate) fn verify_grid(v: &OpView) -> Result<(), Diagnostic> {
    let shape = i64_list(v, "shape");
    if shape.is_empty() {
        return Err(v.error("rank of grid is expected to be a positive integer"));
    }
    if shape.iter().any(|&d| d < 0 && d != DYNAMIC) {
        return Err(v.error("dimension size of a grid is expected to be non-negative or dynamic"));
    }
    Ok(())
}

pub(crate) fn verify_sharding(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Some(axes) = v.attr("split_axes").and_then(|a| split_axes_of(ctx, a)) else {
        return Err(v.error("attribute 'split_axes' failed to satisfy constraint: grid axes array"));
    };
    let mut seen = Vec::new();
    for &a in axes.iter().flatten() {
        if a < 0 {
            return Err(plain(v, "grid axis is expected to be non-negative"));
        }
        if seen.contains(&a) {
            return Err(plain(v, "grid axis duplicated"));
        }
        seen.push(a);
    }
    let (halos, offsets) = (i64_list(v, "static_halo_sizes"), i64_list(v, "static_sharded_dims_offsets"));
    if !halos.is_empty() && !offsets.is_empty() {
        return Err(v.error("halo sizes and shard offsets are mutually exclusive"));
    }
    let split = axes.iter().filter(|a| !a.is_empty()).count();
    if !halos.is_empty() && halos.len() != split * 2 {
        return Err(plain(v, "halo sizes must be specified for all split axes."));
    }
    // the operand segments (MLIR checks their sum; XCS also that each list has as many `?`
    // placeholders as values, which upstream leaves undefined)
    let operands = v.num_operands();
    let segments = match v.attr("operandSegmentSizes") {
        None => vec![0, 0],
        Some(a) => ctx.as_dense_ints(a).unwrap_or_default().into_iter().map(|x| x as i64).collect(),
    };
    if segments.len() != 2 || segments.iter().sum::<i64>() != operands as i64 {
        return Err(v.error(format!(
            "operand count ({operands}) does not match with the total size ({}) specified in attribute 'operandSegmentSizes'",
            segments.iter().sum::<i64>()
        )));
    }
    let dynamic = |l: &[i64]| l.iter().filter(|&&x| x == DYNAMIC).count() as i64;
    if dynamic(&offsets) != segments[0] || dynamic(&halos) != segments[1] {
        return Err(v.error("has a different number of dynamic sizes ('?' in the static lists) than operands"));
    }
    Ok(())
}

pub(crate) fn verify_shard(v: &OpView) -> Result<(), Diagnostic> {
    if v.num_operands() == 2 && v.num_results() == 1 && v.operand_type(0) != v.result_type(0) {
        return Err(v.error("failed to verify that all of {result, src} have same type"));
    }
    Ok(())
}

/// `SameOperandsAndResultRank` on the input and the result.
pub(crate) fn verify_same_rank(v: &OpView) -> Result<(), Diagnostic> {
    if shape_of(v, v.operand_type(0)).len() != shape_of(v, v.result_type(0)).len() {
        return Err(v.error("result type has different rank than operands"));
    }
    Ok(())
}

/// `SameOperandsAndResultShape` (`shard.all_reduce`).
pub(crate) fn verify_same_shape(v: &OpView) -> Result<(), Diagnostic> {
    if shape_of(v, v.operand_type(0)) != shape_of(v, v.result_type(0)) {
        return Err(v.error("requires the same shape for all operands and results"));
    }
    Ok(())
}

/// `AllShapesMatch` and `AllElementTypesMatch` of the input and the result (`shard.broadcast`).
pub(crate) fn verify_broadcast(v: &OpView) -> Result<(), Diagnostic> {
    let (i, r) = (v.operand_type(0), v.result_type(0));
    if shape_of(v, i) != shape_of(v, r) {
        return Err(v.error("failed to verify that all of {input, result} have same shape"));
    }
    if v.ctx.element_type(i) != v.ctx.element_type(r) {
        return Err(v.error("failed to verify that all of {input, result} have same element type"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------- grid rules

/// The grid the op's `grid` attribute names, as its shape (`DYNAMIC` for `?`).
struct Grid {
    name: String,
    shape: Vec<i64>,
}

fn grid_of(v: &OpView, symbols: &dyn SymbolLookup) -> Result<Grid, Diagnostic> {
    let ctx = v.ctx;
    let name = v.attr("grid").and_then(|a| ctx.as_symbol(a)).unwrap_or("");
    let info = symbols.lookup(name).filter(|s| GridOp::matches(ctx, s.op_name));
    let shape = info.and_then(|s| ctx.dict_get(s.attrs, "shape")).and_then(|a: Attr| ctx.as_i64_array(a));
    match shape {
        Some(shape) => Ok(Grid { name: name.to_string(), shape }),
        None => Err(plain(v, format!("Undefined required grid symbol \"{name}\"."))),
    }
}

/// Grid axes in range and not repeated (MLIR's `verifyGridAxes`).
fn check_axes(v: &OpView, grid: &Grid, axes: &[i64]) -> Result<(), Diagnostic> {
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(plain(v, "Grid axes contains duplicate elements."));
    }
    let rank = grid.shape.len() as i64;
    if let Some(&a) = axes.iter().find(|&&a| a < 0 || a >= rank) {
        return Err(plain(
            v,
            format!(
                "0-based grid axis index {a} is out of bounds. The referenced grid \"{}\" is of rank {rank}.",
                grid.name
            ),
        ));
    }
    Ok(())
}

/// The number of devices in a group along `axes` (`DYNAMIC` if a size is not static).
fn group_size(grid: &Grid, axes: &[i64]) -> i64 {
    let mut n: i64 = 1;
    for &a in axes {
        match grid.shape.get(a as usize) {
            Some(&d) if d != DYNAMIC => n = n.saturating_mul(d),
            _ => return DYNAMIC,
        }
    }
    n
}

fn mul(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC {
        DYNAMIC
    } else {
        a.saturating_mul(b)
    }
}

fn div(a: i64, b: i64) -> i64 {
    if a == DYNAMIC || b == DYNAMIC || b == 0 {
        DYNAMIC
    } else {
        a / b
    }
}

/// Dim `d` of `shape` (`?` past its rank; the rank is checked first by the op's verifier).
fn dim(shape: &[i64], d: usize) -> i64 {
    shape.get(d).copied().unwrap_or(DYNAMIC)
}

/// A static result dim must be the expected one (MLIR's `verifyDimensionCompatibility`).
fn check_dim(v: &OpView, expected: i64, got: i64, axis: usize) -> Result<(), Diagnostic> {
    if got != DYNAMIC && expected != got {
        let e = if expected == DYNAMIC { "dynamic".to_string() } else { expected.to_string() };
        return Err(plain(v, format!("Dimension size mismatch for result axis {axis}. Expected {e}, but got {got}.")));
    }
    Ok(())
}

/// A tensor axis attribute `name` in `[0, rank)`.
fn tensor_axis(v: &OpView, name: &str, what: &str, rank: usize) -> Result<usize, Diagnostic> {
    let a = v.attr(name).and_then(|a| v.ctx.as_int(a)).unwrap_or(0) as i64;
    if a < 0 || a >= rank as i64 {
        return Err(plain(v, format!("{what} axis {a} is out of bounds [0, {rank}).")));
    }
    Ok(a as usize)
}

/// The grid and the op's `grid_axes`, checked.
fn grid_and_axes(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(Grid, Vec<i64>), Diagnostic> {
    let grid = grid_of(v, symbols)?;
    let axes = axes_attr(v, "grid_axes")?;
    check_axes(v, &grid, &axes)?;
    Ok((grid, axes))
}

pub(crate) fn verify_all_gather_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let (grid, axes) = grid_and_axes(v, symbols)?;
    let (input, result) = (shape_of(v, v.operand_type(0)), shape_of(v, v.result_type(0)));
    let gather = tensor_axis(v, "gather_axis", "Gather", result.len())?;
    let n = group_size(&grid, &axes);
    for (d, (&i, &r)) in input.iter().zip(&result).enumerate() {
        check_dim(v, if d == gather { mul(n, i) } else { i }, r, d)?;
    }
    Ok(())
}

pub(crate) fn verify_all_reduce_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    grid_and_axes(v, symbols).map(|_| ())
}

/// `shard.all_slice` and `shard.reduce_scatter`: the result is the input with `attr`'s dim
/// divided by the group size (MLIR's `verifyScatterOrSliceOperandAndResultShape`).
fn verify_scatter_or_slice(v: &OpView, symbols: &dyn SymbolLookup, attr: &str, what: &str) -> Result<(), Diagnostic> {
    let (grid, axes) = grid_and_axes(v, symbols)?;
    let (input, result) = (shape_of(v, v.operand_type(0)), shape_of(v, v.result_type(0)));
    let axis = tensor_axis(v, attr, what, input.len())?;
    for (d, (&i, &r)) in input.iter().zip(&result).enumerate() {
        if d != axis {
            check_dim(v, i, r, d)?;
        }
    }
    let n = group_size(&grid, &axes);
    if input[axis] != DYNAMIC && n != DYNAMIC && n != 0 && input[axis] % n != 0 {
        return Err(plain(
            v,
            format!(
                "Operand dimension size {} is not divisible by collective device group size {n} for tensor axis {axis}.",
                input[axis]
            ),
        ));
    }
    check_dim(v, div(input[axis], n), dim(&result, axis), axis)
}

pub(crate) fn verify_all_slice_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    verify_scatter_or_slice(v, symbols, "slice_axis", "Slice")
}

pub(crate) fn verify_reduce_scatter_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    verify_scatter_or_slice(v, symbols, "scatter_axis", "Scatter")
}

pub(crate) fn verify_all_to_all_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let (grid, axes) = grid_and_axes(v, symbols)?;
    let (input, result) = (shape_of(v, v.operand_type(0)), shape_of(v, v.result_type(0)));
    let split = tensor_axis(v, "split_axis", "Split", input.len())?;
    let concat = tensor_axis(v, "concat_axis", "Concat", input.len())?;
    for (d, (&i, &r)) in input.iter().zip(&result).enumerate() {
        if (d != split && d != concat) || split == concat {
            check_dim(v, i, r, d)?;
        }
    }
    if split == concat {
        return Ok(());
    }
    let n = group_size(&grid, &axes);
    let mut expected_split = div(input[split], n);
    if expected_split != DYNAMIC && input[split] % n != 0 {
        expected_split = DYNAMIC;
    }
    check_dim(v, mul(input[concat], n), dim(&result, concat), concat)?;
    check_dim(v, expected_split, dim(&result, split), split)
}

pub(crate) fn verify_broadcast_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let (grid, axes) = grid_and_axes(v, symbols)?;
    let root = i64_list(v, "root");
    if root.len() != axes.len() {
        return Err(plain(
            v,
            format!(
                "In-group device \"root\" has unexpected multi-index size {}. Expected {}.",
                root.len(),
                axes.len()
            ),
        ));
    }
    for (i, (&r, &a)) in root.iter().zip(&axes).enumerate() {
        let size = grid.shape[a as usize];
        if r != DYNAMIC && size != DYNAMIC && size <= r {
            return Err(plain(
                v,
                format!(
                    "Out of bounds coordinate {i} for in-group device \"root\". Got {r}, but expected value in the range [0, {}].",
                    size - 1
                ),
            ));
        }
    }
    Ok(())
}

pub(crate) fn verify_sharding_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let grid = grid_of(v, symbols)?;
    let offsets = i64_list(v, "static_sharded_dims_offsets");
    if offsets.is_empty() {
        return Ok(());
    }
    if grid.shape.contains(&DYNAMIC) {
        return Err(plain(v, "sharded dims offsets are not allowed for device grids with dynamic shape."));
    }
    let axes = v.attr("split_axes").and_then(|a| split_axes_of(v.ctx, a)).unwrap_or_default();
    let mut pos = 0usize;
    for inner in axes.iter().filter(|a| !a.is_empty()) {
        // MLIR adds the sizes of the axes (not their product) here; kept as upstream has it
        let shards: i64 = inner.iter().map(|&a| grid.shape.get(a as usize).copied().unwrap_or(0)).sum();
        let mut last = 0;
        for i in 0..=shards.max(0) as usize {
            let Some(&o) = offsets.get(pos + i) else {
                return Err(plain(v, "sharded dims offsets has wrong size."));
            };
            if o != DYNAMIC {
                if o < last {
                    return Err(plain(v, "sharded dims offsets must be non-decreasing."));
                }
                last = o;
            }
        }
        pos += shards.max(0) as usize + 1;
    }
    Ok(())
}

/// `shard.process_multi_index` and `shard.grid_shape`: one result per axis (all axes when none
/// are given).
pub(crate) fn verify_grid_query_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let grid = grid_of(v, symbols)?;
    let axes = axes_attr(v, "axes")?;
    check_axes(v, &grid, &axes)?;
    let expected = if axes.is_empty() { grid.shape.len() } else { axes.len() };
    if v.num_results() != expected {
        return Err(plain(v, format!("Unexpected number of results {}. Expected {expected}.", v.num_results())));
    }
    Ok(())
}

pub(crate) fn verify_linear_index_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    grid_of(v, symbols).map(|_| ())
}
