//! The MLIR text parser: the generic form, the uniform XCS pretty form and custom op hooks
//! ([`OpAsmParser`]), all builtin types, attributes and locations, aliases and file metadata.
//!
//! It is a hand-written recursive-descent parser over the logos token stream of
//! [`crate::lexer`], not an lalrpop grammar, for three reasons: op syntax is chosen at run time
//! from the registry (each op's `Syntax`, custom hooks written against `OpAsmParser`), which a
//! generated LR grammar cannot dispatch to; shaped-type dimension lists (`4x?xf32`, `0xf32`)
//! need the lexer restarted from inside a token, as MLIR's parser does; and a hand-written
//! parser can look up a whole type or attribute dictionary by its source text in a per-parse
//! cache before parsing it (generic IR repeats `(tensor<..>, ..) -> tensor<..>` on every op).
//!
//! Layout: `mod.rs` (parser state, tokens, errors, top level, aliases), `types.rs`,
//! `attrs.rs` (incl. `dense<...>`), `locations.rs`, `ops.rs` (operations, regions, blocks, SSA
//! name scopes), `asm.rs` ([`OpAsmParser`]), `metadata.rs` (the file metadata `{-# ... #-}`:
//! resource blobs and external resources, see [`crate::resources`]).

mod affine;
mod asm;
mod attrs;
mod locations;
mod metadata;
mod ops;
#[cfg(test)]
mod tests;
mod types;

use rustc_hash::FxHashMap;

use crate::body::{Body, OperationState};
use crate::context::{Attr, Context, Ident};
use crate::diag::Diagnostic;
use crate::lexer::{LineIndex, Tok, Token};
use crate::source_text::{SourceText, RELEASE_STEP};
use crate::location::Location;
use crate::module::Module;
use crate::types::Type;

pub use asm::{Argument, FunctionSignature, OpAsmParser, UnresolvedOperand};

pub type PResult<T> = Result<T, Diagnostic>;

/// Parses the custom form of one op into `state` (MLIR's `OpAsmParser` role). The op name
/// and location are already in `state`; results are bound by the caller from
/// `state.result_types`.
pub type CustomParseFn = fn(&mut OpAsmParser<'_, '_>, &mut OperationState) -> PResult<()>;

/// Parser settings.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Keep ops, types and attributes of unregistered dialects as opaque (mlir-opt's
    /// `--allow-unregistered-dialect`).
    pub allow_unregistered: bool,
    /// Lines before `src` in its file (for `--split-input-file` chunks), so locations and
    /// diagnostics name the line of the whole file.
    pub line_offset: u32,
    /// Bytes before `src` on its first line (a chunk that starts after a split marker on the
    /// marker's line), added to the columns of that line.
    pub col_offset: u32,
    /// The text the parsed source is (part of), when it is a mapped file: the pages already
    /// parsed are given back as the parser moves on ([`SourceText::release_before`]).
    pub source: Option<SourceText>,
}

/// Parses a whole file: top-level ops (wrapped in an implicit `builtin.module` unless the file
/// is exactly one `builtin.module`) and alias definitions. Stops at the first error.
pub fn parse_module(ctx: &Context, src: &str, file: &str, opts: &ParseOptions) -> PResult<Module> {
    parse_module_bytes(ctx, src.as_bytes(), file, opts)
}

/// [`parse_module`] over raw bytes (MLIR strings are byte strings; the input need not be
/// UTF-8).
pub fn parse_module_bytes(ctx: &Context, src: &[u8], file: &str, opts: &ParseOptions) -> PResult<Module> {
    let mut p = Parser::new(ctx, src, file, opts)?;
    p.parse_top_level()
}

/// Parses one type from `text` (e.g. `tensor<4x?xf32>`); unregistered dialect types are
/// accepted.
pub fn parse_type(ctx: &Context, text: &str) -> PResult<Type> {
    parse_whole(ctx, text, "<type>", |p| p.parse_type())
}

/// Parses one attribute from `text` (e.g. `dense<1.0> : tensor<4xf32>`); unregistered
/// dialect attributes are accepted.
pub fn parse_attr(ctx: &Context, text: &str) -> PResult<Attr> {
    parse_whole(ctx, text, "<attr>", |p| p.parse_attr())
}

/// `parse` on all of `text` (named `file` in errors), unregistered dialects accepted.
fn parse_whole<T>(
    ctx: &Context,
    text: &str,
    file: &str,
    parse: impl FnOnce(&mut Parser<'_>) -> PResult<T>,
) -> PResult<T> {
    let opts = ParseOptions { allow_unregistered: true, ..Default::default() };
    let mut p = Parser::new(ctx, text.as_bytes(), file, &opts)?;
    let value = parse(&mut p)?;
    p.expect_eof()?;
    Ok(value)
}

/// Maximum nesting of regions, types, attributes and locations. Deeper input is rejected with
/// an error instead of overflowing the stack.
pub const MAX_NESTING: u32 = 1000;

/// Stack kept free before recursing (with `stacker`, which moves deeper recursion onto a
/// heap-allocated stack segment): nesting up to [`MAX_NESTING`] never overflows, whatever
/// thread the parser runs on.
const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f` with at least [`STACK_RED_ZONE`] bytes of stack available.
#[inline]
pub(crate) fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f)
}

/// Cached spans longer than this are not worth hashing.
const MAX_CACHED_SPAN: usize = 4096;

/// The parser state for one source buffer.
pub(crate) struct Parser<'s> {
    pub(crate) ctx: &'s Context,
    pub(crate) src: &'s [u8],
    lex: crate::lexer::Lexer<'s>,
    pub(crate) tok: Token,
    /// End of the last consumed token.
    pub(crate) last_end: u32,
    allow_unregistered: bool,
    line_offset: u32,
    col_offset: u32,
    file_index: u32,
    lines: LineIndex,
    type_aliases: FxHashMap<&'s [u8], Type>,
    attr_aliases: FxHashMap<&'s [u8], Attr>,
    /// Location aliases (`#loc3 = loc(...)`), kept as locations: interned as attributes only
    /// if one is used as an attribute value (JAX's exports define one per op).
    pub(crate) loc_aliases: locations::LocAliases,
    /// Types, attributes and op names by their text. The keys are copies, not slices of the
    /// source: a hit compares the key's bytes, and a slice would read the page of the text's
    /// first occurrence back in after a mapped input gave it back (with the kernel's
    /// fault-around, 64 KiB per distinct text: most of a 1M-op file).
    type_cache: FxHashMap<Box<[u8]>, Type>,
    attr_cache: FxHashMap<Box<[u8]>, Attr>,
    op_names: FxHashMap<Box<[u8]>, crate::context::OpName>,
    /// Custom op names as written, with the default dialect they were resolved under.
    custom_ops: FxHashMap<(&'s [u8], &'static str), (crate::context::OpName, &'static crate::opdef::OpDef)>,
    depth: u32,
    pub(crate) scopes: Vec<ops::ValueScope<'s>>,
    pub(crate) block_scopes: Vec<ops::BlockScope<'s>>,
    pub(crate) default_dialect: Vec<&'static str>,
    placeholder_name: crate::context::OpName,
    /// Scratch buffer for string literals.
    pub(crate) sbuf: Vec<u8>,
    /// The first use of a value name that was never defined (reported at the end).
    pub(crate) undeclared: Option<u32>,
    /// The attribute each `distinct[N]` id refers to.
    pub(crate) distinct_ids: FxHashMap<u64, Attr>,
    /// The handle of each builtin resource key used in this input.
    resources: FxHashMap<String, crate::resources::Resource>,
    /// The file's `external_resources`.
    external: crate::resources::ExternalResources,
    /// The mapped text `src` lies in and `src`'s offset in it (pages behind the parser are
    /// given back), and the position at which to do that next.
    release: Option<(SourceText, usize)>,
    next_release: u32,
}

impl<'s> Parser<'s> {
    pub(crate) fn new(ctx: &'s Context, src: &'s [u8], file: &str, opts: &ParseOptions) -> PResult<Parser<'s>> {
        let file_id: Ident = ctx.ident(file);
        let file_index = ctx.file_index(file_id);
        if src.len() >= u32::MAX as usize {
            return Err(Diagnostic::error(ctx.file_loc_indexed(file_index, 1, 1), "input too large (4 GiB or more)"));
        }
        let mut lex = crate::lexer::Lexer::new(src);
        let tok = lex.next_token();
        Ok(Parser {
            ctx,
            src,
            lex,
            tok,
            last_end: 0,
            allow_unregistered: opts.allow_unregistered,
            line_offset: opts.line_offset,
            col_offset: opts.col_offset,
            file_index,
            lines: LineIndex::new(),
            type_aliases: FxHashMap::default(),
            attr_aliases: FxHashMap::default(),
            loc_aliases: Default::default(),
            type_cache: FxHashMap::default(),
            attr_cache: FxHashMap::default(),
            op_names: FxHashMap::default(),
            custom_ops: FxHashMap::default(),
            depth: 0,
            scopes: Vec::new(),
            block_scopes: Vec::new(),
            default_dialect: vec!["builtin"],
            placeholder_name: ctx.op_name("xcs.parser.forward_ref"),
            sbuf: Vec::new(),
            undeclared: None,
            distinct_ids: FxHashMap::default(),
            resources: FxHashMap::default(),
            external: Default::default(),
            release: opts.source.as_ref().and_then(|t| {
                let base = (src.as_ptr() as usize).checked_sub(t.as_str().as_ptr() as usize)?;
                (t.is_mapped() && base + src.len() <= t.as_str().len()).then(|| (t.clone(), base))
            }),
            next_release: RELEASE_STEP as u32,
        })
    }

    // ------------------------------------------------------------------ tokens
    #[inline]
    pub(crate) fn bump(&mut self) {
        self.last_end = self.tok.end;
        self.tok = self.lex.next_token();
    }
    /// Continues lexing at byte `off` (dimension lists, cache hits, dialect bodies): the text
    /// before `off` counts as consumed.
    pub(crate) fn reset_to(&mut self, off: usize) {
        self.lex.reset(off);
        self.last_end = off as u32;
        self.tok = self.lex.next_token();
    }
    #[inline]
    pub(crate) fn text(&self, t: Token) -> &'s [u8] {
        &self.src[t.range()]
    }
    /// The text of an identifier-like token as `&str` (identifiers are ASCII).
    #[inline]
    pub(crate) fn tstr(&self, t: Token) -> &'s str {
        std::str::from_utf8(self.text(t)).unwrap_or("")
    }
    #[inline]
    pub(crate) fn is(&self, k: Tok) -> bool {
        self.tok.kind == k
    }
    #[inline]
    pub(crate) fn is_kw(&self, kw: &str) -> bool {
        self.tok.kind == Tok::BareId && self.text(self.tok) == kw.as_bytes()
    }
    #[inline]
    pub(crate) fn eat(&mut self, k: Tok) -> bool {
        if self.tok.kind == k {
            self.bump();
            true
        } else {
            false
        }
    }
    pub(crate) fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }
    /// Consumes a token of kind `k` or fails with "`msg`" at the end of the previous token.
    #[inline]
    pub(crate) fn expect(&mut self, k: Tok, msg: &str) -> PResult<Token> {
        if self.tok.kind == k {
            let t = self.tok;
            self.bump();
            Ok(t)
        } else {
            Err(self.wrong_token(msg))
        }
    }
    pub(crate) fn expect_kw(&mut self, kw: &str, msg: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.wrong_token(msg))
        }
    }
    pub(crate) fn expect_eof(&mut self) -> PResult<()> {
        if self.is(Tok::Eof) {
            Ok(())
        } else {
            Err(self.error_here("unexpected trailing characters"))
        }
    }
    /// The byte right after the current token, if the next token starts there with no space.
    pub(crate) fn byte_after(&self, t: Token) -> Option<u8> {
        self.src.get(t.end as usize).copied()
    }

    // ------------------------------------------------------------------ nesting
    pub(crate) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error_here(format!("nesting too deep (the limit is {MAX_NESTING} levels)")));
        }
        Ok(())
    }
    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    // ------------------------------------------------------------------ locations and errors
    /// The `file:line:col` location of byte `off`.
    pub(crate) fn loc_at(&mut self, off: u32) -> Location {
        let (line, col) = self.lines.line_col(self.src, off as usize);
        let col = if line == 1 { col + self.col_offset } else { col };
        self.ctx.file_loc_indexed(self.file_index, line + self.line_offset, col)
    }
    /// An error at byte `off`. A pending lexical error (the current token is an error token)
    /// takes precedence, as in MLIR where the lexer reports it first.
    pub(crate) fn error_at(&mut self, off: u32, msg: impl Into<String>) -> Diagnostic {
        if self.tok.kind == Tok::Error {
            if let Some((e, pos)) = self.lex.error() {
                let loc = self.loc_at(pos);
                return Diagnostic::error(loc, e.message());
            }
        }
        let loc = self.loc_at(off);
        Diagnostic::error(loc, msg)
    }
    /// An error at the current token; at the end of the input, one character back (MLIR's
    /// `Parser::emitError(message)`).
    pub(crate) fn error_here(&mut self, msg: impl Into<String>) -> Diagnostic {
        let off = if self.tok.kind == Tok::Eof { self.tok.start.saturating_sub(1) } else { self.tok.start };
        self.error_at(off, msg)
    }
    /// An "expected ..." error, placed like MLIR's `emitWrongTokenError`: at the end of the
    /// previous token's line content when the current token starts a new line.
    pub(crate) fn wrong_token(&mut self, msg: &str) -> Diagnostic {
        // At the end of the input, start one character back (as MLIR does).
        let original = if self.tok.kind == Tok::Eof { self.tok.start.saturating_sub(1) } else { self.tok.start };
        let mut end = original as usize;
        let src = self.src;
        loop {
            while end > 0 && matches!(src[end - 1], b' ' | b'\t') {
                end -= 1;
            }
            if end == 0 {
                return self.error_at(original, msg);
            }
            if src[end - 1] != b'\n' && src[end - 1] != b'\r' {
                return self.error_at(end as u32, msg);
            }
            end -= 1;
            // Skip a `//` comment on the previous line.
            let line_start = memchr::memrchr(b'\n', &src[..end]).map_or(0, |i| i + 1);
            if let Some(c) = memchr::memmem::find(&src[line_start..end], b"//") {
                end = line_start + c;
            }
        }
    }
    /// A note at byte `off`, attached to `d`.
    pub(crate) fn note_at(&mut self, d: Diagnostic, off: u32, msg: impl Into<String>) -> Diagnostic {
        let loc = self.loc_at(off);
        d.with_note(loc, msg)
    }

    /// `bytes` (a string literal's value, at byte `off`) as an identifier; XCS keeps names as
    /// UTF-8, so other bytes are an error rather than a lossy conversion. `what` names the kind.
    pub(crate) fn utf8_ident(&mut self, bytes: &[u8], off: u32, what: &str) -> PResult<Ident> {
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(self.ctx.ident(s)),
            Err(_) => Err(self.error_at(off, format!("{what} that are not valid UTF-8 are not supported"))),
        }
    }

    pub(crate) fn type_str(&self, t: Type) -> String {
        crate::printer::type_to_string(self.ctx, t)
    }
    pub(crate) fn attr_str(&self, a: Attr) -> String {
        crate::printer::attr_to_string(self.ctx, a)
    }

    // ------------------------------------------------------------------ span caches
    /// If the type starting at the current token was parsed before from the same text, returns
    /// it and skips over it.
    pub(crate) fn cached_type(&mut self) -> Result<Type, Option<usize>> {
        let end = scan::type_end(self.src, self.tok.start as usize);
        self.cached_span(end, |p, span| p.type_cache.get(span).copied())
    }
    pub(crate) fn cache_type(&mut self, start: u32, end: usize, consumed_end: u32, t: Type) {
        if consumed_end as usize == end {
            self.type_cache.insert(self.src[start as usize..end].into(), t);
        }
    }
    /// Like [`Parser::cached_type`], for an attribute.
    pub(crate) fn cached_attr(&mut self) -> Result<Attr, Option<usize>> {
        let end = scan::bracket_end(self.src, self.tok.start as usize);
        self.cached_span(end, |p, span| p.attr_cache.get(span).copied())
    }
    /// What `lookup` finds for the text from the current token to `end` (then skipped over);
    /// `Err(Some(end))` when it finds nothing (the parsed value may be cached), `Err(None)` when
    /// the span has no end or is too long to cache.
    #[inline]
    fn cached_span<T>(
        &mut self,
        end: Option<usize>,
        lookup: impl FnOnce(&Self, &[u8]) -> Option<T>,
    ) -> Result<T, Option<usize>> {
        let start = self.tok.start as usize;
        let Some(end) = end else { return Err(None) };
        if end - start > MAX_CACHED_SPAN {
            return Err(None);
        }
        let src = self.src;
        match lookup(self, &src[start..end]) {
            Some(t) => {
                self.reset_to(end);
                Ok(t)
            }
            None => Err(Some(end)),
        }
    }
    pub(crate) fn cache_attr(&mut self, start: u32, end: usize, consumed_end: u32, a: Attr) {
        if consumed_end as usize == end {
            self.attr_cache.insert(self.src[start as usize..end].into(), a);
        }
    }

    // ------------------------------------------------------------------ top level
    fn parse_top_level(&mut self) -> PResult<Module> {
        let ctx = self.ctx;
        let module_name = ctx.op_name(crate::builtin::ModuleOp::DEF.name);
        // MLIR gives the implicit module the location `file:0:0`.
        let top_loc = ctx.file_loc_indexed(self.file_index, 0, 0);
        let mut module = Module::new(ctx, top_loc);
        let block = module.block();
        let region = module.body.root_regions()[0];
        let lim = (self.src.len() as u32 / 2).max(1 << 16);
        self.scopes.push(ops::ValueScope::new(lim));
        self.block_scopes.push(ops::BlockScope::new(region));
        loop {
            match self.tok.kind {
                Tok::Eof => break,
                Tok::ExclaimId => self.parse_type_alias_def()?,
                Tok::HashId => self.parse_attr_alias_def()?,
                Tok::FileMetadata => self.parse_file_metadata()?,
                _ => self.parse_operation(&mut module.body, block)?,
            }
        }
        self.pop_block_scope()?;
        self.pop_value_scope(&mut module.body)?;
        if let Some(off) = self.undeclared {
            return Err(self.error_at(off, "use of undeclared SSA value name"));
        }
        if self.loc_aliases.has_deferred() {
            self.resolve_deferred_locs(&mut module.body)?;
        }
        if let Some((text, _)) = &self.release {
            text.release_all(); // the IR holds no references into the text
        }
        // The implicit module: a file that is exactly one `builtin.module` is that module.
        module.external_resources = std::mem::take(&mut self.external);
        let ops = module.body.block_op_vec(block);
        if ops.len() == 1 && module.body.op_name(ops[0]) == module_name {
            if let Some(inner) = module.body.take_nested(ops[0]) {
                return Ok(Module { body: *inner, external_resources: module.external_resources });
            }
        }
        module.body.shrink_to_fit();
        Ok(module)
    }

    fn parse_type_alias_def(&mut self) -> PResult<()> {
        let name = self.parse_alias_def_name("type", |p, name| p.type_aliases.contains_key(name))?;
        let ty = self.parse_type()?;
        self.type_aliases.insert(name, ty);
        Ok(())
    }

    fn parse_attr_alias_def(&mut self) -> PResult<()> {
        let name = self.parse_alias_def_name("attribute", |p, name| {
            p.attr_aliases.contains_key(name) || p.loc_aliases.get(name).is_some()
        })?;
        if self.is_kw("loc") && self.byte_after(self.tok) == Some(b'(') {
            self.bump();
            let l = self.parse_loc_parens()?;
            self.loc_aliases.define(name, l);
            return Ok(());
        }
        let a = self.parse_attr()?;
        self.attr_aliases.insert(name, a);
        Ok(())
    }

    /// `!name =` or `#name =` starting an alias definition of a `kind` (`type`, `attribute`):
    /// the name, which must not have a `.` nor be `defined` already.
    fn parse_alias_def_name(
        &mut self,
        kind: &str,
        defined: impl FnOnce(&Self, &[u8]) -> bool,
    ) -> PResult<&'s [u8]> {
        let t = self.tok;
        let name = &self.text(t)[1..];
        if name.contains(&b'.') {
            let message = format!("{kind} names with a '.' are reserved for dialect-defined names");
            return Err(self.error_at(t.start, message));
        }
        if defined(self, name) {
            let name = String::from_utf8_lossy(name);
            return Err(self.error_at(t.start, format!("redefinition of {kind} alias id '{name}'")));
        }
        self.bump();
        self.expect(Tok::Equal, &format!("expected '=' in {kind} alias definition"))?;
        Ok(name)
    }

    pub(crate) fn lookup_type_alias(&self, name: &[u8]) -> Option<Type> {
        self.type_aliases.get(name).copied()
    }
    pub(crate) fn lookup_attr_alias(&self, name: &[u8]) -> Option<Attr> {
        if let Some(&a) = self.attr_aliases.get(name) {
            return Some(a);
        }
        self.loc_aliases.get(name).map(|l| self.ctx.attr(crate::attrs::AttrKind::Location(l)))
    }
    /// The location an alias names, if it is a location alias.
    pub(crate) fn lookup_loc_alias(&self, name: &[u8]) -> Option<Location> {
        self.loc_aliases.get(name)
    }

    /// Gives back the pages of a mapped input that the parser has gone past (called at each
    /// op; does something once per [`RELEASE_STEP`] bytes).
    #[inline]
    pub(crate) fn release_consumed(&mut self) {
        if self.tok.start < self.next_release {
            return;
        }
        self.next_release = self.tok.start.saturating_add(RELEASE_STEP as u32);
        if let Some((text, base)) = &self.release {
            text.release_before(base + self.tok.start as usize);
        }
    }

    /// A placeholder for `loc(#alias)` with `#alias` not yet defined (MLIR's deferred
    /// location references), replaced at the end of the file.
    pub(crate) fn defer_loc_alias(&mut self, alias: &'s [u8], offset: u32) -> Location {
        self.loc_aliases.defer(alias, offset)
    }

    /// What each placeholder stands for, in placeholder order; the first use of an alias that
    /// is undefined, or not a location, is the error (in file order, as MLIR reports it).
    fn resolve_deferred_locs(&mut self, body: &mut Body) -> PResult<()> {
        let aliases = std::mem::take(&mut self.loc_aliases);
        let resolved = aliases.resolve().map_err(|(offset, name)| match self.attr_aliases.get(&name[..]) {
            None => self.error_at(offset, "operation location alias was never defined"),
            Some(&a) => self.error_at(offset, format!("expected location, but found '{}'", self.attr_str(a))),
        })?;
        fix_locs(body, &resolved);
        Ok(())
    }
}

/// Replaces placeholder locations of ops and block arguments everywhere in `body`.
fn fix_locs(body: &mut Body, resolved: &locations::Resolved) {
    body.set_loc(resolved.get(body.loc()));
    let mut blocks = Vec::new();
    for &r in body.root_regions() {
        blocks.extend(body.region_blocks(r));
    }
    let ops = body.walk_ops();
    for &op in &ops {
        for &r in body.regions(op) {
            blocks.extend(body.region_blocks(r));
        }
    }
    for b in blocks {
        let args: smallvec::SmallVec<[crate::body::Value; 8]> = body.block_args(b).into();
        for a in args {
            if let Some(l) = body.arg_loc(a) {
                if l.deferred_index().is_some() {
                    body.set_arg_loc(a, resolved.get(l));
                }
            }
        }
    }
    for op in ops {
        let l = body.op_loc(op);
        if l.deferred_index().is_some() {
            body.set_op_loc(op, resolved.get(l));
        }
        if let Some(n) = body.nested_mut(op) {
            fix_locs(n, resolved);
        }
    }
}

/// Byte-level scanners that find where a type or bracketed attribute ends without parsing it,
/// to look the span up in the parse caches. A wrong guess is harmless: a span is only cached
/// when the real parse consumed exactly it.
mod scan {
    #[inline]
    fn is_id(c: u8) -> bool {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
    }
    fn skip_ws(s: &[u8], mut i: usize) -> usize {
        while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    }
    /// The end of a string literal starting at `i` (on the quote).
    fn string_end(s: &[u8], mut i: usize) -> Option<usize> {
        i += 1;
        while i < s.len() {
            match s[i] {
                b'"' => return Some(i + 1),
                b'\\' => i += 2,
                b'\n' => return None,
                _ => i += 1,
            }
        }
        None
    }
    /// The end of the balanced bracket group (`(`, `[`, `{`, `<`) starting at `i`; `->` and
    /// `>=` do not close a `<`.
    /// Bytes the bracket scanner must look at.
    static SPECIAL: [bool; 256] = {
        let mut t = [false; 256];
        let mut i = 0;
        let chars = b"()[]{}<>\"";
        while i < chars.len() {
            t[chars[i] as usize] = true;
            i += 1;
        }
        t
    };

    pub fn bracket_end(s: &[u8], i: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut j = i;
        // Spans longer than the cache limit are not cached: stop scanning there.
        let s = &s[..s.len().min(i + super::MAX_CACHED_SPAN + 1)];
        while j < s.len() {
            let c = s[j];
            if !SPECIAL[c as usize] {
                j += 1;
                continue;
            }
            match c {
                b'(' | b'[' | b'{' | b'<' => depth += 1,
                b'>' if j > 0 && s[j - 1] == b'-' => {}
                b'>' if s.get(j + 1) == Some(&b'=') => {}
                b'"' => {
                    j = string_end(s, j)?;
                    continue;
                }
                _ => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j + 1);
                    }
                }
            }
            if depth == 0 {
                return None;
            }
            j += 1;
        }
        None
    }
    /// The end of a non-function type: an identifier with an optional `<...>` body.
    fn simple_type_end(s: &[u8], i: usize) -> Option<usize> {
        let mut j = i;
        if s.get(j) == Some(&b'!') {
            j += 1;
        }
        let id_start = j;
        while j < s.len() && is_id(s[j]) {
            j += 1;
        }
        if j == id_start {
            return None;
        }
        if s.get(j) == Some(&b'<') {
            bracket_end(s, j)
        } else {
            Some(j)
        }
    }
    /// The end of the type starting at `i`, if it is worth caching (a function type or a type
    /// with a `<...>` body or a `!` name).
    pub fn type_end(s: &[u8], i: usize) -> Option<usize> {
        match s.get(i)? {
            b'(' => {
                let j = skip_ws(s, bracket_end(s, i)?);
                if s.get(j..j + 2)? != b"->" {
                    return None;
                }
                let j = skip_ws(s, j + 2);
                if s.get(j)? == &b'(' {
                    bracket_end(s, j)
                } else {
                    simple_type_end(s, j)
                }
            }
            b'!' => simple_type_end(s, i),
            c if c.is_ascii_alphabetic() => {
                let e = simple_type_end(s, i)?;
                (s[e - 1] == b'>').then_some(e)
            }
            _ => None,
        }
    }
}
