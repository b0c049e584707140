// convert-stablehlo-to-tensor on the ops JAX's exports use (generic form, as JAX prints it):
// each becomes tensor ops at its location; jax.*/mhlo.* attributes are dropped.
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' | FileCheck %s
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// The results on both backends: remainder has the dividend's sign (C's fmod), gather and
// dynamic_slice clamp their start indices, the reduce starts from its init value.
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' -o %t.mlir
// RUN: xcs-run %t.mlir --entry rem --input 0='[5.5, -5.5, 5.5, -5.5]' --input 1='[2.0, 2.0, -2.0, -2.0]' | FileCheck %s --check-prefix=REM
// RUN: xcs-run %t.mlir --interp --entry rem --input 0='[5.5, -5.5, 5.5, -5.5]' --input 1='[2.0, 2.0, -2.0, -2.0]' | FileCheck %s --check-prefix=REM
// RUN: xcs-run %t.mlir --entry irem --input 0='[7, -7, 7, -7]' --input 1='[3, 3, -3, -3]' | FileCheck %s --check-prefix=IREM
// RUN: xcs-run %t.mlir --interp --entry irem --input 0='[7, -7, 7, -7]' --input 1='[3, 3, -3, -3]' | FileCheck %s --check-prefix=IREM
// RUN: xcs-run %t.mlir --entry take --input 0='[[1, 2], [3, 4], [5, 6]]' --input 1='[2, -4, 9, 0]' | FileCheck %s --check-prefix=TAKE
// RUN: xcs-run %t.mlir --interp --entry take --input 0='[[1, 2], [3, 4], [5, 6]]' --input 1='[2, -4, 9, 0]' | FileCheck %s --check-prefix=TAKE
// RUN: xcs-run %t.mlir --entry along --input 0='[[1, 2, 3], [4, 5, 6]]' --input 1='[[2, 0], [1, 7]]' | FileCheck %s --check-prefix=ALONG
// RUN: xcs-run %t.mlir --interp --entry along --input 0='[[1, 2, 3], [4, 5, 6]]' --input 1='[[2, 0], [1, 7]]' | FileCheck %s --check-prefix=ALONG
// RUN: xcs-run %t.mlir --entry dyn --input 0='[1, 2, 3, 4, 5]' --input 1=4 | FileCheck %s --check-prefix=DYN
// RUN: xcs-run %t.mlir --interp --entry dyn --input 0='[1, 2, 3, 4, 5]' --input 1=4 | FileCheck %s --check-prefix=DYN
// RUN: xcs-run %t.mlir --entry sum --input 0='[[1, 2], [3, 4]]' | FileCheck %s --check-prefix=SUM
// RUN: xcs-run %t.mlir --interp --entry sum --input 0='[[1, 2], [3, 4]]' | FileCheck %s --check-prefix=SUM

// CHECK-LABEL: module @jit_ops {
// CHECK-NOT: mhlo.
// CHECK-LABEL: func.func public @mlp(
// CHECK-SAME: -> tensor<4x16xf32> {
// CHECK-NEXT: %[[MM:.*]] = tensor.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.reshape %arg2 : (tensor<16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.broadcast_to %[[R]] : (tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.add %[[MM]], %[[B]] : tensor<4x16xf32>
// CHECK-NEXT: %[[ONE:.*]] = tensor.constant {value = dense<1.000000e+00> : tensor<f32>} : tensor<f32>
// CHECK-NEXT: %[[E:.*]] = tensor.erf %[[A]] : tensor<4x16xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.sub %[[ONE]], %[[E]] : (tensor<f32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.sigmoid %[[C]] : tensor<4x16xf32>
// CHECK-NEXT: return %[[S]] : tensor<4x16xf32>
// LOC: tensor.matmul {{.*}} loc(#[[MMLOC:loc[0-9]*]])
// LOC: #[[MMLOC]] = loc("model.py":12:8)
"builtin.module"() <{sym_name = "jit_ops"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}], function_type = (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "mlp", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<16xf32>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> loc("model.py":12:8)
    %1 = "stablehlo.broadcast_in_dim"(%arg2) <{broadcast_dimensions = array<i64: 1>}> : (tensor<16xf32>) -> tensor<4x16xf32>
    %2 = "stablehlo.add"(%0, %1) {mhlo.frontend_attributes = {}} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %3 = "chlo.erfc"(%2) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %4 = "stablehlo.logistic"(%3) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    "func.return"(%4) : (tensor<4x16xf32>) -> ()
  }) : () -> ()

// Attention's `q @ k^T`: k's last two dims swapped, one batched matmul; other contractions
// (here two contracting dims) are an einsum.
// CHECK-LABEL: func.func @scores(
// CHECK-NEXT: %[[KT:.*]] = tensor.transpose %arg1 {perm = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT: tensor.matmul %arg0, %[[KT]] : (tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x8x8xf32>
// CHECK: tensor.einsum %arg0, %arg1 {equation = "abcd,efcd->abef"}
  "func.func"() <{function_type = (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>, sym_name = "scores"}> ({
  ^bb0(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>):
    %0 = "stablehlo.dot_general"(%q, %k) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>}> : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
    %1 = "stablehlo.dot_general"(%q, %k) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [2, 3]>}> : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x2x4xf32>
    "func.return"(%0) : (tensor<2x4x8x8xf32>) -> ()
  }) : () -> ()

// REM: [ 1.5 -1.5  1.5 -1.5]
// CHECK-LABEL: func.func @rem(
// CHECK: tensor.rem
// CHECK: tensor.select
  "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "rem"}> ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %0 = "stablehlo.remainder"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()

// IREM: [ 1 -1  1 -1]
  "func.func"() <{function_type = (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>, sym_name = "irem"}> ({
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xi32>):
    %0 = "stablehlo.remainder"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%0) : (tensor<4xi32>) -> ()
  }) : () -> ()

// jnp.take(t, i, axis=0)'s gather: out-of-range starts are clamped (-4 -> 0, 9 -> 2).
// TAKE:      {{\[\[}}5. 6.]
// TAKE-NEXT: [1. 2.]
// TAKE-NEXT: [5. 6.]
// TAKE-NEXT: [1. 2.]]
// CHECK-LABEL: func.func @take(
// CHECK: tensor.clamp
// CHECK: tensor.gather
  "func.func"() <{function_type = (tensor<3x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>, sym_name = "take"}> ({
  ^bb0(%t: tensor<3x2xf32>, %i: tensor<4xi32>):
    %0 = "stablehlo.broadcast_in_dim"(%i) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
    %1 = "stablehlo.gather"(%t, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xf32>, tensor<4x1xi32>) -> tensor<4x2xf32>
    "func.return"(%1) : (tensor<4x2xf32>) -> ()
  }) : () -> ()

// jnp.take_along_axis(t, i, axis=1)'s gather, with batching dims (7 is clamped to 2).
// ALONG:      {{\[\[}}3. 1.]
// ALONG-NEXT: [5. 6.]]
// CHECK-LABEL: func.func @along(
// CHECK: tensor.iota {axis = 0 : i64} : tensor<2x2xi64>
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>, sym_name = "along"}> ({
  ^bb0(%t: tensor<2x3xf32>, %i: tensor<2x2xi32>):
    %0 = "stablehlo.reshape"(%i) : (tensor<2x2xi32>) -> tensor<2x2x1xi32>
    %1 = "stablehlo.gather"(%t, %0) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<2x3xf32>, tensor<2x2x1xi32>) -> tensor<2x2xf32>
    "func.return"(%1) : (tensor<2x2xf32>) -> ()
  }) : () -> ()

// dynamic_slice at 4 takes [3, 5) (clamped to fit); dynamic_update_slice writes there; iota.
// DYN: [4. 5.]
// DYN: [ 1.  2.  3. 40. 50.]
// DYN: [0 1 2]
// CHECK-LABEL: func.func @dyn(
// CHECK: tensor.dynamic_slice %arg0, %arg1 {sizes = array<i64: 2>}
// CHECK: tensor.dynamic_update_slice %arg0, %{{.*}}, %arg1
// CHECK: tensor.iota {axis = 0 : i64} : tensor<3xi32>
  "func.func"() <{function_type = (tensor<5xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<5xf32>, tensor<3xi32>), sym_name = "dyn"}> ({
  ^bb0(%x: tensor<5xf32>, %i: tensor<i32>):
    %0 = "stablehlo.dynamic_slice"(%x, %i) <{slice_sizes = array<i64: 2>}> : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>
    %c = "stablehlo.constant"() <{value = dense<10.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    %1 = "stablehlo.multiply"(%0, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.dynamic_update_slice"(%x, %1, %i) : (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
    %3 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<3xi32>
    "func.return"(%0, %2, %3) : (tensor<2xf32>, tensor<5xf32>, tensor<3xi32>) -> ()
  }) : () -> ()

// A reduce whose init is not the identity adds it; max with -inf init does not combine; an
// i1 `and` reduce (jnp.all) goes through i8.
// SUM: [14. 16.]
// SUM: [3. 4.]
// SUM: [False  True]
// CHECK-LABEL: func.func @sum(
// CHECK: tensor.reduce %arg0 {axes = array<i64: 0>, keepdims = false, kind = "sum"}
// CHECK-NEXT: tensor.add
// CHECK: tensor.reduce %arg0 {axes = array<i64: 0>, keepdims = false, kind = "max"}
// CHECK-NOT: tensor.max
// CHECK: kind = "min"
  "func.func"() <{function_type = (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi1>), sym_name = "sum"}> ({
  ^bb0(%x: tensor<2x2xf32>):
    %init = "stablehlo.constant"() <{value = dense<10.0> : tensor<f32>}> : () -> tensor<f32>
    %0 = "stablehlo.reduce"(%x, %init) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%x, %ninf) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
    %two = "stablehlo.constant"() <{value = dense<1.5> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %gt = "stablehlo.compare"(%x, %two) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>
    %t = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %2 = "stablehlo.reduce"(%gt, %t) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %s = "stablehlo.and"(%a, %b) : (tensor<i1>, tensor<i1>) -> tensor<i1>
      "stablehlo.return"(%s) : (tensor<i1>) -> ()
    }) : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>
    "func.return"(%0, %1, %2) : (tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
