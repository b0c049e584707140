//! The `xcs-run` driver: parse and verify a module (through [`crate::Compiler`], so diagnostics
//! look like `xcs-opt`'s), optionally run a pass pipeline, call one function with inputs from
//! `.npy` files, literals or a seeded generator, and write its results as `.npy` files or print
//! them as numpy does. The default backend is the LLVM JIT (`xcs_lowering::Jit`: compiled for the
//! host CPU, specialized to the input shapes); `--backend=interp` (alias `--interp`) runs the
//! reference interpreter. `--bench N` times N calls, `--threads N` sizes the runtime's thread
//! pool. See `docs/xcs-run.md`.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction, ArgMatches, Command};
use xcs_dialects::interp::{
    random_input, read_npy, tensor_from_attr, write_npy, ElemType, Interpreter, ProviderRegistry, RtValue, Scalar,
    Tensor, TensorData,
};
use xcs_ir::printer::type_to_string;
use xcs_ir::{AttrKind, Context, Module, Type, TypeKind};

use crate::Compiler;

/// The attribute that names an argument (in `arg_attrs`) or a result (in `res_attrs`) for
/// `--input NAME=...` and the output file names: `%x: tensor<4xf32> {xcs.name = "x"}`.
pub const NAME_ATTR: &str = "xcs.name";

/// Where the value of one input comes from (the part after `=` of `--input NAME=SPEC`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSource {
    /// `PATH.npy` or `npy:PATH`: a numpy file.
    Npy(PathBuf),
    /// `random:SEED`: a deterministic random value of the argument's type
    /// ([`xcs_dialects::interp::random_input`]).
    Random(u64),
    /// `str:TEXT`: an `!xcs.str` holding TEXT verbatim.
    Text(String),
    /// Anything else: an MLIR attribute literal read with the argument's type: `3`, `true`,
    /// `"text"`, `2.5` (a splat for a tensor), `[[1, 2], [3, 4]]`, `dense<...>`.
    Literal(String),
}

impl InputSource {
    /// Reads a SPEC.
    pub fn parse(spec: &str) -> Result<InputSource, String> {
        if let Some(seed) = spec.strip_prefix("random:") {
            let seed = seed.trim();
            let parsed = match seed.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => seed.parse::<u64>(),
            };
            return parsed
                .map(InputSource::Random)
                .map_err(|_| format!("'random:{seed}': the seed must be an unsigned 64-bit integer"));
        }
        if let Some(path) = spec.strip_prefix("npy:") {
            return Ok(InputSource::Npy(PathBuf::from(path)));
        }
        if let Some(text) = spec.strip_prefix("str:") {
            return Ok(InputSource::Text(text.to_string()));
        }
        if spec.ends_with(".npy") {
            return Ok(InputSource::Npy(PathBuf::from(spec)));
        }
        if spec.is_empty() {
            return Err("the value is empty (give FILE.npy, random:SEED, str:TEXT or a literal)".into());
        }
        Ok(InputSource::Literal(spec.to_string()))
    }
}

/// One argument or result of the entry function.
#[derive(Clone, Debug)]
pub struct Port {
    pub ty: Type,
    /// Its `xcs.name`, if the function gives one.
    pub name: Option<String>,
}

/// The entry function's arguments and results.
#[derive(Clone, Debug)]
pub struct EntrySignature {
    pub args: Vec<Port>,
    pub results: Vec<Port>,
}

impl EntrySignature {
    /// Reads function `name` of `module`: its type and the `xcs.name`s of `arg_attrs`/`res_attrs`.
    pub fn of(ctx: &Context, module: &Module, name: &str) -> Result<EntrySignature, String> {
        let mut names = Vec::new();
        for op in module.ops() {
            if !xcs_dialects::func::FuncOp::matches(ctx, module.body.op_name(op)) {
                continue;
            }
            let Some(sym) = module.body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) else {
                continue;
            };
            if sym != name {
                names.push(sym.to_string());
                continue;
            }
            let (inputs, results) = module
                .body
                .attr(ctx, op, "function_type")
                .and_then(|a| xcs_dialects::func::signature(ctx, a))
                .ok_or_else(|| format!("@{name} has no valid function_type"))?;
            let is_decl = module
                .body
                .nested(op)
                .is_none_or(|b| b.root_regions().iter().all(|&r| b.region_is_empty(r)));
            if is_decl {
                return Err(format!(
                    "@{name} is an external declaration without a body; there is nothing to run"
                ));
            }
            let ports = |key: &str, types: &[Type]| -> Vec<Port> {
                let dicts = module
                    .body
                    .attr(ctx, op, key)
                    .and_then(|a| ctx.as_array(a))
                    .unwrap_or(&[]);
                types
                    .iter()
                    .enumerate()
                    .map(|(i, &ty)| Port {
                        ty,
                        name: dicts
                            .get(i)
                            .and_then(|&d| ctx.dict_get(d, NAME_ATTR))
                            .and_then(|a| ctx.as_str(a))
                            .map(str::to_string),
                    })
                    .collect()
            };
            return Ok(EntrySignature {
                args: ports("arg_attrs", &inputs),
                results: ports("res_attrs", &results),
            });
        }
        names.sort();
        let list = if names.is_empty() {
            "it has none".to_string()
        } else {
            format!("it has @{}", names.join(", @"))
        };
        Err(format!(
            "no function @{name} in the module ({list}); choose one with --entry"
        ))
    }

    /// The names argument `i` answers to: `argI`, `I` and its `xcs.name`.
    pub fn arg_names(&self, i: usize) -> Vec<String> {
        let mut v = vec![format!("arg{i}"), i.to_string()];
        if let Some(n) = &self.args[i].name {
            if !v.contains(n) {
                v.push(n.clone());
            }
        }
        v
    }

    /// The index of the argument called `name`.
    pub fn find_arg(&self, name: &str) -> Result<usize, String> {
        let hits: Vec<usize> = (0..self.args.len())
            .filter(|&i| self.arg_names(i).iter().any(|n| n == name))
            .collect();
        match hits.as_slice() {
            [i] => Ok(*i),
            [] => Err(format!(
                "no argument is called '{name}' (arguments: {})",
                self.describe_args()
            )),
            _ => Err(format!(
                "the input name '{name}' is ambiguous: it names arguments #{} and #{}",
                hits[0], hits[1]
            )),
        }
    }

    /// `arg0 (x): tensor<4xf32>, arg1: !xcs.str`.
    fn describe_args(&self) -> String {
        if self.args.is_empty() {
            return "none".into();
        }
        (0..self.args.len())
            .map(|i| self.describe_arg(i))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn describe_arg(&self, i: usize) -> String {
        self.args[i].describe(&format!("arg{i}"))
    }

    /// The output name of result `j`: its `xcs.name`, else `resultJ`.
    pub fn result_name(&self, j: usize) -> String {
        self.results[j].name.clone().unwrap_or_else(|| format!("result{j}"))
    }
}

impl Port {
    /// `arg0 (x)`: the positional name and the `xcs.name`, if it differs.
    fn describe(&self, positional: &str) -> String {
        match &self.name {
            Some(n) if n != positional => format!("{positional} ({n})"),
            _ => positional.to_string(),
        }
    }
}

/// Makes the value of an argument of type `ty` from `source`, checked against the type.
pub fn make_input(ctx: &Context, ty: Type, source: &InputSource) -> Result<RtValue, String> {
    let ty_s = type_to_string(ctx, ty);
    let str_ty = xcs_dialects::xcs::str_type(ctx);
    let value = match source {
        InputSource::Random(seed) => random_input(ctx, ty, *seed)?,
        InputSource::Text(s) => {
            if ty != str_ty {
                return Err(format!("'str:' gives an !xcs.str, but the argument has type '{ty_s}'"));
            }
            RtValue::Str(s.clone())
        }
        InputSource::Npy(path) => {
            let t = read_npy(path)?;
            from_tensor(ctx, ty, t).map_err(|e| format!("'{}' {e}", path.display()))?
        }
        InputSource::Literal(text) => literal(ctx, ty, text)?,
    };
    value.check_type(ctx, ty).map_err(|_| {
        format!(
            "the value is a {}, but the argument has type '{ty_s}'",
            value.type_string()
        )
    })?;
    Ok(value)
}

/// A `.npy` tensor as a value of type `ty`: a rank-0 string tensor is an `!xcs.str`, a rank-0
/// integer or bool tensor an integer scalar of the same width; tensors stay tensors.
fn from_tensor(ctx: &Context, ty: Type, t: Tensor) -> Result<RtValue, String> {
    if ty == xcs_dialects::xcs::str_type(ctx) {
        return match t.data {
            TensorData::Str(mut v) if t.shape.is_empty() => Ok(RtValue::Str(v.pop().unwrap_or_default())),
            _ => Err(format!(
                "holds a {}, but the argument is an !xcs.str (save a 0-d string array)",
                t.type_string()
            )),
        };
    }
    if let TypeKind::Integer { width, .. } = ctx.type_kind(ty) {
        let ints = t
            .data
            .to_i64s()
            .filter(|_| t.shape.is_empty() && int_width(t.elem()) == Some(*width));
        return match ints.as_deref() {
            Some([v]) => Ok(RtValue::Scalar(Scalar::new(*v as i128, *width))),
            _ => Err(format!(
                "holds a {}, but the argument is an i{width} scalar (save a 0-d array)",
                t.type_string()
            )),
        };
    }
    Ok(RtValue::Tensor(t))
}

fn int_width(e: ElemType) -> Option<u32> {
    Some(match e {
        ElemType::I1 => 1,
        ElemType::I8 => 8,
        ElemType::I16 => 16,
        ElemType::I32 => 32,
        ElemType::I64 => 64,
        _ => return None,
    })
}

/// An attribute literal read with the argument's type.
fn literal(ctx: &Context, ty: Type, text: &str) -> Result<RtValue, String> {
    let ty_s = type_to_string(ctx, ty);
    let parse = |t: &str| {
        xcs_ir::parser::parse_attr(ctx, t).map_err(|d| format!("cannot read '{text}' as a '{ty_s}': {}", d.message))
    };
    if ty == xcs_dialects::xcs::str_type(ctx) {
        let a = parse(text)?;
        return match ctx.attr_kind(a) {
            AttrKind::String { .. } => Ok(RtValue::Str(
                ctx.as_str(a)
                    .ok_or_else(|| format!("the string '{text}' is not valid UTF-8"))?
                    .to_string(),
            )),
            _ => Err(format!(
                "'{text}' is not a string literal; quote it (\"...\") or give str:TEXT"
            )),
        };
    }
    match ctx.type_kind(ty) {
        TypeKind::Integer { width, .. } => {
            let a = parse(&format!("{text} : {ty_s}")).or_else(|e| if *width == 1 { parse(text) } else { Err(e) })?;
            match ctx.attr_kind(a) {
                AttrKind::Integer { value, .. } => Ok(RtValue::Scalar(Scalar::new(*value, *width))),
                _ => match ctx.as_bool(a) {
                    Some(b) if *width == 1 => Ok(RtValue::Scalar(Scalar::new(b as i128, 1))),
                    _ => Err(format!("'{text}' is not an integer literal")),
                },
            }
        }
        TypeKind::RankedTensor { shape, .. } => {
            if shape.contains(&xcs_ir::DYNAMIC) {
                return Err(format!(
                    "a literal cannot give a value of type '{ty_s}', which has dynamic dims (give a .npy file)"
                ));
            }
            let dense_of = |t: &str| {
                if t.starts_with("dense<") {
                    parse(t).or_else(|_| parse(&format!("{t} : {ty_s}")))
                } else {
                    parse(&format!("dense<{t}> : {ty_s}"))
                }
            };
            // MLIR wants float literals for float elements (`1.0`); on the command line `1` is
            // fine too.
            let is_float = matches!(ctx.type_kind(ty), TypeKind::RankedTensor { elem, .. } if ctx.is_float(*elem));
            let dense = dense_of(text).or_else(|e| {
                if is_float {
                    dense_of(&floatify(text)).map_err(|_| e)
                } else {
                    Err(e)
                }
            })?;
            Ok(RtValue::Tensor(
                tensor_from_attr(ctx, dense).map_err(|e| format!("cannot read '{text}': {e}"))?,
            ))
        }
        _ => Err(format!("no literal gives a value of type '{ty_s}'")),
    }
}

/// `text` with every integer literal written as a float (`[1, -2]` -> `[1.0, -2.0]`); words
/// with letters or dots (`1.5`, `1e3`, `0x7F`, `true`, `dense`) stay as they are.
fn floatify(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word);
        if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(".0");
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A result as a tensor to save: tensors as they are, an `!xcs.str` as a 0-d string array, an
/// integer scalar as a 0-d array of its width.
pub fn output_tensor(v: &RtValue) -> Result<Tensor, String> {
    v.to_tensor()
}

/// The text `--print` shows for one result: `NAME: TYPE` and the value as numpy prints it.
pub fn print_result(name: &str, v: &RtValue) -> String {
    format!("{name}: {}\n{v}\n", v.type_string())
}

// ---------------------------------------------------------------------------- command line

fn command() -> Command {
    Command::new("xcs-run")
        .about("Run a function of an XCS module")
        .version(env!("CARGO_PKG_VERSION"))
        .after_help(
            "INPUT SPECS (--input NAME=SPEC; NAME is argN, N, or the argument's xcs.name):\n  \
             FILE.npy | npy:FILE  a numpy file (dtype and shape must fit the argument type)\n  \
             random:SEED          deterministic random values of the argument type (static shapes)\n  \
             str:TEXT             an !xcs.str holding TEXT\n  \
             LITERAL              an MLIR literal of the argument type: 3, true, \"text\", 1.5 (splat), [[1, 2]]\n\n\
             Results go to DIR/NAME.npy with --output-dir (NAME: the result's xcs.name, else resultN)\n\
             and are printed as numpy prints them with --print (the default without --output-dir).",
        )
        .arg(Arg::new("input-file").default_value("-").help("Input file ('-' for stdin)"))
        .arg(Arg::new("entry").long("entry").short('e').default_value("main").help("The function to run"))
        .arg(
            Arg::new("interp")
                .long("interp")
                .action(ArgAction::SetTrue)
                .help("Run on the reference interpreter (same as --backend=interp)"),
        )
        .arg(
            Arg::new("backend")
                .long("backend")
                .value_parser(["llvm", "interp", "mlir"])
                .help("Execution backend: the LLVM JIT (default), the reference interpreter, or MLIR's own pipeline and ExecutionEngine on the module exported to upstream MLIR (docs/interop.md)"),
        )
        .arg(
            Arg::new("bench")
                .long("bench")
                .value_name("N")
                .value_parser(clap::value_parser!(u64).range(1..))
                .help("Time N calls after one warm-up call; print one 'bench:' line with the min and median time per call (results are printed only with --print or --output-dir)"),
        )
        .arg(
            Arg::new("time-phases")
                .long("time-phases")
                .action(ArgAction::SetTrue)
                .help("Print where the LLVM JIT's compile time went to stderr, one 'phase:' line per phase (lower, parse, target, optimize, codegen) with its wall and CPU time, then a total"),
        )
        .arg(
            Arg::new("bench-buffers")
                .long("bench-buffers")
                .value_parser(["retained", "fresh"])
                .default_value("retained")
                .help("With the LLVM backend: 'retained' (default) reuses freed buffers of 4 MiB or more across calls; 'fresh' takes every buffer new from the allocator (each call pays its page faults)"),
        )
        .arg(
            Arg::new("matmul")
                .long("matmul")
                .value_parser(["library", "generated"])
                .default_value("library")
                .help("With the LLVM backend, how f32 matmuls run: 'library' (default) calls the runtime's precompiled matmul (a fused epilogue becomes a generated callback); 'generated' emits a packed kernel as LLVM IR per call site (slower to compile; for A/B comparisons)"),
        )
        .arg(
            Arg::new("threads")
                .long("threads")
                .value_name("N")
                .value_parser(clap::value_parser!(u64).range(1..=256))
                .help("Threads for large loops of compiled code (1: single-threaded code) [default: the number of CPUs]"),
        )
        .arg(
            Arg::new("input")
                .long("input")
                .short('i')
                .value_name("NAME=SPEC")
                .action(ArgAction::Append)
                .help("The value of one argument (see INPUT SPECS)"),
        )
        .arg(
            Arg::new("output-dir")
                .long("output-dir")
                .short('o')
                .value_name("DIR")
                .help("Write each result to DIR/NAME.npy"),
        )
        .arg(
            Arg::new("print")
                .long("print")
                .action(ArgAction::SetTrue)
                .help("Print the results (default without --output-dir)"),
        )
        .arg(
            Arg::new("provider")
                .long("provider")
                .value_name("NAME")
                .help("Answer every xcs.llm call with the built-in provider NAME (echo), whatever provider it names"),
        )
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .short('p')
                .help("A pass pipeline to run before executing, e.g. 'builtin.module(inline,func.func(canonicalize))'"),
        )
        .arg(
            Arg::new("devices")
                .long("devices")
                .value_name("SHAPE")
                .help("Run a partitioned (SPMD) function on every device of a grid of this shape (2x4), as threads of this process: inputs are sliced per the function's argument shardings, results reassembled"),
        )
        .arg(
            Arg::new("mpi")
                .long("mpi")
                .action(ArgAction::SetTrue)
                .help("Run a partitioned (SPMD) function as one process of an MPI job (mpirun -np N xcs-run ... --mpi): rank r is device r; rank 0 writes or prints the reassembled results"),
        )
        .arg(
            Arg::new("allow-unregistered-dialect")
                .long("allow-unregistered-dialect")
                .action(ArgAction::SetTrue)
                .help("Allow operations of dialects that are not registered (they fail if they run)"),
        )
}

/// Runs xcs-run with `args` (including the program name); returns the exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    main_with(args, |_| {})
}

/// The MLIR backend (`--backend=mlir`): runs the prepared entry and times it as `--bench` asks.
/// The xcs-run binary supplies it (from the xcs-mlir crate), so that only that binary links
/// MLIR: the other tools, which link this library, do not load libMLIR.so.
pub type MlirBackend = fn(&Prepared) -> Result<(Vec<RtValue>, Option<Timing>), String>;

/// As [`main`], with the MLIR backend.
pub fn main_with_mlir(args: impl IntoIterator<Item = OsString>, mlir: MlirBackend) -> i32 {
    crate::tool_main(command(), args, |m| run(m, |_| {}, Some(mlir)), crate::print_error)
}

/// Runs the xcs-run driver with more dialects and passes than XCS's own: `register` adds them
/// to the compiler (its context has every XCS dialect and their lowering, its registry every
/// XCS pass) before the input is parsed (`xcs-test-run` registers the test dialect this way).
pub fn main_with(args: impl IntoIterator<Item = OsString>, register: impl FnOnce(&mut Compiler)) -> i32 {
    crate::tool_main(command(), args, |m| run(m, register, None), crate::print_error)
}

/// `NAME=SPEC` of one `--input`.
fn split_input(arg: &str) -> Result<(&str, InputSource), String> {
    let (name, spec) = arg
        .split_once('=')
        .ok_or_else(|| format!("--input '{arg}': expected NAME=SPEC"))?;
    if name.is_empty() {
        return Err(format!("--input '{arg}': the argument name is empty"));
    }
    Ok((
        name,
        InputSource::parse(spec).map_err(|e| format!("--input {name}: {e}"))?,
    ))
}

fn run(m: &ArgMatches, register: impl FnOnce(&mut Compiler), mlir: Option<MlirBackend>) -> Result<(), String> {
    if m.get_flag("mpi") {
        return crate::run_spmd::run_mpi(m, register);
    }
    let p = prepare(m, register)?;
    let fresh = m.get_one::<String>("bench-buffers").is_some_and(|b| b == "fresh");
    xcs_lowering::runtime::set_buffer_reuse(!fresh);
    let (results, timing) = match (p.backend, m.get_one::<String>("devices")) {
        (_, Some(_)) => crate::run_spmd::run_devices(&p)?,
        ("interp", None) => {
            let interp = Interpreter::new(&p.xcs.ctx, &p.module).with_providers(p.providers.clone());
            let call = |args: Vec<RtValue>| {
                interp
                    .call(&p.entry, args)
                    .map_err(|e| p.xcs.error(vec![e.to_diagnostic()]).to_string())
            };
            let timing = match p.bench {
                Some(n) => Some(time_calls(n, || call(p.args.clone()).map(|_| ()))?),
                None => None,
            };
            (call(p.args.clone())?, timing)
        }
        ("mlir", None) => mlir.ok_or("error: this xcs-run has no MLIR backend (built without the `mlir` feature)")?(&p)?,
        _ => run_llvm(&p, m.get_flag("time-phases"))?,
    };
    if let Some(t) = &timing {
        let mut out = std::io::stdout().lock();
        let mut line = t.line(&p.entry, p.backend, p.threads);
        if p.backend == "llvm" {
            line.push_str(if fresh { " buffers=fresh" } else { " buffers=retained" });
        }
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    emit_results(m, &p, &results)
}

/// Everything a run needs before it calls the function: the parsed (and transformed) module,
/// the entry, its signature and inputs, and the options.
pub struct Prepared {
    pub xcs: Compiler,
    pub module: Module,
    pub entry: String,
    pub sig: EntrySignature,
    pub args: Vec<RtValue>,
    pub backend: &'static str,
    pub bench: Option<u64>,
    pub threads: usize,
    /// How f32 matmuls are compiled (`--matmul`).
    pub matmul: xcs_lowering::MatmulKernel,
    pub providers: ProviderRegistry,
    /// With `--devices` or `--mpi`: the grid and the shardings of the arguments and results
    /// (the signature then has the full types, which the inputs are made for).
    pub spmd: Option<crate::run_spmd::SpmdPlan>,
}

/// Reads the options, parses and verifies the module (the diagnostics are xcs-opt's), runs the
/// pipeline and makes the inputs.
pub fn prepare(m: &ArgMatches, register: impl FnOnce(&mut Compiler)) -> Result<Prepared, String> {
    let backend = match (m.get_flag("interp"), m.get_one::<String>("backend").map(String::as_str)) {
        (true, Some("llvm")) => return Err("error: --interp and --backend=llvm contradict each other".into()),
        (true, Some("mlir")) => return Err("error: --interp and --backend=mlir contradict each other".into()),
        (true, _) | (false, Some("interp")) => "interp",
        (false, Some("mlir")) => "mlir",
        _ => "llvm",
    };
    let bench = m.get_one::<u64>("bench").copied();
    let threads = m
        .get_one::<u64>("threads")
        .map(|&n| n as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let matmul = m
        .get_one::<String>("matmul")
        .and_then(|s| xcs_lowering::MatmulKernel::parse(s))
        .unwrap_or(xcs_lowering::MatmulKernel::Library);
    let inputs: Vec<(&str, InputSource)> = m
        .get_many::<String>("input")
        .into_iter()
        .flatten()
        .map(|a| split_input(a))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("error: {e}"))?;
    let providers = match m.get_one::<String>("provider") {
        None => ProviderRegistry::default(),
        Some(name) => {
            let builtin = ProviderRegistry::default();
            let p = builtin.get(name).ok_or_else(|| {
                format!(
                    "error: --provider: no built-in provider '{name}' (built-in: {})",
                    builtin.names().join(", ")
                )
            })?;
            let mut r = ProviderRegistry::empty();
            r.set_fallback(Arc::clone(p));
            r
        }
    };

    // ---- parse, verify, transform (the diagnostics are xcs-opt's)
    let mut xcs = Compiler::new();
    register(&mut xcs);
    let (_, module) = crate::load_input(&mut xcs, m)?;

    // ---- the inputs, by argument
    let entry = m.get_one::<String>("entry").map(String::as_str).unwrap_or("main").to_string();
    let mut sig = EntrySignature::of(&xcs.ctx, &module, &entry).map_err(|e| format!("error: {e}"))?;
    let spmd = match (m.get_one::<String>("devices"), m.get_flag("mpi")) {
        (None, false) => None,
        (devices, _) => {
            let plan = crate::run_spmd::plan(&xcs.ctx, &module, &entry, &sig, devices.map(String::as_str))
                .map_err(|e| format!("error: {e}"))?;
            crate::run_spmd::full_types(&xcs.ctx, &plan, &mut sig);
            Some(plan)
        }
    };
    let args = bind_inputs(&xcs.ctx, &sig, &inputs).map_err(|e| format!("error: {e}"))?;
    Ok(Prepared { xcs, module, entry, sig, args, backend, bench, threads, matmul, providers, spmd })
}

/// Writes (`--output-dir`) and prints (`--print`, the default without `--output-dir` and
/// `--bench`) the results.
pub fn emit_results(m: &ArgMatches, p: &Prepared, results: &[RtValue]) -> Result<(), String> {
    let print = m.get_flag("print") || (m.get_one::<String>("output-dir").is_none() && p.bench.is_none());
    let names: Vec<String> = (0..results.len()).map(|j| p.sig.result_name(j)).collect();
    let mut seen = BTreeSet::new();
    for n in &names {
        if !seen.insert(n) {
            return Err(format!(
                "error: two results are called '{n}' (give them distinct xcs.name attributes)"
            ));
        }
    }
    if let Some(dir) = m.get_one::<String>("output-dir") {
        write_results(Path::new(dir), &names, results).map_err(|e| format!("error: {e}"))?;
    }
    if print {
        let mut out = std::io::stdout().lock();
        for (n, v) in names.iter().zip(results) {
            // A closed pipe (`| head`) is not an error of ours.
            let _ = out.write_all(print_result(n, v).as_bytes());
        }
        let _ = out.flush();
    }
    Ok(())
}

/// Times of `--bench`: per call, sorted, and the compile time (LLVM); `cpu`: the process's CPU
/// time of each call (all its threads, user and system), sorted, when measured.
pub struct Timing {
    pub calls: Vec<Duration>,
    pub compile: Option<Duration>,
    /// The warm-up call (the first call after compiling: page faults of fresh buffers, cold caches).
    pub first: Duration,
    pub cpu: Vec<Duration>,
}

/// The CPU time this process has used so far (all threads, user and system), or zero where
/// the clock is not available. Unlike the wall clock, it does not run while other processes
/// have the CPUs.
pub fn process_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write to.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Timing {
    /// The fastest call.
    pub fn min(&self) -> Duration {
        self.calls.first().copied().unwrap_or_default()
    }
    /// The median call (the mean of the two middle ones for an even count).
    pub fn median(&self) -> Duration {
        let n = self.calls.len();
        match n {
            0 => Duration::ZERO,
            _ if n % 2 == 1 => self.calls[n / 2],
            _ => (self.calls[n / 2 - 1] + self.calls[n / 2]) / 2,
        }
    }
    /// The one line `--bench` prints (a stable format, space-separated `key=value`; times in
    /// milliseconds): `bench: entry=main backend=llvm threads=2 calls=10 min_ms=0.012345
    /// median_ms=0.013000 compile_ms=41.200000 first_call_ms=0.052000 times_ms=0.012345,...
    /// cpu_ms=0.012001,...` (compile_ms only for the LLVM JIT; first_call_ms is the warm-up call;
    /// `times_ms`: every call's wall time, fastest first, for the spread; `cpu_ms`: every call's
    /// process CPU time, fastest first).
    pub fn line(&self, entry: &str, backend: &str, threads: usize) -> String {
        let ms = |d: Duration| format!("{:.6}", d.as_secs_f64() * 1e3);
        let mut s = format!(
            "bench: entry={entry} backend={backend} threads={threads} calls={} min_ms={} median_ms={}",
            self.calls.len(),
            ms(self.min()),
            ms(self.median())
        );
        if let Some(c) = self.compile {
            s.push_str(&format!(" compile_ms={}", ms(c)));
        }
        s.push_str(&format!(" first_call_ms={}", ms(self.first)));
        let times: Vec<String> = self.calls.iter().map(|&d| ms(d)).collect();
        s.push_str(&format!(" times_ms={}", times.join(",")));
        if !self.cpu.is_empty() {
            let cpu: Vec<String> = self.cpu.iter().map(|&d| ms(d)).collect();
            s.push_str(&format!(" cpu_ms={}", cpu.join(",")));
        }
        s
    }
}

/// One warm-up call, then `n` timed calls of `f`.
pub fn time_calls(n: u64, mut f: impl FnMut() -> Result<(), String>) -> Result<Timing, String> {
    let t = Instant::now();
    f()?;
    let first = t.elapsed();
    let mut calls = Vec::with_capacity(n as usize);
    let mut cpu = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let c = process_cpu_time();
        let t = Instant::now();
        f()?;
        calls.push(t.elapsed());
        cpu.push(process_cpu_time().saturating_sub(c));
    }
    calls.sort();
    cpu.sort();
    Ok(Timing { calls, compile: None, first, cpu })
}

/// A JIT error (`d`, its diagnostic, perhaps with notes) rendered as xcs-opt renders
/// diagnostics; an op the backend does not lower suggests the interpreter.
pub fn render_jit_error(xcs: &Compiler, e: &xcs_lowering::JitError, mut d: xcs_ir::Diagnostic) -> String {
    if matches!(e, xcs_lowering::JitError::Compile(_)) && d.message.contains("not supported by the LLVM backend") {
        d.message.push_str(" (run it on the reference interpreter with --backend=interp)");
    }
    render_diagnostic(xcs, d)
}

/// A diagnostic rendered as xcs-opt renders them; one without a location as `error: ...`
/// (and its notes without a location as `note: ...` lines).
pub fn render_diagnostic(xcs: &Compiler, mut d: xcs_ir::Diagnostic) -> String {
    let unknown = xcs_ir::Location::UNKNOWN;
    let (located, plain): (Vec<_>, Vec<_>) = std::mem::take(&mut d.notes).into_iter().partition(|n| n.loc != unknown);
    d.notes = located;
    let mut s = if d.loc == unknown && d.notes.is_empty() {
        format!("error: {}", d.message)
    } else {
        xcs.error(vec![d]).to_string().trim_end().to_string()
    };
    for n in plain {
        s.push_str(&format!("\nnote: {}", n.message));
    }
    s
}

/// Runs the entry through the LLVM JIT with `p.threads` threads (and times it with `p.bench`;
/// `time_phases`: prints the compile's phases to stderr).
fn run_llvm(p: &Prepared, time_phases: bool) -> Result<(Vec<RtValue>, Option<Timing>), String> {
    let (xcs, module, entry, args, threads, bench) = (&p.xcs, &p.module, p.entry.as_str(), &p.args, p.threads, p.bench);
    let mut opts = xcs_lowering::Options::host();
    opts.threads = threads;
    opts.matmul = p.matmul;
    xcs_lowering::runtime::set_num_threads(threads);
    let jit = xcs_lowering::Jit::new(&xcs.ctx, module, opts);
    let render = |e: xcs_lowering::JitError| render_jit_error(xcs, &e, e.to_diagnostic());
    let t0 = Instant::now();
    let compiled = jit.compile_for(entry, args).map_err(render)?;
    let compile = t0.elapsed();
    if time_phases {
        eprint!("{}", compiled.phases.render());
    }
    let inputs = compiled.inputs(args).map_err(render)?;
    let timing = match bench {
        Some(n) => {
            let mut t = time_calls(n, || compiled.run_discard(&inputs).map_err(render))?;
            t.compile = Some(compile);
            Some(t)
        }
        None => None,
    };
    let results = compiled.run(&inputs).map_err(render)?;
    Ok((results, timing))
}

/// Orders the inputs by argument and makes their values; every argument needs exactly one.
pub fn bind_inputs(
    ctx: &Context,
    sig: &EntrySignature,
    inputs: &[(&str, InputSource)],
) -> Result<Vec<RtValue>, String> {
    let mut slots: Vec<Option<(&str, &InputSource)>> = vec![None; sig.args.len()];
    for (name, src) in inputs {
        let i = sig.find_arg(name).map_err(|e| format!("--input {name}: {e}"))?;
        if let Some((prev, _)) = slots[i] {
            return Err(format!(
                "--input {name}: argument #{i} already has a value (from --input {prev})"
            ));
        }
        slots[i] = Some((name, src));
    }
    let missing: Vec<String> = (0..sig.args.len())
        .filter(|&i| slots[i].is_none())
        .map(|i| format!("{}: {}", sig.describe_arg(i), type_to_string(ctx, sig.args[i].ty)))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "missing input for {} {} (give --input NAME=FILE.npy or NAME=random:SEED)",
            if missing.len() == 1 { "argument" } else { "arguments" },
            missing.join(", ")
        ));
    }
    let mut values = Vec::with_capacity(slots.len());
    for (i, slot) in slots.into_iter().enumerate() {
        let (name, src) = slot.expect("checked above");
        let v = make_input(ctx, sig.args[i].ty, src).map_err(|e| format!("--input {name} (argument #{i}): {e}"))?;
        values.push(v);
    }
    Ok(values)
}

fn write_results(dir: &Path, names: &[String], results: &[RtValue]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the output directory '{}': {e}", dir.display()))?;
    for (n, v) in names.iter().zip(results) {
        if n.is_empty() || n.contains(['/', '\\']) || n == "." || n == ".." {
            return Err(format!("the result name '{n}' is not a valid file name"));
        }
        let t = output_tensor(v).map_err(|e| format!("result '{n}': {e}"))?;
        write_npy(dir.join(format!("{n}.npy")), &t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_specs() {
        assert_eq!(InputSource::parse("a.npy").unwrap(), InputSource::Npy("a.npy".into()));
        assert_eq!(
            InputSource::parse("npy:data/x").unwrap(),
            InputSource::Npy("data/x".into())
        );
        assert_eq!(InputSource::parse("random:42").unwrap(), InputSource::Random(42));
        assert_eq!(InputSource::parse("random:0x10").unwrap(), InputSource::Random(16));
        assert!(InputSource::parse("random:-1").unwrap_err().contains("unsigned 64-bit"));
        assert_eq!(InputSource::parse("str:a=b").unwrap(), InputSource::Text("a=b".into()));
        assert_eq!(
            InputSource::parse("[1, 2]").unwrap(),
            InputSource::Literal("[1, 2]".into())
        );
        assert!(InputSource::parse("").is_err());
        assert_eq!(
            split_input("x=str:a=b").unwrap(),
            ("x", InputSource::Text("a=b".into()))
        );
        assert!(split_input("x").unwrap_err().contains("NAME=SPEC"));
    }

    fn sig(xcs: &Compiler, src: &str) -> (Module, EntrySignature) {
        let m = xcs.parse(src).unwrap();
        let s = EntrySignature::of(&xcs.ctx, &m, "f").unwrap();
        (m, s)
    }

    #[test]
    fn names_and_literals() {
        let xcs = Compiler::new();
        let (_m, s) = sig(
            &xcs,
            r#"func.func @f(%a: tensor<2xf32> {xcs.name = "x"}, %b: !xcs.str, %c: tensor<2x2xi32>) -> (tensor<2xf32> {xcs.name = "y"}, !xcs.str) {
                 return %a, %b : tensor<2xf32>, !xcs.str
               }"#,
        );
        assert_eq!(s.find_arg("x").unwrap(), 0);
        assert_eq!(s.find_arg("arg0").unwrap(), 0);
        assert_eq!(s.find_arg("1").unwrap(), 1);
        assert!(s.find_arg("z").unwrap_err().contains("arg0 (x), arg1, arg2"));
        assert_eq!(s.result_name(0), "y");
        assert_eq!(s.result_name(1), "result1");
        let ctx = &xcs.ctx;
        let v = make_input(ctx, s.args[0].ty, &InputSource::Literal("1.5".into())).unwrap();
        assert_eq!(v.as_tensor().unwrap(), &Tensor::f32(&[2], &[1.5, 1.5]));
        let v = make_input(ctx, s.args[2].ty, &InputSource::Literal("[[1, 2], [3, 4]]".into())).unwrap();
        assert_eq!(v.as_tensor().unwrap(), &Tensor::i32(&[2, 2], &[1, 2, 3, 4]));
        let v = make_input(ctx, s.args[1].ty, &InputSource::Literal("\"hi\\n\"".into())).unwrap();
        assert_eq!(v.as_str(), Some("hi\n"));
        assert!(make_input(ctx, s.args[1].ty, &InputSource::Literal("hi".into())).is_err());
        assert!(make_input(ctx, s.args[0].ty, &InputSource::Literal("[1.0]".into())).is_err());
        let v = make_input(ctx, s.args[0].ty, &InputSource::Literal("[1, -2.5e1]".into())).unwrap();
        assert_eq!(v.as_tensor().unwrap(), &Tensor::f32(&[2], &[1.0, -25.0]));
        assert_eq!(
            floatify("dense<[[1, -2], [0x7F, 1e3, 2.]]>"),
            "dense<[[1.0, -2.0], [0x7F, 1e3, 2.]]>"
        );
        assert!(make_input(ctx, s.args[0].ty, &InputSource::Text("hi".into()))
            .unwrap_err()
            .contains("'str:' gives"));
        let err = bind_inputs(ctx, &s, &[("x", InputSource::Random(1))]).unwrap_err();
        assert!(
            err.contains("missing input for arguments arg1: !xcs.str, arg2: tensor<2x2xi32>"),
            "{err}"
        );
        let err = bind_inputs(ctx, &s, &[("x", InputSource::Random(1)), ("0", InputSource::Random(2))]).unwrap_err();
        assert!(err.contains("already has a value (from --input x)"), "{err}");
    }

    #[test]
    fn missing_entry() {
        let xcs = Compiler::new();
        let m = xcs.parse("func.func @g() { return }\nfunc.func private @d()").unwrap();
        let e = EntrySignature::of(&xcs.ctx, &m, "main").unwrap_err();
        assert!(e.contains("no function @main in the module (it has @d, @g)"), "{e}");
        let e = EntrySignature::of(&xcs.ctx, &m, "d").unwrap_err();
        assert!(e.contains("external declaration"), "{e}");
    }
}
