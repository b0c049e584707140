//! The `shard` dialect as `auto-shard` reads and writes it: user annotations (`shard.shard`
//! with its `shard.sharding`), the grid (`shard.grid`), and the annotations the pass adds, all
//! through the dialect's typed API (`xcs_dialects::shard::build`). Kept in this one file so
//! that the pass meets the dialect in one place.

use rustc_hash::FxHashMap;
use xcs_dialects::shard::build::{annotate as build_annotation, grid as build_grid};
use xcs_dialects::shard::{Grid as DialectGrid, Sharding as DialectSharding};
use xcs_dialects::shard::build::BuildResult;
use xcs_ir::{Block, Body, Builder, Context, Diagnostic, Op, Value, ValueDef, DYNAMIC};

use super::build::IrMap;
use super::mesh::Mesh;
use super::model::{Model, OpKind, Plan, ValueDef as ModelDef};
use super::sharding::{AxisState, Sharding};
use crate::util;

/// A user's `shard.shard %value to %sharding [annotate_for_users]`.
#[derive(Clone, Debug)]
pub struct UserAnnotation {
    pub value: Value,
    /// The grid the sharding names.
    pub grid: String,
    /// Per tensor dim, the mesh axes (indices into the grid's axes) that split it.
    pub split_axes: Vec<Vec<i64>>,
    pub for_users: bool,
}

/// The annotation `op` is, if it is one whose sharding a `shard.sharding` of `body` makes.
pub fn annotation(ctx: &Context, body: &Body, op: Op) -> Option<UserAnnotation> {
    let shard = xcs_dialects::shard::ShardOp::cast(ctx, body, op)?;
    let sharding = shard.sharding_of(ctx, body)?;
    Some(UserAnnotation {
        value: body.operand(op, 0),
        grid: sharding.grid,
        split_axes: sharding.split_axes,
        for_users: shard.annotates_users(ctx, body),
    })
}

/// The module's grid.
#[derive(Clone, Debug)]
pub struct Grid {
    pub name: String,
    pub shape: Vec<u64>,
    /// The grid's axis names (its `xcs.axes` attribute), empty when it names none.
    pub axes: Vec<String>,
    pub loc: xcs_ir::Location,
}

impl Grid {
    /// The module's grid, if it has one (an error when it has several or a dynamic size).
    pub fn find(ctx: &Context, module: &Body) -> Result<Option<Grid>, Diagnostic> {
        let mut found: Option<Grid> = None;
        for op in module.top_ops() {
            let Some(g) = DialectGrid::of(ctx, module, op) else { continue };
            let loc = module.op_loc(op);
            if let Some(first) = &found {
                let msg = format!("auto-shard: the module has several grids (@{} and @{}); auto-shard plans for one", first.name, g.name);
                return Err(Diagnostic::error(loc, msg));
            }
            if g.shape.iter().any(|&d| d == DYNAMIC || d < 1) {
                return Err(Diagnostic::error(loc, format!("auto-shard: the grid @{} needs a static shape", g.name)));
            }
            found = Some(Grid { name: g.name, shape: g.shape.iter().map(|&d| d as u64).collect(), axes: g.axes.unwrap_or_default(), loc });
        }
        Ok(found)
    }
}

/// Records the mesh's axis names on the module's grid `name` (its `xcs.axes` attribute) when
/// the grid names none.
pub fn name_grid_axes(ctx: &Context, module: &mut Body, name: &str, mesh: &Mesh) {
    let Some(op) = module.top_ops().into_iter().find(|&op| DialectGrid::of(ctx, module, op).is_some_and(|g| g.name == name && g.axes.is_none())) else {
        return;
    };
    let names: Vec<_> = mesh.axes.iter().map(|a| ctx.str_attr(&a.name)).collect();
    module.set_attr(ctx, op, xcs_dialects::shard::AXES_ATTR, ctx.array_attr(&names));
}

/// Adds a `shard.grid` for `mesh` (with its axis names as `xcs.axes`) at the start of the
/// module; returns its symbol name (`mesh`, or `mesh_N` if that is taken).
pub fn add_grid(ctx: &Context, module: &mut Body, mesh: &Mesh) -> String {
    let taken: Vec<String> = module.top_ops().into_iter().filter_map(|op| util::symbol_name(ctx, module, op).map(str::to_string)).collect();
    let mut name = "mesh".to_string();
    let mut n = 0;
    while taken.contains(&name) {
        name = format!("mesh_{n}");
        n += 1;
    }
    let shape: Vec<i64> = mesh.shape().iter().map(|&d| d as i64).collect();
    let names: Vec<&str> = mesh.axes.iter().map(|a| a.name.as_str()).collect();
    let grid = DialectGrid::new(&name, &shape).with_axes(&names);
    let Some(&region) = module.root_regions().first() else { return name };
    let Some(block) = module.entry_block(region) else { return name };
    let mut b = Builder::new(ctx, module);
    b.set_insertion_point_to_start(block);
    build_grid(&mut b, &grid);
    name
}

/// Upstream's `split_axes` of a model sharding of a rank-`rank` tensor: per dim, the declared
/// grid axes splitting it; trailing unsplit dims left out (`[[]]` when nothing is split).
pub fn split_axes(mesh: &Mesh, rank: usize, s: Sharding) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new(); rank.max(1)];
    for a in 0..mesh.rank() {
        if let AxisState::Split(d) = s.get(a) {
            out[d].push(mesh.active[a] as i64);
        }
    }
    while out.len() > 1 && out.last().is_some_and(Vec::is_empty) {
        out.pop();
    }
    out
}

/// Writes the plan into `f` in upstream's style: `shard.shard %v to %s` right after every
/// tensor value's definition (its resolved sharding; the uses of `%v` then read the annotated
/// value), and for each use or result that needs another sharding a chain of `shard.shard ...
/// annotate_for_users` right before the user, one link per step of the plan's reshard path
/// (so that `shard-partition` emits the plan's collectives one for one). Values that user
/// annotations define are not annotated again.
pub fn annotate(ctx: &Context, f: &mut Body, model: &Model, map: &IrMap, plan: &Plan, grid: &str) -> Result<(), Diagnostic> {
    let mesh = model.mesh();
    let resolved = |v: usize| model.spaces[model.value_type(v)].states[model.value_state(plan, v) as usize];
    let rank = |v: usize| model.spaces[model.value_type(v)].ty.rank();
    let to_dialect = |v: usize, s: Sharding| DialectSharding::new(grid, split_axes(mesh, rank(v), s));
    // Stored shardings.
    let mut last_in_block: FxHashMap<Block, Op> = FxHashMap::default();
    for (v, node) in model.program.values.iter().enumerate() {
        if let ModelDef::Result { op, .. } = node.def {
            if matches!(model.program.ops[op].kind, OpKind::Annotation(_)) {
                continue;
            }
        }
        let iv = map.values[v];
        let mut b = Builder::new(ctx, f);
        match b.body.value_def(iv) {
            ValueDef::Arg { block, .. } => match last_in_block.get(&block) {
                Some(&prev) => b.set_insertion_point_after(prev),
                None => b.set_insertion_point_to_start(block),
            },
            ValueDef::Result { op, .. } => b.set_insertion_point_after(op),
        }
        let annotated = build_annotation(&mut b, iv, &to_dialect(v, resolved(v)), false)?;
        let shard_op = f.defining_op(annotated).expect("a built annotation has a defining op");
        if let ValueDef::Arg { block, .. } = f.value_def(iv) {
            last_in_block.insert(block, shard_op);
        }
        f.replace_uses_if(iv, annotated, |_, user| user != shard_op);
    }
    // Uses that need another sharding (a user annotation makes the last step itself).
    for (o, node) in model.program.ops.iter().enumerate() {
        let own_step = usize::from(matches!(node.kind, OpKind::Annotation(_)));
        let choice = &model.choices[o][plan.ops[o] as usize];
        let (ir_op, slots) = &map.ops[o];
        for (i, operand) in node.operands.iter().enumerate() {
            let (Some(v), Some(slot)) = (operand.value, slots[i]) else { continue };
            let want = choice.required[i].0;
            if want != resolved(v) {
                let current = f.operand(*ir_op, slot);
                let value = reshard_chain(ctx, f, *ir_op, current, model, v, (resolved(v), want, own_step), &to_dialect)?;
                f.set_operand(*ir_op, slot, value);
            }
        }
    }
    // Results with a requirement.
    for (r, &(ret, slot)) in map.results.iter().enumerate() {
        let Some((v, to)) = model.result_requirement(r) else { continue };
        let want = model.spaces[model.value_type(v)].states[to as usize];
        if want != resolved(v) {
            let current = f.operand(ret, slot);
            let value = reshard_chain(ctx, f, ret, current, model, v, (resolved(v), want, 0), &to_dialect)?;
            f.set_operand(ret, slot, value);
        }
    }
    Ok(())
}

/// Before `user`, the chain of `annotate_for_users` annotations taking `current` (value `v` of
/// the model) from `from` to `to` along the plan's shortest path, leaving out its last `skip`
/// steps (which `user`, an annotation, makes); returns the last link.
fn reshard_chain(
    ctx: &Context,
    f: &mut Body,
    user: Op,
    current: Value,
    model: &Model,
    v: usize,
    (from, to, skip): (Sharding, Sharding, usize),
    to_dialect: &dyn Fn(usize, Sharding) -> DialectSharding,
) -> BuildResult {
    let path = model.spaces[model.value_type(v)].path(model.mesh(), from, to);
    let mut b = Builder::before(ctx, f, user);
    let mut value = current;
    for step in &path[..path.len().saturating_sub(skip)] {
        value = build_annotation(&mut b, value, &to_dialect(v, step.to), true)?;
    }
    Ok(value)
}
