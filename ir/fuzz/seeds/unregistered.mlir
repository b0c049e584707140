// Unregistered ops (allowed: the first byte '/' is odd), tensors, dense constants, multi-results.
func.func @model(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4xf32> {
  %0 = "xt.matmul"(%x, %w) {transpose_b = false} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = "arith.addf"(%0, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = "arith.constant"() <{value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %s = "arith.constant"() <{value = dense<5.000000e-01> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  %2:2 = "xt.split"(%1) {axis = 1 : i64, num_splits = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %3 = "xt.concat"(%2#1, %2#0) {axis = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  %4 = "xt.reduce"(%3) {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  "xt.effect"() {note = "tab\09quote\22", flag} : () -> ()
  return %4 : tensor<4xf32>
}
