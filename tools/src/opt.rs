//! The `xcs-opt` driver (MLIR's `MlirOptMain`): read a file, parse and verify it, run a pass
//! pipeline, print the result; with mlir-opt's flags (`--pass-pipeline`, one `--PASS` flag per
//! registered pass, `--split-input-file`, `--verify-diagnostics`, IR dumps, timing, ...).
//! Single-dash long flags (`-split-input-file`) are accepted, as LLVM's option parser does.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction, ArgMatches, Command};
use xcs_ir::diag::DiagBuffer;
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::pass::{render_timing_report, PassManager, PassRegistry, TimingNode};
use xcs_ir::printer::{print_module_to, PrintOptions};
use xcs_ir::render::{RenderOptions, SourceMap};
use xcs_ir::source_text::SourceText;
use xcs_ir::split::{near_miss_warning, split_input, DEFAULT_SPLIT_MARKER};
use xcs_ir::verifier::{verify_module_with, VerifyOptions};
use xcs_ir::verify_diagnostics::{DiagnosticVerifier, VerifyLevel};
use xcs_ir::Context;

/// The short options (`-o out`, `-p pipeline`); every other single-dash word is a long flag.
const SHORT: [&str; 2] = ["-o", "-p"];

/// Rewrites `-flag` to `--flag` (LLVM accepts both spellings of long options).
fn normalize_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut rest_positional = false;
    for a in args {
        let Some(s) = a.to_str() else {
            out.push(a);
            continue;
        };
        if rest_positional || s.starts_with("--") || !s.starts_with('-') || s.len() <= 2 {
            rest_positional |= s == "--";
            out.push(a);
            continue;
        }
        // `-o out`, and `-o=out` as LLVM also accepts it
        if SHORT.iter().any(|f| s == *f || s.strip_prefix(f).is_some_and(|r| r.starts_with('='))) {
            out.push(a);
            continue;
        }
        out.push(format!("-{s}").into());
    }
    out
}

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).help(help).action(ArgAction::SetTrue)
}

fn command(registry: &PassRegistry) -> Command {
    let mut cmd = Command::new("xcs-opt")
        .about("XCS modular optimizer driver")
        .version(env!("CARGO_PKG_VERSION"))
        .arg(Arg::new("input").default_value("-").help("Input file ('-' for stdin)"))
        .arg(Arg::new("output").short('o').default_value("-").help("Output filename"))
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .short('p')
                .help("A textual description of a pass pipeline to run, e.g. 'builtin.module(func.func(cse))'"),
        )
        .arg(flag("allow-unregistered-dialect", "Allow operations of dialects that are not registered"))
        .arg(flag("mlir-print-op-generic", "Print the generic op form"))
        .arg(flag("mlir-print-debuginfo", "Print debug info (locations) in MLIR output"))
        .arg(flag(
            "mlir-print-local-scope",
            "Print with local scope: no aliases, locations and attributes inline",
        ))
        .arg(
            Arg::new("split-input-file")
                .long("split-input-file")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value(DEFAULT_SPLIT_MARKER)
                .help("Split the input file into chunks at the marker (default '// -----') and process each independently"),
        )
        .arg(
            Arg::new("output-split-marker")
                .long("output-split-marker")
                .default_value(DEFAULT_SPLIT_MARKER)
                .help("Marker joining the outputs of split chunks"),
        )
        .arg(
            Arg::new("verify-diagnostics")
                .long("verify-diagnostics")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("all")
                .value_parser(["all", "only-expected"])
                .help("Check that emitted diagnostics match expected-* comments in the input"),
        )
        .arg(
            Arg::new("verify-each")
                .long("verify-each")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("true")
                .default_value("true")
                .value_parser(clap::value_parser!(bool))
                .help("Run the verifier after each transformation pass"),
        )
        .arg(flag("mlir-disable-threading", "Disable multi-threading (run function pipelines on one thread)"))
        .arg(
            Arg::new("mlir-print-ir-before")
                .long("mlir-print-ir-before")
                .action(ArgAction::Append)
                .help("Print IR before each run of the named pass"),
        )
        .arg(
            Arg::new("mlir-print-ir-after")
                .long("mlir-print-ir-after")
                .action(ArgAction::Append)
                .help("Print IR after each run of the named pass"),
        )
        .arg(flag("mlir-print-ir-before-all", "Print IR before each pass"))
        .arg(flag("mlir-print-ir-after-all", "Print IR after each pass"))
        .arg(flag("mlir-print-ir-after-change", "When printing IR after a pass, only print if the pass changed the IR"))
        .arg(flag("mlir-print-ir-after-failure", "Print IR after a pass fails"))
        .arg(flag("mlir-timing", "Display execution times"))
        .arg(flag("list-passes", "List the registered passes and their options"))
        .arg(flag("dump-pass-pipeline", "Print the pipeline that will be run"))
        .arg(flag("show-dialects", "Print the registered dialects"))
        .arg(
            Arg::new("cost-report")
                .long("cost-report")
                .value_name("FILE")
                .help("Write the resolved cost tree of the public functions into FILE (sets the option report=FILE of every cost-annotate pass in the pipeline)"),
        )
        .arg(
            Arg::new("gen-dialect-docs")
                .long("gen-dialect-docs")
                .value_name("DIR")
                .help("Write one Markdown reference page per dialect into DIR, generated from the op declarations"),
        )
        .arg(
            Arg::new("gen-pass-docs")
                .long("gen-pass-docs")
                .value_name("FILE")
                .help("Write the Markdown reference of the registered passes into FILE"),
        )
        .arg(
            Arg::new("classify-report")
                .long("classify-report")
                .value_name("FILE")
                .help("Write the classify pass's JSON report into FILE (sets the option report=FILE of every classify pass in the pipeline)"),
        )
        .arg(
            Arg::new("shard-report")
                .long("shard-report")
                .value_name("FILE")
                .help("Write the auto-shard plans as JSON into FILE (schemas/shard_report_schema.json; sets the option report=FILE of every auto-shard pass in the pipeline)"),
        )
        .next_help_heading("Passes");
    for p in registry.passes() {
        cmd = cmd.arg(
            Arg::new(format!("pass:{}", p.argument))
                .long(p.argument)
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .help(p.summary),
        );
    }
    for p in registry.pipelines() {
        cmd = cmd.arg(
            Arg::new(format!("pass:{}", p.argument))
                .long(p.argument.clone())
                .num_args(0)
                .default_missing_value("")
                .action(ArgAction::Append)
                .help(p.summary.clone()),
        );
    }
    cmd
}

/// What one run of the driver needs besides the matches.
struct Driver<'a> {
    ctx: &'a Context,
    pm: PassManager,
    parse: ParseOptions,
    print: PrintOptions,
    verify: VerifyOptions,
    render: RenderOptions,
}

/// Timings of the fixed phases around the pass pipeline.
#[derive(Default)]
struct Phases {
    parse: Duration,
    verify: Duration,
    output: Duration,
    passes: Vec<TimingNode>,
}

/// Runs xcs-opt with `args` (including the program name); returns the exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    main_with(args, |_, _| {})
}

/// Runs the xcs-opt driver with more dialects and passes than XCS's own: `register` adds them
/// to the context (every XCS dialect registered) and the registry (every XCS pass) before the
/// command line is read, so their passes get flags too (MLIR's `MlirOptMain` taking a
/// `DialectRegistry`; `xcs-test-opt` registers the test dialect and passes this way).
pub fn main_with(args: impl IntoIterator<Item = OsString>, register: impl FnOnce(&mut Context, &mut PassRegistry)) -> i32 {
    let start = Instant::now();
    let mut ctx = xcs_dialects::context();
    let mut registry = xcs_passes::registry();
    register(&mut ctx, &mut registry);
    let matches = match command(&registry).try_get_matches_from(normalize_args(args)) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 1 } else { 0 };
        }
    };
    match run(&ctx, &registry, &matches, start) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("{}", msg.trim_end());
            1
        }
    }
}

fn pass_flags(matches: &ArgMatches, registry: &PassRegistry) -> Vec<(usize, String, String)> {
    let mut flags = Vec::new();
    let args = registry.passes().map(|p| p.argument.to_string()).chain(registry.pipelines().map(|p| p.argument.clone()));
    for arg in args {
        let id = format!("pass:{arg}");
        if let (Some(vals), Some(idx)) = (matches.get_many::<String>(&id), matches.indices_of(&id)) {
            for (v, i) in vals.zip(idx) {
                flags.push((i, arg.clone(), v.clone()));
            }
        }
    }
    flags.sort_by_key(|f| f.0);
    flags
}

fn run(ctx: &Context, registry: &PassRegistry, m: &ArgMatches, start: Instant) -> Result<i32, String> {
    if m.get_flag("list-passes") {
        print!("{}", registry.list_passes());
        return Ok(0);
    }
    if m.get_flag("show-dialects") {
        // as mlir-opt: sorted, comma-separated
        let mut names: Vec<&str> = ctx.dialects().iter().map(|d| d.name).collect();
        names.sort_unstable();
        println!("Available Dialects: {}", names.join(","));
        return Ok(0);
    }
    if let Some(file) = m.get_one::<String>("gen-pass-docs") {
        return std::fs::write(file, registry.markdown()).map(|_| 0).map_err(|e| format!("cannot write '{file}': {e}"));
    }
    if let Some(dir) = m.get_one::<String>("gen-dialect-docs") {
        return gen_dialect_docs(ctx, dir).map(|_| 0);
    }

    // ---- the pipeline
    let flags = pass_flags(m, registry);
    let mut pm = match (m.get_one::<String>("pass-pipeline"), flags.is_empty()) {
        (Some(_), false) => return Err("<unknown>:0: error: '-pass-pipeline' option can't be used with individual pass options".into()),
        (Some(p), true) => PassManager::parse(p, registry).map_err(|e| e.render())?,
        (None, _) => {
            let f: Vec<(&str, &str)> = flags.iter().map(|(_, a, o)| (a.as_str(), o.as_str())).collect();
            PassManager::from_pass_flags(&f, registry).map_err(|e| e.render())?
        }
    };
    // driver flags that set pass options
    if let Some(file) = m.get_one::<String>("classify-report") {
        let n = pm.root.set_pass_options(registry, "classify", &format!("report={{{file}}}")).map_err(|e| format!("<unknown>:0: error: {e}"))?;
        if n == 0 {
            return Err("<unknown>:0: error: --classify-report needs the classify pass in the pipeline (--classify, or classify in --pass-pipeline)".into());
        }
    }
    if let Some(file) = m.get_one::<String>("shard-report") {
        let n = pm.root.set_pass_options(registry, "auto-shard", &format!("report={{{file}}}")).map_err(|e| format!("<unknown>:0: error: {e}"))?;
        if n == 0 {
            return Err("<unknown>:0: error: --shard-report needs the auto-shard pass in the pipeline (--auto-shard=..., or auto-shard{...} in --pass-pipeline)".into());
        }
    }
    let o = &mut pm.options;
    o.threading = !m.get_flag("mlir-disable-threading");
    o.verify_each = *m.get_one::<bool>("verify-each").unwrap_or(&true);
    o.print_before = m.get_many::<String>("mlir-print-ir-before").map(|v| v.cloned().collect()).unwrap_or_default();
    o.print_after = m.get_many::<String>("mlir-print-ir-after").map(|v| v.cloned().collect()).unwrap_or_default();
    o.print_before_all = m.get_flag("mlir-print-ir-before-all");
    o.print_after_all = m.get_flag("mlir-print-ir-after-all");
    o.print_after_change = m.get_flag("mlir-print-ir-after-change");
    o.print_after_failure = m.get_flag("mlir-print-ir-after-failure");
    o.timing = m.get_flag("mlir-timing");
    let print = PrintOptions {
        generic: m.get_flag("mlir-print-op-generic"),
        debug_info: m.get_flag("mlir-print-debuginfo"),
        local_scope: m.get_flag("mlir-print-local-scope"),
    };
    o.print_options = print.clone();
    o.validate(registry)?;
    if let Some(file) = m.get_one::<String>("cost-report") {
        let n = pm.root.set_pass_options(registry, "cost-annotate", &format!("report={{{file}}}")).map_err(|e| format!("<unknown>:0: error: {e}"))?;
        if n == 0 {
            return Err("<unknown>:0: error: --cost-report needs the cost-annotate pass in the pipeline (--cost-annotate, or cost-annotate in --pass-pipeline)".into());
        }
    }
    if m.get_flag("dump-pass-pipeline") {
        eprint!("{}", pm.dump_pipeline());
    }
    let timing = pm.options.timing;

    // ---- the input
    let input = m.get_one::<String>("input").map(String::as_str).unwrap_or("-");
    let (file, source) = read_input(input)?;
    let mut sources = SourceMap::new();
    // The source map owns the one copy of the text; everything below borrows it.
    sources.add_text(&file, source.clone());
    sources.set_read_files(true);
    let sources = sources;
    let text = sources.text(&file).unwrap_or_default();
    let verify_level = m.get_one::<String>("verify-diagnostics").map(|l| match l.as_str() {
        "only-expected" => VerifyLevel::OnlyExpected,
        _ => VerifyLevel::All,
    });
    let color = verify_level.is_none() && std::io::stderr().is_terminal();
    let driver = Driver {
        ctx,
        parse: ParseOptions {
            allow_unregistered: m.get_flag("allow-unregistered-dialect"),
            source: Some(source.clone()),
            ..Default::default()
        },
        verify: VerifyOptions {
            threads: pm.options.threading,
            print_op_on_diagnostic: verify_level.is_none(),
            ..Default::default()
        },
        pm,
        print,
        render: RenderOptions { color },
    };
    let mut verifier = verify_level.map(|l| {
        let mut v = DiagnosticVerifier::new(l);
        v.add_file(&sources, &file);
        // Malformed expectations are reported first, before any split warning (as mlir-opt,
        // whose verifier handler scans the file before the input is split).
        eprint!("{}", v.take_output());
        v
    });

    // ---- process the chunks, printing each result as it is ready
    let marker = m.get_one::<String>("output-split-marker").map(String::as_str).unwrap_or(DEFAULT_SPLIT_MARKER);
    let mut output = Output::open(m.get_one::<String>("output").map(String::as_str).unwrap_or("-"), marker)?;
    let mut phases = Phases::default();
    let mut failed = false;
    let chunks = match m.get_one::<String>("split-input-file") {
        Some(marker) => {
            let split = split_input(text, marker);
            for &off in &split.near_misses {
                eprint!("{}", near_miss_warning(&sources, &file, off));
            }
            split.chunks
        }
        None => split_input(text, "").chunks,
    };
    let mut stderr = std::io::stderr().lock();
    for chunk in chunks {
        let mut diags = DiagBuffer::default();
        let parse =
            ParseOptions { line_offset: chunk.line_offset, col_offset: chunk.col_offset, ..driver.parse.clone() };
        let module = driver.transform(chunk.text, &file, &parse, &mut diags, &mut stderr, &mut phases);
        driver.print_chunk(module.as_ref(), &mut phases, &mut output);
        let ok = module.is_some();
        for d in &diags.diags {
            match verifier.as_mut() {
                Some(v) => v.process(ctx, &sources, d),
                None => {
                    let _ = stderr.write_all(sources.render_with(ctx, d, driver.render).as_bytes());
                }
            }
        }
        failed |= !ok || diags.has_errors();
    }

    // ---- the result
    let mut code = 0;
    if let Some(v) = verifier.as_mut() {
        let ok = v.finish(&sources);
        let _ = stderr.write_all(v.take_output().as_bytes());
        code = if ok { 0 } else { 1 };
    } else if failed {
        code = 1;
    }
    let out_start = Instant::now();
    output.finish(code == 0)?;
    phases.output += out_start.elapsed();
    if timing {
        let _ = stderr.write_all(timing_report(&phases, start.elapsed()).as_bytes());
    }
    Ok(code)
}

/// Where results go: stdout, or `-o FILE`. A file is written under a temporary name and
/// renamed over `FILE` only when the run succeeds, so a failed run never clobbers an
/// existing file (mlir-opt deletes its output on failure; the old file is kept here).
struct Output {
    writer: Option<Box<dyn Write + Send>>,
    file: Option<(std::path::PathBuf, std::path::PathBuf)>,
    marker: String,
    chunks: usize,
    error: Option<std::io::Error>,
}

impl Output {
    fn open(path: &str, marker: &str) -> Result<Output, String> {
        let (writer, file): (Box<dyn Write + Send>, _) = if path == "-" {
            (Box::new(std::io::BufWriter::new(std::io::stdout())), None)
        } else {
            let target = std::path::PathBuf::from(path);
            let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let tmp = target.with_file_name(format!(".{name}.xcs-opt-{}", std::process::id()));
            let f = std::fs::File::create(&tmp)
                .map_err(|e| format!("cannot write output file '{path}': {}", io_reason(&e)))?;
            (Box::new(std::io::BufWriter::new(f)), Some((target, tmp)))
        };
        Ok(Output { writer: Some(writer), file, marker: marker.to_string(), chunks: 0, error: None })
    }

    /// Writes one chunk's result (after the split marker if it is not the first).
    fn chunk(&mut self, write: impl FnOnce(Box<dyn Write + Send>) -> std::io::Result<Box<dyn Write + Send>>) {
        let Some(mut w) = self.writer.take() else { return };
        if self.chunks > 0 {
            if let Err(e) = writeln!(w, "{}", self.marker) {
                self.error.get_or_insert(e);
            }
        }
        self.chunks += 1;
        match write(w) {
            Ok(w) => self.writer = Some(w),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }

    /// Flushes, and for a file moves it into place (on success) or removes it.
    fn finish(mut self, success: bool) -> Result<(), String> {
        if let Some(mut w) = self.writer.take() {
            if let Err(e) = w.flush() {
                self.error.get_or_insert(e);
            }
        }
        match self.file.take() {
            None => Ok(()), // a closed stdout (e.g. `| head`) is not an error of ours
            Some((target, tmp)) => {
                let shown = target.display().to_string();
                if let Some(e) = self.error.take() {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(format!("cannot write output file '{shown}': {}", io_reason(&e)));
                }
                if !success {
                    let _ = std::fs::remove_file(&tmp);
                    return Ok(());
                }
                std::fs::rename(&tmp, &target).map_err(|e| {
                    let _ = std::fs::remove_file(&tmp);
                    format!("cannot write output file '{shown}': {}", io_reason(&e))
                })
            }
        }
    }
}

impl Driver<'_> {
    /// Prints one chunk's transformed module to the output (an empty chunk when a stage
    /// failed, `module` is then `None`).
    fn print_chunk(&self, module: Option<&xcs_ir::Module>, phases: &mut Phases, output: &mut Output) {
        let t = Instant::now();
        output.chunk(|w| match module {
            Some(m) => {
                let mut w = print_module_to(self.ctx, m, &self.print, w)?;
                w.write_all(b"\n")?;
                Ok(w)
            }
            None => Ok(w),
        });
        phases.output += t.elapsed();
    }

    /// Parses, verifies and runs the pipeline on one chunk; `None` if a stage failed (its
    /// diagnostics are in `diags`).
    fn transform(
        &self,
        text: &str,
        file: &str,
        parse: &ParseOptions,
        diags: &mut DiagBuffer,
        ir_dumps: &mut dyn Write,
        phases: &mut Phases,
    ) -> Option<xcs_ir::Module> {
        let t = Instant::now();
        let parsed = parse_module(self.ctx, text, file, parse);
        phases.parse += t.elapsed();
        let mut module = match parsed {
            Ok(m) => m,
            Err(d) => {
                diags.diags.push(d);
                return None;
            }
        };
        let t = Instant::now();
        let verified = verify_module_with(self.ctx, &module, &self.verify);
        phases.verify += t.elapsed();
        if let Err(ds) = verified {
            diags.diags.extend(ds);
            return None;
        }
        let mut nodes = Vec::new();
        let ran = self.pm.run_with(self.ctx, &mut module, diags, ir_dumps, Some(&mut nodes));
        merge_timing(&mut phases.passes, nodes);
        if ran.is_err() {
            return None;
        }
        Some(module)
    }
}

/// Adds the times of one chunk's run to the totals (same pipeline, so same tree shape).
fn merge_timing(total: &mut Vec<TimingNode>, nodes: Vec<TimingNode>) {
    if total.is_empty() {
        *total = nodes;
        return;
    }
    for (t, n) in total.iter_mut().zip(nodes) {
        t.wall += n.wall;
        merge_timing(&mut t.children, n.children);
    }
}

fn timing_report(p: &Phases, total: Duration) -> String {
    let mut nodes = vec![TimingNode::new("Parser", p.parse), TimingNode::new("Verifier", p.verify)];
    nodes.extend(p.passes.iter().cloned());
    nodes.push(TimingNode::new("Output", p.output));
    // the report adds `Rest` (the time not accounted for) and `Total`
    render_timing_report(&nodes, total)
}

/// Reads the input file (`-`: standard input); returns its name for diagnostics and its text
/// (a large file is mapped, see [`SourceText::read_file`]). MLIR reads bytes; invalid UTF-8
/// is replaced (only the invalid sequences), and the parser reports it where it matters.
pub(crate) fn read_input(input: &str) -> Result<(String, SourceText), String> {
    if input == "-" {
        let text = SourceText::read_from(std::io::stdin()).map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), text));
    }
    let text = SourceText::read_file(std::path::Path::new(input))
        .map_err(|e| format!("cannot open input file '{input}': {}", io_reason(&e)))?;
    Ok((input.to_string(), text))
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}

/// `--gen-dialect-docs=DIR`: one page per registered dialect, generated from the op
/// declarations (`builtin.module` and `func.*` included).
fn gen_dialect_docs(ctx: &Context, dir: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{dir}': {e}"))?;
    for d in ctx.dialects() {
        let path = std::path::Path::new(dir).join(format!("{}.md", d.name));
        std::fs::write(&path, xcs_ir::opdef::dialect_markdown(d)).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_dash_long_flags() {
        let args: Vec<OsString> =
            ["xcs-opt", "-split-input-file", "-o", "out", "-p", "x", "-", "--cse", "-verify-diagnostics", "-ofile", "-o=f"]
                .iter()
                .map(OsString::from)
                .collect();
        let got: Vec<String> = normalize_args(args).into_iter().map(|a| a.into_string().unwrap()).collect();
        assert_eq!(
            got,
            ["xcs-opt", "--split-input-file", "-o", "out", "-p", "x", "-", "--cse", "--verify-diagnostics", "--ofile", "-o=f"]
        );
    }
}
