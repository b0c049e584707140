#!/usr/bin/env python3
"""The compile-time benchmark (issue 19's first-call speed, issue 22 item 5): for each workload,
the first call (compile + first run) and the steady-state call of XCS's LLVM JIT — through
`xcs-run` and through the Python frontend (`xcs.jit`, in-process) — next to `jax.jit` (XLA CPU)
on the same computation written in jax.numpy, with ratios. Goal: no workload compiles slower
than XLA does (xcs/jax <= 1.0).

Workloads (f32): the modules of tools/bench/bench_native.py (W1 chain, W2 matmul 1024 and 256,
W3 MLP, W4 softmax, W5 layer_norm, W6 GELU; tools/bench/native/*.mlir) and the 2-layer MLP of
tools/bench/bench_frontend.py (`mlp-small`: softmax(relu(x@W1+b1)@W2), x 32x64, W1 64x128,
W2 128x10; its module is written out from the same function).

Method: every figure is the median over --procs fresh processes (nothing is cached between
them). Each process:
  xcs-run  `xcs-run FILE --entry main --input NAME=random:SEED ... --pass-pipeline P
           --threads T --bench R --time-phases`: `compile_ms` (lower + LLVM), `first_call_ms`
           (the first run), the median of R steady calls, and the process CPU time of each
           compile phase (`phase:` lines: lower, parse, target, optimize, codegen).
  xcs.jit  a worker process that imports xcs and numpy, makes the inputs, starts XCS's JIT up
           with a trivial xcs.jit (as the jax worker does: LLVM's code paged in, its passes
           registered), then times `xcs.jit(f, pipeline=P).lower(*args).compile()` (trace +
           pipeline + lowering + LLVM; wall and CPU), and separately the first call of a fresh
           `xcs.jit(f, pipeline=P)` (trace + pipeline + LLVM + run) with the compile phases of
           its executable, then the median of R calls.
  jax.jit  a worker process that imports jax (JAX_PLATFORMS=cpu), initializes the backend with
           a trivial jit (so neither side counts its one-time start-up), then times
           `jax.jit(f).lower(*args).compile()` (wall and CPU), the first call of the compiled
           function, and separately the first call of a fresh `jax.jit(g)` of the same
           computation (trace + compile + run), then the median of R calls.
The CPU columns are process CPU time (all threads): on a shared machine the wall times also
count the waits for a core, the CPU times do not. Both workers run with OPENBLAS_NUM_THREADS=1:
they import numpy but never call its BLAS (XCS runs its own matmul, XLA Eigen's), and with
its default threads numpy's OpenBLAS starts a worker that spins on the other core after the
library loads, which the CPU clock charged to the timed compile in 4 ms ticks (W2-256's xcs.jit
compile: 6 ms wall, 10-14 ms CPU in 9 of 10 processes; with one OpenBLAS thread CPU = wall in 10
of 10). The load average before and after is printed.
Ratios are xcs / jax (lower is better for XCS): `compile` compares xcs-run's compile_ms (a fresh
process: LLVM's start-up counted) and xcs.jit's lower().compile() (after start-up, like jax's)
with jax's lower().compile(); `first` compares the first calls (compile + first run; for
xcs.jit also the trace, as for jax.jit). The goal is judged on both pairs, each printed.

Usage (from the repository root):
    make bench-deps                                     # jax (only benchmarks need it)
    cargo build --release -p xcs --bin xcs-run          # and the frontend: make frontend
    python3 tools/bench/bench_compile.py --xcs-run target/release/xcs-run --json target/bench/compile.json
    python3 tools/bench/bench_compile.py --only W2-256,W3 --procs 3 --skip-python
Options: --procs N (fresh processes per figure, default 5), --runs R (steady calls, default 5),
--threads T (default 2), --pipeline P (default builtin.module(func.func(fuse)), what
bench_native.py runs), --only NAMES, --skip-xcs-run, --skip-python (no `import xcs`), --skip-jax,
--timeout S. Exit codes: 0 ok; 1 a tool or worker failed; 2 bad usage.
Python 3.11; numpy; jax and the xcs package optional (their columns are skipped, and said so).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NATIVE = HERE / "native"
DEFAULT_PIPELINE = "builtin.module(func.func(fuse))"


@dataclass
class Workload:
    """One computation: its module (under tools/bench/native, or written out for mlp-small),
    argument names and shapes in order, and its name in the worker's function table."""

    name: str
    mlir: str
    args: list[tuple[str, tuple[int, ...]]]


N16M = 16 * 1024 * 1024

WORKLOADS = [
    Workload("W1", "w1_chain.mlir", [("x", (N16M,))]),
    Workload("W2-1024", "w2_matmul_1024.mlir", [("a", (1024, 1024)), ("b", (1024, 1024))]),
    Workload("W2-256", "w2_matmul_256.mlir", [("a", (256, 256)), ("b", (256, 256))]),
    Workload("W3", "w3_mlp.mlir", [("x", (256, 1024)), ("w1", (1024, 4096)), ("b1", (4096,)),
                                   ("w2", (4096, 1024)), ("b2", (1024,))]),
    Workload("W4", "w4_softmax.mlir", [("x", (4096, 4096))]),
    Workload("W5", "w5_layer_norm.mlir", [("x", (4096, 4096)), ("gamma", (4096,)), ("beta", (4096,))]),
    Workload("W6", "w6_gelu.mlir", [("x", (N16M,))]),
    Workload("mlp-small", "", [("x", (32, 64)), ("w1", (64, 128)), ("b1", (128,)), ("w2", (128, 10))]),
]

# mlp-small as a module for xcs-run: what bench_frontend.py's function traces to.
MLP_SMALL_MLIR = """// bench_frontend.py's 2-layer MLP: softmax(relu(x@W1+b1)@W2), written by bench_compile.py.
func.func @main(%x: tensor<32x64xf32> {xcs.name = "x"}, %w1: tensor<64x128xf32> {xcs.name = "w1"},
                %b1: tensor<128xf32> {xcs.name = "b1"}, %w2: tensor<128x10xf32> {xcs.name = "w2"})
                -> (tensor<32x10xf32> {xcs.name = "y"}) {
  %0 = tensor.matmul %x, %w1 : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  %1 = tensor.add %0, %b1 : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %2 = tensor.relu %1 : tensor<32x128xf32>
  %3 = tensor.matmul %2, %w2 : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
  %4 = tensor.softmax %3 {axis = 1 : i64} : tensor<32x10xf32>
  return %4 : tensor<32x10xf32>
}
"""


def functions(np_mod, nn):
    """The workloads as functions of a numpy-like module and its nn module (jax.numpy and
    jax.nn, or xcs.numpy and xcs.nn): the same computation for both peers."""
    return {
        "W1": lambda x: np_mod.tanh(x * 1.5 + 0.5) * nn.sigmoid(x) + x * x,
        "W2-1024": lambda a, b: a @ b,
        "W2-256": lambda a, b: a @ b,
        "W3": lambda x, w1, b1, w2, b2: nn.relu(x @ w1 + b1) @ w2 + b2,
        "W4": lambda x: nn.softmax(x, axis=-1),
        "W5": lambda x, g, b: layer_norm(np_mod, nn, x, g, b),
        "W6": lambda x: nn.gelu(x, approximate=True),
        "mlp-small": lambda x, w1, b1, w2: nn.softmax(nn.relu(x @ w1 + b1) @ w2, axis=-1),
    }


def layer_norm(np_mod, nn, x, g, b):
    """layer_norm over the last axis, epsilon 1e-5: xcs.nn has it as one op; jax.nn does not."""
    if hasattr(nn, "layer_norm"):
        return nn.layer_norm(x, g, b, axis=-1, epsilon=1e-5)
    mean = np_mod.mean(x, axis=-1, keepdims=True)
    var = np_mod.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / np_mod.sqrt(var + 1e-5) * g + b


def inputs(w: Workload, seed: int = 20240605):
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for name, shape in w.args:
        lo = 0.5 if name == "gamma" else -1.0
        out.append(rng.uniform(lo, lo + (1.5 if lo > 0 else 2.0), shape).astype(np.float32))
    return out


# ---------------------------------------------------------------------------------------------
# workers (run in fresh processes): print one JSON line

def median_call(call, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def worker_jax(w: Workload, runs: int) -> dict:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np

    args = inputs(w)
    jax.jit(lambda v: v + 1)(np.ones(4, np.float32)).block_until_ready()  # backend start-up
    fn = functions(jnp, jax.nn)[w.name]
    c0, t0 = time.process_time(), time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    c1, t1 = time.process_time(), time.perf_counter()
    compiled(*args).block_until_ready()
    t2 = time.perf_counter()
    g = jax.jit(lambda *a: fn(*a))  # a fresh function: jax's caches miss
    c3, t3 = time.process_time(), time.perf_counter()
    g(*args).block_until_ready()
    c4, t4 = time.process_time(), time.perf_counter()
    steady = median_call(lambda: g(*args).block_until_ready(), runs)
    return {"compile_s": t1 - t0, "compile_cpu_s": c1 - c0, "compiled_first_run_s": t2 - t1,
            "first_call_s": t4 - t3, "first_call_cpu_s": c4 - c3, "steady_s": steady}


def worker_xcs(w: Workload, runs: int, pipeline: str, threads: int) -> dict:
    import numpy as np
    import xcs
    import xcs.nn
    import xcs.numpy as xnp

    args = inputs(w)
    fn = functions(xnp, xcs.nn)[w.name]
    if threads:
        os.environ["XCS_NUM_THREADS"] = str(threads)
    xcs.jit(lambda v: v + 1)(np.ones(4, np.float32))  # start-up, as the jax worker's
    jit = (lambda: xcs.jit(fn, pipeline=pipeline)) if pipeline else (lambda: xcs.jit(fn))
    c0, t0 = time.process_time(), time.perf_counter()
    jit().lower(*args).compile()
    c1, t1 = time.process_time(), time.perf_counter()
    f = jit()
    c2, t2 = time.process_time(), time.perf_counter()
    f(*args)
    c3, t3 = time.process_time(), time.perf_counter()
    steady = median_call(lambda: f(*args), runs)
    row = {"compile_s": t1 - t0, "compile_cpu_s": c1 - c0, "first_call_s": t3 - t2, "first_call_cpu_s": c3 - c2,
           "steady_s": steady}
    phases = executable_phases(f)
    if phases:
        row["phases"] = {name: {"wall_s": wall, "cpu_s": cpu} for name, wall, cpu in phases}
    return row


def executable_phases(f) -> list:
    """The compile phases of the jitted function's one executable (empty if unavailable)."""
    for entry in getattr(f, "_cache", {}).values():
        ex = getattr(entry, "executable", None)
        if ex is not None and hasattr(ex, "compile_phases"):
            return list(ex.compile_phases())
    return []


def run_worker(args: argparse.Namespace) -> int:
    w = by_name(args.worker_workload)
    if args.worker == "jax":
        row = worker_jax(w, args.runs)
    else:
        row = worker_xcs(w, args.runs, args.pipeline, args.threads)
    print("RESULT " + json.dumps(row), flush=True)
    return 0


# ---------------------------------------------------------------------------------------------
# the parent: fresh processes, parsing, medians, the table

PHASE = re.compile(r"^phase: name=(\S+) wall_ms=([0-9.]+) cpu_ms=([0-9.]+)", re.M)
KV = re.compile(r"(\w+)=([0-9.]+)")


def parse_xcs_run(text: str) -> dict | None:
    """The figures of one `xcs-run --bench R --time-phases` process: compile, first call and
    steady times (seconds) from the `bench:` line, phases from the `phase:` lines."""
    bench = next((ln for ln in text.splitlines() if ln.startswith("bench:")), None)
    if bench is None:
        return None
    kv = {k: float(v) for k, v in KV.findall(bench)}
    if "compile_ms" not in kv or "median_ms" not in kv:
        return None
    row = {"compile_s": kv["compile_ms"] / 1e3, "steady_s": kv["median_ms"] / 1e3}
    if "first_call_ms" in kv:
        row["first_run_s"] = kv["first_call_ms"] / 1e3
        row["first_call_s"] = row["compile_s"] + row["first_run_s"]
    phases = {m.group(1): {"wall_s": float(m.group(2)) / 1e3, "cpu_s": float(m.group(3)) / 1e3}
              for m in PHASE.finditer(text)}
    if phases:
        total = phases.pop("total", None)
        row["phases"] = phases
        row["compile_cpu_s"] = total["cpu_s"] if total else sum(p["cpu_s"] for p in phases.values())
    return row


def parse_worker(text: str) -> dict | None:
    for ln in text.splitlines():
        if ln.startswith("RESULT "):
            return json.loads(ln[len("RESULT "):])
    return None


def median_rows(rows: list[dict]) -> dict:
    """The median of every numeric figure (phases too) over the processes' rows."""
    if not rows:
        return {}
    out: dict = {"procs": len(rows)}
    keys = {k for r in rows for k, v in r.items() if isinstance(v, (int, float))}
    for k in sorted(keys):
        vals = [r[k] for r in rows if isinstance(r.get(k), (int, float))]
        out[k] = statistics.median(vals)
    names = [n for r in rows for n in r.get("phases", {})]
    if names:
        out["phases"] = {}
        for n in dict.fromkeys(names):
            ps = [r["phases"][n] for r in rows if n in r.get("phases", {})]
            out["phases"][n] = {f: statistics.median(p[f] for p in ps) for f in ("wall_s", "cpu_s")}
    return out


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def by_name(name: str) -> Workload:
    for w in WORKLOADS:
        if w.name == name:
            return w
    raise SystemExit(f"error: unknown workload '{name}' (known: {', '.join(w.name for w in WORKLOADS)})")


def select(only: str | None) -> list[Workload]:
    if not only:
        return list(WORKLOADS)
    return [by_name(n.strip()) for n in only.split(",") if n.strip()]


def module_path(w: Workload, tmp: Path) -> Path:
    if w.mlir:
        return NATIVE / w.mlir
    p = tmp / f"{w.name}.mlir"
    p.write_text(MLP_SMALL_MLIR)
    return p


def xcs_run_cmd(xcs_run: str, w: Workload, module: Path, args: argparse.Namespace) -> list[str]:
    cmd = [xcs_run, str(module), "--entry", "main"]
    for i, (name, _) in enumerate(w.args):
        cmd += ["--input", f"{name}=random:{i + 1}"]
    if args.pipeline:
        cmd += ["--pass-pipeline", args.pipeline]
    return cmd + ["--threads", str(args.threads), "--bench", str(args.runs), "--time-phases"]


def worker_cmd(kind: str, w: Workload, args: argparse.Namespace) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--worker-workload", w.name,
            "--runs", str(args.runs), "--threads", str(args.threads), "--pipeline", args.pipeline]


def fresh_processes(cmd: list[str], parse, procs: int, timeout: float, env=None) -> tuple[list[dict], str | None]:
    """Runs `cmd` `procs` times; the parsed rows, or the first failure's message."""
    rows = []
    for _ in range(procs):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return rows, f"timeout after {timeout} s"
        row = parse(p.stdout + "\n" + p.stderr) if p.returncode == 0 else None
        if row is None:
            msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
            return rows, f"exit {p.returncode}: " + (msg[-1] if msg else "no result line")
        rows.append(row)
    return rows, None


def ms(x: float | None) -> str:
    """Milliseconds: one decimal, three below 1 ms (the steady calls of small workloads)."""
    if x is None:
        return "-"
    return f"{x * 1e3:.1f}" if x >= 1e-3 else f"{x * 1e3:.3f}"


def rt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def fmt_table(results: dict) -> str:
    """One row per workload: per implementation compile (wall, CPU), first call, steady call;
    then the xcs/jax ratios."""
    head = (f"{'workload':<10} {'impl':<8} {'compile ms':>11} {'(cpu)':>8} {'first ms':>9} {'(cpu)':>8} "
            f"{'steady ms':>10}   ratios vs jax.jit: compile (cpu)  first (cpu)")
    lines = [head, "-" * len(head)]
    for name, r in results.items():
        jax = r.get("jax", {})
        for impl in ("xcs-run", "xcs.jit", "jax"):
            m = r.get(impl)
            if not m:
                continue
            if "error" in m:
                lines.append(f"{name:<10} {impl:<8} error: {m['error']}")
                continue
            line = (f"{name:<10} {impl:<8} {ms(m.get('compile_s')):>11} {ms(m.get('compile_cpu_s')):>8} "
                    f"{ms(m.get('first_call_s')):>9} {ms(m.get('first_call_cpu_s')):>8} {ms(m.get('steady_s')):>10}")
            if impl != "jax" and jax and "error" not in jax:
                line += (f"   {rt(ratio(m.get('compile_s'), jax.get('compile_s'))):>7} "
                         f"({rt(ratio(m.get('compile_cpu_s'), jax.get('compile_cpu_s')))})"
                         f"  {rt(ratio(m.get('first_call_s'), jax.get('first_call_s'))):>6} "
                         f"({rt(ratio(m.get('first_call_cpu_s'), jax.get('first_call_cpu_s')))})")
            lines.append(line)
        phases = (r.get("xcs-run") or {}).get("phases")
        if phases:
            lines.append(f"{'':<10} xcs-run phases (cpu ms): "
                         + ", ".join(f"{n} {p['cpu_s'] * 1e3:.1f}" for n, p in phases.items()))
    return "\n".join(lines)


def goal_lines(results: dict) -> list[str]:
    """PASS/MISS of the goal (XCS's compile <= jax's lower().compile()) for each XCS row: xcs-run
    (a fresh process, LLVM's start-up counted) and xcs.jit (lower().compile() after start-up,
    as jax's is measured); judged on the wall time and, separately, on the CPU time (the fair
    figure when other processes share the cores)."""
    out = []

    def verdict(x: float | None) -> str:
        return "-" if x is None else ("PASS" if x <= 1.0 else "MISS")

    for name, r in results.items():
        j = r.get("jax") or {}
        for impl in ("xcs-run", "xcs.jit"):
            x = r.get(impl) or {}
            if "compile_s" not in x or "compile_s" not in j:
                continue
            wall = ratio(x["compile_s"], j["compile_s"])
            cpu = ratio(x.get("compile_cpu_s"), j.get("compile_cpu_s"))
            out.append(f"  {name:<10} compile {impl}/jax = {rt(wall)} wall {verdict(wall)}, {rt(cpu)} cpu "
                       f"{verdict(cpu)} (goal <= 1.0)")
    return out


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def have_module(name: str) -> bool:
    p = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True)
    return p.returncode == 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xcs-run", default=str(ROOT / "target" / "release" / "xcs-run"))
    ap.add_argument("--procs", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--pipeline", default=DEFAULT_PIPELINE)
    ap.add_argument("--only")
    ap.add_argument("--skip-xcs-run", action="store_true")
    ap.add_argument("--skip-python", action="store_true")
    ap.add_argument("--skip-jax", action="store_true")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--json")
    ap.add_argument("--worker", choices=["jax", "xcs"], help=argparse.SUPPRESS)
    ap.add_argument("--worker-workload", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.procs < 1 or args.runs < 1 or args.threads < 1:
        ap.error("--procs, --runs and --threads must be >= 1")
    return args


def measure(w: Workload, args: argparse.Namespace, peers: dict, tmp: Path) -> dict:
    """The medians of every peer's fresh processes for workload `w`."""
    r: dict = {}
    if peers["xcs-run"]:
        rows, err = fresh_processes(xcs_run_cmd(args.xcs_run, w, module_path(w, tmp), args), parse_xcs_run,
                                    args.procs, args.timeout)
        r["xcs-run"] = {"error": err} if err else median_rows(rows)
    # OPENBLAS_NUM_THREADS=1: numpy's OpenBLAS (which neither worker calls) starts no worker thread,
    # whose spinning would be counted in the CPU time of the timed compile (see the docstring).
    env = dict(os.environ, XCS_NUM_THREADS=str(args.threads), JAX_PLATFORMS="cpu", OPENBLAS_NUM_THREADS="1")
    for kind, impl in (("xcs", "xcs.jit"), ("jax", "jax")):
        if peers[impl]:
            rows, err = fresh_processes(worker_cmd(kind, w, args), parse_worker, args.procs, args.timeout, env)
            r[impl] = {"error": err} if err else median_rows(rows)
    return r


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        return run_worker(args)
    ws = select(args.only)
    peers = {"xcs-run": not args.skip_xcs_run, "xcs.jit": not args.skip_python, "jax": not args.skip_jax}
    if peers["xcs-run"] and not os.path.exists(args.xcs_run):
        print(f"error: no xcs-run at {args.xcs_run} (cargo build --release -p xcs --bin xcs-run)", file=sys.stderr)
        return 2
    for mod, impl, hint in (("xcs", "xcs.jit", "make frontend"), ("jax", "jax", "make bench-deps")):
        if peers[impl] and not have_module(mod):
            print(f"({mod} is not importable: the {impl} rows are skipped; {hint} installs it)")
            peers[impl] = False
    print(f"conditions: {os.cpu_count()} CPUs, threads {args.threads}, pipeline {args.pipeline!r}, "
          f"median of {args.procs} fresh processes, steady = median of {args.runs} calls; "
          f"load average before {load_average()}", flush=True)
    results = {}
    with tempfile.TemporaryDirectory() as d:
        for w in ws:
            results[w.name] = measure(w, args, peers, Path(d))
            print(f"  measured {w.name}", file=sys.stderr, flush=True)
    print(fmt_table(results))
    print(f"load average after {load_average()}")
    goals = goal_lines(results)
    if goals:
        print("goal: no workload compiles slower than XLA (xcs-run compile_ms in a fresh process, and xcs.jit's "
              "lower().compile() after start-up, vs jax's lower().compile() after start-up)")
        print("\n".join(goals))
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"conditions": {"cpus": os.cpu_count(), "threads": args.threads, "procs": args.procs,
                                      "runs": args.runs, "pipeline": args.pipeline}, "results": results}, f, indent=2)
    failed = any("error" in m for r in results.values() for m in r.values() if isinstance(m, dict))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
