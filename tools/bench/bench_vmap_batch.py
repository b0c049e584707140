#!/usr/bin/env python3
"""The vmap-batch benchmark (issue 4, "Speed"): `xcs-opt --vmap-batch` on modules of 1k, 10k and
100k functions; the pass time must grow linearly (goal: time(100k) / time(10k) <= 12).

The generated modules look like traced batched programs, each function holding one `xcs.vmap`:
- 55% a tensor-only body (an MLP step: matmul against shared weights, bias, gelu, softmax or
  layer_norm, a reduction), batched at axis 0 or 1, results at axis 0 or 1;
- 15% a body calling one of the module's tensor helpers (1 per 25 functions, classified
  `xcs.class = "tensor"` as `classify` would): the pass makes one batched clone per helper,
  batch size and mask, reused by every caller with that pattern;
- 15% two nested maps (pairwise distances);
- 15% an orchestration body (`xcs.format` + `xcs.llm` on strings): an `xcs.parallel_map`.
Deterministic for a given size and seed. Python 3.11, standard library only. This is a separate
script from `bench_classify.py` (the classify benchmark) and `bench_ir.py` (the IR foundation).

Usage (from the repository root):
    cargo build --release -p xcs --bin xcs-opt
    python3 tools/bench/bench_vmap_batch.py                    # 1k, 10k, 100k; best of 3
    python3 tools/bench/bench_vmap_batch.py --sizes 1k,10k --runs 1
    python3 tools/bench/bench_vmap_batch.py --json target/bench/vmap_batch.json
    python3 tools/bench/bench_vmap_batch.py --gen 1000 -o m.mlir   # just write a module

Measured per size: the whole `xcs-opt F --vmap-batch -o /dev/null` (wall, best of N) and the
pass alone (the `VmapBatch` line of `--mlir-timing`, best of N). The ratio line compares 100k
with 10k; exit 3 with `--fail-on-miss` when the pass ratio is above the goal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GOAL_RATIO = 12.0
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
PIPELINE_FLAG = "--vmap-batch"


def t(shape: list[int], elem: str = "f32") -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + elem + ">"


def tensor_map(rng: random.Random, name: str) -> list[str]:
    """A function with a tensor-only map: x [B, K] (or [K, B]) through a small MLP step."""
    b, k, n = rng.choice([4, 8, 16]), rng.choice([8, 16]), rng.choice([8, 16])
    ax = rng.choice([0, 1])
    out_ax = rng.choice([0, 1])
    xs = [b, k] if ax == 0 else [k, b]
    rs = [b, n] if out_ax == 0 else [n, b]
    norm = rng.choice(["softmax", "layer_norm"])
    red = rng.choice(["sum", "max", "mean"])
    lines = [
        f"func.func @{name}(%x: {t(xs)}, %w: {t([k, n])}, %bias: {t([n])}, %g: {t([n])}) -> ({t(rs)}, {t([b])}) {{",
        f"  %r:2 = xcs.vmap %x, %w, %bias, %g {{in_axes = array<i64: {ax}, -1, -1, -1>, out_axes = array<i64: {out_ax}, 0>}}"
        f" : ({t(xs)}, {t([k, n])}, {t([n])}, {t([n])}) -> ({t(rs)}, {t([b])}) {{",
        f"  ^bb0(%e: {t([k])}, %v: {t([k, n])}, %c: {t([n])}, %gg: {t([n])}):",
        f"    %row = tensor.reshape %e : ({t([k])}) -> {t([1, k])}",
        f"    %m = tensor.matmul %row, %v : ({t([1, k])}, {t([k, n])}) -> {t([1, n])}",
        f"    %o = tensor.reshape %m : ({t([1, n])}) -> {t([n])}",
        f"    %a = tensor.add %o, %c : {t([n])}",
        f"    %h = tensor.gelu %a {{approximate = \"tanh\"}} : {t([n])}",
    ]
    if norm == "softmax":
        lines.append(f"    %s = tensor.softmax %h {{axis = 0 : i64}} : {t([n])}")
    else:
        lines.append(f"    %s = tensor.layer_norm %h, %gg, %c {{axis = 0 : i64, epsilon = 1.0e-05 : f32}}"
                     f" : ({t([n])}, {t([n])}, {t([n])}) -> {t([n])}")
    lines += [
        f"    %q = tensor.reduce %s {{axes = array<i64: 0>, keepdims = false, kind = \"{red}\"}} : ({t([n])}) -> {t([])}",
        f"    xcs.yield %s, %q : ({t([n])}, {t([])}) -> ()",
        "  }",
        f"  return %r#0, %r#1 : {t(rs)}, {t([b])}",
        "}",
    ]
    return lines


def helper(name: str) -> list[str]:
    """A tensor helper (what classify marks "tensor"): x [8] with weights [8, 8]."""
    return [
        f"func.func private @{name}(%x: {t([8])}, %w: {t([8, 8])}) -> {t([8])} attributes {{xcs.class = \"tensor\"}} {{",
        f"  %r = tensor.reshape %x : ({t([8])}) -> {t([1, 8])}",
        f"  %m = tensor.matmul %r, %w : ({t([1, 8])}, {t([8, 8])}) -> {t([1, 8])}",
        f"  %o = tensor.reshape %m : ({t([1, 8])}) -> {t([8])}",
        f"  %a = tensor.tanh %o : {t([8])}",
        f"  return %a : {t([8])}",
        "}",
    ]


def call_map(rng: random.Random, name: str, callee: str) -> list[str]:
    b = rng.choice([4, 8])
    return [
        f"func.func @{name}(%x: {t([b, 8])}, %w: {t([8, 8])}) -> {t([b, 8])} {{",
        f"  %r = xcs.vmap %x, %w {{in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}} : ({t([b, 8])}, {t([8, 8])}) -> {t([b, 8])} {{",
        f"  ^bb0(%e: {t([8])}, %v: {t([8, 8])}):",
        f"    %y = func.call @{callee}(%e, %v) : ({t([8])}, {t([8, 8])}) -> {t([8])}",
        f"    %z = tensor.mul %y, %e : {t([8])}",
        f"    xcs.yield %z : {t([8])}",
        "  }",
        f"  return %r : {t([b, 8])}",
        "}",
    ]


def nested_map(rng: random.Random, name: str) -> list[str]:
    bx, by, d = rng.choice([4, 8]), rng.choice([4, 8]), rng.choice([4, 8])
    return [
        f"func.func @{name}(%x: {t([bx, d])}, %y: {t([by, d])}) -> {t([bx, by])} {{",
        f"  %r = xcs.vmap %x, %y {{in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}} : ({t([bx, d])}, {t([by, d])}) -> {t([bx, by])} {{",
        f"  ^bb0(%a: {t([d])}, %ys: {t([by, d])}):",
        f"    %i = xcs.vmap %ys {{in_axes = array<i64: 0>, out_axes = array<i64: 0>}} : ({t([by, d])}) -> {t([by])} {{",
        f"    ^bb0(%b: {t([d])}):",
        f"      %df = tensor.sub %a, %b : {t([d])}",
        f"      %sq = tensor.mul %df, %df : {t([d])}",
        f"      %n = tensor.reduce %sq {{axes = array<i64: 0>, keepdims = false, kind = \"sum\"}} : ({t([d])}) -> {t([])}",
        f"      xcs.yield %n : {t([])}",
        "    }",
        f"    xcs.yield %i : {t([by])}",
        "  }",
        f"  return %r : {t([bx, by])}",
        "}",
    ]


def orchestration_map(rng: random.Random, name: str) -> list[str]:
    b = rng.choice([2, 4, 8])
    s = t([b], "!xcs.str")
    return [
        f"func.func @{name}(%p: {s}, %x: {t([b, 4])}) -> {s} {{",
        f"  %r = xcs.vmap %p, %x {{in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>}} : ({s}, {t([b, 4])}) -> {s} {{",
        f"  ^bb0(%q: !xcs.str, %e: {t([4])}):",
        f"    %sm = tensor.softmax %e {{axis = 0 : i64}} : {t([4])}",
        f"    %f = xcs.format %q, %sm {{template = \"{{}} with scores {{}}\"}} : (!xcs.str, {t([4])}) -> !xcs.str",
        f"    %a = xcs.llm %f {{model = \"m\", provider = \"echo\"}} : !xcs.str",
        "    xcs.yield %a : !xcs.str",
        "  }",
        f"  return %r : {s}",
        "}",
    ]


def generate(n: int, seed: int = 1) -> str:
    """A module with `n` functions (helpers included)."""
    rng = random.Random(seed * 1_000_003 + n)
    n_help = max(1, n // 25)
    out = ["module {"]
    helpers = [f"layer_{i}" for i in range(n_help)]
    for h in helpers:
        out += helper(h)
    for i in range(n - n_help):
        r = rng.random()
        name = f"f{i}"
        if r < 0.55:
            out += tensor_map(rng, name)
        elif r < 0.70:
            out += call_map(rng, name, rng.choice(helpers))
        elif r < 0.85:
            out += nested_map(rng, name)
        else:
            out += orchestration_map(rng, name)
    out.append("}")
    return "\n".join(out) + "\n"


def count_ops(text: str) -> int:
    return sum(1 for line in text.splitlines() if re.match(r"\s*(%[\w#:]+(, %[\w#:]+)* = )?[a-z_]+\.[a-z_.]+", line.strip()))


def run_once(xcs_opt: str, path: Path, timing: bool) -> tuple[float, float | None]:
    cmd = [xcs_opt, str(path), PIPELINE_FLAG, "-o", os.devnull]
    if timing:
        cmd.append("--mlir-timing")
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"xcs-opt failed on {path}:\n{r.stderr[-2000:]}")
    pass_time = None
    if timing:
        m = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+VmapBatch\s*$", r.stderr, re.M)
        if m:
            pass_time = float(m.group(1))
    return wall, pass_time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xcs-opt", default=str(ROOT / "target" / "release" / "xcs-opt"))
    ap.add_argument("--sizes", default="1k,10k,100k")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default=str(ROOT / "target" / "bench"))
    ap.add_argument("--json")
    ap.add_argument("--fail-on-miss", action="store_true")
    ap.add_argument("--gen", type=int, help="only write a module with this many functions (to -o)")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()

    if a.gen:
        text = generate(a.gen, a.seed)
        if a.output:
            Path(a.output).write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    if not os.access(a.xcs_opt, os.X_OK):
        print(f"{a.xcs_opt} not found; build it: cargo build --release -p xcs --bin xcs-opt", file=sys.stderr)
        return 2
    cache = Path(a.cache)
    cache.mkdir(parents=True, exist_ok=True)
    me = hashlib_of(Path(__file__))
    results = []
    print(f"{'size':>6} {'functions':>10} {'ops':>10} {'MB':>7} {'whole (s)':>10} {'pass (s)':>10} {'pass us/fn':>11}")
    for label in a.sizes.split(","):
        n = SIZES.get(label) or int(label)
        path = cache / f"vmap_batch_{n}_{a.seed}_{me}.mlir"
        if not path.exists():
            path.write_text(generate(n, a.seed))
        text = path.read_text()
        ops = count_ops(text)
        mb = len(text) / 1e6
        del text
        whole = min(run_once(a.xcs_opt, path, False)[0] for _ in range(a.runs))
        passes = [run_once(a.xcs_opt, path, True)[1] for _ in range(a.runs)]
        pt = min(p for p in passes if p is not None) if any(p is not None for p in passes) else None
        results.append({"size": label, "functions": n, "ops": ops, "mb": round(mb, 1), "whole_s": whole, "pass_s": pt})
        pt_s = f"{pt:.4f}" if pt is not None else "-"
        per = f"{pt / n * 1e6:.2f}" if pt is not None else "-"
        print(f"{label:>6} {n:>10} {ops:>10} {mb:>7.1f} {whole:>10.3f} {pt_s:>10} {per:>11}")
    by = {r["functions"]: r for r in results}
    code = 0
    if 10_000 in by and 100_000 in by and by[10_000]["pass_s"] and by[100_000]["pass_s"]:
        ratio = by[100_000]["pass_s"] / by[10_000]["pass_s"]
        whole_ratio = by[100_000]["whole_s"] / by[10_000]["whole_s"]
        ok = ratio <= GOAL_RATIO
        print(f"pass time 100k/10k = {ratio:.2f} (goal <= {GOAL_RATIO:g}: {'met' if ok else 'MISSED'}); whole run {whole_ratio:.2f}")
        if not ok and a.fail_on_miss:
            code = 3
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps({"results": results}, indent=2) + "\n")
    return code


def hashlib_of(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()[:10]


if __name__ == "__main__":
    sys.exit(main())
