// classify: an explicit xcs.mark is trusted and nothing else is looked at (seed 000 §4.1,
// priority 1): not the module, not the body, not the callees, not the types; on
// declarations too. xcs.pytree_safe is kept as it is. Callers see the marked class, and a
// marked function stops propagation: what it calls does not reach its callers.
// RUN: xcs-opt %s --classify | FileCheck %s

// marker over module, body and types
// CHECK-LABEL: func.func @tensor_despite_everything
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "marker", xcs.mark = "tensor", xcs.module = "openai.resources"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.pytree_safe = true, xcs.tensor_ops = ["xcs.mark"]
func.func @tensor_despite_everything(%p: !xcs.str) -> !xcs.str attributes {xcs.mark = "tensor", xcs.module = "openai.resources", xcs.pytree_safe = true} {
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  %s = call @llm_api(%r) : (!xcs.str) -> !xcs.str
  return %s : !xcs.str
}
// CHECK-LABEL: func.func @orchestration_despite_tensors
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "marker"
// CHECK-SAME: xcs.orchestration_ops = ["xcs.mark"], xcs.pytree_safe = false, xcs.tensor_ops = []
func.func @orchestration_despite_tensors(%x: tensor<4xf32>) -> tensor<4xf32> attributes {xcs.mark = "orchestration", xcs.module = "torch.nn", xcs.pytree_safe = false} {
  %y = tensor.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
// CHECK-LABEL: func.func @hybrid_of_nothing
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "marker"
// CHECK-SAME: xcs.orchestration_ops = ["xcs.mark"], xcs.tensor_ops = ["xcs.mark"]
func.func @hybrid_of_nothing() attributes {xcs.mark = "hybrid"} {
  return
}
// a marked declaration: its name is not looked at, nor the "no source" rule
// CHECK-LABEL: func.func private @llm_api
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "marker"
func.func private @llm_api(!xcs.str) -> !xcs.str attributes {xcs.mark = "tensor"}
// CHECK-LABEL: func.func private @opaque
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "marker"
func.func private @opaque() attributes {xcs.mark = "orchestration"}
// xcs.pytree_safe without a marker: kept, the rest classifies as usual
// CHECK-LABEL: func.func @pytree_only
// CHECK-SAME: xcs.class = "none", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.pytree_safe = false, xcs.tensor_ops = []
func.func @pytree_only(%a: i32) -> i32 attributes {xcs.pytree_safe = false} {
  return %a : i32
}

// callers take the marked class (and record the callee)
// CHECK-LABEL: func.func @calls_marked
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["@llm_api", "@tensor_despite_everything"]
func.func @calls_marked(%p: !xcs.str) -> !xcs.str {
  %0 = call @llm_api(%p) : (!xcs.str) -> !xcs.str
  %1 = call @tensor_despite_everything(%0) : (!xcs.str) -> !xcs.str
  return %1 : !xcs.str
}
// a marked function in a cycle cuts it: @cycle_a calls marked @cycle_b, which calls back
// (@cycle_b's own calls are not looked at, so @cycle_a is tensor only)
// CHECK-LABEL: func.func @cycle_a
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["@cycle_b"]
func.func @cycle_a(%p: !xcs.str) -> !xcs.str {
  %0 = call @cycle_b(%p) : (!xcs.str) -> !xcs.str
  return %0 : !xcs.str
}
// CHECK-LABEL: func.func @cycle_b
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "marker"
func.func @cycle_b(%p: !xcs.str) -> !xcs.str attributes {xcs.mark = "tensor"} {
  %0 = call @cycle_a(%p) : (!xcs.str) -> !xcs.str
  call @opaque() : () -> ()
  %2 = xcs.llm %0 {model = "m", provider = "echo"} : !xcs.str
  return %2 : !xcs.str
}
