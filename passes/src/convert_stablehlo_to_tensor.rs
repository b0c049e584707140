//! `convert-stablehlo-to-tensor`: turns a module exported by JAX (the `stablehlo` and `chlo`
//! ops, `dialects/src/stablehlo/`) into `tensor`, `func` and `cf` ops, with StableHLO's
//! semantics (gather and dynamic slices clamp their starts, `remainder` has the dividend's
//! sign). Per function: `while`/`case`/`if` become `cf` blocks ([`control`]), then each op
//! becomes tensor ops at its location ([`ops`], [`gather`]). JAX's own attributes (`jax.*`,
//! `mhlo.*`) are dropped; Shardy meshes and shardings, and GSPMD's `mhlo.sharding` strings,
//! become `shard` annotations ([`sharding`], [`gspmd`]); any other op or attribute outside the covered set is a located error.
//! Upstream has no such pass (StableHLO's `stablehlo-legalize-to-linalg` is the closest).

mod control;
mod gather;
mod ops;
mod gspmd;
mod sharding;

use xcs_dialects::func::FuncOp;
use xcs_dialects::stablehlo::{chlo, sdy, STABLEHLO_OPS};
use xcs_ir::opdef::OpDef;
use xcs_ir::pass::{Pass, PassInfo, PassResult};
use xcs_ir::{Attr, Body, Context, DiagSink, Diagnostic, Op};

use sharding::{GSPMD_SHARDING, SDY_SHARDING};

pub const INFO: PassInfo = PassInfo {
    argument: "convert-stablehlo-to-tensor",
    name: "ConvertStableHLOToTensor",
    summary: "Convert JAX's StableHLO (and chlo) to tensor, func and cf ops",
    description: "Reads what `jax.jit(f).lower(*args).compiler_ir(\"stablehlo\")` exports (generic \
form) and converts every `stablehlo`/`chlo` op into `tensor` ops with StableHLO's semantics: \
`dot_general` becomes `tensor.matmul` or `tensor.einsum`, `broadcast_in_dim` a reshape and \
`tensor.broadcast_to`, `reduce` with an add/max/min/mul/and/or body `tensor.reduce`, `gather` \
(as `jnp.take` and `jnp.take_along_axis` emit it) a clamped `tensor.gather`, `remainder` \
`tensor.rem` corrected to the dividend's sign, dynamic slices the clamped `tensor.dynamic_slice` \
and `tensor.dynamic_update_slice`; `while`, `case` and `if` become `cf` blocks. Locations are \
kept. Shardy's `sdy.mesh` becomes a `shard.grid`, `sdy.sharding` of arguments and results and \
`sdy.sharding_constraint` become `shard.shard` annotations; without Shardy, GSPMD's `mhlo.sharding` \
strings (arguments, results, `custom_call @Sharding`) are factored into one grid `@mesh` (axes \
`axis_0`, ...) and become `shard.shard` annotations the same way. Other `jax.*` and `mhlo.*` \
attributes are dropped; an op or attribute outside the covered set \
(docs/interop.md) is an error at its location. A function whose control flow has a shape the \
pass does not handle is left alone with a warning.",
    options: &[],
    factory: |_, _| Ok(Box::new(ConvertStablehloToTensor)),
};

/// The pass.
pub struct ConvertStablehloToTensor;

impl Pass for ConvertStablehloToTensor {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, module: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        crate::util::require_symbol_table(ctx, module, "convert-stablehlo-to-tensor", diags)?;
        let grids = match sharding::Grids::convert(ctx, module) {
            Ok(g) => g,
            Err(d) => {
                diags.emit(d);
                return Err(());
            }
        };
        let mut changed = !grids.is_empty();
        changed |= strip_frontend_attrs(ctx, module, None);
        let funcs: Vec<Op> = module.top_ops().into_iter().filter(|&op| FuncOp::cast(ctx, module, op).is_some()).collect();
        for f in funcs {
            let fattrs = module.attrs(f);
            changed |= strip_frontend_attrs(ctx, module, Some(f));
            let Some(body) = module.nested_mut(f) else { continue };
            if has_shardings(ctx, fattrs) {
                if let Err(d) = sharding::annotate_signature(ctx, body, fattrs, &grids) {
                    diags.emit(d);
                    return Err(());
                }
                changed = true;
            }
            if !body.walk_ops().into_iter().any(|op| is_input_op(ctx, body, op)) {
                continue;
            }
            if let Err(why) = control::flatten(ctx, body) {
                let d = match why {
                    control::Unhandled::Warning(d) => d,
                    control::Unhandled::Error(d) => {
                        diags.emit(d);
                        return Err(());
                    }
                };
                diags.emit(d);
                continue;
            }
            if let Err(d) = ops::convert_function(ctx, body, &grids) {
                diags.emit(d);
                return Err(());
            }
            changed = true;
        }
        Ok(PassResult::from_changed(changed))
    }
}

/// True if `op` is a `stablehlo` or `chlo` op (one of the declarations of those dialects).
pub(crate) fn is_input_op(ctx: &Context, body: &Body, op: Op) -> bool {
    ctx.op_def(body.op_name(op)).is_some_and(|d| {
        STABLEHLO_OPS.iter().chain(chlo::CHLO_OPS.iter()).chain(sdy::SDY_OPS.iter()).any(|x: &&OpDef| x.handle == d.handle)
    })
}

/// True for the attributes JAX adds that do not change a program's meaning on one device.
pub(crate) fn is_frontend_attr(name: &str) -> bool {
    name.starts_with("jax.") || name.starts_with("mhlo.")
}

/// Drops `jax.*`/`mhlo.*` attributes from the module (`func = None`) or from a function and its
/// argument and result attributes. Returns whether anything was dropped.
fn strip_frontend_attrs(ctx: &Context, module: &mut Body, func: Option<Op>) -> bool {
    let dict = match func {
        Some(f) => module.attrs(f),
        None => module.self_attrs(),
    };
    let mut changed = false;
    let mut kept: Vec<(xcs_ir::Ident, Attr)> = Vec::new();
    for &(k, v) in ctx.dict_entries(dict) {
        if is_frontend_attr(ctx.str(k)) {
            changed = true;
            continue;
        }
        let v = match ctx.as_array(v) {
            Some(items) if matches!(ctx.str(k), "arg_attrs" | "res_attrs") => {
                let cleaned: Vec<Attr> = items.iter().map(|&d| strip_dict(ctx, d)).collect();
                changed |= cleaned.as_slice() != items;
                ctx.array_attr(&cleaned)
            }
            _ => v,
        };
        kept.push((k, v));
    }
    let new = ctx.dict(&kept);
    match func {
        Some(f) => module.set_attrs(f, new),
        None => module.set_self_attrs(new),
    }
    changed
}

/// An argument's or result's attributes without JAX's own and without `sdy.sharding` (both
/// shardings become `shard.shard` annotations).
fn strip_dict(ctx: &Context, d: Attr) -> Attr {
    let kept: Vec<(xcs_ir::Ident, Attr)> = ctx
        .dict_entries(d)
        .iter()
        .copied()
        .filter(|&(k, _)| !is_frontend_attr(ctx.str(k)) && ctx.str(k) != SDY_SHARDING)
        .collect();
    ctx.dict(&kept)
}

/// True if a function's argument or result attributes hold an `sdy.sharding` or `mhlo.sharding`.
fn has_shardings(ctx: &Context, fattrs: Attr) -> bool {
    ["arg_attrs", "res_attrs"].iter().any(|key| {
        ctx.dict_get(fattrs, key).and_then(|a| ctx.as_array(a)).is_some_and(|v| {
            v.iter().any(|&d| [SDY_SHARDING, GSPMD_SHARDING].iter().any(|k| ctx.dict_get(d, k).is_some()))
        })
    })
}

/// The located error of an op outside the covered set.
pub(crate) fn unsupported(ctx: &Context, body: &Body, op: Op, what: &str) -> Diagnostic {
    Diagnostic::op_error(ctx, body, op, format!("is not supported by convert-stablehlo-to-tensor: {what}"))
}
