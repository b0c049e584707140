"""Calls into orchestration modules (`openai.`, `anthropic.`, ... : the `classify` pass's
tables, through `xcs._native.classify_module`) without a marker: while `xcs.jit` traces a
function, its globals and closure cells that hold such modules, their functions, classes or
instances are seen through `Intercepted` proxies, so `openai.chat.completions.create(...)` or
`client.messages.create(...)` becomes an external `func.call @openai.chat.completions.create`
(as `@xcs.mark_orchestration` makes one), called back into the real callable at run time.
Python functions the traced one calls are rebound the same way (their own globals), so they
are traced through with the proxies too. JAX has no counterpart (it traces only its own ops).
"""

import functools
import reprlib
import sys
import types

import numpy as np

from . import _core
from ._core import Array, user_error
from ._native import classify_module
from ._orchestration import HostValue, _as_host_str, declare_call
from .errors import TraceError

_PACKAGE = __name__.rpartition(".")[0]
# values passed through as they are, never proxied
_PLAIN = (str, bytes, int, float, complex, bool, type(None), np.ndarray, np.generic)
# how many Python functions one trace may rebind (a bound on the scan of their globals)
_MAX_FUNCTIONS = 2000


@functools.lru_cache(maxsize=4096)
def is_orchestration_module(name):
    """Whether `classify` puts the module `name` on the orchestration side."""
    return bool(name) and classify_module(name) == "orchestration"


def _module_of(obj):
    """The module an object belongs to: a module's name, else its (class's) `__module__`."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    m = getattr(obj, "__module__", None)
    if not isinstance(m, str):
        m = getattr(type(obj), "__module__", None)
    return m if isinstance(m, str) else ""


def _public_path(module, qualname, obj):
    """`package.Name` when the package's top level exports `obj` under its qualname
    (`openai.OpenAI` rather than `openai._client.OpenAI`), else `module.qualname`."""
    top = sys.modules.get(module.partition(".")[0])
    if top is not None and getattr(top, qualname, None) is obj:
        return f"{top.__name__}.{qualname}"
    return f"{module}.{qualname}"


def _proxy_of(value):
    """An `Intercepted` proxy for an orchestration module, function, class or instance; None
    for anything else."""
    if isinstance(value, _PLAIN) or isinstance(value, Intercepted):
        return None
    if isinstance(value, types.ModuleType):
        return Intercepted(value, value.__name__, value, ()) if is_orchestration_module(value.__name__) else None
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        module = _module_of(value)
        if not is_orchestration_module(module):
            return None
        qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", "call")
        return Intercepted(value, _public_path(module, qualname, value), value, ())
    cls = type(value)
    if is_orchestration_module(getattr(cls, "__module__", "")):
        return Intercepted(value, _public_path(cls.__module__, cls.__qualname__, cls), value, ())
    return None


class Intercepted:
    """A proxy of an orchestration object while tracing: attributes are proxied along their
    path (`openai` -> `openai.chat` -> ...); a call becomes an external call of the path (a
    class called with concrete arguments is constructed now and its instance proxied)."""

    __slots__ = ("_xcs_target", "_xcs_path", "_xcs_root", "_xcs_chain")

    def __init__(self, target, path, root, chain):
        self._xcs_target, self._xcs_path, self._xcs_root, self._xcs_chain = target, path, root, chain

    def __repr__(self):
        return f"xcs.Intercepted({self._xcs_path})"

    def __getattr__(self, name):
        value = getattr(self._xcs_target, name)
        if isinstance(value, _PLAIN):
            return value
        if isinstance(value, types.ModuleType) and not is_orchestration_module(value.__name__):
            return value  # a module the library imported (os, json): not intercepted
        return Intercepted(value, f"{self._xcs_path}.{name}", self._xcs_root, self._xcs_chain + (name,))

    def __call__(self, *args, **kwargs):
        target = self._xcs_target
        tracer = _core.active_tracer()
        if tracer is None:  # escaped the trace: an ordinary call
            return target(*_unproxied(args), **_unproxied(kwargs))
        if not callable(target):
            raise user_error(f"{self._xcs_path} ({type(target).__name__}) is not callable")
        if isinstance(target, type) and not _has_traced((args, kwargs)):
            obj = target(*_unproxied(args), **_unproxied(kwargs))
            return Intercepted(obj, self._xcs_path, obj, ())  # methods of `path` now
        return _external_call(tracer, self, args, kwargs)


def _unproxied(x):
    """`x` with the proxies in it (in lists, tuples, dicts) replaced by their objects."""
    if isinstance(x, Intercepted):
        return x._xcs_target
    if type(x) in (list, tuple):
        return type(x)(_unproxied(v) for v in x)
    if type(x) is dict:
        return {k: _unproxied(v) for k, v in x.items()}
    return x


def _has_traced(x):
    if isinstance(x, (Array, HostValue)):
        return True
    if type(x) in (list, tuple):
        return any(_has_traced(v) for v in x)
    if type(x) is dict:
        return any(_has_traced(v) for v in x.values())
    return False


# ---------------------------------------------------------------- the external call

class _Slot:
    """The place of operand `index` in a call's arguments."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"${self.index}"

    def __eq__(self, other):
        return isinstance(other, _Slot) and other.index == self.index

    __hash__ = None


def _split(x, operands, tracer):
    """`x` with every traced value and string replaced by a `_Slot` (appended to `operands`);
    lists, tuples and dicts are looked into, other constants are kept."""
    if isinstance(x, (Array, HostValue)) or isinstance(x, str):
        operands.append(x if not isinstance(x, str) else _as_host_str(tracer, x))
        return _Slot(len(operands) - 1)
    if type(x) in (list, tuple):
        return type(x)(_split(v, operands, tracer) for v in x)
    if type(x) is dict:
        return {k: _split(v, operands, tracer) for k, v in x.items()}
    if isinstance(x, Intercepted):
        return x._xcs_target
    if isinstance(x, (set, frozenset)) and any(isinstance(v, (Array, HostValue)) for v in x):
        raise user_error("a traced value inside a set cannot be passed to an intercepted call "
                         "(use a list, tuple or dict)")
    return x


def _fill(x, values):
    if isinstance(x, _Slot):
        return values[x.index]
    if type(x) in (list, tuple):
        return type(x)(_fill(v, values) for v in x)
    if type(x) is dict:
        return {k: _fill(v, values) for k, v in x.items()}
    return x


def _same(a, b):
    """Whether two call conventions are the same (constants by identity or equality)."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


def _convention_text(path, spec):
    """`create(model=$0, n=2, messages=[{'content': $1}])`: the call, operands as `$i`."""
    r = reprlib.Repr()
    r.maxstring, r.maxother = 40, 40

    def show(x):
        if type(x) is list:
            return "[" + ", ".join(show(v) for v in x) + "]"
        if type(x) is tuple:
            return "(" + ", ".join(show(v) for v in x) + ("," if len(x) == 1 else "") + ")"
        if type(x) is dict:
            return "{" + ", ".join(f"{r.repr(k)}: {show(v)}" for k, v in x.items()) + "}"
        return repr(x) if isinstance(x, _Slot) else r.repr(x)

    args, kwargs = spec
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{path.rpartition('.')[2]}({', '.join(parts)})"


def _returns(target):
    """`!xcs.str` when the callee is annotated `-> str`, else `!xcs.any`."""
    ann = getattr(getattr(target, "__func__", target), "__annotations__", None)
    ret = ann.get("return") if isinstance(ann, dict) else None
    return "!xcs.str" if ret is str or ret == "str" else "!xcs.any"


def _symbol_for(tracer, path, key):
    """`path` for the first convention of a callee in a trace, `path$1`, `path$2`... for other
    ones (key: root object, attribute chain, call convention, types)."""
    sites = tracer.__dict__.setdefault("intercepted", {})  # symbol -> key, per trace
    n = 0
    while True:
        sym = path if n == 0 else f"{path}${n}"
        old = sites.get(sym)
        if old is None:
            sites[sym] = key
            return sym
        if old[0] is key[0] and old[1] == key[1] and old[3] == key[3] and _same(old[2], key[2]):
            return sym
        n += 1


def _callback(root, chain, spec, rtype, sym):
    """The run-time callee: the attribute chain resolved from `root` again, called with the
    concrete operands put back into the arguments."""
    args_spec, kwargs_spec = spec

    def call(*values):
        fn = root
        for name in chain:
            fn = getattr(fn, name)
        out = fn(*_fill(args_spec, values), **_fill(kwargs_spec, values))
        if rtype == "!xcs.str" and not isinstance(out, str):
            raise TypeError(f"@{sym} is declared -> str but returned {type(out).__name__}")
        return out
    return call


def _external_call(tracer, proxy, args, kwargs):
    operands = []
    try:
        spec = (_split(tuple(args), operands, tracer), _split(dict(kwargs), operands, tracer))
    except RecursionError:
        raise user_error(f"the arguments of {proxy._xcs_path} are too deeply nested to intercept") from None
    from ._jit import symbol_name
    path = symbol_name(types.SimpleNamespace(__qualname__=proxy._xcs_path))  # `<locals>` and the like cleaned
    rtype = _returns(proxy._xcs_target)
    types_ = tuple(o.type for o in operands)
    sym = _symbol_for(tracer, path, (proxy._xcs_root, proxy._xcs_chain, spec, types_ + (rtype,)))
    module = _module_of(proxy._xcs_target)
    if not module or module in ("builtins",):
        module = _module_of(proxy._xcs_root)
    attrs = {"xcs.call": _core.mlir_string(_convention_text(path, spec))}
    fn = _callback(proxy._xcs_root, proxy._xcs_chain, spec, rtype, sym)
    value = declare_call(tracer, sym, module, operands, rtype, fn, attrs)
    return OpaqueResult(tracer, value.name, value.type, sym)


class OpaqueResult(HostValue):
    """The result of an intercepted call: a run-time Python object, opaque while tracing."""

    def __init__(self, tracer, name, type_, sym):
        super().__init__(tracer, name, type_)
        self.symbol = sym

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise _OpaqueError(user_error(
            f"the result of @{self.symbol} has no value while tracing: .{name} cannot be read here "
            f"(return it, pass it to another intercepted call, or read it in an "
            f"@xcs.mark_orchestration function)").diagnostic)

    def __getitem__(self, key):
        raise _OpaqueError(user_error(
            f"the result of @{self.symbol} has no value while tracing: it cannot be indexed here "
            f"(read it in an @xcs.mark_orchestration function)").diagnostic)


class _OpaqueError(TraceError, AttributeError):
    """A `TraceError` that is also an `AttributeError` (so `hasattr` probes stay False)."""


# ---------------------------------------------------------------- rebinding traced functions

@functools.lru_cache(maxsize=4096)
def _is_library_module(name):
    """xcs's own modules and those `classify` knows (numpy, jax, openai...)."""
    return name == _PACKAGE or name.startswith(_PACKAGE + ".") or classify_module(name) is not None


def _is_user_function(fn):
    """A Python function `xcs.jit` traces through (not xcs's own, not a library's by classify)."""
    return isinstance(fn, types.FunctionType) and not _is_library_module(fn.__module__ or "")


def _names(code, out):
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _names(c, out)
    return out


def _references(fn):
    """(name, value) of the globals `fn`'s code reads, and (index, value) of its cells."""
    g = fn.__globals__
    names = _names(fn.__code__, set())
    refs = [(("g", n), g[n]) for n in names if n in g]
    for i, cell in enumerate(fn.__closure__ or ()):
        try:
            refs.append((("c", i), cell.cell_contents))
        except ValueError:  # an empty cell
            pass
    return refs


def rebind(fn):
    """`fn` (a Python function), or a copy whose globals and cells holding orchestration
    objects are proxies, and whose Python callees are rebound copies of their own when they
    reach one; `fn` itself when nothing in its reach is orchestration. A bound method is
    rebound through its function."""
    if isinstance(fn, types.MethodType):
        f = rebind(fn.__func__)
        return fn if f is fn.__func__ else types.MethodType(f, fn.__self__)
    if not _is_user_function(fn):
        return fn
    refs, needs, order, seen = {}, {}, [fn], {fn}
    i = 0
    while i < len(order) and i < _MAX_FUNCTIONS:  # the functions `fn` reaches
        f = order[i]
        i += 1
        refs[f] = _references(f)
        needs[f] = any(_proxy_of(v) is not None for _, v in refs[f])
        for _, v in refs[f]:
            if _is_user_function(v) and v not in seen:
                seen.add(v)
                order.append(v)
    reached = order[:i]
    changed = True
    while changed:  # a function needs rebinding when one of its callees does
        changed = False
        for f in reached:
            if not needs[f] and any(needs.get(v, False) for _, v in refs[f] if isinstance(v, types.FunctionType)):
                needs[f] = changed = True
    if not needs[fn]:
        return fn
    copies = {}
    for f in reached:
        if needs[f]:
            copies[f] = types.FunctionType(f.__code__, dict(f.__globals__), f.__name__, f.__defaults__,
                                           _cells(f, refs[f], needs))
    for f, copy in copies.items():
        copy.__kwdefaults__ = f.__kwdefaults__
        copy.__dict__.update(f.__dict__)
        copy.__qualname__, copy.__module__, copy.__doc__ = f.__qualname__, f.__module__, f.__doc__
        for (kind, key), v in refs[f]:
            if kind == "g":
                new = copies.get(v) if isinstance(v, types.FunctionType) else None
                new = new if new is not None else _proxy_of(v)
                if new is not None:
                    copy.__globals__[key] = new
    for f, copy in copies.items():  # cells of callees rebound after their owner was copied
        for (kind, key), v in refs[f]:
            if kind == "c" and isinstance(v, types.FunctionType) and v in copies:
                copy.__closure__[key].cell_contents = copies[v]
    return copies[fn]


def _cells(f, refs, needs):
    """`f`'s closure with fresh cells for the values that change (proxies, rebound callees:
    filled in afterwards), its own cells otherwise."""
    if not f.__closure__:
        return f.__closure__
    cells = list(f.__closure__)
    for (kind, key), v in refs:
        if kind != "c":
            continue
        proxy = _proxy_of(v)
        if proxy is not None:
            cells[key] = types.CellType(proxy)
        elif isinstance(v, types.FunctionType) and needs.get(v):
            cells[key] = types.CellType(v)  # replaced by its copy below
    return tuple(cells)
