// cf.assert, cf.switch, func.constant and func.call_indirect: XCS prints their custom form
// byte for byte as mlir-opt does, reads what mlir-opt prints (custom and generic form), and
// mlir-opt reads what XCS prints. Inputs use every shape of the syntax.
// RUN: xcs-opt %s -o %t
// RUN: mlir-opt %s | diff - %t
// RUN: mlir-opt %t | diff - %t
// RUN: xcs-opt %t | diff - %t
// RUN: xcs-opt --mlir-print-op-generic %s -o %t.gen
// RUN: mlir-opt --mlir-print-op-generic %s | diff - %t.gen
// RUN: mlir-opt %t.gen | diff - %t
// RUN: xcs-opt %t.gen | diff - %t
// RUN: xcs-opt --mlir-print-debuginfo %s -o %t.dbg
// RUN: mlir-opt --mlir-print-debuginfo %s | diff - %t.dbg
// RUN: xcs-opt --mlir-print-debuginfo %t.dbg | diff - %t.dbg
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=GEN < %t.gen

// CHECK-LABEL: func.func @asserts(%arg0: i1) {
// CHECK-NEXT:    cf.assert %arg0, "plain"
// CHECK-NEXT:    cf.assert %arg0, "quote \22 backslash \\ tab \09" {note = 1 : i32}
// CHECK-NEXT:    cf.assert %arg0, ""
// GEN-LABEL: sym_name = "asserts"
// GEN:         "cf.assert"(%{{.*}}) <{msg = "plain"}> : (i1) -> ()
func.func @asserts(%c: i1) {
  cf.assert %c, "plain"
  cf.assert %c, "quote \" backslash \\ tab \t" {note = 1 : i32}
  "cf.assert"(%c) <{msg = ""}> : (i1) -> ()
  return
}

// A switch without cases closes its bracket on the default's line; one with cases prints a
// case a line. Case values print unsigned at the flag's width (-3 : i32 is 4294967293); a
// value wider than the flag is truncated when read (300 : i8 is 44).
// CHECK-LABEL: func.func @switches(%arg0: i32, %arg1: i8, %arg2: i1, %arg3: f32) -> f32 {
// CHECK-NEXT:    cf.switch %arg0 : i32, [
// CHECK-NEXT:      default: ^bb1]
// CHECK-NEXT:  ^bb1:  // pred: ^bb0
// CHECK-NEXT:    cf.switch %arg0 : i32, [
// CHECK-NEXT:      default: ^bb2(%arg3 : f32),
// CHECK-NEXT:      42: ^bb3,
// CHECK-NEXT:      4294967293: ^bb2(%arg3 : f32),
// CHECK-NEXT:      42: ^bb4(%arg3, %arg0 : f32, i32)
// CHECK-NEXT:    ] {branch_hint = "cold"}
// CHECK-NEXT:  ^bb2(%0: f32):  // 7 preds: ^bb1, ^bb1, ^bb3, ^bb3, ^bb3, ^bb4, ^bb5
// CHECK:         cf.switch %arg1 : i8, [
// CHECK-NEXT:      default: ^bb2(%arg3 : f32),
// CHECK-NEXT:      44: ^bb2(%arg3 : f32),
// CHECK-NEXT:      255: ^bb2(%arg3 : f32)
// CHECK-NEXT:    ]
// CHECK:         cf.switch %arg2 : i1, [
// CHECK-NEXT:      default: ^bb5,
// CHECK-NEXT:      1: ^bb2(%1 : f32),
// CHECK-NEXT:      0: ^bb5
// CHECK-NEXT:    ]
// GEN-LABEL: sym_name = "switches"
// GEN:         "cf.switch"(%{{.*}})[^bb1] <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
// GEN:         "cf.switch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})[^bb2, ^bb3, ^bb2, ^bb4] <{case_operand_segments = array<i32: 0, 1, 2>, case_values = dense<[42, -3, 42]> : vector<3xi32>, operandSegmentSizes = array<i32: 1, 1, 3>}> {branch_hint = "cold"} : (i32, f32, f32, f32, i32) -> ()
// GEN:         case_values = dense<[44, -1]> : vector<2xi8>
// GEN:         case_values = dense<[true, false]> : vector<2xi1>
func.func @switches(%flag: i32, %small: i8, %bit: i1, %x: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^next
  ]
^next:
  cf.switch %flag : i32, [
    default: ^out(%x : f32),
    42: ^one,
    -3: ^out(%x : f32),
    42: ^two(%x, %flag : f32, i32)
  ] {branch_hint = "cold"}
^out(%r: f32):
  return %r : f32
^one:
  cf.switch %small : i8, [
    default: ^out(%x : f32),
    300: ^out(%x : f32),
    -1: ^out(%x : f32)
  ]
^two(%y: f32, %z: i32):
  cf.switch %bit : i1, [default: ^three, 1: ^out(%y : f32), 0: ^three]
^three:
  cf.br ^out(%x : f32)
}

// Function values: every func.constant result is named %f (then %f_0, %f_1, ... in the
// function), as mlir-opt names them; the attribute dictionary comes before the symbol.
// CHECK-LABEL: func.func @values(%arg0: i32, %arg1: (i32) -> i32) -> (i32, i32) {
// CHECK-NEXT:    %f = constant @callee : (i32) -> i32
// CHECK-NEXT:    %f_0 = constant {tag = "second"} @callee : (i32) -> i32
// CHECK-NEXT:    %f_1 = constant @pair : (i32) -> (i32, i32)
// CHECK-NEXT:    %f_2 = constant @sink : () -> ()
// CHECK-NEXT:    %0 = call_indirect %f(%arg0) : (i32) -> i32
// CHECK-NEXT:    %1 = call_indirect %arg1(%0) {hot} : (i32) -> i32
// CHECK-NEXT:    %2:2 = call_indirect %f_1(%1) : (i32) -> (i32, i32)
// CHECK-NEXT:    call_indirect %f_2() : () -> ()
// CHECK-NEXT:    %3 = call_indirect %f_0(%2#1) : (i32) -> i32
// CHECK-NEXT:    cf.br ^bb1(%f : (i32) -> i32)
// CHECK-NEXT:  ^bb1(%4: (i32) -> i32):  // pred: ^bb0
// CHECK-NEXT:    %5 = call_indirect %4(%3) : (i32) -> i32
// CHECK-NEXT:    return %2#0, %5 : i32, i32
// GEN-LABEL: sym_name = "values"
// GEN:         %{{.*}} = "func.constant"() <{value = @callee}> : () -> ((i32) -> i32)
// GEN:         %{{.*}} = "func.constant"() <{value = @callee}> {tag = "second"} : () -> ((i32) -> i32)
// GEN:         %{{.*}} = "func.call_indirect"(%{{.*}}, %{{.*}}) {hot} : ((i32) -> i32, i32) -> i32
func.func private @callee(i32) -> i32
func.func private @pair(i32) -> (i32, i32)
func.func private @sink()
func.func @values(%x: i32, %g: (i32) -> i32) -> (i32, i32) {
  %f = func.constant @callee : (i32) -> i32
  %f2 = func.constant {tag = "second"} @callee : (i32) -> i32
  %p = "func.constant"() <{value = @pair}> : () -> ((i32) -> (i32, i32))
  %s = func.constant @sink : () -> ()
  %a = func.call_indirect %f(%x) : (i32) -> i32
  %b = func.call_indirect %g(%a) {hot} : (i32) -> i32
  %c:2 = "func.call_indirect"(%p, %b) : ((i32) -> (i32, i32), i32) -> (i32, i32)
  func.call_indirect %s() : () -> ()
  %d = func.call_indirect %f2(%c#1) : (i32) -> i32
  cf.br ^next(%f : (i32) -> i32)
^next(%h: (i32) -> i32):
  %e = func.call_indirect %h(%d) : (i32) -> i32
  return %c#0, %e : i32, i32
}

// Names restart in each function.
// CHECK-LABEL: func.func @again() -> (() -> ()) {
// CHECK-NEXT:    %f = constant @sink : () -> ()
func.func @again() -> (() -> ()) {
  %0 = func.constant @sink : () -> ()
  return %0 : () -> ()
}
