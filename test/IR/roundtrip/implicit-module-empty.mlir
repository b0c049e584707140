// An empty file (only comments and aliases) is an empty module: one empty block, whose label
// the generic form prints (a block without ops has no other way to show it exists).
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs

// CHECK: "builtin.module"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }) : () -> ()
!unused = i32
#unused = 1
