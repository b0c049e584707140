//! The local form of the tensor ops whose split reductions are not their own partial form
//! (`crate::interfaces::partition::SplitReduction`, for `shard-partition`): a `mean` whose
//! reduced dims are split computes a local `sum`; once the collective has combined the sums,
//! the value is divided by the whole count. This matches the cost model: `mean` reduces into a
//! pending sum and divides after resolution (`shard-cost-model.md`, section 1).

use xcs_ir::{Body, Builder, Context, Diagnostic, Op, Value};

use crate::interfaces::partition::SplitReduction;
use crate::interp::{tensor_to_attr, ElemType, Tensor};
use crate::shape::ranked;

/// `tensor.reduce`: `mean` becomes `sum` and a division by the count; the other kinds are
/// their own partial form.
pub static REDUCE: ReducePartition = ReducePartition;

pub struct ReducePartition;

impl SplitReduction for ReducePartition {
    fn local_part(&self, ctx: &Context, body: &mut Body, op: Op) -> Result<bool, String> {
        let kind = body
            .attr(ctx, op, "kind")
            .and_then(|a| ctx.as_str(a))
            .ok_or("missing 'kind'")?;
        if kind != "mean" {
            return Ok(false);
        }
        body.set_attr(ctx, op, "kind", ctx.str_attr("sum"));
        Ok(true)
    }

    fn finish(&self, b: &mut Builder<'_>, combined: Value, count: i64) -> Result<Value, Diagnostic> {
        let ty = b.body.value_type(combined);
        let elem = ranked(b.ctx, ty)
            .and_then(|(_, e)| ElemType::from_type(b.ctx, e))
            .ok_or_else(|| Diagnostic::error(b.loc(), "the mean of a split reduction must be a tensor of numbers"))?;
        let divisor = Tensor::from_f64s(elem, &[], &[count as f64]).map_err(|e| Diagnostic::error(b.loc(), e))?;
        let divisor = super::constant(b, tensor_to_attr(b.ctx, &divisor))?;
        super::div(b, combined, divisor)
    }
}
