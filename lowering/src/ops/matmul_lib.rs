//! The f32 matmul as one call of the runtime's precompiled, shape-generic library
//! (`xcs_rt_matmul_f32`, `runtime/xcs_matmul.c`): the generated code passes pointers, sizes,
//! strides and the batch dims; a fused epilogue becomes a small callback kernel that the library
//! calls on each finished output tile. Compiling it costs next to nothing, unlike the packed
//! kernel generated per call site (`matmul_f32`), which `Options::matmul` still selects.

use super::matmul::{Epilogue, Plan};
use super::matmul_epilogue::{epilogue_tile, EpiLeaves, TileAt};
use super::matmul_f32::CHUNK_FMAS_PER_THRESHOLD;
use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::{broadcast_strides, offset, unflatten};
use crate::codegen::kernel::RolledLoops;
use crate::codegen::{FunctionLowering, OpSite, TensorVal, R};

/// Computes `p` into `out` (a contiguous f32 tensor of the result's sizes) with the library,
/// applying `epi` to each finished tile.
pub(super) fn matmul_f32_library(
    fl: &mut FunctionLowering,
    o: &OpSite,
    p: &Plan,
    out: &TensorVal,
    epi: Option<Epilogue>,
) -> R<()> {
    // The batch dims: sizes, then A's strides, then B's, in an i64 array on the stack.
    let nbd = p.batch.len();
    let bdims = fl.f.alloca("i64", (3 * nbd).max(1));
    for (i, v) in p.batch.iter().chain(&p.abs).chain(&p.bbs).enumerate() {
        let q = fl.f.gep("i64", &bdims, &Val::i64(i as i64));
        fl.f.store(v, &q);
    }
    let (cb, ctx) = match epi {
        Some(e) => epilogue_callback(fl, p, out, e)?,
        None => (Val::new("ptr", "null"), Val::new("ptr", "null")),
    };
    let opts = &fl.module.opts;
    let min_fmas = if opts.threads > 1 {
        opts.parallel_threshold.saturating_mul(CHUNK_FMAS_PER_THRESHOLD)
    } else {
        0
    };
    let oom_text = o.msg(fl, "out of memory");
    let oom = fl.module.m.cstr(&oom_text);
    let [sam, sak, sbk, sbn] = &p.st;
    let st = fl.f.emit(
        "i32",
        format!(
            "call i32 @xcs_rt_matmul_f32(ptr {}, ptr {}, ptr {}, i64 {}, i64 {}, i64 {}, i64 {sam}, i64 {sak}, \
             i64 {sbk}, i64 {sbn}, i64 {nbd}, ptr {bdims}, ptr {cb}, ptr {ctx}, i64 {min_fmas}, i32 {}, ptr {oom})",
            p.a.ptr, p.b.ptr, out.ptr, p.m, p.n, p.k, o.site
        ),
    );
    fl.check_status(&st);
    Ok(())
}

/// The number of columns of the library's register tile on the target (its microkernel for the
/// features; `runtime/xcs_matmul.c` chooses the same from the CPU it runs on): the epilogue of
/// such a whole tile has a constant trip count, which LLVM vectorizes without a remainder loop.
fn library_tile_cols(features: &str) -> i64 {
    let has = |f: &str| features.split(',').any(|x| x.trim() == f);
    if has("+avx512f") && has("+avx512vl") {
        32
    } else if has("+avx2") && has("+fma") {
        16
    } else {
        8
    }
}

/// The epilogue as a callback `i32 (ptr ctx, i64 batch, i64 row0, i64 col0, i64 rows, i64 cols)`
/// of the library (`xcs_mm_epilogue`): reads the tile of `c` at that place and applies `e`.
fn epilogue_callback(fl: &mut FunctionLowering, p: &Plan, c: &TensorVal, mut e: Epilogue) -> R<(Val, Val)> {
    let leaf_strides: Vec<Vec<Val>> = e
        .leaves
        .iter()
        .map(|t| broadcast_strides(&mut fl.f, t, &p.dims))
        .collect();
    let whole_cols = Val::i64(library_tile_cols(&fl.module.opts.features));
    let mut k = fl.kernel("matmul_epilogue");
    let kc = k.tensor(c);
    let leaves: Vec<TensorVal> = e.leaves.iter().map(|t| k.tensor(t)).collect();
    let outs: Vec<TensorVal> = e.outs.iter().map(|t| k.tensor(t)).collect();
    let strides: Vec<Vec<Val>> = leaf_strides.iter().map(|s| k.cap_all(s)).collect();
    let batch = k.cap_all(&p.batch);
    let (m, n) = (k.cap(&p.m), k.cap(&p.n));
    let [bi, row0, col0, rows, cols] = ["%eb", "%er0", "%ec0", "%erows", "%ecols"].map(|n| Val::new("i64", n));
    let f = &mut k.f;
    let bidx = unflatten(f, &bi, &batch);
    let nbd = p.batch.len();
    let base: Vec<Val> = strides.iter().map(|s| offset(f, &bidx, &s[..nbd])).collect();
    let mn = f.mul(&m, &n);
    let c0 = f.mul(&bi, &mn);
    let r0 = f.mul(&row0, &n);
    let cbase = f.add(&c0, &r0);
    let cbase = f.add(&cbase, &col0);
    let lv = EpiLeaves {
        tvs: &leaves,
        strides: &strides,
        base: &base,
        nbd,
    };
    let at = TileAt {
        row0: &row0,
        col0: &col0,
        cbase: &cbase,
        nrv: &rows,
        ncv: &cols,
        kn: &n,
    };
    let whole = f.icmp("eq", &cols, &whole_cols);
    let (lw, le, lj) = (f.label("epi_whole"), f.label("epi_edge"), f.label("epi_end"));
    f.condbr(&whole, &lw, &le);
    f.start(&lw);
    // Rolled loops: the tile's rows one by one (unrolling them would mostly cost compile time).
    k.rolled_loops = Some(RolledLoops::Vector);
    epilogue_tile(&mut k, &mut e, &kc, &outs, &lv, &TileAt { ncv: &whole_cols, ..at })?;
    k.f.br(&lj);
    k.f.start(&le);
    // Column-edge tiles are rare (the last of a row when N is not a multiple of the tile): kept
    // scalar, they cost little to compile.
    k.rolled_loops = Some(RolledLoops::Scalar);
    epilogue_tile(&mut k, &mut e, &kc, &outs, &lv, &at)?;
    k.rolled_loops = None;
    k.f.br(&lj);
    k.f.start(&lj);
    let params = ["i64 %eb", "i64 %er0", "i64 %ec0", "i64 %erows", "i64 %ecols"];
    Ok(fl.callback(k, &params))
}
