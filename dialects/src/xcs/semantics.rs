//! What the `xcs` dialect ops do when the interpreter runs them (their `dyn Semantics`):
//! string constants, `xcs.format`, `xcs.llm` through the provider registry, and the maps.
//! `xcs.vmap` runs its region once per batch element, in order; `xcs.parallel_map` does the
//! same on a rayon pool of `max_concurrency` threads (default: the number of CPUs), results in
//! batch order. In both, operand `i` with `in_axes[i] = a != -1` is sliced at index `k` of axis
//! `a` for element `k` (a rank-0 slice of a string tensor is passed as an `!xcs.str`), operands
//! with `-1` are passed unchanged; result `j` with `out_axes[j] = a != -1` stacks the elements'
//! values along a new axis `a` (strings and integer scalars become tensor elements), and with
//! `-1` is element 0's value.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use xcs_ir::{Context, Op, Type, TypeKind, Value, DYNAMIC};

use super::kernel::{ArgKind, KernelSignature};
use super::template::{parse_template, Piece};
use super::workload::{launch_plan, schedule, Step};
use crate::interp::format::value_string;
use crate::interp::semantics::{Control, OpInfo, OpRun, Semantics, ValueKernel};
use crate::interp::value::{norm_axis, ElemType, RtValue, Scalar, Tensor, TensorData};
use crate::interp::InterpError;

/// `xcs.str_const`: the `value` string.
pub static STR_CONST: ValueKernel = ValueKernel(str_const);
/// `xcs.format`: the template with each placeholder replaced by its operand's text.
pub static FORMAT: ValueKernel = ValueKernel(format_template);
/// `xcs.llm`: the provider's completion of the prompt.
pub static LLM: Llm = Llm;
/// `xcs.vmap`: the region once per batch element, in order.
pub static VMAP: Map = Map { parallel: false };
/// `xcs.parallel_map`: the region once per batch element, on a thread pool.
pub static PARALLEL_MAP: Map = Map { parallel: true };

fn str_const(info: &OpInfo<'_>, _: &[&RtValue]) -> Result<RtValue, String> {
    Ok(RtValue::Str(
        info.str("value")
            .map_err(|_| "requires string attribute 'value'".to_string())?
            .to_string(),
    ))
}

fn format_template(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    let template = info
        .str("template")
        .map_err(|_| "requires string attribute 'template'".to_string())?;
    let mut s = String::new();
    for p in parse_template(template, args.len())? {
        match p {
            Piece::Text(t) => s.push_str(&t),
            Piece::Arg(i) => s.push_str(&value_string(args[i])),
        }
    }
    Ok(RtValue::Str(s))
}

/// Asks the provider named by `provider` to complete the prompt with `model`.
pub struct Llm;

impl Semantics for Llm {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let info = run.info();
        let str_attr = |key: &str| {
            info.str(key)
                .map_err(|_| run.error(format!("requires string attribute '{key}'")))
        };
        let (model, provider) = (str_attr("model")?, str_attr("provider")?);
        let prompt = match run.operands() {
            [RtValue::Str(p)] => p,
            [other] => return Err(run.error(format!("prompt is a {}, not an !xcs.str", other.type_string()))),
            _ => return Err(run.error("expects one operand (the prompt)")),
        };
        let providers = run.providers();
        let Some(p) = providers.get(provider) else {
            return Err(run.error(format!(
                "unknown provider '{provider}' (registered: {})",
                providers.names().join(", ")
            )));
        };
        let text = p
            .complete(model, prompt)
            .map_err(|e| run.error(format!("provider '{provider}' failed: {e}")))?;
        Ok(Control::Values(vec![RtValue::Str(text)]))
    }
}

/// `xcs.vmap` (`parallel: false`) and `xcs.parallel_map` (`parallel: true`).
pub struct Map {
    parallel: bool,
}

impl Semantics for Map {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        map(run, self.parallel).map(Control::Values)
    }
}

/// The value element `k` of a batched operand sees.
fn element(t: &Tensor, axis: usize, k: usize) -> Result<RtValue, String> {
    let e = t.index_axis(axis, k)?;
    Ok(match e.data {
        TensorData::Str(mut v) if e.shape.is_empty() => RtValue::Str(v.pop().unwrap_or_default()),
        _ => RtValue::Tensor(e),
    })
}

/// Runs a map: slices the batched operands, runs the region per element (on a pool if
/// `parallel`) and stacks the results (see the module docs).
fn map(run: &OpRun<'_>, parallel: bool) -> Result<Vec<RtValue>, InterpError> {
    let info = run.info();
    let axes = |key: &str| {
        info.i64s(key)
            .map_err(|_| run.error(format!("requires array<i64> attribute '{key}'")))
    };
    let (in_axes, out_axes) = (axes("in_axes")?, axes("out_axes")?);
    let args = run.operands();
    let nres = run.body.num_results(run.op);
    if in_axes.len() != args.len() || out_axes.len() != nres {
        return Err(run.error(format!(
            "in_axes/out_axes have {}/{} entries for {} operands and {nres} results",
            in_axes.len(),
            out_axes.len(),
            args.len()
        )));
    }
    let (b, in_norm) = batch_axes(run, &in_axes)?;
    if run.body.num_regions(run.op) == 0 {
        return Err(run.error("has no region"));
    }
    let loc = run.body.op_loc(run.op);
    let run_element = |k: usize| -> Result<Vec<RtValue>, InterpError> {
        let mut elem_args = Vec::with_capacity(args.len());
        for (a, axn) in args.iter().zip(&in_norm) {
            elem_args.push(match (axn, a) {
                (Some(axn), RtValue::Tensor(t)) => element(t, *axn, k).map_err(|e| run.error(e))?,
                _ => (*a).clone(),
            });
        }
        let out = run
            .run_region(0, elem_args)
            .map_err(|e| e.with_note(loc, format!("in batch element {k}")))?;
        if out.len() != nres {
            return Err(run.error(format!("body yields {} values for {nres} results", out.len())));
        }
        Ok(out)
    };
    let per_elem: Vec<Vec<RtValue>> = if parallel {
        let threads = match run
            .body
            .attr(run.ctx, run.op, "max_concurrency")
            .and_then(|a| run.ctx.as_int(a))
        {
            Some(n) if n < 1 => return Err(run.error(format!("max_concurrency must be at least 1, but is {n}"))),
            Some(n) => n.min(b.max(1) as i128) as usize,
            None => std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                .min(b.max(1)),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(run.thread_stack_size())
            .build()
            .map_err(|e| run.error(format!("cannot start a thread pool: {e}")))?;
        let results: Vec<Result<Vec<RtValue>, InterpError>> =
            pool.install(|| (0..b).into_par_iter().map(run_element).collect());
        results.into_iter().collect::<Result<_, _>>()?
    } else {
        (0..b).map(run_element).collect::<Result<_, _>>()?
    };
    stack_results(run, &out_axes, b, per_elem)
}

/// The batch size, and each operand's normalised batch axis (`None`: not batched).
fn batch_axes(run: &OpRun<'_>, in_axes: &[i64]) -> Result<(usize, Vec<Option<usize>>), InterpError> {
    let mut batch: Option<usize> = None;
    let mut in_norm: Vec<Option<usize>> = Vec::with_capacity(in_axes.len());
    for (i, (a, &ax)) in run.operands().iter().zip(in_axes).enumerate() {
        if ax == -1 {
            in_norm.push(None);
            continue;
        }
        let RtValue::Tensor(t) = a else {
            return Err(run.error(format!("batched operand #{i} is a {}, not a tensor", a.type_string())));
        };
        let axn = norm_axis(ax, t.rank()).map_err(|e| run.error(format!("operand #{i}: in_axes {e}")))?;
        let n = t.shape[axn];
        match batch {
            Some(b) if b != n => {
                return Err(run.error(format!(
                    "operand #{i} has batch size {n} (axis {ax} of a {}), but an earlier operand has {b}",
                    t.type_string()
                )))
            }
            _ => batch = Some(n),
        }
        in_norm.push(Some(axn));
    }
    let b = batch.ok_or_else(|| run.error("needs at least one batched operand (an in_axes entry other than -1)"))?;
    Ok((b, in_norm))
}

/// The map's results from the `b` elements' results: stacked along `out_axes[j]`, or element
/// 0's value where it is -1.
fn stack_results(
    run: &OpRun<'_>,
    out_axes: &[i64],
    b: usize,
    per_elem: Vec<Vec<RtValue>>,
) -> Result<Vec<RtValue>, InterpError> {
    let mut out = Vec::with_capacity(out_axes.len());
    let result_types = run.body.result_types(run.op);
    for (j, &ax) in out_axes.iter().enumerate() {
        let err = |m: String| run.error(format!("result #{j}{m}"));
        if ax == -1 {
            let first = per_elem
                .first()
                .ok_or_else(|| err(" is not batched, but the batch is empty".into()))?;
            out.push(first[j].clone());
            continue;
        }
        if b == 0 {
            out.push(RtValue::Tensor(
                empty_result(run.ctx, result_types[j]).map_err(|e| err(format!(": {e}")))?,
            ));
            continue;
        }
        let parts: Vec<Tensor> = per_elem
            .iter()
            .enumerate()
            .map(|(k, r)| r[j].to_tensor().map_err(|e| err(format!(" of batch element {k}: {e}"))))
            .collect::<Result<_, _>>()?;
        let axn = norm_axis(ax, parts[0].rank() + 1).map_err(|e| err(format!(": out_axes {e}")))?;
        out.push(RtValue::Tensor(
            Tensor::stack(&parts, axn).map_err(|e| err(format!(": {e}")))?,
        ));
    }
    Ok(out)
}

/// The result of a batched output for an empty batch: the declared type with size 0 in the
/// batch dim; any other dim must be static (nothing ran to tell its size).
fn empty_result(ctx: &Context, ty: Type) -> Result<Tensor, String> {
    let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(ty) else {
        return Err("a batched result must be a ranked tensor".into());
    };
    let elem = ElemType::from_type(ctx, *elem).ok_or("unsupported element type")?;
    let dyn_count = shape.iter().filter(|&&d| d == DYNAMIC).count();
    if dyn_count > 1 || (dyn_count == 1 && shape.contains(&0)) {
        return Err("the batch is empty and the result type has dynamic dims, so its shape is unknown".into());
    }
    let s: Vec<usize> = shape
        .iter()
        .map(|&d| if d == DYNAMIC { 0 } else { d as usize })
        .collect();
    Tensor::new(s, TensorData::empty(elem))
}

/// `xcs.workload`: the outputs start as zeros; the schedule runs in program order, the
/// iterations of each `parallel_for` in order (a reference, not a parallel engine); each launch
/// copies its views out of the workload tensors, runs the kernel's body on them and writes
/// the values it yields back into the views of its out and inout operands.
pub static WORKLOAD: Workload = Workload;

pub struct Workload;

impl Semantics for Workload {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let steps = schedule(run.ctx, run.body, run.op).map_err(|(op, e)| InterpError::op(run.ctx, run.body, op, e))?;
        let mut tensors = Vec::new();
        for (i, v) in run.operands().iter().enumerate() {
            match v {
                RtValue::Tensor(t) => tensors.push(t.clone()),
                other => return Err(run.error(format!("input #{i} is a {}, not a tensor", other.type_string()))),
            }
        }
        let info = run.info();
        for i in 0..run.body.num_results(run.op) {
            let (shape, elem) = info.result_tensor_type(i).map_err(|e| run.error(e))?;
            if shape.contains(&DYNAMIC) {
                return Err(run.error("has an output of dynamic shape"));
            }
            let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
            let zeros = TensorData::F64(vec![0.0; shape.iter().product()]).cast(elem).map_err(|e| run.error(e))?;
            tensors.push(Tensor::new(shape, zeros).map_err(|e| run.error(e))?);
        }
        run_steps(run, &steps, &mut FxHashMap::default(), &mut tensors)?;
        let outputs = tensors.split_off(run.operands().len());
        Ok(Control::Values(outputs.into_iter().map(RtValue::Tensor).collect()))
    }
}

fn run_steps(
    run: &OpRun<'_>,
    steps: &[Step],
    env: &mut FxHashMap<Value, i64>,
    tensors: &mut [Tensor],
) -> Result<(), InterpError> {
    for s in steps {
        match s {
            Step::Loop { axis, extent, body, .. } => {
                for i in 0..*extent {
                    env.insert(*axis, i);
                    run_steps(run, body, env, tensors)?;
                }
            }
            Step::Launch(op) => run_launch(run, *op, env, tensors)?,
        }
    }
    Ok(())
}

/// One launch at the grid point in `env`.
fn run_launch(run: &OpRun<'_>, op: Op, env: &FxHashMap<Value, i64>, tensors: &mut [Tensor]) -> Result<(), InterpError> {
    let err = |m: String| InterpError::op(run.ctx, run.body, op, m);
    let plan = launch_plan(run.ctx, run.body, op).map_err(err)?;
    let kernel = run.symbol(&plan.kernel).ok_or_else(|| err(format!("no kernel @{}", plan.kernel)))?;
    let sig = KernelSignature::from_attrs(run.ctx, kernel.attrs()).map_err(err)?;
    let has_body = kernel.body.nested(kernel.op).is_some_and(|b| {
        b.root_regions().first().and_then(|&r| b.entry_block(r)).is_some_and(|e| b.block_ops(e).next().is_some())
    });
    if !has_body {
        return Err(err(format!("launches @{}, a kernel without a body, which cannot run", plan.kernel)));
    }
    let point: Vec<i64> = plan.axes.iter().map(|a| env.get(a).copied().unwrap_or(0)).collect();
    let mut args = Vec::with_capacity(sig.params.len());
    let mut point_args = point.iter();
    let mut bindings = plan.bindings.iter();
    let mut written = Vec::new();
    for p in &sig.params {
        if p.kind == ArgKind::Axis {
            let v = point_args.next().copied().unwrap_or(0);
            args.push(RtValue::Scalar(Scalar::new(v as i128, 64)));
            continue;
        }
        let b = bindings.next().ok_or_else(|| err("binds fewer tensors than the kernel has".into()))?;
        let src = &tensors[b.arg];
        let offsets = b.view.element_offsets(&b.shape, &point);
        let shape: Vec<usize> = b.view.shape().iter().map(|&d| d as usize).collect();
        args.push(RtValue::Tensor(Tensor::new(shape, src.data.take(&offsets)).map_err(err)?));
        if p.kind.writes() {
            written.push((b.arg, offsets));
        }
    }
    let results = run.run_symbol_body(&plan.kernel, args)?;
    if results.len() != written.len() {
        return Err(err(format!(
            "@{} yielded {} values for its {} out and inout parameters",
            plan.kernel,
            results.len(),
            written.len()
        )));
    }
    for (r, (arg, offsets)) in results.iter().zip(written) {
        let RtValue::Tensor(t) = r else {
            return Err(err(format!("@{} yielded a {}, not a tensor", plan.kernel, r.type_string())));
        };
        tensors[arg].data.put(&offsets, &t.data).map_err(|e| err(format!("@{}: {e}", plan.kernel)))?;
    }
    Ok(())
}
