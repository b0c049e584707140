"""Compares the .npy files of xcs-run --output-dir directories with a reference directory.
Usage: compare_npy.py [--rtol R] REF DIR... Prints `DIR NAME: equal` (bit for bit) or `DIR NAME:
close` (within rtol, atol 1e-6) per file, or exits 1 naming the first file that differs."""
import pathlib
import sys

import numpy as np

args = sys.argv[1:]
rtol = 1e-5
if args[:1] == ["--rtol"]:
    rtol, args = float(args[1]), args[2:]
ref, dirs = pathlib.Path(args[0]), args[1:]
files = sorted(ref.glob("*.npy"))
if not files:
    sys.exit(f"error: no .npy files in {ref}")
for d in dirs:
    for f in files:
        a, b = np.load(f), np.load(pathlib.Path(d) / f.name)
        if a.shape != b.shape or a.dtype != b.dtype:
            sys.exit(f"error: {d} {f.name}: {b.dtype}{list(b.shape)}, expected {a.dtype}{list(a.shape)}")
        if np.array_equal(a, b, equal_nan=True):
            print(f"{pathlib.Path(d).name} {f.name}: equal")
        elif np.allclose(b, a, rtol=rtol, atol=1e-6, equal_nan=True):
            print(f"{pathlib.Path(d).name} {f.name}: close")
        else:
            sys.exit(f"error: {d} {f.name} differs from {ref}: max abs difference {np.max(np.abs(a - b))}")
