// IR dumps around passes, with mlir-opt's headers: function passes print the function,
// module passes the module (the output is mlir-opt's with --mlir-disable-threading).
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-before=cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after=symbol-dce -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-before=cse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFOREALL
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after-change -o /dev/null 2>&1 | count 0
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse,test-pass-failure))' --mlir-print-ir-after-failure -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAILURE
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after=symbol-dce --mlir-print-debuginfo -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEBUG
// Dumps go to stderr, the output to stdout.
// RUN: xcs-test-opt %s --cse --mlir-print-ir-after-all 2>/dev/null | FileCheck %s --check-prefix=STDOUT

// BEFORE:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func @f(%arg0: i32) -> i32 {
// BEFORE-NEXT:   %0 = test.addi %arg0, %arg0 : i32
// BEFORE-NEXT:   %1 = test.addi %arg0, %arg0 : i32
// BEFORE-NEXT:   %2 = test.muli %0, %1 : i32
// BEFORE-NEXT:   return %2 : i32
// BEFORE-NEXT: }
// BEFORE-EMPTY:
// BEFORE-NEXT: // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: func.func @g(%arg0: i32) -> i32 {
// BEFORE-NOT: IR Dump After

// AFTER-NOT:   IR Dump
// AFTER:       // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// AFTER-NEXT:  module {
// AFTER-NEXT:    func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT:      %0 = test.addi %arg0, %arg0 : i32
// AFTER-NEXT:      %1 = test.muli %0, %0 : i32
// AFTER:       {{^}}}{{$}}
// AFTER-EMPTY:
// AFTER-EMPTY:
// AFTER-NOT:   {{.}}

// CHECK:      // -----// IR Dump Before CSE (cse) //----- //
// CHECK-NEXT: func.func @f(
// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func @f(
// CHECK:      // -----// IR Dump Before CSE (cse) //----- //
// CHECK-NEXT: func.func @g(
// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func @g(
// CHECK:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// CHECK-NEXT: module {

// BEFOREALL:      // -----// IR Dump Before CSE (cse) //----- //
// BEFOREALL-NEXT: func.func @f(
// BEFOREALL:      // -----// IR Dump Before CSE (cse) //----- //
// BEFOREALL-NEXT: func.func @g(
// BEFOREALL:      // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// BEFOREALL-NEXT: module {
// BEFOREALL-NOT:  IR Dump After

// @f changes under cse, @g does not, symbol-dce removes nothing.
// CHANGE:      // -----// IR Dump After CSE (cse) //----- //
// CHANGE-NEXT: func.func @f(
// CHANGE-NOT:  IR Dump

// FAILURE-NOT:  IR Dump After CSE
// FAILURE:      // -----// IR Dump After TestPassFailure Failed (test-pass-failure) //----- //
// FAILURE-NEXT: func.func @f(%arg0: i32) -> i32 {
// FAILURE-NEXT:   %0 = test.addi %arg0, %arg0 : i32
// FAILURE-NEXT:   %1 = test.muli %0, %0 : i32
// FAILURE:      // -----// IR Dump After TestPassFailure Failed (test-pass-failure) //----- //
// FAILURE-NEXT: func.func @g(
// FAILURE:      error: 'func.func' op test-pass-failure: failing as asked

// Module dumps define their location aliases after the module, as mlir-opt prints them.
// DEBUG:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// DEBUG-NEXT: #loc{{[0-9]+}} = loc("{{.*}}ir-printing.mlir":{{[0-9]+}}:14)
// DEBUG:      module {
// DEBUG-NEXT:   func.func @f(%arg0: i32 loc({{.*}})) -> i32 {
// DEBUG-NEXT:     %0 = test.addi %arg0, %arg0 : i32 loc(#loc{{[0-9]+}})
// DEBUG:      } loc(#loc)
// DEBUG:      #loc = loc("{{.*}}ir-printing.mlir":0:0)

// STDOUT-NOT: IR Dump
// STDOUT: module {

func.func @f(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  %1 = test.addi %a, %a : i32
  %2 = test.muli %0, %1 : i32
  return %2 : i32
}

func.func @g(%a: i32) -> i32 {
  return %a : i32
}
