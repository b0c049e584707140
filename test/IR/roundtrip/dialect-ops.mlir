// The registered ops of XCS's dialects in the generic form (func, cf, test, tensor, xcs):
// MLIR sees them as unregistered ops and keeps them as written; XCS verifies them.
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs

// CHECK-LABEL: "func.func"() <{function_type = (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>, sym_name = "model"}> ({
// CHECK: "tensor.add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: "tensor.reduce"(%{{.*}}) <{axes = array<i64: 1>, keepdims = false, kind = "sum"}> : (tensor<4x8xf32>) -> tensor<4xf32>
"func.func"() <{function_type = (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>, sym_name = "model"}> ({
^bb0(%x: tensor<4x8xf32>, %b: tensor<8xf32>):
  %0 = "tensor.add"(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "tensor.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "tensor.reduce"(%1) <{axes = array<i64: 1>, keepdims = false, kind = "sum"}> : (tensor<4x8xf32>) -> tensor<4xf32>
  "func.return"(%2) : (tensor<4xf32>) -> ()
}) : () -> ()

// CHECK-LABEL: "func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "batched"}> ({
// CHECK: "xcs.vmap"(%{{.*}}) <{in_axes = array<i64: 0>, out_axes = array<i64: 0>}> ({
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<4xf32>):
// CHECK: "xcs.yield"(%{{.*}}) : (tensor<4xf32>) -> ()
"func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "batched"}> ({
^bb0(%x: tensor<8x4xf32>):
  %r = "xcs.vmap"(%x) <{in_axes = array<i64: 0>, out_axes = array<i64: 0>}> ({
  ^bb0(%e: tensor<4xf32>):
    %t = "tensor.tanh"(%e) : (tensor<4xf32>) -> tensor<4xf32>
    "xcs.yield"(%t) : (tensor<4xf32>) -> ()
  }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  "func.return"(%r) : (tensor<8x4xf32>) -> ()
}) : () -> ()

// CHECK-LABEL: "func.func"() <{function_type = (!xcs.str) -> !xcs.str, sym_name = "chat"}> ({
// CHECK: "xcs.llm"(%{{.*}}) <{model = "m", provider = "p"}> : (!xcs.str) -> !xcs.str
"func.func"() <{function_type = (!xcs.str) -> !xcs.str, sym_name = "chat"}> ({
^bb0(%p: !xcs.str):
  %c = "xcs.str_const"() <{value = "Answer: "}> : () -> !xcs.str
  %q = "xcs.format"(%c, %p) <{template = "{}{}"}> : (!xcs.str, !xcs.str) -> !xcs.str
  %a = "xcs.llm"(%q) <{model = "m", provider = "p"}> : (!xcs.str) -> !xcs.str
  "func.return"(%a) : (!xcs.str) -> ()
}) : () -> ()

// CHECK-LABEL: "func.func"() <{function_type = (i64, i1) -> i64, sym_name = "control"}> ({
// CHECK: "cf.cond_br"
// CHECK: "test.muli"
"func.func"() <{function_type = (i64, i1) -> i64, sym_name = "control"}> ({
^bb0(%a: i64, %c: i1):
  %k = "test.constant"() <{value = 3 : i64}> : () -> i64
  "cf.cond_br"(%c, %a, %a) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i64, i64) -> ()
^bb1(%x: i64):
  %m = "test.muli"(%x, %k) : (i64, i64) -> i64
  "cf.br"(%m) [^bb2] : (i64) -> ()
^bb2(%y: i64):
  "func.return"(%y) : (i64) -> ()
}) : () -> ()
