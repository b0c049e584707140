// tensor.dynamic_update_slice writes into its operand's buffer when the operand dies at it
// (lowering/src/codegen/inplace.rs), carried through the block arguments of a cf loop, and
// copies it when that is not provably safe: the operand is used after the update, is a
// function argument (the caller's), is passed twice to a block (aliased by another argument),
// or the update reads the operand's own buffer. Every case gives the interpreter's results.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-run %s --entry scan_caller --input 0=random:1 > %t/scan.jit
// RUN: xcs-run %s --entry scan_caller --interp --input 0=random:1 > %t/scan.interp
// RUN: diff %t/scan.jit %t/scan.interp
// RUN: FileCheck %s --check-prefix=SCAN < %t/scan.jit
// RUN: xcs-run %s --entry in_place --input 0=random:2 --input 1=random:3 > %t/in_place.jit
// RUN: xcs-run %s --entry in_place --interp --input 0=random:2 --input 1=random:3 > %t/in_place.interp
// RUN: diff %t/in_place.jit %t/in_place.interp
// RUN: xcs-run %s --entry used_after --input 0=random:2 --input 1=random:3 > %t/used_after.jit
// RUN: xcs-run %s --entry used_after --interp --input 0=random:2 --input 1=random:3 > %t/used_after.interp
// RUN: diff %t/used_after.jit %t/used_after.interp
// RUN: xcs-run %s --entry argument --input 0=random:2 --input 1=random:3 > %t/argument.jit
// RUN: xcs-run %s --entry argument --interp --input 0=random:2 --input 1=random:3 > %t/argument.interp
// RUN: diff %t/argument.jit %t/argument.interp
// RUN: xcs-run %s --entry twice --input 0=random:2 --input 1=random:3 > %t/twice.jit
// RUN: xcs-run %s --entry twice --interp --input 0=random:2 --input 1=random:3 > %t/twice.interp
// RUN: diff %t/twice.jit %t/twice.interp
// RUN: xcs-run %s --entry twice_loop --input 0=random:4 > %t/twice_loop.jit
// RUN: xcs-run %s --entry twice_loop --interp --input 0=random:4 > %t/twice_loop.interp
// RUN: diff %t/twice_loop.jit %t/twice_loop.interp
// RUN: xcs-run %s --entry read_after --input 0=random:5 > %t/read_after.jit
// RUN: xcs-run %s --entry read_after --interp --input 0=random:5 > %t/read_after.interp
// RUN: diff %t/read_after.jit %t/read_after.interp
// RUN: xcs-run %s --entry overlap --input 0=random:6 > %t/overlap.jit
// RUN: xcs-run %s --entry overlap --interp --input 0=random:6 > %t/overlap.interp
// RUN: diff %t/overlap.jit %t/overlap.interp

// The scan's init carry (a fresh buffer of the caller) is the callee's argument: the loop
// copies it once on its entry edge, updates the copy in place, and the caller's stays as it was
// (result2 = 2x, result1 = its rows replaced by the running sums).
// SCAN: result0: tensor<1x4xf32>
// SCAN: result1: tensor<6x4xf32>
// SCAN: result2: tensor<6x4xf32>
func.func @scan_caller(%x: tensor<6x4xf32>) -> (tensor<1x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) {
  %acc0 = tensor.add %x, %x : tensor<6x4xf32>
  %h, %acc = func.call @scan(%x, %acc0) : (tensor<6x4xf32>, tensor<6x4xf32>) -> (tensor<1x4xf32>, tensor<6x4xf32>)
  return %h, %acc, %acc0 : tensor<1x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
}

// lax.scan as JAX exports it (after convert-stablehlo-to-tensor): the running sum of the rows
// of %x (carry %h) written row by row into %acc (carry %a, updated in place).
func.func @scan(%x: tensor<6x4xf32>, %acc0: tensor<6x4xf32>) -> (tensor<1x4xf32>, tensor<6x4xf32>) {
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %one = tensor.constant {value = dense<1> : tensor<i32>} : tensor<i32>
  %n = tensor.constant {value = dense<6> : tensor<i32>} : tensor<i32>
  %h0 = tensor.constant {value = dense<5.000000e-01> : tensor<1x4xf32>} : tensor<1x4xf32>
  cf.br ^loop(%zero, %h0, %acc0 : tensor<i32>, tensor<1x4xf32>, tensor<6x4xf32>)
^loop(%i: tensor<i32>, %h: tensor<1x4xf32>, %acc: tensor<6x4xf32>):
  %c = tensor.cmp %i, %n {predicate = "lt"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %b = tensor.extract %c : (tensor<i1>) -> i1
  cf.cond_br %b, ^body(%i, %h, %acc : tensor<i32>, tensor<1x4xf32>, tensor<6x4xf32>), ^exit(%h, %acc : tensor<1x4xf32>, tensor<6x4xf32>)
^body(%j: tensor<i32>, %g: tensor<1x4xf32>, %a: tensor<6x4xf32>):
  %row = tensor.dynamic_slice %x, %j, %zero {sizes = array<i64: 1, 4>} : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %g2 = tensor.add %g, %row : tensor<1x4xf32>
  %a2 = tensor.dynamic_update_slice %a, %g2, %j, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  %j2 = tensor.add %j, %one : tensor<i32>
  cf.br ^loop(%j2, %g2, %a2 : tensor<i32>, tensor<1x4xf32>, tensor<6x4xf32>)
^exit(%hf: tensor<1x4xf32>, %af: tensor<6x4xf32>):
  return %hf, %af : tensor<1x4xf32>, tensor<6x4xf32>
}

// A fresh buffer dying at the update: updated in place.
func.func @in_place(%x: tensor<6x4xf32>, %u: tensor<1x4xf32>) -> tensor<6x4xf32> {
  %i = tensor.constant {value = dense<2> : tensor<i32>} : tensor<i32>
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %t = tensor.add %x, %x : tensor<6x4xf32>
  %y = tensor.dynamic_update_slice %t, %u, %i, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// %t is used after the update: copied (result1 = 4x*x without the update).
func.func @used_after(%x: tensor<6x4xf32>, %u: tensor<1x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %i = tensor.constant {value = dense<2> : tensor<i32>} : tensor<i32>
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %t = tensor.add %x, %x : tensor<6x4xf32>
  %y = tensor.dynamic_update_slice %t, %u, %i, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  %z = tensor.mul %t, %t : tensor<6x4xf32>
  return %y, %z : tensor<6x4xf32>, tensor<6x4xf32>
}

// The operand is the function's argument (the caller's buffer, used by the caller after the
// call): copied.
func.func @update_argument(%t: tensor<6x4xf32>, %u: tensor<1x4xf32>) -> tensor<6x4xf32> {
  %i = tensor.constant {value = dense<5> : tensor<i32>} : tensor<i32>
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %y = tensor.dynamic_update_slice %t, %u, %i, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

func.func @argument(%x: tensor<6x4xf32>, %u: tensor<1x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %t = tensor.add %x, %x : tensor<6x4xf32>
  %y = func.call @update_argument(%t, %u) : (tensor<6x4xf32>, tensor<1x4xf32>) -> tensor<6x4xf32>
  return %y, %t : tensor<6x4xf32>, tensor<6x4xf32>
}

// %t is passed twice to ^b: %p dies at the update but %q aliases it, so %p gets a copy.
func.func @twice(%x: tensor<6x4xf32>, %u: tensor<1x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %i = tensor.constant {value = dense<3> : tensor<i32>} : tensor<i32>
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %t = tensor.add %x, %x : tensor<6x4xf32>
  cf.br ^b(%t, %t : tensor<6x4xf32>, tensor<6x4xf32>)
^b(%p: tensor<6x4xf32>, %q: tensor<6x4xf32>):
  %y = tensor.dynamic_update_slice %p, %u, %i, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  return %y, %q : tensor<6x4xf32>, tensor<6x4xf32>
}

// A loop whose back edge passes the updated carry twice (as the carry and as a snapshot that
// the next iteration reads after updating the carry): the carry gets a copy on the back edge,
// so the difference of the two (summed in %tot) is the row written, not zero.
func.func @twice_loop(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %one = tensor.constant {value = dense<1> : tensor<i32>} : tensor<i32>
  %n = tensor.constant {value = dense<4> : tensor<i32>} : tensor<i32>
  %acc0 = tensor.constant {value = dense<0.000000e+00> : tensor<6x4xf32>} : tensor<6x4xf32>
  %tot0 = tensor.add %x, %x : tensor<6x4xf32>
  %s0 = tensor.add %x, %x : tensor<6x4xf32>
  cf.br ^loop(%zero, %acc0, %s0, %tot0 : tensor<i32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>)
^loop(%i: tensor<i32>, %acc: tensor<6x4xf32>, %snap: tensor<6x4xf32>, %tot: tensor<6x4xf32>):
  %c = tensor.cmp %i, %n {predicate = "lt"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %b = tensor.extract %c : (tensor<i1>) -> i1
  cf.cond_br %b, ^body(%i, %acc, %snap, %tot : tensor<i32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>), ^exit(%tot : tensor<6x4xf32>)
^body(%j: tensor<i32>, %a: tensor<6x4xf32>, %s: tensor<6x4xf32>, %t: tensor<6x4xf32>):
  %row = tensor.dynamic_slice %x, %j, %zero {sizes = array<i64: 1, 4>} : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %a2 = tensor.dynamic_update_slice %a, %row, %j, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  %d = tensor.sub %a2, %s : tensor<6x4xf32>
  %t2 = tensor.add %t, %d : tensor<6x4xf32>
  %j2 = tensor.add %j, %one : tensor<i32>
  cf.br ^loop(%j2, %a2, %a2, %t2 : tensor<i32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>)
^exit(%tf: tensor<6x4xf32>):
  return %tf : tensor<6x4xf32>
}

// The old carry is read after the update in the loop body: copied every iteration.
func.func @read_after(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %one = tensor.constant {value = dense<1> : tensor<i32>} : tensor<i32>
  %n = tensor.constant {value = dense<5> : tensor<i32>} : tensor<i32>
  cf.br ^loop(%zero, %x : tensor<i32>, tensor<6x4xf32>)
^loop(%i: tensor<i32>, %acc: tensor<6x4xf32>):
  %c = tensor.cmp %i, %n {predicate = "lt"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %b = tensor.extract %c : (tensor<i1>) -> i1
  cf.cond_br %b, ^body(%i, %acc : tensor<i32>, tensor<6x4xf32>), ^exit(%acc : tensor<6x4xf32>)
^body(%j: tensor<i32>, %a: tensor<6x4xf32>):
  %j2 = tensor.add %j, %one : tensor<i32>
  %next = tensor.dynamic_slice %a, %j2, %zero {sizes = array<i64: 1, 4>} : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %a2 = tensor.dynamic_update_slice %a, %next, %j, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  %old = tensor.dynamic_slice %a, %j, %zero {sizes = array<i64: 1, 4>} : (tensor<6x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %a3 = tensor.dynamic_update_slice %a2, %old, %j2, %zero : (tensor<6x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<6x4xf32>
  cf.br ^loop(%j2, %a3 : tensor<i32>, tensor<6x4xf32>)
^exit(%af: tensor<6x4xf32>):
  return %af : tensor<6x4xf32>
}

// The update is a view of the operand's own buffer (its transpose): copied (in place, the
// write would read elements it already overwrote).
func.func @overlap(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = tensor.constant {value = dense<0> : tensor<i32>} : tensor<i32>
  %t = tensor.add %x, %x : tensor<4x4xf32>
  %tt = tensor.transpose %t {perm = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = tensor.dynamic_update_slice %t, %tt, %zero, %zero : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
