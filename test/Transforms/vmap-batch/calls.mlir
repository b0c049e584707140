// Calls in a batched body go to a batched clone of the callee: @<callee>_batched_<B>_<mask>
// (mask: b = batched argument, u = unbatched), private, at the end of the module, one per
// (callee, batch size, mask) and reused by every call with that pattern. A clone's result that
// does not depend on its batched arguments stays unbatched. Calls with only unbatched arguments
// of pure tensor functions are made once, before the batched ops.
// RUN: xcs-opt %s --vmap-batch | FileCheck %s
// RUN: xcs-opt %s --vmap-batch=remarks --verify-diagnostics -o /dev/null

func.func @mlp(%x: tensor<4xf32>, %w: tensor<4x3xf32>) -> tensor<3xf32> attributes {xcs.class = "tensor"} {
  %r = tensor.reshape %x : (tensor<4xf32>) -> tensor<1x4xf32>
  %m = tensor.matmul %r, %w : (tensor<1x4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  %o = tensor.reshape %m : (tensor<1x3xf32>) -> tensor<3xf32>
  %g = tensor.gelu %o {approximate = "none"} : tensor<3xf32>
  return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @call_mlp
// CHECK-NEXT: %[[R:.*]] = call @mlp_batched_8_bu(%arg0, %arg1) : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @call_mlp(%x: tensor<8x4xf32>, %w: tensor<4x3xf32>) -> tensor<8x3xf32> {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<4x3xf32>):
    %y = func.call @mlp(%e, %v) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  return %r : tensor<8x3xf32>
}

// The same pattern elsewhere (after moving the batch dim of x to the front) reuses the clone;
// another batch size gets its own.
// CHECK-LABEL: func.func @call_mlp_again
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0
// CHECK-NEXT: %[[R:.*]] = call @mlp_batched_8_bu(%[[T]], %arg1) : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[S:.*]] = call @mlp_batched_2_bu(%arg2, %arg1) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
func.func @call_mlp_again(%x: tensor<4x8xf32>, %w: tensor<4x3xf32>, %z: tensor<2x4xf32>) -> (tensor<8x3xf32>, tensor<2x3xf32>) {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r = xcs.vmap %x, %w {in_axes = array<i64: 1, -1>, out_axes = array<i64: 0>} : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<8x3xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<4x3xf32>):
    %y = func.call @mlp(%e, %v) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %s = xcs.vmap %z, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<4x3xf32>):
    %y = func.call @mlp(%e, %v) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  return %r, %s : tensor<8x3xf32>, tensor<2x3xf32>
}

// Batched weights and an unbatched input: another mask. A call with unbatched arguments only
// is made once (no clone); its result is used unbatched.
// CHECK-LABEL: func.func @call_masks
// CHECK-NEXT: %[[U:.*]] = call @mlp(%arg0, %arg2) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[B:.*]] = call @mlp_batched_5_ub(%arg0, %arg1) : (tensor<4xf32>, tensor<5x4x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.add %[[B]], %[[U]] : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
func.func @call_masks(%x: tensor<4xf32>, %ws: tensor<5x4x3xf32>, %w: tensor<4x3xf32>) -> tensor<5x3xf32> {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r = xcs.vmap %x, %ws, %w {in_axes = array<i64: -1, 0, -1>, out_axes = array<i64: 0>} : (tensor<4xf32>, tensor<5x4x3xf32>, tensor<4x3xf32>) -> tensor<5x3xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<4x3xf32>, %u: tensor<4x3xf32>):
    %a = func.call @mlp(%e, %u) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    %b = func.call @mlp(%e, %v) : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    %c = tensor.add %b, %a : tensor<3xf32>
    xcs.yield %c : tensor<3xf32>
  }
  return %r : tensor<5x3xf32>
}

// A callee calling another function (no xcs.class: judged by its body), with a result that
// depends only on the unbatched argument: the clone returns it unbatched, so it may be yielded
// with out_axes = -1. The inner callee gets its own clone.
func.func private @norm(%v: tensor<3xf32>) -> tensor<3xf32> {
  %s = tensor.mul %v, %v : tensor<3xf32>
  %t = tensor.reduce %s {axes = array<i64: 0>, keepdims = true, kind = "sum"} : (tensor<3xf32>) -> tensor<1xf32>
  %r = tensor.rsqrt %t : tensor<1xf32>
  %o = tensor.mul %v, %r : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %o : tensor<3xf32>
}
func.func private @two(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = func.call @norm(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %b = tensor.exp %w : tensor<3xf32>
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @call_chain
// CHECK-NEXT: %[[R:.*]]:2 = call @two_batched_6_bu(%arg0, %arg1) : (tensor<6x3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>)
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @call_chain(%x: tensor<6x3xf32>, %w: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>) {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r:2 = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, -1>} : (tensor<6x3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>) {
  ^bb0(%e: tensor<3xf32>, %v: tensor<3xf32>):
    %y:2 = func.call @two(%e, %v) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    xcs.yield %y#0, %y#1 : (tensor<3xf32>, tensor<3xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<6x3xf32>, tensor<3xf32>
}

// A callee with a map of its own is processed first (callees before callers), so its clone is
// made of batched ops. Nested maps calling a function make a clone of the clone.
func.func @rowsum(%m: tensor<3x4xf64>) -> tensor<3xf64> {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r = xcs.vmap %m {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<3xf64> {
  ^bb0(%row: tensor<4xf64>):
    %s = tensor.reduce %row {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<4xf64>) -> tensor<f64>
    xcs.yield %s : tensor<f64>
  }
  return %r : tensor<3xf64>
}
func.func @peak(%v: tensor<3xf64>) -> tensor<f64> {
  %e = tensor.exp %v : tensor<3xf64>
  %m = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "max"} : (tensor<3xf64>) -> tensor<f64>
  return %m : tensor<f64>
}
// CHECK-LABEL: func.func @call_nested
// CHECK-NEXT: %[[A:.*]] = call @rowsum_batched_2_b(%arg0) : (tensor<2x3x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf64>) -> tensor<2x4x3xf64>
// CHECK-NEXT: %[[P:.*]] = call @peak_batched_4_b_batched_2_b(%[[T]]) : (tensor<2x4x3xf64>) -> tensor<2x4xf64>
// CHECK-NEXT: return %[[A]], %[[P]]
func.func @call_nested(%x: tensor<2x3x4xf64>) -> (tensor<2x3xf64>, tensor<2x4xf64>) {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r:2 = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0, 0>} : (tensor<2x3x4xf64>) -> (tensor<2x3xf64>, tensor<2x4xf64>) {
  ^bb0(%m: tensor<3x4xf64>):
    %a = func.call @rowsum(%m) : (tensor<3x4xf64>) -> tensor<3xf64>
    // expected-remark@+1 {{'xcs.vmap' op batched}}
    %i = xcs.vmap %m {in_axes = array<i64: 1>, out_axes = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<4xf64> {
    ^bb0(%col: tensor<3xf64>):
      %p = func.call @peak(%col) : (tensor<3xf64>) -> tensor<f64>
      xcs.yield %p : tensor<f64>
    }
    xcs.yield %a, %i : (tensor<3xf64>, tensor<4xf64>) -> ()
  }
  return %r#0, %r#1 : tensor<2x3xf64>, tensor<2x4xf64>
}

// A recursive callee cannot be batched (its clone would call itself): the map becomes an
// xcs.parallel_map.
func.func private @spin(%v: tensor<2xf32>) -> tensor<2xf32> attributes {xcs.class = "tensor"} {
  %r = func.call @spin(%v) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
// CHECK-LABEL: func.func @call_recursive
// CHECK: xcs.parallel_map
func.func @call_recursive(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: in @spin: @spin calls itself with batched arguments}}
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%e: tensor<2xf32>):
    %y = func.call @spin(%e) : (tensor<2xf32>) -> tensor<2xf32>
    xcs.yield %y : tensor<2xf32>
  }
  return %r : tensor<3x2xf32>
}

// The clones, in creation order at the end of the module (@norm's before @two's: it is made
// while @two's clone is built; the inner map's @peak clone before the outer map's ones).
// CHECK-LABEL: func.func private @mlp_batched_8_bu(%arg0: tensor<8x4xf32>, %arg1: tensor<4x3xf32>) -> tensor<8x3xf32> attributes {xcs.class = "tensor"}
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg0 : (tensor<8x4xf32>) -> tensor<8x1x4xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %[[R]], %arg1 : (tensor<8x1x4xf32>, tensor<4x3xf32>) -> tensor<8x1x3xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.reshape %[[M]] : (tensor<8x1x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[G:.*]] = tensor.gelu %[[O]] {approximate = "none"} : tensor<8x3xf32>
// CHECK-NEXT: return %[[G]] : tensor<8x3xf32>
// CHECK-LABEL: func.func private @mlp_batched_2_bu(%arg0: tensor<2x4xf32>, %arg1: tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func private @mlp_batched_5_ub(%arg0: tensor<4xf32>, %arg1: tensor<5x4x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg0 : (tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.matmul %[[R]], %arg1 : (tensor<1x4xf32>, tensor<5x4x3xf32>) -> tensor<5x1x3xf32>
// CHECK-LABEL: func.func private @norm_batched_6_b(%arg0: tensor<6x3xf32>) -> tensor<6x3xf32>
// CHECK-LABEL: func.func private @two_batched_6_bu(%arg0: tensor<6x3xf32>, %arg1: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>)
// CHECK-NEXT: %[[A:.*]] = call @norm_batched_6_b(%arg0) : (tensor<6x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.exp %arg1 : tensor<3xf32>
// CHECK-NEXT: return %[[A]], %[[B]] : tensor<6x3xf32>, tensor<3xf32>
// CHECK-LABEL: func.func private @peak_batched_4_b(%arg0: tensor<4x3xf64>) -> tensor<4xf64>
// CHECK-LABEL: func.func private @rowsum_batched_2_b(%arg0: tensor<2x3x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[S:.*]] = tensor.reduce %arg0 {axes = array<i64: 2>, keepdims = false, kind = "sum"} : (tensor<2x3x4xf64>) -> tensor<2x3xf64>
// CHECK-LABEL: func.func private @peak_batched_4_b_batched_2_b(%arg0: tensor<2x4x3xf64>) -> tensor<2x4xf64>
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<2x4x3xf64>
// CHECK-NEXT: %[[M:.*]] = tensor.reduce %[[E]] {axes = array<i64: 2>, keepdims = false, kind = "max"} : (tensor<2x4x3xf64>) -> tensor<2x4xf64>
// CHECK-NOT: func.func
