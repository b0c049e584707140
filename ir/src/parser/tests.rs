//! Parser tests: every construct, checked through the Body/Context API, and every error
//! message with its line:col.

use super::*;
use crate::attrs::{AttrKind, DenseData};
use crate::body::{Body, Op, ValueDef};
use crate::location::LocKind;
use crate::opdef::{constraints::*, DialectDef, Syntax};
use crate::types::{FloatKind, Signedness, TypeKind, DYNAMIC};

crate::op! {
    /// Pretty test op.
    pub struct PrettyOp = "t.p" {
        summary: "pretty",
        operands: { #[variadic] ins: ANY_TYPE },
        results: { #[variadic] outs: ANY_TYPE },
    }
}
crate::op! {
    /// Pretty op with one region.
    pub struct RegionOp = "t.r" {
        summary: "region",
        operands: { #[variadic] ins: ANY_TYPE },
        results: { #[variadic] outs: ANY_TYPE },
        regions: { body: u32::MAX },
    }
}
crate::op! {
    /// Isolated pretty op.
    pub struct IsoOp = "t.iso" {
        summary: "isolated",
        regions: { body: u32::MAX },
        traits: [IsolatedFromAbove, NoTerminator],
    }
}
crate::op! {
    /// Op with an inherent attribute.
    pub struct AttrOp = "t.a" {
        summary: "attr",
        attributes: { value: ANY_ATTR },
        syntax: Syntax::Generic,
    }
}

static T_DIALECT: DialectDef = DialectDef {
    name: "t",
    summary: "",
    description: "",
    ops: crate::opdef::OpList::Fixed(&[PrettyOp::DEF, RegionOp::DEF, IsoOp::DEF, AttrOp::DEF]),
    types: &[crate::opdef::TypeDef { mnemonic: "str", summary: "", description: "", params: None }],
    attrs: &[],
    materialize_constant: None,
};

fn ctx() -> Context {
    let mut c = Context::new();
    c.register_dialect(&T_DIALECT);
    c
}

fn opts() -> ParseOptions {
    ParseOptions { allow_unregistered: true, line_offset: 0, col_offset: 0, ..Default::default() }
}

fn parse(ctx: &Context, src: &str) -> Module {
    match parse_module(ctx, src, "in.mlir", &opts()) {
        Ok(m) => m,
        Err(d) => panic!("parse failed: {} at {:?}", d.message, ctx.loc_file_line_col(d.loc).map(|x| (x.1, x.2))),
    }
}

/// The error message and line:col of a failing parse.
fn err_with(ctx: &Context, src: &str, o: &ParseOptions) -> (String, u32, u32) {
    match parse_module(ctx, src, "in.mlir", o) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(d) => {
            let (_, l, c) = ctx.loc_file_line_col(d.loc).unwrap_or((ctx.ident("?"), 0, 0));
            (d.message, l, c)
        }
    }
}
fn err(src: &str) -> (String, u32, u32) {
    err_with(&ctx(), src, &opts())
}

fn name(ctx: &Context, b: &Body, op: Op) -> String {
    ctx.op_name_str(b.op_name(op)).to_string()
}

#[test]
fn smoke() {
    let c = ctx();
    let m = parse(&c, "%0 = \"foo.a\"() : () -> i32\n\"foo.b\"(%0) : (i32) -> ()\n");
    let ops = m.ops();
    assert_eq!(ops.len(), 2);
    assert_eq!(name(&c, &m.body, ops[0]), "foo.a");
    assert_eq!(m.body.operand(ops[1], 0), m.body.result(ops[0], 0));
    let _ =
        (AttrKind::Unit, DenseData::Splat(Box::new([])), ValueDef::Result { op: ops[0], index: 0 }, LocKind::Unknown);
    let _ = (FloatKind::F32, Signedness::Signed, DYNAMIC, TypeKind::Index);
}

fn ts(ctx: &Context, t: Type) -> String {
    crate::printer::type_to_string(ctx, t)
}

fn first_attr(ctx: &Context, m: &Module, key: &str) -> Attr {
    let op = m.ops()[0];
    m.body.attr(ctx, op, key).unwrap_or_else(|| panic!("no attribute {key}"))
}

/// Parses `"foo.a"() {a = <text>} : () -> ()` and returns the attribute.
fn attr_of(ctx: &Context, text: &str) -> Attr {
    let m = parse(ctx, &format!("\"foo.a\"() {{a = {text}}} : () -> ()"));
    first_attr(ctx, &m, "a")
}

fn ty(ctx: &Context, text: &str) -> Type {
    parse_type(ctx, text).unwrap_or_else(|d| panic!("{text}: {}", d.message))
}

// ---------------------------------------------------------------------------- operations

#[test]
fn generic_ops_results_operands_successors_regions() {
    let c = ctx();
    let src = r#"
%r:2 = "foo.a"() : () -> (i32, f32)
"foo.b"(%r#1, %r#0, %r) {unit_key, "quoted key" = 1, k = "v"} : (f32, i32, i32) -> ()
"foo.c"() ({
^bb0(%x: i32 loc("a.py":1:2), %y: f32):
  "foo.br"(%x)[^bb1, ^bb2] : (i32) -> ()
^bb1:
  "foo.use"(%y) : (f32) -> ()
^bb2:
  "foo.end"() : () -> ()
}, {
}) : () -> ()
"foo.d"() ({ }) : () -> () loc("x.mlir":9:9)
"foo.e"() <{p = 1}> {q = 2} : () -> ()
"#;
    let m = parse(&c, src);
    let b = &m.body;
    let ops = m.ops();
    assert_eq!(ops.len(), 5);
    let (a, bb, cc, d, e) = (ops[0], ops[1], ops[2], ops[3], ops[4]);
    assert_eq!(b.num_results(a), 2);
    assert_eq!(b.operand_vec(bb).as_slice(), &[b.result(a, 1), b.result(a, 0), b.result(a, 0)]);
    let at = b.attrs(bb);
    assert_eq!(c.dict_get(at, "unit_key"), Some(c.unit_attr()));
    assert_eq!(c.dict_get(at, "quoted key"), Some(c.i64_attr(1)));
    assert_eq!(c.dict_get(at, "k"), Some(c.str_attr("v")));
    // regions
    assert_eq!(b.regions(cc).len(), 2);
    let r0 = b.regions(cc)[0];
    let blocks: Vec<_> = b.region_blocks(r0).collect();
    assert_eq!(blocks.len(), 3);
    let args = b.block_args(blocks[0]);
    assert_eq!(args.len(), 2);
    assert_eq!(b.value_type(args[0]), c.i32_type());
    assert_eq!(
        c.loc_file_line_col(b.arg_loc(args[0]).unwrap()).map(|x| (c.str(x.0).to_string(), x.1, x.2)),
        Some(("a.py".into(), 1, 2))
    );
    let br = b.first_op(blocks[0]).unwrap();
    assert_eq!(b.successors(br), &[blocks[1], blocks[2]]);
    assert_eq!(b.operand(br, 0), args[0]);
    let useop = b.first_op(blocks[1]).unwrap();
    assert_eq!(b.operand(useop, 0), args[1]);
    assert!(b.region_is_empty(b.regions(cc)[1]));
    // ({ }) and trailing location
    assert!(b.region_is_empty(b.regions(d)[0]));
    let (f, l, col) = c.loc_file_line_col(b.op_loc(d)).unwrap();
    assert_eq!((c.str(f), l, col), ("x.mlir", 9, 9));
    // op location = the op name, as mlir-opt --mlir-print-debuginfo shows
    let (f, l, col) = c.loc_file_line_col(b.op_loc(a)).unwrap();
    assert_eq!((c.str(f), l, col), ("in.mlir", 2, 8));
    // unregistered ops keep properties apart
    assert_eq!(b.props(e), Some(c.dict(&[(c.ident("p"), c.i64_attr(1))])));
    assert_eq!(b.attrs(e), c.dict(&[(c.ident("q"), c.i64_attr(2))]));
    // no placeholder left behind
    assert_eq!(m.num_ops(), 5 + 3);
}

#[test]
fn registered_generic_op_merges_properties() {
    let c = ctx();
    let m = parse(&c, r#""t.a"() <{value = 1}> {other} : () -> ()"#);
    let op = m.ops()[0];
    assert_eq!(m.body.props(op), None);
    assert_eq!(m.body.attr(&c, op, "value"), Some(c.i64_attr(1)));
    assert_eq!(m.body.attr(&c, op, "other"), Some(c.unit_attr()));
}

#[test]
fn forward_references_and_graph_regions() {
    let c = ctx();
    let m = parse(&c, "\"foo.u\"(%x, %x, %y#1) : (i32, i32, f32) -> ()\n%x = \"foo.d\"() : () -> i32\n%y:2 = \"foo.e\"() : () -> (f32, f32)\n");
    let ops = m.ops();
    assert_eq!(ops.len(), 3);
    let b = &m.body;
    assert_eq!(b.operand_vec(ops[0]).as_slice(), &[b.result(ops[1], 0), b.result(ops[1], 0), b.result(ops[2], 1)]);
    assert_eq!(b.num_ops(), 3, "placeholders are erased");
    // forward reference from inside a region to a later op of the enclosing block
    let m = parse(&c, "\"foo.r\"() ({\n \"foo.u\"(%z) : (i32) -> ()\n}) : () -> ()\n%z = \"foo.d\"() : () -> i32\n");
    let ops = m.ops();
    let inner = m.body.first_op(m.body.entry_block(m.body.regions(ops[0])[0]).unwrap()).unwrap();
    assert_eq!(m.body.operand(inner, 0), m.body.result(ops[1], 0));
    // forward reference to a block
    let m = parse(&c, "\"foo.r\"() ({\n \"foo.br\"()[^bb2] : () -> ()\n^bb1:\n \"foo.x\"() : () -> ()\n^bb2:\n \"foo.x\"() : () -> ()\n}) : () -> ()\n");
    let r = m.body.regions(m.ops()[0])[0];
    let blocks: Vec<_> = m.body.region_blocks(r).collect();
    assert_eq!(blocks.len(), 3);
    assert_eq!(m.body.successors(m.body.first_op(blocks[0]).unwrap()), &[blocks[2]]);
}

#[test]
fn values_are_scoped_to_regions_and_isolated_ops() {
    let c = ctx();
    // a value from above is visible in a non-isolated region
    let m = parse(&c, "%a = \"foo.d\"() : () -> i32\n\"foo.r\"() ({\n \"foo.u\"(%a) : (i32) -> ()\n}) : () -> ()\n");
    let ops = m.ops();
    let inner = m.body.first_op(m.body.entry_block(m.body.regions(ops[1])[0]).unwrap()).unwrap();
    assert_eq!(m.body.operand(inner, 0), m.body.result(ops[0], 0));
    // names defined in a region end with it
    let e = err("%x = \"foo.a\"() ({\n  %y = \"foo.b\"() : () -> i32\n}) : () -> i32\n\"foo.c\"(%y) : (i32) -> ()\n");
    assert_eq!(e, ("use of undeclared SSA value name".into(), 4, 9));
    // the same name may be reused in sibling regions
    parse(&c, "\"foo.r\"() ({\n %y = \"foo.b\"() : () -> i32\n}, {\n %y = \"foo.b\"() : () -> i32\n}) : () -> ()\n");
    // isolated ops get a fresh body and a fresh scope
    let m = parse(&c, "%0 = \"foo.d\"() : () -> i32\nt.iso : () -> () {\n  %0 = \"foo.d\"() : () -> f32\n  \"foo.u\"(%0) : (f32) -> ()\n}\n");
    let iso = m.ops()[1];
    assert!(m.body.is_isolated(iso));
    let nested = m.body.nested(iso).unwrap();
    assert_eq!(nested.root_regions().len(), 1);
    let nops = nested.top_ops();
    assert_eq!(nops.len(), 2);
    assert_eq!(nested.value_type(nested.operand(nops[1], 0)), c.f32_type());
    let e = err("%0 = \"foo.d\"() : () -> i32\nt.iso : () -> () {\n  \"foo.u\"(%0) : (i32) -> ()\n}\n");
    assert_eq!(e, ("use of undeclared SSA value name".into(), 3, 11));
}

#[test]
fn pretty_form() {
    let c = ctx();
    let src = r#"
%0 = "foo.d"() : () -> i32
%1 = t.p %0, %0 {k = 1} : i32
%2:2 = t.p %1 : (i32) -> (f32, i32)
t.p
%3 = t.p : () -> i64
t.p %3 : i64
%4 = t.r %0 : (i32) -> i32 {
^bb0(%a: i32):
  t.p %a : i32
} loc("r":1:1)
t.p : () -> () {
} {
  t.p
}
"#;
    let m = parse(&c, src);
    let b = &m.body;
    let ops = m.ops();
    assert_eq!(ops.len(), 8);
    let (p1, p2, eff, p3, p4, r, multi) = (ops[1], ops[2], ops[3], ops[4], ops[5], ops[6], ops[7]);
    assert_eq!(b.operand_vec(p1).as_slice(), &[b.result(ops[0], 0), b.result(ops[0], 0)]);
    assert_eq!(b.result_types(p1).as_slice(), &[c.i32_type()]);
    assert_eq!(b.attr(&c, p1, "k"), Some(c.i64_attr(1)));
    assert_eq!(b.result_types(p2).as_slice(), &[c.f32_type(), c.i32_type()]);
    // lookahead: `t.p` followed by `%3 = ...` has no operands
    assert_eq!(b.num_operands(eff), 0);
    assert_eq!(b.num_results(eff), 0);
    assert_eq!(b.result_types(p3).as_slice(), &[c.i64_type()]);
    assert_eq!(b.operand(p4, 0), b.result(p3, 0));
    // region with entry arguments; padding of declared regions
    assert_eq!(b.regions(r).len(), 1);
    let entry = b.entry_block(b.regions(r)[0]).unwrap();
    let inner = b.first_op(entry).unwrap();
    assert_eq!(b.operand(inner, 0), b.block_arg(entry, 0));
    assert_eq!(c.loc_file_line_col(b.op_loc(r)).map(|x| x.1), Some(1));
    assert_eq!(b.regions(multi).len(), 2);
    assert!(b.region_is_empty(b.regions(multi)[0]));
    // every registered op has its declared regions even when none is written
    let m = parse(&c, "t.r");
    assert_eq!(m.body.regions(m.ops()[0]).len(), 1);
}

#[test]
fn implicit_module() {
    let c = ctx();
    // exactly one module: it is the module
    let m = parse(&c, "module @m attributes {x.y = 1} {\n  \"foo.a\"() : () -> ()\n}\n");
    assert_eq!(m.body.self_attr(&c, "sym_name"), Some(c.str_attr("m")));
    assert_eq!(m.body.self_attr(&c, "x.y"), Some(c.i64_attr(1)));
    assert_eq!(m.ops().len(), 1);
    assert_eq!(name(&c, &m.body, m.ops()[0]), "foo.a");
    let (_, l, col) = c.loc_file_line_col(m.body.loc()).unwrap();
    assert_eq!((l, col), (1, 1));
    // generic form too, and `builtin.` spelled out
    let m = parse(&c, "\"builtin.module\"() ({\n  \"foo.a\"() : () -> ()\n}) : () -> ()\n");
    assert_eq!(m.ops().len(), 1);
    let m = parse(&c, "builtin.module {\n}\n");
    assert_eq!(m.ops().len(), 0);
    assert!(m.body.entry_block(m.body.root_regions()[0]).is_some(), "module {{}} gets its block");
    // a module next to another op is wrapped
    let m = parse(&c, "module {\n}\n\"foo.v\"() : () -> ()\n");
    let ops = m.ops();
    assert_eq!(ops.len(), 2);
    assert_eq!(name(&c, &m.body, ops[0]), "builtin.module");
    assert!(m.body.nested(ops[0]).is_some());
    let (_, l, col) = c.loc_file_line_col(m.body.loc()).unwrap();
    assert_eq!((l, col), (0, 0));
    // empty file
    let m = parse(&c, "// nothing\n");
    assert_eq!(m.ops().len(), 0);
}

#[test]
fn aliases_metadata_and_line_offset() {
    let c = ctx();
    let src = "!t = tensor<4xf32>\n#a = {k = 1}\n#b = #a\n%0 = \"foo.a\"() {x = #b} : () -> !t\n{-# dialect_resources: { builtin: { blob1: \"0x04000000010203\" } } #-}\n";
    let m = parse(&c, src);
    let op = m.ops()[0];
    assert_eq!(m.body.value_type(m.body.result(op, 0)), c.tensor_type(&[4], c.f32_type()));
    assert_eq!(m.body.attr(&c, op, "x"), Some(c.dict(&[(c.ident("k"), c.i64_attr(1))])));
    let o = ParseOptions { allow_unregistered: true, line_offset: 10, col_offset: 0, ..Default::default() };
    let m = parse_module(&c, "\n\"foo.a\"() : () -> ()", "f", &o).unwrap();
    assert_eq!(c.loc_file_line_col(m.body.op_loc(m.ops()[0])).map(|x| (x.1, x.2)), Some((12, 1)));
    let e = err_with(&c, "\n\"foo.a\"(%x) : (i32) -> ()", &o);
    assert_eq!(e, ("use of undeclared SSA value name".into(), 12, 9));
}

#[test]
fn resource_blobs_are_kept_per_parse() {
    // Two parses in one context: each has its own blob under the same key.
    let c = ctx();
    let src = |data: &str| {
        format!("\"foo.a\"() {{r = dense_resource<b> : tensor<2xi8>}} : () -> ()\n{{-# dialect_resources: {{ builtin: {{ b: \"0x01000000{data}\" }} }} #-}}\n")
    };
    let blob_of = |m: &crate::Module| match c.attr_kind(m.body.attr(&c, m.ops()[0], "r").unwrap()) {
        AttrKind::DenseResource { handle, .. } => c.resource_blob(*handle).unwrap(),
        k => panic!("not a dense resource: {k:?}"),
    };
    let (m1, m2) = (parse(&c, &src("0102")), parse(&c, &src("0304")));
    assert_eq!(&*blob_of(&m1).data, &[1, 2]);
    assert_eq!(&*blob_of(&m2).data, &[3, 4]);
    assert_eq!(blob_of(&m1).alignment, 1);
}

#[test]
fn location_aliases_named_and_numbered_forward_references() {
    let c = ctx();
    // `#loc01` is not MLIR's numbering (leading zero): a name, distinct from `#loc1`
    let src = r#""foo.a"() : () -> () loc(#loc01)
"foo.b"() : () -> () loc(#loc1)
"foo.c"() : () -> () loc(#here)
#loc01 = loc("zero.py":1:1)
#loc1 = loc("one.py":2:2)
#here = loc("named"("h.py":3:3))
"foo.d"() {where = #loc1} : () -> ()
"#;
    let m = parse(&c, src);
    let (b, ops) = (&m.body, m.ops());
    assert_eq!(b.op_loc(ops[0]), c.file_loc("zero.py", 1, 1));
    assert_eq!(b.op_loc(ops[1]), c.file_loc("one.py", 2, 2));
    assert_eq!(b.op_loc(ops[2]), c.name_loc("named", Some(c.file_loc("h.py", 3, 3))));
    // a location alias used as an attribute value is the location attribute
    let attr = b.attr(&c, ops[3], "where").expect("attribute");
    assert!(matches!(c.attr_kind(attr), AttrKind::Location(l) if *l == c.file_loc("one.py", 2, 2)));
}

#[test]
fn undefined_location_aliases_report_the_first_use_in_the_file() {
    // the named alias is used first, the numbered one first in id order
    check("\"foo.a\"() : () -> () loc(#x)\n\"foo.b\"() : () -> () loc(#loc0)\n",
          "operation location alias was never defined", 1, 26);
    check("\"foo.a\"() : () -> () loc(#loc7)\n\"foo.b\"() : () -> () loc(#x)\n#x = loc(\"a\":1:1)\n",
          "operation location alias was never defined", 1, 26);
    check("#loc1 = loc(\"a\":1:1)\n#loc1 = loc(\"b\":1:1)\n", "redefinition of attribute alias id 'loc1'", 2, 1);
}

#[test]
fn location_aliases_forward_and_backward() {
    let c = ctx();
    let src = r#"#l0 = loc("early.py":1:1)
"foo.a"() : () -> () loc(#l0)
"foo.b"() : () -> () loc(#loc1)
"foo.r"() ({
^bb0(%a: i32 loc(#loc2)):
  "foo.c"() : () -> () loc(#loc2)
}) : () -> ()
t.iso : () -> () {
  "foo.d"() : () -> () loc(#loc1)
} loc(#loc2)
#loc1 = loc("a.py":3:4 to 5:6)
#loc2 = loc(fused<"meta">[#loc1, callsite("x"("y":1:2) at unknown), "z":1:2 to :9])
"#;
    let m = parse(&c, src);
    let b = &m.body;
    let ops = m.ops();
    let l0 = c.file_loc("early.py", 1, 1);
    assert_eq!(b.op_loc(ops[0]), l0);
    let loc1 = c.loc(LocKind::FileLineCol { file: c.ident("a.py"), line: 3, col: 4, end: Some((Some(5), 6)) });
    assert_eq!(b.op_loc(ops[1]), loc1);
    let name = c.loc(LocKind::Name { name: c.ident("x"), child: Some(c.file_loc("y", 1, 2)) });
    let cs = c.loc(LocKind::CallSite { callee: name, caller: Location::UNKNOWN });
    let z = c.loc(LocKind::FileLineCol { file: c.ident("z"), line: 1, col: 2, end: Some((None, 9)) });
    let loc2 = c.loc(LocKind::Fused { metadata: Some(c.str_attr("meta")), locs: Box::new([loc1, cs, z]) });
    let r = ops[2];
    let entry = b.entry_block(b.regions(r)[0]).unwrap();
    assert_eq!(b.arg_loc(b.block_arg(entry, 0)), Some(loc2));
    assert_eq!(b.op_loc(b.first_op(entry).unwrap()), loc2);
    let iso = ops[3];
    assert_eq!(b.op_loc(iso), loc2);
    assert_eq!(b.nested(iso).unwrap().loc(), loc2);
    let n = b.nested(iso).unwrap();
    assert_eq!(n.op_loc(n.top_ops()[0]), loc1);
}

#[test]
fn location_forms() {
    let c = ctx();
    let loc = |s: &str| match c.attr_kind(attr_of(&c, &format!("loc({s})"))) {
        AttrKind::Location(l) => *l,
        k => panic!("{k:?}"),
    };
    assert_eq!(loc("unknown"), Location::UNKNOWN);
    assert_eq!(loc("\"f\":7"), c.file_loc("f", 7, 0));
    assert_eq!(loc("\"n\""), c.name_loc("n", None));
    // fused collapses one location and drops unknown
    assert_eq!(loc("fused[\"f\":1:2, unknown]"), c.file_loc("f", 1, 2));
    assert_eq!(loc("fused[unknown]"), Location::UNKNOWN);
    let two = loc("fused[\"f\":1:2, fused[\"g\":3:4, \"f\":1:2]]");
    assert_eq!(
        c.loc_kind(two),
        LocKind::Fused { metadata: None, locs: Box::new([c.file_loc("f", 1, 2), c.file_loc("g", 3, 4)]) }
    );
}

// ---------------------------------------------------------------------------- types

#[test]
fn builtin_types() {
    let c = ctx();
    assert_eq!(ty(&c, "i32"), c.i32_type());
    assert_eq!(ty(&c, "si8"), c.integer_type(8, Signedness::Signed));
    assert_eq!(ty(&c, "ui16"), c.integer_type(16, Signedness::Unsigned));
    assert_eq!(ty(&c, "i0"), c.integer_type(0, Signedness::Signless));
    assert_eq!(ty(&c, "i16777215"), c.integer_type(16777215, Signedness::Signless));
    assert_eq!(ty(&c, "index"), c.index_type());
    assert_eq!(ty(&c, "none"), c.none_type());
    for k in FloatKind::ALL {
        assert_eq!(ty(&c, k.keyword()), c.float_type(k));
    }
    assert_eq!(ty(&c, "(i32, f32) -> (i64)"), c.function_type(&[c.i32_type(), c.f32_type()], &[c.i64_type()]));
    assert_eq!(ty(&c, "() -> ()"), c.unit_function_type());
    assert_eq!(ty(&c, "(i32) -> ((i32) -> i32)"), c.function_type(&[c.i32_type()], &[ty(&c, "(i32) -> i32")]));
    assert_eq!(ty(&c, "tensor<4x?xf32>"), c.tensor_type(&[4, DYNAMIC], c.f32_type()));
    assert_eq!(ty(&c, "tensor<f32>"), c.tensor_type(&[], c.f32_type()));
    assert_eq!(ty(&c, "tensor<0xf32>"), c.tensor_type(&[0], c.f32_type()));
    assert_eq!(ty(&c, "tensor<4x0x8xf32>"), c.tensor_type(&[4, 0, 8], c.f32_type()));
    assert_eq!(ty(&c, "tensor<4x8xi32>"), c.tensor_type(&[4, 8], c.i32_type()));
    assert_eq!(
        ty(&c, "tensor<?x?xvector<2xi1>>"),
        c.tensor_type(&[DYNAMIC, DYNAMIC], ty(&c, "vector<2xi1>"))
    );
    match c.type_kind(ty(&c, "tensor<4xi32, \"enc\">")) {
        TypeKind::RankedTensor { encoding: Some(e), .. } => assert_eq!(*e, c.str_attr("enc")),
        k => panic!("{k:?}"),
    }
    assert_eq!(ty(&c, "tensor<*xf32>"), c.intern_type(TypeKind::UnrankedTensor { elem: c.f32_type() }));
    assert_eq!(
        ty(&c, "vector<[4]x8xf32>"),
        c.intern_type(TypeKind::Vector {
            shape: Box::new([4, 8]),
            scalable: Box::new([true, false]),
            elem: c.f32_type()
        })
    );
    assert_eq!(
        ty(&c, "vector<f32>"),
        c.intern_type(TypeKind::Vector { shape: Box::new([]), scalable: Box::new([]), elem: c.f32_type() })
    );
    match c.type_kind(ty(&c, "memref<4x?xi32, affine_map<(d0, d1) -> (d1, d0)>, 1>")) {
        TypeKind::MemRef { shape, layout: Some(l), memory_space: Some(s), .. } => {
            assert_eq!(&**shape, &[4, DYNAMIC]);
            assert!(
                matches!(c.attr_kind(*l), AttrKind::Keyword { text, .. } if &**text == "affine_map<(d0, d1) -> (d1, d0)>")
            );
            assert_eq!(*s, c.i64_attr(1));
        }
        k => panic!("{k:?}"),
    }
    match c.type_kind(ty(&c, "memref<4xf32, strided<[1], offset: ?>>")) {
        TypeKind::MemRef { layout: Some(_), memory_space: None, .. } => {}
        k => panic!("{k:?}"),
    }
    match c.type_kind(ty(&c, "memref<4xf32, #foo.space<1>>")) {
        TypeKind::MemRef { layout: None, memory_space: Some(_), .. } => {}
        k => panic!("{k:?}"),
    }
    assert_eq!(
        ty(&c, "memref<*xf32, 1>"),
        c.intern_type(TypeKind::UnrankedMemRef { elem: c.f32_type(), memory_space: Some(c.i64_attr(1)) })
    );
    assert_eq!(ty(&c, "complex<f32>"), c.intern_type(TypeKind::Complex(c.f32_type())));
    assert_eq!(ty(&c, "tuple<>"), c.intern_type(TypeKind::Tuple(Box::new([]))));
    assert_eq!(
        ty(&c, "tuple<i32, tuple<f32>>"),
        c.intern_type(TypeKind::Tuple(Box::new([c.i32_type(), ty(&c, "tuple<f32>")])))
    );
    // dialect types keep their text; bodies are balanced
    assert_eq!(ty(&c, "!foo.bar"), c.dialect_type("foo.bar"));
    assert_eq!(ty(&c, "!foo.bar<a<b>(c)[d]{e}\"f>\">"), c.dialect_type("foo.bar<a<b>(c)[d]{e}\"f>\">"));
    assert_eq!(ty(&c, "!foo<\"x\">"), c.dialect_type("foo<\"x\">"));
    assert_eq!(ty(&c, "!foo.bar<(i32) -> i32>"), c.dialect_type("foo.bar<(i32) -> i32>"));
    assert_eq!(ty(&c, "!t.str"), c.dialect_type("t.str"));
    assert_eq!(c.type_dialect(ty(&c, "!foo.bar")), Some("foo"));
}

#[test]
fn dimension_lists_relex() {
    let c = ctx();
    // `0xf32` in a shape is `0 x f32`; `4x8xf32` re-lexes after each `x`
    let m = parse(&c, "%0 = \"foo.a\"() : () -> tensor<0xf32>\n%1 = \"foo.a\"() : () -> tensor<4x8x?x16xbf16>\n%2 = \"foo.a\"() : () -> tensor<0x0xi1>");
    let b = &m.body;
    let ops = m.ops();
    assert_eq!(b.value_type(b.result(ops[0], 0)), c.tensor_type(&[0], c.f32_type()));
    assert_eq!(b.value_type(b.result(ops[1], 0)), c.tensor_type(&[4, 8, DYNAMIC, 16], c.bf16_type()));
    assert_eq!(b.value_type(b.result(ops[2], 0)), c.tensor_type(&[0, 0], c.i1_type()));
}

#[test]
fn type_cache_hits_are_consistent() {
    let c = ctx();
    let line = "%r = \"foo.a\"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>\n";
    let mut src = String::from("%x = \"foo.s\"() {d = {k = dense<1.0> : tensor<2xf32>}} : () -> tensor<4x8xf32>\n");
    for i in 0..3 {
        src.push_str(&line.replace("%r", &format!("%r{i}")));
        src.push_str("\"foo.t\"() {d = {k = dense<1.0> : tensor<2xf32>}} : () -> ()\n");
    }
    let m = parse(&c, &src);
    let t = c.tensor_type(&[4, 8], c.f32_type());
    for op in m.ops() {
        for v in m.body.results(op) {
            assert_eq!(m.body.value_type(v), t);
        }
    }
    let ops = m.ops();
    assert_eq!(m.body.attrs(ops[0]), m.body.attrs(ops[2]));
    assert_eq!(m.body.attrs(ops[2]), m.body.attrs(ops[6]));
}

// ---------------------------------------------------------------------------- attributes

#[test]
fn scalar_attributes() {
    let c = ctx();
    assert_eq!(attr_of(&c, "1"), c.i64_attr(1));
    assert_eq!(attr_of(&c, "-5 : si8"), c.int_attr(-5, c.integer_type(8, Signedness::Signed)));
    assert_eq!(attr_of(&c, "255 : i8"), c.int_attr(-1, c.i8_type()));
    assert_eq!(attr_of(&c, "255 : ui8"), c.int_attr(255, c.integer_type(8, Signedness::Unsigned)));
    assert_eq!(attr_of(&c, "-128 : i8"), c.int_attr(-128, c.i8_type()));
    assert_eq!(attr_of(&c, "0x10 : index"), c.int_attr(16, c.index_type()));
    assert_eq!(attr_of(&c, "-0x10"), c.i64_attr(-16));
    assert_eq!(attr_of(&c, "18446744073709551615"), c.i64_attr(-1));
    assert_eq!(
        attr_of(&c, "170141183460469231731687303715884105727 : i128"),
        c.int_attr(i128::MAX, c.integer_type(128, Signedness::Signless))
    );
    assert_eq!(attr_of(&c, "true"), c.bool_attr(true));
    assert_eq!(attr_of(&c, "false"), c.bool_attr(false));
    assert_eq!(attr_of(&c, "1 : i1"), c.bool_attr(true));
    assert_eq!(attr_of(&c, "1.5"), c.float_attr(1.5, c.f64_type()));
    assert_eq!(attr_of(&c, "1."), c.float_attr(1.0, c.f64_type()));
    assert_eq!(attr_of(&c, "1.e5"), c.float_attr(1e5, c.f64_type()));
    assert_eq!(attr_of(&c, "-2.5e-3 : f32"), c.float_attr(-2.5e-3, c.f32_type()));
    assert_eq!(attr_of(&c, "0.1 : f32"), c.attr(AttrKind::Float { bits: 0.1f32.to_bits() as u64, ty: c.f32_type() }));
    assert_eq!(attr_of(&c, "-0.0"), c.attr(AttrKind::Float { bits: (-0.0f64).to_bits(), ty: c.f64_type() }));
    assert_eq!(attr_of(&c, "0x7F800000 : f32"), c.attr(AttrKind::Float { bits: 0x7F80_0000, ty: c.f32_type() }));
    assert_eq!(attr_of(&c, "0x3C00 : f16"), c.float_attr(1.0, c.f16_type()));
    assert_eq!(attr_of(&c, "1.0 : bf16"), c.float_attr(1.0, c.bf16_type()));
    assert_eq!(
        attr_of(&c, "\"s\\22\\n\\t\\\\x\\FF\""),
        c.attr(AttrKind::String { value: b"s\"\n\t\\x\xff".as_slice().into(), ty: None })
    );
    assert_eq!(
        attr_of(&c, "\"s\" : i32"),
        c.attr(AttrKind::String { value: b"s".as_slice().into(), ty: Some(c.i32_type()) })
    );
    assert_eq!(attr_of(&c, "unit"), c.unit_attr());
    assert_eq!(attr_of(&c, "i32"), c.type_attr(c.i32_type()));
    assert_eq!(attr_of(&c, "(i32) -> i32"), c.type_attr(ty(&c, "(i32) -> i32")));
    assert_eq!(attr_of(&c, "tensor<2xf32>"), c.type_attr(ty(&c, "tensor<2xf32>")));
    assert_eq!(attr_of(&c, "!foo.x"), c.type_attr(c.dialect_type("foo.x")));
}

#[test]
fn composite_attributes() {
    let c = ctx();
    assert_eq!(attr_of(&c, "[1, \"x\", []]"), c.array_attr(&[c.i64_attr(1), c.str_attr("x"), c.array_attr(&[])]));
    assert_eq!(attr_of(&c, "{}"), c.empty_dict());
    assert_eq!(attr_of(&c, "{b = 1, a}"), c.dict(&[(c.ident("a"), c.unit_attr()), (c.ident("b"), c.i64_attr(1))]));
    let sym = |root: &str, nested: &[&str]| {
        c.attr(AttrKind::SymbolRef { root: c.ident(root), nested: nested.iter().map(|n| c.ident(n)).collect() })
    };
    assert_eq!(attr_of(&c, "@f"), sym("f", &[]));
    assert_eq!(attr_of(&c, "@a::@\"b c\"::@d"), sym("a", &["b c", "d"]));
    assert_eq!(attr_of(&c, "@\"q\\22\""), sym("q\"", &[]));
    assert_eq!(attr_of(&c, "array<i64: 1, -2>"), c.dense_i64_array(&[1, -2]));
    assert_eq!(attr_of(&c, "array<i32>"), c.attr(AttrKind::DenseArray { elem: c.i32_type(), data: Box::new([]) }));
    assert_eq!(
        attr_of(&c, "array<i1: true, false>"),
        c.attr(AttrKind::DenseArray { elem: c.i1_type(), data: Box::new([1, 0]) })
    );
    assert_eq!(
        attr_of(&c, "array<f32: 1.0, 2.5>"),
        c.attr(AttrKind::DenseArray {
            elem: c.f32_type(),
            data: [1.0f32.to_le_bytes(), 2.5f32.to_le_bytes()].concat().into()
        })
    );
    assert_eq!(
        attr_of(&c, "array<i8: -1, 255>"),
        c.attr(AttrKind::DenseArray { elem: c.i8_type(), data: Box::new([255, 255]) })
    );
    let t4 = ty(&c, "tensor<4xf32>");
    match c.attr_kind(attr_of(&c, "dense_resource<\"blob 1\"> : tensor<4xf32>")) {
        AttrKind::DenseResource { handle, ty } => {
            assert_eq!((c.str(c.resource_key(*handle)), *ty), ("blob 1", t4));
            assert_eq!(c.resource_blob(*handle), None);
        }
        k => panic!("not a dense resource: {k:?}"),
    }
    assert_eq!(
        attr_of(&c, "distinct[3]<42 : i32>"),
        c.attr(AttrKind::Distinct { id: 3, attr: c.int_attr(42, c.i32_type()) })
    );
    let kw = |k: &str, t: &str| c.attr(AttrKind::Keyword { keyword: c.ident(k), text: t.into() });
    assert_eq!(attr_of(&c, "affine_map<(d0)[s0] -> (d0 + s0)>"), kw("affine_map", "affine_map<(d0)[s0] -> (d0 + s0)>"));
    assert_eq!(
        attr_of(&c, "affine_set<(d0) : (d0 >= 0, d0 - 1 == 0)>"),
        kw("affine_set", "affine_set<(d0) : (d0 >= 0, d0 - 1 == 0)>")
    );
    assert_eq!(attr_of(&c, "strided<[1, ?], offset: ?>"), kw("strided", "strided<[1, ?], offset: ?>"));
    let da = |t: &str| c.attr(AttrKind::Dialect { dialect: c.ident("foo"), text: t.into() });
    assert_eq!(attr_of(&c, "#foo.bar<\"x\" 1 <>>"), da("foo.bar<\"x\" 1 <>>"));
    assert_eq!(attr_of(&c, "#foo<\"abc\">"), da("foo<\"abc\">"));
    assert_eq!(attr_of(&c, "#foo.flag"), da("foo.flag"));
    assert_eq!(attr_of(&c, "#foo.bar<a> : i32"), da("foo.bar<a> : i32"));
    assert_eq!(attr_of(&c, "loc(\"f\":1:2)"), c.attr(AttrKind::Location(c.file_loc("f", 1, 2))));
}

fn dense(c: &Context, text: &str) -> (Type, DenseData) {
    match c.attr_kind(attr_of(c, text)) {
        AttrKind::DenseElements { ty, data } => (*ty, data.clone()),
        k => panic!("{k:?}"),
    }
}

fn le32(v: &[i32]) -> Box<[u8]> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn dense_elements() {
    let c = ctx();
    assert_eq!(dense(&c, "dense<[1, 2, 3, 4]> : tensor<4xi32>").1, DenseData::Elements(le32(&[1, 2, 3, 4])));
    assert_eq!(dense(&c, "dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>").1, DenseData::Elements(le32(&[1, 2, 3, -4])));
    // splats, explicit or detected
    assert_eq!(dense(&c, "dense<7> : tensor<4xi32>").1, DenseData::Splat(le32(&[7])));
    assert_eq!(dense(&c, "dense<[1, 1, 1, 1]> : tensor<4xi32>").1, DenseData::Splat(le32(&[1])));
    assert_eq!(dense(&c, "dense<[5]> : tensor<1xi32>").1, DenseData::Splat(le32(&[5])));
    assert_eq!(dense(&c, "dense<[1, 1, 1, 1]> : tensor<4xi32>"), dense(&c, "dense<1> : tensor<4xi32>"));
    assert_eq!(dense(&c, "dense<1.5> : tensor<2xf32>").1, DenseData::Splat(1.5f32.to_le_bytes().into()));
    assert_eq!(
        dense(&c, "dense<[1.0, -2.0]> : vector<2xf64>").1,
        DenseData::Elements([1.0f64.to_le_bytes(), (-2.0f64).to_le_bytes()].concat().into())
    );
    assert_eq!(dense(&c, "dense<0x3F800000> : tensor<f32>").1, DenseData::Splat(1.0f32.to_le_bytes().into()));
    assert_eq!(dense(&c, "dense<[true, false]> : tensor<2xi1>").1, DenseData::Elements(Box::new([1, 0])));
    assert_eq!(dense(&c, "dense<[0, 1]> : tensor<2xi1>").1, DenseData::Elements(Box::new([0, 1])));
    assert_eq!(dense(&c, "dense<true> : tensor<3xi1>").1, DenseData::Splat(Box::new([1])));
    // empty
    assert_eq!(dense(&c, "dense<> : tensor<0xi32>").1, DenseData::Elements(Box::new([])));
    assert_eq!(dense(&c, "dense<[]> : tensor<0xi32>").1, DenseData::Elements(Box::new([])));
    assert_eq!(dense(&c, "dense<[[]]> : tensor<1x0xi32>").1, DenseData::Elements(Box::new([])));
    // complex
    assert_eq!(
        dense(&c, "dense<(1.0, 2.0)> : tensor<complex<f32>>").1,
        DenseData::Splat([1.0f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat().into())
    );
    assert_eq!(
        dense(&c, "dense<[(1, 2), (3, 4)]> : tensor<2xcomplex<i32>>").1,
        DenseData::Elements(le32(&[1, 2, 3, 4]))
    );
    // strings
    assert_eq!(
        dense(&c, "dense<[\"a\", \"bc\"]> : tensor<2x!foo.s>").1,
        DenseData::Strings(Box::new([Box::new(*b"a"), Box::new(*b"bc")]))
    );
    assert_eq!(dense(&c, "dense<\"xy\"> : tensor<2x!foo.s>").1, DenseData::Strings(Box::new([Box::new(*b"xy")])));
    assert_eq!(dense(&c, "dense<[\"xy\", \"xy\"]> : tensor<2x!foo.s>"), dense(&c, "dense<\"xy\"> : tensor<2x!foo.s>"));
    // hex blobs: raw little-endian data; i1 bit-packed; one element = splat
    assert_eq!(dense(&c, "dense<\"0x0100000002000000\"> : tensor<2xi32>").1, DenseData::Elements(le32(&[1, 2])));
    assert_eq!(dense(&c, "dense<\"0x01000000\"> : tensor<3xi32>").1, DenseData::Splat(le32(&[1])));
    assert_eq!(dense(&c, "dense<\"0x0000803F\"> : tensor<f32>").1, DenseData::Splat(1.0f32.to_le_bytes().into()));
    assert_eq!(dense(&c, "dense<\"0x0D\"> : tensor<4xi1>").1, DenseData::Elements(Box::new([1, 0, 1, 1])));
    assert_eq!(dense(&c, "dense<\"0xFF\"> : tensor<4xi1>").1, DenseData::Splat(Box::new([1])));
    assert_eq!(
        dense(&c, "dense<\"0x0300\"> : tensor<9xi1>").1,
        DenseData::Elements(Box::new([1, 1, 0, 0, 0, 0, 0, 0, 0]))
    );
    assert_eq!(dense(&c, "dense<\"0xFF\"> : tensor<9xi1>").1, DenseData::Splat(Box::new([1])));
}

#[test]
fn parse_type_and_attr_helpers() {
    let c = ctx();
    assert_eq!(
        parse_attr(&c, "dense<1> : tensor<2xi8>")
            .map(|a| matches!(c.attr_kind(a), AttrKind::DenseElements { .. }))
            .ok(),
        Some(true)
    );
    assert_eq!(parse_type(&c, "f32").ok(), Some(c.f32_type()));
    assert_eq!(parse_type(&c, "f32 f32").unwrap_err().message, "unexpected trailing characters");
    assert!(parse_type(&c, "tensor<").is_err());
}

// ---------------------------------------------------------------------------- errors

fn check(src: &str, msg: &str, line: u32, col: u32) {
    assert_eq!(err(src), (msg.to_string(), line, col), "for input {src:?}");
}

#[test]
fn ssa_and_block_errors() {
    let c = ctx();
    let e = err("%0 = \"foo.a\"() : () -> i32\n%1 = \"foo.b\"(%0) : (f32) -> i32\n");
    let msg = format!(
        "use of value '%0' expects different type than prior uses: '{}' vs '{}'",
        ts(&c, c.f32_type()),
        ts(&c, c.i32_type())
    );
    assert_eq!(e, (msg, 2, 14));
    let d = parse_module(&c, "%0 = \"foo.a\"() : () -> i32\n%1 = \"foo.b\"(%0) : (f32) -> i32\n", "f", &opts())
        .err()
        .expect("an error");
    assert_eq!(d.notes[0].message, "prior use here");
    assert_eq!(c.loc_file_line_col(d.notes[0].loc).map(|x| (x.1, x.2)), Some((1, 1)));
    check("\"foo.b\"(%x) : (f32) -> i32\n", "use of undeclared SSA value name", 1, 9);
    check("%0 = \"foo.a\"() : () -> i32\n%0 = \"foo.a\"() : () -> i32\n", "redefinition of SSA value '%0'", 2, 1);
    let d = parse_module(&c, "%0 = \"foo.a\"() : () -> i32\n%0 = \"foo.a\"() : () -> i32\n", "f", &opts())
        .err()
        .expect("an error");
    assert_eq!(d.notes[0].message, "previously defined here");
    check("%0:2 = \"foo.a\"() : () -> i32\n", "operation defines 1 results but was provided 2 to bind", 1, 1);
    check("%0 = \"foo.a\"() : () -> (i32, i32)\n", "operation defines 2 results but was provided 1 to bind", 1, 1);
    check("\"foo.a\"()[^bb1] : () -> ()\n", "reference to an undefined block", 1, 11);
    check(
        "\"foo.r\"() ({\n^bb1:\n  \"foo.x\"() : () -> ()\n^bb1:\n  \"foo.x\"() : () -> ()\n}) : () -> ()\n",
        "redefinition of block '^bb1'",
        4,
        1,
    );
    let e = err("\"foo.u\"(%x) : (i32) -> ()\n%x = \"foo.d\"() : () -> f32\n");
    assert_eq!(e, (format!("definition of SSA value '%x#0' has type '{}'", ts(&c, c.f32_type())), 2, 1));
    check(
        "%x:2 = \"foo.d\"() : () -> (f32, f32)\n\"foo.u\"(%x#2) : (f32) -> ()\n",
        "reference to invalid result number",
        2,
        9,
    );
    check(
        "\"foo.u\"(%x#3) : (f32) -> ()\n%x:2 = \"foo.d\"() : () -> (f32, f32)\n",
        "use of undeclared SSA value name",
        1,
        9,
    );
    check("%x:0 = \"foo.d\"() : () -> ()\n", "expected named operation to have at least 1 result", 1, 4);
    check("\"foo.u\"(%x#99999999999) : (f32) -> ()\n", "invalid SSA value result number", 1, 11);
    check("\"foo.a\"(%0, %0) : (i32) -> ()\n", "expected 2 operand types but had 1", 1, 19);
    check("%0 = t.p : (i32) -> i32\n", "expected 0 operand types but had 1", 1, 12);
    check("%0 = t.p\n", "expected ':' followed by the operand and result types", 1, 9);
}

#[test]
fn op_name_errors() {
    let c = ctx();
    // An unknown op of a registered dialect parses; the verifier rejects it (as in MLIR).
    let no = ParseOptions::default();
    let m = parse_module(&c, "\"t.foo\"() : () -> ()\n", "f", &no).expect("parses");
    assert_eq!(name(&c, &m.body, m.ops()[0]), "t.foo");
    assert_eq!(
        err_with(&c, "\"foo.a\"() : () -> ()\n", &no),
        ("operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used".into(), 1, 8)
    );
    assert_eq!(
        err_with(&c, "\"t.a\"() {v = #foo.x} : () -> ()\n", &no).0,
        "#\"foo\"<\"x\"> : 'none' attribute created with unregistered dialect. If this is intended, please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used"
    );
    assert_eq!(
        err_with(&c, "t.p : !foo.x\n", &no),
        ("`!\"foo\"<\"x\">` type created with unregistered dialect. If this is intended, please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used".into(), 1, 13)
    );
    check("t.foo\n", "custom op 't.foo' is unknown", 1, 1);
    check("foo.bar %x : i32\n", "Dialect `foo' not found for custom op 'foo.bar' ", 1, 1);
    check("foo\n", "custom op 'foo' is unknown (tried 'builtin.foo' as well)", 1, 1);
    check("\"foo.a\"() : () -> ()  }\n", "expected operation name in quotes", 1, 21);
    check("\"foo.a\"() ({ \"foo.b\"() : () -> ()\n", "expected operation name in quotes", 1, 34);
    check("\"foo.a\"(\n", "expected ')' to end operand list", 1, 9);
    check("\"foo.a\"() : i32\n", "expected function type", 1, 13);
    check("\"foo.a\"() : (i32)\n", "expected '->' in function type", 1, 18);
    check("%0 = \"foo.a\"() : () -> i32 loc(#loc9)\n", "operation location alias was never defined", 1, 32);
    let e = err("\"foo.u\"() : () -> () loc(#x)\n#x = 1\n");
    assert_eq!(
        e,
        (format!("expected location, but found '{}'", crate::printer::attr_to_string(&c, c.i64_attr(1))), 1, 26)
    );
    check("\"foo.a\"() {a = loc(foo)} : () -> ()\n", "expected location instance", 1, 20);
    // A NUL in a quoted op name, escaped or raw (found by the fuzzer: the raw byte parsed, and
    // the printed `\00` escape did not).
    check("\"foo.a\\00b\"() : () -> ()\n", "null character not allowed in operation name", 1, 1);
    check("\"foo.a\0b\"() : () -> ()\n", "null character not allowed in operation name", 1, 1);
    // An empty dialect namespace (found by the fuzzer: `!<...>` was printed and did not parse).
    check("\"foo.a\"() : () -> !.t<\"x\">\n", "invalid dialect namespace '\"\"'", 1, 21);
    check("\"foo.a\"() {a = #.t<\"x\">} : () -> ()\n", "invalid dialect namespace '\"\"'", 1, 18);
}

#[test]
fn type_and_attribute_errors() {
    check("\"foo.a\"() : () -> !alias\n", "undefined symbol alias id 'alias'", 1, 25);
    check("\"foo.a\"() {a = #alias} : () -> ()\n", "undefined symbol alias id 'alias'", 1, 22);
    check("!a = i32\n!a = i64\n", "redefinition of type alias id 'a'", 2, 1);
    check("#a = 1\n#a = 2\n", "redefinition of attribute alias id 'a'", 2, 1);
    check("\"foo.a\"() : () -> tensor<4x?xf32\n", "expected '>' in tensor type", 1, 33);
    check("\"foo.a\"() : () -> tensor<4x-1xf32>\n", "expected non-function type", 1, 28);
    check("\"foo.a\"() : () -> vector<[4]x?xf32>\n", "expected non-function type", 1, 30);
    check("\"foo.a\"() : () -> tensor<99999999999999999999xf32>\n", "invalid dimension", 1, 26);
    check("\"foo.a\"() : () -> i16777216\n", "integer bitwidth is limited to 16777215 bits", 1, 19);
    check("\"foo.a\"() : () -> !builtin.x\n", "dialect 'builtin' provides no type parsing hook", 1, 28);
    check("\"foo.a\"() : () -> !t.bar\n", "unknown type `bar` in dialect `t`", 1, 22);
    check("\"foo.a\"() : () -> !foo.bar<(i32>\n", "unbalanced '(' character in pretty dialect name", 1, 27);
    check("\"foo.a\"() : () -> !foo.bar<->\n", "unbalanced '<' character in pretty dialect name", 1, 27);
    check("\"foo.a\"() {a = 300 : i8} : () -> ()\n", "integer constant out of range for attribute", 1, 16);
    check("\"foo.a\"() {a = 128 : si8} : () -> ()\n", "integer constant out of range for attribute", 1, 16);
    check("\"foo.a\"() {a = 1 : i0} : () -> ()\n", "integer constant out of range for attribute", 1, 16);
    check("\"foo.a\"() {a = 99999999999999999999} : () -> ()\n", "integer constant out of range for attribute", 1, 16);
    check(
        "\"foo.a\"() {a = -1 : ui8} : () -> ()\n",
        "negative integer literal not valid for unsigned integer type",
        1,
        17,
    );
    check(
        "\"foo.a\"() {a = 1 : f32} : () -> ()\n",
        "unexpected decimal integer literal for a floating point value",
        1,
        16,
    );
    check("\"foo.a\"() {a = 0x1FFFF : f16} : () -> ()\n", "hexadecimal float constant out of range for type", 1, 16);
    check("\"foo.a\"() {a = 1.0 : i32} : () -> ()\n", "floating point value not valid for specified type", 1, 25);
    check("\"foo.a\"() {a = 1, a = 2} : () -> ()\n", "duplicate key 'a' in dictionary attribute", 1, 19);
    check("\"foo.a\"() {1 = 2} : () -> ()\n", "expected attribute name", 1, 12);
    check("\"foo.a\"() {a = [1, 2} : () -> ()\n", "expected ',' or ']'", 1, 21);
    check("\"foo.a\"() {a = 0x} : () -> ()\n", "expected '}' in attribute dictionary", 1, 17);
    check("\"foo.u\"() {a = ^bb} : () -> ()\n", "expected attribute value", 1, 15);
    check(
        "\"foo.a\"() {a = dense<[1, 2]> : tensor<?xi32>} : () -> ()\n",
        "elements literal type must have static shape",
        1,
        16,
    );
    check("\"foo.a\"() {a = dense<[1, 2]> : i32} : () -> ()\n", "elements literal must be a shaped type", 1, 16);
    check("\"foo.a\"() {a = dense<[1, 2]>} : () -> ()\n", "expected ':'", 1, 29);
    check(
        "\"foo.a\"() {f=dense<[[1, 2], [3]]> : tensor<2x2xi32>} : () -> ()\n",
        "tensor literal is invalid; ranks are not consistent between elements",
        1,
        32,
    );
    check(
        "\"foo.a\"() {f=dense<[1, 2]> : tensor<3xi32>} : () -> ()\n",
        "inferred shape of elements literal ([2]) does not match type ([3])",
        1,
        14,
    );
    check(
        "\"foo.a\"() {f=dense<[1.5, 2]> : tensor<2xi32>} : () -> ()\n",
        "expected integer elements, but parsed floating-point",
        1,
        21,
    );
    check(
        "\"foo.a\"() {f=dense<2> : tensor<2xf32>} : () -> ()\n",
        "unexpected decimal integer literal for a floating point value",
        1,
        20,
    );
    check("\"foo.a\"() {f=dense<2> : tensor<2xi1>} : () -> ()\n", "integer constant out of range for type", 1, 20);
    let c = ctx();
    let t = ts(&c, c.tensor_type(&[4], c.i1_type()));
    assert_eq!(
        err_with(&c, "\"foo.a\"() {f=dense<\"0x01000101\"> : tensor<4xi1>} : () -> ()\n", &opts()),
        (format!("elements hex data size is invalid for provided type: '{t}'"), 1, 14)
    );
    check("\"foo.a\"() {a = array<i64: 1, 2} : () -> ()\n", "expected '>' to close an array attribute", 1, 31);
    check("\"foo.a\"() {a = array<i8: 1000>} : () -> ()\n", "integer constant out of range", 1, 30);
}

#[test]
fn more_errors_as_mlir_opt_words_them() {
    check("\"foo.a\"() ({ ^bb0(%a: i32 }) : () -> ()\n", "expected ')'", 1, 26);
    check("\"foo.a\"()[^bb0 : () -> ()\n", "expected ',' or ']'", 1, 15);
    check("\"foo.a\"() <a> : () -> ()\n", "expected attribute value", 1, 12);
    check("\"foo.a\"() <{a = 1}> <{b = 1}> : () -> ()\n", "expected ':' followed by operation type", 1, 20);
    check("\"foo.a\"() {a = 1 : () -> ()\n", "integer literal not valid for specified type", 1, 16);
    check("\"foo.a\"() {a = memref<4xf32, 1, 2, 3>} : () -> ()\n", "multiple memory spaces specified in memref type", 1, 34);
    check("\"foo.a\"() {a = dense<[1, 2> : tensor<2xi32>} : () -> ()\n", "expected ']'", 1, 27);
    check("\"foo.a\"() {a = array<i64 1>} : () -> ()\n", "expected ':' after dense array type", 1, 25);
    check("\"foo.a\"() {a = array<i64: 1.5>} : () -> ()\n", "expected integer literal", 1, 27);
    check("\"foo.a\"() {a = array<f32: 1>} : () -> ()\n", "unexpected decimal integer literal for a floating point value", 1, 27);
    check("\"foo.a\"() {a = loc(\"f\":x)} : () -> ()\n", "expected integer line number in FileLineColRange", 1, 24);
    check("\"foo.a\"() {a = loc(\"a\"} : () -> ()\n", "expected ')' in inline location", 1, 23);
    check("\"foo.a\"() : () -> () loc(\n", "expected location instance", 1, 26);
    check("\"foo.a\"() : () -> tensor<*xf32, \"e\">\n", "cannot apply encoding to unranked tensor", 1, 37);
    check("\"foo.a\"() {a = -0x7F800000 : f32} : () -> ()\n", "hexadecimal float literal should not have a leading minus", 1, 17);
    let c = ctx();
    let t = ts(&c, c.intern_type(TypeKind::Complex(c.i8_type())));
    assert_eq!(
        err("\"foo.a\"() {a = dense<1> : tensor<2xcomplex<i8>>} : () -> ()\n"),
        (format!("parsed 1 elements, but type ('{t}') expected 2 elements"), 1, 16)
    );
}

#[test]
fn lexical_errors() {
    check("\"foo.a\"(%) : () -> ()\n", "invalid SSA name", 1, 9);
    check("\"foo.a\"() {a = @1} : () -> ()\n", "@ identifier expected to start with letter or '_'", 1, 17);
    check("\"foo.a\"() {a = $} : () -> ()\n", "unexpected character", 1, 16);
    check("\"foo.a\"() {a = \"abc\\q\"} : () -> ()\n", "unknown escape in string literal", 1, 20);
    check("\"foo.a\"() {a = \"abc} : () -> ()\n", "expected '\"' in string literal", 1, 32);
    check("{-# unterminated\n", "expected '#-}' to end file metadata", 2, 1);
    check("\"foo.a\"() : () -> () \u{e9}\n", "unexpected character", 1, 22);
}

#[test]
fn errors_point_past_comments() {
    // "expected ..." errors at the end of the previous token's line, skipping comments
    check("\"foo.a\"( // comment\n\n", "expected ')' to end operand list", 1, 9);
}

// ---------------------------------------------------------------------------- robustness

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let c = ctx();
    let run = move || {
        let c = ctx();
        for src in [
            format!("\"foo.a\"() {{a = {}1{}}} : () -> ()", "[".repeat(100_000), "]".repeat(100_000)),
            format!("\"foo.a\"() : () -> {}i32{}", "tuple<".repeat(100_000), ">".repeat(100_000)),
            format!("\"foo.a\"() : () -> {}", "(".repeat(100_000)),
            "\"foo.a\"() ({\n".repeat(20_000),
            "t.r : () -> () {\n".repeat(20_000),
            format!("\"foo.a\"() {{a = loc({}\"f\"{})}} : () -> ()", "\"n\"(".repeat(50_000), ")".repeat(50_000)),
            format!(
                "\"foo.a\"() {{a = dense<{}1{}> : tensor<i32>}} : () -> ()",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
            format!("\"foo.a\"() : () -> !foo.x{}", "<".repeat(100_000)),
        ] {
            let e = parse_module(&c, &src, "f", &opts()).err().expect("an error");
            assert!(e.message.contains("nesting too deep") || e.message.contains("unbalanced"), "{}", e.message);
        }
    };
    // Run with the default test-thread stack size (2 MiB) to be sure.
    std::thread::Builder::new().stack_size(2 << 20).spawn(run).unwrap().join().unwrap();
    let _ = c;
}

/// A tiny deterministic PRNG (xorshift) for the fuzz-ish tests.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_bytes_never_panic() {
    let c = ctx();
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let n = r.below(64);
        let bytes: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
        let _ = parse_module_bytes(&c, &bytes, "f", &opts());
        let _ = parse_module_bytes(&c, &bytes, "f", &ParseOptions::default());
    }
}

#[test]
fn random_token_soup_never_panics() {
    let c = ctx();
    const TOKS: &[&str] = &[
        "%0",
        "%1",
        "%x",
        "%x#1",
        "%r:2",
        "^bb0",
        "^bb1",
        "#a",
        "#loc",
        "!t",
        "!foo.x<",
        "@f",
        "@\"q\"",
        "\"foo.a\"",
        "\"t.p\"",
        "\"builtin.module\"",
        "t.p",
        "t.r",
        "t.iso",
        "module",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "<",
        ">",
        "<{",
        "}>",
        ",",
        ":",
        "::",
        "=",
        "->",
        "?",
        "*",
        "-",
        "x",
        "4x",
        "0x",
        "1",
        "0x7F",
        "1.5",
        "i32",
        "f32",
        "tensor<",
        "tensor<4xf32>",
        "vector<[4]x",
        "memref<",
        "complex<",
        "tuple<",
        "dense<",
        "array<i64:",
        "array<",
        "dense_resource<",
        "distinct[",
        "affine_map<",
        "loc(",
        "unknown",
        "fused",
        "callsite",
        "at",
        "to",
        "true",
        "false",
        "unit",
        "\"s\"",
        "{-# x #-}",
        "// c\n",
        "\n",
        " ",
        "()",
        "() -> ()",
        ": () -> ()",
        "= ",
        "#a = ",
        "!t = ",
        "#loc = loc(\"f\":1:2)",
    ];
    let mut r = Rng(12345);
    for _ in 0..20000 {
        let n = 1 + r.below(24);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(TOKS[r.below(TOKS.len())]);
            if r.below(3) == 0 {
                s.push(' ');
            }
        }
        let _ = parse_module(&c, &s, "f", &opts());
    }
}

#[test]
fn mutated_valid_inputs_never_panic() {
    let c = ctx();
    let base = "#l = loc(\"a\":1:2)\n!t = tensor<4xf32>\n%0 = \"foo.a\"() {d = dense<[1.0, 2.0, 3.0, 4.0]> : !t} : () -> !t\n%1:2 = t.p %0 : (!t) -> (!t, i32)\n\"foo.r\"(%1#0)[^bb1] ({\n^bb0(%a: i32 loc(#l)):\n  t.p %a : i32\n}) {k = [1, @s::@t, array<i32: 1>]} : (!t) -> () loc(#l)\nt.iso : () -> () {\n  %z = t.p : () -> i1\n}\n";
    parse(&c, &base.replace("[^bb1]", ""));
    let bytes = base.as_bytes();
    let mut r = Rng(777);
    for _ in 0..5000 {
        let mut v = bytes.to_vec();
        for _ in 0..1 + r.below(3) {
            let i = r.below(v.len());
            match r.below(3) {
                0 => {
                    v.remove(i);
                }
                1 => v.insert(i, bytes[r.below(bytes.len())]),
                _ => v[i] = bytes[r.below(bytes.len())],
            }
        }
        let _ = parse_module_bytes(&c, &v, "f", &opts());
    }
}
