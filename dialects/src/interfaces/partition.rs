//! The interface `shard-partition` asks an op whose local computation is not simply the op on
//! smaller operands: what it computes on its local slices when its reduction loops are split
//! over devices, and how its value follows from the resolved combination of the parts (a
//! `mean` is a local sum, combined by the collective, then divided by the whole count). MLIR's
//! `ShardingInterface::partition`, narrowed to that question; ops without it compute their
//! parts as themselves (a split `sum`, `max` or matmul is already its own partial form).

use xcs_ir::{Body, Builder, Context, Diagnostic, Op, Value};

/// See the module docs. Found from the op's registration
/// (`ctx.interface::<dyn SplitReduction>(name)`).
pub trait SplitReduction: Sync {
    /// Called once the op reads its local operands and a reduction loop is split: rewrites
    /// `op` in place to compute its part of the pending combination. Returns true if the
    /// combined value then needs [`SplitReduction::finish`].
    fn local_part(&self, ctx: &Context, body: &mut Body, op: Op) -> Result<bool, String>;
    /// The op's value from `combined`, the resolved combination of the parts; `count` is the
    /// number of elements each result element reduces over in the whole (unsplit) program.
    fn finish(&self, b: &mut Builder<'_>, combined: Value, count: i64) -> Result<Value, Diagnostic>;
}
xcs_ir::op_interface!(dyn SplitReduction, "split-reduction");
