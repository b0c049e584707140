//! Row kernels of the memory-bound row ops over static f32 rows (`tensor.softmax` read straight
//! from its operand, and the helpers of `tensor.layer_norm`'s output pass in [`super::reduce`]):
//! explicit 16-lane vector loops, each row's output written once with streaming (non-temporal)
//! stores, and the next row prefetched while this one is computed ([`prefetch_next_row`]).

use xcs_dialects::interp::ElemType;

use super::math::{self, MathBuilder};
use crate::codegen::kernel::RolledLoops;
use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::{grain_rows, STREAM_STORE_BYTES};
use crate::codegen::{FunctionLowering, Kernel, Slot, TensorVal, R};

/// f32 lanes of a vector and of a streaming store: 64 bytes, one cache line.
pub const LANES: i64 = 16;

/// `<16 x float>`.
const VF: &str = "<16 x float>";

/// The static row length when a row op's output of `n` `elem` elements in rows of `len` is
/// written with streaming stores: f32, both sizes static, rows a whole number of cache lines (the
/// output buffer is 64-byte aligned, so every row's vectors are too) of at most 16384 elements
/// (a row's scratch copy lives on the kernel's stack), and at least [`STREAM_STORE_BYTES`].
pub fn streaming_rows(len: &Val, n: &Val, elem: ElemType) -> Option<i64> {
    let (len, n) = (len.as_i64()?, n.as_i64()?);
    let fits = len > 0 && len % LANES == 0 && len <= 16384 && n.saturating_mul(4) >= STREAM_STORE_BYTES;
    (elem == ElemType::F32 && fits).then_some(len)
}

/// `<16 x double>` with every lane `v` (a `double`).
pub fn splat_f64(k: &mut Kernel, v: &Val) -> Val {
    k.f.splat("<16 x double>", LANES, v)
}

/// 16 f32 lanes at element `i` of `p` (`align`: the bytes the address is known to be aligned to).
fn load_lanes(k: &mut Kernel, p: &Val, i: &Val, align: u32) -> Val {
    let q = k.f.gep("float", p, i);
    k.f.emit(VF, format!("load {VF}, ptr {q}, align {align}"))
}

/// 16 f32 lanes at element `i` of `p`, widened to f64 (exact).
pub fn load_lanes_f64(k: &mut Kernel, p: &Val, i: &Val, align: u32) -> Val {
    let v = load_lanes(k, p, i, align);
    k.f.emit("<16 x double>", format!("fpext {VF} {v} to <16 x double>"))
}

/// Rounds 16 f64 lanes to f32 once (as `store_acc` does) and stores them at element `i` of the
/// 64-byte aligned `out` with a streaming store.
pub fn stream_lanes(k: &mut Kernel, out: &Val, i: &Val, y: &Val) {
    let md = k.m.nontemporal_md();
    let v = k.f.emit(VF, format!("fptrunc <16 x double> {y} to {VF}"));
    let q = k.f.gep("float", out, i);
    k.f.raw(format!("store {VF} {v}, ptr {q}, align 64, !nontemporal {md}"));
}

/// After a kernel's streaming stores: orders them before the kernel returns (they are weakly
/// ordered; the thread pool's join then publishes them like ordinary stores).
pub fn end_streaming(k: &mut Kernel) {
    k.f.raw("fence seq_cst");
}

/// Prefetches (into L2) the cache line of the next row at the same column as element `i` of
/// `p` (rows of `len` f32 elements). A row op that reads a row in its first pass and then
/// computes and writes it thus overlaps the next row's read from memory with this row's work:
/// the hardware prefetchers stop at the row's end, and a read that starts only with the next
/// row's first pass leaves the core waiting on memory. Past the tensor's end it does nothing
/// (a prefetch never faults).
pub fn prefetch_next_row(k: &mut Kernel, p: &Val, i: &Val, len: i64) {
    k.m.declare("llvm.prefetch.p0", "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)");
    let n = k.f.add(i, &Val::i64(len));
    // not `inbounds`: the last row's next row lies past the tensor's end
    let q = k.f.emit("ptr", format!("getelementptr float, ptr {p}, i64 {n}"));
    k.f.raw(format!(
        "call void @llvm.prefetch.p0(ptr {q}, i32 0, i32 {PREFETCH_LOCALITY}, i32 1)"
    ));
}

/// `llvm.prefetch`'s locality in [`prefetch_next_row`] (2: `prefetcht1`, into L2).
const PREFETCH_LOCALITY: u32 = 2;

/// The largest of `options` that divides `n` (the last option divides every `n` it is used on).
fn divisor(n: i64, options: &[i64]) -> i64 {
    options.iter().copied().find(|&o| n % o == 0).unwrap_or(1)
}

/// `max(a, b)` of 16 lanes as `b > a ? b : a` (x86 `vmaxps`, one instruction): a NaN `b` is
/// skipped. Softmax does not need the NaN in its maximum: a NaN element makes its exponential,
/// the row's sum and so every output of the row NaN, as the interpreter's NaN maximum does.
fn max_lanes(k: &mut Kernel, a: &Val, b: &Val) -> Val {
    let gt = k.f.emit("<16 x i1>", format!("fcmp ogt {VF} {b}, {a}"));
    k.f.emit(VF, format!("select <16 x i1> {gt}, {VF} {b}, {VF} {a}"))
}

/// Runs `body`, whose loops are explicit vector code, with them kept rolled and as written:
/// loops of whole vectors gain little from unrolling on an out-of-order core, their unrolled
/// copies cost compile time, and LLVM's vectorizer has nothing to do in them.
pub fn rolled<T>(k: &mut Kernel, body: impl FnOnce(&mut Kernel) -> R<T>) -> R<T> {
    let keep = k.rolled_loops.replace(RolledLoops::Explicit);
    let r = body(k);
    k.rolled_loops = keep;
    r
}

/// Folds the `nv` vectors of 16 f32 lanes from element `first` into up to 4 independent
/// accumulators starting at `init` (a row reduction is latency-bound on one), in a rolled loop
/// of one vector per iteration that carries the accumulators rotated: `step(k, acc, j)` folds
/// the vector at element `j` into `acc`, and vector `v` goes to accumulator `v % 4` (each fold
/// waits on the one 4 vectors back; the rotation costs register moves, which the core
/// eliminates). Returns the accumulators (in that order: `nv` is a multiple of their number).
/// The same folds as 4 vectors per iteration in a quarter of the IR (less for LLVM to compile).
fn fold_vectors(
    k: &mut Kernel,
    first: &Val,
    nv: i64,
    init: Val,
    step: impl FnOnce(&mut Kernel, &Val, &Val) -> Val,
) -> R<Vec<Val>> {
    let u = divisor(nv, &[4, 2, 1]);
    rolled(k, |k| {
        k.for_acc(&Val::i64(0), &Val::i64(nv), &vec![init; u as usize], |k, c, a| {
            let c0 = k.f.mul(c, &Val::i64(LANES));
            let j = k.f.add(first, &c0);
            let mut next = a[1..].to_vec();
            next.push(step(k, &a[0], &j));
            Ok(next)
        })
    })
}

/// The maximum of the `len` f32 elements at `base` of `x` ([`max_lanes`]; -inf for a row of
/// NaNs), with up to 4 independent vector accumulators ([`fold_vectors`]).
fn row_max(k: &mut Kernel, x: &Val, base: &Val, len: i64) -> R<Val> {
    let init = Val::new(VF, format!("splat (float {})", Val::f32(f32::NEG_INFINITY)));
    let accs = fold_vectors(k, base, len / LANES, init, |k, acc, i| {
        let v = load_lanes(k, x, i, 4);
        max_lanes(k, acc, &v)
    })?;
    let mut m = accs[0].clone();
    for a in &accs[1..] {
        m = max_lanes(k, &m, a);
    }
    // across the lanes: halves folded onto the low lanes (4 steps, lane 0 holds the maximum)
    for half in [8, 4, 2, 1] {
        let idx: Vec<String> = (0..16).map(|l| format!("i32 {}", (l % half) + half)).collect();
        let hi = k.f.emit(
            VF,
            format!("shufflevector {VF} {m}, {VF} poison, <16 x i32> <{}>", idx.join(", ")),
        );
        m = max_lanes(k, &m, &hi);
    }
    Ok(k.f.emit("float", format!("extractelement {VF} {m}, i64 0")))
}

/// The sum of `block` f32 elements as 16 f64 lanes: `value(k, j)` gives the 16 lanes of the
/// elements from `j` (`j0`, `j0 + 16`, ...), summed in f32 vector lanes into up to 4
/// accumulators ([`fold_vectors`]) combined as a tree (so at most 6 roundings of each lane's
/// non-negative terms: relative error < 4e-7; a per-vector f64 sum cost 2 conversions and 2
/// adds per 16 lanes, 10% of W4's time), then widened.
fn block_sum(k: &mut Kernel, j0: &Val, block: i64, value: impl FnOnce(&mut Kernel, &Val) -> Val) -> R<Val> {
    let zero = Val::new(VF, "zeroinitializer");
    let accs = fold_vectors(k, j0, block / LANES, zero, |k, acc, j| {
        let e = value(k, j);
        k.f.emit(VF, format!("fadd {VF} {acc}, {e}"))
    })?;
    let mut level = accs;
    while level.len() > 1 {
        let pairs: Vec<(Val, Val)> = level.chunks(2).map(|c| (c[0].clone(), c[1].clone())).collect();
        level = pairs
            .iter()
            .map(|(a, b)| k.f.emit(VF, format!("fadd {VF} {a}, {b}")))
            .collect();
    }
    Ok(k.f.emit("<16 x double>", format!("fpext {VF} {} to <16 x double>", level[0])))
}

/// Stores the `len` f32 elements of `scratch` (16-byte aligned) times `inv` (a `double`) at
/// element `base` of the 64-byte aligned `out` with streaming stores, in f32 lanes: `inv` split
/// into two floats `hi + lo` (within 2^-48 of it), each product `fma(e, hi, e * lo)`. That is
/// the f64 product rounded to f32 except, rarely, for results below 1e-32 (where `e * lo`
/// underflows: at most 1 ulp off, 0.2% of the results below 1e-38 in a 20M-value sweep) at a
/// third of the instructions of widening to f64 (11% of W4's time).
fn scale_out(k: &mut Kernel, scratch: &Val, out: &Val, base: &Val, len: i64, inv: &Val) -> R<()> {
    let hi = k.f.emit("float", format!("fptrunc double {inv} to float"));
    let hd = k.f.emit("double", format!("fpext float {hi} to double"));
    let lo = k.f.emit("double", format!("fsub double {inv}, {hd}"));
    let lo = k.f.emit("float", format!("fptrunc double {lo} to float"));
    let (hi, lo) = (k.f.splat(VF, LANES, &hi), k.f.splat(VF, LANES, &lo));
    k.m.declare(
        "llvm.fma.v16f32",
        "declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)",
    );
    let md = k.m.nontemporal_md();
    rolled(k, |k| {
        k.for_range(&Val::i64(0), &Val::i64(len / LANES), |k, c| {
            let j = k.f.mul(c, &Val::i64(LANES));
            let e = load_lanes(k, scratch, &j, 16);
            let l = k.f.emit(VF, format!("fmul {VF} {e}, {lo}"));
            let y =
                k.f.emit(VF, format!("call {VF} @llvm.fma.v16f32({VF} {e}, {VF} {hi}, {VF} {l})"));
            let i = k.f.add(base, &j);
            let q = k.f.gep("float", out, &i);
            k.f.raw(format!("store {VF} {y}, ptr {q}, align 64, !nontemporal {md}"));
            Ok(())
        })
    })
}

/// `tensor.softmax` over the rows of a contiguous f32 `x` (no producer) into the f32 `out`, rows
/// of a static `len` ([`streaming_rows`]). Per row: the maximum (vector loop, [`row_max`]); then
/// in blocks of up to 256 elements one vector loop ([`block_sum`]) that computes `exp(x - max)`
/// as 16-lane code ([`math::exp_nonpositive`] over [`MathBuilder::vector`]: nothing left for
/// LLVM's loop vectorizer, less for LLVM to compile), stores it into a row of scratch on the
/// stack (in L1), sums it (added into 16 f64 lanes per block) and prefetches the block's
/// columns of the next row (one line per 16 lanes: the read of the next row overlaps this row's
/// exponentials); then the scratch times `1 / sum` written with streaming stores
/// ([`scale_out`]). The same operations as the general path of [`super::reduce`] but for the
/// order and the f32 partial sums of each block, and the f32 scaling. (Computing row `r` while
/// writing row `r - 1` in the same loop was slower: two scratch rows and the prefetched row
/// overflow a 32 KB L1.)
pub fn softmax_stream(fl: &mut FunctionLowering, x: &TensorVal, out: &TensorVal, len: i64) -> R<Vec<Slot>> {
    let r = x.rank();
    let rows = fl.f.product(&x.dims[..r - 1]);
    let n = x.numel(&mut fl.f);
    let grain = grain_rows(&mut fl.f, &Val::i64(len));
    let mut k = fl.kernel("softmax");
    let (kx, ko) = (k.tensor(x), k.tensor(out));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let scratch = k.f.alloca("float", len as usize);
    let block = divisor(len, &[256, 128, 64, 32, 16]);
    k.for_range(&lo, &hi, |k, row| {
        let base = k.f.mul(row, &Val::i64(len));
        let m = row_max(k, &kx.ptr, &base, len)?;
        let ms = k.f.splat(VF, LANES, &m);
        let zero = Val::new("<16 x double>", "zeroinitializer");
        let sum = k.for_acc(&Val::i64(0), &Val::i64(len / block), &[zero], |k, b, acc| {
            let j0 = k.f.mul(b, &Val::i64(block));
            let e = block_sum(k, &j0, block, |k, j| {
                let i = k.f.add(&base, j);
                let v = load_lanes(k, &kx.ptr, &i, 4);
                let d = k.f.emit(VF, format!("fsub {VF} {v}, {ms}"));
                let e = math::exp_nonpositive(&mut MathBuilder::vector(&mut k.m, &mut k.f), &d);
                let q = k.f.gep("float", &scratch, j);
                k.f.raw(format!("store {VF} {e}, ptr {q}, align 16"));
                prefetch_next_row(k, &kx.ptr, &i, len);
                e
            })?;
            Ok(vec![k
                .f
                .emit("<16 x double>", format!("fadd <16 x double> {}, {e}", acc[0]))])
        })?;
        k.m.declare(
            "llvm.vector.reduce.fadd.v16f64",
            "declare double @llvm.vector.reduce.fadd.v16f64(double, <16 x double>)",
        );
        let s = k.f.emit(
            "double",
            format!(
                "call reassoc double @llvm.vector.reduce.fadd.v16f64(double 0.0, <16 x double> {})",
                sum[0]
            ),
        );
        let inv = k.f.emit("double", format!("fdiv double 1.0, {s}"));
        scale_out(k, &scratch, &ko.ptr, &base, len, &inv)
    })?;
    end_streaming(&mut k);
    fl.launch(k, &rows, &grain, &n)?;
    Ok(vec![Slot::Tensor(out.clone())])
}
