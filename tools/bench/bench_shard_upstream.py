#!/usr/bin/env python3
"""XCS's auto-shard + shard-partition against upstream MLIR's (issue 18, item 7): on the same
programs, given the same argument and result shardings, upstream's `mlir-opt
--sharding-propagation --shard-partition` (MLIR 22) and XCS's `xcs-opt -p
'builtin.module(auto-shard{...},shard-partition)'`; both SPMD programs are priced with XCS's
cost model (../shared/shard-cost-model.md: compute = the FLOPs `cost-annotate` counts for each
op at its local shape / peak-flops, collectives by the table of 3.1 with the per-device input
buffer) and printed with the collectives each emitted.

Both tools get only what a user gives them: `shard.shard` on the annotated arguments and the
result's annotation (`annotate_for_users` before the return). Upstream's propagation chooses
the rest by traversal order; `auto-shard` (given the grid's cost parameters as its options
`axes alpha bandwidth peak-flops`) chooses it by the model, and its plan's `total_time_s`
(--shard-report) is printed next to the repriced SPMD program, which must agree (within
AGREEMENT; the benchmark exits 1 if not). Upstream has no `tensor.matmul`/`tensor.tanh`, so
its program is the same computation in linalg (`linalg.matmul` after a zero `linalg.fill`,
`linalg.generic` with `math.tanh`); to price upstream's output, each linalg op becomes the XCS
op of the same kind and local shape (the fills, `tensor.empty` and the `scf.if` upstream adds
for the fill are not priced: XCS's matmul has no init).

Workloads (f32, a 1-D grid of --devices, default 4, unless said; "expected": the plan
auto-shard found on the default sizes, proven optimal, 2026-11-27):
  mlp     y = tanh(x @ W1) @ W2; W1 by columns, W2 by rows, y replicated, x free. Expected:
          Megatron (hidden by columns, one all_reduce).
  ksplit  y = x @ W with x split by columns (K), W by rows (K), y wanted by rows. Expected:
          local matmuls, the pending sum resolved by one reduce_scatter.
  dp      y = tanh(x @ W1) @ W2; x by rows, the weights free, y by rows. Expected: every
          value by rows, no collective.
  ew      y = tanh(x) @ W; x by rows, W by columns, y by rows. Expected: tanh on rows, its
          result gathered (smaller than W), the matmul by columns, y moved to rows (all_to_all).
  mlp2d   the mlp on the 2x4 grid dp x tp of the issue's example (dp: 20 us, 12.5 GB/s; tp:
          5 us, 100 GB/s): x and y by rows along dp, W1 by columns and W2 by rows along tp.
          Expected: Megatron along tp inside data parallel along dp (one all_reduce along tp).

Usage (from the repository root):
    cargo build -p xcs --bin xcs-opt
    python3 tools/bench/bench_shard_upstream.py [--xcs-opt target/debug/xcs-opt] [--json FILE]
Prints, per workload, the modelled time of each plan (compute + communication), the
collectives each emitted, auto-shard's own total_time_s and the ratio upstream / XCS.
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"
UPSTREAM_PIPELINE = "builtin.module(func.func(sharding-propagation,shard-partition))"
AGREEMENT = 1e-9  # relative: auto-shard's total_time_s against the repriced SPMD program
COLLECTIVES = ("all_gather", "all_reduce", "reduce_scatter", "all_to_all", "all_slice", "broadcast")


class BenchError(Exception):
    """A tool failed or printed something this benchmark does not understand."""


@dataclass
class Mesh:
    """A grid with the cost model's parameters per axis (defaults: a 1-D grid of 4 with the
    issue's example `dp` axis)."""
    shape: tuple[int, ...] = (4,)
    alpha: tuple[float, ...] = (20e-6,)
    bandwidth: tuple[float, ...] = (12.5e9,)
    peak_flops: float = 1e14
    axes: tuple[str, ...] = ("dp",)

    def text(self) -> str:
        return "x".join(str(n) for n in self.shape)

    def auto_shard_options(self) -> str:
        """The same model parameters as `auto-shard` options (the grid is the module's)."""
        return (f"axes={','.join(self.axes)} alpha={','.join(repr(a) for a in self.alpha)} "
                f"bandwidth={','.join(repr(b) for b in self.bandwidth)} peak-flops={self.peak_flops!r}")

    def describe(self) -> str:
        return (f"grid {self.text()}, alpha={','.join(f'{a:g}' for a in self.alpha)} s, "
                f"bandwidth={','.join(f'{b:g}' for b in self.bandwidth)} B/s, peak-flops={self.peak_flops:g}")


# The 2-D grid of the issue's example: dp (2 devices, slow links) x tp (4, fast).
MESH_2D = Mesh((2, 4), (20e-6, 5e-6), (12.5e9, 100e9), axes=("dp", "tp"))


# ---------------------------------------------------------------------------- workloads

@dataclass
class Op:
    """One op of a workload: `kind` in matmul/tanh, its result name, operands and full shape."""
    kind: str
    result: str
    operands: list[str]
    shape: tuple[int, int]


@dataclass
class Workload:
    """A program and the constraints both tools get: the argument shardings (None: free) and
    the result's sharding (split axes text, e.g. "[[0]]")."""
    name: str
    args: list[tuple[str, tuple[int, int], str | None]]  # name, shape, sharding (None: unannotated)
    ops: list[Op]
    result_sharding: str
    mesh: Mesh | None = None  # None: the run's 1-D grid
    shapes: dict[str, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self):
        self.shapes = {a: s for a, s, _ in self.args} | {o.result: o.shape for o in self.ops}


def workloads(b: int = 256, d: int = 1024, h: int = 4096, k: int = 8192) -> list[Workload]:
    rows, cols, rep = "[[0]]", "[[], [0]]", "[[]]"
    mlp = [Op("matmul", "h", ["x", "w1"], (b, h)), Op("tanh", "g", ["h"], (b, h)), Op("matmul", "y", ["g", "w2"], (b, d))]
    dp = [Op("matmul", "h", ["x", "w1"], (b * 4, h)), Op("tanh", "g", ["h"], (b * 4, h)),
          Op("matmul", "y", ["g", "w2"], (b * 4, d))]
    return [
        Workload("mlp", [("x", (b, d), None), ("w1", (d, h), cols), ("w2", (h, d), rows)], mlp, rep),
        Workload("ksplit", [("x", (d, k), cols), ("w", (k, d), rows)], [Op("matmul", "y", ["x", "w"], (d, d))], rows),
        Workload("dp", [("x", (b * 4, d), rows), ("w1", (d, h), None), ("w2", (h, d), None)], dp, rows),
        Workload("ew", [("x", (b, d), rows), ("w", (d, d), cols)],
                 [Op("tanh", "g", ["x"], (b, d)), Op("matmul", "y", ["g", "w"], (b, d))], rows),
        Workload("mlp2d", [("x", (b, d), "[[0]]"), ("w1", (d, h), "[[], [1]]"), ("w2", (h, d), "[[1]]")],
                 mlp, "[[0]]", MESH_2D),
    ]


def ty(shape: tuple[int, int]) -> str:
    return f"tensor<{shape[0]}x{shape[1]}xf32>"


def annotations(w: Workload, lines: list[str]) -> dict[str, str]:
    """Appends the argument annotations (the ones given) to `lines`; returns each argument's
    SSA name as the ops read it."""
    names: dict[str, str] = {}
    for a, s, sharding in w.args:
        names[a] = f"%{a}"
        if sharding is not None:
            lines.append(f"  %s_{a} = shard.sharding @mesh split_axes = {sharding} : !shard.sharding")
            lines.append(f"  %{a}_s = shard.shard %{a} to %s_{a} : {ty(s)}")
            names[a] = f"%{a}_s"
    return names


def result_annotation(w: Workload, value: str, lines: list[str]) -> None:
    """Appends the result's annotation (`annotate_for_users` before the return) and the return."""
    t = ty(w.ops[-1].shape)
    lines.append(f"  %s_y = shard.sharding @mesh split_axes = {w.result_sharding} : !shard.sharding")
    lines.append(f"  %y_out = shard.shard {value} to %s_y annotate_for_users : {t}")
    lines.append(f"  return %y_out : {t}")
    lines.append("}")


def xcs_program(w: Workload, grid: str) -> str:
    """The XCS program with the same argument and result annotations as upstream's (the
    constraints `auto-shard` plans under; it chooses every other sharding)."""
    lines = [f"shard.grid @mesh(shape = {grid})"]
    params = ", ".join(f'%{a}: {ty(s)} {{xcs.name = "{a}"}}' for a, s, _ in w.args)
    lines.append(f'func.func @{w.name}({params}) -> ({ty(w.ops[-1].shape)} {{xcs.name = "y"}}) {{')
    names = annotations(w, lines)
    for o in w.ops:
        ins = [names[x] for x in o.operands]
        if o.kind == "matmul":
            a, b = (w.shapes[x] for x in o.operands)
            lines.append(f"  %{o.result} = tensor.matmul {ins[0]}, {ins[1]} : ({ty(a)}, {ty(b)}) -> {ty(o.shape)}")
        else:
            lines.append(f"  %{o.result} = tensor.{o.kind} {ins[0]} : {ty(o.shape)}")
        names[o.result] = f"%{o.result}"
    result_annotation(w, names[w.ops[-1].result], lines)
    return "\n".join(lines) + "\n"


def upstream_program(w: Workload, grid: str) -> str:
    """The same computation in linalg, with the same argument and result annotations."""
    lines = ["#map = affine_map<(d0, d1) -> (d0, d1)>", f"shard.grid @mesh(shape = {grid})"]
    params = ", ".join(f"%{a}: {ty(s)}" for a, s, _ in w.args)
    lines.append(f"func.func @{w.name}({params}) -> {ty(w.ops[-1].shape)} {{")
    lines.append("  %zero = arith.constant 0.0 : f32")
    names = annotations(w, lines)
    for o in w.ops:
        ins = [names[x] for x in o.operands]
        r = o.result
        lines.append(f"  %{r}_e = tensor.empty() : {ty(o.shape)}")
        if o.kind == "matmul":
            a, b = (w.shapes[x] for x in o.operands)
            lines.append(f"  %{r}_f = linalg.fill ins(%zero : f32) outs(%{r}_e : {ty(o.shape)}) -> {ty(o.shape)}")
            lines.append(f"  %{r} = linalg.matmul ins({ins[0]}, {ins[1]} : {ty(a)}, {ty(b)}) "
                         f"outs(%{r}_f : {ty(o.shape)}) -> {ty(o.shape)}")
        else:
            lines.append(f'  %{r} = linalg.generic {{indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}} '
                         f"ins({ins[0]} : {ty(o.shape)}) outs(%{r}_e : {ty(o.shape)}) {{")
            lines.append("  ^bb0(%in: f32, %out: f32):")
            lines.append(f"    %t = math.{o.kind} %in : f32")
            lines.append("    linalg.yield %t : f32")
            lines.append(f"  }} -> {ty(o.shape)}")
        names[r] = f"%{r}"
    result_annotation(w, names[w.ops[-1].result], lines)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- pricing

TENSOR = r"tensor<([0-9x]+)xf32>"
COLLECTIVE_RE = re.compile(
    r"shard\.(" + "|".join(COLLECTIVES) + r") %\S+ on @\w+ grid_axes = \[([0-9, ]*)\][^:\n]*: \(?" + TENSOR)


def dims(text: str) -> list[int]:
    return [int(x) for x in text.split("x")]


def elements(text: str) -> int:
    p = 1
    for x in dims(text):
        p *= x
    return p


@dataclass
class Collective:
    kind: str
    axes: str
    input_type: str
    time_s: float

    def describe(self) -> str:
        return f"{self.kind}[{self.axes}] tensor<{self.input_type}xf32>"


def step(kind: str, n: int, alpha: float, bandwidth: float, s: float) -> tuple[float, float]:
    """One single-axis collective of the cost model's table 3.1 on a group of n with per-device
    input bytes s: (time, per-device output bytes)."""
    beta = 1.0 / bandwidth
    return {
        "all_gather": (alpha + (n - 1) / n * (n * s) * beta, n * s),
        "all_reduce": (alpha + 2 * (n - 1) / n * s * beta, s),
        "reduce_scatter": (alpha + (n - 1) / n * s * beta, s / n),
        "all_to_all": (alpha + (n - 1) / n * s * beta, s),
        "broadcast": (alpha + (n - 1) / n * s * beta, s),
        "all_slice": (0.0, s / n),
    }[kind]


def collective_time(kind: str, axes: list[int], s: float, mesh: Mesh) -> float:
    """A collective over grid axes `axes`: the model has single-axis steps only, so one over
    several axes is priced as the cheapest order of one step per axis (3.3)."""
    best = float("inf")
    for order in itertools.permutations(axes):
        total, size = 0.0, s
        for a in order:
            t, size = step(kind, mesh.shape[a], mesh.alpha[a], mesh.bandwidth[a], size)
            total += t
        best = min(best, total)
    return best if axes else 0.0


def collectives(spmd: str, mesh: Mesh) -> list[Collective]:
    """The collectives of an SPMD program, each priced by the cost model (3.1, 3.3)."""
    out = []
    for m in COLLECTIVE_RE.finditer(spmd):
        kind, axes, t = m.group(1), m.group(2), m.group(3)
        axis_list = [int(a) for a in axes.split(",") if a.strip()]
        out.append(Collective(kind, axes.strip(), t, collective_time(kind, axis_list, elements(t) * 4, mesh)))
    return out


def run(cmd: list[str], stdin: str | None = None) -> str:
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise BenchError(f"{' '.join(cmd[:3])} ... failed:\n{r.stderr}")
    return r.stdout


def xcs_flops(xcs_opt: str, module: str) -> float:
    """Σ FLOPs of the tensor ops of `module` as `cost-annotate` counts them (shard ops: 0)."""
    text = run([xcs_opt, "-", "-p", "builtin.module(cost-annotate)"], module)
    return float(sum(int(f) for f in re.findall(r'= tensor\.\w+ [^\n]*cost = #cost\.cost<flops = "(\d+)"', text)))


def upstream_as_xcs(spmd: str) -> str:
    """The compute ops of upstream's SPMD program as XCS ops of the same local shapes (each op
    on arguments of its own, one function)."""
    params, body = [], []
    for m in re.finditer(r"linalg\.matmul ins\(%\S+, %\S+ : " + TENSOR + ", " + TENSOR + r"\) outs\([^:]*: " + TENSOR, spmd):
        a, b, c = m.groups()
        i = len(params)
        params += [f"%p{i}: tensor<{a}xf32>", f"%p{i + 1}: tensor<{b}xf32>"]
        body.append(f"  %r{i} = tensor.matmul %p{i}, %p{i + 1} : (tensor<{a}xf32>, tensor<{b}xf32>) -> tensor<{c}xf32>")
    for m in re.finditer(r"linalg\.generic \{[^\n]*ins\(%\S+ : " + TENSOR + r"\)[^\n]*\n[^\n]*\n\s*%\S+ = math\.(\w+)", spmd):
        t, op = m.groups()
        i = len(params)
        params.append(f"%p{i}: tensor<{t}xf32>")
        body.append(f"  %r{i} = tensor.{op} %p{i} : tensor<{t}xf32>")
    return f"func.func @f({', '.join(params)}) {{\n" + "\n".join(body) + "\n  return\n}\n"


@dataclass
class Priced:
    compute_s: float
    comm_s: float
    collectives: list[Collective]

    @property
    def total_s(self) -> float:
        return self.compute_s + self.comm_s


def price(spmd: str, flops: float, mesh: Mesh) -> Priced:
    cs = collectives(spmd, mesh)
    return Priced(flops / mesh.peak_flops, sum(c.time_s for c in cs), cs)


def auto_shard(w: Workload, mesh: Mesh, xcs_opt: str, work: Path) -> tuple[str, dict]:
    """XCS's side: `auto-shard` (given the workload's constraints and the model's parameters)
    then `shard-partition`; returns the SPMD program and auto-shard's plan for the function."""
    src, report = work / f"{w.name}.xcs.mlir", work / f"{w.name}.plan.json"
    src.write_text(xcs_program(w, mesh.text()))
    pipeline = f"builtin.module(auto-shard{{{mesh.auto_shard_options()}}},shard-partition)"
    spmd = run([xcs_opt, str(src), f"--shard-report={report}", "-p", pipeline])
    try:
        return spmd, json.loads(report.read_text())[w.name]
    except (OSError, ValueError, KeyError) as e:
        raise BenchError(f"auto-shard's report {report} has no plan for @{w.name}: {e}") from e


def plan_collectives(plan: dict) -> list[str]:
    """The kinds of the collectives auto-shard's report plans (at ops, at the user's
    annotations, in the results' reshards), which shard-partition should emit one for one."""
    found = [c for op in plan["ops"] for c in op["collectives"]]
    found += [c for a in plan.get("annotations", []) for c in a["collectives"]]
    found += [c for r in plan["results"] for c in r["reshard"]]
    return [c["kind"] for c in found]


def compare(w: Workload, mesh: Mesh, xcs_opt: str, work: Path) -> dict:
    mesh = w.mesh or mesh
    xcs_spmd, plan = auto_shard(w, mesh, xcs_opt, work)
    x = price(xcs_spmd, xcs_flops(xcs_opt, xcs_spmd), mesh)
    row = {"workload": w.name, "grid": mesh.describe(), "xcs": summary(x)}
    row["xcs"]["plan_total_s"] = plan["total_time_s"]
    row["xcs"]["plan_optimal"] = plan["optimal"]
    row["xcs"]["plan_collectives"] = plan_collectives(plan)
    # auto-shard's own figure and the repriced SPMD program must agree (the model is the same)
    row["xcs"]["plan_agrees"] = abs(plan["total_time_s"] - x.total_s) <= AGREEMENT * max(x.total_s, 1e-12)
    (work / f"{w.name}.upstream.mlir").write_text(upstream_program(w, mesh.text()))
    try:
        up_spmd = run([MLIR_OPT, str(work / f"{w.name}.upstream.mlir"), f"--pass-pipeline={UPSTREAM_PIPELINE}"])
    except BenchError as e:  # upstream's failure is a result of the comparison, not of the benchmark
        row["upstream"] = {"error": str(e).splitlines()[-1] if str(e).strip() else "failed"}
        return row
    u = price(up_spmd, xcs_flops(xcs_opt, upstream_as_xcs(up_spmd)), mesh)
    row["upstream"] = summary(u)
    row["ratio_upstream_over_xcs"] = u.total_s / x.total_s if x.total_s > 0 else float("nan")
    return row


def summary(p: Priced) -> dict:
    return {"total_s": p.total_s, "compute_s": p.compute_s, "comm_s": p.comm_s,
            "collectives": [c.describe() for c in p.collectives]}


def table(rows: list[dict], mesh: Mesh) -> str:
    out = [f"default: {mesh.describe()}"]
    for r in rows:
        if r["grid"] != mesh.describe():
            out.append(f"({r['grid']})")
        if "error" in r["upstream"]:
            out.append(f"{r['workload']}: upstream failed: {r['upstream']['error']}")
        else:
            out.append(f"{r['workload']}: upstream / XCS = {r['ratio_upstream_over_xcs']:.2f}x")
        for who in ("xcs", "upstream"):
            p = r[who]
            if "error" in p:
                continue
            cs = ", ".join(p["collectives"]) or "none"
            out.append(f"  {who:<9} total {p['total_s'] * 1e6:10.1f} us (compute {p['compute_s'] * 1e6:9.1f}, "
                       f"comm {p['comm_s'] * 1e6:9.1f}); collectives: {cs}")
            if who == "xcs":
                verdict = "agrees" if p["plan_agrees"] else "DISAGREES"
                proof = "proven optimal" if p["plan_optimal"] else "not proven optimal"
                out.append(f"  {'':<9} auto-shard's total_time_s {p['plan_total_s'] * 1e6:10.1f} us ({verdict}; {proof})")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xcs-opt", default="target/debug/xcs-opt")
    ap.add_argument("--devices", type=int, default=4)
    ap.add_argument("--only", help="comma-separated workloads")
    ap.add_argument("--json")
    args = ap.parse_args()
    mesh = Mesh(shape=(args.devices,))
    chosen = [w for w in workloads() if not args.only or w.name in args.only.split(",")]
    try:
        with tempfile.TemporaryDirectory(prefix="bench-shard-upstream-") as d:
            rows = [compare(w, mesh, args.xcs_opt, Path(d)) for w in chosen]
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(table(rows, mesh))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=2))
    disagree = [r["workload"] for r in rows if not r["xcs"]["plan_agrees"]]
    if disagree:
        print(f"error: auto-shard's total_time_s differs from the repriced SPMD program: {', '.join(disagree)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
