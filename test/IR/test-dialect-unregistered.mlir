// The `test` dialect and the `test-*` passes belong to the tests (xcs-test-opt, test/lib), not
// to the default tools: for xcs-opt a `test.*` op is an op of an unregistered dialect, like any
// user's own `test.*` op; with --allow-unregistered-dialect it is kept as an opaque op (unknown
// effects: cse leaves it alone), where xcs-test-opt knows it (pure: cse merges it).
// RUN: xcs-opt --split-input-file --verify-diagnostics %s
// RUN: xcs-opt %S/Inputs/test-addi-generic.mlir --allow-unregistered-dialect --cse | FileCheck %s --check-prefix=OPAQUE
// RUN: xcs-test-opt %S/Inputs/test-addi-generic.mlir --cse | FileCheck %s --check-prefix=REGISTERED
// RUN: not xcs-opt %S/Inputs/test-addi-generic.mlir -p 'builtin.module(func.func(test-break-ir))' 2>&1 | FileCheck %s --check-prefix=NOPASS
// RUN: not xcs-opt %S/Inputs/test-addi-generic.mlir --test-pass-failure 2>&1 | FileCheck %s --check-prefix=NOFLAG

// OPAQUE:      %0 = "test.addi"(%arg0, %arg0) : (i32, i32) -> i32
// OPAQUE-NEXT: %1 = "test.addi"(%arg0, %arg0) : (i32, i32) -> i32
// OPAQUE-NEXT: %2 = "test.addi"(%0, %1) : (i32, i32) -> i32

// REGISTERED:      %0 = test.addi %arg0, %arg0 : i32
// REGISTERED-NEXT: %1 = test.addi %0, %0 : i32

// NOPASS: error: 'test-break-ir' does not refer to a registered pass or pass pipeline
// NOFLAG: error: unexpected argument '--test-pass-failure' found

func.func @generic(%a: i32) -> i32 {
  // expected-error@+1 {{operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used}}
  %0 = "test.addi"(%a, %a) : (i32, i32) -> i32
  return %0 : i32
}

// -----

func.func @custom(%a: i32) -> i32 {
  // expected-error@+2 {{Dialect `test' not found for custom op 'test.addi'}}
  // expected-note@+1 {{Available dialects: builtin, cf, chlo, cost, func, sdy, shard, stablehlo, tensor, xcs ;}}
  %0 = test.addi %a, %a : i32
  return %0 : i32
}
