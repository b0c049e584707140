//! `xcs-run`: run a function of an XCS module through the LLVM JIT or the reference interpreter
//! (see `xcs::run`).
xcs::tool_allocator!();
fn main() {
    std::process::exit(xcs::run::main(std::env::args_os()));
}
