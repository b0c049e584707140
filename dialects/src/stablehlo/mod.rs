//! A registered subset of StableHLO (and `chlo`, in [`chlo`]): the ops JAX's exports of real
//! models use, verified and with typed views, so `convert-stablehlo-to-tensor` is written against
//! ops, not names. The ops keep StableHLO's generic form (`"stablehlo.add"(%a, %b) : ...`),
//! which is what `get_asm(print_generic_op_form=True)` writes; they have no interpreter semantics
//! of their own: the conversion gives them meaning. Upstream: openxla/stablehlo `StablehloOps.td`.

use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, DialectDef, OpView, Syntax, TypeConstraint};
use xcs_ir::{op, Diagnostic};

use crate::shape::{ranked, shape_str};

mod attrs;
pub mod chlo;
pub mod gspmd;
pub mod sdy;

pub use attrs::{comparison_direction, compare_type, DotDims, GatherDims, STABLEHLO_ATTRS};

/// A ranked tensor of any element type (the conversion rejects element types XCS lacks).
pub const TENSOR: TypeConstraint = RANKED_TENSOR;
/// A 0-d tensor of an integer type (dynamic slice starts, the `case` index).
pub const SCALAR_INT_TENSOR: TypeConstraint = TypeConstraint {
    desc: "0-d tensor of integer values",
    check: |c, t| ranked(c, t).is_some_and(|(s, e)| s.is_empty() && c.is_integer(e)),
};

pub const DOT_DIMS_ATTR: AttrConstraint =
    AttrConstraint { desc: "#stablehlo.dot dimension numbers", check: |c, a| attrs::is_attr(c, a, "dot", false) };
pub const GATHER_DIMS_ATTR: AttrConstraint =
    AttrConstraint { desc: "#stablehlo.gather dimension numbers", check: |c, a| attrs::is_attr(c, a, "gather", false) };
pub const DIRECTION_ATTR: AttrConstraint = AttrConstraint {
    desc: "#stablehlo<comparison_direction ...>",
    check: |c, a| attrs::is_attr(c, a, "comparison_direction", true),
};
pub const COMPARE_TYPE_ATTR: AttrConstraint = AttrConstraint {
    desc: "#stablehlo<comparison_type ...>",
    check: |c, a| attrs::is_attr(c, a, "comparison_type", true),
};
pub const PRECISION_CONFIG_ATTR: AttrConstraint = AttrConstraint {
    desc: "array of #stablehlo<precision ...>",
    check: |c, a| c.as_array(a).is_some_and(|v| v.iter().all(|&p| attrs::is_attr(c, p, "precision", true))),
};

/// Elementwise StableHLO ops: one declaration per line, all with the same operands and the
/// operands' type as the result (`SameOperandsAndResultType`).
macro_rules! elementwise_ops {
    ($( $Name:ident = $opname:literal ($($operand:ident),+), $summary:literal; )*) => {$(
        op! {
            /// StableHLO's elementwise op of this name: operands and result have one type.
            pub struct $Name = $opname in STABLEHLO_OPS {
                summary: $summary,
                operands: { $($operand: TENSOR),+ },
                results: { result: TENSOR },
                traits: [Pure, Elementwise, SameOperandsAndResultType],
                syntax: Syntax::Generic,
            }
        }
    )*};
}

elementwise_ops! {
    AddOp = "stablehlo.add" (lhs, rhs), "Addition";
    SubtractOp = "stablehlo.subtract" (lhs, rhs), "Subtraction";
    MultiplyOp = "stablehlo.multiply" (lhs, rhs), "Multiplication";
    DivideOp = "stablehlo.divide" (lhs, rhs), "Division (integers: truncating)";
    MaximumOp = "stablehlo.maximum" (lhs, rhs), "Maximum";
    MinimumOp = "stablehlo.minimum" (lhs, rhs), "Minimum";
    PowerOp = "stablehlo.power" (lhs, rhs), "Power";
    RemainderOp = "stablehlo.remainder" (lhs, rhs), "Remainder with the dividend's sign (C's fmod and %)";
    AndOp = "stablehlo.and" (lhs, rhs), "Logical (i1) or bitwise and";
    OrOp = "stablehlo.or" (lhs, rhs), "Logical (i1) or bitwise or";
    XorOp = "stablehlo.xor" (lhs, rhs), "Logical (i1) or bitwise xor";
    NegateOp = "stablehlo.negate" (operand), "Negation";
    AbsOp = "stablehlo.abs" (operand), "Absolute value";
    ExpOp = "stablehlo.exponential" (operand), "Exponential";
    Expm1Op = "stablehlo.exponential_minus_one" (operand), "exp(x) - 1";
    LogOp = "stablehlo.log" (operand), "Natural logarithm";
    Log1pOp = "stablehlo.log_plus_one" (operand), "log(1 + x)";
    TanhOp = "stablehlo.tanh" (operand), "Hyperbolic tangent";
    LogisticOp = "stablehlo.logistic" (operand), "Logistic sigmoid";
    SqrtOp = "stablehlo.sqrt" (operand), "Square root";
    RsqrtOp = "stablehlo.rsqrt" (operand), "Reciprocal square root";
    SineOp = "stablehlo.sine" (operand), "Sine";
    CosineOp = "stablehlo.cosine" (operand), "Cosine";
    FloorOp = "stablehlo.floor" (operand), "Floor";
    CeilOp = "stablehlo.ceil" (operand), "Ceiling";
    RoundEvenOp = "stablehlo.round_nearest_even" (operand), "Rounding to nearest, halves to even";
    SignOp = "stablehlo.sign" (operand), "Sign";
    NotOp = "stablehlo.not" (operand), "Logical (i1) or bitwise not";
}

op! {
    /// `min <= operand <= max` elementwise; `min` and `max` have the operand's type or are 0-d.
    pub struct ClampOp = "stablehlo.clamp" in STABLEHLO_OPS {
        summary: "Clamp",
        operands: { min: TENSOR, operand: TENSOR, max: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        syntax: Syntax::Generic,
    }
}

op! {
    /// `pred ? on_true : on_false` elementwise; `pred` is i1 of the result's shape or 0-d.
    pub struct SelectOp = "stablehlo.select" in STABLEHLO_OPS {
        summary: "Select",
        operands: { pred: TENSOR, on_true: TENSOR, on_false: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Elementwise comparison in `comparison_direction`; the result is i1.
    pub struct CompareOp = "stablehlo.compare" in STABLEHLO_OPS {
        summary: "Comparison",
        operands: { lhs: TENSOR, rhs: TENSOR },
        results: { result: TENSOR },
        attributes: { comparison_direction: DIRECTION_ATTR, #[optional] compare_type: COMPARE_TYPE_ATTR },
        traits: [Pure, Elementwise, SameTypeOperands],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Converts each element to the result's element type (same shape).
    pub struct ConvertOp = "stablehlo.convert" in STABLEHLO_OPS {
        summary: "Element type conversion",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise],
        verify: verify_same_shape,
        syntax: Syntax::Generic,
    }
}

op! {
    /// A constant tensor (`value`, of the result's type).
    pub struct ConstantOp = "stablehlo.constant" in STABLEHLO_OPS {
        summary: "Constant",
        results: { output: TENSOR },
        attributes: { value: ELEMENTS_ATTR },
        traits: [Pure, ConstantLike],
        syntax: Syntax::Generic,
    }
}

op! {
    /// `0, 1, 2, ...` along `iota_dimension` of the result, repeated along the other dims.
    pub struct IotaOp = "stablehlo.iota" in STABLEHLO_OPS {
        summary: "Index sequence",
        results: { output: TENSOR },
        attributes: { iota_dimension: I64_ATTR },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Operand dim `i` becomes result dim `broadcast_dimensions[i]` (size 1 or the result's);
    /// the other result dims repeat it.
    pub struct BroadcastInDimOp = "stablehlo.broadcast_in_dim" in STABLEHLO_OPS {
        summary: "Broadcast into given result dims",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        attributes: { broadcast_dimensions: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        verify: verify_broadcast_in_dim,
        syntax: Syntax::Generic,
    }
}

op! {
    /// Same elements (row-major) in the result's shape.
    pub struct ReshapeOp = "stablehlo.reshape" in STABLEHLO_OPS {
        summary: "Reshape",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Result dim `i` is operand dim `permutation[i]`.
    pub struct TransposeOp = "stablehlo.transpose" in STABLEHLO_OPS {
        summary: "Transpose",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        attributes: { permutation: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Joins the inputs along `dimension`.
    pub struct ConcatenateOp = "stablehlo.concatenate" in STABLEHLO_OPS {
        summary: "Concatenation",
        operands: { #[variadic] inputs: TENSOR },
        results: { result: TENSOR },
        attributes: { dimension: I64_ATTR },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Static strided slice.
    pub struct SliceOp = "stablehlo.slice" in STABLEHLO_OPS {
        summary: "Slice",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        attributes: { start_indices: DENSE_I64_ARRAY_ATTR, limit_indices: DENSE_I64_ARRAY_ATTR, strides: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

op! {
    /// A slice of `slice_sizes` at run-time starts (one 0-d integer tensor per dim), each
    /// clamped to `[0, dim - size]`.
    pub struct DynamicSliceOp = "stablehlo.dynamic_slice" in STABLEHLO_OPS {
        summary: "Dynamic slice",
        operands: { operand: TENSOR, #[variadic] start_indices: SCALAR_INT_TENSOR },
        results: { result: TENSOR },
        attributes: { slice_sizes: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        verify: verify_start_count,
        syntax: Syntax::Generic,
    }
}

op! {
    /// `operand` with `update` written at run-time starts, each clamped to `[0, dim - size]`.
    pub struct DynamicUpdateSliceOp = "stablehlo.dynamic_update_slice" in STABLEHLO_OPS {
        summary: "Dynamic update slice",
        operands: { operand: TENSOR, update: TENSOR, #[variadic] start_indices: SCALAR_INT_TENSOR },
        results: { result: TENSOR },
        traits: [Pure],
        verify: verify_start_count,
        syntax: Syntax::Generic,
    }
}

op! {
    /// Dot product with batch and contracting dims (`#stablehlo.dot<...>`); the result has the
    /// batch dims, then lhs's free dims, then rhs's.
    pub struct DotGeneralOp = "stablehlo.dot_general" in STABLEHLO_OPS {
        summary: "General dot product",
        operands: { lhs: TENSOR, rhs: TENSOR },
        results: { result: TENSOR },
        attributes: {
            dot_dimension_numbers: DOT_DIMS_ATTR,
            #[optional] precision_config: PRECISION_CONFIG_ATTR,
        },
        traits: [Pure],
        verify: verify_dot_general,
        syntax: Syntax::Generic,
    }
}

op! {
    /// StableHLO's gather (`#stablehlo.gather<...>`, `slice_sizes`); start indices are clamped
    /// so that each slice lies in the operand.
    pub struct GatherOp = "stablehlo.gather" in STABLEHLO_OPS {
        summary: "Gather",
        operands: { operand: TENSOR, start_indices: TENSOR },
        results: { result: TENSOR },
        attributes: {
            dimension_numbers: GATHER_DIMS_ATTR,
            slice_sizes: DENSE_I64_ARRAY_ATTR,
            #[optional] indices_are_sorted: BOOL_ATTR,
        },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Reduces `dimensions` of the inputs with the body (`(acc, x) -> acc`), starting from the
    /// init values: the operands are the N inputs, then their N init values.
    pub struct ReduceOp = "stablehlo.reduce" in STABLEHLO_OPS {
        summary: "Reduction",
        operands: { #[variadic] operands: TENSOR },
        results: { #[variadic] results: TENSOR },
        attributes: { dimensions: DENSE_I64_ARRAY_ATTR },
        regions: { body: 1 },
        traits: [RecursiveMemoryEffects],
        verify: verify_reduce,
        syntax: Syntax::Generic,
    }
}

op! {
    /// Runs `body` while `cond` (ending in `stablehlo.return` of a 0-d i1) holds; both regions
    /// take the loop-carried values, `body` returns the next ones.
    pub struct WhileOp = "stablehlo.while" in STABLEHLO_OPS {
        summary: "While loop",
        operands: { #[variadic] operands: TENSOR },
        results: { #[variadic] results: TENSOR },
        regions: { cond: 1, body: 1 },
        traits: [RecursiveMemoryEffects],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Runs the branch numbered `index` (the last one if `index` is out of range) and returns
    /// what it returns.
    pub struct CaseOp = "stablehlo.case" in STABLEHLO_OPS {
        summary: "Multi-way branch",
        operands: { index: SCALAR_INT_TENSOR },
        results: { #[variadic] results: TENSOR },
        regions: { #[variadic] branches: 1 },
        traits: [RecursiveMemoryEffects],
        syntax: Syntax::Generic,
    }
}

op! {
    /// Runs `true_branch` if `pred` (0-d i1) holds, else `false_branch`.
    pub struct IfOp = "stablehlo.if" in STABLEHLO_OPS {
        summary: "Conditional",
        operands: { pred: TENSOR },
        results: { #[variadic] results: TENSOR },
        regions: { true_branch: 1, false_branch: 1 },
        traits: [RecursiveMemoryEffects],
        syntax: Syntax::Generic,
    }
}

op! {
    /// A call of a backend function by name. Only `@Sharding` is covered (GSPMD's
    /// `with_sharding_constraint`: its operand read in the op's `mhlo.sharding`);
    /// `convert-stablehlo-to-tensor` rejects every other target at its location.
    pub struct CustomCallOp = "stablehlo.custom_call" in STABLEHLO_OPS {
        summary: "Custom call",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] results: ANY_TYPE },
        attributes: {
            call_target_name: STR_ATTR,
            #[optional] api_version: INT_ATTR,
            #[optional] backend_config: ANY_ATTR,
            #[optional] called_computations: ARRAY_ATTR,
            #[optional] has_side_effect: BOOL_ATTR,
            #[optional] operand_layouts: ARRAY_ATTR,
            #[optional] result_layouts: ARRAY_ATTR,
            #[optional] output_operand_aliases: ARRAY_ATTR,
        },
        syntax: Syntax::Generic,
    }
}

op! {
    /// Ends a region of `reduce`, `while`, `case` or `if` with its values.
    pub struct ReturnOp = "stablehlo.return" in STABLEHLO_OPS {
        summary: "Region terminator",
        operands: { #[variadic] results: ANY_TYPE },
        traits: [Pure, Terminator, ReturnLike],
        syntax: Syntax::Generic,
    }
}

xcs_ir::op_list!(pub STABLEHLO_OPS);

pub static STABLEHLO_DIALECT: DialectDef = DialectDef {
    name: "stablehlo",
    summary: "The StableHLO ops JAX exports use (input of convert-stablehlo-to-tensor)",
    description: "A verified subset of OpenXLA's StableHLO, in its generic form, as JAX writes it \
(`jax.jit(f).lower(*args).compiler_ir(\"stablehlo\").operation.get_asm(print_generic_op_form=True)`). \
The ops have no semantics in XCS until `convert-stablehlo-to-tensor` turns them into `tensor`, \
`func` and `cf` ops; see docs/interop.md for what is covered.",
    ops: xcs_ir::opdef::OpList::Collected(&STABLEHLO_OPS),
    types: &[],
    attrs: STABLEHLO_ATTRS,
    materialize_constant: None,
};

// ---------------------------------------------------------------------------- verifiers

fn shape_of<'a>(v: &OpView<'a>, t: xcs_ir::Type) -> &'a [i64] {
    ranked(v.ctx, t).map_or(&[], |(s, _)| s)
}

fn verify_same_shape(v: &OpView) -> Result<(), Diagnostic> {
    let (a, b) = (shape_of(v, v.operand_type(0)), shape_of(v, v.result_type(0)));
    if a != b {
        return Err(v.error(format!("changes the shape from {} to {}", shape_str(a), shape_str(b))));
    }
    Ok(())
}

fn verify_broadcast_in_dim(v: &OpView) -> Result<(), Diagnostic> {
    let dims = v.attr("broadcast_dimensions").and_then(|a| v.ctx.as_i64_array(a)).unwrap_or_default();
    let (x, r) = (shape_of(v, v.operand_type(0)), shape_of(v, v.result_type(0)));
    if dims.len() != x.len() {
        return Err(v.error(format!("broadcast_dimensions has {} entries, but the operand has rank {}", dims.len(), x.len())));
    }
    for (i, &d) in dims.iter().enumerate() {
        let Some(&rd) = usize::try_from(d).ok().and_then(|d| r.get(d)) else {
            return Err(v.error(format!("broadcast dimension {d} is out of range for the result's rank {}", r.len())));
        };
        if x[i] != 1 && x[i] != rd {
            return Err(v.error(format!("operand dim {i} of size {} cannot be broadcast to result dim {d} of size {rd}", x[i])));
        }
    }
    Ok(())
}

fn verify_start_count(v: &OpView) -> Result<(), Diagnostic> {
    let rank = shape_of(v, v.operand_type(0)).len();
    let fixed = if DynamicUpdateSliceOp::matches(v.ctx, v.body.op_name(v.op)) { 2 } else { 1 };
    let starts = v.num_operands() - fixed;
    if starts != rank {
        return Err(v.error(format!("has {starts} start indices, but the operand has rank {rank}")));
    }
    Ok(())
}

fn verify_dot_general(v: &OpView) -> Result<(), Diagnostic> {
    let Some(d) = v.attr("dot_dimension_numbers").and_then(|a| DotDims::from_attr(v.ctx, a)) else {
        return Ok(()); // the attribute's constraint reports it
    };
    let (l, r) = (shape_of(v, v.operand_type(0)), shape_of(v, v.operand_type(1)));
    if d.lhs_batch.len() != d.rhs_batch.len() || d.lhs_contract.len() != d.rhs_contract.len() {
        return Err(v.error("lhs and rhs must have as many batching (and contracting) dimensions"));
    }
    for (side, dims, shape) in [("lhs", [&d.lhs_batch, &d.lhs_contract], l), ("rhs", [&d.rhs_batch, &d.rhs_contract], r)] {
        let mut seen = vec![false; shape.len()];
        for &x in dims.iter().flat_map(|v| v.iter()) {
            match usize::try_from(x).ok().filter(|&x| x < shape.len()) {
                Some(x) if !seen[x] => seen[x] = true,
                _ => return Err(v.error(format!("{side} dimension {x} is out of range or repeated (rank {})", shape.len()))),
            }
        }
    }
    for (a, b) in d.lhs_batch.iter().zip(&d.rhs_batch).chain(d.lhs_contract.iter().zip(&d.rhs_contract)) {
        if l[*a as usize] != r[*b as usize] {
            return Err(v.error(format!("lhs dim {a} (size {}) and rhs dim {b} (size {}) differ", l[*a as usize], r[*b as usize])));
        }
    }
    Ok(())
}

fn verify_reduce(v: &OpView) -> Result<(), Diagnostic> {
    let n = v.num_operands();
    if n % 2 != 0 || n / 2 != v.num_results() {
        return Err(v.error(format!("has {n} operands and {} results; expected N inputs, N init values and N results", v.num_results())));
    }
    Ok(())
}
