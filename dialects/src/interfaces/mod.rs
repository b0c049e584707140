//! The op interfaces the dialects declare for the passes (MLIR's `lib/Interfaces`): the
//! batching rule of `vmap-batch` ([`batching`]), the cost rule of `cost-annotate` ([`cost`])
//! and the local form of a split reduction for `shard-partition` ([`partition`]). The
//! interpreter's interface is `interp::semantics`; the ones that need only the IR (fusion
//! role, loop structure) are in `xcs_ir::interfaces`.

pub mod batching;
pub mod cost;
pub mod partition;
