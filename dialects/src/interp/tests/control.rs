//! Control flow and calls on tensors, recursion through regions, and run-time errors of calls.
//! (Loops, recursion and unsupported registered ops written with the `test` dialect's integer
//! ops are in `dialects/tests/interp.rs`, which uses `xcs-test-support`.)

use std::sync::Arc;

use super::*;

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
