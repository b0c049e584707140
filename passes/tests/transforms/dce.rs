//! `dce` on the test dialect: unused pure chains go, effects, unknown ops and regions with
//! effects stay; `dce_body` reports what it erased.

use xcs_test_support::builder::*;

#[test]
fn removes_unused_pure_chains_and_keeps_effects() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = i32_function(&ctx, |ir, a| {
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
    let m = i32_function(&ctx, |ir, a| {
        let x = ir.addi(a, a);
        ir.ret(&[x]);
    });
    let mut body = m.body.clone();
    let f = m.ops()[0];
    assert_eq!(xcs_passes::dce::dce_body(&ctx, body.nested_mut(f).unwrap()), 0);
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
    assert_eq!(xcs_passes::dce::dce_body(&ctx, g), 1);
}
