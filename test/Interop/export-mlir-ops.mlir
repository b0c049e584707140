// The MLIR export of XCS's data-movement ops, layer_norm and cf control flow
// (docs/interop.md's covered list): xcs-translate --emit=mlir writes upstream tensor/linalg/cf
// ops that mlir-opt 22 verifies and lowers, and xcs-run --backend=mlir computes what the LLVM
// JIT and the interpreter compute (these functions are in mlir-bridge/tests/differential.rs's
// COVERED list too).
// RUN: xcs-translate %s --emit=mlir -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt %t.mlir --verify-diagnostics > /dev/null
// RUN: mlir-opt %t.mlir --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries},convert-linalg-to-loops)' > /dev/null
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: xcs-run %s --entry shapes --backend=mlir --input 0=random:1 --input 1=random:2 --input 2=random:3 --output-dir %t.d/mlir
// RUN: xcs-run %s --entry shapes --input 0=random:1 --input 1=random:2 --input 2=random:3 --output-dir %t.d/llvm
// RUN: xcs-run %s --entry shapes --backend=interp --input 0=random:1 --input 1=random:2 --input 2=random:3 --output-dir %t.d/interp
// RUN: %python %S/../Run/Inputs/compare_npy.py %t.d/interp %t.d/mlir %t.d/llvm | FileCheck %s --check-prefix=SAME
// RUN: xcs-run %s --entry indexing --backend=mlir --input 0=random:1 --input 1=random:2 --input 2=random:3 --input 3=random:4 --output-dir %t.d/ix/mlir
// RUN: xcs-run %s --entry indexing --input 0=random:1 --input 1=random:2 --input 2=random:3 --input 3=random:4 --output-dir %t.d/ix/llvm
// RUN: xcs-run %s --entry indexing --backend=interp --input 0=random:1 --input 1=random:2 --input 2=random:3 --input 3=random:4 --output-dir %t.d/ix/interp
// RUN: %python %S/../Run/Inputs/compare_npy.py %t.d/ix/interp %t.d/ix/mlir %t.d/ix/llvm | FileCheck %s --check-prefix=SAME
// RUN: xcs-run %s --entry branches --backend=mlir --input 0='[1.0, -2.0, 3.0]' --input 1='[2.0, 0.5, 1.0]' | FileCheck %s --check-prefix=BRANCH
// RUN: xcs-run %s --entry branches --backend=mlir --input 0='[-1.0, -2.0, 3.0]' --input 1='[2.0, 0.5, 1.0]' | FileCheck %s --check-prefix=BRANCH-NEG

// CHECK-LABEL: func.func @shapes
// CHECK: tensor.reshape
// CHECK: linalg.generic
// CHECK: tensor.extract_slice
// CHECK: tensor.concat
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
// CHECK-LABEL: func.func @indexing
// CHECK: tensor.extract
// CHECK: linalg.index
// CHECK: tensor.insert_slice
// CHECK-LABEL: func.func @norm
// CHECK: math.sqrt
// CHECK-LABEL: func.func @branches
// CHECK: cf.cond_br
// CHECK: ^bb1
// CHECK: cf.br
// CHECK: cf.switch
// SAME:      mlir result0.npy: {{equal|close}}
// SAME-NEXT: mlir result1.npy: {{equal|close}}
// SAME-NEXT: mlir result2.npy: {{equal|close}}
// SAME-NEXT: mlir result3.npy: {{equal|close}}
// SAME-NEXT: mlir result4.npy: {{equal|close}}
// SAME-NEXT: mlir result5.npy: {{equal|close}}
// SAME-NEXT: llvm result0.npy: {{equal|close}}
// x[0] > 0: 2 * x, then the switch on 1 takes the case of 1 (+ y)
// BRANCH: result0: tensor<3xf32>
// BRANCH-NEXT: [ 4. -3.5 7. ]
// x[0] <= 0: exp(0) = 1 each, the same case
// BRANCH-NEG: result0: tensor<3xf32>
// BRANCH-NEG-NEXT: [3. 1.5 2. ]

// reshape (also to and from rank 0), broadcast_to (new and size-1 dims), slice (strided),
// concat.
func.func @shapes(%x: tensor<2x6xf32>, %y: tensor<3x1xf32>, %z: tensor<2x2xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<2x3xf32>, tensor<2x11xf32>, tensor<1x1xf32>, tensor<f32>) {
  %r = tensor.reshape %x : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %b = tensor.broadcast_to %y : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %s = tensor.slice %x {start = array<i64: 0, 1>, limit = array<i64: 2, 6>, stride = array<i64: 1, 2>} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %c = tensor.concat %x, %s, %z {axis = 1} : (tensor<2x6xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x11xf32>
  %one = tensor.slice %x {start = array<i64: 1, 5>, limit = array<i64: 2, 6>, stride = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<1x1xf32>
  %scalar = tensor.reshape %one : (tensor<1x1xf32>) -> tensor<f32>
  %back = tensor.reshape %scalar : (tensor<f32>) -> tensor<1x1xf32>
  %twice = tensor.add %back, %one : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r, %b, %s, %c, %twice, %scalar : tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<2x3xf32>, tensor<2x11xf32>, tensor<1x1xf32>, tensor<f32>
}

// gather on both axes (in-range indices), iota (integer and float), dynamic_slice and
// dynamic_update_slice at run-time starts (random ones: clamped).
func.func @indexing(%t: tensor<5x4xf32>, %i: tensor<i32>, %j: tensor<i32>, %u: tensor<2x3xf32>) -> (tensor<3x2x4xf32>, tensor<5x2xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<2x2xf32>, tensor<5x4xf32>) {
  %idx = tensor.constant {value = dense<[[4, 0], [2, 2], [1, 3]]> : tensor<3x2xi32>} : tensor<3x2xi32>
  %g0 = tensor.gather %t, %idx {axis = 0} : (tensor<5x4xf32>, tensor<3x2xi32>) -> tensor<3x2x4xf32>
  %cols = tensor.constant {value = dense<[3, 1]> : tensor<2xi64>} : tensor<2xi64>
  %g1 = tensor.gather %t, %cols {axis = 1} : (tensor<5x4xf32>, tensor<2xi64>) -> tensor<5x2xf32>
  %io = tensor.iota {axis = 1} : tensor<2x3xi32>
  %fo = tensor.iota {axis = 0} : tensor<4xf32>
  %ds = tensor.dynamic_slice %t, %i, %j {sizes = array<i64: 2, 2>} : (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %du = tensor.dynamic_update_slice %t, %u, %j, %i : (tensor<5x4xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
  return %g0, %g1, %io, %fo, %ds, %du : tensor<3x2x4xf32>, tensor<5x2xf32>, tensor<2x3xi32>, tensor<4xf32>, tensor<2x2xf32>, tensor<5x4xf32>
}

// layer_norm over the last dim and over the last two.
func.func @norm(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %g2: tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %0 = tensor.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %1 = tensor.layer_norm %x, %g2, %g2 {axis = -2 : i64, epsilon = 0.5 : f32} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// cf blocks: a cond_br on the sign of x[0] (tensor.extract of a cmp), blocks with tensor
// arguments, a switch on an i32 extracted from a tensor.
func.func @branches(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %first = tensor.slice %x {start = array<i64: 0>, limit = array<i64: 1>, stride = array<i64: 1>} : (tensor<3xf32>) -> tensor<1xf32>
  %head = tensor.reshape %first : (tensor<1xf32>) -> tensor<f32>
  %zero = tensor.constant {value = dense<0.0> : tensor<f32>} : tensor<f32>
  %pos = tensor.cmp %head, %zero {predicate = "gt"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %p = tensor.extract %pos : (tensor<i1>) -> i1
  cf.cond_br %p, ^double(%x : tensor<3xf32>), ^other
^double(%v: tensor<3xf32>):
  %d = tensor.add %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  cf.br ^join(%d : tensor<3xf32>)
^other:
  %sq = tensor.mul %x, %zero : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %e = tensor.exp %sq : tensor<3xf32>
  cf.br ^join(%e : tensor<3xf32>)
^join(%w: tensor<3xf32>):
  %k = tensor.constant {value = dense<1> : tensor<i32>} : tensor<i32>
  %flag = tensor.extract %k : (tensor<i32>) -> i32
  cf.switch %flag : i32, [
    default: ^done(%w : tensor<3xf32>),
    1: ^plus(%w : tensor<3xf32>)
  ]
^plus(%a: tensor<3xf32>):
  %s = tensor.add %a, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  cf.br ^done(%s : tensor<3xf32>)
^done(%r: tensor<3xf32>):
  return %r : tensor<3xf32>
}
