//! The cost rules of the tensor ops (`dyn CostRule`, see `interfaces/cost.rs`): each op's
//! symbolic result shapes and the key and bindings of its leaf kernel in `kernels/` (the
//! parameters of `kernels/<kernel>.json`, reached through `kernels/kernel_name_map.json`).
//! The counting convention behind the kernels is in `docs/cost.md`.

use std::borrow::Cow;

use crate::interfaces::cost::{add, broadcast, product, reshape_dims, sum, CostFn, CostOp, Dims, Rule};
use crate::shape::{norm_axis, ranked};
use crate::symbolic::Expr;
use xcs_ir::attrs::DenseData;
use xcs_ir::{AttrKind, DYNAMIC};

use super::{parse_einsum, reduce_axes};

type RuleResult = Result<Rule, String>;

/// The elementwise ops without attributes (`add` ... `pow`, `neg` ... `rsqrt`): the operands
/// broadcast; key: the op's name.
pub static ELEMENTWISE: CostFn = CostFn(|op| elementwise(op, op.key()));
/// `gelu`: as [`ELEMENTWISE`], the tanh form with key `tensor.gelu[approximate=tanh]`.
pub static GELU: CostFn = CostFn(gelu);
pub static CMP: CostFn = CostFn(cmp);
pub static SELECT: CostFn = CostFn(select);
pub static CAST: CostFn = CostFn(cast);
/// Keys `tensor.matmul` (a 2-d rhs: `x @ W`), `[batched]` (equal batch dims) and `[broadcast]`.
pub static MATMUL: CostFn = CostFn(matmul);
/// Keys `tensor.einsum` (two operands), `[unary]` and `[nary]`.
pub static EINSUM: CostFn = CostFn(einsum);
/// Key `tensor.reduce[kind=K]`.
pub static REDUCE: CostFn = CostFn(reduce);
pub static SOFTMAX: CostFn = CostFn(softmax);
pub static LAYER_NORM: CostFn = CostFn(layer_norm);
pub static TRANSPOSE: CostFn = CostFn(transpose);
pub static RESHAPE: CostFn = CostFn(reshape);
pub static BROADCAST_TO: CostFn = CostFn(broadcast_to);
pub static SLICE: CostFn = CostFn(slice);
pub static CONCAT: CostFn = CostFn(concat);
/// Key `tensor.gather[embedding]` for a row lookup in a 2-d table by i64 indices.
pub static GATHER: CostFn = CostFn(gather);
/// Rank-0 and splat constants are immediates.
pub static CONSTANT: CostFn = CostFn(constant);

/// The broadcast shape of all operands.
fn broadcast_all(op: &CostOp) -> Result<Dims, String> {
    let mut out = op.dims(0)?.clone();
    for i in 1..op.num_operands() {
        out = broadcast(&out, op.dims(i)?);
    }
    Ok(out)
}

/// Elements read from all operands.
fn read_all(op: &CostOp) -> Result<Expr, String> {
    let mut read = op.read(0)?;
    for i in 1..op.num_operands() {
        read = add(&read, &op.read(i)?)?;
    }
    Ok(read)
}

fn elementwise(op: &CostOp, key: Cow<'static, str>) -> RuleResult {
    let out = broadcast_all(op)?;
    let n = product(&out)?;
    Ok(Rule::new(
        key,
        out,
        vec![("num_elements", n), ("read_elements", read_all(op)?)],
        op.esize(0)?,
    ))
}

fn gelu(op: &mut CostOp) -> RuleResult {
    let key = if op.str_attr("approximate") == Some("tanh") {
        op.variant_key("approximate=tanh")
    } else {
        op.key()
    };
    elementwise(op, key)
}

fn cmp(op: &mut CostOp) -> RuleResult {
    let out = broadcast(op.dims(0)?, op.dims(1)?);
    let n = product(&out)?;
    let out_bytes = Expr::constant(op.result_esize());
    let bindings = vec![
        ("num_elements", n),
        ("read_elements", read_all(op)?),
        ("out_bytes", out_bytes),
    ];
    Ok(Rule::new(op.key(), out, bindings, op.esize(0)?))
}

fn select(op: &mut CostOp) -> RuleResult {
    let out = broadcast(&broadcast(op.dims(0)?, op.dims(1)?), op.dims(2)?);
    let n = product(&out)?;
    let read = add(&op.read(1)?, &op.read(2)?)?;
    let cond_bytes = Expr::constant(op.esize(0)?);
    let bindings = vec![
        ("num_elements", n),
        ("cond_elements", op.read(0)?),
        ("read_elements", read),
        ("cond_bytes", cond_bytes),
    ];
    Ok(Rule::new(op.key(), out, bindings, op.esize(1)?))
}

fn cast(op: &mut CostOp) -> RuleResult {
    let out = op.dims(0)?.clone();
    let n = product(&out)?;
    let out_bytes = Expr::constant(op.result_esize());
    let bindings = vec![
        ("num_elements", n),
        ("read_elements", op.read(0)?),
        ("out_bytes", out_bytes),
    ];
    Ok(Rule::new(op.key(), out, bindings, op.esize(0)?))
}

fn matmul(op: &mut CostOp) -> RuleResult {
    let (a, b) = (op.dims(0)?, op.dims(1)?);
    if a.len() < 2 || b.len() < 2 {
        return Err("matmul operands must have rank >= 2".into());
    }
    let (m, k) = (a[a.len() - 2].clone(), a[a.len() - 1].clone());
    let n = b[b.len() - 1].clone();
    let (lhs_batch, rhs_batch) = (&a[..a.len() - 2], &b[..b.len() - 2]);
    let batch = broadcast(lhs_batch, rhs_batch);
    let mut out = batch.clone();
    out.extend([m.clone(), n.clone()]);
    let (lhs_imm, rhs_imm) = (op.info(0)?.imm, op.info(1)?.imm);
    let es = op.esize(0)?;
    if b.len() == 2 && !lhs_imm && !rhs_imm {
        // x @ W: the lhs's leading dims are rows.
        let rows = product(&a[..a.len() - 1])?;
        return Ok(Rule::new(op.key(), out, vec![("M", rows), ("K", k), ("N", n)], es));
    }
    if lhs_batch == rhs_batch && !lhs_imm && !rhs_imm {
        let batch_size = product(lhs_batch)?;
        return Ok(Rule::new(
            op.variant_key("batched"),
            out,
            vec![("B", batch_size), ("M", m), ("K", k), ("N", n)],
            es,
        ));
    }
    let lhs_count = if lhs_imm { Expr::zero() } else { product(lhs_batch)? };
    let rhs_count = if rhs_imm { Expr::zero() } else { product(rhs_batch)? };
    let bindings = vec![
        ("batch", product(&batch)?),
        ("lhs_batch", lhs_count),
        ("rhs_batch", rhs_count),
        ("M", m),
        ("K", k),
        ("N", n),
    ];
    Ok(Rule::new(op.variant_key("broadcast"), out, bindings, es))
}

fn einsum(op: &mut CostOp) -> RuleResult {
    let n_in = op.num_operands();
    let eq = op.str_attr("equation").ok_or("missing 'equation'")?;
    let e = parse_einsum(eq, n_in)?;
    let mut sizes: Vec<(char, Expr)> = Vec::new();
    let mut read = Expr::zero();
    for (i, labels) in e.inputs.iter().enumerate() {
        let d = op.dims(i)?;
        read = add(&read, &op.read(i)?)?;
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
        .map(|c| {
            sizes
                .iter()
                .find(|(l, _)| l == c)
                .map(|(_, s)| s.clone())
                .unwrap_or_else(Expr::one)
        })
        .collect();
    let terms = product(sizes.iter().map(|(_, s)| s))?;
    let n = product(&out)?;
    let es = op.esize(0)?;
    let mut bindings = vec![("terms", terms), ("read_elements", read), ("num_elements", n)];
    let key = match n_in {
        1 => op.variant_key("unary"),
        2 => op.key(),
        _ => {
            bindings.insert(0, ("num_operands", Expr::constant(n_in as i128)));
            op.variant_key("nary")
        }
    };
    Ok(Rule::new(key, out, bindings, es))
}

fn reduce(op: &mut CostOp) -> RuleResult {
    let x = op.dims(0)?;
    let axes = reduce_axes(&op.i64s_attr("axes")?, x.len())?;
    let keep = op.bool_attr("keepdims").unwrap_or(false);
    let kind = op.str_attr("kind").unwrap_or("sum");
    let out: Dims = x
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            if axes.contains(&i) {
                keep.then(Expr::one)
            } else {
                Some(d.clone())
            }
        })
        .collect();
    let size = product(axes.iter().map(|&a| &x[a]))?;
    let n = product(&out)?;
    let key = op.variant_key(format_args!("kind={kind}"));
    Ok(Rule::new(
        key,
        out,
        vec![("num_outputs", n), ("reduce_size", size)],
        op.esize(0)?,
    ))
}

fn softmax(op: &mut CostOp) -> RuleResult {
    let x = op.dims(0)?;
    let axis = norm_axis(op.i64_attr("axis")?, x.len())?;
    let rows = product(x.iter().enumerate().filter(|&(i, _)| i != axis).map(|(_, d)| d))?;
    Ok(Rule::new(
        op.key(),
        x.clone(),
        vec![("num_rows", rows), ("row_size", x[axis].clone())],
        op.esize(0)?,
    ))
}

fn layer_norm(op: &mut CostOp) -> RuleResult {
    let x = op.dims(0)?;
    let axis = norm_axis(op.i64_attr("axis")?, x.len())?;
    let rows = product(&x[..axis])?;
    let size = product(&x[axis..])?;
    Ok(Rule::new(
        op.key(),
        x.clone(),
        vec![("num_rows", rows), ("normalized_size", size)],
        op.esize(0)?,
    ))
}

fn transpose(op: &mut CostOp) -> RuleResult {
    let x = op.dims(0)?;
    let perm = op.i64s_attr("perm")?;
    let out = perm
        .iter()
        .map(|&p| x.get(p as usize).cloned().ok_or("perm out of range"))
        .collect::<Result<Dims, _>>()?;
    Ok(Rule::new(op.key(), out, vec![], op.esize(0)?).as_view())
}

fn reshape(op: &mut CostOp) -> RuleResult {
    let (x, shape) = (op.dims(0)?, op.result_shape()?);
    let (out, guessed) = reshape_dims(x, shape, &mut || op.fresh())?;
    Ok(Rule::new(op.key(), out, vec![], op.esize(0)?)
        .as_view()
        .with_guessed(guessed))
}

fn broadcast_to(op: &mut CostOp) -> RuleResult {
    let (x, shape) = (op.dims(0)?, op.result_shape()?);
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
                    op.fresh()
                }
            }
        })
        .collect();
    Ok(Rule::new(op.key(), out, vec![], op.esize(0)?)
        .as_view()
        .with_guessed(guessed))
}

fn slice(op: &mut CostOp) -> RuleResult {
    let (out, _) = op.result_from_type()?;
    Ok(Rule::new(op.key(), out, vec![], op.esize(0)?).as_view())
}

fn concat(op: &mut CostOp) -> RuleResult {
    let n_in = op.num_operands();
    let first = op.dims(0)?;
    let axis = norm_axis(op.i64_attr("axis")?, first.len())?;
    let mut out = first.clone();
    let mut read = Expr::zero();
    let mut along = Vec::with_capacity(n_in);
    for i in 0..n_in {
        along.push(op.dims(i)?.get(axis).cloned().ok_or("concat operands differ in rank")?);
        read = add(&read, &op.read(i)?)?;
    }
    out[axis] = sum(&along)?;
    let n = product(&out)?;
    Ok(Rule::new(
        op.key(),
        out,
        vec![("read_elements", read), ("num_elements", n)],
        op.esize(0)?,
    ))
}

fn gather(op: &mut CostOp) -> RuleResult {
    let (table, indices) = (op.dims(0)?, op.dims(1)?);
    let axis = norm_axis(op.i64_attr("axis")?, table.len())?;
    let mut out: Dims = table[..axis].to_vec();
    out.extend(indices.iter().cloned());
    out.extend(table[axis + 1..].iter().cloned());
    let index_bytes = op.esize(1)?;
    let embedding = axis == 0 && table.len() == 2 && index_bytes == 8 && !op.info(0)?.imm && !op.info(1)?.imm;
    if embedding {
        let bindings = vec![
            ("num_indices", product(indices)?),
            ("embedding_dim", table[1].clone()),
            ("index_bytes", Expr::constant(index_bytes)),
        ];
        return Ok(Rule::new(op.variant_key("embedding"), out, bindings, op.esize(0)?));
    }
    let n = product(&out)?;
    let bindings = vec![
        ("num_elements", n),
        ("num_indices", op.read(1)?),
        ("index_bytes", Expr::constant(index_bytes)),
    ];
    Ok(Rule::new(op.key(), out, bindings, op.esize(0)?))
}

fn constant(op: &mut CostOp) -> RuleResult {
    let (out, es) = op.result_from_type()?;
    let rule = Rule::new(op.key(), out, vec![], es);
    Ok(Rule {
        immediate: is_immediate(op),
        ..rule
    })
}

/// True if the constant is of rank 0 or holds one repeated value (a splat, or dense data
/// whose elements are all equal).
fn is_immediate(op: &CostOp) -> bool {
    let ctx = op.view.ctx;
    let Some(v) = op.view.attr("value") else { return false };
    let AttrKind::DenseElements { ty, data } = ctx.attr_kind(v) else {
        return false;
    };
    let Some((shape, _)) = ranked(ctx, *ty) else {
        return false;
    };
    if shape.is_empty() {
        return true;
    }
    match data {
        DenseData::Splat(_) => true,
        DenseData::Elements(b) => {
            let n: i64 = shape.iter().product();
            if n <= 0 || b.len() % n as usize != 0 {
                return false;
            }
            let w = b.len() / n as usize;
            w > 0 && b.chunks(w).all(|c| c == &b[..w])
        }
        DenseData::Strings(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::cost::library;
    use crate::interfaces::cost::CostRule;
    use crate::tensor::{FusedOp, YieldOp, TENSOR_OPS};

    #[test]
    fn every_tensor_op_but_the_fused_region_has_a_cost_rule_whose_key_is_in_the_name_map() {
        let ctx = crate::context();
        for def in TENSOR_OPS.iter() {
            let rule = ctx.interface::<dyn CostRule>(ctx.op_name(def.name));
            if def.is::<FusedOp>() || def.is::<YieldOp>() {
                assert!(rule.is_none(), "{} is costed by cost-annotate itself", def.name);
                continue;
            }
            assert!(rule.is_some(), "{} declares no cost rule", def.name);
            let kernel =
                library::map_name(def.name).unwrap_or_else(|| panic!("{} is not in kernel_name_map.json", def.name));
            assert!(
                library::leaf(kernel).is_some(),
                "{} maps to '{kernel}', which is not in kernels/",
                def.name
            );
        }
    }
}
