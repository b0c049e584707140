//! `xcs-translate`: compile an XCS module to LLVM IR, assembly, an object file or a shared
//! library with a C header, or (the `mlir` feature) export it to upstream MLIR (see `xcs::translate`).
xcs::tool_allocator!();
fn main() {
    #[cfg(feature = "mlir")]
    std::process::exit(xcs::translate::main_with_mlir(std::env::args_os(), xcs_mlir::export_module));
    #[cfg(not(feature = "mlir"))]
    std::process::exit(xcs::translate::main(std::env::args_os()));
}
