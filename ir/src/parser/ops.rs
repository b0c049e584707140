//! Operations (generic form, the uniform XCS pretty form, custom hooks), regions, blocks and
//! SSA name scopes. Each isolated-from-above op gets a fresh [`ValueScope`] (and its regions a
//! fresh `Body`); a non-isolated region pushes a level whose definitions are dropped when the
//! region ends. Forward references are placeholder values replaced at their definition.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::asm::{Argument, OpAsmParser, UnresolvedOperand};
use super::{PResult, Parser};
use crate::body::{Block, Body, Op, OperationState, Region, Value};
use crate::context::OpName;
use crate::entity::EntityRef;
use crate::lexer::{Tok, Token};
use crate::location::Location;
use crate::opdef::{OpDef, Syntax, Traits};
use crate::types::Type;

/// A forward reference: result `num` of a name not yet defined, its placeholder value and
/// the offset of its first use.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Fwd {
    num: u32,
    ph: Value,
    off: u32,
}

#[derive(Clone, Debug, Default)]
pub(crate) enum Slot {
    #[default]
    Empty,
    /// `count` consecutive values starting at `first` (an op's results, or one argument).
    Defined {
        first: Value,
        count: u32,
        off: u32,
    },
    Forward(Box<SmallVec<[Fwd; 1]>>),
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum NameKey<'s> {
    Num(u32),
    Named(&'s [u8]),
}

/// The SSA names of one isolated-from-above scope: `%N` in a vector, others in a map.
#[derive(Default)]
pub(crate) struct ValueScope<'s> {
    numeric: Vec<Slot>,
    named: FxHashMap<&'s [u8], Slot>,
    /// Names defined in nested (non-isolated) regions, dropped when the region ends.
    defs: Vec<NameKey<'s>>,
    marks: Vec<usize>,
    /// Names with pending forward references.
    pending: u32,
    /// Largest `%N` kept in `numeric` (bigger ones go to `named`).
    num_limit: u32,
}

impl<'s> ValueScope<'s> {
    pub(crate) fn new(num_limit: u32) -> Self {
        ValueScope { num_limit, ..Default::default() }
    }
    #[inline]
    fn key(&self, name: &'s [u8]) -> NameKey<'s> {
        let d = &name[1..];
        if !d.is_empty() && d.len() <= 9 && (d[0] != b'0' || d.len() == 1) && d.iter().all(u8::is_ascii_digit) {
            let n = d.iter().fold(0u32, |a, &c| a * 10 + (c - b'0') as u32);
            if n <= self.num_limit {
                return NameKey::Num(n);
            }
        }
        NameKey::Named(name)
    }
    #[inline]
    fn slot_mut(&mut self, k: NameKey<'s>) -> &mut Slot {
        match k {
            NameKey::Num(n) => {
                let n = n as usize;
                if n >= self.numeric.len() {
                    self.numeric.resize(n + 1, Slot::Empty);
                }
                &mut self.numeric[n]
            }
            NameKey::Named(s) => self.named.entry(s).or_default(),
        }
    }
    /// Where `name` is defined, or first used before its definition, if it is visible here.
    fn reference_off(&self, name: &'s [u8]) -> Option<u32> {
        let slot = match self.key(name) {
            NameKey::Num(n) => self.numeric.get(n as usize),
            NameKey::Named(s) => self.named.get(s),
        };
        match slot? {
            Slot::Defined { off, .. } => Some(*off),
            Slot::Forward(v) => v.iter().map(|x| x.off).min(),
            Slot::Empty => None,
        }
    }
    fn first_forward_use(&self) -> Option<u32> {
        let f = |s: &Slot| match s {
            Slot::Forward(v) => v.iter().map(|x| x.off).min(),
            _ => None,
        };
        self.numeric.iter().filter_map(f).chain(self.named.values().filter_map(f)).min()
    }
}

struct BlockEntry {
    block: Block,
    defined: bool,
    off: u32,
}

/// The block names of one region.
pub(crate) struct BlockScope<'s> {
    region: Region,
    map: FxHashMap<&'s [u8], BlockEntry>,
    undefined: u32,
}

impl<'s> BlockScope<'s> {
    pub(crate) fn new(region: Region) -> Self {
        BlockScope { region, map: FxHashMap::default(), undefined: 0 }
    }
}

impl<'s> Parser<'s> {
    fn num_limit(&self) -> u32 {
        (self.src.len() as u32 / 2).max(1 << 16)
    }

    // ------------------------------------------------------------------ SSA values
    /// `%name` or `%name#N`.
    pub(crate) fn parse_ssa_use(&mut self) -> PResult<UnresolvedOperand<'s>> {
        let t = self.tok;
        if t.kind != Tok::PercentId {
            return Err(self.wrong_token("expected SSA operand"));
        }
        self.bump();
        let mut number = 0;
        // Any `#...` right after a value use is its result number (as MLIR reads it).
        if self.tok.kind == Tok::HashId {
            let h = self.tok;
            match super::types::parse_dec_u64(&self.text(h)[1..]).filter(|&v| v < u32::MAX as u64) {
                Some(v) => number = v as u32,
                None => return Err(self.error_at(h.start, "invalid SSA value result number")),
            }
            self.bump();
        }
        Ok(UnresolvedOperand { name: self.text(t), number, off: t.start })
    }

    /// The value for a use, creating a forward-reference placeholder of type `ty` if the name
    /// is not defined yet.
    pub(crate) fn resolve_operand(&mut self, body: &mut Body, u: &UnresolvedOperand<'s>, ty: Type) -> PResult<Value> {
        enum Out {
            Ok(Value),
            Mismatch(Type, u32),
            BadNum,
            New,
        }
        let scope = self.scopes.last_mut().expect("no SSA scope");
        let k = scope.key(u.name);
        let slot = scope.slot_mut(k);
        let out = match slot {
            Slot::Defined { first, count, off } => {
                if u.number >= *count {
                    Out::BadNum
                } else {
                    let v = Value::new(first.index() + u.number as usize);
                    let vt = body.value_type(v);
                    if vt == ty {
                        Out::Ok(v)
                    } else {
                        Out::Mismatch(vt, *off)
                    }
                }
            }
            Slot::Forward(refs) => match refs.iter().find(|f| f.num == u.number) {
                Some(f) => {
                    let vt = body.value_type(f.ph);
                    if vt == ty {
                        Out::Ok(f.ph)
                    } else {
                        Out::Mismatch(vt, f.off)
                    }
                }
                None => Out::New,
            },
            Slot::Empty => Out::New,
        };
        match out {
            Out::Ok(v) => Ok(v),
            Out::BadNum => Err(self.error_at(u.off, "reference to invalid result number")),
            Out::Mismatch(prior, off) => {
                let name = String::from_utf8_lossy(u.name).into_owned();
                let (a, b) = (self.type_str(ty), self.type_str(prior));
                let d = self.error_at(
                    u.off,
                    format!("use of value '{name}' expects different type than prior uses: '{a}' vs '{b}'"),
                );
                Err(self.note_at(d, off, "prior use here"))
            }
            Out::New => {
                let st = OperationState::with_name(self.ctx, self.placeholder_name, Location::UNKNOWN).results(&[ty]);
                let op = body.create_op(st);
                let ph = body.result(op, 0);
                let scope = self.scopes.last_mut().expect("no SSA scope");
                let slot = scope.slot_mut(k);
                let fwd = Fwd { num: u.number, ph, off: u.off };
                match slot {
                    Slot::Forward(refs) => refs.push(fwd),
                    _ => {
                        *slot = Slot::Forward(Box::new(smallvec::smallvec![fwd]));
                        scope.pending += 1;
                    }
                }
                Ok(ph)
            }
        }
    }

    /// Resolves `uses` against `types` (same length, checked by the caller).
    pub(crate) fn resolve_operands(
        &mut self,
        body: &mut Body,
        uses: &[UnresolvedOperand<'s>],
        types: &[Type],
        out: &mut SmallVec<[Value; 4]>,
    ) -> PResult<()> {
        for (u, &t) in uses.iter().zip(types) {
            let v = self.resolve_operand(body, u, t)?;
            out.push(v);
        }
        Ok(())
    }

    /// Binds `%name` (token text `name`, at `off`) to `count` values starting at `first`.
    pub(crate) fn define_value(
        &mut self,
        body: &mut Body,
        name: &'s [u8],
        off: u32,
        first: Value,
        count: u32,
    ) -> PResult<()> {
        let scope = self.scopes.last_mut().expect("no SSA scope");
        let k = scope.key(name);
        let slot = scope.slot_mut(k);
        match std::mem::replace(slot, Slot::Defined { first, count, off }) {
            Slot::Empty => {
                if !scope.marks.is_empty() {
                    scope.defs.push(k);
                }
                Ok(())
            }
            prev @ Slot::Defined { .. } => {
                let Slot::Defined { off: prev_off, .. } = prev else { unreachable!() };
                *slot = prev;
                let n = String::from_utf8_lossy(name).into_owned();
                let d = self.error_at(off, format!("redefinition of SSA value '{n}'"));
                Err(self.note_at(d, prev_off, "previously defined here"))
            }
            Slot::Forward(refs) => {
                scope.pending -= 1;
                if !scope.marks.is_empty() {
                    scope.defs.push(k);
                }
                for f in refs.iter() {
                    if f.num >= count {
                        return Err(self.error_at(f.off, "use of undeclared SSA value name"));
                    }
                    let v = Value::new(first.index() + f.num as usize);
                    let (vt, pt) = (body.value_type(v), body.value_type(f.ph));
                    if vt != pt {
                        let n = String::from_utf8_lossy(name).into_owned();
                        let (a, b) = (self.type_str(vt), self.type_str(pt));
                        let d = self.error_at(off, format!("definition of SSA value '{n}#{}' has type '{a}'", f.num));
                        return Err(self.note_at(d, f.off, format!("previously used here with type '{b}'")));
                    }
                    body.replace_all_uses(f.ph, v);
                    if let Some(op) = body.defining_op(f.ph) {
                        body.erase_op(op);
                    }
                }
                Ok(())
            }
        }
    }

    /// Ends an isolated scope: any name still only forward-referenced is undeclared.
    pub(crate) fn pop_value_scope(&mut self, _body: &mut Body) -> PResult<()> {
        let scope = self.scopes.pop().expect("no SSA scope");
        if scope.pending > 0 {
            // Reported once the whole input parsed (MLIR's `finalize`), so that a later syntax
            // error comes first, as in mlir-opt.
            if let Some(off) = scope.first_forward_use() {
                self.undeclared = Some(self.undeclared.map_or(off, |o| o.min(off)));
            }
        }
        Ok(())
    }

    fn push_region_level(&mut self) {
        let s = self.scopes.last_mut().expect("no SSA scope");
        s.marks.push(s.defs.len());
    }

    fn pop_region_level(&mut self) {
        let s = self.scopes.last_mut().expect("no SSA scope");
        let m = s.marks.pop().unwrap_or(0);
        let keys: SmallVec<[NameKey<'s>; 16]> = s.defs.drain(m..).collect();
        for k in keys {
            let slot = s.slot_mut(k);
            if matches!(slot, Slot::Defined { .. }) {
                *slot = Slot::Empty;
            }
        }
    }

    // ------------------------------------------------------------------ blocks
    /// The block named by caret token `t` in the current region, created on first reference.
    pub(crate) fn block_ref(&mut self, body: &mut Body, t: Token) -> Block {
        let name = self.text(t);
        let bs = self.block_scopes.last_mut().expect("no block scope");
        if let Some(e) = bs.map.get(name) {
            return e.block;
        }
        let b = body.create_block(&[]);
        bs.map.insert(name, BlockEntry { block: b, defined: false, off: t.start });
        bs.undefined += 1;
        b
    }

    /// `%a, %b, ...` (at least one), appended to `uses`.
    #[inline(always)]
    fn parse_ssa_uses(&mut self, uses: &mut SmallVec<[UnresolvedOperand<'s>; 4]>) -> PResult<()> {
        loop {
            uses.push(self.parse_ssa_use()?);
            if !self.eat(Tok::Comma) {
                return Ok(());
            }
        }
    }

    /// `[^bb1, ^bb2]`, if the next token is `[`: the op's successors, added to `state`.
    #[inline(always)]
    fn parse_optional_successor_list(&mut self, body: &mut Body, state: &mut OperationState) -> PResult<()> {
        if self.eat(Tok::LSquare) {
            loop {
                let b = self.parse_successor(body)?;
                state.successors.push(b);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RSquare, "expected ',' or ']'")?;
        }
        Ok(())
    }

    /// `^bb` at the cursor, as a successor.
    pub(crate) fn parse_successor(&mut self, body: &mut Body) -> PResult<Block> {
        let t = self.tok;
        if t.kind != Tok::CaretId {
            return Err(self.wrong_token("expected block name"));
        }
        self.bump();
        Ok(self.block_ref(body, t))
    }

    fn define_block(&mut self, body: &mut Body, t: Token) -> PResult<Block> {
        let name = self.text(t);
        let bs = self.block_scopes.last_mut().expect("no block scope");
        let region = bs.region;
        let b = match bs.map.get_mut(name) {
            Some(e) if e.defined => {
                let n = String::from_utf8_lossy(name).into_owned();
                return Err(self.error_at(t.start, format!("redefinition of block '{n}'")));
            }
            Some(e) => {
                e.defined = true;
                bs.undefined -= 1;
                e.block
            }
            None => {
                let b = body.create_block(&[]);
                bs.map.insert(name, BlockEntry { block: b, defined: true, off: t.start });
                b
            }
        };
        body.append_block(region, b);
        Ok(b)
    }

    pub(crate) fn pop_block_scope(&mut self) -> PResult<()> {
        let bs = self.block_scopes.pop().expect("no block scope");
        if bs.undefined > 0 {
            let off = bs.map.values().filter(|e| !e.defined).map(|e| e.off).min().unwrap_or(0);
            return Err(self.error_at(off, "reference to an undefined block"));
        }
        Ok(())
    }

    // ------------------------------------------------------------------ regions
    /// `{ blocks }` into `region` of `body`. `isolated` starts a fresh SSA name scope; `args`
    /// become the entry block's arguments. Runs on a stack grown on demand (regions nest).
    pub(crate) fn parse_region(
        &mut self,
        body: &mut Body,
        region: Region,
        args: &[Argument<'s>],
        isolated: bool,
    ) -> PResult<()> {
        super::with_stack(|| {
            self.expect(Tok::LBrace, "expected '{' to begin a region")?;
            self.enter()?;
            // Named entry arguments may not reuse a name visible here (MLIR checks this before
            // the region's own scope starts, even for isolated regions).
            if let Some(scope) = self.scopes.last() {
                for a in args.iter().filter(|a| !a.name.name.is_empty()) {
                    if let Some(prev) = scope.reference_off(a.name.name) {
                        let n = String::from_utf8_lossy(a.name.name).into_owned();
                        let d = self.error_at(a.name.off, format!("region entry argument '{n}' is already in use"));
                        return Err(self.note_at(d, prev, "previously referenced here"));
                    }
                }
            }
            if isolated {
                let lim = self.num_limit();
                self.scopes.push(ValueScope::new(lim));
            } else {
                self.push_region_level();
            }
            self.block_scopes.push(BlockScope::new(region));
            if !(args.is_empty() && self.is(Tok::RBrace)) {
                self.parse_region_body(body, region, args)?;
            }
            if !self.is(Tok::RBrace) {
                return Err(self.wrong_token("expected '}' to end region"));
            }
            // The region's blocks are checked before the `}` is consumed (and the token after it
            // lexed), as in MLIR.
            self.pop_block_scope()?;
            self.bump();
            if isolated {
                self.pop_value_scope(body)?;
            } else {
                self.pop_region_level();
            }
            self.leave();
            Ok(())
        })
    }

    fn parse_region_body(&mut self, body: &mut Body, region: Region, args: &[Argument<'s>]) -> PResult<()> {
        if self.is(Tok::CaretId) {
            if !args.is_empty() {
                return Err(self.error_here("invalid block name in region with named arguments"));
            }
        } else {
            let types: SmallVec<[Type; 4]> = args.iter().map(|a| a.ty).collect();
            let b = body.create_block(&types);
            body.append_block(region, b);
            for (i, a) in args.iter().enumerate() {
                let v = body.block_arg(b, i);
                self.define_value(body, a.name.name, a.name.off, v, 1)?;
                // Like MLIR, an argument without `loc(...)` is located at its name.
                let l = match a.loc {
                    Some(l) => l,
                    None => self.loc_at(a.name.off),
                };
                body.set_arg_loc(v, l);
            }
            self.parse_block_ops(body, b)?;
        }
        while self.is(Tok::CaretId) {
            let t = self.tok;
            self.bump();
            let b = self.define_block(body, t)?;
            if self.eat(Tok::LParen) && !self.eat(Tok::RParen) {
                loop {
                    let a = self.tok;
                    if a.kind != Tok::PercentId {
                        return Err(self.wrong_token("expected SSA operand"));
                    }
                    self.bump();
                    self.expect(Tok::Colon, "expected ':' and type for SSA operand")?;
                    let ty = self.parse_type()?;
                    let v = body.add_block_arg(b, ty);
                    let l = match self.parse_optional_trailing_loc()? {
                        Some(l) => l,
                        None => self.loc_at(a.start),
                    };
                    body.set_arg_loc(v, l);
                    self.define_value(body, self.text(a), a.start, v, 1)?;
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen, "expected ')'")?;
            }
            self.expect(Tok::Colon, "expected ':' after block name")?;
            self.parse_block_ops(body, b)?;
        }
        Ok(())
    }

    fn parse_block_ops(&mut self, body: &mut Body, b: Block) -> PResult<()> {
        while !matches!(self.tok.kind, Tok::RBrace | Tok::CaretId) {
            self.parse_operation(body, b)?;
        }
        Ok(())
    }

    /// The default dialect inside the regions of an op defined by `def`.
    pub(crate) fn push_default_dialect(&mut self, name: crate::context::OpName) {
        let d = match self.ctx.interface::<crate::interfaces::DefaultDialect>(name) {
            Some(d) => d.0,
            None => self.default_dialect.last().copied().unwrap_or(""),
        };
        self.default_dialect.push(d);
    }

    /// Parses one region of the op being built in `state` (into its nested body if the op is
    /// isolated from above, else as a detached region of `body`).
    pub(crate) fn parse_op_region(
        &mut self,
        body: &mut Body,
        state: &mut OperationState,
        def: Option<&'static OpDef>,
        args: &[Argument<'s>],
        custom: bool,
    ) -> PResult<()> {
        // Only custom forms set a default dialect for their regions (as MLIR's custom op
        // parser does through OpAsmOpInterface); generic ones inherit the enclosing one.
        if custom {
            self.push_default_dialect(state.name);
        } else {
            let d = self.default_dialect.last().copied().unwrap_or("");
            self.default_dialect.push(d);
        }
        let r = if def.is_some_and(|d| d.has(Traits::IsolatedFromAbove)) {
            let ctx = self.ctx;
            let nested = state.nested.get_or_insert_with(|| Box::new(Body::new(ctx, state.name, state.loc)));
            let r = nested.add_root_region();
            self.parse_region(nested, r, args, true)
        } else {
            let r = body.create_region();
            state.regions.push(r);
            self.parse_region(body, r, args, false)
        };
        self.default_dialect.pop();
        r
    }

    /// Gives a registered op its declared number of regions (custom and pretty forms omit
    /// empty ones) and an isolated op its nested body.
    fn finish_state(&self, body: &mut Body, state: &mut OperationState, def: &'static OpDef, pad: bool) {
        if def.has(Traits::IsolatedFromAbove) {
            let ctx = self.ctx;
            let nested = state.nested.get_or_insert_with(|| Box::new(Body::new(ctx, state.name, state.loc)));
            while pad && nested.root_regions().len() < def.regions.len() {
                nested.add_root_region();
            }
        } else {
            while pad && state.regions.len() < def.regions.len() {
                let r = body.create_region();
                state.regions.push(r);
            }
        }
    }

    // ------------------------------------------------------------------ operations
    /// One operation (with its result list and trailing location), appended to `block`.
    pub(crate) fn parse_operation(&mut self, body: &mut Body, block: Block) -> PResult<()> {
        self.release_consumed();
        let start = self.tok.start;
        let mut results: SmallVec<[(Token, u32); 2]> = SmallVec::new();
        let mut nres: u32 = 0;
        if self.is(Tok::PercentId) {
            loop {
                let t = self.tok;
                self.bump();
                let mut n = 1;
                if self.eat(Tok::Colon) {
                    let it = self.tok;
                    if it.kind != Tok::Integer {
                        return Err(self.wrong_token("expected integer number of results"));
                    }
                    match super::types::parse_dec_u64(self.text(it)) {
                        Some(v) if v > 0 && v < (1 << 31) => n = v as u32,
                        _ => return Err(self.error_at(it.start, "expected named operation to have at least 1 result")),
                    }
                    self.bump();
                }
                results.push((t, n));
                nres = match nres.checked_add(n) {
                    Some(x) if x < (1 << 31) => x,
                    _ => return Err(self.error_at(t.start, "too many results")),
                };
                if !self.eat(Tok::Comma) {
                    break;
                }
                if !self.is(Tok::PercentId) {
                    return Err(self.wrong_token("expected valid ssa identifier"));
                }
            }
            self.expect(Tok::Equal, "expected '=' after SSA name")?;
        }
        // As in mlir-opt, an op's location is that of its name (not of its result list).
        let loc = self.loc_at(self.tok.start);
        let op = match self.tok.kind {
            Tok::String => self.parse_generic_op(body, loc)?,
            // MLIR lexes `i32`, `si8`, `ui1` as integer-type tokens, which never name an op.
            Tok::BareId if !is_int_type_keyword(self.text(self.tok)) => self.parse_custom_op(body, loc, nres)?,
            _ => return Err(self.wrong_token("expected operation name in quotes")),
        };
        if self.is_kw("loc") {
            let l = self.parse_trailing_loc()?;
            body.set_op_loc(op, l);
        }
        if !results.is_empty() {
            let n = body.num_results(op) as u32;
            if n != nres {
                return Err(
                    self.error_at(start, format!("operation defines {n} results but was provided {nres} to bind"))
                );
            }
            let mut idx = 0;
            for (t, c) in results {
                let first = body.result(op, idx);
                self.define_value(body, self.text(t), t.start, first, c)?;
                idx += c as usize;
            }
        }
        body.append_op(block, op);
        Ok(())
    }

    fn op_name_of(&mut self, t: Token) -> PResult<OpName> {
        let raw = self.text(t);
        if let Some(&n) = self.op_names.get(raw) {
            return Ok(n);
        }
        let s = self.string_value(t);
        let Ok(s) = std::str::from_utf8(&s) else {
            return Err(self.error_at(t.start, "operation names that are not valid UTF-8 are not supported"));
        };
        let n = self.ctx.op_name(s);
        self.op_names.insert(raw.into(), n);
        Ok(n)
    }

    /// `"name"(operands)[successors] <{props}> (regions) {attrs} : type`.
    fn parse_generic_op(&mut self, body: &mut Body, loc: Location) -> PResult<Op> {
        let ctx = self.ctx;
        let nt = self.tok;
        let quoted = self.text(nt);
        if quoted.len() <= 2 {
            return Err(self.error_at(nt.start, "empty operation name is invalid"));
        }
        // A raw NUL byte or an escape (`\00`) can make a NUL: MLIR rejects both. Decode only
        // then: names are looked up by their text.
        if memchr::memchr2(b'\\', 0, quoted).is_some() && self.string_value(nt).contains(&0) {
            return Err(self.error_at(nt.start, "null character not allowed in operation name"));
        }
        let name = self.op_name_of(nt)?;
        let def = ctx.op_def(name);
        self.bump();
        if def.is_none() {
            // An unknown op of a registered dialect is the verifier's error (as in MLIR).
            let info = ctx.op_info(name);
            let known_dialect = !info.dialect.is_empty() && ctx.is_registered_dialect(&info.dialect);
            if !known_dialect && !self.allow_unregistered {
                return Err(self.error_here(
                    "operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used",
                ));
            }
        }
        self.expect(Tok::LParen, "expected '(' to start operand list")?;
        let mut uses: SmallVec<[UnresolvedOperand<'s>; 4]> = SmallVec::new();
        if self.is(Tok::PercentId) {
            self.parse_ssa_uses(&mut uses)?;
        }
        self.expect(Tok::RParen, "expected ')' to end operand list")?;
        let mut state = OperationState::with_name(ctx, name, loc);
        self.parse_optional_successor_list(body, &mut state)?;
        // Properties are any attribute (unregistered ops keep it as is); a registered op's must
        // be a dictionary, which is checked, as MLIR does, once the op is parsed.
        let mut props = None;
        if self.eat(Tok::Less) {
            props = Some(self.parse_attr()?);
            self.expect(Tok::Greater, "expected '>' to close properties")?;
        }
        if self.eat(Tok::LParen) {
            loop {
                self.parse_op_region(body, &mut state, def, &[], false)?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "expected ')' to end region list")?;
        }
        let attrs = if self.is(Tok::LBrace) { Some(self.parse_dict_attr()?) } else { None };
        self.expect(Tok::Colon, "expected ':' followed by operation type")?;
        let toff = self.tok.start;
        let ty = self.parse_type()?;
        let Some((inputs, outputs)) = ctx.function_signature(ty) else {
            return Err(self.error_at(toff, "expected function type"));
        };
        if inputs.len() != uses.len() {
            return Err(self.error_at(toff, format!("expected {} operand types but had {}", uses.len(), inputs.len())));
        }
        self.resolve_operands(body, &uses, inputs, &mut state.operands)?;
        state.result_types.extend_from_slice(outputs);
        if let (Some(d), Some(p)) = (def, props) {
            let why = if d.attributes.is_empty() {
                Some("this operation does not support properties")
            } else if !matches!(ctx.attr_kind(p), crate::attrs::AttrKind::Dictionary(_)) {
                Some("expected DictionaryAttr to set properties")
            } else {
                None
            };
            if let Some(why) = why {
                let msg = format!("invalid properties {} for op {}: {why}", self.attr_str(p), d.name);
                return Err(crate::diag::Diagnostic::error(loc, msg));
            }
        }
        match def {
            Some(d) => {
                state.attrs = match (props, attrs) {
                    (Some(p), Some(a)) => {
                        let mut e: Vec<_> = ctx.dict_entries(p).to_vec();
                        e.extend_from_slice(ctx.dict_entries(a));
                        ctx.dict(&e)
                    }
                    (Some(p), None) => p,
                    (None, Some(a)) => a,
                    (None, None) => ctx.empty_dict(),
                };
                self.finish_state(body, &mut state, d, false);
            }
            None => {
                state.attrs = attrs.unwrap_or_else(|| ctx.empty_dict());
                state.props = props;
            }
        }
        Ok(body.create_op(state))
    }

    /// Looks up a bare op name: as written, with the default dialect, `builtin.` or `func.`.
    fn lookup_custom_op(&self, s: &str) -> Option<&'static OpDef> {
        let ctx = self.ctx;
        let find = |n: &str| -> Option<&'static OpDef> {
            let (ns, _) = n.split_once('.')?;
            ctx.dialect(ns)?.ops.iter().find(|d| d.name == n)
        };
        if let Some(d) = find(s) {
            return Some(d);
        }
        let dd = self.default_dialect.last().copied().unwrap_or("");
        let mut buf = String::with_capacity(s.len() + 8);
        // As written, then with the default dialect (`func` inside functions), then `builtin`.
        for prefix in [dd, "builtin"] {
            if prefix.is_empty() {
                continue;
            }
            buf.clear();
            buf.push_str(prefix);
            buf.push('.');
            buf.push_str(s);
            if let Some(d) = find(&buf) {
                return Some(d);
            }
        }
        None
    }

    fn parse_custom_op(&mut self, body: &mut Body, loc: Location, nres: u32) -> PResult<Op> {
        let ctx = self.ctx;
        let nt = self.tok;
        let s = self.tstr(nt);
        let dd = self.default_dialect.last().copied().unwrap_or("");
        let key = (self.text(nt), dd);
        let found = match self.custom_ops.get(&key) {
            Some(&x) => Some(x),
            None => {
                let r = self.lookup_custom_op(s).map(|d| (ctx.op_name(d.name), d));
                if let Some(x) = r {
                    self.custom_ops.insert(key, x);
                }
                r
            }
        };
        let Some((name, def)) = found else {
            // (`ns.` with nothing after the dot counts as having no dialect prefix, as in MLIR)
            let msg = match s.split_once('.').filter(|(_, rest)| !rest.is_empty()) {
                Some((ns, _)) if ctx.is_registered_dialect(ns) => format!("custom op '{s}' is unknown"),
                Some((ns, _)) => format!("Dialect `{ns}' not found for custom op '{s}' "),
                None => match self.default_dialect.last().copied().unwrap_or("") {
                    "" => format!("custom op '{s}' is unknown"),
                    dd => format!("custom op '{s}' is unknown (tried '{dd}.{s}' as well)"),
                },
            };
            let unknown_dialect = msg.starts_with("Dialect");
            // MLIR lexes the next token first: a lexical error there is reported instead.
            self.bump();
            let d = self.error_at(nt.start, msg);
            if unknown_dialect && d.message.starts_with("Dialect") {
                let mut names: Vec<&str> = ctx.dialects().iter().map(|d| d.name).collect();
                names.sort_unstable();
                let note = format!(
                    "Available dialects: {} ; for more info on dialect registration see https://mlir.llvm.org/getting_started/Faq/#registered-loaded-dependent-whats-up-with-dialects-management",
                    names.join(", ")
                );
                return Err(self.note_at(d, nt.start, note));
            }
            return Err(d);
        };
        self.bump();
        match def.syntax {
            Syntax::Pretty => self.parse_pretty_op(body, name, def, loc, nres),
            Syntax::Custom { parse, .. } => {
                let mut state = OperationState::with_name(ctx, name, loc);
                {
                    let mut asm = OpAsmParser::new(self, body, def, nres, nt.start);
                    parse(&mut asm, &mut state)?;
                }
                self.finish_state(body, &mut state, def, true);
                Ok(body.create_op(state))
            }
            Syntax::Generic => Err(self.error_at(nt.start, format!("custom op '{s}' has no custom assembly form"))),
        }
    }

    /// True if the `%` tokens at the cursor are the result list of the next op
    /// (`%a, %b:2 =`), not operands of the current one.
    fn at_result_list(&self) -> bool {
        let mut lx = self.lex.clone();
        let mut t = self.tok;
        loop {
            if t.kind != Tok::PercentId {
                return false;
            }
            t = lx.next_token();
            if t.kind == Tok::HashId {
                t = lx.next_token();
            }
            if t.kind == Tok::Colon {
                t = lx.next_token();
                if t.kind != Tok::Integer {
                    return false;
                }
                t = lx.next_token();
            }
            match t.kind {
                Tok::Comma => t = lx.next_token(),
                Tok::Equal => return true,
                _ => return false,
            }
        }
    }

    /// The uniform pretty form: `name operands? [successors]? {attrs}? (: type-sig region*)?`.
    fn parse_pretty_op(
        &mut self,
        body: &mut Body,
        name: OpName,
        def: &'static OpDef,
        loc: Location,
        nres: u32,
    ) -> PResult<Op> {
        let ctx = self.ctx;
        let mut state = OperationState::with_name(ctx, name, loc);
        let mut uses: SmallVec<[UnresolvedOperand<'s>; 4]> = SmallVec::new();
        if self.is(Tok::PercentId) && !self.at_result_list() {
            self.parse_ssa_uses(&mut uses)?;
        }
        self.parse_optional_successor_list(body, &mut state)?;
        if self.is(Tok::LBrace) {
            state.attrs = self.parse_dict_attr()?;
        }
        if self.eat(Tok::Colon) {
            let toff = self.tok.start;
            if self.is(Tok::LParen) {
                let ty = self.parse_function_type()?;
                let (inputs, outputs) = ctx.function_signature(ty).expect("function type");
                if inputs.len() != uses.len() {
                    return Err(
                        self.error_at(toff, format!("expected {} operand types but had {}", uses.len(), inputs.len()))
                    );
                }
                self.resolve_operands(body, &uses, inputs, &mut state.operands)?;
                state.result_types.extend_from_slice(outputs);
            } else {
                let ty = self.parse_type()?;
                for u in &uses {
                    let v = self.resolve_operand(body, u, ty)?;
                    state.operands.push(v);
                }
                state.result_types.extend(std::iter::repeat_n(ty, nres as usize));
            }
            while self.is(Tok::LBrace) {
                self.parse_op_region(body, &mut state, Some(def), &[], true)?;
            }
        } else if !uses.is_empty() || nres > 0 {
            return Err(self.wrong_token("expected ':' followed by the operand and result types"));
        }
        self.finish_state(body, &mut state, def, true);
        Ok(body.create_op(state))
    }
}

/// `i<N>`, `si<N>`, `ui<N>`: MLIR's integer-type token.
fn is_int_type_keyword(s: &[u8]) -> bool {
    let digits = s.strip_prefix(b"si").or_else(|| s.strip_prefix(b"ui")).or_else(|| s.strip_prefix(b"i"));
    digits.is_some_and(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
}
