"""`@xcs.kernel` (seed 002): a Python function whose annotations (`In[xcs.Tensor]`,
`Out[xcs.Tensor]`, `InOut[xcs.Tensor]`, `Constexpr[int]`, `AxisVar`) give its signature becomes a
`KernelRef`. Its body, written with `xcs.numpy` on the per-task views and writing its Out/InOut
parameters by item assignment (`o[...] = expr`), is traced per specialization (view shapes and
dtypes, constexpr values) into an `xcs.kernel` (and a plain `func.func` for the LLVM backend).
Launches inside `xcs.workload()` are built by `_workload.py`.
"""

import inspect
import re
import types
import typing

import numpy as np

from . import _core
from ._core import Array, Tracer, tracing, user_error
from ._jit import def_location, symbol_name


# ---------------------------------------------------------------- annotations

class Tensor:
    """The type of a tensor parameter: `In[xcs.Tensor]`, `Out[xcs.Tensor]`, `InOut[xcs.Tensor]`.
    Its shape and dtype come from the view bound at each launch."""


class AxisVar:
    """The annotation of an axis parameter: the index of an enclosing `xcs.parallel_for`
    (bound positionally at a launch: `k[b, h](...)`, `k.at(b=b, h=h)(...)`, `k(b, h, ...)`)."""


class ParamType:
    """An annotation such as `In[xcs.Tensor]` or `Constexpr[int]`: a kind and the inner type."""

    def __init__(self, kind, inner):
        self.kind, self.inner = kind, inner

    def __repr__(self):
        inner = getattr(self.inner, "__name__", None) or repr(self.inner).replace("typing.", "")
        return f"{_KIND_NAMES[self.kind]}[{inner}]"

    def __eq__(self, other):
        return isinstance(other, ParamType) and (self.kind, self.inner) == (other.kind, other.inner)

    def __hash__(self):
        return hash((self.kind, repr(self.inner)))


class _Marker:
    kind = None

    def __class_getitem__(cls, inner):
        if cls.kind == "constexpr":
            allowed = _constexpr_types(inner)
            if not allowed:
                raise TypeError(f"Constexpr[...] takes int, float, bool or a union of them, not {inner!r}")
        elif inner is not Tensor:
            raise TypeError(f"{cls.__name__}[...] takes xcs.Tensor, not {inner!r}")
        return ParamType(cls.kind, inner)


class In(_Marker):
    """`In[xcs.Tensor]`: a tensor the kernel reads."""
    kind = "in"


class Out(_Marker):
    """`Out[xcs.Tensor]`: a tensor the kernel writes (by item assignment, `o[...] = expr`)."""
    kind = "out"


class InOut(_Marker):
    """`InOut[xcs.Tensor]`: a tensor the kernel reads and writes."""
    kind = "inout"


class Constexpr(_Marker):
    """`Constexpr[int]` (or `float`, `bool`, `int | float`...): a compile-time parameter, bound
    by keyword at a launch (or taking its default); its value specializes the kernel."""
    kind = "constexpr"


_KIND_NAMES = {"in": "In", "out": "Out", "inout": "InOut", "constexpr": "Constexpr", "axis": "AxisVar"}


def _constexpr_types(inner):
    """The Python types a `Constexpr[inner]` accepts (empty: not a valid inner type)."""
    args = typing.get_args(inner) if typing.get_origin(inner) in (typing.Union, types.UnionType) else (inner,)
    if all(a in (int, float, bool) for a in args):
        return tuple(args)
    return ()


# ---------------------------------------------------------------- signature

class Param:
    """One kernel parameter: `name`, `kind` (`"axis"`, `"in"`, `"out"`, `"inout"`,
    `"constexpr"`), `annotation`, `default` (`inspect.Parameter.empty` when none)."""

    def __init__(self, name, kind, annotation, default=inspect.Parameter.empty):
        self.name, self.kind, self.annotation, self.default = name, kind, annotation, default

    @property
    def writes(self):
        return self.kind in ("out", "inout")

    @property
    def reads(self):
        return self.kind in ("in", "inout")

    @property
    def has_default(self):
        return self.default is not inspect.Parameter.empty

    def __repr__(self):
        text = f"{self.name}: " + ("AxisVar" if self.kind == "axis" else repr(self.annotation))
        return text + (f" = {self.default!r}" if self.has_default else "")


class KernelSignature:
    """A kernel's signature read from its annotations: `params` in order, and the groups
    `axes`, `tensors` (In/Out/InOut, in order) and `constexprs`."""

    def __init__(self, params):
        self.params = params
        self.axes = [p for p in params if p.kind == "axis"]
        self.tensors = [p for p in params if p.kind in ("in", "out", "inout")]
        self.constexprs = [p for p in params if p.kind == "constexpr"]
        self.by_name = {p.name: p for p in params}

    def __repr__(self):
        return "(" + ", ".join(repr(p) for p in self.params) + ")"

    def arg_kinds(self):
        """The IR's `arg_kinds` (axes and tensors; constexprs are attributes)."""
        return [p.kind for p in self.params if p.kind != "constexpr"]


def read_signature(fn):
    """The `KernelSignature` of `fn` from its annotations (a `TraceError` at its definition
    when a parameter has none, or one that is not a kernel annotation)."""
    where = def_location(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as e:  # unresolvable string annotations
        raise user_error(f"kernel '{fn.__name__}': cannot resolve its annotations ({e})", where) from None
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise user_error(f"kernel '{fn.__name__}': parameter '{p.name}' must be a named parameter "
                             "(no *args, **kwargs or positional-only parameters)", where)
        ann = hints.get(p.name, inspect.Parameter.empty)
        if ann is AxisVar:
            kind = "axis"
        elif isinstance(ann, ParamType):
            kind = ann.kind
        else:
            shown = "none" if ann is inspect.Parameter.empty else repr(ann)
            raise user_error(f"kernel '{fn.__name__}': parameter '{p.name}' needs an annotation In[xcs.Tensor], "
                             f"Out[xcs.Tensor], InOut[xcs.Tensor], Constexpr[int|float|bool] or AxisVar "
                             f"(it has {shown})", where)
        if p.default is not p.empty:
            if kind != "constexpr":
                raise user_error(f"kernel '{fn.__name__}': parameter '{p.name}' has a default; only "
                                 "Constexpr parameters may", where)
            check_constexpr(fn.__name__, p.name, ann, p.default, where)
        params.append(Param(p.name, kind, ann, p.default))
    sig = KernelSignature(params)
    if not any(p.writes for p in sig.tensors):
        raise user_error(f"kernel '{fn.__name__}' has no Out or InOut parameter; a kernel's results are "
                         "the tensors it writes", where)
    return sig


def check_constexpr(kernel, name, ann, value, where=None):
    """`value` (a launch's or the default) fits `Constexpr[...]`; returns it (ints as floats
    for `Constexpr[float]`)."""
    allowed = _constexpr_types(ann.inner)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        ok = bool in allowed
    elif isinstance(value, int):
        ok = int in allowed or float in allowed
        if ok and int not in allowed:
            value = float(value)
    elif isinstance(value, float):
        ok = float in allowed
    else:
        ok = False
    if not ok:
        raise _binding_error(f"kernel '{kernel}': constexpr '{name}' is {ann!r}, but it is given "
                         f"{value!r} ({type(value).__name__})", where)
    return value


def constexpr_attr(value):
    """The IR attribute of a constexpr value (`128 : i64`, `5.0E-1 : f64`, `true`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value} : i64"
    return f"{_core._float_text(float(value), 'f64')} : f64"


# ---------------------------------------------------------------- tracing

class KernelAxis(Array):
    """An axis parameter inside a kernel body: the grid point's index, a 0-d int64 value known
    at run time (`tensor.from_index` of the kernel's `index` argument). It computes like a
    Python int (weak in numpy's promotion: `q * b` keeps q's dtype) and indexes views
    (`q[b]`); it has no value while the kernel is traced (`int(b)`, `range(b)`, `if b:`)."""

    weak = True

    def __init__(self, tracer, name, param):
        super().__init__(tracer, name, (), np.int64)
        self.param = param

    def __repr__(self):
        return f"xcs.KernelAxis({self.param})"

    def _unknown(self, *a, **k):
        raise user_error(f"axis parameter '{self.param}' has no Python value while the kernel is traced; compute "
                         f"with it as an array ({self.param} * 2, q[{self.param}], xcs.numpy.where(...)) or index the "
                         f"workload's tensors with the axis variables at the launch (Q[b][h])")

    __index__ = __int__ = __bool__ = __float__ = __array__ = _unknown


class WritableArray(Array):
    """An Out/InOut parameter in a kernel body: `o[...] = expr` makes a new value of the
    parameter (value semantics: the rest of it is kept); reading it reads the current value."""

    def __init__(self, tracer, name, shape, dtype, param):
        super().__init__(tracer, name, shape, dtype)
        self.param = param
        self.written = False

    def __setitem__(self, idx, value):
        from . import numpy as xnp
        starts, sizes, kept = _assignment_box(self, idx)
        value = value if isinstance(value, Array) else xnp.constant(np.asarray(value), tracer=self.tracer)
        box_kept = tuple(s for s, k in zip(sizes, kept) if k)
        if xnp._broadcast(value.shape, box_kept) != box_kept:
            raise user_error(f"cannot assign a value of shape {value.shape} to '{self.param}'{_index_text(idx)} "
                             f"of shape {box_kept}")
        value = xnp._as(xnp.broadcast_to(value, box_kept) if value.shape != box_kept else value, self.dtype,
                        self.tracer)
        value = xnp.reshape(value, tuple(sizes))
        new = _insert(Array(self.tracer, self.name, self.shape, self.dtype), value, starts, sizes, 0)
        self.name = new.name
        self.written = True


def _index_text(idx):
    parts = idx if isinstance(idx, tuple) else (idx,)

    def one(i):
        if isinstance(i, slice):
            return ":".join("" if v is None else str(v) for v in (i.start, i.stop)) + ("" if i.step in (None, 1) else f":{i.step}")
        return "..." if i is Ellipsis else str(i)
    return "[" + ", ".join(one(i) for i in parts) + "]"


def _assignment_box(arr, idx):
    """(starts, sizes, kept) per dim of `arr[idx] = ...`: ints and unit-step slices (and one
    `...`)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    n_real = sum(1 for i in parts if i is not Ellipsis)
    if sum(1 for i in parts if i is Ellipsis) > 1:
        raise user_error("an index can only have a single ellipsis ('...')")
    if n_real > arr.ndim:
        raise user_error(f"too many indices for '{arr.param}' of rank {arr.ndim}")
    full = []
    for i in parts:
        full.extend([slice(None)] * (arr.ndim - n_real) if i is Ellipsis else [i])
    full += [slice(None)] * (arr.ndim - len(full))
    starts, sizes, kept = [], [], []
    for d, i in enumerate(full):
        n = arr.shape[d]
        if isinstance(i, slice):
            s, e, st = i.indices(n)
            if st != 1:
                raise user_error(f"assignment to '{arr.param}' with step {st}: only unit-step slices can be assigned")
            starts.append(s), sizes.append(max(e - s, 0)), kept.append(True)
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            if not -n <= i < n:
                raise user_error(f"index {i} is out of bounds for axis {d} of '{arr.param}' with size {n}")
            starts.append(int(i) % n), sizes.append(1), kept.append(False)
        else:
            raise user_error(f"'{arr.param}'[...] = ... takes ints, unit-step slices and '...', not {type(i).__name__}")
    return starts, sizes, kept


def _insert(old, value, starts, sizes, d):
    """`old` with `value` (of shape `sizes`) put at `starts`: slices and concatenations along
    the dims the box does not cover whole (the tensor dialect has no insert op)."""
    from . import numpy as xnp
    if d == old.ndim:
        return value
    s, z, n = starts[d], sizes[d], old.shape[d]
    whole = (s, z) == (0, n)

    def along(lo, hi):
        return xnp._getitem(old, (slice(None),) * d + (slice(lo, hi),))
    mid = _insert(old if whole else along(s, s + z), value, starts, sizes, d + 1)
    if whole:
        return mid
    parts = ([along(0, s)] if s > 0 else []) + [mid] + ([along(s + z, n)] if s + z < n else [])
    return xnp.concatenate(parts, axis=d) if len(parts) > 1 else mid


class Specialization:
    """One traced specialization of a kernel: view types and constexpr values fixed.
    `func_text` is a `func.func` of the tensor views returning the new Out/InOut values (what
    the LLVM backend compiles); `kernel_text(symbol)` the `xcs.kernel` op."""

    def __init__(self, kernel, views, constexprs):
        self.kernel, self.views, self.constexprs = kernel, views, constexprs
        self.func_name = kernel.symbol
        self._trace()

    def _trace(self):
        k = self.kernel
        tracer = Tracer()
        where = def_location(k.fn)
        kwargs, writable = {}, []
        for p in k.signature.params:
            if p.kind == "axis":
                a = tracer.argument((), np.int64, where)  # `index` in the xcs.kernel (kernel_text)
                kwargs[p.name] = KernelAxis(tracer, a.name, p.name)
            elif p.kind == "constexpr":
                kwargs[p.name] = self.constexprs[p.name]
            else:
                shape, dtype = self.views[p.name]
                a = tracer.argument(shape, dtype, where)
                if p.writes:
                    a = WritableArray(tracer, a.name, a.shape, a.dtype, p.name)
                    writable.append(a)
                kwargs[p.name] = a
        with tracing(tracer):
            out = k.fn(**kwargs)
        if out is not None:
            raise user_error(f"kernel '{k.name}' returns {type(out).__name__}; a kernel returns nothing, it writes "
                             "its Out/InOut parameters by item assignment (o[...] = value)", where)
        for a in writable:
            if k.signature.by_name[a.param].kind == "out" and not a.written:
                raise user_error(f"kernel '{k.name}' never writes its Out parameter '{a.param}' "
                                 f"(assign it: {a.param}[...] = value)", where)
        self.tracer, self.results, self.where = tracer, writable, where
        if tracer.host or tracer.externals:
            raise user_error(f"kernel '{k.name}' uses host values (strings, LLM calls); kernels are tensor code", where)

    def func_text(self, name=None):
        """`func.func @name(axes..., views...) -> (new Out/InOut values)` (in parameter order;
        an axis is a 0-d i64 tensor here)."""
        return self.tracer.function_text(name or self.func_name, self.results, self.where)

    def kernel_text(self, symbol=None):
        """The `xcs.kernel` op: its signature (axes as `index`, the views' tensor types),
        its constexpr values, and the body ending in `xcs.yield` of the written parameters;
        each axis enters the body as `tensor.from_index` of its `index` argument."""
        sig = self.kernel.signature
        types, block_args, args, prologue = [], [], iter(self.tracer.args), []
        loc = _core.loc_text(self.where)
        for p in sig.params:
            if p.kind == "constexpr":
                continue
            name, ty, _ = next(args)
            if p.kind == "axis":
                types.append("index")
                block_args.append(f"%{p.name}_axis: index")
                prologue.append(f"{name} = tensor.from_index %{p.name}_axis : (index) -> {ty} {loc}")
            else:
                types.append(ty)
                block_args.append(f"{name}: {ty}")
        attrs = [f"function_type = ({', '.join(types)}) -> ()",
                 "arg_kinds = [" + ", ".join(f'"{k}"' for k in sig.arg_kinds()) + "]",
                 "arg_names = [" + ", ".join(f'"{p.name}"' for p in sig.params if p.kind != "constexpr") + "]"]
        if sig.constexprs:
            attrs.append("constexprs = {" + ", ".join(f"{p.name} = {constexpr_attr(self.constexprs[p.name])}"
                                                      for p in sig.constexprs) + "}")
        body = "\n".join("    " + line for line in prologue + self.tracer.lines)
        results = ", ".join(a.name for a in self.results)
        rtypes = ", ".join(a.type for a in self.results)
        if len(self.results) > 1:
            rtypes = f"({rtypes}) -> ()"  # the op's type signature: one type, or a function type
        body += f"\n    xcs.yield {results} : {rtypes} {loc}"
        return (f"xcs.kernel @{symbol or self.func_name} {{{', '.join(attrs)}}} {{\n"
                f"  ^bb0({', '.join(block_args)}):\n{body}\n  }} {loc}")


# ---------------------------------------------------------------- KernelRef

_REGISTRY = {}  # symbol -> KernelRef (legacy `xcs.task("name", ...)` looks kernels up here)


class KernelRef:
    """What `@xcs.kernel` returns: `signature`, `symbol`, launches inside a workload
    (`k.at(b=b)(...)`, `k[b](...)`, `k(b, ...)`), `lower(**views)` (the `xcs.kernel` IR text)."""

    def __init__(self, fn, name=None):
        self.fn = fn
        self.name = name or fn.__name__
        self.symbol = re.sub(r"[^A-Za-z0-9_]", "_", name or symbol_name(fn).replace(".", "_"))
        self.signature = read_signature(fn)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._specializations = {}
        _REGISTRY[self.name] = self

    def __repr__(self):
        return f"<xcs.KernelRef {self.name}{self.signature!r}>"

    def specialize(self, views, constexprs):
        """The traced `Specialization` for views {param: (shape, dtype)} and constexpr
        values (cached: the same key never retraces)."""
        key = (tuple((n, tuple(s), np.dtype(d).str) for n, (s, d) in sorted(views.items())),
               tuple(sorted(constexprs.items())))
        spec = self._specializations.get(key)
        if spec is None:
            spec = Specialization(self, {n: (tuple(s), np.dtype(d)) for n, (s, d) in views.items()}, constexprs)
            self._specializations[key] = spec
        return spec

    def resolve_constexprs(self, given, where=None):
        """The constexpr values of a launch: `given` checked against the annotations,
        defaults filled in; a `TraceError` names a missing or mistyped one."""
        out = {}
        for p in self.signature.constexprs:
            if p.name in given:
                out[p.name] = check_constexpr(self.name, p.name, p.annotation, given[p.name], where)
            elif p.has_default:
                out[p.name] = check_constexpr(self.name, p.name, p.annotation, p.default, where)
            else:
                raise _binding_error(f"kernel '{self.name}': constexpr '{p.name}' has no default and is not given", where)
        return out

    def lower(self, **bindings):
        """The `xcs.kernel` of one specialization as IR text: tensor parameters given as numpy
        arrays (or `(shape, dtype)` pairs, or anything with `.shape` and `.dtype`), constexprs
        by value (defaults otherwise)."""
        where = _core.frame_location(_core.user_frame())
        views, given = {}, {}
        for name, v in bindings.items():
            p = self.signature.by_name.get(name)
            if p is None or p.kind == "axis":
                raise _binding_error(f"kernel '{self.name}' has no tensor or constexpr parameter '{name}'", where)
            if p.kind == "constexpr":
                given[name] = v
            else:
                views[name] = _shape_dtype(self.name, name, v, where)
        missing = [p.name for p in self.signature.tensors if p.name not in views]
        if missing:
            raise _binding_error(f"kernel '{self.name}': lower() needs the tensor parameter(s) {', '.join(missing)} "
                                 "(arrays or (shape, dtype))", where)
        spec = self.specialize(views, self.resolve_constexprs(given, where))
        return "module {\n  " + spec.kernel_text() + "\n}\n"

    # launches (inside `xcs.workload()`; see _workload.py)
    def at(self, **axes):
        from ._workload import BoundKernel
        return BoundKernel(self, axes=axes)

    def __getitem__(self, axes):
        from ._workload import BoundKernel
        return BoundKernel(self, positional=axes if isinstance(axes, tuple) else (axes,))

    def __call__(self, *axes, **bindings):
        from ._workload import BoundKernel
        return BoundKernel(self, positional=axes)(**bindings)


def _shape_dtype(kernel, name, v, where):
    if isinstance(v, tuple) and len(v) == 2 and not hasattr(v, "shape"):
        shape, dtype = v
    elif hasattr(v, "shape") and hasattr(v, "dtype"):
        shape, dtype = v.shape, v.dtype
    else:
        raise _binding_error(f"kernel '{kernel}': tensor parameter '{name}' is given {type(v).__name__}; "
                             "give an array, a view of a workload tensor or (shape, dtype)", where)
    try:
        dtype = np.dtype(dtype)
        _core.elem_type(dtype)
    except TypeError:
        raise _binding_error(f"kernel '{kernel}': tensor parameter '{name}' has no valid dtype ({dtype!r})", where) from None
    return tuple(int(d) for d in shape), dtype


def _binding_error(message, where=None):
    from .errors import BindingError
    file, line, col = where or _core.frame_location(_core.user_frame())
    return BindingError(f"{file}:{line}:{col}: error: {message}", file, line, col)


def kernel(fn=None, *, name=None):
    """`@xcs.kernel` / `@xcs.kernel(name="attn")`: the function becomes a `KernelRef`."""
    if fn is None:
        return lambda f: KernelRef(f, name)
    return KernelRef(fn, name)


__all__ = ["kernel", "KernelRef", "KernelSignature", "Param", "Tensor", "In", "Out", "InOut", "Constexpr",
           "AxisVar"]
