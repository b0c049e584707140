func.func @f(%a: i32, %b: i32) -> (i32, i32) {
  %0 = test.addi %a, %b : i32
  %1 = test.negi %0 : i32
  %c = test.constant {value = 2 : i32} : i32
  %2 = test.muli %1, %c : i32
  %3 = call @g(%2) : (i32) -> i32
  return %2, %3 : i32, i32
}
func.func private @g(i32) -> i32
