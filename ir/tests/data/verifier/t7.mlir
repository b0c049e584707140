"func.func"() <{function_type = (i32) -> (), sym_name = "x", res_attrs = [{}]}> ({
^bb0(%a: i64):
  "func.return"() : () -> ()
}) : () -> ()
// -----
"func.func"() <{function_type = (i32) -> (), sym_name = "x", arg_attrs = [{}, {}]}> ({
^bb0(%a: i64):
  "func.return"() : () -> ()
}) : () -> ()
// -----
"func.func"() <{function_type = (i32) -> (), sym_name = "x"}> ({
^bb0(%a: i64, %b: i32):
  "func.return"() : () -> ()
}) : () -> ()
