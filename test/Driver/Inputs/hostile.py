"""Hostile inputs for the XCS tools (issue 17, item 5): writes one input class to a temporary
directory, runs a tool on it, and prints the tool's stderr (for FileCheck) after checking that
the exit status is the one expected (1 for bad input, 0 for input that is merely large) and
that nothing panicked, overflowed its stack or was killed by a signal.

Usage: hostile.py CLASS  (with the xcs-* tools on PATH, as lit puts them)."""

import os
import resource
import struct
import subprocess
import sys
import tempfile


def run(args, want_rc, stdin=None, max_bytes=None):
    limit = (lambda: resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))) if max_bytes else None
    p = subprocess.run(args, input=stdin, capture_output=True, timeout=120, preexec_fn=limit)
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode != want_rc or "panicked" in err or "stack overflow" in err:
        sys.exit(f"{args[0]}: exit status {p.returncode}, expected {want_rc}\n{err[:4000]}")
    # a diagnostic stays short however large the input is
    if len(err) > 4000:
        sys.exit(f"{args[0]}: {len(err)} bytes of diagnostics")
    sys.stdout.write(err)
    return p.stdout.decode("utf-8", "replace")


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def nesting(d):
    # 100,000 nested regions: an error at the region past the limit, not a stack overflow
    src = '"foo.r"() ({\n' * 100_000
    run(["xcs-opt", "--allow-unregistered-dialect", write(d, "deep.mlir", src)], 1)
    # 900 levels (under the limit) go through the verifier, the printer and the passes
    n = 900
    body = "".join(f'{" " * (i % 8)}"foo.r"() ({{\n' for i in range(n))
    body += '  "foo.leaf"() : () -> ()\n' + "}) : () -> ()\n" * n
    out = run(["xcs-opt", "--allow-unregistered-dialect", "--verify-each", "--mlir-print-op-generic",
               "--pass-pipeline=builtin.module(canonicalize,cse,symbol-dce,inline)", write(d, "ok.mlir", body)], 0)
    print(f"printed {out.count('foo.r')} nested regions")


def long_line(d):
    # a 4 MB single line, with a bad element at its end (200 MB is tried by hand: the same path)
    n = 1_000_000
    src = '"foo.a"() {a = [' + "1, " * n + "1 @]} : () -> ()"
    run(["xcs-opt", "--allow-unregistered-dialect", write(d, "line.mlir", src)], 1)
    # the same line, valid: parsed and printed back
    src = '"foo.a"() {a = array<i32: ' + "1, " * n + "1>} : () -> ()"
    out = run(["xcs-opt", "--allow-unregistered-dialect", write(d, "ok.mlir", src)], 0)
    print(f"printed {out.count('1, ') + 1} elements")


def dense_count(d):
    for i, (lit, ty) in enumerate([("[1, 2, 3]", "tensor<2xi32>"), ("[[1, 2], [3, 4]]", "tensor<2x3xi32>"),
                                   ("[[1, 2], [3]]", "tensor<2x2xi32>"), ('"0x0102"', "tensor<3xi8>")]):
        src = f'"foo.a"() {{a = dense<{lit}> : {ty}}} : () -> ()\n'
        run(["xcs-opt", "--allow-unregistered-dialect", write(d, f"dense{i}.mlir", src)], 1)


HUGE = "tensor<999999999999x999999999999xf32>"
OVERFLOW = "tensor<4294967296x4294967296x16xf32>"


def huge_tensor(d):
    for ty in [HUGE, OVERFLOW]:
        src = f"func.func @main(%a: {ty}) -> {ty} {{\n  %b = tensor.exp %a : {ty}\n  return %b : {ty}\n}}\n"
        f = write(d, "arg.mlir", src)
        for backend in ["interp", "llvm"]:
            run(["xcs-run", f, "--backend", backend, "--input", "arg0=random:1"], 1)
        src = (f"func.func @main() -> {ty} {{\n  %c = tensor.constant {{value = dense<1.0> : {ty}}} : {ty}\n"
               f"  %b = tensor.exp %c : {ty}\n  return %b : {ty}\n}}\n")
        f = write(d, "const.mlir", src)
        for backend in ["interp", "llvm"]:
            run(["xcs-run", f, "--backend", backend], 1)
        # made inside the program from a scalar
        axes = ", ".join(str(i) for i in range(ty.count("x")))
        src = (f"func.func @main(%a: tensor<f32>) -> tensor<f32> {{\n"
               f"  %b = tensor.broadcast_to %a : (tensor<f32>) -> {ty}\n"
               f"  %r = tensor.reduce %b {{axes = array<i64: {axes}>, keepdims = false, kind = \"sum\"}} : ({ty}) -> tensor<f32>\n"
               f"  return %r : tensor<f32>\n}}\n")
        f = write(d, "made.mlir", src)
        for backend in ["interp", "llvm"]:
            run(["xcs-run", f, "--backend", backend, "--input", "arg0=1.5"], 1)


def memory(d):
    # a splat constant of 1.6e9 f32 elements (under the interpreter's 2^31 limit) in a process
    # limited to 4 GB of address space: an error at the constant, not an allocation abort
    ty = "tensor<40000x40000xf32>"
    src = (f"func.func @main() -> {ty} {{\n  %c = tensor.constant {{value = dense<1.0> : {ty}}} : {ty}\n"
           f"  %e = tensor.exp %c : {ty}\n  return %e : {ty}\n}}\n")
    f = write(d, "mem.mlir", src)
    for backend in ["interp", "llvm"]:
        run(["xcs-run", f, "--backend", backend], 1, max_bytes=4 << 30)


def overflow_passes(d):
    # types whose element count overflows 64 bits go through every pass and the cost model
    ty = OVERFLOW
    src = (f"func.func @main(%a: {ty}) -> ({ty}, tensor<f32>) {{\n"
           f"  %c = tensor.constant {{value = dense<2.0> : tensor<f32>}} : tensor<f32>\n"
           f"  %b = tensor.broadcast_to %c : (tensor<f32>) -> {ty}\n"
           f"  %s = tensor.add %b, %b : ({ty}, {ty}) -> {ty}\n"
           f"  %m = tensor.mul %a, %s : ({ty}, {ty}) -> {ty}\n"
           f"  %e = tensor.exp %m : {ty}\n"
           f"  %r = tensor.reduce %e {{axes = array<i64: 0, 1, 2>, keepdims = false, kind = \"sum\"}} : ({ty}) -> tensor<f32>\n"
           f"  return %e, %r : {ty}, tensor<f32>\n}}\n")
    f = write(d, "overflow.mlir", src)
    pipe = "builtin.module(canonicalize,cse,func.func(fuse),inline,classify,cost-annotate,vmap-batch,symbol-dce,shard-partition)"
    out = run(["xcs-opt", "--verify-each", f"--pass-pipeline={pipe}", f], 0)
    print("\n".join(line for line in out.splitlines() if "return" in line or "fused" in line))


def gather(d):
    src = ("func.func @main(%t: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {\n"
           "  %g = tensor.gather %t, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>\n"
           "  return %g : tensor<2x3xf32>\n}\n")
    f = write(d, "gather.mlir", src)
    for idx in ["[1, 4]", "[-1, 0]", "[9223372036854775807, 0]"]:
        for backend in ["interp", "llvm"]:
            run(["xcs-run", f, "--backend", backend, "--input", "arg0=random:3", "--input", f"arg1={idx}"], 1)


def npy_header(d):
    src = "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}\n"
    f = write(d, "id.mlir", src)
    for shape in ["(1000000000000,)", "(4294967296, 4294967296, 16)", "(3,)"]:
        header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}"
        header += " " * (63 - (len(header) + 10) % 64) + "\n"
        data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 8
        npy = write(d, "lie.npy", data)
        for backend in ["interp", "llvm"]:
            run(["xcs-run", f, "--backend", backend, "--input", f"arg0={npy}"], 1)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        globals()[sys.argv[1].replace("-", "_")](tmp)
