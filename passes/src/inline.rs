//! `inline`: MLIR's inliner for `func.call` of `func.func`. The call graph of the module's
//! functions is split into strongly connected components (petgraph), visited callees first.
//! In each, the `default-pipeline` (canonicalize) simplifies the functions, then their calls
//! are inlined, and the calls that inlining brings in, up to `max-iterations` rounds. As in
//! MLIR, a callee that calls itself or the caller is never inlined, and an inline history
//! keeps a cycle from being unrolled forever within a round. Calls and callees marked
//! `no_inline`, declarations, and callees holding unregistered ops are skipped. A
//! single-block callee is spliced in; a multi-block one splits the caller's block and its
//! returns become `cf.br` to the continuation block, whose arguments replace the call's
//! results. Inlined locations become `callsite(callee_loc at call_loc)`. Functions that are
//! not public and unused, or whose last use was inlined, are erased.

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xcs_dialects::cf::BranchOp;
use xcs_ir::clone::Cloner;
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{IntKind, OpPassManager, OptionKind, OptionSpec, Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic, LocKind, Location, Op, OperationState, Region, Value};

use crate::util;

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "default-pipeline",
        kind: OptionKind::Str,
        default: "canonicalize",
        description: "The optimizer pipeline used for callables that do not have a dedicated optimizer pipeline in opPipelineList",
    },
    OptionSpec {
        name: "inlining-threshold",
        kind: OptionKind::Int(IntKind::UInt),
        default: "4294967295",
        description: "If the ratio between the number of the operations in the callee and the number of the operations in the caller exceeds this value (in percentage), then the callee is not inlined even if it is legal to inline it",
    },
    OptionSpec {
        name: "max-iterations",
        kind: OptionKind::Int(IntKind::UInt),
        default: "4",
        description: "Maximum number of iterations when inlining within an SCC",
    },
    OptionSpec {
        name: "op-pipelines",
        kind: OptionKind::StrList,
        default: "",
        description: "Callable operation specific optimizer pipelines (in the form of `dialect.op(pipeline)`); accepted, not used",
    },
];

pub const INFO: PassInfo = PassInfo {
    argument: "inline",
    name: "Inliner",
    summary: "Inline function calls",
    description: "Replaces `func.call`s of functions defined in the module by the callee's body \
(single-block callees are spliced in; multi-block callees split the caller's block and branch to a \
continuation block whose arguments are the results). Calls within a cycle of the call graph are \
not inlined, nor callees or calls marked `no_inline`, nor declarations. Inlined ops get \
`callsite(callee_loc at call_loc)` locations. As mlir-opt's inliner, each function is first \
simplified with `default-pipeline`, and private functions left without uses are erased.",
    options: OPTIONS,
    factory: |o, registry| {
        let text = o.str("default-pipeline");
        let mut pipeline = OpPassManager::new("any");
        pipeline.parse_elements(text, registry).map_err(|e| e.message)?;
        Ok(Box::new(Inline {
            pipeline,
            threshold: o.int("inlining-threshold") as u64,
            max_iterations: o.int("max-iterations") as u64,
        }))
    },
};

/// The inliner pass.
pub struct Inline {
    /// Run on every function before its calls are inlined (MLIR's `default-pipeline`).
    pub pipeline: OpPassManager,
    /// Callee/caller op-count ratio limit in percent (`u32::MAX`: none).
    pub threshold: u64,
    pub max_iterations: u64,
}

impl Pass for Inline {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        util::require_symbol_table(ctx, body, "the inliner", diags)?;
        self.run_on_module(ctx, body, diags).map(PassResult::from_changed)
    }
}

/// The module's functions and the call graph between them (as it was before inlining).
struct Graph<'a> {
    nodes: &'a [Node],
    index: &'a FxHashMap<&'a str, usize>,
    /// The functions each function calls.
    edges: &'a [FxHashSet<usize>],
}

/// A function of the module.
struct Node {
    op: Op,
    name: String,
    /// Has a body.
    callable: bool,
    /// Not public (private or nested) with a body: erased when unused.
    discardable: bool,
    no_inline: bool,
}

impl Inline {
    fn run_on_module(&self, ctx: &Context, m: &mut Body, diags: &mut dyn DiagSink) -> Result<bool, ()> {
        let mut nodes: Vec<Node> = Vec::new();
        for op in m.top_ops() {
            if !util::has_trait(ctx, m, op, Traits::FunctionLike) || !m.is_isolated(op) {
                continue;
            }
            let Some(name) = util::symbol_name(ctx, m, op) else {
                continue;
            };
            let callable = m
                .nested(op)
                .is_some_and(|b| b.root_regions().first().is_some_and(|&r| !b.region_is_empty(r)));
            nodes.push(Node {
                op,
                name: name.to_string(),
                callable,
                discardable: callable && !util::is_public(ctx, m, op),
                no_inline: m.attr(ctx, op, "no_inline").is_some(),
            });
        }
        let index: FxHashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();

        // symbol uses of each function, anywhere in the module
        let mut uses = vec![0usize; nodes.len()];
        let mut refs = Vec::new();
        for op in m.top_ops() {
            util::nested_symbol_refs(ctx, m, op, &mut refs);
        }
        for (root, _) in refs.drain(..) {
            if let Some(&i) = index.get(ctx.str(root)) {
                uses[i] += 1;
            }
        }

        // call graph over callable functions
        let mut g: DiGraph<usize, ()> = DiGraph::new();
        let gi: Vec<_> = (0..nodes.len()).map(|i| g.add_node(i)).collect();
        let mut edges: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); nodes.len()];
        let mut ordered: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            let Some(fb) = m.nested(n.op).filter(|_| n.callable) else {
                continue;
            };
            for call in calls_in(ctx, fb) {
                if let Some(&j) = callee_of(ctx, fb, call).and_then(|c| index.get(c)) {
                    g.add_edge(gi[i], gi[j], ());
                    if edges[i].insert(j) {
                        ordered[i].push(j);
                    }
                }
            }
        }
        let sccs = tarjan_scc(&g); // callees before callers
        let roots = (0..nodes.len())
            .filter(|&i| !nodes[i].discardable)
            .chain(0..nodes.len());
        let discovery = dfs_discovery(&ordered, roots);

        let mut changed = false;
        let mut dead: Vec<usize> = Vec::new();
        for scc in &sccs {
            let mut members: Vec<usize> = scc.iter().map(|&n| g[n]).filter(|&i| nodes[i].callable).collect();
            // in the order LLVM's scc_iterator gives MLIR's inliner: the reverse of the DFS
            // discovery order from the public functions
            members.sort_unstable_by_key(|&i| std::cmp::Reverse(discovery[i]));
            members.retain(|&i| {
                if nodes[i].discardable && uses[i] == 0 {
                    dead.push(i);
                    false
                } else {
                    true
                }
            });
            let mut iteration = 0;
            loop {
                for &i in &members {
                    if let Some(fb) = m.nested_mut(nodes[i].op) {
                        changed |= self.pipeline.run_on_body(ctx, fb, diags)?;
                    }
                }
                let graph = Graph {
                    nodes: &nodes,
                    index: &index,
                    edges: &edges,
                };
                let inlined_any = self.inline_calls_in_scc(ctx, m, &graph, &members, &mut uses, &mut dead, diags)?;
                changed |= inlined_any;
                iteration += 1;
                if !inlined_any || iteration >= self.max_iterations {
                    break;
                }
            }
        }
        dead.sort_unstable();
        dead.dedup();
        for i in dead {
            if m.contains_op(nodes[i].op) {
                m.erase_op(nodes[i].op);
                changed = true;
            }
        }
        Ok(changed)
    }

    /// MLIR's `inlineCallsInSCC`: tries each call in the SCC's functions, in order, and the
    /// calls that inlining brings in, each remembering which inlined callees produced it (the
    /// inline history), so that a cycle is not inlined forever. Returns whether any call was
    /// inlined.
    #[allow(clippy::too_many_arguments)]
    fn inline_calls_in_scc(
        &self,
        ctx: &Context,
        m: &mut Body,
        graph: &Graph<'_>,
        members: &[usize],
        uses: &mut [usize],
        dead: &mut Vec<usize>,
        diags: &mut dyn DiagSink,
    ) -> Result<bool, ()> {
        let nodes = graph.nodes;
        // (caller, call, inline history entry that produced the call)
        let mut calls: Vec<(usize, Op, Option<usize>)> = Vec::new();
        for &f in members {
            if dead.contains(&f) {
                continue;
            }
            if let Some(fb) = m.nested(nodes[f].op) {
                calls.extend(calls_in(ctx, fb).into_iter().map(|c| (f, c, None)));
            }
        }
        // (inlined callee, the history entry of the call it was inlined at)
        let mut history: Vec<(usize, Option<usize>)> = Vec::new();
        let in_history = |history: &[(usize, Option<usize>)], callee: usize, mut h: Option<usize>| {
            while let Some(i) = h {
                if history[i].0 == callee {
                    return true;
                }
                h = history[i].1;
            }
            false
        };
        let mut any = false;
        let mut k = 0;
        while k < calls.len() {
            let (f, call, hist) = calls[k];
            k += 1;
            if dead.contains(&f) {
                continue;
            }
            let caller_op = nodes[f].op;
            let callee = {
                let Some(fb) = m.nested(caller_op) else { continue };
                if !fb.contains_op(call) || fb.attr(ctx, call, "no_inline").is_some() {
                    continue;
                }
                match callee_of(ctx, fb, call).and_then(|c| graph.index.get(c)) {
                    Some(&g) => g,
                    None => continue,
                }
            };
            let gnode = &nodes[callee];
            if !gnode.callable || gnode.no_inline || dead.contains(&callee) || in_history(&history, callee, hist) {
                continue;
            }
            // MLIR's `shouldInline`: never a self-recursive callee, nor one calling back into
            // the caller (A -> B -> A), nor the caller itself (a call that inlining brought in)
            if callee == f || graph.edges[callee].contains(&callee) || graph.edges[callee].contains(&f) {
                continue;
            }
            let mut pair = m.nested_many_mut(&[caller_op, gnode.op]);
            let (Some((_, callee_body)), Some((_, caller_body))) = (pair.pop(), pair.pop()) else {
                continue;
            };
            let callee_body: &Body = callee_body;
            if !self.profitable(caller_body, callee_body) || !legal_to_inline(ctx, caller_body, call, callee_body) {
                continue;
            }
            let mut added = Vec::new();
            for op in callee_body.top_ops() {
                util::nested_symbol_refs(ctx, callee_body, op, &mut added);
            }
            let before: FxHashSet<Op> = calls_in(ctx, caller_body).into_iter().collect();
            if let Err(msg) = inline_call(ctx, caller_body, call, callee_body) {
                diags.emit(Diagnostic::error(
                    caller_body.op_loc(call),
                    format!("failed to inline call: {msg}"),
                ));
                return Err(());
            }
            any = true;
            let entry = Some(history.len());
            history.push((callee, hist));
            for c in calls_in(ctx, caller_body) {
                if !before.contains(&c) {
                    calls.push((f, c, entry));
                }
            }
            uses[callee] = uses[callee].saturating_sub(1);
            for (root, _) in added {
                if let Some(&i) = graph.index.get(ctx.str(root)) {
                    uses[i] += 1;
                }
            }
            if nodes[callee].discardable && uses[callee] == 0 {
                dead.push(callee);
            }
        }
        Ok(any)
    }

    fn profitable(&self, caller: &Body, callee: &Body) -> bool {
        if self.threshold >= u32::MAX as u64 {
            return true;
        }
        let (callee_ops, caller_ops) = (callee.total_ops() as f64, caller.total_ops().max(1) as f64);
        callee_ops / caller_ops * 100.0 <= self.threshold as f64
    }
}

/// The preorder number of each node in a depth-first search from `roots` in order, following
/// `edges` in order.
fn dfs_discovery(edges: &[Vec<usize>], roots: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut disc = vec![usize::MAX; edges.len()];
    let mut next = 0;
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for r in roots {
        if disc[r] != usize::MAX {
            continue;
        }
        disc[r] = next;
        next += 1;
        stack.push((r, 0));
        while let Some((n, k)) = stack.last_mut() {
            let n = *n;
            match edges[n].get(*k) {
                Some(&c) => {
                    *k += 1;
                    if disc[c] == usize::MAX {
                        disc[c] = next;
                        next += 1;
                        stack.push((c, 0));
                    }
                }
                None => {
                    stack.pop();
                }
            }
        }
    }
    disc
}

/// The call ops of a function body (in its regions, not in nested isolated ops), in order.
fn calls_in(ctx: &Context, body: &Body) -> Vec<Op> {
    body.walk_ops()
        .into_iter()
        .filter(|&op| util::has_trait(ctx, body, op, Traits::CallLike))
        .collect()
}

fn callee_of<'c>(ctx: &'c Context, body: &Body, call: Op) -> Option<&'c str> {
    body.attr(ctx, call, "callee").and_then(|a| ctx.as_symbol(a))
}

/// MLIR's legality checks: the callee's ops are all registered, its region ends in
/// return-like terminators that match the call, and a multi-block callee only goes where
/// blocks may be added.
fn legal_to_inline(ctx: &Context, caller: &Body, call: Op, callee: &Body) -> bool {
    let Some(&region) = callee.root_regions().first() else {
        return false;
    };
    let Some(entry) = callee.entry_block(region) else {
        return false;
    };
    if callee.block_args(entry).len() != caller.num_operands(call) {
        return false;
    }
    let mut registered = true;
    callee.for_each_body(&mut |b| {
        registered &= b.walk_ops().into_iter().all(|op| ctx.op_def(b.op_name(op)).is_some());
    });
    if !registered {
        return false;
    }
    // every block ends in a terminator; return-like ones must return what the call expects
    for b in callee.region_blocks(region) {
        let Some(t) = callee.last_op(b) else { return false };
        if util::has_trait(ctx, callee, t, Traits::ReturnLike) && callee.num_operands(t) != caller.num_results(call) {
            return false;
        }
    }
    let multi = callee.next_block(entry).is_some();
    if multi {
        if !callee
            .block_ops(entry)
            .last()
            .is_some_and(|t| util::is_terminator(ctx, callee, t))
        {
            return false;
        }
        let parent = match caller.parent_op(call) {
            Some(p) => caller.op_name(p),
            None => caller.name(),
        };
        let ok = parent == callee.name() || ctx.op_def(parent).is_some_and(|d| !d.has(Traits::SingleBlock));
        if !ok || ctx.op_def(ctx.op_name(BranchOp::DEF.name)).is_none() {
            return false;
        }
    } else if !callee
        .last_op(entry)
        .is_some_and(|t| util::has_trait(ctx, callee, t, Traits::ReturnLike))
    {
        return false;
    }
    true
}

/// MLIR's `stackLocations`: `callsite(callee at caller)`, keeping call-site chains
/// right-nested (`callsite(a at callsite(b at c))`).
pub fn stack_locations(ctx: &Context, callee: Location, caller: Location) -> Location {
    let mut stack: SmallVec<[Location; 4]> = SmallVec::new();
    let mut last = callee;
    while let LocKind::CallSite { callee, caller } = ctx.loc_kind(last) {
        stack.push(callee);
        last = caller;
    }
    let mut loc = ctx.loc(LocKind::CallSite { callee: last, caller });
    for &c in stack.iter().rev() {
        loc = ctx.loc(LocKind::CallSite { callee: c, caller: loc });
    }
    loc
}

/// Inlines `callee`'s body at `call` in `caller` (see the module docs) and erases the call.
/// The callee must have passed [`legal_to_inline`].
pub fn inline_call(ctx: &Context, caller: &mut Body, call: Op, callee: &Body) -> Result<(), String> {
    let region = callee.root_regions()[0];
    let blocks: Vec<xcs_ir::Block> = callee.region_blocks(region).collect();
    let entry = blocks[0];
    let call_loc = caller.op_loc(call);
    let mut cache: FxHashMap<Location, Location> = FxHashMap::default();
    let mut cl =
        Cloner::new(callee).with_loc_map(move |l| *cache.entry(l).or_insert_with(|| stack_locations(ctx, l, call_loc)));
    for (i, &a) in callee.block_args(entry).iter().enumerate() {
        cl.map_value(a, caller.operand(call, i));
    }
    let results: SmallVec<[Value; 2]> = caller.results(call).collect();
    if blocks.len() == 1 {
        let ops = callee.block_op_vec(entry);
        let (term, body_ops) = ops.split_last().ok_or("empty callee block")?;
        for &op in body_ops {
            let new = cl.clone_op(caller, op);
            caller.insert_op_before(call, new);
        }
        let map = cl.finish(caller).map_err(|e| e.to_string())?;
        let vals: SmallVec<[Value; 2]> = callee
            .operands(*term)
            .map(|v| map.value(v).ok_or("returned value not cloned"))
            .collect::<Result<_, _>>()?;
        for (r, v) in results.into_iter().zip(vals) {
            caller.replace_all_uses(r, v);
        }
        caller.erase_op(call);
        return Ok(());
    }
    // split the caller's block after the call; the continuation takes the results
    let blk = caller.op_block(call).ok_or("call not in a block")?;
    let blk_region: Region = caller.block_region(blk).ok_or("block not in a region")?;
    let types: SmallVec<[xcs_ir::Type; 2]> = results.iter().map(|&r| caller.value_type(r)).collect();
    let cont = caller.create_block(&types);
    match caller.next_block(blk) {
        Some(n) => caller.insert_block_before(n, cont),
        None => caller.append_block(blk_region, cont),
    }
    while let Some(n) = caller.next_op(call) {
        caller.detach_op(n);
        caller.append_op(cont, n);
    }
    let cont_args: SmallVec<[Value; 2]> = caller.block_args(cont).into();
    for (&r, &a) in results.iter().zip(&cont_args) {
        caller.replace_all_uses(r, a);
        // the results come out of the call: MLIR locates the new arguments there
        caller.set_arg_loc(a, call_loc);
    }
    // the entry block's ops join the caller's block; the other blocks go before `cont`
    for op in callee.block_op_vec(entry) {
        let new = cl.clone_op(caller, op);
        caller.insert_op_before(call, new);
    }
    for b in cl.clone_blocks(caller, &blocks[1..]) {
        caller.insert_block_before(cont, b);
    }
    let map = cl.finish(caller).map_err(|e| e.to_string())?;
    caller.erase_op(call);
    for &(s, d) in &map.ops {
        let top_level = callee.op_block(s).and_then(|b| callee.block_region(b)) == Some(region);
        if top_level && util::has_trait(ctx, callee, s, Traits::ReturnLike) {
            let vals = caller.operand_vec(d);
            let mut st = OperationState::of(ctx, BranchOp::DEF, caller.op_loc(d)).operands(&vals);
            st.successors.push(cont);
            let br = caller.create_op(st);
            caller.insert_op_before(d, br);
            caller.erase_op(d);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use xcs_ir::LocKind;

    #[test]
    fn nested_call_sites_stack() {
        let ctx = crate::testing::ctx();
        let (a, b, c) = (
            ctx.file_loc("a", 1, 1),
            ctx.file_loc("b", 2, 2),
            ctx.file_loc("c", 3, 3),
        );
        let ab = ctx.loc(LocKind::CallSite { callee: a, caller: b });
        let got = super::stack_locations(&ctx, ab, c);
        let bc = ctx.loc(LocKind::CallSite { callee: b, caller: c });
        assert_eq!(ctx.loc_kind(got), LocKind::CallSite { callee: a, caller: bc });
    }
}
