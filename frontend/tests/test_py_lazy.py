"""`xcs.lazy` (seed 003's LazyTensor on numpy's protocols): seed 003's three tests in numpy form,
metadata, materialization triggers, the compiled-graph cache, eager fallbacks and their log,
the errors, the captured IR text, and random programs run lazily against eager numpy
(including fallbacks and Python control flow on materialized values).
"""

import logging
import os
import pathlib
import subprocess

import numpy as np
import pytest

import xcs
import xcs.numpy as xnp
from xcs import lazy

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_settings():
    old = lazy.configure()
    yield
    lazy.configure(**old)


# ---------------------------------------------------------------- seed 003's tests, numpy form

def test_lazy_tensor_creation():
    x = lazy.randn(10, 10)
    assert isinstance(x, lazy.LazyTensor)
    assert x.metadata.operation_type == "randn"
    assert tuple(x.metadata.tensor_shape) == (10, 10)


def test_operation_interception():
    x = lazy.randn(10, 10)
    y = lazy.randn(10, 10)
    z = x + y
    assert isinstance(z, lazy.LazyTensor)
    assert z.operation == "tensor.add"
    assert len(z.inputs) == 2


def test_materialization():
    x = lazy.randn(10, 10)
    y = x.numpy()
    assert isinstance(y, np.ndarray)
    assert y.shape == (10, 10)


# ---------------------------------------------------------------- capture and metadata

def test_nodes_record_the_tensor_op_shape_dtype_and_location(rng):
    a = lazy.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    b = lazy.zeros((4, 2), dtype=np.float32)
    c = a @ b
    line = c.metadata.location[1]
    assert (c.operation, c.shape, c.dtype) == ("tensor.matmul", (3, 2), np.float32)
    assert c.metadata.location[0] == __file__ and line > 0
    assert c.metadata.module_path == f"{__name__}.test_nodes_record_the_tensor_op_shape_dtype_and_location"
    assert b.operation == "zeros" and a.operation == "asarray"
    assert lazy.full((2,), 7).operation == "full" and lazy.ones(3).dtype == np.float64
    assert not c.is_materialized and not b.is_materialized
    r = np.exp(c).sum(axis=0, keepdims=True).T
    assert (r.operation, r.shape) == ("tensor.transpose", (2, 1))
    assert np.mean(a, axis=1).operation == "tensor.reduce"
    assert np.shape(c) == (3, 2) and np.ndim(c) == 2 and not c.is_materialized  # metadata only
    with lazy.scope("encoder"), lazy.scope("layer1"):
        h = a * 2
    assert h.metadata.module_path == "encoder.layer1"


def test_xnp_and_nn_functions_record_nodes(rng):
    x = rng.standard_normal((4, 5))
    t = lazy.asarray(x)
    for fn, op in ((xnp.tanh, "tensor.tanh"), (xnp.erf, "tensor.erf"), (lambda v: xnp.rsqrt(np.abs(v) + 0.1), "tensor.rsqrt"),
                   (xcs.nn.relu, "tensor.relu"), (lambda v: xcs.nn.softmax(v, axis=0), "tensor.softmax"),
                   (lambda v: xnp.where(v > 0, v, 0.0), "tensor.select"), (lambda v: xnp.clip(v, -0.5, 0.5), "tensor.clamp")):
        y = fn(t)
        assert isinstance(y, lazy.LazyTensor) and y.operation == op
        expected = fn(x) if op != "tensor.rsqrt" else 1 / np.sqrt(np.abs(x) + 0.1)
        np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-6, atol=1e-12)


def _pending(rng, shape, dtype=np.float64):
    """A random array and a pending LazyTensor of the same value (`x + 0`: a node, not a leaf)."""
    x = rng.standard_normal(shape).astype(dtype)
    t = lazy.asarray(x) + 0
    assert not t.is_materialized
    return x, t


# (name, lazy function, eager numpy function): every one records a node on a pending tensor
_RECORDED = [
    ("xnp.astype", lambda v: xnp.astype(v, np.float32), lambda v: v.astype(np.float32)),
    ("xnp.astype int", lambda v: xnp.astype(v * 3, np.int32), lambda v: (v * 3).astype(np.int32)),
    ("xnp.asarray dtype", lambda v: xnp.asarray(v, np.float32) * 2, lambda v: np.asarray(v, np.float32) * 2),
    ("xnp.asarray", lambda v: xnp.asarray(v) * 2, lambda v: v * 2),
    ("xnp.array", lambda v: xnp.array(v) + 1, lambda v: v + 1),
    ("nn.layer_norm", lambda v: xcs.nn.layer_norm(v), None),
    ("nn.layer_norm gamma beta", lambda v: xcs.nn.layer_norm(v, v[0] * 0 + 2.0, v[1]), None),
    ("ndarray.copy", lambda v: v.copy() + 1, lambda v: v.copy() + 1),
    ("ndarray.conj", lambda v: v.conj() * 2, lambda v: v.conj() * 2),
    ("ndarray.dot", lambda v: v.dot(v.T), lambda v: v.dot(v.T)),
    ("ndarray.diagonal", lambda v: v.diagonal(), lambda v: v.diagonal()),
    ("numpy.diagonal offset", lambda v: np.diagonal(v, 1), lambda v: np.diagonal(v, 1)),
    ("numpy.diagonal offset -1", lambda v: np.diagonal(v, -1), lambda v: np.diagonal(v, -1)),
    ("ndarray.trace", lambda v: v.trace(), lambda v: v.trace()),
    ("numpy.trace", lambda v: np.trace(v, 1), lambda v: np.trace(v, 1)),
    ("ndarray.repeat", lambda v: v.repeat(2), lambda v: v.repeat(2)),
    ("numpy.repeat axis", lambda v: np.repeat(v, 3, axis=1), lambda v: np.repeat(v, 3, axis=1)),
    ("ndarray.argmax", lambda v: v.argmax(), lambda v: v.argmax()),
    ("numpy.argmax axis", lambda v: np.argmax(v, axis=0), lambda v: np.argmax(v, axis=0)),
    ("ndarray.argmin keepdims", lambda v: v.argmin(axis=1, keepdims=True), lambda v: v.argmin(axis=1, keepdims=True)),
    ("numpy.argmin bool", lambda v: np.argmin(v > 0, axis=1), lambda v: np.argmin(v > 0, axis=1)),
    ("ndarray.ptp", lambda v: v.ptp(axis=0) if hasattr(np.ndarray, "ptp") else np.ptp(v, axis=0),
     lambda v: np.ptp(v, axis=0)),
    ("numpy.cumsum", lambda v: np.cumsum(v), lambda v: np.cumsum(v)),
    ("ndarray.cumsum axis", lambda v: v.cumsum(axis=1), lambda v: v.cumsum(axis=1)),
    ("numpy.cumsum int", lambda v: np.cumsum((v > 0), axis=0), lambda v: np.cumsum((v > 0), axis=0)),
]


def _layer_norm(v, gamma=None, beta=None):
    m = v.mean(-1, keepdims=True)
    out = (v - m) / np.sqrt(((v - m) ** 2).mean(-1, keepdims=True) + 1e-5)
    return out * (1.0 if gamma is None else gamma) + (0.0 if beta is None else beta)


@pytest.mark.parametrize("name,fn,eager", _RECORDED, ids=[r[0] for r in _RECORDED])
def test_more_xnp_nn_and_array_methods_record_nodes(rng, name, fn, eager):
    """`xcs.numpy`/`xcs.nn` functions and array methods on a pending tensor record nodes (the
    input stays pending, the result is pending) and equal eager numpy."""
    x, t = _pending(rng, (4, 4))
    y = fn(t)
    assert isinstance(y, lazy.LazyTensor) and not y.is_materialized and not t.is_materialized, name
    if name == "nn.layer_norm":
        expected = _layer_norm(x)
    elif name == "nn.layer_norm gamma beta":
        expected = _layer_norm(x, 2.0, x[1])
    else:
        expected = eager(x)
    value = y.numpy()
    assert value.dtype == np.asarray(expected).dtype and value.shape == np.shape(expected), name
    np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-9)


def test_layer_norm_node_and_graph(rng):
    x, t = _pending(rng, (3, 8), np.float32)
    y = xcs.nn.layer_norm(t, axis=-1, epsilon=1e-3)
    assert y.operation == "tensor.layer_norm" and y.dtype == np.float32 and "tensor.layer_norm" in lazy.graph(y)
    z = xcs.nn.layer_norm(t, axis=-1, epsilon=1e-1)  # epsilon is part of the structure: its own graph
    m = x.mean(-1, keepdims=True)
    for v, eps in ((y, 1e-3), (z, 1e-1)):
        np.testing.assert_allclose(v.numpy(), (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + eps),
                                   rtol=1e-4, atol=1e-5)


def test_creation_and_seed_repeatable():
    lazy.seed(7)
    a = lazy.randn(3, 4).numpy()
    lazy.seed(7)
    b = lazy.randn((3, 4)).numpy()
    c = lazy.randn(3, 4).numpy()
    assert np.array_equal(a, b) and not np.array_equal(b, c)
    assert lazy.randn(2, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal((lazy.full((2, 3), 2.5) + lazy.ones((3,))).numpy(), np.full((2, 3), 3.5))
    assert lazy.zeros(3, dtype=np.int32).numpy().dtype == np.int32
    t = lazy.asarray([1, 2, 3])
    assert lazy.asarray(t) is t and lazy.asarray(t, dtype=np.float32).dtype == np.float32


# ---------------------------------------------------------------- materialization

def test_materialization_triggers(rng, capsys):
    x = rng.standard_normal((3, 3))
    t = lazy.asarray(x)
    s = (t * t).sum()
    assert bool(s > 0) is True
    assert float(s) == pytest.approx(float((x * x).sum()))
    assert int(lazy.asarray(np.array([2.7])).sum() * 2) == 5
    assert (t + 1).item(0) == pytest.approx(x[0, 0] + 1)
    np.testing.assert_allclose(np.asarray(t - 1), x - 1)
    np.testing.assert_allclose((t / 2).materialize(), x / 2)
    print(t[0] * 0)
    assert "0." in capsys.readouterr().out
    assert repr(t.T).startswith("LazyTensor(array(") and "tensor.transpose" in repr(t.T)
    u = t + 3
    assert not u.is_materialized
    a, b = lazy.materialize(u, u * 2)
    np.testing.assert_allclose(b, 2 * (x + 3))
    assert u.is_materialized and u.inputs == ()


def test_pending_limit_materializes_long_chains(rng):
    lazy.configure(max_pending=8)
    x = rng.standard_normal(5)
    t, ref, chain = lazy.asarray(x), x, []
    for i in range(20):
        t, ref = t * 0.5 + 1.0, ref * 0.5 + 1.0
        chain.append(t)
    assert any(c.is_materialized for c in chain[:-1])
    assert all(c._pending < 8 for c in chain)
    np.testing.assert_allclose(t.numpy(), ref)


def test_long_captures_keep_their_nodes_from_the_cyclic_collector(rng, monkeypatch):
    """Every `_FREEZE_EVERY` recorded nodes are moved out of the collector's reach (gc.freeze),
    and given back at the next materialization; a program's own freeze is left alone."""
    import gc
    lazy.configure(max_pending=10**6)
    monkeypatch.setattr(lazy, "_FREEZE_EVERY", 50)
    gc.unfreeze()
    x = rng.standard_normal(3)
    t, ref = lazy.asarray(x), x
    for _ in range(120):
        t, ref = t + 1.0, ref + 1.0
    assert gc.isenabled() and gc.get_freeze_count() > 0 and not t.is_materialized
    np.testing.assert_allclose(t.numpy(), ref)
    assert gc.get_freeze_count() == 0  # given back
    gc.freeze()  # the program's own
    try:
        frozen = gc.get_freeze_count()
        for _ in range(120):
            t = t + 1.0
        t.numpy()
        assert 0 < gc.get_freeze_count() <= frozen  # neither frozen further (freed nodes leave it) nor unfrozen
    finally:
        gc.unfreeze()


def test_structurally_equal_graphs_hit_the_cache(rng):
    lazy.cache_clear()

    def program(a, b):
        return (np.tanh(a @ b) * 2.0 + a.sum(axis=1, keepdims=True)).max(axis=0)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
    np.testing.assert_allclose(program(lazy.asarray(x), lazy.asarray(y)).numpy(), program(x, y), rtol=1e-12)
    info = lazy.cache_info()
    assert (info.hits, info.misses) == (0, 1)
    for _ in range(3):  # new data, same structure: no recompile
        x, y = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
        np.testing.assert_allclose(program(lazy.asarray(x), lazy.asarray(y)).numpy(), program(x, y), rtol=1e-12)
    info = lazy.cache_info()
    assert (info.hits, info.misses, info.size) == (3, 1, 1)
    program(lazy.asarray(x[:2]), lazy.asarray(y)).numpy()  # other shapes: compiled again
    (program(lazy.asarray(x), lazy.asarray(y)) + 1).numpy()  # another op: compiled again
    assert lazy.cache_info().misses == 3


def test_a_loop_with_control_flow_compiles_its_body_once(rng):
    lazy.cache_clear()
    x = lazy.asarray(rng.uniform(1.0, 2.0, 8))
    steps = 0
    while float(np.abs(x).max()) > 1e-3:  # Python control flow on materialized values
        x = x * 0.5 - 0.0001
        steps += 1
    assert steps > 5
    info = lazy.cache_info()
    assert info.misses <= 3 and info.hits >= steps - 2


def test_float_scalars_of_elementwise_ops_are_data_not_structure(rng):
    lazy.cache_clear()
    x0 = rng.standard_normal(6).astype(np.float32)
    x, ref = lazy.asarray(x0), x0
    for step in range(6):
        lr = 0.1 / (step + 1)  # a new Python float every step
        x, ref = x - lr * x + 1.0, ref - lr * ref + 1.0
        np.testing.assert_allclose(x.numpy(), ref, rtol=1e-6)
        assert x.dtype == np.float32
    info = lazy.cache_info()
    assert (info.misses, info.hits) == (1, 5)
    y = lazy.asarray(np.arange(3)) * 1.5  # an integer array: numpy's float64 result, the scalar a constant
    assert y.dtype == np.float64 and "dense<1.5" in lazy.graph(y)
    np.testing.assert_array_equal(y.numpy(), np.arange(3) * 1.5)


def test_lazy_tensors_passed_to_a_jitted_function(rng):
    x = rng.standard_normal((3, 4))
    f = xcs.jit(lambda a, b: a @ b.T + 1.0)
    t = lazy.asarray(x) * 2.0
    np.testing.assert_allclose(f(t, lazy.asarray(x)), (2 * x) @ x.T + 1.0)
    assert t.is_materialized


# ---------------------------------------------------------------- fallbacks and errors

def test_numpy_functions_without_tensor_op_fall_back_and_are_logged(rng, caplog, monkeypatch):
    x = rng.standard_normal((3, 4))
    t = lazy.asarray(x) * 2
    monkeypatch.setenv("XCS_LOG_INTERCEPTS", "1")
    with caplog.at_level(logging.WARNING, logger="xcs.lazy"):
        c = np.cumprod(t, axis=1)
        s = np.arctan(t)  # a ufunc without a tensor op
        srt = t.argsort(axis=0)  # an ndarray method without one
        u8 = lazy.asarray(np.array([250, 3], np.uint8)) + 10  # a dtype without an XCS type
    assert [r.getMessage().split(": ", 1)[1].split(" ")[0] for r in caplog.records] == \
        ["numpy.cumprod", "numpy.arctan", "ndarray.argsort", "numpy.add"]
    assert all("fallback" in r.getMessage() for r in caplog.records)
    assert isinstance(c, lazy.LazyTensor) and c.operation == "numpy.cumprod" and c.is_materialized
    np.testing.assert_allclose((c + s).numpy(), np.cumprod(2 * x, axis=1) + np.arctan(2 * x))
    np.testing.assert_array_equal(np.asarray(srt), np.argsort(2 * x, axis=0))
    np.testing.assert_array_equal(u8.numpy(), np.array([250, 3], np.uint8) + 10)
    assert float(np.linalg.norm(t)) == pytest.approx(np.linalg.norm(2 * x))
    assert np.allclose(t, 2 * x) and t.tolist() == (2 * x).tolist()
    with pytest.raises(ValueError):  # what numpy raises: the fallback runs numpy
        t + np.ones(5)
    monkeypatch.delenv("XCS_LOG_INTERCEPTS")
    lazy.configure(log_intercepts=False)
    with caplog.at_level(logging.INFO, logger="xcs.lazy"):
        caplog.clear()
        np.cumprod(t)
    assert not caplog.records


def test_errors():
    assert issubclass(lazy.LazyTensorError, xcs.XcsError)
    assert issubclass(lazy.MaterializationError, lazy.LazyTensorError)
    assert issubclass(lazy.UnsupportedOperationError, lazy.LazyTensorError)
    t = lazy.asarray(np.arange(4.0))
    with pytest.raises(lazy.UnsupportedOperationError) as e:
        t[0] = 1.0
    assert e.value.file == __file__ and "immutable" in e.value.message
    with pytest.raises(lazy.UnsupportedOperationError):
        np.add(t, 1, out=t)
    with pytest.raises(lazy.UnsupportedOperationError):
        t.sort()
    with pytest.raises(lazy.UnsupportedOperationError):
        np.add.at(t, [0], 1)
    out = np.zeros(4)
    np.add(t, 1, out=out)  # out= a numpy array: eager, as numpy
    np.testing.assert_array_equal(out, np.arange(4.0) + 1)
    a, b = lazy.asarray(np.array([1, 2, 3])), lazy.asarray(np.array([1, 0, 1]))
    q = a // b
    with pytest.raises(lazy.MaterializationError) as e:
        q.numpy()
    assert "division by zero" in str(e.value) and e.value.file == __file__
    assert isinstance(e.value.__cause__, xcs.RunError)
    lazy.configure(pipeline="builtin.module(no-such-pass)")
    with pytest.raises(lazy.MaterializationError) as e:
        (a + 1).numpy()
    assert isinstance(e.value.__cause__, xcs.CompileError)
    with pytest.raises(AttributeError):
        t.no_such_attribute


@pytest.mark.parametrize("call,match", [
    (lambda: lazy.zeros(-1), "xcs.lazy.zeros: -1 is not a shape"),
    (lambda: lazy.ones((2, "a")), "xcs.lazy.ones: .* is not a shape"),
    (lambda: lazy.randn("ab"), "xcs.lazy.randn: 'ab' is not a shape"),
    (lambda: lazy.randn(2, dtype=np.int32), "samples are floats"),
    (lambda: lazy.full((2,), 1, dtype="nope"), "xcs.lazy.full: 'nope' is not a dtype"),
    (lambda: lazy.asarray([1], dtype="nope"), "xcs.lazy.asarray: 'nope' is not a dtype"),
    (lambda: lazy.seed("x"), "xcs.lazy.seed takes an int >= 0"),
    (lambda: lazy.configure(max_pending=0), "max_pending takes an int >= 1"),
    (lambda: lazy.configure(cache_size="big"), "cache_size takes an int >= 1"),
    (lambda: lazy.configure(pipeline=3), "pipeline takes a pass pipeline str"),
    (lambda: lazy.scope(""), "xcs.lazy.scope takes a non-empty str name"),
    (lambda: lazy.graph(np.ones(3)), "xcs.lazy.graph takes LazyTensors, not ndarray"),
])
def test_api_argument_errors_are_lazy_tensor_errors(call, match):
    """Wrong arguments of the `xcs.lazy` API are `LazyTensorError`s (`xcs.XcsError`s) at the
    caller's line."""
    with pytest.raises(lazy.LazyTensorError, match=match) as e:
        call()
    assert e.value.file == __file__


# ---------------------------------------------------------------- the captured IR

def test_graph_text_is_xcs_ir(tmp_path):
    x = lazy.asarray(np.ones((2, 3), np.float32))
    y = np.maximum(x @ lazy.ones((3, 3), np.float32), 0.0)[:, 1:]
    text = lazy.graph(y)
    # the leaves: x, and the float scalar of the elementwise max (data: an argument)
    assert "func.func @lazy(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> tensor<2x2xf32>" in text
    for op in ("tensor.constant", "tensor.matmul", "tensor.max", "tensor.slice"):
        assert op in text
    program = xcs.Program.parse(text)
    assert program.text() == text
    assert "loc(" in lazy.graph(y, debug_info=True) and __file__ in lazy.graph(y, debug_info=True)
    assert not y.is_materialized
    for opt in (ROOT / "target/debug/xcs-opt", ROOT / "target/release/xcs-opt"):
        if opt.exists():
            path = tmp_path / "lazy.mlir"
            path.write_text(text)
            run = subprocess.run([str(opt), str(path)], capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            assert "tensor.matmul" in run.stdout
            break
    y.numpy()
    assert "return %arg0" in lazy.graph(y)  # materialized: its value is the graph's argument


# ---------------------------------------------------------------- random programs vs numpy

def _binary_ops():
    return [
        lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: np.maximum(a, b),
        lambda a, b: xnp.minimum(a, b), lambda a, b: np.where(a > b, a, b), lambda a, b: (a < b) * 1.0,
        lambda a, b: a / (np.abs(b) + 1.0),
    ]


def _unary_ops():
    return [
        lambda a: np.tanh(a), lambda a: -a, lambda a: np.abs(a), lambda a: xnp.sqrt(np.abs(a)), lambda a: a * 0.5,
        lambda a: 2.0 - a, lambda a: np.sin(a), lambda a: a ** 2, lambda a: xnp.exp(-np.abs(a)),
        lambda a: a.T.T, lambda a: np.clip(a, -0.5, 0.5), lambda a: a.astype(np.float32).astype(np.float64),
        lambda a: xcs.nn.relu(a) if isinstance(a, lazy.LazyTensor) else np.maximum(a, 0.0),
    ]


def _fallback_ops():
    """numpy functions, ufuncs and methods without a tensor op: eager on materialized inputs."""
    return [lambda a: np.diff(a, axis=-1, prepend=0.0), lambda a: np.sort(a, axis=-1), lambda a: np.arctan(a),
            lambda a: np.flip(a, axis=0), lambda a: a.cumprod(axis=0)]


def _control_ops():
    """Python control flow on materialized values."""
    return [lambda a: a * 2.0 if float(a.sum()) > 0 else a - 1.0, lambda a: a + float(np.max(a)),
            lambda a: a[0:1] * 1.0 if bool((a > 0).any()) else a[1:2], lambda a: a * int(a.shape[0] > 3)]


def _shape_ops(shape):
    """Ops that change the shape (2-D values only): (function, result shape)."""
    m, n = shape
    return [
        (lambda a: a.T, (n, m)), (lambda a: a.sum(axis=0, keepdims=True), (1, n)),
        (lambda a: np.mean(a, axis=1, keepdims=True), (m, 1)), (lambda a: a.reshape(n, m), (n, m)),
        (lambda a: a[::-1, :], (m, n)), (lambda a: np.concatenate([a, a * 2], axis=0)[:m], (m, n)),
        (lambda a: np.swapaxes(a, 0, 1) @ a, (n, n)),
    ]


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _random_program(rng, steps):
    """A straight-line program over a pool of 2-D values: steps (op kind, function, operand
    indices), applied the same way to numpy arrays and to LazyTensors."""
    shapes = [(3, 4), (4, 3), (3, 3), (4, 4)]
    pool = [shapes[i % len(shapes)] for i in range(4)]
    program = []
    kinds = list(rng.choice(["binary", "unary", "shape", "fallback", "control", "materialize"], size=steps,
                            p=[0.35, 0.3, 0.15, 0.08, 0.07, 0.05]))
    kinds[int(rng.integers(steps))] = "fallback"
    kinds[int(rng.integers(steps))] = "control"
    for kind in kinds:
        if kind in ("fallback", "control"):
            i = int(rng.integers(len(pool)))
            fns = _fallback_ops() if kind == "fallback" else _control_ops()
            k = int(rng.integers(len(fns)))
            program.append((kind, fns[k], (i,)))
            pool.append(pool[i] if kind == "fallback" or k < 2 else (1, pool[i][1]) if k == 2 else pool[i])
        elif kind == "binary":
            i = int(rng.integers(len(pool)))
            same = [j for j, s in enumerate(pool) if _broadcasts_to(s, pool[i])]
            j = int(rng.choice(same))
            fns = _binary_ops()
            program.append(("binary", fns[int(rng.integers(len(fns)))], (i, j)))
            pool.append(np.broadcast_shapes(pool[i], pool[j]))
        elif kind == "unary":
            i = int(rng.integers(len(pool)))
            fns = _unary_ops()
            program.append(("unary", fns[int(rng.integers(len(fns)))], (i,)))
            pool.append(pool[i])
        elif kind == "shape":
            i = int(rng.integers(len(pool)))
            fn, shape = _shape_ops(pool[i])[int(rng.integers(7))]
            program.append(("shape", fn, (i,)))
            pool.append(shape)
        else:
            i = int(rng.integers(len(pool)))
            program.append(("materialize", np.asarray, (i,)))  # a numpy array mixed in
            pool.append(pool[i])
    return program


def _run(program, inputs):
    pool = list(inputs)
    for _, fn, operands in program:
        pool.append(fn(*[pool[k] for k in operands]))
    return pool


@pytest.mark.parametrize("seed,dtype", [(s, np.float64) for s in range(12)] + [(s, np.float32) for s in range(12, 18)])
def test_random_programs_equal_eager_numpy(seed, dtype):
    rng = np.random.default_rng(1000 + seed)
    program = _random_program(rng, steps=14)
    inputs = [rng.standard_normal(s).astype(dtype) for s in [(3, 4), (4, 3), (3, 3), (4, 4)]]
    rtol = 1e-6 if dtype == np.float64 else 2e-4
    expected = _run(program, inputs)
    fallbacks = lazy.cache_info().fallbacks
    got = _run(program, [lazy.asarray(x) for x in inputs])
    assert lazy.cache_info().fallbacks > fallbacks
    assert any(isinstance(g, lazy.LazyTensor) and not g.is_materialized for g in got)
    values = lazy.materialize(*got)
    for k, (e, g, v) in enumerate(zip(expected, got, values)):
        assert np.shape(g) == np.shape(e) and np.asarray(v).dtype == np.asarray(e).dtype, k
        np.testing.assert_allclose(v, e, rtol=rtol, atol=rtol * 1e-3, err_msg=f"value {k}")
