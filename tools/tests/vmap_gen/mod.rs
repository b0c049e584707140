//! A generator of small random `xcs.vmap` programs for the `vmap-batch` property test: a
//! `@main` whose arguments share a batch size at random axes, one map over them whose body draws
//! ops from the whole tensor table (each built with the typed builders, so its type is inferred;
//! an op that does not fit its operands is simply not built), nested maps up to depth 3 with
//! their own batch dims and axes (in_axes and out_axes 0, k, negative, -1), calls of generated
//! helper functions (classified or not, sometimes orchestration), and the occasional `xcs.llm`.
//! Deterministic per seed (SplitMix64).

use std::collections::BTreeMap;

use xcs_dialects::interp::random::SplitMix64;
use xcs_dialects::interp::{random_tensor, tensor_to_attr, ElemType};
use xcs_dialects::shape::{broadcast, ranked};
use xcs_dialects::tensor;
use xcs_ir::{Attr, Block, Body, Builder, Context, Location, Module, OperationState, Type, Value};

/// What the generated programs contain.
#[derive(Default, Debug)]
pub struct Stats {
    pub maps: usize,
    pub nested: usize,
    pub calls: usize,
    pub orchestration: usize,
    pub ops: BTreeMap<&'static str, usize>,
}

/// A value of the block being built and whether it depends on the current map's batched
/// arguments (only values that do not may be yielded with `out_axes = -1`).
#[derive(Copy, Clone, Debug)]
struct V {
    v: Value,
    ty: Type,
    dep: bool,
}

/// The pool value an op is built around, with its shape, element type and whether it is a
/// float.
struct Anchor {
    v: V,
    shape: Vec<i64>,
    elem: Type,
    float: bool,
}

struct Gen<'a> {
    ctx: &'a Context,
    rng: SplitMix64,
    /// Helper functions made so far: (name, body).
    helpers: Vec<(String, Box<Body>)>,
    next_helper: usize,
    stats: &'a mut Stats,
}

/// One random program.
pub fn program(ctx: &Context, seed: u64, stats: &mut Stats) -> Module {
    let mut g = Gen {
        ctx,
        rng: SplitMix64(seed.wrapping_mul(0x9E37_79B9).wrapping_add(17)),
        helpers: Vec::new(),
        next_helper: 0,
        stats,
    };
    let main = g.main();
    let mut module = Module::new(ctx, Location::UNKNOWN);
    let block = module.block();
    let helpers = std::mem::take(&mut g.helpers);
    for (_, body) in helpers.into_iter().chain([("main".to_string(), main)]) {
        crate::support::append_func(ctx, &mut module, block, body);
    }
    module
}

impl<'a> Gen<'a> {
    fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() {
            None
        } else {
            Some(items[self.rng.below(items.len())])
        }
    }
    fn shape(&self, t: Type) -> Vec<i64> {
        ranked(self.ctx, t).map(|(s, _)| s.to_vec()).unwrap_or_default()
    }
    fn elem(&self, t: Type) -> Type {
        ranked(self.ctx, t).map(|(_, e)| e).unwrap_or(t)
    }
    fn is_float(&self, t: Type) -> bool {
        self.ctx.is_float(self.elem(t))
    }
    fn rand_shape(&mut self, max_rank: usize) -> Vec<i64> {
        let r = self.rng.below(max_rank + 1);
        (0..r).map(|_| 1 + self.rng.below(4) as i64).collect()
    }
    fn rand_elem(&mut self) -> Type {
        match self.rng.below(10) {
            0 => self.ctx.f64_type(),
            1 => self.ctx.i32_type(),
            _ => self.ctx.f32_type(),
        }
    }

    /// A constant of `shape` and `elem` with random values.
    fn constant(&mut self, body: &mut Body, block: Block, shape: &[i64], elem: Type) -> Option<V> {
        let e = ElemType::from_type(self.ctx, elem)?;
        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let t = random_tensor(e, &dims, self.rng.next_u64());
        let attr: Attr = tensor_to_attr(self.ctx, &t);
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::constant(&mut b, attr).ok()?;
        self.count("tensor.constant");
        Some(V {
            v,
            ty: body.value_type(v),
            dep: false,
        })
    }

    fn count(&mut self, name: &'static str) {
        *self.stats.ops.entry(name).or_default() += 1;
    }

    /// The `@main` function: arguments with a common batch size at random axes, one map.
    fn main(&mut self) -> Box<Body> {
        let ctx = self.ctx;
        let batch = 1 + self.rng.below(4) as i64;
        let n = 1 + self.rng.below(3);
        let mut inner = Vec::new();
        let mut axes = Vec::new();
        let mut arg_types = Vec::new();
        for i in 0..n {
            let s = self.rand_shape(3);
            let e = self.rand_elem();
            let ax: i64 = if i > 0 && self.rng.chance(30) {
                -1
            } else {
                self.rng.below(s.len() + 1) as i64
            };
            let mut outer = s.clone();
            if ax >= 0 {
                outer.insert(ax as usize, batch);
            }
            // sometimes the negative spelling of the same axis
            // (-1 means "not batched", so only axes that spell as -2 or below)
            let spelled = if ax >= 0 && (ax as usize) + 1 < outer.len() && self.rng.chance(20) {
                ax - outer.len() as i64
            } else {
                ax
            };
            inner.push(ctx.tensor_type(&s, e));
            axes.push(spelled);
            arg_types.push(ctx.tensor_type(&outer, e));
        }
        let mut body = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
        let region = body.add_root_region();
        let block = body.create_block(&arg_types);
        body.append_block(region, block);
        let args: Vec<Value> = body.block_args(block).to_vec();
        let operands: Vec<V> = args
            .iter()
            .zip(&arg_types)
            .map(|(&v, &ty)| V { v, ty, dep: false })
            .collect();
        let results = self.vmap(&mut body, block, &operands, &axes, &inner, &[], 1);
        let result_types: Vec<Type> = results.iter().map(|&v| body.value_type(v)).collect();
        Builder::at_end(ctx, &mut body, block)
            .create_with_types("func.return", &results, &[], &[])
            .expect("return");
        body.set_self_attr(ctx, "sym_name", Some(ctx.str_attr("main")));
        body.set_self_attr(
            ctx,
            "function_type",
            Some(ctx.type_attr(ctx.function_type(&arg_types, &result_types))),
        );
        body
    }

    /// Builds a map at the end of `block` over `operands` (batched at `axes`, -1: not) whose
    /// block sees `inner` types and may use the `captured` values; returns its results.
    #[allow(clippy::too_many_arguments)]
    fn vmap(
        &mut self,
        body: &mut Body,
        block: Block,
        operands: &[V],
        axes: &[i64],
        inner: &[Type],
        captured: &[V],
        depth: usize,
    ) -> Vec<Value> {
        let ctx = self.ctx;
        self.stats.maps += 1;
        if depth > 1 {
            self.stats.nested += 1;
        }
        let batch = operands
            .iter()
            .zip(axes)
            .find(|(_, &a)| a != -1)
            .map(|(o, &a)| {
                let s = self.shape(o.ty);
                s[xcs_dialects::shape::norm_axis(a, s.len()).unwrap()]
            })
            .unwrap();
        let region = body.create_region();
        let eb = body.create_block(inner);
        body.append_block(region, eb);
        let mut pool: Vec<V> = captured.iter().map(|c| V { dep: false, ..*c }).collect();
        for (i, &a) in body.block_args(eb).to_vec().iter().enumerate() {
            pool.push(V {
                v: a,
                ty: inner[i],
                dep: axes[i] != -1,
            });
        }
        let nops = 2 + self.rng.below(5);
        let mut built = 0;
        let mut tries = 0;
        while built < nops && tries < 40 {
            tries += 1;
            if depth < 3 && self.rng.chance(12) {
                if self.nested(body, eb, &mut pool, depth) {
                    built += 1;
                }
                continue;
            }
            if self.op(body, eb, &mut pool) {
                built += 1;
            }
        }
        if self.rng.chance(4) {
            self.orchestration(body, eb, &pool);
        }
        // yields: recent values first; -1 only for values that do not depend on the batch
        let nres = 1 + self.rng.below(2);
        let mut yields = Vec::new();
        let mut out_axes = Vec::new();
        let mut result_types = Vec::new();
        for _ in 0..nres {
            let k = pool.len() - 1 - self.rng.below(pool.len().min(4));
            let y = pool[k];
            let r = self.shape(y.ty).len();
            let ax: i64 = if !y.dep && self.rng.chance(50) {
                -1
            } else if r > 0 && self.rng.chance(15) {
                -2 // the batch dim second to last
            } else {
                self.rng.below(r + 1) as i64
            };
            let rt = if ax == -1 {
                y.ty
            } else if ranked(ctx, y.ty).is_some() {
                xcs_dialects::xcs::batched_type(ctx, y.ty, ax, batch).unwrap()
            } else {
                continue;
            };
            yields.push(y.v);
            out_axes.push(ax);
            result_types.push(rt);
        }
        // the yield verifies only inside its map: created unchecked, checked with the module
        Builder::at_end(ctx, body, eb)
            .create_state(OperationState::new(ctx, "xcs.yield", Location::UNKNOWN).operands(&yields));
        let mut st = OperationState::new(ctx, "xcs.vmap", Location::UNKNOWN)
            .operands(&operands.iter().map(|o| o.v).collect::<Vec<_>>())
            .results(&result_types)
            .attr(ctx, "in_axes", ctx.dense_i64_array(axes))
            .attr(ctx, "out_axes", ctx.dense_i64_array(&out_axes));
        st.regions.push(region);
        let op = Builder::at_end(ctx, body, block).create_state(st);
        body.results(op).collect()
    }

    /// A nested map over values of the pool.
    fn nested(&mut self, body: &mut Body, block: Block, pool: &mut Vec<V>, depth: usize) -> bool {
        let cands: Vec<V> = pool.iter().copied().filter(|v| !self.shape(v.ty).is_empty()).collect();
        let Some(first) = self.pick(&cands) else { return false };
        let s = self.shape(first.ty);
        let a = self.rng.below(s.len());
        let batch = s[a];
        let mut operands = vec![first];
        let mut axes = vec![a as i64];
        let mut inner = Vec::new();
        let mut s0 = s.clone();
        s0.remove(a);
        inner.push(self.ctx.tensor_type(&s0, self.elem(first.ty)));
        for _ in 0..self.rng.below(3) {
            let Some(o) = self.pick(pool) else { break };
            let os = self.shape(o.ty);
            let hit: Vec<usize> = (0..os.len()).filter(|&d| os[d] == batch).collect();
            match self.pick(&hit) {
                Some(d) if self.rng.chance(60) => {
                    let mut s1 = os.clone();
                    s1.remove(d);
                    inner.push(self.ctx.tensor_type(&s1, self.elem(o.ty)));
                    axes.push(d as i64);
                }
                _ => {
                    inner.push(o.ty);
                    axes.push(-1);
                }
            }
            operands.push(o);
        }
        let captured: Vec<V> = pool.clone();
        let results = self.vmap(body, block, &operands, &axes, &inner, &captured, depth + 1);
        for r in results {
            pool.push(V {
                v: r,
                ty: body.value_type(r),
                dep: true,
            });
        }
        true
    }

    /// An `xcs.llm` (and sometimes `xcs.format` of a tensor): the map becomes hybrid.
    fn orchestration(&mut self, body: &mut Body, block: Block, pool: &[V]) {
        let ctx = self.ctx;
        self.stats.orchestration += 1;
        let mut b = Builder::at_end(ctx, body, block);
        let s = xcs_dialects::xcs::str_type(ctx);
        let prompt = match pool.last() {
            Some(v) if ranked(ctx, v.ty).is_some() => b
                .create_with_types("xcs.format", &[v.v], &[s], &[("template", ctx.str_attr("x = {}"))])
                .map(|op| b.body.result(op, 0)),
            _ => b
                .create_with_types("xcs.str_const", &[], &[s], &[("value", ctx.str_attr("hello"))])
                .map(|op| b.body.result(op, 0)),
        };
        let prompt = prompt.expect("prompt");
        b.create_with_types(
            "xcs.llm",
            &[prompt],
            &[s],
            &[("model", ctx.str_attr("m")), ("provider", ctx.str_attr("echo"))],
        )
        .expect("llm");
    }

    /// Builds one random tensor op (or a call) from the pool; false if it did not fit.
    fn op(&mut self, body: &mut Body, block: Block, pool: &mut Vec<V>) -> bool {
        let Some(a) = self.pick(pool) else { return false };
        let x = Anchor {
            v: a,
            shape: self.shape(a.ty),
            elem: self.elem(a.ty),
            float: self.is_float(a.ty),
        };
        let kind = self.rng.below(20);
        let mut deps = a.dep;
        let built = match kind {
            0..=6 => self.elementwise(kind, body, block, pool, x, &mut deps),
            7 | 8 => self.contraction(kind, body, block, pool, x, &mut deps),
            9..=11 => self.reduction(kind, body, block, pool, x, &mut deps),
            12..=16 => self.shape_op(kind, body, block, pool, x, &mut deps),
            17 => self.gather(body, block, pool, x, &mut deps),
            18 => {
                let s = self.rand_shape(2);
                let e = self.rand_elem();
                deps = false;
                self.constant(body, block, &s, e).map(|c| (c.v, "tensor.constant"))
            }
            _ => self.call(body, block, pool, a).map(|(v, d)| {
                deps = d;
                (v, "func.call")
            }),
        };
        let Some((v, name)) = built else { return false };
        self.count(name);
        pool.push(V {
            v,
            ty: body.value_type(v),
            dep: deps,
        });
        true
    }

    /// An elementwise op of `x`: unary, binary with a partner it broadcasts with, cmp + select,
    /// or a cast (kinds 0 to 6 of [`Gen::op`]).
    fn elementwise(
        &mut self,
        kind: usize,
        body: &mut Body,
        block: Block,
        pool: &[V],
        x: Anchor,
        deps: &mut bool,
    ) -> Option<(Value, &'static str)> {
        let ctx = self.ctx;
        let Anchor { v: a, float: fl, .. } = x;
        Some(match kind {
            0 | 1 => {
                let names: &[&'static str] = if fl {
                    &[
                        "neg", "abs", "relu", "exp", "log", "tanh", "sigmoid", "silu", "sqrt", "rsqrt", "gelu",
                    ]
                } else {
                    &["neg", "abs", "relu"]
                };
                let n = self.pick(names)?;
                let mut b = Builder::at_end(ctx, body, block);
                let v = match n {
                    "neg" => tensor::neg(&mut b, a.v),
                    "abs" => tensor::abs(&mut b, a.v),
                    "relu" => tensor::relu(&mut b, a.v),
                    "exp" => tensor::exp(&mut b, a.v),
                    "log" => tensor::log(&mut b, a.v),
                    "tanh" => tensor::tanh(&mut b, a.v),
                    "sigmoid" => tensor::sigmoid(&mut b, a.v),
                    "silu" => tensor::silu(&mut b, a.v),
                    "sqrt" => tensor::sqrt(&mut b, a.v),
                    "rsqrt" => tensor::rsqrt(&mut b, a.v),
                    _ => tensor::gelu(&mut b, a.v, if self.rng.chance(50) { "tanh" } else { "none" }),
                };
                (v.ok()?, "unary")
            }
            2..=4 => {
                let c = self.partner(body, block, pool, a)?;
                *deps |= c.dep;
                let names: &[&'static str] = if fl {
                    &["add", "sub", "mul", "div", "max", "min", "pow"]
                } else {
                    &["add", "sub", "mul", "max", "min"]
                };
                let n = self.pick(names)?;
                let (x, y) = if self.rng.chance(50) { (a.v, c.v) } else { (c.v, a.v) };
                let mut b = Builder::at_end(ctx, body, block);
                let v = match n {
                    "add" => tensor::add(&mut b, x, y),
                    "sub" => tensor::sub(&mut b, x, y),
                    "mul" => tensor::mul(&mut b, x, y),
                    "div" => tensor::div(&mut b, x, y),
                    "max" => tensor::max(&mut b, x, y),
                    "min" => tensor::min(&mut b, x, y),
                    _ => tensor::pow(&mut b, x, y),
                };
                (v.ok()?, "binary")
            }
            5 => {
                let c = self.partner(body, block, pool, a)?;
                *deps |= c.dep;
                let pred = self.pick(&["eq", "ne", "lt", "le", "gt", "ge"])?;
                let mut b = Builder::at_end(ctx, body, block);
                let cond = tensor::cmp(&mut b, a.v, c.v, pred).ok()?;
                let v = if self.rng.chance(50) {
                    tensor::select(&mut b, cond, a.v, c.v)
                } else {
                    tensor::select(&mut b, cond, c.v, a.v)
                };
                (v.ok()?, "cmp+select")
            }
            _ => {
                let to = if fl {
                    self.pick(&[ctx.f64_type(), ctx.f32_type(), ctx.i32_type(), ctx.f16_type()])?
                } else {
                    ctx.f32_type()
                };
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::cast(&mut b, a.v, to).ok()?, "tensor.cast")
            }
        })
    }

    /// A matmul of `x` (with its transpose, a constant or a pool value) or an einsum (kinds 7,
    /// 8).
    fn contraction(
        &mut self,
        kind: usize,
        body: &mut Body,
        block: Block,
        pool: &[V],
        x: Anchor,
        deps: &mut bool,
    ) -> Option<(Value, &'static str)> {
        let ctx = self.ctx;
        let Anchor {
            v: a,
            shape: sa,
            elem: ea,
            ..
        } = x;
        Some(match kind {
            7 => {
                // matmul with a transposed self, a constant, or a pool value
                if sa.len() < 2 || ea == ctx.i1_type() {
                    return None;
                }
                let r = sa.len();
                let k = sa[r - 1];
                let rhs = match self.rng.below(3) {
                    0 => {
                        let mut perm: Vec<i64> = (0..r as i64).collect();
                        perm.swap(r - 2, r - 1);
                        let mut b = Builder::at_end(ctx, body, block);
                        tensor::transpose(&mut b, a.v, &perm).ok()?
                    }
                    1 => {
                        let mut s = if self.rng.chance(30) {
                            vec![1 + self.rng.below(2) as i64]
                        } else {
                            Vec::new()
                        };
                        s.extend([k, 1 + self.rng.below(3) as i64]);
                        self.constant(body, block, &s, ea)?.v
                    }
                    _ => {
                        let cands: Vec<V> = pool
                            .iter()
                            .copied()
                            .filter(|v| {
                                let s = self.shape(v.ty);
                                s.len() >= 2 && s[s.len() - 2] == k && self.elem(v.ty) == ea
                            })
                            .collect();
                        let c = self.pick(&cands)?;
                        *deps |= c.dep;
                        c.v
                    }
                };
                let mut b = Builder::at_end(ctx, body, block);
                let v = if self.rng.chance(20) {
                    tensor::matmul(&mut b, rhs, a.v)
                } else {
                    tensor::matmul(&mut b, a.v, rhs)
                };
                (v.ok()?, "tensor.matmul")
            }
            _ => {
                if ea == ctx.i1_type() {
                    return None;
                }
                let labels: Vec<char> = "ijkl".chars().take(sa.len()).collect();
                let l: String = labels.iter().collect();
                let (eq, others): (String, Vec<Value>) = match self.rng.below(4) {
                    0 => {
                        // permute / reduce some labels
                        let mut out: Vec<char> = labels.iter().copied().filter(|_| self.rng.chance(70)).collect();
                        if out.len() > 1 && self.rng.chance(50) {
                            out.reverse();
                        }
                        (format!("{l}->{}", out.iter().collect::<String>()), vec![])
                    }
                    1 => (format!("{l},{l}"), vec![a.v]),
                    2 => {
                        // contract the last label with a constant
                        let k = *sa.last()?;
                        let n = 1 + self.rng.below(3) as i64;
                        let c = self.constant(body, block, &[k, n], ea)?;
                        let last = *labels.last()?;
                        let keep: String = labels[..labels.len() - 1].iter().collect();
                        (format!("{l},{last}z->{keep}z"), vec![c.v])
                    }
                    _ => {
                        // outer product with a pool vector
                        let cands: Vec<V> = pool
                            .iter()
                            .copied()
                            .filter(|v| self.shape(v.ty).len() == 1 && self.elem(v.ty) == ea)
                            .collect();
                        let c = self.pick(&cands)?;
                        *deps |= c.dep;
                        (format!("{l},z->{l}z"), vec![c.v])
                    }
                };
                let mut ops = vec![a.v];
                ops.extend(others);
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::einsum(&mut b, &ops, &eq).ok()?, "tensor.einsum")
            }
        })
    }

    /// A reduce, softmax or layer_norm of `x` (kinds 9 to 11).
    fn reduction(
        &mut self,
        kind: usize,
        body: &mut Body,
        block: Block,
        pool: &[V],
        x: Anchor,
        deps: &mut bool,
    ) -> Option<(Value, &'static str)> {
        let ctx = self.ctx;
        let Anchor {
            v: a,
            shape: sa,
            elem: ea,
            float: fl,
        } = x;
        Some(match kind {
            9 => {
                if sa.is_empty() || ea == ctx.i1_type() {
                    return None;
                }
                let mut axes: Vec<i64> = (0..sa.len() as i64).filter(|_| self.rng.chance(50)).collect();
                if axes.is_empty() {
                    axes.push(self.rng.below(sa.len()) as i64);
                }
                if self.rng.chance(30) {
                    for x in axes.iter_mut() {
                        *x -= sa.len() as i64;
                    }
                }
                let kind = self.pick(&["sum", "max", "min", "mean", "prod"])?;
                let keep = self.rng.chance(40);
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::reduce(&mut b, a.v, kind, &axes, keep).ok()?, "tensor.reduce")
            }
            10 => {
                if sa.is_empty() || !fl {
                    return None;
                }
                let ax = self.rng.below(sa.len()) as i64 - if self.rng.chance(30) { sa.len() as i64 } else { 0 };
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::softmax(&mut b, a.v, ax).ok()?, "tensor.softmax")
            }
            _ => {
                if sa.is_empty() || !fl {
                    return None;
                }
                let axis = self.rng.below(sa.len());
                let norm = sa[axis..].to_vec();
                let mut params = Vec::new();
                for _ in 0..2 {
                    let cands: Vec<V> = pool
                        .iter()
                        .copied()
                        .filter(|v| self.shape(v.ty) == norm && self.elem(v.ty) == ea)
                        .collect();
                    let p = match self.pick(&cands) {
                        Some(p) if self.rng.chance(60) => p,
                        _ => self.constant(body, block, &norm, ea)?,
                    };
                    *deps |= p.dep;
                    params.push(p.v);
                }
                let ax = axis as i64 - if self.rng.chance(30) { sa.len() as i64 } else { 0 };
                let mut b = Builder::at_end(ctx, body, block);
                (
                    tensor::layer_norm(&mut b, a.v, params[0], params[1], ax, 1e-5).ok()?,
                    "tensor.layer_norm",
                )
            }
        })
    }

    /// A transpose, reshape, broadcast_to, slice or concat of `x` (kinds 12 to 16).
    fn shape_op(
        &mut self,
        kind: usize,
        body: &mut Body,
        block: Block,
        pool: &[V],
        x: Anchor,
        deps: &mut bool,
    ) -> Option<(Value, &'static str)> {
        let ctx = self.ctx;
        let Anchor {
            v: a,
            shape: sa,
            elem: ea,
            ..
        } = x;
        Some(match kind {
            12 => {
                if sa.len() < 2 {
                    return None;
                }
                let mut perm: Vec<i64> = (0..sa.len() as i64).collect();
                for i in (1..perm.len()).rev() {
                    let j = self.rng.below(i + 1);
                    perm.swap(i, j);
                }
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::transpose(&mut b, a.v, &perm).ok()?, "tensor.transpose")
            }
            13 => {
                let n: i64 = sa.iter().product();
                let shape: Vec<i64> = match self.rng.below(3) {
                    0 => vec![n],
                    1 => vec![1, n],
                    _ => {
                        let d = (1..=n).filter(|d| n % d == 0).collect::<Vec<_>>();
                        let f = self.pick(&d)?;
                        vec![f, n / f]
                    }
                };
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::reshape(&mut b, a.v, &shape).ok()?, "tensor.reshape")
            }
            14 => {
                let mut shape = sa.clone();
                for d in shape.iter_mut() {
                    if *d == 1 && self.rng.chance(50) {
                        *d = 2;
                    }
                }
                if self.rng.chance(60) {
                    shape.insert(0, 1 + self.rng.below(3) as i64);
                }
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::broadcast_to(&mut b, a.v, &shape).ok()?, "tensor.broadcast_to")
            }
            15 => {
                if sa.is_empty() {
                    return None;
                }
                let (mut start, mut limit, mut stride) = (vec![], vec![], vec![]);
                for &d in &sa {
                    let lo = self.rng.below(d as usize) as i64;
                    let hi = lo + 1 + self.rng.below((d - lo) as usize) as i64;
                    start.push(lo);
                    limit.push(hi);
                    stride.push(1 + self.rng.below(2) as i64);
                }
                let mut b = Builder::at_end(ctx, body, block);
                (
                    tensor::slice(&mut b, a.v, &start, &limit, &stride).ok()?,
                    "tensor.slice",
                )
            }
            _ => {
                if sa.is_empty() {
                    return None;
                }
                let axis = self.rng.below(sa.len());
                let cands: Vec<V> = pool
                    .iter()
                    .copied()
                    .filter(|v| {
                        let s = self.shape(v.ty);
                        self.elem(v.ty) == ea && s.len() == sa.len() && (0..s.len()).all(|d| d == axis || s[d] == sa[d])
                    })
                    .collect();
                let c = match self.pick(&cands) {
                    Some(c) if self.rng.chance(70) => c,
                    _ => {
                        let mut s = sa.clone();
                        s[axis] = 1 + self.rng.below(2) as i64;
                        self.constant(body, block, &s, ea)?
                    }
                };
                *deps |= c.dep;
                let ops = if self.rng.chance(50) {
                    vec![a.v, c.v]
                } else {
                    vec![c.v, a.v, a.v]
                };
                let ax = axis as i64 - if self.rng.chance(30) { sa.len() as i64 } else { 0 };
                let mut b = Builder::at_end(ctx, body, block);
                (tensor::concat(&mut b, &ops, ax).ok()?, "tensor.concat")
            }
        })
    }

    /// A gather from `x` at constant indices, or at indices computed from a pool value (kind 17).
    fn gather(
        &mut self,
        body: &mut Body,
        block: Block,
        pool: &[V],
        x: Anchor,
        deps: &mut bool,
    ) -> Option<(Value, &'static str)> {
        let ctx = self.ctx;
        let Anchor { v: a, shape: sa, .. } = x;
        // gather with constant indices, or indices computed from a pool value
        if sa.is_empty() {
            return None;
        }
        let axis = self.rng.below(sa.len());
        let size = sa[axis];
        let idx = if self.rng.chance(40) {
            let ishape = self.rand_shape(2);
            let n: usize = ishape.iter().product::<i64>() as usize;
            // now and then an index out of range: a run-time error before and after
            let wild = self.rng.chance(15);
            let vals: Vec<f64> = (0..n)
                .map(|_| {
                    if wild {
                        self.rng.below(size as usize + 2) as f64 - 1.0
                    } else {
                        self.rng.below(size as usize) as f64
                    }
                })
                .collect();
            let dims: Vec<usize> = ishape.iter().map(|&d| d as usize).collect();
            let t = xcs_dialects::interp::Tensor::from_f64s(ElemType::I32, &dims, &vals).ok()?;
            let attr = tensor_to_attr(ctx, &t);
            let mut b = Builder::at_end(ctx, body, block);
            tensor::constant(&mut b, attr).ok()?
        } else {
            // min(cast_i32(abs(v * (size + 0.5))), size - 1): in range
            let cands: Vec<V> = pool
                .iter()
                .copied()
                .filter(|v| self.is_float(v.ty) && self.shape(v.ty).len() <= 2)
                .collect();
            let src = self.pick(&cands)?;
            *deps |= src.dep;
            let hi = self.constant_i32(body, block, size - 1)?;
            let scale_ty = ctx.tensor_type(&[], self.elem(src.ty));
            let mut b = Builder::at_end(ctx, body, block);
            let scale = tensor::splat_float(&mut b, scale_ty, size as f64 + 0.5).ok()?;
            let scaled = tensor::mul(&mut b, src.v, scale).ok()?;
            let ab = tensor::abs(&mut b, scaled).ok()?;
            let ci = tensor::cast(&mut b, ab, ctx.i32_type()).ok()?;
            if self.rng.chance(10) {
                ci // unclamped: sometimes out of range
            } else {
                tensor::min(&mut b, ci, hi).ok()?
            }
        };
        let ax = axis as i64 - if self.rng.chance(30) { sa.len() as i64 } else { 0 };
        let mut b = Builder::at_end(ctx, body, block);
        Some((tensor::gather(&mut b, a.v, idx, ax).ok()?, "tensor.gather"))
    }

    fn constant_i32(&mut self, body: &mut Body, block: Block, value: i64) -> Option<Value> {
        let ty = self.ctx.tensor_type(&[], self.ctx.i32_type());
        let mut b = Builder::at_end(self.ctx, body, block);
        tensor::splat_int(&mut b, ty, value).ok()
    }

    /// A value that broadcasts with `a`: from the pool, or a constant of a suffix of its shape
    /// (with some dims 1).
    fn partner(&mut self, body: &mut Body, block: Block, pool: &[V], a: V) -> Option<V> {
        let sa = self.shape(a.ty);
        let ea = self.elem(a.ty);
        let cands: Vec<V> = pool
            .iter()
            .copied()
            .filter(|v| {
                self.elem(v.ty) == ea && ranked(self.ctx, v.ty).is_some() && broadcast(&sa, &self.shape(v.ty)).is_ok()
            })
            .collect();
        match self.pick(&cands) {
            Some(c) if self.rng.chance(65) => Some(c),
            _ => {
                let keep = self.rng.below(sa.len() + 1);
                let mut s: Vec<i64> = sa[sa.len() - keep..].to_vec();
                for d in s.iter_mut() {
                    if self.rng.chance(25) {
                        *d = 1;
                    }
                }
                if self.rng.chance(15) {
                    s.insert(0, 2);
                }
                self.constant(body, block, &s, ea)
            }
        }
    }

    /// A call of a new helper function of one or two pool values. The helper is a chain of
    /// tensor ops; it is classified "tensor" or not at all, or (rarely) calls an LLM and is
    /// classified "hybrid".
    fn call(&mut self, body: &mut Body, block: Block, pool: &[V], a: V) -> Option<(Value, bool)> {
        let ctx = self.ctx;
        if self.next_helper >= 4 || ranked(ctx, a.ty).is_none() {
            return None;
        }
        let mut args = vec![a];
        if self.rng.chance(40) {
            let b = self.pick(pool)?;
            if ranked(ctx, b.ty).is_some() {
                args.push(b);
            }
        }
        let types: Vec<Type> = args.iter().map(|v| v.ty).collect();
        let name = format!("helper{}", self.next_helper);
        self.next_helper += 1;
        let mut hb = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
        let region = hb.add_root_region();
        let entry = hb.create_block(&types);
        hb.append_block(region, entry);
        let mut hpool: Vec<V> = hb
            .block_args(entry)
            .iter()
            .zip(&types)
            .map(|(&v, &ty)| V { v, ty, dep: true })
            .collect();
        let n = 1 + self.rng.below(4);
        let mut tries = 0;
        let mut made = 0;
        while made < n && tries < 20 {
            tries += 1;
            if self.op(&mut hb, entry, &mut hpool) {
                made += 1;
            }
        }
        let hybrid = self.rng.chance(8);
        if hybrid {
            self.orchestration(&mut hb, entry, &hpool);
        }
        let nres = 1 + self.rng.below(2);
        let rets: Vec<V> = (0..nres)
            .map(|_| hpool[hpool.len() - 1 - self.rng.below(hpool.len().min(3))])
            .collect();
        let ret_vals: Vec<Value> = rets.iter().map(|r| r.v).collect();
        let ret_types: Vec<Type> = rets.iter().map(|r| r.ty).collect();
        Builder::at_end(ctx, &mut hb, entry)
            .create_with_types("func.return", &ret_vals, &[], &[])
            .ok()?;
        hb.set_self_attr(ctx, "sym_name", Some(ctx.str_attr(&name)));
        hb.set_self_attr(
            ctx,
            "function_type",
            Some(ctx.type_attr(ctx.function_type(&types, &ret_types))),
        );
        if hybrid {
            hb.set_self_attr(ctx, "xcs.class", Some(ctx.str_attr("hybrid")));
        } else if self.rng.chance(50) {
            hb.set_self_attr(ctx, "xcs.class", Some(ctx.str_attr("tensor")));
        }
        self.helpers.push((name.clone(), hb));
        self.stats.calls += 1;
        let operands: Vec<Value> = args.iter().map(|v| v.v).collect();
        let mut b = Builder::at_end(ctx, body, block);
        let op = b
            .create_with_types("func.call", &operands, &ret_types, &[("callee", ctx.symbol_ref(&name))])
            .ok()?;
        // the helper's results: pick the first (a dep is conservative: any argument's)
        Some((body.result(op, 0), args.iter().any(|v| v.dep)))
    }
}
