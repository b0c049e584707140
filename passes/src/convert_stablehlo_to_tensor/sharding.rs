//! JAX's shardings as `shard` annotations: each `sdy.mesh` becomes a `shard.grid` of the same
//! name, shape and axis names (`xcs.axes`); an argument's `sdy.sharding` a `shard.shard` of the
//! argument at the function's entry (what fixes its stored sharding, see docs/shard.md), a
//! result's one a `shard.shard` of the returned value, and `sdy.sharding_constraint` a
//! `shard.shard` of its input. GSPMD's `mhlo.sharding` strings (on arguments, results and
//! `custom_call @Sharding`) do the same on the one grid [`GspmdGrid`] derives. On one device
//! they are identities; `shard-partition` and `xcs-run --devices` run them on the grid.

use rustc_hash::FxHashMap;
use xcs_dialects::func::{FuncOp, ReturnOp};
use xcs_dialects::shard::{self, Grid, Sharding};
use xcs_dialects::stablehlo::sdy::{Mesh, MeshOp, SdySharding};
use xcs_dialects::stablehlo::CustomCallOp;
use xcs_ir::{Attr, Body, Builder, Context, Diagnostic, Location, Op, Value};

use super::gspmd::GspmdGrid;

/// The argument/result attribute of a Shardy sharding, and of a GSPMD sharding string.
pub(super) const SDY_SHARDING: &str = "sdy.sharding";
pub(super) const GSPMD_SHARDING: &str = "mhlo.sharding";

/// The module's grids: Shardy's meshes by name, and the grid of GSPMD's strings (none on one
/// device, where those strings mean nothing).
pub(super) struct Grids {
    sdy: FxHashMap<String, Grid>,
    gspmd: Option<GspmdGrid>,
}

impl Grids {
    /// Converts the module's `sdy.mesh` ops and makes the grid of its GSPMD strings (before
    /// `mhlo.*` attributes are dropped: `mhlo.num_partitions` gives the device count). A module
    /// with Shardy meshes is read through them alone: GSPMD strings next to them are leftovers.
    pub fn convert(ctx: &Context, module: &mut Body) -> Result<Grids, Diagnostic> {
        let sdy = convert_meshes(ctx, module)?;
        let gspmd = if sdy.is_empty() { gspmd_grid(ctx, module)? } else { None };
        if let Some(g) = &gspmd {
            let (first, loc) = (module.top_ops().into_iter().next(), module.loc());
            let mut b = match first {
                Some(op) => Builder::before(ctx, module, op),
                None => Builder::new(ctx, module),
            };
            b.set_loc(loc);
            shard::build::grid(&mut b, &g.grid);
        }
        Ok(Grids { sdy, gspmd })
    }

    /// True if the module had any grid.
    pub fn is_empty(&self) -> bool {
        self.sdy.is_empty() && self.gspmd.is_none()
    }

    /// The `shard` sharding of an `#sdy.sharding` attribute or an `mhlo.sharding` string;
    /// `None` for a string on one device.
    pub fn sharding_of(&self, ctx: &Context, a: Attr, loc: Location) -> Result<Option<Sharding>, Diagnostic> {
        let Some(s) = ctx.as_str(a) else { return sdy_sharding(ctx, &self.sdy, a, loc).map(Some) };
        let Some(g) = &self.gspmd else { return Ok(None) };
        g.sharding_of(s).map(Some).map_err(|why| Diagnostic::error(loc, format!("mhlo.sharding: {why}")))
    }
}

/// The grid of the module's GSPMD strings (function arguments and results, `custom_call`s).
fn gspmd_grid(ctx: &Context, module: &Body) -> Result<Option<GspmdGrid>, Diagnostic> {
    let mut strings: Vec<(String, Location)> = Vec::new();
    for f in module.top_ops() {
        if FuncOp::cast(ctx, module, f).is_none() {
            continue;
        }
        let fattrs = module.attrs(f);
        for key in ["arg_attrs", "res_attrs"] {
            let items = ctx.dict_get(fattrs, key).and_then(|a| ctx.as_array(a).map(|v| v.to_vec())).unwrap_or_default();
            let found = items.iter().filter_map(|&d| ctx.dict_get(d, GSPMD_SHARDING).and_then(|a| ctx.as_str(a)));
            strings.extend(found.map(|s| (s.to_string(), module.op_loc(f))));
        }
        let Some(body) = module.nested(f) else { continue };
        for op in body.walk_ops() {
            if CustomCallOp::cast(ctx, body, op).is_some() {
                if let Some(s) = body.attr(ctx, op, GSPMD_SHARDING).and_then(|a| ctx.as_str(a)) {
                    strings.push((s.to_string(), body.op_loc(op)));
                }
            }
        }
    }
    if strings.is_empty() {
        return Ok(None);
    }
    let partitions = ctx.dict_get(module.self_attrs(), "mhlo.num_partitions").and_then(|a| ctx.as_int(a));
    let loc = strings[0].1;
    let parsed: Vec<&str> = strings.iter().map(|(s, _)| s.as_str()).collect();
    let devices = match partitions {
        Some(n) => n as i64,
        None => parsed.iter().filter_map(|s| tiled_count(s)).max().unwrap_or(1),
    };
    GspmdGrid::derive(devices, &parsed).map_err(|why| {
        let at = strings.iter().find(|(s, _)| why.contains(s.as_str())).map_or(loc, |(_, l)| *l);
        Diagnostic::error(at, format!("mhlo.sharding: {why}"))
    })
}

/// The device count of a tiled GSPMD string.
fn tiled_count(s: &str) -> Option<i64> {
    match xcs_dialects::stablehlo::gspmd::parse(s).ok()? {
        xcs_dialects::stablehlo::gspmd::HloSharding::Tiled(t) => Some(t.device_count()),
        _ => None,
    }
}

/// The grids of the module's `sdy.mesh` ops, which become `shard.grid` ops.
fn convert_meshes(ctx: &Context, module: &mut Body) -> Result<FxHashMap<String, Grid>, Diagnostic> {
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
fn sdy_sharding(ctx: &Context, grids: &FxHashMap<String, Grid>, a: Attr, loc: Location) -> Result<Sharding, Diagnostic> {
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

/// Annotates the arguments and results of the function `body` that carry an `sdy.sharding` or
/// an `mhlo.sharding` in `arg_attrs` / `res_attrs` (the function op's attribute dictionary `fattrs`).
pub(super) fn annotate_signature(ctx: &Context, body: &mut Body, fattrs: Attr, grids: &Grids) -> Result<(), Diagnostic> {
    let per = |key: &str| -> Vec<Option<Attr>> {
        let items = ctx.dict_get(fattrs, key).and_then(|a| ctx.as_array(a).map(|v| v.to_vec())).unwrap_or_default();
        items.iter().map(|&d| ctx.dict_get(d, SDY_SHARDING).or_else(|| ctx.dict_get(d, GSPMD_SHARDING))).collect()
    };
    let (args, results) = (per("arg_attrs"), per("res_attrs"));
    let loc = body.loc();
    let Some(entry) = body.root_regions().first().and_then(|&r| body.entry_block(r)) else { return Ok(()) };
    // Last argument first: each annotation goes to the start of the entry block.
    for (i, s) in args.iter().enumerate().rev() {
        let (Some(s), Some(&arg)) = (s, body.block_args(entry).get(i)) else { continue };
        let Some(sharding) = grids.sharding_of(ctx, *s, loc)? else { continue };
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
            let Some(sharding) = grids.sharding_of(ctx, *s, body.op_loc(ret))? else { continue };
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
