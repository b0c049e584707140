// Errors: a result with out_axes = -1 must not depend on the batched operands (JAX's rule for
// out_axes=None; the element-wise semantics of xcs.vmap would give element 0's value, which is
// almost certainly not what was meant). Orchestration bodies are not checked: they become
// xcs.parallel_map, which keeps the element-0 semantics. The pass needs a symbol table.
// RUN: xcs-opt %s --split-input-file --vmap-batch --verify-diagnostics
// RUN: not xcs-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(vmap-batch))' 2>&1 | FileCheck %s --check-prefix=ANCHOR

func.func @depends_on_batch(%x: tensor<4x3xf32>) -> tensor<f32> {
  // expected-error@+1 {{'xcs.vmap' op result #0 has out_axes = -1 (not batched), but the value yielded for it depends on the batched operands; give it a batch axis, or compute it from unbatched (in_axes = -1) operands only}}
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: -1>} : (tensor<4x3xf32>) -> tensor<f32> {
  ^bb0(%e: tensor<3xf32>):
    %s = tensor.reduce %e {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<3xf32>) -> tensor<f32>
    xcs.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Through a call: the clone's result depends on its batched argument.
func.func private @id(%v: tensor<3xf32>) -> tensor<3xf32> {
  %n = tensor.neg %v : tensor<3xf32>
  return %n : tensor<3xf32>
}
func.func @through_call(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  // expected-error@+1 {{'xcs.vmap' op result #1 has out_axes = -1 (not batched)}}
  %r:2 = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0, -1>} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @id(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y, %y : (tensor<3xf32>, tensor<3xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<3xf32>
}

// -----

// In an inner map: reported at the inner map.
func.func @nested(%x: tensor<2x4x3xf32>) -> tensor<2x3xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x4x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%m: tensor<4x3xf32>):
    // expected-error@+1 {{'xcs.vmap' op result #0 has out_axes = -1 (not batched)}}
    %i = xcs.vmap %m {in_axes = array<i64: 0>, out_axes = array<i64: -1>} : (tensor<4x3xf32>) -> tensor<3xf32> {
    ^bb0(%row: tensor<3xf32>):
      xcs.yield %row : tensor<3xf32>
    }
    xcs.yield %i : tensor<3xf32>
  }
  return %r : tensor<2x3xf32>
}

// -----

// ANCHOR: error: 'func.func' op  was scheduled to run under vmap-batch, but does not define a symbol table
func.func @f() {
  return
}
