//! Types, attributes and locations in MLIR's textual form (`AsmPrinter::Impl::printType`,
//! `printAttribute`, `printLocation`). Printed texts of types and attributes are cached per
//! print call: on IR they repeat on nearly every op.

use std::fmt::Write as _;

use super::alias::{is_aliasable, Aliases, Key};
use super::float::{print_float, print_float_attr};
use crate::float_format::{decode, Fmt};
use super::PrintState;
use crate::attrs::{dense_elem_bytes, AttrKind, DenseData};
use crate::context::{Attr, Context, Ident};
use crate::entity::EntityRef;
use crate::location::{LocKind, Location};
use crate::types::{Signedness, Type, TypeKind, DYNAMIC};

/// Cached texts longer than this are not kept (big `dense<"0x...">` blobs print once).
const MAX_CACHED: usize = 4096;
const NONE: (u32, u32) = (u32::MAX, 0);
/// An attribute cache slot: printed once (cached on the next print).
const SEEN_ONCE: (u32, u32) = (u32::MAX, 1);
/// An attribute cache slot: its text is longer than `MAX_CACHED`.
const TOO_LONG: (u32, u32) = (u32::MAX, 2);

/// Whether an attribute may omit its type (MLIR's `AttrTypeElision`): `May` inside arrays
/// and memref layouts (i64 integers and f64 floats drop `: type`), `Never` elsewhere.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Elision {
    Never,
    May,
}

/// True if `s` can be printed as a bare identifier (`[a-zA-Z_][a-zA-Z0-9_$.]*`).
pub(crate) fn is_bare_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
        _ => return false,
    }
    b[1..].iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.')
}

/// `llvm::printEscapedString`: `\\` doubled, printable ASCII other than `"` kept, every other
/// byte as `\XX` (uppercase hex).
pub(crate) fn escape_into(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        let plain = (0x20..0x7F).contains(&c) && c != b'"' && c != b'\\';
        if plain {
            continue;
        }
        // SAFETY-free: the run before `i` is printable ASCII, hence valid UTF-8.
        out.push_str(std::str::from_utf8(&bytes[start..i]).unwrap_or(""));
        out.push('\\');
        if c == b'\\' {
            out.push('\\');
        } else {
            out.push(HEX[(c >> 4) as usize] as char);
            out.push(HEX[(c & 15) as usize] as char);
        }
        start = i + 1;
    }
    out.push_str(std::str::from_utf8(&bytes[start..]).unwrap_or(""));
}

/// `"..."` with MLIR escapes.
pub(crate) fn quoted_into(out: &mut String, bytes: &[u8]) {
    out.push('"');
    escape_into(out, bytes);
    out.push('"');
}

/// A keyword as is, or a quoted string when it is not a bare identifier.
pub(crate) fn keyword_or_string_into(out: &mut String, s: &str) {
    if is_bare_identifier(s) {
        out.push_str(s);
    } else {
        quoted_into(out, s.as_bytes());
    }
}

/// `@name` or `@"quoted name"`.
pub(crate) fn symbol_into(out: &mut String, s: &str) {
    if s.is_empty() {
        out.push_str("@<<INVALID EMPTY SYMBOL>>");
        return;
    }
    out.push('@');
    keyword_or_string_into(out, s);
}

fn push_int(out: &mut String, v: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(v));
}

fn push_dim(out: &mut String, d: i64) {
    if d == DYNAMIC || d < 0 {
        out.push('?');
    } else {
        push_int(out, d);
    }
}

impl PrintState {
    // ---------------------------------------------------------------------------- types

    /// Appends the text of `t` to `out` (through the cache).
    pub(crate) fn type_into(&mut self, ctx: &Context, t: Type, out: &mut String) {
        let (s, l) = self.type_span(ctx, t);
        if s != u32::MAX {
            out.push_str(&self.cache[s as usize..(s + l) as usize]);
        } else {
            self.write_type_uncached(ctx, t, out);
        }
    }

    /// Appends the text of `t` to the output buffer.
    pub(crate) fn push_type(&mut self, ctx: &Context, t: Type) {
        let (s, l) = self.type_span(ctx, t);
        if s != u32::MAX {
            self.out.push_str(&self.cache[s as usize..(s + l) as usize]);
        } else {
            let mut tmp = String::new();
            self.write_type_uncached(ctx, t, &mut tmp);
            self.out.push_str(&tmp);
        }
    }

    fn type_span(&mut self, ctx: &Context, t: Type) -> (u32, u32) {
        let i = t.index();
        if let Some(&span) = self.type_cache.get(i) {
            if span != NONE {
                return span;
            }
        }
        let mut tmp = String::new();
        self.write_type_uncached(ctx, t, &mut tmp);
        if tmp.len() > MAX_CACHED {
            return NONE;
        }
        let span = (self.cache.len() as u32, tmp.len() as u32);
        self.cache.push_str(&tmp);
        if self.type_cache.len() <= i {
            self.type_cache.resize(i + 1, NONE);
        }
        self.type_cache[i] = span;
        span
    }

    fn type_list_into(&mut self, ctx: &Context, ts: &[Type], out: &mut String) {
        for (i, &t) in ts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.type_into(ctx, t, out);
        }
    }

    /// `(a, b) -> c` / `(a) -> (b, c)` / `() -> ()`; a single result is unparenthesised unless
    /// it is itself a function type.
    pub(crate) fn function_type_into(&mut self, ctx: &Context, inputs: &[Type], results: &[Type], out: &mut String) {
        out.push('(');
        self.type_list_into(ctx, inputs, out);
        out.push_str(") -> ");
        let wrap = results.len() != 1 || matches!(ctx.type_kind(results[0]), TypeKind::Function { .. });
        if wrap {
            out.push('(');
        }
        self.type_list_into(ctx, results, out);
        if wrap {
            out.push(')');
        }
    }

    fn write_type_uncached(&mut self, ctx: &Context, t: Type, out: &mut String) {
        match ctx.type_kind(t) {
            TypeKind::Integer { width, signedness } => {
                match signedness {
                    Signedness::Signless => {}
                    Signedness::Signed => out.push('s'),
                    Signedness::Unsigned => out.push('u'),
                }
                out.push('i');
                push_int(out, *width);
            }
            TypeKind::Index => out.push_str("index"),
            TypeKind::Float(k) => out.push_str(k.keyword()),
            TypeKind::None => out.push_str("none"),
            TypeKind::Function { inputs, results } => self.function_type_into(ctx, inputs, results, out),
            TypeKind::RankedTensor { shape, elem, encoding } => {
                out.push_str("tensor<");
                for &d in shape.iter() {
                    push_dim(out, d);
                    out.push('x');
                }
                self.type_into(ctx, *elem, out);
                if let Some(e) = encoding {
                    out.push_str(", ");
                    self.attr_into(ctx, *e, Elision::Never, out);
                }
                out.push('>');
            }
            TypeKind::UnrankedTensor { elem } => {
                out.push_str("tensor<*x");
                self.type_into(ctx, *elem, out);
                out.push('>');
            }
            TypeKind::Vector { shape, scalable, elem } => {
                out.push_str("vector<");
                for (i, &d) in shape.iter().enumerate() {
                    let s = scalable.get(i).copied().unwrap_or(false);
                    if s {
                        out.push('[');
                    }
                    push_dim(out, d);
                    if s {
                        out.push(']');
                    }
                    out.push('x');
                }
                self.type_into(ctx, *elem, out);
                out.push('>');
            }
            TypeKind::MemRef { shape, elem, layout, memory_space } => {
                out.push_str("memref<");
                for &d in shape.iter() {
                    push_dim(out, d);
                    out.push('x');
                }
                self.type_into(ctx, *elem, out);
                if let Some(l) = layout {
                    out.push_str(", ");
                    self.attr_into(ctx, *l, Elision::May, out);
                }
                if let Some(m) = memory_space {
                    out.push_str(", ");
                    self.attr_into(ctx, *m, Elision::May, out);
                }
                out.push('>');
            }
            TypeKind::UnrankedMemRef { elem, memory_space } => {
                out.push_str("memref<*x");
                self.type_into(ctx, *elem, out);
                if let Some(m) = memory_space {
                    out.push_str(", ");
                    self.attr_into(ctx, *m, Elision::May, out);
                }
                out.push('>');
            }
            TypeKind::Complex(e) => {
                out.push_str("complex<");
                self.type_into(ctx, *e, out);
                out.push('>');
            }
            TypeKind::Tuple(ts) => {
                out.push_str("tuple<");
                self.type_list_into(ctx, ts, out);
                out.push('>');
            }
            TypeKind::Dialect { text, .. } => {
                out.push('!');
                out.push_str(text);
            }
        }
    }

    // ---------------------------------------------------------------------------- attributes

    /// Appends the text of `a` to the output buffer.
    pub(crate) fn push_attr(&mut self, ctx: &Context, a: Attr, el: Elision) {
        let mut out = std::mem::take(&mut self.out);
        self.attr_into(ctx, a, el, &mut out);
        self.out = out;
    }

    /// Appends the text of `a` to `out` (through the cache).
    pub(crate) fn attr_into(&mut self, ctx: &Context, a: Attr, el: Elision, out: &mut String) {
        let (s, l) = self.attr_span(ctx, a);
        if s == u32::MAX {
            self.write_attr_uncached(ctx, a, el, out);
            return;
        }
        let mut text = &self.cache[s as usize..(s + l) as usize];
        if el == Elision::May {
            // IntegerAttr elides `: i64`, FloatAttr elides `: f64`.
            match ctx.attr_kind(a) {
                AttrKind::Integer { ty, .. } if *ty == ctx.i64_type() => {
                    text = text.strip_suffix(" : i64").unwrap_or(text)
                }
                // a hex float keeps its type: without it, it would read back as an integer
                AttrKind::Float { ty, .. } if *ty == ctx.f64_type() && !text.starts_with("0x") => {
                    text = text.strip_suffix(" : f64").unwrap_or(text)
                }
                _ => {}
            }
        }
        out.push_str(text);
    }

    /// The cached text of `a`, or `NONE` (print it uncached). An attribute's text is cached
    /// the second time it is printed: most attributes of a large module (its ops' attribute
    /// dictionaries, distinct constants) are printed once, and caching them would only grow
    /// the printer by the module's attribute text.
    fn attr_span(&mut self, ctx: &Context, a: Attr) -> (u32, u32) {
        let i = a.index();
        if self.attr_cache.len() <= i {
            self.attr_cache.resize(i + 1, NONE);
        }
        match self.attr_cache[i] {
            NONE => {
                self.attr_cache[i] = SEEN_ONCE;
                return NONE;
            }
            TOO_LONG => return NONE,
            SEEN_ONCE => {}
            span => return span,
        }
        let mut tmp = String::new();
        self.write_attr_uncached(ctx, a, Elision::Never, &mut tmp);
        if tmp.len() > MAX_CACHED {
            self.attr_cache[i] = TOO_LONG;
            return NONE;
        }
        let span = (self.cache.len() as u32, tmp.len() as u32);
        self.cache.push_str(&tmp);
        self.attr_cache[i] = span;
        span
    }

    /// `key` or `key = value` (unit values print as the bare key).
    pub(crate) fn named_attr_into(&mut self, ctx: &Context, key: Ident, value: Attr, out: &mut String) {
        keyword_or_string_into(out, ctx.str(key));
        if matches!(ctx.attr_kind(value), AttrKind::Unit) {
            return;
        }
        out.push_str(" = ");
        self.attr_into(ctx, value, Elision::Never, out);
    }

    /// `{k = v, ...}` of the given entries (printed even when empty).
    pub(crate) fn dict_entries_into(&mut self, ctx: &Context, entries: &[(Ident, Attr)], out: &mut String) {
        out.push('{');
        for (i, &(k, v)) in entries.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.named_attr_into(ctx, k, v, out);
        }
        out.push('}');
    }

    fn write_attr_uncached(&mut self, ctx: &Context, a: Attr, el: Elision, out: &mut String) {
        if !self.aliases.is_empty() && self.aliases.write(Aliases::attr_key(ctx, a), out) {
            return;
        }
        self.write_attr_impl(ctx, a, el, out);
    }

    /// The attribute itself (nested attributes may use aliases), as in alias definitions.
    pub(crate) fn write_attr_impl(&mut self, ctx: &Context, a: Attr, el: Elision, out: &mut String) {
        if is_aliasable(ctx, a) {
            self.saw_aliasable = true;
        }
        let kind = ctx.attr_kind(a);
        match kind {
            AttrKind::Unit => out.push_str("unit"),
            AttrKind::Integer { value, ty } => {
                if ctx.is_signless_integer(*ty) && ctx.int_width(*ty) == Some(1) {
                    out.push_str(if *value != 0 { "true" } else { "false" });
                    return;
                }
                write_int_value(ctx, *value, *ty, out);
                if el == Elision::May && *ty == ctx.i64_type() {
                    return;
                }
                out.push_str(" : ");
                self.type_into(ctx, *ty, out);
            }
            AttrKind::Float { bits, ty } => {
                let start = out.len();
                match ctx.float_kind(*ty) {
                    Some(k) => print_float_attr(out, k, *bits),
                    None => {
                        let _ = write!(out, "{}", f64::from_bits(*bits));
                    }
                }
                // MLIR always prints the type of a float printed in hex
                let hex = out[start..].starts_with("0x");
                if el == Elision::May && *ty == ctx.f64_type() && !hex {
                    return;
                }
                out.push_str(" : ");
                self.type_into(ctx, *ty, out);
            }
            AttrKind::WideFloat { bits, ty } => {
                if let Some(k) = ctx.float_kind(*ty) {
                    let f = Fmt::of(k);
                    print_float(out, &f, &decode(&f, *bits), *bits);
                }
                out.push_str(" : ");
                self.type_into(ctx, *ty, out);
            }
            AttrKind::String { value, ty } => {
                quoted_into(out, value);
                if let Some(t) = ty {
                    if *t != ctx.none_type() {
                        out.push_str(" : ");
                        self.type_into(ctx, *t, out);
                    }
                }
            }
            AttrKind::Array(items) => {
                out.push('[');
                for (i, &x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.attr_into(ctx, x, Elision::May, out);
                }
                out.push(']');
            }
            AttrKind::Dictionary(entries) => self.dict_entries_into(ctx, entries, out),
            AttrKind::SymbolRef { root, nested } => {
                symbol_into(out, ctx.str(*root));
                for &n in nested.iter() {
                    out.push_str("::");
                    symbol_into(out, ctx.str(n));
                }
            }
            AttrKind::Type(t) => self.type_into(ctx, *t, out),
            AttrKind::DenseArray { elem, data } => {
                out.push_str("array<");
                self.type_into(ctx, *elem, out);
                let n = dense_elem_bytes(ctx, *elem);
                if n > 0 && data.len() >= n {
                    out.push_str(": ");
                    for i in 0..data.len() / n {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_element(ctx, *elem, &data[i * n..(i + 1) * n], out);
                    }
                }
                out.push('>');
            }
            AttrKind::DenseElements { ty, data } => {
                let n = num_elements(ctx, *ty);
                let splat = is_splat(ctx, *ty, data);
                if let Some(limit) = self.elide_limit {
                    if !splat && n > limit as u64 {
                        out.push_str("dense_resource<__elided__> : ");
                        self.type_into(ctx, *ty, out);
                        return;
                    }
                }
                out.push_str("dense<");
                self.write_dense(ctx, *ty, data, splat, n, true, out);
                out.push_str("> : ");
                self.type_into(ctx, *ty, out);
            }
            AttrKind::Sparse { ty, indices, values } => {
                out.push_str("sparse<");
                if let (
                    AttrKind::DenseElements { ty: it, data: idata },
                    AttrKind::DenseElements { ty: vt, data: vdata },
                ) = (ctx.attr_kind(*indices), ctx.attr_kind(*values))
                {
                    let n = num_elements(ctx, *it);
                    if n != 0 {
                        // MLIR prints the indices without hex, the values as `dense<...>` bodies
                        self.write_dense(ctx, *it, idata, is_splat(ctx, *it, idata), n, false, out);
                        out.push_str(", ");
                        let vn = num_elements(ctx, *vt);
                        self.write_dense(ctx, *vt, vdata, is_splat(ctx, *vt, vdata), vn, true, out);
                    }
                }
                out.push_str("> : ");
                self.type_into(ctx, *ty, out);
            }
            AttrKind::DenseResource { handle, ty } => {
                out.push_str("dense_resource<");
                let i = self.use_resource(ctx, *handle);
                keyword_or_string_into(out, &self.resources[i].1);
                out.push_str("> : ");
                self.type_into(ctx, *ty, out);
            }
            AttrKind::Location(l) => self.loc_into(ctx, *l, false, out),
            AttrKind::Distinct { attr, .. } => {
                let next = self.distinct_ids.len() as u32;
                let id = *self.distinct_ids.entry(a).or_insert(next);
                out.push_str("distinct[");
                push_int(out, id);
                out.push_str("]<");
                if !matches!(ctx.attr_kind(*attr), AttrKind::Unit) {
                    self.attr_into(ctx, *attr, Elision::Never, out);
                }
                out.push('>');
            }
            AttrKind::Keyword { text, .. } => out.push_str(text),
            AttrKind::Dialect { text, .. } => {
                out.push('#');
                out.push_str(text);
            }
        }
    }

    /// The body of `dense<...>`: a splat value, nested `[...]` per dimension, or a hex blob for
    /// more than 100 elements (MLIR's default `--mlir-print-elementsattrs-with-hex-if-larger`)
    /// when `allow_hex`.
    #[allow(clippy::too_many_arguments)]
    fn write_dense(
        &mut self,
        ctx: &Context,
        ty: Type,
        data: &DenseData,
        splat: bool,
        n: u64,
        allow_hex: bool,
        out: &mut String,
    ) {
        let elem = ctx.element_type(ty);
        let shape: Vec<i64> = ctx.shape(ty).map(|s| s.to_vec()).unwrap_or_default();
        if n == 0 && !shape.is_empty() {
            return; // `dense<>`
        }
        if let DenseData::Strings(items) = data {
            if items.is_empty() {
                return;
            }
            // malformed data (fewer strings than elements) prints what there is
            let n = n.min(items.len() as u64);
            if splat {
                quoted_into(out, &items[0]);
                return;
            }
            nested_elements(&shape, n, out, |i, out| quoted_into(out, items.get(i).map(|b| &b[..]).unwrap_or(b"")));
            return;
        }
        let bytes: &[u8] = match data {
            DenseData::Splat(b) | DenseData::Elements(b) => b,
            DenseData::Strings(_) => unreachable!(),
        };
        let eb = dense_elem_bytes(ctx, elem);
        if eb == 0 {
            return;
        }
        if splat {
            if bytes.len() >= eb {
                write_element(ctx, elem, &bytes[..eb], out);
            }
            return;
        }
        if n == 0 {
            return;
        }
        if allow_hex && n > 100 {
            // hex blob of the raw little-endian data; i1 is bit-packed in MLIR's storage
            out.push_str("\"0x");
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            let push_byte = |b: u8, out: &mut String| {
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            };
            if ctx.int_width(elem) == Some(1) && ctx.is_integer(elem) {
                for chunk in bytes.chunks(8) {
                    let mut b = 0u8;
                    for (j, &x) in chunk.iter().enumerate() {
                        if x & 1 != 0 {
                            b |= 1 << j;
                        }
                    }
                    push_byte(b, out);
                }
            } else {
                for &b in bytes {
                    push_byte(b, out);
                }
            }
            out.push('"');
            return;
        }
        nested_elements(&shape, n, out, |i, out| {
            if let Some(e) = bytes.get(i * eb..(i + 1) * eb) {
                write_element(ctx, elem, e, out)
            }
        });
    }

    // ---------------------------------------------------------------------------- locations

    /// `loc(...)`; `loc(#alias)` when `allow_alias` and the location has one (nested
    /// locations always use their aliases).
    pub(crate) fn loc_into(&mut self, ctx: &Context, l: Location, allow_alias: bool, out: &mut String) {
        out.push_str("loc(");
        if !(allow_alias && self.aliases.write(Key::Loc(l), out)) {
            self.loc_inner_into(ctx, l, out, 0);
        }
        out.push(')');
    }

    fn loc_inner_into(&mut self, ctx: &Context, l: Location, out: &mut String, depth: u32) {
        if depth > 256 {
            out.push_str("unknown");
            return;
        }
        if depth > 0 && self.aliases.write(Key::Loc(l), out) {
            return;
        }
        match ctx.loc_kind(l) {
            LocKind::Unknown => out.push_str("unknown"),
            LocKind::FileLineCol { file, line, col, end } => {
                quoted_into(out, ctx.str(file).as_bytes());
                out.push(':');
                push_int(out, line);
                out.push(':');
                push_int(out, col);
                if let Some((end_line, end_col)) = end {
                    let el = end_line.unwrap_or(line);
                    if !(el == line && end_col == col) {
                        if el == line {
                            out.push_str(" to :");
                        } else {
                            out.push_str(" to ");
                            push_int(out, el);
                            out.push(':');
                        }
                        push_int(out, end_col);
                    }
                }
            }
            LocKind::Name { name, child } => {
                quoted_into(out, ctx.str(name).as_bytes());
                if let Some(c) = child {
                    if !c.is_unknown() {
                        out.push('(');
                        self.loc_inner_into(ctx, c, out, depth + 1);
                        out.push(')');
                    }
                }
            }
            LocKind::CallSite { callee, caller } => {
                out.push_str("callsite(");
                self.loc_inner_into(ctx, callee, out, depth + 1);
                out.push_str(" at ");
                self.loc_inner_into(ctx, caller, out, depth + 1);
                out.push(')');
            }
            LocKind::Fused { metadata, locs } => {
                out.push_str("fused");
                if let Some(m) = metadata {
                    out.push('<');
                    self.attr_into(ctx, m, Elision::Never, out);
                    out.push('>');
                }
                out.push('[');
                for (i, &c) in locs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.loc_inner_into(ctx, c, out, depth + 1);
                }
                out.push(']');
            }
        }
    }
}

/// Number of elements of a shaped type (1 for scalars / unknown shapes).
fn num_elements(ctx: &Context, ty: Type) -> u64 {
    match ctx.shape(ty) {
        Some(s) => s.iter().fold(1u64, |acc, &d| acc.saturating_mul(d.max(0) as u64)),
        None => 1,
    }
}

/// True when MLIR would store the attribute as a splat: explicitly a splat, one element, or
/// all elements equal (MLIR's `DenseElementsAttr::get` detects that).
fn is_splat(ctx: &Context, ty: Type, data: &DenseData) -> bool {
    match data {
        DenseData::Splat(_) => true,
        DenseData::Elements(b) => {
            let eb = dense_elem_bytes(ctx, ctx.element_type(ty));
            if eb == 0 || b.len() < eb {
                return false;
            }
            let first = &b[..eb];
            // i1 elements compare by their low bit
            if ctx.int_width(ctx.element_type(ty)) == Some(1) && ctx.is_integer(ctx.element_type(ty)) {
                return b.iter().all(|&x| (x & 1) == (first[0] & 1));
            }
            b.chunks_exact(eb).all(|c| c == first)
        }
        DenseData::Strings(items) => !items.is_empty() && items.iter().all(|s| s == &items[0]),
    }
}

/// MLIR's `printDenseElementsAttrImpl` mixed-radix walk: brackets per dimension.
fn nested_elements(shape: &[i64], n: u64, out: &mut String, mut elem: impl FnMut(usize, &mut String)) {
    let rank = shape.len();
    if rank == 0 {
        elem(0, out);
        return;
    }
    let mut counter = vec![0i64; rank];
    let mut open = 0usize;
    for idx in 0..n as usize {
        if idx != 0 {
            out.push_str(", ");
        }
        while open < rank {
            out.push('[');
            open += 1;
        }
        elem(idx, out);
        // bump the counter
        counter[rank - 1] += 1;
        let mut i = rank - 1;
        while i > 0 {
            if counter[i] >= shape[i] {
                counter[i] = 0;
                counter[i - 1] += 1;
                open -= 1;
                out.push(']');
            }
            i -= 1;
        }
    }
    while open > 0 {
        out.push(']');
        open -= 1;
    }
}

/// An integer value of type `ty`: unsigned types print unsigned, the rest signed.
fn write_int_value(ctx: &Context, value: i128, ty: Type, out: &mut String) {
    match ctx.type_kind(ty) {
        TypeKind::Integer { width, signedness: Signedness::Unsigned } => {
            let v = value as u128;
            let v = if *width >= 128 { v } else { v & ((1u128 << width) - 1) };
            push_int(out, v);
        }
        _ => push_int(out, value),
    }
}

/// One element of dense storage (`bytes` is exactly one element) of scalar or complex type.
fn write_element(ctx: &Context, elem: Type, bytes: &[u8], out: &mut String) {
    match ctx.type_kind(elem) {
        TypeKind::Complex(inner) => {
            let h = bytes.len() / 2;
            out.push('(');
            write_element(ctx, *inner, &bytes[..h], out);
            out.push(',');
            write_element(ctx, *inner, &bytes[h..], out);
            out.push(')');
        }
        TypeKind::Float(k) => {
            let f = Fmt::of(*k);
            let mut buf = [0u8; 16];
            let n = bytes.len().min(16);
            buf[..n].copy_from_slice(&bytes[..n]);
            let bits = u128::from_le_bytes(buf);
            let bits = if f.width >= 128 { bits } else { bits & ((1u128 << f.width) - 1) };
            print_float(out, &f, &decode(&f, bits), bits);
        }
        TypeKind::Integer { width, signedness } => {
            let mut buf = [0u8; 16];
            let n = bytes.len().min(16);
            buf[..n].copy_from_slice(&bytes[..n]);
            let raw = u128::from_le_bytes(buf);
            // MLIR's `printDenseIntElement` uses `isInteger(1)`: any signedness
            let _ = signedness;
            if *width == 1 {
                out.push_str(if raw & 1 != 0 { "true" } else { "false" });
                return;
            }
            let v = crate::attrs::normalize_int(ctx, raw as i128, elem);
            write_int_value(ctx, v, elem, out);
        }
        TypeKind::Index => {
            let mut buf = [0u8; 8];
            let n = bytes.len().min(8);
            buf[..n].copy_from_slice(&bytes[..n]);
            push_int(out, i64::from_le_bytes(buf));
        }
        _ => out.push('?'),
    }
}
