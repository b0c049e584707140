// Errors in one chunk do not stop the others; diagnostics name lines and columns of the
// whole file; the exit code is 1 if any chunk failed. Same text as mlir-minimal-opt's.
// RUN: not xcs-opt --allow-unregistered-dialect --split-input-file %s > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: not mlir-minimal-opt --allow-unregistered-dialect --split-input-file %s > %t.mlir.out 2> %t.mlir.err
// RUN: diff %t.err %t.mlir.err
// RUN: diff %t.out %t.mlir.out

// CHECK: split-errors.mlir:[[@LINE+1]]:7: error: use of undeclared SSA value name
"a.b"(%undefined) : (i32) -> ()

// -----

// OUT: "a.ok"() : () -> ()
"a.ok"() : () -> ()

// -----

// CHECK: split-errors.mlir:[[@LINE+1]]:26: error: expected ')'
"a.c"() : () -> (i32, i32 i32)

// A chunk starts right after the marker: text on the marker's line belongs to the next chunk,
// and its columns are those of the whole line.
// CHECK: split-errors.mlir:[[@LINE+1]]:17: error: use of undeclared SSA value name
// -----  "a.d"(%x) : (i32) -> ()
