// Device 2 divides by zero; the others wait for it in the all_gather.
shard.grid @g(shape = 4)
func.func @f(%x: tensor<1xi32> {xcs.name = "x", shard.split_axes = #shard<axisarray[[0]]>},
             %y: tensor<1xi32> {xcs.name = "y", shard.split_axes = #shard<axisarray[[0]]>})
    -> (tensor<4xi32> {xcs.name = "q"}) attributes {shard.spmd_grid = @g} {
  %q = tensor.div %x, %y : tensor<1xi32>
  %g = shard.all_gather %q on @g grid_axes = [0] gather_axis = 0 : tensor<1xi32> -> tensor<4xi32>
  return %g : tensor<4xi32>
}
