// REQUIRES: passes
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(cse))' | FileCheck %s

// CHECK-LABEL: func.func @simple
// CHECK-NEXT: %[[X:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[X]], %[[X]] : (i32, i32) -> ()
func.func @simple(%a: i32) {
  %0 = test.addi %a, %a : i32
  %1 = test.addi %a, %a : i32
  test.effect %0, %1 : (i32, i32) -> ()
  return
}

// Ops with side effects and unregistered ops are never merged.
// CHECK-LABEL: func.func @effects
// CHECK-COUNT-2: test.effect %arg0
// CHECK-COUNT-2: "foo.bar"(%arg0)
func.func @effects(%a: i32) {
  %0 = test.effect %a : i32
  %1 = test.effect %a : i32
  %2 = "foo.bar"(%a) : (i32) -> i32
  %3 = "foo.bar"(%a) : (i32) -> i32
  test.effect %0, %1, %2, %3 : (i32, i32, i32, i32) -> ()
  return
}

// Sibling blocks do not dominate each other.
// CHECK-LABEL: func.func @siblings
// CHECK-COUNT-3: test.addi %arg0, %arg0
func.func @siblings(%a: i32, %c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %0 = test.addi %a, %a : i32
  test.effect %0 : i32
  cf.br ^bb3
^bb2:
  %1 = test.addi %a, %a : i32
  test.effect %1 : i32
  cf.br ^bb3
^bb3:
  %2 = test.addi %a, %a : i32
  test.effect %2 : i32
  return
}
