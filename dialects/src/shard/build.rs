//! The typed API of the `shard` dialect for passes (`auto-shard`, `shard-partition`) and tools:
//! [`Grid`] and [`Sharding`] as plain values read from the IR (`Grid::of`, `Grid::find`,
//! `Sharding::of`, `Sharding::of_value`, `ShardOp::sharding_of`), and builders that make the
//! ops from them (`grid`, `sharding`, `shard`, `annotate`, the collectives), each computing its
//! result type from the grid as upstream's verifiers require.

use xcs_ir::{Body, Builder, Context, Diagnostic, Op, OperationState, Type, Value, DYNAMIC};

use super::attrs::{grid_axes_attr, i32_array_attr, split_axes_attr, split_axes_of, ReductionKind, SplitAxes};
use super::{
    sharding_type, AllGatherOp, AllReduceOp, AllSliceOp, AllToAllOp, BroadcastOp, GridOp, ProcessLinearIndexOp,
    ProcessMultiIndexOp, ReduceScatterOp, ShardOp, ShardingOp, AXES_ATTR,
};
use crate::interp::devices::GridShape;
use crate::shape::ranked;

/// A built value or the located error of the failed build.
pub type BuildResult = Result<Value, Diagnostic>;

// ---------------------------------------------------------------------------- grids

/// A device grid: its symbol name, shape (`DYNAMIC` for `?`) and axis names (the grid's
/// `xcs.axes` attribute, if it has one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub name: String,
    pub shape: Vec<i64>,
    pub axes: Option<Vec<String>>,
}

impl Grid {
    pub fn new(name: &str, shape: &[i64]) -> Grid {
        Grid { name: name.to_string(), shape: shape.to_vec(), axes: None }
    }
    /// The grid with axis names (one per axis).
    pub fn with_axes(mut self, names: &[&str]) -> Grid {
        self.axes = Some(names.iter().map(|s| s.to_string()).collect());
        self
    }
    /// The grid a `shard.grid` op defines.
    pub fn of(ctx: &Context, body: &Body, op: Op) -> Option<Grid> {
        GridOp::cast(ctx, body, op)?;
        let name = body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a))?;
        let shape = body.attr(ctx, op, "shape").and_then(|a| ctx.as_i64_array(a))?;
        let axes = body.attr(ctx, op, AXES_ATTR).and_then(|a| {
            let names: Option<Vec<String>> = ctx.as_array(a)?.iter().map(|&n| ctx.as_str(n).map(str::to_string)).collect();
            names
        });
        Some(Grid { name: name.to_string(), shape, axes })
    }
    /// The top-level `shard.grid` of `module` (a module's body) named `name`.
    pub fn find(ctx: &Context, module: &Body, name: &str) -> Option<Grid> {
        Grid::all(ctx, module).into_iter().find(|g| g.name == name)
    }
    /// Every top-level `shard.grid` of `module`, in order.
    pub fn all(ctx: &Context, module: &Body) -> Vec<Grid> {
        let Some(&region) = module.root_regions().first() else { return Vec::new() };
        module
            .region_blocks(region)
            .flat_map(|b| module.block_ops(b).collect::<Vec<_>>())
            .filter_map(|op| Grid::of(ctx, module, op))
            .collect()
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    /// The axis named `name` (from `xcs.axes`), or given by its number (`"1"`).
    pub fn axis(&self, name: &str) -> Option<usize> {
        let named = self.axes.as_ref().and_then(|a| a.iter().position(|n| n == name));
        named.or_else(|| name.parse::<usize>().ok().filter(|&i| i < self.rank()))
    }
    /// The name of axis `i` (its number when the grid names none).
    pub fn axis_name(&self, i: usize) -> String {
        self.axes.as_ref().and_then(|a| a.get(i).cloned()).unwrap_or_else(|| i.to_string())
    }
    /// The number of devices in a group along `axes` (`None` if a size is dynamic).
    pub fn group_size(&self, axes: &[i64]) -> Option<i64> {
        axes.iter().try_fold(1i64, |n, &a| match self.shape.get(a as usize) {
            Some(&d) if d != DYNAMIC => Some(n * d),
            _ => None,
        })
    }
    /// The grid as the interpreter's device grid (`None` if a size is dynamic).
    pub fn devices(&self) -> Option<GridShape> {
        let dims: Option<Vec<usize>> = self.shape.iter().map(|&d| usize::try_from(d).ok()).collect();
        dims.map(GridShape)
    }
}

/// Creates a `shard.grid` op for `grid` at the builder's insertion point (a module's body).
pub fn grid(b: &mut Builder<'_>, grid: &Grid) -> Op {
    let ctx = b.ctx;
    let mut st = OperationState::of(ctx, GridOp::DEF, b.loc());
    st.add_attr(ctx, "sym_name", ctx.str_attr(&grid.name));
    st.add_attr(ctx, "shape", ctx.dense_i64_array(&grid.shape));
    if let Some(axes) = &grid.axes {
        let names: Vec<_> = axes.iter().map(|n| ctx.str_attr(n)).collect();
        st.add_attr(ctx, AXES_ATTR, ctx.array_attr(&names));
    }
    b.create_state(st)
}

// ---------------------------------------------------------------------------- shardings

/// A sharding: the grid it is on and, per tensor dim, the grid axes that split it (MLIR's
/// `split_axes`; trailing dims left out are not split), with the static halo sizes and shard
/// offsets (`DYNAMIC` where the IR has a `?`; both usually empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sharding {
    pub grid: String,
    pub split_axes: SplitAxes,
    pub halo_sizes: Vec<i64>,
    pub sharded_dims_offsets: Vec<i64>,
}

impl Sharding {
    /// Dims split along `split_axes` (`[[0], []]`: dim 0 along grid axis 0).
    pub fn new(grid: &str, split_axes: SplitAxes) -> Sharding {
        Sharding { grid: grid.to_string(), split_axes, halo_sizes: Vec::new(), sharded_dims_offsets: Vec::new() }
    }
    /// Replicated on every device (`split_axes = [[]]`, as MLIR writes it).
    pub fn replicated(grid: &str) -> Sharding {
        Sharding::new(grid, vec![Vec::new()])
    }
    /// The sharding a `shard.sharding` op makes.
    pub fn of(ctx: &Context, body: &Body, op: Op) -> Result<Sharding, String> {
        ShardingOp::cast(ctx, body, op).ok_or("not a shard.sharding op")?;
        let grid = body.attr(ctx, op, "grid").and_then(|a| ctx.as_symbol(a)).ok_or("has no grid")?;
        let split_axes = body
            .attr(ctx, op, "split_axes")
            .and_then(|a| split_axes_of(ctx, a))
            .ok_or("has no valid split_axes")?;
        let list = |name: &str| body.attr(ctx, op, name).and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
        Ok(Sharding {
            grid: grid.to_string(),
            split_axes,
            halo_sizes: list("static_halo_sizes"),
            sharded_dims_offsets: list("static_sharded_dims_offsets"),
        })
    }
    /// The sharding of a `!shard.sharding` value, if a `shard.sharding` op of `body` makes it.
    pub fn of_value(ctx: &Context, body: &Body, v: Value) -> Option<Sharding> {
        match body.value_def(v) {
            xcs_ir::ValueDef::Result { op, .. } => Sharding::of(ctx, body, op).ok(),
            _ => None,
        }
    }
    /// The grid axes splitting tensor dim `d` (none for dims beyond `split_axes`).
    pub fn dim_axes(&self, d: usize) -> &[i64] {
        self.split_axes.get(d).map_or(&[], |a| a.as_slice())
    }
    /// The same split, ignoring trailing unsplit dims (MLIR's `equalSplitAxes`), with the same
    /// grid, halo sizes and offsets.
    pub fn equivalent(&self, other: &Sharding) -> bool {
        let n = self.split_axes.len().max(other.split_axes.len());
        self.grid == other.grid
            && (0..n).all(|d| self.dim_axes(d) == other.dim_axes(d))
            && self.halo_sizes == other.halo_sizes
            && self.sharded_dims_offsets == other.sharded_dims_offsets
    }
    /// True if no dim is split.
    pub fn is_replicated(&self) -> bool {
        self.split_axes.iter().all(|a| a.is_empty())
    }
    /// The local shape on each device of a tensor of `shape` (dims split evenly; `?` stays `?`).
    pub fn local_shape(&self, grid: &Grid, shape: &[i64]) -> Result<Vec<i64>, String> {
        if self.split_axes.len() > shape.len() {
            return Err(format!("splits {} dims of a rank-{} tensor", self.split_axes.len(), shape.len()));
        }
        if !self.halo_sizes.is_empty() || !self.sharded_dims_offsets.is_empty() {
            return Err("halo sizes and uneven shards are not supported".into());
        }
        let mut out = shape.to_vec();
        for (d, axes) in self.split_axes.iter().enumerate() {
            match grid.group_size(axes) {
                _ if axes.is_empty() || out[d] == DYNAMIC => {}
                Some(n) if n > 0 && out[d] % n == 0 => out[d] /= n,
                Some(n) => return Err(format!("dim {d} of size {} does not split into {n} equal shards", out[d])),
                None => out[d] = DYNAMIC,
            }
        }
        Ok(out)
    }
    /// The split for the interpreter's device model (`interp::spmd`): grid axes as numbers.
    pub fn split(&self) -> Result<crate::interp::spmd::Split, String> {
        self.split_axes
            .iter()
            .map(|axes| axes.iter().map(|&a| usize::try_from(a).map_err(|_| format!("grid axis {a} is negative"))).collect())
            .collect()
    }
}

impl ShardOp {
    /// True if the annotation is for the users of the value (`annotate_for_users`).
    pub fn annotates_users(self, ctx: &Context, body: &Body) -> bool {
        body.attr(ctx, self.0, "annotate_for_users").is_some()
    }
    /// The annotation's sharding, if a `shard.sharding` op of `body` makes it.
    pub fn sharding_of(self, ctx: &Context, body: &Body) -> Option<Sharding> {
        Sharding::of_value(ctx, body, self.sharding(body))
    }
}

/// A `shard.sharding` op making `s` (static parts only) at the builder's insertion point.
pub fn sharding(b: &mut Builder<'_>, s: &Sharding) -> BuildResult {
    let ctx = b.ctx;
    if s.halo_sizes.contains(&DYNAMIC) || s.sharded_dims_offsets.contains(&DYNAMIC) {
        return Err(Diagnostic::error(b.loc(), "a sharding with dynamic sizes needs their values (build it with OperationState)"));
    }
    let attrs = [
        ("grid", ctx.symbol_ref(&s.grid)),
        ("split_axes", split_axes_attr(ctx, &s.split_axes)),
        ("static_halo_sizes", ctx.dense_i64_array(&s.halo_sizes)),
        ("static_sharded_dims_offsets", ctx.dense_i64_array(&s.sharded_dims_offsets)),
        ("operandSegmentSizes", i32_array_attr(ctx, &[0, 0])),
    ];
    b.create1_with_types(ShardingOp::DEF.name, &[], sharding_type(ctx), &attrs)
}

/// `shard.shard %x to %sharding` (with `annotate_for_users` if `for_users`).
pub fn shard(b: &mut Builder<'_>, x: Value, sharding: Value, for_users: bool) -> BuildResult {
    let ctx = b.ctx;
    let ty = b.body.value_type(x);
    let unit = ctx.unit_attr();
    let attrs: &[(&str, _)] = if for_users { &[("annotate_for_users", unit)] } else { &[] };
    b.create1_with_types(ShardOp::DEF.name, &[x, sharding], ty, attrs)
}

/// A `shard.sharding` for `s` and a `shard.shard` of `x` to it: the annotated value.
pub fn annotate(b: &mut Builder<'_>, x: Value, s: &Sharding, for_users: bool) -> BuildResult {
    let sv = sharding(b, s)?;
    shard(b, x, sv, for_users)
}

// ---------------------------------------------------------------------------- collectives

/// The shape and element type of `x`'s tensor type.
fn tensor_parts(b: &Builder<'_>, x: Value) -> Result<(Vec<i64>, Type), Diagnostic> {
    let t = b.body.value_type(x);
    ranked(b.ctx, t)
        .map(|(s, e)| (s.to_vec(), e))
        .ok_or_else(|| Diagnostic::error(b.loc(), "a collective needs a ranked tensor"))
}

/// `n * d` and `d / n` with `?` for unknown sizes.
fn scaled(d: i64, n: Option<i64>, multiply: bool) -> i64 {
    match n {
        Some(n) if d != DYNAMIC && n > 0 => {
            if multiply {
                d * n
            } else {
                d / n
            }
        }
        _ => DYNAMIC,
    }
}

/// The attributes every collective has: `grid` and `grid_axes`.
fn common<'c>(ctx: &'c Context, grid: &Grid, axes: &[i64]) -> Vec<(&'static str, xcs_ir::Attr)> {
    vec![("grid", ctx.symbol_ref(&grid.name)), ("grid_axes", grid_axes_attr(ctx, axes))]
}

fn index(ctx: &Context, v: usize) -> xcs_ir::Attr {
    ctx.int_attr(v as i128, ctx.index_type())
}

/// `shard.all_gather` of `x` along `axes` on tensor dim `gather_axis`.
pub fn all_gather(b: &mut Builder<'_>, x: Value, grid: &Grid, axes: &[i64], gather_axis: usize) -> BuildResult {
    let (mut shape, elem) = tensor_parts(b, x)?;
    let ctx = b.ctx;
    if let Some(d) = shape.get_mut(gather_axis) {
        *d = scaled(*d, grid.group_size(axes), true);
    }
    let mut attrs = common(ctx, grid, axes);
    attrs.push(("gather_axis", index(ctx, gather_axis)));
    b.create1_with_types(AllGatherOp::DEF.name, &[x], ctx.tensor_type(&shape, elem), &attrs)
}

/// `shard.all_reduce` of `x` along `axes` with `kind` (the result has `x`'s type).
pub fn all_reduce(b: &mut Builder<'_>, x: Value, grid: &Grid, axes: &[i64], kind: ReductionKind) -> BuildResult {
    let ctx = b.ctx;
    let ty = b.body.value_type(x);
    let mut attrs = common(ctx, grid, axes);
    attrs.push(("reduction", kind.attr(ctx)));
    b.create1_with_types(AllReduceOp::DEF.name, &[x], ty, &attrs)
}

/// `shard.reduce_scatter` of `x` along `axes` with `kind`, scattered on tensor dim `scatter_axis`.
pub fn reduce_scatter(
    b: &mut Builder<'_>,
    x: Value,
    grid: &Grid,
    axes: &[i64],
    kind: ReductionKind,
    scatter_axis: usize,
) -> BuildResult {
    let (mut shape, elem) = tensor_parts(b, x)?;
    let ctx = b.ctx;
    if let Some(d) = shape.get_mut(scatter_axis) {
        *d = scaled(*d, grid.group_size(axes), false);
    }
    let mut attrs = common(ctx, grid, axes);
    attrs.push(("reduction", kind.attr(ctx)));
    attrs.push(("scatter_axis", index(ctx, scatter_axis)));
    b.create1_with_types(ReduceScatterOp::DEF.name, &[x], ctx.tensor_type(&shape, elem), &attrs)
}

/// `shard.all_to_all` of `x` along `axes`: `split_axis` shrinks, `concat_axis` grows.
pub fn all_to_all(
    b: &mut Builder<'_>,
    x: Value,
    grid: &Grid,
    axes: &[i64],
    split_axis: usize,
    concat_axis: usize,
) -> BuildResult {
    let (mut shape, elem) = tensor_parts(b, x)?;
    let ctx = b.ctx;
    let n = grid.group_size(axes);
    if split_axis != concat_axis && split_axis < shape.len() && concat_axis < shape.len() {
        shape[split_axis] = scaled(shape[split_axis], n, false);
        shape[concat_axis] = scaled(shape[concat_axis], n, true);
    }
    let mut attrs = common(ctx, grid, axes);
    attrs.push(("split_axis", index(ctx, split_axis)));
    attrs.push(("concat_axis", index(ctx, concat_axis)));
    b.create1_with_types(AllToAllOp::DEF.name, &[x], ctx.tensor_type(&shape, elem), &attrs)
}

/// `shard.all_slice` of `x` along `axes` on tensor dim `slice_axis`.
pub fn all_slice(b: &mut Builder<'_>, x: Value, grid: &Grid, axes: &[i64], slice_axis: usize) -> BuildResult {
    let (mut shape, elem) = tensor_parts(b, x)?;
    let ctx = b.ctx;
    if let Some(d) = shape.get_mut(slice_axis) {
        *d = scaled(*d, grid.group_size(axes), false);
    }
    let mut attrs = common(ctx, grid, axes);
    attrs.push(("slice_axis", index(ctx, slice_axis)));
    b.create1_with_types(AllSliceOp::DEF.name, &[x], ctx.tensor_type(&shape, elem), &attrs)
}

/// `shard.broadcast` of `x` along `axes` from the member at in-group coordinates `root`.
pub fn broadcast(b: &mut Builder<'_>, x: Value, grid: &Grid, axes: &[i64], root: &[i64]) -> BuildResult {
    let ctx = b.ctx;
    let ty = b.body.value_type(x);
    let mut attrs = common(ctx, grid, axes);
    attrs.push(("root", ctx.dense_i64_array(root)));
    b.create1_with_types(BroadcastOp::DEF.name, &[x], ty, &attrs)
}

/// `shard.process_multi_index` of `axes` (all axes when empty): one `index` per axis.
pub fn process_multi_index(b: &mut Builder<'_>, grid: &Grid, axes: &[i64]) -> Result<Vec<Value>, Diagnostic> {
    let ctx = b.ctx;
    let n = if axes.is_empty() { grid.rank() } else { axes.len() };
    let types = vec![ctx.index_type(); n];
    let attrs = [("grid", ctx.symbol_ref(&grid.name)), ("axes", grid_axes_attr(ctx, axes))];
    let op = b.create_with_types(ProcessMultiIndexOp::DEF.name, &[], &types, &attrs)?;
    Ok(b.body.results(op).collect())
}

/// `shard.process_linear_index`: the device's number in the grid.
pub fn process_linear_index(b: &mut Builder<'_>, grid: &Grid) -> BuildResult {
    let ctx = b.ctx;
    let attrs = [("grid", ctx.symbol_ref(&grid.name))];
    b.create1_with_types(ProcessLinearIndexOp::DEF.name, &[], ctx.index_type(), &attrs)
}
