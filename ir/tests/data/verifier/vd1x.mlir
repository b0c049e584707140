func.func @g() -> i32 {
  // expected-error@+1 {{has 0 operands}}
  return
}
// -----
func.func @g() -> i32 {
  // expected-error@+1 {{wrong text}}
  return
}
// -----
func.func @g() -> i32 {
  return // expected-error {{has 0 operands}}
}
// -----
func.func @g() -> i32 {
  return
}
// -----
// expected-error@below {{not produced}}
func.func @ok() {
  return
}
// -----
func.func @g() -> i32 {
  // expected-error-re@+1 {{has {{[0-9]+}} operands, but enclosing function (@{{.*}}) returns 1}}
  return
}
// -----
func.func @dom() {
  // expected-error@+1 {{operand #0 does not dominate this use}}
  "foo.use"(%0) : (i32) -> ()
  // expected-note@+1 {{operand defined here}}
  %0 = "foo.def"() : () -> i32
  return
}
// -----
func.func @dom() {
  // expected-error@+1 {{operand #0 does not dominate this use}}
  "foo.use"(%0) : (i32) -> ()
  %0 = "foo.def"() : () -> i32
  return
}
