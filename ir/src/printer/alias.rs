//! Attribute aliases as MLIR's `AliasInitializer` makes them for a top-level print:
//! `#loc`, `#loc1`, ... for locations, `#map`/`#set` for affine maps and sets, `#distinct` for
//! distinct attributes (not wrapping `unit`). A collect pass visits the IR in the order MLIR's
//! `DummyAliasOperationPrinter` does (the generic form visits regions before attributes);
//! aliases are then sorted by nesting depth and name and numbered per name. Aliases that only
//! op locations use are "deferrable" and printed after the op, the others before it.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::attrs::AttrKind;
use crate::context::{Attr, Context};
use crate::location::{LocKind, Location};
use crate::types::{Type, TypeKind};

/// What an alias (or a visited node) stands for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Key {
    Attr(Attr),
    Type(Type),
    Loc(Location),
}

struct Entry {
    key: Key,
    alias: Option<&'static str>,
    depth: u32,
    deferrable: bool,
    children: SmallVec<[u32; 2]>,
}

/// The visited nodes, in first-visit order.
#[derive(Default)]
pub(crate) struct Collector {
    index: FxHashMap<Key, u32>,
    entries: Vec<Entry>,
}

/// The alias name of a node (`None`: it gets no alias).
fn alias_name(ctx: &Context, key: Key) -> Option<&'static str> {
    match key {
        Key::Loc(_) => Some("loc"),
        Key::Type(_) => None,
        Key::Attr(a) => match ctx.attr_kind(a) {
            AttrKind::Location(_) => Some("loc"),
            AttrKind::Keyword { text, .. } if text.starts_with("affine_map<") => Some("map"),
            AttrKind::Keyword { text, .. } if text.starts_with("affine_set<") => Some("set"),
            AttrKind::Distinct { attr, .. } if !matches!(ctx.attr_kind(*attr), AttrKind::Unit) => Some("distinct"),
            _ => None,
        },
    }
}

/// True if printing `a` may involve an alias (used to skip the collect pass when none can).
pub(crate) fn is_aliasable(ctx: &Context, a: Attr) -> bool {
    alias_name(ctx, Key::Attr(a)).is_some()
}

impl Collector {
    /// A collector expecting about `n` nodes.
    pub fn with_capacity(n: usize) -> Collector {
        let mut c = Collector::default();
        c.index.reserve(n);
        c.entries.reserve(n);
        c
    }

    /// Visits a node and its children; returns (alias depth, index).
    fn visit(&mut self, ctx: &Context, key: Key, deferrable: bool, elide_type: bool) -> (u32, u32) {
        // a location used as an attribute is the same node as the location
        let key = match key {
            Key::Attr(a) => match ctx.attr_kind(a) {
                AttrKind::Location(l) => Key::Loc(*l),
                _ => key,
            },
            k => k,
        };
        if let Some(&i) = self.index.get(&key) {
            if !deferrable {
                self.mark_non_deferrable(i);
            }
            return (self.entries[i as usize].depth, i);
        }
        let i = self.entries.len() as u32;
        let alias = alias_name(ctx, key);
        self.entries.push(Entry { key, alias, depth: alias.is_some() as u32, deferrable, children: SmallVec::new() });
        self.index.insert(key, i);
        let mut children: SmallVec<[u32; 2]> = SmallVec::new();
        let mut max_depth = 0u32;
        let mut child = |this: &mut Collector, k: Key, elide: bool| {
            let (d, ci) = this.visit(ctx, k, deferrable, elide);
            children.push(ci);
            max_depth = max_depth.max(d);
        };
        match key {
            Key::Attr(a) => match ctx.attr_kind(a) {
                AttrKind::Distinct { attr, .. } => child(self, Key::Attr(*attr), false),
                AttrKind::Dictionary(entries) => {
                    for &(_, v) in entries.iter() {
                        child(self, Key::Attr(v), false);
                    }
                }
                AttrKind::Array(items) => {
                    for &x in items.iter() {
                        child(self, Key::Attr(x), false);
                    }
                }
                AttrKind::Type(t) => child(self, Key::Type(*t), false),
                AttrKind::String { ty: Some(t), .. } if !elide_type && *t != ctx.none_type() => {
                    child(self, Key::Type(*t), false)
                }
                AttrKind::DenseElements { ty, .. }
                | AttrKind::DenseResource { ty, .. }
                | AttrKind::Sparse { ty, .. }
                    if !elide_type =>
                {
                    child(self, Key::Type(*ty), false)
                }
                _ => {}
            },
            Key::Type(t) => match ctx.type_kind(t) {
                TypeKind::Function { inputs, results } => {
                    for &x in inputs.iter().chain(results.iter()) {
                        child(self, Key::Type(x), false);
                    }
                }
                TypeKind::RankedTensor { elem, encoding, .. } => {
                    child(self, Key::Type(*elem), false);
                    if let Some(e) = encoding {
                        child(self, Key::Attr(*e), false);
                    }
                }
                TypeKind::UnrankedTensor { elem } | TypeKind::Vector { elem, .. } | TypeKind::Complex(elem) => {
                    child(self, Key::Type(*elem), false)
                }
                TypeKind::MemRef { elem, layout, memory_space, .. } => {
                    child(self, Key::Type(*elem), false);
                    if let Some(l) = layout {
                        child(self, Key::Attr(*l), false);
                    }
                    if let Some(m) = memory_space {
                        child(self, Key::Attr(*m), false);
                    }
                }
                TypeKind::UnrankedMemRef { elem, memory_space } => {
                    child(self, Key::Type(*elem), false);
                    if let Some(m) = memory_space {
                        child(self, Key::Attr(*m), false);
                    }
                }
                TypeKind::Tuple(ts) => {
                    for &x in ts.iter() {
                        child(self, Key::Type(x), false);
                    }
                }
                _ => {}
            },
            Key::Loc(l) => match ctx.loc_kind(l) {
                LocKind::Name { child: Some(c), .. } if !c.is_unknown() => child(self, Key::Loc(c), false),
                LocKind::CallSite { callee, caller } => {
                    child(self, Key::Loc(callee), false);
                    child(self, Key::Loc(caller), false);
                }
                LocKind::Fused { metadata, locs } => {
                    if let Some(m) = metadata {
                        child(self, Key::Attr(m), false);
                    }
                    for &c in locs.iter() {
                        child(self, Key::Loc(c), false);
                    }
                }
                _ => {}
            },
        }
        let e = &mut self.entries[i as usize];
        e.children = children;
        if max_depth > 0 {
            e.depth = max_depth + 1;
        }
        (e.depth, i)
    }

    fn mark_non_deferrable(&mut self, i: u32) {
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            let e = &mut self.entries[i as usize];
            if !e.deferrable {
                continue;
            }
            e.deferrable = false;
            stack.extend(e.children.iter().copied());
        }
    }

    pub fn attr(&mut self, ctx: &Context, a: Attr, deferrable: bool) {
        self.visit(ctx, Key::Attr(a), deferrable, false);
    }
    pub fn attr_without_type(&mut self, ctx: &Context, a: Attr) {
        self.visit(ctx, Key::Attr(a), false, true);
    }
    pub fn ty(&mut self, ctx: &Context, t: Type) {
        self.visit(ctx, Key::Type(t), false, false);
    }
    pub fn loc(&mut self, ctx: &Context, l: Location, deferrable: bool) {
        self.visit(ctx, Key::Loc(l), deferrable, false);
    }

    /// Sorts and names the aliases.
    pub fn finish(self) -> Aliases {
        let mut list: Vec<(u32, &'static str, u32, bool)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.alias.map(|a| (e.depth, a, i as u32, e.deferrable)))
            .collect();
        list.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
        let mut counts = [0u32; 4];
        let mut numbers = vec![u32::MAX; self.entries.len()];
        let mut order = Vec::with_capacity(list.len());
        for (_, base, i, deferrable) in list {
            let b = BASES.iter().position(|&x| x == base).unwrap_or(0);
            numbers[i as usize] = ((b as u32) << 28) | counts[b];
            counts[b] += 1;
            order.push((self.entries[i as usize].key, deferrable));
        }
        Aliases { index: self.index, numbers, order }
    }
}

/// Alias base names (all MLIR's builtin dialect gives).
const BASES: [&str; 4] = ["loc", "map", "set", "distinct"];

/// The aliases of one top-level print.
#[derive(Default)]
pub(crate) struct Aliases {
    /// Every visited node's index (from the collect pass).
    index: FxHashMap<Key, u32>,
    /// Per visited node: `base << 28 | number`, or `u32::MAX` without an alias.
    numbers: Vec<u32>,
    /// Definitions in print order, with their deferrable flag.
    pub order: Vec<(Key, bool)>,
}

impl Aliases {
    /// True when nothing was collected (no alias can apply).
    pub fn is_empty(&self) -> bool {
        self.numbers.is_empty()
    }
    /// Writes `#name` if `key` has an alias.
    pub fn write(&self, key: Key, out: &mut String) -> bool {
        if self.numbers.is_empty() {
            return false;
        }
        let Some(&i) = self.index.get(&key) else { return false };
        let n = self.numbers[i as usize];
        if n == u32::MAX {
            return false;
        }
        out.push('#');
        out.push_str(BASES[(n >> 28) as usize]);
        let k = n & ((1 << 28) - 1);
        if k > 0 {
            out.push_str(itoa::Buffer::new().format(k));
        }
        true
    }
    /// The key an attribute is aliased under (locations by their location).
    pub fn attr_key(ctx: &Context, a: Attr) -> Key {
        match ctx.attr_kind(a) {
            AttrKind::Location(l) => Key::Loc(*l),
            _ => Key::Attr(a),
        }
    }
}
