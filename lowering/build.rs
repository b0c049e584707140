//! Compiles the C runtime (runtime/xcs_runtime.c, runtime/xcs_collectives.c, the f32 matmul
//! library runtime/xcs_matmul.c with its per-ISA kernels runtime/xcs_matmul_isa.h) into a static
//! library linked into this crate, where the JIT finds its functions; and, when MPI is found
//! (`mpicc --showme`, Debian's OpenMPI), the MPI transport (runtime/xcs_mpi.c) into a shared
//! library `libxcs_mpi.so` that `xcs-run --mpi` loads at run time (its path is compiled in as
//! `XCS_MPI_LIBRARY_BUILT`), so that nothing else links MPI.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    for f in [
        "xcs_runtime.c",
        "xcs_runtime.h",
        "xcs_collectives.c",
        "xcs_comm.h",
        "xcs_matmul.c",
        "xcs_matmul_isa.h",
        "xcs_mpi.c",
        "xcs_mpi.h",
    ] {
        println!("cargo:rerun-if-changed=runtime/{f}");
    }
    println!("cargo:rerun-if-env-changed=XCS_MPICC");
    cc::Build::new()
        .file("runtime/xcs_runtime.c")
        .file("runtime/xcs_collectives.c")
        .file("runtime/xcs_matmul.c")
        .opt_level(2)
        .flag("-pthread")
        .warnings(true)
        .compile("xcs_runtime");
    println!("cargo:rustc-link-lib=pthread");
    build_mpi_transport();
}

/// `mpicc --showme:ARG` split into words, if mpicc runs.
fn showme(mpicc: &str, arg: &str) -> Option<Vec<String>> {
    let out = Command::new(mpicc).arg(format!("--showme:{arg}")).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect())
}

/// Builds `$OUT_DIR/libxcs_mpi.so` with the system C compiler and mpicc's flags (not linked
/// into this crate). Without MPI, `xcs-run --mpi` says how to get it.
fn build_mpi_transport() {
    let mpicc = std::env::var("XCS_MPICC").unwrap_or_else(|_| "mpicc".into());
    let (Some(compile), Some(link)) = (showme(&mpicc, "compile"), showme(&mpicc, "link")) else {
        println!("cargo:warning=MPI not found ({mpicc} --showme failed): xcs-run --mpi will be unavailable");
        return;
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("libxcs_mpi.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-Iruntime"])
        .args(&compile)
        .arg("runtime/xcs_mpi.c")
        .arg("-o")
        .arg(&out)
        .args(&link)
        .status();
    match status {
        Ok(s) if s.success() => println!("cargo:rustc-env=XCS_MPI_LIBRARY_BUILT={}", out.display()),
        _ => println!("cargo:warning=building the MPI transport (runtime/xcs_mpi.c) failed: xcs-run --mpi will be unavailable"),
    }
}
