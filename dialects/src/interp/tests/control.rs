//! Control flow, calls, recursion, the test dialect's integer ops and run-time errors of calls.

use std::sync::Arc;

use super::*;

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
    let ctx = crate::context();
    let m = parse(&ctx, SUM);
    for (n, want) in [(0, 0), (1, 1), (10, 55), (100, 5050)] {
        let out = run_function(&ctx, &m, "sum", vec![RtValue::int(n, 64)]).unwrap();
        assert_eq!(out[0].as_scalar(), Some(Scalar::new(want, 64)), "n = {n}");
    }
}

#[test]
fn op_limit_stops_long_loops() {
    let ctx = crate::context();
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
    let ctx = crate::context();
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
    let ctx = crate::context();
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
fn unbounded_recursion_through_vmap_regions() {
    // every call level also nests a region, which takes more native stack per level
    let ctx = crate::context();
    let src = r#"
func.func @g(%x: tensor<2xi64>) -> tensor<2xi64> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<2xi64> {
  ^bb0(%e: tensor<i64>):
    %w = tensor.broadcast_to %e : (tensor<i64>) -> tensor<2xi64>
    %c = func.call @g(%w) : (tensor<2xi64>) -> tensor<2xi64>
    %s = tensor.reduce %c {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<2xi64>) -> tensor<i64>
    xcs.yield %s : tensor<i64>
  }
  return %r : tensor<2xi64>
}
"#;
    let m = parse(&ctx, src);
    for depth in [DEFAULT_MAX_CALL_DEPTH, 5000] {
        let err = Interpreter::new(&ctx, &m)
            .with_max_call_depth(depth)
            .call("g", vec![Tensor::i64(&[2], &[1, 2]).into()])
            .unwrap_err();
        assert!(err.message.contains(&format!("call depth limit of {depth} exceeded")), "{}", err.message);
        assert_eq!(err.notes[0].1, "in batch element 0");
        assert_eq!(err.notes[1].1, "called from here (@g)");
    }
}

#[test]
fn test_dialect_integers_wrap_at_their_width() {
    let ctx = crate::context();
    let src = r#"
func.func @f(%a: i8, %b: i8) -> (i8, i8, i8, i8, i1) {
  %s = test.addi %a, %b : i8
  %p = test.muli %a, %b : i8
  %n = test.negi %a : i8
  %c = test.constant {value = -3 : i8} : i8
  %e = test.cmpi %a, %b {predicate = "eq"} : (i8, i8) -> i1
  return %s, %p, %n, %c, %e : i8, i8, i8, i8, i1
}
"#;
    let out = run_src(&ctx, src, "f", vec![RtValue::int(-128, 8), RtValue::int(100, 8)]).unwrap();
    let v: Vec<i128> = out.iter().map(|x| x.as_scalar().unwrap().value).collect();
    assert_eq!(v, vec![-28, 0, -128, -3, 0]);
    assert_eq!(out[4].to_string(), "false");
    assert_eq!(out[0].to_string(), "-28");
}

#[test]
fn call_errors() {
    let ctx = crate::context();
    let src = r#"
func.func private @ext(i64) -> i64
func.func @calls_ext(%a: i64) -> i64 {
  %r = call @ext(%a) : (i64) -> i64
  return %r : i64
}
func.func @id(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
"#;
    let m = parse(&ctx, src);
    let interp = Interpreter::new(&ctx, &m);
    assert_eq!(interp.function_names(), vec!["calls_ext", "ext", "id"]);
    let e = interp.call("calls_ext", vec![RtValue::int(1, 64)]).unwrap_err();
    assert_eq!(e.message, "'func.call' op @ext is an external declaration without a body; the interpreter cannot call it (give it a host implementation with Interpreter::with_external)");
    assert_eq!(e.loc, loc_of(&ctx, src, "call @ext"));
    // with a host implementation it runs; its results are checked against the declaration
    let double: ExternalFn = Arc::new(|args: &[RtValue]| Ok(vec![RtValue::int(args[0].as_scalar().unwrap().value * 2, 64)]));
    let with_ext = Interpreter::new(&ctx, &m).with_external("ext", double);
    assert_eq!(with_ext.call("calls_ext", vec![RtValue::int(21, 64)]).unwrap()[0].as_scalar().unwrap().value, 42);
    let wrong: ExternalFn = Arc::new(|_: &[RtValue]| Ok(vec!["text".into()]));
    let e = Interpreter::new(&ctx, &m).with_external("ext", wrong).call("calls_ext", vec![RtValue::int(1, 64)]).unwrap_err();
    assert_eq!(e.message, "result #0 of @ext: returned a value of type !xcs.str where 'i64' is expected");
    let failing: ExternalFn = Arc::new(|_: &[RtValue]| Err("no network".into()));
    let e = Interpreter::new(&ctx, &m).with_external("ext", failing).call("calls_ext", vec![RtValue::int(1, 64)]).unwrap_err();
    assert_eq!(e.message, "'func.call' op external function @ext failed: no network");
    let e = interp.call("nope", vec![]).unwrap_err();
    assert_eq!(e.message, "calls @nope, which is not a function of the module");
    let e = interp.call("id", vec![]).unwrap_err();
    assert_eq!(e.message, "@id takes 1 arguments, but 0 were given");
    let e = interp.call("id", vec![Tensor::f32(&[3], &[1., 2., 3.]).into()]).unwrap_err();
    assert_eq!(e.message, "argument #0 of @id: a value of type tensor<3xf32> where 'tensor<2xf32>' is expected");
    let e = interp.call("id", vec![Tensor::f64(&[2], &[1., 2.]).into()]).unwrap_err();
    assert_eq!(e.message, "argument #0 of @id: a value of type tensor<2xf64> where 'tensor<2xf32>' is expected");
    assert!(interp.call("id", vec![Tensor::f32(&[2], &[1., 2.]).into()]).is_ok());
    assert_eq!(interp.signature("id").map(|(i, r)| (i.len(), r.len())), Some((1, 1)));
    // the diagnostic form carries the location
    let d = interp.call("calls_ext", vec![RtValue::int(1, 64)]).unwrap_err().to_diagnostic();
    assert_eq!(d.severity, xcs_ir::Severity::Error);
    assert_eq!(d.loc, loc_of(&ctx, src, "call @ext"));
    assert_eq!(d.notes.len(), 0);
}

#[test]
fn calling_a_missing_function_is_an_error() {
    // a module the verifier would reject (the callee does not exist): built unverified
    let ctx = crate::context();
    let i = ctx.i64_type();
    let (mut b, args) = B::func(&ctx, &[i]);
    let r = b.op1("func.call", &[args[0]], i, &[("callee", ctx.symbol_ref("missing"))]);
    b.ret(&[r]);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    b.finish(&mut m, "calls_missing", &[i], &[i]);
    let e = run_function(&ctx, &m, "calls_missing", vec![RtValue::int(1, 64)]).unwrap_err();
    assert_eq!(e.message, "'func.call' op calls @missing, which is not a function of the module");
}

#[test]
fn unsupported_ops_are_errors() {
    let ctx = crate::context();
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

#[test]
fn calls_pass_tensors_and_return_many_results() {
    let ctx = crate::context();
    let src = r#"
func.func @sumdiff(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %s = tensor.add %a, %b : tensor<2xf32>
  %d = tensor.sub %a, %b : tensor<2xf32>
  return %s, %d : tensor<2xf32>, tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r:2 = call @sumdiff(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %p = tensor.mul %r#0, %r#1 : tensor<2xf32>
  return %p, %r#0 : tensor<2xf32>, tensor<2xf32>
}
"#;
    let out = run_src(&ctx, src, "main", vec![Tensor::f32(&[2], &[1., 2.]).into()]).unwrap();
    assert_eq!(out[0].as_tensor().unwrap(), &Tensor::f32(&[2], &[0., 0.]));
    assert_eq!(out[1].as_tensor().unwrap(), &Tensor::f32(&[2], &[2., 4.]));
}

#[test]
fn interpreter_and_values_are_thread_safe() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Interpreter<'static>>();
    assert_send_sync::<RtValue>();
    assert_send_sync::<InterpError>();
    assert_send_sync::<ProviderRegistry>();
}
