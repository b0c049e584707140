//! The custom syntax of the `func` ops, as mlir-opt prints them:
//! `func.func private @f(%arg0: i32) -> f32 attributes {..} {..}`, `return %a : i32`,
//! `%r = call @f(%a) : (i32) -> f32`.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Op, OperationState};

pub(crate) fn parse_func(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
}
pub(crate) fn print_func(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
pub(crate) fn parse_return(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
}
pub(crate) fn print_return(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
pub(crate) fn parse_call(_p: &mut OpAsmParser<'_>, _st: &mut OperationState) -> PResult<()> {
    todo!()
}
pub(crate) fn print_call(_p: &mut OpAsmPrinter<'_>, _op: Op) {
    todo!()
}
