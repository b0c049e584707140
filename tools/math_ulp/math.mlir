// The three f32 kernels that tools/math_ulp/math_ulp.c checks exhaustively.
func.func @sin(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.sin %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @cos(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.cos %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @erf(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.erf %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
