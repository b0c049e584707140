// The uniform pretty form of XCS's own ops (test, tensor, xcs): printed, parsed back, and the
// same module as its generic form.
// RUN: xcs-test-opt %s | FileCheck %s
// RUN: xcs-test-opt %s | xcs-test-opt | FileCheck %s
// RUN: xcs-test-opt %s -o %t.pretty
// RUN: xcs-test-opt %s --mlir-print-op-generic | xcs-test-opt | diff - %t.pretty
// RUN: xcs-test-opt %t.pretty --mlir-print-op-generic | xcs-test-opt | diff - %t.pretty

// CHECK-LABEL: func.func @shapes(%arg0: i32, %arg1: i32) -> i32 {
func.func @shapes(%a: i32, %b: i32) -> i32 {
  // No operands, results or regions: no type.
  // CHECK-NEXT: test.effect
  test.effect
  // One type when every operand and result has it.
  // CHECK-NEXT: %0 = test.addi %arg0, %arg1 : i32
  %0 = test.addi %a, %b : i32
  // Operands only, or results only.
  // CHECK-NEXT: test.effect %0 : i32
  test.effect %0 : i32
  // CHECK-NEXT: %1 = test.effect : i32
  %1 = test.effect : i32
  // A function type that could be one type prints as one type.
  // CHECK-NEXT: test.effect %0, %1 : i32
  test.effect %0, %1 : (i32, i32) -> ()
  // Mixed types: a function type.
  // CHECK-NEXT: %2:2 = test.pure %0 : (i32) -> (i32, i64)
  %2:2 = test.pure %0 : (i32) -> (i32, i64)
  // CHECK-NEXT: test.effect %2#1, %2#0 : (i64, i32) -> ()
  test.effect %2#1, %2#0 : (i64, i32) -> ()
  // Result groups, printed as one group.
  // CHECK-NEXT: %3:3 = test.pure : i32
  %p, %q:2 = test.pure : i32
  // Attributes (all of them, inherent and discardable) in one trailing dictionary.
  // CHECK-NEXT: %4 = test.constant {extra = "x", value = 5 : i32} : i32
  %4 = test.constant {value = 5 : i32, extra = "x"} : i32
  // A function type is always a function-type signature, even if all types are equal.
  // CHECK-NEXT: %5 = test.pure : () -> (() -> ())
  %5 = test.pure : () -> (() -> ())
  // An op with no operands that is followed by an op with results: the `%` that follows
  // belongs to the next op.
  // CHECK-NEXT: test.effect
  // CHECK-NEXT: %6 = test.negi %0 : i32
  test.effect
  %6 = test.negi %0 : i32
  // Ops with only the generic form.
  // CHECK-NEXT: %7 = "test.generic_only"(%0) : (i32) -> i32
  %7 = "test.generic_only"(%0) : (i32) -> i32
  return %0 : i32
}

// Regions: always after a type signature (`: () -> ()` when there are no operands or results).
// CHECK-LABEL: func.func @regions(
func.func @regions(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: test.region : () -> () {
  // CHECK-NEXT: test.yield
  // CHECK-NEXT: }
  test.region : () -> () {
    test.yield
  }
  // CHECK: %{{.*}} = test.region %{{.*}} {k = 1 : i64} : (tensor<8x4xf32>) -> i1 {
  // CHECK-NEXT: ^bb0(%{{.*}}: i1):
  %r = test.region %x {k = 1} : (tensor<8x4xf32>) -> i1 {
  ^bb0(%flag: i1):
    test.yield %flag : i1
  }
  // CHECK: xcs.vmap %arg0 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  // CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<4xf32>):
  // CHECK-NEXT: %[[T:.*]] = tensor.tanh %[[E]] : tensor<4xf32>
  // CHECK-NEXT: xcs.yield %[[T]] : tensor<4xf32>
  // CHECK-NEXT: }
  %v = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%e: tensor<4xf32>):
    %t = tensor.tanh %e : tensor<4xf32>
    xcs.yield %t : tensor<4xf32>
  }
  return %v : tensor<8x4xf32>
}

// Tensor ops with broadcasting and attributes; xcs ops on strings.
// CHECK-LABEL: func.func @tensor_ops(
// CHECK: tensor.add %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: tensor.reduce %{{.*}} {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: xcs.llm %{{.*}} {model = "m", provider = "p"} : !xcs.str
func.func @tensor_ops(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %p: !xcs.str) -> (tensor<4xf32>, !xcs.str) {
  %0 = tensor.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tensor.reduce %0 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  %2 = xcs.llm %p {model = "m", provider = "p"} : !xcs.str
  return %1, %2 : tensor<4xf32>, !xcs.str
}

// Isolated and graph regions outside functions; `builtin.` may be dropped from `module`.
// CHECK-LABEL: module @inner attributes {foo.bar = 1 : i64} {
// CHECK-NEXT: test.isolated : () -> () {
// CHECK-NEXT: test.graph : () -> () {
// CHECK-NEXT: %0 = test.addi %1, %1 : i32
// CHECK-NEXT: %1 = test.constant {value = 1 : i32} : i32
builtin.module @inner attributes {foo.bar = 1} {
  test.isolated : () -> () {
    test.graph : () -> () {
      %0 = test.addi %1, %1 : i32
      %1 = test.constant {value = 1 : i32} : i32
    }
  }
}
