// A tensor.fused op reads each of its inputs once and writes each of its outputs once; the
// ops inside it count FLOPs only (their intermediates cost no bytes). The same chain unfused
// and fused has equal FLOPs, and the report shows the bytes fusion saves.
// RUN: xcs-opt %s --cost-annotate --cost-report=%t.json | FileCheck %s
// RUN: python3 %S/../../Tools/xcs-cost/Inputs/validate_tree.py %repo/schemas/resolved_cost_schema.json %t.json | FileCheck %s --check-prefix=VALID
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.json

// x: [batch_size, 1024] f32 = 4096*batch_size bytes; the bias is 1024 floats.
// unfused: add reads x and bias (4096*batch_size + 4096), writes 4096*batch_size; relu reads
// and writes 4096*batch_size; the reduce reads 4096*batch_size and writes 4*batch_size.
// CHECK-LABEL: func.func @unfused
// CHECK-SAME: attributes {cost = #cost.cost<flops = "3071*batch_size", read = "12288*batch_size + 4096", write = "8196*batch_size">}
func.func @unfused(%x: tensor<?x1024xf32> {cost.dims = ["batch_size", 1024]}, %b: tensor<1024xf32>) -> (tensor<?x1024xf32>, tensor<?xf32>) {
  %0 = tensor.add %x, %b : (tensor<?x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
  %1 = tensor.relu %0 : tensor<?x1024xf32>
  %2 = tensor.reduce %1 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<?x1024xf32>) -> tensor<?xf32>
  return %1, %2 : tensor<?x1024xf32>, tensor<?xf32>
}

// fused: the same FLOPs; reads x and the bias once, writes the two outputs once.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: attributes {cost = #cost.cost<flops = "3071*batch_size", read = "4096*batch_size + 4096", write = "4100*batch_size">}
// CHECK: tensor.fused {{.*}}cost = #cost.cost<flops = "3071*batch_size", read = "4096*batch_size + 4096", write = "4100*batch_size">
// CHECK: tensor.add {{.*}}cost = #cost.cost<flops = "1024*batch_size", read = "0", write = "0">
// CHECK: tensor.relu {{.*}}cost = #cost.cost<flops = "1024*batch_size", read = "0", write = "0">
// CHECK: tensor.reduce {{.*}}cost = #cost.cost<flops = "1023*batch_size", read = "0", write = "0">
func.func @fused(%x: tensor<?x1024xf32> {cost.dims = ["batch_size", 1024]}, %b: tensor<1024xf32>) -> (tensor<?x1024xf32>, tensor<?xf32>) {
  %0:2 = tensor.fused %x, %b : (tensor<?x1024xf32>, tensor<1024xf32>) -> (tensor<?x1024xf32>, tensor<?xf32>) {
  ^bb0(%a: tensor<?x1024xf32>, %c: tensor<1024xf32>):
    %1 = tensor.add %a, %c : (tensor<?x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
    %2 = tensor.relu %1 : tensor<?x1024xf32>
    %3 = tensor.reduce %2 {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<?x1024xf32>) -> tensor<?xf32>
    tensor.yield %2, %3 : (tensor<?x1024xf32>, tensor<?xf32>) -> ()
  }
  return %0#0, %0#1 : tensor<?x1024xf32>, tensor<?xf32>
}

// An immediate input (a splat constant) is folded into the region: 0 bytes.
// CHECK-LABEL: func.func @fused_immediate
// CHECK: tensor.fused {{.*}}cost = #cost.cost<flops = "2048*batch_size", read = "4096*batch_size", write = "4096*batch_size", transcendentals = "1024*batch_size">
func.func @fused_immediate(%x: tensor<?x1024xf32> {cost.dims = ["batch_size", 1024]}) -> tensor<?x1024xf32> {
  %k = tensor.constant {value = dense<0.5> : tensor<f32>} : tensor<f32>
  %0 = tensor.fused %x, %k : (tensor<?x1024xf32>, tensor<f32>) -> tensor<?x1024xf32> {
  ^bb0(%a: tensor<?x1024xf32>, %s: tensor<f32>):
    %1 = tensor.mul %a, %s : (tensor<?x1024xf32>, tensor<f32>) -> tensor<?x1024xf32>
    %2 = tensor.tanh %1 : tensor<?x1024xf32>
    tensor.yield %2 : tensor<?x1024xf32>
  }
  return %0 : tensor<?x1024xf32>
}

// VALID: valid: {{[0-9]+}} nodes

// In the report the fused region is a composite child of its function: its ops are children
// with FLOPs and no bytes, and an `io` child (kernel tensor.fused) carries its reads and writes.
// REPORT:      "kernel_name": "module",
// REPORT-NEXT: "flops": "8190*batch_size",
// REPORT-NEXT: "memory_read": "20480*batch_size + 8192",
// REPORT:        "unfused": {
// REPORT-NEXT:     "kernel": "unfused",
// REPORT-NEXT:     "count": 1,
// REPORT-NEXT:     "flops": "3071*batch_size",
// REPORT-NEXT:     "memory_read": "12288*batch_size + 4096",
// REPORT-NEXT:     "memory_write": "8196*batch_size",
// REPORT:        "fused": {
// REPORT-NEXT:     "kernel": "fused",
// REPORT-NEXT:     "count": 1,
// REPORT-NEXT:     "flops": "3071*batch_size",
// REPORT-NEXT:     "memory_read": "4096*batch_size + 4096",
// REPORT-NEXT:     "memory_write": "4100*batch_size",
// REPORT-NEXT:     "children": {
// REPORT-NEXT:       "tensor.fused@fused.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:         "kernel": "fused/tensor.fused@fused.mlir:{{[0-9]+}}:{{[0-9]+}}",
// REPORT-NEXT:         "count": 1,
// REPORT-NEXT:         "flops": "3071*batch_size",
// REPORT-NEXT:         "memory_read": "4096*batch_size + 4096",
// REPORT-NEXT:         "memory_write": "4100*batch_size",
// REPORT-NEXT:         "children": {
// REPORT-NEXT:           "tensor.add@fused.mlir:{{[0-9]+}}:{{[0-9]+}}": {
// REPORT-NEXT:             "kernel": "torch.add",
// REPORT-NEXT:             "count": 1,
// REPORT-NEXT:             "flops": "1024*batch_size",
// REPORT-NEXT:             "memory_read": "0",
// REPORT-NEXT:             "memory_write": "0"
// REPORT:                "io": {
// REPORT-NEXT:             "kernel": "tensor.fused",
// REPORT-NEXT:             "count": 1,
// REPORT-NEXT:             "flops": "0",
// REPORT-NEXT:             "memory_read": "4096*batch_size + 4096",
// REPORT-NEXT:             "memory_write": "4100*batch_size"
