//! Builtin attributes (MLIR's LangRef set) and dialect attributes. An [`Attr`] is an
//! interned handle; [`AttrKind`] is the structure behind it. Dictionaries are interned sorted
//! by key, as MLIR's `DictionaryAttr` is, so two equal dictionaries are the same handle.

use crate::context::{Attr, Context, Ident};
use crate::location::Location;
use crate::types::{FloatKind, Type, TypeKind};

/// Element storage of `dense<...>` and `array<...>` attributes: each element little-endian in
/// `ceil(bits/8)` bytes (i1 takes one byte); complex elements are two consecutive values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DenseData {
    /// One element repeated over the whole shape.
    Splat(Box<[u8]>),
    /// Every element, row-major.
    Elements(Box<[u8]>),
    /// Elements of a string-element tensor (`dense<["a", "b"]> : tensor<2x!foo.str>`).
    Strings(Box<[Box<[u8]>]>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrKind {
    Unit,
    /// An integer of an integer or index type, normalised: signless and signed values are
    /// sign-extended from their width, unsigned ones zero-extended. `i1` prints `true`/`false`.
    Integer { value: i128, ty: Type },
    /// A float: `bits` is the value's own encoding for f16/bf16/f32/f64 and an `f64` encoding for
    /// the other float types.
    Float { bits: u64, ty: Type },
    /// An `f80` or `f128` float that an `f64` cannot hold (a NaN payload, a value with more
    /// precision), as its own encoding. Values an `f64` holds are always [`AttrKind::Float`].
    WideFloat { bits: u128, ty: Type },
    /// A string (MLIR strings are byte strings), with an optional type (`"x" : i32`).
    String { value: Box<[u8]>, ty: Option<Type> },
    Array(Box<[Attr]>),
    /// Entries sorted by key string.
    Dictionary(Box<[(Ident, Attr)]>),
    SymbolRef { root: Ident, nested: Box<[Ident]> },
    Type(Type),
    /// `array<i64: 1, 2>`.
    DenseArray { elem: Type, data: Box<[u8]> },
    /// `dense<...> : tensor<...>`.
    DenseElements { ty: Type, data: DenseData },
    /// `sparse<indices, values> : type`: `indices` is a `DenseElements` of type
    /// `tensor<N x rank x i64>` (or `tensor<N x i64>` for rank 1), `values` one of type
    /// `tensor<N x elem>` (MLIR's `SparseElementsAttr`).
    Sparse { ty: Type, indices: Attr, values: Attr },
    /// `dense_resource<key> : type`: the data is the resource's blob
    /// ([`Context::resource_blob`]), raw little-endian elements (i1 in one byte each).
    DenseResource { handle: crate::resources::Resource, ty: Type },
    /// A location used as an attribute value (`loc(...)`).
    Location(Location),
    /// `distinct[N]<attr>`.
    Distinct { id: u64, attr: Attr },
    /// A builtin keyword attribute that XCS keeps as text (`affine_map<...>`, `affine_set<...>`,
    /// `strided<...>`): `text` is the whole literal as written.
    Keyword { keyword: Ident, text: Box<str> },
    /// A dialect attribute, kept as the text after `#` (`cost.cost<flops = "1">`).
    Dialect { dialect: Ident, text: Box<str> },
}

/// Bytes per element in dense storage.
pub fn dense_elem_bytes(ctx: &Context, elem: Type) -> usize {
    match ctx.type_kind(elem) {
        TypeKind::Complex(inner) => 2 * dense_elem_bytes(ctx, *inner),
        _ => ctx.bit_width(elem).map(|b| b.div_ceil(8) as usize).unwrap_or(0),
    }
}

/// Reads element `i` of raw dense storage of scalar type `elem` as an integer (normalised as
/// [`AttrKind::Integer`]).
pub fn read_int(ctx: &Context, elem: Type, bytes: &[u8], i: usize) -> i128 {
    let n = dense_elem_bytes(ctx, elem);
    let mut buf = [0u8; 16];
    buf[..n].copy_from_slice(&bytes[i * n..(i + 1) * n]);
    let raw = u128::from_le_bytes(buf);
    normalize_int(ctx, raw as i128, elem)
}

/// Writes an integer into `n` little-endian bytes.
pub fn write_int(out: &mut Vec<u8>, value: i128, nbytes: usize) {
    out.extend_from_slice(&value.to_le_bytes()[..nbytes]);
}

/// Truncates `v` to the width of integer type `ty` and re-extends it by its signedness.
pub fn normalize_int(ctx: &Context, v: i128, ty: Type) -> i128 {
    use crate::types::Signedness;
    let (width, signedness) = match ctx.type_kind(ty) {
        TypeKind::Integer { width, signedness } => (*width, *signedness),
        TypeKind::Index => (64, Signedness::Signless),
        _ => return v,
    };
    if width >= 128 {
        return v;
    }
    if width == 0 {
        return 0;
    }
    let shift = 128 - width;
    match signedness {
        Signedness::Unsigned => (((v as u128) << shift) >> shift) as i128,
        _ => (v << shift) >> shift,
    }
}

/// Converts a float value to the stored bit pattern of float type `kind`, rounding once to
/// nearest, ties to even (as APFloat's `convert` does).
pub fn float_to_bits(kind: FloatKind, v: f64) -> u64 {
    // `half`'s `from_f64` is not a single rounding: it goes through f32 (with F16C) or drops the
    // low 32 mantissa bits first, so a value just above a tie can round down. Rounding to the
    // target's precision here first makes its conversion exact.
    match kind {
        FloatKind::F16 => half::f16::from_f64(round_to_precision(v, 11, -24)).to_bits() as u64,
        FloatKind::BF16 => half::bf16::from_f64(round_to_precision(v, 8, -133)).to_bits() as u64,
        FloatKind::F32 => (v as f32).to_bits() as u64,
        // The others are stored as the f64 of the value rounded to the kind (MLIR converts
        // literals so); f80 and f128 hold every f64 exactly.
        FloatKind::F64 | FloatKind::F80 | FloatKind::F128 => v.to_bits(),
        _ => {
            use crate::float_format::{f64_to_kind_bits, kind_bits_to_f64};
            kind_bits_to_f64(kind, f64_to_kind_bits(kind, v)).to_bits()
        }
    }
}

/// `v` rounded to `p` significant bits, ties to even, on a grid no finer than `2^qmin` (the
/// smallest subnormal of the target type): the value nearest to `v` in a binary format with that
/// precision and an unbounded exponent range above; values past the format's largest finite
/// one are left for the final conversion to turn into infinity.
pub fn round_to_precision(v: f64, p: i32, qmin: i32) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    // 2^k for -1022 <= k <= 1023
    let pow2 = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    let e = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023; // f64 subnormals: -1023 (they round to 0)
    let q = (e - (p - 1)).max(qmin);
    (v * pow2(-q)).round_ties_even() * pow2(q)
}

/// The value of a stored float bit pattern of type `kind`.
pub fn bits_to_float(kind: FloatKind, bits: u64) -> f64 {
    match kind {
        FloatKind::F16 => half::f16::from_bits(bits as u16).to_f64(),
        FloatKind::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        FloatKind::F32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

/// Constructors and readers of attributes.
impl Context {
    pub fn unit_attr(&self) -> Attr {
        self.attr(AttrKind::Unit)
    }
    pub fn int_attr(&self, value: i128, ty: Type) -> Attr {
        let value = normalize_int(self, value, ty);
        self.attr(AttrKind::Integer { value, ty })
    }
    pub fn i64_attr(&self, value: i64) -> Attr {
        self.int_attr(value as i128, self.i64_type())
    }
    pub fn bool_attr(&self, value: bool) -> Attr {
        self.int_attr(value as i128, self.i1_type())
    }
    pub fn float_attr(&self, value: f64, ty: Type) -> Attr {
        let kind = self.float_kind(ty).expect("float_attr needs a float type");
        self.attr(AttrKind::Float { bits: float_to_bits(kind, value), ty })
    }
    pub fn str_attr(&self, s: &str) -> Attr {
        self.attr(AttrKind::String { value: s.as_bytes().into(), ty: None })
    }
    pub fn type_attr(&self, t: Type) -> Attr {
        self.attr(AttrKind::Type(t))
    }
    pub fn array_attr(&self, items: &[Attr]) -> Attr {
        self.attr(AttrKind::Array(items.into()))
    }
    pub fn symbol_ref(&self, root: &str) -> Attr {
        self.attr(AttrKind::SymbolRef { root: self.ident(root), nested: Box::new([]) })
    }
    pub fn dense_i64_array(&self, values: &[i64]) -> Attr {
        let mut data = Vec::with_capacity(values.len() * 8);
        for v in values {
            data.extend_from_slice(&v.to_le_bytes());
        }
        self.attr(AttrKind::DenseArray { elem: self.i64_type(), data: data.into() })
    }
    /// A dictionary from entries in any order (sorted here; later duplicates win).
    pub fn dict(&self, entries: &[(Ident, Attr)]) -> Attr {
        let mut v: Vec<(Ident, Attr)> = entries.to_vec();
        v.sort_by(|a, b| self.str(a.0).cmp(self.str(b.0)));
        v.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                *earlier = *later;
                true
            } else {
                false
            }
        });
        self.attr(AttrKind::Dictionary(v.into()))
    }
    pub fn empty_dict(&self) -> Attr {
        self.empty_dict
    }
    /// The entries of a dictionary attribute (empty for any other attribute).
    pub fn dict_entries(&self, d: Attr) -> &[(Ident, Attr)] {
        match self.attr_kind(d) {
            AttrKind::Dictionary(e) => e,
            _ => &[],
        }
    }
    /// Looks up `key` in dictionary `d` (binary search by key string).
    pub fn dict_get(&self, d: Attr, key: &str) -> Option<Attr> {
        let e = self.dict_entries(d);
        e.binary_search_by(|(k, _)| self.str(*k).cmp(key)).ok().map(|i| e[i].1)
    }
    /// A copy of `d` with `key` set to `value` (or removed when `value` is `None`).
    pub fn dict_set(&self, d: Attr, key: Ident, value: Option<Attr>) -> Attr {
        let mut v: Vec<(Ident, Attr)> = self.dict_entries(d).iter().copied().filter(|(k, _)| *k != key).collect();
        if let Some(value) = value {
            v.push((key, value));
        }
        self.dict(&v)
    }
    pub fn as_int(&self, a: Attr) -> Option<i128> {
        match self.attr_kind(a) {
            AttrKind::Integer { value, .. } => Some(*value),
            _ => None,
        }
    }
    pub fn as_bool(&self, a: Attr) -> Option<bool> {
        match self.attr_kind(a) {
            AttrKind::Integer { value, ty } if self.int_width(*ty) == Some(1) => Some(*value != 0),
            _ => None,
        }
    }
    pub fn as_float(&self, a: Attr) -> Option<f64> {
        match self.attr_kind(a) {
            AttrKind::Float { bits, ty } => Some(bits_to_float(self.float_kind(*ty)?, *bits)),
            _ => None,
        }
    }
    /// The string of a string attribute (`None` if it is not one or not UTF-8).
    pub fn as_str(&self, a: Attr) -> Option<&str> {
        match self.attr_kind(a) {
            AttrKind::String { value, .. } => std::str::from_utf8(value).ok(),
            _ => None,
        }
    }
    pub fn as_type(&self, a: Attr) -> Option<Type> {
        match self.attr_kind(a) {
            AttrKind::Type(t) => Some(*t),
            _ => None,
        }
    }
    pub fn as_array(&self, a: Attr) -> Option<&[Attr]> {
        match self.attr_kind(a) {
            AttrKind::Array(v) => Some(v),
            _ => None,
        }
    }
    /// The root name of a flat or nested symbol reference.
    pub fn as_symbol(&self, a: Attr) -> Option<&str> {
        match self.attr_kind(a) {
            AttrKind::SymbolRef { root, nested } if nested.is_empty() => Some(self.str(*root)),
            _ => None,
        }
    }
    /// The values of an `array<i64: ...>` (or any integer dense array).
    pub fn as_dense_ints(&self, a: Attr) -> Option<Vec<i128>> {
        match self.attr_kind(a) {
            AttrKind::DenseArray { elem, data } if self.is_int_or_index(*elem) => {
                let n = dense_elem_bytes(self, *elem);
                if n == 0 {
                    return Some(Vec::new());
                }
                Some((0..data.len() / n).map(|i| read_int(self, *elem, data, i)).collect())
            }
            _ => None,
        }
    }
    /// Convenience: an `array<i64: ...>` as `Vec<i64>`.
    pub fn as_i64_array(&self, a: Attr) -> Option<Vec<i64>> {
        match self.attr_kind(a) {
            AttrKind::DenseArray { elem, .. } if self.int_width(*elem) == Some(64) => {
                self.as_dense_ints(a).map(|v| v.into_iter().map(|x| x as i64).collect())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod float_rounding_tests {
    use super::*;

    fn f16(v: f64) -> f64 {
        half::f16::from_bits(float_to_bits(FloatKind::F16, v) as u16).to_f64()
    }
    fn bf16(v: f64) -> f64 {
        half::bf16::from_bits(float_to_bits(FloatKind::BF16, v) as u16).to_f64()
    }

    #[test]
    fn f16_and_bf16_round_once_to_nearest_even() {
        let p = |k: i32| 2f64.powi(k);
        // just above a tie (the f32 detour or dropping low bits would make it a tie and round down)
        assert_eq!(f16(1.0 + p(-11) + p(-40)), 1.0 + p(-10));
        assert_eq!(bf16(1.0 + p(-8) + p(-40)), 1.0 + p(-7));
        assert_eq!(bf16(1.0 + p(-8) + p(-23)), 1.0 + p(-7));
        assert_eq!(bf16(-(1.0 + p(-8) + p(-50))), -(1.0 + p(-7)));
        // ties go to even
        assert_eq!(f16(1.0 + p(-11)), 1.0);
        assert_eq!(f16(1.0 + 3.0 * p(-11)), 1.0 + p(-9));
        assert_eq!(bf16(1.0 + p(-8)), 1.0);
        // range ends: the largest finite value, overflow, subnormals, zero signs, NaN
        assert_eq!(f16(65519.9), 65504.0);
        assert_eq!(f16(65520.0), f64::INFINITY);
        assert_eq!(bf16(-f64::MAX), f64::NEG_INFINITY);
        assert_eq!(f16(p(-25) + p(-60)), p(-24));
        assert_eq!(f16(p(-25)), 0.0);
        assert_eq!(bf16(p(-134) * 1.5), p(-133));
        assert_eq!(bf16(5e-324), 0.0);
        assert!(f16(-0.0).is_sign_negative());
        assert!(f16(f64::NAN).is_nan() && bf16(f64::NAN).is_nan());
        assert_eq!(f16(0.1), half::f16::from_f32(0.1).to_f64());
    }
}
