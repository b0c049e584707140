//! The loop-structure interface: an op's iteration space as loops, and for every operand and
//! result the loop that indexes each of its dims (linalg's indexing maps restricted to
//! projected permutations, or einsum labels). `auto-shard` splits loops over mesh axes; a
//! loop absent from the results is a reduction, combined by its [`LoopKind`].
//!
//! Ops with no such structure (reshapes, slices, gathers, calls) do not implement the
//! interface and are treated as opaque.

use crate::opdef::OpView;

/// What a loop does and whether it may be split across devices.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// Indexes a result dim; every iteration is independent.
    Parallel,
    /// Absent from the results: iterations are combined by a sum (`sum`, `mean`, the `k` of a
    /// matmul), so a split leaves a pending sum.
    ReduceSum,
    /// Absent from the results, combined by a maximum.
    ReduceMax,
    /// Absent from the results, combined by a minimum.
    ReduceMin,
    /// Must stay whole on one device: softmax's axis, layer_norm's normalized dims, the reduced
    /// dims of a product.
    Whole,
}

impl LoopKind {
    /// True for loops that may be split over a mesh axis.
    pub fn splittable(self) -> bool {
        self != LoopKind::Whole
    }
    /// True for loops absent from the results whose split leaves a pending value.
    pub fn is_reduction(self) -> bool {
        matches!(self, LoopKind::ReduceSum | LoopKind::ReduceMax | LoopKind::ReduceMin)
    }
}

/// The loops of one op and the indexing maps of its operands and results: `operands[i][d]` is
/// the loop that indexes dim `d` of operand `i`, or `None` when the dim is not indexed by a loop
/// (a broadcast dim of size 1, or a dim read whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInfo {
    /// Each loop's kind.
    pub loops: Vec<LoopKind>,
    /// The static size of each loop (`DYNAMIC` when unknown).
    pub sizes: Vec<i64>,
    pub operands: Vec<Vec<Option<usize>>>,
    pub results: Vec<Vec<Option<usize>>>,
}

/// Computes an op's [`LoopInfo`] from its operand and result types and attributes; an `Err`
/// says why the structure cannot be given for this instance (the op is then opaque).
pub trait LoopStructure: Send + Sync {
    fn loops(&self, op: &OpView) -> Result<LoopInfo, String>;
}
crate::op_interface!(dyn LoopStructure, "loop-structure");
