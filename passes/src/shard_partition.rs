//! `shard-partition` (issue 18, item 4): turns each function annotated with `shard`
//! annotations into the program every device of the grid runs (SPMD), as upstream's
//! `mlir-opt --shard-partition` does, with the pending (partial) state upstream lacks, so a
//! split reduction is resolved by one `reduce_scatter` where the annotations ask for a split
//! result, and with unannotated values taken as replicated (upstream crashes on them).
//!
//! The parts: [`analysis`] reads the function (annotations and their layouts, shapes, loop
//! structures, stored layouts), [`strategy`] reads an op's strategy from its layouts,
//! [`reshard`] plans and emits the collectives between two [`layout::Layout`]s, and
//! [`rewrite`] rewrites the function in place. The conventions (what an annotation means,
//! how a reduce_scatter resolution is written, the recorded signature) are in docs/shard.md.

pub mod analysis;
pub mod layout;
pub mod reshard;
pub mod rewrite;
pub mod strategy;

use rustc_hash::FxHashSet;
use xcs_dialects::shard::Grid;
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic, Op};

use self::analysis::Analysis;
use crate::util;

/// The pass (no options).
pub struct ShardPartition;

pub const INFO: PassInfo = PassInfo {
    argument: "shard-partition",
    name: "ShardPartition",
    summary: "Rewrite annotated functions into per-device SPMD programs with explicit collectives",
    description: "Each function with `shard.shard` annotations becomes the program every device of \
the annotations' `shard.grid` runs. A `shard.shard %v to %s` that is not `annotate_for_users` gives \
the layout `%v` is stored in (its first such annotation; unannotated values are replicated); an \
`annotate_for_users` one gives the layout its users read. Each op with a loop structure computes on \
its local slices with the strategy its operands' layouts and its result's annotation say (operands \
that do not fit are resharded); a split reduction loop leaves a pending value, resolved to the \
result's annotated layout by a `reduce_scatter` when that layout splits a dim along the axis, else \
by an `all_reduce`. Opaque ops (no loop structure) run replicated. Annotations become the \
collectives (`all_gather`, `all_to_all`, `all_slice`, ...) that reshard their operand. Arguments \
and results get their local types, and their shardings are recorded as `shard.split_axes` argument \
and result attributes, with `shard.spmd_grid` on the function (see docs/shard.md). Dynamic shapes, \
indivisible splits, halos, several grids in one function and calls to a partitioned function are \
errors.",
    options: &[],
    factory: |_, _| Ok(Box::new(ShardPartition)),
};

impl Pass for ShardPartition {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, module: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        util::require_symbol_table(ctx, module, "ShardPartition", diags)?;
        let grids = Grid::all(ctx, module);
        let mut plans: Vec<(Op, Analysis)> = Vec::new();
        let mut failed = false;
        for func in module.top_ops() {
            if !util::has_trait(ctx, module, func, Traits::FunctionLike) {
                continue;
            }
            let Some(f) = module.nested(func) else { continue };
            let Some(&region) = f.root_regions().first() else {
                continue;
            };
            if f.entry_block(region).is_none() {
                continue;
            }
            match analysis::analyze(ctx, f, region, &grids) {
                Ok(Some(an)) => plans.push((func, an)),
                Ok(None) => {}
                Err(d) => {
                    diags.emit(d);
                    failed = true;
                }
            }
        }
        let names: FxHashSet<&str> = plans
            .iter()
            .filter_map(|(op, _)| util::symbol_name(ctx, module, *op))
            .collect();
        if let Some(d) = call_of_partitioned(ctx, module, &names) {
            diags.emit(d);
            failed = true;
        }
        if failed {
            return Err(());
        }
        let changed = !plans.is_empty();
        for (func, an) in &plans {
            let Some(f) = module.nested_mut(*func) else { continue };
            let Some(&region) = f.root_regions().first() else {
                continue;
            };
            if let Err(d) = rewrite::Rewrite::new(ctx, an).run(f, region) {
                diags.emit(d);
                failed = true;
            }
        }
        if failed {
            return Err(());
        }
        Ok(PassResult::from_changed(changed))
    }
}

/// An error at the first op that refers to a function being partitioned (a call would pass
/// whole tensors to a function that takes local parts).
fn call_of_partitioned(ctx: &Context, module: &Body, names: &FxHashSet<&str>) -> Option<Diagnostic> {
    if names.is_empty() {
        return None;
    }
    let mut found = None;
    module.for_each_body(&mut |body| {
        for op in body.walk_ops() {
            if found.is_some() {
                return;
            }
            let mut refs = Vec::new();
            util::op_symbol_refs(ctx, body, op, &mut refs);
            if let Some((root, _)) = refs.iter().find(|(root, _)| names.contains(ctx.str(*root))) {
                let msg = format!(
                    "shard-partition: @{} is partitioned (it has shard annotations), so it cannot be called or referenced: calls of partitioned functions are not supported",
                    ctx.str(*root)
                );
                found = Some(Diagnostic::error(body.op_loc(op), msg));
            }
        }
    });
    found
}

#[cfg(test)]
mod tests;
