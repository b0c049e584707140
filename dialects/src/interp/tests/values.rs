//! Runtime values: `.npy` files, random inputs, numpy-style printing, type checks.

use super::*;
use ElemType::*;

/// A `.npy` file (format 1.0) as `np.save` writes it: the header dict, room for the first (C
/// order) or last (Fortran order) dim to grow to 21 digits, spaces to a multiple of 64 bytes, and
/// a newline.
fn npy_file(descr: &str, fortran: bool, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let shape_s = match shape {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape_s}, }}", if fortran { "True" } else { "False" });
    let grow = if fortran { shape.last() } else { shape.first() };
    if let Some(d) = grow {
        dict.push_str(&" ".repeat(21 - d.to_string().len()));
    }
    let pad = 64 - (dict.len() + 1 + 10) % 64;
    let header = format!("{dict}{}\n", " ".repeat(pad % 64));
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

/// `to_le_bytes` of every element type: little-endian element bytes (f16/bf16 their bits, i1
/// one byte), `le_byte_len` long; `write_le_bytes` writes the same into a buffer of that length.
#[test]
fn le_bytes_of_every_element_type() {
    use half::{bf16, f16};
    let cases: Vec<(TensorData, Vec<u8>)> = vec![
        (TensorData::F16(vec![f16::from_f32(1.0), f16::from_f32(-2.0)]), vec![0x00, 0x3c, 0x00, 0xc0]),
        (TensorData::BF16(vec![bf16::from_f32(1.0)]), vec![0x80, 0x3f]),
        (TensorData::F32(vec![1.0, -0.0]), vec![0, 0, 0x80, 0x3f, 0, 0, 0, 0x80]),
        (TensorData::F64(vec![2.0]), vec![0, 0, 0, 0, 0, 0, 0, 0x40]),
        (TensorData::I1(vec![true, false, true]), vec![1, 0, 1]),
        (TensorData::I8(vec![-1, 5]), vec![0xff, 5]),
        (TensorData::I16(vec![-2, 0x102]), vec![0xfe, 0xff, 2, 1]),
        (TensorData::I32(vec![0x01020304]), vec![4, 3, 2, 1]),
        (TensorData::I64(vec![-1]), vec![0xff; 8]),
        (TensorData::Str(vec!["ab".into()]), vec![]),
    ];
    for (data, want) in cases {
        assert_eq!(data.to_le_bytes(), want, "{data:?}");
        assert_eq!(data.le_byte_len(), want.len(), "{data:?}");
        let mut out = vec![std::mem::MaybeUninit::new(0xaa_u8); want.len()];
        data.write_le_bytes(&mut out);
        let got: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
        assert_eq!(got, want, "{data:?}");
    }
}

#[test]
fn npy_helper_matches_numpy() {
    // np.save(f, np.array([0.5, -2.0, 0.1], dtype=np.float16)), bytes from numpy 2.4
    let numpy: &[u8] = &[
        147, 78, 85, 77, 80, 89, 1, 0, 118, 0, 123, 39, 100, 101, 115, 99, 114, 39, 58, 32, 39, 60, 102, 50, 39, 44,
        32, 39, 102, 111, 114, 116, 114, 97, 110, 95, 111, 114, 100, 101, 114, 39, 58, 32, 70, 97, 108, 115, 101, 44,
        32, 39, 115, 104, 97, 112, 101, 39, 58, 32, 40, 51, 44, 41, 44, 32, 125, 32, 32, 32, 32, 32, 32, 32, 32, 32,
        32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
        32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 10, 0, 56, 0,
        192, 102, 46,
    ];
    assert_eq!(npy_file("<f2", false, &[3], &[0, 56, 0, 192, 102, 46]), numpy);
    let t = read_npy_bytes(numpy).unwrap();
    assert_eq!(t, Tensor::f16(&[3], &[0.5, -2.0, 0.1]));
}

#[test]
fn npy_reads_numpy_files() {
    let b = read_npy_bytes(&npy_file("|b1", false, &[1, 2], &[1, 0])).unwrap();
    assert_eq!(b, Tensor::bool(&[1, 2], &[true, false]));
    // np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    let data: Vec<u8> = [0f32, 3., 1., 4., 2., 5.].iter().flat_map(|x| x.to_le_bytes()).collect();
    let f = read_npy_bytes(&npy_file("<f4", true, &[2, 3], &data)).unwrap();
    assert_eq!(f, Tensor::f32(&[2, 3], &[0., 1., 2., 3., 4., 5.]));
    // big-endian int32
    let be = read_npy_bytes(&npy_file(">i4", false, &[3], &[0, 0, 0, 1, 255, 255, 255, 254, 0, 0, 1, 44])).unwrap();
    assert_eq!(be, Tensor::i32(&[3], &[1, -2, 300]));
    // np.array(['ab', 'c', 'xyz']) is <U3
    let u: Vec<u8> = ["ab\0", "c\0\0", "xyz"].iter().flat_map(|s| s.chars().flat_map(|c| (c as u32).to_le_bytes())).collect();
    let s = read_npy_bytes(&npy_file("<U3", false, &[3], &u)).unwrap();
    assert_eq!(s, Tensor::strs(&[3], &["ab", "c", "xyz"]));
    // a 0-d array
    let sc = read_npy_bytes(&npy_file("<f8", false, &[], &2.5f64.to_le_bytes())).unwrap();
    assert_eq!(sc, Tensor::f64(&[], &[2.5]));
    // bf16 as raw bits, in either spelling
    let bits: Vec<u8> = [0x3f80u16, 0xc000].iter().flat_map(|x| x.to_le_bytes()).collect();
    for d in ["<u2", "|V2"] {
        let t = read_npy_bytes(&npy_file(d, false, &[2], &bits)).unwrap();
        assert_eq!(t, Tensor::bf16(&[2], &[1.0, -2.0]), "{d}");
    }
    // unsupported dtypes and garbage are errors
    let e = read_npy_bytes(&npy_file("<u4", false, &[1], &[0, 0, 0, 0])).unwrap_err();
    assert!(e.contains("dtype '<u4' is not supported"), "{e}");
    assert!(read_npy_bytes(b"not an npy file").is_err());
    assert!(read_npy_bytes(&npy_file("<f4", false, &[3], &[0, 0])).is_err(), "truncated data");
}

#[test]
fn npy_headers_that_lie_about_the_size_are_errors() {
    // 10^12 f32 elements promised, 8 bytes given: an error before anything is allocated
    let e = read_npy_bytes(&npy_file("<f4", false, &[1_000_000_000_000], &[0; 8])).unwrap_err();
    assert!(e.contains("shape [1000000000000] (1000000000000 elements of 4 bytes)") && e.contains("only 8 bytes"), "{e}");
    // an element count that overflows 64 bits (npyz alone would overflow multiplying it)
    let e = read_npy_bytes(&npy_file("<f8", true, &[1 << 40, 1 << 40], &[0; 8])).unwrap_err();
    assert!(e.contains("more than 2^64 elements"), "{e}");
    // elements x bytes that overflow 64 bits
    let e = read_npy_bytes(&npy_file("<f8", false, &[1 << 62, 2], &[0; 8])).unwrap_err();
    assert!(e.contains("only 8 bytes"), "{e}");
    // a header longer than the file, and one without a shape
    let mut f = npy_file("<f4", false, &[1], &[0; 4]);
    f.truncate(40);
    assert!(read_npy_bytes(&f).unwrap_err().contains("the file ends before it does"));
    let mut f = npy_file("<f4", false, &[1], &[0; 4]);
    let at = f.windows(7).position(|w| w == b"'shape'").unwrap();
    f[at..at + 7].copy_from_slice(b"'shope'");
    assert!(read_npy_bytes(&f).unwrap_err().contains("no 'shape'"));
    // more data than the header says is read as numpy does (the rest is ignored)
    let t = read_npy_bytes(&npy_file("<i1", false, &[2], &[1, 2, 3])).unwrap();
    assert_eq!(t, Tensor::i8(&[2], &[1, 2]));
}

#[test]
fn npy_round_trips_every_dtype() {
    let cases = vec![
        Tensor::f16(&[2, 2], &[0.5, -1.0, 65504.0, 0.1]),
        Tensor::bf16(&[3], &[1.0, -0.1, 3e38]),
        Tensor::f32(&[2, 1], &[1.5, f32::NAN]),
        Tensor::f64(&[], &[-0.0]),
        Tensor::bool(&[3], &[true, false, true]),
        Tensor::i8(&[2], &[-128, 127]),
        Tensor::i16(&[2], &[-32768, 7]),
        Tensor::i32(&[1, 1, 2], &[i32::MIN, 1]),
        Tensor::i64(&[0, 3], &[]),
        Tensor::strs(&[2], &["héllo", ""]),
    ];
    let dir = std::env::temp_dir().join(format!("xcs-interp-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, t) in cases.iter().enumerate() {
        let bytes = write_npy_bytes(t).unwrap();
        assert_eq!(&bytes[..6], b"\x93NUMPY");
        assert_eq!((10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize) % 64, 0, "header is 64-byte aligned");
        let back = read_npy_bytes(&bytes).unwrap();
        assert!(back.bit_eq(t), "{t:?} -> {back:?}");
        let path = dir.join(format!("{i}.npy"));
        write_npy(&path, t).unwrap();
        assert!(read_npy(&path).unwrap().bit_eq(t));
    }
    std::fs::remove_dir_all(&dir).ok();
    let header = String::from_utf8_lossy(&write_npy_bytes(&cases[1]).unwrap()[10..64]).to_string();
    assert!(header.contains("'descr': '<u2'"), "bf16 is written as <u2 bits: {header}");
    assert!(read_npy("/nonexistent/x.npy").unwrap_err().contains("cannot read '/nonexistent/x.npy'"));
}

#[test]
fn random_inputs_are_deterministic_and_in_range() {
    let ctx = crate::context();
    for e in [F16, BF16, F32, F64, I1, I8, I16, I32, I64, Str] {
        let ty = tt(&ctx, &[4, 50], e);
        let a = random_input(&ctx, ty, 7).unwrap();
        let b = random_input(&ctx, ty, 7).unwrap();
        let c = random_input(&ctx, ty, 8).unwrap();
        let (a, b, c) = (a.as_tensor().unwrap(), b.as_tensor().unwrap(), c.as_tensor().unwrap());
        assert!(a.bit_eq(b), "{e}: same seed, same values");
        assert!(!a.bit_eq(c), "{e}: another seed, other values");
        assert_eq!(a.shape, vec![4, 50]);
        if e.is_float() {
            let v = a.data.to_f64s().unwrap();
            assert!(v.iter().all(|&x| (-1.0..1.0).contains(&x)), "{e}: {v:?}");
            assert!(v.iter().any(|&x| x < -0.5) && v.iter().any(|&x| x > 0.5));
            // exact in the type: converting to f64 and back changes nothing
            assert!(TensorData::F64(v).cast(e).unwrap().bit_eq(&a.data));
        } else if e.is_int() {
            let v = a.data.to_i64s().unwrap();
            assert!(v.iter().all(|&x| (-8..=7).contains(&x)), "{e}: {v:?}");
            assert!(v.contains(&-8) && v.contains(&7));
        } else if e == I1 {
            let v = a.data.to_i64s().unwrap();
            let ones = v.iter().sum::<i64>();
            assert!((60..140).contains(&ones), "{ones} of 200 true");
        }
    }
    // a pinned value: SplitMix64 with seed 0 starts 0xe220a8397b1dcdaf
    assert_eq!(random::SplitMix64(0).next_u64(), 0xe220a8397b1dcdaf);
    let s = random_input(&ctx, crate::value_types::str_type(&ctx), 1).unwrap();
    assert_eq!(s.as_str().unwrap().len(), 8);
    assert_eq!(random_input(&ctx, ctx.i32_type(), 3).unwrap().as_scalar().unwrap().width, 32);
    let e = random_input(&ctx, tt(&ctx, &[-1, 2], F32), 1).unwrap_err();
    assert!(e.contains("dynamic dimension"), "{e}");
}

#[test]
fn format_matches_numpy_str() {
    // expected strings: str(array) in numpy 2.4 (the formatter was also checked against numpy on
    // 1900 random arrays of every element type, shapes up to 1500 elements and values from
    // subnormals to 1e300)
    let ar = |v: Vec<f64>| (0..v.len()).map(|i| v[i]).collect::<Vec<_>>();
    let cases: Vec<(Tensor, &str)> = vec![
        (Tensor::f32(&[3], &[1.0, 2.5, -3.25]), "[ 1.    2.5  -3.25]"),
        (Tensor::f32(&[2], &[1.0, 2.0]), "[1. 2.]"),
        (Tensor::f32(&[2], &[0.1, 0.25]), "[0.1  0.25]"),
        (Tensor::f64(&[2, 2], &[1.5, -2.0, 3.0, 4.125]), "[[ 1.5   -2.   ]\n [ 3.     4.125]]"),
        (Tensor::f64(&[2], &[1e8, 1.5]), "[1.0e+08 1.5e+00]"),
        (Tensor::f64(&[2], &[1e-5, 1.0]), "[1.e-05 1.e+00]"),
        (Tensor::f64(&[3], &[f64::NAN, 1.0, f64::NEG_INFINITY]), "[ nan   1. -inf]"),
        (Tensor::f64(&[2], &[f64::NAN, f64::NEG_INFINITY]), "[ nan -inf]"),
        (Tensor::f16(&[3], &[0.1, 0.2, 1000.0]), "[1.e-01 2.e-01 1.e+03]"),
        (Tensor::f64(&[2], &[0.123456789123, 1.0]), "[0.12345679 1.        ]"),
        (Tensor::i32(&[2, 2], &[1, -20, 300, 4]), "[[  1 -20]\n [300   4]]"),
        (Tensor::bool(&[3], &[true, false, true]), "[ True False  True]"),
        (Tensor::i8(&[2, 2, 2], &[0, 1, 2, 3, 4, 5, 6, 7]), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"),
        (
            Tensor::f64(&[30], &ar((0..30).map(|i| i as f64 / 3.0).collect())),
            "[0.         0.33333333 0.66666667 1.         1.33333333 1.66666667\n 2.         2.33333333 2.66666667 3.         3.33333333 3.66666667\n 4.         4.33333333 4.66666667 5.         5.33333333 5.66666667\n 6.         6.33333333 6.66666667 7.         7.33333333 7.66666667\n 8.         8.33333333 8.66666667 9.         9.33333333 9.66666667]",
        ),
        (Tensor::i64(&[2000], &(0..2000).collect::<Vec<_>>()), "[   0    1    2 ... 1997 1998 1999]"),
        (
            Tensor::f32(&[40, 50], &(0..2000).map(|i| i as f32).collect::<Vec<_>>()),
            "[[0.000e+00 1.000e+00 2.000e+00 ... 4.700e+01 4.800e+01 4.900e+01]\n [5.000e+01 5.100e+01 5.200e+01 ... 9.700e+01 9.800e+01 9.900e+01]\n [1.000e+02 1.010e+02 1.020e+02 ... 1.470e+02 1.480e+02 1.490e+02]\n ...\n [1.850e+03 1.851e+03 1.852e+03 ... 1.897e+03 1.898e+03 1.899e+03]\n [1.900e+03 1.901e+03 1.902e+03 ... 1.947e+03 1.948e+03 1.949e+03]\n [1.950e+03 1.951e+03 1.952e+03 ... 1.997e+03 1.998e+03 1.999e+03]]",
        ),
        (Tensor::strs(&[3], &["a", "it's", "b\nc"]), "['a' \"it's\" 'b\\nc']"),
        (Tensor::f32(&[], &[0.1]), "0.1"),
        (Tensor::f64(&[], &[1.0]), "1.0"),
        (Tensor::f64(&[], &[1e-5]), "1e-05"),
        (Tensor::f64(&[], &[1.5e20]), "1.5e+20"),
        (Tensor::bool(&[], &[true]), "True"),
        (Tensor::i16(&[], &[-3]), "-3"),
        (Tensor::f64(&[2, 0], &[]), "[]"),
        (Tensor::f64(&[2], &[-0.0, 1.0]), "[-0.  1.]"),
        (Tensor::f32(&[2], &[1. / 3., 2. / 3.]), "[0.33333334 0.6666667 ]"),
        (Tensor::f64(&[3], &[1e-10, 1.0, 123456.0]), "[1.00000e-10 1.00000e+00 1.23456e+05]"),
        // ties between equally short strings go to the correctly rounded one
        (Tensor::f32(&[1], &[20_924.312]), "[20924.312]"), // the f32 20924.3125
        (Tensor::f32(&[2], &[9.942653e-09, 1.25]), "[9.942653e-09 1.250000e+00]"),
        // the exponent cut-off depends on the type (numpy >= 2.3)
        (Tensor::f32(&[2], &[1e6, 1.0]), "[1.e+06 1.e+00]"),
        (Tensor::f16(&[], &[1091.0]), "1.091e+03"),
        (Tensor::f32(&[], &[1e6]), "1e+06"),
        (Tensor::f32(&[], &[123456.0]), "123456.0"),
        (Tensor::f32(&[], &[1e-4]), "1e-04"),
        (Tensor::f64(&[2], &[1e300, -1e-300]), "[ 1.e+300 -1.e-300]"),
        (Tensor::f64(&[2], &[5e-324, 1.0]), "[5.e-324 1.e+000]"),
    ];
    for (t, want) in cases {
        assert_eq!(t.to_string(), want, "{t:?}");
    }
    assert_eq!(RtValue::Str("plain".into()).to_string(), "plain");
    assert_eq!(RtValue::Any(AnyValue(std::sync::Arc::new(5u8))).to_string(), "<xcs.any>");
}

#[test]
fn value_type_checks() {
    let ctx = crate::context();
    let t = RtValue::Tensor(Tensor::f32(&[2, 3], &[0.; 6]));
    assert!(t.check_type(&ctx, tt(&ctx, &[2, 3], F32)).is_ok());
    assert!(t.check_type(&ctx, tt(&ctx, &[-1, 3], F32)).is_ok());
    assert!(t.check_type(&ctx, tt(&ctx, &[3, 2], F32)).is_err());
    assert!(t.check_type(&ctx, tt(&ctx, &[2, 3], F64)).is_err());
    assert!(t.check_type(&ctx, tt(&ctx, &[6], F32)).is_err());
    assert!(t.check_type(&ctx, crate::value_types::any_type(&ctx)).is_ok());
    assert!(RtValue::from("x").check_type(&ctx, crate::value_types::str_type(&ctx)).is_ok());
    assert!(RtValue::from("x").check_type(&ctx, ctx.i64_type()).is_err());
    assert!(RtValue::int(3, 64).check_type(&ctx, ctx.i64_type()).is_ok());
    assert!(RtValue::int(3, 64).check_type(&ctx, ctx.i32_type()).is_err());
    assert_eq!(Scalar::new(255, 8).value, -1);
    assert_eq!(Scalar::new(-1, 1).value, -1);
}

#[test]
fn allclose_reports_the_first_mismatch() {
    let a = Tensor::f32(&[3], &[1.0, 2.0, f32::NAN]);
    assert!(a.allclose(&Tensor::f32(&[3], &[1.0, 2.000001, f32::NAN]), 1e-5, 0.0).is_ok());
    let e = a.allclose(&Tensor::f32(&[3], &[1.0, 2.1, f32::NAN]), 1e-5, 0.0).unwrap_err();
    assert!(e.starts_with("element 1 differs: got 2, expected 2.0999999"), "{e}");
    let e = Tensor::i8(&[2], &[1, 2]).allclose(&Tensor::i8(&[2], &[1, 3]), 1.0, 1.0).unwrap_err();
    assert_eq!(e, "element 1 differs: got 2, expected 3");
    let e = Tensor::i8(&[2], &[1, 2]).allclose(&Tensor::i16(&[2], &[1, 2]), 1.0, 1.0).unwrap_err();
    assert_eq!(e, "got a tensor<2xi8>, expected a tensor<2xi16>");
}

#[test]
fn tensor_helpers() {
    let x = Tensor::i32(&[2, 3], &[0, 1, 2, 3, 4, 5]);
    assert_eq!(x.index_axis(1, 2).unwrap(), Tensor::i32(&[2], &[2, 5]));
    assert!(x.index_axis(1, 3).is_err());
    let st = Tensor::stack(&[x.clone(), x.clone()], 2).unwrap();
    assert_eq!(st.shape, vec![2, 3, 2]);
    assert_eq!(st.index_axis(2, 1).unwrap(), x);
    assert!(Tensor::stack(&[x.clone(), Tensor::i32(&[3, 2], &[0; 6])], 0).is_err());
    assert!(x.transpose(&[0, 0]).is_err());
    assert!(x.broadcast_to(&[4, 3]).is_err());
    // the convenience constructors never panic on a wrong count
    assert_eq!(Tensor::f32(&[2], &[1.0]).shape, vec![0]);
    assert!(Tensor::new(vec![2], TensorData::I8(vec![1])).is_err());
}


#[test]
fn casts_to_f16_and_bf16_round_once() {
    // values just above a tie of the target type: rounding through f32 (or dropping the low
    // mantissa bits, as `half`'s from_f64 does), or through f64 for big integers, makes them a
    // tie that rounds to even, i.e. down
    let p = |k: i32| 2f64.powi(k);
    let up = |from: &TensorData, to: ElemType| from.cast(to).unwrap().to_f64s().unwrap();
    assert_eq!(up(&TensorData::F64(vec![1.0 + p(-11) + p(-40)]), F16), vec![1.0 + p(-10)]);
    assert_eq!(up(&TensorData::F64(vec![-(1.0 + p(-8) + p(-40))]), BF16), vec![-(1.0 + p(-7))]);
    assert_eq!(up(&TensorData::F32(vec![(1.0 + p(-8) + p(-23)) as f32]), BF16), vec![1.0 + p(-7)]);
    assert_eq!(up(&TensorData::I64(vec![(1 << 60) + (1 << 52) + 1]), BF16), vec![p(60) + p(53)]);
    assert_eq!(up(&TensorData::I64(vec![-(1 << 62) - (1 << 54) - 3]), BF16), vec![-(p(62) + p(55))]);
    assert_eq!(up(&TensorData::I32(vec![(1 << 30) + (1 << 22) + 1]), BF16), vec![p(30) + p(23)]);
    assert_eq!(up(&TensorData::I64(vec![i64::MIN, 4097, 65520]), F16), vec![-f64::INFINITY, 4096.0, f64::INFINITY]);
    // ties still go to even
    assert_eq!(up(&TensorData::I64(vec![(1 << 60) + (1 << 52)]), BF16), vec![p(60)]);
}

#[test]
fn element_counts_past_the_limit_are_errors_not_allocations() {
    use crate::interp::value::{broadcast_shapes, check_numel, numel, MAX_ELEMENTS};
    // a count that overflows 64 bits saturates instead of wrapping to a small number
    assert_eq!(numel(&[1 << 32, 1 << 32, 16]), usize::MAX);
    assert_eq!(numel(&[1 << 32, 1 << 32, 0]), 0);
    let e = check_numel(&[999_999_999_999, 999_999_999_999]).unwrap_err();
    assert!(e.contains("[999999999999x999999999999] (more than 2^64 elements)") && e.contains("limit of 2^31"), "{e}");
    assert_eq!(check_numel(&[1 << 16, 1 << 15]), Ok(MAX_ELEMENTS));
    assert!(check_numel(&[1 << 16, (1 << 15) + 1]).unwrap_err().contains("2147549184 elements"));
    // where tensors are made: broadcasting (shapes and data)
    assert!(broadcast_shapes(&[1 << 20, 1], &[1, 1 << 20]).unwrap_err().contains("larger than the interpreter's limit"));
    let e = Tensor::f32(&[1], &[1.0]).broadcast_to(&[1 << 40]).unwrap_err();
    assert!(e.contains("[1099511627776] (1099511627776 elements)"), "{e}");
}
