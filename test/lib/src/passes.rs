//! Passes for testing the pass infrastructure, like MLIR's `test-*` passes: `test-break-ir`
//! leaves invalid IR behind (for `--verify-each`), `test-pass-failure` fails (for
//! `--mlir-print-ir-after-failure` and error handling). Not meant for real pipelines: only
//! the test tools register them ([`crate::register_passes`]), like MLIR's test passes in
//! `mlir/test/lib/Pass`.

use xcs_ir::pass::{rewrite_each_body, Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic};

use xcs_passes::util;

/// Erases the terminator of the entry block of the anchor's body and of every isolated op in
/// it (e.g. each function's `return`), which the verifier rejects.
pub struct TestBreakIr;

pub const BREAK_IR: PassInfo = PassInfo {
    argument: "test-break-ir",
    name: "TestBreakIR",
    summary: "Test only: erase the terminator of each function's entry block, leaving invalid IR",
    description: "For testing `--verify-each`: produces IR the verifier rejects.",
    options: &[],
    factory: |_, _| Ok(Box::new(TestBreakIr)),
};

impl Pass for TestBreakIr {
    fn info(&self) -> &'static PassInfo {
        &BREAK_IR
    }
    fn run(&self, ctx: &Context, body: &mut Body, _diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        Ok(rewrite_each_body(body, &mut |b| {
            let Some(entry) = b.root_regions().first().and_then(|&r| b.entry_block(r)) else {
                return false;
            };
            let terminator = b
                .last_op(entry)
                .filter(|&t| util::is_terminator(ctx, b, t) && b.num_results(t) == 0);
            if let Some(t) = terminator {
                b.erase_op(t);
            }
            terminator.is_some()
        }))
    }
}

/// Fails with an error at the anchor op.
pub struct TestPassFailure;

pub const PASS_FAILURE: PassInfo = PassInfo {
    argument: "test-pass-failure",
    name: "TestPassFailure",
    summary: "Test only: fail with an error",
    description: "For testing how a failing pass is reported.",
    options: &[],
    factory: |_, _| Ok(Box::new(TestPassFailure)),
};

impl Pass for TestPassFailure {
    fn info(&self) -> &'static PassInfo {
        &PASS_FAILURE
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let name = ctx.op_name_str(body.name());
        diags.emit(Diagnostic::error(
            body.loc(),
            format!("'{name}' op test-pass-failure: failing as asked"),
        ));
        Err(())
    }
}
