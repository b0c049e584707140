// REQUIRES: passes
// RUN: xcs-opt %s --inline --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// The private callee is inlined and erased; inlined ops get call-site locations.
// CHECK-NOT: @callee
// CHECK-LABEL: func.func @caller
// CHECK-NEXT: test.addi %arg0, %arg0 : i32 loc(callsite("{{.*}}inline.mlir":{{[0-9]+}}:{{[0-9]+}} at "call.mlir":3:4))
// CHECK-NEXT: return
func.func private @callee(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  return %0 : i32
}
func.func @caller(%a: i32) -> i32 {
  %0 = call @callee(%a) : (i32) -> i32 loc("call.mlir":3:4)
  return %0 : i32
}

// Recursion is not inlined.
// CHECK-LABEL: func.func @rec
// CHECK: call @rec
func.func @rec(%a: i32) -> i32 {
  %0 = call @rec(%a) : (i32) -> i32
  return %0 : i32
}
