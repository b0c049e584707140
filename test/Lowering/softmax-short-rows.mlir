// Regression (found by the differential pass fuzzer, tools/tests/pass_fuzz.rs): a softmax of
// short rows after a GELU in one fused kernel never finished on the JIT. Its max pass used
// `llvm.maxnum`, which LLVM 22 vectorizes with an exit on NaN; with the tail of a 3-, 5- or
// 8-element row folded into masked lanes, the vector loop lost its exit on the trip count. The
// max pass now uses `llvm.maximum`. `timeout` turns a hang into a failure; the results must
// match the interpreter's (f32 tolerance; f16 within an ulp).
// RUN: rm -rf %t && mkdir -p %t/jit %t/interp
// RUN: timeout 120 xcs-run %s --entry f32_8 --input 0=random:1 --output-dir %t/jit > /dev/null
// RUN: xcs-run %s --entry f32_8 --interp --input 0=random:1 --output-dir %t/interp > /dev/null
// RUN: timeout 120 xcs-run %s --entry f64_to_f16_3 --input 0=random:2 --output-dir %t/jit > /dev/null
// RUN: xcs-run %s --entry f64_to_f16_3 --interp --input 0=random:2 --output-dir %t/interp > /dev/null
// RUN: timeout 120 xcs-run %s --entry f16_5 --input 0=random:3 --output-dir %t/jit > /dev/null
// RUN: xcs-run %s --entry f16_5 --interp --input 0=random:3 --output-dir %t/interp > /dev/null
// RUN: %python -c "import numpy as n, sys; [n.testing.assert_allclose(n.load(sys.argv[1] + '/' + f).astype(n.float64), n.load(sys.argv[2] + '/' + f), rtol=r, atol=1e-7) for f, r in [('p.npy', 1e-5), ('h.npy', 1e-3), ('q.npy', 1e-3)]]" %t/jit %t/interp

func.func @f32_8(%x: tensor<4x8xf32>) -> (tensor<4x8xf32> {xcs.name = "p"}) {
  %0 = tensor.fused %x : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %g = tensor.gelu %a {approximate = "none"} : tensor<4x8xf32>
    %s = tensor.softmax %g {axis = -1 : i64} : tensor<4x8xf32>
    tensor.yield %s : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

func.func @f64_to_f16_3(%x: tensor<4x3x3xf64>) -> (tensor<4x3x3xf16> {xcs.name = "h"}) {
  %0 = tensor.fused %x : (tensor<4x3x3xf64>) -> tensor<4x3x3xf16> {
  ^bb0(%a: tensor<4x3x3xf64>):
    %c = tensor.cast %a : (tensor<4x3x3xf64>) -> tensor<4x3x3xf16>
    %g = tensor.gelu %c {approximate = "none"} : tensor<4x3x3xf16>
    %s = tensor.softmax %g {axis = -1 : i64} : tensor<4x3x3xf16>
    tensor.yield %s : tensor<4x3x3xf16>
  }
  return %0 : tensor<4x3x3xf16>
}

func.func @f16_5(%x: tensor<5xf16>) -> (tensor<5xf16> {xcs.name = "q"}) {
  %0 = tensor.fused %x : (tensor<5xf16>) -> tensor<5xf16> {
  ^bb0(%a: tensor<5xf16>):
    %g = tensor.gelu %a {approximate = "none"} : tensor<5xf16>
    %s = tensor.softmax %g {axis = -1 : i64} : tensor<5xf16>
    tensor.yield %s : tensor<5xf16>
  }
  return %0 : tensor<5xf16>
}
