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
use xcs_ir::{Body, Context, DiagSink, Op, Region};

use crate::util;

/// The symbol DCE pass.
pub struct SymbolDce;

pub const INFO: PassInfo = PassInfo {
    argument: "symbol-dce",
    name: "SymbolDCE",
    summary: "Eliminate dead symbols",
    description: "Erases private (and `nested`) symbols, such as `func.func private` functions, that \
no public symbol or non-symbol op references, directly or through other live symbols. References \
are any symbol-reference attribute, including those inside arrays and dictionaries and inside \
function bodies. Nested symbol tables are handled the same way.",
    options: &[],
    factory: |_, _| Ok(Box::new(SymbolDce)),
};

impl Pass for SymbolDce {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        util::require_symbol_table(ctx, body, "SymbolDCE", diags)?;
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
