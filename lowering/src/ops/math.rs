//! Vectorizable f32 math: `exp`, `log`, `tanh`, `sigmoid`, GELU (both forms) and `pow` emitted inline as
//! branch-free LLVM IR (selects, no calls; `contract` multiply-adds become FMAs), so the loop
//! vectorizer turns an elementwise loop that uses them into SIMD code (libm calls block it).
//!
//! - `exp`: the argument is clamped to `[-110, 89]` (NaN passes the clamp: it compares false),
//!   reduced as `x = n ln2 + r` (`n` rounded to nearest even with the 1.5*2^23 trick, `ln2` split
//!   in an exact high part and a low part, Cody-Waite), `e^r` by a degree-6 polynomial fitted for
//!   this project ([`EXPM1_Q`]) on `|r| <= ln2/2`, then scaled by `2^n` as two exponent-field
//!   multiplies (`2^(n>>1) * 2^(n - n>>1)`, both normal) so results down to the subnormals round
//!   once and `x >= 88.73` overflows to inf. `+inf -> inf`, `-inf -> 0`, NaN -> NaN. Max relative
//!   error about 1 ulp (0.86 ulp over 4M points) on normal results.
//! - `tanh`: `copysign(E / (E + 2), x)` with `E = expm1(2|x|)` from the reduction of `exp`
//!   (relative accurate at every `x`, about 2 ulp; `-0.0` kept, saturates to +-1, NaN propagates).
//! - `log`: Cephes `logf` (see [`log`]); relative error about 1 ulp.
//! - `sigmoid(x) = 1 / (1 + e^-x)` (as the interpreter writes it).
//! - GELU tanh form: `x * sigmoid(2 t)` with `t = sqrt(2/pi) (x + 0.044715 x^3)`, which equals
//!   `0.5 x (1 + tanh t)` without its cancellation for negative `x`.
//! - `pow`: `e^(y ln|x|)` in two-float arithmetic (FMA-exact products, Fast2Sum), about 1.4 ulp;
//!   GELU erf form: `x erfc(-x/sqrt 2) / 2` with `erfc` as `t e^(P(t) - a^2)`, `a^2` exact as
//!   two floats, about 6 ulp (see [`pow`], [`gelu_erf`]). Both in f32, 16 lanes per AVX-512
//!   vector.

use crate::ir::{FnB, ModB, Val};

fn c(x: f32) -> Val {
    Val::f32(x)
}

/// A float op with the `contract` flag: LLVM may fuse a multiply and an add into an FMA (one
/// rounding instead of two; fewer instructions).
fn bin(f: &mut FnB, op: &str, a: &Val, b: &Val) -> Val {
    f.emit("float", format!("{op} contract float {a}, {b}"))
}

/// `a * b + c` (an FMA where the target has one).
fn mul_add(f: &mut FnB, a: &Val, b: &Val, cc: &Val) -> Val {
    let p = bin(f, "fmul", a, b);
    bin(f, "fadd", &p, cc)
}

/// Horner evaluation of `coefs[0] x^(n-1) + ... + coefs[n-1]`.
fn horner(f: &mut FnB, x: &Val, coefs: &[f32]) -> Val {
    let mut p = c(coefs[0]);
    for &k in &coefs[1..] {
        p = mul_add(f, &p, x, &c(k));
    }
    p
}

/// The same polynomial as [`horner`], as two Horner chains in `x^2` (the even and the odd
/// coefficients), `even(x^2) + x odd(x^2)`: two more operations, but a dependency chain half as
/// long (a long polynomial in a vectorized loop is latency-bound: the core cannot keep enough
/// iterations in flight).
fn horner2(f: &mut FnB, x: &Val, coefs: &[f32]) -> Val {
    let n = coefs.len();
    let of_parity = |p: usize| -> Vec<f32> { (0..n).filter(|i| (n - 1 - i) % 2 == p).map(|i| coefs[i]).collect() };
    let x2 = bin(f, "fmul", x, x);
    let even = horner(f, &x2, &of_parity(0));
    let odd = horner(f, &x2, &of_parity(1));
    mul_add(f, &odd, x, &even)
}

/// `select (fcmp pred x, k), k, x` (NaN `x` stays: ordered predicates compare false).
fn clamp(f: &mut FnB, pred: &str, x: &Val, k: f32) -> Val {
    let b = f.emit("i1", format!("fcmp {pred} float {x}, {}", c(k)));
    f.emit("float", format!("select i1 {b}, float {}, float {x}", c(k)))
}

/// `2^e` for an i32 `e` in `[-126, 127]` (exponent bits).
fn pow2(f: &mut FnB, e: &Val) -> Val {
    let b = f.emit("i32", format!("add i32 {e}, 127"));
    let s = f.emit("i32", format!("shl i32 {b}, 23"));
    f.emit("float", format!("bitcast i32 {s} to float"))
}

/// `e^x` of a `float`.
pub fn exp(f: &mut FnB, x: &Val) -> Val {
    let (y, s1, s2) = exp_parts(f, x);
    let y = bin(f, "fmul", &y, &s1);
    bin(f, "fmul", &y, &s2)
}

/// `e^x = y * s1 * s2` with `y` in `[sqrt(1/2), sqrt 2]` and the powers of two `s1`, `s2` both
/// normal: a caller that multiplies `y` by more factors before `s1 * s2` rounds into the
/// subnormals only once.
fn exp_parts(f: &mut FnB, x: &Val) -> (Val, Val, Val) {
    let x1 = clamp(f, "ogt", x, 89.0);
    let xc = clamp(f, "olt", &x1, -110.0);
    let (r, ni) = exp_reduced(f, &xc);
    let y = exp_of_reduced(f, &r);
    // 2^n as two normal factors.
    let hi = f.emit("i32", format!("ashr i32 {ni}, 1"));
    let lo = f.emit("i32", format!("sub i32 {ni}, {hi}"));
    let s1 = pow2(f, &hi);
    let s2 = pow2(f, &lo);
    (y, s1, s2)
}

/// `e^x = y * s * 2^-offset` for `x` in `[-(126 + offset) ln2, (127 - offset) ln2]` (no clamp)
/// or NaN, with `y` in `[sqrt(1/2), sqrt 2]` and `s = 2^(n + offset)` normal: one power of two
/// where [`exp_parts`] builds two (a caller whose argument has a known range, which multiplies
/// by the constant `2^-offset` last, rounds into the subnormals once).
fn exp_offset(f: &mut FnB, x: &Val, offset: i32) -> (Val, Val) {
    let (r, ni) = exp_reduced(f, x);
    let y = exp_of_reduced(f, &r);
    let e = f.emit("i32", format!("add i32 {ni}, {offset}"));
    (y, pow2(f, &e))
}

/// `e^r - 1 = r + r^2 Q(r)` on `|r| <= ln2/2`: `Q` of degree 4, highest first, fitted for this
/// project (iteratively reweighted least squares on Chebyshev nodes against `expm1`, relative
/// error of `e^r` 3.1e-9 in double; in f32 the final rounding dominates, as with the degree-5
/// Cephes `expf` polynomial it replaces, which costs one multiply-add more).
const EXPM1_Q: [f32; 5] = [
    0.001_381_461_7,
    0.008_368_71,
    0.041_668_39,
    0.166_665_21,
    0.499_999_94,
];

/// `1.5 * 2^23`: adding it to a float below `2^22` in magnitude rounds it to an integer (to
/// nearest even), which then sits in the low bits of the sum.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// The range reduction of `e^x` for `x` in `[-110, 89]` or NaN: `x = n ln2 + r` with
/// `|r| <= ln2/2` and `n` an `i32` (read from the bits of the rounding's sum, not converted:
/// for NaN, `r` is NaN and `n` any integer).
fn exp_reduced(f: &mut FnB, xc: &Val) -> (Val, Val) {
    // n = roundeven(x / ln2); exact while |x / ln2| < 2^22.
    let t = bin(f, "fmul", xc, &c(std::f32::consts::LOG2_E));
    let magic = c(ROUND_MAGIC);
    let tm = bin(f, "fadd", &t, &magic);
    let n = bin(f, "fsub", &tm, &magic);
    // r = x - n ln2 (C1 has 9 significant bits: n * C1 is exact).
    let h = bin(f, "fmul", &n, &c(0.693359375));
    let r = bin(f, "fsub", xc, &h);
    let l = bin(f, "fmul", &n, &c(-2.12194440e-4));
    let r = bin(f, "fsub", &r, &l);
    // n from the bits of tm (1.5 * 2^23 + n: the low bits are n); for a NaN x it is some
    // integer, and the result NaN whatever power of two it makes
    let tb = f.emit("i32", format!("bitcast float {tm} to i32"));
    let ni = f.emit("i32", format!("sub i32 {tb}, {}", ROUND_MAGIC.to_bits()));
    (r, ni)
}

/// `e^r - 1 = r + r^2 Q(r)` of a reduced `r` (relative accurate near 0).
fn expm1_reduced(f: &mut FnB, r: &Val) -> Val {
    let z = bin(f, "fmul", r, r);
    let p = horner(f, r, &EXPM1_Q);
    mul_add(f, &p, &z, r)
}

/// `e^r` of a reduced `r`: the same polynomial as [`expm1_reduced`] plus one, in one Horner
/// chain (`... r + 1) r + 1`: one operation less).
fn exp_of_reduced(f: &mut FnB, r: &Val) -> Val {
    let mut coefs = EXPM1_Q.to_vec();
    coefs.extend([1.0, 1.0]);
    horner(f, r, &coefs)
}

fn intrinsic1(m: &mut ModB, f: &mut FnB, name: &str, x: &Val) -> Val {
    let full = format!("llvm.{name}.f32");
    m.declare(&full, &format!("declare float @{full}(float)"));
    f.emit("float", format!("call float @{full}(float {x})"))
}

/// `tanh x` of a `float`: `tanh |x| = E / (E + 2)` with `E = e^(2|x|) - 1` as `expm1`
/// (`2^n em + (2^n - 1)` from [`exp_reduced`] and [`expm1_reduced`], relative accurate down to
/// `x = 0`, so no separate small-argument branch), `2|x|` clamped to 20 (`tanh 10` is 1 in f32),
/// then the sign of `x` (`-0.0` kept, NaN propagates).
pub fn tanh(m: &mut ModB, f: &mut FnB, x: &Val) -> Val {
    let a = intrinsic1(m, f, "fabs", x);
    let a2 = bin(f, "fadd", &a, &a);
    let a2 = clamp(f, "ogt", &a2, 20.0);
    let (r, ni) = exp_reduced(f, &a2);
    let em = expm1_reduced(f, &r);
    let s = pow2(f, &ni);
    let sm1 = bin(f, "fsub", &s, &c(1.0));
    let e = mul_add(f, &em, &s, &sm1);
    let d = bin(f, "fadd", &e, &c(2.0));
    let t = bin(f, "fdiv", &e, &d);
    copysign(m, f, &t, x)
}

/// `x = m 2^e` for a finite `x > 0` (subnormals too, scaled by 2^23 first), with `m` in
/// `[sqrt(1/2), sqrt 2)` and `e` an `i32`, from the bits: subtracting the bits of `sqrt(1/2)`
/// carries into the exponent field exactly when the mantissa is at least `sqrt 2`'s, so the
/// shifted difference is `e` and `m` is `x` with `e` taken out of its exponent (no compare).
fn split_exponent(f: &mut FnB, x: &Val) -> (Val, Val) {
    let sub = f.emit("i1", format!("fcmp olt float {x}, {}", c(f32::MIN_POSITIVE)));
    let scaled = bin(f, "fmul", x, &c(8388608.0));
    let xs = f.emit("float", format!("select i1 {sub}, float {scaled}, float {x}"));
    let bits = f.emit("i32", format!("bitcast float {xs} to i32"));
    let t = f.emit("i32", format!("sub i32 {bits}, {}", std::f32::consts::FRAC_1_SQRT_2.to_bits()));
    let e0 = f.emit("i32", format!("ashr i32 {t}, 23"));
    let eb = f.emit("i32", format!("shl i32 {e0}, 23"));
    let mb = f.emit("i32", format!("sub i32 {bits}, {eb}"));
    let m = f.emit("float", format!("bitcast i32 {mb} to float"));
    let adj = f.emit("i32", format!("select i1 {sub}, i32 -23, i32 0"));
    let e = f.emit("i32", format!("add i32 {e0}, {adj}"));
    (m, e)
}

/// `ln x` of a `float` (Cephes `logf`): `x = m 2^e` with `m` in `[sqrt(1/2), sqrt(2))` from the
/// bits (subnormals scaled by 2^23 first), `ln m` by a degree-9 polynomial in `m - 1`, plus
/// `e ln2` (split). `ln 0 = -inf` (also `-0.0`), `ln x = NaN` for `x < 0`, `ln inf = inf`.
pub fn log(f: &mut FnB, x: &Val) -> Val {
    let (m, ei) = split_exponent(f, x);
    let mm = bin(f, "fsub", &m, &c(1.0));
    let e = f.emit("float", format!("sitofp i32 {ei} to float"));
    let z = bin(f, "fmul", &mm, &mm);
    let p = horner(
        f,
        &mm,
        &[
            7.0376836292e-2,
            -1.1514610310e-1,
            1.1676998740e-1,
            -1.2420140846e-1,
            1.4249322787e-1,
            -1.6668057665e-1,
            2.0000714765e-1,
            -2.4999993993e-1,
            3.3333331174e-1,
        ],
    );
    let y = bin(f, "fmul", &p, &z);
    let y = bin(f, "fmul", &y, &mm);
    let t = bin(f, "fmul", &e, &c(-2.12194440e-4));
    let y = bin(f, "fadd", &y, &t);
    let t = bin(f, "fmul", &z, &c(-0.5));
    let y = bin(f, "fadd", &y, &t);
    let r = bin(f, "fadd", &mm, &y);
    let t = bin(f, "fmul", &e, &c(0.693359375));
    let r = bin(f, "fadd", &r, &t);
    let sel = |f: &mut FnB, pred: &str, k: f32, v: &str, r: &Val| {
        let b = f.emit("i1", format!("fcmp {pred} float {x}, {}", c(k)));
        f.emit("float", format!("select i1 {b}, float {v}, float {r}"))
    };
    let r = sel(f, "oeq", f32::INFINITY, "0x7FF0000000000000", &r);
    let r = sel(f, "oeq", 0.0, "0xFFF0000000000000", &r);
    let r = sel(f, "olt", 0.0, "0x7FF8000000000000", &r);
    let nan = f.emit("i1", format!("fcmp uno float {x}, 0.0"));
    f.emit("float", format!("select i1 {nan}, float {x}, float {r}"))
}

/// `1 / (1 + e^-x)` of a `float`.
pub fn sigmoid(f: &mut FnB, x: &Val) -> Val {
    let n = f.emit("float", format!("fneg float {x}"));
    let e = exp(f, &n);
    let d = bin(f, "fadd", &c(1.0), &e);
    bin(f, "fdiv", &c(1.0), &d)
}

/// GELU, tanh form, of a `float`: `x / (1 + e^(-2 t))`, `t = sqrt(2/pi) (x + 0.044715 x^3)`.
pub fn gelu_tanh(f: &mut FnB, x: &Val) -> Val {
    // The argument rounded op by op as the interpreter writes it (no FMA: exp amplifies it).
    let plain = |f: &mut FnB, op: &str, a: &Val, b: &Val| f.emit("float", format!("{op} float {a}, {b}"));
    let p1 = plain(f, "fmul", &c(0.044715), x);
    let p2 = plain(f, "fmul", &p1, x);
    let p3 = plain(f, "fmul", &p2, x);
    let s = plain(f, "fadd", x, &p3);
    let k = c((-2.0 * (2.0 / std::f64::consts::PI).sqrt()) as f32);
    let t = plain(f, "fmul", &k, &s);
    let e = exp(f, &t);
    let d = bin(f, "fadd", &c(1.0), &e);
    bin(f, "fdiv", x, &d)
}

/// A float op without fast-math flags: the error-free transformations below need every
/// rounding exactly where it is written (no FMA contraction).
fn exact(f: &mut FnB, op: &str, a: &Val, b: &Val) -> Val {
    f.emit("float", format!("{op} float {a}, {b}"))
}

/// `fma(a, b, c)` with one rounding (the low part of a product, a division's remainder).
fn fma(m: &mut ModB, f: &mut FnB, a: &Val, b: &Val, cc: &Val) -> Val {
    m.declare("llvm.fma.f32", "declare float @llvm.fma.f32(float, float, float)");
    f.emit(
        "float",
        format!("call float @llvm.fma.f32(float {a}, float {b}, float {cc})"),
    )
}

/// `copysign(mag, sign)`: `mag` with the sign bit of `sign`.
fn copysign(m: &mut ModB, f: &mut FnB, mag: &Val, sign: &Val) -> Val {
    m.declare("llvm.copysign.f32", "declare float @llvm.copysign.f32(float, float)");
    f.emit(
        "float",
        format!("call float @llvm.copysign.f32(float {mag}, float {sign})"),
    )
}

/// `(p, e)` with `p + e = a * b` exactly (`p` the rounded product, `e` its error by an FMA).
fn two_prod(m: &mut ModB, f: &mut FnB, a: &Val, b: &Val) -> (Val, Val) {
    let p = exact(f, "fmul", a, b);
    let np = f.emit("float", format!("fneg float {p}"));
    let e = fma(m, f, a, b, &np);
    (p, e)
}

/// `(hi, lo)` with `hi + lo = a + b` exactly, for `|a| >= |b|` or `a` of the larger exponent
/// (Fast2Sum).
fn fast_two_sum(f: &mut FnB, a: &Val, b: &Val) -> (Val, Val) {
    let hi = exact(f, "fadd", a, b);
    let d = exact(f, "fsub", &hi, a);
    let lo = exact(f, "fsub", b, &d);
    (hi, lo)
}

/// `ln 2` in two parts: `LN2_HI` has 16 significant bits, so `e * LN2_HI` is exact for every
/// float exponent `e`.
const LN2_HI: f32 = 0.693_145_751_953_125;
const LN2_LO: f32 = 1.428_606_8e-6;

/// `ln x` of a finite `x > 0` as two floats `hi + lo`, about 2^-32 relative: `x = m 2^e`,
/// `ln m = 2 atanh(s)` with `s = (m - 1) / (m + 1)` carried as `s + sl` (the remainder of the
/// division by an FMA, `m + 1` itself as two floats), `2 atanh(s) = 2s + s z R(z)` with
/// `z = s^2 <= 0.0295` and `R` the series to `z^5` (truncation below 2^-35 relative).
fn ln_two_float(m: &mut ModB, f: &mut FnB, x: &Val) -> (Val, Val) {
    let (mant, ei) = split_exponent(f, x);
    let e = f.emit("float", format!("sitofp i32 {ei} to float"));
    let u = exact(f, "fsub", &mant, &c(1.0));
    let (v, vl) = fast_two_sum(f, &c(1.0), &mant);
    let r = exact(f, "fdiv", &c(1.0), &v);
    let s = exact(f, "fmul", &u, &r);
    let ns = f.emit("float", format!("fneg float {s}"));
    let rem = fma(m, f, &ns, &v, &u);
    let rem = fma(m, f, &ns, &vl, &rem);
    let sl = exact(f, "fmul", &rem, &r);
    let z = bin(f, "fmul", &s, &s);
    let coefs: Vec<f32> = (1..=6).rev().map(|k| 2.0 / (2 * k + 1) as f32).collect();
    let rz = horner(f, &z, &coefs);
    let sz = bin(f, "fmul", &s, &z);
    // e ln2 + 2s as a Fast2Sum (|e LN2_HI| >= 0.69 > |2s| unless e = 0, when it is exact).
    let a = exact(f, "fmul", &e, &c(LN2_HI));
    let b = exact(f, "fadd", &s, &s);
    let (hi, lo) = fast_two_sum(f, &a, &b);
    // the small terms, added as multiply-adds: e LN2_LO, 2 sl, s z R(z)
    let lo = mul_add(f, &e, &c(LN2_LO), &lo);
    let lo = mul_add(f, &sl, &c(2.0), &lo);
    let lo = mul_add(f, &sz, &rz, &lo);
    (hi, lo)
}

/// `x^y` of `float`s, as `e^(y ln|x|)` in two-float arithmetic (about 1 ulp): `ln|x| = L + Ll`
/// ([`ln_two_float`]), `y L` split exactly by an FMA, the sum renormalized so that
/// `e^(h + l) = e^h (1 + l)`, and `2^n` applied last (one rounding into the subnormals). C99
/// `powf`'s special cases as selects: `pow(x, ±0) = 1` and `pow(1, y) = 1` even for NaN,
/// `pow(-1, ±inf) = 1`, otherwise NaN propagates; a finite `x < 0` with a finite non-integer
/// `y` is NaN; a negative `x` (`-0.0` and `-inf` too) with an odd integer `y` gives the negated
/// result; zeros and infinities follow from `ln 0 = -inf`, `ln inf = inf` and the clamped
/// exponential (overflow to inf, underflow to 0 and subnormals).
pub fn pow(m: &mut ModB, f: &mut FnB, x: &Val, y: &Val) -> Val {
    let ax = intrinsic1(m, f, "fabs", x);
    let (l, ll) = ln_two_float(m, f, &ax);
    let zero = f.emit("i1", format!("fcmp oeq float {ax}, 0.0"));
    let l = f.emit("float", format!("select i1 {zero}, float {}, float {l}", c(f32::NEG_INFINITY)));
    // ln inf = inf, and a NaN x makes L NaN (NaN then propagates through y L)
    let big = f.emit("i1", format!("fcmp uge float {ax}, {}", c(f32::INFINITY)));
    let l = f.emit("float", format!("select i1 {big}, float {ax}, float {l}"));
    // y (L + Ll) = th + tl.
    let (th, tl) = two_prod(m, f, y, &l);
    let yll = exact(f, "fmul", y, &ll);
    let tl = exact(f, "fadd", &tl, &yll);
    // pow(x, +-0) = 1 even for NaN and infinite x; pow(+-1, y) = 1 (L = 0) even for an infinite
    // or NaN y (-1 with a non-integer y is made NaN below): the exponent is 0 there.
    let l0 = f.emit("i1", format!("fcmp oeq float {l}, 0.0"));
    let y0 = f.emit("i1", format!("fcmp oeq float {y}, 0.0"));
    let one = f.or(&l0, &y0);
    let th = f.emit("float", format!("select i1 {one}, float 0.0, float {th}"));
    // Past |th| = 256 the result is 0 or inf whatever the low part: drop it there (it is not
    // small against 1 and an infinite or NaN th would make it NaN).
    let ath = intrinsic1(m, f, "fabs", &th);
    let fin = f.emit("i1", format!("fcmp olt float {ath}, {}", c(256.0)));
    let not_one = f.emit("i1", format!("xor i1 {one}, true"));
    let keep = f.and(&fin, &not_one);
    let tl = f.emit("float", format!("select i1 {keep}, float {tl}, float 0.0"));
    let (h, lo) = fast_two_sum(f, &th, &tl);
    let lo = f.emit("float", format!("select i1 {fin}, float {lo}, float 0.0"));
    let (p, s1, s2) = exp_parts(f, &h);
    let p = fma(m, f, &p, &lo, &p);
    let r = bin(f, "fmul", &p, &s1);
    let r = bin(f, "fmul", &r, &s2);
    // y an integer (trunc y = y: also for +-inf, whose halves are integers too; not for NaN),
    // an odd one (|y| >= 2^24 floats are even): the result takes the sign of x.
    let ytr = intrinsic1(m, f, "trunc", y);
    let yint = f.emit("i1", format!("fcmp oeq float {ytr}, {y}"));
    let half = exact(f, "fmul", y, &c(0.5));
    let htr = intrinsic1(m, f, "trunc", &half);
    let hodd = f.emit("i1", format!("fcmp une float {htr}, {half}"));
    let yodd = f.and(&yint, &hodd);
    let signed = copysign(m, f, &r, x);
    let r = f.emit("float", format!("select i1 {yodd}, float {signed}, float {r}"));
    // A finite x < 0 (bits in [0x80000001, 0xff7fffff]) with a non-integer y (finite, or NaN):
    // NaN.
    let xb = f.emit("i32", format!("bitcast float {x} to i32"));
    let xo = f.emit("i32", format!("sub i32 {xb}, {}", 0x8000_0001u32 as i32));
    let xneg = f.emit("i1", format!("icmp ult i32 {xo}, {}", 0x7f7f_ffff));
    let notint = f.emit("i1", format!("xor i1 {yint}, true"));
    let bad = f.and(&xneg, &notint);
    f.emit("float", format!("select i1 {bad}, float {}, float {r}", c(f32::NAN)))
}

/// `ln(erfc(a) e^(a^2) / t)` with `t = 1 / (1 + a/2)`, `a` in `[0, 10.5]`, as a polynomial in
/// `t - ERFC_T0`: coefficients highest degree first, fitted for this project (iteratively
/// reweighted least squares on Chebyshev nodes against scipy's `erfcx`; max error 7e-8 in
/// double, 1.8e-7 evaluated in f32).
const ERFC_T0: f32 = 0.58;
const ERFC_P: [f32; 10] = [
    0.145_758_11,
    0.075_266_03,
    -0.247_297_84,
    -0.037_325_16,
    0.296_018_27,
    -0.040_216_655,
    -0.406_893_73,
    0.094_776_146,
    1.368_118_8,
    -0.563_156_84,
];

/// GELU, erf form, of a `float`: `x Phi(x)` with `Phi(x) = erfc(-x / sqrt 2) / 2`, all in f32.
/// With `a = |x| / sqrt 2`, `E = erfc(a) = t e^(P(t) - a^2)` is relative accurate for every `a`
/// (so the tail for negative `x`, where `1 + erf` cancels, keeps its digits): `a^2 = x^2 / 2` is
/// taken exactly as a sum of two floats (an FMA gives the low part) and the rounding of
/// `P - a^2` is recovered (Fast2Sum), so `e^(h + l) = e^h (1 + l)` loses nothing to the large
/// exponent. `Phi = E/2` for `x < 0`, `1 - E/2` otherwise. Max relative error 4.1e-7 (6 ulp)
/// on normal results over 4.4M points (results in the subnormals are rounded more than once).
/// `E = 0` past `|x| > 14.85` (`erfc(10.5) ~ 1e-49`): `gelu(-inf)` is NaN (`-inf * 0`, as the formula and the
/// interpreter give it), `gelu(inf)` inf, NaN stays NaN.
pub fn gelu_erf(m: &mut ModB, f: &mut FnB, x: &Val) -> Val {
    let ax = intrinsic1(m, f, "fabs", x);
    // 1 + a/2 with a = |x| / sqrt 2 clamped to 10.5 (|x| to 10.5 sqrt 2)
    let axc = clamp(f, "ogt", &ax, (10.5 * std::f64::consts::SQRT_2) as f32);
    let den = mul_add(f, &axc, &c((0.5 * std::f64::consts::FRAC_1_SQRT_2) as f32), &c(1.0));
    let t = bin(f, "fdiv", &c(1.0), &den);
    let st = bin(f, "fsub", &t, &c(ERFC_T0));
    let p = horner2(f, &st, &ERFC_P);
    // -a^2 = -x^2 / 2 = A + Al exactly (x / -2 is exact; FMA gives the product's low part).
    let hx = exact(f, "fmul", x, &c(-0.5));
    let (neg_a, al) = two_prod(m, f, &hx, x);
    // h + err = A + p (exact when |A| >= |p|; otherwise both are small and err is noise).
    let (h, err) = fast_two_sum(f, &neg_a, &p);
    let lo = exact(f, "fadd", &err, &al);
    // h is in [-112, 1] for |x| <= 14.85 (past it E is 0): 2^n as 2^(n + 64) 2^-64
    let h = clamp(f, "olt", &h, -130.0);
    let (e, s) = exp_offset(f, &h, 64);
    let e = fma(m, f, &e, &lo, &e);
    let ec = bin(f, "fmul", &t, &e);
    let tail = f.emit("i1", format!("fcmp ogt float {ax}, {}", c(14.85)));
    let ec = f.emit("float", format!("select i1 {tail}, float 0.0, float {ec}"));
    // E/2 = ec s 2^-65 (ec s is exact: a power of two in the normal range)
    let es = bin(f, "fmul", &ec, &s);
    let down = c(2f32.powi(-65));
    // x < 0: x E/2, scaled by 2^-65 last (one rounding when the result is subnormal).
    let neg = bin(f, "fmul", x, &es);
    let neg = bin(f, "fmul", &neg, &down);
    // x >= 0: x (1 - E/2).
    let e2 = bin(f, "fmul", &es, &down);
    let upper = bin(f, "fsub", &c(1.0), &e2);
    let pos_r = bin(f, "fmul", x, &upper);
    let pos = f.emit("i1", format!("fcmp oge float {x}, 0.0"));
    f.emit("float", format!("select i1 {pos}, float {pos_r}, float {neg}"))
}
