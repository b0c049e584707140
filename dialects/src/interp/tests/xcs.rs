//! The xcs dialect: strings, format, LLM providers, vmap and parallel_map.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::*;
use ElemType::*;

fn axes(ctx: &Context, v: &[i64]) -> Attr {
    ctx.dense_i64_array(v)
}

fn s(ctx: &Context) -> Type {
    crate::xcs::str_type(ctx)
}

fn module_of(ctx: &Context, b: B<'_>, inputs: &[Type], results: &[Type]) -> Module {
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", inputs, results);
    m
}

#[test]
fn str_const_and_format() {
    let ctx = crate::context();
    let f = tt(&ctx, &[2], F32);
    let (mut b, a) = B::func(&ctx, &[f, ctx.i64_type()]);
    let name = b.op1("xcs.str_const", &[], s(&ctx), &[("value", ctx.str_attr("world"))]);
    let out = b.op1(
        "xcs.format",
        &[name, a[0], a[1]],
        s(&ctx),
        &[("template", ctx.str_attr("hello {}: {} {2} {{x}} {0}"))],
    );
    b.ret(&[out]);
    let m = module_of(&ctx, b, &[f, ctx.i64_type()], &[s(&ctx)]);
    let r = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1.0, 2.5]).into(), RtValue::int(-7, 64)]).unwrap();
    assert_eq!(r[0].as_str(), Some("hello world: [1.  2.5] -7 {x} world"));
}

fn llm_module(ctx: &Context, provider: &str) -> Module {
    let (mut b, a) = B::func(ctx, &[s(ctx)]);
    let p = b.op1("xcs.format", &[a[0]], s(ctx), &[("template", ctx.str_attr("Q: {}"))]);
    let r = b.op1("xcs.llm", &[p], s(ctx), &[("model", ctx.str_attr("m1")), ("provider", ctx.str_attr(provider))]);
    b.ret(&[r]);
    module_of(ctx, b, &[s(ctx)], &[s(ctx)])
}

#[test]
fn llm_providers() {
    let ctx = crate::context();
    let m = llm_module(&ctx, "echo");
    let r = run_function(&ctx, &m, "f", vec!["hi".into()]).unwrap();
    assert_eq!(r[0].as_str(), Some("Q: hi"), "echo returns the prompt unchanged");
    // unknown provider
    let m = llm_module(&ctx, "openai");
    let e = run_function(&ctx, &m, "f", vec!["hi".into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.llm' op unknown provider 'openai' (registered: echo)");
    assert_eq!(e.loc, ctx.file_loc("test.mlir", 3, 1));
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
    let m = llm_module(&ctx, "echo");
    let interp = Interpreter::new(&ctx, &m).with_providers(ProviderRegistry::empty());
    assert!(interp.call("f", vec!["hi".into()]).unwrap_err().message.contains("unknown provider 'echo'"));
}

/// `@f(x: tensor<4x3xf32>, w: tensor<3xf32>)`: `vmap` over the rows of x with w unbatched;
/// returns (x @ w batched at out axis 0, w unbatched, 2*x batched back at axis `out`).
fn matvec_module(ctx: &Context, op: &str, out: i64, extra: &[(&str, Attr)]) -> Module {
    let (x, w, row, sc) = (tt(ctx, &[4, 3], F32), tt(ctx, &[3], F32), tt(ctx, &[3], F32), tt(ctx, &[], F32));
    let two_x = match out {
        0 => tt(ctx, &[4, 3], F32),
        1 => tt(ctx, &[3, 4], F32),
        _ => row,
    };
    let (mut b, a) = B::func(ctx, &[x, w]);
    // a value defined outside the region, used inside
    let two = b.op1("tensor.constant", &[], sc, &[("value", tensor_to_attr(ctx, &Tensor::f32(&[], &[2.0])))]);
    let mut attrs = vec![("in_axes", axes(ctx, &[0, -1])), ("out_axes", axes(ctx, &[0, -1, out]))];
    attrs.extend_from_slice(extra);
    let r = b.region_op(op, &[a[0], a[1]], &[tt(ctx, &[4], F32), w, two_x], &attrs, &[row, w], |b, e| {
        let p = b.op1("tensor.mul", &[e[0], e[1]], row, &[]);
        let ctx = b.ctx;
        let d = b.op1(
            "tensor.reduce",
            &[p],
            sc,
            &[("kind", ctx.str_attr("sum")), ("axes", ctx.dense_i64_array(&[0])), ("keepdims", ctx.bool_attr(false))],
        );
        let t = b.op1("tensor.mul", &[e[0], two], row, &[]);
        b.op("xcs.yield", &[d, e[1], t], &[], &[]);
    });
    b.ret(&r);
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", &[x, w], &[tt(ctx, &[4], F32), w, two_x]);
    m
}

#[test]
fn vmap_in_and_out_axes() {
    let ctx = crate::context();
    let x = Tensor::f32(&[4, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.]);
    let w = Tensor::f32(&[3], &[1., 0., -1.]);
    for (op, extra) in [("xcs.vmap", vec![]), ("xcs.parallel_map", vec![]), ("xcs.parallel_map", vec![("max_concurrency", ctx.i64_attr(3))])] {
        for out in [0i64, 1, -1] {
            let m = matvec_module(&ctx, op, out, &extra);
            let r = run_function(&ctx, &m, "f", vec![x.clone().into(), w.clone().into()]).unwrap();
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

/// `vmap` with in_axes 1 over a `tensor<3x4xi32>`: each element is a column `tensor<3xi32>`;
/// the body negates it and the result stacks at out axis `out`.
#[test]
fn vmap_over_axis_one() {
    let ctx = crate::context();
    let (x, col) = (tt(&ctx, &[3, 4], I32), tt(&ctx, &[3], I32));
    for (out, rt) in [(0i64, tt(&ctx, &[4, 3], I32)), (1, x), (-1, col)] {
        let (mut b, a) = B::func(&ctx, &[x]);
        let r = b.region_op("xcs.vmap", &[a[0]], &[rt], &[("in_axes", axes(&ctx, &[1])), ("out_axes", axes(&ctx, &[out]))], &[col], |b, e| {
            let n = b.op1("tensor.neg", &[e[0]], col, &[]);
            b.op("xcs.yield", &[n], &[], &[]);
        });
        b.ret(&r);
        let m = module_of(&ctx, b, &[x], &[rt]);
        let input = Tensor::i32(&[3, 4], &(0..12).collect::<Vec<_>>());
        let got = run_function(&ctx, &m, "f", vec![input.clone().into()]).unwrap();
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
    let (x, row, el) = (tt(&ctx, &[2, 3], F64), tt(&ctx, &[3], F64), tt(&ctx, &[], F64));
    let (mut b, a) = B::func(&ctx, &[x]);
    let r = b.region_op(
        "xcs.vmap",
        &[a[0]],
        &[tt(&ctx, &[3, 2], F64)],
        &[("in_axes", axes(&ctx, &[0])), ("out_axes", axes(&ctx, &[1]))],
        &[row],
        |b, e| {
            let ctx = b.ctx;
            let inner = b.region_op("xcs.vmap", &[e[0]], &[row], &[("in_axes", axes(ctx, &[0])), ("out_axes", axes(ctx, &[0]))], &[el], |b, e2| {
                let sq = b.op1("tensor.mul", &[e2[0], e2[0]], el, &[]);
                b.op("xcs.yield", &[sq], &[], &[]);
            });
            b.op("xcs.yield", &inner, &[], &[]);
        },
    );
    b.ret(&r);
    let m = module_of(&ctx, b, &[x], &[tt(&ctx, &[3, 2], F64)]);
    let got = run_function(&ctx, &m, "f", vec![Tensor::f64(&[2, 3], &[1., 2., 3., 4., 5., 6.]).into()]).unwrap();
    assert_eq!(got[0].as_tensor().unwrap(), &Tensor::f64(&[3, 2], &[1., 16., 4., 25., 9., 36.]));
}

/// `map` over a batch of prompts: element `!xcs.str`, LLM call, results stacked into
/// `tensor<3x!xcs.str>`.
fn prompts_module(ctx: &Context, op: &str, provider: &str, extra: &[(&str, Attr)]) -> Module {
    let batch = tt(ctx, &[-1], Str);
    let (mut b, a) = B::func(ctx, &[batch]);
    let mut attrs = vec![("in_axes", axes(ctx, &[0])), ("out_axes", axes(ctx, &[0]))];
    attrs.extend_from_slice(extra);
    let r = b.region_op(op, &[a[0]], &[batch], &attrs, &[s(ctx)], |b, e| {
        let ctx = b.ctx;
        let p = b.op1("xcs.format", &[e[0]], s(ctx), &[("template", ctx.str_attr("Q: {}"))]);
        let r = b.op1("xcs.llm", &[p], s(ctx), &[("model", ctx.str_attr("m")), ("provider", ctx.str_attr(provider))]);
        b.op("xcs.yield", &[r], &[], &[]);
    });
    b.ret(&r);
    module_of(ctx, b, &[batch], &[batch])
}

#[test]
fn maps_over_strings() {
    let ctx = crate::context();
    let input = Tensor::strs(&[3], &["a", "b", "c"]);
    for op in ["xcs.vmap", "xcs.parallel_map"] {
        let m = prompts_module(&ctx, op, "echo", &[]);
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
        let m = prompts_module(&ctx, "xcs.parallel_map", "slow", &[("max_concurrency", ctx.i64_attr(limit as i64))]);
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
        let m = prompts_module(&ctx, op, "nope", &[]);
        let e = run_function(&ctx, &m, "f", vec![Tensor::strs(&[2], &["a", "b"]).into()]).unwrap_err();
        assert_eq!(e.message, "'xcs.llm' op unknown provider 'nope' (registered: echo)");
        assert_eq!(e.notes[0].1, "in batch element 0");
    }
    // batched operands with different batch sizes (dynamic dims)
    let d = tt(&ctx, &[-1], F32);
    let el = tt(&ctx, &[], F32);
    let (mut b, a) = B::func(&ctx, &[d, d]);
    let r = b.region_op("xcs.vmap", &[a[0], a[1]], &[d], &[("in_axes", axes(&ctx, &[0, 0])), ("out_axes", axes(&ctx, &[0]))], &[el, el], |b, e| {
        let s = b.op1("tensor.add", &[e[0], e[1]], el, &[]);
        b.op("xcs.yield", &[s], &[], &[]);
    });
    b.ret(&r);
    let m = module_of(&ctx, b, &[d, d], &[d]);
    let ok = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1., 2.]).into(), Tensor::f32(&[2], &[3., 4.]).into()]).unwrap();
    assert_eq!(ok[0].as_tensor().unwrap(), &Tensor::f32(&[2], &[4., 6.]));
    let e = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1., 2.]).into(), Tensor::f32(&[3], &[3., 4., 5.]).into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.vmap' op operand #1 has batch size 3 (axis 0 of a tensor<3xf32>), but an earlier operand has 2");
    // max_concurrency must be positive
    let m = prompts_module(&ctx, "xcs.parallel_map", "echo", &[("max_concurrency", ctx.i64_attr(0))]);
    let e = run_function(&ctx, &m, "f", vec![Tensor::strs(&[1], &["a"]).into()]).unwrap_err();
    assert_eq!(e.message, "'xcs.parallel_map' op max_concurrency must be at least 1, but is 0");
}
