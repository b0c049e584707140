// REQUIRES: passes
// RUN: xcs-opt %s --symbol-dce | FileCheck %s

// CHECK-NOT: @dead
// CHECK: func.func private @used
// CHECK: func.func @main
// CHECK-NOT: @dead
func.func private @dead() {
  return
}
func.func private @used() {
  return
}
func.func @main() {
  call @used() : () -> ()
  return
}
