"""`xcs.jit`: traces a Python function with abstract arrays into a `func.func`, runs the pass
pipeline, compiles it through LLVM (or, when it handles host values such as strings and LLM
calls, runs it on the reference interpreter) and caches the result by (function, shapes,
dtypes, static arguments). `f.lower(*args)` exposes the traced IR, the compiled function and
the `cost-annotate` report.
"""

import collections
import functools
import json
import os
import re
import tempfile
import threading

import numpy as np

from ._core import Array, Tracer, tracing, user_error
from ._native import Program
from ._intercept import rebind
from ._orchestration import HostValue

# classify, vmap-batch, inline, canonicalize, cse, fuse (MLIR's textual pipeline syntax)
DEFAULT_PIPELINE = "builtin.module(classify,vmap-batch,inline,func.func(canonicalize,cse,fuse))"

CacheInfo = collections.namedtuple("CacheInfo", "hits misses traces size")


def symbol_name(fun):
    """A symbol for a Python function (its qualified name, `<lambda>` and `<locals>` cleaned)."""
    name = getattr(fun, "__qualname__", None) or getattr(fun, "__name__", "fn")
    name = name.replace("<locals>.", "").replace("<", "").replace(">", "")
    return re.sub(r"[^A-Za-z0-9_.$]", "_", name) or "fn"


def def_location(fun):
    code = getattr(fun, "__code__", None)
    if code is None:
        return ("<unknown>", 0, 0)
    return (code.co_filename, code.co_firstlineno, 1)


def _abstract_spec(x):
    """(shape, dtype) of a dynamic argument; `None` for a host value (str, other objects)."""
    if isinstance(x, np.ndarray):
        return (x.shape, x.dtype)
    if hasattr(type(x), "__xcs_lazy__"):  # an xcs.lazy tensor: materialized when the call passes it
        return (x.shape, x.dtype)
    if isinstance(x, (bool, int, float, np.generic)):
        a = np.asarray(x)
        return (a.shape, a.dtype)
    if isinstance(x, (list, tuple)) and x and _is_array_like_list(x):
        a = np.asarray(x)
        return (a.shape, a.dtype)
    return None


class Traced:
    """A traced function: the module text, the entry name, how to rebuild the outputs."""

    def __init__(self, text, name, out_tree, host, externals, result_kinds):
        self.text, self.name, self.out_tree = text, name, out_tree
        self.host = host
        self.externals = externals
        self.result_kinds = result_kinds


def _flatten(out, tracer):
    """Outputs (an array, a tuple/list/dict of them, scalars, strings) -> (leaves, tree)."""
    if isinstance(out, (tuple, list)):
        parts = [_flatten(o, tracer) for o in out]
        return [leaf for p in parts for leaf in p[0]], (type(out), [p[1] for p in parts])
    if isinstance(out, dict):
        keys = sorted(out)
        parts = [_flatten(out[k], tracer) for k in keys]
        return [leaf for p in parts for leaf in p[0]], (dict, keys, [p[1] for p in parts])
    if isinstance(out, (Array, HostValue)):
        return [out], None
    if isinstance(out, str):
        from . import _orchestration
        return [_orchestration._as_host_str(tracer, out)], None
    if out is None:
        return [], "none"
    if isinstance(out, (bool, int, float, np.generic, np.ndarray)):
        from . import numpy as xnp
        return [xnp.constant(np.asarray(out), tracer=tracer)], None
    raise user_error(f"a traced function must return arrays (or tuples/lists/dicts of them), not {type(out).__name__}")


def unflatten(tree, leaves):
    it = iter(leaves)

    def build(t):
        if t is None:
            return next(it)
        if t == "none":
            return None
        if t[0] is dict:
            return {k: build(s) for k, s in zip(t[1], t[2])}
        return t[0](build(s) for s in t[1])
    return build(tree)


def _is_array_like_list(x):
    return all(isinstance(v, (bool, int, float)) or (isinstance(v, (list, tuple)) and _is_array_like_list(v)) for v in x)


def flatten_inputs(xs):
    """Arguments -> (leaves, hashable tree): lists, tuples and dicts are containers (a list of
    numbers is one array-like leaf)."""
    leaves = []

    def go(x):
        if isinstance(x, (list, tuple)) and x and not _is_array_like_list(x):
            return (type(x), tuple(go(v) for v in x))
        if isinstance(x, dict):
            keys = tuple(sorted(x))
            return (dict, keys, tuple(go(x[k]) for k in keys))
        leaves.append(x)
        return None
    return leaves, (tuple, tuple(go(x) for x in xs))


def _contains_traced(xs):
    for x in xs:
        if isinstance(x, (Array, HostValue)):
            return True
        if isinstance(x, (list, tuple)) and _contains_traced(x):
            return True
        if isinstance(x, dict) and _contains_traced(list(x.values())):
            return True
    return False


def trace(fun, args, static_argnums=(), name=None, where=None, arg_hook=None, result_hook=None, prelude=()):
    """Traces `fun(*args)`: dynamic arguments become abstract arrays (or host values).
    `arg_hook(tracer, i, array) -> array` replaces the array of dynamic argument `i` (before
    `fun` sees it), `result_hook(tracer, leaves, tree) -> leaves` the returned values;
    `prelude` holds module-level ops put before the function (`xcs.shard_map`'s grid)."""
    tracer = Tracer()
    where = where or def_location(fun)
    abstract = []
    for i, a in enumerate(args):
        if i in static_argnums:
            abstract.append(a)
            continue
        spec = _abstract_spec(a)
        abstract.append(tracer.argument(*spec, where) if spec is not None else _host_argument(tracer, a, where))
    if arg_hook is not None:
        abstract = [a if i in static_argnums else arg_hook(tracer, i, a) for i, a in enumerate(abstract)]
    with tracing(tracer):
        out = fun(*abstract)
        leaves, tree = _flatten(out, tracer)
        if result_hook is not None:
            leaves = result_hook(tracer, leaves, tree)
    name = name or symbol_name(fun)
    text = module_text(tracer, name, leaves, where, prelude=prelude)
    kinds = ["tensor" if r.type.startswith("tensor<") else "host" for r in leaves]
    host = tracer.host or any(k == "host" for k in kinds)
    return Traced(text, name, tree, host, dict(tracer.externals), kinds)


def _host_argument(tracer, value, where):
    from . import _orchestration
    return _orchestration.host_argument(tracer, value, where)


def module_text(tracer, name, results, where, attrs=None, prelude=()):
    funcs = list(prelude) + [tracer.function_text(name, results, where, attrs)]
    funcs += list(tracer.decls.values()) + list(tracer.helpers)
    return "module {\n  " + "\n  ".join(funcs) + "\n}\n"


def parse(text):
    return Program.parse(text, "<xcs.jit>")


class Compiled:
    """A traced function after the pipeline: called with concrete arguments (dynamic ones
    only), it runs the LLVM-compiled code (or the interpreter for host values)."""

    def __init__(self, traced, pipeline, shapes):
        self.traced = traced
        self.program = parse(traced.text)
        if pipeline:
            self.program.run_pipeline(pipeline)
        self.executable = None
        if not traced.host:
            self.executable = self.program.compile(traced.name, [list(s) for s in shapes])

    def call_arrays(self, arrays):
        """The hot path: compiled code on numpy arrays, outputs rebuilt."""
        if self.executable is None:
            return self(*arrays)
        out = self.executable(*arrays)
        tree = self.traced.out_tree
        if tree is None:
            return out[0]
        if tree[0] is tuple and all(t is None for t in tree[1]):
            return out
        return unflatten(tree, out)

    def as_text(self, debug_info=False):
        """The module after the pipeline."""
        return self.program.text(debug_info=debug_info)

    def call_flat(self, dynamic):
        if self.executable is not None:
            return self.executable(*dynamic)
        from . import _orchestration
        return _orchestration.interpret(self.program, self.traced, dynamic)

    def __call__(self, *dynamic):
        return unflatten(self.traced.out_tree, self.call_flat(dynamic))


class Lowered:
    """`f.lower(*args)`: the traced IR of one call signature."""

    def __init__(self, jitted, traced, shapes):
        self._jitted, self.traced, self._shapes = jitted, traced, shapes

    def as_text(self, debug_info=False):
        """The traced module (before the pipeline); `debug_info=True` prints each op's
        `loc(...)`, as `xcs-opt --mlir-print-debuginfo`."""
        return parse(self.traced.text).text(debug_info=debug_info)

    def compile(self):
        return Compiled(self.traced, self._jitted.pipeline, self._shapes)

    def classify(self):
        """The `classify` pass's JSON report of the traced module (as `xcs-opt
        --classify-report`): each function's class, its signals and, for hybrid ones, the
        call paths to them."""
        program = parse(self.traced.text)
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            program.run_pipeline(f"builtin.module(classify{{report={path}}})")
            with open(path) as f:
                return json.load(f)
        finally:
            os.unlink(path)

    def cost(self):
        """The `cost-annotate` report (the resolved cost tree, as `xcs-opt --cost-report`)."""
        program = parse(self.traced.text)
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            inner = self._jitted.pipeline[len("builtin.module("):-1] if self._jitted.pipeline.startswith("builtin.module(") else self._jitted.pipeline
            program.run_pipeline(f"builtin.module({inner + ',' if inner else ''}cost-annotate{{report={path}}})")
            with open(path) as f:
                return json.load(f)
        finally:
            os.unlink(path)


class JitFunction:
    """A jitted function (`xcs.jit(f)`): call it like `f`."""

    def __init__(self, fun, static_argnums=(), pipeline=None):
        # first: update_wrapper copies the wrapped object's __dict__ (a VmapFunction's `fun`...)
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.static_argnums = tuple(sorted({static_argnums} if isinstance(static_argnums, int) else set(static_argnums)))
        self.pipeline = DEFAULT_PIPELINE if pipeline is None else pipeline
        self._cache = {}
        self._fast = {}  # (shape, dtype) per argument -> entry, for all-array calls
        self._lock = threading.RLock()
        self._hits = self._misses = self._traces = 0

    def _split(self, args):
        statics = self.static_argnums
        if not statics:
            return args, ()
        dyn = tuple(a for i, a in enumerate(args) if i not in statics)
        st = tuple(args[i] for i in statics if i < len(args))
        return dyn, st

    def _key(self, args):
        """(key, flat dynamic leaves, input tree): shapes/dtypes of the leaves (arrays inside
        lists, tuples and dicts count one by one, as jax's pytrees), the tree, the statics."""
        dyn, st = self._split(args)
        leaves, tree = flatten_inputs(dyn)
        parts = []
        for a in leaves:
            if type(a) is np.ndarray:
                parts.append((a.shape, a.dtype))
            else:
                spec = _abstract_spec(a)
                parts.append(spec if spec is not None else ("host", type(a)))
        try:
            key = (tuple(parts), tree, st)
            hash(key)
        except TypeError:
            raise user_error("static arguments must be hashable") from None
        return key, leaves, tree

    def __call__(self, *args):
        if not self.static_argnums:
            # the hot path: every argument a numpy array, the key their shapes and dtypes
            key = tuple([(a.shape, a.dtype) for a in args if type(a) is np.ndarray])
            if len(key) == len(args):
                entry = self._fast.get(key)
                if entry is not None:
                    self._hits += 1
                    return entry.call_arrays(args)
        if _contains_traced(args):
            return rebind(self.fun)(*args)  # inside another trace: trace through, as jax does
        key, leaves, tree = self._key(args)
        entry = self._cache.get(key)
        if entry is None:
            with self._lock:  # one trace per key, whichever thread comes first
                entry = self._cache.get(key)
                if entry is None:
                    self._misses += 1
                    entry = self._compile(args, leaves, tree)
                    self._cache[key] = entry
                    if not self.static_argnums and all(type(a) is np.ndarray for a in args):
                        self._fast[tuple((a.shape, a.dtype) for a in args)] = entry
                else:
                    self._hits += 1
        else:
            self._hits += 1
        return entry(*[_concrete(a) for a in leaves]) if entry.traced.host else entry(*leaves)

    def _flat_function(self, args, tree):
        """`fun` as a function of the flat dynamic leaves (statics and the tree rebuilt)."""
        statics = self.static_argnums
        # calls into orchestration modules (openai....) become external calls (_intercept.py)
        fun = rebind(self.fun)

        def flat(*leaves):
            dyn = iter(unflatten(tree, leaves))
            return fun(*[args[i] if i in statics else next(dyn) for i in range(len(args))])
        return flat

    def _trace(self, args, leaves, tree):
        self._traces += 1
        return trace(self._flat_function(args, tree), leaves, name=symbol_name(self.fun), where=def_location(self.fun))

    def _compile(self, args, leaves, tree):
        return Compiled(self._trace(args, leaves, tree), self.pipeline, _shapes(leaves))

    def lower(self, *args):
        _, leaves, tree = self._key(args)
        return Lowered(self, self._trace(args, leaves, tree), _shapes(leaves))

    def cache_info(self):
        """Hits, misses, traces and entries of the compiled-code cache."""
        return CacheInfo(self._hits, self._misses, self._traces, len(self._cache))

    def cache_clear(self):
        self._cache.clear()
        self._fast.clear()
        self._hits = self._misses = self._traces = 0


def _concrete(a):
    spec = _abstract_spec(a)
    return np.asarray(a) if spec is not None and not isinstance(a, np.ndarray) else a


def _shapes(dyn):
    out = []
    for a in dyn:
        spec = _abstract_spec(a)
        out.append(list(spec[0]) if spec is not None else [])
    return out


def jit(fun=None, *, static_argnums=(), pipeline=None):
    """`@xcs.jit` / `xcs.jit(f, static_argnums=..., pipeline=...)`: see `JitFunction`."""
    if fun is None:
        return lambda f: JitFunction(f, static_argnums, pipeline)
    return JitFunction(fun, static_argnums, pipeline)


__all__ = ["jit", "JitFunction", "Lowered", "Compiled", "CacheInfo", "DEFAULT_PIPELINE"]
