// CSE: the functions below without test.region/test.graph/test.isolated were checked against
// `mlir-opt --cse` on the same code with arith.addi/muli/constant (same output).
// RUN: xcs-test-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(cse))' | FileCheck %s
// The pass also runs from the module (on every nested function), as `--cse` does.
// RUN: xcs-test-opt %s --allow-unregistered-dialect --cse | FileCheck %s
// RUN: xcs-test-opt %s --allow-unregistered-dialect --cse --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// CHECK-LABEL: func.func @simple
// CHECK-NEXT: %[[X:.*]] = test.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[Y:.*]] = test.addi %arg0, %[[X]] : i32
// CHECK-NEXT: test.effect %[[X]], %[[X]], %[[Y]] : i32
// CHECK-NEXT: return
func.func @simple(%a: i32, %b: i32) {
  %0 = test.addi %a, %b : i32
  %1 = test.addi %a, %b : i32
  %2 = test.addi %a, %0 : i32
  test.effect %0, %1, %2 : i32
  return
}

// Operands of commutative ops match in any order (MLIR's OperationEquivalence); not for
// other ops.
// CHECK-LABEL: func.func @commutative
// CHECK-NEXT: %[[X:.*]] = test.addi %arg0, %arg1 : i32
// CHECK-NEXT: %[[P:.*]] = test.pure %arg0, %arg1 : i32
// CHECK-NEXT: %[[Q:.*]] = test.pure %arg1, %arg0 : i32
// CHECK-NEXT: test.effect %[[X]], %[[X]], %[[P]], %[[Q]] : i32
func.func @commutative(%a: i32, %b: i32) {
  %0 = test.addi %a, %b : i32
  %1 = test.addi %b, %a : i32
  %2 = test.pure %a, %b : i32
  %3 = test.pure %b, %a : i32
  test.effect %0, %1, %2, %3 : i32
  return
}

// Ops differing in attributes or result types stay; equal constants merge.
// CHECK-LABEL: func.func @attributes_and_types
// CHECK-NEXT: %[[C1:.*]] = test.constant {value = 1 : i32} : i32
// CHECK-NEXT: %[[C2:.*]] = test.constant {value = 2 : i32} : i32
// CHECK-NEXT: %[[C64:.*]] = test.constant {value = 1 : i64} : i64
// CHECK-NEXT: %[[P1:.*]] = test.pure %arg0 {k = 1 : i64} : i32
// CHECK-NEXT: %[[P2:.*]] = test.pure %arg0 {k = 2 : i64} : i32
// CHECK-NEXT: %[[P3:.*]] = test.pure %arg0 {k = 1 : i64} : (i32) -> i64
// CHECK-NEXT: test.effect %[[C1]], %[[C1]], %[[C2]], %[[P1]], %[[P1]], %[[P2]] : i32
// CHECK-NEXT: test.effect %[[C64]], %[[P3]] : i64
func.func @attributes_and_types(%a: i32) {
  %c1 = test.constant {value = 1 : i32} : i32
  %c1b = test.constant {value = 1 : i32} : i32
  %c2 = test.constant {value = 2 : i32} : i32
  %c64 = test.constant {value = 1 : i64} : i64
  %p1 = test.pure %a {k = 1 : i64} : i32
  %p1b = test.pure %a {k = 1 : i64} : i32
  %p2 = test.pure %a {k = 2 : i64} : i32
  %p3 = test.pure %a {k = 1 : i64} : (i32) -> i64
  test.effect %c1, %c1b, %c2, %p1, %p1b, %p2 : i32
  test.effect %c64, %p3 : i64
  return
}

// Ops with side effects and unregistered ops (unknown effects) are never merged.
// CHECK-LABEL: func.func @effects
// CHECK-COUNT-2: test.effect %arg0 : i32
// CHECK-COUNT-2: "foo.bar"(%arg0) : (i32) -> i32
// CHECK-NEXT: test.effect %0, %1, %2, %3 : i32
func.func @effects(%a: i32) {
  %0 = test.effect %a : i32
  %1 = test.effect %a : i32
  %2 = "foo.bar"(%a) : (i32) -> i32
  %3 = "foo.bar"(%a) : (i32) -> i32
  test.effect %0, %1, %2, %3 : i32
  return
}

// Replacing one op makes its users equal too; trivially dead ops are erased.
// CHECK-LABEL: func.func @chain_and_dead
// CHECK-NEXT: %[[X:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: %[[Y:.*]] = test.muli %[[X]], %[[X]] : i32
// CHECK-NEXT: test.effect %[[Y]], %[[Y]] : i32
// CHECK-NEXT: return
// CHECK-NOT: test.negi
func.func @chain_and_dead(%a: i32) {
  %0 = test.addi %a, %a : i32
  %1 = test.muli %0, %0 : i32
  %2 = test.addi %a, %a : i32
  %3 = test.muli %2, %2 : i32
  %dead = test.negi %a : i32
  test.effect %1, %3 : i32
  return
}

// Only dominating blocks provide values: siblings do not, the join block sees the entry's.
// CHECK-LABEL: func.func @dominance
// CHECK-NEXT: %[[TOP:.*]] = test.muli %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[TOP]] : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[A1:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[A1]], %[[TOP]] : i32
// CHECK: ^bb2:
// CHECK-NEXT: %[[A2:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[A2]], %[[TOP]] : i32
// CHECK: ^bb3:
// CHECK-NEXT: %[[A3:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[A3]], %[[TOP]] : i32
func.func @dominance(%a: i32, %c: i1) {
  %top = test.muli %a, %a : i32
  test.effect %top : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %0 = test.addi %a, %a : i32
  %1 = test.muli %a, %a : i32
  test.effect %0, %1 : i32
  cf.br ^bb3
^bb2:
  %2 = test.addi %a, %a : i32
  %3 = test.muli %a, %a : i32
  test.effect %2, %3 : i32
  cf.br ^bb3
^bb3:
  %4 = test.addi %a, %a : i32
  %5 = test.muli %a, %a : i32
  test.effect %4, %5 : i32
  return
}

// A loop header dominated by the entry block reuses the entry's value. An unused op is
// erased before it can stand for the others (as in MLIR).
// CHECK-LABEL: func.func @loop
// CHECK-NEXT: %[[X:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[X]] : i32
// CHECK-NEXT: cf.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: test.effect %[[X]] : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[Z:.*]] = test.muli %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[Z]] : i32
func.func @loop(%a: i32, %c: i1) {
  %0 = test.addi %a, %a : i32
  test.effect %0 : i32
  cf.br ^bb1
^bb1:
  %1 = test.addi %a, %a : i32
  test.effect %1 : i32
  %unused = test.muli %a, %a : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb2:
  %2 = test.muli %a, %a : i32
  test.effect %2 : i32
  return
}

// Nested regions see the values of the enclosing scope, not the other way round.
// CHECK-LABEL: func.func @nested_regions
// CHECK-NEXT: %[[OUT:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: test.region : () -> () {
// CHECK-NEXT: %[[IN:.*]] = test.muli %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[OUT]], %[[IN]] : i32
// CHECK-NEXT: test.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[AFTER:.*]] = test.muli %arg0, %arg0 : i32
// CHECK-NEXT: test.effect %[[OUT]], %[[AFTER]] : i32
func.func @nested_regions(%a: i32) {
  %0 = test.addi %a, %a : i32
  test.region : () -> () {
    %1 = test.addi %a, %a : i32
    %2 = test.muli %a, %a : i32
    test.effect %1, %2 : i32
    test.yield
  }
  %3 = test.muli %a, %a : i32
  test.effect %0, %3 : i32
  return
}

// Ops with regions merge when the regions are equivalent and hold no side effects.
// CHECK-LABEL: func.func @equivalent_regions
// CHECK-NEXT: %[[R1:.*]] = test.region %arg0 : i32 {
// CHECK: test.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[R3:.*]] = test.region %arg0 : i32 {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32):
// CHECK-NEXT: %[[C2:.*]] = test.constant {value = 2 : i32} : i32
// CHECK: test.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[E1:.*]] = test.region %arg0 : i32 {
// CHECK: test.effect
// CHECK: %[[E2:.*]] = test.region %arg0 : i32 {
// CHECK: test.effect
// CHECK: test.effect %[[R1]], %[[R1]], %[[R3]], %[[E1]], %[[E2]] : i32
func.func @equivalent_regions(%a: i32) {
  %r1 = test.region %a : i32 {
  ^bb0(%x: i32):
    %c = test.constant {value = 1 : i32} : i32
    %y = test.addi %x, %c : i32
    test.yield %y : i32
  }
  %r2 = test.region %a : i32 {
  ^bb0(%x: i32):
    %c = test.constant {value = 1 : i32} : i32
    %y = test.addi %x, %c : i32
    test.yield %y : i32
  }
  %r3 = test.region %a : i32 {
  ^bb0(%x: i32):
    %c = test.constant {value = 2 : i32} : i32
    %y = test.addi %x, %c : i32
    test.yield %y : i32
  }
  %e1 = test.region %a : i32 {
  ^bb0(%x: i32):
    test.effect %x : i32
    test.yield %x : i32
  }
  %e2 = test.region %a : i32 {
  ^bb0(%x: i32):
    test.effect %x : i32
    test.yield %x : i32
  }
  test.effect %r1, %r2, %r3, %e1, %e2 : i32
  return
}

// An isolated-from-above op starts a fresh scope: its constant is not the outer one.
// CHECK-LABEL: func.func @isolated
// CHECK-NEXT: %[[C:.*]] = test.constant {value = 1 : i32} : i32
// CHECK-NEXT: test.isolated : () -> () {
// CHECK-NEXT: %[[I:.*]] = test.constant {value = 1 : i32} : i32
// CHECK-NEXT: test.effect %[[I]], %[[I]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: test.effect %[[C]], %[[C]] : i32
func.func @isolated() {
  %c = test.constant {value = 1 : i32} : i32
  test.isolated : () -> () {
    %i = test.constant {value = 1 : i32} : i32
    %j = test.constant {value = 1 : i32} : i32
    test.effect %i, %j : i32
  }
  %d = test.constant {value = 1 : i32} : i32
  test.effect %c, %d : i32
  return
}

// Graph regions: a use before the definition is rewired too.
// CHECK-LABEL: func.func @graph
// CHECK-NEXT: test.graph : () -> () {
// CHECK-NEXT: test.effect %[[X:.*]], %[[X]] : i32
// CHECK-NEXT: %[[X]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: }
func.func @graph(%a: i32) {
  test.graph : () -> () {
    test.effect %0, %1 : i32
    %0 = test.addi %a, %a : i32
    %1 = test.addi %a, %a : i32
  }
  return
}

// The kept op's location stays, unless it is unknown: then it takes the erased one's.
// LOC-LABEL: func.func @locations
// LOC-NEXT: test.addi %arg0, %arg0 : i32 loc("x.py":1:2)
// LOC-NEXT: test.muli %arg0, %arg0 : i32 loc("x.py":3:4)
// LOC-NEXT: test.effect
func.func @locations(%a: i32) {
  %0 = test.addi %a, %a : i32 loc(unknown)
  %1 = test.addi %a, %a : i32 loc("x.py":1:2)
  %2 = test.muli %a, %a : i32 loc("x.py":3:4)
  %3 = test.muli %a, %a : i32 loc("x.py":5:6)
  test.effect %0, %1, %2, %3 : i32
  return
}
