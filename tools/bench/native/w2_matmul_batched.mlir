// W2 (issue 22): a batched f32 matmul as attention heads run it, 8 x (128x64 @ 64x128).
// Used by tools/bench/bench_native.py.
func.func @main(%a: tensor<8x128x64xf32> {xcs.name = "a"}, %b: tensor<8x64x128xf32> {xcs.name = "b"}) -> (tensor<8x128x128xf32> {xcs.name = "c"}) {
  %0 = tensor.matmul %a, %b : (tensor<8x128x64xf32>, tensor<8x64x128xf32>) -> tensor<8x128x128xf32>
  return %0 : tensor<8x128x128xf32>
}
