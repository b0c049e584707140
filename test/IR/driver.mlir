// xcs-opt reads a file or standard input (`-` or no file), writes standard output or `-o FILE`,
// and prints locations with --mlir-print-debuginfo.
// RUN: xcs-test-opt %s | FileCheck %s
// RUN: xcs-test-opt < %s | FileCheck %s
// RUN: xcs-test-opt - < %s | FileCheck %s
// RUN: xcs-test-opt %s -o %t && FileCheck %s < %t
// RUN: xcs-test-opt -o %t.2 %s && diff %t %t.2
// RUN: xcs-test-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DBG
// RUN: xcs-test-opt --mlir-print-debuginfo < %s | FileCheck %s --check-prefix=STDIN
// RUN: not xcs-test-opt %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: module {
// CHECK-NEXT: func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = test.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: loc

// DBG: func.func @f(%arg0: i32 loc("{{.*}}driver.mlir":[[@LINE+9]]:14)) -> i32 {
// DBG-NEXT: test.addi %arg0, %arg0 : i32 loc(#[[ADD:loc[0-9]*]])
// DBG: } loc(#[[FN:loc[0-9]*]])
// DBG-NEXT: } loc(#[[MOD:loc[0-9]*]])
// DBG: #[[MOD]] = loc("{{.*}}driver.mlir":0:0)
// DBG: #[[FN]] = loc("{{.*}}driver.mlir":[[@LINE+4]]:1)
// DBG: #[[ADD]] = loc("{{.*}}driver.mlir":[[@LINE+4]]:8)
// STDIN: #{{.*}} = loc("<stdin>":[[@LINE+3]]:8)
// MISSING: cannot open input file '{{.*}}.missing': No such file or directory
func.func @f(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  return %0 : i32
}
