// Affine maps, integer sets and strided layouts are parsed and printed as MLIR prints them:
// identifiers renamed d0.../s0..., spacing normalised, expressions simplified on construction
// (constants folded and moved right, `c1 * e + c2 * e` merged, subtraction printed back).
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK-DAG: #map = affine_map<(d0) -> (d0)>
// CHECK-DAG: #map1 = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2, d1 * 2, d0 - s0, d0 - 2, -d1, d0 * 2, 7, d0, d0, 0)>
// CHECK-DAG: #map2 = affine_map<(d0, d1) -> ((d0 + d1) * 2, d0 + d1 + 1, d0 + d1 + 1, d0 floordiv 2 + 1, (d0 + 1) floordiv 2, (d0 mod 3) * 2, -(d0 + d1), d0 - (d1 - 1))>
// CHECK-DAG: #map3 = affine_map<(d0)[s0, s1] -> (d0 * s0, d0 * s0, d0 * 4 + s1 + s0, d0 ceildiv 4, -d0 + 2, -2, d0)>
// CHECK-DAG: #map4 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #map5 = affine_map<() -> (0)>
// CHECK-DAG: #map6 = affine_map<(d0) -> ()>
// CHECK-DAG: #map7 = affine_map<(d0) -> (d0 mod 4, d0 * 2, 0, (d0 floordiv 2) floordiv 4, d0 - d0 floordiv 4)>
// CHECK-DAG: #map8 = affine_map<(d0, d1) -> (d0 * 4 + d1)>
// CHECK-DAG: #set = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0, -d0 + 10 >= 0)>
// CHECK-DAG: #set1 = affine_set<(d0, d1) : (d0 + d1 - 2 >= 0)>
// CHECK-DAG: #set2 = affine_set<() : (0 == 0)>
// CHECK-DAG: #set3 = affine_set<(d0) : (d0 - 3 >= 0, -d0 + 5 >= 0)>
// CHECK: "test.pure"() {a0 = #map, a1 = #map1, a2 = #map2, a3 = #map3, a4 = #map4, a5 = #map5, a6 = #map6, a7 = #map7, m = memref<4x4xf32, #map8>, s0 = #set, s1 = #set1, s2 = #set2, s3 = #set3, st = strided<[4, 1], offset: ?>, st2 = strided<[?, 1]>, st3 = strided<[]>, st4 = strided<[-1], offset: -3>} : () -> ()
"test.pure"() {
 a0 = affine_map<(d0)->(d0)>,
 a1 = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2, 2 * d1, d0 - s0, d0 - 2, -d1, d0 + d0, 3 + 4, d0 * 1, d0 + 0, d0 * 0)>,
 a2 = affine_map<(d0, d1) -> ((d0 + d1) * 2, d0 + (d1 + 1), (d0 + d1) + 1, d0 floordiv 2 + 1, (d0 + 1) floordiv 2, d0 mod 3 * 2, -(d0 + d1), d0 - (d1 - 1))>,
 a3 = affine_map<(d0)[s0, s1] -> (s0 * d0, d0 * s0, s1 + d0 * 4 + s0, d0 ceildiv 4, 2 - d0, -2, (d0))>,
 a4 = affine_map<(i, j) -> (j, i)>,
 a5 = affine_map<() -> (0)>,
 a6 = affine_map<(d0) -> ()>,
 a7 = affine_map<(x) -> (x - (x floordiv 4) * 4, (x * 4) floordiv 2, (x * 8) mod 4, x floordiv 2 floordiv 4, x - x floordiv 4)>,
 s0 = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0, -d0 + 10 >= 0)>,
 s1 = affine_set<(d0, d1) : (d0 + d1 - 2 >= 0)>,
 s2 = affine_set<() : (0 == 0)>,
 s3 = affine_set<(d0) : (d0 >= 3, d0 <= 5)>,
 m = memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 4 + d1)>>,
 st = strided<[4,1], offset:?>,
 st2 = strided<[?, 1]>,
 st3 = strided<[], offset: 0>,
 st4 = strided<[-1], offset: -3>
} : () -> ()
