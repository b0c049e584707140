//! [`PassManager`]: runs an [`OpPassManager`] tree over a module. Nested managers run on the
//! matching isolated-from-above ops directly inside their parent (MLIR's
//! `OpToOpPassAdaptor`), in parallel with rayon unless threading is off; each op's
//! diagnostics and IR dumps are buffered and emitted in op order, so output is the same with
//! any number of threads. Instrumentation: IR dumps before/after passes, `--mlir-timing`,
//! verification after each pass.

use std::io::Write;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::instrument::{write_dump, DumpWhen, TimingNode};
use super::pipeline::{OpPassManager, PassEntry, PipelineElement, PipelineError};
use super::registry::PassRegistry;
use crate::body::Body;
use crate::context::Context;
use crate::diag::{DiagSink, Diagnostic};
use crate::module::Module;
use crate::opdef::{SymbolInfo, SymbolLookup, Traits};
use crate::printer::PrintOptions;

/// Prints the isolated op owning a body for IR dumps (default
/// [`crate::printer::print_isolated`]).
pub type PrintIrFn = fn(&Context, &Body, &PrintOptions) -> String;
/// Prints the top-level module for IR dumps of module passes (default
/// [`crate::printer::print_module`]: with its aliases and trailing newline, as mlir-opt).
pub type PrintModuleFn = fn(&Context, &Module, &PrintOptions) -> String;
/// Verifies a whole module (default [`crate::verifier::verify_module`]).
pub type VerifyModuleFn = fn(&Context, &Module, bool) -> Result<(), Vec<Diagnostic>>;
/// Verifies one isolated op's body (default [`crate::verifier::verify_isolated`]).
/// The last argument says whether it may use threads (`--mlir-disable-threading` clears it).
pub type VerifyIsolatedFn = fn(&Context, &Body, &dyn SymbolLookup, bool) -> Result<(), Vec<Diagnostic>>;

/// How a [`PassManager`] runs: mlir-opt's pass-manager flags.
#[derive(Clone)]
pub struct PassManagerOptions {
    /// Run nested pipelines in parallel (off with `--mlir-disable-threading`).
    pub threading: bool,
    /// Verify after each pass (`--verify-each`, default on).
    pub verify_each: bool,
    /// `--mlir-print-ir-before=<arg>` (repeatable).
    pub print_before: Vec<String>,
    /// `--mlir-print-ir-after=<arg>` (repeatable).
    pub print_after: Vec<String>,
    pub print_before_all: bool,
    pub print_after_all: bool,
    /// Only dump after a pass that changed the IR (with `print_after*`).
    pub print_after_change: bool,
    /// Dump only after a pass that failed (`... After X Failed ...`).
    pub print_after_failure: bool,
    /// Collect per-pass wall times (`--mlir-timing`).
    pub timing: bool,
    /// Printer settings for IR dumps.
    pub print_options: PrintOptions,
    pub printer: PrintIrFn,
    /// Prints the top-level op (`None`: `printer` prints it too).
    pub module_printer: Option<PrintModuleFn>,
    pub verify_module: VerifyModuleFn,
    pub verify_isolated: VerifyIsolatedFn,
}

impl Default for PassManagerOptions {
    fn default() -> Self {
        PassManagerOptions {
            threading: true,
            verify_each: true,
            print_before: Vec::new(),
            print_after: Vec::new(),
            print_before_all: false,
            print_after_all: false,
            print_after_change: false,
            print_after_failure: false,
            timing: false,
            print_options: PrintOptions::default(),
            printer: crate::printer::print_isolated,
            module_printer: Some(crate::printer::print_module),
            verify_module: crate::verifier::verify_module,
            verify_isolated: crate::verifier::verify_isolated,
        }
    }
}

impl PassManagerOptions {
    /// Checks that `print_before`/`print_after` name registered passes, with LLVM's message
    /// (`for the --mlir-print-ir-after option: Cannot find option named 'x'!`).
    pub fn validate(&self, registry: &PassRegistry) -> Result<(), String> {
        for (flag, list) in [("before", &self.print_before), ("after", &self.print_after)] {
            for a in list {
                if registry.pass(a).is_none() {
                    return Err(format!(
                        "for the --mlir-print-ir-{flag} option: Cannot find option named '{a}'!"
                    ));
                }
            }
        }
        Ok(())
    }
    fn dump_before(&self, arg: &str) -> bool {
        self.print_before_all || self.print_before.iter().any(|a| a == arg)
    }
    fn dump_after(&self, arg: &str) -> bool {
        self.print_after_all || self.print_after_failure || self.print_after.iter().any(|a| a == arg)
    }
}

/// Symbols visible from inside an isolated op: the nearest enclosing symbol table's symbols
/// (MLIR resolves flat references in the nearest symbol table only). Built before a nested
/// pipeline runs, shared read-only by the parallel workers.
pub struct SymbolScope<'a> {
    table: Option<FxHashMap<String, SymbolInfo>>,
    parent: Option<&'a SymbolScope<'a>>,
}

impl<'a> SymbolScope<'a> {
    /// No symbols.
    pub fn empty() -> SymbolScope<'static> {
        SymbolScope {
            table: None,
            parent: None,
        }
    }
    /// The scope for ops nested in `body`: `body`'s own symbols if its op is a symbol table,
    /// else `parent`'s scope.
    pub fn for_children(ctx: &Context, body: &Body, parent: &'a SymbolScope<'a>) -> SymbolScope<'a> {
        let is_table = ctx.op_def(body.name()).is_some_and(|d| d.has(Traits::SymbolTable));
        if !is_table {
            return SymbolScope {
                table: None,
                parent: Some(parent),
            };
        }
        let mut table = FxHashMap::default();
        for op in body.top_ops() {
            if let Some(name) = body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) {
                table.entry(name.to_string()).or_insert(SymbolInfo {
                    op_name: body.op_name(op),
                    attrs: body.attrs(op),
                    loc: body.op_loc(op),
                });
            }
        }
        SymbolScope {
            table: Some(table),
            parent: None,
        }
    }
}

impl SymbolLookup for SymbolScope<'_> {
    fn lookup(&self, name: &str) -> Option<SymbolInfo> {
        match (&self.table, self.parent) {
            (Some(t), _) => t.get(name).copied(),
            (None, Some(p)) => p.lookup(name),
            (None, None) => None,
        }
    }
}

/// A pipeline and the options to run it with.
pub struct PassManager {
    pub root: OpPassManager,
    pub options: PassManagerOptions,
}

/// Buffered output of running a pipeline on one op.
#[derive(Default)]
struct OpOut {
    diags: Vec<Diagnostic>,
    dump: String,
}

/// Accumulated wall time of one pipeline element, summed over the ops it ran on (a nested
/// pipeline: the wall time of each run over its ops, parallel or not).
#[derive(Clone)]
enum ElemTime {
    Pass(Duration),
    Nested(Duration, Vec<ElemTime>),
}

fn empty_times(m: &OpPassManager) -> Vec<ElemTime> {
    m.elements()
        .iter()
        .map(|e| match e {
            PipelineElement::Pass(_) => ElemTime::Pass(Duration::ZERO),
            PipelineElement::Nested(n) => ElemTime::Nested(Duration::ZERO, empty_times(n)),
        })
        .collect()
}

fn merge_times(into: &mut [ElemTime], from: &[ElemTime]) {
    for (a, b) in into.iter_mut().zip(from) {
        match (a, b) {
            (ElemTime::Pass(x), ElemTime::Pass(y)) => *x += *y,
            (ElemTime::Nested(x, xs), ElemTime::Nested(y, ys)) => {
                *x += *y;
                merge_times(xs, ys);
            }
            _ => {}
        }
    }
}

fn time_nodes(m: &OpPassManager, times: &[ElemTime]) -> Vec<TimingNode> {
    m.elements()
        .iter()
        .zip(times)
        .map(|(e, t)| match (e, t) {
            (PipelineElement::Pass(p), ElemTime::Pass(d)) => TimingNode::new(p.pass.name(), *d),
            (PipelineElement::Nested(n), ElemTime::Nested(d, sub)) => {
                let mut node = TimingNode::new(format!("'{}' Pipeline", n.anchor()), *d);
                node.children = time_nodes(n, sub);
                node
            }
            _ => TimingNode::new("?", Duration::ZERO),
        })
        .collect()
}

impl PassManager {
    /// An empty pipeline anchored on `builtin.module`.
    pub fn new() -> Self {
        PassManager {
            root: OpPassManager::new(crate::builtin::ModuleOp::DEF.name),
            options: PassManagerOptions::default(),
        }
    }
    /// Parses `--pass-pipeline` text (`builtin.module(func.func(cse),symbol-dce)`).
    pub fn parse(pipeline: &str, registry: &PassRegistry) -> Result<Self, PipelineError> {
        Ok(PassManager {
            root: OpPassManager::parse(pipeline, registry)?,
            options: PassManagerOptions::default(),
        })
    }
    /// A pipeline from per-pass flags (`--cse --canonicalize=max-iterations=3`): each
    /// `(argument, options)` runs on the top-level module, in order.
    pub fn from_pass_flags(flags: &[(&str, &str)], registry: &PassRegistry) -> Result<Self, PipelineError> {
        let mut root = OpPassManager::new(crate::builtin::ModuleOp::DEF.name);
        for &(arg, opts) in flags {
            if registry.pipeline(arg).is_some() {
                root.parse_elements(arg, registry)?;
                continue;
            }
            root.add_registered(registry, arg, opts)
                .map_err(|message| PipelineError {
                    message,
                    offset: None,
                    pipeline: arg.to_string(),
                })?;
        }
        Ok(PassManager {
            root,
            options: PassManagerOptions::default(),
        })
    }

    /// The `--dump-pass-pipeline` text: `Pass Manager with N passes:`, the pretty pipeline
    /// with every option's value, and a blank line.
    pub fn dump_pipeline(&self) -> String {
        format!(
            "Pass Manager with {} passes:\n{}\n\n",
            self.root.len(),
            self.root.to_text(true)
        )
    }

    /// Runs the pipeline on `module`; IR dumps go to stderr, diagnostics to `sink`. With
    /// `options.timing`, prints a timing report of the passes to stderr.
    #[allow(clippy::result_unit_err)]
    pub fn run(&self, ctx: &Context, module: &mut Module, sink: &mut dyn DiagSink) -> Result<(), ()> {
        let mut err = std::io::stderr();
        let mut timing = Vec::new();
        let start = Instant::now();
        let r = self.run_with(ctx, module, sink, &mut err, Some(&mut timing));
        if self.options.timing {
            let _ = err.write_all(super::render_timing_report(&timing, start.elapsed()).as_bytes());
        }
        r
    }

    /// Runs the pipeline on `module`, writing IR dumps to `ir_out` and, when `timing` is given
    /// and `options.timing` is set, pushing the per-pass timing tree (to be framed by the
    /// driver's `Parser`/`Output` lines and rendered with
    /// [`render_timing_report`](super::render_timing_report)).
    #[allow(clippy::result_unit_err)]
    pub fn run_with(
        &self,
        ctx: &Context,
        module: &mut Module,
        sink: &mut dyn DiagSink,
        ir_out: &mut dyn Write,
        timing: Option<&mut Vec<TimingNode>>,
    ) -> Result<(), ()> {
        let top_name = ctx.op_name_str(module.body.name()).to_string();
        if !self.root.is_any() && self.root.anchor() != top_name {
            sink.emit(Diagnostic::error(
                module.body.loc(),
                format!("can't run '{}' pass manager on '{top_name}' op", self.root.anchor()),
            ));
            return Err(());
        }
        let runner = Runner {
            ctx,
            opts: &self.options,
        };
        let mut times = empty_times(&self.root);
        let scope = SymbolScope::empty();
        let mut flush = |out: &mut OpOut| {
            for d in out.diags.drain(..) {
                sink.emit(d);
            }
            if !out.dump.is_empty() {
                let _ = ir_out.write_all(out.dump.as_bytes());
                let _ = ir_out.flush();
                out.dump.clear();
            }
        };
        let mut out = OpOut::default();
        let r = runner.run_mgr(
            &self.root,
            &mut module.body,
            &scope,
            true,
            &mut out,
            &mut times,
            Some(&mut flush),
        );
        flush(&mut out);
        if self.options.timing {
            if let Some(t) = timing {
                t.extend(time_nodes(&self.root, &times));
            }
        }
        r
    }
}

impl Default for PassManager {
    fn default() -> Self {
        Self::new()
    }
}

struct Runner<'a> {
    ctx: &'a Context,
    opts: &'a PassManagerOptions,
}

impl Runner<'_> {
    #[allow(clippy::too_many_arguments)]
    fn run_mgr(
        &self,
        mgr: &OpPassManager,
        body: &mut Body,
        scope: &SymbolScope<'_>,
        top: bool,
        out: &mut OpOut,
        times: &mut [ElemTime],
        mut flush: Option<&mut dyn FnMut(&mut OpOut)>,
    ) -> Result<(), ()> {
        for (e, t) in mgr.elements().iter().zip(times.iter_mut()) {
            let r = match (e, t) {
                (PipelineElement::Pass(p), ElemTime::Pass(d)) => self.run_pass(p, body, scope, top, out, d),
                (PipelineElement::Nested(m), ElemTime::Nested(d, sub)) => self.run_nested(m, body, scope, out, d, sub),
                _ => Ok(()),
            };
            if let Some(f) = flush.as_deref_mut() {
                f(out);
            }
            r?;
        }
        Ok(())
    }

    fn print(&self, body: &mut Body, top: bool) -> String {
        match self.opts.module_printer {
            Some(print) if top => self.with_module(body, |m| print(self.ctx, m, &self.opts.print_options)),
            _ => (self.opts.printer)(self.ctx, body, &self.opts.print_options),
        }
    }

    /// Lends `body` (the top-level module's) to `f` as a [`Module`].
    fn with_module<R>(&self, body: &mut Body, f: impl FnOnce(&Module) -> R) -> R {
        let placeholder = Body::new(self.ctx, body.name(), body.loc());
        let m = Module { body: std::mem::replace(body, placeholder), external_resources: Default::default() };
        let r = f(&m);
        *body = m.body;
        r
    }

    fn run_pass(
        &self,
        p: &PassEntry,
        body: &mut Body,
        scope: &SymbolScope<'_>,
        top: bool,
        out: &mut OpOut,
        time: &mut Duration,
    ) -> Result<(), ()> {
        let (name, arg) = (p.pass.name(), p.pass.argument());
        if self.opts.dump_before(arg) {
            let ir = self.print(body, top);
            write_dump(&mut out.dump, DumpWhen::Before, name, arg, &ir);
        }
        let start = Instant::now();
        let result = p.pass.run(self.ctx, body, &mut out.diags);
        *time += start.elapsed();
        let mut failed = result.is_err();
        if !failed && self.opts.verify_each {
            if let Err(mut diags) = self.verify(body, scope, top) {
                if let Some(first) = diags.first_mut() {
                    first.notes.push(Diagnostic::new(
                        crate::diag::Severity::Note,
                        body.loc(),
                        format!("the IR is invalid after running pass '{name}' ({arg})"),
                    ));
                }
                if diags.is_empty() {
                    diags.push(Diagnostic::error(
                        body.loc(),
                        format!("verification failed after running pass '{name}' ({arg})"),
                    ));
                }
                out.diags.extend(diags);
                failed = true;
            }
        }
        if failed {
            if self.opts.dump_after(arg) {
                let ir = self.print(body, top);
                write_dump(&mut out.dump, DumpWhen::AfterFailed, name, arg, &ir);
            }
            return Err(());
        }
        let changed = result.map(|r| r.changed()).unwrap_or(true);
        if !self.opts.print_after_failure && self.opts.dump_after(arg) && (changed || !self.opts.print_after_change) {
            let ir = self.print(body, top);
            write_dump(&mut out.dump, DumpWhen::After, name, arg, &ir);
        }
        Ok(())
    }

    fn verify(&self, body: &mut Body, scope: &SymbolScope<'_>, top: bool) -> Result<(), Vec<Diagnostic>> {
        if !top {
            return (self.opts.verify_isolated)(self.ctx, body, scope, self.opts.threading);
        }
        // The module verifier takes a `Module`: lend it the body for the call.
        self.with_module(body, |m| (self.opts.verify_module)(self.ctx, m, self.opts.threading))
    }

    fn run_nested(
        &self,
        m: &OpPassManager,
        body: &mut Body,
        scope: &SymbolScope<'_>,
        out: &mut OpOut,
        total: &mut Duration,
        times: &mut [ElemTime],
    ) -> Result<(), ()> {
        // The pipeline's row is the wall time of this call: with threads, its ops run at the
        // same time, and the rows of its passes (summed over the ops) may add up to more.
        let start = Instant::now();
        let ops = match m.matching_ops(self.ctx, body) {
            Ok(ops) => ops,
            Err(d) => {
                out.diags.push(d);
                return Err(());
            }
        };
        if ops.is_empty() {
            return Ok(());
        }
        // the symbol summary is only needed to verify the nested ops
        let child_scope = if self.opts.verify_each {
            SymbolScope::for_children(self.ctx, body, scope)
        } else {
            SymbolScope {
                table: None,
                parent: None,
            }
        };
        let mut bodies = body.nested_many_mut(&ops);
        let run_one = |b: &mut Body| {
            let mut o = OpOut::default();
            let mut t = empty_times(m);
            let r = self.run_mgr(m, b, &child_scope, false, &mut o, &mut t, None);
            (r, o, t)
        };
        let results: Vec<_> = if self.opts.threading && bodies.len() > 1 {
            bodies.par_iter_mut().map(|(_, b)| run_one(b)).collect()
        } else {
            bodies.iter_mut().map(|(_, b)| run_one(b)).collect()
        };
        let mut ok = true;
        for (r, o, t) in results {
            ok &= r.is_ok();
            out.diags.extend(o.diags);
            out.dump.push_str(&o.dump);
            merge_times(times, &t);
        }
        *total += start.elapsed();
        if ok {
            Ok(())
        } else {
            Err(())
        }
    }
}
