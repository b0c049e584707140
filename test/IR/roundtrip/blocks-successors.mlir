// Several blocks with arguments and successors, forward block references, unreachable
// blocks, named blocks and values (renumbered when printed), and predecessor comments.
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: FileCheck %s < %t.xcs

// CHECK-LABEL: "func.func"() <{function_type = (i32, i1) -> i32, sym_name = "branches"}> ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: i32, %[[C:.*]]: i1):
// CHECK-NEXT: "cf.cond_br"(%[[C]], %[[A]], %[[A]])[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i32, i32) -> ()
// CHECK-NEXT: ^bb1(%[[X:.*]]: i32):  // pred: ^bb0
// CHECK-NEXT: "cf.br"(%[[X]])[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb2(%[[Y:.*]]: i32):  // pred: ^bb0
// CHECK-NEXT: "cf.br"(%[[Y]])[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb3(%[[Z:.*]]: i32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT: "func.return"(%[[Z]]) : (i32) -> ()
"func.func"() <{function_type = (i32, i1) -> i32, sym_name = "branches"}> ({
^entry(%a: i32, %c: i1):
  "cf.cond_br"(%c, %a, %a) [^then, ^else] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i32, i32) -> ()
^then(%x: i32):
  "cf.br"(%x) [^exit] : (i32) -> ()
^else(%y: i32):
  "cf.br"(%y) [^exit] : (i32) -> ()
^exit(%z: i32):
  "func.return"(%z) : (i32) -> ()
}) : () -> ()

// Branch weights stay a property of cf.cond_br (MLIR 22's optional `branch_weights`).
// CHECK-LABEL: "func.func"() <{function_type = (i1) -> (), sym_name = "weighted"}> ({
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1):
// CHECK-NEXT: "cf.cond_br"(%[[C]])[^bb1, ^bb1] <{branch_weights = array<i32: 60, 40>, operandSegmentSizes = array<i32: 1, 0, 0>}> {foo.tag} : (i1) -> ()
"func.func"() <{function_type = (i1) -> (), sym_name = "weighted"}> ({
^entry(%c: i1):
  "cf.cond_br"(%c) [^exit, ^exit] <{branch_weights = array<i32: 60, 40>, operandSegmentSizes = array<i32: 1, 0, 0>}> {foo.tag} : (i1) -> ()
^exit:
  "func.return"() : () -> ()
}) : () -> ()

// Unregistered terminators with successors, a loop, an unreachable block, value names with
// punctuation, and a region on an op that also has successors.
// CHECK-LABEL: "unknown.names"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT: "unknown.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb1:  // no predecessors
// CHECK-NEXT: "unknown.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb2:  // 3 preds: ^bb0, ^bb1, ^bb2
// CHECK: "unknown.y"(%{{.*}})[^bb2] ({
"unknown.names"() ({
^entry(%foo.bar: i32, %_x: i32, %a$b: i32, %a-b: i32):
  "unknown.br"()[^exit_1] : () -> ()
^unreachable:
  "unknown.br"()[^exit_1] : () -> ()
^exit_1:
  %v1 = "unknown.x"(%foo.bar, %_x, %a$b, %a-b) : (i32, i32, i32, i32) -> i32
  "unknown.y"(%v1) [^exit_1] ({
    "unknown.z"(%v1) : (i32) -> ()
  }) : (i32) -> ()
}) : () -> ()

// Block arguments that are used before their block is defined (graph region of the module),
// and an op with many successors.
// CHECK-LABEL: "unknown.switch"
// CHECK-SAME: [^bb1, ^bb2, ^bb1, ^bb3]
"unknown.wrapper"() ({
  "unknown.switch"()[^a, ^b, ^a, ^c] : () -> ()
^a:
  "unknown.ret"() : () -> ()
^b:
  "unknown.ret"() : () -> ()
^c(%arg: i32):
  "unknown.use"(%arg) : (i32) -> ()
  "unknown.ret"() : () -> ()
}) : () -> ()
