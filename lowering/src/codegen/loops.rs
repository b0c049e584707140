//! The loop nests every elementwise kernel uses ([`for_each_element`]): a flat loop over the
//! elements when every operand is contiguous and has the output's sizes (checked at run time,
//! folded for static shapes), else a strided nest (rows of the output, an inner loop over its
//! last dim) with broadcast strides (0 for a broadcast dim); numpy broadcasting of sizes
//! ([`broadcast_dims`]), index arithmetic, and copies between layouts ([`copy_into`]). Large
//! f32 outputs of the flat loop are written with streaming stores ([`STREAM_STORE_BYTES`]).

use xcs_dialects::interp::ElemType;

use super::buffers::RunTimeCheck;
use super::function::FunctionLowering;
use super::interface::OpSite;
use super::kernel::Kernel;
use super::llvm_ir::{FunctionBuilder, Val};
use super::types::{elem_size, load_elem, store_elem};
use super::values::TensorVal;
use super::R;

/// Copies `src` into `dst` (same sizes; any strides on both sides).
pub fn copy_into(fl: &mut FunctionLowering, src: &TensorVal, dst: &TensorVal) -> R<()> {
    let dims = dst.dims.clone();
    let mut body = |_: &mut Kernel, v: &[Val]| -> R<Vec<Val>> { Ok(vec![v[0].clone()]) };
    for_each_element(
        fl,
        "copy",
        std::slice::from_ref(src),
        std::slice::from_ref(dst),
        &dims,
        &mut body,
    )
}

/// numpy broadcasting of the sizes of `ts` (right-aligned), checked at run time where sizes are
/// not constants: `'op' op shapes do not broadcast (dimension A vs B)`.
pub fn broadcast_dims(fl: &mut FunctionLowering, o: &OpSite, ts: &[&[Val]]) -> R<Vec<Val>> {
    let rank = ts.iter().map(|t| t.len()).max().unwrap_or(0);
    let mut out = vec![Val::i64(1); rank];
    let msg = o.msg(fl, "shapes do not broadcast (dimension %lld vs %lld)");
    for dims in ts {
        let off = rank - dims.len();
        for (j, d) in dims.iter().enumerate() {
            let cur = out[off + j].clone();
            if cur == *d || d.as_i64() == Some(1) {
                continue;
            }
            if cur.as_i64() == Some(1) {
                out[off + j] = d.clone();
                continue;
            }
            let ne = fl.f.icmp("ne", &cur, d);
            let c1 = fl.f.icmp("ne", &cur, &Val::i64(1));
            let d1 = fl.f.icmp("ne", d, &Val::i64(1));
            let a = fl.f.and(&ne, &c1);
            let bad = fl.f.and(&a, &d1);
            fl.fail2_if(&bad, o.site, &msg, &cur, d);
            let is1 = fl.f.icmp("eq", &cur, &Val::i64(1));
            out[off + j] = fl.f.select(&is1, d, &cur);
        }
    }
    Ok(out)
}

/// The strides of `t` for reading it broadcast to `dims` (right-aligned; 0 for a size-1 or
/// missing dim).
pub fn broadcast_strides(f: &mut FunctionBuilder, t: &TensorVal, dims: &[Val]) -> Vec<Val> {
    let off = dims.len() - t.rank();
    (0..dims.len())
        .map(|i| {
            if i < off {
                return Val::i64(0);
            }
            let d = &t.dims[i - off];
            let s = &t.strides[i - off];
            if d == &dims[i] && d.as_i64() != Some(1) {
                return s.clone();
            }
            let one = f.icmp("eq", d, &Val::i64(1));
            f.select(&one, &Val::i64(0), s)
        })
        .collect()
}

/// Elements per chunk of parallel elementwise loops.
const GRAIN: i64 = 1 << 14;

/// The per-element body of an elementwise kernel: gets the compute values of the inputs, returns
/// those of the outputs.
pub type ElementBody<'b> = dyn FnMut(&mut Kernel, &[Val]) -> R<Vec<Val>> + 'b;

/// Runs `body` for every element of `dims`: inputs `ins` are read broadcast to `dims`, outputs
/// `outs` (each with sizes `dims`, any strides) written. Chooses the flat loop when every tensor
/// is contiguous with exactly these sizes (at run time when sizes are not constants).
pub fn for_each_element(
    fl: &mut FunctionLowering,
    hint: &str,
    ins: &[TensorVal],
    outs: &[TensorVal],
    dims: &[Val],
    body: &mut ElementBody,
) -> R<()> {
    let n = fl.f.product(dims);
    // Inputs of one element (scalar constants) are read at index 0 in the flat loop.
    let scalar: Vec<bool> = ins
        .iter()
        .map(|t| t.dims.iter().all(|d| d.as_i64() == Some(1)))
        .collect();
    let full = || {
        ins.iter()
            .zip(&scalar)
            .filter(|(_, s)| !**s)
            .map(|(t, _)| t)
            .chain(outs)
    };
    let mut same = Val::bool(full().all(|t| t.contiguous && t.rank() == dims.len()));
    if same.as_bool() == Some(true) {
        for t in full() {
            for (a, b) in t.dims.iter().zip(dims) {
                let eq = fl.f.icmp("eq", a, b);
                same = fl.f.and(&same, &eq);
            }
        }
    }
    if dims.is_empty() {
        same = Val::bool(true);
    }
    match same.as_bool() {
        Some(true) => flat(fl, hint, ins, &scalar, outs, &n, body),
        Some(false) => strided(fl, hint, ins, outs, dims, &n, body),
        None => {
            let (a, b, j) = (fl.f.label("flat"), fl.f.label("strided"), fl.f.label("ewjoin"));
            fl.f.condbr(&same, &a, &b);
            fl.f.start(&a);
            flat(fl, hint, ins, &scalar, outs, &n, body)?;
            fl.f.br(&j);
            fl.f.start(&b);
            strided(fl, hint, ins, outs, dims, &n, body)?;
            fl.f.br(&j);
            fl.f.start(&j);
            Ok(())
        }
    }
}

fn flat(
    fl: &mut FunctionLowering,
    hint: &str,
    ins: &[TensorVal],
    scalar: &[bool],
    outs: &[TensorVal],
    n: &Val,
    body: &mut ElementBody,
) -> R<()> {
    let mut k = fl.kernel(hint);
    let kin: Vec<TensorVal> = ins.iter().map(|t| k.tensor(t)).collect();
    let kout: Vec<TensorVal> = outs.iter().map(|t| k.tensor(t)).collect();
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let zero = Val::i64(0);
    let streamed: Vec<&TensorVal> = kin.iter().zip(scalar).filter(|(_, &s)| !s).map(|(t, _)| t).collect();
    let nt = streams_output(n, outs.iter().map(|t| t.elem));
    k.m.declare("llvm.prefetch.p0", "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)");
    k.for_blocks(&lo, &hi, PF_BLOCK, |k, start, end| {
        for t in &streamed {
            prefetch_ahead(&mut k.f, t, start);
        }
        let element = |k: &mut Kernel, i: &Val, body: &mut ElementBody| -> R<Vec<Val>> {
            let vals: Vec<Val> = kin
                .iter()
                .zip(scalar)
                .map(|(t, &s)| load_elem(&mut k.f, t.elem, &t.ptr, if s { &zero } else { i }))
                .collect();
            body(k, &vals)
        };
        let plain = |k: &mut Kernel, body: &mut ElementBody| {
            k.for_range(start, end, |k, i| {
                let outv = element(k, i, body)?;
                for (t, v) in kout.iter().zip(&outv) {
                    store_elem(&mut k.f, t.elem, &t.ptr, i, v);
                }
                Ok(())
            })
        };
        if !nt {
            return plain(k, body);
        }
        // A whole block of 64-byte aligned outputs: computed into a block of scratch (in L1;
        // the loop vectorizes as usual), then copied out with aligned 16-lane streaming stores.
        // A short or unaligned block: ordinary stores.
        let outp: Vec<Val> = kout.iter().map(|t| k.f.gep("float", &t.ptr, start)).collect();
        let len = k.f.sub(end, start);
        let mut ok = k.f.icmp("eq", &len, &Val::i64(PF_BLOCK));
        for p in &outp {
            let a = k.f.emit("i64", format!("ptrtoint ptr {p} to i64"));
            let low = k.f.emit("i64", format!("and i64 {a}, 63"));
            let al = k.f.icmp("eq", &low, &Val::i64(0));
            ok = k.f.and(&ok, &al);
        }
        let (yes, no, join) = (k.f.label("ntblock"), k.f.label("block"), k.f.label("blockend"));
        k.f.condbr(&ok, &yes, &no);
        k.f.start(&yes);
        let scratch: Vec<Val> = outp.iter().map(|_| k.f.alloca("float", PF_BLOCK as usize)).collect();
        k.for_range(&Val::i64(0), &Val::i64(PF_BLOCK), |k, j| {
            let i = k.f.add(start, j);
            let outv = element(k, &i, body)?;
            for (sc, v) in scratch.iter().zip(&outv) {
                let q = k.f.gep("float", sc, j);
                k.f.store(v, &q);
            }
            Ok(())
        })?;
        let md = k.m.nontemporal_md();
        for (sc, p) in scratch.iter().zip(&outp) {
            for c in 0..PF_BLOCK / 16 {
                let from = k.f.gep("float", sc, &Val::i64(16 * c));
                let v = k.f.emit("<16 x float>", format!("load <16 x float>, ptr {from}, align 16"));
                let to = k.f.gep("float", p, &Val::i64(16 * c));
                k.f.raw(format!("store <16 x float> {v}, ptr {to}, align 64, !nontemporal {md}"));
            }
        }
        k.f.br(&join);
        k.f.start(&no);
        plain(k, body)?;
        k.f.br(&join);
        k.f.start(&join);
        Ok(())
    })?;
    if nt {
        k.f.raw("fence seq_cst"); // the streaming stores are weakly ordered
    }
    fl.launch(k, n, &Val::i64(GRAIN), n)
}

/// Outputs of at least this many bytes are written with streaming (non-temporal) stores by the
/// flat elementwise loop and the row ops (softmax, layer_norm): such an output does not stay in
/// the last-level cache anyway, and a streaming store skips reading each output line before it
/// is written (a third of a streaming op's memory traffic). Smaller outputs use ordinary
/// stores, so the op that reads them next finds them in the cache.
pub const STREAM_STORE_BYTES: i64 = 32 << 20;

/// Whether a flat loop over `n` elements writes its outputs (of element types `elems`) with
/// streaming stores: all f32 and `n` static with at least [`STREAM_STORE_BYTES`] per output.
fn streams_output(n: &Val, mut elems: impl Iterator<Item = ElemType>) -> bool {
    let big = n.as_i64().is_some_and(|n| n.saturating_mul(4) >= STREAM_STORE_BYTES);
    big && elems.all(|e| e == ElemType::F32)
}

/// Elements per block of the flat loop: each block first prefetches the block [`PF_AHEAD`] bytes
/// further on in every streamed input. Small blocks spread the prefetches (4 lines of f32 per
/// input at a time instead of 16): over 16M elements 64 beat 256 by 5-15% for the
/// compute-heavy loops (one thread: `pow` 18.2 -> 15.7 ms, GELU erf 12.0 -> 11.4, the fused W1
/// 11.9 -> 10.4 and W6 10.4 -> 9.5) and left the cheap ones (`add`, `exp`) as they were; 512
/// was slower still and 16 or 32 no better.
const PF_BLOCK: i64 = 64;
/// How far ahead the flat loop prefetches its inputs, in bytes. The hardware prefetchers alone
/// do not keep one core's loads in flight when the per-element work is long (exp, tanh, ...):
/// memory time and compute time then add up instead of overlapping. Prefetching into L1 made a
/// single-threaded f32 `exp` over 64 MiB 25% faster and `tanh` 35%; 2 KiB ahead beat 1, 4 and
/// 8 KiB in A/B runs, and prefetching the outputs for writing slowed the compute-bound ops. A
/// prefetch past the end of a buffer is harmless (no fault).
const PF_AHEAD: i64 = 2048;

/// Prefetches (read, into L1) the lines of block `start..start + PF_BLOCK` of `t`, [`PF_AHEAD`]
/// bytes ahead. The address is computed without `inbounds`: it may lie past the buffer.
fn prefetch_ahead(f: &mut FunctionBuilder, t: &TensorVal, start: &Val) {
    let size = elem_size(t.elem);
    let lines = (PF_BLOCK * size / 64).max(1);
    let base = f.mul(start, &Val::i64(size));
    for l in 0..lines {
        let off = f.add(&base, &Val::i64(PF_AHEAD + 64 * l));
        let a = f.emit("ptr", format!("getelementptr i8, ptr {}, i64 {off}", t.ptr));
        f.raw(format!("call void @llvm.prefetch.p0(ptr {a}, i32 0, i32 3, i32 1)"));
    }
}

/// The offset `sum(idx[d] * strides[d])`.
pub fn offset(f: &mut FunctionBuilder, idx: &[Val], strides: &[Val]) -> Val {
    let mut b = Val::i64(0);
    for (i, s) in idx.iter().zip(strides) {
        let t = f.mul(i, s);
        b = f.add(&b, &t);
    }
    b
}

/// Splits flat index `i` into the index of each of `dims` (row-major, last dim fastest).
pub fn unflatten(f: &mut FunctionBuilder, i: &Val, dims: &[Val]) -> Vec<Val> {
    let mut rest = i.clone();
    let mut idx = vec![Val::i64(0); dims.len()];
    for d in (0..dims.len()).rev() {
        if d == 0 {
            idx[d] = rest.clone();
        } else {
            idx[d] = f.rem(&rest, &dims[d]);
            rest = f.div(&rest, &dims[d]);
        }
    }
    idx
}

/// Chunk size (in rows of `inner` elements) for about `GRAIN` elements per chunk.
pub fn grain_rows(f: &mut FunctionBuilder, inner: &Val) -> Val {
    let inner1 = f.smax(inner, &Val::i64(1));
    let g = f.div(&Val::i64(GRAIN), &inner1);
    f.smax(&g, &Val::i64(1))
}

fn strided(
    fl: &mut FunctionLowering,
    hint: &str,
    ins: &[TensorVal],
    outs: &[TensorVal],
    dims: &[Val],
    n: &Val,
    body: &mut ElementBody,
) -> R<()> {
    let r = dims.len();
    let rows = fl.f.product(&dims[..r - 1]);
    let in_bs: Vec<Vec<Val>> = ins.iter().map(|t| broadcast_strides(&mut fl.f, t, dims)).collect();
    let grain = grain_rows(&mut fl.f, &dims[r - 1]);
    let mut k = fl.kernel(hint);
    let kdims = k.cap_all(dims);
    let kin: Vec<TensorVal> = ins.iter().map(|t| k.tensor(t)).collect();
    let kbs: Vec<Vec<Val>> = in_bs.iter().map(|s| k.cap_all(s)).collect();
    let kout: Vec<TensorVal> = outs.iter().map(|t| k.tensor(t)).collect();
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    k.for_range(&lo, &hi, |k, row| {
        let idx = unflatten(&mut k.f, row, &kdims[..r - 1]);
        let in_base: Vec<Val> = kbs.iter().map(|s| offset(&mut k.f, &idx, &s[..r - 1])).collect();
        let out_base: Vec<Val> = kout
            .iter()
            .map(|t| offset(&mut k.f, &idx, &t.strides[..r - 1]))
            .collect();
        let inner = kdims[r - 1].clone();
        k.for_range(&Val::i64(0), &inner, |k, j| {
            let mut vals = Vec::new();
            for ((t, s), b) in kin.iter().zip(&kbs).zip(&in_base) {
                let o = k.f.mul(j, &s[r - 1]);
                let o = k.f.add(b, &o);
                vals.push(load_elem(&mut k.f, t.elem, &t.ptr, &o));
            }
            let outv = body(k, &vals)?;
            for ((t, b), v) in kout.iter().zip(&out_base).zip(&outv) {
                let o = k.f.mul(j, &t.strides[r - 1]);
                let o = k.f.add(b, &o);
                store_elem(&mut k.f, t.elem, &t.ptr, &o, v);
            }
            Ok(())
        })
    })?;
    fl.launch(k, &rows, &grain, n)
}
