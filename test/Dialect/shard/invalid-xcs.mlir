// Errors XCS reports where mlir-opt reports more or other diagnostics for the same input:
// - a tensor axis out of bounds, where upstream's verifiers read past the tensor's rank;
// - `?` placeholders of a sharding that disagree with its operand segments (upstream leaves
//   this undefined);
// - syntax errors after which mlir-opt reports a second, follow-up error.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics

shard.grid @grid0(shape = 2x4)
func.func @scatter_axis_out_of_bounds(%arg0: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{Scatter axis 2 is out of bounds [0, 2).}}
  %0 = shard.reduce_scatter %arg0 on @grid0 grid_axes = [0] scatter_axis = 2 : tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @slice_axis_negative(%arg0: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{Slice axis -1 is out of bounds [0, 2).}}
  %0 = shard.all_slice %arg0 on @grid0 grid_axes = [0] slice_axis = -1 : tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @concat_axis_out_of_bounds(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{Concat axis 5 is out of bounds [0, 2).}}
  %0 = shard.all_to_all %arg0 on @grid0 grid_axes = [0] split_axis = 0 concat_axis = 5 : tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @placeholders_and_operands(%arg0: i64) {
  // expected-error@+1 {{'shard.sharding' op has a different number of dynamic sizes ('?' in the static lists) than operands}}
  %s = "shard.sharding"(%arg0) <{grid = @grid0, split_axes = #shard<axisarray[[0]]>, static_halo_sizes = array<i64: 1, 2>, operandSegmentSizes = array<i32: 0, 1>}> : (i64) -> !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @unknown_reduction_keyword(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{custom op 'shard.all_reduce' expected ::mlir::shard::ReductionKind to be one of: sum, max, min, product, average, bitwise_and, bitwise_or, bitwise_xor, generic}}
  %0 = shard.all_reduce %arg0 on @grid0 reduction = bogus : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @reduction_in_angle_brackets(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{custom op 'shard.all_reduce' expected valid keyword or string}}
  %0 = shard.all_reduce %arg0 on @grid0 reduction = <max> : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @axis_not_a_number() {
  // expected-error@+1 {{custom op 'shard.sharding' expected integer value}}
  %s = shard.sharding @grid0 split_axes = [[a]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @no_split_axes() {
  // expected-error@+1 {{expected '['}}
  %s = shard.sharding @grid0 split_axes = [] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @axis_too_large() {
  // expected-error@+1 {{custom op 'shard.sharding' integer value too large}}
  %s = shard.sharding @grid0 split_axes = [[70000]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @unknown_reduction(%arg0: tensor<8xf32>) {
  // expected-error@+1 {{expected ::mlir::shard::ReductionKind to be one of: sum, max, min, product, average, bitwise_and, bitwise_or, bitwise_xor, generic}}
  %0 = "shard.all_reduce"(%arg0) <{grid = @grid0, reduction = #shard<partial bogus>}> : (tensor<8xf32>) -> tensor<8xf32>
  return
}
