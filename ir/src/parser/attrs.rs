//! Attributes: every builtin attribute of [`AttrKind`] (integers, floats, strings, arrays,
//! dictionaries, symbol references, unit, types, `array<..>`, `dense<..>` with element lists,
//! splats and hex blobs, `dense_resource<..>`, `distinct[N]<..>`, affine/strided keyword
//! attributes kept as text, `loc(..)`), attribute aliases and dialect attributes (as text).

use smallvec::SmallVec;

use super::{PResult, Parser};
use crate::attrs::{dense_elem_bytes, float_to_bits, write_int, AttrKind, DenseData};
use crate::context::{Attr, Ident};
use crate::lexer::{hex_val, Tok, Token};
use crate::types::{FloatKind, Signedness, Type, TypeKind, DYNAMIC};

/// One scalar of a tensor literal.
#[derive(Copy, Clone, Debug)]
struct Elem {
    neg: bool,
    tok: Token,
}

/// One element of a tensor literal: a scalar, or a complex `(re, im)` pair.
#[derive(Copy, Clone, Debug)]
struct Leaf {
    a: Elem,
    b: Option<Elem>,
}

enum DenseLit {
    Empty,
    Str(Token),
    Elems { leaves: Vec<Leaf>, dims: SmallVec<[i64; 4]> },
}

/// Parses an unsigned integer literal (decimal or `0x` hex).
pub(crate) fn parse_uint(s: &[u8]) -> Option<u128> {
    let (digits, radix) = match s.strip_prefix(b"0x") {
        Some(h) => (h, 16u32),
        None => (s, 10),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: u128 = 0;
    for &c in digits {
        let d = (c as char).to_digit(radix)? as u128;
        v = v.checked_mul(radix as u128)?.checked_add(d)?;
    }
    Some(v)
}

/// Checks that `mag` (negated if `neg`) fits an integer of `width` bits and `sign`, as MLIR's
/// `buildAttributeAPInt` does; returns the value or `None`.
fn int_in_range(mag: u128, neg: bool, width: u32, sign: Signedness) -> Option<i128> {
    if width == 0 {
        // `i0`, `si0`, `ui0` hold 0 only (MLIR rejects `-0` too)
        return (mag == 0 && !neg).then_some(0);
    }
    let fits_unsigned = |bits: u32| bits >= 128 || mag < (1u128 << bits);
    let ok = match (sign, neg) {
        (Signedness::Unsigned, _) => fits_unsigned(width),
        (Signedness::Signed, false) => width > 0 && fits_unsigned(width - 1),
        (_, true) => width > 0 && (width > 128 || mag <= (1u128 << (width - 1))),
        (Signedness::Signless, false) => fits_unsigned(width),
    };
    if !ok {
        return None;
    }
    Some(if neg { (mag as i128).wrapping_neg() } else { mag as i128 })
}

fn parse_float_text(s: &[u8]) -> f64 {
    std::str::from_utf8(s).ok().and_then(|t| t.parse::<f64>().ok()).unwrap_or(f64::NAN)
}

/// The stored bits of decimal float text `s` (negated if `neg`) in float type `kind`.
fn float_bits_from_text(kind: FloatKind, s: &[u8], neg: bool) -> u64 {
    if kind == FloatKind::F32 {
        let v = std::str::from_utf8(s).ok().and_then(|t| t.parse::<f32>().ok()).unwrap_or(f32::NAN);
        let v = if neg { -v } else { v };
        return v.to_bits() as u64;
    }
    let v = parse_float_text(s);
    float_to_bits(kind, if neg { -v } else { v })
}

impl<'s> Parser<'s> {
    /// `attribute-value`.
    pub(crate) fn parse_attr(&mut self) -> PResult<Attr> {
        super::with_stack(|| self.parse_attr_inner())
    }

    fn parse_attr_inner(&mut self) -> PResult<Attr> {
        match self.tok.kind {
            Tok::LBrace => self.parse_dict_attr(),
            Tok::LSquare => self.parse_array_attr(),
            Tok::String => {
                let t = self.tok;
                self.bump();
                let value = self.string_value(t);
                let ty = if self.eat(Tok::Colon) { Some(self.parse_type()?) } else { None };
                Ok(self.ctx.attr(AttrKind::String { value: value.into(), ty }))
            }
            Tok::Integer | Tok::Float | Tok::Minus => self.parse_number_attr(),
            Tok::AtId | Tok::AtString => self.parse_symbol_ref(),
            Tok::HashId => self.parse_extended_attr(),
            Tok::ExclaimId | Tok::LParen => {
                let t = self.parse_type()?;
                Ok(self.ctx.type_attr(t))
            }
            Tok::BareId => self.parse_keyword_attr(),
            _ => Err(self.wrong_token("expected attribute value")),
        }
    }

    /// The bytes of string literal token `t`.
    pub(crate) fn string_value(&mut self, t: Token) -> Vec<u8> {
        let raw = self.text(t);
        let raw = if raw.first() == Some(&b'@') { &raw[1..] } else { raw };
        if memchr::memchr(b'\\', raw).is_none() {
            return raw[1..raw.len() - 1].to_vec();
        }
        let mut out = std::mem::take(&mut self.sbuf);
        crate::lexer::unescape(raw, &mut out);
        let v = out.clone();
        self.sbuf = out;
        v
    }

    /// `{ (key (= value)?)* }`, looked up in the span cache first.
    pub(crate) fn parse_dict_attr(&mut self) -> PResult<Attr> {
        let start = self.tok.start;
        let end = match self.cached_attr() {
            Ok(a) => return Ok(a),
            Err(e) => e,
        };
        let entries = self.parse_dict_entries()?;
        let a = if entries.is_empty() { self.ctx.empty_dict() } else { self.ctx.dict(&entries) };
        if let Some(end) = end {
            let consumed = self.last_end;
            self.cache_attr(start, end, consumed, a);
        }
        Ok(a)
    }

    pub(crate) fn parse_dict_entries(&mut self) -> PResult<SmallVec<[(Ident, Attr); 8]>> {
        self.expect(Tok::LBrace, "expected '{' in attribute dictionary")?;
        let mut entries: SmallVec<[(Ident, Attr); 8]> = SmallVec::new();
        if self.eat(Tok::RBrace) {
            return Ok(entries);
        }
        self.enter()?;
        let mut seen: Option<rustc_hash::FxHashSet<Ident>> = None;
        loop {
            let kt = self.tok;
            let key = match kt.kind {
                Tok::BareId => self.ctx.ident(self.tstr(kt)),
                Tok::String => {
                    let v = self.string_value(kt);
                    if v.is_empty() {
                        return Err(self.error_here("expected valid attribute name"));
                    }
                    self.utf8_ident(&v, kt.start, "attribute names")?
                }
                _ => return Err(self.wrong_token("expected attribute name")),
            };
            self.bump();
            let dup = if entries.len() < 16 {
                entries.iter().any(|e| e.0 == key)
            } else {
                let set = seen.get_or_insert_with(|| entries.iter().map(|e| e.0).collect());
                !set.insert(key)
            };
            if dup {
                let k = self.ctx.str(key).to_string();
                return Err(self.error_at(kt.start, format!("duplicate key '{k}' in dictionary attribute")));
            }
            let value = if self.eat(Tok::Equal) { self.parse_attr()? } else { self.ctx.unit_attr() };
            entries.push((key, value));
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace, "expected '}' in attribute dictionary")?;
        self.leave();
        Ok(entries)
    }

    fn parse_array_attr(&mut self) -> PResult<Attr> {
        self.bump();
        let mut items: SmallVec<[Attr; 8]> = SmallVec::new();
        if self.eat(Tok::RSquare) {
            return Ok(self.ctx.array_attr(&items));
        }
        self.enter()?;
        loop {
            items.push(self.parse_attr()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RSquare, "expected ',' or ']'")?;
        self.leave();
        Ok(self.ctx.array_attr(&items))
    }

    /// `-`? integer or float literal, with an optional `: type`.
    fn parse_number_attr(&mut self) -> PResult<Attr> {
        let neg = self.eat(Tok::Minus);
        let t = self.tok;
        match t.kind {
            Tok::Float => {
                self.bump();
                let ty = if self.eat(Tok::Colon) {
                    let ty = self.parse_type()?;
                    if !self.ctx.is_float(ty) {
                        return Err(self.error_here("floating point value not valid for specified type"));
                    }
                    ty
                } else {
                    self.ctx.f64_type()
                };
                let kind = self.ctx.float_kind(ty).unwrap_or(FloatKind::F64);
                let bits = float_bits_from_text(kind, self.text(t), neg);
                Ok(self.ctx.attr(AttrKind::Float { bits, ty }))
            }
            Tok::Integer => {
                self.bump();
                if !self.eat(Tok::Colon) {
                    let i64t = self.ctx.i64_type();
                    let v = self.int_value(t, neg, i64t, "integer constant out of range for attribute")?;
                    return Ok(self.ctx.int_attr(v, i64t));
                }
                let ty = self.parse_type()?;
                if let Some(kind) = self.ctx.float_kind(ty) {
                    let bits = self.hex_float_bits(t, neg, kind)?;
                    return Ok(self.float_attr(kind, bits, ty));
                }
                if !self.ctx.is_int_or_index(ty) {
                    return Err(self.error_at(t.start, "integer literal not valid for specified type"));
                }
                let v = self.int_value(t, neg, ty, "integer constant out of range for attribute")?;
                Ok(self.ctx.int_attr(v, ty))
            }
            _ => Err(self.wrong_token("expected constant integer or floating point value")),
        }
    }

    /// The value of integer token `t` (negated if `neg`) checked against integer type `ty`.
    fn int_value(&mut self, t: Token, neg: bool, ty: Type, range_msg: &str) -> PResult<i128> {
        let (width, sign) = match self.ctx.type_kind(ty) {
            TypeKind::Integer { width, signedness } => (*width, *signedness),
            _ => (64, Signedness::Signless),
        };
        if neg && sign == Signedness::Unsigned {
            return Err(self.error_at(t.start, "negative integer literal not valid for unsigned integer type"));
        }
        match parse_uint(self.text(t)).and_then(|m| int_in_range(m, neg, width, sign)) {
            Some(v) => Ok(v),
            None => Err(self.error_at(t.start, range_msg)),
        }
    }

    /// The float attribute of type `ty` (of `kind`) whose encoding is `bits`: a `Float` holding
    /// the encoding for the kinds stored exactly, else the `f64` of the value (see
    /// `float_to_bits`); an `f80` or `f128` value that an `f64` cannot hold (a NaN payload,
    /// more precision) is a `WideFloat` holding its encoding, never a rounded value.
    fn float_attr(&mut self, kind: FloatKind, bits: u128, ty: Type) -> Attr {
        use crate::float_format::{f64_to_kind_bits, kind_bits_to_f64};
        if kind.is_exact() {
            return self.ctx.attr(AttrKind::Float { bits: bits as u64, ty });
        }
        let v = kind_bits_to_f64(kind, bits);
        if f64_to_kind_bits(kind, v) != bits {
            return self.ctx.attr(AttrKind::WideFloat { bits, ty });
        }
        self.ctx.attr(AttrKind::Float { bits: v.to_bits(), ty })
    }

    /// The bits of an integer token used as a float of `kind` (its encoding): only hexadecimal
    /// literals are bit patterns; a decimal integer is an error, as in MLIR.
    fn hex_float_bits(&mut self, t: Token, neg: bool, kind: FloatKind) -> PResult<u128> {
        let s = self.text(t);
        if !s.starts_with(b"0x") {
            let d = self.error_at(t.start, "unexpected decimal integer literal for a floating point value");
            return Err(self.note_at(d, t.start, "add a trailing dot to make the literal a float"));
        }
        if neg {
            return Err(self.error_at(t.start, "hexadecimal float literal should not have a leading minus"));
        }
        let w = kind.width();
        match parse_uint(s) {
            Some(v) if w >= 128 || v < (1u128 << w) => Ok(v),
            _ => Err(self.error_at(t.start, "hexadecimal float constant out of range for type")),
        }
    }

    /// `@a`, `@"quoted"`, `@a::@b::@c`.
    fn parse_symbol_ref(&mut self) -> PResult<Attr> {
        let root = self.symbol_name()?;
        let mut nested: SmallVec<[Ident; 2]> = SmallVec::new();
        // `::` is two `:` tokens, as MLIR lexes it (so `1 :: i32` is a `:` then a bad type);
        // a lone `:` after the reference is left alone.
        while self.is(Tok::Colon) && self.lex.clone().next_token().kind == Tok::Colon {
            self.bump();
            self.bump();
            if !matches!(self.tok.kind, Tok::AtId | Tok::AtString) {
                return Err(self.wrong_token("expected nested symbol reference identifier"));
            }
            nested.push(self.symbol_name()?);
        }
        Ok(self.ctx.attr(AttrKind::SymbolRef { root, nested: nested.as_slice().into() }))
    }

    /// The name of the `@` token at the cursor (consumed).
    pub(crate) fn symbol_name(&mut self) -> PResult<Ident> {
        let t = self.tok;
        let id = match t.kind {
            Tok::AtId => self.ctx.ident(&self.tstr(t)[1..]),
            Tok::AtString => {
                let v = self.string_value(t);
                self.utf8_ident(&v, t.start, "symbol names")?
            }
            _ => return Err(self.wrong_token("expected valid '@'-identifier for symbol name")),
        };
        self.bump();
        Ok(id)
    }

    /// `#alias` or a dialect attribute `#dialect.name<...>` / `#dialect<...>` (its `: type`
    /// kept in the text, printed canonically).
    fn parse_extended_attr(&mut self) -> PResult<Attr> {
        let t = self.tok;
        let ident = &self.text(t)[1..];
        let has_body = self.byte_after(t) == Some(b'<');
        if !ident.contains(&b'.') && !has_body {
            self.bump();
            return match self.lookup_attr_alias(ident) {
                Some(a) => Ok(a),
                None => {
                    // placed as MLIR's emitWrongTokenError places it
                    Err(self.wrong_token(&format!("undefined symbol alias id '{}'", String::from_utf8_lossy(ident))))
                }
            };
        }
        let end = self.dialect_symbol_end(t)?;
        let text = &self.src[t.start as usize + 1..end];
        let ns = ident.split(|&c| c == b'.').next().unwrap_or(b"");
        let ns = std::str::from_utf8(ns).unwrap_or("");
        let mut canonical = self.check_dialect_symbol(t, ns, ident, text, false)?;
        self.reset_to(end);
        if self.is(Tok::Colon) {
            self.bump();
            // the type as printed, not as written: an alias (`!a`) is resolved
            let ty = self.parse_type()?;
            canonical.push_str(" : ");
            canonical.push_str(&self.type_str(ty));
        }
        Ok(self.ctx.attr(AttrKind::Dialect { dialect: self.ctx.ident(ns), text: canonical.into() }))
    }

    /// Attributes introduced by a bare keyword, or a type attribute.
    fn parse_keyword_attr(&mut self) -> PResult<Attr> {
        let t = self.tok;
        let ctx = self.ctx;
        match self.text(t) {
            b"true" => {
                self.bump();
                Ok(ctx.bool_attr(true))
            }
            b"false" => {
                self.bump();
                Ok(ctx.bool_attr(false))
            }
            b"unit" => {
                self.bump();
                Ok(ctx.unit_attr())
            }
            b"dense" => self.parse_dense_attr(),
            b"sparse" => self.parse_sparse_attr(),
            b"array" => self.parse_dense_array_attr(),
            b"dense_resource" => {
                self.bump();
                self.expect(Tok::Less, "expected '<' after 'dense_resource'")?;
                let handle = self.parse_dense_resource_handle()?;
                self.expect(Tok::Greater, "expected '>'")?;
                self.expect(Tok::Colon, "expected ':'")?;
                let toff = self.tok.start;
                let ty = self.parse_type()?;
                if !ctx.type_kind(ty).is_shaped() {
                    return Err(self.error_at(toff, "`dense_resource` expected a shaped type"));
                }
                Ok(ctx.attr(AttrKind::DenseResource { handle, ty }))
            }
            b"distinct" => {
                self.bump();
                self.expect(Tok::LSquare, "expected '[' after 'distinct'")?;
                let it = self.tok;
                let id = match (it.kind, parse_uint(self.text(it))) {
                    (Tok::Integer, Some(v)) if v <= u64::MAX as u128 => v as u64,
                    _ => return Err(self.wrong_token("expected distinct ID")),
                };
                self.bump();
                self.expect(Tok::RSquare, "expected ']' to close distinct ID")?;
                self.expect(Tok::Less, "expected '<' after distinct ID")?;
                // `distinct[N]<>` refers to a unit attribute (as MLIR prints it).
                let attr = if self.eat(Tok::Greater) {
                    ctx.unit_attr()
                } else {
                    self.enter()?;
                    let attr = self.parse_attr()?;
                    self.leave();
                    self.expect(Tok::Greater, "expected '>' to close distinct attribute")?;
                    attr
                };
                // One id names one attribute throughout the input.
                match self.distinct_ids.get(&id) {
                    Some(&prev) if prev != attr => {
                        let msg = format!("referenced attribute does not match previous definition: {}", self.attr_str(prev));
                        Err(self.error_at(t.start, msg))
                    }
                    _ => {
                        self.distinct_ids.insert(id, attr);
                        Ok(ctx.attr(AttrKind::Distinct { id, attr }))
                    }
                }
            }
            kw @ (b"affine_map" | b"affine_set" | b"strided") => {
                // parsed and kept in MLIR's printed form (see `affine.rs`)
                let text = self.parse_affine_keyword(kw)?;
                let keyword = ctx.ident(std::str::from_utf8(kw).unwrap_or(""));
                Ok(ctx.attr(AttrKind::Keyword { keyword, text: text.into() }))
            }
            b"loc" => {
                self.bump();
                let l = self.parse_loc_parens()?;
                Ok(ctx.attr(AttrKind::Location(l)))
            }
            s if super::types::builtin_type_keyword(s) => {
                let ty = self.parse_type()?;
                Ok(ctx.type_attr(ty))
            }
            _ => Err(self.wrong_token("expected attribute value")),
        }
    }

    /// `array<type (: elements)?>`.
    fn parse_dense_array_attr(&mut self) -> PResult<Attr> {
        self.bump();
        self.expect(Tok::Less, "expected '<' after 'array'")?;
        let toff = self.tok.start;
        let elem = self.parse_type()?;
        let ctx = self.ctx;
        let is_int = ctx.is_int_or_index(elem) && ctx.int_width(elem).is_some();
        let fkind = ctx.float_kind(elem);
        if !is_int && fkind.is_none() {
            let s = self.type_str(elem);
            return Err(self.error_at(toff, format!("expected integer or float type, got: '{s}'")));
        }
        if ctx.int_width(elem).is_some_and(|w| w != 1 && w % 8 != 0) {
            return Err(self.error_at(toff, "element type bitwidth must be a multiple of 8"));
        }
        let nbytes = dense_elem_bytes(ctx, elem);
        let mut data: Vec<u8> = Vec::new();
        if !self.is(Tok::Greater) {
            self.expect(Tok::Colon, "expected ':' after dense array type")?;
            loop {
                let neg = self.eat(Tok::Minus);
                let t = self.tok;
                match (t.kind, fkind) {
                    (Tok::Integer, None) => {
                        self.bump();
                        let v = match parse_uint(self.text(t)).and_then(|m| {
                            let (w, s) = int_info(ctx, elem);
                            int_in_range(m, neg, w, s)
                        }) {
                            Some(v) => v,
                            None => return Err(self.error_here("integer constant out of range")),
                        };
                        write_elem_int(&mut data, v, ctx.int_width(elem).unwrap_or(64), nbytes);
                    }
                    (Tok::BareId, None)
                        if matches!(self.text(t), b"true" | b"false") && ctx.int_width(elem) == Some(1) =>
                    {
                        self.bump();
                        data.push((self.text(t) == b"true") as u8);
                    }
                    (Tok::Float, Some(k)) => {
                        self.bump();
                        if !k.is_exact() {
                            return Err(self
                                .error_at(t.start, format!("'{}' array elements are not supported yet", k.keyword())));
                        }
                        let bits = float_bits_from_text(k, self.text(t), neg);
                        write_int(&mut data, bits as i128, nbytes);
                    }
                    (Tok::Integer, Some(k)) => {
                        self.bump();
                        let bits = self.hex_float_bits(t, neg, k)?;
                        write_int(&mut data, bits as i128, nbytes);
                    }
                    (Tok::Float, None) => {
                        return Err(self.error_at(t.start, "expected integer literal"));
                    }
                    (_, None) => return Err(self.error_here("expected integer literal")),
                    (_, Some(_)) => return Err(self.error_here("expected floating point literal")),
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::Greater, "expected '>' to close an array attribute")?;
        Ok(ctx.attr(AttrKind::DenseArray { elem, data: data.into() }))
    }

    /// `dense<literal> : shaped-type`.
    fn parse_dense_attr(&mut self) -> PResult<Attr> {
        let dense_off = self.tok.start;
        self.bump();
        self.expect(Tok::Less, "expected '<' after 'dense'")?;
        let lit = if self.eat(Tok::Greater) {
            DenseLit::Empty
        } else {
            let lit = self.parse_dense_literal()?;
            self.expect(Tok::Greater, "expected '>'")?;
            lit
        };
        self.expect(Tok::Colon, "expected ':'")?;
        let ty = self.parse_type()?;
        let data = self.dense_data(lit, ty, dense_off)?;
        Ok(self.ctx.attr(AttrKind::DenseElements { ty, data }))
    }

    /// `sparse<indices, values> : type` (MLIR's `SparseElementsAttr`): the indices as an
    /// `N x rank` tensor of i64, the values as an `N`-element tensor, checked as MLIR checks them.
    fn parse_sparse_attr(&mut self) -> PResult<Attr> {
        let off = self.tok.start;
        self.bump();
        self.expect(Tok::Less, "expected '<' after 'sparse'")?;
        // where MLIR reports errors of the indices and of the values
        let ioff = self.tok.start;
        let mut voff = ioff;
        let lits = if self.eat(Tok::Greater) {
            None
        } else {
            let indices = if self.is(Tok::String) {
                return Err(self.error_here("expected integer elements, but parsed string"));
            } else {
                self.parse_dense_literal()?
            };
            self.expect(Tok::Comma, "expected ','")?;
            voff = self.tok.start;
            let values = self.parse_dense_literal()?;
            self.expect(Tok::Greater, "expected '>'")?;
            Some((indices, values))
        };
        self.expect(Tok::Colon, "expected ':'")?;
        let ty = self.parse_type()?;
        let ctx = self.ctx;
        let (shape, elem) = match ctx.type_kind(ty) {
            TypeKind::RankedTensor { shape, elem, .. } | TypeKind::Vector { shape, elem, .. } => (shape.to_vec(), *elem),
            _ => return Err(self.error_at(off, "elements literal must be a shaped type")),
        };
        if shape.contains(&DYNAMIC) {
            return Err(self.error_at(off, "elements literal type must have static shape"));
        }
        let rank = shape.len() as i64;
        let Some((ilit, vlit)) = lits else {
            let it = ctx.tensor_type(&[0, rank], ctx.i64_type());
            let vt = ctx.tensor_type(&[0], elem);
            let indices = ctx.attr(AttrKind::DenseElements { ty: it, data: DenseData::Elements(Box::new([])) });
            let empty = if self.is_string_elem(elem) { DenseData::Strings(Box::new([])) } else { DenseData::Elements(Box::new([])) };
            let values = ctx.attr(AttrKind::DenseElements { ty: vt, data: empty });
            return Ok(ctx.attr(AttrKind::Sparse { ty, indices, values }));
        };
        let lit_dims = |l: &DenseLit| match l {
            DenseLit::Elems { dims, .. } => Some(dims.to_vec()),
            _ => None,
        };
        let idims = lit_dims(&ilit).filter(|d| !d.is_empty()).unwrap_or_else(|| vec![1, rank]);
        let vdims = match lit_dims(&vlit) {
            Some(d) if d.is_empty() => vec![idims[0]],
            Some(d) => d,
            None => vec![idims[0]], // a hex string: as many values as indices
        };
        if vdims.len() != 1 {
            return Err(self.error_at(off, "expected 1-d tensor for sparse element values"));
        }
        let shape_ok = match idims.len() {
            2 => idims[1] == rank,
            1 => rank == 1,
            _ => false,
        };
        if !shape_ok || idims[0] != vdims[0] {
            let f = |d: &[i64]| d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
            let msg = format!(
                "expected shape ([{}]); inferred shape of indices literal ([{}]); inferred shape of values literal ([{}])",
                f(&shape),
                f(&idims),
                f(&vdims)
            );
            return Err(self.error_at(off, msg));
        }
        let it = ctx.tensor_type(&idims, ctx.i64_type());
        let vt = ctx.tensor_type(&vdims, elem);
        let idata = self.dense_data(ilit, it, ioff)?;
        let vdata = self.dense_data(vlit, vt, voff)?;
        self.check_sparse_indices(off, ty, &shape, &idata, idims[0] as usize)?;
        let indices = ctx.attr(AttrKind::DenseElements { ty: it, data: idata });
        let values = ctx.attr(AttrKind::DenseElements { ty: vt, data: vdata });
        Ok(ctx.attr(AttrKind::Sparse { ty, indices, values }))
    }

    fn is_string_elem(&self, elem: Type) -> bool {
        let ctx = self.ctx;
        !ctx.is_int_or_index(elem) && !ctx.is_float(elem) && !matches!(ctx.type_kind(elem), TypeKind::Complex(_))
    }

    /// Each of the `n` sparse indices (rows of `data`, i64) lies within `shape`.
    fn check_sparse_indices(&mut self, off: u32, ty: Type, shape: &[i64], data: &DenseData, n: usize) -> PResult<()> {
        let rank = shape.len();
        let bytes: &[u8] = match data {
            DenseData::Splat(b) | DenseData::Elements(b) => b,
            DenseData::Strings(_) => return Ok(()),
        };
        let splat = matches!(data, DenseData::Splat(_));
        let at = |i: usize| {
            let j = if splat { 0 } else { i };
            bytes.get(j * 8..j * 8 + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        };
        for row in 0..if splat { 1 } else { n } {
            let index: Vec<u64> = (0..rank).map(|d| at(row * rank + d)).collect();
            if index.iter().zip(shape).any(|(&i, &d)| i >= d as u64) {
                let list = index.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
                let ts = self.type_str(ty);
                let msg = format!(
                    "sparse index #{row} is not contained within the value shape, with index=[{list}], and type='{ts}'"
                );
                return Err(self.error_at(off, msg));
            }
        }
        Ok(())
    }

    /// The body of `dense<...>`: a hex string or a tensor literal.
    fn parse_dense_literal(&mut self) -> PResult<DenseLit> {
        if self.is(Tok::String) {
            let t = self.tok;
            self.bump();
            return Ok(DenseLit::Str(t));
        }
        let mut leaves = Vec::new();
        let mut dims = SmallVec::new();
        self.parse_tensor_literal(&mut leaves, &mut dims)?;
        Ok(DenseLit::Elems { leaves, dims })
    }

    /// The elements of literal `lit` for shaped type `ty` (errors at `dense_off`).
    fn dense_data(&mut self, lit: DenseLit, ty: Type, dense_off: u32) -> PResult<DenseData> {
        let ctx = self.ctx;
        let (shape, elem): (&[i64], Type) = match ctx.type_kind(ty) {
            TypeKind::RankedTensor { shape, elem, .. } | TypeKind::Vector { shape, elem, .. } => (shape, *elem),
            _ => return Err(self.error_at(dense_off, "elements literal must be a shaped type")),
        };
        if shape.contains(&DYNAMIC) {
            return Err(self.error_at(dense_off, "elements literal type must have static shape"));
        }
        let numel = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
        let Some(numel) = numel.filter(|&n| n <= u32::MAX as u64) else {
            return Err(self.error_at(dense_off, "elements literal has too many elements (the limit is 2^32 - 1)"));
        };
        let numel = numel as usize;
        let string_elems =
            !ctx.is_int_or_index(elem) && !ctx.is_float(elem) && !matches!(ctx.type_kind(elem), TypeKind::Complex(_));
        let data = match lit {
            DenseLit::Empty => {
                if numel != 0 {
                    let s = self.type_str(ty);
                    return Err(
                        self.error_at(dense_off, format!("parsed zero elements, but type ('{s}') expected at least 1"))
                    );
                }
                if string_elems {
                    DenseData::Strings(Box::new([]))
                } else {
                    DenseData::Elements(Box::new([]))
                }
            }
            DenseLit::Str(t) if string_elems => {
                let v = self.string_value(t);
                DenseData::Strings(Box::new([v.into()]))
            }
            DenseLit::Str(t) => self.dense_hex(t, ty, elem, numel, dense_off)?,
            DenseLit::Elems { leaves, dims } => {
                let splat = dims.is_empty();
                if !splat && dims.as_slice() != shape {
                    let f = |d: &[i64]| d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
                    return Err(self.error_at(
                        dense_off,
                        format!(
                            "inferred shape of elements literal ([{}]) does not match type ([{}])",
                            f(&dims),
                            f(shape)
                        ),
                    ));
                }
                if string_elems {
                    let mut strs: Vec<Box<[u8]>> = Vec::with_capacity(leaves.len());
                    for l in &leaves {
                        if l.a.tok.kind != Tok::String || l.b.is_some() {
                            return Err(self.error_at(l.a.tok.start, "expected string elements"));
                        }
                        strs.push(self.string_value(l.a.tok).into());
                    }
                    if splat {
                        strs.truncate(1);
                        DenseData::Strings(strs.into())
                    } else {
                        normalize_strings(strs)
                    }
                } else {
                    let eb = dense_elem_bytes(ctx, elem);
                    let mut bytes = Vec::with_capacity(leaves.len() * eb);
                    for l in &leaves {
                        self.write_leaf(&mut bytes, *l, elem, dense_off)?;
                    }
                    if splat {
                        DenseData::Splat(bytes.into())
                    } else {
                        normalize_elements(bytes, eb)
                    }
                }
            }
        };
        Ok(match data {
            DenseData::Splat(_) if numel == 0 => DenseData::Elements(Box::new([])),
            d => d,
        })
    }

    /// A tensor literal: an element or a nested list; `dims` receives its inferred shape.
    fn parse_tensor_literal(&mut self, leaves: &mut Vec<Leaf>, dims: &mut SmallVec<[i64; 4]>) -> PResult<()> {
        if !self.is(Tok::LSquare) {
            dims.clear();
            let l = self.parse_tensor_leaf()?;
            leaves.push(l);
            return Ok(());
        }
        self.bump();
        self.enter()?;
        dims.clear();
        if self.eat(Tok::RSquare) {
            dims.push(0);
            self.leave();
            return Ok(());
        }
        let mut first: Option<SmallVec<[i64; 4]>> = None;
        let mut n: i64 = 0;
        let mut sub = SmallVec::new();
        loop {
            super::with_stack(|| self.parse_tensor_literal(leaves, &mut sub))?;
            n += 1;
            match &first {
                None => first = Some(sub.clone()),
                Some(f) if *f != sub => {
                    return Err(self.error_here("tensor literal is invalid; ranks are not consistent between elements"))
                }
                _ => {}
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RSquare, "expected ']'")?;
        self.leave();
        dims.push(n);
        dims.extend(first.unwrap_or_default());
        Ok(())
    }

    fn parse_tensor_leaf(&mut self) -> PResult<Leaf> {
        if self.eat(Tok::LParen) {
            let a = self.parse_tensor_scalar()?;
            self.expect(Tok::Comma, "expected ',' between complex elements")?;
            let b = self.parse_tensor_scalar()?;
            self.expect(Tok::RParen, "expected ')' after complex elements")?;
            return Ok(Leaf { a, b: Some(b) });
        }
        Ok(Leaf { a: self.parse_tensor_scalar()?, b: None })
    }

    fn parse_tensor_scalar(&mut self) -> PResult<Elem> {
        let neg = self.eat(Tok::Minus);
        let t = self.tok;
        let ok = match t.kind {
            Tok::Integer | Tok::Float => true,
            Tok::BareId => !neg && matches!(self.text(t), b"true" | b"false"),
            Tok::String => !neg,
            _ => false,
        };
        if !ok {
            return Err(self.error_here("expected element literal of primitive type"));
        }
        self.bump();
        Ok(Elem { neg, tok: t })
    }

    /// Appends the storage of one literal element of type `elem`.
    fn write_leaf(&mut self, out: &mut Vec<u8>, l: Leaf, elem: Type, dense_off: u32) -> PResult<()> {
        if let TypeKind::Complex(inner) = self.ctx.type_kind(elem) {
            let Some(b) = l.b else {
                let es = self.type_str(elem);
                return Err(self.error_at(dense_off, format!("parsed 1 elements, but type ('{es}') expected 2 elements")));
            };
            self.write_scalar(out, l.a, *inner)?;
            return self.write_scalar(out, b, *inner);
        }
        if l.b.is_some() {
            return Err(self.error_at(l.a.tok.start, "complex element literal for a non-complex element type"));
        }
        self.write_scalar(out, l.a, elem)
    }

    fn write_scalar(&mut self, out: &mut Vec<u8>, e: Elem, elem: Type) -> PResult<()> {
        let ctx = self.ctx;
        let nbytes = dense_elem_bytes(ctx, elem);
        let t = e.tok;
        if let Some(k) = ctx.float_kind(elem) {
            let bits = match t.kind {
                Tok::Float if k.is_exact() => float_bits_from_text(k, self.text(t), e.neg) as u128,
                // through an f64, as MLIR parses decimal literals (exact for f80 and f128)
                Tok::Float => {
                    let v = parse_float_text(self.text(t));
                    crate::float_format::f64_to_kind_bits(k, if e.neg { -v } else { v })
                }
                Tok::Integer => self.hex_float_bits(t, e.neg, k)?,
                _ => return Err(self.error_at(t.start, "expected floating-point elements")),
            };
            write_int(out, bits as i128, nbytes);
            return Ok(());
        }
        if ctx.is_int_or_index(elem) {
            let width = ctx.int_width(elem).unwrap_or(64);
            match t.kind {
                Tok::Integer => {
                    let v = self.int_value(t, e.neg, elem, "integer constant out of range for type")?;
                    write_elem_int(out, v, width, nbytes);
                }
                Tok::BareId => {
                    if width != 1 {
                        return Err(self.error_at(t.start, "expected i1 type for 'true' or 'false' values"));
                    }
                    out.push((self.text(t) == b"true") as u8);
                }
                Tok::Float => {
                    return Err(self.error_at(t.start, "expected integer elements, but parsed floating-point"))
                }
                _ => return Err(self.error_at(t.start, "expected integer elements, but parsed string")),
            }
            return Ok(());
        }
        Err(self.error_at(t.start, "unsupported dense element type"))
    }

    /// `dense<"0x...">`: raw little-endian element data (i1 bit-packed, as MLIR stores it).
    fn dense_hex(&mut self, t: Token, ty: Type, elem: Type, numel: usize, dense_off: u32) -> PResult<DenseData> {
        let s = self.string_value(t);
        let bad_hex = |p: &mut Self| p.error_at(t.start, "expected string containing hex digits starting with `0x`");
        let Some(hex) = s.strip_prefix(b"0x") else { return Err(bad_hex(self)) };
        if hex.len() % 2 != 0 || !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(bad_hex(self));
        }
        let raw: Vec<u8> = hex.chunks(2).map(|c| (hex_val(c[0]) << 4) | hex_val(c[1])).collect();
        let ctx = self.ctx;
        let bad_size = |p: &mut Self| {
            let ts = p.type_str(ty);
            p.error_at(dense_off, format!("elements hex data size is invalid for provided type: '{ts}'"))
        };
        if ctx.int_width(elem) == Some(1) && ctx.is_int_or_index(elem) {
            if raw.len() == numel.div_ceil(8) {
                let bytes: Vec<u8> = (0..numel).map(|i| (raw[i / 8] >> (i % 8)) & 1).collect();
                return Ok(normalize_elements(bytes, 1));
            }
            if raw.len() == 1 && (raw[0] == 0 || raw[0] == 0xFF) {
                return Ok(DenseData::Splat(Box::new([(raw[0] != 0) as u8])));
            }
            return Err(bad_size(self));
        }
        let eb = dense_elem_bytes(ctx, elem);
        if eb == 0 {
            return Err(bad_size(self));
        }
        if raw.len() == numel * eb {
            Ok(normalize_elements(raw, eb))
        } else if raw.len() == eb {
            Ok(DenseData::Splat(raw.into()))
        } else {
            Err(bad_size(self))
        }
    }

    /// `(` location `)` after the `loc` keyword.
    pub(crate) fn parse_loc_parens(&mut self) -> PResult<crate::location::Location> {
        self.expect(Tok::LParen, "expected '(' in inline location")?;
        let l = self.parse_loc_instance()?;
        self.expect(Tok::RParen, "expected ')' in inline location")?;
        Ok(l)
    }
}

fn int_info(ctx: &crate::Context, t: Type) -> (u32, Signedness) {
    match ctx.type_kind(t) {
        TypeKind::Integer { width, signedness } => (*width, *signedness),
        _ => (64, Signedness::Signless),
    }
}

/// Writes an integer element: i1 as 0/1 in one byte, others little-endian in `nbytes`.
fn write_elem_int(out: &mut Vec<u8>, v: i128, width: u32, nbytes: usize) {
    if width == 1 {
        out.push((v != 0) as u8);
    } else if nbytes <= 16 {
        write_int(out, v, nbytes);
    } else {
        // Wider than 128 bits: sign-extend.
        write_int(out, v, 16);
        out.extend(std::iter::repeat_n(if v < 0 { 0xFF } else { 0 }, nbytes - 16));
    }
}

/// String elements: a splat is stored as one string (how the printer reads it).
fn normalize_strings(mut strs: Vec<Box<[u8]>>) -> DenseData {
    if !strs.is_empty() && strs.iter().all(|s| *s == strs[0]) {
        strs.truncate(1);
    }
    DenseData::Strings(strs.into())
}

/// Stores elements as a splat when they are all equal (MLIR detects splats the same way).
fn normalize_elements(bytes: Vec<u8>, eb: usize) -> DenseData {
    if eb > 0 && bytes.len() >= eb {
        let first = &bytes[..eb];
        if bytes.chunks_exact(eb).all(|c| c == first) {
            return DenseData::Splat(first.into());
        }
    }
    DenseData::Elements(bytes.into())
}

