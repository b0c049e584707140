// classify: the keywords the seed removed as ambiguous (seed 000 §4.3, Appendix A.3) —
// model, call, api, router, tool, dot — are no signal on their own: in op names of a body
// they give nothing (no false positive), and a declaration named only by them is not
// recognized, so it stays hybrid with source "unknown" (conservative), never tensor or
// orchestration by keyword. Next to a real keyword or prefix, that one decides.
// RUN: xcs-opt %s --allow-unregistered-dialect --classify | FileCheck %s

// CHECK-LABEL: func.func @ambiguous_ops
// CHECK-SAME: xcs.class = "none", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = []
func.func @ambiguous_ops() {
  "mylib.model"() : () -> ()
  "mylib.call"() : () -> ()
  "mylib.api"() : () -> ()
  "mylib.router"() : () -> ()
  "mylib.tool"() : () -> ()
  "mylib.dot"() : () -> ()
  "mylib.model_api_router.call_tool_dot"() : () -> ()
  return
}

// CHECK-LABEL: func.func private @model()
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @model()
// CHECK-LABEL: func.func private @call()
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @call()
// CHECK-LABEL: func.func private @api()
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @api()
// CHECK-LABEL: func.func private @router()
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @router()
// CHECK-LABEL: func.func private @tool()
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @tool()
// CHECK-LABEL: func.func private @dot(
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @dot(f32, f32) -> f32
// CHECK-LABEL: func.func private @get_model_api
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @get_model_api()

// the ambiguous word next to a real keyword: the keyword decides
// CHECK-LABEL: func.func private @load_model_tensor
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["@load_model_tensor"]
func.func private @load_model_tensor()
// CHECK-LABEL: func.func private @chat_model
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
func.func private @chat_model()
// CHECK-LABEL: func.func private @tool_call_llm
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
func.func private @tool_call_llm()
// `dot` is not a tensor keyword, `jnp` is; `numpy.` is a module prefix
// CHECK-LABEL: func.func private @jnp.dot
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
func.func private @jnp.dot(f32, f32) -> f32
// CHECK-LABEL: func.func private @numpy.dot
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
func.func private @numpy.dot(f32, f32) -> f32
// `model` under an orchestration prefix (seed §2.3: openai.Model is orchestration)...
// CHECK-LABEL: func.func private @openai.Model
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
func.func private @openai.Model()
// ... and under a tensor prefix (torch.nn.Module is tensor)
// CHECK-LABEL: func.func private @torch.nn.Module
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
func.func private @torch.nn.Module()

// a caller of the unrecognized `@model` is hybrid through it (conservative): the callee
// symbol is in both sets
// CHECK-LABEL: func.func @uses_model
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["@model"], xcs.tensor_ops = ["@model"]
func.func @uses_model() {
  call @model() : () -> ()
  return
}
// a caller of `@dot` next to a tensor op: still hybrid, `@dot` gives the orchestration side
// CHECK-LABEL: func.func @uses_dot
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["@dot"], xcs.tensor_ops = ["@dot", "tensor.matmul", "tensor<2x2xf32>"]
func.func @uses_dot(%x: tensor<2x2xf32>, %a: f32) -> tensor<2x2xf32> {
  %y = tensor.matmul %x, %x : tensor<2x2xf32>
  %d = call @dot(%a, %a) : (f32, f32) -> f32
  return %y : tensor<2x2xf32>
}
