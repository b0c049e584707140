// f80 and f128 values that an f64 cannot hold (more precision, NaN payloads) are kept in their
// own encoding and printed as MLIR prints them (the shortest decimal that reads back in the
// type, else hex). MLIR reads decimals through a double, so the decimal form does not
// round-trip in either tool; the hex forms do.
// RUN: xcs-opt --allow-unregistered-dialect --mlir-print-op-generic %s -o %t
// RUN: mlir-minimal-opt --allow-unregistered-dialect --mlir-print-op-generic %s | diff - %t
// RUN: FileCheck %s < %t

// CHECK: "foo.a"() {a = 1.00000000000000000011 : f80, b = 1.00000000000000000000000000000000019 : f128, c = 0x7FFFB000000000000011 : f80}
"foo.a"() {a = 0x3FFF8000000000000001 : f80, b = 0x3FFF0000000000000000000000000001 : f128, c = 0x7FFFB000000000000011 : f80} : () -> ()
