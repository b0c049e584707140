// How errors are rendered without --verify-diagnostics: `file:line:col: error: message`, the
// source line and a caret under the column, exit code 1; standard output has only the split
// markers.
// Verifier errors add the failing op as a note, in the generic form, as mlir-opt does.
// RUN: not xcs-test-opt --split-input-file %s 2> %t.err > %t.out
// RUN: FileCheck %s --strict-whitespace --match-full-lines < %t.err
// RUN: FileCheck %s --check-prefix=OUT --match-full-lines < %t.out
// OUT-COUNT-3: // {{-----}}
// OUT-NOT: {{.}}
// Each chunk fails on its own; the exit code is 1 if any does.
// RUN: not xcs-test-opt %s 2>&1 | FileCheck %s --check-prefix=FIRST
// The exit code is exactly 1.
// RUN: sh -c "xcs-test-opt --split-input-file %s 2>/dev/null >/dev/null; test \$? -eq 1"
// The same text as mlir-opt's, and the same standard output (the split markers).
// RUN: not mlir-opt --allow-unregistered-dialect --split-input-file %s 2> %t.mlir.err > %t.mlir.out
// RUN: diff %t.err %t.mlir.err
// RUN: diff %t.out %t.mlir.out

// CHECK:{{.*}}rendered.mlir:[[@LINE+4]]:32: error: expected non-function type
// CHECK-NEXT:"test.pure"() : () -> tensor<4x>
// CHECK-NEXT:                               ^
// FIRST:{{.*}}rendered.mlir:[[@LINE+1]]:32: error: expected non-function type
"test.pure"() : () -> tensor<4x>

// -----

func.func @f(%a: i32) -> i64 {
  return %a : i32
}
// CHECK:{{.*}}rendered.mlir:[[@LINE-2]]:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @f
// CHECK-NEXT:  return %a : i32
// CHECK-NEXT:  ^
// CHECK-NEXT:{{.*}}rendered.mlir:[[@LINE-5]]:3: note: see current operation: "func.return"(%arg0) : (i32) -> ()

// -----

// An "expected ..." error is placed after the previous token.
"test.pure"() : () -> (i32
// CHECK:{{.*}}rendered.mlir:[[@LINE-1]]:27: error: expected ')'
// CHECK-NEXT:"test.pure"() : () -> (i32
// CHECK-NEXT:                          ^

// -----

// Tabs in the source line are expanded so that the caret lines up.
	"test.pure"() : () -> !nope
"test.pure"() : () -> ()
// CHECK:{{.*}}rendered.mlir:[[@LINE-2]]:29: error: undefined symbol alias id 'nope'
// CHECK-NEXT:        "test.pure"() : () -> !nope
// CHECK-NEXT:                                   ^
