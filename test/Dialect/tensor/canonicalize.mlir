// Folding and canonicalization of the tensor dialect: constant folding through the reference
// interpreter's kernels (with its size limits and never past a run-time error), the algebraic
// identities (integers; the exact float ones), no-op structural ops, transpose/reshape chains,
// select on a constant condition, and uniquing/hoisting of the dense constants that folds make.
// tools/tests/tensor_canonicalize.rs runs every function here in the interpreter before and
// after canonicalize on random inputs and checks the results are equal.
// RUN: xcs-opt %s --canonicalize | FileCheck %s
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s
// RUN: xcs-opt %s --canonicalize | xcs-opt --canonicalize | FileCheck %s

// Constant operands fold, elementwise with the interpreter's integer rules (truncating
// division); a negative integer exponent is a run-time error, so that `pow` stays.
// CHECK-LABEL: func.func @const_binary
// CHECK-DAG: %[[A:.*]] = tensor.constant {value = dense<[1, -2, 3, 7]> : tensor<4xi32>}
// CHECK-DAG: %[[B:.*]] = tensor.constant {value = dense<[2, 2, -2, 2]> : tensor<4xi32>}
// CHECK-DAG: %[[ADD:.*]] = tensor.constant {value = dense<[3, 0, 1, 9]> : tensor<4xi32>}
// CHECK-DAG: %[[SUB:.*]] = tensor.constant {value = dense<[-1, -4, 5, 5]> : tensor<4xi32>}
// CHECK-DAG: %[[MUL:.*]] = tensor.constant {value = dense<[2, -4, -6, 14]> : tensor<4xi32>}
// CHECK-DAG: %[[DIV:.*]] = tensor.constant {value = dense<[0, -1, -1, 3]> : tensor<4xi32>}
// CHECK-DAG: %[[MAX:.*]] = tensor.constant {value = dense<[2, 2, 3, 7]> : tensor<4xi32>}
// CHECK-DAG: %[[MIN:.*]] = tensor.constant {value = dense<[1, -2, -2, 2]> : tensor<4xi32>}
// CHECK: %[[POW:.*]] = tensor.pow %[[B]], %[[A]] : tensor<4xi32>
// CHECK-NEXT: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]], %[[POW]]
func.func @const_binary() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %a = tensor.constant {value = dense<[1, -2, 3, 7]> : tensor<4xi32>} : tensor<4xi32>
  %b = tensor.constant {value = dense<[2, 2, -2, 2]> : tensor<4xi32>} : tensor<4xi32>
  %0 = tensor.add %a, %b : tensor<4xi32>
  %1 = tensor.sub %a, %b : tensor<4xi32>
  %2 = tensor.mul %a, %b : tensor<4xi32>
  %3 = tensor.div %a, %b : tensor<4xi32>
  %4 = tensor.max %a, %b : tensor<4xi32>
  %5 = tensor.min %a, %b : tensor<4xi32>
  %6 = tensor.pow %b, %a : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// Unary ops, cmp, select and cast of constants (integers wrap: abs(-128) in i32 is 128, the
// cast to i8 keeps the low bits).
// CHECK-LABEL: func.func @const_unary
// CHECK-DAG: %[[NEG:.*]] = tensor.constant {value = dense<[-1, 2, -3, 128]> : tensor<4xi32>}
// CHECK-DAG: %[[ABS:.*]] = tensor.constant {value = dense<[1, 2, 3, 128]> : tensor<4xi32>}
// CHECK-DAG: %[[RELU:.*]] = tensor.constant {value = dense<[1, 0, 3, 0]> : tensor<4xi32>}
// CHECK-DAG: %[[SQRT:.*]] = tensor.constant {value = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>}
// CHECK-DAG: %[[EXP:.*]] = tensor.constant {value = dense<[1.000000e+00, 2.71828175, 54.5981483]> : tensor<3xf32>}
// CHECK-DAG: %[[CMP:.*]] = tensor.constant {value = dense<[true, true, false, true]> : tensor<4xi1>}
// CHECK-DAG: %[[SEL:.*]] = tensor.constant {value = dense<[1, 2, 3, 2]> : tensor<4xi32>}
// CHECK-DAG: %[[F:.*]] = tensor.constant {value = dense<[1.000000e+00, -2.000000e+00, 3.000000e+00, -1.280000e+02]> : tensor<4xf32>}
// CHECK-DAG: %[[I8:.*]] = tensor.constant {value = dense<[1, -2, 3, -128]> : tensor<4xi8>}
// CHECK-NOT: tensor.{{[a-z_]+}} %
// CHECK: return %[[NEG]], %[[ABS]], %[[RELU]], %[[SQRT]], %[[EXP]], %[[CMP]], %[[SEL]], %[[F]], %[[I8]]
func.func @const_unary() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<3xf32>, tensor<3xf32>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<4xi8>) {
  %a = tensor.constant {value = dense<[1, -2, 3, -128]> : tensor<4xi32>} : tensor<4xi32>
  %b = tensor.constant {value = dense<[2, 2, -2, 2]> : tensor<4xi32>} : tensor<4xi32>
  %f = tensor.constant {value = dense<[0.0, 1.0, 4.0]> : tensor<3xf32>} : tensor<3xf32>
  %c = tensor.constant {value = dense<[true, false, true, false]> : tensor<4xi1>} : tensor<4xi1>
  %0 = tensor.neg %a : tensor<4xi32>
  %1 = tensor.abs %a : tensor<4xi32>
  %2 = tensor.relu %a : tensor<4xi32>
  %3 = tensor.sqrt %f : tensor<3xf32>
  %4 = tensor.exp %f : tensor<3xf32>
  %5 = tensor.cmp %a, %b {predicate = "lt"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %6 = tensor.select %c, %a, %b : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %7 = tensor.cast %a : (tensor<4xi32>) -> tensor<4xf32>
  %8 = tensor.cast %a : (tensor<4xi32>) -> tensor<4xi8>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<3xf32>, tensor<3xf32>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<4xi8>
}

// Structural ops and contractions of constants; the equal matmul and einsum results become
// one constant.
// CHECK-LABEL: func.func @const_structural
// CHECK-DAG: %[[T:.*]] = tensor.constant {value = dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>}
// CHECK-DAG: %[[R:.*]] = tensor.constant {value = dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>}
// CHECK-DAG: %[[BC:.*]] = tensor.constant {value = dense<{{\[}}{{\[}}[1, 2, 3], [4, 5, 6]], {{\[}}[1, 2, 3], [4, 5, 6]]]> : tensor<2x2x3xi32>}
// CHECK-DAG: %[[SL:.*]] = tensor.constant {value = dense<{{\[}}[2, 3], [5, 6]]> : tensor<2x2xi32>}
// CHECK-DAG: %[[CC:.*]] = tensor.constant {value = dense<{{\[}}[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]]> : tensor<4x3xi32>}
// CHECK-DAG: %[[G:.*]] = tensor.constant {value = dense<{{\[}}[4, 5, 6], [4, 5, 6]]> : tensor<2x3xi32>}
// CHECK-DAG: %[[RED:.*]] = tensor.constant {value = dense<[6, 15]> : tensor<2xi32>}
// CHECK-DAG: %[[MM:.*]] = tensor.constant {value = dense<{{\[}}[14, 32], [32, 77]]> : tensor<2x2xi32>}
// CHECK-NOT: tensor.{{[a-z_]+}} %
// CHECK: return %[[T]], %[[R]], %[[BC]], %[[SL]], %[[CC]], %[[G]], %[[RED]], %[[MM]], %[[MM]]
func.func @const_structural() -> (tensor<3x2xi32>, tensor<6xi32>, tensor<2x2x3xi32>, tensor<2x2xi32>, tensor<4x3xi32>, tensor<2x3xi32>, tensor<2xi32>, tensor<2x2xi32>, tensor<2x2xi32>) {
  %m = tensor.constant {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : tensor<2x3xi32>
  %ix = tensor.constant {value = dense<[1, 1]> : tensor<2xi64>} : tensor<2xi64>
  %0 = tensor.transpose %m {perm = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %1 = tensor.reshape %m : (tensor<2x3xi32>) -> tensor<6xi32>
  %2 = tensor.broadcast_to %m : (tensor<2x3xi32>) -> tensor<2x2x3xi32>
  %3 = tensor.slice %m {limit = array<i64: 2, 3>, start = array<i64: 0, 1>, stride = array<i64: 1, 1>} : (tensor<2x3xi32>) -> tensor<2x2xi32>
  %4 = tensor.concat %m, %m {axis = 0 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
  %5 = tensor.gather %m, %ix {axis = 0 : i64} : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<2x3xi32>
  %6 = tensor.reduce %m {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<2x3xi32>) -> tensor<2xi32>
  %7 = tensor.matmul %m, %0 : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  %8 = tensor.einsum %m, %m {equation = "ij,kj->ik"} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x2xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3x2xi32>, tensor<6xi32>, tensor<2x2x3xi32>, tensor<2x2xi32>, tensor<4x3xi32>, tensor<2x3xi32>, tensor<2xi32>, tensor<2x2xi32>, tensor<2x2xi32>
}

// Splat operands of elementwise and shape-only ops fold to splats of any size (computed on
// one element), past the size limit of other folds.
// CHECK-LABEL: func.func @splat_any_size
// CHECK-DAG: %[[M:.*]] = tensor.constant {value = dense<12> : tensor<1000x1000xi32>}
// CHECK-DAG: %[[F:.*]] = tensor.constant {value = dense<1.200000e+01> : tensor<1000x1000xf32>}
// CHECK-DAG: %[[R:.*]] = tensor.constant {value = dense<12> : tensor<1000000xi32>}
// CHECK-NOT: tensor.{{[a-z_]+}} %
// CHECK: return %[[M]], %[[F]], %[[R]]
func.func @splat_any_size() -> (tensor<1000x1000xi32>, tensor<1000x1000xf32>, tensor<1000000xi32>) {
  %a = tensor.constant {value = dense<3> : tensor<1000x1000xi32>} : tensor<1000x1000xi32>
  %b = tensor.constant {value = dense<4> : tensor<1000xi32>} : tensor<1000xi32>
  %0 = tensor.mul %a, %b : (tensor<1000x1000xi32>, tensor<1000xi32>) -> tensor<1000x1000xi32>
  %1 = tensor.cast %0 : (tensor<1000x1000xi32>) -> tensor<1000x1000xf32>
  %2 = tensor.reshape %0 : (tensor<1000x1000xi32>) -> tensor<1000000xi32>
  return %0, %1, %2 : tensor<1000x1000xi32>, tensor<1000x1000xf32>, tensor<1000000xi32>
}

// Size limits: a non-splat result of more than 4096 elements (the concat) and an operand of
// more than 65536 elements (the reduce) are not folded; the matmul is within all limits. The
// slice of the unfolded concat stays too.
// CHECK-LABEL: func.func @size_limits
// CHECK-DAG: %[[MM:.*]] = tensor.constant {value = dense<5000> : tensor<1x1xi32>}
// CHECK: %[[CC:.*]] = tensor.concat
// CHECK-NEXT: %[[RED:.*]] = tensor.reduce
// CHECK-NEXT: %[[SL:.*]] = tensor.slice %[[CC]]
// CHECK-NEXT: return %[[CC]], %[[RED]], %[[SL]], %[[MM]]
func.func @size_limits() -> (tensor<8192xi32>, tensor<i32>, tensor<4096xi32>, tensor<1x1xi32>) {
  %a = tensor.constant {value = dense<1> : tensor<4096xi32>} : tensor<4096xi32>
  %b = tensor.constant {value = dense<2> : tensor<4096xi32>} : tensor<4096xi32>
  %big = tensor.constant {value = dense<1> : tensor<70000xi32>} : tensor<70000xi32>
  %0 = tensor.concat %a, %b {axis = 0 : i64} : (tensor<4096xi32>, tensor<4096xi32>) -> tensor<8192xi32>
  %1 = tensor.reduce %big {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<70000xi32>) -> tensor<i32>
  %2 = tensor.slice %0 {limit = array<i64: 6144>, start = array<i64: 2048>, stride = array<i64: 1>} : (tensor<8192xi32>) -> tensor<4096xi32>
  %l = tensor.constant {value = dense<1> : tensor<1x5000xi32>} : tensor<1x5000xi32>
  %r = tensor.constant {value = dense<1> : tensor<5000x1xi32>} : tensor<5000x1xi32>
  %3 = tensor.matmul %l, %r : (tensor<1x5000xi32>, tensor<5000x1xi32>) -> tensor<1x1xi32>
  return %0, %1, %2, %3 : tensor<8192xi32>, tensor<i32>, tensor<4096xi32>, tensor<1x1xi32>
}

// More than 2^22 units of work (256^4 multiply-adds) is not folded.
// CHECK-LABEL: func.func @work_limit
// CHECK: tensor.einsum
func.func @work_limit() -> tensor<i32> {
  %s = tensor.constant {value = dense<1> : tensor<256x256xi32>} : tensor<256x256xi32>
  %0 = tensor.einsum %s, %s {equation = "ij,kl->"} : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// Evaluations that fail are left for run time: integer division by zero (also of a non-constant
// by a constant zero), a negative integer exponent, an out-of-range gather index, max of an
// empty axis. The reshape before the gather folds.
// CHECK-LABEL: func.func @runtime_errors
// CHECK-DAG: %[[M:.*]] = tensor.constant {value = dense<{{\[}}[6], [7]]> : tensor<2x1xi32>}
// CHECK-DAG: %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<2xi32>}
// CHECK: tensor.div %{{.*}}, %{{.*}} : tensor<2xi32>
// CHECK-NEXT: tensor.div %arg0, %[[Z]] : tensor<2xi32>
// CHECK-NEXT: tensor.pow
// CHECK-NEXT: tensor.gather %[[M]]
// CHECK-NEXT: tensor.reduce
// CHECK-NEXT: return
func.func @runtime_errors(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x1xi32>, tensor<i32>) {
  %a = tensor.constant {value = dense<[6, 7]> : tensor<2xi32>} : tensor<2xi32>
  %b = tensor.constant {value = dense<[2, 0]> : tensor<2xi32>} : tensor<2xi32>
  %z = tensor.constant {value = dense<0> : tensor<2xi32>} : tensor<2xi32>
  %n = tensor.constant {value = dense<-1> : tensor<2xi32>} : tensor<2xi32>
  %ix = tensor.constant {value = dense<[0, 5]> : tensor<2xi32>} : tensor<2xi32>
  %e = tensor.constant {value = dense<0> : tensor<0xi32>} : tensor<0xi32>
  %0 = tensor.div %a, %b : tensor<2xi32>
  %1 = tensor.div %x, %z : tensor<2xi32>
  %2 = tensor.pow %a, %n : tensor<2xi32>
  %m = tensor.reshape %a : (tensor<2xi32>) -> tensor<2x1xi32>
  %3 = tensor.gather %m, %ix {axis = 0 : i64} : (tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x1xi32>
  %4 = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "max"} : (tensor<0xi32>) -> tensor<i32>
  return %0, %1, %2, %3, %4 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x1xi32>, tensor<i32>
}

// x + 0 and 0 + x are x when the result has x's type: a zero of shape [1] does not change the
// shape of x (nor of a `?` dim), a zero of shape [4] added to tensor<?xi32> gives tensor<4xi32>.
// CHECK-LABEL: func.func @add_zero
// CHECK: %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<4xi32>}
// CHECK-NEXT: %[[R:.*]] = tensor.add %arg1, %[[Z]] : (tensor<?xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT: return %arg0, %arg0, %arg1, %[[R]]
func.func @add_zero(%x: tensor<4xi32>, %d: tensor<?xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<?xi32>, tensor<4xi32>) {
  %z = tensor.constant {value = dense<0> : tensor<4xi32>} : tensor<4xi32>
  %z1 = tensor.constant {value = dense<0> : tensor<1xi32>} : tensor<1xi32>
  %0 = tensor.add %x, %z : tensor<4xi32>
  %1 = tensor.add %z1, %x : (tensor<1xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tensor.add %d, %z1 : (tensor<?xi32>, tensor<1xi32>) -> tensor<?xi32>
  %3 = tensor.add %d, %z : (tensor<?xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<?xi32>, tensor<4xi32>
}

// Floats: x + -0.0 is x for every x; x + 0.0 is not (-0.0 + 0.0 = 0.0) and stays.
// CHECK-LABEL: func.func @add_zero_float
// CHECK: %[[Z:.*]] = tensor.constant {value = dense<0.000000e+00> : tensor<4xf32>}
// CHECK-NEXT: %[[R:.*]] = tensor.add %arg0, %[[Z]] : tensor<4xf32>
// CHECK-NEXT: return %arg0, %[[R]]
func.func @add_zero_float(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %nz = tensor.constant {value = dense<-0.0> : tensor<4xf32>} : tensor<4xf32>
  %pz = tensor.constant {value = dense<0.0> : tensor<4xf32>} : tensor<4xf32>
  %0 = tensor.add %nz, %x : tensor<4xf32>
  %1 = tensor.add %x, %pz : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// x - 0 is x (integer 0 of a broadcast shape; float +0.0); 0 - x and x - (-0.0) stay.
// CHECK-LABEL: func.func @sub_zero
// CHECK-DAG: %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<3xi64>}
// CHECK-DAG: %[[NZ:.*]] = tensor.constant {value = dense<-0.000000e+00> : tensor<3xf16>}
// CHECK: %[[A:.*]] = tensor.sub %[[Z]], %arg0 : (tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT: %[[B:.*]] = tensor.sub %arg1, %[[NZ]] : tensor<3xf16>
// CHECK-NEXT: return %arg0, %[[A]], %arg1, %[[B]]
func.func @sub_zero(%x: tensor<2x3xi64>, %f: tensor<3xf16>) -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<3xf16>, tensor<3xf16>) {
  %z = tensor.constant {value = dense<0> : tensor<3xi64>} : tensor<3xi64>
  %fz = tensor.constant {value = dense<0.0> : tensor<3xf16>} : tensor<3xf16>
  %fnz = tensor.constant {value = dense<-0.0> : tensor<3xf16>} : tensor<3xf16>
  %0 = tensor.sub %x, %z : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %1 = tensor.sub %z, %x : (tensor<3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %2 = tensor.sub %f, %fz : tensor<3xf16>
  %3 = tensor.sub %f, %fnz : tensor<3xf16>
  return %0, %1, %2, %3 : tensor<2x3xi64>, tensor<2x3xi64>, tensor<3xf16>, tensor<3xf16>
}

// x * 1 and 1 * x are x (floats too: x * 1.0 is exact), unless the one broadcasts x.
// CHECK-LABEL: func.func @mul_one
// CHECK: %[[ONE:.*]] = tensor.constant {value = dense<1> : tensor<4xi32>}
// CHECK-NEXT: %[[B:.*]] = tensor.mul %arg1, %[[ONE]] : (tensor<1xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT: return %arg0, %arg0, %[[B]], %arg2
func.func @mul_one(%x: tensor<4xi32>, %s: tensor<1xi32>, %f: tensor<4xbf16>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xbf16>) {
  %one = tensor.constant {value = dense<1> : tensor<4xi32>} : tensor<4xi32>
  %fone = tensor.constant {value = dense<1.0> : tensor<4xbf16>} : tensor<4xbf16>
  %0 = tensor.mul %x, %one : tensor<4xi32>
  %1 = tensor.mul %one, %x : tensor<4xi32>
  %2 = tensor.mul %s, %one : (tensor<1xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tensor.mul %fone, %f : tensor<4xbf16>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xbf16>
}

// Integer x * 0 and 0 * x are the zero (a new zero of the result type when the zero
// broadcasts; not with a `?` result dim). Float x * 0.0 is not 0.0 (NaN, inf, -0.0): both
// float multiplications stay, with the constant moved to the right.
// CHECK-LABEL: func.func @mul_zero
// CHECK-DAG: %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<4xi16>}
// CHECK-DAG: %[[FZ:.*]] = tensor.constant {value = dense<0.000000e+00> : tensor<4xf32>}
// CHECK-DAG: %[[Z2:.*]] = tensor.constant {value = dense<0> : tensor<2x4xi16>}
// CHECK: %[[D:.*]] = tensor.mul %arg2, %[[Z]] : (tensor<?x4xi16>, tensor<4xi16>) -> tensor<?x4xi16>
// CHECK-NEXT: %[[F1:.*]] = tensor.mul %arg3, %[[FZ]] : tensor<4xf32>
// CHECK-NEXT: %[[F2:.*]] = tensor.mul %arg3, %[[FZ]] : tensor<4xf32>
// CHECK-NEXT: return %[[Z]], %[[Z]], %[[Z2]], %[[D]], %[[F1]], %[[F2]]
func.func @mul_zero(%x: tensor<4xi16>, %y: tensor<2x4xi16>, %d: tensor<?x4xi16>, %f: tensor<4xf32>) -> (tensor<4xi16>, tensor<4xi16>, tensor<2x4xi16>, tensor<?x4xi16>, tensor<4xf32>, tensor<4xf32>) {
  %z = tensor.constant {value = dense<0> : tensor<4xi16>} : tensor<4xi16>
  %fz = tensor.constant {value = dense<0.0> : tensor<4xf32>} : tensor<4xf32>
  %0 = tensor.mul %x, %z : tensor<4xi16>
  %1 = tensor.mul %z, %x : tensor<4xi16>
  %2 = tensor.mul %y, %z : (tensor<2x4xi16>, tensor<4xi16>) -> tensor<2x4xi16>
  %3 = tensor.mul %d, %z : (tensor<?x4xi16>, tensor<4xi16>) -> tensor<?x4xi16>
  %4 = tensor.mul %f, %fz : tensor<4xf32>
  %5 = tensor.mul %fz, %f : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi16>, tensor<4xi16>, tensor<2x4xi16>, tensor<?x4xi16>, tensor<4xf32>, tensor<4xf32>
}

// x / 1 is x (integers and floats); x / 0 stays (a run-time error for integers).
// CHECK-LABEL: func.func @div_one
// CHECK: %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<4xi32>}
// CHECK-NEXT: %[[D:.*]] = tensor.div %arg0, %[[Z]] : tensor<4xi32>
// CHECK-NEXT: return %arg0, %[[D]], %arg1
func.func @div_one(%x: tensor<4xi32>, %f: tensor<4xf64>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf64>) {
  %one = tensor.constant {value = dense<1> : tensor<4xi32>} : tensor<4xi32>
  %z = tensor.constant {value = dense<0> : tensor<4xi32>} : tensor<4xi32>
  %fone = tensor.constant {value = dense<1.0> : tensor<4xf64>} : tensor<4xf64>
  %0 = tensor.div %x, %one : tensor<4xi32>
  %1 = tensor.div %x, %z : tensor<4xi32>
  %2 = tensor.div %f, %fone : tensor<4xf64>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xf64>
}

// neg is an involution, relu idempotent.
// CHECK-LABEL: func.func @neg_neg_relu_relu
// CHECK-NEXT: %[[R:.*]] = tensor.relu %arg0 : tensor<4xi32>
// CHECK-NEXT: return %arg0, %[[R]]
func.func @neg_neg_relu_relu(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = tensor.neg %x : tensor<4xi32>
  %1 = tensor.neg %0 : tensor<4xi32>
  %2 = tensor.relu %x : tensor<4xi32>
  %3 = tensor.relu %2 : tensor<4xi32>
  return %1, %3 : tensor<4xi32>, tensor<4xi32>
}

// transpose(transpose(x)) is x when the permutations compose to the identity (also with a `?`
// dim), one transpose with the composed permutation otherwise; the identity permutation is x.
// CHECK-LABEL: func.func @transpose
// CHECK-NEXT: %[[T:.*]] = tensor.transpose %arg0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.transpose %arg1 {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
// CHECK-NEXT: return %arg0, %[[T]], %arg0, %arg1, %[[D]]
func.func @transpose(%x: tensor<2x3x4xf32>, %d: tensor<?x3xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<?x3xf32>, tensor<3x?xf32>) {
  %0 = tensor.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = tensor.transpose %0 {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %2 = tensor.transpose %0 {perm = array<i64: 1, 2, 0>} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  %3 = tensor.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = tensor.transpose %d {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  %5 = tensor.transpose %4 {perm = array<i64: 1, 0>} : (tensor<3x?xf32>) -> tensor<?x3xf32>
  return %1, %2, %3, %5, %4 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<?x3xf32>, tensor<3x?xf32>
}

// reshape(reshape(x)) is one reshape of x (x itself when it has the result type, also with
// `?` dims); a reshape to x's own type is x.
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT: %[[A:.*]] = tensor.reshape %arg0 : (tensor<2x6xi32>) -> tensor<12xi32>
// CHECK-NEXT: %[[B:.*]] = tensor.reshape %arg0 : (tensor<2x6xi32>) -> tensor<3x4xi32>
// CHECK-NEXT: %[[C:.*]] = tensor.reshape %arg1 : (tensor<?x4xi32>) -> tensor<?xi32>
// CHECK-NEXT: return %arg0, %[[B]], %arg0, %[[A]], %[[C]]
func.func @reshape(%x: tensor<2x6xi32>, %d: tensor<?x4xi32>) -> (tensor<2x6xi32>, tensor<3x4xi32>, tensor<2x6xi32>, tensor<12xi32>, tensor<?xi32>) {
  %0 = tensor.reshape %x : (tensor<2x6xi32>) -> tensor<12xi32>
  %1 = tensor.reshape %0 : (tensor<12xi32>) -> tensor<2x6xi32>
  %2 = tensor.reshape %0 : (tensor<12xi32>) -> tensor<3x4xi32>
  %3 = tensor.reshape %x : (tensor<2x6xi32>) -> tensor<2x6xi32>
  %4 = tensor.reshape %d : (tensor<?x4xi32>) -> tensor<?x2xi32>
  %5 = tensor.reshape %4 : (tensor<?x2xi32>) -> tensor<?xi32>
  return %1, %2, %3, %0, %5 : tensor<2x6xi32>, tensor<3x4xi32>, tensor<2x6xi32>, tensor<12xi32>, tensor<?xi32>
}

// Through a `?` dim, reshape chains whose static element counts differ (6 -> ?x2 -> 8, a
// run-time error) are not combined: one reshape from 6 to 8 elements would not verify.
// CHECK-LABEL: func.func @reshape_count_mismatch
// CHECK-NEXT: %[[A:.*]] = tensor.reshape %arg0 : (tensor<6xi32>) -> tensor<?x2xi32>
// CHECK-NEXT: %[[B:.*]] = tensor.reshape %[[A]] : (tensor<?x2xi32>) -> tensor<8xi32>
// CHECK-NEXT: return %[[B]]
func.func @reshape_count_mismatch(%x: tensor<6xi32>) -> tensor<8xi32> {
  %0 = tensor.reshape %x : (tensor<6xi32>) -> tensor<?x2xi32>
  %1 = tensor.reshape %0 : (tensor<?x2xi32>) -> tensor<8xi32>
  return %1 : tensor<8xi32>
}

// broadcast_to of a value that already has the result type is the value; real broadcasts
// (also of a `?` dim to a static one) stay.
// CHECK-LABEL: func.func @broadcast_to
// CHECK-NEXT: %[[A:.*]] = tensor.broadcast_to %arg0 : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast_to %arg1 : (tensor<?x4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT: return %arg0, %[[A]], %arg1, %[[B]]
func.func @broadcast_to(%x: tensor<3x4xf32>, %d: tensor<?x4xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<?x4xf32>, tensor<5x4xf32>) {
  %0 = tensor.broadcast_to %x : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = tensor.broadcast_to %x : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %2 = tensor.broadcast_to %d : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = tensor.broadcast_to %d : (tensor<?x4xf32>) -> tensor<5x4xf32>
  return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<?x4xf32>, tensor<5x4xf32>
}

// select with a splat constant condition is the chosen operand, if that has the result type
// (a chosen operand that would be broadcast keeps the select).
// CHECK-LABEL: func.func @select
// CHECK-DAG: %[[T:.*]] = tensor.constant {value = dense<true> : tensor<4xi1>}
// CHECK-DAG: %[[F:.*]] = tensor.constant {value = dense<false> : tensor<1xi1>}
// CHECK: %[[A:.*]] = tensor.select %[[T]], %arg2, %arg1
// CHECK-NEXT: %[[B:.*]] = tensor.select %[[F]], %arg0, %arg2
// CHECK-NEXT: return %arg0, %arg1, %[[A]], %[[B]]
func.func @select(%a: tensor<4xf32>, %b: tensor<4xf32>, %s: tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = tensor.constant {value = dense<true> : tensor<4xi1>} : tensor<4xi1>
  %f = tensor.constant {value = dense<false> : tensor<1xi1>} : tensor<1xi1>
  %0 = tensor.select %t, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tensor.select %f, %a, %b : (tensor<1xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tensor.select %t, %s, %b : (tensor<4xi1>, tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tensor.select %f, %a, %s : (tensor<1xi1>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A cast to the operand's own type is the operand.
// CHECK-LABEL: func.func @cast
// CHECK-NEXT: %[[C:.*]] = tensor.cast %arg0 : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NEXT: return %arg0, %[[C]], %arg1
func.func @cast(%x: tensor<4xf32>, %d: tensor<?xi8>) -> (tensor<4xf32>, tensor<4xf16>, tensor<?xi8>) {
  %0 = tensor.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tensor.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %2 = tensor.cast %d : (tensor<?xi8>) -> tensor<?xi8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf16>, tensor<?xi8>
}

// Dense constants are uniqued and hoisted to the top of the entry block, a folded result
// equal to an existing constant reuses it (1 + 1 is the 2 already there), and the body of a
// tensor.fused (an isolated region) is canonicalized on its own: [1,2,3,4] - [1,2,3,4] folds to
// zero, then `a * 2 + 0` to `a * 2`.
// CHECK-LABEL: func.func @dedup_hoist
// CHECK-NEXT: %[[C2:.*]] = tensor.constant {value = dense<2> : tensor<4xi32>}
// CHECK-NEXT: %[[S:.*]] = tensor.add %arg0, %arg0
// CHECK-NEXT: %[[M:.*]] = tensor.mul %[[S]], %[[C2]]
// CHECK-NEXT: %[[M2:.*]] = tensor.mul %[[M]], %[[C2]]
// CHECK-NEXT: %[[F:.*]] = tensor.fused %arg0 : tensor<4xi32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xi32>):
// CHECK-NEXT: %[[FC:.*]] = tensor.constant {value = dense<2> : tensor<4xi32>}
// CHECK-NEXT: %[[FM:.*]] = tensor.mul %[[A]], %[[FC]]
// CHECK-NEXT: tensor.yield %[[FM]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[M]], %[[M2]], %[[F]]
func.func @dedup_hoist(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = tensor.add %x, %x : tensor<4xi32>
  %c2 = tensor.constant {value = dense<2> : tensor<4xi32>} : tensor<4xi32>
  %1 = tensor.mul %0, %c2 : tensor<4xi32>
  %c1 = tensor.constant {value = dense<1> : tensor<4xi32>} : tensor<4xi32>
  %2 = tensor.add %c1, %c1 : tensor<4xi32>
  %3 = tensor.mul %2, %1 : tensor<4xi32>
  %4 = tensor.fused %x : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    %f0 = tensor.constant {value = dense<2> : tensor<4xi32>} : tensor<4xi32>
    %f1 = tensor.mul %a, %f0 : tensor<4xi32>
    %f2 = tensor.constant {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : tensor<4xi32>
    %f3 = tensor.sub %f2, %f2 : tensor<4xi32>
    %f4 = tensor.add %f1, %f3 : tensor<4xi32>
    tensor.yield %f4 : tensor<4xi32>
  }
  return %1, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// A result with a `?` dim is not constant-folded (the constant would need a static type).
// CHECK-LABEL: func.func @dynamic_result
// CHECK: tensor.add
func.func @dynamic_result() -> tensor<?xi32> {
  %a = tensor.constant {value = dense<[1, 2]> : tensor<2xi32>} : tensor<2xi32>
  %b = tensor.constant {value = dense<[3, 4]> : tensor<2xi32>} : tensor<2xi32>
  %0 = tensor.add %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// Commutative ops get their constant operand on the right, which must not change results:
// max/min order -0.0 below +0.0 whatever the operand order (IEEE 754-2019 maximum/minimum).
// CHECK-LABEL: func.func @commutative
// CHECK: %[[Z:.*]] = tensor.constant {value = dense<0.000000e+00> : tensor<4xf32>}
// CHECK-NEXT: %[[A:.*]] = tensor.max %arg0, %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.min %arg0, %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.add %arg0, %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = tensor.mul %arg0, %[[Z]] : tensor<4xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @commutative(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = tensor.constant {value = dense<0.0> : tensor<4xf32>} : tensor<4xf32>
  %0 = tensor.max %z, %x : tensor<4xf32>
  %1 = tensor.min %z, %x : tensor<4xf32>
  %2 = tensor.add %z, %x : tensor<4xf32>
  %3 = tensor.mul %z, %x : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
