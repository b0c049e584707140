// --verify-each (on by default) verifies after every pass: test-break-ir erases each
// function's return, which is reported with the pass that did it; exit code 1.
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' 2>&1 | FileCheck %s
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' --verify-each 2>&1 | FileCheck %s
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' --verify-each=true 2>&1 | FileCheck %s
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' >/dev/null 2>&1; test $? -eq 1
// A failed pass stops the pipeline: cse does not run, nothing is printed.
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir),cse)' --mlir-print-ir-before=cse 2>&1 | FileCheck %s --check-prefix=STOP
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' 2>/dev/null | count 0
// Without verification the broken IR goes through and is printed.
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' --verify-each=false 2>&1 | FileCheck %s --check-prefix=NOVERIFY
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(func.func(test-break-ir))' --verify-each=maybe 2>&1 | FileCheck %s --check-prefix=BADVALUE
// From the module too (the module pass's verifier checks every function).
// RUN: not xcs-test-opt %s --pass-pipeline='builtin.module(test-break-ir)' 2>&1 | FileCheck %s --check-prefix=MODULE

// CHECK:      verify-each.mlir:[[@LINE+14]]:8: error: block with no terminator, has %1 = "test.muli"(%0, %0) : (i32, i32) -> i32
// CHECK:      verify-each.mlir:[[@LINE+11]]:1: note: the IR is invalid after running pass 'TestBreakIR' (test-break-ir)
// CHECK:      verify-each.mlir:[[@LINE+16]]:1: error: empty block: expect at least a terminator
// STOP-NOT:   IR Dump
// STOP:       error: block with no terminator
// STOP-NOT:   IR Dump
// NOVERIFY:      func.func @f(%arg0: i32) -> i32 {
// NOVERIFY-NEXT:   %0 = test.addi %arg0, %arg0 : i32
// NOVERIFY-NEXT:   %1 = test.muli %0, %0 : i32
// NOVERIFY-NEXT: }
// BADVALUE: error: invalid value 'maybe' for '--verify-each[=<verify-each>]'
// MODULE: error: empty block: expect at least a terminator
func.func @f(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  %1 = test.muli %0, %0 : i32
  return %1 : i32
}

func.func @g() {
  return
}
