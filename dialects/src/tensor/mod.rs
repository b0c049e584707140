//! The `tensor` dialect: value-semantics tensor ops (like StableHLO/TOSA), exactly as the
//! DESIGN.md table names them. Every op infers its result type from operand types and
//! attributes (`infer`), and the verifier checks the declared result against it.

use smallvec::smallvec;
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, DialectDef, FoldResult, OpView, TypeConstraint};
use xcs_ir::{op, Attr, AttrKind, Body, Context, Diagnostic, Location, Op, OperationState, Type};

use xcs_ir::interfaces::{FusionRole, LoopStructure};

use crate::interfaces::batching::BatchingRule;
use crate::interfaces::cost::CostRule;
use crate::interfaces::partition::SplitReduction;
use crate::interp::semantics::Semantics;
use crate::shape::{broadcastable_to, first_type_mismatch, is_table_elem, num_elements, ranked, shape_str};
use elementwise::{BinaryFn, CompareFn, Elementwise, ElementwiseFn, GeluFn, TernaryFn, UnaryFn};

mod batching;
mod build;
mod cost;
pub mod dynamic;
pub mod elementwise;
mod fold;
mod infer;
mod loops;
mod partition;
mod semantics;

pub use build::*;
pub use dynamic::{DynamicSliceOp, DynamicUpdateSliceOp, ExtractOp, FromIndexOp, IotaOp};
pub use infer::{check_perm, parse_einsum, reduce_axes, Einsum};
use infer::*;

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
    pub struct ConstantOp = "tensor.constant" in TENSOR_OPS {
        summary: "Constant tensor",
        results: { result: TENSOR },
        attributes: { value: ELEMENTS_ATTR },
        traits: [Pure, ConstantLike],
        fold: |v, _| Some(smallvec![FoldResult::Attr(v.attr("value")?)]),
        infer: infer_constant,
        interfaces: [
            dyn Semantics => &semantics::CONSTANT,
            dyn CostRule => &cost::CONSTANT,
        ],
    }
}

/// The folds every op with `fold: FOLD` has (see `fold`): constant operands fold.
const FOLD: xcs_ir::opdef::FoldFn = fold::fold;

/// One member of an elementwise family: its typed builder and its declaration, with the
/// interfaces every elementwise op shares (the family's semantics, batching, cost and loop
/// rules through its `ElementwiseFn`, and its fusion role). The family macros below call it.
macro_rules! elementwise_op {
    (
        $(#[doc = $doc:literal])*
        $Name:ident = $opname:literal / $builder:ident ($($operand:ident),+), $summary:literal,
        operand: $cons:ident, result: $rcons:ident, traits: [$($trait:ident),*], infer: $infer:ident,
        function: $f:expr, role: $role:ident
    ) => {
        #[doc = concat!("Builds `", $opname, "` (operands broadcast), its result type inferred.")]
        pub fn $builder(b: &mut xcs_ir::Builder<'_>, $($operand: xcs_ir::Value),+) -> BuildResult {
            b.create1($Name::DEF.name, &[$($operand),+], &[])
        }
        op! {
            $(#[doc = $doc])*
            pub struct $Name = $opname in TENSOR_OPS {
                summary: $summary,
                operands: { $($operand: $cons),+ },
                results: { result: $rcons },
                traits: [Pure, Elementwise $(, $trait)*],
                fold: FOLD,
                infer: $infer,
                interfaces: [
                    dyn Elementwise => &$f,
                    dyn Semantics => &semantics::ELEMENTWISE,
                    dyn BatchingRule => &batching::ELEMENTWISE,
                    dyn CostRule => &cost::ELEMENTWISE,
                    dyn LoopStructure => &loops::ELEMENTWISE,
                    FusionRole => &FusionRole::$role,
                ],
            }
        }
    };
}

/// Elementwise ops of two operands (`lhs`, `rhs`) with numpy broadcasting.
macro_rules! binary_ops {
    ($($(#[doc = $doc:literal])* $Name:ident = $opname:literal / $builder:ident, $summary:literal, $f:ident, $role:ident, [$($trait:ident),*];)*) => {$(
        elementwise_op! {
            /// Elementwise binary op with numpy broadcasting of `lhs` and `rhs`; both have the
            /// same element type, the result has the broadcast shape. Folds when both operands
            /// are constants.
            $(#[doc = $doc])*
            $Name = $opname / $builder (lhs, rhs), $summary,
            operand: NUMERIC_TENSOR, result: NUMERIC_TENSOR,
            traits: [SameOperandsAndResultElementType $(, $trait)*], infer: infer_broadcast,
            function: ElementwiseFn::Binary(BinaryFn::$f), role: $role
        }
    )*};
}
binary_ops! {
    /// Also folds `x + 0` and `0 + x` to `x` for integers, and `x + -0.0`, `-0.0 + x` for
    /// floats, when the result has `x`'s type (the constant does not broadcast `x`);
    /// `x + 0.0` is not `x` for floats (`-0.0 + 0.0 = 0.0`).
    AddOp = "tensor.add" / add, "Elementwise addition", Add, CHEAP, [Commutative];
    /// Also folds `x - 0` (integer `0`, float `0.0`) to `x` when the result has `x`'s type.
    SubOp = "tensor.sub" / sub, "Elementwise subtraction", Sub, CHEAP, [];
    /// Also folds `x * 1` and `1 * x` to `x` when the result has `x`'s type, and for integers
    /// only `x * 0` and `0 * x` to `0` (for floats it is not `0`: `NaN * 0` and `inf * 0` are
    /// NaN, `-1.0 * 0.0` is `-0.0`).
    MulOp = "tensor.mul" / mul, "Elementwise multiplication", Mul, CHEAP, [Commutative];
    /// Also folds `x / 1` to `x` when the result has `x`'s type. Integer division by a
    /// constant zero is not folded: it stays a run-time error.
    DivOp = "tensor.div" / div, "Elementwise division (integers: truncates toward zero, like C and StableHLO, not numpy's floor; by zero is a run-time error)", Div, EXPENSIVE, [];
    /// Floats: a NaN operand gives NaN and -0.0 is below +0.0 (IEEE 754-2019 `maximum`), so the
    /// operands commute.
    MaxOp = "tensor.max" / max, "Elementwise maximum", Max, CHEAP, [Commutative];
    /// Floats: a NaN operand gives NaN and -0.0 is below +0.0 (IEEE 754-2019 `minimum`), so the
    /// operands commute.
    MinOp = "tensor.min" / min, "Elementwise minimum", Min, CHEAP, [Commutative];
    /// A negative constant integer exponent is not folded (a run-time error).
    PowOp = "tensor.pow" / pow, "Elementwise power (integers: a negative exponent is a run-time error)", Pow, EXPENSIVE, [];
    /// numpy's `remainder` (`np.remainder`, Python's `%`): `x - floor(x / y) * y`, so a nonzero
    /// result has the divisor's sign and a zero one is `+0.0` or `-0.0` as `y`. Floats: `y = 0`,
    /// `x = ±inf` or a NaN give NaN, a finite `x` with `y = ±inf` gives `x` (same signs) or `y`.
    /// Integers: division by zero is a run-time error, as for `tensor.div`.
    RemOp = "tensor.rem" / rem, "Elementwise remainder with the divisor's sign (np.remainder)", Rem, EXPENSIVE, [];
}

/// Elementwise ops of three operands with numpy broadcasting of all three.
macro_rules! ternary_ops {
    ($($(#[doc = $doc:literal])* $Name:ident = $opname:literal / $builder:ident ($a:ident, $b:ident, $c:ident), $summary:literal, $f:ident, $role:ident, [$($trait:ident),*];)*) => {$(
        elementwise_op! {
            /// Elementwise op of three operands of one element type with numpy broadcasting of
            /// all three; the result has the broadcast shape. Folds when all are constants.
            $(#[doc = $doc])*
            $Name = $opname / $builder ($a, $b, $c), $summary,
            operand: NUMERIC_TENSOR, result: NUMERIC_TENSOR,
            traits: [SameOperandsAndResultElementType $(, $trait)*], infer: infer_broadcast,
            function: ElementwiseFn::Ternary(TernaryFn::$f), role: $role
        }
    )*};
}

/// Elementwise ops of one operand `x`; the result has its type.
macro_rules! unary_ops {
    ($($(#[doc = $doc:literal])* $Name:ident = $opname:literal / $builder:ident, $summary:literal, $cons:ident, $f:ident, $role:ident, [$($trait:ident),*];)*) => {$(
        elementwise_op! {
            /// Elementwise unary op; the result has the operand's type. Folds a constant
            /// operand.
            $(#[doc = $doc])*
            $Name = $opname / $builder (x), $summary,
            operand: $cons, result: $cons,
            traits: [SameOperandsAndResultType $(, $trait)*], infer: infer_same,
            function: ElementwiseFn::Unary(UnaryFn::$f), role: $role
        }
    )*};
}

unary_ops! {
    /// Also folds `neg(neg(x))` to `x` (an involution).
    NegOp = "tensor.neg" / neg, "Elementwise negation", NUMERIC_TENSOR, Neg, CHEAP, [Involution];
    /// Also folds `abs(abs(x))` to `abs(x)` (idempotent).
    AbsOp = "tensor.abs" / abs, "Elementwise absolute value", NUMERIC_TENSOR, Abs, CHEAP, [Idempotent];
    /// Also folds `relu(relu(x))` to `relu(x)` (idempotent).
    ReluOp = "tensor.relu" / relu, "Elementwise max(x, 0)", NUMERIC_TENSOR, Relu, CHEAP, [Idempotent];
    ExpOp = "tensor.exp" / exp, "Elementwise exponential", FLOAT_TENSOR, Exp, EXPENSIVE, [];
    LogOp = "tensor.log" / log, "Elementwise natural logarithm", FLOAT_TENSOR, Log, EXPENSIVE, [];
    TanhOp = "tensor.tanh" / tanh, "Elementwise hyperbolic tangent", FLOAT_TENSOR, Tanh, EXPENSIVE, [];
    SigmoidOp = "tensor.sigmoid" / sigmoid, "Elementwise logistic sigmoid 1/(1+exp(-x))", FLOAT_TENSOR, Sigmoid, EXPENSIVE, [];
    SiluOp = "tensor.silu" / silu, "Elementwise x*sigmoid(x)", FLOAT_TENSOR, Silu, EXPENSIVE, [];
    SqrtOp = "tensor.sqrt" / sqrt, "Elementwise square root", FLOAT_TENSOR, Sqrt, EXPENSIVE, [];
    RsqrtOp = "tensor.rsqrt" / rsqrt, "Elementwise reciprocal square root", FLOAT_TENSOR, Rsqrt, EXPENSIVE, [];
    SinOp = "tensor.sin" / sin, "Elementwise sine", FLOAT_TENSOR, Sin, EXPENSIVE, [];
    CosOp = "tensor.cos" / cos, "Elementwise cosine", FLOAT_TENSOR, Cos, EXPENSIVE, [];
    ErfOp = "tensor.erf" / erf, "Elementwise error function", FLOAT_TENSOR, Erf, EXPENSIVE, [];
    /// Integers: the identity (as numpy's).
    FloorOp = "tensor.floor" / floor, "Elementwise floor", NUMERIC_TENSOR, Floor, CHEAP, [Idempotent];
    /// Integers: the identity (as numpy's).
    CeilOp = "tensor.ceil" / ceil, "Elementwise ceiling", NUMERIC_TENSOR, Ceil, CHEAP, [Idempotent];
    /// Halves go to the even neighbour (`np.round`); `-0.4` gives `-0.0`. Integers: the identity.
    RoundOp = "tensor.round" / round, "Elementwise rounding to the nearest integer, halves to even", NUMERIC_TENSOR, Round, CHEAP, [Idempotent];
    /// `1`, `-1` or `0` (`np.sign`): NaN stays NaN, `-0.0` and `+0.0` give `+0.0`.
    SignOp = "tensor.sign" / sign, "Elementwise sign", NUMERIC_TENSOR, Sign, CHEAP, [Idempotent];
}

ternary_ops! {
    /// `np.clip(x, lo, hi)`: `minimum(maximum(x, lo), hi)` with numpy's `maximum` and `minimum`:
    /// a NaN operand gives NaN, and of equal values the bound is kept, so `x = -0.0` against
    /// `lo = +0.0` gives `+0.0`, as numpy's ufuncs and `np.clip` with array bounds do (numpy's
    /// loop for scalar bounds keeps `x` there); where `lo > hi` the result is `hi`.
    ClampOp = "tensor.clamp" / clamp(x, lo, hi), "Elementwise clamp to [lo, hi] (np.clip)", Clamp, CHEAP, [];
}

op! {
    /// GELU: `approximate = "none"` is the exact erf form `0.5*x*(1+erf(x/sqrt(2)))`,
    /// `"tanh"` the tanh form `0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))`.
    pub struct GeluOp = "tensor.gelu" in TENSOR_OPS {
        summary: "Elementwise GELU",
        operands: { x: FLOAT_TENSOR },
        results: { result: FLOAT_TENSOR },
        attributes: { approximate: APPROXIMATE_ATTR },
        traits: [Pure, Elementwise, SameOperandsAndResultType],
        fold: FOLD,
        infer: infer_same,
        interfaces: [
            dyn Elementwise => &GeluFn,
            dyn Semantics => &semantics::ELEMENTWISE,
            dyn BatchingRule => &batching::ELEMENTWISE,
            dyn CostRule => &cost::GELU,
            dyn LoopStructure => &loops::ELEMENTWISE,
            FusionRole => &FusionRole::EXPENSIVE,
        ],
    }
}

op! {
    /// Elementwise comparison with broadcasting; the result is `i1`. `predicate` is one of
    /// `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
    pub struct CmpOp = "tensor.cmp" in TENSOR_OPS {
        summary: "Elementwise comparison",
        operands: { lhs: TENSOR, rhs: TENSOR },
        results: { result: BOOL_TENSOR },
        attributes: { predicate: PREDICATE_ATTR },
        traits: [Pure, Elementwise],
        fold: FOLD,
        infer: infer_cmp,
        interfaces: [
            dyn Elementwise => &CompareFn,
            dyn Semantics => &semantics::ELEMENTWISE,
            dyn BatchingRule => &batching::ELEMENTWISE,
            dyn CostRule => &cost::CMP,
            dyn LoopStructure => &loops::ELEMENTWISE,
            FusionRole => &FusionRole::CHEAP,
        ],
    }
}

op! {
    /// `cond ? a : b` elementwise, with `cond`, `a` and `b` broadcast together. Folds constant
    /// operands, and a splat constant `cond` to `a` (true) or `b` (false) when that operand has
    /// the result type.
    pub struct SelectOp = "tensor.select" in TENSOR_OPS {
        summary: "Elementwise select",
        operands: { cond: BOOL_TENSOR, a: TENSOR, b: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        fold: FOLD,
        infer: infer_select,
        interfaces: [
            dyn Elementwise => &ElementwiseFn::Select,
            dyn Semantics => &semantics::ELEMENTWISE,
            dyn BatchingRule => &batching::ELEMENTWISE,
            dyn CostRule => &cost::SELECT,
            dyn LoopStructure => &loops::ELEMENTWISE,
            FusionRole => &FusionRole::CHEAP,
        ],
    }
}

op! {
    /// Converts each element to the result's element type (same shape). Float to float rounds
    /// to nearest-even; float to integer truncates toward zero and saturates at the integer
    /// type's bounds (NaN becomes 0); integer to integer wraps (keeps the low bits); integer to
    /// float rounds to nearest; number to i1 is `x != 0` (NaN is true); i1 to number is 0 or 1.
    /// Folds a constant operand, and a cast to the operand's own type to the operand.
    pub struct CastOp = "tensor.cast" in TENSOR_OPS {
        summary: "Elementwise element-type conversion",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        verify: verify_cast,
        fold: FOLD,
        interfaces: [
            dyn Elementwise => &ElementwiseFn::Cast,
            dyn Semantics => &semantics::ELEMENTWISE,
            dyn BatchingRule => &batching::ELEMENTWISE,
            dyn CostRule => &cost::CAST,
            dyn LoopStructure => &loops::ELEMENTWISE,
            FusionRole => &FusionRole::CHEAP,
        ],
    }
}

op! {
    /// Matrix product of the last two dims: `[..., M, K] x [..., K, N] -> [..., M, N]`; the
    /// leading (batch) dims broadcast.
    pub struct MatmulOp = "tensor.matmul" in TENSOR_OPS {
        summary: "(Batched) matrix multiplication",
        operands: { lhs: NUMERIC_TENSOR, rhs: NUMERIC_TENSOR },
        results: { result: NUMERIC_TENSOR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_matmul,
        interfaces: [
            dyn Semantics => &semantics::MATMUL,
            dyn BatchingRule => &batching::MATMUL,
            dyn CostRule => &cost::MATMUL,
            dyn LoopStructure => &loops::MATMUL,
            FusionRole => &FusionRole::MatmulEpilogue,
        ],
    }
}

op! {
    /// Einstein summation over the operands, e.g. `equation = "bij,bjk->bik"`. Without `->`,
    /// the output is the labels that appear once, sorted (numpy's implicit mode).
    pub struct EinsumOp = "tensor.einsum" in TENSOR_OPS {
        summary: "Einstein summation",
        operands: { #[variadic] inputs: NUMERIC_TENSOR },
        results: { result: NUMERIC_TENSOR },
        attributes: { equation: STR_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_einsum,
        interfaces: [
            dyn Semantics => &semantics::EINSUM,
            dyn BatchingRule => &batching::EINSUM,
            dyn CostRule => &cost::EINSUM,
            dyn LoopStructure => &loops::EINSUM,
        ],
    }
}

op! {
    /// Reduces `axes` with `kind` (`sum`, `max`, `min`, `mean`, `prod`); `keepdims` keeps
    /// reduced dims as size 1. Integer `mean` is the exact sum divided by the count, truncated
    /// toward zero; `max`/`min` of an empty axis is a run-time error.
    pub struct ReduceOp = "tensor.reduce" in TENSOR_OPS {
        summary: "Reduction over axes",
        operands: { x: NUMERIC_TENSOR },
        results: { result: NUMERIC_TENSOR },
        attributes: { kind: REDUCE_KIND_ATTR, axes: DENSE_I64_ARRAY_ATTR, keepdims: BOOL_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_reduce,
        interfaces: [
            dyn Semantics => &semantics::REDUCE,
            dyn BatchingRule => &batching::REDUCE,
            dyn CostRule => &cost::REDUCE,
            dyn LoopStructure => &loops::REDUCE,
            dyn SplitReduction => &partition::REDUCE,
            FusionRole => &FusionRole::Reduction,
        ],
    }
}

op! {
    /// `exp(x - max) / sum(exp(x - max))` along `axis`.
    pub struct SoftmaxOp = "tensor.softmax" in TENSOR_OPS {
        summary: "Softmax along an axis",
        operands: { x: FLOAT_TENSOR },
        results: { result: FLOAT_TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure, SameOperandsAndResultType],
        fold: FOLD,
        infer: infer_softmax,
        interfaces: [
            dyn Semantics => &semantics::SOFTMAX,
            dyn BatchingRule => &batching::SOFTMAX,
            dyn CostRule => &cost::SOFTMAX,
            dyn LoopStructure => &loops::SOFTMAX,
            FusionRole => &FusionRole::Reduction,
        ],
    }
}

op! {
    /// Normalizes over the dims from `axis` to the last: `(x - mean) / sqrt(var + epsilon) *
    /// gamma + beta`, where `gamma` and `beta` have the shape of the normalized dims.
    pub struct LayerNormOp = "tensor.layer_norm" in TENSOR_OPS {
        summary: "Layer normalization",
        operands: { x: FLOAT_TENSOR, gamma: FLOAT_TENSOR, beta: FLOAT_TENSOR },
        results: { result: FLOAT_TENSOR },
        attributes: { axis: I64_ATTR, epsilon: EPSILON_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_layer_norm,
        interfaces: [
            dyn Semantics => &semantics::LAYER_NORM,
            dyn BatchingRule => &batching::LAYER_NORM,
            dyn CostRule => &cost::LAYER_NORM,
            dyn LoopStructure => &loops::LAYER_NORM,
            FusionRole => &FusionRole::Reduction,
        ],
    }
}

op! {
    /// Permutes the dims: result dim `i` is operand dim `perm[i]`. Folds a constant operand, the
    /// identity permutation, and `transpose(transpose(x, p1), p2)` to `x` when the permutations
    /// compose to the identity; otherwise the pattern `tensor-compose-transposes` makes it one
    /// `transpose(x, q)` with `q[i] = p1[p2[i]]`.
    pub struct TransposeOp = "tensor.transpose" in TENSOR_OPS {
        summary: "Dimension permutation",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        attributes: { perm: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        fold: FOLD,
        patterns: fold::TRANSPOSE_PATTERNS,
        infer: infer_transpose,
        interfaces: [
            dyn Semantics => &semantics::TRANSPOSE,
            dyn BatchingRule => &batching::TRANSPOSE,
            dyn CostRule => &cost::TRANSPOSE,
            dyn LoopStructure => &loops::TRANSPOSE,
        ],
    }
}

op! {
    /// Reinterprets the elements (row-major) with the result type's shape; the element counts
    /// must agree. Folds a constant operand and a reshape to the operand's own type; the pattern
    /// `tensor-combine-reshapes` makes `reshape(reshape(x))` one reshape of `x` (and `x` itself
    /// when that has the result type).
    pub struct ReshapeOp = "tensor.reshape" in TENSOR_OPS {
        summary: "Shape change keeping the elements",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify_reshape,
        fold: FOLD,
        patterns: fold::RESHAPE_PATTERNS,
        interfaces: [
            dyn Semantics => &semantics::RESHAPE,
            dyn BatchingRule => &batching::RESHAPE,
            dyn CostRule => &cost::RESHAPE,
        ],
    }
}

op! {
    /// Broadcasts `x` (numpy rules) to the result type's shape. Folds a constant operand, and a
    /// broadcast of a value that already has the result type to that value.
    pub struct BroadcastToOp = "tensor.broadcast_to" in TENSOR_OPS {
        summary: "Explicit broadcast",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify_broadcast_to,
        fold: FOLD,
        interfaces: [
            dyn Semantics => &semantics::BROADCAST_TO,
            dyn BatchingRule => &batching::BROADCAST_TO,
            dyn CostRule => &cost::BROADCAST_TO,
            FusionRole => &FusionRole::CHEAP,
        ],
    }
}

op! {
    /// Takes elements `start[d] <= i < limit[d]` with step `stride[d]` in each dim `d`.
    pub struct SliceOp = "tensor.slice" in TENSOR_OPS {
        summary: "Strided static slice",
        operands: { x: TENSOR },
        results: { result: TENSOR },
        attributes: { start: DENSE_I64_ARRAY_ATTR, limit: DENSE_I64_ARRAY_ATTR, stride: DENSE_I64_ARRAY_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_slice,
        interfaces: [
            dyn Semantics => &semantics::SLICE,
            dyn BatchingRule => &batching::SLICE,
            dyn CostRule => &cost::SLICE,
        ],
    }
}

op! {
    /// Joins the operands along `axis`; all other dims must agree.
    pub struct ConcatOp = "tensor.concat" in TENSOR_OPS {
        summary: "Concatenation along an axis",
        operands: { #[variadic] inputs: TENSOR },
        results: { result: TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        fold: FOLD,
        infer: infer_concat,
        interfaces: [
            dyn Semantics => &semantics::CONCAT,
            dyn BatchingRule => &batching::CONCAT,
            dyn CostRule => &cost::CONCAT,
        ],
    }
}

op! {
    /// Gathers slices of `table` along `axis` at `indices`: the result has the table's dims
    /// with `axis` replaced by the indices' dims (numpy `take`). Valid indices are
    /// `0 <= i < size`; others (negative ones too, unlike numpy) are a run-time error.
    pub struct GatherOp = "tensor.gather" in TENSOR_OPS {
        summary: "Gather along an axis",
        operands: { table: TENSOR, indices: INDEX_TENSOR },
        results: { result: TENSOR },
        attributes: { axis: I64_ATTR },
        traits: [Pure],
        fold: FOLD,
        infer: infer_gather,
        interfaces: [
            dyn Semantics => &semantics::GATHER,
            dyn BatchingRule => &batching::GATHER,
            dyn CostRule => &cost::GATHER,
        ],
    }
}

op! {
    /// A fused computation: one region whose entry block takes the inputs and ends in
    /// `tensor.yield` of the results. Produced by the `fuse` pass and lowered as one loop nest.
    pub struct FusedOp = "tensor.fused" in TENSOR_OPS {
        summary: "Fused region of tensor ops",
        operands: { #[variadic] inputs: TENSOR },
        results: { #[variadic] results: TENSOR },
        regions: { body: 1 },
        traits: [IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects],
        verify: verify_fused,
        interfaces: [
            dyn Semantics => &semantics::FUSED,
        ],
    }
}

op! {
    /// Terminates a `tensor.fused` region with its results.
    pub struct YieldOp = "tensor.yield" in TENSOR_OPS {
        summary: "Fused region terminator",
        operands: { #[variadic] values: ANY_TYPE },
        traits: [Pure, Terminator, ReturnLike],
        verify: verify_yield,
    }
}

xcs_ir::op_list!(pub TENSOR_OPS);

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
    ops: xcs_ir::opdef::OpList::Collected(&TENSOR_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: Some(materialize),
};

fn materialize(ctx: &Context, body: &mut Body, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    match ctx.attr_kind(value) {
        AttrKind::DenseElements { ty: vt, .. } if *vt == ty => {}
        _ => return None,
    }
    let st = OperationState::of(ctx, ConstantOp::DEF, loc).results(&[ty]).attr(ctx, "value", value);
    Some(body.create_op(st))
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
    if let Some((i, at, t)) = first_type_mismatch(args.iter().map(|&a| body.value_type(a)), &inputs) {
        return Err(v.error(format!(
            "body block argument #{i} has type '{}', but operand #{i} has type '{}'",
            v.ty(at),
            v.ty(t)
        )));
    }
    // A body that does not end in `tensor.yield` is reported by the terminator checks.
    let Some(term) = body.last_op(entry).filter(|&t| YieldOp::cast(v.ctx, body, t).is_some()) else {
        return Ok(());
    };
    let yielded = body.operand_types(term);
    let results = v.result_types();
    if yielded.len() != results.len() {
        return Err(v.error(format!("body yields {} values, but the op has {} results", yielded.len(), results.len())));
    }
    if let Some((j, y, r)) = first_type_mismatch(yielded.iter().copied(), &results) {
        return Err(v.error(format!("yielded value #{j} has type '{}', but result #{j} has type '{}'", v.ty(y), v.ty(r))));
    }
    Ok(())
}

fn verify_yield(v: &OpView) -> Result<(), Diagnostic> {
    if v.body.parent_op(v.op).is_some() || !FusedOp::matches(v.ctx, v.body.name()) {
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
