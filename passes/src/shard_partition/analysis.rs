//! What `shard-partition` reads from a function before it changes anything: its annotations
//! (each `shard.shard` with its checked layout), the grid they name, the global shape of every
//! tensor value (static, or a located error), the loop structure of every op that has one, and
//! the layout each argument and op result is stored in (its first annotation that is not
//! `annotate_for_users`; replicated when it has none).

use rustc_hash::FxHashMap;
use xcs_dialects::shard::{Grid, ShardOp, Sharding};
use xcs_ir::interfaces::{LoopInfo, LoopStructure};
use xcs_ir::{Block, Body, Context, Diagnostic, Op, OpView, Region, Type, TypeKind, Value, ValueDef, DYNAMIC};

use super::layout::Layout;

/// One `shard.shard` of the function.
#[derive(Clone, Debug)]
pub struct Annotation {
    /// The layout it annotates with (checked against the annotated value's shape).
    pub layout: Layout,
    pub for_users: bool,
}

/// Everything read from one function (see the module docs).
pub struct Analysis {
    pub grid: Grid,
    pub annotations: FxHashMap<Op, Annotation>,
    /// The annotations in program order.
    pub annotation_ops: Vec<Op>,
    /// The global shape of every ranked tensor value of the function's top-level blocks.
    pub shapes: FxHashMap<Value, Vec<i64>>,
    pub loops: FxHashMap<Op, LoopInfo>,
    /// The layout of each argument and op result with an annotation of its own.
    pub stored: FxHashMap<Value, Layout>,
}

/// The blocks of the function's region, in order.
pub fn blocks(f: &Body, region: Region) -> Vec<Block> {
    f.region_blocks(region).collect()
}

/// Reads function `f` (its only region `region`) against the module's `grids`; `None` if it
/// has no annotations (it is left alone).
pub fn analyze(ctx: &Context, f: &Body, region: Region, grids: &[Grid]) -> Result<Option<Analysis>, Diagnostic> {
    let ops: Vec<Op> = blocks(f, region).into_iter().flat_map(|b| f.block_op_vec(b)).collect();
    let raw = read_annotations(ctx, f, &ops)?;
    let Some((first_op, first)) = raw.first() else {
        return Ok(None);
    };
    let grid = grid_of(f, grids, *first_op, &first.grid)?;
    let shapes = shapes(ctx, f, region, &ops)?;
    let mut annotations = FxHashMap::default();
    let mut stored = FxHashMap::default();
    for (op, sharding) in &raw {
        let loc = f.op_loc(*op);
        if sharding.grid != grid.name {
            let msg = format!("shard-partition: a function's annotations must use one grid, but this one uses @{} and an earlier one @{}", sharding.grid, grid.name);
            return Err(Diagnostic::error(loc, msg));
        }
        let src = f.operand(*op, 0);
        let shape = shapes.get(&src).cloned().unwrap_or_default();
        let layout = Layout::of_sharding(sharding, &grid, &shape)
            .map_err(|e| Diagnostic::error(loc, format!("shard-partition: {e}")))?;
        let for_users = ShardOp(*op).annotates_users(ctx, f);
        let src_is_annotation = f.defining_op(src).is_some_and(|d| ShardOp::cast(ctx, f, d).is_some());
        if !for_users && !src_is_annotation {
            stored.entry(src).or_insert_with(|| layout.clone());
        }
        annotations.insert(*op, Annotation { layout, for_users });
    }
    let loops = ops
        .iter()
        .filter_map(|&op| Some((op, loop_info(ctx, f, op, &shapes)?)))
        .collect();
    let annotation_ops = raw.iter().map(|(op, _)| *op).collect();
    Ok(Some(Analysis {
        grid,
        annotations,
        annotation_ops,
        shapes,
        loops,
        stored,
    }))
}

/// The `shard.shard` ops among `ops` with their shardings (which `shard.sharding` ops of the
/// function must make).
fn read_annotations(ctx: &Context, f: &Body, ops: &[Op]) -> Result<Vec<(Op, Sharding)>, Diagnostic> {
    let mut out = Vec::new();
    for &op in ops {
        let Some(shard) = ShardOp::cast(ctx, f, op) else {
            continue;
        };
        let Some(sharding) = shard.sharding_of(ctx, f) else {
            let msg = "shard-partition: the sharding of an annotation must be made by a 'shard.sharding' op of the same function";
            return Err(Diagnostic::error(f.op_loc(op), msg));
        };
        out.push((op, sharding));
    }
    Ok(out)
}

/// The grid named `name`, which must exist and have a static shape.
fn grid_of(f: &Body, grids: &[Grid], at: Op, name: &str) -> Result<Grid, Diagnostic> {
    let loc = f.op_loc(at);
    let grid = grids
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| Diagnostic::error(loc, format!("shard-partition: the module has no 'shard.grid' @{name}")))?;
    if grid.shape.iter().any(|&d| d <= 0) {
        return Err(Diagnostic::error(
            loc,
            format!("shard-partition: grid @{name} must have a static shape of positive sizes"),
        ));
    }
    Ok(grid.clone())
}

/// The static shape of every ranked tensor argument, block argument and op result of the
/// function's top-level blocks; a dynamic dim is an error located at the value's op (or the
/// argument).
fn shapes(ctx: &Context, f: &Body, region: Region, ops: &[Op]) -> Result<FxHashMap<Value, Vec<i64>>, Diagnostic> {
    let mut out = FxHashMap::default();
    let args = blocks(f, region).into_iter().flat_map(|b| f.block_args(b).to_vec());
    let results = ops.iter().flat_map(|&op| f.results(op).collect::<Vec<_>>());
    for v in args.chain(results) {
        let ty = f.value_type(v);
        let TypeKind::RankedTensor { shape, .. } = ctx.type_kind(ty) else {
            continue;
        };
        if shape.contains(&DYNAMIC) {
            let (loc, what) = match f.value_def(v) {
                ValueDef::Result { op, index } => (f.op_loc(op), format!("result #{index} of this op")),
                ValueDef::Arg { index, .. } => (f.arg_loc(v).unwrap_or(f.loc()), format!("argument #{index}")),
            };
            let msg = format!(
                "shard-partition: dynamic shapes are not supported: {what} has type '{}'",
                type_text(ctx, ty)
            );
            return Err(Diagnostic::error(loc, msg));
        }
        out.insert(v, shape.to_vec());
    }
    Ok(out)
}

/// The loop structure of `op`, if it declares one that fits its static tensor operands and
/// results; `None` makes the op opaque.
fn loop_info(ctx: &Context, f: &Body, op: Op, shapes: &FxHashMap<Value, Vec<i64>>) -> Option<LoopInfo> {
    let view = OpView::new(ctx, f, op);
    let rule = view.interface::<dyn LoopStructure>()?;
    let all_tensors = f.operands(op).chain(f.results(op)).all(|v| shapes.contains_key(&v));
    let info = rule.loops(&view).ok()?;
    let fits = all_tensors
        && info.operands.len() == f.num_operands(op)
        && info.results.len() == f.num_results(op)
        && info.sizes.len() == info.loops.len()
        && info.sizes.iter().all(|&s| s >= 0)
        && f.operands(op)
            .zip(&info.operands)
            .chain(f.results(op).zip(&info.results))
            .all(|(v, map)| {
                shapes[&v].len() == map.len() && map.iter().all(|l| l.is_none_or(|l| l < info.loops.len()))
            });
    fits.then_some(info)
}

pub fn type_text(ctx: &Context, t: Type) -> String {
    xcs_ir::printer::type_to_string(ctx, t)
}
