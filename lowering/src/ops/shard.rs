//! The `shard` annotations on one device: `shard.shard` is its operand (a view of the same
//! buffer) and `shard.sharding` a placeholder, so annotated but unpartitioned programs compile
//! to the same code as without the annotations. The collectives and device queries of
//! partitioned programs have no lowering yet: their run-time functions (shared memory between
//! device threads, MPI) come with `xcs-run --devices` and `--mpi`, attached here the same way.

use xcs_dialects::interp::ElemType;

use crate::codegen::llvm_ir::Val;
use crate::codegen::{FunctionLowering, LowerFn, OpSite, Slot, R};

pub static SHARD: LowerFn = LowerFn(shard);
pub static SHARDING: LowerFn = LowerFn(sharding);

/// `shard.shard`: the operand itself.
fn shard(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    Ok(vec![Slot::Tensor(o.tensor(fl, 0)?)])
}

/// `shard.sharding`: nothing to compute (its only users are annotations); a constant stands
/// for the value.
fn sharding(_: &mut FunctionLowering, _: &OpSite) -> R<Vec<Slot>> {
    Ok(vec![Slot::Scalar(Val::i64(0), ElemType::I64)])
}
