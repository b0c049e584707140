//! The custom syntax of `cf.br` and `cf.cond_br`, as mlir-opt prints them.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Op, OperationState};

/// `cf.br ^bb(%a : t)? attr-dict`
pub(crate) fn parse_br(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let (dest, vals) = p.parse_successor_and_use_list()?;
    st.successors.push(dest);
    st.operands.extend_from_slice(&vals);
    p.parse_optional_attr_dict(st)?;
    Ok(())
}
pub(crate) fn print_br(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
/// `cf.cond_br %c, ^t(%a : t)?, ^f(%b : t)? attr-dict`
pub(crate) fn parse_cond_br(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let cond = p.parse_operand()?;
    let c = p.resolve_operand(&cond, ctx.i1_type())?;
    p.parse_comma()?;
    let (t, tv) = p.parse_successor_and_use_list()?;
    p.parse_comma()?;
    let (f, fv) = p.parse_successor_and_use_list()?;
    st.operands.push(c);
    st.operands.extend_from_slice(&tv);
    st.operands.extend_from_slice(&fv);
    st.successors.push(t);
    st.successors.push(f);
    let seg = ctx.attr(xcs_ir::AttrKind::DenseArray {
        elem: ctx.i32_type(),
        data: [1i32, tv.len() as i32, fv.len() as i32].iter().flat_map(|x| x.to_le_bytes()).collect(),
    });
    p.set_attr(st, "operandSegmentSizes", seg);
    p.parse_optional_attr_dict(st)?;
    Ok(())
}
pub(crate) fn print_cond_br(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
