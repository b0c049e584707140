// Every verifier rule of the cost dialect, and the parse errors of '#cost.cost'.
// RUN: xcs-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// RUN: not xcs-opt %s --split-input-file --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=COLUMN

// Formula errors are reported at their column in the file.
// COLUMN: invalid.mlir:[[# @LINE + 2]]:44: error: malformed flops formula "2 * M +": unexpected end of formula
// expected-error@+1 {{malformed flops formula "2 * M +": unexpected end of formula, expected an integer, a name, '(', '+' or '-' (at column 8)}}
"foo.op"() {c = #cost.cost<flops = "2 * M +", read = "0", write = "0">} : () -> ()

// -----

// COLUMN: invalid.mlir:[[# @LINE + 2]]:64: error: malformed write formula "a / b": '/' is not supported
// expected-error@+1 {{malformed write formula "a / b": '/' is not supported: use '//' (floor division) (at column 3)}}
"foo.op"() {c = #cost.cost<flops = "1", read = "0", write = "a / b">} : () -> ()

// -----

// expected-error@+1 {{malformed read formula "x // (y - y)": division by zero (at column 7)}}
"foo.op"() {c = #cost.cost<flops = "1", read = "x // (y - y)", write = "0">} : () -> ()

// -----

// expected-error@+1 {{'#cost.cost' is missing write}}
"foo.op"() {c = #cost.cost<flops = "1", read = "0">} : () -> ()

// -----

// expected-error@+1 {{unknown cost key 'bytes' (expected flops, read, write, transcendentals)}}
"foo.op"() {c = #cost.cost<flops = "1", read = "0", write = "0", bytes = "4">} : () -> ()

// -----

// expected-error@+1 {{cost key 'flops' appears twice}}
"foo.op"() {c = #cost.cost<flops = "1", flops = "2", read = "0", write = "0">} : () -> ()

// -----

// expected-error@+1 {{expected a formula string after 'flops ='}}
"foo.op"() {c = #cost.cost<flops = 1, read = "0", write = "0">} : () -> ()

// -----

// expected-error@+1 {{expected '<flops = "...", read = "...", write = "...">'}}
"foo.op"() {c = #cost.cost} : () -> ()

// -----

// expected-error@+1 {{unknown attribute `costs` in dialect `cost`}}
"foo.op"() {c = #cost.costs<flops = "1">} : () -> ()

// -----

// expected-error@+1 {{'cost.kernel' op flops formula uses 'Q', which is neither a parameter of @k nor an implicit variable (batch_size, seq_len, cache_len, bytes, config.*)}}
cost.kernel @k {init_params = [], forward_params = ["M"], cost = #cost.cost<flops = "M*Q", read = "0", write = "0">}

// -----

// The implicit variables and config fields need no declaration.
cost.kernel @ok {init_params = [], forward_params = [], cost = #cost.cost<flops = "batch_size*seq_len*cache_len*config.n_embd", read = "bytes", write = "0">}
// expected-error@+1 {{'cost.kernel' op write formula uses 'config', which is neither a parameter of @k nor an implicit variable}}
cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "config">}

// -----

// expected-error@+1 {{'cost.kernel' op parameter 'seq_len' is an implicit variable; implicit variables (batch_size, seq_len, cache_len, bytes, config.*) are never parameters}}
cost.kernel @k {init_params = [], forward_params = ["seq_len"], cost = #cost.cost<flops = "0", read = "0", write = "0">}

// -----

// expected-error@+1 {{'cost.kernel' op parameter 'N' is declared twice}}
cost.kernel @k {init_params = ["N"], forward_params = ["N"], cost = #cost.cost<flops = "0", read = "0", write = "0">}

// -----

// expected-error@+1 {{'cost.kernel' op parameter 'a b' is not a name (a parameter is an identifier usable in formulas)}}
cost.kernel @k {init_params = ["a b"], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}

// -----

// expected-error@+1 {{'cost.kernel' op requires attribute 'cost'}}
cost.kernel @k {init_params = [], forward_params = []}

// -----

// expected-error@+1 {{'cost.kernel' op attribute 'cost' failed to satisfy constraint: #cost.cost attribute}}
cost.kernel @k {init_params = [], forward_params = [], cost = "2*M"}

// -----

// expected-error@+1 {{'cost.kernel' op attribute 'init_params' failed to satisfy constraint: array of string attributes}}
cost.kernel @k {init_params = [1], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}

// -----

// expected-error@+1 {{'cost.composite' op needs at least one 'cost.child' (a kernel without children is a 'cost.kernel')}}
cost.composite @c {init_params = [], forward_params = []} {
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-note@+1 {{the earlier child}}
  cost.child "a" @k {bindings = {}}
  // expected-error@+1 {{'cost.child' op has the label 'a' of an earlier child; labels are unique within a composite}}
  cost.child "a" @k {bindings = {}}
}

// -----

cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'foo.op' op is not allowed in 'cost.composite', which holds only 'cost.child' ops}}
  "foo.op"() : () -> ()
}

// -----

// expected-error@+1 {{'cost.child' op expects parent op 'cost.composite'}}
cost.child "a" @k {bindings = {}}

// -----

cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op '@nothere' does not reference a 'cost.kernel' or 'cost.composite'}}
  cost.child "x" @nothere {bindings = {}}
}

// -----

func.func private @f()
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op '@f' does not reference a 'cost.kernel' or 'cost.composite'}}
  cost.child "x" @f {bindings = {}}
}

// -----

cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op refers to its own composite @c; the kernel graph must be acyclic}}
  cost.child "x" @c {bindings = {}}
}

// -----

cost.kernel @mm {init_params = [], forward_params = ["M", "K", "N"], cost = #cost.cost<flops = "2*M*K*N", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op binds 'Q', which is not a parameter of @mm (its parameters: M, K, N)}}
  cost.child "x" @mm {bindings = {M = "1", K = "1", N = "1", Q = "1"}}
}

// -----

cost.kernel @mm {init_params = [], forward_params = ["M", "K", "N"], cost = #cost.cost<flops = "2*M*K*N", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op does not bind parameter 'N' of @mm; every parameter of the child is bound}}
  cost.child "x" @mm {bindings = {M = "1", K = "1"}}
}

// -----

cost.kernel @mm {init_params = [], forward_params = ["M"], cost = #cost.cost<flops = "M", read = "0", write = "0">}
cost.composite @c {init_params = ["nx"], forward_params = []} {
  // expected-error@+1 {{'cost.child' op binding of 'M' uses 'ny', which is neither a parameter of @c nor an implicit variable}}
  cost.child "x" @mm {bindings = {M = "nx*ny"}}
}

// -----

cost.kernel @mm {init_params = [], forward_params = ["M"], cost = #cost.cost<flops = "M", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op binding of 'M' "batch_size *" is malformed: unexpected end of formula, expected an integer, a name, '(', '+' or '-' (at column 13)}}
  cost.child "x" @mm {bindings = {M = "batch_size *"}}
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op count must be at least 1, got 0}}
  cost.child "x" @k {bindings = {}, count = 0}
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op count must be at least 1, got "2 - 3" = -1}}
  cost.child "x" @k {bindings = {}, count = "2 - 3"}
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op count uses 'layers', which is neither a parameter of @c nor an implicit variable}}
  cost.child "x" @k {bindings = {}, count = "layers"}
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op attribute 'count' failed to satisfy constraint: 64-bit signless integer attribute or formula string}}
  cost.child "x" @k {bindings = {}, count = 1.0}
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op attribute 'bindings' failed to satisfy constraint: dictionary of formula strings}}
  cost.child "x" @k {bindings = {a = 1}}
}

// -----

cost.kernel @k {init_params = [], forward_params = [], cost = #cost.cost<flops = "0", read = "0", write = "0">}
cost.composite @c {init_params = [], forward_params = []} {
  // expected-error@+1 {{'cost.child' op has an empty label}}
  cost.child "" @k {bindings = {}}
}

// -----

// expected-error@+1 {{expected string}}
cost.child @k {bindings = {}}

// -----

// expected-error@+1 {{expected '{' to begin the attribute dictionary}}
cost.composite @c
