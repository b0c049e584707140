//! Semantics of the `xcs` dialect ops: string constants, `xcs.format`, `xcs.llm` through the
//! provider registry, and the maps. `xcs.vmap` runs its region once per batch element, in
//! order; `xcs.parallel_map` does the same on a rayon pool of `max_concurrency` threads
//! (default: the number of CPUs), results in batch order. In both, operand `i` with
//! `in_axes[i] = a != -1` is sliced at index `k` of axis `a` for element `k` (a rank-0 slice of
//! a string tensor is passed as an `!xcs.str`), operands with `-1` are passed unchanged; result
//! `j` with `out_axes[j] = a != -1` stacks the elements' values along a new axis `a` (strings
//! and integer scalars become tensor elements), and with `-1` is element 0's value.

use rayon::prelude::*;
use xcs_ir::{Body, Op, TypeKind, DYNAMIC};

use super::value::{norm_axis, ElemType, RtValue, Tensor, TensorData};
use super::{Frame, InterpError, Interpreter};
use crate::xcs::{parse_template, Piece};

pub(crate) fn exec(
    interp: &Interpreter<'_>,
    body: &Body,
    op: Op,
    frame: &Frame<'_>,
    args: &[&RtValue],
    depth: usize,
) -> Result<Vec<RtValue>, InterpError> {
    let ctx = interp.ctx;
    let name = ctx.op_name_str(body.op_name(op));
    let err = |m: String| InterpError::op(ctx, body, op, m);
    let str_attr = |key: &str| -> Result<&str, InterpError> {
        body.attr(ctx, op, key).and_then(|a| ctx.as_str(a)).ok_or_else(|| err(format!("requires string attribute '{key}'")))
    };
    match name {
        "xcs.str_const" => Ok(vec![RtValue::Str(str_attr("value")?.to_string())]),
        "xcs.format" => {
            let pieces = parse_template(str_attr("template")?, args.len()).map_err(err)?;
            let mut s = String::new();
            for p in pieces {
                match p {
                    Piece::Text(t) => s.push_str(&t),
                    Piece::Arg(i) => s.push_str(&super::format::value_string(args[i])),
                }
            }
            Ok(vec![RtValue::Str(s)])
        }
        "xcs.llm" => {
            let (model, provider) = (str_attr("model")?, str_attr("provider")?);
            let prompt = match args {
                [RtValue::Str(p)] => p,
                [other] => return Err(err(format!("prompt is a {}, not an !xcs.str", other.type_string()))),
                _ => return Err(err("expects one operand (the prompt)".into())),
            };
            let Some(p) = interp.providers.get(provider) else {
                return Err(err(format!(
                    "unknown provider '{provider}' (registered: {})",
                    interp.providers.names().join(", ")
                )));
            };
            let text = p.complete(model, prompt).map_err(|e| err(format!("provider '{provider}' failed: {e}")))?;
            Ok(vec![RtValue::Str(text)])
        }
        "xcs.vmap" => map(interp, body, op, frame, args, depth, false),
        "xcs.parallel_map" => map(interp, body, op, frame, args, depth, true),
        _ => Err(err("is not supported by the interpreter".into())),
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


#[allow(clippy::too_many_arguments)]
fn map(
    interp: &Interpreter<'_>,
    body: &Body,
    op: Op,
    frame: &Frame<'_>,
    args: &[&RtValue],
    depth: usize,
    parallel: bool,
) -> Result<Vec<RtValue>, InterpError> {
    let ctx = interp.ctx;
    let err = |m: String| InterpError::op(ctx, body, op, m);
    let axes = |key: &str| {
        body.attr(ctx, op, key).and_then(|a| ctx.as_i64_array(a)).ok_or_else(|| err(format!("requires array<i64> attribute '{key}'")))
    };
    let (in_axes, out_axes) = (axes("in_axes")?, axes("out_axes")?);
    let nres = body.num_results(op);
    if in_axes.len() != args.len() || out_axes.len() != nres {
        return Err(err(format!(
            "in_axes/out_axes have {}/{} entries for {} operands and {nres} results",
            in_axes.len(),
            out_axes.len(),
            args.len()
        )));
    }
    // The batch size, and each batched operand's normalised axis.
    let mut batch: Option<usize> = None;
    let mut in_norm: Vec<Option<usize>> = Vec::with_capacity(args.len());
    for (i, (a, &ax)) in args.iter().zip(&in_axes).enumerate() {
        if ax == -1 {
            in_norm.push(None);
            continue;
        }
        let RtValue::Tensor(t) = a else {
            return Err(err(format!("batched operand #{i} is a {}, not a tensor", a.type_string())));
        };
        let axn = norm_axis(ax, t.rank()).map_err(|e| err(format!("operand #{i}: in_axes {e}")))?;
        let n = t.shape[axn];
        match batch {
            Some(b) if b != n => {
                return Err(err(format!("operand #{i} has batch size {n} (axis {ax} of a {}), but an earlier operand has {b}", t.type_string())))
            }
            _ => batch = Some(n),
        }
        in_norm.push(Some(axn));
    }
    let b = batch.ok_or_else(|| err("needs at least one batched operand (an in_axes entry other than -1)".into()))?;
    let region = *body.regions(op).first().ok_or_else(|| err("has no region".into()))?;
    let loc = body.op_loc(op);

    let run = |k: usize| -> Result<Vec<RtValue>, InterpError> {
        let mut elem_args = Vec::with_capacity(args.len());
        for (a, axn) in args.iter().zip(&in_norm) {
            elem_args.push(match (axn, a) {
                (Some(axn), RtValue::Tensor(t)) => element(t, *axn, k).map_err(err)?,
                _ => (*a).clone(),
            });
        }
        let out = interp.run_region(body, region, elem_args, Some(frame), depth, loc).map_err(|e| e.with_note(loc, format!("in batch element {k}")))?;
        if out.len() != nres {
            return Err(err(format!("body yields {} values for {nres} results", out.len())));
        }
        Ok(out)
    };

    let per_elem: Vec<Vec<RtValue>> = if parallel {
        let threads = match body.attr(ctx, op, "max_concurrency").and_then(|a| ctx.as_int(a)) {
            Some(n) if n < 1 => return Err(err(format!("max_concurrency must be at least 1, but is {n}"))),
            Some(n) => n.min(b.max(1) as i128) as usize,
            None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(b.max(1)),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(interp.stack_size())
            .build()
            .map_err(|e| err(format!("cannot start a thread pool: {e}")))?;
        let results: Vec<Result<Vec<RtValue>, InterpError>> = pool.install(|| (0..b).into_par_iter().map(run).collect());
        results.into_iter().collect::<Result<_, _>>()?
    } else {
        (0..b).map(run).collect::<Result<_, _>>()?
    };

    let mut out = Vec::with_capacity(nres);
    let result_types = body.result_types(op);
    for (j, &ax) in out_axes.iter().enumerate() {
        if ax == -1 {
            let first = per_elem.first().ok_or_else(|| err(format!("result #{j} is not batched, but the batch is empty")))?;
            out.push(first[j].clone());
            continue;
        }
        if b == 0 {
            out.push(RtValue::Tensor(empty_result(ctx, result_types[j]).map_err(|e| err(format!("result #{j}: {e}")))?));
            continue;
        }
        let parts: Vec<Tensor> = per_elem
            .iter()
            .enumerate()
            .map(|(k, r)| r[j].to_tensor().map_err(|e| err(format!("result #{j} of batch element {k}: {e}"))))
            .collect::<Result<_, _>>()?;
        let axn = norm_axis(ax, parts[0].rank() + 1).map_err(|e| err(format!("result #{j}: out_axes {e}")))?;
        out.push(RtValue::Tensor(Tensor::stack(&parts, axn).map_err(|e| err(format!("result #{j}: {e}")))?));
    }
    Ok(out)
}

/// The result of a batched output for an empty batch: the declared type with size 0 in the
/// batch dim; any other dim must be static (nothing ran to tell its size).
fn empty_result(ctx: &xcs_ir::Context, ty: xcs_ir::Type) -> Result<Tensor, String> {
    let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(ty) else {
        return Err("a batched result must be a ranked tensor".into());
    };
    let elem = ElemType::from_type(ctx, *elem).ok_or("unsupported element type")?;
    let dyn_count = shape.iter().filter(|&&d| d == DYNAMIC).count();
    if dyn_count > 1 || (dyn_count == 1 && shape.contains(&0)) {
        return Err("the batch is empty and the result type has dynamic dims, so its shape is unknown".into());
    }
    let s: Vec<usize> = shape.iter().map(|&d| if d == DYNAMIC { 0 } else { d as usize }).collect();
    Tensor::new(s, TensorData::empty(elem))
}
