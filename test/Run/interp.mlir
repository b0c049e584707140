// xcs-run on the reference interpreter: inputs by xcs.name or position, printed results.
// RUN: xcs-run %s --interp --input x='[1.0, -2.0, 3.0]' --input arg1=0.5 | FileCheck %s
// RUN: xcs-run %s --backend=interp --input 0=1 --input 1=random:7 | FileCheck %s --check-prefix=SEED
// RUN: not xcs-run %s --input x=1 --input arg1=2 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: not xcs-run %s --interp --input x=1 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK:      sum: tensor<3xf32>
// CHECK-NEXT: [ 1.5 -1.5  3.5]
// CHECK-NEXT: result1: !xcs.str
// CHECK-NEXT: x * 2 = [ 2. -4.  6.]
// SEED:       sum: tensor<3xf32>
// JIT:        interp.mlir:[[# @LINE + 3]]:1: error: @main: type '!xcs.str' is not supported by the LLVM backend (run it on the reference interpreter with --backend=interp)
// MISSING:    error: missing input for argument arg1: tensor<f32>

func.func @main(%x: tensor<3xf32> {xcs.name = "x"}, %b: tensor<f32>) -> (tensor<3xf32> {xcs.name = "sum"}, !xcs.str) {
  %s = tensor.add %x, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %d = tensor.add %x, %x : tensor<3xf32>
  %t = xcs.format %d {template = "x * 2 = {}"} : (tensor<3xf32>) -> !xcs.str
  return %s, %t : tensor<3xf32>, !xcs.str
}
