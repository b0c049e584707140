//! The values of a function being lowered: a tensor in registers ([`TensorVal`]: pointer,
//! sizes and strides, so views need no copy) or an integer scalar, held per SSA value as a
//! [`Slot`].

use xcs_dialects::interp::ElemType;

use super::llvm_ir::{FunctionBuilder, Val};

/// A tensor in registers: data pointer, sizes and strides (in elements), element type, whether
/// it is known to be row-major contiguous with `ptr` at the start of its buffer, and the buffer
/// it lives in (an owned allocation of this function; `None` for arguments, constants and views
/// of them).
#[derive(Clone, Debug)]
pub struct TensorVal {
    pub ptr: Val,
    pub dims: Vec<Val>,
    pub strides: Vec<Val>,
    pub elem: ElemType,
    pub contiguous: bool,
    pub buf: Option<usize>,
}

impl TensorVal {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    pub fn numel(&self, f: &mut FunctionBuilder) -> Val {
        f.product(&self.dims)
    }
}

/// Row-major strides of `dims`.
pub fn row_major(f: &mut FunctionBuilder, dims: &[Val]) -> Vec<Val> {
    let mut s = vec![Val::i64(1); dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = f.mul(&s[d + 1], &dims[d + 1]);
    }
    s
}

/// The value of an SSA value of the function being lowered.
#[derive(Clone, Debug)]
pub enum Slot {
    Tensor(TensorVal),
    /// An integer scalar (i1..i64) in registers.
    Scalar(Val, ElemType),
}
