// Each elementwise op alone on 16M f32 elements (issue 5: each at >= 80% of the measured STREAM
// triad bandwidth); one function per op, named after it. Unary ops take %x, binary %x and %y.
// Used by tools/bench/bench_native.py (log, sqrt, rsqrt and pow get positive inputs there).
func.func @add(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.add %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @sub(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.sub %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @mul(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.mul %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @div(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.div %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @max(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.max %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @min(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.min %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @pow(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.pow %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @neg(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.neg %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @abs(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.abs %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @exp(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.exp %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @log(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.log %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @tanh(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.tanh %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @sigmoid(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.sigmoid %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @relu(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.relu %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @silu(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.silu %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @sqrt(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.sqrt %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @rsqrt(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.rsqrt %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @gelu_erf(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.gelu %x {approximate = "none"} : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @sin(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.sin %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @cos(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.cos %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @erf(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.erf %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @floor(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.floor %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @ceil(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.ceil %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @round(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.round %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @sign(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.sign %x : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @rem(%x: tensor<16777216xf32> {xcs.name = "x"}, %y: tensor<16777216xf32> {xcs.name = "y"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %0 = tensor.rem %x, %y : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @clamp(%x: tensor<16777216xf32> {xcs.name = "x"}) -> (tensor<16777216xf32> {xcs.name = "z"}) {
  %lo = tensor.constant {value = dense<-5.000000e-01> : tensor<f32>} : tensor<f32>
  %hi = tensor.constant {value = dense<5.000000e-01> : tensor<f32>} : tensor<f32>
  %0 = tensor.clamp %x, %lo, %hi : (tensor<16777216xf32>, tensor<f32>, tensor<f32>) -> tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
