// A residual block and multi-head attention on a 1-D grid of 4 (alpha = 20 us, 12.5 GB/s,
// 1 GFLOP/s per device), arguments free, the result wanted replicated.
// - The residual block (a batch of 2 rows, which does not split 4 ways) is split Megatron-style:
//   the hidden activation by columns, one all_reduce of the second matmul's pending sum, and
//   the residual add and layer_norm run replicated on the reduced value.
// - Attention is split by heads (Megatron's attention): projections, scores, the softmax
//   (whole along the keys) and the per-head outputs are local; the output projection sums over
//   the heads, so its result is pending, resolved by one all_reduce (alpha + 2 * 3/4 * 64 KiB /
//   12.5e9 = 27.86 us); splitting the sequence instead would gather keys, values and the
//   result (3 * 23.93 us).
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --shard-report=%t/plan.json -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9})' | FileCheck %s
// RUN: %python %S/Inputs/plan_summary.py %t/plan.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=PLAN
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9},shard-partition)' | FileCheck %s --check-prefix=SPMD

// SPMD-LABEL: func.func @residual(
// SPMD-SAME: %arg0: tensor<2x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}
// SPMD-SAME: %arg1: tensor<256x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>}
// SPMD-SAME: %arg2: tensor<256x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// SPMD-NEXT: %[[H:.*]] = tensor.matmul %arg0, %arg1 : (tensor<2x256xf32>, tensor<256x256xf32>) -> tensor<2x256xf32>
// SPMD-NEXT: %[[A:.*]] = tensor.gelu %[[H]] {approximate = "tanh"} : tensor<2x256xf32>
// SPMD-NEXT: %[[Y:.*]] = tensor.matmul %[[A]], %arg2
// SPMD-NEXT: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] : tensor<2x256xf32> -> tensor<2x256xf32>
// SPMD-NEXT: %[[Z:.*]] = tensor.add %arg0, %[[R]] : tensor<2x256xf32>
// SPMD-NEXT: %[[N:.*]] = tensor.layer_norm %[[Z]], %arg3, %arg4
// SPMD-NEXT: return %[[N]] : tensor<2x256xf32>
// PLAN: function @residual {{.*}} optimal=true mesh=4:tp
// PLAN-NEXT: arg %arg0 [-,-]
// PLAN-NEXT: arg %arg1 [-,tp]
// PLAN-NEXT: arg %arg2 [tp,-]
// PLAN-NEXT: arg %arg3 [-]
// PLAN-NEXT: arg %arg4 [-]
// PLAN-NEXT: op h tensor.matmul in [-,-] [-,tp] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op a tensor.gelu in [-,tp] produced [-,tp] result [-,tp] collectives none
// PLAN-NEXT: op y tensor.matmul in [-,tp] [tp,-] produced [-,-]+P(tp) result [-,-] collectives all_reduce(tp,2048)
// PLAN-NEXT: op z tensor.add in [-,-] [-,-] produced [-,-] result [-,-] collectives none
// PLAN-NEXT: op n tensor.layer_norm in [-,-] [-] [-] produced [-,-] result [-,-] collectives none
// PLAN-NEXT: result 0 required [-,-] final [-,-] reshard none
// CHECK-LABEL: func.func @residual(
// CHECK: tensor.gelu
// CHECK: %[[Y:.*]] = tensor.matmul
// CHECK-NEXT: %[[S:.*]] = shard.sharding @mesh split_axes = {{\[\[}}]]
// CHECK-NEXT: %[[YS:.*]] = shard.shard %[[Y]] to %[[S]] : tensor<2x256xf32>
// CHECK-NEXT: tensor.add %{{.*}}, %[[YS]]
func.func @residual(%x: tensor<2x256xf32>, %w1: tensor<256x1024xf32>, %w2: tensor<1024x256xf32>,
                    %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<2x256xf32> {
  %h = tensor.matmul %x, %w1 : (tensor<2x256xf32>, tensor<256x1024xf32>) -> tensor<2x1024xf32> loc("h")
  %a = tensor.gelu %h {approximate = "tanh"} : tensor<2x1024xf32> loc("a")
  %y = tensor.matmul %a, %w2 : (tensor<2x1024xf32>, tensor<1024x256xf32>) -> tensor<2x256xf32> loc("y")
  %z = tensor.add %x, %y : (tensor<2x256xf32>, tensor<2x256xf32>) -> tensor<2x256xf32> loc("z")
  %n = tensor.layer_norm %z, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<2x256xf32> loc("n")
  return %n : tensor<2x256xf32>
}

// SPMD-LABEL: func.func @attention(
// SPMD-SAME: %arg0: tensor<64x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>}
// SPMD-SAME: %arg1: tensor<2x256x32xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// SPMD-SAME: %arg4: tensor<2x32x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>}
// SPMD-NEXT: %[[Q:.*]] = tensor.einsum %arg0, %arg1 {equation = "sd,hde->hse"} : (tensor<64x256xf32>, tensor<2x256x32xf32>) -> tensor<2x64x32xf32>
// SPMD-NEXT: %[[K:.*]] = tensor.einsum %arg0, %arg2
// SPMD-NEXT: %[[V:.*]] = tensor.einsum %arg0, %arg3
// SPMD-NEXT: %[[S:.*]] = tensor.einsum %[[Q]], %[[K]] {equation = "hse,hte->hst"} : (tensor<2x64x32xf32>, tensor<2x64x32xf32>) -> tensor<2x64x64xf32>
// SPMD-NEXT: %[[P:.*]] = tensor.softmax %[[S]] {axis = 2 : i64} : tensor<2x64x64xf32>
// SPMD-NEXT: %[[O:.*]] = tensor.einsum %[[P]], %[[V]]
// SPMD-NEXT: %[[Y:.*]] = tensor.einsum %[[O]], %arg4 {equation = "hse,hed->sd"} : (tensor<2x64x32xf32>, tensor<2x32x256xf32>) -> tensor<64x256xf32>
// SPMD-NEXT: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] : tensor<64x256xf32> -> tensor<64x256xf32>
// SPMD-NEXT: %[[Z:.*]] = tensor.add %arg0, %[[R]] : tensor<64x256xf32>
// SPMD-NEXT: return %[[Z]] : tensor<64x256xf32>
// PLAN: function @attention {{.*}} comm=2.786432e-05 {{.*}} optimal=true mesh=4:tp
// PLAN-NEXT: arg %arg0 [-,-]
// PLAN-NEXT: arg %arg1 [tp,-,-]
// PLAN-NEXT: arg %arg2 [tp,-,-]
// PLAN-NEXT: arg %arg3 [tp,-,-]
// PLAN-NEXT: arg %arg4 [tp,-,-]
// PLAN-NEXT: op q tensor.einsum in [-,-] [tp,-,-] produced [tp,-,-] result [tp,-,-] collectives none
// PLAN-NEXT: op k tensor.einsum in [-,-] [tp,-,-] produced [tp,-,-] result [tp,-,-] collectives none
// PLAN-NEXT: op v tensor.einsum in [-,-] [tp,-,-] produced [tp,-,-] result [tp,-,-] collectives none
// PLAN-NEXT: op s tensor.einsum in [tp,-,-] [tp,-,-] produced [tp,-,-] result [tp,-,-] collectives none
// PLAN-NEXT: op p tensor.softmax in [tp,-,-] produced [tp,-,-] result [tp,-,-] collectives none
// PLAN-NEXT: op o tensor.einsum in [tp,-,-] [tp,-,-] produced [tp,-,-] result [tp,-,-] collectives none
// PLAN-NEXT: op y tensor.einsum in [tp,-,-] [tp,-,-] produced [-,-]+P(tp) result [-,-] collectives all_reduce(tp,65536)
// PLAN-NEXT: op r tensor.add in [-,-] [-,-] produced [-,-] result [-,-] collectives none
// PLAN-NEXT: result 0 required [-,-] final [-,-] reshard none
func.func @attention(%x: tensor<64x256xf32>, %wq: tensor<8x256x32xf32>, %wk: tensor<8x256x32xf32>,
                     %wv: tensor<8x256x32xf32>, %wo: tensor<8x32x256xf32>) -> tensor<64x256xf32> {
  %q = tensor.einsum %x, %wq {equation = "sd,hde->hse"} : (tensor<64x256xf32>, tensor<8x256x32xf32>) -> tensor<8x64x32xf32> loc("q")
  %k = tensor.einsum %x, %wk {equation = "sd,hde->hse"} : (tensor<64x256xf32>, tensor<8x256x32xf32>) -> tensor<8x64x32xf32> loc("k")
  %v = tensor.einsum %x, %wv {equation = "sd,hde->hse"} : (tensor<64x256xf32>, tensor<8x256x32xf32>) -> tensor<8x64x32xf32> loc("v")
  %s = tensor.einsum %q, %k {equation = "hse,hte->hst"} : (tensor<8x64x32xf32>, tensor<8x64x32xf32>) -> tensor<8x64x64xf32> loc("s")
  %p = tensor.softmax %s {axis = 2 : i64} : tensor<8x64x64xf32> loc("p")
  %o = tensor.einsum %p, %v {equation = "hst,hte->hse"} : (tensor<8x64x64xf32>, tensor<8x64x32xf32>) -> tensor<8x64x32xf32> loc("o")
  %y = tensor.einsum %o, %wo {equation = "hse,hed->sd"} : (tensor<8x64x32xf32>, tensor<8x32x256xf32>) -> tensor<64x256xf32> loc("y")
  %r = tensor.add %x, %y : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32> loc("r")
  return %r : tensor<64x256xf32>
}
