//! `fuse`: groups producer-consumer chains of `tensor` ops into `tensor.fused` regions, one
//! per future loop nest: elementwise chains (with broadcasts, casts, `cmp`, `select`),
//! elementwise producers of a reduction (`reduce`, `softmax`, `layer_norm`), and elementwise
//! consumers of a `matmul` (its epilogue). What an op may be is its [`FusionRole`], declared
//! with the op (`interfaces: [FusionRole => ...]` in `tensor/mod.rs`). Cheap multi-user values
//! are recomputed inside a region; expensive ones stay region outputs. Nothing moves across a
//! non-`tensor` op. The rules are written down in `docs/fuse.md`.

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xcs_dialects::shape::{broadcastable_to, num_elements, ranked};
use xcs_dialects::tensor::{FusedOp, YieldOp};
use xcs_ir::clone::Cloner;
use xcs_ir::entity::EntityRef;
use xcs_ir::interfaces::{fusion_role, FusionRole};
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{rewrite_each_body, IntKind, OptionKind, OptionSpec, Pass, PassInfo, PassOptions, PassResult};
use xcs_ir::{AttrKind, Block, Body, Context, DiagSink, LocKind, Location, Op, OpName, OperationState, Region, Value};

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "max-ops",
        kind: OptionKind::Int(IntKind::UInt),
        default: "32",
        description: "Maximum number of ops in one fused region (cloned constants not counted)",
    },
    OptionSpec {
        name: "recompute",
        kind: OptionKind::Bool,
        default: "true",
        description: "Recompute cheap multi-user values (and broadcast producers) inside a region",
    },
    OptionSpec {
        name: "max-recompute",
        kind: OptionKind::Int(IntKind::UInt),
        default: "4",
        description: "Maximum number of recomputed ops per region",
    },
    OptionSpec {
        name: "reductions",
        kind: OptionKind::Bool,
        default: "true",
        description: "Fuse elementwise producers into reduce, softmax and layer_norm",
    },
    OptionSpec {
        name: "epilogue",
        kind: OptionKind::Bool,
        default: "true",
        description: "Fuse elementwise consumers into a matmul's epilogue",
    },
];

pub const INFO: PassInfo = PassInfo {
    argument: "fuse",
    name: "Fuse",
    summary: "Fuse tensor ops into tensor.fused regions",
    description: "Groups `tensor` ops into `tensor.fused` regions, each of which the lowering \
turns into one loop nest. What each op may be comes from its declaration: the fusion role \
(`FusionRole`) the op declares, elementwise (cheap or not), reduction, matmul epilogue or \
opaque (the default). Three kinds of region, each with at most one anchor: (1) \
**elementwise**: a producer-consumer chain of elementwise ops (`add` ... `gelu`, `cmp`, \
`select`, `cast`, `broadcast_to`) whose results all have one shape, the iteration space; \
(2) **reduction**: a reduction (`reduce`, `softmax` or `layer_norm`; the anchor, the only \
result) with its elementwise producers; (3) **matmul epilogue**: a `matmul` (role matmul \
epilogue) followed by the elementwise ops that consume its result (bias add, activation, \
residual add), when they have the matmul's result shape. Operands of the region become its inputs; splat constants and constants of at \
most 64 elements are copied in.\n\n\
Recompute rule: a value with users outside the region is copied into the region (and the \
original kept for the other users) only if its op is declared cheap (`add`, `sub`, `mul`, \
`max`, `min`, `neg`, `abs`, `relu`, `cmp`, `select`, `cast`, `broadcast_to`: no division, `pow` \
or transcendental), the region has recomputed fewer than `max-recompute` ops, and every other \
user is an elementwise op or reduction of the same segment (so the original may vanish; a \
value needed materialized anyway is read, not recomputed). An internal producer of a smaller \
shape, which the region broadcasts, is recomputed once per element of the iteration space and \
so needs a cheap op and the budget too. Otherwise the value stays a region output (in an \
elementwise or epilogue region, when all its other users come after the region) or is not \
fused (the region reads it as an input).\n\n\
Never fused: ops in different blocks; ops separated by any op outside the `tensor` dialect \
(`xcs.*` orchestration ops, `func.call`, `cf.*`, unregistered ops: each splits a block into \
segments and a region lies in one segment); opaque ops (`transpose`, `reshape`, `slice`, \
`concat`, `gather`, `einsum`, large constants); producers of a `matmul` (no prologue); two anchors in one \
region; a producer whose shape does not broadcast to the region's iteration space. The \
contents of existing `tensor.fused` ops are left alone. Regions of fewer than two ops are not \
made. Options: `max-ops` (ops per region), `recompute` and `max-recompute` (the recompute \
rule), `reductions` and `epilogue` (turn the reduction and matmul kinds off). See `docs/fuse.md`.",
    options: OPTIONS,
    factory: |o, _| Ok(Box::new(Fuse::from_options(o))),
};

/// The pass's configuration (the pass options).
#[derive(Clone, Debug)]
pub struct Config {
    pub max_ops: usize,
    pub recompute: bool,
    pub max_recompute: usize,
    pub reductions: bool,
    pub epilogue: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_ops: 32,
            recompute: true,
            max_recompute: 4,
            reductions: true,
            epilogue: true,
        }
    }
}

/// Constants of at most this many elements (and splats of any size) are copied into regions.
pub const MAX_CLONED_CONSTANT_ELEMENTS: i64 = 64;

/// The fuse pass.
pub struct Fuse {
    pub config: Config,
}

impl Fuse {
    pub fn from_options(o: &PassOptions) -> Self {
        let nonneg = |v: i128| v.clamp(0, usize::MAX as i128) as usize;
        Fuse {
            config: Config {
                max_ops: nonneg(o.int("max-ops")),
                recompute: o.bool("recompute"),
                max_recompute: nonneg(o.int("max-recompute")),
                reductions: o.bool("reductions"),
                epilogue: o.bool("epilogue"),
            },
        }
    }
}

impl Pass for Fuse {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, _diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        Ok(rewrite_each_body(body, &mut |b| {
            !FusedOp::matches(ctx, b.name()) && fuse_body(ctx, b, &self.config)
        }))
    }
}

/// Fuses the ops of every block of one body (not its nested bodies). Returns whether it
/// changed anything.
pub fn fuse_body(ctx: &Context, body: &mut Body, config: &Config) -> bool {
    let mut blocks = Vec::new();
    let roots: SmallVec<[Region; 1]> = body.root_regions().into();
    for r in roots {
        collect_blocks(body, r, &mut blocks);
    }
    let mut names = NameClasses::default();
    let mut changed = false;
    for b in blocks {
        if body.contains_block(b) {
            changed |= fuse_block(ctx, body, b, config, &mut names);
        }
    }
    changed
}

fn collect_blocks(body: &Body, r: Region, out: &mut Vec<Block>) {
    for b in body.region_blocks(r) {
        out.push(b);
        for op in body.block_ops(b) {
            if !body.is_isolated(op) {
                for &rr in body.regions(op) {
                    collect_blocks(body, rr, out);
                }
            }
        }
    }
}

/// What the pass makes of an op (from its [`FusionRole`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    /// Role `Elementwise` (e.g. `add`, `broadcast_to`); `cheap` ones may be recomputed.
    Elementwise { cheap: bool },
    /// A `ConstantLike` op small enough to copy into regions.
    SmallConstant,
    /// Role `Reduction` (`reduce`, `softmax`, `layer_norm`): anchors that take elementwise
    /// producers.
    Reduction,
    /// Role `MatmulEpilogue` (`matmul`): an anchor that takes elementwise consumers.
    Matmul,
    /// Another `tensor` op (role `Opaque`, or not one tensor result): not fused, but ops may be
    /// fused around it.
    Other,
    /// Not a `tensor` op (orchestration, calls, control flow, unregistered): splits segments.
    Barrier,
}

/// The part of an op's [`Class`] that its name alone decides: its dialect, `ConstantLike`
/// trait and declared [`FusionRole`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum NameClass {
    /// Outside the dialect of `tensor.fused`, or unregistered.
    Barrier,
    /// A `ConstantLike` op of the dialect (copied in when small).
    Constant,
    /// Any other op of the dialect.
    Role(FusionRole),
}

/// The [`NameClass`] of each op name met so far, in a dense table indexed by [`OpName`]
/// (filled on first sight): one lookup per op instead of dialect-name compares and an
/// interface lookup per op.
#[derive(Default)]
struct NameClasses {
    table: Vec<Option<NameClass>>,
}

impl NameClasses {
    fn get(&mut self, ctx: &Context, name: OpName) -> NameClass {
        let i = name.index();
        if i >= self.table.len() {
            self.table.resize(i + 1, None);
        }
        *self.table[i].get_or_insert_with(|| name_class(ctx, name))
    }
}

fn name_class(ctx: &Context, name: OpName) -> NameClass {
    match ctx.op_def(name) {
        Some(def) if def.dialect() == FusedOp::DEF.dialect() => {
            if def.has(Traits::ConstantLike) {
                NameClass::Constant
            } else {
                NameClass::Role(fusion_role(ctx, name))
            }
        }
        _ => NameClass::Barrier,
    }
}

/// An op's class: ops outside the dialect of `tensor.fused` are barriers; the others have the
/// [`FusionRole`] their declaration gives (small `ConstantLike` ops are copied in).
fn classify(ctx: &Context, names: &mut NameClasses, body: &Body, op: Op) -> Class {
    let name_class = names.get(ctx, body.op_name(op));
    if name_class == NameClass::Barrier {
        return Class::Barrier;
    }
    // Every candidate has one ranked tensor result (the verifier holds registered ops to it).
    let one_tensor = body.num_results(op) == 1 && ranked(ctx, body.value_type(body.result(op, 0))).is_some();
    if !one_tensor || body.num_regions(op) != 0 {
        return Class::Other;
    }
    match name_class {
        NameClass::Barrier => Class::Barrier,
        NameClass::Constant if small_constant(ctx, body, op) => Class::SmallConstant,
        NameClass::Constant => Class::Other,
        NameClass::Role(FusionRole::Elementwise { cheap }) => Class::Elementwise { cheap },
        NameClass::Role(FusionRole::Reduction) => Class::Reduction,
        NameClass::Role(FusionRole::MatmulEpilogue) => Class::Matmul,
        NameClass::Role(FusionRole::Opaque) => Class::Other,
    }
}

fn small_constant(ctx: &Context, body: &Body, op: Op) -> bool {
    let Some(v) = body.attr(ctx, op, "value") else {
        return false;
    };
    match ctx.attr_kind(v) {
        AttrKind::DenseElements {
            data: xcs_ir::attrs::DenseData::Splat(_),
            ..
        } => true,
        AttrKind::DenseElements { ty, .. } => ranked(ctx, *ty)
            .and_then(|(s, _)| num_elements(s))
            .is_some_and(|n| n <= MAX_CLONED_CONSTANT_ELEMENTS),
        _ => false,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Elementwise,
    Reduction,
    Matmul,
}

/// One future `tensor.fused` op.
struct Group {
    kind: Kind,
    /// The iteration space: the result shape (elementwise, matmul) or the anchor's input shape
    /// (reduction).
    space: Vec<i64>,
    /// Position of the group's last op (its seed: groups grow towards producers).
    seed_pos: usize,
    segment: usize,
    /// Ops moved into the region.
    members: Vec<Op>,
    /// Ops copied into the region (the originals stay for their other users).
    clones: Vec<Op>,
    /// Constants copied into the region.
    consts: Vec<Op>,
    recomputed: usize,
}

impl Group {
    fn size(&self) -> usize {
        self.members.len() + self.clones.len()
    }
}

struct BlockFuser<'a> {
    ctx: &'a Context,
    config: &'a Config,
    ops: Vec<Op>,
    pos: FxHashMap<Op, usize>,
    segment: Vec<usize>,
    class: Vec<Class>,
    groups: Vec<Group>,
    member_of: FxHashMap<Op, usize>,
    cloned_in: FxHashMap<Op, SmallVec<[usize; 2]>>,
    erased: FxHashSet<Op>,
}

fn fuse_block(ctx: &Context, body: &mut Body, block: Block, config: &Config, names: &mut NameClasses) -> bool {
    let ops = body.block_op_vec(block);
    if ops.len() < 2 {
        return false;
    }
    let pos: FxHashMap<Op, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let class: Vec<Class> = ops.iter().map(|&o| classify(ctx, names, body, o)).collect();
    let mut segment = Vec::with_capacity(ops.len());
    let mut seg = 0;
    for c in &class {
        if *c == Class::Barrier {
            seg += 1;
            segment.push(usize::MAX);
            seg += 1;
        } else {
            segment.push(seg);
        }
    }
    let mut f = BlockFuser {
        ctx,
        config,
        ops,
        pos,
        segment,
        class,
        groups: Vec::new(),
        member_of: FxHashMap::default(),
        cloned_in: FxHashMap::default(),
        erased: FxHashSet::default(),
    };
    f.decide(body);
    f.materialize(body)
}

impl BlockFuser<'_> {
    /// Chooses the groups: ops from last to first; an op not yet in a group seeds one
    /// (elementwise, reduction) or joins its consumers' group (matmul).
    fn decide(&mut self, body: &Body) {
        for p in (0..self.ops.len()).rev() {
            let op = self.ops[p];
            if self.member_of.contains_key(&op) {
                continue;
            }
            match self.class[p] {
                Class::Elementwise { .. } => {
                    let space = self.shape(body, op);
                    self.seed(body, Kind::Elementwise, space, p);
                }
                Class::Reduction if self.config.reductions => {
                    let space = ranked(self.ctx, body.value_type(body.operand(op, 0)))
                        .map(|(s, _)| s.to_vec())
                        .unwrap_or_default();
                    self.seed(body, Kind::Reduction, space, p);
                }
                Class::Matmul if self.config.epilogue => self.join_epilogue(body, p),
                _ => {}
            }
        }
    }

    fn shape(&self, body: &Body, op: Op) -> Vec<i64> {
        ranked(self.ctx, body.value_type(body.result(op, 0)))
            .map(|(s, _)| s.to_vec())
            .unwrap_or_default()
    }

    fn seed(&mut self, body: &Body, kind: Kind, space: Vec<i64>, p: usize) {
        let op = self.ops[p];
        let g = self.groups.len();
        self.groups.push(Group {
            kind,
            space,
            seed_pos: p,
            segment: self.segment[p],
            members: vec![op],
            clones: Vec::new(),
            consts: Vec::new(),
            recomputed: 0,
        });
        self.member_of.insert(op, g);
        self.grow(body, g, op);
    }

    /// The position in this block of the op that `user` is (or is nested in); `usize::MAX`
    /// for a user in another block (after the block, as far as dominance goes).
    fn user_pos(&self, body: &Body, mut user: Op) -> usize {
        loop {
            if let Some(&p) = self.pos.get(&user) {
                return p;
            }
            match body.parent_op(user) {
                Some(parent) => user = parent,
                None => return usize::MAX,
            }
        }
    }

    /// Positions of the users of `op`'s results that are not members of group `g`.
    fn outside_users(&self, body: &Body, op: Op, g: usize) -> SmallVec<[usize; 4]> {
        let mut out = SmallVec::new();
        for r in body.results(op) {
            for u in body.users(r) {
                if self.member_of.get(&u) != Some(&g) {
                    out.push(self.user_pos(body, u));
                }
            }
        }
        out
    }

    fn in_group(&self, op: Op, g: usize) -> bool {
        self.member_of.get(&op) == Some(&g) || self.cloned_in.get(&op).is_some_and(|v| v.contains(&g))
    }

    /// Pulls producers into group `g`, latest first, so that every user of a producer that
    /// could join has been decided when the producer is looked at.
    fn grow(&mut self, body: &Body, g: usize, from: Op) {
        let mut heap: BinaryHeap<usize> = BinaryHeap::new();
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        self.push_producers(body, from, &mut heap);
        while let Some(p) = heap.pop() {
            if !seen.insert(p) {
                continue;
            }
            let op = self.ops[p];
            if self.try_add(body, g, p) {
                self.push_producers(body, op, &mut heap);
            }
        }
    }

    fn push_producers(&self, body: &Body, op: Op, heap: &mut BinaryHeap<usize>) {
        for v in body.operands(op) {
            if let Some(&p) = body.defining_op(v).and_then(|d| self.pos.get(&d)) {
                heap.push(p);
            }
        }
    }

    /// Adds the op at position `p` to group `g` as a member or a copy, if the rules allow.
    fn try_add(&mut self, body: &Body, g: usize, p: usize) -> bool {
        let op = self.ops[p];
        if self.member_of.contains_key(&op) || self.in_group(op, g) {
            return false;
        }
        let cheap = match self.class[p] {
            Class::SmallConstant => {
                // copied in whatever its segment: a constant is not a computation
                self.groups[g].consts.push(op);
                self.cloned_in.entry(op).or_default().push(g);
                return false;
            }
            Class::Elementwise { cheap } => cheap,
            _ => return false,
        };
        let grp = &self.groups[g];
        if self.segment[p] != grp.segment || grp.size() >= self.config.max_ops {
            return false;
        }
        let shape = self.shape(body, op);
        if !broadcastable_to(&shape, &grp.space) {
            return false;
        }
        let same = shape == grp.space;
        let may_recompute = self.config.recompute && cheap && grp.recomputed < self.config.max_recompute;
        let outside = self.outside_users(body, op, g);
        if outside.is_empty() {
            let grp = &mut self.groups[g];
            if same {
                grp.members.push(op);
                self.member_of.insert(op, g);
                return true;
            }
            if may_recompute {
                // a broadcast producer: computed once per element of the iteration space
                grp.recomputed += 1;
                grp.members.push(op);
                self.member_of.insert(op, g);
                return true;
            }
            return false;
        }
        let may_output = same && grp.kind != Kind::Reduction && outside.iter().all(|&u| u > grp.seed_pos);
        // A copy only pays when the other users may fuse the original (or copies of it) too: a
        // value that some other user needs materialized is read, not recomputed.
        if may_recompute && self.others_fusible(body, op, g) {
            let grp = &mut self.groups[g];
            grp.recomputed += 1;
            grp.clones.push(op);
            self.cloned_in.entry(op).or_default().push(g);
            return true;
        }
        if may_output {
            let grp = &mut self.groups[g];
            grp.members.push(op);
            self.member_of.insert(op, g);
            return true;
        }
        false
    }

    /// True if every user of `op` outside group `g` is an op of the same segment that may take
    /// `op` as a fused producer (elementwise, or a reduction when those fuse).
    fn others_fusible(&self, body: &Body, op: Op, g: usize) -> bool {
        let seg = self.segment[self.pos[&op]];
        body.results(op).all(|r| {
            body.users(r).filter(|u| self.member_of.get(u) != Some(&g)).all(|u| {
                self.pos.get(&u).is_some_and(|&p| {
                    self.segment[p] == seg
                        && match self.class[p] {
                            Class::Elementwise { .. } => true,
                            Class::Reduction => self.config.reductions,
                            _ => false,
                        }
                })
            })
        })
    }

    /// A `matmul` becomes the anchor of the elementwise group that consumes its result, if
    /// that group has its shape, has no anchor, and none of the matmul's operands is computed
    /// in it.
    fn join_epilogue(&mut self, body: &Body, p: usize) {
        let mm = self.ops[p];
        let shape = self.shape(body, mm);
        let mut candidates: Vec<usize> = body
            .users(body.result(mm, 0))
            .filter_map(|u| self.member_of.get(&u).copied())
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        for g in candidates {
            let grp = &self.groups[g];
            if grp.kind != Kind::Elementwise
                || grp.segment != self.segment[p]
                || grp.space != shape
                || grp.size() >= self.config.max_ops
            {
                continue;
            }
            let operand_inside = body
                .operands(mm)
                .any(|v| body.defining_op(v).is_some_and(|d| self.in_group(d, g)));
            if operand_inside {
                continue;
            }
            if !self.outside_users(body, mm, g).iter().all(|&u| u > grp.seed_pos) {
                continue;
            }
            let grp = &mut self.groups[g];
            grp.kind = Kind::Matmul;
            grp.members.push(mm);
            self.member_of.insert(mm, g);
            return;
        }
    }

    /// Builds the `tensor.fused` ops, latest group first (the order they were made in), then
    /// erases originals of copied ops that are no longer used.
    fn materialize(&mut self, body: &mut Body) -> bool {
        let mut changed = false;
        // Originals of copied ops, latest first. Once every group after an original is built,
        // it is dead if all its users read copies; erasing it before building the groups
        // before it keeps them from making its operands outputs.
        let mut copied: Vec<Op> = self.cloned_in.keys().copied().collect();
        copied.sort_by_key(|o| std::cmp::Reverse(self.pos[o]));
        let mut next = 0;
        for g in 0..self.groups.len() {
            let seed = self.groups[g].seed_pos;
            while next < copied.len() && self.pos[&copied[next]] > seed {
                changed |= self.erase_if_dead(body, copied[next]);
                next += 1;
            }
            changed |= self.build(body, g);
        }
        for &op in &copied[next..] {
            changed |= self.erase_if_dead(body, op);
        }
        changed
    }

    /// Erases `op` (not erased yet: ids of erased ops may be reused) if nothing uses it.
    fn erase_if_dead(&mut self, body: &mut Body, op: Op) -> bool {
        if !self.erased.contains(&op) && body.results(op).all(|r| !body.has_uses(r)) {
            body.erase_op(op);
            self.erased.insert(op);
            return true;
        }
        false
    }

    fn build(&mut self, body: &mut Body, g: usize) -> bool {
        let ctx = self.ctx;
        let grp = &self.groups[g];
        // liveness: outputs are member results used outside the members; then backwards
        // through the ops of the region
        let members: FxHashSet<Op> = grp.members.iter().copied().collect();
        let mut region_ops: Vec<Op> = grp
            .members
            .iter()
            .chain(&grp.clones)
            .chain(&grp.consts)
            .copied()
            .collect();
        region_ops.sort_by_key(|o| self.pos[o]);
        region_ops.dedup();
        let in_region: FxHashSet<Op> = region_ops.iter().copied().collect();
        let mut outputs: Vec<Value> = Vec::new();
        for &m in region_ops.iter().filter(|o| members.contains(o)) {
            for r in body.results(m) {
                if body.users(r).any(|u| !members.contains(&u)) {
                    outputs.push(r);
                }
            }
        }
        if outputs.is_empty() {
            return false;
        }
        let mut live: FxHashSet<Op> = FxHashSet::default();
        let mut stack: Vec<Op> = outputs.iter().filter_map(|&v| body.defining_op(v)).collect();
        while let Some(o) = stack.pop() {
            if !live.insert(o) {
                continue;
            }
            for v in body.operands(o) {
                if let Some(d) = body.defining_op(v).filter(|d| in_region.contains(d)) {
                    stack.push(d);
                }
            }
        }
        let live_ops: Vec<Op> = region_ops.iter().copied().filter(|o| live.contains(o)).collect();
        let computing = live_ops
            .iter()
            .filter(|&&o| self.class[self.pos[&o]] != Class::SmallConstant)
            .count();
        if computing < 2 {
            return false;
        }
        let mut inputs: Vec<Value> = Vec::new();
        for &o in &live_ops {
            for v in body.operands(o) {
                let internal = body.defining_op(v).is_some_and(|d| live.contains(&d));
                if !internal && !inputs.contains(&v) {
                    inputs.push(v);
                }
            }
        }
        let Some(&last) = live_ops
            .iter()
            .filter(|o| members.contains(o))
            .max_by_key(|o| self.pos[o])
        else {
            return false;
        };
        let loc = fused_loc(
            ctx,
            live_ops.iter().filter(|o| members.contains(o)).map(|&o| body.op_loc(o)),
        );
        let mut nb = Body::new(ctx, ctx.op_name(FusedOp::DEF.name), loc);
        let region = nb.add_root_region();
        let input_types: Vec<_> = inputs.iter().map(|&v| body.value_type(v)).collect();
        let entry = nb.create_block(&input_types);
        nb.append_block(region, entry);
        let mut cloner = Cloner::new(body);
        for (i, &v) in inputs.iter().enumerate() {
            cloner.map_value(v, nb.block_arg(entry, i));
        }
        for &o in &live_ops {
            let c = cloner.clone_op(&mut nb, o);
            nb.append_op(entry, c);
        }
        let Ok(map) = cloner.finish(&mut nb) else { return false };
        let Some(yielded) = outputs.iter().map(|&v| map.value(v)).collect::<Option<Vec<Value>>>() else {
            return false;
        };
        let y = nb.create_op(OperationState::of(ctx, YieldOp::DEF, loc).operands(&yielded));
        nb.append_op(entry, y);
        let out_types: Vec<_> = outputs.iter().map(|&v| body.value_type(v)).collect();
        let mut st = OperationState::of(ctx, FusedOp::DEF, loc)
            .operands(&inputs)
            .results(&out_types);
        st.nested = Some(Box::new(nb));
        let fused = body.create_op(st);
        body.insert_op_after(last, fused);
        for (i, &v) in outputs.iter().enumerate() {
            let r = body.result(fused, i);
            body.replace_all_uses(v, r);
        }
        let mut gone: Vec<Op> = self.groups[g].members.clone();
        gone.sort_by_key(|o| std::cmp::Reverse(self.pos[o]));
        for o in gone {
            body.erase_op(o);
            self.erased.insert(o);
        }
        true
    }
}

/// MLIR's `FusedLoc::get`: the distinct known locations, one location when only one is left.
fn fused_loc(ctx: &Context, locs: impl Iterator<Item = Location>) -> Location {
    let mut distinct: Vec<Location> = Vec::new();
    for l in locs {
        if !l.is_unknown() && !distinct.contains(&l) {
            distinct.push(l);
        }
    }
    match distinct.len() {
        0 => Location::UNKNOWN,
        1 => distinct[0],
        _ => ctx.loc(LocKind::Fused {
            metadata: None,
            locs: distinct.into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use xcs_ir::parser::{parse_module, ParseOptions};

    use super::{classify, Class, NameClasses};

    /// The class of every op of the tensor dialect, from the fusion roles their declarations
    /// give (the table of `docs/fuse.md`), and the barriers around them.
    #[test]
    fn ops_are_classified_by_their_declared_fusion_roles() {
        let ctx = crate::testing::ctx();
        let src = r#"
func.func private @g(tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>, %i: tensor<4xi64>, %m: tensor<4x4xf32>, %p: !xcs.str) -> tensor<4xf32> {
  %0 = tensor.add %x, %x : tensor<4xf32>
  %1 = tensor.max %x, %x : tensor<4xf32>
  %2 = tensor.relu %x : tensor<4xf32>
  %3 = tensor.cmp %x, %x {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = tensor.select %3, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = tensor.cast %x : (tensor<4xf32>) -> tensor<4xf64>
  %6 = tensor.broadcast_to %x : (tensor<4xf32>) -> tensor<2x4xf32>
  %7 = tensor.div %x, %x : tensor<4xf32>
  %8 = tensor.pow %x, %x : tensor<4xf32>
  %9 = tensor.exp %x : tensor<4xf32>
  %10 = tensor.gelu %x {approximate = "tanh"} : tensor<4xf32>
  %11 = tensor.reduce %x {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<4xf32>) -> tensor<f32>
  %12 = tensor.softmax %x {axis = 0} : tensor<4xf32>
  %13 = tensor.matmul %m, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %14 = tensor.transpose %m {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %15 = tensor.einsum %m {equation = "ij->j"} : (tensor<4x4xf32>) -> tensor<4xf32>
  %16 = tensor.gather %x, %i {axis = 0} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  %17 = tensor.constant {value = dense<1.0> : tensor<128xf32>} : tensor<128xf32>
  %18 = tensor.constant {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : tensor<4xf32>
  %19 = call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %20 = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  return %x : tensor<4xf32>
}
"#;
        let m = parse_module(&ctx, src, "t.mlir", &ParseOptions::default()).unwrap_or_else(|d| panic!("{}", d.message));
        let f = m.body.top_ops()[1];
        let body = m.body.nested(f).unwrap();
        let mut names = NameClasses::default();
        let classes: Vec<Class> = body.walk_ops().into_iter().map(|op| classify(&ctx, &mut names, body, op)).collect();
        let cheap = Class::Elementwise { cheap: true };
        let expensive = Class::Elementwise { cheap: false };
        let expected = [
            [cheap; 7].as_slice(),
            &[expensive; 4],
            &[Class::Reduction, Class::Reduction, Class::Matmul],
            &[Class::Other, Class::Other, Class::Other],
            // a splat of any size, a small dense constant
            &[Class::SmallConstant, Class::SmallConstant],
            &[Class::Barrier, Class::Barrier, Class::Barrier],
        ]
        .concat();
        assert_eq!(classes, expected);
    }
}
