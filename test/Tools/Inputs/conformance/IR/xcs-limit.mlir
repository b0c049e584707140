// An attribute name that is not valid UTF-8: MLIR keeps the bytes, XCS reports an error.
"foo.op"() {"\FF" = 1} : () -> ()
