// The example `make run` compiles: a helper function that gets inlined, constants that fold,
// a repeated subexpression that CSE merges, and a private function nobody calls (symbol-dce).
// Run: xcs-opt examples/pipeline.mlir --pass-pipeline='builtin.module(inline,func.func(canonicalize,cse),symbol-dce)'

func.func private @scale(%x: i64) -> i64 {
  %two = test.constant {value = 2 : i64} : i64
  %y = test.muli %x, %two : i64
  return %y : i64
}

func.func private @unused(%x: i64) -> i64 {
  return %x : i64
}

func.func @main(%a: i64, %b: i64) -> (i64, i64) {
  %zero = test.constant {value = 0 : i64} : i64
  %one = test.constant {value = 1 : i64} : i64
  %s = call @scale(%a) : (i64) -> i64
  %t = test.addi %s, %zero : i64
  %u = test.muli %t, %one : i64
  %p = test.addi %u, %b : i64
  %q = test.addi %u, %b : i64
  %r = test.addi %p, %q : i64
  return %r, %p : i64, i64
}
