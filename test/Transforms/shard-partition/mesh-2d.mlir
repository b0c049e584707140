// A 2-D grid: data parallel along "dp" (axis 0) and tensor parallel along "tp" (axis 1).
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 2x2) {xcs.axes = ["dp", "tp"]}

// The MLP of mlp.mlir with its batch split along dp: the second matmul's pending sum is
// along tp only, so its all_reduce runs over grid axis 1; the rows stay split along dp.
// CHECK-LABEL: func.func @mlp_dp_tp(
// CHECK-SAME: %arg0: tensor<4x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-SAME: %arg1: tensor<16x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [1]]>}
// CHECK-SAME: %arg2: tensor<16x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}1]]>}
// CHECK-SAME: -> (tensor<4x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>})
// CHECK-NEXT: %[[H:.*]] = tensor.matmul %arg0, %arg1 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[G:.*]] = tensor.gelu %[[H]]
// CHECK-NEXT: %[[Y:.*]] = tensor.matmul %[[G]], %arg2 : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [1] : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @mlp_dp_tp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %batch = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %batch_tp = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %w1_split = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %w2_split = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %x_s = shard.shard %x to %batch : tensor<8x16xf32>
  %w1_s = shard.shard %w1 to %w1_split : tensor<16x32xf32>
  %w2_s = shard.shard %w2 to %w2_split : tensor<32x16xf32>
  %h = tensor.matmul %x_s, %w1_s : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %h_s = shard.shard %h to %batch_tp : tensor<8x32xf32>
  %g = tensor.gelu %h_s {approximate = "tanh"} : tensor<8x32xf32>
  %g_s = shard.shard %g to %batch_tp : tensor<8x32xf32>
  %y = tensor.matmul %g_s, %w2_s : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %y_s = shard.shard %y to %batch : tensor<8x16xf32>
  return %y_s : tensor<8x16xf32>
}

// Swapping the split dims of a 2-D grid: gather one axis, all_to_all the other onto the freed
// dim, slice the first onto the other dim (the cost model's path).
// CHECK-LABEL: func.func @swap(
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 0 : tensor<4x6xf32> -> tensor<8x6xf32>
// CHECK-NEXT: %[[A:.*]] = shard.all_to_all %[[G]] on @mesh grid_axes = [1] split_axis = 0 concat_axis = 1 : tensor<8x6xf32> -> tensor<4x12xf32>
// CHECK-NEXT: %[[S:.*]] = shard.all_slice %[[A]] on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x12xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[S]] : tensor<4x6xf32>
func.func @swap(%x: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %dp_tp = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %tp_dp = shard.sharding @mesh split_axes = [[1], [0]] : !shard.sharding
  %x_s = shard.shard %x to %dp_tp : tensor<8x12xf32>
  %y = shard.shard %x_s to %tp_dp annotate_for_users : tensor<8x12xf32>
  return %y : tensor<8x12xf32>
}

// A K loop split along both axes (one dim split along two axes, major first): the result is
// pending along both, and each is scattered onto the dim the annotation splits along it.
// CHECK-LABEL: func.func @k_split_both_axes(
// CHECK-SAME: %arg0: tensor<4x2xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0, 1]]>}
// CHECK-SAME: %arg1: tensor<2x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0, 1]]>}
// CHECK-SAME: -> (tensor<2x3xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0], [1]]>})
// CHECK-NEXT: %[[P:.*]] = tensor.matmul %arg0, %arg1 : (tensor<4x2xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[R0:.*]] = shard.reduce_scatter %[[P]] on @mesh grid_axes = [0] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %[[R1:.*]] = shard.reduce_scatter %[[R0]] on @mesh grid_axes = [1] scatter_axis = 1 : tensor<2x6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R1]]
func.func @k_split_both_axes(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %k_of_x = shard.sharding @mesh split_axes = [[], [0, 1]] : !shard.sharding
  %k_of_w = shard.sharding @mesh split_axes = [[0, 1]] : !shard.sharding
  %out = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %x_s = shard.shard %x to %k_of_x : tensor<4x8xf32>
  %w_s = shard.shard %w to %k_of_w : tensor<8x6xf32>
  %y = tensor.matmul %x_s, %w_s : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %y_s = shard.shard %y to %out : tensor<4x6xf32>
  return %y_s : tensor<4x6xf32>
}

// K split along tp and rows along dp: the pending sum along tp is scattered onto the rows
// after dp (rows split along [dp, tp]), then the row split is kept.
// CHECK-LABEL: func.func @k_split_rows_two_axes(
// CHECK-NEXT: %[[P:.*]] = tensor.matmul %arg0, %arg1 : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %[[P]] on @mesh grid_axes = [1] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x6xf32>
func.func @k_split_rows_two_axes(%x: tensor<8x8xf32>, %w: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %x_split = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %w_split = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0, 1]] : !shard.sharding
  %x_s = shard.shard %x to %x_split : tensor<8x8xf32>
  %w_s = shard.shard %w to %w_split : tensor<8x6xf32>
  %y = tensor.matmul %x_s, %w_s : (tensor<8x8xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  %y_s = shard.shard %y to %rows : tensor<8x6xf32>
  return %y_s : tensor<8x6xf32>
}
