// func.func, func.return and func.call rules (the same file passes mlir-opt).
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

// expected-error@+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (i32) -> (), sym_name = "f"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{'func.func' op type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')}}
"func.func"() <{function_type = (i32) -> (), sym_name = "f"}> ({
^bb0(%a: i64):
  "func.return"() : () -> ()
}) : () -> ()

// -----

func.func @f() -> i32 {
  // expected-error@+1 {{'func.return' op has 0 operands, but enclosing function (@f) returns 1}}
  return
}

// -----

func.func @f(%a: i64) -> i32 {
  // expected-error@+1 {{type of return operand 0 ('i64') doesn't match function result type ('i32') in function @f}}
  return %a : i64
}

// -----

// A declaration must be private (or nested).
// expected-error@+1 {{'func.func' op symbol declaration cannot have public visibility}}
func.func @decl()

// -----

// expected-error@+1 {{'func.func' op requires attribute 'function_type'}}
"func.func"() <{sym_name = "f"}> ({}) : () -> ()

// -----

"foo.x"() ({
  // expected-error@+1 {{'func.return' op expects parent op 'func.func'}}
  "func.return"() : () -> ()
}) : () -> ()

// -----

// Argument and result attributes must be dialect attributes.
// expected-error@+1 {{'func.func' op arguments may only have dialect attributes}}
func.func private @f(i32 {nodialect})

// -----

// expected-error@+1 {{'func.func' op results may only have dialect attributes}}
func.func private @f() -> (i32 {nodialect})
