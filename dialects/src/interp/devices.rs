//! The device model of SPMD execution: a device is one coordinate of a grid of devices (MLIR's
//! `shard.grid`), and a [`Communicator`] is what a device running its part of a partitioned
//! program uses to talk to the others. Collectives run along chosen grid axes: the devices
//! that differ only in their coordinates on those axes form a *group*, and a device's index in
//! its group is its coordinates on those axes, linearized row-major in the order the axes are
//! given (MLIR's in-group multi-index and `shard.process_linear_index` order).
//!
//! A communicator implements one primitive, [`Communicator::exchange`] (every member of the
//! group gives a tensor and gets all of them, in group order); every collective of the `shard`
//! dialect is defined from it here, as numpy-style reference code, so implementations
//! (threads over shared memory in [`super::shared_grid`], MPI later) only provide transport and
//! may override a collective with a native one that computes the same values.
//!
//! Reductions combine the group's tensors in group order: floats accumulate in `f64` and round
//! once to the element type (as the interpreter's reductions do), integers wrap; `max`/`min`
//! propagate NaN and order -0.0 below +0.0 (the tensor dialect's [`fmax`] and [`fmin`], IEEE 754-2019).

use super::value::{ElemType, Tensor, TensorData};
use crate::tensor::elementwise::{fmax, fmin};

/// A grid of devices: one size per axis; devices are numbered row-major (the last axis varies
/// fastest).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GridShape(pub Vec<usize>);

impl GridShape {
    pub fn rank(&self) -> usize {
        self.0.len()
    }
    /// The number of devices.
    pub fn num_devices(&self) -> usize {
        self.0.iter().product()
    }
    /// The coordinates of device `linear`.
    pub fn coords(&self, linear: usize) -> Vec<usize> {
        let mut c = vec![0; self.0.len()];
        let mut rest = linear;
        for (i, &n) in self.0.iter().enumerate().rev() {
            c[i] = rest % n.max(1);
            rest /= n.max(1);
        }
        c
    }
    /// The linear number of the device at `coords`.
    pub fn linear(&self, coords: &[usize]) -> usize {
        coords.iter().zip(&self.0).fold(0, |acc, (&c, &n)| acc * n + c)
    }
    /// The number of devices in a group along `axes` (1 for no axes).
    pub fn group_size(&self, axes: &[usize]) -> usize {
        axes.iter().map(|&a| self.0[a]).product()
    }
    /// The index of the device at `coords` in its group along `axes`.
    pub fn index_in_group(&self, coords: &[usize], axes: &[usize]) -> usize {
        axes.iter().fold(0, |acc, &a| acc * self.0[a] + coords[a])
    }
    /// The coordinates of member `index` of the group along `axes` of the device at `coords`.
    pub fn group_member(&self, coords: &[usize], axes: &[usize], index: usize) -> Vec<usize> {
        let mut c = coords.to_vec();
        let mut rest = index;
        for &a in axes.iter().rev() {
            c[a] = rest % self.0[a];
            rest /= self.0[a];
        }
        c
    }
    /// Checks grid axes: in range and not repeated.
    pub fn check_axes(&self, axes: &[usize]) -> Result<(), String> {
        for (i, &a) in axes.iter().enumerate() {
            if a >= self.rank() {
                return Err(format!("grid axis {a} is out of range for a grid of rank {}", self.rank()));
            }
            if axes[..i].contains(&a) {
                return Err(format!("grid axis {a} appears twice"));
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for GridShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dims: Vec<String> = self.0.iter().map(|d| d.to_string()).collect();
        f.write_str(&dims.join("x"))
    }
}

/// How a reduction combines the values of a group (the kinds the interpreter implements of
/// MLIR's `shard::ReductionKind`; `bitwise_*` only for integers).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Max,
    Min,
    Product,
    /// The sum divided by the group size (truncated toward zero for integers).
    Average,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
}

/// What a device running its part of an SPMD program can do with the other devices of its
/// grid. Every method blocks until the device's whole group has called it (members must call
/// the same collectives in the same order); an `Err` is a message (the caller locates it).
/// When any device of the grid fails, the collectives of the others return an error instead of
/// waiting for it.
pub trait Communicator: Send + Sync {
    /// The grid's shape.
    fn grid(&self) -> &GridShape;
    /// This device's coordinates.
    fn coords(&self) -> &[usize];
    /// The primitive: each member of this device's group along `axes` gives `value`; returns
    /// every member's value in group order (this device's at its own index).
    fn exchange(&self, axes: &[usize], value: Tensor) -> Result<Vec<Tensor>, String>;

    /// This device's index in its group along `axes`.
    fn index_in_group(&self, axes: &[usize]) -> usize {
        self.grid().index_in_group(self.coords(), axes)
    }
    /// Concatenates the group's tensors along tensor dim `axis` (`shard.all_gather`).
    fn all_gather(&self, x: &Tensor, axes: &[usize], axis: usize) -> Result<Tensor, String> {
        self.grid().check_axes(axes)?;
        let parts = self.exchange(axes, x.clone())?;
        Tensor::concat(&parts.iter().collect::<Vec<_>>(), axis)
    }
    /// Combines the group's tensors elementwise; every member gets the result
    /// (`shard.all_reduce`).
    fn all_reduce(&self, x: &Tensor, axes: &[usize], kind: Reduction) -> Result<Tensor, String> {
        self.grid().check_axes(axes)?;
        let parts = self.exchange(axes, x.clone())?;
        reduce_tensors(&parts, kind)
    }
    /// Combines the group's tensors and keeps this device's block along tensor dim `axis`
    /// (`shard.reduce_scatter`).
    fn reduce_scatter(&self, x: &Tensor, axes: &[usize], kind: Reduction, axis: usize) -> Result<Tensor, String> {
        let full = self.all_reduce(x, axes, kind)?;
        block(&full, axis, self.grid().group_size(axes), self.index_in_group(axes))
    }
    /// Splits this device's tensor along `split_axis` into one block per member, sends block
    /// `j` to member `j`, and concatenates what it receives along `concat_axis`
    /// (`shard.all_to_all`).
    fn all_to_all(&self, x: &Tensor, axes: &[usize], split_axis: usize, concat_axis: usize) -> Result<Tensor, String> {
        self.grid().check_axes(axes)?;
        let n = self.grid().group_size(axes);
        let me = self.index_in_group(axes);
        let parts = self.exchange(axes, x.clone())?;
        let mine: Vec<Tensor> = parts.iter().map(|p| block(p, split_axis, n, me)).collect::<Result<_, _>>()?;
        Tensor::concat(&mine.iter().collect::<Vec<_>>(), concat_axis)
    }
    /// This device's block of its own tensor along tensor dim `axis`; no communication
    /// (`shard.all_slice`).
    fn all_slice(&self, x: &Tensor, axes: &[usize], axis: usize) -> Result<Tensor, String> {
        self.grid().check_axes(axes)?;
        block(x, axis, self.grid().group_size(axes), self.index_in_group(axes))
    }
    /// The tensor of the member whose coordinates on `axes` are `root` (`shard.broadcast`).
    fn broadcast(&self, x: &Tensor, axes: &[usize], root: &[usize]) -> Result<Tensor, String> {
        self.grid().check_axes(axes)?;
        if root.len() != axes.len() {
            return Err(format!("the root has {} coordinates for {} grid axes", root.len(), axes.len()));
        }
        let mut index = 0;
        for (&a, &r) in axes.iter().zip(root) {
            let n = self.grid().0[a];
            if r >= n {
                return Err(format!("root coordinate {r} is out of range for grid axis {a} of size {n}"));
            }
            index = index * n + r;
        }
        let mut parts = self.exchange(axes, x.clone())?;
        Ok(parts.swap_remove(index))
    }
}

/// Block `index` of `n` equal blocks of `x` along dim `axis`.
pub fn block(x: &Tensor, axis: usize, n: usize, index: usize) -> Result<Tensor, String> {
    let Some(&size) = x.shape.get(axis) else {
        return Err(format!("axis {axis} is out of range for a {}", x.type_string()));
    };
    if n == 0 || size % n != 0 {
        return Err(format!("dim {axis} of a {} does not split into {n} equal blocks", x.type_string()));
    }
    let len = size / n;
    let outer: usize = x.shape[..axis].iter().product();
    let inner: usize = x.shape[axis + 1..].iter().product();
    let mut idx = Vec::with_capacity(outer * len * inner);
    for o in 0..outer {
        let base = (o * size + index * len) * inner;
        idx.extend(base..base + len * inner);
    }
    let mut shape = x.shape.clone();
    shape[axis] = len;
    Ok(x.take(shape, &idx))
}

/// Combines equally shaped tensors elementwise, in order (see the module docs).
pub fn reduce_tensors(parts: &[Tensor], kind: Reduction) -> Result<Tensor, String> {
    let Some(first) = parts.first() else {
        return Err("cannot reduce an empty group".into());
    };
    for p in parts {
        if p.shape != first.shape || p.elem() != first.elem() {
            return Err(format!("devices of a group hold a {} and a {}", first.type_string(), p.type_string()));
        }
    }
    let elem = first.elem();
    let n = parts.len();
    let data = if elem.is_float() {
        let lanes: Vec<Vec<f64>> = parts.iter().map(|p| p.data.to_f64s().unwrap_or_default()).collect();
        TensorData::F64(combine_floats(&lanes, kind, n)?).cast(elem)?
    } else if elem.is_int() || elem == ElemType::I1 {
        let lanes: Vec<Vec<i64>> = parts.iter().map(|p| p.data.to_i64s().unwrap_or_default()).collect();
        TensorData::I64(combine_ints(&lanes, kind, n)).cast(elem)?
    } else {
        return Err(format!("cannot reduce {elem} elements"));
    };
    Tensor::new(first.shape.clone(), data)
}

fn combine_floats(lanes: &[Vec<f64>], kind: Reduction, n: usize) -> Result<Vec<f64>, String> {
    let f: fn(f64, f64) -> f64 = match kind {
        Reduction::Sum | Reduction::Average => |a, b| a + b,
        Reduction::Product => |a, b| a * b,
        Reduction::Max => fmax::<f64>,
        Reduction::Min => fmin::<f64>,
        _ => return Err(format!("a {kind:?} reduction needs integer elements")),
    };
    let mut acc = fold_lanes(lanes, f);
    if kind == Reduction::Average {
        acc.iter_mut().for_each(|a| *a /= n as f64);
    }
    Ok(acc)
}

fn combine_ints(lanes: &[Vec<i64>], kind: Reduction, n: usize) -> Vec<i64> {
    let f: fn(i64, i64) -> i64 = match kind {
        Reduction::Sum | Reduction::Average => i64::wrapping_add,
        Reduction::Product => i64::wrapping_mul,
        Reduction::Max => |a, b| a.max(b),
        Reduction::Min => |a, b| a.min(b),
        Reduction::BitwiseAnd => |a, b| a & b,
        Reduction::BitwiseOr => |a, b| a | b,
        Reduction::BitwiseXor => |a, b| a ^ b,
    };
    let mut acc = fold_lanes(lanes, f);
    if kind == Reduction::Average {
        acc.iter_mut().for_each(|a| *a /= n as i64);
    }
    acc
}

/// The devices' lanes (equally long) combined elementwise by `f`, in group order.
fn fold_lanes<T: Copy>(lanes: &[Vec<T>], f: fn(T, T) -> T) -> Vec<T> {
    let mut acc = lanes[0].clone();
    for l in &lanes[1..] {
        for (a, &b) in acc.iter_mut().zip(l) {
            *a = f(*a, b);
        }
    }
    acc
}

/// The communicator of a device that runs alone: every group along axes of size 1 is the
/// device itself, so collectives along them are local (an all-gather is the identity, an
/// all-reduce a conversion); a group of more than one device is an error.
pub struct SingleDevice {
    grid: GridShape,
    coords: Vec<usize>,
}

impl SingleDevice {
    /// The device at coordinates 0 of `grid`.
    pub fn new(grid: GridShape) -> SingleDevice {
        let coords = vec![0; grid.rank()];
        SingleDevice { grid, coords }
    }
}

impl Communicator for SingleDevice {
    fn grid(&self) -> &GridShape {
        &self.grid
    }
    fn coords(&self) -> &[usize] {
        &self.coords
    }
    fn exchange(&self, axes: &[usize], value: Tensor) -> Result<Vec<Tensor>, String> {
        self.grid.check_axes(axes)?;
        match self.grid.group_size(axes) {
            1 => Ok(vec![value]),
            n => Err(format!("a group of {n} devices needs a device grid to run on")),
        }
    }
}
