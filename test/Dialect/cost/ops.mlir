// The cost dialect in its pretty and generic forms: the seed's GPT-2 attention example
// (leaf kernels, composites, children with bindings and counts). Pretty output re-parses to
// the same text; the generic output prints back identically through mlir-minimal-opt.
// RUN: xcs-opt %s | FileCheck %s
// RUN: xcs-opt %s | xcs-opt | FileCheck %s
// RUN: xcs-opt %s --mlir-print-op-generic -o %t.generic.mlir
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | diff %t.generic.mlir -
// RUN: xcs-opt %t.generic.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=GENERIC < %t.generic.mlir

// CHECK-LABEL: module {
// CHECK-NEXT: cost.kernel @torch.addmm {cost = #cost.cost<flops = "2*K*M*N + M*N", read = "K*M*bytes + K*N*bytes + M*N*bytes", write = "M*N*bytes">, forward_params = ["M", "K", "N"], init_params = []}
// GENERIC: "cost.kernel"() <{cost = #cost.cost<flops = "2*K*M*N + M*N", read = "K*M*bytes + K*N*bytes + M*N*bytes", write = "M*N*bytes">, forward_params = ["M", "K", "N"], init_params = [], sym_name = "torch.addmm"}> : () -> ()
cost.kernel @torch.addmm {init_params = [], forward_params = ["M", "K", "N"],
  cost = #cost.cost<flops = "2 * M * K * N + M * N", read = "(M * N + M * K + K * N) * bytes", write = "M * N * bytes">}

// CHECK-NEXT: cost.kernel @torch.matmul {cost = #cost.cost<flops = "2*K*M*N", read = "K*M*bytes + K*N*bytes", write = "M*N*bytes">, forward_params = ["M", "K", "N"], init_params = []}
cost.kernel @torch.matmul {init_params = [], forward_params = ["M", "K", "N"],
  cost = #cost.cost<flops = "2*M*K*N", read = "(M*K + K*N)*bytes", write = "M*N*bytes">}

// CHECK-NEXT: cost.kernel @torch.mul {cost = #cost.cost<flops = "num_elements", read = "2*bytes*num_elements", write = "bytes*num_elements">, forward_params = ["num_elements"], init_params = []}
cost.kernel @torch.mul {init_params = [], forward_params = ["num_elements"],
  cost = #cost.cost<flops = "num_elements", read = "2*num_elements*bytes", write = "num_elements*bytes">}

// The optional transcendentals figure is printed when it is not zero.
// CHECK-NEXT: cost.kernel @F.softmax {cost = #cost.cost<flops = "5*num_elements - 2*rows", read = "bytes*num_elements", write = "bytes*num_elements", transcendentals = "num_elements">, forward_params = ["num_elements", "rows"], init_params = []}
cost.kernel @F.softmax {init_params = [], forward_params = ["num_elements", "rows"],
  cost = #cost.cost<transcendentals = "num_elements", flops = "5*num_elements - 2*rows", read = "num_elements*bytes", write = "num_elements*bytes">}

// CHECK-NEXT: cost.kernel @torch.Tensor.view {cost = #cost.cost<flops = "0", read = "0", write = "0">, forward_params = [], init_params = []}
cost.kernel @torch.Tensor.view {init_params = [], forward_params = [],
  cost = #cost.cost<flops = "0", read = "0", write = "0", transcendentals = "0">}

// CHECK-NEXT: cost.composite @Conv1D {forward_params = [], init_params = ["nf", "nx"]} {
// CHECK-NEXT:   cost.child "addmm" @torch.addmm {bindings = {K = "nx", M = "batch_size*seq_len", N = "nf"}, count = 1 : i64}
// CHECK-NEXT: }
// GENERIC: "cost.composite"() <{forward_params = [], init_params = ["nf", "nx"], sym_name = "Conv1D"}> ({
// GENERIC-NEXT: "cost.child"() <{bindings = {K = "nx", M = "batch_size*seq_len", N = "nf"}, count = 1 : i64, kernel = @torch.addmm, label = "addmm"}> : () -> ()
// GENERIC-NEXT: }) : () -> ()
cost.composite @Conv1D {init_params = ["nf", "nx"], forward_params = []} {
  cost.child "addmm" @torch.addmm {bindings = {M = "batch_size*seq_len", K = "nx", N = "nf"}, count = 1}
}

// Children keep their order; bindings are kept as written (they are checked, not rewritten);
// `count` may be a formula, and defaults to 1 when absent.
// CHECK-NEXT: cost.composite @GPT2Attention {forward_params = [], init_params = []} {
// CHECK-NEXT:   cost.child "c_attn" @Conv1D {bindings = {nf = "3*config.n_embd", nx = "config.n_embd"}, count = 1 : i64}
// CHECK-NEXT:   cost.child "c_proj" @Conv1D {bindings = {nf = "config.n_embd", nx = "config.n_embd"}}
// CHECK-NEXT:   cost.child "scale_query" @torch.mul {bindings = {num_elements = "batch_size*seq_len*config.n_embd"}, count = 1 : i64}
// CHECK-NEXT:   cost.child "qk_matmul" @torch.matmul {bindings = {K = "config.n_embd//config.n_head", M = "batch_size*config.n_head*seq_len", N = "cache_len"}, count = 1 : i64}
// CHECK-NEXT:   cost.child "softmax" @F.softmax {bindings = {num_elements = "batch_size*config.n_head*seq_len*cache_len", rows = "batch_size*config.n_head*seq_len"}, count = 1 : i64}
// CHECK-NEXT:   cost.child "av_matmul" @torch.matmul {bindings = {K = "cache_len", M = "batch_size*config.n_head*seq_len", N = "config.n_embd//config.n_head"}, count = 1 : i64}
// CHECK-NEXT: }
cost.composite @GPT2Attention {init_params = [], forward_params = []} {
  cost.child "c_attn" @Conv1D {bindings = {nf = "3*config.n_embd", nx = "config.n_embd"}, count = 1}
  cost.child "c_proj" @Conv1D {bindings = {nf = "config.n_embd", nx = "config.n_embd"}}
  cost.child "scale_query" @torch.mul {bindings = {num_elements = "batch_size*seq_len*config.n_embd"}, count = 1}
  cost.child "qk_matmul" @torch.matmul {bindings = {M = "batch_size*config.n_head*seq_len", K = "config.n_embd//config.n_head", N = "cache_len"}, count = 1}
  cost.child "softmax" @F.softmax {bindings = {num_elements = "batch_size*config.n_head*seq_len*cache_len", rows = "batch_size*config.n_head*seq_len"}, count = 1}
  cost.child "av_matmul" @torch.matmul {bindings = {M = "batch_size*config.n_head*seq_len", K = "cache_len", N = "config.n_embd//config.n_head"}, count = 1}
}

// CHECK-NEXT: cost.composite @GPT2Model {forward_params = [], init_params = []} {
// CHECK-NEXT:   cost.child "h" @GPT2Attention {bindings = {}, count = "config.num_hidden_layers"}
// CHECK-NEXT: }
cost.composite @GPT2Model {init_params = [], forward_params = []} {
  cost.child "h" @GPT2Attention {bindings = {}, count = "config.num_hidden_layers"}
}

// Generic input is accepted too (inherent attributes in either dictionary).
// CHECK-NEXT: cost.composite @Generic {forward_params = ["T"], init_params = []} {
// CHECK-NEXT:   cost.child "mul" @torch.mul {bindings = {num_elements = "T*batch_size"}, count = "2"}
// CHECK-NEXT: }
"cost.composite"() <{sym_name = "Generic", init_params = [], forward_params = ["T"]}> ({
  "cost.child"() {label = "mul", kernel = @torch.mul, bindings = {num_elements = "T*batch_size"}, count = "2"} : () -> ()
}) : () -> ()

// Symbol names that are not identifiers are quoted.
// CHECK-NEXT: cost.kernel @"my kernel" {cost = #cost.cost<flops = "1", read = "0", write = "0">, forward_params = [], init_params = []}
cost.kernel @"my kernel" {init_params = [], forward_params = [], cost = #cost.cost<flops = "1", read = "0", write = "0">}
// CHECK-NEXT: }
