// A `dense_resource` constant reads its blob (raw little-endian elements) on the interpreter
// and the JIT; without data, or with data of the wrong size, it is an error, never zeros.
// RUN: xcs-run %s --backend=interp | FileCheck %s
// RUN: xcs-run %s | FileCheck %s
// RUN: sed 's/"0x04000000[0-9A-F]*"/"0x040000000000803F"/' %s > %t.short.txt
// RUN: not xcs-run %t.short.txt --backend=interp 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: sed '/^{-#/,/^#-}/d' %s > %t.none.txt
// RUN: not xcs-run %t.none.txt --backend=interp 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: result0: tensor<2x2xf32>
// CHECK-NEXT: {{\[\[}}1.  2. ]
// CHECK-NEXT: [3.  4.5]]
// SHORT: error: 'tensor.constant' op dense_resource<weights>: dense storage has 4 bytes, but 4 f32 elements need 16
// NONE: error: 'tensor.constant' op dense_resource<weights> has no data (the file's dialect_resources section has no blob 'weights')
func.func @main() -> tensor<2x2xf32> {
  %0 = tensor.constant {value = dense_resource<weights> : tensor<2x2xf32>} : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000009040"
    }
  }
#-}
