// classify: priority 4, the signature (seed 000 §4.4): an argument or result type whose text
// contains "array", "tensor", "ndarray" or "jax" is a tensor signal, recorded by its text.
// The seed removed `str`, `model` and `operator` as too ambiguous: !xcs.str is no signal.
// Types are part of the analysis only: markers, a matching module and declarations (no
// source) do not look at them.
// RUN: xcs-opt %s --allow-unregistered-dialect --classify | FileCheck %s

// CHECK-LABEL: func.func @tensor_arg
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["tensor<4x8xf32>"]
func.func @tensor_arg(%x: tensor<4x8xf32>, %n: i32) -> i32 {
  return %n : i32
}
// CHECK-LABEL: func.func @tensor_result
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["tensor<?x4xbf16>"]
func.func @tensor_result(%x: tensor<?x4xbf16>) -> tensor<?x4xbf16> {
  return %x : tensor<?x4xbf16>
}
// CHECK-LABEL: func.func @unranked
// CHECK-SAME: xcs.tensor_ops = ["tensor<*xf32>"]
func.func @unranked(%x: tensor<*xf32>) {
  return
}
// other dialects' array types, by the seed's tokens
// CHECK-LABEL: func.func @foreign_types
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["!jax.Array", "!np.ndarray"]
func.func @foreign_types(%a: !jax.Array, %b: !np.ndarray) {
  return
}
// no token: memref, vector, scalars, strings
// CHECK-LABEL: func.func @no_type_signal
// CHECK-SAME: xcs.class = "none", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = []
func.func @no_type_signal(%a: memref<4xf32>, %b: vector<4xf32>, %c: f32, %d: !xcs.str, %e: !xcs.any) {
  return
}
// types next to an orchestration signal: hybrid
// CHECK-LABEL: func.func @types_and_llm
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["xcs.llm"], xcs.tensor_ops = ["tensor<4xf32>"]
func.func @types_and_llm(%x: tensor<4xf32>, %p: !xcs.str) -> !xcs.str {
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  return %r : !xcs.str
}
// a declaration with tensor types but no module and no known name: no source, hybrid
// CHECK-LABEL: func.func private @kernel_blob
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @kernel_blob(tensor<4xf32>) -> tensor<4xf32>
// a function whose only signal is its types passes it to its callers
// CHECK-LABEL: func.func @calls_typed
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["@tensor_arg"]
func.func @calls_typed(%n: i32) -> i32 {
  %c = "mylib.make"() : () -> tensor<4x8xf32>
  %0 = call @tensor_arg(%c, %n) : (tensor<4x8xf32>, i32) -> i32
  return %0 : i32
}
