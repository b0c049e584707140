//! `vmap-batch` (seed 001): every `xcs.vmap` whose body is tensor-only becomes batched tensor
//! ops with the batch dimension leading (prefix semantics; nested maps, done innermost first,
//! stack their batch dims at the front); every other `xcs.vmap` becomes an `xcs.parallel_map`
//! with the same region. Calls in a batched body go to batched clones of their callees
//! ([`clones`]). Each op is batched by its own rule, the `dyn BatchingRule` interface declared
//! with the op (`xcs_dialects::interfaces::batching`); [`translate`] applies the rules to a
//! block. `docs/vmap-batch.md` describes the whole transformation.

mod clones;
mod translate;

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use xcs_dialects::func::{CallOp, FuncOp};
use xcs_dialects::interfaces::batching::{move_dim_perm, BatchedValue, Batcher, Unbatchable};
use xcs_dialects::shape::norm_axis;
use xcs_dialects::shard::{ShardOp, ShardingOp};
use xcs_dialects::xcs::{ParallelMapOp, VmapOp, YieldOp};
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{IntKind, OptionKind, OptionSpec, Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic, Op, OperationState, Type, TypeKind, Value, DYNAMIC};

use crate::util;
use clones::{Env, State};
use translate::{is_tensor_def, CallBatcher, Translator};

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "max-concurrency",
        kind: OptionKind::Int(IntKind::UInt),
        default: "0",
        description: "The max_concurrency of the xcs.parallel_map ops made of orchestration and hybrid bodies (0: no attribute, the runtime's default, one thread per CPU)",
    },
    OptionSpec {
        name: "remarks",
        kind: OptionKind::Bool,
        default: "false",
        description: "Emit a remark at each xcs.vmap saying whether it was batched or why it became an xcs.parallel_map",
    },
];

pub const INFO: PassInfo = PassInfo {
    argument: "vmap-batch",
    name: "VmapBatch",
    summary: "Batch tensor-only xcs.vmap bodies; run the others as xcs.parallel_map",
    description: "Rewrites every `xcs.vmap` of the module, innermost first. A *tensor-only* body \
(only `tensor` ops, `shard` annotations, `xcs.yield`, and `func.call`s of functions whose `xcs.class` is `\"tensor\"`, or, \
for functions without a class or with class `\"none\"`, whose body is made of tensor ops) becomes the \
same computation on batched tensors: the batch dimension is the leading one (prefix semantics); an \
operand with `in_axes = k` is transposed to bring dim `k` to the front, an `in_axes = -1` operand is \
used unbatched; results with `out_axes = k` are transposed to put the batch dim at `k`; a result with \
`out_axes = -1` must not depend on the batched operands (an error otherwise). Each tensor op has a \
batching rule (axes shift by one; a batched operand of lower rank gets size-1 dims after the batch dim \
so that numpy broadcasting keeps the batch dim in front; a matmul with one unbatched operand stays one \
matmul); ops that use no batched value are computed once, before the batched ops. A call with batched \
arguments calls a batched clone of its callee, `@<callee>_batched_<B>_<mask>` (one per callee, batch \
size and batched-argument mask, private, added at the end of the module). Any other body (an `xcs.llm`, \
a call of an orchestration or hybrid function, ...) and any tensor-only body that a rule cannot batch \
(e.g. a `tensor.slice` with a dynamic batch size) becomes an `xcs.parallel_map` with the same operands, \
attributes and region, and `max_concurrency` from the `max-concurrency` option. Run `classify` first \
(`classify,vmap-batch`) so that calls are judged by their callee's class. See `docs/vmap-batch.md`.",
    options: OPTIONS,
    factory: |o, _| {
        Ok(Box::new(VmapBatch {
            max_concurrency: o.int("max-concurrency") as u32,
            remarks: o.bool("remarks"),
        }))
    },
};

/// The vmap-batch pass.
#[derive(Clone, Debug, Default)]
pub struct VmapBatch {
    /// `max_concurrency` of the `xcs.parallel_map`s it creates (0: none, the runtime default).
    pub max_concurrency: u32,
    /// Emit a remark per `xcs.vmap` with the outcome.
    pub remarks: bool,
}

/// What happened to the maps of a module (for tests and benchmarks).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub batched: usize,
    pub parallel: usize,
    pub clones: usize,
}

impl Pass for VmapBatch {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        util::require_symbol_table(ctx, body, "vmap-batch", diags)?;
        let stats = self.run_on_module(ctx, body, diags)?;
        Ok(PassResult::from_changed(stats.batched + stats.parallel > 0))
    }
}

/// Why a `vmap` could not be batched.
enum Fail {
    /// Fall back to `xcs.parallel_map`.
    Unbatchable(String),
    /// The program is wrong (an `out_axes = -1` result depends on the batch).
    Error(Diagnostic),
}

impl From<Unbatchable> for Fail {
    fn from(u: Unbatchable) -> Self {
        Fail::Unbatchable(u.0)
    }
}

impl VmapBatch {
    /// Runs the pass on a module body and says what it did.
    #[allow(clippy::result_unit_err)]
    pub fn run_on_module(&self, ctx: &Context, m: &mut Body, diags: &mut dyn DiagSink) -> Result<Stats, ()> {
        let Some(&region) = m.root_regions().first() else {
            return Ok(Stats::default());
        };
        // The module's functions, and which hold a vmap.
        let mut funcs: Vec<Op> = Vec::new();
        let mut index: FxHashMap<String, usize> = FxHashMap::default();
        for b in m.region_blocks(region) {
            for op in m.block_ops(b) {
                if util::has_trait(ctx, m, op, Traits::FunctionLike) && m.is_isolated(op) {
                    if let Some(name) = util::symbol_name(ctx, m, op) {
                        index.insert(name.to_string(), funcs.len());
                        funcs.push(op);
                    }
                }
            }
        }
        // Callees are processed before their callers (SCCs of the call graph, petgraph), so the
        // body a batched clone copies has its own maps done already.
        let mut g: DiGraph<usize, ()> = DiGraph::with_capacity(funcs.len(), funcs.len());
        let nodes: Vec<_> = (0..funcs.len()).map(|i| g.add_node(i)).collect();
        let mut has_vmap = vec![false; funcs.len()];
        // the map's name, from its declaration once (then an integer compare per op: the walk
        // visits every op of the module)
        let vmap = ctx.op_name(VmapOp::DEF.name);
        for (i, &f) in funcs.iter().enumerate() {
            let Some(fb) = m.nested(f) else { continue };
            for op in fb.walk_ops() {
                if fb.op_name(op) == vmap {
                    has_vmap[i] = true;
                } else if let Some(&j) = fb
                    .attr(ctx, op, "callee")
                    .and_then(|a| ctx.as_symbol(a))
                    .and_then(|c| index.get(c))
                {
                    g.add_edge(nodes[i], nodes[j], ());
                }
            }
        }
        let mut state = State::default();
        let mut stats = Stats::default();
        for scc in tarjan_scc(&g) {
            for n in scc {
                let i = g[n];
                if !has_vmap[i] {
                    continue;
                }
                let f = funcs[i];
                let Some(mut fb) = m.take_nested(f) else { continue };
                let result = {
                    let mut env = Env {
                        ctx,
                        module: m,
                        funcs: &funcs,
                        index: &index,
                        st: &mut state,
                    };
                    self.run_on_function(ctx, &mut fb, &mut env, &mut stats, diags)
                };
                m.set_nested(f, fb);
                result?;
            }
        }
        // The batched clones go at the end of the module, in creation order.
        let block = m.region_blocks(region).last();
        for (_, fb) in state.pending.drain(..) {
            let loc = fb.loc();
            let mut st = OperationState::of(ctx, FuncOp::DEF, loc);
            st.attrs = fb.self_attrs();
            st.nested = Some(fb);
            let op = m.create_op(st);
            if let Some(b) = block {
                m.append_op(b, op);
            }
            stats.clones += 1;
        }
        Ok(stats)
    }

    /// Rewrites the maps of one function body, innermost first.
    fn run_on_function(
        &self,
        ctx: &Context,
        fb: &mut Body,
        env: &mut Env<'_>,
        stats: &mut Stats,
        diags: &mut dyn DiagSink,
    ) -> Result<(), ()> {
        // Reverse pre-order: every inner map before the map holding it.
        let vmap = ctx.op_name(VmapOp::DEF.name);
        let maps: Vec<Op> = fb.walk_ops().into_iter().rev().filter(|&op| fb.op_name(op) == vmap).collect();
        for op in maps {
            let loc = fb.op_loc(op);
            let outcome = match tensor_only(ctx, fb, op, env) {
                Err(reason) => Err(format!("the body is not tensor-only: {reason}")),
                Ok(()) => match batch_vmap(ctx, fb, op, env) {
                    Ok(()) => Ok(()),
                    Err(Fail::Unbatchable(reason)) => Err(format!("the tensor-only body cannot be batched: {reason}")),
                    Err(Fail::Error(d)) => {
                        diags.emit(d);
                        return Err(());
                    }
                },
            };
            match outcome {
                Ok(()) => {
                    stats.batched += 1;
                    if self.remarks {
                        diags.emit(Diagnostic::remark(loc, format!("'{}' op batched", VmapOp::DEF.name)));
                    }
                }
                Err(reason) => {
                    to_parallel_map(ctx, fb, op, self.max_concurrency);
                    stats.parallel += 1;
                    if self.remarks {
                        diags.emit(Diagnostic::remark(
                            loc,
                            format!(
                                "'{}' op became '{}': {reason}",
                                VmapOp::DEF.name,
                                ParallelMapOp::DEF.name
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// `Ok` if every op of the map's body is a tensor op, the map's `xcs.yield` or a call of a tensor
/// function; otherwise the first op that is not.
fn tensor_only(ctx: &Context, fb: &Body, op: Op, env: &mut Env<'_>) -> Result<(), String> {
    let mut ops = Vec::new();
    for &r in fb.regions(op) {
        fb.walk_region_into(r, &mut ops);
    }
    for o in ops {
        // tensor ops (most ops: tested first, on the one definition lookup), the map's yield, and
        // sharding annotations: identities that batch with the batch dim unsplit
        let def = util::def(ctx, fb, o);
        if def.is_some_and(|d| is_tensor_def(d) || d.is::<YieldOp>() || d.is::<ShardOp>() || d.is::<ShardingOp>()) {
            continue;
        }
        if CallOp::cast(ctx, fb, o).is_some() {
            let callee = fb.attr(ctx, o, "callee").and_then(|a| ctx.as_symbol(a)).unwrap_or("");
            match env.class_of(callee).as_deref() {
                Some("tensor") => continue,
                Some(c @ ("orchestration" | "hybrid")) => {
                    return Err(format!("it calls @{callee}, classified \"{c}\""))
                }
                _ if env.is_pure_tensor(callee) => continue,
                _ => {
                    return Err(format!(
                        "it calls @{callee}, which is neither classified \"tensor\" nor a function of tensor ops"
                    ))
                }
            }
        }
        return Err(format!("it contains '{}'", ctx.op_name_str(fb.op_name(o))));
    }
    Ok(())
}

/// The `i64` array attribute `key` of `op`.
fn axes(ctx: &Context, body: &Body, op: Op, key: &str) -> Result<Vec<i64>, Fail> {
    body.attr(ctx, op, key)
        .and_then(|a| ctx.as_i64_array(a))
        .ok_or_else(|| Fail::Unbatchable(format!("no valid '{key}' attribute")))
}

fn rank_of(ctx: &Context, t: Type) -> Option<usize> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, .. } => Some(shape.len()),
        _ => None,
    }
}

/// Replaces a map with a tensor-only body by batched ops (see the module docs). On failure the
/// IR is unchanged.
fn batch_vmap(ctx: &Context, fb: &mut Body, vmap: Op, env: &mut Env<'_>) -> Result<(), Fail> {
    let in_axes = axes(ctx, fb, vmap, "in_axes")?;
    let out_axes = axes(ctx, fb, vmap, "out_axes")?;
    let operands: SmallVec<[Value; 4]> = fb.operand_vec(vmap);
    let region = *fb
        .regions(vmap)
        .first()
        .ok_or_else(|| Fail::Unbatchable("no region".into()))?;
    let block = fb
        .entry_block(region)
        .ok_or_else(|| Fail::Unbatchable("no body block".into()))?;
    let term = fb
        .last_op(block)
        .ok_or_else(|| Fail::Unbatchable("an empty body".into()))?;
    let args: SmallVec<[Value; 4]> = fb.block_args(block).into();
    if in_axes.len() != operands.len()
        || args.len() != operands.len()
        || out_axes.len() != fb.num_results(vmap)
        || fb.num_operands(term) != out_axes.len()
    {
        return Err(Fail::Unbatchable(
            "operands, block arguments, axes and yielded values do not match".into(),
        ));
    }
    // The batch size: the first static one among the batched operands.
    let mut norm_in: Vec<Option<usize>> = Vec::with_capacity(operands.len());
    let mut batch = DYNAMIC;
    for (&v, &ax) in operands.iter().zip(&in_axes) {
        if ax == -1 {
            norm_in.push(None);
            continue;
        }
        let t = fb.value_type(v);
        let shape = ctx
            .shape(t)
            .filter(|_| ctx.is_ranked_tensor(t))
            .ok_or_else(|| Fail::Unbatchable("a batched operand is not a ranked tensor".into()))?;
        let k = norm_axis(ax, shape.len()).map_err(Fail::Unbatchable)?;
        if batch == DYNAMIC {
            batch = shape[k];
        }
        norm_in.push(Some(k));
    }
    let mut tx = Translator::new(ctx, batch);
    let result = translate_vmap(
        ctx, fb, vmap, env, &mut tx, &operands, &args, &norm_in, &out_axes, block, term,
    );
    match result {
        Err(e) => {
            tx.rollback(fb);
            Err(e)
        }
        Ok(finals) => {
            // Hoist the kept and the new ops (in order) before the map, then drop the map with
            // the old ops still in its body.
            for o in fb.block_op_vec(block) {
                if o != term && !tx.is_replaced(o) {
                    fb.move_op_before(o, vmap);
                }
            }
            for (j, v) in finals.into_iter().enumerate() {
                let r = fb.result(vmap, j);
                fb.replace_all_uses(r, v);
            }
            fb.erase_op(vmap);
            Ok(())
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn translate_vmap(
    ctx: &Context,
    fb: &mut Body,
    vmap: Op,
    env: &mut Env<'_>,
    tx: &mut Translator<'_>,
    operands: &[Value],
    args: &[Value],
    norm_in: &[Option<usize>],
    out_axes: &[i64],
    block: xcs_ir::Block,
    term: Op,
) -> Result<Vec<Value>, Fail> {
    // Operands: batch dim to the front (new ops go at the start of the body for now).
    let first = fb.first_op(block).unwrap_or(term);
    for ((&v, &a), k) in operands.iter().zip(args).zip(norm_in) {
        let Some(k) = *k else {
            tx.bind(
                a,
                BatchedValue {
                    value: v,
                    batched: false,
                },
            );
            continue;
        };
        let rank = rank_of(ctx, fb.value_type(v)).unwrap_or(0);
        let arg_type = fb.value_type(a);
        let mut at_first = tx.at(fb, env, first);
        let moved = at_first.transpose(v, &move_dim_perm(rank, k, 0))?;
        let want = at_first.batched_type(arg_type)?;
        let cast = at_first.cast(moved, want)?;
        tx.bind(a, BatchedValue::batched(cast));
    }
    for op in fb.block_op_vec(block) {
        if op != term {
            tx.translate(fb, op, env)?;
        }
    }
    // Results: the batch dim to out_axes, the declared type.
    let mut finals = Vec::with_capacity(out_axes.len());
    for (j, &ax) in out_axes.iter().enumerate() {
        let bv = tx.get(fb.operand(term, j));
        let rt = fb.result_types(vmap)[j];
        let v = if ax == -1 {
            if bv.batched {
                return Err(Fail::Error(Diagnostic::op_error(
                    ctx,
                    fb,
                    vmap,
                    format!(
                        "result #{j} has out_axes = -1 (not batched), but the value yielded for it depends on the batched operands; give it a batch axis, or compute it from unbatched (in_axes = -1) operands only"
                    ),
                )));
            }
            bv.value
        } else {
            let mut at_term = tx.at(fb, env, term);
            let v = if bv.batched {
                bv.value
            } else {
                at_term.broadcast_batch(bv.value)?
            };
            let rank = rank_of(ctx, at_term.body().value_type(v)).unwrap_or(1);
            let k = norm_axis(ax, rank).map_err(|e| Fail::Unbatchable(format!("out_axes: {e}")))?;
            at_term.transpose(v, &move_dim_perm(rank, 0, k))?
        };
        finals.push(tx.at(fb, env, term).cast(v, rt)?);
    }
    Ok(finals)
}

/// Replaces a map by an `xcs.parallel_map` with the same operands, results, attributes and
/// region.
fn to_parallel_map(ctx: &Context, fb: &mut Body, vmap: Op, max_concurrency: u32) {
    let mut attrs = fb.attrs(vmap);
    if max_concurrency > 0 {
        attrs = ctx.dict_set(
            attrs,
            ctx.ident("max_concurrency"),
            Some(ctx.i64_attr(max_concurrency as i64)),
        );
    }
    let mut st = OperationState::of(ctx, ParallelMapOp::DEF, fb.op_loc(vmap))
        .operands(&fb.operand_vec(vmap))
        .results(&fb.result_types(vmap));
    st.attrs = attrs;
    st.props = fb.props(vmap);
    let old: SmallVec<[xcs_ir::Region; 1]> = fb.regions(vmap).into();
    for r in old {
        let nr = fb.create_region();
        fb.take_region_blocks(r, nr);
        st.regions.push(nr);
    }
    let pm = fb.create_op(st);
    fb.insert_op_before(vmap, pm);
    for j in 0..fb.num_results(vmap) {
        let (a, b) = (fb.result(vmap, j), fb.result(pm, j));
        fb.replace_all_uses(a, b);
    }
    fb.erase_op(vmap);
}
