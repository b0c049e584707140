//! Differential tests of the LLVM backend against the reference interpreter (the oracle): every
//! tensor op for every element type it takes, static and dynamic sizes, `tensor.fused` regions,
//! control flow and calls, the lit suite's programs, seeded random op chains, special values
//! and run-time errors, the compile cache, the buffer plan, threads and leaks (the runtime's
//! live-allocation counter). One test binary: LLVM-linked binaries are slow to link.

use std::path::Path;
use std::sync::Mutex;

use xcs_dialects::interp::{random_tensor, ElemType, Interpreter, RtValue, Scalar, Tensor};
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::{Context, Module, TypeKind, DYNAMIC};
use xcs_lowering::{runtime, Jit, MatmulKernel, Options};

mod spmd;

/// Tests share the runtime's global allocation counter and thread pool: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const FLOATS: [&str; 4] = ["f16", "bf16", "f32", "f64"];
const INTS: [&str; 4] = ["i8", "i16", "i32", "i64"];
const NUMERIC: [&str; 8] = ["f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64"];
const ALL: [&str; 9] = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64"];

fn opts() -> Options {
    let mut o = Options::host();
    o.threads = 1;
    o
}

/// [`opts`] for a CPU without AVX-512 (x86-64-v3: the scalar and 8-lane paths of code that has
/// a 16-lane AVX-512 form).
fn without_avx512() -> Options {
    let mut o = opts();
    o.cpu = "x86-64-v3".into();
    o.features = String::new();
    o
}

/// The f32 tensor of a JIT result.
fn f32_data(v: &RtValue) -> Vec<f32> {
    match v {
        RtValue::Tensor(Tensor {
            data: xcs_dialects::interp::TensorData::F32(v),
            ..
        }) => v.clone(),
        other => panic!("not an f32 tensor: {other:?}"),
    }
}


fn parse(ctx: &Context, src: &str) -> Module {
    match parse_module(ctx, src, "test.mlir", &ParseOptions::default()) {
        Ok(m) => {
            if let Err(ds) = xcs_ir::verifier::verify_module(ctx, &m, false) {
                panic!(
                    "does not verify: {:?}\n{src}",
                    ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
                );
            }
            m
        }
        Err(d) => panic!("does not parse: {}\n{src}", d.message),
    }
}

fn tol(e: ElemType) -> (f64, f64) {
    match e {
        ElemType::F16 => (2e-3, 1e-4),
        ElemType::BF16 => (1.6e-2, 1e-3),
        ElemType::F32 => (1e-5, 1e-7),
        ElemType::F64 => (1e-12, 1e-14),
        _ => (0.0, 0.0),
    }
}

/// Compares a JIT result with the interpreter's: per element within `rtol` of the expected
/// value, or within `rtol` of the result's largest magnitude (a long chain of f32 matmuls that
/// cancels to a small element carries the rounding of the large terms it summed, and the JIT
/// sums in another order than the interpreter), or `atol`.
fn same(got: &RtValue, want: &RtValue) -> Result<(), String> {
    match (got, want) {
        (RtValue::Tensor(a), RtValue::Tensor(b)) => {
            let (r, t) = tol(b.elem());
            let largest = b.data.to_f64s().map_or(0.0, |v| v.iter().filter(|x| x.is_finite()).fold(0.0f64, |m, x| m.max(x.abs())));
            a.allclose(b, r, t.max(r * largest))
        }
        (RtValue::Scalar(a), RtValue::Scalar(b)) if a == b => Ok(()),
        _ => Err(format!("got {got:?}, expected {want:?}")),
    }
}

/// Outcome of one differential run.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Both ran and agree.
    Same,
    /// Both failed at run time (messages: JIT, interpreter).
    BothFailed(String, String),
}

/// Runs `name` of `src` on `args` with the interpreter and the JIT; panics when they disagree.
/// Also checks that the JIT leaves no buffer allocated.
fn diff_run(ctx: &Context, m: &Module, name: &str, args: &[RtValue], jit: &Jit, label: &str) -> Outcome {
    let want = Interpreter::new(ctx, m).call(name, args.to_vec());
    let before = runtime::live_allocations();
    let got = jit.call(name, args);
    let after = runtime::live_allocations();
    assert_eq!(before, after, "{label}: the JIT leaked {} buffers", after - before);
    match (got, want) {
        (Ok(g), Ok(w)) => {
            assert_eq!(g.len(), w.len(), "{label}: result count");
            for (i, (a, b)) in g.iter().zip(&w).enumerate() {
                if let Err(e) = same(a, b) {
                    panic!("{label}: result #{i} differs: {e}\n  jit:    {a}\n  interp: {b}");
                }
            }
            Outcome::Same
        }
        (Err(g), Err(w)) => Outcome::BothFailed(g.message(), w.message),
        (Ok(g), Err(w)) => panic!(
            "{label}: the interpreter failed ({}) but the JIT returned {g:?}",
            w.message
        ),
        (Err(g), Ok(_)) => panic!("{label}: the JIT failed: {g}"),
    }
}

/// Element type from its name.
fn elem(name: &str) -> ElemType {
    ElemType::ALL.into_iter().find(|e| e.name() == name).unwrap()
}

fn rand(e: &str, shape: &[usize], seed: u64) -> RtValue {
    RtValue::Tensor(random_tensor(elem(e), shape, seed))
}

/// Random arguments for the static argument types of `name` (dynamic dims get `dyn_size`).
fn args_for(ctx: &Context, m: &Module, name: &str, seed: u64, dyn_size: usize) -> Option<Vec<RtValue>> {
    let sig = Interpreter::new(ctx, m).signature(name)?;
    let mut out = Vec::new();
    for (i, &t) in sig.0.iter().enumerate() {
        match ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, .. } => {
                let e = ElemType::from_type(ctx, *elem)?;
                if e == ElemType::Str {
                    return None;
                }
                let s: Vec<usize> = shape
                    .iter()
                    .map(|&d| if d == DYNAMIC { dyn_size } else { d as usize })
                    .collect();
                out.push(RtValue::Tensor(random_tensor(
                    e,
                    &s,
                    seed.wrapping_mul(31).wrapping_add(i as u64),
                )));
            }
            TypeKind::Integer { width, .. } if matches!(width, 1 | 8 | 16 | 32 | 64) => {
                out.push(RtValue::Scalar(
                    Scalar::new(
                        ((seed + i as u64) % 5) as i128 - 2 + if *width == 1 { 2 } else { 0 },
                        *width,
                    )
                    .clamp_bool(*width),
                ));
            }
            _ => return None,
        }
    }
    Some(out)
}

trait ClampBool {
    fn clamp_bool(self, width: u32) -> Scalar;
}
impl ClampBool for Scalar {
    fn clamp_bool(self, width: u32) -> Scalar {
        if width == 1 {
            Scalar::new((self.value != 0) as i128 & 1, 1)
        } else {
            self
        }
    }
}

/// Differential run of function `f` in `src` on random inputs (several seeds).
fn check(src: &str, seeds: u64) -> Vec<Outcome> {
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    (0..seeds)
        .map(|s| {
            let args = args_for(&ctx, &m, "f", s + 1, 3).expect("random arguments");
            diff_run(&ctx, &m, "f", &args, &jit, &format!("seed {s} of\n{src}"))
        })
        .collect()
}

fn check_args(src: &str, args: &[RtValue]) -> Outcome {
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    diff_run(&ctx, &m, "f", args, &jit, src)
}

// ---------------------------------------------------------------------------- elementwise

#[test]
fn binary_ops_every_numeric_type() {
    let _g = lock();
    for op in ["add", "sub", "mul", "div", "max", "min", "pow", "rem"] {
        for t in NUMERIC {
            let int = INTS.contains(&t);
            // Integer div/rem/pow get a positive rhs (errors are tested separately).
            let rhs = if int && (op == "div" || op == "pow" || op == "rem") {
                format!(
                    "%ya = tensor.abs %y : tensor<3x{t}>\n  %one = tensor.constant {{value = dense<1> : tensor<3x{t}>}} : tensor<3x{t}>\n  %y2 = tensor.add %ya, %one : tensor<3x{t}>"
                )
            } else {
                format!("%y2 = tensor.add %y, %y : tensor<3x{t}>")
            };
            let src = format!(
                "func.func @f(%x: tensor<4x3x{t}>, %y: tensor<3x{t}>) -> tensor<4x3x{t}> {{\n  {rhs}\n  %r = tensor.{op} %x, %y2 : (tensor<4x3x{t}>, tensor<3x{t}>) -> tensor<4x3x{t}>\n  return %r : tensor<4x3x{t}>\n}}"
            );
            let out = check(&src, 3);
            assert!(out.iter().all(|o| *o == Outcome::Same), "{op} {t}: {out:?}");
        }
    }
}

#[test]
fn binary_ops_dynamic_broadcast() {
    let _g = lock();
    for t in ["f32", "i32", "bf16"] {
        for op in ["add", "mul", "max"] {
            let src = format!(
                "func.func @f(%x: tensor<?x?x{t}>, %y: tensor<?x{t}>) -> tensor<?x?x{t}> {{\n  %r = tensor.{op} %x, %y : (tensor<?x?x{t}>, tensor<?x{t}>) -> tensor<?x?x{t}>\n  return %r : tensor<?x?x{t}>\n}}"
            );
            // [2,5] with [5], [2,1] with [5], [2,5] with [1]; and a mismatch.
            for (a, b, ok) in [
                (vec![2, 5], vec![5], true),
                (vec![2, 1], vec![5], true),
                (vec![2, 5], vec![1], true),
                (vec![2, 4], vec![5], false),
            ] {
                let out = check_args(&src, &[rand(t, &a, 1), rand(t, &b, 2)]);
                assert_eq!(out == Outcome::Same, ok, "{op} {t} {a:?} {b:?}: {out:?}");
            }
        }
    }
}

#[test]
fn unary_ops() {
    let _g = lock();
    for (op, types) in [
        ("neg", &NUMERIC[..]),
        ("abs", &NUMERIC[..]),
        ("relu", &NUMERIC[..]),
        ("exp", &FLOATS[..]),
        ("log", &FLOATS[..]),
        ("tanh", &FLOATS[..]),
        ("sigmoid", &FLOATS[..]),
        ("silu", &FLOATS[..]),
        ("sqrt", &FLOATS[..]),
        ("rsqrt", &FLOATS[..]),
        ("gelu_none", &FLOATS[..]),
        ("gelu_tanh", &FLOATS[..]),
        ("sin", &FLOATS[..]),
        ("cos", &FLOATS[..]),
        ("erf", &FLOATS[..]),
        ("floor", &NUMERIC[..]),
        ("ceil", &NUMERIC[..]),
        ("round", &NUMERIC[..]),
        ("sign", &NUMERIC[..]),
    ] {
        for t in types {
            let (name, attr) = match op {
                "gelu_none" => ("gelu", " {approximate = \"none\"}"),
                "gelu_tanh" => ("gelu", " {approximate = \"tanh\"}"),
                o => (o, ""),
            };
            let src = format!(
                "func.func @f(%x: tensor<5x7x{t}>) -> tensor<5x7x{t}> {{\n  %r = tensor.{name} %x{attr} : tensor<5x7x{t}>\n  return %r : tensor<5x7x{t}>\n}}"
            );
            let out = check(&src, 2);
            assert!(out.iter().all(|o| *o == Outcome::Same), "{op} {t}: {out:?}");
        }
    }
}

#[test]
fn cmp_and_select_every_type() {
    let _g = lock();
    for t in ALL {
        for p in ["eq", "ne", "lt", "le", "gt", "ge"] {
            let src = format!(
                "func.func @f(%x: tensor<6x{t}>, %y: tensor<6x{t}>) -> tensor<6xi1> {{\n  %r = tensor.cmp %x, %y {{predicate = \"{p}\"}} : (tensor<6x{t}>, tensor<6x{t}>) -> tensor<6xi1>\n  return %r : tensor<6xi1>\n}}"
            );
            // Equal operands half of the time: x vs x-shuffled via the same seed.
            assert!(check(&src, 3).iter().all(|o| *o == Outcome::Same), "cmp {p} {t}");
        }
        let src = format!(
            "func.func @f(%c: tensor<2x3xi1>, %a: tensor<3x{t}>, %b: tensor<2x1x{t}>) -> tensor<2x3x{t}> {{\n  %r = tensor.select %c, %a, %b : (tensor<2x3xi1>, tensor<3x{t}>, tensor<2x1x{t}>) -> tensor<2x3x{t}>\n  return %r : tensor<2x3x{t}>\n}}"
        );
        assert!(check(&src, 3).iter().all(|o| *o == Outcome::Same), "select {t}");
    }
}

#[test]
fn cast_every_pair() {
    let _g = lock();
    for from in ALL {
        for to in ALL {
            // Scale floats up so float -> int casts saturate and round.
            let pre = if FLOATS.contains(&from) {
                format!("%s = tensor.constant {{value = dense<3.0e2> : tensor<8x{from}>}} : tensor<8x{from}>\n  %x2 = tensor.mul %x, %s : tensor<8x{from}>")
            } else {
                format!("%x2 = tensor.add %x, %x : tensor<8x{from}>")
            };
            let pre = if from == "i1" {
                "%x2 = tensor.select %x, %x, %x : (tensor<8xi1>, tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>"
                    .to_string()
            } else {
                pre
            };
            let src = format!(
                "func.func @f(%x: tensor<8x{from}>) -> tensor<8x{to}> {{\n  {pre}\n  %r = tensor.cast %x2 : (tensor<8x{from}>) -> tensor<8x{to}>\n  return %r : tensor<8x{to}>\n}}"
            );
            assert!(
                check(&src, 2).iter().all(|o| *o == Outcome::Same),
                "cast {from} -> {to}"
            );
        }
    }
}

#[test]
fn cast_rounding_and_saturation() {
    let _g = lock();
    let vals = [
        0.0,
        -0.0,
        1.5,
        2.5,
        -2.5,
        1e10,
        -1e10,
        65519.0,
        65520.0,
        3.4e38,
        1e-8,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        127.9,
        -128.9,
        1.0 + 2f64.powi(-9) + 2f64.powi(-30),
    ];
    let x = RtValue::Tensor(Tensor::f64(&[vals.len()], &vals));
    for to in ["f16", "bf16", "f32", "i1", "i8", "i16", "i32", "i64"] {
        let n = vals.len();
        let src = format!("func.func @f(%x: tensor<{n}xf64>) -> tensor<{n}x{to}> {{\n  %r = tensor.cast %x : (tensor<{n}xf64>) -> tensor<{n}x{to}>\n  return %r : tensor<{n}x{to}>\n}}");
        assert_eq!(check_args(&src, std::slice::from_ref(&x)), Outcome::Same, "f64 -> {to}");
    }
    let ints = [
        i64::MAX,
        i64::MIN,
        (1 << 53) + 1,
        (1 << 60) + (1 << 36) + 1,
        -((1 << 40) + (1 << 32)),
        65520,
        65519,
        300,
        -129,
    ];
    let x = RtValue::Tensor(Tensor::i64(&[ints.len()], &ints));
    for to in ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32"] {
        let n = ints.len();
        let src = format!("func.func @f(%x: tensor<{n}xi64>) -> tensor<{n}x{to}> {{\n  %r = tensor.cast %x : (tensor<{n}xi64>) -> tensor<{n}x{to}>\n  return %r : tensor<{n}x{to}>\n}}");
        assert_eq!(check_args(&src, std::slice::from_ref(&x)), Outcome::Same, "i64 -> {to}");
    }
}

#[test]
fn special_float_values() {
    let _g = lock();
    let a = [
        0.0f32,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        1.0,
        -1.0,
        0.0,
        -0.0,
        f32::NAN,
    ];
    let b = [
        -0.0f32,
        0.0,
        1.0,
        f32::INFINITY,
        2.0,
        f32::NAN,
        0.0,
        0.0,
        -0.0,
        f32::NAN,
    ];
    let n = a.len();
    let x = RtValue::Tensor(Tensor::f32(&[n], &a));
    let y = RtValue::Tensor(Tensor::f32(&[n], &b));
    for op in ["max", "min", "div", "add", "sub", "mul", "pow"] {
        let src = format!("func.func @f(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.{op} %x, %y : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
        assert_eq!(check_args(&src, &[x.clone(), y.clone()]), Outcome::Same, "{op}");
    }
    for op in ["relu", "abs", "neg", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid"] {
        let src = format!("func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.{op} %x : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
        assert_eq!(check_args(&src, std::slice::from_ref(&x)), Outcome::Same, "{op}");
    }
    for p in ["eq", "ne", "lt", "ge"] {
        let src = format!("func.func @f(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xi1> {{\n  %r = tensor.cmp %x, %y {{predicate = \"{p}\"}} : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xi1>\n  return %r : tensor<{n}xi1>\n}}");
        assert_eq!(check_args(&src, &[x.clone(), y.clone()]), Outcome::Same, "cmp {p}");
    }
    // -0.0 and +0.0 order in max/min: bitwise.
    let ctx = xcs_lowering::context();
    let src = "func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n  %a = tensor.max %x, %y : tensor<2xf32>\n  %b = tensor.min %x, %y : tensor<2xf32>\n  return %a, %b : tensor<2xf32>, tensor<2xf32>\n}";
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    let r = jit
        .call(
            "f",
            &[
                RtValue::Tensor(Tensor::f32(&[2], &[-0.0, 0.0])),
                RtValue::Tensor(Tensor::f32(&[2], &[0.0, -0.0])),
            ],
        )
        .unwrap();
    let bits = |v: &RtValue| f32_data(v).iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&r[0]), vec![0, 0]);
    assert_eq!(bits(&r[1]), vec![0x8000_0000, 0x8000_0000]);
}

/// Runs the one-op function `src` (`@f`) on `args` with the JIT and the interpreter and asserts
/// that every f32 result has the same bits (NaNs as NaN), for ops whose numpy definition is
/// exact, signs of zero included.
fn assert_same_bits(ctx: &Context, src: &str, args: &[RtValue], opts: Options) {
    let m = parse(ctx, src);
    let jit = Jit::new(ctx, &m, opts);
    let got = jit.call("f", args).unwrap();
    let want = Interpreter::new(ctx, &m).call("f", args.to_vec()).unwrap();
    let inputs: Vec<Vec<f32>> = args.iter().map(f32_data).collect();
    for (g, w) in got.iter().zip(&want) {
        for (i, (a, b)) in f32_data(g).iter().zip(f32_data(w)).enumerate() {
            let ok = (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
            let ins: Vec<f32> = inputs.iter().map(|v| v[i]).collect();
            assert!(ok, "{src}\n  at {i} (inputs {ins:?}): jit {a:e}, interpreter {b:e}");
        }
    }
}

/// `floor`, `ceil`, `round` (halves to even), `sign`, `rem` and `clamp` on f32 special values
/// give exactly the interpreter's (numpy's) bits: NaN, both zeros, infinities, halves.
#[test]
fn exact_new_ops_on_special_values() {
    let _g = lock();
    let vals = [
        0.0f32, -0.0, 0.4, -0.4, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -7.25, 1e-40, -1e-40, 8388607.5, 1e30, -1e30,
        f32::INFINITY, -f32::INFINITY, f32::NAN, f32::MAX, -f32::MAX, f32::MIN_POSITIVE,
    ];
    let n = vals.len();
    let (xs, ys): (Vec<f32>, Vec<f32>) = vals.iter().flat_map(|&a| vals.iter().map(move |&b| (a, b))).unzip();
    let nn = xs.len();
    let x = RtValue::Tensor(Tensor::f32(&[n], &vals));
    let (px, py) = (RtValue::Tensor(Tensor::f32(&[nn], &xs)), RtValue::Tensor(Tensor::f32(&[nn], &ys)));
    let ctx = xcs_lowering::context();
    for o in [opts(), without_avx512()] {
        for op in ["floor", "ceil", "round", "sign"] {
            let src = format!("func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.{op} %x : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
            assert_same_bits(&ctx, &src, std::slice::from_ref(&x), o.clone());
        }
        let src = format!("func.func @f(%x: tensor<{nn}xf32>, %y: tensor<{nn}xf32>) -> tensor<{nn}xf32> {{\n  %r = tensor.rem %x, %y : tensor<{nn}xf32>\n  return %r : tensor<{nn}xf32>\n}}");
        assert_same_bits(&ctx, &src, &[px.clone(), py.clone()], o.clone());
        // clamp(x, lo, hi) over every (x, lo) pair, hi = 1 and hi = lo's neighbour pairs
        let src = format!("func.func @f(%x: tensor<{nn}xf32>, %lo: tensor<{nn}xf32>, %hi: tensor<{nn}xf32>) -> tensor<{nn}xf32> {{\n  %r = tensor.clamp %x, %lo, %hi : tensor<{nn}xf32>\n  return %r : tensor<{nn}xf32>\n}}");
        let ones = RtValue::Tensor(Tensor::f32(&[nn], &vec![1.0; nn]));
        assert_same_bits(&ctx, &src, &[px.clone(), py.clone(), ones], o.clone());
        assert_same_bits(&ctx, &src, &[px.clone(), px.clone(), py.clone()], o.clone());
    }
}

/// f32 `rem` is exact (numpy's float32 remainder, bit for bit) over random operands of every
/// magnitude: quotients below 2^23 (the inline path), far above it (lanes that take `fmodf`),
/// subnormal divisors, and both signs.
#[test]
fn f32_rem_is_exact() {
    let _g = lock();
    let mut next = lcg(0x9E37_79B9_7F4A_7C15);
    let mut random_float = |max_exp: i32| {
        let bits = next() >> 11;
        let e = (bits % (2 * max_exp as u64 + 1)) as i32 - max_exp;
        let m = 1.0 + (bits >> 20) as f64 / (1u64 << 44) as f64;
        let s = if bits & (1 << 19) != 0 { -1.0 } else { 1.0 };
        (s * m * 2f64.powi(e)) as f32
    };
    let n = 20_000;
    let (mut xs, mut ys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (ex, ey) = match i % 4 {
            0 => (20, 20),
            1 => (120, 120),
            2 => (60, 3),
            _ => (10, 140),
        };
        xs.push(random_float(ex));
        ys.push(random_float(ey));
    }
    let ctx = xcs_lowering::context();
    let src = format!("func.func @f(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.rem %x, %y : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
    let args = [RtValue::Tensor(Tensor::f32(&[n], &xs)), RtValue::Tensor(Tensor::f32(&[n], &ys))];
    assert_same_bits(&ctx, &src, &args, opts());
}

/// A fixed-seed 64-bit linear congruential generator (Knuth's MMIX multiplier and increment):
/// the reproducible random numbers of the math tests; callers take the high bits.
fn lcg(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        seed
    }
}

/// Uniform f64s in [0, 1) from [`lcg`] (its top 53 bits).
fn lcg_unit(seed: u64) -> impl FnMut() -> f64 {
    let mut next = lcg(seed);
    move || (next() >> 11) as f64 / (1u64 << 53) as f64
}

/// The error of f32 `got` against the f64 reference `want`, in units in the last place of the
/// f32 nearest `want` (subnormal units below the normal range).
fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let w = want as f32;
    if w.is_infinite() {
        return if got == w { 0.0 } else { f64::INFINITY };
    }
    let exp = if w == 0.0 { -126 } else { (w.abs().to_bits() >> 23) as i32 - 127 };
    let ulp = 2f64.powi(exp.max(-126) - 23);
    (got as f64 - want).abs() / ulp
}

/// f32 `sin`, `cos` and `erf` within 2 ulp of the f64 result for |x| <= 10^4 (the issue's
/// bound; the kernels are within 1.8 (erf 1.1 in 16 lanes, 1.6 in scalar code), `make
/// check-math-ulp` checks every float up to 2^22):
/// 400,000 random arguments and 50,000 up to 2^22, arguments within 2^-20 of
/// multiples of pi/2 (where the reduction must keep its low bits), the neighbourhoods of erf's
/// interval boundaries, and the special values exactly (`sin(-0) = -0`, `erf(±inf) = ±1`,
/// NaN); arguments from 2^17 on (which take libm's path) within 2 ulp too. On the host (AVX-512:
/// the 16-lane function pairs) and on a CPU without AVX-512 (scalar code).
#[test]
fn f32_sin_cos_erf_sweep() {
    let _g = lock();
    let mut unit = lcg_unit(0x2545_F491_4F6C_DD1D);
    let mut xs: Vec<f32> = (0..400_000).map(|i| ((unit() * 2.0 - 1.0) * [1e4, 10.0, 1.0][i % 3]) as f32).collect();
    for k in 1..2000 {
        let c = k as f64 * std::f64::consts::FRAC_PI_2 * if k % 2 == 0 { 1.0 } else { -3.1 };
        let c = c as f32;
        let mut v = c;
        for _ in 0..8 {
            xs.push(v);
            v = f32::from_bits(v.to_bits() + 1);
        }
    }
    // both sides of the scalar form's interval boundaries and of the 16-lane form's (k/4)
    let boundaries = [0.921_875f32, 2.2, 3.9375].into_iter().chain((1..16).map(|k| k as f32 * 0.25));
    for b in boundaries {
        for i in 0..64 {
            for v in [f32::from_bits(b.to_bits() - i), f32::from_bits(b.to_bits() + i)] {
                xs.push(v);
                xs.push(-v);
            }
        }
    }
    xs.extend([0.0, -0.0, 1e-40, -1e-45, f32::MIN_POSITIVE, 1e-5, f32::INFINITY, -f32::INFINITY, f32::NAN]);
    xs.extend([4.2e6, -4.2e6, 1e7, 3.7e9, -1e20, 1.5e38, f32::MAX]);
    // up to 2^22, across the inline path's limit (2^17): large quotients multiply any error of
    // the three-float pi (a wrong low part once cost cos(2709675.5) 1884 ulp), and close
    // approaches to multiples of pi/2 that check-math-ulp found
    xs.extend((0..50_000).map(|_| ((unit() * 2.0 - 1.0) * 4.19e6) as f32));
    xs.extend([2_709_675.5f32, -2_709_675.5, 3_282_879.5, 3_457_487.0, 3_975_710.0]);
    let n = xs.len();
    let x = RtValue::Tensor(Tensor::f32(&[n], &xs));
    let refs: [(&str, fn(f64) -> f64); 3] = [("sin", f64::sin), ("cos", f64::cos), ("erf", libm::erf)];
    let ctx = xcs_lowering::context();
    for o in [opts(), without_avx512()] {
        for (op, r) in refs {
            let src = format!("func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.{op} %x : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
            let m = parse(&ctx, &src);
            let got = Jit::new(&ctx, &m, o.clone()).call("f", std::slice::from_ref(&x)).unwrap();
            let got = f32_data(&got[0]);
            let mut worst = (0.0f64, 0.0f32);
            for (&xi, &g) in xs.iter().zip(&got) {
                let want = r(xi as f64);
                let e = ulp_error(g, want);
                assert!(e <= 2.0, "{op}({xi:e}) = {g:e}, expected {want:e} ({e} ulp, cpu {})", o.cpu);
                if want == 0.0 {
                    assert_eq!(g.to_bits(), (want as f32).to_bits(), "{op}({xi:e}): the sign of zero");
                }
                if e > worst.0 {
                    worst = (e, xi);
                }
            }
            eprintln!("{op} ({}): worst {:.3} ulp at {:e}", o.cpu, worst.0, worst.1);
        }
    }
}

/// f32 `log` within 1 ulp of the f64 result on both paths (AVX-512: `vgetmantps`/`vgetexpps`
/// and a 32-entry table; without: the scalar polynomial the loop vectorizer widens): 300,000
/// random finite floats of every exponent (subnormals too), the 4096 floats on each side of 1
/// (where the result is `r` alone), both sides of the table's interval boundaries at several
/// exponents, and the special values (`log 0 = log -0 = -inf`, `log inf = inf`, negative
/// arguments and NaN give NaN).
#[test]
fn f32_log_within_one_ulp_on_both_paths() {
    let _g = lock();
    let mut next = lcg(0x9E37_79B9_7F4A_7C15);
    let mut xs: Vec<f32> = (0..300_000).map(|_| f32::from_bits((next() >> 32) as u32 % 0x7f80_0000)).collect();
    for i in 1..=4096u32 {
        xs.push(f32::from_bits(1f32.to_bits() + i));
        xs.push(f32::from_bits(1f32.to_bits() - i));
    }
    let edges = (0..=16).map(|j| 1.0 + j as f32 / 32.0).chain((0..16).map(|j| 0.75 + j as f32 / 64.0));
    for b in edges {
        for scale in [1.0f32, 2.0, 0.5, 1024.0, 1e-30, 1e30] {
            let c = b * scale;
            for i in 0..8u32 {
                xs.extend([f32::from_bits(c.to_bits() + i), f32::from_bits(c.to_bits() - i)]);
            }
        }
    }
    xs.extend([0.0, -0.0, 1.0, f32::INFINITY, -f32::INFINITY, f32::NAN, -1.0, -1e-40, 1e-45, f32::MIN_POSITIVE]);
    xs.extend([f32::MAX, std::f32::consts::E, 2.0, 0.5]);
    let n = xs.len();
    let x = RtValue::Tensor(Tensor::f32(&[n], &xs));
    let src = format!("func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.log %x : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, &src);
    for o in [opts(), without_avx512()] {
        let got = Jit::new(&ctx, &m, o.clone()).call("f", std::slice::from_ref(&x)).unwrap();
        let mut worst = (0.0f64, 0.0f32);
        for (&xi, g) in xs.iter().zip(f32_data(&got[0])) {
            let want = (xi as f64).ln();
            let e = ulp_error(g, want);
            assert!(e <= 1.0, "log({xi:e}) = {g:e}, expected {want:e} ({e} ulp, cpu {})", o.cpu);
            if e > worst.0 {
                worst = (e, xi);
            }
        }
        eprintln!("log ({}): worst {:.3} ulp at {:e}", o.cpu, worst.0, worst.1);
    }
}

/// A JIT argument's bytes are placed as the runtime's own buffers: 64-byte aligned, and from
/// 4 MiB on 2 MiB aligned (huge pages where the kernel allows), with the bytes unchanged.
#[test]
fn argument_bytes_are_aligned_like_runtime_buffers() {
    for (n, align) in [(1usize, 64usize), (1000, 64), ((4 << 20) - 1, 64), (4 << 20, 2 << 20), (9 << 20, 2 << 20)] {
        let bytes: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let a = runtime::ArgBytes::new(&bytes);
        assert_eq!(a.as_ptr() as usize % align, 0, "{n} bytes");
        // SAFETY: `a` holds `n` bytes.
        let copy = unsafe { std::slice::from_raw_parts(a.as_ptr() as *const u8, n) };
        assert!(copy == bytes.as_slice(), "{n} bytes");
    }
}

/// A freed result buffer of 4 MiB or more goes to the next call that asks for about its size
/// (the runtime's buffer cache): the second call's result is the first's buffer, for results of
/// 4, 8, 12 and 64 MiB (2 MiB aligned, so their usable sizes carry up to 2 MiB of slack; before
/// the cache allowed for it, no buffer under 16 MiB was reused).
#[test]
fn result_buffers_are_reused_across_calls() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    for n in [1usize << 20, 2 << 20, 3 << 20, 16 << 20] {
        let src = format!(
            "func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.neg %x : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}"
        );
        let m = parse(&ctx, &src);
        let jit = Jit::new(&ctx, &m, opts());
        let x = RtValue::Tensor(Tensor::f32(&[n], &vec![1.5; n]));
        let compiled = jit.compile_for("f", std::slice::from_ref(&x)).unwrap();
        let bytes = runtime::ArgBytes::new(&vec![0u8; n * 4]);
        let mut shape = [n as i64];
        let desc = runtime::XcsTensor {
            data: bytes.as_ptr(),
            rank: 1,
            shape: shape.as_mut_ptr(),
            strides: std::ptr::null_mut(),
            dtype: 3,
        };
        let buffer_of_a_call = || {
            // SAFETY: `desc` points at `bytes`, n f32 values.
            let mut r = unsafe { compiled.call_descriptors(std::slice::from_ref(&desc)) }.unwrap();
            let p = r[0].data as usize;
            runtime::release(&mut r[0]);
            p
        };
        let first = buffer_of_a_call();
        assert_eq!(buffer_of_a_call(), first, "{} MiB result", n * 4 >> 20);
    }
}

/// The sweep points of the inline f32 math: special values, the clamps' edges, many
/// magnitudes of both signs and a fine grid around 0.
fn math_sweep_points() -> Vec<f32> {
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        f32::MIN_POSITIVE,
        1e-40,
        1e-45,
        f32::MAX,
        -f32::MAX,
        88.7,
        88.72,
        88.73,
        89.5,
        -87.3,
        -88.0,
        -100.0,
        -103.5,
        -104.5,
        -110.0,
        0.624,
        0.625,
        0.626,
        9.0,
        9.1,
        20.0,
        44.0,
        45.0,
    ];
    for k in -30..=2 {
        for m in [1.0f64, 1.37, 2.5, 3.9, 7.3] {
            let v = m * 10f64.powi(k);
            xs.push(v as f32);
            xs.push(-v as f32);
        }
    }
    for i in -400..=400 {
        xs.push(i as f32 * 0.0251);
    }
    xs
}

/// `got` against f64 references `want` rounded to f32: NaN for NaN, infinities and zeros
/// exactly (the sign of zero too), else within 1e-6 relative (1e-38 absolute, the
/// subnormals); returns the worst relative error on normal results. `what(i)` names case `i`.
fn check_f32_math(got: &[f32], want: &[f64], what: &dyn Fn(usize) -> String) -> f64 {
    let mut worst = 0.0f64;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let w = w as f32;
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() || w == 0.0 {
            g == w && (w != 0.0 || g.is_sign_negative() == w.is_sign_negative())
        } else {
            let err = (g as f64 - w as f64).abs();
            if w.abs() >= f32::MIN_POSITIVE {
                worst = worst.max(err / (w as f64).abs());
            }
            err <= 1e-6 * (w as f64).abs() + 1e-38
        };
        assert!(ok, "{} = {g:e}, expected {w:e}", what(i));
    }
    worst
}

/// The inline f32 math (exp, tanh, sigmoid, silu, gelu tanh form) over many magnitudes and
/// the special values, against f64 references rounded to f32: relative error <= 1e-6 (or
/// 1e-38 absolute, the subnormals), NaN for NaN, the sign of zeros, the infinite limits.
#[test]
fn f32_math_sweep() {
    let _g = lock();
    let xs = math_sweep_points();
    let n = xs.len();
    let x = RtValue::Tensor(Tensor::f32(&[n], &xs));
    let refs: [(&str, &str, fn(f64) -> f64); 7] = [
        ("exp", "", |x| x.exp()),
        ("log", "", |x| x.ln()),
        ("tanh", "", |x| x.tanh()),
        ("sigmoid", "", |x| 1.0 / (1.0 + (-x).exp())),
        ("silu", "", |x| x / (1.0 + (-x).exp())),
        // The argument -2 t in f32 as the kernel computes it (its rounding is conditioning,
        // not the math's error), the rest in f64.
        ("gelu", " {approximate = \"tanh\"}", |x| {
            let xf = x as f32;
            let k = (-2.0 * (2.0 / std::f64::consts::PI).sqrt()) as f32;
            let t = k * (xf + 0.044715f32 * xf * xf * xf);
            x / (1.0 + (t as f64).exp())
        }),
        // erf form, in f64 with erfc (-inf * erfc(inf) = NaN, as the formula gives it).
        ("gelu", " {approximate = \"none\"}", |x| {
            0.5 * x * libm::erfc(-x / std::f64::consts::SQRT_2)
        }),
    ];
    let ctx = xcs_lowering::context();
    for (op, attr, r) in refs {
        let src = format!("func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.{op} %x{attr} : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}");
        let m = parse(&ctx, &src);
        let jit = Jit::new(&ctx, &m, opts());
        let got = jit.call("f", std::slice::from_ref(&x)).unwrap();
        let want: Vec<f64> = xs.iter().map(|&x| r(x as f64)).collect();
        let worst = check_f32_math(&f32_data(&got[0]), &want, &|i| format!("{op}({:e})", xs[i]));
        eprintln!("{op}: worst relative error {worst:e}");
        assert!(worst < 1e-6, "{op}: worst relative error {worst:e}");
    }
}

/// In a fused nest, products of `tanh` and `sigmoid` results share one division
/// (`math::Quotient`): `tanh(u) sigmoid(v)` one, `sigmoid(u) tanh(v) sigmoid(v)` one, where
/// a factor has a second use (here `tanh(u)`, also yielded) its product divides as before
/// (two), and five `tanh` factors two (a group's bounds must stay below 2^128: four). Every
/// result within 1e-6 relative of f64 over the sweep points paired with each other (NaN,
/// infinities, signed zeros, underflow of the sigmoid's numerator).
#[test]
fn fused_products_of_quotients_share_one_division() {
    let _g = lock();
    let pts = math_sweep_points();
    let specials: Vec<f32> = pts.iter().copied().take(28).collect();
    let mut us: Vec<f32> = specials.iter().flat_map(|&u| specials.iter().map(move |_| u)).collect();
    let mut vs: Vec<f32> = specials.iter().flat_map(|_| specials.iter().copied()).collect();
    us.extend(&pts);
    vs.extend(pts.iter().rev());
    let n = us.len();
    let ty = format!("tensor<{n}xf32>");
    let src = format!(
        "func.func @f(%u: {ty}, %v: {ty}) -> ({ty}, {ty}, {ty}, {ty}, {ty}) {{
  %r:5 = tensor.fused %u, %v : ({ty}, {ty}) -> ({ty}, {ty}, {ty}, {ty}, {ty}) {{
  ^bb0(%a: {ty}, %b: {ty}):
    %t = tensor.tanh %a : {ty}
    %s = tensor.sigmoid %b : {ty}
    %p = tensor.mul %t, %s : {ty}
    %s2 = tensor.sigmoid %a : {ty}
    %t2 = tensor.tanh %b : {ty}
    %p2 = tensor.mul %s2, %t2 : {ty}
    %s3 = tensor.sigmoid %b : {ty}
    %p3 = tensor.mul %p2, %s3 : {ty}
    %t4 = tensor.tanh %a : {ty}
    %s4 = tensor.sigmoid %b : {ty}
    %p4 = tensor.mul %t4, %s4 : {ty}
    %f1 = tensor.tanh %a : {ty}
    %f2 = tensor.tanh %b : {ty}
    %f3 = tensor.tanh %a : {ty}
    %f4 = tensor.tanh %b : {ty}
    %f5 = tensor.tanh %a : {ty}
    %q1 = tensor.mul %f1, %f2 : {ty}
    %q2 = tensor.mul %q1, %f3 : {ty}
    %q3 = tensor.mul %q2, %f4 : {ty}
    %q4 = tensor.mul %q3, %f5 : {ty}
    tensor.yield %p, %p3, %p4, %t4, %q4 : {ty}
  }}
  return %r#0, %r#1, %r#2, %r#3, %r#4 : {ty}, {ty}, {ty}, {ty}, {ty}
}}"
    );
    let (ir, _) = lowered(&src, "f");
    assert_eq!(ir.matches(" fdiv ").count(), 6, "1 + 1 + 2 + 2 divisions:\n{ir}");
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, &src);
    let args = [RtValue::Tensor(Tensor::f32(&[n], &us)), RtValue::Tensor(Tensor::f32(&[n], &vs))];
    let got = Jit::new(&ctx, &m, opts()).call("f", &args).unwrap();
    let refs: [(&str, fn(f64, f64) -> f64); 5] = [
        ("tanh(u) sigmoid(v)", |u, v| u.tanh() / (1.0 + (-v).exp())),
        ("sigmoid(u) tanh(v) sigmoid(v)", |u, v| v.tanh() / ((1.0 + (-u).exp()) * (1.0 + (-v).exp()))),
        ("tanh(u) sigmoid(v), tanh(u) used twice", |u, v| u.tanh() / (1.0 + (-v).exp())),
        ("tanh(u)", |u, _| u.tanh()),
        ("tanh(u)^3 tanh(v)^2", |u, v| u.tanh().powi(3) * v.tanh().powi(2)),
    ];
    for (k, (what, r)) in refs.iter().enumerate() {
        let want: Vec<f64> = us.iter().zip(&vs).map(|(&u, &v)| r(u as f64, v as f64)).collect();
        let worst = check_f32_math(&f32_data(&got[k]), &want, &|i| format!("{what} at u={:e}, v={:e}", us[i], vs[i]));
        eprintln!("{what}: worst relative error {worst:e}");
    }
}

/// f32 `pow` (inline, two-float arithmetic): C99 `powf`'s special cases exactly (against Rust's
/// `f32::powf`), and a grid of bases and exponents (negative bases with integer exponents,
/// overflow, underflow into the subnormals) plus 60,000 random cases within 1e-6 relative of
/// the f64 result, and a worst case under 2e-7 (about 2 ulp) on normal results.
#[test]
fn f32_pow_sweep() {
    let _g = lock();
    // the host (AVX-512 here: the 16-lane function pair) and a CPU without AVX-512 (scalar
    // code the loop vectorizer widens to 8 lanes)
    pow_sweep(opts());
    pow_sweep(without_avx512());
}

/// The same (x, y) gives the same bits in a loop's vector part and in its remainder: on AVX-512
/// hosts the remainder calls the scalar side of pow's function pair, which evaluates the
/// 16-lane code on a splat (elsewhere both parts run the same scalar code).
#[test]
fn pow_vector_and_remainder_agree() {
    let _g = lock();
    // n = 47: the vectorized loop covers 0..32, the remainder 32..47; the same 15 (x, y) pairs
    // at both places, 400 calls of random pairs (a fixed LCG) where roundings differ most
    let (n, m) = (47, 15);
    let src = pow_src(n);
    let ctx = xcs_lowering::context();
    let module = parse(&ctx, &src);
    let jit = Jit::new(&ctx, &module, opts());
    let mut unit = lcg_unit(0x2545_F491_4F6C_DD1D);
    for _ in 0..400 {
        let (mut xs, mut ys) = (vec![1.5f32; n], vec![0.25f32; n]);
        for k in 0..m {
            let (x, y) = match k % 3 {
                0 => ((unit() * 180.0 - 95.0).exp(), unit() * 2.4 - 1.2),
                1 => (0.9 + unit() * 0.2, unit() * 1800.0 - 900.0),
                _ => (unit() * 4.0, unit() * 60.0 - 30.0),
            };
            (xs[k], ys[k]) = (x as f32, y as f32);
            (xs[32 + k], ys[32 + k]) = (x as f32, y as f32);
        }
        let got = jit
            .call(
                "f",
                &[
                    RtValue::Tensor(Tensor::f32(&[n], &xs)),
                    RtValue::Tensor(Tensor::f32(&[n], &ys)),
                ],
            )
            .unwrap();
        let got = f32_data(&got[0]);
        for k in 0..m {
            let (a, b) = (got[k], got[32 + k]);
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "pow({:e}, {:e}): {a:e} in the vector loop, {b:e} in the remainder",
                xs[k],
                ys[k]
            );
        }
    }
}

/// `@f(x, y) = pow(x, y)` on two `n`-element f32 tensors.
fn pow_src(n: usize) -> String {
    format!("func.func @f(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n  %r = tensor.pow %x, %y : tensor<{n}xf32>\n  return %r : tensor<{n}xf32>\n}}")
}

fn pow_sweep(o: Options) {
    let special = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        -0.5,
        3.0,
        -3.0,
        1e-40,
        -1e-40,
        f32::INFINITY,
        -f32::INFINITY,
        f32::NAN,
        16777216.0,
        16777217.0,
        -16777215.0,
        1e10,
        -1e10,
        2.5,
        -2.5,
    ];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &x in &special {
        for &y in &special {
            xs.push(x);
            ys.push(y);
        }
    }
    let nspecial = xs.len();
    for k in -30..=30 {
        for m in [1.0f32, 1.37, 3.9] {
            let x = m * 10f32.powi(k);
            for y in [
                -40.0f32, -7.0, -3.0, -2.5, -1.0, -0.5, 0.25, 1.0, 2.0, 3.0, 5.5, 7.0, 40.0,
            ] {
                xs.push(x);
                ys.push(y);
                xs.push(-x);
                ys.push(y);
            }
        }
    }
    for i in 0..400 {
        xs.push(0.05 + i as f32 * 0.01);
        ys.push(-30.0 + i as f32 * 0.15);
    }
    // Random cases (a fixed LCG): bases over the whole float range, exponents up to +-900 near
    // x = 1, where y ln x is large while ln x is small (the two-float ln is what keeps these).
    let mut unit = lcg_unit(0x9E37_79B9_7F4A_7C15);
    for k in 0..60_000 {
        let (x, y) = match k % 3 {
            0 => ((unit() * 180.0 - 95.0).exp(), unit() * 2.4 - 1.2),
            1 => (0.9 + unit() * 0.2, unit() * 1800.0 - 900.0),
            _ => (unit() * 4.0, unit() * 60.0 - 30.0),
        };
        xs.push(x as f32);
        ys.push(y as f32);
    }
    // The hardest cases for the two-float ln: results near overflow and underflow (|y ln x| up
    // to 88) from x within 3% of 1 (where ln x is small against the r^2 term), and from x at the
    // edges of the reductions' mantissa intervals (multiples of 1/32 and 1/64, sqrt 2) times
    // powers of two.
    for k in 0..30_000 {
        let x = if k % 2 == 0 {
            1.0 + (unit() * 0.07 - 0.035)
        } else {
            let edge = match k % 6 {
                1 => 1.0 + (unit() * 32.0).floor() / 32.0,
                3 => 0.75 + (unit() * 16.0).floor() / 64.0,
                _ => std::f64::consts::SQRT_2,
            };
            edge * (1.0 + (unit() - 0.5) * 1e-6) * 2f64.powi((unit() * 40.0) as i32 - 20)
        };
        let x = x as f32;
        if x == 1.0 {
            continue;
        }
        let t = unit() * 188.0 - 100.0;
        xs.push(x);
        ys.push((t / (x as f64).ln()) as f32);
    }
    let n = xs.len();
    let src = pow_src(n);
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, &src);
    let jit = Jit::new(&ctx, &m, o.clone());
    let args = [
        RtValue::Tensor(Tensor::f32(&[n], &xs)),
        RtValue::Tensor(Tensor::f32(&[n], &ys)),
    ];
    let got = jit.call("f", &args).unwrap();
    let got = f32_data(&got[0]);
    let mut worst = 0.0f64;
    for i in 0..n {
        let (x, y, g) = (xs[i], ys[i], got[i]);
        let w = if i < nspecial {
            x.powf(y)
        } else {
            (x as f64).powf(y as f64) as f32
        };
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() || w == 0.0 || w.abs() == 1.0 {
            g == w && g.is_sign_negative() == w.is_sign_negative()
        } else {
            let err = (g as f64 - w as f64).abs();
            if w.abs() >= f32::MIN_POSITIVE {
                worst = worst.max(err / (w as f64).abs());
            }
            err <= 1e-6 * (w as f64).abs() + 1e-44
        };
        assert!(ok, "pow({x:e}, {y:e}) = {g:e}, expected {w:e}");
    }
    eprintln!("pow ({}): worst relative error {worst:e} over {n} cases", o.cpu);
    // about 2 ulp (1.8e-7 measured here) with AVX-512's table-driven ln; the scalar ln's series
    // in s = (m-1)/(m+1) loses more near m = sqrt 2 (3.4e-7 measured)
    let bound = if o.features.contains("+avx512dq") { 2e-7 } else { 4e-7 };
    assert!(worst < bound, "pow: worst relative error {worst:e}");
}

/// The table of the AVX-512 `ln` (`math::ln_table`): every mantissa in `[3/4, 3/2)` lands in the
/// entry its top five bits name, `m invc - 1` is exact in f32 and below 2^-5 for all of them,
/// `hi` is a multiple of 2^-16 (so `e LN2_HI + hi` is exact), `hi + lo` is `ln(1/invc)` (plus
/// `ln 2` below 1), and the entries next to 1 have `invc = 1` with the `ln 2` that cancels
/// `-LN2_HI - LN2_LO` exactly (`x` just below 1: `e = -1`).
#[test]
fn ln_table_is_exact() {
    use xcs_lowering::ops::math::{ln_table, ln_table_interval};
    let t = ln_table();
    let mut checked = 0;
    for i in 0..32 {
        let (a, b, q) = ln_table_interval(i);
        let invc = t.invc[i] as f64;
        assert_eq!(
            (invc * q).fract(),
            0.0,
            "entry {i}: invc {invc} is not a multiple of 1/{q}"
        );
        let hi = t.hi[i] as f64;
        assert_eq!((hi * 65536.0).fract(), 0.0, "entry {i}: hi {hi}");
        assert!((t.lo[i] as f64).abs() <= 2f64.powi(-17), "entry {i}: lo {}", t.lo[i]);
        let fold = if i >= 16 { std::f64::consts::LN_2 } else { 0.0 };
        let want = -invc.ln() + fold;
        assert!(
            (hi + t.lo[i] as f64 - want).abs() < 1e-12,
            "entry {i}: hi + lo = {} != {want}",
            hi + t.lo[i] as f64
        );
        let mut m = a as f32;
        while (m as f64) < b {
            assert_eq!((m.to_bits() >> 18) & 31, i as u32, "mantissa {m} not in entry {i}");
            let r = m as f64 * invc - 1.0;
            assert!(
                r.abs() < 2f64.powi(-5) && (r as f32) as f64 == r,
                "entry {i}: m = {m}, r = {r}"
            );
            m = f32::from_bits(m.to_bits() + 1);
            checked += 1;
        }
    }
    assert_eq!(checked, 1 << 23, "every float in [3/4, 3/2)");
    assert_eq!((t.invc[0], t.invc[31]), (1.0, 1.0));
    assert_eq!((t.hi[0], t.lo[0]), (0.0, 0.0));
    assert_eq!((t.hi[31], t.lo[31]), (45426.0 / 65536.0, 1.428_606_8e-6));
}

/// `llvm::check_cpu` takes the CPU names LLVM knows and rejects others (LLVM itself only warns
/// and then aborts in code generation); its list is the installed `llc`'s, name for name.
#[test]
fn x86_cpu_names_match_llc() {
    use xcs_lowering::llvm::{check_cpu, host_cpu, x86_cpu_names};
    assert!(check_cpu("x86-64-v3").is_ok() && check_cpu("sapphirerapids").is_ok());
    assert!(check_cpu(&host_cpu().0).is_ok());
    let err = check_cpu("foobar").unwrap_err();
    assert!(err.contains("'foobar' is not a CPU LLVM knows"), "{err}");
    let llc = Path::new("/usr/lib/llvm-22/bin/llc");
    let out = std::process::Command::new(llc)
        .args(["-mtriple=x86_64-unknown-linux-gnu", "-mcpu=help"])
        .output()
        .expect("llc (LLVM 22) runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let cpus: Vec<&str> = text
        .split("Available CPUs for this target:")
        .nth(1)
        .and_then(|t| t.split("Available features for this target:").next())
        .expect("llc -mcpu=help lists CPUs")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let ours: Vec<&str> = x86_cpu_names().collect();
    assert_eq!(ours, cpus, "lowering/src/x86_cpus.txt differs from llc -mcpu=help");
}

#[test]
fn integer_division_by_zero_is_an_error() {
    let _g = lock();
    for t in INTS {
        let src = format!("func.func @f(%x: tensor<4x{t}>, %y: tensor<4x{t}>) -> tensor<4x{t}> {{\n  %r = tensor.div %x, %y : tensor<4x{t}>\n  return %r : tensor<4x{t}>\n}}");
        let x = RtValue::Tensor(Tensor::i64(&[4], &[7, -7, 1, 2]).cast(elem(t)).unwrap());
        let y = RtValue::Tensor(Tensor::i64(&[4], &[2, 2, 0, 1]).cast(elem(t)).unwrap());
        match check_args(&src, &[x.clone(), y]) {
            Outcome::BothFailed(j, i) => {
                assert_eq!(j, "'tensor.div' op integer division by zero");
                assert!(i.contains("integer division by zero"), "{i}");
            }
            o => panic!("{o:?}"),
        }
        // MIN / -1 wraps (no trap), truncation toward zero.
        let min = match t {
            "i8" => i8::MIN as i64,
            "i16" => i16::MIN as i64,
            "i32" => i32::MIN as i64,
            _ => i64::MIN,
        };
        let x = RtValue::Tensor(Tensor::i64(&[4], &[min, -7, 7, -8]).cast(elem(t)).unwrap());
        let y = RtValue::Tensor(Tensor::i64(&[4], &[-1, 2, -2, 3]).cast(elem(t)).unwrap());
        assert_eq!(check_args(&src, &[x, y]), Outcome::Same, "{t}");
    }
    // Negative integer exponent.
    let src = "func.func @f(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {\n  %r = tensor.pow %x, %y : tensor<2xi32>\n  return %r : tensor<2xi32>\n}";
    match check_args(
        src,
        &[
            RtValue::Tensor(Tensor::i32(&[2], &[3, 2])),
            RtValue::Tensor(Tensor::i32(&[2], &[2, -1])),
        ],
    ) {
        Outcome::BothFailed(j, _) => assert!(j.contains("negative exponent (2 ** -1)"), "{j}"),
        o => panic!("{o:?}"),
    }
    // The error is located at the op.
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, "func.func @f(%x: tensor<1xi32>) -> tensor<1xi32> {\n  %r = tensor.div %x, %x : tensor<1xi32>\n  return %r : tensor<1xi32>\n}");
    let jit = Jit::new(&ctx, &m, opts());
    let e = jit.call("f", &[RtValue::Tensor(Tensor::i32(&[1], &[0]))]).unwrap_err();
    let (_, line, _) = ctx.loc_file_line_col(e.to_diagnostic().loc).expect("located");
    assert_eq!(line, 2);
}

// ---------------------------------------------------------------------------- contractions and reductions

#[test]
fn matmul_and_einsum() {
    let _g = lock();
    for t in NUMERIC {
        let src = format!("func.func @f(%a: tensor<2x3x4x{t}>, %b: tensor<4x5x{t}>) -> tensor<2x3x5x{t}> {{\n  %r = tensor.matmul %a, %b : (tensor<2x3x4x{t}>, tensor<4x5x{t}>) -> tensor<2x3x5x{t}>\n  return %r : tensor<2x3x5x{t}>\n}}");
        assert!(check(&src, 2).iter().all(|o| *o == Outcome::Same), "matmul {t}");
        for (eq, a, b, r) in [
            ("ij,jk->ik", "3x4", "4x2", "3x2"),
            ("bij,bjk->bik", "2x3x4", "2x4x2", "2x3x2"),
            ("ij,kj", "3x4", "2x4", "3x2"),
            ("i,j->ij", "3", "2", "3x2"),
        ] {
            let src = format!("func.func @f(%a: tensor<{a}x{t}>, %b: tensor<{b}x{t}>) -> tensor<{r}x{t}> {{\n  %r = tensor.einsum %a, %b {{equation = \"{eq}\"}} : (tensor<{a}x{t}>, tensor<{b}x{t}>) -> tensor<{r}x{t}>\n  return %r : tensor<{r}x{t}>\n}}");
            assert!(check(&src, 2).iter().all(|o| *o == Outcome::Same), "einsum {eq} {t}");
        }
        for (eq, a, r) in [("ii->i", "3x3", "3"), ("ij->", "3x4", ""), ("ij->ji", "3x4", "4x3")] {
            let rt = if r.is_empty() {
                format!("tensor<{t}>")
            } else {
                format!("tensor<{r}x{t}>")
            };
            let src = format!("func.func @f(%a: tensor<{a}x{t}>) -> {rt} {{\n  %r = tensor.einsum %a {{equation = \"{eq}\"}} : (tensor<{a}x{t}>) -> {rt}\n  return %r : {rt}\n}}");
            assert!(check(&src, 2).iter().all(|o| *o == Outcome::Same), "einsum {eq} {t}");
        }
    }
    // Dynamic sizes and a K mismatch.
    let src = "func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {\n  %r = tensor.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>\n  return %r : tensor<?x?xf32>\n}";
    assert_eq!(
        check_args(src, &[rand("f32", &[5, 7], 1), rand("f32", &[7, 3], 2)]),
        Outcome::Same
    );
    assert!(matches!(
        check_args(src, &[rand("f32", &[5, 7], 1), rand("f32", &[6, 3], 2)]),
        Outcome::BothFailed(..)
    ));
}

#[test]
fn reductions() {
    let _g = lock();
    for t in NUMERIC {
        for kind in ["sum", "max", "min", "mean", "prod"] {
            for (axes, keep, rt) in [
                ("0", false, "4x5"),
                ("1, 2", true, "3x1x1"),
                ("0, 1, 2", false, ""),
                ("-1", false, "3x4"),
            ] {
                let rty = if rt.is_empty() {
                    format!("tensor<{t}>")
                } else {
                    format!("tensor<{rt}x{t}>")
                };
                let src = format!("func.func @f(%x: tensor<3x4x5x{t}>) -> {rty} {{\n  %r = tensor.reduce %x {{axes = array<i64: {axes}>, keepdims = {keep}, kind = \"{kind}\"}} : (tensor<3x4x5x{t}>) -> {rty}\n  return %r : {rty}\n}}");
                assert!(
                    check(&src, 2).iter().all(|o| *o == Outcome::Same),
                    "reduce {kind} {axes} {t}"
                );
            }
        }
    }
    // Empty axes: max is an error, sum is 0, integer mean is an error.
    for (kind, t, fails) in [
        ("max", "f32", true),
        ("sum", "f32", false),
        ("mean", "i32", true),
        ("mean", "f32", false),
    ] {
        let src = format!("func.func @f(%x: tensor<?x3x{t}>) -> tensor<3x{t}> {{\n  %r = tensor.reduce %x {{axes = array<i64: 0>, keepdims = false, kind = \"{kind}\"}} : (tensor<?x3x{t}>) -> tensor<3x{t}>\n  return %r : tensor<3x{t}>\n}}");
        let out = check_args(&src, &[rand(t, &[0, 3], 1)]);
        assert_eq!(matches!(out, Outcome::BothFailed(..)), fails, "{kind} {t}: {out:?}");
    }
}

/// Differential runs of `f` compiled once for `threads` worker threads, on each argument set.
fn check_threads(src: &str, argsets: &[Vec<RtValue>], threads: usize) {
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let mut o = opts();
    o.threads = threads;
    let jit = Jit::new(&ctx, &m, o);
    runtime::set_num_threads(threads);
    for args in argsets {
        let shapes: Vec<String> = args
            .iter()
            .map(|a| format!("{a:?}").chars().take(60).collect())
            .collect();
        let out = diff_run(
            &ctx,
            &m,
            "f",
            args,
            &jit,
            &format!("{threads} threads, {shapes:?}\n{src}"),
        );
        assert_eq!(out, Outcome::Same, "{src}");
    }
    runtime::set_num_threads(1);
}

/// The vectorized paths of `tensor.reduce` (innermost contiguous axes, outermost axes) and of
/// `tensor.layer_norm`: odd and long rows (dynamic sizes), static rows, rank 3, special values,
/// 1 and 2 threads.
#[test]
fn reduce_and_layer_norm_fast_paths() {
    let _g = lock();
    let lens = [1usize, 7, 16, 17, 100, 4096];
    for (ti, t) in ["f32", "f64", "bf16", "i32", "i64", "i8"].into_iter().enumerate() {
        // Every kind over: the inner axis, the outer axis, and in rank 3 the two inner / the two
        // outer axes. One function (compiling dominates), run on every row length.
        let int = t.starts_with('i');
        let (mut body, mut rets) = (String::new(), Vec::new());
        for kind in ["sum", "max", "min", "mean", "prod"] {
            for (i, (v, axes, keep, ity, rty)) in [
                ("x", "1", false, "?x?", "?"),
                ("x", "0", true, "?x?", "1x?"),
                ("y", "1, 2", false, "2x3x?", "2"),
                ("y", "0, 1", false, "2x3x?", "?"),
            ]
            .into_iter()
            .enumerate()
            {
                let r = format!("%{kind}{i}");
                body += &format!("  {r} = tensor.reduce %{v} {{axes = array<i64: {axes}>, keepdims = {keep}, kind = \"{kind}\"}} : (tensor<{ity}x{t}>) -> tensor<{rty}x{t}>\n");
                rets.push((r, format!("tensor<{rty}x{t}>")));
            }
        }
        let names: Vec<&str> = rets.iter().map(|r| r.0.as_str()).collect();
        let tys: Vec<&str> = rets.iter().map(|r| r.1.as_str()).collect();
        let src = format!(
            "func.func @f(%x: tensor<?x?x{t}>, %y: tensor<2x3x?x{t}>) -> ({}) {{\n{body}  return {} : {}\n}}",
            tys.join(", "),
            names.join(", "),
            tys.join(", ")
        );
        // prod of long float rows over/underflows (inf * 0 depends on the order): floats get
        // rows up to 100 here, 4096 below without prod.
        let argsets: Vec<Vec<RtValue>> = lens
            .iter()
            .filter(|&&l| int || l <= 100)
            .map(|&l| vec![rand(t, &[5, l], l as u64), rand(t, &[2, 3, l], l as u64 + 7)])
            .collect();
        check_threads(&src, &argsets, 1 + ti % 2);
        if !int {
            let src = format!("func.func @f(%x: tensor<5x4096x{t}>) -> (tensor<5x{t}>, tensor<5x{t}>, tensor<4096x{t}>, tensor<4096x{t}>) {{\n  %a = tensor.reduce %x {{axes = array<i64: 1>, keepdims = false, kind = \"sum\"}} : (tensor<5x4096x{t}>) -> tensor<5x{t}>\n  %b = tensor.reduce %x {{axes = array<i64: 1>, keepdims = false, kind = \"max\"}} : (tensor<5x4096x{t}>) -> tensor<5x{t}>\n  %c = tensor.reduce %x {{axes = array<i64: 0>, keepdims = false, kind = \"mean\"}} : (tensor<5x4096x{t}>) -> tensor<4096x{t}>\n  %d = tensor.reduce %x {{axes = array<i64: 0>, keepdims = false, kind = \"min\"}} : (tensor<5x4096x{t}>) -> tensor<4096x{t}>\n  return %a, %b, %c, %d : tensor<5x{t}>, tensor<5x{t}>, tensor<4096x{t}>, tensor<4096x{t}>\n}}");
            check_threads(&src, &[vec![rand(t, &[5, 4096], 3)]], 2 - ti % 2);
        }
    }
    for (ti, t) in ["f32", "f64", "bf16"].into_iter().enumerate() {
        let src = format!("func.func @f(%x: tensor<?x?x{t}>, %g: tensor<?x{t}>, %b: tensor<?x{t}>) -> tensor<?x?x{t}> {{\n  %r = tensor.layer_norm %x, %g, %b {{axis = 1 : i64, epsilon = 1.0e-05 : f32}} : (tensor<?x?x{t}>, tensor<?x{t}>, tensor<?x{t}>) -> tensor<?x?x{t}>\n  return %r : tensor<?x?x{t}>\n}}");
        let argsets: Vec<Vec<RtValue>> = lens
            .iter()
            .map(|&l| vec![rand(t, &[6, l], l as u64), rand(t, &[l], 1), rand(t, &[l], 2)])
            .collect();
        check_threads(&src, &argsets, 1 + ti % 2);
    }
    // Static W5-like rows, and rank 3 normalized over the last two dims.
    let src = "func.func @f(%x: tensor<4x4096xf32>, %g: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4x4096xf32> {\n  %r = tensor.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4x4096xf32>\n  return %r : tensor<4x4096xf32>\n}";
    check_threads(
        src,
        &[vec![
            rand("f32", &[4, 4096], 1),
            rand("f32", &[4096], 2),
            rand("f32", &[4096], 3),
        ]],
        2,
    );
    // Rows with a large mean and a small spread (the one-pass statistics must not cancel):
    // 1e4 + k/1024 (k = i % 4: f32 ulps at 1e4, mean^2/var ~ 1e14), -3e3 + (i % 7) / 8, constant.
    let w: Vec<f64> = (0..3 * 256)
        .map(|j| {
            let (r, i) = (j / 256, (j % 256) as f64);
            [1.0e4 + (i % 4.0) / 1024.0, -3.0e3 + (j % 7) as f64 / 8.0, 42.0][r]
        })
        .collect();
    let src = "func.func @f(%x: tensor<3x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<3x256xf32> {\n  %r = tensor.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<3x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<3x256xf32>\n  return %r : tensor<3x256xf32>\n}";
    let x = RtValue::Tensor(Tensor::from_f64s(ElemType::F32, &[3, 256], &w).unwrap());
    let out = check_args(src, &[x, rand("f32", &[256], 2), rand("f32", &[256], 3)]);
    assert_eq!(out, Outcome::Same, "large-mean rows");
    let src = "func.func @f(%x: tensor<3x7x17xf32>, %g: tensor<7x17xf32>, %b: tensor<7x17xf32>) -> tensor<3x7x17xf32> {\n  %r = tensor.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<3x7x17xf32>, tensor<7x17xf32>, tensor<7x17xf32>) -> tensor<3x7x17xf32>\n  return %r : tensor<3x7x17xf32>\n}";
    assert!(check(src, 2).iter().all(|o| *o == Outcome::Same));
    // NaN and infinities: max/min propagate NaN, sums give inf/NaN, in both paths.
    let mut v: Vec<f64> = (0..4 * 100).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
    v[3] = f64::NAN;
    v[150] = f64::INFINITY;
    v[160] = f64::NEG_INFINITY;
    v[250] = f64::INFINITY;
    v[399] = f64::NAN;
    for (ti, t) in ["f32", "f64"].into_iter().enumerate() {
        let x = RtValue::Tensor(Tensor::from_f64s(elem(t), &[4, 100], &v).unwrap());
        let (mut body, mut rets) = (String::new(), Vec::new());
        for kind in ["sum", "max", "min", "mean", "prod"] {
            for (i, (axes, rt)) in [("1", "4"), ("0", "100")].into_iter().enumerate() {
                let r = format!("%{kind}{i}");
                body += &format!("  {r} = tensor.reduce %x {{axes = array<i64: {axes}>, keepdims = false, kind = \"{kind}\"}} : (tensor<4x100x{t}>) -> tensor<{rt}x{t}>\n");
                rets.push((r, format!("tensor<{rt}x{t}>")));
            }
        }
        body += &format!("  %ln = tensor.layer_norm %x, %g, %b {{axis = 1 : i64, epsilon = 1.0e-05 : f32}} : (tensor<4x100x{t}>, tensor<100x{t}>, tensor<100x{t}>) -> tensor<4x100x{t}>\n");
        rets.push(("%ln".into(), format!("tensor<4x100x{t}>")));
        let names: Vec<&str> = rets.iter().map(|r| r.0.as_str()).collect();
        let tys: Vec<&str> = rets.iter().map(|r| r.1.as_str()).collect();
        let src = format!(
            "func.func @f(%x: tensor<4x100x{t}>, %g: tensor<100x{t}>, %b: tensor<100x{t}>) -> ({}) {{\n{body}  return {} : {}\n}}",
            tys.join(", "),
            names.join(", "),
            tys.join(", ")
        );
        check_threads(&src, &[vec![x, rand(t, &[100], 1), rand(t, &[100], 2)]], 1 + ti);
    }
}

#[test]
fn softmax_and_layer_norm() {
    let _g = lock();
    for t in FLOATS {
        for axis in [0, 1, -1] {
            let src = format!("func.func @f(%x: tensor<3x4x5x{t}>) -> tensor<3x4x5x{t}> {{\n  %r = tensor.softmax %x {{axis = {axis} : i64}} : tensor<3x4x5x{t}>\n  return %r : tensor<3x4x5x{t}>\n}}");
            assert!(check(&src, 2).iter().all(|o| *o == Outcome::Same), "softmax {axis} {t}");
        }
        for (axis, g) in [(1, "4x5"), (2, "5")] {
            let src = format!("func.func @f(%x: tensor<3x4x5x{t}>, %g: tensor<{g}x{t}>, %b: tensor<{g}x{t}>) -> tensor<3x4x5x{t}> {{\n  %r = tensor.layer_norm %x, %g, %b {{axis = {axis} : i64, epsilon = 1.0e-05 : f32}} : (tensor<3x4x5x{t}>, tensor<{g}x{t}>, tensor<{g}x{t}>) -> tensor<3x4x5x{t}>\n  return %r : tensor<3x4x5x{t}>\n}}");
            assert!(
                check(&src, 2).iter().all(|o| *o == Outcome::Same),
                "layer_norm {axis} {t}"
            );
        }
    }
}

/// Softmax over long rows (the vectorized path with its remainder), wide value ranges, the
/// special values (a NaN, +inf or all -inf row is NaN, a -inf entry is 0) and a transposed
/// (non-contiguous) input, against the interpreter.
#[test]
fn softmax_rows_special_values() {
    let _g = lock();
    let (rows, len) = (6, 37);
    let mut v: Vec<f32> = (0..rows * len)
        .map(|i| ((i * 7919) % 211) as f32 * 0.37 - 40.0)
        .collect();
    v[len + 3] = f32::NAN;
    v[2 * len + 5] = f32::INFINITY;
    for j in 0..len {
        v[3 * len + j] = f32::NEG_INFINITY;
    }
    v[4 * len + 1] = f32::NEG_INFINITY;
    v[5 * len + 2] = 80.0;
    let x = RtValue::Tensor(Tensor::f32(&[rows, len], &v));
    for t in ["f32", "f16", "bf16"] {
        let src = format!("func.func @f(%x: tensor<{rows}x{len}xf32>) -> tensor<{rows}x{len}x{t}> {{\n  %c = tensor.cast %x : (tensor<{rows}x{len}xf32>) -> tensor<{rows}x{len}x{t}>\n  %r = tensor.softmax %c {{axis = 1 : i64}} : tensor<{rows}x{len}x{t}>\n  return %r : tensor<{rows}x{len}x{t}>\n}}");
        assert_eq!(check_args(&src, std::slice::from_ref(&x)), Outcome::Same, "{t}");
    }
    let src = format!("func.func @f(%x: tensor<{rows}x{len}xf32>) -> tensor<{len}x{rows}xf32> {{\n  %t = tensor.transpose %x {{perm = array<i64: 1, 0>}} : (tensor<{rows}x{len}xf32>) -> tensor<{len}x{rows}xf32>\n  %r = tensor.softmax %t {{axis = -1 : i64}} : tensor<{len}x{rows}xf32>\n  return %r : tensor<{len}x{rows}xf32>\n}}");
    assert_eq!(check_args(&src, std::slice::from_ref(&x)), Outcome::Same, "transposed");
}

/// Softmax over rows written with streaming stores (`rowwise::softmax_stream`: explicit 16-lane
/// code, `exp` scaled by `vscalefps` on AVX-512 and by two exponent-field multiplies otherwise)
/// gives the same bits for an x86-64-v3 target (no AVX-512), single-threaded, as for the host,
/// with threads (the kernel inlined into its pool trampoline); and matches an f64 softmax.
/// Rows span results down to the subnormals and past the clamp at -110, and special rows (a
/// NaN, +inf, all -inf, -inf entries).
#[test]
fn softmax_streaming_rows_same_bits_without_avx512() {
    let _g = lock();
    let (rows, len) = (2048usize, 4096usize);
    let mut v: Vec<f32> = (0..rows * len)
        .map(|i| {
            let (r, j) = (i / len, i % len);
            let spread = [8.0f32, 90.0, 160.0][r % 3];
            ((j * 7919 + r * 104_729) % 4099) as f32 / 4099.0 * -spread + (r % 5) as f32
        })
        .collect();
    v[3 * len + 5] = f32::NAN;
    v[4 * len + 7] = f32::INFINITY;
    v[5 * len..6 * len].fill(f32::NEG_INFINITY);
    for j in (0..len).step_by(3) {
        v[6 * len + j] = f32::NEG_INFINITY;
    }
    let x = RtValue::Tensor(Tensor::f32(&[rows, len], &v));
    let src = format!("func.func @f(%x: tensor<{rows}x{len}xf32>) -> tensor<{rows}x{len}xf32> {{\n  %r = tensor.softmax %x {{axis = 1 : i64}} : tensor<{rows}x{len}xf32>\n  return %r : tensor<{rows}x{len}xf32>\n}}");
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, &src);
    let mut host = opts();
    host.threads = 2;
    let run = |o: Options| f32_data(&Jit::new(&ctx, &m, o).call("f", std::slice::from_ref(&x)).unwrap()[0]);
    let (a, b) = (run(host), run(without_avx512()));
    for (i, (p, q)) in a.iter().zip(&b).enumerate() {
        assert!(p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()), "at {i}: host {p:e}, x86-64-v3 {q:e}");
    }
    for r in [0, 1, 2, 3, 4, 5, 6, 2047] {
        let row = &v[r * len..(r + 1) * len];
        let mx = row.iter().fold(f64::NEG_INFINITY, |m, &t| m.max(t as f64));
        let e: Vec<f64> = row.iter().map(|&t| (t as f64 - mx).exp()).collect();
        let sum: f64 = e.iter().sum();
        for j in 0..len {
            let (got, want) = (a[r * len + j] as f64, e[j] / sum);
            let ok = if r == 3 || r == 4 || r == 5 || row[j].is_nan() {
                got.is_nan()
            } else {
                (got - want).abs() <= 1e-6 * want + 1e-44
            };
            assert!(ok, "row {r} col {j}: {got:e}, expected {want:e}");
        }
    }
}

/// Runs `f` of `src` on `args` through the JIT and the interpreter and returns their one
/// result each.
fn jit_and_interp_results(src: &str, args: &[RtValue]) -> [Tensor; 2] {
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    let one = |r: Result<Vec<RtValue>, String>| match r.map(|mut r| r.remove(0)) {
        Ok(RtValue::Tensor(t)) => t,
        other => panic!("expected a tensor: {other:?}"),
    };
    [
        one(jit.call("f", args).map_err(|e| e.message())),
        one(Interpreter::new(&ctx, &m).call("f", args.to_vec()).map_err(|e| e.message)),
    ]
}

/// Softmax and layer_norm of inputs near +-1,000, against values computed here in f64 (the
/// stable way: max subtracted, two-pass variance) as well as against the interpreter.
/// `exp(1000)` overflows every float type, so a softmax that does not subtract the row's
/// maximum gives NaN; layer_norm's one-pass variance `E[x^2] - E[x]^2` loses a spread of
/// thousandths among values near 1,000, even in f64. (The interpreter and the JIT could agree
/// on a wrong answer: the expected values come from neither.)
#[test]
fn softmax_and_layer_norm_of_large_inputs() {
    let _g = lock();
    let rows: [[f64; 4]; 3] = [[1000.0, 1004.0, 1008.0, 996.0], [-1000.0, -992.0, -1004.0, -1000.0], [1000.0; 4]];
    let x: Vec<f64> = rows.iter().flatten().copied().collect();
    let mut want_softmax = Vec::new();
    for r in &rows {
        let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = r.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        want_softmax.extend(e.iter().map(|v| v / s));
    }
    for t in FLOATS {
        let input = RtValue::Tensor(Tensor::from_f64s(elem(t), &[3, 4], &x).unwrap());
        let src = format!("func.func @f(%x: tensor<3x4x{t}>) -> tensor<3x4x{t}> {{\n  %r = tensor.softmax %x {{axis = 1 : i64}} : tensor<3x4x{t}>\n  return %r : tensor<3x4x{t}>\n}}");
        let want = Tensor::from_f64s(elem(t), &[3, 4], &want_softmax).unwrap();
        let (rtol, atol) = tol(elem(t));
        for (who, got) in ["jit", "interpreter"].iter().zip(jit_and_interp_results(&src, std::slice::from_ref(&input))) {
            if let Err(e) = got.allclose(&want, rtol, atol) {
                panic!("softmax {t} of inputs near 1000 ({who}): {e}\n  got {got}");
            }
        }
    }
    // layer_norm: rows of values 1000 +- a few thousandths (and their negatives) with a tiny
    // epsilon, so the result is all spread: E[x^2] - E[x]^2 would lose it to rounding.
    let ln: Vec<f64> = (0..16).map(|i| (1000.0 + 0.0013 * ((i * 7) % 8) as f64) * if i < 8 { 1.0 } else { -1.0 }).collect();
    let eps = 1e-12f32 as f64;
    for t in ["f32", "f64"] {
        let e = elem(t);
        let x = Tensor::from_f64s(e, &[2, 8], &ln).unwrap();
        let rounded = x.data.to_f64s().unwrap();
        let mut want_ln = Vec::new();
        for r in rounded.chunks(8) {
            let mean = r.iter().sum::<f64>() / 8.0;
            let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 8.0;
            want_ln.extend(r.iter().map(|v| (v - mean) / (var + eps).sqrt()));
        }
        let args = [
            RtValue::Tensor(x),
            RtValue::Tensor(Tensor::from_f64s(e, &[8], &[1.0; 8]).unwrap()),
            RtValue::Tensor(Tensor::from_f64s(e, &[8], &[0.0; 8]).unwrap()),
        ];
        let src = format!("func.func @f(%x: tensor<2x8x{t}>, %g: tensor<8x{t}>, %b: tensor<8x{t}>) -> tensor<2x8x{t}> {{\n  %r = tensor.layer_norm %x, %g, %b {{axis = 1 : i64, epsilon = 1.0e-12 : f32}} : (tensor<2x8x{t}>, tensor<8x{t}>, tensor<8x{t}>) -> tensor<2x8x{t}>\n  return %r : tensor<2x8x{t}>\n}}");
        let want = Tensor::from_f64s(e, &[2, 8], &want_ln).unwrap();
        // f64: sums of values near 1000 in another order round differently, ~1e-10 of a
        // spread of 1e-3 (a one-pass variance is off by ~1e-4)
        let (rtol, atol) = if t == "f64" { (1e-9, 1e-12) } else { tol(e) };
        for (who, got) in ["jit", "interpreter"].iter().zip(jit_and_interp_results(&src, &args)) {
            if let Err(err) = got.allclose(&want, rtol, atol) {
                panic!("layer_norm {t} of inputs near 1000 ({who}): {err}\n  got {got}");
            }
        }
    }
}

// ---------------------------------------------------------------------------- layout

#[test]
fn layout_ops_every_type() {
    let _g = lock();
    for t in ALL {
        let progs = [
            format!("func.func @f(%x: tensor<2x3x4x{t}>) -> tensor<4x2x3x{t}> {{\n  %r = tensor.transpose %x {{perm = array<i64: 2, 0, 1>}} : (tensor<2x3x4x{t}>) -> tensor<4x2x3x{t}>\n  return %r : tensor<4x2x3x{t}>\n}}"),
            format!("func.func @f(%x: tensor<2x3x4x{t}>) -> tensor<6x4x{t}> {{\n  %y = tensor.transpose %x {{perm = array<i64: 1, 0, 2>}} : (tensor<2x3x4x{t}>) -> tensor<3x2x4x{t}>\n  %r = tensor.reshape %y : (tensor<3x2x4x{t}>) -> tensor<6x4x{t}>\n  return %r : tensor<6x4x{t}>\n}}"),
            format!("func.func @f(%x: tensor<3x1x{t}>) -> tensor<2x3x4x{t}> {{\n  %r = tensor.broadcast_to %x : (tensor<3x1x{t}>) -> tensor<2x3x4x{t}>\n  return %r : tensor<2x3x4x{t}>\n}}"),
            format!("func.func @f(%x: tensor<5x6x{t}>) -> tensor<2x2x{t}> {{\n  %r = tensor.slice %x {{limit = array<i64: 5, 6>, start = array<i64: 1, 2>, stride = array<i64: 2, 3>}} : (tensor<5x6x{t}>) -> tensor<2x2x{t}>\n  return %r : tensor<2x2x{t}>\n}}"),
            format!("func.func @f(%x: tensor<2x3x{t}>, %y: tensor<2x1x{t}>) -> tensor<2x7x{t}> {{\n  %z = tensor.transpose %x {{perm = array<i64: 0, 1>}} : (tensor<2x3x{t}>) -> tensor<2x3x{t}>\n  %r = tensor.concat %x, %y, %z {{axis = 1 : i64}} : (tensor<2x3x{t}>, tensor<2x1x{t}>, tensor<2x3x{t}>) -> tensor<2x7x{t}>\n  return %r : tensor<2x7x{t}>\n}}"),
            format!("func.func @f(%x: tensor<4x3x{t}>) -> tensor<4x2x2x{t}> {{\n  %i = tensor.constant {{value = dense<[[2, 0], [1, 1]]> : tensor<2x2xi32>}} : tensor<2x2xi32>\n  %r = tensor.gather %x, %i {{axis = 1 : i64}} : (tensor<4x3x{t}>, tensor<2x2xi32>) -> tensor<4x2x2x{t}>\n  return %r : tensor<4x2x2x{t}>\n}}"),
            format!("func.func @f(%x: tensor<2x3x{t}>) -> (tensor<2x3x{t}>, tensor<3x{t}>) {{\n  %c = tensor.constant {{value = dense<1> : tensor<3x{t}>}} : tensor<3x{t}>\n  return %x, %c : tensor<2x3x{t}>, tensor<3x{t}>\n}}"),
        ];
        for p in &progs {
            let p = if t == "i1" {
                p.replace("dense<1>", "dense<true>")
            } else if FLOATS.contains(&t) {
                p.replace("dense<1>", "dense<1.0>")
            } else {
                p.clone()
            };
            assert!(check(&p, 2).iter().all(|o| *o == Outcome::Same), "{t}: {p}");
        }
    }
    // Dynamic reshape, slice of a dynamic dim, gather out of range.
    let src = "func.func @f(%x: tensor<?x4xf32>) -> tensor<2x?xf32> {\n  %r = tensor.reshape %x : (tensor<?x4xf32>) -> tensor<2x?xf32>\n  return %r : tensor<2x?xf32>\n}";
    assert_eq!(check_args(src, &[rand("f32", &[3, 4], 1)]), Outcome::Same);
    assert_eq!(check_args(src, &[rand("f32", &[1, 4], 1)]), Outcome::Same);
    let src = "func.func @f(%x: tensor<?xf32>) -> tensor<2xf32> {\n  %r = tensor.slice %x {limit = array<i64: 4>, start = array<i64: 2>, stride = array<i64: 1>} : (tensor<?xf32>) -> tensor<2xf32>\n  return %r : tensor<2xf32>\n}";
    assert_eq!(check_args(src, &[rand("f32", &[5], 1)]), Outcome::Same);
    assert!(matches!(
        check_args(src, &[rand("f32", &[3], 1)]),
        Outcome::BothFailed(..)
    ));
    let src = "func.func @f(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {\n  %r = tensor.gather %x, %i {axis = 0 : i64} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>\n  return %r : tensor<2xf32>\n}";
    assert_eq!(
        check_args(
            src,
            &[rand("f32", &[3], 1), RtValue::Tensor(Tensor::i64(&[2], &[2, 0]))]
        ),
        Outcome::Same
    );
    assert!(matches!(
        check_args(
            src,
            &[rand("f32", &[3], 1), RtValue::Tensor(Tensor::i64(&[2], &[3, 0]))]
        ),
        Outcome::BothFailed(..)
    ));
    assert!(matches!(
        check_args(
            src,
            &[rand("f32", &[3], 1), RtValue::Tensor(Tensor::i64(&[2], &[-1, 0]))]
        ),
        Outcome::BothFailed(..)
    ));
}

// ---------------------------------------------------------------------------- fused, control flow, calls

#[test]
fn fused_regions() {
    let _g = lock();
    // Elementwise with a broadcast input, a constant and two results: one loop nest.
    let src = "func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = tensor.fused %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):
    %k = tensor.constant {value = dense<1.5> : tensor<f32>} : tensor<f32>
    %m = tensor.mul %a, %k : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %s = tensor.add %m, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %t = tensor.tanh %s : tensor<4x8xf32>
    %g = tensor.sigmoid %a : tensor<4x8xf32>
    %p = tensor.mul %t, %g : tensor<4x8xf32>
    %q = tensor.mul %a, %a : tensor<4x8xf32>
    %o = tensor.add %p, %q : tensor<4x8xf32>
    tensor.yield %o, %s : tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}";
    assert!(check(src, 2).iter().all(|o| *o == Outcome::Same));
    let (ir, stats) = lowered(src, "f");
    assert_eq!(stats.allocations, 2, "only the two results are allocated:\n{ir}");
    assert_eq!(
        ir.matches("define internal i32 @\"xcs.f.f.k").count(),
        1,
        "one kernel:\n{ir}"
    );
    // f16 intermediates are rounded per op, as the interpreter stores them.
    let src16 = src.replace("f32", "f16");
    assert!(check(&src16, 2).iter().all(|o| *o == Outcome::Same));
    // cmp/select/cast/broadcast_to inside, dynamic sizes.
    let src = "func.func @f(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> tensor<?x?xi32> {
  %r = tensor.fused %x, %y : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xi32> {
  ^bb0(%a: tensor<?x?xf32>, %b: tensor<?xf32>):
    %bb = tensor.broadcast_to %b : (tensor<?xf32>) -> tensor<?x?xf32>
    %c = tensor.cmp %a, %bb {predicate = \"gt\"} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
    %s = tensor.select %c, %a, %bb : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %k = tensor.constant {value = dense<1.0e2> : tensor<f32>} : tensor<f32>
    %m = tensor.mul %s, %k : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
    %i = tensor.cast %m : (tensor<?x?xf32>) -> tensor<?x?xi32>
    tensor.yield %i : tensor<?x?xi32>
  }
  return %r : tensor<?x?xi32>
}";
    assert_eq!(
        check_args(src, &[rand("f32", &[3, 5], 1), rand("f32", &[5], 2)]),
        Outcome::Same
    );
    // A reduction inside: materialized op by op (fallback).
    let src = "func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tensor.fused %x : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %e = tensor.exp %a : tensor<4x8xf32>
    %s = tensor.reduce %e {axes = array<i64: 1>, keepdims = false, kind = \"sum\"} : (tensor<4x8xf32>) -> tensor<4xf32>
    %l = tensor.log %s : tensor<4xf32>
    tensor.yield %l : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}";
    assert!(check(src, 2).iter().all(|o| *o == Outcome::Same));
    // Integer division by zero inside a fused region.
    let src = "func.func @f(%x: tensor<3xi32>, %y: tensor<3xi32>) -> tensor<3xi32> {
  %r = tensor.fused %x, %y : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32> {
  ^bb0(%a: tensor<3xi32>, %b: tensor<3xi32>):
    %d = tensor.div %a, %b : tensor<3xi32>
    tensor.yield %d : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}";
    let out = check_args(
        src,
        &[
            RtValue::Tensor(Tensor::i32(&[3], &[1, 2, 3])),
            RtValue::Tensor(Tensor::i32(&[3], &[1, 0, 1])),
        ],
    );
    assert!(
        matches!(out, Outcome::BothFailed(ref j, _) if j.contains("division by zero")),
        "{out:?}"
    );
}

#[test]
fn calls_and_control_flow() {
    let _g = lock();
    let src = "func.func private @g(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>) {
  %a = tensor.mul %x, %y : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %a, %y : tensor<?x3xf32>, tensor<3xf32>
}
func.func @f(%x: tensor<4x3xf32>, %y: tensor<3xf32>, %c: i1) -> tensor<3x4xf32> {
  %xd = tensor.reshape %x : (tensor<4x3xf32>) -> tensor<?x3xf32>
  %a, %b = call @g(%xd, %y) : (tensor<?x3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>)
  %t = tensor.transpose %a {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  cf.cond_br %c, ^bb1(%t : tensor<3x?xf32>), ^bb2
^bb1(%u: tensor<3x?xf32>):
  %e = tensor.exp %u : tensor<3x?xf32>
  %s = tensor.reshape %e : (tensor<3x?xf32>) -> tensor<3x4xf32>
  return %s : tensor<3x4xf32>
^bb2:
  %z = tensor.constant {value = dense<0.5> : tensor<4x3xf32>} : tensor<4x3xf32>
  %w0 = tensor.add %z, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %w = tensor.transpose %w0 {perm = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  cf.br ^bb3(%w : tensor<3x4xf32>)
^bb3(%v: tensor<3x4xf32>):
  return %v : tensor<3x4xf32>
}";
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    for c in [0, 1] {
        let args = vec![
            rand("f32", &[4, 3], 1),
            rand("f32", &[3], 2),
            RtValue::Scalar(Scalar::new(c, 1)),
        ];
        assert_eq!(diff_run(&ctx, &m, "f", &args, &jit, src), Outcome::Same);
    }
    // A loop carrying a tensor through a block argument (test dialect integer counter, lowered
    // by `xcs-test-support`).
    let ctx = xcs_test_support::lowering_context();
    let src = "func.func @f(%x: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  %zero = test.constant {value = 0 : i64} : i64
  %one = test.constant {value = 1 : i64} : i64
  cf.br ^head(%x, %zero : tensor<4xf32>, i64)
^head(%acc: tensor<4xf32>, %i: i64):
  %go = test.cmpi %i, %n {predicate = \"slt\"} : (i64, i64) -> i1
  cf.cond_br %go, ^body, ^done
^body:
  %y = tensor.add %acc, %acc : tensor<4xf32>
  %j = test.addi %i, %one : i64
  cf.br ^head(%y, %j : tensor<4xf32>, i64)
^done:
  return %acc : tensor<4xf32>
}";
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    for n in [0, 1, 5] {
        let args = vec![rand("f32", &[4], 3), RtValue::Scalar(Scalar::new(n, 64))];
        assert_eq!(diff_run(&ctx, &m, "f", &args, &jit, src), Outcome::Same);
    }
}

// ---------------------------------------------------------------------------- the LowerOp interface

/// Lowers every public function of `src` in `ctx` (parsed there); the error's message if it fails.
fn lower_error(ctx: &Context, src: &str) -> Option<String> {
    let m = parse(ctx, src);
    xcs_lowering::lower_module(ctx, &m, &opts(), &xcs_lowering::Which::Public).err().map(|e| e.message)
}

const EXP_SRC: &str = "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = tensor.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}";

#[test]
fn a_context_without_the_lowering_says_how_to_attach_it() {
    // A context with the interfaces attached lowers; another one made without them (afterwards,
    // so nothing global was left behind) fails, and the message says how to fix it.
    assert_eq!(lower_error(&xcs_lowering::context(), EXP_SRC), None);
    let message = lower_error(&xcs_dialects::context(), EXP_SRC).expect("lowering without LowerOp must fail");
    assert!(message.starts_with("'tensor.exp' op is not supported by the LLVM backend"), "{message}");
    assert!(message.contains("missing LowerOp registration"), "{message}");
    assert!(message.contains("xcs_lowering::attach_interfaces"), "{message}");
    let mut attached = xcs_dialects::context();
    xcs_lowering::attach_interfaces(&mut attached);
    assert_eq!(lower_error(&attached, EXP_SRC), None);
}

#[test]
fn an_op_without_a_lowering_is_a_located_error() {
    let src = "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = test.pure %x : tensor<3xf32>
  return %y : tensor<3xf32>
}";
    let ctx = xcs_test_support::lowering_context();
    let m = parse(&ctx, src);
    let e = xcs_lowering::lower_module(&ctx, &m, &opts(), &xcs_lowering::Which::Public).unwrap_err();
    assert_eq!(e.message, "'test.pure' op is not supported by the LLVM backend");
    assert_eq!(ctx.loc_file_line_col(e.loc).map(|(_, line, col)| (line, col)), Some((2, 8)));
}

/// An op lowering written outside the crate, as a crate that owns ops writes one: `test.pure`
/// as the identity of its one operand.
struct IdentityLowering;

impl xcs_lowering::LowerOp for IdentityLowering {
    fn lower(
        &self,
        fl: &mut xcs_lowering::codegen::FunctionLowering,
        body: &xcs_ir::Body,
        op: xcs_ir::Op,
    ) -> Result<Vec<xcs_lowering::codegen::Slot>, xcs_lowering::LowerError> {
        Ok(vec![fl.get(body.operand(op, 0))?])
    }
}

#[test]
fn another_crate_attaches_the_lowering_of_its_own_ops() {
    let _g = lock();
    static IDENTITY: IdentityLowering = IdentityLowering;
    let src = "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = test.pure %x : tensor<3xf32>
  %z = tensor.neg %y : tensor<3xf32>
  return %z : tensor<3xf32>
}";
    let mut ctx = xcs_lowering::context();
    xcs_test_support::register_dialect(&mut ctx);
    ctx.attach_interface::<dyn xcs_lowering::LowerOp>(xcs_test_support::dialect::PureOp::DEF, &IDENTITY);
    let m = parse(&ctx, src);
    let x = Tensor::from_f64s(ElemType::F32, &[3], &[1.0, -2.5, 0.0]).unwrap();
    let got = Jit::new(&ctx, &m, opts()).call("f", &[RtValue::Tensor(x)]).unwrap();
    let RtValue::Tensor(t) = &got[0] else { panic!("not a tensor") };
    assert_eq!(t.data.to_f64s().unwrap(), vec![-1.0, 2.5, -0.0]);
}

// ---------------------------------------------------------------------------- programs

/// Every function of the lit suite that uses tensor ops and takes tensors/integers.
#[test]
fn lit_programs() {
    let _g = lock();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test");
    let mut files = Vec::new();
    collect_mlir(&root, &mut files);
    let mut ran = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for chunk in text.split("// -----") {
            if !chunk.contains("tensor.") || !chunk.contains("func.func") || largest_tensor(chunk) > 4096 {
                // Big tensors (fold tests of 256x256 einsums) are too slow for the debug-built
                // interpreter; the ops themselves are covered above.
                continue;
            }
            // with the test dialect (and its lowering): lit programs mix it with tensor ops
            let ctx = xcs_test_support::lowering_context();
            let Ok(m) = parse_module(&ctx, chunk, "lit.mlir", &ParseOptions::default()) else {
                continue;
            };
            if xcs_ir::verifier::verify_module(&ctx, &m, false).is_err() {
                continue;
            }
            let jit = Jit::new(&ctx, &m, opts());
            for name in Interpreter::new(&ctx, &m).function_names() {
                let Some(args) = args_for(&ctx, &m, name, 7, 3) else {
                    continue;
                };
                // Only functions the backend supports (tensor/func/cf/test ops).
                if let Err(e) = jit.compile_for(name, &args) {
                    if e.message().contains("not supported by the LLVM backend")
                        || e.message().contains("external declaration")
                    {
                        continue;
                    }
                    panic!("{}: @{name}: {e}", file.display());
                }
                diff_run(&ctx, &m, name, &args, &jit, &format!("{} @{name}", file.display()));
                ran += 1;
            }
        }
    }
    assert!(ran >= 20, "only {ran} lit functions ran");
    eprintln!("lit functions compared: {ran}");
}

/// The most elements of any static `tensor<AxBx...>` type written in `text`.
fn largest_tensor(text: &str) -> u64 {
    text.split("tensor<")
        .skip(1)
        .map(|rest| {
            let dims: Vec<&str> = rest.split('x').collect();
            let mut n = 1u64;
            for d in &dims[..dims.len().saturating_sub(1)] {
                match d.trim().parse::<u64>() {
                    Ok(v) => n = n.saturating_mul(v),
                    Err(_) => break,
                }
            }
            n
        })
        .max()
        .unwrap_or(0)
}

fn collect_mlir(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_mlir(&p, out);
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

/// SplitMix64 for the op-chain generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
}

/// A random chain of ops over values of shapes [4,6], [6], [1,6], [4,1].
fn random_chain(seed: u64, t: &str) -> String {
    let mut r = Rng(seed);
    let shapes = ["4x6", "6", "1x6", "4x1"];
    let mut vals: Vec<(String, &str)> = vec![("%a".into(), "4x6"), ("%b".into(), "6"), ("%c".into(), "4x1")];
    let mut body = String::new();
    let float = FLOATS.contains(&t);
    let bin: &[&str] = if float {
        &["add", "sub", "mul", "div", "max", "min"]
    } else {
        &["add", "sub", "mul", "max", "min"]
    };
    let un: &[&str] = if float {
        &["neg", "abs", "relu", "exp", "tanh", "sigmoid", "silu"]
    } else {
        &["neg", "abs", "relu"]
    };
    let bshape = |a: &str, b: &str| -> &'static str {
        let full =
            a == "4x6" || b == "4x6" || (a.starts_with("4x1") && b != "4x1") || (b.starts_with("4x1") && a != "4x1");
        if full {
            "4x6"
        } else if a == b {
            shapes.iter().find(|s| **s == a).copied().unwrap()
        } else if (a == "6" && b == "1x6") || (a == "1x6" && b == "6") {
            "1x6"
        } else {
            "4x6"
        }
    };
    for i in 0..(4 + r.next() % 8) {
        let name = format!("%v{i}");
        let k = r.next() % 10;
        let (x, xs) = r.pick(&vals).clone();
        let (y, ys) = r.pick(&vals).clone();
        let (line, shape) = if k < 5 {
            let op = r.pick(bin);
            let s = bshape(xs, ys);
            (
                format!("{name} = tensor.{op} {x}, {y} : (tensor<{xs}x{t}>, tensor<{ys}x{t}>) -> tensor<{s}x{t}>"),
                s,
            )
        } else if k < 8 {
            let op = r.pick(un);
            (format!("{name} = tensor.{op} {x} : tensor<{xs}x{t}>"), xs)
        } else if k < 9 && xs == "4x6" {
            (format!("{name} = tensor.reduce {x} {{axes = array<i64: 0>, keepdims = true, kind = \"sum\"}} : (tensor<4x6x{t}>) -> tensor<1x6x{t}>"), "1x6")
        } else {
            (
                format!("{name} = tensor.broadcast_to {x} : (tensor<{xs}x{t}>) -> tensor<4x6x{t}>"),
                "4x6",
            )
        };
        body.push_str("  ");
        body.push_str(&line);
        body.push('\n');
        vals.push((name, shape));
    }
    let (last, ls) = vals.last().unwrap().clone();
    format!("func.func @f(%a: tensor<4x6x{t}>, %b: tensor<6x{t}>, %c: tensor<4x1x{t}>) -> tensor<{ls}x{t}> {{\n{body}  return {last} : tensor<{ls}x{t}>\n}}")
}

#[test]
fn random_op_chains() {
    let _g = lock();
    let mut n = 0;
    for seed in 0..40u64 {
        for t in ["f32", "i32", "f64", "bf16"] {
            let src = random_chain(seed * 7 + 1, t);
            for o in check(&src, 2) {
                assert!(matches!(o, Outcome::Same | Outcome::BothFailed(..)));
            }
            n += 1;
        }
    }
    assert_eq!(n, 160);
}

// ---------------------------------------------------------------------------- cache, plan, threads

fn lowered(src: &str, name: &str) -> (String, xcs_lowering::PlanStats) {
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let which = xcs_lowering::Which::One {
        name: name.into(),
        symbol: "entry".into(),
        shapes: None,
    };
    let l = xcs_lowering::lower_module(&ctx, &m, &opts(), &which).unwrap();
    (l.ir, l.stats)
}

#[test]
fn compile_cache() {
    let _g = lock();
    let src = "func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {\n  %r = tensor.exp %x : tensor<?xf32>\n  return %r : tensor<?xf32>\n}";
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    jit.call("f", &[rand("f32", &[4], 1)]).unwrap();
    jit.call("f", &[rand("f32", &[4], 2)]).unwrap();
    assert_eq!(jit.compilations(), 1, "same types: compiled once");
    jit.call("f", &[rand("f32", &[5], 2)]).unwrap();
    assert_eq!(jit.compilations(), 2, "another shape: compiled again");
    jit.call("f", &[rand("f32", &[4], 3)]).unwrap();
    assert_eq!(jit.compilations(), 2);
}

#[test]
fn buffer_plan_reuses_and_frees() {
    let _g = lock();
    // A chain of 6 ops on one shape: intermediates die right after their use, so buffers of the
    // same size are reused (the result and at most two intermediates live at once).
    let src = "func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = tensor.exp %x : tensor<64x64xf32>
  %b = tensor.add %a, %x : tensor<64x64xf32>
  %c = tensor.tanh %b : tensor<64x64xf32>
  %d = tensor.mul %c, %b : tensor<64x64xf32>
  %e = tensor.neg %d : tensor<64x64xf32>
  %f = tensor.abs %e : tensor<64x64xf32>
  return %f : tensor<64x64xf32>
}";
    let (_, stats) = lowered(src, "f");
    assert!(stats.allocations <= 3, "{stats:?}");
    assert!(stats.reuses >= 3, "{stats:?}");
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    let before_total = runtime::total_allocations();
    let args = vec![rand("f32", &[64, 64], 1)];
    assert_eq!(diff_run(&ctx, &m, "f", &args, &jit, src), Outcome::Same);
    let allocs = runtime::total_allocations() - before_total;
    assert!(allocs <= 3, "{allocs} allocations at run time");
}

#[test]
fn threads_give_the_same_results() {
    let _g = lock();
    // sigmoid, not tanh: a row sum of 500 values in (0, 1) is well conditioned (a sum of tanh
    // values cancels, and ~1 ulp differences from libm's tanhf add up past atol).
    // The f32 matmul (f32 accumulation) is compared within its error bound.
    let (ta, tb, tr) = ("tensor<300x500xf32>", "tensor<500x40xf32>", "tensor<300x40xf32>");
    let body = format!("  %r = tensor.matmul %a, %b : ({ta}, {tb}) -> {tr}");
    check_matmul_f32(&body, ta, tb, tr, &[300, 500], &[500, 40], 500, 2);
    let src = "func.func @f(%x: tensor<300x500xf32>, %w: tensor<500x40xf64>) -> (tensor<300x500xf32>, tensor<300xf32>, tensor<300x40xf64>) {
  %a = tensor.sigmoid %x : tensor<300x500xf32>
  %s = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = \"sum\"} : (tensor<300x500xf32>) -> tensor<300xf32>
  %x64 = tensor.cast %x : (tensor<300x500xf32>) -> tensor<300x500xf64>
  %m = tensor.matmul %x64, %w : (tensor<300x500xf64>, tensor<500x40xf64>) -> tensor<300x40xf64>
  return %a, %s, %m : tensor<300x500xf32>, tensor<300xf32>, tensor<300x40xf64>
}";
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let mut o = opts();
    o.threads = 2;
    let jit = Jit::new(&ctx, &m, o);
    runtime::set_num_threads(2);
    let args = vec![rand("f32", &[300, 500], 1), rand("f64", &[500, 40], 2)];
    assert_eq!(diff_run(&ctx, &m, "f", &args, &jit, src), Outcome::Same);
    // An error inside a parallel loop is reported once, from the pool.
    let src = "func.func @f(%x: tensor<200x300xi32>) -> tensor<200x300xi32> {\n  %r = tensor.div %x, %x : tensor<200x300xi32>\n  return %r : tensor<200x300xi32>\n}";
    let m = parse(&ctx, src);
    let mut o = opts();
    o.threads = 2;
    let jit = Jit::new(&ctx, &m, o);
    let out = diff_run(&ctx, &m, "f", &[rand("i32", &[200, 300], 5)], &jit, src);
    assert!(
        matches!(out, Outcome::BothFailed(ref j, _) if j.contains("division by zero")),
        "{out:?}"
    );
    runtime::set_num_threads(1);
}

#[test]
fn unsupported_ops_are_located_errors() {
    let _g = lock();
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, "func.func @f(%x: tensor<2xf32>) -> !xcs.str {\n  %t = xcs.format %x {template = \"{}\"} : (tensor<2xf32>) -> !xcs.str\n  return %t : !xcs.str\n}");
    let jit = Jit::new(&ctx, &m, opts());
    let e = jit.call("f", &[rand("f32", &[2], 1)]).unwrap_err();
    assert!(e.message().contains("not supported by the LLVM backend"), "{e}");
}

// ---------------------------------------------------------------------------- f32 matmul kernel

/// The f32 matmul kernel accumulates in f32 (the interpreter in f64): results agree within the
/// dot-product bound |got - want| <= 4 K eps_f32 (|A| @ |B|) + 1e-6 |want|. `body` computes `%r`
/// from `%a` and `%b` with linear ops only; `@bound` runs it on |a|, |b| (the interpreter) to
/// get |A| @ |B|.
fn check_matmul_f32(body: &str, ta: &str, tb: &str, tr: &str, sa: &[usize], sb: &[usize], k: usize, threads: usize) {
    let src = format!(
        "func.func @f(%a: {ta}, %b: {tb}) -> {tr} {{\n{body}\n  return %r : {tr}\n}}\nfunc.func @bound(%a0: {ta}, %b0: {tb}) -> {tr} {{\n  %a = tensor.abs %a0 : {ta}\n  %b = tensor.abs %b0 : {tb}\n{body}\n  return %r : {tr}\n}}"
    );
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, &src);
    for kind in [MatmulKernel::Library, MatmulKernel::Generated] {
        let mut o = opts();
        o.threads = threads;
        o.parallel_threshold = 1;
        o.matmul = kind;
        runtime::set_num_threads(threads);
        let jit = Jit::new(&ctx, &m, o);
        check_matmul_f32_jit(&ctx, &m, &jit, &src, sa, sb, k, threads);
    }
    runtime::set_num_threads(1);
}

/// The calls of [`check_matmul_f32`] with one JIT.
#[allow(clippy::too_many_arguments)]
fn check_matmul_f32_jit(ctx: &Context, m: &Module, jit: &Jit, src: &str, sa: &[usize], sb: &[usize], k: usize, threads: usize) {
    for seed in 1..3u64 {
        let args = vec![rand("f32", sa, seed), rand("f32", sb, seed + 100)];
        let interp = Interpreter::new(ctx, m);
        let want = interp.call("f", args.clone()).expect("interpreter");
        let bound = interp.call("bound", args.clone()).expect("interpreter bound");
        let before = runtime::live_allocations();
        let got = jit
            .call("f", &args)
            .unwrap_or_else(|e| panic!("JIT failed: {e}\n{src}"));
        assert_eq!(before, runtime::live_allocations(), "leak\n{src}");
        let (RtValue::Tensor(g), RtValue::Tensor(w), RtValue::Tensor(bd)) = (&got[0], &want[0], &bound[0]) else {
            panic!("not tensors")
        };
        assert_eq!(g.shape, w.shape, "{src}");
        let (g, w, bd) = (
            g.data.to_f64s().unwrap(),
            w.data.to_f64s().unwrap(),
            bd.data.to_f64s().unwrap(),
        );
        let eps = f32::EPSILON as f64;
        for i in 0..w.len() {
            let tol = 4.0 * k as f64 * eps * bd[i] + 1e-6 * w[i].abs();
            assert!(
                (g[i] - w[i]).abs() <= tol,
                "element {i}: got {}, want {} (bound {tol}), seed {seed}, {threads} threads\n{src}",
                g[i],
                w[i]
            );
        }
    }
}

/// The regions of `reduction_prologues`: (inputs, output, body producing `%y`, whether it must
/// become one kernel; `false`: it must fall back to op by op).
fn reduction_prologue_cases() -> Vec<(Vec<String>, String, &'static str, bool)> {
    let f32s = |shape: &str, n: usize| vec![format!("tensor<{shape}xf32>"); n];
    vec![
        // reduce over the inner axis (vectorized path) of x*x + y
        (f32s("7x300", 2), "tensor<7xf32>".into(), r#"    %m = tensor.mul %x0, %x0 : tensor<7x300xf32>
    %a = tensor.add %m, %x1 : tensor<7x300xf32>
    %y = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<7x300xf32>) -> tensor<7xf32>"#, true),
        // mean over the outer axis (column blocks) of exp(x) - 1 with a scalar constant
        (f32s("300x7", 1), "tensor<7xf32>".into(), r#"    %e = tensor.exp %x0 : tensor<300x7xf32>
    %c = tensor.constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
    %s = tensor.sub %e, %c : (tensor<300x7xf32>, tensor<f32>) -> tensor<300x7xf32>
    %y = tensor.reduce %s {axes = array<i64: 0>, keepdims = false, kind = "mean"} : (tensor<300x7xf32>) -> tensor<7xf32>"#, true),
        // max over both axes of a rank-3 value (generic path)
        (f32s("3x5x9", 2), "tensor<5xf32>".into(), r#"    %a = tensor.sub %x0, %x1 : tensor<3x5x9xf32>
    %y = tensor.reduce %a {axes = array<i64: 0, 2>, keepdims = false, kind = "max"} : (tensor<3x5x9xf32>) -> tensor<5xf32>"#, true),
        // softmax over the rows (vectorized) of 2x
        (f32s("6x100", 1), "tensor<6x100xf32>".into(), r#"    %c = tensor.constant {value = dense<2.0> : tensor<f32>} : tensor<f32>
    %a = tensor.mul %x0, %c : (tensor<6x100xf32>, tensor<f32>) -> tensor<6x100xf32>
    %y = tensor.softmax %a {axis = 1 : i64} : tensor<6x100xf32>"#, true),
        // softmax over axis 0 (scalar path) of x - y
        (f32s("6x10", 2), "tensor<6x10xf32>".into(), r#"    %a = tensor.sub %x0, %x1 : tensor<6x10xf32>
    %y = tensor.softmax %a {axis = 0 : i64} : tensor<6x10xf32>"#, true),
        // layer_norm of a residual add, gamma and beta region arguments
        (vec!["tensor<4x64xf32>".into(), "tensor<4x64xf32>".into(), "tensor<64xf32>".into(), "tensor<64xf32>".into()],
         "tensor<4x64xf32>".into(), r#"    %a = tensor.add %x0, %x1 : tensor<4x64xf32>
    %y = tensor.layer_norm %a, %x2, %x3 {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<4x64xf32>"#, true),
        // a broadcast input (a bias row): not a same-shape leaf, lowered op by op
        (vec!["tensor<7x300xf32>".into(), "tensor<300xf32>".into()], "tensor<7xf32>".into(), r#"    %a = tensor.add %x0, %x1 : (tensor<7x300xf32>, tensor<300xf32>) -> tensor<7x300xf32>
    %y = tensor.reduce %a {axes = array<i64: 1>, keepdims = false, kind = "sum"} : (tensor<7x300xf32>) -> tensor<7xf32>"#, false),
    ]
}

#[test]
fn reduction_prologues() {
    let _g = lock();
    for (ins, out, body, one) in &reduction_prologue_cases() {
        let ins: Vec<&str> = ins.iter().map(|s| s.as_str()).collect();
        let (fused, _) = fused_and_plain(&ins, &[out.as_str()], body, "%y");
        assert!(check(&fused, 2).iter().all(|o| *o == Outcome::Same), "{fused}");
        let (ir, stats) = lowered(&fused, "f");
        let kernels = ir.matches("define internal i32 @\"xcs.f.f.k").count();
        if *one {
            assert_eq!(
                (kernels, stats.allocations),
                (1, 1),
                "one kernel, only the result allocated:\n{fused}\n{ir}"
            );
        } else {
            assert!(kernels >= 2, "expected op by op:\n{fused}");
        }
    }
}

/// A function with `body` as a `tensor.fused` region (`fused`) or as plain ops (`plain`): the
/// body names its inputs `%x0`, `%x1`, ... and ends with its results in `yields`.
fn fused_and_plain(ins: &[&str], outs: &[&str], body: &str, yields: &str) -> (String, String) {
    let params = |p: &str| {
        ins.iter()
            .enumerate()
            .map(|(i, t)| format!("%{p}{i}: {t}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let names = |p: &str| {
        (0..ins.len())
            .map(|i| format!("%{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (it, ot) = (ins.join(", "), outs.join(", "));
    let results = (0..outs.len())
        .map(|i| format!("%r#{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    // The pretty form's type signature: one type when all are equal, else a function type.
    let yt = if outs.iter().all(|t| *t == outs[0]) {
        outs[0].to_string()
    } else {
        format!("({ot}) -> ()")
    };
    let fused = format!(
        "func.func @f({}) -> ({ot}) {{\n  %r:{} = tensor.fused {} : ({it}) -> ({ot}) {{\n  ^bb0({}):\n{body}\n    tensor.yield {yields} : {yt}\n  }}\n  return {results} : {ot}\n}}",
        params("a"),
        outs.len(),
        names("a"),
        params("x")
    );
    let plain = format!(
        "func.func @f({}) -> ({ot}) {{\n{body}\n  return {yields} : {ot}\n}}",
        params("x")
    );
    (fused, plain)
}

#[test]
fn matmul_epilogue() {
    let _g = lock();
    let relu = (
        vec!["tensor<37x300xf32>", "tensor<300x45xf32>", "tensor<45xf32>"],
        vec!["tensor<37x45xf32>"],
        "    %c = tensor.matmul %x0, %x1 : (tensor<37x300xf32>, tensor<300x45xf32>) -> tensor<37x45xf32>
    %s = tensor.add %c, %x2 : (tensor<37x45xf32>, tensor<45xf32>) -> tensor<37x45xf32>
    %y = tensor.relu %s : tensor<37x45xf32>",
        "%y",
    );
    // The matmul's result yielded too; a residual of the full shape; a batched matmul.
    let both = (
        vec!["tensor<2x13x40xf32>", "tensor<40x35xf32>", "tensor<2x13x35xf32>"],
        vec!["tensor<2x13x35xf32>", "tensor<2x13x35xf32>"],
        "    %c = tensor.matmul %x0, %x1 : (tensor<2x13x40xf32>, tensor<40x35xf32>) -> tensor<2x13x35xf32>
    %t = tensor.tanh %c : tensor<2x13x35xf32>
    %y = tensor.add %t, %x2 : tensor<2x13x35xf32>",
        "%c, %y",
    );
    // No f32 result: C is a scratch tensor.
    let cmp = (
        vec!["tensor<20x64xf32>", "tensor<64x33xf32>"],
        vec!["tensor<20x33xi1>", "tensor<20x33xf16>"],
        "    %c = tensor.matmul %x0, %x1 : (tensor<20x64xf32>, tensor<64x33xf32>) -> tensor<20x33xf32>
    %z = tensor.constant {value = dense<0.0> : tensor<f32>} : tensor<f32>
    %p = tensor.cmp %c, %z {predicate = \"gt\"} : (tensor<20x33xf32>, tensor<f32>) -> tensor<20x33xi1>
    %h = tensor.cast %c : (tensor<20x33xf32>) -> tensor<20x33xf16>",
        "%p, %h",
    );
    // Dynamic sizes (the lowering may fall back to op by op; the results must not change).
    let dynamic = (
        vec!["tensor<?x?xf32>", "tensor<?x?xf32>", "tensor<?xf32>"],
        vec!["tensor<?x?xf32>"],
        "    %c = tensor.matmul %x0, %x1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %s = tensor.add %c, %x2 : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
    %y = tensor.relu %s : tensor<?x?xf32>",
        "%y",
    );
    let shapes: [&[&[usize]]; 4] = [
        &[&[37, 300], &[300, 45], &[45]],
        &[&[2, 13, 40], &[40, 35], &[2, 13, 35]],
        &[&[20, 64], &[64, 33]],
        &[&[29, 70], &[70, 50], &[50]],
    ];
    for ((ins, outs, body, yields), shapes) in [relu, both, cmp, dynamic].into_iter().zip(shapes) {
        let (fused, plain) = fused_and_plain(&ins, &outs, body, yields);
        let ctx = xcs_lowering::context();
        let (mf, mp) = (parse(&ctx, &fused), parse(&ctx, &plain));
        // The library's results and the generated kernel's, bit for bit (same K blocking, same
        // FMA order per element), unless the library runs its SSE kernel on a CPU with FMA
        // (XCS_MATMUL_ISA=generic): it rounds each product, the generated kernel fuses them, and
        // the results (an f16 cast among them) agree to rounding only.
        let fused_like_generated = runtime::matmul_isa() != "generic" || !host_has_fma();
        let mut first: Option<Vec<RtValue>> = None;
        for (threads, kind) in [1, 2].into_iter().flat_map(|t| [(t, MatmulKernel::Library), (t, MatmulKernel::Generated)]) {
            let mut o = opts();
            o.threads = threads;
            o.parallel_threshold = 1;
            o.matmul = kind;
            runtime::set_num_threads(threads);
            let (jf, jp) = (Jit::new(&ctx, &mf, o.clone()), Jit::new(&ctx, &mp, o));
            let args: Vec<RtValue> = shapes
                .iter()
                .enumerate()
                .map(|(i, s)| rand("f32", s, 7 + i as u64))
                .collect();
            let before = runtime::live_allocations();
            let got = jf
                .call("f", &args)
                .unwrap_or_else(|e| panic!("JIT failed: {e}\n{fused}"));
            assert_eq!(before, runtime::live_allocations(), "leak\n{fused}");
            let want = jp
                .call("f", &args)
                .unwrap_or_else(|e| panic!("JIT failed: {e}\n{plain}"));
            // Same kernel, same summation order, the same f32 ops after it: bit for bit.
            for (g, w) in got.iter().zip(&want) {
                let (RtValue::Tensor(g), RtValue::Tensor(w)) = (g, w) else {
                    panic!("not tensors")
                };
                assert_eq!(g.shape, w.shape, "{fused}");
                let (g, w) = (g.data.to_f64s().unwrap(), w.data.to_f64s().unwrap());
                let same = g.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{threads} threads, {kind:?}: the epilogue differs from op by op\n{fused}");
            }
            match &first {
                None => first = Some(got),
                Some(f) if fused_like_generated => {
                    assert!(same_bits(f, &got), "{threads} threads, {kind:?} differs from the library\n{fused}")
                }
                Some(f) => {
                    assert_eq!(f.len(), got.len(), "{fused}");
                    for (g, w) in got.iter().zip(f) {
                        if let Err(e) = g.allclose(w, 5e-4, 5e-4) {
                            panic!("{threads} threads, {kind:?} differs from the library's SSE kernel beyond rounding: {e}\n{fused}")
                        }
                    }
                }
            }
        }
        runtime::set_num_threads(1);
    }
    // W3's first layer: one kernel (the matmul with bias and relu per tile), one buffer (the
    // result, which the matmul fills and the epilogue updates in place).
    let (fused, _) = fused_and_plain(
        &["tensor<256x1024xf32>", "tensor<1024x512xf32>", "tensor<512xf32>"],
        &["tensor<256x512xf32>"],
        "    %c = tensor.matmul %x0, %x1 : (tensor<256x1024xf32>, tensor<1024x512xf32>) -> tensor<256x512xf32>
    %s = tensor.add %c, %x2 : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
    %y = tensor.relu %s : tensor<256x512xf32>",
        "%y",
    );
    let (ir, stats) = lowered(&fused, "f");
    assert_eq!(stats.allocations, 1, "only the result is allocated:\n{ir}");
    assert_eq!(
        ir.matches("call i32 @xcs_rt_matmul_f32(").count(),
        1,
        "one call of the library:\n{ir}"
    );
    // The epilogue: one kernel and its callback (which calls it with the captures).
    let kernels = ir.matches("define internal i32 @\"xcs.f.f.k").count();
    let callbacks = ir.matches(".matmul_epilogue.cb\"(ptr %ctx").count();
    assert_eq!((kernels, callbacks), (2, 1), "one epilogue kernel and its callback:\n{ir}");
}

/// Whether two lists of results are equal bit for bit.
fn same_bits(a: &[RtValue], b: &[RtValue]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (RtValue::Tensor(x), RtValue::Tensor(y)) => {
                let (xs, ys) = (x.data.to_f64s().unwrap(), y.data.to_f64s().unwrap());
                x.shape == y.shape && xs.iter().zip(&ys).all(|(p, q)| p.to_bits() == q.to_bits())
            }
            _ => false,
        })
}

/// Whether this CPU has FMA (the generated matmul kernel then fuses its multiply-adds).
fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    return true;
}

#[test]
fn matmul_f32_kernel() {
    let _g = lock();
    for threads in [1, 2] {
        for (m, n, k) in [
            (1, 1, 1),
            (7, 5, 3),
            (17, 33, 65),
            (13, 47, 300),
            (40, 64, 257),
            (100, 70, 20),
        ] {
            check_static_matmul_f32(m, n, k, threads);
            // Dynamic sizes.
            let (da, db, dr) = ("tensor<?x?xf32>", "tensor<?x?xf32>", "tensor<?x?xf32>");
            let body = format!("  %r = tensor.matmul %a, %b : ({da}, {db}) -> {dr}");
            check_matmul_f32(&body, da, db, dr, &[m, k], &[k, n], k, threads);
        }
        // Batch broadcast: lhs 2x3 batch, rhs 3 batch.
        let (ta, tb, tr) = ("tensor<2x3x13x40xf32>", "tensor<3x40x35xf32>", "tensor<2x3x13x35xf32>");
        let body = format!("  %r = tensor.matmul %a, %b : ({ta}, {tb}) -> {tr}");
        check_matmul_f32(&body, ta, tb, tr, &[2, 3, 13, 40], &[3, 40, 35], 40, threads);
        // Transposed operands (strided views) on both sides.
        let (ta, tb, tr) = ("tensor<30x19xf32>", "tensor<45x30xf32>", "tensor<19x45xf32>");
        let body = "  %at = tensor.transpose %a {perm = array<i64: 1, 0>} : (tensor<30x19xf32>) -> tensor<19x30xf32>\n  %bt = tensor.transpose %b {perm = array<i64: 1, 0>} : (tensor<45x30xf32>) -> tensor<30x45xf32>\n  %r = tensor.matmul %at, %bt : (tensor<19x30xf32>, tensor<30x45xf32>) -> tensor<19x45xf32>";
        check_matmul_f32(body, ta, tb, tr, &[30, 19], &[45, 30], 30, threads);
    }
}

/// The library's blocked paths (runtime/xcs_matmul.c) against the interpreter: shapes past one
/// K block and one column block, at 1 and 2 threads (2 threads split N into a column block per
/// thread), with edge tiles in both directions.
#[test]
fn matmul_f32_blocks() {
    let _g = lock();
    for threads in [1, 2] {
        for (m, n, k) in [
            // M <= 96: A packed whole once (K <= 1024), 512-row K blocks (2 here, the second
            // 88 rows) and 128-column blocks (3, the last 44 columns; at two threads one thread's
            // row tiles differ between its column blocks); the next B panel is prefetched.
            (30, 300, 600),
            // M <= 96 with K > 1024: A packed per K block (3 here, the last 76 rows).
            (20, 70, 1100),
            // M > 96: 1024-row K blocks (2 here, the second 6 rows), 12-row tiles (the last
            // with 1 row); one 300-column block at one thread (its first panel, 1.2 MB, over
            // MM_STREAM_PANEL: packed with streaming stores, the second K block's with plain
            // ones), 160 + 140 columns at two (655 and 573 KB panels, neither prefetched).
            (97, 300, 1030),
        ] {
            check_static_matmul_f32(m, n, k, threads);
        }
    }
}

/// `check_matmul_f32` of one static `m x k` by `k x n` matmul.
fn check_static_matmul_f32(m: usize, n: usize, k: usize, threads: usize) {
    let (ta, tb, tr) = (
        format!("tensor<{m}x{k}xf32>"),
        format!("tensor<{k}x{n}xf32>"),
        format!("tensor<{m}x{n}xf32>"),
    );
    let body = format!("  %r = tensor.matmul %a, %b : ({ta}, {tb}) -> {tr}");
    check_matmul_f32(&body, &ta, &tb, &tr, &[m, k], &[k, n], k, threads);
}

// ---------------------------------------------------------------------------- workloads

/// A workload over every element type: an inout kernel launched twice per iteration on row
/// views (contiguous, passed in place), a kernel reading a column view (strided, copied) and
/// writing a transposed output through a reversed index, two grids in sequence.
fn workload_src(e: &str) -> String {
    format!(
        r#"
xcs.kernel @acc {{function_type = (index, tensor<6x{e}>, tensor<6x{e}>) -> (), arg_kinds = ["axis", "in", "inout"]}} {{
^bb0(%i: index, %x: tensor<6x{e}>, %y: tensor<6x{e}>):
  %0 = tensor.max %y, %x : tensor<6x{e}>
  %1 = tensor.add %0, %x : tensor<6x{e}>
  xcs.yield %1 : tensor<6x{e}>
}}
xcs.kernel @col {{function_type = (index, index, tensor<4x{e}>, tensor<2x{e}>, tensor<4x{e}>) -> (), arg_kinds = ["axis", "axis", "in", "in", "out"]}} {{
^bb0(%j: index, %h: index, %x: tensor<4x{e}>, %w: tensor<2x{e}>, %z: tensor<4x{e}>):
  %0 = tensor.slice %x {{start = array<i64: 1>, limit = array<i64: 3>, stride = array<i64: 1>}} : (tensor<4x{e}>) -> tensor<2x{e}>
  %1 = tensor.concat %w, %0 {{axis = 0 : i64}} : (tensor<2x{e}>, tensor<2x{e}>) -> tensor<4x{e}>
  xcs.yield %1 : tensor<4x{e}>
}}
xcs.kernel @pair {{function_type = (tensor<2x{e}>, tensor<2x{e}>, tensor<2x{e}>) -> (), arg_kinds = ["in", "out", "out"]}} {{
^bb0(%x: tensor<2x{e}>, %a: tensor<2x{e}>, %b: tensor<2x{e}>):
  %0 = tensor.neg %x : tensor<2x{e}>
  xcs.yield %x, %0 : (tensor<2x{e}>, tensor<2x{e}>) -> ()
}}
func.func @f(%X: tensor<4x6x{e}>, %W: tensor<3x2x2x{e}>) -> (tensor<4x6x{e}>, tensor<2x6x4x{e}>, tensor<6x4x{e}>) {{
  %Y, %Z, %P = xcs.workload %X, %W : (tensor<4x6x{e}>, tensor<3x2x2x{e}>) -> (tensor<4x6x{e}>, tensor<2x6x4x{e}>, tensor<6x4x{e}>) {{
  ^bb0(%x: tensor<4x6x{e}>, %w: tensor<3x2x2x{e}>, %y: tensor<4x6x{e}>, %z: tensor<2x6x4x{e}>, %p: tensor<6x4x{e}>):
    xcs.parallel_for {{extent = 3 : i64}} : () -> () {{
    ^bb0(%r: index):
      xcs.launch @pair[](%w[%r, 1], %p[2*%r, 0:2], %p[2*%r + 1, 2:4]) : tensor<3x2x2x{e}>, tensor<6x4x{e}>, tensor<6x4x{e}>
    }}
    xcs.parallel_for {{extent = 4 : i64}} : () -> () {{
    ^bb0(%i: index):
      xcs.launch @acc[%i](%x[%i], %y[%i]) : tensor<4x6x{e}>, tensor<4x6x{e}>
      xcs.launch @acc[%i](%x[-%i + 3], %y[%i]) : tensor<4x6x{e}>, tensor<4x6x{e}>
    }}
    xcs.parallel_for {{extent = 3 : i64}} : () -> () {{
    ^bb0(%j: index):
      xcs.parallel_for {{extent = 2 : i64}} : () -> () {{
      ^bb0(%h: index):
        xcs.launch @col[%j, %h](%x[:, 2*%j + %h], %w[%j, %h], %z[-%h + 1, 2*%j + %h]) : tensor<4x6x{e}>, tensor<3x2x2x{e}>, tensor<2x6x4x{e}>
      }}
    }}
  }}
  return %Y, %Z, %P : tensor<4x6x{e}>, tensor<2x6x4x{e}>, tensor<6x4x{e}>
}}
"#
    )
}

#[test]
fn workloads_equal_the_interpreter() {
    let _g = lock();
    for e in NUMERIC {
        for threads in [1, 2] {
            let src = workload_src(e);
            let ctx = xcs_lowering::context();
            let m = parse(&ctx, &src);
            let mut o = opts();
            o.threads = threads;
            let jit = Jit::new(&ctx, &m, o);
            for seed in 0..2 {
                let args = args_for(&ctx, &m, "f", seed + 1, 1).expect("random arguments");
                assert!(matches!(diff_run(&ctx, &m, "f", &args, &jit, &format!("{e}, {threads} threads")), Outcome::Same));
            }
        }
    }
}

#[test]
fn a_kernel_is_one_function_whatever_its_launches() {
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, &workload_src("f32"));
    let which = xcs_lowering::Which::Public;
    let lowered = xcs_lowering::lower_module(&ctx, &m, &opts(), &which).unwrap();
    let defs = |name: &str| lowered.ir.matches(&format!("define internal i32 @\"xcs.f.{name}\"(")).count();
    assert_eq!((defs("acc"), defs("col")), (1, 1), "{}", lowered.ir);
    // the kernels are called from the loop kernels of the two grids (acc twice)
    assert_eq!(lowered.ir.matches("call i32 @\"xcs.f.acc\"(").count(), 2);
    assert_eq!(lowered.ir.matches("call i32 @\"xcs.f.col\"(").count(), 1);
    // the column view of %x is strided: copied to a temporary; the row views are not
    assert!(lowered.ir.contains("call ptr @xcs_rt_alloc(i64 16)"), "{}", lowered.ir);
}

#[test]
fn compile_phases_are_recorded() {
    // Every compilation says where its time went (xcs-run --time-phases): the phases in order,
    // and the size of the LLVM IR the lowering wrote.
    let _g = lock();
    let src = "func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {\n  %r = tensor.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>\n  return %r : tensor<64x16xf32>\n}";
    let ctx = xcs_lowering::context();
    let m = parse(&ctx, src);
    let jit = Jit::new(&ctx, &m, opts());
    let c = jit.compile_for("f", &[rand("f32", &[64, 32], 1), rand("f32", &[32, 16], 2)]).expect("compiles");
    let names: Vec<&str> = c.phases.phases.iter().map(|p| p.name).collect();
    assert_eq!(names, ["lower", "parse", "target", "optimize", "codegen"]);
    assert!(c.phases.ir_bytes == c.ir.len() && c.phases.ir_functions >= 2, "{:?}", c.phases);
    let (wall, cpu) = c.phases.total();
    assert!(wall > std::time::Duration::ZERO && cpu > std::time::Duration::ZERO, "{:?}", c.phases);
    let text = c.phases.render();
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(text.lines().all(|l| l.starts_with("phase: name=") && l.contains(" wall_ms=") && l.contains(" cpu_ms=")), "{text}");
}

/// A module whose innermost loops are all explicit vector code (the streaming softmax of a large
/// f32 matrix), or that has no loops (a library matmul call), gets `Pipeline::VectorCode`; one with a loop left
/// to LLVM's vectorizer (an elementwise op, a `pow` that asks it to interleave, a `cf` body's
/// branches) or a math
/// function's vector variant waiting for the vectorizer (`tanh` with AVX-512) gets
/// `Pipeline::Default`. The JIT says which in its phases; the softmax's results under the
/// vector-code pipeline are checked by `softmax_streaming_rows_same_bits_without_avx512`.
#[test]
fn modules_of_vector_code_get_the_vector_code_pipeline() {
    use xcs_lowering::llvm::Pipeline;
    let _g = lock();
    let unary = |op: &str, ty: &str| format!("func.func @f(%x: {ty}) -> {ty} {{\n  %r = {op} %x : {ty}\n  return %r : {ty}\n}}");
    // 32 MiB: written with streaming stores by `rowwise::softmax_stream`
    let softmax = "func.func @f(%x: tensor<2048x4096xf32>) -> tensor<2048x4096xf32> {\n  %r = tensor.softmax %x {axis = 1 : i64} : tensor<2048x4096xf32>\n  return %r : tensor<2048x4096xf32>\n}";
    let matmul = "func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {\n  %r = tensor.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>\n  return %r : tensor<64x16xf32>\n}";
    let pow = "func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {\n  %r = tensor.pow %x, %x : tensor<1024xf32>\n  return %r : tensor<1024xf32>\n}";
    let ctx = xcs_lowering::context();
    let pipeline = |src: &str| {
        let m = parse(&ctx, src);
        let which = xcs_lowering::Which::One { name: "f".into(), symbol: "entry".into(), shapes: None };
        xcs_lowering::lower_module(&ctx, &m, &opts(), &which).unwrap().pipeline
    };
    assert_eq!(pipeline(softmax), Pipeline::VectorCode);
    assert_eq!(pipeline(matmul), Pipeline::VectorCode);
    assert_eq!(pipeline(&unary("tensor.exp", "tensor<1024xf32>")), Pipeline::Default);
    assert_eq!(pipeline(pow), Pipeline::Default);
    // a `cf` body: its branches may loop
    let branches = "func.func @f(%a: i64, %b: i64, %c: i1) -> i64 {\n  cf.cond_br %c, ^r(%a : i64), ^r(%b : i64)\n^r(%v: i64):\n  return %v : i64\n}";
    assert_eq!(pipeline(branches), Pipeline::Default);
    let avx512 = xcs_lowering::llvm::host_cpu().1.contains("+avx512f");
    if avx512 {
        assert_eq!(pipeline(&unary("tensor.tanh", "tensor<1024xf32>")), Pipeline::Default);
    }
    let m = parse(&ctx, matmul);
    let args = [rand("f32", &[64, 32], 1), rand("f32", &[32, 16], 2)];
    let c = Jit::new(&ctx, &m, opts()).compile_for("f", &args).expect("compiles");
    assert!(c.phases.render().contains(" pipeline=vector-code\n"), "{}", c.phases.render());
}

/// `tensor.dynamic_update_slice` writes into its operand when the operand dies at it
/// (`codegen/inplace.rs`): in a single block the copy's allocation goes; in a `cf` loop (as
/// `lax.scan` exports it) the carry is updated in place, so the allocations per iteration drop
/// by one against the same loop whose old carry is read after the update (which must copy).
/// Both agree with the interpreter and leak nothing.
#[test]
fn dynamic_update_slice_in_place() {
    let _g = lock();
    let single = |after: &str| {
        format!(
            "func.func @f(%x: tensor<64x64xf32>, %u: tensor<1x64xf32>, %i: tensor<i32>) -> tensor<64x64xf32> {{
  %z = tensor.constant {{value = dense<0> : tensor<i32>}} : tensor<i32>
  %t = tensor.exp %x : tensor<64x64xf32>
  %y = tensor.dynamic_update_slice %t, %u, %i, %z : (tensor<64x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<64x64xf32>
{after}  return %y : tensor<64x64xf32>
}}"
        )
    };
    let (_, in_place) = lowered(&single(""), "f");
    let read_after = "  %v = tensor.reshape %t : (tensor<64x64xf32>) -> tensor<4096xf32>\n";
    let (_, copied) = lowered(&single(read_after), "f");
    assert_eq!(copied.allocations, in_place.allocations + 1, "{in_place:?} {copied:?}");
    let loop_src = |after: &str| {
        format!(
            "func.func @f(%x: tensor<16x32xf32>, %n: tensor<i32>) -> tensor<16x32xf32> {{
  %zero = tensor.constant {{value = dense<0> : tensor<i32>}} : tensor<i32>
  %one = tensor.constant {{value = dense<1> : tensor<i32>}} : tensor<i32>
  %acc0 = tensor.constant {{value = dense<0.000000e+00> : tensor<16x32xf32>}} : tensor<16x32xf32>
  cf.br ^loop(%zero, %acc0 : tensor<i32>, tensor<16x32xf32>)
^loop(%i: tensor<i32>, %acc: tensor<16x32xf32>):
  %c = tensor.cmp %i, %n {{predicate = \"lt\"}} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %b = tensor.extract %c : (tensor<i1>) -> i1
  cf.cond_br %b, ^body(%i, %acc : tensor<i32>, tensor<16x32xf32>), ^exit(%acc : tensor<16x32xf32>)
^body(%j: tensor<i32>, %a: tensor<16x32xf32>):
  %row = tensor.dynamic_slice %x, %j, %zero {{sizes = array<i64: 1, 32>}} : (tensor<16x32xf32>, tensor<i32>, tensor<i32>) -> tensor<1x32xf32>
  %a2 = tensor.dynamic_update_slice %a, %row, %j, %zero : (tensor<16x32xf32>, tensor<1x32xf32>, tensor<i32>, tensor<i32>) -> tensor<16x32xf32>
{after}  %j2 = tensor.add %j, %one : tensor<i32>
  cf.br ^loop(%j2, %a2 : tensor<i32>, tensor<16x32xf32>)
^exit(%af: tensor<16x32xf32>):
  return %af : tensor<16x32xf32>
}}"
        )
    };
    let allocations_per_8_steps = |src: &str| {
        let ctx = xcs_lowering::context();
        let m = parse(&ctx, src);
        let jit = Jit::new(&ctx, &m, opts());
        let mut counts = Vec::new();
        for n in [4, 12] {
            let args = vec![rand("f32", &[16, 32], 1), RtValue::Tensor(Tensor::i32(&[], &[n]))];
            let before = runtime::total_allocations();
            assert_eq!(diff_run(&ctx, &m, "f", &args, &jit, src), Outcome::Same);
            counts.push(runtime::total_allocations() - before);
        }
        counts[1] - counts[0]
    };
    let in_place = allocations_per_8_steps(&loop_src(""));
    let read_after = "  %v = tensor.reshape %a : (tensor<16x32xf32>) -> tensor<512xf32>\n";
    let copied = allocations_per_8_steps(&loop_src(read_after));
    assert_eq!(copied, in_place + 8, "allocations per 8 iterations: in place {in_place}, copying {copied}");
}
