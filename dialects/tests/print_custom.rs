//! The custom forms of `builtin.module`, `func.*` and `cf.*` against what `mlir-opt` (LLVM 22)
//! prints for the same IR (quoted inputs `c.mlir` / `c2.mlir` in the comments), and their
//! generic forms against `mlir-opt --mlir-print-op-generic`. The IR is built through the
//! `Body` API (the parser is written separately).

use xcs_ir::printer::{print_isolated, print_module, PrintOptions};
use xcs_ir::{Attr, AttrKind, Block, Body, Context, Ident, Location, Module, Op, OperationState, Type, Value};

fn st(ctx: &Context, name: &str) -> OperationState {
    OperationState::new(ctx, name, Location::UNKNOWN)
}
fn put(body: &mut Body, block: Block, s: OperationState) -> Op {
    let op = body.create_op(s);
    body.append_op(block, op);
    op
}
fn dict(ctx: &Context, entries: &[(&str, Attr)]) -> Attr {
    let v: Vec<(Ident, Attr)> = entries.iter().map(|&(k, a)| (ctx.ident(k), a)).collect();
    ctx.dict(&v)
}
fn segments(ctx: &Context, s: [i32; 3]) -> Attr {
    let data: Vec<u8> = s.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.attr(AttrKind::DenseArray { elem: ctx.i32_type(), data: data.into() })
}

/// A `func.func` op state: name, type, optional visibility, extra attributes, and a body with
/// blocks of the given argument types (none: a declaration with an empty region).
fn func(
    ctx: &Context,
    name: &str,
    ins: &[Type],
    outs: &[Type],
    attrs: &[(&str, Attr)],
    blocks: &[&[Type]],
) -> (OperationState, Body, Vec<Block>) {
    let mut all =
        vec![("sym_name", ctx.str_attr(name)), ("function_type", ctx.type_attr(ctx.function_type(ins, outs)))];
    all.extend_from_slice(attrs);
    let mut s = st(ctx, "func.func");
    s.attrs = dict(ctx, &all);
    let mut body = Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    let r = body.add_root_region();
    let bs = blocks
        .iter()
        .map(|args| {
            let b = body.create_block(args);
            body.append_block(r, b);
            b
        })
        .collect();
    (s, body, bs)
}

fn finish(m: &mut Module, mut s: OperationState, body: Body) -> Op {
    s.nested = Some(Box::new(body));
    let b = m.block();
    put(&mut m.body, b, s)
}

fn build_c(ctx: &Context) -> Module {
    let (i1, i32t, i64t, f32t) = (ctx.i1_type(), ctx.i32_type(), ctx.i64_type(), ctx.f32_type());
    let mut m = Module::new(ctx, Location::UNKNOWN);
    m.body.set_self_attrs(dict(ctx, &[("sym_name", ctx.str_attr("m")), ("t.a", ctx.int_attr(1, i32t))]));
    let e = ctx.empty_dict();
    // func.func private @decl(i32, f32 {t.x = 1 : i32}) -> (f32 {t.r}, i32) attributes {t.k = "v"}
    let arg_attrs = ctx.array_attr(&[e, dict(ctx, &[("t.x", ctx.int_attr(1, i32t))])]);
    let res_attrs = ctx.array_attr(&[dict(ctx, &[("t.r", ctx.unit_attr())]), e]);
    let (s, b, _) = func(
        ctx,
        "decl",
        &[i32t, f32t],
        &[f32t, i32t],
        &[
            ("sym_visibility", ctx.str_attr("private")),
            ("arg_attrs", arg_attrs),
            ("res_attrs", res_attrs),
            ("t.k", ctx.str_attr("v")),
        ],
        &[],
    );
    finish(&mut m, s, b);
    // func.func nested @decl2() -> ((i32) -> i32)
    let fnt = ctx.function_type(&[i32t], &[i32t]);
    let (s, b, _) = func(ctx, "decl2", &[], &[fnt], &[("sym_visibility", ctx.str_attr("nested"))], &[]);
    finish(&mut m, s, b);
    // func.func @h(%x: i32 {t.y}, %y: i1) -> i32 attributes {no_inline, t.z}
    let arg_attrs = ctx.array_attr(&[dict(ctx, &[("t.y", ctx.unit_attr())]), e]);
    let (s, mut h, bs) = func(
        ctx,
        "h",
        &[i32t, i1],
        &[i32t],
        &[("arg_attrs", arg_attrs), ("no_inline", ctx.unit_attr()), ("t.z", ctx.unit_attr())],
        &[&[i32t, i1], &[i32t, i32t], &[], &[i32t]],
    );
    let (x, y) = (h.block_arg(bs[0], 0), h.block_arg(bs[0], 1));
    let f = put(&mut h, bs[0], st(ctx, "t.f").results(&[f32t]));
    let fv = h.result(f, 0);
    let c = put(
        &mut h,
        bs[0],
        st(ctx, "func.call").operands(&[x, fv]).results(&[f32t, i32t]).attr(ctx, "callee", ctx.symbol_ref("decl")),
    );
    // "t.er" region with a func.call: outside func.func's own region it keeps its prefix
    let r = h.create_region();
    let rb = h.create_block(&[]);
    h.append_block(r, rb);
    let q = put(
        &mut h,
        rb,
        st(ctx, "func.call").operands(&[x, y]).results(&[i32t]).attr(ctx, "callee", ctx.symbol_ref("h")),
    );
    let qv = h.result(q, 0);
    put(&mut h, rb, st(ctx, "t.yield").operands(&[qv]));
    let mut er = st(ctx, "t.er").results(&[i32t]);
    er.regions.push(r);
    put(&mut h, bs[0], er);
    put(&mut h, bs[0], st(ctx, "builtin.unrealized_conversion_cast").operands(&[x]).results(&[i64t]));
    let mut cb = st(ctx, "cf.cond_br").operands(&[y, x, x]).attr(ctx, "operandSegmentSizes", segments(ctx, [1, 2, 0]));
    cb.successors.extend([bs[1], bs[2]]);
    put(&mut h, bs[0], cb);
    let mut br = st(ctx, "cf.br");
    br.successors.push(bs[2]);
    put(&mut h, bs[1], br);
    let mut cb = st(ctx, "cf.cond_br").operands(&[y, x, x]).attr(ctx, "operandSegmentSizes", segments(ctx, [1, 1, 1]));
    cb.successors.extend([bs[3], bs[3]]);
    put(&mut h, bs[2], cb);
    let c1 = h.result(c, 1);
    put(&mut h, bs[3], st(ctx, "func.return").operands(&[c1]));
    finish(&mut m, s, h);
    // func.func @multi(%a: i32) -> (i32, i32) { func.return %a, %a : i32, i32 }
    let (s, mut b, bs) = func(ctx, "multi", &[i32t], &[i32t, i32t], &[], &[&[i32t]]);
    let a: Value = b.block_arg(bs[0], 0);
    put(&mut b, bs[0], st(ctx, "func.return").operands(&[a, a]));
    finish(&mut m, s, b);
    // func.func @"quoted name"() { return }
    let (s, mut b, bs) = func(ctx, "quoted name", &[], &[], &[], &[&[]]);
    put(&mut b, bs[0], st(ctx, "func.return"));
    finish(&mut m, s, b);
    // func.func private @empty_region_pub() -> ()
    let (s, b, _) = func(ctx, "empty_region_pub", &[], &[], &[("sym_visibility", ctx.str_attr("private"))], &[]);
    finish(&mut m, s, b);
    m
}

#[test]
fn func_and_cf_custom_forms() {
    let ctx = xcs_dialects::context();
    let m = build_c(&ctx);
    // mlir-opt --allow-unregistered-dialect c.mlir (the scf.execute_region of the original
    // replaced by the unregistered "t.er", printed generically everywhere)
    let expected = r#"module @m attributes {t.a = 1 : i32} {
  func.func private @decl(i32, f32 {t.x = 1 : i32}) -> (f32 {t.r}, i32) attributes {t.k = "v"}
  func.func nested @decl2() -> ((i32) -> i32)
  func.func @h(%arg0: i32 {t.y}, %arg1: i1) -> i32 attributes {no_inline, t.z} {
    %0 = "t.f"() : () -> f32
    %1:2 = call @decl(%arg0, %0) : (i32, f32) -> (f32, i32)
    %2 = "t.er"() ({
      %7 = func.call @h(%arg0, %arg1) : (i32, i1) -> i32
      "t.yield"(%7) : (i32) -> ()
    }) : () -> i32
    %3 = "builtin.unrealized_conversion_cast"(%arg0) : (i32) -> i64
    cf.cond_br %arg1, ^bb1(%arg0, %arg0 : i32, i32), ^bb2
  ^bb1(%4: i32, %5: i32):  // pred: ^bb0
    cf.br ^bb2
  ^bb2:  // 2 preds: ^bb0, ^bb1
    cf.cond_br %arg1, ^bb3(%arg0 : i32), ^bb3(%arg0 : i32)
  ^bb3(%6: i32):  // 2 preds: ^bb2, ^bb2
    return %1#1 : i32
  }
  func.func @multi(%arg0: i32) -> (i32, i32) {
    return %arg0, %arg0 : i32, i32
  }
  func.func @"quoted name"() {
    return
  }
  func.func private @empty_region_pub()
}
"#;
    assert_eq!(print_module(&ctx, &m, &PrintOptions::default()), expected);
}

#[test]
fn func_and_cf_generic_forms() {
    let ctx = xcs_dialects::context();
    let m = build_c(&ctx);
    // mlir-opt --mlir-print-op-generic: inherent attributes as properties, and unique names
    // numbered in MLIR's LIFO region order (@multi is numbered before @h)
    let expected = r#""builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{arg_attrs = [{}, {t.x = 1 : i32}], function_type = (i32, f32) -> (f32, i32), res_attrs = [{t.r}, {}], sym_name = "decl", sym_visibility = "private"}> ({
  }) {t.k = "v"} : () -> ()
  "func.func"() <{function_type = () -> ((i32) -> i32), sym_name = "decl2", sym_visibility = "nested"}> ({
  }) : () -> ()
  "func.func"() <{arg_attrs = [{t.y}, {}], function_type = (i32, i1) -> i32, no_inline, sym_name = "h"}> ({
  ^bb0(%arg1: i32, %arg2: i1):
    %0 = "t.f"() : () -> f32
    %1:2 = "func.call"(%arg1, %0) <{callee = @decl}> : (i32, f32) -> (f32, i32)
    %2 = "t.er"() ({
      %7 = "func.call"(%arg1, %arg2) <{callee = @h}> : (i32, i1) -> i32
      "t.yield"(%7) : (i32) -> ()
    }) : () -> i32
    %3 = "builtin.unrealized_conversion_cast"(%arg1) : (i32) -> i64
    "cf.cond_br"(%arg2, %arg1, %arg1)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (i1, i32, i32) -> ()
  ^bb1(%4: i32, %5: i32):  // pred: ^bb0
    "cf.br"()[^bb2] : () -> ()
  ^bb2:  // 2 preds: ^bb0, ^bb1
    "cf.cond_br"(%arg2, %arg1, %arg1)[^bb3, ^bb3] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i32, i32) -> ()
  ^bb3(%6: i32):  // 2 preds: ^bb2, ^bb2
    "func.return"(%1#1) : (i32) -> ()
  }) {t.z} : () -> ()
  "func.func"() <{function_type = (i32) -> (i32, i32), sym_name = "multi"}> ({
  ^bb0(%arg0: i32):
    "func.return"(%arg0, %arg0) : (i32, i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "quoted name"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "empty_region_pub", sym_visibility = "private"}> ({
  }) : () -> ()
}) {t.a = 1 : i32} : () -> ()
"#;
    assert_eq!(print_module(&ctx, &m, &PrintOptions { generic: true, ..Default::default() }), expected);
}

/// `c2.mlir`: attribute dictionaries of call, br, cond_br and return; result attributes;
/// unreachable blocks.
#[test]
fn custom_forms_with_attributes() {
    let ctx = xcs_dialects::context();
    let (i1, i32t) = (ctx.i1_type(), ctx.i32_type());
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    m.body.set_self_attrs(dict(&ctx, &[("sym_name", ctx.str_attr("m"))]));
    let (s, b, _) = func(&ctx, "d", &[i32t], &[i32t], &[("sym_visibility", ctx.str_attr("private"))], &[]);
    finish(&mut m, s, b);
    let (s, mut h, bs) = func(&ctx, "h", &[i32t, i1], &[i32t], &[], &[&[i32t, i1], &[i32t], &[], &[i32t]]);
    let (a, c) = (h.block_arg(bs[0], 0), h.block_arg(bs[0], 1));
    let mut call = st(&ctx, "func.call").operands(&[a]).results(&[i32t]);
    call.attrs = dict(
        &ctx,
        &[
            ("callee", ctx.symbol_ref("d")),
            ("no_inline", ctx.unit_attr()),
            ("arg_attrs", ctx.array_attr(&[dict(&ctx, &[("t.q", ctx.unit_attr())])])),
            ("t.z", ctx.int_attr(1, i32t)),
        ],
    );
    put(&mut h, bs[0], call);
    put(
        &mut h,
        bs[0],
        st(&ctx, "func.call").operands(&[a]).results(&[i32t]).attr(&ctx, "callee", ctx.symbol_ref("d")).attr(
            &ctx,
            "t.z",
            ctx.int_attr(1, i32t),
        ),
    );
    let mut br = st(&ctx, "cf.br").operands(&[a]).attr(&ctx, "t.w", ctx.unit_attr());
    br.successors.push(bs[1]);
    put(&mut h, bs[0], br);
    let x = h.block_arg(bs[1], 0);
    let mut cb = st(&ctx, "cf.cond_br")
        .operands(&[c, x])
        .attr(&ctx, "operandSegmentSizes", segments(&ctx, [1, 0, 1]))
        .attr(&ctx, "t.w", ctx.unit_attr());
    cb.successors.extend([bs[2], bs[3]]);
    put(&mut h, bs[1], cb);
    put(&mut h, bs[2], st(&ctx, "func.return").operands(&[a]).attr(&ctx, "t.r", ctx.unit_attr()));
    let yv = h.block_arg(bs[3], 0);
    put(&mut h, bs[3], st(&ctx, "func.return").operands(&[yv]));
    finish(&mut m, s, h);
    let res_attrs = ctx.array_attr(&[dict(&ctx, &[("t.a", ctx.unit_attr())])]);
    let (s, mut e, bs) = func(&ctx, "e", &[], &[i32t], &[("res_attrs", res_attrs)], &[&[]]);
    let c0 = put(&mut e, bs[0], st(&ctx, "t.c").results(&[i32t]));
    let c0v = e.result(c0, 0);
    put(&mut e, bs[0], st(&ctx, "func.return").operands(&[c0v]));
    finish(&mut m, s, e);
    let (s, mut f, bs) = func(&ctx, "f", &[], &[], &[], &[&[], &[]]);
    put(&mut f, bs[0], st(&ctx, "t.x"));
    put(&mut f, bs[0], st(&ctx, "func.return"));
    put(&mut f, bs[1], st(&ctx, "func.return"));
    let fop = finish(&mut m, s, f);
    let expected = r#"module @m {
  func.func private @d(i32) -> i32
  func.func @h(%arg0: i32, %arg1: i1) -> i32 {
    %0 = call @d(%arg0) {arg_attrs = [{t.q}], no_inline, t.z = 1 : i32} : (i32) -> i32
    %1 = call @d(%arg0) {t.z = 1 : i32} : (i32) -> i32
    cf.br ^bb1(%arg0 : i32) {t.w}
  ^bb1(%2: i32):  // pred: ^bb0
    cf.cond_br %arg1, ^bb2, ^bb3(%2 : i32) {t.w}
  ^bb2:  // pred: ^bb1
    return {t.r} %arg0 : i32
  ^bb3(%3: i32):  // pred: ^bb1
    return %3 : i32
  }
  func.func @e() -> (i32 {t.a}) {
    %0 = "t.c"() : () -> i32
    return %0 : i32
  }
  func.func @f() {
    "t.x"() : () -> ()
    return
  ^bb1:  // no predecessors
    return
  }
}
"#;
    assert_eq!(print_module(&ctx, &m, &PrintOptions::default()), expected);
    // an IR dump of one function (print_isolated): `func.func` keeps its prefix at the top
    let f = m.body.nested(fop).unwrap();
    assert_eq!(
        print_isolated(&ctx, f, &PrintOptions::default()),
        "func.func @f() {\n  \"t.x\"() : () -> ()\n  return\n^bb1:  // no predecessors\n  return\n}"
    );
}

#[test]
fn debug_info_on_function_arguments_and_fallback() {
    let ctx = xcs_dialects::context();
    let i32t = ctx.i32_type();
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let (mut s, mut f, bs) = func(&ctx, "f", &[i32t, i32t], &[i32t], &[], &[&[i32t, i32t]]);
    s.loc = ctx.file_loc("f.mlir", 2, 3);
    let a = f.block_arg(bs[0], 0);
    f.set_arg_loc(a, ctx.file_loc("x.py", 1, 2));
    let r = put(&mut f, bs[0], OperationState::new(&ctx, "func.return", ctx.file_loc("f.mlir", 3, 5)).operands(&[a]));
    let _ = r;
    finish(&mut m, s, f);
    // mlir-opt --mlir-print-debuginfo --mlir-print-local-scope (print_isolated: local scope)
    let debug = PrintOptions { debug_info: true, ..Default::default() };
    assert_eq!(
        print_isolated(&ctx, &m.body, &debug),
        "module {\n  func.func @f(%arg0: i32 loc(\"x.py\":1:2), %arg1: i32 loc(unknown)) -> i32 {\n    return %arg0 : i32 loc(\"f.mlir\":3:5)\n  } loc(\"f.mlir\":2:3)\n} loc(unknown)"
    );
    // mlir-opt --mlir-print-debuginfo
    assert_eq!(
        print_module(&ctx, &m, &debug),
        "#loc = loc(unknown)\n#loc2 = loc(\"x.py\":1:2)\nmodule {\n  func.func @f(%arg0: i32 loc(\"x.py\":1:2), %arg1: i32 loc(unknown)) -> i32 {\n    return %arg0 : i32 loc(#loc3)\n  } loc(#loc1)\n} loc(#loc)\n#loc1 = loc(\"f.mlir\":2:3)\n#loc3 = loc(\"f.mlir\":3:5)\n"
    );
    // a malformed func.func (no function_type) prints generically
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mut s = st(&ctx, "func.func");
    s.attrs = dict(&ctx, &[("sym_name", ctx.str_attr("g"))]);
    let mut body = Body::new(&ctx, ctx.op_name("func.func"), Location::UNKNOWN);
    body.add_root_region();
    finish(&mut m, s, body);
    assert_eq!(
        print_module(&ctx, &m, &PrintOptions::default()),
        "module {\n  \"func.func\"() <{sym_name = \"g\"}> ({\n  }) : () -> ()\n}\n"
    );
}

/// `l.mlir`: every location kind, printed by mlir-opt --mlir-print-debuginfo with `#loc`
/// aliases (block-argument locations inline, their aliases defined first; op locations
/// after the module).
#[test]
fn debug_info_with_location_aliases() {
    use xcs_ir::LocKind;
    let ctx = xcs_dialects::context();
    let i32t = ctx.i32_type();
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let (mut s, mut f, bs) = func(&ctx, "f", &[i32t, i32t], &[i32t], &[], &[&[i32t, i32t]]);
    s.loc = ctx.file_loc("f.mlir", 2, 3);
    let (a, b) = (f.block_arg(bs[0], 0), f.block_arg(bs[0], 1));
    f.set_arg_loc(a, ctx.file_loc("x.py", 1, 2));
    f.set_arg_loc(b, ctx.file_loc("l.mlir", 2, 41));
    let f35 = ctx.file_loc("f.mlir", 3, 5);
    let (la, lb, f11) = (ctx.name_loc("a", None), ctx.name_loc("b", None), ctx.file_loc("f.mlir", 1, 1));
    let file = ctx.ident("f.mlir");
    let locs = [
        f35,
        ctx.name_loc("name", None),
        ctx.name_loc("name", Some(f35)),
        ctx.loc(LocKind::CallSite { callee: la, caller: f11 }),
        ctx.loc(LocKind::Fused { metadata: None, locs: Box::new([la, lb]) }),
        ctx.loc(LocKind::Fused { metadata: Some(ctx.str_attr("meta")), locs: Box::new([la, f11]) }),
        Location::UNKNOWN,
        ctx.loc(LocKind::FileLineCol { file, line: 3, col: 5, end: Some((Some(4), 6)) }),
        ctx.loc(LocKind::FileLineCol { file, line: 3, col: 5, end: Some((None, 9)) }),
        ctx.file_loc("f.mlir", 3, 0),
    ];
    for (i, &l) in locs.iter().enumerate() {
        let name = if i == 0 { "t.a" } else { "t.b" };
        put(&mut f, bs[0], OperationState::new(&ctx, name, l).results(&[i32t]));
    }
    let q = ctx.attr(AttrKind::Location(ctx.file_loc("q", 1, 1)));
    put(&mut f, bs[0], OperationState::new(&ctx, "t.b", la).results(&[i32t]).attr(&ctx, "l", q));
    let r = f.create_region();
    let rb = f.create_block(&[i32t]);
    f.append_block(r, rb);
    let x = f.block_arg(rb, 0);
    f.set_arg_loc(x, ctx.file_loc("y", 2, 2));
    put(&mut f, rb, OperationState::new(&ctx, "t.y", f35));
    let mut tr = OperationState::new(&ctx, "t.r", ctx.name_loc("na\"me", None));
    tr.regions.push(r);
    put(&mut f, bs[0], tr);
    put(&mut f, bs[0], OperationState::new(&ctx, "func.return", f35).operands(&[a]));
    finish(&mut m, s, f);
    let expected = r##"#loc2 = loc("x.py":1:2)
#loc3 = loc("l.mlir":2:41)
#loc12 = loc("q":1:1)
#loc14 = loc("y":2:2)
module {
  func.func @f(%arg0: i32 loc("x.py":1:2), %arg1: i32 loc("l.mlir":2:41)) -> i32 {
    %0 = "t.a"() : () -> i32 loc(#loc4)
    %1 = "t.b"() : () -> i32 loc(#loc5)
    %2 = "t.b"() : () -> i32 loc(#loc15)
    %3 = "t.b"() : () -> i32 loc(#loc16)
    %4 = "t.b"() : () -> i32 loc(#loc17)
    %5 = "t.b"() : () -> i32 loc(#loc18)
    %6 = "t.b"() : () -> i32 loc(#loc)
    %7 = "t.b"() : () -> i32 loc(#loc9)
    %8 = "t.b"() : () -> i32 loc(#loc10)
    %9 = "t.b"() : () -> i32 loc(#loc11)
    %10 = "t.b"() {l = #loc12} : () -> i32 loc(#loc6)
    "t.r"() ({
    ^bb0(%arg2: i32 loc("y":2:2)):
      "t.y"() : () -> () loc(#loc4)
    }) : () -> () loc(#loc13)
    return %arg0 : i32 loc(#loc4)
  } loc(#loc1)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("f.mlir":2:3)
#loc4 = loc("f.mlir":3:5)
#loc5 = loc("name")
#loc6 = loc("a")
#loc7 = loc("f.mlir":1:1)
#loc8 = loc("b")
#loc9 = loc("f.mlir":3:5 to 4:6)
#loc10 = loc("f.mlir":3:5 to :9)
#loc11 = loc("f.mlir":3:0)
#loc13 = loc("na\22me")
#loc15 = loc("name"(#loc4))
#loc16 = loc(callsite(#loc6 at #loc7))
#loc17 = loc(fused[#loc6, #loc8])
#loc18 = loc(fused<"meta">[#loc6, #loc7])
"##;
    assert_eq!(print_module(&ctx, &m, &PrintOptions { debug_info: true, ..Default::default() }), expected);
}

/// The uniform pretty form of XCS ops (the examples of the design brief), inside a function.
/// By the brief's rule an op whose operand and result types are all equal prints one type,
/// so `xcs.vmap` here prints `: tensor<8x4xf32>` (the brief's example shows the function
/// type, which the parser accepts as well).
#[test]
fn pretty_form_of_xcs_ops() {
    let ctx = xcs_dialects::context();
    let f32t = ctx.f32_type();
    let t48 = ctx.tensor_type(&[4, 8], f32t);
    let t4 = ctx.tensor_type(&[4], f32t);
    let t84 = ctx.tensor_type(&[8, 4], f32t);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let (s, mut f, bs) = func(&ctx, "f", &[t48, t48, t84], &[t4, t84], &[], &[&[t48, t48, t84]]);
    let (a, b, x) = (f.block_arg(bs[0], 0), f.block_arg(bs[0], 1), f.block_arg(bs[0], 2));
    let add = put(&mut f, bs[0], st(&ctx, "tensor.add").operands(&[a, b]).results(&[t48]));
    let addv = f.result(add, 0);
    let red = put(
        &mut f,
        bs[0],
        st(&ctx, "tensor.reduce")
            .operands(&[addv])
            .results(&[t4])
            .attr(&ctx, "axes", ctx.dense_i64_array(&[1]))
            .attr(&ctx, "keepdims", ctx.bool_attr(false))
            .attr(&ctx, "kind", ctx.str_attr("sum")),
    );
    let redv = f.result(red, 0);
    let r = f.create_region();
    let rb = f.create_block(&[t4]);
    f.append_block(r, rb);
    let ra = f.block_arg(rb, 0);
    let e = put(&mut f, rb, st(&ctx, "tensor.exp").operands(&[ra]).results(&[t4]));
    let ev = f.result(e, 0);
    put(&mut f, rb, st(&ctx, "xcs.yield").operands(&[ev]));
    let mut vm = st(&ctx, "xcs.vmap")
        .operands(&[x])
        .results(&[t84])
        .attr(&ctx, "in_axes", ctx.dense_i64_array(&[0]))
        .attr(&ctx, "out_axes", ctx.dense_i64_array(&[0]));
    vm.regions.push(r);
    let v = put(&mut f, bs[0], vm);
    let vv = f.result(v, 0);
    put(&mut f, bs[0], st(&ctx, "func.return").operands(&[redv, vv]));
    finish(&mut m, s, f);
    let expected = r#"module {
  func.func @f(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
    %0 = tensor.add %arg0, %arg1 : tensor<4x8xf32>
    %1 = tensor.reduce %0 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
    %2 = xcs.vmap %arg2 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
    ^bb0(%arg3: tensor<4xf32>):
      %3 = tensor.exp %arg3 : tensor<4xf32>
      xcs.yield %3 : tensor<4xf32>
    }
    return %1, %2 : tensor<4xf32>, tensor<8x4xf32>
  }
}
"#;
    assert_eq!(print_module(&ctx, &m, &PrintOptions::default()), expected);
    let g = print_module(&ctx, &m, &PrintOptions { generic: true, ..Default::default() });
    assert!(g.contains(
        "%1 = \"tensor.reduce\"(%0) <{axes = array<i64: 1>, keepdims = false, kind = \"sum\"}> : (tensor<4x8xf32>) -> tensor<4xf32>"
    ), "{g}");
}
