//! The custom syntax of `cf.br` and `cf.cond_br`, as mlir-opt prints them.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Op, OperationState};

pub(crate) fn parse_br(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
}
pub(crate) fn print_br(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
pub(crate) fn parse_cond_br(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
}
pub(crate) fn print_cond_br(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
