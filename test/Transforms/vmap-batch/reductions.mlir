// reduce, softmax and layer_norm: axes (normalised, negative ones too) shift by one.
// layer_norm with a batched gamma or beta is computed as the interpreter computes it (in f64,
// rounded once): layer_norm(x64, 1, -0.0) * gamma64 + beta64, cast back.
// RUN: xcs-opt %s --vmap-batch | FileCheck %s

// CHECK-LABEL: func.func @reduce
// CHECK-NEXT: %[[A:.*]] = tensor.reduce %arg0 {axes = array<i64: 2>, keepdims = false, kind = "sum"} : (tensor<4x2x3xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.reduce %arg0 {axes = array<i64: 1, 2>, keepdims = true, kind = "max"} : (tensor<4x2x3xf32>) -> tensor<4x1x1xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = false, kind = "mean"} : (tensor<4x2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
func.func @reduce(%x: tensor<4x2x3xf32>) -> (tensor<4x2xf32>, tensor<4x1x1xf32>, tensor<4x3xf32>) {
  %r:3 = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0, 0, 0>} : (tensor<4x2x3xf32>) -> (tensor<4x2xf32>, tensor<4x1x1xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<2x3xf32>):
    %0 = tensor.reduce %a {axes = array<i64: -1>, keepdims = false, kind = "sum"} : (tensor<2x3xf32>) -> tensor<2xf32>
    %1 = tensor.reduce %a {axes = array<i64: 1, 0>, keepdims = true, kind = "max"} : (tensor<2x3xf32>) -> tensor<1x1xf32>
    %2 = tensor.reduce %a {axes = array<i64: 0>, keepdims = false, kind = "mean"} : (tensor<2x3xf32>) -> tensor<3xf32>
    xcs.yield %0, %1, %2 : (tensor<2xf32>, tensor<1x1xf32>, tensor<3xf32>) -> ()
  }
  return %r#0, %r#1, %r#2 : tensor<4x2xf32>, tensor<4x1x1xf32>, tensor<4x3xf32>
}

// Integer reductions over all dims of the element: the batch dim stays.
// CHECK-LABEL: func.func @reduce_int
// CHECK-NEXT: %[[A:.*]] = tensor.reduce %arg0 {axes = array<i64: 1, 2>, keepdims = false, kind = "prod"} : (tensor<3x2x2xi64>) -> tensor<3xi64>
// CHECK-NEXT: %[[B:.*]] = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = false, kind = "min"} : (tensor<3x2x2xi64>) -> tensor<3x2xi64>
func.func @reduce_int(%x: tensor<3x2x2xi64>) -> (tensor<3xi64>, tensor<3x2xi64>) {
  %r:2 = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0, 0>} : (tensor<3x2x2xi64>) -> (tensor<3xi64>, tensor<3x2xi64>) {
  ^bb0(%a: tensor<2x2xi64>):
    %0 = tensor.reduce %a {axes = array<i64: 0, 1>, keepdims = false, kind = "prod"} : (tensor<2x2xi64>) -> tensor<i64>
    %1 = tensor.reduce %a {axes = array<i64: 0>, keepdims = false, kind = "min"} : (tensor<2x2xi64>) -> tensor<2xi64>
    xcs.yield %0, %1 : (tensor<i64>, tensor<2xi64>) -> ()
  }
  return %r#0, %r#1 : tensor<3xi64>, tensor<3x2xi64>
}

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 1, 0, 2>} : (tensor<3x5x4xf64>) -> tensor<5x3x4xf64>
// CHECK-NEXT: %[[A:.*]] = tensor.softmax %[[T]] {axis = 1 : i64} : tensor<5x3x4xf64>
// CHECK-NEXT: %[[B:.*]] = tensor.softmax %[[A]] {axis = 2 : i64} : tensor<5x3x4xf64>
func.func @softmax(%x: tensor<3x5x4xf64>) -> tensor<5x3x4xf64> {
  %r = xcs.vmap %x {in_axes = array<i64: 1>, out_axes = array<i64: 0>} : (tensor<3x5x4xf64>) -> tensor<5x3x4xf64> {
  ^bb0(%a: tensor<3x4xf64>):
    %0 = tensor.softmax %a {axis = 0 : i64} : tensor<3x4xf64>
    %1 = tensor.softmax %0 {axis = -1 : i64} : tensor<3x4xf64>
    xcs.yield %1 : tensor<3x4xf64>
  }
  return %r : tensor<5x3x4xf64>
}

// Unbatched gamma and beta: one layer_norm with the axis shifted.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT: %[[L:.*]] = tensor.layer_norm %arg0, %arg1, %arg2 {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[K:.*]] = tensor.layer_norm %arg0, %arg3, %arg3 {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
func.func @layer_norm(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %g2: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:2 = xcs.vmap %x, %g, %b, %g2 {in_axes = array<i64: 0, -1, -1, -1>, out_axes = array<i64: 0, 0>} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  ^bb0(%a: tensor<3x4xf32>, %gg: tensor<4xf32>, %bb: tensor<4xf32>, %g3: tensor<3x4xf32>):
    %0 = tensor.layer_norm %a, %gg, %bb {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    %1 = tensor.layer_norm %a, %g3, %g3 {axis = 0 : i64, epsilon = 1.0e-03 : f32} : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    xcs.yield %0, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// A batched gamma (and x unbatched): normalise once in f64, then scale and shift per element.
// CHECK-LABEL: func.func @layer_norm_batched_gamma
// CHECK-NEXT: %[[X64:.*]] = tensor.cast %arg1 : (tensor<3x4xf32>) -> tensor<3x4xf64>
// CHECK-NEXT: %[[G64:.*]] = tensor.cast %arg0 : (tensor<5x4xf32>) -> tensor<5x4xf64>
// CHECK-NEXT: %[[B64:.*]] = tensor.cast %arg2 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK-NEXT: %[[ONE:.*]] = tensor.constant {value = dense<1.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT: %[[NZ:.*]] = tensor.constant {value = dense<-0.000000e+00> : tensor<4xf64>} : tensor<4xf64>
// CHECK-NEXT: %[[N:.*]] = tensor.layer_norm %[[X64]], %[[ONE]], %[[NZ]] {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: %[[GR:.*]] = tensor.reshape %[[G64]] : (tensor<5x4xf64>) -> tensor<5x1x4xf64>
// CHECK-NEXT: %[[Y:.*]] = tensor.mul %[[N]], %[[GR]] : (tensor<3x4xf64>, tensor<5x1x4xf64>) -> tensor<5x3x4xf64>
// CHECK-NEXT: %[[Z:.*]] = tensor.add %[[Y]], %[[B64]] : (tensor<5x3x4xf64>, tensor<4xf64>) -> tensor<5x3x4xf64>
// CHECK-NEXT: %[[R:.*]] = tensor.cast %[[Z]] : (tensor<5x3x4xf64>) -> tensor<5x3x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @layer_norm_batched_gamma(%g: tensor<5x4xf32>, %x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<5x3x4xf32> {
  %r = xcs.vmap %g, %x, %b {in_axes = array<i64: 0, -1, -1>, out_axes = array<i64: 0>} : (tensor<5x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<5x3x4xf32> {
  ^bb0(%gg: tensor<4xf32>, %a: tensor<3x4xf32>, %bb: tensor<4xf32>):
    %0 = tensor.layer_norm %a, %gg, %bb {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    xcs.yield %0 : tensor<3x4xf32>
  }
  return %r : tensor<5x3x4xf32>
}

// Everything batched, f64 (no casts).
// CHECK-LABEL: func.func @layer_norm_all_batched
// CHECK: tensor.layer_norm %arg0, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: tensor.mul %{{.*}}, %arg1 : tensor<2x3xf64>
// CHECK-NEXT: tensor.add %{{.*}}, %arg2 : tensor<2x3xf64>
// CHECK-NEXT: return
func.func @layer_norm_all_batched(%x: tensor<2x3xf64>, %g: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = xcs.vmap %x, %g, %b {in_axes = array<i64: 0, 0, 0>, out_axes = array<i64: 0>} : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64> {
  ^bb0(%a: tensor<3xf64>, %gg: tensor<3xf64>, %bb: tensor<3xf64>):
    %0 = tensor.layer_norm %a, %gg, %bb {axis = 0 : i64, epsilon = 1.0e-05 : f32} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    xcs.yield %0 : tensor<3xf64>
  }
  return %r : tensor<2x3xf64>
}
