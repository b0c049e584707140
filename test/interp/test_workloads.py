"""Kernel workloads (seed 002) written as IR text, run by xcs-run on the interpreter and on the
LLVM JIT (one and two threads) and compared with numpy: a batched multi-head attention
(`parallel_for` over batch and heads, each task softmax(Q K^T / sqrt(d)) V on its slice), a
tiled matmul (`parallel_for` over row and column tiles, each task one block of C, views
`A[i*T:(i+1)*T]`), and a workload with an inout tensor written by two launches in sequence. The
JIT must equal the interpreter on each."""

import sys
from pathlib import Path

import numpy as np
import pytest

from harness import XCS_RUN, xcs_run

# the programs are shared with the workload benchmark (tools/bench/bench_workload_ir.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))
from workload_programs import attention_function_program, attention_numpy, attention_program, tiled_matmul_program  # noqa: E402


# An inout accumulation: rows of Y get X's row added twice (two launches in sequence in each
# iteration), then a second grid scales the reversed rows; a column of Z gets X's column.
INOUT = """
xcs.kernel @acc {function_type = (index, tensor<6xf64>, tensor<6xf64>) -> (), arg_kinds = ["axis", "in", "inout"]} {
^bb0(%i: index, %x: tensor<6xf64>, %y: tensor<6xf64>):
  %0 = tensor.add %y, %x : tensor<6xf64>
  xcs.yield %0 : tensor<6xf64>
}
xcs.kernel @twice {function_type = (index, tensor<6xf64>) -> (), arg_kinds = ["axis", "inout"]} {
^bb0(%i: index, %y: tensor<6xf64>):
  %0 = tensor.add %y, %y : tensor<6xf64>
  xcs.yield %0 : tensor<6xf64>
}
xcs.kernel @col {function_type = (index, tensor<4xf64>, tensor<4xf64>) -> (), arg_kinds = ["axis", "in", "out"]} {
^bb0(%i: index, %x: tensor<4xf64>, %z: tensor<4xf64>):
  xcs.yield %x : tensor<4xf64>
}
func.func @main(%X: tensor<4x6xf64> {xcs.name = "X"}) -> (tensor<4x6xf64> {xcs.name = "Y"}, tensor<6x4xf64> {xcs.name = "Z"}) {
  %Y, %Z = xcs.workload %X : (tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<6x4xf64>) {
  ^bb0(%x: tensor<4x6xf64>, %y: tensor<4x6xf64>, %z: tensor<6x4xf64>):
    xcs.parallel_for {extent = 4 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @acc[%i](%x[%i], %y[%i]) : tensor<4x6xf64>, tensor<4x6xf64>
      xcs.launch @acc[%i](%x[%i], %y[%i]) : tensor<4x6xf64>, tensor<4x6xf64>
    }
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @twice[%i](%y[-%i + 3]) : tensor<4x6xf64>
    }
    xcs.parallel_for {extent = 6 : i64} : () -> () {
    ^bb0(%j: index):
      xcs.launch @col[%j](%x[:, %j], %z[%j]) : tensor<4x6xf64>, tensor<6x4xf64>
    }
  }
  return %Y, %Z : tensor<4x6xf64>, tensor<6x4xf64>
}
"""


def run(tmp_path, text, inputs, backend, threads=None):
    d = tmp_path / f"{backend}{threads or ''}"
    d.mkdir()
    prog = d / "prog.mlir"
    prog.write_text(text)
    args = [prog, f"--backend={backend}", "--output-dir", d / "out"]
    if threads:
        args += ["--threads", threads]
    for name, a in inputs.items():
        np.save(d / f"{name}.npy", a)
        args += ["--input", f"{name}={d / f'{name}.npy'}"]
    p = xcs_run(*args)
    assert p.returncode == 0, p.stderr
    return {f.stem: np.load(f) for f in (d / "out").glob("*.npy")}


def run_everywhere(tmp_path, text, inputs):
    """Results of the interpreter, then of the JIT at 1 and 2 threads."""
    interp = run(tmp_path, text, inputs, "interp")
    jits = [run(tmp_path, text, inputs, "llvm", t) for t in (1, 2)]
    return interp, jits


@pytest.mark.parametrize("B,H,S,D", [(2, 3, 8, 16), (1, 2, 5, 4)])
def test_attention_workload(tmp_path, B, H, S, D):
    rng = np.random.default_rng(B * 100 + S)
    Q, K, V = (rng.standard_normal((B, H, S, D)).astype(np.float32) for _ in range(3))
    interp, jits = run_everywhere(tmp_path, attention_program(B, H, S, D), {"Q": Q, "K": K, "V": V})
    want = attention_numpy(Q, K, V)
    np.testing.assert_allclose(interp["O"], want, rtol=1e-5, atol=1e-6)
    for jit in jits:
        np.testing.assert_allclose(jit["O"], want, rtol=1e-5, atol=1e-6)
        # f32 matmul accumulates in f32 in compiled code (docs/lowering.md): close, not equal
        np.testing.assert_allclose(jit["O"], interp["O"], rtol=1e-5, atol=1e-6)
    # the benchmark's peer: the same attention as one function of batched ops
    (tmp_path / "fn").mkdir()
    fn = run(tmp_path / "fn", attention_function_program(B, H, S, D), {"arg0": Q, "arg1": K, "arg2": V}, "llvm", 1)
    np.testing.assert_allclose(fn["result0"], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("M,K,N,TM,TN", [(8, 12, 6, 4, 3), (32, 16, 48, 16, 8), (5, 3, 7, 5, 7)])
def test_tiled_matmul_workload(tmp_path, M, K, N, TM, TN):
    rng = np.random.default_rng(M + K + N)
    A = rng.standard_normal((M, K)).astype(np.float32)
    Bm = rng.standard_normal((K, N)).astype(np.float32)
    interp, jits = run_everywhere(tmp_path, tiled_matmul_program(M, K, N, TM, TN), {"A": A, "B": Bm})
    want = A.astype(np.float64) @ Bm.astype(np.float64)
    # the interpreter accumulates in f64 and rounds once
    np.testing.assert_array_equal(interp["C"], want.astype(np.float32))
    bound = 4 * K * np.finfo(np.float32).eps * (np.abs(A).astype(np.float64) @ np.abs(Bm)) + 1e-6
    for jit in jits:
        assert (np.abs(jit["C"] - want) <= bound).all()


def test_inout_and_sequential_grids(tmp_path):
    X = np.arange(24, dtype=np.float64).reshape(4, 6) - 7.5
    interp, jits = run_everywhere(tmp_path, INOUT, {"X": X})
    Y = 2 * X
    Y[2:] *= 2
    np.testing.assert_array_equal(interp["Y"], Y)
    np.testing.assert_array_equal(interp["Z"], X.T)
    for jit in jits:
        np.testing.assert_array_equal(jit["Y"], interp["Y"])
        np.testing.assert_array_equal(jit["Z"], interp["Z"])


def test_kernel_error_is_located(tmp_path):
    """A run-time error in a kernel body names the kernel's op, on both backends."""
    text = """
xcs.kernel @k {function_type = (index, tensor<2xi32>, tensor<2xi32>) -> (), arg_kinds = ["axis", "in", "out"]} {
^bb0(%i: index, %x: tensor<2xi32>, %y: tensor<2xi32>):
  %z = tensor.constant {value = dense<0> : tensor<2xi32>} : tensor<2xi32>
  %0 = tensor.div %x, %z : tensor<2xi32>
  xcs.yield %0 : tensor<2xi32>
}
func.func @main(%x: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %0 = xcs.workload %x : (tensor<2x2xi32>) -> tensor<2x2xi32> {
  ^bb0(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @k[%i](%a[%i], %b[%i]) : tensor<2x2xi32>, tensor<2x2xi32>
    }
  }
  return %0 : tensor<2x2xi32>
}
"""
    prog = tmp_path / "prog.mlir"
    prog.write_text(text)
    for backend in ("interp", "llvm"):
        p = xcs_run(prog, f"--backend={backend}", "--input", "arg0=[[1, 2], [3, 4]]")
        assert p.returncode == 1, (backend, p.stdout, p.stderr)
        assert "prog.mlir:5:8: error: 'tensor.div' op integer division by zero" in p.stderr, (backend, p.stderr)


def test_tiled_matmul_shared_library(tmp_path):
    """Ahead of time: xcs-translate makes a shared library of the workload's function, called
    through its C ABI from Python (ctypes, as `test/Lowering/Inputs/abi_ctypes.py` does)."""
    import subprocess
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Lowering" / "Inputs"))
    from abi_ctypes import Library

    prog = tmp_path / "tiles.mlir"
    prog.write_text(tiled_matmul_program(8, 12, 6, 4, 3))
    lib = tmp_path / "libtiles.so"
    p = subprocess.run(
        [str(XCS_RUN.parent / "xcs-translate"), str(prog), "--emit=shared-lib", "-o", str(lib)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    rng = np.random.default_rng(5)
    A = rng.standard_normal((8, 12)).astype(np.float32)
    Bm = rng.standard_normal((12, 6)).astype(np.float32)
    (C,) = Library(str(lib)).call("main", A, Bm)
    interp = run(tmp_path, tiled_matmul_program(8, 12, 6, 4, 3), {"A": A, "B": Bm}, "interp")["C"]
    bound = 4 * 12 * np.finfo(np.float32).eps * (np.abs(A).astype(np.float64) @ np.abs(Bm)) + 1e-6
    assert (np.abs(C - interp) <= bound).all()


def test_kernel_without_body_is_an_error(tmp_path):
    text = """
xcs.kernel @k {function_type = (tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["in", "out"]}
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %o = xcs.workload %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    xcs.launch @k[](%x, %y) : tensor<4xf32>, tensor<4xf32>
  }
  return %o : tensor<4xf32>
}
"""
    prog = tmp_path / "prog.mlir"
    prog.write_text(text)
    for backend in ("interp", "llvm"):
        p = xcs_run(prog, f"--backend={backend}", "--input", "arg0=[1, 2, 3, 4]")
        assert p.returncode == 1, (backend, p.stdout, p.stderr)
        assert "prog.mlir:6:5: error: 'xcs.launch' op launches @k, a kernel without a body, which cannot run" in p.stderr, (backend, p.stderr)
