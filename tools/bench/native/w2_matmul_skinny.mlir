// W2 (issue 22): a skinny f32 matmul as an MLP layer of 64 tokens runs it, 64x1024 @ 1024x4096.
// Used by tools/bench/bench_native.py.
func.func @main(%a: tensor<64x1024xf32> {xcs.name = "a"}, %b: tensor<1024x4096xf32> {xcs.name = "b"}) -> (tensor<64x4096xf32> {xcs.name = "c"}) {
  %0 = tensor.matmul %a, %b : (tensor<64x1024xf32>, tensor<1024x4096xf32>) -> tensor<64x4096xf32>
  return %0 : tensor<64x4096xf32>
}
