// Nothing is fused across an op outside the tensor dialect (orchestration ops, calls,
// unregistered ops), across blocks, or into an existing tensor.fused.
// RUN: xcs-opt %s --allow-unregistered-dialect --fuse | FileCheck %s

// The xcs.llm call splits the chain: the ops before it and the ops after it are separate
// regions, and the cheap %s (used on both sides) is not copied across it.
// CHECK-LABEL: func.func @across_llm
// CHECK-NEXT: %[[F:.*]]:2 = tensor.fused %arg0 : tensor<8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: %[[S:.*]] = tensor.add
// CHECK-NEXT: %[[A:.*]] = tensor.exp %[[S]]
// CHECK-NEXT: tensor.yield %[[S]], %[[A]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = xcs.llm
// CHECK-NEXT: %[[G:.*]] = tensor.fused %[[F]]#0, %[[F]]#1 : tensor<8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.neg
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]], %[[R]]
func.func @across_llm(%x: tensor<8xf32>, %p: !xcs.str) -> (tensor<8xf32>, !xcs.str) {
  %s = tensor.add %x, %x : tensor<8xf32>
  %a = tensor.exp %s : tensor<8xf32>
  %r = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  %b = tensor.mul %s, %a : tensor<8xf32>
  %c = tensor.neg %b : tensor<8xf32>
  return %c, %r : tensor<8xf32>, !xcs.str
}

// CHECK-LABEL: func.func private @helper
// CHECK-NEXT: tensor.fused %arg0
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.relu
// CHECK-NEXT: tensor.abs
func.func private @helper(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tensor.relu %x : tensor<8xf32>
  %1 = tensor.abs %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// Calls split the same way; the callee's body is fused on its own.
// CHECK-LABEL: func.func @across_call
// CHECK-NEXT: %[[N:.*]] = tensor.neg %arg0
// CHECK-NEXT: %[[C:.*]] = call @helper(%arg0)
// CHECK-NEXT: tensor.add %[[N]], %[[C]]
// CHECK-NEXT: return
func.func @across_call(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tensor.neg %x : tensor<8xf32>
  %1 = call @helper(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = tensor.add %0, %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// An unregistered op splits too (its effects are unknown).
// CHECK-LABEL: func.func @across_unregistered
// CHECK-NEXT: tensor.neg
// CHECK-NEXT: "foo.barrier"
// CHECK-NEXT: tensor.abs
// CHECK-NEXT: return
func.func @across_unregistered(%x: tensor<8xi32>) -> tensor<8xi32> {
  %0 = tensor.neg %x : tensor<8xi32>
  "foo.barrier"() : () -> ()
  %1 = tensor.abs %0 : tensor<8xi32>
  return %1 : tensor<8xi32>
}

// Ops of different blocks are not fused together; each block's chain is.
// CHECK-LABEL: func.func @blocks
// CHECK-NEXT: %[[F:.*]]:2 = tensor.fused %arg0 : tensor<8xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: %[[N:.*]] = tensor.neg
// CHECK-NEXT: %[[A:.*]] = tensor.abs %[[N]]
// CHECK-NEXT: tensor.yield %[[N]], %[[A]]
// CHECK-NEXT: }
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2(%[[F]]#1 : tensor<8xi32>)
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[G:.*]] = tensor.fused %[[F]]#1, %arg0, %[[F]]#0 : tensor<8xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.sub
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^bb2(%[[G]] : tensor<8xi32>)
func.func @blocks(%x: tensor<8xi32>, %c: i1) -> tensor<8xi32> {
  %0 = tensor.neg %x : tensor<8xi32>
  %1 = tensor.abs %0 : tensor<8xi32>
  cf.cond_br %c, ^bb1, ^bb2(%1 : tensor<8xi32>)
^bb1:
  %2 = tensor.mul %1, %x : tensor<8xi32>
  %3 = tensor.sub %2, %0 : tensor<8xi32>
  cf.br ^bb2(%3 : tensor<8xi32>)
^bb2(%r: tensor<8xi32>):
  return %r : tensor<8xi32>
}

// The body of an xcs.vmap is a block of its own: its chain fuses inside it.
// CHECK-LABEL: func.func @vmap_body
// CHECK-NEXT: xcs.vmap %arg0
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[F:.*]] = tensor.fused %[[E]] : tensor<8xf32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.exp
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: xcs.yield %[[F]]
func.func @vmap_body(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<3x8xf32>) -> tensor<3x8xf32> {
  ^bb0(%e: tensor<8xf32>):
    %0 = tensor.exp %e : tensor<8xf32>
    %1 = tensor.add %0, %e : tensor<8xf32>
    xcs.yield %1 : tensor<8xf32>
  }
  return %r : tensor<3x8xf32>
}

// An existing tensor.fused is left alone, and ops around it still fuse.
// CHECK-LABEL: func.func @existing
// CHECK-NEXT: %[[E:.*]] = tensor.fused %arg0 : tensor<4xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.add
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[F:.*]] = tensor.fused %[[E]], %arg0 : tensor<4xi32> {
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: tensor.mul
// CHECK-NEXT: tensor.neg
// CHECK-NEXT: tensor.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @existing(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tensor.fused %x : tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    %f0 = tensor.add %a, %a : tensor<4xi32>
    tensor.yield %f0 : tensor<4xi32>
  }
  %1 = tensor.mul %0, %x : tensor<4xi32>
  %2 = tensor.neg %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}
