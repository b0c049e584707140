//! Elementwise ops (binary, unary, gelu, cmp, select, cast) and the loop nests every
//! elementwise kernel uses ([`ew_launch`]): a flat loop over the elements when every operand is
//! contiguous and has the output's sizes (checked at run time, folded for static shapes), else a
//! strided nest (rows of the output, an inner loop over its last dim) with broadcast strides
//! (0 for a broadcast dim). Element semantics are the interpreter's (see `interp::tensor_ops`).

use xcs_dialects::interp::ElemType;

use super::{check_result_dims, OpCx};
use crate::codegen::{FnLower, Kernel, Slot, TV};
use crate::ir::{FnB, ModB, Val, R};
use crate::types::{cast, comp_ty, elem_size, int_bits, load_elem, round_trip, store_elem};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Un {
    Neg,
    Abs,
    Relu,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Silu,
    Sqrt,
    Rsqrt,
    GeluErf,
    GeluTanh,
}

/// One elementwise op: what it computes on its operands' elements.
#[derive(Clone, Debug, PartialEq)]
pub enum EwOp {
    Bin(Bin),
    Un(Un),
    /// `tensor.cmp` with its predicate.
    Cmp(String),
    Select,
    /// `tensor.cast` to this element type.
    Cast(ElemType),
}

impl EwOp {
    /// The elementwise op `o` is, if it is one.
    pub fn parse(fl: &FnLower, o: &OpCx) -> R<Option<EwOp>> {
        Ok(Some(match o.name {
            "tensor.add" => EwOp::Bin(Bin::Add),
            "tensor.sub" => EwOp::Bin(Bin::Sub),
            "tensor.mul" => EwOp::Bin(Bin::Mul),
            "tensor.div" => EwOp::Bin(Bin::Div),
            "tensor.max" => EwOp::Bin(Bin::Max),
            "tensor.min" => EwOp::Bin(Bin::Min),
            "tensor.pow" => EwOp::Bin(Bin::Pow),
            "tensor.neg" => EwOp::Un(Un::Neg),
            "tensor.abs" => EwOp::Un(Un::Abs),
            "tensor.relu" => EwOp::Un(Un::Relu),
            "tensor.exp" => EwOp::Un(Un::Exp),
            "tensor.log" => EwOp::Un(Un::Log),
            "tensor.tanh" => EwOp::Un(Un::Tanh),
            "tensor.sigmoid" => EwOp::Un(Un::Sigmoid),
            "tensor.silu" => EwOp::Un(Un::Silu),
            "tensor.sqrt" => EwOp::Un(Un::Sqrt),
            "tensor.rsqrt" => EwOp::Un(Un::Rsqrt),
            "tensor.gelu" => match o.str(fl, "approximate")? {
                "none" => EwOp::Un(Un::GeluErf),
                "tanh" => EwOp::Un(Un::GeluTanh),
                other => return Err(o.err(&format!("unknown approximate mode \"{other}\""))),
            },
            "tensor.cmp" => {
                let p = o.str(fl, "predicate")?;
                if !matches!(p, "eq" | "ne" | "lt" | "le" | "gt" | "ge") {
                    return Err(o.err(&format!("unknown predicate \"{p}\"")));
                }
                EwOp::Cmp(p.to_string())
            }
            "tensor.select" => EwOp::Select,
            "tensor.cast" => EwOp::Cast(o.result(fl, 0)?.1),
            _ => return Ok(None),
        }))
    }

    pub fn arity(&self) -> usize {
        match self {
            EwOp::Bin(_) | EwOp::Cmp(_) => 2,
            EwOp::Select => 3,
            EwOp::Un(_) | EwOp::Cast(_) => 1,
        }
    }
}

/// Run-time error messages of one elementwise op (full messages, see `Cx::msg`).
#[derive(Clone, Debug, Default)]
pub struct EwMsgs {
    pub div0: String,
    pub neg_pow: String,
}

impl EwMsgs {
    pub fn new(fl: &FnLower, o: &OpCx) -> EwMsgs {
        EwMsgs {
            div0: o.msg(fl, "integer division by zero"),
            neg_pow: o.msg(fl, "integer power with a negative exponent (%lld ** %lld)"),
        }
    }
}

/// `llvm.NAME.SUFFIX` of `args` with result type `ty` (`float`, `double` or `<16 x float>`,
/// declared once per module).
pub(super) fn intrinsic(m: &mut ModB, f: &mut FnB, name: &str, ty: &'static str, args: &[&Val]) -> Val {
    let suffix = match ty {
        "float" => "f32",
        "double" => "f64",
        "<16 x float>" => "v16f32",
        t => t,
    };
    let full = format!("llvm.{name}.{suffix}");
    let params: Vec<&str> = args.iter().map(|a| a.ty).collect();
    m.declare(&full, &format!("declare {ty} @{full}({})", params.join(", ")));
    let a: Vec<String> = args.iter().map(|a| a.t()).collect();
    f.emit(ty, format!("call {ty} @{full}({})", a.join(", ")))
}

fn fconst(ty: &'static str, x: f64) -> Val {
    Val::float(ty, x)
}

/// Float unary math in compute type `ty` (`float` or `double`), as the interpreter writes it.
fn float_un(m: &mut ModB, f: &mut FnB, op: Un, x: &Val) -> Val {
    let ty = x.ty;
    if ty == "float" {
        // Vectorizable inline f32 math (see `math`).
        let mb = &mut super::math::Mb::scalar(m, f);
        match op {
            Un::Exp => return super::math::exp(mb, x),
            Un::Log => return super::math::log(mb, x),
            Un::Tanh => return super::math::tanh(mb, x),
            Un::Sigmoid => return super::math::sigmoid(mb, x),
            Un::Silu => {
                let s = super::math::sigmoid(mb, x);
                return mb.f.emit(ty, format!("fmul {ty} {x}, {s}"));
            }
            Un::GeluTanh => return super::math::gelu_tanh(mb, x),
            Un::GeluErf => return super::math::gelu_erf(mb, x),
            _ => {}
        }
    }
    let one = fconst(ty, 1.0);
    let sigmoid = |m: &mut ModB, f: &mut FnB, x: &Val| {
        let n = f.emit(ty, format!("fneg {ty} {x}"));
        let e = intrinsic(m, f, "exp", ty, &[&n]);
        let d = f.emit(ty, format!("fadd {ty} {one}, {e}"));
        f.emit(ty, format!("fdiv {ty} {one}, {d}"))
    };
    match op {
        Un::Neg => f.emit(ty, format!("fneg {ty} {x}")),
        Un::Abs => intrinsic(m, f, "fabs", ty, &[x]),
        Un::Relu => {
            let c = f.emit("i1", format!("fcmp ugt {ty} {x}, 0.0"));
            f.emit(ty, format!("select i1 {c}, {ty} {x}, {ty} 0.0"))
        }
        Un::Exp => intrinsic(m, f, "exp", ty, &[x]),
        Un::Log => intrinsic(m, f, "log", ty, &[x]),
        Un::Tanh => intrinsic(m, f, "tanh", ty, &[x]),
        Un::Sigmoid => sigmoid(m, f, x),
        Un::Silu => {
            let s = sigmoid(m, f, x);
            f.emit(ty, format!("fmul {ty} {x}, {s}"))
        }
        Un::Sqrt => intrinsic(m, f, "sqrt", ty, &[x]),
        Un::Rsqrt => {
            let s = intrinsic(m, f, "sqrt", ty, &[x]);
            f.emit(ty, format!("fdiv {ty} {one}, {s}"))
        }
        Un::GeluErf => {
            // 0.5 * x * erfc(-x / sqrt(2)) (no cancellation for negative x), as the interpreter.
            let a = f.emit(ty, format!("fmul {ty} {}, {x}", fconst(ty, 0.5)));
            let b = f.emit(ty, format!("fdiv {ty} {x}, {}", fconst(ty, -std::f64::consts::SQRT_2)));
            let erfc = if ty == "float" { "erfcf" } else { "erfc" };
            m.declare(erfc, &format!("declare {ty} @{erfc}({ty})"));
            let e = f.emit(ty, format!("call {ty} @{erfc}({ty} {b})"));
            f.emit(ty, format!("fmul {ty} {a}, {e}"))
        }
        Un::GeluTanh => {
            // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x * x * x)))
            let a = f.emit(ty, format!("fmul {ty} {}, {x}", fconst(ty, 0.5)));
            let p1 = f.emit(ty, format!("fmul {ty} {}, {x}", fconst(ty, 0.044715)));
            let p2 = f.emit(ty, format!("fmul {ty} {p1}, {x}"));
            let p3 = f.emit(ty, format!("fmul {ty} {p2}, {x}"));
            let s = f.emit(ty, format!("fadd {ty} {x}, {p3}"));
            let k = fconst(ty, (2.0 / std::f64::consts::PI).sqrt());
            let t = f.emit(ty, format!("fmul {ty} {k}, {s}"));
            let th = intrinsic(m, f, "tanh", ty, &[&t]);
            let c = f.emit(ty, format!("fadd {ty} {one}, {th}"));
            f.emit(ty, format!("fmul {ty} {a}, {c}"))
        }
    }
}

/// Computes `op` on compute values `args` of operand element types `ins`; the result is the
/// compute value of element type `out`, rounded to it (f16/bf16).
pub fn eval(k: &mut Kernel, site: i32, msgs: &EwMsgs, op: &EwOp, ins: &[ElemType], out: ElemType, args: &[Val]) -> R<Val> {
    let e = ins[0];
    let r = match op {
        EwOp::Bin(b) if e.is_float() => {
            let ty = comp_ty(e);
            let (x, y) = (&args[0], &args[1]);
            match b {
                Bin::Add => k.f.emit(ty, format!("fadd {ty} {x}, {y}")),
                Bin::Sub => k.f.emit(ty, format!("fsub {ty} {x}, {y}")),
                Bin::Mul => k.f.emit(ty, format!("fmul {ty} {x}, {y}")),
                Bin::Div => k.f.emit(ty, format!("fdiv {ty} {x}, {y}")),
                Bin::Max => intrinsic(&mut k.m, &mut k.f, "maximum", ty, &[x, y]),
                Bin::Min => intrinsic(&mut k.m, &mut k.f, "minimum", ty, &[x, y]),
                Bin::Pow if ty == "float" => super::math::pow_call(&mut k.m, &mut k.f, x, y),
                Bin::Pow => intrinsic(&mut k.m, &mut k.f, "pow", ty, &[x, y]),
            }
        }
        EwOp::Bin(b) => {
            let ty = comp_ty(e);
            let (x, y) = (&args[0], &args[1]);
            match b {
                Bin::Add => k.f.emit(ty, format!("add {ty} {x}, {y}")),
                Bin::Sub => k.f.emit(ty, format!("sub {ty} {x}, {y}")),
                Bin::Mul => k.f.emit(ty, format!("mul {ty} {x}, {y}")),
                Bin::Div => {
                    let z = k.f.emit("i1", format!("icmp eq {ty} {y}, 0"));
                    k.fail_if(&z, site, &msgs.div0);
                    // x / -1 is -x (wrapping), so INT_MIN / -1 is INT_MIN and never traps.
                    let m1 = k.f.emit("i1", format!("icmp eq {ty} {y}, -1"));
                    let safe = k.f.emit(ty, format!("select i1 {m1}, {ty} 1, {ty} {y}"));
                    let q = k.f.emit(ty, format!("sdiv {ty} {x}, {safe}"));
                    let n = k.f.emit(ty, format!("sub {ty} 0, {x}"));
                    k.f.emit(ty, format!("select i1 {m1}, {ty} {n}, {ty} {q}"))
                }
                Bin::Max => intrinsic(&mut k.m, &mut k.f, "smax", ty, &[x, y]),
                Bin::Min => intrinsic(&mut k.m, &mut k.f, "smin", ty, &[x, y]),
                Bin::Pow => {
                    let neg = k.f.emit("i1", format!("icmp slt {ty} {y}, 0"));
                    let (x64, y64) = (crate::types::int_to_i64(&mut k.f, e, x), crate::types::int_to_i64(&mut k.f, e, y));
                    k.fail2_if(&neg, site, &msgs.neg_pow, &x64, &y64);
                    // Square and multiply over the exponent's bits (wrapping), as the interpreter.
                    let bits = Val::i64(int_bits(e) as i64);
                    let one = Val::int(ty, 1);
                    let r = k.f.for_acc(&Val::i64(0), &bits, &[one, x.clone(), y.clone()], |f, _, acc| {
                        let (r, b, n) = (&acc[0], &acc[1], &acc[2]);
                        let bit = f.emit(ty, format!("and {ty} {n}, 1"));
                        let odd = f.emit("i1", format!("icmp ne {ty} {bit}, 0"));
                        let rm = f.emit(ty, format!("mul {ty} {r}, {b}"));
                        let r2 = f.emit(ty, format!("select i1 {odd}, {ty} {rm}, {ty} {r}"));
                        let b2 = f.emit(ty, format!("mul {ty} {b}, {b}"));
                        let n2 = f.emit(ty, format!("lshr {ty} {n}, 1"));
                        Ok(vec![r2, b2, n2])
                    })?;
                    r[0].clone()
                }
            }
        }
        EwOp::Un(u) if e.is_float() => float_un(&mut k.m, &mut k.f, *u, &args[0]),
        EwOp::Un(u) => {
            let ty = comp_ty(e);
            let x = &args[0];
            match u {
                Un::Neg => k.f.emit(ty, format!("sub {ty} 0, {x}")),
                Un::Abs => {
                    let name = format!("llvm.abs.{ty}");
                    k.m.declare(&name, &format!("declare {ty} @{name}({ty}, i1)"));
                    k.f.emit(ty, format!("call {ty} @{name}({ty} {x}, i1 false)"))
                }
                Un::Relu => intrinsic(&mut k.m, &mut k.f, "smax", ty, &[x, &Val::int(ty, 0)]),
                other => return Err(crate::LowerError::internal(&format!("{other:?} on integers"))),
            }
        }
        EwOp::Cmp(p) => {
            let (x, y) = (&args[0], &args[1]);
            let ty = comp_ty(e);
            if e.is_float() {
                let pred = match p.as_str() {
                    "eq" => "oeq",
                    "ne" => "une",
                    "lt" => "olt",
                    "le" => "ole",
                    "gt" => "ogt",
                    _ => "oge",
                };
                k.f.emit("i1", format!("fcmp {pred} {ty} {x}, {y}"))
            } else {
                let signed = e != ElemType::I1;
                let pred = match (p.as_str(), signed) {
                    ("eq", _) => "eq",
                    ("ne", _) => "ne",
                    ("lt", true) => "slt",
                    ("le", true) => "sle",
                    ("gt", true) => "sgt",
                    ("ge", true) => "sge",
                    ("lt", false) => "ult",
                    ("le", false) => "ule",
                    ("gt", false) => "ugt",
                    _ => "uge",
                };
                k.f.emit("i1", format!("icmp {pred} {ty} {x}, {y}"))
            }
        }
        EwOp::Select => {
            let ty = comp_ty(out);
            k.f.emit(ty, format!("select i1 {}, {ty} {}, {ty} {}", args[0], args[1], args[2]))
        }
        EwOp::Cast(to) => {
            let mv = cast(&mut k.f, &mut k.m, e, *to, &args[0]);
            crate::types::to_comp(&mut k.f, *to, &mv)
        }
    };
    Ok(round_trip(&mut k.f, out, &r))
}

/// numpy broadcasting of the sizes of `ts` (right-aligned), checked at run time where sizes are
/// not constants: `'op' op shapes do not broadcast (dimension A vs B)`.
pub fn broadcast_dims(fl: &mut FnLower, o: &OpCx, ts: &[&[Val]]) -> R<Vec<Val>> {
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
pub fn bstrides(f: &mut FnB, t: &TV, dims: &[Val]) -> Vec<Val> {
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
pub type EwBody<'b> = dyn FnMut(&mut Kernel, &[Val]) -> R<Vec<Val>> + 'b;

/// Runs `body` for every element of `dims`: inputs `ins` are read broadcast to `dims`, outputs
/// `outs` (each with sizes `dims`, any strides) written. Chooses the flat loop when every tensor
/// is contiguous with exactly these sizes (at run time when sizes are not constants).
pub fn ew_launch(fl: &mut FnLower, hint: &str, ins: &[TV], outs: &[TV], dims: &[Val], body: &mut EwBody) -> R<()> {
    let n = fl.f.product(dims);
    // Inputs of one element (scalar constants) are read at index 0 in the flat loop.
    let scalar: Vec<bool> = ins.iter().map(|t| t.dims.iter().all(|d| d.as_i64() == Some(1))).collect();
    let full = || ins.iter().zip(&scalar).filter(|(_, s)| !**s).map(|(t, _)| t).chain(outs);
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

fn flat(fl: &mut FnLower, hint: &str, ins: &[TV], scalar: &[bool], outs: &[TV], n: &Val, body: &mut EwBody) -> R<()> {
    let mut k = fl.kernel(hint);
    let kin: Vec<TV> = ins.iter().map(|t| k.tv(t)).collect();
    let kout: Vec<TV> = outs.iter().map(|t| k.tv(t)).collect();
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let zero = Val::i64(0);
    let streamed: Vec<&TV> = kin.iter().zip(scalar).filter(|(_, &s)| !s).map(|(t, _)| t).collect();
    k.m.declare("llvm.prefetch.p0", "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)");
    k.for_blocks(&lo, &hi, PF_BLOCK, |k, start, end| {
        for t in &streamed {
            prefetch_ahead(&mut k.f, t, start);
        }
        k.for_range(start, end, |k, i| {
            let vals: Vec<Val> = kin
                .iter()
                .zip(scalar)
                .map(|(t, &s)| load_elem(&mut k.f, t.elem, &t.ptr, if s { &zero } else { i }))
                .collect();
            let outv = body(k, &vals)?;
            for (t, v) in kout.iter().zip(&outv) {
                store_elem(&mut k.f, t.elem, &t.ptr, i, v);
            }
            Ok(())
        })
    })?;
    fl.launch(k, n, &Val::i64(GRAIN), n)
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
fn prefetch_ahead(f: &mut FnB, t: &TV, start: &Val) {
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
pub fn offset(f: &mut FnB, idx: &[Val], strides: &[Val]) -> Val {
    let mut b = Val::i64(0);
    for (i, s) in idx.iter().zip(strides) {
        let t = f.mul(i, s);
        b = f.add(&b, &t);
    }
    b
}

/// Splits flat index `i` into the index of each of `dims` (row-major, last dim fastest).
pub fn unflatten(f: &mut FnB, i: &Val, dims: &[Val]) -> Vec<Val> {
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
pub fn grain_rows(f: &mut FnB, inner: &Val) -> Val {
    let inner1 = f.smax(inner, &Val::i64(1));
    let g = f.div(&Val::i64(GRAIN), &inner1);
    f.smax(&g, &Val::i64(1))
}

fn strided(fl: &mut FnLower, hint: &str, ins: &[TV], outs: &[TV], dims: &[Val], n: &Val, body: &mut EwBody) -> R<()> {
    let r = dims.len();
    let rows = fl.f.product(&dims[..r - 1]);
    let in_bs: Vec<Vec<Val>> = ins.iter().map(|t| bstrides(&mut fl.f, t, dims)).collect();
    let grain = grain_rows(&mut fl.f, &dims[r - 1]);
    let mut k = fl.kernel(hint);
    let kdims = k.cap_all(dims);
    let kin: Vec<TV> = ins.iter().map(|t| k.tv(t)).collect();
    let kbs: Vec<Vec<Val>> = in_bs.iter().map(|s| k.cap_all(s)).collect();
    let kout: Vec<TV> = outs.iter().map(|t| k.tv(t)).collect();
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    k.for_range(&lo, &hi, |k, row| {
        let idx = unflatten(&mut k.f, row, &kdims[..r - 1]);
        let in_base: Vec<Val> = kbs.iter().map(|s| offset(&mut k.f, &idx, &s[..r - 1])).collect();
        let out_base: Vec<Val> = kout.iter().map(|t| offset(&mut k.f, &idx, &t.strides[..r - 1])).collect();
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

/// Lowers one elementwise op.
pub fn lower(fl: &mut FnLower, o: &OpCx, op: &EwOp) -> R<Vec<Slot>> {
    let ins = o.operands(fl)?;
    if ins.len() != op.arity() {
        return Err(o.err(&format!("expects {} operands, but got {}", op.arity(), ins.len())));
    }
    let (rdims, relem) = o.result(fl, 0)?;
    let dl: Vec<&[Val]> = ins.iter().map(|t| t.dims.as_slice()).collect();
    let dims = broadcast_dims(fl, o, &dl)?;
    let dims = check_result_dims(fl, o, dims, &rdims)?;
    let out = fl.new_tensor(relem, &dims)?;
    let elems: Vec<ElemType> = match op {
        EwOp::Select => ins[1..].iter().map(|t| t.elem).collect(),
        _ => ins.iter().map(|t| t.elem).collect(),
    };
    let msgs = EwMsgs::new(fl, o);
    let site = o.site;
    let hint = o.name.trim_start_matches("tensor.").to_string();
    let mut body = |k: &mut Kernel, vals: &[Val]| -> R<Vec<Val>> { Ok(vec![eval(k, site, &msgs, op, &elems, relem, vals)?]) };
    ew_launch(fl, &hint, &ins, std::slice::from_ref(&out), &dims, &mut body)?;
    Ok(vec![Slot::T(out)])
}
