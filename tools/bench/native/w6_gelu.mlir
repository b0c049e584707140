// W6 (issue 5 "Speed"): GELU, tanh form, on 16M f32 elements (one op).
// Used by tools/bench/bench_native.py.
func.func @main(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "y"}) {
  %0 = tensor.gelu %x {approximate = "tanh"} : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
