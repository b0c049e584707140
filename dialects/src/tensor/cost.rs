//! PENDING: the cost of the tensor ops (placeholders being replaced).

use crate::pending::Pending;

pub static BROADCAST_TO: Pending = Pending;
pub static CAST: Pending = Pending;
pub static CMP: Pending = Pending;
pub static CONCAT: Pending = Pending;
pub static CONSTANT: Pending = Pending;
pub static EINSUM: Pending = Pending;
pub static ELEMENTWISE: Pending = Pending;
pub static GATHER: Pending = Pending;
pub static GELU: Pending = Pending;
pub static LAYER_NORM: Pending = Pending;
pub static MATMUL: Pending = Pending;
pub static REDUCE: Pending = Pending;
pub static RESHAPE: Pending = Pending;
pub static SELECT: Pending = Pending;
pub static SLICE: Pending = Pending;
pub static SOFTMAX: Pending = Pending;
pub static TRANSPOSE: Pending = Pending;
