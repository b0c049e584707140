// Every location form, on ops and block arguments, printed with --mlir-print-debuginfo (as
// `#locN` aliases at the end of the file, as MLIR prints them). Ops and block arguments
// without a location get their position in this file.
// RUN: %roundtrip
// RUN: %roundtrip_debuginfo
// RUN: xcs-test-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %s | FileCheck %s

// CHECK-LABEL: "test.region"() ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: i32 loc("arg.py":1:1), %{{.*}}: i32 loc("{{.*}}locations.mlir":[[@LINE+2]]:35)):
"test.region"() ({
^bb0(%arg: i32 loc("arg.py":1:1), %arg2: i32):
  "test.pure"() : () -> () loc(unknown)
  "test.pure"() : () -> () loc("f.py":1:2 to 3:4)
  "test.pure"() : () -> () loc("f.py":1:2 to :9)
  "test.pure"() : () -> () loc("f.py":7)
  "test.pure"() : () -> () loc("f.py":7:8)
  "test.pure"() : () -> () loc("name")
  "test.pure"() : () -> () loc("name"("f.py":1:1))
  "test.pure"() : () -> () loc(callsite("a.py":1:1 at "b.py":2:2))
  "test.pure"() : () -> () loc(callsite("n"("a.py":1:1) at callsite("b.py":2:2 at "c.py":3:3)))
  "test.pure"() : () -> () loc(fused["a.py":1:1, "b.py":2:2])
  "test.pure"() : () -> () loc(fused<"meta">["a.py":1:1, unknown])
  "test.pure"() : () -> () loc(fused<#unknown.meta>["a.py":1:1])
  "test.pure"() : () -> () loc(fused["a.py":1:1])
  "test.pure"() : () -> () loc("esc\"aped":1:1)
  "test.pure"() : () -> ()
  "test.yield"() : () -> ()
}) : () -> ()

// CHECK: "test.pure"() : () -> () loc(#[[UNK:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[RANGE:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[RANGE2:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[LINE:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[LINECOL:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[NAME:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[NAMECHILD:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[CALL:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[CALL2:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[FUSED:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[FUSEDMETA:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[FUSEDATTR:loc[0-9]*]])
// A fused location of one location is that location.
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[A:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[ESC:loc[0-9]*]])
// CHECK-NEXT: "test.pure"() : () -> () loc(#[[HERE:loc[0-9]*]])
// CHECK-DAG: #[[UNK]] = loc(unknown)
// CHECK-DAG: #[[RANGE]] = loc("f.py":1:2 to 3:4)
// CHECK-DAG: #[[RANGE2]] = loc("f.py":1:2 to :9)
// CHECK-DAG: #[[LINE]] = loc("f.py":7:0)
// CHECK-DAG: #[[LINECOL]] = loc("f.py":7:8)
// CHECK-DAG: #[[NAME]] = loc("name")
// CHECK-DAG: #[[NAMECHILD]] = loc("name"(#{{loc[0-9]*}}))
// CHECK-DAG: #[[CALL]] = loc(callsite(#[[A]] at #[[B:loc[0-9]*]]))
// CHECK-DAG: #[[FUSED]] = loc(fused[#[[A]], #[[B]]])
// CHECK-DAG: #[[FUSEDMETA]] = loc(fused<"meta">[#[[A]]])
// CHECK-DAG: #[[FUSEDATTR]] = loc(fused<#unknown.meta>[#[[A]]])
// CHECK-DAG: #[[A]] = loc("a.py":1:1)
// CHECK-DAG: #[[ESC]] = loc("esc\22aped":1:1)
// CHECK-DAG: #[[HERE]] = loc("{{.*}}locations.mlir":26:3)
