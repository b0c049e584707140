// Syntax errors in the shard ops' custom and generic forms: the same message at the same place
// as mlir-opt reports them.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

shard.grid @grid0(shape = 2x4)
func.func @sharding_of_a_string() {
  // expected-error@+1 {{custom op 'shard.sharding' invalid kind of attribute specified}}
  %s = shard.sharding "grid0" split_axes = [[0]] : !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @pretty_axisarray() {
  // expected-error@+1 {{expected '['}}
  %s = "shard.sharding"() <{grid = @grid0, split_axes = #shard.axisarray<[[0]]>}> : () -> !shard.sharding
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @unknown_attribute(%arg0: tensor<8xf32>) {
  // expected-error@+1 {{unknown attribute `bogus` in dialect `shard`}}
  %0 = "shard.all_reduce"(%arg0) <{grid = @grid0, reduction = #shard<bogus>}> : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @collective_without_on(%arg0: tensor<8xf32>) {
  // expected-error@+1 {{custom op 'shard.all_gather' expected 'on'}}
  %0 = shard.all_gather %arg0 @grid0 gather_axis = 0 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_gather_without_axis(%arg0: tensor<8xf32>) {
  // expected-error@+1 {{custom op 'shard.all_gather' expected 'gather_axis'}}
  %0 = shard.all_gather %arg0 on @grid0 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @all_gather_axis_not_a_number(%arg0: tensor<8xf32>) {
  // expected-error@+1 {{expected attribute value}}
  %0 = shard.all_gather %arg0 on @grid0 gather_axis = x : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @collective_without_result_type(%arg0: tensor<8xf32>) {
  // expected-error@+1 {{expected '->'}}
  %0 = shard.all_gather %arg0 on @grid0 gather_axis = 0 : tensor<8xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @shard_without_to(%arg0: tensor<8xf32>) {
  %s = shard.sharding @grid0 split_axes = [[0]] : !shard.sharding
  // expected-error@+1 {{custom op 'shard.shard' expected 'to'}}
  %0 = shard.shard %arg0 %s : tensor<8xf32>
  return
}

// -----

shard.grid @grid0(shape = 2x4)
func.func @index_of_type_i32() {
  // expected-error@+1 {{custom op 'shard.process_linear_index' invalid kind of type specified: expected builtin.index, but found 'i32'}}
  %0 = shard.process_linear_index on @grid0 : i32
  return
}
