//! The device model: grid coordinates and groups, every collective on 1-D and 2-D grids of
//! threads against numpy-style expectations (blocks of `np.arange` tensors, `np.concatenate`,
//! sums over devices), slicing and reassembly per shardings, and failures: one failing device
//! makes every device return an error, never hang.

use std::time::{Duration, Instant};

use crate::interp::devices::{block, reduce_tensors, Communicator, GridShape, Reduction, SingleDevice};
use crate::interp::shared_grid::{run_on_grid, ThreadDevice};
use crate::interp::spmd::{shard_tensor, unshard_values};
use crate::interp::value::{ElemType, RtValue, Tensor};

const STACK: usize = 1 << 20;

/// `np.arange(n).reshape(shape)` as f32, plus `offset`.
fn arange(shape: &[usize], offset: f32) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::f32(shape, &(0..n).map(|i| i as f32 + offset).collect::<Vec<_>>())
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.data.to_f64s().unwrap().into_iter().map(|x| x as f32).collect()
}

/// Runs `f` on every device of `grid`; every device must succeed.
fn on_grid<T: Send>(grid: &[usize], f: impl Fn(&ThreadDevice) -> Result<T, String> + Sync) -> Vec<T> {
    run_on_grid(&GridShape(grid.to_vec()), STACK, &f)
        .into_iter()
        .enumerate()
        .map(|(d, r)| r.unwrap_or_else(|e| panic!("device {d} failed: {e}")))
        .collect()
}

#[test]
fn grid_coordinates_are_row_major_and_groups_follow_the_axes_order() {
    let g = GridShape(vec![2, 3, 4]);
    assert_eq!(g.num_devices(), 24);
    assert_eq!(g.coords(0), vec![0, 0, 0]);
    assert_eq!(g.coords(23), vec![1, 2, 3]);
    assert_eq!(g.coords(6), vec![0, 1, 2]);
    // MLIR's example of process_linear_index: (1, 2, 3) in a 10x20x30 grid is 3 + 30*2 + 20*30*1
    assert_eq!(GridShape(vec![10, 20, 30]).linear(&[1, 2, 3]), 3 + 30 * 2 + 20 * 30);
    for d in 0..24 {
        assert_eq!(g.linear(&g.coords(d)), d);
    }
    assert_eq!(g.group_size(&[0, 2]), 8);
    assert_eq!(g.index_in_group(&[1, 2, 3], &[0, 2]), 4 + 3);
    assert_eq!(g.index_in_group(&[1, 2, 3], &[2, 0]), 3 * 2 + 1);
    assert_eq!(g.group_member(&[1, 2, 3], &[2, 0], 7), vec![1, 2, 3]);
    assert_eq!(g.group_member(&[1, 2, 3], &[0, 2], 0), vec![0, 2, 0]);
    assert!(g.check_axes(&[0, 0]).is_err() && g.check_axes(&[3]).is_err());
}

#[test]
fn all_gather_concatenates_the_blocks_of_a_1d_grid() {
    let full = arange(&[8, 3], 0.0);
    let out = on_grid(&[4], |d| {
        let mine = block(&full, 0, 4, d.coords()[0])?;
        d.all_gather(&mine, &[0], 0)
    });
    for t in out {
        assert_eq!(t, full);
    }
}

#[test]
fn all_gather_on_a_2d_grid_gathers_within_each_group() {
    // a 2x2 grid holding the blocks of a 4x4 tensor split [[0], [1]] (MLIR's all_gather picture)
    let full = arange(&[4, 4], 1.0);
    let out = on_grid(&[2, 2], |d| {
        let c = d.coords();
        let mine = block(&block(&full, 0, 2, c[0])?, 1, 2, c[1])?;
        d.all_gather(&mine, &[1], 1)
    });
    for (dev, t) in out.iter().enumerate() {
        // gathering along grid axis 1 on tensor dim 1 gives the device's row block, full width
        let row = dev / 2;
        assert_eq!(*t, block(&full, 0, 2, row).unwrap(), "device {dev}");
    }
    // gathering along both axes, grid axis 1 then 0, concatenates in that group order
    let both = on_grid(&[2, 2], |d| d.all_gather(&Tensor::f32(&[1], &[d.grid().linear(d.coords()) as f32]), &[1, 0], 0));
    for t in both {
        assert_eq!(f32s(&t), vec![0.0, 2.0, 1.0, 3.0]);
    }
}

#[test]
fn all_reduce_sums_maxes_and_mins_over_each_group() {
    // device d holds arange(4) + 10 * d; the group along axis 0 of a 2x3 grid is a column
    let out = on_grid(&[2, 3], |d| {
        let me = d.grid().linear(d.coords()) as f32;
        let x = arange(&[4], 10.0 * me);
        Ok((
            d.all_reduce(&x, &[0], Reduction::Sum)?,
            d.all_reduce(&x, &[0, 1], Reduction::Max)?,
            d.all_reduce(&x, &[1], Reduction::Min)?,
            d.all_reduce(&x, &[], Reduction::Sum)?,
        ))
    });
    for (dev, (sum, max, min, none)) in out.iter().enumerate() {
        let col = (dev % 3) as f32;
        let row = (dev / 3) as f32;
        // np.sum([arange(4) + 10*col, arange(4) + 10*(col+3)], axis=0)
        let expect_sum: Vec<f32> = (0..4).map(|i| 2.0 * i as f32 + 10.0 * (2.0 * col + 3.0)).collect();
        assert_eq!(f32s(sum), expect_sum, "device {dev}");
        assert_eq!(f32s(max), (0..4).map(|i| i as f32 + 50.0).collect::<Vec<_>>());
        assert_eq!(f32s(min), (0..4).map(|i| i as f32 + 30.0 * row).collect::<Vec<_>>());
        assert_eq!(f32s(none), (0..4).map(|i| i as f32 + 10.0 * dev as f32).collect::<Vec<_>>());
    }
}

#[test]
fn reductions_round_once_and_follow_ieee_maximum() {
    let a = Tensor::f32(&[3], &[1e8, f32::NAN, -0.0]);
    let b = Tensor::f32(&[3], &[1.0, 2.0, 0.0]);
    let c = Tensor::f32(&[3], &[-1e8, 3.0, -0.0]);
    // accumulated in f64: (1e8 + 1) - 1e8 = 1 (f32 accumulation would give 0)
    let sum = reduce_tensors(&[a.clone(), b.clone(), c.clone()], Reduction::Sum).unwrap();
    assert_eq!(f32s(&sum)[0], 1.0);
    let max = reduce_tensors(&[a.clone(), b.clone(), c.clone()], Reduction::Max).unwrap();
    assert!(f32s(&max)[1].is_nan());
    assert!(f32s(&max)[2] == 0.0 && f32s(&max)[2].is_sign_positive());
    let min = reduce_tensors(&[a, b, c], Reduction::Min).unwrap();
    assert!(f32s(&min)[2] == 0.0 && f32s(&min)[2].is_sign_negative());
    // integers wrap; the average truncates toward zero
    let i = |v: &[i8]| Tensor::i8(&[v.len()], v);
    let s = reduce_tensors(&[i(&[100, -7]), i(&[100, 2])], Reduction::Sum).unwrap();
    assert_eq!(s.data.to_i64s().unwrap(), vec![-56, -5]);
    let avg = reduce_tensors(&[i(&[3, -7]), i(&[4, 2])], Reduction::Average).unwrap();
    assert_eq!(avg.data.to_i64s().unwrap(), vec![3, -2]);
    let x = reduce_tensors(&[i(&[6]), i(&[3])], Reduction::BitwiseXor).unwrap();
    assert_eq!(x.data.to_i64s().unwrap(), vec![5]);
    assert!(reduce_tensors(&[Tensor::f32(&[1], &[1.0])], Reduction::BitwiseAnd).is_err());
    assert!(reduce_tensors(&[Tensor::f32(&[1], &[1.0]), Tensor::f32(&[2], &[1.0, 2.0])], Reduction::Sum).is_err());
}

#[test]
fn reduce_scatter_sums_then_keeps_the_devices_block() {
    let out = on_grid(&[4], |d| {
        let x = arange(&[8, 2], d.coords()[0] as f32);
        d.reduce_scatter(&x, &[0], Reduction::Sum, 0)
    });
    // sum over devices of arange(16) + d = 4 * arange(16) + 6, split in 4 row blocks
    let total = Tensor::f32(&[8, 2], &(0..16).map(|i| 4.0 * i as f32 + 6.0).collect::<Vec<_>>());
    for (dev, t) in out.iter().enumerate() {
        assert_eq!(*t, block(&total, 0, 4, dev).unwrap());
    }
}

#[test]
fn all_to_all_moves_the_split_from_one_dim_to_another() {
    // MLIR's all_to_all picture: device j holds column j of a 3x3 tensor (as a 3x1 block);
    // splitting dim 0 and concatenating dim 1 gives device j row j.
    let full = arange(&[3, 3], 11.0);
    let out = on_grid(&[3], |d| {
        let mine = block(&full, 1, 3, d.coords()[0])?;
        d.all_to_all(&mine, &[0], 0, 1)
    });
    for (dev, t) in out.iter().enumerate() {
        assert_eq!(*t, block(&full, 0, 3, dev).unwrap());
    }
    // on a 2x2 grid along axis 1: a [2, 4] row block split on dim 1 -> a [4, 2] column block
    let full = arange(&[4, 4], 0.0);
    let out = on_grid(&[2, 2], |d| {
        let mine = block(&full, 0, 2, d.coords()[1])?;
        d.all_to_all(&mine, &[1], 1, 0)
    });
    for (dev, t) in out.iter().enumerate() {
        assert_eq!(*t, block(&full, 1, 2, dev % 2).unwrap());
    }
}

#[test]
fn all_slice_and_broadcast() {
    let full = arange(&[4, 6], 0.0);
    let out = on_grid(&[2, 3], |d| {
        let sliced = d.all_slice(&full, &[1], 1)?;
        let own = Tensor::f32(&[1], &[d.grid().linear(d.coords()) as f32]);
        let from_root = d.broadcast(&own, &[0, 1], &[1, 2])?;
        let in_column = d.broadcast(&own, &[0], &[1])?;
        Ok((sliced, from_root, in_column))
    });
    for (dev, (sliced, root, column)) in out.iter().enumerate() {
        assert_eq!(*sliced, block(&full, 1, 3, dev % 3).unwrap());
        assert_eq!(f32s(root), vec![5.0]);
        assert_eq!(f32s(column), vec![(3 + dev % 3) as f32]);
    }
    let bad = run_on_grid(&GridShape(vec![2]), STACK, &|d: &ThreadDevice| d.broadcast(&full, &[0], &[2]));
    assert!(bad.iter().all(|r| r.is_err()));
}

#[test]
fn a_lone_device_runs_groups_of_one_and_refuses_larger_ones() {
    let d = SingleDevice::new(GridShape(vec![1, 4]));
    let x = arange(&[4, 2], 0.0);
    assert_eq!(d.all_gather(&x, &[0], 0).unwrap(), x);
    assert_eq!(d.all_reduce(&x, &[0], Reduction::Sum).unwrap(), x);
    assert_eq!(d.all_slice(&x, &[], 0).unwrap(), x);
    let err = d.all_gather(&x, &[1], 0).unwrap_err();
    assert!(err.contains("a group of 4 devices needs a device grid"), "{err}");
}

#[test]
fn tensors_split_and_reassemble_per_their_split_axes() {
    let grid = GridShape(vec![2, 2]);
    let full = arange(&[4, 8], 0.0);
    for split in [vec![], vec![vec![0]], vec![vec![0], vec![1]], vec![vec![], vec![1, 0]], vec![vec![1]]] {
        let parts: Vec<RtValue> = (0..4)
            .map(|d| RtValue::Tensor(shard_tensor(&full, &grid, &grid.coords(d), &split).unwrap()))
            .collect();
        let back = unshard_values(&parts, &grid, &split).unwrap();
        assert_eq!(back.as_tensor(), Some(&full), "split {split:?}");
    }
    // dim 1 split along axes [1, 0]: device (1, 0) holds block 0 * 2 + 1 = 1
    let b = shard_tensor(&full, &grid, &[1, 0], &[vec![], vec![1, 0]]).unwrap();
    assert_eq!(b, block(&full, 1, 4, 1).unwrap());
    assert!(shard_tensor(&full, &grid, &[0, 0], &[vec![0], vec![0]]).is_err());
    assert!(shard_tensor(&arange(&[3], 0.0), &grid, &[0, 0], &[vec![0]]).is_err());
    // replicas that disagree are an error
    let parts: Vec<RtValue> = (0..4).map(|d| RtValue::Tensor(arange(&[2], (d / 2) as f32))).collect();
    let err = unshard_values(&parts, &grid, &[vec![1]]).unwrap_err();
    assert!(err.contains("replicas disagree"), "{err}");
}

#[test]
fn a_failing_device_stops_the_others_instead_of_hanging() {
    let start = Instant::now();
    let results = run_on_grid(&GridShape(vec![2, 2]), STACK, &|d: &ThreadDevice| {
        if d.coords() == [1, 1] {
            return Err("boom".to_string());
        }
        // the others wait in a collective that device (1, 1) never joins
        d.all_reduce(&Tensor::f32(&[1], &[1.0]), &[0, 1], Reduction::Sum)
    });
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(results[3].as_ref().unwrap_err(), "boom");
    for r in &results[..3] {
        let e = r.as_ref().unwrap_err();
        assert!(e.contains("another device failed") && e.contains("device (1, 1) failed: boom"), "{e}");
    }
}

#[test]
fn a_panicking_device_stops_the_others() {
    let results = run_on_grid(&GridShape(vec![3]), STACK, &|d: &ThreadDevice| {
        if d.coords()[0] == 0 {
            panic!("a bug");
        }
        d.all_gather(&Tensor::f32(&[1], &[1.0]), &[0], 0)
    });
    assert!(results.iter().all(|r| r.is_err()));
    assert!(results[0].as_ref().unwrap_err().contains("panicked"));
}

#[test]
fn devices_that_disagree_on_their_collectives_are_a_deadlock_error() {
    // device (i, j) gathers first along axis 1 - (i ^ j), then along the other: each waits for
    // a partner that waits in another group, in a cycle through all four
    let results = run_on_grid(&GridShape(vec![2, 2]), STACK, &|d: &ThreadDevice| {
        let x = Tensor::f32(&[1], &[1.0]);
        let first = 1 - (d.coords()[0] ^ d.coords()[1]);
        d.all_gather(&x, &[first], 0)?;
        d.all_gather(&x, &[1 - first], 0)
    });
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert!(e.contains("deadlock"), "{e}");
    }
    // a device that returns while the others wait for it
    let results = run_on_grid(&GridShape(vec![2]), STACK, &|d: &ThreadDevice| {
        if d.coords()[0] == 0 {
            return Ok(Tensor::f32(&[1], &[0.0]));
        }
        d.all_gather(&Tensor::f32(&[1], &[1.0]), &[0], 0)
    });
    assert!(results[0].is_ok());
    assert!(results[1].as_ref().unwrap_err().contains("deadlock"));
}

#[test]
fn groups_proceed_independently_and_repeat() {
    // many collectives per group, groups of different axes interleaved
    let out = on_grid(&[2, 4], |d| {
        let mut acc = Tensor::f32(&[2], &[1.0, 2.0]);
        for _ in 0..20 {
            acc = d.all_reduce(&acc, &[1], Reduction::Max)?;
            let g = d.all_gather(&acc, &[0], 0)?;
            acc = block(&g, 0, 2, d.coords()[0])?;
        }
        Ok(acc)
    });
    for t in out {
        assert_eq!(f32s(&t), vec![1.0, 2.0]);
    }
    assert_eq!(ElemType::F32, arange(&[1], 0.0).elem());
}
