// The inliner. Every function here was checked against `mlir-opt --inline` (and with
// default-pipeline=, and --mlir-print-debuginfo) on the same code with arith ops: same output.
// RUN: xcs-test-opt %s --inline | FileCheck %s
// RUN: xcs-test-opt %s --inline | FileCheck %s --check-prefix=GONE
// RUN: xcs-test-opt %s --inline='default-pipeline=' | FileCheck %s --check-prefix=RAW
// RUN: xcs-test-opt %s --inline --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// RUN: xcs-test-opt %s --inline='inlining-threshold=0' | FileCheck %s --check-prefix=NONE
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(inline))' 2>&1 | FileCheck %s --check-prefix=TABLE

// Inlined private callees are erased; public ones stay; declarations are never inlined.
// GONE has no positive match, so its -NOTs scan the whole output (a -NOT before a -LABEL
// only scans up to the label: a callee printed after it would go unseen).
// GONE-NOT: @single
// GONE-NOT: @multi
// GONE-NOT: @no_results
// GONE-NOT: @level1
// GONE-NOT: @level2
// CHECK-LABEL: func.func @public_callee
// CHECK: func.func private @decl(i32) -> i32
func.func private @single(%a: i32, %b: i32) -> i32 {
  %0 = test.addi %a, %b : i32
  %1 = test.muli %0, %0 : i32
  return %1 : i32
}
func.func @public_callee(%a: i32) -> i32 {
  %0 = call @ext(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @multi(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %0 = test.addi %a, %a : i32
  return %0 : i32
^bb2:
  %1 = call @ext(%a) : (i32) -> i32
  return %1 : i32
}
func.func private @no_results(%a: i32) {
  call @sink(%a) : (i32) -> ()
  return
}
func.func private @decl(%a: i32) -> i32
func.func private @level2(%a: i32) -> i32 {
  %0 = call @ext(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @level1(%a: i32) -> i32 {
  %0 = call @level2(%a) : (i32) -> i32
  %1 = call @level2(%0) : (i32) -> i32
  return %1 : i32
}

// A self-recursive function is never inlined, not even into another function.
// CHECK-LABEL: func.func @rec
// CHECK-NEXT: call @rec
func.func @rec(%a: i32) -> i32 {
  %0 = call @rec(%a) : (i32) -> i32
  return %0 : i32
}

// Mutual recursion: not inlined into each other; into a caller outside the cycle, each
// round inlines @even and then @odd, until the call to @even comes from an inlined @even.
// CHECK-LABEL: func.func private @even
// CHECK-NEXT: call @odd
// CHECK-LABEL: func.func private @odd
// CHECK-NEXT: call @even
func.func private @even(%a: i32) -> i32 {
  %0 = call @odd(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @odd(%a: i32) -> i32 {
  %0 = call @even(%a) : (i32) -> i32
  return %0 : i32
}

// Single-block callees are spliced in with their results; a multi-block callee splits the
// block, its returns branching to a continuation block whose argument is the result.
// CHECK-LABEL: func.func @caller
// CHECK-NEXT: %[[S:.*]] = test.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[M:.*]] = test.muli %[[S]], %[[S]] : i32
// CHECK-NEXT: %[[P:.*]] = call @ext(%[[M]]) : (i32) -> i32
// CHECK-NEXT: cf.cond_br %arg2, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[X:.*]] = test.addi %[[P]], %[[P]] : i32
// CHECK-NEXT: cf.br ^bb3(%[[X]] : i32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[Y:.*]] = call @ext(%[[P]]) : (i32) -> i32
// CHECK-NEXT: cf.br ^bb3(%[[Y]] : i32)
// CHECK-NEXT: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT: call @sink(%[[R]]) : (i32) -> ()
// CHECK-NEXT: %[[D:.*]] = call @decl(%[[R]]) : (i32) -> i32
// CHECK-NEXT: %[[L1:.*]] = call @ext(%[[D]]) : (i32) -> i32
// CHECK-NEXT: %[[L2:.*]] = call @ext(%[[L1]]) : (i32) -> i32
// CHECK-NEXT: %[[REC:.*]] = call @rec(%[[L2]]) : (i32) -> i32
// CHECK-NEXT: %[[EV:.*]] = call @even(%[[REC]]) : (i32) -> i32
// CHECK-NEXT: return %[[EV]] : i32
// Calls and callees marked no_inline stay.
// CHECK-LABEL: func.func @no_inline
// CHECK-NEXT: %[[A:.*]] = call @marked(%arg0) : (i32) -> i32
// CHECK-NEXT: %[[B:.*]] = call @plain(%[[A]]) {no_inline} : (i32) -> i32
// CHECK-NEXT: return %[[B]] : i32
// RAW-LABEL: func.func @caller
// RAW: cf.cond_br %arg2, ^bb1, ^bb2
// RAW: call @even
// NONE-LABEL: func.func @caller
// NONE-NEXT: call @single
func.func @caller(%a: i32, %b: i32, %c: i1) -> i32 {
  %0 = call @single(%a, %b) : (i32, i32) -> i32
  %1 = call @public_callee(%0) : (i32) -> i32
  %2 = call @multi(%1, %c) : (i32, i1) -> i32
  call @no_results(%2) : (i32) -> ()
  %3 = call @decl(%2) : (i32) -> i32
  %4 = call @level1(%3) : (i32) -> i32
  %5 = call @rec(%4) : (i32) -> i32
  %6 = call @even(%5) : (i32) -> i32
  return %6 : i32
}
func.func @no_inline(%a: i32) -> i32 {
  %0 = call @marked(%a) : (i32) -> i32
  %1 = call @plain(%0) {no_inline} : (i32) -> i32
  %2 = call @plain(%1) : (i32) -> i32
  return %2 : i32
}
func.func private @marked(%a: i32) -> i32 attributes {no_inline} {
  return %a : i32
}
func.func private @plain(%a: i32) -> i32 {
  return %a : i32
}
func.func private @ext(i32) -> i32
func.func private @sink(i32)

// TABLE: error: 'func.func' op  was scheduled to run under the inliner, but does not define a symbol table

// Locations: callsite(callee at call), stacked for nested inlining; the continuation
// block argument is located at the call. (These lines come last: they name line numbers.)
// LOC-LABEL: func.func @caller
// LOC-NEXT: test.addi %arg0, %arg1 : i32 loc(callsite("{{.*}}inline.mlir":21:8 at "{{.*}}inline.mlir":108:8))
// LOC-NEXT: test.muli {{.*}} loc(callsite("{{.*}}inline.mlir":22:8 at "{{.*}}inline.mlir":108:8))
// LOC: ^bb3(%{{.*}}: i32 loc("{{.*}}inline.mlir":110:8)):
// LOC: call @decl({{.*}} loc("{{.*}}inline.mlir":112:8)
// LOC-NEXT: call @ext({{.*}} loc(callsite("{{.*}}inline.mlir":44:8 at callsite("{{.*}}inline.mlir":48:8 at "{{.*}}inline.mlir":113:8)))
// LOC: call @even({{.*}} loc(callsite("{{.*}}inline.mlir":72:8 at callsite("{{.*}}inline.mlir":68:8 at callsite("{{.*}}inline.mlir":72:8 at callsite("{{.*}}inline.mlir":68:8 at callsite("{{.*}}inline.mlir":72:8 at callsite("{{.*}}inline.mlir":68:8 at callsite("{{.*}}inline.mlir":72:8 at callsite("{{.*}}inline.mlir":68:8 at "{{.*}}inline.mlir":115:8)))))))))
