// xcs-run compiles through the LLVM JIT by default: results as the interpreter prints them,
// IEEE special values, --threads, --bench, --time-phases, and run-time errors located at the failing op.
// RUN: xcs-run %s --entry ieee --input 0='[1.0, -1.0, 0.0, -0.0]' --input 1='[0.0, 0.0, 0.0, 2.0]' | FileCheck %s --check-prefix=IEEE
// RUN: xcs-run %s --entry ieee --backend=interp --input 0='[1.0, -1.0, 0.0, -0.0]' --input 1='[0.0, 0.0, 0.0, 2.0]' | FileCheck %s --check-prefix=IEEE
// RUN: xcs-run %s --entry work --threads 1 --input x=random:3 > %t.1
// RUN: xcs-run %s --entry work --threads 2 --input x=random:3 > %t.2
// RUN: diff %t.1 %t.2
// The JIT's f32 exp/tanh are inline polynomials (ops/math.rs), about an ulp from libm's: the
// interpreter's result is compared with numpy.allclose at the f32 test tolerance.
// RUN: rm -rf %t.jd %t.id
// RUN: xcs-run %s --entry work --threads 1 --input x=random:3 --output-dir %t.jd > /dev/null
// RUN: xcs-run %s --entry work --interp --input x=random:3 --output-dir %t.id > /dev/null
// RUN: %python -c "import numpy as n, sys; a, b = n.load(sys.argv[1]), n.load(sys.argv[2]); assert a.shape == b.shape and n.allclose(a, b, rtol=1e-5, atol=1e-7), (a, b)" %t.jd/rowmax.npy %t.id/rowmax.npy
// RUN: xcs-run %s --entry work --threads 2 --bench 3 --input x=random:3 | FileCheck %s --check-prefix=BENCH
// RUN: xcs-run %s --entry work --bench 1 --time-phases --input x=random:3 2>&1 >/dev/null | FileCheck %s --check-prefix=PHASES
// RUN: not xcs-run %s --entry idiv --input 0='[4, 2]' --input 1='[2, 0]' 2>&1 | FileCheck %s --check-prefix=DIV0

// IEEE:      result0: tensor<4xf32>
// IEEE-NEXT: [ inf -inf  nan -0.]
// IEEE-NEXT: result1: tensor<4xf32>
// IEEE-NEXT: [  0.  nan  nan -inf]
func.func @ieee(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %q = tensor.div %a, %b : tensor<4xf32>
  %l = tensor.log %a : tensor<4xf32>
  %m = tensor.mul %b, %l : tensor<4xf32>
  return %q, %m : tensor<4xf32>, tensor<4xf32>
}

// BENCH: bench: entry=work backend=llvm threads=2 calls=3 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}} compile_ms={{[0-9.]+}} first_call_ms={{[0-9.]+}}
// PHASES:      phase: name=lower wall_ms={{[0-9.]+}} cpu_ms={{[0-9.]+}}
// PHASES-NEXT: phase: name=parse wall_ms=
// PHASES-NEXT: phase: name=target wall_ms=
// PHASES-NEXT: phase: name=optimize wall_ms=
// PHASES-NEXT: phase: name=codegen wall_ms=
// PHASES-NEXT: phase: name=total wall_ms={{[0-9.]+}} cpu_ms={{[0-9.]+}} ir_bytes={{[1-9][0-9]*}} ir_functions={{[1-9][0-9]*}}
// BENCH-NOT: result
func.func @work(%x: tensor<256x300xf32> {xcs.name = "x"}) -> (tensor<256xf32> {xcs.name = "rowmax"}) {
  %t = tensor.tanh %x : tensor<256x300xf32>
  %s = tensor.softmax %t {axis = 1 : i64} : tensor<256x300xf32>
  %m = tensor.reduce %s {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<256x300xf32>) -> tensor<256xf32>
  return %m : tensor<256xf32>
}

// DIV0:      jit.mlir:[[# @LINE + 4]]:8: error: 'tensor.div' op integer division by zero
// DIV0-NEXT:   %q = tensor.div %a, %b : tensor<2xi32>
// DIV0-NEXT:        ^
func.func @idiv(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %q = tensor.div %a, %b : tensor<2xi32>
  return %q : tensor<2xi32>
}
