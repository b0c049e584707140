// Tensor, vector and memref types: static, dynamic, zero and scalable dimensions, unranked,
// encodings, memory spaces and layouts.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: #[[MAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: "test.pure"() : () -> (tensor<f32>, tensor<4xf32>, tensor<4x?xf32>, tensor<?x?x?xi8>, tensor<0xf32>, tensor<1x0x3xi1>, tensor<*xf32>, tensor<*xi64>)
%0:8 = "test.pure"() : () -> (tensor<f32>, tensor<4xf32>, tensor<4x?xf32>, tensor<?x?x?xi8>, tensor<0xf32>, tensor<1x0x3xi1>, tensor<*xf32>, tensor<*xi64>)
// Encodings are any attribute.
// CHECK-NEXT: "test.pure"() : () -> (tensor<4xf32, "enc">, tensor<2x3xf32, #unknown.enc<1>>, tensor<?xi32, {a = 1 : i64}>)
%1:3 = "test.pure"() : () -> (tensor<4xf32, "enc">, tensor<2x3xf32, #unknown.enc<1>>, tensor<?xi32, {a = 1}>)
// Tensors of non-float elements.
// CHECK-NEXT: "test.pure"() : () -> (tensor<2xindex>, tensor<2xcomplex<f32>>, tensor<3x!unknown.elem>, tensor<2xvector<4xf32>>)
%2:4 = "test.pure"() : () -> (tensor<2xindex>, tensor<2xcomplex<f32>>, tensor<3x!unknown.elem>, tensor<2xvector<4xf32>>)
// CHECK-NEXT: "test.pure"() : () -> (vector<f32>, vector<4xf32>, vector<2x3xi8>, vector<[4]xf32>, vector<2x[8]xi1>, vector<4xindex>)
%3:6 = "test.pure"() : () -> (vector<f32>, vector<4xf32>, vector<2x3xi8>, vector<[4]xf32>, vector<2x[8]xi1>, vector<4xindex>)
// CHECK-NEXT: "test.pure"() : () -> (memref<f32>, memref<4x?xf32>, memref<*xf32>, memref<*xf32, 1>, memref<4xf32, 2>, memref<4x4xf32, #[[MAP]]>, memref<4xf32, strided<[1], offset: ?>>, memref<2x3xf32, strided<[3, 1]>, "gpu">)
%4:8 = "test.pure"() : () -> (memref<f32>, memref<4x?xf32>, memref<*xf32>, memref<*xf32, 1>, memref<4xf32, 2>, memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, memref<4xf32, strided<[1], offset: ?>>, memref<2x3xf32, strided<[3, 1]>, "gpu">)
