// Every verifier rule of the shard ops, one chunk per rule, with upstream's messages: mlir-opt
// produces the same diagnostics for this file (it uses only func and shard ops).
// RUN: xcs-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{rank of grid is expected to be a positive integer}}
shard.grid @grid0(shape = [])

// -----

// expected-error@+1 {{'shard.grid' op dimension size of a grid is expected to be non-negative or dynamic}}
"shard.grid"() <{shape = array<i64: 2, -4>, sym_name = "grid0"}> : () -> ()

// -----

// expected-error@+1 {{custom op 'shard.grid' Failed parsing dimension list. Did you mean an empty list? It must be denoted by "[]".}}
shard.grid @grid0(shape = -1)

// -----

shard.grid @grid0(shape = 2x4)
func.func @split_axis_twice(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{grid axis duplicated}}
  %s = shard.sharding @grid0 split_axes = [[0], [0]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @split_axis_twice_in_one_dim(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{grid axis duplicated}}
  %s = shard.sharding @grid0 split_axes = [[1, 1]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @negative_split_axis(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{grid axis is expected to be non-negative}}
  %s = shard.sharding @grid0 split_axes = [[-1]] : !shard.sharding
  return
}

// -----

func.func @nested_grid_symbol(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{custom op 'shard.sharding' invalid kind of attribute specified}}
  %s = shard.sharding @a::@b split_axes = [[0]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @halos_for_every_split_dim(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{halo sizes must be specified for all split axes.}}
  %s = shard.sharding @grid0 split_axes = [[0], [1]] halo_sizes = [1, 2] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @halos_or_offsets(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{'shard.sharding' op halo sizes and shard offsets are mutually exclusive}}
  %s = shard.sharding @grid0 split_axes = [[0]] halo_sizes = [1, 2] sharded_dims_offsets = [0, 2, 2] : !shard.sharding
  return
}

// -----

shard.grid @grid_dyn(shape = ?x?)
func.func @offsets_on_a_dynamic_grid(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{sharded dims offsets are not allowed for device grids with dynamic shape.}}
  %s = shard.sharding @grid_dyn split_axes = [[0]] sharded_dims_offsets = [0, 2, 2] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @offsets_count(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{sharded dims offsets has wrong size.}}
  %s = shard.sharding @grid0 split_axes = [[0], [1]] sharded_dims_offsets = [0, 2, 4, 0, 2, 4, 6] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 4)
func.func @offsets_decrease(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{sharded dims offsets must be non-decreasing.}}
  %s = shard.sharding @grid0 split_axes = [[0]] sharded_dims_offsets = [0, 2, 3, 2, 4] : !shard.sharding
  return
}

// -----

func.func @sharding_of_no_grid(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{Undefined required grid symbol "nowhere".}}
  %s = shard.sharding @nowhere split_axes = [[0]] : !shard.sharding
  return
}

// -----

func.func @grid_is_not_a_function() {
  return
}
func.func @sharding_of_a_function(%arg0: tensor<4x8xf32>) {
  // expected-error@+1 {{Undefined required grid symbol "grid_is_not_a_function".}}
  %s = shard.sharding @grid_is_not_a_function split_axes = [[0]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @sharding_operand_count(%arg0: i64) {
  // expected-error@+1 {{'shard.sharding' op operand count (1) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %s = "shard.sharding"(%arg0) <{grid = @grid0, split_axes = #shard<axisarray[[0]]>}> : (i64) -> !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @sharding_result_type() {
  // expected-error@+1 {{'shard.sharding' op result #0 must be sharding definition, but got 'i64'}}
  %s = "shard.sharding"() <{grid = @grid0, split_axes = #shard<axisarray[[0]]>}> : () -> i64
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @shard_keeps_the_type(%arg0: tensor<8x16xf32>) {
  %s = shard.sharding @grid0 split_axes = [[0]] : !shard.sharding
  // expected-error@+1 {{'shard.shard' op failed to verify that all of {result, src} have same type}}
  %0 = "shard.shard"(%arg0, %s) : (tensor<8x16xf32>, !shard.sharding) -> tensor<8x15xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @shard_of_unranked(%arg0: tensor<*xf32>) {
  %s = shard.sharding @grid0 split_axes = [[0]] : !shard.sharding
  // expected-error@+1 {{'shard.shard' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "shard.shard"(%arg0, %s) : (tensor<*xf32>, !shard.sharding) -> tensor<*xf32>
  return
}

// -----

func.func @shard_to_a_tensor(%arg0: tensor<8x16xf32>) {
  // expected-error@+1 {{'shard.shard' op operand #1 must be sharding definition, but got 'tensor<8x16xf32>'}}
  %0 = "shard.shard"(%arg0, %arg0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @process_multi_index_of_no_grid() -> index {
  // expected-error@+1 {{Undefined required grid symbol "nowhere".}}
  %0 = shard.process_multi_index on @nowhere : index
  return %0 : index
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @process_multi_index_axis_out_of_bounds() -> (index, index) {
  // expected-error@+1 {{0-based grid axis index 2 is out of bounds. The referenced grid "grid0" is of rank 2.}}
  %0:2 = shard.process_multi_index on @grid0 axes = [0, 2] : index, index
  return %0#0, %0#1 : index, index
}

// -----

shard.grid @grid0(shape = 1x2x3)
func.func @process_multi_index_axis_twice() -> (index, index, index) {
  // expected-error@+1 {{Grid axes contains duplicate elements.}}
  %0:3 = shard.process_multi_index on @grid0 axes = [0, 2, 0] : index, index, index
  return %0#0, %0#1, %0#2 : index, index, index
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @process_multi_index_results() -> (index, index) {
  // expected-error@+1 {{Unexpected number of results 2. Expected 1.}}
  %0:2 = shard.process_multi_index on @grid0 axes = [0] : index, index
  return %0#0, %0#1 : index, index
}

// -----

shard.grid @grid0(shape = 1x2x3)
func.func @process_multi_index_results_for_all_axes() -> (index, index) {
  // expected-error@+1 {{Unexpected number of results 2. Expected 3.}}
  %0:2 = shard.process_multi_index on @grid0 : index, index
  return %0#0, %0#1 : index, index
}

// -----

func.func @process_linear_index_of_no_grid() -> index {
  // expected-error@+1 {{Undefined required grid symbol "nowhere".}}
  %0 = shard.process_linear_index on @nowhere : index
  return %0 : index
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @process_linear_index_type() -> i64 {
  // expected-error@+1 {{custom op 'shard.process_linear_index' invalid kind of type specified: expected builtin.index, but found 'i64'}}
  %0 = shard.process_linear_index on @grid0 : i64
  return %0 : i64
}

// -----

func.func @all_reduce_on_no_grid(%arg0: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{Undefined required grid symbol "nowhere".}}
  %0 = shard.all_reduce %arg0 on @nowhere reduction = sum : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_reduce_axis_out_of_bounds(%arg0: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{0-based grid axis index 2 is out of bounds. The referenced grid "grid0" is of rank 2.}}
  %0 = shard.all_reduce %arg0 on @grid0 grid_axes = [2] : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_reduce_axis_twice(%arg0: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{Grid axes contains duplicate elements.}}
  %0 = shard.all_reduce %arg0 on @grid0 grid_axes = [0, 1, 0] : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_reduce_shape(%arg0: tensor<4xf32>) -> tensor<5xf64> {
  // expected-error@+1 {{'shard.all_reduce' op requires the same shape for all operands and results}}
  %0 = shard.all_reduce %arg0 on @grid0 : tensor<4xf32> -> tensor<5xf64>
  return %0 : tensor<5xf64>
}


// -----

shard.grid @grid0(shape = 2x4)
func.func @all_reduce_unranked(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{'shard.all_reduce' op operand #0 must be memref of any type values or ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "shard.all_reduce"(%arg0) <{grid = @grid0}> : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @all_gather_on_no_grid(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{Undefined required grid symbol "nowhere".}}
  %0 = shard.all_gather %arg0 on @nowhere gather_axis = 0 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid0(shape = 1)
func.func @all_gather_other_dims_keep_their_size(%arg0: tensor<3x4xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{Dimension size mismatch for result axis 1. Expected 4, but got 5.}}
  %0 = shard.all_gather %arg0 on @grid0 grid_axes = [0] gather_axis = 0 : tensor<3x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

shard.grid @grid0(shape = 1x2)
func.func @all_gather_gathered_dim(%arg0: tensor<3x4xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{Dimension size mismatch for result axis 1. Expected 8, but got 5.}}
  %0 = shard.all_gather %arg0 on @grid0 grid_axes = [1] gather_axis = 1 : tensor<3x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

shard.grid @grid0(shape = 1)
func.func @all_gather_dynamic_dim(%arg0: tensor<?xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{Dimension size mismatch for result axis 0. Expected dynamic, but got 3.}}
  %0 = shard.all_gather %arg0 on @grid0 gather_axis = 0 : tensor<?xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

shard.grid @grid0(shape = 1)
func.func @all_gather_axis_out_of_bounds(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{Gather axis 1 is out of bounds [0, 1).}}
  %0 = shard.all_gather %arg0 on @grid0 grid_axes = [0] gather_axis = 1 : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

shard.grid @grid0(shape = 1)
func.func @all_gather_negative_axis(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{Gather axis -1 is out of bounds [0, 1).}}
  %0 = shard.all_gather %arg0 on @grid0 grid_axes = [0] gather_axis = -1 : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_gather_rank(%arg0: tensor<8x16xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'shard.all_gather' op result type has different rank than operands}}
  %0 = shard.all_gather %arg0 on @grid0 gather_axis = 0 : tensor<8x16xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_gather_of_a_scalar(%arg0: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{'shard.all_gather' op operand #0 must be non-0-ranked.tensor of any type values, but got 'tensor<f32>'}}
  %0 = "shard.all_gather"(%arg0) <{gather_axis = 0 : index, grid = @grid0}> : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_gather_axis_is_an_index(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.all_gather' op attribute 'gather_axis' failed to satisfy constraint: index attribute}}
  %0 = "shard.all_gather"(%arg0) <{gather_axis = 0 : i64, grid = @grid0}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_gather_needs_a_grid(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.all_gather' op requires attribute 'grid'}}
  %0 = "shard.all_gather"(%arg0) <{gather_axis = 0 : index}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_slice_axis_twice(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{Grid axes contains duplicate elements.}}
  %0 = shard.all_slice %arg0 on @grid0 grid_axes = [0, 0] slice_axis = 0 : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_slice_dynamic_dim(%arg0: tensor<?xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{Dimension size mismatch for result axis 0. Expected dynamic, but got 2.}}
  %0 = shard.all_slice %arg0 on @grid0 slice_axis = 0 : tensor<?xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_slice_sliced_dim(%arg0: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{Dimension size mismatch for result axis 0. Expected 1, but got 2.}}
  %0 = shard.all_slice %arg0 on @grid0 grid_axes = [0] slice_axis = 0 : tensor<3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_slice_indivisible(%arg0: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{Operand dimension size 4 is not divisible by collective device group size 3 for tensor axis 0.}}
  %0 = shard.all_slice %arg0 on @grid0 grid_axes = [0] slice_axis = 0 : tensor<4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @reduce_scatter_scattered_dim(%arg0: tensor<8x16xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{Dimension size mismatch for result axis 1. Expected 4, but got 8.}}
  %0 = shard.reduce_scatter %arg0 on @grid0 grid_axes = [1] scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @reduce_scatter_indivisible(%arg0: tensor<8x6xf32>) -> tensor<8x1xf32> {
  // expected-error@+1 {{Operand dimension size 6 is not divisible by collective device group size 4 for tensor axis 1.}}
  %0 = shard.reduce_scatter %arg0 on @grid0 grid_axes = [1] scatter_axis = 1 : tensor<8x6xf32> -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

// -----

func.func @all_to_all_on_no_grid(%arg0: tensor<3x6xi8>) -> tensor<3x6xi8> {
  // expected-error@+1 {{Undefined required grid symbol "nowhere".}}
  %0 = shard.all_to_all %arg0 on @nowhere split_axis = 1 concat_axis = 0 : tensor<3x6xi8> -> tensor<3x6xi8>
  return %0 : tensor<3x6xi8>
}

// -----

shard.grid @grid0(shape = ?x1)
func.func @all_to_all_dynamic_group(%arg0: tensor<3x6xi8>) -> tensor<3x6xi8> {
  // expected-error@+1 {{Dimension size mismatch for result axis 1. Expected dynamic, but got 6.}}
  %0 = shard.all_to_all %arg0 on @grid0 grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<3x6xi8> -> tensor<3x6xi8>
  return %0 : tensor<3x6xi8>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_to_all_concat_dim(%arg0: tensor<3x2xi8>) -> tensor<1x7xi8> {
  // expected-error@+1 {{Dimension size mismatch for result axis 1. Expected 6, but got 7.}}
  %0 = shard.all_to_all %arg0 on @grid0 grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<3x2xi8> -> tensor<1x7xi8>
  return %0 : tensor<1x7xi8>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_to_all_split_dim(%arg0: tensor<3x2xi8>) -> tensor<2x6xi8> {
  // expected-error@+1 {{Dimension size mismatch for result axis 0. Expected 1, but got 2.}}
  %0 = shard.all_to_all %arg0 on @grid0 grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<3x2xi8> -> tensor<2x6xi8>
  return %0 : tensor<2x6xi8>
}

// -----

shard.grid @grid0(shape = 3)
func.func @all_to_all_element_type(%arg0: tensor<3x2xi8>) -> tensor<3x2xi16> {
  // expected-error@+1 {{'shard.all_to_all' op requires the same element type for all operands and results}}
  %0 = shard.all_to_all %arg0 on @grid0 split_axis = 0 concat_axis = 0 : tensor<3x2xi8> -> tensor<3x2xi16>
  return %0 : tensor<3x2xi16>
}

// -----

shard.grid @grid0(shape = 3x?)
func.func @broadcast_root_out_of_bounds(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{Out of bounds coordinate 0 for in-group device "root". Got 3, but expected value in the range [0, 2].}}
  %0 = shard.broadcast %arg0 on @grid0 grid_axes = [0] root = [3] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

shard.grid @grid0(shape = 3x?)
func.func @broadcast_root_size(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{In-group device "root" has unexpected multi-index size 2. Expected 1.}}
  %0 = shard.broadcast %arg0 on @grid0 grid_axes = [0] root = [2, 3] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @broadcast_shape(%arg0: tensor<8x16xf32>) -> tensor<8x15xf32> {
  // expected-error@+1 {{'shard.broadcast' op failed to verify that all of {input, result} have same shape}}
  %0 = shard.broadcast %arg0 on @grid0 root = [] : (tensor<8x16xf32>) -> tensor<8x15xf32>
  return %0 : tensor<8x15xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @broadcast_element_type(%arg0: tensor<8x16xf32>) -> tensor<8x16xf64> {
  // expected-error@+1 {{'shard.broadcast' op failed to verify that all of {input, result} have same element type}}
  %0 = shard.broadcast %arg0 on @grid0 root = [] : (tensor<8x16xf32>) -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @broadcast_root_is_an_index(%arg0: tensor<8x16xf32>, %arg1: i64) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.broadcast' op operand #1 must be variadic of index, but got 'i64'}}
  %0 = "shard.broadcast"(%arg0, %arg1) <{grid = @grid0, root = array<i64: -9223372036854775808>, grid_axes = array<i16: 0>}> : (tensor<8x16xf32>, i64) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @grid_shape_axis_out_of_bounds() -> (index, index) {
  // expected-error@+1 {{0-based grid axis index 2 is out of bounds. The referenced grid "grid0" is of rank 2.}}
  %0:2 = shard.grid_shape @grid0 axes = [0, 2] : index, index
  return %0#0, %0#1 : index, index
}

// -----

shard.grid @grid0(shape = 1x2x3)
func.func @grid_shape_results() -> (index, index) {
  // expected-error@+1 {{Unexpected number of results 2. Expected 3.}}
  %0:2 = shard.grid_shape @grid0 : index, index
  return %0#0, %0#1 : index, index
}
