//! Links melior's C API against Debian's shared libMLIR.so: Debian ships the MLIR C API only as
//! static archives (libMLIRCAPI*.a) and no libMLIR-C.so, so this writes a linker script of that
//! name into OUT_DIR that pulls the archives in (mlir-sys links `MLIR` and `MLIR-C` in shared mode,
//! `MLIR_SYS_LINK_SHARED=1` in .cargo/config.toml). MLIR's C++ code then comes from libMLIR.so,
//! which uses the same libLLVM.so as inkwell: one LLVM in the process, no doubly registered options.
use std::{env, fs, path::PathBuf};

fn main() {
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let libdir = PathBuf::from(prefix).join("lib");
    let mut archives: Vec<String> = fs::read_dir(&libdir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", libdir.display()))
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("libMLIRCAPI") && name.ends_with(".a")
        })
        .map(|path| path.display().to_string())
        .collect();
    archives.sort();
    assert!(!archives.is_empty(), "no libMLIRCAPI*.a in {} (apt install libmlir-22-dev)", libdir.display());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    fs::write(out.join("libMLIR-C.so"), format!("GROUP ( {} )\n", archives.join(" "))).unwrap();
    println!("cargo:rustc-link-search=native={}", out.display());
    // libMLIR.so is not on the loader's path (Debian keeps it in /usr/lib/llvm-22/lib): the
    // binaries that link it carry an rpath (this crate's tests here; the tools' in tools/build.rs).
    println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", libdir.display());
    // MLIR's runtime support library (`memrefCopy` for copies between strided memrefs, which
    // slices make): the ExecutionEngine loads it (engine.rs).
    println!("cargo:rustc-env=XCS_MLIR_LIBDIR={}", libdir.display());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
}
