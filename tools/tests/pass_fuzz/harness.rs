//! One fuzz case: generate a program (`gen`), its float64 shadow with error bounds (`shadow`),
//! a random pipeline of the registered passes; run the program on the interpreter before and
//! after the pipeline (run with `--verify-each`, as `xcs::Compiler::run` does) and through the
//! LLVM JIT after it, and check every result against the shadow's value within twice its
//! error bound. A run-time error must happen in the reference exactly when it happens in the
//! program before the passes; the passes may remove a failing op whose result is unused (a
//! pure op), never add a failure.

use xcs::Compiler;
use xcs_dialects::interp::random::SplitMix64;
use xcs_dialects::interp::{ElemType, Interpreter, RtValue, Tensor};
use xcs_ir::Module;
use xcs_lowering::{Jit, Options};

use super::gen::{self, Stats};
use super::shadow;

/// The function passes (nested under `func.func(...)`), with option variants.
const FUNCTION_PASSES: &[&str] = &[
    "canonicalize",
    "canonicalize{top-down=false}",
    "canonicalize{region-simplify=aggressive max-iterations=2}",
    "cse",
    "dce",
    "fuse",
    "fuse{max-ops=3}",
    "fuse{recompute=false}",
    "fuse{max-recompute=1 epilogue=false}",
    "fuse{reductions=false}",
];
/// The module passes.
const MODULE_PASSES: &[&str] = &[
    "inline",
    "inline{default-pipeline=cse}",
    "symbol-dce",
    "vmap-batch",
    "classify",
    "cost-annotate",
    "shard-partition",
];

/// Passes that may change the rounding of what they rewrite (none yet): pipelines with them
/// are held to the f64 tolerance only, not to the interpreter's bits before the passes.
const REASSOCIATING: &[&str] = &[];

/// A random pipeline of 1 to 6 passes: consecutive function passes share one `func.func(...)`
/// (or, now and then, run on the module itself).
pub fn pipeline(seed: u64) -> String {
    let mut rng = SplitMix64(seed ^ 0x5EED_0F_F1E5);
    let mut below = |n: usize| (rng.next_u64() % n as u64) as usize;
    let n = 1 + below(6);
    let mut parts: Vec<String> = Vec::new();
    let mut nested: Vec<&str> = Vec::new();
    for _ in 0..n {
        if below(100) < 55 {
            let p = FUNCTION_PASSES[below(FUNCTION_PASSES.len())];
            if below(100) < 15 {
                if !nested.is_empty() {
                    parts.push(format!("func.func({})", nested.join(",")));
                    nested.clear();
                }
                parts.push(p.to_string());
            } else {
                nested.push(p);
            }
        } else {
            if !nested.is_empty() {
                parts.push(format!("func.func({})", nested.join(",")));
                nested.clear();
            }
            parts.push(MODULE_PASSES[below(MODULE_PASSES.len())].to_string());
        }
    }
    if !nested.is_empty() {
        parts.push(format!("func.func({})", nested.join(",")));
    }
    format!("builtin.module({})", parts.join(","))
}

/// What the cases did (summed).
#[derive(Default, Debug)]
pub struct Tally {
    pub cases: usize,
    pub interp_compared: usize,
    pub jit_compared: usize,
    pub jit_unsupported: usize,
    pub failed_everywhere: usize,
    pub failure_removed_by_passes: usize,
    pub elements_checked: usize,
    pub elements_unbounded: usize,
    /// Per float element type: the relative tolerances (tolerance / |value|) of the inexact
    /// elements checked, to report their distribution.
    pub rel_tol: std::collections::BTreeMap<&'static str, Vec<f32>>,
    /// The slowest case: (seconds, seed).
    pub slowest: (f64, u64),
    /// Why the JIT did not compile a function (first words of the message).
    pub unsupported: std::collections::BTreeMap<String, usize>,
}

/// A finding: what differed, with everything needed to reproduce it.
#[derive(Debug)]
pub struct Finding {
    pub seed: u64,
    pub pipeline: String,
    pub what: String,
    pub program: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seed {} (reproduce: XCS_FUZZ_SEED={} XCS_FUZZ_CASES=1 cargo test -p xcs --test pass_fuzz -- --nocapture)\npipeline: {}\n{}\nprogram:\n{}",
            self.seed, self.seed, self.pipeline, self.what, self.program
        )
    }
}

type Outcome = Result<Vec<RtValue>, String>;

/// Runs case `seed`; `Err` is a finding.
pub fn run_case(xcs: &Compiler, seed: u64, stats: &mut Stats, tally: &mut Tally) -> Result<(), Finding> {
    let start = std::time::Instant::now();
    let r = run_case_inner(xcs, seed, stats, tally);
    let t = start.elapsed().as_secs_f64();
    if t > tally.slowest.0 {
        tally.slowest = (t, seed);
    }
    r
}

fn run_case_inner(xcs: &Compiler, seed: u64, stats: &mut Stats, tally: &mut Tally) -> Result<(), Finding> {
    let ctx = &xcs.ctx;
    let prog = gen::program(ctx, seed, stats);
    let pipe = pipeline(seed);
    let text = xcs.print(&prog.module);
    let finding = |what: String| Finding { seed, pipeline: pipe.clone(), what, program: text.clone() };
    tally.cases += 1;
    if let Err(ds) = xcs_ir::verifier::verify_module(ctx, &prog.module, false) {
        return Err(finding(format!("the generated program does not verify: {:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>())));
    }
    let before = xcs.parse(&text).map_err(|e| finding(format!("the printed program does not parse back:\n{e}")))?;
    let sh = shadow::shadow(ctx, &before).map_err(|e| finding(format!("shadow: {e}")))?;
    if let Err(ds) = xcs_ir::verifier::verify_module(ctx, &sh, false) {
        let t = xcs.print_generic(&sh);
        return Err(finding(format!("the shadow does not verify: {:?}\n{t}", ds.iter().map(|d| &d.message).collect::<Vec<_>>())));
    }
    let reference = run_interp(ctx, &sh, &shadow_inputs(&prog.inputs));
    if std::env::var("XCS_FUZZ_VERBOSE").is_ok() {
        eprintln!("seed {seed}: {pipe}\n{text}\ninputs: {:?}\nreference: {reference:?}", prog.inputs);
    }
    let got_before = run_interp(ctx, &before, &prog.inputs);
    match (&reference, &got_before) {
        (Ok(r), Ok(g)) => check(g, r, None, tally).map_err(|e| finding(format!("the interpreter before the passes: {e}")))?,
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => return Err(finding(format!("the program fails on the interpreter, its f64 reference does not: {e}"))),
        (Err(e), Ok(_)) => return Err(finding(format!("the f64 reference fails, the program does not: {e}"))),
    }
    let mut after = before.clone();
    if let Err(e) = xcs.run(&mut after, &pipe) {
        return Err(finding(format!("the pipeline failed:\n{e}")));
    }
    let after_text = xcs.print(&after);
    let with_after = |what: String| finding(format!("{what}\nafter the pipeline:\n{after_text}"));
    let got_after = run_interp(ctx, &after, &prog.inputs);
    match (&got_before, &got_after) {
        (Ok(b), Ok(g)) => {
            check(g, reference.as_ref().unwrap(), None, tally).map_err(|e| with_after(format!("the interpreter after the passes: {e}")))?;
            tally.interp_compared += 1;
            let same = b.len() == g.len() && b.iter().zip(g).all(|(x, y)| match (x.as_tensor(), y.as_tensor()) {
                (Some(x), Some(y)) => x.bit_eq(y),
                _ => false,
            });
            // No pass changes the interpreter's bits today (folds evaluate as the interpreter
            // does, and nothing reassociates); a pass that may (fast-math style) is listed in
            // REASSOCIATING and then only has to meet the tolerance.
            if !same && !REASSOCIATING.iter().any(|p| pipe.contains(p)) {
                return Err(with_after(format!("the interpreter's results before and after the passes differ in bits:\n before {b:?}\n after  {g:?}")));
            }
        }
        (Err(_), Err(_)) => tally.failed_everywhere += 1,
        (Err(_), Ok(_)) => tally.failure_removed_by_passes += 1,
        (Ok(_), Err(e)) => return Err(with_after(format!("the program fails only after the passes: {e}"))),
    }
    let mut opts = Options::host();
    opts.threads = if seed % 5 == 0 { 2 } else { 1 };
    // The backend compiles no `xcs.vmap`: a pipeline that left one gets `vmap-batch` first.
    let mut lowered = after.clone();
    if after_text.contains("xcs.vmap") {
        if let Err(e) = xcs.run(&mut lowered, "builtin.module(vmap-batch)") {
            return Err(with_after(format!("vmap-batch after the pipeline failed:\n{e}")));
        }
    }
    let jit = Jit::new(ctx, &lowered, opts);
    match (jit.call("main", &prog.inputs), &got_after) {
        (Err(e), _) if e.message().contains("not supported by the LLVM backend") => {
            tally.jit_unsupported += 1;
            let m = e.message();
            *tally.unsupported.entry(m.split(" is not").next().unwrap_or(&m).to_string()).or_default() += 1;
        }
        (Ok(_), Ok(_)) if reference.is_err() => {} // the failing op was removed: no reference
        (Ok(g), Ok(i)) => {
            check(&g, reference.as_ref().unwrap(), Some(i), tally).map_err(|e| with_after(format!("the JIT after the passes: {e}")))?;
            tally.jit_compared += 1;
        }
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => return Err(with_after(format!("the JIT runs, the interpreter fails: {e}"))),
        (Err(e), Ok(_)) => return Err(with_after(format!("the JIT fails: {e}"))),
    }
    Ok(())
}

fn run_interp(ctx: &xcs_ir::Context, m: &Module, args: &[RtValue]) -> Outcome {
    Interpreter::new(ctx, m).call("main", args.to_vec()).map_err(|e| e.message)
}

/// The shadow's arguments: the inputs in f64, then zero errors.
fn shadow_inputs(inputs: &[RtValue]) -> Vec<RtValue> {
    let mut vals = Vec::new();
    let mut errs = Vec::new();
    for x in inputs {
        let t = x.as_tensor().expect("tensor inputs");
        vals.push(RtValue::Tensor(if t.elem().is_float() { t.cast(ElemType::F64).unwrap() } else { t.clone() }));
        errs.push(RtValue::Tensor(Tensor::f64(&t.shape, &vec![0.0; t.numel()])));
    }
    vals.extend(errs);
    vals
}

/// Checks results `got` against the reference (values, then error bounds): same shapes and
/// element types, every element within twice its bound (exactly equal where the bound is 0),
/// NaN where the reference is NaN. Elements whose bound is not finite (they saw a NaN or an
/// infinity of the inputs) are compared with `peer` (the interpreter's results, when checking
/// the JIT) instead: NaN where it is NaN, the same infinity where it is infinite.
fn check(got: &[RtValue], reference: &[RtValue], peer: Option<&[RtValue]>, tally: &mut Tally) -> Result<(), String> {
    let n = got.len();
    if reference.len() != 2 * n {
        return Err(format!("{n} results, the reference has {}", reference.len() / 2));
    }
    for (i, g) in got.iter().enumerate() {
        let (g, w, e) = (g.as_tensor().ok_or("not a tensor")?, reference[i].as_tensor().unwrap(), reference[n + i].as_tensor().unwrap());
        if g.shape != w.shape {
            return Err(format!("result #{i} has shape {:?}, the reference {:?}", g.shape, w.shape));
        }
        let (gv, wv, ev) = (g.data.to_f64s().unwrap(), w.data.to_f64s().unwrap(), e.data.to_f64s().unwrap());
        let pv = peer.map(|p| p[i].as_tensor().unwrap().data.to_f64s().unwrap());
        for k in 0..gv.len() {
            let (x, want, bound) = (gv[k], wv[k], ev[k]);
            if !bound.is_finite() {
                tally.elements_unbounded += 1;
                if let Some(y) = pv.as_ref().map(|p| p[k]) {
                    if x.is_nan() != y.is_nan() || ((x.is_infinite() || y.is_infinite()) && x != y) {
                        return Err(format!("result #{i} element {k} is {x:e}, the interpreter's is {y:e}"));
                    }
                }
                continue;
            }
            tally.elements_checked += 1;
            let ok = if want.is_nan() {
                x.is_nan()
            } else if want.is_infinite() {
                x == want
            } else {
                (x - want).abs() <= 2.0 * bound
            };
            if g.elem().is_float() && want.is_finite() && want != 0.0 && bound > 1e-30 * want.abs() {
                tally.rel_tol.entry(g.elem().name()).or_default().push((2.0 * bound / want.abs()) as f32);
                if std::env::var("XCS_FUZZ_LOOSE").is_ok() && 2.0 * bound > want.abs() {
                    eprintln!("LOOSE {} result #{i} element {k}: {want:e} +- {:e}", g.elem().name(), 2.0 * bound);
                }
            }
            if !ok {
                return Err(format!(
                    "result #{i} ({}) element {k} (of shape {:?}) is {x:e}, the f64 reference is {want:e} +- {:e} (twice the error bound); off by {:e}",
                    g.elem().name(),
                    g.shape,
                    2.0 * bound,
                    (x - want).abs()
                ));
            }
        }
    }
    Ok(())
}
