//! Helpers of the crate's unit tests: a context with every XCS dialect and a pipeline run on a
//! module. (The IR builder and the tests that need the `test` dialect live in the integration
//! tests, `tests/*.rs`, which use `xcs_test_support`.)

use xcs_ir::pass::{PassManager, PassManagerOptions};
use xcs_ir::{Context, Module};

pub fn ctx() -> Context {
    xcs_dialects::context()
}

/// Verifies `m` (panicking with the verifier's messages), runs `pipeline` with the real
/// verifier after each pass and returns the diagnostics' messages.
pub fn run(ctx: &Context, m: &mut Module, pipeline: &str) -> Result<Vec<String>, Vec<String>> {
    if let Err(errs) = xcs_ir::verifier::verify_module(ctx, m, false) {
        let msgs: Vec<String> = errs.into_iter().map(|d| d.message).collect();
        panic!("test input does not verify: {msgs:?}");
    }
    let mut pm = PassManager::parse(pipeline, &crate::registry()).unwrap_or_else(|e| panic!("{}", e.render()));
    pm.options = PassManagerOptions::default();
    let mut diags = Vec::new();
    let r = pm.run_with(ctx, m, &mut diags, &mut std::io::sink(), None);
    let msgs = diags.into_iter().map(|d| d.message).collect();
    if r.is_ok() {
        Ok(msgs)
    } else {
        Err(msgs)
    }
}
