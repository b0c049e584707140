// An op the MLIR export does not cover (test/Interop/export-mlir.mlir): a located error.

func.func @main(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %r = tensor.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}
