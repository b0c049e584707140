#!/usr/bin/env python3
"""The generic-form round trip of XCS against MLIR, over files of MLIR text.

For each input (a file, or each `// -----` chunk of it with --split), XCS prints it in the
generic form (`xcs-opt --allow-unregistered-dialect --mlir-print-op-generic`), and that output,
re-parsed by MLIR (`mlir-minimal-opt` by default), must print exactly as MLIR prints the input
itself: once plainly and once with `--mlir-print-debuginfo`, so that lost locations show too.
A result is one of:

  ok          both prints agree, with and without locations
  differs     XCS's output means something else to MLIR (or MLIR rejects it)
  xcs error   XCS reports an error on input MLIR accepts
  crash       XCS exits otherwise (a panic, a signal, a hang)
  skipped     MLIR itself rejects the input

Two uses:

  mlir_roundtrip.py --corpus test/IR/roundtrip
      the property check of the lit suite (test/IR/roundtrip-corpus.test): every file of the
      corpus must be ok; exits 1 otherwise and shows the first difference of each failure.

  mlir_roundtrip.py --conformance LLVM/mlir/test [--subdir IR --subdir Dialect/Arith ...]
      the conformance table of upstream MLIR's test files: each `.mlir` file is split on
      `// -----`, each chunk that the installed `mlir-opt` accepts is converted to the generic
      form by it (with --allow-unregistered-dialect) and checked as above; prints a table per
      file and totals. Chunks that use upstream ops of the `tensor`, `shard` or `test` dialects
      (whose names XCS's own dialects take) are counted apart, and checked with those
      namespaces renamed (`tensor.` to `tensor_upstream.`, ...). Its input is never committed.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

STATUSES = ["ok", "differs", "xcs error", "crash", "skipped"]
# Dialects XCS registers under the same name as an upstream dialect with other ops (`test` is
# upstream's test dialect, which the installed mlir-opt does not register).
CLASHING = ["tensor", "shard", "test"]
CLASH_RE = re.compile(r'(?<![\w.$])(["!#])(' + "|".join(CLASHING) + r")\.")
CLASH_OP_RE = re.compile(r'"(' + "|".join(CLASHING) + r')\.')
SPLIT_RE = re.compile(r"^// -----\s*$", re.M)
TIMEOUT = 60


@dataclass
class Tools:
    xcs_opt: str
    mlir_opt: str
    normalizer: str


@dataclass
class Result:
    status: str
    detail: str = ""


def run(cmd, path, timeout=TIMEOUT):
    """Runs `cmd path`; (returncode, stdout, stderr), returncode None on a timeout."""
    try:
        p = subprocess.run(cmd + [path], capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"


def first_difference(a, b):
    """The first differing line of two texts, for a short report."""
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n    MLIR(xcs output): {x.strip()[:300]}\n    MLIR(input):      {y.strip()[:300]}"
    return f"line {min(len(la), len(lb)) + 1}: one output is longer ({len(la)} vs {len(lb)} lines)"


def roundtrip_file(tools, path, workdir):
    """Checks one file of MLIR text (see the module doc); MLIR must accept it. When the
    normalizer rejects the input (mlir-minimal-opt cannot hold an opaque memref memory space,
    for instance), mlir-opt, which registers the upstream dialects, normalizes instead."""
    base = ["--allow-unregistered-dialect", "--mlir-print-op-generic"]
    normalizer = tools.normalizer
    if run([normalizer] + base, path)[0] != 0 and tools.mlir_opt:
        normalizer = tools.mlir_opt
    for flags in ([], ["--mlir-print-debuginfo"]):
        tag = "dbg" if flags else "plain"
        code, expected, err = run([normalizer] + base + flags, path)
        if code != 0:
            return Result("skipped", f"{normalizer} rejects the input: {err.strip()[:300]}")
        code, out, err = run([tools.xcs_opt] + base + flags, path)
        if code is None or code not in (0, 1) or "panicked" in err:
            return Result("crash", f"xcs-opt exit {code}: {err.strip()[-500:]}")
        if code != 0:
            return Result("xcs error", err.strip().splitlines()[0][:300] if err.strip() else "exit 1")
        xcs_out = os.path.join(workdir, f"xcs.{tag}.mlir")
        with open(xcs_out, "w") as f:
            f.write(out)
        code, got, err = run([normalizer] + base + flags, xcs_out)
        if code != 0:
            return Result("differs", f"{normalizer} rejects XCS's output ({tag}): {err.strip()[:300]}")
        if got != expected:
            return Result("differs", f"({tag}) {first_difference(got, expected)}")
    return Result("ok")


# ---------------------------------------------------------------------------- the corpus check


def corpus(args, tools):
    files = []
    for p in args.corpus:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".mlir"))
        else:
            files.append(p)
    if not files:
        print("no corpus files found", file=sys.stderr)
        return 1
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, f in enumerate(files):
            work = os.path.join(tmp, str(i))
            os.mkdir(work)
            r = roundtrip_file(tools, f, work)
            if r.status != "ok":
                bad += 1
                print(f"{r.status}: {f}\n  {r.detail}")
    print(f"{len(files) - bad} of {len(files)} corpus files round-trip (with and without locations)")
    return 1 if bad else 0


# ---------------------------------------------------------------------------- conformance


@dataclass
class FileRow:
    name: str
    counts: dict = field(default_factory=lambda: {s: 0 for s in STATUSES})
    clash: dict = field(default_factory=lambda: {s: 0 for s in STATUSES})
    notes: list = field(default_factory=list)


def check_chunk(tools, text, work):
    """(result, clashing): the chunk converted to the generic form by mlir-opt, then checked."""
    src = os.path.join(work, "chunk.mlir")
    with open(src, "w") as f:
        f.write(text)
    code, generic, err = run([tools.mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic"], src)
    if code != 0:
        return Result("skipped", "mlir-opt rejects it"), False
    clashing = bool(CLASH_OP_RE.search(generic))
    if clashing:
        generic = CLASH_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}_upstream.", generic)
    # The generic text with its locations, as mlir-opt printed them.
    code, generic_dbg, _ = run(
        [tools.mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic", "--mlir-print-debuginfo"], src
    )
    if code == 0:
        generic = CLASH_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}_upstream.", generic_dbg) if clashing else generic_dbg
    path = os.path.join(work, "generic.mlir")
    with open(path, "w") as f:
        f.write(generic)
    return roundtrip_file(tools, path, work), clashing


def check_file(tools, root, rel):
    row = FileRow(rel)
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    chunks = SPLIT_RE.split(text)
    with tempfile.TemporaryDirectory() as work:
        for i, chunk in enumerate(chunks):
            # keep line numbers: pad with the lines of the chunks before
            pad = "\n" * sum(c.count("\n") + 1 for c in chunks[:i])
            r, clashing = check_chunk(tools, pad + chunk, work)
            (row.clash if clashing else row.counts)[r.status] += 1
            if r.status in ("differs", "xcs error", "crash") and len(row.notes) < 3:
                row.notes.append(f"chunk {i + 1}: {r.status}: {r.detail}")
    return row


def conformance(args, tools):
    root = args.conformance
    subdirs = args.subdir or ["."]
    rels = []
    for sd in subdirs:
        base = os.path.join(root, sd)
        for dirpath, _, names in os.walk(base):
            for n in sorted(names):
                if n.endswith(".mlir"):
                    rels.append(os.path.relpath(os.path.join(dirpath, n), root))
    rels.sort()
    rows = []
    print_header()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for row in ex.map(lambda r: check_file(tools, root, r), rels):
            rows.append(row)
            if args.verbose:
                print_row(row)
                for n in row.notes:
                    print("    " + n)
                sys.stdout.flush()
    if not args.verbose:
        for row in rows:
            print_row(row)
    print_totals(rows)
    return 0


def print_header():
    head = " ".join(f"{s[:5]:>5}" for s in STATUSES)
    print(f"{'file':<70} {head} | tensor/shard/test chunks (ok differs xcs-error crash)")


def print_row(row):
    c, k = row.counts, row.clash
    cols = " ".join(f"{c[s]:>5}" for s in STATUSES)
    kcols = " ".join(f"{k[s]:>5}" for s in STATUSES[:4])
    print(f"{row.name:<70} {cols} | {kcols}")


def print_totals(rows):
    tot = {s: sum(r.counts[s] for r in rows) for s in STATUSES}
    ktot = {s: sum(r.clash[s] for r in rows) for s in STATUSES}
    print()
    print_header()
    print(f"{'TOTAL chunks (' + str(len(rows)) + ' files)':<70} " + " ".join(f"{tot[s]:>5}" for s in STATUSES) + " | "
          + " ".join(f"{ktot[s]:>5}" for s in STATUSES[:4]))
    files = {s: sum(1 for r in rows if worst(r) == s) for s in STATUSES}
    print("files by their worst chunk: " + ", ".join(f"{s}: {files[s]}" for s in STATUSES))


def worst(row):
    both = {s: row.counts[s] + row.clash[s] for s in STATUSES}
    for s in ["crash", "xcs error", "differs", "ok"]:
        if both[s]:
            return s
    return "skipped"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--corpus", nargs="+", help="files or directories of the round-trip corpus")
    mode.add_argument("--conformance", help="a checkout of llvm-project's mlir/test")
    ap.add_argument("--subdir", action="append", help="with --conformance: only these subdirectories")
    ap.add_argument("--xcs-opt", default="xcs-opt")
    ap.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    ap.add_argument("--normalizer", default="/usr/lib/llvm-22/bin/mlir-minimal-opt",
                    help="the MLIR tool that re-parses both sides (default mlir-minimal-opt)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true", help="print each file's row (and notes) as it is done")
    args = ap.parse_args()
    # the corpus check uses the normalizer alone (its files are written for it)
    tools = Tools(args.xcs_opt, args.mlir_opt if args.conformance else None, args.normalizer)
    return corpus(args, tools) if args.corpus else conformance(args, tools)


if __name__ == "__main__":
    sys.exit(main())
