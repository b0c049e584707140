//! `xcs-translate`: compile an XCS module to LLVM IR, assembly, an object file or a shared
//! library with a C header (see `xcs::translate`).
xcs::tool_allocator!();
fn main() {
    std::process::exit(xcs::translate::main(std::env::args_os()));
}
