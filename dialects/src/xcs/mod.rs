//! The `xcs` dialect: orchestration values and ops (`!xcs.str`, `!xcs.any`, `xcs.llm`,
//! `xcs.str_const`, `xcs.format`), the batching transforms `xcs.vmap` and `xcs.parallel_map`
//! with their terminator `xcs.yield`, and the kernel ops of [`kernel`] (`xcs.kernel`,
//! `xcs.workload`, `xcs.parallel_for`, `xcs.launch`). This file declares the ops and verifies
//! them; what they do when run is in [`mod@semantics`], the format templates in [`template`].

pub mod kernel;
pub mod views;
pub mod workload;
pub mod semantics;
pub mod template;

use smallvec::smallvec;
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{DialectDef, FoldResult, OpView, TypeConstraint, TypeDef};
use xcs_ir::{op, Attr, Body, Context, Diagnostic, Location, Op, OperationState, Type, TypeKind};

use crate::interp::semantics::Semantics;
use crate::shape::{is_table_elem, ranked};
pub use crate::value_types::{any_type, str_type};
pub use template::{parse_template, Piece};

pub const STR: TypeConstraint = TypeConstraint {
    desc: "!xcs.str",
    check: |c, t| t == str_type(c),
};

op! {
    /// A string constant.
    pub struct StrConstOp = "xcs.str_const" in XCS_OPS {
        summary: "String constant",
        results: { result: STR },
        attributes: { value: STR_ATTR },
        traits: [Pure, ConstantLike],
        fold: |v, _| Some(smallvec![FoldResult::Attr(v.attr("value")?)]),
        interfaces: [dyn Semantics => &semantics::STR_CONST],
    }
}

op! {
    /// Formats `template` with the operands: each `{}` takes the next operand, `{N}` operand
    /// N; `{{` and `}}` are literal braces. Tensors print as numpy prints them.
    pub struct FormatOp = "xcs.format" in XCS_OPS {
        summary: "String formatting",
        operands: { #[variadic] args: ANY_TYPE },
        results: { result: STR },
        attributes: { template: STR_ATTR },
        traits: [Pure],
        verify: verify_format,
        interfaces: [dyn Semantics => &semantics::FORMAT],
    }
}

op! {
    /// Sends `prompt` to a language model and returns its text. `provider` picks the
    /// implementation (the built-in `echo` provider returns the prompt; the Python frontend
    /// plugs in real ones); `model` is passed to it. Has side effects: never removed or merged.
    pub struct LlmOp = "xcs.llm" in XCS_OPS {
        summary: "Language-model call",
        operands: { prompt: STR },
        results: { result: STR },
        attributes: { model: STR_ATTR, provider: STR_ATTR },
        interfaces: [dyn Semantics => &semantics::LLM],
    }
}

op! {
    /// Maps the region over a batch dimension. `in_axes[i]` is the batch axis of operand i
    /// (-1: not batched, the same value for every element); `out_axes[j]` is where result j's
    /// batch dim goes (-1: not batched). The block sees the unbatched types and ends in
    /// `xcs.yield` of the unbatched results. All batched operands have the same batch size.
    pub struct VmapOp = "xcs.vmap" in XCS_OPS {
        summary: "Vectorizing map",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] results: ANY_TYPE },
        attributes: { in_axes: DENSE_I64_ARRAY_ATTR, out_axes: DENSE_I64_ARRAY_ATTR },
        regions: { body: 1 },
        traits: [SingleBlock, RecursiveMemoryEffects],
        verify: verify_map_like,
        verify_regions: verify_map_regions,
        interfaces: [dyn Semantics => &semantics::VMAP],
    }
}

op! {
    /// The same shape as `xcs.vmap`, executed element by element on a thread pool with at
    /// most `max_concurrency` elements in flight; what `vmap-batch` makes of orchestration and
    /// hybrid bodies.
    pub struct ParallelMapOp = "xcs.parallel_map" in XCS_OPS {
        summary: "Element-wise parallel map on a thread pool",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] results: ANY_TYPE },
        attributes: { in_axes: DENSE_I64_ARRAY_ATTR, out_axes: DENSE_I64_ARRAY_ATTR, #[optional] max_concurrency: I64_ATTR },
        regions: { body: 1 },
        traits: [SingleBlock, RecursiveMemoryEffects],
        verify: verify_map_like,
        verify_regions: verify_map_regions,
        interfaces: [dyn Semantics => &semantics::PARALLEL_MAP],
    }
}

op! {
    /// Terminates the regions of the `xcs` ops with their values: the maps' results, or the
    /// new values of an `xcs.kernel`'s out and inout parameters.
    pub struct YieldOp = "xcs.yield" in XCS_OPS {
        summary: "Region terminator",
        operands: { #[variadic] values: ANY_TYPE },
        traits: [Pure, Terminator, ReturnLike],
        verify: verify_yield,
    }
}

xcs_ir::op_list!(pub XCS_OPS);

pub static XCS_DIALECT: DialectDef = DialectDef {
    name: "xcs",
    summary: "Orchestration values, LLM calls and batching transforms",
    description: "Programs mix tensor math with LLM/API calls. Strings are `!xcs.str`; opaque \
host values `!xcs.any`. `xcs.vmap` batches a region (prefix semantics: batch dims lead); \
`classify` and `vmap-batch` turn tensor-only bodies into batched tensor ops and the others into \
`xcs.parallel_map`. Kernels (seed 002) are `xcs.kernel` symbols with a signature of axis variables, \
In/Out/InOut tensors and constexprs, whose bodies yield the tensors they write, launched by \
`xcs.launch @kernel[%axes](%A[views])` on affine views of an `xcs.workload`'s tensors inside \
`xcs.parallel_for` grids; the interpreter and the LLVM backend run workloads.",
    ops: xcs_ir::opdef::OpList::Collected(&XCS_OPS),
    types: &[
        TypeDef {
            mnemonic: "str",
            summary: "Text",
            description: "A UTF-8 string value.",
            params: None,
        },
        TypeDef {
            mnemonic: "any",
            summary: "An opaque host value",
            description: "Any value of the host language (a Python object through the frontend).",
            params: None,
        },
    ],
    attrs: &[],
    materialize_constant: Some(materialize),
};

fn materialize(ctx: &Context, body: &mut Body, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    if ty != str_type(ctx) || ctx.as_str(value).is_none() {
        return None;
    }
    Some(
        body.create_op(
            OperationState::of(ctx, StrConstOp::DEF, loc)
                .results(&[ty])
                .attr(ctx, "value", value),
        ),
    )
}

fn verify_format(v: &OpView) -> Result<(), Diagnostic> {
    let t = v.attr("template").and_then(|a| v.ctx.as_str(a)).unwrap_or("");
    parse_template(t, v.num_operands()).map(|_| ()).map_err(|e| v.error(e))
}

/// The type an element of the batch sees: `tensor<B x ... >` with dim `axis` removed. A
/// rank-0 result whose element type is not a tensor-dialect number (e.g. `!xcs.str`) is the
/// element type itself.
pub fn unbatched_type(ctx: &Context, t: Type, axis: i64) -> Result<(Type, i64), String> {
    let Some((shape, elem)) = ranked(ctx, t) else {
        return Err(format!(
            "batched operand of type '{}' is not a ranked tensor",
            xcs_ir::printer::type_to_string(ctx, t)
        ));
    };
    let a = crate::shape::norm_axis(axis, shape.len()).map_err(|e| format!("in_axes: {e}"))?;
    let size = shape[a];
    let mut s = shape.to_vec();
    s.remove(a);
    if s.is_empty() && !is_table_elem(ctx, elem) {
        return Ok((elem, size));
    }
    Ok((ctx.tensor_type(&s, elem), size))
}

/// The batched type of an element type `t`: batch dim of `size` inserted at `axis`.
pub fn batched_type(ctx: &Context, t: Type, axis: i64, size: i64) -> Result<Type, String> {
    let (shape, elem) = match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, elem, .. } => (shape.to_vec(), *elem),
        _ => (Vec::new(), t),
    };
    let a = crate::shape::norm_axis(axis, shape.len() + 1).map_err(|e| format!("out_axes: {e}"))?;
    let mut s = shape;
    s.insert(a, size);
    Ok(ctx.tensor_type(&s, elem))
}

/// The batch size of a map-like op and the unbatched operand types (its body's argument
/// types), checking `in_axes`/`out_axes` against the operands and results.
fn map_batch(v: &OpView) -> Result<(i64, Vec<Type>), Diagnostic> {
    let ctx = v.ctx;
    let in_axes = v.attr("in_axes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    let out_axes = v.attr("out_axes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    if in_axes.len() != v.num_operands() {
        return Err(v.error(format!(
            "in_axes has {} entries but the op has {} operands",
            in_axes.len(),
            v.num_operands()
        )));
    }
    if out_axes.len() != v.num_results() {
        return Err(v.error(format!(
            "out_axes has {} entries but the op has {} results",
            out_axes.len(),
            v.num_results()
        )));
    }
    let mut batch: Option<i64> = None;
    let mut inner = Vec::new();
    for (i, (&ax, t)) in in_axes.iter().zip(v.operand_types()).enumerate() {
        if ax == -1 {
            inner.push(t);
            continue;
        }
        let (u, size) = unbatched_type(ctx, t, ax).map_err(|e| v.error(format!("operand #{i}: {e}")))?;
        batch = match batch {
            Some(b) if b != size && b != xcs_ir::DYNAMIC && size != xcs_ir::DYNAMIC => {
                return Err(v.error(format!(
                    "operand #{i} has batch size {size}, but an earlier operand has {b}"
                )));
            }
            None | Some(xcs_ir::DYNAMIC) => Some(size),
            known => known,
        };
        inner.push(u);
    }
    let Some(batch) = batch else {
        return Err(v.error("needs at least one batched operand (an in_axes entry other than -1)"));
    };
    Ok((batch, inner))
}

/// On entry (before the body): the axes, batch sizes and body block arguments.
fn verify_map_like(v: &OpView) -> Result<(), Diagnostic> {
    let (_, inner) = map_batch(v)?;
    let body = v.body;
    let region = body.regions(v.op)[0];
    let Some(entry) = body.entry_block(region) else {
        return Err(v.error("requires a body block"));
    };
    let args = body.block_args(entry);
    if args.len() != inner.len() {
        return Err(v.error(format!(
            "body block has {} arguments, but the op has {} operands",
            args.len(),
            inner.len()
        )));
    }
    if let Some((i, at, t)) = crate::shape::first_type_mismatch(args.iter().map(|&a| body.value_type(a)), &inner) {
        return Err(v.error(format!(
            "body block argument #{i} has type '{}', but the unbatched operand type is '{}'",
            v.ty(at),
            v.ty(t)
        )));
    }
    Ok(())
}

/// After the body verified (MLIR's region traits run on exit): the terminator and the
/// yielded types against the results.
fn verify_map_regions(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let (batch, _) = map_batch(v)?;
    let out_axes = v.attr("out_axes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    let body = v.body;
    let Some(entry) = body.entry_block(body.regions(v.op)[0]) else {
        return Ok(());
    };
    if let Some(term) = body.last_op(entry) {
        if !YieldOp::matches(ctx, body.op_name(term)) {
            // MLIR's SingleBlockImplicitTerminator wording
            let term_name = ctx.op_name_str(body.op_name(term));
            return Err(v.error(format!("expects regions to end with '{}', found '{term_name}'", YieldOp::DEF.name)));
        }
        let yielded = body.operand_types(term);
        if yielded.len() != v.num_results() {
            return Err(v.error(format!(
                "body yields {} values, but the op has {} results",
                yielded.len(),
                v.num_results()
            )));
        }
        for (j, ((&y, &ax), r)) in yielded.iter().zip(&out_axes).zip(v.result_types()).enumerate() {
            let expect = if ax == -1 {
                Ok(y)
            } else {
                batched_type(ctx, y, ax, batch)
            };
            let expect = expect.map_err(|e| v.error(format!("result #{j}: {e}")))?;
            if !crate::shape::types_compatible(ctx, expect, r) {
                return Err(v.error(format!(
                    "result #{j} has type '{}', but the yielded '{}' batched at axis {ax} is '{}'",
                    v.ty(r),
                    v.ty(y),
                    v.ty(expect)
                )));
            }
        }
    }
    Ok(())
}

fn verify_yield(v: &OpView) -> Result<(), Diagnostic> {
    let in_map = v.body.parent_op(v.op).is_some_and(|parent| {
        let name = v.body.op_name(parent);
        VmapOp::matches(v.ctx, name) || ParallelMapOp::matches(v.ctx, name)
    });
    // A kernel is isolated: its body's ops have no parent op in the kernel's own body.
    let in_kernel = v.body.parent_op(v.op).is_none() && kernel::KernelOp::matches(v.ctx, v.body.name());
    if !in_map && !in_kernel {
        return Err(v.error(format!(
            "expects parent op '{}', '{}' or '{}'",
            VmapOp::DEF.name,
            ParallelMapOp::DEF.name,
            kernel::KernelOp::DEF.name
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batching_types() {
        let ctx = crate::context();
        let f = ctx.f32_type();
        let t = ctx.tensor_type(&[8, 4], f);
        assert_eq!(unbatched_type(&ctx, t, 0).unwrap(), (ctx.tensor_type(&[4], f), 8));
        assert_eq!(unbatched_type(&ctx, t, 1).unwrap(), (ctx.tensor_type(&[8], f), 4));
        let s = ctx.tensor_type(&[8], str_type(&ctx));
        assert_eq!(unbatched_type(&ctx, s, 0).unwrap(), (str_type(&ctx), 8));
        assert_eq!(
            batched_type(&ctx, ctx.tensor_type(&[4], f), 1, 8).unwrap(),
            ctx.tensor_type(&[4, 8], f)
        );
        assert_eq!(batched_type(&ctx, str_type(&ctx), 0, 8).unwrap(), s);
    }
}
