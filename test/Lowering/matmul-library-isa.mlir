// The f32 matmul of the runtime's library (the default) with each of its instruction sets
// (XCS_MATMUL_ISA picks a lesser one than the CPU's), with threads, against the generated kernel
// (--matmul=generated) and the interpreter: a transposed operand, edge tiles in both directions
// (37 rows, 35 columns), two K blocks (300), and a fused bias + relu epilogue. The values are
// exact in f32 whatever the order of the sums: each element is 300 x 0.125 + 1 = 38.5, their
// sum 37 x 35 x 38.5 = 49857.5.
// RUN: xcs-run %s --pass-pipeline 'builtin.module(func.func(fuse))' --input a=0.5 --input bt=0.25 --input bias=1.0 --threads 1 | FileCheck %s
// RUN: env XCS_MATMUL_ISA=avx2 xcs-run %s --pass-pipeline 'builtin.module(func.func(fuse))' --input a=0.5 --input bt=0.25 --input bias=1.0 --threads 1 | FileCheck %s
// RUN: env XCS_MATMUL_ISA=generic xcs-run %s --pass-pipeline 'builtin.module(func.func(fuse))' --input a=0.5 --input bt=0.25 --input bias=1.0 --threads 2 | FileCheck %s
// RUN: xcs-run %s --pass-pipeline 'builtin.module(func.func(fuse))' --input a=0.5 --input bt=0.25 --input bias=1.0 --threads 2 | FileCheck %s
// RUN: xcs-run %s --matmul=generated --pass-pipeline 'builtin.module(func.func(fuse))' --input a=0.5 --input bt=0.25 --input bias=1.0 | FileCheck %s
// RUN: xcs-run %s --interp --input a=0.5 --input bt=0.25 --input bias=1.0 | FileCheck %s

// CHECK:      result0: tensor<f32>
// CHECK-NEXT: 49857.5
// CHECK-NEXT: result1: tensor<35xf32>
// CHECK-NEXT: {{\[}}38.5 38.5 38.5
func.func @main(%a: tensor<37x300xf32> {xcs.name = "a"}, %bt: tensor<35x300xf32> {xcs.name = "bt"},
                %bias: tensor<35xf32> {xcs.name = "bias"}) -> (tensor<f32>, tensor<35xf32>) {
  %b = tensor.transpose %bt {perm = array<i64: 1, 0>} : (tensor<35x300xf32>) -> tensor<300x35xf32>
  %c = tensor.matmul %a, %b : (tensor<37x300xf32>, tensor<300x35xf32>) -> tensor<37x35xf32>
  %s = tensor.add %c, %bias : (tensor<37x35xf32>, tensor<35xf32>) -> tensor<37x35xf32>
  %r = tensor.relu %s : tensor<37x35xf32>
  %t = tensor.reduce %r {axes = array<i64: 0, 1>, keepdims = false, kind = "sum"} : (tensor<37x35xf32>) -> tensor<f32>
  %row = tensor.reduce %r {axes = array<i64: 0>, keepdims = false, kind = "max"} : (tensor<37x35xf32>) -> tensor<35xf32>
  return %t, %row : tensor<f32>, tensor<35xf32>
}
