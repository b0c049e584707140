#!/usr/bin/env python3
"""The kernel-workload benchmark (issue 20 "Speed"): the batched multi-head attention workload
(`xcs.workload`, a `parallel_for` over batch and heads, each task softmax(Q K^T / sqrt(d)) V on
its slice) against the same attention as one function of batched tensor ops (what one `xcs.jit`
function compiles to) and against numpy, each at 1 and 2 threads, measured in the same run.

Method: XCS runs as `xcs-run FILE --input ...npy --bench N --threads T` (min and median of N
calls after a warm-up, parsed from its `bench:` line); numpy runs in a subprocess with
OPENBLAS_NUM_THREADS/OMP_NUM_THREADS=T set before the import, timing the same formula
(batched matmuls, a stable softmax) as the minimum of N calls. Every 1-thread run is pinned to
CPU 0 with `taskset -c 0` when available. The outputs of the two XCS programs are checked
against numpy (rtol 1e-4) before timing. Ratios are peer time / workload time (> 1: the
workload is faster).

Usage (from the repository root):
    cargo build --release -p xcs --bin xcs-run
    python3 tools/bench/bench_workload_ir.py --xcs-run target/release/xcs-run [--shape 4,8,128,64] [--runs 30] [--json out.json]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload_programs import attention_function_program, attention_numpy, attention_program  # noqa: E402

NUMPY_TIMER = r"""
import sys, time
import numpy as np
q, k, v = (np.load(f) for f in sys.argv[2:5])
runs = int(sys.argv[1])
def attn():
    s = (q @ np.swapaxes(k, -1, -2)) * np.float32(1.0 / np.sqrt(q.shape[-1]))
    s = np.exp(s - s.max(-1, keepdims=True))
    return (s / s.sum(-1, keepdims=True)) @ v
attn()
ts = []
for _ in range(runs):
    t = time.perf_counter(); attn(); ts.append(time.perf_counter() - t)
ts.sort()
print(ts[0] * 1e3, ts[len(ts) // 2] * 1e3)
"""


def pinned(threads):
    return ["taskset", "-c", "0"] if threads == 1 and shutil.which("taskset") else []


def xcs(xcs_run, prog, inputs, threads, runs, out=None):
    args = [*pinned(threads), xcs_run, prog, "--threads", str(threads)]
    for i, f in enumerate(inputs):
        args += ["--input", f"{i}={f}"]
    args += ["--output-dir", out] if out else ["--bench", str(runs)]
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"xcs-run failed:\n{p.stderr}")
    if out:
        return None
    m = re.search(r"min_ms=([0-9.]+) median_ms=([0-9.]+)", p.stdout + p.stderr)
    return float(m.group(1)), float(m.group(2))


def numpy_time(inputs, threads, runs):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    p = subprocess.run(
        [*pinned(threads), sys.executable, "-c", NUMPY_TIMER, str(runs), *map(str, inputs)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    if p.returncode != 0:
        raise SystemExit(f"numpy run failed:\n{p.stderr}")
    lo, med = p.stdout.split()
    return float(lo), float(med)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xcs-run", default="target/release/xcs-run")
    ap.add_argument("--shape", default="4,8,128,64", help="B,H,S,D")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json")
    a = ap.parse_args()
    B, H, S, D = map(int, a.shape.split(","))
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal((B, H, S, D)).astype(np.float32) for _ in range(3)]
        inputs = []
        for name, x in zip("QKV", arrays):
            np.save(d / f"{name}.npy", x)
            inputs.append(d / f"{name}.npy")
        progs = {"workload": attention_program(B, H, S, D), "one function": attention_function_program(B, H, S, D)}
        want = attention_numpy(*arrays)
        for name, text in progs.items():
            f = d / f"{name.replace(' ', '_')}.mlir"
            f.write_text(text)
            out = d / f"out_{f.stem}"
            xcs(a.xcs_run, f, inputs, 1, 0, out=out)
            got = np.load(next(out.glob("*.npy")))
            err = np.abs(got - want).max() / np.abs(want).max()
            if err > 1e-4:
                raise SystemExit(f"{name}: wrong result (max relative error {err:.2e})")
            progs[name] = f
        rows = []
        for t in (1, 2):
            w = xcs(a.xcs_run, progs["workload"], inputs, t, a.runs)
            fn = xcs(a.xcs_run, progs["one function"], inputs, t, a.runs)
            npy = numpy_time(inputs, t, a.runs)
            rows.append({"threads": t, "workload_ms": w, "one_function_ms": fn, "numpy_ms": npy,
                         "one_function/workload": fn[0] / w[0], "numpy/workload": npy[0] / w[0]})
    print(f"attention B={B} H={H} S={S} D={D} f32; min (median) ms over {a.runs} calls")
    print(f"{'threads':>7} {'workload':>18} {'one function':>18} {'numpy':>18} {'fn/wl':>7} {'np/wl':>7}")
    for r in rows:
        cell = lambda x: f"{x[0]:8.3f} ({x[1]:7.3f})"
        print(f"{r['threads']:>7} {cell(r['workload_ms']):>18} {cell(r['one_function_ms']):>18} {cell(r['numpy_ms']):>18}"
              f" {r['one_function/workload']:7.2f} {r['numpy/workload']:7.2f}")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps({"shape": [B, H, S, D], "runs": a.runs, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
