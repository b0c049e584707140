//! Types: builtin types (integers, index, floats, none, function, tensor, vector, memref,
//! complex, tuple), type aliases and dialect types (kept as text with a balanced body).

use smallvec::SmallVec;

use super::{PResult, Parser};
use crate::lexer::Tok;
use crate::opdef::ParamsFn;
use crate::types::{FloatKind, Signedness, Type, TypeKind, DYNAMIC};

/// The inputs and results of a function type.
type Signature = (SmallVec<[Type; 4]>, SmallVec<[Type; 2]>);

/// MLIR's `IntegerType::kMaxWidth`.
const MAX_INT_WIDTH: u64 = 16_777_215;

impl<'s> Parser<'s> {
    /// `type ::= function-type | non-function-type`.
    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        super::with_stack(|| match self.tok.kind {
            Tok::LParen => self.parse_function_type(),
            _ => self.parse_non_function_type(),
        })
    }

    /// `(inputs) -> results`, looked up in the span cache first.
    pub(crate) fn parse_function_type(&mut self) -> PResult<Type> {
        let start = self.tok.start;
        let end = match self.cached_type() {
            Ok(t) => return Ok(t),
            Err(e) => e,
        };
        let (inputs, results) = self.parse_function_type_parts()?;
        let t = self.ctx.function_type(&inputs, &results);
        if let Some(end) = end {
            let consumed = self.prev_end();
            self.cache_type(start, end, consumed, t);
        }
        Ok(t)
    }

    /// The end offset of the last consumed token (the current token's start minus any
    /// whitespace is not needed: spans are compared with the scanner's end).
    pub(crate) fn prev_end(&self) -> u32 {
        self.last_end
    }

    pub(crate) fn parse_function_type_parts(&mut self) -> PResult<Signature> {
        self.enter()?;
        let inputs = self.parse_type_list_parens()?;
        self.expect(Tok::Arrow, "expected '->' in function type")?;
        let results = self.parse_function_result_types()?;
        self.leave();
        Ok((inputs, results))
    }

    /// `( )` or `( type (, type)* )`.
    pub(crate) fn parse_type_list_parens<const N: usize>(&mut self) -> PResult<SmallVec<[Type; N]>> {
        self.expect(Tok::LParen, "expected '('")?;
        let mut v = SmallVec::new();
        if self.eat(Tok::RParen) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_type()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen, "expected ')'")?;
        Ok(v)
    }

    /// `type-list-parens | non-function-type`.
    pub(crate) fn parse_function_result_types<const N: usize>(&mut self) -> PResult<SmallVec<[Type; N]>> {
        if self.is(Tok::LParen) {
            self.parse_type_list_parens()
        } else {
            let mut v = SmallVec::new();
            v.push(self.parse_non_function_type()?);
            Ok(v)
        }
    }

    /// A comma-separated list of types (at least one).
    pub(crate) fn parse_type_list<const N: usize>(&mut self) -> PResult<SmallVec<[Type; N]>> {
        let mut v = SmallVec::new();
        loop {
            v.push(self.parse_type()?);
            if !self.eat(Tok::Comma) {
                return Ok(v);
            }
        }
    }

    /// True if the current token can start an attribute (MLIR's `parseOptionalAttribute`).
    pub(crate) fn at_attr_start(&self) -> bool {
        match self.tok.kind {
            Tok::LBrace
            | Tok::LSquare
            | Tok::String
            | Tok::Integer
            | Tok::Float
            | Tok::Minus
            | Tok::AtId
            | Tok::AtString
            | Tok::HashId => true,
            Tok::BareId => {
                let s = self.text(self.tok);
                matches!(
                    s,
                    b"true"
                        | b"false"
                        | b"unit"
                        | b"dense"
                        | b"array"
                        | b"dense_resource"
                        | b"distinct"
                        | b"affine_map"
                        | b"affine_set"
                        | b"strided"
                        | b"loc"
                ) || self.at_type_start()
            }
            _ => self.at_type_start(),
        }
    }

    /// True if the current token can start a type.
    pub(crate) fn at_type_start(&self) -> bool {
        match self.tok.kind {
            Tok::LParen | Tok::ExclaimId => true,
            Tok::BareId => builtin_type_keyword(self.text(self.tok)),
            _ => false,
        }
    }

    pub(crate) fn parse_non_function_type(&mut self) -> PResult<Type> {
        let t = self.tok;
        match t.kind {
            Tok::BareId => {
                let s = self.text(t);
                if let Some(ty) = self.simple_type(s)? {
                    self.bump();
                    return Ok(ty);
                }
                let has_body = self.byte_after(t) == Some(b'<');
                match s {
                    b"tensor" | b"memref" | b"vector" | b"complex" | b"tuple" => {
                        let start = t.start;
                        let end = if has_body {
                            match self.cached_type() {
                                Ok(t) => return Ok(t),
                                Err(e) => e,
                            }
                        } else {
                            None
                        };
                        self.enter()?;
                        let ty = match s {
                            b"tensor" => self.parse_tensor_type()?,
                            b"memref" => self.parse_memref_type()?,
                            b"vector" => self.parse_vector_type()?,
                            b"complex" => {
                                self.bump();
                                self.expect(Tok::Less, "expected '<' in complex type")?;
                                let off = self.tok.start;
                                let e = self.parse_type()?;
                                self.expect(Tok::Greater, "expected '>' in complex type")?;
                                if !matches!(self.ctx.type_kind(e), TypeKind::Integer { .. } | TypeKind::Float(_)) {
                                    return Err(self.error_at(off, "invalid element type for complex"));
                                }
                                self.ctx.intern_type(TypeKind::Complex(e))
                            }
                            _ => {
                                self.bump();
                                self.expect(Tok::Less, "expected '<' in tuple type")?;
                                let mut v: SmallVec<[Type; 4]> = SmallVec::new();
                                if !self.eat(Tok::Greater) {
                                    v = self.parse_type_list()?;
                                    self.expect(Tok::Greater, "expected '>' in tuple type")?;
                                }
                                self.ctx.intern_type(TypeKind::Tuple(v.as_slice().into()))
                            }
                        };
                        self.leave();
                        if let Some(end) = end {
                            let consumed = self.prev_end();
                            self.cache_type(start, end, consumed, ty);
                        }
                        Ok(ty)
                    }
                    _ => Err(self.wrong_token("expected non-function type")),
                }
            }
            Tok::ExclaimId => self.parse_extended_type(),
            _ => Err(self.wrong_token("expected non-function type")),
        }
    }

    /// Integer, index, float and none types from one keyword; `Ok(None)` if `s` is none of
    /// them.
    fn simple_type(&mut self, s: &[u8]) -> PResult<Option<Type>> {
        let ctx = self.ctx;
        Ok(Some(match s {
            b"f32" => ctx.f32_type(),
            b"i32" => ctx.i32_type(),
            b"i64" => ctx.i64_type(),
            b"f16" => ctx.f16_type(),
            b"bf16" => ctx.bf16_type(),
            b"f64" => ctx.f64_type(),
            b"i1" => ctx.i1_type(),
            b"i8" => ctx.i8_type(),
            b"i16" => ctx.i16_type(),
            b"index" => ctx.index_type(),
            b"none" => ctx.none_type(),
            _ => {
                let (sign, digits) = if let Some(d) = s.strip_prefix(b"si") {
                    (Signedness::Signed, d)
                } else if let Some(d) = s.strip_prefix(b"ui") {
                    (Signedness::Unsigned, d)
                } else if let Some(d) = s.strip_prefix(b"i") {
                    (Signedness::Signless, d)
                } else {
                    (Signedness::Signless, &b""[..])
                };
                if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
                    let w = parse_dec_u64(digits).unwrap_or(u64::MAX);
                    if w > MAX_INT_WIDTH {
                        return Err(self.error_here("integer bitwidth is limited to 16777215 bits"));
                    }
                    return Ok(Some(ctx.integer_type(w as u32, sign)));
                }
                match std::str::from_utf8(s).ok().and_then(FloatKind::from_keyword) {
                    Some(k) => ctx.float_type(k),
                    None => return Ok(None),
                }
            }
        }))
    }

    /// `tensor<dims x type (, encoding)?>` or `tensor<*xtype>`.
    fn parse_tensor_type(&mut self) -> PResult<Type> {
        self.bump();
        self.expect(Tok::Less, "expected '<' in tensor type")?;
        if self.eat(Tok::Star) {
            self.parse_x_in_dimension_list()?;
            let off = self.tok.start;
            let elem = self.parse_type()?;
            if self.eat(Tok::Comma) && self.at_attr_start() {
                self.parse_attr()?;
                self.expect(Tok::Greater, "expected '>' in tensor type")?;
                // reported at the next token, as MLIR does
                return Err(self.error_here("cannot apply encoding to unranked tensor"));
            }
            self.expect(Tok::Greater, "expected '>' in tensor type")?;
            self.check_element_type(elem, off, ElementOf::Tensor)?;
            return Ok(self.ctx.intern_type(TypeKind::UnrankedTensor { elem }));
        }
        let shape = self.parse_dimension_list(true)?;
        let off = self.tok.start;
        let elem = self.parse_type()?;
        // `tensor<4xf32, >` has no encoding (MLIR parses an optional attribute here)
        let encoding = if self.eat(Tok::Comma) && self.at_attr_start() { Some(self.parse_attr()?) } else { None };
        self.expect(Tok::Greater, "expected '>' in tensor type")?;
        self.check_element_type(elem, off, ElementOf::Tensor)?;
        Ok(self.ctx.intern_type(TypeKind::RankedTensor { shape: shape.as_slice().into(), elem, encoding }))
    }

    /// `memref<dims x type (, layout)? (, memory-space)?>` or `memref<*xtype (, space)?>`.
    fn parse_memref_type(&mut self) -> PResult<Type> {
        self.bump();
        self.expect(Tok::Less, "expected '<' in memref type")?;
        if self.eat(Tok::Star) {
            self.parse_x_in_dimension_list()?;
            let off = self.tok.start;
            let elem = self.parse_type()?;
            self.check_element_type(elem, off, ElementOf::MemRef)?;
            let memory_space = if self.eat(Tok::Comma) { Some(self.parse_attr()?) } else { None };
            if memory_space.is_some_and(|a| self.is_layout_attr(a)) {
                return Err(self.error_here("cannot have affine map for unranked memref type"));
            }
            self.expect(Tok::Greater, "expected '>' in memref type")?;
            return Ok(self.ctx.intern_type(TypeKind::UnrankedMemRef { elem, memory_space }));
        }
        let shape = self.parse_dimension_list(true)?;
        let off = self.tok.start;
        let elem = self.parse_type()?;
        self.check_element_type(elem, off, ElementOf::MemRef)?;
        let mut layout = None;
        let mut memory_space = None;
        while self.eat(Tok::Comma) {
            let a = self.parse_attr()?;
            // As MLIR: a later layout replaces an earlier one; the memory space comes last.
            if self.is_layout_attr(a) {
                layout = Some(a);
                if memory_space.is_some() {
                    return Err(self.error_here("expected memory space to be last in memref type"));
                }
            } else if memory_space.is_none() {
                memory_space = Some(a);
            } else {
                return Err(self.error_here("multiple memory spaces specified in memref type"));
            }
        }
        self.expect(Tok::Greater, "expected '>' in memref type")?;
        Ok(self.ctx.intern_type(TypeKind::MemRef { shape: shape.as_slice().into(), elem, layout, memory_space }))
    }

    /// `vector<([N] x | N x)* type>`.
    fn parse_vector_type(&mut self) -> PResult<Type> {
        let type_off = self.tok.start;
        self.bump();
        self.expect(Tok::Less, "expected '<' in vector type")?;
        let mut shape: SmallVec<[i64; 4]> = SmallVec::new();
        let mut scalable: SmallVec<[bool; 4]> = SmallVec::new();
        loop {
            let sc = self.is(Tok::LSquare);
            if sc {
                self.bump();
                if !self.is(Tok::Integer) {
                    return Err(self.wrong_token("expected dimension size in vector type"));
                }
            } else if !self.is(Tok::Integer) {
                break;
            }
            let d = self.parse_dimension_value()?;
            shape.push(d);
            scalable.push(sc);
            if sc {
                self.expect(Tok::RSquare, "missing ']' closing scalable dimension")?;
            }
            self.parse_x_in_dimension_list()?;
        }
        if self.is(Tok::Question) {
            return Err(self.wrong_token("expected non-function type"));
        }
        let elem = self.parse_type()?;
        self.expect(Tok::Greater, "expected '>' in vector type")?;
        // MLIR's VectorType::verify, reported at the type.
        if shape.iter().any(|&d| d <= 0) {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            let msg = format!("vector types must have positive constant sizes but got {}", dims.join(", "));
            return Err(self.error_at(type_off, msg));
        }
        self.check_element_type(elem, type_off, ElementOf::Vector)?;
        Ok(self.ctx.intern_type(TypeKind::Vector {
            shape: shape.as_slice().into(),
            scalable: scalable.as_slice().into(),
            elem,
        }))
    }

    /// MLIR's element type rules: tensors take integers, floats, index, complex, vectors and
    /// non-builtin types; memrefs integers, floats, index, complex, vectors and memrefs; vectors
    /// integers, floats and index. `off` is where the error is reported.
    fn check_element_type(&mut self, t: Type, off: u32, of: ElementOf) -> PResult<()> {
        use TypeKind as K;
        let k = self.ctx.type_kind(t);
        let (ok, msg) = match of {
            ElementOf::Tensor => (
                matches!(k, K::Integer { .. } | K::Float(_) | K::Index | K::Complex(_) | K::Vector { .. } | K::Dialect { .. }),
                "invalid tensor element type",
            ),
            ElementOf::MemRef => (
                matches!(
                    k,
                    K::Integer { .. }
                        | K::Float(_)
                        | K::Index
                        | K::Complex(_)
                        | K::Vector { .. }
                        | K::MemRef { .. }
                        | K::UnrankedMemRef { .. }
                ),
                "invalid memref element type",
            ),
            ElementOf::Vector => (
                matches!(k, K::Integer { .. } | K::Float(_) | K::Index),
                "failed to verify 'elementType': VectorElementTypeInterface instance",
            ),
        };
        if ok {
            Ok(())
        } else {
            Err(self.error_at(off, msg))
        }
    }

    /// True for the memref layout attributes (`affine_map<..>`, `strided<..>`).
    fn is_layout_attr(&self, a: crate::context::Attr) -> bool {
        matches!(self.ctx.attr_kind(a), crate::attrs::AttrKind::Keyword { keyword, .. }
            if matches!(self.ctx.str(*keyword), "affine_map" | "strided"))
    }

    /// `(dimension x)*` where `dimension ::= ? | decimal`, re-lexing `x` prefixes and `0x..`
    /// tokens as MLIR does.
    pub(crate) fn parse_dimension_list(&mut self, allow_dynamic: bool) -> PResult<SmallVec<[i64; 4]>> {
        let mut dims = SmallVec::new();
        loop {
            match self.parse_optional_dimension(allow_dynamic)? {
                Some(d) => dims.push(d),
                None => return Ok(dims),
            }
            self.parse_x_in_dimension_list()?;
        }
    }

    /// `dimension (x dimension)*` without a trailing `x` (MLIR's `parseDimensionList` with
    /// `withTrailingX = false`, as in `shard.grid @g(shape = 2x?x4)`); empty if no dimension
    /// starts here.
    pub(crate) fn parse_dimension_list_no_trailing_x(&mut self, allow_dynamic: bool) -> PResult<SmallVec<[i64; 4]>> {
        let mut dims = SmallVec::new();
        if !self.is(Tok::Question) && !self.is(Tok::Integer) {
            return Ok(dims);
        }
        loop {
            match self.parse_optional_dimension(allow_dynamic)? {
                Some(d) => dims.push(d),
                None => return Err(self.error_here("invalid dimension")),
            }
            let t = self.tok;
            if t.kind != Tok::BareId || self.text(t)[0] != b'x' {
                return Ok(dims);
            }
            self.parse_x_in_dimension_list()?;
        }
    }

    /// The dimension at the cursor, consumed: `?` (an error unless `allow_dynamic`) or an
    /// integer; `None` if neither starts here.
    #[inline(always)]
    fn parse_optional_dimension(&mut self, allow_dynamic: bool) -> PResult<Option<i64>> {
        if self.is(Tok::Question) {
            if !allow_dynamic {
                return Err(self.error_here("expected static shape"));
            }
            self.bump();
            Ok(Some(DYNAMIC))
        } else if self.is(Tok::Integer) {
            self.parse_dimension_value().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The integer token at the cursor as a dimension; `0xf32` is `0` followed by `xf32`.
    fn parse_dimension_value(&mut self) -> PResult<i64> {
        let t = self.tok;
        let s = self.text(t);
        if s.len() > 1 && s[1] == b'x' {
            self.reset_to(t.start as usize + 1);
            return Ok(0);
        }
        match parse_dec_u64(s).filter(|&v| v <= i64::MAX as u64) {
            Some(v) => {
                self.bump();
                Ok(v as i64)
            }
            None => Err(self.error_here("invalid dimension")),
        }
    }

    /// An `x` in a dimension list, possibly the prefix of the next identifier (`xf32`).
    fn parse_x_in_dimension_list(&mut self) -> PResult<()> {
        let t = self.tok;
        if t.kind != Tok::BareId || self.text(t)[0] != b'x' {
            return Err(self.wrong_token("expected 'x' in dimension list"));
        }
        if t.end - t.start > 1 {
            self.reset_to(t.start as usize + 1);
        } else {
            self.bump();
        }
        Ok(())
    }

    /// `!alias`, `!dialect.name<body>?` or `!dialect<body>`.
    fn parse_extended_type(&mut self) -> PResult<Type> {
        let t = self.tok;
        let start = t.start;
        let end = match self.cached_type() {
            Ok(ty) => return Ok(ty),
            Err(e) => e,
        };
        let ident = &self.text(t)[1..];
        let has_body = self.byte_after(t) == Some(b'<');
        if !ident.contains(&b'.') && !has_body {
            self.bump();
            return match self.lookup_type_alias(ident) {
                Some(ty) => {
                    if let Some(end) = end {
                        self.cache_type(start, end, t.end, ty);
                    }
                    Ok(ty)
                }
                None => {
                    // placed as MLIR's emitWrongTokenError places it
                    Err(self.wrong_token(&format!("undefined symbol alias id '{}'", String::from_utf8_lossy(ident))))
                }
            };
        }
        let text_end = self.dialect_symbol_end(t)?;
        let text = &self.src[t.start as usize + 1..text_end];
        let ns = ident.split(|&c| c == b'.').next().unwrap_or(b"");
        let ns = std::str::from_utf8(ns).unwrap_or("");
        let canonical = self.check_dialect_symbol(t, ns, ident, text, true)?;
        let ty = self.ctx.intern_type(TypeKind::Dialect { dialect: self.ctx.ident(ns), text: canonical.into() });
        self.reset_to(text_end);
        if let Some(end) = end {
            self.cache_type(start, end, text_end as u32, ty);
        }
        Ok(ty)
    }

    /// Validates a dialect type (`is_type`) or attribute symbol against the registry and
    /// returns its canonical text (after the sigil). `t` is the identifier token, `ident` its
    /// text after the sigil, `text` the whole symbol text after the sigil.
    pub(crate) fn check_dialect_symbol(
        &mut self,
        t: crate::lexer::Token,
        ns: &str,
        ident: &[u8],
        text: &[u8],
        is_type: bool,
    ) -> PResult<String> {
        if ns.is_empty() {
            // `!.foo` / `#.foo`: MLIR's wording and place (after the dot)
            return Err(self.error_at(t.start + 2, "invalid dialect namespace '\"\"'"));
        }
        let what = if is_type { "type" } else { "attribute" };
        let Ok(text_s) = String::from_utf8(text.to_vec()) else {
            return Err(self.error_at(t.start, format!("dialect {what}s that are not valid UTF-8 are not supported")));
        };
        let Some(d) = self.ctx.dialect(ns) else {
            if self.allow_unregistered {
                return Ok(canonical_dialect_symbol(ns, &text_s));
            }
            let rest = String::from_utf8_lossy(&text[(ns.len() + 1).min(text.len())..]).into_owned();
            let sym = if is_type {
                format!("`!\"{ns}\"<\"{rest}\">` type")
            } else {
                format!("#\"{ns}\"<\"{rest}\"> : 'none' attribute")
            };
            return Err(self.error_at(
                (t.start as usize + 1 + text.len()) as u32,
                format!(
                    "{sym} created with unregistered dialect. If this is intended, please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used"
                ),
            ));
        };
        // `#ns.mnemonic<params>`, or the opaque form `#ns<mnemonic params>` that MLIR prints when
        // the parameters are not `<...>` (`#shard<axisarray[[0]]>`): the mnemonic opens the body.
        let opaque = ident.len() == ns.len() && text.len() > ident.len() + 1;
        let (mnemonic, mnemonic_off, params_start, params_end) = if opaque {
            let body = &text[ident.len() + 1..text.len() - 1];
            let blank = body.iter().take_while(|c| c.is_ascii_whitespace()).count();
            let n = body[blank..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'.').count();
            let start = ident.len() + 1 + blank;
            (&body[blank..blank + n], t.start + 1 + start as u32, start + n, text.len() - 1)
        } else {
            let m = if ident.len() > ns.len() { &ident[ns.len() + 1..] } else { &b""[..] };
            (m, t.start + 1 + (ns.len() as u32 + 1).min(ident.len() as u32), ident.len(), text.len())
        };
        let found: Option<(&'static str, Option<ParamsFn>)> = if is_type {
            d.types.iter().find(|x| x.mnemonic.as_bytes() == mnemonic).map(|x| (x.mnemonic, x.params))
        } else {
            d.attrs.iter().find(|x| x.mnemonic.as_bytes() == mnemonic).map(|x| (x.mnemonic, x.params))
        };
        let empty = if is_type { d.types.is_empty() } else { d.attrs.is_empty() };
        let Some((mn, params_fn)) = found else {
            if empty {
                return Err(self.error_at(mnemonic_off, format!("dialect '{ns}' provides no {what} parsing hook")));
            }
            return Err(self.error_at(
                mnemonic_off,
                format!("unknown {what} `{}` in dialect `{ns}`", String::from_utf8_lossy(mnemonic)),
            ));
        };
        let params = String::from_utf8_lossy(&text[params_start..params_end]).into_owned();
        match params_fn {
            None if !params.is_empty() => Err(self.error_at(t.end, format!("{what} '{ns}.{mn}' takes no parameters"))),
            None if opaque => Ok(format!("{ns}.{mn}")),
            None => Ok(text_s),
            Some(f) => match f(self.ctx, &params) {
                Ok(p) if opaque => Ok(canonical_dialect_symbol(ns, &format!("{ns}<{mn}{p}>"))),
                Ok(p) => Ok(format!("{ns}.{mn}{p}")),
                Err(e) => {
                    let base = t.start as usize + 1 + params_start;
                    let at = e.offset.map_or(t.end, |o| (base + o.min(params.len())) as u32);
                    Err(self.error_at(at, e.message))
                }
            },
        }
    }

    /// The end of a dialect type/attribute symbol whose identifier is token `t`: the token
    /// itself plus a balanced `<...>` body right after it (MLIR's `parseDialectSymbolBody`).
    pub(crate) fn dialect_symbol_end(&mut self, t: crate::lexer::Token) -> PResult<usize> {
        if self.byte_after(t) != Some(b'<') {
            return Ok(t.end as usize);
        }
        self.balanced_body_end(t.end as usize, "pretty dialect name", false)
    }

    /// Scans a balanced `<...>` body starting at `start` (on the `<`), with nested `()[]{}<>`
    /// and string literals; `->` and `>=` do not close. Returns the offset after the `>`.
    pub(crate) fn balanced_body_end(&mut self, start: usize, what: &str, affine: bool) -> PResult<usize> {
        let s = self.src;
        let mut stack: SmallVec<[u8; 16]> = SmallVec::new();
        let mut opens: SmallVec<[usize; 16]> = SmallVec::new();
        let mut i = start;
        while i < s.len() {
            let c = s[i];
            match c {
                b'<' | b'(' | b'[' | b'{' => {
                    if stack.len() as u32 >= super::MAX_NESTING {
                        return Err(self.error_at(
                            i as u32,
                            format!("nesting too deep (the limit is {} levels)", super::MAX_NESTING),
                        ));
                    }
                    stack.push(match c {
                        b'<' => b'>',
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    });
                    opens.push(i);
                }
                // `->` never closes (MLIR allows arrows in dialect bodies); in affine
                // expressions `>=` does not either.
                b'>' if i > start && s[i - 1] == b'-' => {}
                b'>' if affine && s.get(i + 1) == Some(&b'=') => {}
                b'>' | b')' | b']' | b'}' => {
                    if stack.last() != Some(&c) {
                        let open = opens.last().map_or('<', |&o| s[o] as char);
                        return Err(self.error_at(start as u32, format!("unbalanced '{open}' character in {what}")));
                    }
                    stack.pop();
                    opens.pop();
                    if stack.is_empty() {
                        return Ok(i + 1);
                    }
                }
                b'"' => {
                    let mut j = i + 1;
                    loop {
                        match s.get(j) {
                            None | Some(b'\n') => {
                                return Err(self.error_at(j.min(s.len()) as u32, "expected '\"' in string literal"))
                            }
                            Some(b'"') => break,
                            Some(b'\\') => j += 2,
                            _ => j += 1,
                        }
                    }
                    i = j;
                }
                0 => return Err(self.error_at(i as u32, format!("unexpected nul or EOF in {what}"))),
                _ => {}
            }
            i += 1;
        }
        let open = opens.last().map_or('<', |&o| s[o] as char);
        Err(self.error_at(start as u32, format!("unbalanced '{open}' character in {what}")))
    }
}

/// True for the keywords that start a builtin type.
pub(crate) fn builtin_type_keyword(s: &[u8]) -> bool {
    match s {
        b"index" | b"none" | b"tensor" | b"memref" | b"vector" | b"complex" | b"tuple" => true,
        _ => {
            let digits = s.strip_prefix(b"si").or_else(|| s.strip_prefix(b"ui")).or_else(|| s.strip_prefix(b"i"));
            if let Some(d) = digits {
                if !d.is_empty() && d.iter().all(u8::is_ascii_digit) {
                    return true;
                }
            }
            std::str::from_utf8(s).ok().and_then(FloatKind::from_keyword).is_some()
        }
    }
}

pub(crate) fn parse_dec_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// The shaped type whose element type is checked.
#[derive(Copy, Clone)]
enum ElementOf {
    Tensor,
    MemRef,
    Vector,
}

/// The text of an unregistered dialect symbol (after the sigil) in MLIR's printed form:
/// `ns.sym` when the symbol is "simple enough" (an identifier, optionally followed by one
/// `<...>` body), else `ns<sym>`. So `!foo<bar>` is `!foo.bar`, and `!foo..x` is `!foo<.x>`:
/// the same symbol, however it was written (MLIR's `printDialectSymbol`).
fn canonical_dialect_symbol(ns: &str, text: &str) -> String {
    let rest = &text[ns.len().min(text.len())..];
    let sym = if let Some(r) = rest.strip_prefix('.') {
        r
    } else if let Some(r) = rest.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
        r
    } else {
        return text.to_string();
    };
    let simple = sym.starts_with(|c: char| c.is_ascii_alphabetic()) && {
        let tail = sym.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        tail.is_empty() || (tail.starts_with('<') && tail.ends_with('>'))
    };
    if simple {
        format!("{ns}.{sym}")
    } else {
        format!("{ns}<{sym}>")
    }
}
