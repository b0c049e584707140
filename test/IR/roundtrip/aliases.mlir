// Type, attribute and location aliases. Type and attribute aliases are defined before use
// (and may refer to earlier ones); location aliases may be used before their definition.
// The printer resolves the input's aliases and makes its own, as MLIR does.
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs
// RUN: xcs-test-opt --allow-unregistered-dialect --mlir-print-debuginfo %s | FileCheck %s --check-prefix=DBG

!t4 = tensor<4xf32>
!pair = tuple<!t4, i32>
!opaque = !unknown.type<"x">
#one = 1 : i32
#arr = [#one, 2]
#dict = {k = #arr}
#m = affine_map<(d0) -> (d0)>
#unk = #unknown.attr<1>
#loc_first = loc("first.py":1:1)
!int8 = !foo.int<unsigned, 8>

// CHECK: #[[MAP:map]] = affine_map<(d0) -> (d0)>
// CHECK-NOT: #one
// CHECK: "test.pure"() {a = [1 : i32, 2], b = {k = [1 : i32, 2]}, c = #[[MAP]], d = #unknown.attr<1>, e = tuple<tensor<4xf32>, i32>} : () -> (tensor<4xf32>, tuple<tensor<4xf32>, i32>, !unknown.type<"x">)
%0:3 = "test.pure"() {a = #arr, b = #dict, c = #m, d = #unk, e = !pair} : () -> (!t4, !pair, !opaque) loc(#loc_first)
// CHECK-NEXT: "test.pure"(%{{.*}}#0) : (tensor<4xf32>) -> ()
"test.pure"(%0#0) : (!t4) -> () loc(#loc_later)
"test.pure"() : () -> () loc(#loc_fused)
// The type of an opaque dialect attribute is resolved too, so the output needs no alias.
// CHECK: "foo.typed"() {a = #foo.attr : !foo.int<unsigned, 8>, b = #foo<"x"> : tensor<2x!foo.int<unsigned, 8>>} : () -> ()
"foo.typed"() {a = #foo.attr : !int8, b = #foo<"x"> : tensor<2x!int8>} : () -> ()

#loc_later = loc("later.py":10:20)
#loc_fused = loc(fused[#loc_first, #loc_later])

// DBG: test.pure {{.*}} loc(#[[FIRST:loc[0-9]*]])
// DBG-NEXT: test.pure {{.*}} loc(#[[LATER:loc[0-9]*]])
// DBG-NEXT: test.pure loc(#[[FUSED:loc[0-9]*]])
// DBG-DAG: #[[FIRST]] = loc("first.py":1:1)
// DBG-DAG: #[[LATER]] = loc("later.py":10:20)
// DBG-DAG: #[[FUSED]] = loc(fused[#[[FIRST]], #[[LATER]]])
