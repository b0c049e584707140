//! Lowering of functions: each `func.func` becomes an internal LLVM function over tensor
//! descriptors (data pointer and sizes; strides are implied, arguments are contiguous), its
//! blocks LLVM blocks (block arguments phi nodes), and each op whatever its [`LowerOp`] emits,
//! usually a call of an outlined loop kernel. [`FunctionLowering`] is the state of one
//! function: the values of its SSA values, its buffers (see `buffers`), its blocks; the op loop
//! ([`lower_block`], [`lower_region_block`]) finds each op's lowering through the `LowerOp`
//! interface and frees values after their last use. See `docs/lowering.md` for the design.

use rustc_hash::FxHashMap;
use xcs_dialects::interp::ElemType;
use xcs_ir::opdef::Traits;
use xcs_ir::{Block, Body, Context, Location, Op, TypeKind, Value, DYNAMIC};

use super::buffers::{Buf, BufState, PlanStats};
use super::inplace::{InPlacePlan, LastUse};
use super::interface::{LowerOp, OpSite};
use super::llvm_ir::{FunctionBuilder, Val, SHELL_ATTRS};
use super::loops::copy_into;
use super::module::{port_of, ModuleLowering, Port};
use super::types::{check_addressable, comp_ty};
use super::values::{row_major, Slot, TensorVal};
use super::{LowerError, R};

/// The lowering of one function body (and of the regions of its ops, such as `tensor.fused`
/// bodies, inlined into it).
pub struct FunctionLowering<'a, 'm> {
    /// The module-wide state (sites, the LLVM module builder `module.m`, options).
    pub module: &'a mut ModuleLowering<'m>,
    /// The LLVM function being built.
    pub f: FunctionBuilder,
    /// The value of every live SSA value.
    pub vals: FxHashMap<Value, Slot>,
    pub(super) bufs: Vec<Buf>,
    /// `Some(frame)` in functions with several blocks: the buffers that outlive the block that
    /// allocated them are kept until return.
    pub(super) frame: Option<Val>,
    /// Result slot pointers of the function.
    results: Vec<Val>,
    /// The site of the op being lowered (allocation failures report it).
    pub cur_site: i32,
    pub(super) kernels: u32,
    /// Kernels this function calls itself, not through the pool: LLVM inlines them here, where
    /// their bounds and sizes are constants.
    pub(super) direct_kernels: u32,
    pub stats: PlanStats,
    /// Incoming (value, predecessor) pairs of open phi nodes.
    incoming: std::collections::BTreeMap<String, Vec<(String, String)>>,
    labels: FxHashMap<Block, String>,
    block_phis: FxHashMap<Block, (String, Vec<Vec<String>>)>,
    /// Where the values of the function's blocks die; which block arguments own their buffer.
    pub(super) plan: InPlacePlan,
    /// The op of the function's blocks being lowered.
    pub(super) cur_op: Option<Op>,
}

impl<'a, 'm> FunctionLowering<'a, 'm> {
    pub fn ctx(&self) -> &'m Context {
        self.module.ctx
    }
    /// The value of `v`.
    pub fn get(&self, v: Value) -> R<Slot> {
        self.vals
            .get(&v)
            .cloned()
            .ok_or_else(|| LowerError::internal("a value is used before it is defined"))
    }
    /// The tensor value of `v`.
    pub fn tensor(&self, v: Value) -> R<TensorVal> {
        match self.get(v)? {
            Slot::Tensor(t) => Ok(t),
            Slot::Scalar(..) => Err(LowerError::internal("a scalar is used as a tensor")),
        }
    }

    /// Defines `v` (counting a reference to its buffer).
    pub fn define(&mut self, v: Value, s: Slot) {
        if let Slot::Tensor(TensorVal { buf: Some(b), .. }) = &s {
            self.bufs[*b].refs += 1;
        }
        self.vals.insert(v, s);
    }

    /// `v` is dead: its buffer goes to the pool when no live value refers to it any more.
    pub fn kill(&mut self, v: Value) {
        if let Some(s) = self.vals.remove(&v) {
            self.kill_slot(&s);
        }
    }
    /// Drops one reference of a value's buffer (pooling it when it was the last).
    pub fn kill_slot(&mut self, s: &Slot) {
        if let Slot::Tensor(TensorVal { buf: Some(b), .. }) = s {
            let buf = &mut self.bufs[*b];
            buf.refs = buf.refs.saturating_sub(1);
            if buf.refs == 0 && buf.state == BufState::Live && !buf.in_frame {
                buf.state = BufState::Pooled;
            }
        }
    }
    /// Drops one reference without pooling (the value is handed to another scope, which
    /// defines it again).
    pub fn unref(&mut self, s: &Slot) {
        if let Slot::Tensor(TensorVal { buf: Some(b), .. }) = s {
            self.bufs[*b].refs = self.bufs[*b].refs.saturating_sub(1);
        }
    }
}

/// Lowers `func.func @name` to `define internal i32 @llvm_name(args..., results...)`.
/// Arguments: a tensor is `ptr data, i64 size...` (contiguous row-major), a scalar its value.
/// Results: one pointer per result to a slot `{ptr data, i64 size...}` (a scalar: its value
/// in the first 8 bytes) that the function fills with a buffer the caller then owns.
/// `spec` fixes the argument sizes (the JIT specializes the entry on its input shapes).
pub fn lower_function(ml: &mut ModuleLowering, name: &str, llvm_name: &str, spec: Option<&[Vec<i64>]>) -> R<()> {
    let module = ml.source;
    let fop = ml
        .func_op(name)
        .ok_or_else(|| LowerError::new(Location::UNKNOWN, format!("no function @{name}")))?;
    let floc = module.body.op_loc(fop);
    let (ins, outs) = ml.signature(name)?;
    let body = module
        .body
        .nested(fop)
        .filter(|b| b.root_regions().iter().any(|&r| !b.region_is_empty(r)))
        .ok_or_else(|| {
            LowerError::new(
                floc,
                format!("@{name} is an external declaration without a body; the LLVM backend cannot call it"),
            )
        })?;
    let region = body.root_regions()[0];
    let blocks: Vec<_> = body.region_blocks(region).collect();
    let multi = blocks.len() > 1;
    let plan = InPlacePlan::analyze(ml.ctx, body, &blocks);

    let f = FunctionBuilder::new(llvm_name, "internal", "i32", &parameters(&ins, outs.len()));
    let mut fl = FunctionLowering {
        module: ml,
        f,
        vals: FxHashMap::default(),
        bufs: Vec::new(),
        frame: None,
        results: (0..outs.len()).map(|k| Val::new("ptr", format!("%r{k}"))).collect(),
        cur_site: -1,
        kernels: 0,
        direct_kernels: 0,
        stats: PlanStats::default(),
        incoming: Default::default(),
        labels: FxHashMap::default(),
        block_phis: FxHashMap::default(),
        plan,
        cur_op: None,
    };
    if multi {
        let fr = fl.f.alloca("{ i64, i64, ptr }", 1);
        fl.f.store(&Val::new("{ i64, i64, ptr }", "zeroinitializer"), &fr);
        fl.frame = Some(fr);
    }
    // Arguments.
    let entry = blocks[0];
    let args = body.block_args(entry).to_vec();
    if args.len() != ins.len() {
        return Err(LowerError::new(
            floc,
            format!("@{name}: the entry block arguments do not match the function type"),
        ));
    }
    for (i, (&a, p)) in args.iter().zip(&ins).enumerate() {
        let s = argument(&mut fl.f, i, p, spec.and_then(|sp| sp.get(i)));
        fl.define(a, s);
    }

    if !multi {
        lower_block(&mut fl, body, entry)?;
    } else {
        // its branches may form loops of scalar code, which LLVM's loop optimizer is left with
        fl.f.leave_to_loop_optimizer();
        lower_cfg(&mut fl, body, &blocks)?;
    }
    fl.f.raw("unreachable");
    let FunctionLowering { mut f, incoming, stats, direct_kernels, .. } = fl;
    // A JIT entry (only the C ABI wrapper calls it, once per call) without control flow or
    // loops of its own that launches its kernels through the pool only allocates, launches and
    // checks statuses: a call shell, not worth optimizing (W4's compile ~3M instructions less).
    // Kernels it calls directly (one thread, small work) stay inlined into it.
    if spec.is_some() && !multi && f.loops == 0 && direct_kernels == 0 {
        f.attrs = SHELL_ATTRS;
    }
    ml.stats.allocations += stats.allocations;
    ml.stats.reuses += stats.reuses;
    let text = f.finish(&incoming);
    ml.m.add_function(text);
    Ok(())
}

/// The parameter list of a lowered function with arguments `ins` and `nout` results: a tensor
/// argument `i` is `ptr %aI, i64 %aIdJ...`, a scalar `%aI`, a result `ptr %rK`.
fn parameters(ins: &[Port], nout: usize) -> String {
    let mut params = Vec::new();
    for (i, p) in ins.iter().enumerate() {
        match &p.dims {
            Some(d) => {
                params.push(format!("ptr %a{i}"));
                for j in 0..d.len() {
                    params.push(format!("i64 %a{i}d{j}"));
                }
            }
            None => params.push(format!("{} %a{i}", comp_ty(p.elem))),
        }
    }
    for k in 0..nout {
        params.push(format!("ptr %r{k}"));
    }
    params.join(", ")
}

/// The value of argument `i` (of type `p`; `spec` fixes its sizes): a contiguous tensor whose
/// sizes are constants where static or specialized, else the size parameters.
fn argument(f: &mut FunctionBuilder, i: usize, p: &Port, spec: Option<&Vec<i64>>) -> Slot {
    let Some(d) = &p.dims else {
        return Slot::Scalar(Val::new(comp_ty(p.elem), format!("%a{i}")), p.elem);
    };
    let dims: Vec<Val> = d
        .iter()
        .enumerate()
        .map(|(j, &s)| match (s, spec.and_then(|x| x.get(j)).copied()) {
            (_, Some(v)) => Val::i64(v),
            (DYNAMIC, None) => Val::new("i64", format!("%a{i}d{j}")),
            (v, None) => Val::i64(v),
        })
        .collect();
    let strides = row_major(f, &dims);
    Slot::Tensor(TensorVal {
        ptr: Val::new("ptr", format!("%a{i}")),
        dims,
        strides,
        elem: p.elem,
        contiguous: true,
        buf: None,
    })
}

/// Lowers the ops of `block`, a block of the function's body, in order, its terminator
/// included. Values die after their last use in the block ([`InPlacePlan::last_use`]); values
/// used in other blocks live on (in functions with several blocks, the frame owns every buffer
/// until the function returns; a dead value only drops its reference).
pub fn lower_block(fl: &mut FunctionLowering, body: &Body, block: Block) -> R<()> {
    let ctx = fl.ctx();
    for op in body.block_op_vec(block) {
        fl.cur_op = Some(op);
        lower_op(fl, body, op)?;
        fl.cur_op = None;
        if fl.frame.is_some() && ctx.op_def(body.op_name(op)).is_some_and(|d| d.has(Traits::Terminator)) {
            fl.block_buffers_closed(body.successors(op).is_empty());
        }
        let mut dead: Vec<Value> = body
            .operands(op)
            .filter(|&v| fl.plan.last_use(v) == Some(LastUse::At(op)))
            .collect();
        dead.sort();
        dead.dedup();
        dead.extend(body.results(op).filter(|&r| fl.plan.last_use(r).is_none()));
        for v in dead {
            fl.kill(v);
        }
    }
    Ok(())
}

/// Lowers the single block of an op's region (a `tensor.fused` body) but its terminator, a
/// `ReturnLike` op (`tensor.yield`) whose operands, the region's results, it returns alive.
/// Values die after their last use. `None` when the block does not end in a `ReturnLike` op
/// (nothing is lowered then).
pub fn lower_region_block(fl: &mut FunctionLowering, body: &Body, block: Block) -> R<Option<Vec<Value>>> {
    let ctx = fl.ctx();
    let ops = body.block_op_vec(block);
    let Some((&term, inner)) = ops.split_last() else {
        return Ok(None);
    };
    if !ctx
        .op_def(body.op_name(term))
        .is_some_and(|d| d.has(Traits::ReturnLike))
    {
        return Ok(None);
    }
    let results: Vec<Value> = body.operands(term).collect();
    lower_ops(fl, body, inner, &results)?;
    Ok(Some(results))
}

/// Lowers `ops` (of a region's block) in order; values die after their last use among them,
/// except `keep` (used after them).
fn lower_ops(fl: &mut FunctionLowering, body: &Body, ops: &[Op], keep: &[Value]) -> R<()> {
    let mut last_use: FxHashMap<Value, usize> = FxHashMap::default();
    for (i, &op) in ops.iter().enumerate() {
        for v in body.operands(op) {
            last_use.insert(v, i);
        }
    }
    for &v in keep {
        last_use.insert(v, usize::MAX);
    }
    for (i, &op) in ops.iter().enumerate() {
        lower_op(fl, body, op)?;
        let mut dead: Vec<Value> = body.operands(op).filter(|v| last_use.get(v) == Some(&i)).collect();
        dead.sort();
        dead.dedup();
        dead.extend(body.results(op).filter(|r| !last_use.contains_key(r)));
        for v in dead {
            fl.kill(v);
        }
    }
    Ok(())
}

/// Lowers one op through its [`LowerOp`] and defines its results.
fn lower_op(fl: &mut FunctionLowering, body: &Body, op: Op) -> R<()> {
    let ctx = fl.ctx();
    fl.cur_site = -1;
    let lowering = ctx
        .interface::<dyn LowerOp>(body.op_name(op))
        .ok_or_else(|| unsupported(ctx, body, op))?;
    for r in body.results(op) {
        if let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(body.value_type(r)) {
            if let Some(e) = ElemType::from_type(ctx, *elem) {
                check_addressable(shape, e).map_err(|m| {
                    LowerError::new(body.op_loc(op), format!("'{}' op result: {m}", ctx.op_name_str(body.op_name(op))))
                })?;
            }
        }
    }
    let results = lowering.lower(fl, body, op)?;
    if results.len() != body.num_results(op) {
        return Err(LowerError::new(
            body.op_loc(op),
            format!(
                "'{}' op produced the wrong number of results",
                ctx.op_name_str(body.op_name(op))
            ),
        ));
    }
    for (r, s) in body.results(op).zip(results) {
        fl.define(r, s);
    }
    Ok(())
}

/// The error for an op without a [`LowerOp`]. When no op of the context has one, the context
/// was made without the lowering's interfaces (MLIR says "missing
/// LLVMTranslationDialectInterface registration"): the message says how to fix that.
fn unsupported(ctx: &Context, body: &Body, op: Op) -> LowerError {
    let mut message = format!(
        "'{}' op is not supported by the LLVM backend",
        ctx.op_name_str(body.op_name(op))
    );
    if !ctx
        .registered_ops()
        .any(|d| ctx.interface::<dyn LowerOp>(ctx.op_name(d.name)).is_some())
    {
        message.push_str(
            " (no op has an LLVM lowering in this context: missing LowerOp registration; make the context \
             with xcs_lowering::context() or call xcs_lowering::attach_interfaces on it)",
        );
    }
    LowerError::new(body.op_loc(op), message)
}

/// Functions with several blocks: blocks become LLVM blocks, block arguments phi nodes (tensors:
/// the data pointer and each dynamic size), branches (lowered by their ops' [`LowerOp`], with
/// [`FunctionLowering::branch_to`]) jump to them. Values passed to blocks are made contiguous
/// first; every buffer is owned by the function's frame. A block argument that owns its buffer
/// ([`InPlacePlan::owns`]) gets one no other value refers to: the passed value's when it dies
/// at the branch and nothing else refers to it, else a copy made on the edge.
fn lower_cfg(fl: &mut FunctionLowering, body: &Body, blocks: &[Block]) -> R<()> {
    let ctx = fl.ctx();
    for (i, &b) in blocks.iter().enumerate() {
        fl.labels.insert(b, format!("bb{i}"));
    }
    // Phi nodes of block arguments, registered up front (branches may come before the block).
    for &b in &blocks[1..] {
        let marker = fl.f.new_marker();
        let mut keys = Vec::new();
        for &a in body.block_args(b) {
            let t = body.value_type(a);
            let p = port_of(ctx, t).map_err(|e| LowerError::new(body.arg_loc(a).unwrap_or(Location::UNKNOWN), e))?;
            let mut ks = Vec::new();
            let slot = match &p.dims {
                Some(d) => {
                    let (ptr, k) = fl.f.phi_open(&marker, "ptr");
                    ks.push(k);
                    let mut dims = Vec::new();
                    for &sd in d {
                        if sd == DYNAMIC {
                            let (v, k) = fl.f.phi_open(&marker, "i64");
                            ks.push(k);
                            dims.push(v);
                        } else {
                            dims.push(Val::i64(sd));
                        }
                    }
                    let strides = row_major(&mut fl.f, &dims);
                    let buf = fl.plan.owns(a).then(|| fl.phi_buffer(&ptr));
                    Slot::Tensor(TensorVal {
                        ptr,
                        dims,
                        strides,
                        elem: p.elem,
                        contiguous: true,
                        buf,
                    })
                }
                None => {
                    let (v, k) = fl.f.phi_open(&marker, comp_ty(p.elem));
                    ks.push(k);
                    Slot::Scalar(v, p.elem)
                }
            };
            fl.define(a, slot);
            keys.push(ks);
        }
        fl.block_phis.insert(b, (marker, keys));
    }
    fl.f.br("bb0");
    for (i, &b) in blocks.iter().enumerate() {
        let label = fl.labels[&b].clone();
        if i > 0 {
            // The previous block ended in a terminator followed by an empty `dead` block.
            fl.f.raw("unreachable");
        }
        fl.f.start(&label);
        if let Some((marker, _)) = fl.block_phis.get(&b) {
            let m = marker.clone();
            fl.f.place_marker(&m);
        }
        lower_block(fl, body, b)?;
    }
    Ok(())
}

/// The values of `operands` passed to block `dest` from the current block (whose buffers are
/// then freed or go to the frame, see [`FunctionLowering::close_block_buffers`]).
fn pass_to_block(fl: &mut FunctionLowering, body: &Body, dest: Block, operands: &[Value]) -> R<()> {
    let keys = fl.block_phis.get(&dest).map(|(_, k)| k.clone()).unwrap_or_default();
    if keys.len() != operands.len() {
        return Err(LowerError::internal("a branch passes the wrong number of values"));
    }
    let args = body.block_args(dest);
    let mut all = Vec::new();
    for ((&v, ks), &a) in operands.iter().zip(keys).zip(args) {
        let comps: Vec<Val> = match fl.get(v)? {
            Slot::Tensor(t) => {
                let c = if fl.plan.owns(a) && !fl.can_hand_over(body, v, operands, &t) {
                    // An owning argument gets a buffer of its own.
                    let c = fl.new_tensor(t.elem, &t.dims)?;
                    copy_into(fl, &t, &c)?;
                    c
                } else {
                    fl.contiguous(&t)?
                };
                if let Some(b) = c.buf.filter(|_| c.buf != t.buf) {
                    fl.give_to_frame(b);
                }
                let mut comps = vec![c.ptr.clone()];
                if let TypeKind::RankedTensor { shape, .. } = fl.ctx().type_kind(body.value_type(v)) {
                    for (j, &sd) in shape.iter().enumerate() {
                        if sd == DYNAMIC {
                            comps.push(c.dims[j].clone());
                        }
                    }
                }
                comps
            }
            Slot::Scalar(s, _) => vec![s],
        };
        if comps.len() != ks.len() {
            return Err(LowerError::internal(
                "a block argument and its value have different types",
            ));
        }
        all.push((ks, comps));
    }
    // The block's buffers are freed or go to the frame on the edge; the predecessor is the
    // block the branch ends up in (copies and frame pushes may add blocks).
    fl.close_block_buffers();
    let from = fl.f.cur.clone();
    for (ks, comps) in all {
        for (k, c) in ks.iter().zip(comps) {
            fl.incoming
                .entry(k.clone())
                .or_default()
                .push((c.s.clone(), from.clone()));
        }
    }
    Ok(())
}

impl FunctionLowering<'_, '_> {
    /// Returns `values` from the function (`func.return`, at `o`): results are handed over
    /// (owned contiguous buffers as they are, anything else copied), everything else is freed.
    /// Code after it goes to an unreachable block.
    pub fn return_values(&mut self, o: &OpSite, values: &[Value]) -> R<()> {
        if values.len() != self.results.len() {
            return Err(o.err("returns the wrong number of values"));
        }
        let mut handed: Vec<usize> = Vec::new();
        for (k, &v) in values.iter().enumerate() {
            let slot = self.results[k].clone();
            match self.get(v)? {
                Slot::Tensor(t) => {
                    let own = t.contiguous
                        && t.buf.is_some_and(|b| {
                            self.bufs[b].state == BufState::Live && !self.bufs[b].in_frame && !handed.contains(&b)
                        });
                    let t = if own {
                        t
                    } else {
                        let c = self.new_tensor(t.elem, &t.dims)?;
                        copy_into(self, &t, &c)?;
                        c
                    };
                    let b = t.buf.ok_or_else(|| LowerError::internal("a result has no buffer"))?;
                    handed.push(b);
                    self.bufs[b].state = BufState::Handed;
                    self.f.store(&t.ptr, &slot);
                    for (j, d) in t.dims.iter().enumerate() {
                        let q = self.f.gep("i64", &slot, &Val::i64(1 + j as i64));
                        self.f.store(d, &q);
                    }
                }
                Slot::Scalar(s, _) => {
                    self.f.store(&s, &slot);
                }
            }
        }
        self.cleanup_and_ret(&Val::i32(0));
        self.after_terminator();
        Ok(())
    }

    /// Passes `operands` to block `dest` (its block arguments) and jumps there; the block's
    /// buffers are freed or go to the frame on the way.
    pub fn branch_to(&mut self, body: &Body, dest: Block, operands: &[Value]) -> R<()> {
        pass_to_block(self, body, dest, operands)?;
        let l = self.labels[&dest].clone();
        self.f.br(&l);
        Ok(())
    }

    /// Starts an unreachable block after a terminator, for code after it (none in valid IR).
    pub fn after_terminator(&mut self) {
        let dead = self.f.label("dead");
        self.f.start(&dead);
    }
}
