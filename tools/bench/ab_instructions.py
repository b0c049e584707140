#!/usr/bin/env python3
"""Before/after instruction counts of two `xcs-opt` builds on the IR benchmarks' workloads.

Wall-clock A/B comparisons need a quiet host; instruction counts (valgrind's callgrind) do
not: they measure the work the code does, not what the caches or the neighbours do. Each
workload runs both binaries on the same generated file; a pass's own instructions are the
whole run's minus the run of the same file without the pass (parse, verify and print only).
Runs are single-threaded (RAYON_NUM_THREADS=1): the spinning of idle pool threads would
otherwise be counted, and it varies from run to run.

Usage (from the repository root; needs valgrind):
    python3 tools/bench/ab_instructions.py --before OLD/xcs-opt --after target/release/xcs-opt
    python3 tools/bench/ab_instructions.py --before A --after B --ops 30000 --only parse,cse
Prints one row per workload: both counts and after/before. Benchmarks measure; nothing here is
a test. Python 3.11, standard library only.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import bench_classify  # noqa: E402  (the generators of the pass benchmarks)
import bench_vmap_batch  # noqa: E402


def generated_files(cache: Path, ops: int) -> dict[str, Path]:
    """The workloads' inputs, generated once per size into `cache`."""
    cache.mkdir(parents=True, exist_ok=True)
    files = {
        "generic": cache / f"ab_generic_{ops}.mlir",
        "xcs": cache / f"ab_xcs_{ops}.mlir",
        "classify": cache / f"ab_classify_{ops}.mlir",
        "vmap": cache / f"ab_vmap_{ops}.mlir",
    }
    gen = [sys.executable, str(HERE / "gen_module.py"), "--ops", str(ops)]
    if not files["generic"].exists():
        subprocess.run(gen + ["-o", str(files["generic"])], check=True)
    if not files["xcs"].exists():
        subprocess.run(gen + ["--funcs", str(max(ops // 300, 1)), "--dup", "0.35", "--spread", "0.15",
                              "--flavor", "xcs", "-o", str(files["xcs"])], check=True)
    if not files["classify"].exists():
        files["classify"].write_text(bench_classify.generate(ops))
    if not files["vmap"].exists():
        files["vmap"].write_text(bench_vmap_batch.generate(ops))
    return files


# name -> (input file key, xcs-opt arguments of the run, arguments of its baseline run or None)
WORKLOADS: dict[str, tuple[str, list[str], list[str] | None]] = {
    "parse+print generic": ("generic", ["--mlir-print-op-generic"], None),
    "parse+verify+print xcs": ("xcs", [], None),
    "cse": ("xcs", ["-p", "builtin.module(func.func(cse))"], []),
    "canonicalize": ("xcs", ["-p", "builtin.module(func.func(canonicalize))"], []),
    "fuse": ("xcs", ["-p", "builtin.module(func.func(fuse))"], []),
    "cost-annotate": ("xcs", ["-p", "builtin.module(cost-annotate)"], []),
    "classify": ("classify", ["--classify"], []),
    "vmap-batch": ("vmap", ["--vmap-batch"], []),
}


def instructions(xcs_opt: str, path: Path, args: list[str]) -> int:
    """Instructions of one whole run of `xcs-opt path --allow-unregistered-dialect args -o /dev/null`
    under callgrind (the generated modules hold ops of unregistered dialects)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
               xcs_opt, str(path), "--allow-unregistered-dialect", *args, "-o", "/dev/null"]
        env = dict(os.environ, RAYON_NUM_THREADS="1")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"Collected\s*:\s*([0-9]+)", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit(f"callgrind failed: {' '.join(cmd)}\n{p.stderr[-3000:]}")
    return int(m.group(1))


def measure(xcs_opt: str, path: Path, args: list[str], baseline: list[str] | None) -> int:
    total = instructions(xcs_opt, path, args)
    return total - instructions(xcs_opt, path, baseline) if baseline is not None else total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the xcs-opt binary before the change")
    ap.add_argument("--after", default=str(ROOT / "target/release/xcs-opt"))
    ap.add_argument("--ops", type=int, default=30000, help="ops per generated module")
    ap.add_argument("--only", help="comma-separated workload names (substrings)")
    ap.add_argument("--cache", type=Path, default=ROOT / "target" / "bench")
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind not found (apt-get install valgrind)")
    files = generated_files(args.cache, args.ops)
    wanted = args.only.split(",") if args.only else None
    print(f"{'workload':<26}{'before':>16}{'after':>16}{'after/before':>14}")
    for name, (key, run_args, baseline) in WORKLOADS.items():
        if wanted and not any(w in name for w in wanted):
            continue
        before = measure(args.before, files[key], run_args, baseline)
        after = measure(args.after, files[key], run_args, baseline)
        ratio = after / before if before > 0 else float("nan")
        print(f"{name:<26}{before:>16,}{after:>16,}{ratio:>14.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
