// Sparse elements attributes (`sparse<indices, values> : type`): index lists of rank-many
// coordinates (or one coordinate for rank 1), splat indices and values, hex values, complex and
// string elements, vectors, and the empty `sparse<>`. Equal indices or values print as splats,
// as MLIR stores them.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "foo.sparse"() {a = sparse<{{\[\[}}0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>, b = sparse<0, 1> : tensor<3x4xi32>, c = sparse<[1, 2], [1, 5]> : tensor<3xi32>, d = sparse<> : tensor<3x4xi32>
// CHECK-SAME: e = sparse<{{\[\[}}0, 0], [1, 2]], 7> : tensor<3x4xi32>, f = sparse<{{\[\[}}0, 0], [1, 2]], [1, 2]> : tensor<3x4xi32>
// CHECK-SAME: g = sparse<{{\[\[}}0, 0], [1, 2]], [1.500000e+00, 5.000000e+00]> : vector<3x4xf16>, h = sparse<0, (1,2)> : tensor<3x4xcomplex<i32>>
// CHECK-SAME: i = sparse<[0, 2], ["a", "b"]> : tensor<3x!foo.s>, j = sparse<> : tensor<3x!foo.s>}
"foo.sparse"() {
  a = sparse<[[0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>,
  b = sparse<[[0, 0]], [1]> : tensor<3x4xi32>,
  c = sparse<[1, 2], [1, 5]> : tensor<3xi32>,
  d = sparse<> : tensor<3x4xi32>,
  e = sparse<[[0, 0], [1, 2]], 7> : tensor<3x4xi32>,
  f = sparse<[[0, 0], [1, 2]], "0x0100000002000000"> : tensor<3x4xi32>,
  g = sparse<[[0, 0], [1, 2]], [1.5, 5.0]> : vector<3x4xf16>,
  h = sparse<[[0, 0]], [(1, 2)]> : tensor<3x4xcomplex<i32>>,
  i = sparse<[0, 2], ["a", "b"]> : tensor<3x!foo.s>,
  j = sparse<> : tensor<3x!foo.s>
} : () -> ()
