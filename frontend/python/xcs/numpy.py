"""`xcs.numpy` (`import xcs.numpy as xnp`): numpy's names for the tensor dialect's ops.

On traced arrays (inside `xcs.jit`/`xcs.vmap`) each function emits tensor ops with numpy 2's
broadcasting and dtype promotion (NEP 50: Python scalars are weak and take the array's
dtype); on concrete values it is numpy's own function. Shape errors name the user's line.
"""

import builtins
import string

import numpy as np

from . import _core
from ._core import Array, user_error

float16, float32, float64 = np.float16, np.float32, np.float64
int8, int16, int32, int64, bool_ = np.int8, np.int16, np.int32, np.int64, np.bool_
pi, e, inf, nan, newaxis = np.pi, np.e, np.inf, np.nan, None
dtype = np.dtype


# ---------------------------------------------------------------- helpers

def _traced(*xs):
    for x in xs:
        if isinstance(x, Array):
            return x
        if isinstance(x, (list, tuple)):
            t = _traced(*x)
            if t is not None:
                return t
    return None


def _tracer(*xs):
    t = _traced(*xs)
    return t.tracer if t is not None else _core.active_tracer()


def _dtype_of(x):
    """The dtype of an operand for promotion (Python scalars stay weak: themselves)."""
    if isinstance(x, Array):
        return 0 if getattr(x, "weak", False) else x.dtype  # a kernel's axis computes as a Python int
    if isinstance(x, (bool, int, float)) and not isinstance(x, np.generic):
        return x
    return np.asarray(x).dtype


def _result_dtype(*xs):
    try:
        return np.result_type(*[_dtype_of(x) for x in xs])
    except TypeError as e:
        raise user_error(str(e)) from None


def _emit1(op, operands, shape, dt, attrs=None):
    t = _tracer(*operands)
    (name,) = t.emit(op, operands, [_core.tensor_type(shape, dt)], attrs)
    return Array(t, name, shape, dt)


def constant(value, dt=None, tracer=None):
    """A `tensor.constant` of a concrete value in the active trace."""
    value = np.asarray(value)
    dt = np.dtype(dt) if dt is not None else value.dtype
    t = tracer or _core.active_tracer()
    if t is None:
        raise user_error("no trace is active (call this inside an xcs.jit function)")
    (name,) = t.emit("tensor.constant", [], [_core.tensor_type(value.shape, dt)],
                     {"value": _core.dense_text(value, dt)})
    return Array(t, name, value.shape, dt)


def _as(x, dt, tracer):
    """`x` as a traced array of dtype `dt` (a cast or a constant)."""
    if isinstance(x, Array):
        return x if x.dtype == dt else _emit1("tensor.cast", [x], x.shape, dt)
    return constant(np.asarray(x).astype(dt), dt, tracer)


def _broadcast(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shown = " and ".join(str(tuple(s)) for s in shapes)
        raise user_error(f"shapes {shown} do not broadcast (numpy's rules)") from None


def _shape(x):
    return x.shape if isinstance(x, Array) else np.shape(x)


def _axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise user_error(f"axis {a} is out of bounds for an array of rank {ndim}")
        out.append(int(a) % ndim if ndim else 0)
    return sorted(out)


def _i64s(xs):
    return "array<i64" + (": " + ", ".join(str(int(x)) for x in xs) if len(xs) else "") + ">"


def _traceable(np_name):
    """Decorator: on concrete values call numpy's `np_name`, on traced ones the body."""
    def wrap(fn):
        eager = getattr(np, np_name)

        def dispatch(*args, **kwargs):
            if _traced(*args, *kwargs.values()) is None:
                return eager(*args, **kwargs)
            return fn(*args, **kwargs)
        dispatch.__name__ = fn.__name__
        dispatch.__qualname__ = fn.__name__
        dispatch.__doc__ = fn.__doc__ or f"numpy.{np_name} on traced arrays."
        return dispatch
    return wrap


# ---------------------------------------------------------------- elementwise

def _weak(x):
    return getattr(x, "weak", False) or (isinstance(x, (int, float)) and not isinstance(x, (bool, np.generic)))


def _binary(op, a, b, dt=None, attrs=None, result_dt=None):
    dt = dt or _result_dtype(a, b)
    t = _tracer(a, b)
    x, y = _as(a, dt, t), _as(b, dt, t)
    out = _emit1(op, [x, y], _broadcast(x.shape, y.shape), result_dt or dt, attrs)
    if result_dt is None and out.dtype.kind in "iu" and _weak(a) and _weak(b):
        out.weak = True  # arithmetic of a kernel's axis variables and ints stays a weak int (`h * 10`)
    return out


def _float_dtype(*xs):
    dt = _result_dtype(*xs)
    return dt if dt.kind == "f" else np.result_type(dt, np.float16)


def _make_binary(np_name, op):
    @_traceable(np_name)
    def fn(a, b):
        return _binary(op, a, b)
    fn.__name__ = np_name
    return fn


add = _make_binary("add", "tensor.add")
subtract = _make_binary("subtract", "tensor.sub")
multiply = _make_binary("multiply", "tensor.mul")
maximum = _make_binary("maximum", "tensor.max")
minimum = _make_binary("minimum", "tensor.min")
remainder = mod = _make_binary("remainder", "tensor.rem")


@_traceable("power")
def power(a, b):
    return _binary("tensor.pow", a, b)


@_traceable("true_divide")
def true_divide(a, b):
    return _binary("tensor.div", a, b, dt=_float_dtype(a, b))


divide = true_divide


@_traceable("floor_divide")
def floor_divide(a, b):
    dt = _result_dtype(a, b)
    if dt.kind == "f":
        return floor(_binary("tensor.div", a, b, dt=dt))
    # integers: tensor.div truncates; numpy floors (subtract 1 where the remainder is nonzero
    # and the signs differ)
    q = _binary("tensor.div", a, b, dt=dt)
    r = remainder(a, b)
    t = _tracer(a, b)
    fix = logical_and(not_equal(r, 0), not_equal(less(_as(a, dt, t), 0), less(_as(b, dt, t), 0)))
    return where(fix, subtract(q, 1), q)


def _make_cmp(np_name, predicate):
    @_traceable(np_name)
    def fn(a, b):
        return _binary("tensor.cmp", a, b, attrs={"predicate": f'"{predicate}"'}, result_dt=np.dtype(bool))
    fn.__name__ = np_name
    return fn


less, less_equal = _make_cmp("less", "lt"), _make_cmp("less_equal", "le")
greater, greater_equal = _make_cmp("greater", "gt"), _make_cmp("greater_equal", "ge")
equal, not_equal = _make_cmp("equal", "eq"), _make_cmp("not_equal", "ne")


def _unary(op, x, attrs=None, to_float=False):
    if not isinstance(x, Array):
        x = constant(x)
    if to_float and x.dtype.kind != "f":
        x = _as(x, _float_dtype(x), x.tracer)
    return _emit1(op, [x], x.shape, x.dtype, attrs)


def _make_unary(np_name, op, to_float=False):
    @_traceable(np_name)
    def fn(x):
        return _unary(op, x, to_float=to_float)
    fn.__name__ = np_name
    return fn


negative = _make_unary("negative", "tensor.neg")
exp = _make_unary("exp", "tensor.exp", True)
log = _make_unary("log", "tensor.log", True)
tanh = _make_unary("tanh", "tensor.tanh", True)
sqrt = _make_unary("sqrt", "tensor.sqrt", True)
sin = _make_unary("sin", "tensor.sin", True)
cos = _make_unary("cos", "tensor.cos", True)
abs = absolute = _make_unary("abs", "tensor.abs")
sign = _make_unary("sign", "tensor.sign")
floor = _make_unary("floor", "tensor.floor")
ceil = _make_unary("ceil", "tensor.ceil")
rint = _make_unary("rint", "tensor.round", True)


def _jit_eager(op):
    """An op numpy lacks (erf, rsqrt): traced, one op; on concrete arrays, compiled."""
    def fn(x):
        if hasattr(type(x), "__xcs_lazy__"):  # an xcs.lazy tensor: recorded as a node
            return x.__xcs_lazy__(fn, fn, (x,), None)
        if _traced(x) is None:
            from ._jit import jit
            return jit(fn)(np.asarray(x))
        return _unary(op, x, to_float=True)
    return fn


erf = _jit_eager("tensor.erf")  # scipy.special.erf / jax.scipy.special.erf
erf.__name__ = "erf"
rsqrt = _jit_eager("tensor.rsqrt")  # 1 / sqrt(x), jax.lax.rsqrt
rsqrt.__name__ = "rsqrt"


@_traceable("round")
def round(x, decimals=0):
    if x.dtype.kind != "f":
        return x  # numpy: rounding an integer array keeps it
    if decimals != 0:
        scale = 10.0 ** decimals
        return true_divide(rint(multiply(x, scale)), scale)
    return rint(x)


around = round


@_traceable("square")
def square(x):
    return multiply(x, x)


@_traceable("reciprocal")
def reciprocal(x):
    return true_divide(1, x) if _traced(x).dtype.kind == "f" else true_divide(1, x).astype(_traced(x).dtype)


@_traceable("clip")
def clip(x, a_min=None, a_max=None):
    if a_min is None:
        return minimum(x, a_max)
    if a_max is None:
        return maximum(x, a_min)
    dt = _result_dtype(x, a_min, a_max)
    t = _tracer(x, a_min, a_max)
    ops = [_as(v, dt, t) for v in (x, a_min, a_max)]
    return _emit1("tensor.clamp", ops, _broadcast(*[o.shape for o in ops]), dt)


@_traceable("where")
def where(cond, a, b):
    dt = _result_dtype(a, b)
    t = _tracer(cond, a, b)
    c, x, y = _as(cond, np.dtype(bool), t), _as(a, dt, t), _as(b, dt, t)
    return _emit1("tensor.select", [c, x, y], _broadcast(c.shape, x.shape, y.shape), dt)


def _bool(x, t):
    return _as(x, np.dtype(bool), t)


@_traceable("logical_and")
def logical_and(a, b):
    t = _tracer(a, b)
    x, y = _bool(a, t), _bool(b, t)
    return where(x, y, False) if x.shape == _broadcast(x.shape, y.shape) else where(x, y, zeros_like(y, bool))


@_traceable("logical_or")
def logical_or(a, b):
    t = _tracer(a, b)
    x, y = _bool(a, t), _bool(b, t)
    return where(x, True, y)


@_traceable("logical_xor")
def logical_xor(a, b):
    t = _tracer(a, b)
    return not_equal(_bool(a, t), _bool(b, t))


@_traceable("logical_not")
def logical_not(x):
    return equal(_bool(x, _tracer(x)), False)


def _bool_only(name, fn):
    def op(a, b):
        if _result_dtype(a, b) != np.dtype(bool):
            raise user_error(f"numpy.{name} of integers has no tensor op (bitwise ops are not in the tensor dialect)")
        return fn(a, b)
    return op


logical_and_or_bitwise_and = _bool_only("bitwise_and", logical_and)
logical_or_or_bitwise_or = _bool_only("bitwise_or", logical_or)
logical_xor_or_bitwise_xor = _bool_only("bitwise_xor", logical_xor)


def invert(x):
    if _traced(x) is None:
        return np.invert(x)
    if x.dtype != np.dtype(bool):
        raise user_error("numpy.invert of integers has no tensor op (bitwise ops are not in the tensor dialect)")
    return logical_not(x)


# ---------------------------------------------------------------- linear algebra

@_traceable("matmul")
def matmul(a, b):
    dt = _result_dtype(a, b)
    t = _tracer(a, b)
    x, y = _as(a, dt, t), _as(b, dt, t)
    if x.ndim == 0 or y.ndim == 0:
        raise user_error("matmul: an operand is 0-d (use * to multiply by a scalar)")
    xs, ys = (reshape(x, (1,) + x.shape) if x.ndim == 1 else x), (reshape(y, y.shape + (1,)) if y.ndim == 1 else y)
    if xs.shape[-1] != ys.shape[-2]:
        raise user_error(f"matmul: the inner dims differ: {x.shape} @ {y.shape}")
    batch = _broadcast(xs.shape[:-2], ys.shape[:-2])
    out = _emit1("tensor.matmul", [xs, ys], batch + (xs.shape[-2], ys.shape[-1]), dt)
    if x.ndim == 1:
        out = reshape(out, out.shape[:-2] + out.shape[-1:])
    if y.ndim == 1:
        out = reshape(out, out.shape[:-1])
    return out


@_traceable("dot")
def dot(a, b):
    if _shape(a) == () or _shape(b) == ():
        return multiply(a, b)
    if len(_shape(a)) == 1 and len(_shape(b)) == 1:
        return sum(multiply(a, b))
    return matmul(a, b)


@_traceable("outer")
def outer(a, b):
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


@_traceable("einsum")
def einsum(equation, *operands):
    eq = equation.replace(" ", "")
    if "..." in eq:
        raise user_error("einsum: '...' is not supported by tensor.einsum (name every dim)")
    ins, arrow, out = eq.partition("->")
    specs = ins.split(",")
    if len(specs) != len(operands):
        raise user_error(f"einsum: the equation has {len(specs)} operands but {len(operands)} were given")
    dt = _result_dtype(*operands)
    t = _tracer(*operands)
    ops = [_as(o, dt, t) for o in operands]
    sizes = {}
    for spec, o in zip(specs, ops):
        if len(spec) != o.ndim:
            raise user_error(f"einsum: operand '{spec}' has rank {o.ndim}")
        for label, d in zip(spec, o.shape):
            if sizes.setdefault(label, d) != d and d != 1:
                raise user_error(f"einsum: label '{label}' has sizes {sizes[label]} and {d}")
    if not arrow:
        out = "".join(sorted(c for c in sizes if ins.count(c) == 1))
    shape = tuple(sizes[c] for c in out)
    return _emit1("tensor.einsum", ops, shape, dt, {"equation": _core.mlir_string(eq if arrow else f"{ins}->{out}")})


@_traceable("diagonal")
def diagonal(x, offset=0, axis1=0, axis2=1):
    """numpy's `diagonal` (the diagonal as the last dim): `tensor.einsum` with a repeated label."""
    a1, a2 = _axes(axis1, x.ndim)[0], _axes(axis2, x.ndim)[0]
    if a1 == a2:
        raise user_error("diagonal: axis1 and axis2 cannot be the same")
    idx = [slice(None)] * x.ndim
    idx[a2 if offset >= 0 else a1] = slice(builtins.abs(int(offset)), None)
    x = _getitem(x, tuple(idx)) if offset else x
    n = builtins.min(x.shape[a1], x.shape[a2])
    idx = [slice(None)] * x.ndim
    idx[a1] = idx[a2] = slice(0, n)
    x = _getitem(x, tuple(idx))
    labels = list(string.ascii_letters[:x.ndim])
    labels[a2] = labels[a1]
    out = "".join(c for i, c in enumerate(labels) if i not in (a1, a2)) + labels[a1]
    return einsum("".join(labels) + "->" + out, x)


@_traceable("trace")
def trace(x, offset=0, axis1=0, axis2=1, dtype=None):
    return sum(diagonal(x, offset, axis1, axis2), axis=-1, dtype=dtype)


@_traceable("repeat")
def repeat(x, repeats, axis=None):
    """numpy's `repeat` with one count: a new dim broadcast and merged (`axis=None`: flattened)."""
    if not isinstance(repeats, (int, np.integer)) or isinstance(repeats, bool) or repeats < 0:
        raise user_error("repeat: only one non-negative int count has a tensor op (per-element counts make "
                         "a data-dependent shape)")
    if axis is None:
        x, axis = ravel(x), 0
    ax = _axes(axis, x.ndim)[0]
    y = expand_dims(x, ax + 1)
    shape = list(y.shape)
    shape[ax + 1] = int(repeats)
    out = list(x.shape)
    out[ax] *= int(repeats)
    return reshape(broadcast_to(y, tuple(shape)), out)


# ---------------------------------------------------------------- reductions

def _reduce(kind, x, axis, keepdims, dt):
    if not isinstance(x, Array):
        x = constant(x)
    axes = _axes(axis, x.ndim)
    if x.dtype != dt:
        x = _as(x, dt, x.tracer)
    shape = tuple((1 if i in axes else d) for i, d in enumerate(x.shape) if keepdims or i not in axes)
    attrs = {"kind": f'"{kind}"', "axes": _i64s(axes), "keepdims": "true" if keepdims else "false"}
    return _emit1("tensor.reduce", [x], shape, dt, attrs)


def _sum_dtype(x, dtype_):
    if dtype_ is not None:
        return np.dtype(dtype_)
    dt = _traced(x).dtype
    return np.dtype(np.int64) if dt.kind in "bi" else dt


@_traceable("sum")
def sum(x, axis=None, dtype=None, keepdims=False):
    return _reduce("sum", x, axis, keepdims, _sum_dtype(x, dtype))


@_traceable("prod")
def prod(x, axis=None, dtype=None, keepdims=False):
    return _reduce("prod", x, axis, keepdims, _sum_dtype(x, dtype))


@_traceable("mean")
def mean(x, axis=None, dtype=None, keepdims=False):
    dt = np.dtype(dtype) if dtype is not None else (x.dtype if x.dtype.kind == "f" else np.dtype(np.float64))
    return _reduce("mean", x, axis, keepdims, dt)


@_traceable("max")
def max(x, axis=None, keepdims=False):
    if x.dtype == np.dtype(bool):
        return any(x, axis, keepdims=keepdims)
    return _reduce("max", x, axis, keepdims, x.dtype)


@_traceable("min")
def min(x, axis=None, keepdims=False):
    if x.dtype == np.dtype(bool):
        return all(x, axis, keepdims=keepdims)
    return _reduce("min", x, axis, keepdims, x.dtype)


amax, amin = max, min


@_traceable("any")
def any(x, axis=None, keepdims=False):
    return astype(_reduce("max", x, axis, keepdims, np.dtype(np.int8)), bool)


@_traceable("all")
def all(x, axis=None, keepdims=False):
    return astype(_reduce("min", x, axis, keepdims, np.dtype(np.int8)), bool)


@_traceable("var")
def var(x, axis=None, keepdims=False, ddof=0):
    m = mean(x, axis, keepdims=True)
    d = subtract(x, m)
    n = np.prod([x.shape[a] for a in _axes(axis, x.ndim)], dtype=np.int64)
    s = sum(multiply(d, d), axis, keepdims=keepdims)
    return true_divide(s, builtins.max(int(n) - ddof, 0)) if ddof else mean(multiply(d, d), axis, keepdims=keepdims)


@_traceable("std")
def std(x, axis=None, keepdims=False, ddof=0):
    return sqrt(var(x, axis, keepdims=keepdims, ddof=ddof))


def _arg_extreme(x, axis, keepdims, kind):
    """The first position of the max (min) along `axis` (`None`: of the flattened array): the
    positions where x equals its reduction, their smallest (NaNs are not looked for)."""
    if axis is None:
        x, axis = ravel(x), 0
    ax = _axes(axis, x.ndim)[0]
    if x.dtype == np.dtype(bool):
        x = _as(x, np.dtype(np.int8), x.tracer)
    hit = equal(x, _reduce(kind, x, ax, True, x.dtype))
    n = x.shape[ax]
    pos = constant(np.arange(n, dtype=np.int64).reshape([n if d == ax else 1 for d in range(x.ndim)]), tracer=x.tracer)
    return _reduce("min", where(hit, pos, n), ax, keepdims, np.dtype(np.int64))


@_traceable("argmax")
def argmax(x, axis=None, keepdims=False):
    return _arg_extreme(x, axis, keepdims, "max")


@_traceable("argmin")
def argmin(x, axis=None, keepdims=False):
    return _arg_extreme(x, axis, keepdims, "min")


@_traceable("ptp")
def ptp(x, axis=None, keepdims=False):
    return subtract(max(x, axis, keepdims=keepdims), min(x, axis, keepdims=keepdims))


@_traceable("cumsum")
def cumsum(x, axis=None, dtype=None):
    """Running sums along `axis` (`None`: of the flattened array): a matmul by the upper
    triangle of ones (the tensor dialect has no scan; O(n^2) in the axis' length)."""
    if axis is None:
        x, axis = ravel(x), 0
    ax = _axes(axis, x.ndim)[0]
    dt = _sum_dtype(x, dtype)
    n = x.shape[ax]
    upper = constant(np.triu(np.ones((n, n), dt)), tracer=x.tracer)
    return moveaxis(matmul(moveaxis(_as(x, dt, x.tracer), ax, -1), upper), -1, ax)


# ---------------------------------------------------------------- shapes

@_traceable("reshape")
def reshape(x, shape):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    if shape.count(-1) > 1:
        raise user_error("reshape: only one dim can be -1")
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or x.size % known:
            raise user_error(f"reshape: cannot reshape an array of shape {x.shape} into {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    if int(np.prod(shape, dtype=np.int64)) != x.size:
        raise user_error(f"reshape: cannot reshape an array of shape {x.shape} into {shape}")
    if shape == x.shape:
        return x
    return _emit1("tensor.reshape", [x], shape, x.dtype)


@_traceable("transpose")
def transpose(x, axes=None):
    perm = list(range(x.ndim))[::-1] if axes is None else [int(a) % builtins.max(x.ndim, 1) for a in axes]
    if sorted(perm) != list(range(x.ndim)):
        raise user_error(f"transpose: {tuple(axes)} is not a permutation of the {x.ndim} dims")
    if perm == list(range(x.ndim)):
        return x
    return _emit1("tensor.transpose", [x], tuple(x.shape[p] for p in perm), x.dtype, {"perm": _i64s(perm)})


permute_dims = transpose


@_traceable("swapaxes")
def swapaxes(x, a, b):
    perm = list(range(x.ndim))
    a, b = _axes(a, x.ndim)[0], _axes(b, x.ndim)[0]
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


@_traceable("moveaxis")
def moveaxis(x, source, destination):
    src, dst = _axes(source, x.ndim)[0], int(destination) % x.ndim
    perm = [d for d in range(x.ndim) if d != src]
    perm.insert(dst, src)
    return transpose(x, perm)


@_traceable("expand_dims")
def expand_dims(x, axis):
    axes = [axis] if isinstance(axis, int) else list(axis)
    n = x.ndim + len(axes)
    axes = sorted(a % n for a in axes)
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return reshape(x, shape)


@_traceable("squeeze")
def squeeze(x, axis=None):
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else _axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise user_error(f"squeeze: dim {a} has size {x.shape[a]}, not 1")
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


@_traceable("ravel")
def ravel(x):
    return reshape(x, (-1,))


flatten = ravel


@_traceable("broadcast_to")
def broadcast_to(x, shape):
    shape = tuple(shape)
    if not isinstance(x, Array):
        x = constant(x)
    if _broadcast(x.shape, shape) != shape:
        raise user_error(f"broadcast_to: {x.shape} cannot be broadcast to {shape}")
    if shape == x.shape:
        return x
    return _emit1("tensor.broadcast_to", [x], shape, x.dtype)


@_traceable("concatenate")
def concatenate(arrays, axis=0):
    dt = _result_dtype(*arrays)
    t = _tracer(*arrays)
    ops = [_as(a, dt, t) for a in arrays]
    nd = ops[0].ndim
    ax = _axes(axis, nd)[0]
    for o in ops:
        if o.ndim != nd or o.shape[:ax] + o.shape[ax + 1:] != ops[0].shape[:ax] + ops[0].shape[ax + 1:]:
            raise user_error(f"concatenate: shapes {[o.shape for o in ops]} differ outside axis {ax}")
    shape = list(ops[0].shape)
    shape[ax] = builtins.sum(o.shape[ax] for o in ops)
    return _emit1("tensor.concat", ops, tuple(shape), dt, {"axis": f"{ax} : i64"})


@_traceable("stack")
def stack(arrays, axis=0):
    return concatenate([expand_dims(a if isinstance(a, Array) else constant(a, tracer=_tracer(*arrays)), axis)
                        for a in arrays], axis)


@_traceable("take")
def take(a, indices, axis=None):
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axes(axis, a.ndim)[0]
    n = a.shape[ax]
    if isinstance(indices, Array):
        idx = _as(indices, np.dtype(np.int64), a.tracer)
        idx = where(less(idx, 0), add(idx, n), idx)
    else:
        raw = np.asarray(indices)
        if raw.dtype.kind not in "iu":
            raise user_error("take: indices must be integers")
        if ((raw < -n) | (raw >= n)).any():
            raise user_error(f"take: an index is out of bounds for axis {ax} of size {n}")
        idx = constant(np.where(raw < 0, raw + n, raw).astype(np.int64), tracer=a.tracer)
    shape = a.shape[:ax] + idx.shape + a.shape[ax + 1:]
    return _emit1("tensor.gather", [a, idx], shape, a.dtype, {"axis": f"{ax} : i64"})


@_traceable("zeros_like")
def zeros_like(x, dtype=None):
    return constant(np.zeros(x.shape, dtype or x.dtype), tracer=x.tracer)


@_traceable("ones_like")
def ones_like(x, dtype=None):
    return constant(np.ones(x.shape, dtype or x.dtype), tracer=x.tracer)


@_traceable("full_like")
def full_like(x, fill_value, dtype=None):
    return constant(np.full(x.shape, fill_value, dtype or x.dtype), tracer=x.tracer)


def _lazy(x):
    """Whether `x` is an `xcs.lazy` tensor (it records the op as a node instead)."""
    return hasattr(type(x), "__xcs_lazy__")


def astype(x, dtype):
    """`x.astype(dtype)`: `tensor.cast` (numpy's `astype`: float to int truncates)."""
    if not isinstance(x, Array):
        return x.astype(dtype) if _lazy(x) else np.asarray(x).astype(dtype)
    return _as(x, np.dtype(dtype), x.tracer)


def asarray(x, dtype=None):
    """`x` as an array: itself (cast to `dtype`) when it is traced or lazy, a constant of the
    active trace, else numpy's."""
    if isinstance(x, Array) or (_lazy(x) and _core.active_tracer() is None):
        return x if dtype is None or np.dtype(dtype) == x.dtype else astype(x, dtype)
    if _core.active_tracer() is not None:
        return constant(np.asarray(x, dtype))
    return np.asarray(x, dtype)


array = asarray
zeros, ones, full, arange, eye, linspace, empty = np.zeros, np.ones, np.full, np.arange, np.eye, np.linspace, np.empty
shape, ndim = np.shape, np.ndim


# ---------------------------------------------------------------- indexing

def _getitem(x, idx):
    """Basic and strided slicing (ints, slices with any step, None, ...), and one integer
    array index (`take`)."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    if builtins.any(isinstance(i, (np.ndarray, Array, list)) and np.asarray(_dtype_probe(i)).dtype == bool for i in idx):
        raise user_error("boolean mask indexing makes a data-dependent shape; use xcs.numpy.where")
    n_real = builtins.sum(1 for i in idx if i is not None and i is not Ellipsis)
    if n_real > x.ndim:
        raise user_error(f"too many indices for an array of rank {x.ndim}")
    ellipsis = [k for k, i in enumerate(idx) if i is Ellipsis]
    if len(ellipsis) > 1:
        raise user_error("an index can only have a single ellipsis ('...')")
    if ellipsis:
        k = ellipsis[0]
        idx = idx[:k] + (slice(None),) * (x.ndim - n_real) + idx[k + 1:]
    else:
        idx = idx + (slice(None),) * (x.ndim - n_real)
    start, limit, stride, out_shape, reversed_dims, advanced = [], [], [], [], [], None
    dim = 0
    for i in idx:
        if i is None:
            out_shape.append(("new", 1))
            continue
        n = x.shape[dim]
        if isinstance(i, slice):
            s, e, st = i.indices(n)
            r = range(s, e, st)
            if st > 0:
                start.append(s); limit.append(s + (len(r) - 1) * st + 1 if len(r) else s); stride.append(st)  # noqa: E702
            else:
                start.append(r[-1] if len(r) else 0); limit.append(s + 1 if len(r) else 0); stride.append(-st)  # noqa: E702
                reversed_dims.append(dim)
            out_shape.append(("keep", len(r)))
        elif isinstance(i, (int, np.integer)):
            if not -n <= i < n:
                raise user_error(f"index {i} is out of bounds for axis {dim} with size {n}")
            j = int(i) % n
            start.append(j); limit.append(j + 1); stride.append(1)  # noqa: E702
            out_shape.append(("drop", 1))
        else:
            if advanced is not None:
                raise user_error("only one integer array index is supported (use take)")
            advanced = (dim, i)
            start.append(0); limit.append(n); stride.append(1)  # noqa: E702
            out_shape.append(("keep", n))
        dim += 1
    y = x
    if (start, limit, stride) != ([0] * x.ndim, list(x.shape), [1] * x.ndim):
        shape = tuple(len(range(s, l, st)) for s, l, st in zip(start, limit, stride))
        y = _emit1("tensor.slice", [x], shape, x.dtype,
                   {"start": _i64s(start), "limit": _i64s(limit), "stride": _i64s(stride)})
    for d in reversed_dims:
        y = take(y, np.arange(y.shape[d] - 1, -1, -1), axis=d)
    if advanced is not None:
        d, ix = advanced
        y = take(y, ix, axis=d)
        k = len(_shape(ix))
        pos = [j for j, (kind, _) in enumerate(out_shape) if kind != "new"][d]
        out_shape = out_shape[:pos] + [("keep", s) for s in y.shape[d:d + k]] + out_shape[pos + 1:]
    final = tuple(s for kind, s in out_shape if kind != "drop")
    return reshape(y, final)


def _dtype_probe(i):
    if isinstance(i, Array):
        return np.zeros((), i.dtype)
    return np.asarray(i)


# ---------------------------------------------------------------- numpy's protocols

_UFUNCS = {
    "add": add, "subtract": subtract, "multiply": multiply, "divide": true_divide,
    "true_divide": true_divide, "floor_divide": floor_divide, "remainder": remainder, "power": power,
    "matmul": matmul, "negative": negative, "absolute": absolute, "exp": exp, "log": log,
    "tanh": tanh, "sqrt": sqrt, "sin": sin, "cos": cos, "maximum": maximum, "minimum": minimum,
    "less": less, "less_equal": less_equal, "greater": greater, "greater_equal": greater_equal,
    "equal": equal, "not_equal": not_equal, "logical_and": logical_and, "logical_or": logical_or,
    "logical_xor": logical_xor, "logical_not": logical_not, "sign": sign, "floor": floor,
    "ceil": ceil, "rint": rint, "square": square, "reciprocal": reciprocal, "invert": invert,
}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    fn = _UFUNCS.get(ufunc.__name__)
    if method != "__call__" or fn is None or kwargs:
        what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        raise user_error(f"{what} has no tensor op: it cannot be traced by xcs.jit (use xcs.numpy)")
    return fn(*inputs)


def _array_function(self, func, types, args, kwargs):
    """numpy's functions on traced arrays: the `xcs.numpy` function of the same name (numpy's
    top-level namespace only); anything else is a `TraceError` naming the numpy function."""
    name = func.__name__
    public = next((m.__name__ for m in (np, np.fft, np.linalg, np.random, np.lib)
                   if getattr(m, name, None) is func), getattr(func, "__module__", None) or "numpy")
    fn = globals().get(name) if public == "numpy" and not name.startswith("_") else None
    if fn is None or not callable(fn) or isinstance(fn, type):
        raise user_error(f"{public}.{name} has no tensor op: it cannot be traced by xcs.jit (see xcs.numpy)")
    return fn(*args, **kwargs)


_core.install_array_methods(__import__(__name__, fromlist=["_"]))
