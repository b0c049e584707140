// Workloads (seed 002) written as IR text run on the interpreter, the JIT (serial and on the
// thread pool), and xcs-translate compiles them ahead of time: each half of a row is doubled
// into the other half.
// RUN: xcs-run %s --interp --input 'x=[[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22, 23]]' | FileCheck %s
// RUN: xcs-run %s --threads 1 --input 'x=[[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22, 23]]' | FileCheck %s
// RUN: xcs-run %s --threads 2 --input 'x=[[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22, 23]]' | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-translate %s --emit=llvm-ir --threads 2 -o %t/m2.ll && FileCheck %s --check-prefix=PARALLEL < %t/m2.ll
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 -o %t/m1.ll && FileCheck %s --check-prefix=SERIAL < %t/m1.ll

// CHECK:      y: tensor<3x8xf32>
// CHECK-NEXT: {{\[\[}} 8. 10. 12. 14.  0.  2.  4.  6.]
// CHECK-NEXT:  [24. 26. 28. 30. 16. 18. 20. 22.]
// CHECK-NEXT:  [40. 42. 44. 46. 32. 34. 36. 38.]]

// The grid runs on the thread pool unless the code is single-threaded.
// PARALLEL: define {{.*}}i32 @xcs_main(
// PARALLEL: call i32 @xcs_rt_parallel_for
// SERIAL: ModuleID
// SERIAL-NOT: xcs_rt_parallel_for

xcs.kernel @double {function_type = (index, index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "axis", "in", "out"], arg_names = ["r", "c", "x", "y"]} {
^bb0(%r: index, %c: index, %x: tensor<4xf32>, %y: tensor<4xf32>):
  %0 = tensor.add %x, %x : tensor<4xf32>
  xcs.yield %0 : tensor<4xf32>
}
func.func @main(%a: tensor<3x8xf32> {xcs.name = "x"}) -> (tensor<3x8xf32> {xcs.name = "y"}) {
  %o = xcs.workload %a : (tensor<3x8xf32>) -> tensor<3x8xf32> {
  ^bb0(%x: tensor<3x8xf32>, %y: tensor<3x8xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%r: index):
      xcs.parallel_for {extent = 2 : i64} : () -> () {
      ^bb0(%c: index):
        xcs.launch @double[%r, %c](%x[%r, 4*%c:4*%c + 4], %y[%r, -4*%c + 4:-4*%c + 8]) : tensor<3x8xf32>, tensor<3x8xf32>
      }
    }
  }
  return %o : tensor<3x8xf32>
}
