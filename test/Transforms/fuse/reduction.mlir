// Elementwise producers fuse into reduce, softmax and layer_norm: the region ends in the
// reduction, whose result is the region's only result.
// RUN: xcs-opt %s --fuse | FileCheck %s
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(fuse{reductions=false}))' | FileCheck %s --check-prefix=OFF

// OFF-LABEL: func.func @reduce
// OFF-NEXT: %[[F:.*]] = tensor.fused
// OFF-NOT: tensor.reduce
// OFF: tensor.yield
// OFF-NEXT: }
// OFF-NEXT: tensor.reduce %[[F]]
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0, %arg1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.constant
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.sub
// CHECK-NEXT: tensor.exp
// CHECK-NEXT: %[[R:.*]] = tensor.reduce
// CHECK-NEXT: tensor.yield %[[R]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @reduce(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = tensor.constant {value = dense<2.0> : tensor<4x8xf32>} : tensor<4x8xf32>
  %0 = tensor.mul %x, %c : tensor<4x8xf32>
  %1 = tensor.sub %0, %y : tensor<4x8xf32>
  %2 = tensor.exp %1 : tensor<4x8xf32>
  %3 = tensor.reduce %2 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// The scaled scores of attention: softmax(x * scale + mask).
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0, %arg1 : (tensor<2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.constant
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.add
// CHECK-NEXT: %[[S:.*]] = tensor.softmax
// CHECK-NEXT: tensor.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @softmax(%x: tensor<2x4x4xf32>, %mask: tensor<4x4xf32>) -> tensor<2x4x4xf32> {
  %s = tensor.constant {value = dense<0.125> : tensor<2x4x4xf32>} : tensor<2x4x4xf32>
  %0 = tensor.mul %x, %s : tensor<2x4x4xf32>
  %1 = tensor.add %0, %mask : (tensor<2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32>
  %2 = tensor.softmax %1 {axis = -1 : i64} : tensor<2x4x4xf32>
  return %2 : tensor<2x4x4xf32>
}

// layer_norm of a residual add.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0, %arg1, %arg2, %arg3
// CHECK-NEXT: ^bb0(%{{.*}}, %{{.*}}, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[A:.*]] = tensor.add
// CHECK-NEXT: %[[L:.*]] = tensor.layer_norm %[[A]], %[[G]], %[[B]]
// CHECK-NEXT: tensor.yield %[[L]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @layer_norm(%x: tensor<4x8xf32>, %r: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.add %x, %r : tensor<4x8xf32>
  %1 = tensor.layer_norm %0, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// The reduced result's consumers are not fused into the reduction (another iteration space);
// they form their own region.
// CHECK-LABEL: func.func @consumer_not_fused
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0 : (tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK: tensor.abs
// CHECK-NEXT: tensor.reduce
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]] = tensor.fused %[[F]] : tensor<4xf32> {
// CHECK: tensor.sqrt
// CHECK-NEXT: tensor.neg
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @consumer_not_fused(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tensor.abs %x : tensor<4x8xf32>
  %1 = tensor.reduce %0 {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<4x8xf32>) -> tensor<4xf32>
  %2 = tensor.sqrt %1 : tensor<4xf32>
  %3 = tensor.neg %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// An expensive producer (exp) with a user outside the reduction is not fused into it (a
// reduction region has one result); it stays the result of its own region, which both read.
// CHECK-LABEL: func.func @expensive_multi_user
// CHECK-NEXT: %[[E:.*]] = tensor.fused %arg0 : tensor<4x8xf32> {
// CHECK: tensor.neg
// CHECK-NEXT: %[[X:.*]] = tensor.exp
// CHECK-NEXT: tensor.yield %[[X]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = tensor.reduce %[[E]]
// CHECK-NEXT: %[[M:.*]] = tensor.mul %[[E]], %arg0
// CHECK-NEXT: return %[[R]], %[[M]]
func.func @expensive_multi_user(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %0 = tensor.neg %x : tensor<4x8xf32>
  %1 = tensor.exp %0 : tensor<4x8xf32>
  %2 = tensor.reduce %1 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  %3 = tensor.mul %1, %x : tensor<4x8xf32>
  return %2, %3 : tensor<4xf32>, tensor<4x8xf32>
}

// A cheap producer whose other user fuses too is recomputed inside the reduction and in the
// other region, and the original is erased.
// CHECK-LABEL: func.func @cheap_multi_user
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0 : (tensor<4x8xi32>) -> tensor<4xi32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xi32>):
// CHECK-NEXT: %[[A2:.*]] = tensor.add %[[X]], %[[X]]
// CHECK-NEXT: tensor.reduce %[[A2]]
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]] = tensor.fused %arg0 : tensor<4x8xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]], %[[G]]
func.func @cheap_multi_user(%x: tensor<4x8xi32>) -> (tensor<4xi32>, tensor<4x8xi32>) {
  %0 = tensor.add %x, %x : tensor<4x8xi32>
  %1 = tensor.reduce %0 {axes = array<i64: 1>, keepdims = false, kind = "prod"} : (tensor<4x8xi32>) -> tensor<4xi32>
  %2 = tensor.mul %0, %x : tensor<4x8xi32>
  return %1, %2 : tensor<4xi32>, tensor<4x8xi32>
}

// A cheap producer that is also returned is materialized anyway: the reduction reads it
// instead of recomputing it.
// CHECK-LABEL: func.func @cheap_but_returned
// CHECK-NEXT: %[[A:.*]] = tensor.add %arg0, %arg0
// CHECK-NEXT: %[[R:.*]] = tensor.reduce %[[A]]
// CHECK-NEXT: return %[[R]], %[[A]]
func.func @cheap_but_returned(%x: tensor<4x8xi32>) -> (tensor<4xi32>, tensor<4x8xi32>) {
  %0 = tensor.add %x, %x : tensor<4x8xi32>
  %1 = tensor.reduce %0 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xi32>) -> tensor<4xi32>
  return %1, %0 : tensor<4xi32>, tensor<4x8xi32>
}
