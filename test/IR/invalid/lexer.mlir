// Lexical errors, worded and placed as MLIR does (the same file passes mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{unexpected character}}
"foo.a"() : () -> () ` 

// -----

// expected-error@+1 {{unexpected character}}
'foo.a'() : () -> ()

// -----

// expected-error@+1 {{unknown escape in string literal}}
"foo.a"() {a = "\q"} : () -> ()

// -----

// expected-error@+1 {{expected '"' in string literal}}
"foo.a"() {a = "unterminated} : () -> ()

// -----

// expected-error@+1 {{invalid SSA name}}
% = "foo.a"() : () -> i32

// -----

// expected-error@+1 {{invalid block name}}
"foo.a"() ({ ^: "foo.b"() : () -> () }) : () -> ()

// -----

// expected-error@+1 {{@ identifier expected to start with letter or '_'}}
"foo.a"() {a = @} : () -> ()

// -----

// expected-error@+1 {{invalid type identifier}}
"foo.a"() : () -> !

// -----

// expected-error@+1 {{invalid attribute name}}
"foo.a"() {a = #} : () -> ()

// -----

// expected-error@+1 {{expected valid attribute name}}
"foo.a"() {"" = 1} : () -> ()

// -----

// A `#` that is not followed by a digit ends a value name.
// expected-error@+1 {{expected '=' after SSA name}}
%x#a = "foo.a"() : () -> i32

// -----

// A lone `/` is not a comment, and not a lexical error either.
// expected-error@+1 {{expected operation name in quotes}}
/x
