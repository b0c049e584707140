// The shard ops in their custom and generic forms, as upstream MLIR 22 writes them: grids
// (static, dynamic, with axis names), shardings (replicated, split, halo sizes, shard offsets,
// dynamic sizes), annotations (on results and for users), every collective with and without
// its optional parts, and the device queries. mlir-opt knows the shard dialect: it prints this
// file byte for byte as xcs-opt does, in both forms, and each tool reads what the other prints.
// RUN: xcs-opt %s -o %t.xcs.mlir
// RUN: mlir-opt %s -o %t.mlir.mlir
// RUN: diff %t.xcs.mlir %t.mlir.mlir
// RUN: FileCheck %s < %t.xcs.mlir
// RUN: xcs-opt %t.mlir.mlir | diff %t.xcs.mlir -
// RUN: mlir-opt %t.xcs.mlir | diff %t.xcs.mlir -
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-opt %s --mlir-print-op-generic | diff %t.generic.mlir -
// RUN: mlir-opt %t.generic.mlir --mlir-print-op-generic | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir --mlir-print-op-generic | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | diff %t.xcs.mlir -
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// CHECK-NEXT: shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}
// CHECK-NEXT: shard.grid @line(shape = 4)
// CHECK-NEXT: shard.grid @cube(shape = 2x?x4)
// GENERIC: "shard.grid"() <{shape = array<i64: 2, 4>, sym_name = "mesh"}> {xcs.axes = ["dp", "tp"]} : () -> ()
// GENERIC: "shard.grid"() <{shape = array<i64: 2, -9223372036854775808, 4>, sym_name = "cube"}> : () -> ()
shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}
shard.grid @line(shape = 4)
shard.grid @cube(shape = 2x?x4)

// Result names are upstream's (`getAsmResultNames`), made unique with `_N` as MLIR does.
// CHECK-LABEL: func.func @annotate(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
// CHECK-NEXT: %sharding = shard.sharding @mesh split_axes = {{\[\[}}0], []] : !shard.sharding
// CHECK-NEXT: %sharding_annotated = shard.shard %arg0 to %sharding : tensor<8x16xf32>
// CHECK-NEXT: %sharding_0 = shard.sharding @mesh split_axes = {{\[\[}}], [1]] : !shard.sharding
// CHECK-NEXT: %sharding_annotated_1 = shard.shard %sharding_annotated to %sharding_0 annotate_for_users : tensor<8x16xf32>
// CHECK-NEXT: %sharding_2 = shard.sharding @mesh split_axes = {{\[\[}}]] {note = "replicated"} : !shard.sharding
// CHECK-NEXT: %sharding_annotated_3 = shard.shard %sharding_annotated_1 to %sharding_2 annotate_for_users {note = 1 : i64} : tensor<8x16xf32>
// CHECK-NEXT: return %sharding_annotated_3 : tensor<8x16xf32>
// GENERIC: %{{[0-9]+}} = "shard.sharding"() <{grid = @mesh, operandSegmentSizes = array<i32: 0, 0>, split_axes = #shard<axisarray{{\[\[}}0], []]>, static_halo_sizes = array<i64>, static_sharded_dims_offsets = array<i64>}> : () -> !shard.sharding
// GENERIC-NEXT: %{{[0-9]+}} = "shard.shard"(%arg{{[0-9]+}}, %{{[0-9]+}}) : (tensor<8x16xf32>, !shard.sharding) -> tensor<8x16xf32>
// GENERIC: %{{[0-9]+}} = "shard.shard"(%{{[0-9]+}}, %{{[0-9]+}}) <{annotate_for_users}> : (tensor<8x16xf32>, !shard.sharding) -> tensor<8x16xf32>
func.func @annotate(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @mesh split_axes = [[0], []] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<8x16xf32>
  %t = shard.sharding @mesh split_axes = [ [ ] , [ 1 ] ] : !shard.sharding
  %1 = shard.shard %0 to %t annotate_for_users : tensor<8x16xf32>
  %r = shard.sharding @mesh split_axes = [[]] {note = "replicated"} : !shard.sharding
  %2 = shard.shard %1 to %r annotate_for_users {note = 1} : tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// Halo sizes and shard offsets, static and dynamic (offsets come first among the operands).
// CHECK-LABEL: func.func @sizes(%arg0: i64, %arg1: i64) {
// CHECK-NEXT: %sharding = shard.sharding @mesh split_axes = {{\[\[}}0], [1]] halo_sizes = [1, 2, %arg0, 4] : !shard.sharding
// CHECK-NEXT: %sharding_0 = shard.sharding @line split_axes = {{\[\[}}], [0]] sharded_dims_offsets = [0, 2, %arg1, 9, 14] : !shard.sharding
// CHECK-NEXT: %sharding_1 = shard.sharding @mesh split_axes = {{\[\[}}0, 1]] : !shard.sharding
// GENERIC: "shard.sharding"(%arg{{[0-9]+}}) <{grid = @mesh, operandSegmentSizes = array<i32: 0, 1>, split_axes = #shard<axisarray{{\[\[}}0], [1]]>, static_halo_sizes = array<i64: 1, 2, -9223372036854775808, 4>, static_sharded_dims_offsets = array<i64>}> : (i64) -> !shard.sharding
// GENERIC: "shard.sharding"(%arg{{[0-9]+}}) <{grid = @line, operandSegmentSizes = array<i32: 1, 0>, split_axes = #shard<axisarray{{\[\[}}], [0]]>, static_halo_sizes = array<i64>, static_sharded_dims_offsets = array<i64: 0, 2, -9223372036854775808, 9, 14>}> : (i64) -> !shard.sharding
func.func @sizes(%h: i64, %o: i64) {
  %0 = shard.sharding @mesh split_axes = [[0], [1]] halo_sizes = [1, 2, %h, 4] : !shard.sharding
  %1 = shard.sharding @line split_axes = [[], [0]] sharded_dims_offsets = [0, 2, %o, 9, 14] : !shard.sharding
  %2 = shard.sharding @mesh split_axes = [[0, 1]] halo_sizes = [] : !shard.sharding
  return
}

// The collectives. `grid_axes = []` and `reduction = sum` are the defaults: left out when
// printed, explicit in the generic form. `reduction =  max` has two spaces, as mlir-opt prints it.
// CHECK-LABEL: func.func @collectives(%arg0: tensor<8x16xf32>, %arg1: index) {
// CHECK-NEXT: %all_gather = shard.all_gather %arg0 on @mesh grid_axes = [1] gather_axis = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
// CHECK-NEXT: %all_gather_0 = shard.all_gather %arg0 on @mesh grid_axes = [1, 0] gather_axis = 0 : tensor<8x16xf32> -> tensor<64x16xf32>
// CHECK-NEXT: %all_gather_1 = shard.all_gather %arg0 on @mesh gather_axis = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %all_reduce = shard.all_reduce %arg0 on @mesh grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %all_reduce_2 = shard.all_reduce %arg0 on @mesh grid_axes = [0, 1] reduction =  max : tensor<8x16xf32> -> tensor<8x16xf64>
// CHECK-NEXT: %all_reduce_3 = shard.all_reduce %arg0 on @mesh reduction =  min : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %reduce_scatter = shard.reduce_scatter %arg0 on @mesh grid_axes = [1] scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %reduce_scatter_4 = shard.reduce_scatter %arg0 on @mesh grid_axes = [0] reduction =  product scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf64>
// CHECK-NEXT: %all_to_all = shard.all_to_all %arg0 on @mesh grid_axes = [1] split_axis = 1 concat_axis = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
// CHECK-NEXT: %all_slice = shard.all_slice %arg0 on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %broadcast = shard.broadcast %arg0 on @mesh grid_axes = [0, 1] root = [1, %arg1] : (tensor<8x16xf32>, index) -> tensor<8x16xf32>
// CHECK-NEXT: %broadcast_5 = shard.broadcast %arg0 on @mesh root = [] {note} : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC-LABEL: sym_name = "collectives"
// GENERIC: %{{[0-9]+}} = "shard.all_gather"(%arg{{[0-9]+}}) <{gather_axis = 1 : index, grid = @mesh, grid_axes = array<i16: 1>}> : (tensor<8x16xf32>) -> tensor<8x64xf32>
// GENERIC: %{{[0-9]+}} = "shard.all_gather"(%arg{{[0-9]+}}) <{gather_axis = 0 : index, grid = @mesh, grid_axes = array<i16>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC-NEXT: %{{[0-9]+}} = "shard.all_reduce"(%arg{{[0-9]+}}) <{grid = @mesh, grid_axes = array<i16: 0>, reduction = #shard<partial sum>}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
// GENERIC-NEXT: %{{[0-9]+}} = "shard.all_reduce"(%arg{{[0-9]+}}) <{grid = @mesh, grid_axes = array<i16: 0, 1>, reduction = #shard<partial max>}> : (tensor<8x16xf32>) -> tensor<8x16xf64>
// GENERIC: %{{[0-9]+}} = "shard.broadcast"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{grid = @mesh, grid_axes = array<i16: 0, 1>, root = array<i64: 1, -9223372036854775808>}> : (tensor<8x16xf32>, index) -> tensor<8x16xf32>
func.func @collectives(%x: tensor<8x16xf32>, %i: index) {
  %0 = shard.all_gather %x on @mesh grid_axes = [1] gather_axis = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  %1 = shard.all_gather %x on @mesh grid_axes = [1, 0] gather_axis = 0 : tensor<8x16xf32> -> tensor<64x16xf32>
  %2 = shard.all_gather %x on @mesh grid_axes = [] gather_axis = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %3 = shard.all_reduce %x on @mesh grid_axes = [0] reduction = sum : tensor<8x16xf32> -> tensor<8x16xf32>
  %4 = shard.all_reduce %x on @mesh grid_axes = [0, 1] reduction = max : tensor<8x16xf32> -> tensor<8x16xf64>
  %5 = shard.all_reduce %x on @mesh reduction = min : tensor<8x16xf32> -> tensor<8x16xf32>
  %6 = shard.reduce_scatter %x on @mesh grid_axes = [1] scatter_axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
  %7 = shard.reduce_scatter %x on @mesh grid_axes = [0] reduction = product scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf64>
  %8 = shard.all_to_all %x on @mesh grid_axes = [1] split_axis = 1 concat_axis = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  %9 = shard.all_slice %x on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  %10 = shard.broadcast %x on @mesh grid_axes = [0, 1] root = [1, %i] : (tensor<8x16xf32>, index) -> tensor<8x16xf32>
  %11 = shard.broadcast %x on @mesh root = [] {note} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return
}

// Dynamic sizes: a `?` grid axis or tensor dim makes the result dim `?`.
// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x16xf32>) {
// CHECK-NEXT: %all_gather = shard.all_gather %arg0 on @cube grid_axes = [1] gather_axis = 1 : tensor<?x16xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %all_slice = shard.all_slice %arg0 on @mesh grid_axes = [1] slice_axis = 0 : tensor<?x16xf32> -> tensor<?x16xf32>
func.func @dynamic(%x: tensor<?x16xf32>) {
  %0 = shard.all_gather %x on @cube grid_axes = [1] gather_axis = 1 : tensor<?x16xf32> -> tensor<?x?xf32>
  %1 = shard.all_slice %x on @mesh grid_axes = [1] slice_axis = 0 : tensor<?x16xf32> -> tensor<?x16xf32>
  return
}

// The device queries (their results are all named `proc_linear_idx`, as upstream names them).
// CHECK-LABEL: func.func @queries() -> (index, index, index, index) {
// CHECK-NEXT: %proc_linear_idx:2 = shard.process_multi_index on @mesh : index, index
// CHECK-NEXT: %proc_linear_idx_0 = shard.process_multi_index on @mesh axes = [1] : index
// CHECK-NEXT: %proc_linear_idx_1 = shard.process_linear_index on @mesh : index
// CHECK-NEXT: %grid_shape:2 = shard.grid_shape @cube axes = [2, 1] : index, index
// CHECK-NEXT: %grid_shape_2 = shard.grid_shape @line : index
// CHECK-NEXT: return %proc_linear_idx#0, %proc_linear_idx#1, %proc_linear_idx_0, %proc_linear_idx_1 : index, index, index, index
// GENERIC: %{{[0-9]+}}:2 = "shard.process_multi_index"() <{axes = array<i16>, grid = @mesh}> : () -> (index, index)
// GENERIC-NEXT: %{{[0-9]+}} = "shard.process_multi_index"() <{axes = array<i16: 1>, grid = @mesh}> : () -> index
// GENERIC-NEXT: %{{[0-9]+}} = "shard.process_linear_index"() <{grid = @mesh}> : () -> index
func.func @queries() -> (index, index, index, index) {
  %i:2 = shard.process_multi_index on @mesh : index, index
  %j = shard.process_multi_index on @mesh axes = [1] : index
  %k = shard.process_linear_index on @mesh : index
  %s:2 = shard.grid_shape @cube axes = [2, 1] : index, index
  %t = shard.grid_shape @line : index
  return %i#0, %i#1, %j, %k : index, index, index, index
}

// Nested regions see the names of the enclosing ones: the `_N` counter carries on inside.
// CHECK-LABEL: func.func @nested
// CHECK: %sharding = shard.sharding @line split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: ^bb1:
// CHECK-NEXT: %sharding_0 = shard.sharding @line split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: %sharding_1 = shard.sharding @line split_axes = {{\[\[}}]] : !shard.sharding
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = shard.sharding @line split_axes = [[0]] : !shard.sharding
  cf.br ^bb1
^bb1:
  %t = shard.sharding @line split_axes = [[0]] : !shard.sharding
  %u = shard.sharding @line split_axes = [[]] : !shard.sharding
  %0 = shard.shard %x to %u : tensor<4xf32>
  return %0 : tensor<4xf32>
}
