//! The lowering of each op, one file per op family so a family's kernels can be replaced
//! (tiled, vectorized) without touching the others: [`elementwise`] (binary, unary, gelu, cmp,
//! select, cast: one lowering for every op with an `Elementwise` interface), [`reduce`] (reduce,
//! softmax, layer_norm; the explicit 16-lane row kernels of large f32 rows in [`rowwise`]),
//! [`matmul`] (matmul, einsum; an f32 matmul is a call of the runtime's precompiled library,
//! [`matmul_lib`], or the packed kernel generated per call site, [`matmul_f32`], their epilogue
//! on one tile in [`matmul_epilogue`]), [`layout`] (constant,
//! transpose, reshape, broadcast_to, slice, concat, gather), [`dynamic`] (iota, dynamic_slice,
//! dynamic_update_slice, extract, from_index), [`fused`] (`tensor.fused`), [`func`] (call,
//! return), [`cf`] (branches, switch, assert), [`shard`] (the sharding annotations, identities on
//! one device; collectives and device queries, calls of the runtime), [`workload`]
//! (`xcs.workload`: its grid as loop kernels on the thread pool calling the launched
//! `xcs.kernel`s) and [`math`] (vectorizable inline f32 exp, log, tanh, sigmoid, GELU, erf, pow).
//!
//! [`attach_interfaces`] attaches each lowering to its op as the op's [`LowerOp`] interface, in
//! one context: a table keyed by the ops' typed declarations, never by name strings. This is
//! MLIR's external model (`registerLLVMDialectTranslation` adding a dialect-registry extension
//! that attaches `LLVMTranslationDialectInterface`): the dialects know nothing of LLVM.

pub mod cf;
pub mod dynamic;
pub mod elementwise;
pub mod func;
pub mod fused;
pub mod layout;
pub mod math;
pub mod matmul;
pub mod matmul_epilogue;
pub mod matmul_f32;
pub mod matmul_lib;
pub mod reduce;
pub mod rowwise;
pub mod shard;
pub mod workload;

use xcs_dialects::tensor::elementwise::Elementwise;
use xcs_dialects::{cf as cf_dialect, func as func_dialect, shard as shard_dialect, tensor, xcs};
use xcs_ir::opdef::OpDef;
use xcs_ir::Context;

use crate::codegen::LowerOp;

/// The ops lowered here, by declaration, and their lowerings (the elementwise ops aside: see
/// [`attach_interfaces`]).
static LOWERINGS: &[(&OpDef, &dyn LowerOp)] = &[
    (tensor::ConstantOp::DEF, &layout::CONSTANT),
    (tensor::TransposeOp::DEF, &layout::TRANSPOSE),
    (tensor::ReshapeOp::DEF, &layout::RESHAPE),
    (tensor::BroadcastToOp::DEF, &layout::BROADCAST_TO),
    (tensor::SliceOp::DEF, &layout::SLICE),
    (tensor::ConcatOp::DEF, &layout::CONCAT),
    (tensor::GatherOp::DEF, &layout::GATHER),
    (tensor::IotaOp::DEF, &dynamic::IOTA),
    (tensor::DynamicSliceOp::DEF, &dynamic::DYNAMIC_SLICE),
    (tensor::DynamicUpdateSliceOp::DEF, &dynamic::DYNAMIC_UPDATE_SLICE),
    (tensor::ExtractOp::DEF, &dynamic::EXTRACT),
    (tensor::FromIndexOp::DEF, &dynamic::FROM_INDEX),
    (tensor::ReduceOp::DEF, &reduce::REDUCE),
    (tensor::SoftmaxOp::DEF, &reduce::SOFTMAX),
    (tensor::LayerNormOp::DEF, &reduce::LAYER_NORM),
    (tensor::MatmulOp::DEF, &matmul::MATMUL),
    (tensor::EinsumOp::DEF, &matmul::EINSUM),
    (tensor::FusedOp::DEF, &fused::FUSED),
    (tensor::YieldOp::DEF, &fused::YIELD),
    (func_dialect::CallOp::DEF, &func::CALL),
    (func_dialect::ReturnOp::DEF, &func::RETURN),
    (cf_dialect::BranchOp::DEF, &cf::BRANCH),
    (cf_dialect::CondBranchOp::DEF, &cf::COND_BRANCH),
    (cf_dialect::SwitchOp::DEF, &cf::SWITCH),
    (cf_dialect::AssertOp::DEF, &cf::ASSERT),
    (shard_dialect::ShardOp::DEF, &shard::SHARD),
    (shard_dialect::ShardingOp::DEF, &shard::SHARDING),
    (shard_dialect::AllGatherOp::DEF, &shard::ALL_GATHER),
    (shard_dialect::AllReduceOp::DEF, &shard::ALL_REDUCE),
    (shard_dialect::ReduceScatterOp::DEF, &shard::REDUCE_SCATTER),
    (shard_dialect::AllToAllOp::DEF, &shard::ALL_TO_ALL),
    (shard_dialect::AllSliceOp::DEF, &shard::ALL_SLICE),
    (shard_dialect::BroadcastOp::DEF, &shard::BROADCAST),
    (shard_dialect::ProcessMultiIndexOp::DEF, &shard::PROCESS_MULTI_INDEX),
    (shard_dialect::ProcessLinearIndexOp::DEF, &shard::PROCESS_LINEAR_INDEX),
    (shard_dialect::GridShapeOp::DEF, &shard::GRID_SHAPE),
    (xcs::kernel::WorkloadOp::DEF, &workload::WORKLOAD),
    // an `xcs.kernel` body is lowered as a function: its yield returns
    (xcs::YieldOp::DEF, &func::RETURN),
];

/// Attaches the LLVM lowering ([`LowerOp`]) of every op this backend compiles to `ctx`: the
/// ops of the `LOWERINGS` table, and every registered op with an `Elementwise` interface (they share
/// [`elementwise::ELEMENTWISE`], which asks the op for its function: a new elementwise op needs
/// nothing here). Registers the `func`, `cf`, `tensor` and `shard` dialects first if they are
/// not yet.
pub fn attach_interfaces(ctx: &mut Context) {
    for d in [
        &func_dialect::FUNC_DIALECT,
        &cf_dialect::CF_DIALECT,
        &tensor::TENSOR_DIALECT,
        &shard_dialect::SHARD_DIALECT,
        &xcs::XCS_DIALECT,
    ] {
        ctx.register_dialect(d);
    }
    for &(def, lowering) in LOWERINGS {
        ctx.attach_interface::<dyn LowerOp>(def, lowering);
    }
    let elementwise_ops: Vec<&'static OpDef> = ctx
        .registered_ops()
        .filter(|d| ctx.interface::<dyn Elementwise>(ctx.op_name(d.name)).is_some())
        .collect();
    for def in elementwise_ops {
        ctx.attach_interface::<dyn LowerOp>(def, &elementwise::ELEMENTWISE);
    }
}
