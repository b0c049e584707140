//! The xcs dialect: strings, format, LLM providers, vmap and parallel_map.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::*;

#[test]
fn str_const_and_format() {
    let ctx = crate::context();
    let src = r#"
func.func @f(%t: tensor<2xf32>, %i: i64) -> !xcs.str {
  %name = xcs.str_const {value = "world"} : !xcs.str
  %out = xcs.format %name, %t, %i {template = "hello {}: {} {2} {{x}} {0}"} : (!xcs.str, tensor<2xf32>, i64) -> !xcs.str
  return %out : !xcs.str
}
"#;
    let r = run_src(&ctx, src, "f", vec![Tensor::f32(&[2], &[1.0, 2.5]).into(), RtValue::int(-7, 64)]).unwrap();
    assert_eq!(r[0].as_str(), Some("hello world: [1.  2.5] -7 {x} world"));
}

fn llm_src(provider: &str) -> String {
    format!(
        r#"
func.func @f(%q: !xcs.str) -> !xcs.str {{
  %p = xcs.format %q {{template = "Q: {{}}"}} : !xcs.str
  %r = xcs.llm %p {{model = "m1", provider = "{provider}"}} : !xcs.str
  return %r : !xcs.str
}}
"#
    )
}

#[test]
fn llm_providers() {
    let ctx = crate::context();
    let r = run_src(&ctx, &llm_src("echo"), "f", vec!["hi".into()]).unwrap();
    assert_eq!(r[0].as_str(), Some("Q: hi"), "echo returns the prompt unchanged");
    // unknown provider
    let src = llm_src("openai");
    let m = parse(&ctx, &src);
    let e = run_function(&ctx, &m, "f", vec!["hi".into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.llm' op unknown provider 'openai' (registered: echo)");
    assert_eq!(e.loc, loc_of(&ctx, &src, "xcs.llm"));
    // a custom provider (a closure) gets the model and the prompt; its errors name it
    let interp = Interpreter::new(&ctx, &m).with_provider(
        "openai",
        Arc::new(|model: &str, prompt: &str| Ok(format!("[{model}] {}", prompt.to_uppercase()))),
    );
    assert_eq!(interp.call("f", vec!["hi".into()]).unwrap()[0].as_str(), Some("[m1] Q: HI"));
    let interp = Interpreter::new(&ctx, &m).with_provider("openai", Arc::new(|_: &str, _: &str| Err("rate limited".to_string())));
    let e = interp.call("f", vec!["hi".into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.llm' op provider 'openai' failed: rate limited");
    // a registry without echo
    let m = parse(&ctx, &llm_src("echo"));
    let interp = Interpreter::new(&ctx, &m).with_providers(ProviderRegistry::empty());
    assert!(interp.call("f", vec!["hi".into()]).unwrap_err().message.contains("unknown provider 'echo'"));
    assert_eq!(ProviderRegistry::default().names(), vec!["echo"]);
}

/// `@f(x: tensor<4x3xf32>, w: tensor<3xf32>)`: a map over the rows of x with w unbatched;
/// returns (x @ w batched at out axis 0, w unbatched, 2*x at out axis `out`). The constant 2
/// is defined outside the region and used inside.
fn matvec_src(op: &str, out: i64, extra: &str) -> String {
    let two_x = match out {
        0 => "tensor<4x3xf32>",
        1 => "tensor<3x4xf32>",
        _ => "tensor<3xf32>",
    };
    format!(
        r#"
func.func @f(%x: tensor<4x3xf32>, %w: tensor<3xf32>) -> (tensor<4xf32>, tensor<3xf32>, {two_x}) {{
  %two = tensor.constant {{value = dense<2.0> : tensor<f32>}} : tensor<f32>
  %r:3 = {op} %x, %w {{in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, -1, {out}>{extra}}} : (tensor<4x3xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<3xf32>, {two_x}) {{
  ^bb0(%row: tensor<3xf32>, %v: tensor<3xf32>):
    %p = tensor.mul %row, %v : tensor<3xf32>
    %d = tensor.reduce %p {{axes = array<i64: 0>, keepdims = false, kind = "sum"}} : (tensor<3xf32>) -> tensor<f32>
    %t = tensor.mul %row, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    xcs.yield %d, %v, %t : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> ()
  }}
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<3xf32>, {two_x}
}}
"#
    )
}

#[test]
fn vmap_in_and_out_axes() {
    let ctx = crate::context();
    let x = Tensor::f32(&[4, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.]);
    let w = Tensor::f32(&[3], &[1., 0., -1.]);
    for (op, extra) in [("xcs.vmap", ""), ("xcs.parallel_map", ""), ("xcs.parallel_map", ", max_concurrency = 3 : i64")] {
        for out in [0i64, 1, -1] {
            let r = run_src(&ctx, &matvec_src(op, out, extra), "f", vec![x.clone().into(), w.clone().into()]).unwrap();
            assert_eq!(r[0].as_tensor().unwrap(), &Tensor::f32(&[4], &[-2., -2., -2., -2.]), "{op}");
            assert_eq!(r[1].as_tensor().unwrap(), &w, "{op}: out_axes -1 gives element 0's value");
            let doubled = Tensor::f32(&[4, 3], &[2., 4., 6., 8., 10., 12., 14., 16., 18., 20., 22., 24.]);
            let want = match out {
                0 => doubled,
                1 => doubled.transpose(&[1, 0]).unwrap(),
                _ => Tensor::f32(&[3], &[2., 4., 6.]),
            };
            assert_eq!(r[2].as_tensor().unwrap(), &want, "{op} out_axes {out}");
        }
    }
}

#[test]
fn vmap_over_axis_one() {
    // in_axes 1 over a tensor<3x4xi32>: each element is a column tensor<3xi32>, negated
    let ctx = crate::context();
    for (out, rt) in [(0i64, "tensor<4x3xi32>"), (1, "tensor<3x4xi32>"), (-1, "tensor<3xi32>")] {
        let src = format!(
            r#"
func.func @f(%x: tensor<3x4xi32>) -> {rt} {{
  %r = xcs.vmap %x {{in_axes = array<i64: 1>, out_axes = array<i64: {out}>}} : (tensor<3x4xi32>) -> {rt} {{
  ^bb0(%col: tensor<3xi32>):
    %n = tensor.neg %col : tensor<3xi32>
    xcs.yield %n : tensor<3xi32>
  }}
  return %r : {rt}
}}
"#
        );
        let input = Tensor::i32(&[3, 4], &(0..12).collect::<Vec<_>>());
        let got = run_src(&ctx, &src, "f", vec![input.into()]).unwrap();
        let neg = Tensor::i32(&[3, 4], &(0..12).map(|v| -v).collect::<Vec<_>>());
        let want = match out {
            0 => neg.transpose(&[1, 0]).unwrap(),
            1 => neg,
            _ => Tensor::i32(&[3], &[0, -4, -8]),
        };
        assert_eq!(got[0].as_tensor().unwrap(), &want, "out_axes {out}");
    }
}

#[test]
fn nested_vmaps() {
    // outer over the rows (axis 0), inner over the elements of a row; out axes 0 then 1
    // transposes: r[j, i] = x[i, j] * x[i, j]
    let ctx = crate::context();
    let src = r#"
func.func @f(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 1>} : (tensor<2x3xf64>) -> tensor<3x2xf64> {
  ^bb0(%row: tensor<3xf64>):
    %i = xcs.vmap %row {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<3xf64> {
    ^bb0(%e: tensor<f64>):
      %sq = tensor.mul %e, %e : tensor<f64>
      xcs.yield %sq : tensor<f64>
    }
    xcs.yield %i : tensor<3xf64>
  }
  return %r : tensor<3x2xf64>
}
"#;
    let got = run_src(&ctx, src, "f", vec![Tensor::f64(&[2, 3], &[1., 2., 3., 4., 5., 6.]).into()]).unwrap();
    assert_eq!(got[0].as_tensor().unwrap(), &Tensor::f64(&[3, 2], &[1., 16., 4., 25., 9., 36.]));
}

#[test]
fn vmap_with_strings_and_scalars_unbatched() {
    // an unbatched !xcs.str operand is passed to every element unchanged; an i64 scalar result
    // batched at axis 0 becomes a tensor<...xi64>
    let ctx = crate::context();
    let src = r#"
func.func @f(%x: tensor<2xf32>, %prefix: !xcs.str) -> (tensor<2x!xcs.str>, !xcs.str) {
  %r:2 = xcs.vmap %x, %prefix {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, -1>} : (tensor<2xf32>, !xcs.str) -> (tensor<2x!xcs.str>, !xcs.str) {
  ^bb0(%e: tensor<f32>, %p: !xcs.str):
    %s = xcs.format %p, %e {template = "{}={}"} : (!xcs.str, tensor<f32>) -> !xcs.str
    xcs.yield %s, %p : (!xcs.str, !xcs.str) -> ()
  }
  return %r#0, %r#1 : tensor<2x!xcs.str>, !xcs.str
}
"#;
    let got = run_src(&ctx, src, "f", vec![Tensor::f32(&[2], &[0.5, 3.0]).into(), "x".into()]).unwrap();
    assert_eq!(got[0].as_tensor().unwrap(), &Tensor::strs(&[2], &["x=0.5", "x=3.0"]));
    assert_eq!(got[1].as_str(), Some("x"));
    assert_eq!(got[0].to_string(), "['x=0.5' 'x=3.0']");
}

/// A map over a batch of prompts: element `!xcs.str`, LLM call, results stacked into a
/// `tensor<?x!xcs.str>`.
fn prompts_src(op: &str, provider: &str, extra: &str) -> String {
    format!(
        r#"
func.func @f(%b: tensor<?x!xcs.str>) -> tensor<?x!xcs.str> {{
  %r = {op} %b {{in_axes = array<i64: 0>, out_axes = array<i64: 0>{extra}}} : tensor<?x!xcs.str> {{
  ^bb0(%q: !xcs.str):
    %p = xcs.format %q {{template = "Q: {{}}"}} : !xcs.str
    %a = xcs.llm %p {{model = "m", provider = "{provider}"}} : !xcs.str
    xcs.yield %a : !xcs.str
  }}
  return %r : tensor<?x!xcs.str>
}}
"#
    )
}

#[test]
fn maps_over_strings() {
    let ctx = crate::context();
    let input = Tensor::strs(&[3], &["a", "b", "c"]);
    for op in ["xcs.vmap", "xcs.parallel_map"] {
        let m = parse(&ctx, &prompts_src(op, "echo", ""));
        let got = run_function(&ctx, &m, "f", vec![input.clone().into()]).unwrap();
        assert_eq!(got[0].as_tensor().unwrap(), &Tensor::strs(&[3], &["Q: a", "Q: b", "Q: c"]), "{op}");
        // an empty batch gives an empty result
        let got = run_function(&ctx, &m, "f", vec![Tensor::strs(&[0], &[]).into()]).unwrap();
        assert_eq!(got[0].as_tensor().unwrap(), &Tensor::strs(&[0], &[]));
    }
}

#[test]
fn parallel_map_runs_concurrently_up_to_max_concurrency_in_order() {
    let ctx = crate::context();
    let n = 8;
    let prompts: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let input = Tensor::strs(&[n], &prompts.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    for limit in [1usize, 2, 4] {
        let m = parse(&ctx, &prompts_src("xcs.parallel_map", "slow", &format!(", max_concurrency = {limit} : i64")));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let order = Arc::new(Mutex::new(Vec::new()));
        let (fl, pk, od) = (in_flight.clone(), peak.clone(), order.clone());
        let slow = move |_: &str, prompt: &str| -> Result<String, String> {
            let now = fl.fetch_add(1, Ordering::SeqCst) + 1;
            pk.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(15));
            od.lock().unwrap().push(prompt.to_string());
            fl.fetch_sub(1, Ordering::SeqCst);
            Ok(format!("<{prompt}>"))
        };
        let interp = Interpreter::new(&ctx, &m).with_provider("slow", Arc::new(slow));
        let got = interp.call("f", vec![input.clone().into()]).unwrap();
        let want: Vec<String> = prompts.iter().map(|p| format!("<Q: {p}>")).collect();
        assert_eq!(got[0].as_tensor().unwrap(), &Tensor::strs(&[n], &want.iter().map(|s| s.as_str()).collect::<Vec<_>>()));
        let p = peak.load(Ordering::SeqCst);
        assert!(p <= limit, "peak {p} > max_concurrency {limit}");
        if limit > 1 {
            assert!(p >= 2, "with max_concurrency {limit}, calls should overlap (peak {p})");
        }
        assert_eq!(order.lock().unwrap().len(), n);
    }
}

#[test]
fn map_errors() {
    let ctx = crate::context();
    // an error inside an element names the element
    for op in ["xcs.vmap", "xcs.parallel_map"] {
        let src = prompts_src(op, "nope", "");
        let e = run_src(&ctx, &src, "f", vec![Tensor::strs(&[2], &["a", "b"]).into()]).unwrap_err();
        assert_eq!(e.message, "'xcs.llm' op unknown provider 'nope' (registered: echo)");
        assert_eq!(e.notes[0], (loc_of(&ctx, &src, op), "in batch element 0".to_string()));
    }
    // batched operands with different run-time batch sizes
    let src = r#"
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = xcs.vmap %a, %b {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = tensor.add %x, %y : tensor<f32>
    xcs.yield %s : tensor<f32>
  }
  return %r : tensor<?xf32>
}
"#;
    let m = parse(&ctx, src);
    let ok = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1., 2.]).into(), Tensor::f32(&[2], &[3., 4.]).into()]).unwrap();
    assert_eq!(ok[0].as_tensor().unwrap(), &Tensor::f32(&[2], &[4., 6.]));
    let e = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1., 2.]).into(), Tensor::f32(&[3], &[3., 4., 5.]).into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.vmap' op operand #1 has batch size 3 (axis 0 of a tensor<3xf32>), but an earlier operand has 2");
    // max_concurrency must be positive
    let src = prompts_src("xcs.parallel_map", "echo", ", max_concurrency = 0 : i64");
    let e = run_src(&ctx, &src, "f", vec![Tensor::strs(&[1], &["a"]).into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.parallel_map' op max_concurrency must be at least 1, but is 0");
}
