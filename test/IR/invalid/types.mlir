// Type syntax errors, worded and placed as MLIR does (the same file passes mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{expected non-function type}}
"foo.a"() : () -> tensor<-1xf32>

// -----

// expected-error@+1 {{invalid tensor element type}}
"foo.a"() : () -> tensor<2xtensor<2xf32>>

// -----

// expected-error@+1 {{invalid tensor element type}}
"foo.a"() : () -> tensor<*xnone>

// -----

// Reported at the token after the type.
// expected-error@+1 {{cannot apply encoding to unranked tensor}}
"foo.a"() {a = tensor<*xf32, "enc">} : () -> ()

// -----

// expected-error@+1 {{invalid memref element type}}
"foo.a"() : () -> memref<2x!foo.x>

// -----

// expected-error@+1 {{expected memory space to be last in memref type}}
"foo.a"() : () -> memref<2xf32, 1, affine_map<(d0) -> (d0)>>

// -----

// expected-error@+1 {{multiple memory spaces specified in memref type}}
"foo.a"() : () -> memref<2xf32, 1, 2>

// -----

// expected-error@+1 {{cannot have affine map for unranked memref type}}
"foo.a"() : () -> memref<*xf32, affine_map<(d0) -> (d0)>>

// -----

// expected-error@+1 {{failed to verify 'elementType': VectorElementTypeInterface instance}}
"foo.a"() : () -> vector<2xcomplex<f32>>

// -----

// expected-error@+1 {{vector types must have positive constant sizes but got 2, 0}}
"foo.a"() : () -> vector<2x[0]xf32>

// -----

// expected-error@+1 {{expected non-function type}}
"foo.a"() : () -> vector<?xf32>

// -----

// expected-error@+1 {{invalid element type for complex}}
"foo.a"() : () -> complex<index>

// -----

// expected-error@+1 {{integer bitwidth is limited to 16777215 bits}}
"foo.a"() : () -> i16777216

// -----

// expected-error@+1 {{expected '>' in tuple type}}
"foo.a"() : () -> tuple<i32 f32>

// -----

// expected-error@+1 {{expected '->' in function type}}
"foo.a"() : () -> tensor<2x(i32)>

// -----

// expected-error@+1 {{expected function type}}
"foo.a"() : i32

// -----

// expected-error@+1 {{expected non-function type}}
"foo.a"() : () -> (i32, )

// -----

// expected-error@+1 {{unbalanced '<' character in pretty dialect name}}
"foo.a"() : () -> !foo.bar<x

// -----

// expected-error@+1 {{expected '>' in tensor type}}
"foo.a"() : () -> tensor<4xf32

// -----

// expected-error@+1 {{expected 'x' in dimension list}}
"foo.a"() : () -> tensor<4f32>

// -----

// expected-error@+1 {{undefined symbol alias id 'nope'}}
"foo.a"() : () -> !nope
