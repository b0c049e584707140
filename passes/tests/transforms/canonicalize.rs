//! Canonicalizer tests on the test dialect (its folders and its `x * 2 -> x + x` pattern).

use xcs_test_support::builder::*;
use xcs_ir::{Context, Module};

fn f1(ctx: &Context, build: impl FnOnce(&mut Ir<'_>)) -> Module {
    let mut m = module(ctx);
    let i32t = ctx.i32_type();
    func(ctx, &mut m, "f", &[i32t, ctx.i1_type()], &[], false, build);
    m
}

fn canon(ctx: &Context, m: &mut Module, opts: &str) -> String {
    run(ctx, m, &format!("builtin.module(func.func(canonicalize{{{opts}}}))")).unwrap();
    body_of_f(ctx, m)
}

/// The dump of the function's body lines only.
fn body_of_f(ctx: &Context, m: &Module) -> String {
    let d = dump_module(ctx, m);
    d.lines()
        .skip(3)
        .take_while(|l| *l != "  }")
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn folds_to_a_fixed_point() {
    let ctx = ctx();
    let mut m = f1(&ctx, |ir| {
        let a = ir.arg(0);
        let c0 = ir.constant(0);
        let c1 = ir.constant(1);
        let c2 = ir.constant(2);
        let x = ir.muli(a, c1); // a
        let y = ir.addi(c0, x); // a
        let n = ir.negi(y);
        let nn = ir.negi(n); // a (involution)
        let s = ir.addi(c1, c2); // 3
        let t = ir.muli(nn, c2); // pattern: a + a
        let u = ir.muli(c2, nn); // commutative: constant moves right, then the pattern
        ir.effect(&[nn, s, t, u]);
        ir.ret(&[]);
    });
    assert_eq!(
        canon(&ctx, &mut m, ""),
        "%2 = test.constant() {value = 3}\n%3 = test.addi(%0, %0)\n%4 = test.addi(%0, %0)\ntest.effect(%0, %2, %3, %4)\nfunc.return()"
    );
    // a second run finds nothing to do
    let before = dump_module(&ctx, &m);
    canon(&ctx, &mut m, "test-convergence=true max-iterations=1");
    assert_eq!(dump_module(&ctx, &m), before);
}

#[test]
fn constant_order_and_locations_match_mlir() {
    // The IR of mlir-opt's `arith` example, with test ops:
    //   %x = addi %a, %a; %c1; %c2; %s = addi %c1, %c2; %y = muli %x, %s; %c3;
    //   %z = addi %c3, %y; %w = addi %c2, %a; return %s, %z, %w
    // mlir-opt --canonicalize gives: %c3 (loc unknown), %c2 (its own loc), %x,
    //   muli %x, %c3; addi %y, %c3; addi %a, %c2; return %c3, ...
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = module(&ctx);
    func(&ctx, &mut m, "f", &[i32t], &[i32t, i32t, i32t], false, |ir| {
        let a = ir.arg(0);
        let x = ir.addi(a, a);
        let vty = ir.ctx.i32_type();
        let c = |ir: &mut Ir<'_>, v: i128, line: u32| {
            let op = ir.op_at(
                line,
                "test.constant",
                &[],
                &[vty],
                &[("value", ir.ctx.int_attr(v, vty))],
            );
            ir.body.result(op, 0)
        };
        let c1 = c(ir, 1, 3);
        let c2 = c(ir, 2, 4);
        let s = ir.addi(c1, c2);
        let y = ir.muli(x, s);
        let c3 = c(ir, 3, 7);
        let z = ir.addi(c3, y);
        let w = ir.addi(c2, a);
        ir.ret(&[s, z, w]);
    });
    assert_eq!(
        canon(&ctx, &mut m, ""),
        "%1 = test.constant() {value = 3}\n%2 = test.constant() {value = 2}\n%3 = test.addi(%0, %0)\n%4 = test.muli(%3, %1)\n%5 = test.addi(%4, %1)\n%6 = test.addi(%0, %2)\nfunc.return(%1, %5, %6)"
    );
    let f = m.body.nested(m.ops()[0]).unwrap();
    let entry = f.entry_block(f.root_regions()[0]).unwrap();
    let ops = f.block_op_vec(entry);
    assert!(
        f.op_loc(ops[0]).is_unknown(),
        "the deduplicated constant's location is dropped"
    );
    assert_eq!(
        f.op_loc(ops[1]),
        ctx.file_loc("t.mlir", 4, 3),
        "a moved constant keeps its location"
    );
}

#[test]
fn constants_are_deduplicated_and_hoisted_out_of_blocks_and_regions() {
    let ctx = ctx();
    let mut m = f1(&ctx, |ir| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let bb1 = ir.new_block(&[]);
        let bb2 = ir.new_block(&[]);
        let k = ir.constant(5);
        let x = ir.addi(a, k);
        ir.cond_br(c, bb1, &[], bb2, &[]);
        ir.at(bb1);
        let k2 = ir.constant(5); // duplicate in another block
        let k7 = ir.constant(7);
        ir.region_op("test.region", &[], &[], &[], |r| {
            let k3 = r.constant(5); // duplicate in a nested region
            let y = r.addi(a, k3);
            r.effect(&[y]);
            r.op("test.yield", &[], &[], &[]);
        });
        let z = ir.addi(x, k2);
        ir.effect(&[z, k7]);
        ir.ret(&[]);
        ir.at(bb2);
        let four = ir.constant(4);
        let one = ir.constant(1);
        let five = ir.addi(four, one); // folds to the existing 5
        ir.effect(&[five]);
        ir.ret(&[]);
    });
    let out = canon(&ctx, &mut m, "");
    assert_eq!(out.matches("test.constant").count(), 2, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].contains("value = 7") && lines[1].contains("value = 5"),
        "{out}"
    );
    assert!(
        out.contains("test.effect(%3)\n"),
        "the folded 4 + 1 is the hoisted 5:\n{out}"
    );
}

#[test]
fn patterns_and_options() {
    let ctx = ctx();
    let build = |ir: &mut Ir<'_>| {
        let a = ir.arg(0);
        let two = ir.constant(2);
        let t = ir.muli(a, two);
        ir.effect(&[t]);
        ir.ret(&[]);
    };
    let mut m = f1(&ctx, build);
    assert!(canon(&ctx, &mut m, "").contains("test.addi(%0, %0)"));
    let mut m = f1(&ctx, build);
    let out = canon(&ctx, &mut m, "disable-patterns=test-mul-by-two");
    assert!(out.contains("test.muli(%0, %2)"), "{out}");
    let mut m = f1(&ctx, build);
    let out = canon(&ctx, &mut m, "enable-patterns=other");
    assert!(out.contains("test.muli"), "{out}");
    let mut m = f1(&ctx, build);
    let out = canon(&ctx, &mut m, "max-num-rewrites=0 max-iterations=1");
    assert!(out.contains("test.muli"), "{out}");
    // max-iterations=0 does nothing at all
    let mut m = f1(&ctx, |ir| {
        let a = ir.arg(0);
        let c0 = ir.constant(0);
        let x = ir.addi(a, c0);
        ir.effect(&[x]);
        ir.ret(&[]);
    });
    let before = body_of_f(&ctx, &m);
    assert_eq!(canon(&ctx, &mut m, "max-iterations=0 test-convergence=true"), before);
}

#[test]
fn bottom_up_reaches_the_same_fixed_point() {
    let ctx = ctx();
    let build = |ir: &mut Ir<'_>| {
        let a = ir.arg(0);
        let c3 = ir.constant(3);
        let c0 = ir.constant(0);
        let x = ir.addi(c3, a);
        let y = ir.addi(x, c0);
        let n = ir.negi(ir.arg(0));
        let nn = ir.negi(n);
        let z = ir.muli(y, nn);
        ir.effect(&[z]);
        ir.ret(&[]);
    };
    let mut a = f1(&ctx, build);
    let mut b = f1(&ctx, build);
    let ta = canon(&ctx, &mut a, "top-down=true");
    let tb = canon(&ctx, &mut b, "top-down=false");
    assert_eq!(ta, tb);
    assert_eq!(ta, "%2 = test.constant() {value = 3}\n%3 = test.addi(%0, %2)\n%4 = test.muli(%3, %0)\ntest.effect(%4)\nfunc.return()");
}

#[test]
fn non_convergence_fails_with_test_convergence() {
    let ctx = ctx();
    // a + 0 needs a second iteration to see that nothing is left to do
    let build = |ir: &mut Ir<'_>| {
        let a = ir.arg(0);
        let c0 = ir.constant(0);
        let x = ir.addi(a, c0);
        ir.effect(&[x]);
        ir.ret(&[]);
    };
    let mut m = f1(&ctx, build);
    let e = run(
        &ctx,
        &mut m,
        "builtin.module(func.func(canonicalize{max-iterations=1 test-convergence=true}))",
    )
    .unwrap_err();
    assert_eq!(e, ["canonicalizer did not converge within 1 iterations"]);
    // the same without test-convergence is not an error
    let mut m = f1(&ctx, build);
    assert!(run(
        &ctx,
        &mut m,
        "builtin.module(func.func(canonicalize{max-iterations=1}))"
    )
    .is_ok());
}

#[test]
fn region_simplification_removes_unreachable_blocks_and_dead_arguments() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let build = |ir: &mut Ir<'_>| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let bb1 = ir.new_block(&[i32t, i32t]);
        let bb2 = ir.new_block(&[i32t]);
        let dead = ir.new_block(&[]);
        let x = ir.addi(a, a);
        ir.cond_br(c, bb1, &[a, x], bb2, &[x]);
        ir.at(bb1);
        let used = ir.body.block_arg(bb1, 0);
        ir.effect(&[used]); // bb1's second argument is unused
        ir.br(bb2, &[used]);
        ir.at(bb2);
        ir.ret(&[]); // bb2's argument is unused
        ir.at(dead);
        let q = ir.muli(a, a);
        ir.effect(&[q]);
        ir.br(bb1, &[a, a]);
    };
    let mut m = f1(&ctx, build);
    let out = canon(&ctx, &mut m, "");
    assert_eq!(
        out,
        "cf.cond_br(%1, %0)[^bb2, ^bb3]\n^bb2(%2):\ntest.effect(%2)\ncf.br()[^bb3]\n^bb3():\nfunc.return()"
    );
    let f = m.body.nested(m.ops()[0]).unwrap();
    let entry = f.entry_block(f.root_regions()[0]).unwrap();
    let br = f.last_op(entry).unwrap();
    let seg = f
        .attr(&ctx, br, "operandSegmentSizes")
        .and_then(|a| ctx.as_dense_ints(a));
    assert_eq!(seg, Some(vec![1, 1, 0]));
    let mut m = f1(&ctx, build);
    // unreachable blocks go in every sweep (as in MLIR); dead arguments stay
    let out = canon(&ctx, &mut m, "region-simplify=disabled");
    assert!(!out.contains("test.muli") && out.contains("^bb3(%"), "{out}");
}

#[test]
fn effects_and_unregistered_ops_stay() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = f1(&ctx, |ir| {
        let a = ir.arg(0);
        ir.op("test.effect", &[a], &[i32t], &[]);
        ir.op("foo.bar", &[a], &[i32t], &[]);
        let c = ir.constant(1);
        ir.op("foo.baz", &[c], &[], &[]);
        ir.ret(&[]);
    });
    assert_eq!(
        canon(&ctx, &mut m, ""),
        "%2 = test.constant() {value = 1}\n%3 = test.effect(%0)\n%4 = foo.bar(%0)\nfoo.baz(%2)\nfunc.return()"
    );
}

#[test]
fn reports_whether_the_ir_changed() {
    use xcs_ir::pass::{Pass, PassResult};
    let ctx = ctx();
    let pass = xcs_passes::canonicalize::Canonicalize {
        config: xcs_passes::canonicalize::Config::default(),
    };
    // only a constant to hoist: a change
    let mut m = f1(&ctx, |ir| {
        let a = ir.arg(0);
        ir.effect(&[a]);
        let c = ir.constant(4);
        ir.effect(&[c]);
        ir.ret(&[]);
    });
    let f = m.ops()[0];
    let body = m.body.nested_mut(f).unwrap();
    assert_eq!(pass.run(&ctx, body, &mut Vec::new()), Ok(PassResult::Changed));
    // already canonical: no change
    assert_eq!(pass.run(&ctx, body, &mut Vec::new()), Ok(PassResult::Unchanged));
}
