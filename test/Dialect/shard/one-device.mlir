// Annotated but unpartitioned programs run on one device: `shard.shard` is an identity and
// `shard.sharding` a placeholder for the interpreter and the LLVM JIT, `fuse` keeps them out of
// its regions (fusing on both sides), `cost-annotate` prices them at 0, and `vmap-batch`
// annotates the batched value with the batch dim unsplit. @annotated computes what @plain does.
// RUN: xcs-run %s -e annotated --input x=random:1 --input w=random:2 > %t.jit.annotated
// RUN: xcs-run %s -e plain --input x=random:1 --input w=random:2 > %t.jit.plain
// RUN: diff %t.jit.annotated %t.jit.plain
// RUN: xcs-run %s --backend=interp -e annotated --input x=random:1 --input w=random:2 > %t.interp.annotated
// RUN: xcs-run %s --backend=interp -e plain --input x=random:1 --input w=random:2 > %t.interp.plain
// RUN: diff %t.interp.annotated %t.interp.plain
// RUN: FileCheck %s --check-prefix=OUT < %t.interp.annotated
// RUN: xcs-run %s -p 'builtin.module(func.func(fuse))' -e annotated --input x=random:1 --input w=random:2 | diff %t.jit.plain -
// RUN: xcs-opt %s -p 'builtin.module(func.func(fuse))' | FileCheck %s --check-prefix=FUSE
// RUN: xcs-opt %s -p 'builtin.module(cost-annotate)' 2>&1 | FileCheck %s --check-prefix=COST
// RUN: xcs-opt %s --vmap-batch | FileCheck %s --check-prefix=VMAP
// RUN: xcs-run %s --backend=interp -e batched --input x=random:3 > %t.batched
// RUN: xcs-opt %s --vmap-batch | xcs-run --backend=interp -e batched --input x=random:3 | diff %t.batched -

// OUT: y: tensor<8x4xf32>

// FUSE-LABEL: func.func @annotated
// FUSE: %[[F:.*]] = tensor.fused %sharding_annotated, %sharding_annotated_1
// FUSE: tensor.matmul
// FUSE-NEXT: tensor.relu
// FUSE-NEXT: tensor.yield
// FUSE: %[[A:.*]] = shard.shard %[[F]] to %sharding_2 : tensor<8x4xf32>
// FUSE-NEXT: %{{.*}} = tensor.exp %[[A]] : tensor<8x4xf32>

// The annotations cost nothing: both functions cost the same.
// COST-NOT: warning
// COST-LABEL: func.func @plain
// COST-SAME: attributes {cost = #cost.cost<flops = "1088", read = "1024", write = "384", transcendentals = "32">}
// COST-LABEL: func.func @annotated
// COST-SAME: attributes {cost = #cost.cost<flops = "1088", read = "1024", write = "384", transcendentals = "32">}
// COST-NEXT: shard.sharding
// COST-NEXT: shard.shard %arg0 to %sharding {cost = #cost.cost<flops = "0", read = "0", write = "0">}

// VMAP-LABEL: func.func @batched
// VMAP-NEXT: %sharding = shard.sharding @mesh split_axes = {{\[\[}}1]] : !shard.sharding
// VMAP-NEXT: %sharding_0 = shard.sharding @mesh split_axes = {{\[\[}}], [1]] : !shard.sharding
// VMAP-NEXT: %sharding_annotated = shard.shard %arg0 to %sharding_0 : tensor<3x8xf32>
// VMAP-NEXT: %0 = tensor.exp %sharding_annotated : tensor<3x8xf32>

shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}

func.func @plain(%x: tensor<8x16xf32> {xcs.name = "x"}, %w: tensor<16x4xf32> {xcs.name = "w"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %m = tensor.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %r = tensor.relu %m : tensor<8x4xf32>
  %e = tensor.exp %r : tensor<8x4xf32>
  return %e : tensor<8x4xf32>
}

func.func @annotated(%x: tensor<8x16xf32> {xcs.name = "x"}, %w: tensor<16x4xf32> {xcs.name = "w"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %sx = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %x0 = shard.shard %x to %sx : tensor<8x16xf32>
  %sw = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %w0 = shard.shard %w to %sw : tensor<16x4xf32>
  %m = tensor.matmul %x0, %w0 : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %r = tensor.relu %m : tensor<8x4xf32>
  %sr = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %r0 = shard.shard %r to %sr : tensor<8x4xf32>
  %e = tensor.exp %r0 : tensor<8x4xf32>
  %sy = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %y = shard.shard %e to %sy annotate_for_users : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

func.func @batched(%x: tensor<3x8xf32> {xcs.name = "x"}) -> tensor<3x8xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x8xf32>) -> tensor<3x8xf32> {
  ^bb0(%e: tensor<8xf32>):
    %s = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
    %a = shard.shard %e to %s : tensor<8xf32>
    %y = tensor.exp %a : tensor<8xf32>
    xcs.yield %y : tensor<8xf32>
  }
  return %r : tensor<3x8xf32>
}
