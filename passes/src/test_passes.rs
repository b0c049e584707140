//! Passes for testing the pass infrastructure, like MLIR's `test-*` passes: `test-break-ir`
//! leaves invalid IR behind (for `--verify-each`), `test-pass-failure` fails (for
//! `--mlir-print-ir-after-failure` and error handling). Not meant for real pipelines.

use xcs_ir::pass::{Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic};

use crate::util;

/// Erases the terminator of the entry block of the anchor's body (e.g. a function's
/// `return`), which the verifier rejects.
pub struct TestBreakIr;

pub const BREAK_IR: PassInfo = PassInfo {
    argument: "test-break-ir",
    summary: "Test only: erase the terminator of the anchor's entry block, leaving invalid IR",
    options: &[],
    factory: |_, _| Ok(Box::new(TestBreakIr)),
};

impl Pass for TestBreakIr {
    fn argument(&self) -> &'static str {
        "test-break-ir"
    }
    fn name(&self) -> &'static str {
        "TestBreakIR"
    }
    fn run(&self, ctx: &Context, body: &mut Body, _diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let Some(entry) = body.root_regions().first().and_then(|&r| body.entry_block(r)) else {
            return Ok(PassResult::Unchanged);
        };
        match body.last_op(entry) {
            Some(t) if util::is_terminator(ctx, body, t) && body.results(t).len() == 0 => {
                body.erase_op(t);
                Ok(PassResult::Changed)
            }
            _ => Ok(PassResult::Unchanged),
        }
    }
}

/// Fails with an error at the anchor op.
pub struct TestPassFailure;

pub const PASS_FAILURE: PassInfo = PassInfo {
    argument: "test-pass-failure",
    summary: "Test only: fail with an error",
    options: &[],
    factory: |_, _| Ok(Box::new(TestPassFailure)),
};

impl Pass for TestPassFailure {
    fn argument(&self) -> &'static str {
        "test-pass-failure"
    }
    fn name(&self) -> &'static str {
        "TestPassFailure"
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let name = ctx.op_name_str(body.name());
        diags.emit(Diagnostic::error(body.loc(), format!("'{name}' op test-pass-failure: failing as asked")));
        Err(())
    }
}
