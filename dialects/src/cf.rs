//! The `cf` dialect (unstructured control flow, as MLIR's): `cf.br` and `cf.cond_br`. Their
//! custom syntax matches mlir-opt's: `cf.br ^bb1(%a : i32)`,
//! `cf.cond_br %c, ^bb1(%a : i32), ^bb2`. When run (their `Semantics`), they answer
//! `Control::Branch`: the successor the interpreter goes on in and its block arguments.

use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{DialectDef, OpView, SuccessorCount, SuccessorOperands, Syntax};
use xcs_ir::{op, Diagnostic};

use crate::interp::semantics::{Control, OpRun, Semantics};
use crate::interp::InterpError;

op! {
    /// Branches to the successor block, passing the operands as its arguments.
    pub struct BranchOp = "cf.br" in CF_OPS {
        summary: "Branch operation",
        operands: { #[variadic] dest_operands: ANY_TYPE },
        successors: SuccessorCount::Exactly(1),
        successor_operands: SuccessorOperands::All,
        traits: [Pure, Terminator, BranchLike],
        patterns: crate::cf_patterns::BR_PATTERNS,
        interfaces: [dyn Semantics => &BranchSemantics],
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
        interfaces: [dyn Semantics => &CondBranchSemantics],
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

/// What `cf.br` does when run: goes to its successor with the operands as block arguments.
pub struct BranchSemantics;

impl Semantics for BranchSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let dest = *run.body.successors(run.op).first().ok_or_else(|| run.error("has no successor"))?;
        Ok(Control::Branch(dest, run.operand_values()))
    }
}

/// What `cf.cond_br` does when run: goes to the first successor with the first operand
/// segment if the condition is true, else to the second with the second segment.
pub struct CondBranchSemantics;

impl Semantics for CondBranchSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let ctx = run.ctx;
        let vals = run.operands();
        let seg = run.body.attr(ctx, run.op, "operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a));
        let seg = seg.unwrap_or_default();
        let total = seg.iter().sum::<i128>();
        if seg.len() != 3 || seg.iter().any(|&s| s < 0) || total as usize != vals.len() || seg[0] != 1 {
            return Err(run.error("has an invalid 'operandSegmentSizes'"));
        }
        let (n_true, n_false) = (seg[1] as usize, seg[2] as usize);
        let cond = match vals[0].as_scalar() {
            Some(s) if s.width == 1 => s.value != 0,
            _ => return Err(run.error(format!("condition is a {}, not an i1", vals[0].type_string()))),
        };
        let succ = run.body.successors(run.op);
        if succ.len() != 2 {
            return Err(run.error("needs two successors"));
        }
        let (dest, range) = if cond { (succ[0], 1..1 + n_true) } else { (succ[1], 1 + n_true..1 + n_true + n_false) };
        Ok(Control::Branch(dest, vals[range].iter().map(|v| (*v).clone()).collect()))
    }
}
