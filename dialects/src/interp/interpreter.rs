//! The interpreter engine ([`Interpreter`]): finds the module's functions (`FunctionLike` ops by
//! `sym_name`), runs their regions block by block and dispatches every op through its
//! [`Semantics`] interface, following the [`Control`] each op answers (next op, branch,
//! return). Calls nest up to a depth limit on a large, growing native stack.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use xcs_ir::opdef::Traits;
use xcs_ir::{Attr, Block, Body, Context, Location, Module, Op, Type};

use super::devices::Communicator;
use super::error::InterpError;
use super::frame::Frame;
use super::provider::{LlmProvider, ProviderRegistry};
use super::semantics::{Control, Engine, FunctionCall, OpRun, RegionRun, Semantics};
use super::value::RtValue;

/// Default maximum depth of nested `func.call`s.
pub const DEFAULT_MAX_CALL_DEPTH: usize = 512;
/// Native stack of the thread a call runs on and of `xcs.parallel_map` workers. Deeper
/// nesting (calls, regions) grows the stack on demand (`stacker`), so no program overflows it;
/// the call depth limit is the only limit.
const THREAD_STACK: usize = 16 << 20;
/// `run_region` grows the stack by `STACK_SEGMENT` when less than `STACK_RED_ZONE` is left
/// (one call level takes 8-16 KiB in a debug build).
const STACK_RED_ZONE: usize = 1 << 20;
const STACK_SEGMENT: usize = 16 << 20;

/// A host implementation of an external function (a `func.func` declaration without a body),
/// e.g. a stub for `@openai.chat.completions.create`. Gets the arguments, returns the results
/// (checked against the declaration's type); an `Err` becomes a run-time error of the call.
pub type ExternalFn = Arc<dyn Fn(&[RtValue]) -> Result<Vec<RtValue>, String> + Send + Sync>;

/// Runs functions of one module. Cheap to create; `Sync`, so one interpreter can run calls
/// from several threads.
pub struct Interpreter<'a> {
    ctx: &'a Context,
    module: &'a Module,
    functions: FxHashMap<String, Op>,
    /// Every symbol of the module (`sym_name` of its top-level ops), e.g. `shard.grid`s.
    symbols: FxHashMap<String, Op>,
    /// The device this interpreter runs as, in an SPMD run (`shard` collectives use it).
    device: Option<&'a dyn Communicator>,
    providers: ProviderRegistry,
    externals: FxHashMap<String, ExternalFn>,
    max_call_depth: usize,
    op_limit: Option<u64>,
    ops_run: AtomicU64,
}

/// The `(inputs, results)` of a `function_type` attribute.
fn function_signature(ctx: &Context, function_type: Attr) -> Option<(Vec<Type>, Vec<Type>)> {
    let (inputs, results) = ctx.function_signature(ctx.as_type(function_type)?)?;
    Some((inputs.to_vec(), results.to_vec()))
}

impl<'a> Interpreter<'a> {
    /// An interpreter for `module` with the built-in providers (`echo`). Its functions are the
    /// `FunctionLike` ops of the module, by `sym_name`.
    pub fn new(ctx: &'a Context, module: &'a Module) -> Self {
        let mut functions = FxHashMap::default();
        let mut symbols = FxHashMap::default();
        for op in module.ops() {
            let Some(name) = module.body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) else {
                continue;
            };
            symbols.entry(name.to_string()).or_insert(op);
            if ctx
                .op_def(module.body.op_name(op))
                .is_some_and(|d| d.has(Traits::FunctionLike))
            {
                functions.entry(name.to_string()).or_insert(op);
            }
        }
        Interpreter {
            ctx,
            module,
            functions,
            symbols,
            device: None,
            providers: ProviderRegistry::default(),
            externals: FxHashMap::default(),
            max_call_depth: DEFAULT_MAX_CALL_DEPTH,
            op_limit: None,
            ops_run: AtomicU64::new(0),
        }
    }
    /// Replaces the provider registry.
    pub fn with_providers(mut self, providers: ProviderRegistry) -> Self {
        self.providers = providers;
        self
    }
    /// Adds (or replaces) one provider.
    pub fn with_provider(mut self, name: &str, provider: Arc<dyn LlmProvider>) -> Self {
        self.providers.register(name, provider);
        self
    }
    /// Implements the external function `name` (a declaration without a body) on the host.
    pub fn with_external(mut self, name: &str, f: ExternalFn) -> Self {
        self.externals.insert(name.to_string(), f);
        self
    }
    /// Runs as one device of a device grid: the `shard` collectives communicate through
    /// `device` (see [`super::devices`]; [`super::spmd::run_spmd`] runs a function on every
    /// device of a grid). Without a device, a collective over a group of one device is local
    /// and a larger group is a run-time error.
    pub fn with_device(mut self, device: &'a dyn Communicator) -> Self {
        self.device = Some(device);
        self
    }
    /// The maximum depth of nested calls (deeper is a run-time error, not a stack overflow).
    pub fn with_max_call_depth(mut self, depth: usize) -> Self {
        self.max_call_depth = depth;
        self
    }
    /// Stops with an error after `n` executed ops (for running untrusted or generated programs
    /// that may loop forever). The count restarts at every [`Interpreter::call`]; calls running
    /// at the same time on one interpreter share it.
    pub fn with_op_limit(mut self, n: u64) -> Self {
        self.op_limit = Some(n);
        self
    }
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }
    pub fn providers(&self) -> &ProviderRegistry {
        &self.providers
    }
    /// Names of the functions the module defines or declares.
    pub fn function_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.functions.keys().map(|s| s.as_str()).collect();
        v.sort();
        v
    }
    /// The argument and result types of function `name`.
    pub fn signature(&self, name: &str) -> Option<(Vec<Type>, Vec<Type>)> {
        let op = *self.functions.get(name)?;
        function_signature(self.ctx, self.module.body.attr(self.ctx, op, "function_type")?)
    }

    /// Calls function `name` with `args` and returns its results. Runs on a thread with a large
    /// stack; a panic inside (an interpreter bug) becomes an error too.
    pub fn call(&self, name: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        self.ops_run.store(0, Ordering::Relaxed);
        std::thread::scope(|s| {
            let spawned = std::thread::Builder::new()
                .name("xcs-interp".into())
                .stack_size(THREAD_STACK)
                .spawn_scoped(s, || self.call_function(FunctionCall { name, depth: 0, site: None }, args));
            match spawned {
                Ok(h) => h.join().unwrap_or_else(|_| {
                    Err(InterpError::new(
                        Location::UNKNOWN,
                        "the interpreter panicked (this is a bug)",
                    ))
                }),
                Err(e) => Err(InterpError::new(
                    Location::UNKNOWN,
                    format!("cannot start the interpreter thread: {e}"),
                )),
            }
        })
    }

    /// Runs the body `fop` of the function `call` calls (or its host implementation) on checked
    /// arguments.
    fn run_function_body(
        &self,
        call: FunctionCall<'_>,
        fop: Op,
        args: Vec<RtValue>,
    ) -> Result<(Vec<RtValue>, Location), InterpError> {
        let FunctionCall { name, depth, site } = call;
        let err = |m: String| call.error(self.ctx, m);
        let fbody = self
            .module
            .body
            .nested(fop)
            .ok_or_else(|| err(format!("@{name} has no body")))?;
        let region = fbody.root_regions().first().copied();
        let out = match region.filter(|&r| !fbody.region_is_empty(r)) {
            Some(region) => {
                let run = RegionRun { body: fbody, region, parent: None, depth, owner_loc: fbody.loc() };
                self.run_region(run, args).map_err(|e| match site {
                    Some((b, op)) => e.with_note(b.op_loc(op), format!("called from here (@{name})")),
                    None => e,
                })?
            }
            None => match self.externals.get(name) {
                Some(f) => f(&args).map_err(|e| err(format!("external function @{name} failed: {e}")))?,
                None => {
                    return Err(err(format!(
                        "@{name} is an external declaration without a body; the interpreter cannot call it (give it a host implementation with Interpreter::with_external)"
                    )))
                }
            },
        };
        Ok((out, fbody.loc()))
    }

    /// Runs `region` (see [`Engine::run_region`]) on the current stack.
    fn run_region_here(&self, region: RegionRun<'_>, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        let RegionRun { body, region, parent, depth, owner_loc } = region;
        let Some(mut block) = body.entry_block(region) else {
            return Err(InterpError::new(owner_loc, "cannot run an empty region"));
        };
        let mut frame = Frame::new(parent);
        let mut args = args;
        loop {
            let params = body.block_args(block);
            if params.len() != args.len() {
                return Err(InterpError::new(
                    owner_loc,
                    format!(
                        "a block takes {} arguments, but {} values were passed",
                        params.len(),
                        args.len()
                    ),
                ));
            }
            for (&p, a) in params.iter().zip(args.drain(..)) {
                frame.set(p, a);
            }
            match self.run_block(body, block, &mut frame, depth)? {
                Some(Control::Branch(next, next_args)) => {
                    block = next;
                    args = next_args;
                }
                Some(Control::Return(values)) => return Ok(values),
                Some(Control::Values(_)) | None => {
                    return Err(InterpError::new(owner_loc, "a block ends without a terminator"))
                }
            }
        }
    }

    /// Runs the ops of `block` until one transfers control (a branch or a return), which is
    /// returned; `None` if the block ends without one.
    fn run_block(
        &self,
        body: &Body,
        block: Block,
        frame: &mut Frame<'_>,
        depth: usize,
    ) -> Result<Option<Control>, InterpError> {
        for op in body.block_ops(block) {
            self.count_op(body, op)?;
            match self.exec_op(body, op, frame, depth)? {
                Control::Values(results) => {
                    for (r, v) in body.results(op).zip(results) {
                        frame.set(r, v);
                    }
                }
                transfer => return Ok(Some(transfer)),
            }
        }
        Ok(None)
    }

    /// Runs one op through its [`Semantics`] (a `ReturnLike` op without one returns its
    /// operands) and checks the results it produces against the declared types.
    fn exec_op(&self, body: &Body, op: Op, frame: &Frame<'_>, depth: usize) -> Result<Control, InterpError> {
        let ctx = self.ctx;
        let name = body.op_name(op);
        let operands = self.operand_values(body, op, frame)?;
        let control = match ctx.interface::<dyn Semantics>(name) {
            Some(semantics) => semantics.exec(&OpRun::new(self, ctx, body, op, operands, frame, depth))?,
            None if ctx.op_def(name).is_some_and(|d| d.has(Traits::ReturnLike)) => {
                Control::Return(operands.into_iter().cloned().collect())
            }
            None => return Err(InterpError::op(ctx, body, op, "is not supported by the interpreter")),
        };
        if let Control::Values(results) = &control {
            let err = |m: String| InterpError::op(ctx, body, op, m);
            if results.len() != body.num_results(op) {
                return Err(err(format!(
                    "produced {} values for {} results",
                    results.len(),
                    body.num_results(op)
                )));
            }
            for (i, (v, t)) in results.iter().zip(body.result_types(op)).enumerate() {
                v.check_type(ctx, t)
                    .map_err(|e| err(format!("result #{i}: produced {e}")))?;
            }
        }
        Ok(control)
    }

    fn count_op(&self, body: &Body, op: Op) -> Result<(), InterpError> {
        if let Some(limit) = self.op_limit {
            if self.ops_run.fetch_add(1, Ordering::Relaxed) >= limit {
                return Err(InterpError::op(
                    self.ctx,
                    body,
                    op,
                    format!("operation limit of {limit} exceeded"),
                ));
            }
        }
        Ok(())
    }

    fn operand_values<'f>(&self, body: &Body, op: Op, frame: &'f Frame<'_>) -> Result<Vec<&'f RtValue>, InterpError> {
        body.operands(op)
            .enumerate()
            .map(|(i, v)| {
                frame.get(v).ok_or_else(|| {
                    InterpError::op(
                        self.ctx,
                        body,
                        op,
                        format!("operand #{i} has no value (used before it is defined)"),
                    )
                })
            })
            .collect()
    }
}

impl Engine for Interpreter<'_> {
    /// Makes `call`, checking the arguments and results against the callee's type; errors of
    /// the call itself are reported at its site.
    fn call_function(&self, call: FunctionCall<'_>, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        let ctx = self.ctx;
        let (name, depth) = (call.name, call.depth);
        let err = |m: String| call.error(ctx, m);
        if depth > self.max_call_depth {
            return Err(err(format!(
                "call depth limit of {} exceeded calling @{name} (unbounded recursion?)",
                self.max_call_depth
            )));
        }
        let Some(&fop) = self.functions.get(name) else {
            return Err(err(format!("calls @{name}, which is not a function of the module")));
        };
        let (inputs, results) = self
            .signature(name)
            .ok_or_else(|| err(format!("@{name} has no valid function_type")))?;
        if args.len() != inputs.len() {
            return Err(err(format!(
                "@{name} takes {} arguments, but {} were given",
                inputs.len(),
                args.len()
            )));
        }
        for (i, (a, &t)) in args.iter().zip(&inputs).enumerate() {
            a.check_type(ctx, t)
                .map_err(|e| err(format!("argument #{i} of @{name}: {e}")))?;
        }
        let (out, loc) = self.run_function_body(call, fop, args)?;
        if out.len() != results.len() {
            return Err(InterpError::new(
                loc,
                format!(
                    "@{name} returned {} values, but its type has {}",
                    out.len(),
                    results.len()
                ),
            ));
        }
        for (i, (v, &t)) in out.iter().zip(&results).enumerate() {
            v.check_type(ctx, t)
                .map_err(|e| InterpError::new(loc, format!("result #{i} of @{name}: returned {e}")))?;
        }
        Ok(out)
    }

    /// Runs `region` of `body` from its entry block with `args` until a return, following
    /// branches, on a stack grown on demand.
    fn run_region(&self, region: RegionRun<'_>, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.run_region_here(region, args))
    }

    fn providers(&self) -> &ProviderRegistry {
        &self.providers
    }

    fn symbol(&self, name: &str) -> Option<(&Body, Op)> {
        self.symbols.get(name).map(|&op| (&self.module.body, op))
    }

    fn device(&self) -> Option<&dyn Communicator> {
        self.device
    }

    fn thread_stack_size(&self) -> usize {
        THREAD_STACK
    }
}
