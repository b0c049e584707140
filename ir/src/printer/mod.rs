//! The MLIR text printer: MLIR's generic form (exactly as `mlir-opt --mlir-print-op-generic`
//! prints it), the uniform XCS pretty form of `Syntax::Pretty` ops, and the hand-written
//! custom forms of `Syntax::Custom` ops through [`OpAsmPrinter`] (MLIR's `OpAsmPrinter`).
//!
//! Output goes into one `String`; value names are computed once per printed op tree into
//! dense side tables ([`names`]); the texts of types and attributes are cached per call.

mod alias;
mod attr;
pub(crate) mod float;
mod names;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::attrs::AttrKind;
use crate::body::{Block, Body, Op, Region, Value, ValueDef};
use crate::context::{Attr, Context, Ident, OpName};
use crate::location::Location;
use crate::module::Module;
use crate::opdef::{OpDef, Syntax, Traits};
use crate::types::Type;

use attr::Elision;
pub(crate) use attr::{keyword_or_string_into, quoted_into};
use names::{Names, Root, ARG, NAMED, UNNAMED};

/// Prints the custom form of the op `p` is positioned on (MLIR's `Op::print`). The printer
/// has already written the results (`%0 = `) and the op name (without the default dialect
/// prefix, e.g. `return` inside a `func.func`); the hook writes the rest, starting with a
/// space, and the printer then adds the trailing location.
pub type CustomPrintFn = fn(&mut OpAsmPrinter<'_>);

/// Printer settings.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form (`--mlir-print-op-generic`).
    pub generic: bool,
    /// Print locations (`--mlir-print-debuginfo`): as `loc(#locN)` aliases defined after the
    /// module, as mlir-opt prints them, or inline with `local_scope`.
    pub debug_info: bool,
    /// `--mlir-print-local-scope`: no aliases (`#loc`, `#map`, ...); every location,
    /// type and attribute prints inline, and the module is not followed by a blank line.
    pub local_scope: bool,
}

/// Prints a module (the top-level `builtin.module` and everything in it) as mlir-opt does:
/// aliases that must come first (`#map = affine_map<...>`, `#loc1 = loc(...)` used by block
/// arguments or attributes), the module, a newline, then the aliases of op locations
/// (MLIR's `printTopLevelOperation`; mlir-opt writes one more `\n` after it).
pub fn print_module(ctx: &Context, m: &Module, opts: &PrintOptions) -> String {
    let body = &m.body;
    let mut names = names::number(ctx, Root::Body(body), opts.generic);
    if !opts.debug_info || opts.local_scope {
        // Most IR has nothing to alias: print once, and only redo it when something was.
        let mut st = PrintState::new(opts, names);
        st.out.reserve(body.total_ops().saturating_mul(if opts.debug_info { 110 } else { 90 }));
        let root = OpRef::isolated_root(body, &st.names);
        OpAsmPrinter { ctx, st: &mut st, cur: root, op_start: 0 }.print_full_op();
        if opts.local_scope {
            // mlir-opt prints the op alone (`Operation::print` with local scope)
            return st.out;
        }
        if !st.saw_aliasable {
            st.out.push('\n');
            st.file_metadata(ctx, m);
            return st.out;
        }
        names = std::mem::take(&mut st.names);
    }
    // Collect the aliases in MLIR's visiting order.
    let mut st = PrintState::new(opts, names);
    let expect = if opts.debug_info { body.total_ops() + 16 } else { 64 };
    st.collect = Some(Box::new(alias::Collector::with_capacity(expect)));
    let root = OpRef::isolated_root(body, &st.names);
    OpAsmPrinter { ctx, st: &mut st, cur: root, op_start: 0 }.print_full_op();
    let aliases = st.collect.take().map(|c| c.finish()).unwrap_or_default();
    let names = std::mem::take(&mut st.names);
    drop(st);
    // Print with them.
    let mut st = PrintState::new(opts, names);
    st.aliases = aliases;
    st.out.reserve(body.total_ops().saturating_mul(if opts.debug_info { 110 } else { 90 }));
    let order = std::mem::take(&mut st.aliases.order);
    for &(key, deferrable) in &order {
        if !deferrable {
            st.alias_definition(ctx, key);
        }
    }
    let root = OpRef::isolated_root(body, &st.names);
    OpAsmPrinter { ctx, st: &mut st, cur: root, op_start: 0 }.print_full_op();
    st.out.push('\n');
    for &(key, deferrable) in &order {
        if deferrable {
            st.alias_definition(ctx, key);
        }
    }
    st.file_metadata(ctx, m);
    st.out
}

/// Prints a module to `w` like [`print_module`], without holding the whole text in memory when
/// it can: the text is written out between top-level ops. (A module that needs aliases —
/// locations with `debug_info`, affine maps, distinct attributes — is printed whole first,
/// since its aliases are only known at the end.) Returns the writer.
pub fn print_module_to(
    ctx: &Context,
    m: &Module,
    opts: &PrintOptions,
    mut w: Box<dyn std::io::Write + Send>,
) -> std::io::Result<Box<dyn std::io::Write + Send>> {
    if opts.debug_info || opts.local_scope || ctx.may_need_aliases() {
        w.write_all(print_module(ctx, m, opts).as_bytes())?;
        return Ok(w);
    }
    let body = &m.body;
    let names = names::number(ctx, Root::Body(body), opts.generic);
    let mut st = PrintState::new(opts, names);
    st.out.reserve(1 << 21);
    st.sink = Some(w);
    let root = OpRef::isolated_root(body, &st.names);
    OpAsmPrinter { ctx, st: &mut st, cur: root, op_start: 0 }.print_full_op();
    st.out.push('\n');
    st.file_metadata(ctx, m);
    let mut w = st.sink.take().expect("the sink stays set while printing");
    if let Some(e) = st.sink_error.take() {
        return Err(e);
    }
    w.write_all(st.out.as_bytes())?;
    Ok(w)
}

/// Prints the isolated op that owns `body` (e.g. one `func.func`), as in IR dumps of a
/// function pass (MLIR's `op->print()` with local scope: names start at `%0` in it). No
/// trailing newline.
pub fn print_isolated(ctx: &Context, body: &Body, opts: &PrintOptions) -> String {
    let names = names::number(ctx, Root::Body(body), opts.generic);
    let mut st = PrintState::new(opts, names);
    // ~90 bytes per op in typical generic IR; one allocation instead of log2(n) regrowths
    st.out.reserve(body.total_ops().saturating_mul(if opts.debug_info { 120 } else { 90 }));
    let root = OpRef::isolated_root(body, &st.names);
    OpAsmPrinter { ctx, st: &mut st, cur: root, op_start: 0 }.print_full_op();
    st.out
}

/// Prints one op of `body` (and its regions) in the generic form, e.g. for "see current
/// operation" notes: value names are those of the enclosing isolated op (`body`'s owner) in
/// the generic form, and non-splat elements attributes with more than 16 elements print as
/// `dense_resource<__elided__>` (MLIR's diagnostic printing flags). No location, no newline.
pub fn print_op_generic(ctx: &Context, body: &Body, op: Op) -> String {
    if !body.contains_op(op) {
        return "<<INVALID OPERATION>>".to_string();
    }
    let root = if body.is_isolated(op) { Root::Op(body, op) } else { Root::Body(body) };
    let names = names::number(ctx, root, true);
    let opts = PrintOptions { generic: true, ..Default::default() };
    let mut st = PrintState::new(&opts, names);
    st.elide_limit = Some(16);
    let cur = OpRef::in_body(body, op, &st.names);
    OpAsmPrinter { ctx, st: &mut st, cur, op_start: 0 }.print_full_op();
    st.out
}

/// The printed form of a type.
pub fn type_to_string(ctx: &Context, t: Type) -> String {
    let mut st = PrintState::new(&PrintOptions::default(), Names::default());
    st.push_type(ctx, t);
    st.out
}

/// The printed form of an attribute (with its type, e.g. `1 : i64`).
pub fn attr_to_string(ctx: &Context, a: Attr) -> String {
    let mut st = PrintState::new(&PrintOptions::default(), Names::default());
    st.push_attr(ctx, a, Elision::Never);
    st.out
}

/// The printed form of a location, e.g. `loc("f.mlir":3:5)`.
pub fn loc_to_string(ctx: &Context, l: Location) -> String {
    let mut st = PrintState::new(&PrintOptions::default(), Names::default());
    let mut out = String::new();
    st.loc_into(ctx, l, false, &mut out);
    out
}

// ------------------------------------------------------------------------------ state

/// Everything a print call accumulates; it has no lifetime so that [`OpAsmPrinter`]s for
/// nested ops can reborrow it.
pub(crate) struct PrintState {
    pub(crate) out: String,
    generic: bool,
    debug_info: bool,
    /// Elide non-splat elements attributes larger than this (diagnostics).
    pub(crate) elide_limit: Option<u32>,
    indent: usize,
    names: Names,
    /// Cached texts: `(start, len)` into `cache`, by type / attribute index.
    pub(crate) cache: String,
    pub(crate) type_cache: Vec<(u32, u32)>,
    pub(crate) attr_cache: Vec<(u32, u32)>,
    /// Quoted op names (`"t.add"`) by op name index.
    name_cache: Vec<(u32, u32)>,
    /// `<{props}>` and `{attrs}` texts of a registered op's attribute dictionary.
    split_cache: FxHashMap<(OpName, Attr), [u32; 4]>,
    /// `distinct[N]` numbers, assigned in print order as MLIR does.
    pub(crate) distinct_ids: FxHashMap<Attr, u32>,
    /// MLIR's default-dialect stack: op names in this dialect drop their prefix.
    dialects: Vec<&'static str>,
    /// Aliases in effect (empty unless printing a whole module that needs them).
    pub(crate) aliases: alias::Aliases,
    /// Set while collecting aliases: the printer visits instead of printing.
    collect: Option<Box<alias::Collector>>,
    /// Something that would get an alias was printed.
    pub(crate) saw_aliasable: bool,
    /// Where `out` is flushed between top-level ops when streaming (see [`print_module_to`]).
    sink: Option<Box<dyn std::io::Write + Send>>,
    sink_error: Option<std::io::Error>,
    /// The `dense_resource` handles printed so far, in order, with their printed keys.
    pub(crate) resources: Vec<(crate::resources::Resource, String)>,
}

impl PrintState {
    fn new(opts: &PrintOptions, names: Names) -> PrintState {
        PrintState {
            out: String::new(),
            generic: opts.generic,
            debug_info: opts.debug_info,
            elide_limit: None,
            indent: 0,
            names,
            cache: String::new(),
            type_cache: Vec::new(),
            attr_cache: Vec::new(),
            name_cache: Vec::new(),
            split_cache: FxHashMap::default(),
            distinct_ids: FxHashMap::default(),
            dialects: vec!["builtin"],
            aliases: alias::Aliases::default(),
            collect: None,
            saw_aliasable: false,
            sink: None,
            sink_error: None,
            resources: Vec::new(),
        }
    }
    /// The index in `resources` of handle `r`, added on first use. A key already printed for
    /// another handle (IR from two parses) gets a `_N` suffix, as MLIR's blob manager renames.
    pub(crate) fn use_resource(&mut self, ctx: &Context, r: crate::resources::Resource) -> usize {
        if let Some(i) = self.resources.iter().position(|(x, _)| *x == r) {
            return i;
        }
        let key = ctx.str(ctx.resource_key(r));
        let mut name = key.to_string();
        let mut n = 0;
        while self.resources.iter().any(|(_, k)| *k == name) {
            n += 1;
            name = format!("{key}_{n}");
        }
        self.resources.push((r, name));
        self.resources.len() - 1
    }
    /// The file metadata after a printed module (`{-# dialect_resources ... #-}`), if any.
    fn file_metadata(&mut self, ctx: &Context, m: &Module) {
        crate::resources::write_file_metadata(ctx, &self.resources, &m.external_resources, &mut self.out);
    }
    /// Writes `out` to the sink once it holds enough text (streaming prints only).
    fn maybe_flush(&mut self) {
        const CHUNK: usize = 1 << 20;
        if self.out.len() < CHUNK || self.sink_error.is_some() {
            return;
        }
        if let Some(w) = self.sink.as_mut() {
            if let Err(e) = w.write_all(self.out.as_bytes()) {
                self.sink_error = Some(e);
            }
            self.out.clear();
        }
    }
    /// `#name = value` and a newline.
    fn alias_definition(&mut self, ctx: &Context, key: alias::Key) {
        let mut out = std::mem::take(&mut self.out);
        self.aliases.write(key, &mut out);
        out.push_str(" = ");
        match key {
            alias::Key::Attr(a) => self.write_attr_impl(ctx, a, Elision::Never, &mut out),
            alias::Key::Loc(l) => self.loc_into(ctx, l, false, &mut out),
            alias::Key::Type(t) => self.type_into(ctx, t, &mut out),
        }
        out.push('\n');
        self.out = out;
    }
    fn push_indent(&mut self) {
        const SPACES: &str = "                                                                ";
        let mut n = self.indent;
        while n > 0 {
            let k = n.min(SPACES.len());
            self.out.push_str(&SPACES[..k]);
            n -= k;
        }
    }
    fn push_int(&mut self, v: u32) {
        self.out.push_str(itoa::Buffer::new().format(v));
    }
}

/// The op a printer is positioned on: where its operands and results live (`outer`) and
/// where its regions live (`inner`: its nested body if it is isolated from above).
#[derive(Copy, Clone)]
struct OpRef<'a> {
    /// The body holding the op, its table, and the op (`None` for the root of
    /// [`print_isolated`], whose operands and results are not visible).
    outer: Option<(&'a Body, u32, Op)>,
    inner: &'a Body,
    inner_table: u32,
}

impl<'a> OpRef<'a> {
    fn isolated_root(body: &'a Body, names: &Names) -> OpRef<'a> {
        OpRef { outer: None, inner: body, inner_table: names.of(body).unwrap_or(u32::MAX) }
    }
    fn in_body(body: &'a Body, op: Op, names: &Names) -> OpRef<'a> {
        let t = names.of(body).unwrap_or(u32::MAX);
        match body.nested(op) {
            Some(nb) => OpRef { outer: Some((body, t, op)), inner: nb, inner_table: names.of(nb).unwrap_or(u32::MAX) },
            None => OpRef { outer: Some((body, t, op)), inner: body, inner_table: t },
        }
    }
    /// `of_op` of the op in the body holding it, or `of_root` of the root's own body.
    #[inline]
    fn get<T>(&self, of_op: impl FnOnce(&'a Body, Op) -> T, of_root: impl FnOnce(&'a Body) -> T) -> T {
        match self.outer {
            Some((b, _, op)) => of_op(b, op),
            None => of_root(self.inner),
        }
    }
    fn name(&self) -> OpName {
        self.get(Body::op_name, Body::name)
    }
    fn attrs(&self) -> Attr {
        self.get(Body::attrs, Body::self_attrs)
    }
    fn props(&self) -> Option<Attr> {
        self.get(Body::props, Body::self_props)
    }
    fn loc(&self) -> Location {
        self.get(Body::op_loc, Body::loc)
    }
    fn regions(&self) -> &'a [Region] {
        match self.outer {
            Some((b, _, op)) if !b.is_isolated(op) => b.regions(op),
            _ => self.inner.root_regions(),
        }
    }
    fn successors(&self) -> &'a [Block] {
        match self.outer {
            Some((b, _, op)) => b.successors(op),
            None => &[],
        }
    }
}

// ------------------------------------------------------------------------------ OpAsmPrinter

/// The printer handle custom op syntax is written against (MLIR's `OpAsmPrinter`). It is
/// positioned on one op ([`OpAsmPrinter::op_name`], [`OpAsmPrinter::attrs`], ...) and writes
/// into the output with the `print_*` methods. Operands and successors are values and blocks
/// of the body holding the op; regions, and the arguments of their blocks, belong to
/// [`OpAsmPrinter::region_body`] (the op's own body when it is isolated from above).
pub struct OpAsmPrinter<'a> {
    ctx: &'a Context,
    st: &'a mut PrintState,
    cur: OpRef<'a>,
    /// Where the op's name starts in the output (for [`OpAsmPrinter::fallback_to_generic`]).
    op_start: usize,
}

impl std::fmt::Write for OpAsmPrinter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.st.out.push_str(s);
        Ok(())
    }
}

impl<'a> OpAsmPrinter<'a> {
    // ---------------------------------------------------------------- the current op
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }
    /// The op's full name (e.g. `func.func`).
    pub fn op_name(&self) -> &'a str {
        self.ctx.op_name_str(self.cur.name())
    }
    pub fn def(&self) -> Option<&'static OpDef> {
        self.ctx.op_def(self.cur.name())
    }
    /// The op's attribute dictionary.
    pub fn attrs(&self) -> Attr {
        self.cur.attrs()
    }
    pub fn attr(&self, name: &str) -> Option<Attr> {
        self.ctx.dict_get(self.cur.attrs(), name)
    }
    pub fn loc(&self) -> Location {
        self.cur.loc()
    }
    /// The body holding the op's operands and results (`None` when an isolated op is printed
    /// on its own, see [`print_isolated`]).
    pub fn body(&self) -> Option<&'a Body> {
        self.cur.outer.map(|(b, _, _)| b)
    }
    /// The op itself, in [`OpAsmPrinter::body`].
    pub fn op(&self) -> Option<Op> {
        self.cur.outer.map(|(_, _, op)| op)
    }
    /// The body holding the op's regions and their blocks.
    pub fn region_body(&self) -> &'a Body {
        self.cur.inner
    }
    pub fn operands(&self) -> SmallVec<[Value; 4]> {
        match self.cur.outer {
            Some((b, _, op)) => b.operands(op).collect(),
            None => SmallVec::new(),
        }
    }
    pub fn operand_types(&self) -> SmallVec<[Type; 4]> {
        match self.cur.outer {
            Some((b, _, op)) => b.operand_types(op),
            None => SmallVec::new(),
        }
    }
    pub fn num_results(&self) -> usize {
        match self.cur.outer {
            Some((b, _, op)) => b.num_results(op),
            None => 0,
        }
    }
    pub fn result_types(&self) -> SmallVec<[Type; 2]> {
        match self.cur.outer {
            Some((b, _, op)) => b.result_types(op),
            None => SmallVec::new(),
        }
    }
    /// The type of a value of [`OpAsmPrinter::body`].
    pub fn value_type(&self, v: Value) -> Option<Type> {
        self.cur.outer.and_then(|(b, _, _)| b.contains_value(v).then(|| b.value_type(v)))
    }
    pub fn successors(&self) -> &'a [Block] {
        self.cur.successors()
    }
    pub fn regions(&self) -> &'a [Region] {
        self.cur.regions()
    }

    // ---------------------------------------------------------------- raw output
    /// Writes text as is.
    pub fn write_str(&mut self, s: &str) {
        self.st.out.push_str(s);
    }
    pub fn write_char(&mut self, c: char) {
        self.st.out.push(c);
    }
    /// A line break, then the op's indentation (MLIR's `printNewline`).
    pub fn print_newline(&mut self) {
        self.st.out.push('\n');
        self.st.push_indent();
    }
    /// `"..."` with MLIR escapes.
    pub fn print_string(&mut self, s: &str) {
        attr::quoted_into(&mut self.st.out, s.as_bytes());
    }
    /// A bare identifier, or a quoted string when it is not one.
    pub fn print_keyword_or_string(&mut self, s: &str) {
        attr::keyword_or_string_into(&mut self.st.out, s);
    }
    /// `@name` (quoted when needed).
    pub fn print_symbol_name(&mut self, name: &str) {
        attr::symbol_into(&mut self.st.out, name);
    }

    // ---------------------------------------------------------------- values and blocks
    /// A value of [`OpAsmPrinter::body`] (`%0`, `%0#1`, `%arg0`).
    pub fn print_operand(&mut self, v: Value) {
        match self.cur.outer {
            Some((b, t, _)) => self.value_name(b, t, v, true),
            None => self.st.out.push_str("<<UNKNOWN SSA VALUE>>"),
        }
    }
    /// Values separated by `, `.
    pub fn print_operands(&mut self, vs: &[Value]) {
        self.comma_separated(vs.iter().copied(), Self::print_operand);
    }
    /// `print` of each of `items`, separated by `, `.
    #[inline]
    fn comma_separated<T>(&mut self, items: impl IntoIterator<Item = T>, mut print: impl FnMut(&mut Self, T)) {
        for (i, x) in items.into_iter().enumerate() {
            if i > 0 {
                self.st.out.push_str(", ");
            }
            print(self, x);
        }
    }
    /// A block argument of one of the op's regions with its type, then `attrs` (an optional
    /// dictionary, printed unless empty) and, with debug info, its location:
    /// `%arg0: i32 {a = 1} loc(...)`.
    pub fn print_region_argument(&mut self, v: Value, attrs: Option<Attr>) {
        let (b, t) = (self.cur.inner, self.cur.inner_table);
        if self.st.collect.is_some() {
            // MLIR's alias collection visits the type and location, not the attributes
            self.collect_arg(b, v);
            return;
        }
        self.value_name(b, t, v, true);
        self.st.out.push_str(": ");
        if b.contains_value(v) {
            self.st.push_type(self.ctx, b.value_type(v));
        }
        if let Some(a) = attrs {
            self.print_optional_attr_dict(a, &[]);
        }
        if self.st.debug_info {
            self.print_arg_loc(b, v);
        }
    }
    /// A successor block (`^bb1`).
    pub fn print_successor(&mut self, b: Block) {
        match self.cur.outer {
            Some((body, t, _)) => self.block_name(body, t, b),
            None => self.st.out.push_str("<<UNKNOWN BLOCK>>"),
        }
    }
    /// `^bb1` or `^bb1(%a, %b : i32, i32)`.
    pub fn print_successor_and_use_list(&mut self, b: Block, operands: &[Value]) {
        if self.st.collect.is_some() {
            return;
        }
        self.print_successor(b);
        if operands.is_empty() {
            return;
        }
        self.st.out.push('(');
        self.print_operands(operands);
        self.st.out.push_str(" : ");
        self.comma_separated(operands.iter().copied(), |p, v| {
            if let Some(t) = p.value_type(v) {
                p.st.push_type(p.ctx, t);
            }
        });
        self.st.out.push(')');
    }

    // ---------------------------------------------------------------- types and attributes
    pub fn print_type(&mut self, t: Type) {
        if let Some(c) = self.st.collect.as_mut() {
            c.ty(self.ctx, t);
            return;
        }
        self.st.push_type(self.ctx, t);
    }
    /// Types separated by `, `.
    pub fn print_types(&mut self, ts: &[Type]) {
        self.comma_separated(ts.iter().copied(), Self::print_type);
    }
    /// `(inputs) -> results` as MLIR prints function types.
    pub fn print_function_type(&mut self, inputs: &[Type], results: &[Type]) {
        if let Some(c) = self.st.collect.as_mut() {
            for &t in inputs.iter().chain(results) {
                c.ty(self.ctx, t);
            }
            return;
        }
        let mut out = std::mem::take(&mut self.st.out);
        self.st.function_type_into(self.ctx, inputs, results, &mut out);
        self.st.out = out;
    }
    /// The op's `(operand types) -> result types` (MLIR's `printFunctionalType(op)`).
    pub fn print_functional_type(&mut self) {
        let ins = self.operand_types();
        let outs = self.result_types();
        self.print_function_type(&ins, &outs);
    }
    /// An attribute with its type (`1 : i32`).
    pub fn print_attribute(&mut self, a: Attr) {
        if let Some(c) = self.st.collect.as_mut() {
            c.attr(self.ctx, a, false);
            return;
        }
        self.st.push_attr(self.ctx, a, Elision::Never);
    }
    /// An attribute without its type (`1` for `1 : i32`; MLIR's `printAttributeWithoutType`).
    pub fn print_attribute_without_type(&mut self, a: Attr) {
        let ctx = self.ctx;
        if let Some(c) = self.st.collect.as_mut() {
            c.attr_without_type(ctx, a);
            return;
        }
        let mut s = String::new();
        self.st.attr_into(ctx, a, Elision::Never, &mut s);
        let typed = matches!(
            ctx.attr_kind(a),
            AttrKind::Integer { .. }
                | AttrKind::Float { .. }
                | AttrKind::WideFloat { .. }
                | AttrKind::String { ty: Some(_), .. }
                | AttrKind::DenseElements { .. }
                | AttrKind::DenseResource { .. }
                | AttrKind::Sparse { .. }
        );
        if typed {
            if let Some(i) = s.rfind(" : ") {
                s.truncate(i);
            }
        }
        self.st.out.push_str(&s);
    }
    /// ` {k = v, ...}` of the entries of dictionary `attrs` whose keys are not in `elided`;
    /// nothing when none is left.
    pub fn print_optional_attr_dict(&mut self, attrs: Attr, elided: &[&str]) {
        self.attr_dict(attrs, elided, false);
    }
    /// Like [`OpAsmPrinter::print_optional_attr_dict`] with the `attributes` keyword:
    /// ` attributes {k = v}`.
    pub fn print_optional_attr_dict_with_keyword(&mut self, attrs: Attr, elided: &[&str]) {
        self.attr_dict(attrs, elided, true);
    }
    fn attr_dict(&mut self, attrs: Attr, elided: &[&str], keyword: bool) {
        let ctx = self.ctx;
        let entries = ctx.dict_entries(attrs);
        let kept: SmallVec<[(Ident, Attr); 8]> =
            entries.iter().copied().filter(|(k, _)| !elided.contains(&ctx.str(*k))).collect();
        if kept.is_empty() {
            return;
        }
        if let Some(c) = self.st.collect.as_mut() {
            for &(_, v) in &kept {
                c.attr(ctx, v, false);
            }
            return;
        }
        if keyword {
            self.st.out.push_str(" attributes");
        }
        self.st.out.push(' ');
        let mut out = std::mem::take(&mut self.st.out);
        self.st.dict_entries_into(ctx, &kept, &mut out);
        self.st.out = out;
    }
    /// ` loc(...)` when debug info is printed (`loc(#alias)` when it has an alias).
    pub fn print_optional_location(&mut self, l: Location) {
        if !self.st.debug_info {
            return;
        }
        if let Some(c) = self.st.collect.as_mut() {
            c.loc(self.ctx, l, false);
            return;
        }
        self.trailing_loc(l, true);
    }

    fn trailing_loc(&mut self, l: Location, allow_alias: bool) {
        self.st.out.push(' ');
        let mut out = std::mem::take(&mut self.st.out);
        self.st.loc_into(self.ctx, l, allow_alias, &mut out);
        self.st.out = out;
    }

    // ---------------------------------------------------------------- regions
    /// A region of the op (MLIR's `printRegion` with `printEmptyBlock = false`): `{`, the
    /// blocks (the entry block's label only when `print_entry_block_args` and it has
    /// arguments), `}` at the op's indentation.
    pub fn print_region(&mut self, r: Region, print_entry_block_args: bool, print_block_terminators: bool) {
        self.region(r, print_entry_block_args, print_block_terminators, false);
    }

    /// [`OpAsmPrinter::print_region`] with MLIR's `printEmptyBlock`: an empty entry block
    /// gets its `^bb0:` label (the generic form uses this).
    pub fn print_region_full(
        &mut self,
        r: Region,
        print_entry_block_args: bool,
        print_block_terminators: bool,
        print_empty_block: bool,
    ) {
        self.region(r, print_entry_block_args, print_block_terminators, print_empty_block);
    }
    /// The signature of a function-like op: `(%arg0: i32 {attrs}, ...) -> (f32 {attrs})`, or
    /// with types only (`(i32, f32) -> f32`) when `body` is `None` (an external function).
    /// `arg_attrs`/`res_attrs` are arrays of dictionaries, as `func.func` stores them. Result
    /// types are parenthesised when there are several, one that is a function type, or one
    /// with attributes.
    pub fn print_function_signature(
        &mut self,
        body: Option<Region>,
        inputs: &[Type],
        results: &[Type],
        arg_attrs: Option<Attr>,
        res_attrs: Option<Attr>,
    ) {
        let ctx = self.ctx;
        let dict_at = |a: Option<Attr>, i: usize| a.and_then(|a| ctx.as_array(a)).and_then(|v| v.get(i).copied());
        let args: SmallVec<[Value; 8]> = match body.and_then(|r| self.cur.inner.entry_block(r)) {
            Some(b) => self.cur.inner.block_args(b).into(),
            None => SmallVec::new(),
        };
        self.st.out.push('(');
        self.comma_separated(inputs.iter().enumerate(), |p, (i, &t)| match (body.is_some(), args.get(i)) {
            (true, Some(&v)) => p.print_region_argument(v, dict_at(arg_attrs, i)),
            _ => {
                p.print_type(t);
                if let Some(d) = dict_at(arg_attrs, i) {
                    p.print_optional_attr_dict(d, &[]);
                }
            }
        });
        self.st.out.push(')');
        if results.is_empty() {
            return;
        }
        self.st.out.push_str(" -> ");
        let first_has_attrs = dict_at(res_attrs, 0).is_some_and(|d| !ctx.dict_entries(d).is_empty());
        let parens = results.len() > 1 || ctx.function_signature(results[0]).is_some() || first_has_attrs;
        if parens {
            self.st.out.push('(');
        }
        self.comma_separated(results.iter().enumerate(), |p, (i, &t)| {
            p.print_type(t);
            if let Some(d) = dict_at(res_attrs, i) {
                p.print_optional_attr_dict(d, &[]);
            }
        });
        if parens {
            self.st.out.push(')');
        }
    }

    /// Discards what the custom hook printed for this op and prints the generic form
    /// instead: for hooks that find the op malformed (MLIR prints unverified ops generically).
    pub fn fallback_to_generic(&mut self) {
        if self.st.collect.is_some() {
            return self.collect_generic();
        }
        self.st.out.truncate(self.op_start);
        let def = self.def();
        self.print_generic(def);
    }

    // ---------------------------------------------------------------- internals
    fn value_name(&mut self, b: &Body, table: u32, v: Value, result_no: bool) {
        let n = self.st.names.bodies.get(table as usize).map_or(UNNAMED, |t| t.value(v));
        if n == UNNAMED || !b.contains_value(v) {
            self.st.out.push_str("<<UNKNOWN SSA VALUE>>");
            return;
        }
        if n & ARG != 0 {
            self.st.out.push_str("%arg");
            self.st.push_int(n & !ARG);
            return;
        }
        self.st.out.push('%');
        if n & NAMED != 0 {
            let st = &mut *self.st;
            st.out.push_str(&st.names.strings[(n & !NAMED) as usize]);
        } else {
            self.st.push_int(n);
        }
        if result_no {
            if let ValueDef::Result { op, index } = b.value_def(v) {
                if b.num_results(op) > 1 {
                    self.st.out.push('#');
                    self.st.push_int(index);
                }
            }
        }
    }

    fn block_name(&mut self, _b: &Body, table: u32, blk: Block) {
        let n = self.st.names.bodies.get(table as usize).map_or(UNNAMED, |t| t.block(blk));
        if n == UNNAMED {
            self.st.out.push_str("INVALIDBLOCK");
            return;
        }
        self.st.out.push_str("^bb");
        self.st.push_int(n);
    }

    /// ` loc(...)` of a block argument: printed inline (MLIR allows no alias there).
    fn print_arg_loc(&mut self, b: &Body, v: Value) {
        let l = b.arg_loc(v).unwrap_or(Location::UNKNOWN);
        if self.st.debug_info {
            self.trailing_loc(l, false);
        }
    }

    /// Alias collection for a block argument: its type and (non-deferrable) location.
    fn collect_arg(&mut self, b: &Body, v: Value) {
        let debug = self.st.debug_info;
        let Some(c) = self.st.collect.as_mut() else { return };
        if b.contains_value(v) {
            c.ty(self.ctx, b.value_type(v));
            if debug {
                c.loc(self.ctx, b.arg_loc(v).unwrap_or(Location::UNKNOWN), false);
            }
        }
    }

    /// Alias collection for a region, in the order of MLIR's `DummyAliasOperationPrinter`.
    fn collect_region(&mut self, r: Region, entry_args: bool, terminators: bool) {
        let body = self.cur.inner;
        let Some(entry) = body.entry_block(r) else { return };
        self.collect_block(entry, entry_args, terminators);
        let mut next = body.next_block(entry);
        while let Some(b) = next {
            self.collect_block(b, true, true);
            next = body.next_block(b);
        }
    }

    fn collect_block(&mut self, b: Block, args: bool, terminators: bool) {
        let body = self.cur.inner;
        if args {
            for &a in body.block_args(b) {
                self.collect_arg(body, a);
            }
        }
        for op in self.printed_ops(b, terminators) {
            self.nested(op).print_full_op();
        }
    }

    /// The ops of block `b` of the op's regions to print: all, or without the block's
    /// terminator unless `terminators`.
    fn printed_ops(&self, b: Block, terminators: bool) -> impl Iterator<Item = Op> + 'a {
        let body = self.cur.inner;
        let last = body.last_op(b);
        let skip_last = !terminators
            && last.is_some_and(|l| self.ctx.op_def(body.op_name(l)).is_some_and(|d| d.has(Traits::Terminator)));
        body.block_ops(b).take_while(move |&op| !(skip_last && Some(op) == last))
    }

    /// Alias collection for an op in the generic form: regions, operand and result types,
    /// then attributes (not the properties of unregistered ops).
    fn collect_generic(&mut self) {
        for &r in self.cur.regions() {
            self.collect_region(r, true, true);
        }
        let ctx = self.ctx;
        let tys: SmallVec<[Type; 8]> = self.operand_types().into_iter().chain(self.result_types()).collect();
        let attrs = self.cur.attrs();
        let Some(c) = self.st.collect.as_mut() else { return };
        for t in tys {
            c.ty(ctx, t);
        }
        for &(_, v) in ctx.dict_entries(attrs) {
            c.attr(ctx, v, false);
        }
    }

    /// Alias collection for an op in the pretty form, in its print order.
    fn collect_pretty(&mut self) {
        let ctx = self.ctx;
        let attrs = self.cur.attrs();
        let tys: SmallVec<[Type; 8]> = self.operand_types().into_iter().chain(self.result_types()).collect();
        if let Some(c) = self.st.collect.as_mut() {
            for &(_, v) in ctx.dict_entries(attrs) {
                c.attr(ctx, v, false);
            }
            for t in tys {
                c.ty(ctx, t);
            }
        }
        for &r in self.cur.regions() {
            self.collect_region(r, true, true);
        }
    }

    /// A printer positioned on `op` of the current region body.
    fn nested<'s>(&'s mut self, op: Op) -> OpAsmPrinter<'s> {
        let body = self.cur.inner;
        let t = self.cur.inner_table;
        let cur = match body.nested(op) {
            Some(nb) => {
                OpRef { outer: Some((body, t, op)), inner: nb, inner_table: self.st.names.of(nb).unwrap_or(u32::MAX) }
            }
            None => OpRef { outer: Some((body, t, op)), inner: body, inner_table: t },
        };
        OpAsmPrinter { ctx: self.ctx, st: &mut *self.st, cur, op_start: 0 }
    }

    fn region(&mut self, r: Region, entry_args: bool, terminators: bool, empty_block: bool) {
        if self.st.collect.is_some() {
            return self.collect_region(r, entry_args, terminators);
        }
        self.st.out.push_str("{\n");
        let body = self.cur.inner;
        if let Some(entry) = body.entry_block(r) {
            let dialect = self
                .ctx
                .interface::<crate::interfaces::DefaultDialect>(self.cur.name())
                .map_or("", |d| d.0);
            self.st.dialects.push(dialect);
            let header =
                (empty_block && body.is_block_empty(entry)) || (entry_args && !body.block_args(entry).is_empty());
            self.block(entry, true, header, terminators);
            let mut next = body.next_block(entry);
            while let Some(b) = next {
                self.block(b, false, true, true);
                next = body.next_block(b);
            }
            self.st.dialects.pop();
        }
        self.st.push_indent();
        self.st.out.push('}');
    }

    fn block(&mut self, b: Block, is_entry: bool, label: bool, terminators: bool) {
        let body = self.cur.inner;
        let t = self.cur.inner_table;
        if label {
            self.st.push_indent();
            self.block_name(body, t, b);
            let args = body.block_args(b);
            if !args.is_empty() {
                self.st.out.push('(');
                self.comma_separated(args.iter().copied(), |p, a| {
                    p.value_name(body, t, a, true);
                    p.st.out.push_str(": ");
                    p.st.push_type(p.ctx, body.value_type(a));
                    if p.st.debug_info {
                        p.print_arg_loc(body, a);
                    }
                });
                self.st.out.push(')');
            }
            self.st.out.push(':');
            self.preds_comment(t, b, is_entry);
            self.st.out.push('\n');
        }
        self.st.indent += 2;
        for op in self.printed_ops(b, terminators) {
            self.nested(op).print_full_op();
            self.st.out.push('\n');
            if self.st.indent <= 2 {
                self.st.maybe_flush();
            }
        }
        self.st.indent -= 2;
    }

    fn preds_comment(&mut self, table: u32, b: Block, is_entry: bool) {
        let Some(names) = self.st.names.bodies.get(table as usize) else { return };
        let preds = names.preds.get(&b);
        match preds.map(|p| p.len()).unwrap_or(0) {
            0 => {
                if !is_entry {
                    self.st.out.push_str("  // no predecessors");
                }
            }
            1 => {
                let p = preds.map(|p| p[0]);
                let n = p.map_or(UNNAMED, |p| names.block(p));
                self.st.out.push_str("  // pred: ^bb");
                self.st.push_int(n);
            }
            k => {
                let mut ords: SmallVec<[u32; 8]> = preds.into_iter().flatten().map(|&p| names.block(p)).collect();
                ords.sort_unstable();
                self.st.out.push_str("  // ");
                self.st.push_int(k as u32);
                self.st.out.push_str(" preds: ");
                self.comma_separated(ords, |p, n| {
                    p.st.out.push_str("^bb");
                    p.st.push_int(n);
                });
            }
        }
    }

    /// Indentation, results, the op in its custom, pretty or generic form, trailing location.
    fn print_full_op(&mut self) {
        self.st.push_indent();
        if let Some((b, t, op)) = self.cur.outer {
            let n = b.num_results(op);
            if n > 0 {
                self.value_name(b, t, b.result(op, 0), false);
                if n > 1 {
                    self.st.out.push(':');
                    self.st.push_int(n as u32);
                }
                self.st.out.push_str(" = ");
            }
        }
        let def = self.def();
        self.op_start = self.st.out.len();
        if self.st.collect.is_some() {
            if self.st.debug_info {
                let l = self.cur.loc();
                if let Some(c) = self.st.collect.as_mut() {
                    c.loc(self.ctx, l, true);
                }
            }
            match def.map(|d| d.syntax) {
                Some(Syntax::Custom { print, .. }) if !self.st.generic => print(self),
                Some(Syntax::Pretty) if !self.st.generic => self.collect_pretty(),
                _ => self.collect_generic(),
            }
            // nothing printed while collecting is kept
            self.st.out.clear();
            return;
        }
        match def.map(|d| d.syntax) {
            Some(Syntax::Custom { print, .. }) if !self.st.generic => {
                let name = self.op_name();
                let dialect = self.st.dialects.last().copied().unwrap_or("");
                let short = name
                    .strip_prefix(dialect)
                    .and_then(|s| s.strip_prefix('.'))
                    .filter(|s| !dialect.is_empty() && !s.contains('.'));
                self.st.out.push_str(short.unwrap_or(name));
                print(self);
            }
            Some(Syntax::Pretty) if !self.st.generic => self.print_pretty(),
            _ => self.print_generic(def),
        }
        if self.st.debug_info {
            let l = self.cur.loc();
            self.trailing_loc(l, true);
        }
    }

    /// `"name"(%a)[^bb1] <{props}> ({...}) {attrs} : (i32) -> i32`
    fn print_generic(&mut self, def: Option<&'static OpDef>) {
        let ctx = self.ctx;
        self.push_quoted_name();
        self.st.out.push('(');
        if let Some((b, t, op)) = self.cur.outer {
            self.comma_separated(b.operands(op), |p, v| p.value_name(b, t, v, true));
        }
        self.st.out.push(')');
        self.print_successor_list("[");
        let attrs = self.cur.attrs();
        // Registered ops: inherent attributes are properties; unregistered ops keep theirs.
        let (props_text, attrs_text) = match def {
            Some(d) => self.split_attrs(d, attrs),
            None => {
                let p = self.cur.props().map(|p| {
                    let mut s = String::new();
                    self.st.attr_into(ctx, p, Elision::Never, &mut s);
                    s
                });
                let a = if ctx.dict_entries(attrs).is_empty() {
                    None
                } else {
                    let mut s = String::new();
                    self.st.attr_into(ctx, attrs, Elision::Never, &mut s);
                    Some(s)
                };
                (p.map(SplitText::Owned), a.map(SplitText::Owned))
            }
        };
        if let Some(p) = props_text {
            self.st.out.push_str(" <");
            self.push_split(p);
            self.st.out.push('>');
        }
        let regions = self.cur.regions();
        if !regions.is_empty() {
            self.st.out.push_str(" (");
            self.comma_separated(regions.iter().copied(), |p, r| p.region(r, true, true, true));
            self.st.out.push(')');
        }
        if let Some(a) = attrs_text {
            self.st.out.push(' ');
            self.push_split(a);
        }
        self.st.out.push_str(" : ");
        self.print_functional_type();
    }

    /// The op's successors as `open` (`[` or ` [`), `^bb1, ^bb2` and `]`; nothing without
    /// successors.
    #[inline(always)]
    fn print_successor_list(&mut self, open: &str) {
        let succs = self.cur.successors();
        if !succs.is_empty() {
            self.st.out.push_str(open);
            self.comma_separated(succs.iter().copied(), Self::print_successor);
            self.st.out.push(']');
        }
    }

    /// `"name"`, through a per-call cache.
    fn push_quoted_name(&mut self) {
        let n = self.cur.name();
        let i = crate::entity::EntityRef::index(n);
        let st = &mut *self.st;
        let span = st.name_cache.get(i).copied().unwrap_or((u32::MAX, 0));
        let span = if span.0 != u32::MAX {
            span
        } else {
            let start = st.cache.len();
            attr::quoted_into(&mut st.cache, self.ctx.op_name_str(n).as_bytes());
            let span = (start as u32, (st.cache.len() - start) as u32);
            if st.name_cache.len() <= i {
                st.name_cache.resize(i + 1, (u32::MAX, 0));
            }
            st.name_cache[i] = span;
            span
        };
        st.out.push_str(&st.cache[span.0 as usize..(span.0 + span.1) as usize]);
    }

    fn push_split(&mut self, t: SplitText) {
        match t {
            SplitText::Cached(s, l) => {
                let st = &mut *self.st;
                st.out.push_str(&st.cache[s as usize..(s + l) as usize]);
            }
            SplitText::Owned(s) => self.st.out.push_str(&s),
        }
    }

    /// The `{...}` texts of a registered op's inherent and discardable attributes, cached
    /// per (op name, dictionary).
    fn split_attrs(&mut self, def: &'static OpDef, attrs: Attr) -> (Option<SplitText>, Option<SplitText>) {
        let ctx = self.ctx;
        let key = (self.cur.name(), attrs);
        let spans = match self.st.split_cache.get(&key) {
            Some(&s) => s,
            None => {
                let entries = ctx.dict_entries(attrs);
                type Entries = SmallVec<[(Ident, Attr); 8]>;
                let (inh, dis): (Entries, Entries) =
                    entries.iter().copied().partition(|(k, _)| def.is_inherent_attr(ctx.str(*k)));
                let mut spans = [u32::MAX, 0, u32::MAX, 0];
                for (j, part) in [inh, dis].iter().enumerate() {
                    if part.is_empty() {
                        continue;
                    }
                    let mut s = String::new();
                    self.st.dict_entries_into(ctx, part, &mut s);
                    spans[2 * j] = self.st.cache.len() as u32;
                    spans[2 * j + 1] = s.len() as u32;
                    self.st.cache.push_str(&s);
                }
                self.st.split_cache.insert(key, spans);
                spans
            }
        };
        let get = |i: usize| (spans[i] != u32::MAX).then(|| SplitText::Cached(spans[i], spans[i + 1]));
        (get(0), get(2))
    }

    /// The uniform XCS pretty form:
    /// `name %a, %b [^bb1] {attrs} : type-sig {region} {region}`.
    fn print_pretty(&mut self) {
        let ctx = self.ctx;
        self.st.out.push_str(self.op_name());
        let operands = self.operands();
        if !operands.is_empty() {
            self.st.out.push(' ');
            self.print_operands(&operands);
        }
        self.print_successor_list(" [");
        let attrs = self.cur.attrs();
        self.print_optional_attr_dict(attrs, &[]);
        let ins = self.operand_types();
        let outs = self.result_types();
        let regions = self.cur.regions();
        if !ins.is_empty() || !outs.is_empty() || !regions.is_empty() {
            self.st.out.push_str(" : ");
            let first = ins.first().or(outs.first()).copied();
            let single = first
                .filter(|&t| ctx.function_signature(t).is_none() && ins.iter().chain(outs.iter()).all(|&x| x == t));
            match single {
                Some(t) => self.print_type(t),
                None => self.print_function_type(&ins, &outs),
            }
        }
        for &r in regions {
            self.st.out.push(' ');
            self.region(r, true, true, true);
        }
    }
}

/// A printed attribute dictionary: a span of the cache or an owned text.
enum SplitText {
    Cached(u32, u32),
    Owned(String),
}
