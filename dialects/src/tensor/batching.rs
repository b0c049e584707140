//! The batching rules of the `tensor` ops (`dyn BatchingRule`, declared with each op in
//! `tensor/mod.rs`; see `interfaces::batching` for the convention): each rule rebuilds its op
//! on operands that may carry a leading batch dim, shifting the op's axes by one and padding
//! batched operands of lower rank with size-1 dims after the batch dim (numpy broadcasting
//! aligns shapes on the right). `tensor.constant` never has a batched operand and
//! `tensor.fused` has no rule. The table of rules is in `docs/vmap-batch.md`.

use rustc_hash::FxHashSet;
use smallvec::{smallvec, SmallVec};
use xcs_ir::{Attr, Op, OpDef, Type, Value, DYNAMIC};

use super::infer::{parse_einsum, reduce_axes};
use super::{
    AddOp, BroadcastToOp, CastOp, CmpOp, ConcatOp, EinsumOp, GatherOp, LayerNormOp, MatmulOp, MulOp, ReduceOp,
    ReshapeOp, SelectOp, SliceOp, SoftmaxOp, TransposeOp,
};
use crate::interfaces::batching::{
    move_dim_perm, shape_and_elem, BatchResult, BatchedResults, BatchedValue, Batcher, RuleFn, Unbatchable,
};
use crate::shape::norm_axis;

/// Every elementwise op (binary, unary, gelu, cmp, select, cast): numpy broadcasting with the
/// operands aligned on the right, so batched operands are padded to the result's rank, then the
/// same op (same attributes) on `[B] ++ T`.
pub static ELEMENTWISE: RuleFn = RuleFn(elementwise);
/// Batched operands padded so that their batch prefixes are as long as the other's; one matmul
/// (an unbatched operand broadcasts, never a `broadcast_to`).
pub static MATMUL: RuleFn = RuleFn(matmul);
/// A fresh label in front of each batched operand's labels and of the output.
pub static EINSUM: RuleFn = RuleFn(einsum);
/// Axes normalised, `+1`.
pub static REDUCE: RuleFn = RuleFn(reduce);
/// `axis` normalised, `+1`.
pub static SOFTMAX: RuleFn = RuleFn(softmax);
/// `axis + 1`; a batched `gamma` or `beta` computed in f64 as the interpreter does.
pub static LAYER_NORM: RuleFn = RuleFn(layer_norm);
/// `perm = [0] ++ (perm + 1)`.
pub static TRANSPOSE: RuleFn = RuleFn(transpose);
/// The result `[B] ++ T` (row-major: each element's block stays contiguous).
pub static RESHAPE: RuleFn = RuleFn(reshape);
/// The operand padded to the result rank, broadcast to `[B] ++ T`.
pub static BROADCAST_TO: RuleFn = RuleFn(broadcast_to);
/// The whole batch dim in front of `start`, `limit` and `stride` (a static batch size).
pub static SLICE: RuleFn = RuleFn(slice);
/// `axis + 1`; unbatched operands broadcast to `[B] ++ T`.
pub static CONCAT: RuleFn = RuleFn(concat);
/// A batched table, batched indices, or both (see [`gather`]).
pub static GATHER: RuleFn = RuleFn(gather);

type RuleResult = BatchResult<BatchedResults>;

/// The one batched result of a rule.
fn batched(v: Value) -> RuleResult {
    Ok(smallvec![BatchedValue::batched(v)])
}

fn values(operands: &[BatchedValue]) -> SmallVec<[Value; 4]> {
    operands.iter().map(|b| b.value).collect()
}

fn op_name<'c>(b: &dyn Batcher<'c>, op: Op) -> &'c str {
    b.ctx().op_name_str(b.body().op_name(op))
}

/// `op`'s result type and its batched type `[B] ++ T` (the rules here are for ops with one
/// result and no region).
fn result_types(b: &dyn Batcher<'_>, op: Op) -> BatchResult<(Type, Type)> {
    let body = b.body();
    if body.num_results(op) != 1 || body.num_regions(op) > 0 {
        return Err(Unbatchable(format!("no batching rule for '{}'", op_name(b, op))));
    }
    let old = body.result_types(op)[0];
    Ok((old, b.batched_type(old)?))
}

fn bad_attr(b: &dyn Batcher<'_>, op: Op, key: &str) -> Unbatchable {
    Unbatchable(format!("'{}' has no valid '{key}' attribute", op_name(b, op)))
}

/// The integer attribute `key` of `op`.
fn int_attr(b: &dyn Batcher<'_>, op: Op, key: &str) -> BatchResult<i64> {
    let ctx = b.ctx();
    b.body()
        .attr(ctx, op, key)
        .and_then(|a| ctx.as_int(a))
        .map(|v| v as i64)
        .ok_or_else(|| bad_attr(b, op, key))
}

/// The `i64` array attribute `key` of `op`.
fn ints_attr(b: &dyn Batcher<'_>, op: Op, key: &str) -> BatchResult<Vec<i64>> {
    let ctx = b.ctx();
    b.body()
        .attr(ctx, op, key)
        .and_then(|a| ctx.as_i64_array(a))
        .ok_or_else(|| bad_attr(b, op, key))
}

/// `op` rebuilt on `operands` with its attributes, `set` replaced.
fn rebuild(
    b: &mut dyn Batcher<'_>,
    op: Op,
    def: &'static OpDef,
    operands: &[Value],
    out_ty: Type,
    set: &[(&str, Attr)],
) -> RuleResult {
    let attrs = b.attrs_with(op, set);
    batched(b.build1(def, operands, out_ty, &attrs)?)
}

fn elementwise(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (old_ty, out_ty) = result_types(b, op)?;
    let rank = shape_and_elem(b.ctx(), old_ty)?.0.len();
    let mut operands = SmallVec::<[Value; 4]>::new();
    for &v in ins {
        operands.push(b.pad(v, rank)?);
    }
    let def = b
        .ctx()
        .op_def(b.body().op_name(op))
        .ok_or_else(|| Unbatchable::new("internal: an elementwise op that is not registered"))?;
    rebuild(b, op, def, &operands, out_ty, &[])
}

fn matmul(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (_, out_ty) = result_types(b, op)?;
    // Pad the batched operand's batch prefix to the other's, so the batch dim leads after
    // broadcasting; an unbatched operand broadcasts: still one matmul.
    let (la, lc) = (b.unbatched_shape(ins[0])?.0.len(), b.unbatched_shape(ins[1])?.0.len());
    let rank = la.max(lc);
    let lhs = b.pad(ins[0], rank)?;
    let rhs = b.pad(ins[1], rank)?;
    rebuild(b, op, MatmulOp::DEF, &[lhs, rhs], out_ty, &[])
}

fn einsum(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let ctx = b.ctx();
    let (_, out_ty) = result_types(b, op)?;
    let eq = b
        .body()
        .attr(ctx, op, "equation")
        .and_then(|a| ctx.as_str(a))
        .ok_or_else(|| bad_attr(b, op, "equation"))?;
    let e = parse_einsum(eq, ins.len()).map_err(Unbatchable)?;
    let used: FxHashSet<char> = e.inputs.iter().flatten().chain(&e.output).copied().collect();
    let fresh = ('a'..='z')
        .chain('A'..='Z')
        .find(|c| !used.contains(c))
        .ok_or_else(|| Unbatchable::new("the einsum equation uses every label"))?;
    let label = |ls: &[char], batched: bool| -> String {
        let mut s = String::new();
        if batched {
            s.push(fresh);
        }
        s.extend(ls);
        s
    };
    let lhs: Vec<String> = e.inputs.iter().zip(ins).map(|(ls, v)| label(ls, v.batched)).collect();
    let eq2 = format!("{}->{}", lhs.join(","), label(&e.output, true));
    rebuild(
        b,
        op,
        EinsumOp::DEF,
        &values(ins),
        out_ty,
        &[("equation", ctx.str_attr(&eq2))],
    )
}

fn reduce(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (_, out_ty) = result_types(b, op)?;
    let rank = b.unbatched_shape(ins[0])?.0.len();
    let axes = reduce_axes(&ints_attr(b, op, "axes")?, rank).map_err(Unbatchable)?;
    let shifted: Vec<i64> = axes.iter().map(|&a| a as i64 + 1).collect();
    let attr = b.ctx().dense_i64_array(&shifted);
    rebuild(b, op, ReduceOp::DEF, &values(ins), out_ty, &[("axes", attr)])
}

fn softmax(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (_, out_ty) = result_types(b, op)?;
    let rank = b.unbatched_shape(ins[0])?.0.len();
    let axis = norm_axis(int_attr(b, op, "axis")?, rank).map_err(Unbatchable)?;
    let attr = b.ctx().i64_attr(axis as i64 + 1);
    rebuild(b, op, SoftmaxOp::DEF, &values(ins), out_ty, &[("axis", attr)])
}

fn transpose(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (_, out_ty) = result_types(b, op)?;
    let perm = ints_attr(b, op, "perm")?;
    let mut shifted = vec![0i64];
    shifted.extend(perm.iter().map(|&p| p + 1));
    let attr = b.ctx().dense_i64_array(&shifted);
    rebuild(b, op, TransposeOp::DEF, &values(ins), out_ty, &[("perm", attr)])
}

fn reshape(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (_, out_ty) = result_types(b, op)?;
    // Row-major: each element's block of the batched tensor is contiguous.
    let (s, _) = shape_and_elem(b.ctx(), out_ty)?;
    if s.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
        return Err(Unbatchable::new(
            "a reshape to a dynamic dim with a dynamic batch size cannot be inferred at run time",
        ));
    }
    rebuild(b, op, ReshapeOp::DEF, &values(ins), out_ty, &[])
}

fn broadcast_to(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (old_ty, out_ty) = result_types(b, op)?;
    let rank = shape_and_elem(b.ctx(), old_ty)?.0.len();
    let x = b.pad(ins[0], rank)?;
    rebuild(b, op, BroadcastToOp::DEF, &[x], out_ty, &[])
}

fn slice(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let ctx = b.ctx();
    let (_, out_ty) = result_types(b, op)?;
    if b.batch_size() == DYNAMIC {
        return Err(Unbatchable::new("a slice needs a static batch size (its limit)"));
    }
    let (mut start, mut limit, mut stride) = (
        ints_attr(b, op, "start")?,
        ints_attr(b, op, "limit")?,
        ints_attr(b, op, "stride")?,
    );
    start.insert(0, 0);
    limit.insert(0, b.batch_size());
    stride.insert(0, 1);
    let set = [
        ("start", ctx.dense_i64_array(&start)),
        ("limit", ctx.dense_i64_array(&limit)),
        ("stride", ctx.dense_i64_array(&stride)),
    ];
    rebuild(b, op, SliceOp::DEF, &values(ins), out_ty, &set)
}

fn concat(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let (_, out_ty) = result_types(b, op)?;
    let rank = b.unbatched_shape(ins[0])?.0.len();
    let axis = norm_axis(int_attr(b, op, "axis")?, rank).map_err(Unbatchable)?;
    let mut operands = SmallVec::<[Value; 4]>::new();
    for &v in ins {
        operands.push(if v.batched {
            v.value
        } else {
            b.broadcast_batch(v.value)?
        });
    }
    let attr = b.ctx().i64_attr(axis as i64 + 1);
    rebuild(b, op, ConcatOp::DEF, &operands, out_ty, &[("axis", attr)])
}

/// `layer_norm` of a batched `x` with unbatched `gamma` and `beta`: the same op with the axis
/// shifted. With a batched `gamma` or `beta`, computed exactly as the interpreter does (in f64,
/// rounded once): `layer_norm(x64, 1, -0.0) * gamma64 + beta64`, cast back.
fn layer_norm(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let ctx = b.ctx();
    let (_, out_ty) = result_types(b, op)?;
    let (xs, elem) = b.unbatched_shape(ins[0])?;
    let axis = norm_axis(int_attr(b, op, "axis")?, xs.len()).map_err(Unbatchable)?;
    let shift = |batched: bool| axis as i64 + batched as i64;
    if !ins[1].batched && !ins[2].batched {
        let operands = [ins[0].value, ins[1].value, ins[2].value];
        let attr = ctx.i64_attr(shift(ins[0].batched));
        return rebuild(b, op, LayerNormOp::DEF, &operands, out_ty, &[("axis", attr)]);
    }
    let f64t = ctx.f64_type();
    let to64 = |b: &mut dyn Batcher<'_>, v: BatchedValue| -> BatchResult<BatchedValue> {
        if elem == f64t {
            return Ok(v);
        }
        let (s, _) = shape_and_elem(ctx, b.body().value_type(v.value))?;
        let value = b.build1(CastOp::DEF, &[v.value], ctx.tensor_type(&s, f64t), &[])?;
        Ok(BatchedValue {
            value,
            batched: v.batched,
        })
    };
    let x64 = to64(b, ins[0])?;
    let g64 = to64(b, ins[1])?;
    let b64 = to64(b, ins[2])?;
    let param_ty = ctx.tensor_type(&xs[axis..], f64t);
    let ones = b.float_splat(param_ty, 1.0)?;
    let negzero = b.float_splat(param_ty, -0.0)?;
    let mut n_shape = xs.clone();
    if x64.batched {
        n_shape.insert(0, b.batch_size());
    }
    let eps = b
        .body()
        .attr(ctx, op, "epsilon")
        .ok_or_else(|| Unbatchable(format!("'{}' has no 'epsilon'", op_name(b, op))))?;
    let normed = b.build1(
        LayerNormOp::DEF,
        &[x64.value, ones, negzero],
        ctx.tensor_type(&n_shape, f64t),
        &[("axis", ctx.i64_attr(shift(x64.batched))), ("epsilon", eps)],
    )?;
    let normed = BatchedValue {
        value: normed,
        batched: x64.batched,
    };
    let mut full = xs.clone();
    full.insert(0, b.batch_size());
    let full64 = ctx.tensor_type(&full, f64t);
    let rank = xs.len();
    // An elementwise op of two values of the f64 computation (padded to the rank of x).
    let ew =
        |b: &mut dyn Batcher<'_>, def: &'static OpDef, l: BatchedValue, r: BatchedValue| -> BatchResult<BatchedValue> {
            let (l2, r2) = (b.pad(l, rank)?, b.pad(r, rank)?);
            let batched = l.batched || r.batched;
            let ty = if batched { full64 } else { ctx.tensor_type(&xs, f64t) };
            let value = b.build1(def, &[l2, r2], ty, &[])?;
            Ok(BatchedValue { value, batched })
        };
    let scaled = ew(b, MulOp::DEF, normed, g64)?;
    let shifted = ew(b, AddOp::DEF, scaled, b64)?;
    if elem == f64t {
        return batched(shifted.value);
    }
    batched(b.build1(CastOp::DEF, &[shifted.value], out_ty, &[])?)
}

/// `gather`: a batched table gathers along `axis + 1`; batched indices give the batch dim at
/// `axis`, moved to the front; with both batched, see [`gather_both_batched`].
fn gather(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> RuleResult {
    let ctx = b.ctx();
    let (_, out_ty) = result_types(b, op)?;
    let (table, indices) = (ins[0], ins[1]);
    let (ts, _) = b.unbatched_shape(table)?;
    let (is, ie) = b.unbatched_shape(indices)?;
    let axis = norm_axis(int_attr(b, op, "axis")?, ts.len()).map_err(Unbatchable)?;
    let (_, elem) = shape_and_elem(ctx, out_ty)?;
    if table.batched && !indices.batched {
        let attr = ctx.i64_attr(axis as i64 + 1);
        return rebuild(
            b,
            op,
            GatherOp::DEF,
            &[table.value, indices.value],
            out_ty,
            &[("axis", attr)],
        );
    }
    if !table.batched {
        // [t[:a], B, i..., t[a+1:]] then the batch dim to the front
        let mut s: Vec<i64> = ts[..axis].to_vec();
        s.push(b.batch_size());
        s.extend(&is);
        s.extend(&ts[axis + 1..]);
        let attrs = b.attrs_with(op, &[]);
        let g = b.build1(
            GatherOp::DEF,
            &[table.value, indices.value],
            ctx.tensor_type(&s, elem),
            &attrs,
        )?;
        return batched(b.transpose(g, &move_dim_perm(s.len(), axis, 0))?);
    }
    batched(gather_both_batched(b, table.value, indices.value, &is, ie, &ts, axis)?)
}

/// A gather with a batched table `[B] ++ ts` and batched indices `[B] ++ is` (of element type
/// `ie`): the table's batch and `axis`
/// dims are flattened into one (`[B*ts[axis], ...]`), element `b`'s indices are offset by
/// `b * ts[axis]`, and an index outside `[0, ts[axis])` becomes -1, so it still fails at run
/// time as it does per element instead of reading another element's row.
fn gather_both_batched(
    b: &mut dyn Batcher<'_>,
    table: Value,
    indices: Value,
    is: &[i64],
    ie: Type,
    ts: &[i64],
    axis: usize,
) -> BatchResult<Value> {
    let ctx = b.ctx();
    let (_, elem) = shape_and_elem(ctx, b.body().value_type(table))?;
    let (batch, size) = (b.batch_size(), ts[axis]);
    if batch == DYNAMIC || size == DYNAMIC {
        return Err(Unbatchable::new(
            "a gather with a batched table and batched indices needs a static batch size and gathered dim",
        ));
    }
    let bits = ctx.int_width(ie).unwrap_or(64);
    let max = if bits >= 64 {
        i64::MAX as i128
    } else {
        (1i128 << (bits - 1)) - 1
    };
    if (batch as i128) * (size as i128) > max {
        return Err(Unbatchable::new(
            "the flattened gather indices would overflow the index type",
        ));
    }
    // table [B, t...] -> [B, t[a], t[:a], t[a+1:]] -> [B*t[a], t[:a], t[a+1:]]
    let moved = b.transpose(table, &move_dim_perm(ts.len() + 1, axis + 1, 1))?;
    let mut flat = vec![batch * size];
    flat.extend(&ts[..axis]);
    flat.extend(&ts[axis + 1..]);
    let flat_table = b.reshape(moved, &flat)?;
    let index = offset_indices(b, indices, is, ie, size)?;
    // gather -> [B, i..., t[:a], t[a+1:]] -> [B, t[:a], i..., t[a+1:]]
    let mut gs = vec![batch];
    gs.extend(is);
    gs.extend(&ts[..axis]);
    gs.extend(&ts[axis + 1..]);
    let g = b.build1(
        GatherOp::DEF,
        &[flat_table, index],
        ctx.tensor_type(&gs, elem),
        &[("axis", ctx.i64_attr(0))],
    )?;
    let (q, p) = (is.len() as i64, axis as i64);
    let mut perm = vec![0i64];
    perm.extend(q + 1..=q + p);
    perm.extend(1..=q);
    perm.extend(q + p + 1..gs.len() as i64);
    b.transpose(g, &perm)
}

/// The indices `[B] ++ is` (element type `ie`) into the flattened table: `i + b*size` where
/// `0 <= i < size`, else -1.
fn offset_indices(b: &mut dyn Batcher<'_>, indices: Value, is: &[i64], ie: Type, size: i64) -> BatchResult<Value> {
    let ctx = b.ctx();
    let batch = b.batch_size();
    let mut off_shape = vec![batch];
    off_shape.extend(std::iter::repeat_n(1, is.len()));
    let offs: Vec<i64> = (0..batch).map(|k| k * size).collect();
    let off_ty = ctx.tensor_type(&off_shape, ie);
    let offsets = if offs.is_empty() {
        None
    } else {
        Some(b.int_constant(off_ty, &offs)?)
    };
    let scalar = ctx.tensor_type(&[], ie);
    let zero = b.int_constant(scalar, &[0])?;
    let lim = b.int_constant(scalar, &[size])?;
    let neg = b.int_constant(scalar, &[-1])?;
    let ity = b.body().value_type(indices);
    let shifted = match offsets {
        Some(o) => b.build1(AddOp::DEF, &[indices, o], ity, &[])?,
        None => indices,
    };
    let bool_ty = ctx.tensor_type(&shape_and_elem(ctx, ity)?.0, ctx.i1_type());
    let cmp = |b: &mut dyn Batcher<'_>, rhs: Value, predicate: &str| {
        b.build1(
            CmpOp::DEF,
            &[indices, rhs],
            bool_ty,
            &[("predicate", ctx.str_attr(predicate))],
        )
    };
    let ge = cmp(b, zero, "ge")?;
    let lt = cmp(b, lim, "lt")?;
    let inner = b.build1(SelectOp::DEF, &[lt, shifted, neg], ity, &[])?;
    b.build1(SelectOp::DEF, &[ge, inner, neg], ity, &[])
}

#[cfg(test)]
mod tests {
    use crate::interfaces::batching::has_batching_rule;

    #[test]
    fn every_tensor_op_with_operands_to_batch_has_a_rule() {
        let ctx = crate::context();
        for def in super::super::TENSOR_OPS.iter() {
            // constants and iotas have no operands; fused regions are batched by the map
            // falling back to a parallel map; yield is a terminator
            let exempt = def.is::<super::super::ConstantOp>()
                || def.is::<super::super::IotaOp>()
                || def.is::<super::super::FusedOp>()
                || def.is::<super::super::YieldOp>();
            assert_eq!(
                has_batching_rule(&ctx, ctx.op_name(def.name)),
                !exempt,
                "{}: a batching rule is {}",
                def.name,
                if exempt { "unexpected" } else { "missing" }
            );
        }
        assert!(has_batching_rule(&ctx, ctx.op_name(crate::func::CallOp::DEF.name)));
    }
}
