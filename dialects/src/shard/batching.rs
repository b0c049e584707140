//! The batching rule of `shard.shard` (for `vmap-batch`): the batched value gets the same
//! annotation with its leading batch dim not split, i.e. a new `shard.sharding` whose
//! `split_axes` start with `[]` (the grid axes keep splitting the dims they split).

use smallvec::smallvec;

use crate::interfaces::batching::{BatchResult, BatchedResults, BatchedValue, Batcher, RuleFn, Unbatchable};

use super::attrs::{i32_array_attr, split_axes_attr};
use super::{sharding_type, Sharding, ShardOp, ShardingOp};

pub static SHARD: RuleFn = RuleFn(batch_shard);

fn batch_shard(b: &mut dyn Batcher<'_>, op: xcs_ir::Op, ins: &[BatchedValue]) -> BatchResult<BatchedResults> {
    let ctx = b.ctx();
    let [x, s] = ins else {
        return Err(Unbatchable::new("a shard.shard needs two operands"));
    };
    if s.batched || !x.batched {
        return Err(Unbatchable::new("only the annotated tensor of a shard.shard can be batched"));
    }
    let sharding = Sharding::of_value(ctx, b.body(), s.value)
        .ok_or_else(|| Unbatchable::new("the sharding of a shard.shard is not made by a shard.sharding"))?;
    if !sharding.halo_sizes.is_empty() || !sharding.sharded_dims_offsets.is_empty() {
        return Err(Unbatchable::new("a sharding with halo sizes or shard offsets cannot take a batch dim"));
    }
    let mut axes = vec![Vec::new()];
    axes.extend(sharding.split_axes.iter().cloned());
    let attrs = [
        ("grid", ctx.symbol_ref(&sharding.grid)),
        ("split_axes", split_axes_attr(ctx, &axes)),
        ("static_halo_sizes", ctx.dense_i64_array(&[])),
        ("static_sharded_dims_offsets", ctx.dense_i64_array(&[])),
        ("operandSegmentSizes", i32_array_attr(ctx, &[0, 0])),
    ];
    let batched_sharding = b.build1(ShardingOp::DEF, &[], sharding_type(ctx), &attrs)?;
    let ty = b.body().value_type(x.value);
    let keep = b.attrs_with(op, &[]);
    let out = b.build1(ShardOp::DEF, &[x.value, batched_sharding], ty, &keep)?;
    Ok(smallvec![BatchedValue::batched(out)])
}
