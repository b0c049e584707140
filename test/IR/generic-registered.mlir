// The generic form of registered ops: inherent attributes may be written as properties
// `<{...}>` or in the attribute dictionary; they become the op's attributes and print as
// properties (as MLIR 22 prints registered ops), the discardable ones as attributes.
// RUN: xcs-test-opt %s --mlir-print-op-generic | FileCheck %s
// RUN: xcs-test-opt %s --mlir-print-op-generic | xcs-test-opt --mlir-print-op-generic | FileCheck %s
// RUN: xcs-test-opt %s | FileCheck %s --check-prefix=PRETTY

// CHECK: "test.constant"() <{value = 1 : i32}> {extra = "x"} : () -> i32
// PRETTY: test.constant {extra = "x", value = 1 : i32} : i32
%k1 = "test.constant"() {value = 1 : i32, extra = "x"} : () -> i32
// CHECK-NEXT: "test.constant"() <{value = 2 : i32}> : () -> i32
// PRETTY-NEXT: test.constant {value = 2 : i32} : i32
%k2 = "test.constant"() <{value = 2 : i32}> : () -> i32
// Split across both places.
// CHECK-NEXT: "test.symbol"() <{sym_name = "s", sym_visibility = "private"}> : () -> ()
// PRETTY-NEXT: test.symbol {sym_name = "s", sym_visibility = "private"}
"test.symbol"() <{sym_name = "s"}> {sym_visibility = "private"} : () -> ()
// A discardable attribute written as a property stays an attribute.
// CHECK-NEXT: "test.constant"() <{value = 3 : i32}> {other = 1 : i64} : () -> i32
%k3 = "test.constant"() <{value = 3 : i32, other = 1}> : () -> i32
// func.func, module, func.call, cf.cond_br in the generic form print in their custom forms.
// PRETTY: func.func private @f(i32) -> i32
"func.func"() <{function_type = (i32) -> i32, sym_name = "f", sym_visibility = "private"}> ({}) : () -> ()
