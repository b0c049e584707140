// Canonicalization of cf.assert and cf.switch on constants (test.constant: the test dialect's
// ConstantLike integer op, so xcs-test-opt), classify on function values, and a switch
// folded after region simplification (where XCS goes further than mlir-opt 22).
// RUN: xcs-test-opt %s --canonicalize | FileCheck %s
// RUN: xcs-test-opt %s --classify | FileCheck %s --check-prefix=CLASSIFY

// An assertion of a constant true is erased, one of false stays (it fails at run time).
// CHECK-LABEL: func.func @assert_constants(
// CHECK-NEXT:    %[[FALSE:.*]] = test.constant {value = false} : i1
// CHECK-NEXT:    cf.assert %[[FALSE]], "always fails"
// CHECK-NEXT:    return
func.func @assert_constants() {
  %t = test.constant {value = true} : i1
  %f = test.constant {value = false} : i1
  cf.assert %t, "always holds"
  cf.assert %f, "always fails"
  return
}

// A switch on a constant is a cf.br to the case of that value (the first one when it
// repeats), or to the default; the other blocks become unreachable and go.
// CHECK-LABEL: func.func @switch_constants(
// CHECK-NEXT:    return %arg1, %arg0, %arg2 : i32, i32, i32
func.func @switch_constants(%a: i32, %b: i32, %c: i32) -> (i32, i32, i32) {
  %seven = test.constant {value = 7 : i32} : i32
  %minus = test.constant {value = -1 : i64} : i64
  %none = test.constant {value = 100 : i32} : i32
  cf.switch %seven : i32, [
    default: ^bad(%a : i32),
    7: ^first(%b : i32),
    7: ^bad(%c : i32)
  ]
^first(%x: i32):
  cf.switch %minus : i64, [
    default: ^bad(%b : i32),
    -1: ^second(%x, %a : i32, i32)
  ]
^second(%y: i32, %z: i32):
  cf.switch %none : i32, [
    default: ^done(%y, %z, %c : i32, i32, i32),
    7: ^bad(%a : i32)
  ]
^bad(%w: i32):
  return %w, %w, %w : i32, i32, i32
^done(%r0: i32, %r1: i32, %r2: i32):
  return %r0, %r1, %r2 : i32, i32, i32
}

// Region simplification drops the unused first argument of ^d, after which case 6 passes
// ^d what the default passes: the canonicalizer iterates and drops the case. (mlir-opt 22
// stops before that step and prints the case; a second --canonicalize drops it too.)
// CHECK-LABEL: func.func @after_region_simplification(
// CHECK-NEXT:    return %arg2 : i32
func.func @after_region_simplification(%k: i32, %a: i32, %b: i32) -> i32 {
  cf.switch %k : i32, [
    default: ^d(%a, %b : i32, i32),
    6: ^d(%b, %b : i32, i32)
  ]
^d(%unused: i32, %w: i32):
  return %w : i32
}

// A function used as a value counts as called: @uses_value takes the tensor class of
// @tensor_fn, which it only references through func.constant; an indirect call by itself
// names no function (@indirect_only has no signal).
// CLASSIFY-LABEL: func.func private @tensor_fn(
// CLASSIFY-SAME:    xcs.class = "tensor"
// CLASSIFY-LABEL: func.func @uses_value(
// CLASSIFY-SAME:    xcs.class = "tensor"
// CLASSIFY-LABEL: func.func @indirect_only(
// CLASSIFY-SAME:    xcs.class = "none"
func.func private @tensor_fn(%x: i32) -> i32 {
  %t = tensor.constant {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>
  %u = tensor.exp %t : tensor<2xf32>
  return %x : i32
}
func.func @uses_value(%x: i32) -> i32 {
  %f = func.constant @tensor_fn : (i32) -> i32
  %r = func.call_indirect %f(%x) : (i32) -> i32
  return %r : i32
}
func.func @indirect_only(%f: (i32) -> i32, %x: i32) -> i32 {
  %r = func.call_indirect %f(%x) : (i32) -> i32
  return %r : i32
}
