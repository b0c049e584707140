// matmul and einsum: the batch dim leads the batch prefix. A matmul against an unbatched operand
// stays ONE matmul (the unbatched operand broadcasts over the batch dim; no broadcast_to, no
// loop); a batched operand with a shorter batch prefix than the other gets size-1 dims after its
// batch dim. einsum gets a fresh label for the batch dim on the batched operands and the output.
// RUN: xcs-opt %s --vmap-batch | FileCheck %s

// CHECK-LABEL: func.func @matmul_weights
// CHECK-NOT: broadcast_to
// CHECK: %[[M:.*]] = tensor.matmul %arg0, %arg1 : (tensor<16x3x4xf32>, tensor<4x5xf32>) -> tensor<16x3x5xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_weights(%x: tensor<16x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<16x3x5xf32> {
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<16x3x4xf32>, tensor<4x5xf32>) -> tensor<16x3x5xf32> {
  ^bb0(%a: tensor<3x4xf32>, %v: tensor<4x5xf32>):
    %m = tensor.matmul %a, %v : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
    xcs.yield %m : tensor<3x5xf32>
  }
  return %r : tensor<16x3x5xf32>
}

// The unbatched operand on the left: [M,K] x [B,K,N] -> [B,M,N], one matmul.
// CHECK-LABEL: func.func @matmul_left
// CHECK-NOT: broadcast_to
// CHECK: %[[M:.*]] = tensor.matmul %arg1, %arg0 : (tensor<2x4xf32>, tensor<6x4x3xf32>) -> tensor<6x2x3xf32>
func.func @matmul_left(%x: tensor<6x4x3xf32>, %w: tensor<2x4xf32>) -> tensor<6x2x3xf32> {
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<6x4x3xf32>, tensor<2x4xf32>) -> tensor<6x2x3xf32> {
  ^bb0(%a: tensor<4x3xf32>, %v: tensor<2x4xf32>):
    %m = tensor.matmul %v, %a : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    xcs.yield %m : tensor<2x3xf32>
  }
  return %r : tensor<6x2x3xf32>
}

// An unbatched operand with its own batch prefix [2,K,N] against a batched [B,M,K]: the batched
// one becomes [B,1,M,K]; still one matmul.
// CHECK-LABEL: func.func @matmul_prefix
// CHECK-NOT: broadcast_to
// CHECK: %[[R:.*]] = tensor.reshape %arg0 : (tensor<5x3x4xf32>) -> tensor<5x1x3x4xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %[[R]], %arg1 : (tensor<5x1x3x4xf32>, tensor<2x4x6xf32>) -> tensor<5x2x3x6xf32>
func.func @matmul_prefix(%x: tensor<5x3x4xf32>, %w: tensor<2x4x6xf32>) -> tensor<5x2x3x6xf32> {
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<5x3x4xf32>, tensor<2x4x6xf32>) -> tensor<5x2x3x6xf32> {
  ^bb0(%a: tensor<3x4xf32>, %v: tensor<2x4x6xf32>):
    %m = tensor.matmul %a, %v : (tensor<3x4xf32>, tensor<2x4x6xf32>) -> tensor<2x3x6xf32>
    xcs.yield %m : tensor<2x3x6xf32>
  }
  return %r : tensor<5x2x3x6xf32>
}

// Both batched (attention scores q k^T): a batched transpose and one batched matmul.
// CHECK-LABEL: func.func @matmul_both
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg1 {perm = array<i64: 0, 2, 1>} : (tensor<4x6x8xf32>) -> tensor<4x8x6xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %arg0, %[[T]] : (tensor<4x6x8xf32>, tensor<4x8x6xf32>) -> tensor<4x6x6xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.softmax %[[M]] {axis = 2 : i64} : tensor<4x6x6xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.matmul %[[S]], %arg2 : (tensor<4x6x6xf32>, tensor<4x6x8xf32>) -> tensor<4x6x8xf32>
func.func @matmul_both(%q: tensor<4x6x8xf32>, %k: tensor<4x6x8xf32>, %v: tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  %r = xcs.vmap %q, %k, %v {in_axes = array<i64: 0, 0, 0>, out_axes = array<i64: 0>} : (tensor<4x6x8xf32>, tensor<4x6x8xf32>, tensor<4x6x8xf32>) -> tensor<4x6x8xf32> {
  ^bb0(%a: tensor<6x8xf32>, %b: tensor<6x8xf32>, %c: tensor<6x8xf32>):
    %bt = tensor.transpose %b {perm = array<i64: 1, 0>} : (tensor<6x8xf32>) -> tensor<8x6xf32>
    %s = tensor.matmul %a, %bt : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
    %p = tensor.softmax %s {axis = -1 : i64} : tensor<6x6xf32>
    %o = tensor.matmul %p, %c : (tensor<6x6xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    xcs.yield %o : tensor<6x8xf32>
  }
  return %r : tensor<4x6x8xf32>
}

// Both batched with different batch prefixes: the shorter one is padded.
// CHECK-LABEL: func.func @matmul_both_prefix
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg1 : (tensor<3x4x2xi32>) -> tensor<3x1x4x2xi32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %arg0, %[[R]] : (tensor<3x2x5x4xi32>, tensor<3x1x4x2xi32>) -> tensor<3x2x5x2xi32>
func.func @matmul_both_prefix(%x: tensor<3x2x5x4xi32>, %y: tensor<3x4x2xi32>) -> tensor<3x2x5x2xi32> {
  %r = xcs.vmap %x, %y {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<3x2x5x4xi32>, tensor<3x4x2xi32>) -> tensor<3x2x5x2xi32> {
  ^bb0(%a: tensor<2x5x4xi32>, %b: tensor<4x2xi32>):
    %m = tensor.matmul %a, %b : (tensor<2x5x4xi32>, tensor<4x2xi32>) -> tensor<2x5x2xi32>
    xcs.yield %m : tensor<2x5x2xi32>
  }
  return %r : tensor<3x2x5x2xi32>
}

// einsum: explicit and implicit equations; the fresh label is the first letter not used.
// CHECK-LABEL: func.func @einsum
// CHECK-NEXT: %[[A:.*]] = tensor.einsum %arg0, %arg1 {equation = "aij,jk->aik"} : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<5x2x4xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.einsum %arg0, %arg0 {equation = "cab,cab->cb"} : (tensor<5x2x3xf32>, tensor<5x2x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.einsum %arg1, %arg0 {equation = "jk,aij->aik"} : (tensor<3x4xf32>, tensor<5x2x3xf32>) -> tensor<5x2x4xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.einsum %arg0 {equation = "aij->aji"} : (tensor<5x2x3xf32>) -> tensor<5x3x2xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @einsum(%x: tensor<5x2x3xf32>, %w: tensor<3x4xf32>) -> (tensor<5x2x4xf32>, tensor<5x3xf32>, tensor<5x2x4xf32>, tensor<5x3x2xf32>) {
  %r:4 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 0, 0, 0>} : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> (tensor<5x2x4xf32>, tensor<5x3xf32>, tensor<5x2x4xf32>, tensor<5x3x2xf32>) {
  ^bb0(%a: tensor<2x3xf32>, %v: tensor<3x4xf32>):
    %0 = tensor.einsum %a, %v {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = tensor.einsum %a, %a {equation = "ab,ab->b"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3xf32>
    %2 = tensor.einsum %v, %a {equation = "jk,ij"} : (tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
    %3 = tensor.einsum %a {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    xcs.yield %0, %1, %2, %3 : (tensor<2x4xf32>, tensor<3xf32>, tensor<2x4xf32>, tensor<3x2xf32>) -> ()
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<5x2x4xf32>, tensor<5x3xf32>, tensor<5x2x4xf32>, tensor<5x3x2xf32>
}
