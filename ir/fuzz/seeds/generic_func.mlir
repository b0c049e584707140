"builtin.module"() ({
  "func.func"() <{function_type = (i32, i32) -> i32, sym_name = "add"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "test.addi"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "test.constant"() <{value = 0 : i32}> : () -> i32
    %2 = "test.muli"(%0, %1) : (i32, i32) -> i32
    "func.return"(%2) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (i32) -> i32, sym_name = "caller", sym_visibility = "private"}> ({
  ^bb0(%arg0: i32):
    %0 = "func.call"(%arg0, %arg0) <{callee = @add}> : (i32, i32) -> i32
    "func.return"(%0) : (i32) -> ()
  }) : () -> ()
}) : () -> ()
