#!/usr/bin/env python3
"""Fits the table of XCS's 16-lane f32 `erf` (`ERF_TABLE` in lowering/src/ops/math.rs) and prints
it as Rust: `erf |x|` on `[k/4, (k+1)/4]`, k = 0..15, as a degree-5 polynomial in `t = 4|x| - k`
in `[0, 1]`, its coefficients read per lane with `vpermps`. Interval 0 has no constant term and
takes `|x|` out of its linear one (`erf x = x + t q(t)`), so small arguments stay relative
accurate. Each fit is Lawson's minimax of the error in f32 ulps on Chebyshev nodes against scipy's
`erf`, rounded to f32 from the constant term up with a refit of the higher coefficients after
each rounding. Prints the worst error of an f32 evaluation on sampled floats per interval
(`make check-math-ulp` then checks every float). Usage: python3 tools/math_ulp/fit_erf.py
"""
from __future__ import annotations

import numpy as np
from scipy.special import erf

WIDTH = 0.25  # interval width: t = |x| / WIDTH - k
INTERVALS = 16  # one vpermps table of 16 lanes
DEGREE = 5


def lawson(ts, ys, weights, fixed: dict[int, float], iterations=60) -> list[float]:
    """Minimax (Lawson's iteratively reweighted least squares) fit of `ys` by a polynomial in `ts`
    of degree DEGREE with the coefficients in `fixed` held; the error is weighted by `weights`."""
    free = [j for j in range(DEGREE + 1) if j not in fixed]
    basis = np.stack([ts**j for j in free], 1)
    rest = ys - sum(c * ts**j for j, c in fixed.items())
    lw = np.full(len(ts), 1.0 / len(ts))
    for _ in range(iterations):
        w = np.sqrt(lw) * weights
        c, *_ = np.linalg.lstsq(basis * w[:, None], rest * w, rcond=None)
        err = np.abs((basis @ c - rest) * weights)
        lw = lw * err
        lw /= lw.sum()
    out = dict(fixed)
    out.update(zip(free, c))
    return [out[j] for j in range(DEGREE + 1)]


def fit_interval(k: int, nodes=4000) -> list[float]:
    """The f32 coefficients, constant term first, of interval k (of `erf - |x|` for k = 0)."""
    ts = np.concatenate([[0.0, 1.0], (1 - np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)) / 2])
    ys = erf((k + ts) * WIDTH)
    weights = 1.0 / 2.0 ** (np.floor(np.log2(np.maximum(ys, 1e-30))) - 23)  # 1 / ulp
    fixed: dict[int, float] = {}
    if k == 0:
        fixed[0] = 0.0
        ys = ys - WIDTH * ts
    coefs = lawson(ts, ys, weights, fixed)
    for j in range(DEGREE + 1):
        if j not in fixed:
            fixed[j] = float(np.float32(coefs[j]))
            if len(fixed) <= DEGREE:
                coefs = lawson(ts, ys, weights, fixed)
    return [fixed[j] for j in range(DEGREE + 1)]


def fma32(a, b, c):
    """An f32 FMA (the product of two f32 is exact in f64)."""
    return (np.float64(a) * np.float64(b) + np.float64(c)).astype(np.float32)


def evaluate(coefs: list[float], k: int, t):
    """As the lowering evaluates it: `t q(t) + (t e + c0)`, `e` = WIDTH for k = 0, else 0."""
    e = WIDTH if k == 0 else 0.0
    b = fma32(t, np.float32(e), np.float32(coefs[0]))
    q = np.full_like(t, np.float32(coefs[-1]))
    for c in reversed(coefs[1:-1]):
        q = fma32(q, t, np.float32(c))
    return fma32(t, q, b)


def worst_error(coefs: list[float], k: int, samples=200001) -> tuple[float, float]:
    lo = np.float32(max(k * WIDTH, 1e-6))
    hi = np.float32(min((k + 1) * WIDTH, 3.9375))
    bits = np.unique(np.linspace(lo.view(np.int32), hi.view(np.int32), samples).astype(np.int32))
    ax = bits.view(np.float32)
    t = (ax * np.float32(1 / WIDTH) - np.float32(k)).astype(np.float32)
    got = evaluate(coefs, k, t).astype(np.float64)
    want = erf(ax.astype(np.float64))
    err = np.abs(got - want) / 2.0 ** (np.floor(np.log2(want)) - 23)
    i = int(np.argmax(err))
    return float(err[i]), float(ax[i])


def rust(x: float) -> str:
    s = repr(np.float32(x)).removeprefix("np.float32(").removesuffix(")")
    return s if ("." in s or "e" in s) else s + ".0"


def main() -> None:
    table = [fit_interval(k) for k in range(INTERVALS)]
    for k, coefs in enumerate(table):
        e, x = worst_error(coefs, k)
        print(f"// interval {k:2}: worst {e:.3f} ulp at {x:.8g}")
    rows = [[table[k][j] for k in range(INTERVALS)] for j in range(DEGREE + 1)]
    print(f"const ERF_TABLE: [[f32; {INTERVALS}]; {DEGREE + 1}] = [")
    for row in rows:
        print("    [" + ", ".join(rust(c) for c in row) + "],")
    print("];")


if __name__ == "__main__":
    main()
