// --split-input-file: chunks are parsed and printed on their own, outputs are joined by the
// marker (or --output-split-marker), diagnostics name lines of the whole file. Compared with
// mlir-minimal-opt's output byte for byte.
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file %s | FileCheck %s
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file %s -o %t.xcs
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file %s | diff - %t.xcs
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --output-split-marker=OUT-MARKER %s | FileCheck %s --check-prefix=MARK
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --output-split-marker=OUT-MARKER %s | diff - <(xcs-opt --allow-unregistered-dialect --split-input-file --output-split-marker=OUT-MARKER %s)
// Without splitting, the duplicate symbol-less ops are one module.
// RUN: xcs-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=WHOLE

// CHECK: "unknown.first"() : () -> ()
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: "unknown.second"() : () -> ()
// CHECK: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: "unknown.third"() : () -> ()
// MARK: "unknown.first"
// MARK: OUT-MARKER
// MARK-NEXT: module {
// MARK-NEXT: "unknown.second"
// WHOLE: module {
// WHOLE-NEXT: "unknown.first"
// WHOLE-NEXT: "unknown.second"
// WHOLE-NEXT: "unknown.third"
// WHOLE-NEXT: }
"unknown.first"() : () -> ()

// -----

"unknown.second"() : () -> ()

// -----
"unknown.third"() : () -> ()
