// An MLP on one device (@full) and three annotated versions of it on a 2x2 grid (dp x tp), as
// `auto-shard` or a user writes them; `xcs-opt -p 'builtin.module(shard-partition)'` turns
// the annotated ones into SPMD programs (local shapes, collectives, the argument and result
// shardings recorded on the function). Unpartitioned, every version computes @full's y (the
// annotations are identities); partitioned, run on 4 devices, too (test/Run/shard-devices.test,
// shard-mpi.test, test/Lowering/spmd-mpi.test).
shard.grid @mesh(shape = 2x2) {xcs.axes = ["dp", "tp"]}

func.func @full(%x: tensor<8x16xf32> {xcs.name = "x"}, %w1: tensor<16x8xf32> {xcs.name = "w1"}, %w2: tensor<8x4xf32> {xcs.name = "w2"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %h = tensor.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %g = tensor.gelu %h {approximate = "tanh"} : tensor<8x8xf32>
  %y = tensor.matmul %g, %w2 : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// Megatron: rows of x along dp, columns of w1 and rows of w2 along tp; the second matmul's
// partial sums all-reduced along tp, y split by rows along dp.
func.func @megatron(%x: tensor<8x16xf32> {xcs.name = "x"}, %w1: tensor<16x8xf32> {xcs.name = "w1"}, %w2: tensor<8x4xf32> {xcs.name = "w2"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %rows_tp = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %both = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<8x16xf32>
  %w1_s = shard.shard %w1 to %cols : tensor<16x8xf32>
  %w2_s = shard.shard %w2 to %rows_tp : tensor<8x4xf32>
  %h = tensor.matmul %x_s, %w1_s : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %h_s = shard.shard %h to %both : tensor<8x8xf32>
  %g = tensor.gelu %h_s {approximate = "tanh"} : tensor<8x8xf32>
  %g_s = shard.shard %g to %both : tensor<8x8xf32>
  %y = tensor.matmul %g_s, %w2_s : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %y_s = shard.shard %y to %rows : tensor<8x4xf32>
  return %y_s : tensor<8x4xf32>
}

// The same with the partial sums resolved by a reduce_scatter: y split by rows along dp, tp.
func.func @scattered(%x: tensor<8x16xf32> {xcs.name = "x"}, %w1: tensor<16x8xf32> {xcs.name = "w1"}, %w2: tensor<8x4xf32> {xcs.name = "w2"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %rows_tp = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %both = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %rows_2d = shard.sharding @mesh split_axes = [[0, 1]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<8x16xf32>
  %w1_s = shard.shard %w1 to %cols : tensor<16x8xf32>
  %w2_s = shard.shard %w2 to %rows_tp : tensor<8x4xf32>
  %h = tensor.matmul %x_s, %w1_s : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %h_s = shard.shard %h to %both : tensor<8x8xf32>
  %g = tensor.gelu %h_s {approximate = "tanh"} : tensor<8x8xf32>
  %g_s = shard.shard %g to %both : tensor<8x8xf32>
  %y = tensor.matmul %g_s, %w2_s : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %y_s = shard.shard %y to %rows_2d : tensor<8x4xf32>
  return %y_s : tensor<8x4xf32>
}

// The same, y replicated on every device (which must then agree): the partial sums
// all-reduced along tp and the rows gathered along dp.
func.func @replicated(%x: tensor<8x16xf32> {xcs.name = "x"}, %w1: tensor<16x8xf32> {xcs.name = "w1"}, %w2: tensor<8x4xf32> {xcs.name = "w2"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %rows = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %rows_tp = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %both = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %replicated = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %x_s = shard.shard %x to %rows : tensor<8x16xf32>
  %w1_s = shard.shard %w1 to %cols : tensor<16x8xf32>
  %w2_s = shard.shard %w2 to %rows_tp : tensor<8x4xf32>
  %h = tensor.matmul %x_s, %w1_s : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %h_s = shard.shard %h to %both : tensor<8x8xf32>
  %g = tensor.gelu %h_s {approximate = "tanh"} : tensor<8x8xf32>
  %g_s = shard.shard %g to %both : tensor<8x8xf32>
  %y = tensor.matmul %g_s, %w2_s : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %y_s = shard.shard %y to %replicated : tensor<8x4xf32>
  return %y_s : tensor<8x4xf32>
}
