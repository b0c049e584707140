//! Differential fuzzing of every transforming pass: random well-typed `tensor` programs
//! (`pass_fuzz/gen.rs`) through random pipelines of the registered passes with
//! `--verify-each`; the interpreter before and after, and the LLVM JIT after, each checked
//! against a float64 evaluation of the same program within a running error bound
//! (`pass_fuzz/shadow.rs`, the tolerance is documented there and in `docs/testing.md`).
//!
//! - `fixed_seeds_agree_with_the_f64_reference`: a fixed set of seeds, part of `make test`.
//! - `fuzz_for_a_while` (ignored): new seeds until `XCS_FUZZ_SECONDS` (default 60) have passed;
//!   `make fuzz-passes` runs it in release mode. Findings are printed and written to
//!   `target/pass-fuzz/seed-N.txt`.
//!
//! Reproduce one case: `XCS_FUZZ_SEED=N XCS_FUZZ_CASES=1 cargo test -p xcs --test pass_fuzz
//! fixed_seeds -- --nocapture`.

mod pass_fuzz {
    pub mod gen;
    pub mod harness;
    pub mod shadow;
}

use pass_fuzz::gen::Stats;
use pass_fuzz::harness::{run_case, Tally};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

fn compiler() -> xcs::Compiler {
    let mut xcs = xcs::Compiler::new();
    xcs.threading = false;
    xcs
}

fn summary(stats: &Stats, tally: &Tally) -> String {
    let typical: Vec<String> = tally
        .rel_tol
        .iter()
        .map(|(e, v)| {
            let mut v = v.clone();
            v.sort_by(f32::total_cmp);
            let q = |p: f64| v[((v.len() - 1) as f64 * p) as usize];
            format!("{e} {:.1e} / {:.1e} ({})", q(0.5), q(0.9), v.len())
        })
        .collect();
    format!(
        "{} programs ({} maps, {} fused regions, {} calls, {} with ? dims); interpreter after the passes compared {} times (bit for bit with before, and with the f64 reference), JIT {} times ({} not supported by the backend); {} failed at run time everywhere, {} failures removed by the passes; {} elements checked ({} unbounded), relative tolerance of inexact elements (median / 90th percentile) {}; not compiled: {:?}; slowest case {:.2} s (seed {})\nops: {:?}",
        stats.programs, stats.maps, stats.fused, stats.calls, stats.dynamic_args, tally.interp_compared, tally.jit_compared, tally.jit_unsupported,
        tally.failed_everywhere, tally.failure_removed_by_passes, tally.elements_checked, tally.elements_unbounded, typical.join(", "), tally.unsupported, tally.slowest.0, tally.slowest.1, stats.ops
    )
}

#[test]
fn fixed_seeds_agree_with_the_f64_reference() {
    let xcs = compiler();
    let first = env_u64("XCS_FUZZ_SEED").unwrap_or(0);
    let cases = env_u64("XCS_FUZZ_CASES").unwrap_or(60);
    let (mut stats, mut tally) = (Stats::default(), Tally::default());
    // XCS_FUZZ_KEEP_GOING=1: report every failing seed (first lines), not only the first
    let keep_going = std::env::var("XCS_FUZZ_KEEP_GOING").is_ok();
    let mut failed = Vec::new();
    for seed in first..first + cases {
        if let Err(f) = run_case(&xcs, seed, &mut stats, &mut tally) {
            if !keep_going {
                panic!("{f}");
            }
            eprintln!("FINDING {}", f.to_string().lines().take(4).collect::<Vec<_>>().join("\n  "));
            failed.push(seed);
        }
    }
    eprintln!("{}", summary(&stats, &tally));
    assert!(failed.is_empty(), "failing seeds: {failed:?}");
    if cases >= 60 {
        // the fixed set must keep exercising what it is for
        assert!(tally.jit_compared >= cases as usize / 3, "only {} JIT comparisons", tally.jit_compared);
        assert!(stats.maps >= 5 && stats.fused >= 5 && stats.calls >= 5, "{stats:?}");
        assert!(tally.elements_checked >= 1000, "only {} elements checked", tally.elements_checked);
    }
}

/// A case that runs longer than `XCS_FUZZ_CASE_SECONDS` (default 120) is a finding too (a hang
/// of a pass, the interpreter or compiled code): a thread watching the current seed (stored in
/// the returned cell before each case) writes it to `out/seed-N.txt` and ends the process.
fn watchdog(out: std::path::PathBuf) -> std::sync::Arc<std::sync::atomic::AtomicU64> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let limit = env_u64("XCS_FUZZ_CASE_SECONDS").unwrap_or(120);
    let current = std::sync::Arc::new(AtomicU64::new(u64::MAX));
    let cell = current.clone();
    std::thread::spawn(move || {
        let (mut seen, mut since) = (u64::MAX, std::time::Instant::now());
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
            let seed = cell.load(Ordering::SeqCst);
            if seed != seen {
                (seen, since) = (seed, std::time::Instant::now());
            } else if seed != u64::MAX && since.elapsed().as_secs() >= limit {
                let report = format!(
                    "seed {seed}: hang: the case has run for more than {limit} s (reproduce: XCS_FUZZ_VERBOSE=1 XCS_FUZZ_SEED={seed} XCS_FUZZ_CASES=1 cargo test -p xcs --test pass_fuzz -- --nocapture)"
                );
                std::fs::create_dir_all(&out).ok();
                std::fs::write(out.join(format!("seed-{seed}.txt")), &report).ok();
                eprintln!("FINDING: {report}");
                std::process::exit(1);
            }
        }
    });
    current
}

#[test]
#[ignore = "long-running: XCS_FUZZ_SECONDS=600 cargo test --release -p xcs --test pass_fuzz -- --ignored"]
fn fuzz_for_a_while() {
    let xcs = compiler();
    let seconds = env_u64("XCS_FUZZ_SECONDS").unwrap_or(60);
    let first = env_u64("XCS_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() << 20
    });
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/pass-fuzz");
    let start = std::time::Instant::now();
    let (mut stats, mut tally) = (Stats::default(), Tally::default());
    let mut findings = 0;
    let mut seed = first;
    let watch = watchdog(out.clone());
    while start.elapsed().as_secs() < seconds {
        watch.store(seed, std::sync::atomic::Ordering::SeqCst);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(&xcs, seed, &mut stats, &mut tally)));
        let report = match r {
            Ok(Ok(())) => None,
            Ok(Err(f)) => Some(f.to_string()),
            Err(p) => Some(format!(
                "seed {seed}: panic: {}",
                p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
            )),
        };
        if let Some(report) = report {
            findings += 1;
            std::fs::create_dir_all(&out).ok();
            std::fs::write(out.join(format!("seed-{seed}.txt")), &report).ok();
            eprintln!("FINDING {findings}: {}", report.lines().take(6).collect::<Vec<_>>().join("\n  "));
        }
        seed += 1;
    }
    eprintln!(
        "pass fuzz: seeds {first}..{seed} in {:.0} s, {findings} findings\n{}",
        start.elapsed().as_secs_f64(),
        summary(&stats, &tally)
    );
    assert_eq!(findings, 0, "findings written to {}", out.display());
}
