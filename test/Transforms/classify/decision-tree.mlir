// classify: every branch of the seed's decision tree (seed 000, Appendix B), one function
// per branch. The tree on the IR: marker (xcs.mark) > the function's own xcs.module >
// "source available?" (a declaration has no body: its symbol name is all there is) > the
// body's ops and calls, each name going through module-aware matching then the keywords.
// RUN: xcs-test-opt %s --allow-unregistered-dialect --classify | FileCheck %s
// RUN: xcs-test-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(classify)' | FileCheck %s

// ---- Has a marker? YES -> return based on the marker values (DONE)
// CHECK-LABEL: func.func @marker_tensor
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "marker"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["xcs.mark"]
func.func @marker_tensor(%p: !xcs.str) -> !xcs.str attributes {xcs.mark = "tensor"} {
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  return %r : !xcs.str
}
// CHECK-LABEL: func.func @marker_orchestration
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "marker"
// CHECK-SAME: xcs.orchestration_ops = ["xcs.mark"], xcs.tensor_ops = []
func.func @marker_orchestration(%x: tensor<4xf32>) -> tensor<4xf32> attributes {xcs.mark = "orchestration"} {
  %y = tensor.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
// CHECK-LABEL: func.func @marker_hybrid
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "marker"
// CHECK-SAME: xcs.orchestration_ops = ["xcs.mark"], xcs.tensor_ops = ["xcs.mark"]
func.func @marker_hybrid() attributes {xcs.mark = "hybrid"} {
  return
}

// ---- __module__ starts with a tensor prefix? YES -> tensor-only (DONE)
// CHECK-LABEL: func.func @module_tensor
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "module"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["torch.nn.functional"]
func.func @module_tensor(%p: !xcs.str) -> !xcs.str attributes {xcs.module = "torch.nn.functional"} {
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  return %r : !xcs.str
}

// ---- __module__ starts with an orchestration prefix? YES -> orchestration-only (DONE)
// CHECK-LABEL: func.func @module_orchestration
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "module"
// CHECK-SAME: xcs.orchestration_ops = ["openai.resources"], xcs.tensor_ops = []
func.func @module_orchestration(%x: tensor<4xf32>) -> tensor<4xf32> attributes {xcs.module = "openai.resources"} {
  %y = tensor.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// ---- a module matching no prefix: on to the next question
// CHECK-LABEL: func.func @module_unmatched
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.tensor_ops = ["tensor.exp", "tensor<4xf32>"]
func.func @module_unmatched(%x: tensor<4xf32>) -> tensor<4xf32> attributes {xcs.module = "mylib.utils"} {
  %y = tensor.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// ---- Can get source code? NO -> hybrid/unknown (DONE)
// CHECK-LABEL: func.func private @no_source
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
// CHECK-SAME: xcs.orchestration_ops = ["unknown"], xcs.tensor_ops = ["unknown"]
func.func private @no_source(tensor<4xf32>) -> tensor<4xf32>
// (the same with a module that matches no prefix)
// CHECK-LABEL: func.func private @no_source_module
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @no_source_module() attributes {xcs.module = "mylib.utils"}

// ---- the body ("AST"): each name...
// ... starts with a tensor module prefix -> tensor_ops, keywords skipped ("chat" is not looked at)
// CHECK-LABEL: func.func @name_tensor_prefix
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["jax.numpy.chat_template"]
func.func @name_tensor_prefix() {
  "jax.numpy.chat_template"() : () -> ()
  return
}
// ... starts with an orchestration module prefix -> orchestration_ops, keywords skipped
// CHECK-LABEL: func.func @name_orchestration_prefix
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["anthropic.tensor_api"], xcs.tensor_ops = []
func.func @name_orchestration_prefix() {
  "anthropic.tensor_api"() : () -> ()
  return
}
// ... contains a tensor keyword -> tensor_ops
// CHECK-LABEL: func.func @name_tensor_keyword
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["mylib.fast_einsum"]
func.func @name_tensor_keyword() {
  "mylib.fast_einsum"() : () -> ()
  return
}
// ... contains an orchestration keyword -> orchestration_ops
// CHECK-LABEL: func.func @name_orchestration_keyword
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["mylib.build_prompt"], xcs.tensor_ops = []
func.func @name_orchestration_keyword() {
  "mylib.build_prompt"() : () -> ()
  return
}
// ... contains both kinds of keyword -> both sets (the two checks are independent)
// CHECK-LABEL: func.func @name_both_keywords
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["mylib.llm_grad"], xcs.tensor_ops = ["mylib.llm_grad"]
func.func @name_both_keywords() {
  "mylib.llm_grad"() : () -> ()
  return
}
// ... none of them: no signal
// CHECK-LABEL: func.func @name_nothing
// CHECK-SAME: xcs.class = "none", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = []
func.func @name_nothing(%a: i32) -> i32 {
  "mylib.helper"() : () -> ()
  %b = "test.addi"(%a, %a) : (i32, i32) -> i32
  return %b : i32
}
// ---- the XCS dialects themselves: tensor ops are tensor ops, xcs.llm is orchestration
// CHECK-LABEL: func.func @ops_both
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["xcs.llm"], xcs.tensor_ops = ["tensor.add", "tensor.constant", "tensor.reduce"]
func.func @ops_both(%p: !xcs.str, %n: i32) -> (!xcs.str, i32) {
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  %c = tensor.constant {value = dense<1.0> : tensor<4xf32>} : tensor<4xf32>
  %d = tensor.add %c, %c : tensor<4xf32>
  %s = tensor.reduce %d {axes = array<i64: 0>, keepdims = false, kind = "sum"} : (tensor<4xf32>) -> tensor<f32>
  return %r, %n : !xcs.str, i32
}
