// ... and in the uniform pretty form of XCS's ops.
// RUN: xcs-test-opt --split-input-file --verify-diagnostics %s

func.func @f(%a: i32) {
  // expected-error@+1 {{expected ':' followed by the operand and result types}}
  %0 = test.addi %a, %a
  return
}

// -----

func.func @f(%a: i32) {
  // The one type is given to every operand and result.
  // expected-error@+1 {{use of value '%a' expects different type than prior uses: 'i64' vs 'i32'}}
  %0 = test.addi %a, %a : i64
  // expected-note@-4 {{prior use here}}
  return
}

// -----

// Ops with regions always have a type signature: a `{` before it is the attribute
// dictionary.
// expected-error@+1 {{expected attribute name}}
test.region {
^bb0:
  test.yield
}
