// Affine map, integer set and strided layout errors, worded and placed as MLIR does (the same
// file passes mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{use of undeclared identifier}}
"foo.a"() {a = affine_map<(d0) -> (d1)>} : () -> ()

// -----

// expected-error@+1 {{redefinition of identifier 'd0'}}
"foo.a"() {a = affine_map<(d0, d0) -> (d0)>} : () -> ()

// -----

// expected-error@+1 {{expected '->' or ':'}}
"foo.a"() {a = affine_map<(d0) (d0)>} : () -> ()

// -----

// expected-error@+1 {{expected '(' in affine map range}}
"foo.a"() {a = affine_map<(d0) -> d0>} : () -> ()

// -----

// expected-error@+1 {{expected ')' in affine map range}}
"foo.a"() {a = affine_map<(d0) -> (d0 d0)>} : () -> ()

// -----

// expected-error@+1 {{missing right operand of binary operator}}
"foo.a"() {a = affine_map<(d0) -> (d0 +)>} : () -> ()

// -----

// expected-error@+1 {{missing left operand of binary operator}}
"foo.a"() {a = affine_map<(d0) -> (* d0)>} : () -> ()

// -----

// expected-error@+1 {{non-affine expression: at least one of the multiply operands has to be either a constant or symbolic}}
"foo.a"() {a = affine_map<(d0, d1) -> (d0 * d1)>} : () -> ()

// -----

// expected-error@+1 {{non-affine expression: right operand of floordiv has to be either a constant or symbolic}}
"foo.a"() {a = affine_map<(d0, d1) -> (d0 floordiv d1)>} : () -> ()

// -----

// expected-error@+1 {{no expression inside parentheses}}
"foo.a"() {a = affine_map<(d0) -> (())>} : () -> ()

// -----

// expected-error@+1 {{expected '(' in dimensional identifier list}}
"foo.a"() {a = affine_map<d0 -> (d0)>} : () -> ()

// -----

// expected-error@+1 {{expected '== affine-expr' or '>= affine-expr' at end of affine constraint}}
"foo.a"() {a = affine_set<(d0) : (d0 > 0)>} : () -> ()

// -----

// expected-error@+1 {{expected AffineMap, but got IntegerSet}}
"foo.a"() {a = affine_map<(d0) : (d0 >= 0)>} : () -> ()

// -----

// expected-error@+1 {{expected 'offset' after comma}}
"foo.a"() {a = strided<[1], 0>} : () -> ()

// -----

// expected-error@+1 {{expected a 64-bit signed integer or '?'}}
"foo.a"() {a = strided<[x]>} : () -> ()
