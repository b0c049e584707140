//! The reference interpreter as the oracle of `shard-partition`: every function of every lit
//! program under `test/Transforms/shard-partition/` and `test/Run/Inputs/`, and a few hundred
//! random annotated programs (`shard_gen`), run unpartitioned on one device (annotations are
//! identities) and partitioned on the simulated devices of their grid, on the interpreter
//! (`interp::spmd`) and on the JIT (`xcs_lowering::spmd::run_on_devices`: threads, the
//! runtime's collectives over shared memory); both slice the full inputs and reassemble the
//! outputs per the shardings the pass records on the function, replicas checked to agree bit
//! for bit. The results must agree exactly for integer programs and within [`FLOAT_RTOL`] for
//! floats: a split reduction rounds each device's part to the element type and adds the parts
//! in another order (and the JIT's f32 matmuls accumulate in f32).

mod shard_gen;
mod support;

use xcs::Compiler;
use xcs_dialects::interp::{Interpreter, RtValue, Scalar, Spmd, Tensor};
use xcs_dialects::shard::Signature;
use xcs_ir::{Module, Type, TypeKind};
use xcs_lowering::spmd::run_on_devices;
use xcs_lowering::{Jit, JitError, Options};

/// Floats agree within `FLOAT_RTOL * max(1, largest magnitude of the expected result)` per
/// element.
const FLOAT_RTOL: f64 = 1e-4;

/// The lit test programs: (file name, chunk) for every `// -----` chunk, sorted by file, of
/// the partitioner's tests and of the annotated programs the run tests partition.
fn lit_chunks() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let run_inputs = support::lit_files("Run/Inputs").into_iter().filter(|(name, _)| name == "spmd_mlp.mlir");
    for (name, text) in support::lit_files("Transforms/shard-partition").into_iter().chain(run_inputs) {
        for chunk in text.split("\n// -----\n") {
            out.push((name.clone(), chunk.to_string()));
        }
    }
    out
}

/// A random value of `ty` (an index is 3).
fn input(xcs: &Compiler, ty: Type, seed: u64) -> Option<RtValue> {
    if matches!(xcs.ctx.type_kind(ty), TypeKind::Index) {
        return Some(RtValue::Scalar(Scalar::new(3, 64)));
    }
    support::input(xcs, ty, seed, None)
}

/// Compares a partitioned result with the unpartitioned one (see the module docs).
fn agree(got: &RtValue, want: &RtValue) -> Result<(), String> {
    match (got, want) {
        (RtValue::Tensor(g), RtValue::Tensor(w)) if w.elem().is_float() => {
            let scale = largest(w).max(1.0);
            g.allclose(w, 0.0, FLOAT_RTOL * scale)
        }
        _ => got.allclose(want, 0.0, 0.0),
    }
}

fn largest(t: &Tensor) -> f64 {
    t.data
        .to_f64s()
        .unwrap_or_default()
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0, |m, x| m.max(x.abs()))
}

/// What the comparisons found.
#[derive(Default, Debug)]
struct Tally {
    functions: usize,
    runs: usize,
    both_failed: usize,
    /// Partitioned runs on the JIT that agreed with the unpartitioned interpreter.
    jit_runs: usize,
    /// Partitioned functions the JIT does not compile (an op it does not lower), by message.
    jit_unsupported: std::collections::BTreeMap<String, usize>,
    /// Collectives in the partitioned programs, per kind.
    collectives: std::collections::BTreeMap<&'static str, usize>,
}

impl Tally {
    fn collectives(&self) -> usize {
        self.collectives.values().sum()
    }
}

/// Runs every partitioned function of `after` on its grid and the same function of `before`
/// on one device, on `seeds` random input sets; panics on a difference.
fn compare(xcs: &Compiler, what: &str, before: &Module, after: &Module, seeds: u64, tally: &mut Tally) {
    let ctx = &xcs.ctx;
    let one = Interpreter::new(ctx, before);
    let jit = Jit::new(ctx, after, Options::host());
    for name in one.function_names() {
        let Some(found) = Signature::find(ctx, after, name) else {
            continue;
        };
        let (sig, grid) = found.unwrap_or_else(|e| panic!("{what}: {e}"));
        let Some((ins, outs)) = one.signature(name) else {
            continue;
        };
        let arg_splits = sig.arg_splits(ins.len()).unwrap();
        let result_splits = sig.result_splits(outs.len()).unwrap();
        let devices = grid.devices().expect("a static grid");
        tally.functions += 1;
        for seed in 0..seeds {
            let Some(args) = support::arguments(&ins, seed * 100, |t, s| input(xcs, t, s)) else {
                continue;
            };
            let want = one.call(name, args.clone());
            let on_jit = run_on_devices(&jit, name, &devices, &args, &arg_splits, &result_splits);
            compare_jit(xcs, what, name, seed, &want, on_jit.map_err(|e| e.error), (before, after), tally);
            let got = Spmd::new(ctx, after, devices.clone()).run(name, &args, &arg_splits, &result_splits);
            match (want, got) {
                (Ok(want), Ok(got)) => {
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        if let Err(e) = agree(g, w) {
                            panic!("{what} @{name} (seed {seed}): result #{i} differs after partitioning: {e}\n\nbefore:\n{}\nafter:\n{}", xcs.print(before), xcs.print(after));
                        }
                    }
                    tally.runs += 1;
                }
                (Err(_), Err(_)) => tally.both_failed += 1,
                (Ok(_), Err(e)) => panic!(
                    "{what} @{name} (seed {seed}) fails only partitioned: {e}\n\nbefore:\n{}\nafter:\n{}",
                    xcs.print(before),
                    xcs.print(after)
                ),
                (Err(e), Ok(_)) => panic!("{what} @{name} (seed {seed}) fails only unpartitioned: {e}"),
            }
        }
    }
    count_collectives(xcs, after, tally);
}

/// Checks the JIT's partitioned run of `name` against the unpartitioned interpreter's `want`
/// (a function the JIT does not compile is counted, not failed).
#[allow(clippy::too_many_arguments)]
fn compare_jit(
    xcs: &Compiler,
    what: &str,
    name: &str,
    seed: u64,
    want: &Result<Vec<RtValue>, xcs_dialects::interp::InterpError>,
    got: Result<Vec<RtValue>, JitError>,
    (before, after): (&Module, &Module),
    tally: &mut Tally,
) {
    let programs = || format!("\n\nbefore:\n{}\nafter:\n{}", xcs.print(before), xcs.print(after));
    match (want, got) {
        (_, Err(JitError::Compile(e))) => *tally.jit_unsupported.entry(e.message.clone()).or_default() += 1,
        (Ok(want), Ok(got)) => {
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                if let Err(e) = agree(g, w) {
                    panic!("{what} @{name} (seed {seed}): result #{i} differs on the JIT after partitioning: {e}{}", programs());
                }
            }
            tally.jit_runs += 1;
        }
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("{what} @{name} (seed {seed}) fails only partitioned on the JIT: {e}{}", programs()),
        (Err(e), Ok(_)) => panic!("{what} @{name} (seed {seed}) fails only unpartitioned, not on the JIT: {e}"),
    }
}

fn count_collectives(xcs: &Compiler, m: &Module, tally: &mut Tally) {
    let text = xcs.print(m);
    for c in ["all_gather", "all_reduce", "reduce_scatter", "all_to_all", "all_slice"] {
        *tally.collectives.entry(c).or_default() += text.matches(&format!("shard.{c} ")).count();
    }
}

#[test]
fn lit_programs_compute_the_same_on_their_grid() {
    let xcs = Compiler::new();
    let mut tally = Tally::default();
    let (mut programs, mut rejected) = (0, 0);
    for (file, chunk) in lit_chunks() {
        let Ok(before) = xcs.parse_named(&file, &chunk) else {
            continue;
        };
        let mut after = before.clone();
        if xcs.run(&mut after, "builtin.module(shard-partition)").is_err() {
            rejected += 1; // the error tests
            continue;
        }
        programs += 1;
        compare(&xcs, &file, &before, &after, 3, &mut tally);
    }
    eprintln!("shard-partition lit programs: {programs} partitioned, {rejected} rejected, {tally:?}");
    assert!(
        programs >= 7 && rejected >= 7,
        "only {programs} lit programs and {rejected} error tests"
    );
    assert!(tally.functions >= 25, "only {} functions compared", tally.functions);
    assert!(
        tally.runs == 3 * tally.functions,
        "only {} runs for {} functions",
        tally.runs,
        tally.functions
    );
    assert_eq!(tally.both_failed, 0, "lit programs that fail in both runs test nothing");
    let unsupported: usize = tally.jit_unsupported.values().sum();
    assert_eq!(tally.jit_runs + unsupported, tally.runs, "every run that is not compiled is compared on the JIT");
    assert!(unsupported <= 3 * 2, "the JIT compiles too few lit functions: {:?}", tally.jit_unsupported);
}

#[test]
fn random_annotated_programs_compute_the_same_on_their_grid() {
    let xcs = Compiler::new();
    let cases: u64 = std::env::var("SHARD_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let base: u64 = std::env::var("SHARD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut stats = shard_gen::Stats::default();
    let mut tally = Tally::default();
    for case in base..base + cases {
        let before = shard_gen::program(&xcs.ctx, case, &mut stats);
        let text = xcs.print(&before);
        let before = xcs
            .parse(&text)
            .unwrap_or_else(|e| panic!("case {case}: the generated program does not parse back: {e}\n{text}"));
        let mut after = before.clone();
        if let Err(e) = xcs.run(&mut after, "builtin.module(shard-partition)") {
            panic!("case {case}: shard-partition failed: {e}\n{text}");
        }
        compare(&xcs, &format!("case {case}"), &before, &after, 2, &mut tally);
    }
    eprintln!("shard-partition random programs: {cases} cases, {stats:?}, {tally:?}");
    assert_eq!(tally.functions, cases as usize, "every program is partitioned");
    assert!(tally.runs >= cases as usize, "only {} runs compared", tally.runs);
    assert_eq!(tally.jit_runs, tally.runs, "the JIT runs every random program: {:?}", tally.jit_unsupported);
    assert!(
        tally.collectives() >= cases as usize,
        "only {} collectives in {cases} programs",
        tally.collectives()
    );
    for (kind, &n) in &tally.collectives {
        assert!(n >= cases as usize / 20, "only {n} {kind} in {cases} programs");
    }
}
