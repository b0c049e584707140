// classify: module-aware matching (seed 000 §2.3, §4.2, §4.3): a name that starts with a
// known module prefix takes that prefix's side and its keywords are not looked at, so
// `torch.*` is tensor and `openai.*` orchestration whatever words follow. A callee's
// `xcs.module` (the module it comes from) decides before its name does; a function's own
// `xcs.module` decides before its body does. Module paths match a prefix at a package
// boundary (`torch`, `torch.nn`, not `torchvision`); names match the prefix without its dot,
// lowercased (`torchvision.ops` and `Torch.Tensor` are tensor names), as the seed's
// `_record_name` does.
// RUN: xcs-opt %s --classify | FileCheck %s

// names: the prefix wins over keywords of the other side
// CHECK-LABEL: func.func private @torch.chat_completion
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["@torch.chat_completion"]
func.func private @torch.chat_completion(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @openai.embeddings.tensor_create
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["@openai.embeddings.tensor_create"], xcs.tensor_ops = []
func.func private @openai.embeddings.tensor_create(!xcs.str) -> tensor<4xf32>
// every prefix of both tables
// CHECK-LABEL: func.func private @jax.lax.scan
// CHECK-SAME: xcs.class = "tensor"
func.func private @jax.lax.scan()
// CHECK-LABEL: func.func private @jaxlib.xla_client
// CHECK-SAME: xcs.class = "tensor"
func.func private @jaxlib.xla_client()
// CHECK-LABEL: func.func private @numpy.linalg.solve
// CHECK-SAME: xcs.class = "tensor"
func.func private @numpy.linalg.solve()
// CHECK-LABEL: func.func private @tensorflow.nn.relu
// CHECK-SAME: xcs.class = "tensor"
func.func private @tensorflow.nn.relu()
// CHECK-LABEL: func.func private @scipy.special.softmax
// CHECK-SAME: xcs.class = "tensor"
func.func private @scipy.special.softmax()
// CHECK-LABEL: func.func private @anthropic.messages.create
// CHECK-SAME: xcs.class = "orchestration"
func.func private @anthropic.messages.create()
// CHECK-LABEL: func.func private @langchain.chains.run
// CHECK-SAME: xcs.class = "orchestration"
func.func private @langchain.chains.run()
// CHECK-LABEL: func.func private @litellm.completion
// CHECK-SAME: xcs.class = "orchestration"
func.func private @litellm.completion()
// CHECK-LABEL: func.func private @ember.gateway.route_tensor
// CHECK-SAME: xcs.class = "orchestration"
func.func private @ember.gateway.route_tensor()
// CHECK-LABEL: func.func private @ember.operators.ensemble
// CHECK-SAME: xcs.class = "orchestration"
func.func private @ember.operators.ensemble()
// `ember.` alone is no prefix
// CHECK-LABEL: func.func private @ember.core.run
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @ember.core.run()
// the seed compares names lowercased, and the prefix without its dot
// CHECK-LABEL: func.func private @Torch.Tensor.add
// CHECK-SAME: xcs.class = "tensor"
func.func private @Torch.Tensor.add()
// CHECK-LABEL: func.func private @torchvision.ops.nms
// CHECK-SAME: xcs.class = "tensor"
func.func private @torchvision.ops.nms()

// the callee's xcs.module decides before its name: a name full of orchestration words...
// CHECK-LABEL: func.func private @llm_chat_prompt
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "module"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["torch.nn.functional"]
func.func private @llm_chat_prompt(tensor<4xf32>) -> tensor<4xf32> attributes {xcs.module = "torch.nn.functional"}
// ... and the reverse
// CHECK-LABEL: func.func private @tensor_matmul
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "module"
func.func private @tensor_matmul(!xcs.str) -> !xcs.str attributes {xcs.module = "openai.resources.chat"}
// a module path matches at a package boundary only; then the name is used
// CHECK-LABEL: func.func private @torchvision.ops.roi_align
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
func.func private @torchvision.ops.roi_align() attributes {xcs.module = "torchvision.ops"}
// CHECK-LABEL: func.func private @fetch_results
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
func.func private @fetch_results() attributes {xcs.module = "openaix"}
// the package itself matches
// CHECK-LABEL: func.func private @sum
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "module"
func.func private @sum(tensor<4xf32>) -> tensor<f32> attributes {xcs.module = "numpy"}

// callers take the callee's class and record the callee symbol
// CHECK-LABEL: func.func @torch_only
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = [], xcs.tensor_ops = ["@llm_chat_prompt", "@torch.chat_completion", "tensor.constant"]
func.func @torch_only(%p: !xcs.str, %q: i32) -> i32 {
  %c = tensor.constant {value = dense<1.0> : tensor<4xf32>} : tensor<4xf32>
  %0 = call @torch.chat_completion(%c) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @llm_chat_prompt(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %q : i32
}
// CHECK-LABEL: func.func @openai_only
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["@openai.embeddings.tensor_create", "@tensor_matmul"], xcs.tensor_ops = []
func.func @openai_only(%p: !xcs.str) -> !xcs.str {
  %0 = call @tensor_matmul(%p) : (!xcs.str) -> !xcs.str
  %1 = call @openai.embeddings.tensor_create(%0) : (!xcs.str) -> tensor<4xf32>
  return %0 : !xcs.str
}
// CHECK-LABEL: func.func @torch_and_openai
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis"
// CHECK-SAME: xcs.orchestration_ops = ["@openai.embeddings.tensor_create"], xcs.tensor_ops = ["@torch.chat_completion"]
func.func @torch_and_openai(%p: !xcs.str) -> !xcs.str {
  %e = call @openai.embeddings.tensor_create(%p) : (!xcs.str) -> tensor<4xf32>
  %0 = call @torch.chat_completion(%e) : (tensor<4xf32>) -> tensor<4xf32>
  return %p : !xcs.str
}
