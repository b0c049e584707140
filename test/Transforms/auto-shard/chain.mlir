// Chains on a 1-D grid of 4 (alpha = 20 us, 12.5 GB/s, 10 MFLOP/s per device), arguments free,
// results wanted replicated.
// - exp, transpose, mul, sum over the last dim: x is stored split by columns, which the
//   transpose turns into rows, so the sum reduces a whole local dim (no pending value) and the
//   only collective is the all_gather of the 512-byte result.
// - A max over the rows then a mul by a constant, feeding both the result and an opaque
//   reshape (which reads its operand replicated): the max's result is gathered once, before
//   the mul (after it, the two uses would each pay a gather). The constant is not a value of the
//   model (it is materialised as needed) and is not annotated.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --shard-report=%t/plan.json -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e7})' | FileCheck %s
// RUN: %python %S/Inputs/plan_summary.py %t/plan.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=PLAN
// RUN: xcs-opt %s --shard-report=%t/free.json -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e7 outputs=free})' -o /dev/null
// RUN: %python %S/Inputs/plan_summary.py %t/free.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=FREE

// outputs=free: results may stay split. @chain needs no collective at all; in @chain_max the
// mul runs on the split max and only the opaque reshape's use is gathered.
// FREE: function @chain {{.*}} comm=0.000000e+00 {{.*}} optimal=true
// FREE: result 0 required none final [tp] reshard none
// FREE: function @chain_max
// FREE: op y tensor.mul in [tp] [tp] produced [tp] result [tp] collectives none
// FREE-NEXT: op z tensor.reshape in [-] produced [-,-] result [-,-] collectives all_gather(tp,64)
// FREE-NEXT: result 0 required none final [tp] reshard none

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT: %[[C:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [0]] : !shard.sharding
// CHECK-NEXT: %[[X:.*]] = shard.shard %arg0 to %[[C]] : tensor<64x128xf32>
// CHECK-NEXT: tensor.exp %[[X]]
// CHECK: tensor.reduce
// CHECK-NEXT: %[[R:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK-NEXT: %[[S:.*]] = shard.shard %{{.*}} to %[[R]] : tensor<128xf32>
// CHECK-NEXT: %[[REP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}]]
// CHECK-NEXT: %[[OUT:.*]] = shard.shard %[[S]] to %[[REP]] annotate_for_users : tensor<128xf32>
// CHECK-NEXT: return %[[OUT]]
// PLAN: function @chain {{.*}} optimal=true mesh=4:tp
// PLAN-NEXT: arg %arg0 [-,tp]
// PLAN-NEXT: op e tensor.exp in [-,tp] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op t tensor.transpose in [-,tp] produced [tp,-] result [tp,-] collectives none
// PLAN-NEXT: op m tensor.mul in [tp,-] [tp,-] produced [tp,-] result [tp,-] collectives none
// PLAN-NEXT: op s tensor.reduce in [tp,-] produced [tp] result [tp] collectives none
// PLAN-NEXT: result 0 required [-] final [-] reshard all_gather(tp,128)

// CHECK-LABEL: func.func @chain_max(
// CHECK: %[[M:.*]] = tensor.reduce
// CHECK-NEXT: %[[SP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK-NEXT: %[[MS:.*]] = shard.shard %[[M]] to %[[SP]] : tensor<64xf32>
// CHECK-NEXT: %[[K:.*]] = tensor.constant
// CHECK-NEXT: %[[REP:.*]] = shard.sharding @mesh split_axes = {{\[\[}}]]
// CHECK-NEXT: %[[MR:.*]] = shard.shard %[[MS]] to %[[REP]] annotate_for_users : tensor<64xf32>
// CHECK-NEXT: tensor.mul %[[MR]], %[[K]]
// PLAN: function @chain_max {{.*}} optimal=true mesh=4:tp
// PLAN-NEXT: arg %arg0 [tp,-]
// PLAN-NEXT: op t tensor.transpose in [tp,-] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op s tensor.reduce in [-,tp] produced [tp] result [tp] collectives none
// PLAN-NEXT: op y tensor.mul in [-] [-] produced [-] result [-] collectives all_gather(tp,64)
// PLAN-NEXT: op z tensor.reshape in [-] produced [-,-] result [-,-] collectives none
// PLAN-NEXT: result 0 required [-] final [-] reshard none
// PLAN-NEXT: result 1 required [-,-] final [-,-] reshard none
func.func @chain(%x: tensor<64x128xf32>) -> tensor<128xf32> {
  %e = tensor.exp %x : tensor<64x128xf32> loc("e")
  %t = tensor.transpose %e {perm = array<i64: 1, 0>} : (tensor<64x128xf32>) -> tensor<128x64xf32> loc("t")
  %m = tensor.mul %t, %t : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32> loc("m")
  %s = tensor.reduce %m {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<128x64xf32>) -> tensor<128xf32> loc("s")
  return %s : tensor<128xf32>
}
func.func @chain_max(%x: tensor<64x128xf32>) -> (tensor<64xf32>, tensor<8x8xf32>) {
  %t = tensor.transpose %x {perm = array<i64: 1, 0>} : (tensor<64x128xf32>) -> tensor<128x64xf32> loc("t")
  %s = tensor.reduce %t {axes = array<i64: 0>, keepdims = false, kind = "max"} : (tensor<128x64xf32>) -> tensor<64xf32> loc("s")
  %c = tensor.constant {value = dense<2.0> : tensor<64xf32>} : tensor<64xf32>
  %y = tensor.mul %s, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32> loc("y")
  %z = tensor.reshape %y : (tensor<64xf32>) -> tensor<8x8xf32> loc("z")
  return %y, %z : tensor<64xf32>, tensor<8x8xf32>
}
