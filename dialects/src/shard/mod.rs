//! The `shard` dialect, as upstream MLIR 22 writes it (`mlir/Dialect/Shard`): device grids
//! (`shard.grid`), shardings (`!shard.sharding` values made by `shard.sharding`), sharding
//! annotations (`shard.shard`), the collectives an SPMD program communicates with
//! (`all_gather`, `all_reduce`, `reduce_scatter`, `all_to_all`, `all_slice`, `broadcast`) and
//! the device queries (`process_multi_index`, `process_linear_index`, `grid_shape`). This file
//! declares the ops; their syntax is in `syntax.rs`, their verifiers in `verify.rs`, what they
//! do when run in [`mod@semantics`], `shard.shard`'s batching rule in `batching.rs`, the typed
//! API (views and builders) in [`mod@build`], and how a partitioned function records its
//! arguments' and results' shardings in [`mod@signature`].
//!
//! A module using only `func` and `shard` ops prints byte for byte as `mlir-opt` 22 prints it,
//! in the custom form (with upstream's result names: `%sharding`, `%sharding_annotated`,
//! `%all_gather`, ...) and the generic one, and reads back what `mlir-opt` prints. The names of
//! a grid's axes, which upstream has no place for, are the discardable attribute `xcs.axes`
//! (`shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}`), which `mlir-opt` keeps.

pub mod attrs;
mod batching;
pub mod build;
pub mod semantics;
pub mod signature;
mod syntax;
mod verify;

use xcs_ir::interfaces::ResultName;
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, AttrDef, DialectDef, Syntax, TypeConstraint, TypeDef};
use xcs_ir::{op, Attr, Body, Context, Type, Value};

use crate::interfaces::batching::BatchingRule;
use crate::interfaces::cost::{CostFn, CostRule, Rule};
use crate::interp::semantics::Semantics;

pub use attrs::{ReductionKind, SplitAxes};
pub use build::{Grid, Sharding};
pub use signature::Signature;

/// The text of the `!shard.sharding` type after `!` (the type has the op's name, as in MLIR;
/// spelled in parts so that the op's name appears only in its declaration).
const SHARDING_TYPE_TEXT: &str = concat!("shard", ".", "sharding");

/// `!shard.sharding`.
pub fn sharding_type(ctx: &Context) -> Type {
    ctx.dialect_type(SHARDING_TYPE_TEXT)
}

/// The name of the discardable attribute holding a grid's axis names (`xcs.axes = ["dp", "tp"]`).
pub const AXES_ATTR: &str = "xcs.axes";

pub const SHARDING: TypeConstraint = TypeConstraint {
    desc: "sharding definition",
    check: |c, t| t == sharding_type(c),
};
pub const NON0_RANKED_TENSOR: TypeConstraint = TypeConstraint {
    desc: "non-0-ranked.tensor of any type values",
    check: |c, t| crate::shape::ranked(c, t).is_some_and(|(s, _)| !s.is_empty()),
};
pub const RANKED_TENSOR_OR_MEMREF: TypeConstraint = TypeConstraint {
    desc: "memref of any type values or ranked tensor of any type values",
    check: |c, t| c.is_ranked_tensor(t),
};
pub const I64: TypeConstraint = TypeConstraint {
    desc: "64-bit signless integer",
    check: |c, t| t == c.i64_type(),
};
const GRID_AXES_ATTR: AttrConstraint = AttrConstraint {
    desc: "i16 dense array attribute",
    check: |c, a| attrs::grid_axes_of(c, a).is_some(),
};
const AXIS_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    desc: "grid axes array",
    check: |c, a| attrs::split_axes_of(c, a).is_some(),
};
const REDUCTION_ATTR: AttrConstraint = AttrConstraint {
    desc: "Reduction of an iterator/grid dimension.",
    check: |c, a| ReductionKind::from_attr(c, a).is_some(),
};

op! {
    /// A device grid: a symbol naming an array of devices of `shape` (`2x4`; `?` for a size
    /// known only at run time). Axis names, if any, are the discardable attribute `xcs.axes`.
    /// Syntax: `shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}`.
    pub struct GridOp = "shard.grid" in SHARD_OPS {
        summary: "Description of a device/process grid.",
        attributes: { sym_name: SYMBOL_NAME_ATTR, shape: DENSE_I64_ARRAY_ATTR },
        traits: [Symbol, Pure],
        verify: verify::verify_grid,
        syntax: Syntax::Custom { parse: syntax::parse_grid, print: syntax::print_grid },
    }
}

op! {
    /// A sharding of tensors on `grid`: `split_axes[d]` lists the grid axes tensor dim `d` is
    /// split along (trailing dims may be left out). Optionally halo sizes (two per split dim)
    /// or the offsets of uneven shards; `?` entries take the operands (offsets first, then halo
    /// sizes, as `operandSegmentSizes` says). Syntax: `%s = shard.sharding @mesh split_axes =
    /// [[0], []] halo_sizes = [1, %h] : !shard.sharding` (or `sharded_dims_offsets = [...]`).
    pub struct ShardingOp = "shard.sharding" in SHARD_OPS {
        summary: "Define a sharding of a tensor.",
        operands: { #[variadic] dynamic_sizes: I64 },
        results: { result: SHARDING },
        attributes: {
            grid: FLAT_SYMBOL_REF_ATTR,
            split_axes: AXIS_ARRAY_ATTR,
            #[optional] static_sharded_dims_offsets: DENSE_I64_ARRAY_ATTR,
            #[optional] static_halo_sizes: DENSE_I64_ARRAY_ATTR,
            #[optional] operandSegmentSizes: DENSE_I32_ARRAY_ATTR,
        },
        traits: [Pure],
        verify: verify::verify_sharding,
        verify_symbol_uses: verify::verify_sharding_uses,
        interfaces: [dyn Semantics => &semantics::SHARDING, ResultName => &ResultName("sharding")],
        syntax: Syntax::Custom { parse: syntax::parse_sharding, print: syntax::print_sharding },
    }
}

op! {
    /// Annotates `src` with `sharding`: the result is `src`, to be stored in that sharding
    /// (or, with `annotate_for_users`, the sharding its users want). An identity when run.
    /// Syntax: `%a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>`.
    pub struct ShardOp = "shard.shard" in SHARD_OPS {
        summary: "Annotate on how a tensor is sharded across a shard.",
        operands: { src: RANKED_TENSOR, sharding: SHARDING },
        results: { result: RANKED_TENSOR },
        attributes: { #[optional] annotate_for_users: UNIT_ATTR },
        traits: [Pure],
        verify: verify::verify_shard,
        interfaces: [
            dyn Semantics => &semantics::SHARD,
            dyn CostRule => &SHARD_COST,
            dyn BatchingRule => &batching::SHARD,
            ResultName => &ResultName("sharding_annotated"),
        ],
        syntax: Syntax::Custom { parse: syntax::parse_shard, print: syntax::print_shard },
    }
}

op! {
    /// Concatenates the tensors of each device group along `grid_axes` on tensor dim
    /// `gather_axis`; every member gets the result. Syntax: `%g = shard.all_gather %x on
    /// @mesh grid_axes = [1] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>`.
    pub struct AllGatherOp = "shard.all_gather" in SHARD_OPS {
        summary: "All-gather over a device grid.",
        operands: { input: NON0_RANKED_TENSOR },
        results: { result: NON0_RANKED_TENSOR },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR, #[optional] grid_axes: GRID_AXES_ATTR, gather_axis: INDEX_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify::verify_same_rank,
        verify_symbol_uses: verify::verify_all_gather_uses,
        interfaces: [dyn Semantics => &semantics::ALL_GATHER, ResultName => &ResultName("all_gather")],
        syntax: Syntax::Custom { parse: syntax::parse_all_gather, print: syntax::print_all_gather },
    }
}

op! {
    /// Combines the tensors of each device group along `grid_axes` elementwise with
    /// `reduction` (sum by default), in the result's element type; every member gets the result.
    /// Syntax: `%r = shard.all_reduce %x on @mesh grid_axes = [0] reduction =  max : tensor<4xf32>
    /// -> tensor<4xf64>` (two spaces, as MLIR prints it).
    pub struct AllReduceOp = "shard.all_reduce" in SHARD_OPS {
        summary: "All-reduce over a device grid.",
        operands: { input: RANKED_TENSOR_OR_MEMREF },
        results: { result: RANKED_TENSOR_OR_MEMREF },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR, #[optional] grid_axes: GRID_AXES_ATTR, #[optional] reduction: REDUCTION_ATTR },
        traits: [Pure],
        verify: verify::verify_same_shape,
        verify_symbol_uses: verify::verify_all_reduce_uses,
        interfaces: [dyn Semantics => &semantics::ALL_REDUCE, ResultName => &ResultName("all_reduce")],
        syntax: Syntax::Custom { parse: syntax::parse_all_reduce, print: syntax::print_all_reduce },
    }
}

op! {
    /// Combines the tensors of each device group like `shard.all_reduce`, then each member
    /// keeps its block of the result along tensor dim `scatter_axis`. Syntax: `%r =
    /// shard.reduce_scatter %x on @mesh grid_axes = [1] scatter_axis = 0 : tensor<8x4xf32> ->
    /// tensor<2x4xf32>`.
    pub struct ReduceScatterOp = "shard.reduce_scatter" in SHARD_OPS {
        summary: "Reduce-scatter over a device grid.",
        operands: { input: NON0_RANKED_TENSOR },
        results: { result: RANKED_TENSOR },
        attributes: {
            grid: FLAT_SYMBOL_REF_ATTR,
            #[optional] grid_axes: GRID_AXES_ATTR,
            #[optional] reduction: REDUCTION_ATTR,
            scatter_axis: INDEX_ATTR,
        },
        traits: [Pure],
        verify: verify::verify_same_rank,
        verify_symbol_uses: verify::verify_reduce_scatter_uses,
        interfaces: [dyn Semantics => &semantics::REDUCE_SCATTER, ResultName => &ResultName("reduce_scatter")],
        syntax: Syntax::Custom { parse: syntax::parse_reduce_scatter, print: syntax::print_reduce_scatter },
    }
}

op! {
    /// Each member splits its tensor along `split_axis` into one block per member, sends
    /// block `j` to member `j` and concatenates what it receives along `concat_axis`. Syntax:
    /// `%t = shard.all_to_all %x on @mesh grid_axes = [1] split_axis = 1 concat_axis = 0 :
    /// tensor<2x8xf32> -> tensor<8x2xf32>`.
    pub struct AllToAllOp = "shard.all_to_all" in SHARD_OPS {
        summary: "All-to-all over a device grid.",
        operands: { input: NON0_RANKED_TENSOR },
        results: { result: NON0_RANKED_TENSOR },
        attributes: {
            grid: FLAT_SYMBOL_REF_ATTR,
            #[optional] grid_axes: GRID_AXES_ATTR,
            split_axis: INDEX_ATTR,
            concat_axis: INDEX_ATTR,
        },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify::verify_same_rank,
        verify_symbol_uses: verify::verify_all_to_all_uses,
        interfaces: [dyn Semantics => &semantics::ALL_TO_ALL, ResultName => &ResultName("all_to_all")],
        syntax: Syntax::Custom { parse: syntax::parse_all_to_all, print: syntax::print_all_to_all },
    }
}

op! {
    /// Each member keeps its block of its own tensor along `slice_axis` (its index in its
    /// group along `grid_axes`); no communication. The inverse of an all-gather. Syntax: `%s =
    /// shard.all_slice %x on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x4xf32> ->
    /// tensor<4x4xf32>`.
    pub struct AllSliceOp = "shard.all_slice" in SHARD_OPS {
        summary: "All-slice over a device grid.",
        operands: { input: NON0_RANKED_TENSOR },
        results: { result: NON0_RANKED_TENSOR },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR, #[optional] grid_axes: GRID_AXES_ATTR, slice_axis: INDEX_ATTR },
        traits: [Pure, SameOperandsAndResultElementType],
        verify: verify::verify_same_rank,
        verify_symbol_uses: verify::verify_all_slice_uses,
        interfaces: [dyn Semantics => &semantics::ALL_SLICE, ResultName => &ResultName("all_slice")],
        syntax: Syntax::Custom { parse: syntax::parse_all_slice, print: syntax::print_all_slice },
    }
}

op! {
    /// Every member of each device group gets the tensor of the member at in-group
    /// coordinates `root` (`?` entries take the operands after the input). Syntax: `%b =
    /// shard.broadcast %x on @mesh grid_axes = [0] root = [%i] : (tensor<4xf32>, index) ->
    /// tensor<4xf32>`.
    pub struct BroadcastOp = "shard.broadcast" in SHARD_OPS {
        summary: "Broadcast over a device grid.",
        operands: { input: RANKED_TENSOR, #[variadic] root_dynamic: INDEX },
        results: { result: RANKED_TENSOR },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR, #[optional] grid_axes: GRID_AXES_ATTR, root: DENSE_I64_ARRAY_ATTR },
        traits: [Pure],
        verify: verify::verify_broadcast,
        verify_symbol_uses: verify::verify_broadcast_uses,
        interfaces: [dyn Semantics => &semantics::BROADCAST, ResultName => &ResultName("broadcast")],
        syntax: Syntax::Custom { parse: syntax::parse_broadcast, print: syntax::print_broadcast },
    }
}

op! {
    /// The device's coordinates on `axes` of `grid` (all axes when none are given). Syntax:
    /// `%i:2 = shard.process_multi_index on @mesh axes = [0, 1] : index, index`.
    pub struct ProcessMultiIndexOp = "shard.process_multi_index" in SHARD_OPS {
        summary: "Get the multi index of current device along specified grid axes.",
        results: { #[variadic] result: INDEX },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR, #[optional] axes: GRID_AXES_ATTR },
        traits: [Pure],
        verify_symbol_uses: verify::verify_grid_query_uses,
        interfaces: [dyn Semantics => &semantics::PROCESS_MULTI_INDEX, ResultName => &ResultName("proc_linear_idx")],
        syntax: Syntax::Custom { parse: syntax::parse_process_multi_index, print: syntax::print_process_multi_index },
    }
}

op! {
    /// The device's number in `grid`, its coordinates linearized row-major. Syntax:
    /// `%i = shard.process_linear_index on @mesh : index`.
    pub struct ProcessLinearIndexOp = "shard.process_linear_index" in SHARD_OPS {
        summary: "Get the linear index of the current device.",
        results: { result: INDEX },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR },
        traits: [Pure],
        verify_symbol_uses: verify::verify_linear_index_uses,
        interfaces: [dyn Semantics => &semantics::PROCESS_LINEAR_INDEX, ResultName => &ResultName("proc_linear_idx")],
        syntax: Syntax::Custom { parse: syntax::parse_process_linear_index, print: syntax::print_process_linear_index },
    }
}

op! {
    /// The sizes of `axes` of `grid` (all axes when none are given). Syntax: `%n =
    /// shard.grid_shape @mesh axes = [1] : index`.
    pub struct GridShapeOp = "shard.grid_shape" in SHARD_OPS {
        summary: "Get the shape of the grid.",
        results: { #[variadic] result: INDEX },
        attributes: { grid: FLAT_SYMBOL_REF_ATTR, #[optional] axes: GRID_AXES_ATTR },
        traits: [Pure],
        verify_symbol_uses: verify::verify_grid_query_uses,
        interfaces: [dyn Semantics => &semantics::GRID_SHAPE, ResultName => &ResultName("grid_shape")],
        syntax: Syntax::Custom { parse: syntax::parse_grid_shape, print: syntax::print_grid_shape },
    }
}

xcs_ir::op_list!(pub SHARD_OPS);

/// `shard.shard` costs nothing (the `view` kernel): its result is its operand.
pub static SHARD_COST: CostFn = CostFn(|op| Ok(Rule::new(op.key(), op.dims(0)?.clone(), vec![], op.esize(0)?).as_view()));

/// The dynamic operands of a `shard.sharding` split per its `operandSegmentSizes`:
/// (sharded dims offsets, halo sizes); `None` if the segments do not fit the operands.
pub(crate) fn sharding_operand_groups(ctx: &Context, attrs: Attr, operands: &[Value]) -> Option<(Vec<Value>, Vec<Value>)> {
    let seg: Vec<i128> = match ctx.dict_get(attrs, "operandSegmentSizes") {
        None => vec![0, 0],
        Some(a) => ctx.as_dense_ints(a)?,
    };
    if seg.len() != 2 || seg.iter().any(|&s| s < 0) || seg[0] + seg[1] != operands.len() as i128 {
        return None;
    }
    let (offsets, halos) = operands.split_at(seg[0] as usize);
    Some((offsets.to_vec(), halos.to_vec()))
}

impl ShardingOp {
    /// The `?` values of `sharded_dims_offsets`.
    pub fn dynamic_sharded_dims_offsets(self, ctx: &Context, body: &Body) -> Vec<Value> {
        let ops: Vec<Value> = body.operands(self.0).collect();
        sharding_operand_groups(ctx, body.attrs(self.0), &ops).map(|g| g.0).unwrap_or_default()
    }
    /// The `?` values of `halo_sizes`.
    pub fn dynamic_halo_sizes(self, ctx: &Context, body: &Body) -> Vec<Value> {
        let ops: Vec<Value> = body.operands(self.0).collect();
        sharding_operand_groups(ctx, body.attrs(self.0), &ops).map(|g| g.1).unwrap_or_default()
    }
}

pub static SHARD_DIALECT: DialectDef = DialectDef {
    name: "shard",
    summary: "Device grids, shardings and collectives (MLIR's `shard` dialect)",
    description: "The dialect of upstream MLIR 22 (`mlir-opt` knows it), with its syntax, verifiers and \
result names. A `shard.grid` symbol names a grid of devices; `shard.sharding` makes a \
`!shard.sharding` value (which grid axes split which tensor dims) and `shard.shard` annotates a \
tensor with one. `auto-shard` writes these annotations; `shard-partition` turns an annotated \
function into the program each device runs, with the collectives (`all_gather`, `all_reduce`, \
`reduce_scatter`, `all_to_all`, `all_slice`, `broadcast`) and device queries \
(`process_multi_index`, `process_linear_index`, `grid_shape`). Annotations are identities for \
the interpreter, the LLVM backend and the cost model, so annotated programs run unchanged on one \
device; partitioned ones run on every device of a grid (`interp::spmd::run_spmd`). Axis names are \
the discardable attribute `xcs.axes` of the grid.",
    ops: xcs_ir::opdef::OpList::Collected(&SHARD_OPS),
    types: &[TypeDef {
        mnemonic: "sharding",
        summary: "sharding definition",
        description: "The value of a `shard.sharding` op: how a tensor is split over a grid.",
        params: None,
    }],
    attrs: &[
        AttrDef {
            mnemonic: "axisarray",
            summary: "The split axes of a sharding, `#shard<axisarray[[0], []]>`",
            description: "One list of grid axes per tensor dim (written `split_axes = [[0], []]` in \
`shard.sharding`).",
            params: Some(attrs::axisarray_params),
        },
        AttrDef {
            mnemonic: "partial",
            summary: "The reduction of a collective, `#shard<partial max>`",
            description: "One of `sum`, `max`, `min`, `product`, `average`, `bitwise_and`, `bitwise_or`, \
`bitwise_xor`, `generic` (written `reduction = max`).",
            params: Some(attrs::partial_params),
        },
    ],
    materialize_constant: None,
};

#[cfg(test)]
mod tests;
