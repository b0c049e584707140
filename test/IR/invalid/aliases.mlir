// Alias errors, worded and placed as MLIR does (the same file passes mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

!t = i32
// expected-error@+1 {{redefinition of type alias id 't'}}
!t = i64

// -----

#a = 1
// expected-error@+1 {{redefinition of attribute alias id 'a'}}
#a = 2

// -----

// Type and attribute aliases must be defined before use (location aliases need not be).
// expected-error@+1 {{undefined symbol alias id 'later'}}
"foo.a"() : () -> !later
!later = i32

// -----

// expected-error@+1 {{attribute names with a '.' are reserved for dialect-defined names}}
#a.b = 1

// -----

// expected-error@+1 {{type names with a '.' are reserved for dialect-defined names}}
!a.b = i32

// -----

// expected-error@+1 {{expected '=' in attribute alias definition}}
#a 1

// -----

// expected-error@+1 {{expected '=' in type alias definition}}
!a i32
