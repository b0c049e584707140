#![allow(clippy::too_many_arguments)]
//! Verifier tests: one or more per rule, on IR built with the `Body` API and the real
//! func/cf dialects with the test dialect of `xcs-test-support` (plus a few test-only ops
//! declared here). Messages are MLIR's
//! (checked against mlir-opt 22). Ops are located at `t.mlir:LINE:1` so that tests can tell
//! which op an error is about.

use xcs_ir::attrs::AttrKind;
use xcs_ir::body::{Block, Body, Op, OperationState, Region, Value};
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{DialectDef, SuccessorCount, SuccessorOperands, SymbolLookup};
use xcs_ir::verifier::{verify_isolated_with, verify_module_with, SymbolTable, VerifyOptions};
use xcs_ir::{op, Context, Diagnostic, Location, Module, Type};

// ------------------------------------------------------------------------------- extra ops

op! {
    /// A registered op with a region of at most 2 blocks.
    pub struct TwoBlocksOp = "vt.two_blocks" {
        summary: "At most two blocks",
        regions: { body: 2 },
        traits: [NoTerminator],
    }
}
op! {
    /// A registered graph-region op without SingleBlock.
    pub struct GraphAnyOp = "vt.graph_any" {
        summary: "A graph region",
        regions: { body: u32::MAX },
        traits: [GraphRegion, NoTerminator],
    }
}
op! {
    /// A registered op whose single-block region needs a terminator.
    pub struct NeedsTermOp = "vt.needs_term" {
        summary: "SingleBlock without NoTerminator",
        regions: { body: u32::MAX },
        traits: [SingleBlock],
    }
}
op! {
    /// A branch with any number of successors forwarding nothing but to the first.
    pub struct JumpOp = "vt.jump" {
        summary: "A branch",
        operands: { #[variadic] args: ANY_TYPE },
        successors: SuccessorCount::Variadic,
        successor_operands: SuccessorOperands::All,
        traits: [Terminator, BranchLike],
    }
}
op! {
    /// A non-isolated symbol table with two regions (invalid for a symbol table).
    pub struct BadTableOp = "vt.bad_table" {
        summary: "Two regions",
        regions: { a: 1, b: 1 },
        traits: [SymbolTable, NoTerminator],
    }
}
op! {
    /// An isolated symbol table, like a nested module.
    pub struct IsoTableOp = "vt.iso_table" {
        summary: "Isolated symbol table",
        regions: { body: 1 },
        traits: [IsolatedFromAbove, SymbolTable, NoTerminator, SingleBlock, GraphRegion],
    }
}

static VT_DIALECT: DialectDef = DialectDef {
    name: "vt",
    summary: "verifier test ops",
    description: "",
    ops: xcs_ir::opdef::OpList::Fixed(&[TwoBlocksOp::DEF, GraphAnyOp::DEF, NeedsTermOp::DEF, JumpOp::DEF, BadTableOp::DEF, IsoTableOp::DEF]),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

// ------------------------------------------------------------------------------- builders

fn context() -> Context {
    let mut ctx = xcs_test_support::context();
    ctx.register_dialect(&VT_DIALECT);
    ctx
}

fn fake_print_op(ctx: &Context, body: &Body, op: Op) -> String {
    format!("\"{}\"()", ctx.op_name_str(body.op_name(op)))
}
fn fake_print_owner(ctx: &Context, body: &Body) -> String {
    format!("\"{}\"() ({{\n}})", ctx.op_name_str(body.name()))
}

fn opts(threads: bool) -> VerifyOptions {
    VerifyOptions { threads, print_op_on_diagnostic: false, print_op: fake_print_op, print_owner: fake_print_owner }
}

fn loc(ctx: &Context, line: u32) -> Location {
    ctx.file_loc("t.mlir", line, 1)
}

/// Line of a diagnostic's location.
fn line_of(ctx: &Context, d: &Diagnostic) -> u32 {
    ctx.loc_file_line_col(d.loc).map_or(0, |(_, l, _)| l)
}

/// Appends an op to `block`.
fn op(ctx: &Context, body: &mut Body, block: Block, name: &str, operands: &[Value], results: &[Type], line: u32) -> Op {
    let st = OperationState::new(ctx, name, loc(ctx, line)).operands(operands).results(results);
    let o = body.create_op(st);
    body.append_op(block, o);
    o
}

/// An op with regions (already filled, detached) appended to `block`.
fn region_op(
    ctx: &Context,
    body: &mut Body,
    block: Block,
    name: &str,
    operands: &[Value],
    results: &[Type],
    regions: &[Region],
    line: u32,
) -> Op {
    let mut st = OperationState::new(ctx, name, loc(ctx, line)).operands(operands).results(results);
    st.regions.extend_from_slice(regions);
    let o = body.create_op(st);
    body.append_op(block, o);
    o
}

/// A detached region with `n` empty blocks (argument types per block).
fn region(body: &mut Body, blocks: &[&[Type]]) -> (Region, Vec<Block>) {
    let r = body.create_region();
    let bs = blocks
        .iter()
        .map(|tys| {
            let b = body.create_block(tys);
            body.append_block(r, b);
            b
        })
        .collect();
    (r, bs)
}

fn new_module(ctx: &Context) -> Module {
    Module::new(ctx, loc(ctx, 1))
}

/// Adds `func.func @name(inputs) -> results` to a body's block; `build` fills the body given
/// its entry block (more blocks can be added to the region).
fn func_in(
    ctx: &Context,
    parent: &mut Body,
    block: Block,
    name: &str,
    inputs: &[Type],
    results: &[Type],
    line: u32,
    build: impl FnOnce(&mut Body, Region, Block),
) -> Op {
    let mut fb = Body::new(ctx, ctx.op_name("func.func"), loc(ctx, line));
    let r = fb.add_root_region();
    let entry = fb.create_block(inputs);
    fb.append_block(r, entry);
    build(&mut fb, r, entry);
    let mut st = OperationState::new(ctx, "func.func", loc(ctx, line)).attr(ctx, "sym_name", ctx.str_attr(name)).attr(
        ctx,
        "function_type",
        ctx.type_attr(ctx.function_type(inputs, results)),
    );
    st.nested = Some(Box::new(fb));
    let o = parent.create_op(st);
    parent.append_op(block, o);
    o
}

fn func(
    ctx: &Context,
    m: &mut Module,
    name: &str,
    inputs: &[Type],
    results: &[Type],
    line: u32,
    build: impl FnOnce(&mut Body, Region, Block),
) -> Op {
    let b = m.block();
    func_in(ctx, &mut m.body, b, name, inputs, results, line, build)
}

fn ret(ctx: &Context, body: &mut Body, block: Block, vals: &[Value], line: u32) -> Op {
    op(ctx, body, block, "func.return", vals, &[], line)
}

fn verify(ctx: &Context, m: &Module) -> Result<(), Vec<Diagnostic>> {
    verify_module_with(ctx, m, &opts(false))
}

/// Verifies and expects exactly one error; returns it.
fn one_error(ctx: &Context, m: &Module) -> Diagnostic {
    let errs = verify(ctx, m).expect_err("expected a verification error");
    assert_eq!(errs.len(), 1, "expected one error, got {:?}", errs.iter().map(|d| &d.message).collect::<Vec<_>>());
    // The same result with threads.
    let errs_t = verify_module_with(ctx, m, &opts(true)).expect_err("threads: expected an error");
    assert_eq!(errs_t.iter().map(|d| &d.message).collect::<Vec<_>>(), vec![&errs[0].message]);
    errs.into_iter().next().unwrap()
}

fn i32t(ctx: &Context) -> Type {
    ctx.i32_type()
}

fn segments(ctx: &Context, sizes: &[i32]) -> xcs_ir::Attr {
    let data: Vec<u8> = sizes.iter().flat_map(|s| s.to_le_bytes()).collect();
    ctx.attr(AttrKind::DenseArray { elem: ctx.i32_type(), data: data.into() })
}

// ------------------------------------------------------------------------------- valid IR

#[test]
fn valid_module_passes() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let t = i32t(&ctx);
    func(&ctx, &mut m, "f", &[t], &[t], 2, |b, _r, e| {
        let a = b.block_arg(e, 0);
        let c = op(&ctx, b, e, "test.addi", &[a, a], &[t], 3);
        let c = b.result(c, 0);
        ret(&ctx, b, e, &[c], 4);
    });
    func(&ctx, &mut m, "g", &[t], &[t], 6, |b, _r, e| {
        let a = b.block_arg(e, 0);
        let call = op(&ctx, b, e, "func.call", &[a], &[t], 7);
        b.set_attr(&ctx, call, "callee", ctx.symbol_ref("f"));
        let c = b.result(call, 0);
        ret(&ctx, b, e, &[c], 8);
    });
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
    assert!(verify_module_with(&ctx, &m, &opts(true)).is_ok());
}

// ------------------------------------------------------------------------------- op declarations

#[test]
fn op_declaration_is_checked() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let t = i32t(&ctx);
    func(&ctx, &mut m, "f", &[t], &[], 2, |b, _r, e| {
        let a = b.block_arg(e, 0);
        op(&ctx, b, e, "test.addi", &[a], &[t], 3);
        ret(&ctx, b, e, &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(line_of(&ctx, &d), 3);
    assert_eq!(d.message, "'test.addi' op requires 2 operands, but found 1");
}

#[test]
fn op_verify_hook_runs() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let p = op(&ctx, &mut m.body, blk, "test.positive", &[], &[], 2);
    m.body.set_attr(&ctx, p, "value", ctx.i64_attr(-3));
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'test.positive' op attribute 'value' must be positive, but got -3");
}

#[test]
fn return_checks_its_function() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let t = i32t(&ctx);
    func(&ctx, &mut m, "g", &[], &[t], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 3);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.return' op has 0 operands, but enclosing function (@g) returns 1");
    assert_eq!(line_of(&ctx, &d), 3);
}

#[test]
fn isolated_op_needs_its_own_body() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[]]);
    op(&ctx, &mut m.body, bs[0], "func.return", &[], &[], 3);
    let f = region_op(&ctx, &mut m.body, blk, "func.func", &[], &[], &[r], 2);
    m.body.set_attr(&ctx, f, "sym_name", ctx.str_attr("f"));
    m.body.set_attr(&ctx, f, "function_type", ctx.type_attr(ctx.function_type(&[], &[])));
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.func' op is isolated from above, but its regions are not in a body of their own");
}

#[test]
fn return_and_call_type_mismatches() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "e", &[t], &[ctx.i64_type()], 2, |b, _r, e| {
        let a = b.block_arg(e, 0);
        ret(&ctx, b, e, &[a], 3);
    });
    let d = one_error(&ctx, &m);
    // (types as the printer prints them: `i32`, `i64`)
    let ty = |t: Type| xcs_ir::printer::type_to_string(&ctx, t);
    assert_eq!(
        d.message,
        format!(
            "type of return operand 0 ('{}') doesn't match function result type ('{}') in function @e",
            ty(t),
            ty(ctx.i64_type())
        )
    );

    let mut m = new_module(&ctx);
    let blk = m.block();
    let f32t = ctx.f32_type();
    let ext = func(&ctx, &mut m, "ext", &[t], &[t, f32t], 2, |_b, _r, _e| {});
    m.body.set_attr(&ctx, ext, "sym_visibility", ctx.str_attr("private"));
    // a declaration has an empty region
    let eb = m.body.nested_mut(ext).unwrap();
    let er = eb.root_regions()[0];
    let entry = eb.entry_block(er).unwrap();
    eb.erase_block(entry);
    let _ = blk;
    func(&ctx, &mut m, "caller", &[t], &[], 3, |b, _r, e| {
        let a = b.block_arg(e, 0);
        let c = op(&ctx, b, e, "func.call", &[a], &[t, ctx.i64_type()], 4);
        b.set_attr(&ctx, c, "callee", ctx.symbol_ref("ext"));
        ret(&ctx, b, e, &[], 5);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.call' op result type mismatch at index 1");
    let notes: Vec<(&str, u32)> = d.notes.iter().map(|n| (n.message.as_str(), line_of(&ctx, n))).collect();
    let ops_types = format!("      op result types: '{}', '{}'", ty(t), ty(ctx.i64_type()));
    let fn_types = format!("function result types: '{}', '{}'", ty(t), ty(f32t));
    assert_eq!(notes, vec![(ops_types.as_str(), 4), (fn_types.as_str(), 4)]);
}

#[test]
fn module_owner_attributes_are_checked() {
    let ctx = context();
    let mut m = new_module(&ctx);
    m.body.set_self_attr(&ctx, "sym_name", Some(ctx.i64_attr(1)));
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'builtin.module' op attribute 'sym_name' failed to satisfy constraint: string attribute");
}

#[test]
fn symbol_visibility_is_checked() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let s = op(&ctx, &mut m.body, blk, "test.symbol", &[], &[], 2);
    m.body.set_attr(&ctx, s, "sym_name", ctx.str_attr("s"));
    m.body.set_attr(&ctx, s, "sym_visibility", ctx.str_attr("secret"));
    let d = one_error(&ctx, &m);
    assert!(
        d.message.starts_with(
            "'test.symbol' op visibility expected to be one of [\"public\", \"private\", \"nested\"], but got "
        ),
        "{}",
        d.message
    );
}

// ------------------------------------------------------------------------------- regions

#[test]
fn single_block_module() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let r = m.body.root_regions()[0];
    let b2 = m.body.create_block(&[]);
    m.body.append_block(r, b2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'builtin.module' op expects region #0 to have 0 or 1 blocks");
    assert_eq!(line_of(&ctx, &d), 1);
}

#[test]
fn single_block_nested_op() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, _) = region(&mut m.body, &[&[], &[]]);
    region_op(&ctx, &mut m.body, blk, "test.graph", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'test.graph' op expects region #0 to have 0 or 1 blocks");
}

#[test]
fn single_block_trait_without_block_limit() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[], &[]]);
    op(&ctx, &mut m.body, bs[0], "test.yield", &[], &[], 3);
    op(&ctx, &mut m.body, bs[1], "test.yield", &[], &[], 4);
    region_op(&ctx, &mut m.body, blk, "vt.needs_term", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'vt.needs_term' op expects region #0 to have 0 or 1 blocks");
}

#[test]
fn single_block_needs_nonempty_block_without_no_terminator() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, _) = region(&mut m.body, &[&[]]);
    region_op(&ctx, &mut m.body, blk, "vt.needs_term", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'vt.needs_term' op expects a non-empty block");
}

#[test]
fn region_block_limit() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, _) = region(&mut m.body, &[&[], &[], &[]]);
    region_op(&ctx, &mut m.body, blk, "vt.two_blocks", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(
        d.message,
        "'vt.two_blocks' op region #0 ('body') failed to verify constraint: region with at most 2 blocks"
    );
    // Two blocks are fine (they need terminators: a multi-block region always does).
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[], &[]]);
    op(&ctx, &mut m.body, bs[0], "test.yield", &[], &[], 3);
    op(&ctx, &mut m.body, bs[1], "test.yield", &[], &[], 4);
    region_op(&ctx, &mut m.body, blk, "vt.two_blocks", &[], &[], &[r], 2);
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
}

#[test]
fn graph_region_block_limit() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[], &[]]);
    op(&ctx, &mut m.body, bs[0], "test.yield", &[], &[], 3);
    op(&ctx, &mut m.body, bs[1], "test.yield", &[], &[], 4);
    region_op(&ctx, &mut m.body, blk, "vt.graph_any", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'vt.graph_any' op expects graph region #0 to have 0 or 1 blocks");
}

// ------------------------------------------------------------------------------- terminators

#[test]
fn terminator_must_be_last() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 3);
        op(&ctx, b, e, "test.foo", &[], &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.return' op must be the last operation in the parent block");
    assert_eq!(line_of(&ctx, &d), 3);
}

#[test]
fn block_needs_terminator() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        op(&ctx, b, e, "test.effect", &[], &[], 3);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "block with no terminator, has \"test.effect\"()");
    assert_eq!(line_of(&ctx, &d), 3);
}

#[test]
fn unregistered_last_op_may_terminate() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        op(&ctx, b, e, "foo.bar", &[], &[], 3);
    });
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
}

#[test]
fn no_terminator_regions() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    // module body, test.graph and an unregistered op's single block need no terminator
    let (r, bs) = region(&mut m.body, &[&[]]);
    op(&ctx, &mut m.body, bs[0], "test.effect", &[], &[], 3);
    region_op(&ctx, &mut m.body, blk, "test.graph", &[], &[], &[r], 2);
    let (r, bs) = region(&mut m.body, &[&[]]);
    op(&ctx, &mut m.body, bs[0], "test.effect", &[], &[], 5);
    region_op(&ctx, &mut m.body, blk, "foo.wrap", &[], &[], &[r], 4);
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
    // ...but test.region (no NoTerminator) does
    let (r, bs) = region(&mut m.body, &[&[]]);
    op(&ctx, &mut m.body, bs[0], "test.effect", &[], &[], 7);
    region_op(&ctx, &mut m.body, blk, "test.region", &[], &[], &[r], 6);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "block with no terminator, has \"test.effect\"()");
    assert_eq!(line_of(&ctx, &d), 7);
}

#[test]
fn empty_block_needs_terminator() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |_b, _r, _e| {});
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "empty block: expect at least a terminator");
    assert_eq!(line_of(&ctx, &d), 2, "located at the region's op");
    // An empty second block of an unregistered op's region, too (multi-block regions).
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[], &[]]);
    op(&ctx, &mut m.body, bs[0], "foo.t", &[], &[], 3);
    region_op(&ctx, &mut m.body, blk, "foo.wrap", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "empty block: expect at least a terminator");
}

// ------------------------------------------------------------------------------- successors

#[test]
fn successor_op_must_terminate_block() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, r, e| {
        let b1 = b.create_block(&[]);
        b.append_block(r, b1);
        let mut st = OperationState::new(&ctx, "foo.br", loc(&ctx, 3));
        st.successors.push(b1);
        let o = b.create_op(st);
        b.append_op(e, o);
        op(&ctx, b, e, "foo.t", &[], &[], 4);
        ret(&ctx, b, b1, &[], 5);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operation with block successors must terminate its parent block");
    assert_eq!(line_of(&ctx, &d), 3);
}

fn br(ctx: &Context, b: &mut Body, block: Block, name: &str, operands: &[Value], succs: &[Block], line: u32) -> Op {
    let mut st = OperationState::new(ctx, name, loc(ctx, line)).operands(operands);
    st.successors.extend_from_slice(succs);
    let o = b.create_op(st);
    b.append_op(block, o);
    o
}

#[test]
fn successor_in_other_region() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[], &[]]);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 4);
        op(&ctx, b, ibs[1], "test.yield", &[], &[], 4);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 3);
        let target = ibs[1];
        br(&ctx, b, e, "cf.br", &[], &[target], 5);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'cf.br' op branching to block of a different region");
}

#[test]
fn entry_block_has_no_predecessors() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "entry", &[], &[], 2, |b, _r, e| {
        br(&ctx, b, e, "cf.br", &[], &[e], 3);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "entry block of region may not have predecessors");
    assert_eq!(line_of(&ctx, &d), 2);
}

#[test]
fn branch_operand_count_and_types() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "br", &[t], &[], 2, |b, r, e| {
        let a = b.block_arg(e, 0);
        let b1 = b.create_block(&[t]);
        b.append_block(r, b1);
        br(&ctx, b, e, "cf.br", &[a, a], &[b1], 3);
        ret(&ctx, b, b1, &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "branch has 2 operands for successor #0, but target block has 1");

    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "brt", &[t], &[], 2, |b, r, e| {
        let a = b.block_arg(e, 0);
        let b1 = b.create_block(&[ctx.i64_type()]);
        b.append_block(r, b1);
        br(&ctx, b, e, "cf.br", &[a], &[b1], 3);
        ret(&ctx, b, b1, &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "type mismatch for bb argument #0 of successor #0");
}

#[test]
fn cond_branch_segments() {
    let ctx = context();
    let t = i32t(&ctx);
    let i1 = ctx.i1_type();
    let build = |sizes: &[i32], ops_b2: bool| {
        let mut m = new_module(&ctx);
        func(&ctx, &mut m, "cb", &[i1, t], &[], 2, |b, r, e| {
            let c = b.block_arg(e, 0);
            let a = b.block_arg(e, 1);
            let b1 = b.create_block(&[t]);
            b.append_block(r, b1);
            let b2_args: Vec<Type> = if ops_b2 { vec![t] } else { vec![] };
            let b2 = b.create_block(&b2_args);
            b.append_block(r, b2);
            let o = br(&ctx, b, e, "cf.cond_br", &[c, a, a], &[b1, b2], 3);
            b.set_attr(&ctx, o, "operandSegmentSizes", segments(&ctx, sizes));
            ret(&ctx, b, b1, &[], 4);
            ret(&ctx, b, b2, &[], 5);
        });
        m
    };
    assert!(verify(&ctx, &build(&[1, 1, 1], true)).is_ok());
    let d = one_error(&ctx, &build(&[1, 2, 0], true));
    assert_eq!(d.message, "branch has 2 operands for successor #0, but target block has 1");
    let d = one_error(&ctx, &build(&[1, 1, 1], false));
    assert_eq!(d.message, "branch has 1 operands for successor #1, but target block has 0");
    // a malformed segment attribute is the op's own verifier's business
    let d = one_error(&ctx, &build(&[1, 1], true));
    assert!(d.message.starts_with("'cf.cond_br' op operand count (3) does not match"), "{}", d.message);
}

// ------------------------------------------------------------------------------- dominance

#[test]
fn use_before_def_in_block() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "dom", &[], &[], 2, |b, _r, e| {
        let user = op(&ctx, b, e, "foo.use", &[], &[], 3);
        let def = op(&ctx, b, e, "foo.def", &[], &[t], 4);
        let v = b.result(def, 0);
        b.set_operands(user, &[v]);
        ret(&ctx, b, e, &[], 5);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
    assert_eq!(line_of(&ctx, &d), 3);
    assert_eq!(d.notes.len(), 1);
    assert_eq!(d.notes[0].message, "operand defined here (op in the same block)");
    assert_eq!(line_of(&ctx, &d.notes[0]), 4);
}

#[test]
fn def_in_non_dominating_block() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "dom2", &[], &[], 2, |b, r, e| {
        let b1 = b.create_block(&[]);
        let b2 = b.create_block(&[]);
        b.append_block(r, b1);
        b.append_block(r, b2);
        br(&ctx, b, e, "cf.br", &[], &[b2], 3);
        let def = op(&ctx, b, b1, "foo.def", &[], &[t], 4);
        br(&ctx, b, b1, "cf.br", &[], &[b2], 5);
        let v = b.result(def, 0);
        op(&ctx, b, b2, "foo.use", &[v], &[], 6);
        ret(&ctx, b, b2, &[], 7);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
    assert_eq!(d.notes[0].message, "operand defined here (op in the same region)");
}

#[test]
fn def_in_one_branch_of_a_diamond() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "diamond", &[ctx.i1_type()], &[], 2, |b, r, e| {
        let c = b.block_arg(e, 0);
        let (b1, b2, b3) = (b.create_block(&[]), b.create_block(&[]), b.create_block(&[]));
        for x in [b1, b2, b3] {
            b.append_block(r, x);
        }
        let o = br(&ctx, b, e, "cf.cond_br", &[c], &[b1, b2], 3);
        b.set_attr(&ctx, o, "operandSegmentSizes", segments(&ctx, &[1, 0, 0]));
        let def = op(&ctx, b, b1, "foo.def", &[], &[t], 4);
        br(&ctx, b, b1, "cf.br", &[], &[b3], 5);
        br(&ctx, b, b2, "cf.br", &[], &[b3], 6);
        let v = b.result(def, 0);
        op(&ctx, b, b3, "foo.use", &[v], &[], 7);
        ret(&ctx, b, b3, &[], 8);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
    assert_eq!(line_of(&ctx, &d), 7);
    assert_eq!(d.notes[0].message, "operand defined here (op in the same region)");
}

#[test]
fn dominating_block_is_fine() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    // entry defines %v, branches to b1 and b2, both use it; b2 also uses b1's arg? no: only %v
    func(&ctx, &mut m, "ok", &[ctx.i1_type()], &[], 2, |b, r, e| {
        let c = b.block_arg(e, 0);
        let def = op(&ctx, b, e, "foo.def", &[], &[t], 3);
        let v = b.result(def, 0);
        let b1 = b.create_block(&[]);
        let b2 = b.create_block(&[]);
        b.append_block(r, b1);
        b.append_block(r, b2);
        let o = br(&ctx, b, e, "cf.cond_br", &[c], &[b1, b2], 4);
        b.set_attr(&ctx, o, "operandSegmentSizes", segments(&ctx, &[1, 0, 0]));
        op(&ctx, b, b1, "foo.use", &[v], &[], 5);
        br(&ctx, b, b1, "cf.br", &[], &[b2], 6);
        op(&ctx, b, b2, "foo.use", &[v], &[], 7);
        ret(&ctx, b, b2, &[], 8);
    });
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
}

#[test]
fn block_argument_of_non_dominating_block() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "argdom", &[t], &[], 2, |b, r, e| {
        let b1 = b.create_block(&[t]);
        let b2 = b.create_block(&[]);
        b.append_block(r, b1);
        b.append_block(r, b2);
        br(&ctx, b, e, "cf.br", &[], &[b2], 3);
        br(&ctx, b, b1, "cf.br", &[], &[b2], 4);
        let x = b.block_arg(b1, 0);
        op(&ctx, b, b2, "foo.use", &[x], &[], 5);
        ret(&ctx, b, b2, &[], 6);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
    assert_eq!(d.notes[0].message, "operand defined as a block argument (block #1 in the same region)");
    assert_eq!(line_of(&ctx, &d.notes[0]), 2, "located at the region's op");
}

#[test]
fn uses_in_unreachable_blocks_are_not_checked() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "unreach", &[], &[], 2, |b, r, e| {
        ret(&ctx, b, e, &[], 3);
        let b1 = b.create_block(&[]);
        b.append_block(r, b1);
        let user = op(&ctx, b, b1, "foo.use", &[], &[], 4);
        let def = op(&ctx, b, b1, "foo.def", &[], &[t], 5);
        let v = b.result(def, 0);
        b.set_operands(user, &[v]);
        ret(&ctx, b, b1, &[], 6);
    });
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
}

#[test]
fn result_used_in_own_region() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "own", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        let user = op(&ctx, b, ibs[0], "foo.use", &[], &[], 4);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 5);
        let w = region_op(&ctx, b, e, "test.region", &[], &[t], &[inner], 3);
        let v = b.result(w, 0);
        b.set_operands(user, &[v]);
        ret(&ctx, b, e, &[], 6);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
    assert_eq!(d.notes[0].message, "operand defined here (op in a parent region)");
    assert_eq!(line_of(&ctx, &d), 4);
}

#[test]
fn outer_values_are_visible_in_nested_regions() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "nest", &[t], &[], 2, |b, _r, e| {
        let a = b.block_arg(e, 0);
        let def = op(&ctx, b, e, "foo.def", &[], &[t], 3);
        let v = b.result(def, 0);
        let (inner, ibs) = region(b, &[&[]]);
        op(&ctx, b, ibs[0], "foo.use", &[a, v], &[], 5);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 6);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 4);
        ret(&ctx, b, e, &[], 7);
    });
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
}

#[test]
fn value_of_a_later_op_in_nested_region_does_not_dominate() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "later", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        let user = op(&ctx, b, ibs[0], "foo.use", &[], &[], 4);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 5);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 3);
        let def = op(&ctx, b, e, "foo.def", &[], &[t], 6);
        let v = b.result(def, 0);
        b.set_operands(user, &[v]);
        ret(&ctx, b, e, &[], 7);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.notes[0].message, "operand defined here (op in a parent region)");
}

#[test]
fn value_of_child_region_used_outside() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "child", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        let def = op(&ctx, b, ibs[0], "foo.def", &[], &[t], 4);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 5);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 3);
        let v = b.result(def, 0);
        op(&ctx, b, e, "foo.use", &[v], &[], 6);
        ret(&ctx, b, e, &[], 7);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(line_of(&ctx, &d), 6);
    assert_eq!(d.notes[0].message, "operand defined here (op in a child region)");
}

#[test]
fn graph_regions_have_no_dominance() {
    let ctx = context();
    let t = i32t(&ctx);
    // in the module body (a graph region)
    let mut m = new_module(&ctx);
    let blk = m.block();
    let user = op(&ctx, &mut m.body, blk, "foo.use", &[], &[], 2);
    let def = op(&ctx, &mut m.body, blk, "foo.def", &[], &[t], 3);
    let v = m.body.result(def, 0);
    m.body.set_operands(user, &[v]);
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
    // in test.graph inside a function, and in an unregistered op's single block
    for name in ["test.graph", "foo.wrap"] {
        let mut m = new_module(&ctx);
        func(&ctx, &mut m, "g", &[], &[], 2, |b, _r, e| {
            let (inner, ibs) = region(b, &[&[]]);
            let user = op(&ctx, b, ibs[0], "foo.use", &[], &[], 4);
            let def = op(&ctx, b, ibs[0], "foo.def", &[], &[t], 5);
            let v = b.result(def, 0);
            b.set_operands(user, &[v]);
            region_op(&ctx, b, e, name, &[], &[], &[inner], 3);
            ret(&ctx, b, e, &[], 6);
        });
        assert!(verify(&ctx, &m).is_ok(), "{name}: {:?}", verify(&ctx, &m));
    }
    // ...but test.region's single block is SSACFG
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "g", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        let user = op(&ctx, b, ibs[0], "foo.use", &[], &[], 4);
        let def = op(&ctx, b, ibs[0], "foo.def", &[], &[t], 5);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 6);
        let v = b.result(def, 0);
        b.set_operands(user, &[v]);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 3);
        ret(&ctx, b, e, &[], 7);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
}

#[test]
fn unregistered_multi_block_region_has_dominance() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "u2", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[], &[]]);
        let user = op(&ctx, b, ibs[0], "foo.use", &[], &[], 4);
        let def = op(&ctx, b, ibs[0], "foo.def", &[], &[t], 5);
        br(&ctx, b, ibs[0], "foo.br", &[], &[ibs[1]], 6);
        op(&ctx, b, ibs[1], "foo.t", &[], &[], 7);
        let v = b.result(def, 0);
        b.set_operands(user, &[v]);
        region_op(&ctx, b, e, "foo.wrap", &[], &[], &[inner], 3);
        ret(&ctx, b, e, &[], 8);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
    assert_eq!(line_of(&ctx, &d), 4);
}

#[test]
fn self_use_does_not_dominate() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "selfuse", &[], &[], 2, |b, _r, e| {
        let o = op(&ctx, b, e, "foo.def", &[], &[t], 3);
        let v = b.result(o, 0);
        b.set_operands(o, &[v]);
        ret(&ctx, b, e, &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operand #0 does not dominate this use");
}

// ------------------------------------------------------------------------------- isolation

#[test]
fn value_from_another_root_region() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    let blk = m.block();
    // an isolated op with two regions built by hand: a value of region 0 used in region 1
    let mut ib = Body::new(&ctx, ctx.op_name("foo.iso"), loc(&ctx, 2));
    let r0 = ib.add_root_region();
    let r1 = ib.add_root_region();
    let b0 = ib.create_block(&[]);
    ib.append_block(r0, b0);
    let b1 = ib.create_block(&[]);
    ib.append_block(r1, b1);
    let def = op(&ctx, &mut ib, b0, "foo.def", &[], &[t], 3);
    let v = ib.result(def, 0);
    op(&ctx, &mut ib, b1, "foo.use", &[v], &[], 4);
    let mut st = OperationState::new(&ctx, "foo.iso", loc(&ctx, 2));
    st.nested = Some(Box::new(ib));
    let o = m.body.create_op(st);
    m.body.append_op(blk, o);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'foo.use' op using value defined outside the region");
    assert_eq!(d.notes[0].message, "required by region isolation constraints");
    assert_eq!(line_of(&ctx, &d.notes[0]), 2);
}

#[test]
fn operand_of_a_detached_op_is_unlinked() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        let detached = b.create_op(OperationState::new(&ctx, "foo.def", loc(&ctx, 9)).results(&[t]));
        let v = b.result(detached, 0);
        op(&ctx, b, e, "foo.use", &[v], &[], 3);
        ret(&ctx, b, e, &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "operation's operand is unlinked");
    assert_eq!(line_of(&ctx, &d), 3);
}

// ------------------------------------------------------------------------------- symbols

fn call(ctx: &Context, b: &mut Body, block: Block, callee: &str, line: u32) -> Op {
    let c = op(ctx, b, block, "func.call", &[], &[], line);
    b.set_attr(ctx, c, "callee", ctx.symbol_ref(callee));
    c
}

#[test]
fn symbol_redefinition() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 2);
    });
    func(&ctx, &mut m, "f", &[], &[], 3, |b, _r, e| {
        ret(&ctx, b, e, &[], 3);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "redefinition of symbol named 'f'");
    assert_eq!(line_of(&ctx, &d), 3);
    assert_eq!(d.notes[0].message, "see existing symbol definition here");
    assert_eq!(line_of(&ctx, &d.notes[0]), 2);
}

#[test]
fn symbol_redefinition_in_nested_table() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[]]);
    for line in [3, 4] {
        let s = op(&ctx, &mut m.body, bs[0], "test.symbol", &[], &[], line);
        m.body.set_attr(&ctx, s, "sym_name", ctx.str_attr("x"));
    }
    region_op(&ctx, &mut m.body, blk, "test.symbol_table", &[], &[], &[r], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "redefinition of symbol named 'x'");
    assert_eq!(line_of(&ctx, &d), 4);
}

#[test]
fn symbol_table_needs_one_region() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r0, _) = region(&mut m.body, &[&[]]);
    let (r1, _) = region(&mut m.body, &[&[]]);
    region_op(&ctx, &mut m.body, blk, "vt.bad_table", &[], &[], &[r0, r1], 2);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'vt.bad_table' op Operations with a 'SymbolTable' must have exactly one region");
}

#[test]
fn call_to_missing_function() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        call(&ctx, b, e, "nope", 3);
        ret(&ctx, b, e, &[], 4);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.call' op 'nope' does not reference a valid function");
    assert_eq!(line_of(&ctx, &d), 3);
}

#[test]
fn symbol_lookup_is_nearest_table_only() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 2);
    });
    // module { func @f; vt.iso_table { func @g { call @f } } }: @f is not visible in the table
    let mut tb = Body::new(&ctx, ctx.op_name("vt.iso_table"), loc(&ctx, 3));
    let r = tb.add_root_region();
    let tblk = tb.create_block(&[]);
    tb.append_block(r, tblk);
    func_in(&ctx, &mut tb, tblk, "g", &[], &[], 4, |b, _r, e| {
        call(&ctx, b, e, "f", 5);
        ret(&ctx, b, e, &[], 6);
    });
    let mut st = OperationState::new(&ctx, "vt.iso_table", loc(&ctx, 3));
    st.nested = Some(Box::new(tb));
    let o = m.body.create_op(st);
    m.body.append_op(blk, o);
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.call' op 'f' does not reference a valid function");
    assert_eq!(line_of(&ctx, &d), 5);
}

#[test]
fn symbols_in_nested_non_isolated_table() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let blk = m.block();
    let (r, bs) = region(&mut m.body, &[&[]]);
    let s = op(&ctx, &mut m.body, bs[0], "test.symbol", &[], &[], 3);
    m.body.set_attr(&ctx, s, "sym_name", ctx.str_attr("inner"));
    let u = op(&ctx, &mut m.body, bs[0], "test.symbol_user", &[], &[], 4);
    m.body.set_attr(&ctx, u, "symbol", ctx.symbol_ref("inner"));
    region_op(&ctx, &mut m.body, blk, "test.symbol_table", &[], &[], &[r], 2);
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
    // a user in the module does not see the nested table's symbol
    let u2 = op(&ctx, &mut m.body, blk, "test.symbol_user", &[], &[], 5);
    m.body.set_attr(&ctx, u2, "symbol", ctx.symbol_ref("inner"));
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'test.symbol_user' op 'inner' does not reference a valid symbol");
    assert_eq!(line_of(&ctx, &d), 5);
}

#[test]
fn unknown_single_region_op_hides_symbols() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        call(&ctx, b, ibs[0], "f", 4);
        region_op(&ctx, b, e, "foo.wrap", &[], &[], &[inner], 3);
        ret(&ctx, b, e, &[], 5);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'func.call' op 'f' does not reference a valid function");
    // ...but a registered non-table op does not
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        call(&ctx, b, ibs[0], "f", 4);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 5);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 3);
        ret(&ctx, b, e, &[], 6);
    });
    assert!(verify(&ctx, &m).is_ok(), "{:?}", verify(&ctx, &m));
}

#[test]
fn symbol_use_errors_in_mlir_walk_order() {
    // mlir-opt reports the call in the last function first, and within a function the ops of
    // a region before those of nested regions.
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "a", &[], &[], 2, |b, _r, e| {
        call(&ctx, b, e, "nope1", 3);
        ret(&ctx, b, e, &[], 4);
    });
    func(&ctx, &mut m, "b", &[], &[], 5, |b, _r, e| {
        let (inner, ibs) = region(b, &[&[]]);
        call(&ctx, b, ibs[0], "nope2", 7);
        op(&ctx, b, ibs[0], "test.yield", &[], &[], 8);
        region_op(&ctx, b, e, "test.region", &[], &[], &[inner], 6);
        call(&ctx, b, e, "nope3", 9);
        ret(&ctx, b, e, &[], 10);
    });
    for _ in 0..3 {
        let d = one_error(&ctx, &m);
        assert_eq!(line_of(&ctx, &d), 9, "{}", d.message);
    }
}

#[test]
fn symbol_uses_checked_after_structure() {
    // A structural error anywhere wins over symbol-use errors (checked at the module's exit).
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "a", &[], &[], 2, |b, _r, e| {
        call(&ctx, b, e, "nope", 3);
        ret(&ctx, b, e, &[], 4);
    });
    func(&ctx, &mut m, "b", &[], &[t], 5, |b, _r, e| {
        ret(&ctx, b, e, &[], 6);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(line_of(&ctx, &d), 6);
}

#[test]
fn verify_isolated_uses_outer_table() {
    let ctx = context();
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 2);
    });
    let g = func(&ctx, &mut m, "g", &[], &[], 3, |b, _r, e| {
        call(&ctx, b, e, "f", 4);
        call(&ctx, b, e, "h", 5);
        ret(&ctx, b, e, &[], 6);
    });
    let table = SymbolTable::of_body(&ctx, &m.body);
    assert_eq!(table.len(), 2);
    assert!(table.lookup("f").is_some());
    let gb = m.body.nested(g).unwrap();
    let errs = verify_isolated_with(&ctx, gb, &table, &opts(true)).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].message, "'func.call' op 'h' does not reference a valid function");
    // func @f alone is fine
    let f = m.lookup_symbol(&ctx, "f").unwrap();
    assert!(verify_isolated_with(&ctx, m.body.nested(f).unwrap(), &table, &opts(true)).is_ok());
    // the table does not borrow the module: a pass may edit @g and verify it against it
    let gb = m.body.nested_mut(g).unwrap();
    let bad_call = gb.top_ops()[1];
    gb.erase_op(bad_call);
    assert!(verify_isolated_with(&ctx, gb, &table, &opts(true)).is_ok());
}

#[test]
fn verify_isolated_checks_owner_attributes() {
    let ctx = context();
    let mut m = new_module(&ctx);
    let f = func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 2);
    });
    m.body.set_attr(&ctx, f, "sym_name", ctx.i64_attr(3));
    let table = SymbolTable::of_body(&ctx, &m.body);
    let errs = verify_isolated_with(&ctx, m.body.nested(f).unwrap(), &table, &opts(false)).unwrap_err();
    assert_eq!(errs[0].message, "'func.func' op attribute 'sym_name' failed to satisfy constraint: string attribute");
}

// ------------------------------------------------------------------------------- parallelism

#[test]
fn errors_of_all_functions_in_program_order_any_thread_count() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    for i in 0..64u32 {
        let line = 10 + i * 10;
        func(&ctx, &mut m, &format!("f{i}"), &[], &[t], line, |b, _r, e| {
            if i % 3 == 0 {
                ret(&ctx, b, e, &[], line + 1); // wrong: returns nothing
            } else {
                let c = op(&ctx, b, e, "foo.def", &[], &[t], line + 1);
                let c = b.result(c, 0);
                ret(&ctx, b, e, &[c], line + 2);
            }
        });
    }
    let seq = verify_module_with(&ctx, &m, &opts(false)).unwrap_err();
    let par = verify_module_with(&ctx, &m, &opts(true)).unwrap_err();
    let lines = |errs: &[Diagnostic]| errs.iter().map(|d| line_of(&ctx, d)).collect::<Vec<_>>();
    let expect: Vec<u32> = (0..64u32).filter(|i| i % 3 == 0).map(|i| 10 + i * 10 + 1).collect();
    assert_eq!(lines(&seq), expect);
    assert_eq!(lines(&par), expect);
}

#[test]
fn nested_isolated_bodies_are_verified() {
    let ctx = context();
    let mut m = new_module(&ctx);
    // func @f { test.isolated { test.positive {value = 0} } }
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        let mut ib = Body::new(&ctx, ctx.op_name("test.isolated"), loc(&ctx, 3));
        let r = ib.add_root_region();
        let blk = ib.create_block(&[]);
        ib.append_block(r, blk);
        let p = op(&ctx, &mut ib, blk, "test.positive", &[], &[], 4);
        ib.set_attr(&ctx, p, "value", ctx.i64_attr(0));
        let mut st = OperationState::new(&ctx, "test.isolated", loc(&ctx, 3));
        st.nested = Some(Box::new(ib));
        let o = b.create_op(st);
        b.append_op(e, o);
        ret(&ctx, b, e, &[], 5);
    });
    let d = one_error(&ctx, &m);
    assert_eq!(d.message, "'test.positive' op attribute 'value' must be positive, but got 0");
}

// ------------------------------------------------------------------------------- notes

#[test]
fn current_operation_note() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "g", &[], &[t], 2, |b, _r, e| {
        ret(&ctx, b, e, &[], 3);
    });
    let o = VerifyOptions { print_op_on_diagnostic: true, ..opts(false) };
    let d = verify_module_with(&ctx, &m, &o).unwrap_err().remove(0);
    assert_eq!(d.notes.len(), 1);
    assert_eq!(d.notes[0].message, "see current operation: \"func.return\"()");
    assert_eq!(d.notes[0].loc, d.loc);
    // multi-line ops start on a new line (here: the module, printed by the owner printer)
    let mut m = new_module(&ctx);
    let r = m.body.root_regions()[0];
    let b2 = m.body.create_block(&[]);
    m.body.append_block(r, b2);
    let d = verify_module_with(&ctx, &m, &o).unwrap_err().remove(0);
    assert_eq!(d.notes[0].message, "see current operation: \n\"builtin.module\"() ({\n})");
    // the note comes before the verifier's own notes
    let mut m = new_module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], 2, |b, _r, e| {
        let user = op(&ctx, b, e, "foo.use", &[], &[], 3);
        let def = op(&ctx, b, e, "foo.def", &[], &[t], 4);
        let v = b.result(def, 0);
        b.set_operands(user, &[v]);
        ret(&ctx, b, e, &[], 5);
    });
    let d = verify_module_with(&ctx, &m, &o).unwrap_err().remove(0);
    assert_eq!(d.notes.len(), 2);
    assert!(d.notes[0].message.starts_with("see current operation: "));
    assert_eq!(d.notes[1].message, "operand defined here (op in the same block)");
}

// Keep the imports used even if a test above changes.
#[allow(dead_code)]
fn _unused(_: SuccessorCount, _: Location) {}

/// Throughput: `cargo test --release -p xcs-ir --test verifier -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let ctx = context();
    let t = i32t(&ctx);
    let mut m = new_module(&ctx);
    let (nfuncs, nops) = (2000u32, 250u32);
    for f in 0..nfuncs {
        func(&ctx, &mut m, &format!("f{f}"), &[t, t], &[t], 1, |b, r, e| {
            let mut x = b.block_arg(e, 0);
            let y = b.block_arg(e, 1);
            let b1 = b.create_block(&[t]);
            b.append_block(r, b1);
            for i in 0..nops {
                let o = op(&ctx, b, e, "test.addi", &[x, y], &[t], 2 + i);
                x = b.result(o, 0);
            }
            br(&ctx, b, e, "cf.br", &[x], &[b1], 3);
            let a = b.block_arg(b1, 0);
            let o = op(&ctx, b, b1, "test.muli", &[a, y], &[t], 4);
            let v = b.result(o, 0);
            ret(&ctx, b, b1, &[v], 5);
        });
    }
    let total = m.num_ops();
    for threads in [false, true] {
        let o = opts(threads);
        let start = std::time::Instant::now();
        let reps = 5;
        for _ in 0..reps {
            verify_module_with(&ctx, &m, &o).unwrap();
        }
        let dt = start.elapsed().as_secs_f64() / reps as f64;
        println!("threads={threads}: {total} ops in {:.1} ms = {:.2} M ops/s", dt * 1e3, total as f64 / dt / 1e6);
    }
}
