//! `cse`: common subexpression elimination, as MLIR's `CSE` pass. Effect-free ops equal in
//! name, operands (in any order for commutative ops), result types, attributes and properties
//! (and, for ops with regions, equivalent regions) are replaced by the first one that dominates them, using a scoped hash
//! table over the dominator tree of each region. Nested regions see the outer scope;
//! isolated-from-above ops start a fresh one; single-block graph regions are handled,
//! multi-block graph regions skipped (as MLIR does). Trivially dead ops are erased on the way.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{rewrite_each_body, Pass, PassInfo, PassResult};
use xcs_ir::{Attr, Block, Body, Context, DiagSink, Op, OpName, Region, Type, Value};

use crate::util::{self, DomTree};

/// The CSE pass.
pub struct Cse;

pub const INFO: PassInfo = PassInfo {
    argument: "cse",
    name: "CSE",
    summary: "Eliminate common sub-expressions",
    description: "Replaces an op by an earlier identical one (same name, operands, attributes and \
result types) that dominates it. Only ops without side effects (`Pure`) are merged; operand order \
does not matter for `Commutative` ops. Scopes follow the dominator tree of each region; nested \
regions see the values of enclosing ones, isolated ops (functions) start afresh. Unregistered ops \
are never merged (their effects are unknown).",
    options: &[],
    factory: |_, _| Ok(Box::new(Cse)),
};

impl Pass for Cse {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, _diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        Ok(rewrite_each_body(body, &mut |b| cse_body(ctx, b)))
    }
}

/// What makes two ops interchangeable (regions are compared separately).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: OpName,
    attrs: Attr,
    props: Option<Attr>,
    results: SmallVec<[Type; 2]>,
    operands: SmallVec<[Value; 4]>,
}

fn key(ctx: &Context, body: &Body, op: Op) -> Key {
    let mut operands = body.operand_vec(op);
    // MLIR's `OperationEquivalence` compares the operands of commutative ops as a multiset
    if util::has_trait(ctx, body, op, Traits::Commutative) {
        operands.sort_unstable();
    }
    Key {
        name: body.op_name(op),
        attrs: body.attrs(op),
        props: body.props(op),
        results: body.result_types(op),
        operands,
    }
}

/// A hash table whose insertions are undone when their scope ends.
#[derive(Default)]
struct ScopedMap {
    map: FxHashMap<Key, SmallVec<[Op; 1]>>,
    members: FxHashSet<Op>,
    log: Vec<(Key, Op)>,
    scopes: Vec<usize>,
}

impl ScopedMap {
    fn push(&mut self) {
        self.scopes.push(self.log.len());
    }
    fn pop(&mut self) {
        let n = self.scopes.pop().unwrap_or(0);
        while self.log.len() > n {
            let (k, op) = self.log.pop().unwrap();
            self.members.remove(&op);
            if let Some(v) = self.map.get_mut(&k) {
                v.pop();
                if v.is_empty() {
                    self.map.remove(&k);
                }
            }
        }
    }
    fn insert(&mut self, k: Key, op: Op) {
        self.map.entry(k.clone()).or_default().push(op);
        self.members.insert(op);
        self.log.push((k, op));
    }
}

struct Driver<'a> {
    ctx: &'a Context,
    known: ScopedMap,
    to_erase: Vec<Op>,
    changed: bool,
}

/// Runs CSE on one body (not its nested bodies). Returns whether it changed anything.
pub fn cse_body(ctx: &Context, body: &mut Body) -> bool {
    let mut d = Driver {
        ctx,
        known: ScopedMap::default(),
        to_erase: Vec::new(),
        changed: false,
    };
    let roots: SmallVec<[Region; 1]> = body.root_regions().into();
    for r in roots {
        d.simplify_region(body, r);
    }
    for op in std::mem::take(&mut d.to_erase) {
        if body.contains_op(op) {
            body.erase_op(op);
            d.changed = true;
        }
    }
    d.changed
}

impl Driver<'_> {
    fn simplify_region(&mut self, body: &mut Body, r: Region) {
        let Some(entry) = body.entry_block(r) else { return };
        let ssa = !util::is_graph_region(self.ctx, body, r);
        if body.next_block(entry).is_none() {
            self.known.push();
            self.simplify_block(body, entry, ssa);
            self.known.pop();
            return;
        }
        if !ssa {
            return;
        }
        // Pre-order walk of the dominator tree, one scope per block.
        let dom = DomTree::new(body, r);
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        self.known.push();
        self.simplify_block(body, entry, ssa);
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            let children = &dom.children[&b];
            if *next < children.len() {
                let c = children[*next];
                *next += 1;
                self.known.push();
                self.simplify_block(body, c, ssa);
                stack.push((c, 0));
            } else {
                self.known.pop();
                stack.pop();
            }
        }
    }

    fn simplify_block(&mut self, body: &mut Body, b: Block, ssa: bool) {
        for op in body.block_op_vec(b) {
            if !body.is_isolated(op) {
                let regions: SmallVec<[Region; 2]> = body.regions(op).into();
                for r in regions {
                    self.simplify_region(body, r);
                }
            }
            self.simplify_op(body, op, ssa);
        }
    }

    fn simplify_op(&mut self, body: &mut Body, op: Op, ssa: bool) {
        let ctx = self.ctx;
        if util::is_terminator(ctx, body, op) {
            return;
        }
        if util::is_trivially_dead(ctx, body, op) {
            self.to_erase.push(op);
            return;
        }
        // Isolated ops' contents live in another body; multi-block regions are not compared.
        if body.is_isolated(op) || body.regions(op).iter().any(|&r| multi_block(body, r)) {
            return;
        }
        if !util::is_memory_effect_free(ctx, body, op) {
            return;
        }
        let k = key(ctx, body, op);
        let existing = self
            .known
            .map
            .get(&k)
            .and_then(|cands| cands.iter().rev().copied().find(|&e| regions_equivalent(body, e, op)));
        match existing {
            Some(e) => self.replace(body, op, e, ssa),
            None => self.known.insert(k, op),
        }
    }

    fn replace(&mut self, body: &mut Body, op: Op, existing: Op, ssa: bool) {
        let pairs: SmallVec<[(Value, Value); 2]> = body.results(op).zip(body.results(existing)).collect();
        if ssa {
            for (r, e) in pairs {
                body.replace_all_uses(r, e);
            }
            self.to_erase.push(op);
        } else {
            // Graph region: ops already in the table were hashed with their operands; leave
            // their uses alone.
            for (r, e) in pairs {
                let members = &self.known.members;
                body.replace_uses_if(r, e, |_, user| !members.contains(&user));
            }
            if body.results(op).all(|v| !body.has_uses(v)) {
                self.to_erase.push(op);
            }
        }
        if body.op_loc(existing).is_unknown() && !body.op_loc(op).is_unknown() {
            let l = body.op_loc(op);
            body.set_op_loc(existing, l);
        }
        self.changed = true;
    }
}

fn multi_block(body: &Body, r: Region) -> bool {
    body.entry_block(r).is_some_and(|e| body.next_block(e).is_some())
}

/// MLIR's `OperationEquivalence::isRegionEquivalentTo` for the regions of two ops of one
/// body: same block structure, argument types, and ops equal up to the value and block
/// correspondence (locations ignored).
fn regions_equivalent(body: &Body, a: Op, b: Op) -> bool {
    let (ra, rb) = (body.regions(a), body.regions(b));
    if ra.len() != rb.len() {
        return false;
    }
    if ra.is_empty() {
        return true;
    }
    let mut vmap: FxHashMap<Value, Value> = FxHashMap::default();
    let mut bmap: FxHashMap<Block, Block> = FxHashMap::default();
    ra.iter()
        .zip(rb)
        .all(|(&x, &y)| region_eq(body, x, y, &mut vmap, &mut bmap))
}

fn region_eq(
    body: &Body,
    x: Region,
    y: Region,
    vmap: &mut FxHashMap<Value, Value>,
    bmap: &mut FxHashMap<Block, Block>,
) -> bool {
    let bx: Vec<Block> = body.region_blocks(x).collect();
    let by: Vec<Block> = body.region_blocks(y).collect();
    if bx.len() != by.len() {
        return false;
    }
    for (&p, &q) in bx.iter().zip(&by) {
        let (ap, aq) = (body.block_args(p), body.block_args(q));
        if ap.len() != aq.len()
            || ap
                .iter()
                .zip(aq)
                .any(|(&u, &v)| body.value_type(u) != body.value_type(v))
        {
            return false;
        }
        for (&u, &v) in ap.iter().zip(aq) {
            vmap.insert(u, v);
        }
        bmap.insert(p, q);
    }
    for (&p, &q) in bx.iter().zip(&by) {
        let (ox, oy) = (body.block_op_vec(p), body.block_op_vec(q));
        if ox.len() != oy.len() {
            return false;
        }
        for (&o, &w) in ox.iter().zip(&oy) {
            if body.op_name(o) != body.op_name(w)
                || body.attrs(o) != body.attrs(w)
                || body.props(o) != body.props(w)
                || body.result_types(o) != body.result_types(w)
                || body.num_operands(o) != body.num_operands(w)
                || body.is_isolated(o)
                || body.is_isolated(w)
            {
                return false;
            }
            let same_operands = body.operands(o).zip(body.operands(w)).all(|(u, v)| match vmap.get(&u) {
                Some(&m) => m == v,
                None => u == v && !defined_inside(body, u, x),
            });
            if !same_operands {
                return false;
            }
            let (so, sw) = (body.successors(o), body.successors(w));
            if so.len() != sw.len() || so.iter().zip(sw).any(|(s, t)| bmap.get(s) != Some(t)) {
                return false;
            }
            for (u, v) in body.results(o).zip(body.results(w)) {
                vmap.insert(u, v);
            }
            let (rx, ry) = (body.regions(o), body.regions(w));
            if rx.len() != ry.len() || !rx.iter().zip(ry).all(|(&s, &t)| region_eq(body, s, t, vmap, bmap)) {
                return false;
            }
        }
    }
    true
}

/// True if `v` is defined inside region `r` (used before its definition in a graph region).
fn defined_inside(body: &Body, v: Value, r: Region) -> bool {
    let Some(mut b) = body.value_block(v) else { return false };
    loop {
        let Some(br) = body.block_region(b) else { return false };
        if br == r {
            return true;
        }
        match body.region_parent_op(br).and_then(|op| body.op_block(op)) {
            Some(pb) => b = pb,
            None => return false,
        }
    }
}
