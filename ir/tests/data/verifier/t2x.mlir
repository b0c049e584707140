func.func @f() { return }
module {
  func.func @g() {
    func.call @f() : () -> ()
    return
  }
}
// -----
func.func @u() {
  "foo.wrap"() ({
    "foo.use"(%0) : (i32) -> ()
    %0 = "foo.def"() : () -> i32
  }) : () -> ()
  return
}
// -----
func.func @u2() {
  "foo.wrap"() ({
    "foo.use"(%0) : (i32) -> ()
    %0 = "foo.def"() : () -> i32
    "foo.br"()[^bb1] : () -> ()
  ^bb1:
    "foo.t"() : () -> ()
  }) : () -> ()
  return
}
// -----
func.func @own() {
  %0 = "foo.wrap"() ({
    "foo.use"(%0) : (i32) -> ()
  }) : () -> i32
  return
}
// -----
func.func @argdom(%a: i32) {
  cf.br ^bb2
^bb1(%x: i32):
  cf.br ^bb2
^bb2:
  "foo.use"(%x) : (i32) -> ()
  return
}
// -----
func.func @argdom2() {
  "foo.w"() ({
  ^bb0(%x: i32):
    "foo.t"() : () -> ()
  }) : () -> ()
  "foo.use"(%x) : (i32) -> ()
  return
}
// -----
func.func @childdef() {
  "foo.w"() ({
    %x = "foo.def"() : () -> i32
  }) : () -> ()
  "foo.use"(%x) : (i32) -> ()
  return
}
// -----
func.func @sib() {
  "foo.w"() ({
    %x = "foo.def"() : () -> i32
  }, {
    "foo.use"(%x) : (i32) -> ()
  }) : () -> ()
  return
}
// -----
func.func @unreach() {
  return
^bb1:
  "foo.use"(%0) : (i32) -> ()
  %0 = "foo.def"() : () -> i32
  return
}
