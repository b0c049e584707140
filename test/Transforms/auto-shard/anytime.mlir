// Past the exact budget: with max-states=1 the solver cannot afford variable elimination, so
// the anytime search (a greedy start, then improvements, each evaluated combination counted)
// returns a plan it does not prove optimal; the budget is deterministic, so the plan does not
// depend on the host's speed (time-budget-ms bounds the wall time as well). With the default
// budget the same function is solved exactly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt %s --shard-report=%t/anytime.json -p 'builtin.module(auto-shard{mesh=2x2 alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9 max-states=1 time-budget-ms=60000})' -o /dev/null
// RUN: %python %S/Inputs/plan_summary.py %t/anytime.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=ANYTIME
// RUN: xcs-opt %s --shard-report=%t/exact.json -p 'builtin.module(auto-shard{mesh=2x2 alpha=20e-6 bandwidth=12.5e9 peak-flops=1e9})' -o /dev/null
// RUN: %python %S/Inputs/plan_summary.py %t/exact.json %repo/schemas/shard_report_schema.json | FileCheck %s --check-prefix=EXACT
// RUN: %python %S/Inputs/compare_totals.py %t/anytime.json %t/exact.json | FileCheck %s --check-prefix=COMPARE
// ANYTIME: function @stack {{.*}} optimal=false mesh=2x2:a0,a1
// EXACT: function @stack {{.*}} optimal=true mesh=2x2:a0,a1
// COMPARE: stack: anytime >= exact
func.func @stack(%x: tensor<16x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>, %w3: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %h0 = tensor.matmul %x, %w0 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("h0")
  %a0 = tensor.relu %h0 : tensor<16x64xf32> loc("a0")
  %h1 = tensor.matmul %a0, %w1 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("h1")
  %r1 = tensor.add %a0, %h1 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> loc("r1")
  %h2 = tensor.matmul %r1, %w2 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("h2")
  %a2 = tensor.tanh %h2 : tensor<16x64xf32> loc("a2")
  %h3 = tensor.matmul %a2, %w3 : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> loc("h3")
  %r3 = tensor.add %r1, %h3 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> loc("r3")
  return %r3 : tensor<16x64xf32>
}
