#!/usr/bin/env python3
"""The f32 matmul library against OpenBLAS in one process (issue 22 item 2, isolated from the host).

`bench_native.py` times `xcs-run` and numpy in separate processes; on a 2-core VM whose other
core is busy (or whose host is), those wall-clock medians swing by 10-50%. This benchmark builds
`native/matmul_ab.c` with the runtime's C sources (lowering/runtime/xcs_matmul.c and the pool)
and numpy's OpenBLAS (dlopen), and alternates the two calls in one process: at 1 thread each is
timed in thread CPU time, so preemption costs neither. With more threads each call is timed
in wall time, and both libraries' workers sleep as soon as a call ends
(OPENBLAS_THREAD_TIMEOUT=4, XCS_SPIN_US=0): left spinning, as both do by default, a library's
idle workers take the cores from the other's next call (1024^3 at 2 threads: both ~20 ms, as
slow as one thread; OpenBLAS's workers also spin once the library loads: with it only loaded,
the first ten XCS calls of 64x1024x4096 ran at one thread's speed). So at 2 threads every call
of either library pays the wake-up of its workers, which the back-to-back calls of
bench_native.py (one process per library, workers spinning) do not: the ratio compares the
libraries' work, the wake-up included, and small shapes (256^3: 0.2 ms) feel the wake-up most.
Every OpenBLAS kernel variant bench_native.py tries
(OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE) runs; the fastest counts. Prints per shape and thread count
the medians, quartiles, the ratio OpenBLAS/XCS (>= 1: XCS at least as fast) and the largest
difference of the results.

    python3 tools/bench/bench_matmul.py                      # the issue's shapes and the MLP's, 1 and 2 threads
    python3 tools/bench/bench_matmul.py --shapes 1024x1024x1024 --threads 2 --runs 21

Shapes are MxKxN or BxMxKxN (B batched products). Needs gcc and numpy (with its OpenBLAS).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "lowering" / "runtime"
SOURCES = [ROOT / "tools/bench/native/matmul_ab.c"] + [RUNTIME / f for f in ("xcs_matmul.c", "xcs_runtime.c", "xcs_collectives.c")]
# The shapes (item 2) and the MLP's two layers (W3).
DEFAULT_SHAPES = "1024x1024x1024,256x256x256,64x1024x4096,8x128x64x128,256x1024x4096,256x4096x1024"
# At more than one thread: both libraries' workers sleep when a call ends (see above).
SLEEPING_WORKERS = {"OPENBLAS_THREAD_TIMEOUT": "4", "XCS_SPIN_US": "0"}


def bench_native():
    """bench_native.py as a module (for its OpenBLAS variants)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import bench_native as mod

    return mod


def openblas_library() -> str:
    """numpy's OpenBLAS shared library."""
    import numpy

    libs = Path(numpy.__file__).parent.parent / "numpy.libs"
    found = sorted(glob.glob(str(libs / "libscipy_openblas*.so"))) + sorted(glob.glob(str(libs / "libopenblas*.so")))
    if not found:
        raise SystemExit(f"error: no OpenBLAS in {libs} (numpy from PyPI bundles one)")
    return found[0]


def build(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["gcc", "-O2", "-pthread", f"-I{RUNTIME}", *map(str, SOURCES), "-o", str(out), "-ldl", "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"error: building {out.name} failed:\n{r.stderr}")
    return out


def parse_shape(s: str) -> tuple[int, int, int, int]:
    parts = [int(p) for p in s.lower().split("x")]
    if len(parts) == 3:
        parts = [1] + parts
    if len(parts) != 4 or min(parts) < 1:
        raise SystemExit(f"error: shape {s!r}: expected MxKxN or BxMxKxN of positive sizes")
    return tuple(parts)  # type: ignore[return-value]


def run_one(tool: Path, lib: str, shape, threads: int, runs: int, env_over: dict) -> dict:
    env = dict(os.environ)
    for k, v in env_over.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    cmd = [str(tool), lib, *map(str, shape), str(threads), str(runs)]
    if threads == 1:
        cmd = ["taskset", "-c", "0"] + cmd
    else:
        env.update(SLEEPING_WORKERS)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)}: {r.stderr.strip()}")
    out = dict(kv.split("=", 1) for kv in r.stdout.split())
    return {k: (v if k in ("clock", "sgemm", "isa") else float(v)) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (more than 1: workers sleep between calls, see above)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--openblas", default="auto", help="as bench_native.py's --openblas")
    ap.add_argument("--json")
    args = ap.parse_args()
    shapes = [parse_shape(s) for s in args.shapes.split(",") if s.strip()]
    threads = [int(t) for t in args.threads.split(",")]
    tool = build(ROOT / "target" / "bench" / "matmul_ab")
    lib = openblas_library()
    variants = bench_native().openblas_variants(args.openblas)
    print(f"OpenBLAS: {lib}; variants: {', '.join(v for v, _ in variants)}; runs {args.runs}, alternating in one process"
          + ("; above 1 thread workers sleep between calls: " + " ".join(f"{k}={v}" for k, v in SLEEPING_WORKERS.items())
             if any(t > 1 for t in threads) else ""))
    head = f"{'shape':>18} {'thr':>3} {'clock':>10} {'isa':>7} {'xcs med ms (q1-q3)':>26} {'OpenBLAS med ms (q1-q3)':>26} {'best variant':>34} {'OB/xcs':>6} {'maxdiff':>8}"
    print(head + "\n" + "-" * len(head))
    results = []
    for shape in shapes:
        for t in threads:
            rows = [(name, run_one(tool, lib, shape, t, args.runs, env)) for name, env in variants]
            name, best = min(rows, key=lambda r: r[1]["blas_med"])
            b, m, k, n = shape
            label = (f"{b}x" if b > 1 else "") + f"{m}x{k}x{n}"
            ratio = best["blas_med"] / best["xcs_med"]
            print(f"{label:>18} {t:>3} {best['clock']:>10} {best['isa']:>7} {best['xcs_med']:>9.3f} ({best['xcs_q1']:.3f}-{best['xcs_q3']:.3f})"
                  f" {best['blas_med']:>9.3f} ({best['blas_q1']:.3f}-{best['blas_q3']:.3f}) {name:>34} {ratio:>6.3f} {best['maxdiff']:>8.2g}")
            results.append({"shape": label, "threads": t, "variant": name, **best, "ratio": ratio,
                            "flops": 2.0 * b * m * k * n})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
