// The xcs orchestration ops and types in the pretty and the generic form: !xcs.str and
// !xcs.any, str_const, format, llm, vmap and parallel_map with their yield (the kernel ops
// are in kernels.mlir). The pretty output is a fixed point; the generic output prints back
// identically through mlir-minimal-opt and parses to the same pretty output.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s | xcs-opt | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// The types: !xcs.str and !xcs.any in signatures, in tensors and in external declarations.
// CHECK-LABEL: func.func private @tool(!xcs.any, tensor<4x!xcs.str>) -> !xcs.any
func.func private @tool(!xcs.any, tensor<4x!xcs.str>) -> !xcs.any

// str_const, format (automatic and explicit indices, escaped braces, operands of any type,
// no operands) and llm.
// CHECK-LABEL: func.func @strings(%arg0: tensor<2x3xf32>, %arg1: i64, %arg2: !xcs.any) -> !xcs.str {
// CHECK-NEXT: %0 = xcs.str_const {value = "You are a helpful assistant."} : !xcs.str
// CHECK-NEXT: %1 = xcs.format %0, %arg0, %arg1 {template = "{} {{\{\{}}x}} {1}: {2} {0}"} : (!xcs.str, tensor<2x3xf32>, i64) -> !xcs.str
// CHECK-NEXT: %2 = xcs.format {template = "no operands"} : !xcs.str
// CHECK-NEXT: %3 = xcs.format %arg2 {template = "{}"} : (!xcs.any) -> !xcs.str
// CHECK-NEXT: %4 = xcs.llm %1 {model = "gpt-4o", provider = "echo"} : !xcs.str
// CHECK-NEXT: %5 = xcs.str_const {value = "line\0Aquote \22 tab\09"} : !xcs.str
// CHECK-NEXT: return %4 : !xcs.str
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "xcs.str_const"() <{value = "You are a helpful assistant."}> : () -> !xcs.str
// GENERIC: %{{[a-z0-9]+}} = "xcs.format"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{template = "{} {{\{\{}}x}} {1}: {2} {0}"}> : (!xcs.str, tensor<2x3xf32>, i64) -> !xcs.str
// GENERIC: %{{[a-z0-9]+}} = "xcs.llm"(%{{[a-z0-9]+}}) <{model = "gpt-4o", provider = "echo"}> : (!xcs.str) -> !xcs.str
func.func @strings(%x: tensor<2x3xf32>, %n: i64, %a: !xcs.any) -> !xcs.str {
  %0 = xcs.str_const {value = "You are a helpful assistant."} : !xcs.str
  %1 = xcs.format %0, %x, %n {template = "{} {{x}} {1}: {2} {0}"} : (!xcs.str, tensor<2x3xf32>, i64) -> !xcs.str
  %2 = xcs.format {template = "no operands"} : () -> !xcs.str
  %3 = xcs.format %a {template = "{}"} : (!xcs.any) -> !xcs.str
  %4 = xcs.llm %1 {provider = "echo", model = "gpt-4o"} : !xcs.str
  %5 = xcs.str_const {value = "line\0Aquote \22 tab\09"} : !xcs.str
  return %4 : !xcs.str
}

// vmap over tensors: batch axis 0 and 1, an unbatched operand (-1), an unbatched result (-1),
// results batched at axis 1, `?` batch sizes, a negative in_axes entry other than -1 (counted
// from the end).
// CHECK-LABEL: func.func @vmap_tensors(%arg0: tensor<8x4xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x4xf32>, %arg3: tensor<?x3xbf16>) {
// CHECK-NEXT: %0 = xcs.vmap %arg0 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
// CHECK-NEXT: ^bb0(%arg4: tensor<4xf32>):
// CHECK-NEXT: %4 = tensor.exp %arg4 : tensor<4xf32>
// CHECK-NEXT: xcs.yield %4 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %1:2 = xcs.vmap %arg0, %arg1, %arg2 {in_axes = array<i64: 0, 1, -1>, out_axes = array<i64: 1, -1>} : (tensor<8x4xf32>, tensor<4x8xf32>, tensor<4x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
// CHECK-NEXT: ^bb0(%arg4: tensor<4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<4x4xf32>):
// CHECK-NEXT: %4 = tensor.add %arg4, %arg5 : tensor<4xf32>
// CHECK-NEXT: xcs.yield %4, %arg6 : (tensor<4xf32>, tensor<4x4xf32>) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: %2 = xcs.vmap %arg3 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<?x3xbf16> {
// CHECK-NEXT: ^bb0(%arg4: tensor<3xbf16>):
// CHECK-NEXT: xcs.yield %arg4 : tensor<3xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: %3 = xcs.vmap %arg0 {in_axes = array<i64: -2>, out_axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%arg4: tensor<4xf32>):
// CHECK-NEXT: xcs.yield %arg4 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "xcs.vmap"(%{{[a-z0-9]+}}) <{in_axes = array<i64: 0>, out_axes = array<i64: 0>}> ({
// GENERIC: %{{[a-z0-9]+}} = "tensor.exp"(%{{[a-z0-9]+}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "xcs.yield"(%{{[a-z0-9]+}}) : (tensor<4xf32>) -> ()
// GENERIC: %{{[a-z0-9]+}} = "tensor.add"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @vmap_tensors(%x: tensor<8x4xf32>, %y: tensor<4x8xf32>, %w: tensor<4x4xf32>, %d: tensor<?x3xbf16>) {
  %0 = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.exp %a : tensor<4xf32>
    xcs.yield %e : tensor<4xf32>
  }
  %1:2 = xcs.vmap %x, %y, %w {in_axes = array<i64: 0, 1, -1>, out_axes = array<i64: 1, -1>} : (tensor<8x4xf32>, tensor<4x8xf32>, tensor<4x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4x4xf32>):
    %s = tensor.add %a, %b : tensor<4xf32>
    xcs.yield %s, %m : (tensor<4xf32>, tensor<4x4xf32>) -> ()
  }
  %2 = xcs.vmap %d {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<?x3xbf16> {
  ^bb0(%a: tensor<3xbf16>):
    xcs.yield %a : tensor<3xbf16>
  }
  %3 = xcs.vmap %x {in_axes = array<i64: -2>, out_axes = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4xf32>):
    xcs.yield %a : tensor<4xf32>
  }
  return
}

// vmap over strings: a rank-1 tensor of !xcs.str unbatches to !xcs.str; nested vmaps.
// CHECK-LABEL: func.func @vmap_strings(%arg0: tensor<8x!xcs.str>, %arg1: tensor<2x8x!xcs.str>) -> tensor<8x!xcs.str> {
// CHECK-NEXT: %0 = xcs.vmap %arg0 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
// CHECK-NEXT: ^bb0(%arg2: !xcs.str):
// CHECK-NEXT: %2 = xcs.llm %arg2 {model = "m", provider = "echo"} : !xcs.str
// CHECK-NEXT: xcs.yield %2 : !xcs.str
// CHECK-NEXT: }
// CHECK-NEXT: %1 = xcs.vmap %arg1 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<2x8x!xcs.str> {
// CHECK-NEXT: ^bb0(%arg2: tensor<8x!xcs.str>):
// CHECK-NEXT: %2 = xcs.vmap %arg2 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
// CHECK-NEXT: ^bb0(%arg3: !xcs.str):
// CHECK-NEXT: xcs.yield %arg3 : !xcs.str
// CHECK-NEXT: }
// CHECK-NEXT: xcs.yield %2 : tensor<8x!xcs.str>
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<8x!xcs.str>
// CHECK-NEXT: }
func.func @vmap_strings(%p: tensor<8x!xcs.str>, %q: tensor<2x8x!xcs.str>) -> tensor<8x!xcs.str> {
  %0 = xcs.vmap %p {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
  ^bb0(%s: !xcs.str):
    %r = xcs.llm %s {model = "m", provider = "echo"} : !xcs.str
    xcs.yield %r : !xcs.str
  }
  %1 = xcs.vmap %q {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<2x8x!xcs.str> {
  ^bb0(%row: tensor<8x!xcs.str>):
    %inner = xcs.vmap %row {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
    ^bb0(%s: !xcs.str):
      xcs.yield %s : !xcs.str
    }
    xcs.yield %inner : tensor<8x!xcs.str>
  }
  return %0 : tensor<8x!xcs.str>
}

// parallel_map: the same shape as vmap, with and without max_concurrency; several results.
// CHECK-LABEL: func.func @parallel_map(%arg0: tensor<8x!xcs.str>, %arg1: tensor<8x4xf32>) -> (tensor<8x!xcs.str>, tensor<8x4xf32>) {
// CHECK-NEXT: %0:2 = xcs.parallel_map %arg0, %arg1 {in_axes = array<i64: 0, 0>, max_concurrency = 4 : i64, out_axes = array<i64: 0, 0>} : (tensor<8x!xcs.str>, tensor<8x4xf32>) -> (tensor<8x!xcs.str>, tensor<8x4xf32>) {
// CHECK-NEXT: ^bb0(%arg2: !xcs.str, %arg3: tensor<4xf32>):
// CHECK-NEXT: %2 = xcs.llm %arg2 {model = "m", provider = "echo"} : !xcs.str
// CHECK-NEXT: xcs.yield %2, %arg3 : (!xcs.str, tensor<4xf32>) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: %1 = xcs.parallel_map %arg0 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
// CHECK-NEXT: ^bb0(%arg2: !xcs.str):
// CHECK-NEXT: xcs.yield %arg2 : !xcs.str
// CHECK-NEXT: }
// CHECK-NEXT: return %0#0, %0#1 : tensor<8x!xcs.str>, tensor<8x4xf32>
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}}:2 = "xcs.parallel_map"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{in_axes = array<i64: 0, 0>, max_concurrency = 4 : i64, out_axes = array<i64: 0, 0>}> ({
func.func @parallel_map(%p: tensor<8x!xcs.str>, %x: tensor<8x4xf32>) -> (tensor<8x!xcs.str>, tensor<8x4xf32>) {
  %0:2 = xcs.parallel_map %p, %x {in_axes = array<i64: 0, 0>, max_concurrency = 4 : i64, out_axes = array<i64: 0, 0>} : (tensor<8x!xcs.str>, tensor<8x4xf32>) -> (tensor<8x!xcs.str>, tensor<8x4xf32>) {
  ^bb0(%s: !xcs.str, %v: tensor<4xf32>):
    %r = xcs.llm %s {model = "m", provider = "echo"} : !xcs.str
    xcs.yield %r, %v : (!xcs.str, tensor<4xf32>) -> ()
  }
  %1 = xcs.parallel_map %p {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
  ^bb0(%s: !xcs.str):
    xcs.yield %s : !xcs.str
  }
  return %0#0, %0#1 : tensor<8x!xcs.str>, tensor<8x4xf32>
}

// The generic form: inherent attributes in either dictionary, a discardable one kept apart.
// CHECK-LABEL: func.func @generic(%arg0: tensor<4x!xcs.str>) -> tensor<4x!xcs.str> {
// CHECK-NEXT: %0 = xcs.vmap %arg0 {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<4x!xcs.str> {
// CHECK-NEXT: ^bb0(%arg1: !xcs.str):
// CHECK-NEXT: %1 = xcs.str_const {value = "Q: "} : !xcs.str
// CHECK-NEXT: %2 = xcs.format %1, %arg1 {template = "{}{}", xcs.name = "prompt"} : !xcs.str
// CHECK-NEXT: %3 = xcs.llm %2 {model = "m", provider = "echo"} : !xcs.str
// CHECK-NEXT: xcs.yield %3 : !xcs.str
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<4x!xcs.str>
// CHECK-NEXT: }
// GENERIC: %{{[a-z0-9]+}} = "xcs.format"(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) <{template = "{}{}"}> {xcs.name = "prompt"} : (!xcs.str, !xcs.str) -> !xcs.str
"func.func"() <{function_type = (tensor<4x!xcs.str>) -> tensor<4x!xcs.str>, sym_name = "generic"}> ({
^bb0(%p: tensor<4x!xcs.str>):
  %0 = "xcs.vmap"(%p) ({
  ^bb0(%s: !xcs.str):
    %1 = "xcs.str_const"() {value = "Q: "} : () -> !xcs.str
    %2 = "xcs.format"(%1, %s) <{template = "{}{}"}> {xcs.name = "prompt"} : (!xcs.str, !xcs.str) -> !xcs.str
    %3 = "xcs.llm"(%2) <{model = "m"}> {provider = "echo"} : (!xcs.str) -> !xcs.str
    "xcs.yield"(%3) : (!xcs.str) -> ()
  }) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<4x!xcs.str>) -> tensor<4x!xcs.str>
  "func.return"(%0) : (tensor<4x!xcs.str>) -> ()
}) : () -> ()

// CHECK-NEXT: }
