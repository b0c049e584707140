// classify: the seed's deferred "user-extensible keyword sets" (seed 000 §9.1) as pass
// options. Each list is added after the seed's own entries (which stay): module prefixes
// (with or without the trailing dot) apply to xcs.module values and to names, keywords to
// names (lowercased substrings). A user may add a word the seed excluded (`model`): the
// user's choice wins over the seed's caution.
// RUN: xcs-opt %s --allow-unregistered-dialect --classify | FileCheck %s --check-prefix=SEED
// RUN: xcs-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(classify{tensor-prefixes=mylib.nn,mylib.ops. orchestration-prefixes=agents orchestration-keywords=agent,model tensor-keywords=conv})' | FileCheck %s --check-prefix=EXT
// RUN: xcs-opt %s --allow-unregistered-dialect '--classify=tensor-prefixes=mylib.nn,mylib.ops. orchestration-prefixes=agents orchestration-keywords=agent,model tensor-keywords=conv' | FileCheck %s --check-prefix=EXT
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(classify{tensor-prefix=x})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// BADOPT: failed to add `classify` with options `tensor-prefix=x`: no such option tensor-prefix

// own module under an added prefix
// SEED-LABEL: func.func private @layer_norm_impl
// SEED-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
// EXT-LABEL: func.func private @layer_norm_impl
// EXT-SAME: xcs.class = "tensor", xcs.class_source = "module"
func.func private @layer_norm_impl() attributes {xcs.module = "mylib.nn.layers"}
// the package of a prefix written with its dot
// EXT-LABEL: func.func private @fast_gemm
// EXT-SAME: xcs.class = "tensor", xcs.class_source = "module"
func.func private @fast_gemm() attributes {xcs.module = "mylib.ops"}
// a name under an added orchestration prefix: the prefix wins over the tensor keyword
// SEED-LABEL: func.func private @agents.plan_tensor
// SEED-SAME: xcs.class = "tensor", xcs.class_source = "analysis"
// EXT-LABEL: func.func private @agents.plan_tensor
// EXT-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
func.func private @agents.plan_tensor()
// added keywords
// SEED-LABEL: func.func private @run_agent
// SEED-SAME: xcs.class = "hybrid", xcs.class_source = "unknown"
// EXT-LABEL: func.func private @run_agent
// EXT-SAME: xcs.class = "orchestration", xcs.class_source = "analysis"
func.func private @run_agent()
// SEED-LABEL: func.func @uses_conv
// SEED-SAME: xcs.class = "none"
// EXT-LABEL: func.func @uses_conv
// EXT-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["mylib.Conv2D"]
func.func @uses_conv() {
  "mylib.Conv2D"() : () -> ()
  return
}
// an excluded word, added by the user
// SEED-LABEL: func.func @uses_model
// SEED-SAME: xcs.class = "none"
// EXT-LABEL: func.func @uses_model
// EXT-SAME: xcs.class = "orchestration", xcs.class_source = "analysis", xcs.orchestration_ops = ["mylib.model"], xcs.tensor_ops = []
func.func @uses_model() {
  "mylib.model"() : () -> ()
  return
}
// the seed's tables are still there
// EXT-LABEL: func.func private @torch.relu
// EXT-SAME: xcs.class = "tensor"
func.func private @torch.relu()
