// --list-passes: every registered pass with its summary and options, in mlir-opt's layout
// (xcs-test-opt: with the test-* passes; xcs-opt lists the same passes without them).
// RUN: xcs-test-opt --list-passes | FileCheck %s
// RUN: xcs-test-opt --list-passes %s | FileCheck %s
// RUN: xcs-opt --list-passes | FileCheck %s --check-prefix=DEFAULT
// RUN: xcs-opt --list-passes | grep -c -- '^  --' | FileCheck %s --check-prefix=COUNT
// RUN: xcs-test-opt --list-passes | grep -c -- '^  --' | FileCheck %s --check-prefix=TEST-COUNT

// DEFAULT:     --symbol-dce{{ +}}-   Eliminate dead symbols
// DEFAULT-NOT: --test-
// DEFAULT:     --vmap-batch{{ +}}-   Batch tensor-only xcs.vmap bodies
// COUNT: {{^}}12{{$}}
// TEST-COUNT: {{^}}14{{$}}

// CHECK:      Passes:
// CHECK-NEXT:   --auto-shard{{ +}}-   Choose the optimal sharding of every tensor over a device mesh
// CHECK-NEXT:     --alpha=<string>{{ +}}- Latency of one collective per mesh axis, seconds
// CHECK-NEXT:     --axes=<string>{{ +}}- Names of the mesh axes
// CHECK-NEXT:     --bandwidth=<string>{{ +}}- Bandwidth per mesh axis, bytes/s
// CHECK-NEXT:     --max-states=<ulong>{{ +}}- Deterministic budget of the solver: combinations evaluated by exact elimination
// CHECK-NEXT:     --memory-limit=<string>{{ +}}- Memory per device: bytes, or with a KiB/MiB/GiB suffix
// CHECK-NEXT:     --mesh=<string>{{ +}}- Mesh shape, e.g. 2x4
// CHECK-NEXT:     --outputs=<value>{{ +}}- Required sharding of results without an annotation
// CHECK-NEXT:     =replicated{{ +}}-   results are required replicated
// CHECK-NEXT:     =free{{ +}}-   results may stay in any sharding
// CHECK-NEXT:     --peak-flops=<string>{{ +}}- Peak FLOP/s of one device
// CHECK-NEXT:     --report=<string>{{ +}}- Write the plans as JSON into this file
// CHECK-NEXT:     --time-budget-ms=<ulong>{{ +}}- Wall-clock bound of the anytime search, milliseconds
// CHECK-NEXT:   --canonicalize{{ +}}-   Canonicalize operations
// CHECK-NEXT:     --disable-patterns=<string>{{ +}}- Labels of patterns that should be filtered out during application
// CHECK-NEXT:     --enable-patterns=<string>{{ +}}- Labels of patterns that should be used during application, all other patterns are filtered out
// CHECK-NEXT:     --max-iterations=<long>{{ +}}- Max. iterations between applying patterns / simplifying regions (default: 10)
// CHECK-NEXT:     --max-num-rewrites=<long>{{ +}}- Max. number of pattern rewrites within an iteration (default: -1)
// CHECK-NEXT:     --region-simplify=<value>{{ +}}- Perform control flow optimizations to the region tree (default: normal)
// CHECK-NEXT:     =disabled{{ +}}-   Don't run any control-flow simplification.
// CHECK-NEXT:     =normal{{ +}}-   Perform simple control-flow simplifications (e.g. dead args elimination).
// CHECK-NEXT:     =aggressive{{ +}}-   Perform aggressive control-flow simplification (e.g. block merging).
// CHECK-NEXT:     --test-convergence{{ +}}- Test only: Fail pass on non-convergence to detect cyclic pattern (default: false)
// CHECK-NEXT:     --top-down{{ +}}- Seed the worklist in general top-down order (default: true)
// CHECK-NEXT:   --classify{{ +}}-   Classify functions as tensor, orchestration, hybrid or none
// CHECK-NEXT:     --orchestration-keywords=<string>{{ +}}- Extra orchestration keywords
// CHECK-NEXT:     --orchestration-prefixes=<string>{{ +}}- Extra orchestration module prefixes
// CHECK-NEXT:     --report=<string>{{ +}}- Write a JSON report
// CHECK-NEXT:     --tensor-keywords=<string>{{ +}}- Extra tensor keywords
// CHECK-NEXT:     --tensor-prefixes=<string>{{ +}}- Extra tensor module prefixes
// CHECK-NEXT:   --convert-stablehlo-to-tensor{{ +}}-   Convert JAX's StableHLO (and chlo) to tensor, func and cf ops
// CHECK-NEXT:   --cost-annotate{{ +}}-   Annotate every op and function with its symbolic FLOPs and bytes
// CHECK-NEXT:     --bind=<string>{{ +}}- Numbers for dimension symbols
// CHECK-NEXT:     --report=<string>{{ +}}- Write the resolved cost tree
// CHECK-NEXT:   --cse{{ +}}-   Eliminate common sub-expressions
// CHECK-NEXT:   --dce{{ +}}-   Remove unused operations without side effects
// CHECK-NEXT:   --fuse{{ +}}-   Fuse tensor ops into tensor.fused regions
// CHECK-NEXT:     --epilogue{{ +}}- Fuse elementwise consumers into a matmul's epilogue
// CHECK-NEXT:     --max-ops=<uint>{{ +}}- Maximum number of ops in one fused region
// CHECK-NEXT:     --max-recompute=<uint>{{ +}}- Maximum number of recomputed ops per region
// CHECK-NEXT:     --recompute{{ +}}- Recompute cheap multi-user values
// CHECK-NEXT:     --reductions{{ +}}- Fuse elementwise producers into reduce, softmax and layer_norm
// CHECK-NEXT:   --inline{{ +}}-   Inline function calls
// CHECK-NEXT:     --default-pipeline=<string>{{ +}}- The optimizer pipeline used for callables that do not have a dedicated optimizer pipeline in opPipelineList (default: canonicalize)
// CHECK-NEXT:     --inlining-threshold=<uint>{{ +}}- If the ratio
// CHECK-NEXT:     --max-iterations=<uint>{{ +}}- Maximum number of iterations when inlining within an SCC (default: 4)
// CHECK-NEXT:     --op-pipelines=<string>{{ +}}- Callable operation specific optimizer pipelines
// CHECK-NEXT:   --shard-partition{{ +}}-   Rewrite annotated functions into per-device SPMD programs with explicit collectives
// CHECK-NEXT:   --symbol-dce{{ +}}-   Eliminate dead symbols
// CHECK-NEXT:   --test-break-ir{{ +}}-   Test only: erase the terminator
// CHECK-NEXT:   --test-pass-failure{{ +}}-   Test only: fail with an error
// CHECK-NEXT:   --vmap-batch{{ +}}-   Batch tensor-only xcs.vmap bodies; run the others as xcs.parallel_map
// CHECK-NEXT:     --max-concurrency=<uint>{{ +}}- The max_concurrency of the xcs.parallel_map ops
// CHECK-NEXT:     --remarks{{ +}}- Emit a remark at each xcs.vmap{{.*}}
// CHECK-NOT:  {{.}}
