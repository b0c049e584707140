//! XCS test support, like MLIR's `mlir/test/lib`: the `test` dialect ([`dialect`]), the
//! `test-*` passes ([`passes`]), an IR builder for tests ([`builder`]), and with the `tools`
//! feature (the default) the LLVM lowering of the test ops ([`lowering`]), `xcs::Compiler`
//! helpers and the `xcs-test-opt` / `xcs-test-run` drivers. None of it is registered by the
//! default tools (`xcs-opt`, `xcs-run`, ...) or by `xcs_dialects::context()`: there `test.*`
//! ops are unregistered ops, as any dialect XCS does not know.
//!
//! Tests use it as a dev-dependency: integration tests (`tests/*.rs`) of the crates below it
//! link the one copy of those crates that this crate links too, so their types and op
//! interfaces are shared (unit tests inside `src/` could not: they are a second copy).

pub mod builder;
pub mod dialect;
pub mod passes;

#[cfg(feature = "tools")]
pub mod lowering;

use xcs_ir::pass::PassRegistry;
use xcs_ir::Context;

pub use dialect::TEST_DIALECT;

/// Registers the `test` dialect in `ctx` (a no-op if it is already registered).
pub fn register_dialect(ctx: &mut Context) {
    ctx.register_dialect(&TEST_DIALECT);
}

/// Registers the `test-*` passes (`test-break-ir`, `test-pass-failure`).
pub fn register_passes(registry: &mut PassRegistry) {
    registry.register(passes::BREAK_IR);
    registry.register(passes::PASS_FAILURE);
}

/// `xcs_dialects::context()` with the `test` dialect: every XCS dialect and the test ops.
pub fn context() -> Context {
    let mut ctx = xcs_dialects::context();
    register_dialect(&mut ctx);
    ctx
}

/// `xcs_passes::registry()` with the `test-*` passes.
pub fn registry() -> PassRegistry {
    let mut registry = xcs_passes::registry();
    register_passes(&mut registry);
    registry
}

/// `xcs_lowering::context()` with the `test` dialect and the lowering of its integer ops: the
/// context of tests that run test-dialect programs through the LLVM backend.
#[cfg(feature = "tools")]
pub fn lowering_context() -> Context {
    let mut ctx = xcs_lowering::context();
    lowering::attach_test_dialect_lowering(&mut ctx);
    ctx
}

/// Adds the test dialect (with its lowering) and the test passes to a compiler.
#[cfg(feature = "tools")]
pub fn register_in_compiler(xcs: &mut xcs::Compiler) {
    lowering::attach_test_dialect_lowering(&mut xcs.ctx);
    register_passes(&mut xcs.registry);
}

/// An `xcs::Compiler` that also knows the test dialect (with its lowering) and the test passes.
#[cfg(feature = "tools")]
pub fn compiler() -> xcs::Compiler {
    let mut xcs = xcs::Compiler::new();
    register_in_compiler(&mut xcs);
    xcs
}

/// `xcs::testing::run_pipeline` with the test dialect and passes ([`compiler`]).
#[cfg(feature = "tools")]
pub fn run_pipeline(input: &str, pipeline: &str) -> String {
    xcs::testing::run_pipeline_with(&compiler(), input, pipeline)
}

/// `xcs::assert_pipeline_snapshot!` with the test dialect and passes:
/// `xcs_test_support::assert_pipeline_snapshot!("name", input, "builtin.module(cse)")`.
#[cfg(feature = "tools")]
#[macro_export]
macro_rules! assert_pipeline_snapshot {
    ($name:expr, $input:expr, $pipeline:expr) => {
        $crate::insta::assert_snapshot!($name, $crate::run_pipeline($input, $pipeline), $pipeline)
    };
}

#[cfg(feature = "tools")]
#[doc(hidden)]
pub use insta;

/// `xcs-test-opt`: `xcs-opt` with the test dialect and the test passes registered.
#[cfg(feature = "tools")]
pub fn opt_main(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    xcs::opt::main_with(args, |ctx, registry| {
        register_dialect(ctx);
        register_passes(registry);
    })
}

/// `xcs-test-run`: `xcs-run` with the test dialect (and its lowering) and the test passes.
#[cfg(feature = "tools")]
pub fn run_main(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    xcs::run::main_with(args, register_in_compiler)
}
