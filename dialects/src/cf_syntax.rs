//! The custom syntax of `cf.br` and `cf.cond_br`, as mlir-opt prints them.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::OperationState;

pub(crate) fn parse_br(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
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
pub(crate) fn parse_cond_br(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
}
/// `cf.cond_br %c, ^bb1(%a : i32), ^bb2 {attrs}` (`operandSegmentSizes` is implied).
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
    p.write_str(", ");
    p.print_successor_and_use_list(succs[0], &operands[1..1 + n]);
    p.write_str(", ");
    p.print_successor_and_use_list(succs[1], &operands[1 + n..]);
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["operandSegmentSizes"]);
}
