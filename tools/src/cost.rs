//! `xcs-cost`: seed 004's two phases outside the IR. `resolve` reads a directory of
//! intermediate cost JSONs (leaf and composite kernels, validated against
//! `schemas/kernel_cost_schema.json`) and writes the resolved tree of a root; `analyze` is the
//! self-driven BFS that runs an analyzer command for every kernel without a cost JSON;
//! `to-ir` / `from-ir` convert between the JSONs and the `cost` dialect.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::OnceLock;

use clap::{Arg, ArgMatches, Command};
use serde_json::Value;
use xcs_dialects::cost::json::{module_from_json, module_to_json, KernelBody, KernelCostJson};
use xcs_dialects::cost::library::{self, NAME_MAP_FILE};
use xcs_dialects::cost::resolve::{Kernel, KernelSet, ResolvedNode};
use xcs_dialects::symbolic::parse_numeric_bindings;

/// The seed's intermediate schema (with the optional `transcendentals` of leaves).
pub const KERNEL_SCHEMA: &str = include_str!("../../schemas/kernel_cost_schema.json");
/// The seed's resolved-tree schema (with the optional `transcendentals`).
pub const RESOLVED_SCHEMA: &str = include_str!("../../schemas/resolved_cost_schema.json");

fn compile(schema: &str) -> jsonschema::Validator {
    let v: Value = serde_json::from_str(schema).expect("the embedded schema is valid JSON");
    jsonschema::validator_for(&v).expect("the embedded schema is a valid JSON Schema")
}

fn kernel_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| compile(KERNEL_SCHEMA))
}
fn resolved_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| compile(RESOLVED_SCHEMA))
}

fn schema_errors(v: &jsonschema::Validator, instance: &Value) -> Result<(), String> {
    let errs: Vec<String> = v
        .iter_errors(instance)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            }
        })
        .collect();
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("; "))
    }
}

/// Validates an intermediate cost JSON value against `kernel_cost_schema.json`.
pub fn validate_kernel_json(v: &Value) -> Result<(), String> {
    schema_errors(kernel_validator(), v).map_err(|e| format!("does not match kernel_cost_schema.json: {e}"))
}

/// Validates a resolved tree against `resolved_cost_schema.json`.
pub fn validate_resolved_json(v: &Value) -> Result<(), String> {
    schema_errors(resolved_validator(), v).map_err(|e| format!("does not match resolved_cost_schema.json: {e}"))
}

/// Reads and checks one intermediate cost JSON text (`origin` names it in errors): valid JSON,
/// valid against the schema, and well-formed (leaf formulas parse).
pub fn read_kernel_text(text: &str, origin: &str) -> Result<(KernelCostJson, Kernel), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("{origin}: invalid JSON: {e}"))?;
    let name = v.get("kernel_name").and_then(Value::as_str).map(|n| format!("kernel '{n}': ")).unwrap_or_default();
    let j = KernelCostJson::from_json(&v).map_err(|e| format!("{origin}: {e}"))?;
    validate_kernel_json(&v).map_err(|e| format!("{origin}: {name}{e}"))?;
    let k = Kernel::from_json(&j, origin).map_err(|e| e.0)?;
    Ok((j, k))
}

/// Every `*.json` of `dir` (but `kernel_name_map.json`), sorted by file name.
pub fn json_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read the directory '{}': {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != NAME_MAP_FILE))
        .collect();
    files.sort();
    Ok(files)
}

/// Reads every cost JSON of `dir` into a strict kernel set (and the JSONs, in file order).
pub fn read_dir(dir: &Path) -> Result<(KernelSet, Vec<KernelCostJson>), String> {
    let mut set = KernelSet::new(true);
    let mut jsons = Vec::new();
    for p in json_files(dir)? {
        let text = std::fs::read_to_string(&p).map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
        let (j, k) = read_kernel_text(&text, &p.display().to_string())?;
        set.add(k).map_err(|e| e.0)?;
        jsons.push(j);
    }
    Ok((set, jsons))
}

/// Resolves `root` from the cost JSONs of `dir` with numeric `bind`ings.
pub fn resolve_dir(dir: &Path, root: &str, bind: &BTreeMap<String, i128>) -> Result<ResolvedNode, String> {
    let (set, _) = read_dir(dir)?;
    set.resolve(root, bind).map_err(|e| e.0)
}

/// A file name for a kernel's JSON: its name with characters other than letters, digits, `.`,
/// `_` and `-` replaced by `_`.
pub fn file_name_for(kernel: &str) -> String {
    let s: String = kernel
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect();
    let s = if s.is_empty() || s.starts_with('.') { format!("_{s}") } else { s };
    format!("{s}.json")
}

/// What `analyze` did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AnalyzeSummary {
    /// Kernels the analyzer was run for, in BFS order.
    pub analyzed: Vec<String>,
    /// Kernels visited that already had a cost JSON.
    pub skipped: usize,
    /// Hand-written kernels copied into the directory.
    pub seeded: usize,
}

/// Seed 004's phase 1: seeds the hand-written kernels into `dir` (those it does not have),
/// then BFS from `root`: a kernel without a cost JSON is given to `analyzer` (a shell command,
/// run with the kernel name as its last argument), whose stdout must be the kernel's
/// intermediate JSON; it is validated and written into `dir`, and the child kernels it names
/// are queued. Kernels that already have a cost JSON are not analyzed again, but their
/// children are visited.
pub fn analyze(root: &str, analyzer: &str, dir: &Path) -> Result<AnalyzeSummary, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let mut summary = AnalyzeSummary::default();
    // kernel name -> its JSON (as read or written)
    let mut known: BTreeMap<String, KernelCostJson> = BTreeMap::new();
    for p in json_files(dir)? {
        let text = std::fs::read_to_string(&p).map_err(|e| format!("cannot read '{}': {e}", p.display()))?;
        let (j, _) = read_kernel_text(&text, &p.display().to_string())?;
        known.insert(j.kernel_name.clone(), j);
    }
    for (file, text, j) in &library::library().files {
        if known.contains_key(&j.kernel_name) {
            continue;
        }
        let dst = dir.join(file);
        if dst.exists() {
            continue;
        }
        std::fs::write(&dst, text).map_err(|e| format!("cannot write '{}': {e}", dst.display()))?;
        known.insert(j.kernel_name.clone(), j.clone());
        summary.seeded += 1;
    }
    let mut queue: VecDeque<String> = VecDeque::from([root.to_string()]);
    let mut queued: std::collections::BTreeSet<String> = [root.to_string()].into();
    while let Some(name) = queue.pop_front() {
        let j = match known.get(&name) {
            Some(j) => {
                summary.skipped += 1;
                j.clone()
            }
            None => {
                let j = run_analyzer(analyzer, &name)?;
                let mut path = dir.join(file_name_for(&name));
                let mut n = 2;
                while path.exists() {
                    path = dir.join(file_name_for(&format!("{name}-{n}")));
                    n += 1;
                }
                std::fs::write(&path, j.to_json_string()).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
                summary.analyzed.push(name.clone());
                known.insert(name.clone(), j.clone());
                j
            }
        };
        if let KernelBody::Composite { children } = &j.body {
            for c in children {
                if queued.insert(c.kernel.clone()) {
                    queue.push_back(c.kernel.clone());
                }
            }
        }
    }
    Ok(summary)
}

fn run_analyzer(analyzer: &str, name: &str) -> Result<KernelCostJson, String> {
    let what = format!("kernel '{name}': the analyzer `{analyzer}`");
    let out = Process::new("sh")
        .arg("-c")
        .arg(format!("{analyzer} \"$1\""))
        .arg("xcs-cost-analyzer")
        .arg(name)
        .output()
        .map_err(|e| format!("{what} cannot be run: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.trim();
        let code = out.status.code().map_or("a signal".to_string(), |c| format!("status {c}"));
        return Err(if err.is_empty() { format!("{what} failed with {code}") } else { format!("{what} failed with {code}: {err}") });
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let (j, _) = read_kernel_text(&text, &format!("{what} printed a cost JSON that"))
        .map_err(|e| e.replace("printed a cost JSON that: ", "printed a bad cost JSON: "))?;
    if j.kernel_name != name {
        return Err(format!("{what} printed the cost JSON of kernel '{}' instead", j.kernel_name));
    }
    Ok(j)
}

/// The `cost` dialect text of every cost JSON of `dir` (one `cost.kernel` / `cost.composite`
/// per kernel, in file order), verified.
pub fn to_ir(dir: &Path) -> Result<String, String> {
    let (_, jsons) = read_dir(dir)?;
    let xcs = crate::Compiler::new();
    let m = module_from_json(&xcs.ctx, &jsons)?;
    if let Err(ds) = xcs_ir::verifier::verify_module(&xcs.ctx, &m, false) {
        let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
        return Err(format!("the cost kernels do not verify: {}", msgs.join("; ")));
    }
    Ok(xcs.print(&m))
}

/// Writes one cost JSON per `cost.kernel` / `cost.composite` of the module text `text` into
/// `dir`; returns the files written.
pub fn from_ir(text: &str, file: &str, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let xcs = crate::Compiler::new();
    let m = xcs.parse_named(file, text).map_err(|e| e.rendered.trim_end().to_string())?;
    let jsons = module_to_json(&xcs.ctx, &m)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let mut out = Vec::new();
    for j in jsons {
        let p = dir.join(file_name_for(&j.kernel_name));
        std::fs::write(&p, j.to_json_string()).map_err(|e| format!("cannot write '{}': {e}", p.display()))?;
        out.push(p);
    }
    Ok(out)
}

// ------------------------------------------------------------------------------ command line

fn command() -> Command {
    let costs = || Arg::new("costs").long("costs").value_name("DIR").required(true).help("Directory of intermediate cost JSONs");
    let root = || Arg::new("root").long("root").value_name("NAME").required(true).help("The root kernel");
    Command::new("xcs-cost")
        .about("Seed 004's cost trees: resolve and analyze intermediate cost JSONs, convert them to and from the cost dialect")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("resolve")
                .about("Resolve the cost tree of a root kernel bottom-up (phase 2)")
                .arg(costs())
                .arg(root())
                .arg(Arg::new("bind").long("bind").value_name("K=V,...").help("Numbers for symbols: batch_size=1,seq_len=128"))
                .arg(Arg::new("output").short('o').long("output").value_name("FILE").default_value("-").help("Output file ('-' for stdout)")),
        )
        .subcommand(
            Command::new("analyze")
                .about("Self-driven BFS from a root kernel (phase 1): run the analyzer for each kernel without a cost JSON")
                .arg(root())
                .arg(Arg::new("analyzer").long("analyzer").value_name("CMD").required(true).help("Shell command; run with a kernel name as its last argument, it prints that kernel's cost JSON"))
                .arg(costs()),
        )
        .subcommand(
            Command::new("to-ir")
                .about("Convert a directory of cost JSONs to cost-dialect IR")
                .arg(costs())
                .arg(Arg::new("output").short('o').long("output").value_name("FILE").default_value("-").help("Output file ('-' for stdout)")),
        )
        .subcommand(
            Command::new("from-ir")
                .about("Convert cost-dialect IR to one cost JSON per kernel")
                .arg(Arg::new("input").required(true).help("Input .mlir file ('-' for stdin)"))
                .arg(Arg::new("output").short('o').long("output").value_name("DIR").required(true).help("Output directory")),
        )
}

fn write_out(file: &str, text: &str) -> Result<(), String> {
    if file == "-" {
        use std::io::Write;
        let mut o = std::io::stdout().lock();
        o.write_all(text.as_bytes()).map_err(|e| format!("cannot write to stdout: {e}"))
    } else {
        std::fs::write(file, text).map_err(|e| format!("cannot write '{file}': {e}"))
    }
}

fn run(m: &ArgMatches) -> Result<(), String> {
    let s = |m: &ArgMatches, k: &str| m.get_one::<String>(k).cloned().unwrap_or_default();
    match m.subcommand() {
        Some(("resolve", m)) => {
            let bind = parse_numeric_bindings(&s(m, "bind")).map_err(|e| format!("--bind: {e}"))?;
            let tree = resolve_dir(Path::new(&s(m, "costs")), &s(m, "root"), &bind)?;
            write_out(&s(m, "output"), &tree.to_json())
        }
        Some(("analyze", m)) => {
            let sum = analyze(&s(m, "root"), &s(m, "analyzer"), Path::new(&s(m, "costs")))?;
            eprintln!(
                "xcs-cost: analyzed {} kernel(s), {} already had a cost JSON, seeded {} hand-written kernel(s)",
                sum.analyzed.len(),
                sum.skipped,
                sum.seeded
            );
            Ok(())
        }
        Some(("to-ir", m)) => write_out(&s(m, "output"), &to_ir(Path::new(&s(m, "costs")))?),
        Some(("from-ir", m)) => {
            let input = s(m, "input");
            let text = if input == "-" {
                let mut t = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut t).map_err(|e| format!("cannot read stdin: {e}"))?;
                t
            } else {
                std::fs::read_to_string(&input).map_err(|e| format!("cannot read '{input}': {e}"))?
            };
            from_ir(&text, if input == "-" { "<stdin>" } else { &input }, Path::new(&s(m, "output"))).map(|_| ())
        }
        _ => Err("a subcommand is required (resolve, analyze, to-ir, from-ir)".into()),
    }
}

/// Runs xcs-cost with `args` (including the program name); returns the exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    crate::tool_main(command(), args, run, |e| eprintln!("xcs-cost: error: {e}"))
}
