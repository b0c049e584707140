"""Workloads (seed 002): `with xcs.workload() as w:` declares tensors (`w.input`, `w.output`),
`with xcs.parallel_for(n) as b:` binds axis variables, and kernel launches (`k[b, h](q=Q[b, h],
...)`) are recorded with their views: per dim of a workload tensor an index or a range whose
offset is affine in the axis variables (`A[b, i*T:(i+1)*T]`). Bounds and bindings are checked
at the launch; overlapping writes by parallel iterations at `w.compile()` (`_schedule.py`).
"""

import linecache
import re
import threading
import warnings

import numpy as np

from . import _core
from ._kernel import KernelRef, _REGISTRY, _binding_error

_state = threading.local()


def _where():
    return _core.frame_location(_core.user_frame())


def active_workload():
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


# ---------------------------------------------------------------- affine expressions

class AxisExpr:
    """`constant + sum(coef * axis)`: an affine expression of axis variables (what views
    index with). `+`, `-` and `*` by an integer; no value while the workload is built."""

    __slots__ = ("coefs", "constant")

    def __init__(self, coefs, constant):
        self.coefs = {a: c for a, c in coefs.items() if c}  # Axis -> coefficient
        self.constant = int(constant)

    @staticmethod
    def of(x):
        """`x` as an expression (ints are constants); `None` when it is neither."""
        if isinstance(x, AxisExpr):
            return x
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            return AxisExpr({}, int(x))
        return None

    def _combine(self, other, sign):
        o = AxisExpr.of(other)
        if o is None:
            return NotImplemented
        coefs = dict(self.coefs)
        for a, c in o.coefs.items():
            coefs[a] = coefs.get(a, 0) + sign * c
        return AxisExpr(coefs, self.constant + sign * o.constant)

    def __add__(self, other):
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._combine(other, -1)

    def __rsub__(self, other):
        return (-self)._combine(other, 1)

    def __neg__(self):
        return AxisExpr({a: -c for a, c in self.coefs.items()}, -self.constant)

    def __mul__(self, other):
        if isinstance(other, AxisExpr) and other.is_constant():
            other = other.constant
        if not isinstance(other, (int, np.integer)) or isinstance(other, bool):
            raise _core.user_error(f"an axis expression can only be multiplied by an integer (views are affine), "
                                   f"not {other!r}")
        return AxisExpr({a: c * int(other) for a, c in self.coefs.items()}, self.constant * int(other))

    __rmul__ = __mul__

    def _no_value(self, *a):
        raise _core.user_error(f"the axis expression {self!r} has no value while the workload is built "
                               "(use it to index workload tensors: Q[b], A[i*T:(i+1)*T])")

    __index__ = __int__ = __bool__ = __floordiv__ = __mod__ = __truediv__ = _no_value

    def is_constant(self):
        return not self.coefs

    def same_terms(self, other):
        return self.coefs == other.coefs

    def value(self, point):
        """Its value at a grid point (`{axis: index}`)."""
        return self.constant + sum(c * point[a] for a, c in self.coefs.items())

    def bounds(self):
        """(smallest, largest) value over the axes' ranges."""
        lo = hi = self.constant
        for a, c in self.coefs.items():
            last = c * (a.extent - 1)
            lo, hi = lo + min(0, last), hi + max(0, last)
        return lo, hi

    def __repr__(self):
        parts = []
        for a, c in sorted(self.coefs.items(), key=lambda t: t[0].index):
            term = a.name if abs(c) == 1 else f"{abs(c)}*{a.name}"
            parts.append(("-" if c < 0 else "+", term))
        if self.constant or not parts:
            parts.append(("-" if self.constant < 0 else "+", str(abs(self.constant))))
        text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
        return text + "".join(f" {s} {t}" for s, t in parts[1:])

    __hash__ = object.__hash__


class Axis(AxisExpr):
    """An axis variable: the index of a `parallel_for` (`0 <= b < extent`)."""

    __slots__ = ("name", "extent", "index", "loop")

    def __init__(self, name, extent, index, loop):
        self.name, self.extent, self.index, self.loop = name, extent, index, loop
        super().__init__({self: 1}, 0)

    def __repr__(self):
        return self.name

    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other


# ---------------------------------------------------------------- tensors and views

class WorkloadTensor:
    """A tensor of the workload (`w.input`, `w.output`): `name`, `shape`, `dtype`, `kind`
    (`"input"`, `"output"`), `default` (the array given at `w.input`). Indexing it with axis
    expressions, ints and slices makes a `View`."""

    def __init__(self, workload, name, kind, shape, dtype, default=None):
        self.workload, self.name, self.kind = workload, name, kind
        self.shape, self.dtype, self.default = tuple(int(d) for d in shape), np.dtype(dtype), default
        self.index = len(workload.tensors)

    def __repr__(self):
        return f"<xcs workload {self.kind} {self.name}: {self.shape} {self.dtype}>"

    @property
    def ndim(self):
        return len(self.shape)

    def view(self):
        return View(self, [("range", AxisExpr({}, 0), None)] * self.ndim)

    def __getitem__(self, idx):
        return self.view()[idx]


class View:
    """A per-task part of a workload tensor: per dim ("index", expr) (the dim is dropped) or
    ("range", start expr, size) (`None`: the whole dim, resolved against the tensor's shape)."""

    def __init__(self, tensor, dims):
        self.tensor, self.dims = tensor, dims

    @property
    def shape(self):
        return self.resolved_shape(self.tensor.shape)

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def ndim(self):
        return len(self.shape)

    def resolved_shape(self, shape):
        """The view's shape when its tensor has `shape`."""
        return tuple(shape[d] if e[2] is None else e[2] for d, e in enumerate(self.dims) if e[0] == "range")

    def axes(self):
        """The axis variables its expressions use."""
        return {a for _, e, *_ in self.dims for a in e.coefs}

    def __repr__(self):
        def one(d, n):
            if d[0] == "index":
                return repr(d[1])
            if d[2] is None and d[1].is_constant() and d[1].constant == 0:
                return ":"
            return f"{d[1]!r}:{d[1] + (n if d[2] is None else d[2])!r}"
        return f"{self.tensor.name}[" + ", ".join(one(d, n) for d, n in zip(self.dims, self.tensor.shape)) + "]"

    def __getitem__(self, idx):
        parts = list(idx) if isinstance(idx, tuple) else [idx]
        kept = [d for d, (k, *_) in enumerate(self.dims) if k == "range"]
        if sum(1 for p in parts if p is Ellipsis) > 1:
            raise _core.user_error("an index can only have a single ellipsis ('...')")
        n_real = sum(1 for p in parts if p is not Ellipsis)
        if n_real > len(kept):
            raise _core.user_error(f"too many indices for {self!r}: it has {len(kept)} dims")
        full = []
        for p in parts:
            full.extend([slice(None)] * (len(kept) - n_real) if p is Ellipsis else [p])
        dims = list(self.dims)
        for d, p in zip(kept, full):
            dims[d] = self._index_dim(d, p)
        return View(self.tensor, dims)

    def _index_dim(self, d, p):
        """Dim `d` (a range of this view) indexed by `p` (an int, an axis expression or a
        unit-step slice of them), bounds checked over the axes' ranges."""
        _, start, size = self.dims[d]
        n = self.tensor.shape[d] if size is None else size
        what = f"dim {d} of {self!r} (size {n})"
        if isinstance(p, slice):
            if p.step not in (None, 1):
                raise _core.user_error(f"a view of {what} takes unit-step slices only, not step {p.step}")
            lo = AxisExpr.of(0 if p.start is None else p.start)
            hi = AxisExpr.of(n if p.stop is None else p.stop)
            if lo is None or hi is None:
                raise _core.user_error(f"a slice of {what} takes ints and axis expressions, not {p!r}")
            if lo.is_constant() and lo.constant < 0:
                lo = AxisExpr({}, lo.constant + n)
            if hi.is_constant() and hi.constant < 0:
                hi = AxisExpr({}, hi.constant + n)
            if not lo.same_terms(hi):
                raise _core.user_error(f"the slice {lo!r}:{hi!r} of {what} does not have a constant size; a view's "
                                       "shape must not depend on the axis variables (use e.g. A[i*T:(i+1)*T])")
            if hi.constant < lo.constant:
                raise _core.user_error(f"the slice {lo!r}:{hi!r} of {what} has a negative size")
            self._check_bounds(("range", lo, hi.constant - lo.constant), n, what)
            entry = ("range", start + lo, hi.constant - lo.constant)
            if size is None and entry[1].is_constant() and entry[1].constant == 0 and entry[2] == self.tensor.shape[d]:
                entry = ("range", entry[1], None)  # still the whole dim: follows the tensor's shape
            return entry
        e = AxisExpr.of(p)
        if e is None:
            raise _core.user_error(f"a view of {what} is indexed with ints, axis variables (and affine expressions "
                                   f"of them) and slices, not {type(p).__name__}")
        if e.is_constant() and e.constant < 0:
            e = AxisExpr({}, e.constant + n)
        entry = ("index", start + e)
        self._check_bounds(("range", e, 1), n, what)
        return entry

    @staticmethod
    def _check_bounds(entry, n, what):
        lo, hi = entry[1].bounds()
        if lo < 0 or hi + entry[2] > n:
            shown = repr(entry[1]) if entry[2] == 1 else f"{entry[1]!r}:{entry[1] + entry[2]!r}"
            raise _core.user_error(f"the index {shown} of {what} takes values {lo}..{hi + entry[2] - 1} over the "
                                   f"axes' ranges, out of bounds 0..{n - 1}")


# ---------------------------------------------------------------- the workload

class Loop:
    """A `parallel_for` in the recorded workload: its axis and its body (loops, launches)."""

    def __init__(self, axis, parent):
        self.axis, self.parent, self.body = axis, parent, []

    def enclosing(self):
        out, loop = [], self
        while loop is not None:
            out.append(loop)
            loop = loop.parent
        return out[::-1]


class Launch:
    """A recorded kernel launch: the kernel, its axis operands (axes of enclosing loops), its
    views by tensor parameter, its constexpr values, the enclosing loops, the user's line."""

    def __init__(self, kernel, axes, views, constexprs, given, loops, where):
        self.kernel, self.axes, self.views, self.constexprs = kernel, axes, views, constexprs
        self.given_constexprs, self.loops, self.where = given, loops, where

    def __repr__(self):
        axes = ", ".join(a.name for a in self.axes)
        views = ", ".join(f"{k}={v!r}" for k, v in self.views.items())
        return f"{self.kernel.name}[{axes}]({views})"


class Workload:
    """`with xcs.workload() as w:` records tensors, loops and launches; `w.compile()`
    compiles it, `w.lower()` gives its IR text."""

    def __init__(self, name="workload"):
        self.name = name
        self.tensors = {}
        self.body = []
        self.axes = []
        self._open = []  # the stack of open loops

    def __repr__(self):
        return f"<xcs.Workload {self.name}: {len(self.tensors)} tensors, {len(self.launches())} launches>"

    def __enter__(self):
        if not hasattr(_state, "stack"):
            _state.stack = []
        _state.stack.append(self)
        return self

    def __exit__(self, *exc):
        _state.stack.pop()

    def _declare(self, name, kind, shape, dtype, default=None):
        if not isinstance(name, str) or not name.isidentifier():
            raise _core.user_error(f"a workload tensor's name must be an identifier, not {name!r}")
        if name in self.tensors:
            raise _core.user_error(f"the workload already has a tensor named {name!r}")
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise _core.user_error(f"workload tensor {name!r}: {dtype!r} is not a dtype") from None
        _core.elem_type(dtype)
        if any(not isinstance(d, (int, np.integer)) or d < 0 for d in shape):
            raise _core.user_error(f"workload tensor {name!r}: the shape {tuple(shape)!r} is not a tuple of sizes")
        t = WorkloadTensor(self, name, kind, shape, dtype, default)
        self.tensors[name] = t
        return t

    def input(self, name, array=None, dtype=None, *, shape=None):
        """An input tensor: from an array (its default value at `execute`), or a shape and
        dtype (`w.input("Q", (2, 4, 16, 8), np.float32)`, `w.input("Q", shape=..., dtype=...)`)."""
        if isinstance(array, tuple):
            array, shape = None, array
        if array is not None:
            if shape is not None:
                raise _core.user_error(f"workload input {name!r}: give an array, or a shape and dtype, not both")
            a = np.asarray(array)
            dt = np.dtype(dtype) if dtype is not None else a.dtype
            t = self._declare(name, "input", a.shape, dt)
            t.default = a.astype(dt, copy=False)
            return t
        if shape is None:
            raise _core.user_error(f"workload input {name!r} needs an array, or a shape and dtype")
        return self._declare(name, "input", shape, dtype if dtype is not None else np.float32)

    def output(self, name, shape, dtype=np.float32):
        """An output tensor (zeros before the launches write it); `execute` returns it by name."""
        return self._declare(name, "output", shape, dtype)

    def launches(self):
        """Every recorded launch, in program order."""
        out = []

        def walk(body):
            for s in body:
                walk(s.body) if isinstance(s, Loop) else out.append(s)
        walk(self.body)
        return out

    def kernels(self):
        """The kernels its launches reference (each once, in order of first launch)."""
        return list(dict.fromkeys(launch.kernel for launch in self.launches()))

    def _open_loop(self, extent, name):
        parent = self._open[-1] if self._open else None
        axis = Axis(name or f"i{len(self.axes)}", extent, len(self.axes), None)
        loop = Loop(axis, parent)
        axis.loop = loop
        self.axes.append(axis)
        (parent.body if parent else self.body).append(loop)
        self._open.append(loop)
        return axis

    def _record(self, launch):
        (self._open[-1].body if self._open else self.body).append(launch)

    def lower(self):
        """The workload as IR text: the `xcs.kernel`s it launches and a `func.func` holding the
        `xcs.workload` (see `_schedule.workload_text`)."""
        from ._schedule import Plan
        return Plan(self, None).module_text()

    def compile(self, target="native", threads=None, engine=None):
        """Checks the workload (bounds, overlapping writes of parallel iterations) and
        compiles every kernel specialization it launches, ahead of time; returns a
        `WorkloadProgram` (`.execute(**arrays)`; `engine`: see there)."""
        from ._schedule import WorkloadProgram
        return WorkloadProgram(self, target, threads, engine)


def workload(name="workload"):
    """`with xcs.workload() as w:`: a new `Workload` being recorded."""
    return Workload(name)


class parallel_for:
    """`with xcs.parallel_for(n) as b:` (inside a workload): iterations `0 <= b < n` that may run
    in parallel; `b` is an axis variable (`name=` names it in the IR and in messages)."""

    def __init__(self, extent, name=None):
        self.extent, self.name = extent, name

    def __enter__(self):
        w = active_workload()
        if w is None:
            raise _core.user_error("parallel_for is used outside a workload (open `with xcs.workload() as w:` first)")
        if not isinstance(self.extent, (int, np.integer)) or isinstance(self.extent, bool) or self.extent < 1:
            raise _core.user_error(f"parallel_for takes a positive int extent, not {self.extent!r}")
        if self.name is not None and not str(self.name).isidentifier():
            raise _core.user_error(f"parallel_for's name must be an identifier, not {self.name!r}")
        self.workload = w
        self.axis = w._open_loop(int(self.extent), self.name or _as_target_name())
        return self.axis

    def __exit__(self, *exc):
        self.workload._open.pop()


def _as_target_name():
    """The name after `as` in the user's `with xcs.parallel_for(n) as b:` line (for the IR's
    and the messages' axis names); `None` when the line does not show one."""
    f = _core.user_frame()
    if f is None:
        return None
    m = _AS_NAME.search(linecache.getline(f.f_code.co_filename, f.f_lineno))
    return m.group(1) if m else None


_AS_NAME = re.compile(r"parallel_for\([^()]*(?:\([^()]*\))?[^()]*\)\s+as\s+([A-Za-z_]\w*)")


# ---------------------------------------------------------------- launches

class BoundKernel:
    """A kernel with its axis variables bound (`k.at(b=b)`, `k[b]`, `k(b, ...)`); calling it
    with the tensors and constexprs by keyword records the launch."""

    def __init__(self, kernel, axes=None, positional=None):
        self.kernel, self._axes, self._positional = kernel, axes, positional

    def __repr__(self):
        return f"<xcs.BoundKernel {self.kernel.name}>"

    def _axis_values(self, sig, bindings, where):
        name = self.kernel.name
        if self._axes is not None:
            axes = dict(self._axes)
            for k in axes:
                if k not in {p.name for p in sig.axes}:
                    raise _binding_error(f"kernel '{name}' has no axis parameter '{k}' "
                                         f"(its axes: {', '.join(p.name for p in sig.axes) or 'none'})", where)
        else:
            pos = list(self._positional or ())
            for v in pos:
                if isinstance(v, (View, WorkloadTensor)):
                    raise _binding_error(f"kernel '{name}': tensors are bound by keyword ({', '.join(p.name + '=...' for p in sig.tensors)}); "
                                         "only axis variables are positional", where)
            if len(pos) > len(sig.axes):
                raise _binding_error(f"kernel '{name}' takes {len(sig.axes)} axis variable(s) "
                                     f"({', '.join(p.name for p in sig.axes) or 'none'}), {len(pos)} given", where)
            axes = {p.name: v for p, v in zip(sig.axes, pos)}
        for p in sig.axes:
            if p.name in bindings:
                if p.name in axes:
                    raise _binding_error(f"kernel '{name}': axis parameter '{p.name}' is given twice", where)
                axes[p.name] = bindings.pop(p.name)
        missing = [p.name for p in sig.axes if p.name not in axes]
        if missing:
            raise _binding_error(f"kernel '{name}': axis parameter(s) {', '.join(missing)} not given "
                                 "(k[b, h](...), k.at(b=b, h=h)(...) or k(b, h, ...))", where)
        return [axes[p.name] for p in sig.axes]

    def __call__(self, **bindings):
        where = _where()
        w = active_workload()
        k, sig = self.kernel, self.kernel.signature
        if w is None:
            raise _binding_error(f"kernel '{k.name}' is launched outside a workload (inside `with xcs.workload() "
                                 "as w:` and its parallel_for loops)", where)
        axes = self._axis_values(sig, dict(bindings), where)
        bindings = {n: v for n, v in bindings.items() if n not in {p.name for p in sig.axes}}
        open_axes = {loop.axis for loop in w._open}
        for p, a in zip(sig.axes, axes):
            if not isinstance(a, Axis) or a not in open_axes:
                what = "an axis variable of another loop or workload" if isinstance(a, Axis) else repr(a)
                raise _binding_error(f"kernel '{k.name}': axis parameter '{p.name}' must be bound to the axis variable "
                                     f"of an enclosing parallel_for, not {what}", where)
        views, given = {}, {}
        for n, v in bindings.items():
            p = sig.by_name.get(n)
            if p is None:
                raise _binding_error(f"kernel '{k.name}' has no parameter '{n}' (its parameters: "
                                     f"{', '.join(q.name for q in sig.params)})", where)
            if p.kind == "constexpr":
                given[n] = v
                continue
            views[n] = self._view(w, p, v, open_axes, where)
        missing = [p.name for p in sig.tensors if p.name not in views]
        if missing:
            raise _binding_error(f"kernel '{k.name}': tensor parameter(s) {', '.join(missing)} not bound", where)
        for p in sig.tensors:
            for q in sig.tensors:
                # two written views of one output may be (disjoint: checked at compile); a read
                # one may not alias a written one
                if p.writes and not q.writes and views[q.name].tensor is views[p.name].tensor:
                    raise _binding_error(f"kernel '{k.name}': {p.kind} parameter '{p.name}' and parameter '{q.name}' "
                                         f"are both bound to {views[p.name].tensor.name!r}; a written tensor may not "
                                         "also be read through another parameter", where)
        constexprs = k.resolve_constexprs(given, where)
        w._record(Launch(k, axes, views, constexprs, given, tuple(w._open), where))

    def _view(self, w, p, v, open_axes, where):
        k = self.kernel
        if isinstance(v, WorkloadTensor):
            v = v.view()
        if not isinstance(v, View):
            raise _binding_error(f"kernel '{k.name}': {p.kind} parameter '{p.name}' must be bound to a workload tensor "
                                 f"or a view of one (Q[b][h]), not {type(v).__name__}", where)
        if v.tensor.workload is not w:
            raise _binding_error(f"kernel '{k.name}': parameter '{p.name}' is bound to {v.tensor.name!r} of another "
                                 "workload", where)
        if p.writes and v.tensor.kind != "output":
            raise _binding_error(f"kernel '{k.name}': {p.kind} parameter '{p.name}' is bound to input "
                                 f"{v.tensor.name!r}; written tensors are the workload's outputs (w.output)", where)
        stale = v.axes() - open_axes
        if stale:
            raise _binding_error(f"kernel '{k.name}': the view bound to '{p.name}' uses axis variable(s) "
                                 f"{', '.join(sorted(a.name for a in stale))} of a parallel_for that does not enclose "
                                 "the launch", where)
        return v


def task(name, axes, tensors, **constexprs):
    """Legacy string-named launch (deprecated): `xcs.task("attn", [b, h], [Q, K, V, O])` launches
    the `@xcs.kernel` named `name` with its tensor parameters bound in order."""
    warnings.warn("xcs.task(\"name\", axes, tensors) is deprecated: launch the kernel directly "
                  "(k[b, h](Q=..., O=...))", DeprecationWarning, stacklevel=2)
    where = _where()
    k = _REGISTRY.get(name)
    if not isinstance(k, KernelRef):
        raise _binding_error(f"xcs.task: no kernel named {name!r} (known: {', '.join(sorted(_REGISTRY)) or 'none'})", where)
    params = k.signature.tensors
    if len(tensors) != len(params):
        raise _binding_error(f"xcs.task: kernel {name!r} has {len(params)} tensor parameters "
                             f"({', '.join(p.name for p in params)}), {len(tensors)} tensors given", where)
    return BoundKernel(k, positional=tuple(axes))(**{p.name: t for p, t in zip(params, tensors)}, **constexprs)


__all__ = ["workload", "Workload", "parallel_for", "task", "Axis", "AxisExpr", "View", "WorkloadTensor",
           "BoundKernel"]
