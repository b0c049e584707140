//! Snapshot tests of the passes through the public API: each runs a pipeline on an input of the
//! test dialect with `xcs_test_support::assert_pipeline_snapshot!` (`xcs::assert_pipeline_snapshot!`
//! with the test dialect and passes registered; insta), and a test of the `xcs::Compiler` calls
//! (parse, run, print) with the rendered diagnostics of the failures.

use xcs::testing::run_pipeline;
use xcs::Compiler;

#[test]
fn cse_merges_what_dominates() {
    xcs_test_support::assert_pipeline_snapshot!(
        "cse_dominance",
        "func.func @f(%a: i32, %b: i32, %c: i1) -> i32 {
           %0 = test.addi %a, %b : i32
           %1 = test.addi %b, %a : i32
           test.effect %0, %1 : i32
           cf.cond_br %c, ^bb1, ^bb2
         ^bb1:
           %2 = test.addi %a, %b : i32
           %3 = test.muli %2, %2 : i32
           return %3 : i32
         ^bb2:
           %4 = test.muli %0, %0 : i32
           return %4 : i32
         }",
        "builtin.module(func.func(cse))"
    );
}

#[test]
fn cse_keeps_side_effects() {
    xcs_test_support::assert_pipeline_snapshot!(
        "cse_effects",
        "func.func @f(%a: i32) -> i32 {
           %0 = test.effect %a : i32
           %1 = test.effect %a : i32
           %2 = test.addi %0, %1 : i32
           return %2 : i32
         }",
        "builtin.module(cse)"
    );
}

#[test]
fn canonicalize_folds_to_a_fixed_point() {
    xcs_test_support::assert_pipeline_snapshot!(
        "canonicalize_fold",
        "func.func @f(%a: i32) -> i32 {
           %c0 = test.constant {value = 0 : i32} : i32
           %c1 = test.constant {value = 1 : i32} : i32
           %c2 = test.constant {value = 2 : i32} : i32
           %x = test.muli %a, %c1 : i32
           %y = test.addi %c0, %x : i32
           %n = test.negi %y : i32
           %nn = test.negi %n : i32
           %s = test.addi %c1, %c2 : i32
           %t = test.muli %c2, %nn : i32
           %u = test.addi %t, %s : i32
           return %u : i32
         }",
        "builtin.module(func.func(canonicalize))"
    );
}

#[test]
fn canonicalize_simplifies_control_flow() {
    xcs_test_support::assert_pipeline_snapshot!(
        "canonicalize_cf",
        "func.func @f(%a: i32, %b: i32) -> i32 {
           %t = test.constant {value = true} : i1
           cf.cond_br %t, ^bb1(%a : i32), ^bb2(%b : i32)
         ^bb1(%x: i32):
           cf.br ^bb3(%x : i32)
         ^bb2(%y: i32):
           cf.br ^bb3(%y : i32)
         ^bb3(%z: i32):
           %r = test.addi %z, %z : i32
           return %r : i32
         ^bb4:
           return %a : i32
         }",
        "builtin.module(func.func(canonicalize))"
    );
}

#[test]
fn canonicalize_with_one_iteration() {
    // the constant made by folding stays where the folded op was: hoisting is the next sweep
    xcs_test_support::assert_pipeline_snapshot!(
        "canonicalize_one_iteration",
        "func.func @f(%a: i32) -> i32 {
           %c7 = test.constant {value = 7 : i32} : i32
           test.effect %c7 : i32
           %c1 = test.constant {value = 1 : i32} : i32
           %c2 = test.constant {value = 2 : i32} : i32
           %s = test.addi %c1, %c2 : i32
           %t = test.addi %a, %s : i32
           return %t : i32
         }",
        "builtin.module(func.func(canonicalize{max-iterations=1}))"
    );
}

#[test]
fn dce_removes_unused_pure_ops() {
    xcs_test_support::assert_pipeline_snapshot!(
        "dce",
        "func.func @f(%a: i32) -> i32 {
           %0 = test.addi %a, %a : i32
           %1 = test.muli %0, %0 : i32
           %2 = test.effect %a : i32
           test.region : () -> () {
             %3 = test.negi %a : i32
             test.yield
           }
           return %a : i32
         }",
        "builtin.module(dce)"
    );
}

#[test]
fn symbol_dce_keeps_what_is_reachable() {
    xcs_test_support::assert_pipeline_snapshot!(
        "symbol_dce",
        "func.func private @dead() { return }
         func.func private @used() { return }
         func.func private @only_from_dead() { return }
         func.func private @calls_only_from_dead() {
           call @only_from_dead() : () -> ()
           return
         }
         func.func @main() {
           call @used() : () -> ()
           return
         }
         module @inner attributes {sym_visibility = \"private\"} {
           func.func @g() { return }
         }",
        "builtin.module(symbol-dce)"
    );
}

#[test]
fn inline_single_and_multi_block_callees() {
    xcs_test_support::assert_pipeline_snapshot!(
        "inline",
        "func.func private @add(%a: i32, %b: i32) -> i32 {
           %0 = test.addi %a, %b : i32
           return %0 : i32
         }
         func.func private @pick(%a: i32, %c: i1) -> i32 {
           cf.cond_br %c, ^bb1, ^bb2
         ^bb1:
           return %a : i32
         ^bb2:
           %0 = test.effect %a : i32
           return %0 : i32
         }
         func.func @rec(%a: i32) -> i32 {
           %0 = call @rec(%a) : (i32) -> i32
           return %0 : i32
         }
         func.func @main(%a: i32, %c: i1) -> i32 {
           %0 = call @add(%a, %a) : (i32, i32) -> i32
           %1 = call @pick(%0, %c) : (i32, i1) -> i32
           %2 = call @rec(%1) : (i32) -> i32
           return %2 : i32
         }",
        "builtin.module(inline{default-pipeline=})"
    );
}

#[test]
fn inline_then_cleanup_pipeline() {
    // the whole cleanup: inlining exposes constants, canonicalize folds them, cse merges,
    // symbol-dce drops what is left unused
    xcs_test_support::assert_pipeline_snapshot!(
        "inline_cleanup",
        "func.func private @scale(%a: i32, %k: i32) -> i32 {
           %0 = test.muli %a, %k : i32
           return %0 : i32
         }
         func.func private @unused() { return }
         func.func @main(%a: i32) -> i32 {
           %c1 = test.constant {value = 1 : i32} : i32
           %c2 = test.constant {value = 2 : i32} : i32
           %0 = call @scale(%a, %c1) : (i32, i32) -> i32
           %1 = call @scale(%0, %c2) : (i32, i32) -> i32
           %2 = test.addi %a, %a : i32
           %3 = test.addi %1, %2 : i32
           return %3 : i32
         }",
        "builtin.module(inline,func.func(canonicalize,cse),symbol-dce)"
    );
}

#[test]
fn failures_are_snapshotted_too() {
    xcs_test_support::assert_pipeline_snapshot!(
        "error_parse",
        "func.func @f(%a: i32) -> i32 {\n  %0 = test.addi %a, %nope : i32\n  return %0 : i32\n}",
        "builtin.module(cse)"
    );
    xcs_test_support::assert_pipeline_snapshot!(
        "error_unknown_pass",
        "func.func @f() { return }",
        "builtin.module(func.func(cse,nonexistent))"
    );
    xcs_test_support::assert_pipeline_snapshot!(
        "error_verify_each",
        "func.func @f(%a: i32) -> i32 {\n  %0 = test.addi %a, %a : i32\n  return %0 : i32\n}",
        "builtin.module(func.func(test-break-ir))"
    );
}

#[test]
fn compiler_api_parse_run_print() {
    let xcs = xcs_test_support::compiler();
    let mut module = xcs
        .parse(
            "func.func @f(%a: i64) -> i64 {
               %z = test.constant {value = 0 : i64} : i64
               %r = test.addi %a, %z : i64
               return %r : i64
             }",
        )
        .expect("valid input");
    xcs.run(&mut module, "builtin.module(func.func(canonicalize))")
        .expect("the pipeline runs");
    assert_eq!(
        xcs.print(&module),
        "module {\n  func.func @f(%arg0: i64) -> i64 {\n    return %arg0 : i64\n  }\n}\n"
    );
    assert!(xcs
        .print_generic(&module)
        .contains("\"func.return\"(%arg0) : (i64) -> ()"));

    // one thread gives the same result
    let mut one = Compiler::new();
    one.threading = false;
    let mut m = one.parse("func.func @g(%a: i64) -> i64 { return %a : i64 }").unwrap();
    one.run(&mut m, "builtin.module(func.func(cse))").unwrap();
    assert!(one.print(&m).contains("func.func @g"));
}

#[test]
fn compiler_api_errors_are_rendered() {
    let xcs = xcs_test_support::compiler();
    let err = xcs
        .parse_named("bad.mlir", "func.func @f() {\n  test.addi\n}")
        .err()
        .expect("invalid input");
    insta::assert_snapshot!("api_parse_error", err.to_string());
    assert_eq!(err.diagnostics.len(), 1);

    let mut module = xcs.parse("func.func @f() { return }").unwrap();
    let err = xcs
        .run(&mut module, "builtin.module(func.func(symbol-dce))")
        .expect_err("symbol-dce needs a symbol table");
    insta::assert_snapshot!("api_pass_error", err.to_string());

    let err = xcs
        .run(&mut module, "builtin.module(cse")
        .expect_err("malformed pipeline");
    insta::assert_snapshot!("api_pipeline_error", err.to_string());
    assert!(err.diagnostics.is_empty());

    // unregistered ops need allow_unregistered
    let src = "func.func @f() { \"foo.bar\"() : () -> () return }";
    assert!(xcs.parse(src).is_err());
    let mut lenient = Compiler::new();
    lenient.allow_unregistered = true;
    let m = lenient.parse(src).unwrap();
    assert!(lenient.print(&m).contains("\"foo.bar\"() : () -> ()"));
}

#[test]
fn run_pipeline_returns_text() {
    let out = run_pipeline("func.func @f() { return }", "builtin.module(cse)");
    assert_eq!(out, "module {\n  func.func @f() {\n    return\n  }\n}\n");
}
