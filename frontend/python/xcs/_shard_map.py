"""`xcs.shard_map` (seed 001; JAX's names: `Mesh`, `PartitionSpec`/`P`, `in_specs`, `out_specs`):
traces a function of full arrays as `xcs.jit` does, writes the user's specs as `shard.shard`
annotations (constraints of `auto-shard`, which chooses the rest), runs `auto-shard` and
`shard-partition`, compiles the SPMD program once and runs it on the simulated devices of the
mesh (threads of this process, `xcs._native.SpmdExecutable`): full numpy arrays in and out.
`.plan()` is `auto-shard`'s report (`xcs-opt --shard-report`). See docs/python.md.
"""

import inspect
import json
import math
import os
import re
import tempfile

import numpy as np

from ._core import Array, loc_text, user_error
from ._jit import Compiled, JitFunction, Lowered, def_location, flatten_inputs, parse, symbol_name, trace

_AXIS_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# auto-shard's options of the cost model and the solver (docs/passes.md), `_` for `-`
COST_MODEL_OPTIONS = ("alpha", "bandwidth", "peak_flops", "memory_limit", "max_states", "time_budget_ms")


class Mesh:
    """A mesh of simulated devices: `xcs.Mesh((2, 4), ("dp", "tp"))` (as
    `jax.sharding.Mesh(devices.reshape(2, 4), ("dp", "tp"))`, without device objects)."""

    def __init__(self, shape, axis_names):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if not shape or len(shape) > 8 or not all(isinstance(s, (int, np.integer)) and s > 0 for s in shape):
            raise user_error(f"xcs.Mesh: the shape {shape} must be 1 to 8 positive sizes")
        if len(names) != len(shape):
            raise user_error(f"xcs.Mesh: {len(names)} axis names for a mesh of {len(shape)} axes")
        for i, a in enumerate(names):
            if not isinstance(a, str) or not _AXIS_NAME.match(a) or a in names[:i]:
                raise user_error(f"xcs.Mesh: the axis name {a!r} is not an identifier or is repeated")
        self.axis_sizes = tuple(int(s) for s in shape)
        self.axis_names = names

    @property
    def shape(self):
        """{axis name: size}, as `jax.sharding.Mesh.shape`."""
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self):
        return math.prod(self.axis_sizes)

    def __eq__(self, other):
        return isinstance(other, Mesh) and (self.axis_sizes, self.axis_names) == (other.axis_sizes, other.axis_names)

    def __hash__(self):
        return hash((self.axis_sizes, self.axis_names))

    def __repr__(self):
        return f"xcs.Mesh({self.axis_sizes}, {self.axis_names})"

    def grid_text(self, name):
        """The `shard.grid` op of this mesh."""
        shape = "x".join(str(s) for s in self.axis_sizes)
        axes = ", ".join(f'"{a}"' for a in self.axis_names)
        return f"shard.grid @{name}(shape = {shape}) {{xcs.axes = [{axes}]}}"


class PartitionSpec(tuple):
    """Per dim of an array: the mesh axis splitting it (a name), several (a tuple of names,
    major first) or none (`None`), as `jax.sharding.PartitionSpec`. Missing trailing dims are
    not split; `P()` is replicated."""

    def __new__(cls, *parts):
        return super().__new__(cls, parts)

    def __repr__(self):
        return "PartitionSpec(" + ", ".join(repr(p) for p in self) + ")"


P = PartitionSpec


def _split_axes(spec, shape, mesh, what, auto=False):
    """A spec as split axes (per dim, the mesh axes' indices), checked against the array's
    shape and the mesh (and, for `auto`, auto-shard's model); `None` stays `None`
    (unconstrained)."""
    if spec is None:
        return None
    if isinstance(spec, str):
        spec = (spec,)
    if not isinstance(spec, (tuple, list)):
        raise user_error(f"shard_map: {what} must be a tuple of mesh axis names or None per dim (a PartitionSpec), not {spec!r}")
    if len(spec) > len(shape):
        raise user_error(f"shard_map: {what} {tuple(spec)} has {len(spec)} entries but the array has rank {len(shape)} (shape {tuple(shape)})")
    used = {}
    out = []
    for d, entry in enumerate(list(spec) + [None] * (len(shape) - len(spec))):
        names = () if entry is None else (entry,) if isinstance(entry, str) else entry
        if not isinstance(names, (tuple, list)) or not all(isinstance(a, str) for a in names):
            raise user_error(f"shard_map: {what}: dim {d}: {entry!r} is not a mesh axis name, a tuple of them, or None")
        for a in names:
            if a not in mesh.axis_names:
                raise user_error(f"shard_map: {what} names the mesh axis {a!r}, which the mesh does not have (its axes: {', '.join(mesh.axis_names)})")
            if a in used:
                raise user_error(f"shard_map: {what} uses the mesh axis {a!r} twice (dims {used[a]} and {d})")
            used[a] = d
        if auto and len(names) > 1:
            raise user_error(f"shard_map: {what} splits dim {d} over {len(names)} mesh axes {tuple(names)}, but auto-shard's "
                             "cost model splits a dim over one axis at most (docs/shard-cost-model.md, section 2): "
                             "use one axis per dim, or auto_sharding=False")
        n = math.prod(mesh.shape[a] for a in names)
        if shape[d] % n:
            over = " x ".join(f"{a!r} ({mesh.shape[a]})" for a in names)
            raise user_error(f"shard_map: {what} splits dim {d} of size {shape[d]} over {over}, {n} parts, which does not divide it "
                             f"(shape {tuple(shape)})")
        out.append([mesh.axis_names.index(a) for a in names])
    return out


def _axes_text(split):
    return "[" + ", ".join("[" + ", ".join(str(a) for a in axes) + "]" for axes in split) + "]"


def _annotate(tracer, value, split, grid, where, for_users=False):
    """`shard.sharding` + `shard.shard value to it` (for the users of the result, before the
    return, when `for_users`); the annotated array."""
    sharding, annotated = tracer.fresh(), tracer.fresh()
    loc = loc_text(where)
    tracer.lines.append(f"{sharding} = shard.sharding @{grid} split_axes = {_axes_text(split)} : !shard.sharding {loc}")
    users = " annotate_for_users" if for_users else ""
    tracer.lines.append(f"{annotated} = shard.shard {value.name} to {sharding}{users} : {value.type} {loc}")
    return Array(tracer, annotated, value.shape, value.dtype)


def _per_leaf(specs, counts, what):
    """Specs given per value (a PartitionSpec for all of them, or one entry each) -> one per
    leaf (`counts[i]` leaves in value `i`: a container's spec applies to each of its arrays)."""
    if specs is None or isinstance(specs, PartitionSpec):
        per_value = [specs] * len(counts)
    elif isinstance(specs, (tuple, list)):
        per_value = list(specs)
        if len(per_value) != len(counts):
            raise user_error(f"shard_map: {what} has {len(per_value)} entries but there are {len(counts)} values")
    else:
        raise user_error(f"shard_map: {what} must be a PartitionSpec, None, or a tuple with one entry per value, not {specs!r}")
    return [(i, s) for i, (s, n) in enumerate(zip(per_value, counts)) for _ in range(n)]


def _out_specs_per_leaf(out_specs, tree, n_leaves):
    """out_specs for the outputs' leaves: one spec for a single array, else one entry per
    element of the returned tuple/list (or dict, by key)."""
    if tree is None:
        return [(0, out_specs)] if n_leaves else []
    if isinstance(out_specs, dict) and tree[0] is dict:
        if set(out_specs) != set(tree[1]):
            raise user_error(f"shard_map: out_specs has the keys {sorted(out_specs)} but the function returns {sorted(tree[1])}")
        out_specs = [out_specs[k] for k in tree[1]]
    if tree == "none":
        return []
    children = tree[2] if tree[0] is dict else tree[1]
    counts = [_count_leaves(t) for t in children]
    return _per_leaf(out_specs, counts, "out_specs")


def _count_leaves(t):
    if t is None:
        return 1
    if t == "none":
        return 0
    return sum(_count_leaves(s) for s in (t[2] if t[0] is dict else t[1]))


def _option_value(v):
    if isinstance(v, (list, tuple)):
        return ",".join(_option_value(x) for x in v)
    return repr(v) if isinstance(v, float) else str(v)


class ShardMapFunction(JitFunction):
    """`xcs.shard_map(f, mesh=..., in_specs=..., out_specs=..., auto_sharding=True)`: call it
    like `f` with full arrays; compiled code is cached as `xcs.jit`'s (`cache_info()`)."""

    def __init__(self, fun, mesh, in_specs=None, out_specs=None, auto_sharding=True, cost_model=None):
        super().__init__(fun)
        if not isinstance(mesh, Mesh):
            raise user_error(f"shard_map: mesh must be an xcs.Mesh, not {type(mesh).__name__}")
        self.mesh, self.in_specs, self.out_specs = mesh, in_specs, out_specs
        self.auto_sharding = bool(auto_sharding)
        self.cost_model = dict(cost_model or {})
        for k in self.cost_model:
            if k not in COST_MODEL_OPTIONS:
                raise user_error(f"shard_map: cost_model has no option {k!r} (it takes {', '.join(COST_MODEL_OPTIONS)})")
        self.grid = "mesh" if symbol_name(fun) != "mesh" else "mesh_grid"
        self.pipeline = self.full_pipeline()  # what `lower(...).cost()` runs before cost-annotate
        self._last = None

    def plan_pipeline(self, report=None):
        """Up to the plan: the jit's cleanup, then `auto-shard` (results unconstrained by
        out_specs are free: they are reassembled whole anyway)."""
        passes = "classify,vmap-batch,inline,func.func(canonicalize,cse)"
        if not self.auto_sharding:
            return f"builtin.module({passes})"
        opts = [f"mesh={'x'.join(str(s) for s in self.mesh.axis_sizes)}", f"axes={','.join(self.mesh.axis_names)}", "outputs=free"]
        for k, v in sorted(self.cost_model.items()):
            opts.append(f"{k.replace('_', '-')}={_option_value(v)}")
        if report:
            opts.append(f"report={{{report}}}")
        return f"builtin.module({passes},auto-shard{{{' '.join(opts)}}})"

    def partition_pipeline(self):
        """After the plan: partition, clean up, fuse."""
        return "builtin.module(shard-partition,func.func(canonicalize,cse,fuse),symbol-dce)"

    def full_pipeline(self):
        inner = lambda p: p[len("builtin.module("):-1]  # noqa: E731
        return f"builtin.module({inner(self.plan_pipeline())},{inner(self.partition_pipeline())})"

    def _leaf_in_specs(self, args):
        counts = [len(flatten_inputs((a,))[0]) for a in args]
        leaves = flatten_inputs(args)[0]
        out = []
        for (i, spec), leaf in zip(_per_leaf(self.in_specs, counts, "in_specs"), leaves):
            shape = np.shape(leaf) if not isinstance(leaf, str) else ()
            what = f"in_specs[{i}]" if not isinstance(self.in_specs, PartitionSpec) else "in_specs"
            split = _split_axes(spec, shape, self.mesh, what, self.auto_sharding)
            out.append(split if split is not None or self.auto_sharding else [[] for _ in shape])
        return out

    def _trace(self, args, leaves, tree):
        splits = self._leaf_in_specs(args)
        names = _argument_names(self.fun, args)
        grid, mesh, out_specs, auto = self.grid, self.mesh, self.out_specs, self.auto_sharding
        where = def_location(self.fun)

        def arg_hook(tracer, i, a):
            if names[i]:
                tracer.arg_attrs[i] = f'{{xcs.name = "{names[i]}"}}'
            if not isinstance(a, Array) or splits[i] is None:
                return a
            return _annotate(tracer, a, splits[i], grid, where)

        def result_hook(tracer, results, out_tree):
            out = []
            for r, (i, spec) in zip(results, _out_specs_per_leaf(out_specs, out_tree, len(results))):
                shape = r.shape if isinstance(r, Array) else ()
                split = _split_axes(spec, shape, mesh, f"out_specs[{i}]" if out_tree is not None else "out_specs", auto)
                if split is None and not auto:
                    split = [[] for _ in shape]
                out.append(r if split is None or not isinstance(r, Array) else _annotate(tracer, r, split, grid, where, for_users=True))
            return out

        self._traces += 1
        return trace(self._flat_function(args, tree), leaves, name=symbol_name(self.fun), where=where,
                     arg_hook=arg_hook, result_hook=result_hook, prelude=[mesh.grid_text(grid)])

    def _compile(self, args, leaves, tree):
        entry = ShardCompiled(self._trace(args, leaves, tree), self)
        self._last = entry
        return entry

    def lower(self, *args):
        _, leaves, tree = self._key(args)
        return ShardLowered(self, self._trace(args, leaves, tree), None)

    def plan(self, *args):
        """The `auto-shard` report (a dict keyed by function name, as `xcs-opt
        --shard-report`) of the call with these arguments (compiled and cached if new), or of
        the last call without arguments; `None` with `auto_sharding=False`."""
        if not args:
            if self._last is None:
                raise user_error("shard_map: plan() needs the arguments of a call (or a call before it)")
            return self._last.plan()
        key, leaves, tree = self._key(args)
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                self._misses += 1
                entry = self._cache[key] = self._compile(args, leaves, tree)
        return entry.plan()

    def __call__(self, *args):
        return super().__call__(*[np.asarray(a) if isinstance(a, (bool, int, float, np.generic)) else a for a in args])


def _argument_names(fun, args):
    """The Python parameter name of each dynamic leaf that is a whole argument (`xcs.name`,
    how the plan names arguments); `None` for leaves inside containers."""
    try:
        params = [p.name for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        n = len(flatten_inputs((a,))[0])
        name = params[i] if i < len(params) and n == 1 and _AXIS_NAME.match(params[i]) else None
        names.extend([name] + [None] * (n - 1))
    return names


def _run_plan(program, fn):
    """Runs the planning pipeline on `program`; the report (None without auto-sharding)."""
    if not fn.auto_sharding:
        program.run_pipeline(fn.plan_pipeline())
        return None
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        program.run_pipeline(fn.plan_pipeline(report=path))
        with open(path) as f:
            return json.load(f)
    finally:
        os.unlink(path)


class ShardCompiled(Compiled):
    """A traced function planned, partitioned and compiled for the mesh's devices; called
    with full arrays, it runs every device and returns full arrays."""

    def __init__(self, traced, fn):
        if traced.host:
            raise user_error("shard_map: the function must compute on arrays only (strings, LLM calls and other host "
                             "values cannot be sharded)", def_location(fn.fun))
        self.traced = traced
        self.program = parse(traced.text)
        self._plan = _run_plan(self.program, fn)
        self.program.run_pipeline(fn.partition_pipeline())
        self.executable = self.program.compile_spmd(traced.name)

    def plan(self):
        """The `auto-shard` report this code was partitioned by (a fresh copy)."""
        return json.loads(json.dumps(self._plan)) if self._plan is not None else None

    def call_flat(self, dynamic):
        return self.executable(*[np.asarray(a) for a in dynamic])


class ShardLowered(Lowered):
    """`f.lower(*args)` of a shard_map: `.as_text()` (the traced, annotated IR), `.plan()`,
    `.compile()`."""

    def compile(self):
        return ShardCompiled(self.traced, self._jitted)

    def plan(self):
        """The `auto-shard` report of this signature (planning only; nothing is compiled)."""
        return _run_plan(parse(self.traced.text), self._jitted)


def shard_map(fun=None, *, mesh, in_specs=None, out_specs=None, auto_sharding=True, cost_model=None):
    """`xcs.shard_map(f, mesh=xcs.Mesh(...), in_specs=..., out_specs=..., auto_sharding=True,
    cost_model=None)` (also a decorator with keywords only): see `ShardMapFunction`.
    `cost_model`: auto-shard's options (`alpha`, `bandwidth`, `peak_flops`, `memory_limit`,
    `max_states`; per-axis values as lists)."""
    if fun is None:
        return lambda f: ShardMapFunction(f, mesh, in_specs, out_specs, auto_sharding, cost_model)
    return ShardMapFunction(fun, mesh, in_specs, out_specs, auto_sharding, cost_model)


__all__ = ["shard_map", "ShardMapFunction", "Mesh", "PartitionSpec", "P"]
