// Errors of shard-partition, each located at what causes it; nothing crashes. Dynamic shapes,
// splits that do not divide, halos and uneven shards, several grids in one function, splits
// of dims a tensor does not have, calls of a partitioned function, and the module pass
// anchored on something without a symbol table. (Grid axes that do not exist or repeat are
// the verifier's: test/Dialect/shard/invalid.mlir.)
// RUN: xcs-opt %s --split-input-file --shard-partition --verify-diagnostics
// RUN: not xcs-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(shard-partition))' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// ANCHOR: error: 'func.func' op  was scheduled to run under ShardPartition, but does not define a symbol table

shard.grid @mesh(shape = 2)
// expected-error@+1 {{shard-partition: dynamic shapes are not supported: argument #0 has type 'tensor<?x8xf32>'}}
func.func @dynamic_argument(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @dynamic_result(%x: tensor<4x8xf32>) -> tensor<?xf32> {
  %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<4x8xf32>
  // expected-error@+1 {{shard-partition: dynamic shapes are not supported: result #0 of this op has type 'tensor<?xf32>'}}
  %r = tensor.reshape %a : (tensor<4x8xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

shard.grid @mesh(shape = 4)
func.func @indivisible(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  // expected-error@+1 {{shard-partition: dim 0 of size 6 does not split into 4 equal shards}}
  %a = shard.shard %x to %s : tensor<6x8xf32>
  return %a : tensor<6x8xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @halo(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %s = shard.sharding @mesh split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  // expected-error@+1 {{shard-partition: halo sizes and uneven shards (sharded_dims_offsets) are not supported}}
  %a = shard.shard %x to %s : tensor<6x8xf32>
  return %a : tensor<6x8xf32>
}

// -----

shard.grid @a(shape = 2)
shard.grid @b(shape = 2)
func.func @two_grids(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sa = shard.sharding @a split_axes = [[0]] : !shard.sharding
  %sb = shard.sharding @b split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %sa : tensor<4x8xf32>
  // expected-error@+1 {{shard-partition: a function's annotations must use one grid, but this one uses @b and an earlier one @a}}
  %xb = shard.shard %xa to %sb : tensor<4x8xf32>
  return %xb : tensor<4x8xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @too_many_dims(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
  // expected-error@+1 {{shard-partition: the sharding splits dims beyond the rank 1 of the tensor}}
  %a = shard.shard %x to %s : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

shard.grid @mesh(shape = 2)
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{shard-partition: @callee is partitioned (it has shard annotations), so it cannot be called or referenced: calls of partitioned functions are not supported}}
  %y = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<4xf32>
  return %a : tensor<4xf32>
}
