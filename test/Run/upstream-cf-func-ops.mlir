// cf.switch, cf.assert, func.constant and func.call_indirect when run: on the reference
// interpreter, and (cf.switch, cf.assert) through the LLVM JIT with the same results. The JIT
// has no function values: func.constant is reported as not supported by the LLVM backend.
//
// @pick: a switch picks a function value, which call_indirect calls.
// RUN: xcs-run %s --interp --entry pick --input x='[1, 2, 3]' --input k=1 | FileCheck %s --check-prefix=DOUBLE
// RUN: xcs-run %s --interp --entry pick --input x='[1, 2, 3]' --input k=-1 | FileCheck %s --check-prefix=NEGATE
// RUN: xcs-run %s --interp --entry pick --input x='[1, 2, 3]' --input k=7 | FileCheck %s --check-prefix=SAME
// RUN: xcs-run %s --interp --entry direct --input 0='[1, 2, 3]' | FileCheck %s --check-prefix=DOUBLE
// RUN: not xcs-run %s --entry direct --input 0='[1, 2, 3]' 2>&1 | FileCheck %s --check-prefix=NOJIT
//
// @classify: switches on i64 (negative and large case values), i8 and i1, on both backends.
// RUN: xcs-run %s --interp --entry classify --input 0=-1 --input 1=-128 --input 2=true | FileCheck %s --check-prefix=CLS1
// RUN: xcs-run %s --entry classify --input 0=-1 --input 1=-128 --input 2=true | FileCheck %s --check-prefix=CLS1
// RUN: xcs-run %s --interp --entry classify --input 0=9000000000 --input 1=5 --input 2=false | FileCheck %s --check-prefix=CLS2
// RUN: xcs-run %s --entry classify --input 0=9000000000 --input 1=5 --input 2=false | FileCheck %s --check-prefix=CLS2
// RUN: xcs-run %s --interp --entry classify --input 0=3 --input 1=127 --input 2=false | FileCheck %s --check-prefix=CLS3
// RUN: xcs-run %s --entry classify --input 0=3 --input 1=127 --input 2=false | FileCheck %s --check-prefix=CLS3
//
// @checked: cf.assert passes silently, or stops the run with its message at the op.
// RUN: xcs-run %s --interp --entry checked --input 0='[1.0, 4.0]' --input 1=true | FileCheck %s --check-prefix=HOLDS
// RUN: xcs-run %s --entry checked --input 0='[1.0, 4.0]' --input 1=true | FileCheck %s --check-prefix=HOLDS
// RUN: not xcs-run %s --interp --entry checked --input 0='[1.0, 4.0]' --input 1=false 2>&1 | FileCheck %s --check-prefix=FAILS
// RUN: not xcs-run %s --entry checked --input 0='[1.0, 4.0]' --input 1=false 2>&1 | FileCheck %s --check-prefix=FAILS

// DOUBLE: [2. 4. 6.]
// NEGATE: [-1. -2. -3.]
// SAME: [1. 2. 3.]
func.func private @double(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = tensor.add %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @negate(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = tensor.neg %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @same(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @pick(%x: tensor<3xf32> {xcs.name = "x"}, %k: i32 {xcs.name = "k"}) -> tensor<3xf32> {
  %d = func.constant @double : (tensor<3xf32>) -> tensor<3xf32>
  %n = func.constant @negate : (tensor<3xf32>) -> tensor<3xf32>
  %s = func.constant @same : (tensor<3xf32>) -> tensor<3xf32>
  cf.switch %k : i32, [
    default: ^call(%s : (tensor<3xf32>) -> tensor<3xf32>),
    1: ^call(%d : (tensor<3xf32>) -> tensor<3xf32>),
    -1: ^call(%n : (tensor<3xf32>) -> tensor<3xf32>),
    1: ^call(%n : (tensor<3xf32>) -> tensor<3xf32>)
  ]
^call(%f: (tensor<3xf32>) -> tensor<3xf32>):
  %r = func.call_indirect %f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// NOJIT: upstream-cf-func-ops.mlir:[[# @LINE + 2]]:8: error: 'func.constant' op is not supported by the LLVM backend
func.func @direct(%x: tensor<3xf32>) -> tensor<3xf32> {
  %d = func.constant @double : (tensor<3xf32>) -> tensor<3xf32>
  %r = func.call_indirect %d(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Each switch adds its case's number to a tensor<i64> (the repeated case 5 of the i8 switch
// is never taken: the first case of a value wins).
// CLS1: 111
// CLS2: 222
// CLS3: 332
func.func @classify(%wide: i64, %small: i8, %bit: i1) -> tensor<i64> {
  %zero = tensor.constant {value = dense<0> : tensor<i64>} : tensor<i64>
  %one = tensor.constant {value = dense<1> : tensor<i64>} : tensor<i64>
  %ten = tensor.constant {value = dense<10> : tensor<i64>} : tensor<i64>
  %hundred = tensor.constant {value = dense<100> : tensor<i64>} : tensor<i64>
  %two = tensor.constant {value = dense<2> : tensor<i64>} : tensor<i64>
  %twenty = tensor.constant {value = dense<20> : tensor<i64>} : tensor<i64>
  %two_hundred = tensor.constant {value = dense<200> : tensor<i64>} : tensor<i64>
  %thirty = tensor.constant {value = dense<30> : tensor<i64>} : tensor<i64>
  %three_hundred = tensor.constant {value = dense<300> : tensor<i64>} : tensor<i64>
  cf.switch %wide : i64, [
    default: ^by_small(%three_hundred : tensor<i64>),
    -1: ^by_small(%hundred : tensor<i64>),
    9000000000: ^by_small(%two_hundred : tensor<i64>)
  ]
^by_small(%a: tensor<i64>):
  cf.switch %small : i8, [
    default: ^by_bit(%a, %thirty : tensor<i64>, tensor<i64>),
    -128: ^by_bit(%a, %ten : tensor<i64>, tensor<i64>),
    5: ^by_bit(%a, %twenty : tensor<i64>, tensor<i64>),
    5: ^by_bit(%a, %zero : tensor<i64>, tensor<i64>)
  ]
^by_bit(%b: tensor<i64>, %c: tensor<i64>):
  %bc = tensor.add %b, %c : tensor<i64>
  cf.switch %bit : i1, [
    default: ^done(%bc, %zero : tensor<i64>, tensor<i64>),
    1: ^done(%bc, %one : tensor<i64>, tensor<i64>),
    0: ^done(%bc, %two : tensor<i64>, tensor<i64>)
  ]
^done(%d: tensor<i64>, %e: tensor<i64>):
  %r = tensor.add %d, %e : tensor<i64>
  return %r : tensor<i64>
}

// HOLDS: [0.5 2. ]
// FAILS:      upstream-cf-func-ops.mlir:[[# @LINE + 4]]:3: error: 'cf.assert' op assertion failed: the scale must be 50% of "x"
// FAILS-NEXT:   cf.assert %ok, "the scale must be 50% of \"x\""
// FAILS-NEXT:   ^
func.func @checked(%x: tensor<2xf32>, %ok: i1) -> tensor<2xf32> {
  cf.assert %ok, "the scale must be 50% of \"x\""
  %h = tensor.constant {value = dense<0.5> : tensor<2xf32>} : tensor<2xf32>
  %r = tensor.mul %x, %h : tensor<2xf32>
  return %r : tensor<2xf32>
}
