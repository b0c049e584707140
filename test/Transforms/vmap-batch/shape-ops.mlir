// Shape ops: transpose (perm [0, p+1...]), reshape and broadcast_to (the batch dim prepended to
// the result type; a lower-rank operand of broadcast_to is padded first), slice (the whole batch
// dim), concat (axis + 1; an unbatched operand is broadcast to the batch), gather (three cases).
// RUN: xcs-opt %s --vmap-batch | FileCheck %s

// CHECK-LABEL: func.func @transpose_reshape
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %[[T]] : (tensor<2x5x3x4xf32>) -> tensor<2x60xf32>
// CHECK-NEXT: %[[R2:.*]] = tensor.reshape %[[R]] : (tensor<2x60xf32>) -> tensor<2x6x10xf32>
// CHECK-NEXT: return %[[R2]]
func.func @transpose_reshape(%x: tensor<2x3x4x5xf32>) -> tensor<2x6x10xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3x4x5xf32>) -> tensor<2x6x10xf32> {
  ^bb0(%a: tensor<3x4x5xf32>):
    %0 = tensor.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<3x4x5xf32>) -> tensor<5x3x4xf32>
    %1 = tensor.reshape %0 : (tensor<5x3x4xf32>) -> tensor<60xf32>
    %2 = tensor.reshape %1 : (tensor<60xf32>) -> tensor<6x10xf32>
    xcs.yield %2 : tensor<6x10xf32>
  }
  return %r : tensor<2x6x10xf32>
}

// broadcast_to a higher rank: the batched [B,3] becomes [B,1,3] first.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg0 : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast_to %[[R]] : (tensor<4x1x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.broadcast_to %arg1 : (tensor<4x1xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: return %[[B]], %[[C]]
func.func @broadcast(%x: tensor<4x3xf32>, %y: tensor<4x1xf32>) -> (tensor<4x2x3xf32>, tensor<4x5xf32>) {
  %r:2 = xcs.vmap %x, %y {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0, 0>} : (tensor<4x3xf32>, tensor<4x1xf32>) -> (tensor<4x2x3xf32>, tensor<4x5xf32>) {
  ^bb0(%a: tensor<3xf32>, %b: tensor<1xf32>):
    %0 = tensor.broadcast_to %a : (tensor<3xf32>) -> tensor<2x3xf32>
    %1 = tensor.broadcast_to %b : (tensor<1xf32>) -> tensor<5xf32>
    xcs.yield %0, %1 : (tensor<2x3xf32>, tensor<5xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<4x2x3xf32>, tensor<4x5xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK-NEXT: %[[S:.*]] = tensor.slice %arg0 {limit = array<i64: 3, 5, 4>, start = array<i64: 0, 1, 0>, stride = array<i64: 1, 2, 3>} : (tensor<3x6x4xi32>) -> tensor<3x2x2xi32>
func.func @slice(%x: tensor<3x6x4xi32>) -> tensor<3x2x2xi32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x6x4xi32>) -> tensor<3x2x2xi32> {
  ^bb0(%a: tensor<6x4xi32>):
    %0 = tensor.slice %a {start = array<i64: 1, 0>, limit = array<i64: 5, 4>, stride = array<i64: 2, 3>} : (tensor<6x4xi32>) -> tensor<2x2xi32>
    xcs.yield %0 : tensor<2x2xi32>
  }
  return %r : tensor<3x2x2xi32>
}

// concat of two batched values and an unbatched one (broadcast to the batch).
// CHECK-LABEL: func.func @concat
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast_to %arg1 : (tensor<1x3xf32>) -> tensor<2x1x3xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.concat %arg0, %[[B]], %arg0 {axis = 1 : i64} : (tensor<2x2x3xf32>, tensor<2x1x3xf32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.concat %arg0, %arg0 {axis = 2 : i64} : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x6xf32>
func.func @concat(%x: tensor<2x2x3xf32>, %w: tensor<1x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x2x6xf32>) {
  %r:2 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 0>} : (tensor<2x2x3xf32>, tensor<1x3xf32>) -> (tensor<2x5x3xf32>, tensor<2x2x6xf32>) {
  ^bb0(%a: tensor<2x3xf32>, %c: tensor<1x3xf32>):
    %0 = tensor.concat %a, %c, %a {axis = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    %1 = tensor.concat %a, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
    xcs.yield %0, %1 : (tensor<5x3xf32>, tensor<2x6xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<2x5x3xf32>, tensor<2x2x6xf32>
}

// gather from a batched table with shared indices: the axis shifts.
// CHECK-LABEL: func.func @gather_table
// CHECK-NEXT: %[[G:.*]] = tensor.gather %arg0, %arg1 {axis = 2 : i64} : (tensor<3x2x4xf32>, tensor<5xi32>) -> tensor<3x2x5xf32>
func.func @gather_table(%t: tensor<3x2x4xf32>, %i: tensor<5xi32>) -> tensor<3x2x5xf32> {
  %r = xcs.vmap %t, %i {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<3x2x4xf32>, tensor<5xi32>) -> tensor<3x2x5xf32> {
  ^bb0(%a: tensor<2x4xf32>, %j: tensor<5xi32>):
    %0 = tensor.gather %a, %j {axis = 1 : i64} : (tensor<2x4xf32>, tensor<5xi32>) -> tensor<2x5xf32>
    xcs.yield %0 : tensor<2x5xf32>
  }
  return %r : tensor<3x2x5xf32>
}

// gather from a shared table with batched indices: one gather, then the batch dim (at the
// gathered axis) to the front. The indices are clamped into range by the program.
// CHECK-LABEL: func.func @gather_indices
// CHECK: %[[G:.*]] = tensor.gather %arg0, %{{.*}} {axis = 1 : i64} : (tensor<2x4xf32>, tensor<6x3xi32>) -> tensor<2x6x3xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %[[G]] {perm = array<i64: 1, 0, 2>} : (tensor<2x6x3xf32>) -> tensor<6x2x3xf32>
func.func @gather_indices(%t: tensor<2x4xf32>, %i: tensor<6x3xi32>) -> tensor<6x2x3xf32> {
  %r = xcs.vmap %t, %i {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>} : (tensor<2x4xf32>, tensor<6x3xi32>) -> tensor<6x2x3xf32> {
  ^bb0(%a: tensor<2x4xf32>, %j: tensor<3xi32>):
    %three = tensor.constant {value = dense<3> : tensor<i32>} : tensor<i32>
    %abs = tensor.abs %j : tensor<3xi32>
    %k = tensor.min %abs, %three : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    %0 = tensor.gather %a, %k {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi32>) -> tensor<2x3xf32>
    xcs.yield %0 : tensor<2x3xf32>
  }
  return %r : tensor<6x2x3xf32>
}

// Both batched: the table's batch and gathered dims are flattened and each element's indices
// are offset by b * 4; out-of-range indices become -1, so they still fail at run time (the
// @gather_out_of_range test below runs before and after the pass in the differential test).
// CHECK-LABEL: func.func @gather_both
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[F:.*]] = tensor.reshape %[[T]] : (tensor<3x4x2xf32>) -> tensor<12x2xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.constant {value = dense<{{\[\[}}0], [4], [8]]> : tensor<3x1xi64>} : tensor<3x1xi64>
// CHECK-NEXT: %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<i64>} : tensor<i64>
// CHECK-NEXT: %[[N:.*]] = tensor.constant {value = dense<4> : tensor<i64>} : tensor<i64>
// CHECK-NEXT: %[[M:.*]] = tensor.constant {value = dense<-1> : tensor<i64>} : tensor<i64>
// CHECK-NEXT: %[[S:.*]] = tensor.add %arg1, %[[O]] : (tensor<3x5xi64>, tensor<3x1xi64>) -> tensor<3x5xi64>
// CHECK-NEXT: %[[GE:.*]] = tensor.cmp %arg1, %[[Z]] {predicate = "ge"}
// CHECK-NEXT: %[[LT:.*]] = tensor.cmp %arg1, %[[N]] {predicate = "lt"}
// CHECK-NEXT: %[[I1:.*]] = tensor.select %[[LT]], %[[S]], %[[M]]
// CHECK-NEXT: %[[I2:.*]] = tensor.select %[[GE]], %[[I1]], %[[M]]
// CHECK-NEXT: %[[G:.*]] = tensor.gather %[[F]], %[[I2]] {axis = 0 : i64} : (tensor<12x2xf32>, tensor<3x5xi64>) -> tensor<3x5x2xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.transpose %[[G]] {perm = array<i64: 0, 2, 1>} : (tensor<3x5x2xf32>) -> tensor<3x2x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @gather_both(%t: tensor<3x2x4xf32>, %i0: tensor<3x5xi64>) -> tensor<3x2x5xf32> {
  %r = xcs.vmap %t, %i0 {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<3x2x4xf32>, tensor<3x5xi64>) -> tensor<3x2x5xf32> {
  ^bb0(%a: tensor<2x4xf32>, %j: tensor<5xi64>):
    %0 = tensor.gather %a, %j {axis = 1 : i64} : (tensor<2x4xf32>, tensor<5xi64>) -> tensor<2x5xf32>
    xcs.yield %0 : tensor<2x5xf32>
  }
  return %r : tensor<3x2x5xf32>
}

// The same with the indices made valid (so that the differential test compares values), along
// axis 0 of a rank-3 table with rank-2 indices.
// CHECK-LABEL: func.func @gather_both_valid
// CHECK: tensor.gather
// CHECK-SAME: {axis = 0 : i64} : (tensor<8x3x2xf32>, tensor<2x2x2xi32>) -> tensor<2x2x2x3x2xf32>
func.func @gather_both_valid(%t: tensor<2x4x3x2xf32>, %i0: tensor<2x2x2xi32>) -> tensor<2x2x2x3x2xf32> {
  %r = xcs.vmap %t, %i0 {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<2x4x3x2xf32>, tensor<2x2x2xi32>) -> tensor<2x2x2x3x2xf32> {
  ^bb0(%a: tensor<4x3x2xf32>, %j0: tensor<2x2xi32>):
    %three = tensor.constant {value = dense<3> : tensor<i32>} : tensor<i32>
    %abs = tensor.abs %j0 : tensor<2x2xi32>
    %j = tensor.min %abs, %three : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
    %0 = tensor.gather %a, %j {axis = 0 : i64} : (tensor<4x3x2xf32>, tensor<2x2xi32>) -> tensor<2x2x3x2xf32>
    xcs.yield %0 : tensor<2x2x3x2xf32>
  }
  return %r : tensor<2x2x2x3x2xf32>
}

// An index that is out of range for its element but not for the flattened table must still fail.
// CHECK-LABEL: func.func @gather_out_of_range
func.func @gather_out_of_range(%t: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %i0 = tensor.constant {value = dense<[[3], [0]]> : tensor<2x1xi32>} : tensor<2x1xi32>
  %r = xcs.vmap %t, %i0 {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x1xf32> {
  ^bb0(%a: tensor<3xf32>, %j: tensor<1xi32>):
    %0 = tensor.gather %a, %j {axis = 0 : i64} : (tensor<3xf32>, tensor<1xi32>) -> tensor<1xf32>
    xcs.yield %0 : tensor<1xf32>
  }
  return %r : tensor<2x1xf32>
}
