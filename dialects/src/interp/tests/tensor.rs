//! Tensor dialect ops: every op on small inputs with known results, for every element type the
//! op accepts.

// Expected values are numpy's printed digits, kept as printed.
#![allow(clippy::approx_constant)]

use super::*;
use ElemType::*;

const NUMERIC: [ElemType; 8] = [F16, BF16, F32, F64, I8, I16, I32, I64];
const FLOATS: [ElemType; 4] = [F16, BF16, F32, F64];
const INTS: [ElemType; 4] = [I8, I16, I32, I64];

fn t(e: ElemType, shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::from_f64s(e, shape, v).unwrap()
}

fn bin(name: &str, a: &Tensor, b: &Tensor, out_shape: &[i64]) -> Result<Tensor, String> {
    let ctx = crate::context();
    let ty = tt(&ctx, out_shape, a.elem());
    run_op_in(&ctx, name, &[a.clone(), b.clone()], ty, &[])
}

/// `bin` without the verifier (for operands the verifier rejects).
fn bin_raw(name: &str, a: &Tensor, b: &Tensor, out_shape: &[i64]) -> Result<Tensor, String> {
    let ctx = crate::context();
    let ty = tt(&ctx, out_shape, a.elem());
    run_op_raw(&ctx, name, &[a.clone(), b.clone()], ty, &[])
}

#[test]
fn binary_ops_broadcast_every_numeric_type() {
    // [2,3] op [3]: values exact in every type (i8 and bf16 included).
    let a = [1., 2., 3., 4., 5., 6.];
    let b = [2., -1., 3.];
    let cases: [(&str, [f64; 6]); 5] = [
        ("tensor.add", [3., 1., 6., 6., 4., 9.]),
        ("tensor.sub", [-1., 3., 0., 2., 6., 3.]),
        ("tensor.mul", [2., -2., 9., 8., -5., 18.]),
        ("tensor.max", [2., 2., 3., 4., 5., 6.]),
        ("tensor.min", [1., -1., 3., 2., -1., 3.]),
    ];
    for e in NUMERIC {
        for (name, want) in &cases {
            let got = bin(name, &t(e, &[2, 3], &a), &t(e, &[3], &b), &[2, 3]).unwrap();
            assert_bits(&got, &t(e, &[2, 3], want));
            // and the other way round ([3] op [2,3]) for the commutative ones
            if matches!(*name, "tensor.add" | "tensor.mul" | "tensor.max" | "tensor.min") {
                let got = bin(name, &t(e, &[3], &b), &t(e, &[2, 3], &a), &[2, 3]).unwrap();
                assert_bits(&got, &t(e, &[2, 3], want));
            }
        }
    }
}

#[test]
fn division_floats_ieee_ints_truncate() {
    for e in FLOATS {
        let got = bin("tensor.div", &t(e, &[4], &[7., -7., 1., 0.]), &t(e, &[4], &[2., 2., 0., 0.]), &[4]).unwrap();
        let v = got.data.to_f64s().unwrap();
        assert_eq!(&v[..3], &[3.5, -3.5, f64::INFINITY], "{e}");
        assert!(v[3].is_nan());
    }
    for e in INTS {
        // truncation toward zero: -7/2 = -3 (numpy's // would give -4)
        let got = bin("tensor.div", &t(e, &[4], &[7., -7., 6., -6.]), &t(e, &[4], &[2., 2., -4., -4.]), &[4]).unwrap();
        assert_bits(&got, &t(e, &[4], &[3., -3., -1., 1.]));
        let err = bin("tensor.div", &t(e, &[2], &[1., 2.]), &t(e, &[2], &[1., 0.]), &[2]).unwrap_err();
        assert_eq!(err, "'tensor.div' op integer division by zero");
    }
}

#[test]
fn integers_wrap() {
    let got = bin("tensor.add", &Tensor::i8(&[2], &[100, -100]), &Tensor::i8(&[2], &[100, -100]), &[2]).unwrap();
    assert_eq!(got, Tensor::i8(&[2], &[-56, 56]));
    let got = bin("tensor.div", &Tensor::i8(&[1], &[-128]), &Tensor::i8(&[1], &[-1]), &[1]).unwrap();
    assert_eq!(got, Tensor::i8(&[1], &[-128]));
    let got = bin("tensor.mul", &Tensor::i64(&[1], &[i64::MAX]), &Tensor::i64(&[1], &[2]), &[1]).unwrap();
    assert_eq!(got, Tensor::i64(&[1], &[-2]));
    let got = bin("tensor.div", &Tensor::i64(&[1], &[i64::MIN]), &Tensor::i64(&[1], &[-1]), &[1]).unwrap();
    assert_eq!(got, Tensor::i64(&[1], &[i64::MIN]));
    let ctx = crate::context();
    let neg = run_op_in(&ctx, "tensor.neg", &[Tensor::i16(&[2], &[i16::MIN, 5])], tt(&ctx, &[2], I16), &[]).unwrap();
    assert_eq!(neg, Tensor::i16(&[2], &[i16::MIN, -5]));
    let abs = run_op_in(&ctx, "tensor.abs", &[Tensor::i8(&[3], &[-128, -3, 4])], tt(&ctx, &[3], I8), &[]).unwrap();
    assert_eq!(abs, Tensor::i8(&[3], &[-128, 3, 4]));
}

#[test]
fn power() {
    for e in INTS {
        let got = bin("tensor.pow", &t(e, &[4], &[2., -3., 5., 0.]), &t(e, &[4], &[5., 3., 0., 0.]), &[4]).unwrap();
        assert_bits(&got, &t(e, &[4], &[32., -27., 1., 1.]));
        let err = bin("tensor.pow", &t(e, &[1], &[2.]), &t(e, &[1], &[-1.]), &[1]).unwrap_err();
        assert!(err.contains("negative exponent"), "{err}");
    }
    let got = bin("tensor.pow", &Tensor::i8(&[1], &[2]), &Tensor::i8(&[1], &[7]), &[1]).unwrap();
    assert_eq!(got, Tensor::i8(&[1], &[-128]), "2**7 wraps in i8");
    for e in FLOATS {
        let got = bin("tensor.pow", &t(e, &[3], &[4., 2., -8.]), &t(e, &[3], &[0.5, -1., 1. / 3.]), &[3]).unwrap();
        let v = got.data.to_f64s().unwrap();
        assert_eq!(&v[..2], &[2., 0.5]);
        assert!(v[2].is_nan(), "negative base, fractional exponent is NaN (IEEE pow)");
    }
}

#[test]
fn max_min_propagate_nan() {
    let got = bin("tensor.max", &Tensor::f32(&[2], &[f32::NAN, 1.]), &Tensor::f32(&[2], &[0., f32::NAN]), &[2]).unwrap();
    assert!(got.data.to_f64s().unwrap().iter().all(|x| x.is_nan()));
    let got = bin("tensor.min", &Tensor::f64(&[2], &[f64::NAN, 1.]), &Tensor::f64(&[2], &[0., 3.]), &[2]).unwrap();
    let v = got.data.to_f64s().unwrap();
    assert!(v[0].is_nan());
    assert_eq!(v[1], 1.0);
}

/// -0.0 is below +0.0 in either operand order (IEEE 754-2019 maximum/minimum), so max and min
/// commute, as their `Commutative` trait says (numpy returns the first operand here).
#[test]
fn max_min_order_signed_zeros() {
    let (a, b) = (Tensor::f32(&[2], &[-0.0, 0.0]), Tensor::f32(&[2], &[0.0, -0.0]));
    let signs = |t: Tensor| t.data.to_f64s().unwrap().iter().map(|x| x.is_sign_negative()).collect::<Vec<_>>();
    assert_eq!(signs(bin("tensor.max", &a, &b, &[2]).unwrap()), vec![false, false]);
    assert_eq!(signs(bin("tensor.min", &a, &b, &[2]).unwrap()), vec![true, true]);
}

#[test]
fn binary_shape_errors() {
    let err = bin_raw("tensor.add", &Tensor::f32(&[2], &[1., 2.]), &Tensor::f32(&[3], &[1., 2., 3.]), &[-1]).unwrap_err();
    assert_eq!(err, "'tensor.add' op shapes [2] and [3] do not broadcast (dimension 2 vs 3)");
    let err = bin_raw("tensor.add", &Tensor::f32(&[2], &[1., 2.]), &Tensor::f64(&[2], &[1., 2.]), &[2]).unwrap_err();
    assert!(err.contains("element types differ"), "{err}");
}

const X: [f64; 6] = [-2., -0.5, 0., 0.5, 1., 3.];

#[test]
fn unary_float_ops_match_numpy() {
    // numpy 2.4 in float64 (gelu "none" with math.erf)
    let cases: [(&str, &str, [f64; 6]); 6] = [
        ("tensor.exp", "", [0.1353352832366127, 0.6065306597126334, 1.0, 1.6487212707001282, 2.718281828459045, 20.085536923187668]),
        ("tensor.tanh", "", [-0.9640275800758169, -0.46211715726000974, 0.0, 0.46211715726000974, 0.7615941559557649, 0.9950547536867305]),
        ("tensor.sigmoid", "", [0.11920292202211755, 0.3775406687981454, 0.5, 0.6224593312018546, 0.7310585786300049, 0.9525741268224334]),
        ("tensor.silu", "", [-0.2384058440442351, -0.1887703343990727, 0.0, 0.3112296656009273, 0.7310585786300049, 2.8577223804673]),
        ("tensor.gelu", "none", [-0.04550026389635842, -0.15426876936299344, 0.0, 0.34573123063700656, 0.8413447460685429, 2.99595030590511]),
        ("tensor.gelu", "tanh", [-0.04540230591222494, -0.15428599017485606, 0.0, 0.34571400982514394, 0.8411919906082768, 2.996362607918227]),
    ];
    let ctx = crate::context();
    for (name, approx, want) in cases {
        let attrs: Vec<(&str, Attr)> = if approx.is_empty() { vec![] } else { vec![("approximate", ctx.str_attr(approx))] };
        for (e, rtol) in [(F64, 1e-14), (F32, 2e-7), (F16, 1e-3), (BF16, 8e-3)] {
            let got = run_op_in(&ctx, name, &[t(e, &[6], &X)], tt(&ctx, &[6], e), &attrs).unwrap();
            let want_t = t(F64, &[6], &want).cast(e).unwrap();
            // the expected value rounded to the type, then compared with the type's tolerance
            if let Err(m) = got.allclose(&want_t, rtol, 1e-7) {
                panic!("{name} {approx} {e}: {m}");
            }
        }
    }
    let y = [0.5, 1., 2., 4.];
    let cases: [(&str, [f64; 4]); 3] = [
        ("tensor.log", [-0.6931471805599453, 0.0, 0.6931471805599453, 1.3862943611198906]),
        ("tensor.sqrt", [0.7071067811865476, 1.0, 1.4142135623730951, 2.0]),
        ("tensor.rsqrt", [1.414213562373095, 1.0, 0.7071067811865475, 0.5]),
    ];
    for (name, want) in cases {
        for (e, rtol) in [(F64, 1e-15), (F32, 2e-7), (F16, 1e-3), (BF16, 8e-3)] {
            let got = run_op_in(&ctx, name, &[t(e, &[4], &y)], tt(&ctx, &[4], e), &[]).unwrap();
            assert_close(&got, &t(F64, &[4], &want).cast(e).unwrap(), rtol);
        }
    }
}

#[test]
fn f16_elementwise_rounds_like_numpy() {
    // numpy: np.exp / np.tanh on float16 (computed in float32, rounded to float16)
    let ctx = crate::context();
    let x = t(F16, &[6], &X);
    let exp = run_op_in(&ctx, "tensor.exp", &[x.clone()], tt(&ctx, &[6], F16), &[]).unwrap();
    let tanh = run_op_in(&ctx, "tensor.tanh", &[x], tt(&ctx, &[6], F16), &[]).unwrap();
    let bits = |t: &Tensor| match &t.data {
        TensorData::F16(v) => v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        _ => vec![],
    };
    assert_eq!(bits(&exp), vec![0x3055, 0x38da, 0x3c00, 0x3e98, 0x4170, 0x4d05]);
    assert_eq!(bits(&tanh), vec![0xbbb6, 0xb765, 0x0, 0x3765, 0x3a18, 0x3bf6]);
}

#[test]
fn unary_numeric_ops_every_type() {
    let ctx = crate::context();
    for e in NUMERIC {
        let x = t(e, &[4], &[-3., 0., 2., -1.]);
        let ty = tt(&ctx, &[4], e);
        // IEEE: -(0.0) is -0.0 for floats
        assert_bits(&run_op_in(&ctx, "tensor.neg", &[x.clone()], ty, &[]).unwrap(), &t(e, &[4], &[3., -0., -2., 1.]));
        assert_bits(&run_op_in(&ctx, "tensor.abs", &[x.clone()], ty, &[]).unwrap(), &t(e, &[4], &[3., 0., 2., 1.]));
        assert_bits(&run_op_in(&ctx, "tensor.relu", &[x], ty, &[]).unwrap(), &t(e, &[4], &[0., 0., 2., 0.]));
    }
    // float-only ops reject integers at run time too (the verifier rejects them first)
    let err = run_op_raw(&ctx, "tensor.exp", &[Tensor::i32(&[1], &[1])], tt(&ctx, &[1], I32), &[]).unwrap_err();
    assert!(err.starts_with("'tensor.exp' op"), "{err}");
}

#[test]
fn compare_every_type_and_nan() {
    let ctx = crate::context();
    let preds = [
        ("eq", [false, true, false]),
        ("ne", [true, false, true]),
        ("lt", [true, false, false]),
        ("le", [true, true, false]),
        ("gt", [false, false, true]),
        ("ge", [false, true, true]),
    ];
    for e in NUMERIC {
        for (p, want) in preds {
            let got = run_op_in(
                &ctx,
                "tensor.cmp",
                &[t(e, &[3], &[1., 2., 3.]), t(e, &[1], &[2.])],
                tt(&ctx, &[3], I1),
                &[("predicate", ctx.str_attr(p))],
            )
            .unwrap();
            assert_eq!(got, Tensor::bool(&[3], &want), "{e} {p}");
        }
    }
    // i1 operands: false < true
    let got = run_op_in(
        &ctx,
        "tensor.cmp",
        &[Tensor::bool(&[2], &[false, true]), Tensor::bool(&[2], &[true, true])],
        tt(&ctx, &[2], I1),
        &[("predicate", ctx.str_attr("lt"))],
    )
    .unwrap();
    assert_eq!(got, Tensor::bool(&[2], &[true, false]));
    // NaN is unordered: only ne holds
    for (p, want) in [("eq", false), ("ne", true), ("lt", false), ("ge", false)] {
        let got = run_op_in(
            &ctx,
            "tensor.cmp",
            &[Tensor::f32(&[1], &[f32::NAN]), Tensor::f32(&[1], &[f32::NAN])],
            tt(&ctx, &[1], I1),
            &[("predicate", ctx.str_attr(p))],
        )
        .unwrap();
        assert_eq!(got, Tensor::bool(&[1], &[want]), "{p}");
    }
}

#[test]
fn select_broadcasts_all_three() {
    let ctx = crate::context();
    for e in [F16, F32, I8, I64, I1] {
        let a = t(e, &[2, 2], &[1., 0., 1., 1.]);
        let b = t(e, &[1], &[0.]);
        let c = Tensor::bool(&[2, 1], &[true, false]);
        let got = run_op_in(&ctx, "tensor.select", &[c, a, b], tt(&ctx, &[2, 2], e), &[]).unwrap();
        assert_bits(&got, &t(e, &[2, 2], &[1., 0., 0., 0.]));
    }
}

#[test]
fn casts() {
    let ctx = crate::context();
    let cast = |x: Tensor, to: ElemType| {
        let ty = tt(&ctx, &x.shape.iter().map(|&d| d as i64).collect::<Vec<_>>(), to);
        run_op_in(&ctx, "tensor.cast", &[x], ty, &[]).unwrap()
    };
    // float -> int: truncate toward zero, saturate, NaN -> 0
    let x = Tensor::f32(&[6], &[300.7, -300.0, f32::NAN, -1.9, 1.9, f32::INFINITY]);
    assert_eq!(cast(x.clone(), I8), Tensor::i8(&[6], &[127, -128, 0, -1, 1, 127]));
    assert_eq!(cast(x.clone(), I64), Tensor::i64(&[6], &[300, -300, 0, -1, 1, i64::MAX]));
    // float -> i1: != 0 (NaN is true)
    assert_eq!(cast(x, I1), Tensor::bool(&[6], &[true, true, true, true, true, true]));
    assert_eq!(cast(Tensor::f64(&[2], &[0.0, -0.0]), I1), Tensor::bool(&[2], &[false, false]));
    // int -> int wraps (numpy astype: [44, 127, 127] for [300, -129, 127])
    assert_eq!(cast(Tensor::i32(&[3], &[300, -129, 127]), I8), Tensor::i8(&[3], &[44, 127, 127]));
    assert_eq!(cast(Tensor::i8(&[2], &[-1, 5]), I64), Tensor::i64(&[2], &[-1, 5]));
    // i1 -> numbers: 0/1
    assert_eq!(cast(Tensor::bool(&[2], &[true, false]), F32), Tensor::f32(&[2], &[1., 0.]));
    assert_eq!(cast(Tensor::bool(&[2], &[true, false]), I16), Tensor::i16(&[2], &[1, 0]));
    // int -> i1
    assert_eq!(cast(Tensor::i32(&[3], &[0, -2, 7]), I1), Tensor::bool(&[3], &[false, true, true]));
    // float -> float rounds to nearest even; f64 0.1 -> f16 bits 0x2e66 (numpy), bf16 0x3dcd
    match cast(Tensor::f64(&[1], &[0.1]), F16).data {
        TensorData::F16(v) => assert_eq!(v[0].to_bits(), 0x2e66),
        d => panic!("{d:?}"),
    }
    match cast(Tensor::f32(&[1], &[0.1]), BF16).data {
        TensorData::BF16(v) => assert_eq!(v[0].to_bits(), 0x3dcd),
        d => panic!("{d:?}"),
    }
    assert_eq!(cast(Tensor::f64(&[1], &[1e40]), F32), Tensor::f32(&[1], &[f32::INFINITY]));
    // int -> float
    assert_eq!(cast(Tensor::i64(&[2], &[16777217, -3]), F32), Tensor::f32(&[2], &[16777216., -3.]));
    // every pair of numeric types round-trips small integers
    for a in NUMERIC {
        for b in NUMERIC {
            let x = t(a, &[3], &[-2., 0., 7.]);
            assert_bits(&cast(x, b), &t(b, &[3], &[-2., 0., 7.]));
        }
    }
}

#[test]
fn matmul_with_batch_broadcast() {
    let ctx = crate::context();
    for e in NUMERIC {
        // [2,2,3] x [3,2]: batch broadcast of the rhs
        let a = t(e, &[2, 2, 3], &[0., 1., 2., 3., 4., 5., 1., 0., 0., 0., 1., 0.]);
        let b = t(e, &[3, 2], &[0., 1., 2., 3., 4., 5.]);
        let got = run_op_in(&ctx, "tensor.matmul", &[a, b], tt(&ctx, &[2, 2, 2], e), &[]).unwrap();
        assert_bits(&got, &t(e, &[2, 2, 2], &[10., 13., 28., 40., 0., 1., 2., 3.]));
    }
    // [1,2,2] x [3,2,1] -> [3,2,1]
    let a = Tensor::i32(&[1, 2, 2], &[1, 2, 3, 4]);
    let b = Tensor::i32(&[3, 2, 1], &[1, 0, 0, 1, 1, 1]);
    let got = run_op_in(&ctx, "tensor.matmul", &[a, b], tt(&ctx, &[3, 2, 1], I32), &[]).unwrap();
    assert_eq!(got, Tensor::i32(&[3, 2, 1], &[1, 3, 2, 4, 3, 7]));
    // a K that does not match (only a buggy pass makes this: the verifier rejects it)
    let err = run_op_raw(
        &ctx,
        "tensor.matmul",
        &[Tensor::f32(&[1, 2], &[1., 2.]), Tensor::f32(&[3, 1], &[1., 2., 3.])],
        tt(&ctx, &[1, 1], F32),
        &[],
    )
    .unwrap_err();
    assert!(err.contains("contraction dimensions differ"), "{err}");
}

#[test]
fn einsum_general() {
    let ctx = crate::context();
    let eq = |s: &str| vec![("equation", ctx.str_attr(s))];
    let a = Tensor::f64(&[2, 3], &[0., 1., 2., 3., 4., 5.]);
    let b = Tensor::f64(&[3, 2], &[0., 1., 2., 3., 4., 5.]);
    // numpy: np.einsum("ij,jk->ik") = [[10, 13], [28, 40]]
    let mm = run_op_in(&ctx, "tensor.einsum", &[a.clone(), b.clone()], tt(&ctx, &[2, 2], F64), &eq("ij,jk->ik")).unwrap();
    assert_eq!(mm, Tensor::f64(&[2, 2], &[10., 13., 28., 40.]));
    let implicit = run_op_in(&ctx, "tensor.einsum", &[a.clone(), b], tt(&ctx, &[2, 2], F64), &eq("ij,jk")).unwrap();
    assert_eq!(implicit, mm);
    let tr = run_op_in(&ctx, "tensor.einsum", &[a.clone()], tt(&ctx, &[3, 2], F64), &eq("ij->ji")).unwrap();
    assert_eq!(tr, Tensor::f64(&[3, 2], &[0., 3., 1., 4., 2., 5.]));
    let total = run_op_in(&ctx, "tensor.einsum", &[a], tt(&ctx, &[], F64), &eq("ij->")).unwrap();
    assert_eq!(total, Tensor::f64(&[], &[15.]));
    let sq = Tensor::i32(&[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let diag = run_op_in(&ctx, "tensor.einsum", &[sq.clone()], tt(&ctx, &[3], I32), &eq("ii->i")).unwrap();
    assert_eq!(diag, Tensor::i32(&[3], &[1, 5, 9]));
    let trace = run_op_in(&ctx, "tensor.einsum", &[sq], tt(&ctx, &[], I32), &eq("ii")).unwrap();
    assert_eq!(trace, Tensor::i32(&[], &[15]));
    let outer = run_op_in(
        &ctx,
        "tensor.einsum",
        &[Tensor::i8(&[2], &[1, 2]), Tensor::i8(&[3], &[1, 10, 100])],
        tt(&ctx, &[2, 3], I8),
        &eq("i,j->ij"),
    )
    .unwrap();
    assert_eq!(outer, Tensor::i8(&[2, 3], &[1, 10, 100, 2, 20, -56]));
    // batched, three operands
    let x = Tensor::f32(&[2, 1, 2], &[1., 2., 3., 4.]);
    let y = Tensor::f32(&[2, 2, 1], &[1., 1., 2., 0.]);
    let z = Tensor::f32(&[2], &[10., 100.]);
    let got = run_op_in(&ctx, "tensor.einsum", &[x, y, z], tt(&ctx, &[2, 1, 1], F32), &eq("bij,bjk,b->bik")).unwrap();
    assert_eq!(got, Tensor::f32(&[2, 1, 1], &[30., 600.]));
    for e in [F16, BF16] {
        let got = run_op_in(
            &ctx,
            "tensor.einsum",
            &[t(e, &[2], &[1., 2.]), t(e, &[2], &[3., 4.])],
            tt(&ctx, &[], e),
            &eq("i,i->"),
        )
        .unwrap();
        assert_bits(&got, &t(e, &[], &[11.]));
    }
    let err = run_op_raw(
        &ctx,
        "tensor.einsum",
        &[Tensor::f32(&[2], &[1., 2.]), Tensor::f32(&[3], &[1., 2., 3.])],
        tt(&ctx, &[], F32),
        &eq("i,i->"),
    )
    .unwrap_err();
    assert!(err.contains("label 'i' has size 2 and 3"), "{err}");
}

fn reduce(ctx: &Context, x: &Tensor, kind: &str, axes: &[i64], keep: bool, out: &[i64]) -> Result<Tensor, String> {
    run_op_in(
        ctx,
        "tensor.reduce",
        &[x.clone()],
        tt(ctx, out, x.elem()),
        &[("kind", ctx.str_attr(kind)), ("axes", ctx.dense_i64_array(axes)), ("keepdims", ctx.bool_attr(keep))],
    )
}

#[test]
fn reductions() {
    let ctx = crate::context();
    let v = [1., -2., 3., 4., 5., -6.];
    for e in NUMERIC {
        let x = t(e, &[2, 3], &v);
        let r = |k: &str, axes: &[i64], keep: bool, out: &[i64]| reduce(&ctx, &x, k, axes, keep, out).unwrap();
        assert_bits(&r("sum", &[1], false, &[2]), &t(e, &[2], &[2., 3.]));
        assert_bits(&r("sum", &[0], true, &[1, 3]), &t(e, &[1, 3], &[5., 3., -3.]));
        assert_bits(&r("sum", &[0, 1], false, &[]), &t(e, &[], &[5.]));
        assert_bits(&r("sum", &[-1, 0], true, &[1, 1]), &t(e, &[1, 1], &[5.]));
        assert_bits(&r("max", &[1], false, &[2]), &t(e, &[2], &[3., 5.]));
        assert_bits(&r("min", &[0], false, &[3]), &t(e, &[3], &[1., -2., -6.]));
        assert_bits(&r("prod", &[1], false, &[2]), &t(e, &[2], &[-6., -120.]));
        assert_bits(&r("sum", &[], false, &[2, 3]), &x);
    }
    // mean: floats exact; integers truncate toward zero
    assert_eq!(reduce(&ctx, &Tensor::f32(&[2, 2], &[1., 2., 3., 5.]), "mean", &[1], false, &[2]).unwrap(), Tensor::f32(&[2], &[1.5, 4.]));
    assert_eq!(reduce(&ctx, &Tensor::i32(&[2, 2], &[-3, -4, 3, 4]), "mean", &[1], false, &[2]).unwrap(), Tensor::i32(&[2], &[-3, 3]));
    // no overflow in the integer mean
    assert_eq!(reduce(&ctx, &Tensor::i8(&[2], &[100, 100]), "mean", &[0], false, &[]).unwrap(), Tensor::i8(&[], &[100]));
    // sum wraps
    assert_eq!(reduce(&ctx, &Tensor::i8(&[2], &[100, 100]), "sum", &[0], false, &[]).unwrap(), Tensor::i8(&[], &[-56]));
    // f16 sum accumulates in f64 and rounds once: ten 0.1s give exactly 1.0
    let tenth = Tensor::f16(&[10], &[0.1; 10]);
    assert_bits(&reduce(&ctx, &tenth, "sum", &[0], false, &[]).unwrap(), &Tensor::f16(&[], &[1.0]));
    // NaN propagates through max
    let got = reduce(&ctx, &Tensor::f64(&[3], &[1., f64::NAN, 2.]), "max", &[0], false, &[]).unwrap();
    assert!(got.data.to_f64s().unwrap()[0].is_nan());
    // empty axes
    let empty = Tensor::f32(&[2, 0], &[]);
    assert_eq!(reduce(&ctx, &empty, "sum", &[1], false, &[2]).unwrap(), Tensor::f32(&[2], &[0., 0.]));
    assert_eq!(reduce(&ctx, &empty, "prod", &[1], false, &[2]).unwrap(), Tensor::f32(&[2], &[1., 1.]));
    let err = reduce(&ctx, &empty, "max", &[1], false, &[2]).unwrap_err();
    assert!(err.contains("empty axis"), "{err}");
    let err = reduce(&ctx, &Tensor::i32(&[0], &[]), "mean", &[0], false, &[]).unwrap_err();
    assert!(err.contains("divides by zero"), "{err}");
}

#[test]
fn softmax_and_layer_norm_match_numpy() {
    let ctx = crate::context();
    let a = [1., 2., 3., 4., 5., -1.];
    let s1 = [0.09003057317038046, 0.24472847105479764, 0.6652409557748218, 0.26845495065244657, 0.7297362141184152, 0.0018088352291382895];
    let s0 = [0.04742587317756679, 0.04742587317756679, 0.9820137900379085, 0.9525741268224334, 0.9525741268224334, 0.017986209962091555];
    let ln = [-1.2247356859083902, 1.0, -0.3876321570458049, 0.5080001392911173, 2.7780004875189106, -1.6985001915252864];
    for (e, rtol) in [(F64, 1e-13), (F32, 2e-7), (F16, 1e-3), (BF16, 8e-3)] {
        let x = t(e, &[2, 3], &a);
        for (axis, want) in [(1i64, &s1), (-1, &s1), (0, &s0)] {
            let got = run_op_in(&ctx, "tensor.softmax", &[x.clone()], tt(&ctx, &[2, 3], e), &[("axis", ctx.i64_attr(axis))]).unwrap();
            assert_close(&got, &t(F64, &[2, 3], want).cast(e).unwrap(), rtol);
        }
        let g = t(e, &[3], &[1., 2., 0.5]);
        let b = t(e, &[3], &[0., 1., -1.]);
        let got = run_op_in(
            &ctx,
            "tensor.layer_norm",
            &[x.clone(), g, b],
            tt(&ctx, &[2, 3], e),
            &[("axis", ctx.i64_attr(1)), ("epsilon", ctx.float_attr(1e-5, ctx.f32_type()))],
        )
        .unwrap();
        // epsilon is the f32 1e-5 here and numpy's f64 1e-5 there: the difference is ~1e-13
        assert_close(&got, &t(F64, &[2, 3], &ln).cast(e).unwrap(), rtol.max(1e-12));
    }
    // normalizing over all dims (axis 0)
    let x = Tensor::f64(&[2, 2], &[1., 2., 3., 4.]);
    let ones = Tensor::f64(&[2, 2], &[1.; 4]);
    let zeros = Tensor::f64(&[2, 2], &[0.; 4]);
    let got = run_op_in(
        &ctx,
        "tensor.layer_norm",
        &[x, ones, zeros.clone()],
        tt(&ctx, &[2, 2], F64),
        &[("axis", ctx.i64_attr(0)), ("epsilon", ctx.float_attr(0.0, ctx.f32_type()))],
    )
    .unwrap();
    let s = 1.25f64.sqrt();
    assert_close(&got, &Tensor::f64(&[2, 2], &[-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s]), 1e-15);
    // gamma of the wrong shape (rejected by the verifier, so built unverified)
    let err = run_op_raw(
        &ctx,
        "tensor.layer_norm",
        &[Tensor::f64(&[2, 2], &[1.; 4]), Tensor::f64(&[3], &[1.; 3]), Tensor::f64(&[2], &[0.; 2])],
        tt(&ctx, &[2, 2], F64),
        &[("axis", ctx.i64_attr(1)), ("epsilon", ctx.float_attr(0.0, ctx.f32_type()))],
    )
    .unwrap_err();
    assert!(err.contains("gamma is a tensor<3xf64>"), "{err}");
}

#[test]
fn structural_ops_every_type() {
    let ctx = crate::context();
    for e in ElemType::ALL {
        // tensor ops take the table's element types; string tensors (which the interpreter can
        // move around too, e.g. for vmap) are run unverified
        let run_op_in = if e == Str { run_op_raw } else { run_op_in };
        let x = match e {
            Str => Tensor::strs(&[2, 3], &["a", "b", "c", "d", "e", "f"]),
            I1 => Tensor::bool(&[2, 3], &[true, false, true, false, false, true]),
            _ => t(e, &[2, 3], &[0., 1., 2., 3., 4., 5.]),
        };
        let pick = |idx: &[usize], shape: &[usize]| x.take(shape.to_vec(), idx);
        let tr = run_op_in(&ctx, "tensor.transpose", &[x.clone()], tt(&ctx, &[3, 2], e), &[("perm", ctx.dense_i64_array(&[1, 0]))]).unwrap();
        assert_eq!(tr, pick(&[0, 3, 1, 4, 2, 5], &[3, 2]), "{e}");
        let rs = run_op_in(&ctx, "tensor.reshape", &[x.clone()], tt(&ctx, &[3, -1], e), &[]).unwrap();
        assert_eq!(rs, pick(&[0, 1, 2, 3, 4, 5], &[3, 2]), "{e}");
        let bc = run_op_in(&ctx, "tensor.broadcast_to", &[pick(&[0, 1, 2], &[1, 3])], tt(&ctx, &[2, 3], e), &[]).unwrap();
        assert_eq!(bc, pick(&[0, 1, 2, 0, 1, 2], &[2, 3]), "{e}");
        let sl = run_op_in(
            &ctx,
            "tensor.slice",
            &[x.clone()],
            tt(&ctx, &[2, 2], e),
            &[
                ("start", ctx.dense_i64_array(&[0, 0])),
                ("limit", ctx.dense_i64_array(&[2, 3])),
                ("stride", ctx.dense_i64_array(&[1, 2])),
            ],
        )
        .unwrap();
        assert_eq!(sl, pick(&[0, 2, 3, 5], &[2, 2]), "{e}");
        let cc = run_op_in(
            &ctx,
            "tensor.concat",
            &[x.clone(), pick(&[0, 3], &[2, 1]), x.clone()],
            tt(&ctx, &[2, 7], e),
            &[("axis", ctx.i64_attr(1))],
        )
        .unwrap();
        assert_eq!(cc, pick(&[0, 1, 2, 0, 0, 1, 2, 3, 4, 5, 3, 3, 4, 5], &[2, 7]), "{e}");
        let g = run_op_in(
            &ctx,
            "tensor.gather",
            &[x.clone(), Tensor::i64(&[2, 2], &[2, 0, 1, 1])],
            tt(&ctx, &[2, 2, 2], e),
            &[("axis", ctx.i64_attr(1))],
        )
        .unwrap();
        assert_eq!(g, pick(&[2, 0, 1, 1, 5, 3, 4, 4], &[2, 2, 2]), "{e}");
    }
}

#[test]
fn structural_ops_more() {
    let ctx = crate::context();
    let x = Tensor::i32(&[2, 3, 4], &(0..24).collect::<Vec<_>>());
    let tr = run_op_in(&ctx, "tensor.transpose", &[x.clone()], tt(&ctx, &[4, 2, 3], I32), &[("perm", ctx.dense_i64_array(&[2, 0, 1]))]).unwrap();
    // numpy: x.transpose(2, 0, 1)[1] = [[1, 5, 9], [13, 17, 21]]
    assert_eq!(tr.index_axis(0, 1).unwrap(), Tensor::i32(&[2, 3], &[1, 5, 9, 13, 17, 21]));
    let g = run_op_in(&ctx, "tensor.gather", &[x.clone(), Tensor::i32(&[], &[1])], tt(&ctx, &[3, 4], I32), &[("axis", ctx.i64_attr(0))]).unwrap();
    assert_eq!(g, Tensor::i32(&[3, 4], &(12..24).collect::<Vec<_>>()));
    for bad in [3i64, -1] {
        let err = run_op_in(&ctx, "tensor.gather", &[x.clone(), Tensor::i64(&[2], &[0, bad])], tt(&ctx, &[2, 2, 4], I32), &[("axis", ctx.i64_attr(1))])
            .unwrap_err();
        assert_eq!(err, format!("'tensor.gather' op index {bad} (at position 1 of the indices) is out of range for axis 1 of size 3"));
    }
    // concat along axis 0 with different sizes
    let cc = run_op_in(
        &ctx,
        "tensor.concat",
        &[Tensor::f32(&[1, 2], &[1., 2.]), Tensor::f32(&[2, 2], &[3., 4., 5., 6.])],
        tt(&ctx, &[3, 2], F32),
        &[("axis", ctx.i64_attr(0))],
    )
    .unwrap();
    assert_eq!(cc, Tensor::f32(&[3, 2], &[1., 2., 3., 4., 5., 6.]));
    // broadcast_to with a dynamic result dim takes the operand's size
    let bc = run_op_in(&ctx, "tensor.broadcast_to", &[Tensor::f32(&[3], &[1., 2., 3.])], tt(&ctx, &[2, -1], F32), &[]).unwrap();
    assert_eq!(bc.shape, vec![2, 3]);
    let err = run_op_raw(&ctx, "tensor.broadcast_to", &[Tensor::f32(&[3], &[1., 2., 3.])], tt(&ctx, &[2, 4], F32), &[]).unwrap_err();
    assert!(err.contains("cannot be broadcast"), "{err}");
    let err = run_op_in(&ctx, "tensor.reshape", &[Tensor::f32(&[3], &[1., 2., 3.])], tt(&ctx, &[-1, -1], F32), &[]).unwrap_err();
    assert!(err.contains("more than one dynamic dim"), "{err}");
    let err = run_op_in(&ctx, "tensor.reshape", &[Tensor::f32(&[3], &[1., 2., 3.])], tt(&ctx, &[2, -1], F32), &[]).unwrap_err();
    assert!(err.contains("cannot reshape 3 elements"), "{err}");
    // slicing past the run-time size
    let err = run_op_raw(
        &ctx,
        "tensor.slice",
        &[Tensor::f32(&[2], &[1., 2.])],
        tt(&ctx, &[3], F32),
        &[("start", ctx.dense_i64_array(&[0])), ("limit", ctx.dense_i64_array(&[3])), ("stride", ctx.dense_i64_array(&[1]))],
    )
    .unwrap_err();
    assert!(err.contains("out of range for the run-time size 2"), "{err}");
}

#[test]
fn constants_every_type() {
    let ctx = crate::context();
    for e in ElemType::ALL {
        let x = match e {
            Str => Tensor::strs(&[3], &["x", "", "ζ"]),
            I1 => Tensor::bool(&[3], &[true, false, true]),
            _ => t(e, &[3], &[1.5f64.min(if e.is_int() { 1. } else { 1.5 }), -2., 0.]),
        };
        let attr = tensor_to_attr(&ctx, &x);
        assert_eq!(tensor_from_attr(&ctx, attr).unwrap(), x, "{e}");
        if e != Str {
            let got = run_op_in(&ctx, "tensor.constant", &[], ty_of(&ctx, &x), &[("value", attr)]).unwrap();
            assert_eq!(got, x, "{e}");
        }
        // splats: equal elements intern as a splat and expand again
        let s = x.take(vec![2, 2], &[1, 1, 1, 1]);
        let sa = tensor_to_attr(&ctx, &s);
        assert!(matches!(ctx.attr_kind(sa), xcs_ir::AttrKind::DenseElements { data: xcs_ir::attrs::DenseData::Splat(_) | xcs_ir::attrs::DenseData::Strings(_), .. }));
        assert_eq!(tensor_from_attr(&ctx, sa).unwrap(), s, "{e}");
    }
}

#[test]
fn fused_region_runs() {
    let ctx = crate::context();
    let src = r#"
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = tensor.fused %a, %b : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):
    %s = tensor.add %x, %y : tensor<3xf32>
    %m = tensor.mul %s, %y : tensor<3xf32>
    tensor.yield %m, %s : (tensor<3xf32>, tensor<3xf32>) -> ()
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
"#;
    let out = run_src(&ctx, src, "f", vec![Tensor::f32(&[3], &[1., 2., 3.]).into(), Tensor::f32(&[3], &[2., 2., 2.]).into()]).unwrap();
    assert_eq!(out[0].as_tensor().unwrap(), &Tensor::f32(&[3], &[6., 8., 10.]));
    assert_eq!(out[1].as_tensor().unwrap(), &Tensor::f32(&[3], &[3., 4., 5.]));
}

#[test]
fn dynamic_dims_are_checked_at_run_time() {
    let ctx = crate::context();
    let src = r#"
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = tensor.add %a, %b : tensor<?xf32>
  return %s : tensor<?xf32>
}
"#;
    let m = parse(&ctx, src);
    let ok = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1., 2.]).into(), Tensor::f32(&[2], &[3., 4.]).into()]).unwrap();
    assert_eq!(ok[0].as_tensor().unwrap(), &Tensor::f32(&[2], &[4., 6.]));
    let err = run_function(&ctx, &m, "f", vec![Tensor::f32(&[2], &[1., 2.]).into(), Tensor::f32(&[3], &[3., 4., 5.]).into()]).unwrap_err();
    assert_eq!(err.message, "'tensor.add' op shapes [2] and [3] do not broadcast (dimension 2 vs 3)");
    assert_eq!(err.loc, loc_of(&ctx, src, "tensor.add %a"));
    // matmul with dynamic K that does not match at run time
    let src = r#"
func.func @mm(%a: tensor<2x?xf32>, %b: tensor<?x2xf32>) -> tensor<2x2xf32> {
  %r = tensor.matmul %a, %b : (tensor<2x?xf32>, tensor<?x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
"#;
    let err = run_src(&ctx, src, "mm", vec![Tensor::f32(&[2, 3], &[0.; 6]).into(), Tensor::f32(&[2, 2], &[0.; 4]).into()]).unwrap_err();
    assert!(err.message.contains("contraction dimensions differ"), "{}", err.message);
}

#[test]
fn declared_result_types_are_checked() {
    // an op whose declared result type disagrees with what it computes (a pass bug) is caught
    let ctx = crate::context();
    let err = run_op_raw(&ctx, "tensor.add", &[Tensor::f32(&[2], &[1., 2.]), Tensor::f32(&[2], &[1., 2.])], tt(&ctx, &[3], F32), &[])
        .unwrap_err();
    assert!(err.starts_with("'tensor.add' op result #0: produced a value of type tensor<2xf32> where '"), "{err}");
}


