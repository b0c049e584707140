//! `symbol-dce` on functions and the test dialect's symbols: public and referenced symbols
//! stay, nested symbol tables are handled.

use xcs_test_support::builder::*;
use xcs_ir::{Body, Context, Module, Op, OperationState};

fn names(ctx: &Context, body: &Body) -> Vec<String> {
    body.top_ops()
        .into_iter()
        .map(|op| xcs_passes::util::symbol_name(ctx, body, op).unwrap_or("<op>").to_string())
        .collect()
}

fn sym_op(ctx: &Context, body: &mut Body, at: xcs_ir::Block, name: &str, private: bool) -> Op {
    let mut st = OperationState::new(ctx, "test.symbol", ctx.file_loc("t.mlir", 1, 1)).attr(
        ctx,
        "sym_name",
        ctx.str_attr(name),
    );
    if private {
        st = st.attr(ctx, "sym_visibility", ctx.str_attr("private"));
    }
    let op = body.create_op(st);
    body.append_op(at, op);
    op
}

#[test]
fn keeps_public_and_referenced_symbols() {
    let ctx = ctx();
    let i32t = ctx.i32_type();
    let mut m = module(&ctx);
    // @dead: private, unused; @used: called from public @main; @chain: called from @used;
    // @self: private, calls only itself; @attr_ref: referenced from an attribute array of
    // a non-symbol op; @pub: public, unused.
    func(&ctx, &mut m, "dead", &[], &[], true, |ir| {
        ir.call("used", &[], &[]);
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "used", &[], &[], true, |ir| {
        ir.call("chain", &[], &[]);
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "chain", &[], &[], true, |ir| {
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "self", &[], &[], true, |ir| {
        ir.call("self", &[], &[]);
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "attr_ref", &[], &[], true, |ir| {
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "pub", &[], &[], false, |ir| {
        ir.ret(&[]);
    });
    func(&ctx, &mut m, "main", &[i32t], &[], false, |ir| {
        ir.region_op("test.region", &[], &[], &[], |r| {
            r.call("used", &[], &[]); // a use nested in a region of the body
            r.op("test.yield", &[], &[], &[]);
        });
        ir.ret(&[]);
    });
    let blk = m.block();
    let refs = ctx.array_attr(&[ctx.dict(&[(ctx.ident("f"), ctx.symbol_ref("attr_ref"))])]);
    let st = OperationState::new(&ctx, "foo.holder", ctx.file_loc("t.mlir", 1, 1)).attr(&ctx, "refs", refs);
    let h = m.body.create_op(st);
    m.body.append_op(blk, h);
    run(&ctx, &mut m, "builtin.module(symbol-dce)").unwrap();
    assert_eq!(
        names(&ctx, &m.body),
        ["used", "chain", "attr_ref", "pub", "main", "<op>"]
    );
    // a second run changes nothing
    let before = dump_module(&ctx, &m);
    run(&ctx, &mut m, "builtin.module(symbol-dce)").unwrap();
    assert_eq!(dump_module(&ctx, &m), before);
}

#[test]
fn nested_symbol_tables() {
    let ctx = ctx();
    let mut m = module(&ctx);
    let blk = m.block();
    // module @inner { @x private unused, @y private used by @z, @z public }
    let mut inner = Body::new(&ctx, ctx.op_name("builtin.module"), ctx.file_loc("t.mlir", 1, 1));
    let r = inner.add_root_region();
    let ib = inner.create_block(&[]);
    inner.append_block(r, ib);
    sym_op(&ctx, &mut inner, ib, "x", true);
    sym_op(&ctx, &mut inner, ib, "y", true);
    func_in(&ctx, &mut inner, ib, "z", &[], &[], false, |ir| {
        ir.op("test.symbol_user", &[], &[], &[("symbol", ir.ctx.symbol_ref("y"))]);
        ir.ret(&[]);
    });
    let mut st = OperationState::new(&ctx, "builtin.module", ctx.file_loc("t.mlir", 1, 1))
        .attr(&ctx, "sym_name", ctx.str_attr("inner"))
        .attr(&ctx, "sym_visibility", ctx.str_attr("private"));
    st.nested = Some(Box::new(inner));
    let inner_op = m.body.create_op(st);
    m.body.append_op(blk, inner_op);
    // a non-isolated symbol table in the module: test.symbol_table @t { @a private, @b private }
    let tr = m.body.create_region();
    let tb = m.body.create_block(&[]);
    m.body.append_block(tr, tb);
    sym_op(&ctx, &mut m.body, tb, "a", true);
    sym_op(&ctx, &mut m.body, tb, "b", true);
    let mut st = OperationState::new(&ctx, "test.symbol_table", ctx.file_loc("t.mlir", 1, 1)).attr(
        &ctx,
        "sym_name",
        ctx.str_attr("t"),
    );
    st.regions.push(tr);
    let t = m.body.create_op(st);
    m.body.append_op(blk, t);
    // public @main refers to @inner::@z and @t::@b
    func(&ctx, &mut m, "main", &[], &[], false, |ir| {
        let z = ir.ctx.attr(xcs_ir::AttrKind::SymbolRef {
            root: ir.ctx.ident("inner"),
            nested: Box::new([ir.ctx.ident("z")]),
        });
        let b = ir.ctx.attr(xcs_ir::AttrKind::SymbolRef {
            root: ir.ctx.ident("t"),
            nested: Box::new([ir.ctx.ident("b")]),
        });
        ir.op("test.pure", &[], &[], &[("r1", z), ("r2", b)]);
        ir.ret(&[]);
    });
    run(&ctx, &mut m, "builtin.module(symbol-dce)").unwrap();
    assert_eq!(names(&ctx, &m.body), ["inner", "t", "main"]);
    assert_eq!(names(&ctx, m.body.nested(inner_op).unwrap()), ["y", "z"]);
    let tblk = m.body.entry_block(m.body.regions(t)[0]).unwrap();
    let in_t: Vec<_> = m
        .body
        .block_ops(tblk)
        .map(|o| xcs_passes::util::symbol_name(&ctx, &m.body, o).unwrap().to_string())
        .collect();
    assert_eq!(in_t, ["b"]);
    // without @main, the private module and everything in @t goes (@t itself is public)
    let main = m
        .ops()
        .into_iter()
        .find(|&o| xcs_passes::util::symbol_name(&ctx, &m.body, o) == Some("main"))
        .unwrap();
    m.body.erase_op(main);
    run(&ctx, &mut m, "builtin.module(symbol-dce)").unwrap();
    assert_eq!(names(&ctx, &m.body), ["t"]);
    assert!(m.body.is_block_empty(tblk));
}

#[test]
fn requires_a_symbol_table() {
    let ctx = ctx();
    let mut m: Module = module(&ctx);
    func(&ctx, &mut m, "f", &[], &[], false, |ir| {
        ir.ret(&[]);
    });
    let e = run(&ctx, &mut m, "builtin.module(func.func(symbol-dce))").unwrap_err();
    assert_eq!(
        e,
        ["'func.func' op  was scheduled to run under SymbolDCE, but does not define a symbol table"]
    );
}
