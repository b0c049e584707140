//! Interpreter tests written with the `test` dialect's integer ops (`xcs-test-support`): loops
//! of blocks, recursion, the op and call-depth limits, registered ops without semantics, and
//! semantics attached to an op whose dialect gives none. An integration test, so it links the
//! one `xcs-dialects` that `xcs-test-support` links (the `Semantics` interface is the same type).

use xcs_dialects::interp::{
    run_function, InterpError, Interpreter, OpInfo, RtValue, Scalar, Semantics, ValueKernel, DEFAULT_MAX_CALL_DEPTH,
};
use xcs_ir::{Context, Location, Module};

/// Parses and verifies a module (file name `test.mlir`); panics with the message on errors.
fn parse(ctx: &Context, src: &str) -> Module {
    parse_with(ctx, src, false)
}

fn parse_with(ctx: &Context, src: &str, allow_unregistered: bool) -> Module {
    let opts = xcs_ir::parser::ParseOptions { allow_unregistered, ..Default::default() };
    let m = xcs_ir::parser::parse_module(ctx, src, "test.mlir", &opts)
        .unwrap_or_else(|d| panic!("parse error: {}\n{src}", d.message));
    if let Err(ds) = xcs_ir::verifier::verify_module(ctx, &m, false) {
        let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
        panic!("verification failed: {msgs:?}\n{src}");
    }
    m
}

/// The location the parser gives the op starting at the first occurrence of `needle` in `src`.
fn loc_of(ctx: &Context, src: &str, needle: &str) -> Location {
    let at = src.find(needle).unwrap_or_else(|| panic!("'{needle}' not in the source"));
    let line = src[..at].matches('\n').count() as u32 + 1;
    let col = (at - src[..at].rfind('\n').map_or(0, |p| p + 1)) as u32 + 1;
    ctx.file_loc("test.mlir", line, col)
}

/// Parses, verifies and runs `@name` of a module written in text.
fn run_src(ctx: &Context, src: &str, name: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
    let m = parse(ctx, src);
    run_function(ctx, &m, name, args)
}
/// `@sum(n) = 1 + 2 + ... + n` with a loop of blocks.
const SUM: &str = r#"
func.func @sum(%n: i64) -> i64 {
  %zero = test.constant {value = 0 : i64} : i64
  cf.br ^loop(%zero, %zero : i64, i64)
^loop(%i: i64, %acc: i64):
  %c = test.cmpi %i, %n {predicate = "slt"} : (i64, i64) -> i1
  cf.cond_br %c, ^body, ^exit(%acc : i64)
^body:
  %one = test.constant {value = 1 : i64} : i64
  %i1 = test.addi %i, %one : i64
  %a1 = test.addi %acc, %i1 : i64
  cf.br ^loop(%i1, %a1 : i64, i64)
^exit(%r: i64):
  return %r : i64
}
"#;

#[test]
fn branches_and_block_arguments() {
    let ctx = xcs_test_support::context();
    let m = parse(&ctx, SUM);
    for (n, want) in [(0, 0), (1, 1), (10, 55), (100, 5050)] {
        let out = run_function(&ctx, &m, "sum", vec![RtValue::int(n, 64)]).unwrap();
        assert_eq!(out[0].as_scalar(), Some(Scalar::new(want, 64)), "n = {n}");
    }
}

#[test]
fn op_limit_stops_long_loops() {
    let ctx = xcs_test_support::context();
    let m = parse(&ctx, SUM);
    let err = Interpreter::new(&ctx, &m).with_op_limit(50).call("sum", vec![RtValue::int(1000, 64)]).unwrap_err();
    assert!(err.message.ends_with("op operation limit of 50 exceeded"), "{}", err.message);
    // the same interpreter runs short calls fine (the count restarts per call)
    let interp = Interpreter::new(&ctx, &m).with_op_limit(50);
    assert!(interp.call("sum", vec![RtValue::int(2, 64)]).is_ok());
    assert!(interp.call("sum", vec![RtValue::int(2, 64)]).is_ok());
}

#[test]
fn recursion() {
    let ctx = xcs_test_support::context();
    let src = r#"
func.func @fib(%n: i64) -> i64 {
  %two = test.constant {value = 2 : i64} : i64
  %c = test.cmpi %n, %two {predicate = "slt"} : (i64, i64) -> i1
  cf.cond_br %c, ^base, ^rec
^base:
  return %n : i64
^rec:
  %m1 = test.constant {value = -1 : i64} : i64
  %m2 = test.constant {value = -2 : i64} : i64
  %n1 = test.addi %n, %m1 : i64
  %n2 = test.addi %n, %m2 : i64
  %f1 = call @fib(%n1) : (i64) -> i64
  %f2 = call @fib(%n2) : (i64) -> i64
  %s = test.addi %f1, %f2 : i64
  return %s : i64
}
"#;
    let out = run_src(&ctx, src, "fib", vec![RtValue::int(15, 64)]).unwrap();
    assert_eq!(out[0].as_scalar().unwrap().value, 610);
}

#[test]
fn unbounded_recursion_is_an_error_not_a_stack_overflow() {
    let ctx = xcs_test_support::context();
    let src = r#"
func.func @down(%n: i64) -> i64 {
  %m1 = test.constant {value = -1 : i64} : i64
  %n1 = test.addi %n, %m1 : i64
  %r = call @down(%n1) : (i64) -> i64
  return %r : i64
}
"#;
    let m = parse(&ctx, src);
    let err = run_function(&ctx, &m, "down", vec![RtValue::int(0, 64)]).unwrap_err();
    assert_eq!(err.message, format!("'func.call' op call depth limit of {DEFAULT_MAX_CALL_DEPTH} exceeded calling @down (unbounded recursion?)"));
    assert_eq!(err.loc, loc_of(&ctx, src, "call @down"));
    assert_eq!(err.notes.len(), 8, "notes are capped");
    assert_eq!(err.notes[0].1, "called from here (@down)");
    // a deeper limit works too: the interpreter's stack grows on demand
    let err = Interpreter::new(&ctx, &m).with_max_call_depth(20000).call("down", vec![RtValue::int(0, 64)]).unwrap_err();
    assert!(err.message.contains("limit of 20000"), "{}", err.message);
}

#[test]
fn unsupported_ops_are_errors() {
    let ctx = xcs_test_support::context();
    let src = r#"
func.func @f() -> i64 {
  %r = test.effect : () -> i64
  return %r : i64
}
"#;
    let e = run_src(&ctx, src, "f", vec![]).unwrap_err();
    assert_eq!(e.message, "'test.effect' op is not supported by the interpreter");
    assert_eq!(e.loc, loc_of(&ctx, src, "test.effect"));
    // an unregistered op too
    let src = r#"
func.func @f() -> i64 {
  %r = "foo.bar"() : () -> i64
  return %r : i64
}
"#;
    let m = parse_with(&ctx, src, true);
    let e = run_function(&ctx, &m, "f", vec![]).unwrap_err();
    assert_eq!(e.message, "'foo.bar' op is not supported by the interpreter");
}

/// The sum of integer operands, at the result's width.
fn sum_of_ints(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    let width = info
        .result_types
        .first()
        .and_then(|&t| info.ctx.int_width(t))
        .ok_or("result is not an integer")?;
    let total = args
        .iter()
        .map(|a| a.as_scalar().map(|s| s.value).ok_or("not an integer"))
        .sum::<Result<i128, _>>()?;
    Ok(RtValue::int(total, width))
}

#[test]
fn an_attached_semantics_runs_an_op_its_dialect_gives_none() {
    static SUM: ValueKernel = ValueKernel(sum_of_ints);
    let src = r#"
func.func @f(%a: i64, %b: i64) -> i64 {
  %r = "test.pure"(%a, %b) : (i64, i64) -> i64
  return %r : i64
}
"#;
    let plain = xcs_test_support::context();
    let e = run_src(&plain, src, "f", vec![RtValue::int(2, 64), RtValue::int(40, 64)]).unwrap_err();
    assert_eq!(e.message, "'test.pure' op is not supported by the interpreter");
    let mut ctx = xcs_test_support::context();
    ctx.attach_interface::<dyn Semantics>(xcs_test_support::dialect::PureOp::DEF, &SUM);
    let out = run_src(&ctx, src, "f", vec![RtValue::int(2, 64), RtValue::int(40, 64)]).unwrap();
    assert_eq!(out[0].as_scalar(), Some(Scalar::new(42, 64)));
}
