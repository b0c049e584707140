//! The per-op batching rules of `vmap-batch`. A [`Translator`] rewrites the ops of one block (an
//! `xcs.vmap` body, or the body of a function being cloned for batched calls) so that every value
//! marked batched carries one extra LEADING dimension of size `batch`: an op with a batched
//! operand is rebuilt by its rule right before it (the old op is erased later by the caller); an
//! op whose operands are all unbatched computes the same value for every element and is kept as
//! it is (the caller hoists it). An op without a rule makes the block [`Unbatchable`]; the
//! caller then calls [`Translator::rollback`], which leaves the IR as it was.
//!
//! Every value a rule builds has exactly the type `[batch] ++ <the old unbatched type>` (the
//! builder checks it against the op's type inference), so the batch dimension never moves: each
//! rule shifts the op's axes by one and pads batched operands of lower rank with size-1 dims right
//! after the batch dim, because numpy broadcasting aligns shapes on the right.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xcs_dialects::shape::norm_axis;
use xcs_dialects::tensor::{parse_einsum, reduce_axes};
use xcs_ir::attrs::{float_to_bits, write_int, DenseData};
use xcs_ir::{Attr, AttrKind, Body, Builder, Context, Op, Type, TypeKind, Value, DYNAMIC};

use crate::util;

/// Why a block cannot be batched (the reason shown in remarks); the caller falls back to
/// `xcs.parallel_map`, which is always correct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unbatchable(pub String);

impl Unbatchable {
    fn new(m: impl Into<String>) -> Self {
        Unbatchable(m.into())
    }
}

type R<T> = Result<T, Unbatchable>;

/// A value of the batched program and whether it carries the leading batch dim.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BVal {
    pub v: Value,
    pub batched: bool,
}

/// The batched function a call is redirected to: its symbol and its result types, each with
/// whether it is batched (a result that does not depend on batched arguments stays unbatched).
#[derive(Clone, Debug)]
pub struct CallTarget {
    pub callee: String,
    pub results: Vec<(Type, bool)>,
}

/// What the translator needs to know about the functions a block calls.
pub trait CallBatcher {
    /// The function to call instead of `callee` when the arguments have `arg_types` (the batched
    /// ones, marked in `batched`, with the leading batch dim of size `batch`).
    fn batched_call(&mut self, callee: &str, arg_types: &[Type], batched: &[bool], batch: i64) -> R<CallTarget>;
    /// True if `callee` is a function of pure tensor ops, so that calling it once for the whole
    /// batch (its arguments being unbatched) is the same as calling it per element.
    fn is_pure_tensor(&mut self, callee: &str) -> bool;
}

/// Elementwise ops with numpy broadcasting (operands aligned on the right).
const NARY: &[&str] = &[
    "tensor.add",
    "tensor.sub",
    "tensor.mul",
    "tensor.div",
    "tensor.max",
    "tensor.min",
    "tensor.pow",
    "tensor.cmp",
    "tensor.select",
];
/// Ops applied to each element independently, whose result has the operand's shape.
const UNARY: &[&str] = &[
    "tensor.neg",
    "tensor.abs",
    "tensor.relu",
    "tensor.exp",
    "tensor.log",
    "tensor.tanh",
    "tensor.sigmoid",
    "tensor.silu",
    "tensor.sqrt",
    "tensor.rsqrt",
    "tensor.gelu",
    "tensor.cast",
];

/// True if `name` has a batching rule (for docs and tests: every tensor op but `tensor.fused`,
/// `tensor.yield` and `tensor.constant`, which never has a batched operand).
pub fn has_rule(name: &str) -> bool {
    NARY.contains(&name)
        || UNARY.contains(&name)
        || matches!(
            name,
            "tensor.matmul"
                | "tensor.einsum"
                | "tensor.reduce"
                | "tensor.softmax"
                | "tensor.layer_norm"
                | "tensor.transpose"
                | "tensor.reshape"
                | "tensor.broadcast_to"
                | "tensor.slice"
                | "tensor.concat"
                | "tensor.gather"
                | "func.call"
        )
}

/// Shape and element type of a ranked tensor type without encoding.
fn parts(ctx: &Context, t: Type) -> R<(Vec<i64>, Type)> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, elem, encoding: None } => Ok((shape.to_vec(), *elem)),
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

/// Rewrites the ops of one block into batched ops. See the module docs.
pub struct Translator<'c> {
    ctx: &'c Context,
    batch: i64,
    map: FxHashMap<Value, BVal>,
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
    pub fn bind(&mut self, from: Value, to: BVal) {
        self.map.insert(from, to);
    }
    /// The batched program's value for `v` (values not bound are themselves, unbatched).
    pub fn get(&self, v: Value) -> BVal {
        self.map.get(&v).copied().unwrap_or(BVal { v, batched: false })
    }
    pub fn batch(&self) -> i64 {
        self.batch
    }
    /// The old ops that a rule rebuilt, in block order.
    pub fn replaced(&self) -> &[Op] {
        &self.replaced
    }
    pub fn is_replaced(&self, op: Op) -> bool {
        self.replaced_set.contains(&op)
    }
    /// The number of ops the rules built.
    pub fn num_created(&self) -> usize {
        self.created.len()
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

    /// `[batch] ++ t`.
    pub fn batched_type(&self, t: Type) -> R<Type> {
        let (mut s, e) = parts(self.ctx, t)?;
        s.insert(0, self.batch);
        Ok(self.ctx.tensor_type(&s, e))
    }

    /// The unbatched shape and element type of a value of the batched program.
    fn inner(&self, body: &Body, bv: BVal) -> R<(Vec<i64>, Type)> {
        let (mut s, e) = parts(self.ctx, body.value_type(bv.v))?;
        if bv.batched {
            if s.is_empty() {
                return Err(Unbatchable::new("internal: a batched value of rank 0"));
            }
            s.remove(0);
        }
        Ok((s, e))
    }

    // ------------------------------------------------------------------ building

    /// Builds op `name` right before `at` (with `at`'s location), checked by the builder against
    /// the op's declaration and type inference; a failure is [`Unbatchable`].
    fn build(
        &mut self,
        body: &mut Body,
        at: Op,
        name: &str,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, Attr)],
    ) -> R<Op> {
        let loc = body.op_loc(at);
        let mut b = Builder::before(self.ctx, body, at);
        b.set_loc(loc);
        let op = b
            .create_with_types(name, operands, results, attrs)
            .map_err(|d| Unbatchable(format!("internal: cannot build the batched op: {}", d.message)))?;
        self.created.push(op);
        Ok(op)
    }

    fn build1(&mut self, body: &mut Body, at: Op, name: &str, operands: &[Value], result: Type, attrs: &[(&str, Attr)]) -> R<Value> {
        let op = self.build(body, at, name, operands, &[result], attrs)?;
        Ok(body.result(op, 0))
    }

    /// `op`'s attributes with some replaced.
    fn attrs_with<'a>(&self, body: &Body, op: Op, set: &[(&'a str, Attr)]) -> Vec<(&'a str, Attr)>
    where
        'c: 'a,
    {
        let ctx: &'a Context = self.ctx;
        let mut out: Vec<(&'a str, Attr)> = ctx
            .dict_entries(body.attrs(op))
            .iter()
            .map(|&(k, v)| (ctx.str(k), v))
            .filter(|(k, _)| !set.iter().any(|(s, _)| s == k))
            .collect();
        out.extend_from_slice(set);
        out
    }

    pub fn transpose(&mut self, body: &mut Body, at: Op, v: Value, perm: &[i64]) -> R<Value> {
        if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
            return Ok(v);
        }
        let (s, e) = parts(self.ctx, body.value_type(v))?;
        let out: Vec<i64> = perm.iter().map(|&p| s[p as usize]).collect();
        let ty = self.ctx.tensor_type(&out, e);
        let perm_attr = self.ctx.dense_i64_array(perm);
        self.build1(body, at, "tensor.transpose", &[v], ty, &[("perm", perm_attr)])
    }

    /// `tensor.cast` of `v` to `ty` (same element type: a change of static information only).
    pub fn cast(&mut self, body: &mut Body, at: Op, v: Value, ty: Type) -> R<Value> {
        if body.value_type(v) == ty {
            return Ok(v);
        }
        self.build1(body, at, "tensor.cast", &[v], ty, &[])
    }

    /// `tensor.reshape` of `v` to `shape`; the interpreter infers at most one `?` dim.
    fn reshape(&mut self, body: &mut Body, at: Op, v: Value, shape: &[i64]) -> R<Value> {
        let (s, e) = parts(self.ctx, body.value_type(v))?;
        if s == shape {
            return Ok(v);
        }
        if shape.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
            return Err(Unbatchable::new(
                "the batched program would reshape to a shape with two dynamic dims (a dynamic batch size and a dynamic dim)",
            ));
        }
        let ty = self.ctx.tensor_type(shape, e);
        self.build1(body, at, "tensor.reshape", &[v], ty, &[])
    }

    /// The batched value of an unbatched `v`: every element sees `v` (`tensor.broadcast_to`).
    pub fn broadcast_batch(&mut self, body: &mut Body, at: Op, v: Value) -> R<Value> {
        if self.batch == DYNAMIC {
            return Err(Unbatchable::new(
                "an unbatched value would have to be broadcast to a dynamic batch size",
            ));
        }
        let ty = self.batched_type(body.value_type(v))?;
        self.build1(body, at, "tensor.broadcast_to", &[v], ty, &[])
    }

    /// A batched `bv` of inner rank below `rank` gets size-1 dims after the batch dim, so that
    /// right-aligned broadcasting keeps its batch dim in front; unbatched values are returned
    /// as they are (they broadcast against the inner dims).
    fn pad(&mut self, body: &mut Body, at: Op, bv: BVal, rank: usize) -> R<Value> {
        if !bv.batched {
            return Ok(bv.v);
        }
        let (s, _) = self.inner(body, bv)?;
        if s.len() >= rank {
            return Ok(bv.v);
        }
        let mut shape = vec![self.batch];
        shape.extend(std::iter::repeat_n(1, rank - s.len()));
        shape.extend(&s);
        self.reshape(body, at, bv.v, &shape)
    }

    /// A `tensor.constant` of `ty` with integer elements `vals` (one value: a splat).
    fn int_const(&mut self, body: &mut Body, at: Op, ty: Type, vals: &[i64]) -> R<Value> {
        let (_, e) = parts(self.ctx, ty)?;
        let n = self.ctx.int_width(e).ok_or_else(|| Unbatchable::new("internal: not an integer type"))?.div_ceil(8) as usize;
        let mut bytes = Vec::with_capacity(n * vals.len());
        for &v in vals {
            write_int(&mut bytes, v as i128, n);
        }
        let data = if vals.len() == 1 { DenseData::Splat(bytes.into()) } else { DenseData::Elements(bytes.into()) };
        let value = self.ctx.attr(AttrKind::DenseElements { ty, data });
        self.build1(body, at, "tensor.constant", &[], ty, &[("value", value)])
    }

    /// A splat float `tensor.constant` of `ty` (static shape).
    fn float_splat(&mut self, body: &mut Body, at: Op, ty: Type, value: f64) -> R<Value> {
        let (s, e) = parts(self.ctx, ty)?;
        if s.contains(&DYNAMIC) {
            return Err(Unbatchable::new("a constant of a dynamic shape would be needed"));
        }
        let kind = self.ctx.float_kind(e).ok_or_else(|| Unbatchable::new("internal: not a float type"))?;
        let n = xcs_ir::attrs::dense_elem_bytes(self.ctx, e);
        let bits = float_to_bits(kind, value);
        let data = DenseData::Splat(bits.to_le_bytes()[..n].to_vec().into());
        let value = self.ctx.attr(AttrKind::DenseElements { ty, data });
        self.build1(body, at, "tensor.constant", &[], ty, &[("value", value)])
    }

    // ------------------------------------------------------------------ translation

    /// Translates one op of the block (not its terminator): rebuilds it by its rule when an
    /// operand is batched, keeps it otherwise.
    pub fn translate(&mut self, body: &mut Body, op: Op, calls: &mut dyn CallBatcher) -> R<()> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(body.op_name(op));
        let ins: SmallVec<[BVal; 4]> = body.operands(op).map(|v| self.get(v)).collect();
        if !ins.iter().any(|b| b.batched) {
            // The same value for every element: computed once, if that is unobservable.
            let keep = if name == "func.call" {
                let callee = body.attr(ctx, op, "callee").and_then(|a| ctx.as_symbol(a)).unwrap_or("");
                if !calls.is_pure_tensor(callee) {
                    return Err(Unbatchable(format!("it calls @{callee}, which is not a function of tensor ops")));
                }
                true
            } else {
                name.starts_with("tensor.") && util::is_memory_effect_free(ctx, body, op)
            };
            // (an op with regions that are not isolated could use block arguments inside)
            if !keep || !body.regions(op).is_empty() {
                return Err(Unbatchable(format!("'{name}' is not a tensor op")));
            }
            for (i, bv) in ins.iter().enumerate() {
                let old = body.operand(op, i);
                if bv.v != old {
                    self.remapped.push((op, i, old));
                    body.set_operand(op, i, bv.v);
                }
            }
            return Ok(());
        }
        let outs = self.rule(body, op, name, &ins, calls)?;
        if outs.len() != body.num_results(op) {
            return Err(Unbatchable(format!("internal: the rule of '{name}' gave {} results", outs.len())));
        }
        for (i, bv) in outs.into_iter().enumerate() {
            let r = body.result(op, i);
            self.map.insert(r, bv);
        }
        self.replaced.push(op);
        self.replaced_set.insert(op);
        Ok(())
    }

    fn rule(&mut self, body: &mut Body, op: Op, name: &str, ins: &[BVal], calls: &mut dyn CallBatcher) -> R<Vec<BVal>> {
        let ctx = self.ctx;
        let batched = |v: Value| BVal { v, batched: true };
        if name == "func.call" {
            return self.call(body, op, ins, calls);
        }
        if body.num_results(op) != 1 || body.num_regions(op) > 0 {
            return Err(Unbatchable(format!("no batching rule for '{name}'")));
        }
        let old_ty = body.result_types(op)[0];
        let out_ty = self.batched_type(old_ty)?;
        let vals = |ins: &[BVal]| -> SmallVec<[Value; 4]> { ins.iter().map(|b| b.v).collect() };
        let i64_of = |key: &str| body.attr(ctx, op, key).and_then(|a| ctx.as_int(a)).map(|v| v as i64);
        let i64s_of = |key: &str| body.attr(ctx, op, key).and_then(|a| ctx.as_i64_array(a));
        let bad_attr = |key: &str| Unbatchable(format!("'{name}' has no valid '{key}' attribute"));

        if UNARY.contains(&name) {
            let attrs = self.attrs_with(body, op, &[]);
            return Ok(vec![batched(self.build1(body, op, name, &vals(ins), out_ty, &attrs)?)]);
        }
        if NARY.contains(&name) {
            let rank = parts(ctx, old_ty)?.0.len();
            let mut operands = SmallVec::<[Value; 4]>::new();
            for &bv in ins {
                operands.push(self.pad(body, op, bv, rank)?);
            }
            let attrs = self.attrs_with(body, op, &[]);
            return Ok(vec![batched(self.build1(body, op, name, &operands, out_ty, &attrs)?)]);
        }
        let v = match name {
            "tensor.matmul" => {
                // Pad the batched operand's batch prefix to the other's, so the batch dim leads
                // after broadcasting; an unbatched operand broadcasts: still one matmul.
                let (la, lc) = (self.inner(body, ins[0])?.0.len(), self.inner(body, ins[1])?.0.len());
                let rank = la.max(lc);
                let a = self.pad(body, op, ins[0], rank)?;
                let c = self.pad(body, op, ins[1], rank)?;
                let attrs = self.attrs_with(body, op, &[]);
                self.build1(body, op, name, &[a, c], out_ty, &attrs)?
            }
            "tensor.einsum" => {
                let eq = body.attr(ctx, op, "equation").and_then(|a| ctx.as_str(a)).ok_or_else(|| bad_attr("equation"))?;
                let e = parse_einsum(eq, ins.len()).map_err(Unbatchable)?;
                let used: FxHashSet<char> = e.inputs.iter().flatten().chain(&e.output).copied().collect();
                let fresh = ('a'..='z')
                    .chain('A'..='Z')
                    .find(|c| !used.contains(c))
                    .ok_or_else(|| Unbatchable::new("the einsum equation uses every label"))?;
                let label = |ls: &[char], b: bool| -> String {
                    let mut s = String::new();
                    if b {
                        s.push(fresh);
                    }
                    s.extend(ls);
                    s
                };
                let lhs: Vec<String> = e.inputs.iter().zip(ins).map(|(ls, bv)| label(ls, bv.batched)).collect();
                let eq2 = format!("{}->{}", lhs.join(","), label(&e.output, true));
                let attrs = self.attrs_with(body, op, &[("equation", ctx.str_attr(&eq2))]);
                self.build1(body, op, name, &vals(ins), out_ty, &attrs)?
            }
            "tensor.reduce" => {
                let rank = self.inner(body, ins[0])?.0.len();
                let axes = reduce_axes(&i64s_of("axes").ok_or_else(|| bad_attr("axes"))?, rank).map_err(Unbatchable)?;
                let shifted: Vec<i64> = axes.iter().map(|&a| a as i64 + 1).collect();
                let attrs = self.attrs_with(body, op, &[("axes", ctx.dense_i64_array(&shifted))]);
                self.build1(body, op, name, &vals(ins), out_ty, &attrs)?
            }
            "tensor.softmax" => {
                let rank = self.inner(body, ins[0])?.0.len();
                let axis = norm_axis(i64_of("axis").ok_or_else(|| bad_attr("axis"))?, rank).map_err(Unbatchable)?;
                let attrs = self.attrs_with(body, op, &[("axis", ctx.i64_attr(axis as i64 + 1))]);
                self.build1(body, op, name, &vals(ins), out_ty, &attrs)?
            }
            "tensor.layer_norm" => self.layer_norm(body, op, ins, out_ty)?,
            "tensor.transpose" => {
                let perm = i64s_of("perm").ok_or_else(|| bad_attr("perm"))?;
                let mut p2 = vec![0i64];
                p2.extend(perm.iter().map(|&p| p + 1));
                let attrs = self.attrs_with(body, op, &[("perm", ctx.dense_i64_array(&p2))]);
                self.build1(body, op, name, &vals(ins), out_ty, &attrs)?
            }
            "tensor.reshape" => {
                // Row-major: each element's block of the batched tensor is contiguous.
                let (s, _) = parts(ctx, out_ty)?;
                if s.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
                    return Err(Unbatchable::new(
                        "a reshape to a dynamic dim with a dynamic batch size cannot be inferred at run time",
                    ));
                }
                let attrs = self.attrs_with(body, op, &[]);
                self.build1(body, op, name, &vals(ins), out_ty, &attrs)?
            }
            "tensor.broadcast_to" => {
                let rank = parts(ctx, old_ty)?.0.len();
                let x = self.pad(body, op, ins[0], rank)?;
                let attrs = self.attrs_with(body, op, &[]);
                self.build1(body, op, name, &[x], out_ty, &attrs)?
            }
            "tensor.slice" => {
                if self.batch == DYNAMIC {
                    return Err(Unbatchable::new("a slice needs a static batch size (its limit)"));
                }
                let get = |k: &str| i64s_of(k).ok_or_else(|| bad_attr(k));
                let (mut start, mut limit, mut stride) = (get("start")?, get("limit")?, get("stride")?);
                start.insert(0, 0);
                limit.insert(0, self.batch);
                stride.insert(0, 1);
                let attrs = self.attrs_with(
                    body,
                    op,
                    &[
                        ("start", ctx.dense_i64_array(&start)),
                        ("limit", ctx.dense_i64_array(&limit)),
                        ("stride", ctx.dense_i64_array(&stride)),
                    ],
                );
                self.build1(body, op, name, &vals(ins), out_ty, &attrs)?
            }
            "tensor.concat" => {
                let rank = self.inner(body, ins[0])?.0.len();
                let axis = norm_axis(i64_of("axis").ok_or_else(|| bad_attr("axis"))?, rank).map_err(Unbatchable)?;
                let mut operands = SmallVec::<[Value; 4]>::new();
                for &bv in ins {
                    operands.push(if bv.batched { bv.v } else { self.broadcast_batch(body, op, bv.v)? });
                }
                let attrs = self.attrs_with(body, op, &[("axis", ctx.i64_attr(axis as i64 + 1))]);
                self.build1(body, op, name, &operands, out_ty, &attrs)?
            }
            "tensor.gather" => self.gather(body, op, ins, out_ty)?,
            _ => return Err(Unbatchable(format!("no batching rule for '{name}'"))),
        };
        Ok(vec![batched(v)])
    }

    /// `func.call` with a batched argument calls the batched clone of the callee.
    fn call(&mut self, body: &mut Body, op: Op, ins: &[BVal], calls: &mut dyn CallBatcher) -> R<Vec<BVal>> {
        let ctx = self.ctx;
        let callee = body
            .attr(ctx, op, "callee")
            .and_then(|a| ctx.as_symbol(a))
            .ok_or_else(|| Unbatchable::new("a call without a callee"))?
            .to_string();
        let types: Vec<Type> = ins.iter().map(|b| body.value_type(b.v)).collect();
        let flags: Vec<bool> = ins.iter().map(|b| b.batched).collect();
        let target = calls.batched_call(&callee, &types, &flags, self.batch)?;
        let result_types: Vec<Type> = target.results.iter().map(|r| r.0).collect();
        let attrs = self.attrs_with(body, op, &[("callee", ctx.symbol_ref(&target.callee))]);
        let operands: SmallVec<[Value; 4]> = ins.iter().map(|b| b.v).collect();
        let new = self.build(body, op, "func.call", &operands, &result_types, &attrs)?;
        Ok(target
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| BVal { v: body.result(new, i), batched: r.1 })
            .collect())
    }

    /// `layer_norm` of a batched `x` with unbatched `gamma` and `beta`: the same op with the
    /// axis shifted. With a batched `gamma` or `beta`, computed exactly as the interpreter does
    /// (in f64, rounded once): `layer_norm(x64, 1, -0.0) * gamma64 + beta64`, cast back.
    fn layer_norm(&mut self, body: &mut Body, op: Op, ins: &[BVal], out_ty: Type) -> R<Value> {
        let ctx = self.ctx;
        let (xs, elem) = self.inner(body, ins[0])?;
        let axis_attr = body.attr(ctx, op, "axis").and_then(|a| ctx.as_int(a)).ok_or_else(|| Unbatchable::new("'tensor.layer_norm' has no valid 'axis' attribute"))?;
        let axis = norm_axis(axis_attr as i64, xs.len()).map_err(Unbatchable)?;
        let shift = |b: bool| axis as i64 + b as i64;
        if !ins[1].batched && !ins[2].batched {
            let attrs = self.attrs_with(body, op, &[("axis", ctx.i64_attr(shift(ins[0].batched)))]);
            return self.build1(body, op, "tensor.layer_norm", &[ins[0].v, ins[1].v, ins[2].v], out_ty, &attrs);
        }
        let f64t = ctx.f64_type();
        let norm_dims = xs[axis..].to_vec();
        let to64 = |this: &mut Self, body: &mut Body, bv: BVal| -> R<BVal> {
            if elem == f64t {
                return Ok(bv);
            }
            let (s, _) = parts(ctx, body.value_type(bv.v))?;
            let v = this.build1(body, op, "tensor.cast", &[bv.v], ctx.tensor_type(&s, f64t), &[])?;
            Ok(BVal { v, batched: bv.batched })
        };
        let x64 = to64(self, body, ins[0])?;
        let g64 = to64(self, body, ins[1])?;
        let b64 = to64(self, body, ins[2])?;
        let param_ty = ctx.tensor_type(&norm_dims, f64t);
        let ones = self.float_splat(body, op, param_ty, 1.0)?;
        let negzero = self.float_splat(body, op, param_ty, -0.0)?;
        let mut n_shape = xs.clone();
        if x64.batched {
            n_shape.insert(0, self.batch);
        }
        let eps = body.attr(ctx, op, "epsilon").ok_or_else(|| Unbatchable::new("'tensor.layer_norm' has no 'epsilon'"))?;
        let n = self.build1(
            body,
            op,
            "tensor.layer_norm",
            &[x64.v, ones, negzero],
            ctx.tensor_type(&n_shape, f64t),
            &[("axis", ctx.i64_attr(shift(x64.batched))), ("epsilon", eps)],
        )?;
        let n = BVal { v: n, batched: x64.batched };
        let mut full = xs.clone();
        full.insert(0, self.batch);
        let full64 = ctx.tensor_type(&full, f64t);
        let rank = xs.len();
        let ew = |this: &mut Self, body: &mut Body, name: &str, a: BVal, b: BVal| -> R<BVal> {
            let (a2, b2) = (this.pad(body, op, a, rank)?, this.pad(body, op, b, rank)?);
            let ty = if a.batched || b.batched { full64 } else { ctx.tensor_type(&xs, f64t) };
            let v = this.build1(body, op, name, &[a2, b2], ty, &[])?;
            Ok(BVal { v, batched: a.batched || b.batched })
        };
        let y = ew(self, body, "tensor.mul", n, g64)?;
        let z = ew(self, body, "tensor.add", y, b64)?;
        if elem == f64t {
            return Ok(z.v);
        }
        self.build1(body, op, "tensor.cast", &[z.v], out_ty, &[])
    }

    /// `gather`: a batched table gathers along `axis + 1`; batched indices give the batch dim
    /// at `axis`, moved to the front; with both batched, the table's batch and `axis` dims are
    /// flattened into one, and element `b`'s indices are offset by `b * size` (an index out of
    /// `[0, size)` becomes -1, so it still fails at run time as it does per element).
    fn gather(&mut self, body: &mut Body, op: Op, ins: &[BVal], out_ty: Type) -> R<Value> {
        let ctx = self.ctx;
        let (t, bi) = (ins[0], ins[1]);
        let (ts, _) = self.inner(body, t)?;
        let (is, ie) = self.inner(body, bi)?;
        let axis_attr = body.attr(ctx, op, "axis").and_then(|a| ctx.as_int(a)).ok_or_else(|| Unbatchable::new("'tensor.gather' has no valid 'axis' attribute"))?;
        let a = norm_axis(axis_attr as i64, ts.len()).map_err(Unbatchable)?;
        let (_, elem) = parts(ctx, out_ty)?;
        if t.batched && !bi.batched {
            let attrs = self.attrs_with(body, op, &[("axis", ctx.i64_attr(a as i64 + 1))]);
            return self.build1(body, op, "tensor.gather", &[t.v, bi.v], out_ty, &attrs);
        }
        if !t.batched {
            // [t[:a], B, i..., t[a+1:]] then the batch dim to the front
            let mut s: Vec<i64> = ts[..a].to_vec();
            s.push(self.batch);
            s.extend(&is);
            s.extend(&ts[a + 1..]);
            let attrs = self.attrs_with(body, op, &[]);
            let g = self.build1(body, op, "tensor.gather", &[t.v, bi.v], ctx.tensor_type(&s, elem), &attrs)?;
            return self.transpose(body, op, g, &move_dim_perm(s.len(), a, 0));
        }
        let size = ts[a];
        if self.batch == DYNAMIC || size == DYNAMIC {
            return Err(Unbatchable::new(
                "a gather with a batched table and batched indices needs a static batch size and gathered dim",
            ));
        }
        let bits = ctx.int_width(ie).unwrap_or(64);
        let max = if bits >= 64 { i64::MAX as i128 } else { (1i128 << (bits - 1)) - 1 };
        if (self.batch as i128) * (size as i128) > max {
            return Err(Unbatchable::new("the flattened gather indices would overflow the index type"));
        }
        // table [B, t...] -> [B, t[a], t[:a], t[a+1:]] -> [B*t[a], t[:a], t[a+1:]]
        let tt = self.transpose(body, op, t.v, &move_dim_perm(ts.len() + 1, a + 1, 1))?;
        let mut flat = vec![self.batch * size];
        flat.extend(&ts[..a]);
        flat.extend(&ts[a + 1..]);
        let table = self.reshape(body, op, tt, &flat)?;
        // indices: i + b*size where 0 <= i < size, else -1
        let mut off_shape = vec![self.batch];
        off_shape.extend(std::iter::repeat_n(1, is.len()));
        let offs: Vec<i64> = (0..self.batch).map(|b| b * size).collect();
        let off_ty = ctx.tensor_type(&off_shape, ie);
        let offsets = if offs.is_empty() { None } else { Some(self.int_const(body, op, off_ty, &offs)?) };
        let scalar = ctx.tensor_type(&[], ie);
        let zero = self.int_const(body, op, scalar, &[0])?;
        let lim = self.int_const(body, op, scalar, &[size])?;
        let neg = self.int_const(body, op, scalar, &[-1])?;
        let ity = body.value_type(bi.v);
        let shifted = match offsets {
            Some(o) => self.build1(body, op, "tensor.add", &[bi.v, o], ity, &[])?,
            None => bi.v,
        };
        let bool_ty = ctx.tensor_type(&parts(ctx, ity)?.0, ctx.i1_type());
        let ge = self.build1(body, op, "tensor.cmp", &[bi.v, zero], bool_ty, &[("predicate", ctx.str_attr("ge"))])?;
        let lt = self.build1(body, op, "tensor.cmp", &[bi.v, lim], bool_ty, &[("predicate", ctx.str_attr("lt"))])?;
        let inner = self.build1(body, op, "tensor.select", &[lt, shifted, neg], ity, &[])?;
        let idx = self.build1(body, op, "tensor.select", &[ge, inner, neg], ity, &[])?;
        // gather -> [B, i..., t[:a], t[a+1:]] -> [B, t[:a], i..., t[a+1:]]
        let mut gs = vec![self.batch];
        gs.extend(&is);
        gs.extend(&ts[..a]);
        gs.extend(&ts[a + 1..]);
        let g = self.build1(body, op, "tensor.gather", &[table, idx], ctx.tensor_type(&gs, elem), &[("axis", ctx.i64_attr(0))])?;
        let (q, p) = (is.len() as i64, a as i64);
        let mut perm = vec![0i64];
        perm.extend(q + 1..=q + p);
        perm.extend(1..=q);
        perm.extend(q + p + 1..gs.len() as i64);
        self.transpose(body, op, g, &perm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perms() {
        assert_eq!(move_dim_perm(3, 2, 0), vec![2, 0, 1]);
        assert_eq!(move_dim_perm(3, 0, 2), vec![1, 2, 0]);
        assert_eq!(move_dim_perm(4, 1, 1), vec![0, 1, 2, 3]);
        assert_eq!(move_dim_perm(4, 3, 1), vec![0, 3, 1, 2]);
    }

    #[test]
    fn every_tensor_op_has_a_rule() {
        let ctx = xcs_dialects::context();
        for def in ctx.registered_ops() {
            let name = def.name;
            if name.starts_with("tensor.") && !matches!(name, "tensor.fused" | "tensor.yield" | "tensor.constant") {
                assert!(has_rule(name), "{name} has no batching rule");
            }
        }
    }
}
