// auto-shard then shard-partition, end to end (issue 18, items 2, 4 and 5): the plan's
// collectives are the partitioned program's, one for one, and the partitioned program run on 4
// simulated devices (xcs-run --devices, JIT and interpreter) computes what the plain program
// computes on one. The annotated but unpartitioned program still runs on one device
// (annotations are identities) and computes the same, on the interpreter and on the JIT.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9},shard-partition)' | FileCheck %s
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9})' -o %t/annotated.mlir
// RUN: xcs-run %s --interp --entry mlp --input x=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4 > %t/plain.txt
// RUN: xcs-run %t/annotated.mlir --interp --entry mlp --input x=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4 > %t/annotated.txt
// RUN: diff %t/plain.txt %t/annotated.txt
// RUN: xcs-run %t/annotated.mlir --entry mlp --input x=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4 > %t/jit.txt
// RUN: xcs-run %s --entry mlp --input x=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4 > %t/plain-jit.txt
// RUN: diff %t/plain-jit.txt %t/jit.txt
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9},shard-partition)' -o %t/part.mlir
// RUN: xcs-run %s --entry mlp -i x=random:1 -i w1=random:2 -i b1=random:3 -i w2=random:4 -o %t/full
// RUN: xcs-run %t/part.mlir --entry mlp --devices=4 -i x=random:1 -i w1=random:2 -i b1=random:3 -i w2=random:4 -o %t/devices
// RUN: xcs-run %t/part.mlir --entry mlp --devices=4 --interp -i x=random:1 -i w1=random:2 -i b1=random:3 -i w2=random:4 -o %t/devices-interp
// RUN: %python %S/../../Run/Inputs/compare_npy.py --scaled %t/full %t/devices %t/devices-interp | FileCheck %s --check-prefix=SAME
// SAME: devices y.npy: {{equal|close}}
// SAME: devices-interp y.npy: {{equal|close}}

// Megatron's split (a batch of 2 does not split 4 ways): local columns of w1 and b1, local
// rows of w2, one all_reduce of the pending sum, as the plan says.
// CHECK: shard.grid @mesh(shape = 4) {xcs.axes = ["tp"]}
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %arg0: tensor<2x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>, xcs.name = "x"}
// CHECK-SAME: %arg1: tensor<256x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}], [0]]>, xcs.name = "w1"}
// CHECK-SAME: %arg2: tensor<256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "b1"}
// CHECK-SAME: %arg3: tensor<256x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}0]]>, xcs.name = "w2"}
// CHECK-SAME: -> (tensor<2x256xf32> {shard.split_axes = #shard<axisarray{{\[\[}}]]>, xcs.name = "y"})
// CHECK-SAME: attributes {shard.spmd_grid = @mesh}
// CHECK-NEXT: %[[H:.*]] = tensor.matmul %arg0, %arg1 : (tensor<2x256xf32>, tensor<256x256xf32>) -> tensor<2x256xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.add %[[H]], %arg2
// CHECK-NEXT: %[[A:.*]] = tensor.relu %[[B]] : tensor<2x256xf32>
// CHECK-NEXT: %[[Y:.*]] = tensor.matmul %[[A]], %arg3 : (tensor<2x256xf32>, tensor<256x256xf32>) -> tensor<2x256xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [0] : tensor<2x256xf32> -> tensor<2x256xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x256xf32>
func.func @mlp(%x: tensor<2x256xf32> {xcs.name = "x"}, %w1: tensor<256x1024xf32> {xcs.name = "w1"},
               %b1: tensor<1024xf32> {xcs.name = "b1"}, %w2: tensor<1024x256xf32> {xcs.name = "w2"}) -> (tensor<2x256xf32> {xcs.name = "y"}) {
  %h = tensor.matmul %x, %w1 : (tensor<2x256xf32>, tensor<256x1024xf32>) -> tensor<2x1024xf32>
  %hb = tensor.add %h, %b1 : (tensor<2x1024xf32>, tensor<1024xf32>) -> tensor<2x1024xf32>
  %a = tensor.relu %hb : tensor<2x1024xf32>
  %y = tensor.matmul %a, %w2 : (tensor<2x1024xf32>, tensor<1024x256xf32>) -> tensor<2x256xf32>
  return %y : tensor<2x256xf32>
}
