// Complex, tuple and function types (nested), and types of unregistered dialects.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "test.pure"() : () -> (complex<f32>, complex<i32>, complex<bf16>)
%0:3 = "test.pure"() : () -> (complex<f32>, complex<i32>, complex<bf16>)
// CHECK-NEXT: "test.pure"() : () -> (tuple<>, tuple<i32>, tuple<i32, f32>, tuple<tuple<i1>, tensor<2xf32>>)
%1:4 = "test.pure"() : () -> (tuple<>, tuple<i32>, tuple<i32, f32>, tuple<tuple<i1>, tensor<2xf32>>)
// A single result type prints without parentheses, unless it is a function type.
// CHECK-NEXT: "test.pure"() : () -> (() -> (), (i32) -> i32, (i32, f32) -> (i1, i8), ((i32) -> i32) -> (), () -> (() -> ()))
%2:5 = "test.pure"() : () -> (() -> (), (i32) -> (i32), (i32, f32) -> (i1, i8), ((i32) -> i32) -> (), () -> (() -> ()))
// Unregistered dialect types: pretty (`!dialect.name<...>`) and opaque (`!dialect<"...">`),
// their bodies kept as written.
// CHECK-NEXT: "test.pure"() : () -> (!unknown.bar, !unknown<"opaque stuff">, !unknown.baz<a, [b], {c}, (d)>, !unknown.x<a -> b>, !unknown.s<"a\"b>">, !unknown.z<[<>]>, !unknown.w<1.5 : f32>)
%3:7 = "test.pure"() : () -> (!unknown.bar, !unknown<"opaque stuff">, !unknown.baz<a, [b], {c}, (d)>, !unknown.x<a -> b>, !unknown.s<"a\"b>">, !unknown.z<[<>]>, !unknown.w<1.5 : f32>)
// Registered dialect types.
// CHECK-NEXT: "test.pure"() : () -> (!xcs.str, !xcs.any)
%4:2 = "test.pure"() : () -> (!xcs.str, !xcs.any)
