// Regression (found by the differential pass fuzzer): a matmul epilogue region whose matmul
// reads one region argument twice (`matmul %a, %a`) made the JIT lose a value of the function
// with the same number as that argument: the returned `%arg0` came back as the matmul's input.
// The region's values are now put back in reverse order after the matmul is planned.
// RUN: xcs-run %s --input arg0=0.5 --input arg1='[[1.0, 2.0], [3.0, 4.0]]' | FileCheck %s
// RUN: xcs-run %s --interp --input arg0=0.5 --input arg1='[[1.0, 2.0], [3.0, 4.0]]' | FileCheck %s

// CHECK:      result0: tensor<f32>
// CHECK-NEXT: 0.5
// CHECK-NEXT: result1: tensor<2x2xf32>
// CHECK-NEXT: {{\[\[}} 7. 10.]
// CHECK-NEXT:  [15. 22.]]
func.func @main(%arg0: tensor<f32>, %x: tensor<2x2xf32>) -> (tensor<f32>, tensor<2x2xf32>) {
  %m = tensor.fused %x : tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %p = tensor.matmul %a, %a : tensor<2x2xf32>
    %r = tensor.relu %p : tensor<2x2xf32>
    tensor.yield %r : tensor<2x2xf32>
  }
  return %arg0, %m : tensor<f32>, tensor<2x2xf32>
}
