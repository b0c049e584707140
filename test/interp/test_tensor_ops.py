"""Every tensor op of DESIGN.md's table, for every element type its constraints allow, on random
inputs of several shapes (broadcasting, rank 0, size 0, `?` dims): the interpreter (`xcs-run
--interp`) against numpy. One xcs-run process per op (see harness.py)."""

import math
import warnings
import zlib

import numpy as np
import pytest

from harness import (
    ALL,
    FLOATS,
    INTS,
    NP,
    NUMERIC,
    TOL,
    Arg,
    Case,
    Gen,
    as_object,
    check,
    compute,
    i64s,
    op_line,
    simple,
    specials,
    to_elem,
    ttype,
    wrap,
)

# ---------------------------------------------------------------------------- elementwise binary

# (lhs shape, rhs shape, dims of lhs/rhs typed `?`)
BINARY_SHAPES = [
    ((2, 3), (2, 3), (), ()),
    ((2, 1, 4), (3, 1), (), ()),
    ((), (3,), (), ()),
    ((4, 3), (3,), (0,), ()),
    ((2, 3), (2, 1), (0, 1), (0,)),
    ((0, 3), (3,), (), ()),
    ((40, 50), (50,), (), ()),
]


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def python_rem(a, b):
    """Python's (and numpy's) integer remainder: the divisor's sign."""
    return a % b


def binary_ref(op, a, b, elem):
    if elem in FLOATS:
        # f16: numpy's own float16 ufuncs; bf16: in float32, rounded once (what numpy's float16 does)
        x, y = (a, b) if elem == "f16" else (compute(a, elem), compute(b, elem))
        f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
             "max": np.maximum, "min": np.minimum, "pow": np.power, "rem": np.remainder}[op]
        with np.errstate(all="ignore"):
            return to_elem(f(x, y), elem)
    x, y = as_object(a), as_object(b)
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
         "div": np.frompyfunc(trunc_div, 2, 1), "pow": np.frompyfunc(lambda p, q: p ** q, 2, 1),
         "rem": np.frompyfunc(python_rem, 2, 1)}[op]
    return wrap(f(x, y), elem)


def binary_cases(op):
    g = Gen(zlib.crc32(op.encode()))
    cases = []
    for elem in NUMERIC:
        for sa, sb, da, db in BINARY_SHAPES:
            a = g.values(sa, elem)
            b = g.values(sb, elem)
            if op == "pow":
                if elem in INTS:
                    a, b = g.ints(sa, elem, -5, 5), g.ints(sb, elem, 0, 6)
                else:
                    a = g.floats(sa, elem, 0.0, 3.0)
            if op in ("div", "rem") and elem in INTS:
                b = np.where(b == 0, 1, b).astype(NP[elem])
            out = np.broadcast_shapes(sa, sb)
            ta, tb = ttype(sa, elem, da), ttype(sb, elem, db)
            rt = ttype(out, elem, True if (da or db) else ())
            exact = "signed" if op == "rem" else op not in ("pow",)
            cases.append(simple(f"{op} {elem} {ta} {tb}", f"tensor.{op}", [Arg(a, elem, ta), Arg(b, elem, tb)],
                                rt, binary_ref(op, a, b, elem), elem, exact=exact))
        if elem in FLOATS:  # IEEE special values against each other
            s = specials(elem)
            a, b = np.repeat(s, len(s)), np.tile(s, len(s))
            t = ttype(a.shape, elem)
            cases.append(simple(f"{op} {elem} specials", f"tensor.{op}", [Arg(a, elem, t), Arg(b, elem, t)], t,
                                binary_ref(op, a, b, elem), elem, exact="signed" if op == "rem" else op != "pow"))
        else:  # the extremes: wrapping, INT_MIN / -1
            info = np.iinfo(NP[elem])
            edge = np.array([info.min, info.min + 1, -1, 0, 1, info.max - 1, info.max], dtype=NP[elem])
            a, b = np.repeat(edge, len(edge)), np.tile(edge, len(edge))
            if op in ("div", "rem"):
                a, b = a[b != 0], b[b != 0]
            if op == "pow":
                b = np.abs(b % 7).astype(NP[elem])
            t = ttype(a.shape, elem)
            cases.append(simple(f"{op} {elem} extremes", f"tensor.{op}", [Arg(a, elem, t), Arg(b, elem, t)], t,
                                binary_ref(op, a, b, elem), elem))
    return cases


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "max", "min", "pow", "rem"])
def test_binary(op, stats):
    stats(op, check(binary_cases(op), op))


# ---------------------------------------------------------------------------- elementwise unary

UNARY_SHAPES = [((2, 3), ()), ((), ()), ((5,), (0,)), ((2, 0), ()), ((3, 4), (0, 1))]


def sigmoid(x):
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


def unary_ref(op, a, elem):
    if elem not in FLOATS:
        x = as_object(a)
        f = {"neg": lambda v: -v, "abs": np.abs, "relu": lambda v: np.maximum(v, 0), "floor": lambda v: v,
             "ceil": lambda v: v, "round": lambda v: v, "sign": np.sign}[op]
        return wrap(f(x), elem)
    # f16 ops that are one numpy ufunc use numpy's float16 ufunc; the others compute in float32
    # and round once (numpy's float16 semantics)
    x = a if (elem == "f16" and op in NATIVE_UNARY) else compute(a, elem)
    c = x.dtype.type
    with np.errstate(all="ignore"):
        r = {
            "neg": lambda: -x,
            "abs": lambda: np.abs(x),
            "relu": lambda: np.where(np.isnan(x) | (x > 0), x, c(0)),
            "exp": lambda: np.exp(x),
            "log": lambda: np.log(x),
            "tanh": lambda: np.tanh(x),
            "sigmoid": lambda: sigmoid(x),
            "silu": lambda: x * sigmoid(x),
            "sqrt": lambda: np.sqrt(x),
            "rsqrt": lambda: c(1) / np.sqrt(x),
            "gelu_none": lambda: c(0.5) * x * (c(1) + erf(x / c(math.sqrt(2)))),
            "gelu_tanh": lambda: c(0.5) * x * (c(1) + np.tanh(c(math.sqrt(2 / math.pi)) * (x + c(0.044715) * x * x * x))),
            "sin": lambda: np.sin(x),
            "cos": lambda: np.cos(x),
            "erf": lambda: erf(x),
            "floor": lambda: np.floor(x),
            "ceil": lambda: np.ceil(x),
            "round": lambda: np.round(x),
            "sign": lambda: np.sign(x),
        }[op]()
    return to_elem(r, elem)


EXACT_UNARY = {"neg", "abs", "relu", "sqrt", "rsqrt", "floor", "ceil", "round", "sign"}
# exact with numpy's signs of zero (np.sign(-0.0) is +0.0, np.round(-0.4) is -0.0)
SIGNED_ZERO_UNARY = {"floor", "ceil", "round", "sign"}


def unary_exact(op):
    return "signed" if op in SIGNED_ZERO_UNARY else op in EXACT_UNARY


def every_value(elem):
    """All 65536 bit patterns of f16 or bf16 (one NaN pattern kept per sign)."""
    bits = np.arange(1 << 16, dtype=np.uint32)
    v = bits.astype(np.uint16).view(np.float16) if elem == "f16" else (bits << 16).view(np.float32)
    nan = np.isnan(v)
    return np.concatenate([v[~nan], v[nan][:1]])


def gelu_tol(op, a, elem):
    """GELU computes `1 + erf(..)` / `1 + tanh(..)`, which cancels for negative x: one unit in
    the last place of erf/tanh (implementations differ by that much) is an absolute error of
    about `|x| * 2^-24` in the result (f32; `2^-53` for f64). The tolerance allows two."""
    if not op.startswith("gelu") or elem not in ("f32", "f64"):
        return None
    ulp = 2.0 ** -23 if elem == "f32" else 2.0 ** -52
    return (TOL[elem][0], TOL[elem][1] + np.abs(a.astype(np.float64)) * ulp)


NATIVE_UNARY = {"neg", "abs", "exp", "log", "tanh", "sqrt", "sin", "cos", "floor", "ceil", "round", "sign"}
# wide ranges for the transcendental functions: (lo, hi)
WIDE = {"exp": (-80.0, 80.0), "log": (1e-3, 1e3), "tanh": (-20.0, 20.0), "sigmoid": (-30.0, 30.0),
        "silu": (-30.0, 30.0), "gelu_none": (-10.0, 10.0), "gelu_tanh": (-10.0, 10.0), "sqrt": (0.0, 1e4),
        "rsqrt": (1e-4, 1e4), "sin": (-1e4, 1e4), "cos": (-1e4, 1e4), "erf": (-5.0, 5.0),
        "floor": (-1e4, 1e4), "ceil": (-1e4, 1e4), "round": (-1e4, 1e4), "sign": (-1.0, 1.0)}


def unary_cases(op):
    g = Gen(zlib.crc32(op.encode()))
    elems = NUMERIC if op in ("neg", "abs", "relu", "floor", "ceil", "round", "sign") else FLOATS
    name, attrs = ("gelu", {"approximate": f'"{op[5:]}"'}) if op.startswith("gelu") else (op, None)
    cases = []
    for elem in elems:
        for shape, dyn in UNARY_SHAPES:
            a = g.values(shape, elem)
            if op in ("log", "sqrt", "rsqrt") and elem in FLOATS:
                a = g.floats(shape, elem, 0.01, 4.0)
            if op in ("exp", "tanh", "sigmoid", "silu", "gelu_none", "gelu_tanh") and elem in FLOATS:
                a = g.floats(shape, elem, -6.0, 6.0)
            t = ttype(shape, elem, dyn)
            cases.append(simple(f"{op} {elem} {t}", f"tensor.{name}", [Arg(a, elem, t)], t, unary_ref(op, a, elem),
                                elem, attrs, exact=unary_exact(op), tol=gelu_tol(op, a, elem)))
        if op in WIDE and elem in FLOATS:
            a = g.floats((512,), elem, *WIDE[op])
            if elem == "f16" and op == "exp":
                a = g.floats((512,), elem, -16.0, 11.0)
            t = ttype(a.shape, elem)
            cases.append(simple(f"{op} {elem} wide range", f"tensor.{name}", [Arg(a, elem, t)], t,
                                unary_ref(op, a, elem), elem, attrs, exact=unary_exact(op), tol=gelu_tol(op, a, elem)))
        if elem in ("f16", "bf16"):  # every value of the type
            a = every_value(elem)
            t = ttype(a.shape, elem)
            cases.append(simple(f"{op} {elem} every value", f"tensor.{name}", [Arg(a, elem, t)], t,
                                unary_ref(op, a, elem), elem, attrs, exact=unary_exact(op)))
        a = specials(elem) if elem in FLOATS else np.array(
            [np.iinfo(NP[elem]).min, -1, 0, 1, np.iinfo(NP[elem]).max], dtype=NP[elem])
        t = ttype(a.shape, elem)
        cases.append(simple(f"{op} {elem} specials", f"tensor.{name}", [Arg(a, elem, t)], t, unary_ref(op, a, elem),
                            elem, attrs, exact=unary_exact(op)))
    return cases


@pytest.mark.parametrize("op", ["neg", "abs", "relu", "exp", "log", "tanh", "sigmoid", "silu", "sqrt", "rsqrt",
                                "gelu_none", "gelu_tanh", "sin", "cos", "erf", "floor", "ceil", "round", "sign"])
def test_unary(op, stats):
    stats(op, check(unary_cases(op), op))


# ---------------------------------------------------------------------------- cmp, select, cast

PREDICATES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
              "ge": np.greater_equal}


def test_cmp(stats):
    g = Gen(7)
    cases = []
    for elem in ALL:
        for pred, f in PREDICATES.items():
            for sa, sb, da, db in BINARY_SHAPES[:5] + BINARY_SHAPES[-1:]:
                a = g.values(sa, elem, small=True)
                b = g.values(sb, elem, small=True)
                if elem in FLOATS:  # make ties likely
                    b = to_elem(np.round(compute(b, elem) * 2) / 2, elem)
                    a = to_elem(np.round(compute(a, elem) * 2) / 2, elem)
                ta, tb = ttype(sa, elem, da), ttype(sb, elem, db)
                rt = ttype(np.broadcast_shapes(sa, sb), "i1", True if (da or db) else ())
                cases.append(simple(f"cmp {pred} {elem} {ta} {tb}", "tensor.cmp", [Arg(a, elem, ta), Arg(b, elem, tb)],
                                    rt, f(a, b), "i1", {"predicate": f'"{pred}"'}))
            if elem in FLOATS:
                s = specials(elem)
                a, b = np.repeat(s, len(s)), np.tile(s, len(s))
                t = ttype(a.shape, elem)
                cases.append(simple(f"cmp {pred} {elem} specials", "tensor.cmp", [Arg(a, elem, t), Arg(b, elem, t)],
                                    ttype(a.shape, "i1"), f(a, b), "i1", {"predicate": f'"{pred}"'}))
    stats("cmp", check(cases, "cmp"))


def test_select(stats):
    g = Gen(8)
    cases = []
    shapes = [((2, 3), (2, 3), (2, 3), ()), ((2, 1), (3,), (2, 3), ()), ((), (4,), (), ()),
              ((3, 1), (1, 4), (4,), (0,))]
    for elem in ALL:
        for sc, sa, sb, dyn in shapes:
            c, a, b = g.bools(sc), g.values(sa, elem), g.values(sb, elem)
            tc, ta, tb = ttype(sc, "i1", dyn), ttype(sa, elem), ttype(sb, elem)
            rt = ttype(np.broadcast_shapes(sc, sa, sb), elem, True if dyn else ())
            cases.append(simple(f"select {elem} {tc} {ta} {tb}", "tensor.select",
                                [Arg(c, "i1", tc), Arg(a, elem, ta), Arg(b, elem, tb)], rt, np.where(c, a, b), elem))
    stats("select", check(cases, "select"))


def test_clamp(stats):
    """np.clip with broadcasting bounds, NaN and signed zeros, and lo > hi. The reference is
    `minimum(maximum(x, lo), hi)` (numpy's maximum and minimum keep the second of equal operands,
    the bound), which np.clip computes with array bounds; numpy's loop for scalar bounds, and its
    float16 maximum, keep x instead when a zero ties with a zero of the other sign (f16 is
    checked in float32, as bf16)."""

    def ref(x, lo, hi, elem):
        if elem in FLOATS:
            x, lo, hi = compute(x, elem), compute(lo, elem), compute(hi, elem)
        with np.errstate(all="ignore"):
            r = np.minimum(np.maximum(x, lo), hi)
        return to_elem(r, elem) if elem in FLOATS else r

    g = Gen(11)
    cases = []
    shapes = [((2, 3), (), (), ()), ((2, 3), (3,), (2, 1), ()), ((4,), (4,), (4,), (0,)), ((0, 2), (), (2,), ())]
    for elem in NUMERIC:
        for sx, sl, sh, dyn in shapes:
            x, lo, hi = g.values(sx, elem), g.values(sl, elem), g.values(sh, elem)
            tx, tl, th = ttype(sx, elem, dyn), ttype(sl, elem), ttype(sh, elem)
            rt = ttype(np.broadcast_shapes(sx, sl, sh), elem, True if dyn else ())
            exp = ref(x, lo, hi, elem)
            cases.append(simple(f"clamp {elem} {tx} {tl} {th}", "tensor.clamp",
                                [Arg(x, elem, tx), Arg(lo, elem, tl), Arg(hi, elem, th)], rt, exp, elem,
                                exact="signed"))
        if elem in FLOATS:
            s = specials(elem)
            x, lo = np.repeat(s, len(s)), np.tile(s, len(s))
            hi = to_elem(np.full(x.shape, 1.0), elem)
            t = ttype(x.shape, elem)
            exp = ref(x, lo, hi, elem)
            cases.append(simple(f"clamp {elem} specials", "tensor.clamp", [Arg(x, elem, t), Arg(lo, elem, t),
                                Arg(hi, elem, t)], t, exp, elem, exact="signed"))
    stats("clamp", check(cases, "clamp"))


def cast_ref(a, src, dst):
    if src == dst:
        return a
    if dst == "i1":
        return a != 0
    if src in FLOATS and dst in INTS:
        # truncate, saturate (compared as Python ints: 2^63 is not an int64), NaN -> 0
        info = np.iinfo(NP[dst])
        sat = lambda v: 0 if math.isnan(v) else info.max if v >= info.max else info.min if v <= info.min else int(v)
        return np.array([sat(v) for v in np.trunc(a.astype(np.float64)).ravel()], dtype=NP[dst]).reshape(a.shape)
    if src == "i1":
        return to_elem(a.astype(np.int64), dst)
    if src in INTS and dst in INTS:
        return a.astype(NP[dst])  # wraps
    return to_elem(a.astype(np.float64), dst)  # to a float: one rounding


def test_cast(stats):
    g = Gen(9)
    cases = []
    for src in ALL:
        for dst in ALL:
            for shape, dyn in [((2, 3), ()), ((), ()), ((4,), (0,))]:
                if src in FLOATS:
                    a = g.floats(shape, src, -100.0, 100.0)
                else:
                    a = g.values(shape, src)
                t = ttype(shape, src, dyn)
                rt = ttype(shape, dst, dyn)
                cases.append(simple(f"cast {src}->{dst} {t}", "tensor.cast", [Arg(a, src, t)], rt,
                                    cast_ref(a, src, dst), dst))
            if src in FLOATS:  # saturation, NaN -> 0, inf, rounding of halves
                a = to_elem(np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 300.7, -300.7, 2.5, -2.5, 0.5, -0.0,
                                      65504.0, 1e-40, 3.4e38], dtype=np.float64), src)
                t = ttype(a.shape, src)
                with np.errstate(all="ignore"):
                    exp = cast_ref(a, src, dst)
                cases.append(simple(f"cast {src}->{dst} specials", "tensor.cast", [Arg(a, src, t)],
                                    ttype(a.shape, dst), exp, dst))
            elif src in INTS:  # the extremes of the source type
                info = np.iinfo(NP[src])
                a = np.array([info.min, info.min + 1, -129, -1, 0, 1, 255, 256, 70000, info.max], dtype=np.int64)
                a = a.astype(NP[src])
                t = ttype(a.shape, src)
                cases.append(simple(f"cast {src}->{dst} extremes", "tensor.cast", [Arg(a, src, t)],
                                    ttype(a.shape, dst), cast_ref(a, src, dst), dst))
    # values just above a midpoint of the target type, where rounding twice (through a wider
    # float first) goes the wrong way
    near_ties = {
        ("f64", "bf16"): [1 + 2.0**-8 + 2.0**-40, -(3 + 2.0**-6 + 2.0**-30)],
        ("f64", "f16"): [1 + 2.0**-11 + 2.0**-40, 1024 + 0.5 + 2.0**-30],
        ("f32", "bf16"): [1 + 2.0**-8 + 2.0**-20, 1 + 2.0**-8 + 2.0**-23],
        ("f32", "f16"): [1 + 2.0**-11 + 2.0**-20],
        ("f64", "f32"): [1 + 2.0**-24 + 2.0**-50],
        ("i64", "bf16"): [2**60 + 2**52 + 1, -(2**62 + 2**54 + 3)],
        ("i64", "f32"): [2**60 + 2**36 + 1],
        ("i64", "f16"): [2049, 4097],
        ("i32", "bf16"): [2**30 + 2**22 + 1],
    }
    for (src, dst), vals in near_ties.items():
        a = np.array(vals, dtype=NP[src])
        if src in FLOATS:
            assert (a.astype(np.float64) == np.array(vals)).all()
        t = ttype(a.shape, src)
        exp = to_elem(np.array([float(v) if src in FLOATS else v for v in vals], dtype=object), dst) \
            if src in FLOATS else exact_int_to_float(vals, dst)
        cases.append(simple(f"cast {src}->{dst} near ties", "tensor.cast", [Arg(a, src, t)], ttype(a.shape, dst),
                            exp, dst))
    stats("cast", check(cases, "cast"))


def exact_int_to_float(vals, dst):
    """Integers rounded once to a float type (Python's int -> float is exact up to 2^53 only, so
    round with exact rational arithmetic)."""
    from fractions import Fraction
    bits = {"f16": (11, -24, 65504.0), "bf16": (8, -133, float.fromhex("0x1.fep127")), "f32": (24, -149, None),
            "f64": (53, -1074, None)}[dst]
    p, qmin, top = bits
    out = []
    for v in vals:
        if v == 0:
            out.append(0.0)
            continue
        q = max(abs(v).bit_length() - p, qmin)
        x = Fraction(v, 1) / Fraction(2) ** q
        r = round(x)  # Python rounds halves to even
        f = float(r * Fraction(2) ** q)
        out.append(f if top is None or abs(f) <= top else math.copysign(math.inf, v))
    return to_elem(np.array(out), dst)


# ---------------------------------------------------------------------------- contractions


def contract_ref(f, xs, elem):
    """A contraction in float64 (floats, rounded once) or int64 (integers, wrapped)."""
    if elem in FLOATS:
        return to_elem(f(*[x.astype(np.float64) for x in xs]), elem)
    with np.errstate(all="ignore"):
        return f(*[x.astype(np.int64) for x in xs]).astype(NP[elem])


MATMUL_SHAPES = [
    ((3, 4), (4, 5), (), ()),
    ((2, 3, 4), (4, 2), (), ()),
    ((2, 1, 3, 4), (5, 4, 2), (), ()),
    ((3, 4), (2, 4, 1), (0,), (0, 2)),
    ((2, 0), (0, 3), (), ()),
    ((1, 1), (1, 1), (), ()),
    ((16, 32), (32, 24), (), ()),
]


def test_matmul(stats):
    g = Gen(10)
    cases = []
    for elem in NUMERIC:
        for sa, sb, da, db in MATMUL_SHAPES:
            a, b = g.values(sa, elem, small=elem == "i64"), g.values(sb, elem, small=elem == "i64")
            ta, tb = ttype(sa, elem, da), ttype(sb, elem, db)
            out = np.matmul(np.zeros(sa), np.zeros(sb)).shape
            rt = ttype(out, elem, True if (da or db) else ())
            cases.append(simple(f"matmul {elem} {ta} {tb}", "tensor.matmul", [Arg(a, elem, ta), Arg(b, elem, tb)], rt,
                                contract_ref(np.matmul, [a, b], elem), elem, exact=elem not in FLOATS))
    stats("matmul", check(cases, "matmul"))


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("ijk->kji", [(2, 3, 4)]),
]


def test_einsum(stats):
    g = Gen(11)
    cases = []
    for elem in NUMERIC:
        for eq, shapes in EINSUMS:
            xs = [g.values(s, elem, small=True) for s in shapes]
            exp = contract_ref(lambda *v: np.einsum(eq, *v), xs, elem)
            for dyn in [False, True]:
                ts = [ttype(s, elem, (0,) if dyn and s else ()) for s in shapes]
                rt = ttype(exp.shape, elem, True if dyn else ())
                args = [Arg(x, elem, t) for x, t in zip(xs, ts)]
                cases.append(simple(f"einsum {eq} {elem} {' '.join(ts)}", "tensor.einsum", args, rt, exp, elem,
                                    {"equation": f'"{eq}"'}, exact=elem not in FLOATS))
    stats("einsum", check(cases, "einsum"))


# ---------------------------------------------------------------------------- reductions and normalization

REDUCE_AXES = [((2, 3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]), ((2, 3, 4), [0, 1, 2]), ((2, 3), []),
               ((5,), [0]), ((3, 0), [1]), ((3, 0), [0])]


def reduce_ref(kind, a, axes, keep, elem):
    ax = tuple(axes)
    if elem in FLOATS:
        x = a.astype(np.float64)
        f = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}[kind]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty axis is NaN
            return to_elem(f(x, axis=ax, keepdims=keep), elem)
    x = as_object(a)
    if kind == "mean":
        s = np.sum(x, axis=ax, keepdims=keep)
        n = int(np.prod([a.shape[i] for i in ax])) if ax else 1
        return wrap(np.frompyfunc(lambda v: trunc_div(v, n), 1, 1)(s), elem)
    f = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]
    r = f(x, axis=ax, keepdims=keep)
    return wrap(np.asarray(r, dtype=object), elem)


@pytest.mark.parametrize("kind", ["sum", "max", "min", "mean", "prod"])
def test_reduce(kind, stats):
    g = Gen(12)
    cases = []
    for elem in NUMERIC:
        for shape, axes in REDUCE_AXES:
            empty_row = any(shape[i] == 0 for i in axes)
            if empty_row and (kind in ("max", "min") or (kind == "mean" and elem in INTS)):
                continue  # a run-time error (test_errors.py)
            a = g.values(shape, elem, small=kind == "prod")
            if kind == "prod" and elem in FLOATS:
                a = g.floats(shape, elem, 0.5, 1.5)
            for keep in [False, True]:
                for dyn in [(), (0,)]:
                    t = ttype(shape, elem, dyn)
                    exp = reduce_ref(kind, a, axes, keep, elem)
                    rt = ttype(exp.shape, elem, True if dyn else ())
                    attrs = {"axes": i64s(axes), "keepdims": "true" if keep else "false", "kind": f'"{kind}"'}
                    cases.append(simple(f"reduce {kind} {elem} {t} axes={axes} keep={keep}", "tensor.reduce",
                                        [Arg(a, elem, t)], rt, exp, elem, attrs,
                                        exact=elem not in FLOATS or kind in ("max", "min")))
        if elem in FLOATS:
            a = specials(elem).reshape(3, 4)
            t = ttype(a.shape, elem)
            exp = reduce_ref(kind, a, [1], False, elem)
            cases.append(simple(f"reduce {kind} {elem} specials", "tensor.reduce", [Arg(a, elem, t)],
                                ttype(exp.shape, elem), exp, elem,
                                {"axes": i64s([1]), "keepdims": "false", "kind": f'"{kind}"'}, exact=False))
    stats(f"reduce {kind}", check(cases, f"reduce_{kind}"))


def softmax_ref(a, axis, elem):
    x = a.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return to_elem(e / np.sum(e, axis=axis, keepdims=True), elem)


def test_softmax(stats):
    g = Gen(13)
    cases = []
    for elem in FLOATS:
        for shape, axis, dyn in [((2, 3, 4), 0, ()), ((2, 3, 4), 1, ()), ((2, 3, 4), -1, ()), ((5,), 0, ()),
                                 ((4, 6), 1, (0,)), ((3, 5), -2, (0, 1))]:
            a = g.floats(shape, elem, -5.0, 5.0)
            t = ttype(shape, elem, dyn)
            cases.append(simple(f"softmax {elem} {t} axis={axis}", "tensor.softmax", [Arg(a, elem, t)], t,
                                softmax_ref(a, axis, elem), elem, {"axis": f"{axis} : i64"}, exact=False))
    stats("softmax", check(cases, "softmax"))


def test_softmax_of_inputs_near_1000(stats):
    """exp(1000) overflows every float type: a softmax without the row-max subtraction gives
    NaN here (inputs in [-5, 5] would not show it)."""
    g = Gen(31)
    cases = []
    for elem in FLOATS:
        for lo, hi in [(990.0, 1010.0), (-1010.0, -990.0)]:
            a = g.floats((3, 7), elem, lo, hi)
            t = ttype(a.shape, elem)
            cases.append(simple(f"softmax {elem} {t} in [{lo}, {hi})", "tensor.softmax", [Arg(a, elem, t)], t,
                                softmax_ref(a, 1, elem), elem, {"axis": "1 : i64"}, exact=False))
    stats("softmax near 1000", check(cases, "softmax_large"))


def layer_norm_ref(x, gamma, beta, axis, eps, elem):
    x, gamma, beta = (v.astype(np.float64) for v in (x, gamma, beta))
    ax = tuple(range(axis % x.ndim, x.ndim))
    mean = np.mean(x, axis=ax, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=ax, keepdims=True)
    return to_elem((x - mean) / np.sqrt(var + eps) * gamma + beta, elem)


def test_layer_norm(stats):
    g = Gen(14)
    cases = []
    eps_text = "1.0e-05 : f32"
    eps = float(np.float32(1e-5))
    for elem in FLOATS:
        for shape, axis, dyn in [((2, 3, 4), 2, ()), ((2, 3, 4), 1, ()), ((2, 3, 4), -1, (0,)), ((6,), 0, ()),
                                 ((3, 5), 0, ())]:
            norm = shape[axis % len(shape):]
            x, gm, bt = g.floats(shape, elem, -3, 3), g.floats(norm, elem, 0.5, 1.5), g.floats(norm, elem)
            t, tn = ttype(shape, elem, dyn), ttype(norm, elem)
            args = [Arg(x, elem, t), Arg(gm, elem, tn), Arg(bt, elem, tn)]
            cases.append(simple(f"layer_norm {elem} {t} axis={axis}", "tensor.layer_norm", args, t,
                                layer_norm_ref(x, gm, bt, axis, eps, elem), elem,
                                {"axis": f"{axis} : i64", "epsilon": eps_text}, exact=False))
    stats("layer_norm", check(cases, "layer_norm"))


def test_layer_norm_of_inputs_near_1000(stats):
    """Values near +-1000 a few thousandths apart (f32, f64; a tiny epsilon, so the result is
    all spread): a one-pass variance E[x^2] - E[x]^2 loses that spread to rounding, even in
    f64; the two-pass one keeps it. f16 and bf16 cannot hold such a spread: units apart."""
    g = Gen(32)
    cases = []
    for elem in FLOATS:
        spread, eps, eps_text = (0.01, 1e-12, "1.0e-12 : f32") if elem in ("f32", "f64") else (4.0, 1e-5, "1.0e-05 : f32")
        for sign in (1.0, -1.0):
            x = to_elem(sign * (1000.0 + g.floats((3, 8), "f64", -spread, spread)), elem)
            gm, bt = to_elem(np.ones(8), elem), to_elem(np.zeros(8), elem)
            t, tn = ttype(x.shape, elem), ttype((8,), elem)
            args = [Arg(x, elem, t), Arg(gm, elem, tn), Arg(bt, elem, tn)]
            # f64: numpy's mean near 1000 and ours round differently at ~1e-10 of the spread
            tol = (1e-9, 1e-12) if elem == "f64" else None
            cases.append(simple(f"layer_norm {elem} {t} near {sign * 1000}", "tensor.layer_norm", args, t,
                                layer_norm_ref(x, gm, bt, 1, float(np.float32(eps)), elem), elem,
                                {"axis": "1 : i64", "epsilon": eps_text}, exact=False, tol=tol))
    stats("layer_norm near 1000", check(cases, "layer_norm_large"))


# ---------------------------------------------------------------------------- data movement


def test_transpose(stats):
    g = Gen(15)
    cases = []
    for elem in ALL:
        for shape, perm, dyn in [((2, 3, 4), [2, 0, 1], ()), ((2, 3, 4), [0, 2, 1], (1,)), ((3, 4), [1, 0], ()),
                                 ((), [], ()), ((2, 3, 4), [0, 1, 2], ()), ((0, 3), [1, 0], ())]:
            a = g.values(shape, elem)
            t = ttype(shape, elem, dyn)
            exp = np.transpose(a, perm)
            rt = ttype(exp.shape, elem, True if dyn else ())
            cases.append(simple(f"transpose {elem} {t} {perm}", "tensor.transpose", [Arg(a, elem, t)], rt, exp, elem,
                                {"perm": i64s(perm)}))
    stats("transpose", check(cases, "transpose"))


def test_reshape(stats):
    g = Gen(16)
    cases = []
    for elem in ALL:
        # (input shape, its `?` dims, result shape, its `?` dims)
        for shape, dyn, out, odyn in [((2, 3, 4), (), (6, 4), ()), ((2, 3, 4), (), (24,), ()),
                                      ((2, 3, 4), (), (4, 6), (0,)), ((6, 4), (0,), (2, 12), (1,)),
                                      ((), (), (1, 1), ()), ((1,), (), (), ()), ((6,), (0,), (3, 2), ())]:
            a = g.values(shape, elem)
            t, rt = ttype(shape, elem, dyn), ttype(out, elem, odyn)
            cases.append(simple(f"reshape {elem} {t} -> {rt}", "tensor.reshape", [Arg(a, elem, t)], rt,
                                a.reshape(out), elem))
    stats("reshape", check(cases, "reshape"))


def test_broadcast_to(stats):
    g = Gen(17)
    cases = []
    for elem in ALL:
        for shape, dyn, out, odyn in [((3,), (), (2, 3), ()), ((2, 1), (), (2, 4), ()), ((), (), (2, 2), ()),
                                      ((3,), (), (2, 3), (1,)), ((4, 1), (0,), (4, 5), (0,)),
                                      ((1, 3), (), (0, 3), ()), ((2, 3), (), (2, 2, 3), ())]:
            a = g.values(shape, elem)
            t, rt = ttype(shape, elem, dyn), ttype(out, elem, odyn)
            cases.append(simple(f"broadcast_to {elem} {t} -> {rt}", "tensor.broadcast_to", [Arg(a, elem, t)], rt,
                                np.broadcast_to(a, out).copy(), elem))
    stats("broadcast_to", check(cases, "broadcast_to"))


def test_slice(stats):
    g = Gen(18)
    cases = []
    for elem in ALL:
        for shape, start, limit, stride, dyn in [((5, 6), [1, 0], [4, 6], [2, 3], ()), ((5, 6), [0, 0], [5, 6], [1, 1], ()),
                                                 ((2, 3, 4), [1, 1, 0], [2, 3, 4], [1, 1, 3], (0,)),
                                                 ((7,), [2], [2], [1], ()), ((7,), [6], [7], [5], (0,))]:
            a = g.values(shape, elem)
            t = ttype(shape, elem, dyn)
            exp = a[tuple(slice(s, l, st) for s, l, st in zip(start, limit, stride))]
            rt = ttype(exp.shape, elem)
            cases.append(simple(f"slice {elem} {t} {start}:{limit}:{stride}", "tensor.slice", [Arg(a, elem, t)], rt,
                                exp, elem, {"limit": i64s(limit), "start": i64s(start), "stride": i64s(stride)}))
    stats("slice", check(cases, "slice"))


def test_concat(stats):
    g = Gen(19)
    cases = []
    for elem in ALL:
        for shapes, axis, dyn in [([(2, 3), (4, 3)], 0, ()), ([(2, 3), (2, 1), (2, 2)], 1, ()), ([(2, 3)], 0, ()),
                                  ([(2, 2, 3), (2, 2, 1)], -1, ()), ([(2, 3), (1, 3)], 0, (0,)),
                                  ([(0, 3), (2, 3)], 0, ())]:
            xs = [g.values(s, elem) for s in shapes]
            ts = [ttype(s, elem, dyn) for s in shapes]
            exp = np.concatenate(xs, axis=axis)
            rt = ttype(exp.shape, elem, True if dyn else ())
            cases.append(simple(f"concat {elem} {' '.join(ts)} axis={axis}", "tensor.concat",
                                [Arg(x, elem, t) for x, t in zip(xs, ts)], rt, exp, elem, {"axis": f"{axis} : i64"}))
    stats("concat", check(cases, "concat"))


def test_gather(stats):
    g = Gen(20)
    cases = []
    for elem in ALL:
        for ielem in ["i32", "i64"]:
            for tshape, ishape, axis, dyn in [((5, 3), (4,), 0, ()), ((2, 5), (2, 2), 1, ()), ((2, 3, 4), (3,), -1, ()),
                                              ((6,), (), 0, ()), ((5, 3), (4,), 0, (0,)), ((4, 2), (0,), 0, ())]:
                table = g.values(tshape, elem)
                size = tshape[axis]
                idx = g.ints(ishape, ielem, 0, size - 1)
                exp = np.take(table, idx, axis=axis)
                tt, it = ttype(tshape, elem, dyn), ttype(ishape, ielem)
                rt = ttype(exp.shape, elem, True if dyn else ())
                cases.append(simple(f"gather {elem} {tt} {it} axis={axis}", "tensor.gather",
                                    [Arg(table, elem, tt), Arg(idx, ielem, it)], rt, exp, elem,
                                    {"axis": f"{axis} : i64"}))
    stats("gather", check(cases, "gather"))


# ---------------------------------------------------------------------------- constants and fused regions


def literal(v, elem):
    if elem == "i1":
        return "true" if v else "false"
    if elem in FLOATS:
        return repr(float(v))
    return str(int(v))


def nested(a, elem):
    if a.ndim == 0:
        return literal(a.item(), elem)
    return "[" + ", ".join(nested(x, elem) for x in a) + "]"


def test_constant(stats):
    g = Gen(21)
    cases = []
    for elem in ALL:
        for shape in [(2, 3), (), (4,), (2, 0)]:
            a = g.values(shape, elem)
            t = ttype(shape, elem)
            line = f"%r = tensor.constant {{value = dense<{nested(a, elem)}> : {t}}} : {t}"
            cases.append(Case(f"constant {elem} {t}", [], [line], t, a, elem))
        a = g.values((), elem)
        t = ttype((3, 2), elem)
        line = f"%r = tensor.constant {{value = dense<{literal(a.item(), elem)}> : {t}}} : {t}"
        cases.append(Case(f"constant {elem} splat", [], [line], t, np.full((3, 2), a), elem))
    stats("constant", check(cases, "constant"))


def test_fused(stats):
    g = Gen(22)
    cases = []
    for elem in NUMERIC:
        a, b = g.values((2, 3), elem, small=True), g.values((3,), elem, small=True)
        ta, tb = ttype((2, 3), elem), ttype((3,), elem)
        ops = [
            f"%r = tensor.fused %a0, %a1 : ({ta}, {tb}) -> {ta} {{",
            f"^bb0(%x: {ta}, %y: {tb}):",
            f"  %s = tensor.add %x, %y : ({ta}, {tb}) -> {ta}",
            f"  %m = tensor.mul %s, %x : {ta}",
            f"  %n = tensor.neg %m : {ta}",
            f"  tensor.yield %n : {ta}",
            "}",
        ]
        if elem in FLOATS:
            s = to_elem(compute(a, elem) + compute(b, elem), elem)  # each op rounds to the element type
            m = to_elem(compute(s, elem) * compute(a, elem), elem)
            exp = to_elem(-compute(m, elem), elem)
        else:
            exp = wrap(-((as_object(a) + as_object(b)) * as_object(a)), elem)
        cases.append(Case(f"fused {elem}", [Arg(a, elem, ta), Arg(b, elem, tb)], ops, ta, exp, elem))
    stats("fused", check(cases, "fused"))

