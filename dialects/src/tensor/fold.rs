//! Folders and canonicalization patterns of the `tensor` dialect (run by `canonicalize`).
//! Constant operands fold by evaluating the op's [`Kernel`](crate::interp::Kernel) (its
//! `dyn Semantics`, through [`eval_kernel`]), so a folded constant is exactly what the program
//! computes; algebraic
//! identities (`x + 0`, `x * 1`, `x * 0` on integers), no-op structural ops and a constant
//! `select` condition fold to an existing value; `transpose(transpose)` and `reshape(reshape)`
//! become one op (patterns, since they create an op).
//!
//! # Limits of constant folding
//! A fold never grows the IR by much nor takes long:
//! - splat operands of elementwise ops (and of `reshape`, `broadcast_to`, `transpose`, `slice`)
//!   fold to a splat of any size, computed on one element;
//! - otherwise the result may have at most [`MAX_FOLD_ELEMENTS`] elements, each constant operand
//!   at most [`MAX_FOLD_OPERAND_ELEMENTS`] (they are expanded to evaluate the op), and the op's
//!   work (multiply-adds for `matmul`/`einsum`, elements touched otherwise) at most
//!   [`MAX_FOLD_WORK`];
//! - results with a dynamic (`?`) dim are not folded (the constant would need a static type);
//! - an op whose evaluation fails (integer division by zero, `pow` with a negative integer
//!   exponent, an out-of-range `gather` index, `max` of an empty axis) is left for run time,
//!   where it reports the error.

use smallvec::{smallvec, SmallVec};
use xcs_ir::attrs::{bits_to_float, DenseData};
use xcs_ir::opdef::{FoldResult, OpView, Traits};
use xcs_ir::rewrite::{ReplacePattern, RewritePattern};
use xcs_ir::{Attr, AttrKind, Body, Context, Op, OpDef, OpName, OperationState, Type, TypeKind, Value, DYNAMIC};

use super::elementwise::{elementwise_fn, BinaryFn, ElementwiseFn};
use super::infer::parse_einsum;
use super::{BroadcastToOp, EinsumOp, MatmulOp, ReshapeOp, SliceOp, TransposeOp};
use crate::interp::{eval_kernel, splat_from_attr, splat_to_attr, tensor_from_attr, tensor_to_attr};
use crate::shape::ranked;

/// Largest result (in elements) a non-splat constant fold may produce.
pub const MAX_FOLD_ELEMENTS: u64 = 4096;
/// Largest constant operand (in elements) a non-splat constant fold expands.
pub const MAX_FOLD_OPERAND_ELEMENTS: u64 = 1 << 16;
/// Largest amount of work of one constant fold: multiply-adds of `matmul`/`einsum`, elements
/// read and written for the other ops.
pub const MAX_FOLD_WORK: u64 = 1 << 22;

type Folded = Option<SmallVec<[FoldResult; 1]>>;

/// The folder of every tensor op but `tensor.constant`, `tensor.fused` and `tensor.yield`.
pub(crate) fn fold(v: &OpView, consts: &[Option<Attr>]) -> Folded {
    // (folders may see unverified IR: never index past the operands)
    if v.num_results() != 1 || consts.len() != v.num_operands() {
        return None;
    }
    let r = fold_constants(v, consts).or_else(|| fold_identities(v, consts))?;
    Some(smallvec![r])
}

/// The algebraic identities of the elementwise functions (by the op's `ElementwiseFn`) and the
/// no-op structural ops.
fn fold_identities(v: &OpView, consts: &[Option<Attr>]) -> Option<FoldResult> {
    let n = consts.len();
    if let Some(f) = elementwise_fn(v) {
        return match f.ok()? {
            ElementwiseFn::Binary(BinaryFn::Add) if n == 2 => fold_add(v, consts),
            ElementwiseFn::Binary(BinaryFn::Sub) if n == 2 => fold_sub(v, consts),
            ElementwiseFn::Binary(BinaryFn::Mul) if n == 2 => fold_mul(v, consts),
            ElementwiseFn::Binary(BinaryFn::Div) if n == 2 => fold_div(v, consts),
            ElementwiseFn::Select if n == 3 => fold_select(v, consts),
            ElementwiseFn::Cast if n == 1 => same_type_value(v, v.operand(0)),
            _ => None,
        };
    }
    let def = v.def()?;
    if n != 1 {
        None
    } else if def.is::<TransposeOp>() {
        fold_transpose(v)
    } else if def.is::<ReshapeOp>() {
        fold_reshape(v)
    } else if def.is::<BroadcastToOp>() {
        same_type_value(v, v.operand(0))
    } else {
        None
    }
}

/// `FoldResult::Value(x)` if `x` has exactly the op's result type (else the op changes the
/// type, e.g. it broadcasts, and cannot be replaced by `x`).
fn same_type_value(v: &OpView, x: Value) -> Option<FoldResult> {
    (v.body.value_type(x) == v.result_type(0)).then_some(FoldResult::Value(x))
}

// ---------------------------------------------------------------------------- constants

/// The static shape and element type of a ranked tensor type (`None` if a dim is `?`).
fn static_shape(ctx: &Context, t: Type) -> Option<(Vec<u64>, Type)> {
    let (shape, elem) = ranked(ctx, t)?;
    let dims = shape
        .iter()
        .map(|&d| (d != DYNAMIC && d >= 0).then_some(d as u64))
        .collect::<Option<Vec<u64>>>()?;
    Some((dims, elem))
}

fn numel(shape: &[u64]) -> u64 {
    shape.iter().fold(1u64, |a, &d| a.saturating_mul(d))
}

/// Ops whose result is a splat of the operand's element when the operand is a splat.
fn splat_preserving(def: &OpDef) -> bool {
    def.is::<ReshapeOp>() || def.is::<BroadcastToOp>() || def.is::<TransposeOp>() || def.is::<SliceOp>()
}

/// Folds an op whose operands are all constants by running it (see the module docs).
fn fold_constants(v: &OpView, consts: &[Option<Attr>]) -> Option<FoldResult> {
    let ctx = v.ctx;
    if consts.is_empty() || consts.len() != v.num_operands() {
        return None;
    }
    let attrs: SmallVec<[Attr; 4]> = consts.iter().copied().collect::<Option<_>>()?;
    let rt = v.result_type(0);
    let (shape, elem) = static_shape(ctx, rt)?;
    let n_out = numel(&shape);
    let def = v.def()?;
    if n_out > 0 {
        if let Some(splats) = attrs
            .iter()
            .map(|&a| splat_from_attr(ctx, a))
            .collect::<Option<Vec<_>>>()
        {
            if def.has(Traits::Elementwise) {
                // the same op on one element of each operand gives the one element of the result
                let one = ctx.tensor_type(&[], elem);
                let out = eval_kernel(v, &[one], splats).ok()?;
                return splat_to_attr(ctx, out.first()?, rt).ok().map(FoldResult::Attr);
            }
            if splat_preserving(def) {
                return splat_to_attr(ctx, splats.first()?, rt).ok().map(FoldResult::Attr);
            }
        }
    }
    if n_out > MAX_FOLD_ELEMENTS {
        return None;
    }
    let mut operand_shapes = Vec::with_capacity(attrs.len());
    for &a in &attrs {
        let AttrKind::DenseElements { ty, .. } = ctx.attr_kind(a) else {
            return None;
        };
        let (s, _) = static_shape(ctx, *ty)?;
        if numel(&s) > MAX_FOLD_OPERAND_ELEMENTS {
            return None;
        }
        operand_shapes.push(s);
    }
    if work(ctx, v, &operand_shapes, n_out)? > MAX_FOLD_WORK {
        return None;
    }
    let tensors = attrs
        .iter()
        .map(|&a| tensor_from_attr(ctx, a))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let out = eval_kernel(v, &[rt], tensors).ok()?;
    Some(FoldResult::Attr(tensor_to_attr(ctx, out.first()?)))
}

/// The work of evaluating the op on operands of these shapes (see [`MAX_FOLD_WORK`]).
fn work(ctx: &Context, v: &OpView, operands: &[Vec<u64>], n_out: u64) -> Option<u64> {
    let def = v.def()?;
    if def.is::<MatmulOp>() {
        let k = *operands.first()?.last()?;
        Some(n_out.saturating_mul(k))
    } else if def.is::<EinsumOp>() {
        // one multiply-add per point of the label space
        let eq = v.attr("equation").and_then(|a| ctx.as_str(a))?;
        let e = parse_einsum(eq, operands.len()).ok()?;
        let mut sizes: Vec<(char, u64)> = Vec::new();
        for (labels, shape) in e.inputs.iter().zip(operands) {
            for (&c, &d) in labels.iter().zip(shape) {
                if !sizes.iter().any(|(l, _)| *l == c) {
                    sizes.push((c, d));
                }
            }
        }
        let points = sizes.iter().fold(1u64, |a, &(_, d)| a.saturating_mul(d));
        Some(points.saturating_mul(operands.len() as u64))
    } else {
        Some(operands.iter().fold(n_out, |a, s| a.saturating_add(numel(s))))
    }
}

// ---------------------------------------------------------------------------- identities

/// What a splat constant's element is, as far as the identities care.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Splat {
    IntZero,
    IntOne,
    FloatPosZero,
    FloatNegZero,
    FloatOne,
    Other,
}

/// The element of a splat constant (`None` if `c` is not a constant splat).
fn classify(ctx: &Context, c: Option<Attr>) -> Option<Splat> {
    let AttrKind::DenseElements {
        ty,
        data: DenseData::Splat(bytes),
    } = ctx.attr_kind(c?)
    else {
        return None;
    };
    let TypeKind::RankedTensor { elem, .. } = ctx.type_kind(*ty) else {
        return None;
    };
    if bytes.len() > 8 {
        return Some(Splat::Other);
    }
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    let bits = u64::from_le_bytes(raw);
    if let Some(kind) = ctx.float_kind(*elem) {
        let x = bits_to_float(kind, bits);
        return Some(if x == 1.0 {
            Splat::FloatOne
        } else if x == 0.0 && x.is_sign_negative() {
            Splat::FloatNegZero
        } else if x == 0.0 {
            Splat::FloatPosZero
        } else {
            Splat::Other
        });
    }
    if ctx.int_width(*elem).is_some_and(|w| w > 1) {
        return Some(match bits {
            0 => Splat::IntZero,
            1 => Splat::IntOne,
            _ => Splat::Other,
        });
    }
    Some(Splat::Other)
}

// Only integer identities that hold for every value are used, plus the few float ones that are
// exact in IEEE arithmetic (as MLIR's arith folders): `x * 1.0`, `x / 1.0`, `x + -0.0` and
// `x - 0.0` are `x` for every x, including NaN, infinities and -0.0. `x + 0.0` is not
// (`-0.0 + 0.0 = +0.0`), and `x * 0.0` is not `0.0` (`NaN * 0 = NaN`, `inf * 0 = NaN`,
// `-1 * 0 = -0.0`), so those stay.

/// The additive identity: integer 0, float -0.0.
fn is_add_identity(s: Option<Splat>) -> bool {
    matches!(s, Some(Splat::IntZero | Splat::FloatNegZero))
}
/// What `x - c = x` needs: integer 0, float +0.0.
fn is_sub_identity(s: Option<Splat>) -> bool {
    matches!(s, Some(Splat::IntZero | Splat::FloatPosZero))
}
fn is_one(s: Option<Splat>) -> bool {
    matches!(s, Some(Splat::IntOne | Splat::FloatOne))
}

/// `x + 0 -> x`, `0 + x -> x` (when the result has x's type).
fn fold_add(v: &OpView, c: &[Option<Attr>]) -> Option<FoldResult> {
    let (lhs, rhs) = (v.operand(0), v.operand(1));
    if is_add_identity(classify(v.ctx, c[1])) {
        if let Some(r) = same_type_value(v, lhs) {
            return Some(r);
        }
    }
    if is_add_identity(classify(v.ctx, c[0])) {
        return same_type_value(v, rhs);
    }
    None
}

/// `x - 0 -> x`.
fn fold_sub(v: &OpView, c: &[Option<Attr>]) -> Option<FoldResult> {
    if is_sub_identity(classify(v.ctx, c[1])) {
        return same_type_value(v, v.operand(0));
    }
    None
}

/// `x * 1 -> x`, `1 * x -> x`; for integers `x * 0 -> 0` and `0 * x -> 0`.
fn fold_mul(v: &OpView, c: &[Option<Attr>]) -> Option<FoldResult> {
    let (lhs, rhs) = (v.operand(0), v.operand(1));
    let (cl, cr) = (classify(v.ctx, c[0]), classify(v.ctx, c[1]));
    if is_one(cr) {
        if let Some(r) = same_type_value(v, lhs) {
            return Some(r);
        }
    }
    if is_one(cl) {
        if let Some(r) = same_type_value(v, rhs) {
            return Some(r);
        }
    }
    for (s, zero, attr) in [(cr, rhs, c[1]), (cl, lhs, c[0])] {
        if s != Some(Splat::IntZero) {
            continue;
        }
        if let Some(r) = same_type_value(v, zero) {
            return Some(r);
        }
        // the zero operand broadcasts: a zero splat of the result type
        let one = splat_from_attr(v.ctx, attr?)?;
        return splat_to_attr(v.ctx, &one, v.result_type(0)).ok().map(FoldResult::Attr);
    }
    None
}

/// `x / 1 -> x`.
fn fold_div(v: &OpView, c: &[Option<Attr>]) -> Option<FoldResult> {
    if is_one(classify(v.ctx, c[1])) {
        return same_type_value(v, v.operand(0));
    }
    None
}

/// `select(true, a, b) -> a`, `select(false, a, b) -> b` for a splat condition.
fn fold_select(v: &OpView, c: &[Option<Attr>]) -> Option<FoldResult> {
    let AttrKind::DenseElements {
        data: DenseData::Splat(bytes),
        ..
    } = v.ctx.attr_kind(c[0]?)
    else {
        return None;
    };
    let chosen = if bytes.iter().any(|&b| b != 0) {
        v.operand(1)
    } else {
        v.operand(2)
    };
    same_type_value(v, chosen)
}

// ---------------------------------------------------------------------------- structure

fn perm_of(ctx: &Context, body: &xcs_ir::Body, op: Op) -> Option<Vec<i64>> {
    body.attr(ctx, op, "perm").and_then(|a| ctx.as_i64_array(a))
}

fn is_identity(perm: &[i64]) -> bool {
    perm.iter().enumerate().all(|(i, &p)| p == i as i64)
}

/// The defining op of `x` if `is_it` accepts it (e.g. `TransposeOp::matches`) and it has one
/// operand.
fn defined_by(ctx: &Context, body: &xcs_ir::Body, x: Value, is_it: fn(&Context, OpName) -> bool) -> Option<Op> {
    body.defining_op(x).filter(|&d| is_it(ctx, body.op_name(d)) && body.num_operands(d) == 1)
}

/// `transpose(x, p2)` of `transpose(y, p1)` is `transpose(y, q)` with `q[i] = p1[p2[i]]`.
fn compose(p1: &[i64], p2: &[i64]) -> Option<Vec<i64>> {
    p2.iter()
        .map(|&i| usize::try_from(i).ok().and_then(|i| p1.get(i).copied()))
        .collect()
}

/// `transpose(x, identity) -> x`; `transpose(transpose(y, p1), p2) -> y` when the composed
/// permutation is the identity.
fn fold_transpose(v: &OpView) -> Option<FoldResult> {
    let p2 = perm_of(v.ctx, v.body, v.op)?;
    if is_identity(&p2) {
        if let Some(r) = same_type_value(v, v.operand(0)) {
            return Some(r);
        }
    }
    let inner = defined_by(v.ctx, v.body, v.operand(0), TransposeOp::matches)?;
    let q = compose(&perm_of(v.ctx, v.body, inner)?, &p2)?;
    if is_identity(&q) {
        return same_type_value(v, v.body.operand(inner, 0));
    }
    None
}

/// `reshape(x) -> x` to x's own type; `reshape(reshape(y)) -> y` to y's type.
fn fold_reshape(v: &OpView) -> Option<FoldResult> {
    let x = v.operand(0);
    if let Some(r) = same_type_value(v, x) {
        return Some(r);
    }
    let inner = defined_by(v.ctx, v.body, x, ReshapeOp::matches)?;
    same_type_value(v, v.body.operand(inner, 0))
}

pub(crate) static TRANSPOSE_PATTERNS: &[&dyn RewritePattern] = &[&COMPOSE_TRANSPOSES];
pub(crate) static RESHAPE_PATTERNS: &[&dyn RewritePattern] = &[&COMBINE_RESHAPES];

static COMPOSE_TRANSPOSES: ReplacePattern = ReplacePattern {
    name: "tensor-compose-transposes",
    f: compose_transposes,
};
static COMBINE_RESHAPES: ReplacePattern = ReplacePattern {
    name: "tensor-combine-reshapes",
    f: combine_reshapes,
};

/// An op `def` on `x` with `op`'s result type and location and attributes `attrs`.
fn unary_like(ctx: &Context, body: &Body, op: Op, def: &OpDef, x: Value, attrs: Attr) -> OperationState {
    let ty = body.value_type(body.result(op, 0));
    let mut st = OperationState::of(ctx, def, body.op_loc(op)).operands(&[x]).results(&[ty]);
    st.attrs = attrs;
    st
}

/// `transpose(transpose(y, p1), p2) -> transpose(y, q)`, `q[i] = p1[p2[i]]` (the inner
/// transpose stays if it has other uses).
fn compose_transposes(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    if body.num_operands(op) != 1 || body.num_results(op) != 1 {
        return None;
    }
    let inner = defined_by(ctx, body, body.operand(op, 0), TransposeOp::matches)?;
    let (p1, p2) = (perm_of(ctx, body, inner)?, perm_of(ctx, body, op)?);
    let q = compose(&p1, &p2)?;
    let y = body.operand(inner, 0);
    let attrs = ctx.dict_set(body.attrs(op), ctx.ident("perm"), Some(ctx.dense_i64_array(&q)));
    Some(unary_like(ctx, body, op, TransposeOp::DEF, y, attrs))
}

/// `reshape(reshape(y)) -> reshape(y)` (the inner reshape stays if it has other uses).
fn combine_reshapes(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    if body.num_operands(op) != 1 || body.num_results(op) != 1 {
        return None;
    }
    let inner = defined_by(ctx, body, body.operand(op, 0), ReshapeOp::matches)?;
    let y = body.operand(inner, 0);
    // Through a `?` dim the two static counts may differ (the program fails at run time); one
    // reshape between them would not verify, so leave such a chain alone.
    let count = |v: Value| ranked(ctx, body.value_type(v)).and_then(|(s, _)| crate::shape::num_elements(s));
    if let (Some(a), Some(b)) = (count(y), count(body.result(op, 0))) {
        if a != b {
            return None;
        }
    }
    Some(unary_like(ctx, body, op, ReshapeOp::DEF, y, body.attrs(op)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dialect docs quote the limits.
    #[test]
    fn docs_quote_the_limits() {
        let ctx = crate::context();
        let d = ctx.dialect("tensor").expect("the tensor dialect is registered").description;
        assert!(d.contains(&format!("at most {MAX_FOLD_ELEMENTS} elements")), "{d}");
        assert!(
            d.contains(&format!("at most {MAX_FOLD_OPERAND_ELEMENTS} elements")),
            "{d}"
        );
        assert_eq!(MAX_FOLD_WORK, 1 << 22);
        assert!(d.contains("at most 2^22 units of work"), "{d}");
    }

    #[test]
    fn permutations_compose() {
        // transpose(transpose(x, [1, 2, 0]), [2, 0, 1]) is x
        assert_eq!(compose(&[1, 2, 0], &[2, 0, 1]), Some(vec![0, 1, 2]));
        assert_eq!(compose(&[1, 2, 0], &[1, 2, 0]), Some(vec![2, 0, 1]));
        assert_eq!(compose(&[1, 0], &[2, 0]), None);
        assert_eq!(compose(&[1, 0], &[-1, 0]), None);
        assert!(is_identity(&[0, 1, 2]) && is_identity(&[]) && !is_identity(&[1, 0]));
    }

    /// Folding evaluates an op through its `Semantics` kernel: failures are errors, results are
    /// checked against the given result types, and an op whose semantics is not a kernel
    /// (`tensor.fused` runs a region) cannot be evaluated.
    #[test]
    fn eval_kernel_reports_failures() {
        use crate::interp::Tensor;
        let ctx = crate::context();
        let mut body = xcs_ir::Body::new(&ctx, ctx.op_name("func.func"), xcs_ir::Location::UNKNOWN);
        let mut op = |name: &str| body.create_op(OperationState::new(&ctx, name, xcs_ir::Location::UNKNOWN));
        let (div, add, fused) = (op("tensor.div"), op("tensor.add"), op("tensor.fused"));
        let view = |op| OpView::new(&ctx, &body, op);
        let t = ctx.tensor_type(&[2], ctx.i32_type());
        let a = Tensor::i32(&[2], &[6, 7]);
        let z = Tensor::i32(&[2], &[1, 0]);
        let e = eval_kernel(&view(div), &[t], vec![a.clone(), z]).unwrap_err();
        assert!(e.contains("division by zero"), "{e}");
        let wrong = ctx.tensor_type(&[3], ctx.i32_type());
        let e = eval_kernel(&view(add), &[wrong], vec![a.clone(), a.clone()]).unwrap_err();
        assert!(e.contains("result #0"), "{e}");
        let e = eval_kernel(&view(fused), &[t], vec![a.clone()]).unwrap_err();
        assert!(e.contains("cannot be evaluated"), "{e}");
        let ok = eval_kernel(&view(add), &[t], vec![a.clone(), a]).unwrap();
        assert_eq!(ok[0], Tensor::i32(&[2], &[12, 14]));
    }
}
