//! `cse` on the test dialect: equal pure ops merge where one dominates the other (blocks,
//! nested and graph regions, equivalent regions), effects and unregistered ops stay.

use xcs_test_support::builder::*;
use xcs_ir::Module;

fn f(ctx: &xcs_ir::Context, build: impl FnOnce(&mut Ir<'_>)) -> Module {
    let mut m = module(ctx);
    let i32t = ctx.i32_type();
    func(ctx, &mut m, "f", &[i32t, ctx.i1_type()], &[], false, build);
    m
}

fn cse(ctx: &xcs_ir::Context, m: &mut Module) -> String {
    run(ctx, m, "builtin.module(func.func(cse))").unwrap();
    dump_module(ctx, m)
}

#[test]
fn merges_equal_pure_ops() {
    let ctx = ctx();
    let mut m = f(&ctx, |ir| {
        let a = ir.arg(0);
        let x = ir.addi(a, a);
        let y = ir.addi(a, a);
        let z = ir.addi(a, x); // differs in operands
        ir.effect(&[x, y, z]);
        ir.ret(&[]);
    });
    assert_eq!(
        cse(&ctx, &mut m),
        "builtin.module {\n  func.func(){sym_name = \"f\"} {\n  ^bb1(%0, %1):\n    %2 = test.addi(%0, %0)\n    %3 = test.addi(%0, %2)\n    test.effect(%2, %2, %3)\n    func.return()\n  }\n}\n"
            .replace("func.func(){", "func.func() {")
    );
}

#[test]
fn keeps_effectful_unregistered_and_different_ops() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = f(&ctx, |ir| {
        let a = ir.arg(0);
        let e1 = ir.op("test.effect", &[a], &[i32t], &[]);
        let e2 = ir.op("test.effect", &[a], &[i32t], &[]);
        let u1 = ir.op("foo.bar", &[a], &[i32t], &[]);
        let u2 = ir.op("foo.bar", &[a], &[i32t], &[]);
        let p1 = ir.op("test.pure", &[a], &[i32t], &[("k", ir.ctx.i64_attr(1))]);
        let p2 = ir.op("test.pure", &[a], &[i32t], &[("k", ir.ctx.i64_attr(2))]);
        let p3 = ir.op("test.pure", &[a], &[ir.ctx.i64_type()], &[("k", ir.ctx.i64_attr(1))]);
        let vals: Vec<_> = [e1, e2, u1, u2, p1, p2, p3]
            .iter()
            .map(|&o| ir.body.result(o, 0))
            .collect();
        ir.effect(&vals);
        ir.ret(&[]);
    });
    let before = dump_module(&ctx, &m);
    let after = cse(&ctx, &mut m);
    assert_eq!(before, after);
}

#[test]
fn only_dominating_blocks_provide_values() {
    let ctx = ctx();
    let mut m = f(&ctx, |ir| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let bb1 = ir.new_block(&[]);
        let bb2 = ir.new_block(&[]);
        let bb3 = ir.new_block(&[]);
        let top = ir.muli(a, a);
        ir.cond_br(c, bb1, &[], bb2, &[]);
        ir.at(bb1);
        let x1 = ir.addi(a, a);
        let t1 = ir.muli(a, a); // dominated by the entry's muli
        ir.effect(&[x1, t1]);
        ir.br(bb3, &[]);
        ir.at(bb2);
        let x2 = ir.addi(a, a); // sibling of bb1: not replaced
        ir.effect(&[x2, top]);
        ir.br(bb3, &[]);
        ir.at(bb3);
        let x3 = ir.addi(a, a); // bb3 is dominated by the entry only
        ir.effect(&[x3]);
        ir.ret(&[]);
    });
    let out = cse(&ctx, &mut m);
    assert_eq!(out.matches("test.addi").count(), 3, "{out}");
    assert_eq!(out.matches("test.muli").count(), 1, "{out}");
    assert!(
        out.contains("test.effect(%3, %2)") && out.contains("test.effect(%4, %2)"),
        "{out}"
    );
}

#[test]
fn nested_regions_see_the_outer_scope_but_not_the_reverse() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = f(&ctx, |ir| {
        let a = ir.arg(0);
        let outer = ir.addi(a, a);
        ir.region_op("test.region", &[], &[], &[], |r| {
            let inner = r.addi(a, a); // replaced by `outer`
            let only_inside = r.muli(a, a);
            r.effect(&[inner, only_inside]);
            r.op("test.yield", &[], &[], &[]);
        });
        let after = ir.muli(a, a); // the region's muli does not dominate it
        ir.effect(&[outer, after]);
        let _ = i32t;
        ir.ret(&[]);
    });
    let out = cse(&ctx, &mut m);
    assert_eq!(out.matches("test.addi").count(), 1, "{out}");
    assert_eq!(out.matches("test.muli").count(), 2, "{out}");
    assert!(out.contains("test.effect(%2, %3)"), "{out}");
}

#[test]
fn ops_with_equivalent_regions_merge() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = f(&ctx, |ir| {
        let a = ir.arg(0);
        let mut rs = Vec::new();
        for k in [1, 1, 2] {
            let op = ir.region_op("test.region", &[a], &[i32t], &[i32t], |r| {
                let x = r.arg(0);
                let c = r.constant(k);
                let y = r.addi(x, c);
                let z = r.addi(y, a); // uses an outer value
                r.op("test.yield", &[z], &[], &[]);
            });
            rs.push(ir.body.result(op, 0));
        }
        ir.effect(&rs);
        ir.ret(&[]);
    });
    let out = cse(&ctx, &mut m);
    assert_eq!(out.matches("test.region").count(), 2, "{out}");
    assert!(out.contains("test.effect(%2, %2, %"), "{out}");
}

#[test]
fn erases_trivially_dead_ops_and_runs_on_all_functions_from_the_module() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = module(&ctx);
    for name in ["f", "g"] {
        func(&ctx, &mut m, name, &[i32t], &[i32t], false, |ir| {
            let a = ir.arg(0);
            let x = ir.addi(a, a);
            let y = ir.addi(a, a);
            let _dead = ir.muli(a, a);
            let s = ir.addi(x, y);
            ir.ret(&[s]);
        });
    }
    run(&ctx, &mut m, "builtin.module(cse)").unwrap();
    let out = dump_module(&ctx, &m);
    assert_eq!(out.matches("test.addi").count(), 4, "{out}");
    assert_eq!(out.matches("test.muli").count(), 0, "{out}");
}

#[test]
fn graph_regions_replace_only_unvisited_uses() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = f(&ctx, |ir| {
        let a = ir.arg(0);
        ir.region_op("test.graph", &[], &[], &[], |g| {
            let x = g.addi(a, a);
            let y = g.addi(a, a);
            g.effect(&[x, y]);
        });
        let _ = i32t;
        ir.ret(&[]);
    });
    let out = cse(&ctx, &mut m);
    assert_eq!(out.matches("test.addi").count(), 1, "{out}");
    assert!(out.contains("test.effect(%2, %2)"), "{out}");
}
