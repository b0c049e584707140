// Cost attributes print in one canonical form: equal costs print equal, whatever the
// spelling, in the pretty and in the generic form, on any op (here unregistered ones).
// RUN: xcs-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: xcs-opt %s --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: xcs-opt %s --allow-unregistered-dialect --mlir-print-op-generic | mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic | xcs-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: "foo.same"
// CHECK-SAME: a = #cost.cost<flops = "M*N", read = "0", write = "0">
// CHECK-SAME: b = #cost.cost<flops = "M*N", read = "0", write = "0">
// GENERIC: "foo.same"() {a = #cost.cost<flops = "M*N", read = "0", write = "0">, b = #cost.cost<flops = "M*N", read = "0", write = "0">}
"foo.same"() {a = #cost.cost<flops = "N*M + 0", read = "x - x", write = "0*q">,
              b = #cost.cost< write = "0" , read="0",flops = "M*N" >} : () -> ()

// Expanded, like terms combined, ordered by degree then by name, constants folded.
// CHECK-LABEL: "foo.order"
// CHECK-SAME: #cost.cost<flops = "a**2 + 2*a*b + b**2 + 3", read = "4*bytes*seq_len", write = "-x + 1">
"foo.order"() {c = #cost.cost<flops = "(a + b)**2 + 1 + 2", read = "seq_len*bytes*2 + 2*bytes*seq_len", write = "1 - x">} : () -> ()

// Floor division and modulo: Python semantics, constants folded, exact parts taken out.
// CHECK-LABEL: "foo.div"
// CHECK-SAME: #cost.cost<flops = "config.n_embd//config.n_head", read = "x + 1", write = "2*(seq_len%2)">
"foo.div"() {c = #cost.cost<flops = "config.n_embd // config.n_head", read = "(2*x + 3)//2", write = "(2*seq_len) % 4">} : () -> ()

// CHECK-LABEL: "foo.fold"
// CHECK-SAME: #cost.cost<flops = "3", read = "-4", write = "2">
"foo.fold"() {c = #cost.cost<flops = "7//2", read = "-7//2", write = "-7 % 3">} : () -> ()

// Registered ops carry cost attributes too (the cost-annotate pass puts one on every op).
// CHECK-LABEL: func.func @f
// CHECK: tensor.add %arg0, %arg0 {cost = #cost.cost<flops = "8", read = "64", write = "32">} : tensor<8xf32>
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tensor.add %x, %x {cost = #cost.cost<flops = "8", read = "2*8*4", write = "8*4">} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
