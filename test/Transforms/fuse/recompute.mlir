// The recompute rule: a value with users outside a region is copied into it only when its op
// is cheap (no division, pow or transcendental) and the region has copied fewer than
// max-recompute ops; otherwise it stays a region output, or the region reads it.
// RUN: xcs-opt %s --fuse | FileCheck %s
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(fuse{recompute=false}))' | FileCheck %s --check-prefix=NORC
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(fuse{max-ops=2}))' | FileCheck %s --check-prefix=MAX2

// %s (cheap) feeds two chains that fuse: each region computes its own copy, and the original
// is erased. Without recompute, %s is the first region's output and log stays alone.
// NORC-LABEL: func.func @cheap_shared
// NORC-NEXT: %[[S:.*]]:2 = tensor.fused %arg0, %arg1
// NORC: tensor.yield
// NORC-NEXT: }
// NORC-NEXT: tensor.log %[[S]]#0
// CHECK-LABEL: func.func @cheap_shared
// CHECK-NEXT: %[[A:.*]] = tensor.fused %arg0, %arg1 : tensor<8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.exp
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[B:.*]] = tensor.fused %arg0, %arg1 : tensor<8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.log
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @cheap_shared(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = tensor.add %x, %y : tensor<8xf32>
  %a = tensor.exp %s : tensor<8xf32>
  %b = tensor.log %s : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// %e (exp: expensive) feeds two chains: it is computed once, in the first region, and is
// that region's output that the second reads.
// CHECK-LABEL: func.func @expensive_shared
// CHECK-NEXT: %[[F:.*]]:2 = tensor.fused %arg0, %arg1 : tensor<8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: %[[E:.*]] = tensor.exp
// CHECK-NEXT: tensor.add %[[E]]
// CHECK-NEXT: %[[R:.*]] = tensor.relu
// CHECK-NEXT: tensor.yield %[[E]], %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]] = tensor.fused %[[F]]#0, %arg1 : tensor<8xf32> {
// CHECK-NOT: tensor.exp
// CHECK: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]#1, %[[G]]
func.func @expensive_shared(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.exp %x : tensor<8xf32>
  %a = tensor.add %e, %y : tensor<8xf32>
  %a2 = tensor.relu %a : tensor<8xf32>
  %b = tensor.mul %e, %y : tensor<8xf32>
  %b2 = tensor.neg %b : tensor<8xf32>
  return %a2, %b2 : tensor<8xf32>, tensor<8xf32>
}

// A cheap value also returned: it is used by a non-fusible op (the return), so it is
// materialized anyway and becomes a region output instead of a copy.
// CHECK-LABEL: func.func @returned
// CHECK-NEXT: %[[F:.*]]:2 = tensor.fused %arg0 : tensor<8xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: %[[S:.*]] = tensor.mul
// CHECK-NEXT: %[[T:.*]] = tensor.sub %[[S]]
// CHECK-NEXT: tensor.yield %[[S]], %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]#1, %[[F]]#0
func.func @returned(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %s = tensor.mul %x, %x : tensor<8xi32>
  %t = tensor.sub %s, %x : tensor<8xi32>
  return %t, %s : tensor<8xi32>, tensor<8xi32>
}

// MAX2-LABEL: func.func @long_chain
// MAX2-COUNT-3: tensor.fused
// MAX2-NOT: tensor.fused
// MAX2: return
// CHECK-LABEL: func.func @long_chain
// CHECK-NEXT: tensor.fused
// CHECK-COUNT-6: tensor.
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @long_chain(%x: tensor<8xi32>) -> tensor<8xi32> {
  %0 = tensor.add %x, %x : tensor<8xi32>
  %1 = tensor.mul %0, %x : tensor<8xi32>
  %2 = tensor.sub %1, %x : tensor<8xi32>
  %3 = tensor.neg %2 : tensor<8xi32>
  %4 = tensor.abs %3 : tensor<8xi32>
  %5 = tensor.max %4, %x : tensor<8xi32>
  return %5 : tensor<8xi32>
}
