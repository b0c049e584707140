//! The op interfaces the dialects declare for the passes (MLIR's `lib/Interfaces`): the
//! batching rule of `vmap-batch` ([`batching`]) and the cost rule of `cost-annotate`
//! ([`cost`]). The interpreter's interface is `interp::semantics`; the ones that need only the
//! IR (fusion role, loop structure) are in `xcs_ir::interfaces`.

pub mod batching;
pub mod cost;
