//! XCS as a library: parse MLIR text, run a pass pipeline, print the result, in a few lines.
//!
//! ```
//! let xcs = xcs::Compiler::new();
//! let mut module = xcs.parse("func.func @f(%a: i64) -> i64 { return %a : i64 }").unwrap();
//! xcs.run(&mut module, "builtin.module(func.func(canonicalize,cse))").unwrap();
//! assert!(xcs.print(&module).contains("return %arg0 : i64"));
//! ```
//!
//! [`testing`] helps snapshot a pipeline's output with insta. The tools are thin mains over
//! [`opt`] (`xcs-opt`), [`run`] (`xcs-run`), [`translate`] (`xcs-translate`) and [`cost`] (`xcs-cost`).

pub mod cost;
pub mod opt;
pub mod run;
pub mod run_spmd;
pub mod testing;
pub mod translate;

use std::ffi::OsString;
use std::fmt;

#[doc(hidden)]
pub use mimalloc::MiMalloc;

/// Makes mimalloc the global allocator of a binary (the XCS tools use it; a frontend that
/// embeds XCS keeps its own allocator unless it calls this too).
#[macro_export]
macro_rules! tool_allocator {
    () => {
        #[global_allocator]
        static ALLOC: $crate::MiMalloc = $crate::MiMalloc;
    };
}

pub use xcs_ir::{self as ir, Context, Diagnostic, Module};
use xcs_ir::diag::DiagBuffer;
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::pass::{PassManager, PassRegistry};
use xcs_ir::printer::{print_module, PrintOptions};
use xcs_ir::render::SourceMap;

/// The main of a command-line tool: parses `args` (including the program name) with `command`
/// and calls `run`; returns the exit code: 0, or 1 after a usage error (printed by clap, which
/// also prints `--help` and `--version` and returns 0 for them) or an error of `run`, which
/// `report` prints.
pub(crate) fn tool_main<E>(
    command: clap::Command,
    args: impl IntoIterator<Item = OsString>,
    run: impl FnOnce(&clap::ArgMatches) -> Result<(), E>,
    report: impl FnOnce(E),
) -> i32 {
    let matches = match command.try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 1 } else { 0 };
        }
    };
    match run(&matches) {
        Ok(()) => 0,
        Err(e) => {
            report(e);
            1
        }
    }
}

/// A tool's `input-file` (`-`: standard input): its name for diagnostics and its module, parsed
/// by `xcs` (unregistered dialects allowed with `--allow-unregistered-dialect`) and transformed
/// by the `--pass-pipeline`, if any; an error is the rendered diagnostics.
pub(crate) fn load_input(xcs: &mut Compiler, m: &clap::ArgMatches) -> Result<(String, Module), String> {
    xcs.allow_unregistered = m.get_flag("allow-unregistered-dialect");
    let input = m.get_one::<String>("input-file").map(String::as_str).unwrap_or("-");
    let (file, text) = opt::read_input(input)?;
    let mut module = xcs.parse_named(&file, text.as_str()).map_err(|e| e.to_string())?;
    if let Some(p) = m.get_one::<String>("pass-pipeline") {
        xcs.run(&mut module, p).map_err(|e| e.to_string())?;
    }
    Ok((file, module))
}

/// Prints an error message of a tool to stderr without its trailing white space (nothing for an
/// empty one: the error was printed already).
pub(crate) fn print_error(msg: String) {
    let msg = msg.trim_end();
    if !msg.is_empty() {
        eprintln!("{msg}");
    }
}

/// A failure with its diagnostics, rendered against the source as `xcs-opt` prints them.
#[derive(Debug)]
pub struct Error {
    pub diagnostics: Vec<Diagnostic>,
    pub rendered: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rendered.trim_end())
    }
}

impl std::error::Error for Error {}

/// A context with every XCS dialect (and the LLVM lowering attached to the ops it compiles, see
/// `xcs_lowering::context`) and a registry with every pass.
pub struct Compiler {
    pub ctx: Context,
    pub registry: PassRegistry,
    /// Accept ops of unregistered dialects (`--allow-unregistered-dialect`).
    pub allow_unregistered: bool,
    /// Run function pipelines on several threads.
    pub threading: bool,
    sources: std::sync::Mutex<SourceMap>,
}

impl Default for Compiler {
    fn default() -> Self {
        Self::new()
    }
}

impl Compiler {
    pub fn new() -> Compiler {
        Compiler {
            ctx: xcs_lowering::context(),
            registry: xcs_passes::registry(),
            allow_unregistered: false,
            threading: true,
            sources: std::sync::Mutex::new(SourceMap::new()),
        }
    }

    /// Renders diagnostics (of parsing, a pass, or a run-time error of the interpreter) against
    /// the sources this compiler has parsed.
    pub fn error(&self, diagnostics: Vec<Diagnostic>) -> Error {
        let sources = self.sources.lock().unwrap();
        let rendered = diagnostics.iter().map(|d| sources.render(&self.ctx, d)).collect();
        Error { diagnostics, rendered }
    }

    /// Parses and verifies a module (the file name in diagnostics is `<input>`).
    pub fn parse(&self, src: &str) -> Result<Module, Error> {
        self.parse_named("<input>", src)
    }

    /// Parses and verifies a module read from `file`.
    pub fn parse_named(&self, file: &str, src: &str) -> Result<Module, Error> {
        self.sources.lock().unwrap().add(file, src);
        let opts = ParseOptions { allow_unregistered: self.allow_unregistered, ..Default::default() };
        let module = parse_module(&self.ctx, src, file, &opts).map_err(|d| self.error(vec![d]))?;
        xcs_ir::verifier::verify_module(&self.ctx, &module, self.threading).map_err(|ds| self.error(ds))?;
        Ok(module)
    }

    /// Runs a textual pipeline (`builtin.module(func.func(cse),symbol-dce)`), verifying after
    /// each pass.
    pub fn run(&self, module: &mut Module, pipeline: &str) -> Result<(), Error> {
        let mut pm = PassManager::parse(pipeline, &self.registry).map_err(|e| Error {
            diagnostics: Vec::new(),
            rendered: e.render(),
        })?;
        pm.options.threading = self.threading;
        let mut sink = DiagBuffer::default();
        let mut ir_dumps = std::io::sink();
        let result = pm.run_with(&self.ctx, module, &mut sink, &mut ir_dumps, None);
        if result.is_err() || sink.has_errors() {
            return Err(self.error(sink.diags));
        }
        Ok(())
    }

    /// Prints a module in the custom (pretty) form.
    pub fn print(&self, module: &Module) -> String {
        print_module(&self.ctx, module, &PrintOptions::default())
    }

    /// Prints a module in MLIR's generic form.
    pub fn print_generic(&self, module: &Module) -> String {
        print_module(&self.ctx, module, &PrintOptions { generic: true, ..Default::default() })
    }
}
