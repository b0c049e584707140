// Maps whose body is not tensor-only become xcs.parallel_map with the same operands,
// attributes and region (the interpreter runs the elements on a thread pool). Calls are judged
// by the callee's xcs.class (written by `classify`; here by hand): "tensor" is tensor-only,
// "orchestration" and "hybrid" are not; without a class (or "none"), a callee whose body is made
// of tensor ops is tensor-only. A tensor-only body that cannot be batched (a callee classified
// "tensor" whose body is not tensor ops, an external declaration) also becomes a parallel map.
// RUN: xcs-opt %s --vmap-batch | FileCheck %s
// RUN: xcs-opt %s --vmap-batch='max-concurrency=4' | FileCheck %s --check-prefix=CONC
// RUN: xcs-opt %s --vmap-batch=remarks --verify-diagnostics -o /dev/null

// CHECK-LABEL: func.func @llm_per_prompt
// CHECK-NEXT: %[[R:.*]] = xcs.parallel_map %arg0 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<3x!xcs.str> {
// CHECK-NEXT: ^bb0(%[[P:.*]]: !xcs.str):
// CHECK-NEXT: %[[A:.*]] = xcs.llm %[[P]] {model = "m", provider = "echo"} : !xcs.str
// CHECK-NEXT: xcs.yield %[[A]] : !xcs.str
// CHECK-NEXT: }
// CONC-LABEL: func.func @llm_per_prompt
// CONC-NEXT: xcs.parallel_map %arg0 {in_axes = array<i64: 0>, max_concurrency = 4 : i64, out_axes = array<i64: 0>}
func.func @llm_per_prompt(%p: tensor<3x!xcs.str>) -> tensor<3x!xcs.str> {
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the body is not tensor-only: it contains 'xcs.llm'}}
  %r = xcs.vmap %p {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x!xcs.str>) -> tensor<3x!xcs.str> {
  ^bb0(%e: !xcs.str):
    %a = xcs.llm %e {model = "m", provider = "echo"} : !xcs.str
    xcs.yield %a : !xcs.str
  }
  return %r : tensor<3x!xcs.str>
}

// A hybrid body (tensor math feeding a prompt) keeps its tensor ops inside the parallel map;
// a tensor-only map nested in it is batched first, inside the element.
// CHECK-LABEL: func.func @hybrid_body
// CHECK: xcs.parallel_map %arg0 {in_axes = array<i64: 1>, out_axes = array<i64: 0, -1>}
// CHECK-NOT: xcs.vmap
// CHECK: tensor.reshape %{{.*}} : (tensor<2xf32>) -> tensor<2x1xf32>
// CHECK: tensor.mul
// CHECK: xcs.format
// CHECK: xcs.llm
// CHECK: xcs.yield
func.func @hybrid_body(%x: tensor<2x4xf32>) -> (tensor<4x!xcs.str>, tensor<2x2xf32>) {
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the body is not tensor-only: it contains 'xcs.format'}}
  %r:2 = xcs.vmap %x {in_axes = array<i64: 1>, out_axes = array<i64: 0, -1>} : (tensor<2x4xf32>) -> (tensor<4x!xcs.str>, tensor<2x2xf32>) {
  ^bb0(%c: tensor<2xf32>):
    // expected-remark@+1 {{'xcs.vmap' op batched}}
    %o = xcs.vmap %c {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x2xf32> {
    ^bb0(%s: tensor<f32>):
      %m = tensor.mul %s, %c : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
      xcs.yield %m : tensor<2xf32>
    }
    %t = xcs.format %o {template = "outer product {}"} : (tensor<2x2xf32>) -> !xcs.str
    %a = xcs.llm %t {model = "m", provider = "echo"} : !xcs.str
    %k = tensor.constant {value = dense<1.0> : tensor<2x2xf32>} : tensor<2x2xf32>
    xcs.yield %a, %k : (!xcs.str, tensor<2x2xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<4x!xcs.str>, tensor<2x2xf32>
}

// An orchestration map around a tensor-only one: the inner one is batched, the outer not.
// CHECK-LABEL: func.func @tensor_inside_orchestration
// CHECK: xcs.parallel_map
// CHECK-NOT: xcs.vmap
// CHECK: tensor.exp %{{.*}} : tensor<3x2xf32>
func.func @tensor_inside_orchestration(%x: tensor<2x3x2xf32>, %p: tensor<2x!xcs.str>) -> tensor<2x3x2xf32> {
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the body is not tensor-only: it contains 'xcs.llm'}}
  %r = xcs.vmap %x, %p {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<2x3x2xf32>, tensor<2x!xcs.str>) -> tensor<2x3x2xf32> {
  ^bb0(%m: tensor<3x2xf32>, %q: !xcs.str):
    %a = xcs.llm %q {model = "m", provider = "echo"} : !xcs.str
    // expected-remark@+1 {{'xcs.vmap' op batched}}
    %i = xcs.vmap %m {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
    ^bb0(%row: tensor<2xf32>):
      %e = tensor.exp %row : tensor<2xf32>
      xcs.yield %e : tensor<2xf32>
    }
    xcs.yield %i : tensor<3x2xf32>
  }
  return %r : tensor<2x3x2xf32>
}

// ---- calls and classification

func.func private @tensor_fn(%v: tensor<3xf32>) -> tensor<3xf32> attributes {xcs.class = "tensor", xcs.class_source = "analysis"} {
  %r = tensor.tanh %v : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @none_fn(%v: tensor<3xf32>) -> tensor<3xf32> attributes {xcs.class = "none"} {
  %r = tensor.neg %v : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @plain_fn(%v: tensor<3xf32>) -> tensor<3xf32> {
  %r = tensor.abs %v : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @orch_fn(%v: tensor<3xf32>) -> tensor<3xf32> attributes {xcs.class = "orchestration"} {
  %r = tensor.abs %v : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @hybrid_fn(%v: tensor<3xf32>) -> tensor<3xf32> attributes {xcs.class = "hybrid"} {
  %s = xcs.str_const {value = "hi"} : !xcs.str
  %a = xcs.llm %s {model = "m", provider = "echo"} : !xcs.str
  return %v : tensor<3xf32>
}
func.func private @llm_fn(%v: tensor<3xf32>) -> tensor<3xf32> {
  %s = xcs.str_const {value = "hi"} : !xcs.str
  %a = xcs.llm %s {model = "m", provider = "echo"} : !xcs.str
  return %v : tensor<3xf32>
}
// Classified "tensor" (say, by an explicit marker), but it calls an LLM.
func.func private @marked_fn(%v: tensor<3xf32>) -> tensor<3xf32> attributes {xcs.class = "tensor", xcs.class_source = "marker"} {
  %s = xcs.str_const {value = "hi"} : !xcs.str
  %a = xcs.llm %s {model = "m", provider = "echo"} : !xcs.str
  return %v : tensor<3xf32>
}
func.func private @torch.tanh(tensor<3xf32>) -> tensor<3xf32> attributes {xcs.class = "tensor", xcs.module = "torch"}

// CHECK-LABEL: func.func @calls_by_class
// CHECK-NEXT: call @tensor_fn_batched_2_b
// CHECK-NEXT: call @none_fn_batched_2_b
// CHECK-NEXT: call @plain_fn_batched_2_b
// CHECK-NEXT: xcs.parallel_map
// CHECK: call @orch_fn
// CHECK: xcs.parallel_map
// CHECK: call @hybrid_fn
// CHECK: xcs.parallel_map
// CHECK: call @llm_fn
// CHECK: xcs.parallel_map
// CHECK: call @marked_fn
// CHECK: xcs.parallel_map
// CHECK: call @marked_fn
func.func @calls_by_class(%x: tensor<2x3xf32>, %w: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %a = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @tensor_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %b = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @none_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op batched}}
  %c = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @plain_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the body is not tensor-only: it calls @orch_fn, classified "orchestration"}}
  %d = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @orch_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the body is not tensor-only: it calls @hybrid_fn, classified "hybrid"}}
  %f = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @hybrid_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the body is not tensor-only: it calls @llm_fn, which is neither classified "tensor" nor a function of tensor ops}}
  %g = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @llm_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: in @marked_fn: 'xcs.str_const' is not a tensor op}}
  %h = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @marked_fn(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  // An unbatched call is computed once only if that cannot be observed: not for @marked_fn.
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: it calls @marked_fn, which is not a function of tensor ops}}
  %i = xcs.vmap %x, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>, %v: tensor<3xf32>):
    %y = func.call @marked_fn(%v) : (tensor<3xf32>) -> tensor<3xf32>
    %z = tensor.add %e, %y : tensor<3xf32>
    xcs.yield %z : tensor<3xf32>
  }
  return %a, %b, %c, %d, %f, %g, %h, %i : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// An external function classified "tensor" has no body to batch.
// CHECK-LABEL: func.func @call_external
// CHECK-NEXT: xcs.parallel_map
// CHECK: call @torch.tanh
func.func @call_external(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-remark@+1 {{'xcs.vmap' op became 'xcs.parallel_map': the tensor-only body cannot be batched: @torch.tanh is an external declaration or has more than one block}}
  %j = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32> {
  ^bb0(%e: tensor<3xf32>):
    %y = func.call @torch.tanh(%e) : (tensor<3xf32>) -> tensor<3xf32>
    xcs.yield %y : tensor<3xf32>
  }
  return %j : tensor<2x3xf32>
}

