// Nested maps are batched innermost first, so their batch dims stack at the front: inside the
// outer body the inner map becomes ops on [B_inner, ...]; the outer rewrite then prepends
// B_outer: [B_outer, B_inner, ...] (prefix semantics).
// RUN: xcs-opt %s --vmap-batch | FileCheck %s

// The seed's example, nested: for x [2, 3, 4] the inner map runs over axis 1 of each [3, 4]
// element and yields at axis 0; the outer result goes to axis 1.
// CHECK-LABEL: func.func @nested_axes
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf64>) -> tensor<2x4x3xf64>
// CHECK-NEXT: %[[E:.*]] = tensor.exp %[[T]] : tensor<2x4x3xf64>
// CHECK-NEXT: %[[M:.*]] = tensor.reduce %[[E]] {axes = array<i64: 2>, keepdims = false, kind = "max"} : (tensor<2x4x3xf64>) -> tensor<2x4xf64>
// CHECK-NEXT: %[[O:.*]] = tensor.transpose %[[M]] {perm = array<i64: 1, 0>} : (tensor<2x4xf64>) -> tensor<4x2xf64>
// CHECK-NEXT: return %[[O]] : tensor<4x2xf64>
func.func @nested_axes(%x: tensor<2x3x4xf64>) -> tensor<4x2xf64> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 1>} : (tensor<2x3x4xf64>) -> tensor<4x2xf64> {
  ^bb0(%m: tensor<3x4xf64>):
    %i = xcs.vmap %m {in_axes = array<i64: 1>, out_axes = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<4xf64> {
    ^bb0(%col: tensor<3xf64>):
      %e = tensor.exp %col : tensor<3xf64>
      %p = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "max"} : (tensor<3xf64>) -> tensor<f64>
      xcs.yield %p : tensor<f64>
    }
    xcs.yield %i : tensor<4xf64>
  }
  return %r : tensor<4x2xf64>
}

// Pairwise: the outer map over rows of x, the inner over rows of y (an outer value captured
// unbatched by the inner map, batched by the outer one): [Bx, By] distances.
// CHECK-LABEL: func.func @pairwise
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg0 : (tensor<5x3xf32>) -> tensor<5x1x3xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.sub %[[R]], %arg1 : (tensor<5x1x3xf32>, tensor<4x3xf32>) -> tensor<5x4x3xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.mul %[[D]], %[[D]] : tensor<5x4x3xf32>
// CHECK-NEXT: %[[N:.*]] = tensor.reduce %[[S]] {axes = array<i64: 2>, keepdims = false, kind = "sum"} : (tensor<5x4x3xf32>) -> tensor<5x4xf32>
// CHECK-NEXT: return %[[N]] : tensor<5x4xf32>
func.func @pairwise(%x: tensor<5x3xf32>, %y: tensor<4x3xf32>) -> tensor<5x4xf32> {
  %r = xcs.vmap %x, %y {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<4x3xf32>) -> tensor<5x4xf32> {
  ^bb0(%a: tensor<3xf32>, %ys: tensor<4x3xf32>):
    %i = xcs.vmap %ys {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<3xf32>):
      %d = tensor.sub %a, %b : tensor<3xf32>
      %s = tensor.mul %d, %d : tensor<3xf32>
      %n = tensor.reduce %s {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
      xcs.yield %n : tensor<f32>
    }
    xcs.yield %i : tensor<4xf32>
  }
  return %r : tensor<5x4xf32>
}

// Three levels, each with its own axis and an unbatched result at the innermost level that is
// batched by the levels above.
// CHECK-LABEL: func.func @three_levels
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5x4xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.reduce %[[T]] {axes = array<i64: 3>, keepdims = true, kind = "sum"} : (tensor<2x3x5x4xf32>) -> tensor<2x3x5x1xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.sub %[[T]], %[[S]] : (tensor<2x3x5x4xf32>, tensor<2x3x5x1xf32>) -> tensor<2x3x5x4xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.mul %arg0, %arg0 : tensor<2x3x4x5xf32>
// CHECK-NEXT: %[[F:.*]] = tensor.reduce %[[E]] {axes = array<i64: 2>, keepdims = false, kind = "sum"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[G:.*]] = tensor.add %[[F]], %arg1 : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.transpose %[[D]] {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x5x4xf32>) -> tensor<2x3x4x5xf32>
// CHECK-NEXT: return %[[O]], %[[G]]
func.func @three_levels(%x: tensor<2x3x4x5xf32>, %w: tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x5xf32>) {
  %r:2 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 0>} : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x5xf32>) {
  ^bb0(%a: tensor<3x4x5xf32>, %v: tensor<5xf32>):
    %m:2 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0, 0>} : (tensor<3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x5xf32>) {
    ^bb0(%b: tensor<4x5xf32>):
      %n:2 = xcs.vmap %b, %v {in_axes = array<i64: 1, -1>, out_axes = array<i64: 1, -1>} : (tensor<4x5xf32>, tensor<5xf32>) -> (tensor<4x5xf32>, tensor<5xf32>) {
      ^bb0(%c: tensor<4xf32>, %u: tensor<5xf32>):
        %s = tensor.reduce %c {axes = array<i64: 0>, keepdims = true, kind = "sum"} : (tensor<4xf32>) -> tensor<1xf32>
        %d = tensor.sub %c, %s : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
        %e = tensor.mul %b, %b : tensor<4x5xf32>
        %f = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<4x5xf32>) -> tensor<5xf32>
        %g = tensor.add %f, %u : tensor<5xf32>
        xcs.yield %d, %g : (tensor<4xf32>, tensor<5xf32>) -> ()
      }
      xcs.yield %n#0, %n#1 : (tensor<4x5xf32>, tensor<5xf32>) -> ()
    }
    xcs.yield %m#0, %m#1 : (tensor<3x4x5xf32>, tensor<3x5xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<2x3x4x5xf32>, tensor<2x3x5xf32>
}

// An inner map over a value computed in the outer body, yielding at a nonzero axis, inside an
// outer map at axis 1.
// CHECK-LABEL: func.func @inner_of_computed
// CHECK-NOT: xcs.vmap
// CHECK: tensor.matmul
// CHECK-NOT: xcs.vmap
func.func @inner_of_computed(%x: tensor<3x2x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x3x2xf32> {
  %r = xcs.vmap %x, %w {in_axes = array<i64: 1, -1>, out_axes = array<i64: 2>} : (tensor<3x2x4xf32>, tensor<4x4xf32>) -> tensor<4x3x2xf32> {
  ^bb0(%a: tensor<3x4xf32>, %v: tensor<4x4xf32>):
    %h = tensor.matmul %a, %v : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
    %t = tensor.tanh %h : tensor<3x4xf32>
    %i = xcs.vmap %t, %a {in_axes = array<i64: 0, 0>, out_axes = array<i64: 1>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x3xf32> {
    ^bb0(%row: tensor<4xf32>, %row2: tensor<4xf32>):
      %p = tensor.mul %row, %row2 : tensor<4xf32>
      xcs.yield %p : tensor<4xf32>
    }
    %j = tensor.reshape %i : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
    %k = tensor.reduce %j {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<2x2x3xf32>) -> tensor<2x3xf32>
    %l = tensor.concat %k, %k {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    xcs.yield %l : tensor<4x3xf32>
  }
  return %r : tensor<4x3x2xf32>
}
