// An op the MLIR export does not cover (test/Interop/export-mlir.mlir): a located error.

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = xcs.str_const {value = "not a tensor"} : !xcs.str
  return %x : tensor<2x3xf32>
}
