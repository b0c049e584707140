//! The ops of run-time positions (`dialects/src/tensor/dynamic.rs`): `tensor.iota` is a module
//! constant computed by the interpreter's own kernel; `tensor.dynamic_slice` a view at the
//! clamped starts (no copy); `tensor.dynamic_update_slice` the update copied into `x` at the
//! clamped starts, in `x`'s own buffer when `x` dies there (`codegen::inplace`), else into a
//! copy of `x`; `tensor.extract` a load of the single element into a scalar.

use xcs_dialects::interp::{ElemType, OpInfo};
use xcs_ir::opdef::OpView;

use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::copy_into;
use crate::codegen::types::{int_to_i64, load_elem, mem_ty};
use crate::codegen::{row_major, FunctionLowering, LowerFn, OpSite, Slot, TensorVal, UpdateFn, R};

pub static IOTA: LowerFn = LowerFn(iota);
pub static DYNAMIC_SLICE: LowerFn = LowerFn(dynamic_slice);
pub static DYNAMIC_UPDATE_SLICE: UpdateFn = UpdateFn { lower: dynamic_update_slice, operand: 0 };
pub static EXTRACT: LowerFn = LowerFn(extract);
pub static FROM_INDEX: LowerFn = LowerFn(from_index);

pub fn iota(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let ctx = fl.ctx();
    let info = OpInfo { ctx, op: OpView::new(ctx, o.body, o.op), result_types: o.body.result_types(o.op) };
    let t = xcs_dialects::tensor::dynamic::iota(&info, &[]).map_err(|e| o.err(&e))?;
    let bytes = t.data.to_le_bytes();
    let dims: Vec<Val> = t.shape.iter().map(|&d| Val::i64(d as i64)).collect();
    let strides = row_major(&mut fl.f, &dims);
    let ptr = fl.module.m.data("iota", &bytes);
    Ok(vec![Slot::Tensor(TensorVal { ptr, dims, strides, elem: t.elem(), contiguous: true, buf: None })])
}

/// The starts (operands `first..`) as i64, each clamped to `[0, dims[d] - sizes[d]]`.
fn clamped_starts(fl: &mut FunctionLowering, o: &OpSite, first: usize, dims: &[Val], sizes: &[Val]) -> R<Vec<Val>> {
    let mut out = Vec::with_capacity(dims.len());
    for d in 0..dims.len() {
        let s = o.tensor(fl, first + d)?;
        let v = load_elem(&mut fl.f, s.elem, &s.ptr, &Val::i64(0));
        let v = int_to_i64(&mut fl.f, s.elem, &v);
        let hi = fl.f.sub(&dims[d], &sizes[d]);
        let lo = fl.f.smax(&v, &Val::i64(0));
        let below = fl.f.icmp("slt", &lo, &hi);
        out.push(fl.f.select(&below, &lo, &hi));
    }
    Ok(out)
}

/// `x` viewed at `starts` with sizes `sizes` (strides kept).
fn view_at(fl: &mut FunctionLowering, x: &TensorVal, starts: &[Val], sizes: Vec<Val>) -> TensorVal {
    let mut off = Val::i64(0);
    for (s, st) in starts.iter().zip(&x.strides) {
        let t = fl.f.mul(s, st);
        off = fl.f.add(&off, &t);
    }
    let ptr = fl.f.gep(mem_ty(x.elem), &x.ptr, &off);
    TensorVal { ptr, dims: sizes, strides: x.strides.clone(), elem: x.elem, contiguous: false, buf: None }
}

pub fn dynamic_slice(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    let sizes: Vec<Val> = o.i64s(fl, "sizes")?.iter().map(|&s| Val::i64(s)).collect();
    if sizes.len() != x.rank() {
        return Err(o.err("needs one size per dim of x"));
    }
    let starts = clamped_starts(fl, o, 1, &x.dims, &sizes)?;
    let v = view_at(fl, &x, &starts, sizes);
    Ok(vec![Slot::Tensor(TensorVal { buf: x.buf.clone(), ..v })])
}

pub fn dynamic_update_slice(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    let update = o.tensor(fl, 1)?;
    if update.rank() != x.rank() {
        return Err(o.err("update must have x's rank"));
    }
    let out = if fl.can_update_in_place(o.body, o.op, 0, &x) {
        x.clone()
    } else {
        let out = fl.new_tensor(x.elem, &x.dims)?;
        copy_into(fl, &x, &out)?;
        out
    };
    let starts = clamped_starts(fl, o, 2, &x.dims, &update.dims)?;
    let part = view_at(fl, &out, &starts, update.dims.clone());
    copy_into(fl, &update, &part)?;
    Ok(vec![Slot::Tensor(out)])
}

pub fn extract(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    if !matches!(x.elem, ElemType::I1 | ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64) {
        return Err(o.err("x must be a 0-d integer tensor"));
    }
    let v = load_elem(&mut fl.f, x.elem, &x.ptr, &Val::i64(0));
    Ok(vec![Slot::Scalar(v, x.elem)])
}

pub fn from_index(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let v = match fl.get(o.body.operand(o.op, 0))? {
        Slot::Scalar(v, ElemType::I64) => v,
        _ => return Err(o.err("x must be an index (an i64 scalar)")),
    };
    let t = fl.new_tensor(ElemType::I64, &[])?;
    fl.f.store(&v, &t.ptr);
    Ok(vec![Slot::Tensor(t)])
}
