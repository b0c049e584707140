//! The `cf` dialect (unstructured control flow, as MLIR's): `cf.br` and `cf.cond_br`. Their
//! custom syntax matches mlir-opt's: `cf.br ^bb1(%a : i32)`,
//! `cf.cond_br %c, ^bb1(%a : i32), ^bb2`.

use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{DialectDef, OpView, SuccessorCount, SuccessorOperands, Syntax};
use xcs_ir::{op, Diagnostic};

op! {
    /// Branches to the successor block, passing the operands as its arguments.
    pub struct BranchOp = "cf.br" in CF_OPS {
        summary: "Branch operation",
        operands: { #[variadic] dest_operands: ANY_TYPE },
        successors: SuccessorCount::Exactly(1),
        successor_operands: SuccessorOperands::All,
        traits: [Pure, Terminator, BranchLike],
        patterns: crate::cf_patterns::BR_PATTERNS,
        syntax: Syntax::Custom { parse: crate::cf_syntax::parse_br, print: crate::cf_syntax::print_br },
    }
}

op! {
    /// Branches to the first successor if `condition` is true, else to the second, passing
    /// each its operand segment (`operandSegmentSizes = array<i32: 1, n, m>`). The optional
    /// `branch_weights` (one weight per successor) are a property, as in MLIR 22.
    pub struct CondBranchOp = "cf.cond_br" in CF_OPS {
        summary: "Conditional branch operation",
        operands: { condition: I1, #[variadic] dest_operands: ANY_TYPE },
        attributes: { operandSegmentSizes: DENSE_I32_ARRAY_ATTR, #[optional] branch_weights: DENSE_I32_ARRAY_ATTR },
        successors: SuccessorCount::Exactly(2),
        successor_operands: SuccessorOperands::Segments { leading: 1 },
        traits: [Pure, Terminator, BranchLike],
        verify: verify_cond_br,
        patterns: crate::cf_patterns::COND_BR_PATTERNS,
        syntax: Syntax::Custom { parse: crate::cf_syntax::parse_cond_br, print: crate::cf_syntax::print_cond_br },
    }
}

xcs_ir::op_list!(pub CF_OPS);

pub static CF_DIALECT: DialectDef = DialectDef {
    name: "cf",
    summary: "Unstructured control flow between blocks (MLIR's `cf` dialect subset)",
    description: "",
    ops: xcs_ir::opdef::OpList::Collected(&CF_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

fn verify_cond_br(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let seg = v.attr("operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    if seg.len() != 3 || seg[0] != 1 || seg.iter().any(|&s| s < 0) || seg.iter().sum::<i128>() != v.num_operands() as i128 {
        return Err(v.error(format!(
            "operand count ({}) does not match with the total size ({}) specified in attribute 'operandSegmentSizes'",
            v.num_operands(),
            seg.iter().sum::<i128>()
        )));
    }
    // MLIR's WeightedBranchOpInterface verifier (an empty list means no weights)
    let weights = v.attr("branch_weights").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    if !weights.is_empty() && weights.len() != 2 {
        return Err(v.error(format!(
            "expects number of branch weights to match number of successors: {} vs 2",
            weights.len()
        )));
    }
    Ok(())
}
