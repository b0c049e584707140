// The example `make run` compiles with the mission's pipeline: a program that mixes tensor math
// with LLM calls. @score is a small scoring head (matmul + bias + gelu + matmul + softmax) over
// one embedding; @score_batch maps it over a batch of embeddings with xcs.vmap; @triage scores
// the batch, turns each item's confidence into a prompt and asks a language model about it (one
// xcs.llm per item, in another xcs.vmap), then asks for a summary.
//   classify       marks @score and @score_batch "tensor", @triage "hybrid" (--classify-report)
//   vmap-batch     batches the tensor-only map (a call of a batched clone of @score) and turns
//                  the map with LLM calls into an xcs.parallel_map (run on a thread pool)
//   inline         inlines the batched clone and @score_batch; the clone, now unused, goes
//   canonicalize, cse, fuse
//                  clean up and fuse the tensor ops into tensor.fused regions
//   cost-annotate  writes every op's and function's FLOPs and bytes (--cost-report); it warns
//                  that xcs.format has no cost kernel (counted as 0)
// Then xcs-run compiles @score_batch for the host CPU (LLVM JIT) and runs @triage on the
// reference interpreter with the built-in `echo` provider (it answers with the prompt).
// Run: xcs-opt examples/pipeline.mlir --pass-pipeline='builtin.module(classify,vmap-batch,inline,func.func(canonicalize,cse,fuse),cost-annotate)' \
//        --classify-report=classify.json --cost-report=cost.json -o pipeline.opt.mlir
//      xcs-run pipeline.opt.mlir --entry score_batch --input xs=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4
//      xcs-run pipeline.opt.mlir --backend=interp --entry triage --input xs=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4 --input question='str:Which items need a human?'

func.func @score(%x: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>) -> tensor<4xf32> {
  %row = tensor.reshape %x : (tensor<8xf32>) -> tensor<1x8xf32>
  %h = tensor.matmul %row, %w1 : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  %hb = tensor.add %h, %b1 : (tensor<1x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
  %a = tensor.gelu %hb {approximate = "tanh"} : tensor<1x16xf32>
  %l = tensor.matmul %a, %w2 : (tensor<1x16xf32>, tensor<16x4xf32>) -> tensor<1x4xf32>
  %p = tensor.softmax %l {axis = 1 : i64} : tensor<1x4xf32>
  %r = tensor.reshape %p : (tensor<1x4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @score_batch(%xs: tensor<6x8xf32> {xcs.name = "xs"}, %w1: tensor<8x16xf32> {xcs.name = "w1"},
                       %b1: tensor<16xf32> {xcs.name = "b1"}, %w2: tensor<16x4xf32> {xcs.name = "w2"})
    -> (tensor<6x4xf32> {xcs.name = "probs"}) {
  %probs = xcs.vmap %xs, %w1, %b1, %w2 {in_axes = array<i64: 0, -1, -1, -1>, out_axes = array<i64: 0>}
      : (tensor<6x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>) -> tensor<6x4xf32> {
  ^bb0(%x: tensor<8xf32>, %v1: tensor<8x16xf32>, %c1: tensor<16xf32>, %v2: tensor<16x4xf32>):
    %s = func.call @score(%x, %v1, %c1, %v2) : (tensor<8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>) -> tensor<4xf32>
    xcs.yield %s : tensor<4xf32>
  }
  return %probs : tensor<6x4xf32>
}

func.func @triage(%xs: tensor<6x8xf32> {xcs.name = "xs"}, %w1: tensor<8x16xf32> {xcs.name = "w1"},
                  %b1: tensor<16xf32> {xcs.name = "b1"}, %w2: tensor<16x4xf32> {xcs.name = "w2"},
                  %question: !xcs.str {xcs.name = "question"})
    -> (!xcs.str {xcs.name = "summary"}, tensor<6x!xcs.str> {xcs.name = "notes"}, tensor<6xf32> {xcs.name = "confidence"}) {
  %probs = call @score_batch(%xs, %w1, %b1, %w2) : (tensor<6x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>) -> tensor<6x4xf32>
  %conf = tensor.reduce %probs {axes = array<i64: 1>, keepdims = false, kind = "max"} : (tensor<6x4xf32>) -> tensor<6xf32>
  %notes = xcs.vmap %conf {in_axes = array<i64: 0>, out_axes = array<i64: 0>} : (tensor<6xf32>) -> tensor<6x!xcs.str> {
  ^bb0(%c: tensor<f32>):
    %p = xcs.format %c {template = "The classifier is {} sure of this item. Explain why in one line."} : (tensor<f32>) -> !xcs.str
    %n = xcs.llm %p {model = "gpt-4o-mini", provider = "echo"} : !xcs.str
    xcs.yield %n : !xcs.str
  }
  %prompt = xcs.format %question, %conf {template = "{} Confidence per item: {}"} : (!xcs.str, tensor<6xf32>) -> !xcs.str
  %summary = xcs.llm %prompt {model = "gpt-4o-mini", provider = "echo"} : !xcs.str
  return %summary, %notes, %conf : !xcs.str, tensor<6x!xcs.str>, tensor<6xf32>
}
