// Attribute syntax errors, worded and placed as MLIR does (the same file passes
// mlir-minimal-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{integer constant out of range for attribute}}
"foo.a"() {a = 256 : i8} : () -> ()

// -----

// expected-error@+1 {{negative integer literal not valid for unsigned integer type}}
"foo.a"() {a = -1 : ui8} : () -> ()

// -----

// expected-error@+1 {{integer literal not valid for specified type}}
"foo.a"() {a = 1 : tensor<2xi32>} : () -> ()

// -----

// expected-error@+1 {{floating point value not valid for specified type}}
"foo.a"() {a = 1.5 : i32} : () -> ()

// -----

// expected-error@+2 {{unexpected decimal integer literal for a floating point value}}
// expected-note@+1 {{add a trailing dot to make the literal a float}}
"foo.a"() {a = 1 : f32} : () -> ()

// -----

// expected-error@+1 {{hexadecimal float literal should not have a leading minus}}
"foo.a"() {a = -0x3F800000 : f32} : () -> ()

// -----

// expected-error@+1 {{hexadecimal float constant out of range for type}}
"foo.a"() {a = 0x1FFFF : f16} : () -> ()

// -----

// expected-error@+1 {{duplicate key 'a' in dictionary attribute}}
"foo.a"() {a = 1, a = 2} : () -> ()

// -----

// expected-error@+1 {{expected attribute name}}
"foo.a"() {1 = 2} : () -> ()

// -----

// expected-error@+1 {{expected '}' in attribute dictionary}}
"foo.a"() {a = 1 b = 2} : () -> ()

// -----

// expected-error@+1 {{expected ',' or ']'}}
"foo.a"() {a = [1 2]} : () -> ()

// -----

// expected-error@+1 {{expected ':' after dense array type}}
"foo.a"() {a = array<i64 1>} : () -> ()

// -----

// expected-error@+1 {{expected integer literal}}
"foo.a"() {a = array<i64: 1.5>} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range}}
"foo.a"() {a = array<i8: 300>} : () -> ()

// -----

// expected-error@+1 {{expected ']'}}
"foo.a"() {a = dense<[1, 2> : tensor<2xi32>} : () -> ()

// -----

// expected-error@+1 {{inferred shape of elements literal ([3]) does not match type ([2])}}
"foo.a"() {a = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()

// -----

// expected-error@+1 {{expected integer elements, but parsed floating-point}}
"foo.a"() {a = dense<1.5> : tensor<2xi32>} : () -> ()

// -----

// expected-error@+1 {{elements hex data size is invalid for provided type}}
"foo.a"() {a = dense<"0x0102"> : tensor<4xi32>} : () -> ()

// -----

// expected-error@+1 {{elements literal type must have static shape}}
"foo.a"() {a = dense<1> : tensor<?xi32>} : () -> ()

// -----

// expected-error@+1 {{expected ':'}}
"foo.a"() {a = dense<1>} : () -> ()

// -----

// expected-error@+1 {{expected '>' to close distinct attribute}}
"foo.a"() {a = distinct[0]<1 2>} : () -> ()

// -----

// expected-error@+1 {{expected nested symbol reference identifier}}
"foo.a"() {a = @a::b} : () -> ()

// -----

// expected-error@+1 {{undefined symbol alias id 'nope'}}
"foo.a"() {a = #nope} : () -> ()

// -----

// expected-error@+1 {{expected attribute value}}
"foo.a"() {a = } : () -> ()

// -----

// One distinct id refers to one attribute in the whole input.
"foo.a"() {a = distinct[0]<1 : i32>} : () -> ()
// expected-error@+1 {{referenced attribute does not match previous definition: 1 : i32}}
"foo.a"() {a = distinct[0]<2 : i32>} : () -> ()

// -----

// expected-error@+1 {{sparse index #1 is not contained within the value shape, with index=[1, 9], and type='tensor<3x4xi32>'}}
"foo.a"() {a = sparse<[[0, 0], [1, 9]], [1, 5]> : tensor<3x4xi32>} : () -> ()

// -----

// expected-error@+1 {{expected shape ([3, 4]); inferred shape of indices literal ([2, 2]); inferred shape of values literal ([1])}}
"foo.a"() {a = sparse<[[0, 0], [1, 2]], [1]> : tensor<3x4xi32>} : () -> ()

// -----

// expected-error@+1 {{expected 1-d tensor for sparse element values}}
"foo.a"() {a = sparse<[[0, 0], [1, 2]], [[1, 5]]> : tensor<3x4xi32>} : () -> ()

// -----

// expected-error@+1 {{elements literal type must have static shape}}
"foo.a"() {a = sparse<[0], [1]> : tensor<?xi32>} : () -> ()

// -----

// Zero-width integers hold 0 only, and not -0.
// expected-error@+1 {{integer constant out of range for attribute}}
"foo.a"() {a = -0 : si0} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for attribute}}
"foo.a"() {a = 1 : i0} : () -> ()

// -----

// expected-error@+1 {{elements hex data size is invalid for provided type: 'tensor<1xi32>'}}
"foo.a"() {a = sparse<0, "0x01"> : tensor<3xi32>} : () -> ()

// -----

// expected-error@+1 {{`dense_resource` expected a shaped type}}
"foo.a"() {a = dense_resource<k> : i32} : () -> ()
