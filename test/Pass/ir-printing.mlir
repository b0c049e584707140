// IR dumps around passes: mlir-opt's headers; function passes print the function.
// REQUIRES: passes
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-before=cse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(cse))' --mlir-timing --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// CHECK: // -----// IR Dump Before CSE (cse) //----- //
// CHECK-NEXT: func.func @f(
// CHECK: // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func @f(
// CHECK: // -----// IR Dump Before CSE (cse) //----- //
// CHECK-NEXT: func.func @g(
// CHECK: // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func @g(
// CHECK: // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// CHECK-NEXT: module {

// @f changes under cse, @g does not, symbol-dce removes nothing
// CHANGE: // -----// IR Dump After CSE (cse) //----- //
// CHANGE-NEXT: func.func @f(
// CHANGE-NOT: IR Dump

// TIMING: ... Execution time report ...
// TIMING: Total Execution Time:
// TIMING: ----Wall Time----  ----Name----
// TIMING: 'func.func' Pipeline
// TIMING-NEXT: {{^ +[0-9.]+ \( *[0-9.]+%\)     CSE$}}
// TIMING: Total

func.func @f(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  %1 = test.addi %a, %a : i32
  %2 = test.muli %0, %1 : i32
  return %2 : i32
}

func.func @g(%a: i32) -> i32 {
  return %a : i32
}
