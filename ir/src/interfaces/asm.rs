//! The assembly-format interfaces (MLIR's `OpAsmOpInterface`, of which XCS needs two methods):
//! the dialect whose ops may drop their `dialect.` prefix inside the op's regions, as `return`
//! does inside `func.func` and `func.func` inside `builtin.module` ([`DefaultDialect`]), and the
//! name an op's results print with ([`ResultName`], as `%sharding = shard.sharding ...`).

/// `getDefaultDialect`: ops nested in this op's regions may be written without this dialect's
/// prefix (when their custom form is used).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DefaultDialect(pub &'static str);
crate::op_interface!(DefaultDialect, "default-dialect");

/// `getAsmResultNames`: the name the op's results print with in the custom form instead of a
/// number (`%sharding`, then `%sharding_0`, `%sharding_1`, ... as MLIR makes names unique; a
/// multi-result op's results share it as `%name#i`). The generic form keeps numbers, as in MLIR.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResultName(pub &'static str);
crate::op_interface!(ResultName, "asm-result-name");
