//! Semantics of the `tensor` dialect ops, with numpy's rules: broadcasting, IEEE floats,
//! wrapping integers. Each op is written as directly as possible (index lists and loops over
//! whole tensors); speed is not a goal. The numeric rules:
//! - elementwise float ops compute in `f32` for f16, bf16 and f32 elements (f16/bf16 results are
//!   rounded to nearest-even, as numpy does for float16) and in `f64` for f64;
//! - reductions, `softmax`, `layer_norm`, `matmul` and `einsum` accumulate floats in `f64` and
//!   round once to the element type (the reference is the best-rounded value; compare other
//!   implementations with a tolerance);
//! - integers compute in `i64` and wrap to their width (two's complement, as numpy);
//!   `tensor.div` truncates toward zero (C, LLVM `sdiv`, StableHLO) and division by zero is a
//!   run-time error; `tensor.pow` with a negative integer exponent is a run-time error (numpy
//!   raises too); integer `mean` is the exact sum divided by the count, truncated toward zero.

use xcs_ir::{Attr, Context, Type, TypeKind, DYNAMIC};

use crate::tensor::elementwise::{fmax, fmin, BinaryFn as Bin, UnaryFn as Un};

use super::value::{
    broadcast_shapes, for_each_index, norm_axis, numel, shape_string, strides, ElemType, Lanes, RtValue, Tensor,
    TensorData,
};

/// What an op implementation may read: its attributes and declared result types.
pub(crate) struct OpInfo<'x> {
    pub ctx: &'x Context,
    pub attrs: Attr,
    pub result_types: Vec<Type>,
}

impl OpInfo<'_> {
    pub fn attr(&self, name: &str) -> Result<Attr, String> {
        self.ctx.dict_get(self.attrs, name).ok_or_else(|| format!("requires attribute '{name}'"))
    }
    pub fn i64(&self, name: &str) -> Result<i64, String> {
        self.ctx.as_int(self.attr(name)?).map(|v| v as i64).ok_or_else(|| format!("attribute '{name}' must be an integer"))
    }
    pub fn i64s(&self, name: &str) -> Result<Vec<i64>, String> {
        self.ctx.as_i64_array(self.attr(name)?).ok_or_else(|| format!("attribute '{name}' must be an array<i64>"))
    }
    pub fn str(&self, name: &str) -> Result<&str, String> {
        self.ctx.as_str(self.attr(name)?).ok_or_else(|| format!("attribute '{name}' must be a string"))
    }
    pub fn bool(&self, name: &str) -> Result<bool, String> {
        self.ctx.as_bool(self.attr(name)?).ok_or_else(|| format!("attribute '{name}' must be a bool"))
    }
    pub fn f64(&self, name: &str) -> Result<f64, String> {
        self.ctx.as_float(self.attr(name)?).ok_or_else(|| format!("attribute '{name}' must be a float"))
    }
    /// The (possibly dynamic) shape and element type of result `i`, which must be a ranked tensor.
    pub fn result_tensor_type(&self, i: usize) -> Result<(Vec<i64>, ElemType), String> {
        let t = *self.result_types.get(i).ok_or_else(|| format!("has no result #{i}"))?;
        match self.ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, .. } => {
                let e = ElemType::from_type(self.ctx, *elem).ok_or_else(|| {
                    format!("result element type '{}' is not supported", xcs_ir::printer::type_to_string(self.ctx, *elem))
                })?;
                Ok((shape.to_vec(), e))
            }
            _ => Err(format!("result #{i} is not a ranked tensor")),
        }
    }
}

/// Runs tensor op `name` (all but `tensor.fused`, which the interpreter runs) on `args`.
pub(crate) fn exec(name: &str, info: &OpInfo, args: &[&RtValue]) -> Result<Vec<RtValue>, String> {
    let mut ts: Vec<&Tensor> = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match a {
            RtValue::Tensor(t) => ts.push(t),
            other => return Err(format!("operand #{i} is a {}, not a tensor", other.type_string())),
        }
    }
    let arity = |n: usize| -> Result<(), String> {
        if ts.len() != n {
            return Err(format!("expects {n} operands, but got {}", ts.len()));
        }
        Ok(())
    };
    let out = match name {
        "tensor.constant" => {
            arity(0)?;
            super::value::tensor_from_attr(info.ctx, info.attr("value")?)?
        }
        "tensor.add" | "tensor.sub" | "tensor.mul" | "tensor.div" | "tensor.max" | "tensor.min" | "tensor.pow" => {
            arity(2)?;
            let op = match name {
                "tensor.add" => Bin::Add,
                "tensor.sub" => Bin::Sub,
                "tensor.mul" => Bin::Mul,
                "tensor.div" => Bin::Div,
                "tensor.max" => Bin::Max,
                "tensor.min" => Bin::Min,
                _ => Bin::Pow,
            };
            binary(op, ts[0], ts[1])?
        }
        "tensor.neg" | "tensor.abs" | "tensor.relu" | "tensor.exp" | "tensor.log" | "tensor.tanh" | "tensor.sigmoid"
        | "tensor.silu" | "tensor.sqrt" | "tensor.rsqrt" | "tensor.gelu" => {
            arity(1)?;
            let op = match name {
                "tensor.neg" => Un::Neg,
                "tensor.abs" => Un::Abs,
                "tensor.relu" => Un::Relu,
                "tensor.exp" => Un::Exp,
                "tensor.log" => Un::Log,
                "tensor.tanh" => Un::Tanh,
                "tensor.sigmoid" => Un::Sigmoid,
                "tensor.silu" => Un::Silu,
                "tensor.sqrt" => Un::Sqrt,
                "tensor.rsqrt" => Un::Rsqrt,
                _ => match info.str("approximate")? {
                    "none" => Un::GeluErf,
                    "tanh" => Un::GeluTanh,
                    other => return Err(format!("unknown approximate mode \"{other}\"")),
                },
            };
            unary(op, ts[0])?
        }
        "tensor.cmp" => {
            arity(2)?;
            cmp(info.str("predicate")?, ts[0], ts[1])?
        }
        "tensor.select" => {
            arity(3)?;
            select(ts[0], ts[1], ts[2])?
        }
        "tensor.cast" => {
            arity(1)?;
            let (_, elem) = info.result_tensor_type(0)?;
            ts[0].cast(elem)?
        }
        "tensor.matmul" => {
            arity(2)?;
            matmul(ts[0], ts[1])?
        }
        "tensor.einsum" => einsum(info.str("equation")?, &ts)?,
        "tensor.reduce" => {
            arity(1)?;
            reduce(ts[0], info.str("kind")?, &info.i64s("axes")?, info.bool("keepdims")?)?
        }
        "tensor.softmax" => {
            arity(1)?;
            softmax(ts[0], info.i64("axis")?)?
        }
        "tensor.layer_norm" => {
            arity(3)?;
            layer_norm(ts[0], ts[1], ts[2], info.i64("axis")?, info.f64("epsilon")?)?
        }
        "tensor.transpose" => {
            arity(1)?;
            let perm = info.i64s("perm")?;
            if perm.iter().any(|&p| p < 0) {
                return Err(format!("perm {perm:?} is not a permutation"));
            }
            ts[0].transpose(&perm.iter().map(|&p| p as usize).collect::<Vec<_>>())?
        }
        "tensor.reshape" => {
            arity(1)?;
            let (shape, _) = info.result_tensor_type(0)?;
            reshape(ts[0], &shape)?
        }
        "tensor.broadcast_to" => {
            arity(1)?;
            let (shape, _) = info.result_tensor_type(0)?;
            broadcast_to(ts[0], &shape)?
        }
        "tensor.slice" => {
            arity(1)?;
            slice(ts[0], &info.i64s("start")?, &info.i64s("limit")?, &info.i64s("stride")?)?
        }
        "tensor.concat" => {
            if ts.is_empty() {
                return Err("needs at least one operand".into());
            }
            let axis = norm_axis(info.i64("axis")?, ts[0].rank())?;
            Tensor::concat(&ts, axis)?
        }
        "tensor.gather" => {
            arity(2)?;
            gather(ts[0], ts[1], info.i64("axis")?)?
        }
        _ => return Err("is not supported by the interpreter".into()),
    };
    Ok(vec![RtValue::Tensor(out)])
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

fn binary(op: Bin, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let elem = same_elem(a, b)?;
    let (a, b) = broadcast_pair(a, b)?;
    let lanes = match (a.data.lanes(), b.data.lanes()) {
        (Lanes::F32(x), Lanes::F32(y)) => Lanes::F32(x.iter().zip(&y).map(|(&x, &y)| op.eval_float(x, y)).collect()),
        (Lanes::F64(x), Lanes::F64(y)) => Lanes::F64(x.iter().zip(&y).map(|(&x, &y)| op.eval_float(x, y)).collect()),
        (Lanes::I64(x), Lanes::I64(y)) if elem.is_int() => {
            Lanes::I64(x.iter().zip(&y).map(|(&x, &y)| op.eval_int(x, y)).collect::<Result<_, _>>()?)
        }
        _ => return Err(unsupported(elem)),
    };
    Ok(Tensor { shape: a.shape.clone(), data: TensorData::from_lanes(elem, lanes)? })
}

fn unary(op: Un, a: &Tensor) -> Result<Tensor, String> {
    let elem = a.elem();
    let lanes = match a.data.lanes() {
        Lanes::F32(x) => Lanes::F32(x.iter().map(|&x| op.eval_float(x)).collect()),
        Lanes::F64(x) => Lanes::F64(x.iter().map(|&x| op.eval_float(x)).collect()),
        Lanes::I64(x) if elem.is_int() => Lanes::I64(x.iter().map(|&x| op.eval_int(x)).collect::<Result<_, _>>()?),
        _ => return Err(unsupported(elem)),
    };
    Ok(Tensor { shape: a.shape.clone(), data: TensorData::from_lanes(elem, lanes)? })
}

fn cmp(pred: &str, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    use std::cmp::Ordering;
    let elem = same_elem(a, b)?;
    let (a, b) = broadcast_pair(a, b)?;
    let test = |o: Option<Ordering>| -> Result<bool, String> {
        Ok(match pred {
            "eq" => o == Some(Ordering::Equal),
            "ne" => o != Some(Ordering::Equal),
            "lt" => o == Some(Ordering::Less),
            "le" => matches!(o, Some(Ordering::Less | Ordering::Equal)),
            "gt" => o == Some(Ordering::Greater),
            "ge" => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
            other => return Err(format!("unknown predicate \"{other}\"")),
        })
    };
    // IEEE: a NaN is unordered, so only `ne` holds.
    let out: Vec<bool> = match (a.data.lanes(), b.data.lanes()) {
        (Lanes::F32(x), Lanes::F32(y)) => x.iter().zip(&y).map(|(x, y)| test(x.partial_cmp(y))).collect::<Result<_, _>>()?,
        (Lanes::F64(x), Lanes::F64(y)) => x.iter().zip(&y).map(|(x, y)| test(x.partial_cmp(y))).collect::<Result<_, _>>()?,
        (Lanes::I64(x), Lanes::I64(y)) => x.iter().zip(&y).map(|(x, y)| test(Some(x.cmp(y)))).collect::<Result<_, _>>()?,
        (Lanes::Bool(x), Lanes::Bool(y)) => x.iter().zip(&y).map(|(x, y)| test(Some(x.cmp(y)))).collect::<Result<_, _>>()?,
        (Lanes::Str(x), Lanes::Str(y)) => x.iter().zip(&y).map(|(x, y)| test(Some(x.cmp(y)))).collect::<Result<_, _>>()?,
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
    let (c, a, b) = (c.broadcast_to(&shape)?, a.broadcast_to(&shape)?, b.broadcast_to(&shape)?);
    let TensorData::I1(cond) = &c.data else { return Err("condition must have i1 elements".into()) };
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
    let axes = crate::tensor::reduce_axes(axes, rank)?;
    // Move the reduced dims last: each output element reduces one contiguous row.
    let kept: Vec<usize> = (0..rank).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<usize> = kept.iter().chain(&axes).copied().collect();
    let moved = t.transpose(&perm)?;
    let row: usize = axes.iter().map(|&d| t.shape[d]).product();
    let nout: usize = kept.iter().map(|&d| t.shape[d]).product();
    let out_shape: Vec<usize> = (0..rank)
        .filter_map(|d| if axes.contains(&d) { keepdims.then_some(1) } else { Some(t.shape[d]) })
        .collect();
    if row == 0 && matches!(kind, "max" | "min") {
        return Err(format!("'{kind}' reduction of an empty axis (zero-size array has no identity)"));
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
        return Err(format!("operands must have rank >= 2, but are a {} and a {}", a.type_string(), b.type_string()));
    }
    let (ra, rb) = (a.rank(), b.rank());
    let (m, k) = (a.shape[ra - 2], a.shape[ra - 1]);
    let (k2, n) = (b.shape[rb - 2], b.shape[rb - 1]);
    if k != k2 {
        return Err(format!("contraction dimensions differ: lhs {} has K = {k}, rhs {} has K = {k2}", a.type_string(), b.type_string()));
    }
    let batch = broadcast_shapes(&a.shape[..ra - 2], &b.shape[..rb - 2]).map_err(|e| format!("batch dimensions: {e}"))?;
    let mut sa = batch.clone();
    sa.extend([m, k]);
    let mut sb = batch.clone();
    sb.extend([k, n]);
    let (a, b) = (a.broadcast_to(&sa)?, b.broadcast_to(&sb)?);
    let nb = numel(&batch);
    let mut out_shape = batch;
    out_shape.extend([m, n]);
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
    let eq = crate::tensor::parse_einsum(equation, ts.len())?;
    let Some(first) = ts.first() else { return Err("needs at least one operand".into()) };
    let elem = first.elem();
    let mut size = [usize::MAX; 128];
    for (i, (labels, t)) in eq.inputs.iter().zip(ts).enumerate() {
        if t.elem() != elem {
            return Err(format!("operand #{i} has element type {}, operand #0 has {elem}", t.elem()));
        }
        if labels.len() != t.rank() {
            return Err(format!("operand #{i} is a {} but the equation gives it {} labels", t.type_string(), labels.len()));
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
    let sum_shape: Vec<usize> = contracted.iter().map(|&c| size[c as usize & 127]).collect();
    let op_strides: Vec<Vec<usize>> = ts.iter().map(|t| strides(&t.shape)).collect();
    let accs: Vec<Acc> = ts.iter().map(|t| acc_of(t)).collect::<Result<_, _>>()?;
    // Value of each label at the current point of the label space.
    let mut at = [0usize; 128];
    let offset = |at: &[usize; 128], i: usize| -> usize {
        eq.inputs[i].iter().zip(&op_strides[i]).map(|(&c, &s)| at[c as usize & 127] * s).sum()
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
    let known: usize = ty_shape.iter().filter(|&&d| d != DYNAMIC).map(|&d| d.max(0) as usize).product();
    let fill = match dynamic {
        0 => 0,
        1 if known > 0 && n.is_multiple_of(known) => n / known,
        1 => {
            return Err(format!("cannot reshape {} elements into a shape with static size {known} and one dynamic dim", n))
        }
        _ => return Err("the result type has more than one dynamic dim, so the shape cannot be inferred at run time".into()),
    };
    let shape: Vec<usize> = ty_shape.iter().map(|&d| if d == DYNAMIC { fill } else { d.max(0) as usize }).collect();
    if numel(&shape) != n {
        return Err(format!("cannot reshape a {} ({n} elements) to shape [{}]", t.type_string(), shape_string(&shape)));
    }
    Tensor::new(shape, t.data.clone())
}

/// `tensor.broadcast_to`: the result type's shape, where a `?` takes the operand's aligned dim.
fn broadcast_to(t: &Tensor, ty_shape: &[i64]) -> Result<Tensor, String> {
    if t.rank() > ty_shape.len() {
        return Err(format!("a {} cannot be broadcast to rank {}", t.type_string(), ty_shape.len()));
    }
    let off = ty_shape.len() - t.rank();
    let shape: Vec<usize> = ty_shape
        .iter()
        .enumerate()
        .map(|(i, &d)| if d == DYNAMIC { if i >= off { t.shape[i - off] } else { 1 } } else { d.max(0) as usize })
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
        idx.push((0..r).map(|d| (start[d] as usize + ix[d] * stride[d] as usize) * st[d]).sum());
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
    for (p, &i) in ix.iter().enumerate() {
        if i < 0 || i as u64 >= size as u64 {
            return Err(format!("index {i} (at position {p} of the indices) is out of range for axis {axis} of size {size}"));
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
