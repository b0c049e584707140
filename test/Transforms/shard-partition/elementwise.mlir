// Elementwise ops after a row-sharded input stay sharded: each device computes its rows.
// (Upstream's propagation gathers the input and runs the op replicated.) Operands that are
// replicated are sliced locally to the rows the device needs; a splat constant is made in the
// local shape, a dense one sliced; a broadcast operand is split only along the dims it has.
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 4) {xcs.axes = ["dp"]}

// CHECK-LABEL: func.func @rows_stay_rows(
// CHECK-SAME: %arg0: tensor<2x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-SAME: -> (tensor<2x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>})
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<2x6xf32>
// CHECK-NEXT: %[[H:.*]] = tensor.constant {value = dense<5.000000e-01> : tensor<2x6xf32>} : tensor<2x6xf32>
// CHECK-NEXT: %[[M:.*]] = tensor.mul %[[E]], %[[H]] : tensor<2x6xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.tanh %[[M]] : tensor<2x6xf32>
// CHECK-NEXT: return %[[T]] : tensor<2x6xf32>
func.func @rows_stay_rows(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %half = tensor.constant {value = dense<0.5> : tensor<8x6xf32>} : tensor<8x6xf32>
  %x_s = shard.shard %x to %rows : tensor<8x6xf32>
  %e = tensor.exp %x_s : tensor<8x6xf32>
  %e_s = shard.shard %e to %rows : tensor<8x6xf32>
  %m = tensor.mul %e_s, %half : tensor<8x6xf32>
  %m_s = shard.shard %m to %rows : tensor<8x6xf32>
  %t = tensor.tanh %m_s : tensor<8x6xf32>
  %t_s = shard.shard %t to %rows : tensor<8x6xf32>
  return %t_s : tensor<8x6xf32>
}

// A replicated operand of the same shape is sliced locally; a bias broadcast along the rows
// is not split at all (its only dim is the columns); a dense constant is sliced.
// CHECK-LABEL: func.func @replicated_partners(
// CHECK-SAME: %arg1: tensor<8x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}
// CHECK-SAME: %arg2: tensor<6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}
// CHECK-NEXT: %[[C:.*]] = tensor.constant {value = dense<{{.*}}> : tensor<8x1xf32>} : tensor<8x1xf32>
// CHECK-NEXT: %[[Y:.*]] = shard.all_slice %arg1 on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.add %arg0, %[[Y]] : tensor<2x6xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.add %[[A]], %arg2 : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %[[CS:.*]] = shard.all_slice %[[C]] on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x1xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.sub %[[B]], %[[CS]] : (tensor<2x6xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: return %[[D]] : tensor<2x6xf32>
func.func @replicated_partners(%x: tensor<8x6xf32>, %y: tensor<8x6xf32>, %bias: tensor<6xf32>) -> tensor<8x6xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %c = tensor.constant {value = dense<[[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0]]> : tensor<8x1xf32>} : tensor<8x1xf32>
  %x_s = shard.shard %x to %rows : tensor<8x6xf32>
  %a = tensor.add %x_s, %y : tensor<8x6xf32>
  %a_s = shard.shard %a to %rows : tensor<8x6xf32>
  %b = tensor.add %a_s, %bias : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %b_s = shard.shard %b to %rows : tensor<8x6xf32>
  %d = tensor.sub %b_s, %c : (tensor<8x6xf32>, tensor<8x1xf32>) -> tensor<8x6xf32>
  %d_s = shard.shard %d to %rows : tensor<8x6xf32>
  return %d_s : tensor<8x6xf32>
}

// An unannotated result is replicated: the op still runs on the rows its operand has, then
// the rows are gathered (once, where the value is made, not per use).
// CHECK-LABEL: func.func @unannotated_result(
// CHECK-SAME: -> (tensor<8x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}, tensor<8x6xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>})
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<2x6xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[E]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x6xf32> -> tensor<8x6xf32>
// CHECK-NEXT: %[[N:.*]] = tensor.neg %[[G]] : tensor<8x6xf32>
// CHECK-NEXT: return %[[G]], %[[N]]
func.func @unannotated_result(%x: tensor<8x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>) {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<8x6xf32>
  %e = tensor.exp %x_s : tensor<8x6xf32>
  %n = tensor.neg %e : tensor<8x6xf32>
  return %e, %n : tensor<8x6xf32>, tensor<8x6xf32>
}

// Softmax along the columns of a row-split input, then a transpose: both stay on local rows
// (the transpose's result is split along its dim 1, which its dim-0 operand rows become).
// CHECK-LABEL: func.func @softmax_transpose(
// CHECK-NEXT: %[[S:.*]] = tensor.softmax %arg0 {axis = 1 : i64} : tensor<2x6xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %[[S]] {perm = array<i64: 1, 0>} : (tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<6x2xf32>
func.func @softmax_transpose(%x: tensor<8x6xf32>) -> tensor<6x8xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<8x6xf32>
  %s = tensor.softmax %x_s {axis = 1 : i64} : tensor<8x6xf32>
  %s_s = shard.shard %s to %rows : tensor<8x6xf32>
  %t = tensor.transpose %s_s {perm = array<i64: 1, 0>} : (tensor<8x6xf32>) -> tensor<6x8xf32>
  %t_s = shard.shard %t to %cols : tensor<6x8xf32>
  return %t_s : tensor<6x8xf32>
}

// Softmax cannot split its axis: a column-split input is gathered first (and the result,
// annotated by columns, sliced back locally).
// CHECK-LABEL: func.func @softmax_whole_axis(
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 1 : tensor<8x3xf32> -> tensor<8x12xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.softmax %[[G]] {axis = 1 : i64} : tensor<8x12xf32>
// CHECK-NEXT: %[[L:.*]] = shard.all_slice %[[S]] on @mesh grid_axes = [0] slice_axis = 1 : tensor<8x12xf32> -> tensor<8x3xf32>
// CHECK-NEXT: return %[[L]]
func.func @softmax_whole_axis(%x: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %x_s = shard.shard %x to %cols : tensor<8x12xf32>
  %s = tensor.softmax %x_s {axis = 1 : i64} : tensor<8x12xf32>
  %s_s = shard.shard %s to %cols : tensor<8x12xf32>
  return %s_s : tensor<8x12xf32>
}
