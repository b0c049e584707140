#!/usr/bin/env python3
"""Scaling of partitioned (SPMD) programs on this host (issue 18, item 7): the wall time of a
partitioned program run as MPI processes (`mpirun -np N xcs-run FILE --mpi`) at 1, 2 and 4
ranks, and as threads of one process (`xcs-run FILE --devices=N`), against the single-device
program at 1 and 2 threads, printed as times and speedups (single-device time / partitioned time).

Programs (f32, generated here; `program(kind, n, ...)` writes @full and @part, the same function
annotated for a 1-D grid of n devices, which `xcs-opt -p 'builtin.module(shard-partition)'`
turns into the SPMD program that is measured):
  mlp   y = gelu(x @ W1) @ W2, x BxD, W1 DxH, W2 HxD (Megatron: W1 split by columns, W2 by rows,
        the partial sums all-reduced; each device holds 1/n of the weights and does 1/n of the
        FLOPs, and the all-reduce moves B*D floats).
  rows  the same with x split by rows and the weights replicated (data parallel: no
        communication but the gathering of the result by the driver).

Method: every run is `xcs-run ... --bench K --threads 1` (each rank single-threaded, so N ranks
use N cores; the single-device baseline also at --threads 2, what one process gets from both
cores); the time is the median of K calls from the `bench:` line, which under --mpi is the
slowest rank's time of each call, the calls started together (a barrier). Inputs are seeded
(`random:SEED`), the partitioned results are checked against the single-device run first. On a
2-core host, 4 ranks oversubscribe the cores: the ratio shows what that costs, not a speedup.

Usage (from the repository root; needs mpirun, Debian's openmpi-bin):
    cargo build --release -p xcs --bin xcs-run --bin xcs-opt
    python3 tools/bench/bench_shard.py --xcs-run target/release/xcs-run --xcs-opt target/release/xcs-opt
    python3 tools/bench/bench_shard.py --only mlp --ranks 1,2 --calls 5 --json target/bench/shard.json
Other helpers (bench_shard_upstream.py reuses them): `partition(...)`, `measure(...)`, `mpirun_prefix()`.
"""
from __future__ import annotations

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

SIZES = {"mlp": (256, 1024, 4096), "rows": (256, 1024, 4096)}


def program(kind: str, n: int, b: int, d: int, h: int) -> str:
    """The module of workload `kind` for a 1-D grid of n devices: @full (one device) and @part,
    the same function annotated (`shard.shard`), which `partition` turns into the SPMD program."""
    sig = (
        f'(%x: tensor<{b}x{d}xf32> {{xcs.name = "x"}}, %w1: tensor<{d}x{h}xf32> {{xcs.name = "w1"}}, '
        f'%w2: tensor<{h}x{d}xf32> {{xcs.name = "w2"}}) -> (tensor<{b}x{d}xf32> {{xcs.name = "y"}})'
    )
    body = (
        f"  %h = tensor.matmul %x{{x}}, %w1{{w1}} : (tensor<{b}x{d}xf32>, tensor<{d}x{h}xf32>) -> tensor<{b}x{h}xf32>\n"
        f"{{h_s}}"
        f'  %g = tensor.gelu %h{{h}} {{{{approximate = "tanh"}}}} : tensor<{b}x{h}xf32>\n'
        f"{{g_s}}"
        f"  %y = tensor.matmul %g{{g}}, %w2{{w2}} : (tensor<{b}x{h}xf32>, tensor<{h}x{d}xf32>) -> tensor<{b}x{d}xf32>\n"
        f"{{y_s}}"
        f"  return %y{{y}} : tensor<{b}x{d}xf32>\n}}}}\n"
    )
    full = f"func.func @full{sig} {{\n" + body.format(x="", w1="", w2="", h="", g="", y="", h_s="", g_s="", y_s="")
    shardings = (
        "  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding\n"
        "  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding\n"
        "  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding\n"
    )

    def ann(v: str, shape: str, s: str) -> str:
        return f"  %{v}_s = shard.shard %{v} to %{s} : tensor<{shape}xf32>\n"

    if kind == "mlp":
        # Megatron: W1 by columns, W2 by rows, the hidden activation by columns, y replicated
        pre = ann("w1", f"{d}x{h}", "cols") + ann("w2", f"{h}x{d}", "rows")
        part = body.format(x="", w1="_s", w2="_s", h="_s", g="_s", y="_s", h_s=ann("h", f"{b}x{h}", "cols"),
                           g_s=ann("g", f"{b}x{h}", "cols"), y_s=ann("y", f"{b}x{d}", "rep"))
    elif kind == "rows":
        # data parallel: x, the activations and y by rows, the weights replicated
        pre = ann("x", f"{b}x{d}", "rows")
        part = body.format(x="_s", w1="", w2="", h="_s", g="_s", y="_s", h_s=ann("h", f"{b}x{h}", "rows"),
                           g_s=ann("g", f"{b}x{h}", "rows"), y_s=ann("y", f"{b}x{d}", "rows"))
    else:
        raise ValueError(f"unknown workload {kind}")
    return f"shard.grid @grid(shape = {n})\n{full}func.func @part{sig} {{\n{shardings}{pre}{part}"


def partition(xcs_opt: str, src: Path, dst: Path) -> str:
    """Runs `xcs-opt SRC -p 'builtin.module(shard-partition)' -o DST`; returns DST's text."""
    cmd = [xcs_opt, str(src), "-p", "builtin.module(shard-partition)", "-o", str(dst)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return dst.read_text()


INPUTS = ["-i", "x=random:1", "-i", "w1=random:2", "-i", "w2=random:3"]


def mpirun_prefix(n: int) -> list[str]:
    """`mpirun -np N` with the options a root user and an oversubscribed host need."""
    cmd = ["mpirun", "-np", str(n), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def parse_bench(text: str) -> float:
    """The median time (seconds) of xcs-run's `bench:` line."""
    m = re.search(r"^bench:.*\bmedian_ms=([0-9.eE+-]+)", text, re.M)
    if not m:
        raise RuntimeError(f"no bench: line in\n{text}")
    return float(m.group(1)) / 1e3


def measure(xcs_run: str, mlir: Path, entry: str, how: str, n: int, calls: int, threads: int = 1,
            out: Path | None = None) -> float:
    """Median seconds per call of `entry` run `how` ('single', 'devices' or 'mpi' with n ranks)."""
    cmd = [xcs_run, str(mlir), "-e", entry, *INPUTS, "--bench", str(calls), "--threads", str(threads)]
    if out is not None:
        cmd += ["-o", str(out)]
    if how == "devices":
        cmd.append(f"--devices={n}")
    elif how == "mpi":
        cmd = mpirun_prefix(n) + cmd + ["--mpi"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return parse_bench(r.stdout)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def check(ref: Path, got: Path) -> float:
    """Max relative difference of y (the partitioned result against the single-device one)."""
    a, b = np.load(ref / "y.npy"), np.load(got / "y.npy")
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(a))), 1e-30))


def run(args: argparse.Namespace) -> list[dict]:
    rows = []
    work = Path(tempfile.mkdtemp(prefix="bench-shard-"))
    try:
        for kind in args.only.split(","):
            b, d, h = SIZES[kind]
            if args.small:
                b, d, h = 16, 32, 64
            ref = work / f"{kind}-ref"
            base = work / f"{kind}-1.mlir"
            partition(args.xcs_opt, write(work / f"{kind}-1-annotated.mlir", program(kind, 1, b, d, h)), base)
            single = {t: measure(args.xcs_run, base, "full", "single", 1, args.calls, t, ref if t == 1 else None) for t in (1, 2)}
            row = {"workload": kind, "sizes": [b, d, h], "single_s": {str(t): v for t, v in single.items()}, "runs": []}
            for n in args.ranks:
                mlir = work / f"{kind}-{n}.mlir"
                partition(args.xcs_opt, write(work / f"{kind}-{n}-annotated.mlir", program(kind, n, b, d, h)), mlir)
                for how in ("mpi", "devices"):
                    out = work / f"{kind}-{n}-{how}"
                    t = measure(args.xcs_run, mlir, "part", how, n, args.calls, 1, out)
                    err = check(ref, out)
                    row["runs"].append({"how": how, "n": n, "s": t, "speedup_vs_1_thread": single[1] / t,
                                        "speedup_vs_2_threads": single[2] / t, "max_rel_err": err})
            rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def table(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        b, d, h = r["sizes"]
        s1, s2 = r["single_s"]["1"], r["single_s"]["2"]
        lines.append(f"{r['workload']} (B={b} D={d} H={h}): one device {s1 * 1e3:.2f} ms at 1 thread, {s2 * 1e3:.2f} ms at 2 threads")
        lines.append(f"  {'run':<22} {'ms':>9} {'vs 1 thread':>12} {'vs 2 threads':>13} {'max rel err':>12}")
        for x in r["runs"]:
            what = f"mpirun -np {x['n']}" if x["how"] == "mpi" else f"--devices={x['n']}"
            lines.append(f"  {what:<22} {x['s'] * 1e3:9.2f} {x['speedup_vs_1_thread']:11.2f}x {x['speedup_vs_2_threads']:12.2f}x {x['max_rel_err']:12.1e}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xcs-run", default="target/release/xcs-run")
    ap.add_argument("--xcs-opt", default="target/release/xcs-opt")
    ap.add_argument("--only", default="mlp,rows")
    ap.add_argument("--ranks", default="1,2,4", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--small", action="store_true", help="tiny sizes (a smoke test)")
    ap.add_argument("--json")
    args = ap.parse_args()
    if not shutil.which("mpirun"):
        print("error: mpirun not found (Debian: apt-get install openmpi-bin libopenmpi-dev)", file=sys.stderr)
        return 1
    rows = run(args)
    print(table(rows))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2))
    bad = [x for r in rows for x in r["runs"] if x["max_rel_err"] > 1e-4]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
