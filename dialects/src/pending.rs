//! TEMPORARY (removed before the op-interface work lands): the placeholder implementation of
//! interfaces whose real implementations are being written.

pub struct Pending;
impl crate::interp::semantics::Semantics for Pending {}
impl crate::interfaces::batching::BatchingRule for Pending {}
