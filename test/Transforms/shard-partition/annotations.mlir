// What annotations mean to the partitioner (docs/shard.md): a value is stored in the sharding
// of its first annotation that is not `annotate_for_users` (replicated if it has none); any
// later annotation of it, or of an annotation's result (a chain), reshards; an
// `annotate_for_users` annotation gives the sharding its users read.
// RUN: xcs-opt %s --shard-partition | FileCheck %s

shard.grid @mesh(shape = 2) {xcs.axes = ["a"]}
shard.grid @mesh1x2(shape = 1x2)

// Unannotated values are replicated (upstream's partitioner crashes on %y here).
// CHECK-LABEL: func.func @unannotated_values(
// CHECK-SAME: %arg0: tensor<2x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-SAME: %arg1: tensor<4x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}
// CHECK-SAME: -> (tensor<4x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>})
// CHECK-NEXT: %[[Y:.*]] = shard.all_slice %arg1 on @mesh grid_axes = [0] slice_axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[Z:.*]] = tensor.add %arg0, %[[Y]] : tensor<2x8xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[Z]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @unannotated_values(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %s : tensor<4x8xf32>
  %xu = shard.shard %xa to %s annotate_for_users : tensor<4x8xf32>
  %z = tensor.add %xu, %y : tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// A chain: rows, then columns: one all_to_all.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: -> (tensor<4x4xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>})
// CHECK-NEXT: %[[T:.*]] = shard.all_to_all %arg0 on @mesh grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %a = shard.shard %x to %rows : tensor<4x8xf32>
  %b = shard.shard %a to %cols : tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// The first annotation stores the value; a second one of the same value reshards it for the
// users of its result; uses of the value itself read it as stored; each annotate_for_users
// use reads its own sharding.
// CHECK-LABEL: func.func @two_annotations(
// CHECK-SAME: %arg0: tensor<2x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// CHECK-NEXT: %[[C:.*]] = shard.all_to_all %arg0 on @mesh grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.exp %[[C]] : tensor<4x4xf32>
// CHECK-NEXT: %[[N:.*]] = tensor.neg %arg0 : tensor<2x8xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.tanh %[[R]] : tensor<4x8xf32>
// CHECK-NEXT: return %[[E]], %[[N]], %[[T]] : tensor<4x4xf32>, tensor<2x8xf32>, tensor<4x8xf32>
func.func @two_annotations(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %replicated = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %a = shard.shard %x to %rows : tensor<4x8xf32>
  %b = shard.shard %x to %cols : tensor<4x8xf32>
  %e = tensor.exp %b : tensor<4x8xf32>
  %e_s = shard.shard %e to %cols : tensor<4x8xf32>
  %n = tensor.neg %x : tensor<4x8xf32>
  %n_s = shard.shard %n to %rows : tensor<4x8xf32>
  %r = shard.shard %x to %replicated annotate_for_users : tensor<4x8xf32>
  %t = tensor.tanh %r : tensor<4x8xf32>
  return %e_s, %n_s, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Grid axes of size 1 split nothing and are left out of the recorded shardings.
// CHECK-LABEL: func.func @size_one_axis(
// CHECK-SAME: %arg0: tensor<4x4xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [1]]>}
// CHECK-SAME: attributes {shard.spmd_grid = @mesh1x2}
// CHECK-NEXT: tensor.exp %arg0 : tensor<4x4xf32>
func.func @size_one_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @mesh1x2 split_axes = [[0], [1]] : !shard.sharding
  %xa = shard.shard %x to %s : tensor<4x8xf32>
  %e = tensor.exp %xa : tensor<4x8xf32>
  %es = shard.shard %e to %s : tensor<4x8xf32>
  return %es : tensor<4x8xf32>
}

// Integer programs, arguments that are not tensors and the other argument attributes: the
// index argument is passed through and gets no sharding; `xcs.name` stays.
// CHECK-LABEL: func.func @integers(
// CHECK-SAME: %arg0: tensor<3x4xi32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "counts"}
// CHECK-SAME: %arg1: index {xcs.name = "step"}
// CHECK-SAME: -> (tensor<3xi32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "totals"}, index)
// CHECK-NEXT: %[[S:.*]] = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<3x4xi32>) -> tensor<3xi32>
// CHECK-NEXT: return %[[S]], %arg1 : tensor<3xi32>, index
func.func @integers(%x: tensor<6x4xi32> {xcs.name = "counts"}, %step: index {xcs.name = "step"})
    -> (tensor<6xi32> {xcs.name = "totals"}, index) {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %rows : tensor<6x4xi32>
  %s = tensor.reduce %xa {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<6x4xi32>) -> tensor<6xi32>
  %ss = shard.shard %s to %rows : tensor<6xi32>
  return %ss, %step : tensor<6xi32>, index
}

// Several blocks: a branch is opaque (what it passes is replicated, and so are the block
// arguments); the first return fixes the result's sharding, later returns are resharded to it.
// CHECK-LABEL: func.func @branches(
// CHECK-SAME: -> (tensor<2x8xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>})
// CHECK-NEXT: %[[E:.*]] = tensor.exp %arg1 : tensor<2x8xf32>
// CHECK-NEXT: %[[G:.*]] = shard.all_gather %[[E]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2(%[[G]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: return %[[E]] : tensor<2x8xf32>
// CHECK-NEXT: ^bb2(%[[Y:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[S:.*]] = shard.all_slice %[[Y]] on @mesh grid_axes = [0] slice_axis = 0 : tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x8xf32>
func.func @branches(%c: i1, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %rows : tensor<4x8xf32>
  %e = tensor.exp %xa : tensor<4x8xf32>
  %es = shard.shard %e to %rows : tensor<4x8xf32>
  cf.cond_br %c, ^bb1, ^bb2(%es : tensor<4x8xf32>)
^bb1:
  return %es : tensor<4x8xf32>
^bb2(%y: tensor<4x8xf32>):
  return %y : tensor<4x8xf32>
}
