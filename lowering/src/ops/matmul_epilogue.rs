//! The epilogue of the f32 matmul (a `tensor.fused` region's elementwise ops after the matmul)
//! applied to one finished output tile of C: by the generated kernel (`matmul_f32`) inline, and
//! by the callback the runtime's matmul library calls (`matmul_lib`).

use xcs_dialects::interp::ElemType;

use super::matmul::Epilogue;
use crate::codegen::llvm_ir::Val;
use crate::codegen::types::{load_elem, store_elem};
use crate::codegen::{Kernel, TensorVal, R};

/// Where an output tile of the f32 kernel is: its first row and column, its offset in C, its
/// valid rows and columns, and C's row length.
#[derive(Clone, Copy)]
pub(super) struct TileAt<'v> {
    pub(super) row0: &'v Val,
    pub(super) col0: &'v Val,
    pub(super) cbase: &'v Val,
    pub(super) nrv: &'v Val,
    pub(super) ncv: &'v Val,
    pub(super) kn: &'v Val,
}

/// An epilogue's leaves in the kernel: tensors, strides broadcast to the result, and their
/// offsets at the current batch index.
pub(super) struct EpiLeaves<'v> {
    pub(super) tvs: &'v [TensorVal],
    pub(super) strides: &'v [Vec<Val>],
    pub(super) base: &'v [Val],
    pub(super) nbd: usize,
}

/// Applies `e` to the valid part of a finished tile of C (`c`), element by element, storing
/// into `outs` at C's offsets (the inner loop is contiguous, so it vectorizes).
pub(super) fn epilogue_tile(
    k: &mut Kernel,
    e: &mut Epilogue,
    c: &TensorVal,
    outs: &[TensorVal],
    lv: &EpiLeaves,
    t: &TileAt,
) -> R<()> {
    k.for_range(&Val::i64(0), t.nrv, |k, r| {
        let f = &mut k.f;
        let row = f.add(t.row0, r);
        let ro = f.mul(r, t.kn);
        let rbase = f.add(t.cbase, &ro);
        let lrow: Vec<Val> = (0..lv.tvs.len())
            .map(|i| {
                let x = f.mul(&row, &lv.strides[i][lv.nbd]);
                f.add(&lv.base[i], &x)
            })
            .collect();
        k.for_range(&Val::i64(0), t.ncv, |k, cc| {
            let f = &mut k.f;
            let col = f.add(t.col0, cc);
            let off = f.add(&rbase, cc);
            let cv = load_elem(f, ElemType::F32, &c.ptr, &off);
            let mut vals = Vec::with_capacity(lv.tvs.len());
            for (i, tv) in lv.tvs.iter().enumerate() {
                let x = f.mul(&col, &lv.strides[i][lv.nbd + 1]);
                let lo = f.add(&lrow[i], &x);
                vals.push(load_elem(f, tv.elem, &tv.ptr, &lo));
            }
            let ys = (e.eval)(k, &cv, &vals)?;
            for (o, y) in outs.iter().zip(&ys) {
                store_elem(&mut k.f, o.elem, &o.ptr, &off, y);
            }
            Ok(())
        })
    })
}
