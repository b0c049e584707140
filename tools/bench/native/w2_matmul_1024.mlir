// W2 (issue 5 "Speed"): f32 matmul 1024x1024x1024. Used by tools/bench/bench_native.py.
func.func @main(%a: tensor<1024x1024xf32> {xcs.name = "a"}, %b: tensor<1024x1024xf32> {xcs.name = "b"}) -> (tensor<1024x1024xf32> {xcs.name = "c"}) {
  %0 = tensor.matmul %a, %b : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
