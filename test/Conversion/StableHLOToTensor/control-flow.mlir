// convert-stablehlo-to-tensor: `while` (lax.scan, lax.fori_loop), `case` (lax.switch; an
// out-of-range index runs the last branch) and `if` become cf blocks branching on the
// tensor.extract-ed condition; nested control flow is flattened too. Run on both backends.
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' | FileCheck %s
// RUN: xcs-opt %s -p 'builtin.module(convert-stablehlo-to-tensor)' -o %t.mlir
// RUN: xcs-run %t.mlir --entry loop --input 0=5 | FileCheck %s --check-prefix=LOOP
// RUN: xcs-run %t.mlir --interp --entry loop --input 0=5 | FileCheck %s --check-prefix=LOOP
// RUN: xcs-run %t.mlir --entry switch --input 0=1 --input 1='[1.0, 2.0]' | FileCheck %s --check-prefix=SW1
// RUN: xcs-run %t.mlir --interp --entry switch --input 0=1 --input 1='[1.0, 2.0]' | FileCheck %s --check-prefix=SW1
// RUN: xcs-run %t.mlir --entry switch --input 0=7 --input 1='[1.0, 2.0]' | FileCheck %s --check-prefix=SW7
// RUN: xcs-run %t.mlir --interp --entry switch --input 0=-1 --input 1='[1.0, 2.0]' | FileCheck %s --check-prefix=SW7
// RUN: xcs-run %t.mlir --entry nested --input 0=true --input 1=3 | FileCheck %s --check-prefix=NESTED
// RUN: xcs-run %t.mlir --interp --entry nested --input 0=false --input 1=3 | FileCheck %s --check-prefix=NESTED0

// LOOP: 10
// CHECK-LABEL: func.func @loop(
// CHECK:   cf.br ^bb1(%{{.*}}, %{{.*}} : tensor<i32>, tensor<i32>)
// CHECK: ^bb1(%[[I:.*]]: tensor<i32>, %[[S:.*]]: tensor<i32>):
// CHECK:   %[[C:.*]] = tensor.cmp %[[I]], %{{.*}} {predicate = "lt"}
// CHECK:   %[[B:.*]] = tensor.extract %[[C]] : (tensor<i1>) -> i1
// CHECK:   cf.cond_br %[[B]], ^bb2(%[[I]], %[[S]] : tensor<i32>, tensor<i32>), ^bb3(%[[I]], %[[S]] : tensor<i32>, tensor<i32>)
// CHECK: ^bb2(
// CHECK:   cf.br ^bb1(
// CHECK: ^bb3(%{{.*}}: tensor<i32>, %[[OUT:.*]]: tensor<i32>):
// CHECK:   return %[[OUT]] : tensor<i32>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<i32>) -> tensor<i32>, sym_name = "loop"}> ({
  ^bb0(%n: tensor<i32>):
    %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %r:2 = "stablehlo.while"(%zero, %zero) ({
    ^bb0(%i: tensor<i32>, %s: tensor<i32>):
      %c = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %s: tensor<i32>):
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %s2 = "stablehlo.add"(%s, %i) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %i2 = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%i2, %s2) : (tensor<i32>, tensor<i32>) -> ()
    }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    "func.return"(%r#1) : (tensor<i32>) -> ()
  }) : () -> ()

// SW1: [2. 4.]
// SW7: [-1. -2.]
// CHECK-LABEL: func.func @switch(
// CHECK: tensor.cmp %arg0, %{{.*}} {predicate = "eq"}
// CHECK: cf.cond_br
// CHECK: tensor.cmp %arg0, %{{.*}} {predicate = "eq"}
// CHECK: cf.cond_br
  "func.func"() <{function_type = (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>, sym_name = "switch"}> ({
  ^bb0(%k: tensor<i32>, %x: tensor<2xf32>):
    %r = "stablehlo.case"(%k) ({
      "stablehlo.return"(%x) : (tensor<2xf32>) -> ()
    }, {
      %d = "stablehlo.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%d) : (tensor<2xf32>) -> ()
    }, {
      %n = "stablehlo.negate"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%n) : (tensor<2xf32>) -> ()
    }) : (tensor<i32>) -> tensor<2xf32>
    "func.return"(%r) : (tensor<2xf32>) -> ()
  }) : () -> ()

// An if around a loop (the while surfaces after the if is flattened).
// NESTED: 3
// NESTED0: 0
// CHECK-LABEL: func.func @nested(
// CHECK-NOT: stablehlo.
// CHECK: return
  "func.func"() <{function_type = (tensor<i1>, tensor<i32>) -> tensor<i32>, sym_name = "nested"}> ({
  ^bb0(%p: tensor<i1>, %n: tensor<i32>):
    %r = "stablehlo.if"(%p) ({
      %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %w = "stablehlo.while"(%zero) ({
      ^bb0(%i: tensor<i32>):
        %c = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%c) : (tensor<i1>) -> ()
      }, {
      ^bb0(%i: tensor<i32>):
        %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
        %i2 = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%i2) : (tensor<i32>) -> ()
      }) : (tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%w) : (tensor<i32>) -> ()
    }, {
      %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      "stablehlo.return"(%zero) : (tensor<i32>) -> ()
    }) : (tensor<i1>) -> tensor<i32>
    "func.return"(%r) : (tensor<i32>) -> ()
  }) : () -> ()
}) : () -> ()
