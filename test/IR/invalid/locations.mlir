// Location syntax errors, worded and placed as MLIR does (the same file passes
// mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{expected '(' in location}}
"foo.a"() : () -> () loc "x":1:2

// -----

// expected-error@+1 {{expected integer line number in FileLineColRange}}
"foo.a"() : () -> () loc("f":x)

// -----

// expected-error@+1 {{expected ')' in location}}
"foo.a"() : () -> () loc("f":1:2

// -----

// expected-error@+1 {{expected 'at' in callsite}}
"foo.a"() : () -> () loc(callsite("a":1:1 "b":2:2))

// -----

// expected-error@+1 {{expected '[' in fused location}}
"foo.a"() : () -> () loc(fused("a":1:1))

// -----

// expected-error@+1 {{expected location instance}}
"foo.a"() : () -> () loc(12)

// -----

// expected-error@+1 {{expected location instance}}
"foo.a"() : () -> () loc(bogus)

// -----

// A location alias that is never defined.
// expected-error@+1 {{operation location alias was never defined}}
"foo.a"() : () -> () loc(#undefined)

// -----

// A location alias must be a location.
#notloc = 1 : i32
// expected-error@+1 {{expected location, but found '1 : i32'}}
"foo.a"() : () -> () loc(#notloc)

// -----

// expected-error@+1 {{expected ')' in location}}
"foo.a"() : () -> () loc(unknown unknown)
