// The passes on cf.assert, cf.switch, func.constant and func.call_indirect, as MLIR handles
// them: each pass's output is mlir-opt's, byte for byte, and the CHECK lines say what matters.
// RUN: xcs-opt %s --canonicalize -o %t.canon
// RUN: mlir-opt %s --canonicalize | diff - %t.canon
// RUN: FileCheck %s --check-prefix=CANON < %t.canon
// RUN: xcs-opt %s --cse -o %t.cse
// RUN: mlir-opt %s --cse | diff - %t.cse
// RUN: FileCheck %s --check-prefix=CSE < %t.cse
// RUN: xcs-opt %s --symbol-dce -o %t.sdce
// RUN: mlir-opt %s --symbol-dce | diff - %t.sdce
// RUN: FileCheck %s --check-prefix=SDCE < %t.sdce
// RUN: xcs-opt %s --inline -o %t.inline
// RUN: mlir-opt %s --inline | diff - %t.inline
// RUN: FileCheck %s --check-prefix=INLINE < %t.inline
// RUN: xcs-opt %s --inline='default-pipeline=' -o %t.raw
// RUN: mlir-opt %s --inline='default-pipeline=' | diff - %t.raw
// RUN: FileCheck %s --check-prefix=RAW < %t.raw
// XCS's dce (no mlir-opt counterpart): unused function values go, calls and asserts stay.
// RUN: xcs-opt %s --dce | FileCheck %s --check-prefix=DCE

// Function values. cse and canonicalize merge equal func.constants (canonicalize hoists them
// to the entry block); a call_indirect of a func.constant becomes a func.call (canonicalize,
// also as the inliner's default pipeline, which then inlines it); indirect calls are never
// merged or removed; a func.constant keeps its function alive for symbol-dce. The inliner
// does not inline an indirect call by itself (RAW).
func.func private @ext(i32)
func.func private @callee(%a: i32) -> i32 {
  func.call @ext(%a) : (i32) -> ()
  return %a : i32
}
func.func private @only_as_value(%a: i32) -> i32 {
  return %a : i32
}
func.func private @dead(%a: i32) -> i32 {
  return %a : i32
}
// CANON-LABEL: func.func @values(
// CANON-NEXT:    %0 = call @callee(%arg0) : (i32) -> i32
// CANON-NEXT:    %1 = call @callee(%arg0) : (i32) -> i32
// CANON-NEXT:    %2 = call_indirect %arg1(%1) : (i32) -> i32
// CANON-NEXT:    %3 = call_indirect %arg1(%1) : (i32) -> i32
// CANON-NEXT:    return %0, %2 : i32, i32
// CSE-LABEL: func.func @values(
// CSE-NEXT:    %f = constant @callee : (i32) -> i32
// CSE-NEXT:    %0 = call_indirect %f(%arg0) : (i32) -> i32
// CSE-NEXT:    %1 = call_indirect %f(%arg0) : (i32) -> i32
// CSE-NEXT:    %2 = call_indirect %arg1(%1) : (i32) -> i32
// CSE-NEXT:    %3 = call_indirect %arg1(%1) : (i32) -> i32
// SDCE-NOT: @dead
// SDCE: func.func private @only_as_value(
// SDCE-NOT: @dead
// INLINE-NOT: @callee(
// INLINE-LABEL: func.func @values(
// INLINE-NEXT:    call @ext(%arg0) : (i32) -> ()
// INLINE-NEXT:    call @ext(%arg0) : (i32) -> ()
// INLINE-NEXT:    %0 = call_indirect %arg1(%arg0) : (i32) -> i32
// INLINE-NEXT:    %1 = call_indirect %arg1(%arg0) : (i32) -> i32
// INLINE-NEXT:    return %arg0, %0 : i32, i32
// RAW-LABEL: func.func @values(
// RAW:         %0 = call_indirect %f(%arg0) : (i32) -> i32
// DCE-LABEL: func.func @values(
// DCE-NEXT:    %f = constant @callee : (i32) -> i32
// DCE-NEXT:    %f_0 = constant @callee : (i32) -> i32
// DCE-NEXT:    %0 = call_indirect %f(%arg0) : (i32) -> i32
// DCE-NEXT:    %1 = call_indirect %f_0(%arg0) : (i32) -> i32
// DCE-NEXT:    %2 = call_indirect %arg1(%1) : (i32) -> i32
// DCE-NEXT:    %3 = call_indirect %arg1(%1) : (i32) -> i32
func.func @values(%x: i32, %g: (i32) -> i32) -> (i32, i32) {
  %f = func.constant @callee : (i32) -> i32
  %f2 = func.constant @callee : (i32) -> i32
  %unused = func.constant @only_as_value : (i32) -> i32
  %a = func.call_indirect %f(%x) : (i32) -> i32
  %b = func.call_indirect %f2(%x) : (i32) -> i32
  %c = func.call_indirect %g(%b) : (i32) -> i32
  %unused_result = func.call_indirect %g(%b) : (i32) -> i32
  return %a, %c : i32, i32
}
// @only_as_value's only use is a func.constant of a public function: it stays.
func.func @keeps(%x: i32) -> ((i32) -> i32) {
  %f = func.constant @only_as_value : (i32) -> i32
  return %f : (i32) -> i32
}

// Assertions have effects: never merged (cse) nor removed (canonicalize, dce).
// CANON-LABEL: func.func @asserts(
// CANON-NEXT:    cf.assert %arg0, "first"
// CANON-NEXT:    cf.assert %arg0, "first"
// CANON-NEXT:    return
// CSE-LABEL: func.func @asserts(
// CSE-NEXT:    cf.assert %arg0, "first"
// CSE-NEXT:    cf.assert %arg0, "first"
// DCE-LABEL: func.func @asserts(
// DCE-NEXT:    cf.assert %arg0, "first"
// DCE-NEXT:    cf.assert %arg0, "first"
func.func @asserts(%c: i1) {
  cf.assert %c, "first"
  cf.assert %c, "first"
  return
}

// Switch canonicalization: a switch with only a default is a cf.br (^out); cases that go
// where the default goes with the same operands are dropped (4); successors that only branch
// on are skipped (^pass); a switch in a block only reached by a case of a switch on the same
// flag knows the flag (^by_two); one only reached by the default drops the cases already
// ruled out (2 in ^default). Unused block arguments of the successors are dropped with the
// operands the switch passes them (%unused).
// CANON-LABEL: func.func @switches(
// CANON-NEXT:    cf.switch %arg0 : i32, [
// CANON-NEXT:      default: ^bb1(%arg1 : i32),
// CANON-NEXT:      1: ^bb2(%arg1 : i32),
// CANON-NEXT:      2: ^bb2(%arg2 : i32)
// CANON-NEXT:    ]
// CANON-NEXT:  ^bb1(%0: i32):  // pred: ^bb0
// CANON-NEXT:    cf.switch %arg0 : i32, [
// CANON-NEXT:      default: ^bb2(%0 : i32),
// CANON-NEXT:      3: ^bb2(%arg2 : i32)
// CANON-NEXT:    ]
// CANON-NEXT:  ^bb2(%1: i32):  // 4 preds: ^bb0, ^bb0, ^bb1, ^bb1
// CANON-NEXT:    return %1 : i32
func.func @switches(%flag: i32, %a: i32, %b: i32) -> i32 {
  cf.switch %flag : i32, [
    default: ^default(%b, %a : i32, i32),
    1: ^pass(%a : i32),
    2: ^by_two,
    4: ^default(%b, %a : i32, i32)
  ]
^default(%unused: i32, %v: i32):
  cf.switch %flag : i32, [
    default: ^out(%v : i32),
    2: ^out(%a : i32),
    3: ^out(%b : i32)
  ]
^by_two:
  cf.switch %flag : i32, [
    default: ^out(%a : i32),
    2: ^out(%b : i32)
  ]
^pass(%p: i32):
  cf.br ^out(%p : i32)
^out(%r: i32):
  cf.switch %flag : i32, [
    default: ^end(%r : i32)
  ]
^end(%e: i32):
  return %e : i32
}

// Inlining a callee with several blocks and a switch: the caller's block is split and the
// callee's blocks go in between; the switch keeps its cases.
// INLINE-LABEL: func.func @caller(
// INLINE-NEXT:    cf.switch %arg0 : i32, [
// INLINE-NEXT:      default: ^bb1(%arg1 : i32),
// INLINE-NEXT:      7: ^bb1(%arg0 : i32)
// INLINE-NEXT:    ]
// INLINE-NEXT:  ^bb1(%0: i32):  // 2 preds: ^bb0, ^bb0
// INLINE-NEXT:    return %0 : i32
// The inlined private functions are gone (after the last match, so the whole rest is scanned).
// INLINE-NOT: @callee
// INLINE-NOT: @select
func.func private @select(%k: i32, %a: i32) -> i32 {
  cf.switch %k : i32, [
    default: ^ret(%a : i32),
    7: ^ret(%k : i32)
  ]
^ret(%r: i32):
  return %r : i32
}
func.func @caller(%k: i32, %a: i32) -> i32 {
  %r = func.call @select(%k, %a) : (i32, i32) -> i32
  return %r : i32
}
