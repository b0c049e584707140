//! The reference interpreter as the oracle of the tensor folders: every function of the lit
//! test `test/Dialect/tensor/canonicalize.mlir` runs on random inputs before and after
//! `canonicalize`, and must give the same results bit for bit (`-0.0` differs from `0.0`), or fail at run time
//! in both (an integer division by zero must stay an error, not become a constant). `?` dims
//! of arguments get size 3 (some functions then fail to broadcast at run time, before and
//! after alike). Float arguments of the last seed are -0.0, NaN, infinities and a subnormal.

use xcs::Compiler;
use xcs_dialects::interp::{random_tensor, ElemType, Interpreter, RtValue, Tensor};
use xcs_ir::{Module, TypeKind, DYNAMIC};

const LIT: &str = include_str!("../../test/Dialect/tensor/canonicalize.mlir");
/// Seeds per function; the last one gives float arguments the special values below.
const SEEDS: u64 = 5;
const SPECIAL: u64 = SEEDS - 1;
/// Where float identities go wrong if they are not exact.
const SPECIAL_FLOATS: [f64; 8] = [-0.0, 0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0, -2.5, 1e-40];
/// Functions the interpreter cannot run in test time: `@work_limit` is 256^4 multiply-adds
/// (that is what it tests: the fold refuses that much work).
const SKIP: &[&str] = &["work_limit"];

fn inputs(xcs: &Compiler, m: &Module, name: &str, seed: u64) -> Vec<RtValue> {
    let ctx = &xcs.ctx;
    let (ins, _) = Interpreter::new(ctx, m).signature(name).expect("function signature");
    ins.iter()
        .enumerate()
        .map(|(i, &t)| {
            let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(t) else {
                panic!("@{name}: argument #{i} is not a tensor")
            };
            let dims: Vec<usize> = shape
                .iter()
                .map(|&d| if d == DYNAMIC { 3 } else { d as usize })
                .collect();
            let elem = ElemType::from_type(ctx, *elem).expect("element type");
            if seed == SPECIAL && elem.is_float() {
                let n: usize = dims.iter().product();
                let v: Vec<f64> = (0..n).map(|k| SPECIAL_FLOATS[(k + i) % SPECIAL_FLOATS.len()]).collect();
                return RtValue::Tensor(Tensor::from_f64s(elem, &dims, &v).expect("special values"));
            }
            RtValue::Tensor(random_tensor(elem, &dims, seed * 1000 + i as u64))
        })
        .collect()
}

#[test]
fn canonicalize_preserves_results() {
    let xcs = Compiler::new();
    let before = xcs
        .parse_named("canonicalize.mlir", LIT)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut after = before.clone();
    xcs.run(&mut after, "builtin.module(func.func(canonicalize))")
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = Interpreter::new(&xcs.ctx, &before)
        .function_names()
        .into_iter()
        .map(String::from)
        .collect();
    assert!(names.len() >= 15, "the lit test has {} functions", names.len());
    let (mut compared, mut both_failed) = (0, 0);
    for name in names.iter().filter(|n| !SKIP.contains(&n.as_str())) {
        for seed in 0..SEEDS {
            let args = inputs(&xcs, &before, name, seed);
            let want = Interpreter::new(&xcs.ctx, &before).call(name, args.clone());
            let got = Interpreter::new(&xcs.ctx, &after).call(name, args);
            match (want, got) {
                (Ok(want), Ok(got)) => {
                    assert_eq!(want.len(), got.len(), "@{name}");
                    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                        let same = match (g, w) {
                            // bitwise: -0.0 is not 0.0, NaNs are equal when their bits are
                            (RtValue::Tensor(g), RtValue::Tensor(w)) => g.bit_eq(w),
                            _ => g.allclose(w, 0.0, 0.0).is_ok(),
                        };
                        assert!(
                            same,
                            "@{name} (seed {seed}) result #{i} changed by canonicalize:\n got {g}\n want {w}"
                        );
                    }
                    compared += 1;
                }
                (Err(_), Err(_)) => both_failed += 1,
                (Ok(_), Err(e)) => panic!("@{name} (seed {seed}) fails only after canonicalize: {e}"),
                (Err(e), Ok(_)) => panic!("@{name} (seed {seed}) fails only before canonicalize: {e}"),
            }
        }
    }
    // the run-time error function fails every time; a few dynamic ones fail to broadcast
    assert!(
        compared >= 15 * SEEDS as usize,
        "only {compared} runs compared ({both_failed} failed in both)"
    );
    assert!(
        both_failed >= SEEDS as usize,
        "the run-time errors did not fail ({both_failed})"
    );
}
