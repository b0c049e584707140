//! A generator of small random annotated programs for the `shard-partition` differential test:
//! a `shard.grid` (1-D or 2-D, sometimes with an axis of size 1) and a `@main` whose values
//! are drawn from the tensor ops that have a loop structure (elementwise with broadcasting,
//! matmul, einsum, reduce of every kind, softmax, layer_norm, transpose) and a few opaque ones
//! (reshape, concat), built with the typed builders; arguments are added as ops need them.
//! Values get random `shard.shard` annotations (stored ones, and `annotate_for_users` ones
//! before a use or a return), on any dims their sizes allow, so strategies conflict, reduction
//! loops get split and partial values are resolved to arbitrary layouts. Sizes are products
//! of 2 and 3 so most splits divide. Deterministic per seed (SplitMix64).

use std::collections::BTreeMap;

use xcs_dialects::interp::random::SplitMix64;
use xcs_dialects::interp::{random_tensor, tensor_to_attr, ElemType};
use xcs_dialects::shape::ranked;
use xcs_dialects::shard::{build, Grid, Sharding};
use xcs_dialects::tensor;
use xcs_ir::{Block, Body, Builder, Context, Location, Module, Type, Value};

/// What the generated programs contain (op kinds built, annotations).
#[derive(Default, Debug)]
pub struct Stats {
    pub ops: BTreeMap<&'static str, usize>,
    pub annotations: usize,
    pub for_users: usize,
}

struct Gen<'a> {
    ctx: &'a Context,
    rng: SplitMix64,
    grid: Grid,
    /// Float programs use f32 (sometimes f64); integer ones i64 (sometimes i32).
    elem: Type,
    body: Box<Body>,
    block: Block,
    pool: Vec<Value>,
    stats: &'a mut Stats,
}

/// One random program.
pub fn program(ctx: &Context, seed: u64, stats: &mut Stats) -> Module {
    let mut rng = SplitMix64(seed.wrapping_mul(0x9E37_79B9).wrapping_add(101));
    let meshes: [&[i64]; 7] = [&[2], &[4], &[3], &[2, 2], &[2, 3], &[3, 2], &[1, 2]];
    let shape = meshes[(rng.next_u64() % meshes.len() as u64) as usize];
    let elem = match rng.next_u64() % 8 {
        0 => ctx.f64_type(),
        1 => ctx.i32_type(),
        2 | 3 => ctx.i64_type(),
        _ => ctx.f32_type(),
    };
    let mut body = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
    let region = body.add_root_region();
    let block = body.create_block(&[]);
    body.append_block(region, block);
    let mut g = Gen {
        ctx,
        rng,
        grid: Grid::new("mesh", shape),
        elem,
        body,
        block,
        pool: Vec::new(),
        stats,
    };
    g.main();
    let mut module = Module::new(ctx, Location::UNKNOWN);
    let mblock = module.block();
    build::grid(&mut Builder::at_end(ctx, &mut module.body, mblock), &g.grid);
    crate::support::append_func(ctx, &mut module, mblock, g.body);
    module
}

impl<'a> Gen<'a> {
    fn float(&self) -> bool {
        self.ctx.is_float(self.elem)
    }
    fn shape(&self, v: Value) -> Vec<i64> {
        ranked(self.ctx, self.body.value_type(v))
            .map(|(s, _)| s.to_vec())
            .unwrap_or_default()
    }
    fn size(&mut self) -> i64 {
        [1, 2, 3, 4, 6, 12][self.rng.below(6)]
    }
    fn builder(&mut self) -> Builder<'_> {
        Builder::at_end(self.ctx, &mut self.body, self.block)
    }
    fn count(&mut self, name: &'static str) {
        *self.stats.ops.entry(name).or_default() += 1;
    }

    /// A new argument of `shape`, annotated at random.
    fn arg(&mut self, shape: &[i64]) -> Value {
        self.arg_annotated(shape, 50)
    }

    /// A new argument of `shape`, annotated with probability `percent`.
    fn arg_annotated(&mut self, shape: &[i64], percent: usize) -> Value {
        let ty = self.ctx.tensor_type(shape, self.elem);
        let v = self.body.add_block_arg(self.block, ty);
        self.maybe_annotate(v, percent)
    }

    /// A random sharding of a tensor of `shape`: each grid axis splits a random dim it divides
    /// (after the axes already on it), or nothing.
    fn sharding(&mut self, shape: &[i64]) -> Sharding {
        let mut split: Vec<Vec<i64>> = vec![Vec::new(); shape.len()];
        for a in 0..self.grid.rank() {
            if shape.is_empty() || self.rng.chance(40) {
                continue;
            }
            let d = self.rng.below(shape.len());
            let n: i64 = split[d].iter().map(|&x| self.grid.shape[x as usize]).product::<i64>() * self.grid.shape[a];
            if shape[d] % n == 0 {
                split[d].push(a as i64);
            }
        }
        if split.is_empty() {
            split.push(Vec::new());
        }
        Sharding::new("mesh", split)
    }

    /// `v`, annotated (stored) with probability `percent`.
    fn maybe_annotate(&mut self, v: Value, percent: usize) -> Value {
        if !self.rng.chance(percent) {
            return v;
        }
        let s = self.sharding(&self.shape(v));
        self.stats.annotations += 1;
        build::annotate(&mut self.builder(), v, &s, false).unwrap_or(v)
    }

    /// `v` for one use: sometimes through an `annotate_for_users`.
    fn use_of(&mut self, v: Value) -> Value {
        if !self.rng.chance(25) {
            return v;
        }
        let s = self.sharding(&self.shape(v));
        self.stats.for_users += 1;
        build::annotate(&mut self.builder(), v, &s, true).unwrap_or(v)
    }

    /// `v` annotated for its users as split along grid `axis` on `dim` only (unchanged if the
    /// dim does not divide).
    fn split_for_users(&mut self, v: Value, dim: usize, axis: usize) -> Value {
        let shape = self.shape(v);
        if shape.get(dim).is_none_or(|&d| d % self.grid.shape[axis] != 0) {
            return v;
        }
        let mut split = vec![Vec::new(); dim + 1];
        split[dim].push(axis as i64);
        self.stats.for_users += 1;
        build::annotate(&mut self.builder(), v, &Sharding::new("mesh", split), true).unwrap_or(v)
    }

    /// A stored annotation of `v` splitting a random dim along `axis` (the resolution of a
    /// split reduction: a reduce_scatter when the dim divides).
    fn scatter_target(&mut self, v: Value, axis: usize) -> Value {
        let shape = self.shape(v);
        if shape.is_empty() {
            return v;
        }
        let d = self.rng.below(shape.len());
        if shape[d] % self.grid.shape[axis] != 0 {
            return v;
        }
        let mut split = vec![Vec::new(); d + 1];
        split[d].push(axis as i64);
        self.stats.annotations += 1;
        build::annotate(&mut self.builder(), v, &Sharding::new("mesh", split), false).unwrap_or(v)
    }

    fn pick(&mut self) -> Value {
        let n = self.pool.len();
        // favour recent values, so programs are chains more than forests
        let i = if self.rng.chance(60) {
            n - 1 - self.rng.below(n.min(3))
        } else {
            self.rng.below(n)
        };
        self.pool[i]
    }

    fn main(&mut self) {
        let rank = 1 + self.rng.below(3);
        let shape: Vec<i64> = (0..rank).map(|_| self.size()).collect();
        let x = self.arg_annotated(&shape, 100); // every program has an annotation
        self.pool.push(x);
        for _ in 0..3 + self.rng.below(7) {
            let a = self.pick();
            if let Some((v, name)) = self.op(a) {
                self.count(name);
                let v = self.maybe_annotate(v, 60);
                self.pool.push(v);
            }
        }
        let n = 1 + self.rng.below(2);
        let mut results = Vec::new();
        for i in 0..n {
            let v = if i == 0 {
                self.pool[self.pool.len() - 1]
            } else {
                self.pick()
            };
            results.push(self.use_of(v));
        }
        let ctx = self.ctx;
        let types: Vec<Type> = results.iter().map(|&v| self.body.value_type(v)).collect();
        let args: Vec<Type> = self
            .body
            .block_args(self.block)
            .iter()
            .map(|&v| self.body.value_type(v))
            .collect();
        let _ = self.builder().create_with_types("func.return", &results, &[], &[]);
        self.body.set_self_attr(ctx, "sym_name", Some(ctx.str_attr("main")));
        self.body.set_self_attr(
            ctx,
            "function_type",
            Some(ctx.type_attr(ctx.function_type(&args, &types))),
        );
    }

    /// One op on `a` (and partners it needs); its result and kind.
    fn op(&mut self, a: Value) -> Option<(Value, &'static str)> {
        let shape = self.shape(a);
        match self.rng.below(16) {
            0..=2 => self.unary(a),
            3..=5 => self.binary(a, &shape),
            6 | 7 if shape.len() >= 2 => self.matmul(a, &shape),
            8 if shape.len() >= 2 => self.einsum(a, &shape),
            9 | 10 if !shape.is_empty() => self.reduce(a, &shape),
            11 if !shape.is_empty() && self.float() => {
                let axis = self.rng.below(shape.len()) as i64;
                let x = self.use_of(a);
                Some((tensor::softmax(&mut self.builder(), x, axis).ok()?, "softmax"))
            }
            12 if !shape.is_empty() && self.float() => self.layer_norm(a, &shape),
            13 if shape.len() >= 2 => {
                let mut perm: Vec<i64> = (0..shape.len() as i64).collect();
                perm.rotate_left(1 + self.rng.below(shape.len() - 1));
                let x = self.use_of(a);
                Some((tensor::transpose(&mut self.builder(), x, &perm).ok()?, "transpose"))
            }
            14 if !shape.is_empty() => {
                let flat: i64 = shape.iter().product();
                let x = self.use_of(a);
                Some((
                    tensor::reshape(&mut self.builder(), x, &[flat]).ok()?,
                    "reshape (opaque)",
                ))
            }
            15 if !shape.is_empty() => {
                let (x, y) = (self.use_of(a), self.use_of(a));
                let axis = self.rng.below(shape.len()) as i64;
                Some((
                    tensor::concat(&mut self.builder(), &[x, y], axis).ok()?,
                    "concat (opaque)",
                ))
            }
            _ => self.unary(a),
        }
    }

    fn unary(&mut self, a: Value) -> Option<(Value, &'static str)> {
        let x = self.use_of(a);
        let mut b = Builder::at_end(self.ctx, &mut self.body, self.block);
        let k = (self.rng.next_u64() % 6) as usize;
        let v = match (self.ctx.is_float(self.elem), k) {
            (true, 0) => tensor::exp(&mut b, x),
            (true, 1) => tensor::tanh(&mut b, x),
            (true, 2) => tensor::sigmoid(&mut b, x),
            (_, 3) => tensor::abs(&mut b, x),
            (_, 4) => tensor::relu(&mut b, x),
            _ => tensor::neg(&mut b, x),
        };
        Some((v.ok()?, "unary"))
    }

    /// A partner of `shape` (or one that broadcasts against it): a pool value, a new argument
    /// or a constant (splat or not).
    fn partner(&mut self, shape: &[i64]) -> Option<Value> {
        let mut want = shape.to_vec();
        if !want.is_empty() && self.rng.chance(30) {
            let d = self.rng.below(want.len());
            want[d] = 1;
        }
        if !want.is_empty() && self.rng.chance(20) {
            want.remove(0);
        }
        let found: Vec<Value> = self.pool.iter().copied().filter(|&v| self.shape(v) == want).collect();
        match self.rng.below(4) {
            0 if !found.is_empty() => Some(found[self.rng.below(found.len())]),
            1 => self.constant(&want),
            _ => Some(self.arg(&want)),
        }
    }

    fn constant(&mut self, shape: &[i64]) -> Option<Value> {
        let ty = self.ctx.tensor_type(shape, self.elem);
        if self.rng.chance(50) {
            let mut b = self.builder();
            return match b.ctx.is_float(ty_elem(b.ctx, ty)) {
                true => tensor::splat_float(&mut b, ty, 0.5),
                false => tensor::splat_int(&mut b, ty, 3),
            }
            .ok();
        }
        let e = ElemType::from_type(self.ctx, self.elem)?;
        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        let t = random_tensor(e, &dims, self.rng.next_u64());
        let attr = tensor_to_attr(self.ctx, &t);
        tensor::constant(&mut self.builder(), attr).ok()
    }

    fn binary(&mut self, a: Value, shape: &[i64]) -> Option<(Value, &'static str)> {
        let c = self.partner(shape)?;
        let (x, y) = if self.rng.chance(50) { (a, c) } else { (c, a) };
        let (x, y) = (self.use_of(x), self.use_of(y));
        let k = self.rng.below(5);
        let mut b = self.builder();
        let v = match k {
            0 => tensor::add(&mut b, x, y),
            1 => tensor::sub(&mut b, x, y),
            2 => tensor::mul(&mut b, x, y),
            3 => tensor::max(&mut b, x, y),
            _ => tensor::min(&mut b, x, y),
        };
        Some((v.ok()?, "binary"))
    }

    /// `a [.., M, K]` times a new `[K, N]` argument (or its own transpose).
    fn matmul(&mut self, a: Value, shape: &[i64]) -> Option<(Value, &'static str)> {
        let k = shape[shape.len() - 1];
        let n = self.size();
        let w = self.arg(&[k, n]);
        if self.rng.chance(40) {
            // split K: a pending sum, resolved to a random split or replicated
            let axis = self.rng.below(self.grid.rank());
            let x = self.split_for_users(a, shape.len() - 1, axis);
            let w = self.split_for_users(w, 0, axis);
            let y = tensor::matmul(&mut self.builder(), x, w).ok()?;
            return Some((self.scatter_target(y, axis), "matmul (K split)"));
        }
        let (x, w) = (self.use_of(a), self.use_of(w));
        Some((tensor::matmul(&mut self.builder(), x, w).ok()?, "matmul"))
    }

    fn einsum(&mut self, a: Value, shape: &[i64]) -> Option<(Value, &'static str)> {
        let x = self.use_of(a);
        if shape.len() == 2 && self.rng.chance(50) {
            let n = self.size();
            let w = self.arg(&[shape[1], n]);
            let w = self.use_of(w);
            let eq = ["ij,jk->ik", "ij,jk->ki", "ij,jk->j"][self.rng.below(3)];
            return Some((tensor::einsum(&mut self.builder(), &[x, w], eq).ok()?, "einsum"));
        }
        let eq = match shape.len() {
            2 => ["ij->i", "ij->j", "ij->ji"][self.rng.below(3)],
            3 => ["bij->bj", "bij->ib", "bij->"][self.rng.below(3)],
            _ => ["abcd->ad", "abcd->bc"][self.rng.below(2)],
        };
        Some((tensor::einsum(&mut self.builder(), &[x], eq).ok()?, "einsum"))
    }

    fn reduce(&mut self, a: Value, shape: &[i64]) -> Option<(Value, &'static str)> {
        let mut axes: Vec<i64> = (0..shape.len() as i64).filter(|_| self.rng.chance(50)).collect();
        if axes.is_empty() {
            axes.push(self.rng.below(shape.len()) as i64);
        }
        let kind = ["sum", "max", "min", "mean"][self.rng.below(4)];
        let keepdims = self.rng.chance(30);
        if self.rng.chance(40) {
            // split a reduced dim
            let axis = self.rng.below(self.grid.rank());
            let x = self.split_for_users(a, axes[0] as usize, axis);
            let y = tensor::reduce(&mut self.builder(), x, kind, &axes, keepdims).ok()?;
            return Some((self.scatter_target(y, axis), "reduce (split)"));
        }
        let x = self.use_of(a);
        Some((
            tensor::reduce(&mut self.builder(), x, kind, &axes, keepdims).ok()?,
            "reduce",
        ))
    }

    fn layer_norm(&mut self, a: Value, shape: &[i64]) -> Option<(Value, &'static str)> {
        let axis = self.rng.below(shape.len());
        let normalized = &shape[axis..];
        let gamma = self.arg(normalized);
        let beta = self.constant(normalized)?;
        let (x, gamma) = (self.use_of(a), self.use_of(gamma));
        let v = tensor::layer_norm(&mut self.builder(), x, gamma, beta, axis as i64, 1e-5).ok()?;
        Some((v, "layer_norm"))
    }
}

fn ty_elem(ctx: &Context, ty: Type) -> Type {
    ranked(ctx, ty).map(|(_, e)| e).unwrap_or(ty)
}
