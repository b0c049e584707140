// What XCS cannot hold is an error, never a silent change: an `f80`/`f128` hex literal whose
// value an f64 cannot hold exactly (float attributes of these types hold an f64 value; MLIR
// accepts it), resource keys and attribute names that are not valid UTF-8.
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{hexadecimal literal of type 'f80' is not supported: XCS holds 'f80' attribute values as f64, which cannot represent this one exactly}}
"foo.a"() {a = 0x3FFF8000000000000001 : f80} : () -> ()

// -----

// expected-error@+1 {{hexadecimal literal of type 'f128' is not supported}}
"foo.a"() {a = 0x3FFF0000000000000000000000000001 : f128} : () -> ()

// -----

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
