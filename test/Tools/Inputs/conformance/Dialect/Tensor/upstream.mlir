// Upstream tensor ops: counted apart, checked with the namespace renamed.
func.func @e() -> tensor<2xf32> {
  %0 = tensor.empty() : tensor<2xf32>
  return %0 : tensor<2xf32>
}
