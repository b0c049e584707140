// Multi-head attention split by heads over a 1-D grid (Megatron's attention): the projection
// weights are split along their head dim, so the per-head queries, keys, values, scores, the
// softmax (whole along the keys) and the per-head outputs are all computed on local heads
// with no communication; the output projection sums over the heads, so its result is a
// pending sum, resolved by one all_reduce (replicated) or one reduce_scatter (split by rows).
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 2) {xcs.axes = ["heads"]}

// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %arg0: tensor<6x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>, xcs.name = "x"}
// CHECK-SAME: %arg1: tensor<2x8x4xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "wq"}
// CHECK-SAME: %arg4: tensor<2x4x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "wo"}
// CHECK-SAME: -> (tensor<6x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>})
// CHECK-NEXT: %[[Q:.*]] = tensor.einsum %arg0, %arg1 {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<2x8x4xf32>) -> tensor<2x6x4xf32>
// CHECK-NEXT: %[[K:.*]] = tensor.einsum %arg0, %arg2 {equation = "sd,hde->hse"}
// CHECK-NEXT: %[[V:.*]] = tensor.einsum %arg0, %arg3 {equation = "sd,hde->hse"}
// CHECK-NEXT: %[[S:.*]] = tensor.einsum %[[Q]], %[[K]] {equation = "hse,hte->hst"} : (tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x6xf32>
// CHECK-NEXT: %[[P:.*]] = tensor.softmax %[[S]] {axis = 2 : i64} : tensor<2x6x6xf32>
// CHECK-NEXT: %[[O:.*]] = tensor.einsum %[[P]], %[[V]] {equation = "hst,hte->hse"}
// CHECK-NEXT: %[[Y:.*]] = tensor.einsum %[[O]], %arg4 {equation = "hse,hed->sd"} : (tensor<2x6x4xf32>, tensor<2x4x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] : tensor<6x8xf32> -> tensor<6x8xf32>
// CHECK-NEXT: return %[[R]] : tensor<6x8xf32>
func.func @attention(%x: tensor<6x8xf32> {xcs.name = "x"}, %wq: tensor<4x8x4xf32> {xcs.name = "wq"},
                     %wk: tensor<4x8x4xf32>, %wv: tensor<4x8x4xf32>, %wo: tensor<4x4x8xf32> {xcs.name = "wo"})
    -> tensor<6x8xf32> {
  %heads = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %wq_s = shard.shard %wq to %heads : tensor<4x8x4xf32>
  %wk_s = shard.shard %wk to %heads : tensor<4x8x4xf32>
  %wv_s = shard.shard %wv to %heads : tensor<4x8x4xf32>
  %wo_s = shard.shard %wo to %heads : tensor<4x4x8xf32>
  %q = tensor.einsum %x, %wq_s {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<4x8x4xf32>) -> tensor<4x6x4xf32>
  %q_s = shard.shard %q to %heads : tensor<4x6x4xf32>
  %k = tensor.einsum %x, %wk_s {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<4x8x4xf32>) -> tensor<4x6x4xf32>
  %k_s = shard.shard %k to %heads : tensor<4x6x4xf32>
  %v = tensor.einsum %x, %wv_s {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<4x8x4xf32>) -> tensor<4x6x4xf32>
  %v_s = shard.shard %v to %heads : tensor<4x6x4xf32>
  %s = tensor.einsum %q_s, %k_s {equation = "hse,hte->hst"} : (tensor<4x6x4xf32>, tensor<4x6x4xf32>) -> tensor<4x6x6xf32>
  %s_s = shard.shard %s to %heads : tensor<4x6x6xf32>
  %p = tensor.softmax %s_s {axis = 2 : i64} : tensor<4x6x6xf32>
  %p_s = shard.shard %p to %heads : tensor<4x6x6xf32>
  %o = tensor.einsum %p_s, %v_s {equation = "hst,hte->hse"} : (tensor<4x6x6xf32>, tensor<4x6x4xf32>) -> tensor<4x6x4xf32>
  %o_s = shard.shard %o to %heads : tensor<4x6x4xf32>
  %y = tensor.einsum %o_s, %wo_s {equation = "hse,hed->sd"} : (tensor<4x6x4xf32>, tensor<4x4x8xf32>) -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}

// The same block with the output wanted split by rows (sequence-parallel style): the pending
// sum over heads becomes one reduce_scatter, and the residual add then runs on local rows of
// the input, sliced locally.
// CHECK-LABEL: func.func @attention_rows(
// CHECK: %[[Y:.*]] = tensor.einsum %{{.*}}, %arg4 {equation = "hse,hed->sd"}
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %[[Y]] on @mesh grid_axes = [0] scatter_axis = 0 : tensor<6x8xf32> -> tensor<3x8xf32>
// CHECK-NEXT: %[[X:.*]] = shard.all_slice %arg0 on @mesh grid_axes = [0] slice_axis = 0 : tensor<6x8xf32> -> tensor<3x8xf32>
// CHECK-NEXT: %[[Z:.*]] = tensor.add %[[X]], %[[R]] : tensor<3x8xf32>
// CHECK-NEXT: return %[[Z]] : tensor<3x8xf32>
func.func @attention_rows(%x: tensor<6x8xf32>, %wq: tensor<4x8x4xf32>, %wk: tensor<4x8x4xf32>,
                          %wv: tensor<4x8x4xf32>, %wo: tensor<4x4x8xf32>) -> tensor<6x8xf32> {
  %heads = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %wq_s = shard.shard %wq to %heads : tensor<4x8x4xf32>
  %wk_s = shard.shard %wk to %heads : tensor<4x8x4xf32>
  %wv_s = shard.shard %wv to %heads : tensor<4x8x4xf32>
  %wo_s = shard.shard %wo to %heads : tensor<4x4x8xf32>
  %q = tensor.einsum %x, %wq_s {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<4x8x4xf32>) -> tensor<4x6x4xf32>
  %q_s = shard.shard %q to %heads : tensor<4x6x4xf32>
  %k = tensor.einsum %x, %wk_s {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<4x8x4xf32>) -> tensor<4x6x4xf32>
  %k_s = shard.shard %k to %heads : tensor<4x6x4xf32>
  %v = tensor.einsum %x, %wv_s {equation = "sd,hde->hse"} : (tensor<6x8xf32>, tensor<4x8x4xf32>) -> tensor<4x6x4xf32>
  %v_s = shard.shard %v to %heads : tensor<4x6x4xf32>
  %s = tensor.einsum %q_s, %k_s {equation = "hse,hte->hst"} : (tensor<4x6x4xf32>, tensor<4x6x4xf32>) -> tensor<4x6x6xf32>
  %s_s = shard.shard %s to %heads : tensor<4x6x6xf32>
  %p = tensor.softmax %s_s {axis = 2 : i64} : tensor<4x6x6xf32>
  %p_s = shard.shard %p to %heads : tensor<4x6x6xf32>
  %o = tensor.einsum %p_s, %v_s {equation = "hst,hte->hse"} : (tensor<4x6x6xf32>, tensor<4x6x4xf32>) -> tensor<4x6x4xf32>
  %o_s = shard.shard %o to %heads : tensor<4x6x4xf32>
  %y = tensor.einsum %o_s, %wo_s {equation = "hse,hed->sd"} : (tensor<4x6x4xf32>, tensor<4x4x8xf32>) -> tensor<6x8xf32>
  %y_s = shard.shard %y to %rows : tensor<6x8xf32>
  %x_rows = shard.shard %x to %rows annotate_for_users : tensor<6x8xf32>
  %z = tensor.add %x_rows, %y_s : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  %z_s = shard.shard %z to %rows : tensor<6x8xf32>
  return %z_s : tensor<6x8xf32>
}
