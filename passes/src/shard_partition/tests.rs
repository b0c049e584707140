//! Unit tests of `shard-partition`: the reshard planner (every path reaches its target through
//! valid layouts, the model's paths for the named cases), the strategy reader, and the pass on
//! small programs (what it leaves alone, what it records). The differential tests against the
//! interpreter are `tools/tests/shard_partition.rs`; the printed programs are the lit tests.

use xcs_dialects::interp::random::SplitMix64;
use xcs_dialects::shard::{Grid, ReductionKind};
use xcs_ir::interfaces::{LoopInfo, LoopKind};

use super::layout::Layout;
use super::reshard::{plan, Step};
use super::strategy::Strategy;
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::printer::{print_module, PrintOptions};

/// `src` after `pipeline`, printed (the pass must succeed).
fn run_pass_text(src: &str, pipeline: &str) -> String {
    let ctx = crate::testing::ctx();
    let mut m = parse_module(&ctx, src, "t.mlir", &ParseOptions::default()).unwrap_or_else(|d| panic!("{}", d.message));
    crate::testing::run(&ctx, &mut m, pipeline).unwrap_or_else(|e| panic!("{e:?}"));
    print_module(&ctx, &m, &PrintOptions::default())
}

fn layout(dims: &[&[usize]]) -> Layout {
    Layout {
        dims: dims.iter().map(|d| d.to_vec()).collect(),
        pending: Vec::new(),
    }
}

fn reduce_scatter(axis: usize, kind: ReductionKind, dim: usize) -> Step {
    Step::ReduceScatter { axis, kind, dim }
}

fn all_reduce(axis: usize, kind: ReductionKind) -> Step {
    Step::AllReduce { axis, kind }
}

/// Takes `axis` off the pending axes of `cur` (a reduction step resolved it); `step` names
/// the step for the panic when it was not pending.
fn resolve_pending(cur: &mut Layout, axis: usize, step: &str) {
    let i = cur
        .pending
        .iter()
        .position(|&(a, _)| a == axis)
        .unwrap_or_else(|| panic!("{step} of an axis that is not pending"));
    cur.pending.remove(i);
}

/// Applies `steps` to `from`, checking each step's precondition and that every layout on the
/// way uses each axis once.
fn apply(from: &Layout, steps: &[Step]) -> Layout {
    let mut cur = from.clone();
    for step in steps {
        match *step {
            Step::AllReduce { axis, .. } => resolve_pending(&mut cur, axis, "all_reduce"),
            Step::ReduceScatter { axis, dim, .. } => {
                resolve_pending(&mut cur, axis, "reduce_scatter");
                cur.dims[dim].push(axis);
            }
            Step::AllGather { axis, dim } => {
                assert!(cur.pending.is_empty(), "a gather before the pending axes are resolved");
                assert_eq!(
                    cur.dims[dim].pop(),
                    Some(axis),
                    "all_gather of an axis that is not the dim's minor one"
                );
            }
            Step::AllSlice { axis, dim } => {
                assert!(!cur.uses(axis), "all_slice along an axis in use");
                cur.dims[dim].push(axis);
            }
            Step::AllToAll { axis, from, to } => {
                assert_ne!(from, to);
                assert_eq!(
                    cur.dims[from].pop(),
                    Some(axis),
                    "all_to_all of an axis that is not the minor one"
                );
                cur.dims[to].push(axis);
            }
        }
        let mut used: Vec<usize> = cur
            .dims
            .iter()
            .flatten()
            .copied()
            .chain(cur.pending.iter().map(|p| p.0))
            .collect();
        let n = used.len();
        used.sort();
        used.dedup();
        assert_eq!(used.len(), n, "an axis used twice in {}", cur.describe());
    }
    cur
}

#[test]
fn resolving_a_pending_sum_is_one_all_reduce_or_one_reduce_scatter() {
    let mut partial = layout(&[&[], &[]]);
    partial.pending.push((0, ReductionKind::Sum));
    assert_eq!(
        plan(&partial, &layout(&[&[], &[]])),
        vec![all_reduce(0, ReductionKind::Sum)]
    );
    assert_eq!(
        plan(&partial, &layout(&[&[0], &[]])),
        vec![reduce_scatter(0, ReductionKind::Sum, 0)]
    );
    assert_eq!(
        plan(&partial, &layout(&[&[], &[0]])),
        vec![reduce_scatter(0, ReductionKind::Sum, 1)]
    );
}

#[test]
fn scatters_come_before_reductions_and_may_stack_on_one_dim() {
    let mut partial = layout(&[&[], &[]]);
    partial.pending = vec![(0, ReductionKind::Max), (1, ReductionKind::Max)];
    // dim 0 wants [1, 0]: scatter 1, then 0 after it
    let steps = plan(&partial, &layout(&[&[1, 0], &[]]));
    assert_eq!(
        steps,
        vec![
            reduce_scatter(1, ReductionKind::Max, 0),
            reduce_scatter(0, ReductionKind::Max, 0)
        ]
    );
    // only axis 1 wanted split: its scatter first, then the reduction of axis 0
    let steps = plan(&partial, &layout(&[&[], &[1]]));
    assert_eq!(
        steps,
        vec![
            reduce_scatter(1, ReductionKind::Max, 1),
            all_reduce(0, ReductionKind::Max)
        ]
    );
}

#[test]
fn a_pending_axis_cannot_be_scattered_behind_another_split() {
    // dim 0 already split along 1; the target splits it along 0 only: reduce, then move
    let mut partial = layout(&[&[1], &[]]);
    partial.pending.push((0, ReductionKind::Sum));
    let target = layout(&[&[0], &[]]);
    let steps = plan(&partial, &target);
    assert_eq!(steps[0], all_reduce(0, ReductionKind::Sum));
    assert_eq!(apply(&partial, &steps), target);
}

#[test]
fn swapping_two_split_dims_is_gather_all_to_all_slice() {
    let steps = plan(&layout(&[&[0], &[1]]), &layout(&[&[1], &[0]]));
    assert_eq!(
        steps,
        vec![
            Step::AllGather { axis: 0, dim: 0 },
            Step::AllToAll {
                axis: 1,
                from: 1,
                to: 0
            },
            Step::AllSlice { axis: 0, dim: 1 }
        ]
    );
}

#[test]
fn slices_come_first_and_moving_an_axis_is_one_all_to_all() {
    // rows along 0 -> rows along 0 and columns along 1: the slice only
    let steps = plan(&layout(&[&[0], &[]]), &layout(&[&[0], &[1]]));
    assert_eq!(steps, vec![Step::AllSlice { axis: 1, dim: 1 }]);
    // rows along 0 -> columns along 0 and rows along 1: axis 0 moves, then axis 1 slices
    let steps = plan(&layout(&[&[0], &[]]), &layout(&[&[1], &[0]]));
    assert_eq!(
        steps,
        vec![
            Step::AllToAll {
                axis: 0,
                from: 0,
                to: 1
            },
            Step::AllSlice { axis: 1, dim: 0 }
        ]
    );
    // rows along 0 -> rows along [1, 0]: gather 0, then slice 1 and 0
    let steps = plan(&layout(&[&[0], &[]]), &layout(&[&[1, 0], &[]]));
    assert_eq!(
        steps,
        vec![
            Step::AllGather { axis: 0, dim: 0 },
            Step::AllSlice { axis: 1, dim: 0 },
            Step::AllSlice { axis: 0, dim: 0 }
        ]
    );
    let steps = plan(&layout(&[&[0], &[]]), &layout(&[&[], &[0]]));
    assert_eq!(
        steps,
        vec![Step::AllToAll {
            axis: 0,
            from: 0,
            to: 1
        }]
    );
    assert!(plan(&layout(&[&[0], &[1]]), &layout(&[&[0], &[1]])).is_empty());
}

#[test]
fn every_reshard_between_random_layouts_reaches_its_target_through_valid_layouts() {
    let mut rng = SplitMix64(7);
    let mut below = |n: usize| (rng.next_u64() % n as u64) as usize;
    for case in 0..20_000 {
        let (axes, rank) = (1 + below(3), 1 + below(3));
        let random = |below: &mut dyn FnMut(usize) -> usize, pending: bool| {
            let mut l = Layout::replicated(rank);
            for a in 0..axes {
                match below(if pending { 4 } else { 3 }) {
                    0 => {}
                    3 => l.pending.push((a, ReductionKind::Sum)),
                    _ => {
                        let d = below(rank);
                        let at = below(l.dims[d].len() + 1);
                        l.dims[d].insert(at, a);
                    }
                }
            }
            l
        };
        let from = random(&mut below, true);
        let to = random(&mut below, false);
        let steps = plan(&from, &to);
        let reached = apply(&from, &steps);
        assert_eq!(
            reached,
            to,
            "case {case}: {} -> {} by {steps:?}",
            from.describe(),
            to.describe()
        );
        assert!(
            steps.len() <= 3 * axes,
            "case {case}: {} steps for {axes} axes",
            steps.len()
        );
    }
}

fn grid(shape: &[i64]) -> Grid {
    Grid::new("g", shape)
}

/// The loops of a matmul `[4, 8] x [8, 6]`: m, n, k.
fn matmul_info() -> LoopInfo {
    LoopInfo {
        loops: vec![LoopKind::Parallel, LoopKind::Parallel, LoopKind::ReduceSum],
        sizes: vec![4, 6, 8],
        operands: vec![vec![Some(0), Some(2)], vec![Some(2), Some(1)]],
        results: vec![vec![Some(0), Some(1)]],
    }
}

#[test]
fn a_strategy_follows_the_operands_first_then_the_result() {
    let info = matmul_info();
    let g = grid(&[2, 2]);
    // lhs rows along 0, rhs K along 1: m on 0, k on 1 -> produced rows split, pending on 1
    let s = Strategy::read(&info, &g, &[&layout(&[&[0], &[]]), &layout(&[&[1], &[]])], &[None]);
    assert_eq!(s.loop_axes, vec![vec![0], vec![], vec![1]]);
    assert_eq!(s.operand(&info, 0), layout(&[&[0], &[1]]));
    let produced = s.produced(&info, 0);
    assert_eq!(produced.dims, vec![vec![0], vec![]]);
    assert_eq!(produced.pending, vec![(1, ReductionKind::Sum)]);
    // replicated operands: the result's annotation picks the parallel loops
    let r = layout(&[&[], &[1]]);
    let s = Strategy::read(&info, &g, &[&layout(&[&[], &[]]), &layout(&[&[], &[]])], &[Some(&r)]);
    assert_eq!(s.loop_axes, vec![vec![], vec![1], vec![]]);
    // conflicting votes: the first operand wins, the second is resharded to what it needs
    let s = Strategy::read(&info, &g, &[&layout(&[&[0], &[]]), &layout(&[&[], &[0]])], &[None]);
    assert_eq!(s.loop_axes, vec![vec![0], vec![], vec![]]);
    assert_eq!(s.operand(&info, 1), layout(&[&[], &[]]));
}

#[test]
fn whole_indivisible_and_repeated_loops_are_not_split() {
    let g = grid(&[4]);
    // softmax along dim 1: the axis vote on dim 1 is ignored
    let softmax = LoopInfo {
        loops: vec![LoopKind::Parallel, LoopKind::Whole],
        sizes: vec![8, 8],
        operands: vec![vec![Some(0), Some(1)]],
        results: vec![vec![Some(0), Some(1)]],
    };
    let s = Strategy::read(&softmax, &g, &[&layout(&[&[], &[0]])], &[None]);
    assert!(s.loop_axes.iter().all(|a| a.is_empty()));
    // 6 rows do not split 4 ways
    let rows = LoopInfo {
        sizes: vec![6, 8],
        ..softmax.clone()
    };
    let s = Strategy::read(&rows, &g, &[&layout(&[&[0], &[]])], &[None]);
    assert!(s.loop_axes.iter().all(|a| a.is_empty()));
    // the diagonal of an einsum "ii->i": loop 0 indexes both dims of the operand
    let diagonal = LoopInfo {
        loops: vec![LoopKind::Parallel],
        sizes: vec![8],
        operands: vec![vec![Some(0), Some(0)]],
        results: vec![vec![Some(0)]],
    };
    let s = Strategy::read(&diagonal, &g, &[&layout(&[&[0], &[]])], &[None]);
    assert_eq!(s.loop_axes, vec![Vec::<usize>::new()]);
}

#[test]
fn functions_without_annotations_are_left_alone() {
    let src = "shard.grid @mesh(shape = 2)\nfunc.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %e = tensor.exp %x : tensor<4xf32>\n  return %e : tensor<4xf32>\n}\n";
    let out = run_pass_text(src, "builtin.module(shard-partition)");
    assert!(!out.contains("shard.sharding ="), "{out}");
    assert!(
        out.contains("func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {"),
        "{out}"
    );
}

#[test]
fn an_einsum_diagonal_split_along_its_only_loop_runs_replicated() {
    let src = r#"shard.grid @mesh(shape = 2)
func.func @f(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<4x4xf32>
  %d = tensor.einsum %a {equation = "ii->i"} : (tensor<4x4xf32>) -> tensor<4xf32>
  %r = shard.shard %d to %s : tensor<4xf32>
  return %r : tensor<4xf32>
}
"#;
    let out = run_pass_text(src, "builtin.module(shard-partition)");
    let gather = out.find("shard.all_gather %arg0").unwrap_or_else(|| panic!("{out}"));
    let einsum = out.find("tensor.einsum").unwrap_or_else(|| panic!("{out}"));
    let slice = out.find("shard.all_slice").unwrap_or_else(|| panic!("{out}"));
    assert!(gather < einsum && einsum < slice, "{out}");
}
