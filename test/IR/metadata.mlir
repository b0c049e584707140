// File metadata `{-# ... #-}` (dialect resources, reproducer configurations) is accepted and
// skipped: `dense_resource<...>` attributes keep their handle, the blobs are not printed back
// (see docs/syntax.md, "Differences from MLIR").
// RUN: xcs-test-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s

// CHECK: "test.pure"() {a = dense_resource<blob1> : tensor<2xi32>} : () -> ()
// CHECK-NOT: {-#
"test.pure"() {a = dense_resource<blob1> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  },
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(cse)",
      disable_threading: false
    }
  }
#-}
