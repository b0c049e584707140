#!/usr/bin/env python3
"""The cost benchmark (issue 6, "Speed"): `xcs-opt --cost-annotate` on a 12-layer transformer
written in the tensor dialect with symbolic `batch_size`/`seq_len`, and `xcs-cost resolve` on
trees of 1,000 and 10,000 kernels; the resolve time should grow linearly with the number of
kernels (the 10k/1k ratio is printed; about 10 is linear).

The transformer (GPT-2 small shapes: 768 wide, 12 heads of 64, MLP 3072) is one `@layer`
function per layer (each with its own weights as arguments), called in sequence by `@model`;
the activations are `tensor<?x?x768xf32>` named `["batch_size", "seq_len", 768]` by
`cost.dims`. A layer: layer_norm, q/k/v projections with bias, reshape and transpose to heads,
q @ k^T, a scale, softmax, @ v, back to [batch_size, seq_len, 768], the output projection,
a residual add, layer_norm, the MLP (matmul, bias, gelu (tanh form), matmul, bias) and a
residual add.

The kernel trees are generated JSON directories (`kernel_cost_schema.json`): N composite
kernels `K0` ... `K{N-1}` in a binary tree (K{i}'s children are K{2i+1} and K{2i+2}, each bound
to the parent's `n` or to `config.n_embd`, the second with a count `config.num_hidden_layers`
at the top), each with a matmul and a mul leaf child, plus the two leaves.

Usage (from the repository root):
    cargo build --release -p xcs --bins
    python3 tools/bench/bench_cost.py                      # best of 3
    python3 tools/bench/bench_cost.py --runs 1 --json target/bench/cost.json
    python3 tools/bench/bench_cost.py --gen-model -o model.mlir   # just write the module
Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

D, H, HD, F = 768, 12, 64, 3072
ACT = "tensor<?x?x768xf32>"
ACT_DIMS = '{cost.dims = ["batch_size", "seq_len", 768]}'


def gen_model(layers: int) -> str:
    """The transformer module text."""
    heads = "tensor<?x?x12x64xf32>"
    theads = "tensor<?x12x?x64xf32>"
    kt = "tensor<?x12x64x?xf32>"
    scores = "tensor<?x12x?x?xf32>"
    out: list[str] = []
    w = out.append
    wargs = [
        ("ln1_g", f"tensor<{D}xf32>"), ("ln1_b", f"tensor<{D}xf32>"),
        ("wq", f"tensor<{D}x{D}xf32>"), ("bq", f"tensor<{D}xf32>"),
        ("wk", f"tensor<{D}x{D}xf32>"), ("bk", f"tensor<{D}xf32>"),
        ("wv", f"tensor<{D}x{D}xf32>"), ("bv", f"tensor<{D}xf32>"),
        ("wo", f"tensor<{D}x{D}xf32>"), ("bo", f"tensor<{D}xf32>"),
        ("ln2_g", f"tensor<{D}xf32>"), ("ln2_b", f"tensor<{D}xf32>"),
        ("w1", f"tensor<{D}x{F}xf32>"), ("b1", f"tensor<{F}xf32>"),
        ("w2", f"tensor<{F}x{D}xf32>"), ("b2", f"tensor<{D}xf32>"),
    ]
    sig = ", ".join(f"%{n}: {t}" for n, t in wargs)
    wtypes = ", ".join(t for _, t in wargs)
    for l in range(layers):
        w(f"func.func private @layer{l}(%x: {ACT} {ACT_DIMS}, {sig}) -> {ACT} {{\n")
        w(f"  %h = tensor.layer_norm %x, %ln1_g, %ln1_b {{axis = 2 : i64, epsilon = 1.0e-05 : f32}} : ({ACT}, tensor<{D}xf32>, tensor<{D}xf32>) -> {ACT}\n")
        for p in "qkv":
            w(f"  %{p}0 = tensor.matmul %h, %w{p} : ({ACT}, tensor<{D}x{D}xf32>) -> {ACT}\n")
            w(f"  %{p}1 = tensor.add %{p}0, %b{p} : ({ACT}, tensor<{D}xf32>) -> {ACT}\n")
            w(f"  %{p}2 = tensor.reshape %{p}1 : ({ACT}) -> {heads}\n")
        w(f"  %q3 = tensor.transpose %q2 {{perm = array<i64: 0, 2, 1, 3>}} : ({heads}) -> {theads}\n")
        w(f"  %v3 = tensor.transpose %v2 {{perm = array<i64: 0, 2, 1, 3>}} : ({heads}) -> {theads}\n")
        w(f"  %k3 = tensor.transpose %k2 {{perm = array<i64: 0, 2, 3, 1>}} : ({heads}) -> {kt}\n")
        w(f"  %s0 = tensor.matmul %q3, %k3 : ({theads}, {kt}) -> {scores}\n")
        w("  %scale = tensor.constant {value = dense<0.125> : tensor<f32>} : tensor<f32>\n")
        w(f"  %s1 = tensor.mul %s0, %scale : ({scores}, tensor<f32>) -> {scores}\n")
        w(f"  %p = tensor.softmax %s1 {{axis = 3 : i64}} : {scores}\n")
        w(f"  %a0 = tensor.matmul %p, %v3 : ({scores}, {theads}) -> {theads}\n")
        w(f"  %a1 = tensor.transpose %a0 {{perm = array<i64: 0, 2, 1, 3>}} : ({theads}) -> {heads}\n")
        w(f"  %a2 = tensor.reshape %a1 : ({heads}) -> {ACT}\n")
        w(f"  %o0 = tensor.matmul %a2, %wo : ({ACT}, tensor<{D}x{D}xf32>) -> {ACT}\n")
        w(f"  %o1 = tensor.add %o0, %bo : ({ACT}, tensor<{D}xf32>) -> {ACT}\n")
        w(f"  %r1 = tensor.add %x, %o1 : {ACT}\n")
        w(f"  %h2 = tensor.layer_norm %r1, %ln2_g, %ln2_b {{axis = 2 : i64, epsilon = 1.0e-05 : f32}} : ({ACT}, tensor<{D}xf32>, tensor<{D}xf32>) -> {ACT}\n")
        w(f"  %m0 = tensor.matmul %h2, %w1 : ({ACT}, tensor<{D}x{F}xf32>) -> tensor<?x?x{F}xf32>\n")
        w(f"  %m1 = tensor.add %m0, %b1 : (tensor<?x?x{F}xf32>, tensor<{F}xf32>) -> tensor<?x?x{F}xf32>\n")
        w(f"  %m2 = tensor.gelu %m1 {{approximate = \"tanh\"}} : tensor<?x?x{F}xf32>\n")
        w(f"  %m3 = tensor.matmul %m2, %w2 : (tensor<?x?x{F}xf32>, tensor<{F}x{D}xf32>) -> {ACT}\n")
        w(f"  %m4 = tensor.add %m3, %b2 : ({ACT}, tensor<{D}xf32>) -> {ACT}\n")
        w(f"  %r2 = tensor.add %r1, %m4 : {ACT}\n")
        w(f"  return %r2 : {ACT}\n}}\n")
    # @model: every layer's weights are arguments.
    margs = [f"%x: {ACT} {ACT_DIMS}"]
    for l in range(layers):
        margs += [f"%l{l}_{n}: {t}" for n, t in wargs]
    w(f"func.func @model({', '.join(margs)}) -> {ACT} {{\n")
    prev = "%x"
    for l in range(layers):
        ops = ", ".join(f"%l{l}_{n}" for n, _ in wargs)
        w(f"  %y{l} = call @layer{l}({prev}, {ops}) : ({ACT}, {wtypes}) -> {ACT}\n")
        prev = f"%y{l}"
    w(f"  return {prev} : {ACT}\n}}\n")
    return "".join(out)


def gen_tree(n: int, dir: Path) -> None:
    """A directory of n composite kernels in a binary tree, plus two leaves."""
    if dir.exists():
        shutil.rmtree(dir)
    dir.mkdir(parents=True)
    leaves = [
        {"kernel_name": "torch.matmul", "init_params": [], "forward_params": ["M", "K", "N"],
         "flops": "2 * M * K * N", "memory_read": "(M * K + K * N) * bytes", "memory_write": "M * N * bytes"},
        {"kernel_name": "torch.mul", "init_params": [], "forward_params": ["num_elements"],
         "flops": "num_elements", "memory_read": "2 * num_elements * bytes", "memory_write": "num_elements * bytes"},
    ]
    for k in leaves:
        (dir / f"{k['kernel_name']}.json").write_text(json.dumps(k, indent=2) + "\n")
    for i in range(n):
        children = {
            "proj": {"kernel": "torch.matmul", "bindings": {"M": "batch_size*seq_len", "K": "n", "N": "n"}, "count": 1},
            "scale": {"kernel": "torch.mul", "bindings": {"num_elements": "batch_size*seq_len*n"}, "count": 1},
        }
        for j, (c, bind) in enumerate([(2 * i + 1, "n"), (2 * i + 2, "config.n_embd")]):
            if c < n:
                count: int | str = "config.num_hidden_layers" if i == 0 and j == 1 else 1
                children[f"sub{j}"] = {"kernel": f"K{c}", "bindings": {"n": bind}, "count": count}
        k = {"kernel_name": f"K{i}", "init_params": ["n"], "forward_params": [], "children": children}
        (dir / f"K{i}.json").write_text(json.dumps(k, indent=2) + "\n")
    # The root binds n through a wrapper so the tree's root has no parameters.
    top = {"kernel_name": "Root", "init_params": [], "forward_params": [],
           "children": {"body": {"kernel": "K0", "bindings": {"n": "config.n_embd"}, "count": 1}}}
    (dir / "Root.json").write_text(json.dumps(top, indent=2) + "\n")


def best(cmd: list[str], runs: int, timing_re: str | None = None) -> tuple[float, float | None]:
    """Best wall time of `runs` runs, and the best pass time from --mlir-timing if asked."""
    walls, passes = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr[-3000:]}")
        if timing_re:
            m = re.search(timing_re, p.stderr, re.M)
            if m:
                passes.append(float(m.group(1)))
    return min(walls), (min(passes) if passes else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xcs-opt", default=str(ROOT / "target/release/xcs-opt"))
    ap.add_argument("--xcs-cost", default=str(ROOT / "target/release/xcs-cost"))
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--sizes", default="1000,10000", help="kernel counts of the resolve trees")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cache", default=str(ROOT / "target/bench/cost"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--gen-model", action="store_true", help="only write the transformer module (-o FILE)")
    ap.add_argument("-o", default="-")
    args = ap.parse_args()

    if args.gen_model:
        text = gen_model(args.layers)
        if args.o == "-":
            sys.stdout.write(text)
        else:
            Path(args.o).write_text(text)
        return 0
    for tool in (args.xcs_opt, args.xcs_cost):
        if not Path(tool).exists():
            print(f"{tool} not found; build it first: cargo build --release -p xcs --bins", file=sys.stderr)
            return 2

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    results: dict = {"runs": args.runs}

    # 1. cost-annotate on the transformer.
    model = cache / f"transformer_{args.layers}.mlir"
    model.write_text(gen_model(args.layers))
    ops = sum(1 for line in model.read_text().splitlines() if "=" in line and "func.func" not in line)
    report = cache / "transformer_report.json"
    cmd = [args.xcs_opt, str(model), "--cost-annotate", f"--cost-report={report}", "-o", "/dev/null", "--mlir-timing"]
    wall, pt = best(cmd, args.runs, r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+CostAnnotate$")
    tree = json.loads(report.read_text())
    model_node = tree["children"]["model"]
    print(f"cost-annotate, {args.layers}-layer transformer ({ops} ops, symbolic batch_size/seq_len):")
    print(f"  xcs-opt wall {wall * 1e3:8.1f} ms   pass {pt * 1e3 if pt is not None else float('nan'):8.1f} ms")
    print(f"  model flops = {model_node['flops']}")
    results["annotate"] = {"layers": args.layers, "ops": ops, "wall_s": wall, "pass_s": pt, "flops": model_node["flops"]}

    # 2. xcs-cost resolve on kernel trees.
    print("xcs-cost resolve on kernel trees:")
    times = {}
    for n in [int(s) for s in args.sizes.split(",")]:
        d = cache / f"tree_{n}"
        gen_tree(n, d)
        out = cache / f"tree_{n}.json"
        wall, _ = best([args.xcs_cost, "resolve", "--costs", str(d), "--root", "Root", "-o", str(out)], args.runs)
        nodes = sum(1 for _ in re.finditer(r'"kernel":', out.read_text())) + 1
        times[n] = wall
        print(f"  {n:6d} kernels ({nodes:6d} tree nodes): {wall * 1e3:8.1f} ms")
    results["resolve"] = {str(k): v for k, v in times.items()}
    ks = sorted(times)
    if len(ks) >= 2:
        ratio = times[ks[-1]] / times[ks[0]]
        print(f"  ratio {ks[-1]}/{ks[0]}: {ratio:.2f} (kernels x{ks[-1] / ks[0]:.0f}; linear growth is about that)")
        results["resolve_ratio"] = ratio
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
