// Every verifier rule of the tensor dialect, one chunk per rule. Each expected message names
// the rule and the values that break it.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics

// The declaration checks: operand and result counts and types, attributes (missing, of the
// wrong kind, unknown enumeration strings), regions.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.add' op requires 2 operands, but found 1}}
  %0 = "tensor.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xi32>) {
  // expected-error@+1 {{'tensor.exp' op operand #0 must be ranked tensor of f16, bf16, f32 or f64 values, but got 'tensor<4xi32>'}}
  %0 = tensor.exp %a : tensor<4xi32>
  return
}

// -----

func.func @f(%a: tensor<4xi1>) {
  // expected-error@+1 {{'tensor.add' op operand #0 must be ranked tensor of f16, bf16, f32, f64, i8, i16, i32 or i64 values, but got 'tensor<4xi1>'}}
  %0 = tensor.add %a, %a : tensor<4xi1>
  return
}

// -----

func.func @f(%a: tensor<*xf32>) {
  // expected-error@+1 {{'tensor.relu' op operand #0 must be ranked tensor of f16, bf16, f32, f64, i8, i16, i32 or i64 values, but got 'tensor<*xf32>'}}
  %0 = tensor.relu %a : tensor<*xf32>
  return
}

// -----

func.func @f(%a: tensor<4xui32>) {
  // expected-error@+1 {{'tensor.neg' op operand #0 must be ranked tensor of f16, bf16, f32, f64, i8, i16, i32 or i64 values, but got 'tensor<4xui32>'}}
  %0 = tensor.neg %a : tensor<4xui32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.cmp' op result #0 must be ranked tensor of i1 values, but got 'tensor<4xf32>'}}
  %0 = tensor.cmp %a, %a {predicate = "eq"} : tensor<4xf32>
  return
}

// -----

func.func @f(%c: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.select' op operand #0 must be ranked tensor of i1 values, but got 'tensor<4xi8>'}}
  %0 = tensor.select %c, %a, %a : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%t: tensor<8x4xf32>, %i: tensor<2xi16>) {
  // expected-error@+1 {{'tensor.gather' op operand #1 must be ranked tensor of i32 or i64 values, but got 'tensor<2xi16>'}}
  %0 = tensor.gather %t, %i {axis = 0 : i64} : (tensor<8x4xf32>, tensor<2xi16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op requires attribute 'axes'}}
  %0 = tensor.reduce %a {keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.softmax' op requires attribute 'axis'}}
  %0 = tensor.softmax %a : tensor<4x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'tensor.constant' op requires attribute 'value'}}
  %0 = tensor.constant : tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.gelu' op requires attribute 'approximate'}}
  %0 = tensor.gelu %a : tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = tensor.softmax %a {axis = 1 : i32} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op attribute 'axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = tensor.reduce %a {axes = [1], keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op attribute 'keepdims' failed to satisfy constraint: bool attribute}}
  %0 = tensor.reduce %a {axes = array<i64: 1>, keepdims = 0 : i64, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %0 = tensor.layer_norm %a, %g, %g {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.einsum' op attribute 'equation' failed to satisfy constraint: string attribute}}
  %0 = tensor.einsum %a {equation = @ij} : tensor<4x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'tensor.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = tensor.constant {value = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.cmp' op attribute 'predicate' failed to satisfy constraint: string attribute, one of "eq", "ne", "lt", "le", "gt", "ge"}}
  %0 = tensor.cmp %a, %a {predicate = "neq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op attribute 'kind' failed to satisfy constraint: string attribute, one of "sum", "max", "min", "mean", "prod"}}
  %0 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "avg"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.gelu' op attribute 'approximate' failed to satisfy constraint: string attribute, one of "none", "tanh"}}
  %0 = tensor.gelu %a {approximate = "erf"} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.cmp' op attribute 'predicate' failed to satisfy constraint}}
  %0 = tensor.cmp %a, %a {predicate = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op requires 1 regions, but found 0}}
  %0 = "tensor.fused"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The declared result type against the inferred one, and the type traits.
func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.add' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x9xf32>'}}
  %0 = tensor.add %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x9xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  %0 = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error@+1 {{'tensor.matmul' op inferred type(s) 'tensor<4x4xf32>' are incompatible with return type(s) of operation 'tensor<8x8xf32>'}}
  %0 = tensor.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'tensor.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<?xf32>) {
  // expected-error@+1 {{'tensor.neg' op requires the same type for all operands and results}}
  %0 = tensor.neg %a : (tensor<?xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.reshape' op requires the same element type for all operands and results}}
  %0 = tensor.reshape %a : (tensor<4xf32>) -> tensor<2x2xf16>
  return
}

// -----

// Broadcasting and element types of the elementwise ops.
func.func @f(%a: tensor<4x3xf32>, %b: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.mul' op shapes 4x3 and 2 do not broadcast (dimension 3 vs 2)}}
  %0 = tensor.mul %a, %b : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xi32>, %b: tensor<4x3xi64>) {
  // expected-error@+1 {{'tensor.sub' op operand element types must match, but got 'i32' and 'i64'}}
  %0 = tensor.sub %a, %b : (tensor<4x3xi32>, tensor<4x3xi64>) -> tensor<4x3xi32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error@+1 {{'tensor.cmp' op shapes 2x3 and 3x3 do not broadcast (dimension 2 vs 3)}}
  %0 = tensor.cmp %a, %b {predicate = "lt"} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @f(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error@+1 {{'tensor.cmp' op operand element types must match, but got 'f32' and 'f16'}}
  %0 = tensor.cmp %a, %b {predicate = "lt"} : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xi1>
  return
}

// -----

func.func @f(%c: tensor<5xi1>, %a: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.select' op shapes 5 and 3 do not broadcast (dimension 5 vs 3)}}
  %0 = tensor.select %c, %a, %a : (tensor<5xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xbf16>) {
  // expected-error@+1 {{'tensor.select' op operand element types must match, but got 'f32' and 'bf16'}}
  %0 = tensor.select %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xbf16>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.broadcast_to' op shape 2x3 cannot be broadcast to 4x3}}
  %0 = tensor.broadcast_to %a : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.broadcast_to' op shape 2x3 cannot be broadcast to 3}}
  %0 = tensor.broadcast_to %a : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

// cast keeps the shape; reshape keeps the element count.
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.cast' op cast changes the shape from 2x3 to 3x2}}
  %0 = tensor.cast %a : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.cast' op cast changes the shape from 2x3 to 6}}
  %0 = tensor.cast %a : (tensor<2x3xf32>) -> tensor<6xf16>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.reshape' op reshape from 2x3 (6 elements) to 7 (7 elements) changes the element count}}
  %0 = tensor.reshape %a : (tensor<2x3xf32>) -> tensor<7xf32>
  return
}

// -----

// matmul.
func.func @f(%a: tensor<4x3xf32>, %b: tensor<5x2xf32>) {
  // expected-error@+1 {{'tensor.matmul' op matmul contraction dimensions do not match: lhs 4x3 has K = 3, rhs 5x2 has K = 5}}
  %0 = tensor.matmul %a, %b : (tensor<4x3xf32>, tensor<5x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f(%a: tensor<3xf32>, %b: tensor<3x2xf32>) {
  // expected-error@+1 {{'tensor.matmul' op matmul operands must have rank >= 2, but got 1 and 2}}
  %0 = tensor.matmul %a, %b : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x3xf32>, %b: tensor<5x3x2xf32>) {
  // expected-error@+1 {{'tensor.matmul' op matmul batch dimensions: shapes 2 and 5 do not broadcast (dimension 2 vs 5)}}
  %0 = tensor.matmul %a, %b : (tensor<2x4x3xf32>, tensor<5x3x2xf32>) -> tensor<2x4x2xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>, %b: tensor<3x2xf16>) {
  // expected-error@+1 {{'tensor.matmul' op operand element types must match, but got 'f32' and 'f16'}}
  %0 = tensor.matmul %a, %b : (tensor<4x3xf32>, tensor<3x2xf16>) -> tensor<4x2xf32>
  return
}

// -----

// einsum equations.
func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum equation 'ij,jk->ik' names 2 operands, but the op has 1}}
  %0 = tensor.einsum %a {equation = "ij,jk->ik"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum ellipsis ('...') is not supported}}
  %0 = tensor.einsum %a {equation = "...j->j"} : (tensor<4x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum equation 'i1->i' has an invalid label '1'}}
  %0 = tensor.einsum %a {equation = "i1->i"} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum equation 'ij->i_' has an invalid label '_'}}
  %0 = tensor.einsum %a {equation = "ij->i_"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum output label 'i' appears more than once}}
  %0 = tensor.einsum %a {equation = "ij->ii"} : (tensor<4x3xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum output label 'k' does not appear in any input}}
  %0 = tensor.einsum %a {equation = "ij->ik"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum operand #0 has rank 2 but the equation gives it 3 labels}}
  %0 = tensor.einsum %a {equation = "ijk->i"} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'tensor.einsum' op einsum label 'j' has size 3 and 4}}
  %0 = tensor.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @f(%a: tensor<4x3xf32>, %b: tensor<3x5xf64>) {
  // expected-error@+1 {{'tensor.einsum' op operand element types must match, but got 'f32' and 'f64'}}
  %0 = tensor.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<4x3xf32>, tensor<3x5xf64>) -> tensor<4x5xf32>
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'tensor.einsum' op einsum equation '->' names 1 operands, but the op has 0}}
  %0 = "tensor.einsum"() {equation = "->"} : () -> tensor<f32>
  return
}

// -----

// Axes of reduce, softmax and layer_norm; layer_norm's gamma and beta.
func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op reduce axis 2 is out of range for rank 2}}
  %0 = tensor.reduce %a {axes = array<i64: 2>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op reduce axis -3 is out of range for rank 2}}
  %0 = tensor.reduce %a {axes = array<i64: -3>, keepdims = false, kind = "max"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.reduce' op reduce axes contain -1 more than once}}
  %0 = tensor.reduce %a {axes = array<i64: 1, -1>, keepdims = false, kind = "sum"} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.softmax' op softmax axis 2 is out of range for rank 2}}
  %0 = tensor.softmax %a {axis = 2 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{'tensor.softmax' op softmax axis -3 is out of range for rank 2}}
  %0 = tensor.softmax %a {axis = -3 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op layer_norm axis 2 is out of range for rank 2}}
  %0 = tensor.layer_norm %a, %g, %g {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op layer_norm gamma shape 4x8 does not match the normalized dims 8}}
  %0 = tensor.layer_norm %a, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<7xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op layer_norm beta shape 7 does not match the normalized dims 8}}
  %0 = tensor.layer_norm %a, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<7xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %g: tensor<8xf16>) {
  // expected-error@+1 {{'tensor.layer_norm' op operand element types must match, but got 'f32' and 'f16'}}
  %0 = tensor.layer_norm %a, %g, %g {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf16>, tensor<8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// transpose: perm must be a permutation of 0..rank (no repeats, in range, of the rank's length).
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'tensor.transpose' op transpose perm [0, 0, 1] is not a permutation of 0..3}}
  %0 = tensor.transpose %a {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'tensor.transpose' op transpose perm [1, 0] is not a permutation of 0..3}}
  %0 = tensor.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.transpose' op transpose perm [2, 0] is not a permutation of 0..2}}
  %0 = tensor.transpose %a {perm = array<i64: 2, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.transpose' op transpose perm [-1, 0] is not a permutation of 0..2}}
  %0 = tensor.transpose %a {perm = array<i64: -1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// slice bounds.
func.func @f(%a: tensor<8x6xf32>) {
  // expected-error@+1 {{'tensor.slice' op slice limit has 1 entries, but the operand has rank 2 (start, limit and stride have one entry per dim)}}
  %0 = tensor.slice %a {limit = array<i64: 8>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return
}

// -----

func.func @f(%a: tensor<8x6xf32>) {
  // expected-error@+1 {{'tensor.slice' op slice stride 0 in dim 1 must be at least 1}}
  %0 = tensor.slice %a {limit = array<i64: 8, 6>, start = array<i64: 0, 0>, stride = array<i64: 1, 0>} : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return
}

// -----

func.func @f(%a: tensor<8x6xf32>) {
  // expected-error@+1 {{'tensor.slice' op slice bounds [0, 9) in dim 0 are out of range for size 8}}
  %0 = tensor.slice %a {limit = array<i64: 9, 6>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<9x6xf32>
  return
}

// -----

func.func @f(%a: tensor<8x6xf32>) {
  // expected-error@+1 {{'tensor.slice' op slice bounds [-1, 6) in dim 1 are out of range for size 6}}
  %0 = tensor.slice %a {limit = array<i64: 8, 6>, start = array<i64: 0, -1>, stride = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<8x7xf32>
  return
}

// -----

func.func @f(%a: tensor<?x6xf32>) {
  // expected-error@+1 {{'tensor.slice' op slice bounds [3, 2) in dim 0 are out of range for size ?}}
  %0 = tensor.slice %a {limit = array<i64: 2, 6>, start = array<i64: 3, 0>, stride = array<i64: 1, 1>} : (tensor<?x6xf32>) -> tensor<0x6xf32>
  return
}

// -----

// concat.
func.func @f() {
  // expected-error@+1 {{'tensor.concat' op concat needs at least one operand}}
  %0 = "tensor.concat"() {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.concat' op concat axis 2 is out of range for rank 2}}
  %0 = tensor.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.concat' op concat operand #1 has rank 1 but operand #0 has rank 2}}
  %0 = tensor.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+1 {{'tensor.concat' op concat operand #1 has shape 2x4 which does not match 2x3 outside axis 0}}
  %0 = tensor.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error@+1 {{'tensor.concat' op operand element types must match, but got 'f32' and 'i32'}}
  %0 = tensor.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return
}

// -----

// gather.
func.func @f(%t: tensor<8x4xf32>, %i: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.gather' op gather axis 2 is out of range for rank 2}}
  %0 = tensor.gather %t, %i {axis = 2 : i64} : (tensor<8x4xf32>, tensor<2xi64>) -> tensor<8x4x2xf32>
  return
}

// -----

func.func @f(%t: tensor<8x4xf32>, %i: tensor<2x3xi32>) {
  // expected-error@+1 {{'tensor.gather' op inferred type(s) 'tensor<8x2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x4xf32>'}}
  %0 = tensor.gather %t, %i {axis = 1 : i64} : (tensor<8x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return
}

// -----

// fused: its block takes the operands and yields the results; tensor.yield ends it.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op requires a body block}}
  %0 = "tensor.fused"(%a) ({
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op body block has 2 arguments, but the op has 1 operands}}
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    tensor.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op body block argument #0 has type 'tensor<?xf32>', but operand #0 has type 'tensor<4xf32>'}}
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<?xf32>):
    %y = tensor.reshape %x : (tensor<?xf32>) -> tensor<4xf32>
    tensor.yield %y : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op body yields 1 values, but the op has 2 results}}
  %0:2 = tensor.fused %a : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    tensor.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op yielded value #0 has type 'tensor<4xf32>', but result #0 has type 'tensor<?xf32>'}}
  %0 = tensor.fused %a : (tensor<4xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<4xf32>):
    tensor.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{block with no terminator, has %0 = "tensor.exp"(%arg0)}}
    %1 = tensor.exp %x : tensor<4xf32>
  }
  return
}

// -----

// tensor.fused is isolated from above: its body cannot use the function's values.
func.func @f(%a: tensor<4xf32>) {
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{use of undeclared SSA value name}}
    tensor.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.fused' op expects region #0 to have 0 or 1 blocks}}
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    cf.br ^bb1
  ^bb1:
    tensor.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'tensor.yield' op expects parent op 'tensor.fused'}}
  tensor.yield %a : tensor<4xf32>
}

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<f32>):
    // expected-error@+1 {{'tensor.yield' op expects parent op 'tensor.fused'}}
    tensor.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{'tensor.yield' op must be the last operation in the parent block}}
    tensor.yield %x : tensor<4xf32>
    tensor.yield %x : tensor<4xf32>
  }
  return
}
