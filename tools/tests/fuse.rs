//! The reference interpreter as the oracle of `fuse`: every function of every lit program under
//! `test/Transforms/fuse/`, and a few hundred randomly generated programs of elementwise ops,
//! broadcasts, casts, cmp/select, constants, reductions, softmax, layer_norm, matmuls and calls,
//! run on random inputs before and after the pass (and after a second run of it) and must give
//! the same results: floats within 1e-6 relative (NaNs equal), integers exactly; or fail at run
//! time in both. The fused module is also compiled by the LLVM backend (fused regions as one
//! loop nest, matmul epilogues, reduction prologues) and its results compared with the
//! interpreter's within the backend's tolerance (`JIT_RTOL`, `JIT_ATOL`: inline f32 math is
//! ~2 ulp from libm and f32 matmuls accumulate in f32).

mod support;

use xcs::Compiler;
use xcs_dialects::interp::random::SplitMix64;
use xcs_dialects::interp::Interpreter;
use xcs_ir::Module;

const SEEDS: u64 = 3;
const RTOL: f64 = 1e-6;
const JIT_RTOL: f64 = 1e-4;
const JIT_ATOL: f64 = 1e-5;

#[derive(Default, Debug)]
struct Tally {
    compared: usize,
    both_failed: usize,
    skipped: usize,
    /// Functions the JIT ran (and compared), and those it does not support.
    jit_compared: usize,
    jit_unsupported: usize,
}

/// Runs every function of `before` and of each of `afters` on the same inputs; panics on a
/// difference.
fn compare(xcs: &Compiler, what: &str, before: &Module, afters: &[&Module], tally: &mut Tally) {
    let ib = Interpreter::new(&xcs.ctx, before);
    let jit = afters
        .first()
        .map(|m| xcs_lowering::Jit::new(&xcs.ctx, m, xcs_lowering::Options::host()));
    let names: Vec<String> = ib.function_names().into_iter().map(String::from).collect();
    for name in &names {
        let Some((ins, _)) = ib.signature(name) else { continue };
        for seed in 0..SEEDS {
            let args = support::arguments(&ins, seed * 1000, |t, s| support::input(xcs, t, s, Some(3)));
            let Some(args) = args else {
                tally.skipped += 1;
                continue;
            };
            let want = ib.call(name, args.clone());
            if want.as_ref().is_err_and(|e| e.message.contains("external declaration")) {
                tally.skipped += 1;
                continue;
            }
            if let Some(jit) = &jit {
                match jit.compile_for(name, &args) {
                    Err(e)
                        if e.message().contains("not supported by the LLVM backend")
                            || e.message().contains("external declaration") =>
                    {
                        tally.jit_unsupported += 1
                    }
                    Err(e) => panic!("{what} @{name}: the LLVM backend fails on the fused module: {e}"),
                    Ok(_) => {
                        match (&want, jit.call(name, &args)) {
                            (Ok(w), Ok(g)) => {
                                for (i, (w, g)) in w.iter().zip(&g).enumerate() {
                                    if let Err(e) = g.allclose(w, JIT_RTOL, JIT_ATOL) {
                                        panic!(
                                            "{what} @{name} (seed {seed}) result #{i}: the JIT of the fused module differs: {e}\n{}",
                                            xcs.print(afters[0])
                                        );
                                    }
                                }
                            }
                            (Err(_), Err(_)) => {}
                            (Ok(_), Err(e)) => panic!("{what} @{name} (seed {seed}): only the JIT fails: {e}"),
                            (Err(e), Ok(_)) => panic!("{what} @{name} (seed {seed}): only the interpreter fails: {e}"),
                        }
                        tally.jit_compared += 1;
                    }
                }
            }
            for after in afters {
                let got = Interpreter::new(&xcs.ctx, after).call(name, args.clone());
                match (&want, got) {
                    (Ok(w), Ok(g)) => {
                        assert_eq!(w.len(), g.len(), "{what} @{name}");
                        for (i, (w, g)) in w.iter().zip(&g).enumerate() {
                            if let Err(e) = g.allclose(w, RTOL, 0.0) {
                                panic!(
                                    "{what} @{name} (seed {seed}) result #{i} changed by fuse: {e}\n after:\n{}",
                                    xcs.print(after)
                                );
                            }
                        }
                        tally.compared += 1;
                    }
                    (Err(_), Err(_)) => tally.both_failed += 1,
                    (Ok(_), Err(e)) => panic!(
                        "{what} @{name} (seed {seed}) fails only after fuse: {e}\n{}",
                        xcs.print(after)
                    ),
                    (Err(e), Ok(_)) => panic!("{what} @{name} (seed {seed}) fails only before fuse: {e}"),
                }
            }
        }
    }
}

/// Fuses `before` once and twice; returns both results.
fn fused(xcs: &Compiler, what: &str, before: &Module) -> (Module, Module) {
    let mut once = before.clone();
    xcs.run(&mut once, "builtin.module(fuse)")
        .unwrap_or_else(|e| panic!("{what}: fuse failed: {e}\n{}", xcs.print(before)));
    let mut twice = once.clone();
    xcs.run(&mut twice, "builtin.module(fuse)")
        .unwrap_or_else(|e| panic!("{what}: second fuse failed: {e}\n{}", xcs.print(&once)));
    (once, twice)
}

#[test]
fn lit_programs_keep_their_results() {
    let files = support::lit_files("Transforms/fuse");
    assert!(files.len() >= 5, "{} lit files", files.len());
    let mut xcs = Compiler::new();
    xcs.allow_unregistered = true;
    let mut tally = Tally::default();
    for (what, src) in &files {
        let before = xcs.parse_named(what, src).unwrap_or_else(|e| panic!("{e}"));
        let (once, twice) = fused(&xcs, what, &before);
        assert!(xcs.print(&once).contains("tensor.fused"), "{what}: nothing fused");
        compare(&xcs, what, &before, &[&once, &twice], &mut tally);
    }
    assert!(tally.compared >= 150 && tally.jit_compared >= 50, "{tally:?}");
}

// ---------------------------------------------------------------------------- generator

#[derive(Clone)]
struct V {
    name: String,
    shape: Vec<i64>,
    float: bool,
}

fn ty(shape: &[i64], float: bool) -> String {
    let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{dims}{}>", if float { "f32" } else { "i32" })
}
fn vty(v: &V) -> String {
    ty(&v.shape, v.float)
}
fn bool_ty(shape: &[i64]) -> String {
    let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{dims}i1>")
}

fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let get = |s: &[i64], i: usize| if i < n - s.len() { 1 } else { s[i - (n - s.len())] };
    (0..n)
        .map(|i| match (get(a, i), get(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

struct Gen {
    rng: SplitMix64,
    pool: Vec<V>,
    lines: Vec<String>,
    next: usize,
    main_float: bool,
    space: Vec<i64>,
    stats: Stats,
}

#[derive(Default, Debug)]
struct Stats {
    programs: usize,
    fused_regions: usize,
    with_reduction: usize,
    with_matmul: usize,
    calls: usize,
}

impl Gen {
    fn pick(&mut self, pred: impl Fn(&V) -> bool) -> Option<V> {
        let c: Vec<V> = self.pool.iter().filter(|v| pred(v)).cloned().collect();
        if c.is_empty() {
            return None;
        }
        // later values more often: chains
        let i = if self.rng.chance(60) {
            c.len() - 1 - self.rng.below(c.len().min(3))
        } else {
            self.rng.below(c.len())
        };
        Some(c[i].clone())
    }
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }
    fn emit(&mut self, line: String, v: V) {
        self.lines.push(line);
        self.pool.push(v);
    }

    fn op(&mut self) {
        let k = self.rng.below(100);
        if k < 30 {
            self.binary();
        } else if k < 50 {
            self.unary();
        } else if k < 57 {
            self.cmp_select();
        } else if k < 62 {
            self.cast();
        } else if k < 67 {
            self.constant();
        } else if k < 76 {
            self.reduce();
        } else if k < 80 {
            self.softmax();
        } else if k < 84 {
            self.layer_norm();
        } else if k < 93 {
            self.matmul();
        } else if k < 96 {
            self.call();
        } else {
            self.broadcast_to();
        }
    }

    fn binary(&mut self) {
        let Some(a) = self.pick(|_| true) else { return };
        let Some(b) = self.pick(|v| v.float == a.float && broadcast(&v.shape, &a.shape).is_some()) else {
            return;
        };
        let names: &[&str] = if a.float {
            &["add", "sub", "mul", "max", "min", "div", "pow"]
        } else {
            &["add", "sub", "mul", "max", "min"]
        };
        let n = names[self.rng.below(names.len())];
        let shape = broadcast(&a.shape, &b.shape).unwrap();
        let r = V {
            name: self.fresh(),
            shape,
            float: a.float,
        };
        let line = format!(
            "  {} = tensor.{n} {}, {} : ({}, {}) -> {}",
            r.name,
            a.name,
            b.name,
            vty(&a),
            vty(&b),
            vty(&r)
        );
        self.emit(line, r);
    }

    fn unary(&mut self) {
        let Some(a) = self.pick(|_| true) else { return };
        let names: &[&str] = if a.float {
            &[
                "neg", "abs", "relu", "exp", "log", "tanh", "sigmoid", "silu", "sqrt", "rsqrt", "gelu",
            ]
        } else {
            &["neg", "abs", "relu"]
        };
        let n = names[self.rng.below(names.len())];
        let attrs = if n == "gelu" {
            if self.rng.chance(50) {
                " {approximate = \"tanh\"}"
            } else {
                " {approximate = \"none\"}"
            }
        } else {
            ""
        };
        let r = V {
            name: self.fresh(),
            shape: a.shape.clone(),
            float: a.float,
        };
        let line = format!("  {} = tensor.{n} {}{attrs} : {}", r.name, a.name, vty(&a));
        self.emit(line, r);
    }

    fn cmp_select(&mut self) {
        let Some(a) = self.pick(|_| true) else { return };
        let Some(b) = self.pick(|v| v.float == a.float && broadcast(&v.shape, &a.shape).is_some()) else {
            return;
        };
        let cs = broadcast(&a.shape, &b.shape).unwrap();
        let preds = ["eq", "ne", "lt", "le", "gt", "ge"];
        let p = preds[self.rng.below(6)];
        let c = self.fresh();
        self.lines.push(format!(
            "  {c} = tensor.cmp {}, {} {{predicate = \"{p}\"}} : ({}, {}) -> {}",
            a.name,
            b.name,
            vty(&a),
            vty(&b),
            bool_ty(&cs)
        ));
        let Some(x) = self.pick(|v| broadcast(&v.shape, &cs).is_some()) else {
            return;
        };
        let Some(y) = self
            .pick(|v| v.float == x.float && broadcast(&v.shape, &cs).and_then(|s| broadcast(&s, &x.shape)).is_some())
        else {
            return;
        };
        let shape = broadcast(&broadcast(&cs, &x.shape).unwrap(), &y.shape).unwrap();
        let r = V {
            name: self.fresh(),
            shape,
            float: x.float,
        };
        let line = format!(
            "  {} = tensor.select {c}, {}, {} : ({}, {}, {}) -> {}",
            r.name,
            x.name,
            y.name,
            bool_ty(&cs),
            vty(&x),
            vty(&y),
            vty(&r)
        );
        self.emit(line, r);
    }

    fn cast(&mut self) {
        let Some(a) = self.pick(|_| true) else { return };
        let r = V {
            name: self.fresh(),
            shape: a.shape.clone(),
            float: !a.float,
        };
        let line = format!("  {} = tensor.cast {} : ({}) -> {}", r.name, a.name, vty(&a), vty(&r));
        self.emit(line, r);
    }

    fn constant(&mut self) {
        let shape = if self.rng.chance(50) {
            self.space.clone()
        } else {
            vec![*self.space.last().unwrap()]
        };
        let float = if self.rng.chance(80) {
            self.main_float
        } else {
            !self.main_float
        };
        let r = V {
            name: self.fresh(),
            shape: shape.clone(),
            float,
        };
        let value = if self.rng.chance(70) {
            if float {
                format!("{}.5", self.rng.below(5) as i64 - 2)
            } else {
                format!("{}", self.rng.below(7) as i64 - 3)
            }
        } else {
            let n: i64 = shape.iter().product();
            let elems: Vec<String> = (0..n)
                .map(|i| {
                    if float {
                        format!("{}.25", (i * 7 + 3) % 11 - 5)
                    } else {
                        format!("{}", (i * 5 + 1) % 9 - 4)
                    }
                })
                .collect();
            // row-major nesting
            nest(&elems, &shape)
        };
        let t = vty(&r);
        let line = format!("  {} = tensor.constant {{value = dense<{value}> : {t}}} : {t}", r.name);
        self.emit(line, r);
    }

    fn reduce(&mut self) {
        let Some(a) = self.pick(|v| !v.shape.is_empty()) else {
            return;
        };
        let kinds: &[&str] = if a.float {
            &["sum", "max", "min", "mean", "prod"]
        } else {
            &["sum", "max", "min", "mean"]
        };
        let kind = kinds[self.rng.below(kinds.len())];
        let axis = self.rng.below(a.shape.len());
        let keep = self.rng.chance(50);
        let shape: Vec<i64> = a
            .shape
            .iter()
            .enumerate()
            .filter_map(|(i, &d)| if i == axis { keep.then_some(1) } else { Some(d) })
            .collect();
        let r = V {
            name: self.fresh(),
            shape,
            float: a.float,
        };
        let line = format!(
            "  {} = tensor.reduce {} {{axes = array<i64: {axis}>, keepdims = {keep}, kind = \"{kind}\"}} : ({}) -> {}",
            r.name,
            a.name,
            vty(&a),
            vty(&r)
        );
        self.emit(line, r);
    }

    fn softmax(&mut self) {
        let Some(a) = self.pick(|v| v.float && !v.shape.is_empty()) else {
            return;
        };
        let r = V {
            name: self.fresh(),
            shape: a.shape.clone(),
            float: true,
        };
        let line = format!(
            "  {} = tensor.softmax {} {{axis = -1 : i64}} : {}",
            r.name,
            a.name,
            vty(&a)
        );
        self.emit(line, r);
    }

    fn layer_norm(&mut self) {
        let last = *self.space.last().unwrap();
        let Some(a) = self.pick(|v| v.float && v.shape.len() >= 2 && v.shape.last() == Some(&last)) else {
            return;
        };
        let Some(g) = self.pick(|v| v.float && v.shape == [last]) else {
            return;
        };
        let Some(b) = self.pick(|v| v.float && v.shape == [last]) else {
            return;
        };
        let axis = a.shape.len() - 1;
        let r = V {
            name: self.fresh(),
            shape: a.shape.clone(),
            float: true,
        };
        let line = format!(
            "  {} = tensor.layer_norm {}, {}, {} {{axis = {axis} : i64, epsilon = 1.0e-05 : f32}} : ({}, {}, {}) -> {}",
            r.name,
            a.name,
            g.name,
            b.name,
            vty(&a),
            vty(&g),
            vty(&b),
            vty(&r)
        );
        self.emit(line, r);
    }

    fn matmul(&mut self) {
        let last = *self.space.last().unwrap();
        let Some(a) = self.pick(|v| v.shape.len() >= 2 && v.shape.last() == Some(&last)) else {
            return;
        };
        let w = V {
            name: if a.float { "%wf".into() } else { "%wi".into() },
            shape: vec![last, last],
            float: a.float,
        };
        let r = V {
            name: self.fresh(),
            shape: a.shape.clone(),
            float: a.float,
        };
        let line = format!(
            "  {} = tensor.matmul {}, {} : ({}, {}) -> {}",
            r.name,
            a.name,
            w.name,
            vty(&a),
            vty(&w),
            vty(&r)
        );
        self.emit(line, r);
    }

    fn call(&mut self) {
        let (space, float) = (self.space.clone(), self.main_float);
        let Some(a) = self.pick(|v| v.shape == space && v.float == float) else {
            return;
        };
        let r = V {
            name: self.fresh(),
            shape: a.shape.clone(),
            float: a.float,
        };
        let line = format!("  {} = func.call @h({}) : ({}) -> {}", r.name, a.name, vty(&a), vty(&r));
        self.stats.calls += 1;
        self.emit(line, r);
    }

    fn broadcast_to(&mut self) {
        let space = self.space.clone();
        let Some(a) = self.pick(|v| v.shape != space && broadcast(&v.shape, &space).as_deref() == Some(&space[..]))
        else {
            return;
        };
        let r = V {
            name: self.fresh(),
            shape: space,
            float: a.float,
        };
        let line = format!(
            "  {} = tensor.broadcast_to {} : ({}) -> {}",
            r.name,
            a.name,
            vty(&a),
            vty(&r)
        );
        self.emit(line, r);
    }
}

fn nest(elems: &[String], shape: &[i64]) -> String {
    if shape.len() <= 1 {
        return format!("[{}]", elems.join(", "));
    }
    let inner: i64 = shape[1..].iter().product();
    let parts: Vec<String> = elems.chunks(inner as usize).map(|c| nest(c, &shape[1..])).collect();
    format!("[{}]", parts.join(", "))
}

/// One random program: `@main` over arguments of the iteration space, a row and a column
/// shape, matmul weights and layer_norm parameters; and `@h`, the callee of its calls.
fn program(seed: u64, stats: &mut Stats) -> String {
    let mut rng = SplitMix64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(7));
    let space: Vec<i64> = match rng.next_u64() % 3 {
        0 => vec![4, 8],
        1 => vec![2, 3, 4],
        _ => vec![3, 5],
    };
    let main_float = rng.next_u64() % 10 < 7;
    let last = *space.last().unwrap();
    let mut col = space.clone();
    *col.last_mut().unwrap() = 1;
    let args = vec![
        V {
            name: "%a".into(),
            shape: space.clone(),
            float: main_float,
        },
        V {
            name: "%b".into(),
            shape: space.clone(),
            float: main_float,
        },
        V {
            name: "%row".into(),
            shape: vec![last],
            float: main_float,
        },
        V {
            name: "%col".into(),
            shape: col,
            float: main_float,
        },
        V {
            name: "%gamma".into(),
            shape: vec![last],
            float: true,
        },
        V {
            name: "%beta".into(),
            shape: vec![last],
            float: true,
        },
    ];
    let mut g = Gen {
        rng,
        pool: args.clone(),
        lines: Vec::new(),
        next: 0,
        main_float,
        space: space.clone(),
        stats: std::mem::take(stats),
    };
    let n = 4 + g.rng.below(14);
    for _ in 0..n {
        g.op();
    }
    // results: the last value and a few others
    let made: Vec<V> = g.pool[args.len()..].to_vec();
    let mut results: Vec<V> = made.last().cloned().into_iter().collect();
    for _ in 0..g.rng.below(3) {
        if let Some(v) = made.get(g.rng.below(made.len().max(1))) {
            if !results.iter().any(|r| r.name == v.name) {
                results.push(v.clone());
            }
        }
    }
    if results.is_empty() {
        results.push(args[0].clone());
    }
    *stats = std::mem::take(&mut g.stats);
    let wf = ty(&[last, last], true);
    let wi = ty(&[last, last], false);
    let arg_list: Vec<String> = args.iter().map(|a| format!("{}: {}", a.name, vty(a))).collect();
    let res_types: Vec<String> = results.iter().map(vty).collect();
    let res_names: Vec<String> = results.iter().map(|r| r.name.clone()).collect();
    let st = ty(&space, main_float);
    format!(
        "func.func private @h(%x: {st}) -> {st} {{\n  %0 = tensor.neg %x : {st}\n  %1 = tensor.abs %0 : {st}\n  return %1 : {st}\n}}\n\
func.func @main({}, %wf: {wf}, %wi: {wi}) -> ({}) {{\n{}\n  return {} : {}\n}}\n",
        arg_list.join(", "),
        res_types.join(", "),
        g.lines.join("\n"),
        res_names.join(", "),
        res_types.join(", ")
    )
}

#[test]
fn random_programs_keep_their_results() {
    let xcs = Compiler::new();
    let mut tally = Tally::default();
    let mut stats = Stats::default();
    for seed in 0..300 {
        let src = program(seed, &mut stats);
        let what = format!("random program {seed}");
        let before = xcs
            .parse_named(&what, &src)
            .unwrap_or_else(|e| panic!("{what}: {e}\n{src}"));
        let (once, twice) = fused(&xcs, &what, &before);
        let text = xcs.print(&once);
        stats.programs += 1;
        // regions of @main (the callee @h always makes one)
        let main_text = &text[text.find("@main").unwrap()..];
        stats.fused_regions += main_text.matches("tensor.fused").count();
        for region in main_text.split("tensor.fused").skip(1) {
            let body = &region[..region.find("tensor.yield").unwrap_or(region.len())];
            if body.contains("tensor.reduce") || body.contains("tensor.softmax") || body.contains("tensor.layer_norm") {
                stats.with_reduction += 1;
            }
            if body.contains("tensor.matmul") {
                stats.with_matmul += 1;
            }
        }
        compare(&xcs, &what, &before, &[&once, &twice], &mut tally);
    }
    eprintln!("{stats:?} {tally:?}");
    assert!(tally.compared >= 1500 && tally.jit_compared >= 500, "{tally:?}");
    assert!(stats.fused_regions >= 300, "{stats:?}");
    assert!(
        stats.with_reduction >= 30 && stats.with_matmul >= 30 && stats.calls >= 10,
        "{stats:?}"
    );
}
