//! Elementwise ops (binary, unary, gelu, cmp, select, cast), all lowered by one [`LowerOp`](crate::codegen::LowerOp)
//! ([`ELEMENTWISE`]) that asks the op for its [`ElementwiseFn`] (the `Elementwise` interface of
//! its declaration, `dialects/src/tensor/elementwise.rs`) and emits code for that function per
//! element ([`eval`]) inside the shared loop nests of `codegen::loops`. Element semantics are the
//! reference ones of that table (the interpreter's): a new elementwise op needs no line here,
//! only the code of a new function it brings.

use xcs_dialects::interp::ElemType;
use xcs_dialects::tensor::elementwise::{elementwise_fn, BinaryFn, ElementwiseFn, Predicate, TernaryFn, UnaryFn};

use super::math::{self, intrinsic, MathBuilder};
use crate::codegen::llvm_ir::{FunctionBuilder, ModuleBuilder, Val};
use crate::codegen::loops::{broadcast_dims, for_each_element};
use crate::codegen::types::{cast, comp_ty, int_bits, int_to_i64, round_trip, to_comp};
use crate::codegen::{check_result_dims, FunctionLowering, Kernel, LowerError, LowerFn, OpSite, RunTimeCheck, Slot, R};

/// The lowering of every op with an `Elementwise` interface.
pub static ELEMENTWISE: LowerFn = LowerFn(lower);

/// The elementwise function of `o`; an error when its attributes choose none.
pub fn function_of(fl: &FunctionLowering, o: &OpSite) -> R<Option<ElementwiseFn>> {
    elementwise_fn(&o.view(fl.ctx())).transpose().map_err(|e| o.err(&e))
}

/// The element types `func` computes on, from its operands' (a select's condition aside).
pub fn input_elems(func: ElementwiseFn, operands: &[ElemType]) -> Vec<ElemType> {
    match func {
        ElementwiseFn::Select => operands[1..].to_vec(),
        _ => operands.to_vec(),
    }
}

/// How an f32 function computes its value as a quotient (`math::Quotient`) whose division a
/// product with another quotient can share: the code of `(num, den)`, and `log2` of a bound on
/// `|num|` and `den` (the products of a group must stay finite).
#[derive(Clone, Copy)]
pub struct QuotientForm {
    pub emit: fn(&mut MathBuilder, &Val) -> (Val, Val),
    pub bound_log2: u32,
}

/// The quotient form of `func` on these element types: f32 `tanh` and `sigmoid`; `None` for the
/// other functions and element types (which round every result).
pub fn quotient_form(func: ElementwiseFn, ins: &[ElemType], out: ElemType) -> Option<QuotientForm> {
    if out != ElemType::F32 || ins != [ElemType::F32] {
        return None;
    }
    match func {
        ElementwiseFn::Unary(UnaryFn::Tanh) => Some(QuotientForm {
            emit: math::tanh_quotient,
            bound_log2: math::TANH_BOUND_LOG2,
        }),
        ElementwiseFn::Unary(UnaryFn::Sigmoid) => Some(QuotientForm {
            emit: math::sigmoid_quotient,
            bound_log2: math::SIGMOID_BOUND_LOG2,
        }),
        _ => None,
    }
}

/// Whether `func` on these element types is an f32 product (of quotients, see [`QuotientForm`]).
pub fn is_f32_product(func: ElementwiseFn, ins: &[ElemType], out: ElemType) -> bool {
    func == ElementwiseFn::Binary(BinaryFn::Mul) && out == ElemType::F32 && ins == [ElemType::F32, ElemType::F32]
}

/// Run-time error messages of one elementwise op (full messages, see `ModuleLowering::msg`).
#[derive(Clone, Debug, Default)]
pub struct ElementwiseMessages {
    pub div0: String,
    pub neg_pow: String,
}

impl ElementwiseMessages {
    pub fn new(fl: &FunctionLowering, o: &OpSite) -> ElementwiseMessages {
        ElementwiseMessages {
            div0: o.msg(fl, "integer division by zero"),
            neg_pow: o.msg(fl, "integer power with a negative exponent (%lld ** %lld)"),
        }
    }
}

/// Lowers one elementwise op.
fn lower(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let func = function_of(fl, o)?.ok_or_else(|| o.err("is not elementwise"))?;
    let ins = o.operands(fl)?;
    if ins.len() != func.arity() {
        return Err(o.err(&format!("expects {} operands, but got {}", func.arity(), ins.len())));
    }
    let (rdims, relem) = o.result(fl, 0)?;
    let dl: Vec<&[Val]> = ins.iter().map(|t| t.dims.as_slice()).collect();
    let dims = broadcast_dims(fl, o, &dl)?;
    let dims = check_result_dims(fl, o, dims, &rdims)?;
    let out = fl.new_tensor(relem, &dims)?;
    let elems = input_elems(func, &ins.iter().map(|t| t.elem).collect::<Vec<_>>());
    let msgs = ElementwiseMessages::new(fl, o);
    let site = o.site;
    let mut body =
        |k: &mut Kernel, vals: &[Val]| -> R<Vec<Val>> { Ok(vec![eval(k, site, &msgs, func, &elems, relem, vals)?]) };
    for_each_element(fl, o.mnemonic(), &ins, std::slice::from_ref(&out), &dims, &mut body)?;
    Ok(vec![Slot::Tensor(out)])
}

fn fconst(ty: &'static str, x: f64) -> Val {
    Val::float(ty, x)
}

/// Float unary function `op` in compute type `ty` (`float` or `double`), as the interpreter writes it.
fn float_unary(m: &mut ModuleBuilder, f: &mut FunctionBuilder, op: UnaryFn, x: &Val) -> Val {
    let ty = x.ty;
    if ty == "float" {
        // Vectorizable inline f32 math (see `math`).
        let mb = &mut MathBuilder::scalar(m, f);
        match op {
            UnaryFn::Exp => return math::exp(mb, x),
            UnaryFn::Log => return math::log_call(mb.m, mb.f, x),
            UnaryFn::Tanh => return math::tanh(mb, x),
            UnaryFn::Sigmoid => return math::sigmoid(mb, x),
            UnaryFn::Silu => return math::silu(mb, x),
            UnaryFn::GeluTanh => return math::gelu_tanh(mb, x),
            UnaryFn::GeluErf => return math::gelu_erf(mb, x),
            UnaryFn::Erf => return math::erf_call(mb.m, mb.f, x),
            UnaryFn::Sin => return math::sin_call(mb.m, mb.f, x),
            UnaryFn::Cos => return math::cos_call(mb.m, mb.f, x),
            _ => {}
        }
    }
    let one = fconst(ty, 1.0);
    let sigmoid = |m: &mut ModuleBuilder, f: &mut FunctionBuilder, x: &Val| {
        let n = f.emit(ty, format!("fneg {ty} {x}"));
        let e = intrinsic(m, f, "exp", ty, &[&n]);
        let d = f.emit(ty, format!("fadd {ty} {one}, {e}"));
        f.emit(ty, format!("fdiv {ty} {one}, {d}"))
    };
    match op {
        UnaryFn::Neg => f.emit(ty, format!("fneg {ty} {x}")),
        UnaryFn::Abs => intrinsic(m, f, "fabs", ty, &[x]),
        UnaryFn::Relu => {
            let c = f.emit("i1", format!("fcmp ugt {ty} {x}, 0.0"));
            f.emit(ty, format!("select i1 {c}, {ty} {x}, {ty} 0.0"))
        }
        UnaryFn::Exp => intrinsic(m, f, "exp", ty, &[x]),
        UnaryFn::Log => intrinsic(m, f, "log", ty, &[x]),
        UnaryFn::Tanh => intrinsic(m, f, "tanh", ty, &[x]),
        UnaryFn::Sigmoid => sigmoid(m, f, x),
        UnaryFn::Silu => {
            let s = sigmoid(m, f, x);
            f.emit(ty, format!("fmul {ty} {x}, {s}"))
        }
        UnaryFn::Sqrt => intrinsic(m, f, "sqrt", ty, &[x]),
        UnaryFn::Rsqrt => {
            let s = intrinsic(m, f, "sqrt", ty, &[x]);
            f.emit(ty, format!("fdiv {ty} {one}, {s}"))
        }
        UnaryFn::GeluErf => {
            // 0.5 * x * erfc(-x / sqrt(2)) (no cancellation for negative x), as the interpreter.
            let a = f.emit(ty, format!("fmul {ty} {}, {x}", fconst(ty, 0.5)));
            let b = f.emit(ty, format!("fdiv {ty} {x}, {}", fconst(ty, -std::f64::consts::SQRT_2)));
            let erfc = if ty == "float" { "erfcf" } else { "erfc" };
            m.declare(erfc, &format!("declare {ty} @{erfc}({ty})"));
            let e = f.emit(ty, format!("call {ty} @{erfc}({ty} {b})"));
            f.emit(ty, format!("fmul {ty} {a}, {e}"))
        }
        UnaryFn::Sin => intrinsic(m, f, "sin", ty, &[x]),
        UnaryFn::Cos => intrinsic(m, f, "cos", ty, &[x]),
        UnaryFn::Erf => {
            let erf = if ty == "float" { "erff" } else { "erf" };
            m.declare(erf, &format!("declare {ty} @{erf}({ty})"));
            f.emit(ty, format!("call {ty} @{erf}({ty} {x})"))
        }
        UnaryFn::Floor => intrinsic(m, f, "floor", ty, &[x]),
        UnaryFn::Ceil => intrinsic(m, f, "ceil", ty, &[x]),
        UnaryFn::Round => intrinsic(m, f, "roundeven", ty, &[x]),
        UnaryFn::Sign => {
            // 1, -1 or +0.0; NaN stays (np.sign)
            let pos = f.emit("i1", format!("fcmp ogt {ty} {x}, 0.0"));
            let neg = f.emit("i1", format!("fcmp olt {ty} {x}, 0.0"));
            let nan = f.emit("i1", format!("fcmp uno {ty} {x}, 0.0"));
            let s = f.emit(ty, format!("select i1 {pos}, {ty} {one}, {ty} 0.0"));
            let s = f.emit(ty, format!("select i1 {neg}, {ty} {}, {ty} {s}", fconst(ty, -1.0)));
            f.emit(ty, format!("select i1 {nan}, {ty} {x}, {ty} {s}"))
        }
        UnaryFn::GeluTanh => {
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

/// Computes `func` on compute values `args` of operand element types `ins`; the result is the
/// compute value of element type `out` (a cast's target), rounded to it (f16/bf16).
pub fn eval(
    k: &mut Kernel,
    site: i32,
    msgs: &ElementwiseMessages,
    func: ElementwiseFn,
    ins: &[ElemType],
    out: ElemType,
    args: &[Val],
) -> R<Val> {
    let e = ins[0];
    let r = match func {
        ElementwiseFn::Binary(b) if e.is_float() => float_binary(k, b, comp_ty(e), &args[0], &args[1]),
        ElementwiseFn::Binary(b) => int_binary(k, site, msgs, b, e, &args[0], &args[1])?,
        ElementwiseFn::Unary(u) if e.is_float() => float_unary(&mut k.m, &mut k.f, u, &args[0]),
        ElementwiseFn::Unary(u) => int_unary(k, u, e, &args[0])?,
        ElementwiseFn::Ternary(t) if e.is_float() => float_ternary(k, t, comp_ty(e), &args[0], &args[1], &args[2]),
        ElementwiseFn::Ternary(t) => int_ternary(k, t, comp_ty(e), &args[0], &args[1], &args[2]),
        ElementwiseFn::Compare(p) => compare(k, p, e, &args[0], &args[1]),
        ElementwiseFn::Select => {
            let ty = comp_ty(out);
            k.f.emit(ty, format!("select i1 {}, {ty} {}, {ty} {}", args[0], args[1], args[2]))
        }
        ElementwiseFn::Cast => {
            let mv = cast(&mut k.f, &mut k.m, e, out, &args[0]);
            to_comp(&mut k.f, out, &mv)
        }
    };
    Ok(round_trip(&mut k.f, out, &r))
}

/// A binary function on floats of compute type `ty` (`float` or `double`).
fn float_binary(k: &mut Kernel, b: BinaryFn, ty: &'static str, x: &Val, y: &Val) -> Val {
    match b {
        BinaryFn::Add => k.f.emit(ty, format!("fadd {ty} {x}, {y}")),
        BinaryFn::Sub => k.f.emit(ty, format!("fsub {ty} {x}, {y}")),
        BinaryFn::Mul => k.f.emit(ty, format!("fmul {ty} {x}, {y}")),
        BinaryFn::Div => k.f.emit(ty, format!("fdiv {ty} {x}, {y}")),
        BinaryFn::Max => intrinsic(&mut k.m, &mut k.f, "maximum", ty, &[x, y]),
        BinaryFn::Min => intrinsic(&mut k.m, &mut k.f, "minimum", ty, &[x, y]),
        BinaryFn::Pow if ty == "float" => math::pow_call(&mut k.m, &mut k.f, x, y),
        BinaryFn::Pow => intrinsic(&mut k.m, &mut k.f, "pow", ty, &[x, y]),
        BinaryFn::Rem if ty == "float" => math::rem_call(&mut k.m, &mut k.f, x, y),
        BinaryFn::Rem => {
            // C's fmod, then numpy's move to the divisor's sign (as `math::rem` for floats)
            let f = &mut k.f;
            let m = f.emit(ty, format!("frem {ty} {x}, {y}"));
            let m_neg = f.emit("i1", format!("fcmp olt {ty} {m}, 0.0"));
            let y_neg = f.emit("i1", format!("fcmp olt {ty} {y}, 0.0"));
            let differ = f.emit("i1", format!("xor i1 {m_neg}, {y_neg}"));
            let nonzero = f.emit("i1", format!("fcmp one {ty} {m}, 0.0"));
            let adjust = f.emit("i1", format!("and i1 {nonzero}, {differ}"));
            let sum = f.emit(ty, format!("fadd {ty} {m}, {y}"));
            let adjusted = f.emit(ty, format!("select i1 {adjust}, {ty} {sum}, {ty} {m}"));
            let is_zero = f.emit("i1", format!("fcmp oeq {ty} {m}, 0.0"));
            let signed_zero = intrinsic(&mut k.m, &mut k.f, "copysign", ty, &[&fconst(ty, 0.0), y]);
            k.f.emit(ty, format!("select i1 {is_zero}, {ty} {signed_zero}, {ty} {adjusted}"))
        }
    }
}

/// A ternary function on floats of compute type `ty`.
fn float_ternary(k: &mut Kernel, t: TernaryFn, ty: &'static str, x: &Val, y: &Val, z: &Val) -> Val {
    match t {
        TernaryFn::Clamp => {
            // numpy's maximum(x, lo) then minimum(_, hi): NaN propagates, the bound on ties
            let f = &mut k.f;
            let x_nan = f.emit("i1", format!("fcmp uno {ty} {x}, 0.0"));
            let above = f.emit("i1", format!("fcmp ogt {ty} {x}, {y}"));
            let keep_x = f.emit("i1", format!("or i1 {x_nan}, {above}"));
            let m = f.emit(ty, format!("select i1 {keep_x}, {ty} {x}, {ty} {y}"));
            let m_nan = f.emit("i1", format!("fcmp uno {ty} {m}, 0.0"));
            let below = f.emit("i1", format!("fcmp olt {ty} {m}, {z}"));
            let keep_m = f.emit("i1", format!("or i1 {m_nan}, {below}"));
            f.emit(ty, format!("select i1 {keep_m}, {ty} {m}, {ty} {z}"))
        }
    }
}

/// A ternary function on integers of compute type `ty`.
fn int_ternary(k: &mut Kernel, t: TernaryFn, ty: &'static str, x: &Val, y: &Val, z: &Val) -> Val {
    match t {
        TernaryFn::Clamp => {
            let m = intrinsic(&mut k.m, &mut k.f, "smax", ty, &[x, y]);
            intrinsic(&mut k.m, &mut k.f, "smin", ty, &[&m, z])
        }
    }
}

/// A binary function on integers of element type `e` (wrapping; division by zero and a
/// negative power are run-time errors at `site`).
fn int_binary(
    k: &mut Kernel,
    site: i32,
    msgs: &ElementwiseMessages,
    b: BinaryFn,
    e: ElemType,
    x: &Val,
    y: &Val,
) -> R<Val> {
    let ty = comp_ty(e);
    Ok(match b {
        BinaryFn::Add => k.f.emit(ty, format!("add {ty} {x}, {y}")),
        BinaryFn::Sub => k.f.emit(ty, format!("sub {ty} {x}, {y}")),
        BinaryFn::Mul => k.f.emit(ty, format!("mul {ty} {x}, {y}")),
        BinaryFn::Div => {
            let z = k.f.emit("i1", format!("icmp eq {ty} {y}, 0"));
            k.fail_if(&z, site, &msgs.div0);
            // x / -1 is -x (wrapping), so INT_MIN / -1 is INT_MIN and never traps.
            let m1 = k.f.emit("i1", format!("icmp eq {ty} {y}, -1"));
            let safe = k.f.emit(ty, format!("select i1 {m1}, {ty} 1, {ty} {y}"));
            let q = k.f.emit(ty, format!("sdiv {ty} {x}, {safe}"));
            let n = k.f.emit(ty, format!("sub {ty} 0, {x}"));
            k.f.emit(ty, format!("select i1 {m1}, {ty} {n}, {ty} {q}"))
        }
        BinaryFn::Max => intrinsic(&mut k.m, &mut k.f, "smax", ty, &[x, y]),
        BinaryFn::Min => intrinsic(&mut k.m, &mut k.f, "smin", ty, &[x, y]),
        BinaryFn::Rem => {
            let z = k.f.emit("i1", format!("icmp eq {ty} {y}, 0"));
            k.fail_if(&z, site, &msgs.div0);
            // x rem -1 is 0 (INT_MIN rem -1 would trap); numpy's sign: r + y when the signs differ
            let m1 = k.f.emit("i1", format!("icmp eq {ty} {y}, -1"));
            let safe = k.f.emit(ty, format!("select i1 {m1}, {ty} 1, {ty} {y}"));
            let r = k.f.emit(ty, format!("srem {ty} {x}, {safe}"));
            let nonzero = k.f.emit("i1", format!("icmp ne {ty} {r}, 0"));
            let signs = k.f.emit(ty, format!("xor {ty} {r}, {y}"));
            let differ = k.f.emit("i1", format!("icmp slt {ty} {signs}, 0"));
            let adjust = k.f.emit("i1", format!("and i1 {nonzero}, {differ}"));
            let sum = k.f.emit(ty, format!("add {ty} {r}, {y}"));
            k.f.emit(ty, format!("select i1 {adjust}, {ty} {sum}, {ty} {r}"))
        }
        BinaryFn::Pow => {
            let neg = k.f.emit("i1", format!("icmp slt {ty} {y}, 0"));
            let (x64, y64) = (int_to_i64(&mut k.f, e, x), int_to_i64(&mut k.f, e, y));
            k.fail2_if(&neg, site, &msgs.neg_pow, &x64, &y64);
            // Square and multiply over the exponent's bits (wrapping), as the interpreter.
            let bits = Val::i64(int_bits(e) as i64);
            let one = Val::int(ty, 1);
            let r =
                k.f.for_acc(&Val::i64(0), &bits, &[one, x.clone(), y.clone()], |f, _, acc| {
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
    })
}

/// A unary function on integers of element type `e` (those the dialect allows on integers).
fn int_unary(k: &mut Kernel, u: UnaryFn, e: ElemType, x: &Val) -> R<Val> {
    let ty = comp_ty(e);
    Ok(match u {
        UnaryFn::Neg => k.f.emit(ty, format!("sub {ty} 0, {x}")),
        UnaryFn::Abs => {
            let name = format!("llvm.abs.{ty}");
            k.m.declare(&name, &format!("declare {ty} @{name}({ty}, i1)"));
            k.f.emit(ty, format!("call {ty} @{name}({ty} {x}, i1 false)"))
        }
        UnaryFn::Relu => intrinsic(&mut k.m, &mut k.f, "smax", ty, &[x, &Val::int(ty, 0)]),
        UnaryFn::Floor | UnaryFn::Ceil | UnaryFn::Round => x.clone(),
        UnaryFn::Sign => {
            // (x > 0) - (x < 0)
            let pos = k.f.emit("i1", format!("icmp sgt {ty} {x}, 0"));
            let neg = k.f.emit("i1", format!("icmp slt {ty} {x}, 0"));
            let p = k.f.emit(ty, format!("zext i1 {pos} to {ty}"));
            let n = k.f.emit(ty, format!("zext i1 {neg} to {ty}"));
            k.f.emit(ty, format!("sub {ty} {p}, {n}"))
        }
        other => return Err(LowerError::internal(&format!("{other:?} on integers"))),
    })
}

/// A comparison of elements of type `e`: ordered for floats (NaN compares unequal), signed for
/// integers, unsigned for `i1`.
fn compare(k: &mut Kernel, p: Predicate, e: ElemType, x: &Val, y: &Val) -> Val {
    let ty = comp_ty(e);
    if e.is_float() {
        let pred = match p {
            Predicate::Eq => "oeq",
            Predicate::Ne => "une",
            Predicate::Lt => "olt",
            Predicate::Le => "ole",
            Predicate::Gt => "ogt",
            Predicate::Ge => "oge",
        };
        k.f.emit("i1", format!("fcmp {pred} {ty} {x}, {y}"))
    } else {
        let signed = e != ElemType::I1;
        let pred = match (p, signed) {
            (Predicate::Eq, _) => "eq",
            (Predicate::Ne, _) => "ne",
            (Predicate::Lt, true) => "slt",
            (Predicate::Le, true) => "sle",
            (Predicate::Gt, true) => "sgt",
            (Predicate::Ge, true) => "sge",
            (Predicate::Lt, false) => "ult",
            (Predicate::Le, false) => "ule",
            (Predicate::Gt, false) => "ugt",
            (Predicate::Ge, false) => "uge",
        };
        k.f.emit("i1", format!("icmp {pred} {ty} {x}, {y}"))
    }
}
