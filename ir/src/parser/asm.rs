//! [`OpAsmParser`]: the API custom op syntax (`Syntax::Custom` parse hooks) is written
//! against, modelled on MLIR's `OpAsmParser`: punctuation, keywords, symbol names,
//! attributes and attribute dictionaries, types, operands and their resolution, successors,
//! regions with entry arguments, function signatures and locations.

use smallvec::SmallVec;

use super::{PResult, Parser};
use crate::body::{Block, Body, OperationState, Value};
use crate::context::{Attr, Context, Ident};
use crate::diag::Diagnostic;
use crate::lexer::Tok;
use crate::location::Location;
use crate::opdef::{OpDef, Traits};
use crate::types::Type;

/// An operand as written (`%name#N`), not yet resolved to a value (the type comes later).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UnresolvedOperand<'s> {
    /// The name with its `%`.
    pub name: &'s [u8],
    /// The result number after `#` (0 if none).
    pub number: u32,
    /// Byte offset in the source (for diagnostics).
    pub off: u32,
}

/// A region entry argument: `%name : type {attrs}? loc(...)?`.
#[derive(Clone, Debug)]
pub struct Argument<'s> {
    pub name: UnresolvedOperand<'s>,
    pub ty: Type,
    pub attrs: Option<Attr>,
    pub loc: Option<Location>,
}

/// A parsed function signature: `(args) -> results`.
#[derive(Clone, Debug, Default)]
pub struct FunctionSignature<'s> {
    /// The arguments; for a declaration (`(i32, f32)`) their names are empty.
    pub args: Vec<Argument<'s>>,
    /// True if the arguments were written with SSA names.
    pub named: bool,
    pub result_types: Vec<Type>,
    pub result_attrs: Vec<Option<Attr>>,
}

impl FunctionSignature<'_> {
    pub fn arg_types(&self) -> Vec<Type> {
        self.args.iter().map(|a| a.ty).collect()
    }
}

/// The parser handle custom op syntax is written against. It parses from the current token
/// of the op's text (right after the op name) and builds an [`OperationState`].
pub struct OpAsmParser<'a, 's> {
    p: &'a mut Parser<'s>,
    body: &'a mut Body,
    def: &'static OpDef,
    num_results: u32,
    name_off: u32,
}

impl<'a, 's> OpAsmParser<'a, 's> {
    pub(crate) fn new(
        p: &'a mut Parser<'s>,
        body: &'a mut Body,
        def: &'static OpDef,
        num_results: u32,
        name_off: u32,
    ) -> Self {
        OpAsmParser { p, body, def, num_results, name_off }
    }

    // ------------------------------------------------------------------ context
    pub fn ctx(&self) -> &'s Context {
        self.p.ctx
    }
    /// The definition of the op being parsed.
    pub fn op_def(&self) -> &'static OpDef {
        self.def
    }
    /// How many results the op's result list binds (`%a, %b:2 = ...` gives 3).
    pub fn num_results(&self) -> usize {
        self.num_results as usize
    }
    /// The location of the op name.
    pub fn name_loc(&mut self) -> Location {
        self.p.loc_at(self.name_off)
    }
    /// Byte offset of the current token (to report errors there later).
    pub fn offset(&self) -> u32 {
        self.p.tok.start
    }
    /// The location of the current token.
    pub fn current_location(&mut self) -> Location {
        let off = self.p.tok.start;
        self.p.loc_at(off)
    }
    /// An error at the current token, worded as MLIR words custom-parser errors:
    /// `custom op 'name' <msg>`.
    pub fn emit_error(&mut self, msg: impl AsRef<str>) -> Diagnostic {
        let off = self.p.tok.start;
        self.emit_error_at(off, msg)
    }
    /// An error at byte offset `off` (from [`Self::offset`]), prefixed like [`Self::emit_error`].
    pub fn emit_error_at(&mut self, off: u32, msg: impl AsRef<str>) -> Diagnostic {
        let m = format!("custom op '{}' {}", self.def.name, msg.as_ref());
        self.p.error_at(off, m)
    }
    /// An "expected ..." error placed like MLIR's (after the previous token).
    pub fn emit_wrong_token_error(&mut self, msg: &str) -> Diagnostic {
        self.p.wrong_token(msg)
    }

    // ------------------------------------------------------------------ punctuation
    /// Consumes a token of kind `k` or fails with "expected `what`".
    pub fn parse_token(&mut self, k: Tok, what: &str) -> PResult<()> {
        self.p.expect(k, &format!("expected {what}")).map(|_| ())
    }
    pub fn parse_optional_token(&mut self, k: Tok) -> bool {
        self.p.eat(k)
    }
    /// True if the current token is of kind `k` (nothing consumed).
    pub fn peek(&self, k: Tok) -> bool {
        self.p.is(k)
    }
    pub fn parse_colon(&mut self) -> PResult<()> {
        self.parse_token(Tok::Colon, "':'")
    }
    pub fn parse_optional_colon(&mut self) -> bool {
        self.p.eat(Tok::Colon)
    }
    pub fn parse_comma(&mut self) -> PResult<()> {
        self.parse_token(Tok::Comma, "','")
    }
    pub fn parse_optional_comma(&mut self) -> bool {
        self.p.eat(Tok::Comma)
    }
    pub fn parse_equal(&mut self) -> PResult<()> {
        self.parse_token(Tok::Equal, "'='")
    }
    pub fn parse_optional_equal(&mut self) -> bool {
        self.p.eat(Tok::Equal)
    }
    pub fn parse_arrow(&mut self) -> PResult<()> {
        self.parse_token(Tok::Arrow, "'->'")
    }
    pub fn parse_optional_arrow(&mut self) -> bool {
        self.p.eat(Tok::Arrow)
    }
    pub fn parse_lparen(&mut self) -> PResult<()> {
        self.parse_token(Tok::LParen, "'('")
    }
    pub fn parse_optional_lparen(&mut self) -> bool {
        self.p.eat(Tok::LParen)
    }
    pub fn parse_rparen(&mut self) -> PResult<()> {
        self.parse_token(Tok::RParen, "')'")
    }
    pub fn parse_optional_rparen(&mut self) -> bool {
        self.p.eat(Tok::RParen)
    }
    pub fn parse_lsquare(&mut self) -> PResult<()> {
        self.parse_token(Tok::LSquare, "'['")
    }
    pub fn parse_optional_lsquare(&mut self) -> bool {
        self.p.eat(Tok::LSquare)
    }
    pub fn parse_rsquare(&mut self) -> PResult<()> {
        self.parse_token(Tok::RSquare, "']'")
    }
    pub fn parse_optional_rsquare(&mut self) -> bool {
        self.p.eat(Tok::RSquare)
    }
    pub fn parse_less(&mut self) -> PResult<()> {
        self.parse_token(Tok::Less, "'<'")
    }
    pub fn parse_optional_less(&mut self) -> bool {
        self.p.eat(Tok::Less)
    }
    pub fn parse_greater(&mut self) -> PResult<()> {
        self.parse_token(Tok::Greater, "'>'")
    }
    pub fn parse_optional_greater(&mut self) -> bool {
        self.p.eat(Tok::Greater)
    }

    // ------------------------------------------------------------------ keywords, names
    /// Consumes bare keyword `kw` or fails with "expected 'kw'".
    pub fn parse_keyword(&mut self, kw: &str) -> PResult<()> {
        self.p.expect_kw(kw, &format!("expected '{kw}'"))
    }
    pub fn parse_optional_keyword(&mut self, kw: &str) -> bool {
        self.p.eat_kw(kw)
    }
    /// Consumes one of `kws` if it is the current token, returning it.
    pub fn parse_optional_keyword_of(&mut self, kws: &[&'static str]) -> Option<&'static str> {
        let k = kws.iter().copied().find(|k| self.p.is_kw(k))?;
        self.p.bump();
        Some(k)
    }
    /// Any bare identifier (consumed).
    pub fn parse_optional_bare_id(&mut self) -> Option<&'s str> {
        if self.p.is(Tok::BareId) {
            let s = self.p.tstr(self.p.tok);
            self.p.bump();
            Some(s)
        } else {
            None
        }
    }
    /// `@name` or `@"name"` as a string attribute (MLIR's `parseSymbolName`).
    pub fn parse_symbol_name(&mut self) -> PResult<Attr> {
        let id = self.parse_symbol_ident()?;
        Ok(self.p.ctx.str_attr(self.p.ctx.str(id)))
    }
    pub fn parse_optional_symbol_name(&mut self) -> PResult<Option<Attr>> {
        if matches!(self.p.tok.kind, Tok::AtId | Tok::AtString) {
            self.parse_symbol_name().map(Some)
        } else {
            Ok(None)
        }
    }
    /// `@name` as an identifier.
    pub fn parse_symbol_ident(&mut self) -> PResult<Ident> {
        if !matches!(self.p.tok.kind, Tok::AtId | Tok::AtString) {
            // MLIR's custom parsers report this at the token, with the op's prefix
            return Err(self.emit_error("expected valid '@'-identifier for symbol name"));
        }
        self.p.symbol_name()
    }
    /// A string literal's bytes.
    pub fn parse_string(&mut self) -> PResult<Vec<u8>> {
        let t = self.p.expect(Tok::String, "expected string")?;
        Ok(self.p.string_value(t))
    }
    pub fn parse_optional_string(&mut self) -> Option<Vec<u8>> {
        if self.p.is(Tok::String) {
            let t = self.p.tok;
            self.p.bump();
            Some(self.p.string_value(t))
        } else {
            None
        }
    }
    /// A (possibly negative) integer literal.
    pub fn parse_integer(&mut self) -> PResult<i64> {
        let neg = self.p.eat(Tok::Minus);
        let t = self.p.tok;
        if t.kind != Tok::Integer {
            return Err(self.p.wrong_token("expected integer value"));
        }
        let v = super::attrs::parse_uint(self.p.text(t)).and_then(|m| {
            let m = i128::try_from(m).ok()?;
            i64::try_from(if neg { -m } else { m }).ok()
        });
        match v {
            Some(v) => {
                self.p.bump();
                Ok(v)
            }
            None => Err(self.p.error_here("integer value too large")),
        }
    }

    /// `2x?x4`: dimensions separated by `x`, `?` for a dynamic one (`DYNAMIC`) when
    /// `allow_dynamic`, with no trailing `x` (MLIR's `parseDimensionList(dims, allowDynamic,
    /// /*withTrailingX=*/false)`); empty if no dimension starts here.
    pub fn parse_dimension_list(&mut self, allow_dynamic: bool) -> PResult<SmallVec<[i64; 4]>> {
        self.p.parse_dimension_list_no_trailing_x(allow_dynamic)
    }

    // ------------------------------------------------------------------ attributes and types
    pub fn parse_attribute(&mut self) -> PResult<Attr> {
        self.p.parse_attr()
    }
    pub fn parse_type(&mut self) -> PResult<Type> {
        self.p.parse_type()
    }
    /// A type if the current token starts one.
    pub fn parse_optional_type(&mut self) -> PResult<Option<Type>> {
        if self.p.at_type_start() {
            self.p.parse_type().map(Some)
        } else {
            Ok(None)
        }
    }
    /// `: type`.
    pub fn parse_colon_type(&mut self) -> PResult<Type> {
        self.parse_colon()?;
        self.p.parse_type()
    }
    /// `type (, type)*`.
    pub fn parse_type_list(&mut self) -> PResult<SmallVec<[Type; 4]>> {
        self.p.parse_type_list()
    }
    /// `: type (, type)*`.
    pub fn parse_colon_type_list(&mut self) -> PResult<SmallVec<[Type; 4]>> {
        self.parse_colon()?;
        self.p.parse_type_list()
    }
    /// `-> type` or `-> (type, ...)` as a list (MLIR's `parseArrowTypeList`).
    pub fn parse_arrow_type_list(&mut self) -> PResult<SmallVec<[Type; 4]>> {
        self.parse_arrow()?;
        self.p.parse_function_result_types()
    }
    /// A function type `(inputs) -> results`, returned as its two lists.
    pub fn parse_function_type(&mut self) -> PResult<(Vec<Type>, Vec<Type>)> {
        let off = self.p.tok.start;
        let t = self.p.parse_type()?;
        match self.p.ctx.function_signature(t) {
            Some((i, r)) => Ok((i.to_vec(), r.to_vec())),
            None => Err(self.p.error_at(off, "expected function type")),
        }
    }
    /// `{...}` if present, merged into `state.attrs`.
    pub fn parse_optional_attr_dict(&mut self, state: &mut OperationState) -> PResult<()> {
        if self.p.is(Tok::LBrace) {
            let d = self.p.parse_dict_attr()?;
            self.merge_attrs(state, d);
        }
        Ok(())
    }
    /// `attributes {...}` if present, merged into `state.attrs`.
    pub fn parse_optional_attr_dict_with_keyword(&mut self, state: &mut OperationState) -> PResult<()> {
        if self.p.eat_kw("attributes") {
            if !self.p.is(Tok::LBrace) {
                return Err(self.p.wrong_token("expected '{' in attribute dictionary"));
            }
            let d = self.p.parse_dict_attr()?;
            self.merge_attrs(state, d);
        }
        Ok(())
    }
    /// A dictionary attribute if one starts here.
    pub fn parse_optional_dict(&mut self) -> PResult<Option<Attr>> {
        if self.p.is(Tok::LBrace) {
            self.p.parse_dict_attr().map(Some)
        } else {
            Ok(None)
        }
    }
    fn merge_attrs(&mut self, state: &mut OperationState, d: Attr) {
        let ctx = self.p.ctx;
        if ctx.dict_entries(state.attrs).is_empty() {
            state.attrs = d;
        } else {
            let mut e: Vec<(Ident, Attr)> = ctx.dict_entries(state.attrs).to_vec();
            e.extend_from_slice(ctx.dict_entries(d));
            state.attrs = ctx.dict(&e);
        }
    }
    /// Sets attribute `name` on the op being built.
    pub fn set_attr(&self, state: &mut OperationState, name: &str, value: Attr) {
        state.add_attr(self.p.ctx, name, value);
    }

    // ------------------------------------------------------------------ locations
    /// `loc(...)` if present.
    pub fn parse_optional_location(&mut self) -> PResult<Option<Location>> {
        self.p.parse_optional_trailing_loc()
    }

    // ------------------------------------------------------------------ operands
    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand<'s>> {
        self.p.parse_ssa_use()
    }
    pub fn parse_optional_operand(&mut self) -> PResult<Option<UnresolvedOperand<'s>>> {
        if self.p.is(Tok::PercentId) {
            self.p.parse_ssa_use().map(Some)
        } else {
            Ok(None)
        }
    }
    /// `%a, %b, ...` (possibly empty if no `%` follows).
    pub fn parse_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand<'s>>> {
        let mut v = Vec::new();
        if !self.p.is(Tok::PercentId) {
            return Ok(v);
        }
        loop {
            v.push(self.p.parse_ssa_use()?);
            if !self.p.eat(Tok::Comma) {
                return Ok(v);
            }
        }
    }
    /// `( %a, %b )` (possibly empty).
    pub fn parse_paren_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand<'s>>> {
        self.parse_lparen()?;
        if self.p.eat(Tok::RParen) {
            return Ok(Vec::new());
        }
        let v = self.parse_operand_list()?;
        self.p.expect(Tok::RParen, "expected ')'")?;
        Ok(v)
    }
    /// The value of `u`, which must have type `ty`.
    pub fn resolve_operand(&mut self, u: &UnresolvedOperand<'s>, ty: Type) -> PResult<Value> {
        self.p.resolve_operand(self.body, u, ty)
    }
    /// Resolves `uses` with `types` (one each) and appends the values to `state.operands`.
    pub fn resolve_operands(
        &mut self,
        uses: &[UnresolvedOperand<'s>],
        types: &[Type],
        state: &mut OperationState,
    ) -> PResult<()> {
        if uses.len() != types.len() {
            let off = uses.first().map_or(self.name_off, |u| u.off);
            return Err(self.emit_error_at(
                off,
                format!(
                    "number of operands and types do not match: got {} operands and {} types",
                    uses.len(),
                    types.len()
                ),
            ));
        }
        self.p.resolve_operands(self.body, uses, types, &mut state.operands)
    }

    // ------------------------------------------------------------------ successors
    /// `^bb`.
    pub fn parse_successor(&mut self) -> PResult<Block> {
        self.p.parse_successor(self.body)
    }
    pub fn parse_optional_successor(&mut self) -> PResult<Option<Block>> {
        if self.p.is(Tok::CaretId) {
            self.parse_successor().map(Some)
        } else {
            Ok(None)
        }
    }
    /// `^bb` with an optional `(%a, %b : t1, t2)` operand list, resolved.
    pub fn parse_successor_and_use_list(&mut self) -> PResult<(Block, SmallVec<[Value; 4]>)> {
        let b = self.parse_successor()?;
        let mut vals = SmallVec::new();
        if self.p.eat(Tok::LParen) {
            let uses = self.parse_operand_list()?;
            self.p.expect(Tok::Colon, "expected ':'")?;
            let types: SmallVec<[Type; 4]> = self.p.parse_type_list()?;
            self.p.expect(Tok::RParen, "expected ')'")?;
            if types.len() != uses.len() {
                return Err(self.emit_error_at(
                    uses.first().map_or(self.name_off, |u| u.off),
                    format!(
                        "number of operands and types do not match: got {} operands and {} types",
                        uses.len(),
                        types.len()
                    ),
                ));
            }
            self.p.resolve_operands(self.body, &uses, &types, &mut vals)?;
        }
        Ok((b, vals))
    }

    // ------------------------------------------------------------------ regions
    /// `{ ... }`: a region of the op, with `args` as the entry block's arguments. For an
    /// isolated-from-above op the region goes into `state.nested` with a fresh SSA name
    /// scope, else it is a detached region of the enclosing body in `state.regions`.
    pub fn parse_region(&mut self, state: &mut OperationState, args: &[Argument<'s>]) -> PResult<()> {
        self.p.parse_op_region(self.body, state, Some(self.def), args, true)
    }
    /// A region if `{` follows; returns whether one was parsed.
    pub fn parse_optional_region(&mut self, state: &mut OperationState, args: &[Argument<'s>]) -> PResult<bool> {
        if !self.p.is(Tok::LBrace) {
            return Ok(false);
        }
        self.parse_region(state, args)?;
        Ok(true)
    }
    /// Number of regions parsed so far into `state`.
    pub fn num_regions(&self, state: &OperationState) -> usize {
        if self.def.has(Traits::IsolatedFromAbove) {
            state.nested.as_ref().map_or(0, |n| n.root_regions().len())
        } else {
            state.regions.len()
        }
    }
    /// True if the last region parsed into `state` has no blocks.
    pub fn last_region_is_empty(&self, state: &OperationState) -> bool {
        if self.def.has(Traits::IsolatedFromAbove) {
            state.nested.as_ref().and_then(|n| n.root_regions().last().map(|&r| n.region_is_empty(r))).unwrap_or(true)
        } else {
            state.regions.last().is_none_or(|&r| self.body.region_is_empty(r))
        }
    }
    /// Gives the last region parsed into `state` an empty entry block if it has none (for
    /// single-block ops without terminator, like `builtin.module`).
    pub fn ensure_entry_block(&mut self, state: &mut OperationState) {
        if self.def.has(Traits::IsolatedFromAbove) {
            if let Some(n) = state.nested.as_mut() {
                if let Some(&r) = n.root_regions().last() {
                    if n.region_is_empty(r) {
                        let b = n.create_block(&[]);
                        n.append_block(r, b);
                    }
                }
            }
        } else if let Some(&r) = state.regions.last() {
            if self.body.region_is_empty(r) {
                let b = self.body.create_block(&[]);
                self.body.append_block(r, b);
            }
        }
    }

    // ------------------------------------------------------------------ arguments, signatures
    /// `%name : type {attrs}? loc(...)?` (attributes only if `allow_attrs`).
    pub fn parse_argument(&mut self, allow_attrs: bool) -> PResult<Argument<'s>> {
        let name = self.p.parse_ssa_use()?;
        if name.number != 0 {
            return Err(self.emit_error_at(name.off, "expected SSA identifier without result number"));
        }
        self.parse_colon()?;
        let ty = self.p.parse_type()?;
        let attrs = if allow_attrs { self.parse_optional_dict()? } else { None };
        let loc = self.p.parse_optional_trailing_loc()?;
        Ok(Argument { name, ty, attrs, loc })
    }

    /// `( args ) (-> results)?` of a function: arguments all named (`%a: i32 {attrs}`) or all
    /// unnamed (`i32 {attrs}`); results `t`, or `(t {attrs}, ...)`.
    pub fn parse_function_signature(&mut self) -> PResult<FunctionSignature<'s>> {
        let mut sig = FunctionSignature::default();
        self.p.expect(Tok::LParen, "expected '('")?;
        if !self.p.eat(Tok::RParen) {
            let mut first = true;
            loop {
                let named = self.p.is(Tok::PercentId);
                if first {
                    sig.named = named;
                    first = false;
                } else if named != sig.named {
                    return Err(self.emit_error(if sig.named {
                        "expected SSA identifier"
                    } else {
                        "expected type instead of SSA identifier"
                    }));
                }
                if self.p.is(Tok::Ellipsis) {
                    return Err(self.emit_error("variadic function signatures are not supported"));
                }
                let arg = if named {
                    self.parse_argument(true)?
                } else {
                    let off = self.p.tok.start;
                    let ty = self.p.parse_type()?;
                    let attrs = self.parse_optional_dict()?;
                    let loc = self.p.parse_optional_trailing_loc()?;
                    Argument { name: UnresolvedOperand { name: b"", number: 0, off }, ty, attrs, loc }
                };
                sig.args.push(arg);
                if !self.p.eat(Tok::Comma) {
                    break;
                }
            }
            self.p.expect(Tok::RParen, "expected ')'")?;
        }
        if self.p.eat(Tok::Arrow) {
            if self.p.eat(Tok::LParen) {
                if !self.p.eat(Tok::RParen) {
                    loop {
                        sig.result_types.push(self.p.parse_type()?);
                        sig.result_attrs.push(self.parse_optional_dict()?);
                        if !self.p.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.p.expect(Tok::RParen, "expected ')'")?;
                }
            } else {
                sig.result_types.push(self.p.parse_non_function_type()?);
                sig.result_attrs.push(None);
            }
        }
        Ok(sig)
    }
}
