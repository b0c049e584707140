// Elementwise ops: unary ops, cast and gelu keep their attributes and get the batch dim in
// front; binary ops, cmp and select broadcast numpy-style (aligned on the right), so a batched
// operand of lower rank than the result gets size-1 dims right after its batch dim, and an
// unbatched operand is used as it is. Ops on unbatched values only are computed once, before.
// RUN: xcs-opt %s --vmap-batch | FileCheck %s

// CHECK-LABEL: func.func @unary
// CHECK-NEXT: %[[N:.*]] = tensor.neg %arg0 : tensor<5x4xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.exp %[[N]] : tensor<5x4xf32>
// CHECK-NEXT: %[[G:.*]] = tensor.gelu %[[E]] {approximate = "tanh"} : tensor<5x4xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[G]] : (tensor<5x4xf32>) -> tensor<5x4xf64>
// CHECK-NEXT: %[[A:.*]] = tensor.abs %[[C]] : tensor<5x4xf64>
// CHECK-NEXT: %[[S:.*]] = tensor.sigmoid %[[A]] : tensor<5x4xf64>
// CHECK-NEXT: %[[R:.*]] = tensor.relu %[[S]] : tensor<5x4xf64>
// CHECK-NEXT: %[[T:.*]] = tensor.tanh %[[R]] : tensor<5x4xf64>
// CHECK-NEXT: %[[L:.*]] = tensor.silu %[[T]] : tensor<5x4xf64>
// CHECK-NEXT: %[[Q:.*]] = tensor.sqrt %[[L]] : tensor<5x4xf64>
// CHECK-NEXT: %[[RS:.*]] = tensor.rsqrt %[[Q]] : tensor<5x4xf64>
// CHECK-NEXT: %[[LG:.*]] = tensor.log %[[RS]] : tensor<5x4xf64>
// CHECK-NEXT: %[[GE:.*]] = tensor.gelu %[[LG]] {approximate = "none"} : tensor<5x4xf64>
// CHECK-NEXT: return %[[GE]] : tensor<5x4xf64>
func.func @unary(%x: tensor<5x4xf32>) -> tensor<5x4xf64> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<5x4xf32>) -> tensor<5x4xf64> {
  ^bb0(%e: tensor<4xf32>):
    %0 = tensor.neg %e : tensor<4xf32>
    %1 = tensor.exp %0 : tensor<4xf32>
    %2 = tensor.gelu %1 {approximate = "tanh"} : tensor<4xf32>
    %3 = tensor.cast %2 : (tensor<4xf32>) -> tensor<4xf64>
    %4 = tensor.abs %3 : tensor<4xf64>
    %5 = tensor.sigmoid %4 : tensor<4xf64>
    %6 = tensor.relu %5 : tensor<4xf64>
    %7 = tensor.tanh %6 : tensor<4xf64>
    %8 = tensor.silu %7 : tensor<4xf64>
    %9 = tensor.sqrt %8 : tensor<4xf64>
    %10 = tensor.rsqrt %9 : tensor<4xf64>
    %11 = tensor.log %10 : tensor<4xf64>
    %12 = tensor.gelu %11 {approximate = "none"} : tensor<4xf64>
    xcs.yield %12 : tensor<4xf64>
  }
  return %r : tensor<5x4xf64>
}

// Same rank: no reshape. An unbatched operand of lower rank broadcasts as it is.
// CHECK-LABEL: func.func @binary
// CHECK-NEXT: %[[A:.*]] = tensor.add %arg0, %arg1 : tensor<6x3x4xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.sub %[[A]], %arg2 : (tensor<6x3x4xf32>, tensor<4xf32>) -> tensor<6x3x4xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.mul %arg2, %[[S]] : (tensor<4xf32>, tensor<6x3x4xf32>) -> tensor<6x3x4xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.div %[[M]], %arg0 : tensor<6x3x4xf32>
// CHECK-NEXT: %[[MX:.*]] = tensor.max %[[D]], %arg1 : tensor<6x3x4xf32>
// CHECK-NEXT: %[[MN:.*]] = tensor.min %[[MX]], %arg0 : tensor<6x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = tensor.pow %[[MN]], %arg1 : tensor<6x3x4xf32>
// CHECK-NEXT: return %[[P]]
func.func @binary(%x: tensor<6x3x4xf32>, %y: tensor<6x3x4xf32>, %w: tensor<4xf32>) -> tensor<6x3x4xf32> {
  %r = xcs.vmap %x, %y, %w {in_axes = array<i64: 0, 0, -1>, out_axes = array<i64: 0>} : (tensor<6x3x4xf32>, tensor<6x3x4xf32>, tensor<4xf32>) -> tensor<6x3x4xf32> {
  ^bb0(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>):
    %0 = tensor.add %a, %b : tensor<3x4xf32>
    %1 = tensor.sub %0, %c : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %2 = tensor.mul %c, %1 : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %3 = tensor.div %2, %a : tensor<3x4xf32>
    %4 = tensor.max %3, %b : tensor<3x4xf32>
    %5 = tensor.min %4, %a : tensor<3x4xf32>
    %6 = tensor.pow %5, %b : tensor<3x4xf32>
    xcs.yield %6 : tensor<3x4xf32>
  }
  return %r : tensor<6x3x4xf32>
}

// A batched [B,4] against a batched [B,3,4]: the lower-rank one becomes [B,1,4], so that
// element b of one meets element b of the other (not the 3 dim).
// CHECK-LABEL: func.func @rank_mismatch
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg0 : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.add %[[R]], %arg1 : (tensor<3x1x4xf32>, tensor<3x3x4xf32>) -> tensor<3x3x4xf32>
// CHECK-NEXT: %[[R2:.*]] = tensor.reshape %arg0 : (tensor<3x4xf32>) -> tensor<3x1x1x4xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.mul %[[R2]], %arg2 : (tensor<3x1x1x4xf32>, tensor<2x1x4xf32>) -> tensor<3x2x1x4xf32>
// CHECK-NEXT: return %[[A]], %[[M]]
func.func @rank_mismatch(%x: tensor<3x4xf32>, %y: tensor<3x3x4xf32>, %z: tensor<2x1x4xf32>) -> (tensor<3x3x4xf32>, tensor<3x2x1x4xf32>) {
  %r:2 = xcs.vmap %x, %y, %z {in_axes = array<i64: 0, 0, -1>, out_axes = array<i64: 0, 0>} : (tensor<3x4xf32>, tensor<3x3x4xf32>, tensor<2x1x4xf32>) -> (tensor<3x3x4xf32>, tensor<3x2x1x4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1x4xf32>):
    %0 = tensor.add %a, %b : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %1 = tensor.mul %a, %c : (tensor<4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
    xcs.yield %0, %1 : (tensor<3x4xf32>, tensor<2x1x4xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<3x3x4xf32>, tensor<3x2x1x4xf32>
}

// cmp and select (three operands, each padded to the result rank); a rank-0 batched element
// becomes [B] and then [B,1].
// CHECK-LABEL: func.func @cmp_select
// CHECK-NEXT: %[[CST:.*]] = tensor.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
// CHECK-NEXT: %[[C:.*]] = tensor.cmp %arg0, %[[CST]] {predicate = "gt"} : (tensor<7x3xf32>, tensor<f32>) -> tensor<7x3xi1>
// CHECK-NEXT: %[[T:.*]] = tensor.reshape %arg1 : (tensor<7xf32>) -> tensor<7x1xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.select %[[C]], %arg0, %[[T]] : (tensor<7x3xi1>, tensor<7x3xf32>, tensor<7x1xf32>) -> tensor<7x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @cmp_select(%x: tensor<7x3xf32>, %t: tensor<7xf32>) -> tensor<7x3xf32> {
  %r = xcs.vmap %x, %t {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<7x3xf32>, tensor<7xf32>) -> tensor<7x3xf32> {
  ^bb0(%a: tensor<3xf32>, %s: tensor<f32>):
    %h = tensor.constant {value = dense<0.5> : tensor<f32>} : tensor<f32>
    %c = tensor.cmp %a, %h {predicate = "gt"} : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
    %0 = tensor.select %c, %a, %s : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    xcs.yield %0 : tensor<3xf32>
  }
  return %r : tensor<7x3xf32>
}

// Integer ops (exact): an unbatched chain is computed once before the batched ops.
// CHECK-LABEL: func.func @integers
// CHECK-NEXT: %[[CST:.*]] = tensor.constant {value = dense<3> : tensor<4xi32>} : tensor<4xi32>
// CHECK-NEXT: %[[W2:.*]] = tensor.mul %arg1, %[[CST]] : tensor<4xi32>
// CHECK-NEXT: %[[A:.*]] = tensor.add %arg0, %[[W2]] : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT: %[[N:.*]] = tensor.neg %[[A]] : tensor<2x4xi32>
// CHECK-NEXT: return %[[N]]
func.func @integers(%x: tensor<2x4xi32>, %w: tensor<4xi32>) -> tensor<2x4xi32> {
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32> {
  ^bb0(%a: tensor<4xi32>, %v: tensor<4xi32>):
    %three = tensor.constant {value = dense<3> : tensor<4xi32>} : tensor<4xi32>
    %v3 = tensor.mul %v, %three : tensor<4xi32>
    %0 = tensor.add %a, %v3 : tensor<4xi32>
    %1 = tensor.neg %0 : tensor<4xi32>
    xcs.yield %1 : tensor<4xi32>
  }
  return %r : tensor<2x4xi32>
}
