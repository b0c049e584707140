// classify: the JSON report, as a pass option (report=FILE, the MLIR way) and as the
// xcs-opt flag --classify-report=FILE that sets that option; both write the same file. The
// report is valid against schemas/classify_report_schema.json.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --allow-unregistered-dialect --classify --classify-report=%t/flag.json -o %t/out.mlir
// RUN: FileCheck %s --input-file=%t/flag.json
// RUN: python3 %S/Inputs/validate_report.py %t/flag.json %repo/schemas/classify_report_schema.json | FileCheck %s --check-prefix=VALID
// RUN: xcs-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(classify{report=%t/option.json})' -o %t/out2.mlir
// RUN: diff %t/flag.json %t/option.json
// RUN: diff %t/out.mlir %t/out2.mlir
// the flag sets the option of the pass in a --pass-pipeline too
// RUN: xcs-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(classify{tensor-keywords=foo})' --classify-report=%t/p.json --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: diff %t/flag.json %t/p.json
// errors: no classify pass to set the option of; a file that cannot be written
// RUN: not xcs-opt %s --allow-unregistered-dialect --cse --classify-report=%t/x.json 2>&1 | FileCheck %s --check-prefix=NOPASS
// RUN: not xcs-opt %s --allow-unregistered-dialect --classify --classify-report=%t/no/such/dir/x.json 2>&1 | FileCheck %s --check-prefix=NOWRITE

// VALID: valid: 9 functions
// DUMP: classify{  report={{.*}}p.json tensor-keywords={foo} }
// NOPASS: error: --classify-report needs the classify pass in the pipeline
// NOWRITE: error: cannot write classify report '{{.*}}x.json'

// CHECK:      {
// CHECK-NEXT:   "version": 1,
// CHECK-NEXT:   "counts": {
// CHECK-NEXT:     "tensor": 2,
// CHECK-NEXT:     "orchestration": 3,
// CHECK-NEXT:     "hybrid": 3,
// CHECK-NEXT:     "none": 1
// CHECK-NEXT:   },
// CHECK-NEXT:   "functions": [

func.func private @openai.chat.completions.create(!xcs.str) -> !xcs.str attributes {xcs.module = "openai.resources.chat"}
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "@openai.chat.completions.create",
// CHECK-NEXT:       "class": "orchestration",
// CHECK-NEXT:       "source": "module",
// CHECK-NEXT:       "confidence": 0.95,
// CHECK-NEXT:       "declaration": true,
// CHECK-NEXT:       "tensor_ops": [],
// CHECK-NEXT:       "orchestration_ops": [
// CHECK-NEXT:         "openai.resources.chat"
// CHECK-NEXT:       ]
// CHECK-NEXT:     },

func.func private @save_result(!xcs.str)
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "@save_result",
// CHECK-NEXT:       "class": "hybrid",
// CHECK-NEXT:       "source": "unknown",
// CHECK-NEXT:       "confidence": 0.5,
// CHECK-NEXT:       "declaration": true,
// CHECK-NEXT:       "tensor_ops": [
// CHECK-NEXT:         "unknown"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "orchestration_ops": [
// CHECK-NEXT:         "unknown"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "hybrid_paths": {
// CHECK-NEXT:         "tensor": [
// CHECK-NEXT:           "@save_result",
// CHECK-NEXT:           "unknown"
// CHECK-NEXT:         ],
// CHECK-NEXT:         "orchestration": [
// CHECK-NEXT:           "@save_result",
// CHECK-NEXT:           "unknown"
// CHECK-NEXT:         ]
// CHECK-NEXT:       }
// CHECK-NEXT:     },

func.func @helper(%p: !xcs.str) -> !xcs.str {
  %r = call @openai.chat.completions.create(%p) : (!xcs.str) -> !xcs.str
  return %r : !xcs.str
}
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "@helper",
// CHECK-NEXT:       "class": "orchestration",
// CHECK-NEXT:       "source": "analysis",
// CHECK-NEXT:       "confidence": 0.95,
// CHECK-NEXT:       "declaration": false,
// CHECK-NEXT:       "tensor_ops": [],
// CHECK-NEXT:       "orchestration_ops": [
// CHECK-NEXT:         "@openai.chat.completions.create"
// CHECK-NEXT:       ]
// CHECK-NEXT:     },

// the brief's example: @main is hybrid through @helper
func.func @main(%x: tensor<4x4xf32>, %p: !xcs.str) -> !xcs.str {
  %y = tensor.matmul %x, %x : tensor<4x4xf32>
  %r = call @helper(%p) : (!xcs.str) -> !xcs.str
  return %r : !xcs.str
}
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "@main",
// CHECK-NEXT:       "class": "hybrid",
// CHECK-NEXT:       "source": "analysis",
// CHECK-NEXT:       "confidence": 0.95,
// CHECK-NEXT:       "declaration": false,
// CHECK-NEXT:       "tensor_ops": [
// CHECK-NEXT:         "tensor.matmul",
// CHECK-NEXT:         "tensor<4x4xf32>"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "orchestration_ops": [
// CHECK-NEXT:         "@helper"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "hybrid_paths": {
// CHECK-NEXT:         "tensor": [
// CHECK-NEXT:           "@main",
// CHECK-NEXT:           "tensor.matmul"
// CHECK-NEXT:         ],
// CHECK-NEXT:         "orchestration": [
// CHECK-NEXT:           "@main",
// CHECK-NEXT:           "@helper",
// CHECK-NEXT:           "@openai.chat.completions.create"
// CHECK-NEXT:         ]
// CHECK-NEXT:       }
// CHECK-NEXT:     },

// keyword-only evidence: 0.7; type-only evidence: 0.6
func.func @by_keyword() {
  "mylib.einsum_fast"() : () -> ()
  return
}
// CHECK-NEXT:     {
// CHECK-NEXT:       "name": "@by_keyword",
// CHECK-NEXT:       "class": "tensor",
// CHECK-NEXT:       "source": "analysis",
// CHECK-NEXT:       "confidence": 0.7,
func.func @by_type(%x: tensor<2xf32>) {
  return
}
// CHECK:            "name": "@by_type",
// CHECK-NEXT:       "class": "tensor",
// CHECK-NEXT:       "source": "analysis",
// CHECK-NEXT:       "confidence": 0.6,

// a marked function: 1.0, and its xcs.pytree_safe
func.func @marked() attributes {xcs.mark = "orchestration", xcs.pytree_safe = false} {
  call @save_result_none() : () -> ()
  return
}
func.func private @save_result_none() attributes {xcs.mark = "hybrid"}

// no signal: none, 0.8; the last entry closes the array
func.func @plain() {
  return
}
// CHECK:            "name": "@plain",
// CHECK-NEXT:       "class": "none",
// CHECK-NEXT:       "source": "analysis",
// CHECK-NEXT:       "confidence": 0.8,
// CHECK-NEXT:       "declaration": false,
// CHECK-NEXT:       "tensor_ops": [],
// CHECK-NEXT:       "orchestration_ops": []
// CHECK-NEXT:     }
// CHECK-NEXT:   ]
// CHECK-NEXT: }
