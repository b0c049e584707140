//! `xcs-test-run`: `xcs-run` with the `test` dialect (interpreter semantics and LLVM lowering of
//! its integer ops) and the `test-*` passes registered, for tests of programs that use them.
xcs::tool_allocator!();
fn main() {
    std::process::exit(xcs_test_support::run_main(std::env::args_os()));
}
