//! Compiles the C runtime (runtime/xcs_runtime.c) into a static library linked into this crate,
//! where the JIT finds its functions.
fn main() {
    println!("cargo:rerun-if-changed=runtime/xcs_runtime.c");
    println!("cargo:rerun-if-changed=runtime/xcs_runtime.h");
    cc::Build::new().file("runtime/xcs_runtime.c").opt_level(2).flag("-pthread").warnings(true).compile("xcs_runtime");
    println!("cargo:rustc-link-lib=pthread");
}
