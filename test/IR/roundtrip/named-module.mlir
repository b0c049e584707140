// One explicit named module with attributes, holding a nested private module and functions
// (in the generic form: `sym_name` and `sym_visibility` are properties of builtin.module).
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs

// CHECK: "builtin.module"() <{sym_name = "outer"}> ({
// CHECK-NEXT: "builtin.module"() <{sym_name = "inner", sym_visibility = "private"}> ({
// CHECK: }) {foo.attr = 1 : i32} : () -> ()
// CHECK: "func.func"() <{arg_attrs = [{foo.a}, {}], function_type = (i32, i1) -> i32, res_attrs = [{foo.r = 1 : i64}], sym_name = "f", sym_visibility = "private"}> ({
// CHECK: "func.call"(%{{.*}}) <{callee = @f2}> : (i32) -> i32
// CHECK: }) {an.attr = "x"} : () -> ()
"builtin.module"() <{sym_name = "outer"}> ({
  "builtin.module"() <{sym_name = "inner", sym_visibility = "private"}> ({
    "func.func"() <{function_type = (i32) -> i32, sym_name = "id"}> ({
    ^bb0(%arg0: i32):
      "func.return"(%arg0) : (i32) -> ()
    }) : () -> ()
  }) {foo.attr = 1 : i32} : () -> ()
  "func.func"() <{function_type = (i32, i1) -> i32, sym_name = "f", sym_visibility = "private", arg_attrs = [{foo.a}, {}], res_attrs = [{foo.r = 1}]}> ({
  ^bb0(%a: i32, %c: i1):
    %r = "func.call"(%a) <{callee = @f2}> : (i32) -> i32
    "func.return"(%r) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (i32) -> i32, sym_name = "f2", sym_visibility = "private"}> ({
  }) : () -> ()
}) {an.attr = "x"} : () -> ()
