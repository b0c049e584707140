// Elementwise chains (with broadcasts, casts, cmp, select and small constants) become one
// tensor.fused region each.
// RUN: xcs-opt %s --fuse | FileCheck %s
// The pass is idempotent: a second run changes nothing.
// RUN: xcs-opt %s --fuse | xcs-opt --fuse | FileCheck %s

// A chain: every op in one region, inputs in first-use order.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0, %arg1, %arg2 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[A:.*]] = tensor.add %[[X]], %[[Y]]
// CHECK-NEXT: %[[M:.*]] = tensor.mul %[[A]], %[[B]]
// CHECK-NEXT: %[[E:.*]] = tensor.exp %[[M]]
// CHECK-NEXT: tensor.yield %[[E]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.add %x, %y : tensor<4x8xf32>
  %1 = tensor.mul %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tensor.exp %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// broadcast_to, cast, cmp and select; a splat constant is copied into the region and the
// original, now unused, is erased.
// CHECK-LABEL: func.func @cmp_select_cast
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg1, %arg2, %arg0
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: %[[Z:.*]] = tensor.constant {value = dense<0.000000e+00> : tensor<4x8xf32>}
// CHECK-NEXT: tensor.broadcast_to
// CHECK-NEXT: tensor.cast
// CHECK-NEXT: tensor.add
// CHECK-NEXT: %[[C:.*]] = tensor.cmp
// CHECK-NEXT: %[[S:.*]] = tensor.select %[[C]], %{{.*}}, %[[Z]]
// CHECK-NEXT: tensor.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @cmp_select_cast(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %i: tensor<4x8xi32>) -> tensor<4x8xf32> {
  %zero = tensor.constant {value = dense<0.0> : tensor<4x8xf32>} : tensor<4x8xf32>
  %bb = tensor.broadcast_to %b : (tensor<8xf32>) -> tensor<4x8xf32>
  %f = tensor.cast %i : (tensor<4x8xi32>) -> tensor<4x8xf32>
  %s = tensor.add %x, %f : tensor<4x8xf32>
  %c = tensor.cmp %s, %bb {predicate = "gt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %r = tensor.select %c, %s, %zero : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// A constant of more than 64 elements (not a splat) is read as an input.
// CHECK-LABEL: func.func @big_constant
// CHECK-NEXT: %[[C:.*]] = tensor.constant
// CHECK-NEXT: tensor.fused %arg0, %[[C]] : tensor<72xi32> {
// CHECK-NOT: tensor.constant
// CHECK: tensor.yield
func.func @big_constant(%x: tensor<72xi32>) -> tensor<72xi32> {
  %c = tensor.constant {value = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71]> : tensor<72xi32>} : tensor<72xi32>
  %0 = tensor.mul %x, %c : tensor<72xi32>
  %1 = tensor.sub %0, %x : tensor<72xi32>
  return %1 : tensor<72xi32>
}

// A single elementwise op is not worth a region.
// CHECK-LABEL: func.func @single
// CHECK-NEXT: tensor.tanh %arg0
// CHECK-NEXT: return
func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Layout ops are not fused; the chains on each side of the transpose are.
// CHECK-LABEL: func.func @layout_splits
// CHECK-NEXT: %[[F1:.*]] = tensor.fused %arg0 : tensor<4x8xf32> {
// CHECK: tensor.neg
// CHECK-NEXT: tensor.abs
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %[[F1]]
// CHECK-NEXT: %[[F2:.*]] = tensor.fused %[[T]] : tensor<8x4xf32> {
// CHECK: tensor.sqrt
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F2]]
func.func @layout_splits(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = tensor.neg %x : tensor<4x8xf32>
  %1 = tensor.abs %0 : tensor<4x8xf32>
  %2 = tensor.transpose %1 {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %3 = tensor.sqrt %2 : tensor<8x4xf32>
  %4 = tensor.mul %3, %3 : tensor<8x4xf32>
  return %4 : tensor<8x4xf32>
}

// Different iteration spaces: %e ([8], exp: not cheap) feeds two consumers of different shapes
// ([4x8] and [3x8]), which do not share a loop nest. %e is not recomputed per element of
// either; each consumer chain is its own region reading %e.
// CHECK-LABEL: func.func @different_spaces
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<8xf32>
// CHECK-NEXT: %[[U:.*]] = tensor.fused %[[E]], %arg1 : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NOT: tensor.exp
// CHECK: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[W:.*]] = tensor.fused %[[E]], %arg2 : (tensor<8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32> {
// CHECK-NOT: tensor.exp
// CHECK: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[U]], %[[W]]
func.func @different_spaces(%v: tensor<8xf32>, %p: tensor<4x8xf32>, %q: tensor<3x8xf32>) -> (tensor<4x8xf32>, tensor<3x8xf32>) {
  %e = tensor.exp %v : tensor<8xf32>
  %u = tensor.add %e, %p : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %u2 = tensor.relu %u : tensor<4x8xf32>
  %w = tensor.add %e, %q : (tensor<8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  %w2 = tensor.relu %w : tensor<3x8xf32>
  return %u2, %w2 : tensor<4x8xf32>, tensor<3x8xf32>
}

// A cheap producer of a smaller shape is broadcast inside the region (recomputed per element).
// CHECK-LABEL: func.func @broadcast_producer
// CHECK-NEXT: tensor.fused %arg0, %arg1 : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.mul %{{.*}} : tensor<8xf32>
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.relu
// CHECK-NEXT: tensor.yield
func.func @broadcast_producer(%b: tensor<8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.mul %b, %b : tensor<8xf32>
  %1 = tensor.add %x, %0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tensor.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// Integer chains fuse too; dynamic dims compare as written.
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: tensor.fused %arg0, %arg1 : tensor<?x8xi32> {
// CHECK: tensor.add
// CHECK-NEXT: tensor.max
// CHECK-NEXT: tensor.yield
func.func @dynamic(%x: tensor<?x8xi32>, %y: tensor<?x8xi32>) -> tensor<?x8xi32> {
  %0 = tensor.add %x, %y : tensor<?x8xi32>
  %1 = tensor.max %0, %x : tensor<?x8xi32>
  return %1 : tensor<?x8xi32>
}
