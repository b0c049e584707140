// Every tensor-dialect op's cost per the counting convention (docs/cost.md), on static
// shapes: a is 4x8 f32 (32 elements, 128 bytes), b is an 8-element bias.
// RUN: xcs-opt %s --cost-annotate | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x8xi1>) {
  // A broadcast bias is read at its own shape: (32 + 8) * 4 bytes.
  // CHECK: tensor.add {{.*}}cost = #cost.cost<flops = "32", read = "160", write = "128">
  %0 = tensor.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor.sub {{.*}}cost = #cost.cost<flops = "32", read = "256", write = "128">
  %1 = tensor.sub %a, %a : tensor<4x8xf32>
  // A rank-0 or splat constant is an immediate: 0 bytes.
  // CHECK: tensor.constant {{.*}}cost = #cost.cost<flops = "0", read = "0", write = "0">
  %two = tensor.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
  // CHECK: tensor.mul {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128">
  %2 = tensor.mul %a, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %splat = tensor.constant {value = dense<1.0> : tensor<4x8xf32>} : tensor<4x8xf32>
  // CHECK: tensor.div {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128">
  %3 = tensor.div %a, %splat : tensor<4x8xf32>
  // A non-splat constant is read by its users.
  %k = tensor.constant {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>} : tensor<8xf32>
  // CHECK: tensor.max {{.*}}cost = #cost.cost<flops = "32", read = "160", write = "128">
  %4 = tensor.max %a, %k : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: tensor.min {{.*}}cost = #cost.cost<flops = "32", read = "256", write = "128">
  %5 = tensor.min %a, %a : tensor<4x8xf32>
  // pow is a transcendental, as in XLA.
  // CHECK: tensor.pow {{.*}}cost = #cost.cost<flops = "32", read = "256", write = "128", transcendentals = "32">
  %6 = tensor.pow %a, %a : tensor<4x8xf32>
  // CHECK: tensor.neg {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128">
  %7 = tensor.neg %a : tensor<4x8xf32>
  // CHECK: tensor.abs {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128">
  %8 = tensor.abs %a : tensor<4x8xf32>
  // relu = 1 (a max)
  // CHECK: tensor.relu {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128">
  %9 = tensor.relu %a : tensor<4x8xf32>
  // CHECK: tensor.exp {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128", transcendentals = "32">
  %10 = tensor.exp %a : tensor<4x8xf32>
  // CHECK: tensor.log {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128", transcendentals = "32">
  %11 = tensor.log %a : tensor<4x8xf32>
  // CHECK: tensor.tanh {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128", transcendentals = "32">
  %12 = tensor.tanh %a : tensor<4x8xf32>
  // CHECK: tensor.sqrt {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128", transcendentals = "32">
  %13 = tensor.sqrt %a : tensor<4x8xf32>
  // CHECK: tensor.rsqrt {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "128", transcendentals = "32">
  %14 = tensor.rsqrt %a : tensor<4x8xf32>
  // sigmoid = neg, exp, add, div = 4, one transcendental
  // CHECK: tensor.sigmoid {{.*}}cost = #cost.cost<flops = "128", read = "128", write = "128", transcendentals = "32">
  %15 = tensor.sigmoid %a : tensor<4x8xf32>
  // silu = sigmoid + mul = 5
  // CHECK: tensor.silu {{.*}}cost = #cost.cost<flops = "160", read = "128", write = "128", transcendentals = "32">
  %16 = tensor.silu %a : tensor<4x8xf32>
  // GELU: exact (erf) 5, tanh form 9, one transcendental each
  // CHECK: tensor.gelu {{.*}}cost = #cost.cost<flops = "160", read = "128", write = "128", transcendentals = "32">
  %17 = tensor.gelu %a {approximate = "none"} : tensor<4x8xf32>
  // CHECK: tensor.gelu {{.*}}cost = #cost.cost<flops = "288", read = "128", write = "128", transcendentals = "32">
  %18 = tensor.gelu %a {approximate = "tanh"} : tensor<4x8xf32>
  // cmp writes i1 (1 byte per element)
  // CHECK: tensor.cmp {{.*}}cost = #cost.cost<flops = "32", read = "256", write = "32">
  %19 = tensor.cmp %a, %a {predicate = "lt"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // select reads the i1 condition (32 bytes) and its two values (32 + 8 elements of 4 bytes)
  // CHECK: tensor.select {{.*}}cost = #cost.cost<flops = "32", read = "192", write = "128">
  %20 = tensor.select %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // cast: 0 FLOPs, reads f32, writes f16
  // CHECK: tensor.cast {{.*}}cost = #cost.cost<flops = "0", read = "128", write = "64">
  %21 = tensor.cast %a : (tensor<4x8xf32>) -> tensor<4x8xf16>
  return
}

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<4x8xf32>, %w: tensor<8x16xf32>, %ba: tensor<2x4x8xf32>, %bw: tensor<2x8x16xf32>, %cw: tensor<3x1x8x16xf32>, %v: tensor<8xf32>) {
  // 2*M*K*N = 2*4*8*16; reads (4*8 + 8*16) * 4; writes 4*16*4
  // CHECK: tensor.matmul {{.*}}cost = #cost.cost<flops = "1024", read = "640", write = "256">
  %0 = tensor.matmul %a, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // the lhs's batch dims are rows of x @ W
  // CHECK: tensor.matmul {{.*}}cost = #cost.cost<flops = "2048", read = "768", write = "512">
  %1 = tensor.matmul %ba, %w : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  // batched (bmm): B * (M*K + K*N) read
  // CHECK: tensor.matmul {{.*}}cost = #cost.cost<flops = "2048", read = "1280", write = "512">
  %2 = tensor.matmul %ba, %bw : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // broadcast batch dims [2] x [3, 1] -> [3, 2]: each operand read at its own batch
  // CHECK: tensor.matmul {{.*}}cost = #cost.cost<flops = "6144", read = "1792", write = "1536">
  %3 = tensor.matmul %ba, %cw : (tensor<2x4x8xf32>, tensor<3x1x8x16xf32>) -> tensor<3x2x4x16xf32>
  // einsum contraction: 2 * (product of the label sizes)
  // CHECK: tensor.einsum {{.*}}cost = #cost.cost<flops = "1024", read = "640", write = "256">
  %4 = tensor.einsum %a, %w {equation = "ij,jk->ik"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // one operand: a reduction of 32 terms into 4 outputs
  // CHECK: tensor.einsum {{.*}}cost = #cost.cost<flops = "28", read = "128", write = "16">
  %5 = tensor.einsum %a {equation = "ij->i"} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: tensor.einsum {{.*}}cost = #cost.cost<flops = "0", read = "128", write = "128">
  %6 = tensor.einsum %a {equation = "ij->ji"} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // three operands: 2*(3 - 1) per term
  // CHECK: tensor.einsum {{.*}}cost = #cost.cost<flops = "32", read = "96", write = "32">
  %7 = tensor.einsum %v, %v, %v {equation = "i,i,i->i"} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%a: tensor<4x8xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>) {
  // n-1 per output: 4 * 7
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "28", read = "128", write = "16">
  %0 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "28", read = "128", write = "16">
  %1 = tensor.reduce %a {axes = array<i64: 1>, keepdims = true, kind = "max"} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "28", read = "128", write = "16">
  %2 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "min"} : (tensor<4x8xf32>) -> tensor<4xf32>
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "28", read = "128", write = "16">
  %3 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "prod"} : (tensor<4x8xf32>) -> tensor<4xf32>
  // mean adds one division per output
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "32", read = "128", write = "16">
  %4 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "mean"} : (tensor<4x8xf32>) -> tensor<4xf32>
  // everything into one: 31
  // CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "31", read = "128", write = "4">
  %5 = tensor.reduce %a {axes = array<i64: 0, 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<f32>
  // softmax: 5n - 2 per row of n, n transcendental: 4 * 38
  // CHECK: tensor.softmax {{.*}}cost = #cost.cost<flops = "152", read = "128", write = "128", transcendentals = "32">
  %6 = tensor.softmax %a {axis = 1 : i64} : tensor<4x8xf32>
  // along axis 0: 8 rows of 4
  // CHECK: tensor.softmax {{.*}}cost = #cost.cost<flops = "144", read = "128", write = "128", transcendentals = "32">
  %7 = tensor.softmax %a {axis = 0 : i64} : tensor<4x8xf32>
  // layer_norm: 7n + 2 per row, 1 transcendental per row; reads x, gamma, beta
  // CHECK: tensor.layer_norm {{.*}}cost = #cost.cost<flops = "232", read = "192", write = "128", transcendentals = "4">
  %8 = tensor.layer_norm %a, %g, %be {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%a: tensor<4x8xf32>, %t: tensor<10x8xf32>, %i64: tensor<5xi64>, %i32: tensor<5xi32>, %i3: tensor<3xi64>) {
  // Views cost nothing; their consumer reads them at their own shape.
  // CHECK: tensor.transpose {{.*}}cost = #cost.cost<flops = "0", read = "0", write = "0">
  %0 = tensor.transpose %a {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // CHECK: tensor.reshape {{.*}}cost = #cost.cost<flops = "0", read = "0", write = "0">
  %1 = tensor.reshape %a : (tensor<4x8xf32>) -> tensor<32xf32>
  // CHECK: tensor.broadcast_to {{.*}}cost = #cost.cost<flops = "0", read = "0", write = "0">
  %2 = tensor.broadcast_to %a : (tensor<4x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: tensor.slice {{.*}}cost = #cost.cost<flops = "0", read = "0", write = "0">
  %3 = tensor.slice %a {limit = array<i64: 2, 8>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  // CHECK: tensor.add {{.*}}cost = #cost.cost<flops = "64", read = "512", write = "256">
  %4 = tensor.add %2, %2 : tensor<2x4x8xf32>
  // concat copies: reads every input, writes the result
  // CHECK: tensor.concat {{.*}}cost = #cost.cost<flops = "0", read = "192", write = "192">
  %5 = tensor.concat %a, %3 {axis = 0 : i64} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<6x8xf32>
  // embedding (rows of a 2-D table, i64 indices): the gathered rows plus the indices
  // CHECK: tensor.gather {{.*}}cost = #cost.cost<flops = "0", read = "200", write = "160">
  %6 = tensor.gather %t, %i64 {axis = 0 : i64} : (tensor<10x8xf32>, tensor<5xi64>) -> tensor<5x8xf32>
  // CHECK: tensor.gather {{.*}}cost = #cost.cost<flops = "0", read = "180", write = "160">
  %7 = tensor.gather %t, %i32 {axis = 0 : i64} : (tensor<10x8xf32>, tensor<5xi32>) -> tensor<5x8xf32>
  // CHECK: tensor.gather {{.*}}cost = #cost.cost<flops = "0", read = "72", write = "48">
  %8 = tensor.gather %a, %i3 {axis = 1 : i64} : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}
