//! Tests of `auto-shard`: reshard paths and collective times against section 3 by hand, op
//! strategies, plans of small programs checked by hand (the MLP's column-then-row split), and
//! the property tests: on random programs (up to 10 ops on 1-D meshes, up to 6 on 2-D, with
//! and without memory limits, with fixed arguments and result requirements) the solver's
//! total equals the brute-force enumerator's optimum (`brute.rs`); the anytime search gives
//! plans no better than the optimum and says they are not proven.

use rustc_hash::FxHashMap;
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::{Context, Module};

use super::brute;
use super::build::Frontend;
use super::flops::module_flops;
use super::mesh::{seconds, Mesh, MeshAxis, Time};
use super::model::{Model, Program};
use super::sharding::{AxisState, Collective, Sharding, StateSpace, TensorType};
use super::solve::{solve, Options};
use crate::testing::ctx;
use crate::util;

/// A mesh of `shape` with axes `a0, a1, ...`, α = 1e-5 · (i+1) and bandwidth 1e10 / (i+1).
pub(crate) fn mesh(shape: &[u64]) -> Mesh {
    let axes = shape
        .iter()
        .enumerate()
        .map(|(i, &n)| MeshAxis { name: format!("a{i}"), size: n, alpha: 1e-5 * (i + 1) as f64, bandwidth: 1e10 / (i + 1) as f64 })
        .collect();
    Mesh::new(axes, 1e12).unwrap()
}

fn parse(ctx: &Context, src: &str) -> Module {
    parse_module(ctx, src, "t.mlir", &ParseOptions::default()).unwrap_or_else(|d| panic!("{}\n{src}", d.message))
}

/// The program of the first public function of `src`.
pub(crate) fn program(ctx: &Context, src: &str, mesh: &Mesh, outputs_free: bool) -> Program {
    let m = parse(ctx, src);
    let funcs: Vec<_> = m.body.top_ops().into_iter().filter(|&op| util::is_public(ctx, &m.body, op)).collect();
    let flops = module_flops(ctx, &m.body, &funcs).unwrap();
    let f = m.body.nested(funcs[0]).unwrap();
    let empty = FxHashMap::default();
    let fe = Frontend { ctx, mesh, flops: flops.get(&funcs[0]).unwrap_or(&empty), outputs_free, grid: "mesh" };
    fe.build(f).unwrap_or_else(|d| panic!("{}\n{src}", d.message)).0
}

fn sh(axes: &[AxisState]) -> Sharding {
    let mut s = Sharding::REPLICATED;
    for (a, &x) in axes.iter().enumerate() {
        s.set(a, x);
    }
    s
}

use AxisState::{Partial as P, Replicated as R, Split as S};

#[test]
fn collective_times_follow_section_3_1() {
    let m = mesh(&[4]);
    let ty = TensorType { shape: vec![8, 16], esize: 4 };
    let space = StateSpace::new(ty.clone(), &m).unwrap();
    let full = 8 * 16 * 4u64;
    let (alpha, beta) = (1e-5, 1.0 / 1e10);
    let close = |t: Time, want: f64| (seconds(t) - want).abs() <= 1e-12 * want.max(1e-30);
    // all_gather of S(0): s = full / 4, time α + (n-1)/n · n·s · β
    let p = space.path(&m, sh(&[S(0)]), sh(&[R]));
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].kind, Collective::AllGather);
    assert_eq!(p[0].bytes, full / 4);
    assert!(close(p[0].time, alpha + 0.75 * full as f64 * beta));
    // all_to_all S(0) -> S(1): α + (n-1)/n · s · β
    let p = space.path(&m, sh(&[S(0)]), sh(&[S(1)]));
    assert_eq!(p.iter().map(|s| s.kind).collect::<Vec<_>>(), vec![Collective::AllToAll]);
    assert!(close(p[0].time, alpha + 0.75 * (full / 4) as f64 * beta));
    // P -> R: one all_reduce, α + 2(n-1)/n · s · β (cheaper by α than reduce_scatter + all_gather)
    let p = space.path(&m, sh(&[P]), sh(&[R]));
    assert_eq!(p.iter().map(|s| s.kind).collect::<Vec<_>>(), vec![Collective::AllReduce]);
    assert!(close(p[0].time, alpha + 1.5 * full as f64 * beta));
    // P -> S(1): reduce_scatter
    let p = space.path(&m, sh(&[P]), sh(&[S(1)]));
    assert_eq!(p.iter().map(|s| s.kind).collect::<Vec<_>>(), vec![Collective::ReduceScatter]);
    assert!(close(p[0].time, alpha + 0.75 * full as f64 * beta));
    // R -> S(d): a free local slice
    let p = space.path(&m, sh(&[R]), sh(&[S(1)]));
    assert_eq!((p.len(), p[0].kind, p[0].time), (1, Collective::AllSlice, 0));
}

#[test]
fn swapping_split_dims_on_a_2d_mesh_is_gather_all_to_all_slice() {
    let m = mesh(&[2, 2]);
    let ty = TensorType { shape: vec![8, 8], esize: 4 };
    let space = StateSpace::new(ty, &m).unwrap();
    let p = space.path(&m, sh(&[S(0), S(1)]), sh(&[S(1), S(0)]));
    let kinds: Vec<Collective> = p.iter().map(|s| s.kind).collect();
    assert_eq!(kinds.len(), 3, "{p:?}");
    assert!(kinds.contains(&Collective::AllGather) && kinds.contains(&Collective::AllToAll) && kinds.contains(&Collective::AllSlice), "{kinds:?}");
    // every intermediate state is valid: no dim split twice
    for s in &p {
        assert!(super::sharding::is_valid(&space.ty, &m, s.to));
    }
}

#[test]
fn a_value_partial_on_two_axes_is_resolved_in_the_cheaper_order() {
    // Axis 0 is slow (bandwidth 1e10), axis 1 slower (5e9): reduce over the fast axis first
    // only if it shrinks what the slow one moves. Reduce-scatter on one axis, all-reduce on
    // the other: the shortest path is found among both orders.
    let m = mesh(&[2, 4]);
    let ty = TensorType { shape: vec![8, 8], esize: 4 };
    let space = StateSpace::new(ty.clone(), &m).unwrap();
    let from = sh(&[P, P]);
    let to = sh(&[S(0), R]);
    let p = space.path(&m, from, to);
    let total: Time = p.iter().map(|s| s.time).sum();
    // Every order of single-axis steps, by hand.
    let full = 8 * 8 * 4u64;
    let t = |a: usize, num: u64, den: u64, bytes: u64| m.collective_time(a, num, den, bytes);
    let a = t(0, 1, 2, full) + t(1, 6, 4, full / 2); // reduce_scatter axis 0, then all_reduce axis 1
    let b = t(1, 6, 4, full) + t(0, 1, 2, full); // all_reduce axis 1, then reduce_scatter axis 0
    assert_eq!(total, a.min(b));
    assert_eq!(space.times_from(&m, from)[space.index(to).unwrap() as usize], a.min(b));
}

#[test]
fn matmul_strategies_map_axes_injectively_to_divisible_loops() {
    let ctx = ctx();
    let m = mesh(&[2, 2]);
    let src = "func.func @f(%a: tensor<4x6xf32>, %b: tensor<6x3xf32>) -> tensor<4x3xf32> {\n  %0 = tensor.matmul %a, %b : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>\n  return %0 : tensor<4x3xf32>\n}\n";
    let prog = program(&ctx, src, &m, false);
    let super::model::OpKind::Loops(info) = &prog.ops[0].kind else { panic!() };
    // loops m=4, n=3 (odd: never split), k=6; per axis: unused, m or k; injective.
    let s = super::model::strategies(info, &m);
    assert_eq!(s.len(), 1 + 2 + 2 + 2, "{s:?}");
    let model = Model::new(prog).unwrap();
    // k on one axis gives P: resolutions R or S(0) (dim 1 has size 3, not divisible).
    assert!(model.choices[0].iter().any(|c| c.produced[0].is_partial() && c.resolved[0].0.get(0) == S(0)));
    assert!(model.choices[0].iter().all(|c| !c.resolved[0].0.dims(2, 2)[1].is_some()));
}

#[test]
fn mlp_splits_columns_then_rows_with_one_reduction() {
    // x[254, 4096] @ w1[4096, 16384] -> gelu -> @ w2[16384, 4096] on tp=4 (the batch of 254
    // cannot be split 4 ways): w1 split by columns, w2 by rows, the hidden activation split by
    // columns, one all_reduce of the output.
    let ctx = ctx();
    let axes = vec![MeshAxis { name: "tp".into(), size: 4, alpha: 5e-6, bandwidth: 100e9 }];
    let m = Mesh::new(axes, 1e14).unwrap();
    let src = "func.func @mlp(%x: tensor<254x4096xf32>, %w1: tensor<4096x16384xf32>, %w2: tensor<16384x4096xf32>) -> tensor<254x4096xf32> {
  %h = tensor.matmul %x, %w1 : (tensor<254x4096xf32>, tensor<4096x16384xf32>) -> tensor<254x16384xf32>
  %g = tensor.gelu %h {approximate = \"tanh\"} : tensor<254x16384xf32>
  %y = tensor.matmul %g, %w2 : (tensor<254x16384xf32>, tensor<16384x4096xf32>) -> tensor<254x4096xf32>
  return %y : tensor<254x4096xf32>
}
";
    let model = Model::new(program(&ctx, src, &m, false)).unwrap();
    let sol = solve(&model, &Options::default()).unwrap();
    assert!(sol.optimal);
    let state = |a: usize| model.spaces[model.value_type(model.program.args[a].value)].states[sol.plan.args[a] as usize];
    assert_eq!(state(1), sh(&[S(1)]), "w1 by columns");
    assert_eq!(state(2), sh(&[S(0)]), "w2 by rows");
    let c = |o: usize| &model.choices[o][sol.plan.ops[o] as usize];
    assert_eq!(c(0).resolved[0].0, sh(&[S(1)]));
    assert_eq!(c(1).resolved[0].0, sh(&[S(1)]));
    assert_eq!(c(2).produced[0], sh(&[P]));
    assert_eq!(c(2).resolved[0].0, sh(&[R]), "one all_reduce");
    // The total by hand: compute / 4 on each op, one all_reduce of 254x4096xf32.
    let flops: f64 = model.program.ops.iter().map(|o| o.flops).sum();
    let want = flops / 4.0 / 1e14 + 5e-6 + 1.5 * (254.0 * 4096.0 * 4.0) / 100e9;
    assert!((seconds(sol.eval.total()) - want).abs() < 1e-12, "{} vs {want}", seconds(sol.eval.total()));
    assert_eq!(brute::optimum(&model.program, None).unwrap().0, sol.eval.total());
}

#[test]
fn dynamic_shapes_are_located_errors() {
    let ctx = ctx();
    let src = "func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {\n  %0 = tensor.exp %a : tensor<?x4xf32>\n  return %0 : tensor<?x4xf32>\n}\n";
    let m = parse(&ctx, src);
    let func = m.body.top_ops()[0];
    let fe = Frontend { ctx: &ctx, mesh: &mesh(&[2]), flops: &FxHashMap::default(), outputs_free: false, grid: "mesh" };
    let err = fe.build(m.body.nested(func).unwrap()).unwrap_err();
    assert!(err.message.contains("dynamic dim"), "{}", err.message);
    assert!(!err.loc.is_unknown());
}

// ---------------------------------------------------------------------------- property tests

/// A small deterministic generator (xorshift64*).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

fn ty_text(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    if dims.is_empty() {
        "tensor<f32>".into()
    } else {
        format!("tensor<{}xf32>", dims.join("x"))
    }
}

/// A random function of up to `max_ops` tensor ops: elementwise (with broadcasts and
/// constants), matmul, einsum, transpose, reduce, softmax, layer_norm and an opaque reshape.
pub(crate) fn random_program_text(rng: &mut Rng, max_ops: usize) -> String {
    let dims = [2u64, 4, 4, 8, 6];
    let mut args: Vec<Vec<u64>> = Vec::new();
    let mut vals: Vec<(String, Vec<u64>)> = Vec::new();
    let mut body = String::new();
    let new_arg = |args: &mut Vec<Vec<u64>>, shape: Vec<u64>| -> String {
        args.push(shape);
        format!("%arg{}", args.len() - 1)
    };
    for _ in 0..1 + rng.below(2) {
        let rank = 1 + rng.below(2);
        let shape: Vec<u64> = (0..rank).map(|_| *rng.pick(&dims)).collect();
        let name = new_arg(&mut args, shape.clone());
        vals.push((name, shape));
    }
    let n_ops = 1 + rng.below(max_ops);
    let mut n = 0;
    while n < n_ops {
        let (x, xs) = vals[rng.below(vals.len())].clone();
        let r = format!("%v{n}");
        let t = ty_text(&xs);
        let line = match rng.below(10) {
            0 => format!("{r} = tensor.exp {x} : {t}"),
            1 | 2 => {
                let other = match rng.below(4) {
                    0 => vals.iter().find(|(n2, s)| *s == xs && *n2 != x).map(|v| v.0.clone()),
                    1 => Some(new_arg(&mut args, xs.clone())),
                    2 if !xs.is_empty() => Some(new_arg(&mut args, xs[xs.len() - 1..].to_vec())),
                    _ => {
                        body.push_str(&format!("  %c{n} = tensor.constant {{value = dense<1.5> : {t}}} : {t}\n"));
                        Some(format!("%c{n}"))
                    }
                };
                let Some(other) = other else { continue };
                let ot = vals.iter().find(|v| v.0 == other).map(|v| ty_text(&v.1)).unwrap_or_else(|| {
                    if other.starts_with("%arg") {
                        ty_text(&args[other[4..].parse::<usize>().unwrap()])
                    } else {
                        t.clone()
                    }
                });
                let op = rng.pick(&["add", "mul", "sub"]);
                format!("{r} = tensor.{op} {x}, {other} : ({t}, {ot}) -> {t}")
            }
            3 | 4 if xs.len() == 2 => {
                let nn = *rng.pick(&dims);
                let w = vals.iter().find(|(_, s)| s.len() == 2 && s[0] == xs[1] && rng.chance(40)).map(|v| v.0.clone());
                let (w, ws) = match w {
                    Some(w) => {
                        let s = vals.iter().find(|v| v.0 == w).unwrap().1.clone();
                        (w, s)
                    }
                    None => (new_arg(&mut args, vec![xs[1], nn]), vec![xs[1], nn]),
                };
                let rt = ty_text(&[xs[0], ws[1]]);
                if rng.chance(30) {
                    format!("{r} = tensor.einsum {x}, {w} {{equation = \"ij,jk->ik\"}} : ({t}, {}) -> {rt}", ty_text(&ws))
                } else {
                    format!("{r} = tensor.matmul {x}, {w} : ({t}, {}) -> {rt}", ty_text(&ws))
                }
            }
            5 if xs.len() == 2 => format!("{r} = tensor.transpose {x} {{perm = array<i64: 1, 0>}} : ({t}) -> {}", ty_text(&[xs[1], xs[0]])),
            6 if !xs.is_empty() => {
                let axis = rng.below(xs.len());
                let keep = rng.chance(30);
                let kind = rng.pick(&["sum", "max", "mean", "min"]);
                let rs: Vec<u64> = xs.iter().enumerate().filter_map(|(d, &s)| if d == axis { keep.then_some(1) } else { Some(s) }).collect();
                format!("{r} = tensor.reduce {x} {{kind = \"{kind}\", axes = array<i64: {axis}>, keepdims = {keep}}} : ({t}) -> {}", ty_text(&rs))
            }
            7 if !xs.is_empty() => format!("{r} = tensor.softmax {x} {{axis = {}}} : {t}", rng.below(xs.len())),
            8 if xs.len() == 2 => {
                let g = new_arg(&mut args, vec![xs[1]]);
                let b = new_arg(&mut args, vec![xs[1]]);
                let gt = ty_text(&[xs[1]]);
                format!("{r} = tensor.layer_norm {x}, {g}, {b} {{axis = 1, epsilon = 1.0e-05 : f32}} : ({t}, {gt}, {gt}) -> {t}")
            }
            9 if xs.len() == 2 => {
                let flat = vec![xs[0] * xs[1]];
                let line = format!("{r} = tensor.reshape {x} : ({t}) -> {}", ty_text(&flat));
                body.push_str(&format!("  {line}\n"));
                vals.push((r, flat));
                n += 1;
                continue;
            }
            _ => continue,
        };
        let rs = match line.rsplit_once("-> ") {
            Some((_, ty)) if line.contains("->") && !line.contains(": tensor<") => parse_shape_text(ty),
            _ => xs.clone(),
        };
        body.push_str(&format!("  {line}\n"));
        vals.push((r, rs));
        n += 1;
    }
    // Results: the last value and maybe another.
    let mut results = vec![vals.len() - 1];
    if rng.chance(40) && vals.len() > 2 {
        let other = rng.below(vals.len() - 1);
        results.push(other);
    }
    let rtys: Vec<String> = results.iter().map(|&i| ty_text(&vals[i].1)).collect();
    let rnames: Vec<String> = results.iter().map(|&i| vals[i].0.clone()).collect();
    let sig: Vec<String> = args.iter().enumerate().map(|(i, s)| format!("%arg{i}: {}", ty_text(s))).collect();
    format!(
        "func.func @f({}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        sig.join(", "),
        rtys.join(", "),
        rnames.join(", "),
        rtys.join(", ")
    )
}

fn parse_shape_text(ty: &str) -> Vec<u64> {
    let inner = ty.trim().trim_start_matches("tensor<").trim_end_matches('>');
    inner.split('x').filter_map(|d| d.parse::<u64>().ok()).collect()
}

/// Fixes some arguments and result requirements at random (user annotations as constraints).
fn constrain(rng: &mut Rng, model_prog: &mut Program) {
    let m = model_prog.mesh.clone();
    for a in 0..model_prog.args.len() {
        if rng.chance(25) {
            let ty = model_prog.values[model_prog.args[a].value].ty;
            let space = StateSpace::new(model_prog.types[ty].clone(), &m).unwrap();
            model_prog.args[a].fixed = Some(space.states[rng.below(space.len())]);
        }
    }
    for r in 0..model_prog.results.len() {
        let Some(v) = model_prog.results[r].value else { continue };
        if rng.chance(30) {
            let ty = model_prog.values[v].ty;
            let space = StateSpace::new(model_prog.types[ty].clone(), &m).unwrap();
            model_prog.results[r].required = if rng.chance(30) { None } else { Some(space.states[rng.below(space.len())]) };
        }
    }
}

/// Checks the solver against the enumerator on one program, without and with a memory limit.
fn check_against_brute(rng: &mut Rng, prog: Program, text: &str) -> (bool, bool) {
    let model = Model::new(prog.clone()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let best = brute::optimum(&prog, None).expect("a plan without a limit");
    let sol = solve(&model, &Options::default()).unwrap();
    assert!(sol.optimal);
    let rel = |a: Time, b: Time| (seconds(a) - seconds(b)).abs() <= 1e-9 * seconds(a).max(seconds(b)) + 1e-15;
    assert!(rel(sol.eval.total(), best.0), "solver {} s vs optimum {} s\n{text}", seconds(sol.eval.total()), seconds(best.0));
    assert_eq!(sol.eval.memory, best.1, "memory of the optimum\n{text}");
    // A limit between 40% and 100% of the unconstrained optimum's memory.
    let limit = best.1 * (40 + rng.below(60) as u64) / 100;
    let opts = Options { memory_limit: Some(limit), ..Options::default() };
    let want = brute::optimum(&prog, Some(limit));
    let got = solve(&model, &opts);
    match (got, want) {
        (Ok(s), Some((t, _))) => {
            assert!(s.optimal);
            assert!(s.eval.memory <= limit);
            assert!(rel(s.eval.total(), t), "limit {limit}: solver {} s vs optimum {} s\n{text}", seconds(s.eval.total()), seconds(t));
            (true, true)
        }
        (Err(_), None) => (true, false),
        (Ok(s), None) => panic!("limit {limit}: solver found {:?} but the enumerator found none\n{text}", s.eval),
        (Err(inf), Some(w)) => panic!("limit {limit}: solver says infeasible (least {:?}) but the enumerator found {w:?}\n{text}", inf.least.eval),
    }
}

/// The most plans a case may have for the enumerator (the product of every op's choices and
/// every free argument's states); larger cases are skipped, and at most a fifth may be.
const MAX_PLANS: f64 = 5e6;

fn property(mesh_shape: &[u64], max_ops: usize, cases: u64, seed: u64) {
    let ctx = ctx();
    let m = mesh(mesh_shape);
    let mut rng = Rng::new(seed);
    let (mut feasible, mut total, mut skipped) = (0, 0, 0);
    for case in 0..cases {
        let text = random_program_text(&mut rng, max_ops);
        let mut prog = program(&ctx, &text, &m, rng.chance(20));
        if case % 3 == 2 {
            constrain(&mut rng, &mut prog);
        }
        let model = Model::new(prog.clone()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let plans = model.choices.iter().map(|c| c.len() as f64).product::<f64>()
            * (0..model.program.args.len()).map(|a| model.arg_states(a).len() as f64).product::<f64>();
        if plans > MAX_PLANS {
            skipped += 1;
            continue;
        }
        let (_, fits) = check_against_brute(&mut rng, prog, &text);
        total += 1;
        feasible += fits as usize;
    }
    assert!(skipped * 5 <= cases, "{skipped} of {cases} cases too large to enumerate");
    // The limits must exercise both outcomes.
    assert!(feasible > 0 && feasible < total, "{feasible} of {total} limits feasible");
}

#[test]
fn solver_equals_enumerator_on_random_programs_on_1d_meshes() {
    property(&[2], 10, 120, 1);
    property(&[4], 10, 120, 2);
}

#[test]
fn solver_equals_enumerator_on_random_programs_on_a_2x2_mesh() {
    property(&[2, 2], 6, 80, 3);
}

#[test]
fn solver_equals_enumerator_on_random_programs_on_a_2x4_mesh() {
    property(&[2, 4], 5, 40, 4);
}

#[test]
fn anytime_search_gives_unproven_plans_never_better_than_the_optimum() {
    let ctx = ctx();
    let m = mesh(&[2, 2]);
    let mut rng = Rng::new(7);
    let mut unproven = 0;
    for _ in 0..30 {
        let text = random_program_text(&mut rng, 6);
        let prog = program(&ctx, &text, &m, false);
        let model = Model::new(prog.clone()).unwrap();
        let best = brute::optimum(&prog, None).unwrap();
        // A budget of one combination: only problems that compress to single choices are exact.
        let opts = Options { max_states: 1, ..Options::default() };
        let s = solve(&model, &opts).unwrap();
        let same = (seconds(best.0) - seconds(s.eval.total())).abs() <= 1e-9 * seconds(best.0) + 1e-15;
        assert!(s.eval.total() >= best.0 || same, "anytime {} s below the optimum {} s\n{text}", seconds(s.eval.total()), seconds(best.0));
        if s.optimal {
            assert!(same, "a plan said proven is not optimal\n{text}");
        } else {
            unproven += 1;
        }
        assert_eq!(s.eval, model.evaluate(&s.plan));
    }
    assert!(unproven > 0, "max-states=1 proved every plan");
}
