// What each op's declaration checks (operand and result counts and types, attributes,
// regions, traits) and the test dialect's custom verifier. XCS's own ops, so no mlir-opt.
// RUN: xcs-test-opt --split-input-file --verify-diagnostics %s

// expected-error@+1 {{'test.addi' op requires 2 operands, but found 1}}
%0 = "test.addi"(%a) : (i32) -> i32
%a = "test.constant"() <{value = 1 : i32}> : () -> i32

// -----

%a = "test.constant"() <{value = 1 : i32}> : () -> i32
// expected-error@+1 {{'test.addi' op requires 1 result, but found 2}}
%0:2 = "test.addi"(%a, %a) : (i32, i32) -> (i32, i32)

// -----

%a = "test.constant"() <{value = 1.0 : f32}> : () -> f32
// expected-error@+1 {{'test.addi' op operand #0 must be signless integer, but got 'f32'}}
%0 = "test.addi"(%a, %a) : (f32, f32) -> f32

// -----

%a = "test.constant"() <{value = 1 : i32}> : () -> i32
// expected-error@+1 {{'test.addi' op requires the same type for all operands and results}}
%0 = "test.addi"(%a, %a) : (i32, i32) -> i64

// -----

// expected-error@+1 {{'test.constant' op requires attribute 'value'}}
%0 = "test.constant"() : () -> i32

// -----

// expected-error@+1 {{'test.positive' op attribute 'value' failed to satisfy constraint: integer attribute}}
"test.positive"() <{value = "one"}> : () -> ()

// -----

// The test dialect's custom verifier.
// expected-error@+1 {{'test.positive' op attribute 'value' must be positive, but got -3}}
"test.positive"() <{value = -3 : i64}> : () -> ()

// -----

// expected-error@+1 {{'func.func' op attribute 'sym_name' failed to satisfy constraint: string attribute}}
"func.func"() <{function_type = () -> (), sym_name = 1 : i32}> ({}) : () -> ()

// -----

// expected-error@+1 {{'test.region' op requires 1 regions, but found 2}}
"test.region"() ({
  "test.yield"() : () -> ()
}, {
  "test.yield"() : () -> ()
}) : () -> ()

// -----

// test.graph has a single block.
// expected-error@+1 {{'test.graph' op expects region #0 to have 0 or 1 blocks}}
"test.graph"() ({
  "test.pure"() : () -> ()
^bb1:
  "test.pure"() : () -> ()
}) : () -> ()

// -----

// Regions of test.region need a terminator.
"test.region"() ({
  // expected-error@+1 {{block with no terminator}}
  "test.pure"() : () -> ()
}) : () -> ()

// -----

// A terminator that is not last.
"test.region"() ({
  // expected-error@+1 {{'test.yield' op must be the last operation in the parent block}}
  "test.yield"() : () -> ()
  "test.pure"() : () -> ()
  "test.yield"() : () -> ()
}) : () -> ()

// -----

// Symbol uses are verified by the op (test.symbol_user) against the nearest symbol table.
"test.symbol"() <{sym_name = "present"}> : () -> ()
"test.symbol_user"() <{symbol = @present}> : () -> ()
// expected-error@+1 {{'test.symbol_user' op 'absent' does not reference a valid symbol}}
"test.symbol_user"() <{symbol = @absent}> : () -> ()

// -----

// Symbol tables other than modules.
"test.symbol_table"() ({
  // expected-note@+1 {{see existing symbol definition here}}
  "test.symbol"() <{sym_name = "s"}> : () -> ()
  // expected-error@+1 {{redefinition of symbol named 's'}}
  "test.symbol"() <{sym_name = "s"}> : () -> ()
}) : () -> ()

// -----

// Tensor ops check shapes.
func.func @f(%a: tensor<4x8xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.add' op shapes 4x8 and 3 do not broadcast (dimension 8 vs 3)}}
  %0 = tensor.add %a, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return
}

// -----

// xcs.vmap's region must end in xcs.yield.
func.func @f(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'xcs.vmap' op expects regions to end with 'xcs.yield', found 'test.yield'}}
  %r = xcs.vmap %x {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%e: tensor<4xf32>):
    test.yield %e : tensor<4xf32>
  }
  return %r : tensor<8x4xf32>
}
