#!/usr/bin/env python3
"""The native-code benchmark (issue 5 "Speed", issue 6 goals): XCS's LLVM backend (`xcs-run`)
against numpy and `jax.jit` (XLA CPU), each at 1 and 2 threads, measured in the same run, with
the machine's STREAM-triad bandwidth and peak FMA rate as the roofs.

Workloads (f32; the modules are in tools/bench/native/):
  W1  tanh(x*1.5+0.5)*sigmoid(x)+x*x on 16M elements       w1_chain.mlir
  W2  matmul 1024x1024x1024 and 256x256x256                  w2_matmul_{1024,256}.mlir
      64x1024 @ 1024x4096, batched 8 x (128x64 @ 64x128)        w2_matmul_{skinny,batched}.mlir
  W3  MLP relu(x@W1+b1)@W2+b2, x 256x1024, W1 1024x4096,     w3_mlp.mlir
      W2 4096x1024
  W4  softmax over the rows of 4096x4096                     w4_softmax.mlir
  W5  layer_norm over the rows of 4096x4096, gamma and beta  w5_layer_norm.mlir
  W6  GELU (tanh form) on 16M elements                       w6_gelu.mlir
  ew  each elementwise op alone on 16M elements              elementwise.mlir (one function per op)

Counting (the GFLOP/s and GB/s columns; a convention, not a hardware counter):
  - FLOPs: matmul [M,K]x[K,N] is 2*M*N*K. Elementwise: every primitive arithmetic operation of
    the op's defining formula is 1 FLOP per element, and a transcendental (exp, log, tanh, erf,
    sqrt) or a division also counts as 1. So add/sub/mul/div/max/min/pow/neg/abs/exp/log/tanh/
    relu/sqrt = 1, rsqrt = 2 (sqrt, div), sigmoid 1/(1+exp(-x)) = 4, silu x*sigmoid(x) = 5,
    GELU tanh 0.5*x*(1+tanh(0.79788456*(x+0.044715*x^3))) = 9, GELU erf
    0.5*x*(1+erf(x/sqrt(2))) = 5; W1 = 7 per element (mul, add, tanh, sigmoid counted as 1,
    mul, mul, add: the formula as written). softmax = 5 per element (max, sub, exp, sum, div);
    layer_norm = 7 per element (sum for the mean, sub, square, sum for the variance, scale by
    the reciprocal std, * gamma, + beta; the per-row rsqrt is ignored). Bias adds and relu in W3
    are 1 per element each.
  - Bytes: every input read once plus every output written once (the minimum traffic of a
    fully fused implementation; intermediates are not counted, and neither is the
    write-allocate read of an output). STREAM triad is counted the same way (3 x 8 bytes per
    element), so "% of triad" compares like with like; its arrays are on transparent huge pages,
    as numpy's large arrays and XCS's buffers and arguments are (on 4 KiB pages it measured 22.6
    instead of 28.2 GB/s at 1 thread, 40.8 instead of 54.8 at 2).
  - Time: the median of --runs calls (default 10) after one warm-up call, with its spread (the
    quartiles q1-q3); a speedup is peer median / xcs median, its spread peer q1 / xcs q3 to
    peer q3 / xcs q1. A claim rests on two runs that agree: --repeat R (R >= 2) makes the whole
    measurement (roofs, peers, xcs) R times, one after another, reports per row the repeat with
    the median median (and the lowest and highest), and a goal holds when at least two repeats,
    and most of them, pass (a slow window of the host, which comes and goes within a minute,
    then fails one repeat, not the claim). --clock wall (default) times each
    call by the wall clock; --clock cpu by the CPU time the process used in it (all threads,
    user + system: time.process_time for the peers, xcs-run's cpu_ms), which does not grow
    while other processes hold the CPUs: on a shared machine the 1-thread figures stay
    comparable; at 2 threads it is the work of both threads (spinning included), not latency.
    The roofs (STREAM, FMA) are always wall-clock.
  - Machine probe: short runs of peak_fma (5 x 2M iterations, ~70 ms) and of the triad over
    3 x 64 MB (best of 3) right before each xcs-run row and before and after each peer process,
    at the row's thread count: the lower of the two as a fraction of the run's roofs. On this
    2-vCPU VM the host now and then gives two threads one core's FMA rate for a second or two
    (W6 at 2 threads at its 1-thread time, 6.0 ms instead of 3.7, with peak_fma at 2 threads
    measuring 117 GFLOP/s instead of 230 right after, 4 times in 40 alternations), or memory-bound
    rows run 4x slow: rows measured under 80% are listed after the table, and a missed goal says
    the machine's figure.

Peers at their best (issue 22): every peer configuration runs in its own subprocess with the
environment set before the import. Memory: numpy and jax run with LD_PRELOAD=libjemalloc.so.2
and MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 (freed memory stays mapped, so a call does
not page-fault a fresh output buffer; without jemalloc, GLIBC_TUNABLES turns glibc's mmap and
trimming off to the same end; --peer-alloc default measures the plain allocator). jax's inputs
are device_put and ready before timing. Threads: OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/
MKL_NUM_THREADS=T; jax with JAX_PLATFORMS=cpu and, at 1 thread, XLA_FLAGS="--xla_cpu_multi_
thread_eigen=false intra_op_parallelism_threads=1"; every 1-thread run (numpy, jax, xcs-run,
STREAM, FMA) is pinned to CPU 0 with `taskset -c 0`. OpenBLAS: numpy runs every workload without
overrides (the environment's OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset), then the BLAS workloads
(W2, W3) again under each --openblas variant (default "auto": OPENBLAS_CORETYPE = each kernel the
CPU can run, OPENBLAS_L2_SIZE = the L2 size from sysfs); the fastest median counts, and the kernel
numpy ran under each (threadpoolctl) is printed.
XCS runs as `xcs-run FILE --entry NAME --input x=FILE.npy ... --pass-pipeline P --bench N
--threads T` (P is builtin.module(func.func(fuse)) unless --pipeline says otherwise), its times
parsed from the `bench:` line's times_ms; twice: with retained buffers (the runtime's default,
which reuses big buffers across calls: row "xcs") and with --bench-buffers=fresh (every buffer new
from malloc: row "xcs fresh"). Inputs are generated once with a fixed seed (uniform in [-1, 1);
[0.5, 2) for divisors, log/sqrt/rsqrt and pow's base) and cached as .npy files in --cache, so
every implementation computes on the same data. Before timing, the outputs of numpy and jax
(at the first thread count) and of xcs-run (`--output-dir`) are checked against a float64
numpy reference: max|out - ref| <= 1e-4 * max|ref| (a failing check is reported in the table
and makes the exit code 1).

Goals (issue 22; PASS/MISS on the "xcs" rows, the speedup at the same thread count, medians):
  W2 (1024^3, 256^3, 64x1024x4096, 8x(128x64x128)) xcs/numpy >= 1.0 at 1 and 2 threads, with the
  % of the peak FMA rate; W1, W4, W5, W6 xcs/XLA >= 1.5 or a median within 10% of the triad time
  for the workload's bytes (printed in the roofline section); W3 xcs/XLA >= 1.2; every
  elementwise op >= 80% of the STREAM triad bandwidth at the same thread count.

Usage (from the repository root):
    make bench-deps                                    # pip install jax (only the benchmark needs it)
    cargo build --release -p xcs --bin xcs-run
    python3 tools/bench/bench_native.py                # everything once, ~4 minutes
    python3 tools/bench/bench_native.py --repeat 3     # three times, claims from agreeing repeats, ~10 minutes
    python3 tools/bench/bench_native.py --xcs-run /path/to/xcs-run --json target/bench/native.json
    python3 tools/bench/bench_native.py --only W2,W4 --threads 1 --runs 5
    python3 tools/bench/bench_native.py --skip-xcs     # peers and roofs only
Options: --pipeline P (the pass pipeline xcs-run runs first; default
builtin.module(func.func(fuse)), '' for none), --runs N (default 10), --repeat R (default 1), --threads 1,2, --only W1,W2,ew,exp,... (workload names, groups
or elementwise op names), --clock wall|cpu (above), --skip-numpy, --skip-jax, --skip-xcs, --skip-fresh (no "xcs fresh" rows),
--skip-roofs, --skip-probe (no machine probes, below), --peer-alloc retained|default (the peers' allocator, above), --jemalloc PATH,
--openblas auto|"CORETYPE=Haswell,L2_SIZE=1048576;none;..." (numpy's OpenBLAS variants), --stream-n N
(doubles per STREAM array; default 80M: 3 x 640 MB), --cache DIR (default target/bench/native),
--fail-on-miss (exit 3 when a goal is missed; by default goals are only reported),
--wait-idle S (before each configuration, wait up to S seconds for the CPUs used by other
processes, sampled from /proc/stat, to drop below --idle-below, default 0.3; the load found is
printed either way, with a warning when the machine was busy).
Exit codes: 0 ok; 1 a result check failed or a tool failed; 2 bad usage or a missing tool;
3 a goal missed with --fail-on-miss.
When xcs-run has no LLVM backend (main's interpreter-only xcs-run), the xcs rows are skipped
with a message and the peers are still measured. jax missing: the jax rows are skipped
("make bench-deps" installs it).
Python 3.11; numpy; jax, threadpoolctl and libjemalloc2 optional (make bench-deps installs them).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NATIVE = HERE / "native"

N16M = 16 * 1024 * 1024
SEED = 20240605
TOL = 1e-4  # max|out - ref| <= TOL * max|ref|

# ---------------------------------------------------------------------------------------------
# inputs: key -> (shape, kind); kind "sym" is uniform in [-1, 1), "pos" in [0.5, 2)
INPUTS: dict[str, tuple[tuple[int, ...], str]] = {
    "v_x": ((N16M,), "sym"),
    "v_y": ((N16M,), "sym"),
    "v_p": ((N16M,), "pos"),
    "v_q": ((N16M,), "pos"),
    "a1024": ((1024, 1024), "sym"),
    "b1024": ((1024, 1024), "sym"),
    "a256": ((256, 256), "sym"),
    "b256": ((256, 256), "sym"),
    "mlp_x": ((256, 1024), "sym"),
    "mlp_w1": ((1024, 4096), "sym"),
    "mlp_b1": ((4096,), "sym"),
    "mlp_w2": ((4096, 1024), "sym"),
    "mlp_b2": ((1024,), "sym"),
    "mm_skinny_a": ((64, 1024), "sym"),
    "mm_skinny_b": ((1024, 4096), "sym"),
    "bmm_a": ((8, 128, 64), "sym"),
    "bmm_b": ((8, 64, 128), "sym"),
    "m4096": ((4096, 4096), "sym"),
    "gamma": ((4096,), "pos"),
    "beta": ((4096,), "sym"),
}


@dataclass
class Workload:
    name: str  # table name: W1, W2-1024, ..., ew-exp
    group: str  # W1 ... W6, ew
    mlir: str  # file under tools/bench/native
    entry: str
    args: list[tuple[str, str]]  # (xcs.name of the argument, input key), in order
    flops: float
    nbytes: float
    np_src: str  # a Python expression over `np` and the argument names
    jax_src: str  # the same over `jnp`, `jax` and the argument names
    ref_src: str | None = None  # float64 reference when np_src does not fit (default np_src)
    goals: list[tuple[str, float, tuple[int, ...]]] = field(default_factory=list)
    # goals: (kind, threshold, thread counts); kind "numpy" | "xla" (speedup) | "stream" (fraction)


def _mm_bytes(m: int, n: int, k: int) -> float:
    return 4.0 * (m * k + k * n + m * n)


SIG_NP = "1/(1+np.exp(-x))"
GELU_TANH_NP = "0.5*x*(1+np.tanh(0.7978845608028654*(x+0.044715*(x*x*x))))"
LN_NP = ("(lambda m: (lambda d: d*(1/np.sqrt((d*d).mean(axis=1, keepdims=True)+1e-5))*gamma+beta)"
         "(x-m))(x.mean(axis=1, keepdims=True))")
LN_JAX = ("(lambda m: (lambda d: d*jax.lax.rsqrt((d*d).mean(axis=1, keepdims=True)+1e-5)*gamma+beta)"
          "(x-m))(x.mean(axis=1, keepdims=True))")
SOFTMAX_NP = "(lambda e: e/e.sum(axis=1, keepdims=True))(np.exp(x-x.max(axis=1, keepdims=True)))"

# elementwise ops: name -> (flops per element, arity, numpy expr, jax expr, positive inputs)
EW_OPS: dict[str, tuple[int, int, str, str, bool]] = {
    "add": (1, 2, "x+y", "x+y", False),
    "sub": (1, 2, "x-y", "x-y", False),
    "mul": (1, 2, "x*y", "x*y", False),
    "div": (1, 2, "x/y", "x/y", True),
    "max": (1, 2, "np.maximum(x, y)", "jnp.maximum(x, y)", False),
    "min": (1, 2, "np.minimum(x, y)", "jnp.minimum(x, y)", False),
    "pow": (1, 2, "np.power(x, y)", "jnp.power(x, y)", True),
    "neg": (1, 1, "-x", "-x", False),
    "abs": (1, 1, "np.abs(x)", "jnp.abs(x)", False),
    "exp": (1, 1, "np.exp(x)", "jnp.exp(x)", False),
    "log": (1, 1, "np.log(x)", "jnp.log(x)", True),
    "tanh": (1, 1, "np.tanh(x)", "jnp.tanh(x)", False),
    "sigmoid": (4, 1, SIG_NP, "jax.nn.sigmoid(x)", False),
    "relu": (1, 1, "np.maximum(x, 0)", "jax.nn.relu(x)", False),
    "silu": (5, 1, "x/(1+np.exp(-x))", "jax.nn.silu(x)", False),
    "sqrt": (1, 1, "np.sqrt(x)", "jnp.sqrt(x)", True),
    "rsqrt": (2, 1, "1/np.sqrt(x)", "jax.lax.rsqrt(x)", True),
    "gelu_erf": (5, 1, "0.5*x*(1+erf(x*0.7071067811865476))", "jax.nn.gelu(x, approximate=False)", False),
    "sin": (1, 1, "np.sin(x)", "jnp.sin(x)", False),
    "cos": (1, 1, "np.cos(x)", "jnp.cos(x)", False),
    "erf": (1, 1, "erf(x)", "jax.scipy.special.erf(x)", False),
    "floor": (1, 1, "np.floor(x)", "jnp.floor(x)", False),
    "ceil": (1, 1, "np.ceil(x)", "jnp.ceil(x)", False),
    "round": (1, 1, "np.round(x)", "jnp.round(x)", False),
    "sign": (1, 1, "np.sign(x)", "jnp.sign(x)", False),
    "rem": (1, 2, "np.remainder(x, y)", "jnp.remainder(x, y)", True),
    "clamp": (2, 1, "np.clip(x, np.float32(-0.5), np.float32(0.5))", "jnp.clip(x, -0.5, 0.5)", False),
}


def workloads() -> list[Workload]:
    ws: list[Workload] = [
        Workload("W1", "W1", "w1_chain.mlir", "main", [("x", "v_x")], 7.0 * N16M, 8.0 * N16M,
                 f"np.tanh(x*1.5+0.5)*({SIG_NP})+x*x",
                 "jnp.tanh(x*1.5+0.5)*jax.nn.sigmoid(x)+x*x",
                 goals=[("xla_or_triad", 1.5, (1, 2))]),
    ]
    mm_goal = [("numpy", 1.0, (1, 2))]
    for n in (1024, 256):
        ws.append(Workload(f"W2-{n}", "W2", f"w2_matmul_{n}.mlir", "main",
                           [("a", f"a{n}"), ("b", f"b{n}")], 2.0 * n ** 3, _mm_bytes(n, n, n),
                           "a@b", "a@b", goals=mm_goal))
    ws += [
        Workload("W2-64x1024x4096", "W2", "w2_matmul_skinny.mlir", "main",
                 [("a", "mm_skinny_a"), ("b", "mm_skinny_b")], 2.0 * 64 * 1024 * 4096,
                 _mm_bytes(64, 4096, 1024), "a@b", "a@b", goals=mm_goal),
        Workload("W2-8x128x64x128", "W2", "w2_matmul_batched.mlir", "main",
                 [("a", "bmm_a"), ("b", "bmm_b")], 8 * 2.0 * 128 * 64 * 128,
                 8 * _mm_bytes(128, 128, 64), "a@b", "a@b", goals=mm_goal),
    ]
    m, k, h = 256, 1024, 4096
    ws += [
        Workload("W3", "W3", "w3_mlp.mlir", "main",
                 [("x", "mlp_x"), ("w1", "mlp_w1"), ("b1", "mlp_b1"), ("w2", "mlp_w2"), ("b2", "mlp_b2")],
                 2.0 * m * k * h * 2 + 2.0 * m * h + m * k,
                 4.0 * (m * k + k * h + h + h * k + k + m * k),
                 "np.maximum(x@w1+b1, 0)@w2+b2", "jax.nn.relu(x@w1+b1)@w2+b2",
                 goals=[("xla", 1.2, (1, 2))]),
        Workload("W4", "W4", "w4_softmax.mlir", "main", [("x", "m4096")], 5.0 * 4096 ** 2,
                 8.0 * 4096 ** 2, SOFTMAX_NP, "jax.nn.softmax(x, axis=1)",
                 goals=[("xla_or_triad", 1.5, (1, 2))]),
        Workload("W5", "W5", "w5_layer_norm.mlir", "main",
                 [("x", "m4096"), ("gamma", "gamma"), ("beta", "beta")], 7.0 * 4096 ** 2,
                 8.0 * 4096 ** 2 + 8.0 * 4096, LN_NP, LN_JAX, goals=[("xla_or_triad", 1.5, (1, 2))]),
        Workload("W6", "W6", "w6_gelu.mlir", "main", [("x", "v_x")], 9.0 * N16M, 8.0 * N16M,
                 GELU_TANH_NP, "jax.nn.gelu(x, approximate=True)",
                 goals=[("xla_or_triad", 1.5, (1, 2))]),
    ]
    for op, (fl, arity, npe, jxe, pos) in EW_OPS.items():
        args = [("x", "v_p" if pos else "v_x")]
        if arity == 2:
            args.append(("y", "v_q" if pos else "v_y"))
        ws.append(Workload(f"ew-{op}", "ew", "elementwise.mlir", op, args, float(fl) * N16M,
                           4.0 * (arity + 1) * N16M, npe, jxe,
                           goals=[("stream", 0.8, (1, 2))]))
    return ws


def select(ws: list[Workload], only: str | None) -> list[Workload]:
    if not only:
        return ws
    keys = {k.strip() for k in only.split(",") if k.strip()}
    out = [w for w in ws if w.name in keys or w.group in keys or w.name.removeprefix("ew-") in keys]
    if not out:
        raise SystemExit(f"error: --only {only!r} selects no workload (names: "
                         + ", ".join(w.name for w in ws) + "; groups W1..W6, ew)")
    return out


# ---------------------------------------------------------------------------------------------
# inputs and references (numpy, imported lazily)

def input_path(cache: Path, key: str) -> Path:
    return cache / "inputs" / f"{key}.npy"


def ensure_inputs(cache: Path, keys: set[str]) -> None:
    import numpy as np

    (cache / "inputs").mkdir(parents=True, exist_ok=True)
    for i, key in enumerate(sorted(INPUTS)):
        if key not in keys:
            continue
        p = input_path(cache, key)
        shape, kind = INPUTS[key]
        if p.exists():
            try:
                a = np.load(p, mmap_mode="r")
                if a.shape == shape and a.dtype == np.float32:
                    continue
            except (OSError, ValueError):
                pass
        rng = np.random.default_rng([SEED, i])
        lo, hi = (-1.0, 1.0) if kind == "sym" else (0.5, 2.0)
        a = rng.uniform(lo, hi, size=shape).astype(np.float32)
        np.save(p, a)


def load_inputs(cache: Path, w: Workload, dtype=None) -> dict:
    import numpy as np

    out = {}
    for name, key in w.args:
        a = np.load(input_path(cache, key))
        out[name] = a.astype(dtype) if dtype is not None else a
    return out


def _erf(np):
    try:
        from scipy.special import erf  # scipy comes with jax
        return erf
    except ImportError:
        import math
        return np.vectorize(math.erf, otypes=[np.float64])


def reference(cache: Path, w: Workload):
    """The float64 numpy result of `w`."""
    import numpy as np

    env = {"np": np, "erf": _erf(np), **load_inputs(cache, w, np.float64)}
    return eval(w.ref_src or w.np_src, env)  # noqa: S307 (our own expressions)


def check(out, ref) -> tuple[bool, float]:
    """(ok, max|out - ref| / max|ref|)."""
    import numpy as np

    out = np.asarray(out, dtype=np.float64)
    if out.shape != ref.shape:
        return False, float("inf")
    scale = float(np.max(np.abs(ref))) or 1.0
    diff = np.abs(out - ref)
    if not np.all(np.isfinite(diff)):
        return False, float("inf")
    err = float(np.max(diff)) / scale
    return err <= TOL, err


# ---------------------------------------------------------------------------------------------
# peers: one subprocess per (impl, threads, BLAS variant); see run_worker

# Peers at their best (issue 22): freed memory stays mapped, so a call does not page-fault a fresh
# output buffer (XCS's runtime keeps its big buffers the same way). jemalloc with decay off is the
# first choice; without it, glibc's malloc with mmap and trimming off keeps freed memory too.
JEMALLOC_PATHS = ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
                  "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2"]
JEMALLOC_CONF = "dirty_decay_ms:-1,muzzy_decay_ms:-1"
GLIBC_RETAIN = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4611686018427387904"


def find_jemalloc(explicit: str | None = None) -> str | None:
    """The path of libjemalloc.so.2 (`explicit` when given and present), or None."""
    for cand in ([explicit] if explicit else JEMALLOC_PATHS):
        if cand and Path(cand).is_file():
            return cand
    return None


def alloc_env(mode: str, jemalloc: str | None) -> tuple[dict[str, str], str]:
    """The environment of a peer's allocator and its description: mode "retained" (freed memory
    stays mapped: jemalloc with decay off, else glibc without mmap/trim) or "default"."""
    if mode == "default":
        return {}, "the default allocator (a call may page-fault fresh output memory)"
    if jemalloc:
        pre = " ".join(x for x in (jemalloc, os.environ.get("LD_PRELOAD", "")) if x)
        return ({"LD_PRELOAD": pre, "MALLOC_CONF": JEMALLOC_CONF},
                f"LD_PRELOAD={jemalloc} MALLOC_CONF={JEMALLOC_CONF} (freed memory stays mapped)")
    return ({"GLIBC_TUNABLES": GLIBC_RETAIN},
            f"GLIBC_TUNABLES={GLIBC_RETAIN} (jemalloc not found: apt-get install libjemalloc2; "
            "glibc keeps freed memory mapped)")


def l2_bytes() -> int | None:
    """The L2 cache of CPU 0 in bytes (sysfs), or None."""
    try:
        for d in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
            if (d / "level").read_text().strip() == "2":
                size = (d / "size").read_text().strip().upper()
                mult = {"K": 1024, "M": 1024 ** 2}.get(size[-1:], 1)
                return int(size.rstrip("KM")) * mult
    except (OSError, ValueError):
        pass
    return None


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def openblas_variants(spec: str) -> list[tuple[str, dict[str, str | None]]]:
    """The OpenBLAS settings numpy's BLAS workloads run under: (label, env overrides; None
    unsets). `spec` "auto": none (OpenBLAS's own detection, the machine's OPENBLAS_* unset), then
    OPENBLAS_CORETYPE = each kernel this CPU can run (and the environment's own, if set) with
    OPENBLAS_L2_SIZE = the L2 size from sysfs (under a hypervisor OpenBLAS may detect neither
    well). Otherwise `spec` is ';'-separated lists like "CORETYPE=Haswell,L2_SIZE=1048576" ("none"
    for no override). The fastest counts (see best_numpy_rows)."""
    unset: dict[str, str | None] = {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None}
    out: list[tuple[str, dict[str, str | None]]] = []
    if spec != "auto":
        for part in (p.strip() for p in spec.split(";") if p.strip()):
            env = dict(unset)
            if part != "none":
                for kv_ in part.split(","):
                    k, _, v = kv_.partition("=")
                    env["OPENBLAS_" + k.strip().upper().removeprefix("OPENBLAS_")] = v.strip()
            out.append((part, env))
        return out or [("none", unset)]
    out.append(("none", unset))
    flags = cpu_flags()
    cores = ["Haswell", "Zen"] if "avx2" in flags else []
    if "avx512f" in flags:
        cores += ["SkylakeX", "Cooperlake"]
    mine = os.environ.get("OPENBLAS_CORETYPE")
    if mine and mine not in cores:
        cores.insert(0, mine)
    l2 = os.environ.get("OPENBLAS_L2_SIZE") or (str(l2_bytes()) if l2_bytes() else None)
    for c in cores:
        env = {"OPENBLAS_CORETYPE": c, "OPENBLAS_L2_SIZE": l2}
        out.append((f"CORETYPE={c}" + (f",L2_SIZE={l2}" if l2 else ""), env))
    return out


def peer_env(impl: str, threads: int, extra: dict[str, str | None] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[v] = str(threads)
    if impl == "jax":
        env["JAX_PLATFORMS"] = "cpu"
        env.pop("XLA_FLAGS", None)
        if threads == 1:
            env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def background_load(interval: float = 0.5) -> float | None:
    """CPUs kept busy by other processes (this script idles meanwhile): the busy share of
    /proc/stat's `cpu` line over `interval` seconds, times the CPU count. None off Linux."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + (v[4] if len(v) > 4 else 0)  # total, idle + iowait
    try:
        t0, i0 = sample()
        time.sleep(interval)
        t1, i1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return (1.0 - (i1 - i0) / max(t1 - t0, 1)) * (os.cpu_count() or 1)


def settle(args: argparse.Namespace, what: str, loads: dict) -> None:
    """Waits up to --wait-idle seconds for the background load to drop below --idle-below CPUs,
    then records it in `loads[what]` (the table header shows it; a busy machine spoils the
    2-thread figures most: OpenBLAS's and the runtimes' threads wait for a descheduled peer)."""
    deadline = time.monotonic() + args.wait_idle
    while True:
        load = background_load()
        if load is None or load < args.idle_below or time.monotonic() >= deadline:
            break
        print(f"  background load {load:.2f} CPUs: waiting (--wait-idle)", file=sys.stderr, flush=True)
        time.sleep(5)
    loads[what] = load


def pin(threads: int) -> list[str]:
    """`taskset -c 0` for one thread (when taskset exists)."""
    if threads == 1 and shutil.which("taskset"):
        return ["taskset", "-c", "0"]
    return []


def time_stats(times: list[float]) -> dict:
    """The spread of per-call seconds: min, quartiles (inclusive method), median, max, count."""
    ts = sorted(times)
    q = statistics.quantiles(ts, n=4, method="inclusive") if len(ts) > 1 else [ts[0]] * 3
    return {"min_s": ts[0], "q1_s": q[0], "median_s": statistics.median(ts), "q3_s": q[2],
            "max_s": ts[-1], "calls": len(ts)}


def blas_info() -> str:
    """The BLAS numpy runs and the kernel (core type) it chose, from threadpoolctl."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl is not installed: make bench-deps)"
    infos = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(f"{i.get('internal_api')} {i.get('version')} kernel {i.get('architecture', '?')} "
                     f"threads={i.get('num_threads')}" for i in infos) or "no BLAS library found"


def peer_call(impl: str, w: Workload, inputs: dict):
    """A function making one call of `w` on `impl` (jax: jitted, inputs already on the device)."""
    import numpy as np

    names = [n for n, _ in w.args]
    if impl == "jax":
        import jax
        import jax.numpy as jnp

        fn = eval(f"lambda {', '.join(names)}: {w.jax_src}", {"jnp": jnp, "jax": jax})  # noqa: S307
        f = jax.jit(fn)
        xs = [jax.device_put(inputs[n]) for n in names]
        for x in xs:
            x.block_until_ready()
        return lambda: f(*xs).block_until_ready()
    fn = eval(f"lambda {', '.join(names)}: {w.np_src}", {"np": np, "erf": _erf(np)})  # noqa: S307
    xs = [inputs[n] for n in names]
    return lambda: fn(*xs)


def run_worker(args: argparse.Namespace) -> int:
    """The body of a peer subprocess: time every selected workload, check at --check."""
    import numpy as np

    impl = args.worker
    ws = select(workloads(), args.only)
    cache = Path(args.cache)
    results = []
    if impl == "jax":
        import jax

        version = jax.__version__
    else:
        version = np.__version__
    for w in ws:
        row = {"workload": w.name, "impl": impl, "threads": args.threads}
        try:
            call = peer_call(impl, w, load_inputs(cache, w))
            t0 = time.perf_counter()
            out = call()  # warm-up (and jit compile)
            row["first_call_s"] = time.perf_counter() - t0
            if args.check:
                ok, err = check(out, reference(cache, w))
                row["check"] = {"ok": ok, "rel_err": err}
            del out
            times, cpu = [], []
            for _ in range(args.runs):
                c0 = time.process_time()
                t0 = time.perf_counter()
                out = call()
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                del out
            row.update(time_stats(times))
            row["cpu"] = time_stats(cpu)
        except Exception as e:  # a peer that cannot run a workload is reported, not fatal
            row["error"] = f"{type(e).__name__}: {e}"[:300]
        results.append(row)
        print(f"  {impl} t={args.threads} {w.name}: "
              + (f"{row['median_s'] * 1e3:.3f} ms" if "median_s" in row else row.get("error", "")),
              file=sys.stderr, flush=True)
    info = blas_info() if impl == "numpy" else ""
    Path(args.worker_out).write_text(json.dumps({"version": version, "blas": info, "rows": results}))
    return 0


def run_peer(impl: str, threads: int, args: argparse.Namespace, check_it: bool, only: str | None = None,
             variant: tuple[str, dict[str, str | None]] = ("none", {})) -> tuple[str, list[dict]]:
    """Runs the peer worker in a subprocess (its allocator and BLAS variant set in its environment);
    its rows carry the variant's label and the BLAS kernel numpy reported."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
        out = tf.name
    cmd = pin(threads) + [sys.executable, str(Path(__file__).resolve()), "--worker", impl,
                          "--threads", str(threads), "--runs", str(args.runs), "--cache", str(args.cache),
                          "--worker-out", out]
    if only or args.only:
        cmd += ["--only", only or args.only]
    if check_it:
        cmd.append("--check")
    alloc, _ = alloc_env(args.peer_alloc, args.jemalloc_path)
    extra = {**alloc, **(variant[1] if impl == "numpy" else {})}
    label = f" [{variant[0]}]" if impl == "numpy" else ""
    print(f"== {impl}, {threads} thread(s){label}", file=sys.stderr, flush=True)
    try:
        p = subprocess.run(cmd, env=peer_env(impl, threads, extra), timeout=args.timeout)
        if p.returncode != 0:
            raise RuntimeError(f"{impl} worker exited with {p.returncode}")
        data = json.loads(Path(out).read_text())
        for r in data["rows"]:
            if impl == "numpy":
                r["blas_variant"], r["blas"] = variant[0], data.get("blas", "")
        return data["version"], data["rows"]
    finally:
        Path(out).unlink(missing_ok=True)


def best_numpy_rows(rows: list[dict]) -> list[dict]:
    """One numpy row per (workload, threads): the BLAS variant with the lowest median (the others
    listed in its "variants"); the rows of other peers unchanged."""
    best: dict[tuple, dict] = {}
    variants: dict[tuple, list] = {}
    out = []
    for r in rows:
        if r["impl"] != "numpy":
            out.append(r)
            continue
        key = (r["workload"], r["threads"])
        variants.setdefault(key, []).append({k: r.get(k) for k in ("blas_variant", "blas", "median_s", "error")})
        b = best.get(key)
        if b is None or ("median_s" in r and ("median_s" not in b or r["median_s"] < b["median_s"])):
            if b is not None and "check" in b and "check" not in r:
                r["check"] = b["check"]
            best[key] = r
        elif "check" in r and "check" not in b:
            b["check"] = r["check"]
    for key, r in best.items():
        r["variants"] = variants[key]
        out.append(r)
    return out


# ---------------------------------------------------------------------------------------------
# xcs-run

# The pass pipeline xcs-run applies before compiling (issue 6 measures the fused code; single-op
# workloads are unchanged by it). `--pipeline ''` measures the unfused lowering.
DEFAULT_PIPELINE = "builtin.module(func.func(fuse))"

BENCH_MIN = re.compile(r"\bmin(?:_ms)?\s*[=:]\s*([0-9.eE+-]+)\s*(ms|s|us|µs|ns)?")
BENCH_MED = re.compile(r"\bmedian(?:_ms)?\s*[=:]\s*([0-9.eE+-]+)\s*(ms|s|us|µs|ns)?")
BENCH_COMPILE = re.compile(r"\bcompile(?:_ms)?\s*[=:]\s*([0-9.eE+-]+)\s*(ms|s|us|µs|ns)?")
BENCH_TIMES = re.compile(r"\btimes_ms=([0-9.eE+,-]+)")
BENCH_CPU = re.compile(r"\bcpu_ms=([0-9.eE+,-]+)")
UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_bench(text: str) -> dict | None:
    """min/median/compile seconds from xcs-run's `bench:` line (times in ms unless a unit follows;
    `bench: entry=main backend=llvm threads=2 calls=10 min_ms=1.2 median_ms=1.3 compile_ms=40
    times_ms=1.2,1.3,...`), and the quartiles and max from `times_ms` when it is there."""
    for line in text.splitlines():
        if "bench" not in line:
            continue
        mn, md = BENCH_MIN.search(line), BENCH_MED.search(line)
        if not mn:
            continue

        def sec(m):
            return float(m.group(1)) * UNIT[m.group(2) or "ms"]

        r = {"min_s": sec(mn), "median_s": sec(md) if md else sec(mn)}
        ts, cpu = BENCH_TIMES.search(line), BENCH_CPU.search(line)
        try:
            if ts:
                r.update(time_stats([float(x) * 1e-3 for x in ts.group(1).split(",") if x]))
            if cpu:
                r["cpu"] = time_stats([float(x) * 1e-3 for x in cpu.group(1).split(",") if x])
        except (ValueError, IndexError):
            pass
        c = BENCH_COMPILE.search(line)
        if c:
            r["compile_s"] = sec(c)
        return r
    return None


def probe_xcs(xcs_run: str) -> str | None:
    """None when `xcs_run` runs the LLVM backend with --bench; else why not."""
    if not (Path(xcs_run).is_file() or shutil.which(xcs_run)):
        return f"{xcs_run} not found (cargo build --release -p xcs --bin xcs-run)"
    cmd = [xcs_run, str(NATIVE / "probe.mlir"), "--entry", "main", "--input", "x=random:1",
           "--bench", "2", "--threads", "1"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{xcs_run} failed to run: {e}"
    if p.returncode == 0 and parse_bench(p.stdout + p.stderr):
        return None
    first = next((ln for ln in (p.stderr + p.stdout).splitlines() if ln.strip()), "")
    return f"xcs-run has no LLVM backend: xcs rows skipped ({first.strip()})"


def run_xcs(xcs_run: str, w: Workload, threads: int, args: argparse.Namespace, check_it: bool,
            buffers: str = "retained") -> dict:
    """Times `w` with `xcs-run --bench` (buffers "retained": big buffers reused across calls, the
    runtime's default; "fresh": every call's buffers new from malloc, as `--bench-buffers=fresh`)."""
    row: dict = {"workload": w.name, "impl": "xcs" if buffers == "retained" else "xcs-fresh",
                 "threads": threads}
    outdir = Path(args.cache) / "out" / w.name
    cmd = pin(threads) + [xcs_run, str(NATIVE / w.mlir), "--entry", w.entry]
    for name, key in w.args:
        cmd += ["--input", f"{name}={input_path(Path(args.cache), key)}"]
    if args.pipeline:
        cmd += ["--pass-pipeline", args.pipeline]
    cmd += ["--bench", str(args.runs), "--threads", str(threads)]
    if buffers != "retained":
        cmd += ["--bench-buffers", buffers]
    if check_it:
        shutil.rmtree(outdir, ignore_errors=True)
        cmd += ["--output-dir", str(outdir)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        row["error"] = f"timeout after {args.timeout} s"
        return row
    b = parse_bench(p.stdout + p.stderr) if p.returncode == 0 else None
    if b is None:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        row["error"] = f"xcs-run exit {p.returncode}: " + (msg[0] if msg else "no bench line")
        row["stderr"] = p.stderr[-2000:]
        return row
    row.update(b)
    if check_it:
        import numpy as np

        files = sorted(outdir.glob("*.npy"))
        if len(files) != 1:
            row["check"] = {"ok": False, "rel_err": float("inf"), "note": f"{len(files)} outputs"}
        else:
            ok, err = check(np.load(files[0]), reference(Path(args.cache), w))
            row["check"] = {"ok": ok, "rel_err": err}
        shutil.rmtree(outdir, ignore_errors=True)
    print(f"  {row['impl']} t={threads} {w.name}: {row['median_s'] * 1e3:.3f} ms", file=sys.stderr, flush=True)
    return row


# ---------------------------------------------------------------------------------------------
# roofs: STREAM triad and peak FMA

def build_c(name: str, cache: Path) -> Path:
    src = NATIVE / f"{name}.c"
    exe = cache / "bin" / name
    exe.parent.mkdir(parents=True, exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        cc = os.environ.get("CC", "cc")
        cmd = [cc, "-O3", "-march=native", "-fopenmp", str(src), "-o", str(exe)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return exe


def kv(line: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", line))


def run_roofs(args: argparse.Namespace, threads: list[int], loads: dict) -> dict:
    cache = Path(args.cache)
    roofs: dict = {"stream": {}, "stream_64MB": {}, "fma": {}}
    stream, fma = build_c("stream", cache), build_c("peak_fma", cache)
    for t in threads:
        settle(args, f"roofs t={t}", loads)
        env = dict(os.environ, OMP_NUM_THREADS=str(t), OMP_PROC_BIND="true")
        print(f"== STREAM triad and peak FMA, {t} thread(s)", file=sys.stderr, flush=True)
        for key, n in (("stream", args.stream_n), ("stream_64MB", 8 * 1024 * 1024)):
            p = subprocess.run(pin(t) + [str(stream), str(n), "10"], env=env, capture_output=True,
                               text=True, timeout=args.timeout)
            if p.returncode != 0:
                raise RuntimeError(f"stream failed: {p.stderr}")
            d = kv(p.stdout)
            roofs[key][t] = {"triad_GBps": float(d["triad_GBps"]), "copy_GBps": float(d["copy_GBps"]),
                             "n": int(d["n"])}
        p = subprocess.run(pin(t) + [str(fma)], env=env, capture_output=True, text=True,
                           timeout=args.timeout)
        if p.returncode != 0:
            raise RuntimeError(f"peak_fma failed: {p.stderr}")
        d = kv(p.stdout)
        roofs["fma"][t] = {"gflops": float(d["gflops"]), "isa": d["isa"]}
    return roofs


# Short runs of peak_fma (5 x ~13 ms) and of the 3 x 64 MB STREAM triad (3 passes) right before
# each xcs-run row and around each peer configuration: on a shared host the machine sometimes
# gives two threads only one core's FMA rate, or a fraction of its memory bandwidth, for a second
# or two; a row measured then measures the machine. A probe's figure is the lower of the two
# fractions of this run's roofs; SLOW_MACHINE: the figure below which a row is flagged.
PROBE_ITERS = 2_000_000
PROBE_STREAM_N, PROBE_STREAM_TIMES = 8 * 1024 * 1024, 3
SLOW_MACHINE = 0.8


def machine_probe(args: argparse.Namespace, roofs: dict):
    """A function of the thread count giving the fraction of this run's peak FMA rate or STREAM
    triad bandwidth (at 3 x 64 MB), whichever is lower, that the machine delivers now (None
    without the roofs or with --skip-probe)."""
    fma, stream = roofs.get("fma", {}), roofs.get("stream_64MB", {})
    if args.skip_probe or not fma:
        return lambda t: None
    cache = Path(args.cache)
    fma_exe, stream_exe = build_c("peak_fma", cache), build_c("stream", cache)

    def run(t: int, cmd: list[str]) -> dict[str, str]:
        env = dict(os.environ, OMP_NUM_THREADS=str(t), OMP_PROC_BIND="true")
        p = subprocess.run(pin(t) + cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
        return kv(p.stdout) if p.returncode == 0 else {}

    def probe(t: int) -> float | None:
        if t not in fma:
            return None
        got = run(t, [str(fma_exe), str(PROBE_ITERS)])
        fracs = [float(got["gflops"]) / fma[t]["gflops"]] if "gflops" in got else []
        if t in stream:
            got = run(t, [str(stream_exe), str(PROBE_STREAM_N), str(PROBE_STREAM_TIMES)])
            if "triad_GBps" in got:
                fracs.append(float(got["triad_GBps"]) / stream[t]["triad_GBps"])
        return min(fracs, default=None)

    return probe


# ---------------------------------------------------------------------------------------------
# the table

STAT_KEYS = ("min_s", "q1_s", "median_s", "q3_s", "max_s", "calls")


def use_clock(rows: list[dict], clock: str) -> None:
    """With --clock cpu, every row's figures become its process CPU times (the wall-clock ones
    kept under "wall"); a row without CPU times gets an error instead."""
    if clock != "cpu":
        return
    for r in rows:
        if "median_s" not in r or "wall" in r:
            continue  # no figures, or already switched
        if "cpu" not in r:
            r["error"] = "no CPU times (xcs-run without cpu_ms on its bench line?)"
            for k in STAT_KEYS:
                r.pop(k, None)
            continue
        r["wall"] = {k: r[k] for k in STAT_KEYS if k in r}
        r.update(r["cpu"])


MEMORY_BOUND = ("W1", "W4", "W5", "W6", "ew")  # groups compared with the STREAM triad
TRIAD_SLACK = 1.1  # "within 10% of the triad time for the workload's bytes"
GOAL_DESC = {"numpy": "xcs/numpy >= {thr}", "xla": "xcs/XLA >= {thr}", "stream": ">= {thr:.0%} triad",
             "xla_or_triad": "xcs/XLA >= {thr} or <= 1.1x triad time"}


def speedup(peer: dict, x: dict) -> tuple[float, float, float]:
    """peer median / xcs median, and its spread: (peer q1 / xcs q3, peer q3 / xcs q1)."""
    med = peer["median_s"] / x["median_s"]
    lo = peer.get("q1_s", peer["median_s"]) / x.get("q3_s", x["median_s"])
    hi = peer.get("q3_s", peer["median_s"]) / x.get("q1_s", x["median_s"])
    return med, lo, hi


def add_rates(w: Workload, r: dict, roofs: dict) -> None:
    """GFLOP/s and GB/s at the median, and the roof fractions of row `r`."""
    r["gflops"] = w.flops / r["median_s"] / 1e9
    r["gbps"] = w.nbytes / r["median_s"] / 1e9
    t = r["threads"]
    if w.group in MEMORY_BOUND and t in roofs.get("stream", {}):
        triad = roofs["stream"][t]["triad_GBps"]
        r["frac_stream"] = r["gbps"] / triad
        r["triad_time_s"] = w.nbytes / (triad * 1e9)
        r["vs_triad_time"] = r["median_s"] / r["triad_time_s"]
    if w.group in ("W2", "W3") and t in roofs.get("fma", {}):
        r["frac_fma"] = r["gflops"] / roofs["fma"][t]["gflops"]


def goal_value(kind: str, thr: float, x: dict) -> tuple[str, float | None]:
    """(PASS | MISS | n/a, the value compared) of one goal on xcs row `x`."""
    key = {"numpy": "vs_numpy", "xla": "vs_xla", "stream": "frac_stream", "xla_or_triad": "vs_xla"}[kind]
    if kind == "xla_or_triad":
        if "vs_xla" not in x and "vs_triad_time" not in x:
            return "n/a", None
        ok = x.get("vs_xla", 0.0) >= thr or x.get("vs_triad_time", float("inf")) <= TRIAD_SLACK
        return ("PASS" if ok else "MISS"), x.get("vs_xla")
    if key not in x:
        return "n/a", None  # the peer or the roof is missing
    return ("PASS" if x[key] >= thr else "MISS"), x[key]


def evaluate(ws: list[Workload], rows: list[dict], roofs: dict, xcs_ok: bool) -> list[dict]:
    """Adds GFLOP/s, GB/s, roof fractions and speedups (medians) to `rows`; returns the goal
    verdicts (on the xcs rows with retained buffers: the peers run with retained memory too)."""
    by = {(r["workload"], r["impl"], r["threads"]): r for r in rows}
    wmap = {w.name: w for w in ws}
    for r in rows:
        if "median_s" not in r:
            continue
        add_rates(wmap[r["workload"]], r, roofs)
        if r["impl"] in ("xcs", "xcs-fresh"):
            for peer, key in (("numpy", "vs_numpy"), ("jax", "vs_xla")):
                p = by.get((r["workload"], peer, r["threads"]))
                if p and "median_s" in p:
                    r[key], *r[key + "_range"] = speedup(p, r)
    goals = []
    for w in ws:
        for kind, thr, tlist in w.goals:
            for t in tlist:
                if not any(r["threads"] == t for r in rows if r["workload"] == w.name):
                    continue
                desc = GOAL_DESC[kind].format(thr=thr)
                x = by.get((w.name, "xcs", t))
                if not xcs_ok or x is None or "median_s" not in x:
                    status, value = "n/a", None
                else:
                    status, value = goal_value(kind, thr, x)
                goals.append({"workload": w.name, "threads": t, "goal": desc, "value": value,
                              "status": status, "vs_triad_time": (x or {}).get("vs_triad_time"),
                              "machine": (x or {}).get("machine")})
                if x is not None:
                    x["goal"], x["status"] = desc, status
    return goals


# ---------------------------------------------------------------------------------------------
# repeats (--repeat R): the whole measurement R times; per row the repeat with the median median

def median_rows(repeats: list[list[dict]]) -> list[dict]:
    """Per (workload, impl, threads): a copy of the row of the repeat whose median is the median of
    the repeats' (the lower one of an even count), with every repeat's median (None: no figures)
    in repeat_medians_s; rows without figures in every repeat: the first repeat's."""
    groups: dict[tuple, list[dict]] = {}
    for rows in repeats:
        for r in rows:
            groups.setdefault((r["workload"], r["impl"], r["threads"]), []).append(r)
    out = []
    for same in groups.values():
        timed = sorted((r for r in same if "median_s" in r), key=lambda r: r["median_s"])
        row = copy.deepcopy(timed[(len(timed) - 1) // 2] if timed else same[0])
        for k in ("goal", "status", "vs_numpy", "vs_numpy_range", "vs_xla", "vs_xla_range"):
            row.pop(k, None)  # evaluate() recomputes them from the chosen rows
        row["repeat_medians_s"] = [r.get("median_s") for r in same]
        out.append(row)
    return out


def median_roofs(repeats: list[dict]) -> dict:
    """Per roof and thread count, the repeat's figures with the median bandwidth or FMA rate."""
    out: dict = {}
    for kind in {k for r in repeats for k in r}:
        out[kind] = {}
        for t in {t for r in repeats for t in r.get(kind, {})}:
            got = [r[kind][t] for r in repeats if t in r.get(kind, {})]
            got.sort(key=lambda d: d.get("triad_GBps", d.get("gflops", 0.0)))
            out[kind][t] = got[(len(got) - 1) // 2]
    return out


def agree(goals: list[dict], rows: list[dict], per_repeat: list[list[dict]]) -> None:
    """A goal holds when it passes in at least two repeats and in most of them ("a claim rests on
    two runs that agree"): each goal (and its xcs row) gets that status, and the repeats'
    statuses and values."""
    need = max(2, (len(per_repeat) + 1) // 2)
    xcs = {(r["workload"], r["threads"]): r for r in rows if r["impl"] == "xcs"}
    for g in goals:
        key = (g["workload"], g["threads"], g["goal"])
        mine = [next((h for h in gs if (h["workload"], h["threads"], h["goal"]) == key), None) for gs in per_repeat]
        g["repeats"] = [{"status": h["status"], "value": h["value"], "machine": h.get("machine")} if h
                        else {"status": "n/a", "value": None, "machine": None} for h in mine]
        passes = sum(h["status"] == "PASS" for h in g["repeats"])
        counted = sum(h["status"] in ("PASS", "MISS") for h in g["repeats"])
        if counted:
            g["status"] = "PASS" if passes >= need else "MISS"
            x = xcs.get((g["workload"], g["threads"]))
            if x is not None:
                x["status"] = f"{g['status']} {passes}/{len(per_repeat)}"


def _ratio_cell(r: dict, key: str) -> str:
    if key not in r:
        return ""
    lo, hi = r.get(key + "_range", (r[key], r[key]))
    return f"{r[key]:.2f}x ({lo:.2f}-{hi:.2f})"


def _repeats_cell(r: dict) -> str:
    """The lowest and highest of the repeats' medians (ms)."""
    ms = [m * 1e3 for m in r.get("repeat_medians_s", []) if m is not None]
    return f"{min(ms):.3f}-{max(ms):.3f}" if ms else ""


IMPL_ORDER = {"xcs": 0, "xcs-fresh": 1, "numpy": 2, "jax": 3}
IMPL_NAME = {"xcs": "xcs", "xcs-fresh": "xcs fresh", "numpy": "numpy", "jax": "jax.jit"}


def table_line(w: Workload, r: dict, t: int) -> list[str]:
    if "median_s" not in r:
        return [w.name, IMPL_NAME[r["impl"]], str(t), "-", "-", "-", "-", "", "", "", "",
                r.get("goal", ""), "ERROR " + r.get("error", "")[:60]]
    roof = ""
    if "frac_stream" in r:
        roof = f"{r['frac_stream']:.0%} triad"
    elif "frac_fma" in r:
        roof = f"{r['frac_fma']:.0%} FMA"
    c = r.get("check")
    chk = "" if c is None else ("ok" if c["ok"] else f"FAIL {c['rel_err']:.1e}")
    spread = f"{r.get('q1_s', r['median_s']) * 1e3:.3f}-{r.get('q3_s', r['median_s']) * 1e3:.3f}"
    return [w.name, IMPL_NAME[r["impl"]], str(t), f"{r['median_s'] * 1e3:.3f}", spread,
            f"{r['gflops']:.2f}", f"{r['gbps']:.2f}", roof, _ratio_cell(r, "vs_numpy"),
            _ratio_cell(r, "vs_xla"), chk, r.get("goal", "") if r["impl"] == "xcs" else "",
            r.get("status", "") if r["impl"] == "xcs" else ""]


def fmt_table(ws: list[Workload], rows: list[dict], threads: list[int]) -> str:
    hdr = ["workload", "impl", "thr", "med ms", "q1-q3 ms", "GFLOP/s", "GB/s", "roof", "xcs/numpy (spread)",
           "xcs/XLA (spread)", "check", "goal", "status"]
    repeated = any("repeat_medians_s" in r for r in rows)
    if repeated:
        hdr.insert(5, "repeats ms")
    lines = [hdr]
    for w in ws:
        for t in threads:
            for r in sorted((r for r in rows if r["workload"] == w.name and r["threads"] == t),
                            key=lambda r: IMPL_ORDER[r["impl"]]):
                line = table_line(w, r, t)
                if repeated:
                    line.insert(5, _repeats_cell(r))
                lines.append(line)
    widths = [max(len(l[i]) for l in lines) for i in range(len(hdr))]
    right = {2, 3, 4, 5, 6, 7, 9, 10} if repeated else {2, 3, 4, 5, 6, 8, 9}
    out = []
    for j, l in enumerate(lines):
        out.append("  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                             for i, c in enumerate(l)).rstrip())
        if j == 0:
            out.append("  ".join("-" * wd for wd in widths))
    return "\n".join(out)


def fmt_roofline(ws: list[Workload], rows: list[dict], threads: list[int]) -> str:
    """The memory-bound workloads against the triad time for their bytes (one read of each
    input, one write of each output) at the STREAM triad bandwidth of this run."""
    out = []
    for w in ws:
        if w.group not in MEMORY_BOUND or w.group == "ew":
            continue
        for t in threads:
            rs = sorted((r for r in rows if r["workload"] == w.name and r["threads"] == t
                         and "vs_triad_time" in r), key=lambda r: IMPL_ORDER[r["impl"]])
            if not rs:
                continue
            parts = ", ".join(f"{IMPL_NAME[r['impl']]} {r['median_s'] * 1e3:.2f} ms ({r['vs_triad_time']:.2f}x)"
                              for r in rs)
            out.append(f"  {w.name} t={t}: {w.nbytes / 1e6:.0f} MB, triad time {rs[0]['triad_time_s'] * 1e3:.2f} ms; "
                       + parts)
    return "\n".join(out)


def fmt_blas(rows: list[dict]) -> str:
    """numpy's BLAS variants on the BLAS workloads: the kernel each ran and its median."""
    out = []
    for r in rows:
        if r["impl"] != "numpy" or len(r.get("variants", [])) < 2:
            continue
        kern = lambda v: re.search(r"kernel (\S+)", v.get("blas") or "")  # noqa: E731
        parts = [f"[{v['blas_variant']}] {kern(v).group(1) if kern(v) else '?'} "
                 + (f"{v['median_s'] * 1e3:.3f} ms" if v.get("median_s") else "error")
                 for v in r["variants"]]
        out.append(f"  {r['workload']} t={r['threads']}: " + ", ".join(parts) + f"; best [{r['blas_variant']}]")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------

def collect(args: argparse.Namespace, ws: list[Workload], threads: list[int], have_jax: bool,
            xcs_ok: bool) -> tuple[dict, int]:
    """One measurement of everything (the roofs, the peers, xcs-run) and its goals; (the repeat's
    roofs, rows, goals, versions and background loads; status)."""
    status = 0
    roofs: dict = {}
    loads: dict[str, float | None] = {}
    if not args.skip_roofs:
        try:
            roofs = run_roofs(args, threads, loads)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            print(f"error: roofs: {e}", file=sys.stderr)
            status = 1
    probe = machine_probe(args, roofs)
    rows, versions, peer_status = run_peers(args, ws, threads, have_jax, loads, probe)
    status = status or peer_status
    if xcs_ok:
        print("== xcs-run (LLVM)", file=sys.stderr, flush=True)
        for t in threads:
            settle(args, f"xcs t={t}", loads)
            for w in ws:
                for buffers in ("retained",) if args.skip_fresh else ("retained", "fresh"):
                    machine = probe(t)
                    row = run_xcs(args.xcs_run, w, t, args, check_it=(t == threads[0] and buffers == "retained"),
                                  buffers=buffers)
                    rows.append(dict(row, machine=machine))
    use_clock(rows, args.clock)
    # the roofs are wall-clock figures: compared with wall-clock times only
    goals = evaluate(ws, rows, roofs if args.clock == "wall" else {}, xcs_ok)
    return {"roofs": roofs, "rows": rows, "goals": goals, "versions": versions, "loads": loads}, status


def main() -> int:
    args = parse_args()
    threads = args.thread_list
    if args.worker:
        args.threads = threads[0]
        return run_worker(args)

    ws = select(workloads(), args.only)
    cache = Path(args.cache)
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("error: numpy is required (make deps)", file=sys.stderr)
        return 2
    ensure_inputs(cache, {k for w in ws for _, k in w.args})
    args.jemalloc_path = find_jemalloc(args.jemalloc)

    have_jax = not args.skip_jax
    if have_jax:
        p = subprocess.run([sys.executable, "-c", "import jax"], capture_output=True,
                           env=peer_env("jax", 1))
        if p.returncode != 0:
            print("note: jax is not installed: jax.jit rows skipped (make bench-deps)", file=sys.stderr)
            have_jax = False

    xcs_note = "skipped (--skip-xcs)" if args.skip_xcs else probe_xcs(args.xcs_run)
    xcs_ok = xcs_note is None
    if not xcs_ok:
        print(f"note: {xcs_note}", file=sys.stderr)

    status = 0
    repeats: list[dict] = []
    for i in range(args.repeat):
        if args.repeat > 1:
            print(f"== repeat {i + 1} of {args.repeat}", file=sys.stderr, flush=True)
        rep, rep_status = collect(args, ws, threads, have_jax, xcs_ok)
        status = status or rep_status
        repeats.append(rep)
    versions = repeats[0]["versions"]
    if args.repeat == 1:
        roofs, rows, goals, loads = repeats[0]["roofs"], repeats[0]["rows"], repeats[0]["goals"], repeats[0]["loads"]
    else:
        roofs = median_roofs([r["roofs"] for r in repeats])
        rows = median_rows([r["rows"] for r in repeats])
        goals = evaluate(ws, rows, roofs if args.clock == "wall" else {}, xcs_ok)
        agree(goals, rows, [r["goals"] for r in repeats])
        loads = {f"r{i + 1} {k}": v for i, r in enumerate(repeats) for k, v in r["loads"].items()}
    if any(r.get("error") for r in rows) or any(not r["check"]["ok"] for r in rows if "check" in r):
        status = 1
    print_report(args, ws, rows, roofs, goals, versions, loads, xcs_note)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({
            "runs": args.runs, "repeat": args.repeat, "clock": args.clock, "threads": threads, "versions": versions,
            "xcs_run": args.xcs_run, "xcs_note": xcs_note,
            "peer_alloc": alloc_env(args.peer_alloc, args.jemalloc_path)[1],
            "background_load": loads, "roofs": roofs, "rows": rows, "goals": goals,
            "repeats": repeats if args.repeat > 1 else [],
            "workloads": {w.name: {"flops": w.flops, "bytes": w.nbytes, "mlir": w.mlir, "entry": w.entry}
                          for w in ws},
        }, indent=1, default=str))
        print(f"\nwrote {args.json}")
    if status == 0 and args.fail_on_miss and any(g["status"] == "MISS" for g in goals):
        status = 3
    return status


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xcs-run", default=str(ROOT / "target" / "release" / "xcs-run"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--pipeline", default=DEFAULT_PIPELINE)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only")
    ap.add_argument("--skip-numpy", action="store_true")
    ap.add_argument("--skip-jax", action="store_true")
    ap.add_argument("--skip-xcs", action="store_true")
    ap.add_argument("--skip-fresh", action="store_true")
    ap.add_argument("--skip-roofs", action="store_true")
    ap.add_argument("--skip-probe", action="store_true")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--peer-alloc", choices=["retained", "default"], default="retained")
    ap.add_argument("--jemalloc")
    ap.add_argument("--openblas", default="auto")
    ap.add_argument("--stream-n", type=int, default=80_000_000)
    ap.add_argument("--cache", default=str(ROOT / "target" / "bench" / "native"))
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--fail-on-miss", action="store_true")
    ap.add_argument("--wait-idle", type=float, default=0.0)
    ap.add_argument("--idle-below", type=float, default=0.3)
    # internal: the peer subprocess
    ap.add_argument("--worker", choices=["numpy", "jax"], help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    ap.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    try:
        args.thread_list = sorted({int(t) for t in args.threads.split(",")})
    except ValueError:
        ap.error(f"--threads {args.threads!r}: expected a list like 1,2")
    if not args.thread_list or args.thread_list[0] < 1:
        ap.error(f"--threads {args.threads!r}: thread counts are >= 1")
    return args


def run_peers(args: argparse.Namespace, ws: list[Workload], threads: list[int], have_jax: bool,
              loads: dict, probe) -> tuple[list[dict], dict[str, str], int]:
    """numpy (every OpenBLAS variant on the BLAS workloads; the first on all) and jax at each
    thread count, each configuration between two machine probes (the lower kept on its rows);
    (rows, versions, status)."""
    rows: list[dict] = []
    versions: dict[str, str] = {}
    status = 0
    blas_names = ",".join(w.name for w in ws if w.group in ("W2", "W3"))
    variants = openblas_variants(args.openblas)
    for impl in [i for i, on in (("numpy", not args.skip_numpy), ("jax", have_jax)) if on]:
        for t in threads:
            settle(args, f"{impl} t={t}", loads)
            for i, variant in enumerate(variants if impl == "numpy" else variants[:1]):
                if i > 0 and not blas_names:
                    break
                try:
                    before = probe(t)
                    v, r = run_peer(impl, t, args, check_it=(t == threads[0] and i == 0),
                                    only=blas_names if i > 0 else None, variant=variant)
                    after = probe(t)
                    machine = min((m for m in (before, after) if m is not None), default=None)
                    r = [dict(x, machine=machine) for x in r]
                except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError) as e:
                    print(f"error: {impl} at {t} thread(s) [{variant[0]}]: {e}", file=sys.stderr)
                    status = 1
                    continue
                versions[impl] = v
                rows += r
    use_clock(rows, args.clock)  # the fastest BLAS variant by the clock the table uses
    return best_numpy_rows(rows), versions, status


def slow_machine(r: dict) -> bool:
    """Whether a row (or goal) was measured while the machine probe was under SLOW_MACHINE."""
    return r.get("machine") is not None and r["machine"] < SLOW_MACHINE


def print_report(args, ws, rows, roofs, goals, versions, loads, xcs_note) -> None:
    threads = args.thread_list
    print()
    clock = ("process CPU time (all threads, user + system; not counting time other processes held the "
             "CPUs)" if args.clock == "cpu" else "wall-clock time")
    print(f"native benchmark: f32; every time is the median {clock} of {args.runs} calls after one warm-up, "
          f"spread q1-q3; speedup = peer median / xcs median (spread: peer q1 / xcs q3 - peer q3 / xcs q1); "
          f"numpy {versions.get('numpy', '-')}, jax {versions.get('jax', '-')}")
    if args.runs < 10:
        print(f"  NOTE: {args.runs} calls per figure: issue 22's claims need at least 10 (--runs 10)")
    if args.repeat > 1:
        print(f"  {args.repeat} repeats of the whole measurement (roofs, peers, xcs): each row is the repeat with "
              "the median median (column 'repeats ms': the lowest and highest); a goal holds when it passes "
              f"in at least {max(2, (args.repeat + 1) // 2)} repeats (status: PASS/MISS and the repeats that pass)")
    else:
        print("  one measurement: a claim rests on two that agree (--repeat 2 or more)")
    print("  peers at their best: numpy and jax with " + alloc_env(args.peer_alloc, args.jemalloc_path)[1]
          + "; jax inputs device_put and ready before timing; 1-thread peers pinned (taskset -c 0, "
          "OPENBLAS_NUM_THREADS=1, XLA intra-op threads 1); numpy's BLAS workloads under each OpenBLAS "
          "variant, the fastest counts (below)")
    if not args.skip_probe and roofs.get("fma"):
        print(f"  machine probe: peak_fma ({PROBE_ITERS} iterations, best of 5) and the 3 x 64 MB triad (best of "
              f"{PROBE_STREAM_TIMES}) before each xcs-run row and before and after each peer process, the lower "
              f"fraction of this run's roofs; rows under {SLOW_MACHINE:.0%} are listed after the table")
    print("  xcs: `xcs-run --bench` with retained buffers (the runtime's default: big buffers reused across "
          "calls) and with fresh ones (--bench-buffers=fresh, row 'xcs fresh'); goals use the retained rows")
    for t in threads:
        s = roofs.get("stream", {}).get(t)
        s64 = roofs.get("stream_64MB", {}).get(t)
        f = roofs.get("fma", {}).get(t)
        if s and f:
            print(f"  {t} thread(s): STREAM triad {s['triad_GBps']:.2f} GB/s (copy {s['copy_GBps']:.2f}; "
                  f"3 x {s['n'] * 8 / 1e6:.0f} MB arrays), triad at 3 x 64 MB {s64['triad_GBps']:.2f} GB/s; "
                  f"peak FMA {f['gflops']:.1f} GFLOP/s ({f['isa']})")
    if args.clock == "cpu" and roofs:
        print("  (--clock cpu: the roofs are wall-clock, so the roof columns, the roofline section and the "
              "triad-time part of the goals are left out)")
    blas = next((r.get("blas") for r in rows if r["impl"] == "numpy" and r.get("blas")), None)
    if blas:
        print(f"  numpy's BLAS (threadpoolctl, without overrides): {blas}")
    if xcs_note:
        print(f"  {xcs_note}")
    known = {k: v for k, v in loads.items() if v is not None}
    if known:
        print("  background load (CPUs busy with other processes) before each configuration: "
              + ", ".join(f"{k} {v:.2f}" for k, v in known.items()))
        if max(known.values()) >= args.idle_below:
            print(f"  WARNING: the machine was busy (>= {args.idle_below} CPUs used by other processes): "
                  "the figures, the 2-thread ones most, are unreliable; rerun with --wait-idle 600")
    print()
    print(fmt_table(ws, rows, threads))
    blas_lines = fmt_blas(rows)
    if blas_lines:
        print("\nnumpy under each OpenBLAS variant (kernel from threadpoolctl, median):")
        print(blas_lines)
    roof_lines = fmt_roofline(ws, rows, threads)
    if roof_lines:
        print("\nroofline of the memory-bound workloads (bytes: one read of each input, one write of each "
              "output; triad time = bytes / this run's STREAM triad; (x) = median / triad time):")
        print(roof_lines)
    slow = [r for r in rows if slow_machine(r)]
    if slow:
        print(f"\nmeasured while the machine gave under {SLOW_MACHINE:.0%} of this run's FMA peak or triad bandwidth at the "
              "row's thread count (probed just before an xcs row; before or after a peer's process): these rows measure "
              "the host")
        print("  " + ", ".join(f"{r['workload']} {IMPL_NAME[r['impl']]} t={r['threads']} ({r['machine']:.0%})"
                               for r in slow))
    counted = [g for g in goals if g["status"] in ("PASS", "MISS")]
    if goals:
        npass = sum(g["status"] == "PASS" for g in counted)
        print(f"\ngoals: {npass} PASS, {len(counted) - npass} MISS, {len(goals) - len(counted)} n/a")
        for g in goals:
            reps = g.get("repeats", [])
            split = len({h["status"] for h in reps}) > 1
            if g["status"] == "MISS" or split:
                got = "-" if g["value"] is None else f"{g['value']:.2f}"
                if g.get("vs_triad_time"):
                    got += f"; {g['vs_triad_time']:.2f}x triad time"
                if slow_machine(g):
                    got += f"; machine at {g['machine']:.0%}"
                if reps:
                    got += "; repeats: " + ", ".join(
                        h["status"] + ("" if h["value"] is None else f" {h['value']:.2f}")
                        + (f" (machine at {h['machine']:.0%})" if slow_machine(h) else "") for h in reps)
                print(f"  {g['status']} {g['workload']} t={g['threads']}: {g['goal']} (got {got})")


if __name__ == "__main__":
    sys.exit(main())
