//! Snapshot testing of pipelines with insta: run a pipeline on an input and snapshot the
//! printed result (or the rendered errors), so a change in a pass shows up as a reviewable
//! diff.
//!
//! ```
//! let out = xcs::testing::run_pipeline(
//!     "func.func @f(%a: tensor<4xi64>) -> tensor<4xi64> { \
//!        %z = tensor.constant {value = dense<0> : tensor<4xi64>} : tensor<4xi64> \
//!        %r = tensor.add %a, %z : tensor<4xi64> return %r : tensor<4xi64> }",
//!     "builtin.module(func.func(canonicalize))",
//! );
//! insta::assert_snapshot!("doc_example", out);
//! ```

use crate::Compiler;

/// Parses `input`, runs `pipeline` and returns the printed module, or the rendered
/// diagnostics prefixed with `error:` lines when parsing, verification or a pass fails.
pub fn run_pipeline(input: &str, pipeline: &str) -> String {
    run_pipeline_with(&Compiler::new(), input, pipeline)
}

/// Like [`run_pipeline`] with a configured compiler (e.g. `allow_unregistered`).
pub fn run_pipeline_with(xcs: &Compiler, input: &str, pipeline: &str) -> String {
    let mut module = match xcs.parse(input) {
        Ok(m) => m,
        Err(e) => return format!("// parse or verification failed\n{e}\n"),
    };
    match xcs.run(&mut module, pipeline) {
        Ok(()) => xcs.print(&module),
        Err(e) => format!("// pipeline failed\n{e}\n"),
    }
}

/// Snapshots the result of a pipeline on an input:
/// `xcs::assert_pipeline_snapshot!("name", input, "builtin.module(cse)")`.
#[macro_export]
macro_rules! assert_pipeline_snapshot {
    ($name:expr, $input:expr, $pipeline:expr) => {
        insta::assert_snapshot!($name, $crate::testing::run_pipeline($input, $pipeline), $pipeline)
    };
}
