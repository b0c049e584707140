// A marker with one dash too few is a "near miss": warned about (as mlir-opt does) and not
// split. Custom input markers with --split-input-file=MARKER.
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file %s 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file %s 2> %t.mlir.err > /dev/null
// RUN: diff %t.err %t.mlir.err
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file=%custom_marker %s | FileCheck %s --check-prefix=CUSTOM
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file=%custom_marker %s | diff - <(xcs-opt --allow-unregistered-dialect --split-input-file=%custom_marker %s)

// CHECK: module {
// CHECK-NEXT: "near.one"() : () -> ()
// CHECK-NEXT: "near.two"() : () -> ()
// CHECK-NEXT: }
// WARN: near-miss.mlir:[[@LINE+6]]:7: warning: near miss with file split marker
// WARN-NEXT: {{^}}// {{----$}}
// CUSTOM: "near.one"
// CUSTOM-NEXT: "near.two"
// CUSTOM-NEXT: }
"near.one"() : () -> ()
// ----
"near.two"() : () -> ()
// CUSTOM: // -----
// CUSTOM-NEXT: module {
// CUSTOM-NEXT: "near.three"
// ====
"near.three"() : () -> ()
