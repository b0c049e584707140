//! SSA value and block numbering, computed in one pass before printing (MLIR's
//! `SSANameState`): a stack of regions, each numbered breadth-first (all block arguments and
//! op results of the region, then its nested regions). In the custom form every region
//! restarts from the counters its parent region ended with (so names restart per function
//! and sibling regions reuse numbers); in the generic form numbers are unique in the whole
//! printed op (MLIR's `shouldPrintUniqueSSAIDs`), assigned in the stack's LIFO order.
//! In the custom form an op with a [`ResultName`] interface names its results (`%sharding`),
//! made unique within the region and its ancestors with a `_N` suffix from a counter that,
//! like the value numbers, each region continues from its parent's (MLIR's
//! `getAsmResultNames` and `uniqueValueName`).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::body::{Block, Body, Op, Region, Value};
use crate::context::Context;
use crate::entity::EntityRef;
use crate::interfaces::ResultName;

/// Marks an entry-block argument (`%argN`) in a value's name.
pub(crate) const ARG: u32 = 1 << 31;
/// Marks a named value: the rest is an index into [`Names::strings`].
pub(crate) const NAMED: u32 = 1 << 30;
pub(crate) const UNNAMED: u32 = u32::MAX;

/// Names of one body's values and blocks, dense by id.
#[derive(Default)]
pub(crate) struct BodyNames {
    /// `N` for `%N` (all results of an op share their first result's number), `ARG | N` for
    /// `%argN`, `NAMED | i` for `%name` (`Names::strings[i]`), `UNNAMED` for values outside the
    /// printed scope.
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
    /// The names of named values (see [`NAMED`]).
    pub strings: Vec<String>,
    index: FxHashMap<*const Body, u32>,
}

/// The result names used in one region (MLIR's scoped `usedNames`): a name is taken if this
/// region or an enclosing one uses it.
struct NameScope {
    parent: Option<u32>,
    used: rustc_hash::FxHashSet<String>,
}

/// The scopes of the regions numbered so far, and the `_N` counter of the current region.
#[derive(Default)]
struct UniqueNames {
    scopes: Vec<NameScope>,
    next_conflict: u32,
}

impl UniqueNames {
    fn used(&self, mut scope: u32, name: &str) -> bool {
        loop {
            let s = &self.scopes[scope as usize];
            if s.used.contains(name) {
                return true;
            }
            match s.parent {
                Some(p) => scope = p,
                None => return false,
            }
        }
    }
    /// `name`, or `name_N` with the first free `N` from the counter, marked used in `scope`.
    fn unique(&mut self, scope: u32, name: &str) -> String {
        let mut chosen = name.to_string();
        while self.used(scope, &chosen) {
            chosen = format!("{name}_{}", self.next_conflict);
            self.next_conflict += 1;
        }
        self.scopes[scope as usize].used.insert(chosen.clone());
        chosen
    }
    fn new_scope(&mut self, parent: Option<u32>) -> u32 {
        self.scopes.push(NameScope { parent, used: Default::default() });
        (self.scopes.len() - 1) as u32
    }
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

/// One region waiting to be numbered: its body and name table, and what it continues from
/// (the parent region's counters and name scope).
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
/// numbering (and no result names); `ctx` gives the ops' [`ResultName`]s.
pub(crate) fn number(ctx: &Context, root: Root<'_>, unique: bool) -> Names {
    let mut names = Names::default();
    let mut stack: Vec<Pending<'_>> = Vec::new();
    let mut next_value = 0u32;
    let pending = |body, table, region| Pending { body, table, region, next_value: 0, next_arg: 0, next_conflict: 0, scope: None };
    match root {
        Root::Body(b) => {
            let bi = names.add(b);
            for &r in b.root_regions() {
                stack.push(pending(b, bi, r));
            }
        }
        Root::Op(b, op) => {
            let bi = names.add(b);
            match b.nested(op) {
                Some(nb) => {
                    let ci = names.add(nb);
                    for &r in nb.root_regions() {
                        stack.push(pending(nb, ci, r));
                    }
                }
                None => {
                    for &r in b.regions(op) {
                        stack.push(pending(b, bi, r));
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
    let mut counters = Counters { next_value, next_arg: 0, unique_names: UniqueNames::default() };
    let mut nested: Vec<(&Body, u32, Region)> = Vec::new();
    while let Some(p) = stack.pop() {
        if !unique {
            counters.next_value = p.next_value;
            counters.next_arg = p.next_arg;
            counters.unique_names.next_conflict = p.next_conflict;
        }
        let scope = if unique { 0 } else { counters.unique_names.new_scope(p.scope) };
        nested.clear();
        number_region(ctx, &mut names, &p, &mut counters, scope, unique, &mut nested);
        for &(nb, ti, rr) in nested.iter() {
            let ti = if ti == u32::MAX { names.add(nb) } else { ti };
            stack.push(Pending {
                body: nb,
                table: ti,
                region: rr,
                next_value: counters.next_value,
                next_arg: counters.next_arg,
                next_conflict: counters.unique_names.next_conflict,
                scope: Some(scope),
            });
        }
    }
    names
}

/// The numbering state carried from region to region.
struct Counters {
    next_value: u32,
    next_arg: u32,
    unique_names: UniqueNames,
}

/// Numbers the blocks, block arguments and op results of one region and lists its nested
/// regions (`u32::MAX` as the table of an isolated op's body, which gets its own).
fn number_region<'b>(
    ctx: &Context,
    names: &mut Names,
    p: &Pending<'b>,
    c: &mut Counters,
    scope: u32,
    unique: bool,
    nested: &mut Vec<(&'b Body, u32, Region)>,
) {
    let (b, bi) = (p.body, p.table);
    for (ord, blk) in b.region_blocks(p.region).enumerate() {
        let t = &mut names.bodies[bi as usize];
        t.set_block(blk, ord as u32);
        let entry = ord == 0;
        for &a in b.block_args(blk) {
            if entry {
                t.set_value(a, ARG | c.next_arg);
                c.next_arg += 1;
            } else {
                t.set_value(a, c.next_value);
                c.next_value += 1;
            }
        }
        for op in b.block_ops(blk) {
            if b.num_results(op) > 0 {
                let hint = if unique { None } else { ctx.interface::<ResultName>(b.op_name(op)) };
                let n = match hint {
                    Some(ResultName(hint)) => {
                        let name = c.unique_names.unique(scope, hint);
                        names.strings.push(name);
                        NAMED | (names.strings.len() - 1) as u32
                    }
                    None => {
                        c.next_value += 1;
                        c.next_value - 1
                    }
                };
                for v in b.results(op) {
                    names.bodies[bi as usize].set_value(v, n);
                }
            }
            let t = &mut names.bodies[bi as usize];
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
}
