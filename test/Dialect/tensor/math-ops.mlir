// The elementwise ops added with the op-interface work (sin, cos, erf, floor, ceil, round,
// sign, rem, clamp): each is one declaration, and every pass handles it through the
// interfaces the declaration carries. Printing in both forms, verification, fusion (sin is
// expensive: not recomputed; floor and clamp are cheap), batching, costs, constant folding,
// and the native code against the interpreter.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: xcs-opt %s -p 'builtin.module(func.func(fuse))' | FileCheck %s --check-prefix=FUSE
// RUN: xcs-opt %s --cost-annotate | FileCheck %s --check-prefix=COST
// RUN: xcs-opt %s --vmap-batch | FileCheck %s --check-prefix=BATCH
// RUN: xcs-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: xcs-run %s --entry math --input 0='[-2.5, -0.5, -0.0, 0.5, 1.5, 2.5]' --input 1='[2.0, -2.0, 1.0, 0.3, -0.7, 3.0]' | FileCheck %s --check-prefix=EXEC
// RUN: xcs-run %s --backend=interp --entry math --input 0='[-2.5, -0.5, -0.0, 0.5, 1.5, 2.5]' --input 1='[2.0, -2.0, 1.0, 0.3, -0.7, 3.0]' | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @math
// CHECK-NEXT: %0 = tensor.sin %arg0 : tensor<6xf32>
// CHECK-NEXT: %1 = tensor.cos %0 : tensor<6xf32>
// CHECK-NEXT: %2 = tensor.erf %1 : tensor<6xf32>
// CHECK-NEXT: %3 = tensor.floor %arg0 : tensor<6xf32>
// CHECK-NEXT: %4 = tensor.ceil %arg0 : tensor<6xf32>
// CHECK-NEXT: %5 = tensor.round %arg0 : tensor<6xf32>
// CHECK-NEXT: %6 = tensor.sign %arg0 : tensor<6xf32>
// CHECK-NEXT: %7 = tensor.rem %arg0, %arg1 : tensor<6xf32>
// CHECK: %10 = tensor.clamp %arg0, %8, %9 : (tensor<6xf32>, tensor<f32>, tensor<f32>) -> tensor<6xf32>
// GENERIC: "tensor.sin"(%{{.*}}) : (tensor<6xf32>) -> tensor<6xf32>
// GENERIC: "tensor.clamp"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<6xf32>, tensor<f32>, tensor<f32>) -> tensor<6xf32>

// sin, cos and erf are one region: a chain of expensive ops is fused, never recomputed.
// FUSE-LABEL: func.func @math
// FUSE: tensor.fused
// FUSE-NEXT: ^bb0
// FUSE-NEXT: tensor.sin
// FUSE-NEXT: tensor.cos
// FUSE-NEXT: tensor.erf

// Costs (docs/cost.md): transcendental = 1 FLOP and 1 transcendental per element, floor,
// ceil, round, sign and rem 1, clamp 2 (a max and a min).
// COST: tensor.sin {{.*}}flops = "6", read = "24", write = "24", transcendentals = "6"
// COST: tensor.cos {{.*}}flops = "6", read = "24", write = "24", transcendentals = "6"
// COST: tensor.erf {{.*}}flops = "6", read = "24", write = "24", transcendentals = "6"
// COST: tensor.floor {{.*}}flops = "6", read = "24", write = "24">
// COST: tensor.ceil {{.*}}flops = "6", read = "24", write = "24">
// COST: tensor.round {{.*}}flops = "6", read = "24", write = "24">
// COST: tensor.sign {{.*}}flops = "6", read = "24", write = "24">
// COST: tensor.rem {{.*}}flops = "6", read = "48", write = "24">
// COST: tensor.clamp {{.*}}flops = "12", read = "24", write = "24">

// EXEC-LABEL: result0: tensor<6xf32>
// EXEC: result3: tensor<6xf32>
// EXEC-NEXT: [-3. -1. -0.  0.  1.  2.]
// EXEC: result5: tensor<6xf32>
// EXEC-NEXT: [-2. -0. -0.  0.  2.  2.]
// EXEC: result6: tensor<6xf32>
// EXEC-NEXT: [-1. -1.  0.  1.  1.  1.]
// EXEC: result7: tensor<6xf32>
// EXEC-NEXT: [ 1.5        -0.5         0.          0.19999999 -0.59999996  2.5       ]
// EXEC: result8: tensor<6xf32>
// EXEC-NEXT: [-1.  -0.5 -0.   0.5  1.   1. ]
func.func @math(%x: tensor<6xf32>, %y: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = tensor.sin %x : tensor<6xf32>
  %1 = tensor.cos %0 : tensor<6xf32>
  %2 = tensor.erf %1 : tensor<6xf32>
  %3 = tensor.floor %x : tensor<6xf32>
  %4 = tensor.ceil %x : tensor<6xf32>
  %5 = tensor.round %x : tensor<6xf32>
  %6 = tensor.sign %x : tensor<6xf32>
  %7 = tensor.rem %x, %y : tensor<6xf32>
  %lo = tensor.constant {value = dense<-1.0> : tensor<f32>} : tensor<f32>
  %hi = tensor.constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
  %8 = tensor.clamp %x, %lo, %hi : (tensor<6xf32>, tensor<f32>, tensor<f32>) -> tensor<6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// Integers: floor, ceil and round are the identity, sign is -1/0/1, rem takes the divisor's
// sign, clamp is max then min.
// CHECK-LABEL: func.func @ints
// FOLD-LABEL: func.func @ints
// FOLD-NEXT: %[[C:.*]] = tensor.constant {value = dense<[1, -1, 2, 0]> : tensor<4xi32>}
// FOLD-NEXT: %[[S:.*]] = tensor.constant {value = dense<[-1, 1, 1, 0]> : tensor<4xi32>}
// FOLD-NEXT: %[[K:.*]] = tensor.constant {value = dense<[-2, 2, 2, 0]> : tensor<4xi32>}
// FOLD-NEXT: return %[[C]], %[[S]], %[[K]]
func.func @ints() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %x = tensor.constant {value = dense<[-7, 7, 5, 0]> : tensor<4xi32>} : tensor<4xi32>
  %y = tensor.constant {value = dense<[2, -2, 3, 5]> : tensor<4xi32>} : tensor<4xi32>
  %f = tensor.floor %x : tensor<4xi32>
  %r = tensor.rem %f, %y : tensor<4xi32>
  %s = tensor.sign %x : tensor<4xi32>
  %lo = tensor.constant {value = dense<-2> : tensor<i32>} : tensor<i32>
  %hi = tensor.constant {value = dense<2> : tensor<i32>} : tensor<i32>
  %k = tensor.clamp %x, %lo, %hi : (tensor<4xi32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
  return %r, %s, %k : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// Batched: the new ops get the batch dim in front; the bounds of clamp broadcast as they are.
// BATCH-LABEL: func.func @batched
// BATCH-NEXT: %[[S:.*]] = tensor.sin %arg0 : tensor<3x4xf32>
// BATCH-NEXT: %[[R:.*]] = tensor.rem %[[S]], %arg1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// BATCH-NEXT: %[[C:.*]] = tensor.clamp %[[R]], %arg1, %arg1 : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// BATCH-NEXT: return %[[C]]
func.func @batched(%x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%e: tensor<4xf32>):
    %0 = tensor.sin %e : tensor<4xf32>
    %1 = tensor.rem %0, %b : tensor<4xf32>
    %2 = tensor.clamp %1, %b, %b : tensor<4xf32>
    xcs.yield %2 : tensor<4xf32>
  }
  return %r : tensor<3x4xf32>
}
