"""Differential testing of the reference interpreter against numpy: helpers.

A *case* is one function of a generated module: its arguments (numpy arrays with an XCS element
type and an IR type, possibly with `?` dims), the ops of its body (`%a0`, `%a1`, ... are the
arguments, `%r` is the result) and the value numpy computes for it. `run_cases` puts many cases
in one module (`@case_N` each, and a `@main` that calls them all, so `func.call` runs in every
case), runs `xcs-run --interp` once with `.npy` inputs and `--output-dir`, and compares every
result. If the run fails, each case is run on its own (`--entry case_N`) to name the failing ones.

Numerics (the interpreter's documented semantics, see dialects/src/interp/mod.rs):
- f16/bf16/f32 elementwise ops compute in float32, f64 in float64; f16/bf16 results are rounded
  to nearest-even (numpy's float16 semantics). bf16 is not a numpy dtype: values are float32
  arrays holding bf16-exact numbers, rounded with `round_bf16` (single rounding from float64) and
  stored in `.npy` files as `<u2` bit patterns, as the interpreter reads and writes them.
- reductions, softmax, layer_norm, matmul and einsum accumulate in float64 and round once.
- integers wrap (two's complement); `tensor.div` truncates toward zero.
Tolerances: "exact" ops (IEEE basic arithmetic, comparisons, casts, data movement) must match
exactly (NaN matches NaN, -0.0 matches 0.0; with `exact="signed"` the sign of a zero must match
too, for ops whose numpy definition fixes it); the others within `TOL[elem]`.
"""

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
XCS_BIN_DIR = Path(os.environ.get("XCS_BIN_DIR", REPO / "target" / "debug"))
XCS_RUN = XCS_BIN_DIR / "xcs-run"
# xcs-run with the `test` dialect (and the test passes) registered, for programs that use its
# integer ops (test/lib, the xcs-test-support crate)
XCS_TEST_RUN = XCS_BIN_DIR / "xcs-test-run"

FLOATS = ["f16", "bf16", "f32", "f64"]
INTS = ["i8", "i16", "i32", "i64"]
NUMERIC = FLOATS + INTS
ALL = FLOATS + ["i1"] + INTS

# numpy dtype of each element type's values in the harness (bf16: float32 holding bf16 values)
NP = {
    "f16": np.float16,
    "bf16": np.float32,
    "f32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}
# the dtype of the .npy files the interpreter writes
NPY = dict(NP, bf16=np.uint16)
# the float type elementwise ops compute in
COMPUTE = {"f16": np.float32, "bf16": np.float32, "f32": np.float32, "f64": np.float64}
# (rtol, atol) for ops that are not exact: about one unit in the last place for f16 (2^-10)
# and bf16 (2^-7); 1e-6 relative for f32 (the bound) and 1e-12 for f64, with a tiny
# absolute part for results near 0.
TOL = {"f16": (1e-3, 1e-5), "bf16": (8e-3, 1e-5), "f32": (1e-6, 1e-7), "f64": (1e-12, 1e-14)}

BF16_MAX = float.fromhex("0x1.fep127")


def round_bf16(x):
    """Rounds to the nearest bf16 (ties to even), once, from the float64 value; float32 result."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, dtype=np.float64)
        _, e = np.frexp(x)
        q = np.maximum(e.astype(np.int64) - 8, -133)  # 8 significand bits; subnormal quantum 2^-133
        r = np.ldexp(np.rint(np.ldexp(x, -q)), q)
        r = np.where(np.isfinite(x) & (np.abs(r) > BF16_MAX), np.copysign(np.inf, x), r)
        r = np.where(np.isfinite(x), r, x)
    return r.astype(np.float32)


def to_elem(x, elem):
    """Converts computed values (any float or integer array) to `elem`: floats round once to
    nearest-even, integers wrap."""
    x = np.asarray(x)
    if elem == "bf16":
        return round_bf16(x)
    if elem in INTS and x.dtype == object:
        return wrap(x, elem)
    with np.errstate(all="ignore"):
        return x.astype(NP[elem])


def wrap(x, elem):
    """Python integers (an object array) wrapped to the width of `elem`."""
    w = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}[elem]
    f = np.frompyfunc(lambda v: ((int(v) + (1 << (w - 1))) % (1 << w)) - (1 << (w - 1)), 1, 1)
    return np.asarray(f(x)).astype(NP[elem]).reshape(np.shape(x))


def compute(x, elem):
    """The values of `x` in the type the interpreter computes `elem` elementwise ops in."""
    return np.asarray(x).astype(COMPUTE[elem]) if elem in FLOATS else np.asarray(x)


def as_object(x):
    """Integers as Python ints (exact arithmetic)."""
    return np.asarray(x).astype(object)


# ---------------------------------------------------------------------------- random values


class Gen:
    """Random values of an element type, exactly representable in it."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def floats(self, shape, elem, lo=-2.0, hi=2.0):
        return to_elem(self.rng.uniform(lo, hi, size=shape), elem)

    def ints(self, shape, elem, lo=None, hi=None):
        info = np.iinfo(NP[elem])
        lo = info.min if lo is None else lo
        hi = info.max if hi is None else hi
        return self.rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64).astype(NP[elem])

    def bools(self, shape):
        return self.rng.random(size=shape) < 0.5

    def values(self, shape, elem, small=False):
        """Floats in [-2, 2); integers over the whole range (small: in [-20, 20]); bools."""
        if elem in FLOATS:
            return self.floats(shape, elem)
        if elem == "i1":
            return self.bools(shape)
        return self.ints(shape, elem, -20, 20) if small else self.ints(shape, elem)


SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 100.0]


def specials(elem):
    return to_elem(np.array(SPECIALS, dtype=np.float64), elem)


# ---------------------------------------------------------------------------- types and cases


def ttype(shape, elem, dyn=()):
    """`tensor<2x?xf32>`: `dyn` lists the dims printed as `?` (True: all of them)."""
    dims = ["?" if (dyn is True or i in dyn) else str(d) for i, d in enumerate(shape)]
    return "tensor<" + "".join(d + "x" for d in dims) + elem + ">"


def attr_text(attrs):
    if not attrs:
        return ""
    return " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"


def op_line(name, n_args, arg_types, rtype, attrs=None):
    """`%r = NAME %a0, %a1 {attrs} : TYPES` with the single-type form when all types agree."""
    operands = ", ".join(f"%a{i}" for i in range(n_args))
    sep = " " if operands else ""
    if arg_types and all(t == rtype for t in arg_types):
        sig = rtype
    else:
        sig = "(" + ", ".join(arg_types) + ") -> " + rtype
    return f"%r = {name}{sep}{operands}{attr_text(attrs)} : {sig}"


def i64s(xs):
    return "array<i64" + (": " + ", ".join(str(int(x)) for x in xs) if len(xs) else "") + ">"


@dataclass
class Arg:
    value: np.ndarray
    elem: str
    type: str


@dataclass
class Case:
    tag: str
    args: list
    ops: list
    rtype: str
    expected: np.ndarray
    relem: str
    exact: bool = True
    tol: tuple = None  # overrides TOL[relem]
    name: str = field(default="", init=False)


def simple(tag, op, args, rtype, expected, relem, attrs=None, exact=True, tol=None):
    """A case whose body is one op on all arguments."""
    line = op_line(op, len(args), [a.type for a in args], rtype, attrs)
    return Case(tag, args, [line], rtype, expected, relem, exact, tol)


# ---------------------------------------------------------------------------- .npy files


def save(path, value, elem):
    if elem == "str":  # an !xcs.str: a 0-d unicode array
        np.save(path, np.array(str(value)), allow_pickle=False)
        return
    a = np.asarray(value, dtype=NP[elem])
    if elem == "bf16":
        bits = a.astype(np.float32).view(np.uint32)
        assert not (bits & 0xFFFF).any() or np.isnan(a).any(), "not bf16 values"
        a = (bits >> 16).astype(np.uint16)
    np.save(path, a, allow_pickle=False)


def load(path, elem):
    a = np.load(path, allow_pickle=False)
    if a.dtype != NPY[elem]:
        raise AssertionError(f"{path.name}: dtype {a.dtype}, expected {np.dtype(NPY[elem])} for {elem}")
    if elem == "bf16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a


# ---------------------------------------------------------------------------- comparing


def mismatch(got, exp, elem, exact, tol=None):
    """None if `got` matches `exp`, else a description of the first difference."""
    exp = np.asarray(exp)
    if got.shape != exp.shape:
        return f"shape {got.shape}, expected {exp.shape}"
    if elem not in FLOATS:
        bad = np.argwhere(np.asarray(got != exp).reshape(got.shape))
        if bad.size:
            i = tuple(int(v) for v in bad[0])
            return f"{len(bad)} elements differ; first at {i}: got {got[i].item()!r}, expected {exp[i].item()!r}"
        return None
    g, e = got.astype(np.float64), exp.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(e)
    with np.errstate(all="ignore"):
        if exact == "signed":
            ok = both_nan | ((g == e) & (np.signbit(g) == np.signbit(e)))
        elif exact:
            ok = both_nan | (g == e)
        else:
            rtol, atol = tol or TOL[elem]
            ok = both_nan | (g == e) | (np.abs(g - e) <= atol + rtol * np.abs(e))
    bad = np.argwhere(~ok.reshape(g.shape))
    if bad.size:
        i = tuple(int(v) for v in bad[0])
        rtol, atol = tol or TOL[elem]
        how = "exactly" if exact else f"within rtol {rtol}, atol {np.broadcast_to(atol, g.shape)[i]:.3g}"
        return f"{len(bad)} of {g.size} elements differ ({how}); first at {i}: got {g[i].item()!r}, expected {e[i].item()!r}"
    return None


# ---------------------------------------------------------------------------- running


def xcs_run(*args, cwd=None, tool=XCS_RUN):
    if not tool.exists():
        raise RuntimeError(f"{tool} not found; build it first (make build) or set XCS_BIN_DIR")
    return subprocess.run([str(tool), *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)


def module_text(cases):
    """One `@case_N` per case and a `@main` calling them all; arguments and results of `@main`
    are named `N_i` and `N` with `xcs.name`."""
    out = []
    for n, c in enumerate(cases):
        c.name = f"c{n}"
        params = ", ".join(f"%a{i}: {a.type}" for i, a in enumerate(c.args))
        body = "\n".join("  " + line for line in c.ops)
        out.append(f"// {c.tag}\nfunc.func @case_{n}({params}) -> {c.rtype} {{\n{body}\n  return %r : {c.rtype}\n}}\n")
    params, rtypes, calls, rets = [], [], [], []
    for c in cases:
        names = [f"%{c.name}_{i}" for i in range(len(c.args))]
        params += [f'{nm}: {a.type} {{xcs.name = "{nm[1:]}"}}' for nm, a in zip(names, c.args)]
        rtypes.append(f'{c.rtype} {{xcs.name = "{c.name}"}}')
        sig = "(" + ", ".join(a.type for a in c.args) + ") -> " + c.rtype
        calls.append(f"  %{c.name} = call @case_{c.name[1:]}({', '.join(names)}) : {sig}")
        rets.append((f"%{c.name}", c.rtype))
    out.append(
        f"func.func @main({', '.join(params)}) -> ({', '.join(rtypes)}) {{\n"
        + "\n".join(calls)
        + f"\n  return {', '.join(r for r, _ in rets)} : {', '.join(t for _, t in rets)}\n}}\n"
    )
    return "\n".join(out)


def run_cases(cases, label):
    """Runs every case through xcs-run (one process) and compares with the expected values.
    Returns the list of failures (strings); a run-time failure is narrowed down to cases."""
    with tempfile.TemporaryDirectory(prefix=f"xcs-{label}-") as d:
        d = Path(d)
        prog = d / f"{label}.mlir"
        prog.write_text(module_text(cases))
        inputs = []
        for c in cases:
            for i, a in enumerate(c.args):
                f = d / f"{c.name}_{i}.npy"
                save(f, a.value, a.elem)
                inputs += ["--input", f"{c.name}_{i}={f}"]
        out = d / "out"
        r = xcs_run(prog, "--interp", "--entry", "main", *inputs, "--output-dir", out)
        if r.returncode != 0:
            return narrow_down(cases, prog, d, r)
        failures = []
        for c in cases:
            if c.relem == "str":  # an !xcs.str result: exact text
                got = np.load(out / f"{c.name}.npy", allow_pickle=False)
                if got.dtype.kind != "U" or got.shape != () or str(got) != c.expected:
                    failures.append(f"{c.tag}: got {str(got)!r} ({got.dtype}), expected {c.expected!r}")
                continue
            try:
                got = load(out / f"{c.name}.npy", c.relem)
            except AssertionError as e:
                failures.append(f"{c.tag}: {e}")
                continue
            m = mismatch(got, c.expected, c.relem, c.exact, c.tol)
            if m:
                failures.append(f"{c.tag}: {m}")
        return failures


def narrow_down(cases, prog, d, r):
    failures = [f"the batch run failed (exit {r.returncode}):\n{r.stderr}"]
    for c in cases:
        inputs = []
        for i, a in enumerate(c.args):
            inputs += ["--input", f"arg{i}={d / f'{c.name}_{i}.npy'}"]
        one = xcs_run(prog, "--interp", "--entry", f"case_{c.name[1:]}", *inputs, "--output-dir", d / c.name)
        if one.returncode != 0:
            failures.append(f"{c.tag}: exit {one.returncode}: {one.stderr.strip()}")
    return failures


# elements compared by `check`, for the summary line (conftest.py)
ELEMENTS = [0]


def check(cases, label):
    """Runs and asserts that every case matches; reports all mismatches at once."""
    failures = run_cases(cases, label)
    ELEMENTS[0] += sum(np.size(c.expected) if c.relem != "str" else 1 for c in cases)
    assert not failures, f"{len(failures)} of {len(cases)} cases fail:\n" + "\n".join(failures)
    return len(cases)


class Run:
    """One xcs-run of a hand-written program in directory `dir`: `inputs` maps argument names
    to `(array, elem)` (saved as .npy) or to a SPEC string passed as is; results land in
    `dir/out` (see `result`, `text`) unless `output` is false. `tool=XCS_TEST_RUN` runs programs
    that use the test dialect."""

    def __init__(self, dir, text, entry="main", inputs=None, extra=(), output=True, tool=XCS_RUN):
        self.dir = Path(dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.prog = self.dir / "prog.mlir"
        self.prog.write_text(text)
        args = [self.prog, "--interp", "--entry", entry]
        for name, v in (inputs or {}).items():
            if isinstance(v, str):
                args += ["--input", f"{name}={v}"]
            else:
                f = self.dir / f"in_{name}.npy"
                save(f, *v)
                args += ["--input", f"{name}={f}"]
        self.out = self.dir / "out"
        if output:
            args += ["--output-dir", self.out]
        self.proc = xcs_run(*args, *extra, tool=tool)

    @property
    def ok(self):
        return self.proc.returncode == 0

    def result(self, name, elem):
        assert self.ok, f"xcs-run failed (exit {self.proc.returncode}):\n{self.proc.stderr}"
        return load(self.out / f"{name}.npy", elem)

    def text(self, name):
        """A string result (a 0-d unicode array)."""
        assert self.ok, f"xcs-run failed (exit {self.proc.returncode}):\n{self.proc.stderr}"
        a = np.load(self.out / f"{name}.npy", allow_pickle=False)
        assert a.dtype.kind == "U" and a.shape == (), f"{name}: {a.dtype} {a.shape}"
        return str(a)
