//! The `chlo` ops JAX leaves in its StableHLO exports (`jax.nn.gelu(approximate=False)` gives
//! `chlo.erfc`, `jax.scipy.special.erf` gives `chlo.erf`, `jnp.square` gives `chlo.square`): StableHLO's "client HLO" ops that
//! XLA decomposes late. Upstream: openxla/stablehlo `ChloOps.td`.

use xcs_ir::opdef::{DialectDef, Syntax};
use xcs_ir::op;

use super::TENSOR;

op! {
    /// The error function, elementwise.
    pub struct ErfOp = "chlo.erf" in CHLO_OPS {
        summary: "Error function",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise, SameOperandsAndResultType],
        syntax: Syntax::Generic,
    }
}

op! {
    /// The complementary error function `1 - erf(x)`, elementwise.
    pub struct ErfcOp = "chlo.erfc" in CHLO_OPS {
        summary: "Complementary error function",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise, SameOperandsAndResultType],
        syntax: Syntax::Generic,
    }
}

op! {
    /// `x * x`, elementwise (`jnp.square`, `x.var()`).
    pub struct SquareOp = "chlo.square" in CHLO_OPS {
        summary: "Square",
        operands: { operand: TENSOR },
        results: { result: TENSOR },
        traits: [Pure, Elementwise, SameOperandsAndResultType],
        syntax: Syntax::Generic,
    }
}

xcs_ir::op_list!(pub CHLO_OPS);

pub static CHLO_DIALECT: DialectDef = DialectDef {
    name: "chlo",
    summary: "The `chlo` ops JAX's StableHLO exports contain (input of convert-stablehlo-to-tensor)",
    description: "OpenXLA's client HLO ops that JAX leaves in exported modules; \
`convert-stablehlo-to-tensor` converts them with the `stablehlo` ops.",
    ops: xcs_ir::opdef::OpList::Collected(&CHLO_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};
