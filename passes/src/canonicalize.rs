//! `canonicalize`: MLIR's greedy pattern rewrite driver to a fixed point. For each op on the
//! worklist: erase it if trivially dead; else fold it (`OpDef.fold` with the values of
//! constant operands, then the trait folds: commutative ops move constants to the right,
//! involutions and idempotent ops simplify); else apply its `OpDef.patterns`. Constants are
//! uniqued per region and hoisted to the entry block of the enclosing isolated region (MLIR's
//! `OperationFolder`); constants made by folding come from the op's dialect's
//! `materialize_constant`. Unreachable blocks are erased before each sweep; after it, regions
//! are simplified (unreachable blocks, dead ops and block arguments). Sweeps repeat until
//! nothing changes or `max-iterations`.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use xcs_ir::opdef::{FoldResult, OpView, Traits};
use xcs_ir::pass::{
    try_for_each_body_mut, EnumValue, IntKind, OptionKind, OptionSpec, Pass, PassInfo, PassOptions, PassResult,
};
use xcs_ir::rewrite::{RewriteEvent, Rewriter};
use xcs_ir::{Attr, Body, Context, DiagSink, Diagnostic, Location, Op, Region, Type, Value};

use crate::util;

const REGION_SIMPLIFY: &[EnumValue] = &[
    EnumValue {
        name: "disabled",
        description: "Don't run any control-flow simplification.",
    },
    EnumValue {
        name: "normal",
        description: "Perform simple control-flow simplifications (e.g. dead args elimination).",
    },
    EnumValue {
        name: "aggressive",
        description: "Perform aggressive control-flow simplification (e.g. block merging).",
    },
];

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "top-down",
        kind: OptionKind::Bool,
        default: "true",
        description: "Seed the worklist in general top-down order",
    },
    OptionSpec {
        name: "region-simplify",
        kind: OptionKind::Enum(REGION_SIMPLIFY),
        default: "normal",
        description: "Perform control flow optimizations to the region tree",
    },
    OptionSpec {
        name: "max-iterations",
        kind: OptionKind::Int(IntKind::Long),
        default: "10",
        description: "Max. iterations between applying patterns / simplifying regions",
    },
    OptionSpec {
        name: "max-num-rewrites",
        kind: OptionKind::Int(IntKind::Long),
        default: "-1",
        description: "Max. number of pattern rewrites within an iteration",
    },
    OptionSpec {
        name: "test-convergence",
        kind: OptionKind::Bool,
        default: "false",
        description: "Test only: Fail pass on non-convergence to detect cyclic pattern",
    },
    OptionSpec {
        name: "disable-patterns",
        kind: OptionKind::StrList,
        default: "",
        description: "Labels of patterns that should be filtered out during application",
    },
    OptionSpec {
        name: "enable-patterns",
        kind: OptionKind::StrList,
        default: "",
        description: "Labels of patterns that should be used during application, all other patterns are filtered out",
    },
];

pub const INFO: PassInfo = PassInfo {
    argument: "canonicalize",
    name: "Canonicalizer",
    summary: "Canonicalize operations",
    description: "A greedy worklist driver to a fixed point: ops without side effects and without \
uses are erased; ops are folded with their `fold` hooks (constant operands are given as \
attributes; folded constants are created by the dialect's materializer, uniqued and hoisted to the \
entry block); then the ops' canonicalization patterns are applied. Commutative ops get their \
constants on the right. Unreachable blocks and unused block arguments are removed.",
    options: OPTIONS,
    factory: |o, _| Ok(Box::new(Canonicalize::from_options(o))),
};

/// How much region simplification to do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RegionSimplify {
    Disabled,
    Normal,
    /// Accepted; does what `Normal` does (block merging is not implemented).
    Aggressive,
}

/// The driver's configuration (MLIR's `GreedyRewriteConfig`).
#[derive(Clone, Debug)]
pub struct Config {
    /// Sweeps before giving up (`-1`: no limit).
    pub max_iterations: i64,
    /// Pattern applications per sweep (`-1`: no limit).
    pub max_num_rewrites: i64,
    pub region_simplify: RegionSimplify,
    /// Fail the pass if no fixed point is reached.
    pub test_convergence: bool,
    pub top_down: bool,
    pub disable_patterns: Vec<String>,
    /// If not empty, only these patterns run.
    pub enable_patterns: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_iterations: 10,
            max_num_rewrites: -1,
            region_simplify: RegionSimplify::Normal,
            test_convergence: false,
            top_down: true,
            disable_patterns: Vec::new(),
            enable_patterns: Vec::new(),
        }
    }
}

/// The canonicalizer pass.
pub struct Canonicalize {
    pub config: Config,
}

impl Canonicalize {
    pub fn from_options(o: &PassOptions) -> Self {
        Canonicalize {
            config: Config {
                max_iterations: o.int("max-iterations") as i64,
                max_num_rewrites: o.int("max-num-rewrites") as i64,
                region_simplify: match o.str("region-simplify") {
                    "disabled" => RegionSimplify::Disabled,
                    "aggressive" => RegionSimplify::Aggressive,
                    _ => RegionSimplify::Normal,
                },
                test_convergence: o.bool("test-convergence"),
                top_down: o.bool("top-down"),
                disable_patterns: o.str_list("disable-patterns").to_vec(),
                enable_patterns: o.str_list("enable-patterns").to_vec(),
            },
        }
    }
}

impl Pass for Canonicalize {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let mut changed = false;
        let cfg = &self.config;
        let r = try_for_each_body_mut(body, &mut |b| {
            let out = canonicalize_body(ctx, b, cfg);
            changed |= out.changed;
            if cfg.test_convergence && !out.converged {
                diags.emit(Diagnostic::error(
                    b.loc(),
                    format!(
                        "canonicalizer did not converge within {} iterations",
                        cfg.max_iterations
                    ),
                ));
                return Err(());
            }
            Ok(())
        });
        r.map(|_| PassResult::from_changed(changed))
    }
}

/// The outcome of canonicalizing one body.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub changed: bool,
    /// The last sweep changed nothing.
    pub converged: bool,
}

/// Canonicalizes one body (not its nested bodies).
pub fn canonicalize_body(ctx: &Context, body: &mut Body, cfg: &Config) -> Outcome {
    let mut d = Driver {
        ctx,
        cfg,
        worklist: Worklist::default(),
        folder: Folder::default(),
        changed: false,
        num_rewrites: 0,
    };
    let mut iteration: i64 = 0;
    let mut again;
    loop {
        iteration += 1;
        if cfg.max_iterations >= 0 && iteration > cfg.max_iterations {
            // out of iterations while the last sweep still changed things
            again = iteration > 1;
            break;
        }
        // MLIR erases unreachable blocks every sweep, whatever `region-simplify` says (many
        // patterns are unsafe on unreachable code); before seeding, so no stale op is queued
        let unreachable = crate::region_simplify::erase_unreachable_blocks(body);
        d.seed(body);
        again = d.process(body) | unreachable;
        if cfg.region_simplify != RegionSimplify::Disabled && crate::region_simplify::simplify_regions(ctx, body) {
            again = true;
        }
        d.changed |= again;
        if !again {
            break;
        }
    }
    Outcome {
        changed: d.changed,
        converged: !again,
    }
}

/// MLIR's worklist: each op at most once, erased ops removed, popped from the back.
#[derive(Default)]
struct Worklist {
    list: Vec<Option<Op>>,
    pos: FxHashMap<Op, usize>,
}

impl Worklist {
    fn push(&mut self, op: Op) {
        if self.pos.contains_key(&op) {
            return;
        }
        self.pos.insert(op, self.list.len());
        self.list.push(Some(op));
    }
    fn remove(&mut self, op: Op) {
        if let Some(i) = self.pos.remove(&op) {
            self.list[i] = None;
        }
    }
    fn pop(&mut self) -> Option<Op> {
        while let Some(e) = self.list.pop() {
            if let Some(op) = e {
                self.pos.remove(&op);
                return Some(op);
            }
        }
        None
    }
    fn clear(&mut self) {
        self.list.clear();
        self.pos.clear();
    }
    fn reverse(&mut self) {
        self.list.reverse();
        let n = self.list.len();
        for i in self.pos.values_mut() {
            *i = n - 1 - *i;
        }
    }
}

/// MLIR's `OperationFolder`: one constant per (region, dialect, value, type), at the start of
/// the region's entry block.
#[derive(Default)]
struct Folder {
    constants: FxHashMap<(Region, &'static str, Attr, Type), Op>,
    owned: FxHashMap<Op, (Region, &'static str, Attr, Type)>,
}

impl Folder {
    fn forget(&mut self, op: Op) {
        if let Some(k) = self.owned.remove(&op) {
            if self.constants.get(&k) == Some(&op) {
                self.constants.remove(&k);
            }
        }
    }
}

/// The region constants for `op` go to: the root region of the body that contains it.
fn insertion_region(body: &Body, op: Op) -> Option<Region> {
    let mut r = body.block_region(body.op_block(op)?)?;
    while let Some(p) = body.region_parent_op(r) {
        r = body.block_region(body.op_block(p)?)?;
    }
    Some(r)
}

/// The value of a `ConstantLike` op (its fold, else its `value` attribute).
pub fn constant_value(ctx: &Context, body: &Body, op: Op) -> Option<Attr> {
    let d = util::def(ctx, body, op)?;
    if !d.has(Traits::ConstantLike) {
        return None;
    }
    if let Some(fold) = d.fold {
        let none: SmallVec<[Option<Attr>; 4]> = body.operands(op).map(|_| None).collect();
        if let Some(rs) = fold(&OpView::new(ctx, body, op), &none) {
            if let Some(FoldResult::Attr(a)) = rs.first() {
                return Some(*a);
            }
        }
    }
    body.attr(ctx, op, "value")
}

fn dialect_name(ctx: &Context, body: &Body, op: Op) -> &'static str {
    match ctx.op_def(body.op_name(op)) {
        Some(d) => d.dialect(),
        None => "",
    }
}

struct Driver<'a> {
    ctx: &'a Context,
    cfg: &'a Config,
    worklist: Worklist,
    folder: Folder,
    changed: bool,
    num_rewrites: i64,
}

impl Driver<'_> {
    /// Fills the worklist with every op (pre-order, or post-order bottom-up), uniquing and
    /// hoisting the constants on the way.
    fn seed(&mut self, body: &mut Body) {
        self.worklist.clear();
        let ops = if self.cfg.top_down {
            body.walk_ops()
        } else {
            post_order(body)
        };
        for op in ops {
            if !body.contains_op(op) {
                continue;
            }
            if self.insert_known_constant(body, op) {
                self.worklist.push(op);
            }
        }
        if self.cfg.top_down {
            self.worklist.reverse();
        }
    }

    /// MLIR's `OperationFolder::insertKnownConstant`: the first constant of each value is kept
    /// and hoisted to the front of the entry block of its insertion region (losing its
    /// location if it comes from another block), later ones are replaced by it. Returns false
    /// if `op` was a duplicate and is gone.
    fn insert_known_constant(&mut self, body: &mut Body, op: Op) -> bool {
        let ctx = self.ctx;
        let Some(value) = constant_value(ctx, body, op) else {
            return true;
        };
        if body.num_results(op) != 1 {
            return true;
        }
        let Some(block) = body.op_block(op) else {
            return true;
        };
        let after_owned =
            |body: &Body, folder: &Folder| body.prev_op(op).is_some_and(|p| folder.owned.contains_key(&p));
        if self.folder.owned.contains_key(&op) {
            if body.first_op(block) != Some(op) && !after_owned(body, &self.folder) {
                move_to_front(body, op, block);
                body.set_op_loc(op, Location::UNKNOWN);
                self.changed = true;
            }
            return true;
        }
        let Some(region) = insertion_region(body, op) else {
            return true;
        };
        let Some(entry) = body.entry_block(region) else {
            return true;
        };
        let ty = body.value_type(body.result(op, 0));
        let key = (region, dialect_name(ctx, body, op), value, ty);
        if let Some(&existing) = self.folder.constants.get(&key) {
            if existing != op && body.contains_op(existing) {
                let (from, to) = (body.result(op, 0), body.result(existing, 0));
                body.replace_all_uses(from, to);
                self.worklist.remove(op);
                body.erase_op(op);
                body.set_op_loc(existing, Location::UNKNOWN);
                self.changed = true;
                return false;
            }
        }
        if block != entry {
            move_to_front(body, op, entry);
            body.set_op_loc(op, Location::UNKNOWN);
            self.changed = true;
        } else if body.first_op(entry) != Some(op) && !after_owned(body, &self.folder) {
            move_to_front(body, op, entry);
            self.changed = true;
        }
        self.folder.constants.insert(key, op);
        self.folder.owned.insert(op, key);
        true
    }

    /// Processes the worklist; returns whether anything changed.
    fn process(&mut self, body: &mut Body) -> bool {
        let ctx = self.ctx;
        let mut changed = false;
        self.num_rewrites = 0;
        while self.cfg.max_num_rewrites < 0 || self.num_rewrites < self.cfg.max_num_rewrites {
            let Some(op) = self.worklist.pop() else { break };
            if !body.contains_op(op) {
                continue;
            }
            if util::is_trivially_dead(ctx, body, op) {
                self.erase(body, op);
                changed = true;
                continue;
            }
            let is_constant = util::has_trait(ctx, body, op, Traits::ConstantLike);
            if !is_constant && self.try_fold(body, op) {
                changed = true;
                continue;
            }
            if self.try_patterns(body, op) {
                changed = true;
            }
        }
        changed
    }

    /// Erases `op`, revisiting the ops that defined its operands.
    fn erase(&mut self, body: &mut Body, op: Op) {
        let mut inner = vec![op];
        for &r in body.regions(op) {
            body.walk_region_into(r, &mut inner);
        }
        for &o in &inner {
            for v in body.operands(o).collect::<SmallVec<[Value; 4]>>() {
                if let Some(d) = body.defining_op(v) {
                    if !inner.contains(&d) {
                        self.worklist.push(d);
                    }
                }
            }
            self.worklist.remove(o);
            self.folder.forget(o);
        }
        body.erase_op(op);
    }

    /// Replaces the results of `op` by `vals` and erases it, revisiting the users.
    fn replace(&mut self, body: &mut Body, op: Op, vals: &[Value]) {
        let results: SmallVec<[Value; 2]> = body.results(op).collect();
        for (&r, &v) in results.iter().zip(vals) {
            for u in body.users(r).collect::<SmallVec<[Op; 8]>>() {
                self.worklist.push(u);
            }
            body.replace_all_uses(r, v);
        }
        self.erase(body, op);
    }

    fn try_fold(&mut self, body: &mut Body, op: Op) -> bool {
        let ctx = self.ctx;
        let Some(def) = util::def(ctx, body, op) else {
            return false;
        };
        let consts: SmallVec<[Option<Attr>; 4]> = body
            .operands(op)
            .map(|v| body.defining_op(v).and_then(|d| constant_value(ctx, body, d)))
            .collect();
        let own: SmallVec<[Value; 2]> = body.results(op).collect();
        let folded = def
            .fold
            .and_then(|f| f(&OpView::new(ctx, body, op), &consts))
            .filter(|rs| rs.len() == own.len())
            // an in-place fold (results map to themselves) changes nothing here; a fold
            // mapping only some results to themselves is malformed: ignore both
            .filter(|rs| !rs.iter().any(|r| matches!(r, FoldResult::Value(v) if own.contains(v))));
        let results = match folded {
            Some(rs) => rs,
            None => match self.fold_traits(body, op, def.traits, &consts) {
                TraitFold::None => return false,
                TraitFold::InPlace => {
                    self.worklist.push(op);
                    return true;
                }
                TraitFold::Value(v) => SmallVec::from_elem(FoldResult::Value(v), 1),
            },
        };
        // As MLIR's greedy driver: constants for attribute results are materialized by the
        // op's dialect right before the op, with its location; the next sweep's seeding
        // uniques and hoists them.
        let materialize = ctx.dialect(def.dialect()).and_then(|d| d.materialize_constant);
        let loc = body.op_loc(op);
        let mut vals: SmallVec<[Value; 2]> = SmallVec::new();
        let mut created: SmallVec<[Op; 2]> = SmallVec::new();
        for (r, &res) in results.iter().zip(&own) {
            let v = match *r {
                FoldResult::Value(v) => Some(v),
                FoldResult::Attr(a) => {
                    let ty = body.value_type(res);
                    match materialize.and_then(|m| m(ctx, body, a, ty, loc)) {
                        Some(c) if body.num_results(c) == 1 && body.value_type(body.result(c, 0)) == ty => {
                            body.insert_op_before(op, c);
                            created.push(c);
                            Some(body.result(c, 0))
                        }
                        Some(c) => {
                            body.erase_op(c);
                            None
                        }
                        None => None,
                    }
                }
            };
            match v {
                Some(v) => vals.push(v),
                None => {
                    // cannot materialize: undo the constants made for this op
                    for c in created {
                        body.erase_op(c);
                    }
                    return false;
                }
            }
        }
        for c in created {
            self.worklist.push(c);
        }
        self.replace(body, op, &vals);
        true
    }

    /// MLIR's trait folders, tried when the op's own folder did not fold.
    fn fold_traits(&mut self, body: &mut Body, op: Op, traits: Traits, consts: &[Option<Attr>]) -> TraitFold {
        let n = body.num_operands(op);
        if traits.contains(Traits::Commutative) && n >= 2 {
            // move constant operands to the end, keeping the order otherwise
            if let Some(first) = consts.iter().position(|c| c.is_some()) {
                let ops = body.operand_vec(op);
                let mut new: SmallVec<[Value; 4]> = ops[..first].into();
                new.extend((first..n).filter(|&i| consts[i].is_none()).map(|i| ops[i]));
                new.extend((first..n).filter(|&i| consts[i].is_some()).map(|i| ops[i]));
                if new != ops {
                    body.set_operands(op, &new);
                    return TraitFold::InPlace;
                }
            }
        }
        if body.num_results(op) != 1 || n == 0 {
            return TraitFold::None;
        }
        let inner = body
            .defining_op(body.operand(op, 0))
            .filter(|&d| body.op_name(d) == body.op_name(op));
        if traits.contains(Traits::Involution) && n == 1 {
            if let Some(d) = inner {
                if body.num_operands(d) == 1 {
                    return TraitFold::Value(body.operand(d, 0));
                }
            }
        }
        if traits.contains(Traits::Idempotent) {
            if n == 1 && inner.is_some() {
                return TraitFold::Value(body.operand(op, 0));
            }
            if n == 2 && body.operand(op, 0) == body.operand(op, 1) {
                return TraitFold::Value(body.operand(op, 0));
            }
        }
        TraitFold::None
    }

    fn try_patterns(&mut self, body: &mut Body, op: Op) -> bool {
        let ctx = self.ctx;
        let Some(def) = util::def(ctx, body, op) else {
            return false;
        };
        for p in def.patterns {
            let name = p.name();
            if self.cfg.disable_patterns.iter().any(|d| d == name)
                || (!self.cfg.enable_patterns.is_empty() && !self.cfg.enable_patterns.iter().any(|e| e == name))
            {
                continue;
            }
            let mut rw = Rewriter::new(ctx, body);
            let applied = p.match_and_rewrite(op, &mut rw);
            let events = rw.take_events();
            for e in &events {
                match *e {
                    RewriteEvent::Erased(o) => {
                        self.worklist.remove(o);
                        self.folder.forget(o);
                    }
                    RewriteEvent::Created(o) | RewriteEvent::Modified(o) => {
                        if body.contains_op(o) {
                            self.worklist.push(o);
                        }
                    }
                    RewriteEvent::Replaced(v) => {
                        if body.contains_value(v) {
                            for u in body.users(v).collect::<SmallVec<[Op; 8]>>() {
                                self.worklist.push(u);
                            }
                        }
                    }
                }
            }
            if applied || !events.is_empty() {
                self.num_rewrites += 1;
                return true;
            }
        }
        false
    }
}

enum TraitFold {
    None,
    InPlace,
    Value(Value),
}

fn move_to_front(body: &mut Body, op: Op, entry: xcs_ir::Block) {
    match body.first_op(entry) {
        Some(f) if f == op => {}
        Some(f) => body.move_op_before(op, f),
        None => {
            body.detach_op(op);
            body.append_op(entry, op);
        }
    }
}

/// Ops in post-order: the ops nested in an op's regions before the op.
fn post_order(body: &Body) -> Vec<Op> {
    fn region(body: &Body, r: Region, out: &mut Vec<Op>) {
        for b in body.region_blocks(r) {
            for op in body.block_ops(b) {
                for &rr in body.regions(op) {
                    region(body, rr, out);
                }
                out.push(op);
            }
        }
    }
    let mut out = Vec::new();
    for &r in body.root_regions() {
        region(body, r, &mut out);
    }
    out
}

/// Used by the inliner's default pipeline and by tests: canonicalize with default settings.
pub fn canonicalize_default(ctx: &Context, body: &mut Body) -> bool {
    let cfg = Config::default();
    xcs_ir::pass::rewrite_each_body(body, &mut |b| canonicalize_body(ctx, b, &cfg).changed).changed()
}
