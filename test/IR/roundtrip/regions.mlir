// Nested regions, several regions on one op, empty regions `({})`, regions with an empty
// entry block, isolated-from-above and graph regions of registered ops.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK-LABEL: "unknown.multi"() ({
// CHECK-NEXT: "unknown.a"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%{{.*}}: i32):
// CHECK-NEXT: "unknown.empty"() ({
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }) {attr = 1 : i64} : () -> ()
"unknown.multi"() ({
  "unknown.a"() : () -> ()
}, {
}, {
^bb0(%x: i32):
  "unknown.empty"() ({}) : () -> ()
}) {attr = 1} : () -> ()

// Values of enclosing regions are visible in nested ones.
// CHECK-LABEL: "test.region"() ({
// CHECK: %[[V:.*]] = "test.constant"
// CHECK: "test.region"() ({
// CHECK-NEXT: "test.region"() ({
// CHECK-NEXT: "test.pure"(%[[V]]) : (i32) -> ()
"test.region"() ({
  %v = "test.constant"() <{value = 7 : i32}> : () -> i32
  "test.region"() ({
    "test.region"() ({
      "test.pure"(%v) : (i32) -> ()
      "test.yield"() : () -> ()
    }) : () -> ()
    "test.yield"() : () -> ()
  }) : () -> ()
  "test.yield"() : () -> ()
}) : () -> ()

// An isolated op: numbering of values inside it continues (generic form numbers module-wide).
// A graph region: uses before definitions.
// CHECK-LABEL: "test.isolated"() ({
// CHECK-NEXT: "test.graph"() ({
// CHECK-NEXT: %[[X:.*]] = "test.addi"(%[[Y:.*]], %[[Y]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[Y]] = "test.constant"() <{value = 1 : i32}> : () -> i32
"test.isolated"() ({
  "test.graph"() ({
    %1 = "test.addi"(%0, %0) : (i32, i32) -> i32
    %0 = "test.constant"() <{value = 1 : i32}> : () -> i32
  }) : () -> ()
}) : () -> ()

// Deep nesting.
// CHECK-COUNT-8: "unknown.n"() ({
"unknown.n"() ({ "unknown.n"() ({ "unknown.n"() ({ "unknown.n"() ({
"unknown.n"() ({ "unknown.n"() ({ "unknown.n"() ({ "unknown.n"() ({
  "unknown.leaf"() : () -> ()
}) : () -> () }) : () -> () }) : () -> () }) : () -> ()
}) : () -> () }) : () -> () }) : () -> () }) : () -> ()
