// Tensor-only bodies that a rule cannot batch become xcs.parallel_map (never a wrong program):
// a slice, a concat with an unbatched operand or a yielded unbatched value with a dynamic batch
// size, a reshape that would need two dynamic dims, a tensor.fused with a batched operand.
// Edge cases that do batch: an empty batch, a map without results, a fused op on unbatched
// values (computed once).
// RUN: xcs-opt %s --vmap-batch | FileCheck %s
// RUN: xcs-opt %s --vmap-batch=remarks --verify-diagnostics -o /dev/null

// CHECK-LABEL: func.func @slice_dynamic_batch
// CHECK: xcs.parallel_map
// CHECK: tensor.slice
func.func @slice_dynamic_batch(%x0: tensor<3x4xf32>) -> tensor<?x2xf32> {
  %x = tensor.cast %x0 : (tensor<3x4xf32>) -> tensor<?x4xf32>
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: a slice needs a static batch size (its limit)}}
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<?x4xf32>) -> tensor<?x2xf32> {
  ^bb0(%e: tensor<4xf32>):
    %s = tensor.slice %e {start = array<i64: 1>, limit = array<i64: 3>, stride = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
    xcs.yield %s : tensor<2xf32>
  }
  return %r : tensor<?x2xf32>
}

// CHECK-LABEL: func.func @concat_dynamic_batch
// CHECK: xcs.parallel_map
func.func @concat_dynamic_batch(%x0: tensor<3x4xf32>, %w: tensor<2xf32>) -> tensor<?x6xf32> {
  %x = tensor.cast %x0 : (tensor<3x4xf32>) -> tensor<?x4xf32>
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: an unbatched value would have to be broadcast to a dynamic batch size}}
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<?x4xf32>, tensor<2xf32>) -> tensor<?x6xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<2xf32>):
    %c = tensor.concat %e, %v {axis = 0 : i64} : (tensor<4xf32>, tensor<2xf32>) -> tensor<6xf32>
    xcs.yield %c : tensor<6xf32>
  }
  return %r : tensor<?x6xf32>
}

// CHECK-LABEL: func.func @yield_unbatched_dynamic_batch
// CHECK: xcs.parallel_map
func.func @yield_unbatched_dynamic_batch(%x0: tensor<3x4xf32>, %w: tensor<2xf32>) -> tensor<?x2xf32> {
  %x = tensor.cast %x0 : (tensor<3x4xf32>) -> tensor<?x4xf32>
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: an unbatched value would have to be broadcast to a dynamic batch size}}
  %r = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<?x4xf32>, tensor<2xf32>) -> tensor<?x2xf32> {
  ^bb0(%e: tensor<4xf32>, %v: tensor<2xf32>):
    xcs.yield %v : tensor<2xf32>
  }
  return %r : tensor<?x2xf32>
}

// CHECK-LABEL: func.func @reshape_two_dynamic
// CHECK: xcs.parallel_map
func.func @reshape_two_dynamic(%x0: tensor<3x4xf32>) -> tensor<?x?xf32> {
  %x = tensor.cast %x0 : (tensor<3x4xf32>) -> tensor<?x4xf32>
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: a reshape to a dynamic dim with a dynamic batch size cannot be inferred at run time}}
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<?x4xf32>) -> tensor<?x?xf32> {
  ^bb0(%e: tensor<4xf32>):
    %s = tensor.reshape %e : (tensor<4xf32>) -> tensor<?xf32>
    xcs.yield %s : tensor<?xf32>
  }
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @fused
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg1
// CHECK: tensor.add %arg0, %[[F]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: xcs.parallel_map
// CHECK: tensor.fused
func.func @fused(%x: tensor<2x3xf32>, %w: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %a = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>, %v: tensor<3xf32>):
    %f = tensor.fused %v : tensor<3xf32> {
    ^bb0(%i: tensor<3xf32>):
      %n = tensor.neg %i : tensor<3xf32>
      tensor.yield %n : tensor<3xf32>
    }
    %s = tensor.add %e, %f : tensor<3xf32>
    xcs.yield %s : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: no batching rule for 'tensor.fused'}}
  %b = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %f = tensor.fused %e : tensor<3xf32> {
    ^bb0(%i: tensor<3xf32>):
      %n = tensor.neg %i : tensor<3xf32>
      tensor.yield %n : tensor<3xf32>
    }
    xcs.yield %f : tensor<3xf32>
  }
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// An empty batch batches like any other.
// CHECK-LABEL: func.func @empty_batch
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<0x4xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %[[E]] {perm = array<i64: 1, 0>} : (tensor<0x4xf32>) -> tensor<4x0xf32>
func.func @empty_batch(%x: tensor<0x4xf32>) -> tensor<4x0xf32> {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 1>} : (tensor<0x4xf32>) -> tensor<4x0xf32> {
  ^bb0(%e: tensor<4xf32>):
    %s = tensor.exp %e : tensor<4xf32>
    xcs.yield %s : tensor<4xf32>
  }
  return %r : tensor<4x0xf32>
}

// A map without results: its ops are left for dce.
// CHECK-LABEL: func.func @no_results
// CHECK-NEXT: tensor.exp %arg0 : tensor<2x4xf32>
// CHECK-NEXT: return
func.func @no_results(%x: tensor<2x4xf32>) {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64>} : (tensor<2x4xf32>) -> () {
  ^bb0(%e: tensor<4xf32>):
    %s = tensor.exp %e : tensor<4xf32>
    xcs.yield
  }
  return
}
