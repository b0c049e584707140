// Verifier and parser errors of cf.assert, cf.switch, func.constant and func.call_indirect,
// with mlir-opt's messages: the same file passes both tools. (Errors only XCS reports are in
// upstream-cf-func-ops-xcs.mlir.)
// RUN: xcs-opt --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --split-input-file --verify-diagnostics %s

func.func @assert_not_i1(%x: i32) {
  // expected-error@+1 {{'cf.assert' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  "cf.assert"(%x) {msg = "m"} : (i32) -> ()
  return
}

// -----

func.func @assert_without_message(%c: i1) {
  // expected-error@+1 {{'cf.assert' op requires attribute 'msg'}}
  "cf.assert"(%c) : (i1) -> ()
  return
}

// -----

func.func @assert_message_not_a_string(%c: i1) {
  // expected-error@+1 {{'cf.assert' op attribute 'msg' failed to satisfy constraint: string attribute}}
  "cf.assert"(%c) {msg = 3 : i32} : (i1) -> ()
  return
}

// -----

// expected-note@+1 {{prior use here}}
func.func @assert_custom_form_needs_an_i1(%x: i32) {
  // expected-error@+1 {{use of value '%x' expects different type than prior uses: 'i1' vs 'i32'}}
  cf.assert %x, "m"
  return
}

// -----

func.func @switch_more_values_than_cases(%f: i32) {
  // expected-error@+1 {{'cf.switch' op number of case values (2) should match number of case destinations (1)}}
  "cf.switch"(%f)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[1, 2]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_values_of_another_type(%f: i32) {
  // expected-error@+1 {{'cf.switch' op 'flag' type ('i32') should match case value type ('i64')}}
  "cf.switch"(%f)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[1]> : vector<1xi64>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_case_segments_do_not_add_up(%f: i32, %x: i32) {
  // expected-error@+1 {{'cf.switch' op caseOperands count (1) does not match with the total size (0) specified in attribute 'case_operand_segments'}}
  "cf.switch"(%f, %x)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<[1]> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 1>}> : (i32, i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_negative_case_segment(%f: i32, %x: i32) {
  // expected-error@+1 {{'cf.switch' op 'case_operand_segments' attribute cannot have negative elements}}
  "cf.switch"(%f, %x)[^bb1, ^bb1] <{case_operand_segments = array<i32: -1>, case_values = dense<[1]> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 1>}> : (i32, i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_without_case_segments(%f: i32) {
  // expected-error@+1 {{'cf.switch' op requires attribute 'case_operand_segments'}}
  "cf.switch"(%f)[^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @switch_without_successor(%f: i32) {
  // expected-error@+1 {{'cf.switch' op requires at least 1 successors but found 0}}
  "cf.switch"(%f) <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
}

// -----

func.func @switch_on_a_float(%f: f32) {
  // expected-error@+1 {{'cf.switch' op operand #0 must be integer, but got 'f32'}}
  "cf.switch"(%f)[^bb1] <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (f32) -> ()
^bb1:
  return
}

// -----

func.func @switch_custom_form_on_a_float(%f: f32) {
  // expected-error@+1 {{custom op 'cf.switch' invalid kind of type specified: expected builtin.integer, but found 'f32'}}
  cf.switch %f : f32, [
    default: ^bb1
  ]
^bb1:
  return
}

// -----

func.func @switch_without_default(%f: i32) {
  cf.switch %f : i32, [
    // expected-error@+1 {{custom op 'cf.switch' expected 'default'}}
    42: ^bb1
  ]
^bb1:
  return
}

// -----

func.func @switch_value_beyond_64_bits(%f: i64) {
  cf.switch %f : i64, [
    default: ^bb1,
    // expected-error@+1 {{custom op 'cf.switch' integer value too large}}
    9223372036854775808: ^bb1
  ]
^bb1:
  return
}

// -----

func.func @switch_case_passes_too_much(%f: i32) {
  // expected-error@+1 {{branch has 1 operands for successor #1, but target block has 0}}
  cf.switch %f : i32, [
    default: ^bb1,
    7: ^bb1(%f : i32)
  ]
^bb1:
  return
}

// -----

func.func @switch_default_passes_too_much(%f: i32) {
  // expected-error@+1 {{branch has 1 operands for successor #0, but target block has 0}}
  cf.switch %f : i32, [
    default: ^bb1(%f : i32)
  ]
^bb1:
  return
}

// -----

func.func @constant_of_nothing() {
  // expected-error@+1 {{'func.constant' op reference to undefined function 'nope'}}
  %f = func.constant @nope : () -> ()
  return
}

// -----

func.func private @takes_i32(i32) -> i32
func.func @constant_of_another_type() {
  // expected-error@+1 {{'func.constant' op reference to function with mismatched type}}
  %f = func.constant @takes_i32 : () -> ()
  return
}

// -----

func.func private @takes_i32(i32) -> i32
func.func @constant_of_non_function_type() {
  // expected-error@+1 {{'func.constant' op reference to function with mismatched type}}
  %f = "func.constant"() <{value = @takes_i32}> : () -> i32
  return
}

// -----

func.func @constant_of_a_string() {
  // expected-error@+1 {{'func.constant' op attribute 'value' failed to satisfy constraint: flat symbol reference attribute}}
  %f = "func.constant"() {value = "g"} : () -> (() -> ())
  return
}

// -----

func.func @constant_without_value() {
  // expected-error@+1 {{'func.constant' op requires attribute 'value'}}
  %f = "func.constant"() : () -> (() -> ())
  return
}

// -----

func.func @constant_custom_form_attribute_first() {
  // expected-error@+1 {{expected ':'}}
  %0 = func.constant @constant_custom_form_attribute_first {value = @x} : () -> ()
  return
}

// -----

func.func @call_indirect_argument_types(%f: (i32) -> i32, %x: i64) {
  // expected-error@+1 {{'func.call_indirect' op failed to verify that callee input types match argument types}}
  %r = "func.call_indirect"(%f, %x) : ((i32) -> i32, i64) -> i32
  return
}

// -----

func.func @call_indirect_argument_count(%f: (i32) -> i32) {
  // expected-error@+1 {{'func.call_indirect' op failed to verify that callee input types match argument types}}
  %r = "func.call_indirect"(%f) : ((i32) -> i32) -> i32
  return
}

// -----

func.func @call_indirect_result_types(%f: (i32) -> i32, %x: i32) {
  // expected-error@+1 {{'func.call_indirect' op failed to verify that callee result types match result types}}
  %r = "func.call_indirect"(%f, %x) : ((i32) -> i32, i32) -> f32
  return
}

// -----

func.func @call_indirect_of_a_non_function(%f: i32, %x: i32) {
  // expected-error@+1 {{'func.call_indirect' op operand #0 must be function type, but got 'i32'}}
  %r = "func.call_indirect"(%f, %x) : (i32, i32) -> f32
  return
}

// -----

func.func @call_indirect_custom_form_operand_count(%f: (i32) -> i32, %x: i32) {
  // expected-error@+1 {{custom op 'func.call_indirect' number of operands and types do not match: got 2 operands and 1 types}}
  %r = func.call_indirect %f(%x, %x) : (i32) -> i32
  return
}

// -----

func.func @call_indirect_custom_form_type(%f: i32) {
  // expected-error@+1 {{custom op 'func.call_indirect' invalid kind of type specified: expected builtin.function, but found 'i32'}}
  %0 = func.call_indirect %f() : i32
  return
}
