// classify: malformed markers are errors at the function (no guessing), and the pass needs a
// symbol table to run on.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics --classify
// RUN: not xcs-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(classify))' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// ANCHOR: error: 'func.func' op  was scheduled to run under Classify, but does not define a symbol table

// expected-error@+1 {{'func.func' op attribute 'xcs.mark' must be "tensor", "orchestration" or "hybrid", got "gpu"}}
func.func @bad_mark() attributes {xcs.mark = "gpu"} {
  return
}

// -----

// expected-error@+1 {{'func.func' op attribute 'xcs.mark' must be "tensor", "orchestration" or "hybrid", got true}}
func.func private @bad_mark_kind() attributes {xcs.mark = true}

// -----

// expected-error@+1 {{'func.func' op attribute 'xcs.module' must be a string (a dotted module path)}}
func.func private @bad_module() attributes {xcs.module = 3 : i64}

// -----

// expected-error@+1 {{'func.func' op attribute 'xcs.pytree_safe' must be a bool (true or false)}}
func.func @bad_pytree() attributes {xcs.pytree_safe = "yes", xcs.mark = "tensor"} {
  return
}

// -----

// every malformed function is reported, not only the first
// expected-error@+1 {{'xcs.mark' must be}}
func.func private @first() attributes {xcs.mark = "x"}
// expected-error@+1 {{'xcs.mark' must be}}
func.func private @second() attributes {xcs.mark = "y"}
