// An MLP and three partitioned versions of it on a 2x2 grid (dp x tp), written as
// shard-partition writes them: local shapes in the signature, the argument and result
// shardings recorded as `shard.split_axes` attributes and the grid as `shard.spmd_grid`. Every version
// computes @full's y (run by test/Run/shard-devices.test and shard-mpi.test).
shard.grid @mesh(shape = 2x2) {xcs.axes = ["dp", "tp"]}

func.func @full(%x: tensor<8x16xf32> {xcs.name = "x"}, %w1: tensor<16x8xf32> {xcs.name = "w1"}, %w2: tensor<8x4xf32> {xcs.name = "w2"}) -> (tensor<8x4xf32> {xcs.name = "y"}) {
  %h = tensor.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %g = tensor.gelu %h {approximate = "tanh"} : tensor<8x8xf32>
  %y = tensor.matmul %g, %w2 : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// Megatron: rows of x along dp, columns of w1 and rows of w2 along tp; the partial sums of the
// second matmul all-reduced along tp. y is split by rows along dp.
func.func @megatron(%x: tensor<4x16xf32> {xcs.name = "x", shard.split_axes = #shard<axisarray[[0]]>},
                    %w1: tensor<16x4xf32> {xcs.name = "w1", shard.split_axes = #shard<axisarray[[], [1]]>},
                    %w2: tensor<4x4xf32> {xcs.name = "w2", shard.split_axes = #shard<axisarray[[1]]>})
    -> (tensor<4x4xf32> {xcs.name = "y", shard.split_axes = #shard<axisarray[[0]]>}) attributes {shard.spmd_grid = @mesh} {
  %h = tensor.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  %g = tensor.gelu %h {approximate = "tanh"} : tensor<4x4xf32>
  %p = tensor.matmul %g, %w2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = shard.all_reduce %p on @mesh grid_axes = [1] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// The same with the partial sums resolved by a reduce_scatter: y split by rows along dp, tp.
func.func @scattered(%x: tensor<4x16xf32> {xcs.name = "x", shard.split_axes = #shard<axisarray[[0]]>},
                     %w1: tensor<16x4xf32> {xcs.name = "w1", shard.split_axes = #shard<axisarray[[], [1]]>},
                     %w2: tensor<4x4xf32> {xcs.name = "w2", shard.split_axes = #shard<axisarray[[1]]>})
    -> (tensor<2x4xf32> {xcs.name = "y", shard.split_axes = #shard<axisarray[[0, 1]]>}) attributes {shard.spmd_grid = @mesh} {
  %h = tensor.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  %g = tensor.gelu %h {approximate = "tanh"} : tensor<4x4xf32>
  %p = tensor.matmul %g, %w2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = shard.reduce_scatter %p on @mesh grid_axes = [1] scatter_axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// The same, y gathered and replicated on every device (which must then agree).
func.func @replicated(%x: tensor<4x16xf32> {xcs.name = "x", shard.split_axes = #shard<axisarray[[0]]>},
                      %w1: tensor<16x4xf32> {xcs.name = "w1", shard.split_axes = #shard<axisarray[[], [1]]>},
                      %w2: tensor<4x4xf32> {xcs.name = "w2", shard.split_axes = #shard<axisarray[[1]]>})
    -> (tensor<8x4xf32> {xcs.name = "y"}) attributes {shard.spmd_grid = @mesh} {
  %h = tensor.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  %g = tensor.gelu %h {approximate = "tanh"} : tensor<4x4xf32>
  %p = tensor.matmul %g, %w2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = shard.reduce_scatter %p on @mesh grid_axes = [1] scatter_axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
  %y = shard.all_gather %r on @mesh grid_axes = [0, 1] gather_axis = 0 : tensor<2x4xf32> -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
