"""`xcs.lazy`: capture numpy-style programs without a decorator (seed 003's LazyTensor, on numpy's
protocols instead of torch's). Operators, array methods, `xcs.numpy` and numpy functions on a
`LazyTensor` record nodes; reading a value compiles the pending subgraph (the same tracing and
LLVM JIT as `xcs.jit`, cached by structure) and runs it; numpy functions without a tensor op
run eagerly on materialized inputs. As in PyTorch's lazy tensor core (torch/csrc/lazy), graphs
are keyed by structure, not data, and the live tensors a graph computes are its outputs.
See docs/python.md, "LazyTensor".
"""

import collections
import gc
import logging
import operator
import os
import sys
import threading

import numpy as np

from . import _core
from . import numpy as xnp
from ._core import Tracer, tracing
from ._jit import DEFAULT_PIPELINE, Compiled, Traced, module_text
from .errors import LazyTensorError, MaterializationError, UnsupportedOperationError, XcsError

__all__ = ["LazyTensor", "SemanticMetadata", "CacheInfo", "asarray", "array", "zeros", "ones", "full", "randn",
           "seed", "materialize", "graph", "cache_info", "cache_clear", "configure", "scope",
           "LazyTensorError", "MaterializationError", "UnsupportedOperationError"]

_log = logging.getLogger("xcs.lazy")
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))

SemanticMetadata = collections.namedtuple(
    "SemanticMetadata", "operation_type tensor_shape dtype module_path location")
SemanticMetadata.__doc__ = """Seed 003's metadata of a node: the canonical op name (the tensor-dialect
op, or the creation function), shape, dtype, module path (a `scope`, else the Python module
and function that made it) and the (file, line, col) of the user's line."""

CacheInfo = collections.namedtuple("CacheInfo", "hits misses size fallbacks")


class _Config:
    """The module's settings (`configure`)."""

    def __init__(self):
        self.max_pending = 10_000
        self.pipeline = DEFAULT_PIPELINE
        self.cache_size = 512
        self.log_intercepts = os.environ.get("XCS_LOG_INTERCEPTS") == "1"


_config = _Config()
class _State(threading.local):
    scope = None  # the current `scope` path (a class default: no AttributeError on the hot path)


_state = _State()
_lock = threading.RLock()
_compiled = {}  # structural key -> _Entry (insertion order = age)
_stats = {"hits": 0, "misses": 0, "fallbacks": 0}
_rng = np.random.default_rng()


# ---------------------------------------------------------------- shared metadata objects

class _Spec:
    """An interned (shape, dtype): the abstract value, hashed by identity."""
    __slots__ = ("shape", "dtype", "keep")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.keep = shape, dtype, None


class _Aval:
    """An interned (canonical op name, spec): what a node is, shared by all nodes alike."""
    __slots__ = ("op", "spec")

    def __init__(self, op, spec):
        self.op, self.spec = op, spec


class _Site:
    """An interned user location: (file, line, col) and the module path (`code` keeps the
    code object alive, so its id in the site cache's key is never reused)."""
    __slots__ = ("where", "module_path", "code")

    def __init__(self, where, module_path, code=None):
        self.where, self.module_path, self.code = where, module_path, code


class _Op:
    """How a node is computed: `traced(*arrays)` emits its IR (an `xcs.numpy` function),
    `eager(*ndarrays)` is numpy's (the fallback); `name` is for messages and logs.
    `scalars`: a binary elementwise op whose Python float operand may become an argument of
    the compiled graph (see `_scalars_to_leaves`)."""
    __slots__ = ("name", "traced", "eager", "scalars", "__weakref__")

    def __init__(self, name, traced, eager):
        self.name, self.traced, self.eager = name, traced, eager
        self.scalars = name in _SCALAR_OPS


# binary elementwise ops (numpy's names) whose float scalar operand is data, not structure
_SCALAR_OPS = {f"numpy.{n}" for n in ("add", "subtract", "multiply", "true_divide", "divide", "maximum", "minimum",
                                      "less", "less_equal", "greater", "greater_equal", "equal", "not_equal")}


class _Fallback:
    """The abstract evaluation of an op failed: it runs eagerly (the reason is logged)."""
    __slots__ = ("reason",)

    def __init__(self, reason):
        self.reason = reason


_SPECS = {}
_AVALS = {}
_SITES = {}
_ABSTRACT = {}  # (op, argument signatures) -> _Aval | int (the op returns argument i) | _Fallback
_ABSTRACT_LIMIT = 65536


def _spec(shape, dtype):
    # keyed by the dtype's id (numpy's dtype hash costs microseconds); the spec keeps the
    # dtype alive, so the id is never reused while the entry exists
    key = (shape, id(dtype))
    s = _SPECS.get(key)
    if s is None:
        s = _SPECS[key] = _Spec(tuple(int(d) for d in shape), np.dtype(dtype))
        s.keep = dtype
    return s


def _aval(op, spec):
    key = (op, spec)
    a = _AVALS.get(key)
    if a is None:
        a = _AVALS[key] = _Aval(op, spec)
    return a


def _site():
    """The interned site of the innermost frame outside xcs and numpy (the user's line)."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if not (name.startswith(_PACKAGE_DIR) or name.startswith(_NUMPY_DIR)):
            break
        f = f.f_back
    if f is None:
        return _site_of(None, None)
    scope = _state.scope
    key = (id(f.f_code), f.f_lasti, scope)  # a code object's own hash reads all of it
    s = _SITES.get(key)
    if s is None:
        s = _SITES[key] = _site_of(f, scope)
    return s


def _site_of(f, scope):
    if f is None:
        return _Site(("<unknown>", 0, 0), None)
    code = f.f_code
    path = scope or f"{f.f_globals.get('__name__', '?')}.{getattr(code, 'co_qualname', code.co_name)}"  # 3.11+
    return _Site(_core.frame_location(f), path, f.f_code)


# ---------------------------------------------------------------- LazyTensor

class LazyTensor:
    """A value of a lazily captured program: a node (op, inputs, metadata) until it is
    materialized, then its numpy value. It has numpy's operators, methods and properties and
    takes part in numpy's functions (`__array_ufunc__`, `__array_function__`)."""

    __slots__ = ("_aval", "_op", "_args", "_kwargs", "_value", "_site", "_pending")
    __array_priority__ = 1000
    __hash__ = None  # as numpy arrays (== is elementwise)

    # ------------------------------------------------ metadata (no materialization)
    @property
    def shape(self):
        return self._aval.spec.shape

    @property
    def dtype(self):
        return self._aval.spec.dtype

    @property
    def ndim(self):
        return len(self._aval.spec.shape)

    @property
    def size(self):
        return int(np.prod(self._aval.spec.shape, dtype=np.int64))

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def operation(self):
        """The canonical op name: the tensor-dialect op (`tensor.add`), or the creation
        function (`randn`, `zeros`, `asarray`), or `numpy.<f>` for an eager fallback's result."""
        return self._aval.op

    @property
    def inputs(self):
        """The node's arguments as given (tensors, arrays, Python values); `()` once it is
        materialized (its graph is released)."""
        return self._args

    @property
    def metadata(self):
        s = self._site
        return SemanticMetadata(self._aval.op, self._aval.spec.shape, self._aval.spec.dtype, s.module_path, s.where)

    @property
    def is_materialized(self):
        return self._value is not None

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    # ------------------------------------------------ materialization
    def materialize(self):
        """Computes the value (compiling the pending subgraph, or a cache hit): a numpy array."""
        if self._value is None:
            _materialize([self])
        return self._value

    numpy = materialize

    def __array__(self, dtype=None, copy=None):
        v = self.materialize()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    def item(self, *args):
        return self.materialize().item(*args)

    def __bool__(self):
        return bool(self.materialize())

    def __float__(self):
        return float(self.materialize())

    def __int__(self):
        return int(self.materialize())

    def __index__(self):
        return operator.index(self.materialize())

    def __complex__(self):
        return complex(self.materialize())

    def __repr__(self):
        return f"LazyTensor({np.array_repr(self.materialize())}, operation={self._aval.op!r})"

    def __str__(self):
        return str(self.materialize())

    def __format__(self, spec):
        return format(self.materialize(), spec)

    def __contains__(self, x):
        return x in self.materialize()

    def __copy__(self):
        return self  # immutable

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (asarray, (self.materialize(),))

    # ------------------------------------------------ what has no lazy (nor eager) form
    def __setitem__(self, idx, value):
        raise _unsupported("item assignment into a LazyTensor (lazy tensors are immutable: use "
                           "xcs.numpy.where, or write into x.numpy())")

    def __getattr__(self, name):
        """numpy array attributes without a lazy form: methods run eagerly on the value
        (logged as fallbacks); in-place methods are `UnsupportedOperationError`s."""
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(f"'LazyTensor' object has no attribute '{name}'")
        if name in _IN_PLACE:
            raise _unsupported(f"ndarray.{name} writes into the array (lazy tensors are immutable)")
        attr = getattr(np.ndarray, name)
        if not callable(attr):
            return getattr(self.materialize(), name)
        op = _method_ops.get(name)
        if op is None:
            op = _method_ops[name] = _Op(f"ndarray.{name}", None, lambda x, *a, **k: getattr(x, name)(*a, **k))
        return lambda *a, **k: _fallback(op, (self,) + a, k, "no tensor op")

    # ------------------------------------------------ numpy's protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        outs = out if isinstance(out, tuple) else (out,)
        if any(type(o) is LazyTensor for o in outs):
            raise _unsupported(f"numpy.{ufunc.__name__}(..., out=) into a LazyTensor (lazy tensors are immutable)")
        if method == "at" and type(inputs[0]) is LazyTensor:
            raise _unsupported(f"numpy.{ufunc.__name__}.at writes into a LazyTensor (lazy tensors are immutable)")
        if method == "__call__" and not kwargs:
            op = _ufunc_op(ufunc)
            if op is not None:
                return _apply(op, inputs)
        what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        op = _Op(what, None, getattr(ufunc, method))
        return _fallback(op, inputs, kwargs, "no tensor op" if not kwargs else f"arguments {sorted(kwargs)}")

    def __array_function__(self, func, types, args, kwargs):
        op = _function_ops.get(func)
        if op is None:
            op = _function_ops[func] = _function_op(func)
        if op.traced is None:
            if func.__name__ in ("shape", "ndim", "size"):
                return func._implementation(*args, **kwargs)  # metadata: no materialization
            return _fallback(op, args, kwargs, "no tensor op")
        return _apply(op, args, kwargs or None)

    def __xcs_lazy__(self, traced, eager, args, kwargs):
        """The hook of `xcs.numpy`/`xcs.nn` functions that compile on concrete arrays (`erf`,
        `rsqrt`, `relu`, ...): record them as nodes."""
        op = _hook_ops.get(traced)
        if op is None:
            op = _hook_ops[traced] = _Op(getattr(eager, "__name__", "op"), traced, eager)
        return _apply(op, args, kwargs or None)

    # ------------------------------------------------ shapes and methods
    def __getitem__(self, idx):
        if isinstance(idx, tuple):
            idx = tuple(int(i) if isinstance(i, np.integer) else i for i in idx)
        elif isinstance(idx, np.integer):
            idx = int(idx)
        return _apply(_OPS["getitem"], (self, idx))

    def reshape(self, *shape, order="C"):
        if order != "C":
            return _fallback(_OPS["reshape"], (self, shape), {"order": order}, "order != 'C'")
        shape = shape[0] if len(shape) == 1 else shape
        return _apply(_OPS["reshape"], (self, tuple(shape) if isinstance(shape, (list, tuple)) else shape))

    def transpose(self, *axes):
        axes = (axes[0] if len(axes) == 1 else axes) or None
        return _apply(_OPS["transpose"], (self, None if axes is None else tuple(axes)))

    @property
    def T(self):
        return _apply(_OPS["transpose"], (self, None))

    @property
    def mT(self):
        return _apply(_OPS["swapaxes"], (self, -1, -2))

    def astype(self, dtype, copy=True):
        return _apply(_OPS["astype"], (self, np.dtype(dtype)))


def _method(name):
    op = _Op(f"ndarray.{name}", getattr(xnp, name), getattr(xnp, name))
    return lambda self, *a, **k: _apply(op, (self,) + a, k or None)


for _name in ("sum", "mean", "max", "min", "prod", "var", "std", "any", "all", "round", "clip", "take",
              "swapaxes", "squeeze", "ravel", "flatten", "dot", "diagonal", "trace", "repeat", "argmax", "argmin",
              "ptp", "cumsum"):
    setattr(LazyTensor, _name, _method(_name))
# immutable: a copy is the tensor itself; real dtypes are their own conjugates
LazyTensor.copy = lambda self, order="K": self
LazyTensor.conj = LazyTensor.conjugate = lambda self: self if self.dtype.kind != "c" else _fallback(
    _Op("ndarray.conj", None, np.conj), (self,), None, "complex dtype")

_IN_PLACE = {"sort", "fill", "put", "resize", "itemset", "setfield", "setflags", "partition"}
_OPS = {
    "getitem": _Op("ndarray.__getitem__", xnp._getitem, operator.getitem),
    "reshape": _Op("numpy.reshape", xnp.reshape, np.reshape),
    "transpose": _Op("numpy.transpose", xnp.transpose, np.transpose),
    "swapaxes": _Op("numpy.swapaxes", xnp.swapaxes, np.swapaxes),
    "astype": _Op("ndarray.astype", xnp.astype, xnp.astype),
}
_method_ops = {}
_function_ops = {}
_hook_ops = {}
_ufunc_ops = {}


def _install_operators():
    binary = {"add": ("add", operator.add), "sub": ("subtract", operator.sub), "mul": ("multiply", operator.mul),
              "truediv": ("true_divide", operator.truediv), "floordiv": ("floor_divide", operator.floordiv),
              "mod": ("remainder", operator.mod), "pow": ("power", operator.pow), "matmul": ("matmul", operator.matmul),
              "and": ("logical_and_or_bitwise_and", operator.and_), "or": ("logical_or_or_bitwise_or", operator.or_),
              "xor": ("logical_xor_or_bitwise_xor", operator.xor)}
    for short, (xname, eager) in binary.items():
        public = {"and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor"}.get(short, xname)
        op = _Op(f"numpy.{public}", getattr(xnp, xname), eager)
        setattr(LazyTensor, f"__{short}__", (lambda op: lambda self, other: _apply(op, (self, other)))(op))
        setattr(LazyTensor, f"__r{short}__", (lambda op: lambda self, other: _apply(op, (other, self)))(op))
    for short, xname in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                         "eq": "equal", "ne": "not_equal"}.items():
        op = _Op(f"numpy.{xname}", getattr(xnp, xname), getattr(operator, short))
        setattr(LazyTensor, f"__{short}__", (lambda op: lambda self, other: _apply(op, (self, other)))(op))
    for short, xname in {"neg": "negative", "abs": "abs", "invert": "invert"}.items():
        op = _Op(f"numpy.{xname}", getattr(xnp, xname), getattr(operator, short))
        setattr(LazyTensor, f"__{short}__", (lambda op: lambda self: _apply(op, (self,)))(op))
    LazyTensor.__pos__ = lambda self: self


_install_operators()


def _ufunc_op(ufunc):
    op = _ufunc_ops.get(ufunc)
    if op is None:
        fn = xnp._UFUNCS.get(ufunc.__name__)
        if fn is None:
            return None
        op = _ufunc_ops[ufunc] = _Op(f"numpy.{ufunc.__name__}", fn, ufunc)
    return op


def _function_op(func):
    """The op of a numpy function: its `xcs.numpy` namesake (numpy's top-level functions),
    else eager only."""
    name = func.__name__
    xfn = getattr(xnp, name, None) if getattr(np, name, None) is func and not name.startswith("_") else None
    if xfn is None or xfn is func or not callable(xfn) or isinstance(xfn, type):
        module = getattr(func, "__module__", None) or "numpy"
        public = next((m.__name__ for m in (np, np.fft, np.linalg, np.random) if getattr(m, name, None) is func), module)
        return _Op(f"{public}.{name}", None, func)
    return _Op(f"numpy.{name}", xfn, func)


def _unsupported(message):
    file, line, col = _site().where
    return UnsupportedOperationError(f"{file}:{line}:{col}: error: {message}", file, line, col)


def _usage_error(message):
    """A wrong argument of the `xcs.lazy` API itself (a shape, dtype, setting), at the user's line."""
    file, line, col = _site().where
    return LazyTensorError(f"{file}:{line}:{col}: error: {message}", file, line, col)


def _dtype_arg(dtype, what):
    try:
        return np.dtype(dtype)
    except TypeError:
        raise _usage_error(f"{what}: {dtype!r} is not a dtype") from None


# ---------------------------------------------------------------- capture

class _Unhashable(Exception):
    pass


def _sig(a):
    """An argument's part of the abstract-evaluation key: arrays by their interned spec,
    floats by type (their value never changes a shape or dtype), other values as they are."""
    t = type(a)
    if t is LazyTensor:
        return a._aval.spec
    if t is float:
        return float
    if t is np.ndarray:
        return _spec(a.shape, a.dtype)
    if t is int or t is bool or t is str or a is None:
        return (t, a)
    if t is tuple or t is list:
        return (t, tuple(_sig(x) for x in a))
    if t is slice:
        return (slice, _sig(a.start), _sig(a.stop), _sig(a.step))
    if isinstance(a, np.generic):
        return _spec((), a.dtype)
    if isinstance(a, np.dtype) and a.isbuiltin:
        return (np.dtype, id(a))  # numpy's builtin dtypes are singletons (and slow to hash)
    try:
        hash(a)
    except TypeError:
        raise _Unhashable() from None
    return (t, a)


def _abstract_key(op, args, kwargs):
    try:
        key = (op,) + tuple([_sig(a) for a in args])
        if kwargs:
            key += (tuple(sorted((k, _sig(v)) for k, v in kwargs.items())),)
        return key
    except _Unhashable:
        return None


def _is_array(x):
    return type(x) is LazyTensor or type(x) is np.ndarray or isinstance(x, np.generic)


def _map_arrays(x, fn):
    """`x` (an argument: an array, a list/tuple of them, a slice, a Python value) with each
    array replaced by `fn(array)`."""
    t = type(x)
    if t is LazyTensor or t is np.ndarray or isinstance(x, np.generic):
        return fn(x)
    if t is tuple or t is list:
        return t(_map_arrays(v, fn) for v in x)
    if t is slice:
        return slice(_map_arrays(x.start, fn), _map_arrays(x.stop, fn), _map_arrays(x.step, fn))
    return x


def _arrays_in(x, out):
    t = type(x)
    if t is LazyTensor or t is np.ndarray or isinstance(x, np.generic):
        out.append(x)
    elif t is tuple or t is list:
        for v in x:
            _arrays_in(v, out)
    elif t is slice:
        _arrays_in((x.start, x.stop, x.step), out)
    return out


class _ReplayTracer(Tracer):
    """A tracer whose ops are located at `where` (the node being replayed), not at the caller."""

    where = ("<xcs.lazy>", 0, 0)

    def emit(self, op, operands, result_types, attrs=None, where=None, region=None):
        return Tracer.emit(self, op, operands, result_types, attrs, where or self.where, region)


_HELPER_OPS = ("tensor.constant", "tensor.cast", "tensor.reshape", "tensor.broadcast_to")


def _abstract_eval(op, args, kwargs):
    """Runs `op.traced` on abstract arrays: the result's `_Aval` (its canonical op name is the
    first tensor op emitted that is not a constant, cast or reshape), the index of the argument
    it returns unchanged, or a `_Fallback`."""
    tracer = _ReplayTracer()
    try:
        with tracing(tracer):
            abstract = _map_arrays(tuple(args), lambda a: tracer.argument(np.shape(a) if type(a) is not LazyTensor
                                                                          else a.shape, a.dtype, tracer.where))
            kw = {k: _map_arrays(v, lambda a: tracer.argument(a.shape, a.dtype, tracer.where))
                  for k, v in (kwargs or {}).items()}
            out = op.traced(*abstract, **kw)
    except (XcsError, TypeError, ValueError, IndexError, AttributeError, KeyError) as e:
        return _Fallback(f"{type(e).__name__}: {e}".splitlines()[0])
    if not isinstance(out, _core.Array) or not out.type.startswith("tensor<"):
        return _Fallback(f"{op.name} does not return one array")
    for i, a in enumerate(abstract):
        if a is out:
            return i
    names = [line.split(" = ", 1)[1].split(" ", 1)[0] for line in tracer.lines if " = " in line]
    main = next((n for n in names if n not in _HELPER_OPS), names[0] if names else op.name)
    return _aval(main, _spec(out.shape, out.dtype))


def _apply(op, args, kwargs=None):
    """Records `op(*args, **kwargs)`: a new pending node (the hot path), an argument it
    returns unchanged, or the eager fallback's result."""
    key = _abstract_key(op, args, kwargs)
    result = _ABSTRACT.get(key) if key is not None else None
    if result is None:
        result = _abstract_eval(op, args, kwargs)
        if key is not None:
            if len(_ABSTRACT) >= _ABSTRACT_LIMIT:
                _ABSTRACT.clear()
            _ABSTRACT[key] = result
    if type(result) is _Aval:
        pending = 1
        for a in args:
            if type(a) is LazyTensor:
                pending += a._pending
            elif type(a) is list or type(a) is tuple:
                pending += sum(x._pending for x in _arrays_in(a, []) if type(x) is LazyTensor)
        t = object.__new__(LazyTensor)
        t._aval, t._op, t._args, t._kwargs, t._value, t._site, t._pending = result, op, args, kwargs, None, _site(), pending
        _collector[0] += 1
        if _collector[0] >= _FREEZE_EVERY:
            _freeze_nodes()
        if _config.log_intercepts:
            _log.info("captured %s -> %s %s%s at %s", op.name, result.op, result.spec.dtype, result.spec.shape, t._site.where)
        if pending >= _config.max_pending:
            _materialize([t])
        return t
    if type(result) is int:
        return args[result]
    return _fallback(op, args, kwargs, result.reason)


def _fallback(op, args, kwargs, reason):
    """Eager numpy on materialized inputs (logged when XCS_LOG_INTERCEPTS=1); array results
    become (materialized) LazyTensors."""
    if op.eager is None:
        raise _unsupported(f"{op.name} has no tensor op and no eager form")
    lazies = [a for a in _arrays_in((tuple(args), tuple((kwargs or {}).values())), []) if type(a) is LazyTensor]
    _materialize(lazies)
    concrete = _map_arrays(tuple(args), _concrete)
    kw = {k: _map_arrays(v, _concrete) for k, v in (kwargs or {}).items()}
    _stats["fallbacks"] += 1
    if _config.log_intercepts or os.environ.get("XCS_LOG_INTERCEPTS") == "1":
        where = _site().where
        _log.warning("%s:%d:%d: %s runs eagerly on numpy (fallback: %s)", *where, op.name, reason)
    return _wrap(op.eager(*concrete, **kw), op.name)


def _concrete(a):
    return a.materialize() if type(a) is LazyTensor else a


def _wrap(result, name):
    if type(result) is np.ndarray:
        return _leaf(result, name)
    if type(result) is tuple or type(result) is list:
        return type(result)(_wrap(r, name) for r in result)
    return result


def _leaf(value, name, site=None):
    t = object.__new__(LazyTensor)
    t._aval = _aval(name, _spec(value.shape, value.dtype))
    t._op, t._args, t._kwargs, t._value, t._pending = None, (), None, value, 0
    t._site = site or _site()
    return t


# ---------------------------------------------------------------- creation

def asarray(a, dtype=None):
    """A LazyTensor holding `np.asarray(a, dtype)` (a LazyTensor stays itself, cast if asked)."""
    dtype = None if dtype is None else _dtype_arg(dtype, "xcs.lazy.asarray")
    if type(a) is LazyTensor:
        return a if dtype is None or dtype == a.dtype else a.astype(dtype)
    return _leaf(np.asarray(a, dtype), "asarray")


array = asarray


def _shape_arg(shape, what="a shape"):
    """A shape given as an int or a sequence of ints, each >= 0."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        dims = tuple(dims)
    except TypeError:
        dims = None
    if dims is None or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise _usage_error(f"{what}: {shape!r} is not a shape (an int or a sequence of ints >= 0)")
    return tuple(int(d) for d in dims)


def _constant(shape, fill_value, dtype):
    return xnp.constant(np.full(shape, fill_value, dtype))


_CREATION = {name: _Op(name, _constant, np.full) for name in ("zeros", "ones", "full")}


def _created(name, shape, fill_value, dtype):
    shape = _shape_arg(shape, f"xcs.lazy.{name}")
    dtype = _dtype_arg(dtype, f"xcs.lazy.{name}") if dtype is not None else np.asarray(fill_value).dtype
    if dtype not in _core._ELEM:
        return _leaf(np.full(shape, fill_value, dtype), name)
    t = object.__new__(LazyTensor)
    t._aval = _aval(name, _spec(shape, dtype))
    t._op, t._args, t._kwargs, t._value, t._pending = _CREATION[name], (shape, fill_value, dtype), None, None, 1
    t._site = _site()
    return t


def zeros(shape, dtype=float):
    """`numpy.zeros` as a pending node (a splat `tensor.constant` in the graph)."""
    return _created("zeros", shape, 0, dtype)


def ones(shape, dtype=float):
    return _created("ones", shape, 1, dtype)


def full(shape, fill_value, dtype=None):
    return _created("full", shape, fill_value, dtype)


def randn(*shape, dtype=float):
    """Standard normal samples (`numpy.random.randn`'s signature), drawn now from the
    generator `seed` sets; the values enter compiled code as arguments."""
    shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)) else shape
    shape, dtype = _shape_arg(shape, "xcs.lazy.randn"), _dtype_arg(dtype, "xcs.lazy.randn")
    if dtype.kind != "f":
        raise _usage_error(f"xcs.lazy.randn: samples are floats, not {dtype}")
    return _leaf(_rng.standard_normal(shape).astype(dtype, copy=False), "randn")


def seed(n):
    """Makes `randn` repeatable: the same seed gives the same values."""
    global _rng
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise _usage_error(f"xcs.lazy.seed takes an int >= 0, not {n!r}")
    _rng = np.random.default_rng(int(n))


class scope:
    """`with xcs.lazy.scope("encoder.layer1"):` names the module path of the nodes made inside
    (nested scopes join with dots); outside any scope it is the Python module and function."""

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise _usage_error(f"xcs.lazy.scope takes a non-empty str name, not {name!r}")
        self.name = name

    def __enter__(self):
        self.outer = _state.scope
        _state.scope = f"{self.outer}.{self.name}" if self.outer else self.name
        return self

    def __exit__(self, *exc):
        _state.scope = self.outer


def configure(max_pending=None, pipeline=None, cache_size=None, log_intercepts=None):
    """Sets `max_pending` (a node whose pending graph reaches this many nodes, counted along
    every path, is materialized at once; default 10,000), the pass `pipeline` (default
    `xcs.DEFAULT_PIPELINE`), the compiled-graph `cache_size` (512) and `log_intercepts`.
    Returns the previous settings (a dict to pass back)."""
    old = dict(max_pending=_config.max_pending, pipeline=_config.pipeline, cache_size=_config.cache_size,
               log_intercepts=_config.log_intercepts)
    for name, value in (("max_pending", max_pending), ("cache_size", cache_size)):
        if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1):
            raise _usage_error(f"xcs.lazy.configure: {name} takes an int >= 1, not {value!r}")
    if pipeline is not None and not isinstance(pipeline, str):
        raise _usage_error(f"xcs.lazy.configure: pipeline takes a pass pipeline str, not {pipeline!r}")
    for name, value in (("max_pending", max_pending), ("pipeline", pipeline), ("cache_size", cache_size),
                        ("log_intercepts", log_intercepts)):
        if value is not None:
            setattr(_config, name, value)
    if _config.log_intercepts and not _log.handlers and not logging.getLogger().handlers:
        _log.addHandler(logging.StreamHandler())
        _log.setLevel(logging.INFO)
    return old


configure()  # the handler when XCS_LOG_INTERCEPTS=1 was set at import


# ---------------------------------------------------------------- materialization

class _Entry:
    """A compiled subgraph: the executable and the captured IR text."""
    __slots__ = ("compiled", "text")

    def __init__(self, compiled, text):
        self.compiled, self.text = compiled, text


def _scalars_to_leaves(node):
    """`x * 0.5` on a float array: the 0.5 becomes a 0-d array of x's dtype, so it is an
    argument of the compiled graph and `x * 0.7` is a cache hit. Same result: NEP 50 gives
    the weak scalar x's dtype, and xcs.numpy casts it to that dtype either way."""
    if len(node._args) != 2:
        return
    a, b = node._args
    if type(a) is float and type(b) in (LazyTensor, np.ndarray) and b.dtype.kind == "f":
        node._args = (np.asarray(a, b.dtype), b)
    elif type(b) is float and type(a) in (LazyTensor, np.ndarray) and a.dtype.kind == "f":
        node._args = (a, np.asarray(b, a.dtype))


def _children(node):
    """The arrays among a node's arguments (LazyTensors, numpy arrays and scalars), in order."""
    if node._op.scalars:
        _scalars_to_leaves(node)
    out = []
    for a in node._args:
        t = type(a)
        if t is LazyTensor or t is np.ndarray:
            out.append(a)
        elif t is tuple or t is list or t is slice or isinstance(a, np.generic):
            _arrays_in(a, out)
    if node._kwargs:
        _arrays_in(tuple(node._kwargs.values()), out)
    return out


# Graph construction stays linear in ops: CPython's cyclic collector traverses every tracked
# object at each full collection, and a long capture keeps its nodes alive, so the recorded nodes
# are moved out of its reach (`gc.freeze()`, O(1)) every `_FREEZE_EVERY` nodes. Nodes make no
# cycles and are still freed by reference counting; what the freeze defers is the collection of
# other objects' cycles made before it, until the next materialization gives them back to the
# collector (`gc.unfreeze()`, O(1)). A program that froze objects itself (a pre-fork server) is
# left alone. MLIR and PyTorch's lazy tensors keep their nodes outside any tracing collector.
_FREEZE_EVERY = 4096
_collector = [0, False]  # nodes recorded since the last freeze; whether a freeze of ours is pending


def _freeze_nodes():
    _collector[0] = 0
    if gc.isenabled() and (_collector[1] or gc.get_freeze_count() == 0):
        gc.freeze()
        _collector[1] = True


def _unfreeze_nodes():
    if _collector[1]:
        _collector[1] = False
        gc.unfreeze()


class _gc_paused:
    """Pauses the cyclic garbage collector: planning makes no cycles, but its many
    short-lived objects would start collections that traverse the whole graph again and again."""

    def __enter__(self):
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was_enabled:
            gc.enable()


def _plan(targets):
    """What materializing `targets` computes: (order, leaves, refs, key, targets) — the walk
    (`_walk`), the targets plus the intermediates held elsewhere, and the structural key."""
    with _gc_paused():
        order, leaves, refs, uses = _walk(targets)
        targets = targets + _held_elsewhere(order, uses, targets)
        return order, leaves, refs, _structural_key(order, leaves, targets, refs), targets


def _walk(targets):
    """The pending nodes the targets need, in dependency order (an iterative post-order
    walk), the leaves (materialized tensors and numpy arrays: the compiled function's
    arguments), `refs`: id(object) -> node index (>= 0) or ~leaf index, and `uses`: id ->
    how many times the graph uses it."""
    refs, order, leaves, uses = {}, [], [], {}
    for root in targets:
        if id(root) in refs:
            continue
        refs[id(root)] = None
        stack = [(root, iter(_children(root)))]
        while stack:
            node, kids = stack[-1]
            for k in kids:
                i = id(k)
                uses[i] = uses.get(i, 0) + 1
                if i in refs:
                    continue
                if type(k) is LazyTensor and k._value is None:
                    refs[i] = None
                    stack.append((k, iter(_children(k))))
                    break
                refs[i] = ~len(leaves)
                leaves.append(k)
            else:
                stack.pop()
                refs[id(node)] = len(order)
                order.append(node)
    return order, leaves, refs, uses


def _held_elsewhere(order, uses, targets):
    """The pending intermediates something outside the graph still refers to (a user's
    variable, another graph): materialized with the targets, so that a loop's carried value
    becomes a leaf and every iteration compiles to the same graph (a cache hit). An object's
    references here: `order`, the loop variable, getrefcount's argument, its uses in the graph."""
    chosen = {id(t) for t in targets}
    extra = []
    for node in order:
        if id(node) not in chosen and sys.getrefcount(node) > 3 + uses.get(id(node), 0):
            extra.append(node)
    return extra


def _encode(x, refs):
    """A static argument as part of the structural key (arrays by their reference)."""
    t = type(x)
    if t is LazyTensor or t is np.ndarray or isinstance(x, np.generic):
        return refs[id(x)]
    if t is float:
        return (float, x.hex())
    if t is tuple or t is list:
        return (t, tuple(_encode(v, refs) for v in x))
    if t is slice:
        return (slice, _encode(x.start, refs), _encode(x.stop, refs), _encode(x.step, refs))
    if t is dict:
        return (dict, tuple(sorted((k, _encode(v, refs)) for k, v in x.items())))
    if isinstance(x, np.dtype) and x.isbuiltin:
        return (np.dtype, id(x))
    try:
        hash(x)
    except TypeError:
        raise _Unhashable() from None
    return (t, x)


def _encode_args(args, refs):
    """`_encode` of an argument tuple, with the common case (an array) inline."""
    out = []
    for a in args:
        t = type(a)
        out.append(refs[id(a)] if t is LazyTensor or t is np.ndarray else _encode(a, refs))
    return tuple(out)


def _leaf_value(x):
    if type(x) is LazyTensor:
        return x._value
    return x if type(x) is np.ndarray else np.asarray(x)


def _structural_key(order, leaves, targets, refs):
    """Equal keys: the same ops on the same static values, wired the same way, on leaves of
    the same shapes and dtypes. `None` if a static value is unhashable (never cached)."""
    try:
        nodes = tuple([(n._op, _encode_args(n._args, refs), _encode(n._kwargs, refs) if n._kwargs else None)
                       for n in order])
    except _Unhashable:
        return None
    specs = tuple(_spec(v.shape, v.dtype) for v in map(_leaf_value, leaves))
    return (nodes, specs, tuple(refs[id(t)] for t in targets), _config.pipeline)


def _trace(order, leaves, targets, refs):
    """Replays the nodes through `xcs.numpy` into a module: `func.func @lazy(leaves...)`."""
    tracer = _ReplayTracer()
    env = {}
    for j, leaf in enumerate(leaves):
        v = _leaf_value(leaf)
        where = leaf._site.where if type(leaf) is LazyTensor else ("<numpy array>", 0, 0)
        env[~j] = tracer.argument(v.shape, v.dtype, where)
    lookup = lambda a: env[refs[id(a)]]  # noqa: E731
    with tracing(tracer):
        for i, node in enumerate(order):
            tracer.where = node._site.where
            kw = {k: _map_arrays(v, lookup) for k, v in node._kwargs.items()} if node._kwargs else {}
            env[i] = node._op.traced(*_map_arrays(node._args, lookup), **kw)
    results = [env[refs[id(t)]] for t in targets]
    return module_text(tracer, "lazy", results, targets[0]._site.where)


def _compile(order, leaves, targets, refs):
    text = _trace(order, leaves, targets, refs)
    traced = Traced(text, "lazy", None, False, {}, ["tensor"] * len(targets))
    shapes = [list(_leaf_value(v).shape) for v in leaves]
    try:
        return _Entry(Compiled(traced, _config.pipeline, shapes), text)
    except XcsError as e:
        raise _materialization_error("compiling the captured graph failed", e) from e


def _materialization_error(what, e):
    return MaterializationError(f"{e.diagnostic}\nnote: {what} (xcs.lazy)", e.file, e.line, e.col)


def _lookup(order, leaves, targets, refs, key):
    with _lock:
        entry = _compiled.get(key) if key is not None else None
        if entry is not None:
            _stats["hits"] += 1
            return entry
        _stats["misses"] += 1
    entry = _compile(order, leaves, targets, refs)
    if key is not None:
        with _lock:
            while len(_compiled) >= _config.cache_size:
                _compiled.pop(next(iter(_compiled)))
            _compiled[key] = entry
    return entry


def _materialize(tensors):
    """Computes the pending ones among `tensors` in one compiled function; each keeps its
    value and drops its graph."""
    seen, targets = set(), []
    for t in tensors:
        if t._value is None and id(t) not in seen:
            seen.add(id(t))
            targets.append(t)
    if not targets:
        return
    order, leaves, refs, key, targets = _plan(targets)
    entry = _lookup(order, leaves, targets, refs, key)
    try:
        outs = entry.compiled.executable(*[_leaf_value(v) for v in leaves])
    except XcsError as e:
        raise _materialization_error("running the captured graph failed", e) from e
    for t, v in zip(targets, outs):
        t._value, t._args, t._kwargs, t._pending = v, (), None, 0
    _unfreeze_nodes()


def materialize(*tensors):
    """Materializes several tensors in one compiled function; returns their numpy values
    (one value for one tensor). Non-lazy arguments are returned as numpy arrays."""
    _materialize([t for t in tensors if type(t) is LazyTensor])
    values = [t._value if type(t) is LazyTensor else np.asarray(t) for t in tensors]
    return values[0] if len(values) == 1 else tuple(values)


def graph(*tensors, debug_info=False):
    """The captured IR of the tensors' pending graph: a module with `func.func @lazy` whose
    arguments are the leaves (materialized tensors, numpy arrays) and whose results are the
    tensors (ordinary XCS IR: `xcs-opt` parses it)."""
    targets = [t for t in tensors]
    if not targets or any(type(t) is not LazyTensor for t in targets):
        shown = ", ".join(type(t).__name__ for t in targets) or "nothing"
        raise _usage_error(f"xcs.lazy.graph takes LazyTensors, not {shown}")
    order, leaves, refs, _ = _walk([t for t in targets if t._value is None])
    for t in targets:
        if t._value is not None and id(t) not in refs:
            refs[id(t)] = ~len(leaves)
            leaves.append(t)
    text = _trace(order, leaves, targets, refs)
    return _core_program(text).text(debug_info=debug_info)


def _core_program(text):
    from ._native import Program
    return Program.parse(text, "<xcs.lazy>")


def cache_info():
    """Hits and misses (= compilations) of the compiled-graph cache, its size, and the number
    of eager fallbacks so far."""
    return CacheInfo(_stats["hits"], _stats["misses"], len(_compiled), _stats["fallbacks"])


def cache_clear():
    with _lock:
        _compiled.clear()
        _stats.update(hits=0, misses=0, fallbacks=0)
