//! How one tensor lies on the devices of a grid during partitioning: for each tensor dim the
//! grid axes that split it (major first, as MLIR's `split_axes`), and the grid axes along
//! which the devices hold pending parts of a reduction (the cost model's `P` state, which
//! upstream's shardings cannot say). Also reading an annotation's sharding into a [`Layout`]
//! (with its validity checks) and the local shape a layout gives.

use xcs_dialects::shard::{Grid, ReductionKind, Sharding, SplitAxes};

/// See the module docs. Axes of size 1 never appear (they split nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// One list per tensor dim (as many as the tensor's rank).
    pub dims: Vec<Vec<usize>>,
    /// The axes along which the value is a pending combination, in axis order, each with how
    /// the parts combine.
    pub pending: Vec<(usize, ReductionKind)>,
}

impl Layout {
    /// Every device holds the whole tensor of rank `rank`.
    pub fn replicated(rank: usize) -> Layout {
        Layout {
            dims: vec![Vec::new(); rank],
            pending: Vec::new(),
        }
    }

    /// True if no dim is split and nothing is pending.
    pub fn is_replicated(&self) -> bool {
        self.pending.is_empty() && self.dims.iter().all(|d| d.is_empty())
    }

    /// The dim axis `axis` splits, if any.
    pub fn dim_of(&self, axis: usize) -> Option<usize> {
        self.dims.iter().position(|d| d.contains(&axis))
    }

    /// True if `axis` splits a dim or is pending.
    pub fn uses(&self, axis: usize) -> bool {
        self.dim_of(axis).is_some() || self.pending.iter().any(|&(a, _)| a == axis)
    }

    /// The layout of a tensor of `shape` annotated with `sharding` on `grid`, checked: the grid
    /// axes exist and are used once, the tensor has the dims the sharding splits, split dims are
    /// static and divisible by their number of shards, and there are no halos or uneven shards.
    pub fn of_sharding(sharding: &Sharding, grid: &Grid, shape: &[i64]) -> Result<Layout, String> {
        if sharding.grid != grid.name {
            return Err(format!(
                "the sharding is on grid @{}, but the function's grid is @{}",
                sharding.grid, grid.name
            ));
        }
        if !sharding.halo_sizes.is_empty() || !sharding.sharded_dims_offsets.is_empty() {
            return Err("halo sizes and uneven shards (sharded_dims_offsets) are not supported".into());
        }
        if sharding.split_axes.len() > shape.len() && sharding.split_axes[shape.len()..].iter().any(|a| !a.is_empty()) {
            return Err(format!(
                "the sharding splits dims beyond the rank {} of the tensor",
                shape.len()
            ));
        }
        let mut layout = Layout::replicated(shape.len());
        let mut seen = Vec::new();
        for (d, axes) in sharding.split_axes.iter().enumerate().take(shape.len()) {
            for &a in axes {
                let size = usize::try_from(a).ok().and_then(|i| grid.shape.get(i)).copied();
                let Some(size) = size else {
                    return Err(format!(
                        "grid axis {a} does not exist: @{} has {} axes",
                        grid.name,
                        grid.rank()
                    ));
                };
                if seen.contains(&a) {
                    return Err(format!("grid axis {a} splits more than one dim"));
                }
                seen.push(a);
                if size != 1 {
                    layout.dims[d].push(a as usize);
                }
            }
            let n = layout.shards(grid, d);
            if n > 1 && shape[d] < 0 {
                return Err(format!("dim {d} has a dynamic size and cannot be split"));
            }
            if n > 1 && shape[d] % n != 0 {
                return Err(format!(
                    "dim {d} of size {} does not split into {n} equal shards",
                    shape[d]
                ));
            }
        }
        Ok(layout)
    }

    /// The number of blocks dim `d` is cut into.
    pub fn shards(&self, grid: &Grid, d: usize) -> i64 {
        self.dims[d].iter().map(|&a| grid.shape[a]).product()
    }

    /// The shape of each device's block of a tensor of `shape`.
    pub fn local_shape(&self, grid: &Grid, shape: &[i64]) -> Vec<i64> {
        (0..shape.len()).map(|d| shape[d] / self.shards(grid, d)).collect()
    }

    /// MLIR's split axes of the layout (which must have nothing pending), trailing unsplit
    /// dims left out, `[[]]` when nothing is split (as MLIR writes a replicated sharding).
    pub fn split_axes(&self) -> SplitAxes {
        let mut out: SplitAxes = self
            .dims
            .iter()
            .map(|d| d.iter().map(|&a| a as i64).collect())
            .collect();
        while out.len() > 1 && out.last().is_some_and(|d| d.is_empty()) {
            out.pop();
        }
        if out.is_empty() {
            out.push(Vec::new());
        }
        out
    }

    /// The layout as text for messages: `[[0], []]`, with `partial sum on [1]` if pending.
    pub fn describe(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(|d| format!("{d:?}")).collect();
        let mut s = format!("[{}]", dims.join(", "));
        for (a, k) in &self.pending {
            s.push_str(&format!(" partial {} on axis {a}", k.keyword()));
        }
        s
    }
}
