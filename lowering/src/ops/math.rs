//! Vectorizable f32 math: `exp`, `log`, `tanh`, `sigmoid` and GELU (tanh form) emitted inline as
//! branch-free LLVM IR (selects, no calls; `contract` multiply-adds become FMAs), so the loop
//! vectorizer turns an elementwise loop that uses them into SIMD code (libm calls block it).
//!
//! - `exp`: the argument is clamped to `[-110, 89]` (NaN passes the clamp: it compares false),
//!   reduced as `x = n ln2 + r` (`n` rounded to nearest even with the 1.5*2^23 trick, `ln2` split
//!   in an exact high part and a low part, Cody-Waite), `e^r` by the Cephes `expf` degree-7
//!   polynomial on `|r| <= ln2/2`, then scaled by `2^n` as two exponent-field multiplies
//!   (`2^(n>>1) * 2^(n - n>>1)`, both normal) so results down to the subnormals round once and
//!   `x >= 88.73` overflows to inf. `+inf -> inf`, `-inf -> 0`, NaN -> NaN. Max relative error
//!   about 2 ulp (2.4e-7) on normal results.
//! - `tanh`: `|x| < 0.625` the Cephes `tanhf` odd polynomial (relative error ~1 ulp, `-0.0` kept),
//!   else `copysign(1 - 2 / (e^(2|x|) + 1), x)` (saturates to +-1, NaN propagates).
//! - `log`: Cephes `logf` (see [`log`]); relative error about 1 ulp.
//! - `sigmoid(x) = 1 / (1 + e^-x)` (as the interpreter writes it).
//! - GELU tanh form: `x * sigmoid(2 t)` with `t = sqrt(2/pi) (x + 0.044715 x^3)`, which equals
//!   `0.5 x (1 + tanh t)` without its cancellation for negative `x`.

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
    let x1 = clamp(f, "ogt", x, 89.0);
    let xc = clamp(f, "olt", &x1, -110.0);
    // n = roundeven(x / ln2); exact while |x / ln2| < 2^22.
    let t = bin(f, "fmul", &xc, &c(std::f32::consts::LOG2_E));
    let magic = c(12582912.0);
    let tm = bin(f, "fadd", &t, &magic);
    let n = bin(f, "fsub", &tm, &magic);
    // r = x - n ln2 (C1 has 9 significant bits: n * C1 is exact).
    let h = bin(f, "fmul", &n, &c(0.693359375));
    let r = bin(f, "fsub", &xc, &h);
    let l = bin(f, "fmul", &n, &c(-2.12194440e-4));
    let r = bin(f, "fsub", &r, &l);
    let z = bin(f, "fmul", &r, &r);
    let p = horner(
        f,
        &r,
        &[
            1.9875691500e-4,
            1.3981999507e-3,
            8.3334519073e-3,
            4.1665795894e-2,
            1.6666665459e-1,
            5.0000001201e-1,
        ],
    );
    let y = bin(f, "fmul", &p, &z);
    let y = bin(f, "fadd", &y, &r);
    let y = bin(f, "fadd", &y, &c(1.0));
    // 2^n as two normal factors; NaN gets n = 0 (fptosi of NaN is poison).
    let nan = f.emit("i1", format!("fcmp uno float {xc}, 0.0"));
    let n0 = f.emit("float", format!("select i1 {nan}, float 0.0, float {n}"));
    let ni = f.emit("i32", format!("fptosi float {n0} to i32"));
    let hi = f.emit("i32", format!("ashr i32 {ni}, 1"));
    let lo = f.emit("i32", format!("sub i32 {ni}, {hi}"));
    let s1 = pow2(f, &hi);
    let s2 = pow2(f, &lo);
    let y = bin(f, "fmul", &y, &s1);
    bin(f, "fmul", &y, &s2)
}

fn intrinsic1(m: &mut ModB, f: &mut FnB, name: &str, x: &Val) -> Val {
    let full = format!("llvm.{name}.f32");
    m.declare(&full, &format!("declare float @{full}(float)"));
    f.emit("float", format!("call float @{full}(float {x})"))
}

/// `tanh x` of a `float`.
pub fn tanh(m: &mut ModB, f: &mut FnB, x: &Val) -> Val {
    let a = intrinsic1(m, f, "fabs", x);
    // Small |x|: x + x^3 P(x^2).
    let z = bin(f, "fmul", x, x);
    let p = horner(
        f,
        &z,
        &[
            -5.70498872745e-3,
            2.06390887954e-2,
            -5.37397155531e-2,
            1.33314422036e-1,
            -3.33332819422e-1,
        ],
    );
    let pz = bin(f, "fmul", &p, &z);
    let pzx = bin(f, "fmul", &pz, x);
    let small = bin(f, "fadd", &pzx, x);
    // x^3 P is +0.0 for x = -0.0: keep the zero itself.
    let zero = f.emit("i1", format!("fcmp oeq float {x}, 0.0"));
    let small = f.emit("float", format!("select i1 {zero}, float {x}, float {small}"));
    // Large |x|: 1 - 2 / (e^(2|x|) + 1), with the sign of x.
    let a2 = bin(f, "fadd", &a, &a);
    let e = exp(f, &a2);
    let e1 = bin(f, "fadd", &e, &c(1.0));
    let q = bin(f, "fdiv", &c(2.0), &e1);
    let big = bin(f, "fsub", &c(1.0), &q);
    m.declare("llvm.copysign.f32", "declare float @llvm.copysign.f32(float, float)");
    let big = f.emit(
        "float",
        format!("call float @llvm.copysign.f32(float {big}, float {x})"),
    );
    let is_small = f.emit("i1", format!("fcmp olt float {a}, {}", c(0.625)));
    f.emit("float", format!("select i1 {is_small}, float {small}, float {big}"))
}

/// `ln x` of a `float` (Cephes `logf`): `x = m 2^e` with `m` in `[sqrt(1/2), sqrt(2))` from the
/// bits (subnormals scaled by 2^23 first), `ln m` by a degree-9 polynomial in `m - 1`, plus
/// `e ln2` (split). `ln 0 = -inf` (also `-0.0`), `ln x = NaN` for `x < 0`, `ln inf = inf`.
pub fn log(f: &mut FnB, x: &Val) -> Val {
    let sub = f.emit("i1", format!("fcmp olt float {x}, {}", c(f32::MIN_POSITIVE)));
    let scaled = bin(f, "fmul", x, &c(8388608.0));
    let xs = f.emit("float", format!("select i1 {sub}, float {scaled}, float {x}"));
    let adj = f.emit("i32", format!("select i1 {sub}, i32 -23, i32 0"));
    let bits = f.emit("i32", format!("bitcast float {xs} to i32"));
    let ex = f.emit("i32", format!("lshr i32 {bits}, 23"));
    let ex = f.emit("i32", format!("and i32 {ex}, 255"));
    let ex = f.emit("i32", format!("add i32 {ex}, -126"));
    let ex = f.emit("i32", format!("add i32 {ex}, {adj}"));
    let mb = f.emit("i32", format!("and i32 {bits}, 8388607"));
    let mb = f.emit("i32", format!("or i32 {mb}, 1056964608"));
    let m = f.emit("float", format!("bitcast i32 {mb} to float"));
    // m in [0.5, 1): below sqrt(1/2) use 2m - 1 and e - 1, else m - 1.
    let lo = f.emit(
        "i1",
        format!("fcmp olt float {m}, {}", c(std::f32::consts::FRAC_1_SQRT_2)),
    );
    let m2 = bin(f, "fadd", &m, &m);
    let mm = f.emit("float", format!("select i1 {lo}, float {m2}, float {m}"));
    let mm = bin(f, "fsub", &mm, &c(1.0));
    let e1 = f.emit("i32", format!("sub i32 {ex}, 1"));
    let ei = f.emit("i32", format!("select i1 {lo}, i32 {e1}, i32 {ex}"));
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
