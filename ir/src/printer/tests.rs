//! Printer tests. Every expected text was produced by `mlir-minimal-opt
//! --allow-unregistered-dialect --mlir-print-op-generic` or `mlir-opt` (LLVM 22) on the
//! equivalent input (quoted in the comments), and the IR is built here through the `Body` API.

use super::*;
use crate::attrs::DenseData;
use crate::body::OperationState;
use crate::location::LocKind;
use crate::opdef::{constraints::*, DialectDef, SuccessorCount};
use crate::types::{FloatKind, Signedness, TypeKind, DYNAMIC};

// ------------------------------------------------------------------------------ helpers

fn generic() -> PrintOptions {
    PrintOptions { generic: true, ..Default::default() }
}
fn custom() -> PrintOptions {
    PrintOptions::default()
}

fn state(ctx: &Context, name: &str) -> OperationState {
    OperationState::new(ctx, name, Location::UNKNOWN)
}

/// Creates an op from `st` at the end of `block`.
fn put(body: &mut Body, block: Block, st: OperationState) -> Op {
    let op = body.create_op(st);
    body.append_op(block, op);
    op
}

fn op(ctx: &Context, body: &mut Body, block: Block, name: &str, operands: &[Value], results: &[Type]) -> Op {
    put(body, block, state(ctx, name).operands(operands).results(results))
}

/// A detached region with blocks of the given argument types.
fn region(body: &mut Body, blocks: &[&[Type]]) -> (Region, Vec<Block>) {
    let r = body.create_region();
    let bs = blocks
        .iter()
        .map(|args| {
            let b = body.create_block(args);
            body.append_block(r, b);
            b
        })
        .collect();
    (r, bs)
}

fn dict(ctx: &Context, entries: &[(&str, Attr)]) -> Attr {
    let v: Vec<(Ident, Attr)> = entries.iter().map(|&(k, a)| (ctx.ident(k), a)).collect();
    ctx.dict(&v)
}

/// A nested isolated op body named `name` with one region of blocks with these arguments.
fn isolated_body(ctx: &Context, name: &str, blocks: &[&[Type]]) -> (Body, Vec<Block>) {
    let mut b = Body::new(ctx, ctx.op_name(name), Location::UNKNOWN);
    let r = b.add_root_region();
    let bs = blocks
        .iter()
        .map(|args| {
            let blk = b.create_block(args);
            b.append_block(r, blk);
            blk
        })
        .collect();
    (b, bs)
}

fn attr_str(ctx: &Context, a: Attr) -> String {
    attr_to_string(ctx, a)
}

// ------------------------------------------------------------------------------ test ops
// A registered pretty op family, a terminator and an op with a custom hook, to test the
// pretty form and registered-op generic printing without the dialects crate.

crate::op! {
    /// Pretty op with any operands/results and a declared attribute `k`.
    pub struct PPure = "p.op" {
        summary: "pretty op",
        operands: { #[variadic] xs: ANY_TYPE },
        results: { #[variadic] ys: ANY_TYPE },
        attributes: { #[optional] k: ANY_ATTR },
        regions: { body: u32::MAX },
    }
}
crate::op! {
    /// Pretty branch.
    pub struct PBr = "p.br" {
        summary: "branch",
        operands: { #[variadic] xs: ANY_TYPE },
        successors: SuccessorCount::Variadic,
        traits: [Terminator],
    }
}
crate::op! {
    /// Pretty terminator.
    pub struct PYield = "p.yield" {
        summary: "yield",
        operands: { #[variadic] xs: ANY_TYPE },
        traits: [Terminator],
    }
}
crate::op! {
    /// An op with a custom printer that prints its operands and falls back when it has none.
    pub struct PCustom = "p.custom" {
        summary: "custom",
        operands: { #[variadic] xs: ANY_TYPE },
        results: { #[variadic] ys: ANY_TYPE },
        syntax: Syntax::Custom { parse: parse_never, print: print_custom },
    }
}

fn parse_never(_p: &mut crate::parser::OpAsmParser<'_, '_>, _st: &mut OperationState) -> crate::parser::PResult<()> {
    Err(crate::diag::Diagnostic::error(Location::UNKNOWN, "not parsed in tests"))
}

fn print_custom(p: &mut OpAsmPrinter<'_>) {
    let ops = p.operands();
    if ops.is_empty() {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    p.print_operands(&ops);
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["skip"]);
    p.write_str(" : ");
    p.print_functional_type();
}

static P_DIALECT: DialectDef = DialectDef {
    name: "p",
    summary: "printer test ops",
    description: "",
    ops: crate::opdef::OpList::Fixed(&[PPure::DEF, PBr::DEF, PYield::DEF, PCustom::DEF]),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

fn pctx() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(&P_DIALECT);
    ctx
}

// ------------------------------------------------------------------------------ structure

/// The module of `a.mlir`: nested regions, multi-results, block arguments, successors.
fn build_a(ctx: &Context) -> Module {
    let i32t = ctx.i32_type();
    let mut m = Module::new(ctx, Location::UNKNOWN);
    let mb = m.block();
    // func f
    let (mut f, fb) = isolated_body(ctx, "func.func", &[&[i32t, i32t]]);
    let b0 = fb[0];
    let arg0 = f.block_arg(b0, 0);
    let a = op(ctx, &mut f, b0, "t.a", &[arg0], &[i32t, i32t]);
    let (a0, a1) = (f.result(a, 0), f.result(a, 1));
    let (r0, r0b) = region(&mut f, &[&[]]);
    let c = op(ctx, &mut f, r0b[0], "t.c", &[], &[i32t]);
    let cv = f.result(c, 0);
    op(ctx, &mut f, r0b[0], "t.y", &[cv], &[]);
    let (r1, r1b) = region(&mut f, &[&[i32t, i32t], &[i32t], &[]]);
    let x = f.block_arg(r1b[0], 0);
    let mut br = state(ctx, "t.br").operands(&[x]);
    br.successors.push(r1b[1]);
    put(&mut f, r1b[0], br);
    let z = f.block_arg(r1b[1], 0);
    op(ctx, &mut f, r1b[1], "t.c", &[z], &[i32t]);
    let mut br2 = state(ctx, "t.br");
    br2.successors.extend([r1b[1], r1b[2]]);
    put(&mut f, r1b[1], br2);
    op(ctx, &mut f, r1b[2], "t.y", &[], &[]);
    let r2 = f.create_region();
    let mut rst = state(ctx, "t.r").operands(&[a1]);
    rst.regions.extend([r0, r1, r2]);
    put(&mut f, b0, rst);
    let attrs = dict(ctx, &[("a", ctx.i64_attr(1)), ("b c", ctx.unit_attr()), ("z", ctx.unit_attr())]);
    let c1 = put(&mut f, b0, state(ctx, "t.c").operands(&[a0]).results(&[i32t]).attr(ctx, "a", ctx.i64_attr(1)));
    f.set_attrs(c1, attrs);
    let c1v = f.result(c1, 0);
    op(ctx, &mut f, b0, "func.return", &[c1v], &[]);
    let mut st = state(ctx, "func.func");
    st.props = Some(dict(
        ctx,
        &[("function_type", ctx.type_attr(ctx.function_type(&[i32t, i32t], &[i32t]))), ("sym_name", ctx.str_attr("f"))],
    ));
    st.nested = Some(Box::new(f));
    put(&mut m.body, mb, st);
    // func g
    let (mut g, gb) = isolated_body(ctx, "func.func", &[&[], &[]]);
    op(ctx, &mut g, gb[0], "t.x", &[], &[]);
    let mut b1 = state(ctx, "t.b");
    b1.successors.push(gb[1]);
    put(&mut g, gb[0], b1);
    let mut b2 = state(ctx, "t.b");
    b2.successors.push(gb[1]);
    put(&mut g, gb[1], b2);
    let mut st = state(ctx, "func.func");
    st.props =
        Some(dict(ctx, &[("function_type", ctx.type_attr(ctx.unit_function_type())), ("sym_name", ctx.str_attr("g"))]));
    st.nested = Some(Box::new(g));
    put(&mut m.body, mb, st);
    m
}

#[test]
fn generic_numbering_blocks_and_regions() {
    let ctx = Context::new();
    let m = build_a(&ctx);
    let expected = r#""builtin.module"() ({
  "func.func"() <{function_type = (i32, i32) -> i32, sym_name = "f"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0:2 = "t.a"(%arg0) : (i32) -> (i32, i32)
    "t.r"(%0#1) ({
      %4 = "t.c"() : () -> i32
      "t.y"(%4) : (i32) -> ()
    }, {
    ^bb0(%arg2: i32, %arg3: i32):
      "t.br"(%arg2)[^bb1] : (i32) -> ()
    ^bb1(%2: i32):  // 2 preds: ^bb0, ^bb1
      %3 = "t.c"(%2) : (i32) -> i32
      "t.br"()[^bb1, ^bb2] : () -> ()
    ^bb2:  // pred: ^bb1
      "t.y"() : () -> ()
    }, {
    }) : (i32) -> ()
    %1 = "t.c"(%0#0) {a = 1 : i64, "b c", z} : (i32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "g"}> ({
    "t.x"() : () -> ()
    "t.b"()[^bb1] : () -> ()
  ^bb1:  // 2 preds: ^bb0, ^bb1
    "t.b"()[^bb1] : () -> ()
  }) : () -> ()
}) : () -> ()
"#;
    assert_eq!(print_module(&ctx, &m, &generic()), expected);
}

#[test]
fn custom_numbering_restarts_per_region() {
    // mlir-opt (custom form) on a.mlir: sibling regions restart from the parent's counters,
    // so the first region of "t.r" reuses %2.
    let ctx = Context::new();
    let m = build_a(&ctx);
    let s = print_module(&ctx, &m, &custom());
    assert!(s.starts_with("module {\n  \"func.func\"() <{"), "{s}");
    assert!(s.contains("      %2 = \"t.c\"() : () -> i32\n      \"t.y\"(%2) : (i32) -> ()\n"), "{s}");
    assert!(s.contains("    ^bb1(%2: i32):  // 2 preds: ^bb0, ^bb1\n      %3 = \"t.c\"(%2) : (i32) -> i32\n"), "{s}");
    assert!(s.ends_with("  }) : () -> ()\n}\n"), "{s}");
}

/// `b.mlir`: a value at the top of the module, an isolated op after it (custom numbering
/// continues from the module's counters), nested modules, empty regions and blocks.
#[test]
fn module_custom_form_and_top_level_values() {
    let ctx = Context::new();
    let i32t = ctx.i32_type();
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mb = m.block();
    let top = op(&ctx, &mut m.body, mb, "t.top", &[], &[i32t]);
    let topv = m.body.result(top, 0);
    // "t.r" with three regions: one op; one empty block; args + blocks with preds
    let (r0, r0b) = region(&mut m.body, &[&[]]);
    op(&ctx, &mut m.body, r0b[0], "t.n", &[], &[]);
    let (r1, _) = region(&mut m.body, &[&[]]);
    let (r2, r2b) = region(&mut m.body, &[&[i32t], &[], &[]]);
    let a = m.body.block_arg(r2b[0], 0);
    op(&ctx, &mut m.body, r2b[0], "t.x", &[a, topv], &[]);
    op(&ctx, &mut m.body, r2b[1], "t.y", &[], &[]);
    let mut cb = state(&ctx, "t.cb");
    cb.successors.extend([r2b[1], r2b[1]]);
    put(&mut m.body, r2b[2], cb);
    let mut rst = state(&ctx, "t.r");
    rst.regions.extend([r0, r1, r2]);
    put(&mut m.body, mb, rst);
    // an isolated unregistered op with a value
    let (mut g, gb) = isolated_body(&ctx, "t.func", &[&[]]);
    op(&ctx, &mut g, gb[0], "t.c", &[], &[i32t]);
    let mut st = state(&ctx, "t.func");
    st.nested = Some(Box::new(g));
    put(&mut m.body, mb, st);
    // module @inner { module attributes {t.bar = 1 : i32, t.foo} {} }
    let (mut inner, ib) = isolated_body(&ctx, "builtin.module", &[&[]]);
    let (innermost, _) = isolated_body(&ctx, "builtin.module", &[&[]]);
    let mut st = state(&ctx, "builtin.module");
    st.attrs = dict(&ctx, &[("t.foo", ctx.unit_attr()), ("t.bar", ctx.int_attr(1, i32t))]);
    st.nested = Some(Box::new(innermost));
    put(&mut inner, ib[0], st);
    let mut st = state(&ctx, "builtin.module").attr(&ctx, "sym_name", ctx.str_attr("inner"));
    st.nested = Some(Box::new(inner));
    put(&mut m.body, mb, st);
    op(&ctx, &mut m.body, mb, "t.d", &[], &[i32t]);

    let expected_generic = r#""builtin.module"() ({
  %0 = "t.top"() : () -> i32
  "t.r"() ({
    "t.n"() : () -> ()
  }, {
  ^bb0:
  }, {
  ^bb0(%arg0: i32):
    "t.x"(%arg0, %0) : (i32, i32) -> ()
  ^bb1:  // 2 preds: ^bb2, ^bb2
    "t.y"() : () -> ()
  ^bb2:  // no predecessors
    "t.cb"()[^bb1, ^bb1] : () -> ()
  }) : () -> ()
  "t.func"() ({
    %2 = "t.c"() : () -> i32
  }) : () -> ()
  "builtin.module"() <{sym_name = "inner"}> ({
    "builtin.module"() ({
    ^bb0:
    }) {t.bar = 1 : i32, t.foo} : () -> ()
  }) : () -> ()
  %1 = "t.d"() : () -> i32
}) : () -> ()
"#;
    assert_eq!(print_module(&ctx, &m, &generic()), expected_generic);
    let expected_custom = r#"module {
  %0 = "t.top"() : () -> i32
  "t.r"() ({
    "t.n"() : () -> ()
  }, {
  ^bb0:
  }, {
  ^bb0(%arg0: i32):
    "t.x"(%arg0, %0) : (i32, i32) -> ()
  ^bb1:  // 2 preds: ^bb2, ^bb2
    "t.y"() : () -> ()
  ^bb2:  // no predecessors
    "t.cb"()[^bb1, ^bb1] : () -> ()
  }) : () -> ()
  "t.func"() ({
    %2 = "t.c"() : () -> i32
  }) : () -> ()
  module @inner {
    module attributes {t.bar = 1 : i32, t.foo} {
    }
  }
  %1 = "t.d"() : () -> i32
}
"#;
    assert_eq!(print_module(&ctx, &m, &custom()), expected_custom);
}

#[test]
fn empty_module_and_builtin_prefix_inside_other_ops() {
    let ctx = Context::new();
    let m = Module::new(&ctx, Location::UNKNOWN);
    assert_eq!(print_module(&ctx, &m, &custom()), "module {\n}\n");
    assert_eq!(print_module(&ctx, &m, &generic()), "\"builtin.module\"() ({\n^bb0:\n}) : () -> ()\n");
    // inside an unregistered op's region the default dialect is "" (mlir-opt prints
    // `builtin.module {`), and unregistered props `<{}>` are kept
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mb = m.block();
    let (r, rb) = region(&mut m.body, &[&[]]);
    let (inner, _) = isolated_body(&ctx, "builtin.module", &[&[]]);
    let mut st = state(&ctx, "builtin.module");
    st.nested = Some(Box::new(inner));
    put(&mut m.body, rb[0], st);
    let mut u = state(&ctx, "t.u");
    u.props = Some(ctx.empty_dict());
    put(&mut m.body, rb[0], u);
    let mut v = state(&ctx, "t.v").attr(&ctx, "b", ctx.unit_attr());
    v.props = Some(dict(&ctx, &[("a", ctx.i64_attr(1))]));
    put(&mut m.body, rb[0], v);
    let mut st = state(&ctx, "t.r");
    st.regions.push(r);
    put(&mut m.body, mb, st);
    assert_eq!(
        print_module(&ctx, &m, &custom()),
        "module {\n  \"t.r\"() ({\n    builtin.module {\n    }\n    \"t.u\"() <{}> : () -> ()\n    \"t.v\"() <{a = 1 : i64}> {b} : () -> ()\n  }) : () -> ()\n}\n"
    );
}

#[test]
fn print_isolated_restarts_names_and_has_no_newline() {
    let ctx = Context::new();
    let m = build_a(&ctx);
    let f = m.ops()[0];
    let fbody = m.body.nested(f).unwrap();
    let s = print_isolated(&ctx, fbody, &generic());
    assert!(s.starts_with("\"func.func\"() <{function_type = (i32, i32) -> i32, sym_name = \"f\"}> ({\n^bb0(%arg0: i32, %arg1: i32):\n  %0:2 = \"t.a\"(%arg0)"), "{s}");
    assert!(s.ends_with("  \"func.return\"(%1) : (i32) -> ()\n}) : () -> ()"), "{s}");
}

#[test]
fn print_op_generic_uses_local_scope_names_and_elides() {
    // mlir-opt note: `see current operation: "func.return"(%1) {d = dense_resource<__elided__>
    // : tensor<17xi32>, e = dense<[1, ..., 16]> : tensor<16xi32>} : (i32) -> ()`
    let ctx = Context::new();
    let i32t = ctx.i32_type();
    let (mut f, fb) = isolated_body(&ctx, "func.func", &[&[]]);
    let a = op(&ctx, &mut f, fb[0], "t.a", &[], &[i32t]);
    let av = f.result(a, 0);
    let (r, rb) = region(&mut f, &[&[]]);
    let b = op(&ctx, &mut f, rb[0], "t.b", &[av], &[i32t]);
    let bv = f.result(b, 0);
    let dense = |n: i32| {
        let mut data = Vec::new();
        for i in 1..=n {
            data.extend_from_slice(&i.to_le_bytes());
        }
        ctx.attr(AttrKind::DenseElements {
            ty: ctx.tensor_type(&[n as i64], i32t),
            data: DenseData::Elements(data.into()),
        })
    };
    let ret = put(
        &mut f,
        rb[0],
        state(&ctx, "func.return").operands(&[bv]).attr(&ctx, "d", dense(17)).attr(&ctx, "e", dense(16)),
    );
    let mut st = state(&ctx, "t.r");
    st.regions.push(r);
    put(&mut f, fb[0], st);
    assert_eq!(
        print_op_generic(&ctx, &f, ret),
        "\"func.return\"(%1) {d = dense_resource<__elided__> : tensor<17xi32>, e = dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<16xi32>} : (i32) -> ()"
    );
    assert_eq!(print_op_generic(&ctx, &f, a), "%0 = \"t.a\"() : () -> i32");
}

// ------------------------------------------------------------------------------ pretty form

#[test]
fn pretty_form() {
    let ctx = pctx();
    let i32t = ctx.i32_type();
    let f32t = ctx.f32_type();
    let fnt = ctx.function_type(&[i32t], &[i32t]);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mb = m.block();
    let b = &mut m.body;
    let x = op(&ctx, b, mb, "p.op", &[], &[i32t]);
    let xv = b.result(x, 0);
    let y = put(b, mb, state(&ctx, "p.op").operands(&[xv, xv]).results(&[i32t]).attr(&ctx, "k", ctx.str_attr("v")));
    let yv = b.result(y, 0);
    let z = op(&ctx, b, mb, "p.op", &[xv, yv], &[f32t, i32t]);
    let z1 = b.result(z, 1);
    op(&ctx, b, mb, "p.op", &[z1], &[]);
    op(&ctx, b, mb, "p.op", &[], &[]);
    let fv = op(&ctx, b, mb, "p.op", &[], &[fnt]);
    let fvv = b.result(fv, 0);
    op(&ctx, b, mb, "p.op", &[fvv], &[fnt]);
    op(&ctx, b, mb, "p.op", &[], &[f32t, f32t]);
    // with a region: block arguments, a terminator, a second block
    let (r, rb) = region(b, &[&[f32t], &[]]);
    let a = b.block_arg(rb[0], 0);
    let mut br = state(&ctx, "p.br").operands(&[a]);
    br.successors.push(rb[1]);
    put(b, rb[0], br);
    op(&ctx, b, rb[1], "p.yield", &[], &[]);
    let mut st = state(&ctx, "p.op").operands(&[xv]).results(&[f32t]).attr(&ctx, "z", ctx.unit_attr());
    st.regions.push(r);
    put(b, mb, st);
    let (r2, _) = region(b, &[&[]]);
    let (r3, _) = region(b, &[]);
    let mut st = state(&ctx, "p.op");
    st.regions.extend([r2, r3]);
    put(b, mb, st);
    let expected = r#"module {
  %0 = p.op : i32
  %1 = p.op %0, %0 {k = "v"} : i32
  %2:2 = p.op %0, %1 : (i32, i32) -> (f32, i32)
  p.op %2#1 : i32
  p.op
  %3 = p.op : () -> ((i32) -> i32)
  %4 = p.op %3 : ((i32) -> i32) -> ((i32) -> i32)
  %5:2 = p.op : f32
  %6 = p.op %0 {z} : (i32) -> f32 {
  ^bb0(%arg0: f32):
    p.br %arg0 [^bb1] : f32
  ^bb1:  // pred: ^bb0
    p.yield
  }
  p.op : () -> () {
  ^bb0:
  } {
  }
}
"#;
    assert_eq!(print_module(&ctx, &m, &custom()), expected);
    // The generic form of registered ops puts declared attributes in `<{...}>`.
    let g = print_module(&ctx, &m, &generic());
    assert!(g.contains("%1 = \"p.op\"(%0, %0) <{k = \"v\"}> : (i32, i32) -> i32\n"), "{g}");
    assert!(g.contains("%6 = \"p.op\"(%0) ({\n  ^bb0(%arg0: f32):\n    \"p.br\"(%arg0)[^bb1] : (f32) -> ()\n"), "{g}");
    assert!(g.contains("}) {z} : (i32) -> f32\n"), "{g}");
}

#[test]
fn custom_hook_and_fallback() {
    let ctx = pctx();
    let i32t = ctx.i32_type();
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mb = m.block();
    let x = op(&ctx, &mut m.body, mb, "p.custom", &[], &[i32t]);
    let xv = m.body.result(x, 0);
    put(
        &mut m.body,
        mb,
        state(&ctx, "p.custom").operands(&[xv]).results(&[i32t]).attr(&ctx, "skip", ctx.unit_attr()).attr(
            &ctx,
            "q",
            ctx.i64_attr(2),
        ),
    );
    assert_eq!(
        print_module(&ctx, &m, &custom()),
        "module {\n  %0 = \"p.custom\"() : () -> i32\n  %1 = p.custom %0 {q = 2 : i64} : (i32) -> i32\n}\n"
    );
}

// ------------------------------------------------------------------------------ debug info

#[test]
fn locations_inline() {
    // mlir-opt --mlir-print-debuginfo --mlir-print-local-scope
    let ctx = Context::new();
    let i32t = ctx.i32_type();
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mb = m.block();
    let f = ctx.file_loc("f.mlir", 3, 5);
    let name = ctx.name_loc("name", None);
    let named = ctx.name_loc("name", Some(f));
    let a = ctx.name_loc("a", None);
    let b = ctx.name_loc("b", None);
    let f11 = ctx.file_loc("f.mlir", 1, 1);
    let call = ctx.loc(LocKind::CallSite { callee: a, caller: f11 });
    let fused = ctx.loc(LocKind::Fused { metadata: None, locs: Box::new([a, b]) });
    let fused_meta = ctx.loc(LocKind::Fused { metadata: Some(ctx.str_attr("meta")), locs: Box::new([a, f11]) });
    let range = ctx.loc(LocKind::FileLineCol { file: ctx.ident("f.mlir"), line: 3, col: 5, end: Some((Some(4), 6)) });
    let range2 = ctx.loc(LocKind::FileLineCol { file: ctx.ident("f.mlir"), line: 3, col: 5, end: Some((None, 9)) });
    let range3 = ctx.loc(LocKind::FileLineCol { file: ctx.ident("f"), line: 3, col: 5, end: Some((Some(3), 9)) });
    let quoted = ctx.name_loc("na\"me", None);
    let cases = [
        (f, r#"loc("f.mlir":3:5)"#),
        (name, r#"loc("name")"#),
        (named, r#"loc("name"("f.mlir":3:5))"#),
        (call, r#"loc(callsite("a" at "f.mlir":1:1))"#),
        (fused, r#"loc(fused["a", "b"])"#),
        (fused_meta, r#"loc(fused<"meta">["a", "f.mlir":1:1])"#),
        (Location::UNKNOWN, "loc(unknown)"),
        (range, r#"loc("f.mlir":3:5 to 4:6)"#),
        (range2, r#"loc("f.mlir":3:5 to :9)"#),
        (range3, r#"loc("f":3:5 to :9)"#),
        (quoted, r#"loc("na\22me")"#),
    ];
    for (l, text) in cases {
        assert_eq!(loc_to_string(&ctx, l), text);
        let o = op(&ctx, &mut m.body, mb, "t.b", &[], &[]);
        m.body.set_op_loc(o, l);
    }
    let (r, rb) = region(&mut m.body, &[&[i32t, i32t]]);
    let arg = m.body.block_arg(rb[0], 0);
    m.body.set_arg_loc(arg, ctx.file_loc("y", 2, 2));
    op(&ctx, &mut m.body, rb[0], "t.y", &[], &[]);
    let mut st = state(&ctx, "t.r").attr(&ctx, "l", ctx.attr(AttrKind::Location(ctx.file_loc("q", 1, 1))));
    st.regions.push(r);
    st.loc = f;
    put(&mut m.body, mb, st);
    // print_isolated prints with local scope: locations inline, as
    // `mlir-opt --mlir-print-debuginfo --mlir-print-local-scope` does
    let s = print_isolated(&ctx, &m.body, &PrintOptions { debug_info: true, ..Default::default() });
    assert!(
        s.starts_with("module {\n  \"t.b\"() : () -> () loc(\"f.mlir\":3:5)\n  \"t.b\"() : () -> () loc(\"name\")\n"),
        "{s}"
    );
    assert!(s.contains(
        "  \"t.r\"() ({\n  ^bb0(%arg0: i32 loc(\"y\":2:2), %arg1: i32 loc(unknown)):\n    \"t.y\"() : () -> () loc(unknown)\n  }) {l = loc(\"q\":1:1)} : () -> () loc(\"f.mlir\":3:5)\n}"
    ), "{s}");
    assert!(s.ends_with("} loc(unknown)"), "{s}");
    // print_module uses #loc aliases, and mlir-minimal-opt prints it back identically
    let s = print_module(&ctx, &m, &PrintOptions { generic: true, debug_info: true, ..Default::default() });
    assert!(
        s.starts_with(
            "#loc = loc(unknown)\n#loc10 = loc(\"y\":2:2)\n#loc11 = loc(\"q\":1:1)\n\"builtin.module\"() ({\n"
        ),
        "{s}"
    );
    if let Some(theirs) = mlir_reprint(&s, &["--mlir-print-debuginfo"]) {
        assert_eq!(theirs, format!("{s}\n"));
    }
}

// ------------------------------------------------------------------------------ types

#[test]
fn types() {
    let ctx = Context::new();
    let (i32t, f32t, i64t) = (ctx.i32_type(), ctx.f32_type(), ctx.i64_type());
    let t = |k: TypeKind| ctx.intern_type(k);
    let ty = |t: Type| type_to_string(&ctx, t);
    assert_eq!(ty(ctx.tensor_type(&[4, DYNAMIC], f32t)), "tensor<4x?xf32>");
    assert_eq!(ty(ctx.tensor_type(&[], f32t)), "tensor<f32>");
    assert_eq!(ty(ctx.tensor_type(&[0, 1], ctx.i8_type())), "tensor<0x1xi8>");
    assert_eq!(ty(t(TypeKind::UnrankedTensor { elem: f32t })), "tensor<*xf32>");
    let enc = ctx.attr(AttrKind::Dialect { dialect: ctx.ident("t"), text: "t.enc<1>".into() });
    assert_eq!(
        ty(t(TypeKind::RankedTensor { shape: Box::new([4, DYNAMIC]), elem: f32t, encoding: Some(enc) })),
        "tensor<4x?xf32, #t.enc<1>>"
    );
    assert_eq!(
        ty(t(TypeKind::RankedTensor { shape: Box::new([4]), elem: f32t, encoding: Some(ctx.str_attr("enc")) })),
        "tensor<4xf32, \"enc\">"
    );
    assert_eq!(
        ty(t(TypeKind::Vector { shape: Box::new([4, 8]), scalable: Box::new([true, false]), elem: f32t })),
        "vector<[4]x8xf32>"
    );
    assert_eq!(
        ty(t(TypeKind::Vector { shape: Box::new([4, 8]), scalable: Box::new([false, true]), elem: f32t })),
        "vector<4x[8]xf32>"
    );
    assert_eq!(ty(t(TypeKind::Vector { shape: Box::new([]), scalable: Box::new([]), elem: f32t })), "vector<f32>");
    let memref =
        |shape: &[i64], layout, ms| t(TypeKind::MemRef { shape: shape.into(), elem: f32t, layout, memory_space: ms });
    assert_eq!(ty(memref(&[4], None, Some(ctx.i64_attr(1)))), "memref<4xf32, 1>");
    assert_eq!(ty(memref(&[4], None, Some(ctx.str_attr("gpu")))), "memref<4xf32, \"gpu\">");
    let strided =
        ctx.attr(AttrKind::Keyword { keyword: ctx.ident("strided"), text: "strided<[?, 1], offset: ?>".into() });
    assert_eq!(ty(memref(&[4, DYNAMIC], Some(strided), None)), "memref<4x?xf32, strided<[?, 1], offset: ?>>");
    let map =
        ctx.attr(AttrKind::Keyword { keyword: ctx.ident("affine_map"), text: "affine_map<(d0) -> (d0 + 1)>".into() });
    assert_eq!(
        ty(memref(&[4], Some(map), Some(ctx.int_attr(2, i32t)))),
        "memref<4xf32, affine_map<(d0) -> (d0 + 1)>, 2 : i32>"
    );
    assert_eq!(ty(t(TypeKind::UnrankedMemRef { elem: f32t, memory_space: Some(ctx.i64_attr(3)) })), "memref<*xf32, 3>");
    assert_eq!(ty(t(TypeKind::UnrankedMemRef { elem: f32t, memory_space: None })), "memref<*xf32>");
    assert_eq!(ty(t(TypeKind::Complex(f32t))), "complex<f32>");
    assert_eq!(ty(t(TypeKind::Tuple(Box::new([i32t, f32t])))), "tuple<i32, f32>");
    assert_eq!(ty(t(TypeKind::Tuple(Box::new([])))), "tuple<>");
    assert_eq!(ty(ctx.none_type()), "none");
    assert_eq!(ty(ctx.index_type()), "index");
    assert_eq!(ty(ctx.integer_type(8, Signedness::Signed)), "si8");
    assert_eq!(ty(ctx.integer_type(16, Signedness::Unsigned)), "ui16");
    assert_eq!(ty(ctx.i1_type()), "i1");
    for k in FloatKind::ALL {
        assert_eq!(ty(ctx.float_type(k)), k.keyword());
    }
    assert_eq!(ty(ctx.unit_function_type()), "() -> ()");
    let f1 = ctx.function_type(&[i32t], &[i32t, f32t]);
    assert_eq!(ty(f1), "(i32) -> (i32, f32)");
    let inner = ctx.function_type(&[i32t], &[i32t]);
    assert_eq!(ty(ctx.function_type(&[i32t], &[inner])), "(i32) -> ((i32) -> i32)");
    assert_eq!(ty(ctx.function_type(&[inner], &[i32t])), "((i32) -> i32) -> i32");
    assert_eq!(ty(ctx.function_type(&[i32t, i64t], &[])), "(i32, i64) -> ()");
    assert_eq!(ty(ctx.dialect_type("t<\"x y\">")), "!t<\"x y\">");
    assert_eq!(ty(ctx.dialect_type("t.q<a, [b]>")), "!t.q<a, [b]>");
    assert_eq!(ty(ctx.dialect_type("xcs.str")), "!xcs.str");
}

// ------------------------------------------------------------------------------ attributes

#[test]
fn scalar_attributes() {
    let ctx = Context::new();
    let a = |x: Attr| attr_str(&ctx, x);
    let int = |v: i128, t: Type| ctx.int_attr(v, t);
    let si = |w| ctx.integer_type(w, Signedness::Signed);
    let ui = |w| ctx.integer_type(w, Signedness::Unsigned);
    let i = |w| ctx.integer_type(w, Signedness::Signless);
    assert_eq!(a(ctx.i64_attr(1)), "1 : i64");
    assert_eq!(a(ctx.i64_attr(i64::MIN)), "-9223372036854775808 : i64");
    assert_eq!(a(ctx.bool_attr(true)), "true");
    assert_eq!(a(ctx.bool_attr(false)), "false");
    assert_eq!(a(int(200, ui(8))), "200 : ui8");
    assert_eq!(a(int(-56, i(8))), "-56 : i8");
    assert_eq!(a(int(200, i(8))), "-56 : i8");
    assert_eq!(a(int(7, ctx.index_type())), "7 : index");
    assert_eq!(a(int(-1, si(4))), "-1 : si4");
    assert_eq!(a(int(-1, si(1))), "-1 : si1");
    assert_eq!(a(int(1, ui(1))), "1 : ui1");
    assert_eq!(a(int(7, i(3))), "-1 : i3");
    assert_eq!(a(int(i128::MAX, i(128))), "170141183460469231731687303715884105727 : i128");
    assert_eq!(a(int(i128::MIN, i(128))), "-170141183460469231731687303715884105728 : i128");
    assert_eq!(a(int(-1, ui(128))), "340282366920938463463374607431768211455 : ui128");
    assert_eq!(a(int(u64::MAX as i128, ui(64))), "18446744073709551615 : ui64");
    // floats
    let fl = |v: f64, t: Type| a(ctx.float_attr(v, t));
    assert_eq!(fl(0.1, ctx.f32_type()), "1.000000e-01 : f32");
    assert_eq!(fl(0.1, ctx.f64_type()), "1.000000e-01 : f64");
    assert_eq!(fl(1.0e40, ctx.f32_type()), "0x7F800000 : f32");
    assert_eq!(fl(-0.0, ctx.f32_type()), "-0.000000e+00 : f32");
    assert_eq!(fl(f64::NAN, ctx.f64_type()), "0x7FF8000000000000 : f64");
    assert_eq!(fl(f64::NEG_INFINITY, ctx.f16_type()), "0xFC00 : f16");
    assert_eq!(fl(0.3, ctx.f16_type()), "3.000490e-01 : f16");
    assert_eq!(fl(0.1, ctx.bf16_type()), "1.000980e-01 : bf16");
    assert_eq!(fl(0.189218894, ctx.f32_type()), "0.189218894 : f32");
    assert_eq!(fl(123456789.0, ctx.f64_type()), "0x419D6F3454000000 : f64");
    assert_eq!(fl(1.0e-300, ctx.f64_type()), "1.000000e-300 : f64");
    assert_eq!(fl(0.1, ctx.float_type(FloatKind::F80)), "0.100000000000000005551 : f80");
    assert_eq!(fl(f64::NAN, ctx.float_type(FloatKind::F80)), "0x7FFFC000000000000000 : f80");
    // rounded to the kind as mlir-minimal-opt does for `0.1 : tf32`, ...
    assert_eq!(fl(0.1, ctx.float_type(FloatKind::TF32)), "9.997550e-02 : tf32");
    assert_eq!(fl(0.1, ctx.float_type(FloatKind::F8E5M2)), "9.375000e-02 : f8E5M2");
    assert_eq!(fl(1.0e10, ctx.float_type(FloatKind::F8E4M3FN)), "0x7F : f8E4M3FN");
    assert_eq!(fl(1.0e10, ctx.float_type(FloatKind::F4E2M1FN)), "6.000000e+00 : f4E2M1FN");
    // strings: `"a\"b\\c\nd\te\0A\7F\80\FF"` and `"\01\1F \7E€"`
    assert_eq!(a(ctx.str_attr("a\"b\\c\nd\te\n\x7F")), r#""a\22b\\c\0Ad\09e\0A\7F""#);
    assert_eq!(a(ctx.attr(AttrKind::String { value: Box::new([0x80, 0xFF]), ty: None })), r#""\80\FF""#);
    assert_eq!(a(ctx.str_attr("\x01\x1F ~€")), r#""\01\1F ~\E2\82\AC""#);
    assert_eq!(a(ctx.attr(AttrKind::String { value: Box::new(*b"x"), ty: Some(ctx.i32_type()) })), "\"x\" : i32");
    assert_eq!(a(ctx.unit_attr()), "unit");
    assert_eq!(a(ctx.type_attr(ctx.i32_type())), "i32");
    assert_eq!(a(ctx.symbol_ref("quoted name")), "@\"quoted name\"");
    assert_eq!(a(ctx.symbol_ref("_x.y$z")), "@_x.y$z");
    assert_eq!(a(ctx.symbol_ref("1a")), "@\"1a\"");
    let nested =
        ctx.attr(AttrKind::SymbolRef { root: ctx.ident("a"), nested: Box::new([ctx.ident("b"), ctx.ident("c d")]) });
    assert_eq!(a(nested), "@a::@b::@\"c d\"");
    assert_eq!(a(ctx.empty_dict()), "{}");
    assert_eq!(
        a(ctx.attr(AttrKind::Keyword { keyword: ctx.ident("affine_map"), text: "affine_map<(d0) -> (d0)>".into() })),
        "affine_map<(d0) -> (d0)>"
    );
    assert_eq!(a(ctx.attr(AttrKind::Dialect { dialect: ctx.ident("t"), text: "t<\"q r\">".into() })), "#t<\"q r\">");
    assert_eq!(a(ctx.attr(AttrKind::Location(ctx.file_loc("a", 1, 2)))), "loc(\"a\":1:2)");
    assert_eq!(
        a(ctx.attr(AttrKind::DenseResource {
            handle: ctx.create_resource("blob1", None),
            ty: ctx.tensor_type(&[2], ctx.f32_type())
        })),
        "dense_resource<blob1> : tensor<2xf32>"
    );
}

#[test]
fn dictionaries_arrays_and_elision() {
    let ctx = Context::new();
    let a = |x: Attr| attr_str(&ctx, x);
    // `{"1x" = 2, _a.b$c = 3, "a b" = 1, "a-b" = 5}` sorted by key bytes
    let d = dict(
        &ctx,
        &[
            ("a b", ctx.i64_attr(1)),
            ("1x", ctx.i64_attr(2)),
            ("_a.b$c", ctx.i64_attr(3)),
            ("a-b", ctx.i64_attr(5)),
            ("u", ctx.unit_attr()),
        ],
    );
    assert_eq!(a(d), r#"{"1x" = 2 : i64, _a.b$c = 3 : i64, "a b" = 1 : i64, "a-b" = 5 : i64, u}"#);
    // `[1, 2.0, "s", [3 : i32], {a = 1}, unit, @f, i32, true, 1 : i1, 200 : ui8, -56 : i8, 7 : index]`
    let arr = ctx.array_attr(&[
        ctx.i64_attr(1),
        ctx.float_attr(2.0, ctx.f64_type()),
        ctx.str_attr("s"),
        ctx.array_attr(&[ctx.int_attr(3, ctx.i32_type())]),
        dict(&ctx, &[("a", ctx.i64_attr(1))]),
        ctx.unit_attr(),
        ctx.symbol_ref("f"),
        ctx.type_attr(ctx.i32_type()),
        ctx.bool_attr(true),
        ctx.int_attr(1, ctx.i1_type()),
        ctx.int_attr(200, ctx.integer_type(8, Signedness::Unsigned)),
        ctx.int_attr(-56, ctx.i8_type()),
        ctx.int_attr(7, ctx.index_type()),
        ctx.float_attr(2.0, ctx.f32_type()),
    ]);
    assert_eq!(
        a(arr),
        r#"[1, 2.000000e+00, "s", [3 : i32], {a = 1 : i64}, unit, @f, i32, true, true, 200 : ui8, -56 : i8, 7 : index, 2.000000e+00 : f32]"#
    );
    // the cached text of `1 : i64` still prints with its type outside arrays
    assert_eq!(a(ctx.i64_attr(1)), "1 : i64");
    let tys = ctx.array_attr(&[
        ctx.type_attr(ctx.unit_function_type()),
        ctx.type_attr(ctx.function_type(&[ctx.i32_type()], &[ctx.i32_type(), ctx.f32_type()])),
    ]);
    assert_eq!(a(tys), "[() -> (), (i32) -> (i32, f32)]");
}

#[test]
fn dense_arrays_and_distinct() {
    let ctx = Context::new();
    let a = |x: Attr| attr_str(&ctx, x);
    assert_eq!(a(ctx.dense_i64_array(&[1, 0])), "array<i64: 1, 0>");
    assert_eq!(a(ctx.dense_i64_array(&[])), "array<i64>");
    let arr = |elem: Type, data: Vec<u8>| ctx.attr(AttrKind::DenseArray { elem, data: data.into() });
    assert_eq!(a(arr(ctx.i1_type(), vec![1, 0])), "array<i1: true, false>");
    assert_eq!(a(arr(ctx.i8_type(), vec![0xFF, 2])), "array<i8: -1, 2>");
    let mut fdata = 1.0f32.to_le_bytes().to_vec();
    fdata.extend_from_slice(&0.1f32.to_le_bytes());
    assert_eq!(a(arr(ctx.f32_type(), fdata)), "array<f32: 1.000000e+00, 1.000000e-01>");
    // `[distinct[5]<unit>, distinct[7]<1 : i32>, distinct[5]<unit>]` renumbered in print order
    let d5 = ctx.attr(AttrKind::Distinct { id: 5, attr: ctx.unit_attr() });
    let d7 = ctx.attr(AttrKind::Distinct { id: 7, attr: ctx.int_attr(1, ctx.i32_type()) });
    assert_eq!(a(ctx.array_attr(&[d5, d7, d5])), "[distinct[0]<>, distinct[1]<1 : i32>, distinct[0]<>]");
}

fn dense(ctx: &Context, ty: Type, data: DenseData) -> Attr {
    ctx.attr(AttrKind::DenseElements { ty, data })
}

fn le_bytes<T: Copy>(vals: &[T], f: impl Fn(T) -> Vec<u8>) -> DenseData {
    DenseData::Elements(vals.iter().flat_map(|&v| f(v)).collect::<Vec<u8>>().into())
}

#[test]
fn dense_elements() {
    let ctx = Context::new();
    let a = |x: Attr| attr_str(&ctx, x);
    let i32t = ctx.i32_type();
    let t = |shape: &[i64], e: Type| ctx.tensor_type(shape, e);
    let i32s = |v: &[i32]| le_bytes(v, |x| x.to_le_bytes().to_vec());
    assert_eq!(a(dense(&ctx, t(&[2, 2], i32t), i32s(&[1, 2, 3, 4]))), "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>");
    assert_eq!(a(dense(&ctx, t(&[2, 1], i32t), i32s(&[1, 2]))), "dense<[[1], [2]]> : tensor<2x1xi32>");
    let r3 = le_bytes(&[1i8, 2, 3, 4], |x| vec![x as u8]);
    assert_eq!(a(dense(&ctx, t(&[2, 2, 1], ctx.i8_type()), r3)), "dense<[[[1], [2]], [[3], [4]]]> : tensor<2x2x1xi8>");
    // all-equal elements print as a splat (`dense<[1, 1]>` -> `dense<1>`)
    assert_eq!(a(dense(&ctx, t(&[2], i32t), i32s(&[1, 1]))), "dense<1> : tensor<2xi32>");
    let ones = le_bytes(&[1.0f32, 1.0], |x| x.to_le_bytes().to_vec());
    assert_eq!(a(dense(&ctx, t(&[1, 2], ctx.f32_type()), ones)), "dense<1.000000e+00> : tensor<1x2xf32>");
    assert_eq!(
        a(dense(&ctx, t(&[200], i32t), DenseData::Splat(1i32.to_le_bytes().into()))),
        "dense<1> : tensor<200xi32>"
    );
    assert_eq!(a(dense(&ctx, t(&[], i32t), i32s(&[5]))), "dense<5> : tensor<i32>");
    assert_eq!(a(dense(&ctx, t(&[0], i32t), i32s(&[]))), "dense<> : tensor<0xi32>");
    assert_eq!(a(dense(&ctx, t(&[1, 0], ctx.i8_type()), i32s(&[]))), "dense<> : tensor<1x0xi8>");
    let bools = le_bytes(&[1u8, 0], |x| vec![x]);
    assert_eq!(a(dense(&ctx, t(&[2], ctx.i1_type()), bools)), "dense<[true, false]> : tensor<2xi1>");
    let vt =
        ctx.intern_type(TypeKind::Vector { shape: Box::new([2]), scalable: Box::new([false]), elem: ctx.f32_type() });
    let fv = le_bytes(&[0.1f32, 1.5], |x| x.to_le_bytes().to_vec());
    assert_eq!(a(dense(&ctx, vt, fv)), "dense<[1.000000e-01, 1.500000e+00]> : vector<2xf32>");
    let u8t = ctx.integer_type(8, Signedness::Unsigned);
    assert_eq!(a(dense(&ctx, t(&[2], u8t), le_bytes(&[255u8, 1], |x| vec![x]))), "dense<[255, 1]> : tensor<2xui8>");
    let si8 = ctx.integer_type(8, Signedness::Signed);
    assert_eq!(a(dense(&ctx, t(&[2], si8), le_bytes(&[0xFFu8, 2], |x| vec![x]))), "dense<[-1, 2]> : tensor<2xsi8>");
    let idx = le_bytes(&[1i64, 2], |x| x.to_le_bytes().to_vec());
    assert_eq!(a(dense(&ctx, t(&[2], ctx.index_type()), idx)), "dense<[1, 2]> : tensor<2xindex>");
    // complex: `dense<[(1.0, 2.0)]> : tensor<1xcomplex<f64>>`, `dense<(1, 2)> : tensor<2xcomplex<i32>>`
    let c64 = ctx.intern_type(TypeKind::Complex(ctx.f64_type()));
    let cdata = le_bytes(&[1.0f64, 2.0], |x| x.to_le_bytes().to_vec());
    assert_eq!(a(dense(&ctx, t(&[1], c64), cdata)), "dense<(1.000000e+00,2.000000e+00)> : tensor<1xcomplex<f64>>");
    let ci32 = ctx.intern_type(TypeKind::Complex(i32t));
    assert_eq!(a(dense(&ctx, t(&[2], ci32), i32s(&[1, 2, 1, 2]))), "dense<(1,2)> : tensor<2xcomplex<i32>>");
    assert_eq!(a(dense(&ctx, t(&[2], ci32), i32s(&[1, 2, 3, 4]))), "dense<[(1,2), (3,4)]> : tensor<2xcomplex<i32>>");
    // strings: `dense<["a", "b\0A"]> : tensor<2x!t.s>`, splat `dense<"xy"> : tensor<3x!t.s>`
    let st = ctx.dialect_type("t.s");
    let strs = DenseData::Strings(Box::new([Box::new(*b"a"), Box::new(*b"b\n")]));
    assert_eq!(a(dense(&ctx, t(&[2], st), strs)), "dense<[\"a\", \"b\\0A\"]> : tensor<2x!t.s>");
    let strs = DenseData::Strings(Box::new([Box::new(*b"xy")]));
    assert_eq!(a(dense(&ctx, t(&[3], st), strs)), "dense<\"xy\"> : tensor<3x!t.s>");
}

#[test]
fn dense_hex_threshold() {
    let ctx = Context::new();
    let a = |x: Attr| attr_str(&ctx, x);
    let t = |n: i64, e: Type| ctx.tensor_type(&[n], e);
    // 100 elements: a list; 101: `"0x..."` of the raw data
    let v100: Vec<i16> = (0..100).collect();
    let s = a(dense(&ctx, t(100, ctx.i16_type()), le_bytes(&v100, |x| x.to_le_bytes().to_vec())));
    assert!(s.starts_with("dense<[0, 1, 2, ") && s.ends_with(", 99]> : tensor<100xi16>"), "{s}");
    let v101: Vec<u8> = (0..101).collect();
    let s = a(dense(&ctx, t(101, ctx.i8_type()), le_bytes(&v101, |x| vec![x])));
    assert_eq!(s, "dense<\"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F6061626364\"> : tensor<101xi8>");
    // i1 is bit-packed: [true if i % 3 == 0] * 101
    let bools: Vec<u8> = (0..101).map(|i| (i % 3 == 0) as u8).collect();
    let s = a(dense(&ctx, t(101, ctx.i1_type()), le_bytes(&bools, |x| vec![x])));
    assert_eq!(s, "dense<\"0x49922449922449922449922409\"> : tensor<101xi1>");
    // complex f32 (0.0, 0.5), (1.0, 1.5), ...
    let c = ctx.intern_type(TypeKind::Complex(ctx.f32_type()));
    let vals: Vec<f32> = (0..101).flat_map(|i| [i as f32, i as f32 + 0.5]).collect();
    let s = a(dense(&ctx, t(101, c), le_bytes(&vals, |x| x.to_le_bytes().to_vec())));
    assert!(s.starts_with("dense<\"0x000000000000003F0000803F0000C03F00000040"), "{s}");
    assert!(s.ends_with("0000C8420000C942\"> : tensor<101xcomplex<f32>>"), "{s}");
}

#[test]
fn caches_are_consistent_across_uses() {
    let ctx = Context::new();
    let i32t = ctx.i32_type();
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    let mb = m.block();
    let d = ctx.attr(AttrKind::Distinct { id: 9, attr: ctx.unit_attr() });
    for _ in 0..3 {
        put(&mut m.body, mb, state(&ctx, "t.a").results(&[i32t]).attr(&ctx, "k", ctx.i64_attr(1)).attr(&ctx, "d", d));
    }
    put(&mut m.body, mb, state(&ctx, "t.a").attr(&ctx, "l", ctx.array_attr(&[ctx.i64_attr(1)])));
    assert_eq!(
        print_module(&ctx, &m, &generic()),
        "\"builtin.module\"() ({\n  %0 = \"t.a\"() {d = distinct[0]<>, k = 1 : i64} : () -> i32\n  %1 = \"t.a\"() {d = distinct[0]<>, k = 1 : i64} : () -> i32\n  %2 = \"t.a\"() {d = distinct[0]<>, k = 1 : i64} : () -> i32\n  \"t.a\"() {l = [1]} : () -> ()\n}) : () -> ()\n"
    );
}

// ------------------------------------------------------------------------------ MLIR round trip

/// A module exercising every attribute and type kind MLIR prints without aliases, and many
/// random floats of each IEEE type (random bit patterns: normals, subnormals, NaNs, infinities,
/// large integers).
fn build_zoo(ctx: &Context) -> Module {
    let mut m = Module::new(ctx, Location::UNKNOWN);
    let mb = m.block();
    let mut seed = 0x2545F4914F6CDD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for kind in [FloatKind::F16, FloatKind::BF16, FloatKind::F32, FloatKind::F64] {
        let ty = ctx.float_type(kind);
        let mut items = Vec::new();
        for i in 0..600u64 {
            let r = next();
            let bits = match kind {
                FloatKind::F16 | FloatKind::BF16 => r & 0xFFFF,
                FloatKind::F32 => r & 0xFFFF_FFFF,
                _ => r,
            };
            // every third value: a "nice" decimal (k * 10^e), the kind users write
            let bits = if i % 3 == 0 {
                let v = ((r >> 8) % 100_000) as f64 * 10f64.powi((r % 40) as i32 - 20);
                crate::attrs::float_to_bits(kind, v)
            } else {
                bits
            };
            items.push(ctx.attr(AttrKind::Float { bits, ty }));
        }
        // In a dictionary (type printed) and in an array (f64 elides its type; MLIR itself
        // does not round-trip f64 printed in hex there: it reads back as an integer).
        let keys: Vec<String> = (0..items.len()).map(|i| format!("v{i}")).collect();
        let entries: Vec<(&str, Attr)> = keys.iter().map(|k| k.as_str()).zip(items.iter().copied()).collect();
        let mut st = state(ctx, "t.floats");
        st.attrs = dict(ctx, &entries);
        if kind != FloatKind::F64 {
            st.add_attr(ctx, "a", ctx.array_attr(&items));
        }
        put(&mut m.body, mb, st);
        // dense: a list (<= 100 elements) and a hex blob (> 100)
        let eb = dense_elem_bytes_of(kind);
        let mut data = Vec::new();
        for it in items.iter().take(100) {
            if let AttrKind::Float { bits, .. } = ctx.attr_kind(*it) {
                data.extend_from_slice(&bits.to_le_bytes()[..eb]);
            }
        }
        let list = dense(ctx, ctx.tensor_type(&[4, 25], ty), DenseData::Elements(data.clone().into()));
        data.extend_from_slice(&data.clone()[..eb]);
        let hex = dense(ctx, ctx.tensor_type(&[101], ty), DenseData::Elements(data.into()));
        put(&mut m.body, mb, state(ctx, "t.dense").attr(ctx, "l", list).attr(ctx, "h", hex));
    }
    // integers of many widths
    let mut ints = Vec::new();
    for w in [1u32, 3, 8, 16, 32, 64, 128] {
        for sg in [Signedness::Signless, Signedness::Signed, Signedness::Unsigned] {
            let t = ctx.integer_type(w, sg);
            for _ in 0..5 {
                ints.push(ctx.int_attr(next() as i128 * if next() % 2 == 0 { -1 } else { 1 }, t));
            }
        }
    }
    ints.push(ctx.int_attr(-5, ctx.index_type()));
    put(&mut m.body, mb, state(ctx, "t.ints").attr(ctx, "i", ctx.array_attr(&ints)));
    let all_bytes: Vec<u8> = (0u8..=255).collect();
    let misc = dict(
        ctx,
        &[
            ("s", ctx.attr(AttrKind::String { value: all_bytes.into(), ty: None })),
            (
                "st",
                ctx.attr(AttrKind::String { value: Box::new(*b"x"), ty: Some(ctx.tensor_type(&[2], ctx.i8_type())) }),
            ),
            (
                "sym",
                ctx.attr(AttrKind::SymbolRef {
                    root: ctx.ident("a b"),
                    nested: Box::new([ctx.ident("c"), ctx.ident("$d")]),
                }),
            ),
            ("\"q\"", ctx.unit_attr()),
            (
                "arr",
                ctx.array_attr(&[
                    ctx.empty_dict(),
                    ctx.array_attr(&[]),
                    ctx.unit_attr(),
                    ctx.type_attr(ctx.none_type()),
                ]),
            ),
            ("da", ctx.dense_i64_array(&[1, -2, 3])),
            ("de", ctx.attr(AttrKind::DenseArray { elem: ctx.f64_type(), data: Box::new([]) })),
            ("dist", ctx.attr(AttrKind::Distinct { id: 3, attr: ctx.unit_attr() })),
            ("dia", ctx.attr(AttrKind::Dialect { dialect: ctx.ident("t"), text: "t.a<1, \"x\">".into() })),
            (
                "str",
                ctx.attr(AttrKind::Keyword {
                    keyword: ctx.ident("strided"),
                    text: "strided<[?, 1], offset: ?>".into(),
                }),
            ),
        ],
    );
    let mut st = state(ctx, "t.misc");
    st.attrs = misc;
    put(&mut m.body, mb, st);
    let t = |k: TypeKind| ctx.intern_type(k);
    let f32t = ctx.f32_type();
    let types = [
        t(TypeKind::UnrankedTensor { elem: f32t }),
        t(TypeKind::Vector { shape: Box::new([4, 8]), scalable: Box::new([true, false]), elem: f32t }),
        t(TypeKind::MemRef {
            shape: Box::new([4, DYNAMIC]),
            elem: f32t,
            layout: None,
            memory_space: Some(ctx.i64_attr(1)),
        }),
        t(TypeKind::UnrankedMemRef { elem: f32t, memory_space: Some(ctx.int_attr(2, ctx.i32_type())) }),
        t(TypeKind::Complex(f32t)),
        t(TypeKind::Tuple(Box::new([ctx.i32_type(), ctx.index_type()]))),
        ctx.function_type(&[ctx.function_type(&[], &[f32t])], &[ctx.function_type(&[f32t], &[])]),
        ctx.dialect_type("t.q<a, [b]>"),
        ctx.dialect_type("t<\"x y\">"),
        t(TypeKind::RankedTensor { shape: Box::new([2]), elem: f32t, encoding: Some(ctx.str_attr("e")) }),
    ];
    let tys: Vec<Attr> = types.iter().map(|&x| ctx.type_attr(x)).collect();
    put(&mut m.body, mb, state(ctx, "t.types").attr(ctx, "t", ctx.array_attr(&tys)).results(&types));
    m
}

fn dense_elem_bytes_of(kind: FloatKind) -> usize {
    (kind.width() as usize).div_ceil(8)
}

/// Runs `mlir-minimal-opt` on `text`, returning its output (`None` if the tool is missing).
fn mlir_reprint(text: &str, extra: &[&str]) -> Option<String> {
    use std::io::Write;
    let tool = "/usr/lib/llvm-22/bin/mlir-minimal-opt";
    if !std::path::Path::new(tool).exists() {
        return None;
    }
    let mut child = std::process::Command::new(tool)
        .args(["--allow-unregistered-dialect", "--mlir-print-op-generic"])
        .args(extra)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    assert!(out.status.success(), "mlir-minimal-opt failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn generic_output_reprints_identically_in_mlir() {
    let ctx = pctx();
    let mods = [build_a(&ctx), build_zoo(&ctx)];
    for m in &mods {
        let ours = print_module(&ctx, m, &generic());
        let Some(theirs) = mlir_reprint(&ours, &[]) else { return };
        // mlir-opt writes one more newline after the top-level op
        if theirs != format!("{ours}\n") {
            let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
            for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                if x != y {
                    let d = x.bytes().zip(y.bytes()).position(|(p, q)| p != q).unwrap_or(0);
                    panic!(
                        "line {i} differs at byte {d}:\nours:   {}\nmlir's: {}",
                        &x[d.saturating_sub(60)..(d + 100).min(x.len())],
                        &y[d.saturating_sub(60)..(d + 100).min(y.len())]
                    );
                }
            }
            panic!("outputs differ in length:\n{ours}\n---\n{theirs}");
        }
    }
}

#[test]
fn debug_info_output_reprints_identically_with_local_scope() {
    let ctx = pctx();
    let m = build_a(&ctx);
    let mut m2 = m.clone();
    // give every op a location
    let ops = m2.body.walk_ops();
    for (line, op) in (1..).zip(ops) {
        m2.body.set_op_loc(op, ctx.file_loc("f.mlir", line, 3));
    }
    let opts = PrintOptions { generic: true, debug_info: true, ..Default::default() };
    let ours = print_isolated(&ctx, &m2.body, &opts);
    let Some(theirs) = mlir_reprint(&ours, &["--mlir-print-debuginfo", "--mlir-print-local-scope"]) else { return };
    // with local scope mlir-opt prints the op without its top-level newline, then `\n`
    assert_eq!(theirs, format!("{ours}\n"));
    let ours = print_module(&ctx, &m2, &opts);
    let Some(theirs) = mlir_reprint(&ours, &["--mlir-print-debuginfo"]) else { return };
    assert_eq!(theirs, format!("{ours}\n"));
}

// ------------------------------------------------------------------------------ aliases

/// `al.mlir`: affine maps and sets, a distinct attribute, locations in attributes, block
/// arguments and ops.
fn build_aliases(ctx: &Context) -> Module {
    let kw = |k: &str, text: &str| ctx.attr(AttrKind::Keyword { keyword: ctx.ident(k), text: text.into() });
    let map = |text: &str| kw("affine_map", &format!("affine_map<{text}>"));
    let f32t = ctx.f32_type();
    let memref = |layout: Attr, n: i64| {
        ctx.intern_type(TypeKind::MemRef { shape: Box::new([n]), elem: f32t, layout: Some(layout), memory_space: None })
    };
    let mut m = Module::new(ctx, ctx.file_loc("al.mlir", 0, 0));
    let mb = m.block();
    let mut st = OperationState::new(ctx, "t.a", ctx.file_loc("a", 1, 1));
    st.attrs = dict(
        ctx,
        &[
            ("d", ctx.attr(AttrKind::Distinct { id: 3, attr: ctx.array_attr(&[map("(d0) -> (d0 + 5)")]) })),
            ("m", map("(d0) -> (d0)")),
            ("n", ctx.array_attr(&[map("(d0) -> (d0)"), map("(d0, d1) -> (d1)")])),
            ("s", kw("affine_set", "affine_set<(d0) : (d0 >= 0)>")),
            ("t", ctx.type_attr(memref(map("(d0) -> (d0 + 2)"), 4))),
        ],
    );
    put(&mut m.body, mb, st);
    let (r, rb) = region(&mut m.body, &[&[memref(map("(d0) -> (d0 + 7)"), 2)]]);
    let arg = m.body.block_arg(rb[0], 0);
    let p = ctx.file_loc("p", 1, 1);
    let q = ctx.file_loc("q", 2, 2);
    m.body.set_arg_loc(arg, ctx.loc(LocKind::Fused { metadata: None, locs: Box::new([p, q]) }));
    let z = ctx.name_loc("z", None);
    let call = ctx.loc(LocKind::CallSite { callee: z, caller: ctx.file_loc("a", 1, 1) });
    put(&mut m.body, rb[0], OperationState::new(ctx, "t.c", call));
    let mut st =
        OperationState::new(ctx, "t.b", p).attr(ctx, "l", ctx.attr(AttrKind::Location(ctx.file_loc("m", 1, 1))));
    st.regions.push(r);
    put(&mut m.body, mb, st);
    m
}

#[test]
fn aliases_like_mlir() {
    let ctx = Context::new();
    let m = build_aliases(&ctx);
    // mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic al.mlir
    let expected = r#"#loc = loc("m":1:1)
#map = affine_map<(d0) -> (d0 + 5)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0) -> (d0 + 2)>
#map4 = affine_map<(d0) -> (d0 + 7)>
#set = affine_set<(d0) : (d0 >= 0)>
#distinct = distinct[0]<[#map]>
"builtin.module"() ({
  "t.a"() {d = #distinct, m = #map1, n = [#map1, #map2], s = #set, t = memref<4xf32, #map3>} : () -> ()
  "t.b"() ({
  ^bb0(%arg0: memref<2xf32, #map4>):
    "t.c"() : () -> ()
  }) {l = #loc} : () -> ()
}) : () -> ()
"#;
    assert_eq!(print_module(&ctx, &m, &generic()), expected);
    // ... with --mlir-print-debuginfo
    let expected = r#"#loc2 = loc("p":1:1)
#loc3 = loc("q":2:2)
#loc5 = loc("m":1:1)
#map = affine_map<(d0) -> (d0 + 5)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0) -> (d0 + 2)>
#map4 = affine_map<(d0) -> (d0 + 7)>
#set = affine_set<(d0) : (d0 >= 0)>
#loc6 = loc(fused[#loc2, #loc3])
#distinct = distinct[0]<[#map]>
"builtin.module"() ({
  "t.a"() {d = #distinct, m = #map1, n = [#map1, #map2], s = #set, t = memref<4xf32, #map3>} : () -> () loc(#loc1)
  "t.b"() ({
  ^bb0(%arg0: memref<2xf32, #map4> loc(fused[#loc2, #loc3])):
    "t.c"() : () -> () loc(#loc7)
  }) {l = #loc5} : () -> () loc(#loc2)
}) : () -> () loc(#loc)
#loc = loc("al.mlir":0:0)
#loc1 = loc("a":1:1)
#loc4 = loc("z")
#loc7 = loc(callsite(#loc4 at #loc1))
"#;
    assert_eq!(print_module(&ctx, &m, &PrintOptions { generic: true, debug_info: true, ..Default::default() }), expected);
    // the same module round-trips through mlir-minimal-opt
    for opts in [generic(), PrintOptions { generic: true, debug_info: true, ..Default::default() }] {
        let ours = print_module(&ctx, &m, &opts);
        let extra: &[&str] = if opts.debug_info { &["--mlir-print-debuginfo"] } else { &[] };
        if let Some(theirs) = mlir_reprint(&ours, extra) {
            assert_eq!(theirs, format!("{ours}\n"));
        }
    }
    // local-scope prints (IR dumps, diagnostics) never use aliases
    let t = m.ops()[0];
    assert!(print_op_generic(&ctx, &m.body, t).contains("m = affine_map<(d0) -> (d0)>"));
}

/// Every encoding of the 8-, 6- and 4-bit float types, and samples of tf32, f80 and f128: our text
/// for the value equals what MLIR prints for the same bits written in hex.
#[test]
fn small_float_formats_match_mlir() {
    use crate::float_format::{decode, FClass, Fmt};
    let ctx = Context::new();
    let mut ours = String::new();
    let mut input = String::new();
    let kinds = [
        FloatKind::F8E5M2,
        FloatKind::F8E4M3,
        FloatKind::F8E3M4,
        FloatKind::F8E4M3FN,
        FloatKind::F8E5M2FNUZ,
        FloatKind::F8E4M3FNUZ,
        FloatKind::F8E4M3B11FNUZ,
        FloatKind::F8E8M0FNU,
        FloatKind::F6E2M3FN,
        FloatKind::F6E3M2FN,
        FloatKind::F4E2M1FN,
        FloatKind::TF32,
    ];
    for kind in kinds {
        let f = Fmt::of(kind);
        let ty = ctx.float_type(kind);
        let n: u32 = if kind == FloatKind::TF32 { 4096 } else { 1 << f.width };
        for i in 0..n {
            let bits = if kind == FloatKind::TF32 { (i as u128 * 127) & 0x7FFFF } else { i as u128 };
            let v = decode(&f, bits);
            let value = match v.class {
                FClass::Zero => 0.0,
                FClass::Finite { m, q } => m as f64 * 2f64.powi(q),
                FClass::Inf => f64::INFINITY,
                FClass::NaN => continue,
            };
            let value = if v.neg { -value } else { value };
            let a = ctx.attr(AttrKind::Float { bits: value.to_bits(), ty });
            ours.push_str(&format!("  \"t.f\"() {{v = {}}} : () -> ()\n", attr_to_string(&ctx, a)));
            input.push_str(&format!("\"t.f\"() {{v = 0x{bits:X} : {}}} : () -> ()\n", kind.keyword()));
        }
    }
    // f80 and f128: random f64 values, given to MLIR as their f80/f128 encodings
    let mut seed = 0x9E3779B97F4A7C15u64;
    for kind in [FloatKind::F80, FloatKind::F128] {
        let f = Fmt::of(kind);
        let ty = ctx.float_type(kind);
        for i in 0..300 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let value = if i % 2 == 0 {
                f64::from_bits(seed)
            } else {
                (seed % 1_000_000) as f64 * 10f64.powi((seed % 30) as i32 - 15)
            };
            if value.is_nan() {
                continue;
            }
            let bits = crate::float_format::encode(&f, &crate::float_format::decode_f64(value.to_bits()));
            let a = ctx.attr(AttrKind::Float { bits: value.to_bits(), ty });
            ours.push_str(&format!("  \"t.f\"() {{v = {}}} : () -> ()\n", attr_to_string(&ctx, a)));
            input.push_str(&format!("\"t.f\"() {{v = 0x{bits:X} : {}}} : () -> ()\n", kind.keyword()));
        }
    }
    let Some(theirs) = mlir_reprint(&input, &[]) else { return };
    let expected = format!("\"builtin.module\"() ({{\n{ours}}}) : () -> ()\n\n");
    if theirs != expected {
        for (x, y) in theirs.lines().zip(expected.lines()) {
            assert_eq!(x, y);
        }
    }
}
