// The custom forms of func and cf ops, exactly as mlir-opt prints them: this file's output is
// compared with mlir-opt's (which registers func and cf too; test ops are left out).
// RUN: xcs-opt --allow-unregistered-dialect %s -o %t
// RUN: mlir-opt --allow-unregistered-dialect %s | diff - %t
// RUN: xcs-opt --allow-unregistered-dialect %t | diff - %t
// RUN: xcs-opt --allow-unregistered-dialect --mlir-print-debuginfo %s -o %t.dbg
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-debuginfo %s | diff - %t.dbg
// RUN: FileCheck %s < %t

// CHECK: module {
// CHECK-NEXT: func.func private @decl(i32, f32) -> i64
func.func private @decl(i32, f32) -> i64
// Argument and result attributes, several results.
// CHECK-NEXT: func.func private @decl2(i32 {foo.a}, f32) -> (i64 {foo.r = 1 : i32}, i1)
func.func private @decl2(i32 {foo.a}, f32) -> (i64 {foo.r = 1 : i32}, i1)
// CHECK-NEXT: func.func nested @decl3()
func.func nested @decl3() -> ()
// Named arguments print as %argN; `attributes {...}` holds the discardable attributes.
// CHECK-NEXT: func.func @with_attrs(%arg0: i32 {foo.arg}, %arg1: i1) -> (i32 {foo.res}) attributes {foo.fn = "x"} {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
func.func @with_attrs(%a: i32 {foo.arg}, %b: i1) -> (i32 {foo.res}) attributes {foo.fn = "x"} {
  return %a : i32
}
// `func.` may be dropped inside a function; an explicit `public` is kept.
// CHECK-NEXT: func.func public @pub() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func public @pub() -> () {
  func.return
}
// Calls, conditional and unconditional branches with block arguments.
// CHECK-LABEL: func.func @calls(%arg0: i32, %arg1: i1) -> (i32, i32) {
// CHECK-NEXT: %0 = call @with_attrs(%arg0, %arg1) : (i32, i1) -> i32
// CHECK-NEXT: %1 = call @with_attrs(%0, %arg1) {extra} : (i32, i1) -> i32
// CHECK-NEXT: cf.cond_br %arg1, ^bb1(%0 : i32), ^bb2
// CHECK-NEXT: ^bb1(%2: i32):  // pred: ^bb0
// CHECK-NEXT: cf.br ^bb2
// CHECK-NEXT: ^bb2:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT: return %0, %1 : i32, i32
func.func @calls(%x: i32, %c: i1) -> (i32, i32) {
  %0 = call @with_attrs(%x, %c) : (i32, i1) -> i32
  %1 = func.call @with_attrs(%0, %c) {extra} : (i32, i1) -> i32
  cf.cond_br %c, ^bb1(%0 : i32), ^bb2
^bb1(%y: i32):
  cf.br ^bb2
^bb2:
  return %0, %1 : i32, i32
}
// Branch weights are a property of cf.cond_br, printed as `weights([...])`.
// CHECK-LABEL: func.func @weighted(%arg0: i1) {
// CHECK-NEXT: cf.cond_br %arg0 weights([60, 40]), ^bb1, ^bb1
func.func @weighted(%c: i1) {
  cf.cond_br %c weights([60, 40]), ^bb1, ^bb1
^bb1:
  return
}
// Generic ops inside functions; SSA numbering restarts in each function.
// CHECK-LABEL: func.func @multi() -> (i32, i1) {
// CHECK-NEXT: %0:2 = "unknown.op"() : () -> (i32, i1)
// CHECK-NEXT: return %0#0, %0#1 : i32, i1
func.func @multi() -> (i32, i1) {
  %r:2 = "unknown.op"() : () -> (i32, i1)
  return %r#0, %r#1 : i32, i1
}
// Both forms may be mixed; the generic form of func ops prints as their custom form.
// CHECK-LABEL: func.func @generic_inside(%arg0: i32) -> i32 {
// CHECK-NEXT: cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%0: i32):
// CHECK-NEXT: return %0 : i32
"func.func"() <{function_type = (i32) -> i32, sym_name = "generic_inside"}> ({
^bb0(%a: i32):
  "cf.br"(%a)[^bb1] : (i32) -> ()
^bb1(%b: i32):
  "func.return"(%b) : (i32) -> ()
}) : () -> ()
// Block arguments and op results of every kind of branch.
// CHECK-LABEL: func.func @loop(
// CHECK: cf.cond_br %{{.*}}, ^bb1(%{{.*}}, %{{.*}} : i32, i1), ^bb2
func.func @loop(%n: i32, %c: i1) {
  cf.br ^bb1(%n, %c : i32, i1)
^bb1(%i: i32, %k: i1):
  %next = "unknown.step"(%i) : (i32) -> i32
  cf.cond_br %k, ^bb1(%next, %k : i32, i1), ^bb2
^bb2:
  return
}
