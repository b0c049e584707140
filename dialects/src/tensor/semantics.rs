//! What the `tensor` dialect ops do when the interpreter runs them (their `dyn Semantics`),
//! with numpy's rules: broadcasting, IEEE floats, wrapping integers. Every op but
//! `tensor.fused` is a pure [`Kernel`] (constant folding evaluates these too); `tensor.fused`
//! runs its region. Each op is written as directly as possible (index lists and loops over
//! whole tensors); speed is not a goal. The numeric rules:
//! - elementwise ops compute what their [`ElementwiseFn`] says, with the shared scalar math of
//!   [`super::elementwise`]: floats in `f32` for f16, bf16 and f32 elements (f16/bf16 results are
//!   rounded to nearest-even, as numpy does for float16) and in `f64` for f64;
//! - reductions, `softmax`, `layer_norm`, `matmul` and `einsum` accumulate floats in `f64` and
//!   round once to the element type (the reference is the best-rounded value; compare other
//!   implementations with a tolerance);
//! - integers compute in `i64` and wrap to their width (two's complement, as numpy);
//!   `tensor.div` truncates toward zero (C, LLVM `sdiv`, StableHLO) and division by zero is a
//!   run-time error; `tensor.pow` with a negative integer exponent is a run-time error (numpy
//!   raises too); integer `mean` is the exact sum divided by the count, truncated toward zero.

use xcs_ir::DYNAMIC;

use super::elementwise::{elementwise_fn, fmax, fmin, BinaryFn, ElementwiseFn, Predicate, TernaryFn, UnaryFn};
use super::infer::{parse_einsum, reduce_axes};
use crate::interp::semantics::{Control, Kernel, OpInfo, OpRun, Semantics};
use crate::interp::value::{
    broadcast_shapes, check_numel, for_each_index, norm_axis, numel, shape_string, strides, tensor_from_attr, ElemType, Lanes,
    Tensor, TensorData,
};
use crate::interp::InterpError;

pub static ELEMENTWISE: Kernel = Kernel(elementwise);
pub static CONSTANT: Kernel = Kernel(constant);
pub static MATMUL: Kernel = Kernel(|_, ts| {
    let [a, b] = operands(ts)?;
    matmul(a, b)
});
pub static EINSUM: Kernel = Kernel(|info, ts| einsum(info.str("equation")?, ts));
pub static REDUCE: Kernel = Kernel(|info, ts| {
    let [x] = operands(ts)?;
    reduce(x, info.str("kind")?, &info.i64s("axes")?, info.bool("keepdims")?)
});
pub static SOFTMAX: Kernel = Kernel(|info, ts| {
    let [x] = operands(ts)?;
    softmax(x, info.i64("axis")?)
});
pub static LAYER_NORM: Kernel = Kernel(|info, ts| {
    let [x, gamma, beta] = operands(ts)?;
    layer_norm(x, gamma, beta, info.i64("axis")?, info.f64("epsilon")?)
});
pub static TRANSPOSE: Kernel = Kernel(transpose);
pub static RESHAPE: Kernel = Kernel(|info, ts| {
    let [x] = operands(ts)?;
    reshape(x, &info.result_tensor_type(0)?.0)
});
pub static BROADCAST_TO: Kernel = Kernel(|info, ts| {
    let [x] = operands(ts)?;
    broadcast_to(x, &info.result_tensor_type(0)?.0)
});
pub static SLICE: Kernel = Kernel(|info, ts| {
    let [x] = operands(ts)?;
    slice(x, &info.i64s("start")?, &info.i64s("limit")?, &info.i64s("stride")?)
});
pub static CONCAT: Kernel = Kernel(concat);
pub static GATHER: Kernel = Kernel(|info, ts| {
    let [table, indices] = operands(ts)?;
    gather(table, indices, info.i64("axis")?)
});
/// `tensor.fused`: runs its region on the operands; the region yields the results.
pub static FUSED: Fused = Fused;

/// The semantics of `tensor.fused`.
pub struct Fused;

impl Semantics for Fused {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        run.run_region(0, run.operand_values()).map(Control::Values)
    }
}

/// The operands of an op that takes exactly `N`.
fn operands<'t, const N: usize>(ts: &[&'t Tensor]) -> Result<[&'t Tensor; N], String> {
    ts.try_into()
        .map_err(|_| format!("expects {N} operands, but got {}", ts.len()))
}

fn constant(info: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    let [] = operands(ts)?;
    tensor_from_attr(info.ctx, info.attr("value")?)
}

/// Every elementwise op: the function its `Elementwise` interface gives.
fn elementwise(info: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    let f = elementwise_fn(&info.op).ok_or("is not an elementwise op")??;
    match f {
        ElementwiseFn::Binary(op) => {
            let [a, b] = operands(ts)?;
            binary(op, a, b)
        }
        ElementwiseFn::Unary(op) => {
            let [a] = operands(ts)?;
            unary(op, a)
        }
        ElementwiseFn::Ternary(op) => {
            let [a, b, c] = operands(ts)?;
            ternary(op, a, b, c)
        }
        ElementwiseFn::Compare(pred) => {
            let [a, b] = operands(ts)?;
            cmp(pred, a, b)
        }
        ElementwiseFn::Select => {
            let [c, a, b] = operands(ts)?;
            select(c, a, b)
        }
        ElementwiseFn::Cast => {
            let [a] = operands(ts)?;
            let (_, elem) = info.result_tensor_type(0)?;
            a.cast(elem)
        }
    }
}

fn transpose(info: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    let [x] = operands(ts)?;
    let perm = info.i64s("perm")?;
    if perm.iter().any(|&p| p < 0) {
        return Err(format!("perm {perm:?} is not a permutation"));
    }
    x.transpose(&perm.iter().map(|&p| p as usize).collect::<Vec<_>>())
}

fn concat(info: &OpInfo<'_>, ts: &[&Tensor]) -> Result<Tensor, String> {
    let Some(first) = ts.first() else {
        return Err("needs at least one operand".into());
    };
    let axis = norm_axis(info.i64("axis")?, first.rank())?;
    Tensor::concat(ts, axis)
}

// ---------------------------------------------------------------------------- elementwise

fn unsupported(e: ElemType) -> String {
    format!("element type {e} is not supported by this op")
}

fn same_elem(a: &Tensor, b: &Tensor) -> Result<ElemType, String> {
    if a.elem() != b.elem() {
        return Err(format!("operand element types differ: {} and {}", a.elem(), b.elem()));
    }
    Ok(a.elem())
}

/// Broadcasts both operands to their common shape.
fn broadcast_pair(a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor), String> {
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    Ok((a.broadcast_to(&shape)?, b.broadcast_to(&shape)?))
}

fn binary(op: BinaryFn, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let elem = same_elem(a, b)?;
    let (a, b) = broadcast_pair(a, b)?;
    let lanes = match (a.data.lanes(), b.data.lanes()) {
        (Lanes::F32(x), Lanes::F32(y)) => Lanes::F32(x.iter().zip(&y).map(|(&x, &y)| op.eval_float(x, y)).collect()),
        (Lanes::F64(x), Lanes::F64(y)) => Lanes::F64(x.iter().zip(&y).map(|(&x, &y)| op.eval_float(x, y)).collect()),
        (Lanes::I64(x), Lanes::I64(y)) if elem.is_int() => Lanes::I64(
            x.iter()
                .zip(&y)
                .map(|(&x, &y)| op.eval_int(x, y))
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err(unsupported(elem)),
    };
    Ok(Tensor {
        shape: a.shape.clone(),
        data: TensorData::from_lanes(elem, lanes)?,
    })
}

fn unary(op: UnaryFn, a: &Tensor) -> Result<Tensor, String> {
    let elem = a.elem();
    let lanes = match a.data.lanes() {
        Lanes::F32(x) => Lanes::F32(x.iter().map(|&x| op.eval_float(x)).collect()),
        Lanes::F64(x) => Lanes::F64(x.iter().map(|&x| op.eval_float(x)).collect()),
        Lanes::I64(x) if elem.is_int() => Lanes::I64(x.iter().map(|&x| op.eval_int(x)).collect::<Result<_, _>>()?),
        _ => return Err(unsupported(elem)),
    };
    Ok(Tensor {
        shape: a.shape.clone(),
        data: TensorData::from_lanes(elem, lanes)?,
    })
}

fn ternary(op: TernaryFn, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, String> {
    let elem = same_elem(a, b)?;
    same_elem(a, c)?;
    let shape = broadcast_shapes(&broadcast_shapes(&a.shape, &b.shape)?, &c.shape)?;
    let (a, b, c) = (a.broadcast_to(&shape)?, b.broadcast_to(&shape)?, c.broadcast_to(&shape)?);
    let lanes = match (a.data.lanes(), b.data.lanes(), c.data.lanes()) {
        (Lanes::F32(x), Lanes::F32(y), Lanes::F32(z)) => {
            Lanes::F32(x.iter().zip(&y).zip(&z).map(|((&x, &y), &z)| op.eval_float(x, y, z)).collect())
        }
        (Lanes::F64(x), Lanes::F64(y), Lanes::F64(z)) => {
            Lanes::F64(x.iter().zip(&y).zip(&z).map(|((&x, &y), &z)| op.eval_float(x, y, z)).collect())
        }
        (Lanes::I64(x), Lanes::I64(y), Lanes::I64(z)) if elem.is_int() => Lanes::I64(
            x.iter().zip(&y).zip(&z).map(|((&x, &y), &z)| op.eval_int(x, y, z)).collect::<Result<_, _>>()?,
        ),
        _ => return Err(unsupported(elem)),
    };
    Ok(Tensor { shape, data: TensorData::from_lanes(elem, lanes)? })
}

fn cmp(pred: Predicate, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let elem = same_elem(a, b)?;
    let (a, b) = broadcast_pair(a, b)?;
    // IEEE: a NaN is unordered, so only `ne` holds.
    let out: Vec<bool> = match (a.data.lanes(), b.data.lanes()) {
        (Lanes::F32(x), Lanes::F32(y)) => x.iter().zip(&y).map(|(x, y)| pred.holds(x.partial_cmp(y))).collect(),
        (Lanes::F64(x), Lanes::F64(y)) => x.iter().zip(&y).map(|(x, y)| pred.holds(x.partial_cmp(y))).collect(),
        (Lanes::I64(x), Lanes::I64(y)) => x.iter().zip(&y).map(|(x, y)| pred.holds(Some(x.cmp(y)))).collect(),
        (Lanes::Bool(x), Lanes::Bool(y)) => x.iter().zip(&y).map(|(x, y)| pred.holds(Some(x.cmp(y)))).collect(),
        (Lanes::Str(x), Lanes::Str(y)) => x.iter().zip(&y).map(|(x, y)| pred.holds(Some(x.cmp(y)))).collect(),
        _ => return Err(unsupported(elem)),
    };
    Tensor::new(a.shape.clone(), TensorData::I1(out))
}

fn select(c: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let TensorData::I1(_) = c.data else {
        return Err(format!("condition must have i1 elements, but has {}", c.elem()));
    };
    same_elem(a, b)?;
    let shape = broadcast_shapes(&broadcast_shapes(&c.shape, &a.shape)?, &b.shape)?;
    let (c, a, b) = (
        c.broadcast_to(&shape)?,
        a.broadcast_to(&shape)?,
        b.broadcast_to(&shape)?,
    );
    let TensorData::I1(cond) = &c.data else {
        return Err("condition must have i1 elements".into());
    };
    Tensor::new(shape, TensorData::select(cond, &a.data, &b.data)?)
}

// ---------------------------------------------------------------------------- reductions

/// Accumulated values of one element type: floats in f64, integers in i64.
enum Acc {
    F(Vec<f64>),
    I(Vec<i64>),
}

fn acc_of(t: &Tensor) -> Result<Acc, String> {
    let e = t.elem();
    if e.is_float() {
        Ok(Acc::F(t.data.to_f64s().unwrap_or_default()))
    } else if e.is_int() {
        Ok(Acc::I(t.data.to_i64s().unwrap_or_default()))
    } else {
        Err(unsupported(e))
    }
}

fn from_acc(elem: ElemType, shape: Vec<usize>, acc: Acc) -> Result<Tensor, String> {
    let lanes = match acc {
        Acc::F(v) => Lanes::F64(v),
        Acc::I(v) => Lanes::I64(v),
    };
    Tensor::new(shape, TensorData::from_lanes(elem, lanes)?)
}

fn reduce(t: &Tensor, kind: &str, axes: &[i64], keepdims: bool) -> Result<Tensor, String> {
    let rank = t.rank();
    let axes = reduce_axes(axes, rank)?;
    // Move the reduced dims last: each output element reduces one contiguous row.
    let kept: Vec<usize> = (0..rank).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<usize> = kept.iter().chain(&axes).copied().collect();
    let moved = t.transpose(&perm)?;
    let row: usize = axes.iter().map(|&d| t.shape[d]).product();
    let nout: usize = kept.iter().map(|&d| t.shape[d]).product();
    let out_shape: Vec<usize> = (0..rank)
        .filter_map(|d| {
            if axes.contains(&d) {
                keepdims.then_some(1)
            } else {
                Some(t.shape[d])
            }
        })
        .collect();
    if row == 0 && matches!(kind, "max" | "min") {
        return Err(format!(
            "'{kind}' reduction of an empty axis (zero-size array has no identity)"
        ));
    }
    let acc = match acc_of(&moved)? {
        Acc::F(v) => {
            let mut out = Vec::with_capacity(nout);
            for r in 0..nout {
                let xs = &v[r * row..(r + 1) * row];
                out.push(match kind {
                    "sum" => xs.iter().sum(),
                    "prod" => xs.iter().product(),
                    "mean" => xs.iter().sum::<f64>() / row as f64,
                    "max" => xs.iter().copied().fold(f64::NEG_INFINITY, fmax),
                    "min" => xs.iter().copied().fold(f64::INFINITY, fmin),
                    other => return Err(format!("unknown reduction kind \"{other}\"")),
                });
            }
            Acc::F(out)
        }
        Acc::I(v) => {
            let mut out = Vec::with_capacity(nout);
            for r in 0..nout {
                let xs = &v[r * row..(r + 1) * row];
                out.push(match kind {
                    "sum" => xs.iter().fold(0i64, |a, &x| a.wrapping_add(x)),
                    "prod" => xs.iter().fold(1i64, |a, &x| a.wrapping_mul(x)),
                    "mean" => {
                        if row == 0 {
                            return Err("integer 'mean' of an empty axis divides by zero".into());
                        }
                        let s: i128 = xs.iter().map(|&x| x as i128).sum();
                        (s / row as i128) as i64
                    }
                    "max" => xs.iter().copied().max().unwrap_or(i64::MIN),
                    "min" => xs.iter().copied().min().unwrap_or(i64::MAX),
                    other => return Err(format!("unknown reduction kind \"{other}\"")),
                });
            }
            Acc::I(out)
        }
    };
    from_acc(t.elem(), out_shape, acc)
}

fn float_only(t: &Tensor) -> Result<Vec<f64>, String> {
    if !t.elem().is_float() {
        return Err(unsupported(t.elem()));
    }
    Ok(t.data.to_f64s().unwrap_or_default())
}

fn softmax(t: &Tensor, axis: i64) -> Result<Tensor, String> {
    let axis = norm_axis(axis, t.rank())?;
    let last = t.rank() - 1;
    let moved = t.move_axis(axis, last)?;
    let v = float_only(&moved)?;
    let row = moved.shape[last];
    let mut out = vec![0.0f64; v.len()];
    if row > 0 {
        for (xs, ys) in v.chunks(row).zip(out.chunks_mut(row)) {
            let m = xs.iter().copied().fold(f64::NEG_INFINITY, fmax);
            let mut s = 0.0;
            for (y, &x) in ys.iter_mut().zip(xs) {
                *y = (x - m).exp();
                s += *y;
            }
            for y in ys.iter_mut() {
                *y /= s;
            }
        }
    }
    from_acc(t.elem(), moved.shape.clone(), Acc::F(out))?.move_axis(last, axis)
}

fn layer_norm(x: &Tensor, gamma: &Tensor, beta: &Tensor, axis: i64, eps: f64) -> Result<Tensor, String> {
    let axis = norm_axis(axis, x.rank())?;
    let norm_shape = &x.shape[axis..];
    for (name, p) in [("gamma", gamma), ("beta", beta)] {
        if p.shape != norm_shape || p.elem() != x.elem() {
            return Err(format!(
                "{name} is a {}, but the normalized dims of the {} need tensor<{}x{}>",
                p.type_string(),
                x.type_string(),
                shape_string(norm_shape),
                x.elem()
            ));
        }
    }
    let (v, g, b) = (float_only(x)?, float_only(gamma)?, float_only(beta)?);
    let row = numel(norm_shape);
    let mut out = vec![0.0f64; v.len()];
    if row > 0 {
        for (xs, ys) in v.chunks(row).zip(out.chunks_mut(row)) {
            let mean = xs.iter().sum::<f64>() / row as f64;
            let var = xs.iter().map(|&a| (a - mean) * (a - mean)).sum::<f64>() / row as f64;
            let inv = 1.0 / (var + eps).sqrt();
            for (k, (y, &a)) in ys.iter_mut().zip(xs).enumerate() {
                *y = (a - mean) * inv * g[k] + b[k];
            }
        }
    }
    from_acc(x.elem(), x.shape.clone(), Acc::F(out))
}

// ---------------------------------------------------------------------------- contractions

fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let elem = same_elem(a, b)?;
    if a.rank() < 2 || b.rank() < 2 {
        return Err(format!(
            "operands must have rank >= 2, but are a {} and a {}",
            a.type_string(),
            b.type_string()
        ));
    }
    let (ra, rb) = (a.rank(), b.rank());
    let (m, k) = (a.shape[ra - 2], a.shape[ra - 1]);
    let (k2, n) = (b.shape[rb - 2], b.shape[rb - 1]);
    if k != k2 {
        return Err(format!(
            "contraction dimensions differ: lhs {} has K = {k}, rhs {} has K = {k2}",
            a.type_string(),
            b.type_string()
        ));
    }
    let batch =
        broadcast_shapes(&a.shape[..ra - 2], &b.shape[..rb - 2]).map_err(|e| format!("batch dimensions: {e}"))?;
    let mut sa = batch.clone();
    sa.extend([m, k]);
    let mut sb = batch.clone();
    sb.extend([k, n]);
    let (a, b) = (a.broadcast_to(&sa)?, b.broadcast_to(&sb)?);
    let nb = numel(&batch);
    let mut out_shape = batch;
    out_shape.extend([m, n]);
    check_numel(&out_shape)?;
    let acc = match (acc_of(&a)?, acc_of(&b)?) {
        (Acc::F(x), Acc::F(y)) => {
            let mut out = vec![0.0f64; nb * m * n];
            for bi in 0..nb {
                for i in 0..m {
                    for j in 0..n {
                        let mut s = 0.0;
                        for p in 0..k {
                            s += x[(bi * m + i) * k + p] * y[(bi * k + p) * n + j];
                        }
                        out[(bi * m + i) * n + j] = s;
                    }
                }
            }
            Acc::F(out)
        }
        (Acc::I(x), Acc::I(y)) => {
            let mut out = vec![0i64; nb * m * n];
            for bi in 0..nb {
                for i in 0..m {
                    for j in 0..n {
                        let mut s = 0i64;
                        for p in 0..k {
                            s = s.wrapping_add(x[(bi * m + i) * k + p].wrapping_mul(y[(bi * k + p) * n + j]));
                        }
                        out[(bi * m + i) * n + j] = s;
                    }
                }
            }
            Acc::I(out)
        }
        _ => return Err(unsupported(elem)),
    };
    from_acc(elem, out_shape, acc)
}

fn einsum(equation: &str, ts: &[&Tensor]) -> Result<Tensor, String> {
    let eq = parse_einsum(equation, ts.len())?;
    let Some(first) = ts.first() else {
        return Err("needs at least one operand".into());
    };
    let elem = first.elem();
    let mut size = [usize::MAX; 128];
    for (i, (labels, t)) in eq.inputs.iter().zip(ts).enumerate() {
        if t.elem() != elem {
            return Err(format!(
                "operand #{i} has element type {}, operand #0 has {elem}",
                t.elem()
            ));
        }
        if labels.len() != t.rank() {
            return Err(format!(
                "operand #{i} is a {} but the equation gives it {} labels",
                t.type_string(),
                labels.len()
            ));
        }
        for (&c, &d) in labels.iter().zip(&t.shape) {
            let s = &mut size[c as usize & 127];
            if *s != usize::MAX && *s != d {
                return Err(format!("label '{c}' has size {} and {d}", *s));
            }
            *s = d;
        }
    }
    let mut contracted: Vec<char> = Vec::new();
    for &c in eq.inputs.iter().flatten() {
        if !eq.output.contains(&c) && !contracted.contains(&c) {
            contracted.push(c);
        }
    }
    let out_shape: Vec<usize> = eq.output.iter().map(|&c| size[c as usize & 127]).collect();
    check_numel(&out_shape)?;
    let sum_shape: Vec<usize> = contracted.iter().map(|&c| size[c as usize & 127]).collect();
    let op_strides: Vec<Vec<usize>> = ts.iter().map(|t| strides(&t.shape)).collect();
    let accs: Vec<Acc> = ts.iter().map(|t| acc_of(t)).collect::<Result<_, _>>()?;
    // Value of each label at the current point of the label space.
    let mut at = [0usize; 128];
    let offset = |at: &[usize; 128], i: usize| -> usize {
        eq.inputs[i]
            .iter()
            .zip(&op_strides[i])
            .map(|(&c, &s)| at[c as usize & 127] * s)
            .sum()
    };
    let mut out_f = Vec::new();
    let mut out_i = Vec::new();
    for_each_index(&out_shape, |oi| {
        for (&c, &v) in eq.output.iter().zip(oi) {
            at[c as usize & 127] = v;
        }
        let (mut sf, mut si) = (0.0f64, 0i64);
        for_each_index(&sum_shape, |ci| {
            for (&c, &v) in contracted.iter().zip(ci) {
                at[c as usize & 127] = v;
            }
            let (mut pf, mut pi) = (1.0f64, 1i64);
            for (i, acc) in accs.iter().enumerate() {
                match acc {
                    Acc::F(x) => pf *= x[offset(&at, i)],
                    Acc::I(x) => pi = pi.wrapping_mul(x[offset(&at, i)]),
                }
            }
            sf += pf;
            si = si.wrapping_add(pi);
        });
        out_f.push(sf);
        out_i.push(si);
    });
    let acc = if elem.is_float() { Acc::F(out_f) } else { Acc::I(out_i) };
    from_acc(elem, out_shape, acc)
}

// ---------------------------------------------------------------------------- structure

/// The run-time result shape of `tensor.reshape`: the result type's, with one `?` inferred from
/// the element count (more than one `?` cannot be inferred and is a run-time error).
fn reshape(t: &Tensor, ty_shape: &[i64]) -> Result<Tensor, String> {
    let n = t.numel();
    let dynamic = ty_shape.iter().filter(|&&d| d == DYNAMIC).count();
    let known_dims: Vec<usize> = ty_shape.iter().filter(|&&d| d != DYNAMIC).map(|&d| d.max(0) as usize).collect();
    let known = numel(&known_dims);
    let fill = match dynamic {
        0 => 0,
        1 if known > 0 && n.is_multiple_of(known) => n / known,
        1 => {
            return Err(format!(
                "cannot reshape {} elements into a shape with static size {known} and one dynamic dim",
                n
            ))
        }
        _ => {
            return Err(
                "the result type has more than one dynamic dim, so the shape cannot be inferred at run time".into(),
            )
        }
    };
    let shape: Vec<usize> = ty_shape
        .iter()
        .map(|&d| if d == DYNAMIC { fill } else { d.max(0) as usize })
        .collect();
    if numel(&shape) != n {
        return Err(format!(
            "cannot reshape a {} ({n} elements) to shape [{}]",
            t.type_string(),
            shape_string(&shape)
        ));
    }
    Tensor::new(shape, t.data.clone())
}

/// `tensor.broadcast_to`: the result type's shape, where a `?` takes the operand's aligned dim.
fn broadcast_to(t: &Tensor, ty_shape: &[i64]) -> Result<Tensor, String> {
    if t.rank() > ty_shape.len() {
        return Err(format!(
            "a {} cannot be broadcast to rank {}",
            t.type_string(),
            ty_shape.len()
        ));
    }
    let off = ty_shape.len() - t.rank();
    let shape: Vec<usize> = ty_shape
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if d == DYNAMIC {
                if i >= off {
                    t.shape[i - off]
                } else {
                    1
                }
            } else {
                d.max(0) as usize
            }
        })
        .collect();
    t.broadcast_to(&shape)
}

fn slice(t: &Tensor, start: &[i64], limit: &[i64], stride: &[i64]) -> Result<Tensor, String> {
    let r = t.rank();
    if start.len() != r || limit.len() != r || stride.len() != r {
        return Err(format!("start, limit and stride must each have {r} entries (the rank)"));
    }
    let mut out_shape = Vec::with_capacity(r);
    for d in 0..r {
        let (lo, hi, st) = (start[d], limit[d], stride[d]);
        if st < 1 || lo < 0 || hi < lo || hi as u64 > t.shape[d] as u64 {
            return Err(format!(
                "slice [{lo}, {hi}) with stride {st} in dim {d} is out of range for the run-time size {}",
                t.shape[d]
            ));
        }
        out_shape.push(((hi - lo + st - 1) / st) as usize);
    }
    let st = strides(&t.shape);
    let mut idx = Vec::with_capacity(numel(&out_shape));
    for_each_index(&out_shape, |ix| {
        idx.push(
            (0..r)
                .map(|d| (start[d] as usize + ix[d] * stride[d] as usize) * st[d])
                .sum(),
        );
    });
    Ok(t.take(out_shape, &idx))
}

/// numpy `take` along `axis`; valid indices are `0 <= i < size` (a negative index is out of
/// range, unlike numpy).
fn gather(table: &Tensor, indices: &Tensor, axis: i64) -> Result<Tensor, String> {
    let axis = norm_axis(axis, table.rank())?;
    let ix = match indices.elem() {
        ElemType::I32 | ElemType::I64 => indices.data.to_i64s().unwrap_or_default(),
        e => return Err(format!("indices must be i32 or i64, not {e}")),
    };
    let size = table.shape[axis];
    let outer: usize = table.shape[..axis].iter().product();
    let inner: usize = table.shape[axis + 1..].iter().product();
    let mut out_shape: Vec<usize> = table.shape[..axis].to_vec();
    out_shape.extend(&indices.shape);
    out_shape.extend(&table.shape[axis + 1..]);
    check_numel(&out_shape)?;
    for (p, &i) in ix.iter().enumerate() {
        if i < 0 || i as u64 >= size as u64 {
            return Err(format!(
                "index {i} (at position {p} of the indices) is out of range for axis {axis} of size {size}"
            ));
        }
    }
    let mut idx = Vec::with_capacity(outer * ix.len() * inner);
    for o in 0..outer {
        for &i in &ix {
            for k in 0..inner {
                idx.push((o * size + i as usize) * inner + k);
            }
        }
    }
    let mut shape: Vec<usize> = table.shape[..axis].to_vec();
    shape.extend(&indices.shape);
    shape.extend(&table.shape[axis + 1..]);
    Ok(table.take(shape, &idx))
}
