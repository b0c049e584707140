//! What an `xcs.workload` is made of, for its verifier, the interpreter and the LLVM backend:
//! its schedule ([`Step`]: the `parallel_for` loops and launches in program order), each
//! launch's bindings ([`LaunchPlan`]: per tensor operand the workload tensor and the view),
//! and the check that parallel iterations do not write overlapping parts of an output, nor
//! read what another parallel iteration writes.

use rustc_hash::FxHashMap;
use xcs_ir::opdef::{OpView, SymbolLookup};
use xcs_ir::{Body, Context, Diagnostic, Op, Type, TypeKind, Value, ValueDef, DYNAMIC};

use super::kernel::{launch_index_operands, launch_operands, KernelSignature, LaunchOp, ParallelForOp, WorkloadOp};
use super::views::{decode, ResolvedView, ViewDim};

/// One step of a workload's body, in program order.
#[derive(Clone, Debug)]
pub enum Step {
    /// An `xcs.parallel_for`: `body` once per value of `axis` in `0..extent`.
    Loop { op: Op, axis: Value, extent: i64, body: Vec<Step> },
    /// An `xcs.launch`.
    Launch(Op),
}

/// The steps of the block of `op`'s first region (a workload or a `parallel_for`); an `Err`
/// names the op that may not be there.
pub fn schedule(ctx: &Context, body: &Body, op: Op) -> Result<Vec<Step>, (Op, String)> {
    let Some(block) = body.regions(op).first().and_then(|&r| body.entry_block(r)) else {
        return Ok(Vec::new());
    };
    let mut steps = Vec::new();
    for o in body.block_ops(block) {
        let name = body.op_name(o);
        if ParallelForOp::matches(ctx, name) {
            let extent = body.attr(ctx, o, "extent").and_then(|a| ctx.as_int(a)).unwrap_or(0) as i64;
            let axis = body
                .regions(o)
                .first()
                .and_then(|&r| body.entry_block(r))
                .and_then(|b| body.block_args(b).first().copied())
                .ok_or_else(|| (o, "body must have one block with one 'index' argument (the axis variable)".to_string()))?;
            steps.push(Step::Loop { op: o, axis, extent, body: schedule(ctx, body, o)? });
        } else if LaunchOp::matches(ctx, name) {
            steps.push(Step::Launch(o));
        } else {
            return Err((
                o,
                format!(
                    "is in an 'xcs.workload', which may hold only '{}' and '{}'",
                    ParallelForOp::DEF.name,
                    LaunchOp::DEF.name
                ),
            ));
        }
    }
    Ok(steps)
}

/// One tensor operand of a launch: which workload tensor (its index among the workload's
/// block arguments: inputs, then outputs) and the view of it.
#[derive(Clone, Debug)]
pub struct Binding {
    pub arg: usize,
    /// The workload tensor's shape and element type.
    pub shape: Vec<i64>,
    pub elem: Type,
    pub view: ResolvedView,
}

impl Binding {
    /// The type of the view (what the kernel parameter must be).
    pub fn view_type(&self, ctx: &Context) -> Type {
        ctx.tensor_type(&self.view.shape(), self.elem)
    }
}

/// A launch's kernel, index operands (with the extents of their loops) and bindings.
#[derive(Clone, Debug)]
pub struct LaunchPlan {
    pub kernel: String,
    /// The index operands the views are affine in: the axis operands the kernel takes (the
    /// first `kernel_axes`), then the view indices.
    pub axes: Vec<Value>,
    pub kernel_axes: usize,
    pub extents: Vec<i64>,
    pub bindings: Vec<Binding>,
    /// The number of workload inputs (a binding with `arg >= inputs` is of an output).
    pub inputs: usize,
}

/// The plan of launch `op`, checked: its tensors are the enclosing workload's, its views fit
/// them at every grid point.
pub fn launch_plan(ctx: &Context, body: &Body, op: Op) -> Result<LaunchPlan, String> {
    let kernel = body
        .attr(ctx, op, "kernel")
        .and_then(|a| ctx.as_symbol(a))
        .ok_or("requires a 'kernel' symbol reference")?
        .to_string();
    const SEGMENTS: &str = "operandSegmentSizes must be array<i32: axes, tensors> or array<i32: axes, tensors, view indices> with non-negative sizes adding up to the number of operands";
    let (kernel_axes, tensors) = launch_operands(ctx, body, op).ok_or(SEGMENTS)?;
    let kernel_axes = kernel_axes.len();
    let axes = launch_index_operands(ctx, body, op).ok_or(SEGMENTS)?;
    let mut workload = body.parent_op(op);
    while let Some(w) = workload.filter(|&w| !WorkloadOp::matches(ctx, body.op_name(w))) {
        workload = body.parent_op(w);
    }
    let workload = workload.ok_or("must be inside an 'xcs.workload'")?;
    let wblock = body.regions(workload).first().and_then(|&r| body.entry_block(r));
    let mut extents = Vec::new();
    for (i, &a) in axes.iter().enumerate() {
        let lp = match body.value_def(a) {
            ValueDef::Arg { block, index: 0 } => body
                .block_parent_op(block)
                .filter(|&p| ParallelForOp::matches(ctx, body.op_name(p)) && body.is_ancestor(p, op)),
            _ => None,
        };
        let Some(lp) = lp else {
            return Err(if i < kernel_axes {
                format!("axis operand #{i} is not the axis variable of an enclosing 'xcs.parallel_for'")
            } else {
                format!("view index #{} is not the axis variable of an enclosing 'xcs.parallel_for'", i - kernel_axes)
            });
        };
        extents.push(body.attr(ctx, lp, "extent").and_then(|e| ctx.as_int(e)).unwrap_or(0) as i64);
    }
    let views = body.attr(ctx, op, "views").map(|a| ctx.as_array(a).map(|v| v.to_vec()));
    let views = match views {
        None => vec![None; tensors.len()],
        Some(Some(v)) if v.len() == tensors.len() => v.into_iter().map(Some).collect(),
        Some(_) => return Err(format!("'views' must be an array with one entry per tensor operand ({})", tensors.len())),
    };
    let inputs = body.num_operands(workload);
    let mut bindings = Vec::new();
    for (j, (&t, view)) in tensors.iter().zip(views).enumerate() {
        let arg = match body.value_def(t) {
            ValueDef::Arg { block, index } if Some(block) == wblock => index as usize,
            _ => {
                return Err(format!(
                    "tensor operand #{j} is not a tensor of the enclosing 'xcs.workload' (one of its block arguments: its inputs, then its outputs)"
                ))
            }
        };
        let ty = body.value_type(t);
        let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(ty) else {
            return Err(format!("tensor operand #{j} is not a ranked tensor"));
        };
        let entries = match view {
            Some(a) => decode(ctx, a, axes.len()).map_err(|e| format!("tensor operand #{j}: {e}"))?,
            None => Vec::new(),
        };
        let view =
            ResolvedView::new(&entries, shape, axes.len()).map_err(|e| format!("the view of tensor operand #{j} {e}"))?;
        check_bounds(&view, shape, &extents, &entries).map_err(|e| format!("the view of tensor operand #{j} {e}"))?;
        bindings.push(Binding { arg, shape: shape.to_vec(), elem: *elem, view });
    }
    Ok(LaunchPlan { kernel, axes, kernel_axes, extents, bindings, inputs })
}

/// Every entry of the view stays inside its dim at every grid point.
fn check_bounds(view: &ResolvedView, shape: &[i64], extents: &[i64], entries: &[ViewDim]) -> Result<(), String> {
    if extents.contains(&0) {
        return Ok(()); // the launch never runs
    }
    for (d, ((off, size), &n)) in view.dims.iter().zip(shape).enumerate() {
        if n == DYNAMIC {
            return Err(format!("is of a tensor whose dim {d} is dynamic; workload tensors have static shapes"));
        }
        if d >= entries.len() {
            continue;
        }
        let (lo, hi) = off.range(extents);
        let end = hi + size.unwrap_or(1);
        if lo < 0 || end > n {
            let what = if size.is_some() { "range" } else { "index" };
            return Err(format!(
                "has a {what} on dim {d} reaching [{lo}, {end}) over the grid, outside the dim's size {n}"
            ));
        }
    }
    Ok(())
}

/// The `xcs.workload` verifier: inputs and outputs of static shapes, block arguments inputs
/// then outputs, a body of `parallel_for` and `launch` ops only.
pub fn verify_workload(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let mut types: Vec<Type> = v.operand_types().to_vec();
    types.extend(v.result_types());
    for (i, &t) in types.iter().enumerate() {
        if let TypeKind::RankedTensor { shape, .. } = ctx.type_kind(t) {
            if shape.contains(&DYNAMIC) {
                let what = if i < v.num_operands() { "input" } else { "output" };
                return Err(v.error(format!(
                    "{what} type '{}' has a dynamic dim; workload tensors have static shapes",
                    v.ty(t)
                )));
            }
        }
    }
    let body = v.body;
    let Some(entry) = body.regions(v.op).first().and_then(|&r| body.entry_block(r)) else {
        return Ok(());
    };
    let args: Vec<Type> = body.block_args(entry).iter().map(|&a| body.value_type(a)).collect();
    if args != types {
        return Err(v.error(format!(
            "body block has {} arguments of types ({}); they must be the inputs then the outputs: ({})",
            args.len(),
            args.iter().map(|&t| v.ty(t)).collect::<Vec<_>>().join(", "),
            types.iter().map(|&t| v.ty(t)).collect::<Vec<_>>().join(", ")
        )));
    }
    schedule(ctx, body, v.op).map_err(|(op, e)| OpView::new(ctx, body, op).error(e))?;
    Ok(())
}

/// One write (or read) of a launch execution: the box it writes (reads) in a workload tensor
/// and the loop iterations it runs in (`(loop op, index)` from the outermost).
struct Write {
    launch: Op,
    /// The launch's position in program order.
    seq: usize,
    arg: usize,
    boxes: Vec<(i64, i64)>,
    path: Vec<(Op, i64)>,
}

/// Writes beyond this many are not checked for overlaps (the check enumerates them).
const MAX_CHECKED_WRITES: usize = 1 << 20;

fn boxes_overlap(a: &Write, b: &Write) -> bool {
    a.boxes.iter().zip(&b.boxes).all(|(x, y)| x.0 < y.0 + y.1 && y.0 < x.0 + x.1)
}

/// Whether two launch executions run in different iterations of a common `parallel_for`.
fn in_parallel(a: &Write, b: &Write) -> bool {
    a.path.iter().zip(&b.path).take_while(|(x, y)| x.0 == y.0).any(|(x, y)| x.1 != y.1)
}

fn point_text(w: &Write) -> String {
    w.path.iter().map(|p| p.1.to_string()).collect::<Vec<_>>().join(", ")
}

fn box_text(w: &Write) -> String {
    w.boxes.iter().map(|(o, n)| format!("{o}:{}", o + n)).collect::<Vec<_>>().join(", ")
}

/// The `xcs.workload` symbol-use verifier: launches of parallel iterations may not write
/// overlapping parts of an output (an error at the later launch), nor read a part of a tensor
/// that another parallel iteration writes (an error at the reading launch; what its own
/// iteration writes, before or after, is ordered).
pub fn verify_workload_writes(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Ok(steps) = schedule(ctx, v.body, v.op) else {
        return Ok(());
    };
    let (mut writes, mut reads) = (Vec::new(), Vec::new());
    let mut env = FxHashMap::default();
    let mut sigs: FxHashMap<String, Option<KernelSignature>> = FxHashMap::default();
    let mut found = Accesses { writes: &mut writes, reads: &mut reads };
    collect_writes(v, symbols, &steps, &mut env, &mut Vec::new(), &mut sigs, &mut FxHashMap::default(), &mut found);
    if writes.len() + reads.len() > MAX_CHECKED_WRITES {
        return Ok(());
    }
    writes.sort_by_key(|w| (w.arg, w.boxes.first().map_or(0, |b| b.0)));
    check_parallel_writes(v, &writes)?;
    check_parallel_reads(v, &writes, &reads)
}

/// The error at `at`'s launch: it `verb`s (writes or reads) a part of a workload output that
/// overlaps what `written` writes in a parallel iteration, and why that is refused.
fn overlap_error(v: &OpView, at: &Write, verb: &str, written: &Write, why: &str) -> Diagnostic {
    OpView::new(v.ctx, v.body, at.launch).error(format!(
        "{verb} [{}] of workload output #{} at grid point ({}), which overlaps [{}] written at grid point ({}){}; {why}",
        box_text(at),
        at.arg - v.num_operands(),
        point_text(at),
        box_text(written),
        point_text(written),
        if at.launch == written.launch { "" } else { " by another launch" }
    ))
}

/// No two writes of parallel iterations overlap (`writes` sorted by tensor and first start).
fn check_parallel_writes(v: &OpView, writes: &[Write]) -> Result<(), Diagnostic> {
    for (i, a) in writes.iter().enumerate() {
        for b in &writes[i + 1..] {
            if b.arg != a.arg || a.boxes.first().is_some_and(|x| b.boxes[0].0 >= x.0 + x.1) {
                break;
            }
            if boxes_overlap(a, b) && in_parallel(a, b) {
                let (later, earlier) = if a.seq > b.seq { (a, b) } else { (b, a) };
                return Err(overlap_error(
                    v,
                    later,
                    "writes",
                    earlier,
                    "launches of parallel iterations may not write overlapping parts of an out or inout tensor",
                ));
            }
        }
    }
    Ok(())
}

/// No read overlaps a write of another parallel iteration (`writes` sorted by tensor and
/// first start: the writes of a read's tensor that start before the read ends are scanned).
fn check_parallel_reads(v: &OpView, writes: &[Write], reads: &[Write]) -> Result<(), Diagnostic> {
    for r in reads {
        let end = r.boxes.first().map_or(i64::MAX, |b| b.0 + b.1);
        let lo = writes.partition_point(|w| w.arg < r.arg);
        let hi = writes.partition_point(|w| w.arg < r.arg || (w.arg == r.arg && w.boxes.first().map_or(0, |b| b.0) < end));
        if let Some(w) = writes[lo..hi].iter().find(|w| boxes_overlap(r, w) && in_parallel(r, w)) {
            return Err(overlap_error(
                v,
                r,
                "reads",
                w,
                "an iteration may not read what a parallel iteration writes (a race: it may run before or after)",
            ));
        }
    }
    Ok(())
}

/// Where `collect_writes` puts what the launches write and read.
struct Accesses<'a> {
    writes: &'a mut Vec<Write>,
    reads: &'a mut Vec<Write>,
}

fn collect_writes(
    v: &OpView,
    symbols: &dyn SymbolLookup,
    steps: &[Step],
    env: &mut FxHashMap<Value, i64>,
    path: &mut Vec<(Op, i64)>,
    sigs: &mut FxHashMap<String, Option<KernelSignature>>,
    seqs: &mut FxHashMap<Op, usize>,
    out: &mut Accesses<'_>,
) {
    for s in steps {
        if out.writes.len() + out.reads.len() > MAX_CHECKED_WRITES {
            return;
        }
        match s {
            Step::Loop { op, axis, extent, body } => {
                for i in 0..*extent {
                    env.insert(*axis, i);
                    path.push((*op, i));
                    collect_writes(v, symbols, body, env, path, sigs, seqs, out);
                    path.pop();
                }
            }
            Step::Launch(op) => {
                let Ok(plan) = launch_plan(v.ctx, v.body, *op) else { continue };
                let sig = sigs.entry(plan.kernel.clone()).or_insert_with(|| {
                    symbols.lookup(&plan.kernel).and_then(|s| KernelSignature::from_attrs(v.ctx, s.attrs).ok())
                });
                // a launch that does not fit its kernel is reported by its own verifier
                let fits = |s: &KernelSignature| s.axes().count() == plan.kernel_axes && s.tensors().count() == plan.bindings.len();
                let Some(sig) = sig.as_ref().filter(|s| fits(s)) else { continue };
                let n = seqs.len();
                let seq = *seqs.entry(*op).or_insert(n);
                let point: Vec<i64> = plan.axes.iter().map(|a| env.get(a).copied().unwrap_or(0)).collect();
                for (b, (_, p)) in plan.bindings.iter().zip(sig.tensors()) {
                    let access = || Write { launch: *op, seq, arg: b.arg, boxes: b.view.boxes(&point), path: path.clone() };
                    if p.kind.writes() {
                        out.writes.push(access());
                    }
                    // reads of the workload's inputs are never raced (only outputs are written)
                    if p.kind.reads() && b.arg >= v.num_operands() {
                        out.reads.push(access());
                    }
                }
            }
        }
    }
}
