// REQUIRES: passes
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s

// Folding to a fixed point; constants uniqued at the top of the entry block; `x * 2 -> x + x`.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT: %[[C3:.*]] = test.constant {value = 3 : i32} : i32
// CHECK-NEXT: %[[S:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %arg0, %[[C3]], %[[S]] : (i32, i32, i32) -> ()
// CHECK-NEXT: return
func.func @fold(%a: i32) {
  %c0 = test.constant {value = 0 : i32} : i32
  %c1 = test.constant {value = 1 : i32} : i32
  %c2 = test.constant {value = 2 : i32} : i32
  %x = test.muli %a, %c1 : i32
  %y = test.addi %c0, %x : i32
  %n = test.negi %y : i32
  %nn = test.negi %n : i32
  %s = test.addi %c1, %c2 : i32
  %t = test.muli %c2, %nn : i32
  test.effect %nn, %s, %t : (i32, i32, i32) -> ()
  return
}
