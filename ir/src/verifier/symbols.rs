//! Symbol tables for verification and passes: the symbols defined directly in a `SymbolTable`
//! op's region (by their `sym_name` string attribute), looked up by name. Lookups follow MLIR's
//! `lookupNearestSymbolFrom`: only the nearest enclosing symbol table is searched, never the
//! outer ones (mlir-opt rejects a call from a nested module to a function of the outer module).

use rustc_hash::FxHashMap;

use crate::body::{Body, Op, Region};
use crate::context::Context;
use crate::location::Location;
use crate::opdef::{SymbolInfo, SymbolLookup};

/// The symbols of one symbol table (e.g. a `builtin.module`), by name.
pub struct SymbolTable<'a> {
    map: FxHashMap<&'a str, SymbolInfo>,
}

/// A symbol defined twice in one table: the second definition and the first one's location.
#[derive(Copy, Clone, Debug)]
pub struct Redefinition<'a> {
    pub op: Op,
    pub name: &'a str,
    pub first: Location,
}

impl<'a> SymbolTable<'a> {
    /// The symbols defined by the ops directly in `regions` of `body` (the first definition of
    /// a name wins). Fails at the first redefinition, as MLIR's symbol-table verifier does.
    pub fn build(ctx: &'a Context, body: &Body, regions: &[Region]) -> Result<Self, Redefinition<'a>> {
        let mut map: FxHashMap<&'a str, SymbolInfo> = FxHashMap::default();
        for &r in regions {
            for b in body.region_blocks(r) {
                for op in body.block_ops(b) {
                    let attrs = body.attrs(op);
                    let Some(name) = sym_name(ctx, body, op) else { continue };
                    if let Some(first) = map.get(name) {
                        return Err(Redefinition { op, name, first: first.loc });
                    }
                    map.insert(name, SymbolInfo { op_name: body.op_name(op), attrs, loc: body.op_loc(op) });
                }
            }
        }
        Ok(SymbolTable { map })
    }

    /// The symbols of the table that `body`'s owner is (e.g. a module's body), ignoring
    /// redefinitions (the first definition wins). For passes that look symbols up; the table
    /// does not borrow the body, so the functions can be mutated (and verified with
    /// [`verify_isolated`](super::verify_isolated)) while it is in use.
    pub fn of_body(ctx: &'a Context, body: &Body) -> Self {
        let mut t = SymbolTable { map: FxHashMap::default() };
        for &r in body.root_regions() {
            for b in body.region_blocks(r) {
                for op in body.block_ops(b) {
                    let attrs = body.attrs(op);
                    if let Some(name) = sym_name(ctx, body, op) {
                        t.map.entry(name).or_insert(SymbolInfo {
                            op_name: body.op_name(op),
                            attrs,
                            loc: body.op_loc(op),
                        });
                    }
                }
            }
        }
        t
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The `sym_name` string of `op`: an unregistered op's properties are looked at first (they
/// are its inherent attributes, as in MLIR), then its attributes.
fn sym_name<'a>(ctx: &'a Context, body: &Body, op: Op) -> Option<&'a str> {
    let from = |d: crate::context::Attr| ctx.dict_get(d, "sym_name").and_then(|a| ctx.as_str(a));
    let in_props = body
        .props(op)
        .filter(|&p| matches!(ctx.attr_kind(p), crate::attrs::AttrKind::Dictionary(_)))
        .and_then(from);
    in_props.or_else(|| from(body.attrs(op)))
}

impl SymbolLookup for SymbolTable<'_> {
    fn lookup(&self, name: &str) -> Option<SymbolInfo> {
        self.map.get(name).copied()
    }
}

/// A lookup that finds nothing: used where MLIR finds no symbol table (no enclosing table, or
/// an unregistered single-region op in between that might be an unknown symbol table).
pub struct NoSymbols;

impl SymbolLookup for NoSymbols {
    fn lookup(&self, _name: &str) -> Option<SymbolInfo> {
        None
    }
}
