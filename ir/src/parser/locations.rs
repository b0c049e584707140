//! Locations (MLIR's `LocationParser.cpp` grammar): `unknown`, `"file":line:col` with optional
//! ranges (`to line:col`, `to :col`), `"name"(child)`, `callsite(a at b)`,
//! `fused<meta>[a, b]`, `#alias`; and trailing `loc(...)` specifiers, where an alias may be
//! used before its definition (fixed up at the end of the file).

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
            match self.lookup_attr_alias(name) {
                Some(a) => self.loc_of_alias(a, t.start)?,
                None => self.defer_loc_alias(name, t.start),
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
