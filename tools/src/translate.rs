//! The `xcs-translate` driver: parse and verify a module (diagnostics as `xcs-opt`'s), optionally
//! run a pass pipeline, lower every public function through LLVM and write LLVM IR, assembly,
//! an object file or a shared library with a generated C header (`xcs_lowering::translate`).
//! See `docs/lowering.md` and `docs/c-abi.md`.

use std::ffi::OsString;
use std::path::Path;

use clap::{Arg, ArgAction, ArgMatches, Command};
use xcs_lowering::aot::TranslateError;
use xcs_lowering::{Emit, Options};

use crate::Compiler;

fn command() -> Command {
    Command::new("xcs-translate")
        .about("Compile the public functions of an XCS module to native code through LLVM")
        .version(env!("CARGO_PKG_VERSION"))
        .after_help(
            "OUTPUTS (--emit):\n  \
             llvm-ir     optimized LLVM IR text\n  \
             asm         assembly for the target CPU\n  \
             obj         a relocatable object file (link it with the runtime, see docs/c-abi.md)\n  \
             shared-lib  a shared library with the runtime linked in, plus a C header\n              \
             (libNAME.so -> NAME.h beside it, or --header PATH)\n  \
             mlir        the tensor program as upstream MLIR (func, linalg, tensor, arith, math),\n              \
             verified by MLIR; mlir-opt takes it (docs/interop.md)\n\n\
             Every public function with a body is exported as `xcs_<name>` with the C ABI of\n\
             docs/c-abi.md.",
        )
        .arg(Arg::new("input-file").default_value("-").help("Input file ('-' for stdin)"))
        .arg(
            Arg::new("emit")
                .long("emit")
                .value_parser(["llvm-ir", "asm", "obj", "shared-lib", "mlir"])
                .default_value("llvm-ir")
                .help("What to write"),
        )
        .arg(Arg::new("output").short('o').long("output").value_name("FILE").required(true).help("Output file"))
        .arg(
            Arg::new("matmul")
                .long("matmul")
                .value_parser(["library", "generated"])
                .default_value("library")
                .help("How f32 matmuls run: 'library' (default) calls the runtime's precompiled matmul; 'generated' emits a packed kernel per call site"),
        )
        .arg(Arg::new("header").long("header").value_name("FILE").help("Where to write the C header (shared-lib)"))
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .short('p')
                .help("A pass pipeline to run before lowering, e.g. 'builtin.module(inline,func.func(canonicalize))'"),
        )
        .arg(
            Arg::new("threads")
                .long("threads")
                .value_name("N")
                .value_parser(clap::value_parser!(u64).range(1..=256))
                .help("1: single-threaded code (no calls into the runtime's thread pool); more: large loops use the pool, whose size is set at run time"),
        )
        .arg(
            Arg::new("mcpu")
                .long("mcpu")
                .value_name("CPU")
                .value_parser(parse_cpu)
                .help("Target CPU (LLVM name, e.g. x86-64-v3; native: the host's) [default: the host CPU and its features]"),
        )
        .arg(
            Arg::new("mattr")
                .long("mattr")
                .value_name("FEATURES")
                .value_parser(parse_features)
                .help("Target features (LLVM syntax, e.g. +avx512f,+avx512dq) [default: the host's; with --mcpu: none added]"),
        )
        .arg(Arg::new("O0").long("O0").action(ArgAction::SetTrue).help("Do not optimize the LLVM IR"))
        .arg(
            Arg::new("mpi")
                .long("mpi")
                .action(ArgAction::SetTrue)
                .help("shared-lib: also link the MPI transport of SPMD functions (xcs_comm_mpi; needs mpicc, Debian's openmpi-bin libopenmpi-dev)"),
        )
        .arg(
            Arg::new("allow-unregistered-dialect")
                .long("allow-unregistered-dialect")
                .action(ArgAction::SetTrue)
                .help("Allow operations of dialects that are not registered (lowering them fails)"),
        )
}

/// A CPU name LLVM knows for the host's target, or `native`.
fn parse_cpu(s: &str) -> Result<String, String> {
    if s != "native" {
        xcs_lowering::llvm::check_cpu(s)?;
    }
    Ok(s.to_string())
}

/// An LLVM feature list: `+name` or `-name` items separated by commas.
fn parse_features(s: &str) -> Result<String, String> {
    for item in s.split(',') {
        let name = item.strip_prefix(['+', '-']).unwrap_or("");
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)) {
            return Err(format!("'{item}' is not a feature: write +name or -name, separated by commas (e.g. +avx512f,+avx512dq)"));
        }
    }
    Ok(s.to_string())
}

/// Runs xcs-translate with `args` (including the program name); returns the exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    crate::tool_main(command(), args, |m| run(m, None), crate::print_error)
}

/// The export to upstream MLIR (`--emit=mlir`): the module as upstream MLIR text. The
/// xcs-translate binary supplies it (from the xcs-mlir crate), so that only that binary links MLIR.
pub type MlirExport = fn(&xcs_ir::Context, &xcs_ir::Module) -> Result<String, xcs_ir::Diagnostic>;

/// As [`main`], with the export to upstream MLIR.
pub fn main_with_mlir(args: impl IntoIterator<Item = OsString>, export: MlirExport) -> i32 {
    crate::tool_main(command(), args, |m| run(m, Some(export)), crate::print_error)
}

fn run(m: &ArgMatches, export: Option<MlirExport>) -> Result<(), String> {
    if m.get_one::<String>("emit").map(String::as_str) == Some("mlir") {
        return emit_mlir(m, export.ok_or("error: this xcs-translate has no MLIR export (built without the `mlir` feature)")?);
    }
    let emit = m
        .get_one::<String>("emit")
        .and_then(|s| Emit::parse(s))
        .unwrap_or(Emit::LlvmIr);
    let out = m
        .get_one::<String>("output")
        .map(Path::new)
        .ok_or("error: -o FILE is required")?;
    let mut xcs = Compiler::new();
    let (file, module) = crate::load_input(&mut xcs, m)?;
    let mut opts = Options::host();
    if let Some(k) = m.get_one::<String>("matmul").and_then(|s| xcs_lowering::MatmulKernel::parse(s)) {
        opts.matmul = k;
    }
    if let Some(&n) = m.get_one::<u64>("threads") {
        opts.threads = n as usize;
    } else {
        // The library may run on any machine: let its code use the pool (sized at run time).
        opts.threads = opts.threads.max(2);
    }
    // `native` (as llc and clang take it): the host CPU and its features, the default
    if let Some(cpu) = m.get_one::<String>("mcpu").filter(|c| *c != "native") {
        opts.cpu = cpu.clone();
        opts.features = String::new();
    }
    if let Some(features) = m.get_one::<String>("mattr") {
        opts.features = features.clone();
    }
    opts.optimize = !m.get_flag("O0");
    opts.mpi = m.get_flag("mpi");
    if opts.mpi && emit != Emit::SharedLib {
        return Err("error: --mpi applies to --emit=shared-lib".into());
    }
    opts.locations_in_messages = true;
    let header = m.get_one::<String>("header").map(Path::new);
    xcs_lowering::translate(&xcs.ctx, &module, &opts, emit, out, header, &file).map_err(|e| match e {
        TranslateError::Lower(e) => xcs.error(vec![e.to_diagnostic()]).to_string(),
        TranslateError::Other(s) => format!("error: {s}"),
    })?;
    Ok(())
}

/// `--emit=mlir`: the (transformed) module as upstream MLIR, built and verified through melior.
fn emit_mlir(m: &ArgMatches, export: MlirExport) -> Result<(), String> {
    let out = m.get_one::<String>("output").ok_or("error: -o FILE is required")?;
    let mut xcs = Compiler::new();
    let (_, module) = crate::load_input(&mut xcs, m)?;
    let text = export(&xcs.ctx, &module).map_err(|d| xcs.error(vec![d]).to_string())?;
    let write = |w: &mut dyn std::io::Write| w.write_all(text.as_bytes());
    let result = if out == "-" { write(&mut std::io::stdout().lock()) } else { std::fs::write(out, &text) };
    result.map_err(|e| format!("error: cannot write '{out}': {e}"))
}
