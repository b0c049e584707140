//! The custom syntax of the `func` ops, as mlir-opt prints them:
//! `func.func private @f(%arg0: i32) -> f32 attributes {..} {..}`, `return %a : i32`,
//! `%r = call @f(%a) : (i32) -> f32`, `%f = constant @f : (i32) -> f32`,
//! `%r = call_indirect %f(%a) : (i32) -> f32`.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Attr, OperationState, TypeKind};

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
    // The explicit dictionary may not repeat what the syntax says (MLIR's parseFunctionOp).
    let dict_off = p.offset();
    let implied = std::mem::replace(&mut st.attrs, ctx.empty_dict());
    p.parse_optional_attr_dict_with_keyword(st)?;
    for key in ["sym_visibility", "sym_name", "function_type"] {
        if ctx.dict_entries(st.attrs).iter().any(|(k, _)| ctx.str(*k) == key) {
            let msg = format!("'{key}' is an inferred attribute and should not be specified in the explicit attribute dictionary");
            return Err(p.emit_error_at(dict_off, msg));
        }
    }
    let mut all = ctx.dict_entries(implied).to_vec();
    all.extend_from_slice(ctx.dict_entries(st.attrs));
    st.attrs = ctx.dict(&all);
    let body_off = p.offset();
    let args = if sig.named { sig.args.as_slice() } else { &[] };
    if p.parse_optional_region(st, args)? && p.last_region_is_empty(st) {
        return Err(p.emit_error_at(body_off, "expected non-empty function body"));
    }
    Ok(())
}
/// `func.func private @f(%arg0: i32 {a}) -> (f32 {b}) attributes {..} {...}`; declarations
/// (empty region) print types only: `func.func private @f(i32) -> f32`.
pub(crate) fn print_func(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let name = p.attr("sym_name").and_then(|a| ctx.as_str(a));
    let sig = p.attr("function_type").and_then(|a| ctx.as_type(a)).and_then(|t| ctx.function_signature(t));
    let visibility = p.attr("sym_visibility");
    let (Some(name), Some((inputs, results))) = (name, sig) else { return p.fallback_to_generic() };
    let dicts_ok = |key: &str, n: usize| match p.attr(key) {
        None => true,
        Some(a) => ctx.as_array(a).is_some_and(|v| {
            v.len() == n && v.iter().all(|&d| matches!(ctx.attr_kind(d), xcs_ir::AttrKind::Dictionary(_)))
        }),
    };
    if visibility.is_some_and(|v| ctx.as_str(v).is_none())
        || !dicts_ok("arg_attrs", inputs.len())
        || !dicts_ok("res_attrs", results.len())
        || p.regions().len() != 1
    {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    if let Some(v) = visibility.and_then(|v| ctx.as_str(v)) {
        p.write_str(v);
        p.write_str(" ");
    }
    p.print_symbol_name(name);
    let region = p.regions()[0];
    let body = (!p.region_body().region_is_empty(region)).then_some(region);
    if let Some(r) = body {
        let entry = p.region_body().entry_block(r);
        if entry.is_some_and(|b| p.region_body().block_args(b).len() != inputs.len()) {
            return p.fallback_to_generic();
        }
    }
    let (arg_attrs, res_attrs) = (p.attr("arg_attrs"), p.attr("res_attrs"));
    p.print_function_signature(body, inputs, results, arg_attrs, res_attrs);
    let attrs = p.attrs();
    p.print_optional_attr_dict_with_keyword(
        attrs,
        &["sym_name", "sym_visibility", "function_type", "arg_attrs", "res_attrs"],
    );
    if let Some(r) = body {
        p.write_str(" ");
        p.print_region(r, false, true);
    }
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
/// `return {attrs} %a, %b : i32, f32` (`attr-dict ($operands^ : type($operands))?`).
pub(crate) fn print_return(p: &mut OpAsmPrinter<'_>) {
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &[]);
    let operands = p.operands();
    if !operands.is_empty() {
        p.write_str(" ");
        p.print_operands(&operands);
        p.write_str(" : ");
        let types = p.operand_types();
        p.print_types(&types);
    }
}
/// `call @f(%a) attr-dict : (t) -> (r)`
pub(crate) fn parse_call(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    // Any attribute parses here, as in MLIR's declarative format; it must be a flat symbol.
    let off = p.offset();
    let callee = p.parse_attribute()?;
    if ctx.as_symbol(callee).is_none() {
        return Err(p.emit_error_at(off, "invalid kind of attribute specified"));
    }
    p.set_attr(st, "callee", callee);
    let uses = p.parse_paren_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let (inputs, results) = p.parse_function_type()?;
    p.resolve_operands(&uses, &inputs, st)?;
    st.result_types.extend_from_slice(&results);
    Ok(())
}
/// `call @f(%a) {attrs} : (i32) -> f32`.
pub(crate) fn print_call(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let Some(callee) = p.attr("callee").filter(|&a| ctx.as_symbol(a).is_some()) else {
        return p.fallback_to_generic();
    };
    p.write_str(" ");
    p.print_attribute(callee);
    p.write_str("(");
    let operands = p.operands();
    p.print_operands(&operands);
    p.write_str(")");
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["callee"]);
    p.write_str(" : ");
    p.print_functional_type();
}
/// `func.constant attr-dict @f : type` (the dictionary comes first, as in MLIR's format).
pub(crate) fn parse_constant(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    p.parse_optional_attr_dict(st)?;
    let off = p.offset();
    let value = p.parse_attribute()?;
    if ctx.as_symbol(value).is_none() {
        return Err(p.emit_error_at(off, "invalid kind of attribute specified"));
    }
    // an explicit `value` in the dictionary wins, as in MLIR
    if ctx.dict_get(st.attrs, "value").is_none() {
        p.set_attr(st, "value", value);
    }
    p.parse_colon()?;
    let ty = p.parse_type()?;
    st.result_types.push(ty);
    Ok(())
}
/// `%f = constant {attrs} @f : (i32) -> i32`.
pub(crate) fn print_constant(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let results = p.result_types();
    let (Some(value), [ty]) = (p.attr("value").filter(|&a| ctx.as_symbol(a).is_some()), results.as_slice()) else {
        return p.fallback_to_generic();
    };
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["value"]);
    p.write_str(" ");
    p.print_attribute(value);
    p.write_str(" : ");
    p.print_type(*ty);
}
/// `func.call_indirect %f(%a, %b) attr-dict : (t1, t2) -> r`
pub(crate) fn parse_call_indirect(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let callee = p.parse_operand()?;
    let args = p.parse_paren_operand_list()?;
    p.parse_optional_attr_dict(st)?;
    p.parse_colon()?;
    let off = p.offset();
    let ty = p.parse_type()?;
    let TypeKind::Function { inputs, results } = ctx.type_kind(ty) else {
        let found = xcs_ir::printer::type_to_string(ctx, ty);
        return Err(p.emit_error_at(off, format!("invalid kind of type specified: expected builtin.function, but found '{found}'")));
    };
    let (inputs, results) = (inputs.clone(), results.clone());
    let callee = p.resolve_operand(&callee, ty)?;
    st.operands.push(callee);
    p.resolve_operands(&args, &inputs, st)?;
    st.result_types.extend_from_slice(&results);
    Ok(())
}
/// `%r = call_indirect %f(%a) {attrs} : (i32) -> i32`.
pub(crate) fn print_call_indirect(p: &mut OpAsmPrinter<'_>) {
    let operands = p.operands();
    let Some((&callee, args)) = operands.split_first() else {
        return p.fallback_to_generic();
    };
    let ctx = p.ctx();
    let Some(ty) = p.value_type(callee) else { return p.fallback_to_generic() };
    // the type printed must give the operands' and results' types back
    let arg_types = p.operand_types();
    let result_types = p.result_types();
    let matches = ctx
        .function_signature(ty)
        .is_some_and(|(i, r)| i == &arg_types[1..] && r == result_types.as_slice());
    if !matches {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    p.print_operand(callee);
    p.write_str("(");
    p.print_operands(args);
    p.write_str(")");
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &[]);
    p.write_str(" : ");
    p.print_type(ty);
}
