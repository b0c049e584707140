//! The `builtin` dialect: `builtin.module` (the top-level container, a symbol table and graph
//! region) and `builtin.unrealized_conversion_cast`.

use crate::opdef::constraints::*;
use crate::interfaces::DefaultDialect;
use crate::opdef::{DialectDef, Syntax};
use crate::op;
use crate::parser::{OpAsmParser, PResult};
use crate::printer::OpAsmPrinter;
use crate::body::OperationState;

op! {
    /// A top-level container operation. Its single region holds one block of ops (no
    /// terminator); it is a symbol table, and a graph region. Custom form:
    /// `module @name attributes {k = v} { ... }`.
    pub struct ModuleOp = "builtin.module" in BUILTIN_OPS {
        summary: "A top level container operation",
        attributes: {
            #[optional] sym_name: SYMBOL_NAME_ATTR,
            #[optional] sym_visibility: STR_ATTR,
        },
        regions: { body_region: 1 },
        traits: [IsolatedFromAbove, SymbolTable, NoTerminator, SingleBlock, GraphRegion],
        interfaces: [DefaultDialect => &DefaultDialect("builtin")],
        syntax: Syntax::Custom { parse: parse_module, print: print_module },
    }
}

op! {
    /// Casts values of some types to values of other types; a placeholder left by partial
    /// conversions, with no semantics of its own.
    pub struct UnrealizedConversionCastOp = "builtin.unrealized_conversion_cast" in BUILTIN_OPS {
        summary: "An unrealized conversion from one set of types to another",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] outputs: ANY_TYPE },
        traits: [Pure],
        syntax: Syntax::Generic,
    }
}

crate::op_list!(pub BUILTIN_OPS);

pub static BUILTIN_DIALECT: DialectDef = DialectDef {
    name: "builtin",
    summary: "Types, attributes and the top-level module of MLIR's builtin dialect",
    description: "",
    ops: crate::opdef::OpList::Collected(&BUILTIN_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

/// `module @name? (attributes {..})? region`
fn parse_module(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> PResult<()> {
    if let Some(name) = p.parse_optional_symbol_name()? {
        p.set_attr(state, "sym_name", name);
    }
    p.parse_optional_attr_dict_with_keyword(state)?;
    p.parse_region(state, &[])?;
    p.ensure_entry_block(state);
    Ok(())
}

/// `module @name attributes {k = v} {...}` (the `builtin.` prefix is dropped by the printer
/// where MLIR drops it: at the top and directly inside modules).
fn print_module(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let name = p.attr("sym_name");
    let mut elided: &[&str] = &[];
    if let Some(n) = name {
        match ctx.as_str(n) {
            Some(n) => {
                p.write_str(" ");
                p.print_symbol_name(n);
                elided = &["sym_name"];
            }
            None => return p.fallback_to_generic(),
        }
    }
    let attrs = p.attrs();
    p.print_optional_attr_dict_with_keyword(attrs, elided);
    for &r in p.regions() {
        p.write_str(" ");
        p.print_region(r, true, true);
    }
}
