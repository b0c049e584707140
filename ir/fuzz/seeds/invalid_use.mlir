// Invalid: use before definition, wrong types, missing terminator (error paths, no panic).
func.func @bad(%a: i32) -> f32 {
  %0 = test.addi %a, %1 : i32
  %1 = test.addi %a, %a : i64
  "func.return"(%0) : (i32) -> ()
}
func.func @noterm() {
  %x = "xt.foo"() : () -> i32
