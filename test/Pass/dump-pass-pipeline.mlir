// --dump-pass-pipeline prints every option with its value, as mlir-opt does.
// REQUIRES: passes
// RUN: xcs-opt %s --dump-pass-pipeline --pass-pipeline='builtin.module(func.func(cse,canonicalize),symbol-dce,inline)' -o /dev/null 2>&1 | FileCheck %s
// RUN: xcs-opt %s --dump-pass-pipeline --cse --canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS

// CHECK:      Pass Manager with 3 passes:
// CHECK-NEXT: builtin.module(
// CHECK-NEXT:   func.func(
// CHECK-NEXT:     cse,
// CHECK-NEXT:     canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
// CHECK-NEXT:   ),
// CHECK-NEXT:   symbol-dce,
// CHECK-NEXT:   inline{default-pipeline=canonicalize inlining-threshold=4294967295 max-iterations=4 }
// CHECK-NEXT: )

// FLAGS:      Pass Manager with 2 passes:
// FLAGS-NEXT: builtin.module(
// FLAGS-NEXT:   cse,
// FLAGS-NEXT:   canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
// FLAGS-NEXT: )

func.func @f() {
  return
}
