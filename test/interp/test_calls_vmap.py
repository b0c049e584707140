"""`func.call` (nested, multiple results, recursion through `cf`) and `xcs.vmap` (in/out axes
0, 1, -1, several results, nested maps, calls in the body) against numpy loops."""

import numpy as np

from harness import XCS_TEST_RUN, Gen, Run, mismatch, to_elem


def softmax(x, axis=-1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def close(got, exp, elem="f32"):
    m = mismatch(got, exp, elem, exact=False)
    assert m is None, m


def test_nested_calls_with_several_results(tmp_path, stats):
    prog = """
func.func @affine(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %m = tensor.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %r = tensor.add %m, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
func.func @head(%h: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?xf32>) {
  %a = tensor.relu %h : tensor<?x3xf32>
  %s = tensor.softmax %a {axis = 1 : i64} : tensor<?x3xf32>
  %m = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<?x3xf32>) -> tensor<?xf32>
  return %s, %m : tensor<?x3xf32>, tensor<?xf32>
}
func.func @main(%x: tensor<?x4xf32> {xcs.name = "x"}, %w: tensor<4x3xf32> {xcs.name = "w"}, %b: tensor<3xf32> {xcs.name = "b"})
    -> (tensor<?x3xf32> {xcs.name = "probs"}, tensor<?xf32> {xcs.name = "peak"}, tensor<?x3xf32> {xcs.name = "hidden"}) {
  %h = call @affine(%x, %w, %b) : (tensor<?x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %p:2 = call @head(%h) : (tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?xf32>)
  return %p#0, %p#1, %h : tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>
}
"""
    g = Gen(1)
    x, w, b = g.floats((5, 4), "f32"), g.floats((4, 3), "f32"), g.floats((3,), "f32")
    r = Run(tmp_path, prog, inputs={"x": (x, "f32"), "w": (w, "f32"), "b": (b, "f32")})
    h = to_elem(x.astype(np.float64) @ w.astype(np.float64), "f32") + b
    a = np.maximum(h, 0)
    close(r.result("hidden", "f32"), h)
    close(r.result("probs", "f32"), to_elem(softmax(a, 1), "f32"))
    close(r.result("peak", "f32"), a.max(axis=1))
    stats("func.call", 3)


def test_recursion_through_branches(tmp_path, stats):
    # sum(x, n) = n == 0 ? 0 * x : x + sum(x, n - 1), with an i64 scalar from a literal input
    # (the scalar counter is the test dialect's: xcs-test-run)
    prog = """
func.func @rsum(%x: tensor<3xi32>, %n: i64) -> tensor<3xi32> {
  %zero = test.constant {value = 0 : i64} : i64
  %done = test.cmpi %n, %zero {predicate = "eq"} : (i64, i64) -> i1
  cf.cond_br %done, ^base, ^step
^base:
  %z = tensor.sub %x, %x : tensor<3xi32>
  return %z : tensor<3xi32>
^step:
  %m1 = test.constant {value = -1 : i64} : i64
  %k = test.addi %n, %m1 : i64
  %rest = call @rsum(%x, %k) : (tensor<3xi32>, i64) -> tensor<3xi32>
  %s = tensor.add %x, %rest : tensor<3xi32>
  return %s : tensor<3xi32>
}
func.func @main(%x: tensor<3xi32>, %n: i64) -> tensor<3xi32> {
  %r = call @rsum(%x, %n) : (tensor<3xi32>, i64) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
"""
    x = np.array([1, -2, 7], dtype=np.int32)
    r = Run(tmp_path, prog, inputs={"arg0": (x, "i32"), "arg1": "37"}, tool=XCS_TEST_RUN)
    assert (r.result("result0", "i32") == 37 * x).all()
    stats("func.call", 1)


def vmap_loop(f, xs, in_axes, out_axes):
    """numpy's reference for xcs.vmap: slice batched operands, call f per element, stack."""
    batch = {x.shape[a] for x, a in zip(xs, in_axes) if a != -1}
    assert len(batch) == 1
    (n,) = batch
    per = [f(*[np.take(x, k, axis=a) if a != -1 else x for x, a in zip(xs, in_axes)]) for k in range(n)]
    outs = []
    for j, a in enumerate(out_axes):
        outs.append(per[0][j] if a == -1 else np.stack([p[j] for p in per], axis=a))
    return outs


def test_vmap_axis0(tmp_path, stats):
    prog = """
func.func @main(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<6x4xf32> {
  ^bb0(%e: tensor<4xf32>):
    %s = tensor.softmax %e {axis = 0 : i64} : tensor<4xf32>
    xcs.yield %s : tensor<4xf32>
  }
  return %r : tensor<6x4xf32>
}
"""
    x = Gen(2).floats((6, 4), "f32")
    r = Run(tmp_path, prog, inputs={"arg0": (x, "f32")})
    (exp,) = vmap_loop(lambda e: [to_elem(softmax(e), "f32")], [x], [0], [0])
    close(r.result("result0", "f32"), exp)
    stats("xcs.vmap", 1)


def test_vmap_axis1_unbatched_operand_dynamic_batch(tmp_path, stats):
    # x is batched along axis 1 (a dynamic batch), w is shared (-1); the result's batch dim goes to axis 1
    prog = """
func.func @main(%x: tensor<4x?xf32>, %w: tensor<4x3xf32>) -> tensor<3x?xf32> {
  %r = xcs.vmap %x, %w {in_axes = array<i64: 1, -1>, out_axes = array<i64: 1>} : (tensor<4x?xf32>, tensor<4x3xf32>) -> tensor<3x?xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<4x3xf32>):
    %row = tensor.reshape %e : (tensor<4xf32>) -> tensor<1x4xf32>
    %m = tensor.matmul %row, %v : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
    %o = tensor.reshape %m : (tensor<1x3xf32>) -> tensor<3xf32>
    %t = tensor.tanh %o : tensor<3xf32>
    xcs.yield %t : tensor<3xf32>
  }
  return %r : tensor<3x?xf32>
}
"""
    g = Gen(3)
    x, w = g.floats((4, 7), "f32"), g.floats((4, 3), "f32")
    r = Run(tmp_path, prog, inputs={"0": (x, "f32"), "1": (w, "f32")})
    f = lambda e, v: [np.tanh(to_elem(e.astype(np.float64) @ v.astype(np.float64), "f32"))]
    (exp,) = vmap_loop(f, [x, w], [1, -1], [1])
    assert exp.shape == (3, 7)
    close(r.result("result0", "f32"), exp)
    stats("xcs.vmap", 1)


def test_vmap_several_results_out_axes(tmp_path, stats):
    # results with out_axes 0, 1 and -1 (not batched: element 0's value); an i32 body
    prog = """
func.func @main(%x: tensor<5x3xi32>, %w: tensor<3xi32>) -> (tensor<5x3xi32>, tensor<3x5xi32>, tensor<i32>, tensor<3xi32>) {
  %r:4 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 1, -1, -1>} : (tensor<5x3xi32>, tensor<3xi32>) -> (tensor<5x3xi32>, tensor<3x5xi32>, tensor<i32>, tensor<3xi32>) {
  ^bb0(%e: tensor<3xi32>, %v: tensor<3xi32>):
    %sq = tensor.mul %e, %e : tensor<3xi32>
    %sh = tensor.add %e, %v : tensor<3xi32>
    %s = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<3xi32>) -> tensor<i32>
    %d = tensor.add %v, %v : tensor<3xi32>
    xcs.yield %sq, %sh, %s, %d : (tensor<3xi32>, tensor<3xi32>, tensor<i32>, tensor<3xi32>) -> ()
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<5x3xi32>, tensor<3x5xi32>, tensor<i32>, tensor<3xi32>
}
"""
    g = Gen(4)
    x, w = g.ints((5, 3), "i32", -100, 100), g.ints((3,), "i32", -100, 100)
    r = Run(tmp_path, prog, inputs={"arg0": (x, "i32"), "arg1": (w, "i32")})
    exp = vmap_loop(lambda e, v: [e * e, e + v, e.sum(dtype=np.int32), v + v], [x, w], [0, -1], [0, 1, -1, -1])
    for j, e in enumerate(exp):
        got = r.result(f"result{j}", "i32")
        assert mismatch(got, e, "i32", True) is None, (j, mismatch(got, e, "i32", True))
    stats("xcs.vmap", 4)


def test_nested_vmap_with_a_call(tmp_path, stats):
    # outer map over axis 0 of [2, 3, 4], inner map over axis 1 of the [3, 4] element, the inner
    # body calls a function; inner results stack at axis 0, outer ones at axis 1: [4, 2]
    prog = """
func.func @peak(%v: tensor<3xf64>) -> tensor<f64> {
  %e = tensor.exp %v : tensor<3xf64>
  %m = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "max"} : (tensor<3xf64>) -> tensor<f64>
  return %m : tensor<f64>
}
func.func @main(%x: tensor<2x3x4xf64>) -> tensor<4x2xf64> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 1>} : (tensor<2x3x4xf64>) -> tensor<4x2xf64> {
  ^bb0(%m: tensor<3x4xf64>):
    %i = xcs.vmap %m {in_axes = array<i64: 1>, out_axes = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<4xf64> {
    ^bb0(%col: tensor<3xf64>):
      %p = func.call @peak(%col) : (tensor<3xf64>) -> tensor<f64>
      xcs.yield %p : tensor<f64>
    }
    xcs.yield %i : tensor<4xf64>
  }
  return %r : tensor<4x2xf64>
}
"""
    x = Gen(5).floats((2, 3, 4), "f64")
    r = Run(tmp_path, prog, inputs={"arg0": (x, "f64")})
    inner = lambda m: vmap_loop(lambda col: [np.exp(col).max()], [m], [1], [0])
    (exp,) = vmap_loop(inner, [x], [0], [1])
    assert exp.shape == (4, 2)
    close(r.result("result0", "f64"), exp, "f64")
    stats("xcs.vmap", 1)


def test_parallel_map_equals_vmap(tmp_path, stats):
    body = """(%x: tensor<8x5xf16>) -> tensor<5x8xf16> {{
  %r = {op} %x {{in_axes = array<i64: 0>, out_axes = array<i64: 1>{extra}}} : (tensor<8x5xf16>) -> tensor<5x8xf16> {{
  ^bb0(%e: tensor<5xf16>):
    %s = tensor.sigmoid %e : tensor<5xf16>
    xcs.yield %s : tensor<5xf16>
  }}
  return %r : tensor<5x8xf16>
}}
"""
    prog = ("func.func @v" + body.format(op="xcs.vmap", extra="")
            + "func.func @p" + body.format(op="xcs.parallel_map", extra=", max_concurrency = 2 : i64"))
    x = Gen(6).floats((8, 5), "f16")
    exp = to_elem(1 / (1 + np.exp(-x.astype(np.float32))), "f16").T
    for entry in ["v", "p"]:
        r = Run(tmp_path / entry, prog, entry=entry, inputs={"arg0": (x, "f16")})
        close(r.result("result0", "f16"), exp, "f16")
    stats("xcs.vmap", 2)


def test_vmap_over_an_empty_batch(tmp_path, stats):
    # nothing runs; a batched result is the declared type with 0 in the batch dim
    prog = """
func.func @main(%x: tensor<?x3xi64>, %w: tensor<3xi64>) -> (tensor<?x3xi64>, tensor<3x?xi64>) {
  %r:2 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 1>} : (tensor<?x3xi64>, tensor<3xi64>) -> (tensor<?x3xi64>, tensor<3x?xi64>) {
  ^bb0(%e: tensor<3xi64>, %v: tensor<3xi64>):
    %m = tensor.mul %e, %v : tensor<3xi64>
    xcs.yield %m, %m : (tensor<3xi64>, tensor<3xi64>) -> ()
  }
  return %r#0, %r#1 : tensor<?x3xi64>, tensor<3x?xi64>
}
"""
    x, w = np.zeros((0, 3), np.int64), np.arange(3, dtype=np.int64)
    r = Run(tmp_path, prog, inputs={"arg0": (x, "i64"), "arg1": (w, "i64")})
    assert r.result("result0", "i64").shape == (0, 3)
    assert r.result("result1", "i64").shape == (3, 0)
    stats("xcs.vmap", 2)
