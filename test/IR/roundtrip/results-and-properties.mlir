// Multiple results (`%r:N`, uses `%r#i`), several result groups on one op, and properties
// `<{...}>` next to discardable attributes (registered ops: see ../generic-registered.mlir).
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: %[[R:.*]]:3 = "unknown.three"() : () -> (i1, i32, f32)
%r:3 = "unknown.three"() : () -> (i1, i32, f32)
// CHECK-NEXT: "unknown.use"(%[[R]]#2, %[[R]]#0, %[[R]]#1) : (f32, i1, i32) -> ()
"unknown.use"(%r#2, %r#0, %r#1) : (f32, i1, i32) -> ()
// Result groups are printed as one group.
// CHECK-NEXT: %[[G:.*]]:4 = "unknown.groups"() : () -> (i1, i8, i16, i32)
%a, %b:2, %c = "unknown.groups"() : () -> (i1, i8, i16, i32)
// CHECK-NEXT: "unknown.use"(%[[G]]#0, %[[G]]#1, %[[G]]#2, %[[G]]#3) : (i1, i8, i16, i32) -> ()
"unknown.use"(%a, %b#0, %b#1, %c) : (i1, i8, i16, i32) -> ()
// A single result may be written `:1`.
// CHECK-NEXT: %{{.*}} = "unknown.one"() : () -> i1
%d:1 = "unknown.one"() : () -> i1

// Properties and attributes of unregistered ops are kept apart.
// CHECK-NEXT: "unknown.props"() <{p = 1 : i32, q = "s"}> {d = 2 : i64} : () -> ()
"unknown.props"() <{p = 1 : i32, q = "s"}> {d = 2} : () -> ()
// CHECK-NEXT: "unknown.props"() <{}> : () -> ()
"unknown.props"() <{}> : () -> ()
// CHECK-NEXT: "unknown.props"() <{nested = {a = [1, 2], b = {c}}}> {same = 1 : i64} : () -> ()
"unknown.props"() <{nested = {a = [1, 2], b = {c}}}> {same = 1} : () -> ()

