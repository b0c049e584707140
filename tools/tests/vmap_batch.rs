//! The reference interpreter as the oracle of `vmap-batch`: every function of every lit test
//! program under `test/Transforms/vmap-batch/` runs on random inputs before and after the pass
//! and must give bit-identical results (or fail at run time in both); and the same on a few
//! hundred randomly generated small programs of nested maps (mixed in/out axes, every tensor op,
//! calls, the occasional orchestration op), built with the typed builders (`vmap_gen`).

mod support;
mod vmap_gen;

use xcs::Compiler;
use xcs_dialects::interp::{Interpreter, RtValue};
use xcs_ir::Module;

/// Random input sets per function.
const SEEDS: u64 = 3;

/// Bitwise for tensors (`-0.0` is not `0.0`; NaNs equal when their bits are), exact otherwise.
pub fn same(got: &RtValue, want: &RtValue) -> bool {
    match (got, want) {
        (RtValue::Tensor(g), RtValue::Tensor(w)) => g.bit_eq(w),
        _ => got.allclose(want, 0.0, 0.0).is_ok(),
    }
}

/// What comparing two modules found.
#[derive(Default, Debug)]
pub struct Tally {
    pub compared: usize,
    pub both_failed: usize,
    pub skipped: usize,
}

/// Runs every function of `before` and `after` on the same random inputs; panics (naming `what`)
/// on a difference.
pub fn compare(xcs: &Compiler, what: &str, before: &Module, after: &Module, seeds: u64, tally: &mut Tally) {
    let ib = Interpreter::new(&xcs.ctx, before);
    let ia = Interpreter::new(&xcs.ctx, after);
    let names: Vec<String> = ib.function_names().into_iter().map(String::from).collect();
    for name in &names {
        let Some((ins, _)) = ib.signature(name) else { continue };
        for seed in 0..seeds {
            let args = support::arguments(&ins, seed * 1000, |t, s| support::input(xcs, t, s, Some(3)));
            let Some(args) = args else {
                tally.skipped += 1;
                continue;
            };
            let want = ib.call(name, args.clone());
            if want
                .as_ref()
                .is_err_and(|e| e.message.contains("has no body") || e.message.contains("external"))
            {
                tally.skipped += 1;
                continue;
            }
            let got = ia.call(name, args);
            match (want, got) {
                (Ok(want), Ok(got)) => {
                    assert_eq!(want.len(), got.len(), "{what} @{name}");
                    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                        assert!(
                            same(g, w),
                            "{what} @{name} (seed {seed}) result #{i} changed by vmap-batch:\n got {g}\n want {w}\n\nafter:\n{}",
                            xcs.print(after)
                        );
                    }
                    tally.compared += 1;
                }
                (Err(_), Err(_)) => tally.both_failed += 1,
                (Ok(_), Err(e)) => panic!(
                    "{what} @{name} (seed {seed}) fails only after vmap-batch: {e}\n\nafter:\n{}",
                    xcs.print(after)
                ),
                (Err(e), Ok(_)) => panic!("{what} @{name} (seed {seed}) fails only before vmap-batch: {e}"),
            }
        }
    }
}

/// Counts `xcs.vmap` and `xcs.parallel_map` ops of a module (nested ones included).
pub fn count_maps(xcs: &Compiler, m: &Module) -> (usize, usize) {
    let ctx = &xcs.ctx;
    let (vm, pm) = (ctx.op_name("xcs.vmap"), ctx.op_name("xcs.parallel_map"));
    let (mut v, mut p) = (0, 0);
    m.body.for_each_body(&mut |b| {
        for op in b.walk_ops() {
            let n = b.op_name(op);
            v += (n == vm) as usize;
            p += (n == pm) as usize;
        }
    });
    (v, p)
}

#[test]
fn lit_programs_keep_their_results() {
    let xcs = Compiler::new();
    let mut tally = Tally::default();
    let (mut maps_before, mut batched, mut programs) = (0, 0, 0);
    for (file, text) in support::lit_files("Transforms/vmap-batch") {
        for (k, chunk) in text.split("\n// -----\n").enumerate() {
            let what = format!("{file} (chunk {k})");
            let Ok(before) = xcs.parse_named(&file, chunk) else {
                continue;
            };
            let mut after = before.clone();
            if xcs.run(&mut after, "builtin.module(vmap-batch)").is_err() {
                continue; // the error tests
            }
            programs += 1;
            let (v0, p0) = count_maps(&xcs, &before);
            let (v1, p1) = count_maps(&xcs, &after);
            assert_eq!(v1, 0, "{what}: an xcs.vmap is left");
            maps_before += v0;
            batched += v0 - (p1 - p0);
            compare(&xcs, &what, &before, &after, SEEDS, &mut tally);
        }
    }
    eprintln!(
        "vmap-batch lit programs: {programs} modules, {maps_before} maps ({batched} batched), {} runs compared, {} failed in both, {} skipped",
        tally.compared, tally.both_failed, tally.skipped
    );
    assert!(programs >= 8, "only {programs} lit programs");
    assert!(batched >= 40, "only {batched} maps batched");
    assert!(tally.compared >= 100, "only {} runs compared", tally.compared);
}

#[test]
fn random_programs_keep_their_results() {
    let xcs = Compiler::new();
    let cases: u64 = std::env::var("VMAP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let base: u64 = std::env::var("VMAP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut tally = Tally::default();
    let mut stats = vmap_gen::Stats::default();
    let (mut maps, mut batched) = (0, 0);
    for case in base..base + cases {
        let before = vmap_gen::program(&xcs.ctx, case, &mut stats);
        let text = xcs.print(&before);
        let before = xcs
            .parse(&text)
            .unwrap_or_else(|e| panic!("case {case}: the generated program does not parse back: {e}\n{text}"));
        let mut after = before.clone();
        if let Err(e) = xcs.run(&mut after, "builtin.module(vmap-batch)") {
            panic!("case {case}: vmap-batch failed: {e}\n{text}");
        }
        let (v0, p0) = count_maps(&xcs, &before);
        let (v1, p1) = count_maps(&xcs, &after);
        assert_eq!(v1, 0, "case {case}: an xcs.vmap is left");
        maps += v0;
        batched += v0 - (p1 - p0);
        compare(&xcs, &format!("case {case}"), &before, &after, 2, &mut tally);
    }
    eprintln!("vmap-batch random programs: {cases} cases, {maps} maps ({batched} batched), {stats:?}, {tally:?}");
    assert!(
        tally.compared >= cases as usize,
        "only {} runs compared",
        tally.compared
    );
    assert!(batched * 2 >= maps, "only {batched} of {maps} maps batched");
}
