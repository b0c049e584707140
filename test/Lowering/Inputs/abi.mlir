// The module the C ABI tests compile to a shared library (test/Lowering/c-abi.test).
func.func @affine(%x: tensor<?x4xf32> {xcs.name = "x"}, %w: tensor<4x3xf32> {xcs.name = "w"}, %b: tensor<3xf32> {xcs.name = "b"}) -> (tensor<?x3xf32> {xcs.name = "y"}) {
  %m = tensor.matmul %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %y = tensor.add %m, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %r = tensor.relu %y : tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @idiv(%a: tensor<?xi32> {xcs.name = "a"}, %b: tensor<?xi32> {xcs.name = "b"}) -> (tensor<?xi32> {xcs.name = "q"}, tensor<i64> {xcs.name = "total"}) {
  %q = tensor.div %a, %b : tensor<?xi32>
  %c = tensor.cast %q : (tensor<?xi32>) -> tensor<?xi64>
  %s = tensor.reduce %c {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<?xi64>) -> tensor<i64>
  return %q, %s : tensor<?xi32>, tensor<i64>
}

func.func @big(%x: tensor<?x?xf32> {xcs.name = "x"}) -> (tensor<?x?xf32> {xcs.name = "y"}, tensor<?xf32> {xcs.name = "rowsum"}) {
  %t = tensor.tanh %x : tensor<?x?xf32>
  %s = tensor.reduce %t {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  return %t, %s : tensor<?x?xf32>, tensor<?xf32>
}

func.func private @unexported(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
