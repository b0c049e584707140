//! `cf.br` and `cf.cond_br`: jumps to the LLVM blocks of their successors, passing the values of
//! the successors' block arguments (phi nodes; see `codegen::function`). They run no check, so
//! they make no run-time error site.

use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Op, Value};

use crate::codegen::{FunctionLowering, LowerOp, OpSite, Slot, R};

pub static BRANCH: Branch = Branch;
pub static COND_BRANCH: CondBranch = CondBranch;

/// `cf.br`.
pub struct Branch;

impl LowerOp for Branch {
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>> {
        let o = OpSite::with_site(fl.ctx(), body, op, -1);
        let ops: Vec<Value> = body.operands(op).collect();
        let dest = *body.successors(op).first().ok_or_else(|| o.err("has no successor"))?;
        fl.branch_to(body, dest, &ops)?;
        fl.after_terminator();
        Ok(Vec::new())
    }
}

/// `cf.cond_br`: a conditional jump to one of two edges, each passing its values.
pub struct CondBranch;

impl LowerOp for CondBranch {
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>> {
        let ctx = fl.ctx();
        let o = OpSite::with_site(ctx, body, op, -1);
        let succ = body.successors(op).to_vec();
        let ops: Vec<Value> = body.operands(op).collect();
        let seg = body
            .attr(ctx, op, "operandSegmentSizes")
            .and_then(|a| ctx.as_dense_ints(a))
            .unwrap_or_default();
        if seg.len() != 3 || succ.len() != 2 || seg[0] != 1 || (seg[1] + seg[2] + 1) as usize != ops.len() {
            return Err(o.err("has invalid operand segments"));
        }
        let n_true = seg[1] as usize;
        let c = match fl.get(ops[0])? {
            Slot::Scalar(v, ElemType::I1) => v,
            _ => return Err(o.located(format!("'{}' op: the condition must be an i1", o.name))),
        };
        let (lt, lf) = (fl.f.label("edge"), fl.f.label("edge"));
        fl.f.raw(format!("br i1 {c}, label %{lt}, label %{lf}"));
        for (lab, dest, vals) in [(lt, succ[0], &ops[1..1 + n_true]), (lf, succ[1], &ops[1 + n_true..])] {
            fl.f.start(&lab);
            fl.branch_to(body, dest, vals)?;
        }
        fl.after_terminator();
        Ok(Vec::new())
    }
}
