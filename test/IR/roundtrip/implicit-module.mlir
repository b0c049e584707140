// Top-level ops are wrapped in an implicit `builtin.module` unless the file is exactly one
// `builtin.module`. Here: two modules side by side are wrapped in a third.
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs

// CHECK: "builtin.module"() ({
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT: "test.symbol"() <{sym_name = "a"}> : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT: "test.symbol"() <{sym_name = "a"}> : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }) : () -> ()
"builtin.module"() ({
  "test.symbol"() <{sym_name = "a"}> : () -> ()
}) : () -> ()
"builtin.module"() ({
  "test.symbol"() <{sym_name = "a"}> : () -> ()
}) : () -> ()
