// Input of test-dialect-unregistered.mlir: test.addi in the generic form (three ops, two equal).
func.func @f(%a: i32) -> i32 {
  %0 = "test.addi"(%a, %a) : (i32, i32) -> i32
  %1 = "test.addi"(%a, %a) : (i32, i32) -> i32
  %2 = "test.addi"(%0, %1) : (i32, i32) -> i32
  return %2 : i32
}
