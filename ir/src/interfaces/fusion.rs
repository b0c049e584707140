//! The fusion-role interface: how the `fuse` pass may group an op. An op declares its role as
//! an interface value; without one, the `Elementwise` trait makes it an (expensive)
//! elementwise op and anything else is opaque.

use crate::context::{Context, OpName};
use crate::opdef::Traits;

/// How `fuse` treats an op (see the pass's docs for the region kinds).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FusionRole {
    /// Computes each result element from the operands' elements at the same (broadcast)
    /// index. `cheap` ones (a few instructions per element) may be recomputed inside several
    /// regions instead of being stored once.
    Elementwise { cheap: bool },
    /// Anchors a region and takes the elementwise producers of its input (`reduce`, `softmax`,
    /// `layer_norm`).
    Reduction,
    /// Anchors a region and takes the elementwise consumers of its result as an epilogue
    /// (`matmul`).
    MatmulEpilogue,
    /// Not fused; other ops may be fused around it.
    Opaque,
}
crate::op_interface!(FusionRole, "fusion-role");

impl FusionRole {
    /// An elementwise op that may be recomputed.
    pub const CHEAP: FusionRole = FusionRole::Elementwise { cheap: true };
    /// An elementwise op that is stored once rather than recomputed.
    pub const EXPENSIVE: FusionRole = FusionRole::Elementwise { cheap: false };
}

/// The fusion role of the op named `name`: its declared [`FusionRole`], else
/// `Elementwise { cheap: false }` for ops with the `Elementwise` trait, else `Opaque`
/// (unregistered ops included).
pub fn fusion_role(ctx: &Context, name: OpName) -> FusionRole {
    if let Some(role) = ctx.interface::<FusionRole>(name) {
        return *role;
    }
    match ctx.op_def(name) {
        Some(def) if def.has(Traits::Elementwise) => FusionRole::EXPENSIVE,
        _ => FusionRole::Opaque,
    }
}
