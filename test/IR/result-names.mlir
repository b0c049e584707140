// Names of op results in the custom form (MLIR's OpAsmOpInterface::getAsmResultNames, here
// func.constant's `%f`): a name taken in the region or a region around it gets the next
// suffix `_N`; each nested region counts on from where its parent region's numbering was
// when the region was reached, so sibling regions reuse suffixes, as mlir-opt does. The names
// printed are mlir-opt's (test.region is an unregistered op to it).
// RUN: xcs-test-opt %s | FileCheck %s
// RUN: xcs-test-opt %s | grep -o '%f[_0-9]* = ' > %t.xcs
// RUN: mlir-opt --allow-unregistered-dialect %s | grep -o '%f[_0-9]* = ' | diff - %t.xcs
// The generic form keeps numbers.
// RUN: xcs-test-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GEN

// CHECK-LABEL: func.func @g() {
// CHECK-NEXT:    %f = constant @f : () -> ()
// CHECK-NEXT:    %f_0 = constant @f : () -> ()
// CHECK-NEXT:    test.region
// CHECK-NEXT:      %f_2 = func.constant @f : () -> ()
// CHECK-NEXT:      %f_3 = func.constant @f : () -> ()
// CHECK:         test.region
// CHECK-NEXT:      %f_2 = func.constant @f : () -> ()
// CHECK:         %f_1 = constant @f : () -> ()
// GEN-LABEL: sym_name = "g"
// GEN-NEXT:    %0 = "func.constant"() <{value = @f}> : () -> (() -> ())
// GEN-NEXT:    %1 = "func.constant"() <{value = @f}> : () -> (() -> ())
func.func private @f()
func.func @g() {
  %0 = func.constant @f : () -> ()
  %1 = func.constant @f : () -> ()
  "test.region"() ({
    %2 = func.constant @f : () -> ()
    %3 = func.constant @f : () -> ()
    "test.yield"() : () -> ()
  }) : () -> ()
  "test.region"() ({
    %4 = func.constant @f : () -> ()
    "test.yield"() : () -> ()
  }) : () -> ()
  %5 = func.constant @f : () -> ()
  return
}
