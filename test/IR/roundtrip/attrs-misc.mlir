// Unit, symbol references, type attributes, dictionaries, distinct attributes, affine maps and
// sets, strided layouts, location attributes, and attributes of unregistered dialects.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// Affine maps and sets, distinct attributes and locations get aliases.
// CHECK-DAG: #[[D:distinct]] = distinct[0]<42 : i32>
// CHECK-DAG: #[[D1:distinct1]] = distinct[1]<"x">
// CHECK-DAG: #[[D2:distinct2]] = distinct[2]<"x">
// CHECK-DAG: #[[LOC:loc[0-9]*]] = loc("f.py":1:2)
// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2, d0 floordiv 3, d1 ceildiv 4, d0 mod 5, -d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<() -> ()>
// CHECK-DAG: #[[SET:set[0-9]*]] = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>

// CHECK: "test.pure"() {a, b, e = {}, f = {a, "quoted key" = 2 : i64, x = 1 : i64}, g = @sym, h = @a::@b::@c, j = @q::@r, k = i32, l = tensor<4xf32>, m = () -> (), n = !unknown.t, o = #unknown.attr, p = #unknown<"opaque">, q = #unknown.p<1, [2], "s">, x = complex<f32>}
"test.pure"() {a = unit, b, e = {}, f = {x = 1, "quoted key" = 2, a}, g = @sym, h = @a::@b::@c, j = @"q"::@r, k = i32, l = tensor<4xf32>, m = () -> (), n = !unknown.t, o = #unknown.attr, p = #unknown<"opaque">, q = #unknown.p<1, [2], "s">, x = complex<f32>} : () -> ()
// CHECK-NEXT: "test.pure"() {r = #[[MAP]], s = #[[MAP1]], t = #[[SET]], u = #[[LOC]], v = #[[D]], w = distinct[3]<>, y = strided<[4, 1], offset: ?>}
"test.pure"() {r = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2, d0 floordiv 3, d1 ceildiv 4, d0 mod 5, -d1)>, s = affine_map<() -> ()>, t = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>, u = loc("f.py":1:2), v = distinct[0]<42 : i32>, w = distinct[1]<unit>, y = strided<[4, 1], offset: ?>} : () -> ()
// Distinct ids are renumbered (aliases first); the same id is the same attribute.
// CHECK-NEXT: "test.pure"() {a = #[[D1]], b = #[[D1]], c = #[[D2]]}
"test.pure"() {a = distinct[7]<"x">, b = distinct[7]<"x">, c = distinct[3]<"x">} : () -> ()
