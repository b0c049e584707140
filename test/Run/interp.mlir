// xcs-run on the reference interpreter: inputs by xcs.name or position, printed results.
// RUN: xcs-run %s --interp --input x='[1.0, -2.0, 3.0]' --input arg1=0.5 | FileCheck %s
// Inputs by position; random:SEED values are deterministic (pinned here: a change of the
// generator changes every seeded test input).
// RUN: xcs-run %s --backend=interp --input 0=random:7 --input 1=1 | FileCheck %s --check-prefix=SEED
// RUN: not xcs-run %s --input x=1 --input arg1=2 2>&1 | FileCheck %s --check-prefix=JIT
// RUN: not xcs-run %s --interp --input x=1 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK:      sum: tensor<3xf32>
// CHECK-NEXT: [ 1.5 -1.5  3.5]
// CHECK-NEXT: result1: !xcs.str
// CHECK-NEXT: x * 2 = [ 2. -4.  6.]
// SEED:       sum: tensor<3xf32>
// SEED-NEXT:  [0.7796594  0.03357649 1.8015213 ]
// SEED-NEXT:  result1: !xcs.str
// SEED-NEXT:  x * 2 = [-0.44068122 -1.932847    1.6030426 ]
// JIT:        interp.mlir:[[# @LINE + 3]]:1: error: @main: type '!xcs.str' is not supported by the LLVM backend (run it on the reference interpreter with --backend=interp)
// MISSING:    error: missing input for argument arg1: tensor<f32>

func.func @main(%x: tensor<3xf32> {xcs.name = "x"}, %b: tensor<f32>) -> (tensor<3xf32> {xcs.name = "sum"}, !xcs.str) {
  %s = tensor.add %x, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %d = tensor.add %x, %x : tensor<3xf32>
  %t = xcs.format %d {template = "x * 2 = {}"} : (tensor<3xf32>) -> !xcs.str
  return %s, %t : tensor<3xf32>, !xcs.str
}
