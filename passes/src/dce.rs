//! `dce`: dead code elimination. Erases ops without side effects (`Pure`, or
//! `RecursiveMemoryEffects` with only effect-free ops inside) whose results are unused,
//! repeating until nothing more dies (an op whose last user died is revisited). Terminators,
//! symbols and ops with unknown effects (unregistered ops) are kept. MLIR has no pass of this
//! name; it is the trivially-dead-op part of the canonicalizer on its own.

use rustc_hash::FxHashSet;
use xcs_ir::pass::{for_each_body_mut, Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Op};

use crate::util;

/// The DCE pass.
pub struct Dce;

pub const INFO: PassInfo = PassInfo {
    argument: "dce",
    summary: "Remove unused operations without side effects",
    description: "Erases ops whose results are all unused and that have no side effects (`Pure`, \
or `RecursiveMemoryEffects` with only such ops inside), repeating until nothing changes, so \
chains of dead ops disappear. Ops with unknown effects (unregistered ops, calls) stay.",
    options: &[],
    factory: |_, _| Ok(Box::new(Dce)),
};

impl Pass for Dce {
    fn argument(&self) -> &'static str {
        "dce"
    }
    fn name(&self) -> &'static str {
        "DCE"
    }
    fn run(&self, ctx: &Context, body: &mut Body, _diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let mut changed = false;
        for_each_body_mut(body, &mut |b| changed |= dce_body(ctx, b) > 0);
        Ok(PassResult::from_changed(changed))
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

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn removes_unused_pure_chains_and_keeps_effects() {
        let ctx = ctx();
        let i32t = ctx.i32_type();
        let mut m = module(&ctx);
        func(&ctx, &mut m, "f", &[i32t], &[i32t], false, |ir| {
            let a = ir.arg(0);
            let x = ir.addi(a, a);
            let y = ir.muli(x, x); // dead, and makes x dead
            let _ = y;
            let _z = ir.negi(a); // dead
            let e = ir.op("test.effect", &[a], &[i32t], &[]); // unused but effectful
            let _ = e;
            let _u = ir.op("foo.unknown", &[a], &[i32t], &[]); // unknown effects
            let kept = ir.addi(a, a);
            ir.region_op("test.region", &[], &[], &[], |r| {
                let _dead_inside = r.muli(a, a);
                r.op("test.yield", &[], &[], &[]);
            }); // only pure ops inside: dead
            ir.region_op("test.region", &[], &[], &[], |r| {
                r.effect(&[a]);
                r.op("test.yield", &[], &[], &[]);
            }); // effects inside: kept
            ir.ret(&[kept]);
        });
        run(&ctx, &mut m, "builtin.module(dce)").unwrap();
        let out = dump_module(&ctx, &m);
        assert_eq!(
            out,
            "builtin.module {\n  func.func() {sym_name = \"f\"} {\n  ^bb1(%0):\n    %1 = test.effect(%0)\n    %2 = foo.unknown(%0)\n    %3 = test.addi(%0, %0)\n    test.region() {\n      test.effect(%0)\n      test.yield()\n    }\n    func.return(%3)\n  }\n}\n"
        );
    }

    #[test]
    fn reports_no_change_when_nothing_is_dead() {
        let ctx = ctx();
        let i32t = ctx.i32_type();
        let mut m = module(&ctx);
        func(&ctx, &mut m, "f", &[i32t], &[i32t], false, |ir| {
            let a = ir.arg(0);
            let x = ir.addi(a, a);
            ir.ret(&[x]);
        });
        let mut body = m.body.clone();
        let f = m.ops()[0];
        assert_eq!(super::dce_body(&ctx, body.nested_mut(f).unwrap()), 0);
        let g = body.nested_mut(f).unwrap();
        let entry = g.entry_block(g.root_regions()[0]).unwrap();
        let a = g.block_arg(entry, 0);
        let mut ir = Ir {
            ctx: &ctx,
            body: g,
            block: entry,
        };
        let ret = ir.body.last_op(entry).unwrap();
        let d = ir.muli(a, a);
        let dop = ir.body.defining_op(d).unwrap();
        ir.body.move_op_before(dop, ret);
        assert_eq!(super::dce_body(&ctx, g), 1);
    }
}
