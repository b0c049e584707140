//! `tensor.fused`: when the region is elementwise (elementwise ops, `broadcast_to`, constants)
//! and its results have one shape, it becomes ONE loop nest over the result's elements: each
//! needed region value is computed per element from the inputs read broadcast to the result
//! (rounded to its element type as the interpreter stores it), with no intermediate buffers.
//! A matmul epilogue region (an f32 `matmul` first, then elementwise ops of its result's shape)
//! becomes the packed matmul kernel with those ops applied to each output tile as it is finished
//! (`matmul::Epilogue`), with no intermediate buffer. A reduction region (elementwise producers,
//! then `reduce`/`softmax`/`layer_norm`) becomes the anchor's kernel reading its data operand
//! through the producers per element (`reduce::Producer`) when the producers' inputs have the
//! operand's shape. Otherwise (layout ops, broadcast inputs of a reduction, results of
//! different shapes) the region's ops are lowered one after another like a function body, with
//! the same buffer plan.

use rustc_hash::FxHashMap;
use xcs_dialects::interp::ElemType;
use xcs_dialects::tensor::elementwise::ElementwiseFn;
use xcs_dialects::tensor::{BroadcastToOp, ConstantOp, FusedOp, LayerNormOp, MatmulOp, ReduceOp, SoftmaxOp, YieldOp};
use xcs_ir::{Block, Body, Op, Value};

use super::elementwise::{eval, function_of, is_f32_product, quotient_form, ElementwiseMessages, QuotientForm};
use super::math::{MathBuilder, Quotient};
use super::reduce::{self, Producer};
use super::{layout, matmul};
use crate::codegen::function::lower_region_block;
use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::{broadcast_dims, for_each_element};
use crate::codegen::module::port_of;
use crate::codegen::{
    check_result_dims, row_major, FunctionLowering, Kernel, LowerError, LowerFn, OpSite, RunTimeCheck, Slot, TensorVal,
    R,
};

/// The lowering of `tensor.fused`.
pub static FUSED: LowerFn = LowerFn(fused);
/// `tensor.yield` is lowered with its region's `tensor.fused`; anywhere else it is an error.
pub static YIELD: LowerFn = LowerFn(|_, o| Err(o.err(&format!("outside a '{}' region", FusedOp::DEF.name))));

/// How one needed region value is computed per element.
enum Node {
    /// Leaf `i` of the kernel's inputs.
    Leaf(usize),
    /// The value of the anchor (the matmul of an epilogue) at this element.
    Anchor,
    /// An elementwise op on other values.
    Elementwise {
        func: ElementwiseFn,
        args: Vec<Value>,
        ins: Vec<ElemType>,
        out: ElemType,
        msgs: ElementwiseMessages,
        site: i32,
    },
    /// `broadcast_to`: the operand's value at the projected index.
    Same(Value),
}

/// Lowers a `tensor.fused` op: the first of one nest, a matmul epilogue, a reduction prologue
/// that its region qualifies for, else its ops one by one.
fn fused(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let body = o.body.nested(o.op).ok_or_else(|| o.err("has no body"))?;
    let region = *body.root_regions().first().ok_or_else(|| o.err("has no region"))?;
    let entry = body.entry_block(region).ok_or_else(|| o.err("has no block"))?;
    let inputs = o.operands(fl)?;
    let args = body.block_args(entry).to_vec();
    if args.len() != inputs.len() {
        return Err(o.err("block arguments do not match the operands"));
    }
    let ops = body.block_op_vec(entry);
    let (inner, yields) = match ops.split_last() {
        Some((&term, inner)) => (inner.to_vec(), yielded(fl, body, term)),
        None => (Vec::new(), None),
    };
    let region = FusedRegion { o, body, entry, args, inputs, inner, yields };
    if let Some(r) = try_one_nest(fl, &region)? {
        return Ok(r);
    }
    if let Some(r) = try_matmul_epilogue(fl, &region)? {
        return Ok(r);
    }
    if let Some(r) = try_reduction_prologue(fl, &region)? {
        return Ok(r);
    }
    materialize(fl, region)
}

/// The region of the `tensor.fused` op being lowered: its one block, split into the ops before
/// the terminator and what the terminator yields, and the operand tensors its arguments stand for.
struct FusedRegion<'a> {
    /// The fused op.
    o: &'a OpSite<'a>,
    body: &'a Body,
    entry: Block,
    args: Vec<Value>,
    inputs: Vec<TensorVal>,
    /// The block's ops before its terminator.
    inner: Vec<Op>,
    /// The values the terminator yields (`None`: the block is empty or does not end in
    /// `tensor.yield`).
    yields: Option<Vec<Value>>,
}

/// The needed region values of an elementwise nest, in order, and how each is computed.
struct Nest {
    nodes: Vec<(Value, Node)>,
    /// Each node's position in `nodes`.
    index: FxHashMap<Value, usize>,
    /// Per node: computed plainly or as a quotient ([`plan_quotients`]).
    forms: Vec<Form>,
    leaves: Vec<TensorVal>,
    out_dims: Vec<Val>,
    yields: Vec<Value>,
}

impl Nest {
    /// The fused op's results, allocated with the nest's sizes (checked against the result types).
    fn new_results(&self, fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<TensorVal>> {
        let mut outs = Vec::new();
        for i in 0..self.yields.len() {
            let (rd, relem) = o.result(fl, i)?;
            let d = check_result_dims(fl, o, self.out_dims.clone(), &rd)?;
            outs.push(fl.new_tensor(relem, &d)?);
        }
        Ok(outs)
    }

    /// The yielded values at one element, from the leaves' values (and the anchor's).
    fn eval(&self, k: &mut Kernel, anchor: Option<&Val>, leaf_vals: &[Val]) -> R<Vec<Val>> {
        let index = &self.index;
        let mut vals: Vec<ElementValue> = Vec::with_capacity(self.nodes.len());
        let get = |vals: &[ElementValue], x: &Value| vals[index[x]].value();
        for ((_, n), form) in self.nodes.iter().zip(&self.forms) {
            let v = match n {
                Node::Leaf(i) => ElementValue::Value(leaf_vals[*i].clone()),
                Node::Anchor => ElementValue::Value(anchor.cloned().ok_or_else(|| LowerError::internal("no anchor value"))?),
                Node::Same(x) => ElementValue::Value(get(&vals, x)?),
                Node::Elementwise {
                    func,
                    args,
                    ins,
                    out,
                    msgs,
                    site,
                } => match *form {
                    Form::Plain => {
                        let a: Vec<Val> = args.iter().map(|x| get(&vals, x)).collect::<R<_>>()?;
                        ElementValue::Value(eval(k, *site, msgs, *func, ins, *out, &a)?)
                    }
                    Form::Factor(quotient) => {
                        let mb = &mut MathBuilder::scalar(&mut k.m, &mut k.f);
                        let (num, den) = (quotient.emit)(mb, &get(&vals, &args[0])?);
                        ElementValue::Quotient(Quotient { num, den })
                    }
                    Form::Product { deferred, .. } => {
                        let (ElementValue::Quotient(a), ElementValue::Quotient(b)) =
                            (&vals[index[&args[0]]], &vals[index[&args[1]]])
                        else {
                            return Err(LowerError::internal("a product of quotients of plain values"));
                        };
                        let mb = &mut MathBuilder::scalar(&mut k.m, &mut k.f);
                        let q = a.times(mb, b);
                        if deferred {
                            ElementValue::Quotient(q)
                        } else {
                            ElementValue::Value(q.value(mb))
                        }
                    }
                },
            };
            vals.push(v);
        }
        self.yields.iter().map(|y| get(&vals, y)).collect()
    }
}

/// A node's value at one element: computed, or a quotient whose division is left to the product
/// that uses it.
enum ElementValue {
    Value(Val),
    Quotient(Quotient),
}

impl ElementValue {
    fn value(&self) -> R<Val> {
        match self {
            ElementValue::Value(v) => Ok(v.clone()),
            ElementValue::Quotient(_) => Err(LowerError::internal("a deferred quotient read as a value")),
        }
    }
}

/// How a nest node is computed.
#[derive(Clone, Copy)]
enum Form {
    Plain,
    /// A `tanh` or `sigmoid` whose one use is a product of quotients.
    Factor(QuotientForm),
    /// An f32 product of two factors or products of one use each: the quotients multiplied,
    /// then divided unless `deferred` (its one use is again such a product); `bound_log2` of its
    /// numerator and denominator is the sum of its factors'.
    Product { deferred: bool, bound_log2: u32 },
}

impl Form {
    /// `log2` of the bound of the node's quotient, if it has one.
    fn bound_log2(&self) -> Option<u32> {
        match self {
            Form::Plain => None,
            Form::Factor(q) => Some(q.bound_log2),
            Form::Product { bound_log2, .. } => Some(*bound_log2),
        }
    }
}

/// The form of each node: products of `tanh` and `sigmoid` results (`tanh(u) * sigmoid(v)`,
/// also through several products) share one division ([`Quotient`]) while their numerators' and
/// denominators' bounds stay below 2^128 (four `tanh` factors); everything else is plain.
fn plan_quotients(nodes: &[(Value, Node)], index: &FxHashMap<Value, usize>, yields: &[Value]) -> Vec<Form> {
    let mut uses = vec![0usize; nodes.len()];
    let used: Vec<&Value> = nodes
        .iter()
        .flat_map(|(_, n)| match n {
            Node::Elementwise { args, .. } => args.iter().collect(),
            Node::Same(x) => vec![x],
            _ => vec![],
        })
        .chain(yields)
        .collect();
    for v in used {
        if let Some(&i) = index.get(v) {
            uses[i] += 1;
        }
    }
    let mut forms = vec![Form::Plain; nodes.len()];
    let mut in_product = vec![false; nodes.len()];
    for (i, (_, n)) in nodes.iter().enumerate() {
        let Node::Elementwise { func, args, ins, out, .. } = n else { continue };
        if let Some(q) = quotient_form(*func, ins, *out) {
            forms[i] = Form::Factor(q);
        } else if is_f32_product(*func, ins, *out) && args[0] != args[1] {
            let factors: Vec<usize> = args.iter().filter_map(|a| index.get(a).copied()).collect();
            let bounds: Vec<u32> = factors
                .iter()
                .filter(|&&j| uses[j] == 1)
                .filter_map(|&j| forms[j].bound_log2())
                .collect();
            let bound_log2: u32 = bounds.iter().sum();
            if bounds.len() == 2 && bound_log2 < 128 {
                forms[i] = Form::Product { deferred: false, bound_log2 };
                factors.iter().for_each(|&j| in_product[j] = true);
            }
        }
    }
    for (form, &in_product) in forms.iter_mut().zip(&in_product) {
        *form = match *form {
            Form::Factor(_) if !in_product => Form::Plain,
            Form::Product { bound_log2, .. } => Form::Product { deferred: in_product, bound_log2 },
            f => f,
        };
    }
    forms
}

/// The region as one loop nest, if it qualifies (`None` otherwise; nothing is emitted then).
fn try_one_nest(fl: &mut FunctionLowering, region: &FusedRegion) -> R<Option<Vec<Slot>>> {
    let Some(yields) = region.yields.clone() else {
        return Ok(None);
    };
    let Some(nest) = plan_nest(fl, region, yields, &region.inner, None)? else {
        return Ok(None);
    };
    let outs = nest.new_results(fl, region.o)?;
    let mut kbody = |k: &mut Kernel, leaf_vals: &[Val]| nest.eval(k, None, leaf_vals);
    for_each_element(fl, "fused", &nest.leaves, &outs, &nest.out_dims, &mut kbody)?;
    Ok(Some(outs.into_iter().map(Slot::Tensor).collect()))
}

/// A matmul epilogue region as the f32 matmul kernel with the region's elementwise ops applied
/// per output tile, if it qualifies (`None` otherwise; then only run-time checks were emitted).
fn try_matmul_epilogue(fl: &mut FunctionLowering, region: &FusedRegion) -> R<Option<Vec<Slot>>> {
    let ctx = fl.ctx();
    let FusedRegion { o, body, ref args, ref inputs, .. } = *region;
    let Some((&mm, rest)) = region.inner.split_first() else {
        return Ok(None);
    };
    if !MatmulOp::matches(ctx, body.op_name(mm)) || rest.is_empty() {
        return Ok(None);
    }
    // f32 operands and result (the packed kernel), operands that are region arguments.
    let f32_of = |v: Value| port_of(ctx, body.value_type(v)).map(|p| p.elem == ElemType::F32);
    let c = body.result(mm, 0);
    let (xa, xb) = (body.operand(mm, 0), body.operand(mm, 1));
    if ![xa, xb, c].into_iter().all(|v| f32_of(v).unwrap_or(false)) {
        return Ok(None);
    }
    let (Some(ia), Some(ib)) = (args.iter().position(|v| *v == xa), args.iter().position(|v| *v == xb)) else {
        return Ok(None);
    };
    // The matmul's checks and sizes, with its operands visible to it.
    let sub = OpSite::new(fl, body, mm);
    let operands = [(xa, inputs[ia].clone()), (xb, inputs[ib].clone())];
    let plan = with_values(fl, &operands, |fl| matmul::plan(fl, &sub))?;
    if !plan.f32_kernel() {
        return Ok(None);
    }
    let anchor = (c, plan.dims.as_slice());
    let Some(yields) = region.yields.clone() else {
        return Ok(None);
    };
    let Some(nest) = plan_nest(fl, region, yields, rest, Some(anchor))? else {
        return Ok(None);
    };
    if nest.out_dims != plan.dims {
        return Ok(None);
    }
    let outs = nest.new_results(fl, o)?;
    // C: the matmul's result when it is yielded, else an f32 output (updated in place: each
    // element is read before it is written), else a scratch tensor.
    let (cbuf, scratch) = match nest.yields.iter().position(|y| *y == c) {
        Some(i) => (outs[i].clone(), false),
        None => match outs.iter().find(|t| t.elem == ElemType::F32) {
            Some(t) => (t.clone(), false),
            None => (fl.new_tensor(ElemType::F32, &plan.dims)?, true),
        },
    };
    let mut eval = |k: &mut Kernel, acc: &Val, leaf_vals: &[Val]| nest.eval(k, Some(acc), leaf_vals);
    let epi = matmul::Epilogue {
        leaves: nest.leaves.clone(),
        outs: outs.clone(),
        eval: &mut eval,
    };
    matmul::matmul_f32_into(fl, &sub, &plan, &cbuf, epi)?;
    if scratch {
        fl.kill_slot(&Slot::Tensor(cbuf));
    }
    Ok(Some(outs.into_iter().map(Slot::Tensor).collect()))
}

/// The values `term` yields, if it is the region's `tensor.yield`.
fn yielded(fl: &FunctionLowering, body: &Body, term: Op) -> Option<Vec<Value>> {
    YieldOp::matches(fl.ctx(), body.op_name(term)).then(|| body.operands(term).collect())
}

/// Runs `f` with `vals` defined (region arguments an anchor op reads), then hides them again.
/// The region's values are numbered in the region's own body, so one may have the number of a
/// value of the function (`%arg0` of both): what each shadowed is put back, in reverse order,
/// so that a value listed twice (`matmul %a, %a`) restores the function's value, not its own
/// (found by the pass fuzzer: a returned argument came back as the matmul's input).
fn with_values<T>(
    fl: &mut FunctionLowering,
    vals: &[(Value, TensorVal)],
    f: impl FnOnce(&mut FunctionLowering) -> R<T>,
) -> R<T> {
    let prev: Vec<Option<Slot>> = vals
        .iter()
        .map(|(v, t)| fl.vals.insert(*v, Slot::Tensor(t.clone())))
        .collect();
    let r = f(fl);
    for ((v, _), p) in vals.iter().zip(prev).rev() {
        match p {
            Some(p) => fl.vals.insert(*v, p),
            None => fl.vals.remove(v),
        };
    }
    r
}

/// A reduction region (elementwise producers, then a `reduce`, `softmax` or `layer_norm` whose
/// result is the region's) as the anchor's kernel reading its data operand through the
/// producers, per element, with no intermediate buffer ([`Producer`]). Qualifies when the
/// producers' inputs have the data operand's shape and are contiguous (or are one element) and
/// the anchor's other operands are region arguments; `None` otherwise.
fn try_reduction_prologue(fl: &mut FunctionLowering, region: &FusedRegion) -> R<Option<Vec<Slot>>> {
    let ctx = fl.ctx();
    let FusedRegion { o, body, ref args, ref inputs, .. } = *region;
    let Some((&anchor, pro)) = region.inner.split_last() else {
        return Ok(None);
    };
    let Some(lower_from) = reduction_from_producer(fl.ctx(), body, anchor) else {
        return Ok(None);
    };
    if pro.is_empty() {
        return Ok(None);
    }
    if region.yields != Some(vec![body.result(anchor, 0)]) {
        return Ok(None);
    }
    let xv = body.operand(anchor, 0);
    if args.contains(&xv) {
        return Ok(None);
    }
    let mut others = Vec::new();
    for v in body.operands(anchor).skip(1) {
        let Some(i) = args.iter().position(|a| *a == v) else {
            return Ok(None);
        };
        others.push((v, inputs[i].clone()));
    }
    let Some(nest) = plan_nest(fl, region, vec![xv], pro, None)? else {
        return Ok(None);
    };
    let same =
        |l: &TensorVal| l.dims.iter().all(|d| d.as_i64() == Some(1)) || (l.contiguous && l.dims == nest.out_dims);
    if !nest.leaves.iter().all(same) {
        return Ok(None);
    }
    let elem = port_of(ctx, body.value_type(xv)).map_err(|e| o.err(&e))?.elem;
    let strides = row_major(&mut fl.f, &nest.out_dims);
    let x = TensorVal {
        ptr: Val::new("ptr", "null"),
        dims: nest.out_dims.clone(),
        strides,
        elem,
        contiguous: true,
        buf: None,
    };
    let eval = |k: &mut Kernel, leaf_vals: &[Val]| nest.eval(k, None, leaf_vals);
    let prod = Producer {
        leaves: &nest.leaves,
        eval: &eval,
    };
    let sub = OpSite::new(fl, body, anchor);
    let r = with_values(fl, &others, |fl| lower_from(fl, &sub, x, Some(prod)))?;
    Ok(Some(r))
}

/// The lowering from a [`Producer`] of `op`, if it is a reduction-like op (`reduce`, `softmax`,
/// `layer_norm`).
fn reduction_from_producer(ctx: &xcs_ir::Context, body: &Body, op: Op) -> Option<reduce::FromProducer> {
    let name = body.op_name(op);
    if ReduceOp::matches(ctx, name) {
        Some(reduce::reduce_from)
    } else if SoftmaxOp::matches(ctx, name) {
        Some(reduce::softmax_from)
    } else if LayerNormOp::matches(ctx, name) {
        Some(reduce::layer_norm_from)
    } else {
        None
    }
}

/// Plans the elementwise nest of `inner` (elementwise ops, `broadcast_to`, constants) computing
/// `yields` with one shape from the arguments of `region`; `anchor` is a value computed
/// elsewhere (an epilogue's matmul result, with its sizes). `None` when the ops do not qualify
/// (nothing emitted then).
fn plan_nest(
    fl: &mut FunctionLowering,
    region: &FusedRegion,
    yields: Vec<Value>,
    inner: &[Op],
    anchor: Option<(Value, &[Val])>,
) -> R<Option<Nest>> {
    let FusedRegion { o, body, ref args, ref inputs, .. } = *region;
    if !inner_ops_qualify(fl, o, body, inner)? || yields.is_empty() {
        return Ok(None);
    }
    let needed = needed_values(body, &yields, anchor.map(|(a, _)| a));
    // Sizes of every needed value (run-time broadcast checks), leaves and nodes in order.
    let mut plan = NestPlan {
        dims: FxHashMap::default(),
        nodes: Vec::new(),
        leaves: Vec::new(),
    };
    if let Some((a, d)) = anchor {
        if needed.contains(&a) {
            plan.dims.insert(a, d.to_vec());
            plan.nodes.push((a, Node::Anchor));
        }
    }
    for (a, t) in args.iter().zip(inputs) {
        if needed.contains(a) {
            plan.add_leaf(*a, t.clone());
        }
    }
    for &op in inner {
        let r = body.result(op, 0);
        if !needed.contains(&r) {
            continue;
        }
        let sub = OpSite::new(fl, body, op);
        let name = body.op_name(op);
        if ConstantOp::matches(fl.ctx(), name) {
            let Slot::Tensor(t) = layout::constant(fl, &sub)?.remove(0) else {
                return Ok(None);
            };
            plan.add_leaf(r, t);
        } else if BroadcastToOp::matches(fl.ctx(), name) {
            plan.add_broadcast(fl, o, &sub)?;
        } else {
            plan.add_elementwise(fl, o, &sub)?;
        }
    }
    // One shape for all results.
    let NestPlan { dims, nodes, leaves } = plan;
    let out_dims = dims
        .get(&yields[0])
        .cloned()
        .ok_or_else(|| o.err("yields an undefined value"))?;
    if yields.iter().any(|y| dims.get(y) != Some(&out_dims)) {
        return Ok(None);
    }
    let index: FxHashMap<Value, usize> = nodes.iter().enumerate().map(|(i, (v, _))| (*v, i)).collect();
    let forms = plan_quotients(&nodes, &index, &yields);
    Ok(Some(Nest {
        nodes,
        index,
        forms,
        leaves,
        out_dims,
        yields,
    }))
}

/// Whether every op of `inner` is elementwise, a `broadcast_to` or a constant, with one result.
fn inner_ops_qualify(fl: &FunctionLowering, o: &OpSite, body: &Body, inner: &[Op]) -> R<bool> {
    let ctx = fl.ctx();
    for &op in inner {
        let name = body.op_name(op);
        let ok = BroadcastToOp::matches(ctx, name)
            || ConstantOp::matches(ctx, name)
            || function_of(fl, &OpSite::with_site(ctx, body, op, o.site))?.is_some();
        if !ok || body.num_results(op) != 1 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The values `yields` need, through the ops that define them (`anchor` is computed elsewhere).
fn needed_values(body: &Body, yields: &[Value], anchor: Option<Value>) -> Vec<Value> {
    let mut needed: Vec<Value> = yields.to_vec();
    let mut i = 0;
    while i < needed.len() {
        if anchor == Some(needed[i]) {
            i += 1;
            continue;
        }
        if let Some(d) = body.defining_op(needed[i]) {
            for v in body.operands(d) {
                if !needed.contains(&v) {
                    needed.push(v);
                }
            }
        }
        i += 1;
    }
    needed
}

/// A nest being planned: the sizes of the values planned so far, their nodes and the leaves.
struct NestPlan {
    dims: FxHashMap<Value, Vec<Val>>,
    nodes: Vec<(Value, Node)>,
    leaves: Vec<TensorVal>,
}

impl NestPlan {
    /// `v` is read from tensor `t`.
    fn add_leaf(&mut self, v: Value, t: TensorVal) {
        self.dims.insert(v, t.dims.clone());
        self.nodes.push((v, Node::Leaf(self.leaves.len())));
        self.leaves.push(t);
    }

    /// The sizes of `v`, planned before (`o` is the fused op, for the error).
    fn dims_of(&self, o: &OpSite, v: Value) -> R<Vec<Val>> {
        self.dims
            .get(&v)
            .cloned()
            .ok_or_else(|| o.err("uses a value before it is defined"))
    }

    /// A `broadcast_to` (`sub`): its operand's value at the projected index, with its run-time
    /// size checks.
    fn add_broadcast(&mut self, fl: &mut FunctionLowering, o: &OpSite, sub: &OpSite) -> R<()> {
        let (body, op) = (sub.body, sub.op);
        let x = body.operand(op, 0);
        let xd = self.dims_of(o, x)?;
        let (rd, _) = sub.result(fl, 0)?;
        let off = rd
            .len()
            .checked_sub(xd.len())
            .ok_or_else(|| sub.err("cannot broadcast to a lower rank"))?;
        let td: Vec<Val> = rd
            .iter()
            .enumerate()
            .map(|(i, &d)| match d {
                xcs_ir::DYNAMIC if i >= off => xd[i - off].clone(),
                xcs_ir::DYNAMIC => Val::i64(1),
                d => Val::i64(d),
            })
            .collect();
        let msg = sub.msg(fl, "cannot broadcast size %lld to %lld");
        for (i, d) in xd.iter().enumerate() {
            let t = &td[off + i];
            let ne = fl.f.icmp("ne", d, t);
            let n1 = fl.f.icmp("ne", d, &Val::i64(1));
            let bad = fl.f.and(&ne, &n1);
            fl.fail2_if(&bad, sub.site, &msg, d, t);
        }
        let r = body.result(op, 0);
        self.dims.insert(r, td);
        self.nodes.push((r, Node::Same(x)));
        Ok(())
    }

    /// An elementwise op (`sub`): its function of its operands' values, with the run-time
    /// broadcast checks of its sizes.
    fn add_elementwise(&mut self, fl: &mut FunctionLowering, o: &OpSite, sub: &OpSite) -> R<()> {
        let (body, op) = (sub.body, sub.op);
        let func = function_of(fl, sub)?.ok_or_else(|| sub.err("is not elementwise"))?;
        let a: Vec<Value> = body.operands(op).collect();
        let ad: Vec<Vec<Val>> = a.iter().map(|v| self.dims_of(o, *v)).collect::<R<_>>()?;
        let refs: Vec<&[Val]> = ad.iter().map(|d| d.as_slice()).collect();
        let d = broadcast_dims(fl, sub, &refs)?;
        let (rd, out) = sub.result(fl, 0)?;
        let d = check_result_dims(fl, sub, d, &rd)?;
        let ctx = fl.ctx();
        let elem_of = |v: &Value| -> R<ElemType> {
            port_of(ctx, body.value_type(*v))
                .map(|p| p.elem)
                .map_err(|e| sub.err(&e))
        };
        let operand_elems: Vec<ElemType> = match func {
            // The condition's element type is not computed on.
            ElementwiseFn::Select => a[1..].iter().map(elem_of).collect::<R<_>>()?,
            _ => a.iter().map(elem_of).collect::<R<_>>()?,
        };
        let r = body.result(op, 0);
        self.dims.insert(r, d);
        let msgs = ElementwiseMessages::new(fl, sub);
        let site = sub.site;
        self.nodes.push((
            r,
            Node::Elementwise {
                func,
                args: a,
                ins: operand_elems,
                out,
                msgs,
                site,
            },
        ));
        Ok(())
    }
}

/// The region's ops lowered one by one (intermediate buffers planned by liveness).
fn materialize(fl: &mut FunctionLowering, region: FusedRegion) -> R<Vec<Slot>> {
    let FusedRegion { o, body, entry, args, inputs, .. } = region;
    let saved = std::mem::take(&mut fl.vals);
    for (a, t) in args.iter().zip(inputs) {
        fl.define(*a, Slot::Tensor(t));
    }
    let res = lower_region_block(fl, body, entry);
    let nested = std::mem::replace(&mut fl.vals, saved);
    let yields = res?.ok_or_else(|| o.err(&format!("region does not end in '{}'", YieldOp::DEF.name)))?;
    let mut out = Vec::new();
    for y in &yields {
        out.push(
            nested
                .get(y)
                .cloned()
                .ok_or_else(|| o.err("yields an undefined value"))?,
        );
    }
    // Values still alive in the region (unused arguments, yielded values) drop their references.
    for (v, s) in nested {
        if yields.contains(&v) {
            // Handed to the fused op's results, which count their own references.
            fl.unref(&s);
        } else {
            fl.kill_slot(&s);
        }
    }
    Ok(out)
}
