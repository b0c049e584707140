#!/usr/bin/env python3
"""Seed 002's workload benchmark (issue 20 "Speed"): batched multi-head attention
(B=4 batches x H=8 heads, S=128, D=64, float32) three ways, measured in the same run:

  workload  `@xcs.kernel` attention launched over `parallel_for(B) x parallel_for(H)`,
            compiled with `w.compile(target="native", threads=T, engine=E)`: E="workload" the
            whole xcs.workload through the LLVM backend, its 32 iterations on the runtime's
            pool of T threads; E="grid" one
            LLVM-compiled kernel called per iteration from Python threads (a pool of T)
  jit       the same computation written as one `xcs.jit` function on the whole (B, H, S, D)
            arrays, compiled through LLVM with the runtime's pool of T threads
            (`Program.compile(entry, shapes, threads=T)`)
  numpy     the same numpy code (its matmuls in OpenBLAS with T threads)

at T = 1 and 2 threads. Threads are set per peer: each T runs in its own subprocess with
OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/MKL_NUM_THREADS=T before numpy is imported (numpy), the
workload's `threads=T` (workload), and the compiled function's `threads=T` (jit); the
1-thread subprocess is pinned to one CPU with `taskset` when it exists. Figures are the minimum
over runs of the mean time per execution (the machine's cores are shared: minima are the
least noisy); each workload line prints the ratios workload/jit and workload/numpy.

Run: python3 tools/bench/bench_workload.py [--threads 1,2] [--runs 7] [--json FILE]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

B, H, S, D = 4, 8, 128, 64


def worker(threads, runs):
    """Measures the three peers in this process (its env already sets numpy's threads)."""
    import numpy as np
    import xcs
    import xcs.numpy as xnp
    from xcs import AxisVar, Constexpr, In, Out, Tensor

    @xcs.kernel
    def attention(b: AxisVar, h: AxisVar, q: In[Tensor], k: In[Tensor], v: In[Tensor], o: Out[Tensor], *,
                  scale: Constexpr[float] = 1.0):
        s = (q @ k.T) * scale
        p = xnp.exp(s - s.max(axis=-1, keepdims=True))
        o[...] = (p / p.sum(axis=-1, keepdims=True)) @ v

    def batched(q, k, v):
        s = (q @ xnp.swapaxes(k, -1, -2)) * D ** -0.5
        p = xnp.exp(s - s.max(axis=-1, keepdims=True))
        return (p / p.sum(axis=-1, keepdims=True)) @ v

    def numpy_attention(q, k, v):
        s = (q @ np.swapaxes(k, -1, -2)) * np.float32(D ** -0.5)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        return (p / p.sum(axis=-1, keepdims=True)) @ v

    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((B, H, S, D)).astype(np.float32) for _ in range(3))
    with xcs.workload("mha") as w:
        Q, K, V = w.input("Q", q), w.input("K", k), w.input("V", v)
        O = w.output("O", q.shape, np.float32)
        with xcs.parallel_for(B) as b:
            with xcs.parallel_for(H) as h:
                attention[b, h](q=Q[b, h], k=K[b, h], v=V[b, h], o=O[b, h], scale=D ** -0.5)
    programs = {e: w.compile(target="native", threads=threads, engine=e) for e in ("workload", "grid")}

    jitted = xcs.jit(batched)
    lowered = jitted.lower(q, k, v)
    native = xcs.Program.parse(lowered.traced.text)
    native.run_pipeline(xcs.DEFAULT_PIPELINE)
    exe = native.compile(lowered.traced.name, [list(q.shape)] * 3, threads=threads)

    want = numpy_attention(q, k, v)
    peers = {f"workload_{e}": (lambda p: lambda: p.execute(Q=q, K=k, V=v)["O"])(p) for e, p in programs.items()}
    peers.update({
        "jit": lambda: exe(q, k, v)[0],
        "numpy": lambda: numpy_attention(q, k, v),
    })
    out = {}
    for name, fn in peers.items():
        got = fn()
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            raise SystemExit(f"{name} differs from numpy: max |diff| {np.abs(got - want).max()}")
        best = float("inf")
        for _ in range(runs):
            n, t0 = 0, time.perf_counter()
            while n < 3 or time.perf_counter() - t0 < 0.2:
                fn()
                n += 1
            best = min(best, (time.perf_counter() - t0) / n)
        out[name] = best
    return out


def run_threads(threads, runs):
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(threads), "--runs", str(runs)]
    if threads == 1 and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0"] + cmd
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"the {threads}-thread worker failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        print(json.dumps(worker(args.worker, args.runs)))
        return
    print(f"attention B={B} H={H} S={S} D={D} float32: the workload (parallel_for over batch x heads) vs one "
          "xcs.jit function vs numpy (min of mean ms per execution)")
    results = {}
    for t in [int(x) for x in args.threads.split(",")]:
        r = run_threads(t, args.runs)
        results[f"t{t}"] = r
        print(f"  threads={t}: jit {r['jit'] * 1e3:7.3f} ms  numpy {r['numpy'] * 1e3:7.3f} ms")
        for e in ("workload", "grid"):
            x = r[f"workload_{e}"]
            print(f"    workload (engine={e}) {x * 1e3:7.3f} ms  workload/jit {x / r['jit']:5.2f}  "
                  f"workload/numpy {x / r['numpy']:5.2f}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
