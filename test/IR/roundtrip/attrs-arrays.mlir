// Array attributes `[...]` (any attributes; i64 integers and f64 floats drop their type inside
// arrays) and dense arrays `array<type: ...>`.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "test.pure"() {a = [], b = [1, "x", [2.000000e+00]], c = {{\[\[\[\[}}]]]], d = [1 : i32, true, 1.500000e+00 : f32, @s, unit, i32, {k = 1 : i64}]}
"test.pure"() {a = [], b = [1, "x", [2.0]], c = [[[[]]]], d = [1 : i32, true, 1.5 : f32, @s, unit, i32, {k = 1}]} : () -> ()
// CHECK-NEXT: "test.pure"() {a = array<i64>, b = array<i64: 1, -2, 3>, c = array<i32: 0>, d = array<i1: true, false>, e = array<f32: 1.000000e+00, 2.500000e+00>, f = array<f64: -5.000000e-01>, g = array<i8: 127, -128>, h = array<i16: 1>, i = array<f32>}
"test.pure"() {a = array<i64>, b = array<i64: 1, -2, 3>, c = array<i32: 0>, d = array<i1: true, false>, e = array<f32: 1.0, 2.5>, f = array<f64: -0.5>, g = array<i8: 127, -128>, h = array<i16: 1>, i = array<f32>} : () -> ()
// Hex float elements in dense arrays.
// CHECK-NEXT: "test.pure"() {a = array<f32: 0x7FC00000, 1.000000e+00>}
"test.pure"() {a = array<f32: 0x7FC00000, 0x3F800000>} : () -> ()
