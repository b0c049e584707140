//! Tests of the test-support crate itself: what the test dialect's integer ops compute (on the
//! interpreter and through the LLVM JIT), which contexts and registries have the test dialect
//! and passes (the default ones do not), and the test passes with their default options.

use xcs_dialects::interp::{run_function, InterpError, RtValue};
use xcs_ir::Context;

/// Parses, verifies and runs `@name` of a module written in text.
fn run_src(ctx: &Context, src: &str, name: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
    let opts = xcs_ir::parser::ParseOptions::default();
    let m = xcs_ir::parser::parse_module(ctx, src, "test.mlir", &opts).unwrap_or_else(|d| panic!("{}", d.message));
    xcs_ir::verifier::verify_module(ctx, &m, false).unwrap_or_else(|ds| panic!("{:?}", ds[0].message));
    run_function(ctx, &m, name, args)
}

/// `@f(%a: i8, %b: i8)` returning `%a + %b`, `%a * %b`, `-%a`, the constant -3 and
/// `test.cmpi` of `%a` and `%b` with `predicate`.
fn integer_ops_program(predicate: &str) -> String {
    format!(
        r#"
func.func @f(%a: i8, %b: i8) -> (i8, i8, i8, i8, i1) {{
  %s = test.addi %a, %b : i8
  %p = test.muli %a, %b : i8
  %n = test.negi %a : i8
  %c = test.constant {{value = -3 : i8}} : i8
  %e = test.cmpi %a, %b {{predicate = "{predicate}"}} : (i8, i8) -> i1
  return %s, %p, %n, %c, %e : i8, i8, i8, i8, i1
}}
"#
    )
}

#[test]
fn test_dialect_integers_wrap_at_their_width() {
    let ctx = xcs_test_support::context();
    let src = &integer_ops_program("eq");
    let out = run_src(&ctx, src, "f", vec![RtValue::int(-128, 8), RtValue::int(100, 8)]).unwrap();
    let v: Vec<i128> = out.iter().map(|x| x.as_scalar().unwrap().value).collect();
    assert_eq!(v, vec![-28, 0, -128, -3, 0]);
    assert_eq!(out[4].to_string(), "false");
    assert_eq!(out[0].to_string(), "-28");
}

/// The wrapping arithmetic compiled by the LLVM backend (`lowering.rs`) gives what the
/// interpreter gives.
#[test]
fn test_dialect_integers_wrap_the_same_way_through_the_jit() {
    let ctx = xcs_test_support::lowering_context();
    let src = &integer_ops_program("slt");
    let opts = xcs_ir::parser::ParseOptions::default();
    let m = xcs_ir::parser::parse_module(&ctx, src, "test.mlir", &opts).unwrap();
    let args = vec![RtValue::int(-128, 8), RtValue::int(100, 8)];
    let want = run_function(&ctx, &m, "f", args.clone()).unwrap();
    let got = xcs_lowering::Jit::new(&ctx, &m, xcs_lowering::Options::host())
        .call("f", &args)
        .unwrap();
    let scalars = |vs: &[RtValue]| vs.iter().map(|v| v.as_scalar().unwrap()).collect::<Vec<_>>();
    assert_eq!(scalars(&got), scalars(&want));
    // (an i1 true is the signed value -1 at width 1)
    assert_eq!(
        scalars(&want).iter().map(|s| s.value).collect::<Vec<_>>(),
        vec![-28, 0, -128, -3, -1]
    );
    assert_eq!(got[4].to_string(), "true");
}

#[test]
fn default_contexts_and_registries_do_not_have_the_test_dialect_or_passes() {
    let is_test_op = |ctx: &Context| ctx.registered_ops().any(|d| d.name.starts_with("test."));
    assert!(!is_test_op(&xcs_dialects::context()));
    assert!(!is_test_op(&xcs_lowering::context()));
    assert!(!is_test_op(&xcs::Compiler::new().ctx));
    assert!(xcs_dialects::context().dialects().iter().all(|d| d.name != "test"));
    let is_test_pass = |r: &xcs_ir::pass::PassRegistry| r.passes().any(|p| p.argument.starts_with("test-"));
    assert!(!is_test_pass(&xcs_passes::registry()));
    assert!(!is_test_pass(&xcs::Compiler::new().registry));
    // the test support adds them
    assert!(is_test_op(&xcs_test_support::context()));
    assert!(is_test_op(&xcs_test_support::lowering_context()));
    assert!(is_test_op(&xcs_test_support::compiler().ctx));
    assert!(is_test_pass(&xcs_test_support::registry()));
    assert!(is_test_pass(&xcs_test_support::compiler().registry));
}

#[test]
fn the_test_passes_build_with_their_defaults() {
    let r = xcs_test_support::registry();
    let test_passes: Vec<&str> = r
        .passes()
        .map(|p| p.argument)
        .filter(|a| a.starts_with("test-"))
        .collect();
    assert_eq!(test_passes, ["test-break-ir", "test-pass-failure"]);
    for arg in test_passes {
        let (pass, _) = r.create(arg, "").unwrap();
        assert_eq!(pass.argument(), arg);
    }
}
