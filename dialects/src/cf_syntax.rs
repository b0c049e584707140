//! The custom syntax of `cf.br` and `cf.cond_br`, as mlir-opt prints them.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::OperationState;

/// `cf.br ^bb(%a : t)? attr-dict`
pub(crate) fn parse_br(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let (dest, vals) = p.parse_successor_and_use_list()?;
    st.successors.push(dest);
    st.operands.extend_from_slice(&vals);
    p.parse_optional_attr_dict(st)?;
    Ok(())
}
/// `cf.br ^bb1(%a : i32) {attrs}`.
pub(crate) fn print_br(p: &mut OpAsmPrinter<'_>) {
    let succs = p.successors();
    if succs.len() != 1 {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    let operands = p.operands();
    p.print_successor_and_use_list(succs[0], &operands);
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &[]);
}
/// `cf.cond_br %c (weights([w1, w2]))?, ^t(%a : t)?, ^f(%b : t)? attr-dict`
pub(crate) fn parse_cond_br(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let cond = p.parse_operand()?;
    let c = p.resolve_operand(&cond, ctx.i1_type())?;
    if p.parse_optional_keyword("weights") {
        p.parse_lparen()?;
        p.parse_lsquare()?;
        let mut weights: Vec<u8> = Vec::new();
        if !p.parse_optional_rsquare() {
            loop {
                let off = p.offset();
                let w = i32::try_from(p.parse_integer()?).map_err(|_| p.emit_error_at(off, "integer out of range for i32"))?;
                weights.extend_from_slice(&w.to_le_bytes());
                if !p.parse_optional_comma() {
                    break;
                }
            }
            p.parse_rsquare()?;
        }
        p.parse_rparen()?;
        let w = ctx.attr(xcs_ir::AttrKind::DenseArray { elem: ctx.i32_type(), data: weights.into() });
        p.set_attr(st, "branch_weights", w);
    }
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
/// `cf.cond_br %c weights([60, 40]), ^bb1(%a : i32), ^bb2 {attrs}` (`operandSegmentSizes` is
/// implied).
pub(crate) fn print_cond_br(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let operands = p.operands();
    let succs = p.successors();
    let seg = p.attr("operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    let valid = succs.len() == 2
        && seg.len() == 3
        && seg[0] == 1
        && seg[1] >= 0
        && seg[2] >= 0
        && seg.iter().sum::<i128>() == operands.len() as i128;
    if !valid {
        return p.fallback_to_generic();
    }
    let n = seg[1] as usize;
    p.write_str(" ");
    p.print_operand(operands[0]);
    let weights = p.attr("branch_weights").filter(|&a| ctx.as_dense_ints(a).is_some());
    if let Some(w) = weights.and_then(|a| ctx.as_dense_ints(a)) {
        let list: Vec<String> = w.iter().map(|x| x.to_string()).collect();
        p.write_str(&format!(" weights([{}])", list.join(", ")));
    }
    p.write_str(", ");
    p.print_successor_and_use_list(succs[0], &operands[1..1 + n]);
    p.write_str(", ");
    p.print_successor_and_use_list(succs[1], &operands[1 + n..]);
    let attrs = p.attrs();
    let elided: &[&str] = if weights.is_some() { &["operandSegmentSizes", "branch_weights"] } else { &["operandSegmentSizes"] };
    p.print_optional_attr_dict(attrs, elided);
}
