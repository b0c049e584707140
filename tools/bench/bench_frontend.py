#!/usr/bin/env python3
"""The Python frontend's benchmark (issue 19 "Tests and speed"), every peer measured in this run:

  call     the overhead of calling a cached jitted function on 4x4 f32 inputs: xcs.jit vs
           jax.jit (median per call); goal xcs/jax <= 0.5
  first    the first call (trace + compile + run) of a 2-layer MLP, a fresh function each
           time: xcs.jit vs jax.jit (median); goal xcs/jax <= 1.0
  w3       W3 (relu(x@W1+b1)@W2+b2, x 256x1024, W1 1024x4096, W2 4096x1024) jitted from
           Python vs `xcs-run tools/bench/native/w3_mlp.mlir --bench` (min per call); goal
           python/xcs-run <= 1.05
  vmap     xcs.vmap over 1,000 calls of a provider that sleeps 10 ms, max_concurrency=16,
           against the ideal 1000/16 * 10 ms = 0.625 s; goal <= 1.3x

Prints one line per measurement with the ratio; jax is skipped (and said so) if it is not
installed. Run: python3 tools/bench/bench_frontend.py [--xcs-run target/release/xcs-run]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import xcs


def per_call(fn, n, repeat=5):
    """The median over `repeat` runs of the mean time of `n` calls (seconds)."""
    fn()
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t) / n)
    return statistics.median(runs)


def try_jax():
    try:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        return jax
    except ImportError:
        return None


def bench_call(jax, results):
    a = np.ones((4, 4), np.float32)
    b = np.full((4, 4), 2.0, np.float32)
    f = xcs.jit(lambda a, b: a * b + a)
    t_xcs = per_call(lambda: f(a, b), 20000)
    line = f"call     xcs.jit 4x4: {t_xcs * 1e6:8.2f} us/call"
    results["call_xcs_us"] = t_xcs * 1e6
    if jax is not None:
        g = jax.jit(lambda a, b: a * b + a)
        t_jax = per_call(lambda: g(a, b).block_until_ready(), 20000)
        results["call_jax_us"] = t_jax * 1e6
        line += f"   jax.jit: {t_jax * 1e6:8.2f} us/call   xcs/jax = {t_xcs / t_jax:.2f} (goal <= 0.5)"
    print(line, flush=True)


def mlp_args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((32, 64), dtype=np.float32), rng.standard_normal((64, 128), dtype=np.float32),
            np.zeros(128, np.float32), rng.standard_normal((128, 10), dtype=np.float32))


def bench_first_call(jax, results, reps=5):
    args = mlp_args()

    def xcs_first():
        f = xcs.jit(lambda x, w1, b1, w2: xcs.nn.softmax(xcs.nn.relu(x @ w1 + b1) @ w2, axis=-1))
        t = time.perf_counter()
        f(*args)
        return time.perf_counter() - t

    t_xcs = statistics.median(xcs_first() for _ in range(reps))
    results["first_xcs_ms"] = t_xcs * 1e3
    line = f"first    xcs.jit MLP: {t_xcs * 1e3:8.2f} ms"
    if jax is not None:
        def jax_first():
            g = jax.jit(lambda x, w1, b1, w2: jax.nn.softmax(jax.nn.relu(x @ w1 + b1) @ w2, axis=-1))
            t = time.perf_counter()
            g(*args).block_until_ready()
            return time.perf_counter() - t
        t_jax = statistics.median(jax_first() for _ in range(reps))
        results["first_jax_ms"] = t_jax * 1e3
        line += f"   jax.jit: {t_jax * 1e3:8.2f} ms   xcs/jax = {t_xcs / t_jax:.2f} (goal <= 1.0)"
    print(line, flush=True)


def bench_w3(xcs_run, results, calls=10):
    rng = np.random.default_rng(0)
    shapes = {"x": (256, 1024), "w1": (1024, 4096), "b1": (4096,), "w2": (4096, 1024), "b2": (1024,)}
    vals = {k: rng.standard_normal(s, dtype=np.float32) * 0.05 for k, s in shapes.items()}
    f = xcs.jit(lambda x, w1, b1, w2, b2: xcs.nn.relu(x @ w1 + b1) @ w2 + b2,
                pipeline="builtin.module(func.func(fuse))")
    f(*vals.values())
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        f(*vals.values())
        times.append(time.perf_counter() - t)
    t_py = min(times)
    results["w3_python_ms"] = t_py * 1e3
    line = f"w3       from Python: {t_py * 1e3:8.2f} ms"
    if xcs_run and os.path.exists(xcs_run):
        with tempfile.TemporaryDirectory() as d:
            inputs = []
            for k, v in vals.items():
                np.save(os.path.join(d, k + ".npy"), v)
                inputs += ["--input", f"{k}={os.path.join(d, k + '.npy')}"]
            module = os.path.join(os.path.dirname(__file__), "native", "w3_mlp.mlir")
            out = subprocess.run([xcs_run, module, "--entry", "main", *inputs, "--pass-pipeline",
                                  "builtin.module(func.func(fuse))", "--bench", str(calls)],
                                 capture_output=True, text=True, check=True).stdout
        t_run = float(re.search(r"min_ms=([0-9.]+)", out).group(1)) / 1e3
        results["w3_xcs_run_ms"] = t_run * 1e3
        line += f"   xcs-run --bench: {t_run * 1e3:8.2f} ms   python/xcs-run = {t_py / t_run:.3f} (goal <= 1.05)"
    else:
        line += "   (no xcs-run given: not compared)"
    print(line, flush=True)


def bench_vmap(results, n=1000, sleep=0.010, concurrency=16):
    xcs.providers.register("sleepy", lambda model, prompt: (time.sleep(sleep), prompt)[1], timeout=10.0)

    def ask(q):
        return xcs.llm(q, model="m", provider="sleepy")

    prompts = [f"prompt {i}" for i in range(n)]
    v = xcs.vmap(ask, max_concurrency=concurrency)
    t = time.perf_counter()
    out = v(prompts)
    dt = time.perf_counter() - t
    assert out == prompts
    ideal = n / concurrency * sleep
    results["vmap_s"] = dt
    print(f"vmap     {n} provider calls of {sleep * 1e3:.0f} ms, max_concurrency={concurrency}: {dt:.3f} s"
          f"   ideal {ideal:.3f} s   ratio = {dt / ideal:.2f} (goal <= 1.3)", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xcs-run", default="target/release/xcs-run")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    jax = try_jax()
    if jax is None:
        print("(jax is not installed: the jax columns are skipped; make bench-deps installs it)")
    results = {}
    bench_call(jax, results)
    bench_first_call(jax, results)
    bench_w3(args.xcs_run, results)
    bench_vmap(results)
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
