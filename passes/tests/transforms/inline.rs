//! `inline` on the test dialect: single- and multi-block callees, call-site locations, what is
//! left alone, the default pipeline, options and the threshold; and parity with mlir-opt.

use xcs_test_support::builder::*;
use xcs_ir::{Body, Context, LocKind, Module, Op};

fn names(ctx: &Context, m: &Module) -> Vec<String> {
    m.ops()
        .into_iter()
        .filter_map(|op| xcs_passes::util::symbol_name(ctx, &m.body, op).map(str::to_string))
        .collect()
}

fn fbody<'m>(ctx: &Context, m: &'m Module, name: &str) -> &'m Body {
    let op: Op = m.lookup_symbol(ctx, name).unwrap_or_else(|| panic!("no @{name}"));
    m.body.nested(op).unwrap()
}

fn fdump(ctx: &Context, m: &Module, name: &str) -> String {
    let d = dump(ctx, fbody(ctx, m, name));
    d.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| *l != "}")
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn inlines_single_block_callees_with_callsite_locations() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = module(&ctx);
    func(&ctx, &mut m, "callee", &[i32t], &[i32t], true, |ir| {
        let a = ir.arg(0);
        let x = ir.op_at(2, "test.addi", &[a, a], &[i32t], &[]);
        let x = ir.body.result(x, 0);
        let e = ir.op_at(3, "test.effect", &[x], &[i32t], &[]);
        let e = ir.body.result(e, 0);
        ir.ret(&[e]);
    });
    func(&ctx, &mut m, "pub_callee", &[], &[], false, |ir| {
        ir.effect(&[]);
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "caller", &[i32t], &[i32t], false, |ir| {
        let a = ir.arg(0);
        let c = ir.op_at(
            7,
            "func.call",
            &[a],
            &[i32t],
            &[("callee", ir.ctx.symbol_ref("callee"))],
        );
        let r = ir.body.result(c, 0);
        ir.call("pub_callee", &[], &[]);
        ir.ret(&[r]);
    });
    run(&ctx, &mut m, "builtin.module(inline{default-pipeline=})").unwrap();
    assert_eq!(
        names(&ctx, &m),
        ["pub_callee", "caller"],
        "the private callee is gone once inlined"
    );
    assert_eq!(
        fdump(&ctx, &m, "caller"),
        "^bb0(%0):\n%1 = test.addi(%0, %0)\n%2 = test.effect(%1)\ntest.effect()\nfunc.return(%2)"
    );
    let b = fbody(&ctx, &m, "caller");
    let ops = b.top_ops();
    let call_loc = ctx.file_loc("t.mlir", 7, 3);
    assert_eq!(
        ctx.loc_kind(b.op_loc(ops[0])),
        LocKind::CallSite {
            callee: ctx.file_loc("t.mlir", 2, 3),
            caller: call_loc
        }
    );
    assert_eq!(
        ctx.loc_kind(b.op_loc(ops[1])),
        LocKind::CallSite {
            callee: ctx.file_loc("t.mlir", 3, 3),
            caller: call_loc
        }
    );
}

/// The multi-block example: `@callee(%a: i32, %c: i1)` (private) branches on `%c` to return
/// `%a + %a` or `%a`; `@caller(%a, %c)` returns `callee(%a * %a, %c)` squared.
fn multi_block_module(ctx: &Context) -> Module {
    let (i32t, i1) = (ctx.i32_type(), ctx.i1_type());
    let mut m = module(ctx);
    func(ctx, &mut m, "callee", &[i32t, i1], &[i32t], true, |ir| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let bb1 = ir.new_block(&[]);
        let bb2 = ir.new_block(&[]);
        ir.cond_br(c, bb1, &[], bb2, &[]);
        ir.at(bb1);
        let x = ir.addi(a, a);
        ir.ret(&[x]);
        ir.at(bb2);
        ir.ret(&[a]);
    });
    func(ctx, &mut m, "caller", &[i32t, i1], &[i32t], false, |ir| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let x = ir.muli(a, a);
        let call = ir.call("callee", &[x, c], &[i32t]);
        let r = ir.body.result(call, 0);
        let y = ir.muli(r, r);
        ir.ret(&[y]);
    });
    m
}

#[test]
fn inlines_multi_block_callees_through_a_continuation_block() {
    // mlir-opt '--inline=default-pipeline=' on
    //   func.func private @callee(%a: i32, %c: i1) -> i32 {
    //     cf.cond_br %c, ^bb1, ^bb2
    //   ^bb1: %0 = addi %a, %a; return %0
    //   ^bb2: return %a }
    //   func.func @caller(%a: i32, %c: i1) -> i32 {
    //     %x = muli %a, %a; %0 = call @callee(%x, %c); %1 = muli %0, %0; return %1 }
    // gives: muli; cond_br ^bb1, ^bb2; ^bb1: addi, br ^bb3(%1); ^bb2: br ^bb3(%0);
    //        ^bb3(%2): muli %2, %2; return
    let ctx = ctx();
    let mut m = multi_block_module(&ctx);
    run(&ctx, &mut m, "builtin.module(inline{default-pipeline=})").unwrap();
    assert_eq!(names(&ctx, &m), ["caller"]);
    assert_eq!(
        fdump(&ctx, &m, "caller"),
        "^bb0(%0, %1):\n%2 = test.muli(%0, %0)\ncf.cond_br(%1)[^bb1, ^bb2]\n^bb1():\n%3 = test.addi(%2, %2)\ncf.br(%3)[^bb3]\n^bb2():\ncf.br(%2)[^bb3]\n^bb3(%4):\n%5 = test.muli(%4, %4)\nfunc.return(%5)"
    );
}

#[test]
fn recursion_declarations_and_no_inline_are_left_alone() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = module(&ctx);
    decl(&ctx, &mut m, "ext", &[i32t], &[i32t]);
    func(&ctx, &mut m, "rec", &[i32t], &[i32t], true, |ir| {
        let c = ir.call("rec", &[ir.arg(0)], &[i32t]);
        let r = ir.body.result(c, 0);
        ir.ret(&[r]);
    });
    func(&ctx, &mut m, "even", &[i32t], &[i32t], false, |ir| {
        let c = ir.call("odd", &[ir.arg(0)], &[i32t]);
        let r = ir.body.result(c, 0);
        ir.ret(&[r]);
    });
    func(&ctx, &mut m, "odd", &[i32t], &[i32t], false, |ir| {
        let c = ir.call("even", &[ir.arg(0)], &[i32t]);
        let r = ir.body.result(c, 0);
        ir.ret(&[r]);
    });
    func(&ctx, &mut m, "leaf", &[i32t], &[i32t], false, |ir| {
        let x = ir.addi(ir.arg(0), ir.arg(0));
        ir.ret(&[x]);
    });
    func(&ctx, &mut m, "noinl", &[i32t], &[i32t], false, |ir| {
        ir.ret(&[ir.arg(0)]);
    });
    let noinl = m.lookup_symbol(&ctx, "noinl").unwrap();
    m.body.set_attr(&ctx, noinl, "no_inline", ctx.unit_attr());
    func(&ctx, &mut m, "unreg", &[i32t], &[i32t], false, |ir| {
        let u = ir.op("foo.bar", &[ir.arg(0)], &[i32t], &[]);
        let u = ir.body.result(u, 0);
        ir.ret(&[u]);
    });
    func(&ctx, &mut m, "main", &[i32t], &[i32t], false, |ir| {
        let a = ir.arg(0);
        let mut v = a;
        for callee in ["ext", "rec", "even", "noinl", "unreg"] {
            let c = ir.call(callee, &[v], &[i32t]);
            v = ir.body.result(c, 0);
        }
        let c = ir.call("leaf", &[v], &[i32t]);
        ir.body.set_attr(ir.ctx, c, "no_inline", ir.ctx.unit_attr());
        let w = ir.body.result(c, 0);
        let c = ir.call("leaf", &[w], &[i32t]); // inlined
        let r = ir.body.result(c, 0);
        ir.ret(&[r]);
    });
    run(&ctx, &mut m, "builtin.module(inline)").unwrap();
    let main = fdump(&ctx, &m, "main");
    // @even is in another SCC than @main, so it is inlined there, exposing a call to @odd,
    // inlined in the next iteration, and so on until max-iterations (4): mlir-opt also
    // ends with a call to @even here
    assert_eq!(
        main,
        "^bb0(%0):\n%1 = func.call(%0) {callee = @ext}\n%2 = func.call(%1) {callee = @rec}\n%3 = func.call(%2) {callee = @even}\n%4 = func.call(%3) {callee = @noinl}\n%5 = func.call(%4) {callee = @unreg}\n%6 = func.call(%5) {callee = @leaf, no_inline = unit}\n%7 = test.addi(%6, %6)\nfunc.return(%7)"
    );
    // recursion inside an SCC is never inlined
    assert!(fdump(&ctx, &m, "rec").contains("callee = @rec"));
    assert!(fdump(&ctx, &m, "even").contains("callee = @odd"));
    assert!(fdump(&ctx, &m, "odd").contains("callee = @even"));
    assert_eq!(
        names(&ctx, &m),
        ["ext", "rec", "even", "odd", "leaf", "noinl", "unreg", "main"]
    );
}

#[test]
fn default_pipeline_simplifies_and_dead_private_functions_go() {
    // as mlir-opt --inline: unused private functions are erased, a private function
    // still called after inlining stays (@b: its other callers were dead)
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = module(&ctx);
    func(&ctx, &mut m, "b", &[i32t], &[i32t], true, |ir| {
        let c = ir.call("ext", &[ir.arg(0)], &[i32t]);
        let r = ir.body.result(c, 0);
        ir.ret(&[r]);
    });
    func(&ctx, &mut m, "a", &[i32t], &[i32t], true, |ir| {
        let c = ir.call("b", &[ir.arg(0)], &[i32t]);
        let r = ir.body.result(c, 0);
        ir.ret(&[r]);
    });
    decl(&ctx, &mut m, "ext", &[i32t], &[i32t]);
    func(&ctx, &mut m, "k", &[i32t], &[i32t], true, |ir| {
        let one = ir.constant(1);
        let x = ir.muli(ir.arg(0), one);
        ir.ret(&[x]);
    });
    func(&ctx, &mut m, "main", &[i32t], &[i32t], false, |ir| {
        let c = ir.call("b", &[ir.arg(0)], &[i32t]);
        let r = ir.body.result(c, 0);
        let c = ir.call("k", &[r], &[i32t]);
        let s = ir.body.result(c, 0);
        let two = ir.constant(2);
        let t = ir.addi(two, s); // canonicalized: constant moves right
        ir.ret(&[t]);
    });
    run(&ctx, &mut m, "builtin.module(inline)").unwrap();
    assert_eq!(names(&ctx, &m), ["b", "ext", "main"]);
    assert_eq!(
        fdump(&ctx, &m, "main"),
        "^bb0(%0):\n%1 = test.constant() {value = 2}\n%2 = func.call(%0) {callee = @ext}\n%3 = test.addi(%2, %1)\nfunc.return(%3)"
    );
}

#[test]
fn options_and_errors() {
    let r = xcs_passes::registry();
    let pm = xcs_ir::pass::PassManager::parse("builtin.module(inline)", &r).unwrap();
    assert_eq!(
        pm.root.to_text(false),
        "builtin.module(inline{default-pipeline=canonicalize inlining-threshold=4294967295 max-iterations=4 })"
    );
    let e = xcs_ir::pass::PassManager::parse("builtin.module(inline{max-iterations=-1})", &r)
        .err()
        .unwrap();
    assert_eq!(
        e.message,
        "failed to add `inline` with options `max-iterations=-1`: for the --max-iterations option: '-1' value invalid for uint argument!"
    );
    let e = xcs_ir::pass::PassManager::parse("builtin.module(inline{default-pipeline=bogus})", &r)
        .err()
        .unwrap();
    assert_eq!(
        e.message,
        "failed to add `inline` with options `default-pipeline=bogus`: 'bogus' does not refer to a registered pass or pass pipeline"
    );
    let ctx = ctx();
    let mut m = module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], false, |ir| {
        ir.ret(&[]);
    });
    let e = run(&ctx, &mut m, "builtin.module(func.func(inline))").unwrap_err();
    assert_eq!(
        e,
        ["'func.func' op  was scheduled to run under the inliner, but does not define a symbol table"]
    );
}

#[test]
fn threshold_limits_inlining() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let build = |m: &mut Module| {
        func(&ctx, m, "big", &[i32t], &[i32t], false, |ir| {
            let mut v = ir.arg(0);
            for _ in 0..8 {
                v = ir.addi(v, v);
            }
            ir.ret(&[v]);
        });
        func(&ctx, m, "main", &[i32t], &[i32t], false, |ir| {
            let c = ir.call("big", &[ir.arg(0)], &[i32t]);
            let r = ir.body.result(c, 0);
            ir.ret(&[r]);
        });
    };
    let mut m = module(&ctx);
    build(&mut m);
    run(
        &ctx,
        &mut m,
        "builtin.module(inline{inlining-threshold=100 default-pipeline=})",
    )
    .unwrap();
    assert!(fdump(&ctx, &m, "main").contains("func.call"));
    let mut m = module(&ctx);
    build(&mut m);
    run(
        &ctx,
        &mut m,
        "builtin.module(inline{inlining-threshold=1000 default-pipeline=})",
    )
    .unwrap();
    assert!(!fdump(&ctx, &m, "main").contains("func.call"));
}

// ---------------------------------------------------------------------------- mlir-opt parity


/// `mlir-opt --inline` on the multi-block example (the default pipeline canonicalizes
/// the inlined control flow with the `cf` patterns) gives:
///   %0 = muli %a, %a; cf.cond_br %c, ^bb1, ^bb2(%0)
///   ^bb1: %1 = addi %0, %0; cf.br ^bb2(%1)
///   ^bb2(%2): %3 = muli %2, %2; return %3
#[test]
fn multi_block_inline_then_canonicalize() {
    let ctx = ctx();
    let mut m = multi_block_module(&ctx);
    run(&ctx, &mut m, "builtin.module(inline)").unwrap();
    let caller = m.body.nested(m.lookup_symbol(&ctx, "caller").unwrap()).unwrap();
    let d = dump(&ctx, caller);
    let body: Vec<&str> = d.lines().skip(1).map(str::trim).filter(|l| *l != "}").collect();
    assert_eq!(
        body,
        [
            "^bb0(%0, %1):",
            "%2 = test.muli(%0, %0)",
            "cf.cond_br(%1, %2)[^bb1, ^bb2]",
            "^bb1():",
            "%3 = test.addi(%2, %2)",
            "cf.br(%3)[^bb2]",
            "^bb2(%4):",
            "%5 = test.muli(%4, %4)",
            "func.return(%5)"
        ]
    );
}

/// A constant condition folds the branch, and the blocks merge into straight-line code.
#[test]
fn constant_conditions_fold_away() {
    let ctx = ctx();
    let (i32t, i1) = (ctx.i32_type(), ctx.i1_type());
    let mut m = module(&ctx);
    func(&ctx, &mut m, "f", &[i32t], &[i32t], false, |ir| {
        let a = ir.arg(0);
        let t = ir.op("test.constant", &[], &[i1], &[("value", ir.ctx.int_attr(1, i1))]);
        let t = ir.body.result(t, 0);
        let bb1 = ir.new_block(&[i32t]);
        let bb2 = ir.new_block(&[i32t]);
        let bb3 = ir.new_block(&[i32t]);
        ir.cond_br(t, bb1, &[a], bb2, &[a]);
        ir.at(bb1);
        let x = ir.body.block_arg(bb1, 0);
        let y = ir.addi(x, x);
        ir.br(bb3, &[y]);
        ir.at(bb2);
        let z = ir.body.block_arg(bb2, 0);
        ir.br(bb3, &[z]);
        ir.at(bb3);
        let w = ir.body.block_arg(bb3, 0);
        ir.ret(&[w]);
    });
    run(&ctx, &mut m, "builtin.module(func.func(canonicalize))").unwrap();
    let f = m.body.nested(m.ops()[0]).unwrap();
    let d = dump(&ctx, f);
    let body: Vec<&str> = d.lines().skip(1).map(str::trim).filter(|l| *l != "}").collect();
    assert_eq!(body, ["^bb0(%0):", "%1 = test.addi(%0, %0)", "func.return(%1)"]);
}
