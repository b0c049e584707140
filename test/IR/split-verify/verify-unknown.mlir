// `@unknown` expectations take diagnostics without a file location; none is emitted here, so
// the expectation is reported (mlir-opt reports it twice; XCS once).
// RUN: not xcs-opt --allow-unregistered-dialect --verify-diagnostics %s 2>&1 | FileCheck %s

// CHECK: <unknown>:0: error: expected error "nor an error without location" was not produced
// CHECK-NOT: error
// expected-error@unknown {{nor an error without location}}
"a.ok"() : () -> ()
