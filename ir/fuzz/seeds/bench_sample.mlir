// tools/bench/gen_module.py --ops 60 --funcs 2 --seed 3 (allowed: first byte '/')
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x128x512xf32>, tensor<512x2048xf32>, tensor<4x128x512xf32>, tensor<512xf32>) -> tensor<512x2048xf32>, sym_name = "f0"}> ({
  ^bb0(%arg0: tensor<4x128x512xf32>, %arg1: tensor<512x2048xf32>, %arg2: tensor<4x128x512xf32>, %arg3: tensor<512xf32>):
    %0 = "arith.mulf"(%arg1, %arg1) : (tensor<512x2048xf32>, tensor<512x2048xf32>) -> tensor<512x2048xf32>
    %1 = "xt.softmax"(%arg0) {axis = 2 : i64} : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %2 = "arith.mulf"(%arg0, %arg2) : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %3 = "math.log"(%1) : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %4 = "arith.maximumf"(%1, %1) : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %5 = "math.exp"(%4) : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %6 = "xt.matmul"(%4, %0) : (tensor<4x128x512xf32>, tensor<512x2048xf32>) -> tensor<4x128x2048xf32>
    %7 = "arith.mulf"(%4, %3) : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %8 = "math.rsqrt"(%3) : (tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %9 = "arith.subf"(%4, %3) : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %10 = "arith.maximumf"(%8, %5) : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %11 = "arith.constant"() <{value = dense<-5.000000e-01> : tensor<4x128x2048xf32>}> : () -> tensor<4x128x2048xf32>
    %12 = "arith.mulf"(%arg3, %arg3) : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %13 = "math.exp"(%arg3) : (tensor<512xf32>) -> tensor<512xf32>
    %14 = "math.tanh"(%12) : (tensor<512xf32>) -> tensor<512xf32>
    %15 = "xt.reduce"(%11) {axes = array<i64: 2>, keepdims = false, kind = "max", xt.layer = 23 : i64} : (tensor<4x128x2048xf32>) -> tensor<4x128xf32>
    %16 = "arith.subf"(%15, %15) : (tensor<4x128xf32>, tensor<4x128xf32>) -> tensor<4x128xf32>
    %17 = "arith.maximumf"(%9, %10) : (tensor<4x128x512xf32>, tensor<4x128x512xf32>) -> tensor<4x128x512xf32>
    %18 = "xt.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<512x2048xf32>) -> tensor<2048x512xf32>
    %19 = "xt.reduce"(%17) {axes = array<i64: 2>, keepdims = false, kind = "max"} : (tensor<4x128x512xf32>) -> tensor<4x128xf32>
    %20 = "arith.subf"(%0, %arg1) : (tensor<512x2048xf32>, tensor<512x2048xf32>) -> tensor<512x2048xf32>
    %21 = "xt.custom_call"(%20, %6) {api_version = 2 : i32, backend_config = "{\22causal\22: true}", call_target_name = "nccl.all_reduce"} : (tensor<512x2048xf32>, tensor<4x128x2048xf32>) -> tensor<512x2048xf32>
    "func.return"(%21) : (tensor<512x2048xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<1x512x512xf32>, tensor<1x512xi64>) -> tensor<1x512x512xf32>, sym_name = "f1"}> ({
  ^bb0(%arg0: tensor<1x512x512xf32>, %arg1: tensor<1x512xi64>):
    %0 = "arith.maximumf"(%arg0, %arg0) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %1 = "arith.maximumf"(%arg0, %0) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %2 = "arith.mulf"(%1, %arg0) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %3 = "arith.subf"(%1, %0) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %4 = "arith.addf"(%3, %3) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %5 = "math.log"(%4) : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %6 = "arith.mulf"(%5, %2) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %7 = "math.log"(%4) {xt.name = "encoder/head2"} : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %8 = "arith.mulf"(%0, %6) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %9 = "arith.mulf"(%7, %7) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %10 = "math.exp"(%9) : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %11 = "xt.transpose"(%10) {perm = array<i64: 0, 2, 1>} : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %12 = "arith.mulf"(%11, %11) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %13 = "xt.reduce"(%7) {axes = array<i64: 2>, keepdims = false, kind = "sum"} : (tensor<1x512x512xf32>) -> tensor<1x512xf32>
    %14 = "arith.addf"(%12, %12) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %15 = "xt.softmax"(%10) {axis = 2 : i64} : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %16 = "arith.maximumf"(%9, %9) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %17 = "arith.maximumf"(%15, %15) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %18 = "arith.subf"(%13, %13) : (tensor<1x512xf32>, tensor<1x512xf32>) -> tensor<1x512xf32>
    %19 = "math.exp"(%17) : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %20 = "xt.matmul"(%16, %14) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %21 = "arith.mulf"(%20, %20) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %22 = "arith.constant"() <{value = dense<-2.500000e+00> : tensor<512xf32>}> : () -> tensor<512xf32>
    %23 = "arith.divf"(%22, %22) : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %24 = "xt.layer_norm"(%16, %23, %22) {axis = 2 : i64, epsilon = 1.000000e-05 : f32} : (tensor<1x512x512xf32>, tensor<512xf32>, tensor<512xf32>) -> tensor<1x512x512xf32>
    %25 = "xt.matmul"(%21, %19) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %26 = "arith.mulf"(%17, %19) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %27 = "arith.maximumf"(%26, %1) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %28 = "math.sqrt"(%6) : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %29 = "xt.cmp"(%20, %21) {predicate = "gt"} : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xi1>
    %30 = "arith.select"(%29, %20, %20) : (tensor<1x512x512xi1>, tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %31 = "arith.addf"(%30, %20) : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %32 = "arith.divf"(%31, %30) {xt.layer = 47 : i64} : (tensor<1x512x512xf32>, tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    %33 = "math.exp"(%20) : (tensor<1x512x512xf32>) -> tensor<1x512x512xf32>
    "func.return"(%33) : (tensor<1x512x512xf32>) -> ()
  }) : () -> ()
}) : () -> ()
