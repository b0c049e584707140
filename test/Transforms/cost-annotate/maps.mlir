// xcs.vmap costs its body once per batch element. Batch axes count from the end when negative
// (-1 alone means "not batched"), as the op reads them: an operand mapped over axis -2 loses
// that dim in the body. Regression (found by the differential pass fuzzer): negative axes were
// taken as "not batched", so the body's shapes kept the batch dim and a concat of a batched
// value with one computed from it failed ("concat operands differ in rank").
// RUN: xcs-opt %s --cost-annotate | FileCheck %s

// Per element (8 elements of 4 f32 each): exp 4 transcendentals, 16 bytes read and written;
// concat 32 bytes read and written.
// CHECK-LABEL: func.func @axis_minus_two
// CHECK-SAME: cost = #cost.cost<flops = "32", read = "384", write = "384", transcendentals = "32">
// CHECK: xcs.vmap {{.*}}cost = #cost.cost<flops = "32", read = "384", write = "384", transcendentals = "32">
func.func @axis_minus_two(%x: tensor<8x4xf32>) -> tensor<8x2x4xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: -2>, out_axes = array<i64: -3>} : (tensor<8x4xf32>) -> tensor<8x2x4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.exp %a : tensor<4xf32>
    %c = tensor.concat %a, %e {axis = -1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %t = tensor.reshape %c : (tensor<8xf32>) -> tensor<2x4xf32>
    xcs.yield %t : tensor<2x4xf32>
  }
  return %r : tensor<8x2x4xf32>
}

// The same map over axis 0 of the transposed input costs the same.
// CHECK-LABEL: func.func @axis_zero
// CHECK-SAME: cost = #cost.cost<flops = "32", read = "384", write = "384", transcendentals = "32">
func.func @axis_zero(%x: tensor<8x4xf32>) -> tensor<8x2x4xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<8x2x4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.exp %a : tensor<4xf32>
    %c = tensor.concat %a, %e {axis = -1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %t = tensor.reshape %c : (tensor<8xf32>) -> tensor<2x4xf32>
    xcs.yield %t : tensor<2x4xf32>
  }
  return %r : tensor<8x2x4xf32>
}

// The fuzzer's case: a 1x1 input mapped over axis -2 (the body sees tensor<1xf32>).
// CHECK-LABEL: func.func @fuzz_case
// CHECK-SAME: cost = #cost.cost<flops = "3", read = "12", write = "12", transcendentals = "1">
func.func @fuzz_case(%x: tensor<1x1xf32>) -> tensor<1x1x2xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: -2>, out_axes = array<i64: -2>} : (tensor<1x1xf32>) -> tensor<1x1x2xf32> {
  ^bb0(%a: tensor<1xf32>):
    %s = tensor.softmax %a {axis = 0 : i64} : tensor<1xf32>
    %c = tensor.concat %a, %s {axis = -1 : i64} : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    %t = tensor.reshape %c : (tensor<2xf32>) -> tensor<1x2xf32>
    xcs.yield %t : tensor<1x2xf32>
  }
  return %r : tensor<1x1x2xf32>
}
