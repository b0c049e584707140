#!/usr/bin/env python3
"""`xcs.lazy`'s benchmark (issue 20 "Speed", seed 003's targets), every peer measured in this run:

  intercept  the cost of recording one op on 4x4 f32 LazyTensors (operator, array method,
             numpy ufunc, numpy function, xcs.numpy function; best of 5 runs of 2,000 ops
             whose signature is already known), next to the same op on numpy
             arrays; and the first op of a new signature (its abstract evaluation). Goal < 10 us.
  memory     tracemalloc over `--nodes` (100k) recorded nodes: bytes per node, the LazyTensor
             object itself (sys.getsizeof) and the metadata beyond it (the inputs tuple, the
             pending count; shape, dtype, op name and location are interned and shared).
             Goal < 100 bytes of metadata per node.
  build      graph construction (capture) time at 1k, 10k and 100k ops, per op and the
             100k/10k ratio (linear: ~10, goal <= 12), also with the garbage collector paused,
             next to a chain of plain slotted Python objects built the same way (CPython's own
             growth: its collector traverses the live graph) and to the capture with the nodes
             left to the collector (xcs.lazy moves them out of its reach, `gc.freeze`, every
             4096 nodes); the walk + structural key that
             each materialization does, at the same sizes (best of 3).
  cached     materializing a 20-op subgraph on 8x8 f32 inputs whose structure is compiled
             already (walk, key, cache hit, native call), next to `xcs.jit`'s cached call of
             the same 20 ops and to numpy running them. Goal < 1 ms.

Times are the process's CPU time (`time.process_time`), the best of repeated runs: on a shared
machine the wall clock also counts the time other processes hold the cores.
Prints one line per figure with its goal; `--json FILE` writes them. Nothing is asserted.
Run: python3 tools/bench/bench_lazy.py [--quick] [--json target/bench/lazy.json]
"""

import argparse
import gc
import json
import os
import sys
import time
import tracemalloc

import numpy as np

import xcs
import xcs.numpy as xnp
from xcs import lazy


def best_time(fn, repeat=5):
    """The best of `repeat` CPU-time measurements of `fn()` (seconds): on a shared machine the
    least disturbed run is the closest to the work itself."""
    runs = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        runs.append(time.process_time() - t)
    return min(runs)


OPS = {
    "operator  x + y": (lambda x, y: x + y),
    "method    x.sum(axis=0) (4x4 -> 4)": (lambda x, y: x.sum(axis=0)),
    "ufunc     np.exp(x)": (lambda x, y: np.exp(x)),
    "function  np.where(x, x, y)": (lambda x, y: np.where(x, x, y)),
    "xnp       xnp.tanh(x)": (lambda x, y: xnp.tanh(x)),
}


def bench_intercept(results, chain):
    """Per op: `chain` ops captured vs run by numpy on the same values."""
    a = np.full((4, 4), 0.5, np.float32)
    b = np.full((4, 4), 0.25, np.float32)
    for name, op in OPS.items():
        x, y = lazy.asarray(a), lazy.asarray(b)
        op(x, y)  # the signature's abstract evaluation, once

        def captured():
            for _ in range(chain):
                op(x, y)

        def eager():
            for _ in range(chain):
                op(a, b)
        t_lazy = best_time(captured) / chain
        t_np = best_time(eager) / chain
        key = name.split()[0]
        results[f"intercept_{key}_us"] = t_lazy * 1e6
        results[f"intercept_{key}_numpy_us"] = t_np * 1e6
        print(f"intercept {name:40s} {t_lazy * 1e6:7.2f} us/op   numpy {t_np * 1e6:6.2f} us/op   "
              f"lazy/numpy = {t_lazy / t_np:5.2f}   (goal < 10 us)", flush=True)
    # a new signature each time: the abstract evaluation (tracing the op once on abstract arrays)
    shapes = [(i + 1, 3) for i in range(200)]
    xs = [lazy.asarray(np.ones(s, np.float32)) for s in shapes]
    t = time.process_time()
    for v in xs:
        v * v
    t_cold = (time.process_time() - t) / len(xs)
    results["intercept_new_signature_us"] = t_cold * 1e6
    print(f"intercept {'first op of a new signature':40s} {t_cold * 1e6:7.2f} us/op   (then cached)", flush=True)


def capture_chain(n, x, y):
    t = x
    for _ in range(n):
        t = t + y
    return t


def bench_memory(results, nodes):
    x, y = lazy.asarray(np.ones((4, 4), np.float32)), lazy.asarray(np.ones((4, 4), np.float32))
    capture_chain(100, x, y)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    t = capture_chain(nodes, x, y)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    per_node = (after - before) / nodes
    obj = sys.getsizeof(t)
    meta = per_node - obj
    results.update(memory_bytes_per_node=per_node, memory_object_bytes=obj, memory_metadata_bytes=meta)
    print(f"memory    {nodes} nodes: {per_node:6.1f} bytes/node = LazyTensor object {obj} + metadata {meta:5.1f} "
          f"(inputs tuple {sys.getsizeof(t.inputs)}, pending count {sys.getsizeof(t._pending)})   (goal < 100)",
          flush=True)
    del t


def best_of_3(build, n):
    """The best CPU time of 3 runs of `build(n)` (the garbage collector on, as users have it)
    and of 3 with it paused."""
    times = []
    for paused in (False, True):
        best = float("inf")
        for _ in range(3):
            gc.collect()
            if paused:
                gc.disable()
            t0 = time.process_time()
            made = build(n)
            best = min(best, time.process_time() - t0)
            gc.enable()
            del made
        times.append(best)
    return times


class _Link:
    __slots__ = ("prev", "other")

    def __init__(self, prev, other):
        self.prev, self.other = prev, other


def python_chain(n):
    """The least a graph of n nodes can be in Python: slotted objects linked with a tuple each."""
    t = None
    for _ in range(n):
        t = _Link(t, (t, None))
    return t


def bench_build(results, sizes):
    x, y = lazy.asarray(np.ones((4, 4), np.float32)), lazy.asarray(np.ones((4, 4), np.float32))
    capture_chain(100, x, y)
    times = {}
    for n in sizes:
        build, build_paused = best_of_3(lambda n: capture_chain(n, x, y), n)
        every, lazy._FREEZE_EVERY = lazy._FREEZE_EVERY, float("inf")
        unfrozen, _ = best_of_3(lambda n: capture_chain(n, x, y), n)  # the nodes left to the collector
        lazy._FREEZE_EVERY = every
        peer, peer_paused = best_of_3(python_chain, n)
        t = capture_chain(n, x, y)
        plan = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            planned = lazy._plan([t])  # the walk and the structural key
            plan = min(plan, time.process_time() - t0)
            del planned
        del t
        times[n] = (build, build_paused, peer, peer_paused, unfrozen)
        results.update({f"build_{n}_s": build, f"build_{n}_gc_paused_s": build_paused, f"plan_{n}_s": plan,
                        f"python_chain_{n}_s": peer, f"build_{n}_unfrozen_s": unfrozen})
        print(f"build     {n:7d} ops: capture {build / n * 1e6:5.2f} us/op ({build_paused / n * 1e6:5.2f} with the "
              f"garbage collector paused, {unfrozen / n * 1e6:5.2f} with the nodes left to it)   walk + structural "
              f"key {plan / n * 1e6:5.2f} us/op   peer: a chain of plain Python objects {peer / n * 1e6:5.2f} us/node "
              f"({peer_paused / n * 1e6:5.2f})", flush=True)
    if len(sizes) >= 2:
        small, big = sizes[-2], sizes[-1]
        ratios = [times[big][k] / times[small][k] for k in range(5)]
        results.update(build_ratio=ratios[0], build_ratio_gc_paused=ratios[1], build_ratio_python_chain=ratios[2],
                       build_ratio_unfrozen=ratios[4])
        print(f"build     {big}/{small} time ratio {ratios[0]:.2f} ({ratios[1]:.2f} with the garbage collector paused, "
              f"{ratios[4]:.2f} with the nodes left to it; linear: {big / small:.0f}; goal <= {1.2 * big / small:.0f})"
              f"   peer: the chain of plain Python objects {ratios[2]:.2f} ({ratios[3]:.2f})", flush=True)


def twenty_ops(x, w):
    """20 ops (the tensor ops each records: add, mul, tanh, matmul, reduce, ...)."""
    h = x @ w                      # 1
    h = h + 1.0                    # 2
    h = np.tanh(h)                 # 3
    h = h * x                      # 4
    g = h.sum(axis=1, keepdims=True)  # 5
    h = h - g                      # 6
    h = np.maximum(h, 0.0)         # 7
    h = h @ w.T                    # 8, 9
    h = h * 0.5                    # 10
    h = np.exp(-h)                 # 11, 12
    h = h + x                      # 13
    m = h.max(axis=0)              # 14
    h = h / (m + 1.0)              # 15, 16
    h = np.sqrt(h * h + 1.0)       # 17, 18, 19
    return h.mean(axis=0)          # 20


def bench_cached(results, calls):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 8)).astype(np.float32)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    x, wl = lazy.asarray(a), lazy.asarray(w)
    twenty_ops(x, wl).numpy()  # compiles once
    misses = lazy.cache_info().misses
    t_mat = t_both = float("inf")
    for _ in range(5):
        graphs = [twenty_ops(x, wl) for _ in range(calls)]  # captured ahead: only materialization is timed
        t0 = time.process_time()
        for g in graphs:
            g.materialize()
        t_mat = min(t_mat, (time.process_time() - t0) / calls)
        t0 = time.process_time()
        for _ in range(calls):
            twenty_ops(x, wl).materialize()
        t_both = min(t_both, (time.process_time() - t0) / calls)
    if lazy.cache_info().misses != misses:
        sys.exit("error: the cached 20-op subgraph was compiled again")
    jitted = xcs.jit(twenty_ops)
    jitted(a, w)
    t_jit = best_time(lambda: [jitted(a, w) for _ in range(calls)]) / calls
    t_np = best_time(lambda: [twenty_ops(a, w) for _ in range(calls)]) / calls
    results.update(cached_materialize_us=t_mat * 1e6, cached_capture_and_materialize_us=t_both * 1e6,
                   cached_jit_call_us=t_jit * 1e6, cached_numpy_us=t_np * 1e6)
    print(f"cached    20-op subgraph, 8x8 f32: materialize {t_mat * 1e6:7.1f} us   capture + materialize "
          f"{t_both * 1e6:7.1f} us   (goal < 1000 us)", flush=True)
    print(f"cached    peers: xcs.jit cached call {t_jit * 1e6:6.1f} us   numpy {t_np * 1e6:6.1f} us   "
          f"materialize/jit = {t_mat / t_jit:.2f}   capture+materialize/numpy = {t_both / t_np:.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    old = lazy.configure(max_pending=10**9)  # the graph-size trigger would cut the long chains
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    results = {"xcs": os.path.dirname(xcs.__file__)}
    print(f"== xcs.lazy benchmark ({results['xcs']})", flush=True)
    bench_intercept(results, chain=50 if args.quick else 2000)
    bench_memory(results, nodes=2000 if args.quick else 100_000)
    bench_build(results, sizes=[100, 1000] if args.quick else [1000, 10_000, 100_000])
    bench_cached(results, calls=20 if args.quick else 500)
    lazy.configure(**old)
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
