//! The assembly-format interface of ops with regions (MLIR's `OpAsmOpInterface`, of which XCS
//! needs one method): the dialect whose ops may drop their `dialect.` prefix inside the op's
//! regions, as `return` does inside `func.func` and `func.func` inside `builtin.module`.

/// `getDefaultDialect`: ops nested in this op's regions may be written without this dialect's
/// prefix (when their custom form is used).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DefaultDialect(pub &'static str);
crate::op_interface!(DefaultDialect, "default-dialect");
