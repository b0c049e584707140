// --split-input-file: each chunk is parsed, transformed and printed on its own; the outputs
// are joined with the marker (mlir-opt's output for the same file is identical). A chunk that
// fails does not stop the others, and the exit code is 1.
// RUN: not xcs-test-opt %s --split-input-file --cse | FileCheck %s
// RUN: not xcs-test-opt %s -split-input-file -cse -output-split-marker='// =====' | FileCheck %s --check-prefix=MARKER
// RUN: not xcs-test-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cse),symbol-dce)' --mlir-print-ir-after=symbol-dce -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMPS

// CHECK:      module {
// CHECK-NEXT:   func.func @one(%arg0: i32) -> i32 {
// CHECK-NEXT:     %0 = test.addi %arg0, %arg0 : i32
// CHECK-NEXT:     return %0 : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: {{^//}} -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func private @two()
// CHECK-NEXT: }

// MARKER: {{^}}}{{$}}
// MARKER-EMPTY:
// MARKER-NEXT: {{^//}} =====
// MARKER-NEXT: module {

// DUMPS: {{^//}} -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// DUMPS-NEXT: module {
// DUMPS-NEXT:   func.func @one(
// DUMPS: {{^//}} -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// DUMPS-NEXT: module {
// DUMPS-NEXT: }
// DUMPS: split-input-file.mlir:[[@LINE+16]]:3: error: custom op 'test.nope' is unknown

func.func @one(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  %1 = test.addi %a, %a : i32
  %2 = test.muli %0, %1 : i32
  return %0 : i32
}

// -----

func.func private @two()

// -----

func.func @three() {
  test.nope
  return
}
