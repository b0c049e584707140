//! The op-semantics interface of the reference interpreter: what an op *does* when it runs.
//!
//! Every op the interpreter can run implements [`Semantics`], in its `op!` declaration
//! (`interfaces: [dyn Semantics => &semantics::MATMUL]`) or attached to one context
//! (`Context::attach_interface::<dyn Semantics>(SomeOp::DEF, &IMPL)`). The interpreter finds it
//! from the op's registration in O(1) and never compares op names. An op without `Semantics` is a
//! run-time error ("is not supported by the interpreter"), except a `ReturnLike` terminator
//! (`func.return`, `tensor.yield`, `xcs.yield`, `test.yield`), which returns its operands.
//!
//! An op implements [`Semantics::exec`]: it gets an [`OpRun`] (the context, the op, its operand
//! values, its attributes and declared result types through [`OpInfo`], and the engine: calls,
//! regions, providers) and answers a [`Control`]:
//! - [`Control::Values`]: the results of a straight-line op (the engine checks them against the
//!   declared result types);
//! - [`Control::Branch`]: go on in another block of the same region with these arguments
//!   (`cf.br`, `cf.cond_br`);
//! - [`Control::Return`]: leave the region with these values (what `ReturnLike` terminators do).
//!
//! Most ops are pure functions of their operands, written as a plain function of an [`OpInfo`]
//! and the operands: a [`Kernel`] takes tensors and makes one tensor (the tensor ops; constant
//! folding evaluates these, see [`eval_kernel`]), a [`ValueKernel`] takes and makes any runtime
//! values (strings, integer scalars). Ops that need the interpreter implement `exec` themselves:
//! `func.call` uses [`OpRun::call`], `tensor.fused` and the `xcs` maps run their region with
//! [`OpRun::run_region`], `xcs.llm` asks [`OpRun::providers`].
//!
//! MLIR: `Semantics` is an `OpInterface` (as `InferTypeOpInterface` is) and the interpreter an
//! engine over it. MLIR has no reference interpreter, so the method has no upstream counterpart;
//! [`Control::Branch`] and [`Control::Return`] are the run-time form of what
//! `BranchOpInterface` (successor operands) and `ReturnLike` describe statically.

use smallvec::SmallVec;
use xcs_ir::opdef::OpView;
use xcs_ir::{Attr, Block, Body, Context, Location, Op, Region, Type, TypeKind};

use super::devices::Communicator;
use super::error::InterpError;
use super::frame::Frame;
use super::provider::ProviderRegistry;
use super::value::{ElemType, RtValue, Tensor};

/// What an op does when the interpreter runs it (see the module docs).
pub trait Semantics: Sync {
    /// Runs the op: its operand values and everything else it may read are in `run`.
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError>;
    /// The op as a pure tensor kernel, if it is one: only such ops can be evaluated on
    /// constants (by [`eval_kernel`], for folding).
    fn kernel(&self) -> Option<&Kernel> {
        None
    }
}
xcs_ir::op_interface!(dyn Semantics, "semantics");

/// Where execution goes after an op.
#[derive(Debug)]
pub enum Control {
    /// The op's results; execution continues with the next op.
    Values(Vec<RtValue>),
    /// Continue at the start of `Block` (of the op's region) with these block arguments.
    Branch(Block, Vec<RtValue>),
    /// Leave the region, which yields these values to its owner (a function returns them).
    Return(Vec<RtValue>),
}

/// A call of a module function: which one, how deep, from where; what
/// [`Engine::call_function`] needs besides the arguments.
#[derive(Clone, Copy)]
pub(crate) struct FunctionCall<'a> {
    /// The callee's `sym_name`.
    pub name: &'a str,
    /// The call depth of the callee (0 for the entry function).
    pub depth: usize,
    /// The calling op (`None` for the entry function).
    pub site: Option<(&'a Body, Op)>,
}

impl FunctionCall<'_> {
    /// A run-time error of the call: at the calling op, or without a location for the entry
    /// function.
    pub fn error(&self, ctx: &Context, message: String) -> InterpError {
        match self.site {
            Some((body, op)) => InterpError::op(ctx, body, op, message),
            None => InterpError::new(Location::UNKNOWN, message),
        }
    }
}

/// A region to run and where it runs: what [`Engine::run_region`] needs besides the arguments.
#[derive(Clone, Copy)]
pub(crate) struct RegionRun<'a> {
    /// The body holding the region.
    pub body: &'a Body,
    pub region: Region,
    /// The values the region sees from around its op (`None` for an isolated region or a
    /// function body).
    pub parent: Option<&'a Frame<'a>>,
    /// The call depth.
    pub depth: usize,
    /// The location of the region's owner (a function, an op): where errors of the region
    /// itself (an empty region, a block without a terminator) are reported.
    pub owner_loc: Location,
}

/// What the engine does for an op: the callbacks of [`OpRun`] (implemented by the
/// interpreter).
pub(crate) trait Engine: Sync {
    /// Makes `call` with `args`.
    fn call_function(&self, call: FunctionCall<'_>, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError>;
    /// Runs `region` from its entry block with `args` until it returns.
    fn run_region(&self, region: RegionRun<'_>, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError>;
    fn providers(&self) -> &ProviderRegistry;
    /// The top-level op of the module named `name` (its `sym_name`), in the module's body.
    fn symbol(&self, name: &str) -> Option<(&Body, Op)>;
    /// The device the program runs as, in an SPMD run.
    fn device(&self) -> Option<&dyn Communicator>;
    /// The native stack size of interpreter threads.
    fn thread_stack_size(&self) -> usize;
}

/// One op being run: what its [`Semantics`] may read and ask the interpreter for.
pub struct OpRun<'a> {
    pub ctx: &'a Context,
    pub body: &'a Body,
    pub op: Op,
    operands: Vec<&'a RtValue>,
    engine: &'a dyn Engine,
    /// The values visible at the op (a region of the op that is not isolated sees them).
    scope: &'a Frame<'a>,
    /// The call depth.
    depth: usize,
}

impl<'a> OpRun<'a> {
    pub(crate) fn new(
        engine: &'a dyn Engine,
        ctx: &'a Context,
        body: &'a Body,
        op: Op,
        operands: Vec<&'a RtValue>,
        scope: &'a Frame<'a>,
        depth: usize,
    ) -> Self {
        OpRun {
            ctx,
            body,
            op,
            operands,
            engine,
            scope,
            depth,
        }
    }
    /// The op as a view (its name, attributes, types, interfaces).
    pub fn view(&self) -> OpView<'a> {
        OpView::new(self.ctx, self.body, self.op)
    }
    /// The operand values, in order.
    pub fn operands(&self) -> &[&'a RtValue] {
        &self.operands
    }
    /// Copies of the operand values (to pass to a call or a region).
    pub fn operand_values(&self) -> Vec<RtValue> {
        self.operands.iter().map(|v| (*v).clone()).collect()
    }
    /// The op's attributes and declared result types.
    pub fn info(&self) -> OpInfo<'a> {
        OpInfo {
            ctx: self.ctx,
            op: self.view(),
            result_types: self.body.result_types(self.op),
        }
    }
    /// A run-time error of this op: `'name' op <message>` at its location.
    pub fn error(&self, message: impl AsRef<str>) -> InterpError {
        InterpError::op(self.ctx, self.body, self.op, message)
    }
    /// Calls function `callee` of the module (one call level deeper) with `args`.
    pub fn call(&self, callee: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        let call = FunctionCall { name: callee, depth: self.depth + 1, site: Some((self.body, self.op)) };
        self.engine.call_function(call, args)
    }
    /// Runs region `index` of the op with `args` as the entry block's arguments and returns
    /// what its `ReturnLike` terminator yields. A region of an isolated op (`tensor.fused`)
    /// sees only its arguments; any other region also sees the values defined around the op.
    /// May be called from several threads at once.
    pub fn run_region(&self, index: usize, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        let (body, regions, parent) = match self.body.nested(self.op) {
            Some(nested) => (nested, nested.root_regions(), None),
            None => (self.body, self.body.regions(self.op), Some(self.scope)),
        };
        let region = *regions.get(index).ok_or_else(|| self.error("has no region"))?;
        let owner_loc = self.body.op_loc(self.op);
        self.engine.run_region(RegionRun { body, region, parent, depth: self.depth, owner_loc }, args)
    }
    /// Runs the body of the module's top-level isolated op `symbol` (an `xcs.kernel`) with
    /// `args` as its entry block's arguments, one call level deeper, and returns what its
    /// `ReturnLike` terminator yields.
    pub fn run_symbol_body(&self, symbol: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
        let (mbody, op) = self.engine.symbol(symbol).ok_or_else(|| self.error(format!("no symbol @{symbol}")))?;
        let body = mbody.nested(op).ok_or_else(|| self.error(format!("@{symbol} has no body")))?;
        let region = *body.root_regions().first().ok_or_else(|| self.error(format!("@{symbol} has no body")))?;
        let owner_loc = mbody.op_loc(op);
        self.engine.run_region(RegionRun { body, region, parent: None, depth: self.depth + 1, owner_loc }, args)
    }
    /// The language-model providers (`xcs.llm`).
    pub fn providers(&self) -> &'a ProviderRegistry {
        self.engine.providers()
    }
    /// The module's top-level symbol `name` (e.g. the `shard.grid` a collective names).
    pub fn symbol(&self, name: &str) -> Option<OpView<'a>> {
        self.engine.symbol(name).map(|(body, op)| OpView::new(self.ctx, body, op))
    }
    /// The device this program runs as in an SPMD run (`None` outside one); see
    /// [`super::devices`].
    pub fn device(&self) -> Option<&'a dyn Communicator> {
        self.engine.device()
    }
    /// The native stack size for threads that run regions (`xcs.parallel_map`'s pool).
    pub fn thread_stack_size(&self) -> usize {
        self.engine.thread_stack_size()
    }
}

/// What a kernel may read besides its operands: the op's attributes and its declared result
/// types (which constant folding may replace, e.g. by a rank-0 type to compute one element).
pub struct OpInfo<'a> {
    pub ctx: &'a Context,
    pub op: OpView<'a>,
    pub result_types: SmallVec<[Type; 2]>,
}

impl OpInfo<'_> {
    pub fn attr(&self, name: &str) -> Result<Attr, String> {
        self.op.attr(name).ok_or_else(|| format!("requires attribute '{name}'"))
    }
    pub fn i64(&self, name: &str) -> Result<i64, String> {
        self.ctx
            .as_int(self.attr(name)?)
            .map(|v| v as i64)
            .ok_or_else(|| format!("attribute '{name}' must be an integer"))
    }
    pub fn i64s(&self, name: &str) -> Result<Vec<i64>, String> {
        self.ctx
            .as_i64_array(self.attr(name)?)
            .ok_or_else(|| format!("attribute '{name}' must be an array<i64>"))
    }
    pub fn str(&self, name: &str) -> Result<&str, String> {
        self.ctx
            .as_str(self.attr(name)?)
            .ok_or_else(|| format!("attribute '{name}' must be a string"))
    }
    pub fn bool(&self, name: &str) -> Result<bool, String> {
        self.ctx
            .as_bool(self.attr(name)?)
            .ok_or_else(|| format!("attribute '{name}' must be a bool"))
    }
    pub fn f64(&self, name: &str) -> Result<f64, String> {
        self.ctx
            .as_float(self.attr(name)?)
            .ok_or_else(|| format!("attribute '{name}' must be a float"))
    }
    /// The (possibly dynamic) shape and element type of result `i`, which must be a ranked tensor.
    pub fn result_tensor_type(&self, i: usize) -> Result<(Vec<i64>, ElemType), String> {
        let t = *self.result_types.get(i).ok_or_else(|| format!("has no result #{i}"))?;
        match self.ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, .. } => {
                let e = ElemType::from_type(self.ctx, *elem).ok_or_else(|| {
                    format!(
                        "result element type '{}' is not supported",
                        xcs_ir::printer::type_to_string(self.ctx, *elem)
                    )
                })?;
                Ok((shape.to_vec(), e))
            }
            _ => Err(format!("result #{i} is not a ranked tensor")),
        }
    }
}

/// A pure tensor op: tensors in, one tensor out, computed by a plain function of the op's
/// [`OpInfo`] and the operands. An `Err` is a run-time error of the op.
pub struct Kernel(pub fn(&OpInfo<'_>, &[&Tensor]) -> Result<Tensor, String>);

impl Kernel {
    pub fn eval(&self, info: &OpInfo<'_>, operands: &[&Tensor]) -> Result<Tensor, String> {
        (self.0)(info, operands)
    }
}

impl Semantics for Kernel {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let mut tensors = Vec::with_capacity(run.operands().len());
        for (i, a) in run.operands().iter().enumerate() {
            match a {
                RtValue::Tensor(t) => tensors.push(t),
                other => return Err(run.error(format!("operand #{i} is a {}, not a tensor", other.type_string()))),
            }
        }
        let out = self.eval(&run.info(), &tensors).map_err(|e| run.error(e))?;
        Ok(Control::Values(vec![RtValue::Tensor(out)]))
    }
    fn kernel(&self) -> Option<&Kernel> {
        Some(self)
    }
}

/// A pure op on any runtime values with one result (integer scalars, strings), computed by a
/// plain function of the op's [`OpInfo`] and the operands. An `Err` is a run-time error of the op.
pub struct ValueKernel(pub fn(&OpInfo<'_>, &[&RtValue]) -> Result<RtValue, String>);

impl Semantics for ValueKernel {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let out = (self.0)(&run.info(), run.operands()).map_err(|e| run.error(e))?;
        Ok(Control::Values(vec![out]))
    }
}

/// Evaluates op `op` on constant operands, exactly as the interpreter runs it, if its
/// [`Semantics`] is a [`Kernel`]; `result_types` are the types the results must have (the op's
/// own, or e.g. a rank-0 type to compute one element of a splat). This is the constant folders'
/// entry point, so a folded constant is bit-for-bit what the program would compute; any
/// run-time error (integer division by zero, an out-of-range gather index, ...) is an `Err` and
/// the op is left alone.
pub fn eval_kernel(op: &OpView<'_>, result_types: &[Type], operands: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
    let kernel = op
        .interface::<dyn Semantics>()
        .and_then(|s| s.kernel())
        .ok_or_else(|| format!("'{}' cannot be evaluated on its own", op.name()))?;
    let info = OpInfo {
        ctx: op.ctx,
        op: *op,
        result_types: SmallVec::from_slice(result_types),
    };
    let refs: Vec<&Tensor> = operands.iter().collect();
    let out = RtValue::Tensor(kernel.eval(&info, &refs)?);
    if result_types.len() != 1 {
        return Err(format!("produced 1 values for {} results", result_types.len()));
    }
    out.check_type(op.ctx, result_types[0])
        .map_err(|e| format!("result #0: produced {e}"))?;
    match out {
        RtValue::Tensor(t) => Ok(vec![t]),
        other => Err(format!("result #0 is a {}, not a tensor", other.type_string())),
    }
}
