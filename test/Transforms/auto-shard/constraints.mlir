// User annotations are constraints (the cost model's section 1): an argument annotated with a
// sharding is stored in it, a value annotated for its users is read in that sharding, and an
// annotate_for_users before the return fixes the result's required sharding. Mesh 2x4 (dp:
// alpha 20 us, 12.5 GB/s; tp: alpha 5 us, 100 GB/s), 1 GFLOP/s per device, from the module's
// grid (no mesh= option; its axis names come from the grid too).
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --shard-report=%t/plan.json -p 'builtin.module(auto-shard{alpha=20e-6,5e-6 bandwidth=12.5e9,100e9 peak-flops=1e9})' | FileCheck %s
// RUN: %python %S/Inputs/plan_summary.py %t/plan.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=PLAN
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{alpha=20e-6,5e-6 bandwidth=12.5e9,100e9 peak-flops=1e9},shard-partition)' | FileCheck %s --check-prefix=SPMD

// CHECK: shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}
// CHECK-NOT: shard.grid
shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}

// x is fixed split along K (tp), the result wanted split by rows (tp). The optimum splits the
// matmul's K over tp and N over dp (8-way compute: 2^23 FLOPs / 8 / 1e9 = 1.048576 ms), the
// pending sum over tp is resolved by one reduce_scatter onto rows (alpha + 3/4 * 8 KiB / 1e11
// = 5.06 us), and the dp split of the columns is gathered for the result (alpha + 1/2 * 4 KiB /
// 12.5e9 = 20.16 us), which the user's annotation makes.
// CHECK-LABEL: func.func @k_split(
// CHECK: %[[K:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]]
// CHECK-NEXT: %[[XS:.*]] = shard.shard %arg0 to %[[K]] : tensor<16x1024xf32>
// CHECK: %[[Y:.*]] = tensor.matmul
// CHECK-NEXT: %[[RES:.*]] = shard.sharding @mesh split_axes = {{\[\[}}1], [0]]
// CHECK-NEXT: %[[YS:.*]] = shard.shard %[[Y]] to %[[RES]] : tensor<16x256xf32>
// CHECK-NEXT: %[[OUT:.*]] = shard.shard %[[YS]] to %{{.*}} annotate_for_users : tensor<16x256xf32>
// CHECK-NEXT: return %[[OUT]]
// PLAN: function @k_split total=1.073801e-03 compute=1.048576e-03 comm=2.522528e-05 memory=161792 optimal=true mesh=2x4:dp,tp
// PLAN-NEXT: arg %arg0 [-,tp]
// PLAN-NEXT: arg %arg1 [tp,dp]
// PLAN-NEXT: op y tensor.matmul in [-,tp] [tp,dp] produced [-,dp]+P(tp) result [tp,dp] collectives reduce_scatter(tp,8192)
// PLAN-NEXT: result 0 required [tp,-] final [tp,-] reshard none
// PLAN-NEXT: annotation %2 [-,tp] collectives none
// PLAN-NEXT: annotation %4 for_users [tp,-] collectives all_gather(dp,2048)
// SPMD-LABEL: func.func @k_split(
// SPMD-SAME: %arg0: tensor<16x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [1]]>}
// SPMD-SAME: %arg1: tensor<256x128xf32> {shard.split_axes = #shard<axisarray{{\[\[}}1], [0]]>}
// SPMD-SAME: -> (tensor<4x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}1]]>})
// SPMD-NEXT: %[[P:.*]] = tensor.matmul %arg0, %arg1 : (tensor<16x256xf32>, tensor<256x128xf32>) -> tensor<16x128xf32>
// SPMD-NEXT: %[[R:.*]] = shard.reduce_scatter %[[P]] on @mesh grid_axes = [1] scatter_axis = 0 : tensor<16x128xf32> -> tensor<4x128xf32>
// SPMD-NEXT: %[[G:.*]] = shard.all_gather %[[R]] on @mesh grid_axes = [0] gather_axis = 1 : tensor<4x128xf32> -> tensor<4x256xf32>
// SPMD-NEXT: return %[[G]] : tensor<4x256xf32>
func.func @k_split(%x: tensor<16x1024xf32>, %w: tensor<1024x256xf32>) -> tensor<16x256xf32> {
  %k = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %rows = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %x_k = shard.shard %x to %k : tensor<16x1024xf32>
  %y = tensor.matmul %x_k, %w : (tensor<16x1024xf32>, tensor<1024x256xf32>) -> tensor<16x256xf32> loc("y")
  %y_rows = shard.shard %y to %rows annotate_for_users : tensor<16x256xf32>
  return %y_rows : tensor<16x256xf32>
}

// An argument fixed as [[0], [1]] and the result wanted as [[1], [0]]: the exp runs on the
// stored split, and the swap is the shortest path of 3.3 (gather, all_to_all, slice), written
// as a chain: two annotate_for_users links of the plan, then the user's annotation makes the
// last step. The partitioner emits the three collectives one for one.
// CHECK-LABEL: func.func @swap(
// CHECK: %[[E:.*]] = tensor.exp
// CHECK-NEXT: %[[S0:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0], [1]]
// CHECK-NEXT: %[[ES:.*]] = shard.shard %[[E]] to %[[S0]] : tensor<64x64xf32>
// CHECK-NEXT: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]]
// CHECK-NEXT: %[[L1:.*]] = shard.shard %[[ES]] to %[[S1]] annotate_for_users : tensor<64x64xf32>
// CHECK-NEXT: %[[S2:.*]] = shard.sharding @mesh split_axes = {{\[\[}}1]]
// CHECK-NEXT: %[[L2:.*]] = shard.shard %[[L1]] to %[[S2]] annotate_for_users : tensor<64x64xf32>
// CHECK-NEXT: %[[OUT:.*]] = shard.shard %[[L2]] to %{{.*}} annotate_for_users : tensor<64x64xf32>
// CHECK-NEXT: return %[[OUT]]
// PLAN: function @swap
// PLAN: annotation %4 for_users [tp,dp] collectives all_gather(dp,2048) all_to_all(tp,4096) all_slice(dp,4096)
// SPMD-LABEL: func.func @swap(
// SPMD-NEXT: %[[E:.*]] = tensor.exp %arg0 : tensor<32x16xf32>
// SPMD-NEXT: %[[G:.*]] = shard.all_gather %[[E]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<32x16xf32> -> tensor<64x16xf32>
// SPMD-NEXT: %[[A:.*]] = shard.all_to_all %[[G]] on @mesh grid_axes = [1] split_axis = 0 concat_axis = 1 : tensor<64x16xf32> -> tensor<16x64xf32>
// SPMD-NEXT: %[[S:.*]] = shard.all_slice %[[A]] on @mesh grid_axes = [0] slice_axis = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
// SPMD-NEXT: return %[[S]] : tensor<16x32xf32>
func.func @swap(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %in = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %out = shard.sharding @mesh split_axes = [[1], [0]] : !shard.sharding
  %x_s = shard.shard %x to %in : tensor<64x64xf32>
  %e = tensor.exp %x_s : tensor<64x64xf32> loc("e")
  %e_s = shard.shard %e to %out annotate_for_users : tensor<64x64xf32>
  return %e_s : tensor<64x64xf32>
}

// A value in the middle annotated replicated for its users: the relu reads %e gathered (two
// all_gathers, priced as that use: the plan's first step is a link of the chain, the user's
// annotation makes the second). The exp still runs on 8 local blocks, and so does the relu,
// on blocks sliced locally (free) from the gathered value; the result is gathered again.
// CHECK-LABEL: func.func @middle(
// CHECK: %[[E:.*]] = tensor.exp
// CHECK-NEXT: %[[S0:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0], [1]]
// CHECK-NEXT: %[[ES:.*]] = shard.shard %[[E]] to %[[S0]] : tensor<1024x1024xf32>
// CHECK-NEXT: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]]
// CHECK-NEXT: %[[L1:.*]] = shard.shard %[[ES]] to %[[S1]] annotate_for_users : tensor<1024x1024xf32>
// CHECK-NEXT: %[[REP:.*]] = shard.shard %[[L1]] to %{{.*}} annotate_for_users : tensor<1024x1024xf32>
// CHECK-NEXT: %[[S2:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK-NEXT: %[[L2:.*]] = shard.shard %[[REP]] to %[[S2]] annotate_for_users : tensor<1024x1024xf32>
// CHECK-NEXT: %[[S3:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0], [1]]
// CHECK-NEXT: %[[L3:.*]] = shard.shard %[[L2]] to %[[S3]] annotate_for_users : tensor<1024x1024xf32>
// CHECK-NEXT: tensor.relu %[[L3]]
// PLAN: function @middle total=4.589446e-04 compute=2.621440e-04 comm=1.968006e-04 memory=10485760 optimal=true mesh=2x4:dp,tp
// PLAN-NEXT: arg %arg0 [dp,tp]
// PLAN-NEXT: op e tensor.exp in [dp,tp] produced [dp,tp] result [dp,tp] collectives none
// PLAN-NEXT: op r tensor.relu in [dp,tp] produced [dp,tp] result [dp,tp] collectives all_slice(dp,4194304) all_slice(tp,2097152)
// PLAN-NEXT: result 0 required [-,-] final [-,-] reshard all_gather(dp,524288) all_gather(tp,1048576)
// PLAN-NEXT: annotation %2 for_users [-,-] collectives all_gather(dp,524288) all_gather(tp,1048576)
func.func @middle(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %rep = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %e = tensor.exp %x : tensor<1024x1024xf32> loc("e")
  %e_r = shard.shard %e to %rep annotate_for_users : tensor<1024x1024xf32>
  %r = tensor.relu %e_r : tensor<1024x1024xf32> loc("r")
  return %r : tensor<1024x1024xf32>
}
