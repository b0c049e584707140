// convert-stablehlo-to-tensor: what it does not cover is an error at the op, naming it; so is
// a malformed #stablehlo attribute (when parsed), an op StableHLO has but XCS does not declare,
// a custom_call other than GSPMD's @Sharding and a GSPMD sharding no grid expresses.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(convert-stablehlo-to-tensor)'

func.func @argmax(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<i32> {
  %init = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  // expected-error@+1 {{'stablehlo.reduce' op is not supported by convert-stablehlo-to-tensor: reduce of several inputs (e.g. argmax)}}
  %r:2 = "stablehlo.reduce"(%x, %i, %init, %zero) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
    "stablehlo.return"(%a, %ai) : (tensor<f32>, tensor<i32>) -> ()
  }) : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  return %r#1 : tensor<i32>
}

// -----

func.func @bitwise(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'stablehlo.and' op is not supported by convert-stablehlo-to-tensor: bitwise logic on integers (only i1 is covered)}}
  %r = "stablehlo.and"(%x, %x) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.add' op is not supported by convert-stablehlo-to-tensor: attribute 'xla.layout'}}
  %r = "stablehlo.add"(%x, %x) {xla.layout = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @partial_gather(%t: tensor<8x16xf32>, %i: tensor<3x1xi32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{gather of a partial slice in operand dim 1}}
  %r = "stablehlo.gather"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<8x16xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

func.func @unsigned(%x: tensor<4xui32>) -> tensor<4xui32> {
  // expected-error@+1 {{'tensor.add' op operand #0 must be ranked tensor of f16, bf16, f32, f64, i8, i16, i32 or i64 values}}
  %r = "stablehlo.add"(%x, %x) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %r : tensor<4xui32>
}

// -----

func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unregistered operation 'stablehlo.fft' found in dialect ('stablehlo') that does not allow unknown operations}}
  %r = "stablehlo.fft"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @bad_direction(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{expected ::mlir::stablehlo::ComparisonDirection to be one of: EQ, NE, LT, LE, GT, GE}}
  %r = "stablehlo.compare"(%x, %x) <{comparison_direction = #stablehlo<comparison_direction SOMETIMES>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

func.func @bad_dot(%x: tensor<4x8xf32>, %w: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'stablehlo.dot_general' op lhs dim 1 (size 8) and rhs dim 0 (size 4) differ}}
  %r = "stablehlo.dot_general"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

func.func @bad_broadcast(%x: tensor<3xf32>) -> tensor<4x2xf32> {
  // expected-error@+1 {{'stablehlo.broadcast_in_dim' op operand dim 0 of size 3 cannot be broadcast to result dim 1 of size 2}}
  %r = "stablehlo.broadcast_in_dim"(%x) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @custom_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.custom_call' op is not supported by convert-stablehlo-to-tensor: custom_call @my_kernel}}
  %r = "stablehlo.custom_call"(%x) <{call_target_name = "my_kernel", api_version = 1 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

module attributes {mhlo.num_partitions = 2 : i32} {
  func.func @maximal(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{mhlo.sharding: "{maximal device=1}" puts the value on device 1 alone (not covered)}}
    %r = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> {mhlo.sharding = "{maximal device=1}"} : (tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

func.func @device_order(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{mhlo.sharding: an explicit device order (not covered) in "{devices=[2,2]0,2,1,3}"}}
  %r = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> {mhlo.sharding = "{devices=[2,2]0,2,1,3}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
