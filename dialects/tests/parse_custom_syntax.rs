//! Parsing the custom forms of `builtin.module`, `func.*` and `cf.*` exactly as mlir-opt 22
//! prints and accepts them, checked through the Body/Context API (and error messages with
//! their line:col).

use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::{AttrKind, Body, Context, Module, Op};

fn parse(ctx: &Context, src: &str) -> Module {
    let o = ParseOptions { allow_unregistered: true, line_offset: 0, col_offset: 0, ..Default::default() };
    match parse_module(ctx, src, "in.mlir", &o) {
        Ok(m) => m,
        Err(d) => panic!("{} at {:?}", d.message, ctx.loc_file_line_col(d.loc).map(|x| (x.1, x.2))),
    }
}

fn err(src: &str) -> (String, u32, u32) {
    let ctx = xcs_dialects::context();
    let o = ParseOptions { allow_unregistered: true, line_offset: 0, col_offset: 0, ..Default::default() };
    match parse_module(&ctx, src, "in.mlir", &o) {
        Ok(_) => panic!("expected an error"),
        Err(d) => {
            let (_, l, c) = ctx.loc_file_line_col(d.loc).unwrap();
            (d.message, l, c)
        }
    }
}

fn name(ctx: &Context, b: &Body, op: Op) -> String {
    ctx.op_name_str(b.op_name(op)).to_string()
}

const FUNCS: &str = r#"func.func private @f(i32) -> f32
func.func @g(%arg0: i32 {a.b}, %arg1: f32 loc("x":1:2)) -> (i32 {r.x}, f32) attributes {k} {
  %0:2 = call @h(%arg0) : (i32) -> (i32, f32)
  return %0#0, %0#1 : i32, f32
}
func.func private @h(i32 {x.y}, f32) -> (i32, f32)
func.func @cf(%c: i1, %a: i32) {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  cf.cond_br %c, ^bb1(%a : i32), ^bb2 {w}
^bb2:
  func.return
}
func.func nested @v() attributes {x.y} {
  "func.return"() : () -> ()
}
"#;

#[test]
fn func_and_cf_custom_forms() {
    let ctx = xcs_dialects::context();
    let m = parse(&ctx, FUNCS);
    let ops = m.ops();
    assert_eq!(ops.len(), 5);
    let b = &m.body;
    for &op in &ops {
        assert_eq!(name(&ctx, b, op), "func.func");
        assert!(b.is_isolated(op));
        assert_eq!(b.num_regions(op), 1);
    }
    // declaration
    let f = ops[0];
    assert_eq!(b.attr(&ctx, f, "sym_name"), Some(ctx.str_attr("f")));
    assert_eq!(b.attr(&ctx, f, "sym_visibility"), Some(ctx.str_attr("private")));
    let ft = ctx.function_type(&[ctx.i32_type()], &[ctx.f32_type()]);
    assert_eq!(b.attr(&ctx, f, "function_type"), Some(ctx.type_attr(ft)));
    assert_eq!(b.attr(&ctx, f, "arg_attrs"), None);
    let fb = b.nested(f).unwrap();
    assert!(fb.region_is_empty(fb.root_regions()[0]));
    // definition with argument and result attributes
    let g = ops[1];
    let d = |k: &str| ctx.dict(&[(ctx.ident(k), ctx.unit_attr())]);
    assert_eq!(b.attr(&ctx, g, "arg_attrs"), Some(ctx.array_attr(&[d("a.b"), ctx.empty_dict()])));
    assert_eq!(b.attr(&ctx, g, "res_attrs"), Some(ctx.array_attr(&[d("r.x"), ctx.empty_dict()])));
    assert_eq!(b.attr(&ctx, g, "k"), Some(ctx.unit_attr()));
    assert_eq!(b.attr(&ctx, g, "sym_visibility"), None);
    let gb = b.nested(g).unwrap();
    let entry = gb.entry_block(gb.root_regions()[0]).unwrap();
    let args = gb.block_args(entry).to_vec();
    assert_eq!(args.len(), 2);
    assert_eq!(gb.arg_loc(args[1]), Some(ctx.file_loc("x", 1, 2)));
    let body_ops = gb.block_op_vec(entry);
    assert_eq!(body_ops.len(), 2);
    let call = body_ops[0];
    assert_eq!(name(&ctx, gb, call), "func.call");
    assert_eq!(gb.attr(&ctx, call, "callee"), Some(ctx.symbol_ref("h")));
    assert_eq!(gb.operand_vec(call).as_slice(), &[args[0]]);
    assert_eq!(gb.result_types(call).as_slice(), &[ctx.i32_type(), ctx.f32_type()]);
    let ret = body_ops[1];
    assert_eq!(name(&ctx, gb, ret), "func.return");
    assert_eq!(gb.operand_vec(ret).as_slice(), &[gb.result(call, 0), gb.result(call, 1)]);
    // cf
    let cfb = b.nested(ops[3]).unwrap();
    let blocks: Vec<_> = cfb.region_blocks(cfb.root_regions()[0]).collect();
    assert_eq!(blocks.len(), 3);
    let a = cfb.block_arg(blocks[0], 1);
    let br = cfb.first_op(blocks[0]).unwrap();
    assert_eq!(name(&ctx, cfb, br), "cf.br");
    assert_eq!(cfb.successors(br), &[blocks[1]]);
    assert_eq!(cfb.operand_vec(br).as_slice(), &[a]);
    let cbr = cfb.first_op(blocks[1]).unwrap();
    assert_eq!(name(&ctx, cfb, cbr), "cf.cond_br");
    assert_eq!(cfb.successors(cbr), &[blocks[1], blocks[2]]);
    assert_eq!(cfb.operand_vec(cbr).as_slice(), &[cfb.block_arg(blocks[0], 0), a]);
    let seg = cfb.attr(&ctx, cbr, "operandSegmentSizes").unwrap();
    assert!(matches!(ctx.attr_kind(seg), AttrKind::DenseArray { elem, .. } if *elem == ctx.i32_type()));
    assert_eq!(ctx.as_dense_ints(seg), Some(vec![1, 1, 0]));
    assert_eq!(cfb.attr(&ctx, cbr, "w"), Some(ctx.unit_attr()));
    assert_eq!(name(&ctx, cfb, cfb.first_op(blocks[2]).unwrap()), "func.return");
    // `nested` visibility keyword, and a generic op inside
    assert_eq!(b.attr(&ctx, ops[4], "sym_visibility"), Some(ctx.str_attr("nested")));
}

#[test]
fn func_generic_form_round_trip_shape() {
    let ctx = xcs_dialects::context();
    let src = r#""builtin.module"() ({
  "func.func"() <{arg_attrs = [{x.y}, {}], function_type = (i32, f32) -> f32, sym_name = "f", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (i1, i32) -> (), sym_name = "cf"}> ({
  ^bb0(%arg0: i1, %arg1: i32):
    "cf.br"(%arg1)[^bb1] : (i32) -> ()
  ^bb1(%0: i32):  // 2 preds: ^bb0, ^bb1
    "cf.cond_br"(%arg0, %arg1)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  ^bb2:  // pred: ^bb1
    "func.return"() : () -> ()
  }) {k} : () -> ()
}) : () -> ()
"#;
    let m = parse(&ctx, src);
    let ops = m.ops();
    assert_eq!(ops.len(), 2);
    assert_eq!(m.body.props(ops[0]), None, "inherent attributes merge for registered ops");
    assert_eq!(m.body.attr(&ctx, ops[1], "k"), Some(ctx.unit_attr()));
    assert_eq!(m.body.attr(&ctx, ops[1], "sym_name"), Some(ctx.str_attr("cf")));
    let n = m.body.nested(ops[1]).unwrap();
    assert_eq!(n.region_blocks(n.root_regions()[0]).count(), 3);
}

#[test]
fn module_custom_form_and_default_dialects() {
    let ctx = xcs_dialects::context();
    let m = parse(&ctx, "module @m attributes {x.y} {\n  func.func @f() {\n    return\n  }\n  module {\n  }\n}\n");
    assert_eq!(m.body.self_attr(&ctx, "sym_name"), Some(ctx.str_attr("m")));
    let ops = m.ops();
    assert_eq!(name(&ctx, &m.body, ops[1]), "builtin.module");
    let inner = m.body.nested(ops[1]).unwrap();
    assert_eq!(inner.region_blocks(inner.root_regions()[0]).count(), 1);
    // `return`/`call` resolve to func.* inside a function
    let f = m.body.nested(ops[0]).unwrap();
    assert_eq!(name(&ctx, f, f.top_ops()[0]), "func.return");
}

#[test]
fn custom_form_errors() {
    assert_eq!(
        err("func.func @f(%a: i32, f32) { return }"),
        ("custom op 'func.func' expected SSA identifier".into(), 1, 23)
    );
    assert_eq!(err("func.func @f() { foo }"), ("custom op 'foo' is unknown (tried 'func.foo' as well)".into(), 1, 18));
    assert_eq!(err("func.func @f() { foo.bar }"), ("Dialect `foo' not found for custom op 'foo.bar' ".into(), 1, 18));
    assert_eq!(err("func.func @f() { %0 = call @f : () -> i32 \nreturn }"), ("expected '('".into(), 1, 30));
    assert_eq!(
        err("func.func @f(%c: i1) { cf.cond_br %c, ^bb1(%c, %c : i1), ^bb1\n^bb1(%x: i1, %y: i1): return }"),
        ("custom op 'cf.cond_br' number of operands and types do not match: got 2 operands and 1 types".into(), 1, 44)
    );
    assert_eq!(err("func.func @f(%c: i1) { cf.br ^bb1()\n^bb1: return }"), ("expected ':'".into(), 1, 35));
    assert_eq!(err("func.func @f(%c: i1) { cf.br ^bb9 }"), ("reference to an undefined block".into(), 1, 30));
    assert!(err("func.func @f(%c: i32) { cf.cond_br %c, ^bb1, ^bb1\n^bb1: return }")
        .0
        .contains("expects different type"));
    assert_eq!(
        err("func.func @f(%a: i32) {\n^bb0:\n return }"),
        ("invalid block name in region with named arguments".into(), 2, 1)
    );
    assert_eq!(err("func.func @f() {}"), ("custom op 'func.func' expected non-empty function body".into(), 1, 16));
    assert_eq!(
        err("func.func @f(%a: i32) {\n  return %a : i32, i32\n}"),
        ("custom op 'func.return' number of operands and types do not match: got 1 operands and 2 types".into(), 2, 10)
    );
    assert_eq!(err("func.func @f() {\n  %0 = \"foo.d\"() : () -> i32\n  func.func @g() {\n    return %0 : i32\n  }\n  return\n}"), ("use of undeclared SSA value name".into(), 4, 12));
}

#[test]
fn mutated_custom_forms_never_panic() {
    let ctx = xcs_dialects::context();
    let o = ParseOptions { allow_unregistered: true, line_offset: 0, col_offset: 0, ..Default::default() };
    let bytes = FUNCS.as_bytes();
    let mut state: u64 = 0x2545F4914F6CDD1D;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    for _ in 0..5000 {
        let mut v = bytes.to_vec();
        for _ in 0..1 + next() % 3 {
            let i = next() % v.len();
            match next() % 3 {
                0 => {
                    v.remove(i);
                }
                1 => v.insert(i, bytes[next() % bytes.len()]),
                _ => v[i] = bytes[next() % bytes.len()],
            }
        }
        let _ = xcs_ir::parser::parse_module_bytes(&ctx, &v, "f", &o);
    }
}

/// Parse, print (custom and generic forms), parse the output again: the prints must agree.
#[test]
fn print_parse_round_trips() {
    // the test dialect's ops: custom forms, regions, an isolated op, a generic-only op
    let ctx = xcs_test_support::context();
    let src = format!(
        "{FUNCS}{}",
        r#"func.func @t(%a: i32, %b: i32) -> i32 {
  %0 = test.addi %a, %b : i32
  %1:2 = test.pure %0, %a {k = [1, "s"], f = 1.5 : f32} : (i32, i32) -> (i32, f64)
  test.effect
  %2 = test.region %1#0 : (i32) -> i32 {
  ^bb0(%x: i32):
    test.yield %x : i32
  }
  test.isolated : () -> () {
    %c = test.constant {value = dense<[1, 2]> : tensor<2xi32>} : tensor<2xi32>
  }
  %3 = "test.generic_only"(%2) : (i32) -> i32
  return %3 : i32
}
"#
    );
    for generic in [false, true] {
        let po = xcs_ir::printer::PrintOptions { generic, ..Default::default() };
        let m1 = parse(&ctx, &src);
        let p1 = xcs_ir::printer::print_module(&ctx, &m1, &po);
        let m2 = parse(&ctx, &p1);
        let p2 = xcs_ir::printer::print_module(&ctx, &m2, &po);
        assert_eq!(p1, p2, "generic = {generic}");
        let po = xcs_ir::printer::PrintOptions { generic, debug_info: true, ..Default::default() };
        let d1 = xcs_ir::printer::print_module(&ctx, &m2, &po);
        let d2 = xcs_ir::printer::print_module(&ctx, &parse(&ctx, &d1), &po);
        assert_eq!(d1, d2, "debuginfo, generic = {generic}");
    }
}
