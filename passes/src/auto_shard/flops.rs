//! FLOPs of every op, as `cost-annotate` counts them (`docs/cost.md`): the pass runs on a copy
//! of the module and each op's `cost` attribute is read back. With static shapes every count
//! is a number; an op without a count (no cost rule) has 0.

use rustc_hash::FxHashMap;
use xcs_dialects::cost::Cost;
use xcs_ir::pass::Pass;
use xcs_ir::diag::DiagBuffer;
use xcs_ir::{Body, Context, Op};

use crate::cost_annotate::CostAnnotate;

/// Per function op of the module, the FLOPs of each op of its body (top-level ops of its
/// blocks). An error when cost-annotate fails (its first error message).
pub fn module_flops(ctx: &Context, module: &Body, functions: &[Op]) -> Result<FxHashMap<Op, FxHashMap<Op, f64>>, String> {
    let mut copy = module.clone();
    let mut diags = DiagBuffer::default();
    let pass = CostAnnotate { bind: Default::default(), report: None };
    if pass.run(ctx, &mut copy, &mut diags).is_err() {
        let first = diags.diags.iter().find(|d| d.severity == xcs_ir::Severity::Error).map(|d| d.message.clone());
        return Err(first.unwrap_or_else(|| "cost-annotate failed".into()));
    }
    let mut out = FxHashMap::default();
    for &func in functions {
        let Some(f) = copy.nested(func) else { continue };
        let mut per_op = FxHashMap::default();
        for op in f.top_ops() {
            if let Some(flops) = op_flops(ctx, f, op) {
                per_op.insert(op, flops);
            }
        }
        out.insert(func, per_op);
    }
    Ok(out)
}

/// The FLOPs in `op`'s `cost` attribute, if it has a numeric one.
fn op_flops(ctx: &Context, f: &Body, op: Op) -> Option<f64> {
    let a = f.attr(ctx, op, "cost")?;
    let cost: Cost = Cost::from_attr(ctx, a)?.ok()?;
    cost.flops.as_constant().map(|n| n as f64)
}
