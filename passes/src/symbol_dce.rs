//! `symbol-dce`: MLIR's `SymbolDCE`. Symbols that are not public (private or nested) and
//! that nothing live refers to are erased. Live roots are the non-symbol ops and the public
//! symbols of the anchor symbol table; liveness flows through every symbol reference held in
//! attributes (arrays and dictionaries included) of a live op and of the ops nested in it
//! (function bodies too), and into nested symbol tables. References resolve in the symbol
//! table holding the referring op (`@a::@b` through nested tables); references to unknown
//! symbols are ignored.

use rustc_hash::{FxHashMap, FxHashSet};
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic, Op, Region};

use crate::util;

/// The symbol DCE pass.
pub struct SymbolDce;

pub const INFO: PassInfo = PassInfo {
    argument: "symbol-dce",
    summary: "Eliminate dead symbols",
    description: "Erases private (and `nested`) symbols, such as `func.func private` functions, that \
no public symbol or non-symbol op references, directly or through other live symbols. References \
are any symbol-reference attribute, including those inside arrays and dictionaries and inside \
function bodies. Nested symbol tables are handled the same way.",
    options: &[],
    factory: |_, _| Ok(Box::new(SymbolDce)),
};

impl Pass for SymbolDce {
    fn argument(&self) -> &'static str {
        "symbol-dce"
    }
    fn name(&self) -> &'static str {
        "SymbolDCE"
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        if !ctx.op_def(body.name()).is_some_and(|d| d.has(Traits::SymbolTable)) {
            diags.emit(Diagnostic::error(
                body.loc(),
                format!(
                    "'{}' op  was scheduled to run under SymbolDCE, but does not define a symbol table",
                    ctx.op_name_str(body.name())
                ),
            ));
            return Err(());
        }
        let Some(&region) = body.root_regions().first() else {
            return Ok(PassResult::Unchanged);
        };
        let root = Table { body: &*body, region };
        let mut a = Analysis {
            ctx,
            live: FxHashSet::default(),
            computed: FxHashSet::default(),
            index: FxHashMap::default(),
            _bodies: std::marker::PhantomData,
        };
        a.compute(root);
        let Analysis { live, computed, .. } = a;
        let erased = erase_dead(ctx, body, &live, &computed);
        Ok(PassResult::from_changed(erased > 0))
    }
}

/// Identity of a body during the pass (its address: bodies are boxed and not moved).
fn bid(b: &Body) -> usize {
    b as *const Body as usize
}

/// A symbol table: the region (of `body`) holding its symbols.
#[derive(Copy, Clone)]
struct Table<'b> {
    body: &'b Body,
    region: Region,
}

/// An op with the body it lives in and the table that holds it.
type Item<'b> = (&'b Body, Op, Table<'b>);

/// An op is a symbol if it has the `Symbol` trait, or is a symbol table with a name
/// (`module @m`, an optional symbol).
fn is_symbol(ctx: &Context, body: &Body, op: Op) -> bool {
    util::has_trait(ctx, body, op, Traits::Symbol)
        || (util::has_trait(ctx, body, op, Traits::SymbolTable) && util::symbol_name(ctx, body, op).is_some())
}

/// The table an op defines, if it is a symbol table.
fn table_of<'b>(ctx: &Context, body: &'b Body, op: Op) -> Option<Table<'b>> {
    if !util::has_trait(ctx, body, op, Traits::SymbolTable) {
        return None;
    }
    match body.nested(op) {
        Some(n) => n.root_regions().first().map(|&region| Table { body: n, region }),
        None => body.regions(op).first().map(|&region| Table { body, region }),
    }
}

struct Analysis<'c, 'b> {
    ctx: &'c Context,
    live: FxHashSet<(usize, Op)>,
    computed: FxHashSet<(usize, Region)>,
    index: FxHashMap<(usize, Region), FxHashMap<&'c str, Op>>,
    _bodies: std::marker::PhantomData<&'b Body>,
}

impl<'c, 'b> Analysis<'c, 'b> {
    fn ops(t: Table<'b>) -> Vec<Op> {
        t.body
            .region_blocks(t.region)
            .flat_map(|b| t.body.block_ops(b))
            .collect()
    }

    fn lookup(&mut self, t: Table<'b>, name: &str) -> Option<Op> {
        let ctx = self.ctx;
        let idx = self.index.entry((bid(t.body), t.region)).or_insert_with(|| {
            let mut m = FxHashMap::default();
            for op in Self::ops(t) {
                if let Some(n) = util::symbol_name(ctx, t.body, op) {
                    m.entry(n).or_insert(op);
                }
            }
            m
        });
        idx.get(name).copied()
    }

    /// MLIR's `computeLiveness` for one symbol table.
    fn compute(&mut self, table: Table<'b>) {
        let ctx = self.ctx;
        if !self.computed.insert((bid(table.body), table.region)) {
            return;
        }
        let mut work: Vec<Item<'b>> = Vec::new();
        for op in Self::ops(table) {
            let b = table.body;
            // non-symbols are roots; so are symbols that cannot be discarded (not private)
            let root = !is_symbol(ctx, b, op) || (util::is_public(ctx, b, op) && self.live.insert((bid(b), op)));
            if root {
                work.push((b, op, table));
            }
        }
        let mut refs = Vec::new();
        while let Some((b, op, t)) = work.pop() {
            if let Some(nested) = table_of(ctx, b, op) {
                self.compute(nested);
            }
            refs.clear();
            util::nested_symbol_refs(ctx, b, op, &mut refs);
            for (root, nested) in refs.drain(..) {
                // resolve through nested tables, marking every symbol on the path
                let mut cur = t;
                let mut path = std::iter::once(root).chain(nested.iter().copied()).peekable();
                while let Some(name) = path.next() {
                    let Some(sym) = self.lookup(cur, ctx.str(name)) else {
                        break;
                    };
                    if self.live.insert((bid(cur.body), sym)) {
                        work.push((cur.body, sym, cur));
                    }
                    if path.peek().is_none() {
                        break;
                    }
                    match table_of(ctx, cur.body, sym) {
                        Some(nt) => cur = nt,
                        None => break,
                    }
                }
            }
        }
    }
}

/// Erases the dead symbols of every table whose liveness was computed; returns the count.
fn erase_dead(
    ctx: &Context,
    body: &mut Body,
    live: &FxHashSet<(usize, Op)>,
    computed: &FxHashSet<(usize, Region)>,
) -> usize {
    let mut erased = 0;
    let id = bid(body);
    let mut tables: Vec<Region> = body
        .root_regions()
        .iter()
        .copied()
        .filter(|r| computed.contains(&(id, *r)))
        .collect();
    for op in body.walk_ops() {
        if !body.is_isolated(op) && util::has_trait(ctx, body, op, Traits::SymbolTable) {
            if let Some(&r) = body.regions(op).first() {
                if computed.contains(&(id, r)) {
                    tables.push(r);
                }
            }
        }
    }
    let mut dead = Vec::new();
    for r in tables {
        for b in body.region_blocks(r) {
            for op in body.block_ops(b) {
                if is_symbol(ctx, body, op) && !live.contains(&(id, op)) && !util::is_terminator(ctx, body, op) {
                    dead.push(op);
                }
            }
        }
    }
    for op in dead {
        if body.contains_op(op) {
            body.erase_op(op);
            erased += 1;
        }
    }
    let isolated: Vec<Op> = body.walk_ops().into_iter().filter(|&op| body.is_isolated(op)).collect();
    for (_, child) in body.nested_many_mut(&isolated) {
        erased += erase_dead(ctx, child, live, computed);
    }
    erased
}

#[cfg(test)]
mod tests {
    use crate::testing::*;
    use xcs_ir::{Body, Context, Module, Op, OperationState};

    fn names(ctx: &Context, body: &Body) -> Vec<String> {
        body.top_ops()
            .into_iter()
            .map(|op| crate::util::symbol_name(ctx, body, op).unwrap_or("<op>").to_string())
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
            .map(|o| crate::util::symbol_name(&ctx, &m.body, o).unwrap().to_string())
            .collect();
        assert_eq!(in_t, ["b"]);
        // without @main, the private module and everything in @t goes (@t itself is public)
        let main = m
            .ops()
            .into_iter()
            .find(|&o| crate::util::symbol_name(&ctx, &m.body, o) == Some("main"))
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
}
