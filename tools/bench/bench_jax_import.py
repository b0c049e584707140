#!/usr/bin/env python3
"""JAX programs compiled by XCS (`xcs.from_jax`: StableHLO -> convert-stablehlo-to-tensor ->
LLVM) against the same programs under `jax.jit` (XLA CPU), both measured in this run.

Programs at W1-W6-like sizes (f32): W1 `tanh(x*1.5+0.5)*sigmoid(x)+x*x` on 4M elements, W2
matmul 512^3, W3 the MLP `relu(x@W1+b1)@W2+b2` (x 256x1024, W1 1024x4096, W2 4096x1024), W4
softmax over the rows of 2048x2048, W5 layernorm (written out, as JAX users do) over the rows
of 2048x2048, W6 GELU (tanh form) on 4M elements; and the suite's model pieces: multi-head
attention (2x128x256, 8 heads), a scan RNN (64 steps, 32x256), a GPT-2 block (2x128x256).

For each: the compile time of both (XCS: StableHLO text export + parse + pipeline + LLVM JIT;
JAX: `jax.jit(f).lower(...).compile()`), and the median wall time per call of both compiled
functions on the same inputs, with the ratio jax/xcs (> 1: XCS is faster). The outputs are
checked against each other first. Run:
  python3 tools/bench/bench_jax_import.py [--only W3,gpt2] [--runs 7] [--json FILE]
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import xcs  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "frontend", "tests"))
from test_py_from_jax import attention, gpt2_block, gpt2_params, rnn  # noqa: E402


def normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def programs(rng):
    """name -> (function, example arguments)."""
    n = 4 * 1024 * 1024
    return {
        "W1": (lambda x: jnp.tanh(x * 1.5 + 0.5) * jax.nn.sigmoid(x) + x * x, (normal(rng, n),)),
        "W2": (lambda a, b: a @ b, (normal(rng, 512, 512), normal(rng, 512, 512))),
        "W3": (lambda x, w1, b1, w2, b2: jax.nn.relu(x @ w1 + b1) @ w2 + b2,
               (normal(rng, 256, 1024), normal(rng, 1024, 4096, scale=0.03), normal(rng, 4096),
                normal(rng, 4096, 1024, scale=0.03), normal(rng, 1024))),
        "W4": (lambda x: jax.nn.softmax(x, axis=-1), (normal(rng, 2048, 2048),)),
        "W5": (lambda x, g, b: (x - x.mean(-1, keepdims=True)) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5) * g + b,
               (normal(rng, 2048, 2048), normal(rng, 2048), normal(rng, 2048))),
        "W6": (lambda x: jax.nn.gelu(x, approximate=True), (normal(rng, n),)),
        "attention": (lambda x, a, b, c, d: attention(x, a, b, c, d, heads=8),
                      (normal(rng, 2, 128, 256),) + tuple(normal(rng, 256, 256, scale=0.06) for _ in range(4))),
        "rnn": (rnn, (normal(rng, 32, 256), normal(rng, 64, 32, 128), normal(rng, 256, 256, scale=0.06),
                      normal(rng, 128, 256, scale=0.06))),
        "gpt2": (gpt2_block, (normal(rng, 2, 128, 256), gpt2_params(rng, 256))),
    }


def median_time(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench(name, f, args, runs):
    t = time.perf_counter()
    g = xcs.from_jax(f, *args)
    xcs_compile = time.perf_counter() - t
    t = time.perf_counter()
    compiled = jax.jit(f).lower(*args).compile()
    jax_compile = time.perf_counter() - t
    dev_args = jax.device_put(args)
    want = jax.tree_util.tree_leaves(compiled(*dev_args))
    got = jax.tree_util.tree_leaves(g(*args))
    err = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)))) / max(float(np.max(np.abs(b))), 1.0)
              for a, b in zip(got, want))
    t_xcs = median_time(lambda: g(*args), runs)
    t_jax = median_time(lambda: jax.block_until_ready(compiled(*dev_args)), runs)
    return {"xcs_ms": t_xcs * 1e3, "jax_ms": t_jax * 1e3, "speedup": t_jax / t_xcs,
            "xcs_compile_s": xcs_compile, "jax_compile_s": jax_compile, "max_rel_err": err}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", help="write the figures to this file")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    progs = programs(rng)
    names = a.only.split(",") if a.only else list(progs)
    print(f"jax {jax.__version__}; median of {a.runs} calls; speedup = jax.jit time / xcs time")
    print(f"{'program':10} {'xcs ms':>9} {'jax ms':>9} {'speedup':>8} {'xcs compile s':>14} {'jax compile s':>14} {'rel err':>9}")
    results = {}
    for name in names:
        f, args = progs[name]
        r = bench(name, f, args, a.runs)
        results[name] = r
        print(f"{name:10} {r['xcs_ms']:9.3f} {r['jax_ms']:9.3f} {r['speedup']:7.2f}x {r['xcs_compile_s']:14.3f} "
              f"{r['jax_compile_s']:14.3f} {r['max_rel_err']:9.1e}")
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as fh:
            json.dump({"jax": jax.__version__, "runs": a.runs, "programs": results}, fh, indent=1)


if __name__ == "__main__":
    main()
