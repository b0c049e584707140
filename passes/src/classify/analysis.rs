//! The interprocedural classification of one symbol table's functions: each function's fixed
//! class (marker, module, declaration) or its local signals (ops, calls, signature types),
//! then one bottom-up sweep over the SCCs of the call graph (petgraph's iterative Kosaraju).
//! Linear in the size of the module: one walk per body, hash maps, SCCs once.

use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use xcs_dialects::func::ConstantOp;
use xcs_dialects::tensor::TENSOR_DIALECT;
use xcs_dialects::xcs::LlmOp;
use xcs_ir::opdef::Traits;
use xcs_ir::{Attr, AttrKind, Body, Context, Diagnostic, Ident, Op, OpName, Type, TypeKind};

use super::tables::{is_tensor_type_text, Bits, Matcher, NameMatch, HYBRID, ORCHESTRATION, TENSOR, UNKNOWN};
use crate::util;

/// Where a function's class came from (`xcs.class_source`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Marker,
    Module,
    Analysis,
    Unknown,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Marker => "marker",
            Source::Module => "module",
            Source::Analysis => "analysis",
            Source::Unknown => "unknown",
        }
    }
}

/// `xcs.class` of a set of signal bits.
pub fn class_name(bits: Bits) -> &'static str {
    match bits {
        TENSOR => "tensor",
        ORCHESTRATION => "orchestration",
        HYBRID => "hybrid",
        _ => "none",
    }
}

/// Confidences (documented in `docs/classify.md`). An explicit marker is trusted fully; the
/// function's own module nearly so; analysis evidence by kind; no source: a coin flip.
pub const CONF_MARKER: f64 = 1.0;
pub const CONF_MODULE: f64 = 0.95;
pub const CONF_UNKNOWN: f64 = 0.5;
/// A tensor-dialect op or `xcs.llm` in the body.
pub const CONF_OP: f64 = 1.0;
/// A name recognized by a module prefix (module-aware matching).
pub const CONF_PREFIX: f64 = 0.9;
/// A name recognized by the keyword sets only.
pub const CONF_KEYWORD: f64 = 0.7;
/// A tensor type in the signature only.
pub const CONF_TYPE: f64 = 0.6;
/// A fully analyzed function without any signal.
pub const CONF_NONE: f64 = 0.8;

/// Longest call path kept in the report (longer ones end in `"..."`).
pub const MAX_PATH: usize = 64;

/// The result for one function.
#[derive(Clone, Debug)]
pub struct FuncResult<'c> {
    pub op: Op,
    /// The symbol name (without `@`).
    pub name: &'c str,
    pub bits: Bits,
    pub source: Source,
    /// Array attributes of string attributes, sorted, without duplicates.
    pub tensor_ops: Attr,
    pub orchestration_ops: Attr,
    pub confidence: f64,
    pub declaration: bool,
    pub pytree_safe: Option<bool>,
    /// For hybrid functions (when paths were asked for): the call path from this function to
    /// the origin of its tensor signal, and of its orchestration signal.
    pub paths: Option<[Vec<String>; 2]>,
}

/// A name recorded in a summary, materialized only at the end.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Name<'c> {
    /// An op name, a module path, `xcs.mark` or `unknown`.
    Str(&'c str),
    /// A type's text (index into the type texts).
    Text(u32),
    /// `@` and the symbol of function `i` of the table.
    Func(usize),
    /// `@` and a symbol that is not a function of the table.
    Symbol(&'c str),
}

/// A name's text for sorting: `@` (when the flag is set) followed by the string, compared as
/// one string (byte order, which is the order of the strings).
#[derive(PartialEq, Eq)]
struct NameText<'a>(bool, &'a str);

impl Ord for NameText<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let at = |t: &Self| t.0.then_some(b'@');
        at(self).into_iter().chain(self.1.bytes()).cmp(at(other).into_iter().chain(other.1.bytes()))
    }
}

impl PartialOrd for NameText<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Why a function has a signal on one side.
#[derive(Copy, Clone, Debug)]
enum Witness<'c> {
    /// A name of its own summary (an op, a type, an unresolved call, its marker...).
    Local(Name<'c>),
    /// A call to function `i`, which has the signal.
    Callee(usize),
}

/// A function of the table.
struct Node<'c> {
    op: Op,
    name: &'c str,
    /// Marker, module or declaration: the class is known without looking at callees.
    fixed: Option<(Bits, Source)>,
    declaration: bool,
    pytree_safe: Option<bool>,
    /// Its own names, per side (tensor, orchestration).
    local: [Vec<Name<'c>>; 2],
    /// The strongest own evidence per side (0: none) and a name giving it.
    local_conf: [f64; 2],
    local_wit: [Option<Name<'c>>; 2],
    /// The table's functions it calls (no duplicates, in first-call order).
    callees: Vec<usize>,
}

/// Analysis state of one symbol table.
pub struct Analysis<'c, 'm> {
    ctx: &'c Context,
    matcher: &'m Matcher,
    texts: Vec<String>,
    /// Type -> index of its text, if it is a tensor signal.
    type_cache: FxHashMap<Type, Option<u32>>,
    /// Unregistered op name -> how its name matched.
    op_cache: FxHashMap<OpName, (Bits, f64)>,
    /// The name of `xcs.llm` in this context (from its declaration), compared per op.
    llm: OpName,
    /// Callee symbol not in the table -> how it matched.
    sym_cache: FxHashMap<Ident, (Bits, f64)>,
    /// The string attribute of each name (made once; interning costs a hash and a lock).
    str_attrs: FxHashMap<&'c str, Attr>,
    sym_attrs: FxHashMap<&'c str, Attr>,
    text_attrs: Vec<Attr>,
}

fn side(i: usize) -> Bits {
    if i == 0 {
        TENSOR
    } else {
        ORCHESTRATION
    }
}

fn name_conf(m: NameMatch) -> (Bits, f64) {
    match m {
        NameMatch::None => (0, 0.0),
        NameMatch::Prefix(b) => (b, CONF_PREFIX),
        NameMatch::Keyword(b) => (b, CONF_KEYWORD),
    }
}

/// The string attribute `"@name"` (a function's or a symbol's name in the result arrays),
/// built without formatting.
fn at_name_attr(ctx: &Context, name: &str) -> Attr {
    let mut b = Vec::with_capacity(name.len() + 1);
    b.push(b'@');
    b.extend_from_slice(name.as_bytes());
    ctx.attr(AttrKind::String { value: b.into(), ty: None })
}

/// The signals of every function after the sweep: its class bits, its confidence per side
/// and why it has each side (for the report's paths).
struct Signals<'c> {
    bits: Vec<Bits>,
    conf: Vec<[f64; 2]>,
    wit: Vec<[Option<Witness<'c>>; 2]>,
}

/// Deduplicates each function's callees (keeping first-call order) and returns the SCCs of
/// the call graph, callees first (petgraph's Kosaraju gives sinks first), and each
/// function's SCC.
fn call_graph_sccs(nodes: &mut [Node<'_>]) -> (Vec<Vec<NodeIndex>>, Vec<usize>) {
    let n = nodes.len();
    // stamp: the last caller seen
    let mut stamp = vec![usize::MAX; n];
    for (i, node) in nodes.iter_mut().enumerate() {
        node.callees.retain(|&c| std::mem::replace(&mut stamp[c], i) != i);
    }
    drop(stamp);
    let mut g: DiGraph<(), (), u32> = DiGraph::with_capacity(n, 0);
    for _ in 0..n {
        g.add_node(());
    }
    for (i, node) in nodes.iter().enumerate() {
        for &c in &node.callees {
            g.add_edge(NodeIndex::new(i), NodeIndex::new(c), ());
        }
    }
    let sccs = kosaraju_scc(&g);
    let mut scc_of = vec![0usize; n];
    for (k, scc) in sccs.iter().enumerate() {
        for v in scc {
            scc_of[v.index()] = k;
        }
    }
    (sccs, scc_of)
}

/// The sweep over the SCCs, callees first. Every function of an SCC reaches every other, so
/// at the fixed point they all have the same signals: the union of their own and of their
/// callees' outside the SCC.
// `s` indexes the two sides of several per-function arrays at once
#[allow(clippy::needless_range_loop)]
fn sweep<'c>(nodes: &[Node<'c>], sccs: &[Vec<NodeIndex>], scc_of: &[usize]) -> Signals<'c> {
    let n = nodes.len();
    let mut bits = vec![0 as Bits; n];
    let mut conf = vec![[0.0f64; 2]; n];
    let mut wit: Vec<[Option<Witness<'c>>; 2]> = vec![[None, None]; n];
    // callers of each function within its SCC (for the witnesses of SCC members)
    let mut scc_callers: FxHashMap<usize, SmallVec<[usize; 2]>> = FxHashMap::default();
    for (k, scc) in sccs.iter().enumerate() {
        let members: SmallVec<[usize; 4]> = scc.iter().map(|v| v.index()).collect();
        let mut b: Bits = 0;
        let mut c = [0.0f64; 2];
        for &m in &members {
            let node = &nodes[m];
            if let Some((fb, _)) = node.fixed {
                b |= fb;
                c = node.local_conf;
                for s in 0..2 {
                    wit[m][s] = node.local_wit[s].map(Witness::Local);
                }
                continue;
            }
            for s in 0..2 {
                if node.local_conf[s] > 0.0 {
                    b |= side(s);
                    c[s] = c[s].max(node.local_conf[s]);
                    wit[m][s] = node.local_wit[s].map(Witness::Local);
                }
            }
            for &callee in &node.callees {
                if scc_of[callee] == k {
                    if members.len() > 1 {
                        scc_callers.entry(callee).or_default().push(m);
                    }
                    continue;
                }
                for s in 0..2 {
                    if bits[callee] & side(s) != 0 {
                        b |= side(s);
                        c[s] = c[s].max(conf[callee][s]);
                        let better = match wit[m][s] {
                            None => true,
                            Some(Witness::Local(_)) => conf[callee][s] > nodes[m].local_conf[s],
                            Some(Witness::Callee(o)) => conf[callee][s] > conf[o][s],
                        };
                        if better {
                            wit[m][s] = Some(Witness::Callee(callee));
                        }
                    }
                }
            }
        }
        for &m in &members {
            bits[m] = b;
            conf[m] = c;
        }
        if members.len() > 1 {
            scc_witnesses(&members, b, &mut scc_callers, &mut wit);
        }
    }
    Signals { bits, conf, wit }
}

/// Members of a cyclic SCC without direct evidence of a side get it from an SCC callee
/// closer to a member that has it (breadth-first over reversed SCC edges: no cycles).
// `s` indexes the two sides of the witnesses
#[allow(clippy::needless_range_loop)]
fn scc_witnesses<'c>(
    members: &[usize],
    bits: Bits,
    scc_callers: &mut FxHashMap<usize, SmallVec<[usize; 2]>>,
    wit: &mut [[Option<Witness<'c>>; 2]],
) {
    for s in 0..2 {
        if bits & side(s) == 0 {
            continue;
        }
        let mut queue: std::collections::VecDeque<usize> = members.iter().copied().filter(|&m| wit[m][s].is_some()).collect();
        while let Some(x) = queue.pop_front() {
            if let Some(callers) = scc_callers.get(&x) {
                for &p in callers {
                    if wit[p][s].is_none() {
                        wit[p][s] = Some(Witness::Callee(x));
                        queue.push_back(p);
                    }
                }
            }
        }
    }
    for m in members {
        scc_callers.remove(m);
    }
}

impl<'c, 'm> Analysis<'c, 'm> {
    pub fn new(ctx: &'c Context, matcher: &'m Matcher) -> Self {
        Analysis {
            ctx,
            matcher,
            texts: Vec::new(),
            type_cache: FxHashMap::default(),
            op_cache: FxHashMap::default(),
            llm: ctx.op_name(LlmOp::DEF.name),
            sym_cache: FxHashMap::default(),
            str_attrs: FxHashMap::default(),
            sym_attrs: FxHashMap::default(),
            text_attrs: Vec::new(),
        }
    }

    /// Classifies the functions directly in `table` (a symbol table's body). Malformed
    /// `xcs.mark`, `xcs.module` or `xcs.pytree_safe` attributes are errors.
    pub fn run(&mut self, table: &Body, want_paths: bool) -> Result<Vec<FuncResult<'c>>, Vec<Diagnostic>> {
        let ctx = self.ctx;
        let ops = table.top_ops();
        let mut nodes: Vec<Node<'c>> = Vec::with_capacity(ops.len());
        let mut errors = Vec::new();
        for op in ops {
            if !util::has_trait(ctx, table, op, Traits::FunctionLike) || !table.is_isolated(op) {
                continue;
            }
            let Some(name) = util::symbol_name(ctx, table, op) else {
                continue;
            };
            match self.fixed_class(table, op, name) {
                Ok((fixed, local, declaration, pytree_safe)) => nodes.push(Node {
                    op,
                    name,
                    fixed: fixed.map(|(b, s, _)| (b, s)),
                    declaration,
                    pytree_safe,
                    local_conf: match fixed {
                        Some((b, _, c)) => [
                            if b & TENSOR != 0 { c } else { 0.0 },
                            if b & ORCHESTRATION != 0 { c } else { 0.0 },
                        ],
                        None => [0.0; 2],
                    },
                    local_wit: [local[0].first().copied(), local[1].first().copied()],
                    local,
                    callees: Vec::new(),
                }),
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // by interned identifier: a call's callee is one (`@f`), so a lookup hashes a u32
        let index: FxHashMap<Ident, usize> = nodes.iter().enumerate().map(|(i, n)| (ctx.ident(n.name), i)).collect();
        // the body of each function that is analyzed
        for node in nodes.iter_mut() {
            if node.fixed.is_none() {
                if let Some(fb) = table.nested(node.op) {
                    self.scan_body(fb, &index, node);
                }
                self.scan_signature(table, node);
            }
        }
        Ok(self.propagate(nodes, want_paths))
    }

    /// Priorities 1 and 2, and declarations: `(fixed (bits, source, confidence), its names
    /// per side, is a declaration, xcs.pytree_safe)`.
    #[allow(clippy::type_complexity)]
    fn fixed_class(
        &mut self,
        table: &Body,
        op: Op,
        name: &'c str,
    ) -> Result<(Option<(Bits, Source, f64)>, [Vec<Name<'c>>; 2], bool, Option<bool>), Diagnostic> {
        let ctx = self.ctx;
        let err = |m: String| Diagnostic::op_error(ctx, table, op, m);
        let pytree_safe = match table.attr(ctx, op, "xcs.pytree_safe") {
            None => None,
            Some(a) => Some(
                ctx.as_bool(a)
                    .ok_or_else(|| err("attribute 'xcs.pytree_safe' must be a bool (true or false)".into()))?,
            ),
        };
        let declaration = table
            .nested(op)
            .is_none_or(|b| b.root_regions().first().is_none_or(|&r| b.region_is_empty(r)));
        let both = |n: Name<'c>, bits: Bits| -> [Vec<Name<'c>>; 2] {
            [
                if bits & TENSOR != 0 { vec![n] } else { vec![] },
                if bits & ORCHESTRATION != 0 { vec![n] } else { vec![] },
            ]
        };
        // 1. an explicit marker is trusted, nothing else is looked at
        if let Some(a) = table.attr(ctx, op, "xcs.mark") {
            let bits = match ctx.as_str(a) {
                Some("tensor") => TENSOR,
                Some("orchestration") => ORCHESTRATION,
                Some("hybrid") => HYBRID,
                _ => {
                    return Err(err(format!(
                        "attribute 'xcs.mark' must be \"tensor\", \"orchestration\" or \"hybrid\", got {}",
                        xcs_ir::printer::attr_to_string(ctx, a)
                    )))
                }
            };
            return Ok((
                Some((bits, Source::Marker, CONF_MARKER)),
                both(Name::Str("xcs.mark"), bits),
                declaration,
                pytree_safe,
            ));
        }
        // 2. the function's own module
        if let Some(a) = table.attr(ctx, op, "xcs.module") {
            let Some(module) = ctx.as_str(a) else {
                return Err(err(
                    "attribute 'xcs.module' must be a string (a dotted module path)".into()
                ));
            };
            let bits = self.matcher.match_module(module);
            if bits != 0 {
                return Ok((
                    Some((bits, Source::Module, CONF_MODULE)),
                    both(Name::Str(module), bits),
                    declaration,
                    pytree_safe,
                ));
            }
        }
        if !declaration {
            return Ok((None, [vec![], vec![]], false, pytree_safe));
        }
        // 3. no source: the symbol name with module-aware matching, else unknown (hybrid)
        let (bits, conf) = name_conf(self.matcher.match_name(name));
        if bits != 0 {
            // Func(usize::MAX) is resolved to the function itself in `propagate`
            return Ok((
                Some((bits, Source::Analysis, conf)),
                both(Name::Func(usize::MAX), bits),
                true,
                pytree_safe,
            ));
        }
        Ok((
            Some((HYBRID, Source::Unknown, CONF_UNKNOWN)),
            both(Name::Str(UNKNOWN), HYBRID),
            true,
            pytree_safe,
        ))
    }

    fn add_local(node: &mut Node<'c>, bits: Bits, name: Name<'c>, conf: f64) {
        for s in 0..2 {
            if bits & side(s) != 0 {
                node.local[s].push(name);
                if conf > node.local_conf[s] {
                    node.local_conf[s] = conf;
                    node.local_wit[s] = Some(name);
                }
            }
        }
    }

    /// Priority 3: the ops of the body (and of bodies nested in it).
    fn scan_body(&mut self, fb: &Body, index: &FxHashMap<Ident, usize>, node: &mut Node<'c>) {
        let ctx = self.ctx;
        fb.for_each_body(&mut |b| {
            for op in b.walk_ops() {
                let on = b.op_name(op);
                match ctx.op_def(on) {
                    Some(def) => {
                        let name = ctx.op_name_str(on);
                        if def.dialect() == TENSOR_DIALECT.name {
                            Self::add_local(node, TENSOR, Name::Str(name), CONF_OP);
                        } else if on == self.llm {
                            Self::add_local(node, ORCHESTRATION, Name::Str(name), CONF_OP);
                        } else if def.has(Traits::CallLike) || def.is::<ConstantOp>() {
                            // a call, or a function taken as a value (`func.constant`) to be
                            // called indirectly: either way the function runs from here
                            let key = if def.has(Traits::CallLike) { "callee" } else { "value" };
                            let Some(callee) = b.attr(ctx, op, key) else {
                                continue;
                            };
                            let Some(sym) = self.callee_symbol(callee) else {
                                continue;
                            };
                            match index.get(&sym) {
                                Some(&j) => node.callees.push(j), // deduplicated in `propagate`
                                None => {
                                    let text = ctx.str(sym);
                                    let (bits, conf) = *self
                                        .sym_cache
                                        .entry(sym)
                                        .or_insert_with(|| name_conf(self.matcher.match_name(text)));
                                    Self::add_local(node, bits, Name::Symbol(text), conf);
                                }
                            }
                        }
                    }
                    None => {
                        let (bits, conf) = *self
                            .op_cache
                            .entry(on)
                            .or_insert_with(|| name_conf(self.matcher.match_name(ctx.op_name_str(on))));
                        if bits != 0 {
                            Self::add_local(node, bits, Name::Str(ctx.op_name_str(on)), conf);
                        }
                    }
                }
            }
        });
    }

    /// The callee of a call: `@f` (a nested reference `@a::@b` cannot name a function of
    /// this table, and `func.call` does not allow one).
    fn callee_symbol(&self, a: Attr) -> Option<Ident> {
        match self.ctx.attr_kind(a) {
            AttrKind::SymbolRef { root, nested } if nested.is_empty() => Some(*root),
            _ => None,
        }
    }

    /// Priority 4: the argument and result types of the signature.
    fn scan_signature(&mut self, table: &Body, node: &mut Node<'c>) {
        let ctx = self.ctx;
        let Some(ft) = table.attr(ctx, node.op, "function_type").and_then(|a| ctx.as_type(a)) else {
            return;
        };
        let TypeKind::Function { inputs, results } = ctx.type_kind(ft) else {
            return;
        };
        for &t in inputs.iter().chain(results.iter()) {
            let texts = &mut self.texts;
            let idx = *self.type_cache.entry(t).or_insert_with(|| {
                let text = xcs_ir::printer::type_to_string(ctx, t);
                is_tensor_type_text(&text).then(|| {
                    texts.push(text);
                    (texts.len() - 1) as u32
                })
            });
            if let Some(i) = idx {
                Self::add_local(node, TENSOR, Name::Text(i), CONF_TYPE);
            }
        }
    }

    /// The bottom-up sweep: SCCs of the call graph (edges from analyzed functions only: a
    /// fixed function does not depend on its callees), callees first, then the results.
    fn propagate(&mut self, mut nodes: Vec<Node<'c>>, want_paths: bool) -> Vec<FuncResult<'c>> {
        let (sccs, scc_of) = call_graph_sccs(&mut nodes);
        let signals = sweep(&nodes, &sccs, &scc_of);
        self.results(&nodes, &signals, want_paths)
    }

    /// Materializes the results: names become string attributes, made once each (a
    /// function's `@name` once for all its callers).
    // `s` indexes the two sides of several per-function arrays at once
    #[allow(clippy::needless_range_loop)]
    fn results(&mut self, nodes: &[Node<'c>], signals: &Signals<'c>, want_paths: bool) -> Vec<FuncResult<'c>> {
        let n = nodes.len();
        let (bits, conf) = (&signals.bits, &signals.conf);
        let mut func_attrs: Vec<Option<Attr>> = vec![None; n];
        let mut out = Vec::with_capacity(n);
        let mut set: Vec<(Name<'c>, Attr)> = Vec::new();
        let empty = self.ctx.array_attr(&[]);
        for i in 0..n {
            let node = &nodes[i];
            let mut arrays = [empty; 2];
            for s in 0..2 {
                set.clear();
                for &nm in &node.local[s] {
                    let nm = match nm {
                        Name::Func(usize::MAX) => Name::Func(i),
                        x => x,
                    };
                    set.push((nm, self.name_attr(nodes, &mut func_attrs, nm)));
                }
                if node.fixed.is_none() {
                    for &c in &node.callees {
                        if bits[c] & side(s) != 0 {
                            set.push((Name::Func(c), self.name_attr(nodes, &mut func_attrs, Name::Func(c))));
                        }
                    }
                }
                if set.len() > 1 {
                    // by the names' text, not through their attributes (fewer memory reads)
                    set.sort_unstable_by(|a, b| self.text_of(nodes, a.0).cmp(&self.text_of(nodes, b.0)));
                    set.dedup_by_key(|x| x.1);
                }
                if !set.is_empty() {
                    arrays[s] = self.ctx.attr(AttrKind::Array(set.iter().map(|x| x.1).collect()));
                }
            }
            let b = bits[i];
            let (source, confidence) = match node.fixed {
                Some((_, s)) => (s, conf[i][0].max(conf[i][1])),
                None => (
                    Source::Analysis,
                    match b {
                        TENSOR => conf[i][0],
                        ORCHESTRATION => conf[i][1],
                        HYBRID => conf[i][0].min(conf[i][1]),
                        _ => CONF_NONE,
                    },
                ),
            };
            let paths = (want_paths && b == HYBRID).then(|| [0, 1].map(|s| self.path(nodes, &signals.wit, i, s)));
            out.push(FuncResult {
                op: node.op,
                name: node.name,
                bits: b,
                source,
                tensor_ops: arrays[0],
                orchestration_ops: arrays[1],
                confidence,
                declaration: node.declaration,
                pytree_safe: node.pytree_safe,
                paths,
            });
        }
        out
    }

    /// The string attribute of a name.
    fn name_attr(&mut self, nodes: &[Node<'c>], func_attrs: &mut [Option<Attr>], n: Name<'c>) -> Attr {
        let ctx = self.ctx;
        match n {
            Name::Str(s) => *self.str_attrs.entry(s).or_insert_with(|| ctx.str_attr(s)),
            Name::Symbol(s) => *self.sym_attrs.entry(s).or_insert_with(|| at_name_attr(ctx, s)),
            Name::Func(i) => *func_attrs[i].get_or_insert_with(|| at_name_attr(ctx, nodes[i].name)),
            Name::Text(i) => {
                let i = i as usize;
                while self.text_attrs.len() <= i {
                    let t = ctx.str_attr(&self.texts[self.text_attrs.len()]);
                    self.text_attrs.push(t);
                }
                self.text_attrs[i]
            }
        }
    }

    /// The text of a name, as a sorting key.
    fn text_of<'a>(&'a self, nodes: &'a [Node<'c>], n: Name<'c>) -> NameText<'a> {
        match n {
            Name::Str(s) => NameText(false, s),
            Name::Text(i) => NameText(false, &self.texts[i as usize]),
            Name::Func(i) => NameText(true, nodes[i].name),
            Name::Symbol(s) => NameText(true, s),
        }
    }

    fn render(&self, nodes: &[Node<'c>], n: Name<'c>) -> String {
        match n {
            Name::Str(s) => s.to_string(),
            Name::Text(i) => self.texts[i as usize].clone(),
            Name::Func(i) => format!("@{}", nodes[i].name),
            Name::Symbol(s) => format!("@{s}"),
        }
    }

    /// The call path from function `i` to the origin of its signal on side `s`: through
    /// callees, ending at an op or name of the last function's own summary, or at a callee
    /// whose class is fixed (marker, module, declaration). Longer than [`MAX_PATH`]: cut,
    /// ending in `"..."`.
    fn path(&self, nodes: &[Node<'c>], wit: &[[Option<Witness<'c>>; 2]], mut i: usize, s: usize) -> Vec<String> {
        let mut p = vec![format!("@{}", nodes[i].name)];
        loop {
            if p.len() >= MAX_PATH {
                p.push("...".to_string());
                break;
            }
            if nodes[i].fixed.is_some() && p.len() > 1 {
                break;
            }
            match wit[i][s] {
                Some(Witness::Local(Name::Func(_))) | None => break, // the function itself
                Some(Witness::Local(nm)) => {
                    p.push(self.render(nodes, nm));
                    break;
                }
                Some(Witness::Callee(c)) => {
                    p.push(format!("@{}", nodes[c].name));
                    i = c;
                }
            }
        }
        p
    }
}
