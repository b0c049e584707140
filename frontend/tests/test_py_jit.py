"""xcs.jit: caching and retracing, static_argnums, pipeline=, lower().as_text/compile/cost,
errors located at the user's Python line, zero-copy results."""

import os
import re

import numpy as np
import pytest

import xcs
import xcs.numpy as xnp


def test_cache_and_retrace(rng):
    calls = []

    @xcs.jit
    def f(x, y):
        calls.append(1)
        return x * y + 1.0

    a, b = rng.random((3, 4), dtype=np.float32), rng.random((4,), dtype=np.float32)
    np.testing.assert_allclose(f(a, b), a * b + 1.0, rtol=1e-6)
    np.testing.assert_allclose(f(a + 1, b), (a + 1) * b + 1.0, rtol=1e-6)
    assert f.cache_info() == (1, 1, 1, 1) and len(calls) == 1  # unchanged key: no retrace
    f(a[:2], b)  # new shape
    f(a.astype(np.float64), b)  # new dtype
    assert f.cache_info().misses == 3 and f.cache_info().traces == 3 and len(calls) == 3
    f(a[:2], b)
    assert f.cache_info().hits == 2 and len(calls) == 3


def test_static_argnums(rng):
    @xcs.jit(static_argnums=(1,))
    def power_sum(x, n, axis):
        y = x
        for _ in range(n - 1):
            y = y * x
        return y.sum(axis=axis)

    # static_argnums=1 only: axis is dynamic... so make it static too
    f = xcs.jit(lambda x, n, axis: power_sum.fun(x, n, axis), static_argnums=(1, 2))
    x = rng.random((3, 5))
    np.testing.assert_allclose(f(x, 3, 0), (x ** 3).sum(0))
    np.testing.assert_allclose(f(x, 2, 1), (x ** 2).sum(1))
    np.testing.assert_allclose(f(x, 3, 0), (x ** 3).sum(0))
    assert f.cache_info().misses == 2 and f.cache_info().hits == 1


def test_python_functions_are_traced_through(rng):
    def dense(x, w, b):
        return xcs.nn.relu(x @ w + b)

    @xcs.jit
    def mlp(x, w1, b1, w2):
        return xcs.nn.softmax(dense(x, w1, b1) @ w2, axis=-1)

    x, w1, b1, w2 = (rng.standard_normal(s).astype(np.float32) for s in [(4, 8), (8, 16), (16,), (16, 3)])
    h = np.maximum(x @ w1 + b1, 0) @ w2
    e = np.exp(h - h.max(-1, keepdims=True))
    np.testing.assert_allclose(mlp(x, w1, b1, w2), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
    text = mlp.lower(x, w1, b1, w2).as_text()
    assert "func.call" not in text and "tensor.matmul" in text  # traced through, not called


def test_lower_as_text_locations(rng):
    def f(x):
        y = xnp.exp(x)
        return y * 2

    lowered = xcs.jit(f).lower(np.zeros((2, 2), np.float32))
    text = lowered.as_text()
    assert "loc(" not in text and "tensor.exp" in text
    dbg = lowered.as_text(debug_info=True)
    here = os.path.abspath(__file__)
    line = f.__code__.co_firstlineno + 1
    assert re.search(rf'loc\("{re.escape(here)}":{line}:\d+\)', dbg), dbg
    # the printed IR is ordinary XCS IR: it parses again
    assert "tensor.exp" in xcs.Program.parse(dbg).text()


def test_compile_and_pipeline(rng):
    f = xcs.jit(lambda x: xcs.nn.gelu(x) + xcs.nn.gelu(x), pipeline="builtin.module(func.func(cse))")
    x = rng.random((3, 3), dtype=np.float32)
    compiled = f.lower(x).compile()
    assert compiled.as_text().count("tensor.gelu") == 1  # cse merged them
    np.testing.assert_allclose(compiled(x), f(x), rtol=1e-6)
    fused = xcs.jit(lambda x: xnp.exp(x) * 2 + 1).lower(x).compile().as_text()
    assert "tensor.fused" in fused  # the default pipeline fuses


def test_cost_report(rng):
    x, w = np.zeros((4, 8), np.float32), np.zeros((8, 16), np.float32)
    report = xcs.jit(lambda x, w: x @ w).lower(x, w).cost()
    assert int(report["flops"]) == 2 * 4 * 8 * 16


def test_results_are_numpy_without_copies(rng):
    x = rng.random((5, 5))
    (r, s) = xcs.jit(lambda x: (x + 1, x.sum()))(x)
    # the array wraps the buffer the compiled code allocated (its base owns and frees it)
    assert isinstance(r, np.ndarray) and type(r.base).__name__ == "ResultBuffer"
    np.testing.assert_allclose(r, x + 1)
    np.testing.assert_allclose(s, x.sum())
    r[0, 0] = 7.0  # results are ordinary writable arrays
    assert r[0, 0] == 7.0


def test_output_structures(rng):
    x = rng.random(3)
    out = xcs.jit(lambda x: {"a": x * 2, "b": [x + 1, (x.sum(), 3.0)]})(x)
    np.testing.assert_allclose(out["a"], x * 2)
    np.testing.assert_allclose(out["b"][1][0], x.sum())
    assert float(out["b"][1][1]) == 3.0


def test_shape_error_names_the_python_line():
    def f(x, y):
        return x + y  # shapes (3,) and (4,)

    with pytest.raises(xcs.TraceError) as e:
        xcs.jit(f)(np.zeros(3), np.zeros(4))
    assert e.value.file == os.path.abspath(__file__) or e.value.file.endswith("test_py_jit.py")
    assert e.value.line == f.__code__.co_firstlineno + 1
    assert "do not broadcast" in str(e.value)
    assert isinstance(e.value, xcs.XcsError)


def test_numpy_function_without_op_is_named():
    with pytest.raises(xcs.TraceError, match=r"numpy\.fft\.fft has no tensor op"):
        xcs.jit(lambda x: np.fft.fft(x))(np.zeros(4))
    with pytest.raises(xcs.TraceError, match="numpy.argsort has no tensor op"):
        xcs.jit(lambda x: np.argsort(x))(np.zeros(4))
    with pytest.raises(xcs.TraceError, match="numpy.linalg.norm has no tensor op"):
        xcs.jit(lambda x: np.linalg.norm(x))(np.zeros(4))
    # numpy's own names with a tensor op work on traced arrays
    np.testing.assert_allclose(xcs.jit(lambda x: np.sum(np.exp(x), axis=0))(np.ones((2, 3))), np.exp(np.ones((2, 3))).sum(0))


def test_control_flow_on_traced_values_is_an_error():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(xcs.TraceError, match="truth value"):
        xcs.jit(f)(np.ones(3))


def test_bad_pipeline_is_a_compile_error():
    with pytest.raises(xcs.CompileError):
        xcs.jit(lambda x: x + 1, pipeline="builtin.module(no-such-pass)")(np.ones(2))


def test_run_error_on_wrong_shape_call():
    c = xcs.jit(lambda x: x * 2).lower(np.ones(3)).compile()
    with pytest.raises(xcs.RunError):
        c(np.ones(4))


def test_unsupported_dtype_is_a_trace_error():
    with pytest.raises(xcs.TraceError, match="uint8"):
        xcs.jit(lambda x: x + 1)(np.ones(3, np.uint8))


def test_non_contiguous_and_convertible_inputs(rng):
    f = xcs.jit(lambda x: x * 2)
    x = rng.random((4, 6))
    view = x[:, ::2]  # not contiguous: the compiled signature takes its shape and dtype
    np.testing.assert_allclose(f(view), view * 2)
    c = f.lower(np.zeros((2, 2))).compile()
    np.testing.assert_allclose(c([[1, 2], [3, 4]]), np.array([[2.0, 4.0], [6.0, 8.0]]))
    with pytest.raises(xcs.RunError, match="argument #0"):
        c([["a", "b"], ["c", "d"]])


def test_pytree_arguments(rng):
    """Lists, tuples and dicts of arrays are arguments as in jax (each array one input)."""
    params = {"w": rng.random((3, 4)), "b": rng.random(4), "layers": [rng.random((4, 4)), rng.random((4, 4))]}

    @xcs.jit
    def net(p, x):
        h = x @ p["w"] + p["b"]
        for w in p["layers"]:
            h = xcs.nn.relu(h @ w)
        return h

    x = rng.random((2, 3))
    want = x @ params["w"] + params["b"]
    for w in params["layers"]:
        want = np.maximum(want @ w, 0)
    np.testing.assert_allclose(net(params, x), want)
    net(params, x)
    assert net.cache_info().hits == 1 and net.cache_info().traces == 1
    nested = [[1.0, 2.0], [3.0, 4.0]]  # a nested list of numbers is one array-like argument
    np.testing.assert_allclose(xcs.jit(lambda xs: xs[0] + xs[1])(nested), np.asarray(nested)[0] + np.asarray(nested)[1])


def test_pass_error_points_at_the_python_line():
    """An error of a pass (vmap-batch: an unbatched result that depends on the batch) is a
    CompileError located at the Python line that made the op."""
    def f(x):
        return xcs.vmap(lambda r: r * 2, out_axes=None)(x)

    with pytest.raises(xcs.CompileError) as e:
        xcs.jit(f)(np.ones((3, 2)))
    assert e.value.file.endswith("test_py_jit.py")
    assert e.value.line == f.__code__.co_firstlineno + 1


def test_submodules_after_plain_import():
    import importlib
    pkg = importlib.import_module("xcs")
    assert pkg.numpy.add is not None and pkg.nn.relu is not None and "echo" in pkg.providers.names()
