// The module's grid and the axis names: a grid without names gets the names of axes= as its
// xcs.axes attribute (used by the report); a grid with names keeps them, and an axes= that
// disagrees with them is an error at the grid.
// RUN: xcs-opt %s --split-input-file -p 'builtin.module(auto-shard{axes=dp,tp})' | FileCheck %s
// RUN: not xcs-opt %s --split-input-file -p 'builtin.module(auto-shard{axes=x,y})' 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: shard.grid @g(shape = 2x2) {xcs.axes = ["dp", "tp"]}
// CHECK-LABEL: func.func @unnamed(
shard.grid @g(shape = 2x2)
func.func @unnamed(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.exp %x : tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// -----

// CHECK: shard.grid @g(shape = 2x2) {xcs.axes = ["dp", "tp"]}
// CHECK-LABEL: func.func @named(
// ERR: error: auto-shard: axes=x,y disagrees with the axis names of the grid @g (dp,tp)
shard.grid @g(shape = 2x2) {xcs.axes = ["dp", "tp"]}
func.func @named(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.exp %x : tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}
