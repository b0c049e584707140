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
//! - `log`: Cephes `logf` (see [`log`]), 0.73 ulp; on AVX-512 the table reduction of `pow`'s
//!   logarithm in one float ([`log_wide`]), 0.72 ulp.
//! - `sigmoid(x) = 1 / (1 + e^-x)` (as the interpreter writes it), `1 + e^-x` with one exponent-field
//!   multiply fused with the `+ 1` (results below 4e-39 flush to 0, see [`one_plus_exp`]); `silu`
//!   as `x sigmoid(x)` with the full-range `exp`.
//! - `tanh` and `sigmoid` also as quotients `num / den` with the division left out
//!   ([`tanh_quotient`], [`sigmoid_quotient`]), so that a product of them in a fused nest takes
//!   one division ([`Quotient`]).
//! - GELU tanh form: `x * sigmoid(2 t)` with `t = sqrt(2/pi) (x + 0.044715 x^3)`, which equals
//!   `0.5 x (1 + tanh t)` without its cancellation for negative `x`; its `1 + e^(-2 t)` as
//!   sigmoid's.
//! - `pow`: `e^(y ln|x|)` in two-float arithmetic (FMA-exact products, Fast2Sum), about 1.3 ulp
//!   (2 ulp worst on results near overflow from `x` near 1);
//!   GELU erf form: `x erfc(-x/sqrt 2) / 2` with `erfc` as `t e^(P(t) - a^2)`, `a^2` exact as
//!   two floats, about 6 ulp (see [`pow`], [`gelu_erf`]). Both in f32, 16 lanes per AVX-512
//!   vector.
//! - `sin`, `cos`: reduced by pi (cos around the odd multiples of pi/2) so that one odd
//!   polynomial serves every quadrant, 1.8 ulp, libm for `|x| >= 2^17` ([`sin_cos`]); `erf`:
//!   on AVX-512 16 degree-5 polynomials on `[k/4, (k+1)/4]` whose coefficients each lane reads
//!   with `vpermps`, 1.1 ulp ([`erf_wide`]), otherwise an odd polynomial below 0.921875 and one
//!   degree-14 polynomial above, 1.6 ulp ([`erf`]); `rem`.
//!
//! The code is written once over [`MathBuilder`], for scalar `float` values or for `<16 x float>`. On
//! AVX-512 targets `log`, `pow`, `sin`, `cos`, `erf` and `rem` are called through a pair of functions
//! ([`vector_pair`]); `pow`'s 16-lane form takes the exponent and mantissa with
//! `vgetexpps`/`vgetmantps`, computes `ln` from a 32-entry table read with `vpermi2ps` instead
//! of a division ([`ln_two_float_wide`]), tests
//! the parity of `y` with `vreduceps`, scales by `2^n` with `vscalefps` and classifies negative
//! bases with `vfpclassps` (54 vector instructions per 16 elements).

use std::collections::BTreeMap;

use crate::codegen::llvm_ir::{FunctionBuilder, ModuleBuilder, Val};

/// `llvm.NAME.SUFFIX` of `args` with result type `ty` (`float`, `double` or `<16 x float>`,
/// declared once per module).
pub fn intrinsic(m: &mut ModuleBuilder, f: &mut FunctionBuilder, name: &str, ty: &'static str, args: &[&Val]) -> Val {
    let suffix = match ty {
        "float" => "f32",
        "double" => "f64",
        "<16 x float>" => "v16f32",
        t => t,
    };
    let full = format!("llvm.{name}.{suffix}");
    let params: Vec<&str> = args.iter().map(|a| a.ty).collect();
    m.declare(&full, &format!("declare {ty} @{full}({})", params.join(", ")));
    let a: Vec<String> = args.iter().map(|a| a.t()).collect();
    f.emit(ty, format!("call {ty} @{full}({})", a.join(", ")))
}

/// Where math is emitted: the function being built, the module (declarations) and the width:
/// scalar `float` code, which the loop vectorizer widens, or `<16 x float>` code that uses
/// AVX-512 instructions (`vgetmantps`, `vgetexpps`, `vscalefps`) where they save work; see
/// [`pow_call`].
pub struct MathBuilder<'a> {
    pub m: &'a mut ModuleBuilder,
    pub f: &'a mut FunctionBuilder,
    wide: bool,
}

impl<'a> MathBuilder<'a> {
    /// Scalar `float` code.
    pub fn scalar(m: &'a mut ModuleBuilder, f: &'a mut FunctionBuilder) -> Self {
        MathBuilder { m, f, wide: false }
    }
    /// `<16 x float>` code for a loop the lowering writes as vector code itself: AVX-512
    /// instructions where the functions that use them check `m.avx512` ([`exp`]'s [`scale`]);
    /// otherwise the same operations as the scalar code on 16 lanes (two 8-lane halves on AVX2).
    pub fn vector(m: &'a mut ModuleBuilder, f: &'a mut FunctionBuilder) -> Self {
        MathBuilder { m, f, wide: true }
    }
    fn fty(&self) -> &'static str {
        if self.wide {
            "<16 x float>"
        } else {
            "float"
        }
    }
    fn ity(&self) -> &'static str {
        if self.wide {
            "<16 x i32>"
        } else {
            "i32"
        }
    }
    fn bty(&self) -> &'static str {
        if self.wide {
            "<16 x i1>"
        } else {
            "i1"
        }
    }
    /// A constant of scalar type `ty` (text `s`), splat across the lanes when wide.
    fn splat(&self, ty: &'static str, wide_ty: &'static str, s: String) -> Val {
        if self.wide {
            Val::new(wide_ty, format!("splat ({ty} {s})"))
        } else {
            Val::new(ty, s)
        }
    }
    fn c(&self, x: f32) -> Val {
        self.splat("float", "<16 x float>", Val::f32(x).s)
    }
    fn ci(&self, v: i32) -> Val {
        self.splat("i32", "<16 x i32>", v.to_string())
    }
    /// A float op with the `contract` flag: LLVM may fuse a multiply and an add into an FMA
    /// (one rounding instead of two; fewer instructions).
    fn bin(&mut self, op: &str, a: &Val, b: &Val) -> Val {
        let t = self.fty();
        self.f.emit(t, format!("{op} contract {t} {a}, {b}"))
    }
    /// A float op without fast-math flags: the error-free transformations below need every
    /// rounding exactly where it is written (no FMA contraction).
    fn exact(&mut self, op: &str, a: &Val, b: &Val) -> Val {
        let t = self.fty();
        self.f.emit(t, format!("{op} {t} {a}, {b}"))
    }
    /// `a * b + c` (an FMA where the target has one).
    fn mul_add(&mut self, a: &Val, b: &Val, cc: &Val) -> Val {
        let p = self.bin("fmul", a, b);
        self.bin("fadd", &p, cc)
    }
    fn fneg(&mut self, a: &Val) -> Val {
        let t = self.fty();
        self.f.emit(t, format!("fneg {t} {a}"))
    }
    fn fcmp(&mut self, pred: &str, a: &Val, b: &Val) -> Val {
        let (t, bt) = (self.fty(), self.bty());
        self.f.emit(bt, format!("fcmp {pred} {t} {a}, {b}"))
    }
    fn select(&mut self, c: &Val, a: &Val, b: &Val) -> Val {
        self.f.emit(a.ty, format!("select {}, {}, {}", c.t(), a.t(), b.t()))
    }
    /// An integer op (`add`, `sub`, `and`, `or`, `shl`, `lshr`, `ashr`) on `i32` lanes.
    fn int(&mut self, op: &str, a: &Val, b: &Val) -> Val {
        let t = self.ity();
        self.f.emit(t, format!("{op} {t} {a}, {b}"))
    }
    fn icmp(&mut self, pred: &str, a: &Val, b: &Val) -> Val {
        let (t, bt) = (self.ity(), self.bty());
        self.f.emit(bt, format!("icmp {pred} {t} {a}, {b}"))
    }
    /// `and`, `or`, `xor` of conditions.
    fn logic(&mut self, op: &str, a: &Val, b: &Val) -> Val {
        let bt = self.bty();
        self.f.emit(bt, format!("{op} {bt} {a}, {b}"))
    }
    fn not(&mut self, a: &Val) -> Val {
        let t = self.splat("i1", "<16 x i1>", "true".into());
        self.logic("xor", a, &t)
    }
    /// The bits of a float.
    fn bits(&mut self, a: &Val) -> Val {
        let (t, it) = (self.fty(), self.ity());
        self.f.emit(it, format!("bitcast {t} {a} to {it}"))
    }
    /// The float of some bits.
    fn float_of_bits(&mut self, a: &Val) -> Val {
        let (t, it) = (self.fty(), self.ity());
        self.f.emit(t, format!("bitcast {it} {a} to {t}"))
    }
    fn sitofp(&mut self, a: &Val) -> Val {
        let (t, it) = (self.fty(), self.ity());
        self.f.emit(t, format!("sitofp {it} {a} to {t}"))
    }
    /// `llvm.NAME` on floats (`.f32`, `.v16f32`).
    fn intr(&mut self, name: &str, args: &[&Val]) -> Val {
        let t = self.fty();
        intrinsic(self.m, self.f, name, t, args)
    }
    /// `fma(a, b, c)` with one rounding (the low part of a product, a division's remainder).
    fn fma(&mut self, a: &Val, b: &Val, cc: &Val) -> Val {
        self.intr("fma", &[a, b, cc])
    }
    /// `copysign(mag, sign)`: `mag` with the sign bit of `sign`.
    fn copysign(&mut self, mag: &Val, sign: &Val) -> Val {
        self.intr("copysign", &[mag, sign])
    }
    /// `llvm.x86.avx512.mask.NAME.ps.512` with every lane on and the current rounding mode:
    /// `args`, then `imm` (when given), then the pass-through, mask and rounding operands.
    fn avx512(&mut self, name: &str, args: &[&Val], imm: Option<i32>) -> Val {
        let t = "<16 x float>";
        let full = format!("llvm.x86.avx512.mask.{name}.ps.512");
        let mut params = vec![t; args.len()];
        let mut vals: Vec<String> = args.iter().map(|a| format!("{t} {a}")).collect();
        if let Some(i) = imm {
            params.push("i32");
            vals.push(format!("i32 {i}"));
        }
        params.extend([t, "i16", "i32"]);
        vals.extend([format!("{t} zeroinitializer"), "i16 -1".into(), "i32 4".into()]);
        self.m
            .declare(&full, &format!("declare {t} @{full}({})", params.join(", ")));
        self.f.emit(t, format!("call {t} @{full}({})", vals.join(", ")))
    }
    /// `table[idx & 31]` in each lane (`vpermi2ps` on the table's two halves); wide only.
    fn lookup32(&mut self, table: &[f32; 32], idx: &Val) -> Val {
        let t = "<16 x float>";
        let half = |h: &[f32]| {
            let items: Vec<String> = h.iter().map(|&x| format!("float {}", Val::f32(x).s)).collect();
            format!("<{}>", items.join(", "))
        };
        let name = "llvm.x86.avx512.vpermi2var.ps.512";
        self.m
            .declare(name, &format!("declare {t} @{name}({t}, <16 x i32>, {t})"));
        self.f.emit(
            t,
            format!(
                "call {t} @{name}({t} {}, <16 x i32> {idx}, {t} {})",
                half(&table[..16]),
                half(&table[16..])
            ),
        )
    }

    /// `table[idx & 15]` in each lane (`vpermps`); wide only.
    fn lookup16(&mut self, table: &[f32; 16], idx: &Val) -> Val {
        let t = "<16 x float>";
        let items: Vec<String> = table.iter().map(|&x| format!("float {}", Val::f32(x).s)).collect();
        let name = "llvm.x86.avx512.permvar.sf.512";
        self.m.declare(name, &format!("declare {t} @{name}({t}, <16 x i32>)"));
        self.f.emit(t, format!("call {t} @{name}({t} <{}>, <16 x i32> {idx})", items.join(", ")))
    }
}

/// Horner evaluation of `coefs[0] x^(n-1) + ... + coefs[n-1]`.
fn horner(mb: &mut MathBuilder, x: &Val, coefs: &[f32]) -> Val {
    let mut p = mb.c(coefs[0]);
    for &k in &coefs[1..] {
        let kk = mb.c(k);
        p = mb.mul_add(&p, x, &kk);
    }
    p
}

/// The same polynomial as [`horner`], as two Horner chains in `x^2` (the even and the odd
/// coefficients), `even(x^2) + x odd(x^2)`: two more operations, but a dependency chain half as
/// long (a long polynomial in a vectorized loop is latency-bound: the core cannot keep enough
/// iterations in flight).
fn horner2(mb: &mut MathBuilder, x: &Val, coefs: &[f32]) -> Val {
    let n = coefs.len();
    let of_parity = |p: usize| -> Vec<f32> { (0..n).filter(|i| (n - 1 - i) % 2 == p).map(|i| coefs[i]).collect() };
    let x2 = mb.bin("fmul", x, x);
    let even = horner(mb, &x2, &of_parity(0));
    let odd = horner(mb, &x2, &of_parity(1));
    mb.mul_add(&odd, x, &even)
}

/// `select (fcmp pred x, k), k, x` (NaN `x` stays: ordered predicates compare false).
fn clamp(mb: &mut MathBuilder, pred: &str, x: &Val, k: f32) -> Val {
    let kk = mb.c(k);
    let b = mb.fcmp(pred, x, &kk);
    mb.select(&b, &kk, x)
}

/// `2^e` for an i32 `e` in `[-126, 127]` (exponent bits).
fn pow2(mb: &mut MathBuilder, e: &Val) -> Val {
    let b = mb.int("add", e, &mb.ci(127));
    let s = mb.int("shl", &b, &mb.ci(23));
    mb.float_of_bits(&s)
}

/// `v 2^n` for an integer `n` in `[-252, 254]`, given as a float `n` and as an i32 `ni`, with
/// one rounding when the result is subnormal: `vscalefps` when wide on AVX-512, otherwise two
/// normal exponent-field factors `2^(n>>1)` and `2^(n - n>>1)` (the same result).
fn scale(mb: &mut MathBuilder, v: &Val, n: &Val, ni: &Val) -> Val {
    if mb.wide && mb.m.avx512 {
        return mb.avx512("scalef", &[v, n], None);
    }
    let hi = mb.int("ashr", ni, &mb.ci(1));
    let lo = mb.int("sub", ni, &hi);
    let s1 = pow2(mb, &hi);
    let s2 = pow2(mb, &lo);
    let y = mb.bin("fmul", v, &s1);
    mb.bin("fmul", &y, &s2)
}

/// `e^x` of a `float` (or of 16 lanes).
pub fn exp(mb: &mut MathBuilder, x: &Val) -> Val {
    let x1 = clamp(mb, "ogt", x, 89.0);
    exp_nonpositive(mb, &x1)
}

/// `e^x` of an `x <= 89` or NaN (softmax's `x - max <= 0`): [`exp`] without the upper clamp,
/// which such `x` never reach (the same results; two instructions less per vector to compile
/// and run).
pub fn exp_nonpositive(mb: &mut MathBuilder, x: &Val) -> Val {
    let xc = clamp(mb, "olt", x, -110.0);
    let (r, n, ni) = exp_reduced(mb, &xc);
    let y = exp_of_reduced(mb, &r);
    scale(mb, &y, &n, &ni)
}

/// The reduction of `e^x` ([`exp_reduced`]) after clamping `x` to `[-110, 89]`: `e^x` is
/// `e^r 2^n` for every `x` (`e^r` in `[sqrt(1/2), sqrt 2]`), to be applied with [`scale`], so
/// a caller that multiplies `e^r` by more factors first rounds into the subnormals once.
fn exp_clamped(mb: &mut MathBuilder, x: &Val) -> (Val, Val, Val) {
    let x1 = clamp(mb, "ogt", x, 89.0);
    let xc = clamp(mb, "olt", &x1, -110.0);
    exp_reduced(mb, &xc)
}

/// `e^r - 1 = r + r^2 Q(r)` on `|r| <= ln2/2`: `Q` of degree 4, highest first, fitted for this
/// project (iteratively reweighted least squares on Chebyshev nodes against `expm1`, relative
/// error of `e^r` 3.1e-9 in double; in f32 the final rounding dominates, as with the degree-5
/// Cephes `expf` polynomial it replaces, which costs one multiply-add more).
const EXPM1_Q: [f32; 5] = [0.001_381_461_7, 0.008_368_71, 0.041_668_39, 0.166_665_21, 0.499_999_94];

/// `1.5 * 2^23`: adding it to a float below `2^22` in magnitude rounds it to an integer (to
/// nearest even), which then sits in the low bits of the sum.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// The range reduction of `e^x` for `x` in `[-110, 89]` or NaN: `x = n ln2 + r` with
/// `|r| <= ln2/2`, `n` as a float and as an `i32` (read from the bits of the rounding's sum, not
/// converted: for NaN, `r` is NaN and `n` any integer). `ln2` in two parts (Cody-Waite: `n` times
/// the first, of 9 significant bits, is exact).
fn exp_reduced(mb: &mut MathBuilder, xc: &Val) -> (Val, Val, Val) {
    exp_reduced_by(mb, xc, &[0.693359375, -2.12194440e-4])
}

/// [`exp_reduced`] with `ln2` as the one float nearest it, for `tanh`'s `x` in `[0, 20]`: `r`
/// then errs by `n 1.9e-9` (`n <= 29`), a relative error of `e^x` that `tanh`'s `E / (E + 2)`
/// damps by `2 / (E + 2)` (`n >= 1` only where `E >= 0.4`): below 1.3e-9, and `tanh` on 4M
/// points gives the same worst and mean ulp error as with two parts. One multiply-add less.
fn exp_reduced_short(mb: &mut MathBuilder, xc: &Val) -> (Val, Val, Val) {
    exp_reduced_by(mb, xc, &[std::f32::consts::LN_2])
}

/// `x = n ln2 + r` with `ln2` the sum of `ln2_parts` (each `n * part` subtracted in turn).
fn exp_reduced_by(mb: &mut MathBuilder, xc: &Val, ln2_parts: &[f32]) -> (Val, Val, Val) {
    // n = roundeven(x / ln2); exact while |x / ln2| < 2^22.
    let t = mb.bin("fmul", xc, &mb.c(std::f32::consts::LOG2_E));
    let magic = mb.c(ROUND_MAGIC);
    let tm = mb.bin("fadd", &t, &magic);
    let n = mb.bin("fsub", &tm, &magic);
    let mut r = xc.clone();
    for &part in ln2_parts {
        let h = mb.bin("fmul", &n, &mb.c(part));
        r = mb.bin("fsub", &r, &h);
    }
    // n from the bits of tm (1.5 * 2^23 + n: the low bits are n); for a NaN x it is some
    // integer, and the result NaN whatever power of two it makes
    let tb = mb.bits(&tm);
    let ni = mb.int("sub", &tb, &mb.ci(ROUND_MAGIC.to_bits() as i32));
    (r, n, ni)
}

/// `e^r - 1 = r + r^2 Q(r)` of a reduced `r` (relative accurate near 0).
fn expm1_reduced(mb: &mut MathBuilder, r: &Val) -> Val {
    let z = mb.bin("fmul", r, r);
    let p = horner(mb, r, &EXPM1_Q);
    mb.mul_add(&p, &z, r)
}

/// `e^r` of a reduced `r`: the same polynomial as [`expm1_reduced`] plus one, in one Horner
/// chain (`... r + 1) r + 1`: one operation less).
fn exp_of_reduced(mb: &mut MathBuilder, r: &Val) -> Val {
    let mut coefs = EXPM1_Q.to_vec();
    coefs.extend([1.0, 1.0]);
    horner(mb, r, &coefs)
}

/// `tanh x` of a `float`, the quotient of [`tanh_quotient`] (about 2 ulp; `-0.0` kept,
/// saturates to +-1, NaN propagates).
pub fn tanh(mb: &mut MathBuilder, x: &Val) -> Val {
    let (num, den) = tanh_quotient(mb, x);
    mb.bin("fdiv", &num, &den)
}

/// `tanh x` as a quotient `num / den`: `tanh |x| = E / (E + 2)` with `E = e^(2|x|) - 1` as
/// `expm1` (`2^n em + (2^n - 1)` from [`exp_reduced_short`] and [`expm1_reduced`], relative
/// accurate down to `x = 0`, so no separate small-argument branch), `2|x|` clamped to 20 (`tanh
/// 10` is 1 in f32), the sign of `x` on `num`. `|num|` and `den` are below [`TANH_BOUND_LOG2`].
pub fn tanh_quotient(mb: &mut MathBuilder, x: &Val) -> (Val, Val) {
    let a = mb.intr("fabs", &[x]);
    let a2 = mb.bin("fadd", &a, &a);
    let a2 = clamp(mb, "ogt", &a2, 20.0);
    let (r, _, ni) = exp_reduced_short(mb, &a2);
    let em = expm1_reduced(mb, &r);
    let s = pow2(mb, &ni);
    let sm1 = mb.bin("fsub", &s, &mb.c(1.0));
    let e = mb.mul_add(&em, &s, &sm1);
    let den = mb.bin("fadd", &e, &mb.c(2.0));
    (mb.copysign(&e, x), den)
}

/// `log2` of a bound on `|num|` and `den` of [`tanh_quotient`] (`e^20 + 1 < 2^29`).
pub const TANH_BOUND_LOG2: u32 = 29;
/// `log2` of a bound on `|num|` and `den` of [`sigmoid_quotient`].
pub const SIGMOID_BOUND_LOG2: u32 = 1;

/// `sigmoid x` as a quotient `num / den`, both in `[0, 2]`: with `q = e^-|x|`,
/// `1 / (1 + q)` for `x >= 0` and `q / (1 + q)` below (`-|x|` clamped to -104, `2^n` 0 for
/// `n < -126`, so results below about 8e-39 are 0). Costs a compare and a select more than
/// [`sigmoid`]; it pays where two quotients share one division ([`Quotient`]).
pub fn sigmoid_quotient(mb: &mut MathBuilder, x: &Val) -> (Val, Val) {
    let a = mb.intr("fabs", &[x]);
    let na = mb.fneg(&a);
    let xc = clamp(mb, "olt", &na, -104.0);
    let (r, _, ni) = exp_reduced(mb, &xc);
    let y = exp_of_reduced(mb, &r);
    let s = pow2_or_zero(mb, &ni);
    let q = mb.bin("fmul", &y, &s);
    let den = mb.bin("fadd", &q, &mb.c(1.0));
    // the sign bit (an integer test: no FP compare; -0.0 and NaN do not care which side)
    let xb = mb.bits(x);
    let neg = mb.icmp("slt", &xb, &mb.ci(0));
    (mb.select(&neg, &q, &mb.c(1.0)), den)
}

/// `2^e` for an i32 `e` in `[-150, 127]`, 0 below -126 (the biased exponent field saturated at
/// 0 by an integer max).
fn pow2_or_zero(mb: &mut MathBuilder, e: &Val) -> Val {
    let b = mb.int("add", e, &mb.ci(127));
    let neg = mb.icmp("slt", &b, &mb.ci(0));
    let b = mb.select(&neg, &mb.ci(0), &b);
    let s = mb.int("shl", &b, &mb.ci(23));
    mb.float_of_bits(&s)
}

/// A float computed as `num / den`, its division not yet emitted: `(a / b) (c / d)` is
/// `(a c) / (b d)`, one division instead of two, exact in the reals; in floats it holds while
/// the products stay finite (the bounds of [`TANH_BOUND_LOG2`], [`SIGMOID_BOUND_LOG2`] add up
/// below 128), and as `den >= 1` the numerators' product underflows only where the result
/// does. Used by `tensor.fused` nests for products of `tanh` and `sigmoid` results.
#[derive(Clone, Debug)]
pub struct Quotient {
    pub num: Val,
    pub den: Val,
}

impl Quotient {
    /// `self * other` as a quotient (two multiplies).
    pub fn times(&self, mb: &mut MathBuilder, other: &Quotient) -> Quotient {
        Quotient {
            num: mb.bin("fmul", &self.num, &other.num),
            den: mb.bin("fmul", &self.den, &other.den),
        }
    }

    /// The quotient's value (one division).
    pub fn value(&self, mb: &mut MathBuilder) -> Val {
        mb.bin("fdiv", &self.num, &self.den)
    }
}

/// `x = m 2^e` for a finite `x > 0` (subnormals too, scaled by 2^23 first), with `m` in
/// `[sqrt(1/2), sqrt 2)` and `e` a float, from the bits: subtracting the bits of `sqrt(1/2)`
/// carries into the exponent field exactly when the mantissa is at least `sqrt 2`'s, so the
/// shifted difference is `e` and `m` is `x` with `e` taken out of its exponent (no compare).
fn split_exponent(mb: &mut MathBuilder, x: &Val) -> (Val, Val) {
    let sub = mb.fcmp("olt", x, &mb.c(f32::MIN_POSITIVE));
    let scaled = mb.bin("fmul", x, &mb.c(8388608.0));
    let xs = mb.select(&sub, &scaled, x);
    let bits = mb.bits(&xs);
    let t = mb.int("sub", &bits, &mb.ci(std::f32::consts::FRAC_1_SQRT_2.to_bits() as i32));
    let e0 = mb.int("ashr", &t, &mb.ci(23));
    let eb = mb.int("shl", &e0, &mb.ci(23));
    let mb_bits = mb.int("sub", &bits, &eb);
    let m = mb.float_of_bits(&mb_bits);
    let adj = mb.select(&sub, &mb.ci(-23), &mb.ci(0));
    let e = mb.int("add", &e0, &adj);
    (m, mb.sitofp(&e))
}

/// `ln x` of a `float` (Cephes `logf`): `x = m 2^e` with `m` in `[sqrt(1/2), sqrt(2))` from the
/// bits (subnormals scaled by 2^23 first), `ln m` by a degree-9 polynomial in `m - 1`, plus
/// `e ln2` (split). `ln 0 = -inf` (also `-0.0`), `ln x = NaN` for `x < 0`, `ln inf = inf`.
pub fn log(mb: &mut MathBuilder, x: &Val) -> Val {
    let (m, e) = split_exponent(mb, x);
    let mm = mb.bin("fsub", &m, &mb.c(1.0));
    let z = mb.bin("fmul", &mm, &mm);
    let p = horner(
        mb,
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
    let y = mb.bin("fmul", &p, &z);
    let y = mb.bin("fmul", &y, &mm);
    let t = mb.bin("fmul", &e, &mb.c(-2.12194440e-4));
    let y = mb.bin("fadd", &y, &t);
    let t = mb.bin("fmul", &z, &mb.c(-0.5));
    let y = mb.bin("fadd", &y, &t);
    let r = mb.bin("fadd", &mm, &y);
    let t = mb.bin("fmul", &e, &mb.c(0.693359375));
    let r = mb.bin("fadd", &r, &t);
    let sel = |mb: &mut MathBuilder, pred: &str, k: f32, v: f32, r: &Val| {
        let b = mb.fcmp(pred, x, &mb.c(k));
        mb.select(&b, &mb.c(v), r)
    };
    let r = sel(mb, "oeq", f32::INFINITY, f32::INFINITY, &r);
    let r = sel(mb, "oeq", 0.0, f32::NEG_INFINITY, &r);
    let r = sel(mb, "olt", 0.0, f32::NAN, &r);
    let nan = mb.fcmp("uno", x, &mb.c(0.0));
    mb.select(&nan, x, &r)
}

/// `1 + e^x` of a `float`, for the logistic family (`1 / (1 + e^-x)` and `x / (1 + e^-2t)`),
/// where `e^x` only matters down to where `1 + e^x` rounds to 1: `x` clamped to `[-87, 88.8]`,
/// so `n` is in `[-126, 128]` and `2^n` one exponent-field value (`2^128`'s field is +inf: from
/// `x` about 88.37 on the sum overflows, one multiply instead of [`scale`]'s two), and the `+ 1`
/// fused into the last multiply. Where it overflows early, `1 / sum` is 0 in place of a
/// subnormal below 4e-39 (as a flush-to-zero would give) and `x / sum` -0 in place of a value
/// below 4e-38 (GELU, `|x|` about 10); every other result is as with [`exp`].
fn one_plus_exp(mb: &mut MathBuilder, x: &Val) -> Val {
    let x1 = clamp(mb, "ogt", x, 88.8);
    let xc = clamp(mb, "olt", &x1, -87.0);
    let (r, _, ni) = exp_reduced(mb, &xc);
    let y = exp_of_reduced(mb, &r);
    let s = pow2(mb, &ni);
    mb.mul_add(&y, &s, &mb.c(1.0))
}

/// `1 / (1 + e^-x)` of a `float` (see [`one_plus_exp`]).
pub fn sigmoid(mb: &mut MathBuilder, x: &Val) -> Val {
    let n = mb.fneg(x);
    let d = one_plus_exp(mb, &n);
    mb.bin("fdiv", &mb.c(1.0), &d)
}

/// `x sigmoid(x)` of a `float` (as the interpreter writes it), with the full-range [`exp`]:
/// `x` scales the logistic's subnormal results back into the normal range.
pub fn silu(mb: &mut MathBuilder, x: &Val) -> Val {
    let n = mb.fneg(x);
    let e = exp(mb, &n);
    let d = mb.bin("fadd", &mb.c(1.0), &e);
    let s = mb.bin("fdiv", &mb.c(1.0), &d);
    mb.bin("fmul", x, &s)
}

/// GELU, tanh form, of a `float`: `x / (1 + e^(-2 t))`, `t = sqrt(2/pi) (x + 0.044715 x^3)`,
/// the sum by [`one_plus_exp`]: for `x` below about -10 (where `-2 t` passes 88.37) the result,
/// of magnitude below about 4e-38, is -0 (with the full-range `exp`, from -2 t = 88.72 on,
/// below 3e-38, as the sum overflows there).
pub fn gelu_tanh(mb: &mut MathBuilder, x: &Val) -> Val {
    // The argument rounded op by op as the interpreter writes it (no FMA: exp amplifies it).
    let p1 = mb.exact("fmul", &mb.c(0.044715), x);
    let p2 = mb.exact("fmul", &p1, x);
    let p3 = mb.exact("fmul", &p2, x);
    let s = mb.exact("fadd", x, &p3);
    let k = mb.c((-2.0 * (2.0 / std::f64::consts::PI).sqrt()) as f32);
    let t = mb.exact("fmul", &k, &s);
    let d = one_plus_exp(mb, &t);
    mb.bin("fdiv", x, &d)
}

/// `(p, e)` with `p + e = a * b` exactly (`p` the rounded product, `e` its error by an FMA).
fn two_prod(mb: &mut MathBuilder, a: &Val, b: &Val) -> (Val, Val) {
    let p = mb.exact("fmul", a, b);
    let np = mb.fneg(&p);
    let e = mb.fma(a, b, &np);
    (p, e)
}

/// `(hi, lo)` with `hi + lo = a + b` exactly, for `|a| >= |b|` or `a` of the larger exponent
/// (Fast2Sum).
fn fast_two_sum(mb: &mut MathBuilder, a: &Val, b: &Val) -> (Val, Val) {
    let hi = mb.exact("fadd", a, b);
    let d = mb.exact("fsub", &hi, a);
    let lo = mb.exact("fsub", b, &d);
    (hi, lo)
}

/// `ln 2` in two parts: `LN2_HI` has 16 significant bits, so `e * LN2_HI` is exact for every
/// float exponent `e`.
const LN2_HI: f32 = 0.693_145_751_953_125;
const LN2_LO: f32 = 1.428_606_8e-6;

/// `ln x` of a finite `x > 0` as two floats `hi + lo`, renormalized (`|lo| <= ulp(hi) / 2`),
/// about 2^-30 relative: `x = m 2^e`, `ln m = 2 atanh(s)` with `s = (m - 1) / (m + 1)` carried
/// as `s + sl` (the remainder of the division by an FMA, `m + 1` itself as two floats),
/// `2 atanh(s) = 2s + s z R(z)` with `z = s^2` and `R` the series to `z^5` (truncation below
/// 2^-36 relative), `m` in `[sqrt(1/2), sqrt 2)` (`z <= 0.0295`) from [`split_exponent`]. The
/// roundings of the `s z R(z)` term are what is left; they are largest near `m = sqrt 2`. The
/// scalar code; with AVX-512, [`ln_two_float_wide`].
fn ln_two_float(mb: &mut MathBuilder, x: &Val) -> (Val, Val) {
    let (mant, e) = split_exponent(mb, x);
    let u = mb.exact("fsub", &mant, &mb.c(1.0));
    let (v, vl) = fast_two_sum(mb, &mb.c(1.0), &mant);
    let r = mb.exact("fdiv", &mb.c(1.0), &v);
    let s = mb.exact("fmul", &u, &r);
    let ns = mb.fneg(&s);
    let rem = mb.fma(&ns, &v, &u);
    let rem = mb.fma(&ns, &vl, &rem);
    let sl = mb.exact("fmul", &rem, &r);
    let z = mb.bin("fmul", &s, &s);
    let coefs: Vec<f32> = (1..=6).rev().map(|k| 2.0 / (2 * k + 1) as f32).collect();
    let rz = horner(mb, &z, &coefs);
    let sz = mb.bin("fmul", &s, &z);
    // e ln2 + 2s as a Fast2Sum (|e LN2_HI| >= 0.69 > |2s| unless e = 0, when it is exact).
    let a = mb.exact("fmul", &e, &mb.c(LN2_HI));
    let b = mb.exact("fadd", &s, &s);
    let (hi, lo) = fast_two_sum(mb, &a, &b);
    // the small terms, added as multiply-adds: e LN2_LO, 2 sl, s z R(z)
    let lo = mb.mul_add(&e, &mb.c(LN2_LO), &lo);
    let lo = mb.mul_add(&sl, &mb.c(2.0), &lo);
    let lo = mb.mul_add(&sz, &rz, &lo);
    fast_two_sum(mb, &hi, &lo)
}

/// The 32-interval table of [`ln_two_float_wide`]: for the mantissa `m` in `[3/4, 3/2)`
/// (`vgetmantps`), interval `i` is the mantissa bits 22..18 of `m`: `[1 + i/32, 1 + (i+1)/32)`
/// for `i < 16`, `[3/4 + (i-16)/64, 3/4 + (i-15)/64)` above. `invc[i]` approximates `1/m` on it
/// (a multiple of 1/64, resp. 1/32, so that `m invc - 1` is exact: a multiple of 2^-29 below
/// 2^-5), exactly 1 on the two intervals next to 1 (where `ln m` is small, `r = m - 1` carries
/// it exactly); `hi + lo = ln(1/invc)`, plus `ln 2` for `i >= 16` (`vgetexpps` gives one less
/// than the exponent that goes with `m < 1`), `hi` a multiple of 2^-16 like [`LN2_HI`] so that
/// `e LN2_HI + hi` is exact.
pub struct LnTable {
    pub invc: [f32; 32],
    pub hi: [f32; 32],
    pub lo: [f32; 32],
}

/// The interval `[a, b)` of [`LnTable`] entry `i` and the quantum of its `invc`.
pub fn ln_table_interval(i: usize) -> (f64, f64, f64) {
    if i < 16 {
        let a = 1.0 + i as f64 / 32.0;
        (a, a + 1.0 / 32.0, 64.0)
    } else {
        let a = 0.75 + (i - 16) as f64 / 64.0;
        (a, a + 1.0 / 64.0, 32.0)
    }
}

/// Computes [`LnTable`] (f64 `ln`; `invc` chosen to make `max |m invc - 1|` on the interval
/// smallest).
pub fn ln_table() -> LnTable {
    let mut t = LnTable {
        invc: [0.0; 32],
        hi: [0.0; 32],
        lo: [0.0; 32],
    };
    for i in 0..32 {
        let (a, b, q) = ln_table_interval(i);
        let invc = if i == 0 || i == 31 {
            1.0
        } else {
            let k = (q * 2.0 / (a + b)).floor();
            let worst = |k: f64| f64::max((a * k / q - 1.0).abs(), (b * k / q - 1.0).abs());
            (if worst(k) <= worst(k + 1.0) { k } else { k + 1.0 }) / q
        };
        let l = -f64::ln(invc) + if i >= 16 { std::f64::consts::LN_2 } else { 0.0 };
        let hi = (l * 65536.0).round() / 65536.0;
        t.invc[i] = invc as f32;
        t.hi[i] = hi as f32;
        t.lo[i] = (l - hi) as f32;
    }
    t
}

/// Coefficients of `q` with `ln(1 + r) = r + r^2 q(r)` (the series to `r^6`: below 2^-32
/// relative for `|r| < 2^-5`), highest degree first.
const LOG1P_Q: [f32; 5] = [-1.0 / 6.0, 1.0 / 5.0, -1.0 / 4.0, 1.0 / 3.0, -1.0 / 2.0];

/// `ln |x|` like [`ln_two_float`], on 16 lanes with AVX-512 and without a division: `m` in
/// `[3/4, 3/2)` and `e` from `vgetmantps`/`vgetexpps` (of `|x|`), `invc`, `hi`, `lo` of
/// [`LnTable`] by `vpermi2ps` on the mantissa's top five bits, `r = m invc - 1` exact (one FMA),
/// then `ln |x| = (e LN2_HI + hi) + r + w` with `w = e LN2_LO + lo + r^2 q(r)` small, the first
/// sum exact, the rest added by two Fast2Sums, so the result is renormalized (`|lo| <=
/// ulp(hi)`) as [`pow`] needs it. About 2^-30 relative (the rounding of the `r^2` term where
/// `m` is near 1); against the series in `s = (m-1)/(m+1)` this saves the division and keeps
/// `|r| < 2^-5`. For x = 0, inf, NaN: `m` = 0, 1, NaN and `e` = -inf, inf, NaN, so `hi` =
/// -inf, inf, NaN (`lo` is then NaN; `pow` bounds it).
fn ln_two_float_wide(mb: &mut MathBuilder, x: &Val) -> (Val, Val) {
    let LnReduction { r, h0, t } = ln_reduce_wide(mb, x);
    // w = e LN2_LO + lo + r^2 q(r), with r^2 = z + zl exactly: -zl/2 is the part of r^2 q(r)
    // that z q(r) misses above 2^-32 relative (q(r) is about -1/2).
    let (z, zl) = two_prod(mb, &r, &r);
    let w = mb.fma(&zl, &mb.c(-0.5), &t);
    let q = horner(mb, &r, &LOG1P_Q);
    let w = mb.fma(&z, &q, &w);
    // (h0 + (r + w)) as hi + lo with |lo| <= ulp(hi): two Fast2Sums (|w| <= |r| unless w is
    // tiny against h0; |s| <= |h0| unless h0 = 0)
    let (s, sl) = fast_two_sum(mb, &r, &w);
    let (hi, err) = fast_two_sum(mb, &h0, &s);
    let lo = mb.exact("fadd", &err, &sl);
    (hi, lo)
}

/// `ln |x| = h0 + t + ln(1 + r)` as the table reduction of [`ln_two_float_wide`] splits it:
/// `r = m invc - 1` (exact), `h0 = e LN2_HI + hi` (exact), `t = e LN2_LO + lo` (small).
struct LnReduction {
    r: Val,
    h0: Val,
    t: Val,
}

/// The table reduction shared by [`ln_two_float_wide`] and [`log_wide`]: `m` in `[3/4, 3/2)`
/// and `e` from `vgetmantps`/`vgetexpps` of `|x|`, `invc`, `hi`, `lo` of [`LnTable`] by
/// `vpermi2ps` on the mantissa's top five bits.
fn ln_reduce_wide(mb: &mut MathBuilder, x: &Val) -> LnReduction {
    let table = ln_table();
    // imm 7: interval [3/4, 3/2), sign control 01 (the mantissa of |x|)
    let m = mb.avx512("getmant", &[x], Some(7));
    let e = mb.avx512("getexp", &[x], None);
    let m_bits = mb.bits(&m);
    let idx = mb.int("lshr", &m_bits, &mb.ci(18));
    let invc = mb.lookup32(&table.invc, &idx);
    let thi = mb.lookup32(&table.hi, &idx);
    let tlo = mb.lookup32(&table.lo, &idx);
    let r = mb.fma(&m, &invc, &mb.c(-1.0));
    let h0 = mb.fma(&e, &mb.c(LN2_HI), &thi);
    let t = mb.fma(&e, &mb.c(LN2_LO), &tlo);
    LnReduction { r, h0, t }
}

/// `ln x` of a `float` in the elementwise loop being built: on AVX-512 targets the function pair
/// of [`vector_pair`] around [`log_wide`], otherwise [`log`] inline (the loop vectorizer widens
/// it).
pub fn log_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val) -> Val {
    pair_or_inline(m, f, "log", &[x], |mb, a| log_wide(mb, &a[0]), |mb, a| log(mb, &a[0]))
}

/// `ln x` on 16 lanes with AVX-512, the reduction of [`ln_two_float_wide`] in one float: `m`
/// and `e` from `vgetmantps`/`vgetexpps`, `invc`, `hi`, `lo` of [`LnTable`] by `vpermi2ps`,
/// `r = m invc - 1` exact, then `(e LN2_HI + hi) + (r + (r^2 q(r) + e LN2_LO + lo))`, the
/// first sum exact (zero where `x` is near 1, so `r` carries the result), 0.72 ulp worst (test
/// `f32_log_within_one_ulp_on_both_paths`). 21 vector instructions per 16 elements against
/// about 35 for [`log`]'s polynomial in `m - 1` with the exponent taken apart in integer code:
/// 16M elements at one thread 8.6 -> 4.4 ms, now bound by memory (bench_native at two threads:
/// 7.3-7.4 -> 2.9 ms).
/// `ln 0 = ln -0 = -inf` (`vgetexpps`), `ln inf = inf`, NaN stays NaN, `x < 0` (`-inf` too) NaN.
fn log_wide(mb: &mut MathBuilder, x: &Val) -> Val {
    let LnReduction { r, h0, t } = ln_reduce_wide(mb, x);
    let z = mb.bin("fmul", &r, &r);
    let q = horner(mb, &r, &LOG1P_Q);
    let w = mb.fma(&z, &q, &t);
    let s = mb.bin("fadd", &r, &w);
    let y = mb.bin("fadd", &h0, &s);
    let neg = mb.fcmp("olt", x, &mb.c(0.0));
    mb.select(&neg, &mb.c(f32::NAN), &y)
}

/// The vector iterations interleaved in a loop whose body is one of the long dependency chains
/// of `pow` and GELU erf (see `ModuleBuilder::interleave`). LLVM picks 1 for GELU erf's large body and 4
/// for a loop that calls `pow`'s vector function; 2 was measured best for both from memory (16M
/// elements, one thread: pow 17.3 -> 14.9 ms, 4 -> 2; GELU erf at two threads 5.7 -> 5.1 ms,
/// 1 -> 2), while 4 is faster in L2 for GELU erf but slower from memory.
const LONG_CHAIN_INTERLEAVE: u32 = 2;

/// `x^y` of `float`s in the elementwise loop being built: on AVX-512 targets a call of the
/// function pair of [`vector_pair`] (16 lanes, `vgetmantps`/`vgetexpps`/`vscalefps`),
/// otherwise [`pow`] inline as scalar code.
pub fn pow_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val, y: &Val) -> Val {
    m.interleave = Some(LONG_CHAIN_INTERLEAVE);
    let body = |mb: &mut MathBuilder, a: &[Val]| pow(mb, &a[0], &a[1]);
    pair_or_inline(m, f, "pow", &[x, y], body, body)
}

/// The f32 math function `name` of `args` in the elementwise loop being built: on AVX-512
/// targets a call of the function pair of [`vector_pair`] around `wide` (16 lanes), otherwise
/// `scalar` inline (the loop vectorizer widens it).
fn pair_or_inline(
    m: &mut ModuleBuilder,
    f: &mut FunctionBuilder,
    name: &str,
    args: &[&Val],
    wide: fn(&mut MathBuilder, &[Val]) -> Val,
    scalar: fn(&mut MathBuilder, &[Val]) -> Val,
) -> Val {
    if m.avx512 {
        vector_pair(m, f, name, args, wide)
    } else {
        let args: Vec<Val> = args.iter().map(|&v| v.clone()).collect();
        scalar(&mut MathBuilder::scalar(m, f), &args)
    }
}

/// Calls the f32 math `body` through a pair of functions: `@xcs.math.NAME.v16f32`, `body` on
/// 16 lanes (AVX-512), and `@xcs.math.NAME.f32`, called here with the vector-function ABI
/// attribute that names the first. The loop vectorizer calls the vector function in a
/// vectorized loop; `llvm::compile` inlines it there after the optimization pipeline. The
/// scalar function (a loop's remainder, a loop that does not vectorize) evaluates the vector
/// one on a splat, so an element gets the same result whichever path computes it.
fn vector_pair(
    m: &mut ModuleBuilder,
    f: &mut FunctionBuilder,
    name: &str,
    args: &[&Val],
    body: fn(&mut MathBuilder, &[Val]) -> Val,
) -> Val {
    const V: &str = "<16 x float>";
    let scalar = format!("xcs.math.{name}.f32");
    let vector = format!("xcs.math.{name}.v16f32");
    let n = args.len();
    if m.define_once(&scalar) {
        let params: Vec<String> = (0..n).map(|i| format!("{V} %a{i}")).collect();
        let mut vf = FunctionBuilder::new(&vector, "internal", V, &params.join(", "));
        vf.attrs = "#2";
        let vargs: Vec<Val> = (0..n).map(|i| Val::new(V, format!("%a{i}"))).collect();
        let r = body(
            &mut MathBuilder {
                m,
                f: &mut vf,
                wide: true,
            },
            &vargs,
        );
        vf.ret(&r);
        m.add_function(vf.finish(&BTreeMap::new()));
        m.keep(&vector);
        let params: Vec<String> = (0..n).map(|i| format!("float %a{i}")).collect();
        let mut sf = FunctionBuilder::new(&scalar, "internal", "float", &params.join(", "));
        sf.attrs = "#1";
        let splats: Vec<String> = (0..n)
            .map(|i| format!("{V} {}", sf.splat(V, 16, &Val::new("float", format!("%a{i}")))))
            .collect();
        let r = sf.emit(V, format!("call {V} @\"{vector}\"({})", splats.join(", ")));
        let r0 = sf.emit("float", format!("extractelement {V} {r}, i64 0"));
        sf.ret(&r0);
        m.add_function(sf.finish(&BTreeMap::new()));
    }
    let a: Vec<String> = args.iter().map(|v| format!("float {v}")).collect();
    f.emit(
        "float",
        format!(
            "call float @\"{scalar}\"({}) nounwind memory(none) willreturn \"vector-function-abi-variant\"=\"_ZGV_LLVM_N16{}_{scalar}({vector})\"",
            a.join(", "),
            "v".repeat(n)
        ),
    )
}

/// The bound of the low part of `y ln|x|` in [`pow`] (2^-10).
const TL_MAX: f32 = 1.0 / 1024.0;

/// `x^y` of `float`s, as `e^(y ln|x|)` in two-float arithmetic (about 1.3 ulp): `ln|x| = L + Ll`
/// renormalized ([`ln_two_float`], [`ln_two_float_wide`]), `y L = h + l` split exactly by an
/// FMA with `y Ll` added to `l`, which is then tiny, so `e^(h + l) = e^h (1 + l)`, and `2^n`
/// applied last (one rounding into the subnormals). C99
/// `powf`'s special cases as selects: `pow(x, ±0) = 1` and `pow(1, y) = 1` even for NaN,
/// `pow(-1, ±inf) = 1`, otherwise NaN propagates; a finite `x < 0` with a finite non-integer
/// `y` is NaN; a negative `x` (`-0.0` and `-inf` too) with an odd integer `y` gives the negated
/// result; zeros and infinities follow from `ln 0 = -inf`, `ln inf = inf` and the clamped
/// exponential (overflow to inf, underflow to 0 and subnormals).
pub fn pow(mb: &mut MathBuilder, x: &Val, y: &Val) -> Val {
    let (l, ll) = if mb.wide {
        ln_two_float_wide(mb, x)
    } else {
        let ax = mb.intr("fabs", &[x]);
        let (l, ll) = ln_two_float(mb, &ax);
        // ln 0 = -inf, ln inf = inf, and a NaN x makes L NaN (NaN then propagates through
        // y L); wide, `ln_two_float_wide` gives these itself
        let zero = mb.fcmp("oeq", &ax, &mb.c(0.0));
        let l = mb.select(&zero, &mb.c(f32::NEG_INFINITY), &l);
        let big = mb.fcmp("uge", &ax, &mb.c(f32::INFINITY));
        (mb.select(&big, &ax, &l), ll)
    };
    // y (L + Ll) = h + tl. L + Ll is renormalized (|Ll| <= ulp(L)), so |tl| <= 2^-16 where the
    // result is finite and e^(h + tl) = e^h (1 + tl). Where h is past the clamp of the
    // exponential the result is 0 or inf whatever tl is, but tl may be large or NaN (h
    // infinite): tl is bounded to +-2^-10, NaN to the bound (unordered compares when scalar).
    let (h, tl) = two_prod(mb, y, &l);
    let tl = mb.fma(y, &ll, &tl);
    let lo = if mb.wide {
        // vrangeps imm 2: the operand of smaller magnitude, with the sign of tl (NaN gives the
        // bound)
        mb.avx512("range", &[&tl, &mb.c(TL_MAX)], Some(2))
    } else {
        let tl = clamp(mb, "ugt", &tl, TL_MAX);
        clamp(mb, "olt", &tl, -TL_MAX)
    };
    let (r, n, ni) = exp_clamped(mb, &h);
    let p = exp_of_reduced(mb, &r);
    let p = mb.fma(&p, &lo, &p);
    let r = scale(mb, &p, &n, &ni);
    // pow(x, +-0) = 1 even for NaN and infinite x; pow(+-1, y) = 1 (L = 0) even for an infinite
    // or NaN y (-1 with an odd y takes the sign below, with a non-integer y it is made NaN).
    let one = if mb.wide {
        // vrangeps imm 2 gives the operand of smaller magnitude, the other one if one is NaN
        let m = mb.avx512("range", &[&l, y], Some(2));
        mb.fcmp("oeq", &m, &mb.c(0.0))
    } else {
        let l0 = mb.fcmp("oeq", &l, &mb.c(0.0));
        let y0 = mb.fcmp("oeq", y, &mb.c(0.0));
        mb.logic("or", &l0, &y0)
    };
    let r = mb.select(&one, &mb.c(1.0), &r);
    // y an integer (trunc y = y: also for +-inf, whose halves are integers too; not for NaN),
    // an odd one (|y| >= 2^24 floats are even): the result takes the sign of x.
    let half = mb.exact("fmul", y, &mb.c(0.5));
    let (yint, yodd) = if mb.wide {
        // vreduceps (imm 9: no fraction bits kept, rounded down): `v - floor v`, 0 for +-inf,
        // NaN for NaN. y/2 - floor(y/2) is 1/2 exactly for the odd integers only.
        let fy = mb.avx512("reduce", &[y], Some(9));
        let fh = mb.avx512("reduce", &[&half], Some(9));
        (mb.fcmp("oeq", &fy, &mb.c(0.0)), mb.fcmp("oeq", &fh, &mb.c(0.5)))
    } else {
        let ytr = mb.intr("trunc", &[y]);
        let yint = mb.fcmp("oeq", &ytr, y);
        let htr = mb.intr("trunc", &[&half]);
        let hodd = mb.fcmp("une", &htr, &half);
        let yodd = mb.logic("and", &yint, &hodd);
        (yint, yodd)
    };
    // r >= 0 (or NaN): copysign(r, x) is r | (x & sign bit); AVX-512 does the select with it
    // (one masked `vpternlogd`)
    let xb = mb.bits(x);
    let sign = mb.int("and", &xb, &mb.ci(i32::MIN));
    let rb = mb.bits(&r);
    let signed = mb.int("or", &rb, &sign);
    let signed = mb.float_of_bits(&signed);
    let r = mb.select(&yodd, &signed, &r);
    // A finite x < 0 (bits in [0x80000001, 0xff7fffff]; `vfpclassps` class 0x40 when wide)
    // with a non-integer y (finite, or NaN): NaN.
    let xneg = if mb.wide {
        let d = "declare <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float>, i32)";
        mb.m.declare("llvm.x86.avx512.fpclass.ps.512", d);
        let bt = mb.bty();
        mb.f.emit(
            bt,
            format!("call {bt} @llvm.x86.avx512.fpclass.ps.512(<16 x float> {x}, i32 64)"),
        )
    } else {
        let xo = mb.int("sub", &xb, &mb.ci(0x8000_0001u32 as i32));
        mb.icmp("ult", &xo, &mb.ci(0x7f7f_ffff))
    };
    let notint = mb.not(&yint);
    let bad = mb.logic("and", &xneg, &notint);
    mb.select(&bad, &mb.c(f32::NAN), &r)
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
pub fn gelu_erf(mb: &mut MathBuilder, x: &Val) -> Val {
    mb.m.interleave = Some(LONG_CHAIN_INTERLEAVE);
    let ax = mb.intr("fabs", &[x]);
    // 1 + a/2 with a = |x| / sqrt 2 clamped to 10.5 (|x| to 10.5 sqrt 2)
    let axc = clamp(mb, "ogt", &ax, (10.5 * std::f64::consts::SQRT_2) as f32);
    let den = mb.mul_add(&axc, &mb.c((0.5 * std::f64::consts::FRAC_1_SQRT_2) as f32), &mb.c(1.0));
    let t = mb.bin("fdiv", &mb.c(1.0), &den);
    let st = mb.bin("fsub", &t, &mb.c(ERFC_T0));
    let p = horner2(mb, &st, &ERFC_P);
    // -a^2 = -x^2 / 2 = A + Al exactly (x / -2 is exact; FMA gives the product's low part).
    let hx = mb.exact("fmul", x, &mb.c(-0.5));
    let (neg_a, al) = two_prod(mb, &hx, x);
    // h + err = A + p (exact when |A| >= |p|; otherwise both are small and err is noise).
    let (h, err) = fast_two_sum(mb, &neg_a, &p);
    let lo = mb.exact("fadd", &err, &al);
    // h is in [-112, 1] for |x| <= 14.85 (past it E is 0): 2^n as 2^(n + 64) 2^-64
    let h = clamp(mb, "olt", &h, -130.0);
    let (r, _, ni) = exp_reduced(mb, &h);
    let e = exp_of_reduced(mb, &r);
    let e64 = mb.int("add", &ni, &mb.ci(64));
    let s = pow2(mb, &e64);
    let e = mb.fma(&e, &lo, &e);
    let ec = mb.bin("fmul", &t, &e);
    let tail = mb.fcmp("ogt", &ax, &mb.c(14.85));
    let ec = mb.select(&tail, &mb.c(0.0), &ec);
    // E/2 = ec s 2^-65 (ec s is exact: a power of two in the normal range)
    let es = mb.bin("fmul", &ec, &s);
    let down = mb.c(2f32.powi(-65));
    // x < 0: x E/2, scaled by 2^-65 last (one rounding when the result is subnormal).
    let neg = mb.bin("fmul", x, &es);
    let neg = mb.bin("fmul", &neg, &down);
    // x >= 0: x (1 - E/2).
    let e2 = mb.bin("fmul", &es, &down);
    let upper = mb.bin("fsub", &mb.c(1.0), &e2);
    let pos_r = mb.bin("fmul", x, &upper);
    let pos = mb.fcmp("oge", x, &mb.c(0.0));
    mb.select(&pos, &pos_r, &neg)
}

// ---------------------------------------------------------------------------- sin, cos

/// `sin(r) = r + r^3 S(r^2)` on `|r| <= pi/2` (a little beyond: `x / pi` may round either way),
/// `S` highest first: a degree-3 minimax fit of the relative error (Lawson's algorithm on
/// Chebyshev nodes, 6.1e-9 in double), rounded to f32, then the third coefficient moved by one
/// ulp where that lowered the worst error of the whole kernel (1.78 -> 1.70 ulp on `[1.1, 2)`).
const SIN_S: [f32; 4] = [2.605_399e-6, -1.980_943_9e-4, 8.333_066e-3, -0.166_666_6];
/// `pi` and `pi/2` as three floats each, every part rounded down (so positive) but the last:
/// `C1` has 24 bits, so `x - n C1` is exact inside an FMA for the quotients of the fast range;
/// `C1 + C2 + C3` is within 2^-70 of the constant. Positive parts keep `sin(-0) = -0` through the
/// reduction (`-0 - 0 C = -0`).
/// (By their bits: `0x1.921fb4p+1`, `0x1.4442d0p-23`, `0x1.84698ap-47`, and the same halved.)
const PI_C: [f32; 3] = [f32::from_bits(0x4049_0fda), f32::from_bits(0x3422_2168), f32::from_bits(0x2842_34c5)];
const PIO2_C: [f32; 3] = [f32::from_bits(0x3fc9_0fda), f32::from_bits(0x33a2_2168), f32::from_bits(0x27c2_34c5)];
/// The fast path of `sin`/`cos` reduces `|x| < 2^17` (quotients below 2^16): the worst error there
/// is the kernel's (about 1.7 ulp); from about 2^18 on the reduction's single-float `r` loses bits.
const TRIG_FAST_LIMIT: f32 = 131_072.0;

/// `sin x` (or `cos x` when `cosine`) of `float`s with one polynomial (SLEEF's `sinf_u35` and Arm's
/// vector `sinf` reduce this way; written for this project): `x = n pi + r` with
/// `n = roundeven(x / pi)`, `r` in `[-pi/2, pi/2]` by three FMAs with the parts of [`PI_C`]
/// (Cody-Waite), and `sin x = (-1)^n sin r`, the parity read from the low bit of the rounding's
/// sum. `cos x` is the same kernel around the odd multiples of pi/2: `x = (k + 1/2) pi + r`,
/// `k = roundeven(x / pi - 1/2)`, `cos x = (-1)^(k+1) sin r` ([`PIO2_C`] times `2k + 1`).
/// `sin r = r + r^3 S(r^2)` ([`SIN_S`]). Within 1.7 ulp of the exact result for `|x| < 2^17`
/// (`make check-math-ulp` checks every float up to 2^22); beyond, lanes take LLVM's `sin`/`cos`
/// (libm) in [`fix_lanes`], a branch taken only when some lane needs it. `sin(±0) = ±0` (the
/// sign of `r` is or-ed into the result: `r + r^3 S` of `-0` would be `+0`), `cos(±0) = 1`,
/// `±inf` and NaN give NaN.
fn sin_cos(mb: &mut MathBuilder, x: &Val, cosine: bool) -> Val {
    let magic = mb.c(ROUND_MAGIC);
    let inv_pi = mb.c(std::f32::consts::FRAC_1_PI);
    // t = x/pi (- 1/2) + 1.5 * 2^23: its low bit is the parity of the quotient
    let t = if cosine {
        let h = mb.fma(x, &inv_pi, &mb.c(-0.5));
        mb.exact("fadd", &h, &magic)
    } else {
        mb.mul_add(x, &inv_pi, &magic)
    };
    let k = mb.exact("fsub", &t, &magic);
    let (n, parts) = if cosine {
        (mb.fma(&k, &mb.c(2.0), &mb.c(1.0)), PIO2_C)
    } else {
        (k, PI_C)
    };
    let nn = mb.fneg(&n);
    let mut r = x.clone();
    for c in parts {
        r = mb.fma(&nn, &mb.c(c), &r);
    }
    let s = mb.exact("fmul", &r, &r);
    let p = horner(mb, &s, &SIN_S);
    let r3 = mb.exact("fmul", &r, &s);
    let y = mb.fma(&r3, &p, &r);
    // the sign: the parity of the quotient (and, for cos, one more flip); sin keeps -0
    let tb = mb.bits(&t);
    let mut sign = mb.int("shl", &tb, &mb.ci(31));
    let mut yb = mb.bits(&y);
    if cosine {
        sign = mb.int("xor", &sign, &mb.ci(i32::MIN));
    } else {
        let rb = mb.bits(&r);
        let rsign = mb.int("and", &rb, &mb.ci(i32::MIN));
        yb = mb.int("or", &yb, &rsign);
    }
    let vb = mb.int("xor", &yb, &sign);
    let v = mb.float_of_bits(&vb);
    // |x| >= 2^17, inf included (libm gives NaN there too); NaN compares false and stays
    let ax = mb.intr("fabs", &[x]);
    let rare = mb.fcmp("oge", &ax, &mb.c(TRIG_FAST_LIMIT));
    let libm: fn(&mut MathBuilder, &[Val]) -> Val =
        if cosine { |mb, a| mb.intr("cos", &[&a[0]]) } else { |mb, a| mb.intr("sin", &[&a[0]]) };
    fix_lanes(mb, if cosine { "cos" } else { "sin" }, &v, &rare, &[x.clone()], libm)
}

/// `v` with the lanes where `rare` holds replaced by `slow` of those lanes' `args`: for the few
/// inputs a fast path does not cover (huge `sin` arguments, `rem` with a huge quotient). A
/// branch taken only when some lane needs it; wide, it calls `@xcs.math.NAME.rare` (defined
/// once, out of line, so the vectorized loop stays small), which redoes those lanes one by one.
fn fix_lanes(
    mb: &mut MathBuilder,
    name: &str,
    v: &Val,
    rare: &Val,
    args: &[Val],
    slow: fn(&mut MathBuilder, &[Val]) -> Val,
) -> Val {
    let t = mb.fty();
    let slot = mb.f.alloca(t, 1);
    mb.f.store(v, &slot);
    let any = if mb.wide {
        let m = mb.f.emit("i16", format!("bitcast <16 x i1> {rare} to i16"));
        mb.f.emit("i1", format!("icmp ne i16 {m}, 0"))
    } else {
        rare.clone()
    };
    // expected not taken: the branch weights keep the hot path's registers out of the call's way
    mb.m.declare("llvm.expect.i1", "declare i1 @llvm.expect.i1(i1, i1)");
    let any = mb.f.emit("i1", format!("call i1 @llvm.expect.i1(i1 {any}, i1 false)"));
    let (fix, done) = (mb.f.label("fix"), mb.f.label("fixed"));
    mb.f.condbr(&any, &fix, &done);
    mb.f.start(&fix);
    let fixed = if mb.wide {
        let func = rare_lanes_function(mb.m, name, args.len(), slow);
        let mut call_args = vec![v.t(), rare.t()];
        call_args.extend(args.iter().map(|a| a.t()));
        mb.f.emit(t, format!("call {t} @\"{func}\"({})", call_args.join(", ")))
    } else {
        slow(mb, args)
    };
    mb.f.store(&fixed, &slot);
    mb.f.br(&done);
    mb.f.start(&done);
    mb.f.load(t, &slot)
}

/// Defines (once) `<16 x float> @xcs.math.NAME.rare(<16 x float> v, <16 x i1> rare, args...)`:
/// `v` with each lane where `rare` holds replaced by `slow` of that lane's arguments (scalar
/// code, lane by lane).
fn rare_lanes_function(
    m: &mut ModuleBuilder,
    name: &str,
    nargs: usize,
    slow: fn(&mut MathBuilder, &[Val]) -> Val,
) -> String {
    const V: &str = "<16 x float>";
    let func = format!("xcs.math.{name}.rare");
    if !m.define_once(&func) {
        return func;
    }
    let mut params = vec![format!("{V} %v"), "<16 x i1> %rare".to_string()];
    params.extend((0..nargs).map(|i| format!("{V} %a{i}")));
    let mut f = FunctionBuilder::new(&func, "internal", V, &params.join(", "));
    f.attrs = "#1";
    let mut v = Val::new(V, "%v");
    for lane in 0..16 {
        let bit = f.emit("i1", format!("extractelement <16 x i1> %rare, i64 {lane}"));
        let lane_args: Vec<Val> =
            (0..nargs).map(|i| f.emit("float", format!("extractelement {V} %a{i}, i64 {lane}"))).collect();
        let (one, next) = (f.label("lane"), f.label("next"));
        let from = f.cur.clone();
        f.condbr(&bit, &one, &next);
        f.start(&one);
        let r = slow(&mut MathBuilder { m: &mut *m, f: &mut f, wide: false }, &lane_args);
        let updated = f.emit(V, format!("insertelement {V} {v}, float {r}, i64 {lane}"));
        let after = f.cur.clone();
        f.br(&next);
        f.start(&next);
        v = f.emit(V, format!("phi {V} [ {v}, %{from} ], [ {updated}, %{after} ]"));
    }
    f.ret(&v);
    m.add_function(f.finish(&BTreeMap::new()));
    func
}

/// `sin x` of a `float` in the elementwise loop being built: on AVX-512 targets the function
/// pair of [`vector_pair`] around [`sin_cos`] (16 lanes per call), otherwise LLVM's `sin`
/// (libm; the loop then stays scalar).
pub fn sin_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val) -> Val {
    trig_call(m, f, x, false)
}

/// `cos x` of a `float`, as [`sin_call`].
pub fn cos_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val) -> Val {
    trig_call(m, f, x, true)
}

fn trig_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val, cosine: bool) -> Val {
    let name = if cosine { "cos" } else { "sin" };
    if !m.avx512 {
        return intrinsic(m, f, name, "float", &[x]);
    }
    if cosine {
        vector_pair(m, f, name, &[x], |mb, a| sin_cos(mb, &a[0], true))
    } else {
        vector_pair(m, f, name, &[x], |mb, a| sin_cos(mb, &a[0], false))
    }
}

// ---------------------------------------------------------------------------- erf

/// `erf x = x + x P(x^2)` on `|x| < 0.921875`, `P` highest first (relative error 4e-10).
const ERF_SMALL: [f32; 7] = [
    8.370_546e-5, -8.142_828e-4, 5.201_045_4e-3, -2.685_940_5e-2, 0.112_836_96, -0.376_126_35, 0.128_379_17,
];
/// `erf x` on `[0.921875, 3.9375]` as one degree-14 polynomial in `x - ERF_BIG_C`, highest
/// first: fitted for this project (Lawson's minimax of the absolute error on Chebyshev nodes
/// against scipy's `erf`), rounded to f32 from the constant term up, each rounding followed by a
/// refit of the higher coefficients (absolute error 1.4e-8 with the f32 coefficients). One
/// chain of 14 FMAs instead of two polynomials of degree 9 whose coefficients were chosen per
/// lane (11 blends more).
const ERF_BIG: [f32; 15] = [
    1.187_233_7e-6, -4.193_663e-7, -1.784_278e-5, 3.116_164e-5, 6.776_980_4e-5, -3.210_908_3e-4, 4.396_130_7e-4,
    3.618_191e-4, -3.024_742e-3, 7.343_317_4e-3, -1.098_523_9e-2, 1.109_810_7e-2, -7.485_413_5e-3, 3.080_698e-3,
    0.999_409_85,
];
/// The middle of `[0.921875, 3.9375]`, where [`ERF_BIG`] is expanded.
const ERF_BIG_C: f32 = 2.429_687_5;
/// From here on `erf x` rounds to 1 in f32.
const ERF_ONE: f32 = 3.9375;

/// `erf x` of a `float`, branch-free: `x + x P(x^2)` below 0.921875, above it [`ERF_BIG`] in
/// `min(|x|, 3.9375) - 2.4296875` (at most 1, which `erf x` rounds to from 3.9375 on) with the
/// sign of `x`. Within 1.6 ulp of the exact result (`make check-math-ulp`: every float up to
/// 2^22); `erf(-0.0) = -0.0`, `erf(±inf) = ±1`, NaN stays NaN.
fn erf(mb: &mut MathBuilder, x: &Val) -> Val {
    let ax = mb.intr("fabs", &[x]);
    let x2 = mb.exact("fmul", x, x);
    let p = horner(mb, &x2, &ERF_SMALL);
    let small = mb.fma(x, &p, x);
    let axc = clamp(mb, "ogt", &ax, ERF_ONE);
    let u = mb.exact("fsub", &axc, &mb.c(ERF_BIG_C));
    let q = horner(mb, &u, &ERF_BIG);
    let q = clamp(mb, "ogt", &q, 1.0);
    let big = mb.copysign(&q, x);
    // |x| < 0.921875, and NaN (which the small branch keeps)
    let use_small = mb.fcmp("ult", &ax, &mb.c(0.921_875));
    mb.select(&use_small, &small, &big)
}

/// `erf` on `[k/4, (k+1)/4]`, `k` = 0..15, as polynomials `c0 + c1 t + ... + c5 t^5` in
/// `t = 4|x| - k` in `[0, 1]`: row `j` holds `cj` of every interval (a `vpermps` table). Interval
/// 0 has `c0 = 0` and holds `c1 - 1/4` (`|x| = t/4` is added exactly instead, so a small `x`
/// keeps its digits: [`erf_wide`]). Fitted for this project by `tools/math_ulp/fit_erf.py`
/// (minimax of the error in ulps, rounded to f32 from the constant term up, each rounding
/// followed by a refit of the higher coefficients); about 1.1 ulp in f32 evaluation.
const ERF_TABLE: [[f32; 16]; 6] = [
    [
        0.0, 0.2763264, 0.5204999, 0.71115565, 0.8427008, 0.92290014, 0.96610516, 0.9866717, 0.9953223, 0.9985373,
        0.999593, 0.9998994, 0.9999779, 0.9999957, 0.9999993, 0.9999999,
    ],
    [
        0.032094784, 0.2650033, 0.21969515, 0.16073175, 0.1037776, 0.05912981, 0.029731829, 0.013193033,
        0.005165648, 0.0017846453, 0.0005459691, 0.00014610465, 3.5939694e-05, 6.7404194e-06, -2.7181272e-08,
        4.913975e-07,
    ],
    [
        3.881506e-07, -0.016558938, -0.027456496, -0.030128686, -0.025950594, -0.018475467, -0.011144454,
        -0.005766761, -0.0025745456, -0.0009967973, -0.0003514146, -9.700514e-05, -3.507925e-05, -1.4774893e-06,
        9.811799e-06, -2.3694615e-06,
    ],
    [
        -0.0058799703, -0.004848822, -0.0023106572, 0.00039172915, 0.0021820185, 0.002613863, 0.0021559729,
        0.001394214, 0.00072857086, 0.00031768702, 0.00016099327, 3.2395008e-05, 3.7329955e-05, -9.421622e-06,
        -3.0096366e-05, 6.172535e-06,
    ],
    [
        7.574307e-06, 0.0005326, 0.0007561293, 0.00062525447, 0.00024329012, -2.748898e-05, -0.00016631203,
        -0.00017344931, -0.00010572932, -4.8596066e-05, -6.766686e-05, 9.697721e-09, -3.243757e-05, 1.320329e-05,
        3.4885197e-05, -6.9576786e-06,
    ],
    [
        0.000103627746, 4.536415e-05, -2.8385637e-05, -7.492481e-05, -5.2954972e-05, -3.5724184e-05,
        -1.0544132e-05, 3.527782e-06, 1.0304985e-06, -1.211179e-06, 1.8505683e-05, -2.99119e-06, 1.2080146e-05,
        -5.507213e-06, -1.3999283e-05, 2.772387e-06,
    ],
];

/// `erf x` of 16 lanes (AVX-512) from [`ERF_TABLE`]: `|x|` clamped to 3.9375 (NaN stays), the
/// interval `k = roundeven(4|x| - 1/2)` read from the low bits of the rounding's sum (the
/// `vpermps` index; no conversion), `t = 4|x| - k` (exact: one FMA), then
/// `t q(t) + (t e + c0)` with `q = c1 + ... + c5 t^4` and `e = 1/4` in interval 0, 0 elsewhere,
/// and the sign of `x`. Where the piecewise form of [`erf`] evaluates two polynomials of degree 6
/// and 14 in every lane (22 FMAs per 16 lanes), this takes 7 table reads (`vpermps`, which run
/// beside the FMAs) and 8 FMAs. Within 1.1 ulp (`make check-math-ulp`); `erf(-0.0) = -0.0`,
/// `erf(±inf) = ±1`, NaN stays NaN.
fn erf_wide(mb: &mut MathBuilder, x: &Val) -> Val {
    let ax = mb.intr("fabs", &[x]);
    let axc = clamp(mb, "ogt", &ax, ERF_ONE);
    let h = mb.fma(&axc, &mb.c(4.0), &mb.c(-0.5));
    let magic = mb.c(ROUND_MAGIC);
    let hm = mb.exact("fadd", &h, &magic);
    let k = mb.exact("fsub", &hm, &magic);
    let idx = mb.bits(&hm);
    let nk = mb.fneg(&k);
    let t = mb.fma(&axc, &mb.c(4.0), &nk);
    let row = |mb: &mut MathBuilder, j: usize| mb.lookup16(&ERF_TABLE[j], &idx);
    let c0 = row(mb, 0);
    let mut e_table = [0.0f32; 16];
    e_table[0] = 0.25;
    let e = mb.lookup16(&e_table, &idx);
    let base = mb.fma(&t, &e, &c0);
    let mut q = row(mb, 5);
    for j in (1..5).rev() {
        let c = row(mb, j);
        q = mb.fma(&q, &t, &c);
    }
    let p = mb.fma(&t, &q, &base);
    mb.copysign(&p, x)
}

/// `erf x` of a `float` in the elementwise loop being built: on AVX-512 targets the function
/// pair of [`vector_pair`] around [`erf_wide`], otherwise [`erf`] inline (the loop vectorizer
/// widens it).
pub fn erf_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val) -> Val {
    pair_or_inline(m, f, "erf", &[x], |mb, a| erf_wide(mb, &a[0]), |mb, a| erf(mb, &a[0]))
}

// ---------------------------------------------------------------------------- rem

/// numpy's `remainder` of `float`s, `x - floor(x / y) y`: C's `fmod` moved to the divisor's
/// sign (see `BinaryFn::Rem`). `fmod(|x|, |y|)` is `|x| - q |y|` with `q = trunc(|x| / |y|)`:
/// the FMA is exact, and `q` can only be one too large (the rounded quotient never falls below
/// an integer the exact one reaches), which one conditional add repairs — exact while
/// `q < 2^23`; lanes with a larger quotient take LLVM's `frem` (libm `fmodf`) in [`fix_lanes`].
/// `q = 0` keeps `|x|` (`|y| = inf` included, where `0 inf` would be NaN). `y = 0`, `x = ±inf`
/// and NaN give NaN, `y = ±inf` gives `x` (then moved to `y`'s sign).
fn rem(mb: &mut MathBuilder, x: &Val, y: &Val) -> Val {
    let ax = mb.intr("fabs", &[x]);
    let ay = mb.intr("fabs", &[y]);
    let d = mb.exact("fdiv", &ax, &ay);
    let q = mb.intr("trunc", &[&d]);
    let nq = mb.fneg(&q);
    let r = mb.fma(&nq, &ay, &ax);
    // q = 0 (|x| < |y|, and |y| = inf, where 0 inf would be NaN): |x| itself
    let q0 = mb.fcmp("oeq", &q, &mb.c(0.0));
    let r = mb.select(&q0, &ax, &r);
    let neg = mb.fcmp("olt", &r, &mb.c(0.0));
    let r_up = mb.exact("fadd", &r, &ay);
    let r = mb.select(&neg, &r_up, &r);
    let rare = mb.fcmp("oge", &q, &mb.c(8_388_608.0));
    let r = fix_lanes(mb, "rem", &r, &rare, &[ax, ay], |mb, a| {
        let t = mb.fty();
        mb.f.emit(t, format!("frem {t} {}, {}", a[0], a[1]))
    });
    let fmod = mb.copysign(&r, x);
    numpy_remainder(mb, &fmod, y)
}

/// numpy's adjustment of a C `fmod` result `m` to the divisor `y`'s sign: `m + y` when `m` is
/// nonzero and the signs differ, `copysign(0, y)` when `m` is zero (NaN stays NaN).
fn numpy_remainder(mb: &mut MathBuilder, m: &Val, y: &Val) -> Val {
    let zero = mb.c(0.0);
    let m_neg = mb.fcmp("olt", m, &zero);
    let y_neg = mb.fcmp("olt", y, &zero);
    let differ = mb.logic("xor", &m_neg, &y_neg);
    let nonzero = mb.fcmp("one", m, &zero);
    let adjust = mb.logic("and", &nonzero, &differ);
    let sum = mb.exact("fadd", m, y);
    let adjusted = mb.select(&adjust, &sum, m);
    let is_zero = mb.fcmp("oeq", m, &zero);
    let signed_zero = mb.copysign(&zero, y);
    mb.select(&is_zero, &signed_zero, &adjusted)
}

/// numpy's `remainder` of `float`s in the elementwise loop being built: on AVX-512 targets the
/// function pair of [`vector_pair`] around [`rem`], otherwise [`rem`] inline (its rare-lane
/// branch keeps that loop scalar).
pub fn rem_call(m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val, y: &Val) -> Val {
    let body = |mb: &mut MathBuilder, a: &[Val]| rem(mb, &a[0], &a[1]);
    pair_or_inline(m, f, "rem", &[x, y], body, body)
}
