"""Compares the .npy files of xcs-run --output-dir directories with a reference directory.
Usage: compare_npy.py [--rtol R] [--scaled] REF DIR... Prints `DIR NAME: equal` (bit for bit) or
`DIR NAME: close` per file, or exits 1 naming the first file that differs. Close is within rtol
of each element (atol 1e-6), or with --scaled within rtol x max(1, the reference's largest
magnitude) (a split reduction adds the devices' parts in another order)."""
import pathlib
import sys

import numpy as np

args = sys.argv[1:]
rtol, scaled = 1e-5, False
while args[:1] in (["--rtol"], ["--scaled"]):
    if args[0] == "--rtol":
        rtol, args = float(args[1]), args[2:]
    else:
        scaled, args = True, args[1:]
ref, dirs = pathlib.Path(args[0]), args[1:]
files = sorted(ref.glob("*.npy"))
if not files:
    sys.exit(f"error: no .npy files in {ref}")


def close(a, b):
    if not scaled:
        return np.allclose(b, a, rtol=rtol, atol=1e-6, equal_nan=True)
    tol = rtol * max(1.0, float(np.max(np.abs(a))) if a.size else 1.0)
    return (float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0) <= tol


for d in dirs:
    for f in files:
        a, b = np.load(f), np.load(pathlib.Path(d) / f.name)
        if a.shape != b.shape or a.dtype != b.dtype:
            sys.exit(f"error: {d} {f.name}: {b.dtype}{list(b.shape)}, expected {a.dtype}{list(a.shape)}")
        if np.array_equal(a, b, equal_nan=True):
            print(f"{pathlib.Path(d).name} {f.name}: equal")
        elif close(a, b):
            print(f"{pathlib.Path(d).name} {f.name}: close")
        else:
            sys.exit(f"error: {d} {f.name} differs from {ref}: max abs difference {np.max(np.abs(a - b))}")
