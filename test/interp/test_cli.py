"""The xcs-run command line: backends, input specs and naming, .npy conventions (bf16, strings,
scalars, byte order, Fortran order), outputs, printing, passes, and every user error (exit 1
with a clear message)."""

import subprocess

import numpy as np
import pytest

from harness import XCS_RUN, Gen, Run, round_bf16, xcs_run

PROG = """func.func @main(%x: tensor<2xf32> {xcs.name = "x"}, %y: tensor<2xf32> {xcs.name = "y"})
    -> (tensor<2xf32> {xcs.name = "sum"}, tensor<2xf32>) {
  %s = tensor.add %x, %y : tensor<2xf32>
  %p = tensor.mul %x, %y : tensor<2xf32>
  return %s, %p : tensor<2xf32>, tensor<2xf32>
}
"""

X = np.array([1.5, -2.0], np.float32)
Y = np.array([0.25, 4.0], np.float32)


def fails(r, *messages):
    assert r.proc.returncode == 1, (r.proc.returncode, r.proc.stdout, r.proc.stderr)
    for m in messages:
        assert m in r.proc.stderr, r.proc.stderr
    return r.proc.stderr


def test_help():
    r = xcs_run("--help")
    assert r.returncode == 0 and "INPUT SPECS" in r.stdout and "--backend" in r.stdout


def test_results_by_name_and_position(tmp_path):
    r = Run(tmp_path, PROG, inputs={"x": (X, "f32"), "arg1": (Y, "f32")})
    assert (r.result("sum", "f32") == X + Y).all()
    assert (r.result("result1", "f32") == X * Y).all()
    assert r.proc.stdout == ""  # --output-dir without --print prints nothing


@pytest.mark.parametrize("flags", [[], ["--backend=llvm"], ["--backend=llvm", "--threads", "1"]])
def test_llvm_backend_is_the_default(tmp_path, flags):
    (tmp_path / "p.mlir").write_text(PROG)
    p = xcs_run(tmp_path / "p.mlir", *flags, "--input", "x=[1.5, -2]", "--input", "y=[0.25, 4]")
    assert p.returncode == 0, p.stderr
    q = xcs_run(tmp_path / "p.mlir", "--interp", "--input", "x=[1.5, -2]", "--input", "y=[0.25, 4]")
    assert p.stdout == q.stdout and p.stdout.startswith("sum: tensor<2xf32>\n")


@pytest.mark.parametrize("backend", ["llvm", "interp"])
def test_bench_line(tmp_path, backend):
    (tmp_path / "p.mlir").write_text(PROG)
    p = xcs_run(tmp_path / "p.mlir", f"--backend={backend}", "--bench", "5", "--threads", "2", "-i", "x=random:1", "-i", "y=random:2")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 1, p.stdout  # no results printed without --print
    kv = dict(w.split("=", 1) for w in lines[0].split()[1:])
    assert lines[0].startswith("bench: ") and kv["entry"] == "main" and kv["backend"] == backend
    assert kv["calls"] == "5" and kv["threads"] == "2"
    assert 0 <= float(kv["min_ms"]) <= float(kv["median_ms"])
    assert ("compile_ms" in kv) == (backend == "llvm")
    p = xcs_run(tmp_path / "p.mlir", "--bench", "0", "-i", "x=1", "-i", "y=2")
    assert p.returncode == 1


def test_jit_unsupported_op_suggests_interp(tmp_path):
    (tmp_path / "p.mlir").write_text(
        'func.func @main(%x: tensor<2xf32>) -> !xcs.str {\n'
        '  %t = xcs.format %x {template = "{}"} : (tensor<2xf32>) -> !xcs.str\n'
        '  return %t : !xcs.str\n}\n'
    )
    p = xcs_run(tmp_path / "p.mlir", "--input", "0=1")
    assert p.returncode == 1
    assert "not supported by the LLVM backend (run it on the reference interpreter with --backend=interp)" in p.stderr


def test_backend_interp_is_interp(tmp_path):
    (tmp_path / "p.mlir").write_text(PROG)
    p = xcs_run(tmp_path / "p.mlir", "--backend=interp", "--input", "x=1", "--input", "y=2")
    assert p.returncode == 0, p.stderr
    p = xcs_run(tmp_path / "p.mlir", "--interp", "--backend=llvm", "--input", "x=1", "--input", "y=2")
    assert p.returncode == 1 and "contradict" in p.stderr


def test_print_is_numpy_str(tmp_path):
    x = Gen(40).floats((3, 4), "f32")
    prog = PROG.replace("tensor<2xf32>", "tensor<3x4xf32>")
    r = Run(tmp_path, prog, inputs={"x": (x, "f32"), "y": "0.5"}, output=False)
    assert r.ok, r.proc.stderr
    assert r.proc.stdout == f"sum: tensor<3x4xf32>\n{x + np.float32(0.5)}\nresult1: tensor<3x4xf32>\n{x * np.float32(0.5)}\n"
    r = Run(tmp_path / "both", prog, inputs={"x": (x, "f32"), "y": "0.5"}, extra=["--print"])
    assert r.proc.stdout.startswith("sum: tensor<3x4xf32>\n") and (r.result("sum", "f32") == x + 0.5).all()


def test_input_errors(tmp_path):
    fails(Run(tmp_path, PROG, inputs={"x": "1"}),
          "error: missing input for argument arg1 (y): tensor<2xf32> (give --input NAME=FILE.npy or NAME=random:SEED)")
    fails(Run(tmp_path, PROG, inputs={"x": "1", "y": "2", "z": "3"}),
          "error: --input z: no argument is called 'z' (arguments: arg0 (x), arg1 (y))")
    fails(Run(tmp_path, PROG, inputs={"x": "1", "arg0": "2", "y": "3"}),
          "error: --input arg0: argument #0 already has a value (from --input x)")
    fails(Run(tmp_path, PROG, inputs={"x": (np.zeros(3, np.float32), "f32"), "y": "1"}),
          "error: --input x (argument #0): the value is a tensor<3xf32>, but the argument has type 'tensor<2xf32>'")
    fails(Run(tmp_path, PROG, inputs={"x": (np.zeros(2), "f64"), "y": "1"}),
          "the value is a tensor<2xf64>, but the argument has type 'tensor<2xf32>'")
    fails(Run(tmp_path, PROG, inputs={"x": str(tmp_path / "missing.npy"), "y": "1"}),
          "error: --input x (argument #0): cannot read", "missing.npy")
    (tmp_path / "junk.npy").write_bytes(b"not numpy at all")
    fails(Run(tmp_path, PROG, inputs={"x": str(tmp_path / "junk.npy"), "y": "1"}), "not a valid .npy file")
    np.save(tmp_path / "u32.npy", np.zeros(2, np.uint32))
    fails(Run(tmp_path, PROG, inputs={"x": str(tmp_path / "u32.npy"), "y": "1"}), "is not supported")
    fails(Run(tmp_path, PROG, inputs={"x": "[1.0, 2.0, 3.0]", "y": "1"}), "cannot read '[1.0, 2.0, 3.0]' as a 'tensor<2xf32>'")
    fails(Run(tmp_path, PROG, inputs={"x": "str:hi", "y": "1"}), "'str:' gives an !xcs.str")
    fails(Run(tmp_path, PROG, inputs={"x": "random:x", "y": "1"}), "the seed must be an unsigned 64-bit integer")
    r = xcs_run(tmp_path / "prog.mlir", "--interp", "--input", "x")
    assert r.returncode == 1 and "expected NAME=SPEC" in r.stderr


def test_entry_and_source_errors(tmp_path):
    fails(Run(tmp_path, PROG, entry="nope"), "error: no function @nope in the module (it has @main); choose one with --entry")
    bad = PROG.replace("tensor.mul %x, %y", "tensor.mul %x, %q")
    err = fails(Run(tmp_path, bad, inputs={"x": "1", "y": "1"}), "prog.mlir:4:")
    assert "use of undeclared SSA value name" in err
    wrong = PROG.replace("%p = tensor.mul %x, %y : tensor<2xf32>", '%p = tensor.gelu %x {approximate = "fast"} : tensor<2xf32>')
    fails(Run(tmp_path, wrong, inputs={"x": "1", "y": "1"}), "prog.mlir:4:8: error: 'tensor.gelu' op attribute 'approximate'")
    p = xcs_run(tmp_path / "nothere.mlir", "--interp")
    assert p.returncode == 1 and "cannot open input file" in p.stderr


def test_random_inputs(tmp_path):
    a = Run(tmp_path / "a", PROG, inputs={"x": "random:7", "y": "random:8"})
    b = Run(tmp_path / "b", PROG, inputs={"x": "random:7", "y": "random:8"})
    c = Run(tmp_path / "c", PROG, inputs={"x": "random:9", "y": "random:8"})
    assert (a.result("sum", "f32") == b.result("sum", "f32")).all()
    assert (a.result("sum", "f32") != c.result("sum", "f32")).any()
    dyn = PROG.replace("tensor<2xf32>", "tensor<?xf32>")
    fails(Run(tmp_path / "d", dyn, inputs={"x": "random:1", "y": "random:2"}),
          "has a dynamic dimension", "give the input as a .npy file")


def test_literals(tmp_path):
    prog = """func.func @main(%t: tensor<2x2xi16>, %b: tensor<3xi1>, %s: !xcs.str, %n: i32, %f: tensor<f64>)
    -> (tensor<2x2xi16>, tensor<3xi1>, !xcs.str, i32, tensor<f64>) {
  return %t, %b, %s, %n, %f : tensor<2x2xi16>, tensor<3xi1>, !xcs.str, i32, tensor<f64>
}
"""
    r = Run(tmp_path, prog, inputs={"0": "[[1, -2], [3, 32767]]", "1": "dense<[true, false, true]>",
                                    "2": '"a \\22quoted\\22 word"', "3": "-12", "4": "2.5e-3"})
    assert (r.result("result0", "i16") == [[1, -2], [3, 32767]]).all()
    assert r.result("result1", "i1").tolist() == [True, False, True]
    assert r.text("result2") == 'a "quoted" word'
    n = np.load(r.out / "result3.npy")
    assert n.dtype == np.int32 and n.shape == () and n == -12
    assert r.result("result4", "f64") == 2.5e-3


def test_npy_conventions(tmp_path):
    """bf16 as <u2 bits (and |V2, what np.save makes of ml_dtypes.bfloat16), strings as 0-d <U,
    integer scalars as 0-d arrays, big-endian and Fortran-order files."""
    prog = """func.func @main(%a: tensor<3xbf16>, %b: tensor<3xbf16>, %s: !xcs.str, %n: i64, %m: tensor<2x3xf32>)
    -> (tensor<3xbf16>, !xcs.str, i64, tensor<2x3xf32>) {
  %c = tensor.add %a, %b : tensor<3xbf16>
  %t = tensor.transpose %m {perm = array<i64: 0, 1>} : tensor<2x3xf32>
  return %c, %s, %n, %t : tensor<3xbf16>, !xcs.str, i64, tensor<2x3xf32>
}
"""
    a = round_bf16([1.0, 3.14159, -1e30])
    b = round_bf16([2.0**-8, 1.0, 1e30])
    bits_b = (b.view(np.uint32) >> 16).astype(np.uint16)
    np.save(tmp_path / "b.npy", np.frombuffer(bits_b.tobytes(), dtype="V2"))
    np.save(tmp_path / "s.npy", np.array("naïve"))
    np.save(tmp_path / "n.npy", np.array(-5, dtype=np.int64))
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "m.npy", np.asfortranarray(m).astype(">f4"))
    r = Run(tmp_path, prog, inputs={"0": (a, "bf16"), "1": str(tmp_path / "b.npy"), "2": str(tmp_path / "s.npy"),
                                    "3": str(tmp_path / "n.npy"), "4": str(tmp_path / "m.npy")})
    assert np.load(r.out / "result0.npy").dtype == np.uint16
    assert (r.result("result0", "bf16") == round_bf16(a.astype(np.float32) + b)).all()
    assert r.text("result1") == "naïve"
    assert np.load(r.out / "result2.npy") == -5
    assert (r.result("result3", "f32") == m).all()
    fails(Run(tmp_path / "x", prog, inputs={"0": (a, "bf16"), "1": (b, "bf16"), "2": str(tmp_path / "m.npy"),
                                            "3": "1", "4": "1.0"}),
          "but the argument is an !xcs.str (save a 0-d string array)")


def test_pipeline_before_running(tmp_path):
    prog = """func.func private @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = tensor.add %a, %a : tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @twice(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @twice(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %c = tensor.mul %a, %b : tensor<2xf32>
  return %c : tensor<2xf32>
}
"""
    plain = Run(tmp_path / "a", prog, inputs={"0": (X, "f32")})
    opt = Run(tmp_path / "b", prog, inputs={"0": (X, "f32")},
              extra=["-p", "builtin.module(inline,func.func(canonicalize,cse),symbol-dce)"])
    assert (plain.result("result0", "f32") == (2 * X) ** 2).all()
    assert (opt.result("result0", "f32") == plain.result("result0", "f32")).all()
    fails(Run(tmp_path / "c", prog, inputs={"0": (X, "f32")}, extra=["-p", "builtin.module(nosuchpass)"]), "nosuchpass")


def test_unregistered_ops(tmp_path):
    prog = """func.func @other() {
  "foo.bar"() : () -> ()
  return
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  "foo.baz"() : () -> ()
  return %x : tensor<2xf32>
}
"""
    fails(Run(tmp_path / "a", prog, entry="other"), "unregistered")
    r = Run(tmp_path / "b", prog, entry="main", inputs={"0": "1.0"}, extra=["--allow-unregistered-dialect"])
    fails(r, "prog.mlir:6:3: error: 'foo.baz' op is not supported by the interpreter")
    ok = prog.replace('  "foo.baz"() : () -> ()\n', "")
    r = Run(tmp_path / "c", ok, entry="main", inputs={"0": "1.0"}, extra=["--allow-unregistered-dialect"])
    assert (r.result("result0", "f32") == 1.0).all()


def test_outputs(tmp_path):
    prog = PROG.replace("(tensor<2xf32> {xcs.name = \"sum\"}, tensor<2xf32>)",
                        "(tensor<2xf32> {xcs.name = \"same\"}, tensor<2xf32> {xcs.name = \"same\"})")
    fails(Run(tmp_path / "a", prog, inputs={"x": "1", "y": "2"}), "two results are called 'same'")
    bad = PROG.replace('xcs.name = "sum"', 'xcs.name = "../up"')
    fails(Run(tmp_path / "b", bad, inputs={"x": "1", "y": "2"}), "the result name '../up' is not a valid file name")
    (tmp_path / "p.mlir").write_text(PROG)
    out = tmp_path / "deep" / "er"
    p = xcs_run(tmp_path / "p.mlir", "--interp", "-i", "x=1", "-i", "y=2", "-o", out)
    assert p.returncode == 0 and (np.load(out / "sum.npy") == 3).all()


def test_stdin(tmp_path):
    p = subprocess.run([str(XCS_RUN), "-", "--interp", "--input", "x=1", "--input", "y=2"], input=PROG,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("sum: tensor<2xf32>\n[3. 3.]\n"), p.stderr
