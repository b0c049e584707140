// expected-error@unknown {{nothing}}
func.func @g() -> i32 {
  // expected-warning@+1 {{has 0 operands}}
  return
}
// -----
func.func @g() -> i32 {
  // expected-error-re@+1 {{has {{[0-9+}} operands}}
  return
}
// -----
func.func @g() -> i32 {
  // expected-error-re@+1 {{has {{[0-9]+ operands}}
  return
}
// -----
func.func @g() -> i32 {
  // expected-error @+1 {{has 0}} {{operands}}
  return
}
// -----
func.func @g() -> i32 {
  return // expected-error {{has 0}}
  // expected-error@above {{has 0}}
}
// -----
func.func @g() -> i32 {
  // expected-error@below {{has 0}}
  // expected-note@below {{see current}}

  return
}
// -----
func.func @g() -> i32 {
  return loc(unknown)
}
// -----
func.func @g() -> i32 {
  return loc("foo")
}
// -----
func.func @g() -> i32 {
  // expected-error@unknown {{has 0}}
  return loc("foo")
}
