// An op the LLVM backend does not lower (test/Lowering/emit.mlir).

func.func @f(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %b = tensor.exp %a : tensor<2xf32>
    xcs.yield %b : tensor<2xf32>
  }
  return %r : tensor<3x2xf32>
}
