// An MLP split Megatron-style over a 1-D grid: the first weight by columns, the second by
// rows. The hidden activation stays split by columns (relu and the bias add run on local
// slices, the bias sliced locally), the second matmul's K loop is split, so its result is a
// pending sum; annotated replicated, it is resolved by one all_reduce, the only collective.
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 4) {xcs.axes = ["tp"]}

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %arg0: tensor<8x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>, xcs.name = "x"}
// CHECK-SAME: %arg1: tensor<16x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>, xcs.name = "w1"}
// CHECK-SAME: %arg2: tensor<8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-SAME: %arg3: tensor<8x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "w2"}
// CHECK-SAME: -> (tensor<8x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>, xcs.name = "y"})
// CHECK-SAME: attributes {shard.spmd_grid = @mesh}
// CHECK-NEXT: %[[H:.*]] = tensor.matmul %arg0, %arg1 : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.add %[[H]], %arg2 : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.relu %[[B]] : tensor<8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = tensor.matmul %[[R]], %arg3 : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[S:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[S]] : tensor<8x16xf32>
// CHECK-NEXT: }
func.func @mlp(%x: tensor<8x16xf32> {xcs.name = "x"}, %w1: tensor<16x32xf32> {xcs.name = "w1"},
               %b1: tensor<32xf32>, %w2: tensor<32x16xf32> {xcs.name = "w2"})
    -> (tensor<8x16xf32> {xcs.name = "y"}) {
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %replicated = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %w1_s = shard.shard %w1 to %cols : tensor<16x32xf32>
  %b1_s = shard.shard %b1 to %rows : tensor<32xf32>
  %w2_s = shard.shard %w2 to %rows : tensor<32x16xf32>
  %h = tensor.matmul %x, %w1_s : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %h_s = shard.shard %h to %cols : tensor<8x32xf32>
  %hb = tensor.add %h_s, %b1_s : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %hb_s = shard.shard %hb to %cols : tensor<8x32xf32>
  %a = tensor.relu %hb_s : tensor<8x32xf32>
  %a_s = shard.shard %a to %cols : tensor<8x32xf32>
  %y = tensor.matmul %a_s, %w2_s : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %y_s = shard.shard %y to %replicated : tensor<8x16xf32>
  return %y_s : tensor<8x16xf32>
}

// The same MLP as upstream's `--sharding-propagation` writes it: every operand annotated for
// its user, every result with its own sharding, chained. The collectives are the same.
// CHECK-LABEL: func.func @mlp_upstream_style(
// CHECK-SAME: %arg1: tensor<16x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>}
// CHECK-SAME: %arg2: tensor<8x16xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-NEXT: tensor.matmul %arg0, %arg1
// CHECK-NEXT: tensor.matmul
// CHECK-NEXT: shard.all_reduce
// CHECK-NEXT: return
func.func @mlp_upstream_style(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %sharding = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %sharding_annotated = shard.shard %arg1 to %sharding : tensor<16x32xf32>
  %sharding_0 = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %sharding_annotated_1 = shard.shard %arg2 to %sharding_0 : tensor<32x16xf32>
  %sharding_4 = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %sharding_annotated_5 = shard.shard %arg0 to %sharding_4 annotate_for_users : tensor<8x16xf32>
  %sharding_6 = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %sharding_annotated_7 = shard.shard %sharding_annotated to %sharding_6 annotate_for_users : tensor<16x32xf32>
  %0 = tensor.matmul %sharding_annotated_5, %sharding_annotated_7 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %sharding_10 = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %sharding_annotated_11 = shard.shard %0 to %sharding_10 : tensor<8x32xf32>
  %sharding_14 = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %sharding_annotated_15 = shard.shard %sharding_annotated_11 to %sharding_14 annotate_for_users : tensor<8x32xf32>
  %sharding_16 = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %sharding_annotated_17 = shard.shard %sharding_annotated_1 to %sharding_16 annotate_for_users : tensor<32x16xf32>
  %1 = tensor.matmul %sharding_annotated_15, %sharding_annotated_17 : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %sharding_20 = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %sharding_annotated_21 = shard.shard %1 to %sharding_20 : tensor<8x16xf32>
  %sharding_22 = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %sharding_annotated_23 = shard.shard %sharding_annotated_21 to %sharding_22 annotate_for_users : tensor<8x16xf32>
  return %sharding_annotated_23 : tensor<8x16xf32>
}
