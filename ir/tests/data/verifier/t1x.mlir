func.func @g() -> i32 {
  return
}
// -----
func.func @dom() {
  "foo.use"(%0) : (i32) -> ()
  %0 = "foo.def"() : () -> i32
  return
}
// -----
func.func @dom2() {
^bb0:
  cf.br ^bb2
^bb1:
  %0 = "foo.def"() : () -> i32
  cf.br ^bb2
^bb2:
  "foo.use"(%0) : (i32) -> ()
  return
}
// -----
func.func @arg() {
  cf.br ^bb1(%a : i32)
^bb1(%b: i32):
  return
}
// -----
func.func @f() { return }
func.func @f() { return }
// -----
func.func @h() {
  cf.br ^bb1
^bb1:
  cf.br ^bb1
}
// -----
func.func @nt() {
  %c = "foo.def"() : () -> i32
  func.call @nt() : () -> ()
}
// -----
func.func @ret() {
  return
  "foo.foo"() : () -> ()
}
// -----
func.func @br() {
  %c = "foo.def"() : () -> i32
  cf.br ^bb1(%c, %c : i32, i32)
^bb1(%x: i32):
  return
}
// -----
func.func @brt() {
  %c = "foo.def"() : () -> i32
  cf.br ^bb1(%c : i32)
^bb1(%x: i64):
  return
}
// -----
func.func @entry() {
^bb0:
  cf.br ^bb0
}
// -----
func.func @empty() {
^bb0:
}
