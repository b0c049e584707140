//! Shape arithmetic shared by the tensor ops' inference and verifiers: numpy broadcasting with
//! dynamic (`?`) dimensions, axis normalisation, type compatibility, element-type classes; and
//! the first mismatch of a list of types, for every dialect's verifiers.

use xcs_ir::types::{FloatKind, Signedness, DYNAMIC};
use xcs_ir::{Context, Type, TypeKind};

/// Formats a shape the way types print it: `4x?x8`.
pub fn shape_str(shape: &[i64]) -> String {
    shape.iter().map(|&d| if d == DYNAMIC { "?".to_string() } else { d.to_string() }).collect::<Vec<_>>().join("x")
}

/// The first position where the types `actual` and `expected` differ: its index and both types
/// (the verifiers' check of block arguments or yielded values against an op's types).
pub fn first_type_mismatch(actual: impl IntoIterator<Item = Type>, expected: &[Type]) -> Option<(usize, Type, Type)> {
    let pairs = actual.into_iter().zip(expected.iter().copied()).enumerate();
    pairs.map(|(i, (a, e))| (i, a, e)).find(|&(_, a, e)| a != e)
}

/// numpy broadcasting of two shapes (right-aligned; a dim of 1 stretches; `?` against `n` gives
/// `n` if n > 1 (a run-time check), `?` otherwise).
pub fn broadcast(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    let n = a.len().max(b.len());
    let mut out = vec![0i64; n];
    for i in 0..n {
        let da = if i < n - a.len() { 1 } else { a[i - (n - a.len())] };
        let db = if i < n - b.len() { 1 } else { b[i - (n - b.len())] };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (DYNAMIC, y) | (y, DYNAMIC) => y,
            _ => {
                return Err(format!(
                    "shapes {} and {} do not broadcast (dimension {} vs {})",
                    shape_str(a),
                    shape_str(b),
                    dim_str(da),
                    dim_str(db)
                ))
            }
        };
    }
    Ok(out)
}

pub fn dim_str(d: i64) -> String {
    if d == DYNAMIC {
        "?".into()
    } else {
        d.to_string()
    }
}

/// True if a value of shape `from` can be broadcast to shape `to` (numpy rules, one way).
pub fn broadcastable_to(from: &[i64], to: &[i64]) -> bool {
    if from.len() > to.len() {
        return false;
    }
    let off = to.len() - from.len();
    from.iter().enumerate().all(|(i, &d)| d == 1 || d == to[off + i] || d == DYNAMIC || to[off + i] == DYNAMIC)
}

/// Normalises an axis in `[-rank, rank)` to `[0, rank)`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// Two dims are compatible when equal or either is dynamic.
pub fn dims_compatible(a: i64, b: i64) -> bool {
    a == b || a == DYNAMIC || b == DYNAMIC
}

pub use xcs_ir::opdef::types_compatible;

/// The element types of the tensor dialect's table: f16, bf16, f32, f64, i1, i8, i16, i32, i64.
pub fn is_table_elem(ctx: &Context, t: Type) -> bool {
    match ctx.type_kind(t) {
        TypeKind::Float(k) => matches!(k, FloatKind::F16 | FloatKind::BF16 | FloatKind::F32 | FloatKind::F64),
        TypeKind::Integer { width, signedness: Signedness::Signless } => matches!(width, 1 | 8 | 16 | 32 | 64),
        _ => false,
    }
}

/// The shape and element type of a ranked tensor.
pub fn ranked(ctx: &Context, t: Type) -> Option<(&[i64], Type)> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, elem, .. } => Some((shape, *elem)),
        _ => None,
    }
}

/// Number of elements of a static shape (`None` if any dim is dynamic).
pub fn num_elements(shape: &[i64]) -> Option<i64> {
    shape.iter().try_fold(1i64, |acc, &d| if d == DYNAMIC { None } else { acc.checked_mul(d) })
}

#[cfg(test)]
mod tests {
    use super::*;
    const Q: i64 = DYNAMIC;

    #[test]
    fn numpy_broadcasting() {
        assert_eq!(broadcast(&[4, 1], &[3]).unwrap(), vec![4, 3]);
        assert_eq!(broadcast(&[2, 3, 4], &[4]).unwrap(), vec![2, 3, 4]);
        assert_eq!(broadcast(&[Q, 4], &[3, 1]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast(&[Q], &[1]).unwrap(), vec![Q]);
        assert_eq!(broadcast(&[], &[5]).unwrap(), vec![5]);
        let e = broadcast(&[4, 3], &[2]).unwrap_err();
        assert!(e.contains("4x3 and 2 do not broadcast"), "{e}");
        assert!(broadcastable_to(&[1, 3], &[4, 3]));
        assert!(!broadcastable_to(&[2, 3], &[4, 3]));
    }

    #[test]
    fn axes() {
        assert_eq!(norm_axis(-1, 3).unwrap(), 2);
        assert!(norm_axis(3, 3).is_err());
        assert!(norm_axis(-4, 3).is_err());
    }
}
