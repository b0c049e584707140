// What XCS cannot hold is an error, never a silent change: names that are not valid UTF-8
// (MLIR keeps any bytes).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{resource keys that are not valid UTF-8 are not supported}}
"foo.a"() {a = dense_resource<"\FF"> : tensor<1xi8>} : () -> ()

// -----

// expected-error@+1 {{attribute names that are not valid UTF-8 are not supported}}
"foo.a"() {"\FF" = 1} : () -> ()

// -----

// expected-error@+1 {{symbol names that are not valid UTF-8 are not supported}}
"foo.a"() {s = @"\C3"} : () -> ()

// -----

// expected-error@+1 {{location names that are not valid UTF-8 are not supported}}
"foo.a"() : () -> () loc("\FE")

// -----

// expected-error@+1 {{operation names that are not valid UTF-8 are not supported}}
"foo.\FF"() : () -> ()
