//! Contractions: `tensor.matmul` (batch dims broadcast; one kernel iteration per output row,
//! a dot product in strict order per element) and `tensor.einsum` (one kernel iteration per
//! output element, nested loops over the contracted labels in order of first appearance).
//! Floats accumulate in f64 and round once, integers wrap in i64, as the interpreter does.
//! This is the correct reference kernel; the blocked/packed SIMD kernel replaces [`matmul`]'s
//! loop nest later without changing the op's interface.

use super::elementwise::{broadcast_dims, bstrides, grain_rows, offset, unflatten};
use super::{check_result_dims, OpCx};
use crate::codegen::{FnLower, Kernel, Slot, TV};
use crate::ir::{FnB, Val, R};
use crate::types::{comp_to_f64, f64_to_mem, int_to_i64, load_elem, mem_ty, store_elem};
use xcs_dialects::interp::ElemType;

/// Element value in the accumulator type (double or i64).
fn acc_load(k: &mut Kernel, t: &TV, off: &Val) -> Val {
    let v = load_elem(&mut k.f, t.elem, &t.ptr, off);
    if t.elem.is_float() {
        comp_to_f64(&mut k.f, t.elem, &v)
    } else {
        int_to_i64(&mut k.f, t.elem, &v)
    }
}

fn acc_store(k: &mut Kernel, out: &TV, off: &Val, acc: &Val) {
    let v = if out.elem.is_float() {
        f64_to_mem(&mut k.f, &mut k.m, out.elem, acc)
    } else if out.elem == xcs_dialects::interp::ElemType::I64 {
        acc.clone()
    } else {
        let t = crate::types::comp_ty(out.elem);
        k.f.emit(t, format!("trunc i64 {acc} to {t}"))
    };
    let p = k.f.gep(mem_ty(out.elem), &out.ptr, off);
    k.f.store(&v, &p);
}

fn madd(k: &mut Kernel, float: bool, acc: &Val, a: &Val, b: &Val) -> Val {
    if float {
        let p = k.f.emit("double", format!("fmul double {a}, {b}"));
        k.f.emit("double", format!("fadd double {acc}, {p}"))
    } else {
        let p = k.f.emit("i64", format!("mul i64 {a}, {b}"));
        k.f.emit("i64", format!("add i64 {acc}, {p}"))
    }
}

/// A checked `tensor.matmul`: its operands, batch dims and strides, and result.
pub struct Plan {
    a: TV,
    b: TV,
    batch: Vec<Val>,
    abs: Vec<Val>,
    bbs: Vec<Val>,
    m: Val,
    n: Val,
    k: Val,
    /// Strides of A's rows and columns, of B's rows and columns.
    st: [Val; 4],
    /// Result sizes (batch dims, M, N).
    pub dims: Vec<Val>,
    pub relem: ElemType,
}

impl Plan {
    /// Whether the packed f32 kernel computes it (and so can take an [`Epilogue`]).
    pub fn f32_kernel(&self) -> bool {
        self.a.elem == ElemType::F32 && self.relem == ElemType::F32
    }
}

/// Elementwise ops applied to each output tile of the f32 kernel right after its last K block,
/// while the tile is in L1 (a `tensor.fused` matmul epilogue, `ops/fused.rs`). Per element,
/// `eval` gets the matmul's value and the `leaves`' values (read broadcast to the result) and
/// returns the values stored into `outs` (contiguous, the result's sizes; one of them may be
/// the matmul's own buffer, updated in place).
pub struct Epilogue<'a> {
    pub leaves: Vec<TV>,
    pub outs: Vec<TV>,
    pub eval: &'a mut dyn FnMut(&mut Kernel, &Val, &[Val]) -> R<Vec<Val>>,
}

pub fn matmul(fl: &mut FnLower, o: &OpCx) -> R<Vec<Slot>> {
    let p = plan(fl, o)?;
    let out = fl.new_tensor(p.relem, &p.dims)?;
    if p.f32_kernel() {
        matmul_f32(fl, o, &p, &out, None)?;
        return Ok(vec![Slot::T(out)]);
    }
    let Plan {
        a,
        b,
        batch,
        abs,
        bbs,
        m,
        n,
        k: ka,
        st: [sam, sak, sbk, sbn],
        ..
    } = p;
    let nb = fl.f.product(&batch);
    let rows = fl.f.mul(&nb, &m);
    let nk = fl.f.mul(&n, &ka);
    let total = fl.f.mul(&rows, &nk);
    let grain = grain_rows(&mut fl.f, &nk);
    let float = a.elem.is_float();
    let mut k = fl.kernel("matmul");
    let (ka_, kb_, ko) = (k.tv(&a), k.tv(&b), k.tv(&out));
    let kbatch = k.cap_all(&batch);
    let (kabs, kbbs) = (k.cap_all(&abs), k.cap_all(&bbs));
    let (km, kn, kk) = (k.cap(&m), k.cap(&n), k.cap(&ka));
    let (ksam, ksak, ksbk, ksbn) = (k.cap(&sam), k.cap(&sak), k.cap(&sbk), k.cap(&sbn));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    k.for_range(&lo, &hi, |k, row| {
        let bi = k.f.div(row, &km);
        let i = k.f.rem(row, &km);
        let bidx = unflatten(&mut k.f, &bi, &kbatch);
        let a0 = offset(&mut k.f, &bidx, &kabs);
        let ai = k.f.mul(&i, &ksam);
        let abase = k.f.add(&a0, &ai);
        let bbase = offset(&mut k.f, &bidx, &kbbs);
        let obase = k.f.mul(row, &kn);
        k.for_range(&Val::i64(0), &kn, |k, j| {
            let bj = k.f.mul(j, &ksbn);
            let bcol = k.f.add(&bbase, &bj);
            let zero = if float { Val::f64(0.0) } else { Val::i64(0) };
            let s = k.for_acc(&Val::i64(0), &kk, &[zero], |k, p, acc| {
                let t = k.f.mul(p, &ksak);
                let ao = k.f.add(&abase, &t);
                let t = k.f.mul(p, &ksbk);
                let bo = k.f.add(&bcol, &t);
                let x = acc_load(k, &ka_, &ao);
                let y = acc_load(k, &kb_, &bo);
                Ok(vec![madd(k, float, &acc[0], &x, &y)])
            })?;
            let oo = k.f.add(&obase, j);
            acc_store(k, &ko, &oo, &s[0]);
            Ok(())
        })
    })?;
    fl.launch(k, &rows, &grain, &total)?;
    Ok(vec![Slot::T(out)])
}

/// Checks a `tensor.matmul` (emitting its run-time size checks) and computes its sizes.
pub fn plan(fl: &mut FnLower, o: &OpCx) -> R<Plan> {
    let (a, b) = (o.tensor(fl, 0)?, o.tensor(fl, 1)?);
    if a.rank() < 2 || b.rank() < 2 {
        return Err(o.err("operands must have rank >= 2"));
    }
    if !a.elem.is_numeric() || a.elem != b.elem {
        return Err(o.err("operands must have the same numeric element type"));
    }
    let (ra, rb) = (a.rank(), b.rank());
    let (m, ka) = (a.dims[ra - 2].clone(), a.dims[ra - 1].clone());
    let (kb, n) = (b.dims[rb - 2].clone(), b.dims[rb - 1].clone());
    let bad = fl.f.icmp("ne", &ka, &kb);
    let msg = o.msg(fl, "contraction dimensions differ: lhs has K = %lld, rhs has K = %lld");
    fl.fail2_if(&bad, o.site, &msg, &ka, &kb);
    let batch = broadcast_dims(fl, o, &[&a.dims[..ra - 2], &b.dims[..rb - 2]])?;
    let mut dims = batch.clone();
    dims.push(m.clone());
    dims.push(n.clone());
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    // Batch strides of each operand broadcast to the batch dims.
    let ab = TV {
        dims: a.dims[..ra - 2].to_vec(),
        strides: a.strides[..ra - 2].to_vec(),
        ..a.clone()
    };
    let bb = TV {
        dims: b.dims[..rb - 2].to_vec(),
        strides: b.strides[..rb - 2].to_vec(),
        ..b.clone()
    };
    let abs = bstrides(&mut fl.f, &ab, &batch);
    let bbs = bstrides(&mut fl.f, &bb, &batch);
    let (sam, sak) = (a.strides[ra - 2].clone(), a.strides[ra - 1].clone());
    let (sbk, sbn) = (b.strides[rb - 2].clone(), b.strides[rb - 1].clone());
    Ok(Plan {
        a,
        b,
        batch,
        abs,
        bbs,
        m,
        n,
        k: ka,
        st: [sam, sak, sbk, sbn],
        dims,
        relem,
    })
}

/// The f32 kernel computing `p` into `c` (a contiguous f32 tensor of the result's sizes) and
/// applying `epi` to each finished tile.
pub fn matmul_f32_into(fl: &mut FnLower, o: &OpCx, p: &Plan, c: &TV, epi: Epilogue) -> R<()> {
    matmul_f32(fl, o, p, c, Some(epi))
}

pub fn einsum(fl: &mut FnLower, o: &OpCx) -> R<Vec<Slot>> {
    let ins = o.operands(fl)?;
    let eq = xcs_dialects::tensor::parse_einsum(o.str(fl, "equation")?, ins.len()).map_err(|e| o.err(&e))?;
    let first = ins.first().ok_or_else(|| o.err("needs at least one operand"))?;
    let elem = first.elem;
    if !elem.is_numeric() || ins.iter().any(|t| t.elem != elem) {
        return Err(o.err("operands must have the same numeric element type"));
    }
    // Label sizes (the first operand that has a label gives its size; the others must agree).
    let mut labels: Vec<char> = Vec::new();
    let mut sizes: Vec<Val> = Vec::new();
    for (i, (ls, t)) in eq.inputs.iter().zip(&ins).enumerate() {
        if ls.len() != t.rank() {
            return Err(o.err(&format!(
                "operand #{i} has rank {} but the equation gives it {} labels",
                t.rank(),
                ls.len()
            )));
        }
        for (&c, d) in ls.iter().zip(&t.dims) {
            match labels.iter().position(|&l| l == c) {
                Some(p) => {
                    let bad = fl.f.icmp("ne", &sizes[p], d);
                    let msg = o.msg(fl, &format!("label '{c}' has size %lld and %lld"));
                    let s = sizes[p].clone();
                    fl.fail2_if(&bad, o.site, &msg, &s, d);
                }
                None => {
                    labels.push(c);
                    sizes.push(d.clone());
                }
            }
        }
    }
    let size_of = |c: char| sizes[labels.iter().position(|&l| l == c).unwrap_or(0)].clone();
    let mut contracted: Vec<char> = Vec::new();
    for &c in eq.inputs.iter().flatten() {
        if !eq.output.contains(&c) && !contracted.contains(&c) {
            contracted.push(c);
        }
    }
    let dims: Vec<Val> = eq.output.iter().map(|&c| size_of(c)).collect();
    let cdims: Vec<Val> = contracted.iter().map(|&c| size_of(c)).collect();
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    let out = fl.new_tensor(relem, &dims)?;
    let total_out = fl.f.product(&dims);
    let clen = fl.f.product(&cdims);
    let work = fl.f.mul(&total_out, &clen);
    let grain = grain_rows(&mut fl.f, &clen);
    let float = elem.is_float();
    let mut k = fl.kernel("einsum");
    let kin: Vec<TV> = ins.iter().map(|t| k.tv(t)).collect();
    let ko = k.tv(&out);
    let (kdims, kcdims) = (k.cap_all(&dims), k.cap_all(&cdims));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let out_labels = eq.output.clone();
    let inputs = eq.inputs.clone();
    k.for_range(&lo, &hi, |k, e| {
        let oidx = unflatten(&mut k.f, e, &kdims);
        let zero = if float { Val::f64(0.0) } else { Val::i64(0) };
        let s = k.nest_acc(&kcdims, &[zero], &mut |k, cidx, acc| {
            let at = |c: char| -> Val {
                if let Some(p) = out_labels.iter().position(|&l| l == c) {
                    oidx[p].clone()
                } else {
                    cidx[contracted.iter().position(|&l| l == c).unwrap_or(0)].clone()
                }
            };
            let mut prod = if float { Val::f64(1.0) } else { Val::i64(1) };
            for (ls, t) in inputs.iter().zip(&kin) {
                let idx: Vec<Val> = ls.iter().map(|&c| at(c)).collect();
                let off = offset(&mut k.f, &idx, &t.strides);
                let v = acc_load(k, t, &off);
                prod = if float {
                    k.f.emit("double", format!("fmul double {prod}, {v}"))
                } else {
                    k.f.emit("i64", format!("mul i64 {prod}, {v}"))
                };
            }
            let next = if float {
                k.f.emit("double", format!("fadd double {}, {prod}", acc[0]))
            } else {
                k.f.emit("i64", format!("add i64 {}, {prod}", acc[0]))
            };
            Ok(vec![next])
        })?;
        acc_store(k, &ko, e, &s[0]);
        Ok(())
    })?;
    fl.launch(k, &total_out, &grain, &work)?;
    Ok(vec![Slot::T(out)])
}

// ---------------------------------------------------------------------------- f32 kernel

/// Register tile of the f32 kernel for the target features: `mr` rows x `nv` vectors of `vl`
/// lanes, `mct` row tiles per packed A block.
struct Tile {
    vl: i64,
    nv: i64,
    mr: i64,
    mct: i64,
    vty: &'static str,
    fma: &'static str,
}

/// K block (rows of a packed B panel) and N block (its columns) of the f32 kernel.
const KC: i64 = 256;
const NC: i64 = 1024;
/// Fewest column tiles in a thread's column block when N is split between threads.
const MIN_NCB_TILES: i64 = 4;
/// Minimum multiply-adds per thread of the f32 kernel, per unit of `Options.parallel_threshold`
/// (the default threshold 2^15 gives 2^22, ~30 us of work: idle workers spin before they sleep,
/// so waking them costs a few microseconds).
const CHUNK_FMAS_PER_THRESHOLD: i64 = 128;

fn tile_for(features: &str) -> Tile {
    let has = |f: &str| features.split(',').any(|x| x.trim() == f);
    if has("+avx512f") {
        Tile {
            vl: 16,
            nv: 2,
            mr: 12,
            mct: 8,
            vty: "<16 x float>",
            fma: "llvm.fma.v16f32",
        }
    } else if has("+avx2") && has("+fma") {
        Tile {
            vl: 8,
            nv: 2,
            mr: 6,
            mct: 12,
            vty: "<8 x float>",
            fma: "llvm.fma.v8f32",
        }
    } else {
        Tile {
            vl: 4,
            nv: 2,
            mr: 4,
            mct: 16,
            vty: "<4 x float>",
            fma: "llvm.fmuladd.v4f32",
        }
    }
}

fn smin(f: &mut FnB, a: &Val, b: &Val) -> Val {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) => Val::i64(x.min(y)),
        _ => {
            let c = f.icmp("slt", a, b);
            f.select(&c, a, b)
        }
    }
}

/// `ceil(a / b)` for `a >= 0`, `b > 0` constant.
fn ceil_div(f: &mut FnB, a: &Val, b: i64) -> Val {
    let t = f.add(a, &Val::i64(b - 1));
    f.div(&t, &Val::i64(b))
}

fn load_f(f: &mut FnB, base: &Val, off: &Val) -> Val {
    let p = f.gep("float", base, off);
    f.load("float", &p)
}

/// Where an output tile of the f32 kernel is: its first row and column, its offset in C, its
/// valid rows and columns, and C's row length.
struct TileAt<'v> {
    row0: &'v Val,
    col0: &'v Val,
    cbase: &'v Val,
    nrv: &'v Val,
    ncv: &'v Val,
    kn: &'v Val,
}

/// An epilogue's leaves in the kernel: tensors, strides broadcast to the result, and their
/// offsets at the current batch index.
struct EpiLeaves<'v> {
    tvs: &'v [TV],
    strides: &'v [Vec<Val>],
    base: &'v [Val],
    nbd: usize,
}

/// Applies `e` to the valid part of a finished tile of C (`c`), element by element, storing
/// into `outs` at C's offsets (the inner loop is contiguous, so it vectorizes).
fn epilogue_tile(k: &mut Kernel, e: &mut Epilogue, c: &TV, outs: &[TV], lv: &EpiLeaves, t: &TileAt) -> R<()> {
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

/// `if c { then() } else { els() }`.
fn if_else(
    k: &mut Kernel,
    c: &Val,
    then: impl FnOnce(&mut Kernel) -> R<()>,
    els: impl FnOnce(&mut Kernel) -> R<()>,
) -> R<()> {
    let (t, e, j) = (k.f.label("then"), k.f.label("else"), k.f.label("endif"));
    k.f.condbr(c, &t, &e);
    k.f.start(&t);
    then(k)?;
    k.f.br(&j);
    k.f.start(&e);
    els(k)?;
    k.f.br(&j);
    k.f.start(&j);
    Ok(())
}

/// f32 matmul: blocked over N (NC) and K (KC), B panels (KC x NR) and A panels (MR x KC)
/// packed into scratch buffers (zero-padded at the edges) from the strided operands, and a
/// register-tiled microkernel of `llvm.fma` on vectors chosen from the target features;
/// accumulates in f32. The launch splits the row tiles (of all batches) between threads;
/// each invocation packs its own panels.
fn matmul_f32(fl: &mut FnLower, o: &OpCx, p: &Plan, out: &TV, mut epi: Option<Epilogue>) -> R<()> {
    let (a, b, batch, abs, bbs) = (&p.a, &p.b, &p.batch[..], &p.abs[..], &p.bbs[..]);
    let (dims, st) = ([&p.m, &p.n, &p.k], [&p.st[0], &p.st[1], &p.st[2], &p.st[3]]);
    let [m, n, kd] = dims;
    let mut t = tile_for(&fl.cx.opts.features);
    // A static M that the tile's rows do not divide but 8 does (256, 1024, ...): 8-row tiles
    // waste no rows (12-row tiles of M = 256 compute 8 padding rows in the last one).
    if let Some(mv) = p.m.as_i64() {
        if t.mr == 12 && mv % 12 != 0 && mv % 8 == 0 {
            t.mr = 8;
            t.mct = 12;
        }
    }
    let (mr, nr, vl, nv) = (t.mr, t.vl * t.nv, t.vl, t.nv);
    let nb = fl.f.product(batch);
    let mt = ceil_div(&mut fl.f, m, mr);
    let nk = fl.f.mul(n, kd);
    let row_work = fl.f.mul(&nk, &Val::i64(mr));
    let rows = fl.f.mul(&nb, &mt);
    let work = fl.f.mul(&rows, &row_work);
    // A thread's chunk is at least 2^22 multiply-adds (~30 us) by default: below that, handing
    // work to the pool costs more than it saves.
    let min_chunk = fl.cx.opts.parallel_threshold.saturating_mul(CHUNK_FMAS_PER_THRESHOLD);
    // Column blocks of `ncb` columns. When the matmul runs on several threads, N is split into
    // one block per thread (at least MIN_NCB_TILES tiles, at most NC columns): the units are
    // (batch, column block, row tile), so a thread packs only its share of B (B is usually the
    // larger operand: packing all of it on every thread made 2 threads only ~1.25x faster).
    let ncb = {
        let f = &mut fl.f;
        let threads = fl.cx.opts.threads.max(1) as i64;
        if threads > 1 {
            let nt = ceil_div(f, n, nr);
            let per = ceil_div(f, &nt, threads);
            let per = f.smax(&per, &Val::i64(MIN_NCB_TILES));
            let w = f.mul(&per, &Val::i64(nr));
            let split = smin(f, &w, &Val::i64(NC));
            let par = f.icmp("sge", &work, &Val::i64(min_chunk.saturating_mul(2)));
            f.select(&par, &split, &Val::i64(NC))
        } else {
            Val::i64(NC)
        }
    };
    let njc = {
        let f = &mut fl.f;
        let t = f.add(n, &ncb);
        let t = f.sub(&t, &Val::i64(1));
        f.div(&t, &ncb)
    };
    let bj = fl.f.mul(&nb, &njc);
    let units = fl.f.mul(&bj, &mt);
    let ncw = smin(&mut fl.f, n, &ncb);
    let tile_work = fl.f.mul(kd, &ncw);
    let tile_work = fl.f.mul(&tile_work, &Val::i64(mr));
    let tw1 = fl.f.smax(&tile_work, &Val::i64(1));
    let g = fl.f.div(&Val::i64(min_chunk), &tw1);
    let grain = fl.f.smax(&g, &Val::i64(1));
    let oom = o.msg(fl, "out of memory");
    // The epilogue's leaves read at (batch index, row, column) through strides broadcast to the result.
    let leaf_strides: Vec<Vec<Val>> = match &epi {
        Some(e) => e.leaves.iter().map(|t| bstrides(&mut fl.f, t, &p.dims)).collect(),
        None => Vec::new(),
    };
    let mut k = fl.kernel("matmul_f32");
    k.m.declare(t.fma, &format!("declare {v} @{}({v}, {v}, {v})", t.fma, v = t.vty));
    k.m.declare("llvm.prefetch.p0", "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)");
    let (ka, kb, ko) = (k.tv(a), k.tv(b), k.tv(out));
    let kbatch = k.cap_all(batch);
    let (kabs, kbbs) = (k.cap_all(abs), k.cap_all(bbs));
    let (km, kn, kk, kmt) = (k.cap(m), k.cap(n), k.cap(kd), k.cap(&mt));
    let (kncb, knjc) = (k.cap(&ncb), k.cap(&njc));
    let (sam, sak, sbk, sbn) = (k.cap(st[0]), k.cap(st[1]), k.cap(st[2]), k.cap(st[3]));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let nbd = batch.len();
    let (kleaves, kouts): (Vec<TV>, Vec<TV>) = match &epi {
        Some(e) => (
            e.leaves.iter().map(|t| k.tv(t)).collect(),
            e.outs.iter().map(|t| k.tv(t)).collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let kls: Vec<Vec<Val>> = leaf_strides.iter().map(|s| k.cap_all(s)).collect();
    let f = &mut k.f;
    // Scratch: an A block (mct tiles of mr x kca) and a B block (kca x nca).
    let k1 = f.smax(&kk, &Val::i64(1));
    let kca = smin(f, &k1, &Val::i64(KC));
    let nru = ceil_div(f, &kn, nr);
    let nru = f.mul(&nru, &Val::i64(nr));
    let nca = smin(f, &nru, &kncb);
    let nca = f.smax(&nca, &Val::i64(nr));
    let abytes = Val::i64(t.mct * mr * KC * 4);
    let bbytes = f.mul(&kca, &nca);
    let bbytes = f.mul(&bbytes, &Val::i64(4));
    let pa = f.emit("ptr", format!("call ptr @xcs_rt_alloc(i64 {abytes})"));
    let pb = f.emit("ptr", format!("call ptr @xcs_rt_alloc(i64 {bbytes})"));
    let na = f.emit("i1", format!("icmp eq ptr {pa}, null"));
    let nbn = f.emit("i1", format!("icmp eq ptr {pb}, null"));
    let bad = f.or(&na, &nbn);
    f.if_then(&bad, |f| {
        f.raw(format!("call void @xcs_rt_free(ptr {pa})"));
        f.raw(format!("call void @xcs_rt_free(ptr {pb})"));
        Ok(())
    })?;
    k.fail_if(&bad, o.site, &oom);
    let tilebuf = k.f.alloca("float", (mr * nr) as usize);
    let mt1 = k.f.smax(&kmt, &Val::i64(1));
    let b_lo = k.f.div(&lo, &mt1);
    let b_hi = k.f.add(&hi, &Val::i64(0));
    let b_hi = {
        let x = k.f.sub(&mt1, &Val::i64(1));
        let y = k.f.add(&b_hi, &x);
        k.f.div(&y, &mt1)
    };
    let vty = t.vty;
    let zero_v = Val::new(vty, "zeroinitializer");
    let valign = vl * 4;
    k.for_range(&b_lo, &b_hi, |k, bj| {
        let f = &mut k.f;
        let base_t = f.mul(bj, &kmt);
        let t0 = f.sub(&lo, &base_t);
        let t0 = f.smax(&t0, &Val::i64(0));
        let t1 = f.sub(&hi, &base_t);
        let t1 = smin(f, &t1, &kmt);
        let njc1 = f.smax(&knjc, &Val::i64(1));
        let bi = &f.div(bj, &njc1);
        let jcb = f.rem(bj, &njc1);
        let bidx = unflatten(f, bi, &kbatch);
        let leaf0: Vec<Val> = kls.iter().map(|s| offset(f, &bidx, &s[..nbd])).collect();
        let a0 = offset(f, &bidx, &kabs);
        let b0 = offset(f, &bidx, &kbbs);
        let mn = f.mul(&km, &kn);
        let c0 = f.mul(bi, &mn);
        let npc = ceil_div(f, &kk, KC);
        let npc = f.smax(&npc, &Val::i64(1));
        let last_pc = f.sub(&npc, &Val::i64(1));
        let ntiles = f.sub(&t1, &t0);
        let nic = ceil_div(f, &ntiles, t.mct);
        {
            let f = &mut k.f;
            let jc = f.mul(&jcb, &kncb);
            let rest = f.sub(&kn, &jc);
            let nc = smin(f, &rest, &kncb);
            let ntn = ceil_div(f, &nc, nr);
            k.for_range(&Val::i64(0), &npc, |k, pcb| {
                let f = &mut k.f;
                let pc = f.mul(pcb, &Val::i64(KC));
                let rest = f.sub(&kk, &pc);
                let kc = smin(f, &rest, &Val::i64(KC));
                let kc = f.smax(&kc, &Val::i64(0));
                let first = f.icmp("eq", pcb, &Val::i64(0));
                // Software prefetch of the next K block of B (unit column stride only): each
                // microkernel call of this block prefetches its share of the next block's cache
                // lines into L2, so packing it reads from cache and the memory traffic overlaps
                // the FMAs (with M = 256 the packing otherwise waits on memory for ~10%).
                let nxt = f.add(&pc, &Val::i64(KC));
                let left = f.sub(&kk, &nxt);
                let pf_rows = smin(f, &left, &Val::i64(KC));
                let pf_rows = f.smax(&pf_rows, &Val::i64(0));
                let pf_lpr = ceil_div(f, &nc, 16);
                let pf_lines = f.mul(&pf_rows, &pf_lpr);
                let calls = f.mul(&ntn, &ntiles);
                let calls = f.smax(&calls, &Val::i64(1));
                let per = f.add(&pf_lines, &calls);
                let per = f.sub(&per, &Val::i64(1));
                let per = f.div(&per, &calls);
                let bunit = f.icmp("eq", &sbn, &Val::i64(1));
                let pf_per = f.select(&bunit, &per, &Val::i64(0));
                let pf0 = f.mul(&nxt, &sbk);
                let pf0 = f.add(&pf0, &b0);
                let pf0 = f.add(&pf0, &jc);
                // Pack B: tile jt holds kc rows of nr columns. Row by row (B's rows are read
                // sequentially, which the hardware prefetchers stream from memory), each row
                // cut into the tiles.
                k.for_range(&Val::i64(0), &kc, |k, p| {
                    let f = &mut k.f;
                    let kp = f.add(&pc, p);
                    let rowo = f.mul(&kp, &sbk);
                    let rowo = f.add(&b0, &rowo);
                    let nm1 = f.sub(&kn, &Val::i64(1));
                    let unit = f.icmp("eq", &sbn, &Val::i64(1));
                    k.for_range(&Val::i64(0), &ntn, |k, jt| {
                        let f = &mut k.f;
                        let jn = f.mul(jt, &Val::i64(nr));
                        let col0 = f.add(&jc, &jn);
                        let end = f.add(&col0, &Val::i64(nr));
                        let full = f.icmp("sle", &end, &kn);
                        let tk = f.mul(jt, &kc);
                        let tk = f.add(&tk, p);
                        let dst = f.mul(&tk, &Val::i64(nr));
                        // Three copies: unit column stride (contiguous, vectorized), full tile,
                        // edge tile (columns past N read clamped and zeroed).
                        let pack = |k: &mut Kernel, full: bool, unit: bool| {
                            let f = &mut k.f;
                            for c in 0..nr {
                                let col = f.add(&col0, &Val::i64(c));
                                let v = if unit {
                                    let off = f.add(&rowo, &col);
                                    load_f(f, &kb.ptr, &off)
                                } else if full {
                                    let co = f.mul(&col, &sbn);
                                    let off = f.add(&rowo, &co);
                                    load_f(f, &kb.ptr, &off)
                                } else {
                                    let cc = smin(f, &col, &nm1);
                                    let co = f.mul(&cc, &sbn);
                                    let off = f.add(&rowo, &co);
                                    let x = load_f(f, &kb.ptr, &off);
                                    let ok = f.icmp("slt", &col, &kn);
                                    f.select(&ok, &x, &Val::f32(0.0))
                                };
                                let d = f.add(&dst, &Val::i64(c));
                                let q = f.gep("float", &pb, &d);
                                f.store(&v, &q);
                            }
                            Ok(())
                        };
                        if_else(
                            k,
                            &full,
                            |k| if_else(k, &unit, |k| pack(k, true, true), |k| pack(k, true, false)),
                            |k| pack(k, false, false),
                        )
                    })
                })?;
                k.for_range(&Val::i64(0), &nic, |k, icb| {
                    let f = &mut k.f;
                    let s = f.mul(icb, &Val::i64(t.mct));
                    let it0 = f.add(&t0, &s);
                    let e = f.add(&it0, &Val::i64(t.mct));
                    let it1 = smin(f, &e, &t1);
                    // Pack A: tile ti holds mr rows of kc columns, row pitch KC (so the
                    // microkernel's loads are at constant offsets from one pointer). Row by row:
                    // the reads of a row-major A are contiguous (vectorized) and the writes too.
                    k.for_range(&it0, &it1, |k, ti| {
                        let f = &mut k.f;
                        let row0 = f.mul(ti, &Val::i64(mr));
                        let mm1 = f.sub(&km, &Val::i64(1));
                        let lt = f.sub(ti, &it0);
                        let tile0 = f.mul(&lt, &Val::i64(mr * KC));
                        let unit = f.icmp("eq", &sak, &Val::i64(1));
                        k.for_range(&Val::i64(0), &Val::i64(mr), |k, r| {
                            let f = &mut k.f;
                            let row = f.add(&row0, r);
                            let ok = f.icmp("slt", &row, &km);
                            let rc = smin(f, &row, &mm1);
                            let ro = f.mul(&rc, &sam);
                            let rbase = f.add(&a0, &ro);
                            let d0 = f.mul(r, &Val::i64(KC));
                            let d0 = f.add(&tile0, &d0);
                            let pack = |k: &mut Kernel, unit: bool| {
                                k.for_range(&Val::i64(0), &kc, |k, p| {
                                    let f = &mut k.f;
                                    let kp = f.add(&pc, p);
                                    let co = if unit { kp } else { f.mul(&kp, &sak) };
                                    let off = f.add(&rbase, &co);
                                    let x = load_f(f, &ka.ptr, &off);
                                    let v = f.select(&ok, &x, &Val::f32(0.0));
                                    let d = f.add(&d0, p);
                                    let q = f.gep("float", &pa, &d);
                                    f.store(&v, &q);
                                    Ok(())
                                })
                            };
                            if_else(k, &unit, |k| pack(k, true), |k| pack(k, false))
                        })
                    })?;
                    // Microkernels: B tiles outer, A tiles inner.
                    k.for_range(&Val::i64(0), &ntn, |k, jt| {
                        let f = &mut k.f;
                        let jn = f.mul(jt, &Val::i64(nr));
                        let col0 = f.add(&jc, &jn);
                        let cend = f.add(&col0, &Val::i64(nr));
                        let cfull = f.icmp("sle", &cend, &kn);
                        let bo = f.mul(jt, &kc);
                        let bo = f.mul(&bo, &Val::i64(nr));
                        let bt = f.gep("float", &pb, &bo);
                        let ncv = f.sub(&kn, &col0);
                        let ncv = smin(f, &ncv, &Val::i64(nr));
                        k.for_range(&it0, &it1, |k, ti| {
                            let f = &mut k.f;
                            // This call's share of the prefetch: lines [s, s + pf_per).
                            let call = f.mul(jt, &ntiles);
                            let tl = f.sub(ti, &t0);
                            let call = f.add(&call, &tl);
                            let s = f.mul(&call, &pf_per);
                            let lpr1 = f.smax(&pf_lpr, &Val::i64(1));
                            let pr0 = f.div(&s, &lpr1);
                            let pc0 = f.rem(&s, &lpr1);
                            let (bptr, pfr, sbk2) = (kb.ptr.clone(), pf_rows.clone(), sbk.clone());
                            k.for_acc(&Val::i64(0), &pf_per, &[pr0, pc0], |k, _, rc| {
                                let f = &mut k.f;
                                let (r, cl) = (&rc[0], &rc[1]);
                                let inb = f.icmp("slt", r, &pfr);
                                f.if_then(&inb, |f| {
                                    let ro = f.mul(r, &sbk2);
                                    let co = f.mul(cl, &Val::i64(16));
                                    let off = f.add(&pf0, &ro);
                                    let off = f.add(&off, &co);
                                    let a = f.emit("ptr", format!("getelementptr float, ptr {bptr}, i64 {off}"));
                                    f.raw(format!("call void @llvm.prefetch.p0(ptr {a}, i32 0, i32 2, i32 1)"));
                                    Ok(())
                                })?;
                                let c1 = f.add(cl, &Val::i64(1));
                                let wrap = f.icmp("eq", &c1, &pf_lpr);
                                let r1 = f.add(r, &Val::i64(1));
                                let r = f.select(&wrap, &r1, r);
                                let cl = f.select(&wrap, &Val::i64(0), &c1);
                                Ok(vec![r, cl])
                            })?;
                            let f = &mut k.f;
                            let lt = f.sub(ti, &it0);
                            let ao = f.mul(&lt, &Val::i64(mr * KC));
                            let at = f.gep("float", &pa, &ao);
                            let row0 = f.mul(ti, &Val::i64(mr));
                            let rend = f.add(&row0, &Val::i64(mr));
                            let rfull = f.icmp("sle", &rend, &km);
                            let full = f.and(&rfull, &cfull);
                            let nrv = f.sub(&km, &row0);
                            let nrv = smin(f, &nrv, &Val::i64(mr));
                            let cbase = f.mul(&row0, &kn);
                            let cbase = f.add(&c0, &cbase);
                            let cbase = f.add(&cbase, &col0);
                            let notfull = f.emit("i1", format!("xor i1 {full}, true"));
                            // Edge tile: through `tilebuf` (the valid part of C, or zeros).
                            k.f.if_then(&notfull, |f| {
                                for r in 0..mr {
                                    for c in 0..nr {
                                        let q = f.gep("float", &tilebuf, &Val::i64(r * nr + c));
                                        f.store(&Val::f32(0.0), &q);
                                    }
                                }
                                Ok(())
                            })?;
                            let notfirst = k.f.emit("i1", format!("xor i1 {first}, true"));
                            let load_c = k.f.and(&notfull, &notfirst);
                            let (ko_ptr, tb) = (ko.ptr.clone(), tilebuf.clone());
                            let (kn2, cb2, nrv2, ncv2) = (kn.clone(), cbase.clone(), nrv.clone(), ncv.clone());
                            k.f.if_then(&load_c, |f| {
                                f.for_range(&Val::i64(0), &nrv2, |f, r| {
                                    f.for_range(&Val::i64(0), &ncv2, |f, c| {
                                        let ro = f.mul(r, &kn2);
                                        let off = f.add(&cb2, &ro);
                                        let off = f.add(&off, c);
                                        let x = load_f(f, &ko_ptr, &off);
                                        let ti = f.mul(r, &Val::i64(nr));
                                        let ti = f.add(&ti, c);
                                        let q = f.gep("float", &tb, &ti);
                                        f.store(&x, &q);
                                        Ok(())
                                    })
                                })
                            })?;
                            let f = &mut k.f;
                            let mut rows = Vec::new();
                            let mut init = Vec::new();
                            for r in 0..mr {
                                let ro = f.mul(&Val::i64(r), &kn);
                                let off = f.add(&cbase, &ro);
                                let direct = f.emit("ptr", format!("getelementptr float, ptr {}, i64 {off}", ko.ptr));
                                let tp = f.gep("float", &tilebuf, &Val::i64(r * nr));
                                let rp = f.select(&full, &direct, &tp);
                                for v in 0..nv {
                                    let q = f.gep("float", &rp, &Val::i64(v * vl));
                                    let x = f.emit(vty, format!("load {vty}, ptr {q}, align 4"));
                                    init.push(
                                        f.emit(vty, format!("select i1 {first}, {vty} zeroinitializer, {vty} {x}")),
                                    );
                                }
                                rows.push(rp);
                            }
                            let _ = &zero_v;
                            let accs = k.for_acc(&Val::i64(0), &kc, &init, |k, p, acc| {
                                let f = &mut k.f;
                                let bo = f.mul(p, &Val::i64(nr));
                                let bp = f.gep("float", &bt, &bo);
                                let mut bv = Vec::new();
                                for v in 0..nv {
                                    let q = f.gep("float", &bp, &Val::i64(v * vl));
                                    bv.push(f.emit(vty, format!("load {vty}, ptr {q}, align {valign}")));
                                }
                                let ap = f.gep("float", &at, p);
                                let mut next = Vec::new();
                                for r in 0..mr {
                                    let x = load_f(f, &ap, &Val::i64(r * KC));
                                    let s = f.emit(vty, format!("insertelement {vty} poison, float {x}, i64 0"));
                                    let s = f.emit(
                                        vty,
                                        format!("shufflevector {vty} {s}, {vty} poison, <{vl} x i32> zeroinitializer"),
                                    );
                                    for v in 0..nv {
                                        let c = &acc[(r * nv + v) as usize];
                                        next.push(f.emit(
                                            vty,
                                            format!(
                                                "call {vty} @{}({vty} {s}, {vty} {}, {vty} {c})",
                                                t.fma, bv[v as usize]
                                            ),
                                        ));
                                    }
                                }
                                Ok(next)
                            })?;
                            let f = &mut k.f;
                            for r in 0..mr {
                                for v in 0..nv {
                                    let q = f.gep("float", &rows[r as usize], &Val::i64(v * vl));
                                    f.raw(format!("store {vty} {}, ptr {q}, align 4", accs[(r * nv + v) as usize]));
                                }
                            }
                            let (ko_ptr, tb) = (ko.ptr.clone(), tilebuf.clone());
                            let kn2 = kn.clone();
                            k.f.if_then(&notfull, |f| {
                                f.for_range(&Val::i64(0), &nrv, |f, r| {
                                    f.for_range(&Val::i64(0), &ncv, |f, c| {
                                        let ti = f.mul(r, &Val::i64(nr));
                                        let ti = f.add(&ti, c);
                                        let x = load_f(f, &tb, &ti);
                                        let ro = f.mul(r, &kn2);
                                        let off = f.add(&cbase, &ro);
                                        let off = f.add(&off, c);
                                        let q = f.gep("float", &ko_ptr, &off);
                                        f.store(&x, &q);
                                        Ok(())
                                    })
                                })
                            })?;
                            let Some(e) = epi.as_mut() else { return Ok(()) };
                            // The epilogue, once the tile is final (its last K block): in L1 still.
                            let last = k.f.icmp("eq", pcb, &last_pc);
                            let leaves = EpiLeaves {
                                tvs: &kleaves,
                                strides: &kls,
                                base: &leaf0,
                                nbd,
                            };
                            // Full tiles: a constant column count (LLVM vectorizes the columns; with the
                            // row count constant too it vectorized across rows, with gathers).
                            let cnr = Val::i64(nr);
                            let whole = TileAt {
                                row0: &row0,
                                col0: &col0,
                                cbase: &cbase,
                                nrv: &nrv,
                                ncv: &cnr,
                                kn: &kn,
                            };
                            let edge = TileAt {
                                row0: &row0,
                                col0: &col0,
                                cbase: &cbase,
                                nrv: &nrv,
                                ncv: &ncv,
                                kn: &kn,
                            };
                            let (lt, lf, le, lj) = (
                                k.f.label("epi"),
                                k.f.label("epi_full"),
                                k.f.label("epi_edge"),
                                k.f.label("epi_end"),
                            );
                            k.f.condbr(&last, &lt, &lj);
                            k.f.start(&lt);
                            k.f.condbr(&full, &lf, &le);
                            k.f.start(&lf);
                            epilogue_tile(k, e, &ko, &kouts, &leaves, &whole)?;
                            k.f.br(&lj);
                            k.f.start(&le);
                            epilogue_tile(k, e, &ko, &kouts, &leaves, &edge)?;
                            k.f.br(&lj);
                            k.f.start(&lj);
                            Ok(())
                        })
                    })
                })
            })
        }
    })?;
    k.f.raw(format!("call void @xcs_rt_free(ptr {pa})"));
    k.f.raw(format!("call void @xcs_rt_free(ptr {pb})"));
    fl.launch(k, &units, &grain, &work)?;
    Ok(())
}
