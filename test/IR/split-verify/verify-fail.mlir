// --verify-diagnostics failures: an expected diagnostic that is not produced, an unexpected
// one, a diagnostic of another severity, a malformed regex, and expectations that can never
// match (warnings, remarks: nothing here emits them). Exit code 1, and the same messages as
// mlir-minimal-opt (@unknown: see verify-unknown.mlir).
// RUN: not xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: not mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s 2> %t.mlir.err
// RUN: diff %t.err %t.mlir.err
// With =only-expected, unexpected diagnostics are ignored; missing ones still fail.
// RUN: not xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics=only-expected %s 2>&1 | FileCheck %s --check-prefix=ONLY
// RUN: not mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics=only-expected %s 2>&1 | diff - <(not xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics=only-expected %s 2>&1)

// ONLY-NOT: unexpected error
// The parse error is not expected.
"a.b"() : () -> !nope

// -----

// Same text, other severity.
"a.b"() : () -> !nope
// expected-warning@-1 {{undefined symbol alias id 'nope'}}

// -----

// A valid chunk with expectations that nothing produces.
// expected-error@+3 {{never produced}}
// expected-remark@+2 {{no remark either}}
// expected-note@+1 {{nor a note}}
"a.ok"() : () -> ()

// -----

// expected-error-re@+1 {{bad regex {{(a}}}}
"a.ok2"() : () -> ()

// Missing expectations are reported after every chunk ran, in file order.
// CHECK: verify-fail.mlir:[[@LINE-4]]:4: error: invalid regex: parentheses not balanced
// CHECK: verify-fail.mlir:[[@LINE-23]]:22: error: unexpected error: undefined symbol alias id 'nope'
// CHECK: verify-fail.mlir:[[@LINE-18]]:4: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK: verify-fail.mlir:[[@LINE-19]]:4: error: expected warning "undefined symbol alias id 'nope'" was not produced
// CHECK: verify-fail.mlir:[[@LINE-15]]:4: error: expected error "never produced" was not produced
// CHECK-NEXT: // {{expected}}-error@+3 {{[{][{]}}never produced{{[}][}]}}
// CHECK-NEXT:    ^~~~~~~~~~~~~~
// CHECK: verify-fail.mlir:[[@LINE-17]]:4: error: expected remark "no remark either" was not produced
// CHECK: verify-fail.mlir:[[@LINE-17]]:4: error: expected note "nor a note" was not produced
// ONLY: expected error "never produced" was not produced
