func.func @cb(%c: i1, %a: i32) {
  cf.cond_br %c, ^bb1(%a, %a : i32, i32), ^bb2
^bb1(%x: i32):
  return
^bb2:
  return
}
// -----
func.func @cb2(%c: i1, %a: i32) {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2(%a : i32)
^bb1(%x: i32):
  return
^bb2:
  return
}
// -----
module {
  module @inner {
    func.func @f() { return }
  }
  func.func @g() {
    call @f() : () -> ()
    return
  }
}
// -----
func.func @d(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %v = "foo.def"() : () -> i32
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  "foo.use"(%v) : (i32) -> ()
  return
}
// -----
func.func @e(%a: i32) -> i64 {
  return %a : i32
}
// -----
func.func @ext(i32) -> i32
// -----
func.func private @ext2(i32) -> i32
func.func @caller(%a: i64) -> i32 {
  %r = call @ext2(%a) : (i64) -> i32
  return %r : i32
}
// -----
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "x", sym_visibility = "secret"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// -----
func.func @gr() {
  %0 = "foo.wrap"() ({
    "foo.use"(%0) : (i32) -> ()
  }) : () -> i32
  return
}
// -----
func.func @arg2() {
  "foo.w"() ({
  ^bb0(%x: i32):
    "foo.t"() : () -> ()
  ^bb1:
    "foo.use"(%x) : (i32) -> ()
    "foo.t"() : () -> ()
  }) : () -> ()
  return
}
