//! The shard ops at run time and through the typed API: partitioned programs (written as
//! `shard-partition` would write them) run on every device of 1-D and 2-D grids with
//! `run_spmd` and give the unpartitioned program's results; device queries; collectives
//! without a device grid; errors located at the failing op of the failing device; builders
//! and views.

use xcs_ir::{Builder, Context, Module};

use super::build::{self, Grid, Sharding};
use super::{ReductionKind, ShardOp};
use crate::interp::devices::GridShape;
use crate::interp::shared_grid::run_on_grid;
use crate::interp::spmd::{run_spmd, Split};
use crate::interp::value::{ElemType, RtValue, Tensor};
use crate::interp::{random_tensor, Interpreter};

fn parse(ctx: &Context, src: &str) -> Module {
    let m = xcs_ir::parser::parse_module(ctx, src, "test.mlir", &Default::default())
        .unwrap_or_else(|d| panic!("parse error: {}\n{src}", d.message));
    if let Err(ds) = xcs_ir::verifier::verify_module(ctx, &m, false) {
        let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
        panic!("verification failed: {msgs:?}\n{src}");
    }
    m
}

fn tensor(v: &RtValue) -> &Tensor {
    v.as_tensor().expect("a tensor")
}

/// Element-wise closeness (the partitioned sums add in another order).
fn assert_close(a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape, b.shape);
    let (x, y) = (a.data.to_f64s().unwrap(), b.data.to_f64s().unwrap());
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        assert!((p - q).abs() <= 1e-5 * (1.0 + q.abs()), "element {i}: {p} vs {q}");
    }
}

/// Runs `name` of `src` on `grid` with the inputs split per `args` and the results joined per
/// `results`.
fn spmd(ctx: &Context, src: &str, grid: &[usize], name: &str, inputs: &[RtValue], args: &[Split], results: &[Split]) -> Vec<RtValue> {
    let m = parse(ctx, src);
    run_spmd(ctx, &m, &GridShape(grid.to_vec()), name, inputs, args, results).unwrap_or_else(|e| panic!("{e}"))
}

const MATMULS: &str = r#"
shard.grid @g(shape = 4) {xcs.axes = ["tp"]}
func.func @full(%x: tensor<8x8xf32>, %w: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %y = tensor.matmul %x, %w : (tensor<8x8xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}
// rows of x split: each device computes its rows, then they are gathered
func.func @rows(%x: tensor<2x8xf32>, %w: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %y = tensor.matmul %x, %w : (tensor<2x8xf32>, tensor<8x6xf32>) -> tensor<2x6xf32>
  %g = shard.all_gather %y on @g grid_axes = [0] gather_axis = 0 : tensor<2x6xf32> -> tensor<8x6xf32>
  return %g : tensor<8x6xf32>
}
// K split: partial sums, all-reduced
func.func @k_all_reduce(%x: tensor<8x2xf32>, %w: tensor<2x6xf32>) -> tensor<8x6xf32> {
  %p = tensor.matmul %x, %w : (tensor<8x2xf32>, tensor<2x6xf32>) -> tensor<8x6xf32>
  %r = shard.all_reduce %p on @g grid_axes = [0] : tensor<8x6xf32> -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
// K split resolved to a row split by one reduce_scatter
func.func @k_reduce_scatter(%x: tensor<8x2xf32>, %w: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %p = tensor.matmul %x, %w : (tensor<8x2xf32>, tensor<2x6xf32>) -> tensor<8x6xf32>
  %r = shard.reduce_scatter %p on @g grid_axes = [0] scatter_axis = 0 : tensor<8x6xf32> -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}
// row split to column split
func.func @transposed_split(%x: tensor<2x8xf32>) -> tensor<8x2xf32> {
  %t = shard.all_to_all %x on @g grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
  return %t : tensor<8x2xf32>
}
"#;

#[test]
fn partitioned_matmuls_on_a_1d_grid_give_the_unpartitioned_results() {
    let ctx = crate::context();
    let x = RtValue::Tensor(random_tensor(ElemType::F32, &[8, 8], 1));
    let w = RtValue::Tensor(random_tensor(ElemType::F32, &[8, 6], 2));
    let inputs = [x.clone(), w.clone()];
    let full = spmd(&ctx, MATMULS, &[4], "full", &inputs, &[vec![], vec![]], &[vec![]]);
    let none: Split = vec![];
    let rows: Split = vec![vec![0]];
    let cols: Split = vec![vec![], vec![0]];
    let out = spmd(&ctx, MATMULS, &[4], "rows", &inputs, &[rows.clone(), none.clone()], &[none.clone()]);
    assert_close(tensor(&out[0]), tensor(&full[0]));
    let out = spmd(&ctx, MATMULS, &[4], "k_all_reduce", &inputs, &[cols.clone(), rows.clone()], &[none.clone()]);
    assert_close(tensor(&out[0]), tensor(&full[0]));
    let out = spmd(&ctx, MATMULS, &[4], "k_reduce_scatter", &inputs, &[cols.clone(), rows.clone()], &[rows.clone()]);
    assert_close(tensor(&out[0]), tensor(&full[0]));
    // all_to_all moves the split without changing the values
    let out = spmd(&ctx, MATMULS, &[4], "transposed_split", &[x.clone()], &[rows], &[cols]);
    assert_eq!(tensor(&out[0]), tensor(&x));
}

const GRID_2D: &str = r#"
shard.grid @g(shape = 2x2)
func.func @full(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %e = tensor.exp %x : tensor<4x6xf32>
  %s = tensor.reduce %e {axes = array<i64: 1>, keepdims = true, kind = "max"} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %r = tensor.div %e, %s : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
// x split [[0], [1]]: the row max over dim 1 needs an all_reduce max along grid axis 1
func.func @split(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.exp %x : tensor<2x3xf32>
  %s = tensor.reduce %e {axes = array<i64: 1>, keepdims = true, kind = "max"} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %m = shard.all_reduce %s on @g grid_axes = [1] reduction = max : tensor<2x1xf32> -> tensor<2x1xf32>
  %r = tensor.div %e, %m : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
// the same value replicated by slicing and gathering along both axes
func.func @roundtrip(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %a = shard.all_slice %x on @g grid_axes = [0] slice_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
  %b = shard.all_slice %a on @g grid_axes = [1] slice_axis = 1 : tensor<2x6xf32> -> tensor<2x3xf32>
  %c = shard.all_gather %b on @g grid_axes = [1] gather_axis = 1 : tensor<2x3xf32> -> tensor<2x6xf32>
  %d = shard.all_gather %c on @g grid_axes = [0] gather_axis = 0 : tensor<2x6xf32> -> tensor<4x6xf32>
  %e = shard.broadcast %d on @g grid_axes = [0, 1] root = [1, 1] : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %e : tensor<4x6xf32>
}
"#;

#[test]
fn a_partitioned_softmax_like_program_on_a_2d_grid() {
    let ctx = crate::context();
    let x = RtValue::Tensor(random_tensor(ElemType::F32, &[4, 6], 3));
    let full = spmd(&ctx, GRID_2D, &[2, 2], "full", &[x.clone()], &[vec![]], &[vec![]]);
    let both: Split = vec![vec![0], vec![1]];
    let out = spmd(&ctx, GRID_2D, &[2, 2], "split", &[x.clone()], &[both.clone()], &[both]);
    assert_close(tensor(&out[0]), tensor(&full[0]));
    let out = spmd(&ctx, GRID_2D, &[2, 2], "roundtrip", &[x.clone()], &[vec![]], &[vec![]]);
    assert_eq!(tensor(&out[0]), tensor(&x));
}

#[test]
fn device_queries_give_the_devices_coordinates() {
    let ctx = crate::context();
    let m = parse(
        &ctx,
        r#"
shard.grid @g(shape = 2x3)
func.func @where() -> (index, index, index, index, index) {
  %c:2 = shard.process_multi_index on @g : index, index
  %b = shard.process_multi_index on @g axes = [1] : index
  %l = shard.process_linear_index on @g : index
  %s = shard.grid_shape @g axes = [1] : index
  return %c#0, %c#1, %b, %l, %s : index, index, index, index, index
}
"#,
    );
    let results = run_on_grid(&GridShape(vec![2, 3]), 16 << 20, &|d| {
        Interpreter::new(&ctx, &m).with_device(d).call("where", vec![]).map_err(|e| e.to_string())
    });
    for (dev, r) in results.into_iter().enumerate() {
        let v: Vec<i128> = r.unwrap().iter().map(|v| v.as_scalar().unwrap().value).collect();
        assert_eq!(v, vec![(dev / 3) as i128, (dev % 3) as i128, (dev % 3) as i128, dev as i128, 3]);
    }
    // alone, the queries of axes of size > 1 need a grid
    let e = Interpreter::new(&ctx, &m).call("where", vec![]).unwrap_err();
    assert!(e.message.contains("'shard.process_multi_index' op needs a device grid"), "{e}");
}

#[test]
fn without_a_device_grid_groups_of_one_device_are_local_and_larger_ones_an_error() {
    let ctx = crate::context();
    let m = parse(
        &ctx,
        r#"
shard.grid @g(shape = 1x4)
func.func @local(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf64>, index) {
  %a = shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<4xf32>
  %b = shard.all_reduce %a on @g grid_axes = [0] : tensor<4xf32> -> tensor<4xf64>
  %i = shard.process_multi_index on @g axes = [0] : index
  return %a, %b, %i : tensor<4xf32>, tensor<4xf64>, index
}
func.func @needs_grid(%x: tensor<4xf32>) -> tensor<16xf32> {
  %a = shard.all_gather %x on @g grid_axes = [1] gather_axis = 0 : tensor<4xf32> -> tensor<16xf32>
  return %a : tensor<16xf32>
}
"#,
    );
    let x = Tensor::f32(&[4], &[1.0, 2.0, 3.0, 4.5]);
    let out = Interpreter::new(&ctx, &m).call("local", vec![RtValue::Tensor(x.clone())]).unwrap();
    assert_eq!(tensor(&out[0]), &x);
    assert_eq!(tensor(&out[1]), &Tensor::f64(&[4], &[1.0, 2.0, 3.0, 4.5]));
    assert_eq!(out[2].as_scalar().unwrap().value, 0);
    let e = Interpreter::new(&ctx, &m).call("needs_grid", vec![RtValue::Tensor(x)]).unwrap_err();
    assert!(
        e.message.starts_with("'shard.all_gather' op needs a device grid: its group along grid axes [1] of @g has 4 devices"),
        "{e}"
    );
}

#[test]
fn a_failure_on_one_device_is_that_devices_located_error() {
    let ctx = crate::context();
    let src = r#"
shard.grid @g(shape = 4)
func.func @f(%x: tensor<1xi32>, %y: tensor<1xi32>) -> tensor<4xi32> {
  %q = tensor.div %x, %y : tensor<1xi32>
  %g = shard.all_gather %q on @g grid_axes = [0] gather_axis = 0 : tensor<1xi32> -> tensor<4xi32>
  return %g : tensor<4xi32>
}
"#;
    let m = parse(&ctx, src);
    // device 2 divides by zero; the others wait in the all_gather and are stopped
    let x = RtValue::Tensor(Tensor::i32(&[4], &[8, 8, 8, 8]));
    let y = RtValue::Tensor(Tensor::i32(&[4], &[1, 2, 0, 4]));
    let split: Split = vec![vec![0]];
    let e = run_spmd(&ctx, &m, &GridShape(vec![4]), "f", &[x.clone(), y], &[split.clone(), split.clone()], &[vec![]]).unwrap_err();
    assert!(e.message.contains("'tensor.div' op integer division by zero"), "{e}");
    assert!(e.notes.iter().any(|(_, n)| n == "on device (2) of grid 4"), "{e}");
    // a grid that is not the program's
    let y = RtValue::Tensor(Tensor::i32(&[2], &[1, 1]));
    let x = RtValue::Tensor(Tensor::i32(&[2], &[8, 8]));
    let e = run_spmd(&ctx, &m, &GridShape(vec![2]), "f", &[x, y], &[split.clone(), split], &[vec![]]).unwrap_err();
    assert!(e.message.contains("runs on a device grid of shape 2, but @g has shape 4"), "{e}");
}

#[test]
fn builders_make_verified_ops_and_views_read_them_back() {
    let ctx = crate::context();
    let mut m = parse(&ctx, "func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {\n  return %x : tensor<8x16xf32>\n}\n");
    let grid = Grid::new("mesh", &[2, 4]).with_axes(&["dp", "tp"]);
    {
        let body = &mut m.body;
        let entry = body.entry_block(body.root_regions()[0]).unwrap();
        let first = body.block_ops(entry).next().unwrap();
        let mut b = Builder::before(&ctx, body, first);
        build::grid(&mut b, &grid);
    }
    let fop = m.ops().into_iter().find(|&op| crate::func::FuncOp::cast(&ctx, &m.body, op).is_some()).unwrap();
    let fb = m.body.nested_mut(fop).unwrap();
    let entry = fb.entry_block(fb.root_regions()[0]).unwrap();
    let x = fb.block_args(entry)[0];
    let ret = fb.block_ops(entry).last().unwrap();
    let mut b = Builder::before(&ctx, fb, ret);
    let s = Sharding::new("mesh", vec![vec![0], vec![1]]);
    let a = build::annotate(&mut b, x, &s, false).unwrap();
    let g = build::all_gather(&mut b, a, &grid, &[1], 1).unwrap();
    let r = build::all_reduce(&mut b, g, &grid, &[0], ReductionKind::Max).unwrap();
    let sc = build::reduce_scatter(&mut b, r, &grid, &[0, 1], ReductionKind::Sum, 0).unwrap();
    let t = build::all_to_all(&mut b, sc, &grid, &[1], 1, 0).unwrap();
    let sl = build::all_slice(&mut b, t, &grid, &[0], 0).unwrap();
    build::broadcast(&mut b, sl, &grid, &[0], &[1]).unwrap();
    build::process_multi_index(&mut b, &grid, &[]).unwrap();
    build::process_linear_index(&mut b, &grid).unwrap();
    let text = xcs_ir::printer::print_module(&ctx, &m, &Default::default());
    for line in [
        "shard.grid @mesh(shape = 2x4) {xcs.axes = [\"dp\", \"tp\"]}",
        "%sharding = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding",
        "%sharding_annotated = shard.shard %arg0 to %sharding : tensor<8x16xf32>",
        "%all_gather = shard.all_gather %sharding_annotated on @mesh grid_axes = [1] gather_axis = 1 : tensor<8x16xf32> -> tensor<8x64xf32>",
        "%all_reduce = shard.all_reduce %all_gather on @mesh grid_axes = [0] reduction =  max : tensor<8x64xf32> -> tensor<8x64xf32>",
        "%reduce_scatter = shard.reduce_scatter %all_reduce on @mesh grid_axes = [0, 1] scatter_axis = 0 : tensor<8x64xf32> -> tensor<1x64xf32>",
        "%all_to_all = shard.all_to_all %reduce_scatter on @mesh grid_axes = [1] split_axis = 1 concat_axis = 0 : tensor<1x64xf32> -> tensor<4x16xf32>",
        "%all_slice = shard.all_slice %all_to_all on @mesh grid_axes = [0] slice_axis = 0 : tensor<4x16xf32> -> tensor<2x16xf32>",
        "%broadcast = shard.broadcast %all_slice on @mesh grid_axes = [0] root = [1] : (tensor<2x16xf32>) -> tensor<2x16xf32>",
        "%proc_linear_idx:2 = shard.process_multi_index on @mesh : index, index",
    ] {
        assert!(text.contains(line), "missing `{line}` in\n{text}");
    }
    let reparsed = parse(&ctx, &text);
    assert_eq!(Grid::find(&ctx, &reparsed.body, "mesh"), Some(grid.clone()));
    let fb = reparsed.body.nested(*reparsed.ops().last().unwrap()).unwrap();
    let shard = fb.walk_ops().into_iter().find_map(|op| ShardOp::cast(&ctx, fb, op)).unwrap();
    let read = shard.sharding_of(&ctx, fb).unwrap();
    assert_eq!(read, s);
    assert!(!shard.annotates_users(&ctx, fb));
    assert_eq!(read.local_shape(&grid, &[8, 16]).unwrap(), vec![4, 4]);
    assert_eq!(grid.axis("tp"), Some(1));
    assert_eq!(grid.axis_name(0), "dp");
    assert!(read.equivalent(&Sharding::new("mesh", vec![vec![0], vec![1], vec![]])));
    assert!(!read.equivalent(&Sharding::replicated("mesh")));
    assert!(Sharding::new("mesh", vec![vec![1]]).local_shape(&grid, &[6]).is_err());
}
