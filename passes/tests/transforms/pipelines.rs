//! Pipelines of the real passes on test-dialect functions: deterministic parallel runs (1 and 2
//! threads, no threading), IR dumps with the real printer, `--inline` printed with locations,
//! and an ignored benchmark of the function passes on many functions.

use xcs_ir::pass::PassManager;
use xcs_test_support::builder::*;

/// Many functions through cse and canonicalize, with 1 and 2 threads and without threading:
/// the same IR and the same diagnostics.
#[test]
fn parallel_pipeline_is_deterministic() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let build = || {
        let mut m = module(&ctx);
        for i in 0..40 {
            func(&ctx, &mut m, &format!("f{i}"), &[i32t], &[i32t], false, |ir| {
                let a = ir.arg(0);
                let c = ir.constant(i);
                let two = ir.constant(2);
                let x = ir.addi(a, c);
                let y = ir.addi(a, c);
                let z = ir.muli(x, two);
                let w = ir.addi(z, y);
                ir.ret(&[w]);
            });
        }
        m
    };
    let mut outs = Vec::new();
    for (threads, threading) in [(1, true), (2, true), (2, false)] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut m = build();
        let mut pm = PassManager::parse("builtin.module(func.func(cse,canonicalize,cse))", &xcs_passes::registry()).unwrap();
        pm.options.verify_each = false;
        pm.options.threading = threading;
        pm.options.print_after_all = true;
        pm.options.printer = |c, b, _| dump(c, b);
        let mut diags = Vec::new();
        let mut ir_out = Vec::new();
        pool.install(|| pm.run_with(&ctx, &mut m, &mut diags, &mut ir_out, None))
            .unwrap();
        outs.push((dump_module(&ctx, &m), String::from_utf8(ir_out).unwrap()));
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
    assert_eq!(
        outs[0]
            .1
            .matches("// -----// IR Dump After CSE (cse) //----- //")
            .count(),
        80
    );
    // x + c, then (x + c) * 2 -> (x + c) + (x + c), then + (x + c)
    assert!(outs[0].0.contains("func.return"));
    assert_eq!(outs[0].0.matches("test.muli").count(), 0);
}

/// Timing of `func.func(cse)` and `func.func(canonicalize)` on 1000 functions of ~300 ops,
/// with and without threading (run with `--release -- --ignored --nocapture`).
#[test]
#[ignore]
fn bench_function_passes() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let build = || {
        let mut m = module(&ctx);
        for i in 0..1000 {
            func(&ctx, &mut m, &format!("f{i}"), &[i32t], &[i32t], false, |ir| {
                let mut v = ir.arg(0);
                for k in 0..100 {
                    let c = ir.constant(k % 7);
                    let x = ir.addi(v, c);
                    let y = ir.addi(v, c);
                    v = ir.muli(x, y);
                }
                ir.ret(&[v]);
            });
        }
        m
    };
    for pipeline in [
        "builtin.module(func.func(cse))",
        "builtin.module(func.func(canonicalize))",
    ] {
        for threading in [false, true] {
            let mut m = build();
            let n = m.num_ops();
            let mut pm = PassManager::parse(pipeline, &xcs_passes::registry()).unwrap();
            pm.options.verify_each = false;
            pm.options.threading = threading;
            let t = std::time::Instant::now();
            pm.run_with(&ctx, &mut m, &mut Vec::new(), &mut std::io::sink(), None)
                .unwrap();
            let d = t.elapsed();
            eprintln!(
                "{pipeline} threading={threading}: {n} ops -> {} ops in {:.3}s ({:.2} Mops/s)",
                m.num_ops(),
                d.as_secs_f64(),
                n as f64 / d.as_secs_f64() / 1e6
            );
        }
    }
}

/// IR dumps with the real printer, as `--mlir-print-ir-before=cse --mlir-print-ir-after-all`.
#[test]
fn ir_dumps_with_the_printer() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = i32_function(&ctx, |ir, a| {
        let x = ir.addi(a, a);
        let y = ir.addi(a, a);
        let z = ir.muli(x, y);
        ir.ret(&[z]);
    });
    func(&ctx, &mut m, "g", &[i32t], &[i32t], true, |ir| {
        ir.ret(&[ir.arg(0)]);
    });
    let mut pm = PassManager::parse("builtin.module(func.func(cse),symbol-dce)", &xcs_passes::registry()).unwrap();
    pm.options.print_before = vec!["cse".into()];
    pm.options.print_after_all = true;
    pm.options.print_after_change = true;
    let mut out = Vec::new();
    pm.run_with(&ctx, &mut m, &mut Vec::new(), &mut out, None).unwrap();
    insta::assert_snapshot!(String::from_utf8(out).unwrap());
    let printed = xcs_ir::printer::print_module(&ctx, &m, &Default::default());
    insta::assert_snapshot!(printed);
}

/// `--inline` on a multi-block callee, printed with locations: the shape and the call-site
/// locations mlir-opt gives (`callsite("t.mlir":L:C at "t.mlir":7:3)`).
#[test]
fn inline_output_with_locations() {
    let ctx = ctx();
    let (i32t, i1) = (ctx.i32_type(), ctx.i1_type());
    let mut m = module(&ctx);
    func(&ctx, &mut m, "callee", &[i32t, i1], &[i32t], true, |ir| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let bb1 = ir.new_block(&[]);
        let bb2 = ir.new_block(&[]);
        ir.cond_br(c, bb1, &[], bb2, &[]);
        ir.at(bb1);
        let x = ir.op_at(3, "test.addi", &[a, a], &[i32t], &[]);
        let x = ir.body.result(x, 0);
        ir.ret(&[x]);
        ir.at(bb2);
        ir.ret(&[a]);
    });
    func(&ctx, &mut m, "caller", &[i32t, i1], &[i32t], false, |ir| {
        let (a, c) = (ir.arg(0), ir.arg(1));
        let x = ir.muli(a, a);
        let call = ir.op_at(
            7,
            "func.call",
            &[x, c],
            &[i32t],
            &[("callee", ir.ctx.symbol_ref("callee"))],
        );
        let r = ir.body.result(call, 0);
        let y = ir.muli(r, r);
        ir.ret(&[y]);
    });
    run(&ctx, &mut m, "builtin.module(inline)").unwrap();
    let opts = xcs_ir::printer::PrintOptions {
        debug_info: true,
        ..Default::default()
    };
    insta::assert_snapshot!(xcs_ir::printer::print_module(&ctx, &m, &opts));
}
