// W2 (issue 5 "Speed"): f32 matmul 256x256x256. Used by tools/bench/bench_native.py.
func.func @main(%a: tensor<256x256xf32> {xcs.name = "a"}, %b: tensor<256x256xf32> {xcs.name = "b"}) -> (tensor<256x256xf32> {xcs.name = "c"}) {
  %0 = tensor.matmul %a, %b : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
