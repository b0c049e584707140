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

// expected-error@+1 {{'xcs.kernel' op body must end in 'xcs.yield' of the new values of its out and inout parameters}}
xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["out"]} {
^bb0(%x: tensor<4xf32>):
  %0 = tensor.add %x, %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'xcs.kernel' op body yields (tensor<4xf32>, tensor<4xf32>), but its out and inout parameters are (tensor<4xf32>); it yields their new values in parameter order}}
xcs.kernel @k {function_type = (tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["in", "out"]} {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  xcs.yield %x, %y : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error@+1 {{'xcs.yield' op expects parent op 'xcs.vmap', 'xcs.parallel_map' or 'xcs.kernel'}}
  xcs.yield %x : tensor<4xf32>
}

// -----

func.func @f() {
  // expected-error@+1 {{'xcs.parallel_for' op must be inside an 'xcs.workload' (directly or in another 'xcs.parallel_for')}}
  xcs.parallel_for {extent = 4 : i64} : () -> () {
  ^bb0(%i: index):
  }
  return
}

// -----

func.func @f() {
  xcs.workload : () -> () {
    // expected-error@+1 {{'xcs.parallel_for' op body must have one block with one 'index' argument (the axis variable)}}
    xcs.parallel_for {extent = 4 : i64} : () -> () {
    ^bb0(%i: i64):
    }
  }
  return
}

// -----

func.func @f() {
  xcs.workload : () -> () {
    // expected-error@+1 {{'xcs.parallel_for' op extent must be non-negative}}
    xcs.parallel_for {extent = -1 : i64} : () -> () {
    ^bb0(%i: index):
    }
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = xcs.workload %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    // expected-error@+1 {{'tensor.add' op is in an 'xcs.workload', which may hold only 'xcs.parallel_for' and 'xcs.launch'}}
    %1 = tensor.add %a, %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<?xf32>) {
  // expected-error@+1 {{'xcs.workload' op input type 'tensor<?xf32>' has a dynamic dim; workload tensors have static shapes}}
  xcs.workload %x : (tensor<?xf32>) -> () {
  ^bb0(%a: tensor<?xf32>):
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'xcs.workload' op body block has 1 arguments of types (tensor<4xf32>); they must be the inputs then the outputs: (tensor<4xf32>, tensor<8xf32>)}}
  %0 = xcs.workload %x : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
  }
  return %0 : tensor<8xf32>
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
func.func @f(%i: index) -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    // expected-error@+1 {{'xcs.launch' op axis operand #0 is not the axis variable of an enclosing 'xcs.parallel_for'}}
    xcs.launch @k[%i](%o) : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f(%x: tensor<4xf32>) {
  xcs.workload : () -> () {
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op tensor operand #0 is not a tensor of the enclosing 'xcs.workload' (one of its block arguments: its inputs, then its outputs)}}
      xcs.launch @k[%i](%x) : tensor<4xf32>
    }
  }
  return
}

// -----

func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op '@nothere' does not reference an 'xcs.kernel'}}
      xcs.launch @nothere[%i](%o) : tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, index, tensor<4xf32>) -> (), arg_kinds = ["axis", "axis", "out"]}
func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op gives 1 axis operands, but @k has 2 axis parameters}}
      xcs.launch @k[%i](%o) : tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"], arg_names = ["i", "A", "B"]}
func.func @f(%x: tensor<4xf32>) {
  xcs.workload %x : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op does not bind out parameter 'B' of @k (it gives 1 tensor operands for 2 tensor parameters)}}
      xcs.launch @k[%i](%a) : tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], arg_names = ["i", "B"]}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = xcs.workload %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %o: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op gives 2 tensor operands, but @k has 1 tensor parameters ('B'); tensor operand #1 binds none}}
      xcs.launch @k[%i](%o, %a) : tensor<4xf32>, tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"], arg_names = ["i", "A", "B"]}
func.func @f(%x: tensor<4xf32>) -> tensor<2x8xf32> {
  %0 = xcs.workload %x : (tensor<4xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<4xf32>, %o: tensor<2x8xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op binds a view of type 'tensor<8xf32>' (tensor operand #1) to out parameter 'B' of @k, which is 'tensor<4xf32>'}}
      xcs.launch @k[%i](%a, %o[%i]) : tensor<4xf32>, tensor<2x8xf32>
    }
  }
  return %0 : tensor<2x8xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"], arg_names = ["i", "A", "B"]}
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  xcs.workload %x, %y : tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op binds workload input #1 (tensor operand #1) to out parameter 'B' of @k; a kernel writes only the workload's outputs}}
      xcs.launch @k[%i](%a, %b) : tensor<4xf32>, tensor<4xf32>
    }
  }
  return
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"]}
func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op tensor operand #1 is written by @k (out parameter #2) and tensor operand #0 views an overlapping part of the same tensor (at grid point (0)); a written view may not alias another operand}}
      xcs.launch @k[%i](%o, %o) : tensor<4xf32>, tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f() -> tensor<3x8xf32> {
  %0 = xcs.workload : () -> tensor<3x8xf32> {
  ^bb0(%o: tensor<3x8xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op the view of tensor operand #0 has a range on dim 1 reaching [6, 10) over the grid, outside the dim's size 8}}
      xcs.launch @k[%i](%o[%i, 6:10]) : tensor<3x8xf32>
    }
  }
  return %0 : tensor<3x8xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f() -> tensor<3x8xf32> {
  %0 = xcs.workload : () -> tensor<3x8xf32> {
  ^bb0(%o: tensor<3x8xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op the view of tensor operand #0 has a range on dim 1 reaching [0, 12) over the grid, outside the dim's size 8}}
      xcs.launch @k[%i](%o[0, 4*%i:4*%i + 4]) : tensor<3x8xf32>
    }
  }
  return %0 : tensor<3x8xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f() -> tensor<8xf32> {
  %0 = xcs.workload : () -> tensor<8xf32> {
  ^bb0(%o: tensor<8xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op writes [2:6] of workload output #0 at grid point (1), which overlaps [0:4] written at grid point (0); launches of parallel iterations may not write overlapping parts of an out or inout tensor}}
      xcs.launch @k[%i](%o[2*%i:2*%i + 4]) : tensor<8xf32>
    }
  }
  return %0 : tensor<8xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "inout"]}
func.func @f() -> tensor<2x4xf32> {
  %0 = xcs.workload : () -> tensor<2x4xf32> {
  ^bb0(%o: tensor<2x4xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @k[%i](%o[%i]) : tensor<2x4xf32>
      // expected-error@+1 {{'xcs.launch' op writes [0:1, 0:4] of workload output #0 at grid point (1), which overlaps [0:1, 0:4] written at grid point (0) by another launch; launches of parallel iterations may not write overlapping parts of an out or inout tensor}}
      xcs.launch @k[%i](%o[-%i + 1]) : tensor<2x4xf32>
    }
  }
  return %0 : tensor<2x4xf32>
}

// -----

// Sequential launches (not in a common parallel_for) may write the same part.
xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "inout"]}
func.func @f() -> tensor<2x4xf32> {
  %0 = xcs.workload : () -> tensor<2x4xf32> {
  ^bb0(%o: tensor<2x4xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @k[%i](%o[%i]) : tensor<2x4xf32>
      xcs.launch @k[%i](%o[%i]) : tensor<2x4xf32>
    }
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @k[%i](%o[%i]) : tensor<2x4xf32>
    }
  }
  return %0 : tensor<2x4xf32>
}

// -----

// An iteration may not read a part of an output that a parallel iteration writes.
xcs.kernel @w {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
xcs.kernel @r {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"]}
func.func @f() -> (tensor<4x4xf32>, tensor<3x4xf32>) {
  %0:2 = xcs.workload : () -> (tensor<4x4xf32>, tensor<3x4xf32>) {
  ^bb0(%o: tensor<4x4xf32>, %z: tensor<3x4xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @w[%i](%o[%i]) : tensor<4x4xf32>
      // expected-error@+1 {{'xcs.launch' op reads [1:2, 0:4] of workload output #0 at grid point (0), which overlaps [1:2, 0:4] written at grid point (1) by another launch; an iteration may not read what a parallel iteration writes (a race: it may run before or after)}}
      xcs.launch @r[%i](%o[%i + 1], %z[%i]) : tensor<4x4xf32>, tensor<3x4xf32>
    }
  }
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<3x4xf32>
}

// -----

// An inout view that reaches into the next iteration's: a read/write race (and a write/write one).
xcs.kernel @k {function_type = (index, tensor<3xf32>) -> (), arg_kinds = ["axis", "inout"]}
func.func @f() -> tensor<7xf32> {
  %0 = xcs.workload : () -> tensor<7xf32> {
  ^bb0(%o: tensor<7xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op writes [2:5] of workload output #0 at grid point (1), which overlaps [0:3] written at grid point (0)}}
      xcs.launch @k[%i](%o[2*%i:2*%i + 3]) : tensor<7xf32>
    }
  }
  return %0 : tensor<7xf32>
}

// -----

// Reading what the same iteration writes (before or after, or its own inout region) is ordered,
// and a read after the loop is sequential: no race.
xcs.kernel @w {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "inout"]}
xcs.kernel @r {function_type = (index, tensor<4xf32>, tensor<4xf32>) -> (), arg_kinds = ["axis", "in", "out"]}
xcs.kernel @all {function_type = (tensor<4x4xf32>, tensor<3x4xf32>) -> (), arg_kinds = ["in", "out"]}
func.func @f() -> (tensor<4x4xf32>, tensor<3x4xf32>) {
  %0:2 = xcs.workload : () -> (tensor<4x4xf32>, tensor<3x4xf32>) {
  ^bb0(%o: tensor<4x4xf32>, %z: tensor<3x4xf32>):
    xcs.parallel_for {extent = 3 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.launch @r[%i](%o[%i], %z[%i]) : tensor<4x4xf32>, tensor<3x4xf32>
      xcs.launch @w[%i](%o[%i]) : tensor<4x4xf32>
      xcs.launch @r[%i](%o[%i], %z[%i]) : tensor<4x4xf32>, tensor<3x4xf32>
    }
    xcs.launch @all[](%o, %z) : tensor<4x4xf32>, tensor<3x4xf32>
  }
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<3x4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f() -> tensor<2x4xf32> {
  %0 = xcs.workload : () -> tensor<2x4xf32> {
  ^bb0(%o: tensor<2x4xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      xcs.parallel_for {extent = 2 : i64} : () -> () {
      ^bb0(%j: index):
        // expected-error@+1 {{'xcs.launch' op writes [0:1, 0:4] of workload output #0 at grid point (1, 0), which overlaps [0:1, 0:4] written at grid point (0, 0); launches of parallel iterations may not write overlapping parts of an out or inout tensor}}
        xcs.launch @k[%i](%o[%j]) : tensor<2x4xf32>
      }
    }
  }
  return %0 : tensor<2x4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f() -> tensor<2x8xf32> {
  %0 = xcs.workload : () -> tensor<2x8xf32> {
  ^bb0(%o: tensor<2x8xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{a view range 'lo:hi' must have a constant, non-negative size hi - lo (the same axis terms on both sides)}}
      xcs.launch @k[%i](%o[%i, 0:4*%i]) : tensor<2x8xf32>
    }
  }
  return %0 : tensor<2x8xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], constexprs = {BLOCK = 128 : i64}}
func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op sets constexpr 'BLOK', which @k does not declare (it has BLOCK)}}
      xcs.launch @k[%i](%o) {constexprs = {BLOK = 64 : i64}} : tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], constexprs = {BLOCK = 128 : i64}}
func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op constexpr 'BLOCK' of @k is of type 'i64'; the launch gives 6.400000e+01 : f32}}
      xcs.launch @k[%i](%o) {constexprs = {BLOCK = 64.0 : f32}} : tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"], constexprs = {SCALE = f32}}
func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op does not set constexpr 'SCALE' of @k, which has no default}}
      xcs.launch @k[%i](%o) : tensor<4xf32>
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (index, tensor<4xf32>) -> (), arg_kinds = ["axis", "out"]}
func.func @f() -> tensor<4xf32> {
  %0 = xcs.workload : () -> tensor<4xf32> {
  ^bb0(%o: tensor<4xf32>):
    xcs.parallel_for {extent = 1 : i64} : () -> () {
    ^bb0(%i: index):
      // expected-error@+1 {{'xcs.launch' op operandSegmentSizes must be array<i32: axes, tensors> or array<i32: axes, tensors, view indices> with non-negative sizes adding up to the number of operands}}
      "xcs.launch"(%i, %o) <{kernel = @k, operandSegmentSizes = array<i32: 1, 2>}> : (index, tensor<4xf32>) -> ()
    }
  }
  return %0 : tensor<4xf32>
}

// -----

xcs.kernel @k {function_type = (tensor<4xf32>) -> (), arg_kinds = ["out"]}
func.func @f(%n: index) -> tensor<2x4xf32> {
  %0 = xcs.workload : () -> tensor<2x4xf32> {
  ^bb0(%o: tensor<2x4xf32>):
    // expected-error@+1 {{'xcs.launch' op view index #0 is not the axis variable of an enclosing 'xcs.parallel_for'}}
    xcs.launch @k[](%o[%n]) : tensor<2x4xf32>
  }
  return %0 : tensor<2x4xf32>
}
