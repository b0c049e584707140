//! `cf.br`, `cf.cond_br` and `cf.switch`: jumps to the LLVM blocks of their successors,
//! passing the values of the successors' block arguments (phi nodes; see `codegen::function`).
//! They run no check, so they make no run-time error site. `cf.assert`: a run-time error with
//! its message when its operand is false.

use xcs_dialects::cf::SwitchOp;
use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Op, Value};

use crate::codegen::types::comp_ty;
use crate::codegen::{FunctionLowering, LowerFn, LowerOp, OpSite, RunTimeCheck, Slot, R};

pub static BRANCH: Branch = Branch;
pub static COND_BRANCH: CondBranch = CondBranch;
pub static SWITCH: Switch = Switch;
pub static ASSERT: LowerFn = LowerFn(assert);

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

/// `cf.switch`: an LLVM `switch` on the flag with one edge per case, each passing its values
/// (a value that repeats goes where its first case goes, as in the interpreter: LLVM takes
/// each value once).
pub struct Switch;

impl LowerOp for Switch {
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>> {
        let ctx = fl.ctx();
        let o = OpSite::with_site(ctx, body, op, -1);
        let targets = SwitchOp::cast(ctx, body, op)
            .and_then(|s| s.targets(ctx, body))
            .ok_or_else(|| o.err("has malformed cases"))?;
        let ops: Vec<Value> = body.operands(op).collect();
        let (flag, ty) = match fl.get(ops[0])? {
            Slot::Scalar(v, e) if e != ElemType::Str && !e.is_float() => (v, comp_ty(e)),
            _ => return Err(o.located(format!("'{}' op: the flag must be an integer scalar", o.name))),
        };
        let mut values: Vec<i128> = Vec::new();
        let mut arms = Vec::new();
        for c in &targets.cases {
            if !values.contains(&c.value) {
                values.push(c.value);
                arms.push((c.value, fl.f.label("edge"), c.dest, c.operands.clone()));
            }
        }
        let default = fl.f.label("edge");
        let list: Vec<String> = arms.iter().map(|(v, l, ..)| format!("{ty} {v}, label %{l}")).collect();
        fl.f.raw(format!("switch {ty} {flag}, label %{default} [{}]", list.join(" ")));
        fl.f.start(&default);
        fl.branch_to(body, targets.default.0, &ops[targets.default.1.clone()])?;
        for (_, label, dest, range) in arms {
            fl.f.start(&label);
            fl.branch_to(body, dest, &ops[range])?;
        }
        fl.after_terminator();
        Ok(Vec::new())
    }
}

/// `cf.assert`: a run-time error (`'cf.assert' op assertion failed: <msg>`, at the op) when the
/// operand is false.
fn assert(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let c = match fl.get(o.body.operand(o.op, 0))? {
        Slot::Scalar(v, ElemType::I1) => v,
        _ => return Err(o.located(format!("'{}' op: the operand must be an i1", o.name))),
    };
    let msg = o.str(fl, "msg")?;
    let failed = fl.f.emit("i1", format!("xor i1 {c}, true"));
    let text = fl.module.msg(o.site, &format!("assertion failed: {msg}"));
    fl.fail_if(&failed, o.site, &text);
    Ok(Vec::new())
}
