//! An op's strategy (the cost model's 3.4: which grid axes split which of its loops), read
//! from the layouts its operands arrive in and the layouts its results are annotated with,
//! and what the strategy implies: the layout each operand must have and the layout each
//! result is produced in (split along result loops, pending along reduction loops).
//!
//! Reading: operands vote in order, then results; a dim split along axes `A` and indexed by
//! loop `l` assigns `A` to `l` if neither `l` nor any axis of `A` is taken yet and `l` may be
//! split `A`-ways (not a whole loop, static, divisible, indexing no operand or result twice).
//! A vote that cannot be honoured is ignored, and that operand is resharded to what the
//! strategy needs. With the consistent annotations `auto-shard` writes, every vote agrees.
//! Replicated operands do not vote: slicing them locally is free.

use xcs_dialects::shard::{Grid, ReductionKind};
use xcs_ir::interfaces::{LoopInfo, LoopKind};

use super::layout::Layout;

/// For each loop of the op, the grid axes that split it (major first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    pub loop_axes: Vec<Vec<usize>>,
}

impl Strategy {
    /// The strategy the layouts ask for (see the module docs): `operands[i]` is the layout
    /// operand `i` arrives in, `results[r]` the layout result `r` is annotated with (if any).
    pub fn read(info: &LoopInfo, grid: &Grid, operands: &[&Layout], results: &[Option<&Layout>]) -> Strategy {
        let mut s = Strategy {
            loop_axes: vec![Vec::new(); info.loops.len()],
        };
        let maps = operands.iter().zip(&info.operands).chain(
            results
                .iter()
                .zip(&info.results)
                .filter_map(|(l, m)| Some((l.as_ref()?, m))),
        );
        for (layout, map) in maps {
            for (d, axes) in layout.dims.iter().enumerate() {
                let Some(Some(l)) = map.get(d).copied() else { continue };
                if axes.is_empty() || !s.loop_axes[l].is_empty() || axes.iter().any(|&a| s.uses(a)) {
                    continue;
                }
                let n: i64 = axes.iter().map(|&a| grid.shape[a]).product();
                if splittable(info, l, n) {
                    s.loop_axes[l] = axes.clone();
                }
            }
        }
        s
    }

    /// True if some loop is split along `axis`.
    fn uses(&self, axis: usize) -> bool {
        self.loop_axes.iter().any(|a| a.contains(&axis))
    }

    /// True if a reduction loop is split.
    pub fn splits_reduction(&self, info: &LoopInfo) -> bool {
        self.loop_axes
            .iter()
            .zip(&info.loops)
            .any(|(a, k)| !a.is_empty() && k.is_reduction())
    }

    /// The layout of a value whose dim `d` is indexed by loop `map[d]`.
    fn layout(&self, map: &[Option<usize>]) -> Layout {
        let dims = map
            .iter()
            .map(|l| l.map(|l| self.loop_axes[l].clone()).unwrap_or_default())
            .collect();
        Layout {
            dims,
            pending: Vec::new(),
        }
    }

    /// The layout operand `i` must have.
    pub fn operand(&self, info: &LoopInfo, i: usize) -> Layout {
        self.layout(&info.operands[i])
    }

    /// The layout result `r` is produced in: split along its loops' axes, pending along the
    /// axes of split reduction loops.
    pub fn produced(&self, info: &LoopInfo, r: usize) -> Layout {
        let mut layout = self.layout(&info.results[r]);
        for (axes, kind) in self.loop_axes.iter().zip(&info.loops) {
            let combine = match kind {
                LoopKind::ReduceSum => ReductionKind::Sum,
                LoopKind::ReduceMax => ReductionKind::Max,
                LoopKind::ReduceMin => ReductionKind::Min,
                LoopKind::Parallel | LoopKind::Whole => continue,
            };
            layout.pending.extend(axes.iter().map(|&a| (a, combine)));
        }
        layout.pending.sort_by_key(|&(a, _)| a);
        layout
    }

    /// The number of elements each result element reduces over (the product of the reduction
    /// loops' sizes).
    pub fn reduced_count(info: &LoopInfo) -> i64 {
        info.loops
            .iter()
            .zip(&info.sizes)
            .filter(|(k, _)| k.is_reduction())
            .map(|(_, &s)| s)
            .product()
    }
}

/// True if loop `l` may be split into `n` blocks: not a whole loop, of a static size
/// divisible by `n`, and indexing at most one dim of each operand and result.
fn splittable(info: &LoopInfo, l: usize, n: i64) -> bool {
    let once = |map: &Vec<Option<usize>>| map.iter().filter(|&&m| m == Some(l)).count() <= 1;
    info.loops[l].splittable()
        && info.sizes[l] > 0
        && info.sizes[l] % n == 0
        && info.operands.iter().all(once)
        && info.results.iter().all(once)
}
