//! Control flow, calls, recursion, the test dialect's integer ops and run-time errors of calls.

use super::*;

fn i64t(ctx: &Context) -> Type {
    ctx.i64_type()
}

fn konst(b: &mut B<'_>, v: i64) -> Value {
    let ctx = b.ctx;
    b.op1("test.constant", &[], ctx.i64_type(), &[("value", ctx.i64_attr(v))])
}

fn cmp(b: &mut B<'_>, pred: &str, x: Value, y: Value) -> Value {
    let ctx = b.ctx;
    b.op1("test.cmpi", &[x, y], ctx.i1_type(), &[("predicate", ctx.str_attr(pred))])
}

/// `@sum(n) = 1 + 2 + ... + n` with a loop of blocks:
/// ```text
/// ^entry(%n): br ^loop(%zero, %zero)
/// ^loop(%i, %acc): %c = cmpi slt %i, %n ; cond_br %c, ^body, ^exit(%acc)
/// ^body: %i1 = addi %i, 1 ; %a1 = addi %acc, %i1 ; br ^loop(%i1, %a1)
/// ^exit(%r): return %r
/// ```
fn sum_module(ctx: &Context) -> Module {
    let i = i64t(ctx);
    let (mut b, args) = B::func(ctx, &[i]);
    let n = args[0];
    let zero = konst(&mut b, 0);
    let (lp, la) = b.new_block(&[i, i]);
    let (body, _) = b.new_block(&[]);
    let (exit, ea) = b.new_block(&[i]);
    b.br(lp, &[zero, zero]);
    b.set_block(lp);
    let c = cmp(&mut b, "slt", la[0], n);
    b.cond_br(c, body, &[], exit, &[la[1]]);
    b.set_block(body);
    let one = konst(&mut b, 1);
    let i1 = b.op1("test.addi", &[la[0], one], i, &[]);
    let a1 = b.op1("test.addi", &[la[1], i1], i, &[]);
    b.br(lp, &[i1, a1]);
    b.set_block(exit);
    b.ret(&[ea[0]]);
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "sum", &[i], &[i]);
    m
}

#[test]
fn branches_and_block_arguments() {
    let ctx = crate::context();
    let m = sum_module(&ctx);
    for (n, want) in [(0, 0), (1, 1), (10, 55), (100, 5050)] {
        let out = run_function(&ctx, &m, "sum", vec![RtValue::int(n, 64)]).unwrap();
        assert_eq!(out[0].as_scalar(), Some(Scalar::new(want, 64)), "n = {n}");
    }
}

#[test]
fn op_limit_stops_long_loops() {
    let ctx = crate::context();
    let m = sum_module(&ctx);
    let err = Interpreter::new(&ctx, &m).with_op_limit(50).call("sum", vec![RtValue::int(1000, 64)]).unwrap_err();
    assert!(err.message.ends_with("op operation limit of 50 exceeded"), "{}", err.message);
    // the same interpreter runs short calls fine (the count restarts per call)
    let interp = Interpreter::new(&ctx, &m).with_op_limit(50);
    assert!(interp.call("sum", vec![RtValue::int(2, 64)]).is_ok());
    assert!(interp.call("sum", vec![RtValue::int(2, 64)]).is_ok());
}

/// `@fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)`.
fn fib_module(ctx: &Context) -> Module {
    let i = i64t(ctx);
    let (mut b, args) = B::func(ctx, &[i]);
    let n = args[0];
    let two = konst(&mut b, 2);
    let c = cmp(&mut b, "slt", n, two);
    let (base, _) = b.new_block(&[]);
    let (rec, _) = b.new_block(&[]);
    b.cond_br(c, base, &[], rec, &[]);
    b.set_block(base);
    b.ret(&[n]);
    b.set_block(rec);
    let m1 = konst(&mut b, -1);
    let m2 = konst(&mut b, -2);
    let n1 = b.op1("test.addi", &[n, m1], i, &[]);
    let n2 = b.op1("test.addi", &[n, m2], i, &[]);
    let callee = ctx.symbol_ref("fib");
    let f1 = b.op1("func.call", &[n1], i, &[("callee", callee)]);
    let f2 = b.op1("func.call", &[n2], i, &[("callee", callee)]);
    let s = b.op1("test.addi", &[f1, f2], i, &[]);
    b.ret(&[s]);
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "fib", &[i], &[i]);
    m
}

#[test]
fn recursion() {
    let ctx = crate::context();
    let m = fib_module(&ctx);
    let out = run_function(&ctx, &m, "fib", vec![RtValue::int(15, 64)]).unwrap();
    assert_eq!(out[0].as_scalar().unwrap().value, 610);
}

/// `@down(n) = down(n - 1)`, forever.
fn unbounded_module(ctx: &Context) -> Module {
    let i = i64t(ctx);
    let (mut b, args) = B::func(ctx, &[i]);
    let m1 = konst(&mut b, -1);
    let n1 = b.op1("test.addi", &[args[0], m1], i, &[]);
    let r = b.op1("func.call", &[n1], i, &[("callee", ctx.symbol_ref("down"))]);
    b.ret(&[r]);
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "down", &[i], &[i]);
    m
}

#[test]
fn unbounded_recursion_is_an_error_not_a_stack_overflow() {
    let ctx = crate::context();
    let m = unbounded_module(&ctx);
    let err = run_function(&ctx, &m, "down", vec![RtValue::int(0, 64)]).unwrap_err();
    assert_eq!(err.message, format!("'func.call' op call depth limit of {DEFAULT_MAX_CALL_DEPTH} exceeded calling @down (unbounded recursion?)"));
    assert_eq!(err.loc, ctx.file_loc("test.mlir", 4, 1));
    assert_eq!(err.notes.len(), 8, "notes are capped");
    assert_eq!(err.notes[0].1, "called from here (@down)");
    // a deeper limit works too: the interpreter's stack grows on demand
    let err = Interpreter::new(&ctx, &m).with_max_call_depth(20000).call("down", vec![RtValue::int(0, 64)]).unwrap_err();
    assert!(err.message.contains("limit of 20000"), "{}", err.message);
}

#[test]
fn test_dialect_integers_wrap_at_their_width() {
    let ctx = crate::context();
    let i8t = ctx.integer_type(8, xcs_ir::types::Signedness::Signless);
    let (mut b, args) = B::func(&ctx, &[i8t, i8t]);
    let s = b.op1("test.addi", &[args[0], args[1]], i8t, &[]);
    let p = b.op1("test.muli", &[args[0], args[1]], i8t, &[]);
    let n = b.op1("test.negi", &[args[0]], i8t, &[]);
    let c = b.op1("test.constant", &[], i8t, &[("value", ctx.int_attr(-3, i8t))]);
    let eq = cmp(&mut b, "eq", args[0], args[1]);
    b.ret(&[s, p, n, c, eq]);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let i1 = ctx.i1_type();
    b.finish(&mut m, "f", &[i8t, i8t], &[i8t, i8t, i8t, i8t, i1]);
    let out = run_function(&ctx, &m, "f", vec![RtValue::int(-128, 8), RtValue::int(100, 8)]).unwrap();
    let v: Vec<i128> = out.iter().map(|x| x.as_scalar().unwrap().value).collect();
    assert_eq!(v, vec![-28, 0, -128, -3, 0]);
    assert_eq!(out[4].to_string(), "false");
    assert_eq!(out[0].to_string(), "-28");
}

#[test]
fn call_errors() {
    let ctx = crate::context();
    let i = i64t(&ctx);
    let f = tt(&ctx, &[2], ElemType::F32);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    // @caller calls @missing and @ext (a declaration)
    let (mut b, args) = B::func(&ctx, &[i]);
    let r = b.op1("func.call", &[args[0]], i, &[("callee", ctx.symbol_ref("missing"))]);
    b.ret(&[r]);
    b.finish(&mut m, "calls_missing", &[i], &[i]);
    let (mut b, args) = B::func(&ctx, &[i]);
    let r = b.op1("func.call", &[args[0]], i, &[("callee", ctx.symbol_ref("ext"))]);
    b.ret(&[r]);
    b.finish(&mut m, "calls_ext", &[i], &[i]);
    // @ext: a private declaration without a body
    let mut body = Body::new(&ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    body.add_root_region();
    let st = OperationState::new(&ctx, "func.func", Location::UNKNOWN)
        .attr(&ctx, "sym_name", ctx.str_attr("ext"))
        .attr(&ctx, "sym_visibility", ctx.str_attr("private"))
        .attr(&ctx, "function_type", ctx.type_attr(ctx.function_type(&[i], &[i])));
    let mut st = st;
    st.nested = Some(Box::new(body));
    let blk = m.block();
    let op = m.body.create_op(st);
    m.body.append_op(blk, op);
    // @id(tensor<2xf32>)
    let (mut b, args) = B::func(&ctx, &[f]);
    b.ret(&[args[0]]);
    b.finish(&mut m, "id", &[f], &[f]);

    let interp = Interpreter::new(&ctx, &m);
    assert_eq!(interp.function_names(), vec!["calls_ext", "calls_missing", "ext", "id"]);
    let e = interp.call("calls_missing", vec![RtValue::int(1, 64)]).unwrap_err();
    assert_eq!(e.message, "'func.call' op calls @missing, which is not a function of the module");
    let e = interp.call("calls_ext", vec![RtValue::int(1, 64)]).unwrap_err();
    assert_eq!(e.message, "'func.call' op @ext is an external declaration without a body; the interpreter cannot call it");
    let e = interp.call("nope", vec![]).unwrap_err();
    assert_eq!(e.message, "calls @nope, which is not a function of the module");
    let e = interp.call("id", vec![]).unwrap_err();
    assert_eq!(e.message, "@id takes 1 arguments, but 0 were given");
    let e = interp.call("id", vec![Tensor::f32(&[3], &[1., 2., 3.]).into()]).unwrap_err();
    assert!(e.message.starts_with("argument #0 of @id: a value of type tensor<3xf32> where '"), "{}", e.message);
    let e = interp.call("id", vec![Tensor::f64(&[2], &[1., 2.]).into()]).unwrap_err();
    assert!(e.message.starts_with("argument #0 of @id: a value of type tensor<2xf64>"), "{}", e.message);
    assert!(interp.call("id", vec![Tensor::f32(&[2], &[1., 2.]).into()]).is_ok());
    // the diagnostic form carries the location
    let d = e.to_diagnostic();
    assert_eq!(d.severity, xcs_ir::Severity::Error);
}

#[test]
fn unsupported_ops_are_errors() {
    let ctx = crate::context();
    let i = i64t(&ctx);
    let (mut b, _) = B::func(&ctx, &[]);
    let r = b.op1("test.effect", &[], i, &[]);
    b.ret(&[r]);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", &[], &[i]);
    let e = run_function(&ctx, &m, "f", vec![]).unwrap_err();
    assert_eq!(e.message, "'test.effect' op is not supported by the interpreter");
    assert_eq!(e.loc, ctx.file_loc("test.mlir", 2, 1));
    // an unregistered op too
    let (mut b, _) = B::func(&ctx, &[]);
    let r = b.op1("foo.bar", &[], i, &[]);
    b.ret(&[r]);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", &[], &[i]);
    let e = run_function(&ctx, &m, "f", vec![]).unwrap_err();
    assert_eq!(e.message, "'foo.bar' op is not supported by the interpreter");
}

#[test]
fn calls_pass_tensors_and_return_many_results() {
    let ctx = crate::context();
    let f = tt(&ctx, &[2], ElemType::F32);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let (mut b, a) = B::func(&ctx, &[f, f]);
    let s = b.op1("tensor.add", &[a[0], a[1]], f, &[]);
    let d = b.op1("tensor.sub", &[a[0], a[1]], f, &[]);
    b.ret(&[s, d]);
    b.finish(&mut m, "sumdiff", &[f, f], &[f, f]);
    let (mut b, a) = B::func(&ctx, &[f]);
    let r = b.op("func.call", &[a[0], a[0]], &[f, f], &[("callee", ctx.symbol_ref("sumdiff"))]);
    let p = b.op1("tensor.mul", &[r[0], r[1]], f, &[]);
    b.ret(&[p, r[0]]);
    b.finish(&mut m, "main", &[f], &[f, f]);
    let out = run_function(&ctx, &m, "main", vec![Tensor::f32(&[2], &[1., 2.]).into()]).unwrap();
    assert_eq!(out[0].as_tensor().unwrap(), &Tensor::f32(&[2], &[0., 0.]));
    assert_eq!(out[1].as_tensor().unwrap(), &Tensor::f32(&[2], &[2., 4.]));
}

#[test]
fn unbounded_recursion_through_vmap_regions() {
    // @g(x: tensor<2xi64>) = vmap over x { call @g(broadcast of the element) }: every call level
    // also nests a region, which takes more native stack per level
    let ctx = crate::context();
    let (v, el) = (tt(&ctx, &[2], ElemType::I64), tt(&ctx, &[], ElemType::I64));
    let (mut b, a) = B::func(&ctx, &[v]);
    let r = b.region_op(
        "xcs.vmap",
        &[a[0]],
        &[v],
        &[("in_axes", ctx.dense_i64_array(&[0])), ("out_axes", ctx.dense_i64_array(&[0]))],
        &[el],
        |b, e| {
            let ctx = b.ctx;
            let w = b.op1("tensor.broadcast_to", &[e[0]], v, &[]);
            let c = b.op1("func.call", &[w], v, &[("callee", ctx.symbol_ref("g"))]);
            let s = b.op1(
                "tensor.reduce",
                &[c],
                el,
                &[("kind", ctx.str_attr("sum")), ("axes", ctx.dense_i64_array(&[0])), ("keepdims", ctx.bool_attr(false))],
            );
            b.op("xcs.yield", &[s], &[], &[]);
        },
    );
    b.ret(&r);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    b.finish(&mut m, "g", &[v], &[v]);
    for depth in [DEFAULT_MAX_CALL_DEPTH, 5000] {
        let err = Interpreter::new(&ctx, &m)
            .with_max_call_depth(depth)
            .call("g", vec![Tensor::i64(&[2], &[1, 2]).into()])
            .unwrap_err();
        assert!(err.message.contains(&format!("call depth limit of {depth} exceeded")), "{}", err.message);
        assert_eq!(err.notes[1].1, "in batch element 0");
    }
}
