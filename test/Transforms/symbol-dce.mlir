// symbol-dce: private (and nested-visibility) symbols nothing live refers to are erased;
// public ones and what they reach stay. Checked against `mlir-opt --symbol-dce` on the same
// input with scf.execute_region for test.region (same output).
// RUN: xcs-test-opt %s --allow-unregistered-dialect --symbol-dce | FileCheck %s
// RUN: xcs-test-opt %s --allow-unregistered-dialect --symbol-dce | FileCheck %s --check-prefix=GONE
// RUN: xcs-test-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(symbol-dce)' | FileCheck %s
// RUN: not xcs-test-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(symbol-dce))' 2>&1 | FileCheck %s --check-prefix=TABLE

// The erased symbols are nowhere in the output: GONE has no positive match, so its -NOTs scan
// all of it (a -NOT before a match only scans up to it, and @nested_visibility, say, is
// printed after @used).
// GONE-NOT: @dead
// GONE-NOT: @dead_chain
// GONE-NOT: @nested_visibility
// GONE-NOT: @self_recursive
// GONE-NOT: @declaration_unused
// GONE-NOT: @unused_in_kept
// GONE-NOT: @unused_module
// GONE-NOT: @nested_module
// CHECK: func.func private @used()
// CHECK: func.func private @used_by_used()
// CHECK: func.func private @declaration_used(i32) -> i32
// CHECK: func.func @public_unused()
// CHECK: func.func private @in_attribute()
// CHECK: func.func private @in_nested_attribute()
// CHECK: func.func @main(
// CHECK: "foo.holder"() {refs = [@in_attribute, {k = @in_nested_attribute}]} : () -> ()

func.func private @dead() {
  call @dead_chain() : () -> ()
  return
}
func.func private @dead_chain() {
  return
}
func.func private @self_recursive() {
  call @self_recursive() : () -> ()
  return
}
func.func private @used() {
  call @used_by_used() : () -> ()
  return
}
func.func private @used_by_used() {
  return
}
func.func private @declaration_used(i32) -> i32
func.func private @declaration_unused(i32) -> i32
func.func @public_unused() {
  return
}
func.func nested @nested_visibility() {
  return
}
func.func private @in_attribute() {
  return
}
func.func private @in_nested_attribute() {
  return
}
func.func @main(%a: i32) -> i32 {
  // a use nested in a region of the function counts
  test.region : () -> () {
    func.call @used() : () -> ()
    test.yield
  }
  %0 = call @declaration_used(%a) : (i32) -> i32
  return %0 : i32
}
// a non-symbol op is live: its attribute references keep symbols alive
"foo.holder"() {refs = [@in_attribute, {k = @in_nested_attribute}]} : () -> ()

// Nested symbol tables: a private module is erased when unused; a used one keeps what is
// referenced in it (through @outer::@inner) and what public symbols in it reach.
// CHECK-LABEL: module @kept attributes {sym_visibility = "private"}
// CHECK-NEXT: func.func private @target()
// CHECK-NOT: @unused_in_kept
// CHECK: func.func @public_in_kept()
// CHECK-NEXT: call @reached_from_public()
// CHECK: func.func private @reached_from_public()
// CHECK-NOT: module @unused_module
// CHECK-NOT: module @nested_module
module @kept attributes {sym_visibility = "private"} {
  func.func private @target() {
    return
  }
  func.func private @unused_in_kept() {
    return
  }
  func.func @public_in_kept() {
    call @reached_from_public() : () -> ()
    return
  }
  func.func private @reached_from_public() {
    return
  }
}
module @unused_module attributes {sym_visibility = "private"} {
  func.func @f() {
    return
  }
}
module @nested_module attributes {sym_visibility = "nested"} {
  func.func @g() {
    return
  }
}
func.func @user() {
  "foo.use"() {ref = @kept::@target} : () -> ()
  return
}

// TABLE: error: 'func.func' op  was scheduled to run under SymbolDCE, but does not define a symbol table
