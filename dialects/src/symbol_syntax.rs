//! The custom syntax shared by symbol-defining ops without operands (`cost.kernel`,
//! `cost.composite`, `xcs.kernel`): `op @name {attrs} {region}?`, the uniform pretty form
//! with `sym_name` written as `@name` in front.

use xcs_ir::lexer::Tok;
use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::OperationState;

/// `@name attr-dict region*`. For ops with regions the attribute dictionary is required (so a
/// `{` after it is a region); a missing region is an empty one.
pub(crate) fn parse_symbol_op(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    p.set_attr(st, "sym_name", name);
    let nregions = p.op_def().regions.len();
    if nregions > 0 && !p.peek(Tok::LBrace) {
        return Err(p.emit_wrong_token_error("expected '{' to begin the attribute dictionary"));
    }
    p.parse_optional_attr_dict(st)?;
    for _ in 0..nregions {
        if !p.parse_optional_region(st, &[])? {
            break;
        }
    }
    Ok(())
}

/// Prints `@name {attrs}` and the non-empty regions; `entry_args` prints the entry block's
/// arguments (`^bb0(%a: index):`).
pub(crate) fn print_symbol_op(p: &mut OpAsmPrinter<'_>, entry_args: bool) {
    let ctx = p.ctx();
    let Some(name) = p.attr("sym_name").and_then(|a| ctx.as_str(a)) else {
        return p.fallback_to_generic();
    };
    let attrs = p.attrs();
    let has_regions = !p.regions().is_empty();
    let rest = ctx
        .dict_entries(attrs)
        .iter()
        .filter(|(k, _)| ctx.str(*k) != "sym_name")
        .count();
    if has_regions && rest == 0 {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    p.print_symbol_name(name);
    p.print_optional_attr_dict(attrs, &["sym_name"]);
    let body = p.region_body();
    for &r in p.regions() {
        if body.region_is_empty(r) {
            continue;
        }
        p.write_str(" ");
        p.print_region(r, entry_args, true);
    }
}
