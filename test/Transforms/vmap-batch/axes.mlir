// in_axes and out_axes: a batched operand's batch dim is moved to the front by a transpose
// (in_axes = k != 0), results get it moved from the front to out_axes = k; -1 operands are used
// unbatched, -1 results must not depend on the batch; an unbatched value yielded with a batch
// axis is broadcast. Negative axes count from the end (but -1 means "not batched").
// RUN: xcs-opt %s --vmap-batch | FileCheck %s

// CHECK-LABEL: func.func @in_axis_1
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<4x7xf32>) -> tensor<7x4xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.softmax %[[T]] {axis = 1 : i64} : tensor<7x4xf32>
// CHECK-NEXT: return %[[S]] : tensor<7x4xf32>
func.func @in_axis_1(%x: tensor<4x7xf32>) -> tensor<7x4xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 1>, out_axes = array<i64: 0>} : (tensor<4x7xf32>) -> tensor<7x4xf32> {
  ^bb0(%e: tensor<4xf32>):
    %s = tensor.softmax %e {axis = 0 : i64} : tensor<4xf32>
    xcs.yield %s : tensor<4xf32>
  }
  return %r : tensor<7x4xf32>
}

// in_axes = 2 of a rank-3 operand, out_axes = 1 of a rank-3 result.
// CHECK-LABEL: func.func @axes_3d
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x5xf32>) -> tensor<5x2x3xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.exp %[[T]] : tensor<5x2x3xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.transpose %[[E]] {perm = array<i64: 1, 0, 2>} : (tensor<5x2x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT: return %[[O]]
func.func @axes_3d(%x: tensor<2x3x5xf32>) -> tensor<2x5x3xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 2>, out_axes = array<i64: 1>} : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32> {
  ^bb0(%e: tensor<2x3xf32>):
    %s = tensor.exp %e : tensor<2x3xf32>
    xcs.yield %s : tensor<2x3xf32>
  }
  return %r : tensor<2x5x3xf32>
}

// Negative axes: in_axes = -2 of a rank-2 operand is dim 0; out_axes = -2 of a rank-3 result
// is dim 1.
// CHECK-LABEL: func.func @negative_axes
// CHECK-NEXT: %[[A:.*]] = tensor.abs %arg0 : tensor<6x2x4xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.transpose %[[A]] {perm = array<i64: 1, 0, 2>} : (tensor<6x2x4xf32>) -> tensor<2x6x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @negative_axes(%x: tensor<6x2x4xf32>) -> tensor<2x6x4xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: -3>, out_axes = array<i64: -2>} : (tensor<6x2x4xf32>) -> tensor<2x6x4xf32> {
  ^bb0(%e: tensor<2x4xf32>):
    %s = tensor.abs %e : tensor<2x4xf32>
    xcs.yield %s : tensor<2x4xf32>
  }
  return %r : tensor<2x6x4xf32>
}

// Two batched operands at different axes and a shared one; results at axes 0 and 1, and a
// batch-invariant result (out_axes = -1) computed once.
// CHECK-LABEL: func.func @several
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg1 {perm = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.mul %arg2, %arg2 : tensor<3xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.add %arg0, %[[T]] : tensor<5x3xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.sub %[[A]], %[[S]] : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.transpose %[[B]] {perm = array<i64: 1, 0>} : (tensor<5x3xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %[[A]], %[[O]], %[[S]] : tensor<5x3xf32>, tensor<3x5xf32>, tensor<3xf32>
func.func @several(%x: tensor<5x3xf32>, %y: tensor<3x5xf32>, %w: tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3x5xf32>, tensor<3xf32>) {
  %r:3 = xcs.vmap %x, %y, %w {in_axes = array<i64: 0, 1, -1>, out_axes = array<i64: 0, 1, -1>} : (tensor<5x3xf32>, tensor<3x5xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3x5xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>):
    %sq = tensor.mul %c, %c : tensor<3xf32>
    %0 = tensor.add %a, %b : tensor<3xf32>
    %1 = tensor.sub %0, %sq : tensor<3xf32>
    xcs.yield %0, %1, %sq : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  }
  return %r#0, %r#1, %r#2 : tensor<5x3xf32>, tensor<3x5xf32>, tensor<3xf32>
}

// Yielding the block argument itself moves the batch axis (a transpose, or nothing); yielding
// an unbatched value with a batch axis broadcasts it (then moves the axis); yielding a -1
// operand with out_axes = -1 is the operand.
// CHECK-LABEL: func.func @identity
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<4x3xi32>) -> tensor<3x4xi32>
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast_to %arg1 : (tensor<2xi32>) -> tensor<4x2xi32>
// CHECK-NEXT: %[[BT:.*]] = tensor.transpose %[[B]] {perm = array<i64: 1, 0>} : (tensor<4x2xi32>) -> tensor<2x4xi32>
// CHECK-NEXT: return %arg0, %[[T]], %[[BT]], %arg1 : tensor<4x3xi32>, tensor<3x4xi32>, tensor<2x4xi32>, tensor<2xi32>
func.func @identity(%x: tensor<4x3xi32>, %w: tensor<2xi32>) -> (tensor<4x3xi32>, tensor<3x4xi32>, tensor<2x4xi32>, tensor<2xi32>) {
  %r:4 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 1, 1, -1>} : (tensor<4x3xi32>, tensor<2xi32>) -> (tensor<4x3xi32>, tensor<3x4xi32>, tensor<2x4xi32>, tensor<2xi32>) {
  ^bb0(%a: tensor<3xi32>, %c: tensor<2xi32>):
    xcs.yield %a, %a, %c, %c : (tensor<3xi32>, tensor<3xi32>, tensor<2xi32>, tensor<2xi32>) -> ()
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x3xi32>, tensor<3x4xi32>, tensor<2x4xi32>, tensor<2xi32>
}

// Rank-0 elements: a batch of scalars is a vector.
// CHECK-LABEL: func.func @scalars
// CHECK-NEXT: %[[M:.*]] = tensor.mul %arg0, %arg0 : tensor<8xf64>
// CHECK-NEXT: return %[[M]] : tensor<8xf64>
func.func @scalars(%x: tensor<8xf64>) -> tensor<8xf64> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<8xf64>) -> tensor<8xf64> {
  ^bb0(%e: tensor<f64>):
    %s = tensor.mul %e, %e : tensor<f64>
    xcs.yield %s : tensor<f64>
  }
  return %r : tensor<8xf64>
}

// A dynamic batch size: the batch dim is `?` throughout. The interpreter checks the sizes.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NEXT: %[[C:.*]] = tensor.cast %arg0 : (tensor<6x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %[[C]] {perm = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
// CHECK-NEXT: %[[TT:.*]] = tensor.transpose %[[T]] {perm = array<i64: 1, 0>} : (tensor<4x?xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %[[TT]] : (tensor<?x4xf32>) -> tensor<?x1x4xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %[[R]], %arg1 : (tensor<?x1x4xf32>, tensor<4x3xf32>) -> tensor<?x1x3xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.reshape %[[M]] : (tensor<?x1x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %[[OT:.*]] = tensor.transpose %[[O]] {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
// CHECK-NEXT: %[[OC:.*]] = tensor.cast %[[OT]] : (tensor<3x?xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: return %[[OC]] : tensor<3x6xf32>
func.func @dynamic_batch(%x0: tensor<6x4xf32>, %w: tensor<4x3xf32>) -> tensor<3x6xf32> {
  %x = tensor.cast %x0 : (tensor<6x4xf32>) -> tensor<?x4xf32>
  %xt = tensor.transpose %x {perm = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %r = xcs.vmap %xt, %w {in_axes = array<i64: 1, -1>, out_axes = array<i64: 1>} : (tensor<4x?xf32>, tensor<4x3xf32>) -> tensor<3x?xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<4x3xf32>):
    %row = tensor.reshape %e : (tensor<4xf32>) -> tensor<1x4xf32>
    %m = tensor.matmul %row, %v : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
    %o = tensor.reshape %m : (tensor<1x3xf32>) -> tensor<3xf32>
    xcs.yield %o : tensor<3xf32>
  }
  %rc = tensor.cast %r : (tensor<3x?xf32>) -> tensor<3x6xf32>
  return %rc : tensor<3x6xf32>
}

// A result type that is less static than the batched value's gets a tensor.cast.
// CHECK-LABEL: func.func @result_cast
// CHECK-NEXT: %[[N:.*]] = tensor.neg %arg0 : tensor<2x5xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[N]] : (tensor<2x5xf32>) -> tensor<?x5xf32>
// CHECK-NEXT: return %[[C]] : tensor<?x5xf32>
func.func @result_cast(%x: tensor<2x5xf32>) -> tensor<?x5xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x5xf32>) -> tensor<?x5xf32> {
  ^bb0(%e: tensor<5xf32>):
    %s = tensor.neg %e : tensor<5xf32>
    xcs.yield %s : tensor<5xf32>
  }
  return %r : tensor<?x5xf32>
}
