"""Calls the shared library xcs-translate makes of abi.mlir from Python through ctypes, the
way a Python frontend uses XCS as its backend: numpy arrays in (contiguous and strided, via
their strides), numpy arrays out (copied, then released), run-time errors as exceptions.
Checks the results against numpy. Usage: abi_ctypes.py LIBRARY"""

import ctypes
import sys

import numpy as np


class XcsTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("rank", ctypes.c_int64),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("dtype", ctypes.c_int32),
    ]


DTYPES = {1: np.float16, 3: np.float32, 4: np.float64, 5: np.bool_, 6: np.int8, 7: np.int16, 8: np.int32, 9: np.int64}
CODES = {np.dtype(v): k for k, v in DTYPES.items()}


class Library:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.xcs_last_error.restype = ctypes.c_char_p
        self.lib.xcs_live_allocations.restype = ctypes.c_int64

    def call(self, name, *arrays, results=1):
        """Calls xcs_NAME on numpy arrays; returns numpy arrays (copies of the results)."""
        keep = []
        args = []
        for a in arrays:
            shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
            strides = (ctypes.c_int64 * max(a.ndim, 1))(*[s // a.itemsize for s in a.strides])
            t = XcsTensor(a.ctypes.data, a.ndim, shape, strides, CODES[a.dtype])
            keep += [shape, strides, t]
            args.append(ctypes.byref(t))
        outs = [XcsTensor() for _ in range(results)]
        rc = getattr(self.lib, f"xcs_{name}")(*args, *[ctypes.byref(o) for o in outs])
        if rc != 0:
            raise RuntimeError(self.lib.xcs_last_error().decode())
        res = []
        for o in outs:
            shape = tuple(o.shape[d] for d in range(o.rank))
            n = int(np.prod(shape, dtype=np.int64))
            dt = np.dtype(DTYPES[o.dtype])
            buf = (ctypes.c_char * (n * dt.itemsize)).from_address(o.data) if n else b""
            res.append(np.frombuffer(bytes(buf), dtype=dt).reshape(shape).copy())
            self.lib.xcs_tensor_release(ctypes.byref(o))
        return res


def main():
    lib = Library(sys.argv[1])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    (y,) = lib.call("affine", x, w, b)
    want = np.maximum(x.astype(np.float64) @ w + b, 0)
    assert y.shape == (6, 3) and np.allclose(y, want, rtol=1e-5, atol=1e-6), (y, want)
    print("affine ok", y.shape)
    # A strided view (every other row of a bigger array, transposed twice).
    big = rng.standard_normal((12, 4)).astype(np.float32)
    (y2,) = lib.call("affine", big[::2], w, b)
    assert np.allclose(y2, np.maximum(big[::2].astype(np.float64) @ w + b, 0), rtol=1e-5, atol=1e-6)
    print("affine strided ok")
    a = np.array([7, -7, 9, -(2**31)], np.int32)
    d = np.array([2, 2, -4, -1], np.int32)
    q, total = lib.call("idiv", a, d, results=2)
    want_q = (np.trunc(a.astype(np.float64) / d)).astype(np.int64).astype(np.int32)
    assert (q == want_q).all() and total.shape == () and total == want_q.astype(np.int64).sum(), (q, total)
    print("idiv ok", q.tolist(), int(total))
    try:
        lib.call("idiv", a, np.zeros(4, np.int32), results=2)
        raise AssertionError("no error")
    except RuntimeError as e:
        print("idiv error:", str(e).split(": ", 1)[1])
    try:
        lib.call("affine", x.astype(np.float64), w, b)
        raise AssertionError("no error")
    except RuntimeError as e:
        print("affine error:", e)
    xs = rng.standard_normal((300, 200)).astype(np.float32)
    t, s = lib.call("big", xs, results=2)
    assert np.allclose(t, np.tanh(xs), rtol=1e-5, atol=1e-6)
    assert np.allclose(s, np.tanh(xs.astype(np.float64)).sum(axis=1), rtol=1e-5, atol=1e-5)
    print("big ok")
    live = lib.lib.xcs_live_allocations()
    assert live == 0, live
    print("live allocations:", live)


if __name__ == "__main__":
    main()
