//! The program generator of the differential pass fuzzer: random well-typed `tensor` programs
//! (every op of the dialect, numpy broadcasting, `?` dims, hand-built `tensor.fused` regions,
//! nested `xcs.vmap`s, calls of private helpers, dead code and dead helpers), with the inputs to
//! run them on. Every value carries a sound interval of what it can hold, so that each op is
//! applied only where it is well-defined and well-conditioned (`log` of values >= 0.05, divisors
//! away from zero, `exp` of values <= 8, `pow` of bases in [0.25, 4] with small exponents, ...):
//! an operand outside the domain is first brought into it with ops of the dialect (`abs`,
//! `add`, `sigmoid`, `clamp`, `tanh`), which makes more programs, not fewer. Deterministic per
//! seed (SplitMix64).

use std::collections::BTreeMap;

use xcs_dialects::interp::random::SplitMix64;
use xcs_dialects::interp::value::broadcast_shapes;
use xcs_dialects::interp::{tensor_to_attr, ElemType, RtValue, Tensor};
use xcs_dialects::shape::ranked;
use xcs_dialects::tensor;
use xcs_ir::{Block, Body, Builder, Context, Diagnostic, Location, Module, OperationState, Type, Value, DYNAMIC};

/// A generated program: `@main` (public) and its helpers, and the arguments of `@main`.
pub struct Program {
    pub module: Module,
    pub inputs: Vec<RtValue>,
}

/// What the generated programs contain (summed over programs).
#[derive(Default, Debug)]
pub struct Stats {
    pub programs: usize,
    pub ops: BTreeMap<String, usize>,
    pub maps: usize,
    pub fused: usize,
    pub calls: usize,
    pub dynamic_args: usize,
}

/// A sound bound on the values a tensor holds (every element, every precision's rounding).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub lo: f64,
    pub hi: f64,
}

impl Range {
    pub fn new(lo: f64, hi: f64) -> Range {
        Range { lo: lo.min(hi), hi: lo.max(hi) }
    }
    pub fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }
    fn union(self, o: Range) -> Range {
        Range::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }
    /// Widened by 1% of the magnitude: covers the rounding of every element type (bf16 rounds
    /// by at most 0.4%) so the bound stays sound for the computed values, not only the exact.
    fn widen(self) -> Range {
        let m = 0.01 * self.mag() + 1e-6;
        Range::new(self.lo - m, self.hi + m)
    }
    fn monotone(self, f: impl Fn(f64) -> f64) -> Range {
        Range::new(f(self.lo), f(self.hi)).widen()
    }
    fn scale(self, k: f64) -> Range {
        Range::new(self.lo * k, self.hi * k)
    }
    fn contains(self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
/// erf within 1.5e-7 (Abramowitz-Stegun 7.1.26); ranges are widened by far more.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * (-x * x).exp();
    y.copysign(x)
}
fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// A value of the block being built, with what the generator knows of it.
#[derive(Clone, Debug)]
pub struct Val {
    pub v: Value,
    pub ty: Type,
    /// The run-time shape (the type's `?` dims resolved).
    pub dims: Vec<usize>,
    pub range: Range,
    /// An integer value computed exactly from integer inputs and constants (a gather index
    /// made from it is out of range or not the same way in every run).
    pub exact_int: bool,
    /// Which enclosing `xcs.vmap`s' batched arguments it depends on: bit `d` for the map at
    /// nesting depth `d` (1 for the outermost).
    pub dep: u32,
}

/// Where ops are being generated: which kinds of op may be made.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Scope {
    /// A function or `xcs.vmap` body: everything.
    Any,
    /// A `tensor.fused` body: elementwise ops, `broadcast_to` and constants.
    Elementwise,
}

const UNARY_FLOAT: [&str; 19] = [
    "neg", "abs", "relu", "exp", "log", "tanh", "sigmoid", "silu", "sqrt", "rsqrt", "gelu", "sin", "cos", "erf",
    "floor", "ceil", "round", "sign", "gelu_tanh",
];
const UNARY_INT: [&str; 7] = ["neg", "abs", "relu", "floor", "ceil", "round", "sign"];
const BINARY_FLOAT: [&str; 8] = ["add", "sub", "mul", "div", "max", "min", "pow", "rem"];
const BINARY_INT: [&str; 8] = ["add", "sub", "mul", "div", "max", "min", "pow", "rem"];

/// One random program of `seed`.
pub fn program(ctx: &Context, seed: u64, stats: &mut Stats) -> Program {
    let mut g = Gen {
        ctx,
        rng: SplitMix64(seed.wrapping_mul(0xA076_1D64_78BD_642F).wrapping_add(0x1234_5678)),
        helpers: Vec::new(),
        stats,
        budget: 0,
    };
    g.budget = 6 + g.below(14);
    let (main, inputs) = g.main();
    let mut module = Module::new(ctx, Location::UNKNOWN);
    let block = module.block();
    let helpers = std::mem::take(&mut g.helpers);
    for body in helpers.into_iter().chain([main]) {
        let mut st = OperationState::new(ctx, "func.func", Location::UNKNOWN);
        st.attrs = body.self_attrs();
        st.nested = Some(body);
        let op = module.body.create_op(st);
        module.body.append_op(block, op);
    }
    g.stats.programs += 1;
    Program { module, inputs }
}

struct Gen<'a> {
    ctx: &'a Context,
    rng: SplitMix64,
    /// Helper function bodies made so far (named `@helperN`, private).
    helpers: Vec<Box<Body>>,
    stats: &'a mut Stats,
    /// Ops still to make in `@main` (nested bodies count too).
    budget: usize,
}

type Built = Result<Value, Diagnostic>;

impl<'a> Gen<'a> {
    // ------------------------------------------------------------------ randomness

    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Clone>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() {
            None
        } else {
            Some(items[self.below(items.len())].clone())
        }
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
    /// Prefers recent values of the pool (what was just computed is what gets used next).
    fn pick_recent(&mut self, pool: &[Val]) -> Option<Val> {
        if pool.is_empty() {
            return None;
        }
        if self.chance(50) {
            let k = pool.len().min(3);
            Some(pool[pool.len() - 1 - self.below(k)].clone())
        } else {
            self.pick(pool)
        }
    }
    fn count(&mut self, name: &str) {
        *self.stats.ops.entry(name.to_string()).or_default() += 1;
    }

    // ------------------------------------------------------------------ types

    fn type_shape(&self, t: Type) -> Vec<i64> {
        ranked(self.ctx, t).map(|(s, _)| s.to_vec()).unwrap_or_default()
    }
    fn elem(&self, t: Type) -> Type {
        ranked(self.ctx, t).map(|(_, e)| e).unwrap_or(t)
    }
    fn is_float(&self, t: Type) -> bool {
        self.ctx.is_float(self.elem(t))
    }
    fn is_i1(&self, t: Type) -> bool {
        self.elem(t) == self.ctx.i1_type()
    }
    fn is_int(&self, t: Type) -> bool {
        !self.is_float(t) && !self.is_i1(t)
    }
    /// The largest magnitude a value of element type `e` may reach in a program (f16 overflows
    /// at 65504; integers stay far from wrapping).
    fn limit(&self, e: Type) -> f64 {
        let c = self.ctx;
        if e == c.f16_type() || e == c.bf16_type() {
            2e3
        } else if self.ctx.is_float(e) {
            1e6
        } else {
            (1u64 << 24) as f64
        }
    }

    fn val(&self, body: &Body, v: Value, dims: Vec<usize>, range: Range, exact_int: bool, dep: u32) -> Val {
        Val { v, ty: body.value_type(v), dims, range, exact_int, dep }
    }

    /// A constant of run-time shape `dims` (static), element type `elem`, values in `range`
    /// (dyadic, exact in every precision, half of the time).
    fn constant(&mut self, body: &mut Body, block: Block, dims: &[usize], elem: Type, range: Range) -> Option<Val> {
        let e = ElemType::from_type(self.ctx, elem)?;
        let n: usize = dims.iter().product();
        let dyadic = self.chance(50);
        let vals: Vec<f64> = (0..n)
            .map(|_| {
                let x = self.uniform(range.lo, range.hi);
                if e.is_int() {
                    x.round().clamp(range.lo.ceil(), range.hi.floor())
                } else if dyadic {
                    ((x * 16.0).round() / 16.0).clamp(range.lo, range.hi)
                } else {
                    x
                }
            })
            .collect();
        let t = Tensor::from_f64s(e, dims, &vals).ok()?;
        let attr = tensor_to_attr(self.ctx, &t);
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::constant(&mut b, attr).ok()?;
        self.count("tensor.constant");
        Some(self.val(body, v, dims.to_vec(), range, e.is_int(), 0))
    }

    /// A rank-0 constant holding exactly `x` (-0.0 included).
    fn scalar_const(&mut self, body: &mut Body, block: Block, elem: Type, x: f64) -> Option<Val> {
        let e = ElemType::from_type(self.ctx, elem)?;
        let t = Tensor::from_f64s(e, &[], &[x]).ok()?;
        let attr = tensor_to_attr(self.ctx, &t);
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::constant(&mut b, attr).ok()?;
        self.count("tensor.constant");
        Some(self.val(body, v, vec![], Range::new(x, x), e.is_int(), 0))
    }

    // ------------------------------------------------------------------ functions

    /// `@main`: 1 to 3 arguments (some with `?` dims), a budget of ops, 1 to 3 results.
    fn main(&mut self) -> (Box<Body>, Vec<RtValue>) {
        let ctx = self.ctx;
        let nargs = 1 + self.below(3);
        let mut arg_types = Vec::new();
        let mut arg_info = Vec::new();
        let mut inputs = Vec::new();
        for _ in 0..nargs {
            let (ty, dims, range, exact, input) = self.argument();
            arg_types.push(ty);
            arg_info.push((dims, range, exact));
            inputs.push(input);
        }
        let mut body = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
        let region = body.add_root_region();
        let block = body.create_block(&arg_types);
        body.append_block(region, block);
        let args = body.block_args(block).to_vec();
        let mut pool: Vec<Val> = args
            .iter()
            .zip(arg_info)
            .map(|(&v, (dims, range, exact))| self.val(&body, v, dims, range, exact, 0))
            .collect();
        self.fill(&mut body, block, &mut pool, Scope::Any, 0);
        if self.chance(20) {
            self.dead_helper();
        }
        // the values nothing uses (up to 6), or 1 to 3 values (the rest is dead code)
        let mut results: Vec<Value> = Vec::new();
        if self.chance(60) {
            for p in pool.iter().rev() {
                if !body.has_uses(p.v) && results.len() < 6 {
                    results.push(p.v);
                }
            }
        }
        if results.is_empty() {
            for _ in 0..1 + self.below(3) {
                if let Some(r) = self.pick_recent(&pool) {
                    results.push(r.v);
                }
            }
        }
        let result_types: Vec<Type> = results.iter().map(|&v| body.value_type(v)).collect();
        Builder::at_end(ctx, &mut body, block)
            .create_with_types("func.return", &results, &[], &[])
            .expect("return");
        body.set_self_attr(ctx, "sym_name", Some(ctx.str_attr("main")));
        body.set_self_attr(ctx, "function_type", Some(ctx.type_attr(ctx.function_type(&arg_types, &result_types))));
        (body, inputs)
    }

    /// A random argument of `@main`: its type, run-time shape, range, exactness and value.
    fn argument(&mut self) -> (Type, Vec<usize>, Range, bool, RtValue) {
        let ctx = self.ctx;
        let rank = self.below(4);
        let dims: Vec<usize> = (0..rank).map(|_| 1 + self.below(4)).collect();
        let dynamic = self.chance(30);
        let shape: Vec<i64> = dims
            .iter()
            .map(|&d| if dynamic && self.chance(50) { DYNAMIC } else { d as i64 })
            .collect();
        if shape.contains(&DYNAMIC) {
            self.stats.dynamic_args += 1;
        }
        let elem = match self.below(100) {
            0..=7 => ctx.f64_type(),
            8..=13 => ctx.f16_type(),
            14..=17 => ctx.bf16_type(),
            18..=29 => ctx.i32_type(),
            _ => ctx.f32_type(),
        };
        let e = ElemType::from_type(ctx, elem).unwrap();
        let range = if e.is_int() {
            self.pick(&[Range::new(-20.0, 20.0), Range::new(0.0, 9.0), Range::new(-3.0, 3.0)]).unwrap()
        } else {
            self.pick(&[
                Range::new(-1.0, 1.0),
                Range::new(-4.0, 4.0),
                Range::new(0.5, 2.0),
                Range::new(-10.0, 10.0),
                Range::new(0.0, 1.0),
                Range::new(-100.0, 100.0),
            ])
            .unwrap()
        };
        let dyadic = self.chance(30);
        let n: usize = dims.iter().product();
        let mut vals: Vec<f64> = (0..n)
            .map(|_| {
                let x = self.uniform(range.lo, range.hi);
                if e.is_int() {
                    x.round()
                } else if dyadic {
                    ((x * 64.0).round() / 64.0).clamp(range.lo, range.hi)
                } else {
                    x
                }
            })
            .collect();
        if !e.is_int() && n > 0 {
            // signed zeros (inside the range), and now and then a NaN or an infinity (outside
            // every range: the elements they reach are not bounded, but the passes must keep
            // them, bit for bit, and the JIT must agree with the interpreter on them)
            if range.contains(0.0) && self.chance(35) {
                for _ in 0..1 + self.below(2) {
                    let i = self.below(n);
                    vals[i] = if self.chance(50) { -0.0 } else { 0.0 };
                }
            }
            if self.chance(3) {
                let i = self.below(n);
                vals[i] = self.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]).unwrap();
            }
        }
        let t = Tensor::from_f64s(e, &dims, &vals).unwrap();
        (ctx.tensor_type(&shape, elem), dims, range, e.is_int(), RtValue::Tensor(t))
    }

    /// Makes ops at the end of `block` until the budget is spent (a share of it in nested
    /// bodies): plain ops mostly, sometimes a fused region, a map or a call.
    fn fill(&mut self, body: &mut Body, block: Block, pool: &mut Vec<Val>, scope: Scope, depth: usize) {
        let target = match depth {
            0 => self.budget,
            _ => 2 + self.below(4),
        };
        let mut made = 0;
        let mut tries = 0;
        while made < target && tries < target * 6 {
            tries += 1;
            let what = self.below(100);
            let v = if scope == Scope::Any && what < 7 && depth < 2 {
                self.vmap(body, block, pool, depth)
            } else if scope == Scope::Any && what < 13 {
                self.fused(body, block, pool)
            } else if scope == Scope::Any && what < 18 && self.helpers.len() < 3 {
                self.call(body, block, pool)
            } else {
                self.op(body, block, pool, scope)
            };
            if let Some(vs) = v {
                made += 1;
                pool.extend(vs);
            }
        }
    }

    /// A private helper nobody calls (for `symbol-dce`).
    fn dead_helper(&mut self) {
        let ctx = self.ctx;
        let t = ctx.tensor_type(&[2], ctx.f32_type());
        let mut hb = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
        let region = hb.add_root_region();
        let entry = hb.create_block(&[t]);
        hb.append_block(region, entry);
        let a = hb.block_arg(entry, 0);
        let mut b = Builder::at_end(ctx, &mut hb, entry);
        let r = tensor::exp(&mut b, a).unwrap();
        b.create_with_types("func.return", &[r], &[], &[]).unwrap();
        let name = format!("helper{}", self.helpers.len());
        hb.set_self_attr(ctx, "sym_name", Some(ctx.str_attr(&name)));
        hb.set_self_attr(ctx, "sym_visibility", Some(ctx.str_attr("private")));
        hb.set_self_attr(ctx, "function_type", Some(ctx.type_attr(ctx.function_type(&[t], &[t]))));
        self.helpers.push(hb);
    }

    /// A call of a new private helper of one or two pool values (the helper is a few ops).
    fn call(&mut self, body: &mut Body, block: Block, pool: &[Val]) -> Option<Vec<Val>> {
        let ctx = self.ctx;
        let mut args = vec![self.pick_recent(pool)?];
        if self.chance(40) {
            args.push(self.pick(pool)?);
        }
        let types: Vec<Type> = args.iter().map(|a| a.ty).collect();
        let mut hb = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
        let region = hb.add_root_region();
        let entry = hb.create_block(&types);
        hb.append_block(region, entry);
        let mut hpool: Vec<Val> = hb
            .block_args(entry)
            .to_vec()
            .into_iter()
            .zip(&args)
            .map(|(v, a)| Val { v, ..a.clone() })
            .collect();
        let n = 1 + self.below(4);
        let mut made = 0;
        for _ in 0..n * 5 {
            if made == n {
                break;
            }
            if let Some(vs) = self.op(&mut hb, entry, &mut hpool, Scope::Any) {
                hpool.extend(vs);
                made += 1;
            }
        }
        let nres = 1 + self.below(2);
        let rets: Vec<Val> = (0..nres).filter_map(|_| self.pick_recent(&hpool)).collect();
        let ret_vals: Vec<Value> = rets.iter().map(|r| r.v).collect();
        let ret_types: Vec<Type> = rets.iter().map(|r| r.ty).collect();
        Builder::at_end(ctx, &mut hb, entry).create_with_types("func.return", &ret_vals, &[], &[]).ok()?;
        let name = format!("helper{}", self.helpers.len());
        hb.set_self_attr(ctx, "sym_name", Some(ctx.str_attr(&name)));
        hb.set_self_attr(ctx, "sym_visibility", Some(ctx.str_attr("private")));
        hb.set_self_attr(ctx, "function_type", Some(ctx.type_attr(ctx.function_type(&types, &ret_types))));
        if self.chance(40) {
            hb.set_self_attr(ctx, "xcs.class", Some(ctx.str_attr("tensor")));
        }
        self.helpers.push(hb);
        self.stats.calls += 1;
        let operands: Vec<Value> = args.iter().map(|a| a.v).collect();
        let indirect = self.chance(30);
        let mut b = Builder::at_end(ctx, body, block);
        let op = if indirect {
            // through a function value: `func.constant` + `func.call_indirect` (canonicalize
            // turns it into a `func.call`; the reference keeps the helper alive meanwhile)
            let fty = ctx.function_type(&types, &ret_types);
            let c = b.create_with_types("func.constant", &[], &[fty], &[("value", ctx.symbol_ref(&name))]).ok()?;
            let f = b.body.results(c).next()?;
            let callee_and_args: Vec<Value> = std::iter::once(f).chain(operands.iter().copied()).collect();
            b.create_with_types("func.call_indirect", &callee_and_args, &ret_types, &[]).ok()?
        } else {
            b.create_with_types("func.call", &operands, &ret_types, &[("callee", ctx.symbol_ref(&name))]).ok()?
        };
        if indirect {
            self.count("func.constant");
            self.count("func.call_indirect");
        } else {
            self.count("func.call");
        }
        let dep = args.iter().fold(0, |m, a| m | a.dep);
        let results: Vec<Value> = body.results(op).collect();
        Some(
            results
                .into_iter()
                .zip(rets)
                .map(|(v, r)| Val { v, ty: r.ty, dims: r.dims, range: r.range, exact_int: r.exact_int, dep })
                .collect(),
        )
    }

    /// An `xcs.vmap` over one to three pool values batched at random axes (and some unbatched
    /// operands), whose body is a few ops that may use the values around it.
    fn vmap(&mut self, body: &mut Body, block: Block, pool: &[Val], depth: usize) -> Option<Vec<Val>> {
        let ctx = self.ctx;
        let cands: Vec<Val> = pool.iter().filter(|v| !v.dims.is_empty()).cloned().collect();
        let first = self.pick(&cands)?;
        let a = self.below(first.dims.len());
        let batch = first.dims[a];
        let batch_ty = self.type_shape(first.ty)[a];
        let mut operands = vec![first.clone()];
        let mut axes = vec![a as i64];
        for _ in 0..self.below(3) {
            let o = self.pick(pool)?;
            let ts = self.type_shape(o.ty);
            let hits: Vec<usize> = (0..o.dims.len()).filter(|&d| o.dims[d] == batch && ts[d] == batch_ty).collect();
            match self.pick(&hits) {
                Some(d) if self.chance(60) => {
                    axes.push(d as i64);
                }
                _ => axes.push(-1),
            }
            operands.push(o);
        }
        let mut inner = Vec::new();
        let region = body.create_region();
        let mut inner_info = Vec::new();
        for (o, &ax) in operands.iter().zip(&axes) {
            if ax == -1 {
                inner.push(o.ty);
                inner_info.push((o.dims.clone(), false));
            } else {
                let mut s = self.type_shape(o.ty);
                s.remove(ax as usize);
                let mut d = o.dims.clone();
                d.remove(ax as usize);
                inner.push(ctx.tensor_type(&s, self.elem(o.ty)));
                inner_info.push((d, true));
            }
        }
        // sometimes the negative spelling of an axis (-1 means "not batched": -2 and below)
        let spelled: Vec<i64> = axes
            .iter()
            .zip(&operands)
            .map(|(&ax, o)| {
                let r = o.dims.len() as i64;
                if ax >= 0 && ax + 1 < r && self.chance(20) {
                    ax - r
                } else {
                    ax
                }
            })
            .collect();
        let eb = body.create_block(&inner);
        body.append_block(region, eb);
        let bit = 1u32 << (depth + 1);
        // a few values of the enclosing blocks (captured), then the map's own arguments
        let mut inner_pool: Vec<Val> = Vec::new();
        for _ in 0..self.below(4) {
            let c = self.pick(pool)?;
            if !inner_pool.iter().any(|p: &Val| p.v == c.v) {
                inner_pool.push(c);
            }
        }
        let captured = inner_pool.len();
        for (i, (dims, batched)) in inner_info.into_iter().enumerate() {
            let v = body.block_arg(eb, i);
            let o = &operands[i];
            let dep = if batched { o.dep | bit } else { o.dep };
            inner_pool.push(Val { v, ty: inner[i], dims, range: o.range, exact_int: o.exact_int, dep });
        }
        self.fill(body, eb, &mut inner_pool, Scope::Any, depth + 1);
        let made = &inner_pool[captured..];
        // what the body computed from the batched arguments and nothing uses, else any value
        let mut sinks: Vec<Val> = made.iter().filter(|v| v.dep & bit != 0 && !body.has_uses(v.v)).cloned().collect();
        let nres = 1 + self.below(2);
        let mut yields = Vec::new();
        let mut out_axes = Vec::new();
        let mut result_types = Vec::new();
        let mut results = Vec::new();
        for _ in 0..nres {
            let y = match sinks.pop() {
                Some(y) if self.chance(80) => y,
                _ => self.pick_recent(made)?,
            };
            let r = y.dims.len();
            let ax: i64 = if y.dep & bit == 0 && self.chance(50) {
                -1
            } else if r > 0 && self.chance(15) {
                -2
            } else {
                self.below(r + 1) as i64
            };
            let rt = if ax == -1 { y.ty } else { xcs_dialects::xcs::batched_type(ctx, y.ty, ax, batch_ty).ok()? };
            let mut dims = y.dims.clone();
            if ax != -1 {
                let at = if ax < 0 { (r as i64 + 1 + ax) as usize } else { ax as usize };
                dims.insert(at, batch);
            }
            yields.push(y.v);
            out_axes.push(ax);
            result_types.push(rt);
            results.push(Val { v: y.v, ty: rt, dims, range: y.range, exact_int: y.exact_int, dep: y.dep & !bit });
        }
        Builder::at_end(ctx, body, eb)
            .create_state(OperationState::new(ctx, "xcs.yield", Location::UNKNOWN).operands(&yields));
        let mut st = OperationState::new(ctx, "xcs.vmap", Location::UNKNOWN)
            .operands(&operands.iter().map(|o| o.v).collect::<Vec<_>>())
            .results(&result_types)
            .attr(ctx, "in_axes", ctx.dense_i64_array(&spelled))
            .attr(ctx, "out_axes", ctx.dense_i64_array(&out_axes));
        st.regions.push(region);
        let op = Builder::at_end(ctx, body, block).create_state(st);
        self.stats.maps += 1;
        self.count("xcs.vmap");
        let outer_dep = operands.iter().fold(0, |m, o| m | o.dep);
        Some(
            body.results(op)
                .collect::<Vec<_>>()
                .into_iter()
                .zip(results)
                .map(|(v, r)| Val { v, dep: r.dep | outer_dep, ..r })
                .collect(),
        )
    }

    /// A hand-built `tensor.fused`: elementwise ops over one to three float inputs that
    /// broadcast together, yielding values of the iteration space (the last op's shape), or
    /// ending in a reduction (`reduce`, `softmax`, `layer_norm`) that is its only result.
    fn fused(&mut self, body: &mut Body, block: Block, pool: &[Val]) -> Option<Vec<Val>> {
        let ctx = self.ctx;
        let first = self.pick_recent(pool)?;
        if !self.is_float(first.ty) {
            return None;
        }
        let mut inputs = vec![first.clone()];
        let mut dims = first.dims.clone();
        for _ in 0..self.below(3) {
            let o = self.pick(pool)?;
            if self.elem(o.ty) != self.elem(first.ty) || inputs.iter().any(|i| i.v == o.v) {
                continue;
            }
            if let Ok(d) = broadcast_shapes(&dims, &o.dims) {
                dims = d;
                inputs.push(o);
            }
        }
        let types: Vec<Type> = inputs.iter().map(|i| i.ty).collect();
        let mut fb = Box::new(Body::new(ctx, ctx.op_name("tensor.fused"), Location::UNKNOWN));
        let region = fb.add_root_region();
        let entry = fb.create_block(&types);
        fb.append_block(region, entry);
        let mut fpool: Vec<Val> = fb
            .block_args(entry)
            .to_vec()
            .into_iter()
            .zip(&inputs)
            .map(|(v, i)| Val { v, ..i.clone() })
            .collect();
        let n = 2 + self.below(3);
        let mut made = 0;
        for _ in 0..n * 6 {
            if made == n {
                break;
            }
            if let Some(vs) = self.op(&mut fb, entry, &mut fpool, Scope::Elementwise) {
                fpool.extend(vs);
                made += 1;
            }
        }
        let last = fpool.last()?.clone();
        if made == 0 || !self.is_float(last.ty) {
            return None;
        }
        let yields: Vec<Val> = if self.chance(30) && !last.dims.is_empty() {
            let kind = self.below(3);
            vec![self.reduction(&mut fb, entry, &fpool, last.clone(), kind)?]
        } else {
            let mut ys = vec![last.clone()];
            let same: Vec<Val> = fpool
                .iter()
                .filter(|v| v.ty == last.ty && v.dims == last.dims && v.v != last.v && fb.defining_op(v.v).is_some())
                .cloned()
                .collect();
            if let Some(o) = self.pick(&same) {
                if self.chance(40) {
                    ys.push(o);
                }
            }
            ys
        };
        let yv: Vec<Value> = yields.iter().map(|y| y.v).collect();
        let yt: Vec<Type> = yields.iter().map(|y| y.ty).collect();
        Builder::at_end(ctx, &mut fb, entry)
            .create_state(OperationState::new(ctx, "tensor.yield", Location::UNKNOWN).operands(&yv));
        let mut st = OperationState::new(ctx, "tensor.fused", Location::UNKNOWN)
            .operands(&inputs.iter().map(|i| i.v).collect::<Vec<_>>())
            .results(&yt);
        st.nested = Some(fb);
        let op = Builder::at_end(ctx, body, block).create_state(st);
        self.stats.fused += 1;
        self.count("tensor.fused");
        let dep = inputs.iter().fold(0, |m, i| m | i.dep);
        Some(
            body.results(op)
                .collect::<Vec<_>>()
                .into_iter()
                .zip(yields)
                .map(|(v, y)| Val { v, dep, ..y })
                .collect(),
        )
    }

    // ------------------------------------------------------------------ ops

    /// One random op of the pool's values (or a constant); `None` if it did not fit.
    fn op(&mut self, body: &mut Body, block: Block, pool: &mut Vec<Val>, scope: Scope) -> Option<Vec<Val>> {
        let x = self.pick_recent(pool)?;
        let kind = if scope == Scope::Elementwise { self.below(9) } else { self.below(22) };
        let r = match kind {
            0..=2 => self.unary(body, block, x),
            3..=5 => self.binary(body, block, pool, x),
            6 => self.clamp_or_select(body, block, pool, x),
            7 => self.cast(body, block, x),
            8 if scope == Scope::Elementwise => self.broadcast(body, block, x),
            8 => {
                let dims: Vec<usize> = (0..self.below(3)).map(|_| 1 + self.below(3)).collect();
                let elem = if self.chance(80) { self.ctx.f32_type() } else { self.ctx.i32_type() };
                self.constant(body, block, &dims, elem, Range::new(-2.0, 2.0))
            }
            9 | 10 => self.contraction(body, block, pool, x),
            11..=13 => {
                let k = self.below(3);
                self.reduction(body, block, pool, x, k)
            }
            14..=17 => self.layout(body, block, pool, x),
            18 | 19 => {
                // a chain of two or three layout ops (what canonicalize's patterns combine)
                let mut v = self.layout(body, block, pool, x)?;
                for _ in 0..1 + self.below(2) {
                    pool.push(v.clone());
                    v = self.layout(body, block, pool, v)?;
                }
                Some(v)
            }
            _ => self.gather(body, block, pool, x),
        }?;
        Some(vec![r])
    }

    /// Keeps an op whose result fits the element type's limit; erases it otherwise.
    fn keep(&mut self, body: &mut Body, v: Built, name: &str, dims: Vec<usize>, range: Range, exact_int: bool, dep: u32) -> Option<Val> {
        let v = v.ok()?;
        let e = self.elem(body.value_type(v));
        let big = dims.len() > 5 || dims.iter().product::<usize>() > 256;
        if big || range.mag() > self.limit(e) || !range.lo.is_finite() || !range.hi.is_finite() {
            if let Some(op) = body.defining_op(v) {
                if !body.has_uses(v) {
                    body.erase_op(op);
                }
            }
            return None;
        }
        self.count(name);
        Some(self.val(body, v, dims, range, exact_int, dep))
    }

    /// `x` brought into `[min, ..)` (and at most `max`) with ops of the dialect, if it is not
    /// already; the result is a float value.
    fn positive(&mut self, body: &mut Body, block: Block, x: Val, min: f64, max: f64) -> Option<Val> {
        if x.range.lo >= min && x.range.hi <= max {
            return Some(x);
        }
        let e = self.elem(x.ty);
        match self.below(3) {
            0 if x.range.mag() + min + 0.5 <= max => {
                // abs(x) + c
                let c = self.scalar_const(body, block, e, min + 0.5)?;
                let a = self.apply1(body, block, &x, "abs")?;
                self.apply2(body, block, &a, &c, "add")
            }
            1 => {
                // sigmoid(x) * k + c: in [c, c + k]
                let s = self.apply1(body, block, &x, "sigmoid")?;
                let k = self.scalar_const(body, block, e, (max - min).min(2.0))?;
                let m = self.apply2(body, block, &s, &k, "mul")?;
                let c = self.scalar_const(body, block, e, min + 0.125)?;
                self.apply2(body, block, &m, &c, "add")
            }
            _ => {
                // clamp(x, min + 0.25, max - 0.25) when that is not empty
                if max - min < 1.0 {
                    return None;
                }
                let lo = self.scalar_const(body, block, e, min + 0.25)?;
                let hi = self.scalar_const(body, block, e, (max - 0.25).min(min + 8.0))?;
                self.apply3(body, block, &x, &lo, &hi)
            }
        }
    }

    /// `x` brought into `[-bound, bound]` if it is not already.
    fn bounded(&mut self, body: &mut Body, block: Block, x: Val, bound: f64) -> Option<Val> {
        if x.range.mag() <= bound {
            return Some(x);
        }
        let e = self.elem(x.ty);
        if self.chance(50) {
            let t = self.apply1(body, block, &x, "tanh")?;
            let k = self.scalar_const(body, block, e, (bound * 0.75).floor().max(0.5))?;
            self.apply2(body, block, &t, &k, "mul")
        } else {
            let lo = self.scalar_const(body, block, e, -(bound * 0.5).floor().max(0.5))?;
            let hi = self.scalar_const(body, block, e, (bound * 0.75).floor().max(0.5))?;
            self.apply3(body, block, &x, &lo, &hi)
        }
    }

    /// A unary elementwise op of `x` (operand brought into its domain first).
    fn unary(&mut self, body: &mut Body, block: Block, x: Val) -> Option<Val> {
        if self.is_i1(x.ty) {
            return None;
        }
        let name = if self.is_float(x.ty) { self.pick(&UNARY_FLOAT)? } else { self.pick(&UNARY_INT)? };
        let x = match name {
            "exp" => self.bounded(body, block, x, 8.0)?,
            "log" | "rsqrt" => self.positive(body, block, x, 0.05, 1e4)?,
            "sqrt" if x.range.lo < 0.0 => self.apply1(body, block, &x, "abs")?,
            "gelu" | "gelu_tanh" | "silu" | "sigmoid" => self.bounded(body, block, x, 12.0)?,
            "sin" | "cos" => self.bounded(body, block, x, 200.0)?,
            _ => x,
        };
        self.apply1(body, block, &x, name)
    }

    /// Builds unary op `name` of `x` with its range rule.
    fn apply1(&mut self, body: &mut Body, block: Block, x: &Val, name: &str) -> Option<Val> {
        let r = x.range;
        let int = self.is_int(x.ty);
        let range = match name {
            "neg" => Range::new(-r.hi, -r.lo),
            "abs" => {
                if r.lo >= 0.0 {
                    r
                } else if r.hi <= 0.0 {
                    Range::new(-r.hi, -r.lo)
                } else {
                    Range::new(0.0, r.mag())
                }
            }
            "relu" => Range::new(r.lo.max(0.0), r.hi.max(0.0)),
            "exp" => r.monotone(f64::exp),
            "log" => r.monotone(|v| v.max(1e-300).ln()),
            "tanh" => r.monotone(f64::tanh),
            "sigmoid" => r.monotone(sigmoid),
            "silu" | "gelu" | "gelu_tanh" => {
                let f = |v: f64| if name == "silu" { v * sigmoid(v) } else { gelu(v) };
                let (at, min) = if name == "silu" { (-1.2785, -0.27846) } else { (-0.7518, -0.17) };
                let lo = if r.contains(at) { min } else { f(r.lo).min(f(r.hi)) };
                Range::new(lo - 2e-3, f(r.lo).max(f(r.hi)) + 2e-3).widen()
            }
            "sqrt" => r.monotone(|v| v.max(0.0).sqrt()),
            "rsqrt" => Range::new(1.0 / r.hi.sqrt(), 1.0 / r.lo.sqrt()).widen(),
            "sin" | "cos" => Range::new(-1.0, 1.0),
            "erf" => r.monotone(erf),
            "floor" if !int => r.monotone(f64::floor),
            "ceil" if !int => r.monotone(f64::ceil),
            "round" if !int => r.monotone(f64::round_ties_even),
            "sign" => {
                let s = |v: f64| if v > 0.0 { 1.0 } else if v < 0.0 { -1.0 } else { 0.0 };
                Range::new(s(r.lo), s(r.hi))
            }
            _ => r, // integer floor/ceil/round are the identity
        };
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = match name {
            "neg" => tensor::neg(&mut b, x.v),
            "abs" => tensor::abs(&mut b, x.v),
            "relu" => tensor::relu(&mut b, x.v),
            "exp" => tensor::exp(&mut b, x.v),
            "log" => tensor::log(&mut b, x.v),
            "tanh" => tensor::tanh(&mut b, x.v),
            "sigmoid" => tensor::sigmoid(&mut b, x.v),
            "silu" => tensor::silu(&mut b, x.v),
            "sqrt" => tensor::sqrt(&mut b, x.v),
            "rsqrt" => tensor::rsqrt(&mut b, x.v),
            "gelu" => tensor::gelu(&mut b, x.v, "none"),
            "gelu_tanh" => tensor::gelu(&mut b, x.v, "tanh"),
            "sin" => tensor::sin(&mut b, x.v),
            "cos" => tensor::cos(&mut b, x.v),
            "erf" => tensor::erf(&mut b, x.v),
            "floor" => tensor::floor(&mut b, x.v),
            "ceil" => tensor::ceil(&mut b, x.v),
            "round" => tensor::round(&mut b, x.v),
            _ => tensor::sign(&mut b, x.v),
        };
        let opname = if name == "gelu_tanh" { "tensor.gelu".to_string() } else { format!("tensor.{name}") };
        self.keep(body, v, &opname, x.dims.clone(), range, x.exact_int, x.dep)
    }

    /// A value that broadcasts with `x` (same element type): from the pool, or a constant of a
    /// suffix of its shape (some dims 1, sometimes an extra leading dim).
    fn partner(&mut self, body: &mut Body, block: Block, pool: &[Val], x: &Val, range: Range) -> Option<Val> {
        let cands: Vec<Val> = pool
            .iter()
            .filter(|v| self.elem(v.ty) == self.elem(x.ty) && broadcast_shapes(&x.dims, &v.dims).is_ok())
            .cloned()
            .collect();
        match self.pick(&cands) {
            Some(c) if self.chance(60) => Some(c),
            _ if self.chance(15) => {
                // the identities and absorbing values the folds look for
                let k = self.pick(&[0.0, -0.0, 1.0, -1.0, 0.5, 2.0])?;
                self.scalar_const(body, block, self.elem(x.ty), k)
            }
            _ => {
                let keep = self.below(x.dims.len() + 1);
                let mut s: Vec<usize> = x.dims[x.dims.len() - keep..].to_vec();
                for d in s.iter_mut() {
                    if self.chance(25) {
                        *d = 1;
                    }
                }
                if self.chance(10) && s.len() < 4 {
                    s.insert(0, 2);
                }
                self.constant(body, block, &s, self.elem(x.ty), range)
            }
        }
    }

    /// A binary elementwise op of `x` and a partner (divisors kept away from zero, `pow`
    /// bases positive and bounded, `rem` by constants).
    fn binary(&mut self, body: &mut Body, block: Block, pool: &[Val], x: Val) -> Option<Val> {
        if self.is_i1(x.ty) {
            return None;
        }
        let float = self.is_float(x.ty);
        let name = if float { self.pick(&BINARY_FLOAT)? } else { self.pick(&BINARY_INT)? };
        let e = self.elem(x.ty);
        if self.chance(12) {
            // an identity or absorbing operand, on either side (x + -0.0, 0 * x, x / 1, ...):
            // what canonicalize's folds look for, on values that may be -0.0, NaN or infinite
            let name = self.pick(&["add", "sub", "mul", "div", "max", "min"])?;
            let k = self.pick(&[0.0, -0.0, 1.0, -1.0])?;
            if name == "div" && k == 0.0 {
                return None;
            }
            let c = self.scalar_const(body, block, e, k)?;
            return if name != "div" && self.chance(50) {
                self.apply2(body, block, &c, &x, name)
            } else {
                self.apply2(body, block, &x, &c, name)
            };
        }
        match name {
            "div" if float => {
                let y = self.partner(body, block, pool, &x, Range::new(0.5, 3.0))?;
                let mut y = self.positive(body, block, y, 0.25, 1e4)?;
                if self.chance(30) {
                    y = self.apply1(body, block, &y, "neg")?;
                }
                let (a, b) = (x, y);
                self.apply2(body, block, &a, &b, "div")
            }
            "div" | "rem" => {
                let c = if float {
                    self.pick(&[0.75, 1.5, -1.25, 2.0, 3.0, 0.1])?
                } else {
                    self.pick(&[3.0, -2.0, 5.0, 7.0])?
                };
                let dims: Vec<usize> = match x.dims.last() {
                    Some(&d) if self.chance(30) => vec![d],
                    _ => vec![],
                };
                let y = self.constant(body, block, &dims, e, Range::new(c, c))?;
                self.apply2(body, block, &x, &y, name)
            }
            "pow" if float => {
                let base = self.positive(body, block, x, 0.25, 4.0)?;
                let y = self.partner(body, block, pool, &base, Range::new(-2.0, 2.0))?;
                let y = self.bounded(body, block, y, 3.0)?;
                self.apply2(body, block, &base, &y, "pow")
            }
            "pow" => {
                let base = self.bounded(body, block, x, 8.0);
                let base = base.filter(|b| self.is_int(b.ty))?;
                let k = self.pick(&[0.0, 1.0, 2.0, 3.0])?;
                let y = self.scalar_const(body, block, e, k)?;
                self.apply2(body, block, &base, &y, "pow")
            }
            _ => {
                let y = self.partner(body, block, pool, &x, x.range)?;
                if self.chance(50) {
                    self.apply2(body, block, &x, &y, name)
                } else {
                    self.apply2(body, block, &y, &x, name)
                }
            }
        }
    }

    /// Builds binary op `name` of `a` and `b` with its range rule.
    fn apply2(&mut self, body: &mut Body, block: Block, a: &Val, b: &Val, name: &str) -> Option<Val> {
        let dims = broadcast_shapes(&a.dims, &b.dims).ok()?;
        let (x, y) = (a.range, b.range);
        let corners = |f: &dyn Fn(f64, f64) -> f64| {
            let c = [f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)];
            Range::new(c.iter().cloned().fold(f64::INFINITY, f64::min), c.iter().cloned().fold(f64::NEG_INFINITY, f64::max))
                .widen()
        };
        let int = self.is_int(a.ty);
        let range = match name {
            "add" => Range::new(x.lo + y.lo, x.hi + y.hi).widen(),
            "sub" => Range::new(x.lo - y.hi, x.hi - y.lo).widen(),
            "mul" => corners(&|p, q| p * q),
            "div" if int => Range::new(-x.mag(), x.mag()),
            "div" => {
                if y.contains(0.0) {
                    return None;
                }
                corners(&|p, q| p / q)
            }
            "max" => Range::new(x.lo.max(y.lo), x.hi.max(y.hi)),
            "min" => Range::new(x.lo.min(y.lo), x.hi.min(y.hi)),
            "pow" if int => {
                let m = x.mag().powf(y.mag());
                Range::new(-m, m)
            }
            "pow" => {
                if x.lo <= 0.0 {
                    return None;
                }
                corners(&|p, q| p.powf(q))
            }
            _ => {
                // rem: between 0 and the divisor
                let m = y.mag();
                if y.contains(0.0) {
                    return None;
                }
                if y.lo > 0.0 {
                    Range::new(0.0, m).widen()
                } else {
                    Range::new(-m, 0.0).widen()
                }
            }
        };
        let mut bld = Builder::at_end(self.ctx, body, block);
        let v = match name {
            "add" => tensor::add(&mut bld, a.v, b.v),
            "sub" => tensor::sub(&mut bld, a.v, b.v),
            "mul" => tensor::mul(&mut bld, a.v, b.v),
            "div" => tensor::div(&mut bld, a.v, b.v),
            "max" => tensor::max(&mut bld, a.v, b.v),
            "min" => tensor::min(&mut bld, a.v, b.v),
            "pow" => tensor::pow(&mut bld, a.v, b.v),
            _ => tensor::rem(&mut bld, a.v, b.v),
        };
        let exact = a.exact_int && b.exact_int;
        self.keep(body, v, &format!("tensor.{name}"), dims, range, exact, a.dep | b.dep)
    }

    /// `clamp(x, lo, hi)`.
    fn apply3(&mut self, body: &mut Body, block: Block, x: &Val, lo: &Val, hi: &Val) -> Option<Val> {
        let d = broadcast_shapes(&x.dims, &lo.dims).ok()?;
        let dims = broadcast_shapes(&d, &hi.dims).ok()?;
        let m = Range::new(x.range.lo.max(lo.range.lo), x.range.hi.max(lo.range.hi));
        let range = Range::new(m.lo.min(hi.range.lo), m.hi.min(hi.range.hi));
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::clamp(&mut b, x.v, lo.v, hi.v);
        let exact = x.exact_int && lo.exact_int && hi.exact_int;
        self.keep(body, v, "tensor.clamp", dims, range, exact, x.dep | lo.dep | hi.dep)
    }

    /// `clamp` of `x` with constant bounds, or `select(cmp(x, y), x or y, y or x)`.
    fn clamp_or_select(&mut self, body: &mut Body, block: Block, pool: &[Val], x: Val) -> Option<Val> {
        if self.is_i1(x.ty) {
            return None;
        }
        let e = self.elem(x.ty);
        if self.chance(35) {
            let a = self.uniform(x.range.lo, x.range.hi);
            let b = self.uniform(x.range.lo, x.range.hi);
            let (a, b) = if self.is_int(x.ty) { (a.round(), b.round()) } else { ((a * 8.0).round() / 8.0, (b * 8.0).round() / 8.0) };
            let lo = self.scalar_const(body, block, e, a.min(b))?;
            let hi = self.scalar_const(body, block, e, a.max(b))?;
            return self.apply3(body, block, &x, &lo, &hi);
        }
        let y = self.partner(body, block, pool, &x, x.range)?;
        let pred = self.pick(&["eq", "ne", "lt", "le", "gt", "ge"])?;
        let cdims = broadcast_shapes(&x.dims, &y.dims).ok()?;
        let mut b = Builder::at_end(self.ctx, body, block);
        let c = tensor::cmp(&mut b, x.v, y.v, pred);
        let c = self.keep(body, c, "tensor.cmp", cdims.clone(), Range::new(0.0, 1.0), x.exact_int && y.exact_int, x.dep | y.dep)?;
        if self.chance(15) {
            return Some(c); // an i1 result (returned, or cast later)
        }
        let (p, q) = if self.chance(50) { (&x, &y) } else { (&y, &x) };
        let dims = broadcast_shapes(&cdims, &p.dims).ok()?;
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::select(&mut b, c.v, p.v, q.v);
        let range = p.range.union(q.range);
        self.keep(body, v, "tensor.select", dims, range, x.exact_int && y.exact_int, x.dep | y.dep)
    }

    /// `tensor.cast` to another element type the value's range fits.
    fn cast(&mut self, body: &mut Body, block: Block, x: Val) -> Option<Val> {
        let c = self.ctx;
        let to = if self.is_float(x.ty) {
            self.pick(&[c.f32_type(), c.f64_type(), c.f16_type(), c.bf16_type(), c.i32_type(), c.i64_type(), c.i1_type()])?
        } else if self.is_i1(x.ty) {
            self.pick(&[c.f32_type(), c.i32_type()])?
        } else {
            self.pick(&[c.f32_type(), c.f64_type(), c.i64_type(), c.f16_type()])?
        };
        if to == self.elem(x.ty) {
            return None;
        }
        let range = if to == c.i1_type() {
            Range::new(0.0, 1.0)
        } else if !c.is_float(to) && self.is_float(x.ty) {
            Range::new(x.range.lo.trunc(), x.range.hi.trunc())
        } else {
            x.range.widen()
        };
        let exact = (x.exact_int && !c.is_float(to)) || (self.is_i1(x.ty) && x.exact_int);
        let mut b = Builder::at_end(c, body, block);
        let v = tensor::cast(&mut b, x.v, to);
        self.keep(body, v, "tensor.cast", x.dims.clone(), range, exact, x.dep)
    }

    /// `broadcast_to` of `x` (some size-1 dims widened, sometimes a new leading dim).
    fn broadcast(&mut self, body: &mut Body, block: Block, x: Val) -> Option<Val> {
        let ts = self.type_shape(x.ty);
        let mut dims = x.dims.clone();
        let mut shape = ts.clone();
        for (i, d) in dims.iter_mut().enumerate() {
            if *d == 1 && ts[i] == 1 && self.chance(60) {
                *d = 2 + self.below(2);
                shape[i] = *d as i64;
            }
        }
        if dims.len() < 4 && self.chance(50) {
            let n = 1 + self.below(3);
            dims.insert(0, n);
            shape.insert(0, n as i64);
        }
        if dims == x.dims {
            return None;
        }
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::broadcast_to(&mut b, x.v, &shape);
        self.keep(body, v, "tensor.broadcast_to", dims, x.range, x.exact_int, x.dep)
    }

    /// A `matmul` or an `einsum` of `x` (with its transpose, a constant or a pool value).
    fn contraction(&mut self, body: &mut Body, block: Block, pool: &[Val], x: Val) -> Option<Val> {
        if self.is_i1(x.ty) || x.dims.is_empty() {
            return None;
        }
        let e = self.elem(x.ty);
        let ts = self.type_shape(x.ty);
        let r = x.dims.len();
        let partner_range = Range::new(-1.0, 1.0);
        if self.chance(50) && r >= 2 {
            let k = x.dims[r - 1];
            let rhs = match self.below(3) {
                0 => {
                    let mut perm: Vec<i64> = (0..r as i64).collect();
                    perm.swap(r - 2, r - 1);
                    let mut d = x.dims.clone();
                    d.swap(r - 2, r - 1);
                    let mut b = Builder::at_end(self.ctx, body, block);
                    let v = tensor::transpose(&mut b, x.v, &perm);
                    self.keep(body, v, "tensor.transpose", d, x.range, x.exact_int, x.dep)?
                }
                1 => {
                    let mut s = if self.chance(30) { vec![1 + self.below(2)] } else { Vec::new() };
                    s.extend([k, 1 + self.below(3)]);
                    self.constant(body, block, &s, e, partner_range)?
                }
                _ => {
                    let cands: Vec<Val> = pool
                        .iter()
                        .filter(|v| {
                            let s = self.type_shape(v.ty);
                            v.dims.len() >= 2
                                && v.dims[v.dims.len() - 2] == k
                                && (s[s.len() - 2] == ts[r - 1] || s[s.len() - 2] == DYNAMIC || ts[r - 1] == DYNAMIC)
                                && self.elem(v.ty) == e
                        })
                        .cloned()
                        .collect();
                    self.pick(&cands)?
                }
            };
            let swap = self.chance(15);
            let (a, b) = if swap { (&rhs, &x) } else { (&x, &rhs) };
            let (ad, bd) = (&a.dims, &b.dims);
            let (ar, br) = (ad.len(), bd.len());
            if ad[ar - 1] != bd[br - 2] {
                return None;
            }
            let mut dims = broadcast_shapes(&ad[..ar - 2], &bd[..br - 2]).ok()?;
            dims.extend([ad[ar - 2], bd[br - 1]]);
            let kk = ad[ar - 1] as f64;
            let m = kk * a.range.mag() * b.range.mag();
            let mut bld = Builder::at_end(self.ctx, body, block);
            let v = tensor::matmul(&mut bld, a.v, b.v);
            return self.keep(body, v, "tensor.matmul", dims, Range::new(-m, m).widen(), a.exact_int && b.exact_int, a.dep | b.dep);
        }
        if r > 6 {
            return None;
        }
        let labels: Vec<char> = "ijklmn".chars().take(r).collect();
        let l: String = labels.iter().collect();
        let (eq, others, out_dims, terms, mag): (String, Vec<Val>, Vec<usize>, usize, f64) = match self.below(4) {
            0 => {
                let mut out: Vec<usize> = (0..r).filter(|_| self.chance(70)).collect();
                if out.len() > 1 && self.chance(50) {
                    out.reverse();
                }
                let summed: usize = (0..r).filter(|i| !out.contains(i)).map(|i| x.dims[i]).product();
                let o: String = out.iter().map(|&i| labels[i]).collect();
                let dims = out.iter().map(|&i| x.dims[i]).collect();
                (format!("{l}->{o}"), vec![], dims, summed, x.range.mag())
            }
            1 => {
                // implicit mode: "ij,ij" sums everything (no label appears once)
                let n: usize = x.dims.iter().product();
                (format!("{l},{l}"), vec![x.clone()], vec![], n, x.range.mag() * x.range.mag())
            }
            2 => {
                let k = *x.dims.last()?;
                let n = 1 + self.below(3);
                let c = self.constant(body, block, &[k, n], e, partner_range)?;
                let last = *labels.last()?;
                let keep: String = labels[..r - 1].iter().collect();
                let mut dims = x.dims[..r - 1].to_vec();
                dims.push(n);
                (format!("{l},{last}z->{keep}z"), vec![c], dims, k, x.range.mag())
            }
            _ => {
                let cands: Vec<Val> = pool.iter().filter(|v| v.dims.len() == 1 && self.elem(v.ty) == e).cloned().collect();
                let c = self.pick(&cands)?;
                if r >= 4 {
                    return None;
                }
                let mut dims = x.dims.clone();
                dims.push(c.dims[0]);
                let m = x.range.mag() * c.range.mag();
                (format!("{l},z->{l}z"), vec![c], dims, 1, m)
            }
        };
        let mut ops = vec![x.v];
        ops.extend(others.iter().map(|o| o.v));
        let m = terms as f64 * mag;
        let dep = x.dep | others.iter().fold(0, |m, o| m | o.dep);
        let exact = x.exact_int && others.iter().all(|o| o.exact_int);
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::einsum(&mut b, &ops, &eq);
        self.keep(body, v, "tensor.einsum", out_dims, Range::new(-m, m).widen(), exact, dep)
    }

    /// A `reduce` (any kind), `softmax` or `layer_norm` of `x` (kind 0, 1, 2).
    fn reduction(&mut self, body: &mut Body, block: Block, pool: &[Val], x: Val, kind: usize) -> Option<Val> {
        let r = x.dims.len();
        if r == 0 || self.is_i1(x.ty) {
            return None;
        }
        let e = self.elem(x.ty);
        let float = self.is_float(x.ty);
        match kind {
            0 => {
                let mut axes: Vec<usize> = (0..r).filter(|_| self.chance(50)).collect();
                if axes.is_empty() {
                    axes.push(self.below(r));
                }
                let n: usize = axes.iter().map(|&a| x.dims[a]).product();
                let which = self.pick(&["sum", "max", "min", "mean", "prod"])?;
                let range = match which {
                    "sum" => x.range.scale(n as f64).union(Range::new(0.0, 0.0)).widen(),
                    "prod" => {
                        if n > 4 || x.range.mag() > 3.0 {
                            return None;
                        }
                        let m = x.range.mag().powi(n as i32);
                        Range::new(-m, m).widen()
                    }
                    _ => x.range.widen(),
                };
                let keep = self.chance(40);
                let mut dims = Vec::new();
                for (i, &d) in x.dims.iter().enumerate() {
                    if !axes.contains(&i) {
                        dims.push(d);
                    } else if keep {
                        dims.push(1);
                    }
                }
                let spelled: Vec<i64> = axes
                    .iter()
                    .map(|&a| if self.chance(30) { a as i64 - r as i64 } else { a as i64 })
                    .collect();
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::reduce(&mut b, x.v, which, &spelled, keep);
                self.keep(body, v, "tensor.reduce", dims, range, x.exact_int && which != "mean", x.dep)
            }
            1 if float => {
                let x = self.bounded(body, block, x, 60.0)?;
                let ax = self.below(r) as i64 - if self.chance(30) { r as i64 } else { 0 };
                let dims = x.dims.clone();
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::softmax(&mut b, x.v, ax);
                self.keep(body, v, "tensor.softmax", dims, Range::new(0.0, 1.0).widen(), false, x.dep)
            }
            2 if float => {
                let axis = self.below(r);
                let norm: Vec<usize> = x.dims[axis..].to_vec();
                let nts: Vec<i64> = self.type_shape(x.ty)[axis..].to_vec();
                let n: usize = norm.iter().product();
                let mut params = Vec::new();
                for range in [Range::new(0.5, 2.0), Range::new(-1.0, 1.0)] {
                    let cands: Vec<Val> = pool
                        .iter()
                        .filter(|v| v.dims == norm && self.type_shape(v.ty) == nts && self.elem(v.ty) == e && v.range.mag() <= 10.0)
                        .cloned()
                        .collect();
                    let p = match self.pick(&cands) {
                        Some(p) if self.chance(40) => p,
                        _ => self.constant(body, block, &norm, e, range)?,
                    };
                    params.push(p);
                }
                let eps = self.pick(&[1e-5, 1e-3, 0.1])?;
                let s = ((n.max(1) - 1) as f64).sqrt().max(1.0);
                let m = s * params[0].range.mag() + params[1].range.mag();
                let ax = axis as i64 - if self.chance(30) { r as i64 } else { 0 };
                let dep = x.dep | params.iter().fold(0, |m, p| m | p.dep);
                let dims = x.dims.clone();
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::layer_norm(&mut b, x.v, params[0].v, params[1].v, ax, eps);
                self.keep(body, v, "tensor.layer_norm", dims, Range::new(-m, m).widen(), false, dep)
            }
            _ => None,
        }
    }

    /// A `transpose`, `reshape`, `broadcast_to`, `slice` or `concat` of `x`.
    fn layout(&mut self, body: &mut Body, block: Block, pool: &[Val], x: Val) -> Option<Val> {
        let r = x.dims.len();
        let ts = self.type_shape(x.ty);
        let e = self.elem(x.ty);
        match self.below(5) {
            0 => {
                if r < 2 {
                    return None;
                }
                let mut perm: Vec<i64> = (0..r as i64).collect();
                for i in (1..r).rev() {
                    let j = self.below(i + 1);
                    perm.swap(i, j);
                }
                let dims = perm.iter().map(|&p| x.dims[p as usize]).collect();
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::transpose(&mut b, x.v, &perm);
                self.keep(body, v, "tensor.transpose", dims, x.range, x.exact_int, x.dep)
            }
            1 => {
                let n: usize = x.dims.iter().product();
                let dims: Vec<usize> = match self.below(3) {
                    0 => vec![n],
                    1 => vec![1, n],
                    _ => {
                        let ds: Vec<usize> = (1..=n).filter(|d| n % d == 0).collect();
                        let f = self.pick(&ds)?;
                        vec![f, n / f]
                    }
                };
                let mut shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
                if ts.contains(&DYNAMIC) || self.chance(15) {
                    let i = self.below(shape.len());
                    shape[i] = DYNAMIC;
                }
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::reshape(&mut b, x.v, &shape);
                self.keep(body, v, "tensor.reshape", dims, x.range, x.exact_int, x.dep)
            }
            2 => self.broadcast(body, block, x),
            3 => {
                if r == 0 {
                    return None;
                }
                let (mut start, mut limit, mut stride, mut dims) = (vec![], vec![], vec![], vec![]);
                for &d in &x.dims {
                    let lo = self.below(d);
                    let hi = lo + 1 + self.below(d - lo);
                    let st = 1 + self.below(2);
                    start.push(lo as i64);
                    limit.push(hi as i64);
                    stride.push(st as i64);
                    dims.push((hi - lo).div_ceil(st));
                }
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::slice(&mut b, x.v, &start, &limit, &stride);
                self.keep(body, v, "tensor.slice", dims, x.range, x.exact_int, x.dep)
            }
            _ => {
                if r == 0 {
                    return None;
                }
                let axis = self.below(r);
                let cands: Vec<Val> = pool
                    .iter()
                    .filter(|v| {
                        let s = self.type_shape(v.ty);
                        self.elem(v.ty) == e
                            && v.dims.len() == r
                            && (0..r).all(|d| d == axis || (v.dims[d] == x.dims[d] && (s[d] == ts[d] || s[d] == DYNAMIC || ts[d] == DYNAMIC)))
                    })
                    .cloned()
                    .collect();
                let c = match self.pick(&cands) {
                    Some(c) if self.chance(70) => c,
                    _ => {
                        let mut s = x.dims.clone();
                        s[axis] = 1 + self.below(2);
                        self.constant(body, block, &s, e, x.range)?
                    }
                };
                let parts = if self.chance(60) { vec![x.clone(), c] } else { vec![c, x.clone(), x.clone()] };
                let mut dims = x.dims.clone();
                dims[axis] = parts.iter().map(|p| p.dims[axis]).sum();
                let range = parts.iter().fold(x.range, |a, p| a.union(p.range));
                let ax = axis as i64 - if self.chance(30) { r as i64 } else { 0 };
                let vs: Vec<Value> = parts.iter().map(|p| p.v).collect();
                let exact = parts.iter().all(|p| p.exact_int);
                let dep = parts.iter().fold(0, |m, p| m | p.dep);
                let mut b = Builder::at_end(self.ctx, body, block);
                let v = tensor::concat(&mut b, &vs, ax);
                self.keep(body, v, "tensor.concat", dims, range, exact, dep)
            }
        }
    }

    /// A `gather` from `x` at constant indices (now and then one out of range: a run-time
    /// error everywhere), at indices computed from an exact integer value (`rem(abs(i), size +
    /// 1)`: sometimes `size`, out of range), or at indices computed from a float value and
    /// clamped into range.
    fn gather(&mut self, body: &mut Body, block: Block, pool: &[Val], x: Val) -> Option<Val> {
        let r = x.dims.len();
        if r == 0 {
            return None;
        }
        let ctx = self.ctx;
        let axis = self.below(r);
        let size = x.dims[axis];
        let idx_elem = if self.chance(70) { ctx.i32_type() } else { ctx.i64_type() };
        let idx: Val = match self.below(3) {
            0 => {
                let idims: Vec<usize> = (0..self.below(3)).map(|_| 1 + self.below(3)).collect();
                let n: usize = idims.iter().product();
                let wild = self.chance(5);
                let vals: Vec<f64> = (0..n)
                    .map(|_| if wild { self.below(size + 2) as f64 - 1.0 } else { self.below(size) as f64 })
                    .collect();
                let e = ElemType::from_type(ctx, idx_elem)?;
                let t = Tensor::from_f64s(e, &idims, &vals).ok()?;
                let mut b = Builder::at_end(ctx, body, block);
                let v = tensor::constant(&mut b, tensor_to_attr(ctx, &t)).ok()?;
                self.count("tensor.constant");
                self.val(body, v, idims, Range::new(-1.0, size as f64), true, 0)
            }
            1 => {
                let cands: Vec<Val> = pool.iter().filter(|v| v.exact_int && self.is_int(v.ty) && v.dims.len() <= 2).cloned().collect();
                let src = self.pick(&cands)?;
                let src = if self.elem(src.ty) == idx_elem { src } else { self.cast_to(body, block, &src, idx_elem)? };
                let a = self.apply1(body, block, &src, "abs")?;
                let extra = if self.chance(20) { 1.0 } else { 0.0 };
                let m = self.scalar_const(body, block, idx_elem, size as f64 + extra)?;
                self.apply2(body, block, &a, &m, "rem")?
            }
            _ => {
                let cands: Vec<Val> = pool.iter().filter(|v| self.is_float(v.ty) && v.dims.len() <= 2).cloned().collect();
                let src = self.pick(&cands)?;
                let k = self.scalar_const(body, block, self.elem(src.ty), 0.5 * size as f64 + 0.5)?;
                let s = self.apply2(body, block, &src, &k, "mul")?;
                let a = self.apply1(body, block, &s, "abs")?;
                let i = self.cast_to(body, block, &a, idx_elem)?;
                let lo = self.scalar_const(body, block, idx_elem, 0.0)?;
                let hi = self.scalar_const(body, block, idx_elem, size as f64 - 1.0)?;
                self.apply3(body, block, &i, &lo, &hi)?
            }
        };
        let mut dims = x.dims[..axis].to_vec();
        dims.extend(&idx.dims);
        dims.extend(&x.dims[axis + 1..]);
        let ax = axis as i64 - if self.chance(30) { r as i64 } else { 0 };
        let mut b = Builder::at_end(ctx, body, block);
        let v = tensor::gather(&mut b, x.v, idx.v, ax);
        self.keep(body, v, "tensor.gather", dims, x.range, x.exact_int, x.dep | idx.dep)
    }

    fn cast_to(&mut self, body: &mut Body, block: Block, x: &Val, to: Type) -> Option<Val> {
        let range = if self.is_float(x.ty) && !self.ctx.is_float(to) {
            Range::new(x.range.lo.trunc(), x.range.hi.trunc())
        } else {
            x.range
        };
        let mut b = Builder::at_end(self.ctx, body, block);
        let v = tensor::cast(&mut b, x.v, to);
        self.keep(body, v, "tensor.cast", x.dims.clone(), range, x.exact_int, x.dep)
    }
}
