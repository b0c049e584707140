// Every verifier rule of the xcs kernel ops.
// RUN: xcs-test-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'xcs.kernel' op has results in its function_type; a kernel returns nothing, it writes its out and inout tensors}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> tensor<4xf32>, arg_kinds = ["out"]}

// -----

// expected-error@+1 {{'xcs.kernel' op has 1 arg_kinds for 2 parameters; each parameter has one kind}}
xcs.kernel @k {function_type = (tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["out"]}

// -----

// expected-error@+1 {{'xcs.kernel' op attribute 'arg_kinds' failed to satisfy constraint: array of "axis", "in", "out", "inout" strings}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["output"]}

// -----

// expected-error@+1 {{'xcs.kernel' op axis parameter 'i' has type 'i64'; axis variables are 'index'}}
xcs.kernel @k {function_type = (i64, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], arg_names = ["i", "x"]}

// -----

// expected-error@+1 {{'xcs.kernel' op in parameter #0 has type 'f32'; tensor parameters are ranked tensors}}
xcs.kernel @k {function_type = (f32, tensor<4xf32>) -> (), arg_kinds = ["in", "out"]}

// -----

// expected-error@+1 {{'xcs.kernel' op has no out or inout parameter; a kernel's results are the tensors it writes}}
xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "in"]}

// -----

// expected-error@+1 {{'xcs.kernel' op parameter name 'x' appears twice in arg_names}}
xcs.kernel @k {function_type = (tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["in", "out"], arg_names = ["x", "x"]}

// -----

// expected-error@+1 {{'xcs.kernel' op has 1 arg_names for 2 parameters}}
xcs.kernel @k {function_type = (tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["in", "out"], arg_names = ["x"]}

// -----

// expected-error@+1 {{'xcs.kernel' op constexpr 'BLOCK' must be an integer, float or bool default value, or an integer or float type (no default)}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["out"], constexprs = {BLOCK = "big"}}

// -----

// expected-error@+1 {{'xcs.kernel' op constexpr 'x' has the name of a parameter}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["out"], arg_names = ["x"], constexprs = {x = 1 : i64}}

// -----

// expected-error@+1 {{'xcs.kernel' op body argument #0 has type 'tensor<8xf32>', but the parameter is 'tensor<4xf32>'}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["out"]} {
^bb0(%x: tensor<8xf32>):
}

// -----

// expected-error@+1 {{'xcs.kernel' op body has 0 entry block arguments for 1 parameters; the body takes the kernel's parameters}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["out"]} {
  "test.effect"() : () -> ()
}

// -----

// expected-error@+1 {{'xcs.kernel' op requires attribute 'arg_kinds'}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> ()}

// -----

func.func @f(%n: index) {
  // expected-error@+1 {{'xcs.parallel_for' op must be inside an 'xcs.workload'}}
  xcs.parallel_for %n : index {
  ^bb0(%i: index):
  }
  return
}

// -----

func.func @f(%n: index) {
  xcs.workload : () -> () {
    // expected-error@+1 {{'xcs.parallel_for' op body must have one block with one 'index' argument (the axis variable)}}
    xcs.parallel_for %n : index {
    ^bb0(%i: i64):
    }
  }
  return
}

// -----

func.func @f(%n: i64) {
  xcs.workload : () -> () {
    // expected-error@+1 {{'xcs.parallel_for' op operand #0 must be index, but got 'i64'}}
    "xcs.parallel_for"(%n) ({
    ^bb0(%i: index):
    }) : (i64) -> ()
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f(%x: tensor<4xf32>, %i: index) {
  // expected-error@+1 {{'xcs.launch' op must be inside an 'xcs.workload'}}
  xcs.launch @k[%i](%x) : tensor<4xf32>
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f(%x: tensor<4xf32>, %i: index) {
  xcs.workload : () -> () {
    // expected-error@+1 {{'xcs.launch' op axis operand #0 is not the axis variable of an enclosing 'xcs.parallel_for'}}
    xcs.launch @k[%i](%x) : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op '@nothere' does not reference an 'xcs.kernel'}}
      xcs.launch @nothere[%i](%x) : tensor<4xf32>
    }
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op '@f' does not reference an 'xcs.kernel'}}
      xcs.launch @f[%i](%x) : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, index, tensor<4xf32>) -> (), arg_kinds = ["axis", "axis", "out"]}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op gives 1 axis operands, but @k has 2 axis parameters}}
      xcs.launch @k[%i](%x) : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"]}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op gives 1 tensor operands, but @k has 2 tensor parameters}}
      xcs.launch @k[%i](%x) : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"], arg_names = ["i", "A", "B"]}
func.func @f(%x: tensor<4xf32>, %y: tensor<8xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op tensor operand #1 has type 'tensor<8xf32>', but out parameter 'B' of @k is 'tensor<4xf32>'}}
      xcs.launch @k[%i](%x, %y) : tensor<4xf32>, tensor<8xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"]}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op tensor operand #1 is written by @k (out parameter #2) and also passed as tensor operand #0; a written tensor may not alias another operand}}
      xcs.launch @k[%i](%x, %x) : tensor<4xf32>, tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], constexprs = {BLOCK = 128 : i64}}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op sets constexpr 'BLOK', which @k does not declare (it has BLOCK)}}
      xcs.launch @k[%i](%x) {constexprs = {BLOK = 64 : i64}} : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], constexprs = {BLOCK = 128 : i64}}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op constexpr 'BLOCK' of @k is of type 'i64'; the launch gives 6.400000e+01 : f32}}
      xcs.launch @k[%i](%x) {constexprs = {BLOCK = 64.0 : f32}} : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], constexprs = {SCALE = f32}}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op does not set constexpr 'SCALE' of @k, which has no default}}
      xcs.launch @k[%i](%x) : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op operandSegmentSizes must be array<i32: axes, tensors> with non-negative sizes adding up to the number of operands}}
      "xcs.launch"(%i, %x) <{kernel = @k, operandSegmentSizes = array<i32: 1, 2>}> : (index, tensor<4xf32>) -> ()
    }
  }
  return
}

// -----

// expected-note@+1 {{prior use here}}
func.func @f(%x: tensor<4xf32>, %n: index) {
  xcs.workload : () -> () {
    xcs.parallel_for %n : index {
    ^bb0(%i: index):
      // expected-error@+1 {{use of value '%x' expects different type than prior uses: 'tensor<8xf32>' vs 'tensor<4xf32>'}}
      xcs.launch @k[%i](%x) : tensor<8xf32>
    }
  }
  return
}
