// convert-stablehlo-to-tensor on a sharded JAX export (Shardy, what JAX 0.10 writes): the mesh
// becomes a shard.grid, the arguments' and results' shardings and sharding_constraint become
// shard.shard annotations; GSPMD's mhlo.sharding strings next to Shardy's are leftovers, dropped
// (sharding-gspmd.mlir converts a GSPMD-only export).
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' | FileCheck %s
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' -o %t.mlir
// RUN: xcs-run %t.mlir --entry main --input 0='[[1, 2], [3, 4], [5, 6], [7, 8]]' --input 1='[[1, 0], [0, 1]]' | FileCheck %s --check-prefix=OUT
// RUN: xcs-run %t.mlir --interp --entry main --input 0='[[1, 2], [3, 4], [5, 6], [7, 8]]' --input 1='[[1, 0], [0, 1]]' | FileCheck %s --check-prefix=OUT

// CHECK: shard.grid @mesh(shape = 2x2) {xcs.axes = ["dp", "tp"]}
// CHECK-NOT: sdy.
// CHECK-LABEL: func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2x2xf32>) -> tensor<4x2xf32> {
// CHECK-NEXT: %[[S0:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[X:.*]] = shard.shard %arg0 to %[[S0]] : tensor<4x2xf32>
// CHECK-NEXT: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]] : !shard.sharding
// CHECK-NEXT: %[[W:.*]] = shard.shard %arg1 to %[[S1]] : tensor<2x2xf32>
// CHECK-NEXT: %[[Y:.*]] = tensor.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[S2:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0], [1]] : !shard.sharding
// CHECK-NEXT: %[[C:.*]] = shard.shard %[[Y]] to %[[S2]] : tensor<4x2xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.tanh %[[C]]
// CHECK-NEXT: %[[S3:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[R:.*]] = shard.shard %[[T]] to %[[S3]] : tensor<4x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x2xf32>
// OUT: {{\[\[}}0.7615942 0.9640276 ]
"builtin.module"() <{sym_name = "jit_f"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["dp"=2, "tp"=2]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}, {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}]>, mhlo.sharding = "{replicated}"}], function_type = (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>, res_attrs = [{jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"dp", ?}, {?}]>}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x2xf32>, %arg1: tensor<2x2xf32>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    %1 = "sdy.sharding_constraint"(%0) <{sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}]>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = "stablehlo.tanh"(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    "func.return"(%2) : (tensor<4x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
