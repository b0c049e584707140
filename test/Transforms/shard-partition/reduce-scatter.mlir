// Pending (partial) values: an op whose strategy splits a reduction loop produces on each
// device a part of the result, resolved before any use into the layout the result is
// annotated with: a reduce_scatter when that layout splits a dim along the axis of the
// pending sum (one collective where upstream, which has no partial state, emits an all_reduce
// and an all_slice), an all_reduce when it is replicated along it.
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 2) {xcs.axes = ["k"]}

// A K-split matmul wanted row-split: one reduce_scatter on dim 0.
// CHECK-LABEL: func.func @k_split_rows(
// CHECK-SAME: %arg0: tensor<4x4xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>}
// CHECK-SAME: %arg1: tensor<4x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-SAME: -> (tensor<2x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>})
// CHECK-NEXT: %[[P:.*]] = tensor.matmul %arg0, %arg1 : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %[[P]] on @mesh grid_axes = [0] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x6xf32>
func.func @k_split_rows(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %k_of_x = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %k_of_x : tensor<4x8xf32>
  %w_s = shard.shard %w to %rows : tensor<8x6xf32>
  %y = tensor.matmul %x_s, %w_s : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %y_s = shard.shard %y to %rows : tensor<4x6xf32>
  return %y_s : tensor<4x6xf32>
}

// Wanted column-split: a reduce_scatter on dim 1.
// CHECK-LABEL: func.func @k_split_columns(
// CHECK: shard.reduce_scatter %{{.*}} on @mesh grid_axes = [0] scatter_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return
func.func @k_split_columns(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %k_of_x = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %x_s = shard.shard %x to %k_of_x : tensor<4x8xf32>
  %w_s = shard.shard %w to %rows : tensor<8x6xf32>
  %y = tensor.matmul %x_s, %w_s : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %y_s = shard.shard %y to %cols : tensor<4x6xf32>
  return %y_s : tensor<4x6xf32>
}

// Wanted replicated (or not annotated: replicated): one all_reduce. The operands here are
// annotated for the matmul only (`annotate_for_users`): stored replicated, they are sliced
// locally (all_slice, no communication).
// CHECK-LABEL: func.func @k_split_replicated(
// CHECK-SAME: %arg0: tensor<4x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}
// CHECK-NEXT: %[[X:.*]] = shard.all_slice %arg0 on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[W:.*]] = shard.all_slice %arg1 on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[P:.*]] = tensor.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[P]] on @mesh grid_axes = [0] : tensor<4x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @k_split_replicated(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %k_of_x = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %k_of_x annotate_for_users : tensor<4x8xf32>
  %w_s = shard.shard %w to %rows annotate_for_users : tensor<8x6xf32>
  %y = tensor.matmul %x_s, %w_s : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// Reductions: `max` over a split dim is a pending max (reduce_scatter with reduction = max);
// `mean` is computed as a local sum, combined, then divided by the whole count.
// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT: %[[M:.*]] = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<6x4xf32>) -> tensor<6xf32>
// CHECK-NEXT: %[[MS:.*]] = shard.reduce_scatter %[[M]] on @mesh grid_axes = [0] reduction =  max scatter_axis = 0 : tensor<6xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = true, kind = "sum"} : (tensor<6x4xf32>) -> tensor<6x1xf32>
// CHECK-NEXT: %[[SR:.*]] = shard.all_reduce %[[S]] on @mesh grid_axes = [0] : tensor<6x1xf32> -> tensor<6x1xf32>
// CHECK-NEXT: %[[N:.*]] = tensor.constant {value = dense<8.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT: %[[MEAN:.*]] = tensor.div %[[SR]], %[[N]] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
// CHECK-NEXT: return %[[MS]], %[[MEAN]] : tensor<3xf32>, tensor<6x1xf32>
func.func @reductions(%x: tensor<6x8xf32>) -> (tensor<6xf32>, tensor<6x1xf32>) {
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %cols : tensor<6x8xf32>
  %m = tensor.reduce %x_s {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<6x8xf32>) -> tensor<6xf32>
  %m_s = shard.shard %m to %rows : tensor<6xf32>
  %mean = tensor.reduce %x_s {axes = array<i64: 1>, keepdims = true, kind = "mean"} : (tensor<6x8xf32>) -> tensor<6x1xf32>
  return %m_s, %mean : tensor<6xf32>, tensor<6x1xf32>
}

// A contraction over a split dim of an einsum: the summed label `e` is split, the result is
// pending and resolved into a split of `s`.
// CHECK-LABEL: func.func @einsum_contraction(
// CHECK-NEXT: tensor.einsum %arg0, %arg1 {equation = "se,te->st"} : (tensor<4x4xf32>, tensor<6x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: shard.reduce_scatter %{{.*}} on @mesh grid_axes = [0] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: return
func.func @einsum_contraction(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %e = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %q_s = shard.shard %q to %e : tensor<4x8xf32>
  %k_s = shard.shard %k to %e : tensor<6x8xf32>
  %s = tensor.einsum %q_s, %k_s {equation = "se,te->st"} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %s_s = shard.shard %s to %rows : tensor<4x6xf32>
  return %s_s : tensor<4x6xf32>
}
