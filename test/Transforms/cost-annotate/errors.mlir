// cost-annotate's errors: bad `cost.dims` (wrong rank, malformed or non-string entries, a name
// for a static dim, not an array, not a tensor), dims a call cannot bind, recursion, bad
// `bind=` syntax, and warnings for ops without a cost kernel.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --cost-annotate
// RUN: not xcs-opt %S/Inputs/empty.mlir --pass-pipeline='builtin.module(cost-annotate{bind=batch_size})' 2>&1 | FileCheck %s --check-prefix=BIND1
// RUN: not xcs-opt %S/Inputs/empty.mlir --pass-pipeline='builtin.module(cost-annotate{bind=batch_size=x})' 2>&1 | FileCheck %s --check-prefix=BIND2
// RUN: not xcs-opt %S/Inputs/empty.mlir --pass-pipeline='builtin.module(cost-annotate{bind=1x=2})' 2>&1 | FileCheck %s --check-prefix=BIND3
// RUN: not xcs-opt %S/Inputs/empty.mlir --cost-annotate --cost-report=%t.missing-dir/r.json 2>&1 | FileCheck %s --check-prefix=REPORT

// BIND1: error: failed to add `cost-annotate` with options `bind=batch_size`: binding 'batch_size' is not of the form name=value
// BIND2: error: failed to add `cost-annotate` with options `bind=batch_size=x`: binding 'batch_size=x': 'x' is not an integer
// BIND3: error: failed to add `cost-annotate` with options `bind=1x=2`: binding '1x=2': '1x' is not a variable name
// REPORT: error: cost-annotate: cannot write the report '{{.*}}r.json':

// expected-error@+1 {{'cost.dims' of argument #0 has 1 entries, but the argument has rank 2}}
func.func @rank(%x: tensor<?x8xf32> {cost.dims = ["batch_size"]}) {
  return
}

// -----

// expected-error@+1 {{'cost.dims' entry #0 of argument #0, "batch_size *", is malformed: unexpected end of formula, expected an integer, a name, '(', '+' or '-' (at column 13)}}
func.func @malformed(%x: tensor<?x8xf32> {cost.dims = ["batch_size *", 8]}) {
  return
}

// -----

// expected-error@+1 {{'cost.dims' entry #1 of argument #0 is "n", but that dim is static (8)}}
func.func @static(%x: tensor<?x8xf32> {cost.dims = ["batch_size", "n"]}) {
  return
}

// -----

// expected-error@+1 {{'cost.dims' of argument #0 must be an array of dim names and numbers}}
func.func @notarray(%x: tensor<?x8xf32> {cost.dims = "batch_size"}) {
  return
}

// -----

// expected-error@+1 {{'cost.dims' entry #0 of argument #0 must be a dim name (string) or a number}}
func.func @entry(%x: tensor<?x8xf32> {cost.dims = [1.5, 8]}) {
  return
}

// -----

// expected-error@+1 {{'cost.dims' on argument #0, which is not a ranked tensor}}
func.func @scalar(%x: i32 {cost.dims = ["n"]}) {
  return
}

// -----

// A callee's dims are bound from the call's operands only where a dim name is a whole dim:
// `n*m` cannot be split.
func.func private @f(%x: tensor<?xf32> {cost.dims = ["n*m"]}) -> tensor<?xf32> {
  %0 = tensor.exp %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @g(%x: tensor<?xf32> {cost.dims = ["k"]}) -> tensor<?xf32> {
  // expected-error@+1 {{'func.call' op cost-annotate: cannot bind 'm', 'n' of @f at this call: a dim name is bound only where it is a whole dim of an argument}}
  %0 = call @f(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'func.call' op is part of a recursive call cycle (@a -> @b -> @a); cost-annotate needs an acyclic call graph}}
  %0 = call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An op on tensors without a cost kernel is counted as 0, with a warning.
func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning@+1 {{cost-annotate: 'other.op' has no cost kernel; it is counted as 0}}
  %0 = "other.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
