func.func @g() -> i32 {
  return
  // expected-error@-1 {{has 0 operands}}
}
// -----
func.func @g() -> i32 {

  return
  // expected-error@above {{has 0 operands}}
}
// -----
func.func @dom() {
  // expected-error@below {{does not dominate}}
  // expected-note@below {{same block}}
  "foo.use"(%0) : (i32) -> ()
  // expected-note@+1 {{operand defined here}}
  %0 = "foo.def"() : () -> i32
  return
}
// -----
func.func @dom2() {
  "foo.use"(%0) : (i32) -> () // expected-note {{does not dominate}}
  %0 = "foo.def"() : () -> i32 // expected-error {{operand defined here}}
  return
}
// -----
// expected-error-re@+2 {{'func.return' op has {{[[:digit:]]}} operands, but enclosing function \(@g\)}}
func.func @g() -> i32 {
  return
}
// -----
func.func @g() -> i32 {
  // expected-error@+1 {{has 0 operands, but enclosing function (@g) returns 1}} trailing
  return
}
