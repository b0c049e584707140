// A run-time error is reported at the failing op, with the call that led there.
// RUN: not xcs-run %s --interp --input arg0='[4, 2]' --input arg1='[2, 0]' 2>&1 | FileCheck %s

// CHECK:      errors.mlir:[[# @LINE + 4]]:8: error: 'tensor.div' op integer division by zero
// CHECK-NEXT:   %q = tensor.div %a, %b : tensor<2xi32>
// CHECK-NEXT:        ^
func.func @divide(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %q = tensor.div %a, %b : tensor<2xi32>
  return %q : tensor<2xi32>
}

// CHECK:      errors.mlir:[[# @LINE + 2]]:8: note: called from here (@divide)
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %r = call @divide(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
