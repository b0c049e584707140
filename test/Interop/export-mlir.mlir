// xcs-translate --emit=mlir writes the tensor program as upstream MLIR (func, linalg named and
// generic ops, tensor, arith, math), verified by MLIR through melior; MLIR's own mlir-opt takes
// it back and lowers it with upstream's pipeline. xcs-run --backend=mlir runs it on MLIR's
// ExecutionEngine with the same results as the LLVM JIT and the interpreter.
// RUN: xcs-translate %s --emit=mlir -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt %t.mlir --verify-diagnostics > /dev/null
// RUN: mlir-opt %t.mlir --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries},convert-linalg-to-loops)' > /dev/null
// RUN: xcs-run %s --backend=mlir --input x='[[1.0, -2.0], [0.5, 3.0]]' --input w='[[1.0, 0.0, 2.0], [-1.0, 1.0, 0.5]]' | FileCheck %s --check-prefix=EXEC
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: xcs-run %s --backend=mlir --input x=random:1 --input w=random:2 --output-dir %t.d/mlir
// RUN: xcs-run %s --input x=random:1 --input w=random:2 --output-dir %t.d/llvm
// RUN: xcs-run %s --backend=interp --input x=random:1 --input w=random:2 --output-dir %t.d/interp
// RUN: %python %S/../Run/Inputs/compare_npy.py %t.d/interp %t.d/mlir %t.d/llvm | FileCheck %s --check-prefix=SAME
// RUN: xcs-run %s --backend=mlir --bench 2 --input x=random:1 --input w=random:2 | FileCheck %s --check-prefix=BENCH
// RUN: not xcs-translate %S/Inputs/not-covered.mlir --emit=mlir -o %t.bad 2>&1 | FileCheck %s --check-prefix=UNCOVERED
// RUN: not xcs-run %S/Inputs/not-covered.mlir --backend=mlir --input 0=random:1 2>&1 | FileCheck %s --check-prefix=BACKEND-ERR

// CHECK-LABEL: func.func @main
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.transpose
// CHECK: arith.maximumf
// CHECK: return
// x @ w = [[3, -2, 1], [-2.5, 3, 2.5]]; tanh, transposed, minus each row's max:
// EXEC:      result0: tensor<3x2xf32>
// EXEC-NEXT: {{\[\[}} 0. -1.98{{[0-9]+}} ]
// EXEC-NEXT: [-1.95{{[0-9]+}} 0. ]
// EXEC-NEXT: [-0.22{{[0-9]+}} 0. ]]
// SAME: mlir result0.npy: {{equal|close}}
// SAME: llvm result0.npy: {{equal|close}}
// BENCH: bench: entry=main backend=mlir threads={{[0-9]+}} calls=2 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}} compile_ms={{[0-9.]+}}
// UNCOVERED: not-covered.mlir:4:8: error: 'xcs.str_const' op is not covered by the MLIR export
// BACKEND-ERR: not-covered.mlir:4:8: error: 'xcs.str_const' op is not covered by the MLIR export
func.func @main(%x: tensor<2x2xf32> {xcs.name = "x"}, %w: tensor<2x3xf32> {xcs.name = "w"}) -> tensor<3x2xf32> {
  %m = tensor.matmul %x, %w : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = tensor.tanh %m : tensor<2x3xf32>
  %p = tensor.transpose %t {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = tensor.reduce %p {axes = array<i64: 1>, keepdims = true, kind = "max"} : (tensor<3x2xf32>) -> tensor<3x1xf32>
  %s = tensor.sub %p, %r : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}
