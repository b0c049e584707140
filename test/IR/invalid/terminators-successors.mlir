// Terminators and successors (the same file passes mlir-opt).
// RUN: xcs-test-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// A function body must end in a terminator (an unregistered op might be one: it is not
// reported).
func.func @f() {
  // expected-error@+1 {{block with no terminator, has "func.call"() <{callee = @f}> : () -> ()}}
  call @f() : () -> ()
}

// -----

// A terminator in the middle of a block.
func.func @f() {
  // expected-error@+1 {{'func.return' op must be the last operation in the parent block}}
  return
  "foo.x"() : () -> ()
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{branch has 0 operands for successor #0, but target block has 1}}
  cf.br ^bb1
^bb1(%x: i32):
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{type mismatch for bb argument #0 of successor #0}}
  cf.br ^bb1(%a : i32)
^bb1(%x: i64):
  return
}

// -----

func.func @f(%a: i32, %c: i1) {
  // expected-error@+1 {{branch has 1 operands for successor #1, but target block has 0}}
  "cf.cond_br"(%c, %a) [^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (i1, i32) -> ()
^bb1:
  return
}

// -----

// The entry block cannot be a successor (reported at the region's op).
// expected-error@+1 {{entry block of region may not have predecessors}}
func.func @f() {
^bb0:
  cf.br ^bb0
}

// -----

// Successors of terminators must be in the same region.
func.func @f() {
  "test.region"() ({
    // expected-error@+1 {{reference to an undefined block}}
    cf.br ^bb1
  }) : () -> ()
^bb1:
  return
}

// -----

// An op with successors must be a terminator.
func.func @f() {
  // expected-error@+1 {{operation with block successors must terminate its parent block}}
  "foo.br"() [^bb1] : () -> ()
  "foo.x"() : () -> ()
  cf.br ^bb1
^bb1:
  return
}

// -----

// cf.br needs exactly one successor.
func.func @f() {
  // expected-error@+1 {{'cf.br' op requires 1 successor but found 2}}
  "cf.br"() [^bb1, ^bb1] : () -> ()
^bb1:
  return
}
