//! Runtime values of the reference interpreter: tensors of the tensor dialect's element types (and
//! of `!xcs.str`), strings, the test dialect's integer scalars and opaque host values; conversion
//! from and to `dense<...>` attributes, element-type casts, and the index arithmetic that every
//! structural op (broadcast, transpose, slice, concat, stack) is written with.

// The variant macros below clone elements generically (`String` needs it, numbers are `Copy`).
#![allow(clippy::clone_on_copy)]

use std::fmt;
use std::sync::Arc;

use half::{bf16, f16};
use xcs_ir::attrs::{dense_elem_bytes, DenseData};
use xcs_ir::types::{FloatKind, Signedness};
use xcs_ir::{Attr, AttrKind, Context, Type, TypeKind, DYNAMIC};

use crate::value_types::{any_type, str_type};

// ---------------------------------------------------------------------------- element types

/// The element types a runtime tensor can have: the tensor dialect's table plus `!xcs.str`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    F16,
    BF16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    Str,
}

impl ElemType {
    pub const ALL: [ElemType; 10] = [
        ElemType::F16,
        ElemType::BF16,
        ElemType::F32,
        ElemType::F64,
        ElemType::I1,
        ElemType::I8,
        ElemType::I16,
        ElemType::I32,
        ElemType::I64,
        ElemType::Str,
    ];

    /// The element type of IR type `t` (a scalar type, not a tensor type).
    pub fn from_type(ctx: &Context, t: Type) -> Option<ElemType> {
        match ctx.type_kind(t) {
            TypeKind::Float(FloatKind::F16) => Some(ElemType::F16),
            TypeKind::Float(FloatKind::BF16) => Some(ElemType::BF16),
            TypeKind::Float(FloatKind::F32) => Some(ElemType::F32),
            TypeKind::Float(FloatKind::F64) => Some(ElemType::F64),
            TypeKind::Integer { width, signedness: Signedness::Signless } => match width {
                1 => Some(ElemType::I1),
                8 => Some(ElemType::I8),
                16 => Some(ElemType::I16),
                32 => Some(ElemType::I32),
                64 => Some(ElemType::I64),
                _ => None,
            },
            _ if t == str_type(ctx) => Some(ElemType::Str),
            _ => None,
        }
    }

    /// The IR type of this element type.
    pub fn to_type(self, ctx: &Context) -> Type {
        match self {
            ElemType::F16 => ctx.f16_type(),
            ElemType::BF16 => ctx.bf16_type(),
            ElemType::F32 => ctx.f32_type(),
            ElemType::F64 => ctx.f64_type(),
            ElemType::I1 => ctx.i1_type(),
            ElemType::I8 => ctx.i8_type(),
            ElemType::I16 => ctx.i16_type(),
            ElemType::I32 => ctx.i32_type(),
            ElemType::I64 => ctx.i64_type(),
            ElemType::Str => str_type(ctx),
        }
    }

    /// The name as types print it (`f32`, `i1`, `!xcs.str`).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::I1 => "i1",
            ElemType::I8 => "i8",
            ElemType::I16 => "i16",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::Str => "!xcs.str",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::BF16 | ElemType::F32 | ElemType::F64)
    }
    /// i8, i16, i32 or i64 (not i1).
    pub fn is_int(self) -> bool {
        matches!(self, ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64)
    }
    /// Numbers: floats and i8..i64 (the `NUMERIC_TENSOR` element types).
    pub fn is_numeric(self) -> bool {
        self.is_float() || self.is_int()
    }
    /// Bytes per element in little-endian storage (dense attributes, native buffers; i1 one
    /// byte); none for strings, which are not stored as bytes.
    pub fn stored_bytes(self) -> Option<usize> {
        match self {
            ElemType::I1 | ElemType::I8 => Some(1),
            ElemType::F16 | ElemType::BF16 | ElemType::I16 => Some(2),
            ElemType::F32 | ElemType::I32 => Some(4),
            ElemType::F64 | ElemType::I64 => Some(8),
            ElemType::Str => None,
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---------------------------------------------------------------------------- tensor data

/// The elements of a tensor, row-major, one vector per element type.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    I1(Vec<bool>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    Str(Vec<String>),
}

/// `match` over every variant binding the vector to `$v`, evaluating `$body` (same type for all).
macro_rules! dispatch {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            TensorData::F16($v) => $body,
            TensorData::BF16($v) => $body,
            TensorData::F32($v) => $body,
            TensorData::F64($v) => $body,
            TensorData::I1($v) => $body,
            TensorData::I8($v) => $body,
            TensorData::I16($v) => $body,
            TensorData::I32($v) => $body,
            TensorData::I64($v) => $body,
            TensorData::Str($v) => $body,
        }
    };
}

/// Like `dispatch!`, but `$body` is a `Vec` of the same element type, wrapped back in the variant.
macro_rules! rewrap {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            TensorData::F16($v) => TensorData::F16($body),
            TensorData::BF16($v) => TensorData::BF16($body),
            TensorData::F32($v) => TensorData::F32($body),
            TensorData::F64($v) => TensorData::F64($body),
            TensorData::I1($v) => TensorData::I1($body),
            TensorData::I8($v) => TensorData::I8($body),
            TensorData::I16($v) => TensorData::I16($body),
            TensorData::I32($v) => TensorData::I32($body),
            TensorData::I64($v) => TensorData::I64($body),
            TensorData::Str($v) => TensorData::Str($body),
        }
    };
}

/// `match` over pairs of the same variant (`$x`, `$y` bound to the two vectors); `$body` yields a
/// `Vec` of that element type, wrapped back; mismatched variants evaluate `$err`.
macro_rules! zip_same {
    ($a:expr, $b:expr, $x:ident, $y:ident => $body:expr, $err:expr) => {
        match ($a, $b) {
            (TensorData::F16($x), TensorData::F16($y)) => TensorData::F16($body),
            (TensorData::BF16($x), TensorData::BF16($y)) => TensorData::BF16($body),
            (TensorData::F32($x), TensorData::F32($y)) => TensorData::F32($body),
            (TensorData::F64($x), TensorData::F64($y)) => TensorData::F64($body),
            (TensorData::I1($x), TensorData::I1($y)) => TensorData::I1($body),
            (TensorData::I8($x), TensorData::I8($y)) => TensorData::I8($body),
            (TensorData::I16($x), TensorData::I16($y)) => TensorData::I16($body),
            (TensorData::I32($x), TensorData::I32($y)) => TensorData::I32($body),
            (TensorData::I64($x), TensorData::I64($y)) => TensorData::I64($body),
            (TensorData::Str($x), TensorData::Str($y)) => TensorData::Str($body),
            _ => $err,
        }
    };
}

/// Element vectors in the type an op computes in: f16, bf16 and f32 elements compute in `f32`,
/// f64 in `f64`, all integers in `i64` (wrapped back to their width afterwards), i1 as `bool`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lanes {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
}

impl TensorData {
    /// The little-endian bytes of the elements (i1 one byte, f16/bf16 their bits, strings
    /// nothing): the layout of dense attributes and of native buffers.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let n = self.le_byte_len();
        let mut out = Vec::with_capacity(n);
        self.write_le_bytes(&mut out.spare_capacity_mut()[..n]);
        // SAFETY: `write_le_bytes` initialized all n bytes.
        unsafe { out.set_len(n) };
        out
    }
    /// The length of [`TensorData::to_le_bytes`].
    pub fn le_byte_len(&self) -> usize {
        self.elem().stored_bytes().unwrap_or(0) * self.len()
    }
    /// Writes [`TensorData::to_le_bytes`] into `out`, which is [`TensorData::le_byte_len`] long
    /// and may be uninitialized (a buffer placed by its user: no intermediate vector).
    pub fn write_le_bytes(&self, out: &mut [std::mem::MaybeUninit<u8>]) {
        assert_eq!(out.len(), self.le_byte_len(), "write_le_bytes: the buffer does not fit the elements");
        fn put<const N: usize, T: Copy>(out: &mut [std::mem::MaybeUninit<u8>], v: &[T], le: impl Fn(T) -> [u8; N]) {
            out.chunks_exact_mut(N).zip(v).for_each(|(o, &x)| {
                o.iter_mut().zip(le(x)).for_each(|(d, b)| {
                    d.write(b);
                })
            });
        }
        match self {
            TensorData::F16(v) => put(out, v, |x| x.to_bits().to_le_bytes()),
            TensorData::BF16(v) => put(out, v, |x| x.to_bits().to_le_bytes()),
            TensorData::F32(v) => put(out, v, f32::to_le_bytes),
            TensorData::F64(v) => put(out, v, f64::to_le_bytes),
            TensorData::I1(v) => put(out, v, |x| [x as u8]),
            TensorData::I8(v) => put(out, v, i8::to_le_bytes),
            TensorData::I16(v) => put(out, v, i16::to_le_bytes),
            TensorData::I32(v) => put(out, v, i32::to_le_bytes),
            TensorData::I64(v) => put(out, v, i64::to_le_bytes),
            TensorData::Str(_) => {}
        }
    }
    /// An empty vector of element type `elem`.
    pub fn empty(elem: ElemType) -> TensorData {
        match elem {
            ElemType::F16 => TensorData::F16(Vec::new()),
            ElemType::BF16 => TensorData::BF16(Vec::new()),
            ElemType::F32 => TensorData::F32(Vec::new()),
            ElemType::F64 => TensorData::F64(Vec::new()),
            ElemType::I1 => TensorData::I1(Vec::new()),
            ElemType::I8 => TensorData::I8(Vec::new()),
            ElemType::I16 => TensorData::I16(Vec::new()),
            ElemType::I32 => TensorData::I32(Vec::new()),
            ElemType::I64 => TensorData::I64(Vec::new()),
            ElemType::Str => TensorData::Str(Vec::new()),
        }
    }
    pub fn elem(&self) -> ElemType {
        match self {
            TensorData::F16(_) => ElemType::F16,
            TensorData::BF16(_) => ElemType::BF16,
            TensorData::F32(_) => ElemType::F32,
            TensorData::F64(_) => ElemType::F64,
            TensorData::I1(_) => ElemType::I1,
            TensorData::I8(_) => ElemType::I8,
            TensorData::I16(_) => ElemType::I16,
            TensorData::I32(_) => ElemType::I32,
            TensorData::I64(_) => ElemType::I64,
            TensorData::Str(_) => ElemType::Str,
        }
    }
    pub fn len(&self) -> usize {
        dispatch!(self, v => v.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The elements at positions `idx` (each must be `< len`; callers compute them from shapes).
    /// `n` copies of the first element (a splat), allocated fallibly: an error, not an abort,
    /// when the memory is not there.
    pub fn repeat_first(&self, n: usize) -> Result<TensorData, String> {
        Ok(rewrap!(self, v => {
            let mut out = Vec::new();
            out.try_reserve_exact(n).map_err(|_| format!("cannot allocate {n} elements of {}", self.elem()))?;
            out.resize(n, v[0].clone());
            out
        }))
    }
    pub fn take(&self, idx: &[usize]) -> TensorData {
        rewrap!(self, v => idx.iter().map(|&i| v[i].clone()).collect())
    }
    /// Writes element `k` of `src` at index `idx[k]` (the scatter that `take` gathers); `src`
    /// has this element type and one element per index.
    pub fn put(&mut self, idx: &[usize], src: &TensorData) -> Result<(), String> {
        if idx.len() != src.len() {
            return Err(format!("{} elements for {} positions", src.len(), idx.len()));
        }
        let mismatch = format!("cannot write {} elements into a {} tensor", src.elem(), self.elem());
        let _ = zip_same!(self, src, d, s => {
            for (&i, x) in idx.iter().zip(s) {
                d[i] = x.clone();
            }
            Vec::new()
        }, return Err(mismatch));
        Ok(())
    }
    /// The concatenation of `parts`, which must all have element type `elem`.
    pub fn concat(elem: ElemType, parts: &[&TensorData]) -> Result<TensorData, String> {
        let mut out = TensorData::empty(elem);
        for p in parts {
            out = zip_same!(out, *p, a, b => { let mut a = a; a.extend(b.iter().cloned()); a },
                return Err(format!("cannot join {} elements with {} elements", elem, p.elem())));
        }
        Ok(out)
    }
    /// Picks `a[i]` where `cond[i]`, else `b[i]` (all of the same length).
    pub fn select(cond: &[bool], a: &TensorData, b: &TensorData) -> Result<TensorData, String> {
        Ok(zip_same!(a, b, x, y => cond.iter().enumerate().map(|(i, &c)| if c { x[i].clone() } else { y[i].clone() }).collect(),
            return Err(format!("select operands have element types {} and {}", a.elem(), b.elem()))))
    }
    /// Bitwise equality (NaNs with the same bits are equal, `-0.0 != 0.0`).
    pub fn bit_eq(&self, other: &TensorData) -> bool {
        match (self, other) {
            (TensorData::F16(a), TensorData::F16(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (TensorData::BF16(a), TensorData::BF16(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (TensorData::F32(a), TensorData::F32(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            (TensorData::F64(a), TensorData::F64(b)) => a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits())),
            _ => self == other,
        }
    }

    /// The elements as numbers in `f64` (floats exactly, integers rounded, i1 as 0/1); `None`
    /// for strings.
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        Some(match self {
            TensorData::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            TensorData::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
            TensorData::F32(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::F64(v) => v.clone(),
            TensorData::I1(v) => v.iter().map(|&x| x as u8 as f64).collect(),
            TensorData::I8(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::I16(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::I32(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::I64(v) => v.iter().map(|&x| x as f64).collect(),
            TensorData::Str(_) => return None,
        })
    }
    /// The elements of an integer or i1 tensor as `i64`; `None` for floats and strings.
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        Some(match self {
            TensorData::I1(v) => v.iter().map(|&x| x as i64).collect(),
            TensorData::I8(v) => v.iter().map(|&x| x as i64).collect(),
            TensorData::I16(v) => v.iter().map(|&x| x as i64).collect(),
            TensorData::I32(v) => v.iter().map(|&x| x as i64).collect(),
            TensorData::I64(v) => v.clone(),
            _ => return None,
        })
    }

    /// The elements in their compute type (see [`Lanes`]).
    pub(crate) fn lanes(&self) -> Lanes {
        match self {
            TensorData::F16(v) => Lanes::F32(v.iter().map(|x| x.to_f32()).collect()),
            TensorData::BF16(v) => Lanes::F32(v.iter().map(|x| x.to_f32()).collect()),
            TensorData::F32(v) => Lanes::F32(v.clone()),
            TensorData::F64(v) => Lanes::F64(v.clone()),
            TensorData::I1(v) => Lanes::Bool(v.clone()),
            TensorData::Str(v) => Lanes::Str(v.clone()),
            other => Lanes::I64(other.to_i64s().unwrap_or_default()),
        }
    }
    /// Converts computed lanes back to element type `elem`: f32 rounds to nearest-even f16/bf16,
    /// i64 wraps to the integer width (as [`TensorData::cast`] does).
    pub(crate) fn from_lanes(elem: ElemType, lanes: Lanes) -> Result<TensorData, String> {
        let natural = match lanes {
            Lanes::F32(v) => TensorData::F32(v),
            Lanes::F64(v) => TensorData::F64(v),
            Lanes::I64(v) => TensorData::I64(v),
            Lanes::Bool(v) => TensorData::I1(v),
            Lanes::Str(v) => TensorData::Str(v),
        };
        natural.cast(elem)
    }

    /// Converts every element to `to`. The rules (documented on `tensor.cast`):
    /// - float -> float rounds to nearest, ties to even (f64 -> f16 rounds once, from the f64);
    /// - float -> integer truncates toward zero and saturates at the integer type's bounds;
    ///   NaN becomes 0 (Rust's `as`; numpy leaves these cases undefined);
    /// - integer -> integer wraps (keeps the low bits, as numpy's `astype`);
    /// - integer -> float rounds to nearest;
    /// - number -> i1 is `x != 0` (NaN is true, as numpy); i1 -> number is 0 or 1;
    /// - strings only convert to strings.
    pub fn cast(&self, to: ElemType) -> Result<TensorData, String> {
        if self.elem() == to {
            return Ok(self.clone());
        }
        if let TensorData::I1(v) = self {
            if to == ElemType::Str {
                return Err("cannot cast i1 elements to !xcs.str".into());
            }
            let as_i64 = TensorData::I64(v.iter().map(|&b| b as i64).collect());
            return as_i64.cast(to);
        }
        if self.elem().is_float() {
            let x = self.to_f64s().unwrap_or_default();
            return Ok(match to {
                ElemType::F16 => TensorData::F16(x.iter().map(|&x| f16_from_f64(x)).collect()),
                ElemType::BF16 => TensorData::BF16(x.iter().map(|&x| bf16_from_f64(x)).collect()),
                ElemType::F32 => TensorData::F32(x.iter().map(|&x| x as f32).collect()),
                ElemType::F64 => TensorData::F64(x),
                ElemType::I1 => TensorData::I1(x.iter().map(|&x| x != 0.0).collect()),
                ElemType::I8 => TensorData::I8(x.iter().map(|&x| x as i8).collect()),
                ElemType::I16 => TensorData::I16(x.iter().map(|&x| x as i16).collect()),
                ElemType::I32 => TensorData::I32(x.iter().map(|&x| x as i32).collect()),
                ElemType::I64 => TensorData::I64(x.iter().map(|&x| x as i64).collect()),
                ElemType::Str => return Err(format!("cannot cast {} elements to !xcs.str", self.elem())),
            });
        }
        if let Some(x) = self.to_i64s() {
            return Ok(match to {
                ElemType::F16 => TensorData::F16(x.iter().map(|&x| f16_from_f64(int_to_f64_odd(x))).collect()),
                ElemType::BF16 => TensorData::BF16(x.iter().map(|&x| bf16_from_f64(int_to_f64_odd(x))).collect()),
                ElemType::F32 => TensorData::F32(x.iter().map(|&x| x as f32).collect()),
                ElemType::F64 => TensorData::F64(x.iter().map(|&x| x as f64).collect()),
                ElemType::I1 => TensorData::I1(x.iter().map(|&x| x != 0).collect()),
                ElemType::I8 => TensorData::I8(x.iter().map(|&x| x as i8).collect()),
                ElemType::I16 => TensorData::I16(x.iter().map(|&x| x as i16).collect()),
                ElemType::I32 => TensorData::I32(x.iter().map(|&x| x as i32).collect()),
                ElemType::I64 => TensorData::I64(x),
                ElemType::Str => return Err(format!("cannot cast {} elements to !xcs.str", self.elem())),
            });
        }
        Err(format!("cannot cast {} elements to {}", self.elem(), to))
    }
}

/// `x` rounded once to the nearest f16, ties to even (`half::f16::from_f64` is not: it goes
/// through f32 or drops low bits, so values just above a tie round down).
pub fn f16_from_f64(x: f64) -> f16 {
    f16::from_bits(xcs_ir::attrs::float_to_bits(FloatKind::F16, x) as u16)
}

/// `x` rounded once to the nearest bf16, ties to even (see [`f16_from_f64`]).
pub fn bf16_from_f64(x: f64) -> bf16 {
    bf16::from_bits(xcs_ir::attrs::float_to_bits(FloatKind::BF16, x) as u16)
}

/// An integer as an `f64` from which f16 and bf16 round as from the integer itself: exact up to
/// 2^53; beyond, rounded to odd at 53 bits (a later rounding to at most 51 bits is then correct,
/// where rounding to nearest first could make a tie that was not there).
fn int_to_f64_odd(x: i64) -> f64 {
    let m = x.unsigned_abs();
    let bits = 64 - m.leading_zeros();
    if bits <= 53 {
        return x as f64;
    }
    let shift = bits - 53;
    let hi = (m >> shift) | ((m & ((1u64 << shift) - 1)) != 0) as u64;
    let v = hi as f64 * (1u64 << shift) as f64;
    if x < 0 {
        -v
    } else {
        v
    }
}

// ---------------------------------------------------------------------------- shapes and indices

/// Number of elements of a shape (`usize::MAX` when that does not fit: see [`check_numel`]).
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |n, &d| n.saturating_mul(d))
}

/// The most elements of one tensor the interpreter makes (2^31: 8 GiB of f32). A larger shape
/// (a broadcast, a constant, an input, a matmul or gather result), and one whose element count
/// overflows 64 bits, is a run-time error where it would be made, never an allocation failure.
pub const MAX_ELEMENTS: usize = 1 << 31;

/// The element count of a tensor of `shape` about to be made, or the error saying it is over
/// [`MAX_ELEMENTS`].
pub fn check_numel(shape: &[usize]) -> Result<usize, String> {
    let n = numel(shape);
    if n > MAX_ELEMENTS {
        let count = if n == usize::MAX { "more than 2^64".to_string() } else { n.to_string() };
        return Err(format!(
            "a tensor of shape [{}] ({count} elements) is larger than the interpreter's limit of 2^31 elements",
            shape_string(shape)
        ));
    }
    // Below the limit, a tensor that the process cannot get the (virtual) memory for is an
    // error too, not an abort: 8 bytes an element (an index or an f64 while it is made) are
    // reserved and given back at once (untouched, so nothing is committed).
    if n >= 1 << 24 && Vec::<u64>::new().try_reserve_exact(n).is_err() {
        return Err(format!(
            "a tensor of shape [{}] ({n} elements) needs more memory than the process can get",
            shape_string(shape)
        ));
    }
    Ok(n)
}

/// Row-major strides of a shape (in elements).
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Calls `f` with every multi-index of `shape` in row-major order (once with `[]` for rank 0,
/// never if a dim is 0).
pub fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        f(&idx);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Formats a runtime shape like types do: `2x3` (rank 0 prints as the empty string).
pub fn shape_string(shape: &[usize]) -> String {
    shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x")
}

/// numpy broadcasting of runtime shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>, String> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let da = if i < n - a.len() { 1 } else { a[i - (n - a.len())] };
        let db = if i < n - b.len() { 1 } else { b[i - (n - b.len())] };
        out.push(match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(format!(
                    "shapes [{}] and [{}] do not broadcast (dimension {da} vs {db})",
                    shape_string(a),
                    shape_string(b)
                ))
            }
        });
    }
    check_numel(&out)?;
    Ok(out)
}

/// Normalises an axis in `[-rank, rank)`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    crate::shape::norm_axis(axis, rank)
}

// ---------------------------------------------------------------------------- tensors

/// A runtime tensor: a row-major shape and its elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: TensorData,
}

impl Tensor {
    /// A tensor, checking that the element count matches the shape.
    pub fn new(shape: Vec<usize>, data: TensorData) -> Result<Tensor, String> {
        if numel(&shape) != data.len() {
            return Err(format!("shape [{}] needs {} elements, but {} were given", shape_string(&shape), numel(&shape), data.len()));
        }
        Ok(Tensor { shape, data })
    }
    /// A rank-0 tensor.
    pub fn scalar(data: TensorData) -> Result<Tensor, String> {
        Tensor::new(Vec::new(), data)
    }
    pub fn f16(shape: &[usize], v: &[f32]) -> Tensor {
        Tensor::checked(shape, TensorData::F16(v.iter().map(|&x| f16::from_f32(x)).collect()))
    }
    pub fn bf16(shape: &[usize], v: &[f32]) -> Tensor {
        Tensor::checked(shape, TensorData::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect()))
    }
    pub fn f32(shape: &[usize], v: &[f32]) -> Tensor {
        Tensor::checked(shape, TensorData::F32(v.to_vec()))
    }
    pub fn f64(shape: &[usize], v: &[f64]) -> Tensor {
        Tensor::checked(shape, TensorData::F64(v.to_vec()))
    }
    pub fn bool(shape: &[usize], v: &[bool]) -> Tensor {
        Tensor::checked(shape, TensorData::I1(v.to_vec()))
    }
    pub fn i8(shape: &[usize], v: &[i8]) -> Tensor {
        Tensor::checked(shape, TensorData::I8(v.to_vec()))
    }
    pub fn i16(shape: &[usize], v: &[i16]) -> Tensor {
        Tensor::checked(shape, TensorData::I16(v.to_vec()))
    }
    pub fn i32(shape: &[usize], v: &[i32]) -> Tensor {
        Tensor::checked(shape, TensorData::I32(v.to_vec()))
    }
    pub fn i64(shape: &[usize], v: &[i64]) -> Tensor {
        Tensor::checked(shape, TensorData::I64(v.to_vec()))
    }
    pub fn strs(shape: &[usize], v: &[&str]) -> Tensor {
        Tensor::checked(shape, TensorData::Str(v.iter().map(|s| s.to_string()).collect()))
    }
    /// A tensor of `elem` and `shape` whose elements are the `f64` values converted with
    /// [`TensorData::cast`] rules (handy for tests over every element type).
    pub fn from_f64s(elem: ElemType, shape: &[usize], v: &[f64]) -> Result<Tensor, String> {
        let data = TensorData::F64(v.to_vec()).cast(elem)?;
        Tensor::new(shape.to_vec(), data)
    }
    /// The convenience constructors above: a wrong element count is a bug of the caller, so it
    /// becomes an empty tensor of shape `[0]` rather than a panic.
    fn checked(shape: &[usize], data: TensorData) -> Tensor {
        let elem = data.elem();
        Tensor::new(shape.to_vec(), data).unwrap_or(Tensor { shape: vec![0], data: TensorData::empty(elem) })
    }

    pub fn elem(&self) -> ElemType {
        self.data.elem()
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    pub fn numel(&self) -> usize {
        self.data.len()
    }
    /// `tensor<2x3xf32>`.
    pub fn type_string(&self) -> String {
        if self.shape.is_empty() {
            format!("tensor<{}>", self.elem())
        } else {
            format!("tensor<{}x{}>", shape_string(&self.shape), self.elem())
        }
    }
    /// The IR type of this tensor (static shape).
    pub fn ir_type(&self, ctx: &Context) -> Type {
        let shape: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        ctx.tensor_type(&shape, self.elem().to_type(ctx))
    }

    /// Gathers elements at linear positions `idx` into a tensor of `shape`.
    pub fn take(&self, shape: Vec<usize>, idx: &[usize]) -> Tensor {
        Tensor { shape, data: self.data.take(idx) }
    }

    /// numpy `broadcast_to`.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor, String> {
        if self.shape == shape {
            return Ok(self.clone());
        }
        let r = self.shape.len();
        if r > shape.len() {
            return Err(format!("shape [{}] cannot be broadcast to [{}]", shape_string(&self.shape), shape_string(shape)));
        }
        let off = shape.len() - r;
        for (i, &d) in self.shape.iter().enumerate() {
            if d != 1 && d != shape[off + i] {
                return Err(format!("shape [{}] cannot be broadcast to [{}]", shape_string(&self.shape), shape_string(shape)));
            }
        }
        check_numel(shape)?;
        let st = strides(&self.shape);
        let mut idx = Vec::with_capacity(numel(shape));
        for_each_index(shape, |ix| {
            let mut src = 0;
            for k in 0..r {
                if self.shape[k] != 1 {
                    src += ix[off + k] * st[k];
                }
            }
            idx.push(src);
        });
        Ok(self.take(shape.to_vec(), &idx))
    }

    /// Permutes the dims: result dim `i` is dim `perm[i]` of `self`.
    pub fn transpose(&self, perm: &[usize]) -> Result<Tensor, String> {
        let r = self.rank();
        let mut seen = vec![false; r];
        if perm.len() != r || perm.iter().any(|&p| p >= r || std::mem::replace(&mut seen[p], true)) {
            return Err(format!("{perm:?} is not a permutation of the {r} dims of a {}", self.type_string()));
        }
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(self.clone());
        }
        let st = strides(&self.shape);
        let out_shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let mut idx = Vec::with_capacity(self.numel());
        for_each_index(&out_shape, |ix| idx.push(ix.iter().zip(perm).map(|(&i, &p)| i * st[p]).sum()));
        Ok(self.take(out_shape, &idx))
    }

    /// Moves dim `from` to position `to` (the others keep their order).
    pub fn move_axis(&self, from: usize, to: usize) -> Result<Tensor, String> {
        let mut perm: Vec<usize> = (0..self.rank()).filter(|&d| d != from).collect();
        if to > perm.len() || from >= self.rank() {
            return Err(format!("cannot move axis {from} to {to} in a {}", self.type_string()));
        }
        perm.insert(to, from);
        self.transpose(&perm)
    }

    /// The sub-tensor at index `k` of dim `axis` (that dim removed).
    pub fn index_axis(&self, axis: usize, k: usize) -> Result<Tensor, String> {
        if axis >= self.rank() || k >= self.shape[axis] {
            return Err(format!("index {k} of axis {axis} is out of range for a {}", self.type_string()));
        }
        let st = strides(&self.shape);
        let mut out_shape = self.shape.clone();
        out_shape.remove(axis);
        let mut idx = Vec::with_capacity(numel(&out_shape));
        for_each_index(&out_shape, |ix| {
            let mut src = k * st[axis];
            for (d, &i) in ix.iter().enumerate() {
                let sd = if d < axis { d } else { d + 1 };
                src += i * st[sd];
            }
            idx.push(src);
        });
        Ok(self.take(out_shape, &idx))
    }

    /// Stacks tensors of one shape and element type along a new dim at `axis`
    /// (`0 <= axis <= rank`), as `np.stack`.
    pub fn stack(parts: &[Tensor], axis: usize) -> Result<Tensor, String> {
        let Some(first) = parts.first() else {
            return Err("cannot stack zero tensors".into());
        };
        for p in parts {
            if p.shape != first.shape || p.elem() != first.elem() {
                return Err(format!("cannot stack a {} with a {}", first.type_string(), p.type_string()));
            }
        }
        if axis > first.rank() {
            return Err(format!("stack axis {axis} is out of range for rank {}", first.rank() + 1));
        }
        let data = TensorData::concat(first.elem(), &parts.iter().map(|p| &p.data).collect::<Vec<_>>())?;
        let mut shape = vec![parts.len()];
        shape.extend(&first.shape);
        Tensor::new(shape, data)?.move_axis(0, axis)
    }

    /// Joins tensors along existing dim `axis`, as `np.concatenate`.
    pub fn concat(parts: &[&Tensor], axis: usize) -> Result<Tensor, String> {
        let Some(first) = parts.first() else {
            return Err("cannot concatenate zero tensors".into());
        };
        if axis >= first.rank() {
            return Err(format!("concat axis {axis} is out of range for rank {}", first.rank()));
        }
        let mut moved = Vec::with_capacity(parts.len());
        let mut total = 0;
        for (i, p) in parts.iter().enumerate() {
            let same_rest =
                p.rank() == first.rank() && (0..p.rank()).all(|d| d == axis || p.shape[d] == first.shape[d]);
            if !same_rest || p.elem() != first.elem() {
                return Err(format!(
                    "operand #{i} of type {} does not match operand #0 of type {} outside axis {axis}",
                    p.type_string(),
                    first.type_string()
                ));
            }
            total += p.shape[axis];
            moved.push(p.move_axis(axis, 0)?);
        }
        let data = TensorData::concat(first.elem(), &moved.iter().map(|p| &p.data).collect::<Vec<_>>())?;
        let mut shape: Vec<usize> = first.shape.iter().enumerate().filter(|&(d, _)| d != axis).map(|(_, &s)| s).collect();
        shape.insert(0, total);
        Tensor::new(shape, data)?.move_axis(0, axis)
    }

    /// Converts the elements (see [`TensorData::cast`]).
    pub fn cast(&self, to: ElemType) -> Result<Tensor, String> {
        Ok(Tensor { shape: self.shape.clone(), data: self.data.cast(to)? })
    }

    /// Bitwise equality of shape and elements.
    pub fn bit_eq(&self, other: &Tensor) -> bool {
        self.shape == other.shape && self.data.bit_eq(&other.data)
    }
}

// ---------------------------------------------------------------------------- attributes

fn le_bytes<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

/// Decodes `n` elements of `elem` from dense storage bytes (little-endian, i1 one byte each).
fn decode_dense(elem: ElemType, bytes: &[u8], n: usize) -> Result<TensorData, String> {
    let Some(w) = elem.stored_bytes() else {
        return Err("string elements are not stored as bytes".into());
    };
    if n.checked_mul(w) != Some(bytes.len()) {
        return Err(format!("dense storage has {} bytes, but {n} {elem} elements need {}", bytes.len(), n.saturating_mul(w)));
    }
    let ch = bytes.chunks_exact(w.max(1));
    Ok(match elem {
        ElemType::F16 => TensorData::F16(ch.map(|c| f16::from_bits(u16::from_le_bytes(le_bytes(c)))).collect()),
        ElemType::BF16 => TensorData::BF16(ch.map(|c| bf16::from_bits(u16::from_le_bytes(le_bytes(c)))).collect()),
        ElemType::F32 => TensorData::F32(ch.map(|c| f32::from_le_bytes(le_bytes(c))).collect()),
        ElemType::F64 => TensorData::F64(ch.map(|c| f64::from_le_bytes(le_bytes(c))).collect()),
        ElemType::I1 => TensorData::I1(ch.map(|c| c[0] != 0).collect()),
        ElemType::I8 => TensorData::I8(ch.map(|c| c[0] as i8).collect()),
        ElemType::I16 => TensorData::I16(ch.map(|c| i16::from_le_bytes(le_bytes(c))).collect()),
        ElemType::I32 => TensorData::I32(ch.map(|c| i32::from_le_bytes(le_bytes(c))).collect()),
        ElemType::I64 => TensorData::I64(ch.map(|c| i64::from_le_bytes(le_bytes(c))).collect()),
        ElemType::Str => TensorData::Str(Vec::new()),
    })
}


/// The static shape and element type of a ranked tensor type.
pub fn static_tensor_type(ctx: &Context, t: Type) -> Result<(Vec<usize>, ElemType), String> {
    let TypeKind::RankedTensor { shape, elem, .. } = ctx.type_kind(t) else {
        return Err(format!("'{}' is not a ranked tensor type", xcs_ir::printer::type_to_string(ctx, t)));
    };
    let e = ElemType::from_type(ctx, *elem)
        .ok_or_else(|| format!("element type '{}' is not supported", xcs_ir::printer::type_to_string(ctx, *elem)))?;
    let mut s = Vec::with_capacity(shape.len());
    for &d in shape.iter() {
        if d == DYNAMIC || d < 0 {
            return Err(format!("'{}' has a dynamic dimension", xcs_ir::printer::type_to_string(ctx, t)));
        }
        s.push(d as usize);
    }
    check_numel(&s).map_err(|m| format!("'{}': {m}", xcs_ir::printer::type_to_string(ctx, t)))?;
    Ok((s, e))
}

/// The tensor held by a `dense<...>` attribute (a splat is expanded) or by the blob of a
/// `dense_resource<...>` attribute (an error if the file gave it no data).
pub fn tensor_from_attr(ctx: &Context, attr: Attr) -> Result<Tensor, String> {
    match ctx.attr_kind(attr) {
        AttrKind::DenseElements { ty, data } => {
            let (shape, elem) = static_tensor_type(ctx, *ty)?;
            let n = numel(&shape);
            let data = match data {
                DenseData::Splat(bytes) => {
                    let one = decode_dense(elem, bytes, 1)?;
                    one.repeat_first(n)?
                }
                DenseData::Elements(bytes) => decode_dense(elem, bytes, n)?,
                DenseData::Strings(items) => {
                    if elem != ElemType::Str {
                        return Err(format!("string elements in a constant of element type {elem}"));
                    }
                    let strs: Result<Vec<String>, String> = items
                        .iter()
                        .map(|b| String::from_utf8(b.to_vec()).map_err(|_| "a string element is not valid UTF-8".to_string()))
                        .collect();
                    let strs = strs?;
                    if strs.len() == 1 && n != 1 {
                        TensorData::Str(vec![strs[0].clone(); n])
                    } else {
                        TensorData::Str(strs)
                    }
                }
            };
            Tensor::new(shape, data)
        }
        AttrKind::DenseResource { handle, ty } => {
            // the blob holds the raw little-endian elements (MLIR's DenseResourceElementsAttr)
            let key = ctx.str(ctx.resource_key(*handle));
            let blob = ctx.resource_blob(*handle).ok_or_else(|| {
                format!("dense_resource<{key}> has no data (the file's dialect_resources section has no blob '{key}')")
            })?;
            let (shape, elem) = static_tensor_type(ctx, *ty)?;
            let data = decode_dense(elem, &blob.data, numel(&shape)).map_err(|e| format!("dense_resource<{key}>: {e}"))?;
            Tensor::new(shape, data)
        }
        _ => Err("expected a dense elements attribute".into()),
    }
}

/// The `dense<...>` attribute of a tensor. Like MLIR's `DenseElementsAttr::get`, a non-empty
/// tensor whose elements are all bitwise equal becomes a splat, so equal constants intern equal.
pub fn tensor_to_attr(ctx: &Context, t: &Tensor) -> Attr {
    let ty = t.ir_type(ctx);
    let all_same = t.numel() > 0 && (1..t.numel()).all(|i| t.data.take(&[i]).bit_eq(&t.data.take(&[0])));
    let data = match &t.data {
        TensorData::Str(v) => {
            let items: Vec<Box<[u8]>> = if all_same {
                vec![v[0].as_bytes().into()]
            } else {
                v.iter().map(|s| s.as_bytes().into()).collect()
            };
            DenseData::Strings(items.into())
        }
        d if all_same => DenseData::Splat(d.take(&[0]).to_le_bytes().into()),
        d => DenseData::Elements(d.to_le_bytes().into()),
    };
    debug_assert!(t.elem() == ElemType::Str || dense_elem_bytes(ctx, t.elem().to_type(ctx)) > 0);
    ctx.attr(AttrKind::DenseElements { ty, data })
}

/// The element of a splat `dense<...>` attribute as a rank-0 tensor, without expanding the
/// splat (`None` if the attribute is not a splat of a supported element type).
pub fn splat_from_attr(ctx: &Context, attr: Attr) -> Option<Tensor> {
    let AttrKind::DenseElements { ty, data } = ctx.attr_kind(attr) else { return None };
    let TypeKind::RankedTensor { elem, .. } = ctx.type_kind(*ty) else { return None };
    let elem = ElemType::from_type(ctx, *elem)?;
    let data = match data {
        DenseData::Splat(bytes) => decode_dense(elem, bytes, 1).ok()?,
        DenseData::Strings(items) if items.len() == 1 && elem == ElemType::Str => {
            TensorData::Str(vec![String::from_utf8(items[0].to_vec()).ok()?])
        }
        _ => return None,
    };
    Tensor::new(Vec::new(), data).ok()
}

/// The splat `dense<...>` attribute of type `ty` (a static ranked tensor type) whose every
/// element is the single element of `t`.
pub fn splat_to_attr(ctx: &Context, t: &Tensor, ty: Type) -> Result<Attr, String> {
    let (_, elem) = static_tensor_type(ctx, ty)?;
    if t.numel() != 1 || t.elem() != elem {
        return Err(format!("a {} is not one element of '{}'", t.type_string(), xcs_ir::printer::type_to_string(ctx, ty)));
    }
    let data = match &t.data {
        TensorData::Str(v) => DenseData::Strings(vec![v[0].as_bytes().into()].into()),
        d => DenseData::Splat(d.to_le_bytes().into()),
    };
    Ok(ctx.attr(AttrKind::DenseElements { ty, data }))
}

// ---------------------------------------------------------------------------- runtime values

/// An integer scalar of the test dialect (`i1` ... `i64`, any signless width up to 128): the
/// value is kept sign-extended from `width` bits, as integer attributes are.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    pub value: i128,
    pub width: u32,
}

impl Scalar {
    /// `value` truncated to `width` bits and sign-extended (wrapping arithmetic).
    pub fn new(value: i128, width: u32) -> Scalar {
        let value = if width == 0 || width >= 128 {
            value
        } else {
            let sh = 128 - width;
            (value << sh) >> sh
        };
        Scalar { value, width }
    }
}

/// An opaque host value (`!xcs.any`): whatever the embedding program puts in.
#[derive(Clone)]
pub struct AnyValue(pub Arc<dyn std::any::Any + Send + Sync>);

impl fmt::Debug for AnyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<xcs.any>")
    }
}

/// A function value (`func.constant @f`, MLIR's values of function type): the function it
/// names and its type; `func.call_indirect` calls it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncValue {
    /// The symbol of the function (`f` for `@f`).
    pub symbol: Arc<str>,
    /// Its function type.
    pub ty: Type,
    /// The type as it prints (`(i32) -> i32`), for messages.
    pub type_text: Arc<str>,
}

impl FuncValue {
    pub fn new(ctx: &Context, symbol: &str, ty: Type) -> FuncValue {
        FuncValue {
            symbol: symbol.into(),
            ty,
            type_text: xcs_ir::printer::type_to_string(ctx, ty).into(),
        }
    }
}

/// A value the interpreter computes with.
#[derive(Clone, Debug)]
pub enum RtValue {
    Tensor(Tensor),
    /// An `!xcs.str`.
    Str(String),
    /// An integer scalar (`i1`..`i64`): a function argument, or made by the test dialect.
    Scalar(Scalar),
    /// An `!xcs.any`.
    Any(AnyValue),
    /// A function (`func.constant`).
    Func(FuncValue),
}

impl From<Tensor> for RtValue {
    fn from(t: Tensor) -> Self {
        RtValue::Tensor(t)
    }
}
impl From<String> for RtValue {
    fn from(s: String) -> Self {
        RtValue::Str(s)
    }
}
impl From<&str> for RtValue {
    fn from(s: &str) -> Self {
        RtValue::Str(s.to_string())
    }
}

impl RtValue {
    /// The value as a tensor: tensors as they are, an `!xcs.str` as a 0-d string tensor, an
    /// integer scalar as a 0-d tensor of its width (what batching stacks and `.npy` files hold).
    pub fn to_tensor(&self) -> Result<Tensor, String> {
        let scalar = |d: TensorData| Tensor::scalar(d);
        match self {
            RtValue::Tensor(t) => Ok(t.clone()),
            RtValue::Str(s) => scalar(TensorData::Str(vec![s.clone()])),
            RtValue::Scalar(Scalar { value, width }) => match width {
                1 => scalar(TensorData::I1(vec![*value != 0])),
                8 => scalar(TensorData::I8(vec![*value as i8])),
                16 => scalar(TensorData::I16(vec![*value as i16])),
                32 => scalar(TensorData::I32(vec![*value as i32])),
                64 => scalar(TensorData::I64(vec![*value as i64])),
                w => Err(format!("an i{w} value has no tensor form")),
            },
            RtValue::Any(_) => Err("an !xcs.any value has no tensor form".into()),
            RtValue::Func(f) => Err(format!("a function value ({}) has no tensor form", f.type_text)),
        }
    }

    /// An integer scalar of `width` bits.
    pub fn int(value: i128, width: u32) -> RtValue {
        RtValue::Scalar(Scalar::new(value, width))
    }
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            RtValue::Tensor(t) => Some(t),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            RtValue::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            RtValue::Scalar(s) => Some(*s),
            _ => None,
        }
    }
    pub fn as_func(&self) -> Option<&FuncValue> {
        match self {
            RtValue::Func(f) => Some(f),
            _ => None,
        }
    }
    /// The type of the value as IR types print (`tensor<2xf32>`, `!xcs.str`, `i32`, `!xcs.any`,
    /// `(i32) -> i32`).
    pub fn type_string(&self) -> String {
        match self {
            RtValue::Tensor(t) => t.type_string(),
            RtValue::Str(_) => "!xcs.str".into(),
            RtValue::Scalar(s) => format!("i{}", s.width),
            RtValue::Any(_) => "!xcs.any".into(),
            RtValue::Func(f) => f.type_text.to_string(),
        }
    }

    /// Checks that the value can be a value of IR type `ty`: a tensor of the same element type
    /// and rank whose size matches every static dim; a string for `!xcs.str`; an integer scalar
    /// of the same width (64 bits for `index`); a function of that function type; anything for
    /// `!xcs.any`; an opaque host value for any other dialect type (e.g. a `!shard.sharding`,
    /// which the interpreter does not look into).
    pub fn check_type(&self, ctx: &Context, ty: Type) -> Result<(), String> {
        let mismatch = || {
            format!("a value of type {} where '{}' is expected", self.type_string(), xcs_ir::printer::type_to_string(ctx, ty))
        };
        if ty == any_type(ctx) {
            return Ok(());
        }
        match (self, ctx.type_kind(ty)) {
            (RtValue::Tensor(t), TypeKind::RankedTensor { shape, elem, .. }) => {
                let ok = ElemType::from_type(ctx, *elem) == Some(t.elem())
                    && shape.len() == t.rank()
                    && shape.iter().zip(&t.shape).all(|(&d, &s)| d == DYNAMIC || d as usize == s);
                if ok {
                    Ok(())
                } else {
                    Err(mismatch())
                }
            }
            (RtValue::Tensor(t), TypeKind::UnrankedTensor { elem }) if ElemType::from_type(ctx, *elem) == Some(t.elem()) => {
                Ok(())
            }
            (RtValue::Str(_), _) if ty == str_type(ctx) => Ok(()),
            (RtValue::Scalar(s), TypeKind::Integer { width, .. }) if *width == s.width => Ok(()),
            (RtValue::Func(f), _) if f.ty == ty => Ok(()),
            (RtValue::Scalar(s), TypeKind::Index) if s.width == 64 => Ok(()),
            (RtValue::Any(_), TypeKind::Dialect { .. }) if ty != str_type(ctx) => Ok(()),
            _ => Err(mismatch()),
        }
    }
}
