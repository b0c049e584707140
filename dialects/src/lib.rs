//! XCS dialects: each file declares one dialect's ops with `xcs_ir::op!` (and, where the op
//! has special syntax, a `*_syntax.rs` beside it). `register_all` adds them to a context.

pub mod cf;
pub mod cost;
mod cf_patterns;
mod cf_syntax;
pub mod func;
mod func_syntax;
pub mod interfaces;
pub mod interp;
pub mod shape;
pub mod shard;
pub mod stablehlo;
mod symbol_syntax;
pub mod symbolic;
pub mod tensor;
pub mod value_types;
pub mod xcs;

/// The kernel ops of the `xcs` dialect, under their former path.
pub use xcs::kernel as xcs_kernel;

use xcs_ir::opdef::DialectDef;
use xcs_ir::Context;

/// Every dialect XCS provides (builtin is always registered by `Context::new`). The `test`
/// dialect is not one of them: it lives with the tests (`xcs-test-support`, `test/lib/`).
pub fn all_dialects() -> [&'static DialectDef; 9] {
    [
        &func::FUNC_DIALECT,
        &cf::CF_DIALECT,
        &tensor::TENSOR_DIALECT,
        &xcs::XCS_DIALECT,
        &cost::COST_DIALECT,
        &shard::SHARD_DIALECT,
        &stablehlo::STABLEHLO_DIALECT,
        &stablehlo::chlo::CHLO_DIALECT,
        &stablehlo::sdy::SDY_DIALECT,
    ]
}

/// Registers every XCS dialect in `ctx`.
pub fn register_all(ctx: &mut Context) {
    for d in all_dialects() {
        ctx.register_dialect(d);
    }
}

/// A context with every XCS dialect registered.
pub fn context() -> Context {
    let mut ctx = Context::new();
    register_all(&mut ctx);
    ctx
}
