//! Shared analyses for the passes: side effects (MLIR's `isMemoryEffectFree`,
//! `wouldOpBeTriviallyDead`), symbol references in attributes, dominator trees of regions
//! (petgraph), and the operands a branch forwards to each successor.

use std::ops::Range;

use petgraph::algo::dominators;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use xcs_ir::opdef::{SuccessorOperands, Traits};
use xcs_ir::{Attr, AttrKind, Block, Body, Context, DiagSink, Diagnostic, Ident, Op, OpDef, Region};

/// Checks that the anchor `body` of a pass that works on symbols defines a symbol table;
/// otherwise emits MLIR's error ("'...' op  was scheduled to run under `pass`, but does not
/// define a symbol table", the double space included) and fails.
pub fn require_symbol_table(ctx: &Context, body: &Body, pass: &str, diags: &mut dyn DiagSink) -> Result<(), ()> {
    if ctx.op_def(body.name()).is_some_and(|d| d.has(Traits::SymbolTable)) {
        return Ok(());
    }
    let name = ctx.op_name_str(body.name());
    let message = format!("'{name}' op  was scheduled to run under {pass}, but does not define a symbol table");
    diags.emit(Diagnostic::error(body.loc(), message));
    Err(())
}

/// The op's definition, if it is registered.
pub fn def(ctx: &Context, body: &Body, op: Op) -> Option<&'static OpDef> {
    ctx.op_def(body.op_name(op))
}

pub fn has_trait(ctx: &Context, body: &Body, op: Op, t: Traits) -> bool {
    def(ctx, body, op).is_some_and(|d| d.has(t))
}

/// The regions of `op` and the body they live in (the nested body for isolated ops).
pub fn op_regions(body: &Body, op: Op) -> (&Body, SmallVec<[Region; 2]>) {
    match body.nested(op) {
        Some(n) => (n, n.root_regions().into()),
        None => (body, body.regions(op).into()),
    }
}

/// True if `op` has no memory effects: `Pure`, or `RecursiveMemoryEffects` with only
/// effect-free ops inside. Unregistered ops have unknown effects.
pub fn is_memory_effect_free(ctx: &Context, body: &Body, op: Op) -> bool {
    let Some(d) = def(ctx, body, op) else { return false };
    if d.has(Traits::Pure) {
        return true;
    }
    if !d.has(Traits::RecursiveMemoryEffects) {
        return false;
    }
    let (b, regions) = op_regions(body, op);
    regions.iter().all(|&r| {
        b.region_blocks(r)
            .all(|blk| b.block_ops(blk).all(|o| is_memory_effect_free(ctx, b, o)))
    })
}

/// MLIR's `wouldOpBeTriviallyDead`: not a terminator, not a symbol, and effect free.
pub fn would_be_trivially_dead(ctx: &Context, body: &Body, op: Op) -> bool {
    let Some(d) = def(ctx, body, op) else { return false };
    if d.has(Traits::Terminator) || d.has(Traits::Symbol) {
        return false;
    }
    is_memory_effect_free(ctx, body, op)
}

/// MLIR's `isOpTriviallyDead`: no used results and [`would_be_trivially_dead`].
pub fn is_trivially_dead(ctx: &Context, body: &Body, op: Op) -> bool {
    body.results(op).all(|v| !body.has_uses(v)) && would_be_trivially_dead(ctx, body, op)
}

/// True if `op` may only be the last op of its block.
pub fn is_terminator(ctx: &Context, body: &Body, op: Op) -> bool {
    has_trait(ctx, body, op, Traits::Terminator)
}

/// A symbol reference: the root name and the nested names (`@a::@b`).
pub type SymbolRef = (Ident, SmallVec<[Ident; 1]>);

/// Appends every symbol reference inside `a` (through arrays, dictionaries and distinct
/// attributes).
pub fn collect_symbol_refs(ctx: &Context, a: Attr, out: &mut Vec<SymbolRef>) {
    match ctx.attr_kind(a) {
        AttrKind::SymbolRef { root, nested } => out.push((*root, nested.iter().copied().collect())),
        AttrKind::Array(items) => {
            for &i in items.iter() {
                collect_symbol_refs(ctx, i, out);
            }
        }
        AttrKind::Dictionary(entries) => {
            for &(_, v) in entries.iter() {
                collect_symbol_refs(ctx, v, out);
            }
        }
        AttrKind::Distinct { attr, .. } => collect_symbol_refs(ctx, *attr, out),
        _ => {}
    }
}

/// The symbol references held by `op`'s own attributes and properties.
pub fn op_symbol_refs(ctx: &Context, body: &Body, op: Op, out: &mut Vec<SymbolRef>) {
    collect_symbol_refs(ctx, body.attrs(op), out);
    if let Some(p) = body.props(op) {
        collect_symbol_refs(ctx, p, out);
    }
}

/// MLIR's `SymbolTable::getSymbolUses(op)`: references held by `op` and every op nested in
/// it (nested bodies included), without entering nested symbol tables (their own attributes
/// count).
pub fn nested_symbol_refs(ctx: &Context, body: &Body, op: Op, out: &mut Vec<SymbolRef>) {
    op_symbol_refs(ctx, body, op, out);
    if has_trait(ctx, body, op, Traits::SymbolTable) {
        return;
    }
    let (b, regions) = op_regions(body, op);
    for r in regions {
        for blk in b.region_blocks(r) {
            for o in b.block_ops(blk) {
                nested_symbol_refs(ctx, b, o, out);
            }
        }
    }
}

/// The symbol name of `op` (`sym_name`), if it has one.
pub fn symbol_name<'c>(ctx: &'c Context, body: &Body, op: Op) -> Option<&'c str> {
    body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a))
}

/// True if `op` is a private symbol (`sym_visibility = "private"`).
pub fn is_private(ctx: &Context, body: &Body, op: Op) -> bool {
    body.attr(ctx, op, "sym_visibility").and_then(|a| ctx.as_str(a)) == Some("private")
}

/// Whether a symbol is public (no `sym_visibility`, or `"public"`). Symbols that are not
/// (private and nested ones) may be erased once unused, as MLIR's symbol DCE and inliner do.
pub fn is_public(ctx: &Context, body: &Body, op: Op) -> bool {
    matches!(
        body.attr(ctx, op, "sym_visibility").and_then(|a| ctx.as_str(a)),
        None | Some("public")
    )
}

/// Whether the region is a graph region (no dominance): a root region of a body whose op
/// has the `GraphRegion` trait, or a region of such an op. Unregistered ops' regions are
/// treated as SSACFG.
pub fn is_graph_region(ctx: &Context, body: &Body, r: Region) -> bool {
    let owner = match body.region_parent_op(r) {
        Some(op) => ctx.op_def(body.op_name(op)),
        None => ctx.op_def(body.name()),
    };
    owner.is_some_and(|d| d.has(Traits::GraphRegion))
}

/// The operand range `op` forwards to successor `i`, if the op declares how it forwards.
pub fn successor_operands(ctx: &Context, body: &Body, op: Op, i: usize) -> Option<Range<usize>> {
    def(ctx, body, op)?.successor_operands.range(ctx, body, op, i)
}

/// Removes operand `j` of the range forwarded to successor `i`, keeping the segment
/// attributes (`operandSegmentSizes`, and e.g. `cf.switch`'s `case_operand_segments`) in
/// step. Returns false if the op does not declare its forwarding.
pub fn erase_successor_operand(ctx: &Context, body: &mut Body, op: Op, i: usize, j: usize) -> bool {
    let Some(range) = successor_operands(ctx, body, op, i) else {
        return false;
    };
    if j >= range.len() {
        return false;
    }
    let mut ops = body.operand_vec(op);
    ops.remove(range.start + j);
    body.set_operands(op, &ops);
    // the segment holding the operand shrinks by one (`range` checked that they are well formed)
    let forwarding = def(ctx, body, op).map(|d| d.successor_operands);
    let mut shrink = |name: &str, k: usize| {
        if let Some(mut seg) = body.attr(ctx, op, name).and_then(|a| ctx.as_dense_ints(a)) {
            seg[k] -= 1;
            let data: Vec<u8> = seg.iter().flat_map(|&s| (s as i32).to_le_bytes()).collect();
            let a = ctx.attr(AttrKind::DenseArray {
                elem: ctx.i32_type(),
                data: data.into(),
            });
            body.set_attr(ctx, op, name, a);
        }
    };
    match forwarding {
        Some(SuccessorOperands::Segments { leading }) => shrink("operandSegmentSizes", leading as usize + i),
        Some(SuccessorOperands::FirstThenNested { leading, nested }) => {
            if i == 0 {
                shrink("operandSegmentSizes", leading as usize);
            } else {
                shrink("operandSegmentSizes", leading as usize + 1);
                shrink(nested, i - 1);
            }
        }
        _ => {}
    }
    true
}

/// The successors of a block (its terminator's successors).
pub fn block_successors(body: &Body, b: Block) -> SmallVec<[Block; 2]> {
    match body.last_op(b) {
        Some(t) => body.successors(t).into(),
        None => SmallVec::new(),
    }
}

/// The dominator tree of a region's blocks reachable from its entry block.
pub struct DomTree {
    /// Reachable blocks in reverse post-order (entry first).
    pub order: Vec<Block>,
    /// Children of each reachable block in the tree, in region order.
    pub children: FxHashMap<Block, Vec<Block>>,
    idom: FxHashMap<Block, Block>,
}

impl DomTree {
    pub fn new(body: &Body, r: Region) -> DomTree {
        let blocks: Vec<Block> = body.region_blocks(r).collect();
        let mut g: DiGraph<Block, ()> = DiGraph::with_capacity(blocks.len(), blocks.len());
        let mut idx: FxHashMap<Block, NodeIndex> = FxHashMap::default();
        for &b in &blocks {
            idx.insert(b, g.add_node(b));
        }
        for &b in &blocks {
            for s in block_successors(body, b) {
                if let Some(&t) = idx.get(&s) {
                    g.add_edge(idx[&b], t, ());
                }
            }
        }
        let mut tree = DomTree {
            order: Vec::new(),
            children: FxHashMap::default(),
            idom: FxHashMap::default(),
        };
        let Some(&entry) = blocks.first() else { return tree };
        let doms = dominators::simple_fast(&g, idx[&entry]);
        let mut dfs = petgraph::visit::DfsPostOrder::new(&g, idx[&entry]);
        while let Some(n) = dfs.next(&g) {
            tree.order.push(g[n]);
        }
        tree.order.reverse();
        for &b in &blocks {
            if b == entry {
                tree.children.entry(b).or_default();
                continue;
            }
            if let Some(d) = doms.immediate_dominator(idx[&b]) {
                tree.idom.insert(b, g[d]);
                tree.children.entry(g[d]).or_default().push(b);
                tree.children.entry(b).or_default();
            }
        }
        tree
    }
    pub fn is_reachable(&self, b: Block) -> bool {
        self.children.contains_key(&b)
    }
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom.get(&b).copied()
    }
    /// True if `a` dominates `b` (both reachable blocks of the region).
    pub fn dominates(&self, a: Block, mut b: Block) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom(b) {
                Some(p) => b = p,
                None => return false,
            }
        }
    }
}
