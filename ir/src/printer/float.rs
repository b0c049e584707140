//! Floating-point literals exactly as MLIR prints them (`printFloatValue` over LLVM's
//! `APFloat::toString`): `%e`-style with 6 digits when that parses back to the same bits,
//! else APFloat's shortest-safe default form, else the bit pattern in hex. Hand-written
//! (with a small bignum) because the output must match APFloat digit for digit, including
//! its truncate-then-round quirk; `ryu` gives the shortest round-trip form, which differs.

use crate::types::FloatKind;

// ------------------------------------------------------------------------------ bignum

/// A non-negative big integer, little-endian base-2^32 limbs, no trailing zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u128(mut v: u128) -> Big {
        let mut l = Vec::new();
        while v != 0 {
            l.push(v as u32);
            v >>= 32;
        }
        Big(l)
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
    fn bits(&self) -> u32 {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in self.0.iter_mut() {
            let v = *l as u64 * m as u64 + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        if m == 0 {
            self.0.clear();
        }
    }
    /// Divides in place, returning the remainder.
    fn divrem_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for l in self.0.iter_mut().rev() {
            let cur = (rem << 32) | *l as u64;
            *l = (cur / d as u64) as u32;
            rem = cur % d as u64;
        }
        self.trim();
        rem as u32
    }
    fn mul_pow5(&mut self, mut n: u32) {
        const P13: u32 = 1_220_703_125; // 5^13
        while n >= 13 {
            self.mul_small(P13);
            n -= 13;
        }
        if n > 0 {
            self.mul_small(5u32.pow(n));
        }
    }
    fn div_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.divrem_small(1_000_000_000);
            n -= 9;
        }
        if n > 0 {
            self.divrem_small(10u32.pow(n));
        }
    }
    fn shl(&mut self, n: u32) {
        if self.is_zero() || n == 0 {
            return;
        }
        let (words, bits) = ((n / 32) as usize, n % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for l in self.0.iter_mut() {
                let v = *l;
                *l = (v << bits) | carry;
                carry = v >> (32 - bits);
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if words > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, words));
        }
    }
    fn add(&mut self, o: &Big) {
        let mut carry = 0u64;
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for i in 0..self.0.len() {
            let v = self.0[i] as u64 + *o.0.get(i).unwrap_or(&0) as u64 + carry;
            self.0[i] = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }
    /// `self - o`, requires `self >= o`.
    fn sub(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let v = self.0[i] as i64 - *o.0.get(i).unwrap_or(&0) as i64 - borrow;
            if v < 0 {
                self.0[i] = (v + (1i64 << 32)) as u32;
                borrow = 1;
            } else {
                self.0[i] = v as u32;
                borrow = 0;
            }
        }
        self.trim();
    }
    fn cmp(&self, o: &Big) -> std::cmp::Ordering {
        self.0.len().cmp(&o.0.len()).then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }
}

// ------------------------------------------------------------------------------ formats

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
    fn qmin(&self) -> i32 {
        (1 - self.bias) - self.frac_bits as i32
    }
    fn has_sign(&self) -> bool {
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

// ------------------------------------------------------------------------------ APFloat::toString

/// `APFloat::toString(str, format_precision, format_max_padding, truncate_zero)` for a
/// finite value of a format with `precision` significand bits.
fn apfloat_to_string(
    out: &mut String,
    v: &FVal,
    precision: u32,
    mut format_precision: u32,
    max_padding: u32,
    truncate_zero: bool,
) {
    let (m, q) = match v.class {
        FClass::Zero => {
            if v.neg {
                out.push('-');
            }
            if max_padding == 0 {
                if truncate_zero {
                    out.push_str("0.0E+0");
                } else {
                    out.push_str("0.0");
                    for _ in 1..format_precision.max(1) {
                        out.push('0');
                    }
                    out.push_str("e+00");
                }
            } else {
                out.push('0');
            }
            return;
        }
        FClass::Finite { m, q } => (m, q),
        _ => return,
    };
    if v.neg {
        out.push('-');
    }
    if format_precision == 0 {
        format_precision = 2 + precision * 59 / 196;
    }
    // Ignore trailing binary zeros.
    let tz = m.trailing_zeros();
    let mut exp = q + tz as i32;
    let mut sig = Big::from_u128(m >> tz);
    // Change the exponent from 2^e to 10^e.
    if exp > 0 {
        sig.shl(exp as u32);
        exp = 0;
    } else if exp < 0 {
        sig.mul_pow5((-exp) as u32);
    }
    // AdjustToPrecision (integer form): drop decimal digits that cannot matter, truncating.
    let bits = sig.bits();
    let bits_required = (format_precision * 196).div_ceil(59);
    if bits > bits_required {
        let tens = (bits - bits_required) * 59 / 196;
        if tens > 0 {
            exp += tens as i32;
            sig.div_pow10(tens);
        }
    }
    // Digits, least significant first, dropping trailing zeros.
    let mut buf: Vec<u8> = Vec::with_capacity(64);
    let mut in_trail = true;
    while !sig.is_zero() {
        let mut chunk = sig.divrem_small(1_000_000_000);
        let last = sig.is_zero();
        let mut n = 0;
        while n < 9 && !(last && chunk == 0) {
            let d = (chunk % 10) as u8;
            chunk /= 10;
            n += 1;
            if in_trail && d == 0 {
                exp += 1;
            } else {
                buf.push(b'0' + d);
                in_trail = false;
            }
        }
    }
    if buf.is_empty() {
        buf.push(b'0');
    }
    // AdjustToPrecision (digit form): round half up to format_precision digits.
    let n = buf.len();
    if n > format_precision as usize {
        let mut first = n - format_precision as usize;
        if buf[first - 1] < b'5' {
            while first < n && buf[first] == b'0' {
                first += 1;
            }
            exp += first as i32;
            buf.drain(..first);
        } else {
            let mut i = first;
            while i != n {
                if buf[i] == b'9' {
                    first += 1;
                    i += 1;
                } else {
                    buf[i] += 1;
                    break;
                }
            }
            if first == n {
                exp += first as i32;
                buf.clear();
                buf.push(b'1');
            } else {
                exp += first as i32;
                buf.drain(..first);
            }
        }
    }
    let nd = buf.len();
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as u32 > max_padding || nd as u32 + exp as u32 > format_precision
    } else {
        let msd = exp + nd as i32 - 1;
        if msd >= 0 {
            false
        } else {
            (-msd) as u32 > max_padding
        }
    };
    if scientific {
        exp += nd as i32 - 1;
        out.push(buf[nd - 1] as char);
        out.push('.');
        if nd == 1 && truncate_zero {
            out.push('0');
        } else {
            for i in 1..nd {
                out.push(buf[nd - 1 - i] as char);
            }
        }
        if !truncate_zero && format_precision as usize > nd - 1 {
            for _ in 0..(format_precision as usize - nd + 1) {
                out.push('0');
            }
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if exp >= 0 { '+' } else { '-' });
        let e = exp.unsigned_abs();
        if !truncate_zero && e < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(e));
        return;
    }
    if exp >= 0 {
        for i in 0..nd {
            out.push(buf[nd - 1 - i] as char);
        }
        for _ in 0..exp {
            out.push('0');
        }
        return;
    }
    let whole = exp + nd as i32;
    let mut i = 0usize;
    if whole > 0 {
        while i != whole as usize {
            out.push(buf[nd - i - 1] as char);
            i += 1;
        }
        out.push('.');
    } else {
        out.push_str("0.");
        for _ in 1..(1 + (-whole) as u32) {
            out.push('0');
        }
    }
    while i != nd {
        out.push(buf[nd - i - 1] as char);
        i += 1;
    }
}

/// True if the decimal literal `s` (as produced above: `-?D.DDDe±X`) parses (round to
/// nearest even) to exactly `v` in format `f`.
fn parses_back(s: &str, v: &FVal, f: &Fmt) -> bool {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    if neg != v.neg && f.has_sign() {
        return false;
    }
    let (mant, e10) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (body, 0),
    };
    let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
    let mut d = Big::from_u128(0);
    for c in int_part.bytes().chain(frac_part.bytes()) {
        d.mul_small(10);
        d.add(&Big::from_u128((c - b'0') as u128));
    }
    let k = e10 - frac_part.len() as i32;
    let (m, q) = match v.class {
        FClass::Zero => return d.is_zero(),
        FClass::Finite { m, q } => (m, q),
        _ => return false,
    };
    if d.is_zero() {
        return false;
    }
    // Normalise x = m * 2^q to p bits (or to the subnormal exponent).
    let p = f.precision();
    let qmin = f.qmin();
    let (mut m, mut q) = (m, q);
    // values stored as f64 carry more significand bits than the format: drop the zeros
    while (m >= (1u128 << p) || q < qmin) && m & 1 == 0 {
        m >>= 1;
        q += 1;
    }
    while m < (1u128 << (p - 1)) && q > qmin {
        m <<= 1;
        q -= 1;
    }
    // Rounding interval [x - lo, x + hi]; lo is half as wide at a power of two.
    let halve_low = m == (1u128 << (p - 1)) && q > qmin;
    // Scale everything by 2^s * 5^t to integers: terms are D*2^k*5^k, m*2^(q+2), 2^(q+1) (hi),
    // 2^(q+1) or 2^q (lo); the +2 keeps the half-ulps integral.
    let min2 = k.min(q);
    let min5 = k.min(0);
    let term = |mant: u128, p2: i32, p5: i32| {
        let mut b = Big::from_u128(mant);
        b.mul_pow5((p5 - min5) as u32);
        b.shl((p2 - min2) as u32);
        b
    };
    let mut dd = d.clone();
    dd.mul_pow5((k - min5) as u32);
    dd.shl((k + 2 - min2) as u32); // d scaled by 4 like the others
    let x = term(m, q + 2, 0);
    let hi = term(1, q + 1, 0);
    let lo = if halve_low { term(1, q, 0) } else { term(1, q + 1, 0) };
    let mut upper = x.clone();
    upper.add(&hi);
    let mut lower = x;
    lower.sub(&lo);
    let even = m & 1 == 0;
    use std::cmp::Ordering::*;
    let above_low = match dd.cmp(&lower) {
        Greater => true,
        Equal => even,
        Less => false,
    };
    let below_high = match dd.cmp(&upper) {
        Less => true,
        Equal => even,
        Greater => false,
    };
    above_low && below_high
}

/// Appends a float value of format `f` (encoding `bits`) as MLIR's `printFloatValue` does.
pub(crate) fn print_float(out: &mut String, f: &Fmt, v: &FVal, bits: u128) {
    if matches!(v.class, FClass::Zero | FClass::Finite { .. }) {
        let start = out.len();
        apfloat_to_string(out, v, f.precision(), 6, 0, false);
        if parses_back(&out[start..], v, f) {
            return;
        }
        out.truncate(start);
        apfloat_to_string(out, v, f.precision(), 0, 3, true);
        if out[start..].contains('.') {
            return;
        }
        out.truncate(start);
    }
    out.push_str("0x");
    let bits = if f.width >= 128 { bits } else { bits & ((1u128 << f.width) - 1) };
    let hex = format!("{bits:X}");
    out.push_str(&hex);
}

/// Prints a float attribute value of `kind`: `bits` is the kind's own encoding for the IEEE
/// kinds XCS stores exactly, and an `f64` encoding for the others.
pub(crate) fn print_float_attr(out: &mut String, kind: FloatKind, bits: u64) {
    let f = Fmt::of(kind);
    if kind.is_exact() {
        let v = decode(&f, bits as u128);
        print_float(out, &f, &v, bits as u128);
    } else {
        let v = decode_f64(bits);
        let enc = encode(&f, &v);
        print_float(out, &f, &v, enc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(kind: FloatKind, v: f64) -> String {
        let mut s = String::new();
        print_float_attr(&mut s, kind, crate::attrs::float_to_bits(kind, v));
        s
    }
    fn pb(kind: FloatKind, bits: u64) -> String {
        let mut s = String::new();
        print_float_attr(&mut s, kind, bits);
        s
    }

    /// Every expectation below was printed by `mlir-minimal-opt` (LLVM 22) for the literal in
    /// the comment.
    #[test]
    fn matches_mlir() {
        use FloatKind::*;
        assert_eq!(p(F32, 0.1), "1.000000e-01"); // 0.1 : f32
        assert_eq!(p(F64, 0.1), "1.000000e-01");
        assert_eq!(pb(F32, 0x7F800000), "0x7F800000"); // 1.0e+40 : f32
        assert_eq!(pb(F32, 0x80000000), "-0.000000e+00");
        assert_eq!(pb(F32, 0x7FC00000), "0x7FC00000");
        assert_eq!(pb(F32, 0xFF800000), "0xFF800000");
        assert_eq!(p(F32, 0.189218894), "0.189218894");
        assert_eq!(p(F16, 0.3), "3.000490e-01");
        assert_eq!(p(BF16, 0.1), "1.000980e-01");
        assert_eq!(p(F64, 1.0e300), "1.000000e+300");
        assert_eq!(p(F64, 1.0e-300), "1.000000e-300");
        assert_eq!(p(F64, 123456789.0), "0x419D6F3454000000");
        assert_eq!(p(F64, 1.5), "1.500000e+00");
        assert_eq!(p(F32, 100.0), "1.000000e+02");
        assert_eq!(p(F32, 1.0e-10), "1.000000e-10");
        assert_eq!(p(F16, 65504.0), "6.550400e+04");
        assert_eq!(pb(F16, 1), "5.960460e-08");
        assert_eq!(pb(F64, 1), "4.940660e-324");
        assert_eq!(p(F64, 1.0e7), "1.000000e+07");
        assert_eq!(p(F64, 12345678.0), "0x41678C29C0000000");
        assert_eq!(p(F64, 1234567.0), "0x4132D68700000000");
        assert_eq!(p(F64, 0.0), "0.000000e+00");
        assert_eq!(p(F80, 1.0), "1.000000e+00");
        assert_eq!(p(F80, 0.1), "0.100000000000000005551");
        assert_eq!(p(F8E4M3FN, 2.5), "2.500000e+00");
        assert_eq!(p(F32, 3.4028234663852886e38), "3.40282347E+38");
        assert_eq!(pb(F32, 1), "1.401300e-45");
        assert_eq!(p(F64, 1.0 / 3.0), "0.33333333333333331");
        assert_eq!(p(F32, 0.2), "2.000000e-01");
        assert_eq!(p(F64, 1.0e16), "1.000000e+16");
        assert_eq!(p(F64, 1.0e17), "1.000000e+17");
        assert_eq!(p(F32, 123456.7), "123456.703");
        assert_eq!(p(F16, 0.5), "5.000000e-01");
        assert_eq!(pb(BF16, 0x4049), "3.140630e+00"); // 3.14159 : bf16 (bf16 0x4049 = 3.140625)
        assert_eq!(p(F32, -1.0e-5), "-9.99999974E-6");
        assert_eq!(p(F64, 1.0e100), "1.000000e+100");
        assert_eq!(p(F32, 2.0e38), "2.000000e+38");
        assert_eq!(pb(F32, 0x00800000), "1.17549435E-38");
        assert_eq!(p(F32, 9.999999e-01), "0.99999988");
        assert_eq!(p(F128, 0.1), "0.100000000000000005551115123125782702");
        assert_eq!(pb(F64, 0x8000000000000000), "-0.000000e+00");
    }
}
