#!/usr/bin/env python3
"""The classify benchmark (issue 4, "Speed"): `xcs-opt --classify` on modules of 1k, 10k and
100k functions; the pass time must grow linearly (goal: time(100k) / time(10k) <= 12).

The generated modules look like traced mixed programs: functions with a tensor signature
`(tensor<8x8xf32>) -> tensor<8x8xf32>`, with a string signature `(!xcs.str) -> !xcs.str`, or
both; bodies with tensor ops (`tensor.matmul`, `add`, `exp`, `reduce`), `xcs.llm` calls,
string constants and 0-4 calls to other functions of the module (mostly to later ones, like
layers of a program; 3% back to earlier ones, which makes recursive cycles) and to external
declarations (1 per 10 functions) named from the seed's tables: `torch.nn.functional.*`,
`jax.numpy.*`, `openai.chat.completions.*`, `anthropic.messages.*`, keyword names
(`build_prompt_*`, `fast_matmul_*`), and unrecognizable ones (`log_event_*`: hybrid,
unknown); 1 in 5 declarations carries `xcs.module`, 1 in 50 functions an `xcs.mark`.
Deterministic for a given size and seed. Python 3.11, standard library only.

Usage (from the repository root):
    cargo build --release -p xcs --bin xcs-opt
    python3 tools/bench/bench_classify.py                    # 1k, 10k, 100k; best of 3
    python3 tools/bench/bench_classify.py --sizes 1k,10k --runs 1
    python3 tools/bench/bench_classify.py --json target/bench/classify.json
    python3 tools/bench/bench_classify.py --instructions     # and the pass's instruction counts
    python3 tools/bench/bench_classify.py --gen 1000 -o m.mlir   # just write a module

Measured per size: the whole `xcs-opt F --classify -o /dev/null` (wall, best of N) and the
pass alone (the `Classify` line of `--mlir-timing`, best of N). The ratio line compares
100k with 10k; exit 3 with `--fail-on-miss` when the pass ratio is above the goal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GOAL_RATIO = 12.0
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}

T = "tensor<8x8xf32>"
S = "!xcs.str"
SIG = {"t": (T, T), "s": (S, S)}

TENSOR_DECLS = ["torch.nn.functional.relu", "torch.matmul", "jax.numpy.dot", "jax.lax.scan", "numpy.einsum",
                "fast_matmul", "tensor_sum"]
ORCH_DECLS = ["openai.chat.completions.create", "anthropic.messages.create", "litellm.completion",
              "build_prompt", "llm_judge", "chat_summarize"]
UNKNOWN_DECLS = ["log_event", "save_result", "fetch_record"]
MODULES = {"t": "torch.nn.functional", "s": "openai.resources.chat"}


def generate(n: int, seed: int = 1) -> str:
    """A module with `n` functions (declarations included)."""
    rng = random.Random(seed * 1_000_003 + n)
    n_decl = max(1, n // 10)
    n_def = n - n_decl
    decls = []  # (name, kind 't'|'s', attrs)
    for i in range(n_decl):
        r = rng.random()
        if r < 0.4:
            base, kind = rng.choice(TENSOR_DECLS), "t"
        elif r < 0.8:
            base, kind = rng.choice(ORCH_DECLS), "s"
        else:
            base, kind = rng.choice(UNKNOWN_DECLS), rng.choice("ts")
        attrs = f' attributes {{xcs.module = "{MODULES[kind]}"}}' if rng.random() < 0.2 and r < 0.8 else ""
        decls.append((f"{base}_{i}", kind, attrs))
    kinds = [rng.choice("ttts") for _ in range(n_def)]
    out = []
    w = out.append
    for name, kind, attrs in decls:
        a, r = SIG[kind]
        w(f"func.func private @{name}({a}) -> {r}{attrs}\n")
    for i in range(n_def):
        kind = kinds[i]
        a, r = SIG[kind]
        attrs = ""
        if rng.random() < 0.02:
            attrs = f' attributes {{xcs.mark = "{rng.choice(["tensor", "orchestration", "hybrid"])}"}}'
        w(f"func.func @f{i}(%arg: {a}) -> {r}{attrs} {{\n")
        # values available: %t (a tensor), %s (a string)
        has_t = kind == "t"
        if kind == "t":
            w(f"  %t = tensor.exp %arg : {T}\n")
            if rng.random() < 0.5:
                w(f"  %m = tensor.matmul %t, %arg : {T}\n")
            w(f"  %s = xcs.str_const {{value = \"q\"}} : {S}\n")
        else:
            w(f"  %s = xcs.format %arg {{template = \"Q: {{}}\"}} : ({S}) -> {S}\n")
            if rng.random() < 0.3:
                has_t = True
                w(f"  %t = tensor.constant {{value = dense<1.0> : {T}}} : {T}\n")
            if rng.random() < 0.5:
                w(f"  %l = xcs.llm %s {{model = \"m\", provider = \"echo\"}} : {S}\n")
        k = 0
        for _ in range(rng.randrange(0, 4)):
            if rng.random() < 0.03 or i + 1 >= n_def:
                j = rng.randrange(0, max(1, i))
            else:
                j = rng.randrange(i + 1, min(n_def, i + 1 + 200))
            ck = kinds[j]
            if ck == "t" and not has_t:
                continue
            arg = "%t" if ck == "t" else "%s"
            ca, cr = SIG[ck]
            w(f"  %c{k} = call @f{j}({arg}) : ({ca}) -> {cr}\n")
            k += 1
        if rng.random() < 0.4:
            name, dk, _ = decls[rng.randrange(n_decl)]
            if dk == "s" or has_t:
                da, dr = SIG[dk]
                w(f"  %d = call @{name}({'%t' if dk == 't' else '%s'}) : ({da}) -> {dr}\n")
        ret = "%arg"
        w(f"  return {ret} : {r}\n}}\n")
    return "".join(out)


def count_ops(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("}"))


def run_once(xcs_opt: str, path: Path, timing: bool) -> tuple[float, float | None]:
    cmd = [xcs_opt, str(path), "--classify", "-o", "/dev/null"]
    if timing:
        cmd.append("--mlir-timing")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"xcs-opt failed on {path}:\n{p.stderr[-3000:]}")
    pass_time = None
    if timing:
        m = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+Classify$", p.stderr, re.M)
        if m:
            pass_time = float(m.group(1))
    return wall, pass_time


def count_instructions(xcs_opt: str, path: Path) -> int | None:
    """Instructions executed in the pass alone (valgrind's callgrind, collecting only inside
    `Classify::run`): the work, which the caches do not change. None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
               "--toggle-collect=*Classify*as*Pass*run*", xcs_opt, str(path), "--classify", "-o", "/dev/null"]
        p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"Collected\s*:\s*([0-9]+)", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit(f"callgrind failed on {path}:\n{p.stderr[-3000:]}")
    return int(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xcs-opt", default=str(ROOT / "target/release/xcs-opt"))
    ap.add_argument("--sizes", default="1k,10k,100k")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default=str(ROOT / "target/bench"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--fail-on-miss", action="store_true")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the pass's instructions under callgrind (slow: about a minute at 100k)")
    ap.add_argument("--gen", type=int, help="only write a module with this many functions (-o FILE, '-' stdout)")
    ap.add_argument("-o", default="-")
    args = ap.parse_args()

    if args.gen is not None:
        text = generate(args.gen, args.seed)
        if args.o == "-":
            sys.stdout.write(text)
        else:
            Path(args.o).write_text(text)
        return 0
    if not os.access(args.xcs_opt, os.X_OK):
        print(f"{args.xcs_opt} not found; build it: cargo build --release -p xcs --bin xcs-opt", file=sys.stderr)
        return 2
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    stamp = str(os.stat(__file__).st_mtime_ns)
    results = []
    print(f"xcs-opt --classify, best of {args.runs}")
    count = args.instructions and shutil.which("valgrind") is not None
    if args.instructions and not count:
        print("valgrind not found: no instruction counts", file=sys.stderr)
    print(f"{'functions':>10} {'ops':>9} {'MB':>7} {'total s':>9} {'pass s':>9} {'pass us/fn':>10}"
          + (f" {'pass Minstr':>11}" if count else ""))
    for label in args.sizes.split(","):
        n = SIZES.get(label) or int(label)
        path = cache / f"classify_{n}_s{args.seed}.mlir"
        meta = path.with_suffix(".json")
        if not (path.exists() and meta.exists() and json.loads(meta.read_text()).get("stamp") == stamp):
            text = generate(n, args.seed)
            path.write_text(text)
            meta.write_text(json.dumps({"stamp": stamp, "ops": count_ops(text)}))
        ops = json.loads(meta.read_text())["ops"]
        run_once(args.xcs_opt, path, False)  # warm the file cache
        walls, passes = [], []
        for _ in range(args.runs):
            w, _ = run_once(args.xcs_opt, path, False)
            walls.append(w)
            _, pt = run_once(args.xcs_opt, path, True)
            if pt is not None:
                passes.append(pt)
        wall, pt = min(walls), (min(passes) if passes else float("nan"))
        mb = path.stat().st_size / 1e6
        instr = count_instructions(args.xcs_opt, path) if count else None
        print(f"{n:>10} {ops:>9} {mb:>7.1f} {wall:>9.3f} {pt:>9.4f} {pt / n * 1e6:>10.2f}"
              + (f" {instr / 1e6:>11.1f}" if instr is not None else ""))
        results.append({"functions": n, "ops": ops, "mb": round(mb, 2), "total_s": wall, "pass_s": pt,
                        "pass_instructions": instr})
    by_n = {r["functions"]: r for r in results}
    ratio = None
    if 10_000 in by_n and 100_000 in by_n:
        a, b = by_n[10_000], by_n[100_000]
        ratio = b["pass_s"] / a["pass_s"]
        total_ratio = b["total_s"] / a["total_s"]
        ok = ratio <= GOAL_RATIO
        print(f"100k/10k: pass {ratio:.2f}, whole run {total_ratio:.2f} (goal <= {GOAL_RATIO:g}): "
              f"{'met' if ok else 'MISSED'}")
        if a["pass_instructions"] and b["pass_instructions"]:
            print(f"100k/10k: pass instructions {b['pass_instructions'] / a['pass_instructions']:.2f} "
                  "(the work; the time ratio adds what the caches do)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"results": results, "ratio_100k_10k": ratio,
                                                "goal": GOAL_RATIO}, indent=2) + "\n")
    if args.fail_on_miss and ratio is not None and ratio > GOAL_RATIO:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
