// Calls are children whose kernel is the callee (a composite): a call costs the callee's total
// with the call site's dims substituted for the callee's dim names, so the call graph is the
// seed's module hierarchy. `bind=` substitutes numbers, and `--cost-report=FILE` (or the
// option `report=FILE`) writes the resolved tree of each public function, children labelled
// by op and call site, valid against schemas/resolved_cost_schema.json.

// RUN: xcs-opt %s --cost-annotate | FileCheck %s
// RUN: xcs-opt %s --pass-pipeline='builtin.module(cost-annotate{bind=batch=1,seq_len=128})' | FileCheck %s --check-prefix=BIND
// RUN: xcs-opt %s --cost-annotate --cost-report=%t.json -o /dev/null
// RUN: python3 %S/../../Tools/xcs-cost/Inputs/validate_tree.py %repo/schemas/resolved_cost_schema.json %t.json | FileCheck %s --check-prefix=VALID
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.json
// RUN: xcs-opt %s --pass-pipeline='builtin.module(cost-annotate{bind=batch=1,seq_len=128,hidden=768 report=%t.bound.json})' -o /dev/null
// RUN: python3 %S/../../Tools/xcs-cost/Inputs/validate_tree.py %repo/schemas/resolved_cost_schema.json %t.bound.json | FileCheck %s --check-prefix=VALID
// RUN: FileCheck %s --check-prefix=BOUND --input-file %t.bound.json

// CHECK-LABEL: func.func private @mlp
// CHECK-SAME: attributes {cost = #cost.cost<flops = "12288*batch_size*config.n_embd*seq_len + 27648*batch_size*seq_len", read = "4*batch_size*config.n_embd*seq_len + 24576*batch_size*seq_len + 24576*config.n_embd", write = "4*batch_size*config.n_embd*seq_len + 24576*batch_size*seq_len", transcendentals = "3072*batch_size*seq_len">}
// BIND-LABEL: func.func private @mlp
// BIND-SAME: attributes {cost = #cost.cost<flops = "1572864*batch_size*config.n_embd + 3538944*batch_size",
func.func private @mlp(%x: tensor<?x?x?xf32> {cost.dims = ["batch_size", "seq_len", "config.n_embd"]},
                       %w1: tensor<?x3072xf32> {cost.dims = ["config.n_embd", 3072]},
                       %w2: tensor<3072x?xf32> {cost.dims = [3072, "config.n_embd"]}) -> tensor<?x?x?xf32> {
  %h = tensor.matmul %x, %w1 : (tensor<?x?x?xf32>, tensor<?x3072xf32>) -> tensor<?x?x3072xf32>
  %g = tensor.gelu %h {approximate = "tanh"} : tensor<?x?x3072xf32>
  %o = tensor.matmul %g, %w2 : (tensor<?x?x3072xf32>, tensor<3072x?xf32>) -> tensor<?x?x?xf32>
  return %o : tensor<?x?x?xf32>
}

// The caller names its dims differently: batch_size -> batch, config.n_embd -> hidden.
// CHECK-LABEL: func.func @block
// CHECK-SAME: attributes {cost = #cost.cost<flops = "24579*batch*hidden*seq_len + 55296*batch*seq_len", read = "32*batch*hidden*seq_len + 49152*batch*seq_len + 49152*hidden", write = "20*batch*hidden*seq_len + 49152*batch*seq_len", transcendentals = "6144*batch*seq_len">}
// CHECK: call @mlp{{.*}}cost = [[CALL:#cost.cost<flops = "12288\*batch\*hidden\*seq_len \+ 27648\*batch\*seq_len", read = "4\*batch\*hidden\*seq_len \+ 24576\*batch\*seq_len \+ 24576\*hidden", write = "4\*batch\*hidden\*seq_len \+ 24576\*batch\*seq_len", transcendentals = "3072\*batch\*seq_len">]]
// CHECK: call @mlp{{.*}}cost = [[CALL]]
// BIND-LABEL: func.func @block
// BIND-SAME: attributes {cost = #cost.cost<flops = "3146112*hidden + 7077888", read = "53248*hidden + 6291456", write = "2560*hidden + 6291456", transcendentals = "786432">}
// BIND: tensor.add {{.*}}cost = #cost.cost<flops = "128*hidden", read = "1024*hidden", write = "512*hidden">
// BIND: call @mlp{{.*}}cost = #cost.cost<flops = "1572864*hidden + 3538944", read = "25088*hidden + 3145728", write = "512*hidden + 3145728", transcendentals = "393216">
func.func @block(%x: tensor<?x?x?xf32> {cost.dims = ["batch", "seq_len", "hidden"]},
                 %w1: tensor<?x3072xf32> {cost.dims = ["hidden", 3072]},
                 %w2: tensor<3072x?xf32> {cost.dims = [3072, "hidden"]}) -> tensor<?x?x?xf32> {
  %a = tensor.add %x, %x : tensor<?x?x?xf32>
  %b = tensor.mul %x, %x : tensor<?x?x?xf32>
  %m = call @mlp(%a, %w1, %w2) : (tensor<?x?x?xf32>, tensor<?x3072xf32>, tensor<3072x?xf32>) -> tensor<?x?x?xf32>
  %m2 = call @mlp(%b, %w1, %w2) : (tensor<?x?x?xf32>, tensor<?x3072xf32>, tensor<3072x?xf32>) -> tensor<?x?x?xf32>
  %r = tensor.add %m, %m2 : tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// Calls nest: @model calls @block twice with static shapes, so everything is a number.
// CHECK-LABEL: func.func @model
// CHECK-SAME: attributes {cost = #cost.cost<flops = "104214528", read = "9568256", write = "3227648", transcendentals = "393216">}
// CHECK: call @block{{.*}}cost = #cost.cost<flops = "52107264",
func.func @model(%x: tensor<2x16x64xf32>, %w1: tensor<64x3072xf32>, %w2: tensor<3072x64xf32>) -> tensor<2x16x64xf32> {
  %xd = tensor.reshape %x : (tensor<2x16x64xf32>) -> tensor<?x?x?xf32>
  %w1d = tensor.reshape %w1 : (tensor<64x3072xf32>) -> tensor<?x3072xf32>
  %w2d = tensor.reshape %w2 : (tensor<3072x64xf32>) -> tensor<3072x?xf32>
  %0 = call @block(%xd, %w1d, %w2d) : (tensor<?x?x?xf32>, tensor<?x3072xf32>, tensor<3072x?xf32>) -> tensor<?x?x?xf32>
  %1 = call @block(%0, %w1d, %w2d) : (tensor<?x?x?xf32>, tensor<?x3072xf32>, tensor<3072x?xf32>) -> tensor<?x?x?xf32>
  %r = tensor.reshape %1 : (tensor<?x?x?xf32>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// VALID: valid: {{[0-9]+}} nodes

// The report: a root for the module whose children are the public functions (@mlp is private,
// so it appears only under the calls); each node keeps its own figures.
// REPORT:      "kernel_name": "module",
// REPORT:      "children": {
// REPORT-NEXT:   "block": {
// REPORT-NEXT:     "kernel": "block",
// REPORT-NEXT:     "count": 1,
// REPORT-NEXT:     "flops": "24579*batch*hidden*seq_len + 55296*batch*seq_len",
// REPORT:          "children": {
// REPORT-NEXT:       "tensor.add@calls.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:         "kernel": "torch.add",
// REPORT:            "func.call@calls.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:         "kernel": "mlp",
// REPORT-NEXT:         "count": 1,
// REPORT-NEXT:         "flops": "12288*batch*hidden*seq_len + 27648*batch*seq_len",
// REPORT:              "children": {
// REPORT-NEXT:           "tensor.matmul@calls.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:             "kernel": "torch.matmul",
// REPORT-NEXT:             "count": 1,
// REPORT-NEXT:             "flops": "6144*batch*hidden*seq_len",
// REPORT:            "func.call@calls.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:         "kernel": "mlp",
// REPORT:        "model": {
// REPORT-NEXT:     "kernel": "model",
// REPORT:            "func.call@calls.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:         "kernel": "block",
// REPORT-NOT:  "mlp": {

// BOUND:      "kernel_name": "module",
// BOUND:        "block": {
// BOUND-NEXT:     "kernel": "block",
// BOUND-NEXT:     "count": 1,
// BOUND-NEXT:     "flops": "2423291904",
