func.func @g() {
  nosuch.op
  return
}
