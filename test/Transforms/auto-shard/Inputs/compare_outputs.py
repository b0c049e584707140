#!/usr/bin/env python3
"""Compares the .npy outputs of xcs-run --output-dir directories with a reference directory, as
the shard-partition differential test does: equal shapes and types, and every element within
1e-5 x max(1, the largest magnitude of the reference) (a split reduction adds the devices'
parts in another order). Prints `DIR NAME: equal` or `DIR NAME: close`, or exits 1.

Usage: compare_outputs.py REF DIR...
"""
import pathlib
import sys

import numpy as np


def main() -> int:
    ref, dirs = pathlib.Path(sys.argv[1]), sys.argv[2:]
    files = sorted(ref.glob("*.npy"))
    if not files:
        sys.exit(f"error: no .npy files in {ref}")
    for d in dirs:
        for f in files:
            a, b = np.load(f), np.load(pathlib.Path(d) / f.name)
            if a.shape != b.shape or a.dtype != b.dtype:
                sys.exit(f"error: {d} {f.name}: {b.dtype}{list(b.shape)}, expected {a.dtype}{list(a.shape)}")
            tol = 1e-5 * max(1.0, float(np.max(np.abs(a))) if a.size else 1.0)
            diff = float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0
            if np.array_equal(a, b, equal_nan=True):
                print(f"{pathlib.Path(d).name} {f.name}: equal")
            elif diff <= tol:
                print(f"{pathlib.Path(d).name} {f.name}: close")
            else:
                sys.exit(f"error: {d} {f.name} differs from {ref}: max abs difference {diff} > {tol}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
