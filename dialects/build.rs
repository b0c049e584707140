//! Generates the parser of the symbolic cost formulas from `src/symbolic/grammar.lalrpop`
//! (LALRPOP, as the design names it) into `OUT_DIR`, and the list of the hand-written cost
//! kernels of `../kernels/` (embedded with `include_str!`, see `src/cost/library.rs`).

use std::path::Path;

fn main() {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("LALRPOP failed on src/symbolic/grammar.lalrpop");
    kernel_library();
}

/// Writes `OUT_DIR/kernel_library.rs`: `KERNEL_FILES`, every `*.json` of `../kernels/` (file
/// name and text, sorted by name).
fn kernel_library() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    let mut out = String::from("/// Every `*.json` of `kernels/`: (file name, text), sorted by file name.\npub static KERNEL_FILES: &[(&str, &str)] = &[\n");
    for p in &files {
        println!("cargo:rerun-if-changed={}", p.display());
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let abs = p.canonicalize().unwrap_or_else(|_| p.clone());
        out.push_str(&format!("    ({name:?}, include_str!({:?})),\n", abs.display().to_string()));
    }
    out.push_str("];\n");
    let dst = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("kernel_library.rs");
    std::fs::write(dst, out).expect("cannot write kernel_library.rs");
}
