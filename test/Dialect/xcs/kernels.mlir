// Kernels (seed 002): xcs.kernel declarations, a workload with a parallel_for grid and
// launches that reference the kernel symbol. Pretty output re-parses to the same text; the
// generic output prints back identically through mlir-minimal-opt.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s | xcs-opt | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// CHECK-NEXT: xcs.kernel @flash_attn {arg_kinds = ["axis", "axis", "in", "in", "in", "out"], arg_names = ["b", "h", "Q", "K", "V", "O"], constexprs = {BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}, function_type = (index, index, tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>) -> ()}
// GENERIC: "xcs.kernel"() <{arg_kinds = ["axis", "axis", "in", "in", "in", "out"], arg_names = ["b", "h", "Q", "K", "V", "O"], constexprs = {BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}, function_type = (index, index, tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>) -> (), sym_name = "flash_attn"}> ({
// GENERIC-NEXT: }) : () -> ()
xcs.kernel @flash_attn {
  function_type = (index, index, tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>) -> (),
  arg_kinds = ["axis", "axis", "in", "in", "in", "out"],
  arg_names = ["b", "h", "Q", "K", "V", "O"],
  constexprs = {BLOCK_M = 128 : i64, BLOCK_N = 64 : i64}
}

// A kernel with a body (its implementation for lowering); a constexpr without default; an
// inout tensor.
// CHECK-NEXT: xcs.kernel @scale {arg_kinds = ["axis", "inout"], constexprs = {FACTOR = f32}, function_type = (index, tensor<8x16xf32>) -> ()} {
// CHECK-NEXT: ^bb0(%arg0: index, %arg1: tensor<8x16xf32>):
// CHECK-NEXT:   %0 = tensor.add %arg1, %arg1 : tensor<8x16xf32>
// CHECK-NEXT: }
xcs.kernel @scale {function_type = (index, tensor<8x16xf32>) -> (), arg_kinds = ["axis", "inout"], constexprs = {FACTOR = f32}} {
^bb0(%i: index, %x: tensor<8x16xf32>):
  %0 = tensor.add %x, %x : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK-NEXT:   xcs.workload : () -> () {
// CHECK-NEXT:     xcs.parallel_for %arg4 : index {
// CHECK-NEXT:     ^bb0(%arg6: index):
// CHECK-NEXT:       xcs.parallel_for %arg5 : index {
// CHECK-NEXT:       ^bb0(%arg7: index):
// CHECK-NEXT:         xcs.launch @flash_attn[%arg6, %arg7](%arg0, %arg1, %arg2, %arg3) : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
// CHECK-NEXT:         xcs.launch @flash_attn[%arg6, %arg7](%arg0, %arg1, %arg2, %arg3) {constexprs = {BLOCK_M = 64 : i64}} : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   return
// GENERIC: "xcs.workload"() ({
// GENERIC: "xcs.parallel_for"(%{{.*}}) ({
// GENERIC: "xcs.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kernel = @flash_attn, operandSegmentSizes = array<i32: 2, 4>}> : (index, index, tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>) -> ()
func.func @attention(%Q: tensor<2x4x128x64xf16>, %K: tensor<2x128x64xf16>, %V: tensor<2x128x64xf16>,
                     %O: tensor<2x4x128x64xf16>, %batch: index, %heads: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %batch : index {
    ^bb0(%b: index):
      xcs.parallel_for %heads : index {
      ^bb0(%h: index):
        xcs.launch @flash_attn[%b, %h](%Q, %K, %V, %O) : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
        xcs.launch @flash_attn[%b, %h](%Q, %K, %V, %O) {constexprs = {BLOCK_M = 64 : i64}} : tensor<2x4x128x64xf16>, tensor<2x128x64xf16>, tensor<2x128x64xf16>, tensor<2x4x128x64xf16>
      }
    }
  }
  return
}

// Dynamic dims in the operands are compatible with static parameters.
// CHECK-LABEL: func.func @scale_rows
// CHECK: xcs.launch @scale[%arg2](%arg0) {constexprs = {FACTOR = 2.000000e+00 : f32}} : tensor<?x16xf32>
func.func @scale_rows(%x: tensor<?x16xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      xcs.launch @scale[%i](%x) {constexprs = {FACTOR = 2.0 : f32}} : tensor<?x16xf32>
    }
  }
  return
}

// Generic input with the operand segments spelled out.
// CHECK-LABEL: func.func @generic
// CHECK: xcs.launch @scale[%arg3](%arg0) {constexprs = {FACTOR = 1.000000e+00 : f32}} : tensor<8x16xf32>
func.func @generic(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %n: index) {
  "xcs.workload"() ({
    "xcs.parallel_for"(%n) ({
    ^bb0(%i: index):
      "xcs.launch"(%i, %x) <{kernel = @scale, operandSegmentSizes = array<i32: 1, 1>, constexprs = {FACTOR = 1.0 : f32}}> : (index, tensor<8x16xf32>) -> ()
    }) : (index) -> ()
  }) : () -> ()
  return
}
