// SSA dominance, checked by the verifier as MLIR defines it (the same file passes mlir-opt).
// RUN: xcs-test-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// Within a block.
func.func @f() {
  // expected-error@+1 {{operand #0 does not dominate this use}}
  "foo.use"(%0) : (i32) -> ()
  // expected-note@+1 {{operand defined here (op in the same block)}}
  %0 = "foo.def"() : () -> i32
  return
}

// -----

// Across blocks: a sibling block does not dominate.
func.func @f(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-note@+1 {{operand defined here (op in the same region)}}
  %0 = "foo.def"() : () -> i32
  cf.br ^bb3
^bb2:
  // expected-error@+1 {{operand #0 does not dominate this use}}
  "foo.use"(%0) : (i32) -> ()
  cf.br ^bb3
^bb3:
  return
}

// -----

// A block argument used in a block it does not dominate (the note is at the region's op).
// expected-note@+1 {{operand defined as a block argument (block #1 in the same region)}}
func.func @f(%c: i1) {
  cf.cond_br %c, ^bb1(%c : i1), ^bb2
^bb1(%a: i1):
  cf.br ^bb2
^bb2:
  // expected-error@+1 {{operand #0 does not dominate this use}}
  "foo.use"(%a) : (i1) -> ()
  return
}

// -----

// An op's result used in its own region.
func.func @f() {
  // expected-error@+3 {{operand #0 does not dominate this use}}
  // expected-note@+1 {{operand defined here (op in a parent region)}}
  %0 = "test.region"() ({
    "foo.use"(%0) : (i32) -> ()
    "test.yield"() : () -> ()
  }) : () -> i32
  return
}

// -----

// Into a nested region: a value defined later in the enclosing block.
func.func @f() {
  "test.region"() ({
    // expected-error@+1 {{operand #0 does not dominate this use}}
    "foo.use"(%0) : (i32) -> ()
    "test.yield"() : () -> ()
  }) : () -> ()
  // expected-note@+1 {{operand defined here}}
  %0 = "foo.def"() : () -> i32
  return
}

// -----

// Unreachable blocks are not checked; a self-referencing op in one is fine.
func.func @f() {
  return
^bb1:
  %0 = "foo.loop"(%0) : (i32) -> i32
  cf.br ^bb1
}
