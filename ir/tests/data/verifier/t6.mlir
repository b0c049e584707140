func.func private @ext2(i32) -> (i32, f32)
func.func @caller(%a: i32) {
  %r:2 = call @ext2(%a) : (i32) -> (i32, i64)
  return
}
// -----
func.func private @ext3(i32) -> i32
func.func @caller(%a: i32) {
  call @ext3(%a) : (i32) -> ()
  return
}
// -----
func.func private @ext3(i32) -> i32
func.func @caller(%a: i32) {
  %0 = call @ext3(%a, %a) : (i32, i32) -> i32
  return
}
// -----
func.func @a(%x: i32) {
^bb1:
  return
}
// -----
func.func @a(%x: i32) {
^bb0(%y: i64):
  return
}
// -----
func.func @a(%x: i32) -> i32 {
  return %x, %x : i32, i32
}
// -----
module {
  "foo.op"() : () -> ()
  func.func private @f() attributes {arg_attrs = [{}]}
}
