//! The assembly-format interfaces of ops (MLIR's `OpAsmOpInterface`, of which XCS needs two
//! methods): the dialect whose ops may drop their `dialect.` prefix inside the op's regions,
//! as `return` does inside `func.func` and `func.func` inside `builtin.module`; and the name
//! the custom form gives the op's results (`%f = func.constant @g`).

/// `getDefaultDialect`: ops nested in this op's regions may be written without this dialect's
/// prefix (when their custom form is used).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DefaultDialect(pub &'static str);
crate::op_interface!(DefaultDialect, "default-dialect");

/// `getAsmResultNames` with one fixed name for the op's results: the custom form prints them
/// as `%name` instead of a number (`%f`, then `%f_0`, `%f_1`... when the name is taken, as
/// MLIR's `SSANameState` uniques it). The generic form keeps numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AsmResultName(pub &'static str);
crate::op_interface!(AsmResultName, "asm-result-name");
