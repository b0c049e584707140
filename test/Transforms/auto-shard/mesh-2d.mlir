// An MLP on a 2-D grid 2x4: dp is slow (alpha 20 us, 12.5 GB/s), tp fast (alpha 5 us,
// 100 GB/s), 1 GFLOP/s per device. The optimum splits the batch over tp and the hidden dim over
// dp (8-way compute: 2.0992 ms), resolves the second matmul's pending sum over dp by one
// all_reduce of the local 4 KiB (20.33 us) and gathers the result over tp (5.12 us): 25.45 us of
// communication. The mirror plan (batch over dp, hidden over tp) would pay 25.78 us.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --shard-report=%t/plan.json -p 'builtin.module(auto-shard{mesh=2x4 axes=dp,tp alpha=20e-6,5e-6 bandwidth=12.5e9,100e9 peak-flops=1e9})' | FileCheck %s
// RUN: %python %S/Inputs/plan_summary.py %t/plan.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=PLAN
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=2x4 axes=dp,tp alpha=20e-6,5e-6 bandwidth=12.5e9,100e9 peak-flops=1e9},shard-partition)' | FileCheck %s --check-prefix=SPMD
// The partitioned program on 8 simulated devices computes what the plain one computes:
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=2x4 axes=dp,tp alpha=20e-6,5e-6 bandwidth=12.5e9,100e9 peak-flops=1e9},shard-partition)' -o %t/part.mlir
// RUN: xcs-run %s --entry mlp_2d -i x=random:1 -i w1=random:2 -i w2=random:3 -o %t/full
// RUN: xcs-run %t/part.mlir --entry mlp_2d --devices=2x4 -i x=random:1 -i w1=random:2 -i w2=random:3 -o %t/devices
// RUN: xcs-run %t/part.mlir --entry mlp_2d --devices=2x4 --interp -i x=random:1 -i w1=random:2 -i w2=random:3 -o %t/devices-interp
// RUN: %python %S/../../Run/Inputs/compare_npy.py --scaled %t/full %t/devices %t/devices-interp | FileCheck %s --check-prefix=SAME
// SAME: devices y.npy: {{equal|close}}
// SAME: devices-interp y.npy: {{equal|close}}

// CHECK: shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}
// CHECK-LABEL: func.func @mlp_2d(
// CHECK-NEXT: %[[S0:.*]] = shard.sharding @mesh split_axes = {{\[\[}}1]] : !shard.sharding
// CHECK-NEXT: shard.shard %arg0 to %[[S0]] : tensor<16x256xf32>
// CHECK-NEXT: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [0]] : !shard.sharding
// CHECK-NEXT: shard.shard %arg1 to %[[S1]] : tensor<256x1024xf32>
// CHECK-NEXT: %[[S2:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: shard.shard %arg2 to %[[S2]] : tensor<1024x256xf32>
// CHECK: %[[H:.*]] = tensor.matmul
// CHECK-NEXT: %[[SH:.*]] = shard.sharding @mesh split_axes = {{\[\[}}1], [0]]
// CHECK-NEXT: shard.shard %[[H]] to %[[SH]] : tensor<16x1024xf32>

// PLAN: function @mlp_2d total=2.124651e-03 compute=2.099200e-03 comm=2.545056e-05 memory=1093632 optimal=true mesh=2x4:dp,tp
// PLAN-NEXT: arg x [tp,-]
// PLAN-NEXT: arg w1 [-,dp]
// PLAN-NEXT: arg w2 [dp,-]
// PLAN-NEXT: op h tensor.matmul in [tp,-] [-,dp] produced [tp,dp] result [tp,dp] collectives none
// PLAN-NEXT: op a tensor.relu in [tp,dp] produced [tp,dp] result [tp,dp] collectives none
// PLAN-NEXT: op y tensor.matmul in [tp,dp] [dp,-] produced [tp,-]+P(dp) result [tp,-] collectives all_reduce(dp,4096)
// PLAN-NEXT: result 0 required [-,-] final [-,-] reshard all_gather(tp,4096)

// SPMD-LABEL: func.func @mlp_2d(
// SPMD-SAME: %arg0: tensor<4x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}1]]>, xcs.name = "x"}
// SPMD-SAME: %arg1: tensor<256x512xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>, xcs.name = "w1"}
// SPMD-SAME: %arg2: tensor<512x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "w2"}
// SPMD-SAME: -> (tensor<16x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>, xcs.name = "y"})
// SPMD-NEXT: %[[H:.*]] = tensor.matmul %arg0, %arg1 : (tensor<4x256xf32>, tensor<256x512xf32>) -> tensor<4x512xf32>
// SPMD-NEXT: %[[A:.*]] = tensor.relu %[[H]] : tensor<4x512xf32>
// SPMD-NEXT: %[[Y:.*]] = tensor.matmul %[[A]], %arg2 : (tensor<4x512xf32>, tensor<512x256xf32>) -> tensor<4x256xf32>
// SPMD-NEXT: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] : tensor<4x256xf32> -> tensor<4x256xf32>
// SPMD-NEXT: %[[G:.*]] = shard.all_gather %[[R]] on @mesh grid_axes = [1] gather_axis = 0 : tensor<4x256xf32> -> tensor<16x256xf32>
// SPMD-NEXT: return %[[G]] : tensor<16x256xf32>
func.func @mlp_2d(%x: tensor<16x256xf32> {xcs.name = "x"}, %w1: tensor<256x1024xf32> {xcs.name = "w1"},
                  %w2: tensor<1024x256xf32> {xcs.name = "w2"}) -> (tensor<16x256xf32> {xcs.name = "y"}) {
  %h = tensor.matmul %x, %w1 : (tensor<16x256xf32>, tensor<256x1024xf32>) -> tensor<16x1024xf32> loc("h")
  %a = tensor.relu %h : tensor<16x1024xf32> loc("a")
  %y = tensor.matmul %a, %w2 : (tensor<16x1024xf32>, tensor<1024x256xf32>) -> tensor<16x256xf32> loc("y")
  return %y : tensor<16x256xf32>
}
