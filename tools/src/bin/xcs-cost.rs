//! `xcs-cost`: resolve, analyze and convert seed 004's cost JSONs (see `xcs::cost`).
xcs::tool_allocator!();
fn main() {
    std::process::exit(xcs::cost::main(std::env::args_os()));
}
