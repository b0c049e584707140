//! Lowering of the `tensor` ops, one file per op family so a family's kernels can be replaced
//! (tiled, vectorized) without touching the others: [`elementwise`] (binary, unary, cmp, select,
//! cast, and the loop nests every elementwise kernel uses), [`reduce`] (reduce, softmax,
//! layer_norm), [`matmul`] (matmul, einsum), [`layout`] (constant, transpose, reshape,
//! broadcast_to, slice, concat, gather, copies), [`fused`] (`tensor.fused`) and [`math`]
//! (vectorizable inline f32 exp, log, tanh, sigmoid, GELU).

pub mod elementwise;
pub mod fused;
pub mod layout;
pub mod math;
pub mod matmul;
pub mod reduce;

use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Op, TypeKind, DYNAMIC};

use crate::codegen::{FnLower, Slot};
use crate::ir::{Val, R};
use crate::LowerError;

/// Lowers tensor op `name`; returns its results.
pub fn lower_tensor_op(fl: &mut FnLower, body: &Body, op: Op, name: &str) -> R<Vec<Slot>> {
    let site = fl.cx.site(body, op);
    fl.cur_site = site;
    let o = OpCx { body, op, site, name };
    if let Some(ew) = elementwise::EwOp::parse(fl, &o)? {
        return elementwise::lower(fl, &o, &ew);
    }
    match name {
        "tensor.constant" => layout::constant(fl, &o),
        "tensor.transpose" => layout::transpose(fl, &o),
        "tensor.reshape" => layout::reshape(fl, &o),
        "tensor.broadcast_to" => layout::broadcast_to(fl, &o),
        "tensor.slice" => layout::slice(fl, &o),
        "tensor.concat" => layout::concat(fl, &o),
        "tensor.gather" => layout::gather(fl, &o),
        "tensor.reduce" => reduce::reduce(fl, &o),
        "tensor.softmax" => reduce::softmax(fl, &o),
        "tensor.layer_norm" => reduce::layer_norm(fl, &o),
        "tensor.matmul" => matmul::matmul(fl, &o),
        "tensor.einsum" => matmul::einsum(fl, &o),
        "tensor.fused" => fused::fused(fl, &o),
        _ => Err(o.err(&format!("is not supported by the LLVM backend"))),
    }
}

/// The op being lowered and its error site.
pub struct OpCx<'b> {
    pub body: &'b Body,
    pub op: Op,
    pub site: i32,
    pub name: &'b str,
}

impl OpCx<'_> {
    /// A compile-time error of this op.
    pub fn err(&self, m: &str) -> LowerError {
        LowerError::new(self.body.op_loc(self.op), format!("'{}' op {m}", self.name))
    }
    pub fn attr(&self, fl: &FnLower, key: &str) -> R<xcs_ir::Attr> {
        self.body.attr(fl.ctx(), self.op, key).ok_or_else(|| self.err(&format!("requires attribute '{key}'")))
    }
    pub fn i64(&self, fl: &FnLower, key: &str) -> R<i64> {
        let a = self.attr(fl, key)?;
        fl.ctx().as_int(a).map(|v| v as i64).ok_or_else(|| self.err(&format!("attribute '{key}' must be an integer")))
    }
    pub fn i64s(&self, fl: &FnLower, key: &str) -> R<Vec<i64>> {
        let a = self.attr(fl, key)?;
        fl.ctx().as_i64_array(a).ok_or_else(|| self.err(&format!("attribute '{key}' must be an array<i64>")))
    }
    pub fn str<'c>(&self, fl: &FnLower<'_, 'c>, key: &str) -> R<&'c str> {
        let a = self.attr(fl, key)?;
        fl.ctx().as_str(a).ok_or_else(|| self.err(&format!("attribute '{key}' must be a string")))
    }
    pub fn bool(&self, fl: &FnLower, key: &str) -> R<bool> {
        let a = self.attr(fl, key)?;
        fl.ctx().as_bool(a).ok_or_else(|| self.err(&format!("attribute '{key}' must be a bool")))
    }
    pub fn f64(&self, fl: &FnLower, key: &str) -> R<f64> {
        let a = self.attr(fl, key)?;
        fl.ctx().as_float(a).ok_or_else(|| self.err(&format!("attribute '{key}' must be a float")))
    }
    /// Operand `i` as a tensor.
    pub fn tensor(&self, fl: &FnLower, i: usize) -> R<crate::codegen::TV> {
        if i >= self.body.num_operands(self.op) {
            return Err(self.err(&format!("has no operand #{i}")));
        }
        fl.tensor(self.body.operand(self.op, i)).map_err(|_| self.err(&format!("operand #{i} must be a tensor")))
    }
    pub fn operands(&self, fl: &FnLower) -> R<Vec<crate::codegen::TV>> {
        (0..self.body.num_operands(self.op)).map(|i| self.tensor(fl, i)).collect()
    }
    /// The static sizes (`DYNAMIC` for `?`) and element type of result `i`.
    pub fn result(&self, fl: &FnLower, i: usize) -> R<(Vec<i64>, ElemType)> {
        let ctx = fl.ctx();
        let t = *self.body.result_types(self.op).get(i).ok_or_else(|| self.err(&format!("has no result #{i}")))?;
        match ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, .. } => {
                let e = ElemType::from_type(ctx, *elem)
                    .filter(|e| *e != ElemType::Str)
                    .ok_or_else(|| self.err("has an element type the LLVM backend does not support"))?;
                Ok((shape.to_vec(), e))
            }
            _ => Err(self.err(&format!("result #{i} must be a ranked tensor"))),
        }
    }
    /// The full run-time error message `'op' op text`.
    pub fn msg(&self, fl: &FnLower, text: &str) -> String {
        fl.cx.msg(self.site, text)
    }
}

/// Checks computed sizes `dims` against the result type's static sizes at run time (where they
/// are not constants) and returns them with the static sizes substituted.
pub fn check_result_dims(fl: &mut FnLower, o: &OpCx, dims: Vec<Val>, ty: &[i64]) -> R<Vec<Val>> {
    if dims.len() != ty.len() {
        return Err(o.err("computes a result of a different rank than its type"));
    }
    let mut out = Vec::with_capacity(dims.len());
    for (d, &s) in dims.into_iter().zip(ty) {
        if s == DYNAMIC {
            out.push(d);
            continue;
        }
        let bad = fl.f.icmp("ne", &d, &Val::i64(s));
        let msg = o.msg(fl, "computes size %lld where the result type has %lld");
        fl.fail2_if(&bad, o.site, &msg, &d, &Val::i64(s));
        out.push(Val::i64(s));
    }
    Ok(out)
}
