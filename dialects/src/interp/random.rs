//! Deterministic random inputs (`--input x=random:SEED`). The generator is SplitMix64 written
//! out here rather than taken from a crate, so the values for a seed can never change with a
//! dependency update (tests and bug reports quote seeds).
//!
//! Values: floats are uniform on a grid in `[-1, 1)` fine enough for the type and exact in it
//! (`k / 2^(p-1) - 1` for `p` = the type's significand bits: 11 for f16, 8 for bf16, 24 for
//! f32, 53 for f64); integers (i8..i64) are uniform in `[-8, 7]`; i1 is true or false with
//! probability 1/2; strings are 8 lowercase ASCII letters. Elements are drawn in row-major order.

use half::{bf16, f16};
use xcs_ir::{Context, Type, TypeKind};

use super::value::{numel, static_tensor_type, ElemType, RtValue, Scalar, Tensor, TensorData};

/// The SplitMix64 generator (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (0 when `n` is 0), for random program generators.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    /// Uniform on `k / 2^(bits-1) - 1`, `k < 2^bits`: a grid in `[-1, 1)`.
    fn grid(&mut self, bits: u32) -> f64 {
        let k = self.next_u64() >> (64 - bits);
        k as f64 / (1u64 << (bits - 1)) as f64 - 1.0
    }
    fn small_int(&mut self) -> i64 {
        (self.next_u64() >> 60) as i64 - 8
    }
}

/// `n` random elements of `elem` (see the module docs).
pub fn random_data(elem: ElemType, n: usize, rng: &mut SplitMix64) -> TensorData {
    match elem {
        ElemType::F16 => TensorData::F16((0..n).map(|_| f16::from_f64(rng.grid(11))).collect()),
        ElemType::BF16 => TensorData::BF16((0..n).map(|_| bf16::from_f64(rng.grid(8))).collect()),
        ElemType::F32 => TensorData::F32((0..n).map(|_| rng.grid(24) as f32).collect()),
        ElemType::F64 => TensorData::F64((0..n).map(|_| rng.grid(53)).collect()),
        ElemType::I1 => TensorData::I1((0..n).map(|_| rng.next_u64() >> 63 == 1).collect()),
        ElemType::I8 => TensorData::I8((0..n).map(|_| rng.small_int() as i8).collect()),
        ElemType::I16 => TensorData::I16((0..n).map(|_| rng.small_int() as i16).collect()),
        ElemType::I32 => TensorData::I32((0..n).map(|_| rng.small_int() as i32).collect()),
        ElemType::I64 => TensorData::I64((0..n).map(|_| rng.small_int()).collect()),
        ElemType::Str => TensorData::Str((0..n).map(|_| random_string(rng)).collect()),
    }
}

fn random_string(rng: &mut SplitMix64) -> String {
    (0..8).map(|_| (b'a' + (rng.next_u64() % 26) as u8) as char).collect()
}

/// A random tensor of a static shape.
pub fn random_tensor(elem: ElemType, shape: &[usize], seed: u64) -> Tensor {
    let mut rng = SplitMix64(seed);
    Tensor { shape: shape.to_vec(), data: random_data(elem, numel(shape), &mut rng) }
}

/// A random value of IR type `ty`: a tensor with a static shape, `!xcs.str`, or an integer
/// scalar (test dialect; uniform in `[-8, 7]`, i1 0/1). Dynamic dims and other types are errors.
pub fn random_input(ctx: &Context, ty: Type, seed: u64) -> Result<RtValue, String> {
    let mut rng = SplitMix64(seed);
    if ty == crate::value_types::str_type(ctx) {
        return Ok(RtValue::Str(random_string(&mut rng)));
    }
    match ctx.type_kind(ty) {
        TypeKind::RankedTensor { .. } => {
            let (shape, elem) = static_tensor_type(ctx, ty)
                .map_err(|e| format!("cannot make a random input: {e} (give the input as a .npy file)"))?;
            Ok(RtValue::Tensor(Tensor { data: random_data(elem, numel(&shape), &mut rng), shape }))
        }
        TypeKind::Integer { width, .. } if *width == 1 => Ok(RtValue::Scalar(Scalar::new((rng.next_u64() >> 63) as i128, 1))),
        TypeKind::Integer { width, .. } => Ok(RtValue::Scalar(Scalar::new(rng.small_int() as i128, *width))),
        _ => Err(format!(
            "cannot make a random value of type '{}'",
            xcs_ir::printer::type_to_string(ctx, ty)
        )),
    }
}
