//! The [`Translator`] of `vmap-batch`: rewrites the ops of one block (an `xcs.vmap` body, or the
//! body of a function being cloned for batched calls) so that every value marked batched carries
//! one extra LEADING dimension of size `batch`. An op with a batched operand is rebuilt, right
//! before it, by its batching rule — the `dyn BatchingRule` its declaration provides
//! (`xcs_dialects::interfaces::batching`), found in O(1) from the op's name — through an
//! [`OpBatcher`], this pass's implementation of the rules' `Batcher`; the old op is erased later
//! by the caller. An op whose operands are all unbatched computes the same value for every
//! element and is kept as it is (the caller hoists it; tensor ops and `shard.sharding`). An op
//! without a rule makes the block
//! [`Unbatchable`]; the caller then calls [`Translator::rollback`], which leaves the IR as it was.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xcs_dialects::func::CallOp;
use xcs_dialects::interfaces::batching::{
    batching_rule, shape_and_elem, BatchResult, BatchedValue, Batcher, CallTarget, Unbatchable,
};
use xcs_dialects::shard::ShardingOp;
use xcs_dialects::tensor::{BroadcastToOp, CastOp, ConstantOp, ReshapeOp, TransposeOp, TENSOR_DIALECT};
use xcs_ir::attrs::{float_to_bits, write_int, DenseData};
use xcs_ir::{Attr, AttrKind, Body, Builder, Context, Op, OpDef, Type, Value, DYNAMIC};

use crate::util;

/// A call with batched arguments: the callee, the argument types (the batched ones, marked in
/// `batched`, with the leading batch dim of size `batch`).
#[derive(Clone, Copy)]
pub struct BatchedCall<'a> {
    pub callee: &'a str,
    pub arg_types: &'a [Type],
    pub batched: &'a [bool],
    pub batch: i64,
}

/// What the translator needs to know about the functions a block calls.
pub trait CallBatcher {
    /// The function to call instead of the callee of `call`.
    fn batched_call(&mut self, call: BatchedCall<'_>) -> BatchResult<CallTarget>;
    /// True if `callee` is a function of pure tensor ops, so that calling it once for the whole
    /// batch (its arguments being unbatched) is the same as calling it per element.
    fn is_pure_tensor(&mut self, callee: &str) -> bool;
}

/// True if `op` is a registered op of the `tensor` dialect (its name is `tensor.<mnemonic>`;
/// compared without splitting the name: this runs for every op of every map).
pub fn is_tensor_op(ctx: &Context, body: &Body, op: Op) -> bool {
    util::def(ctx, body, op).is_some_and(is_tensor_def)
}

/// True if `def` declares an op of the `tensor` dialect (for a caller that has looked the
/// definition up already).
pub fn is_tensor_def(def: &OpDef) -> bool {
    let dialect = TENSOR_DIALECT.name;
    def.name.as_bytes().get(dialect.len()) == Some(&b'.') && def.name.starts_with(dialect)
}

/// Rewrites the ops of one block into batched ops. See the module docs.
pub struct Translator<'c> {
    ctx: &'c Context,
    batch: i64,
    map: FxHashMap<Value, BatchedValue>,
    /// Ops built by the rules, in creation order.
    created: Vec<Op>,
    /// Old ops rebuilt by a rule, in block order (the caller erases them).
    replaced: Vec<Op>,
    replaced_set: FxHashSet<Op>,
    /// Operands of kept ops redirected to their new values: (op, operand index, old value).
    remapped: Vec<(Op, usize, Value)>,
}

impl<'c> Translator<'c> {
    /// A translator for a batch of `batch` elements (`DYNAMIC` when unknown).
    pub fn new(ctx: &'c Context, batch: i64) -> Self {
        Translator {
            ctx,
            batch,
            map: FxHashMap::default(),
            created: Vec::new(),
            replaced: Vec::new(),
            replaced_set: FxHashSet::default(),
            remapped: Vec::new(),
        }
    }

    /// Uses `to` wherever the block uses `from`.
    pub fn bind(&mut self, from: Value, to: BatchedValue) {
        self.map.insert(from, to);
    }
    /// The batched program's value for `v` (values not bound are themselves, unbatched).
    pub fn get(&self, v: Value) -> BatchedValue {
        self.map.get(&v).copied().unwrap_or(BatchedValue {
            value: v,
            batched: false,
        })
    }
    /// The old ops that a rule rebuilt, in block order.
    pub fn replaced(&self) -> &[Op] {
        &self.replaced
    }
    pub fn is_replaced(&self, op: Op) -> bool {
        self.replaced_set.contains(&op)
    }

    /// The [`Batcher`] that builds ops right before `at` (with its location) in `body`.
    pub fn at<'t>(&'t mut self, body: &'t mut Body, calls: &'t mut dyn CallBatcher, at: Op) -> OpBatcher<'t, 'c> {
        OpBatcher {
            tx: self,
            body,
            calls,
            at,
        }
    }

    /// Undoes everything: restores redirected operands and erases the built ops.
    pub fn rollback(&mut self, body: &mut Body) {
        for &(op, i, old) in self.remapped.iter().rev() {
            if body.contains_op(op) {
                body.set_operand(op, i, old);
            }
        }
        for &op in self.created.iter().rev() {
            if body.contains_op(op) {
                body.erase_op(op);
            }
        }
        self.created.clear();
        self.remapped.clear();
        self.replaced.clear();
        self.replaced_set.clear();
        self.map.clear();
    }

    /// Translates one op of the block (not its terminator): rebuilds it by its rule when an
    /// operand is batched, keeps it otherwise.
    pub fn translate(&mut self, body: &mut Body, op: Op, calls: &mut dyn CallBatcher) -> BatchResult<()> {
        let ctx = self.ctx;
        let ins: SmallVec<[BatchedValue; 4]> = body.operands(op).map(|v| self.get(v)).collect();
        if !ins.iter().any(|b| b.batched) {
            return self.keep_unbatched(body, op, &ins, calls);
        }
        let name = body.op_name(op);
        let Some(rule) = batching_rule(ctx, name) else {
            return Err(Unbatchable(format!("no batching rule for '{}'", ctx.op_name_str(name))));
        };
        let outs = rule.batch(&mut self.at(body, calls, op), op, &ins)?;
        if outs.len() != body.num_results(op) {
            return Err(Unbatchable(format!(
                "internal: the rule of '{}' gave {} results",
                ctx.op_name_str(name),
                outs.len()
            )));
        }
        for (i, bv) in outs.into_iter().enumerate() {
            let r = body.result(op, i);
            self.map.insert(r, bv);
        }
        self.replaced.push(op);
        self.replaced_set.insert(op);
        Ok(())
    }

    /// An op without batched operands computes the same value for every element: it is kept
    /// (computed once) if that is unobservable — an effect-free tensor op, or a call of a pure
    /// tensor function — with its operands redirected to their values in the batched program.
    fn keep_unbatched(
        &mut self,
        body: &mut Body,
        op: Op,
        ins: &[BatchedValue],
        calls: &mut dyn CallBatcher,
    ) -> BatchResult<()> {
        let ctx = self.ctx;
        let keep = if CallOp::cast(ctx, body, op).is_some() {
            let callee = body
                .attr(ctx, op, "callee")
                .and_then(|a| ctx.as_symbol(a))
                .unwrap_or("");
            if !calls.is_pure_tensor(callee) {
                return Err(Unbatchable(format!(
                    "it calls @{callee}, which is not a function of tensor ops"
                )));
            }
            true
        } else {
            // a `shard.sharding` describes the unbatched values; it is kept for their annotations
            let sharding = ShardingOp::cast(ctx, body, op).is_some();
            (is_tensor_op(ctx, body, op) || sharding) && util::is_memory_effect_free(ctx, body, op)
        };
        // (an op with regions that are not isolated could use block arguments inside)
        if !keep || !body.regions(op).is_empty() {
            return Err(Unbatchable(format!(
                "'{}' is not a tensor op",
                ctx.op_name_str(body.op_name(op))
            )));
        }
        for (i, bv) in ins.iter().enumerate() {
            let old = body.operand(op, i);
            if bv.value != old {
                self.remapped.push((op, i, old));
                body.set_operand(op, i, bv.value);
            }
        }
        Ok(())
    }
}

/// The [`Batcher`] a rule gets: the translator, the body, the module's functions (for batched
/// calls) and the op before which new ops go (with its location).
pub struct OpBatcher<'t, 'c> {
    tx: &'t mut Translator<'c>,
    body: &'t mut Body,
    calls: &'t mut dyn CallBatcher,
    at: Op,
}

impl<'c> Batcher<'c> for OpBatcher<'_, 'c> {
    fn ctx(&self) -> &'c Context {
        self.tx.ctx
    }
    fn body(&self) -> &Body {
        self.body
    }
    fn batch_size(&self) -> i64 {
        self.tx.batch
    }

    fn build(
        &mut self,
        def: &'static OpDef,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, Attr)],
    ) -> BatchResult<Op> {
        let loc = self.body.op_loc(self.at);
        let mut b = Builder::before(self.tx.ctx, self.body, self.at);
        b.set_loc(loc);
        let op = b
            .create_with_types(def.name, operands, results, attrs)
            .map_err(|d| Unbatchable(format!("internal: cannot build the batched op: {}", d.message)))?;
        self.tx.created.push(op);
        Ok(op)
    }

    fn transpose(&mut self, v: Value, perm: &[i64]) -> BatchResult<Value> {
        if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
            return Ok(v);
        }
        let ctx = self.tx.ctx;
        let (s, e) = shape_and_elem(ctx, self.body.value_type(v))?;
        let out: Vec<i64> = perm.iter().map(|&p| s[p as usize]).collect();
        let ty = ctx.tensor_type(&out, e);
        self.build1(TransposeOp::DEF, &[v], ty, &[("perm", ctx.dense_i64_array(perm))])
    }

    fn cast(&mut self, v: Value, ty: Type) -> BatchResult<Value> {
        if self.body.value_type(v) == ty {
            return Ok(v);
        }
        self.build1(CastOp::DEF, &[v], ty, &[])
    }

    fn reshape(&mut self, v: Value, shape: &[i64]) -> BatchResult<Value> {
        let (s, e) = shape_and_elem(self.tx.ctx, self.body.value_type(v))?;
        if s == shape {
            return Ok(v);
        }
        if shape.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
            return Err(Unbatchable::new(
                "the batched program would reshape to a shape with two dynamic dims (a dynamic batch size and a dynamic dim)",
            ));
        }
        let ty = self.tx.ctx.tensor_type(shape, e);
        self.build1(ReshapeOp::DEF, &[v], ty, &[])
    }

    fn broadcast_batch(&mut self, v: Value) -> BatchResult<Value> {
        if self.tx.batch == DYNAMIC {
            return Err(Unbatchable::new(
                "an unbatched value would have to be broadcast to a dynamic batch size",
            ));
        }
        let ty = self.batched_type(self.body.value_type(v))?;
        self.build1(BroadcastToOp::DEF, &[v], ty, &[])
    }

    fn int_constant(&mut self, ty: Type, values: &[i64]) -> BatchResult<Value> {
        let ctx = self.tx.ctx;
        let (_, e) = shape_and_elem(ctx, ty)?;
        let n = ctx
            .int_width(e)
            .ok_or_else(|| Unbatchable::new("internal: not an integer type"))?
            .div_ceil(8) as usize;
        let mut bytes = Vec::with_capacity(n * values.len());
        for &v in values {
            write_int(&mut bytes, v as i128, n);
        }
        let data = if values.len() == 1 {
            DenseData::Splat(bytes.into())
        } else {
            DenseData::Elements(bytes.into())
        };
        let value = ctx.attr(AttrKind::DenseElements { ty, data });
        self.build1(ConstantOp::DEF, &[], ty, &[("value", value)])
    }

    fn float_splat(&mut self, ty: Type, value: f64) -> BatchResult<Value> {
        let ctx = self.tx.ctx;
        let (s, e) = shape_and_elem(ctx, ty)?;
        if s.contains(&DYNAMIC) {
            return Err(Unbatchable::new("a constant of a dynamic shape would be needed"));
        }
        let kind = ctx
            .float_kind(e)
            .ok_or_else(|| Unbatchable::new("internal: not a float type"))?;
        let n = xcs_ir::attrs::dense_elem_bytes(ctx, e);
        let bits = float_to_bits(kind, value);
        let data = DenseData::Splat(bits.to_le_bytes()[..n].to_vec().into());
        let value = ctx.attr(AttrKind::DenseElements { ty, data });
        self.build1(ConstantOp::DEF, &[], ty, &[("value", value)])
    }

    fn batched_call(&mut self, callee: &str, arg_types: &[Type], batched: &[bool]) -> BatchResult<CallTarget> {
        let batch = self.tx.batch;
        self.calls.batched_call(BatchedCall { callee, arg_types, batched, batch })
    }
}
