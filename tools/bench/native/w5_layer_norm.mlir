// W5 (issue 5 "Speed"): layer_norm over the rows of a 4096x4096 f32 matrix with gamma and beta
// (one op, epsilon 1e-5). Used by tools/bench/bench_native.py.
func.func @main(%x: tensor<4096x4096xf32> {xcs.name = "x"}, %g: tensor<4096xf32> {xcs.name = "gamma"},
                %b: tensor<4096xf32> {xcs.name = "beta"}) -> (tensor<4096x4096xf32> {xcs.name = "y"}) {
  %0 = tensor.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
