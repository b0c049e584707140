//! The custom syntax of the `func` ops, as mlir-opt prints them:
//! `func.func private @f(%arg0: i32) -> f32 attributes {..} {..}`, `return %a : i32`,
//! `%r = call @f(%a) : (i32) -> f32`.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::OperationState;

pub(crate) fn parse_func(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
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
pub(crate) fn parse_return(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
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
pub(crate) fn parse_call(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
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
