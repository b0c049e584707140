// Every verifier rule of the xcs orchestration ops and types (the kernel ops are in
// kernels-invalid.mlir), one chunk per rule. Each expected message names the rule.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics

// Types: !xcs.str where text is expected; unknown xcs types; parameters on !xcs.str.
func.func @f(%a: tensor<4xf32>) {
  // expected-error@+1 {{'xcs.llm' op operand #0 must be !xcs.str, but got 'tensor<4xf32>'}}
  %0 = xcs.llm %a {model = "m", provider = "echo"} : (tensor<4xf32>) -> !xcs.str
  return
}

// -----

func.func @f(%a: !xcs.str) {
  // expected-error@+1 {{'xcs.llm' op result #0 must be !xcs.str, but got '!xcs.any'}}
  %0 = xcs.llm %a {model = "m", provider = "echo"} : (!xcs.str) -> !xcs.any
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'xcs.str_const' op result #0 must be !xcs.str, but got 'i32'}}
  %0 = xcs.str_const {value = "x"} : i32
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op result #0 must be !xcs.str, but got 'tensor<1xi8>'}}
  %0 = xcs.format %a {template = "{}"} : (i32) -> tensor<1xi8>
  return
}

// -----

// An unknown xcs type and a parameter on a type that takes none are parse errors.
// expected-error@+1 {{unknown type `foo` in dialect `xcs`}}
func.func private @f(!xcs.foo) -> ()

// -----

// expected-error@+1 {{type 'xcs.str' takes no parameters}}
func.func private @f(!xcs.str<8>) -> ()

// -----

// Attributes: missing, of the wrong kind.
func.func @f(%a: !xcs.str) {
  // expected-error@+1 {{'xcs.llm' op requires attribute 'provider'}}
  %0 = xcs.llm %a {model = "m"} : !xcs.str
  return
}

// -----

func.func @f(%a: !xcs.str) {
  // expected-error@+1 {{'xcs.llm' op attribute 'model' failed to satisfy constraint: string attribute}}
  %0 = xcs.llm %a {model = 4 : i64, provider = "echo"} : !xcs.str
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'xcs.str_const' op requires attribute 'value'}}
  %0 = xcs.str_const : !xcs.str
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'xcs.str_const' op attribute 'value' failed to satisfy constraint: string attribute}}
  %0 = xcs.str_const {value = unit} : !xcs.str
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op requires attribute 'template'}}
  %0 = xcs.format %a : (i32) -> !xcs.str
  return
}

// -----

// format templates.
func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op format template refers to argument 1, but the op has 1 operands}}
  %0 = xcs.format %a {template = "{} and {}"} : (i32) -> !xcs.str
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op format template refers to argument 3, but the op has 1 operands}}
  %0 = xcs.format %a {template = "{3}"} : (i32) -> !xcs.str
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op format template has an unclosed '{'}}
  %0 = xcs.format %a {template = "value: {"} : (i32) -> !xcs.str
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op format template has an unmatched '}'}}
  %0 = xcs.format %a {template = "{} }"} : (i32) -> !xcs.str
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op format template has an invalid placeholder character 'x'}}
  %0 = xcs.format %a {template = "{x}"} : (i32) -> !xcs.str
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'xcs.format' op format template index is too large}}
  %0 = xcs.format %a {template = "{99999999999999999999999}"} : (i32) -> !xcs.str
  return
}

// -----

// vmap: in_axes/out_axes lengths, batched operands, batch sizes, the block, the yield.
func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op in_axes has 2 entries but the op has 1 operands}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op out_axes has 0 entries but the op has 1 results}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op requires attribute 'out_axes'}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op attribute 'in_axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = xcs.vmap %a {in_axes = [0], out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op operand #0: in_axes: axis 2 is out of range for rank 2}}
  %0 = xcs.vmap %a {in_axes = array<i64: 2>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: !xcs.str) {
  // expected-error@+1 {{'xcs.vmap' op operand #0: batched operand of type '!xcs.str' is not a ranked tensor}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (!xcs.str) -> tensor<1x!xcs.str> {
  ^bb0(%x: !xcs.str):
    xcs.yield %x : !xcs.str
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) {
  // expected-error@+1 {{'xcs.vmap' op operand #1 has batch size 6, but an earlier operand has 8}}
  %0 = xcs.vmap %a, %b {in_axes = array<i64: 0, 1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %b: tensor<8x4xf32>, %c: tensor<6x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op operand #2 has batch size 6, but an earlier operand has 8}}
  %0 = xcs.vmap %a, %b, %c {in_axes = array<i64: 0, 0, 0>, out_axes = array<i64: 0>} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op needs at least one batched operand (an in_axes entry other than -1)}}
  %0 = xcs.vmap %a {in_axes = array<i64: -1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<1x8x4xf32> {
  ^bb0(%x: tensor<8x4xf32>):
    xcs.yield %x : tensor<8x4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op requires a body block}}
  %0 = "xcs.vmap"(%a) ({
  }) {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op body block has 2 arguments, but the op has 1 operands}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op body block argument #0 has type 'tensor<8xf32>', but the unbatched operand type is 'tensor<4xf32>'}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<8x8xf32> {
  ^bb0(%x: tensor<8xf32>):
    xcs.yield %x : tensor<8xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>, %w: tensor<3xf32>) {
  // expected-error@+1 {{'xcs.vmap' op body block argument #1 has type 'tensor<f32>', but the unbatched operand type is 'tensor<3xf32>'}}
  %0 = xcs.vmap %a, %w {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>} : (tensor<8x4xf32>, tensor<3xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<f32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op body yields 2 values, but the op has 1 results}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x, %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op result #0 has type 'tensor<8x4xf32>', but the yielded 'tensor<4xf16>' batched at axis 0 is 'tensor<8x4xf16>'}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %y = tensor.cast %x : (tensor<4xf32>) -> tensor<4xf16>
    xcs.yield %y : tensor<4xf16>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op result #0 has type 'tensor<8x4xf32>', but the yielded 'tensor<4xf32>' batched at axis 1 is 'tensor<4x8xf32>'}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 1>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  // expected-error@+1 {{'xcs.vmap' op result #0: out_axes: axis 2 is out of range for rank 2}}
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 2>} : (tensor<8x4xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4xf32>):
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

// parallel_map has vmap's rules, and max_concurrency is an i64.
func.func @f(%a: tensor<8x!xcs.str>) {
  // expected-error@+1 {{'xcs.parallel_map' op attribute 'max_concurrency' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = xcs.parallel_map %a {in_axes = array<i64: 0>, max_concurrency = 4 : i32, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
  ^bb0(%x: !xcs.str):
    xcs.yield %x : !xcs.str
  }
  return
}

// -----

func.func @f(%a: tensor<8x!xcs.str>) {
  // expected-error@+1 {{'xcs.parallel_map' op body block argument #0 has type 'tensor<1x!xcs.str>', but the unbatched operand type is '!xcs.str'}}
  %0 = xcs.parallel_map %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
  ^bb0(%x: tensor<1x!xcs.str>):
    xcs.yield %x : tensor<1x!xcs.str>
  }
  return
}

// -----

func.func @f(%a: tensor<8x!xcs.str>) {
  // expected-error@+1 {{'xcs.parallel_map' op in_axes has 0 entries but the op has 1 operands}}
  %0 = xcs.parallel_map %a {in_axes = array<i64>, out_axes = array<i64: 0>} : tensor<8x!xcs.str> {
  ^bb0(%x: !xcs.str):
    xcs.yield %x : !xcs.str
  }
  return
}

// -----

// xcs.yield: its parent is vmap or parallel_map; it ends the block.
func.func @f(%a: !xcs.str) {
  // expected-error@+1 {{'xcs.yield' op expects parent op 'xcs.vmap', 'xcs.parallel_map' or 'xcs.kernel'}}
  xcs.yield %a : !xcs.str
}

// -----

func.func @f(%a: tensor<4xf32>) {
  %0 = tensor.fused %a : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{'xcs.yield' op expects parent op 'xcs.vmap', 'xcs.parallel_map' or 'xcs.kernel'}}
    xcs.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{'xcs.yield' op must be the last operation in the parent block}}
    xcs.yield %x : tensor<4xf32>
    %y = tensor.exp %x : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%a: tensor<8x4xf32>) {
  %0 = xcs.vmap %a {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : tensor<8x4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error@+1 {{block with no terminator, has %1 = "tensor.exp"(%arg1)}}
    %y = tensor.exp %x : tensor<4xf32>
  }
  return
}
