//! Building tensor IR from Rust with `xcs_ir::Builder` and the typed `tensor::*` builders:
//! result types are inferred (static and `?` dims) for every op with an `infer` hook, the built
//! module passes the real verifier and prints as expected, insertion points and locations are
//! honoured, and every mistake is an error (never a panic) that leaves the body unchanged.

use xcs_dialects::func::build_function;
use xcs_dialects::tensor;
use xcs_ir::printer::{print_module, type_to_string, PrintOptions};
use xcs_ir::verifier::verify_module;
use xcs_ir::{Body, Builder, Context, Location, Module, Type, Value, DYNAMIC};

const Q: i64 = DYNAMIC;

fn tt(ctx: &Context, shape: &[i64], elem: Type) -> Type {
    ctx.tensor_type(shape, elem)
}

fn ty(b: &Builder<'_>, v: Value) -> String {
    type_to_string(b.ctx, b.body.value_type(v))
}

fn verified(ctx: &Context, m: &Module) -> String {
    if let Err(ds) = verify_module(ctx, m, false) {
        let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
        panic!(
            "built IR does not verify: {msgs:?}\n{}",
            print_module(ctx, m, &PrintOptions::default())
        );
    }
    print_module(ctx, m, &PrintOptions::default())
}

/// The builders of the unary elementwise ops.
const UNARY: [fn(&mut Builder<'_>, Value) -> Result<Value, xcs_ir::Diagnostic>; 10] = [
    tensor::neg,
    tensor::abs,
    tensor::relu,
    tensor::exp,
    tensor::log,
    tensor::tanh,
    tensor::sigmoid,
    tensor::silu,
    tensor::sqrt,
    tensor::rsqrt,
];

/// Every tensor op through its typed builder, static shapes; the module verifies and prints
/// exactly this.
#[test]
fn every_tensor_op_builds_and_verifies() {
    let ctx = xcs_dialects::context();
    let (f32t, i64t, i32t, i1) = (ctx.f32_type(), ctx.i64_type(), ctx.i32_type(), ctx.i1_type());
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let inputs = [tt(&ctx, &[2, 3], f32t), tt(&ctx, &[3], f32t), tt(&ctx, &[4], i64t)];
    build_function(&ctx, &mut m, "all", &inputs, Location::UNKNOWN, |b, a| {
        let (x, v, ix) = (a[0], a[1], a[2]);
        let mut out = vec![
            tensor::add(b, x, v)?,
            tensor::sub(b, x, v)?,
            tensor::mul(b, v, x)?,
            tensor::div(b, x, x)?,
            tensor::max(b, x, v)?,
            tensor::min(b, x, v)?,
            tensor::pow(b, x, v)?,
        ];
        for f in UNARY {
            out.push(f(b, x)?);
        }
        out.push(tensor::gelu(b, x, "tanh")?);
        let c = tensor::cmp(b, x, v, "lt")?;
        out.push(c);
        out.push(tensor::select(b, c, x, v)?);
        out.push(tensor::cast(b, x, i32t)?);
        let xt = tensor::transpose(b, x, &[1, 0])?;
        out.push(xt);
        out.push(tensor::matmul(b, x, xt)?);
        out.push(tensor::einsum(b, &[x, xt], "ij,jk->ik")?);
        out.push(tensor::reduce(b, x, "sum", &[1], false)?);
        out.push(tensor::reduce(b, x, "max", &[0, 1], true)?);
        out.push(tensor::softmax(b, x, -1)?);
        out.push(tensor::layer_norm(b, x, v, v, 1, 1e-5)?);
        out.push(tensor::reshape(b, x, &[6])?);
        out.push(tensor::broadcast_to(b, v, &[4, 3])?);
        out.push(tensor::slice(b, x, &[0, 1], &[2, 3], &[1, 2])?);
        out.push(tensor::concat(b, &[x, x, x], 0)?);
        out.push(tensor::gather(b, x, ix, 1)?);
        out.push(tensor::splat_float(b, tt(b.ctx, &[2], f32t), 0.5)?);
        let one = tensor::splat_int(b, tt(b.ctx, &[2, 3], i1), 1)?;
        out.push(one);
        Ok(out)
    })
    .unwrap();
    let printed = verified(&ctx, &m);
    let expected = r#"module {
  func.func @all(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<1x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<4x3xf32>, tensor<2x1xf32>, tensor<6x3xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<2x3xi1>) {
    %0 = tensor.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = tensor.sub %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = tensor.mul %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = tensor.div %arg0, %arg0 : tensor<2x3xf32>
    %4 = tensor.max %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %5 = tensor.min %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %6 = tensor.pow %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %7 = tensor.neg %arg0 : tensor<2x3xf32>
    %8 = tensor.abs %arg0 : tensor<2x3xf32>
    %9 = tensor.relu %arg0 : tensor<2x3xf32>
    %10 = tensor.exp %arg0 : tensor<2x3xf32>
    %11 = tensor.log %arg0 : tensor<2x3xf32>
    %12 = tensor.tanh %arg0 : tensor<2x3xf32>
    %13 = tensor.sigmoid %arg0 : tensor<2x3xf32>
    %14 = tensor.silu %arg0 : tensor<2x3xf32>
    %15 = tensor.sqrt %arg0 : tensor<2x3xf32>
    %16 = tensor.rsqrt %arg0 : tensor<2x3xf32>
    %17 = tensor.gelu %arg0 {approximate = "tanh"} : tensor<2x3xf32>
    %18 = tensor.cmp %arg0, %arg1 {predicate = "lt"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %19 = tensor.select %18, %arg0, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %20 = tensor.cast %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %21 = tensor.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %22 = tensor.matmul %arg0, %21 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %23 = tensor.einsum %arg0, %21 {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %24 = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<2x3xf32>) -> tensor<2xf32>
    %25 = tensor.reduce %arg0 {axes = array<i64: 0, 1>, keepdims = true, kind = "max"} : (tensor<2x3xf32>) -> tensor<1x1xf32>
    %26 = tensor.softmax %arg0 {axis = -1 : i64} : tensor<2x3xf32>
    %27 = tensor.layer_norm %arg0, %arg1, %arg1 {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %28 = tensor.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
    %29 = tensor.broadcast_to %arg1 : (tensor<3xf32>) -> tensor<4x3xf32>
    %30 = tensor.slice %arg0 {limit = array<i64: 2, 3>, start = array<i64: 0, 1>, stride = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
    %31 = tensor.concat %arg0, %arg0, %arg0 {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
    %32 = tensor.gather %arg0, %arg2 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>
    %33 = tensor.constant {value = dense<5.000000e-01> : tensor<2xf32>} : tensor<2xf32>
    %34 = tensor.constant {value = dense<true> : tensor<2x3xi1>} : tensor<2x3xi1>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<1x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<4x3xf32>, tensor<2x1xf32>, tensor<6x3xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<2x3xi1>
  }
}
"#;
    assert_eq!(printed, expected);
}

/// Inference with `?` dims, for every op that has `infer`: the inferred type of each build,
/// and the whole function verifies.
#[test]
fn inference_with_dynamic_dims() {
    let ctx = xcs_dialects::context();
    let (f, i64t) = (ctx.f32_type(), ctx.i64_type());
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let inputs = [
        tt(&ctx, &[Q, 4], f),    // a0: ?x4
        tt(&ctx, &[3, 1], f),    // a1: 3x1
        tt(&ctx, &[Q, Q], f),    // a2: ?x?
        tt(&ctx, &[Q, 3, 4], f), // a3: ?x3x4
        tt(&ctx, &[4, Q], f),    // a4: 4x?
        tt(&ctx, &[Q], i64t),    // a5: ? indices
        tt(&ctx, &[4], f),       // a6: 4
        tt(&ctx, &[Q, 1], ctx.i1_type()),
    ];
    build_function(&ctx, &mut m, "dyn", &inputs, Location::UNKNOWN, |b, a| {
        let mut out = Vec::new();
        let mut check = |b: &Builder<'_>, v: Value, want: &str| {
            assert_eq!(ty(b, v), want);
            out.push(v);
        };
        // binary: `?` against 3 gives 3, against 1 stays `?`, `?` against `?` is `?`
        for f in [
            tensor::add,
            tensor::sub,
            tensor::mul,
            tensor::div,
            tensor::max,
            tensor::min,
            tensor::pow,
        ] {
            let v = f(b, a[0], a[1])?;
            check(b, v, "tensor<3x4xf32>");
            let v = f(b, a[0], a[6])?;
            check(b, v, "tensor<?x4xf32>");
            let v = f(b, a[2], a[0])?;
            check(b, v, "tensor<?x4xf32>");
            let v = f(b, a[2], a[2])?;
            check(b, v, "tensor<?x?xf32>");
        }
        for f in UNARY {
            let v = f(b, a[2])?;
            check(b, v, "tensor<?x?xf32>");
        }
        let v = tensor::gelu(b, a[0], "none")?;
        check(b, v, "tensor<?x4xf32>");
        let v = tensor::cmp(b, a[0], a[6], "ge")?;
        check(b, v, "tensor<?x4xi1>");
        let v = tensor::select(b, a[7], a[1], a[6])?;
        check(b, v, "tensor<3x4xf32>");
        // matmul: batch `?`, M, and N `?`; a dynamic K matches anything
        let v = tensor::matmul(b, a[3], a[4])?;
        check(b, v, "tensor<?x3x?xf32>");
        let v = tensor::matmul(b, a[2], a[4])?;
        check(b, v, "tensor<?x?xf32>");
        // einsum: a label's size is its first static size
        let v = tensor::einsum(b, &[a[2], a[4]], "ij,jk->ki")?;
        check(b, v, "tensor<?x?xf32>");
        let v = tensor::einsum(b, &[a[0], a[3]], "bj,bkj->kb")?;
        check(b, v, "tensor<3x?xf32>");
        let v = tensor::reduce(b, a[3], "mean", &[0, 2], true)?;
        check(b, v, "tensor<1x3x1xf32>");
        let v = tensor::reduce(b, a[3], "sum", &[-1], false)?;
        check(b, v, "tensor<?x3xf32>");
        let v = tensor::softmax(b, a[2], 0)?;
        check(b, v, "tensor<?x?xf32>");
        let v = tensor::layer_norm(b, a[0], a[6], a[6], -1, 1e-5)?;
        check(b, v, "tensor<?x4xf32>");
        let v = tensor::transpose(b, a[3], &[2, 0, 1])?;
        check(b, v, "tensor<4x?x3xf32>");
        // slice: static bounds give static sizes even in a `?` dim
        let v = tensor::slice(b, a[0], &[1, 0], &[5, 4], &[2, 3])?;
        check(b, v, "tensor<2x2xf32>");
        let v = tensor::concat(b, &[a[0], a[1]], 1)?;
        check(b, v, "tensor<3x5xf32>");
        let v = tensor::concat(b, &[a[0], a[0]], 0)?;
        check(b, v, "tensor<?x4xf32>");
        let v = tensor::gather(b, a[4], a[5], 0)?;
        check(b, v, "tensor<?x?xf32>");
        let v = tensor::gather(b, a[0], a[5], 1)?;
        check(b, v, "tensor<?x?xf32>");
        let v = tensor::cast(b, a[2], ctx.f16_type())?;
        check(b, v, "tensor<?x?xf16>");
        let v = tensor::reshape(b, a[0], &[Q])?;
        check(b, v, "tensor<?xf32>");
        let v = tensor::broadcast_to(b, a[1], &[Q, 3, 4])?;
        check(b, v, "tensor<?x3x4xf32>");
        Ok(out)
    })
    .unwrap();
    verified(&ctx, &m);
}

/// Ops are inserted at the insertion point, in creation order, with the builder's location.
#[test]
fn insertion_points_and_locations() {
    let ctx = xcs_dialects::context();
    let t = tt(&ctx, &[4], ctx.i32_type());
    let mut body = Body::new(&ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    let r = body.add_root_region();
    let blk = body.create_block(&[t]);
    body.append_block(r, blk);
    let x = body.block_arg(blk, 0);
    let mut b = Builder::at_end(&ctx, &mut body, blk);
    let loc = ctx.file_loc("model.py", 7, 3);
    b.set_loc(loc);
    let n1 = tensor::neg(&mut b, x).unwrap();
    let n4 = tensor::abs(&mut b, x).unwrap();
    let op1 = b.body.defining_op(n1).unwrap();
    let op4 = b.body.defining_op(n4).unwrap();
    b.set_insertion_point_after(op1);
    let n2 = tensor::relu(&mut b, x).unwrap();
    let n3 = tensor::add(&mut b, n1, n2).unwrap();
    b.set_insertion_point_to_start(blk);
    let n0 = tensor::splat_int(&mut b, t, 0).unwrap();
    b.set_insertion_point_before(op4);
    let n35 = tensor::mul(&mut b, n3, n0).unwrap();
    let order: Vec<Value> = body.block_ops(blk).map(|o| body.result(o, 0)).collect();
    assert_eq!(order, vec![n0, n1, n2, n3, n35, n4]);
    for o in body.block_ops(blk) {
        assert_eq!(body.op_loc(o), loc);
    }
}

/// Every kind of mistake is a located error worded like the verifier's, and leaves no op.
#[test]
fn build_errors_are_diagnostics() {
    let ctx = xcs_dialects::context();
    let (f, i32t) = (ctx.f32_type(), ctx.i32_type());
    let mut body = Body::new(&ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    let r = body.add_root_region();
    let blk = body.create_block(&[tt(&ctx, &[2, 3], f), tt(&ctx, &[3], i32t), tt(&ctx, &[4], f)]);
    body.append_block(r, blk);
    let a: Vec<Value> = body.block_args(blk).to_vec();
    let mut b = Builder::at_end(&ctx, &mut body, blk);
    let loc = ctx.file_loc("gen.py", 1, 1);
    b.set_loc(loc);
    let err = |r: Result<Value, xcs_ir::Diagnostic>| {
        let d = r.expect_err("the build should fail");
        assert_eq!(d.loc, loc);
        d.message
    };
    assert_eq!(
        err(b.create1("tensor.nope", &[a[0]], &[])),
        "cannot build unregistered operation 'tensor.nope'"
    );
    assert_eq!(
        err(b.create1("tensor.add", &[a[0]], &[])),
        "'tensor.add' op requires 2 operands, but found 1"
    );
    assert_eq!(
        err(tensor::add(&mut b, a[0], a[1])),
        "'tensor.add' op operand element types must match, but got 'f32' and 'i32'"
    );
    assert_eq!(
        err(tensor::add(&mut b, a[0], a[2])),
        "'tensor.add' op shapes 2x3 and 4 do not broadcast (dimension 3 vs 4)"
    );
    assert_eq!(
        err(tensor::exp(&mut b, a[1])),
        "'tensor.exp' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 values, but got 'tensor<3xi32>'"
    );
    assert_eq!(
        err(tensor::reduce(&mut b, a[0], "median", &[0], false)),
        "'tensor.reduce' op attribute 'kind' failed to satisfy constraint: string attribute, one of \"sum\", \"max\", \"min\", \"mean\", \"prod\""
    );
    assert_eq!(
        err(b.create1("tensor.reduce", &[a[0]], &[])),
        "'tensor.reduce' op requires array<i64> attribute 'axes'"
    );
    assert_eq!(
        err(tensor::transpose(&mut b, a[0], &[0, 0])),
        "'tensor.transpose' op transpose perm [0, 0] is not a permutation of 0..2"
    );
    assert_eq!(
        err(b.create1("tensor.reshape", &[a[0]], &[])),
        "'tensor.reshape' op does not infer its result types; create it with explicit result types (Builder::create_with_types)"
    );
    assert_eq!(
        err(tensor::reshape(&mut b, a[0], &[5])),
        "'tensor.reshape' op reshape from 2x3 (6 elements) to 5 (5 elements) changes the element count"
    );
    assert_eq!(
        err(tensor::broadcast_to(&mut b, a[0], &[3, 3])),
        "'tensor.broadcast_to' op shape 2x3 cannot be broadcast to 3x3"
    );
    let bad = tt(&ctx, &[6], i32t);
    assert_eq!(
        err(b.create1_with_types("tensor.reshape", &[a[0]], bad, &[])),
        "'tensor.reshape' op requires the same element type for all operands and results"
    );
    assert_eq!(
        err(b.create1_with_types("tensor.neg", &[a[0]], tt(&ctx, &[3, 2], f), &[])),
        "'tensor.neg' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'"
    );
    assert_eq!(
        err(tensor::splat_int(&mut b, tt(&ctx, &[Q], i32t), 1)),
        "'tensor.constant' op cannot make a splat of type 'tensor<?xi32>' (a static tensor of the value's kind is needed)"
    );
    // a value of another body
    let mut other = Body::new(&ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    let orr = other.add_root_region();
    let ob = other.create_block(&[f, f, f, f, f, f, f]);
    other.append_block(orr, ob);
    let foreign = other.block_arg(ob, 6);
    assert_eq!(
        err(tensor::neg(&mut b, foreign)),
        "'tensor.neg' op operand #0 is not a value of the body being built"
    );
    assert!(body.is_block_empty(blk), "failed builds must not leave ops behind");
    assert_eq!(body.num_ops(), 0);
}

/// The example of docs/rust-api.md.
#[test]
fn rust_api_doc_example() {
    let ctx = xcs_dialects::context();
    let mut module = Module::new(&ctx, Location::UNKNOWN);
    let f32t = ctx.f32_type();
    let inputs = [ctx.tensor_type(&[DYNAMIC, 64], f32t), ctx.tensor_type(&[64, 10], f32t)];
    build_function(&ctx, &mut module, "logits", &inputs, Location::UNKNOWN, |b, args| {
        let y = tensor::matmul(b, args[0], args[1])?;
        assert_eq!(ty(b, y), "tensor<?x10xf32>");
        let p = tensor::softmax(b, y, -1)?;
        let s = tensor::reduce(b, p, "sum", &[1], false)?;
        assert_eq!(ty(b, s), "tensor<?xf32>");
        Ok(vec![p, s])
    })
    .unwrap();
    let printed = verified(&ctx, &module);
    assert!(
        printed.contains(
            "func.func @logits(%arg0: tensor<?x64xf32>, %arg1: tensor<64x10xf32>) -> (tensor<?x10xf32>, tensor<?xf32>)"
        ),
        "{printed}"
    );
}

/// A failed build inside `build_function` is its error, and the module stays unchanged.
#[test]
fn build_function_errors_leave_the_module_alone() {
    let ctx = xcs_dialects::context();
    let mut module = Module::new(&ctx, Location::UNKNOWN);
    let t = tt(&ctx, &[2], ctx.f32_type());
    let e = build_function(&ctx, &mut module, "bad", &[t, t], ctx.file_loc("m.py", 3, 1), |b, a| {
        Ok(vec![tensor::matmul(b, a[0], a[1])?])
    })
    .unwrap_err();
    assert_eq!(
        e.message,
        "'tensor.matmul' op matmul operands must have rank >= 2, but got 1 and 1"
    );
    assert_eq!(e.loc, ctx.file_loc("m.py", 3, 1));
    assert!(module.ops().is_empty());
}

/// Any registered op with any of a few operand lists, with or without result types, builds or
/// fails with an error; nothing panics, and failures leave nothing behind.
#[test]
fn every_registered_op_builds_or_errs() {
    let ctx = xcs_dialects::context();
    let f = ctx.f32_type();
    let types = [
        tt(&ctx, &[2, 3], f),
        tt(&ctx, &[Q], ctx.i64_type()),
        ctx.i32_type(),
        tt(&ctx, &[2], ctx.i1_type()),
    ];
    let mut body = Body::new(&ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    let r = body.add_root_region();
    let blk = body.create_block(&types);
    body.append_block(r, blk);
    let a: Vec<Value> = body.block_args(blk).to_vec();
    let operand_lists: Vec<Vec<Value>> = vec![
        vec![],
        vec![a[0]],
        vec![a[1]],
        vec![a[2]],
        vec![a[0], a[0]],
        vec![a[3], a[0], a[0]],
        a.clone(),
    ];
    let mut b = Builder::at_end(&ctx, &mut body, blk);
    let (mut built, mut failed) = (0, 0);
    for def in ctx.registered_ops() {
        for ops in &operand_lists {
            let before = b.body.num_ops();
            let results = [
                b.create(def.name, ops, &[]).map(|_| ()),
                b.create_with_types(def.name, ops, &[], &[]).map(|_| ()),
                b.create_with_types(def.name, ops, &[types[0]], &[]).map(|_| ()),
                b.create_with_types(def.name, ops, &[types[2], types[2]], &[("value", ctx.i64_attr(1))])
                    .map(|_| ()),
            ];
            for r in results {
                match r {
                    Ok(()) => built += 1,
                    Err(_) => failed += 1,
                }
            }
            assert!(b.body.num_ops() >= before);
        }
    }
    let n = b.body.num_ops();
    assert_eq!(n, built, "every success added one op, every failure none");
    assert!(built > 10 && failed > 100, "built {built}, failed {failed}");
}
