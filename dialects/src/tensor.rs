//! The `tensor` dialect: value-semantics tensor ops (like StableHLO/TOSA), exactly as the
//! DESIGN.md table names them. Every op infers its result type from operand types and
//! attributes (`infer`), and the verifier checks the declared result against it.

use smallvec::{smallvec, SmallVec};
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, DialectDef, FoldResult, OpView, TypeConstraint};
use xcs_ir::{op, Attr, AttrKind, Body, Context, Diagnostic, Location, Op, OperationState, Type, DYNAMIC};

use crate::shape::{broadcast, broadcastable_to, is_table_elem, norm_axis, num_elements, ranked, shape_str};

pub use crate::tensor_build::*;

type Infer = Result<SmallVec<[Type; 1]>, String>;

// ---------------------------------------------------------------------------- constraints

fn tensor_of(ctx: &Context, t: Type, elem_ok: fn(&Context, Type) -> bool) -> bool {
    ranked(ctx, t).is_some_and(|(_, e)| elem_ok(ctx, e))
}
fn is_numeric(ctx: &Context, e: Type) -> bool {
    is_table_elem(ctx, e) && e != ctx.i1_type()
}
fn is_float_elem(ctx: &Context, e: Type) -> bool {
    is_table_elem(ctx, e) && ctx.is_float(e)
}
fn is_index_elem(ctx: &Context, e: Type) -> bool {
    e == ctx.i32_type() || e == ctx.i64_type()
}

pub const TENSOR: TypeConstraint = TypeConstraint {
    desc: "ranked tensor of f16, bf16, f32, f64, i1, i8, i16, i32 or i64 values",
    check: |c, t| tensor_of(c, t, is_table_elem),
};
pub const NUMERIC_TENSOR: TypeConstraint = TypeConstraint {
    desc: "ranked tensor of f16, bf16, f32, f64, i8, i16, i32 or i64 values",
    check: |c, t| tensor_of(c, t, is_numeric),
};
pub const FLOAT_TENSOR: TypeConstraint = TypeConstraint {
    desc: "ranked tensor of f16, bf16, f32 or f64 values",
    check: |c, t| tensor_of(c, t, is_float_elem),
};
pub const BOOL_TENSOR: TypeConstraint =
    TypeConstraint { desc: "ranked tensor of i1 values", check: |c, t| tensor_of(c, t, |c, e| e == c.i1_type()) };
pub const INDEX_TENSOR: TypeConstraint =
    TypeConstraint { desc: "ranked tensor of i32 or i64 values", check: |c, t| tensor_of(c, t, is_index_elem) };

macro_rules! string_enum {
    ($name:ident, $desc:literal, [$($v:literal),*]) => {
        pub const $name: AttrConstraint = AttrConstraint {
            desc: $desc,
            check: |c, a| matches!(c.as_str(a), Some($($v)|*)),
        };
    };
}
string_enum!(PREDICATE_ATTR, "string attribute, one of \"eq\", \"ne\", \"lt\", \"le\", \"gt\", \"ge\"", ["eq", "ne", "lt", "le", "gt", "ge"]);
string_enum!(REDUCE_KIND_ATTR, "string attribute, one of \"sum\", \"max\", \"min\", \"mean\", \"prod\"", ["sum", "max", "min", "mean", "prod"]);
string_enum!(APPROXIMATE_ATTR, "string attribute, one of \"none\", \"tanh\"", ["none", "tanh"]);
pub const EPSILON_ATTR: AttrConstraint = AttrConstraint {
    desc: "32-bit float attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Float { ty, .. } if *ty == c.f32_type()),
};

// ---------------------------------------------------------------------------- ops

op! {
    /// A constant tensor: the result type is the type of `value`. The dialect's constant
    /// materializer: folded tensor ops become `tensor.constant`s, which `canonicalize` uniques
    /// and hoists to the entry block.
    pub struct ConstantOp = "tensor.constant" {
        summary: "Constant tensor",
        results: { result: TENSOR },
        attributes: { value: ELEMENTS_ATTR },
        traits: [Pure, ConstantLike],
        fold: |v, _| Some(smallvec![FoldResult::Attr(v.attr("value")?)]),
        infer: infer_constant,
    }
}

/// The folds every op with `fold: FOLD` has (see `tensor_fold`): constant operands fold.
const FOLD: xcs_ir::opdef::FoldFn = crate::tensor_fold::fold;

macro_rules! binary_ops {
    ($($(#[doc = $doc:literal])* $Name:ident = $opname:literal, $summary:literal, [$($trait:ident),*];)*) => {$(
        op! {
            /// Elementwise binary op with numpy broadcasting of `lhs` and `rhs`; both have the
            /// same element type, the result has the broadcast shape. Folds when both operands
            /// are constants.
            $(#[doc = $doc])*
            pub struct $Name = $opname {
                summary: $summary,
                operands: { lhs: NUMERIC_TENSOR, rhs: NUMERIC_TENSOR },
                results: { result: NUMERIC_TENSOR },
                traits: [Pure, Elementwise, SameOperandsAndResultElementType $(, $trait)*],
                fold: FOLD,
                infer: infer_broadcast,
            }
        }
    )*};
}
binary_ops! {
    /// Also folds `x + 0` and `0 + x` to `x` for integers, and `x + -0.0`, `-0.0 + x` for
    /// floats, when the result has `x`'s type (the constant does not broadcast `x`);
    /// `x + 0.0` is not `x` for floats (`-0.0 + 0.0 = 0.0`).
    AddOp = "tensor.add", "Elementwise addition", [Commutative];
    /// Also folds `x - 0` (integer `0`, float `0.0`) to `x` when the result has `x`'s type.
    SubOp = "tensor.sub", "Elementwise subtraction", [];
    /// Also folds `x * 1` and `1 * x` to `x` when the result has `x`'s type, and for integers
    /// only `x * 0` and `0 * x` to `0` (for floats it is not `0`: `NaN * 0` and `inf * 0` are
    /// NaN, `-1.0 * 0.0` is `-0.0`).
    MulOp = "tensor.mul", "Elementwise multiplication", [Commutative];
    /// Also folds `x / 1` to `x` when the result has `x`'s type. Integer division by a
    /// constant zero is not folded: it stays a run-time error.
    DivOp = "tensor.div", "Elementwise division (integers: truncates toward zero, like C and StableHLO, not numpy's floor; by zero is a run-time error)", [];
    /// Floats: a NaN operand gives NaN and -0.0 is below +0.0 (IEEE 754-2019 `maximum`), so the
    /// operands commute.
    MaxOp = "tensor.max", "Elementwise maximum", [Commutative];
    /// Floats: a NaN operand gives NaN and -0.0 is below +0.0 (IEEE 754-2019 `minimum`), so the
    /// operands commute.
    MinOp = "tensor.min", "Elementwise minimum", [Commutative];
    /// A negative constant integer exponent is not folded (a run-time error).
    PowOp = "tensor.pow", "Elementwise power (integers: a negative exponent is a run-time error)", [];
}

macro_rules! unary_ops {
    ($($(#[doc = $doc:literal])* $Name:ident = $opname:literal, $summary:literal, $cons:ident, [$($trait:ident),*];)*) => {$(
        op! {
            /// Elementwise unary op; the result has the operand's type. Folds a constant
            /// operand.
            $(#[doc = $doc])*
            pub struct $Name = $opname {
                summary: $summary,
                operands: { x: $cons },
                results: { result: $cons },
                traits: [Pure, Elementwise, SameOperandsAndResultType $(, $trait)*],
                fold: FOLD,
                infer: infer_same,
            }
        }
    )*};
}
unary_ops! {
    /// Also folds `neg(neg(x))` to `x` (an involution).
    NegOp = "tensor.neg", "Elementwise negation", NUMERIC_TENSOR, [Involution];
    /// Also folds `abs(abs(x))` to `abs(x)` (idempotent).
    AbsOp = "tensor.abs", "Elementwise absolute value", NUMERIC_TENSOR, [Idempotent];
    /// Also folds `relu(relu(x))` to `relu(x)` (idempotent).
    ReluOp = "tensor.relu", "Elementwise max(x, 0)", NUMERIC_TENSOR, [Idempotent];
    ExpOp = "tensor.exp", "Elementwise exponential", FLOAT_TENSOR, [];
    LogOp = "tensor.log", "Elementwise natural logarithm", FLOAT_TENSOR, [];
    TanhOp = "tensor.tanh", "Elementwise hyperbolic tangent", FLOAT_TENSOR, [];
    SigmoidOp = "tensor.sigmoid", "Elementwise logistic sigmoid 1/(1+exp(-x))", FLOAT_TENSOR, [];
    SiluOp = "tensor.silu", "Elementwise x*sigmoid(x)", FLOAT_TENSOR, [];
    SqrtOp = "tensor.sqrt", "Elementwise square root", FLOAT_TENSOR, [];
    RsqrtOp = "tensor.rsqrt", "Elementwise reciprocal square root", FLOAT_TENSOR, [];
}

op! {
    /// GELU: `approximate = "none"` is the exact erf form `0.5*x*(1+erf(x/sqrt(2)))`,
    /// `"tanh"` the tanh form `0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))`.
    pub struct GeluOp = "tensor.gelu" {
        summary: "Elementwise GELU",
        operands: { x: FLOAT_TENSOR },
        results: { result: FLOAT_TENSOR },
        attributes: { approximate: APPROXIMATE_ATTR },
        traits: [Pure, Elementwise, SameOperandsAndResultType],
        fold: FOLD,
        infer: infer_same,
    }
}

op! {
    /// Elementwise comparison with broadcasting; the result is `i1`. `predicate` is one of
    /// `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
    pub struct CmpOp = "tensor.cmp" {
        summary: "Elementwise comparison",
        operands: { lhs: TENSOR, rhs: TENSOR },
        results: { result: BOOL_TENSOR },
        attributes: { predicate: PREDICATE_ATTR },
        traits: [Pure, Elementwise],
        fold: FOLD,
        infer: infer_cmp,
    }
}

op! {
    /// `cond ? a : b` elementwise, with `cond`, `a` and `b` broadcast together. Folds constant
    /// operands, and a splat constant `cond` to `a` (true) or `b` (false) when that operand has
    /// the result type.
    pub struct SelectOp = "tensor.select" {
        summary: "Elementwise select",
        operands: { cond: BOOL_TENSOR, a: TENSOR, b: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        fold: FOLD,
        infer: infer_select,
    }
}

op! {
    /// Converts each element to the result's element type (same shape). Float to float rounds
    /// to nearest-even; float to integer truncates toward zero and saturates at the integer
    /// type's bounds (NaN becomes 0); integer to integer wraps (keeps the low bits); integer to
    /// float rounds to nearest; number to i1 is `x != 0` (NaN is true); i1 to number is 0 or 1.
    /// Folds a constant operand, and a cast to the operand's own type to the operand.
    pub struct CastOp = "tensor.cast" {
        summary: "Elementwise element-type conversion",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        verify: verify_cast,
        fold: FOLD,
    }
}

op! {
    /// Matrix product of the last two dims: `[..., M, K] x [..., K, N] -> [..., M, N]`; the
    /// leading (batch) dims broadcast.
    pub struct MatmulOp = "tensor.matmul" {
        summary: "(Batched) matrix multiplication",
        operands: { lhs: NUMERIC_TENSOR, rhs: NUMERIC_TENSOR },
        results: { result: NUMERIC_TENSOR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_matmul,
    }
}

op! {
    /// Einstein summation over the operands, e.g. `equation = "bij,bjk->bik"`. Without `->`,
    /// the output is the labels that appear once, sorted (numpy's implicit mode).
    pub struct EinsumOp = "tensor.einsum" {
        summary: "Einstein summation",
        operands: { #[variadic] inputs: NUMERIC_TENSOR },
        results: { result: NUMERIC_TENSOR },
        attributes: { equation: STR_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_einsum,
    }
}

op! {
    /// Reduces `axes` with `kind` (`sum`, `max`, `min`, `mean`, `prod`); `keepdims` keeps
    /// reduced dims as size 1. Integer `mean` is the exact sum divided by the count, truncated
    /// toward zero; `max`/`min` of an empty axis is a run-time error.
    pub struct ReduceOp = "tensor.reduce" {
        summary: "Reduction over axes",
        operands: { x: NUMERIC_TENSOR },
        results: { result: NUMERIC_TENSOR },
        attributes: { kind: REDUCE_KIND_ATTR, axes: DENSE_I64_ARRAY_ATTR, keepdims: BOOL_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_reduce,
    }
}

op! {
    /// `exp(x - max) / sum(exp(x - max))` along `axis`.
    pub struct SoftmaxOp = "tensor.softmax" {
        summary: "Softmax along an axis",
        operands: { x: FLOAT_TENSOR },
        results: { result: FLOAT_TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure, SameOperandsAndResultType],
        fold: FOLD,
        infer: infer_softmax,
    }
}

op! {
    /// Normalizes over the dims from `axis` to the last: `(x - mean) / sqrt(var + epsilon) *
    /// gamma + beta`, where `gamma` and `beta` have the shape of the normalized dims.
    pub struct LayerNormOp = "tensor.layer_norm" {
        summary: "Layer normalization",
        operands: { x: FLOAT_TENSOR, gamma: FLOAT_TENSOR, beta: FLOAT_TENSOR },
        results: { result: FLOAT_TENSOR },
        attributes: { axis: I64_ATTR, epsilon: EPSILON_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_layer_norm,
    }
}

op! {
    /// Permutes the dims: result dim `i` is operand dim `perm[i]`. Folds a constant operand, the
    /// identity permutation, and `transpose(transpose(x, p1), p2)` to `x` when the permutations
    /// compose to the identity; otherwise the pattern `tensor-compose-transposes` makes it one
    /// `transpose(x, q)` with `q[i] = p1[p2[i]]`.
    pub struct TransposeOp = "tensor.transpose" {
        summary: "Dimension permutation",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        attributes: { perm: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        fold: FOLD,
        patterns: crate::tensor_fold::TRANSPOSE_PATTERNS,
        infer: infer_transpose,
    }
}

op! {
    /// Reinterprets the elements (row-major) with the result type's shape; the element counts
    /// must agree. Folds a constant operand and a reshape to the operand's own type; the pattern
    /// `tensor-combine-reshapes` makes `reshape(reshape(x))` one reshape of `x` (and `x` itself
    /// when that has the result type).
    pub struct ReshapeOp = "tensor.reshape" {
        summary: "Shape change keeping the elements",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify_reshape,
        fold: FOLD,
        patterns: crate::tensor_fold::RESHAPE_PATTERNS,
    }
}

op! {
    /// Broadcasts `x` (numpy rules) to the result type's shape. Folds a constant operand, and a
    /// broadcast of a value that already has the result type to that value.
    pub struct BroadcastToOp = "tensor.broadcast_to" {
        summary: "Explicit broadcast",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify_broadcast_to,
        fold: FOLD,
    }
}

op! {
    /// Takes elements `start[d] <= i < limit[d]` with step `stride[d]` in each dim `d`.
    pub struct SliceOp = "tensor.slice" {
        summary: "Strided static slice",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        attributes: { start: DENSE_I64_ARRAY_ATTR, limit: DENSE_I64_ARRAY_ATTR, stride: DENSE_I64_ARRAY_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_slice,
    }
}

op! {
    /// Joins the operands along `axis`; all other dims must agree.
    pub struct ConcatOp = "tensor.concat" {
        summary: "Concatenation along an axis",
        operands: { #[variadic] inputs: TENSOR },
        results: { result: TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_concat,
    }
}

op! {
    /// Gathers slices of `table` along `axis` at `indices`: the result has the table's dims
    /// with `axis` replaced by the indices' dims (numpy `take`). Valid indices are
    /// `0 <= i < size`; others (negative ones too, unlike numpy) are a run-time error.
    pub struct GatherOp = "tensor.gather" {
        summary: "Gather along an axis",
        operands: { table: TENSOR, indices: INDEX_TENSOR },
        results: { result: TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure],
        fold: FOLD,
        infer: infer_gather,
    }
}

op! {
    /// A fused computation: one region whose entry block takes the inputs and ends in
    /// `tensor.yield` of the results. Produced by the `fuse` pass and lowered as one loop nest.
    pub struct FusedOp = "tensor.fused" {
        summary: "Fused region of tensor ops",
        operands: { #[variadic] inputs: TENSOR },
        results: { #[variadic] results: TENSOR },
        regions: { body: 1 },
        traits: [IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects],
        verify: verify_fused,
    }
}

op! {
    /// Terminates a `tensor.fused` region with its results.
    pub struct YieldOp = "tensor.yield" {
        summary: "Fused region terminator",
        operands: { #[variadic] values: ANY_TYPE },
        traits: [Pure, Terminator, ReturnLike],
        verify: verify_yield,
    }
}

pub static TENSOR_DIALECT: DialectDef = DialectDef {
    name: "tensor",
    summary: "Value-semantics tensor operations",
    description: "Element types: f16, bf16, f32, f64, i1, i8, i16, i32, i64; shapes are static \
or `?`. Broadcasting follows numpy. Every op infers its result type from its operands and \
attributes; the verifier rejects a declared result type that disagrees with the inferred one.\n\n\
Folding (`canonicalize`): every op but `tensor.fused` and `tensor.yield` folds when all its operands are constants, by \
evaluating it exactly as the reference interpreter runs it, and becomes a `tensor.constant`. \
Splat operands of elementwise ops and of `reshape`, `broadcast_to`, `transpose` and `slice` fold \
to a splat of any size; otherwise a fold may produce at most 4096 elements, expand constant \
operands of at most 65536 elements and do at most 2^22 units of work (multiply-adds for \
`matmul`/`einsum`). Results with a `?` dim are not folded, and an op whose evaluation fails \
(integer division by zero, a negative integer exponent, an out-of-range gather index) is left for \
run time. The algebraic identities and structural folds are listed with each op.",
    ops: &[
        ConstantOp::DEF,
        AddOp::DEF,
        SubOp::DEF,
        MulOp::DEF,
        DivOp::DEF,
        MaxOp::DEF,
        MinOp::DEF,
        PowOp::DEF,
        NegOp::DEF,
        ExpOp::DEF,
        LogOp::DEF,
        TanhOp::DEF,
        SigmoidOp::DEF,
        ReluOp::DEF,
        SiluOp::DEF,
        SqrtOp::DEF,
        RsqrtOp::DEF,
        AbsOp::DEF,
        GeluOp::DEF,
        CmpOp::DEF,
        SelectOp::DEF,
        CastOp::DEF,
        MatmulOp::DEF,
        EinsumOp::DEF,
        ReduceOp::DEF,
        SoftmaxOp::DEF,
        LayerNormOp::DEF,
        TransposeOp::DEF,
        ReshapeOp::DEF,
        BroadcastToOp::DEF,
        SliceOp::DEF,
        ConcatOp::DEF,
        GatherOp::DEF,
        FusedOp::DEF,
        YieldOp::DEF,
    ],
    types: &[],
    attrs: &[],
    materialize_constant: Some(materialize),
};

fn materialize(ctx: &Context, body: &mut Body, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    match ctx.attr_kind(value) {
        AttrKind::DenseElements { ty: vt, .. } if *vt == ty => {}
        _ => return None,
    }
    let st = OperationState::new(ctx, "tensor.constant", loc).results(&[ty]).attr(ctx, "value", value);
    Some(body.create_op(st))
}

// ---------------------------------------------------------------------------- inference

fn tensor_parts(ctx: &Context, t: Type, what: &str) -> Result<(Vec<i64>, Type), String> {
    ranked(ctx, t).map(|(s, e)| (s.to_vec(), e)).ok_or_else(|| format!("{what} must be a ranked tensor"))
}

fn attr_i64(ctx: &Context, attrs: Attr, name: &str) -> Result<i64, String> {
    ctx.dict_get(attrs, name)
        .and_then(|a| ctx.as_int(a))
        .map(|v| v as i64)
        .ok_or_else(|| format!("requires integer attribute '{name}'"))
}

fn attr_i64s(ctx: &Context, attrs: Attr, name: &str) -> Result<Vec<i64>, String> {
    ctx.dict_get(attrs, name).and_then(|a| ctx.as_i64_array(a)).ok_or_else(|| format!("requires array<i64> attribute '{name}'"))
}

fn elem_name(ctx: &Context, t: Type) -> String {
    xcs_ir::printer::type_to_string(ctx, t)
}

fn same_elem(ctx: &Context, a: Type, b: Type) -> Result<(), String> {
    if a != b {
        return Err(format!("operand element types must match, but got '{}' and '{}'", elem_name(ctx, a), elem_name(ctx, b)));
    }
    Ok(())
}

fn infer_constant(ctx: &Context, _: &[Type], attrs: Attr) -> Infer {
    match ctx.dict_get(attrs, "value").map(|a| ctx.attr_kind(a)) {
        Some(AttrKind::DenseElements { ty, .. } | AttrKind::DenseResource { ty, .. }) => Ok(smallvec![*ty]),
        _ => Err("requires a dense elements attribute 'value'".into()),
    }
}

fn infer_same(_: &Context, ops: &[Type], _: Attr) -> Infer {
    Ok(smallvec![ops[0]])
}

fn infer_broadcast(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    if ops[0] == ops[1] && ranked(ctx, ops[0]).is_some() {
        // The common case, without building a shape: a type broadcasts with itself to itself.
        return Ok(smallvec![ops[0]]);
    }
    let (a, ea) = tensor_parts(ctx, ops[0], "lhs")?;
    let (b, eb) = tensor_parts(ctx, ops[1], "rhs")?;
    same_elem(ctx, ea, eb)?;
    Ok(smallvec![ctx.tensor_type(&broadcast(&a, &b)?, ea)])
}

fn infer_cmp(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    let (a, ea) = tensor_parts(ctx, ops[0], "lhs")?;
    let (b, eb) = tensor_parts(ctx, ops[1], "rhs")?;
    same_elem(ctx, ea, eb)?;
    Ok(smallvec![ctx.tensor_type(&broadcast(&a, &b)?, ctx.i1_type())])
}

fn infer_select(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    let (c, _) = tensor_parts(ctx, ops[0], "cond")?;
    let (a, ea) = tensor_parts(ctx, ops[1], "a")?;
    let (b, eb) = tensor_parts(ctx, ops[2], "b")?;
    same_elem(ctx, ea, eb)?;
    let s = broadcast(&broadcast(&c, &a)?, &b)?;
    Ok(smallvec![ctx.tensor_type(&s, ea)])
}

fn infer_matmul(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    let (a, ea) = tensor_parts(ctx, ops[0], "lhs")?;
    let (b, eb) = tensor_parts(ctx, ops[1], "rhs")?;
    same_elem(ctx, ea, eb)?;
    if a.len() < 2 || b.len() < 2 {
        return Err(format!("matmul operands must have rank >= 2, but got {} and {}", a.len(), b.len()));
    }
    let (m, k1) = (a[a.len() - 2], a[a.len() - 1]);
    let (k2, n) = (b[b.len() - 2], b[b.len() - 1]);
    if k1 != k2 && k1 != DYNAMIC && k2 != DYNAMIC {
        return Err(format!(
            "matmul contraction dimensions do not match: lhs {} has K = {k1}, rhs {} has K = {k2}",
            shape_str(&a),
            shape_str(&b)
        ));
    }
    let batch = broadcast(&a[..a.len() - 2], &b[..b.len() - 2]).map_err(|e| format!("matmul batch dimensions: {e}"))?;
    let mut out = batch;
    out.extend([m, n]);
    Ok(smallvec![ctx.tensor_type(&out, ea)])
}

/// A parsed einsum equation: input label lists and the output labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Einsum {
    pub inputs: Vec<Vec<char>>,
    pub output: Vec<char>,
}

/// Parses `"bij,bjk->bik"` (or the implicit form `"ij,jk"`) for `n` operands.
pub fn parse_einsum(eq: &str, n: usize) -> Result<Einsum, String> {
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    if eq.contains("...") {
        return Err("einsum ellipsis ('...') is not supported".into());
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let inputs: Vec<Vec<char>> = lhs.split(',').map(|s| s.chars().collect()).collect();
    if inputs.len() != n {
        return Err(format!("einsum equation '{eq}' names {} operands, but the op has {n}", inputs.len()));
    }
    for c in inputs.iter().flatten() {
        if !c.is_ascii_alphabetic() {
            return Err(format!("einsum equation '{eq}' has an invalid label '{c}'"));
        }
    }
    let output: Vec<char> = match rhs {
        Some(r) => {
            let out: Vec<char> = r.chars().collect();
            for (i, c) in out.iter().enumerate() {
                if !c.is_ascii_alphabetic() {
                    return Err(format!("einsum equation '{eq}' has an invalid label '{c}'"));
                }
                if out[..i].contains(c) {
                    return Err(format!("einsum output label '{c}' appears more than once"));
                }
                if !inputs.iter().any(|l| l.contains(c)) {
                    return Err(format!("einsum output label '{c}' does not appear in any input"));
                }
            }
            out
        }
        None => {
            let mut once: Vec<char> = inputs
                .iter()
                .flatten()
                .copied()
                .filter(|c| inputs.iter().flatten().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort();
            once
        }
    };
    Ok(Einsum { inputs, output })
}

fn infer_einsum(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let eq = ctx.dict_get(attrs, "equation").and_then(|a| ctx.as_str(a)).ok_or("requires string attribute 'equation'")?;
    let e = parse_einsum(eq, ops.len())?;
    let mut sizes: Vec<(char, i64)> = Vec::new();
    let mut elem = None;
    for (i, (labels, &t)) in e.inputs.iter().zip(ops).enumerate() {
        let (shape, et) = tensor_parts(ctx, t, "einsum operand")?;
        if let Some(prev) = elem {
            same_elem(ctx, prev, et)?;
        }
        elem = Some(et);
        if shape.len() != labels.len() {
            return Err(format!(
                "einsum operand #{i} has rank {} but the equation gives it {} labels",
                shape.len(),
                labels.len()
            ));
        }
        for (&c, &d) in labels.iter().zip(&shape) {
            match sizes.iter_mut().find(|(l, _)| *l == c) {
                Some((_, s)) => {
                    if *s == DYNAMIC {
                        *s = d;
                    } else if d != DYNAMIC && *s != d {
                        return Err(format!("einsum label '{c}' has size {s} and {d}"));
                    }
                }
                None => sizes.push((c, d)),
            }
        }
    }
    let out: Vec<i64> = e.output.iter().map(|c| sizes.iter().find(|(l, _)| l == c).map(|x| x.1).unwrap()).collect();
    Ok(smallvec![ctx.tensor_type(&out, elem.ok_or("einsum needs at least one operand")?)])
}

/// The normalised, sorted, unique axes of a reduction.
pub fn reduce_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for &a in axes {
        let n = norm_axis(a, rank).map_err(|e| format!("reduce {e}"))?;
        if out.contains(&n) {
            return Err(format!("reduce axes contain {a} more than once"));
        }
        out.push(n);
    }
    out.sort();
    Ok(out)
}

fn infer_reduce(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let axes = reduce_axes(&attr_i64s(ctx, attrs, "axes")?, s.len())?;
    let keep = ctx.dict_get(attrs, "keepdims").and_then(|a| ctx.as_bool(a)).unwrap_or(false);
    let out: Vec<i64> = s
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if axes.contains(&i) { keep.then_some(1) } else { Some(d) })
        .collect();
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

fn infer_softmax(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, _) = tensor_parts(ctx, ops[0], "x")?;
    norm_axis(attr_i64(ctx, attrs, "axis")?, s.len()).map_err(|e| format!("softmax {e}"))?;
    Ok(smallvec![ops[0]])
}

fn infer_layer_norm(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let axis = norm_axis(attr_i64(ctx, attrs, "axis")?, s.len()).map_err(|e| format!("layer_norm {e}"))?;
    let normalized = &s[axis..];
    for (name, &t) in ["gamma", "beta"].iter().zip(&ops[1..3]) {
        let (gs, ge) = tensor_parts(ctx, t, name)?;
        same_elem(ctx, e, ge)?;
        let ok = gs.len() == normalized.len() && gs.iter().zip(normalized).all(|(&a, &b)| crate::shape::dims_compatible(a, b));
        if !ok {
            return Err(format!(
                "layer_norm {name} shape {} does not match the normalized dims {}",
                shape_str(&gs),
                shape_str(normalized)
            ));
        }
    }
    Ok(smallvec![ops[0]])
}

/// Checks that `perm` is a permutation of `0..rank`.
pub fn check_perm(perm: &[i64], rank: usize) -> Result<(), String> {
    let mut seen = vec![false; rank];
    let ok = perm.len() == rank
        && perm.iter().all(|&p| {
            p >= 0 && (p as usize) < rank && !std::mem::replace(&mut seen[p as usize], true)
        });
    if !ok {
        return Err(format!("transpose perm {perm:?} is not a permutation of 0..{rank}"));
    }
    Ok(())
}

fn infer_transpose(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let perm = attr_i64s(ctx, attrs, "perm")?;
    check_perm(&perm, s.len())?;
    let out: Vec<i64> = perm.iter().map(|&p| s[p as usize]).collect();
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

fn infer_slice(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let start = attr_i64s(ctx, attrs, "start")?;
    let limit = attr_i64s(ctx, attrs, "limit")?;
    let stride = attr_i64s(ctx, attrs, "stride")?;
    for (name, v) in [("start", &start), ("limit", &limit), ("stride", &stride)] {
        if v.len() != s.len() {
            return Err(format!(
                "slice {name} has {} entries, but the operand has rank {} (start, limit and stride have one entry per dim)",
                v.len(),
                s.len()
            ));
        }
    }
    let mut out = Vec::with_capacity(s.len());
    for d in 0..s.len() {
        let (lo, hi, st) = (start[d], limit[d], stride[d]);
        if st < 1 {
            return Err(format!("slice stride {st} in dim {d} must be at least 1"));
        }
        if lo < 0 || hi < lo || (s[d] != DYNAMIC && hi > s[d]) {
            return Err(format!("slice bounds [{lo}, {hi}) in dim {d} are out of range for size {}", crate::shape::dim_str(s[d])));
        }
        out.push((hi - lo + st - 1) / st);
    }
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

fn infer_concat(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    if ops.is_empty() {
        return Err("concat needs at least one operand".into());
    }
    let (first, e) = tensor_parts(ctx, ops[0], "operand")?;
    let axis = norm_axis(attr_i64(ctx, attrs, "axis")?, first.len()).map_err(|e| format!("concat {e}"))?;
    let mut out = first.clone();
    for (i, &t) in ops.iter().enumerate().skip(1) {
        let (s, et) = tensor_parts(ctx, t, "operand")?;
        same_elem(ctx, e, et)?;
        if s.len() != first.len() {
            return Err(format!("concat operand #{i} has rank {} but operand #0 has rank {}", s.len(), first.len()));
        }
        for d in 0..s.len() {
            if d == axis {
                out[d] = if out[d] == DYNAMIC || s[d] == DYNAMIC { DYNAMIC } else { out[d] + s[d] };
            } else if !crate::shape::dims_compatible(out[d], s[d]) {
                return Err(format!(
                    "concat operand #{i} has shape {} which does not match {} outside axis {axis}",
                    shape_str(&s),
                    shape_str(&first)
                ));
            } else if out[d] == DYNAMIC {
                out[d] = s[d];
            }
        }
    }
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

fn infer_gather(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (t, e) = tensor_parts(ctx, ops[0], "table")?;
    let (ix, _) = tensor_parts(ctx, ops[1], "indices")?;
    let axis = norm_axis(attr_i64(ctx, attrs, "axis")?, t.len()).map_err(|e| format!("gather {e}"))?;
    let mut out: Vec<i64> = t[..axis].to_vec();
    out.extend(&ix);
    out.extend(&t[axis + 1..]);
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

// ---------------------------------------------------------------------------- verifiers

fn verify_cast(v: &OpView) -> Result<(), Diagnostic> {
    let (a, _) = ranked(v.ctx, v.operand_type(0)).unwrap_or((&[], v.ctx.none_type()));
    let (b, _) = ranked(v.ctx, v.result_type(0)).unwrap_or((&[], v.ctx.none_type()));
    if a.len() != b.len() || a.iter().zip(b).any(|(&x, &y)| !crate::shape::dims_compatible(x, y)) {
        return Err(v.error(format!("cast changes the shape from {} to {}", shape_str(a), shape_str(b))));
    }
    Ok(())
}

fn verify_reshape(v: &OpView) -> Result<(), Diagnostic> {
    let (a, _) = ranked(v.ctx, v.operand_type(0)).unwrap_or((&[], v.ctx.none_type()));
    let (b, _) = ranked(v.ctx, v.result_type(0)).unwrap_or((&[], v.ctx.none_type()));
    if let (Some(x), Some(y)) = (num_elements(a), num_elements(b)) {
        if x != y {
            return Err(v.error(format!(
                "reshape from {} ({x} elements) to {} ({y} elements) changes the element count",
                shape_str(a),
                shape_str(b)
            )));
        }
    }
    Ok(())
}

fn verify_broadcast_to(v: &OpView) -> Result<(), Diagnostic> {
    let (a, _) = ranked(v.ctx, v.operand_type(0)).unwrap_or((&[], v.ctx.none_type()));
    let (b, _) = ranked(v.ctx, v.result_type(0)).unwrap_or((&[], v.ctx.none_type()));
    if !broadcastable_to(a, b) {
        return Err(v.error(format!("shape {} cannot be broadcast to {}", shape_str(a), shape_str(b))));
    }
    Ok(())
}

fn verify_fused(v: &OpView) -> Result<(), Diagnostic> {
    let body = v.body.nested(v.op).expect("tensor.fused is isolated");
    let Some(entry) = body.root_regions().first().and_then(|&r| body.entry_block(r)) else {
        return Err(v.error("requires a body block"));
    };
    let args = body.block_args(entry);
    let inputs = v.operand_types();
    if args.len() != inputs.len() {
        return Err(v.error(format!("body block has {} arguments, but the op has {} operands", args.len(), inputs.len())));
    }
    for (i, (&a, &t)) in args.iter().zip(&inputs).enumerate() {
        let at = body.value_type(a);
        if at != t {
            return Err(v.error(format!(
                "body block argument #{i} has type '{}', but operand #{i} has type '{}'",
                v.ty(at),
                v.ty(t)
            )));
        }
    }
    // A body that does not end in `tensor.yield` is reported by the terminator checks.
    let Some(term) = body.last_op(entry).filter(|&t| v.ctx.op_name_str(body.op_name(t)) == "tensor.yield") else {
        return Ok(());
    };
    let yielded = body.operand_types(term);
    let results = v.result_types();
    if yielded.len() != results.len() {
        return Err(v.error(format!("body yields {} values, but the op has {} results", yielded.len(), results.len())));
    }
    for (j, (&y, &r)) in yielded.iter().zip(&results).enumerate() {
        if y != r {
            return Err(v.error(format!("yielded value #{j} has type '{}', but result #{j} has type '{}'", v.ty(y), v.ty(r))));
        }
    }
    Ok(())
}

fn verify_yield(v: &OpView) -> Result<(), Diagnostic> {
    if v.body.parent_op(v.op).is_some() || v.ctx.op_name_str(v.body.name()) != "tensor.fused" {
        return Err(v.error("expects parent op 'tensor.fused'"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn einsum_equations() {
        let e = parse_einsum("bij,bjk->bik", 2).unwrap();
        assert_eq!(e.output, vec!['b', 'i', 'k']);
        let e = parse_einsum("ij,jk", 2).unwrap();
        assert_eq!(e.output, vec!['i', 'k']);
        assert!(parse_einsum("ij,jk->iq", 2).unwrap_err().contains("'q' does not appear"));
        assert!(parse_einsum("ij->i", 2).unwrap_err().contains("names 1 operands"));
    }

    #[test]
    fn matmul_inference() {
        let ctx = crate::context();
        let f = ctx.f32_type();
        let a = ctx.tensor_type(&[2, 4, 3], f);
        let b = ctx.tensor_type(&[3, 5], f);
        let r = infer_matmul(&ctx, &[a, b], ctx.empty_dict()).unwrap();
        assert_eq!(r[0], ctx.tensor_type(&[2, 4, 5], f));
        let bad = ctx.tensor_type(&[4, 5], f);
        let e = infer_matmul(&ctx, &[a, bad], ctx.empty_dict()).unwrap_err();
        assert!(e.contains("contraction dimensions do not match"), "{e}");
    }

    #[test]
    fn perms() {
        assert!(check_perm(&[1, 0], 2).is_ok());
        assert!(check_perm(&[0, 0], 2).is_err());
        assert!(check_perm(&[0, 2], 2).is_err());
        assert!(check_perm(&[0], 2).is_err());
    }
}
