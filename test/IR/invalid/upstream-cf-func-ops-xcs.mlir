// Malformed cf.switch ops that mlir-opt 22 does not report: case destinations without
// `case_values` (mlir-opt crashes on it) and `case_operand_segments` whose length is not the
// number of cases (mlir-opt accepts it and then reads the wrong operands for the cases).
// RUN: xcs-opt --split-input-file --verify-diagnostics %s

func.func @cases_without_values(%f: i32) {
  // expected-error@+1 {{'cf.switch' op number of case values (0) should match number of case destinations (1)}}
  "cf.switch"(%f)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @segments_for_missing_cases(%f: i32) {
  // expected-error@+1 {{'cf.switch' op 'case_operand_segments' has 2 segments for 1 case destinations}}
  "cf.switch"(%f)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0, 0>, case_values = dense<[1]> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^bb1:
  return
}

// -----

func.func @operand_segments_do_not_add_up(%f: i32, %x: i32) {
  // expected-error@+1 {{'cf.switch' op operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
  "cf.switch"(%f, %x)[^bb1] <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 2, 0>}> : (i32, i32) -> ()
^bb1(%a: i32, %b: i32):
  return
}
