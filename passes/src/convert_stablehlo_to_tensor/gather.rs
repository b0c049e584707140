//! `stablehlo.gather` of single points along some dims and whole slices along the others: what
//! `jnp.take`, `jnp.take_along_axis` (with batching dims) and embedding lookups emit. The
//! operand is transposed to `[point dims..., slice dims...]` and flattened over the point dims;
//! each result position's linear point index is built from the start indices, clamped to the
//! operand (StableHLO clamps so that a slice lies in the operand; `tensor.gather` would reject
//! them), and from iotas along the batching dims; one `tensor.gather` along axis 0 takes the
//! slices, and a transpose puts the slice dims at `offset_dims`.

use xcs_dialects::stablehlo::GatherDims;
use xcs_dialects::tensor::{self, BuildResult};
use xcs_ir::{Builder, Diagnostic, Op, Value};

use super::ops::{scalar, value_shape};
use super::unsupported;

pub(super) fn gather(b: &mut Builder<'_>, op: Op, operand: Value, indices: Value) -> BuildResult {
    let ctx = b.ctx;
    let d = b.body.attr(ctx, op, "dimension_numbers").and_then(|a| GatherDims::from_attr(ctx, a)).expect("verified");
    let sizes = b.body.attr(ctx, op, "slice_sizes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    let s = value_shape(b, operand);
    let ishape = value_shape(b, indices);
    let fail = |b: &Builder<'_>, what: &str| unsupported(ctx, b.body, op, what);
    if sizes.len() != s.len() || d.index_vector_dim < 0 || d.index_vector_dim as usize > ishape.len() {
        return Err(fail(b, "gather with malformed slice_sizes or index_vector_dim"));
    }
    let rank = s.len() as i64;
    let is_point = |i: i64| d.collapsed_slice_dims.contains(&i) || d.operand_batching_dims.contains(&i);
    for i in 0..rank {
        let full = sizes[i as usize] == s[i as usize];
        let ok = if is_point(i) { sizes[i as usize] == 1 } else { full };
        if !ok {
            return Err(fail(b, &format!("gather of a partial slice in operand dim {i} (only single points and whole dims are covered)")));
        }
    }
    // Start indices as [batch..., K] in i64.
    let ivd = d.index_vector_dim as usize;
    let i64t = ctx.i64_type();
    let mut idx = tensor::cast(b, indices, i64t)?;
    let mut batch: Vec<i64> = ishape.clone();
    if ivd == ishape.len() {
        let mut with_k = ishape.clone();
        with_k.push(1);
        idx = tensor::reshape(b, idx, &with_k)?;
    } else {
        batch.remove(ivd);
        let mut perm: Vec<i64> = (0..ishape.len() as i64).filter(|&i| i != ivd as i64).collect();
        perm.push(ivd as i64);
        if ivd + 1 != ishape.len() {
            idx = tensor::transpose(b, idx, &perm)?;
        }
    }
    let k = *value_shape(b, idx).last().unwrap_or(&0);
    if k as usize != d.start_index_map.len() {
        return Err(fail(b, "gather whose index vectors do not match start_index_map"));
    }
    let point_dims: Vec<i64> = (0..rank).filter(|&i| is_point(i)).collect();
    let slice_dims: Vec<i64> = (0..rank).filter(|&i| !is_point(i)).collect();
    // The linear index over the point dims, row-major in `point_dims` order.
    let mut linear: Option<Value> = None;
    let mut stride = 1i64;
    for &p in point_dims.iter().rev() {
        let coord = point_coordinate(b, op, &d, idx, &batch, p, s[p as usize], ivd)?;
        let term = if stride == 1 { coord } else {
            let st = scalar(b, i64t, stride as f64)?;
            tensor::mul(b, coord, st)?
        };
        linear = Some(match linear {
            None => term,
            Some(l) => tensor::add(b, l, term)?,
        });
        stride *= s[p as usize];
    }
    // The operand as [points, slice dims...].
    let mut table = operand;
    let perm: Vec<i64> = point_dims.iter().chain(&slice_dims).copied().collect();
    if perm.iter().enumerate().any(|(i, &p)| i as i64 != p) {
        table = tensor::transpose(b, table, &perm)?;
    }
    let mut flat = vec![stride];
    flat.extend(slice_dims.iter().map(|&i| s[i as usize]));
    table = tensor::reshape(b, table, &flat)?;
    let linear = match linear {
        Some(l) => l,
        None => {
            let z = scalar(b, i64t, 0.0)?;
            tensor::broadcast_to(b, z, &batch)?
        }
    };
    let g = tensor::gather(b, table, linear, 0)?;
    // g is [batch..., slice dims...]; the result has the slice dims at offset_dims.
    let (nb, out_rank) = (batch.len() as i64, batch.len() + slice_dims.len());
    if d.offset_dims.len() != slice_dims.len() {
        return Err(fail(b, "gather whose offset_dims do not match the slice dims"));
    }
    let mut next_batch = 0i64;
    let mut perm = Vec::with_capacity(out_rank);
    for r in 0..out_rank as i64 {
        match d.offset_dims.iter().position(|&o| o == r) {
            Some(j) => perm.push(nb + j as i64),
            None => {
                perm.push(next_batch);
                next_batch += 1;
            }
        }
    }
    if perm.iter().enumerate().any(|(i, &p)| i as i64 != p) {
        return tensor::transpose(b, g, &perm);
    }
    Ok(g)
}

/// The coordinate in operand dim `p` (a point dim of size `size`) of each batch position:
/// the clamped start index if `p` is indexed, the batch position if it is a batching dim.
#[allow(clippy::too_many_arguments)]
fn point_coordinate(
    b: &mut Builder<'_>,
    op: Op,
    d: &GatherDims,
    idx: Value,
    batch: &[i64],
    p: i64,
    size: i64,
    ivd: usize,
) -> BuildResult {
    let i64t = b.ctx.i64_type();
    if let Some(k) = d.start_index_map.iter().position(|&m| m == p) {
        let ishape = value_shape(b, idx);
        let last = ishape.len() - 1;
        let mut start = vec![0i64; ishape.len()];
        let mut limit = ishape.clone();
        start[last] = k as i64;
        limit[last] = k as i64 + 1;
        let col = tensor::slice(b, idx, &start, &limit, &vec![1; ishape.len()])?;
        let col = tensor::reshape(b, col, batch)?;
        let lo = scalar(b, i64t, 0.0)?;
        let hi = scalar(b, i64t, (size - 1) as f64)?;
        return tensor::clamp(b, col, lo, hi);
    }
    if let Some(j) = d.operand_batching_dims.iter().position(|&m| m == p) {
        let sib = *d.start_indices_batching_dims.get(j).ok_or_else(|| unsupported(b.ctx, b.body, op, "unpaired batching dims"))? as usize;
        let axis = if sib > ivd { sib - 1 } else { sib };
        let ty = b.ctx.tensor_type(batch, i64t);
        let axis_attr = b.ctx.i64_attr(axis as i64);
        return b.create1_with_types(tensor::IotaOp::DEF.name, &[], ty, &[("axis", axis_attr)]);
    }
    // A collapsed dim without a start index: always 0.
    let z = scalar(b, i64t, 0.0)?;
    tensor::broadcast_to(b, z, batch).map_err(|e: Diagnostic| e)
}
