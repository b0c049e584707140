//! The batching-rule interface of `vmap-batch` (JAX's batching rules, `BatchingRule` per op):
//! how an op is rebuilt when one of its operands carries a leading batch dim. An op declares
//! its rule (`interfaces: [dyn BatchingRule => &batching::MATMUL]`); the pass hands the rule a
//! [`Batcher`] (the body, the batched values, the batch size, helpers that build ops before
//! the op being batched) and the op's operands as [`BatchedValue`]s.
//!
//! The convention every rule keeps: a batched value has type `[batch] ++ T`, where `T` is the
//! type of the value it replaces (the batch dim always leads); an unbatched value is the same
//! for every element and keeps its type. A rule that cannot batch an op returns
//! [`Unbatchable`]; the pass then runs the whole map element by element (`xcs.parallel_map`),
//! which is always correct. An op without the interface is unbatchable when an operand is
//! batched. `docs/vmap-batch.md` lists the rules.

use smallvec::SmallVec;
use xcs_ir::{Attr, Body, Context, Op, OpDef, OpName, Type, TypeKind, Value};

/// Why an op (and so the map holding it) cannot be batched: the reason shown in the pass's
/// remarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unbatchable(pub String);

impl Unbatchable {
    pub fn new(message: impl Into<String>) -> Self {
        Unbatchable(message.into())
    }
}

/// The result of a rule or of a [`Batcher`] helper.
pub type BatchResult<T> = Result<T, Unbatchable>;

/// The results of a rule: one per result of the op (most ops have one).
pub type BatchedResults = SmallVec<[BatchedValue; 1]>;

/// A value of the batched program and whether it carries the leading batch dim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BatchedValue {
    pub value: Value,
    pub batched: bool,
}

impl BatchedValue {
    /// A value with the leading batch dim.
    pub fn batched(value: Value) -> Self {
        BatchedValue { value, batched: true }
    }
}

/// The batched function a call is redirected to: its symbol and its result types, each with
/// whether it is batched (a result that does not depend on batched arguments stays unbatched).
#[derive(Clone, Debug)]
pub struct CallTarget {
    pub callee: String,
    pub results: Vec<(Type, bool)>,
}

/// How an op is rebuilt when an operand carries a leading batch dim.
pub trait BatchingRule: Sync {
    /// Builds (with `b`, before `op`) the batched computation of `op`, whose operands are
    /// `operands` in the batched program (at least one of them batched), and returns the
    /// batched program's value of each of `op`'s results. `op` itself is left alone (the pass
    /// erases it).
    fn batch(&self, b: &mut dyn Batcher<'_>, op: Op, operands: &[BatchedValue]) -> BatchResult<BatchedResults>;
}
xcs_ir::op_interface!(dyn BatchingRule, "batching-rule");

/// A rule that is a plain function (what the dialects declare).
pub struct RuleFn(pub fn(&mut dyn Batcher<'_>, Op, &[BatchedValue]) -> BatchResult<BatchedResults>);

impl BatchingRule for RuleFn {
    fn batch(&self, b: &mut dyn Batcher<'_>, op: Op, operands: &[BatchedValue]) -> BatchResult<BatchedResults> {
        (self.0)(b, op, operands)
    }
}

/// The op's batching rule, if it has one (an array index, see `xcs_ir::interfaces`).
#[inline]
pub fn batching_rule(ctx: &Context, name: OpName) -> Option<&'static dyn BatchingRule> {
    ctx.interface::<dyn BatchingRule>(name)
}

/// True if op `name` has a batching rule.
pub fn has_batching_rule(ctx: &Context, name: OpName) -> bool {
    batching_rule(ctx, name).is_some()
}

/// What a rule works with: implemented by `vmap-batch` for the op being batched. Every op it
/// builds goes right before that op, with its location, and is checked against the op's
/// declaration and type inference (a failure is [`Unbatchable`]).
pub trait Batcher<'c> {
    /// The context.
    fn ctx(&self) -> &'c Context;
    /// The body being rewritten (the op being batched and the values of the batched program).
    fn body(&self) -> &Body;
    /// The number of elements of the batch (`xcs_ir::DYNAMIC` when unknown).
    fn batch_size(&self) -> i64;

    /// Builds op `def` with explicit result types.
    fn build(
        &mut self,
        def: &'static OpDef,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, Attr)],
    ) -> BatchResult<Op>;
    /// `tensor.transpose` of `v` by `perm` (`v` itself for the identity).
    fn transpose(&mut self, v: Value, perm: &[i64]) -> BatchResult<Value>;
    /// `tensor.cast` of `v` to `ty` (`v` itself when it has that type).
    fn cast(&mut self, v: Value, ty: Type) -> BatchResult<Value>;
    /// `tensor.reshape` of `v` to `shape` (`v` itself when it has that shape); unbatchable when
    /// `shape` has two dynamic dims (the run time infers only one).
    fn reshape(&mut self, v: Value, shape: &[i64]) -> BatchResult<Value>;
    /// The batched value of an unbatched `v`: every element sees `v` (`tensor.broadcast_to`,
    /// needs a static batch size).
    fn broadcast_batch(&mut self, v: Value) -> BatchResult<Value>;
    /// A `tensor.constant` of `ty` with integer elements `values` (one value: a splat).
    fn int_constant(&mut self, ty: Type, values: &[i64]) -> BatchResult<Value>;
    /// A splat float `tensor.constant` of `ty` (a static shape).
    fn float_splat(&mut self, ty: Type, value: f64) -> BatchResult<Value>;
    /// The function to call instead of `callee` when the arguments have `arg_types` (the
    /// batched ones, marked in `batched`, with the leading batch dim): a batched clone of it.
    fn batched_call(&mut self, callee: &str, arg_types: &[Type], batched: &[bool]) -> BatchResult<CallTarget>;

    // ------------------------------------------------------------------ provided

    /// [`Batcher::build`] of an op with one result; returns it.
    fn build1(
        &mut self,
        def: &'static OpDef,
        operands: &[Value],
        result: Type,
        attrs: &[(&str, Attr)],
    ) -> BatchResult<Value> {
        let op = self.build(def, operands, &[result], attrs)?;
        Ok(self.body().result(op, 0))
    }

    /// `op`'s attributes with those named in `set` replaced (or added).
    fn attrs_with<'a>(&self, op: Op, set: &[(&'a str, Attr)]) -> SmallVec<[(&'a str, Attr); 4]>
    where
        'c: 'a,
    {
        let ctx: &'c Context = self.ctx();
        let entries = ctx.dict_entries(self.body().attrs(op));
        // sized once (a filtered iterator's `collect` grows the vector entry by entry)
        let mut out: SmallVec<[(&'a str, Attr); 4]> = SmallVec::with_capacity(entries.len() + set.len());
        for &(k, v) in entries.iter() {
            let k = ctx.str(k);
            if !set.iter().any(|&(s, _)| s == k) {
                out.push((k, v));
            }
        }
        out.extend_from_slice(set);
        out
    }

    /// `[batch] ++ t`.
    fn batched_type(&self, t: Type) -> BatchResult<Type> {
        let ctx = self.ctx();
        let (mut shape, elem) = shape_and_elem(ctx, t)?;
        shape.insert(0, self.batch_size());
        Ok(ctx.tensor_type(&shape, elem))
    }

    /// The shape and element type `v` has for one element (without the batch dim).
    fn unbatched_shape(&self, v: BatchedValue) -> BatchResult<(Vec<i64>, Type)> {
        let (mut shape, elem) = shape_and_elem(self.ctx(), self.body().value_type(v.value))?;
        if v.batched {
            if shape.is_empty() {
                return Err(Unbatchable::new("internal: a batched value of rank 0"));
            }
            shape.remove(0);
        }
        Ok((shape, elem))
    }

    /// A batched `v` whose unbatched rank is below `rank` gets size-1 dims after the batch dim,
    /// so that numpy broadcasting (which aligns shapes on the right) keeps its batch dim in
    /// front; an unbatched value is returned as it is (it broadcasts against the inner dims).
    fn pad(&mut self, v: BatchedValue, rank: usize) -> BatchResult<Value> {
        if !v.batched {
            return Ok(v.value);
        }
        let (s, _) = self.unbatched_shape(v)?;
        if s.len() >= rank {
            return Ok(v.value);
        }
        let mut shape = vec![self.batch_size()];
        shape.extend(std::iter::repeat_n(1, rank - s.len()));
        shape.extend(&s);
        self.reshape(v.value, &shape)
    }
}

/// The shape and element type of a ranked tensor type without encoding (the only values that
/// can carry a batch dim).
pub fn shape_and_elem(ctx: &Context, t: Type) -> BatchResult<(Vec<i64>, Type)> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor {
            shape,
            elem,
            encoding: None,
        } => Ok((shape.to_vec(), *elem)),
        _ => Err(Unbatchable(format!(
            "a value of type '{}' cannot carry a batch dimension",
            xcs_ir::printer::type_to_string(ctx, t)
        ))),
    }
}

/// The permutation that moves dim `from` to position `to` of a rank-`rank` tensor, keeping
/// the order of the other dims.
pub fn move_dim_perm(rank: usize, from: usize, to: usize) -> Vec<i64> {
    let mut rest: Vec<i64> = (0..rank as i64).filter(|&d| d != from as i64).collect();
    rest.insert(to, from as i64);
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_dim_perm_keeps_the_other_dims_in_order() {
        assert_eq!(move_dim_perm(3, 2, 0), vec![2, 0, 1]);
        assert_eq!(move_dim_perm(3, 0, 2), vec![1, 2, 0]);
        assert_eq!(move_dim_perm(4, 1, 1), vec![0, 1, 2, 3]);
        assert_eq!(move_dim_perm(4, 3, 1), vec![0, 3, 1, 2]);
    }
}
