// Integer, boolean and float attributes: default types, signedness, widths, hex, and MLIR's
// float printing (6 significant digits when exact enough, else shortest exact decimal, hex
// for non-finite values and where a decimal would not round-trip).
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "test.pure"() {a = 1 : i64, b = -1 : i8, c = 255 : ui8, d = 127 : i32, e = true, f = false, g = 3 : index, h = -128 : si8, i = 18446744073709551615 : ui64, j = 170141183460469231731687303715884105727 : i128, k = true, l = 0 : i3, m = -170141183460469231731687303715884105728 : i128}
"test.pure"() {a = 1, b = -1 : i8, c = 255 : ui8, d = 0x7F : i32, e = true, f = false, g = 3 : index, h = -128 : si8, i = 18446744073709551615 : ui64, j = 170141183460469231731687303715884105727 : i128, k = 1 : i1, l = 0 : i3, m = -170141183460469231731687303715884105728 : i128} : () -> ()
// CHECK-NEXT: "test.pure"() {a = 1.000000e+00 : f64, b = -2.500000e+00 : f32, c = 1.000000e+10 : f64, d = 0x7FC00000 : f32, e = 0x7F800000 : f32, f = 0xFF800000 : f32, g = 3.000490e-01 : f16, h = 1.500000e+00 : bf16, i = 1.000000e-01 : f64, j = 0x7F800000 : f32, k = 0.189218894 : f32, m = -0.000000e+00 : f64}
"test.pure"() {a = 1.0, b = -2.5 : f32, c = 1.0e10 : f64, d = 0x7FC00000 : f32, e = 0x7F800000 : f32, f = 0xFF800000 : f32, g = 3.0e-01 : f16, h = 1.5 : bf16, i = 0.1 : f64, j = 1.0e+40 : f32, k = 0.189218894 : f32, m = -0.0 : f64} : () -> ()
// CHECK-NEXT: "test.pure"() {a = 9.999940e-41 : f32, b = 0xFFC00000 : f32, c = 6.499200e+04 : f16, d = 0x7C00 : f16, e = 3.40282347E+38 : f32, f = 4.940660e-324 : f64, g = 0x419D6F3454000000 : f64, h = 1.000000e+300 : f64, i = 1.000980e-01 : bf16, j = 0.000000e+00 : f8E5M2, k = 1.000000e-07 : f32}
"test.pure"() {a = 1.0e-40 : f32, b = 0xFFC00000 : f32, c = 6.5e+04 : f16, d = 0x7C00 : f16, e = 3.4028234663852886e+38 : f32, f = 4.9406564584124654e-324 : f64, g = 123456789.0 : f64, h = 1.0e+300, i = 0.1 : bf16, j = 0.0 : f8E5M2, k = 1.0e-7 : f32} : () -> ()
// Other float formats: literals are rounded to the type (ties to even); overflow gives
// infinity, NaN (formats without infinity) or the largest value (formats without either).
// CHECK-NEXT: "test.pure"() {a = 1.000000e+00 : f80, b = 2.000000e+00 : f128, c = 1.000000e+00 : tf32, d = 1.500000e+00 : f8E4M3FN, e = -2.000000e+00 : f8E5M2FNUZ, f = 5.000000e-01 : f4E2M1FN, g = 8.750000e-01 : f6E2M3FN}
"test.pure"() {a = 1.0 : f80, b = 2.0 : f128, c = 1.0 : tf32, d = 1.5 : f8E4M3FN, e = -2.0 : f8E5M2FNUZ, f = 0.5 : f4E2M1FN, g = 0x7 : f6E2M3FN} : () -> ()
// CHECK-NEXT: "test.pure"() {a = 9.375000e-02 : f8E5M2, b = 3.125000e-01 : f8E4M3FN, c = 9.997550e-02 : tf32, d = 0x7F : f8E4M3FN, e = 0.100000000000000005551 : f80, f = 0.299999999999999988897769753748434596 : f128, g = 0.000000e+00 : f4E2M1FN, h = 3.500000e+00 : f6E3M2FN, i = 5.000000e-01 : f8E8M0FNU, k = 0.000000e+00 : f8E5M2, l = 0x7C : f8E5M2, m = 6.000000e+00 : f4E2M1FN, n = 0.000000e+00 : f8E5M2FNUZ}
"test.pure"() {a = 0.1 : f8E5M2, b = 0.3 : f8E4M3FN, c = 0.1 : tf32, d = 1.0e10 : f8E4M3FN, e = 0.1 : f80, f = 0.3 : f128, g = 0.1 : f4E2M1FN, h = 3.3 : f6E3M2FN, i = 0.7 : f8E8M0FNU, k = 1.0e-30 : f8E5M2, l = 1.0e10 : f8E5M2, m = 1.0e10 : f4E2M1FN, n = -0.0 : f8E5M2FNUZ} : () -> ()
// Zero-width integers hold 0.
// CHECK-NEXT: "test.pure"() {a = 0 : si0, b = 0 : ui0, c = 0 : i0}
"test.pure"() {a = 0 : si0, b = 0 : ui0, c = 0 : i0} : () -> ()
// A float printed in hex keeps its type inside an array, even f64 (whose type is elided in
// decimal): without it, it would read back as an integer.
// CHECK-NEXT: "test.pure"() {a = [0x7FF0000000000000 : f64, 1.000000e+00, 0x7F800000 : f32, 0xFFF8000000000000 : f64], b = 0x7FF0000000000000 : f64}
"test.pure"() {a = [0x7FF0000000000000 : f64, 1.0, 0x7F800000 : f32, 0xFFF8000000000000 : f64], b = 0x7FF0000000000000 : f64} : () -> ()
// Hex literals of f80 and f128 (as XCS prints their infinities and NaNs), NaN payloads (kept
// in their own encoding), and of dense f80 elements (stored exactly).
// CHECK-NEXT: "test.pure"() {a = 0x7FFFE000000000000001 : f80, b = 0xFFFFC000000000100000 : f80, c = 0x7FFF8000000000000000000000000001 : f128}
"test.pure"() {a = 0x7FFFE000000000000001 : f80, b = 0xFFFFC000000000100000 : f80, c = 0x7FFF8000000000000000000000000001 : f128} : () -> ()
// CHECK-NEXT: "test.pure"() {a = 0xFFFF8000000000000000 : f80, b = 0x7FFFC000000000000000 : f80, c = 0x7FFF0000000000000000000000000000 : f128, d = 1.000000e+00 : f80, e = dense<[3.000000e+00, 0x7FFF8000000000000000]> : tensor<2xf80>}
"test.pure"() {a = 0xFFFF8000000000000000 : f80, b = 0x7FFFC000000000000000 : f80, c = 0x7FFF0000000000000000000000000000 : f128, d = 0x3FFF8000000000000000 : f80, e = dense<[0x4000C000000000000000, 0x7FFF8000000000000000]> : tensor<2xf80>} : () -> ()
