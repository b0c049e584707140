// Ops without a loop structure (reshape, concat, gather, calls, ops with regions) run
// replicated on every device, as in the cost model: their tensor operands are gathered
// first, their results are replicated, and a split annotation of a result slices it locally.
// Values that an op's regions capture are replicated before the op.
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 2) {xcs.axes = ["x"]}

// CHECK-LABEL: func.func @reshape_between_splits(
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<2x6xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[E]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %[[G]] : (tensor<4x6xf32>) -> tensor<24xf32>
// CHECK-NEXT: %[[S:.*]] = shard.all_slice %[[R]] on @mesh grid_axes = [0] slice_axis = 0 : tensor<24xf32> -> tensor<12xf32>
// CHECK-NEXT: %[[N:.*]] = tensor.neg %[[S]] : tensor<12xf32>
// CHECK-NEXT: return %[[N]] : tensor<12xf32>
func.func @reshape_between_splits(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<4x6xf32>
  %e = tensor.exp %x_s : tensor<4x6xf32>
  %e_s = shard.shard %e to %rows : tensor<4x6xf32>
  %r = tensor.reshape %e_s : (tensor<4x6xf32>) -> tensor<24xf32>
  %r_s = shard.shard %r to %rows : tensor<24xf32>
  %n = tensor.neg %r_s : tensor<24xf32>
  %n_s = shard.shard %n to %rows : tensor<24xf32>
  return %n_s : tensor<24xf32>
}

// concat and gather with split operands, and a call of an unannotated function. As in the
// cost model, each use is resharded on its own (the concat's two uses, two gathers).
// CHECK-LABEL: func.func @concat_gather_call(
// CHECK-NEXT: %[[I:.*]] = tensor.constant
// CHECK-NEXT: %[[X:.*]] = shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 1 : tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[Y:.*]] = shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 1 : tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.concat %[[X]], %[[Y]] {axis = 0 : i64}
// CHECK-NEXT: %[[G:.*]] = tensor.gather %[[C]], %[[I]] {axis = 0 : i64}
// CHECK-NEXT: %[[F:.*]] = call @helper(%[[G]]) : (tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: return %[[F]]
func.func @concat_gather_call(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %ix = tensor.constant {value = dense<[6, 1]> : tensor<2xi64>} : tensor<2xi64>
  %x_s = shard.shard %x to %cols : tensor<4x6xf32>
  %c = tensor.concat %x_s, %x_s {axis = 0 : i64} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %g = tensor.gather %c, %ix {axis = 0 : i64} : (tensor<8x6xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  %f = func.call @helper(%g) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return %f : tensor<2x6xf32>
}

// Not annotated: left as it is (it runs replicated on every device).
// CHECK-LABEL: func.func private @helper(%arg0: tensor<2x6xf32>) -> tensor<2x6xf32> {
// CHECK-NEXT: tensor.tanh %arg0 : tensor<2x6xf32>
func.func private @helper(%a: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %t = tensor.tanh %a : tensor<2x6xf32>
  return %t : tensor<2x6xf32>
}

// An xcs.vmap whose body captures a split value: the value is gathered before the map, and
// the map's operand too; the map runs replicated.
// CHECK-LABEL: func.func @captured(
// CHECK-NEXT: %[[X:.*]] = shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %[[B:.*]] = shard.all_gather %arg1 on @mesh grid_axes = [0] gather_axis = 0 : tensor<2xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = xcs.vmap %[[X]]
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<3xf32>):
// CHECK-NEXT: tensor.reduce %[[B]]
func.func @captured(%x: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<4x3xf32>
  %b_s = shard.shard %b to %rows : tensor<4xf32>
  %r = xcs.vmap %x_s {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %s = tensor.reduce %b_s {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<4xf32>) -> tensor<f32>
    %y = tensor.add %e, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  return %r : tensor<4x3xf32>
}
