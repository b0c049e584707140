// Elementwise consumers of a matmul (bias add, activation, residual add) ride in its
// epilogue: the region starts with the matmul. Producers of a matmul are never fused into it.
// RUN: xcs-opt %s --fuse | FileCheck %s
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(fuse{epilogue=false}))' | FileCheck %s --check-prefix=OFF

// OFF-LABEL: func.func @bias_relu_residual
// OFF-NEXT: %[[M:.*]] = tensor.matmul
// OFF-NEXT: tensor.fused %[[M]], %arg2, %arg3
// OFF-NOT: tensor.matmul
// OFF: return
// CHECK-LABEL: func.func @bias_relu_residual
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0, %arg1, %arg2, %arg3 : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[R:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[A:.*]] = tensor.add %[[M]], %[[B]]
// CHECK-NEXT: %[[U:.*]] = tensor.relu %[[A]]
// CHECK-NEXT: %[[S:.*]] = tensor.add %[[U]], %[[R]]
// CHECK-NEXT: tensor.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @bias_relu_residual(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %r: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tensor.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tensor.relu %1 : tensor<4x8xf32>
  %3 = tensor.add %2, %r : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// An MLP: the first matmul takes bias and gelu, the second its bias; the producer of the
// second matmul (the first region) is not fused into it.
// CHECK-LABEL: func.func @mlp
// CHECK-NEXT: %[[H:.*]] = tensor.fused %arg0, %arg1, %arg2 : (tensor<2x3x8xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<2x3x32xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.matmul
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.gelu
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[O:.*]] = tensor.fused %[[H]], %arg3, %arg4 : (tensor<2x3x32xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.matmul
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[O]]
func.func @mlp(%x: tensor<2x3x8xf32>, %w1: tensor<8x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x8xf32>, %b2: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %0 = tensor.matmul %x, %w1 : (tensor<2x3x8xf32>, tensor<8x32xf32>) -> tensor<2x3x32xf32>
  %1 = tensor.add %0, %b1 : (tensor<2x3x32xf32>, tensor<32xf32>) -> tensor<2x3x32xf32>
  %2 = tensor.gelu %1 {approximate = "tanh"} : tensor<2x3x32xf32>
  %3 = tensor.matmul %2, %w2 : (tensor<2x3x32xf32>, tensor<32x8xf32>) -> tensor<2x3x8xf32>
  %4 = tensor.add %3, %b2 : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %4 : tensor<2x3x8xf32>
}

// A prologue (scaling an operand) stays outside; a matmul whose result is also used after
// the region is a region output.
// CHECK-LABEL: func.func @prologue_and_output
// CHECK-NEXT: %[[P:.*]] = tensor.fused %arg0 : tensor<4x4xi32> {
// CHECK-NOT: tensor.matmul
// CHECK: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[F:.*]]:2 = tensor.fused %[[P]], %arg1, %arg0 : tensor<4x4xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: %[[M:.*]] = tensor.matmul
// CHECK-NEXT: tensor.max %[[M]]
// CHECK-NEXT: %[[A:.*]] = tensor.abs
// CHECK-NEXT: tensor.yield %[[M]], %[[A]] : tensor<4x4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]#1, %[[F]]#0
func.func @prologue_and_output(%x: tensor<4x4xi32>, %w: tensor<4x4xi32>) -> (tensor<4x4xi32>, tensor<4x4xi32>) {
  %0 = tensor.mul %x, %x : tensor<4x4xi32>
  %1 = tensor.neg %0 : tensor<4x4xi32>
  %2 = tensor.matmul %1, %w : tensor<4x4xi32>
  %3 = tensor.max %2, %x : tensor<4x4xi32>
  %4 = tensor.abs %3 : tensor<4x4xi32>
  return %4, %2 : tensor<4x4xi32>, tensor<4x4xi32>
}

// The epilogue must have the matmul's shape: a consumer that broadcasts the matmul result to
// a bigger shape is not an epilogue.
// CHECK-LABEL: func.func @broadcast_consumer
// CHECK-NEXT: %[[M:.*]] = tensor.matmul
// CHECK-NEXT: tensor.fused %[[M]], %arg2 : (tensor<4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
// CHECK-NOT: tensor.matmul
// CHECK: return
func.func @broadcast_consumer(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %y: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = tensor.matmul %x, %w : tensor<4x4xf32>
  %1 = tensor.add %0, %y : (tensor<4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %2 = tensor.relu %1 : tensor<2x4x4xf32>
  return %2 : tensor<2x4x4xf32>
}

// A lone matmul, and a matmul feeding another matmul, make no region.
// CHECK-LABEL: func.func @matmul_only
// CHECK-NEXT: tensor.matmul
// CHECK-NEXT: tensor.matmul
// CHECK-NEXT: return
func.func @matmul_only(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tensor.matmul %x, %w : tensor<4x4xf32>
  %1 = tensor.matmul %0, %w : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
