"""`xcs.vmap` (seed 001, jax.vmap's `in_axes`/`out_axes`, nestable: batch dims stack at the
front) and `xcs.parallel_map` (seed 000's orchestration batching on a thread pool).

Traced, `vmap` builds an `xcs.vmap` region that the `vmap-batch` pass lowers (batched tensor
ops, or `xcs.parallel_map` for orchestration bodies). Called with concrete values it
dispatches by `analyze_operations` (seed 000's table): tensor-only code is jitted and runs
compiled batched code; orchestration and hybrid code runs item by item on a thread pool.
"""

import concurrent.futures

import numpy as np

from . import _core
from ._core import Array, user_error
from .errors import RunError, TraceError


def _per_arg(axes, n, what):
    if axes is None or isinstance(axes, int):
        return [axes] * n
    axes = list(axes)
    if len(axes) != n:
        raise user_error(f"vmap: {what} has {len(axes)} entries but there are {n} values")
    return axes


def _traced_vmap(fun, in_axes, out_axes, args):
    """Emits an `xcs.vmap` op whose region is `fun` traced on one element."""
    from . import numpy as xnp
    from ._jit import _flatten, unflatten
    tracer = next(a.tracer for a in args if isinstance(a, Array))
    axes = _per_arg(in_axes, len(args), "in_axes")
    operands, inner_shapes, norm_axes, batch = [], [], [], None
    for a, ax in zip(args, axes):
        a = a if isinstance(a, Array) else xnp.constant(np.asarray(a), tracer=tracer)
        if ax is None:
            operands.append(a)
            inner_shapes.append(a.shape)
            norm_axes.append(-1)
            continue
        if not -a.ndim <= ax < a.ndim:
            raise user_error(f"vmap: in_axes {ax} is out of bounds for an argument of rank {a.ndim}")
        ax %= a.ndim
        if batch is not None and a.shape[ax] != batch:
            raise user_error(f"vmap: batched arguments have different sizes ({batch} and {a.shape[ax]})")
        batch = a.shape[ax]
        operands.append(a)
        inner_shapes.append(a.shape[:ax] + a.shape[ax + 1:])
        norm_axes.append(ax)
    if batch is None:
        raise user_error("vmap: no argument is batched (every in_axes is None)")
    outer_lines = tracer.lines
    tracer.lines = []
    try:
        inner = [Array(tracer, tracer.fresh(), s, o.dtype) for s, o in zip(inner_shapes, operands)]
        with _core.tracing(tracer):
            leaves, tree = _flatten(fun(*inner), tracer)
        body = tracer.lines
    finally:
        tracer.lines = outer_lines
    oaxes = _per_arg(out_axes, len(leaves), "out_axes")
    result_types, results, out_norm = [], [], []
    for leaf, ax in zip(leaves, oaxes):
        if ax is None:
            shape = leaf.shape
            out_norm.append(-1)
        else:
            ax %= leaf.ndim + 1
            shape = leaf.shape[:ax] + (batch,) + leaf.shape[ax:]
            out_norm.append(ax)
        result_types.append((shape, leaf.dtype))
    where = _core.frame_location(_core.user_frame())
    block = ", ".join(f"{a.name}: {a.type}" for a in inner)
    yield_ = f"xcs.yield {', '.join(r.name for r in leaves)} : {', '.join(r.type for r in leaves)} {_core.loc_text(where)}"
    region = "{\n    ^bb0(" + block + "):\n" + "".join(f"      {line}\n" for line in body) + f"      {yield_}\n    }}"
    attrs = {"in_axes": xnp._i64s(norm_axes), "out_axes": xnp._i64s(out_norm)}
    names = tracer.emit("xcs.vmap", operands, [_core.tensor_type(s, d) for s, d in result_types], attrs, where, region)
    results = [Array(tracer, n, s, d) for n, (s, d) in zip(names, result_types)]
    return unflatten(tree, results)


def parallel_map(fun, *sequences, in_axes=0, max_concurrency=16):
    """`fun` on each item (the `in_axes` slices of arrays, the elements of lists) on a pool of
    `max_concurrency` threads; results in input order (stacked when they are arrays). If items
    fail, one `RunError` names their indices and carries the other results (`.results`)."""
    axes = _per_arg(in_axes, len(sequences), "in_axes")
    sizes = {len(s) if ax == 0 or not isinstance(s, np.ndarray) else s.shape[ax] for s, ax in zip(sequences, axes) if ax is not None}
    if len(sizes) != 1:
        raise RunError(f"error: parallel_map: the mapped arguments have different lengths {sorted(sizes)}")
    n = sizes.pop()

    def item(i):
        return [s if ax is None else (np.take(s, i, axis=ax) if isinstance(s, np.ndarray) else s[i])
                for s, ax in zip(sequences, axes)]

    results, errors = [None] * n, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, int(max_concurrency))) as pool:
        futures = {pool.submit(fun, *item(i)): i for i in range(n)}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as e:  # every item's failure is collected, then reported once
                errors[i] = e
    if errors:
        failed = sorted(errors)
        first = errors[failed[0]]
        raise RunError(f"error: parallel_map: {len(failed)} of {n} items failed (indices {failed}); "
                       f"item {failed[0]}: {type(first).__name__}: {first}", results=results, indices=failed)
    return results


class VmapFunction:
    """`xcs.vmap(f, in_axes=0, out_axes=0, max_concurrency=16)`."""

    def __init__(self, fun, in_axes=0, out_axes=0, max_concurrency=16):
        self.fun, self.in_axes, self.out_axes = fun, in_axes, out_axes
        self.max_concurrency = max_concurrency
        self._summary = None
        self._jitted = None
        self.__wrapped__ = fun
        self.__name__ = getattr(fun, "__name__", "vmapped")
        self.__qualname__ = "vmap_" + getattr(fun, "__qualname__", self.__name__)

    def __call__(self, *args):
        if any(isinstance(a, Array) for a in args):
            return _traced_vmap(self.fun, self.in_axes, self.out_axes, args)
        if self.dispatch(args) == "compiled":
            try:
                return self._compiled(*args)
            except TraceError:
                if self.summary().only_tensor_ops:
                    raise
        out = parallel_map(self.fun, *args, in_axes=self.in_axes, max_concurrency=self.max_concurrency)
        return self._stack(out)

    def summary(self):
        if self._summary is None:
            from ._classify import analyze_operations
            self._summary = analyze_operations(self.fun)
        return self._summary

    def dispatch(self, args):
        """`"compiled"` (tensor-only code, or code without indicators on arrays) or `"parallel"`."""
        s = self.summary()
        arrays = all(isinstance(a, (np.ndarray, int, float)) for a in args)
        if s.only_tensor_ops and arrays:
            return "compiled"
        if not s.tensor_ops and not s.orchestration_ops and arrays:
            return "compiled"
        return "parallel"

    def _compiled(self, *args):
        if self._jitted is None:
            from ._jit import jit
            self._jitted = jit(self)
        return self._jitted(*args)

    def _stack(self, out):
        if self.out_axes is None or not out:
            return out
        if all(isinstance(o, (np.ndarray, np.generic, int, float)) and not isinstance(o, bool) for o in out):
            return np.stack([np.asarray(o) for o in out], axis=self.out_axes)
        return out


def vmap(fun=None, in_axes=0, out_axes=0, max_concurrency=16):
    """Vectorizes `fun` over a batch axis (see `VmapFunction`)."""
    if fun is None:
        return lambda f: VmapFunction(f, in_axes, out_axes, max_concurrency)
    return VmapFunction(fun, in_axes, out_axes, max_concurrency)
