//! Source locations (MLIR's builtin location attributes). A [`Location`] is 8 bytes: either a
//! packed `file:line:col` (what the parser attaches to every op, without touching an interner)
//! or an interned [`LocKind`] (names, call sites, fused locations, ranges, `unknown`).

use crate::context::{Attr, Context, Ident};

/// A location handle. See the module docs for the encoding.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Location(u64);

const PACKED: u64 = 1 << 63;
/// With `PACKED` clear: a parser placeholder for a location alias used before its definition
/// (`loc(#loc3)` with `#loc3 = loc(...)` at the end of the file); never outlives the parse.
const DEFERRED: u64 = 1 << 62;
const FILE_BITS: u32 = 15;
const LINE_BITS: u32 = 28;
const COL_BITS: u32 = 20;

/// The structure of a location.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LocKind {
    Unknown,
    /// `"file":line:col`, optionally a range `to end_line:end_col` (`end_line` omitted = same line).
    FileLineCol { file: Ident, line: u32, col: u32, end: Option<(Option<u32>, u32)> },
    /// `"name"` or `"name"(child)`.
    Name { name: Ident, child: Option<Location> },
    /// `callsite(callee at caller)`.
    CallSite { callee: Location, caller: Location },
    /// `fused<metadata>[a, b]`.
    Fused { metadata: Option<Attr>, locs: Box<[Location]> },
}

impl Location {
    /// The `unknown` location (interned at index 0 by every context).
    pub const UNKNOWN: Location = Location(0);

    pub(crate) fn interned(i: u32) -> Location {
        Location(i as u64)
    }
    pub(crate) fn interned_index(self) -> Option<u32> {
        (self.0 & (PACKED | DEFERRED) == 0).then_some(self.0 as u32)
    }
    /// A value no placeholder or location takes (the parser's "not defined yet").
    pub(crate) const fn deferred_sentinel() -> Location {
        Location(DEFERRED | (1 << 40))
    }
    pub(crate) fn deferred(i: u32) -> Location {
        Location(DEFERRED | i as u64)
    }
    pub(crate) fn deferred_index(self) -> Option<u32> {
        (self.0 & (PACKED | DEFERRED) == DEFERRED).then_some(self.0 as u32)
    }
    /// Packs a file:line:col if it fits, else `None`.
    pub(crate) fn pack(file_index: u32, line: u32, col: u32) -> Option<Location> {
        if file_index >= (1 << FILE_BITS) || line >= (1 << LINE_BITS) || col >= (1 << COL_BITS) {
            return None;
        }
        Some(Location(
            PACKED | ((file_index as u64) << (LINE_BITS + COL_BITS)) | ((line as u64) << COL_BITS) | col as u64,
        ))
    }
    pub(crate) fn unpack(self) -> Option<(u32, u32, u32)> {
        if self.0 & PACKED == 0 {
            return None;
        }
        let col = (self.0 & ((1 << COL_BITS) - 1)) as u32;
        let line = ((self.0 >> COL_BITS) & ((1 << LINE_BITS) - 1)) as u32;
        let file = ((self.0 >> (LINE_BITS + COL_BITS)) & ((1 << FILE_BITS) - 1)) as u32;
        Some((file, line, col))
    }
    pub fn is_unknown(self) -> bool {
        self == Location::UNKNOWN
    }
}

impl Context {
    /// Interns a location.
    pub fn loc(&self, kind: LocKind) -> Location {
        if let LocKind::FileLineCol { file, line, col, end: None } = kind {
            let fi = self.file_index(file);
            if let Some(l) = Location::pack(fi, line, col) {
                return l;
            }
        }
        Location::interned(self.locs.intern(&kind))
    }
    /// `"file":line:col` (1-based line and column, as MLIR prints them).
    pub fn file_loc(&self, file: &str, line: u32, col: u32) -> Location {
        self.loc(LocKind::FileLineCol { file: self.ident(file), line, col, end: None })
    }
    /// `"file":line:col` with the file already an identifier (the parser's fast path).
    pub fn file_loc_ident(&self, file: Ident, line: u32, col: u32) -> Location {
        self.loc(LocKind::FileLineCol { file, line, col, end: None })
    }
    pub fn name_loc(&self, name: &str, child: Option<Location>) -> Location {
        self.loc(LocKind::Name { name: self.ident(name), child })
    }
    /// The structure of a location.
    pub fn loc_kind(&self, l: Location) -> LocKind {
        match l.unpack() {
            Some((f, line, col)) => LocKind::FileLineCol { file: self.file_at(f), line, col, end: None },
            None => self.locs.get(l.interned_index().unwrap()).clone(),
        }
    }
    /// The first `file:line:col` inside a location (looking through names, call sites
    /// (the callee) and fused locations), for diagnostics.
    pub fn loc_file_line_col(&self, l: Location) -> Option<(Ident, u32, u32)> {
        match self.loc_kind(l) {
            LocKind::FileLineCol { file, line, col, .. } => Some((file, line, col)),
            LocKind::Name { child: Some(c), .. } => self.loc_file_line_col(c),
            LocKind::CallSite { callee, .. } => self.loc_file_line_col(callee),
            LocKind::Fused { locs, .. } => locs.iter().find_map(|&c| self.loc_file_line_col(c)),
            _ => None,
        }
    }
}
