//! The batching-rule interface of `vmap-batch` (PENDING: being written).

/// How an op is rebuilt when an operand carries a leading batch dim.
pub trait BatchingRule: Sync {}
xcs_ir::op_interface!(dyn BatchingRule, "batching-rule");
