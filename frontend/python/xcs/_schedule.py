"""Compiling and running workloads: a `Plan` resolves a recorded workload against concrete
tensor shapes and dtypes (each launch's views: shapes, strides, the slices at a grid point),
checks that parallel iterations never write overlapping parts of a tensor, and names the
kernel specializations it needs (target, view dtypes and layouts, constexpr values). A
`WorkloadProgram` compiles them through LLVM ahead of time, compiles the ones a later
`execute` needs at run time (a cache), and runs the grid on a thread pool.
"""

import concurrent.futures
import itertools
import os
import threading

import numpy as np

from . import _core
from ._jit import DEFAULT_PIPELINE
from ._native import Program
from .errors import CompileError, RunError
from ._workload import Loop

TARGETS = ("native",)
# what a whole workload goes through before the LLVM backend: the kernels' bodies are
# simplified and fused as xcs.jit's functions are (the pass manager nests on `xcs.kernel` as on
# `func.func`); the workload's function holds only the grid
WORKLOAD_PIPELINE = "builtin.module(xcs.kernel(canonicalize,cse,fuse))"


def _located(kind, message, where):
    file, line, col = where
    return kind(f"{file}:{line}:{col}: error: {message}", file, line, col)


class ResolvedView:
    """A launch's view against its tensor's concrete shape: per source dim (const, [(axis,
    coef)], size or None for an index), the view's shape and element strides."""

    def __init__(self, view, shape, launch):
        self.tensor = view.tensor.name
        self.dims = []
        for d, e in enumerate(view.dims):
            size = 1 if e[0] == "index" else (shape[d] if e[2] is None else e[2])
            self.dims.append((e[1].constant, tuple(e[1].coefs.items()), None if e[0] == "index" else size))
            lo, hi = e[1].bounds()
            if lo < 0 or hi + size > shape[d]:
                raise _located(CompileError, f"the view {view!r} bound by {launch.kernel.name!r} reaches "
                               f"{lo}..{hi + size - 1} in dim {d} of {self.tensor!r}, whose size is {shape[d]}",
                               launch.where)
        self.shape = tuple(s for _, _, s in self.dims if s is not None)
        self.axes = sorted({a for _, coefs, _ in self.dims for a, _ in coefs}, key=lambda a: a.index)
        self._memo = {}
        parent = [1] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            parent[d] = parent[d + 1] * shape[d + 1]
        self.strides = tuple(parent[d] for d, (_, _, s) in enumerate(self.dims) if s is not None)

    def slices(self, point):
        """numpy's index of the view at a grid point (`{axis: index}`), memoized by the values
        of the axes the view uses."""
        key = tuple(point[a] for a in self.axes)
        out = self._memo.get(key)
        if out is None:
            out = []
            for const, coefs, size in self.dims:
                start = const + sum(c * point[a] for a, c in coefs)
                out.append(start if size is None else slice(start, start + size))
            out = self._memo[key] = tuple(out) + (Ellipsis,)  # `...`: a 0-d view stays an array
        return out

    def box(self, point):
        """The box the view covers at a grid point (every dim a slice)."""
        return tuple(slice(s, s + 1) if isinstance(s, int) else s for s in self.slices(point)[:-1])


def grid(loops):
    """Every grid point of nested loops, as `{axis: index}`."""
    for idx in itertools.product(*[range(loop.axis.extent) for loop in loops]):
        yield {loop.axis: i for loop, i in zip(loops, idx)}


class Plan:
    """A workload resolved against tensor specs {name: (shape, dtype)} (`None`: the declared
    ones): per launch its resolved views and its specialization key."""

    def __init__(self, workload, specs, target="native"):
        self.workload, self.target = workload, target
        self.specs = specs or {n: (t.shape, t.dtype) for n, t in workload.tensors.items()}
        self.launches = workload.launches()
        self.views = {}  # id(launch) -> {param: ResolvedView}
        self.keys = {}  # id(launch) -> specialization key
        for launch in self.launches:
            views = {p: ResolvedView(v, self.specs[v.tensor.name][0], launch) for p, v in launch.views.items()}
            self.views[id(launch)] = views
            layout = tuple((p, v.shape, np.dtype(self.specs[v.tensor][1]).str,
                            v.strides) for p, v in views.items())
            self.keys[id(launch)] = (launch.kernel.symbol, id(launch.kernel), target, layout,
                                     tuple(sorted(launch.constexprs.items())))

    def specialization(self, launch):
        """The kernel's traced specialization for this launch."""
        views = {p: (v.shape, self.specs[v.tensor][1]) for p, v in self.views[id(launch)].items()}
        return launch.kernel.specialize(views, launch.constexprs)

    # ------------------------------------------------------------ overlapping writes

    def check_races(self):
        """A `CompileError` when two parallel iterations touch overlapping parts of a tensor
        and one of them writes it: two grid points of one launch, or of two launches in a
        common parallel_for that differ in it (write/write), or an iteration reading (In,
        InOut) what another iteration writes (read/write; an iteration's own writes, e.g. its
        InOut region, are ordered before or after its reads and do not race)."""
        writers, readers = {}, {}
        for launch in self.launches:
            for p in launch.kernel.signature.tensors:
                name = launch.views[p.name].tensor.name
                if p.writes:
                    writers.setdefault(name, []).append((launch, p))
                if p.reads:
                    readers.setdefault(name, []).append((launch, p))
        for tensor, ws in writers.items():
            shape = self.specs[tensor][0]
            for launch, p in ws:
                self._check_self(tensor, shape, launch, p)
            for (l1, p1), (l2, p2) in itertools.combinations(ws, 2):
                if l1 is l2:  # two written views of one launch: disjoint at every grid point
                    self._check_pair(tensor, shape, list(l1.loops), (l1, p1), (l2, p2), same_point=True)
                    continue
                common = _common_prefix(l1.loops, l2.loops)
                if common:
                    self._check_pair(tensor, shape, common, (l1, p1), (l2, p2))
            for reader in readers.get(tensor, ()):
                for writer in ws:
                    common = list(reader[0].loops) if reader[0] is writer[0] else \
                        _common_prefix(reader[0].loops, writer[0].loops)
                    if common:
                        self._check_pair(tensor, shape, common, writer, reader, verbs=("writes", "reads"))

    def _check_self(self, tensor, shape, launch, p):
        view = self.views[id(launch)][p.name]
        owner = np.zeros(shape, np.int32)
        points = list(grid(launch.loops))
        for n, point in enumerate(points, 1):
            region = owner[view.box(point)]
            hit = region[region != 0]
            if hit.size:
                other = points[int(hit[0]) - 1]
                raise self._race(tensor, (launch, p, other), (launch, p, point))
            owner[view.box(point)] = n

    def _check_pair(self, tensor, shape, common, first, second, same_point=False, verbs=("writes", "writes")):
        """`first`'s views (written; its distinct points never overlap, checked first) against
        `second`'s at every grid point, except at the same point of the `common` loops (the
        same iteration: ordered) unless `same_point` (two written views of one launch)."""
        (l1, p1), (l2, p2) = first, second
        v1, v2 = self.views[id(l1)][p1.name], self.views[id(l2)][p2.name]
        owner = np.zeros(shape, np.int32)
        tags = {}
        for point in grid(l1.loops):
            tag = tags.setdefault(tuple(point[lp.axis] for lp in common), len(tags) + 1)
            owner[v1.box(point)] = tag
        inverse = {t: k for k, t in tags.items()}
        for point in grid(l2.loops):
            mine = None if same_point else tags.get(tuple(point[lp.axis] for lp in common))
            region = owner[v2.box(point)]
            hit = region[(region != 0) & (region != (mine or -1))]
            if hit.size:
                other = dict(zip([lp.axis for lp in common], inverse[int(hit[0])]))
                raise self._race(tensor, (l1, p1, other), (l2, p2, point), verbs)

    def _race(self, tensor, a, b, verbs=("writes", "writes")):
        def at(launch, p, point, verb):
            pt = ", ".join(f"{ax.name}={i}" for ax, i in point.items())
            view = self.views[id(launch)][p.name]
            region = ", ".join(f"{s.start}:{s.stop}" if isinstance(s, slice) else str(s) for s in view.slices(
                {**{ax: 0 for lp in launch.loops for ax in [lp.axis]}, **point})[:-1])
            file, line, _ = launch.where
            return f"{launch.kernel.name} ({p.kind} parameter '{p.name}', {file}:{line}) at {pt} {verb} {tensor}[{region}]"
        if verbs[1] == "reads":
            return _located(CompileError, f"parallel iterations read and write overlapping parts of {tensor!r}: "
                            f"{at(*a, verbs[0])}, and {at(*b, verbs[1])} (a race: the other iteration may run "
                            "before or after); read only what the iteration itself writes, or split the loop",
                            b[0].where)
        return _located(CompileError, f"parallel iterations write overlapping parts of {tensor!r}: {at(*a, verbs[0])}, "
                        f"and {at(*b, verbs[1])}; make the written views disjoint across iterations", b[0].where)

    # ------------------------------------------------------------ IR text

    def module_text(self):
        """The workload as IR text (see `_workload_ir.py`)."""
        from ._workload_ir import module_text
        return module_text(self)


def _common_prefix(a, b):
    out = []
    for x, y in zip(a, b):
        if x is not y:
            break
        out.append(x)
    return out


ENGINES = ("workload", "grid", "interpreter")

class WorkloadProgram:
    """A compiled workload (`w.compile(target="native")`): `execute(**arrays)` returns the
    outputs by name. Kernels are compiled once per specialization: the workload's own ahead of
    time, others (other shapes or dtypes at `execute`) at run time, cached.

    `engine="workload"` (the default) compiles the whole `func.func`/`xcs.workload` module
    through the LLVM backend (one call per `execute`; the grid's iterations on the runtime's pool
    of `threads`); `engine="grid"` compiles each kernel specialization as a function and walks
    the grid from Python, iterations on a pool of `threads` Python threads;
    `engine="interpreter"` runs the module on the reference interpreter (nothing compiled; a
    check of the others). `threads` defaults to the CPUs."""

    def __init__(self, workload, target="native", threads=None, engine=None):
        if target not in TARGETS:
            raise CompileError(f"error: unknown target {target!r} (targets: {', '.join(TARGETS)})")
        engine = engine or "workload"
        if engine not in ENGINES:
            raise CompileError(f"error: unknown engine {engine!r} (engines: {', '.join(ENGINES)})")
        self.workload, self.target, self.engine = workload, target, engine
        self.threads = int(threads or os.cpu_count() or 1)
        self._executables = {}  # specialization key (or ("workload", specs)) -> compiled function
        self._plans = {}
        self._lock = threading.RLock()
        self.aot_compiles = self.jit_compiles = self.cache_hits = 0
        self._plan(None, ahead_of_time=True)

    def __repr__(self):
        return (f"<xcs.WorkloadProgram {self.workload.name} target={self.target} engine={self.engine} "
                f"threads={self.threads}>")

    def cache_info(self):
        """Kernel specializations compiled ahead of time (`aot`) and at run time (`jit`),
        launches that reused a compiled one (`hits`), compiled functions kept (`size`)."""
        return {"aot": self.aot_compiles, "jit": self.jit_compiles, "hits": self.cache_hits,
                "size": len(self._executables)}

    def _plan(self, specs, ahead_of_time=False):
        key = None if specs is None else tuple(sorted((n, s, d.str) for n, (s, d) in specs.items()))
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        with self._lock:  # one compile per key, whichever thread comes first
            plan = self._plans.get(key)
            if plan is None:
                plan = Plan(self.workload, specs, self.target)
                plan.check_races()
                if self.engine == "interpreter":
                    plan.interpreted = Program.parse(plan.module_text(), f"<workload {self.workload.name}>")
                elif self.engine == "workload":
                    self._compile_workload(plan, key, ahead_of_time)
                else:
                    self._compile_kernels(plan, ahead_of_time)
                self._plans[key] = plan
        return plan

    def _count(self, compiled, reused, ahead_of_time):
        if ahead_of_time:
            self.aot_compiles += compiled
        else:
            self.jit_compiles += compiled
        self.cache_hits += reused

    def _compile_kernels(self, plan, ahead_of_time):
        plan.executables = {}
        for launch in plan.launches:
            k = plan.keys[id(launch)]
            exe = self._executables.get(k)
            if exe is None:
                exe = self._executables[k] = self._compile(plan.specialization(launch))
                self._count(1, 0, ahead_of_time)
            else:
                self._count(0, 1, ahead_of_time)
            plan.executables[id(launch)] = exe

    def _compile_workload(self, plan, key, ahead_of_time):
        program = Program.parse(plan.module_text(), f"<workload {self.workload.name}>")
        if WORKLOAD_PIPELINE:
            program.run_pipeline(WORKLOAD_PIPELINE)
        inputs = [n for n, t in self.workload.tensors.items() if t.kind == "input"]
        shapes = [list(plan.specs[n][0]) for n in inputs]
        plan.executable = self._executables[("workload", key)] = program.compile(
            self.workload.name, shapes, threads=self.threads)
        kinds = len(set(plan.keys.values()))
        self._count(kinds, len(plan.launches) - kinds, ahead_of_time)

    def _compile(self, spec):
        text = "module {\n  " + spec.func_text() + "\n}\n"
        program = Program.parse(text, f"<kernel {spec.kernel.name}>")
        program.run_pipeline(DEFAULT_PIPELINE)
        shapes = [[] if p.kind == "axis" else list(spec.views[p.name][0])
                  for p in spec.kernel.signature.params if p.kind != "constexpr"]
        return program.compile(spec.func_name, shapes, threads=1)

    def _pool(self):
        """The program's thread pool (made on first use; `None` for one thread)."""
        if self.threads <= 1:
            return None
        with self._lock:
            if getattr(self, "_executor", None) is None:
                self._executor = concurrent.futures.ThreadPoolExecutor(self.threads, thread_name_prefix="xcs-workload")
        return self._executor

    def lower(self):
        """The workload's IR text."""
        return self._plan(None).module_text()

    def _buffers(self, arrays):
        w = self.workload
        unknown = [n for n in arrays if n not in w.tensors]
        if unknown:
            raise RunError(f"error: the workload has no tensor {', '.join(map(repr, unknown))} "
                           f"(its tensors: {', '.join(w.tensors)})")
        buffers = {}
        for name, t in w.tensors.items():
            if name in arrays:
                a = np.asarray(arrays[name])
                try:
                    _core.elem_type(a.dtype)
                except Exception:
                    raise RunError(f"error: tensor {name!r} is given an array of dtype {a.dtype}, which XCS has no "
                                   "element type for") from None
                if a.ndim != t.ndim:
                    raise RunError(f"error: tensor {name!r} has rank {t.ndim}; it is given an array of shape {a.shape}")
                buffers[name] = np.zeros(a.shape, a.dtype) if t.kind == "output" else np.ascontiguousarray(a)
            elif t.kind == "input":
                if t.default is None:
                    raise RunError(f"error: input {name!r} has no default array; give it: execute({name}=...)")
                buffers[name] = np.ascontiguousarray(t.default)
            else:
                buffers[name] = np.zeros(t.shape, t.dtype)
        return buffers

    def execute(self, **arrays):
        """Runs the workload: inputs from `arrays` or their `w.input` arrays; outputs start
        as zeros (as the IR's `xcs.workload` says). An array given for an output is where it is
        written (its shape and dtype replace the declared ones; `out=`-like). Returns
        {output name: array}."""
        buffers = self._buffers(arrays)
        specs = {n: (b.shape, b.dtype) for n, b in buffers.items()}
        declared = all(specs[n] == (t.shape, t.dtype) for n, t in self.workload.tensors.items())
        plan = self._plan(None if declared else specs)
        if self.engine in ("workload", "interpreter"):
            inputs = [buffers[n] for n, t in self.workload.tensors.items() if t.kind == "input"]
            outputs = [n for n, t in self.workload.tensors.items() if t.kind == "output"]
            if self.engine == "workload":
                results = plan.executable(*inputs)
            else:
                results = plan.interpreted.interpret(self.workload.name, inputs)
            buffers.update(zip(outputs, results))
        else:
            _Runner(plan, buffers, self.threads, self._pool()).run(self.workload.body)
        return self._results(buffers, arrays)

    def _results(self, buffers, arrays):
        out = {}
        for n, t in self.workload.tensors.items():
            if t.kind != "output":
                continue
            given = arrays.get(n)
            if isinstance(given, np.ndarray) and given.flags.writeable:
                np.copyto(given, buffers[n])
                out[n] = given
            else:
                out[n] = buffers[n]
        return out


class _Runner:
    """Runs a plan's statements: launches in order; a loop's iterations (a perfect nest
    flattened) on a thread pool, each iteration's body in order."""

    def __init__(self, plan, buffers, threads, pool):
        self.plan, self.buffers, self.threads, self.pool = plan, buffers, threads, pool

    def run(self, body, point=None, parallel=True):
        point = point or {}
        for s in body:
            if isinstance(s, Loop):
                self._loop(s, point, parallel)
            else:
                self._launch(s, point)

    def _loop(self, loop, point, parallel):
        loops = [loop]
        while len(loops[-1].body) == 1 and isinstance(loops[-1].body[0], Loop):
            loops.append(loops[-1].body[0])
        body = loops[-1].body
        points = [{**point, **p} for p in grid(loops)]
        if not parallel or self.pool is None or len(points) == 1:
            for p in points:
                self.run(body, p, parallel)
            return
        # contiguous chunks of iterations, one per thread
        n = min(self.threads, len(points))
        chunks = [points[i * len(points) // n:(i + 1) * len(points) // n] for i in range(n)]
        for f in [self.pool.submit(self._chunk, body, c) for c in chunks]:
            f.result()

    def _chunk(self, body, points):
        for p in points:
            self.run(body, p, False)

    def _launch(self, launch, point):
        views = self.plan.views[id(launch)]
        exe = self.plan.executables[id(launch)]
        params = launch.kernel.signature.tensors
        axes = iter(launch.axes)
        args = [np.asarray(point[next(axes)], np.int64) if p.kind == "axis"  # 0-d i64 in the func.func
                else self.buffers[views[p.name].tensor][views[p.name].slices(point)]
                for p in launch.kernel.signature.params if p.kind != "constexpr"]
        outs = exe(*args)
        for p, value in zip([p for p in params if p.writes], outs):
            v = views[p.name]
            self.buffers[v.tensor][v.slices(point)] = value


__all__ = ["Plan", "WorkloadProgram"]
