// File metadata: the blobs of `dense_resource` attributes (the `builtin` dialect's resources)
// and `external_resources` are kept and printed back after the module as mlir-opt prints them:
// keys quoted when they are not bare identifiers, hex in uppercase with the alignment first,
// only the blobs the printed attributes use, in order of first use; external resources as
// written (duplicates kept, empty groups dropped).
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs

// CHECK:      "foo.a"() {a = dense_resource<second> : tensor<2xi32>, b = [dense_resource<first> : tensor<3xi8>]} : () -> ()
// CHECK-NEXT: "foo.b"() {k = dense_resource<"blob\\-\22one\22"> : tensor<1xi16>, n = dense_resource<no_data> : tensor<2xf32>} : () -> ()
// CHECK-NEXT: "foo.c"() {e = dense_resource<empty> : tensor<0xi8>, f = dense_resource<first> : tensor<3xi8>} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-EMPTY:
// CHECK-NEXT: {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       second: "0x040000000100000002000000",
// CHECK-NEXT:       first: "0x01000000ABCDEF",
// CHECK-NEXT:       "blob\\-\22one\22": "0x020000000700",
// CHECK-NEXT:       empty: "0x00000000"
// CHECK-NEXT:     }
// CHECK-NEXT:   },
// CHECK-NEXT:   external_resources: {
// CHECK-NEXT:     mlir_reproducer: {
// CHECK-NEXT:       pipeline: "builtin.module(cse)",
// CHECK-NEXT:       disable_threading: false
// CHECK-NEXT:     },
// CHECK-NEXT:     my_tool: {
// CHECK-NEXT:       "a key": "0x08000000FF",
// CHECK-NEXT:       flag: true,
// CHECK-NEXT:       flag: false,
// CHECK-NEXT:       note: "with \22quotes\22 and #-} inside"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
// CHECK-NOT: unused
"foo.a"() {a = dense_resource<second> : tensor<2xi32>, b = [dense_resource<first> : tensor<3xi8>]} : () -> ()
"foo.b"() {k = dense_resource<"blob\\-\22one\22"> : tensor<1xi16>, n = dense_resource<no_data> : tensor<2xf32>} : () -> ()
"foo.c"() {e = dense_resource<empty> : tensor<0xi8>, f = dense_resource<first> : tensor<3xi8>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      unused: "0x0100000001",
      first: "0x01000000abcdef",
      second: "0x040000000100000002000000",
      "blob\\-\22one\22": "0x020000000700",
      // an empty blob keeps no alignment
      empty: "0x08000000"
    }
  },
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(cse)",
      disable_threading: false
    },
    empty_group: {},
    my_tool: {
      "a key": "0x08000000ff",
      flag: true,
      flag: false,
      note: "with \22quotes\22 and #-} inside"
    }
  }
#-}
