// convert-stablehlo-to-tensor on a GSPMD export (JAX 0.10 with jax_use_shardy_partitioner=False:
// mhlo.sharding strings on arguments and results, custom_call @Sharding for
// with_sharding_constraint). The strings' tile assignments are factored into one grid whose
// axes follow the device id's digits (axis_0 major); each becomes a shard.shard annotation.
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' | FileCheck %s
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor,shard-partition)' -o %t.mlir
// RUN: xcs-run %t.mlir --devices=2x2 --entry main --input 0='[[1, 2], [3, 4], [5, 6], [7, 8]]' --input 1='[[1, 0], [0, 1]]' | FileCheck %s --check-prefix=OUT

// CHECK: shard.grid @mesh(shape = 2x2) {xcs.axes = ["axis_0", "axis_1"]}
// CHECK-NOT: mhlo.sharding
// CHECK-LABEL: func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2x2xf32>) -> tensor<4x2xf32> {
// CHECK-NEXT: %[[S0:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[X:.*]] = shard.shard %arg0 to %[[S0]] : tensor<4x2xf32>
// CHECK-NEXT: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]] : !shard.sharding
// CHECK-NEXT: %[[W:.*]] = shard.shard %arg1 to %[[S1]] : tensor<2x2xf32>
// CHECK-NEXT: %[[Y:.*]] = tensor.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[S2:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK-NEXT: %[[C:.*]] = shard.shard %[[Y]] to %[[S2]] : tensor<4x2xf32>
// CHECK-NEXT: %[[T:.*]] = tensor.tanh %[[C]]
// CHECK-NEXT: %[[S3:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0], [1]] : !shard.sharding
// CHECK-NEXT: %[[R:.*]] = shard.shard %[[T]] to %[[S3]] : tensor<4x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x2xf32>
// OUT: {{\[\[}}0.7615942 0.9640276 ]
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}, {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}], function_type = (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>, res_attrs = [{jax.result_info = "result", mhlo.sharding = "{devices=[2,2]<=[4]}"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x2xf32>, %arg1: tensor<2x2xf32>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
    %1 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "Sharding", called_computations = [], has_side_effect = false}> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = "stablehlo.tanh"(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
    "func.return"(%2) : (tensor<4x2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

