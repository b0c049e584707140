// Every builtin float type MLIR 22 has.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "test.pure"() : () -> (f16, bf16, f32, f64, f80, f128, tf32)
%0:7 = "test.pure"() : () -> (f16, bf16, f32, f64, f80, f128, tf32)
// CHECK-NEXT: "test.pure"() : () -> (f8E5M2, f8E4M3, f8E4M3FN, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E3M4, f8E8M0FNU)
%1:8 = "test.pure"() : () -> (f8E5M2, f8E4M3, f8E4M3FN, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E3M4, f8E8M0FNU)
// CHECK-NEXT: "test.pure"() : () -> (f6E2M3FN, f6E3M2FN, f4E2M1FN)
%2:3 = "test.pure"() : () -> (f6E2M3FN, f6E3M2FN, f4E2M1FN)
// Float types as element types and as type attributes.
// CHECK-NEXT: "test.pure"() {a = bf16, b = f8E4M3FN} : () -> (tensor<2xf16>, vector<4xbf16>, complex<f64>)
%3:3 = "test.pure"() {a = bf16, b = f8E4M3FN} : () -> (tensor<2xf16>, vector<4xbf16>, complex<f64>)
