//! The reference-semantics interface of the interpreter (PENDING: being written).

/// What an op does when the interpreter runs it.
pub trait Semantics: Sync {}
xcs_ir::op_interface!(dyn Semantics, "semantics");
