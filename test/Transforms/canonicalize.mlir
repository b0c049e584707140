// The canonicalizer: folders, trait folds, patterns, constant uniquing/hoisting, region
// simplification and the cf patterns. The functions using only test.constant/addi/muli,
// test.effect and cf were checked against `mlir-opt --canonicalize` on the same code with
// arith ops (same output, except that mlir-opt turns a cond_br to one block with different
// arguments into arith.select, which we do not have).
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' | FileCheck %s
// RUN: xcs-test-opt %s --canonicalize | FileCheck %s
// RUN: xcs-test-opt %s --canonicalize=top-down=false | FileCheck %s
// RUN: xcs-test-opt %s --canonicalize=max-iterations=1 | FileCheck %s --check-prefix=ONE
// RUN: xcs-test-opt %s --canonicalize=region-simplify=disabled | FileCheck %s --check-prefix=NOREG
// RUN: xcs-test-opt %s --canonicalize='disable-patterns=test-mul-by-two' | FileCheck %s --check-prefix=NOPAT
// RUN: xcs-test-opt %s --canonicalize='enable-patterns=cf-does-not-exist' | FileCheck %s --check-prefix=NOPAT
// RUN: not xcs-test-opt %s --canonicalize='max-iterations=1 test-convergence=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONV
// RUN: xcs-test-opt %s --canonicalize --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// Constant folding, x + 0, x * 1, x * 0 (to the zero operand), and commutative ops get
// their constant operand on the right; new constants are uniqued at the top of the entry
// block.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT: %[[C0:.*]] = test.constant {value = 0 : i32} : i32
// CHECK-NEXT: %[[C2:.*]] = test.constant {value = 2 : i32} : i32
// CHECK-NEXT: %[[C3:.*]] = test.constant {value = 3 : i32} : i32
// CHECK-NEXT: %[[W:.*]] = test.addi %arg0, %[[C2]] : i32
// CHECK-NEXT: test.effect %arg0, %[[C3]], %[[C0]], %[[W]] : i32
// CHECK-NEXT: return
// CHECK-NOT: test.muli
func.func @fold(%a: i32) {
  %c0 = test.constant {value = 0 : i32} : i32
  %c1 = test.constant {value = 1 : i32} : i32
  %c2 = test.constant {value = 2 : i32} : i32
  %x = test.muli %a, %c1 : i32
  %y = test.addi %c0, %x : i32
  %s = test.addi %c1, %c2 : i32
  %z = test.muli %a, %c0 : i32
  %w = test.addi %c2, %a : i32
  test.effect %y, %s, %z, %w : i32
  return
}

// A chain folds to a fixed point: ((1 + 1) + 2) * 4 + 1 = 17.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: %[[C:.*]] = test.constant {value = 17 : i32} : i32
// CHECK-NEXT: return %[[C]] : i32
func.func @chain(%a: i32) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.addi %c1, %c1 : i32
  %1 = test.addi %0, %0 : i32
  %2 = test.muli %1, %1 : i32
  %3 = test.addi %2, %c1 : i32
  return %3 : i32
}

// Involutions fold (negi(negi(x)) = x); negi of a constant folds; an unused op dies.
// CHECK-LABEL: func.func @involution
// CHECK-NEXT: %[[M5:.*]] = test.constant {value = -5 : i32} : i32
// CHECK-NEXT: %[[N:.*]] = test.negi %arg0 : i32
// CHECK-NEXT: test.effect %arg0, %[[N]], %[[M5]] : i32
// CHECK-NEXT: return
func.func @involution(%a: i32) {
  %c5 = test.constant {value = 5 : i32} : i32
  %n = test.negi %a : i32
  %nn = test.negi %n : i32
  %nnn = test.negi %nn : i32
  %m = test.negi %c5 : i32
  %dead = test.muli %a, %a : i32
  test.effect %nn, %nnn, %m : i32
  return
}

// The pattern `x * 2 -> x + x` (disabled by name with disable-patterns, and by
// enable-patterns naming other patterns).
// CHECK-LABEL: func.func @mul_by_two
// CHECK-NEXT: %[[S:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %[[S]] : i32
// NOPAT-LABEL: func.func @mul_by_two
// NOPAT-NEXT: %[[C2:.*]] = test.constant {value = 2 : i32} : i32
// NOPAT-NEXT: %[[M:.*]] = test.muli %arg0, %[[C2]] : i32
// NOPAT-NEXT: return %[[M]] : i32
func.func @mul_by_two(%a: i32) -> i32 {
  %c2 = test.constant {value = 2 : i32} : i32
  %0 = test.muli %c2, %a : i32
  return %0 : i32
}

// Constants from other blocks and from nested regions are hoisted to the entry block and
// uniqued there; a test.isolated op keeps its own. With one iteration, the constant made by
// folding stays where the folded op was.
// CHECK-LABEL: func.func @hoist
// CHECK-NEXT: %[[C3:.*]] = test.constant {value = 3 : i32} : i32
// CHECK-NEXT: %[[C6:.*]] = test.constant {value = 6 : i32} : i32
// CHECK-NEXT: %[[C5:.*]] = test.constant {value = 5 : i32} : i32
// CHECK-NEXT: %[[C7:.*]] = test.constant {value = 7 : i32} : i32
// CHECK-NEXT: test.effect %[[C7]] : i32
// CHECK-NEXT: %[[T:.*]] = test.addi %arg0, %[[C3]] : i32
// CHECK-NEXT: test.region : () -> () {
// CHECK-NEXT: test.effect %[[C5]] : i32
// CHECK-NEXT: test.yield
// CHECK-NEXT: }
// CHECK-NEXT: test.isolated : () -> () {
// CHECK-NEXT: %[[I:.*]] = test.constant {value = 5 : i32} : i32
// CHECK-NEXT: test.effect %[[I]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: cf.cond_br %arg1, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %[[U:.*]] = test.muli %[[T]], %[[C5]] : i32
// CHECK-NEXT: return %[[U]] : i32
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: %[[V:.*]] = test.muli %[[T]], %[[C6]] : i32
// CHECK-NEXT: return %[[V]] : i32
// ONE-LABEL: func.func @hoist
// ONE: test.effect %{{.*}} : i32
// ONE-NEXT: %[[C3:.*]] = test.constant {value = 3 : i32} : i32
// ONE-NEXT: test.addi %arg0, %[[C3]] : i32
func.func @hoist(%a: i32, %c: i1) -> i32 {
  %c7 = test.constant {value = 7 : i32} : i32
  test.effect %c7 : i32
  %c1 = test.constant {value = 1 : i32} : i32
  %c2 = test.constant {value = 2 : i32} : i32
  %s = test.addi %c1, %c2 : i32
  %t = test.addi %a, %s : i32
  test.region : () -> () {
    %r5 = test.constant {value = 5 : i32} : i32
    test.effect %r5 : i32
    test.yield
  }
  test.isolated : () -> () {
    %i5 = test.constant {value = 5 : i32} : i32
    test.effect %i5 : i32
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %c5 = test.constant {value = 5 : i32} : i32
  %u = test.muli %t, %c5 : i32
  return %u : i32
^bb2:
  %c6 = test.constant {value = 6 : i32} : i32
  %v = test.muli %c6, %t : i32
  return %v : i32
}

// Unreachable blocks are erased (also with region-simplify=disabled), dead cycles too.
// CHECK-LABEL: func.func @unreachable
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// NOREG-LABEL: func.func @unreachable
// NOREG-NEXT: return %arg0 : i32
// NOREG-NEXT: }
func.func @unreachable(%a: i32) -> i32 {
  return %a : i32
^bb1:
  %0 = test.addi %a, %a : i32
  cf.br ^bb2(%0 : i32)
^bb2(%x: i32):
  test.effect %x : i32
  cf.br ^bb1
}

// A constant condition selects the successor; then the blocks merge into one.
// CHECK-LABEL: func.func @constant_condition
// CHECK-NEXT: test.effect %arg1 : i32
// CHECK-NEXT: return %arg1 : i32
// CHECK-NEXT: }
func.func @constant_condition(%a: i32, %b: i32) -> i32 {
  %f = test.constant {value = false} : i1
  cf.cond_br %f, ^bb1, ^bb2
^bb1:
  test.effect %a : i32
  return %a : i32
^bb2:
  test.effect %b : i32
  return %b : i32
}

// Pass-through blocks are bypassed and a dead block argument goes (region-simplify), with
// the operands forwarded to it; the branch weights stay.
// CHECK-LABEL: func.func @pass_through
// CHECK-NEXT: cf.cond_br %arg2 weights([60, 40]), ^bb1(%arg0 : i32), ^bb1(%arg1 : i32)
// CHECK-NEXT: ^bb1(%[[Z:.*]]: i32):
// CHECK-NEXT: return %[[Z]] : i32
// NOREG-LABEL: func.func @pass_through
// NOREG-NEXT: cf.cond_br %arg2 weights([60, 40]), ^bb1(%arg0, %arg0 : i32, i32), ^bb1(%arg1, %arg0 : i32, i32)
// NOREG-NEXT: ^bb1(%[[Z:.*]]: i32, %{{.*}}: i32):
// NOREG-NEXT: return %[[Z]] : i32
func.func @pass_through(%a: i32, %b: i32, %c: i1) -> i32 {
  cf.cond_br %c weights([60, 40]), ^bb1(%a : i32), ^bb2(%b : i32)
^bb1(%x: i32):
  cf.br ^bb3(%x, %a : i32, i32)
^bb2(%y: i32):
  cf.br ^bb3(%y, %a : i32, i32)
^bb3(%z: i32, %unused: i32):
  return %z : i32
}

// Both successors the same with the same operands: an unconditional branch, then merged.
// CHECK-LABEL: func.func @same_successors
// CHECK-NEXT: %[[E:.*]] = test.effect %arg0 : i32
// CHECK-NEXT: return %[[E]] : i32
func.func @same_successors(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%a : i32)
^bb1(%x: i32):
  %e = test.effect %x : i32
  return %e : i32
}

// A straight chain of blocks becomes one block; a loop stays.
// CHECK-LABEL: func.func @chain_of_blocks
// CHECK-NEXT: %[[X:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: %[[Y:.*]] = test.muli %[[X]], %[[X]] : i32
// CHECK-NEXT: return %[[Y]] : i32
func.func @chain_of_blocks(%a: i32) -> i32 {
  cf.br ^bb1
^bb1:
  %x = test.addi %a, %a : i32
  cf.br ^bb2
^bb2:
  %y = test.muli %x, %x : i32
  cf.br ^bb3(%y : i32)
^bb3(%z: i32):
  return %z : i32
}

// CHECK-LABEL: func.func @loop
// CHECK-NEXT: cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%[[X:.*]]: i32):
// CHECK-NEXT: %[[E:.*]] = test.effect %[[X]] : i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1(%[[E]] : i32), ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return %[[X]] : i32
func.func @loop(%a: i32, %c: i1) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  %e = test.effect %x : i32
  cf.cond_br %c, ^bb1(%e : i32), ^bb2
^bb2:
  return %x : i32
}

// Locations: a constant made by folding has the folded op's location, as long as it stays in
// its block; hoisted from another block or merged with another constant, it is unknown.
// LOC-LABEL: func.func @locations
// LOC-NEXT: test.constant {value = 4 : i32} : i32 loc(unknown)
// LOC-NEXT: test.constant {value = 3 : i32} : i32 loc("a.py":2:1)
// LOC-NEXT: test.effect
// LOC-NEXT: cf.cond_br
func.func @locations(%a: i32, %c: i1) {
  %c1 = test.constant {value = 1 : i32} : i32 loc("a.py":1:1)
  %c2 = test.constant {value = 2 : i32} : i32 loc("a.py":1:2)
  %s = test.addi %c1, %c2 : i32 loc("a.py":2:1)
  test.effect %s : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %t = test.addi %c2, %c2 : i32 loc("a.py":3:1)
  test.effect %t : i32
  return
^bb2:
  return
}

// CONV: error: canonicalizer did not converge within 1 iterations
