//! `xcs-opt`: parse, verify, transform and print XCS/MLIR IR (see `xcs::opt`).
xcs::tool_allocator!();
fn main() {
    std::process::exit(xcs::opt::main(std::env::args_os()));
}
