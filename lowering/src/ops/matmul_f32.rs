//! The packed f32 matmul kernel generated as LLVM IR per call site (`Options::matmul` =
//! `Generated`, `xcs-run --matmul=generated`; by default the runtime's library computes it, see
//! `matmul_lib`): blocked over N and K, B and A panels packed into scratch buffers, a
//! register-tiled microkernel of vector FMAs chosen from the target features, and an optional
//! epilogue (a `tensor.fused` region's elementwise ops) applied to each output tile while it is
//! in L1. Written as named steps over plan structs: the thread split (`thread_split`), the
//! kernel's captured view (`F32Kernel`), its scratch, the column blocks and K blocks, packing
//! (`pack_b`, `pack_a`), the prefetch of the next B block, the tile and its microkernel (`tile`,
//! `microkernel`) and the epilogue.

use super::matmul::{Epilogue, Plan};
use super::matmul_epilogue::{epilogue_tile, EpiLeaves, TileAt};
use crate::codegen::llvm_ir::{FunctionBuilder, Val};
use crate::codegen::loops::{broadcast_strides, offset, unflatten};
use crate::codegen::{FunctionLowering, Kernel, OpSite, RunTimeCheck, TensorVal, R};

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
pub(super) const CHUNK_FMAS_PER_THRESHOLD: i64 = 128;

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

fn smin(f: &mut FunctionBuilder, a: &Val, b: &Val) -> Val {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) => Val::i64(x.min(y)),
        _ => {
            let c = f.icmp("slt", a, b);
            f.select(&c, a, b)
        }
    }
}

/// `ceil(a / b)` for `a >= 0`, `b > 0` constant.
fn ceil_div(f: &mut FunctionBuilder, a: &Val, b: i64) -> Val {
    let t = f.add(a, &Val::i64(b - 1));
    f.div(&t, &Val::i64(b))
}

fn load_f(f: &mut FunctionBuilder, base: &Val, off: &Val) -> Val {
    let p = f.gep("float", base, off);
    f.load("float", &p)
}

/// `if c { then() } else { els() }`; a constant `c` (static sizes and strides) emits only the
/// branch taken, so LLVM is not given dead code to optimize and delete.
fn if_else(
    k: &mut Kernel,
    c: &Val,
    then: impl FnOnce(&mut Kernel) -> R<()>,
    els: impl FnOnce(&mut Kernel) -> R<()>,
) -> R<()> {
    if let Some(taken) = c.as_bool() {
        let (b, j) = (k.f.label(if taken { "then" } else { "else" }), k.f.label("endif"));
        k.f.br(&b);
        k.f.start(&b);
        if taken { then(k)? } else { els(k)? }
        k.f.br(&j);
        k.f.start(&j);
        return Ok(());
    }
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
/// accumulates in f32. The launch splits the units (batch, column block, row tile) between
/// threads ([`thread_split`]); each invocation packs its own panels.
pub(super) fn matmul_f32(
    fl: &mut FunctionLowering,
    o: &OpSite,
    p: &Plan,
    out: &TensorVal,
    mut epi: Option<Epilogue>,
) -> R<()> {
    let t = tile_for_plan(&fl.module.opts.features, p);
    let split = thread_split(fl, p, &t);
    let oom = o.msg(fl, "out of memory");
    // The epilogue's leaves read at (batch index, row, column) through strides broadcast to the result.
    let leaf_strides: Vec<Vec<Val>> = match &epi {
        Some(e) => e
            .leaves
            .iter()
            .map(|t| broadcast_strides(&mut fl.f, t, &p.dims))
            .collect(),
        None => Vec::new(),
    };
    let mut k = fl.kernel("matmul_f32");
    k.m.declare(t.fma, &format!("declare {v} @{}({v}, {v}, {v})", t.fma, v = t.vty));
    k.m.declare("llvm.prefetch.p0", "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)");
    let kp = F32Kernel::capture(&mut k, t, p, out, &split, epi.as_ref(), &leaf_strides);
    let scratch = Scratch::alloc(&mut k, &kp, o.site, &oom)?;
    // The units of this invocation, as (batch, column block) pairs and their row tiles.
    let mt1 = k.f.smax(&kp.mt, &Val::i64(1));
    let b_lo = k.f.div(&kp.lo, &mt1);
    let b_hi = k.f.add(&kp.hi, &Val::i64(0));
    let b_hi = {
        let x = k.f.sub(&mt1, &Val::i64(1));
        let y = k.f.add(&b_hi, &x);
        k.f.div(&y, &mt1)
    };
    k.for_range(&b_lo, &b_hi, |k, bj| column_block(k, &kp, &scratch, bj, &mut epi))?;
    k.f.raw(format!("call void @xcs_rt_free(ptr {})", scratch.pa));
    k.f.raw(format!("call void @xcs_rt_free(ptr {})", scratch.pb));
    fl.launch(k, &split.units, &split.grain, &split.work)?;
    Ok(())
}

/// The register tile for the target features and `p`'s sizes: a static M that the tile's rows
/// do not divide but 8 does (256, 1024, ...) gets 8-row tiles, which waste no rows (12-row
/// tiles of M = 256 compute 8 padding rows in the last one).
fn tile_for_plan(features: &str, p: &Plan) -> Tile {
    let mut t = tile_for(features);
    if let Some(mv) = p.m.as_i64() {
        if t.mr == 12 && mv % 12 != 0 && mv % 8 == 0 {
            t.mr = 8;
            t.mct = 12;
        }
    }
    t
}

/// How the kernel's iteration space is split between threads: units (batch, column block of
/// `ncb` columns, row tile), `njc` column blocks per batch, `mt` row tiles, chunks of `grain`
/// units, `work` multiply-adds in all.
struct ThreadSplit {
    mt: Val,
    ncb: Val,
    njc: Val,
    units: Val,
    grain: Val,
    work: Val,
}

/// The thread split of `p` with tile `t`. When the matmul runs on several threads, N is split
/// into one column block per thread (at least MIN_NCB_TILES tiles, at most NC columns), so a
/// thread packs only its share of B (B is usually the larger operand: packing all of it on
/// every thread made 2 threads only ~1.25x faster). A thread's chunk is at least 2^22
/// multiply-adds (~30 us) by default: below that, handing work to the pool costs more than it
/// saves.
fn thread_split(fl: &mut FunctionLowering, p: &Plan, t: &Tile) -> ThreadSplit {
    let (m, n, kd) = (&p.m, &p.n, &p.k);
    let mr = t.mr;
    let nr = t.vl * t.nv;
    let nb = fl.f.product(&p.batch);
    let mt = ceil_div(&mut fl.f, m, mr);
    let nk = fl.f.mul(n, kd);
    let row_work = fl.f.mul(&nk, &Val::i64(mr));
    let rows = fl.f.mul(&nb, &mt);
    let work = fl.f.mul(&rows, &row_work);
    let min_chunk = fl
        .module
        .opts
        .parallel_threshold
        .saturating_mul(CHUNK_FMAS_PER_THRESHOLD);
    let ncb = {
        let f = &mut fl.f;
        let threads = fl.module.opts.threads.max(1) as i64;
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
    ThreadSplit {
        mt,
        ncb,
        njc,
        units,
        grain,
        work,
    }
}

/// The kernel's view of the matmul (every value captured into the kernel): the tile, the
/// operands A and B and the result C, the batch dims and each operand's batch strides, M, N, K,
/// the thread split, A's and B's row and column strides, the invocation's unit range, and the
/// epilogue's leaves, outputs and leaf strides (with `nbd` batch dims).
struct F32Kernel {
    t: Tile,
    a: TensorVal,
    b: TensorVal,
    c: TensorVal,
    batch: Vec<Val>,
    abs: Vec<Val>,
    bbs: Vec<Val>,
    m: Val,
    n: Val,
    k: Val,
    mt: Val,
    ncb: Val,
    njc: Val,
    sam: Val,
    sak: Val,
    sbk: Val,
    sbn: Val,
    lo: Val,
    hi: Val,
    nbd: usize,
    leaves: Vec<TensorVal>,
    outs: Vec<TensorVal>,
    leaf_strides: Vec<Vec<Val>>,
}

impl F32Kernel {
    /// Captures what the kernel reads (the order fixes the kernel's parameters).
    #[allow(clippy::too_many_arguments)]
    fn capture(
        k: &mut Kernel,
        t: Tile,
        p: &Plan,
        out: &TensorVal,
        split: &ThreadSplit,
        epi: Option<&Epilogue>,
        leaf_strides: &[Vec<Val>],
    ) -> F32Kernel {
        let (a, b, c) = (k.tensor(&p.a), k.tensor(&p.b), k.tensor(out));
        let batch = k.cap_all(&p.batch);
        let (abs, bbs) = (k.cap_all(&p.abs), k.cap_all(&p.bbs));
        let (m, n, kd, mt) = (k.cap(&p.m), k.cap(&p.n), k.cap(&p.k), k.cap(&split.mt));
        let (ncb, njc) = (k.cap(&split.ncb), k.cap(&split.njc));
        let st = &p.st;
        let (sam, sak, sbk, sbn) = (k.cap(&st[0]), k.cap(&st[1]), k.cap(&st[2]), k.cap(&st[3]));
        let (lo, hi) = (k.lo.clone(), k.hi.clone());
        let nbd = p.batch.len();
        let (leaves, outs): (Vec<TensorVal>, Vec<TensorVal>) = match epi {
            Some(e) => (
                e.leaves.iter().map(|t| k.tensor(t)).collect(),
                e.outs.iter().map(|t| k.tensor(t)).collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let leaf_strides: Vec<Vec<Val>> = leaf_strides.iter().map(|s| k.cap_all(s)).collect();
        F32Kernel {
            t,
            a,
            b,
            c,
            batch,
            abs,
            bbs,
            m,
            n,
            k: kd,
            mt,
            ncb,
            njc,
            sam,
            sak,
            sbk,
            sbn,
            lo,
            hi,
            nbd,
            leaves,
            outs,
            leaf_strides,
        }
    }
    /// Columns of a register tile.
    fn nr(&self) -> i64 {
        self.t.vl * self.t.nv
    }
}

/// The kernel's scratch: a packed A block (`mct` tiles of `mr` x KC), a packed B block (`kca` x
/// `nca`) and, on the stack, an edge tile of C.
struct Scratch {
    pa: Val,
    pb: Val,
    tilebuf: Val,
}

impl Scratch {
    /// Allocates the scratch once per kernel invocation (out of memory: a run-time error).
    fn alloc(k: &mut Kernel, kp: &F32Kernel, site: i32, oom: &str) -> R<Scratch> {
        let (mr, nr) = (kp.t.mr, kp.nr());
        let f = &mut k.f;
        let k1 = f.smax(&kp.k, &Val::i64(1));
        let kca = smin(f, &k1, &Val::i64(KC));
        let nru = ceil_div(f, &kp.n, nr);
        let nru = f.mul(&nru, &Val::i64(nr));
        let nca = smin(f, &nru, &kp.ncb);
        let nca = f.smax(&nca, &Val::i64(nr));
        let abytes = Val::i64(kp.t.mct * mr * KC * 4);
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
        k.fail_if(&bad, site, oom);
        let tilebuf = k.f.alloca("float", (mr * nr) as usize);
        Ok(Scratch { pa, pb, tilebuf })
    }
}

/// One (batch, column block) pair `bj` of an invocation: its row tiles `t0..t1` (`ntiles`, in
/// `nic` packed A blocks), the offsets of A, B, C and the epilogue's leaves at its batch index,
/// its columns `jc..jc + nc` (`ntn` column tiles), and its K blocks (`last_pc` the last).
struct ColumnBlock {
    t0: Val,
    t1: Val,
    leaf0: Vec<Val>,
    a0: Val,
    b0: Val,
    c0: Val,
    last_pc: Val,
    ntiles: Val,
    nic: Val,
    jc: Val,
    nc: Val,
    ntn: Val,
}

/// Computes column block `bj` (its share of the units `lo..hi`): for each K block, packs B, then
/// for each A block packs A and runs the microkernels.
fn column_block(k: &mut Kernel, kp: &F32Kernel, sc: &Scratch, bj: &Val, epi: &mut Option<Epilogue>) -> R<()> {
    let f = &mut k.f;
    let base_t = f.mul(bj, &kp.mt);
    let t0 = f.sub(&kp.lo, &base_t);
    let t0 = f.smax(&t0, &Val::i64(0));
    let t1 = f.sub(&kp.hi, &base_t);
    let t1 = smin(f, &t1, &kp.mt);
    let njc1 = f.smax(&kp.njc, &Val::i64(1));
    let bi = &f.div(bj, &njc1);
    let jcb = f.rem(bj, &njc1);
    let bidx = unflatten(f, bi, &kp.batch);
    let leaf0: Vec<Val> = kp.leaf_strides.iter().map(|s| offset(f, &bidx, &s[..kp.nbd])).collect();
    let a0 = offset(f, &bidx, &kp.abs);
    let b0 = offset(f, &bidx, &kp.bbs);
    let mn = f.mul(&kp.m, &kp.n);
    let c0 = f.mul(bi, &mn);
    let npc = ceil_div(f, &kp.k, KC);
    let npc = f.smax(&npc, &Val::i64(1));
    let last_pc = f.sub(&npc, &Val::i64(1));
    let ntiles = f.sub(&t1, &t0);
    let nic = ceil_div(f, &ntiles, kp.t.mct);
    let jc = f.mul(&jcb, &kp.ncb);
    let rest = f.sub(&kp.n, &jc);
    let nc = smin(f, &rest, &kp.ncb);
    let ntn = ceil_div(f, &nc, kp.nr());
    let cb = ColumnBlock {
        t0,
        t1,
        leaf0,
        a0,
        b0,
        c0,
        last_pc,
        ntiles,
        nic,
        jc,
        nc,
        ntn,
    };
    k.for_range(&Val::i64(0), &npc, |k, pcb| k_block(k, kp, sc, &cb, pcb, epi))
}

/// One K block `pcb` of a column block: rows `pc..pc + kc` of B; `first` for the first block
/// (whose tiles start from zero); and the share of the next block of B each microkernel call
/// prefetches (`pf_per` lines from `pf0`, `pf_rows` rows of `pf_lpr` lines).
struct KBlock<'v> {
    pcb: &'v Val,
    pc: Val,
    kc: Val,
    first: Val,
    pf_rows: Val,
    pf_lpr: Val,
    pf_per: Val,
    pf0: Val,
}

/// K block `pcb` of column block `cb`: packs its B panel, then for each A block of the column
/// block's row tiles packs A and runs the microkernels.
fn k_block(
    k: &mut Kernel,
    kp: &F32Kernel,
    sc: &Scratch,
    cb: &ColumnBlock,
    pcb: &Val,
    epi: &mut Option<Epilogue>,
) -> R<()> {
    let f = &mut k.f;
    let pc = f.mul(pcb, &Val::i64(KC));
    let rest = f.sub(&kp.k, &pc);
    let kc = smin(f, &rest, &Val::i64(KC));
    let kc = f.smax(&kc, &Val::i64(0));
    let first = f.icmp("eq", pcb, &Val::i64(0));
    // Software prefetch of the next K block of B (unit column stride only): each microkernel
    // call of this block prefetches its share of the next block's cache lines into L2, so
    // packing it reads from cache and the memory traffic overlaps the FMAs (with M = 256 the
    // packing otherwise waits on memory for ~10%).
    let nxt = f.add(&pc, &Val::i64(KC));
    let left = f.sub(&kp.k, &nxt);
    let pf_rows = smin(f, &left, &Val::i64(KC));
    let pf_rows = f.smax(&pf_rows, &Val::i64(0));
    let pf_lpr = ceil_div(f, &cb.nc, 16);
    let pf_lines = f.mul(&pf_rows, &pf_lpr);
    let calls = f.mul(&cb.ntn, &cb.ntiles);
    let calls = f.smax(&calls, &Val::i64(1));
    let per = f.add(&pf_lines, &calls);
    let per = f.sub(&per, &Val::i64(1));
    let per = f.div(&per, &calls);
    let bunit = f.icmp("eq", &kp.sbn, &Val::i64(1));
    let pf_per = f.select(&bunit, &per, &Val::i64(0));
    let pf0 = f.mul(&nxt, &kp.sbk);
    let pf0 = f.add(&pf0, &cb.b0);
    let pf0 = f.add(&pf0, &cb.jc);
    let kb = KBlock {
        pcb,
        pc,
        kc,
        first,
        pf_rows,
        pf_lpr,
        pf_per,
        pf0,
    };
    pack_b(k, kp, sc, cb, &kb)?;
    k.for_range(&Val::i64(0), &cb.nic, |k, icb| {
        let f = &mut k.f;
        let s = f.mul(icb, &Val::i64(kp.t.mct));
        let it0 = f.add(&cb.t0, &s);
        let e = f.add(&it0, &Val::i64(kp.t.mct));
        let it1 = smin(f, &e, &cb.t1);
        pack_a(k, kp, sc, cb, &kb, &it0, &it1)?;
        // Microkernels: B tiles outer, A tiles inner.
        k.for_range(&Val::i64(0), &cb.ntn, |k, jt| {
            let f = &mut k.f;
            let jn = f.mul(jt, &Val::i64(kp.nr()));
            let col0 = f.add(&cb.jc, &jn);
            let cend = f.add(&col0, &Val::i64(kp.nr()));
            let cfull = f.icmp("sle", &cend, &kp.n);
            let bo = f.mul(jt, &kb.kc);
            let bo = f.mul(&bo, &Val::i64(kp.nr()));
            let bt = f.gep("float", &sc.pb, &bo);
            let ncv = f.sub(&kp.n, &col0);
            let ncv = smin(f, &ncv, &Val::i64(kp.nr()));
            let col = ColumnTile {
                jt,
                col0,
                cfull,
                bt,
                ncv,
            };
            k.for_range(&it0, &it1, |k, ti| {
                prefetch_next_b(k, kp, cb, &kb, &col, ti)?;
                tile(k, kp, sc, cb, &kb, &col, &it0, ti, epi)
            })
        })
    })
}

/// Packs the B panel of K block `kb`: tile `jt` holds `kc` rows of `nr` columns. Row by row (B's
/// rows are read sequentially, which the hardware prefetchers stream from memory), each row
/// cut into the tiles; three copies: unit column stride (contiguous, vectorized), full tile,
/// edge tile (columns past N read clamped and zeroed).
fn pack_b(k: &mut Kernel, kp: &F32Kernel, sc: &Scratch, cb: &ColumnBlock, kb: &KBlock) -> R<()> {
    let nr = kp.nr();
    k.for_range(&Val::i64(0), &kb.kc, |k, p| {
        let f = &mut k.f;
        let kpos = f.add(&kb.pc, p);
        let rowo = f.mul(&kpos, &kp.sbk);
        let rowo = f.add(&cb.b0, &rowo);
        let nm1 = f.sub(&kp.n, &Val::i64(1));
        let unit = f.icmp("eq", &kp.sbn, &Val::i64(1));
        k.for_range(&Val::i64(0), &cb.ntn, |k, jt| {
            let f = &mut k.f;
            let jn = f.mul(jt, &Val::i64(nr));
            let col0 = f.add(&cb.jc, &jn);
            let end = f.add(&col0, &Val::i64(nr));
            let full = f.icmp("sle", &end, &kp.n);
            let tk = f.mul(jt, &kb.kc);
            let tk = f.add(&tk, p);
            let dst = f.mul(&tk, &Val::i64(nr));
            // Contiguous full tile: whole vectors (what the SLP vectorizer would make of scalar
            // copies, without making it work for it).
            let pack_vectors = |k: &mut Kernel| {
                let (f, vty, vl) = (&mut k.f, kp.t.vty, kp.t.vl);
                for v in 0..kp.t.nv {
                    let col = f.add(&col0, &Val::i64(v * vl));
                    let off = f.add(&rowo, &col);
                    let src = f.gep("float", &kp.b.ptr, &off);
                    let x = f.emit(vty, format!("load {vty}, ptr {src}, align 4"));
                    let d = f.add(&dst, &Val::i64(v * vl));
                    let q = f.gep("float", &sc.pb, &d);
                    f.raw(format!("store {vty} {x}, ptr {q}, align 4"));
                }
                Ok(())
            };
            // Strided full tile: one scalar copy per column.
            let pack_strided = |k: &mut Kernel| {
                let f = &mut k.f;
                for c in 0..nr {
                    let col = f.add(&col0, &Val::i64(c));
                    let co = f.mul(&col, &kp.sbn);
                    let off = f.add(&rowo, &co);
                    let v = load_f(f, &kp.b.ptr, &off);
                    let d = f.add(&dst, &Val::i64(c));
                    let q = f.gep("float", &sc.pb, &d);
                    f.store(&v, &q);
                }
                Ok(())
            };
            // Edge tile (columns past N read clamped and zeroed): a loop, as it is rare.
            let pack_edge = |k: &mut Kernel| {
                k.f.for_range(&Val::i64(0), &Val::i64(nr), |f, c| {
                    let col = f.add(&col0, c);
                    let cc = smin(f, &col, &nm1);
                    let co = f.mul(&cc, &kp.sbn);
                    let off = f.add(&rowo, &co);
                    let x = load_f(f, &kp.b.ptr, &off);
                    let ok = f.icmp("slt", &col, &kp.n);
                    let v = f.select(&ok, &x, &Val::f32(0.0));
                    let d = f.add(&dst, c);
                    let q = f.gep("float", &sc.pb, &d);
                    f.store(&v, &q);
                    Ok(())
                })
            };
            if_else(k, &full, |k| if_else(k, &unit, pack_vectors, pack_strided), pack_edge)
        })
    })
}

/// Packs row tiles `it0..it1` of A for K block `kb`: tile `ti` holds `mr` rows of `kc` columns,
/// row pitch KC (so the microkernel's loads are at constant offsets from one pointer). Row by
/// row: the reads of a row-major A are contiguous (vectorized) and the writes too; rows past M
/// are zeros.
#[allow(clippy::too_many_arguments)]
fn pack_a(k: &mut Kernel, kp: &F32Kernel, sc: &Scratch, cb: &ColumnBlock, kb: &KBlock, it0: &Val, it1: &Val) -> R<()> {
    let mr = kp.t.mr;
    k.for_range(it0, it1, |k, ti| {
        let f = &mut k.f;
        let row0 = f.mul(ti, &Val::i64(mr));
        let mm1 = f.sub(&kp.m, &Val::i64(1));
        let lt = f.sub(ti, it0);
        let tile0 = f.mul(&lt, &Val::i64(mr * KC));
        let unit = f.icmp("eq", &kp.sak, &Val::i64(1));
        k.for_range(&Val::i64(0), &Val::i64(mr), |k, r| {
            let f = &mut k.f;
            let row = f.add(&row0, r);
            let ok = f.icmp("slt", &row, &kp.m);
            let rc = smin(f, &row, &mm1);
            let ro = f.mul(&rc, &kp.sam);
            let rbase = f.add(&cb.a0, &ro);
            let d0 = f.mul(r, &Val::i64(KC));
            let d0 = f.add(&tile0, &d0);
            let pack = |k: &mut Kernel, unit: bool| {
                k.for_range(&Val::i64(0), &kb.kc, |k, p| {
                    let f = &mut k.f;
                    let kpos = f.add(&kb.pc, p);
                    let co = if unit { kpos } else { f.mul(&kpos, &kp.sak) };
                    let off = f.add(&rbase, &co);
                    let x = load_f(f, &kp.a.ptr, &off);
                    let v = f.select(&ok, &x, &Val::f32(0.0));
                    let d = f.add(&d0, p);
                    let q = f.gep("float", &sc.pa, &d);
                    f.store(&v, &q);
                    Ok(())
                })
            };
            if_else(k, &unit, |k| pack(k, true), |k| pack(k, false))
        })
    })
}

/// Column tile `jt` of a column block: its first column, whether it is full, its packed B tile
/// `bt`, and its valid columns `ncv`.
struct ColumnTile<'v> {
    jt: &'v Val,
    col0: Val,
    cfull: Val,
    bt: Val,
    ncv: Val,
}

/// The microkernel call at row tile `ti` of column tile `col` prefetches its share of the next K
/// block of B: lines `[s, s + pf_per)` of the block's rows.
fn prefetch_next_b(k: &mut Kernel, kp: &F32Kernel, cb: &ColumnBlock, kb: &KBlock, col: &ColumnTile, ti: &Val) -> R<()> {
    let f = &mut k.f;
    let call = f.mul(col.jt, &cb.ntiles);
    let tl = f.sub(ti, &cb.t0);
    let call = f.add(&call, &tl);
    let s = f.mul(&call, &kb.pf_per);
    let lpr1 = f.smax(&kb.pf_lpr, &Val::i64(1));
    let pr0 = f.div(&s, &lpr1);
    let pc0 = f.rem(&s, &lpr1);
    k.for_acc(&Val::i64(0), &kb.pf_per, &[pr0, pc0], |k, _, rc| {
        let f = &mut k.f;
        let (r, cl) = (&rc[0], &rc[1]);
        let inb = f.icmp("slt", r, &kb.pf_rows);
        f.if_then(&inb, |f| {
            let ro = f.mul(r, &kp.sbk);
            let co = f.mul(cl, &Val::i64(16));
            let off = f.add(&kb.pf0, &ro);
            let off = f.add(&off, &co);
            let a = f.emit("ptr", format!("getelementptr float, ptr {}, i64 {off}", kp.b.ptr));
            f.raw(format!("call void @llvm.prefetch.p0(ptr {a}, i32 0, i32 2, i32 1)"));
            Ok(())
        })?;
        let c1 = f.add(cl, &Val::i64(1));
        let wrap = f.icmp("eq", &c1, &kb.pf_lpr);
        let r1 = f.add(r, &Val::i64(1));
        let r = f.select(&wrap, &r1, r);
        let cl = f.select(&wrap, &Val::i64(0), &c1);
        Ok(vec![r, cl])
    })?;
    Ok(())
}

/// One output tile (row tile `ti`, column tile `col`) for K block `kb`: its accumulators start
/// from zero (first block) or from C, the microkernel adds the block's products, and they are
/// stored back; an edge tile goes through `tilebuf` (only its valid part of C is read and
/// written). After the last K block the epilogue runs on the tile.
#[allow(clippy::too_many_arguments)]
fn tile(
    k: &mut Kernel,
    kp: &F32Kernel,
    sc: &Scratch,
    cb: &ColumnBlock,
    kb: &KBlock,
    col: &ColumnTile,
    it0: &Val,
    ti: &Val,
    epi: &mut Option<Epilogue>,
) -> R<()> {
    let (mr, nr) = (kp.t.mr, kp.nr());
    let f = &mut k.f;
    let lt = f.sub(ti, it0);
    let ao = f.mul(&lt, &Val::i64(mr * KC));
    let at = f.gep("float", &sc.pa, &ao);
    let row0 = f.mul(ti, &Val::i64(mr));
    let rend = f.add(&row0, &Val::i64(mr));
    let rfull = f.icmp("sle", &rend, &kp.m);
    let full = f.and(&rfull, &col.cfull);
    let nrv = f.sub(&kp.m, &row0);
    let nrv = smin(f, &nrv, &Val::i64(mr));
    let cbase = f.mul(&row0, &kp.n);
    let cbase = f.add(&cb.c0, &cbase);
    let cbase = f.add(&cbase, &col.col0);
    let notfull = f.emit("i1", format!("xor i1 {full}, true"));
    let at_c = TileAt {
        row0: &row0,
        col0: &col.col0,
        cbase: &cbase,
        nrv: &nrv,
        ncv: &col.ncv,
        kn: &kp.n,
    };
    edge_tile_in(k, kp, sc, kb, &at_c, &notfull)?;
    let (rows, init) = tile_rows(k, kp, sc, &cbase, &full, &kb.first);
    let accs = microkernel(k, kp, &col.bt, &at, &kb.kc, &init)?;
    let (vty, vl, nv) = (kp.t.vty, kp.t.vl, kp.t.nv);
    let f = &mut k.f;
    for r in 0..mr {
        for v in 0..nv {
            let q = f.gep("float", &rows[r as usize], &Val::i64(v * vl));
            f.raw(format!("store {vty} {}, ptr {q}, align 4", accs[(r * nv + v) as usize]));
        }
    }
    let (c_ptr, tb) = (&kp.c.ptr, &sc.tilebuf);
    k.f.if_then(&notfull, |f| {
        f.for_range(&Val::i64(0), &nrv, |f, r| {
            f.for_range(&Val::i64(0), &col.ncv, |f, c| {
                let ti = f.mul(r, &Val::i64(nr));
                let ti = f.add(&ti, c);
                let x = load_f(f, tb, &ti);
                let ro = f.mul(r, &kp.n);
                let off = f.add(&cbase, &ro);
                let off = f.add(&off, c);
                let q = f.gep("float", c_ptr, &off);
                f.store(&x, &q);
                Ok(())
            })
        })
    })?;
    let Some(e) = epi.as_mut() else { return Ok(()) };
    tile_epilogue(k, kp, cb, kb, e, &at_c, &full)
}

/// An edge tile (`notfull`) starts in `tilebuf`: zeros, then for K blocks after the first the
/// valid part of C.
fn edge_tile_in(k: &mut Kernel, kp: &F32Kernel, sc: &Scratch, kb: &KBlock, at: &TileAt, notfull: &Val) -> R<()> {
    let (mr, nr) = (kp.t.mr, kp.nr());
    let tb = &sc.tilebuf;
    k.m.declare("llvm.memset.p0.i64", "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)");
    k.f.if_then(notfull, |f| {
        f.raw(format!("call void @llvm.memset.p0.i64(ptr {tb}, i8 0, i64 {}, i1 false)", mr * nr * 4));
        Ok(())
    })?;
    let notfirst = k.f.emit("i1", format!("xor i1 {}, true", kb.first));
    let load_c = k.f.and(notfull, &notfirst);
    let c_ptr = &kp.c.ptr;
    k.f.if_then(&load_c, |f| {
        f.for_range(&Val::i64(0), at.nrv, |f, r| {
            f.for_range(&Val::i64(0), at.ncv, |f, c| {
                let ro = f.mul(r, at.kn);
                let off = f.add(at.cbase, &ro);
                let off = f.add(&off, c);
                let x = load_f(f, c_ptr, &off);
                let ti = f.mul(r, &Val::i64(nr));
                let ti = f.add(&ti, c);
                let q = f.gep("float", tb, &ti);
                f.store(&x, &q);
                Ok(())
            })
        })
    })
}

/// The row pointers of a tile (into C when the tile is `full`, else into `tilebuf`) and the
/// accumulators' initial values: zero in the `first` K block, else the tile's current values.
fn tile_rows(
    k: &mut Kernel,
    kp: &F32Kernel,
    sc: &Scratch,
    cbase: &Val,
    full: &Val,
    first: &Val,
) -> (Vec<Val>, Vec<Val>) {
    let (mr, nr, vl, nv, vty) = (kp.t.mr, kp.nr(), kp.t.vl, kp.t.nv, kp.t.vty);
    let f = &mut k.f;
    let mut rows = Vec::new();
    let mut init = Vec::new();
    for r in 0..mr {
        let ro = f.mul(&Val::i64(r), &kp.n);
        let off = f.add(cbase, &ro);
        let direct = f.emit("ptr", format!("getelementptr float, ptr {}, i64 {off}", kp.c.ptr));
        let tp = f.gep("float", &sc.tilebuf, &Val::i64(r * nr));
        let rp = f.select(full, &direct, &tp);
        for v in 0..nv {
            let q = f.gep("float", &rp, &Val::i64(v * vl));
            let x = f.emit(vty, format!("load {vty}, ptr {q}, align 4"));
            init.push(f.emit(vty, format!("select i1 {first}, {vty} zeroinitializer, {vty} {x}")));
        }
        rows.push(rp);
    }
    (rows, init)
}

/// The microkernel: for each of the `kc` rows of the block, `nv` vectors of the packed B tile
/// `bt` and, per tile row, a broadcast element of the packed A tile `at`, multiply-added into
/// the `mr x nv` vector accumulators (`init` at the start); returns their final values.
fn microkernel(k: &mut Kernel, kp: &F32Kernel, bt: &Val, at: &Val, kc: &Val, init: &[Val]) -> R<Vec<Val>> {
    let (mr, nr, vl, nv, vty, fma) = (kp.t.mr, kp.nr(), kp.t.vl, kp.t.nv, kp.t.vty, kp.t.fma);
    let valign = vl * 4;
    k.for_acc(&Val::i64(0), kc, init, |k, p, acc| {
        let f = &mut k.f;
        let bo = f.mul(p, &Val::i64(nr));
        let bp = f.gep("float", bt, &bo);
        let mut bv = Vec::new();
        for v in 0..nv {
            let q = f.gep("float", &bp, &Val::i64(v * vl));
            bv.push(f.emit(vty, format!("load {vty}, ptr {q}, align {valign}")));
        }
        let ap = f.gep("float", at, p);
        let mut next = Vec::new();
        for r in 0..mr {
            let x = load_f(f, &ap, &Val::i64(r * KC));
            let s = f.splat(vty, vl, &x);
            for v in 0..nv {
                let c = &acc[(r * nv + v) as usize];
                next.push(f.emit(
                    vty,
                    format!("call {vty} @{fma}({vty} {s}, {vty} {}, {vty} {c})", bv[v as usize]),
                ));
            }
        }
        Ok(next)
    })
}

/// The epilogue of a tile, once it is final (the last K block), while it is in L1: on full tiles
/// with a constant column count (LLVM vectorizes the columns; with the row count constant too it
/// vectorized across rows, with gathers), on edge tiles with the valid columns.
fn tile_epilogue(
    k: &mut Kernel,
    kp: &F32Kernel,
    cb: &ColumnBlock,
    kb: &KBlock,
    e: &mut Epilogue,
    at: &TileAt,
    full: &Val,
) -> R<()> {
    let last = k.f.icmp("eq", kb.pcb, &cb.last_pc);
    let leaves = EpiLeaves {
        tvs: &kp.leaves,
        strides: &kp.leaf_strides,
        base: &cb.leaf0,
        nbd: kp.nbd,
    };
    let cnr = Val::i64(kp.nr());
    let whole = TileAt { ncv: &cnr, ..*at };
    let (lt, lf, le, lj) = (
        k.f.label("epi"),
        k.f.label("epi_full"),
        k.f.label("epi_edge"),
        k.f.label("epi_end"),
    );
    k.f.condbr(&last, &lt, &lj);
    k.f.start(&lt);
    k.f.condbr(full, &lf, &le);
    k.f.start(&lf);
    epilogue_tile(k, e, &kp.c, &kp.outs, &leaves, &whole)?;
    k.f.br(&lj);
    k.f.start(&le);
    epilogue_tile(k, e, &kp.c, &kp.outs, &leaves, at)?;
    k.f.br(&lj);
    k.f.start(&lj);
    Ok(())
}
