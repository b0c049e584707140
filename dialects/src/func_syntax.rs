//! The custom syntax of the `func` ops, as mlir-opt prints them:
//! `func.func private @f(%arg0: i32) -> f32 attributes {..} {..}`, `return %a : i32`,
//! `%r = call @f(%a) : (i32) -> f32`.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Attr, Op, OperationState};

/// `func.func (private|public|nested)? @name(args) (-> results)? (attributes {..})? region?`
pub(crate) fn parse_func(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    if let Some(vis) = p.parse_optional_keyword_of(&["private", "public", "nested"]) {
        p.set_attr(st, "sym_visibility", ctx.str_attr(vis));
    }
    let name = p.parse_symbol_name()?;
    p.set_attr(st, "sym_name", name);
    let sig = p.parse_function_signature()?;
    let ft = ctx.function_type(&sig.arg_types(), &sig.result_types);
    p.set_attr(st, "function_type", ctx.type_attr(ft));
    let dicts = |v: &mut dyn Iterator<Item = Option<Attr>>| -> Option<Attr> {
        let v: Vec<Option<Attr>> = v.collect();
        let any = v.iter().any(|a| a.is_some_and(|d| !ctx.dict_entries(d).is_empty()));
        any.then(|| ctx.array_attr(&v.iter().map(|a| a.unwrap_or_else(|| ctx.empty_dict())).collect::<Vec<_>>()))
    };
    if let Some(a) = dicts(&mut sig.args.iter().map(|a| a.attrs)) {
        p.set_attr(st, "arg_attrs", a);
    }
    if let Some(a) = dicts(&mut sig.result_attrs.iter().copied()) {
        p.set_attr(st, "res_attrs", a);
    }
    p.parse_optional_attr_dict_with_keyword(st)?;
    let body_off = p.offset();
    let args = if sig.named { sig.args.as_slice() } else { &[] };
    if p.parse_optional_region(st, args)? && p.last_region_is_empty(st) {
        return Err(p.emit_error_at(body_off, "expected non-empty function body"));
    }
    Ok(())
}
pub(crate) fn print_func(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
/// `return attr-dict (%a, %b : t1, t2)?`
pub(crate) fn parse_return(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let uses = p.parse_operand_list()?;
    if !uses.is_empty() {
        let types = p.parse_colon_type_list()?;
        p.resolve_operands(&uses, &types, st)?;
    }
    Ok(())
}
pub(crate) fn print_return(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
/// `call @f(%a) attr-dict : (t) -> (r)`
pub(crate) fn parse_call(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let callee = p.parse_symbol_ident()?;
    p.set_attr(st, "callee", ctx.symbol_ref(ctx.str(callee)));
    let uses = p.parse_paren_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let (inputs, results) = p.parse_function_type()?;
    p.resolve_operands(&uses, &inputs, st)?;
    st.result_types.extend_from_slice(&results);
    Ok(())
}
pub(crate) fn print_call(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
