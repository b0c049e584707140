//! The cost-rule interface of `cost-annotate` (PENDING: being written).

/// An op's leaf kernel and bindings.
pub trait CostRule: Sync {}
xcs_ir::op_interface!(dyn CostRule, "cost-rule");
