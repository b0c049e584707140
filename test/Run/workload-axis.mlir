// A kernel body computes with its axis variables (`tensor.from_index` of its `index`
// arguments): y[r, 2*c:2*c + 2] = x[r, 2*c:2*c + 2] + 100*r + 10*c, on the interpreter and the
// JIT (serial and on the thread pool).
// RUN: xcs-run %s --interp --input 'x=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]' | FileCheck %s
// RUN: xcs-run %s --threads 1 --input 'x=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]' | FileCheck %s
// RUN: xcs-run %s --threads 2 --input 'x=[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]' | FileCheck %s
// RUN: xcs-opt %s | FileCheck %s --check-prefix=ROUND

// CHECK:      y: tensor<3x4xf32>
// CHECK-NEXT: {{\[\[}}  0.   1.  12.  13.]
// CHECK-NEXT:  [104. 105. 116. 117.]
// CHECK-NEXT:  [208. 209. 220. 221.]]

// ROUND: tensor.from_index %{{.*}} : (index) -> tensor<i64>

xcs.kernel @shift {function_type = (index, index, tensor<2xf32>, tensor<2xf32>) -> (), arg_kinds = ["axis", "axis", "in", "out"], arg_names = ["r", "c", "x", "y"]} {
^bb0(%r: index, %c: index, %x: tensor<2xf32>, %y: tensor<2xf32>):
  %ri = tensor.from_index %r : (index) -> tensor<i64>
  %ci = tensor.from_index %c : (index) -> tensor<i64>
  %h = tensor.constant {value = dense<100> : tensor<i64>} : tensor<i64>
  %t = tensor.constant {value = dense<10> : tensor<i64>} : tensor<i64>
  %a = tensor.mul %ri, %h : tensor<i64>
  %b = tensor.mul %ci, %t : tensor<i64>
  %s = tensor.add %a, %b : tensor<i64>
  %f = tensor.cast %s : (tensor<i64>) -> tensor<f32>
  %0 = tensor.add %x, %f : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  xcs.yield %0 : tensor<2xf32>
}
func.func @main(%a: tensor<3x4xf32> {xcs.name = "x"}) -> (tensor<3x4xf32> {xcs.name = "y"}) {
  %o = xcs.workload %a : (tensor<3x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%r: index):
      xcs.parallel_for {extent = 2 : i64} : () -> () {
      ^bb0(%c: index):
        xcs.launch @shift[%r, %c](%x[%r, 2*%c:2*%c + 2], %y[%r, 2*%c:2*%c + 2]) : tensor<3x4xf32>, tensor<3x4xf32>
      }
    }
  }
  return %o : tensor<3x4xf32>
}
