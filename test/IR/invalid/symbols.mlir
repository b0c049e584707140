// Symbols: uniqueness within symbol tables, and uses that must resolve (the same file
// passes mlir-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-note@+1 {{see existing symbol definition here}}
func.func private @f()
// expected-error@+1 {{redefinition of symbol named 'f'}}
func.func private @f()

// -----

// Nested modules are their own symbol tables.
func.func private @f()
module {
  func.func private @f()
}

// -----

func.func @f() {
  // expected-error@+1 {{'func.call' op 'missing' does not reference a valid function}}
  call @missing() : () -> ()
  return
}

// -----

func.func private @g(i32) -> i32
func.func @f(%a: i64) {
  // expected-error@+1 {{'func.call' op operand type mismatch: expected operand type 'i32', but provided 'i64' for operand number 0}}
  %0 = call @g(%a) : (i64) -> i32
  return
}

// -----

func.func private @g(i32) -> i32
func.func @f(%a: i32) {
  // expected-error@+1 {{'func.call' op incorrect number of operands for callee}}
  %0 = call @g(%a, %a) : (i32, i32) -> i32
  return
}

// -----

func.func private @g(i32) -> i32
func.func @f(%a: i32) {
  // expected-error@+3 {{'func.call' op result type mismatch at index 0}}
  // expected-note@+2 {{op result types: 'i64'}}
  // expected-note@+1 {{function result types: 'i32'}}
  %0 = call @g(%a) : (i32) -> i64
  return
}

// -----

// -----

// Unregistered ops with a `sym_name` (here a property, an unregistered op's inherent
// attribute) are symbols of the enclosing table too.
// expected-note@+1 {{see existing symbol definition here}}
"foo.sym"() <{sym_name = "s"}> : () -> ()
// expected-error@+1 {{redefinition of symbol named 's'}}
"foo.sym"() {sym_name = "s"} : () -> ()
