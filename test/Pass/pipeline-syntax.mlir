// The textual pipeline syntax, the -p alias, per-pass flags and their options: each form is
// shown with --dump-pass-pipeline (mlir-opt prints the same for each).
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --pass-pipeline='builtin.module(func.func(cse,canonicalize{max-iterations=3}),symbol-dce)' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline -p 'builtin.module(func.func(cse,canonicalize{max-iterations=3}),symbol-dce)' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: xcs-test-opt %s -o /dev/null -dump-pass-pipeline -pass-pipeline='builtin.module(func.func(cse,canonicalize{max-iterations=3}),symbol-dce)' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --pass-pipeline=' builtin.module( func.func( cse , canonicalize{ max-iterations=3  top-down=false } ) )' 2>&1 | FileCheck %s --check-prefix=SPACES
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --pass-pipeline='builtin.module(any(cse),func.func(any(dce)))' 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --pass-pipeline='any(cse)' 2>&1 | FileCheck %s --check-prefix=ANYTOP
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --pass-pipeline='builtin.module()' 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --cse --canonicalize --symbol-dce 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --symbol-dce --cse 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --canonicalize=max-iterations=3 --canonicalize='top-down=false region-simplify=disabled' 2>&1 | FileCheck %s --check-prefix=FLAGOPTS
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --inline='default-pipeline=canonicalize{max-iterations=1}' 2>&1 | FileCheck %s --check-prefix=NESTEDOPT
// RUN: xcs-test-opt %s -o /dev/null --dump-pass-pipeline --pass-pipeline='builtin.module(canonicalize{disable-patterns=a,b enable-patterns={c,d}})' 2>&1 | FileCheck %s --check-prefix=LIST
// The pipeline runs: the output is the same from either spelling.
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse,canonicalize))' > %t.pipeline
// RUN: xcs-test-opt %s --cse --canonicalize > %t.flags
// RUN: diff %t.pipeline %t.flags

// NESTED:      Pass Manager with 2 passes:
// NESTED-NEXT: builtin.module(
// NESTED-NEXT:   func.func(
// NESTED-NEXT:     cse,
// NESTED-NEXT:     canonicalize{  max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
// NESTED-NEXT:   ),
// NESTED-NEXT:   symbol-dce
// NESTED-NEXT: )
// NESTED-EMPTY:
// NESTED-NOT: {{.}}

// SPACES:      func.func(
// SPACES-NEXT:   cse,
// SPACES-NEXT:   canonicalize{  max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=false}
// SPACES-NEXT: )

// ANY:      Pass Manager with 2 passes:
// ANY-NEXT: builtin.module(
// ANY-NEXT:   any(
// ANY-NEXT:     cse
// ANY-NEXT:   ),
// ANY-NEXT:   func.func(
// ANY-NEXT:     any(
// ANY-NEXT:       dce
// ANY-NEXT:     )
// ANY-NEXT:   )
// ANY-NEXT: )

// ANYTOP:      Pass Manager with 1 passes:
// ANYTOP-NEXT: any(
// ANYTOP-NEXT:   cse
// ANYTOP-NEXT: )

// EMPTY:      Pass Manager with 0 passes:
// EMPTY-NEXT: builtin.module(
// EMPTY-EMPTY:
// EMPTY-NEXT: )

// FLAGS:      Pass Manager with 3 passes:
// FLAGS-NEXT: builtin.module(
// FLAGS-NEXT:   cse,
// FLAGS-NEXT:   canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},
// FLAGS-NEXT:   symbol-dce
// FLAGS-NEXT: )

// ORDER:      builtin.module(
// ORDER-NEXT:   symbol-dce,
// ORDER-NEXT:   cse
// ORDER-NEXT: )

// FLAGOPTS:      Pass Manager with 2 passes:
// FLAGOPTS-NEXT: builtin.module(
// FLAGOPTS-NEXT:   canonicalize{  max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},
// FLAGOPTS-NEXT:   canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=disabled test-convergence=false top-down=false}
// FLAGOPTS-NEXT: )

// NESTEDOPT: inline{default-pipeline=canonicalize{max-iterations=1} inlining-threshold=4294967295 max-iterations=4 }

// LIST: canonicalize{disable-patterns={a,b} enable-patterns={c,d} max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}

func.func @f(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  %1 = test.addi %a, %a : i32
  %2 = test.muli %0, %1 : i32
  return %2 : i32
}
