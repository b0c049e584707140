// Sharded programs to upstream MLIR's `shard` dialect: the annotations auto-shard writes
// (shard.grid, shard.sharding, shard.shard) and the collectives shard-partition makes export as
// upstream MLIR 22's ops, which mlir-opt parses and verifies. The MLIR backend runs unsharded
// programs only: a sharded one is an error located at its first shard op, exit status 1.
// RUN: xcs-opt %s -p 'builtin.module(auto-shard{mesh=4 axes=tp alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9})' -o %t.sharded.mlir
// RUN: xcs-translate %t.sharded.mlir --emit=mlir -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt %t.mlir --verify-diagnostics | FileCheck %s --check-prefix=UPSTREAM
// RUN: xcs-opt %t.sharded.mlir --shard-partition -o %t.partitioned.mlir
// RUN: xcs-translate %t.partitioned.mlir --emit=mlir -o - | mlir-opt --verify-diagnostics | FileCheck %s --check-prefix=PARTITIONED
// RUN: not xcs-run %t.sharded.mlir --entry mlp_batch --backend=mlir --input 0=random:1 --input 1=random:2 --input 2=random:3 --input 3=random:4 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: xcs-run %t.sharded.mlir --entry mlp_batch --input 0=random:1 --input 1=random:2 --input 2=random:3 --input 3=random:4 > /dev/null

// CHECK-NOT: xcs.axes
// CHECK: shard.grid @mesh(shape = 4)
// CHECK-NOT: xcs.axes
// CHECK-LABEL: func.func @mlp_batch
// CHECK: shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: shard.shard %arg0 to
// CHECK: linalg.matmul

// UPSTREAM: shard.grid @mesh(shape = 4)
// UPSTREAM: shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// UPSTREAM: shard.shard %{{.*}} to %{{.*}} : tensor<64x256xf32>
// UPSTREAM: shard.shard %{{.*}} to %{{.*}} annotate_for_users : tensor<64x256xf32>

// PARTITIONED: shard.grid @mesh(shape = 4)
// PARTITIONED: func.func @mlp_batch(%{{.*}}: tensor<16x256xf32>
// PARTITIONED: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 0 : tensor<16x256xf32> -> tensor<64x256xf32>

// BACKEND: export-mlir-shard.mlir{{.*}}: error: 'shard.sharding' op is a sharding op: the MLIR backend runs unsharded programs only

func.func @mlp_batch(%x: tensor<64x256xf32>, %w1: tensor<256x1024xf32>, %b1: tensor<1024xf32>, %w2: tensor<1024x256xf32>) -> tensor<64x256xf32> {
  %h = tensor.matmul %x, %w1 : (tensor<64x256xf32>, tensor<256x1024xf32>) -> tensor<64x1024xf32>
  %hb = tensor.add %h, %b1 : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %a = tensor.relu %hb : tensor<64x1024xf32>
  %y = tensor.matmul %a, %w2 : (tensor<64x1024xf32>, tensor<1024x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
