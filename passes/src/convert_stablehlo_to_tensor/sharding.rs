//! JAX's shardings as `shard` annotations: each `sdy.mesh` becomes a `shard.grid` of the same
//! name, shape and axis names (`xcs.axes`); an argument's `sdy.sharding` a `shard.shard` of the
//! argument at the function's entry (what fixes its stored sharding, see docs/shard.md), a
//! result's one a `shard.shard` of the returned value, and `sdy.sharding_constraint` a
//! `shard.shard` of its input. On one device they are identities; `shard-partition` and
//! `xcs-run --devices` run them on the grid.

use rustc_hash::FxHashMap;
use xcs_dialects::func::ReturnOp;
use xcs_dialects::shard::{self, Grid, Sharding};
use xcs_dialects::stablehlo::sdy::{Mesh, MeshOp, SdySharding};
use xcs_ir::{Attr, Body, Builder, Context, Diagnostic, Location, Op, Value};

/// The grids of the module's `sdy.mesh` ops, which become `shard.grid` ops.
pub(super) fn convert_meshes(ctx: &Context, module: &mut Body) -> Result<FxHashMap<String, Grid>, Diagnostic> {
    let mut grids = FxHashMap::default();
    for op in module.top_ops() {
        if MeshOp::cast(ctx, module, op).is_none() {
            continue;
        }
        let name = module.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)).unwrap_or_default().to_string();
        let mesh = module.attr(ctx, op, "mesh").and_then(|a| Mesh::from_attr(ctx, a)).expect("verified");
        let sizes: Vec<i64> = mesh.axes.iter().map(|(_, n)| *n).collect();
        let names: Vec<&str> = mesh.axes.iter().map(|(a, _)| a.as_str()).collect();
        let grid = Grid::new(&name, if sizes.is_empty() { &[1] } else { &sizes }).with_axes(if names.is_empty() { &["_"] } else { &names });
        let loc = module.op_loc(op);
        let mut b = Builder::before(ctx, module, op);
        b.set_loc(loc);
        shard::build::grid(&mut b, &grid);
        module.erase_op(op);
        grids.insert(name, grid);
    }
    Ok(grids)
}

/// The `shard` sharding of an `#sdy.sharding` attribute.
pub(super) fn sharding_of(ctx: &Context, grids: &FxHashMap<String, Grid>, a: Attr, loc: Location) -> Result<Sharding, Diagnostic> {
    let s = SdySharding::from_attr(ctx, a).ok_or_else(|| Diagnostic::error(loc, "malformed #sdy.sharding"))?;
    let grid = grids.get(&s.mesh).ok_or_else(|| Diagnostic::error(loc, format!("#sdy.sharding names the unknown mesh @{}", s.mesh)))?;
    let mut split = Vec::with_capacity(s.dims.len());
    for axes in &s.dims {
        let mut ids = Vec::with_capacity(axes.len());
        for a in axes {
            ids.push(grid.axis(a).ok_or_else(|| Diagnostic::error(loc, format!("mesh @{} has no axis \"{a}\"", s.mesh)))? as i64);
        }
        split.push(ids);
    }
    while split.len() > 1 && split.last().is_some_and(|v| v.is_empty()) {
        split.pop();
    }
    Ok(Sharding::new(&grid.name, split))
}

/// Annotates the arguments and results of the function `body` that carry an `sdy.sharding` in
/// `arg_attrs` / `res_attrs` (the function op's attribute dictionary `fattrs`).
pub(super) fn annotate_signature(
    ctx: &Context,
    body: &mut Body,
    fattrs: Attr,
    grids: &FxHashMap<String, Grid>,
) -> Result<(), Diagnostic> {
    let per = |key: &str| -> Vec<Option<Attr>> {
        let items = ctx.dict_get(fattrs, key).and_then(|a| ctx.as_array(a).map(|v| v.to_vec())).unwrap_or_default();
        items.iter().map(|&d| ctx.dict_get(d, "sdy.sharding")).collect()
    };
    let (args, results) = (per("arg_attrs"), per("res_attrs"));
    let loc = body.loc();
    let Some(entry) = body.root_regions().first().and_then(|&r| body.entry_block(r)) else { return Ok(()) };
    // Last argument first: each annotation goes to the start of the entry block.
    for (i, s) in args.iter().enumerate().rev() {
        let (Some(s), Some(&arg)) = (s, body.block_args(entry).get(i)) else { continue };
        let sharding = sharding_of(ctx, grids, *s, loc)?;
        let mut b = Builder::new(ctx, body);
        b.set_insertion_point_to_start(entry);
        b.set_loc(loc);
        let annotated = shard::build::annotate(&mut b, arg, &sharding, false)?;
        let def = body.defining_op(annotated);
        body.replace_uses_if(arg, annotated, |_, user| Some(user) != def);
    }
    if results.iter().all(Option::is_none) {
        return Ok(());
    }
    let returns: Vec<Op> = body.walk_ops().into_iter().filter(|&op| ReturnOp::cast(ctx, body, op).is_some()).collect();
    for ret in returns {
        for (j, s) in results.iter().enumerate() {
            let Some(s) = s else { continue };
            if j >= body.num_operands(ret) {
                continue;
            }
            let sharding = sharding_of(ctx, grids, *s, body.op_loc(ret))?;
            let v: Value = body.operand(ret, j);
            let loc = body.op_loc(ret);
            let mut b = Builder::before(ctx, body, ret);
            b.set_loc(loc);
            let annotated = shard::build::annotate(&mut b, v, &sharding, false)?;
            body.set_operand(ret, j, annotated);
        }
    }
    Ok(())
}
