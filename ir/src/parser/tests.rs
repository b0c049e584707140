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
    ops: &[PrettyOp::DEF, RegionOp::DEF, IsoOp::DEF, AttrOp::DEF],
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
    ParseOptions { allow_unregistered: true, line_offset: 0 }
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
    let _ = (AttrKind::Unit, DenseData::Splat(Box::new([])), ValueDef::Result { op: ops[0], index: 0 }, LocKind::Unknown);
    let _ = (FloatKind::F32, Signedness::Signed, DYNAMIC, TypeKind::Index);
}
