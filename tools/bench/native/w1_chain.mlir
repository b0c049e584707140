// W1 (issue 5 "Speed"): tanh(x*1.5+0.5)*sigmoid(x)+x*x on 16M f32 elements, unfused (the fuse
// pass of issue 6 turns it into one loop). Used by tools/bench/bench_native.py.
func.func @main(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "y"}) {
  %c15 = tensor.constant {value = dense<1.5> : tensor<f32>} : tensor<f32>
  %c05 = tensor.constant {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %0 = tensor.mul %x, %c15 : (tensor<16777216xf32>, tensor<f32>) -> tensor<16777216xf32>
  %1 = tensor.add %0, %c05 : (tensor<16777216xf32>, tensor<f32>) -> tensor<16777216xf32>
  %2 = tensor.tanh %1 : tensor<16777216xf32>
  %3 = tensor.sigmoid %x : tensor<16777216xf32>
  %4 = tensor.mul %2, %3 : tensor<16777216xf32>
  %5 = tensor.mul %x, %x : tensor<16777216xf32>
  %6 = tensor.add %4, %5 : tensor<16777216xf32>
  return %6 : tensor<16777216xf32>
}
