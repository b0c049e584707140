//! Dominance as MLIR defines it (`mlir/lib/IR/Dominance.cpp`): per-region dominator trees
//! over blocks (Cooper-Harvey-Kennedy, from petgraph's `simple_fast`), block-local order for
//! ops in the same block, and the "scoot up" rule for uses in nested regions. Regions with a
//! single block of a graph-region op or of an unregistered op have no SSA dominance.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;

use crate::body::{Block, Body, Op, Region, Value, ValueDef};
use crate::context::Context;
use crate::entity::SecondaryMap;
use crate::opdef::Traits;

/// The dominator tree of one multi-block region, numbered for O(1) queries.
struct DomTree {
    /// Pre- and post-order numbers in the dominator tree, per block index in the region;
    /// `u32::MAX` for blocks unreachable from the entry block.
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    fn build(body: &Body, region: Region, block_index: &SecondaryMap<Block, u32>) -> DomTree {
        let blocks: Vec<Block> = body.region_blocks(region).collect();
        let n = blocks.len();
        let mut g: DiGraph<(), (), u32> = DiGraph::with_capacity(n, n);
        for _ in 0..n {
            g.add_node(());
        }
        for (i, &b) in blocks.iter().enumerate() {
            if let Some(term) = body.last_op(b) {
                for &s in body.successors(term) {
                    // Successors are verified to be live blocks of this region before dominance
                    // is computed; anything else is ignored rather than trusted.
                    if body.contains_block(s) && body.block_region(s) == Some(region) {
                        g.add_edge(NodeIndex::new(i), NodeIndex::new(*block_index.get(s) as usize), ());
                    }
                }
            }
        }
        let doms = simple_fast(&g, NodeIndex::new(0));
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for i in 1..n {
            if let Some(idom) = doms.immediate_dominator(NodeIndex::new(i)) {
                children[idom.index()].push(i as u32);
            }
        }
        let mut pre = vec![u32::MAX; n];
        let mut post = vec![u32::MAX; n];
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        // Iterative DFS over the dominator tree: (node, next child to visit).
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        pre[0] = pre_n;
        pre_n += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&c) = children[node as usize].get(next) {
                top.1 += 1;
                pre[c as usize] = pre_n;
                pre_n += 1;
                stack.push((c, 0));
            } else {
                post[node as usize] = post_n;
                post_n += 1;
                stack.pop();
            }
        }
        DomTree { pre, post }
    }

    fn reachable(&self, i: u32) -> bool {
        self.pre[i as usize] != u32::MAX
    }

    /// LLVM's `DominatorTree::properlyDominates` on blocks: an unreachable block is dominated by
    /// everything and dominates nothing.
    fn properly_dominates(&self, a: u32, b: u32) -> bool {
        if a == b {
            return false;
        }
        if !self.reachable(b) {
            return true;
        }
        if !self.reachable(a) {
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        self.pre[a] < self.pre[b] && self.post[b] < self.post[a]
    }
}

/// A point in a block: before its first op, or at an op.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Pos {
    Begin,
    At(Op),
}

/// Op positions in their blocks and block indices in their regions, for one body.
pub(super) struct Layout {
    pub(super) op_pos: SecondaryMap<Op, u32>,
    pub(super) block_index: SecondaryMap<Block, u32>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout { op_pos: SecondaryMap::new(0), block_index: SecondaryMap::new(0) }
    }
}

/// Dominance queries over one body. Dominator trees are built on demand per region.
pub(super) struct Dominance<'a> {
    ctx: &'a Context,
    body: &'a Body,
    op_pos: SecondaryMap<Op, u32>,
    block_index: SecondaryMap<Block, u32>,
    trees: FxHashMap<Region, DomTree>,
    /// `has_ssa_dominance` per region: 0 = not computed, 1 = no, 2 = yes.
    ssa: SecondaryMap<Region, u8>,
}

impl<'a> Dominance<'a> {
    pub(super) fn new(ctx: &'a Context, body: &'a Body, layout: Layout) -> Self {
        Dominance {
            ctx,
            body,
            op_pos: layout.op_pos,
            block_index: layout.block_index,
            trees: FxHashMap::default(),
            ssa: SecondaryMap::new(0),
        }
    }

    /// The index of `b` among the blocks of its region.
    pub(super) fn block_index(&self, b: Block) -> u32 {
        *self.block_index.get(b)
    }

    fn num_blocks(&self, r: Region) -> usize {
        let mut n = 0;
        for _ in self.body.region_blocks(r).take(2) {
            n += 1;
        }
        n
    }

    /// MLIR's `hasSSADominance` for the region holding `b`: multi-block regions always have it;
    /// a single block has it unless its parent op is unregistered or a graph-region op.
    pub(super) fn has_ssa_dominance(&mut self, r: Region) -> bool {
        match *self.ssa.get(r) {
            1 => return false,
            2 => return true,
            _ => {}
        }
        let v = self.compute_ssa_dominance(r);
        self.ssa.set(r, if v { 2 } else { 1 });
        v
    }

    fn compute_ssa_dominance(&self, r: Region) -> bool {
        if self.num_blocks(r) != 1 {
            return true;
        }
        let name = match self.body.region_parent_op(r) {
            Some(op) => self.body.op_name(op),
            None => self.body.name(),
        };
        match self.ctx.op_def(name) {
            None => false,
            Some(def) => !def.has(Traits::GraphRegion),
        }
    }

    fn tree(&mut self, r: Region) -> &DomTree {
        if !self.trees.contains_key(&r) {
            let t = DomTree::build(self.body, r, &self.block_index);
            self.trees.insert(r, t);
        }
        &self.trees[&r]
    }

    /// True if `b` is reachable from the entry block of its region.
    pub(super) fn is_reachable(&mut self, b: Block) -> bool {
        let Some(r) = self.body.block_region(b) else { return false };
        if self.body.entry_block(r) == Some(b) {
            return true;
        }
        let i = self.block_index(b);
        self.tree(r).reachable(i)
    }

    /// The ancestor of `op` (or `op` itself) that sits directly in region `r`.
    fn ancestor_in_region(&self, r: Region, mut op: Op) -> Option<Op> {
        loop {
            let b = self.body.op_block(op)?;
            if self.body.block_region(b) == Some(r) {
                return Some(op);
            }
            op = self.body.parent_op(op)?;
        }
    }

    /// MLIR's `properlyDominatesImpl` on (block, position) pairs.
    fn properly_dominates_impl(
        &mut self,
        a_block: Block,
        a_pos: Pos,
        mut b_block: Block,
        mut b_pos: Pos,
        enclosing_ok: bool,
    ) -> bool {
        let Some(a_region) = self.body.block_region(a_block) else { return false };
        if a_block == b_block && a_pos == b_pos {
            return !self.has_ssa_dominance(a_region);
        }
        if self.body.block_region(b_block) != Some(a_region) {
            let Some(parent) = self.body.block_parent_op(b_block) else { return false };
            let Some(anc) = self.ancestor_in_region(a_region, parent) else { return false };
            let Some(ab) = self.body.op_block(anc) else { return false };
            b_block = ab;
            b_pos = Pos::At(anc);
            if a_block == b_block && a_pos == b_pos && enclosing_ok {
                return true;
            }
        }
        if a_block == b_block {
            if !self.has_ssa_dominance(a_region) {
                return true;
            }
            return match (a_pos, b_pos) {
                (x, y) if x == y => false,
                (Pos::Begin, _) => true,
                (_, Pos::Begin) => false,
                (Pos::At(x), Pos::At(y)) => self.op_pos.get(x) < self.op_pos.get(y),
            };
        }
        let (ai, bi) = (self.block_index(a_block), self.block_index(b_block));
        self.tree(a_region).properly_dominates(ai, bi)
    }

    /// MLIR's `DominanceInfo::properlyDominates(Value, Operation*)`: a block argument dominates
    /// everything its block dominates (including its own block); an op result dominates what
    /// its op properly dominates, but not the op's own regions.
    pub(super) fn value_dominates(&mut self, v: Value, user: Op) -> bool {
        let Some(user_block) = self.body.op_block(user) else { return false };
        match self.body.value_def(v) {
            ValueDef::Arg { block, .. } => {
                block == user_block || self.properly_dominates_impl(block, Pos::Begin, user_block, Pos::Begin, true)
            }
            ValueDef::Result { op, .. } => {
                let Some(def_block) = self.body.op_block(op) else { return false };
                self.properly_dominates_impl(def_block, Pos::At(op), user_block, Pos::At(user), false)
            }
        }
    }
}
