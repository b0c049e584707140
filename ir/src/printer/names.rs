//! SSA value and block numbering, computed in one pass before printing (MLIR's
//! `SSANameState`): a stack of regions, each numbered breadth-first (all block arguments and
//! op results of the region, then its nested regions). In the custom form every region
//! restarts from the counters its parent region ended with (so names restart per function
//! and sibling regions reuse numbers); in the generic form numbers are unique in the whole
//! printed op (MLIR's `shouldPrintUniqueSSAIDs`), assigned in the stack's LIFO order.
//! In the custom form, ops with an [`AsmResultName`] name their results (`%f`); a name already
//! used in the region or the regions around it gets a suffix `_N` from a counter that, like the
//! value numbers, each region restarts from where its parent region ended (MLIR's
//! `uniqueValueName`).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::body::{Block, Body, Op, Region, Value};
use crate::entity::EntityRef;
use crate::interfaces::AsmResultName;
use crate::Context;

/// Marks an entry-block argument (`%argN`) in a value's name.
pub(crate) const ARG: u32 = 1 << 31;
/// Marks a named value (`%name`): the rest is the name's index in [`Names::strings`].
pub(crate) const NAMED: u32 = 1 << 30;
pub(crate) const UNNAMED: u32 = u32::MAX;

/// Names of one body's values and blocks, dense by id.
#[derive(Default)]
pub(crate) struct BodyNames {
    /// `N` for `%N` (all results of an op share their first result's number), `ARG | N` for
    /// `%argN`, `NAMED | i` for a named value, `UNNAMED` for values outside the printed scope.
    pub values: Vec<u32>,
    /// The block's position in its region (`^bbN`).
    pub blocks: Vec<u32>,
    /// Predecessor blocks (one entry per successor use), only for blocks that have some.
    pub preds: FxHashMap<Block, SmallVec<[Block; 2]>>,
}

impl BodyNames {
    fn set_value(&mut self, v: Value, n: u32) {
        let i = v.index();
        if self.values.len() <= i {
            self.values.resize(i + 1, UNNAMED);
        }
        self.values[i] = n;
    }
    fn set_block(&mut self, b: Block, n: u32) {
        let i = b.index();
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, UNNAMED);
        }
        self.blocks[i] = n;
    }
    #[inline]
    pub fn value(&self, v: Value) -> u32 {
        self.values.get(v.index()).copied().unwrap_or(UNNAMED)
    }
    #[inline]
    pub fn block(&self, b: Block) -> u32 {
        self.blocks.get(b.index()).copied().unwrap_or(UNNAMED)
    }
}

/// Names of every body in the printed tree.
#[derive(Default)]
pub(crate) struct Names {
    pub bodies: Vec<BodyNames>,
    /// The names of named values (`NAMED | i`), uniqued.
    pub strings: Vec<String>,
    index: FxHashMap<*const Body, u32>,
}

impl Names {
    fn add(&mut self, b: &Body) -> u32 {
        let key = b as *const Body;
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.bodies.len() as u32;
        self.bodies.push(BodyNames::default());
        self.index.insert(key, i);
        i
    }
    /// The table of a body that was numbered (`None` for bodies outside the printed op).
    pub fn of(&self, b: &Body) -> Option<u32> {
        self.index.get(&(b as *const Body)).copied()
    }
}

/// What the numbering starts from.
pub(crate) enum Root<'b> {
    /// The op owning a body; its results (in the parent body) are not printed.
    Body(&'b Body),
    /// An op of a body (its results are numbered first, as MLIR numbers the printed op).
    Op(&'b Body, Op),
}

/// The value names in use in each region being numbered and the regions around it (MLIR's
/// `usedNames` scoped table). Entry-block arguments (`%argN`) are not entered: no
/// [`AsmResultName`] has that form.
#[derive(Default)]
struct UsedNames {
    /// (parent scope, names used in this region)
    scopes: Vec<(Option<u32>, Vec<String>)>,
}

impl UsedNames {
    fn push(&mut self, parent: Option<u32>) -> u32 {
        self.scopes.push((parent, Vec::new()));
        (self.scopes.len() - 1) as u32
    }
    fn is_used(&self, mut scope: Option<u32>, name: &str) -> bool {
        while let Some(s) = scope {
            let (parent, used) = &self.scopes[s as usize];
            if used.iter().any(|n| n == name) {
                return true;
            }
            scope = *parent;
        }
        false
    }
    /// `name`, or `name_N` with the first free `N` from `next_conflict` on, entered in `scope`.
    fn unique(&mut self, scope: u32, name: &str, next_conflict: &mut u32) -> String {
        let mut out = name.to_string();
        while self.is_used(Some(scope), &out) {
            out = format!("{name}_{next_conflict}");
            *next_conflict += 1;
        }
        self.scopes[scope as usize].1.push(out.clone());
        out
    }
}

/// One region waiting to be numbered, with the counters and the scope of names it starts from.
struct Pending<'b> {
    body: &'b Body,
    table: u32,
    region: Region,
    next_value: u32,
    next_arg: u32,
    next_conflict: u32,
    scope: Option<u32>,
}

/// Numbers everything under `root`. `unique` selects the generic form's module-wide unique
/// numbering (which names no value).
pub(crate) fn number(ctx: &Context, root: Root<'_>, unique: bool) -> Names {
    let mut names = Names::default();
    let mut used = UsedNames::default();
    let mut stack: Vec<Pending<'_>> = Vec::new();
    let (mut next_value, mut next_arg, mut next_conflict) = (0u32, 0u32, 0u32);
    let pending = |body, table, region, scope| Pending {
        body,
        table,
        region,
        next_value: 0,
        next_arg: 0,
        next_conflict: 0,
        scope,
    };
    match root {
        Root::Body(b) => {
            let bi = names.add(b);
            let top = used.push(None);
            for &r in b.root_regions() {
                stack.push(pending(b, bi, r, Some(top)));
            }
        }
        Root::Op(b, op) => {
            let bi = names.add(b);
            let top = used.push(None);
            match b.nested(op) {
                Some(nb) => {
                    let ci = names.add(nb);
                    for &r in nb.root_regions() {
                        stack.push(pending(nb, ci, r, Some(top)));
                    }
                }
                None => {
                    for &r in b.regions(op) {
                        stack.push(pending(b, bi, r, Some(top)));
                    }
                }
            }
            if b.num_results(op) > 0 {
                for v in b.results(op) {
                    names.bodies[bi as usize].set_value(v, next_value);
                }
                next_value += 1;
            }
        }
    }
    let mut nested: Vec<(&Body, u32, Region)> = Vec::new();
    while let Some(p) = stack.pop() {
        let (b, bi, r) = (p.body, p.table, p.region);
        if !unique {
            next_value = p.next_value;
            next_arg = p.next_arg;
            next_conflict = p.next_conflict;
        }
        let scope = used.push(p.scope);
        nested.clear();
        let t = &mut names.bodies[bi as usize];
        for (ord, blk) in b.region_blocks(r).enumerate() {
            t.set_block(blk, ord as u32);
            let entry = ord == 0;
            for &a in b.block_args(blk) {
                if entry {
                    t.set_value(a, ARG | next_arg);
                    next_arg += 1;
                } else {
                    t.set_value(a, next_value);
                    next_value += 1;
                }
            }
            for op in b.block_ops(blk) {
                if b.num_results(op) > 0 {
                    let hint = if unique {
                        None
                    } else {
                        ctx.interface::<AsmResultName>(b.op_name(op))
                    };
                    let n = match hint {
                        Some(AsmResultName(name)) => {
                            names.strings.push(used.unique(scope, name, &mut next_conflict));
                            NAMED | (names.strings.len() - 1) as u32
                        }
                        None => {
                            next_value += 1;
                            next_value - 1
                        }
                    };
                    for v in b.results(op) {
                        t.set_value(v, n);
                    }
                }
                for &s in b.successors(op) {
                    t.preds.entry(s).or_default().push(blk);
                }
                if b.is_isolated(op) {
                    if let Some(nb) = b.nested(op) {
                        for &rr in nb.root_regions() {
                            nested.push((nb, u32::MAX, rr));
                        }
                    }
                } else {
                    for &rr in b.regions(op) {
                        nested.push((b, bi, rr));
                    }
                }
            }
        }
        for &(nb, ti, rr) in nested.iter() {
            let ti = if ti == u32::MAX { names.add(nb) } else { ti };
            stack.push(Pending {
                body: nb,
                table: ti,
                region: rr,
                next_value,
                next_arg,
                next_conflict,
                scope: Some(scope),
            });
        }
    }
    names
}
