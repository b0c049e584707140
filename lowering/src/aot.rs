//! Ahead-of-time output (`xcs-translate`): LLVM IR text, assembly, object files, and shared
//! libraries linked with the system `cc` together with the C runtime (compiled from the source
//! embedded in this crate), plus a generated C header declaring every exported function.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context as LlvmContext;
use inkwell::targets::{FileType, RelocMode};
use xcs_ir::{Context, Module};

use crate::{lower_module, Export, LowerError, Lowered, Options, Which};

/// The runtime's C sources and headers, embedded.
pub const RUNTIME_C: &str = include_str!("../runtime/xcs_runtime.c");
pub const RUNTIME_H: &str = include_str!("../runtime/xcs_runtime.h");
pub const COLLECTIVES_C: &str = include_str!("../runtime/xcs_collectives.c");
pub const MATMUL_C: &str = include_str!("../runtime/xcs_matmul.c");
pub const MATMUL_ISA_H: &str = include_str!("../runtime/xcs_matmul_isa.h");
pub const COMM_H: &str = include_str!("../runtime/xcs_comm.h");
pub const MPI_C: &str = include_str!("../runtime/xcs_mpi.c");
pub const MPI_H: &str = include_str!("../runtime/xcs_mpi.h");

/// What `xcs-translate` writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    LlvmIr,
    Asm,
    Obj,
    SharedLib,
}

impl Emit {
    pub fn parse(s: &str) -> Option<Emit> {
        Some(match s {
            "llvm-ir" => Emit::LlvmIr,
            "asm" => Emit::Asm,
            "obj" => Emit::Obj,
            "shared-lib" => Emit::SharedLib,
            _ => return None,
        })
    }
}

/// An error of `translate`: a located lowering error or a tool failure.
#[derive(Debug)]
pub enum TranslateError {
    Lower(LowerError),
    Other(String),
}

impl From<String> for TranslateError {
    fn from(s: String) -> Self {
        TranslateError::Other(s)
    }
}

/// The header path for a shared library `out`: `libfoo.so` -> `foo.h` beside it; any other name
/// `OUT` -> `OUT.h` with the extension replaced.
pub fn header_path(out: &Path) -> PathBuf {
    let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("xcs");
    let stem = stem.strip_prefix("lib").filter(|s| !s.is_empty()).unwrap_or(stem);
    out.with_file_name(format!("{stem}.h"))
}

/// Lowers the public functions of `module` and writes `emit` to `out` (and the header for a
/// shared library: `header`, or [`header_path`]). Returns the files written. `ctx` must have
/// the lowering attached ([`crate::context`] or [`crate::attach_interfaces`]).
pub fn translate(
    ctx: &Context,
    module: &Module,
    opts: &Options,
    emit: Emit,
    out: &Path,
    header: Option<&Path>,
    source_name: &str,
) -> Result<Vec<PathBuf>, TranslateError> {
    let lowered = lower_module(ctx, module, opts, &Which::Public).map_err(TranslateError::Lower)?;
    let reloc = if emit == Emit::SharedLib || emit == Emit::Obj { RelocMode::PIC } else { RelocMode::Default };
    let tm = crate::llvm::target_machine(&opts.cpu, &opts.features, reloc)?;
    let llctx = LlvmContext::create();
    let m = crate::llvm::compile(&llctx, &lowered.ir, &tm, opts.optimize.then_some(lowered.pipeline))?;
    let write = |e: String| format!("cannot write '{}': {e}", out.display());
    match emit {
        Emit::LlvmIr => {
            std::fs::write(out, m.print_to_string().to_string()).map_err(|e| write(e.to_string()))?;
            Ok(vec![out.to_path_buf()])
        }
        Emit::Asm => {
            tm.write_to_file(&m, FileType::Assembly, out).map_err(|e| write(e.to_string()))?;
            Ok(vec![out.to_path_buf()])
        }
        Emit::Obj => {
            tm.write_to_file(&m, FileType::Object, out).map_err(|e| write(e.to_string()))?;
            Ok(vec![out.to_path_buf()])
        }
        Emit::SharedLib => {
            let dir = tempdir()?;
            let obj = dir.join("module.o");
            tm.write_to_file(&m, FileType::Object, &obj).map_err(|e| format!("cannot write an object file: {e}"))?;
            let linked = link_shared_lib(&dir, &obj, out, opts.mpi);
            let _ = std::fs::remove_dir_all(&dir);
            linked?;
            let h = header.map(Path::to_path_buf).unwrap_or_else(|| header_path(out));
            std::fs::write(&h, c_header(&lowered, &h, source_name, opts.mpi)).map_err(|e| format!("cannot write '{}': {e}", h.display()))?;
            Ok(vec![out.to_path_buf(), h])
        }
    }
}

fn tempdir() -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    for i in 0..1000u32 {
        let d = base.join(format!("xcs-translate-{}-{i}", std::process::id()));
        if std::fs::create_dir(&d).is_ok() {
            return Ok(d);
        }
    }
    Err("cannot create a temporary directory".into())
}

/// Compiles the runtime into `dir/xcs_runtime.o` with `cc -O2 -fPIC`.
/// Links the module's object `obj` and the runtime (with the MPI transport if `mpi`) into the
/// shared library `out`, with the system `cc` (`$CC`) and, for MPI, `mpicc`'s flags.
fn link_shared_lib(dir: &Path, obj: &Path, out: &Path, mpi: bool) -> Result<(), String> {
    let headers = [("xcs_runtime.h", RUNTIME_H), ("xcs_comm.h", COMM_H), ("xcs_mpi.h", MPI_H), ("xcs_matmul_isa.h", MATMUL_ISA_H)];
    for (name, text) in headers {
        std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
    }
    let (mpi_compile, mpi_link) = if mpi { mpi_flags()? } else { (Vec::new(), Vec::new()) };
    let mut objects = vec![obj.to_path_buf()];
    let mut sources = vec![("xcs_runtime", RUNTIME_C), ("xcs_collectives", COLLECTIVES_C), ("xcs_matmul", MATMUL_C)];
    if mpi {
        sources.push(("xcs_mpi", MPI_C));
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    for (name, text) in sources {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, text).map_err(|e| e.to_string())?;
        let o = dir.join(format!("{name}.o"));
        let built = Command::new(&cc)
            .args(["-O2", "-fPIC", "-fvisibility=hidden", "-pthread", "-c"])
            .args(&mpi_compile)
            .arg(&c)
            .arg("-o")
            .arg(&o)
            .output()
            .map_err(|e| format!("cannot run '{cc}' to compile the runtime: {e}"))?;
        if !built.status.success() {
            return Err(format!("compiling the runtime failed:\n{}", String::from_utf8_lossy(&built.stderr)));
        }
        objects.push(o);
    }
    let status = Command::new(&cc)
        .arg("-shared")
        .arg("-o")
        .arg(out)
        .args(&objects)
        .args(["-lm", "-lpthread"])
        .args(&mpi_link)
        .output()
        .map_err(|e| format!("cannot run '{cc}' to link the shared library: {e}"))?;
    if !status.status.success() {
        return Err(format!("linking '{}' failed:\n{}", out.display(), String::from_utf8_lossy(&status.stderr)));
    }
    Ok(())
}

/// The compile and link flags of MPI (`mpicc --showme:compile` / `--showme:link`; `$XCS_MPICC`
/// names another wrapper).
fn mpi_flags() -> Result<(Vec<String>, Vec<String>), String> {
    let mpicc = std::env::var("XCS_MPICC").unwrap_or_else(|_| "mpicc".into());
    let showme = |what: &str| -> Result<Vec<String>, String> {
        let out = Command::new(&mpicc).arg(format!("--showme:{what}")).output();
        match out {
            Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).split_whitespace().map(String::from).collect()),
            _ => Err(format!(
                "--mpi needs MPI's compiler wrapper '{mpicc}' (Debian: apt-get install openmpi-bin libopenmpi-dev)"
            )),
        }
    };
    Ok((showme("compile")?, showme("link")?))
}

/// The C header declaring the exported functions of `lowered` (and the runtime API).
pub fn c_header(lowered: &Lowered, path: &Path, source_name: &str, mpi: bool) -> String {
    let guard: String = path
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("xcs.h")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' })
        .collect();
    let mut s = String::new();
    let _ = writeln!(s, "/* Generated by xcs-translate from {source_name}. The C ABI is described in docs/c-abi.md. */");
    let _ = writeln!(s, "#ifndef XCS_GENERATED_{guard}\n#define XCS_GENERATED_{guard}\n");
    let _ = writeln!(s, "{}\n", runtime_decls(RUNTIME_H));
    if mpi {
        let _ = writeln!(s, "{}\n", runtime_decls(MPI_H).replace("#include \"xcs_runtime.h\"\n", ""));
    }
    let _ = writeln!(s, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    for e in &lowered.exports {
        let _ = writeln!(s, "{}", prototype_comment(e));
        let mut params: Vec<String> = e.arg_names.iter().map(|n| format!("const xcs_tensor *{n}")).collect();
        params.extend(e.result_names.iter().map(|n| format!("xcs_tensor *{n}")));
        if params.is_empty() {
            params.push("void".into());
        }
        let _ = writeln!(s, "int32_t {}({});", e.symbol, params.join(", "));
        let _ = writeln!(s, "int32_t {}_packed(const xcs_tensor *const *args, xcs_tensor *results);\n", e.symbol);
    }
    let _ = writeln!(s, "#ifdef __cplusplus\n}}\n#endif\n#endif");
    s
}

/// A runtime header's type and function declarations (from its first `#include` on, without
/// its include guard's `#endif`).
fn runtime_decls(header: &str) -> String {
    let mut lines: Vec<&str> = header.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("#include")).unwrap_or(0);
    lines.drain(..start);
    // Drop the final `#endif` (the include guard).
    if let Some(p) = lines.iter().rposition(|l| l.starts_with("#endif")) {
        lines.remove(p);
    }
    lines.join("\n")
}

fn prototype_comment(e: &Export) -> String {
    let describe = |p: &crate::Port| match &p.dims {
        Some(d) => {
            let dims: Vec<String> = d.iter().map(|&x| if x == xcs_ir::DYNAMIC { "?".into() } else { x.to_string() }).collect();
            if dims.is_empty() {
                format!("tensor<{}> (rank 0)", p.elem)
            } else {
                format!("tensor<{}x{}>", dims.join("x"), p.elem)
            }
        }
        None => format!("{} scalar (a rank-0 xcs_tensor)", p.elem),
    };
    let mut c = format!("/* @{} : {}\n", e.name, e.type_text);
    for (n, p) in e.arg_names.iter().zip(&e.args) {
        let _ = writeln!(c, " *   in  {n}: {}", describe(p));
    }
    for (n, p) in e.result_names.iter().zip(&e.results) {
        let _ = writeln!(c, " *   out {n}: {} (release with xcs_tensor_release)", describe(p));
    }
    c.push_str(" * Returns 0, or non-zero with xcs_last_error() describing the error. */");
    c
}
