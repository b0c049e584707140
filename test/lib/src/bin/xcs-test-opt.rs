//! `xcs-test-opt`: `xcs-opt` with the `test` dialect and the `test-*` passes registered (MLIR's
//! `mlir-opt` with its test libraries), for the lit tests of the IR and pass infrastructure.
xcs::tool_allocator!();
fn main() {
    std::process::exit(xcs_test_support::opt_main(std::env::args_os()));
}
