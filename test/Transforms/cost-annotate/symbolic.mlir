// Symbolic shapes: the dynamic dims of a function argument are named by its `cost.dims`
// attribute (names, formulas or numbers; a static dim must be given as its number), results
// get symbolic shapes from their operands, and every formula is canonical (expanded, like terms
// combined, variables and terms in a fixed order), so equal costs print equal.
// RUN: xcs-opt %s --cost-annotate | FileCheck %s

// The function's total is the sum of its ops.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: attributes {cost = #cost.cost<flops = "6144*batch_size*config.n_embd*seq_len + 3072*batch_size*seq_len", read = "4*batch_size*config.n_embd*seq_len + 12288*batch_size*seq_len + 12288*config.n_embd + 12288", write = "24576*batch_size*seq_len">}
func.func @linear(%x: tensor<?x?x?xf32> {cost.dims = ["batch_size", "seq_len", "config.n_embd"]},
                  %w: tensor<?x3072xf32> {cost.dims = ["config.n_embd", 3072]},
                  %b: tensor<3072xf32>) -> tensor<?x?x3072xf32> {
  // 2*M*K*N with M = batch_size*seq_len, K = config.n_embd, N = 3072
  // CHECK: tensor.matmul {{.*}}cost = #cost.cost<flops = "6144*batch_size*config.n_embd*seq_len", read = "4*batch_size*config.n_embd*seq_len + 12288*config.n_embd", write = "12288*batch_size*seq_len">
  %h = tensor.matmul %x, %w : (tensor<?x?x?xf32>, tensor<?x3072xf32>) -> tensor<?x?x3072xf32>
  // The bias is read at its own shape.
  // CHECK: tensor.add {{.*}}cost = #cost.cost<flops = "3072*batch_size*seq_len", read = "12288*batch_size*seq_len + 12288", write = "12288*batch_size*seq_len">
  %y = tensor.add %h, %b : (tensor<?x?x3072xf32>, tensor<3072xf32>) -> tensor<?x?x3072xf32>
  return %y : tensor<?x?x3072xf32>
}

// The same matmul written two ways (a 3-D lhs, or a reshape to rows first) costs the same,
// and prints the same.
// CHECK-LABEL: func.func @equal_costs_print_equal
func.func @equal_costs_print_equal(%x: tensor<?x?x768xf32> {cost.dims = ["seq_len", "batch_size", 768]}, %w: tensor<768x768xf32>) {
  // CHECK: tensor.matmul {{.*}}cost = [[MM:#cost.cost<flops = "1179648\*batch_size\*seq_len"[^>]*>]]
  %0 = tensor.matmul %x, %w : (tensor<?x?x768xf32>, tensor<768x768xf32>) -> tensor<?x?x768xf32>
  // The reshape's result dim is the quotient: seq_len*batch_size.
  // CHECK: tensor.reshape {{.*}}cost = #cost.cost<flops = "0", read = "0", write = "0">
  %r = tensor.reshape %x : (tensor<?x?x768xf32>) -> tensor<?x768xf32>
  // CHECK: tensor.matmul {{.*}}cost = [[MM]]
  %1 = tensor.matmul %r, %w : (tensor<?x768xf32>, tensor<768x768xf32>) -> tensor<?x768xf32>
  // a*b and b*a, (a+b)*c and a*c + b*c: one form.
  // CHECK: tensor.add {{.*}}cost = [[ADD:#cost.cost<[^>]*>]]
  %2 = tensor.add %0, %0 : tensor<?x?x768xf32>
  // CHECK: tensor.add {{.*}}cost = [[ADD]]
  %3 = tensor.add %r, %r : tensor<?x768xf32>
  return
}

// Dims given as formulas, numbers for static dims, and no cost.dims at all: an unnamed dynamic
// dim of argument #i, dim #j is `argI.dJ`.
// CHECK-LABEL: func.func @dim_formulas
func.func @dim_formulas(%x: tensor<?x?x64xf32> {cost.dims = ["batch_size*config.n_head", "seq_len", 64]}, %y: tensor<?x8xf16>) {
  // CHECK: tensor.softmax {{.*}}cost = #cost.cost<flops = "318*batch_size*config.n_head*seq_len", read = "256*batch_size*config.n_head*seq_len", write = "256*batch_size*config.n_head*seq_len", transcendentals = "64*batch_size*config.n_head*seq_len">
  %0 = tensor.softmax %x {axis = 2 : i64} : tensor<?x?x64xf32>
  // Along the symbolic axis: 5n - 2 per row with n = seq_len.
  // CHECK: tensor.softmax {{.*}}cost = #cost.cost<flops = "320*batch_size*config.n_head*seq_len - 128*batch_size*config.n_head", read
  %1 = tensor.softmax %x {axis = 1 : i64} : tensor<?x?x64xf32>
  // f16: 2 bytes per element.
  // CHECK: tensor.exp {{.*}}cost = #cost.cost<flops = "8*arg1.d0", read = "16*arg1.d0", write = "16*arg1.d0", transcendentals = "8*arg1.d0">
  %2 = tensor.exp %y : tensor<?x8xf16>
  // Reductions over symbolic dims: n - 1 per output.
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "64*batch_size*config.n_head*seq_len - 64*batch_size*config.n_head", read = "256*batch_size*config.n_head*seq_len", write = "256*batch_size*config.n_head">
  %3 = tensor.reduce %x {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<?x?x64xf32>) -> tensor<?x64xf32>
  return
}

// Symbolic layer_norm and gelu over a transformer activation.
// CHECK-LABEL: func.func @norm_act
func.func @norm_act(%x: tensor<?x?x768xf32> {cost.dims = ["batch_size", "seq_len", 768]}, %g: tensor<768xf32>, %b: tensor<768xf32>) {
  // 7n + 2 per row of n = 768, one rsqrt per row
  // CHECK: tensor.layer_norm {{.*}}cost = #cost.cost<flops = "5378*batch_size*seq_len", read = "3072*batch_size*seq_len + 6144", write = "3072*batch_size*seq_len", transcendentals = "batch_size*seq_len">
  %0 = tensor.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
  // CHECK: tensor.gelu {{.*}}cost = #cost.cost<flops = "6912*batch_size*seq_len", read = "3072*batch_size*seq_len", write = "3072*batch_size*seq_len", transcendentals = "768*batch_size*seq_len">
  %1 = tensor.gelu %0 {approximate = "tanh"} : tensor<?x?x768xf32>
  return
}
