// Errors in the custom forms of func and cf ops (the same file passes mlir-opt, which
// registers func and cf) ...
// RUN: xcs-opt --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --split-input-file --verify-diagnostics %s

// expected-error@+1 {{custom op 'func.func' expected SSA identifier}}
func.func private @f(%a: i32, f32)

// -----

// expected-error@+1 {{'sym_visibility' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func @f() attributes {sym_visibility = "private"} {
  return
}

// -----

// expected-error@+1 {{expected non-empty function body}}
func.func @f() {
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{expected ':'}}
  return %a
}

// -----

func.func @f() {
  // expected-error@+1 {{expected attribute value}}
  %0 = call f() : () -> i32
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{custom op 'func.call' invalid kind of attribute specified}}
  %0 = call @a::@b() : () -> i32
  return
}

// -----

func.func @f(%c: i1) {
  // expected-error@+1 {{expected ','}}
  cf.cond_br %c ^bb1, ^bb1
^bb1:
  return
}

// -----

// A function with a body names its arguments.
// expected-error@+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
func.func @f(i32) {
  return
}

// -----

// expected-error@+1 {{custom op 'func.func' expected valid '@'-identifier for symbol name}}
func.func f()

// -----

// expected-error@+1 {{expected ')'}}
func.func private @f(i32 i32)

// -----

// Named region arguments may not reuse a name visible where the op is (checked before the
// region's own scope starts, so even an isolated region's arguments).
// expected-note@+1 {{previously referenced here}}
func.func @outer(%c: i1) {
  // expected-error@+1 {{region entry argument '%c' is already in use}}
  func.func @inner(%c: i1) {
    return
  }
  return
}
