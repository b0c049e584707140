//! SPMD programs (the `shard` dialect's collectives) on the JIT: every collective on every
//! element type against the interpreter's SPMD runs (bit for bit: both combine in group order
//! in f64 / i64), seeded random partitioned programs against their unpartitioned twins, device
//! queries, a lone device, failures (a failing device stops the others; a deadlock is found,
//! not waited for) and leaks.

use xcs_dialects::interp::spmd::{run_spmd, Split};
use xcs_dialects::interp::{random_tensor, Communicator, GridShape, Interpreter, RtValue, Tensor};
use xcs_ir::{Context, Module};
use xcs_lowering::runtime::{self, ShmGrid};
use xcs_lowering::spmd::run_on_devices;
use xcs_lowering::Jit;

use super::{elem, lock, opts, parse, ALL, FLOATS, INTS};

/// Runs `name` of `m` on `grid` with the JIT and the interpreter; both must succeed with equal
/// results (bit for bit when `exact`, else within the element type's tolerance), and the JIT
/// must leave no buffer allocated. Returns the results.
fn both(ctx: &Context, m: &Module, grid: &[usize], name: &str, inputs: &[RtValue], args: &[Split], results: &[Split], exact: bool) -> Vec<RtValue> {
    let grid = GridShape(grid.to_vec());
    let want = run_spmd(ctx, m, &grid, name, inputs, args, results).unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
    let jit = Jit::new(ctx, m, opts());
    let before = runtime::live_allocations();
    let got = run_on_devices(&jit, name, &grid, inputs, args, results).unwrap_or_else(|e| panic!("{name}: JIT: {e}"));
    assert_eq!(runtime::live_allocations(), before, "{name}: the JIT leaked buffers");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let ok = match (g, w) {
            (RtValue::Tensor(a), RtValue::Tensor(b)) if exact => a.bit_eq(b),
            _ => super::same(g, w).is_ok(),
        };
        assert!(ok, "{name}: result #{i} differs\n  jit:    {g}\n  interp: {w}");
    }
    got
}

fn t(v: &RtValue) -> &Tensor {
    v.as_tensor().expect("a tensor")
}

/// Every collective, for element type `e`, on a 2x2 grid.
fn collectives(e: &str) -> String {
    let red = if FLOATS.contains(&e) { "product" } else { "bitwise_xor" };
    format!(
        r#"
shard.grid @g(shape = 2x2)
func.func @gather(%x: tensor<2x3x{e}>) -> (tensor<4x3x{e}>, tensor<2x6x{e}>, tensor<8x3x{e}>) {{
  %a = shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : tensor<2x3x{e}> -> tensor<4x3x{e}>
  %b = shard.all_gather %x on @g grid_axes = [1] gather_axis = 1 : tensor<2x3x{e}> -> tensor<2x6x{e}>
  %c = shard.all_gather %x on @g grid_axes = [1, 0] gather_axis = 0 : tensor<2x3x{e}> -> tensor<8x3x{e}>
  return %a, %b, %c : tensor<4x3x{e}>, tensor<2x6x{e}>, tensor<8x3x{e}>
}}
func.func @reduce(%x: tensor<3x4x{e}>) -> (tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x2x{e}>, tensor<3x1x{e}>) {{
  %s = shard.all_reduce %x on @g grid_axes = [0, 1] : tensor<3x4x{e}> -> tensor<3x4x{e}>
  %mx = shard.all_reduce %x on @g grid_axes = [1] reduction = max : tensor<3x4x{e}> -> tensor<3x4x{e}>
  %mn = shard.all_reduce %x on @g grid_axes = [0] reduction = min : tensor<3x4x{e}> -> tensor<3x4x{e}>
  %av = shard.all_reduce %x on @g grid_axes = [1, 0] reduction = average : tensor<3x4x{e}> -> tensor<3x4x{e}>
  %p = shard.all_reduce %x on @g grid_axes = [1] reduction = {red} : tensor<3x4x{e}> -> tensor<3x4x{e}>
  %rs = shard.reduce_scatter %x on @g grid_axes = [1] scatter_axis = 1 : tensor<3x4x{e}> -> tensor<3x2x{e}>
  %rm = shard.reduce_scatter %x on @g grid_axes = [0, 1] reduction = max scatter_axis = 1 : tensor<3x4x{e}> -> tensor<3x1x{e}>
  return %s, %mx, %mn, %av, %p, %rs, %rm : tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x4x{e}>, tensor<3x2x{e}>, tensor<3x1x{e}>
}}
func.func @move(%x: tensor<4x6x{e}>) -> (tensor<2x6x{e}>, tensor<8x3x{e}>, tensor<4x6x{e}>, tensor<4x6x{e}>) {{
  %s = shard.all_slice %x on @g grid_axes = [1] slice_axis = 0 : tensor<4x6x{e}> -> tensor<2x6x{e}>
  %t = shard.all_to_all %x on @g grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x6x{e}> -> tensor<8x3x{e}>
  %b = shard.broadcast %x on @g grid_axes = [0, 1] root = [1, 0] : (tensor<4x6x{e}>) -> tensor<4x6x{e}>
  %c = shard.broadcast %x on @g grid_axes = [1] root = [1] : (tensor<4x6x{e}>) -> tensor<4x6x{e}>
  return %s, %t, %b, %c : tensor<2x6x{e}>, tensor<8x3x{e}>, tensor<4x6x{e}>, tensor<4x6x{e}>
}}
"#
    )
}

#[test]
fn every_collective_on_every_element_type_is_the_interpreters_bit_for_bit() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    for e in ALL {
        if e == "i1" {
            continue; // reductions of i1 are not defined for every kind; see the next test
        }
        let m = parse(&ctx, &collectives(e));
        let (split, none): (Split, Split) = (vec![vec![0], vec![1]], vec![]);
        // each device holds different data: the blocks of a 2x2-split input
        let x = RtValue::Tensor(random_tensor(elem(e), &[4, 6], 7));
        // gather: device blocks are 2x3; replicated results are whole
        both(&ctx, &m, &[2, 2], "gather", &[x.clone()], &[split.clone()], &[vec![vec![], vec![1]], vec![vec![0]], none.clone()], true);
        let y = RtValue::Tensor(random_tensor(elem(e), &[6, 8], 8));
        both(&ctx, &m, &[2, 2], "reduce", &[y], &[split.clone()], &[vec![], vec![vec![0]], vec![vec![], vec![1]], vec![], vec![vec![0]], vec![vec![0], vec![1]], vec![vec![], vec![0, 1]]], true);
        let z = RtValue::Tensor(random_tensor(elem(e), &[8, 6], 9));
        both(&ctx, &m, &[2, 2], "move", &[z], &[vec![vec![0]]], &[vec![vec![0, 1]], vec![vec![], vec![0]], vec![], vec![vec![0], vec![]]], true);
    }
}

#[test]
fn reductions_round_once_and_may_change_the_element_type() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    let src = r#"
shard.grid @g(shape = 4)
func.func @f(%h: tensor<3xf16>, %b: tensor<3xbf16>, %x: tensor<3xf32>, %i: tensor<3xi1>) -> (tensor<3xf16>, tensor<3xbf16>, tensor<3xf64>, tensor<3xi1>, tensor<3xi1>, tensor<3xi32>) {
  %a = shard.all_reduce %h on @g grid_axes = [0] : tensor<3xf16> -> tensor<3xf16>
  %c = shard.all_reduce %b on @g grid_axes = [0] reduction = average : tensor<3xbf16> -> tensor<3xbf16>
  %d = shard.all_reduce %x on @g grid_axes = [0] : tensor<3xf32> -> tensor<3xf64>
  %e = shard.all_reduce %i on @g grid_axes = [0] reduction = max : tensor<3xi1> -> tensor<3xi1>
  %f = shard.all_reduce %i on @g grid_axes = [0] : tensor<3xi1> -> tensor<3xi1>
  %n = shard.all_reduce %x on @g grid_axes = [0] reduction = min : tensor<3xf32> -> tensor<3xi32>
  return %a, %c, %d, %e, %f, %n : tensor<3xf16>, tensor<3xbf16>, tensor<3xf64>, tensor<3xi1>, tensor<3xi1>, tensor<3xi32>
}
"#;
    let m = parse(&ctx, src);
    let rows: Split = vec![vec![0]];
    // f16 sums that round differently in f32 and once from f64; NaN and -0.0 through max/min
    // element 0: 2048 + 1 + 0.5 + 0 is 2049.5 in f64, 2050 in f16 (summed in f16 it would be 2048)
    let h = Tensor::f16(&[12], &[2048.0, 1.0, 0.5, 1.0, 0.5, -0.0, 0.5, 0.25, 0.0, 0.0, 0.125, -0.0]);
    let b = RtValue::Tensor(random_tensor(elem("bf16"), &[12], 3));
    let x = Tensor::f32(&[12], &[1.5, f32::NAN, -0.0, 2.5, 1.0, 0.0, -1e30, 3.0, 4.0, 7.0, 2.0, 5.0]);
    let i = RtValue::Tensor(random_tensor(elem("i1"), &[12], 4));
    let inputs = [RtValue::Tensor(h), b, RtValue::Tensor(x), i];
    let out = both(&ctx, &m, &[4], "f", &inputs, &[rows.clone(), rows.clone(), rows.clone(), rows.clone()], &vec![Split::new(); 6], true);
    assert_eq!(t(&out[0]).data.to_f64s().unwrap()[0], 2050.0);
    let sums = t(&out[2]).data.to_f64s().unwrap();
    assert!(sums[1].is_nan() && sums[2] == 9.0, "{sums:?}");
}

#[test]
fn device_queries_and_dynamic_broadcast_roots() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    let src = r#"
shard.grid @g(shape = 2x3)
func.func @where(%x: tensor<2xi64>) -> (index, index, index, index, index, tensor<2xi64>) {
  %c:2 = shard.process_multi_index on @g : index, index
  %b = shard.process_multi_index on @g axes = [1] : index
  %l = shard.process_linear_index on @g : index
  %s = shard.grid_shape @g axes = [1] : index
  %r = shard.broadcast %x on @g grid_axes = [1] root = [%c#0] : (tensor<2xi64>, index) -> tensor<2xi64>
  return %c#0, %c#1, %b, %l, %s, %r : index, index, index, index, index, tensor<2xi64>
}
"#;
    let m = parse(&ctx, src);
    let x = RtValue::Tensor(Tensor::i64(&[12], &(0..12).collect::<Vec<i64>>()));
    let grid = GridShape(vec![2, 3]);
    let jit = Jit::new(&ctx, &m, opts());
    let code = jit.compile_for("where", &[RtValue::Tensor(Tensor::i64(&[2], &[0, 0]))]).unwrap();
    let args: Vec<Vec<RtValue>> = (0..6).map(|d| xcs_lowering::spmd::device_inputs(&grid, d, &[x.clone()], &[vec![vec![0, 1]]]).unwrap()).collect();
    let inputs: Vec<_> = args.iter().map(|a| code.inputs(a).unwrap()).collect();
    let callable = code.callable();
    let per_device = xcs_lowering::spmd::call_on_devices(&grid, &inputs, &|i| callable.run(i)).unwrap();
    for (dev, r) in per_device.iter().enumerate() {
        let v: Vec<i128> = r[..5].iter().map(|v| v.as_scalar().unwrap().value).collect();
        assert_eq!(v, vec![(dev / 3) as i128, (dev % 3) as i128, (dev % 3) as i128, dev as i128, 3]);
        // the root of each row group is the member at the row's own index
        let root = (dev / 3) * 3 + dev / 3;
        assert_eq!(t(&r[5]), &Tensor::i64(&[2], &[2 * root as i64, 2 * root as i64 + 1]), "device {dev}");
    }
    // the interpreter agrees
    let interp = xcs_dialects::interp::run_on_grid(&grid, 16 << 20, &|d| {
        let args = args[grid.linear(d.coords())].clone();
        Interpreter::new(&ctx, &m).with_device(d).call("where", args).map_err(|e| e.to_string())
    });
    for (got, want) in per_device.iter().zip(interp) {
        assert_eq!(format!("{got:?}"), format!("{:?}", want.unwrap()));
    }
}

#[test]
fn alone_groups_of_one_device_are_local_and_larger_ones_the_interpreters_error() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    let src = r#"
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
"#;
    let m = parse(&ctx, src);
    let x = RtValue::Tensor(Tensor::f32(&[4], &[1.0, 2.0, 3.0, 4.5]));
    let jit = Jit::new(&ctx, &m, opts());
    let out = jit.call("local", &[x.clone()]).unwrap();
    assert_eq!(t(&out[0]), t(&x));
    assert_eq!(t(&out[1]), &Tensor::f64(&[4], &[1.0, 2.0, 3.0, 4.5]));
    assert_eq!(out[2].as_scalar().unwrap().value, 0);
    let want = Interpreter::new(&ctx, &m).call("needs_grid", vec![x.clone()]).unwrap_err();
    let got = jit.call("needs_grid", &[x]).unwrap_err();
    assert_eq!(got.message(), want.message);
    assert!(got.message().starts_with("'shard.all_gather' op needs a device grid: its group along grid axes [1] of @g has 4 devices"), "{got}");
}

#[test]
fn a_failing_device_is_reported_and_the_others_do_not_wait_for_it() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    let src = r#"
shard.grid @g(shape = 4)
func.func @f(%x: tensor<1xi32>, %y: tensor<1xi32>) -> tensor<4xi32> {
  %q = tensor.div %x, %y : tensor<1xi32>
  %g = shard.all_gather %q on @g grid_axes = [0] gather_axis = 0 : tensor<1xi32> -> tensor<4xi32>
  return %g : tensor<4xi32>
}
"#;
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    let x = RtValue::Tensor(Tensor::i32(&[4], &[8, 8, 8, 8]));
    let y = RtValue::Tensor(Tensor::i32(&[4], &[1, 2, 0, 4]));
    let split: Split = vec![vec![0]];
    let before = runtime::live_allocations();
    let e = run_on_devices(&jit, "f", &GridShape(vec![4]), &[x.clone(), y], &[split.clone(), split.clone()], &[vec![]]).unwrap_err();
    assert_eq!(runtime::live_allocations(), before);
    assert_eq!(e.error.message(), "'tensor.div' op integer division by zero");
    assert_eq!(e.device.as_deref(), Some("on device (2) of grid 4"));
    // a grid that is not the program's
    let y = RtValue::Tensor(Tensor::i32(&[2], &[1, 1]));
    let x = RtValue::Tensor(Tensor::i32(&[2], &[8, 8]));
    let e = run_on_devices(&jit, "f", &GridShape(vec![2]), &[x, y], &[split.clone(), split], &[vec![]]).unwrap_err();
    assert!(e.error.message().contains("'shard.all_gather' op runs on a device grid of shape 2, but @g has shape 4"), "{e}");
}

#[test]
fn devices_waiting_for_a_collective_that_cannot_complete_fail_instead_of_hanging() {
    let _g = lock();
    // device 0 finishes; device 1 waits in an exchange with it: a deadlock, found by the grid
    let grid = ShmGrid::new(&[2]).unwrap();
    let out: Vec<Result<Vec<u8>, String>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|d| {
                let grid = &grid;
                s.spawn(move || {
                    let r = if d == 1 { unsafe { runtime::comm_exchange(grid.device(d), &[0], &[1, 2], 2) } } else { Ok(Vec::new()) };
                    grid.done(d, r.as_ref().err().map(String::as_str));
                    r
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(out[0].is_ok());
    let e = out[1].as_ref().unwrap_err();
    assert!(e.contains("deadlock: 1 device(s) wait in collectives that can never complete"), "{e}");
    // and the exchange itself works when both come
    let grid = ShmGrid::new(&[2]).unwrap();
    let out: Vec<Vec<u8>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2u8)
            .map(|d| {
                let grid = &grid;
                s.spawn(move || unsafe { runtime::comm_exchange(grid.device(d as usize), &[0], &[d, 10 + d], 2) }.unwrap())
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(out, vec![vec![0, 10, 1, 11]; 2]);
}

// ---------------------------------------------------------------------------- random programs

/// A seeded generator of partitioned programs and their unpartitioned twins: a chain of
/// elementwise ops, matmuls (a split contraction dim leaves a partial sum), row max reductions
/// (a split row leaves a partial max), and the collectives that move or resolve shardings,
/// tracked so that the partitioned program computes the twin's result in a known sharding.
struct Gen {
    rng: u64,
    grid: Vec<usize>,
    e: &'static str,
    part: Vec<String>,
    full: Vec<String>,
    params_part: Vec<String>,
    params_full: Vec<String>,
    inputs: Vec<RtValue>,
    arg_splits: Vec<Split>,
    /// The current value's names (partitioned, twin), full shape and sharding.
    cur: (String, String),
    shape: [usize; 2],
    split: Split,
    /// A pending reduction (kind, grid axes) of the current value.
    partial: Option<(&'static str, Vec<usize>)>,
    n: usize,
}

impl Gen {
    fn next(&mut self, k: usize) -> usize {
        self.rng = self.rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.rng >> 33) as usize) % k
    }
    fn size(&self, axes: &[usize]) -> usize {
        axes.iter().map(|&a| self.grid[a]).product()
    }
    fn local(&self, shape: [usize; 2], split: &Split) -> [usize; 2] {
        [0, 1].map(|d| shape[d] / self.size(split.get(d).map_or(&[], |v| v.as_slice())))
    }
    fn ty(&self, s: [usize; 2]) -> String {
        format!("tensor<{}x{}x{}>", s[0], s[1], self.e)
    }
    fn axes(v: &[usize]) -> String {
        v.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
    }
    fn used(&self) -> Vec<usize> {
        self.split.iter().flatten().chain(self.partial.iter().flat_map(|p| &p.1)).copied().collect()
    }
    /// A new argument of full shape `shape` split as `split`.
    fn arg(&mut self, shape: [usize; 2], split: Split) -> (String, String) {
        let i = self.inputs.len();
        let sharding = format!("#shard<axisarray[{}]>", split.iter().map(|a| format!("[{}]", Self::axes(a))).collect::<Vec<_>>().join(", "));
        self.params_part.push(format!("%a{i}: {} {{shard.split_axes = {sharding}}}", self.ty(self.local(shape, &split))));
        self.params_full.push(format!("%a{i}: {}", self.ty(shape)));
        self.inputs.push(RtValue::Tensor(random_tensor(elem(self.e), &shape, self.rng ^ i as u64)));
        self.arg_splits.push(split);
        (format!("%a{i}"), format!("%a{i}"))
    }
    /// Emits `op` on both sides (`{x}` is replaced by each side's current value) and makes its
    /// result current; `collective` ops exist only in the partitioned program.
    fn emit(&mut self, part_op: String, full_op: Option<String>, new_shape: [usize; 2], new_split: Split) {
        let old_local = self.ty(self.local(self.shape, &self.split));
        let (new_local, new_full) = (self.ty(self.local(new_shape, &new_split)), self.ty(new_shape));
        let v = format!("%v{}", self.n);
        self.n += 1;
        self.part.push(format!("  {v} = {}", part_op.replace("{x}", &self.cur.0).replace("{T}", &old_local).replace("{R}", &new_local)));
        let full_name = match full_op {
            Some(op) => {
                self.full.push(format!("  {v} = {}", op.replace("{x}", &self.cur.1).replace("{R}", &new_full)));
                v.clone()
            }
            None => self.cur.1.clone(),
        };
        self.cur = (v, full_name);
        self.shape = new_shape;
        self.split = new_split;
    }
    fn step(&mut self) {
        let g = "@g";
        if let Some((kind, axes)) = self.partial.clone() {
            // resolve: all_reduce, or a reduce_scatter onto an unsplit, divisible dim
            let d = self.next(2);
            let local = self.local(self.shape, &self.split);
            let n = self.size(&axes);
            if self.split[d].is_empty() && local[d] % n == 0 && self.next(2) == 0 {
                let mut split = self.split.clone();
                split[d] = axes.clone();
                let op = format!("shard.reduce_scatter {{x}} on {g} grid_axes = [{}] reduction = {kind} scatter_axis = {d} : {{T}} -> {{R}}", Self::axes(&axes));
                self.partial = None;
                return self.emit(op, None, self.shape, split);
            }
            let op = format!("shard.all_reduce {{x}} on {g} grid_axes = [{}] reduction = {kind} : {{T}} -> {{R}}", Self::axes(&axes));
            self.partial = None;
            let (shape, split) = (self.shape, self.split.clone());
            return self.emit(op, None, shape, split);
        }
        let (shape, split) = (self.shape, self.split.clone());
        let local = self.local(shape, &split);
        let free: Vec<usize> = (0..self.grid.len()).filter(|a| !self.used().contains(a)).collect();
        match self.next(7) {
            0 => {
                let f = if FLOATS.contains(&self.e) { "tensor.tanh" } else { "tensor.neg" };
                self.emit(format!("{f} {{x}} : {{R}}"), Some(format!("{f} {{x}} : {{R}}")), shape, split);
            }
            1 => {
                // matmul with a new weight; a split contraction dim leaves a partial sum
                let k = [4, 8][self.next(2)];
                let w_split: Split = vec![split[1].clone(), vec![]];
                let w = self.arg([shape[1], k], w_split.clone());
                let wt = (self.ty(self.local([shape[1], k], &w_split)), self.ty([shape[1], k]));
                let axes = split[1].clone();
                let new_split = vec![split[0].clone(), vec![]];
                let lt = self.ty(local);
                let ft = self.ty(shape);
                self.emit(
                    format!("tensor.matmul {{x}}, {} : ({lt}, {}) -> {{R}}", w.0, wt.0),
                    Some(format!("tensor.matmul {{x}}, {} : ({ft}, {}) -> {{R}}", w.1, wt.1)),
                    [shape[0], k],
                    new_split,
                );
                if !axes.is_empty() {
                    self.partial = Some(("sum", axes));
                }
            }
            2 => {
                // row max; a split row leaves a partial max
                let axes = split[1].clone();
                let op = "tensor.reduce {x} {axes = array<i64: 1>, keepdims = true, kind = \"max\"} : ({T}) -> {R}".to_string();
                let full_op = op.replace("{T}", &self.ty(shape));
                self.emit(op, Some(full_op), [shape[0], 1], vec![split[0].clone(), vec![]]);
                if !axes.is_empty() {
                    self.partial = Some(("max", axes));
                }
            }
            3 if !free.is_empty() => {
                let (d, a) = (self.next(2), free[self.next(free.len())]);
                if local[d] % self.grid[a] == 0 {
                    let mut s = split.clone();
                    s[d].push(a);
                    self.emit(format!("shard.all_slice {{x}} on {g} grid_axes = [{a}] slice_axis = {d} : {{T}} -> {{R}}"), None, shape, s);
                }
            }
            4 => {
                let d = self.next(2);
                if let Some(&a) = split[d].last() {
                    let mut s = split.clone();
                    s[d].pop();
                    self.emit(format!("shard.all_gather {{x}} on {g} grid_axes = [{a}] gather_axis = {d} : {{T}} -> {{R}}"), None, shape, s);
                }
            }
            5 => {
                // move the last split axis of one dim to the other
                let c = self.next(2);
                let sd = 1 - c;
                if let Some(&a) = split[c].last() {
                    if local[sd] % self.grid[a] == 0 {
                        let mut s = split.clone();
                        s[c].pop();
                        s[sd].push(a);
                        self.emit(format!("shard.all_to_all {{x}} on {g} grid_axes = [{a}] split_axis = {sd} concat_axis = {c} : {{T}} -> {{R}}"), None, shape, s);
                    }
                }
            }
            6 if !free.is_empty() => {
                let a = free[self.next(free.len())];
                let root = self.next(self.grid[a]);
                self.emit(format!("shard.broadcast {{x}} on {g} grid_axes = [{a}] root = [{root}] : ({{T}}) -> {{R}}"), None, shape, split);
            }
            _ => {}
        }
    }
    /// A random program on `grid` of element type `e`.
    fn program(seed: u64, grid: Vec<usize>, e: &'static str) -> (String, Vec<RtValue>, Vec<Split>, Split) {
        let mut g = Gen {
            rng: seed,
            grid,
            e,
            part: vec![],
            full: vec![],
            params_part: vec![],
            params_full: vec![],
            inputs: vec![],
            arg_splits: vec![],
            cur: (String::new(), String::new()),
            shape: [8, 8],
            split: vec![vec![], vec![]],
            partial: None,
            n: 0,
        };
        // the input: each dim split along some of the grid's axes
        let mut split: Split = vec![vec![], vec![]];
        for a in 0..g.grid.len() {
            match g.next(3) {
                0 => split[0].push(a),
                1 => split[1].push(a),
                _ => {}
            }
        }
        g.cur = g.arg([8, 8], split.clone());
        g.split = split;
        for _ in 0..6 + g.next(5) {
            g.step();
        }
        if g.partial.is_some() {
            let (kind, axes) = g.partial.take().unwrap();
            let (shape, split) = (g.shape, g.split.clone());
            g.emit(format!("shard.all_reduce {{x}} on @g grid_axes = [{}] reduction = {kind} : {{T}} -> {{R}}", Self::axes(&axes)), None, shape, split);
        }
        let dims: Vec<String> = g.grid.iter().map(|d| d.to_string()).collect();
        let (rl, rf) = (g.ty(g.local(g.shape, &g.split)), g.ty(g.shape));
        let src = format!(
            "shard.grid @g(shape = {})\nfunc.func @part({}) -> {rl} {{\n{}\n  return {} : {rl}\n}}\nfunc.func @full({}) -> {rf} {{\n{}\n  return {} : {rf}\n}}\n",
            dims.join("x"),
            g.params_part.join(", "),
            g.part.join("\n"),
            g.cur.0,
            g.params_full.join(", "),
            g.full.join("\n"),
            g.cur.1,
        );
        (src, g.inputs, g.arg_splits, g.split)
    }
}

#[test]
fn random_partitioned_programs_compute_their_unpartitioned_twins() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    let grids = [vec![2], vec![4], vec![2, 2], vec![2, 4]];
    let mut collectives = 0;
    for seed in 0..48u64 {
        let e = ["f32", "i32"][seed as usize % 2];
        let grid = grids[(seed as usize / 2) % grids.len()].clone();
        let (src, inputs, args, result) = Gen::program(seed, grid.clone(), e);
        collectives += src.matches("shard.").count() - 1;
        let m = parse(&ctx, &src);
        let label = format!("seed {seed}:\n{src}");
        // the partitioned program on the JIT equals it on the interpreter (exactly for
        // integers; f32 matmuls accumulate in f32 on the JIT) ...
        let out = both(&ctx, &m, &grid, "part", &inputs, &args, &[result.clone()], e != "f32");
        // ... and the unpartitioned twin's result on one device
        let want = Interpreter::new(&ctx, &m).call("full", inputs.clone()).unwrap_or_else(|e| panic!("{label}: {e}"));
        let (a, b) = (t(&out[0]), t(&want[0]));
        let ok = if e == "i32" { a == b } else { a.allclose(b, 1e-4, 1e-5).is_ok() };
        assert!(ok, "{label}\n  partitioned: {a}\n  twin:        {b}");
    }
    assert!(collectives > 100, "the programs have only {collectives} collectives");
    let _ = INTS;
}
