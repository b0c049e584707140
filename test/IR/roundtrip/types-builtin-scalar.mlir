// Integer (signless, signed, unsigned, odd and large widths), index and none types.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "test.pure"() : () -> (i1, i2, i8, i16, i32, i64, i128, i1000)
%0:8 = "test.pure"() : () -> (i1, i2, i8, i16, i32, i64, i128, i1000)
// CHECK-NEXT: "test.pure"() : () -> (si1, si8, si32, si64, ui1, ui8, ui32, ui64)
%1:8 = "test.pure"() : () -> (si1, si8, si32, si64, ui1, ui8, ui32, ui64)
// CHECK-NEXT: "test.pure"() : () -> (index, none)
%2:2 = "test.pure"() : () -> (index, none)
// The largest width MLIR allows.
// CHECK-NEXT: "test.pure"() : () -> i16777215
%3 = "test.pure"() : () -> i16777215
// A single result type may be written in parentheses; it prints without.
// CHECK-NEXT: %{{.*}} = "test.pure"(%{{.*}}) : (i32) -> i32
%4 = "test.pure"(%0#4) : (i32) -> (i32)
