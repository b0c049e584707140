// Input from a file or stdin ('-' or nothing), output to stdout or -o; errors for files
// that cannot be read or written (exit 1, no panic).
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt < %s | FileCheck %s
// RUN: xcs-opt - < %s | FileCheck %s
// RUN: cat %s | xcs-opt --cse - | FileCheck %s
// RUN: xcs-opt %s -o %t.out && FileCheck %s --input-file=%t.out
// RUN: rm -f %t.eq
// RUN: xcs-opt %s -o=%t.eq 2>&1 | FileCheck %s --check-prefix=EQ --allow-empty
// RUN: FileCheck %s --input-file=%t.eq
// RUN: xcs-opt %s -o - | FileCheck %s
// RUN: not xcs-opt %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: xcs-opt %s.does-not-exist >/dev/null 2>&1; test $? -eq 1
// RUN: not xcs-opt %s -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=NOWRITE
// RUN: not xcs-opt %S 2>&1 | FileCheck %s --check-prefix=DIR
// A failed run leaves an existing output file as it was.
// RUN: echo "previous contents" > %t.keep
// RUN: not xcs-opt %S/Inputs/bad.mlir -o %t.keep 2>/dev/null
// RUN: FileCheck %s --check-prefix=KEPT --input-file=%t.keep
// Diagnostics name the file; from stdin it is <stdin>.
// RUN: not xcs-opt %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=BADFILE
// RUN: not xcs-opt < %S/Inputs/bad.mlir 2>&1 | FileCheck %s --check-prefix=BADSTDIN

// CHECK:      module {
// CHECK-NEXT:   func.func @f(%arg0: i32) -> i32 {
// CHECK-NEXT:     return %arg0 : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// EQ-NOT: error
// MISSING: cannot open input file '{{.*}}io.mlir.does-not-exist': No such file or directory
// NOWRITE: cannot write output file '{{.*}}no-such-dir/out.mlir': No such file or directory
// DIR: cannot open input file '{{.*}}Driver'
// KEPT: previous contents
// BADFILE: bad.mlir:2:3: error: Dialect `nosuch' not found for custom op 'nosuch.op'
// BADSTDIN: <stdin>:2:3: error: Dialect `nosuch' not found for custom op 'nosuch.op'

func.func @f(%a: i32) -> i32 {
  return %a : i32
}
