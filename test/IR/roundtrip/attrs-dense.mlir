// Dense elements attributes: splats, nested lists, booleans, complex and string elements, hex
// blobs (printed back as element lists), empty tensors, vectors.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK-LABEL: "test.pure"() {
// CHECK-SAME: a = dense<1.000000e+00> : tensor<4xf32>
// CHECK-SAME: b = dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK-SAME: c = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>
// CHECK-SAME: d = dense<true> : tensor<3xi1>
// CHECK-SAME: e = dense<[true, false]> : tensor<2xi1>
// CHECK-SAME: f = dense<(1.000000e+00,2.000000e+00)> : tensor<2xcomplex<f32>>
// CHECK-SAME: g = dense<[(1,2), (3,4)]> : tensor<2xcomplex<i32>>
// CHECK-SAME: h = dense<"hello"> : tensor<2x!unknown.str>
// CHECK-SAME: i = dense<["a", "bc"]> : tensor<2x!unknown.str>
// CHECK-SAME: j = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-SAME: k = dense<> : tensor<0xf32>
// CHECK-SAME: l = dense<> : tensor<0xi32>
// CHECK-SAME: m = dense<[1.500000e+00, -2.000000e+00]> : vector<2xf64>
// CHECK-SAME: n = dense<-1> : tensor<2x3xi8>
// CHECK-SAME: o = dense<-1> : tensor<2xi8>
// CHECK-SAME: s = dense<[-34, -83, -66, -17]> : tensor<4xi8>
// CHECK-SAME: t = dense<0x7FC00000> : tensor<2xf32>
// CHECK-SAME: x = dense<1> : tensor<i32>
"test.pure"() {
  a = dense<1.0> : tensor<4xf32>,
  b = dense<[1, 2, 3, 4]> : tensor<4xi32>,
  c = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>,
  d = dense<true> : tensor<3xi1>,
  e = dense<[true, false]> : tensor<2xi1>,
  f = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>,
  g = dense<[(1, 2), (3, 4)]> : tensor<2xcomplex<i32>>,
  h = dense<"hello"> : tensor<2x!unknown.str>,
  i = dense<["a", "bc"]> : tensor<2x!unknown.str>,
  j = dense<"0x0000803F00000040"> : tensor<2xf32>,
  k = dense<> : tensor<0xf32>,
  l = dense<[]> : tensor<0xi32>,
  m = dense<[1.5, -2.0]> : vector<2xf64>,
  n = dense<-1> : tensor<2x3xi8>,
  o = dense<0xFF> : tensor<2xi8>,
  p = dense<[[0.0, 1.0e-10]]> : tensor<1x2xbf16>,
  q = dense<5> : tensor<i32>,
  r = dense<[1, 2]> : tensor<2xindex>,
  s = dense<"0xDEADBEEF"> : tensor<4xi8>,
  t = dense<0x7FC00000> : tensor<2xf32>,
  u = dense<[[[1]], [[2]]]> : tensor<2x1x1xui8>,
  v = dense<255> : tensor<2xui8>,
  w = dense<1.0> : tensor<2x2xf16>,
  x = dense<"0x01000000"> : tensor<i32>,
  y = dense<[[true, false], [false, true]]> : tensor<2x2xi1>,
  z = dense<[0.1, 1.0e10]> : tensor<2xf8E4M3FN>
} : () -> ()
// A splat hex blob and dense data in a memref-free vector of i1.
// CHECK: "test.pure"() {a = dense<1> : tensor<4xi16>, b = dense<[true, false, true, true]> : vector<4xi1>}
"test.pure"() {a = dense<"0x0100"> : tensor<4xi16>, b = dense<[true, false, true, true]> : vector<4xi1>} : () -> ()
// Resource handles are kept (the blob itself lives in file metadata, see metadata.mlir).
// CHECK: "test.pure"() {a = dense_resource<blob1> : tensor<2xi32>}
"test.pure"() {a = dense_resource<blob1> : tensor<2xi32>} : () -> ()
