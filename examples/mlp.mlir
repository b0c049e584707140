// A small MLP layer that `make run` optimizes and then runs through the LLVM JIT:
// the pipeline inlines @dense, CSE merges the repeated gelu, fuse puts the first layer in one
// tensor.fused region, symbol-dce drops @unused,
// and xcs-run compiles @main for the host CPU.
// Run: xcs-opt examples/mlp.mlir --pass-pipeline='builtin.module(inline,func.func(canonicalize,cse,fuse),symbol-dce)' -o mlp.opt.mlir
//      xcs-run mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3

func.func private @dense(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = tensor.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = tensor.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @main(%x: tensor<4x8xf32> {xcs.name = "x"}, %w1: tensor<8x16xf32> {xcs.name = "w1"},
                %w2: tensor<16x3xf32> {xcs.name = "w2"}) -> (tensor<4x3xf32> {xcs.name = "probs"}) {
  %b = tensor.constant {value = dense<0.125> : tensor<16xf32>} : tensor<16xf32>
  %h = call @dense(%x, %w1, %b) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %a1 = tensor.gelu %h {approximate = "tanh"} : tensor<4x16xf32>
  %a2 = tensor.gelu %h {approximate = "tanh"} : tensor<4x16xf32>
  %a = tensor.add %a1, %a2 : tensor<4x16xf32>
  %l = tensor.matmul %a, %w2 : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %p = tensor.softmax %l {axis = 1 : i64} : tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}
