//! The per-op rules of `cost-annotate` for the tensor dialect: the symbolic shape of each
//! result (dims are canonical [`Expr`]s: numbers, names from `cost.dims`, products, sums,
//! quotients) and the leaf kernel with its bindings (see `kernels/` and `docs/cost.md`).

use xcs_dialects::shape::{norm_axis, ranked};
use xcs_dialects::symbolic::Expr;
use xcs_dialects::tensor::{parse_einsum, reduce_axes};
use xcs_ir::{AttrKind, Body, Context, Op, Type, Value, DYNAMIC};

/// A symbolic shape.
pub type Dims = Vec<Expr>;

/// What the pass knows about a tensor value.
#[derive(Clone, Debug)]
pub struct ValInfo {
    pub dims: Dims,
    /// Bytes per element.
    pub esize: i128,
    /// An immediate: a rank-0 or splat constant (or a view of one), folded into its users.
    pub imm: bool,
}

/// The outcome of a rule: result shapes, the kernel-map key and the bindings (without
/// `bytes`, which is `bytes_of`'s element size).
pub struct Rule {
    pub dims: Vec<Option<Dims>>,
    pub key: String,
    pub bindings: Vec<(&'static str, Expr)>,
    /// The value whose element size is `bytes` (an operand or the result).
    pub bytes: i128,
    /// A view (reshape, transpose, broadcast_to, slice): immediacy passes through it.
    pub view: bool,
    /// Dims that could not be inferred and got fresh names (for a warning).
    pub guessed: bool,
}

pub type E = Result<Expr, String>;

fn ex(r: Result<Expr, xcs_dialects::symbolic::ExprError>) -> E {
    r.map_err(|e| e.message)
}

pub fn product<'a>(it: impl IntoIterator<Item = &'a Expr>) -> E {
    let mut acc = Expr::one();
    for e in it {
        acc = ex(acc.mul(e))?;
    }
    Ok(acc)
}

pub fn sum<'a>(it: impl IntoIterator<Item = &'a Expr>) -> E {
    let mut acc = Expr::zero();
    for e in it {
        acc = ex(acc.add(e))?;
    }
    Ok(acc)
}

/// Bytes per element of an element type (`i1` is one byte).
pub fn elem_bytes(ctx: &Context, t: Type) -> i128 {
    ctx.bit_width(t).map_or(0, |w| (w as i128 + 7) / 8)
}

/// The dims of a type (`?` from `fresh`) and its element size, for ranked tensors.
pub fn type_dims(ctx: &Context, t: Type, fresh: &mut dyn FnMut() -> Expr) -> Option<(Dims, i128)> {
    let (s, e) = ranked(ctx, t)?;
    let dims = s.iter().map(|&d| if d == DYNAMIC { fresh() } else { Expr::constant(d as i128) }).collect();
    Some((dims, elem_bytes(ctx, e)))
}

/// True if `op` is a `tensor.constant` of rank 0 or with a splat value.
pub fn is_immediate_constant(ctx: &Context, body: &Body, op: Op) -> bool {
    if ctx.op_name_str(body.op_name(op)) != "tensor.constant" {
        return false;
    }
    let Some(v) = body.attr(ctx, op, "value") else { return false };
    let AttrKind::DenseElements { ty, data } = ctx.attr_kind(v) else { return false };
    let Some((shape, _)) = ranked(ctx, *ty) else { return false };
    if shape.is_empty() {
        return true;
    }
    match data {
        xcs_ir::attrs::DenseData::Splat(_) => true,
        xcs_ir::attrs::DenseData::Elements(b) => {
            let n: i64 = shape.iter().product();
            if n <= 0 || b.len() % n as usize != 0 {
                return false;
            }
            let w = b.len() / n as usize;
            w > 0 && b.chunks(w).all(|c| c == &b[..w])
        }
        xcs_ir::attrs::DenseData::Strings(_) => false,
    }
}

/// numpy broadcasting of symbolic shapes: a dim that is 1 takes the other; otherwise the
/// dims are equal (or the program fails at run time), and the first is taken.
pub fn broadcast(a: &Dims, b: &Dims) -> Dims {
    let n = a.len().max(b.len());
    let one = Expr::one();
    (0..n)
        .map(|i| {
            let x = (i + a.len()).checked_sub(n).map(|j| &a[j]);
            let y = (i + b.len()).checked_sub(n).map(|j| &b[j]);
            match (x, y) {
                (Some(x), Some(y)) => if *x == one { y.clone() } else { x.clone() },
                (Some(x), None) => x.clone(),
                (None, Some(y)) => y.clone(),
                (None, None) => one.clone(),
            }
        })
        .collect()
}

/// The result shape of a reshape of `input` to the type's shape `out`: static dims are theirs;
/// one `?` is the element count divided by the other dims; several `?` are matched with the
/// input's leading and trailing dims while those agree, the last remaining one being the
/// quotient; dims that still remain get fresh names (and `true` is returned).
pub fn reshape_dims(input: &Dims, out: &[i64], fresh: &mut dyn FnMut() -> Expr) -> Result<(Dims, bool), String> {
    let total = product(input)?;
    let mut res: Vec<Option<Expr>> = out.iter().map(|&d| (d != DYNAMIC).then(|| Expr::constant(d as i128))).collect();
    let unknown = |res: &[Option<Expr>]| res.iter().filter(|d| d.is_none()).count();
    let quotient = |res: &[Option<Expr>]| -> E {
        let known = product(res.iter().flatten())?;
        if known.is_zero() {
            return Ok(Expr::zero());
        }
        ex(total.floordiv(&known))
    };
    let fill_last = |mut res: Vec<Option<Expr>>| -> Result<Dims, String> {
        if let Some(i) = res.iter().position(|d| d.is_none()) {
            res[i] = Some(quotient(&res)?);
        }
        Ok(res.into_iter().map(|d| d.unwrap_or_default()).collect())
    };
    match unknown(&res) {
        0 => return Ok((res.into_iter().flatten().collect(), false)),
        1 => return Ok((fill_last(res)?, false)),
        _ => {}
    }
    // Leading and trailing dims that line up with the input's.
    let mut tried = res.clone();
    let n = out.len().min(input.len());
    let mut front = 0;
    while front < n {
        match &tried[front] {
            None => tried[front] = Some(input[front].clone()),
            Some(d) if *d == input[front] => {}
            Some(_) => break,
        }
        front += 1;
    }
    let mut back = 0;
    while back < n - front.min(n) {
        let (i, j) = (out.len() - 1 - back, input.len() - 1 - back);
        if i < front || j < front {
            break;
        }
        match &tried[i] {
            None => tried[i] = Some(input[j].clone()),
            Some(d) if *d == input[j] => {}
            Some(_) => break,
        }
        back += 1;
    }
    match unknown(&tried) {
        0 if product(tried.iter().flatten())? == total => return Ok((tried.into_iter().flatten().collect(), false)),
        1 => {
            let d = fill_last(tried)?;
            if product(&d)? == total {
                return Ok((d, false));
            }
        }
        _ => {}
    }
    // Fresh names for all but the last unknown dim, which is the quotient.
    let unknowns: Vec<usize> = res.iter().enumerate().filter(|(_, d)| d.is_none()).map(|(i, _)| i).collect();
    for &i in &unknowns[..unknowns.len() - 1] {
        res[i] = Some(fresh());
    }
    Ok((fill_last(res)?, true))
}

struct Ops<'a, 'e> {
    ctx: &'a Context,
    body: &'a Body,
    op: Op,
    env: &'a dyn Fn(Value) -> Option<&'e ValInfo>,
}

impl<'a, 'e> Ops<'a, 'e> {
    fn info(&self, i: usize) -> Result<&'e ValInfo, String> {
        let v = self.body.operand(self.op, i);
        (self.env)(v).ok_or_else(|| format!("operand #{i} has no known shape"))
    }
    fn dims(&self, i: usize) -> Result<&'e Dims, String> {
        self.info(i).map(|x| &x.dims)
    }
    /// Elements read from operand `i` (0 for an immediate).
    fn read(&self, i: usize) -> E {
        let x = self.info(i)?;
        if x.imm {
            Ok(Expr::zero())
        } else {
            product(&x.dims)
        }
    }
    fn esize(&self, i: usize) -> Result<i128, String> {
        self.info(i).map(|x| x.esize)
    }
    fn result_esize(&self) -> i128 {
        self.body.result_types(self.op).first().and_then(|&t| ranked(self.ctx, t)).map_or(0, |(_, e)| elem_bytes(self.ctx, e))
    }
    fn i64_attr(&self, name: &str) -> Result<i64, String> {
        self.body
            .attr(self.ctx, self.op, name)
            .and_then(|a| self.ctx.as_int(a))
            .map(|v| v as i64)
            .ok_or_else(|| format!("missing integer attribute '{name}'"))
    }
    fn i64s_attr(&self, name: &str) -> Result<Vec<i64>, String> {
        self.body
            .attr(self.ctx, self.op, name)
            .and_then(|a| self.ctx.as_i64_array(a))
            .map(|v| v.to_vec())
            .ok_or_else(|| format!("missing array<i64> attribute '{name}'"))
    }
    fn str_attr(&self, name: &str) -> Option<&'a str> {
        self.body.attr(self.ctx, self.op, name).and_then(|a| self.ctx.as_str(a))
    }
    fn result_shape(&self) -> Result<&'a [i64], String> {
        self.body
            .result_types(self.op)
            .first()
            .and_then(|&t| ranked(self.ctx, t))
            .map(|(s, _)| s)
            .ok_or_else(|| "the result is not a ranked tensor".to_string())
    }
}

fn rule(key: impl Into<String>, dims: Dims, bindings: Vec<(&'static str, Expr)>, bytes: i128) -> Rule {
    Rule { dims: vec![Some(dims)], key: key.into(), bindings, bytes, view: false, guessed: false }
}

/// The rule of a tensor-dialect op (`None` for ops this module does not know). `env` gives
/// the operands' shapes; `fresh` names dims that cannot be inferred.
pub fn op_rule<'e>(
    ctx: &Context,
    body: &Body,
    op: Op,
    env: &dyn Fn(Value) -> Option<&'e ValInfo>,
    fresh: &mut dyn FnMut() -> Expr,
) -> Result<Option<Rule>, String> {
    let name = ctx.op_name_str(body.op_name(op));
    let o = Ops { ctx, body, op, env };
    let r = match name {
        "tensor.constant" => {
            let t = body.result_types(op)[0];
            let (d, es) = type_dims(ctx, t, fresh).ok_or("the result is not a ranked tensor")?;
            rule(name, d, vec![], es)
        }
        "tensor.add" | "tensor.sub" | "tensor.mul" | "tensor.div" | "tensor.max" | "tensor.min" | "tensor.pow" => {
            let out = broadcast(o.dims(0)?, o.dims(1)?);
            let n = product(&out)?;
            let read = ex(o.read(0)?.add(&o.read(1)?))?;
            rule(name, out, vec![("num_elements", n), ("read_elements", read)], o.esize(0)?)
        }
        "tensor.neg" | "tensor.abs" | "tensor.relu" | "tensor.exp" | "tensor.log" | "tensor.tanh" | "tensor.sigmoid" | "tensor.silu"
        | "tensor.sqrt" | "tensor.rsqrt" | "tensor.gelu" => {
            let out = o.dims(0)?.clone();
            let key = if name == "tensor.gelu" && o.str_attr("approximate") == Some("tanh") {
                "tensor.gelu[approximate=tanh]".to_string()
            } else {
                name.to_string()
            };
            let n = product(&out)?;
            rule(key, out, vec![("num_elements", n), ("read_elements", o.read(0)?)], o.esize(0)?)
        }
        "tensor.cmp" => {
            let out = broadcast(o.dims(0)?, o.dims(1)?);
            let n = product(&out)?;
            let read = ex(o.read(0)?.add(&o.read(1)?))?;
            let ob = Expr::constant(o.result_esize());
            rule(name, out, vec![("num_elements", n), ("read_elements", read), ("out_bytes", ob)], o.esize(0)?)
        }
        "tensor.select" => {
            let out = broadcast(&broadcast(o.dims(0)?, o.dims(1)?), o.dims(2)?);
            let n = product(&out)?;
            let read = ex(o.read(1)?.add(&o.read(2)?))?;
            let cb = Expr::constant(o.esize(0)?);
            rule(
                name,
                out,
                vec![("num_elements", n), ("cond_elements", o.read(0)?), ("read_elements", read), ("cond_bytes", cb)],
                o.esize(1)?,
            )
        }
        "tensor.cast" => {
            let out = o.dims(0)?.clone();
            let n = product(&out)?;
            let ob = Expr::constant(o.result_esize());
            rule(name, out, vec![("num_elements", n), ("read_elements", o.read(0)?), ("out_bytes", ob)], o.esize(0)?)
        }
        "tensor.matmul" => matmul(&o)?,
        "tensor.einsum" => einsum(&o)?,
        "tensor.reduce" => {
            let x = o.dims(0)?;
            let axes = reduce_axes(&o.i64s_attr("axes")?, x.len())?;
            let keep = body.attr(ctx, op, "keepdims").and_then(|a| ctx.as_bool(a)).unwrap_or(false);
            let kind = o.str_attr("kind").unwrap_or("sum");
            let out: Dims = x
                .iter()
                .enumerate()
                .filter_map(|(i, d)| if axes.contains(&i) { keep.then(Expr::one) } else { Some(d.clone()) })
                .collect();
            let size = product(axes.iter().map(|&a| &x[a]))?;
            let n = product(&out)?;
            rule(format!("tensor.reduce[kind={kind}]"), out, vec![("num_outputs", n), ("reduce_size", size)], o.esize(0)?)
        }
        "tensor.softmax" => {
            let x = o.dims(0)?;
            let axis = norm_axis(o.i64_attr("axis")?, x.len())?;
            let rows = product(x.iter().enumerate().filter(|&(i, _)| i != axis).map(|(_, d)| d))?;
            rule(name, x.clone(), vec![("num_rows", rows), ("row_size", x[axis].clone())], o.esize(0)?)
        }
        "tensor.layer_norm" => {
            let x = o.dims(0)?;
            let axis = norm_axis(o.i64_attr("axis")?, x.len())?;
            let rows = product(&x[..axis])?;
            let size = product(&x[axis..])?;
            rule(name, x.clone(), vec![("num_rows", rows), ("normalized_size", size)], o.esize(0)?)
        }
        "tensor.transpose" => {
            let x = o.dims(0)?;
            let perm = o.i64s_attr("perm")?;
            let out = perm.iter().map(|&p| x.get(p as usize).cloned().ok_or("perm out of range")).collect::<Result<Dims, _>>()?;
            Rule { view: true, ..rule(name, out, vec![], o.esize(0)?) }
        }
        "tensor.reshape" => {
            let (out, guessed) = reshape_dims(o.dims(0)?, o.result_shape()?, fresh)?;
            Rule { view: true, guessed, ..rule(name, out, vec![], o.esize(0)?) }
        }
        "tensor.broadcast_to" => {
            let x = o.dims(0)?;
            let shape = o.result_shape()?;
            let mut guessed = false;
            let out = shape
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    if d != DYNAMIC {
                        return Expr::constant(d as i128);
                    }
                    match (i + x.len()).checked_sub(shape.len()).map(|j| &x[j]) {
                        Some(s) if *s != Expr::one() => s.clone(),
                        _ => {
                            guessed = true;
                            fresh()
                        }
                    }
                })
                .collect();
            Rule { view: true, guessed, ..rule(name, out, vec![], o.esize(0)?) }
        }
        "tensor.slice" => {
            let t = body.result_types(op)[0];
            let (out, _) = type_dims(ctx, t, fresh).ok_or("the result is not a ranked tensor")?;
            Rule { view: true, ..rule(name, out, vec![], o.esize(0)?) }
        }
        "tensor.concat" => {
            let n_in = body.num_operands(op);
            let first = o.dims(0)?;
            let axis = norm_axis(o.i64_attr("axis")?, first.len())?;
            let mut out = first.clone();
            let mut read = Expr::zero();
            let mut along = Vec::with_capacity(n_in);
            for i in 0..n_in {
                along.push(o.dims(i)?.get(axis).cloned().ok_or("concat operands differ in rank")?);
                read = ex(read.add(&o.read(i)?))?;
            }
            out[axis] = sum(&along)?;
            let n = product(&out)?;
            rule(name, out, vec![("read_elements", read), ("num_elements", n)], o.esize(0)?)
        }
        "tensor.gather" => {
            let t = o.dims(0)?;
            let idx = o.dims(1)?;
            let axis = norm_axis(o.i64_attr("axis")?, t.len())?;
            let mut out: Dims = t[..axis].to_vec();
            out.extend(idx.iter().cloned());
            out.extend(t[axis + 1..].iter().cloned());
            let ib = o.esize(1)?;
            if axis == 0 && t.len() == 2 && ib == 8 && !o.info(0)?.imm && !o.info(1)?.imm {
                let ni = product(idx)?;
                rule(
                    "tensor.gather[embedding]",
                    out,
                    vec![("num_indices", ni), ("embedding_dim", t[1].clone()), ("index_bytes", Expr::constant(ib))],
                    o.esize(0)?,
                )
            } else {
                let n = product(&out)?;
                rule(
                    name,
                    out,
                    vec![("num_elements", n), ("num_indices", o.read(1)?), ("index_bytes", Expr::constant(ib))],
                    o.esize(0)?,
                )
            }
        }
        _ => return Ok(None),
    };
    Ok(Some(r))
}

fn matmul(o: &Ops<'_, '_>) -> Result<Rule, String> {
    let (a, b) = (o.dims(0)?, o.dims(1)?);
    if a.len() < 2 || b.len() < 2 {
        return Err("matmul operands must have rank >= 2".into());
    }
    let (m, k) = (a[a.len() - 2].clone(), a[a.len() - 1].clone());
    let n = b[b.len() - 1].clone();
    let (ab, bb) = (&a[..a.len() - 2], &b[..b.len() - 2]);
    let batch = broadcast(&ab.to_vec(), &bb.to_vec());
    let mut out = batch.clone();
    out.extend([m.clone(), n.clone()]);
    let imm = o.info(0)?.imm || o.info(1)?.imm;
    let es = o.esize(0)?;
    if b.len() == 2 && !imm {
        // x @ W: the lhs's leading dims are rows.
        let rows = product(&a[..a.len() - 1])?;
        return Ok(rule("tensor.matmul", out, vec![("M", rows), ("K", k), ("N", n)], es));
    }
    if ab.len() == bb.len() && ab == bb && !imm {
        let bsz = product(ab)?;
        return Ok(rule("tensor.matmul[batched]", out, vec![("B", bsz), ("M", m), ("K", k), ("N", n)], es));
    }
    let lb = if o.info(0)?.imm { Expr::zero() } else { product(ab)? };
    let rb = if o.info(1)?.imm { Expr::zero() } else { product(bb)? };
    Ok(rule(
        "tensor.matmul[broadcast]",
        out,
        vec![("batch", product(&batch)?), ("lhs_batch", lb), ("rhs_batch", rb), ("M", m), ("K", k), ("N", n)],
        es,
    ))
}

fn einsum(o: &Ops<'_, '_>) -> Result<Rule, String> {
    let n_in = o.body.num_operands(o.op);
    let eq = o.str_attr("equation").ok_or("missing 'equation'")?;
    let e = parse_einsum(eq, n_in)?;
    let mut sizes: Vec<(char, Expr)> = Vec::new();
    let mut read = Expr::zero();
    for (i, labels) in e.inputs.iter().enumerate() {
        let d = o.dims(i)?;
        read = ex(read.add(&o.read(i)?))?;
        for (&c, x) in labels.iter().zip(d) {
            match sizes.iter_mut().find(|(l, _)| *l == c) {
                Some((_, s)) => {
                    if *s == Expr::one() {
                        *s = x.clone();
                    }
                }
                None => sizes.push((c, x.clone())),
            }
        }
    }
    let out: Dims = e
        .output
        .iter()
        .map(|c| sizes.iter().find(|(l, _)| l == c).map(|(_, s)| s.clone()).unwrap_or_else(Expr::one))
        .collect();
    let terms = product(sizes.iter().map(|(_, s)| s))?;
    let n = product(&out)?;
    let es = o.esize(0)?;
    let mut b = vec![("terms", terms), ("read_elements", read), ("num_elements", n)];
    let key = match n_in {
        1 => "tensor.einsum[unary]",
        2 => "tensor.einsum",
        _ => {
            b.insert(0, ("num_operands", Expr::constant(n_in as i128)));
            "tensor.einsum[nary]"
        }
    };
    Ok(rule(key, out, b, es))
}
