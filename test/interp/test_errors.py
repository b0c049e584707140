"""Run-time errors: exit code 1 and a diagnostic located at the failing op (file:line:col, the
source line and a caret, as xcs-opt prints them), with notes for calls and batch elements."""

import numpy as np
import pytest

from harness import Run


def loc_of(prog, marker, path):
    """`path:line:col` of the op named `marker` (the column of the op name)."""
    for n, line in enumerate(prog.splitlines(), 1):
        if marker in line:
            col = line.index(marker.split(" = ")[-1]) + 1 if " = " in marker else line.index(marker) + 1
            return f"{path}:{n}:{col}"
    raise AssertionError(f"{marker!r} not in the program")


def located(r, prog, marker, message):
    assert r.proc.returncode == 1, r.proc.stderr
    where = loc_of(prog, marker, r.prog)
    assert f"{where}: error: {message}" in r.proc.stderr, r.proc.stderr
    assert not (r.out / "result0.npy").exists()
    return r.proc.stderr


def one_op(op_line, types, rtype):
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    return f"func.func @main({params}) -> {rtype} {{\n  {op_line}\n  return %r : {rtype}\n}}\n"


CASES = [
    ("div by zero", "%r = tensor.div", "%r = tensor.div %a0, %a1 : tensor<4xi32>", ["tensor<4xi32>"] * 2,
     "tensor<4xi32>", [np.array([1, 2, 3, 4], np.int32), np.array([1, 2, 0, 4], np.int32)],
     "'tensor.div' op integer division by zero"),
    ("gather index too large", "%r = tensor.gather",
     "%r = tensor.gather %a0, %a1 {axis = 0 : i64} : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>",
     ["tensor<3x2xf32>", "tensor<2xi64>"], "tensor<2x2xf32>",
     [np.zeros((3, 2), np.float32), np.array([1, 3], np.int64)],
     "'tensor.gather' op index 3 (at position 1 of the indices) is out of range for axis 0 of size 3"),
    ("gather negative index", "%r = tensor.gather",
     "%r = tensor.gather %a0, %a1 {axis = 1 : i64} : (tensor<3x2xf32>, tensor<i32>) -> tensor<3xf32>",
     ["tensor<3x2xf32>", "tensor<i32>"], "tensor<3xf32>", [np.zeros((3, 2), np.float32), np.array(-1, np.int32)],
     "'tensor.gather' op index -1 (at position 0 of the indices) is out of range for axis 1 of size 2"),
    ("negative integer exponent", "%r = tensor.pow", "%r = tensor.pow %a0, %a1 : tensor<2xi8>", ["tensor<2xi8>"] * 2,
     "tensor<2xi8>", [np.array([2, 2], np.int8), np.array([1, -1], np.int8)],
     "'tensor.pow' op integer power with a negative exponent (2 ** -1)"),
    ("max of an empty axis", "%r = tensor.reduce",
     '%r = tensor.reduce %a0 {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<2x?xf32>) -> tensor<2xf32>',
     ["tensor<2x?xf32>"], "tensor<2xf32>", [np.zeros((2, 0), np.float32)],
     "'tensor.reduce' op 'max' reduction of an empty axis"),
    ("dynamic shapes that do not broadcast", "%r = tensor.add", "%r = tensor.add %a0, %a1 : tensor<?xf64>",
     ["tensor<?xf64>"] * 2, "tensor<?xf64>", [np.zeros(3), np.zeros(4)], "'tensor.add' op "),
    ("reshape of a dynamic size", "%r = tensor.reshape", "%r = tensor.reshape %a0 : (tensor<?xi1>) -> tensor<?x4xi1>",
     ["tensor<?xi1>"], "tensor<?x4xi1>", [np.zeros(6, bool)], "'tensor.reshape' op cannot reshape 6 elements"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_runtime_error_is_located(case, tmp_path, stats):
    _, marker, line, types, rtype, values, message = case
    elems = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.int8): "i8",
             np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(bool): "i1"}
    prog = one_op(line, types, rtype)
    inputs = {f"arg{i}": (v, elems[v.dtype]) for i, v in enumerate(values)}
    err = located(Run(tmp_path, prog, inputs=inputs), prog, marker, message)
    assert "\n  " + line.strip() + "\n" in err and "^" in err  # the source line and a caret
    stats("errors", 1)


def test_error_in_a_callee_notes_the_call(tmp_path, stats):
    prog = """func.func @inner(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  %r = tensor.div %a, %b : tensor<2xi64>
  return %r : tensor<2xi64>
}
func.func @main(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  %r = call @inner(%a, %b) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
"""
    r = Run(tmp_path, prog, inputs={"arg0": "[1, 2]", "arg1": "[1, 0]"})
    err = located(r, prog, "%r = tensor.div", "'tensor.div' op integer division by zero")
    assert f"{r.prog}:6:8: note: called from here (@inner)" in err, err
    stats("errors", 1)


def test_error_in_a_vmap_body_notes_the_element(tmp_path, stats):
    prog = """func.func @main(%x: tensor<4x2xi32>, %d: tensor<4x2xi32>) -> tensor<4x2xi32> {
  %r = xcs.vmap %x, %d {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<4x2xi32>, tensor<4x2xi32>) -> tensor<4x2xi32> {
  ^bb0(%e: tensor<2xi32>, %f: tensor<2xi32>):
    %q = tensor.div %e, %f : tensor<2xi32>
    xcs.yield %q : tensor<2xi32>
  }
  return %r : tensor<4x2xi32>
}
"""
    d = np.ones((4, 2), np.int32)
    d[2, 1] = 0
    r = Run(tmp_path, prog, inputs={"arg0": "7", "arg1": (d, "i32")})
    err = located(r, prog, "%q = tensor.div", "'tensor.div' op integer division by zero")
    assert f"{r.prog}:2:8: note: in batch element 2" in err, err
    stats("errors", 1)
