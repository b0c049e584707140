//! Floating-point literals exactly as MLIR prints them (`printFloatValue` over LLVM's
//! `APFloat::toString`): `%e`-style with 6 digits when that parses back to the same bits,
//! else APFloat's shortest-safe default form, else the bit pattern in hex. Hand-written
//! (with a small bignum) because the output must match APFloat digit for digit, including
//! its truncate-then-round quirk; `ryu` gives the shortest round-trip form, which differs.

use crate::float_format::{decode, decode_f64, encode, FClass, FVal, Fmt};
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
        FClass::Zero => return zero_to_string(out, v.neg, format_precision, max_padding, truncate_zero),
        FClass::Finite { m, q } => (m, q),
        _ => return,
    };
    if v.neg {
        out.push('-');
    }
    if format_precision == 0 {
        format_precision = 2 + precision * 59 / 196;
    }
    let (mut buf, mut exp) = decimal_digits(m, q, format_precision);
    round_digits(&mut buf, &mut exp, format_precision);
    let nd = buf.len();
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as u32 > max_padding || nd as u32 + exp as u32 > format_precision
    } else {
        let msd = exp + nd as i32 - 1;
        msd < 0 && (-msd) as u32 > max_padding
    };
    if scientific {
        write_scientific(out, &buf, exp, format_precision, truncate_zero);
    } else {
        write_positional(out, &buf, exp);
    }
}

/// APFloat's zero: `0.0E+0` (truncating), `0.0...0e+00` (`format_precision` digits) or `0`.
fn zero_to_string(out: &mut String, neg: bool, format_precision: u32, max_padding: u32, truncate_zero: bool) {
    if neg {
        out.push('-');
    }
    if max_padding != 0 {
        out.push('0');
    } else if truncate_zero {
        out.push_str("0.0E+0");
    } else {
        out.push_str("0.0");
        for _ in 1..format_precision.max(1) {
            out.push('0');
        }
        out.push_str("e+00");
    }
}

/// The decimal digits of `m * 2^q` (least significant first, trailing zeros dropped into the
/// exponent) and their decimal exponent, after APFloat's first `AdjustToPrecision`, which
/// truncates digits that cannot matter for `format_precision`.
fn decimal_digits(m: u128, q: i32, format_precision: u32) -> (Vec<u8>, i32) {
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
    (buf, exp)
}

/// APFloat's second `AdjustToPrecision` (digit form): rounds the digits (least significant
/// first) half up to `format_precision` of them, dropping the zeros that rounding leaves.
fn round_digits(buf: &mut Vec<u8>, exp: &mut i32, format_precision: u32) {
    let n = buf.len();
    if n <= format_precision as usize {
        return;
    }
    let mut first = n - format_precision as usize;
    if buf[first - 1] < b'5' {
        while first < n && buf[first] == b'0' {
            first += 1;
        }
        *exp += first as i32;
        buf.drain(..first);
        return;
    }
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
    *exp += first as i32;
    if first == n {
        buf.clear();
        buf.push(b'1');
    } else {
        buf.drain(..first);
    }
}

/// `d.ddd[0...]e±XX` (or `E±X` when truncating zeros) of the digits `buf` (least significant
/// first) times `10^exp`.
fn write_scientific(out: &mut String, buf: &[u8], exp: i32, format_precision: u32, truncate_zero: bool) {
    let nd = buf.len();
    let exp = exp + nd as i32 - 1;
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
}

/// The digits `buf` (least significant first) times `10^exp` without an exponent: `ddd00`,
/// `dd.ddd` or `0.000ddd`.
fn write_positional(out: &mut String, buf: &[u8], exp: i32) {
    let nd = buf.len();
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
