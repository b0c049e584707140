//! The reference interpreter: runs `func.func` bodies of an in-memory [`Module`] on runtime
//! values. It is the oracle for every pass and for code generation, so it is written to be
//! obviously right rather than fast: straight-line ops, `cf.br`/`cf.cond_br` between blocks,
//! `func.call` (recursion up to a depth limit), every `tensor` op, the `xcs` ops (`xcs.llm`
//! through an [`LlmProvider`], `xcs.vmap`, `xcs.parallel_map` on a thread pool) and the `test`
//! dialect's integer ops. Every run-time error is an [`InterpError`] located at the op.
//!
//! Entry points: [`run_function`], [`Interpreter::call`], [`eval_tensor_op`] (one op on
//! constants, for folding); values: [`RtValue`], [`Tensor`];
//! files: [`read_npy`], [`write_npy`]; inputs: [`random_input`].
//!
//! # Semantics (numpy's unless said otherwise)
//! - Broadcasting is numpy's; shapes of `?` dims come from the values and are checked when an
//!   op runs. Every op's results are checked against its declared result types, and function
//!   arguments and results against the function type.
//! - Elementwise float ops compute in f32 for f16, bf16 and f32 (f16/bf16 results rounded to
//!   nearest-even, as numpy does for float16) and in f64 for f64; IEEE throughout (`x/0` is
//!   `inf`/`nan`, `max`/`min` propagate NaN and order -0.0 below +0.0, as IEEE 754-2019
//!   `maximum`/`minimum` and LLVM's `llvm.maximum` do, so they are commutative; numpy returns the
//!   first operand of -0.0 and +0.0). Reductions, `softmax`, `layer_norm` (two-pass,
//!   epsilon inside the square root), `matmul` and `einsum` accumulate floats in f64 and round
//!   once, so compare other implementations with a tolerance.
//! - Integers wrap (two's complement). `tensor.div` truncates toward zero (C, LLVM `sdiv`,
//!   StableHLO — not numpy's floor division); division by zero and `pow` with a negative integer
//!   exponent are run-time errors; integer `mean` is the exact sum divided by the count,
//!   truncated toward zero; `max`/`min` of an empty axis is an error.
//! - `tensor.cast`: float to int truncates toward zero and saturates (NaN -> 0); int to int
//!   wraps; number to i1 is `!= 0`; i1 to number is 0/1 (see [`TensorData::cast`]).
//! - `tensor.gather` indices must be in `[0, size)`; `tensor.reshape` infers one `?` result dim;
//!   `tensor.broadcast_to` takes a `?` result dim from the operand.
//! - `xcs.format` prints tensors as numpy's `str()` (see [`mod@format`]); `xcs.llm` calls the
//!   provider named by `provider` (built-in: `echo`, which returns the prompt unchanged);
//!   `xcs.vmap`/`xcs.parallel_map` slice batched operands, run the region per element (in order,
//!   or on a pool of `max_concurrency` threads) and stack the results (see `xcs_ops`).
//! - Calls nest up to [`DEFAULT_MAX_CALL_DEPTH`] (configurable); the native stack grows on
//!   demand, so deep recursion is an error, never a crash. [`Interpreter::with_op_limit`] bounds
//!   the ops one call may run.

pub mod format;
pub mod npy;
pub mod provider;
pub mod random;
pub mod semantics;
mod tensor_ops;
pub mod value;
mod xcs_ops;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use xcs_ir::{Body, Context, Diagnostic, Location, Module, Op, Region, Type, Value};

pub use npy::{read_npy, read_npy_bytes, write_npy, write_npy_bytes};
pub use provider::{EchoProvider, LlmProvider, ProviderRegistry};
pub use random::{random_input, random_tensor};
pub use value::{splat_from_attr, splat_to_attr, tensor_from_attr, tensor_to_attr, AnyValue, ElemType, RtValue, Scalar, Tensor, TensorData};

/// A run-time error: where it happened (the op's location), the message (`'tensor.div' op
/// integer division by zero`, worded as MLIR words op errors) and notes (call sites, batch
/// elements) from the innermost outwards.
#[derive(Clone, Debug)]
pub struct InterpError {
    pub loc: Location,
    pub message: String,
    pub notes: Vec<(Location, String)>,
}

impl InterpError {
    pub fn new(loc: Location, message: impl Into<String>) -> Self {
        InterpError { loc, message: message.into(), notes: Vec::new() }
    }
    /// An error of op `op`: `'name' op <message>` at the op's location.
    pub fn op(ctx: &Context, body: &Body, op: Op, message: impl AsRef<str>) -> Self {
        let name = ctx.op_name_str(body.op_name(op));
        InterpError::new(body.op_loc(op), format!("'{name}' op {}", message.as_ref()))
    }
    /// Adds a note (at most a few, so deep recursion does not produce thousands).
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Self {
        if self.notes.len() < 8 {
            self.notes.push((loc, message.into()));
        }
        self
    }
    /// The error as a diagnostic, for rendering with the source line.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.loc, self.message.clone());
        for (loc, m) in &self.notes {
            d = d.with_note(*loc, m.clone());
        }
        d
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for (_, n) in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InterpError {}

/// Runs function `name` of `module` on `inputs` with the default settings (built-in providers).
pub fn run_function(ctx: &Context, module: &Module, name: &str, inputs: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
    Interpreter::new(ctx, module).call(name, inputs)
}

/// Evaluates one `tensor` op (any but `tensor.fused`) on constant operands, exactly as the
/// interpreter runs it: `attrs` is the op's attribute dictionary and `result_types` its declared
/// result types, which the results are checked against. This is the constant folders' entry
/// point (`tensor_fold`), so a folded constant is bit-for-bit what the program would compute;
/// any run-time error (integer division by zero, an out-of-range gather index, ...) is an `Err`
/// and the op is left alone.
pub fn eval_tensor_op(
    ctx: &Context,
    name: &str,
    attrs: xcs_ir::Attr,
    result_types: &[Type],
    operands: Vec<Tensor>,
) -> Result<Vec<Tensor>, String> {
    if name == "tensor.fused" || !name.starts_with("tensor.") {
        return Err(format!("'{name}' cannot be evaluated on its own"));
    }
    let args: Vec<RtValue> = operands.into_iter().map(RtValue::Tensor).collect();
    let refs: Vec<&RtValue> = args.iter().collect();
    let info = tensor_ops::OpInfo { ctx, attrs, result_types: result_types.to_vec() };
    let results = tensor_ops::exec(name, &info, &refs)?;
    if results.len() != result_types.len() {
        return Err(format!("produced {} values for {} results", results.len(), result_types.len()));
    }
    results
        .into_iter()
        .zip(result_types)
        .enumerate()
        .map(|(i, (v, &t))| {
            v.check_type(ctx, t).map_err(|e| format!("result #{i}: produced {e}"))?;
            match v {
                RtValue::Tensor(t) => Ok(t),
                other => Err(format!("result #{i} is a {}, not a tensor", other.type_string())),
            }
        })
        .collect()
}

/// The values of one region execution, falling back to the enclosing region's values (a
/// `xcs.vmap` body sees the values defined around the op).
pub(crate) struct Frame<'p> {
    vals: FxHashMap<Value, RtValue>,
    parent: Option<&'p Frame<'p>>,
}

impl<'p> Frame<'p> {
    fn new(parent: Option<&'p Frame<'p>>) -> Self {
        Frame { vals: FxHashMap::default(), parent }
    }
    fn get(&self, v: Value) -> Option<&RtValue> {
        match self.vals.get(&v) {
            Some(x) => Some(x),
            None => self.parent.and_then(|p| p.get(v)),
        }
    }
}

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
    providers: ProviderRegistry,
    externals: FxHashMap<String, ExternalFn>,
    max_call_depth: usize,
    op_limit: Option<u64>,
    ops_run: AtomicU64,
}

impl<'a> Interpreter<'a> {
    /// An interpreter for `module` with the built-in providers (`echo`).
    pub fn new(ctx: &'a Context, module: &'a Module) -> Self {
        let mut functions = FxHashMap::default();
        for op in module.ops() {
            if ctx.op_name_str(module.body.op_name(op)) == "func.func" {
                if let Some(name) = module.body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) {
                    functions.entry(name.to_string()).or_insert(op);
                }
            }
        }
        Interpreter {
            ctx,
            module,
            functions,
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
    /// The native stack size of interpreter threads.
    pub(crate) fn stack_size(&self) -> usize {
        THREAD_STACK
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
        let ft = self.module.body.attr(self.ctx, op, "function_type")?;
        crate::func::signature(self.ctx, ft)
    }

    /// Calls function `name` with `args` and returns its results. Runs on a thread with a large
    /// stack; a panic inside (an interpreter bug) becomes an error too.
    pub fn call(&self, name: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        self.ops_run.store(0, Ordering::Relaxed);
        std::thread::scope(|s| {
            let spawned =
                std::thread::Builder::new().name("xcs-interp".into()).stack_size(self.stack_size()).spawn_scoped(s, || {
                    self.call_function(name, args, 0, None)
                });
            match spawned {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(InterpError::new(Location::UNKNOWN, "the interpreter panicked (this is a bug)"))),
                Err(e) => Err(InterpError::new(Location::UNKNOWN, format!("cannot start the interpreter thread: {e}"))),
            }
        })
    }

    /// Calls a function at call depth `depth`; `site` is the calling `func.call` (for errors).
    fn call_function(
        &self,
        name: &str,
        args: Vec<RtValue>,
        depth: usize,
        site: Option<(&Body, Op)>,
    ) -> Result<Vec<RtValue>, InterpError> {
        let ctx = self.ctx;
        let err = |m: String| match site {
            Some((b, op)) => InterpError::op(ctx, b, op, m),
            None => InterpError::new(Location::UNKNOWN, m),
        };
        if depth > self.max_call_depth {
            return Err(err(format!(
                "call depth limit of {} exceeded calling @{name} (unbounded recursion?)",
                self.max_call_depth
            )));
        }
        let Some(&fop) = self.functions.get(name) else {
            return Err(err(format!("calls @{name}, which is not a function of the module")));
        };
        let (inputs, results) = self.signature(name).ok_or_else(|| err(format!("@{name} has no valid function_type")))?;
        if args.len() != inputs.len() {
            return Err(err(format!("@{name} takes {} arguments, but {} were given", inputs.len(), args.len())));
        }
        for (i, (a, &t)) in args.iter().zip(&inputs).enumerate() {
            a.check_type(ctx, t).map_err(|e| err(format!("argument #{i} of @{name}: {e}")))?;
        }
        let fbody = self.module.body.nested(fop).ok_or_else(|| err(format!("@{name} has no body")))?;
        let region = fbody.root_regions().first().copied();
        let out = match region.filter(|&r| !fbody.region_is_empty(r)) {
            Some(region) => self.run_region(fbody, region, args, None, depth, fbody.loc()).map_err(|e| match site {
            Some((b, op)) => e.with_note(b.op_loc(op), format!("called from here (@{name})")),
            None => e,
            })?,
            None => match self.externals.get(name) {
                Some(f) => f(&args).map_err(|e| err(format!("external function @{name} failed: {e}")))?,
                None => {
                    return Err(err(format!(
                        "@{name} is an external declaration without a body; the interpreter cannot call it (give it a host implementation with Interpreter::with_external)"
                    )))
                }
            },
        };
        if out.len() != results.len() {
            return Err(InterpError::new(fbody.loc(), format!("@{name} returned {} values, but its type has {}", out.len(), results.len())));
        }
        for (i, (v, &t)) in out.iter().zip(&results).enumerate() {
            v.check_type(ctx, t)
                .map_err(|e| InterpError::new(fbody.loc(), format!("result #{i} of @{name}: returned {e}")))?;
        }
        Ok(out)
    }

    /// Runs `region` of `body` from its entry block with `args` until a return-like terminator,
    /// following branches; returns the terminator's operands.
    pub(crate) fn run_region(
        &self,
        body: &Body,
        region: Region,
        args: Vec<RtValue>,
        parent: Option<&Frame<'_>>,
        depth: usize,
        owner_loc: Location,
    ) -> Result<Vec<RtValue>, InterpError> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.run_region_here(body, region, args, parent, depth, owner_loc))
    }

    fn run_region_here(
        &self,
        body: &Body,
        region: Region,
        args: Vec<RtValue>,
        parent: Option<&Frame<'_>>,
        depth: usize,
        owner_loc: Location,
    ) -> Result<Vec<RtValue>, InterpError> {
        let ctx = self.ctx;
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
                    format!("a block takes {} arguments, but {} values were passed", params.len(), args.len()),
                ));
            }
            for (&p, a) in params.iter().zip(args.drain(..)) {
                frame.vals.insert(p, a);
            }
            let mut next: Option<(xcs_ir::Block, Vec<RtValue>)> = None;
            let mut terminated = false;
            for op in body.block_ops(block) {
                self.count_op(body, op)?;
                let name = ctx.op_name_str(body.op_name(op));
                match name {
                    "func.return" | "xcs.yield" | "tensor.yield" | "test.yield" => {
                        return self.operand_values(body, op, &frame).map(|v| v.into_iter().cloned().collect());
                    }
                    "cf.br" => {
                        let dest = *body
                            .successors(op)
                            .first()
                            .ok_or_else(|| InterpError::op(ctx, body, op, "has no successor"))?;
                        let vals = self.operand_values(body, op, &frame)?.into_iter().cloned().collect();
                        next = Some((dest, vals));
                        terminated = true;
                        break;
                    }
                    "cf.cond_br" => {
                        next = Some(self.cond_br(body, op, &frame)?);
                        terminated = true;
                        break;
                    }
                    _ => {
                        let results = self.exec_op(body, op, &frame, depth)?;
                        for (r, v) in body.results(op).zip(results) {
                            frame.vals.insert(r, v);
                        }
                    }
                }
            }
            match next {
                Some((b, a)) if terminated => {
                    block = b;
                    args = a;
                }
                _ => return Err(InterpError::new(owner_loc, "a block ends without a terminator")),
            }
        }
    }

    fn count_op(&self, body: &Body, op: Op) -> Result<(), InterpError> {
        if let Some(limit) = self.op_limit {
            if self.ops_run.fetch_add(1, Ordering::Relaxed) >= limit {
                return Err(InterpError::op(self.ctx, body, op, format!("operation limit of {limit} exceeded")));
            }
        }
        Ok(())
    }

    fn cond_br(&self, body: &Body, op: Op, frame: &Frame<'_>) -> Result<(xcs_ir::Block, Vec<RtValue>), InterpError> {
        let ctx = self.ctx;
        let e = |m: &str| InterpError::op(ctx, body, op, m);
        let vals = self.operand_values(body, op, frame)?;
        let seg = body.attr(ctx, op, "operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
        if seg.len() != 3 || seg.iter().any(|&s| s < 0) || seg.iter().sum::<i128>() as usize != vals.len() || seg[0] != 1 {
            return Err(e("has an invalid 'operandSegmentSizes'"));
        }
        let (n_true, n_false) = (seg[1] as usize, seg[2] as usize);
        let cond = match vals[0] {
            RtValue::Scalar(s) if s.width == 1 => s.value != 0,
            other => return Err(e(&format!("condition is a {}, not an i1", other.type_string()))),
        };
        let succ = body.successors(op);
        if succ.len() != 2 {
            return Err(e("needs two successors"));
        }
        let (dest, range) = if cond { (succ[0], 1..1 + n_true) } else { (succ[1], 1 + n_true..1 + n_true + n_false) };
        Ok((dest, vals[range].iter().map(|v| (*v).clone()).collect()))
    }

    fn operand_values<'f>(&self, body: &Body, op: Op, frame: &'f Frame<'_>) -> Result<Vec<&'f RtValue>, InterpError> {
        body.operands(op)
            .enumerate()
            .map(|(i, v)| {
                frame.get(v).ok_or_else(|| InterpError::op(self.ctx, body, op, format!("operand #{i} has no value (used before it is defined)")))
            })
            .collect()
    }

    /// Executes one non-terminator op and checks its results against the declared types.
    fn exec_op(&self, body: &Body, op: Op, frame: &Frame<'_>, depth: usize) -> Result<Vec<RtValue>, InterpError> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(body.op_name(op));
        let args = self.operand_values(body, op, frame)?;
        let err = |m: String| InterpError::op(ctx, body, op, m);
        let results = match name {
            "func.call" => {
                let callee = body
                    .attr(ctx, op, "callee")
                    .and_then(|a| ctx.as_symbol(a))
                    .ok_or_else(|| err("requires a 'callee' symbol reference".into()))?;
                let owned: Vec<RtValue> = args.into_iter().cloned().collect();
                self.call_function(callee, owned, depth + 1, Some((body, op)))?
            }
            "tensor.fused" => {
                let nested = body.nested(op).ok_or_else(|| err("has no body".into()))?;
                let region = *nested.root_regions().first().ok_or_else(|| err("has no region".into()))?;
                let owned: Vec<RtValue> = args.into_iter().cloned().collect();
                self.run_region(nested, region, owned, None, depth, body.op_loc(op))?
            }
            n if n.starts_with("tensor.") => {
                let info = tensor_ops::OpInfo { ctx, attrs: body.attrs(op), result_types: body.result_types(op).to_vec() };
                tensor_ops::exec(n, &info, &args).map_err(err)?
            }
            n if n.starts_with("xcs.") => xcs_ops::exec(self, body, op, frame, &args, depth)?,
            "test.constant" | "test.addi" | "test.muli" | "test.negi" | "test.cmpi" => {
                self.test_op(name, body, op, &args).map_err(err)?
            }
            _ => return Err(err("is not supported by the interpreter".into())),
        };
        if results.len() != body.num_results(op) {
            return Err(err(format!("produced {} values for {} results", results.len(), body.num_results(op))));
        }
        for (i, (v, t)) in results.iter().zip(body.result_types(op)).enumerate() {
            v.check_type(ctx, t).map_err(|e| err(format!("result #{i}: produced {e}")))?;
        }
        Ok(results)
    }

    /// The test dialect's integer scalars: wrapping arithmetic at the result's width.
    fn test_op(&self, name: &str, body: &Body, op: Op, args: &[&RtValue]) -> Result<Vec<RtValue>, String> {
        let ctx = self.ctx;
        let width = body.result_types(op).first().and_then(|&t| ctx.int_width(t));
        let ints = || -> Result<Vec<Scalar>, String> {
            args.iter()
                .enumerate()
                .map(|(i, a)| a.as_scalar().ok_or_else(|| format!("operand #{i} is a {}, not an integer", a.type_string())))
                .collect()
        };
        let out = match name {
            "test.constant" => {
                let value = body.attr(ctx, op, "value").ok_or("requires attribute 'value'")?;
                match ctx.attr_kind(value) {
                    xcs_ir::AttrKind::Integer { value, ty } => RtValue::int(*value, ctx.int_width(*ty).unwrap_or(64)),
                    xcs_ir::AttrKind::String { .. } => RtValue::Str(ctx.as_str(value).ok_or("string is not UTF-8")?.to_string()),
                    xcs_ir::AttrKind::DenseElements { .. } => RtValue::Tensor(tensor_from_attr(ctx, value)?),
                    _ => return Err("only integer, string and dense constants are supported".into()),
                }
            }
            "test.cmpi" => {
                let v = ints()?;
                let (a, b) = (v.first().ok_or("needs two operands")?.value, v.get(1).ok_or("needs two operands")?.value);
                let pred = body.attr(ctx, op, "predicate").and_then(|a| ctx.as_str(a)).ok_or("requires 'predicate'")?;
                let r = match pred {
                    "eq" => a == b,
                    "ne" => a != b,
                    "slt" => a < b,
                    "sle" => a <= b,
                    "sgt" => a > b,
                    "sge" => a >= b,
                    p => return Err(format!("unknown predicate \"{p}\"")),
                };
                RtValue::int(r as i128, 1)
            }
            _ => {
                let v = ints()?;
                let w = width.ok_or("result is not an integer")?;
                match (name, v.as_slice()) {
                    ("test.addi", [a, b]) => RtValue::int(a.value.wrapping_add(b.value), w),
                    ("test.muli", [a, b]) => RtValue::int(a.value.wrapping_mul(b.value), w),
                    ("test.negi", [a]) => RtValue::int(a.value.wrapping_neg(), w),
                    _ => return Err(format!("expects {} operands", if name == "test.negi" { 1 } else { 2 })),
                }
            }
        };
        Ok(vec![out])
    }
}
