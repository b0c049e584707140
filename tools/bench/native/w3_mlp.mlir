// W3 (issue 5 "Speed"): MLP relu(x@W1+b1)@W2+b2 in f32, x 256x1024, W1 1024x4096, W2 4096x1024.
// Used by tools/bench/bench_native.py.
func.func @main(%x: tensor<256x1024xf32> {xcs.name = "x"}, %w1: tensor<1024x4096xf32> {xcs.name = "w1"},
                %b1: tensor<4096xf32> {xcs.name = "b1"}, %w2: tensor<4096x1024xf32> {xcs.name = "w2"},
                %b2: tensor<1024xf32> {xcs.name = "b2"}) -> (tensor<256x1024xf32> {xcs.name = "y"}) {
  %0 = tensor.matmul %x, %w1 : (tensor<256x1024xf32>, tensor<1024x4096xf32>) -> tensor<256x4096xf32>
  %1 = tensor.add %0, %b1 : (tensor<256x4096xf32>, tensor<4096xf32>) -> tensor<256x4096xf32>
  %2 = tensor.relu %1 : tensor<256x4096xf32>
  %3 = tensor.matmul %2, %w2 : (tensor<256x4096xf32>, tensor<4096x1024xf32>) -> tensor<256x1024xf32>
  %4 = tensor.add %3, %b2 : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  return %4 : tensor<256x1024xf32>
}
