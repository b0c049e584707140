// Function pipelines run in parallel over functions; the output, the IR dumps and the
// diagnostics are the same with one thread (--mlir-disable-threading), in function order.
// RUN: xcs-test-opt %S/Inputs/many-functions.mlir -p 'builtin.module(func.func(cse,canonicalize),inline,symbol-dce)' --mlir-print-ir-after-all > %t.par 2>&1
// RUN: xcs-test-opt %S/Inputs/many-functions.mlir -p 'builtin.module(func.func(cse,canonicalize),inline,symbol-dce)' --mlir-print-ir-after-all --mlir-disable-threading > %t.seq 2>&1
// RUN: diff %t.par %t.seq
// RUN: xcs-test-opt %S/Inputs/many-functions.mlir -p 'builtin.module(func.func(cse,canonicalize),inline,symbol-dce)' --mlir-print-ir-after-all > %t.par2 2>&1
// RUN: diff %t.par %t.par2
// RUN: FileCheck %s --input-file=%t.par
// Diagnostics of failing function passes come in function order.
// RUN: not xcs-test-opt %S/Inputs/many-functions.mlir -p 'builtin.module(func.func(test-pass-failure))' > %t.err 2>&1
// RUN: not xcs-test-opt %S/Inputs/many-functions.mlir -p 'builtin.module(func.func(test-pass-failure))' --mlir-disable-threading > %t.err.seq 2>&1
// RUN: diff %t.err %t.err.seq
// RUN: FileCheck %s --check-prefix=ERR --input-file=%t.err

// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func private @helper0(
// CHECK:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHECK-NEXT: func.func private @helper0(
// CHECK:      // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: func.func @f0(
// CHECK:      func.func @f119(
// CHECK:      // -----// IR Dump After Inliner (inline) //----- //
// CHECK:      // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// CHECK-NEXT: module {
// CHECK-NOT:  @helper
// CHECK:       func.func @f119(
// CHECK-NEXT:    %[[C:.*]] = test.constant {value = 119 : i32} : i32
// CHECK-NEXT:    %[[S:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT:    %[[R:.*]] = test.addi %[[S]], %[[C]] : i32
// CHECK-NEXT:    cf.cond_br %arg1, ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    %[[E:.*]] = test.effect %[[S]] : i32
// CHECK-NEXT:    return %[[E]] : i32
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    return %[[R]] : i32

// ERR:      many-functions.mlir:2:1: error: 'func.func' op test-pass-failure: failing as asked
// ERR:      many-functions.mlir:7:1: error: 'func.func' op test-pass-failure: failing as asked
// ERR:      many-functions.mlir:{{[0-9]+}}:1: error
// ERR-COUNT-237: error: 'func.func' op test-pass-failure
