#!/usr/bin/env python3
"""The MLIR backend's column (issue 21): XCS's LLVM backend (`xcs-run`, the default) and the
upstream-MLIR backend (`xcs-run --backend=mlir`: the module exported to linalg/arith/math,
compiled by MLIR's own pipeline and run on MLIR's ExecutionEngine) on the native benchmark's
workloads (tools/bench/native/), timed in the same run on the same inputs.

Per workload and backend: the minimum and median per-call time over --runs calls after one
warm-up call and the compile time, as `xcs-run --bench N` prints them (its `bench:` line), at
--threads threads (the MLIR backend's loops are single-threaded whatever the count), pinned to
CPU 0 with `taskset -c 0` when --threads is 1 and taskset exists. The ratio column is MLIR time /
LLVM time (above 1: ours is faster). Before timing, the outputs of both backends are compared
(`--output-dir`): max|mlir - llvm| <= 1e-4 * max|llvm| (a failing check is shown and makes the
exit code 1). A workload the MLIR export does not cover is listed as such.

The StableHLO suite (`jax:*`: the seven JAX programs of frontend/tests/test_py_from_jax.py as
JAX 0.10 exported them, test/Interop/Inputs/jax/, on their committed inputs; no JAX needed) runs
too: each module is converted once with `xcs-opt -p` and from_jax's pipeline (the xcs-opt next
to --xcs-run), then timed on both backends as above.

Usage (from the repository root):
    cargo build --release -p xcs --bin xcs-run
    python3 tools/bench/bench_mlir_backend.py --xcs-run target/release/xcs-run --json target/bench/mlir_backend.json
    python3 tools/bench/bench_mlir_backend.py --only W2s,W4 --runs 3
    python3 tools/bench/bench_mlir_backend.py --only jax --runs 20     # the StableHLO suite only
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

NATIVE = pathlib.Path(__file__).resolve().parent / "native"
JAX_SUITE = pathlib.Path(__file__).resolve().parents[2] / "test" / "Interop" / "Inputs" / "jax"
# xcs._jax.JAX_PIPELINE.
JAX_PIPELINE = "builtin.module(convert-stablehlo-to-tensor,inline,func.func(canonicalize,cse,fuse),symbol-dce)"

# (id, file, entry, description); W2 at 1024 (1 GFMA in plain loops) is left to --only.
WORKLOADS = [
    ("W1", "w1_chain.mlir", "main", "tanh(x*1.5+0.5)*sigmoid(x)+x*x, 16M f32"),
    ("W2s", "w2_matmul_256.mlir", "main", "matmul 256x256x256"),
    ("W2", "w2_matmul_1024.mlir", "main", "matmul 1024x1024x1024"),
    ("W3", "w3_mlp.mlir", "main", "MLP 256x1024 @ 1024x4096 @ 4096x1024"),
    ("W4", "w4_softmax.mlir", "main", "softmax of 4096x4096 rows"),
    ("W5", "w5_layer_norm.mlir", "main", "layer_norm of 4096x4096 rows"),
    ("W6", "w6_gelu.mlir", "main", "GELU (tanh form), 16M f32"),
]
JAX_PROGRAMS = [
    ("jax:mlp", "mlp", "MLP 8x32 -> 64 -> 10"),
    ("jax:attention", "attention", "multi-head attention 2x8x32, 4 heads"),
    ("jax:layernorm_gelu", "layernorm_gelu", "layernorm + exact GELU 6x16"),
    ("jax:cross_entropy", "cross_entropy", "softmax cross-entropy 16x10"),
    ("jax:scan_rnn", "scan_rnn", "lax.scan RNN, 12 steps 2x16"),
    ("jax:cond", "cond_true", "lax.cond on 4x5"),
    ("jax:gpt2_block", "gpt2_block", "GPT-2 block 2x8x32"),
]
WORKLOADS += [(wid, f"{name}.mlir", "main", desc) for wid, name, desc in JAX_PROGRAMS]
DEFAULT = ["W1", "W2s", "W4", "W5", "W6"] + [w[0] for w in JAX_PROGRAMS]
BENCH_LINE = re.compile(r"bench: .*min_ms=([0-9.]+) median_ms=([0-9.]+)(?: compile_ms=([0-9.]+))?")


def num_args(path, entry):
    """The number of arguments of @entry (the inputs are given by position)."""
    text = path.read_text()
    m = re.search(r"func\.func @" + re.escape(entry) + r"\((.*?)\)\s*->", text, re.S)
    if not m:
        raise SystemExit(f"error: no @{entry} in {path}")
    return m.group(1).count("%")


def xcs_run(args, xcs, path, entry, backend, extra, inputs=None):
    cmd = [xcs, str(path), "--entry", entry, "--backend", backend, "--threads", str(args.threads)]
    if inputs is None:
        inputs = [f"random:{i + 1}" for i in range(num_args(path, entry))]
    for i, spec in enumerate(inputs):
        cmd += ["--input", f"{i}={spec}"]
    if args.threads == 1 and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0"] + cmd
    return subprocess.run(cmd + extra, capture_output=True, text=True, timeout=args.timeout)


def compare(dir_mlir, dir_llvm):
    """None when every output agrees within 1e-4 of the LLVM output's largest magnitude."""
    files = sorted(pathlib.Path(dir_llvm).glob("*.npy"))
    if not files:
        return "no outputs"
    for f in files:
        a, b = np.load(pathlib.Path(dir_mlir) / f.name).astype(np.float64), np.load(f).astype(np.float64)
        if a.shape != b.shape or np.max(np.abs(a - b)) > 1e-4 * max(1.0, np.max(np.abs(b))):
            return f"{f.name} differs"
    return None


def jax_program(args, fname, tmp):
    """A StableHLO suite module converted by xcs-opt (from_jax's pipeline), and its inputs."""
    name = fname[: -len(".mlir")]
    xcs_opt = pathlib.Path(args.xcs_run).with_name("xcs-opt")
    out = pathlib.Path(tmp) / fname
    subprocess.run([str(xcs_opt), str(JAX_SUITE / fname), "-p", JAX_PIPELINE, "-o", str(out)], check=True, timeout=args.timeout)
    inputs = []
    while (JAX_SUITE / f"{name}.in{len(inputs)}.npy").exists():
        inputs.append(str(JAX_SUITE / f"{name}.in{len(inputs)}.npy"))
    return out, inputs


def run_workload(args, wid, fname, entry):
    row = {"id": wid, "file": fname}
    with tempfile.TemporaryDirectory() as tmp:
        path, inputs = jax_program(args, fname, tmp) if wid.startswith("jax:") else (NATIVE / fname, None)
        row.update(timed_backends(args, path, entry, inputs, tmp))
    return row


def timed_backends(args, path, entry, inputs, tmp):
    """Both backends' outputs compared, then their bench lines (a row's fields)."""
    row = {}
    outs = {}
    for backend in ("llvm", "mlir"):
        out = pathlib.Path(tmp) / backend
        r = xcs_run(args, args.xcs_run, path, entry, backend, ["--output-dir", str(out)], inputs)
        if r.returncode != 0:
            msg = next((l for l in r.stderr.splitlines() if "error:" in l), None) or (r.stderr.strip().splitlines() or ["failed"])[-1]
            row[backend] = {"error": msg}
            if "not covered" in msg:
                row["not_covered"] = msg
            continue
        outs[backend] = out
    if len(outs) == 2:
        row["check"] = compare(outs["mlir"], outs["llvm"]) or "ok"
    for backend in ("llvm", "mlir"):
        if "error" in row.get(backend, {}):
            continue
        r = xcs_run(args, args.xcs_run, path, entry, backend, ["--bench", str(args.runs)], inputs)
        m = BENCH_LINE.search(r.stdout)
        if r.returncode != 0 or not m:
            row[backend] = {"error": (r.stderr.strip().splitlines() or ["no bench line"])[-1]}
            continue
        row[backend] = {"min_ms": float(m.group(1)), "median_ms": float(m.group(2)),
                        "compile_ms": float(m.group(3)) if m.group(3) else None}
    return row


def fmt(v):
    return "-" if v is None else (f"{v:.3f}" if v < 10 else f"{v:.1f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--xcs-run", default="target/release/xcs-run")
    p.add_argument("--only", help="comma-separated workload ids (" + ", ".join(w[0] for w in WORKLOADS) + ")")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    ids = args.only.split(",") if args.only else DEFAULT
    ids = [w for i in ids for w in ([j for j, *_ in JAX_PROGRAMS] if i == "jax" else [i])]
    unknown = [i for i in ids if i not in {w[0] for w in WORKLOADS}]
    if unknown:
        raise SystemExit(f"error: unknown workload {', '.join(unknown)}")
    rows, failed = [], False
    print(f"{'id':18} {'workload':40} {'llvm min ms':>12} {'mlir min ms':>12} {'mlir/llvm':>10} "
          f"{'llvm compile':>13} {'mlir compile':>13}  check")
    for wid, fname, entry, desc in WORKLOADS:
        if wid not in ids:
            continue
        row = run_workload(args, wid, fname, entry)
        rows.append(row)
        l, m = row.get("llvm", {}), row.get("mlir", {})
        ratio = m["min_ms"] / l["min_ms"] if "min_ms" in m and "min_ms" in l and l["min_ms"] > 0 else None
        row["ratio"] = ratio
        check = row.get("not_covered") and "not covered by the MLIR export" or row.get("check") or m.get("error") or l.get("error", "")
        failed |= check not in ("ok", "not covered by the MLIR export")
        print(f"{wid:18} {desc:40} {fmt(l.get('min_ms')):>12} {fmt(m.get('min_ms')):>12} "
              f"{(f'{ratio:.2f}x' if ratio else '-'):>10} {fmt(l.get('compile_ms')):>13} {fmt(m.get('compile_ms')):>13}  {check}")
        sys.stdout.flush()
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps({"threads": args.threads, "runs": args.runs, "rows": rows}, indent=2))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
