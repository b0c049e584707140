// auto-shard's errors, each located: a mesh= that disagrees with the module's grid, a memory
// limit no plan fits in (the note shows the least-memory plan), a dynamic shape, two grids, and
// pass options it cannot read.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(auto-shard{mesh=2x4 memory-limit=4KiB})'
// RUN: not xcs-opt %s -p 'builtin.module(auto-shard{mesh=2x4 axes=a,b,c})' 2>&1 | FileCheck %s --check-prefix=AXES
// RUN: not xcs-opt %s -p 'builtin.module(auto-shard{mesh=2x4 memory-limit=3XB})' 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: not xcs-opt %s -p 'builtin.module(auto-shard{mesh=2x0})' 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not xcs-opt %s -p 'builtin.module(auto-shard{mesh=2x4 alpha=1,2,3})' 2>&1 | FileCheck %s --check-prefix=ALPHA
// RUN: not xcs-opt %s --shard-report=%t.json -p 'builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=REPORT
// AXES: axes= names 3 axes but the mesh has 2
// BYTES: memory-limit
// SHAPE: mesh
// ALPHA: alpha
// REPORT: --shard-report needs the auto-shard pass in the pipeline

// expected-error @+1 {{auto-shard: mesh=2x4 disagrees with the module's grid @mesh (shape = 8)}}
shard.grid @mesh(shape = 8)
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// 16 KiB in and out: at least 2 KiB per device for the argument and 2 KiB for the exp's
// result, more than 4 KiB once the replicated result is gathered.
// expected-error @+2 {{auto-shard: no plan fits in memory-limit=4096 bytes per device; the least-memory plan found needs}}
// expected-note @+1 {{the least-memory plan: %arg0:}}
func.func @too_big(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.exp %x : tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}

// -----

// expected-error @+1 {{auto-shard: 'tensor<?x64xf32>' has a dynamic dim; the cost model needs static shapes}}
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %e = tensor.exp %x : tensor<?x64xf32>
  return %e : tensor<?x64xf32>
}

// -----

shard.grid @a(shape = 2x4)
// expected-error @+1 {{auto-shard: the module has several grids (@a and @b); auto-shard plans for one}}
shard.grid @b(shape = 2x4)
