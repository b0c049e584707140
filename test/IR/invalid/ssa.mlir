// SSA name errors, worded and placed as MLIR does (the same file passes mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

%0 = "foo.a"() : () -> i32
// expected-error@+2 {{redefinition of SSA value '%0'}}
// expected-note@-2 {{previously defined here}}
%0 = "foo.b"() : () -> i32

// -----

// expected-error@+1 {{use of undeclared SSA value name}}
"foo.a"(%nope) : (i32) -> ()

// -----

%0 = "foo.a"() : () -> i32
// expected-error@+2 {{use of value '%0' expects different type than prior uses: 'i64' vs 'i32'}}
// expected-note@-2 {{prior use here}}
"foo.b"(%0) : (i64) -> ()

// -----

// Forward references must get the types of their uses.
"foo.a"(%fwd) : (i32) -> ()
// expected-error@+2 {{definition of SSA value '%fwd#0' has type 'i64'}}
// expected-note@-2 {{previously used here with type 'i32'}}
%fwd = "foo.b"() : () -> i64

// -----

%0:2 = "foo.a"() : () -> (i32, i32)
// expected-error@+1 {{reference to invalid result number}}
"foo.b"(%0#2) : (i32) -> ()

// -----

%0 = "foo.a"() : () -> i32
// expected-error@+1 {{reference to invalid result number}}
"foo.b"(%0#1) : (i32) -> ()

// -----

// Values of a region are not visible after it.
"foo.a"() ({
  %inner = "foo.b"() : () -> i32
}) : () -> ()
// expected-error@+1 {{use of undeclared SSA value name}}
"foo.c"(%inner) : (i32) -> ()

// -----

// A use in a region that comes before the definition in an enclosing graph region is a
// forward reference; an undefined one is an error at the use.
"foo.a"() ({
  // expected-error@+1 {{use of undeclared SSA value name}}
  "foo.b"(%later) : (i32) -> ()
}) : () -> ()

// -----

// expected-error@+1 {{expected '=' after SSA name}}
%0 "foo.a"() : () -> i32

// -----

%0:2 = "foo.a"() : () -> (i32, i32)
// expected-error@+1 {{invalid SSA value result number}}
"foo.b"(%0#x) : (i32) -> ()
