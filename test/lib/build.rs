//! The test drivers (xcs-test-run) link the tools, and through them Debian's libMLIR.so (xcs-mlir),
//! which is not on the loader's path (/usr/lib/llvm-22/lib): their binaries carry an rpath to it.
fn main() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-changed=build.rs");
}
