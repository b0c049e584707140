// Kernels (seed 002): xcs.kernel declarations and bodies, a workload with a parallel_for grid and
// launches that reference the kernel symbol and bind views of the workload's tensors. Pretty
// output re-parses to the same text; the generic output prints back identically through
// mlir-minimal-opt.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s | xcs-opt | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// CHECK-NEXT: xcs.kernel @flash_attn {arg_kinds = ["axis", "axis", "in", "in", "in", "out"], arg_names = ["b", "h", "Q", "K", "V", "O"], constexprs = {BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}, function_type = (index, index, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>) -> ()}
// GENERIC: "xcs.kernel"() <{arg_kinds = ["axis", "axis", "in", "in", "in", "out"], arg_names = ["b", "h", "Q", "K", "V", "O"], constexprs = {BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}, function_type = (index, index, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>) -> (), sym_name = "flash_attn"}> ({
// GENERIC-NEXT: }) : () -> ()
xcs.kernel @flash_attn {
  function_type = (index, index, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>) -> (),
  arg_kinds = ["axis", "axis", "in", "in", "in", "out"],
  arg_names = ["b", "h", "Q", "K", "V", "O"],
  constexprs = {BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}
}

// A kernel with a body, which yields the new value of its inout tensor; a constexpr without
// default.
// CHECK-NEXT: xcs.kernel @scale {arg_kinds = ["axis", "inout"], constexprs = {FACTOR = f32}, function_type = (index, tensor<8x16xf32>) -> ()} {
// CHECK-NEXT: ^bb0(%arg0: index, %arg1: tensor<8x16xf32>):
// CHECK-NEXT:   %0 = tensor.add %arg1, %arg1 : tensor<8x16xf32>
// CHECK-NEXT:   xcs.yield %0 : tensor<8x16xf32>
// CHECK-NEXT: }
xcs.kernel @scale {function_type = (index, tensor<8x16xf32>) -> (), arg_kinds = ["axis", "inout"], constexprs = {FACTOR = f32}} {
^bb0(%i: index, %x: tensor<8x16xf32>):
  %0 = tensor.add %x, %x : tensor<8x16xf32>
  xcs.yield %0 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK-NEXT:   %0 = xcs.workload %arg0, %arg1, %arg2 : (tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>) -> tensor<2x4x128x64xf16> {
// CHECK-NEXT:   ^bb0(%arg3: tensor<2x4x128x64xf16>, %arg4: tensor<2x128x64xf16>, %arg5: tensor<2x128x64xf16>, %arg6: tensor<2x4x128x64xf16>):
// CHECK-NEXT:     xcs.parallel_for {extent = 2 : i64} : () -> () {
// CHECK-NEXT:     ^bb0(%arg7: index):
// CHECK-NEXT:       xcs.parallel_for {extent = 4 : i64} : () -> () {
// CHECK-NEXT:       ^bb0(%arg8: index):
// CHECK-NEXT:         xcs.launch @flash_attn[%arg7, %arg8](%arg3[%arg7, %arg8], %arg4[%arg7], %arg5[%arg7], %arg6[%arg7, %arg8]) : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     xcs.parallel_for {extent = 2 : i64} : () -> () {
// CHECK-NEXT:     ^bb0(%arg7: index):
// CHECK-NEXT:       xcs.parallel_for {extent = 4 : i64} : () -> () {
// CHECK-NEXT:       ^bb0(%arg8: index):
// CHECK-NEXT:         xcs.launch @flash_attn[%arg7, %arg8](%arg3[%arg7, -%arg8 + 3, :], %arg4[%arg7, 0:128], %arg5[%arg7], %arg6[%arg7, %arg8]) {constexprs = {BLOCK_M = 64 : i64}} : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   return %0
// GENERIC: "xcs.workload"(%{{.*}}, %{{.*}}, %{{.*}}) ({
// GENERIC: "xcs.parallel_for"() <{extent = 2 : i64}> ({
// GENERIC: "xcs.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kernel = @flash_attn, operandSegmentSizes = array<i32: 2, 4>, views = [array<i64: -1, 0, 1, 0, -1, 0, 0, 1>, array<i64: -1, 0, 1, 0>, array<i64: -1, 0, 1, 0>, array<i64: -1, 0, 1, 0, -1, 0, 0, 1>]}> : (index, index, tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>) -> ()
func.func @attention(%Q: tensor<2x4x128x64xf16>, %K: tensor<2x128x64xf16>, %V: tensor<2x128x64xf16>) -> tensor<2x4x128x64xf16> {
  %O = xcs.workload %Q, %K, %V : (tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>) -> tensor<2x4x128x64xf16> {
  ^bb0(%q: tensor<2x4x128x64xf16>, %k: tensor<2x128x64xf16>, %v: tensor<2x128x64xf16>, %o: tensor<2x4x128x64xf16>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%b: index):
      xcs.parallel_for {extent = 4 : i64} : () -> () {
      ^bb0(%h: index):
        xcs.launch @flash_attn[%b, %h](%q[%b, %h], %k[%b], %v[%b], %o[%b, %h]) : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
      }
    }
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%b: index):
      xcs.parallel_for {extent = 4 : i64} : () -> () {
      ^bb0(%h: index):
        xcs.launch @flash_attn[%b, %h](%q[%b, 3 - %h, :], %k[%b, 0:128], %v[%b], %o[%b, %h]) {constexprs = {BLOCK_M = 64 : i64}} : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
      }
    }
  }
  return %O : tensor<2x4x128x64xf16>
}

// Views may use axis variables the kernel does not take (the view indices, a third operand
// segment); rows i of a 4x16 output and of an 8x16 one, the latter's 4+i too.
// CHECK-LABEL: func.func @view_indices
// CHECK: xcs.launch @rows[](%arg0[%arg1], %arg0[%arg1 + 4]) : tensor<8x16xf32>, tensor<8x16xf32>
// GENERIC: "xcs.launch"(%{{.*}}, %{{.*}}, %{{.*}}) <{kernel = @rows, operandSegmentSizes = array<i32: 0, 2, 1>, views = [array<i64: -1, 0, 1>, array<i64: -1, 4, 1>]}> : (tensor<8x16xf32>, tensor<8x16xf32>, index) -> ()
xcs.kernel @rows {function_type = (tensor<16xf32>, tensor<16xf32>) -> (), arg_kinds = ["out", "out"]} {
^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
  xcs.yield %x, %y : tensor<16xf32>
}
func.func @view_indices() -> tensor<8x16xf32> {
  %0 = xcs.workload : () -> tensor<8x16xf32> {
  ^bb0(%o: tensor<8x16xf32>):
    xcs.parallel_for {extent = 4 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @rows[](%o[%i], %o[%i + 4]) : tensor<8x16xf32>, tensor<8x16xf32>
    }
  }
  return %0 : tensor<8x16xf32>
}

// Generic input with the operand segments and views spelled out: rows 2*i and 2*i+1 of an
// 8x16 output, in place (inout).
// CHECK-LABEL: func.func @generic
// CHECK: xcs.launch @scale[%arg1](%arg0[2*%arg1:2*%arg1 + 8]) {constexprs = {FACTOR = 1.000000e+00 : f32}} : tensor<16x16xf32>
func.func @generic() -> tensor<16x16xf32> {
  %0 = "xcs.workload"() ({
  ^bb0(%o: tensor<16x16xf32>):
    "xcs.parallel_for"() <{extent = 1 : i64}> ({
    ^bb0(%i: index):
      "xcs.launch"(%i, %o) <{kernel = @scale, operandSegmentSizes = array<i32: 1, 1>, constexprs = {FACTOR = 1.0 : f32}, views = [array<i64: 8, 0, 2>]}> : (index, tensor<16x16xf32>) -> ()
    }) : () -> ()
  }) : () -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
