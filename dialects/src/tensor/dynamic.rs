//! The tensor ops of run-time positions that StableHLO programs need (`convert-stablehlo-to-tensor`
//! makes them): `tensor.iota`, `tensor.dynamic_slice`, `tensor.dynamic_update_slice` and
//! `tensor.extract` (a 0-d tensor's element as a scalar, for branch conditions), and
//! `tensor.from_index` (an `index` as a 0-d i64 tensor: a kernel's axis variable as data). Their
//! declarations, shape inference, interpreter semantics and cost rules live here; their LLVM
//! lowering is in `lowering/src/ops/dynamic.rs`; batching rules (`vmap-batch`) are here too: with
//! per-item starts or a per-item condition there is none (the map becomes a parallel map). Like StableHLO's (and XLA's), dynamic starts are
//! clamped so that the slice lies in the operand: there are no out-of-range errors.

use smallvec::smallvec;
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{OpView, TypeConstraint};
use xcs_ir::{op, Attr, Context, Diagnostic, Type, DYNAMIC};

use super::{NUMERIC_TENSOR, TENSOR};
use crate::interfaces::cost::{add, product, CostFn, CostOp, Rule};
use crate::interp::semantics::{Kernel, OpInfo, ValueKernel};
use crate::interp::value::{for_each_index, numel, static_tensor_type, strides, RtValue, Scalar, Tensor, TensorData};
use crate::shape::{ranked, shape_str};

/// A 0-d tensor of i32 or i64 (a start position).
pub const INDEX_SCALAR_TENSOR: TypeConstraint = TypeConstraint {
    desc: "0-d tensor of i32 or i64 values",
    check: |c, t| ranked(c, t).is_some_and(|(s, e)| s.is_empty() && (e == c.i32_type() || e == c.i64_type())),
};
/// A 0-d tensor of i64 values.
pub const I64_SCALAR_TENSOR: TypeConstraint = TypeConstraint {
    desc: "0-d tensor of i64 values",
    check: |c, t| ranked(c, t).is_some_and(|(s, e)| s.is_empty() && e == c.i64_type()),
};
/// A 0-d tensor of an integer type (i1 to i64).
pub const INT_SCALAR_TENSOR: TypeConstraint = TypeConstraint {
    desc: "0-d tensor of i1, i8, i16, i32 or i64 values",
    check: |c, t| ranked(c, t).is_some_and(|(s, e)| s.is_empty() && c.is_signless_integer(e)),
};

op! {
    /// `0, 1, 2, ...` along `axis` of the result type (static shape), repeated along the other
    /// dims (StableHLO's `iota`, numpy's `arange` broadcast).
    pub struct IotaOp = "tensor.iota" in super::TENSOR_OPS {
        summary: "Index sequence along an axis",
        results: { result: NUMERIC_TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure],
        verify: verify_iota,
        interfaces: [
            dyn crate::interp::semantics::Semantics => &IOTA,
            dyn crate::interfaces::cost::CostRule => &IOTA_COST,
        ],
    }
}

op! {
    /// The slice of `sizes` that starts at `starts` (one 0-d i32/i64 tensor per dim), each start
    /// clamped to `[0, dim - size]` as StableHLO's `dynamic_slice` does.
    pub struct DynamicSliceOp = "tensor.dynamic_slice" in super::TENSOR_OPS {
        summary: "Slice at run-time starts (clamped)",
        operands: { x: TENSOR, #[variadic] starts: INDEX_SCALAR_TENSOR },
        results: { result: TENSOR },
        attributes: { sizes: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        infer: infer_dynamic_slice,
        interfaces: [
            dyn crate::interp::semantics::Semantics => &DYNAMIC_SLICE,
            dyn crate::interfaces::cost::CostRule => &DYNAMIC_SLICE_COST,
            dyn crate::interfaces::batching::BatchingRule => &DYNAMIC_SLICE_BATCHING,
        ],
    }
}

op! {
    /// `x` with `update` written at `starts` (one 0-d i32/i64 tensor per dim), each start
    /// clamped to `[0, dim - update size]` as StableHLO's `dynamic_update_slice` does.
    pub struct DynamicUpdateSliceOp = "tensor.dynamic_update_slice" in super::TENSOR_OPS {
        summary: "Write a slice at run-time starts (clamped)",
        operands: { x: TENSOR, update: TENSOR, #[variadic] starts: INDEX_SCALAR_TENSOR },
        results: { result: TENSOR },
        traits: [Pure],
        infer: infer_dynamic_update_slice,
        interfaces: [
            dyn crate::interp::semantics::Semantics => &DYNAMIC_UPDATE_SLICE,
            dyn crate::interfaces::cost::CostRule => &DYNAMIC_UPDATE_SLICE_COST,
            dyn crate::interfaces::batching::BatchingRule => &DYNAMIC_UPDATE_SLICE_BATCHING,
        ],
    }
}

op! {
    /// The element of a 0-d integer tensor as a scalar of its type (MLIR's `tensor.extract`
    /// without indices): what a `cf.cond_br` or `cf.switch` takes.
    pub struct ExtractOp = "tensor.extract" in super::TENSOR_OPS {
        summary: "Element of a 0-d tensor as a scalar",
        operands: { x: INT_SCALAR_TENSOR },
        results: { result: SIGNLESS_INTEGER },
        traits: [Pure],
        infer: |ctx, ops, _| Ok(smallvec![ranked(ctx, ops[0]).map(|(_, e)| e).ok_or("x must be a 0-d tensor")?]),
        interfaces: [
            dyn crate::interp::semantics::Semantics => &EXTRACT,
            dyn crate::interfaces::batching::BatchingRule => &EXTRACT_BATCHING,
            dyn crate::interfaces::cost::CostRule => &EXTRACT_COST,
        ],
    }
}

op! {
    /// An `index` scalar (an `xcs.kernel`'s axis variable) as a 0-d i64 tensor, so tensor ops
    /// can compute with it or index by it (MLIR: `arith.index_cast` to i64, then
    /// `tensor.from_elements`).
    pub struct FromIndexOp = "tensor.from_index" in super::TENSOR_OPS {
        summary: "An index scalar as a 0-d i64 tensor",
        operands: { x: INDEX },
        results: { result: I64_SCALAR_TENSOR },
        traits: [Pure],
        infer: |ctx, _, _| Ok(smallvec![ctx.tensor_type(&[], ctx.i64_type())]),
        interfaces: [
            dyn crate::interp::semantics::Semantics => &FROM_INDEX,
            dyn crate::interfaces::batching::BatchingRule => &FROM_INDEX_BATCHING,
            dyn crate::interfaces::cost::CostRule => &FROM_INDEX_COST,
        ],
    }
}

// ---------------------------------------------------------------------------- inference

fn verify_iota(v: &OpView) -> Result<(), Diagnostic> {
    let (shape, _) = ranked(v.ctx, v.result_type(0)).unwrap_or((&[], v.ctx.none_type()));
    if shape.contains(&DYNAMIC) {
        return Err(v.error(format!("requires a static result shape, not {}", shape_str(shape))));
    }
    let axis = v.attr("axis").and_then(|a| v.ctx.as_int(a)).unwrap_or(-1);
    if axis < 0 || axis as usize >= shape.len() {
        return Err(v.error(format!("axis {axis} is out of range for the result's rank {}", shape.len())));
    }
    Ok(())
}

fn parts(ctx: &Context, t: Type, what: &str) -> Result<(Vec<i64>, Type), String> {
    ranked(ctx, t).map(|(s, e)| (s.to_vec(), e)).ok_or_else(|| format!("{what} must be a ranked tensor"))
}

fn infer_dynamic_slice(ctx: &Context, ops: &[Type], attrs: Attr) -> Result<smallvec::SmallVec<[Type; 1]>, String> {
    let (s, e) = parts(ctx, ops[0], "x")?;
    let sizes = ctx.dict_get(attrs, "sizes").and_then(|a| ctx.as_i64_array(a)).ok_or("requires array<i64> attribute 'sizes'")?;
    if sizes.len() != s.len() || ops.len() != s.len() + 1 {
        return Err(format!(
            "has {} sizes and {} starts, but x has rank {} (one of each per dim)",
            sizes.len(),
            ops.len() - 1,
            s.len()
        ));
    }
    for (d, (&n, &dim)) in sizes.iter().zip(&s).enumerate() {
        if n < 0 || (dim != DYNAMIC && n > dim) {
            return Err(format!("size {n} in dim {d} is out of range for size {}", crate::shape::dim_str(dim)));
        }
    }
    Ok(smallvec![ctx.tensor_type(&sizes, e)])
}

fn infer_dynamic_update_slice(ctx: &Context, ops: &[Type], _: Attr) -> Result<smallvec::SmallVec<[Type; 1]>, String> {
    let (s, e) = parts(ctx, ops[0], "x")?;
    let (u, ue) = parts(ctx, ops[1], "update")?;
    if e != ue {
        return Err("x and update must have the same element type".into());
    }
    if u.len() != s.len() || ops.len() != s.len() + 2 {
        return Err(format!("update has rank {} and there are {} starts, but x has rank {}", u.len(), ops.len() - 2, s.len()));
    }
    for d in 0..s.len() {
        if s[d] != DYNAMIC && u[d] != DYNAMIC && u[d] > s[d] {
            return Err(format!("update size {} in dim {d} exceeds x's size {}", u[d], s[d]));
        }
    }
    Ok(smallvec![ops[0]])
}

// ---------------------------------------------------------------------------- semantics

pub static IOTA: Kernel = Kernel(iota);
pub static DYNAMIC_SLICE: Kernel = Kernel(dynamic_slice);
pub static DYNAMIC_UPDATE_SLICE: Kernel = Kernel(dynamic_update_slice);
pub static EXTRACT: ValueKernel = ValueKernel(extract);
pub static FROM_INDEX: ValueKernel = ValueKernel(from_index);

/// `tensor.iota` of the op's result type (also what the LLVM backend stores as a constant).
pub fn iota(info: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    if !ts.is_empty() {
        return Err(format!("expects no operands, but got {}", ts.len()));
    }
    let ty = *info.result_types.first().ok_or("has no result")?;
    let (shape, elem) = static_tensor_type(info.ctx, ty)?;
    let axis = info.i64("axis")? as usize;
    if axis >= shape.len() {
        return Err(format!("axis {axis} is out of range for rank {}", shape.len()));
    }
    let inner: usize = shape[axis + 1..].iter().product();
    let values: Vec<f64> = (0..numel(&shape)).map(|i| ((i / inner.max(1)) % shape[axis]) as f64).collect();
    Tensor::from_f64s(elem, &shape, &values)
}

/// The clamped start of each dim: `min(max(start, 0), dim - size)`.
fn clamped_starts(starts: &[&Tensor], shape: &[usize], sizes: &[usize]) -> Result<Vec<usize>, String> {
    if starts.len() != shape.len() {
        return Err(format!("has {} starts, but the operand has rank {}", starts.len(), shape.len()));
    }
    let mut out = Vec::with_capacity(shape.len());
    for (d, s) in starts.iter().enumerate() {
        let v = s.data.to_i64s().and_then(|v| v.first().copied()).ok_or("starts must be 0-d integer tensors")?;
        let hi = shape[d].checked_sub(sizes[d]).ok_or_else(|| format!("size {} exceeds dim {d} of size {}", sizes[d], shape[d]))?;
        out.push(v.clamp(0, hi as i64) as usize);
    }
    Ok(out)
}

fn dynamic_slice(info: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    let (x, starts) = ts.split_first().ok_or("expects an operand")?;
    let sizes: Vec<usize> = info.i64s("sizes")?.iter().map(|&s| s.max(0) as usize).collect();
    let at = clamped_starts(starts, &x.shape, &sizes)?;
    let st = strides(&x.shape);
    let mut idx = Vec::with_capacity(numel(&sizes));
    for_each_index(&sizes, |ix| idx.push(ix.iter().enumerate().map(|(d, &i)| (at[d] + i) * st[d]).sum()));
    Ok(x.take(sizes, &idx))
}

fn dynamic_update_slice(_: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    let [x, update, starts @ ..] = ts else { return Err("expects x, update and the starts".into()) };
    if update.rank() != x.rank() {
        return Err(format!("update has rank {}, but x has rank {}", update.rank(), x.rank()));
    }
    let at = clamped_starts(starts, &x.shape, &update.shape)?;
    // Positions < n index x, positions >= n index the update (appended after x's data).
    let n = x.numel();
    let mut idx: Vec<usize> = (0..n).collect();
    let (xs, us) = (strides(&x.shape), strides(&update.shape));
    for_each_index(&update.shape, |ix| {
        let dst: usize = ix.iter().enumerate().map(|(d, &i)| (at[d] + i) * xs[d]).sum();
        let src: usize = ix.iter().zip(&us).map(|(&i, &s)| i * s).sum();
        idx[dst] = n + src;
    });
    let both = TensorData::concat(x.elem(), &[&x.data, &update.data])?;
    Tensor::new(x.shape.clone(), both.take(&idx))
}

fn extract(_: &OpInfo<'_>, vs: &[&RtValue]) -> Result<RtValue, String> {
    let [RtValue::Tensor(t)] = vs else { return Err("expects one tensor operand".into()) };
    use crate::interp::ElemType;
    let width = match t.elem() {
        ElemType::I1 => 1,
        ElemType::I8 => 8,
        ElemType::I16 => 16,
        ElemType::I32 => 32,
        ElemType::I64 => 64,
        _ => 0,
    };
    if t.rank() != 0 || width == 0 {
        return Err(format!("expects a 0-d integer tensor, not {}", t.type_string()));
    }
    let v = t.data.to_i64s().and_then(|v| v.first().copied()).ok_or("expects an integer element")?;
    Ok(RtValue::Scalar(Scalar::new(v as i128, width)))
}

fn from_index(_: &OpInfo<'_>, vs: &[&RtValue]) -> Result<RtValue, String> {
    let [RtValue::Scalar(s)] = vs else { return Err("expects one index operand".into()) };
    let v = i64::try_from(s.value).map_err(|_| format!("the index {} does not fit in i64", s.value))?;
    Ok(RtValue::Tensor(Tensor::scalar(TensorData::I64(vec![v]))?))
}

// ---------------------------------------------------------------------------- cost

/// Key `tensor.iota`: writes its elements.
pub static IOTA_COST: CostFn = CostFn(|op: &mut CostOp| {
    let (out, es) = op.result_from_type()?;
    let n = product(&out)?;
    Ok(Rule::new(op.key(), out, vec![("num_elements", n)], es))
});
/// Key `tensor.dynamic_slice`: a view, as `tensor.slice`.
pub static DYNAMIC_SLICE_COST: CostFn = CostFn(|op: &mut CostOp| {
    let (out, _) = op.result_from_type()?;
    Ok(Rule::new(op.key(), out, vec![], op.esize(0)?).as_view())
});
/// Key `tensor.extract`: a register load, free.
pub static EXTRACT_COST: CostFn = CostFn(|op: &mut CostOp| Ok(Rule::new(op.key(), op.dims(0)?.clone(), vec![], op.esize(0)?)));
/// Key `tensor.from_index`: one element stored, free.
pub static FROM_INDEX_COST: CostFn = CostFn(|op: &mut CostOp| {
    let (out, es) = op.result_from_type()?;
    Ok(Rule::new(op.key(), out, vec![], es))
});
/// Key `tensor.dynamic_update_slice`: copies `x` and writes the update.
pub static DYNAMIC_UPDATE_SLICE_COST: CostFn = CostFn(|op: &mut CostOp| {
    let out = op.dims(0)?.clone();
    let read = add(&op.read(0)?, &op.read(1)?)?;
    let n = product(&out)?;
    Ok(Rule::new(op.key(), out, vec![("read_elements", read), ("num_elements", n)], op.esize(0)?))
});

// ---------------------------------------------------------------------------- batching

use crate::interfaces::batching::{BatchResult, BatchedResults, BatchedValue, Batcher, RuleFn, Unbatchable};

/// A batched `x` with starts shared by the batch: one more start (0) and size (the batch).
pub static DYNAMIC_SLICE_BATCHING: RuleFn = RuleFn(batch_dynamic_slice);
/// A batched `x` or `update` with shared starts: both batched, one more start (0).
pub static DYNAMIC_UPDATE_SLICE_BATCHING: RuleFn = RuleFn(batch_dynamic_update_slice);
/// A per-item condition cannot be one scalar: never batched.
pub static EXTRACT_BATCHING: RuleFn =
    RuleFn(|_, _, _| Err(Unbatchable::new("tensor.extract of a per-item value (a per-item branch condition)")));
/// A per-item index is not one scalar: never batched (a launch's axis variables are shared).
pub static FROM_INDEX_BATCHING: RuleFn =
    RuleFn(|_, _, _| Err(Unbatchable::new("tensor.from_index of a per-item index")));

/// The starts (operands from `first`) with a leading 0 start, if none of them is batched.
fn shared_starts(b: &mut dyn Batcher<'_>, ins: &[BatchedValue], first: usize) -> BatchResult<Vec<xcs_ir::Value>> {
    if ins[first..].iter().any(|v| v.batched) {
        return Err(Unbatchable::new("dynamic slice starts that differ per item"));
    }
    let ty = ins.get(first).map(|v| b.body().value_type(v.value)).ok_or_else(|| Unbatchable::new("a 0-d slice"))?;
    let zero = b.int_constant(ty, &[0])?;
    Ok(std::iter::once(zero).chain(ins[first..].iter().map(|v| v.value)).collect())
}

fn batch_dynamic_slice(b: &mut dyn Batcher<'_>, op: xcs_ir::Op, ins: &[BatchedValue]) -> BatchResult<BatchedResults> {
    let ctx = b.ctx();
    let starts = shared_starts(b, ins, 1)?;
    let old = b.body().result_types(op)[0];
    let out_ty = b.batched_type(old)?;
    let mut sizes = ctx.dict_get(b.body().attrs(op), "sizes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    sizes.insert(0, b.batch_size());
    let mut operands = vec![ins[0].value];
    operands.extend(starts);
    let attrs = b.attrs_with(op, &[("sizes", ctx.dense_i64_array(&sizes))]);
    Ok(smallvec![BatchedValue::batched(b.build1(DynamicSliceOp::DEF, &operands, out_ty, &attrs)?)])
}

fn batch_dynamic_update_slice(
    b: &mut dyn Batcher<'_>,
    _op: xcs_ir::Op,
    ins: &[BatchedValue],
) -> BatchResult<BatchedResults> {
    let starts = shared_starts(b, ins, 2)?;
    let x = if ins[0].batched { ins[0].value } else { b.broadcast_batch(ins[0].value)? };
    let update = if ins[1].batched { ins[1].value } else { b.broadcast_batch(ins[1].value)? };
    let out_ty = b.body().value_type(x);
    let mut operands = vec![x, update];
    operands.extend(starts);
    Ok(smallvec![BatchedValue::batched(b.build1(DynamicUpdateSliceOp::DEF, &operands, out_ty, &[])?)])
}
