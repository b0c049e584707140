// auto-shard on MLPs over a 1-D grid of 4 (alpha = 20 us, 12.5 GB/s, 1 GFLOP/s per device).
// Arguments are free (the caller lays them out), the result is wanted replicated.
// - A batch of 64 rows: data parallel. Every op runs on 16 local rows, and the one collective
//   is the all_gather of the result: alpha + 3/4 * 64 KiB / 12.5e9 = 23.93 us, cheaper than
//   the all_reduce of a Megatron split (alpha + 2 * 3/4 * 64 KiB / 12.5e9 = 27.86 us).
// - A batch of 2 rows (not divisible by 4): Megatron's split, w1 by columns and w2 by rows,
//   the hidden activation split by columns, one all_reduce of the pending sum (2 KiB).
// The plan is written as upstream writes annotations (shard.shard after each value), and the
// report (--shard-report) is valid against schemas/shard_report_schema.json.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --shard-report=%t/plan.json -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9})' | FileCheck %s
// RUN: %python %S/Inputs/plan_summary.py %t/plan.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=PLAN
// RUN: xcs-opt %s --shard-report=%t/limit.json -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9 memory-limit=1MiB})' -o /dev/null
// RUN: %python %S/Inputs/plan_summary.py %t/limit.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=LIMIT

// Under memory-limit=1MiB the data-parallel plan of @mlp_batch (2,396,160 bytes per device:
// the weights replicated) does not fit; the optimum within the limit is Megatron's split
// (918,528 bytes), paying one all_reduce of 64 KiB (27.86 us) instead of the gather (23.93 us).
// LIMIT: function @mlp_batch total=1.683785e-02 compute=1.680998e-02 comm=2.786432e-05 memory=918528 optimal=true mesh=4:tp
// LIMIT-NEXT: arg x [-,-]
// LIMIT-NEXT: arg w1 [-,tp]
// LIMIT-NEXT: arg %arg2 [tp]
// LIMIT-NEXT: arg w2 [tp,-]
// LIMIT: op y tensor.matmul in [-,tp] [tp,-] produced [-,-]+P(tp) result [-,-] collectives all_reduce(tp,65536)

// CHECK: shard.grid @mesh(shape = 4) {xcs.axes = ["tp"]}
// CHECK-LABEL: func.func @mlp_batch(
// CHECK-NEXT: %[[ROWS:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[X:.*]] = shard.shard %arg0 to %[[ROWS]] : tensor<64x256xf32>
// CHECK-NEXT: %[[REP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}]] : !shard.sharding
// CHECK-NEXT: %[[W1:.*]] = shard.shard %arg1 to %[[REP]] : tensor<256x1024xf32>
// CHECK: %[[H:.*]] = tensor.matmul %[[X]], %[[W1]]
// CHECK-NEXT: %[[HROWS:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK-NEXT: %[[HS:.*]] = shard.shard %[[H]] to %[[HROWS]] : tensor<64x1024xf32>
// CHECK-NEXT: tensor.add %[[HS]],
// CHECK: %[[Y:.*]] = tensor.matmul
// CHECK-NEXT: %[[YROWS:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK-NEXT: %[[YS:.*]] = shard.shard %[[Y]] to %[[YROWS]] : tensor<64x256xf32>
// CHECK-NEXT: %[[YREP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}]]
// CHECK-NEXT: %[[OUT:.*]] = shard.shard %[[YS]] to %[[YREP]] annotate_for_users : tensor<64x256xf32>
// CHECK-NEXT: return %[[OUT]] : tensor<64x256xf32>

// PLAN: function @mlp_batch total=1.683392e-02 compute=1.680998e-02 comm=2.393216e-05 memory=2396160 optimal=true mesh=4:tp
// PLAN-NEXT: arg x [tp,-]
// PLAN-NEXT: arg w1 [-,-]
// PLAN-NEXT: arg %arg2 [-]
// PLAN-NEXT: arg w2 [-,-]
// PLAN-NEXT: op h tensor.matmul in [tp,-] [-,-] produced [tp,-] result [tp,-] collectives none
// PLAN-NEXT: op hb tensor.add in [tp,-] [-] produced [tp,-] result [tp,-] collectives none
// PLAN-NEXT: op a tensor.relu in [tp,-] produced [tp,-] result [tp,-] collectives none
// PLAN-NEXT: op y tensor.matmul in [tp,-] [-,-] produced [tp,-] result [tp,-] collectives none
// PLAN-NEXT: result 0 required [-,-] final [-,-] reshard all_gather(tp,16384)
func.func @mlp_batch(%x: tensor<64x256xf32> {xcs.name = "x"}, %w1: tensor<256x1024xf32> {xcs.name = "w1"},
                     %b1: tensor<1024xf32>, %w2: tensor<1024x256xf32> {xcs.name = "w2"}) -> tensor<64x256xf32> {
  %h = tensor.matmul %x, %w1 : (tensor<64x256xf32>, tensor<256x1024xf32>) -> tensor<64x1024xf32> loc("h")
  %hb = tensor.add %h, %b1 : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32> loc("hb")
  %a = tensor.relu %hb : tensor<64x1024xf32> loc("a")
  %y = tensor.matmul %a, %w2 : (tensor<64x1024xf32>, tensor<1024x256xf32>) -> tensor<64x256xf32> loc("y")
  return %y : tensor<64x256xf32>
}

// CHECK-LABEL: func.func @mlp_small_batch(
// CHECK: tensor.relu
// CHECK: %[[Y:.*]] = tensor.matmul
// CHECK-NEXT: %[[YREP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}]]
// CHECK-NEXT: %[[YS:.*]] = shard.shard %[[Y]] to %[[YREP]] : tensor<2x256xf32>
// CHECK-NEXT: return %[[YS]] : tensor<2x256xf32>

// PLAN: function @mlp_small_batch total=5.455578e-04 compute=5.253120e-04 comm=2.024576e-05 memory=537600 optimal=true mesh=4:tp
// PLAN-NEXT: arg x [-,-]
// PLAN-NEXT: arg w1 [-,tp]
// PLAN-NEXT: arg %arg2 [tp]
// PLAN-NEXT: arg w2 [tp,-]
// PLAN-NEXT: op h tensor.matmul in [-,-] [-,tp] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op hb tensor.add in [-,tp] [tp] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op a tensor.relu in [-,tp] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op y tensor.matmul in [-,tp] [tp,-] produced [-,-]+P(tp) result [-,-] collectives all_reduce(tp,2048)
// PLAN-NEXT: result 0 required [-,-] final [-,-] reshard none
func.func @mlp_small_batch(%x: tensor<2x256xf32> {xcs.name = "x"}, %w1: tensor<256x1024xf32> {xcs.name = "w1"},
                           %b1: tensor<1024xf32>, %w2: tensor<1024x256xf32> {xcs.name = "w2"}) -> tensor<2x256xf32> {
  %h = tensor.matmul %x, %w1 : (tensor<2x256xf32>, tensor<256x1024xf32>) -> tensor<2x1024xf32> loc("h")
  %hb = tensor.add %h, %b1 : (tensor<2x1024xf32>, tensor<1024xf32>) -> tensor<2x1024xf32> loc("hb")
  %a = tensor.relu %hb : tensor<2x1024xf32> loc("a")
  %y = tensor.matmul %a, %w2 : (tensor<2x1024xf32>, tensor<1024x256xf32>) -> tensor<2x256xf32> loc("y")
  return %y : tensor<2x256xf32>
}
