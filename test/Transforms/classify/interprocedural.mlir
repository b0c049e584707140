// classify: calls to functions of the module take the callee's class, computed bottom-up
// over the strongly connected components of the call graph; a recursive cycle is classified
// as a whole (every function of it gets the union of the cycle's signals). Each call adds the
// callee symbol to the sets of the callee's sides. The functions are listed callers first, so
// nothing depends on the order in the file.
// RUN: xcs-opt %s --classify | FileCheck %s
// RUN: xcs-opt %s --classify --classify | FileCheck %s

// ---- a chain: @chain_top -> @chain_mid -> @chain_leaf -> @openai.chat.completions.create
// CHECK-LABEL: func.func @chain_top
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis", xcs.orchestration_ops = ["@chain_mid"], xcs.tensor_ops = []
func.func @chain_top(%p: !xcs.str) -> !xcs.str {
  %0 = call @chain_mid(%p) : (!xcs.str) -> !xcs.str
  return %0 : !xcs.str
}
// CHECK-LABEL: func.func @chain_mid
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis", xcs.orchestration_ops = ["@chain_leaf"], xcs.tensor_ops = []
func.func @chain_mid(%p: !xcs.str) -> !xcs.str {
  %0 = call @chain_leaf(%p) : (!xcs.str) -> !xcs.str
  return %0 : !xcs.str
}
// CHECK-LABEL: func.func @chain_leaf
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis", xcs.orchestration_ops = ["@openai.chat.completions.create"], xcs.tensor_ops = []
func.func @chain_leaf(%p: !xcs.str) -> !xcs.str {
  %0 = call @openai.chat.completions.create(%p) : (!xcs.str) -> !xcs.str
  return %0 : !xcs.str
}
// an external declaration with xcs.module
// CHECK-LABEL: func.func private @openai.chat.completions.create
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "module"
func.func private @openai.chat.completions.create(!xcs.str) -> !xcs.str attributes {xcs.module = "openai.resources.chat.completions"}

// ---- a diamond: @top -> @left (tensor), @right (orchestration) -> both -> @bottom (none)
// CHECK-LABEL: func.func @diamond_top
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@diamond_right"], xcs.tensor_ops = ["@diamond_left"]
func.func @diamond_top(%x: i32) -> i32 {
  %0 = call @diamond_left(%x) : (i32) -> i32
  %1 = call @diamond_right(%0) : (i32) -> i32
  return %1 : i32
}
// CHECK-LABEL: func.func @diamond_left
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["tensor.constant"]
func.func @diamond_left(%x: i32) -> i32 {
  %c = tensor.constant {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %0 = call @diamond_bottom(%x) : (i32) -> i32
  return %0 : i32
}
// CHECK-LABEL: func.func @diamond_right
// CHECK-SAME: xcs.class = "orchestration", xcs.class_source = "analysis", xcs.orchestration_ops = ["xcs.llm"], xcs.tensor_ops = []
func.func @diamond_right(%x: i32) -> i32 {
  %s = xcs.str_const {value = "hi"} : !xcs.str
  %r = xcs.llm %s {model = "m", provider = "echo"} : !xcs.str
  %0 = call @diamond_bottom(%x) : (i32) -> i32
  return %0 : i32
}
// CHECK-LABEL: func.func @diamond_bottom
// CHECK-SAME: xcs.class = "none", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = []
func.func @diamond_bottom(%x: i32) -> i32 {
  return %x : i32
}

// ---- mutual recursion: @even <-> @odd, @odd uses a tensor op, @even an LLM: both hybrid
// CHECK-LABEL: func.func @even
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@odd", "xcs.llm"], xcs.tensor_ops = ["@odd"]
func.func @even(%n: i32, %p: !xcs.str) -> i32 {
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  %0 = call @odd(%n, %r) : (i32, !xcs.str) -> i32
  return %0 : i32
}
// CHECK-LABEL: func.func @odd
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@even"], xcs.tensor_ops = ["@even", "tensor.constant"]
func.func @odd(%n: i32, %p: !xcs.str) -> i32 {
  %c = tensor.constant {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %0 = call @even(%n, %p) : (i32, !xcs.str) -> i32
  return %0 : i32
}
// a caller of the cycle is hybrid too
// CHECK-LABEL: func.func @calls_cycle
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@even"], xcs.tensor_ops = ["@even"]
func.func @calls_cycle(%n: i32, %p: !xcs.str) -> i32 {
  %0 = call @even(%n, %p) : (i32, !xcs.str) -> i32
  return %0 : i32
}

// ---- a three-function cycle whose only signal is deep inside: all tensor
// CHECK-LABEL: func.func @ring_a
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["@ring_b"]
func.func @ring_a(%n: i32) -> i32 {
  %0 = call @ring_b(%n) : (i32) -> i32
  return %0 : i32
}
// CHECK-LABEL: func.func @ring_b
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["@ring_c"]
func.func @ring_b(%n: i32) -> i32 {
  %0 = call @ring_c(%n) : (i32) -> i32
  return %0 : i32
}
// CHECK-LABEL: func.func @ring_c
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["@jax.numpy.sum", "@ring_a"]
func.func @ring_c(%n: i32) -> i32 {
  %0 = call @ring_a(%n) : (i32) -> i32
  call @jax.numpy.sum() : () -> ()
  return %0 : i32
}
// an external declaration without xcs.module, recognized by its name
// CHECK-LABEL: func.func private @jax.numpy.sum
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["@jax.numpy.sum"]
func.func private @jax.numpy.sum()

// ---- recursion with a hybrid leaf: a self-recursive tensor function calling an unknown
// external declaration is hybrid, and so is its caller
// CHECK-LABEL: func.func @walk_caller
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@walk"], xcs.tensor_ops = ["@walk"]
func.func @walk_caller(%x: i32) -> i32 {
  %0 = call @walk(%x) : (i32) -> i32
  return %0 : i32
}
// CHECK-LABEL: func.func @walk
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@log_value", "@walk"], xcs.tensor_ops = ["@log_value", "@walk", "tensor.constant"]
func.func @walk(%x: i32) -> i32 {
  %c = tensor.constant {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %0 = call @walk(%x) : (i32) -> i32
  %1 = call @log_value(%0) : (i32) -> i32
  return %1 : i32
}
// an external declaration with neither xcs.module nor a recognizable name
// CHECK-LABEL: func.func private @log_value
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "unknown", xcs.orchestration_ops = ["unknown"], xcs.tensor_ops = ["unknown"]
func.func private @log_value(i32) -> i32

// ---- self recursion without any signal stays none
// CHECK-LABEL: func.func @spin
// CHECK-SAME: xcs.class = "none", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = []
func.func @spin(%x: i32) -> i32 {
  %0 = call @spin(%x) : (i32) -> i32
  return %0 : i32
}

// ---- calls nested in regions (xcs.vmap) count
// CHECK-LABEL: func.func @in_vmap
// CHECK-SAME: xcs.class = "hybrid", xcs.class_source = "analysis", xcs.orchestration_ops = ["@chain_leaf"], xcs.tensor_ops = ["tensor<3x2xf32>"]
func.func @in_vmap(%x: tensor<3x2xf32>, %p: !xcs.str) -> tensor<3x2xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %0 = func.call @chain_leaf(%p) : (!xcs.str) -> !xcs.str
    xcs.yield %a : tensor<2xf32>
  }
  return %r : tensor<3x2xf32>
}

// ---- a nested module is its own symbol table
// CHECK-LABEL: module @inner
// CHECK: func.func @inner_f
// CHECK-SAME: xcs.class = "tensor", xcs.class_source = "analysis", xcs.orchestration_ops = [], xcs.tensor_ops = ["@torch.relu"]
// CHECK: func.func private @torch.relu
// CHECK-SAME: xcs.class = "tensor"
module @inner {
  func.func @inner_f() {
    call @torch.relu() : () -> ()
    return
  }
  func.func private @torch.relu()
}
