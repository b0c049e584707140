// dce: unused ops without side effects go, chains of them too; ops with effects, unknown
// (unregistered) ops, terminators and symbols stay. MLIR has no pass of this name.
// RUN: xcs-test-opt %s --allow-unregistered-dialect --dce | FileCheck %s
// RUN: xcs-test-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(dce))' | FileCheck %s
// RUN: xcs-test-opt %s --allow-unregistered-dialect --dce --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE

// CHECK-LABEL: func.func @chains
// CHECK-NEXT: %[[E:.*]] = test.effect %arg0 : i32
// CHECK-NEXT: %[[U:.*]] = "foo.unknown"(%arg0) : (i32) -> i32
// CHECK-NEXT: %[[K:.*]] = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %[[K]] : i32
// CHECK-NOT: test.muli
// CHECK-NOT: test.negi
func.func @chains(%a: i32) -> i32 {
  %x = test.addi %a, %a : i32
  %y = test.muli %x, %x : i32
  %z = test.negi %y : i32
  %c = test.constant {value = 1 : i32} : i32
  %e = test.effect %a : i32
  %u = "foo.unknown"(%a) : (i32) -> i32
  %k = test.addi %a, %a : i32
  return %k : i32
}

// A region op with only pure ops inside dies with its contents; with effects inside, it stays.
// CHECK-LABEL: func.func @regions
// CHECK-NEXT: test.region : () -> () {
// CHECK-NEXT: test.effect %arg0 : i32
// CHECK-NEXT: test.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @regions(%a: i32) {
  test.region : () -> () {
    %0 = test.muli %a, %a : i32
    test.yield
  }
  %r = test.region %a : i32 {
  ^bb0(%x: i32):
    %1 = test.addi %x, %x : i32
    test.yield %1 : i32
  }
  test.region : () -> () {
    %2 = test.muli %a, %a : i32
    test.effect %a : i32
    test.yield
  }
  return
}

// Dead ops in every block and in nested isolated ops; block arguments are not touched.
// CHECK-LABEL: func.func @blocks
// CHECK-NEXT: cf.cond_br %arg1, ^bb1(%arg0 : i32), ^bb2
// CHECK-NEXT: ^bb1(%{{.*}}: i32):
// CHECK-NEXT: return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: test.isolated : () -> () {
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @blocks(%a: i32, %c: i1) {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
^bb1(%x: i32):
  %0 = test.addi %x, %x : i32
  return
^bb2:
  test.isolated : () -> () {
    %1 = test.constant {value = 1 : i32} : i32
  }
  return
}

// Nothing dead: the IR is unchanged and the pass reports no change.
// CHECK-LABEL: func.func @nothing
func.func @nothing(%a: i32) -> i32 {
  return %a : i32
}

// CHANGE: // -----// IR Dump After DCE (dce) //----- //
// CHANGE-NEXT: module {
