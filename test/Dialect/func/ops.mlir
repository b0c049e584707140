// The func ops in their custom and generic forms: declarations (private, nested, with argument
// and result attributes and `attributes`), definitions, calls (0, 1, 2 results, the short form
// inside a function, call attributes) and returns. mlir-opt prints the same text and the same
// generic form for this file (it uses no XCS op), so both tools are checked against one set of
// CHECK lines. The generic output prints back identically through mlir-minimal-opt.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s | xcs-opt | FileCheck %s
// RUN: mlir-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | diff %t.generic.mlir -
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// External declarations: private, with the `xcs.module` attribute classify reads, argument
// and result attributes, several results, no arguments; `nested` visibility.
// CHECK-LABEL: func.func private @openai.chat.completions.create(!xcs.str) -> !xcs.str attributes {xcs.module = "openai.resources.chat"}
// GENERIC: "func.func"() <{function_type = (!xcs.str) -> !xcs.str, sym_name = "openai.chat.completions.create", sym_visibility = "private"}> ({
// GENERIC-NEXT: }) {xcs.module = "openai.resources.chat"} : () -> ()
// GENERIC-NEXT: "func.func"() <{arg_attrs = [{xcs.name = "x"}, {}], function_type = (tensor<4xf32>, i64) -> (f32, tensor<?xi1>), res_attrs = [{xcs.res = 1 : i64}, {}], sym_name = "decl_attrs", sym_visibility = "private"}> ({
func.func private @openai.chat.completions.create(!xcs.str) -> !xcs.str attributes {xcs.module = "openai.resources.chat"}

// CHECK-LABEL: func.func private @decl_attrs(tensor<4xf32> {xcs.name = "x"}, i64) -> (f32 {xcs.res = 1 : i64}, tensor<?xi1>)
func.func private @decl_attrs(tensor<4xf32> {xcs.name = "x"}, i64) -> (f32 {xcs.res = 1 : i64}, tensor<?xi1>)

// CHECK-LABEL: func.func private @no_args()
func.func private @no_args() -> ()

// A public function with a body: arguments, several results, return of them; call in the
// shortened form (`call`, `return` inside a function); calls with 0, 1 and 2 results.
// CHECK-LABEL: func.func @caller(%arg0: tensor<4xf32>, %arg1: i64, %arg2: !xcs.str) -> (f32, tensor<?xi1>) {
// CHECK-NEXT: %0:2 = call @decl_attrs(%arg0, %arg1) : (tensor<4xf32>, i64) -> (f32, tensor<?xi1>)
// CHECK-NEXT: call @no_args() : () -> ()
// CHECK-NEXT: %1 = call @openai.chat.completions.create(%arg2) : (!xcs.str) -> !xcs.str
// CHECK-NEXT: return %0#0, %0#1 : f32, tensor<?xi1>
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}}:2 = "func.call"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{callee = @decl_attrs}> : (tensor<4xf32>, i64) -> (f32, tensor<?xi1>)
func.func @caller(%a: tensor<4xf32>, %n: i64, %s: !xcs.str) -> (f32, tensor<?xi1>) {
  %0:2 = call @decl_attrs(%a, %n) : (tensor<4xf32>, i64) -> (f32, tensor<?xi1>)
  func.call @no_args() : () -> ()
  %1 = func.call @openai.chat.completions.create(%s) : (!xcs.str) -> !xcs.str
  return %0#0, %0#1 : f32, tensor<?xi1>
}

// No results, an empty return; function attributes after `attributes`; argument attributes
// on a definition; the function markers of classify.
// CHECK-LABEL: func.func @attrs(%arg0: tensor<2xf32> {xcs.name = "input"}, %arg1: i1) attributes {xcs.mark = "tensor", xcs.pytree_safe = true} {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @attrs(%x: tensor<2xf32> {xcs.name = "input"}, %y: i1) attributes {xcs.mark = "tensor", xcs.pytree_safe = true} {
  return
}

// no_inline on a function and on a call (call attributes), a recursive call, visibility
// nested inside a nested module.
// CHECK-LABEL: func.func @noinline() -> i64 attributes {no_inline} {
// CHECK-NEXT: %0 = call @noinline() {no_inline} : () -> i64
// CHECK-NEXT: return %0 : i64
// CHECK-NEXT: }
func.func @noinline() -> i64 attributes {no_inline} {
  %c = call @noinline() {no_inline} : () -> i64
  return %c : i64
}

// CHECK-NEXT: module @nested {
// CHECK-NEXT: func.func nested @inner() -> i64 {
// CHECK-NEXT: %0 = call @inner() : () -> i64
// CHECK-NEXT: return %0 : i64
// CHECK-NEXT: }
// CHECK-NEXT: }
module @nested {
  func.func nested @inner() -> i64 {
    %0 = call @inner() : () -> i64
    return %0 : i64
  }
}

// The generic form of the func ops parses to their custom form.
// CHECK-NEXT: func.func public @generic(%arg0: i32 {xcs.name = "v"}) -> i32 {
// CHECK-NEXT: %0 = call @generic(%arg0) {xcs.tag} : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "func.call"(%{{[a-z0-9]+}}) <{callee = @generic}> {xcs.tag} : (i32) -> i32
"func.func"() <{function_type = (i32) -> i32, sym_name = "generic", sym_visibility = "public", arg_attrs = [{xcs.name = "v"}]}> ({
^bb0(%v: i32):
  %0 = "func.call"(%v) <{callee = @generic}> {xcs.tag} : (i32) -> i32
  "func.return"(%0) : (i32) -> ()
}) : () -> ()

// CHECK-NEXT: }
