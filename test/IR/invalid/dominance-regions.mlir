// Dominance in the regions of XCS's ops, which MLIR does not know: test.region has an
// SSACFG region, test.graph a graph region (uses before definitions are fine), and
// test.isolated is isolated from above.
// RUN: xcs-test-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// (mlir-opt cannot check this file: to it these ops are unregistered, and the regions of
// unregistered ops may be graph regions.)

// Values defined in a nested region are used before their definition there.
func.func @f() {
  "test.region"() ({
  ^bb0:
    // expected-error@+1 {{operand #0 does not dominate this use}}
    "foo.use"(%1) : (i32) -> ()
    // expected-note@+1 {{operand defined here}}
    %1 = "foo.def"() : () -> i32
    "test.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Graph regions accept uses before definitions, and cycles.
func.func @f() {
  "test.graph"() ({
    %1 = "test.addi"(%0, %2) : (i32, i32) -> i32
    %0 = "test.constant"() <{value = 1 : i32}> : () -> i32
    %2 = "test.addi"(%1, %0) : (i32, i32) -> i32
  }) : () -> ()
  return
}

// -----

// The module body is a graph region too.
%1 = "test.addi"(%0, %0) : (i32, i32) -> i32
%0 = "test.constant"() <{value = 1 : i32}> : () -> i32

// -----

// An SSACFG region inside a graph region is checked.
"test.graph"() ({
  "test.region"() ({
    // expected-error@+1 {{operand #0 does not dominate this use}}
    "foo.use"(%0) : (i32) -> ()
    // expected-note@+1 {{operand defined here}}
    %0 = "foo.def"() : () -> i32
    "test.yield"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Isolated regions cannot use values from outside.
func.func @f(%a: i32) {
  "test.isolated"() ({
    // Values from outside are not even in scope in the parser.
    // expected-error@+1 {{use of undeclared SSA value name}}
    "foo.use"(%a) : (i32) -> ()
  }) : () -> ()
  return
}
