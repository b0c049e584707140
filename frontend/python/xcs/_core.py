"""Tracing: abstract arrays (`Array`: shape, dtype, an SSA value) and the `Tracer` that records
the ops made on them as lines of XCS IR (`func.func` of the tensor dialect), each with the
`loc("file.py":line:col)` of the user's Python line that made it. The op builders
(`xcs.numpy`, `xcs.nn`, `xcs.llm`) all go through `Tracer.emit`.
"""

import os
import sys
import threading

import numpy as np

from .errors import TraceError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# numpy dtype <-> the IR's element type (unsigned ints and complex have no XCS type)
_ELEM = {
    np.dtype("float16"): "f16", np.dtype("float32"): "f32", np.dtype("float64"): "f64",
    np.dtype("bool"): "i1", np.dtype("int8"): "i8", np.dtype("int16"): "i16",
    np.dtype("int32"): "i32", np.dtype("int64"): "i64",
}
_INF_BITS = {"f16": (0x7C00, 0xFC00, 0x7E00), "f32": (0x7F800000, 0xFF800000, 0x7FC00000),
             "f64": (0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000)}

_state = threading.local()


def user_frame():
    """The innermost frame outside this package (the user's line)."""
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PACKAGE_DIR):
        f = f.f_back
    return f


def frame_location(f):
    """(file, line, col) of a frame's current instruction (col 1-based, as MLIR's)."""
    if f is None:
        return ("<unknown>", 0, 0)
    line, col = f.f_lineno, 1
    positions = getattr(f.f_code, "co_positions", None)
    if positions is not None and f.f_lasti >= 0:
        try:
            pos = list(positions())[f.f_lasti // 2]
            if pos[0] is not None:
                line = pos[0]
            if pos[2] is not None:
                col = pos[2] + 1
        except IndexError:
            pass
    return (f.f_code.co_filename, line or 0, col)


def mlir_string(s):
    """A string literal of the IR's syntax."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append("\\%02X" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def loc_text(where):
    file, line, col = where
    return f"loc({mlir_string(file)}:{line}:{col})"


def user_error(message, where=None):
    """A `TraceError` located at the user's line (`file:line:col: error: message`)."""
    file, line, col = where or frame_location(user_frame())
    return TraceError(f"{file}:{line}:{col}: error: {message}", file, line, col)


def elem_type(dtype):
    dtype = np.dtype(dtype)
    try:
        return _ELEM[dtype]
    except KeyError:
        raise user_error(f"the dtype {dtype} has no XCS element type (float16/32/64, bool, int8/16/32/64)") from None


def tensor_type(shape, dtype):
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{elem_type(dtype)}>"


def _float_text(x, elem):
    if np.isfinite(x):
        r = repr(float(x))
        mantissa, _, exp = r.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return mantissa + ("e" + exp if exp else "")
    pos, neg, nan = _INF_BITS[elem]
    return hex(nan if np.isnan(x) else (pos if x > 0 else neg))


def dense_text(value, dtype):
    """`dense<...> : tensor<...>` of a numpy value cast to `dtype`."""
    value = np.asarray(value).astype(dtype)
    elem = elem_type(dtype)
    if elem == "i1":
        fmt = lambda x: "true" if x else "false"  # noqa: E731
    elif elem.startswith("i"):
        fmt = lambda x: str(int(x))  # noqa: E731
    else:
        fmt = lambda x: _float_text(x, elem)  # noqa: E731

    def nested(v):
        if v.ndim == 0:
            return fmt(v.item())
        return "[" + ", ".join(nested(s) for s in v) + "]"

    flat = value.reshape(-1)
    if value.size > 0 and (flat == flat[0]).all() and not (elem.startswith("f") and np.isnan(flat).any()):
        body = fmt(flat[0].item())
    else:
        body = nested(value)
    return f"dense<{body}> : {tensor_type(value.shape, dtype)}"


class Tracer:
    """Records one function's body: its arguments, then one line per op."""

    def __init__(self):
        self.lines = []
        self.args = []
        self.count = 0
        self.host = False  # it handles host values (strings, LLM calls): run on the interpreter
        self.externals = {}  # symbol -> Python callable called back at run time
        self.decls = {}  # symbol -> `func.func private` declaration text
        self.helpers = []  # further functions (vmap bodies of orchestration code)
        self.arg_attrs = {}  # argument index -> attribute dict text (`{xcs.name = "x"}`)

    def fresh(self):
        self.count += 1
        return f"%{self.count - 1}"

    def argument(self, shape, dtype, where):
        a = Array(self, f"%arg{len(self.args)}", tuple(shape), np.dtype(dtype))
        self.args.append((a.name, a.type, where))
        return a

    def emit(self, op, operands, result_types, attrs=None, where=None, region=None):
        """Appends `results = op operands {attrs} : (types) -> types loc(...)`; returns the
        result names."""
        where = where or frame_location(user_frame())
        names = [self.fresh() for _ in result_types]
        lhs = (", ".join(names) + " = ") if names else ""
        attr = ""
        if attrs:
            attr = " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"
        ins = ", ".join(o.name for o in operands)
        sig = "(" + ", ".join(o.type for o in operands) + ") -> "
        sig += result_types[0] if len(result_types) == 1 else "(" + ", ".join(result_types) + ")"
        if not operands and len(result_types) == 1:
            sig = result_types[0]
        body = f" {region}" if region else ""
        self.lines.append(f"{lhs}{op} {ins}{attr} : {sig}{body} {loc_text(where)}")
        return names

    def function_text(self, name, results, where, attrs=None, visibility=""):
        """The recorded function as `func.func @name(...) -> (...) { ... }`."""
        args = ", ".join(f"{n}: {t}{' ' + self.arg_attrs[i] if i in self.arg_attrs else ''} {loc_text(w)}"
                         for i, (n, t, w) in enumerate(self.args))
        rtypes = ", ".join(r.type for r in results)
        head = f"func.func {visibility}@{name}({args}) -> ({rtypes})"
        if attrs:
            head += " attributes {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"
        ret = f"return {', '.join(r.name for r in results)} : {rtypes}" if results else "return"
        body = "\n".join("    " + line for line in self.lines)
        return f"{head} {{\n{body}\n    {ret} {loc_text(where)}\n  }} {loc_text(where)}"


def active_tracer():
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


class tracing:
    """Context manager: `tracer` is the active one (the target of constants) inside."""

    def __init__(self, tracer):
        self.tracer = tracer

    def __enter__(self):
        if not hasattr(_state, "stack"):
            _state.stack = []
        _state.stack.append(self.tracer)
        return self.tracer

    def __exit__(self, *exc):
        _state.stack.pop()


class Array:
    """An abstract array while tracing: a shape, a numpy dtype and the SSA value holding it.
    It has numpy's operators, methods and properties (see `xcs.numpy`)."""

    __array_priority__ = 1000

    def __init__(self, tracer, name, shape, dtype, elem=None):
        self.tracer = tracer
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.type = tensor_type(self.shape, self.dtype) if elem is None else elem

    def __repr__(self):
        return f"xcs.Array(shape={self.shape}, dtype={self.dtype})"

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise user_error("len() of a 0-d array")
        return self.shape[0]

    def __bool__(self):
        raise user_error("the truth value of a traced array is not known while tracing "
                         "(use xcs.numpy.where instead of if/while on array values)")

    def __array__(self, *a, **k):
        raise user_error("a traced array has no concrete value while tracing "
                         "(it cannot be converted to a numpy array inside xcs.jit)")

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    __hash__ = object.__hash__


def install_array_methods(namespace):
    """Gives `Array` numpy's operators and methods, from the `xcs.numpy` functions."""
    xnp = namespace
    binary = {
        "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
        "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
        "and": "logical_and_or_bitwise_and", "or": "logical_or_or_bitwise_or", "xor": "logical_xor_or_bitwise_xor",
    }
    for short, fname in binary.items():
        fn = getattr(xnp, fname)
        setattr(Array, f"__{short}__", (lambda fn: lambda self, other: fn(self, other))(fn))
        setattr(Array, f"__r{short}__", (lambda fn: lambda self, other: fn(other, self))(fn))
    for short, fname in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                         "eq": "equal", "ne": "not_equal"}.items():
        fn = getattr(xnp, fname)
        setattr(Array, f"__{short}__", (lambda fn: lambda self, other: fn(self, other))(fn))
    Array.__neg__ = lambda self: xnp.negative(self)
    Array.__pos__ = lambda self: self
    Array.__abs__ = lambda self: xnp.abs(self)
    Array.__invert__ = lambda self: xnp.invert(self)
    Array.__getitem__ = lambda self, idx: xnp._getitem(self, idx)
    Array.T = property(lambda self: xnp.transpose(self))
    Array.mT = property(lambda self: xnp.swapaxes(self, -1, -2))
    for m in ("sum", "mean", "max", "min", "prod", "reshape", "transpose", "astype", "squeeze",
              "flatten", "ravel", "clip", "swapaxes", "take", "var", "std", "any", "all", "round", "dot",
              "diagonal", "trace", "repeat", "argmax", "argmin", "ptp", "cumsum"):
        setattr(Array, m, (lambda fn: lambda self, *a, **k: fn(self, *a, **k))(getattr(xnp, m)))
    Array.reshape = lambda self, *shape, **k: xnp.reshape(self, shape[0] if len(shape) == 1 else shape, **k)
    Array.transpose = lambda self, *axes: xnp.transpose(self, (axes[0] if len(axes) == 1 else axes) or None)
    Array.__array_ufunc__ = xnp._array_ufunc
    Array.__array_function__ = xnp._array_function
