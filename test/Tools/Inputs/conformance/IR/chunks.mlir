// Three chunks: two that round-trip, one that mlir-opt rejects (skipped).
func.func @f(%a: i32) -> i32 {
  return %a : i32
}

// -----

"foo.op"() {r = dense_resource<b> : tensor<2xi8>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      b: "0x010000000102"
    }
  }
#-}

// -----

"foo.op"() {a = 256 : i8} : () -> ()
