// Every op of the tensor dialect in the pretty and the generic form, over the element types
// of the table and static, `?` and rank-0 shapes. The pretty output is a fixed point; the
// generic output prints back identically through mlir-minimal-opt and parses to the same
// pretty output.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s | xcs-opt | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// tensor.constant: the result type is the value's type, for every element type of the table
// (dense lists, splats, rank 0, an empty tensor); floats print in MLIR's form.
// CHECK-LABEL: func.func @constant() -> (tensor<2x2xf32>, tensor<4xi1>, tensor<3xbf16>, tensor<2xf16>, tensor<f64>, tensor<2x3xi8>, tensor<2xi16>, tensor<1xi32>, tensor<0xi64>) {
// CHECK-NEXT: %0 = tensor.constant {value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : tensor<2x2xf32>
// CHECK-NEXT: %1 = tensor.constant {value = dense<[true, false, true, true]> : tensor<4xi1>} : tensor<4xi1>
// CHECK-NEXT: %2 = tensor.constant {value = dense<1.500000e+00> : tensor<3xbf16>} : tensor<3xbf16>
// CHECK-NEXT: %3 = tensor.constant {value = dense<[5.000000e-01, -2.000000e+00]> : tensor<2xf16>} : tensor<2xf16>
// CHECK-NEXT: %4 = tensor.constant {value = dense<3.250000e+00> : tensor<f64>} : tensor<f64>
// CHECK-NEXT: %5 = tensor.constant {value = dense<{{\[\[}}1, -2, 3], [127, -128, 0]]> : tensor<2x3xi8>} : tensor<2x3xi8>
// CHECK-NEXT: %6 = tensor.constant {value = dense<[-32768, 32767]> : tensor<2xi16>} : tensor<2xi16>
// CHECK-NEXT: %7 = tensor.constant {value = dense<7> : tensor<1xi32>} : tensor<1xi32>
// CHECK-NEXT: %8 = tensor.constant {value = dense<> : tensor<0xi64>} : tensor<0xi64>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x2xf32>, tensor<4xi1>, tensor<3xbf16>, tensor<2xf16>, tensor<f64>, tensor<2x3xi8>, tensor<2xi16>, tensor<1xi32>, tensor<0xi64>
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.constant"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
func.func @constant() -> (tensor<2x2xf32>, tensor<4xi1>, tensor<3xbf16>, tensor<2xf16>, tensor<f64>, tensor<2x3xi8>, tensor<2xi16>, tensor<1xi32>, tensor<0xi64>) {
  %0 = tensor.constant {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : tensor<2x2xf32>
  %1 = tensor.constant {value = dense<[true, false, true, true]> : tensor<4xi1>} : tensor<4xi1>
  %2 = tensor.constant {value = dense<1.5> : tensor<3xbf16>} : tensor<3xbf16>
  %3 = tensor.constant {value = dense<[0.5, -2.0]> : tensor<2xf16>} : tensor<2xf16>
  %4 = tensor.constant {value = dense<3.25> : tensor<f64>} : tensor<f64>
  %5 = tensor.constant {value = dense<[[1, -2, 3], [127, -128, 0]]> : tensor<2x3xi8>} : tensor<2x3xi8>
  %6 = tensor.constant {value = dense<[-32768, 32767]> : tensor<2xi16>} : tensor<2xi16>
  %7 = tensor.constant {value = dense<7> : tensor<1xi32>} : tensor<1xi32>
  %8 = tensor.constant {value = dense<> : tensor<0xi64>} : tensor<0xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x2xf32>, tensor<4xi1>, tensor<3xbf16>, tensor<2xf16>, tensor<f64>, tensor<2x3xi8>, tensor<2xi16>, tensor<1xi32>, tensor<0xi64>
}

// The binary ops with numpy broadcasting: the single-type form when every type is the same,
// a function type otherwise; a `?` dim broadcasts against a static one.
// CHECK-LABEL: func.func @binary(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<?x8xf32>, %arg3: tensor<4x1xf32>, %arg4: tensor<1x8xf32>) {
// CHECK-NEXT: %0 = tensor.add %arg0, %arg0 : tensor<4x8xf32>
// CHECK-NEXT: %1 = tensor.sub %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %2 = tensor.mul %arg1, %arg0 : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %3 = tensor.div %arg2, %arg1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// CHECK-NEXT: %4 = tensor.max %arg3, %arg4 : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %5 = tensor.min %arg2, %arg0 : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %6 = tensor.pow %arg0, %arg3 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.add"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.sub"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.mul"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.div"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.max"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.min"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.pow"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<?x8xf32>, %d: tensor<4x1xf32>, %e: tensor<1x8xf32>) {
  %0 = tensor.add %a, %a : tensor<4x8xf32>
  %1 = tensor.sub %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tensor.mul %b, %a : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor.div %c, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %4 = tensor.max %d, %e : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %5 = tensor.min %c, %a : (tensor<?x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = tensor.pow %a, %d : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// The binary ops on the other numeric element types, static, `?` and rank-0 shapes; a
// function type whose types are all equal prints in the single-type form.
// CHECK-LABEL: func.func @binary_types(%arg0: tensor<2xf16>, %arg1: tensor<2xbf16>, %arg2: tensor<?xf64>, %arg3: tensor<3x2xi8>, %arg4: tensor<2xi16>, %arg5: tensor<?x?xi32>, %arg6: tensor<i64>) {
// CHECK-NEXT: %0 = tensor.add %arg0, %arg0 : tensor<2xf16>
// CHECK-NEXT: %1 = tensor.sub %arg1, %arg1 : tensor<2xbf16>
// CHECK-NEXT: %2 = tensor.mul %arg2, %arg2 : tensor<?xf64>
// CHECK-NEXT: %3 = tensor.div %arg3, %arg3 : tensor<3x2xi8>
// CHECK-NEXT: %4 = tensor.max %arg4, %arg4 : tensor<2xi16>
// CHECK-NEXT: %5 = tensor.min %arg5, %arg5 : tensor<?x?xi32>
// CHECK-NEXT: %6 = tensor.pow %arg6, %arg6 : tensor<i64>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @binary_types(%f16: tensor<2xf16>, %bf16: tensor<2xbf16>, %f64: tensor<?xf64>, %i8: tensor<3x2xi8>, %i16: tensor<2xi16>, %i32: tensor<?x?xi32>, %i64: tensor<i64>) {
  %0 = tensor.add %f16, %f16 : tensor<2xf16>
  %1 = tensor.sub %bf16, %bf16 : tensor<2xbf16>
  %2 = tensor.mul %f64, %f64 : tensor<?xf64>
  %3 = tensor.div %i8, %i8 : tensor<3x2xi8>
  %4 = tensor.max %i16, %i16 : tensor<2xi16>
  %5 = tensor.min %i32, %i32 : tensor<?x?xi32>
  %6 = tensor.pow %i64, %i64 : tensor<i64>
  return
}

// The unary ops: float-only ones on f16/bf16/f32/f64, neg/abs/relu on integers too.
// CHECK-LABEL: func.func @unary(%arg0: tensor<4x?xf32>, %arg1: tensor<2xf16>, %arg2: tensor<3x2xbf16>, %arg3: tensor<f64>, %arg4: tensor<5xi32>, %arg5: tensor<?xi8>) {
// CHECK-NEXT: %0 = tensor.neg %arg0 : tensor<4x?xf32>
// CHECK-NEXT: %1 = tensor.exp %arg1 : tensor<2xf16>
// CHECK-NEXT: %2 = tensor.log %arg2 : tensor<3x2xbf16>
// CHECK-NEXT: %3 = tensor.tanh %arg3 : tensor<f64>
// CHECK-NEXT: %4 = tensor.sigmoid %arg0 : tensor<4x?xf32>
// CHECK-NEXT: %5 = tensor.relu %arg0 : tensor<4x?xf32>
// CHECK-NEXT: %6 = tensor.silu %arg2 : tensor<3x2xbf16>
// CHECK-NEXT: %7 = tensor.sqrt %arg1 : tensor<2xf16>
// CHECK-NEXT: %8 = tensor.rsqrt %arg3 : tensor<f64>
// CHECK-NEXT: %9 = tensor.abs %arg0 : tensor<4x?xf32>
// CHECK-NEXT: %10 = tensor.neg %arg4 : tensor<5xi32>
// CHECK-NEXT: %11 = tensor.abs %arg5 : tensor<?xi8>
// CHECK-NEXT: %12 = tensor.relu %arg4 : tensor<5xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.neg"(%{{[a-z0-9]+}}) : (tensor<4x?xf32>) -> tensor<4x?xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.exp"(%{{[a-z0-9]+}}) : (tensor<2xf16>) -> tensor<2xf16>
// GENERIC: %{{[a-z0-9]+}} = "tensor.log"(%{{[a-z0-9]+}}) : (tensor<3x2xbf16>) -> tensor<3x2xbf16>
// GENERIC: %{{[a-z0-9]+}} = "tensor.tanh"(%{{[a-z0-9]+}}) : (tensor<f64>) -> tensor<f64>
// GENERIC: %{{[a-z0-9]+}} = "tensor.sigmoid"(%{{[a-z0-9]+}}) : (tensor<4x?xf32>) -> tensor<4x?xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.relu"(%{{[a-z0-9]+}}) : (tensor<4x?xf32>) -> tensor<4x?xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.silu"(%{{[a-z0-9]+}}) : (tensor<3x2xbf16>) -> tensor<3x2xbf16>
// GENERIC: %{{[a-z0-9]+}} = "tensor.sqrt"(%{{[a-z0-9]+}}) : (tensor<2xf16>) -> tensor<2xf16>
// GENERIC: %{{[a-z0-9]+}} = "tensor.rsqrt"(%{{[a-z0-9]+}}) : (tensor<f64>) -> tensor<f64>
// GENERIC: %{{[a-z0-9]+}} = "tensor.abs"(%{{[a-z0-9]+}}) : (tensor<4x?xf32>) -> tensor<4x?xf32>
func.func @unary(%a: tensor<4x?xf32>, %h: tensor<2xf16>, %b: tensor<3x2xbf16>, %d: tensor<f64>, %i: tensor<5xi32>, %j: tensor<?xi8>) {
  %0 = tensor.neg %a : tensor<4x?xf32>
  %1 = tensor.exp %h : tensor<2xf16>
  %2 = tensor.log %b : tensor<3x2xbf16>
  %3 = tensor.tanh %d : tensor<f64>
  %4 = tensor.sigmoid %a : tensor<4x?xf32>
  %5 = tensor.relu %a : tensor<4x?xf32>
  %6 = tensor.silu %b : tensor<3x2xbf16>
  %7 = tensor.sqrt %h : tensor<2xf16>
  %8 = tensor.rsqrt %d : tensor<f64>
  %9 = tensor.abs %a : tensor<4x?xf32>
  %10 = tensor.neg %i : tensor<5xi32>
  %11 = tensor.abs %j : tensor<?xi8>
  %12 = tensor.relu %i : tensor<5xi32>
  return
}

// gelu with both `approximate` strings.
// CHECK-LABEL: func.func @gelu(%arg0: tensor<4x8xf32>, %arg1: tensor<?xbf16>) {
// CHECK-NEXT: %0 = tensor.gelu %arg0 {approximate = "none"} : tensor<4x8xf32>
// CHECK-NEXT: %1 = tensor.gelu %arg1 {approximate = "tanh"} : tensor<?xbf16>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.gelu"(%{{[a-z0-9]+}}) <{approximate = "none"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @gelu(%a: tensor<4x8xf32>, %b: tensor<?xbf16>) {
  %0 = tensor.gelu %a {approximate = "none"} : tensor<4x8xf32>
  %1 = tensor.gelu %b {approximate = "tanh"} : tensor<?xbf16>
  return
}

// cmp with each predicate (the result is i1, broadcast), select with broadcasting.
// CHECK-LABEL: func.func @cmp_select(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<?xi64>, %arg3: tensor<4x8xi1>, %arg4: tensor<2xi1>) {
// CHECK-NEXT: %0 = tensor.cmp %arg0, %arg0 {predicate = "eq"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT: %1 = tensor.cmp %arg0, %arg1 {predicate = "ne"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT: %2 = tensor.cmp %arg2, %arg2 {predicate = "lt"} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
// CHECK-NEXT: %3 = tensor.cmp %arg2, %arg2 {predicate = "le"} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
// CHECK-NEXT: %4 = tensor.cmp %arg1, %arg0 {predicate = "gt"} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT: %5 = tensor.cmp %arg4, %arg4 {predicate = "ge"} : tensor<2xi1>
// CHECK-NEXT: %6 = tensor.select %arg3, %arg0, %arg1 : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %7 = tensor.select %arg4, %arg4, %arg4 : tensor<2xi1>
// CHECK-NEXT: %8 = tensor.select %2, %arg2, %arg2 : (tensor<?xi1>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.cmp"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{predicate = "eq"}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC: %{{[a-z0-9]+}} = "tensor.select"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
func.func @cmp_select(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %i: tensor<?xi64>, %p: tensor<4x8xi1>, %q: tensor<2xi1>) {
  %0 = tensor.cmp %a, %a {predicate = "eq"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %1 = tensor.cmp %a, %b {predicate = "ne"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %2 = tensor.cmp %i, %i {predicate = "lt"} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
  %3 = tensor.cmp %i, %i {predicate = "le"} : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi1>
  %4 = tensor.cmp %b, %a {predicate = "gt"} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %5 = tensor.cmp %q, %q {predicate = "ge"} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %6 = tensor.select %p, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %7 = tensor.select %q, %q, %q : tensor<2xi1>
  %8 = tensor.select %2, %i, %i : (tensor<?xi1>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return
}

// cast changes the element type (a cast to the same type is valid; a `?` result dim is
// compatible with a static operand dim).
// CHECK-LABEL: func.func @cast(%arg0: tensor<4x8xf32>, %arg1: tensor<?x3xi1>, %arg2: tensor<2xi64>) {
// CHECK-NEXT: %0 = tensor.cast %arg0 : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// CHECK-NEXT: %1 = tensor.cast %arg0 : (tensor<4x8xf32>) -> tensor<4x8xi32>
// CHECK-NEXT: %2 = tensor.cast %arg1 : (tensor<?x3xi1>) -> tensor<?x3xf16>
// CHECK-NEXT: %3 = tensor.cast %arg2 : (tensor<2xi64>) -> tensor<2xi8>
// CHECK-NEXT: %4 = tensor.cast %arg2 : tensor<2xi64>
// CHECK-NEXT: %5 = tensor.cast %arg0 : (tensor<4x8xf32>) -> tensor<?x8xf64>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.cast"(%{{[a-z0-9]+}}) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
func.func @cast(%a: tensor<4x8xf32>, %b: tensor<?x3xi1>, %c: tensor<2xi64>) {
  %0 = tensor.cast %a : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %1 = tensor.cast %a : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %2 = tensor.cast %b : (tensor<?x3xi1>) -> tensor<?x3xf16>
  %3 = tensor.cast %c : (tensor<2xi64>) -> tensor<2xi8>
  %4 = tensor.cast %c : tensor<2xi64>
  %5 = tensor.cast %a : (tensor<4x8xf32>) -> tensor<?x8xf64>
  return
}

// matmul: 2-D, batched with broadcast batch dims, `?` dims (M, K, N and batch), integers.
// CHECK-LABEL: func.func @matmul(%arg0: tensor<4x3xf32>, %arg1: tensor<3x5xf32>, %arg2: tensor<2x4x3xbf16>, %arg3: tensor<3x5xbf16>, %arg4: tensor<?x1x4x3xf16>, %arg5: tensor<6x3x?xf16>, %arg6: tensor<4x?xi32>, %arg7: tensor<?x2xi32>) {
// CHECK-NEXT: %0 = tensor.matmul %arg0, %arg1 : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: %1 = tensor.matmul %arg2, %arg3 : (tensor<2x4x3xbf16>, tensor<3x5xbf16>) -> tensor<2x4x5xbf16>
// CHECK-NEXT: %2 = tensor.matmul %arg4, %arg5 : (tensor<?x1x4x3xf16>, tensor<6x3x?xf16>) -> tensor<?x6x4x?xf16>
// CHECK-NEXT: %3 = tensor.matmul %arg6, %arg7 : (tensor<4x?xi32>, tensor<?x2xi32>) -> tensor<4x2xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.matmul"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
func.func @matmul(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>, %c: tensor<2x4x3xbf16>, %d: tensor<3x5xbf16>, %e: tensor<?x1x4x3xf16>, %f: tensor<6x3x?xf16>, %g: tensor<4x?xi32>, %h: tensor<?x2xi32>) {
  %0 = tensor.matmul %a, %b : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %1 = tensor.matmul %c, %d : (tensor<2x4x3xbf16>, tensor<3x5xbf16>) -> tensor<2x4x5xbf16>
  %2 = tensor.matmul %e, %f : (tensor<?x1x4x3xf16>, tensor<6x3x?xf16>) -> tensor<?x6x4x?xf16>
  %3 = tensor.matmul %g, %h : (tensor<4x?xi32>, tensor<?x2xi32>) -> tensor<4x2xi32>
  return
}

// einsum: explicit and implicit output, one to three operands, a trace, whitespace.
// CHECK-LABEL: func.func @einsum(%arg0: tensor<2x4x3xf32>, %arg1: tensor<2x3x5xf32>, %arg2: tensor<4x3xf64>, %arg3: tensor<3x?xf64>, %arg4: tensor<?xi64>, %arg5: tensor<3x3xf64>) {
// CHECK-NEXT: %0 = tensor.einsum %arg0, %arg1 {equation = "bij,bjk->bik"} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT: %1 = tensor.einsum %arg2, %arg3 {equation = "ij,jk"} : (tensor<4x3xf64>, tensor<3x?xf64>) -> tensor<4x?xf64>
// CHECK-NEXT: %2 = tensor.einsum %arg0 {equation = "bij->jbi"} : (tensor<2x4x3xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT: %3 = tensor.einsum %arg5 {equation = "ii->"} : (tensor<3x3xf64>) -> tensor<f64>
// CHECK-NEXT: %4 = tensor.einsum %arg4, %arg4, %arg4 {equation = "i,i,i->i"} : tensor<?xi64>
// CHECK-NEXT: %5 = tensor.einsum %arg0, %arg1 {equation = " bij , bjk -> bk "} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.einsum"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{equation = "bij,bjk->bik"}> : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
func.func @einsum(%a: tensor<2x4x3xf32>, %b: tensor<2x3x5xf32>, %c: tensor<4x3xf64>, %d: tensor<3x?xf64>, %e: tensor<?xi64>, %q: tensor<3x3xf64>) {
  %0 = tensor.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  %1 = tensor.einsum %c, %d {equation = "ij,jk"} : (tensor<4x3xf64>, tensor<3x?xf64>) -> tensor<4x?xf64>
  %2 = tensor.einsum %a {equation = "bij->jbi"} : (tensor<2x4x3xf32>) -> tensor<3x2x4xf32>
  %3 = tensor.einsum %q {equation = "ii->"} : (tensor<3x3xf64>) -> tensor<f64>
  %4 = tensor.einsum %e, %e, %e {equation = "i,i,i->i"} : tensor<?xi64>
  %5 = tensor.einsum %a, %b {equation = " bij , bjk -> bk "} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x5xf32>
  return
}

// reduce with each kind; several axes in any order, negative axes, keepdims, no axes.
// CHECK-LABEL: func.func @reduce(%arg0: tensor<4x8x16xf32>, %arg1: tensor<?x8xi32>) {
// CHECK-NEXT: %0 = tensor.reduce %arg0 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %1 = tensor.reduce %arg0 {axes = array<i64: 0, 2>, keepdims = true, kind = "max"} : (tensor<4x8x16xf32>) -> tensor<1x8x1xf32>
// CHECK-NEXT: %2 = tensor.reduce %arg0 {axes = array<i64: -1>, keepdims = false, kind = "min"} : (tensor<4x8x16xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %3 = tensor.reduce %arg0 {axes = array<i64: 2, 0, 1>, keepdims = false, kind = "mean"} : (tensor<4x8x16xf32>) -> tensor<f32>
// CHECK-NEXT: %4 = tensor.reduce %arg1 {axes = array<i64: 1>, keepdims = true, kind = "prod"} : (tensor<?x8xi32>) -> tensor<?x1xi32>
// CHECK-NEXT: %5 = tensor.reduce %arg1 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<?x8xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.reduce"(%{{[a-z0-9]+}}) <{axes = array<i64: 1>, keepdims = false, kind = "sum"}> : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
func.func @reduce(%a: tensor<4x8x16xf32>, %b: tensor<?x8xi32>) {
  %0 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
  %1 = tensor.reduce %a {axes = array<i64: 0, 2>, keepdims = true, kind = "max"} : (tensor<4x8x16xf32>) -> tensor<1x8x1xf32>
  %2 = tensor.reduce %a {axes = array<i64: -1>, keepdims = false, kind = "min"} : (tensor<4x8x16xf32>) -> tensor<4x8xf32>
  %3 = tensor.reduce %a {axes = array<i64: 2, 0, 1>, keepdims = false, kind = "mean"} : (tensor<4x8x16xf32>) -> tensor<f32>
  %4 = tensor.reduce %b {axes = array<i64: 1>, keepdims = true, kind = "prod"} : (tensor<?x8xi32>) -> tensor<?x1xi32>
  %5 = tensor.reduce %b {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<?x8xi32>
  return
}

// softmax and layer_norm, with negative axes and `?` dims; epsilon is an f32.
// CHECK-LABEL: func.func @softmax_layer_norm(%arg0: tensor<2x4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<4x8xf32>, %arg3: tensor<?x?xbf16>, %arg4: tensor<?xbf16>) {
// CHECK-NEXT: %0 = tensor.softmax %arg0 {axis = 2 : i64} : tensor<2x4x8xf32>
// CHECK-NEXT: %1 = tensor.softmax %arg0 {axis = -3 : i64} : tensor<2x4x8xf32>
// CHECK-NEXT: %2 = tensor.softmax %arg3 {axis = 0 : i64} : tensor<?x?xbf16>
// CHECK-NEXT: %3 = tensor.layer_norm %arg0, %arg1, %arg1 {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %4 = tensor.layer_norm %arg0, %arg2, %arg2 {axis = -2 : i64, epsilon = 9.99999997E-7 : f32} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %5 = tensor.layer_norm %arg3, %arg4, %arg4 {axis = 1 : i64, epsilon = 5.000000e-01 : f32} : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.softmax"(%{{[a-z0-9]+}}) <{axis = 2 : i64}> : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.layer_norm"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32}> : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
func.func @softmax_layer_norm(%a: tensor<2x4x8xf32>, %g: tensor<8xf32>, %g2: tensor<4x8xf32>, %h: tensor<?x?xbf16>, %hg: tensor<?xbf16>) {
  %0 = tensor.softmax %a {axis = 2 : i64} : tensor<2x4x8xf32>
  %1 = tensor.softmax %a {axis = -3 : i64} : tensor<2x4x8xf32>
  %2 = tensor.softmax %h {axis = 0 : i64} : tensor<?x?xbf16>
  %3 = tensor.layer_norm %a, %g, %g {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %4 = tensor.layer_norm %a, %g2, %g2 {axis = -2 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %5 = tensor.layer_norm %h, %hg, %hg {axis = 1 : i64, epsilon = 0.5 : f32} : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
  return
}

// transpose (rank 0 too), reshape, broadcast_to (to more dims, from `?`, to `?`).
// CHECK-LABEL: func.func @layout(%arg0: tensor<2x3x4xf32>, %arg1: tensor<?x4xi8>, %arg2: tensor<1x4xf16>, %arg3: tensor<i1>) {
// CHECK-NEXT: %0 = tensor.transpose %arg0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %1 = tensor.transpose %arg1 {perm = array<i64: 1, 0>} : (tensor<?x4xi8>) -> tensor<4x?xi8>
// CHECK-NEXT: %2 = tensor.transpose %arg3 {perm = array<i64>} : tensor<i1>
// CHECK-NEXT: %3 = tensor.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %4 = tensor.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT: %5 = tensor.reshape %arg1 : (tensor<?x4xi8>) -> tensor<?x2x2xi8>
// CHECK-NEXT: %6 = tensor.reshape %arg3 : (tensor<i1>) -> tensor<1x1xi1>
// CHECK-NEXT: %7 = tensor.broadcast_to %arg2 : (tensor<1x4xf16>) -> tensor<3x5x4xf16>
// CHECK-NEXT: %8 = tensor.broadcast_to %arg1 : (tensor<?x4xi8>) -> tensor<2x7x4xi8>
// CHECK-NEXT: %9 = tensor.broadcast_to %arg3 : (tensor<i1>) -> tensor<2x?xi1>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.transpose"(%{{[a-z0-9]+}}) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.reshape"(%{{[a-z0-9]+}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.broadcast_to"(%{{[a-z0-9]+}}) : (tensor<1x4xf16>) -> tensor<3x5x4xf16>
func.func @layout(%a: tensor<2x3x4xf32>, %b: tensor<?x4xi8>, %c: tensor<1x4xf16>, %s: tensor<i1>) {
  %0 = tensor.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = tensor.transpose %b {perm = array<i64: 1, 0>} : (tensor<?x4xi8>) -> tensor<4x?xi8>
  %2 = tensor.transpose %s {perm = array<i64>} : tensor<i1>
  %3 = tensor.reshape %a : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %4 = tensor.reshape %a : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %5 = tensor.reshape %b : (tensor<?x4xi8>) -> tensor<?x2x2xi8>
  %6 = tensor.reshape %s : (tensor<i1>) -> tensor<1x1xi1>
  %7 = tensor.broadcast_to %c : (tensor<1x4xf16>) -> tensor<3x5x4xf16>
  %8 = tensor.broadcast_to %b : (tensor<?x4xi8>) -> tensor<2x7x4xi8>
  %9 = tensor.broadcast_to %s : (tensor<i1>) -> tensor<2x?xi1>
  return
}

// slice (identity, strided, empty, of a `?` dim), concat (negative axis, `?`, one
// operand), gather along an axis (i64 and i32 indices).
// CHECK-LABEL: func.func @slice_concat_gather(%arg0: tensor<8x6xf32>, %arg1: tensor<?x6xf32>, %arg2: tensor<2x6xf32>, %arg3: tensor<100x16xbf16>, %arg4: tensor<4x?xi64>, %arg5: tensor<3xi32>) {
// CHECK-NEXT: %0 = tensor.slice %arg0 {limit = array<i64: 8, 6>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<8x6xf32>
// CHECK-NEXT: %1 = tensor.slice %arg0 {limit = array<i64: 7, 6>, start = array<i64: 1, 2>, stride = array<i64: 2, 3>} : (tensor<8x6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %2 = tensor.slice %arg1 {limit = array<i64: 4, 5>, start = array<i64: 2, 5>, stride = array<i64: 1, 1>} : (tensor<?x6xf32>) -> tensor<2x0xf32>
// CHECK-NEXT: %3 = tensor.concat %arg0, %arg2 {axis = 0 : i64} : (tensor<8x6xf32>, tensor<2x6xf32>) -> tensor<10x6xf32>
// CHECK-NEXT: %4 = tensor.concat %arg0, %arg1, %arg2 {axis = -2 : i64} : (tensor<8x6xf32>, tensor<?x6xf32>, tensor<2x6xf32>) -> tensor<?x6xf32>
// CHECK-NEXT: %5 = tensor.concat %arg2, %arg2 {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: %6 = tensor.concat %arg5 {axis = 0 : i64} : tensor<3xi32>
// CHECK-NEXT: %7 = tensor.gather %arg3, %arg4 {axis = 0 : i64} : (tensor<100x16xbf16>, tensor<4x?xi64>) -> tensor<4x?x16xbf16>
// CHECK-NEXT: %8 = tensor.gather %arg3, %arg5 {axis = 1 : i64} : (tensor<100x16xbf16>, tensor<3xi32>) -> tensor<100x3xbf16>
// CHECK-NEXT: %9 = tensor.gather %arg5, %arg5 {axis = -1 : i64} : tensor<3xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.slice"(%{{[a-z0-9]+}}) <{limit = array<i64: 8, 6>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>}> : (tensor<8x6xf32>) -> tensor<8x6xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.concat"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{axis = 0 : i64}> : (tensor<8x6xf32>, tensor<2x6xf32>) -> tensor<10x6xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.gather"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{axis = 0 : i64}> : (tensor<100x16xbf16>, tensor<4x?xi64>) -> tensor<4x?x16xbf16>
func.func @slice_concat_gather(%a: tensor<8x6xf32>, %b: tensor<?x6xf32>, %c: tensor<2x6xf32>, %t: tensor<100x16xbf16>, %i: tensor<4x?xi64>, %j: tensor<3xi32>) {
  %0 = tensor.slice %a {limit = array<i64: 8, 6>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : tensor<8x6xf32>
  %1 = tensor.slice %a {limit = array<i64: 7, 6>, start = array<i64: 1, 2>, stride = array<i64: 2, 3>} : (tensor<8x6xf32>) -> tensor<3x2xf32>
  %2 = tensor.slice %b {limit = array<i64: 4, 5>, start = array<i64: 2, 5>, stride = array<i64: 1, 1>} : (tensor<?x6xf32>) -> tensor<2x0xf32>
  %3 = tensor.concat %a, %c {axis = 0 : i64} : (tensor<8x6xf32>, tensor<2x6xf32>) -> tensor<10x6xf32>
  %4 = tensor.concat %a, %b, %c {axis = -2 : i64} : (tensor<8x6xf32>, tensor<?x6xf32>, tensor<2x6xf32>) -> tensor<?x6xf32>
  %5 = tensor.concat %c, %c {axis = 1 : i64} : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x12xf32>
  %6 = tensor.concat %j {axis = 0 : i64} : tensor<3xi32>
  %7 = tensor.gather %t, %i {axis = 0 : i64} : (tensor<100x16xbf16>, tensor<4x?xi64>) -> tensor<4x?x16xbf16>
  %8 = tensor.gather %t, %j {axis = 1 : i64} : (tensor<100x16xbf16>, tensor<3xi32>) -> tensor<100x3xbf16>
  %9 = tensor.gather %j, %j {axis = -1 : i64} : tensor<3xi32>
  return
}

// fused with several results, one operand, none; tensor.yield of two values, one, none.
// CHECK-LABEL: func.func @fused(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
// CHECK-NEXT: %0:2 = tensor.fused %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%arg2: tensor<4x8xf32>, %arg3: tensor<8xf32>):
// CHECK-NEXT: %2 = tensor.add %arg2, %arg3 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %3 = tensor.relu %2 : tensor<4x8xf32>
// CHECK-NEXT: %4 = tensor.reduce %3 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: tensor.yield %3, %4 : (tensor<4x8xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: %1 = tensor.fused %arg0 : tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%arg2: tensor<4x8xf32>):
// CHECK-NEXT: tensor.yield %arg2 : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tensor.fused : () -> () {
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %0#0, %0#1 : tensor<4x8xf32>, tensor<4xf32>
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}}:2 = "tensor.fused"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) ({
// GENERIC: "tensor.yield"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4x8xf32>, tensor<4xf32>) -> ()
func.func @fused(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %0:2 = tensor.fused %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
    %1 = tensor.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = tensor.relu %1 : tensor<4x8xf32>
    %3 = tensor.reduce %2 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
    tensor.yield %2, %3 : (tensor<4x8xf32>, tensor<4xf32>) -> ()
  }
  %4 = tensor.fused %a : tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    tensor.yield %x : tensor<4x8xf32>
  }
  tensor.fused : () -> () {
    tensor.yield
  }
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<4xf32>
}

// Discardable attributes go with the inherent ones in the pretty form's one dictionary
// (sorted), and into the trailing dictionary of the generic form.
// CHECK-LABEL: func.func @discardable(%arg0: tensor<4x8xf32>) {
// CHECK-NEXT: %0 = tensor.reduce %arg0 {axes = array<i64: 0>, keepdims = false, kind = "max", xcs.layer = 3 : i64} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: %1 = tensor.exp %arg0 {xcs.name = "layer3/mlp"} : tensor<4x8xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.reduce"(%{{[a-z0-9]+}}) <{axes = array<i64: 0>, keepdims = false, kind = "max"}> {xcs.layer = 3 : i64} : (tensor<4x8xf32>) -> tensor<8xf32>
// GENERIC: %{{[a-z0-9]+}} = "tensor.exp"(%{{[a-z0-9]+}}) {xcs.name = "layer3/mlp"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @discardable(%a: tensor<4x8xf32>) {
  %0 = tensor.reduce %a {xcs.layer = 3 : i64, kind = "max", keepdims = false, axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<8xf32>
  %1 = tensor.exp %a {xcs.name = "layer3/mlp"} : tensor<4x8xf32>
  return
}

// The generic form of registered ops parses to the same ops: inherent attributes in `<{...}>`
// or (as older MLIR printed them) in the trailing dictionary, mixed with discardable ones.
// CHECK-LABEL: func.func @generic(%arg0: tensor<2x3xf32>, %arg1: tensor<3xi64>) -> tensor<3x2xf32> {
// CHECK-NEXT: %0 = tensor.transpose %arg0 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %1 = tensor.softmax %0 {axis = 1 : i64} : tensor<3x2xf32>
// CHECK-NEXT: %2 = tensor.gather %1, %arg1 {axis = 0 : i64, xcs.name = "g"} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
// CHECK-NEXT: %3 = tensor.fused %2 : tensor<3x2xf32> {
// CHECK-NEXT: ^bb0(%arg2: tensor<3x2xf32>):
// CHECK-NEXT: %4 = tensor.neg %arg2 : tensor<3x2xf32>
// CHECK-NEXT: tensor.yield %4 : tensor<3x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %3 : tensor<3x2xf32>
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "tensor.gather"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{axis = 0 : i64}> {xcs.name = "g"} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
"func.func"() <{function_type = (tensor<2x3xf32>, tensor<3xi64>) -> tensor<3x2xf32>, sym_name = "generic"}> ({
^bb0(%a: tensor<2x3xf32>, %i: tensor<3xi64>):
  %0 = "tensor.transpose"(%a) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "tensor.softmax"(%0) {axis = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = "tensor.gather"(%1, %i) <{axis = 0 : i64}> {xcs.name = "g"} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %3 = "tensor.fused"(%2) ({
  ^bb0(%x: tensor<3x2xf32>):
    %4 = "tensor.neg"(%x) : (tensor<3x2xf32>) -> tensor<3x2xf32>
    "tensor.yield"(%4) : (tensor<3x2xf32>) -> ()
  }) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  "func.return"(%3) : (tensor<3x2xf32>) -> ()
}) : () -> ()

// CHECK-NEXT: }
