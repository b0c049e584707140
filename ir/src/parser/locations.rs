//! Locations (MLIR's `LocationParser.cpp` grammar): `unknown`, `"file":line:col` with optional
//! ranges (`to line:col`, `to :col`), `"name"(child)`, `callsite(a at b)`,
//! `fused<meta>[a, b]`, `#alias`; and trailing `loc(...)` specifiers, where an alias may be
//! used before its definition (fixed up at the end of the file).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{PResult, Parser};
use crate::attrs::AttrKind;
use crate::context::Attr;
use crate::lexer::Tok;
use crate::location::{LocKind, Location};

impl<'s> Parser<'s> {
    /// A trailing `loc(...)` (the `loc` keyword is the current token).
    pub(crate) fn parse_trailing_loc(&mut self) -> PResult<Location> {
        self.bump();
        self.expect(Tok::LParen, "expected '(' in location")?;
        let t = self.tok;
        let l = if t.kind == Tok::HashId && !self.text(t)[1..].contains(&b'.') && self.byte_after(t) != Some(b'<') {
            let name = &self.text(t)[1..];
            self.bump();
            match self.lookup_loc_alias(name) {
                Some(l) => l,
                None => match self.lookup_attr_alias(name) {
                    Some(a) => self.loc_of_alias(a, t.start)?,
                    None => self.defer_loc_alias(name, t.start),
                },
            }
        } else {
            self.parse_loc_instance()?
        };
        self.expect(Tok::RParen, "expected ')' in location")?;
        Ok(l)
    }

    /// An optional trailing `loc(...)`.
    pub(crate) fn parse_optional_trailing_loc(&mut self) -> PResult<Option<Location>> {
        if self.is_kw("loc") {
            Ok(Some(self.parse_trailing_loc()?))
        } else {
            Ok(None)
        }
    }

    fn loc_of_alias(&mut self, a: Attr, off: u32) -> PResult<Location> {
        match self.ctx.attr_kind(a) {
            AttrKind::Location(l) => Ok(*l),
            _ => {
                let s = self.attr_str(a);
                Err(self.error_at(off, format!("expected location, but found '{s}'")))
            }
        }
    }

    /// One location.
    pub(crate) fn parse_loc_instance(&mut self) -> PResult<Location> {
        self.enter()?;
        let l = super::with_stack(|| self.parse_loc_instance_inner())?;
        self.leave();
        Ok(l)
    }

    fn parse_loc_instance_inner(&mut self) -> PResult<Location> {
        let t = self.tok;
        let ctx = self.ctx;
        match t.kind {
            Tok::HashId => {
                let off = t.start;
                let name = &self.text(t)[1..];
                if let Some(l) = self.lookup_loc_alias(name) {
                    if self.byte_after(t) != Some(b'<') {
                        self.bump();
                        return Ok(l);
                    }
                }
                let a = self.parse_attr()?;
                self.loc_of_alias(a, off)
            }
            Tok::BareId => match self.text(t) {
                b"unknown" => {
                    self.bump();
                    Ok(Location::UNKNOWN)
                }
                b"callsite" => {
                    self.bump();
                    self.expect(Tok::LParen, "expected '(' in callsite location")?;
                    let callee = self.parse_loc_instance()?;
                    self.expect_kw("at", "expected 'at' in callsite location")?;
                    let caller = self.parse_loc_instance()?;
                    self.expect(Tok::RParen, "expected ')' in callsite location")?;
                    Ok(ctx.loc(LocKind::CallSite { callee, caller }))
                }
                b"fused" => {
                    self.bump();
                    let metadata = if self.eat(Tok::Less) {
                        let a = self.parse_attr()?;
                        self.expect(Tok::Greater, "expected '>' after fused location metadata")?;
                        Some(a)
                    } else {
                        None
                    };
                    self.expect(Tok::LSquare, "expected '[' in fused location")?;
                    let mut locs: SmallVec<[Location; 4]> = SmallVec::new();
                    loop {
                        locs.push(self.parse_loc_instance()?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RSquare, "expected ']' in fused location")?;
                    Ok(self.fused_loc(&locs, metadata))
                }
                _ => Err(self.wrong_token("expected location instance")),
            },
            Tok::String => {
                self.bump();
                let s = self.string_value(t);
                let name = self.utf8_ident(&s, t.start, "location names")?;
                if self.eat(Tok::Colon) {
                    let line = self.loc_number("expected integer line number in FileLineColRange")?;
                    let col = if self.eat(Tok::Colon) {
                        self.loc_number("expected integer column number in FileLineColRange")?
                    } else {
                        0
                    };
                    let end = if self.eat_kw("to") {
                        let end_line = if self.is(Tok::Integer) {
                            Some(self.loc_number("expected integer line number in FileLineColRange")?)
                        } else {
                            None
                        };
                        self.expect(Tok::Colon, "expected ':' in FileLineColRange")?;
                        let end_col = self.loc_number("expected integer column number in FileLineColRange")?;
                        Some((end_line, end_col))
                    } else {
                        None
                    };
                    return Ok(ctx.loc(LocKind::FileLineCol { file: name, line, col, end }));
                }
                if self.eat(Tok::LParen) {
                    let child = self.parse_loc_instance()?;
                    self.expect(Tok::RParen, "expected ')' after child location of NameLoc")?;
                    return Ok(ctx.loc(LocKind::Name { name, child: Some(child) }));
                }
                Ok(ctx.loc(LocKind::Name { name, child: None }))
            }
            _ => Err(self.wrong_token("expected location instance")),
        }
    }

    fn loc_number(&mut self, msg: &str) -> PResult<u32> {
        let t = self.tok;
        if t.kind != Tok::Integer {
            return Err(self.wrong_token(msg));
        }
        match super::attrs::parse_uint(self.text(t)) {
            Some(v) if v <= u32::MAX as u128 => {
                self.bump();
                Ok(v as u32)
            }
            _ => Err(self.error_here(msg)),
        }
    }

    /// MLIR's `FusedLoc::get`: flattens fused locations with the same metadata, drops
    /// `unknown` and duplicates, and collapses a single location without metadata.
    pub(crate) fn fused_loc(&self, locs: &[Location], metadata: Option<Attr>) -> Location {
        let ctx = self.ctx;
        let mut out: SmallVec<[Location; 4]> = SmallVec::new();
        for &l in locs {
            if let LocKind::Fused { metadata: m, locs: inner } = ctx.loc_kind(l) {
                if m == metadata {
                    for &x in inner.iter() {
                        if !out.contains(&x) {
                            out.push(x);
                        }
                    }
                    continue;
                }
            }
            if !l.is_unknown() && !out.contains(&l) {
                out.push(l);
            }
        }
        match (out.len(), metadata) {
            (0, None) => Location::UNKNOWN,
            (0, Some(_)) => ctx.loc(LocKind::Fused { metadata, locs: Box::new([Location::UNKNOWN]) }),
            (1, None) => out[0],
            _ => ctx.loc(LocKind::Fused { metadata, locs: out.as_slice().into() }),
        }
    }
}

/// The file's location aliases, each with its location once defined and its first use before
/// the definition (MLIR allows `loc(#alias)` ahead of `#alias = loc(...)`, and JAX's exports
/// define every op's location at the end of the file). The names MLIR's printer gives
/// (`#loc1`, `#loc2`, ...) index a table directly; other names are owned short keys, not
/// slices of the source: the pages of a mapped input the parser has passed may be given back,
/// and comparing a name there would read them in again.
#[derive(Default)]
pub(crate) struct LocAliases {
    named: FxHashMap<SmallVec<[u8; 16]>, u32>,
    /// `#locN` by N.
    numbered_slots: Vec<AliasSlot>,
    /// Other names by their id - [`NUMBERED_LIMIT`].
    named_slots: Vec<AliasSlot>,
    deferred: bool,
}

/// What the parser knows of one alias.
#[derive(Copy, Clone)]
struct AliasSlot {
    /// Its location once defined, else [`UNDEFINED`].
    loc: Location,
    /// The offset of its first use before its definition (`u32::MAX`: none).
    first_use: u32,
}

const EMPTY_SLOT: AliasSlot = AliasSlot { loc: UNDEFINED, first_use: u32::MAX };

/// Alias ids: `#locN` with N below this has id N; other names get ids from here up.
const NUMBERED_LIMIT: u32 = 1 << 26;
/// The location of an alias not defined (yet).
const UNDEFINED: Location = Location::deferred_sentinel();

/// N of a `locN` alias name as MLIR's printer writes it (no leading zeros).
fn numbered(name: &[u8]) -> Option<u32> {
    let digits = name.strip_prefix(b"loc")?;
    if digits.is_empty() || digits.len() > 8 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    let mut n: u32 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + (d - b'0') as u32;
    }
    (n < NUMBERED_LIMIT).then_some(n)
}

impl LocAliases {
    /// The alias's id, giving it a slot if it has none.
    fn id(&mut self, name: &[u8]) -> u32 {
        if let Some(n) = numbered(name) {
            if self.numbered_slots.len() <= n as usize {
                self.numbered_slots.resize(n as usize + 1, EMPTY_SLOT);
            }
            return n;
        }
        if let Some(&id) = self.named.get(name) {
            return id;
        }
        let id = NUMBERED_LIMIT + self.named_slots.len() as u32;
        self.named.insert(SmallVec::from_slice(name), id);
        self.named_slots.push(EMPTY_SLOT);
        id
    }

    fn slot(&mut self, id: u32) -> &mut AliasSlot {
        match id.checked_sub(NUMBERED_LIMIT) {
            None => &mut self.numbered_slots[id as usize],
            Some(i) => &mut self.named_slots[i as usize],
        }
    }

    /// The location of a defined alias.
    pub(crate) fn get(&self, name: &[u8]) -> Option<Location> {
        let slot = match numbered(name) {
            Some(n) => self.numbered_slots.get(n as usize)?,
            None => &self.named_slots[(*self.named.get(name)? - NUMBERED_LIMIT) as usize],
        };
        (slot.loc != UNDEFINED).then_some(slot.loc)
    }

    pub(crate) fn define(&mut self, name: &[u8], l: Location) {
        let id = self.id(name);
        self.slot(id).loc = l;
    }

    /// A placeholder for an alias not defined yet ([`Location::deferred`] with the alias id).
    pub(crate) fn defer(&mut self, name: &[u8], offset: u32) -> Location {
        let id = self.id(name);
        let slot = self.slot(id);
        slot.first_use = slot.first_use.min(offset);
        self.deferred = true;
        Location::deferred(id)
    }

    pub(crate) fn has_deferred(&self) -> bool {
        self.deferred
    }

    /// What each placeholder stands for ([`Resolved::get`]), or the first use (in file order)
    /// of an alias that was never defined as a location: its offset and name.
    pub(crate) fn resolve(self) -> Result<Resolved, (u32, Vec<u8>)> {
        let first_missing = |slots: &[AliasSlot]| {
            (0..slots.len())
                .filter(|&i| slots[i].loc == UNDEFINED && slots[i].first_use != u32::MAX)
                .min_by_key(|&i| slots[i].first_use)
        };
        let numbered = first_missing(&self.numbered_slots)
            .map(|i| (self.numbered_slots[i].first_use, format!("loc{i}").into_bytes()));
        let named = first_missing(&self.named_slots).map(|i| {
            let id = NUMBERED_LIMIT + i as u32;
            let name = self.named.iter().find(|(_, &v)| v == id).map(|(n, _)| n.to_vec()).unwrap_or_default();
            (self.named_slots[i].first_use, name)
        });
        if let Some(first) = numbered.into_iter().chain(named).min_by_key(|(offset, _)| *offset) {
            return Err(first);
        }
        let locs = |slots: Vec<AliasSlot>| slots.into_iter().map(|s| s.loc).collect();
        Ok(Resolved { numbered: locs(self.numbered_slots), named: locs(self.named_slots) })
    }
}

/// The locations deferred placeholders stand for, by alias id.
pub(crate) struct Resolved {
    numbered: Vec<Location>,
    named: Vec<Location>,
}

impl Resolved {
    /// The location `l` stands for (`l` itself if it is not a placeholder).
    #[inline]
    pub(crate) fn get(&self, l: Location) -> Location {
        match l.deferred_index() {
            None => l,
            Some(id) => match id.checked_sub(NUMBERED_LIMIT) {
                None => self.numbered[id as usize],
                Some(i) => self.named[i as usize],
            },
        }
    }
}
