//! Float formats as bits: the layout of every builtin float type (`Fmt`: IEEE halves to quads,
//! `f80`, the 8-, 6- and 4-bit formats with their NaN/infinity conventions), decoding and
//! encoding of bit patterns, rounding to a format, and the `f64` conversions that
//! `AttrKind::Float` uses for the kinds `f64` cannot hold exactly. The printer and the parser
//! both build on it (the printer's digit generation is `printer/float.rs`).

use crate::types::FloatKind;

/// How a float format encodes special values.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Special {
    /// IEEE 754: all-ones exponent is inf (zero fraction) or NaN.
    Ieee,
    /// No infinity; only all-ones exponent and fraction is NaN (`f8E4M3FN`).
    NanOnlyAllOnes,
    /// No infinity, no negative zero; the negative-zero pattern is NaN (`*FNUZ`).
    Fnuz,
    /// No special values at all (`f4E2M1FN`, `f6*`).
    FiniteOnly,
    /// `f8E8M0FNU`: unsigned powers of two, all-ones is NaN.
    E8M0,
}

/// The layout of a float format.
#[derive(Copy, Clone)]
pub(crate) struct Fmt {
    exp_bits: u32,
    /// Stored fraction bits (without the implicit integer bit).
    frac_bits: u32,
    /// `f80` stores its integer bit explicitly.
    explicit_int: bool,
    bias: i32,
    special: Special,
    /// Total encoding width in bits.
    pub width: u32,
}

impl Fmt {
    pub fn of(kind: FloatKind) -> Fmt {
        use FloatKind::*;
        let ieee = |e: u32, f: u32| Fmt {
            exp_bits: e,
            frac_bits: f,
            explicit_int: false,
            bias: (1 << (e - 1)) - 1,
            special: Special::Ieee,
            width: 1 + e + f,
        };
        let with = |mut f: Fmt, bias: i32, special: Special| {
            f.bias = bias;
            f.special = special;
            f
        };
        match kind {
            F16 => ieee(5, 10),
            BF16 => ieee(8, 7),
            F32 => ieee(8, 23),
            F64 => ieee(11, 52),
            TF32 => ieee(8, 10),
            F80 => {
                Fmt { exp_bits: 15, frac_bits: 63, explicit_int: true, bias: 16383, special: Special::Ieee, width: 80 }
            }
            F128 => ieee(15, 112),
            F8E5M2 => ieee(5, 2),
            F8E4M3 => ieee(4, 3),
            F8E3M4 => ieee(3, 4),
            F8E4M3FN => with(ieee(4, 3), 7, Special::NanOnlyAllOnes),
            F8E5M2FNUZ => with(ieee(5, 2), 16, Special::Fnuz),
            F8E4M3FNUZ => with(ieee(4, 3), 8, Special::Fnuz),
            F8E4M3B11FNUZ => with(ieee(4, 3), 11, Special::Fnuz),
            F8E8M0FNU => {
                Fmt { exp_bits: 8, frac_bits: 0, explicit_int: false, bias: 127, special: Special::E8M0, width: 8 }
            }
            F4E2M1FN => with(ieee(2, 1), 1, Special::FiniteOnly),
            F6E2M3FN => with(ieee(2, 3), 1, Special::FiniteOnly),
            F6E3M2FN => with(ieee(3, 2), 3, Special::FiniteOnly),
        }
    }
    /// Significand precision in bits, including the integer bit (APFloat's `precision`).
    /// For `f80` the stored 63 fraction bits plus the explicit integer bit; for the others
    /// the fraction bits plus the implicit one.
    pub fn precision(&self) -> u32 {
        self.frac_bits + 1
    }
    /// Exponent of the least significant bit of subnormals (`emin - (p - 1)`).
    pub fn qmin(&self) -> i32 {
        (1 - self.bias) - self.frac_bits as i32
    }
    pub fn has_sign(&self) -> bool {
        self.special != Special::E8M0
    }
}

/// A float value broken down: `(-1)^neg * m * 2^q` for finite non-zero values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FClass {
    Zero,
    Finite { m: u128, q: i32 },
    Inf,
    NaN,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct FVal {
    pub neg: bool,
    pub class: FClass,
}

/// Decodes an encoding of format `f`.
pub(crate) fn decode(f: &Fmt, bits: u128) -> FVal {
    if f.special == Special::E8M0 {
        let e = (bits & 0xFF) as i32;
        let class = if e == 0xFF { FClass::NaN } else { FClass::Finite { m: 1, q: e - 127 } };
        return FVal { neg: false, class };
    }
    let sig_bits = f.frac_bits; // for f80, frac_bits (63) excludes the explicit integer bit
    let stored = if f.explicit_int { 64 } else { sig_bits };
    let neg = (bits >> (stored + f.exp_bits)) & 1 == 1;
    let e = ((bits >> stored) & ((1u128 << f.exp_bits) - 1)) as i32;
    let raw = bits & ((1u128 << stored) - 1);
    let frac = raw & ((1u128 << sig_bits) - 1);
    let emax_field = (1i32 << f.exp_bits) - 1;
    let class = match f.special {
        Special::Ieee if e == emax_field => {
            if frac == 0 {
                FClass::Inf
            } else {
                FClass::NaN
            }
        }
        Special::NanOnlyAllOnes if e == emax_field && frac == (1u128 << sig_bits) - 1 => FClass::NaN,
        Special::Fnuz if neg && e == 0 && frac == 0 => FClass::NaN,
        _ => {
            if e == 0 {
                if frac == 0 {
                    FClass::Zero
                } else {
                    FClass::Finite { m: frac, q: f.qmin() }
                }
            } else {
                let m = if f.explicit_int { raw } else { frac | (1u128 << sig_bits) };
                FClass::Finite { m, q: e - f.bias - sig_bits as i32 }
            }
        }
    };
    FVal { neg, class }
}

/// Encodes a value in format `f` (exact for values the format represents; NaN is the
/// canonical quiet NaN).
pub(crate) fn encode(f: &Fmt, v: &FVal) -> u128 {
    let stored = if f.explicit_int { 64 } else { f.frac_bits };
    let sign = if v.neg && f.has_sign() { 1u128 << (stored + f.exp_bits) } else { 0 };
    let all_exp = ((1u128 << f.exp_bits) - 1) << stored;
    let quiet = if f.explicit_int {
        3u128 << 62
    } else if f.frac_bits > 0 {
        1u128 << (f.frac_bits - 1)
    } else {
        0
    };
    match v.class {
        FClass::Zero => sign,
        FClass::NaN => match f.special {
            Special::Ieee => all_exp | quiet,
            Special::NanOnlyAllOnes => all_exp | ((1u128 << f.frac_bits) - 1),
            Special::Fnuz => 1u128 << (stored + f.exp_bits),
            Special::E8M0 => 0xFF,
            Special::FiniteOnly => all_exp | ((1u128 << f.frac_bits) - 1),
        },
        FClass::Inf => match f.special {
            Special::Ieee => sign | all_exp | if f.explicit_int { 1u128 << 63 } else { 0 },
            // formats without infinity: the NaN (or largest) pattern
            _ => encode(f, &FVal { neg: v.neg, class: FClass::NaN }),
        },
        FClass::Finite { m, q } => {
            if f.special == Special::E8M0 {
                // value 2^(e-127): m is a power of two
                let e = q + (127 - m.leading_zeros() as i32) + 127;
                return e.clamp(0, 0xFE) as u128;
            }
            // normalise to p bits
            let p = f.frac_bits + 1;
            let (mut m, mut q) = (m, q);
            let nb = 128 - m.leading_zeros();
            if nb > p {
                let s = nb - p;
                m >>= s;
                q += s as i32;
            } else {
                let s = p - nb;
                m <<= s;
                q -= s as i32;
            }
            let mut e = q + f.frac_bits as i32 + f.bias;
            if e <= 0 {
                let s = (1 - e) as u32;
                m = if s >= 128 { 0 } else { m >> s };
                e = 0;
            }
            let e = (e as u128).min((1u128 << f.exp_bits) - 1);
            let sig = if f.explicit_int { m } else { m & ((1u128 << f.frac_bits) - 1) };
            sign | (e << stored) | sig
        }
    }
}

/// Decodes an `f64` (how [`crate::AttrKind::Float`] stores non-IEEE-standard kinds).
pub(crate) fn decode_f64(bits: u64) -> FVal {
    decode(&Fmt::of(FloatKind::F64), bits as u128)
}

/// The largest finite value of format `f`, as `(m, q)` (`m * 2^q`).
fn max_finite(f: &Fmt) -> (u128, i32) {
    let p = f.frac_bits + 1;
    let top_field = (1i32 << f.exp_bits) - 1;
    let (e, m) = match f.special {
        Special::Ieee => (top_field - 1, (1u128 << p) - 1),
        Special::NanOnlyAllOnes => (top_field, (1u128 << p) - 2),
        Special::Fnuz | Special::FiniteOnly => (top_field, (1u128 << p) - 1),
        Special::E8M0 => (top_field - 1, 1),
    };
    (m, e - f.bias - f.frac_bits as i32)
}

/// `a * 2^qa > b * 2^qb` for non-zero mantissas.
fn greater(a: u128, qa: i32, b: u128, qb: i32) -> bool {
    let ea = qa + (128 - a.leading_zeros() as i32);
    let eb = qb + (128 - b.leading_zeros() as i32);
    if ea != eb {
        return ea > eb;
    }
    // same magnitude: align to the smaller exponent (the shifts stay below 128 bits)
    let q = qa.min(qb);
    (a << (qa - q) as u32) > (b << (qb - q) as u32)
}

/// Rounds `v` to format `f` as APFloat's `convert` does (round to nearest, ties to even):
/// overflow gives infinity in IEEE formats, NaN in formats whose only special value is NaN,
/// and the largest finite value in formats without special values.
pub(crate) fn round_to_format(f: &Fmt, v: &FVal) -> FVal {
    let (m, q) = match v.class {
        FClass::Finite { m, q } => (m, q),
        FClass::Zero if f.special == Special::Fnuz => return FVal { neg: false, class: FClass::Zero },
        _ => return *v,
    };
    let neg = v.neg && f.has_sign();
    let p = f.frac_bits as i32 + 1;
    let msb = q + (127 - m.leading_zeros() as i32);
    // the exponent of the last kept bit: p bits below the msb, but not below the subnormals'
    let qmin = if f.special == Special::E8M0 { -127 } else { f.qmin() };
    let lsb = (msb - (p - 1)).max(qmin);
    let (mut rm, mut rq) = (m, q);
    if lsb > q {
        let s = (lsb - q) as u32;
        rm = if s >= 128 {
            0 // m < 2^64: below half of the last kept bit
        } else {
            let (kept, rest, half) = (m >> s, m & ((1u128 << s) - 1), 1u128 << (s - 1));
            kept + (rest > half || (rest == half && kept & 1 == 1)) as u128
        };
        rq = lsb;
    }
    if rm == 0 {
        return round_to_format(f, &FVal { neg, class: FClass::Zero });
    }
    let (xm, xq) = max_finite(f);
    if greater(rm, rq, xm, xq) {
        let class = match f.special {
            Special::Ieee => FClass::Inf,
            Special::FiniteOnly => FClass::Finite { m: xm, q: xq },
            _ => FClass::NaN,
        };
        return FVal { neg, class };
    }
    FVal { neg, class: FClass::Finite { m: rm, q: rq } }
}

/// The `f64` nearest to `v` (exact for the formats narrower than `f64`).
pub(crate) fn fval_to_f64(v: &FVal) -> f64 {
    let x = match v.class {
        FClass::Zero => 0.0,
        FClass::Inf => f64::INFINITY,
        FClass::NaN => f64::NAN,
        FClass::Finite { m, q } => {
            // m * 2^q in two steps so that neither power of two overflows or underflows early
            let h = q / 2;
            (m as f64) * 2f64.powi(h) * 2f64.powi(q - h)
        }
    };
    if v.neg {
        -x
    } else {
        x
    }
}

/// `v` rounded to `kind`, as the encoding of `kind` (MLIR parses a float literal as an `f64`
/// and converts it to the attribute's type).
pub(crate) fn f64_to_kind_bits(kind: FloatKind, v: f64) -> u128 {
    let f = Fmt::of(kind);
    encode(&f, &round_to_format(&f, &decode_f64(v.to_bits())))
}

/// The value of an encoding of `kind` as an `f64` (exact for the formats of 32 bits or less).
pub(crate) fn kind_bits_to_f64(kind: FloatKind, bits: u128) -> f64 {
    fval_to_f64(&decode(&Fmt::of(kind), bits))
}
