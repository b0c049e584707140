"""`xcs.nn`: the tensor dialect's neural-network ops under jax.nn's names (relu, gelu, silu,
sigmoid, softmax, layer_norm). On traced arrays they emit one op each; on concrete arrays
they are compiled and run (`xcs.jit` of the op).
"""

import numpy as np

from . import numpy as xnp
from ._core import Array, user_error


def _float(x):
    if not isinstance(x, Array):
        x = xnp.constant(x)
    return x if x.dtype.kind == "f" else xnp.astype(x, xnp._float_dtype(x))


def _eager(fn):
    """On concrete arrays: jit the op for their shapes (cached like any jitted function)."""
    def call(x, *a, **k):
        if hasattr(type(x), "__xcs_lazy__"):  # an xcs.lazy tensor: recorded as a node
            return x.__xcs_lazy__(fn, call, (x,) + a, k)
        if xnp._traced(x, *a, *k.values()) is None:
            from ._jit import jit
            return jit(lambda x: fn(x, *a, **k))(np.asarray(x))
        return fn(x, *a, **k)
    call.__name__, call.__doc__ = fn.__name__, fn.__doc__
    return call


def _unary(op, x, attrs=None):
    x = _float(x)
    return xnp._emit1(op, [x], x.shape, x.dtype, attrs)


@_eager
def relu(x):
    """max(x, 0) (`tensor.relu`)."""
    if not isinstance(x, Array):
        x = xnp.constant(x)
    return xnp._emit1("tensor.relu", [x], x.shape, x.dtype)


@_eager
def sigmoid(x):
    """1 / (1 + exp(-x)) (`tensor.sigmoid`)."""
    return _unary("tensor.sigmoid", x)


@_eager
def silu(x):
    """x * sigmoid(x) (`tensor.silu`)."""
    return _unary("tensor.silu", x)


swish = silu


@_eager
def gelu(x, approximate=True):
    """GELU, the tanh form by default as jax.nn.gelu (`approximate=False`: the erf form)."""
    return _unary("tensor.gelu", x, {"approximate": '"tanh"' if approximate else '"none"'})


@_eager
def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along `axis` (`tensor.softmax`)."""
    x = _float(x)
    (ax,) = xnp._axes(axis, x.ndim)
    return xnp._emit1("tensor.softmax", [x], x.shape, x.dtype, {"axis": f"{ax} : i64"})


def layer_norm(x, gamma=None, beta=None, axis=-1, epsilon=1e-5):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta over the dims from `axis` to the last
    (`tensor.layer_norm`); gamma/beta default to ones/zeros."""
    lazy = next((v for v in (x, gamma, beta) if hasattr(type(v), "__xcs_lazy__")), None)
    if lazy is not None:  # an xcs.lazy tensor among them: recorded as a node
        return lazy.__xcs_lazy__(layer_norm, layer_norm, (x, gamma, beta), {"axis": axis, "epsilon": epsilon})
    if xnp._traced(x, gamma, beta) is None:
        from ._jit import jit
        return jit(lambda x, g, b: layer_norm(x, g, b, axis, epsilon))(
            np.asarray(x), *[np.asarray(v) for v in _defaults(np.asarray(x), gamma, beta, axis)])
    x = _float(x)
    ax = xnp._axes(axis, x.ndim)[0]
    norm_shape = x.shape[ax:]
    if gamma is None or beta is None:
        g, b = _defaults(np.zeros(x.shape, x.dtype), gamma, beta, ax)
        gamma = g if gamma is None else gamma
        beta = b if beta is None else beta
    g, b = xnp._as(gamma, x.dtype, x.tracer), xnp._as(beta, x.dtype, x.tracer)
    if g.shape != norm_shape or b.shape != norm_shape:
        raise user_error(f"layer_norm: gamma and beta must have the normalized shape {norm_shape}")
    eps = np.asarray(epsilon, x.dtype)
    elem = {"float16": "f16", "float32": "f32", "float64": "f64"}[str(x.dtype)]
    return xnp._emit1("tensor.layer_norm", [x, g, b], x.shape, x.dtype,
                      {"axis": f"{ax} : i64", "epsilon": f"{xnp._core._float_text(float(np.float32(epsilon)), 'f32')} : f32"})


def _defaults(x, gamma, beta, axis):
    ax = axis % x.ndim
    shape = x.shape[ax:]
    dt = x.dtype if x.dtype.kind == "f" else np.float64
    return (np.ones(shape, dt) if gamma is None else gamma), (np.zeros(shape, dt) if beta is None else beta)
