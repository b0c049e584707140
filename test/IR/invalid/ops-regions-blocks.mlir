// Operation, region and block syntax errors, worded and placed as MLIR does (the same file
// passes mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{expected ':' followed by operation type}}
"foo.a"()

// -----

// expected-error@+1 {{expected function type}}
"foo.a"() : i32

// -----

// expected-error@+1 {{expected 0 operand types but had 1}}
"foo.a"() : (i32) -> ()

// -----

%0 = "foo.a"() : () -> i32
// expected-error@+1 {{expected 2 operand types but had 1}}
"foo.b"(%0, %0) : (i32) -> ()

// -----

// expected-error@+1 {{operation defines 2 results but was provided 1 to bind}}
%0 = "foo.a"() : () -> (i32, i32)

// -----

// expected-error@+1 {{operation defines 1 results but was provided 2 to bind}}
%0:2 = "foo.a"() : () -> i32

// -----

// expected-error@+1 {{expected ':' followed by operation type}}
"foo.a"() <{a = 1}> <{b = 1}> : () -> ()

// -----

// expected-error@+1 {{expected attribute value}}
"foo.a"() <a> : () -> ()

// -----

// Successors come before properties and regions.
// expected-error@+1 {{expected ':' followed by operation type}}
"foo.a"() ({ "foo.b"() : () -> () }) [^bb1] : () -> ()

// -----

// expected-error@+1 {{expected ',' or ']'}}
"foo.a"()[^bb0 : () -> ()

// -----

"foo.a"() ({
^bb0:
  "foo.b"() : () -> ()
// expected-error@+1 {{redefinition of block '^bb0'}}
^bb0:
  "foo.b"() : () -> ()
}) : () -> ()

// -----

"foo.a"() ({
// expected-error@+1 {{reference to an undefined block}}
  "foo.br"()[^missing] : () -> ()
}) : () -> ()

// -----

// Block references do not cross regions.
"foo.a"() ({
  "foo.br"()[^bb1] : () -> ()
^bb1:
  "foo.r"() : () -> ()
}, {
// expected-error@+1 {{reference to an undefined block}}
  "foo.br"()[^bb1] : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{expected ')'}}
"foo.a"() ({ ^bb0(%a: i32 }) : () -> ()

// -----

// expected-error@+1 {{expected SSA operand}}
"foo.a"() ({ ^bb0(i32): "foo.b"() : () -> () }) : () -> ()

// -----

"foo.a"() ({
^bb0:
  // expected-error@+1 {{operation with block successors must terminate its parent block}}
  "foo.b"()[^bb1] : () -> ()
  "foo.c"() : () -> ()
^bb1:
  "foo.c"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{entry block of region may not have predecessors}}
"foo.a"() ({
^bb0:
  "foo.b"()[^bb0] : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{expected operation name in quotes}}
"foo.a"() ({ }) : () -> () }
