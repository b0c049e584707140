//! `dce`: dead code elimination. Erases ops without side effects (`Pure`, or
//! `RecursiveMemoryEffects` with only effect-free ops inside) whose results are unused,
//! repeating until nothing more dies (an op whose last user died is revisited). Terminators,
//! symbols and ops with unknown effects (unregistered ops) are kept. MLIR has no pass of this
//! name; it is the trivially-dead-op part of the canonicalizer on its own.

use rustc_hash::FxHashSet;
use xcs_ir::pass::{rewrite_each_body, Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Op};

use crate::util;

/// The DCE pass.
pub struct Dce;

pub const INFO: PassInfo = PassInfo {
    argument: "dce",
    name: "DCE",
    summary: "Remove unused operations without side effects",
    description: "Erases ops whose results are all unused and that have no side effects (`Pure`, \
or `RecursiveMemoryEffects` with only such ops inside), repeating until nothing changes, so \
chains of dead ops disappear. Ops with unknown effects (unregistered ops, calls) stay.",
    options: &[],
    factory: |_, _| Ok(Box::new(Dce)),
};

impl Pass for Dce {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, _diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        Ok(rewrite_each_body(body, &mut |b| dce_body(ctx, b) > 0))
    }
}

/// Erases the dead ops of one body (not its nested bodies); returns how many ops it erased
/// (counting ops nested in erased ones once, as the erased root).
pub fn dce_body(ctx: &Context, body: &mut Body) -> usize {
    // Users come after their definitions in walk order: popping from the back sees users
    // first, so chains die in one sweep; defining ops of erased ops are revisited.
    let mut worklist = body.walk_ops();
    let mut queued: FxHashSet<Op> = worklist.iter().copied().collect();
    let mut erased = 0;
    while let Some(op) = worklist.pop() {
        queued.remove(&op);
        // No op is created here, so an erased op's id is never reused.
        if !body.contains_op(op) || !util::is_trivially_dead(ctx, body, op) {
            continue;
        }
        let mut inner = vec![op];
        for &r in body.regions(op) {
            body.walk_region_into(r, &mut inner);
        }
        for o in inner {
            for v in body.operands(o) {
                if let Some(d) = body.defining_op(v) {
                    if d != op && queued.insert(d) {
                        worklist.push(d);
                    }
                }
            }
        }
        body.erase_op(op);
        erased += 1;
    }
    erased
}
