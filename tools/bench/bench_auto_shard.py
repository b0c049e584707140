#!/usr/bin/env python3
"""The auto-shard benchmark (issue 18, "Speed"): the solver's time and peak memory on a stack of
transformer blocks of about 100, 1k, 5k and 20k tensor ops, on a 1-D mesh of 8 and a 2-D mesh
of 2x4 (goal: <= 1 s at 5k ops on 2x4, release build; growth about linear in the op count).

Each block is pre-norm attention + MLP with residuals (14 tensor ops): layer_norm, the q/k/v
projections and the scores as einsums, softmax, the attention output and its projection,
residual add, layer_norm, matmul, bias add, gelu, matmul, residual add. Weights are function
arguments (free to lay out), the result is wanted replicated. Deterministic for a size.
Python 3.11, standard library only.

Usage (from the repository root):
    cargo build --release -p xcs --bin xcs-opt
    python3 tools/bench/bench_auto_shard.py                      # all sizes and meshes
    python3 tools/bench/bench_auto_shard.py --sizes 100,1k --runs 1
    python3 tools/bench/bench_auto_shard.py --json target/bench/auto_shard.json
    python3 tools/bench/bench_auto_shard.py --gen 1000 -o m.mlir    # just write a module

Measured per size and mesh (best of N runs): the AutoShard line of `--mlir-timing` (the pass:
counting FLOPs, building the model, solving, annotating), the whole run's wall time and CPU
time (user + system; a busy host inflates it least), and the peak resident memory of the
xcs-opt process (getrusage of a child of a fresh process). The peer, in the same run, is the same
xcs-opt on the same module with `cse` instead of auto-shard (parse, verify, a linear pass,
print): the ratio auto-shard / cse says what the solver costs over reading the program. The
growth line divides the pass time per op at the largest size by that at 1k.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GOAL_SECONDS = 1.0
GOAL_SIZE = "5k"
SIZES = {"100": 100, "1k": 1_000, "5k": 5_000, "20k": 20_000}
MESHES = {
    "8": "mesh=8 axes=tp alpha=20e-6 bandwidth=100e9 peak-flops=1e14",
    "2x4": "mesh=2x4 axes=dp,tp alpha=20e-6,5e-6 bandwidth=12.5e9,100e9 peak-flops=1e14",
}
OPS_PER_BLOCK = 14
S, D, H, E, F = 128, 256, 8, 32, 1024


def t(shape: list[int]) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def block(i: int, x: str, args: list[str]) -> tuple[list[str], str]:
    """The lines of block `i` on value `x`; its weights are appended to `args`."""
    w = {n: f"%W{n}_{i}" for n in ["g1", "b1", "wq", "wk", "wv", "wo", "g2", "b2", "w1", "c1", "w2"]}
    shapes = {"g1": [D], "b1": [D], "wq": [H, D, E], "wk": [H, D, E], "wv": [H, D, E], "wo": [H, E, D],
              "g2": [D], "b2": [D], "w1": [D, F], "c1": [F], "w2": [F, D]}
    args += [f"{w[n]}: {t(shapes[n])}" for n in w]
    v = lambda n: f"%{n}_{i}"  # noqa: E731
    sd, hse, hst = t([S, D]), t([H, S, E]), t([H, S, S])
    lines = [
        f"  {v('n')} = tensor.layer_norm {x}, {w['g1']}, {w['b1']} {{axis = 1 : i64, epsilon = 1.0e-05 : f32}} : ({sd}, {t([D])}, {t([D])}) -> {sd}",
        f"  {v('q')} = tensor.einsum {v('n')}, {w['wq']} {{equation = \"sd,hde->hse\"}} : ({sd}, {t([H, D, E])}) -> {hse}",
        f"  {v('k')} = tensor.einsum {v('n')}, {w['wk']} {{equation = \"sd,hde->hse\"}} : ({sd}, {t([H, D, E])}) -> {hse}",
        f"  {v('v')} = tensor.einsum {v('n')}, {w['wv']} {{equation = \"sd,hde->hse\"}} : ({sd}, {t([H, D, E])}) -> {hse}",
        f"  {v('s')} = tensor.einsum {v('q')}, {v('k')} {{equation = \"hse,hte->hst\"}} : ({hse}, {hse}) -> {hst}",
        f"  {v('p')} = tensor.softmax {v('s')} {{axis = 2 : i64}} : {hst}",
        f"  {v('o')} = tensor.einsum {v('p')}, {v('v')} {{equation = \"hst,hte->hse\"}} : ({hst}, {hse}) -> {hse}",
        f"  {v('a')} = tensor.einsum {v('o')}, {w['wo']} {{equation = \"hse,hed->sd\"}} : ({hse}, {t([H, E, D])}) -> {sd}",
        f"  {v('r')} = tensor.add {x}, {v('a')} : {sd}",
        f"  {v('m')} = tensor.layer_norm {v('r')}, {w['g2']}, {w['b2']} {{axis = 1 : i64, epsilon = 1.0e-05 : f32}} : ({sd}, {t([D])}, {t([D])}) -> {sd}",
        f"  {v('h')} = tensor.matmul {v('m')}, {w['w1']} : ({sd}, {t([D, F])}) -> {t([S, F])}",
        f"  {v('hb')} = tensor.add {v('h')}, {w['c1']} : ({t([S, F])}, {t([F])}) -> {t([S, F])}",
        f"  {v('g')} = tensor.gelu {v('hb')} {{approximate = \"tanh\"}} : {t([S, F])}",
        f"  {v('y')} = tensor.matmul {v('g')}, {w['w2']} : ({t([S, F])}, {t([F, D])}) -> {sd}",
        f"  {v('z')} = tensor.add {v('r')}, {v('y')} : {sd}",
    ]
    return lines, v("z")


def gen_module(ops: int) -> str:
    """A function of about `ops` tensor ops: ceil(ops / 15) blocks."""
    blocks = max(1, -(-ops // (OPS_PER_BLOCK + 1)))
    args = [f"%x: {t([S, D])}"]
    body: list[str] = []
    x = "%x"
    for i in range(blocks):
        lines, x = block(i, x, args)
        body += lines
    head = f"func.func @stack({', '.join(args)}) -> {t([S, D])} {{"
    return "\n".join([head, *body, f"  return {x} : {t([S, D])}", "}", ""])


def count_ops(text: str) -> int:
    return sum(1 for line in text.splitlines() if " = tensor." in line)


def run_once(xcs_opt: str, path: str, pipeline: str, timing_name: str) -> tuple[float, float, float]:
    """(pass seconds, wall seconds, CPU seconds) of one xcs-opt run; the CPU time (user +
    system of the process) is what a busy host inflates least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([xcs_opt, path, "--mlir-timing", "--mlir-disable-threading", "-p", pipeline, "-o", os.devnull],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"xcs-opt failed on {path}:\n{proc.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    m = re.search(r"^\s*([0-9.]+) \([^)]*\)\s+" + re.escape(timing_name) + r"\s*$", proc.stderr, re.M)
    if not m:
        m = re.search(r"([0-9.]+)\s*\(\s*[0-9.]+%\)\s+" + re.escape(timing_name), proc.stderr)
    if not m:
        sys.exit(f"no '{timing_name}' line in the timing report:\n{proc.stderr[-2000:]}")
    return float(m.group(1)), wall, cpu


def best(xcs_opt: str, path: str, pipeline: str, name: str, runs: int) -> tuple[float, float, float]:
    results = [run_once(xcs_opt, path, pipeline, name) for _ in range(runs)]
    return min(r[0] for r in results), min(r[1] for r in results), min(r[2] for r in results)


def peak_rss_mib(xcs_opt: str, path: str, pipeline: str) -> float:
    """Peak resident memory of one xcs-opt run, measured in a fresh child of a fresh process."""
    code = ("import resource,subprocess,sys,os;"
            "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL,check=True);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, xcs_opt, path, "-p", pipeline, "-o", os.devnull],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xcs-opt", default=str(ROOT / "target" / "release" / "xcs-opt"))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--meshes", default=",".join(MESHES))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--gen", type=int, help="write a module of about this many ops and exit")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--fail-on-miss", action="store_true", help=f"exit 3 if {GOAL_SIZE} on 2x4 takes more than {GOAL_SECONDS} s")
    args = ap.parse_args()
    if args.gen:
        text = gen_module(args.gen)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            Path(args.output).write_text(text)
        return 0
    if not Path(args.xcs_opt).exists():
        sys.exit(f"{args.xcs_opt} not found: cargo build --release -p xcs --bin xcs-opt")
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    meshes = [m.strip() for m in args.meshes.split(",") if m.strip()]
    rows = []
    print(f"{'size':>5} {'ops':>6} {'mesh':>4} {'auto-shard s':>12} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'cse s':>8} {'ratio':>7} {'us/op':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            n = SIZES.get(size) or int(size)
            text = gen_module(n)
            path = os.path.join(tmp, f"stack_{size}.mlir")
            Path(path).write_text(text)
            ops = count_ops(text)
            peer, _, _ = best(args.xcs_opt, path, "builtin.module(cse)", "CSE", args.runs)
            for mesh in meshes:
                pipeline = f"builtin.module(auto-shard{{{MESHES[mesh]}}})"
                pass_s, wall, cpu = best(args.xcs_opt, path, pipeline, "AutoShard", args.runs)
                rss = peak_rss_mib(args.xcs_opt, path, pipeline)
                row = {"size": size, "ops": ops, "mesh": mesh, "auto_shard_s": pass_s, "wall_s": wall, "cpu_s": cpu,
                       "peak_rss_mib": rss, "cse_s": peer, "ratio_vs_cse": pass_s / max(peer, 1e-9),
                       "us_per_op": pass_s / ops * 1e6}
                rows.append(row)
                print(f"{size:>5} {ops:>6} {mesh:>4} {pass_s:>12.4f} {wall:>8.3f} {cpu:>8.3f} {rss:>9.1f} {peer:>8.4f} "
                      f"{row['ratio_vs_cse']:>7.1f} {row['us_per_op']:>7.1f}")
    missed = False
    for mesh in meshes:
        per = {r["size"]: r for r in rows if r["mesh"] == mesh}
        if "1k" in per and len(per) > 1:
            last = per[sizes[-1]]
            print(f"growth on {mesh}: time per op at {sizes[-1]} / at 1k = {last['us_per_op'] / per['1k']['us_per_op']:.2f}")
        if mesh == "2x4" and GOAL_SIZE in per:
            got = per[GOAL_SIZE]["auto_shard_s"]
            ok = got <= GOAL_SECONDS
            missed |= not ok
            print(f"goal: {GOAL_SIZE} ops on 2x4 in <= {GOAL_SECONDS} s: {got:.3f} s ({'met' if ok else 'MISSED'})")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 3 if missed and args.fail_on_miss else 0


if __name__ == "__main__":
    sys.exit(main())
