//! Reductions and row ops: `tensor.reduce` (one output element per kernel iteration, nested
//! loops over the reduced dims in row-major order), `tensor.softmax` (three passes over each
//! row: max, sum of exponentials, normalize) and `tensor.layer_norm` (two passes: mean, then
//! variance, then the normalized row). Floats accumulate in f64 and round once, integers in i64
//! (wrapping; `mean` sums exactly in i128), exactly as the interpreter. The row is read from
//! memory once (later passes find it in L1); large f32 outputs are written once, with streaming
//! (non-temporal) stores ([`streaming_rows`]), while the next row is prefetched; a large f32
//! softmax read straight from its operand is [`super::rowwise::softmax_stream`].

use xcs_dialects::interp::ElemType;

use super::math::{self, MathBuilder};
use super::rowwise::{
    end_streaming, load_lanes_f64, prefetch_next_row, rolled, softmax_stream, splat_f64, stream_lanes, streaming_rows, LANES,
};
use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::{grain_rows, offset, unflatten};
use crate::codegen::types::{comp_to_f64, int_to_i64, load_elem};
use crate::codegen::{check_result_dims, FunctionLowering, Kernel, LowerFn, OpSite, RunTimeCheck, Slot, TensorVal, R};

pub static REDUCE: LowerFn = LowerFn(reduce);
pub static SOFTMAX: LowerFn = LowerFn(softmax);
pub static LAYER_NORM: LowerFn = LowerFn(layer_norm);

fn declare_f64(k: &mut Kernel, name: &str, nargs: usize) -> String {
    let full = format!("llvm.{name}.f64");
    let params = vec!["double"; nargs].join(", ");
    k.m.declare(&full, &format!("declare double @{full}({params})"));
    full
}

/// The accumulator's initial value.
fn reduce_init(int: bool, kind: &str) -> Val {
    match (int, kind) {
        (false, "max") => Val::f64(f64::NEG_INFINITY),
        (false, "min") => Val::f64(f64::INFINITY),
        (false, "prod") => Val::f64(1.0),
        (false, _) => Val::f64(0.0),
        (true, "max") => Val::i64(i64::MIN),
        (true, "min") => Val::i64(i64::MAX),
        (true, "prod") => Val::i64(1),
        (true, "mean") => Val::new("i128", "0"),
        (true, _) => Val::i64(0),
    }
}

/// `acc op v` for one loaded element `v` (compute type). `reassoc` marks float sums/products
/// as reorderable so that LLVM vectorizes the loop (several partial accumulators).
fn reduce_step(k: &mut Kernel, kind: &str, elem: ElemType, a: &Val, v: &Val, reassoc: bool) -> Val {
    let fl = if reassoc { "reassoc " } else { "" };
    if elem.is_float() {
        let d = comp_to_f64(&mut k.f, elem, v);
        match kind {
            "max" => {
                let n = declare_f64(k, "maximum", 2);
                k.f.emit("double", format!("call double @{n}(double {a}, double {d})"))
            }
            "min" => {
                let n = declare_f64(k, "minimum", 2);
                k.f.emit("double", format!("call double @{n}(double {a}, double {d})"))
            }
            "prod" => k.f.emit("double", format!("fmul {fl}double {a}, {d}")),
            _ => k.f.emit("double", format!("fadd {fl}double {a}, {d}")),
        }
    } else {
        let w = int_to_i64(&mut k.f, elem, v);
        match kind {
            "max" => k.f.emit("i64", format!("call i64 @llvm.smax.i64(i64 {a}, i64 {w})")),
            "min" => k.f.emit("i64", format!("call i64 @llvm.smin.i64(i64 {a}, i64 {w})")),
            "prod" => k.f.emit("i64", format!("mul i64 {a}, {w}")),
            "mean" => {
                let wide = k.f.emit("i128", format!("sext i64 {w} to i128"));
                k.f.emit("i128", format!("add i128 {a}, {wide}"))
            }
            _ => k.f.emit("i64", format!("add i64 {a}, {w}")),
        }
    }
}

/// The final value of an accumulator (`mean` divides by the reduced count `krlen`).
fn reduce_finish(k: &mut Kernel, kind: &str, int: bool, a: &Val, krlen: &Val) -> Val {
    if kind != "mean" {
        return a.clone();
    }
    if int {
        let lo64 = k.f.emit("i64", format!("trunc i128 {a} to i64"));
        let sh = k.f.emit("i128", format!("ashr i128 {a}, 64"));
        let hi64 = k.f.emit("i64", format!("trunc i128 {sh} to i64"));
        k.f.emit(
            "i64",
            format!("call i64 @xcs_rt_div_i128(i64 {hi64}, i64 {lo64}, i64 {krlen})"),
        )
    } else {
        let c = k.f.emit("double", format!("sitofp i64 {krlen} to double"));
        k.f.emit("double", format!("fdiv double {a}, {c}"))
    }
}

/// Columns per block of the outer-axes reduction (accumulators kept on the stack).
const REDUCE_BLOCK: i64 = 256;

/// A reduction-like op's data operand computed per element instead of read from a buffer: the
/// elementwise prologue of a `tensor.fused` region (`ops/fused.rs`). `eval` maps the `leaves`'
/// values at a flat row-major index (one-element leaves at index 0) to the element's value.
#[derive(Clone, Copy)]
pub struct Producer<'a> {
    pub leaves: &'a [TensorVal],
    pub eval: &'a dyn Fn(&mut Kernel, &[Val]) -> R<Vec<Val>>,
}

/// A reduction-like op's lowering with its data operand `x` (the op's operand, or a
/// producer's virtual contiguous tensor) read through an optional [`Producer`].
pub type FromProducer = fn(&mut FunctionLowering, &OpSite, TensorVal, Option<Producer>) -> R<Vec<Slot>>;

/// The data operand inside a kernel: a captured tensor, or a producer and its captured leaves.
struct XIn<'a> {
    elem: ElemType,
    t: TensorVal,
    prod: Option<(Producer<'a>, Vec<TensorVal>)>,
}

impl<'a> XIn<'a> {
    fn new(k: &mut Kernel, x: &TensorVal, prod: Option<Producer<'a>>) -> XIn<'a> {
        let prod = prod.map(|p| (p, p.leaves.iter().map(|l| k.tensor(l)).collect()));
        let t = if prod.is_some() { x.clone() } else { k.tensor(x) };
        XIn { elem: x.elem, t, prod }
    }
    /// The element at flat offset `off` of the (contiguous, when a producer) operand, in memory
    /// representation (as `load_elem` gives it).
    fn load(&self, k: &mut Kernel, off: &Val) -> R<Val> {
        let Some((p, leaves)) = &self.prod else {
            return Ok(load_elem(&mut k.f, self.elem, &self.t.ptr, off));
        };
        let zero = Val::i64(0);
        let vals: Vec<Val> = leaves
            .iter()
            .map(|l| {
                let one = l.dims.iter().all(|d| d.as_i64() == Some(1));
                load_elem(&mut k.f, l.elem, &l.ptr, if one { &zero } else { off })
            })
            .collect();
        Ok((p.eval)(k, &vals)?.remove(0))
    }
    /// The element as f64 (or the wide accumulator type's value for floats).
    fn load_f64(&self, k: &mut Kernel, off: &Val) -> R<Val> {
        let v = self.load(k, off)?;
        Ok(comp_to_f64(&mut k.f, self.elem, &v))
    }
}

pub fn reduce(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    reduce_from(fl, o, x, None)
}

/// `tensor.reduce` of `x` (the op's operand, or a producer's virtual contiguous tensor).
pub fn reduce_from(fl: &mut FunctionLowering, o: &OpSite, x: TensorVal, prod: Option<Producer>) -> R<Vec<Slot>> {
    let kind = o.str(fl, "kind")?;
    if !matches!(kind, "sum" | "max" | "min" | "mean" | "prod") {
        return Err(o.err(&format!("unknown reduction kind \"{kind}\"")));
    }
    let keep = o.bool(fl, "keepdims")?;
    let axes = xcs_dialects::tensor::reduce_axes(&o.i64s(fl, "axes")?, x.rank()).map_err(|e| o.err(&e))?;
    if !x.elem.is_numeric() {
        return Err(o.err(&format!("element type {} is not supported by this op", x.elem)));
    }
    let kept: Vec<usize> = (0..x.rank()).filter(|d| !axes.contains(d)).collect();
    let kdims: Vec<Val> = kept.iter().map(|&d| x.dims[d].clone()).collect();
    let kstr: Vec<Val> = kept.iter().map(|&d| x.strides[d].clone()).collect();
    let rdims: Vec<Val> = axes.iter().map(|&d| x.dims[d].clone()).collect();
    let rstr: Vec<Val> = axes.iter().map(|&d| x.strides[d].clone()).collect();
    let out_dims: Vec<Val> = (0..x.rank())
        .filter_map(|d| {
            if axes.contains(&d) {
                keep.then(|| Val::i64(1))
            } else {
                Some(x.dims[d].clone())
            }
        })
        .collect();
    let (rd, relem) = o.result(fl, 0)?;
    let out_dims = check_result_dims(fl, o, out_dims, &rd)?;
    let rows = fl.f.product(&kdims);
    let rlen = fl.f.product(&rdims);
    let empty = fl.f.icmp("eq", &rlen, &Val::i64(0));
    if matches!(kind, "max" | "min") {
        let msg = o.msg(
            fl,
            &format!("'{kind}' reduction of an empty axis (zero-size array has no identity)"),
        );
        fl.fail_if(&empty, o.site, &msg);
    }
    let int = !x.elem.is_float();
    if int && kind == "mean" {
        let some = fl.f.icmp("sgt", &rows, &Val::i64(0));
        let bad = fl.f.and(&empty, &some);
        let msg = o.msg(fl, "integer 'mean' of an empty axis divides by zero");
        fl.fail_if(&bad, o.site, &msg);
    }
    let out = fl.new_tensor(relem, &out_dims)?;
    let n = x.numel(&mut fl.f);
    let elem = x.elem;
    let r = x.rank();
    let na = axes.len();
    // Reduced axes innermost (trailing) in a contiguous input: each output element reduces one
    // contiguous run of `rlen` elements, vectorized. Float sums/products of non-f64 inputs are
    // reassociated (f64 accumulation keeps them far inside the f32 tolerance); f64 inputs keep
    // the sequential order; max/min/integers are order-independent anyway.
    let inner = x.contiguous && na > 0 && axes.iter().enumerate().all(|(i, &a)| a == r - na + i);
    // Reduced axes outermost (leading), kept axes trailing: accumulate input rows into a block
    // of output columns (sequential order per output element, vectorized across columns).
    let outer = x.contiguous && na > 0 && na < r && axes.iter().enumerate().all(|(i, &a)| a == i);
    if outer && !inner {
        reduce_columns(fl, &x, prod, &out, kind, &rows, &rlen, &n)?;
        return Ok(vec![Slot::Tensor(out)]);
    }
    let grain = grain_rows(&mut fl.f, &rlen);
    let mut k = fl.kernel("reduce");
    let kx = XIn::new(&mut k, &x, prod);
    let ko = k.tensor(&out);
    let (kkd, kks) = (k.cap_all(&kdims), k.cap_all(&kstr));
    let (krd, krs) = (k.cap_all(&rdims), k.cap_all(&rstr));
    let krlen = k.cap(&rlen);
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let reassoc = !int && elem != ElemType::F64 && matches!(kind, "sum" | "mean" | "prod");
    k.for_range(&lo, &hi, |k, row| {
        let init = reduce_init(int, kind);
        let acc = if inner {
            let base = k.f.mul(row, &krlen);
            k.for_acc(&Val::i64(0), &krlen, &[init], |k, j, acc| {
                let off = k.f.add(&base, j);
                let v = kx.load(k, &off)?;
                Ok(vec![reduce_step(k, kind, elem, &acc[0], &v, reassoc)])
            })?
        } else {
            let idx = unflatten(&mut k.f, row, &kkd);
            let base = offset(&mut k.f, &idx, &kks);
            k.nest_acc(&krd, &[init], &mut |k, ridx, acc| {
                let r = offset(&mut k.f, ridx, &krs);
                let off = k.f.add(&base, &r);
                let v = kx.load(k, &off)?;
                Ok(vec![reduce_step(k, kind, elem, &acc[0], &v, false)])
            })?
        };
        let a = reduce_finish(k, kind, int, &acc[0], &krlen);
        k.store_acc(&ko, row, &a);
        Ok(())
    })?;
    k.m.declare("llvm.smax.i64", "declare i64 @llvm.smax.i64(i64, i64)");
    k.m.declare("llvm.smin.i64", "declare i64 @llvm.smin.i64(i64, i64)");
    k.m.declare("xcs_rt_div_i128", "declare i64 @xcs_rt_div_i128(i64, i64, i64)");
    fl.launch(k, &rows, &grain, &n)?;
    Ok(vec![Slot::Tensor(out)])
}

/// `tensor.reduce` of a contiguous `x` over its leading axes (`rows` kept elements, each the
/// reduction of `rlen` input rows) into `out`: the kept elements in blocks of REDUCE_BLOCK
/// columns with their accumulators on the stack, each input row segment added into the block
/// (sequential order per output element, vectorized across columns).
#[allow(clippy::too_many_arguments)]
fn reduce_columns(
    fl: &mut FunctionLowering,
    x: &TensorVal,
    prod: Option<Producer>,
    out: &TensorVal,
    kind: &str,
    rows: &Val,
    rlen: &Val,
    n: &Val,
) -> R<()> {
    let (elem, int) = (x.elem, !x.elem.is_float());
    let nblk = {
        let t = fl.f.add(rows, &Val::i64(REDUCE_BLOCK - 1));
        fl.f.div(&t, &Val::i64(REDUCE_BLOCK))
    };
    let work = fl.f.mul(rlen, &Val::i64(REDUCE_BLOCK));
    let grain = grain_rows(&mut fl.f, &work);
    let mut k = fl.kernel("reduce_cols");
    let (kx, ko) = (XIn::new(&mut k, x, prod), k.tensor(out));
    let (kk, krlen) = (k.cap(rows), k.cap(rlen));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let init = reduce_init(int, kind);
    let aty = init.ty;
    let accp = k.f.alloca(aty, REDUCE_BLOCK as usize);
    k.for_range(&lo, &hi, |k, blk| {
        let c0 = k.f.mul(blk, &Val::i64(REDUCE_BLOCK));
        let rest = k.f.sub(&kk, &c0);
        let lt = k.f.icmp("slt", &rest, &Val::i64(REDUCE_BLOCK));
        let w = k.f.select(&lt, &rest, &Val::i64(REDUCE_BLOCK));
        k.for_range(&Val::i64(0), &w, |k, c| {
            let p = k.f.gep(aty, &accp, c);
            k.f.store(&init, &p);
            Ok(())
        })?;
        k.for_range(&Val::i64(0), &krlen, |k, ri| {
            let rb = k.f.mul(ri, &kk);
            let rb = k.f.add(&rb, &c0);
            k.for_range(&Val::i64(0), &w, |k, c| {
                let off = k.f.add(&rb, c);
                let v = kx.load(k, &off)?;
                let p = k.f.gep(aty, &accp, c);
                let a = k.f.load(aty, &p);
                let nx = reduce_step(k, kind, elem, &a, &v, false);
                k.f.store(&nx, &p);
                Ok(())
            })
        })?;
        k.for_range(&Val::i64(0), &w, |k, c| {
            let p = k.f.gep(aty, &accp, c);
            let a = k.f.load(aty, &p);
            let a = reduce_finish(k, kind, int, &a, &krlen);
            let oi = k.f.add(&c0, c);
            k.store_acc(&ko, &oi, &a);
            Ok(())
        })
    })?;
    k.m.declare("llvm.smax.i64", "declare i64 @llvm.smax.i64(i64, i64)");
    k.m.declare("llvm.smin.i64", "declare i64 @llvm.smin.i64(i64, i64)");
    k.m.declare("xcs_rt_div_i128", "declare i64 @xcs_rt_div_i128(i64, i64, i64)");
    fl.launch(k, &nblk, &grain, n)
}

pub fn softmax(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    softmax_from(fl, o, x, None)
}

/// `tensor.softmax` of `x` (the op's operand, or a producer's virtual contiguous tensor).
pub fn softmax_from(fl: &mut FunctionLowering, o: &OpSite, x: TensorVal, prod: Option<Producer>) -> R<Vec<Slot>> {
    if !x.elem.is_float() {
        return Err(o.err(&format!("element type {} is not supported by this op", x.elem)));
    }
    let axis = xcs_dialects::shape::norm_axis(o.i64(fl, "axis")?, x.rank()).map_err(|e| o.err(&e))?;
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, x.dims.clone(), &rd)?;
    if axis + 1 == x.rank() && x.elem != ElemType::F64 {
        return softmax_rows(fl, &x, prod, relem, &dims);
    }
    let out = fl.new_tensor(relem, &dims)?;
    let other: Vec<usize> = (0..x.rank()).filter(|&d| d != axis).collect();
    let odims: Vec<Val> = other.iter().map(|&d| x.dims[d].clone()).collect();
    let xs: Vec<Val> = other.iter().map(|&d| x.strides[d].clone()).collect();
    let os: Vec<Val> = other.iter().map(|&d| out.strides[d].clone()).collect();
    let rows = fl.f.product(&odims);
    let len = x.dims[axis].clone();
    let n = x.numel(&mut fl.f);
    let grain = grain_rows(&mut fl.f, &len);
    let mut k = fl.kernel("softmax");
    let (kx, ko) = (XIn::new(&mut k, &x, prod), k.tensor(&out));
    let (kod, kxs, kos) = (k.cap_all(&odims), k.cap_all(&xs), k.cap_all(&os));
    let (klen, sx, so) = (k.cap(&len), k.cap(&x.strides[axis]), k.cap(&out.strides[axis]));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let max = declare_f64(&mut k, "maximum", 2);
    let exp = declare_f64(&mut k, "exp", 1);
    k.for_range(&lo, &hi, |k, row| {
        let idx = unflatten(&mut k.f, row, &kod);
        let bx = offset(&mut k.f, &idx, &kxs);
        let bo = offset(&mut k.f, &idx, &kos);
        let load = |k: &mut Kernel, j: &Val| {
            let t = k.f.mul(j, &sx);
            let off = k.f.add(&bx, &t);
            kx.load_f64(k, &off)
        };
        let m = k.for_acc(&Val::i64(0), &klen, &[Val::f64(f64::NEG_INFINITY)], |k, j, a| {
            let v = load(k, j)?;
            Ok(vec![k.f.emit(
                "double",
                format!("call double @{max}(double {}, double {v})", a[0]),
            )])
        })?[0]
            .clone();
        let s = k.for_acc(&Val::i64(0), &klen, &[Val::f64(0.0)], |k, j, a| {
            let v = load(k, j)?;
            let d = k.f.emit("double", format!("fsub double {v}, {m}"));
            let e = k.f.emit("double", format!("call double @{exp}(double {d})"));
            Ok(vec![k.f.emit("double", format!("fadd double {}, {e}", a[0]))])
        })?[0]
            .clone();
        k.for_range(&Val::i64(0), &klen, |k, j| {
            let v = load(k, j)?;
            let d = k.f.emit("double", format!("fsub double {v}, {m}"));
            let e = k.f.emit("double", format!("call double @{exp}(double {d})"));
            let y = k.f.emit("double", format!("fdiv double {e}, {s}"));
            let t = k.f.mul(j, &so);
            let off = k.f.add(&bo, &t);
            k.store_acc(&ko, &off, &y);
            Ok(())
        })
    })?;
    fl.launch(k, &rows, &grain, &n)?;
    Ok(vec![Slot::Tensor(out)])
}

/// Softmax over the innermost axis of an f16/bf16/f32 tensor (made contiguous), vectorized:
/// per row a max pass (f32 `llvm.maximum`, which propagates a NaN as the interpreter's row does;
/// not `maxnum`: LLVM 22 vectorizes a `maxnum` reduction with an exit on NaN, and when it also
/// folds the tail of a short row, e.g. 5 or 8 elements after a GELU, drops the exit on the
/// trip count, so the loop never ends: found by the pass fuzzer), a pass
/// summing `exp(x - max)` (inline f32 `math::exp`) in f64 (reassociated, so in vector lanes),
/// and a pass storing `exp(x - max) * (1 / sum)` computed in f64 and rounded once (f32 results
/// keep `exp(x - max)` in the output from the sum pass; f16/bf16 recompute it). A large f32
/// softmax without a producer (streaming stores) is [`softmax_stream`]'s explicit vector loops.
fn softmax_rows(
    fl: &mut FunctionLowering,
    x: &TensorVal,
    prod: Option<Producer>,
    relem: ElemType,
    dims: &[Val],
) -> R<Vec<Slot>> {
    let x = fl.contiguous(x)?;
    let out = fl.new_tensor(relem, dims)?;
    let r = x.rank();
    let rows = fl.f.product(&x.dims[..r - 1]);
    let len = x.dims[r - 1].clone();
    let n = x.numel(&mut fl.f);
    let stream = streaming_rows(&len, &n, relem);
    if let (Some(l), None, ElemType::F32) = (stream, &prod, x.elem) {
        return softmax_stream(fl, &x, &out, l);
    }
    let grain = grain_rows(&mut fl.f, &len);
    let mut k = fl.kernel("softmax");
    let (kx, ko) = (XIn::new(&mut k, &x, prod), k.tensor(&out));
    let klen = k.cap(&len);
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    // streaming: exp(x - max) goes to a row of scratch (in L1), the output is written once
    let scratch = stream.map(|l| k.f.alloca("float", l as usize));
    k.m.declare("llvm.maximum.f32", "declare float @llvm.maximum.f32(float, float)");
    k.for_range(&lo, &hi, |k, row| {
        let base = k.f.mul(row, &klen);
        let load = |k: &mut Kernel, j: &Val| {
            let i = k.f.add(&base, j);
            kx.load(k, &i)
        };
        let m = k.for_acc(&Val::i64(0), &klen, &[Val::f32(f32::NEG_INFINITY)], |k, j, a| {
            let v = load(k, j)?;
            Ok(vec![k.f.emit(
                "float",
                format!("call float @llvm.maximum.f32(float {}, float {v})", a[0]),
            )])
        })?[0]
            .clone();
        let ex = |k: &mut Kernel, j: &Val| -> R<Val> {
            let v = load(k, j)?;
            let d = k.f.emit("float", format!("fsub float {v}, {m}"));
            Ok(math::exp(&mut MathBuilder::scalar(&mut k.m, &mut k.f), &d))
        };
        // f32 results: the sum pass stores exp(x - max) and the last pass scales it in place.
        let keep = ko.elem == ElemType::F32;
        let s = k.for_acc(&Val::i64(0), &klen, &[Val::f64(0.0)], |k, j, a| {
            let e = ex(k, j)?;
            if let Some(sc) = &scratch {
                let p = k.f.gep("float", sc, j);
                k.f.store(&e, &p);
            } else if keep {
                let i = k.f.add(&base, j);
                let p = k.f.gep("float", &ko.ptr, &i);
                k.f.store(&e, &p);
            }
            let e = k.f.emit("double", format!("fpext float {e} to double"));
            Ok(vec![k.f.emit("double", format!("fadd reassoc double {}, {e}", a[0]))])
        })?[0]
            .clone();
        let inv = k.f.emit("double", format!("fdiv double 1.0, {s}"));
        if let (Some(sc), Some(l)) = (&scratch, stream) {
            let inv = splat_f64(k, &inv);
            return k.for_range(&Val::i64(0), &Val::i64(l / LANES), |k, c| {
                let j = k.f.mul(c, &Val::i64(LANES));
                let e = load_lanes_f64(k, sc, &j, 16);
                let y = k.f.emit("<16 x double>", format!("fmul <16 x double> {e}, {inv}"));
                let i = k.f.add(&base, &j);
                stream_lanes(k, &ko.ptr, &i, &y);
                Ok(())
            });
        }
        k.for_range(&Val::i64(0), &klen, |k, j| {
            let e = if keep {
                let i = k.f.add(&base, j);
                let p = k.f.gep("float", &ko.ptr, &i);
                k.f.load("float", &p)
            } else {
                ex(k, j)?
            };
            let e = k.f.emit("double", format!("fpext float {e} to double"));
            let y = k.f.emit("double", format!("fmul double {e}, {inv}"));
            let i = k.f.add(&base, j);
            k.store_acc(&ko, &i, &y);
            Ok(())
        })
    })?;
    if stream.is_some() {
        end_streaming(&mut k);
    }
    fl.launch(k, &rows, &grain, &n)?;
    Ok(vec![Slot::Tensor(out)])
}

pub fn layer_norm(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    layer_norm_from(fl, o, x, None)
}

/// `tensor.layer_norm` of `x` (the op's operand, or a producer's virtual contiguous tensor).
pub fn layer_norm_from(fl: &mut FunctionLowering, o: &OpSite, x: TensorVal, prod: Option<Producer>) -> R<Vec<Slot>> {
    let (g, b) = (o.tensor(fl, 1)?, o.tensor(fl, 2)?);
    if !x.elem.is_float() {
        return Err(o.err(&format!("element type {} is not supported by this op", x.elem)));
    }
    let axis = xcs_dialects::shape::norm_axis(o.i64(fl, "axis")?, x.rank()).map_err(|e| o.err(&e))?;
    let norm = x.dims[axis..].to_vec();
    for (name, p) in [("gamma", &g), ("beta", &b)] {
        if p.rank() != norm.len() || p.elem != x.elem {
            return Err(o.err(&format!("{name} does not match the normalized dims")));
        }
        for (j, (a, c)) in p.dims.iter().zip(&norm).enumerate() {
            let bad = fl.f.icmp("ne", a, c);
            let msg = o.msg(
                fl,
                &format!("{name} has size %lld in dim {j}, but the normalized dim has %lld"),
            );
            fl.fail2_if(&bad, o.site, &msg, a, c);
        }
    }
    let eps = o.f64(fl, "epsilon")?;
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, x.dims.clone(), &rd)?;
    let x = fl.contiguous(&x)?;
    let g = fl.contiguous(&g)?;
    let b = fl.contiguous(&b)?;
    let out = fl.new_tensor(relem, &dims)?;
    let rows = fl.f.product(&x.dims[..axis]);
    let len = fl.f.product(&norm);
    let n = x.numel(&mut fl.f);
    let grain = grain_rows(&mut fl.f, &len);
    // streaming: an f32 row read directly (no producer), the output written once
    let stream = streaming_rows(&len, &n, relem).filter(|_| prod.is_none() && x.elem == ElemType::F32);
    let mut k = fl.kernel("layer_norm");
    let (kx, kg, kb, ko) = (XIn::new(&mut k, &x, prod), k.tensor(&g), k.tensor(&b), k.tensor(&out));
    let klen = k.cap(&len);
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let sqrt = declare_f64(&mut k, "sqrt", 1);
    k.for_range(&lo, &hi, |k, row| {
        let base = k.f.mul(row, &klen);
        let load = |k: &mut Kernel, t: &TensorVal, i: &Val| {
            let v = load_elem(&mut k.f, t.elem, &t.ptr, i);
            comp_to_f64(&mut k.f, t.elem, &v)
        };
        let cnt = k.f.emit("double", format!("sitofp i64 {klen} to double"));
        // One pass for the statistics: the sum and the sum of squares of x - x0 (x0 the row's
        // first element: the shifted-data algorithm, so a large mean does not cancel) in f64
        // with vector partial sums; var = E[d^2] - E[d]^2, clamped at 0 (constant rows). The
        // products are `contract`: `d*d + q` and `t*gamma + beta` become FMAs (one f64 rounding
        // fewer, far below the f32 result's; 13% of W5's time, which is compute-bound).
        let x0 = {
            // Empty rows read nothing (x may have no elements at all).
            let slot = k.f.alloca("double", 1);
            k.f.store(&Val::f64(0.0), &slot);
            let z = k.f.icmp("sgt", &klen, &Val::i64(0));
            let (rd, done) = (k.f.label("x0"), k.f.label("x0end"));
            k.f.condbr(&z, &rd, &done);
            k.f.start(&rd);
            let v = kx.load_f64(k, &base)?;
            k.f.store(&v, &slot);
            k.f.br(&done);
            k.f.start(&done);
            k.f.load("double", &slot)
        };
        let sq = k.for_acc(&Val::i64(0), &klen, &[Val::f64(0.0), Val::f64(0.0)], |k, j, a| {
            let i = k.f.add(&base, j);
            let v = kx.load_f64(k, &i)?;
            let d = k.f.emit("double", format!("fsub double {v}, {x0}"));
            let d2 = k.f.emit("double", format!("fmul contract double {d}, {d}"));
            let s = k.f.emit("double", format!("fadd reassoc double {}, {d}", a[0]));
            let q = k.f.emit("double", format!("fadd reassoc contract double {}, {d2}", a[1]));
            Ok(vec![s, q])
        })?;
        let (s, q) = (sq[0].clone(), sq[1].clone());
        let md = k.f.emit("double", format!("fdiv double {s}, {cnt}"));
        let mean = k.f.emit("double", format!("fadd double {x0}, {md}"));
        let ex2 = k.f.emit("double", format!("fdiv double {q}, {cnt}"));
        let m2 = k.f.emit("double", format!("fmul double {md}, {md}"));
        let var = k.f.emit("double", format!("fsub double {ex2}, {m2}"));
        let neg = k.f.emit("i1", format!("fcmp olt double {var}, 0.0"));
        let var = k.f.emit("double", format!("select i1 {neg}, double 0.0, double {var}"));
        let ve = k.f.emit("double", format!("fadd double {var}, {}", Val::f64(eps)));
        let sd = k.f.emit("double", format!("call double @{sqrt}(double {ve})"));
        let inv = k.f.emit("double", format!("fdiv double 1.0, {sd}"));
        if let Some(l) = stream {
            // the scalar loop below, 16 lanes at a time (the same operations; an FMA wherever LLVM
            // contracts one, so a result may differ from the scalar loop's in the last f64 bit)
            let (mean, inv) = (splat_f64(k, &mean), splat_f64(k, &inv));
            return rolled(k, |k| k.for_range(&Val::i64(0), &Val::i64(l / LANES), |k, c| {
                let j = k.f.mul(c, &Val::i64(LANES));
                let i = k.f.add(&base, &j);
                let v = load_lanes_f64(k, &kx.t.ptr, &i, 4);
                let gv = load_lanes_f64(k, &kg.ptr, &j, 4);
                let bv = load_lanes_f64(k, &kb.ptr, &j, 4);
                prefetch_next_row(k, &kx.t.ptr, &i, l);
                let d = k.f.emit("<16 x double>", format!("fsub <16 x double> {v}, {mean}"));
                let t = k.f.emit("<16 x double>", format!("fmul <16 x double> {d}, {inv}"));
                let t = k.f.emit("<16 x double>", format!("fmul contract <16 x double> {t}, {gv}"));
                let y = k.f.emit("<16 x double>", format!("fadd contract <16 x double> {t}, {bv}"));
                stream_lanes(k, &ko.ptr, &i, &y);
                Ok(())
            }));
        }
        k.for_range(&Val::i64(0), &klen, |k, j| {
            let i = k.f.add(&base, j);
            let v = kx.load_f64(k, &i)?;
            let gv = load(k, &kg, j);
            let bv = load(k, &kb, j);
            let d = k.f.emit("double", format!("fsub double {v}, {mean}"));
            let t = k.f.emit("double", format!("fmul double {d}, {inv}"));
            let t = k.f.emit("double", format!("fmul contract double {t}, {gv}"));
            let y = k.f.emit("double", format!("fadd contract double {t}, {bv}"));
            k.store_acc(&ko, &i, &y);
            Ok(())
        })
    })?;
    if stream.is_some() {
        end_streaming(&mut k);
    }
    fl.launch(k, &rows, &grain, &n)?;
    Ok(vec![Slot::Tensor(out)])
}
