// W4 (issue 5 "Speed"): softmax over the rows of a 4096x4096 f32 matrix (one op).
// Used by tools/bench/bench_native.py.
func.func @main(%x: tensor<4096x4096xf32> {xcs.name = "x"}) -> (tensor<4096x4096xf32> {xcs.name = "y"}) {
  %0 = tensor.softmax %x {axis = 1 : i64} : tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
