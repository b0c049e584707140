//! The `shard` dialect. Annotations on one device: `shard.shard` is its operand (a view of the
//! same buffer) and `shard.sharding` a placeholder, so annotated but unpartitioned programs
//! compile to the same code as without them. The collectives of partitioned (SPMD) programs
//! (`all_gather`, `all_reduce`, `reduce_scatter`, `all_to_all`, `all_slice`, `broadcast`) and
//! the device queries (`process_multi_index`, `process_linear_index`, `grid_shape`) become
//! calls of the runtime (`runtime/xcs_collectives.c`: `xcs_rt_all_gather`, ...) on contiguous
//! buffers, with a constant describing the op (`xcs_coll_site`: error site, message prefix,
//! grid and grid axes); the runtime runs them on the calling thread's communicator (shared
//! memory between device threads, or MPI; see docs/shard.md, "The runtime"). Group sizes come
//! from the grid's static shape, so result sizes are known here; grids with `?` sizes are left
//! to the interpreter.

use xcs_dialects::interp::ElemType;
use xcs_dialects::shard::attrs::grid_axes_of;
use xcs_dialects::shard::{Grid, ReductionKind};
use xcs_ir::DYNAMIC;

use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::for_each_element;
use crate::codegen::types::{cast, dtype_code, to_comp};
use crate::codegen::{check_result_dims, FunctionLowering, Kernel, LowerFn, OpSite, Slot, TensorVal, R};

pub static SHARD: LowerFn = LowerFn(shard);
pub static SHARDING: LowerFn = LowerFn(sharding);
pub static ALL_GATHER: LowerFn = LowerFn(all_gather);
pub static ALL_REDUCE: LowerFn = LowerFn(all_reduce);
pub static REDUCE_SCATTER: LowerFn = LowerFn(reduce_scatter);
pub static ALL_TO_ALL: LowerFn = LowerFn(all_to_all);
pub static ALL_SLICE: LowerFn = LowerFn(all_slice);
pub static BROADCAST: LowerFn = LowerFn(broadcast);
pub static PROCESS_MULTI_INDEX: LowerFn = LowerFn(process_multi_index);
pub static PROCESS_LINEAR_INDEX: LowerFn = LowerFn(process_linear_index);
pub static GRID_SHAPE: LowerFn = LowerFn(grid_shape);

/// `shard.shard`: the operand itself.
fn shard(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    Ok(vec![Slot::Tensor(o.tensor(fl, 0)?)])
}

/// `shard.sharding`: nothing to compute (its only users are annotations); a constant stands
/// for the value.
fn sharding(_: &mut FunctionLowering, _: &OpSite) -> R<Vec<Slot>> {
    Ok(vec![Slot::Scalar(Val::i64(0), ElemType::I64)])
}

/// The LLVM type of `xcs_coll_site` (runtime/xcs_collectives.c).
const SITE_TYPE: &str = "{ i32, i32, i32, i32, ptr, ptr, ptr, ptr }";

/// The grid an op names, with the sizes of its axes `axes` (which must be static).
struct OpGrid {
    grid: Grid,
    axes: Vec<i64>,
}

impl OpGrid {
    /// The op's grid (its `grid` symbol) and its grid axes attribute `key` (none: `[]`; all
    /// axes when `all_if_empty`).
    fn of(fl: &FunctionLowering, o: &OpSite, key: &str, all_if_empty: bool) -> R<OpGrid> {
        let ctx = fl.ctx();
        let name = ctx.as_symbol(o.attr(fl, "grid")?).ok_or_else(|| o.err("requires a 'grid' symbol reference"))?;
        let grid = Grid::find(ctx, &fl.module.source.body, name)
            .ok_or_else(|| o.err(&format!("names @{name}, which is not a shard.grid of the module")))?;
        let mut axes = match o.body.attr(ctx, o.op, key) {
            None => Vec::new(),
            Some(a) => grid_axes_of(ctx, a).ok_or_else(|| o.err(&format!("attribute '{key}' must be an array<i16>")))?,
        };
        if axes.iter().any(|&a| a < 0 || a as usize >= grid.rank()) {
            return Err(o.err("has a grid axis out of range"));
        }
        if axes.is_empty() && all_if_empty {
            axes = (0..grid.rank() as i64).collect();
        }
        Ok(OpGrid { grid, axes })
    }
    /// The number of devices of a group (static sizes only: the LLVM backend needs them).
    fn group_size(&self, o: &OpSite) -> R<i64> {
        self.grid.group_size(&self.axes).ok_or_else(|| {
            o.err(&format!(
                "runs on @{}, whose sizes are dynamic: grids with dynamic sizes are not supported by the LLVM backend",
                self.grid.name
            ))
        })
    }
    /// The `xcs_coll_site` constant of the op.
    fn site(&self, fl: &mut FunctionLowering, o: &OpSite) -> Val {
        let prefix = o.msg(fl, "");
        let m = &mut fl.module.m;
        let prefix = m.cstr(&prefix);
        let name = m.cstr(&self.grid.name);
        let shape: Vec<i64> = self.grid.shape.iter().map(|&d| if d == DYNAMIC { -1 } else { d }).collect();
        let shape = m.i64_array(&shape);
        let axes: Vec<u8> = self.axes.iter().flat_map(|&a| (a as i32).to_le_bytes()).collect();
        let axes = m.data("axes", &axes);
        let init = format!(
            "{SITE_TYPE} {{ i32 {}, i32 {}, i32 {}, i32 0, ptr {prefix}, ptr {name}, ptr {shape}, ptr {axes} }}",
            o.site,
            self.grid.rank(),
            self.axes.len()
        );
        m.global("coll", &init)
    }
}

/// Operand 0 as a contiguous tensor (a copy, pooled by [`finish`], when it is a strided view),
/// and its sizes in a stack array for the runtime.
fn input(fl: &mut FunctionLowering, o: &OpSite) -> R<(TensorVal, Option<usize>, Val)> {
    let t = o.tensor(fl, 0)?;
    let c = fl.contiguous(&t)?;
    let temp = if t.contiguous { None } else { c.buf };
    let dims = fl.f.alloca("i64", c.rank().max(1));
    for (j, d) in c.dims.iter().enumerate() {
        let q = fl.f.gep("i64", &dims, &Val::i64(j as i64));
        fl.f.store(d, &q);
    }
    Ok((c, temp, dims))
}

/// Declares runtime function `name` taking the common collective arguments and then `extra`,
/// calls it with `args`, pools the temporary input copy and checks the status.
fn call(fl: &mut FunctionLowering, name: &str, extra: &str, args: &str, temp: Option<usize>) {
    fl.module.m.declare(name, &format!("declare i32 @{name}(ptr, ptr, ptr, i32, i32{extra})"));
    let st = fl.f.emit("i32", format!("call i32 @{name}({args})"));
    if let Some(b) = temp {
        fl.pool_buffer(b);
    }
    fl.check_status(&st);
}

/// The common arguments: the site, the input's data, sizes, rank and element type.
fn common_args(site: &Val, x: &TensorVal, dims: &Val) -> String {
    format!("ptr {site}, ptr {}, ptr {dims}, i32 {}, i32 {}", x.ptr, x.rank(), dtype_code(x.elem))
}

/// The result tensor: sizes `dims` (checked against the result type), element type of the
/// result.
fn output(fl: &mut FunctionLowering, o: &OpSite, dims: Vec<Val>) -> R<TensorVal> {
    let (ty, elem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &ty)?;
    fl.new_tensor(elem, &dims)
}

/// A tensor dim attribute (`gather_axis`, ...) checked against the rank.
fn dim_attr(fl: &FunctionLowering, o: &OpSite, key: &str, rank: usize) -> R<usize> {
    let v = o.i64(fl, key)?;
    usize::try_from(v)
        .ok()
        .filter(|&d| d < rank)
        .ok_or_else(|| o.err(&format!("attribute '{key}' ({v}) is out of range for a rank-{rank} tensor")))
}

/// `dims[d] * n` or `dims[d] / n` in place.
fn scale(fl: &mut FunctionLowering, dims: &mut [Val], d: usize, n: i64, multiply: bool) {
    dims[d] = if multiply { fl.f.mul(&dims[d], &Val::i64(n)) } else { fl.f.div(&dims[d], &Val::i64(n)) };
}

fn all_gather(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "grid_axes", false)?;
    let n = g.group_size(o)?;
    let site = g.site(fl, o);
    let (x, temp, dims) = input(fl, o)?;
    let axis = dim_attr(fl, o, "gather_axis", x.rank())?;
    let mut out_dims = x.dims.clone();
    scale(fl, &mut out_dims, axis, n, true);
    let out = output(fl, o, out_dims)?;
    let args = format!("{}, i64 {axis}, ptr {}", common_args(&site, &x, &dims), out.ptr);
    call(fl, "xcs_rt_all_gather", ", i64, ptr", &args, temp);
    Ok(vec![Slot::Tensor(out)])
}

fn all_slice(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "grid_axes", false)?;
    let n = g.group_size(o)?;
    let site = g.site(fl, o);
    let (x, temp, dims) = input(fl, o)?;
    let axis = dim_attr(fl, o, "slice_axis", x.rank())?;
    let mut out_dims = x.dims.clone();
    scale(fl, &mut out_dims, axis, n, false);
    let out = output(fl, o, out_dims)?;
    let args = format!("{}, i64 {axis}, ptr {}", common_args(&site, &x, &dims), out.ptr);
    call(fl, "xcs_rt_all_slice", ", i64, ptr", &args, temp);
    Ok(vec![Slot::Tensor(out)])
}

fn all_to_all(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "grid_axes", false)?;
    let n = g.group_size(o)?;
    let site = g.site(fl, o);
    let (x, temp, dims) = input(fl, o)?;
    let split = dim_attr(fl, o, "split_axis", x.rank())?;
    let concat = dim_attr(fl, o, "concat_axis", x.rank())?;
    let mut out_dims = x.dims.clone();
    scale(fl, &mut out_dims, split, n, false);
    scale(fl, &mut out_dims, concat, n, true);
    let out = output(fl, o, out_dims)?;
    let args = format!("{}, i64 {split}, i64 {concat}, ptr {}", common_args(&site, &x, &dims), out.ptr);
    call(fl, "xcs_rt_all_to_all", ", i64, i64, ptr", &args, temp);
    Ok(vec![Slot::Tensor(out)])
}

/// The runtime's code of the op's `reduction` (sum when absent).
fn reduction_code(fl: &FunctionLowering, o: &OpSite) -> R<i32> {
    let ctx = fl.ctx();
    let kind = match o.body.attr(ctx, o.op, "reduction") {
        None => ReductionKind::Sum,
        Some(a) => ReductionKind::from_attr(ctx, a).ok_or_else(|| o.err("has an invalid 'reduction'"))?,
    };
    Ok(match kind {
        ReductionKind::Sum => 0,
        ReductionKind::Max => 1,
        ReductionKind::Min => 2,
        ReductionKind::Product => 3,
        ReductionKind::Average => 4,
        ReductionKind::BitwiseAnd => 5,
        ReductionKind::BitwiseOr => 6,
        ReductionKind::BitwiseXor => 7,
        ReductionKind::Generic => return Err(o.err("has a 'generic' reduction, which is not supported by the LLVM backend")),
    })
}

/// The input of a reduction in the result's element type (reductions combine in it, as in the
/// interpreter): `x`, or its elements cast (`tensor.cast`'s semantics) into a new buffer.
fn in_result_elem(fl: &mut FunctionLowering, o: &OpSite, x: TensorVal, temp: Option<usize>) -> R<(TensorVal, Option<usize>)> {
    let (_, elem) = o.result(fl, 0)?;
    if x.elem == elem {
        return Ok((x, temp));
    }
    let out = fl.new_tensor(elem, &x.dims)?;
    let from = x.elem;
    let mut body = |k: &mut Kernel, v: &[Val]| -> R<Vec<Val>> {
        let m = cast(&mut k.f, &mut k.m, from, elem, &v[0]);
        Ok(vec![to_comp(&mut k.f, elem, &m)])
    };
    let dims = x.dims.clone();
    for_each_element(fl, "cast", std::slice::from_ref(&x), std::slice::from_ref(&out), &dims, &mut body)?;
    if let Some(b) = temp {
        fl.pool_buffer(b);
    }
    let buf = out.buf;
    Ok((out, buf))
}

fn all_reduce(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "grid_axes", false)?;
    g.group_size(o)?;
    let kind = reduction_code(fl, o)?;
    let site = g.site(fl, o);
    let (x, temp, dims) = input(fl, o)?;
    let (x, temp) = in_result_elem(fl, o, x, temp)?;
    let out = output(fl, o, x.dims.clone())?;
    let args = format!("{}, i32 {kind}, ptr {}", common_args(&site, &x, &dims), out.ptr);
    call(fl, "xcs_rt_all_reduce", ", i32, ptr", &args, temp);
    Ok(vec![Slot::Tensor(out)])
}

fn reduce_scatter(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "grid_axes", false)?;
    let n = g.group_size(o)?;
    let kind = reduction_code(fl, o)?;
    let site = g.site(fl, o);
    let (x, temp, dims) = input(fl, o)?;
    let (x, temp) = in_result_elem(fl, o, x, temp)?;
    let axis = dim_attr(fl, o, "scatter_axis", x.rank())?;
    let mut out_dims = x.dims.clone();
    scale(fl, &mut out_dims, axis, n, false);
    let out = output(fl, o, out_dims)?;
    let args = format!("{}, i32 {kind}, i64 {axis}, ptr {}", common_args(&site, &x, &dims), out.ptr);
    call(fl, "xcs_rt_reduce_scatter", ", i32, i64, ptr", &args, temp);
    Ok(vec![Slot::Tensor(out)])
}

fn broadcast(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "grid_axes", false)?;
    g.group_size(o)?;
    let statics = o.i64s(fl, "root")?;
    if statics.len() != g.axes.len() {
        return Err(o.err(&format!("has {} root coordinates for {} grid axes", statics.len(), g.axes.len())));
    }
    let root = fl.f.alloca("i64", statics.len().max(1));
    let mut next = 1;
    for (j, &s) in statics.iter().enumerate() {
        let v = if s == DYNAMIC {
            let operand = (next < o.body.num_operands(o.op)).then(|| o.body.operand(o.op, next));
            next += 1;
            match operand.map(|v| fl.get(v)).transpose()? {
                Some(Slot::Scalar(v, ElemType::I64)) => v,
                _ => return Err(o.err("has a dynamic root coordinate that is not an index value")),
            }
        } else {
            Val::i64(s)
        };
        let q = fl.f.gep("i64", &root, &Val::i64(j as i64));
        fl.f.store(&v, &q);
    }
    let site = g.site(fl, o);
    let (x, temp, dims) = input(fl, o)?;
    let out = output(fl, o, x.dims.clone())?;
    let args = format!("{}, ptr {root}, ptr {}", common_args(&site, &x, &dims), out.ptr);
    call(fl, "xcs_rt_broadcast", ", ptr, ptr", &args, temp);
    Ok(vec![Slot::Tensor(out)])
}

/// The device's coordinates (one `i64` per grid axis) from the runtime; a lone device's are 0
/// when the queried `axes` have size 1.
fn coords(fl: &mut FunctionLowering, o: &OpSite, g: &OpGrid) -> Vec<Val> {
    let site = g.site(fl, o);
    let rank = g.grid.rank();
    let out = fl.f.alloca("i64", rank.max(1));
    fl.module.m.declare("xcs_rt_process_coords", "declare i32 @xcs_rt_process_coords(ptr, ptr)");
    let st = fl.f.emit("i32", format!("call i32 @xcs_rt_process_coords(ptr {site}, ptr {out})"));
    fl.check_status(&st);
    (0..rank)
        .map(|a| {
            let q = fl.f.gep("i64", &out, &Val::i64(a as i64));
            fl.f.load("i64", &q)
        })
        .collect()
}

fn process_multi_index(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "axes", true)?;
    let all = coords(fl, o, &g);
    Ok(g.axes.iter().map(|&a| Slot::Scalar(all[a as usize].clone(), ElemType::I64)).collect())
}

fn process_linear_index(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "axes", true)?;
    g.group_size(o)?;
    let all = coords(fl, o, &g);
    let mut linear = Val::i64(0);
    for (c, &n) in all.iter().zip(&g.grid.shape) {
        let scaled = fl.f.mul(&linear, &Val::i64(n));
        linear = fl.f.add(&scaled, c);
    }
    Ok(vec![Slot::Scalar(linear, ElemType::I64)])
}

/// `shard.grid_shape`: constants (the grid's static sizes).
fn grid_shape(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let g = OpGrid::of(fl, o, "axes", true)?;
    g.group_size(o)?;
    Ok(g.axes.iter().map(|&a| Slot::Scalar(Val::i64(g.grid.shape[a as usize]), ElemType::I64)).collect())
}
