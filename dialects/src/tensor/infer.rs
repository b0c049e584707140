//! Result-type inference of the `tensor` ops (their `infer` hooks), and the parsers of the
//! attributes several ops share (einsum equations, reduction axes, permutations).

use smallvec::{smallvec, SmallVec};
use xcs_ir::{Attr, AttrKind, Context, Type, DYNAMIC};

use crate::shape::{broadcast, norm_axis, ranked, shape_str};

pub(super) type Infer = Result<SmallVec<[Type; 1]>, String>;

fn tensor_parts(ctx: &Context, t: Type, what: &str) -> Result<(Vec<i64>, Type), String> {
    ranked(ctx, t).map(|(s, e)| (s.to_vec(), e)).ok_or_else(|| format!("{what} must be a ranked tensor"))
}

fn attr_i64(ctx: &Context, attrs: Attr, name: &str) -> Result<i64, String> {
    ctx.dict_get(attrs, name)
        .and_then(|a| ctx.as_int(a))
        .map(|v| v as i64)
        .ok_or_else(|| format!("requires integer attribute '{name}'"))
}

fn attr_i64s(ctx: &Context, attrs: Attr, name: &str) -> Result<Vec<i64>, String> {
    ctx.dict_get(attrs, name).and_then(|a| ctx.as_i64_array(a)).ok_or_else(|| format!("requires array<i64> attribute '{name}'"))
}

fn elem_name(ctx: &Context, t: Type) -> String {
    xcs_ir::printer::type_to_string(ctx, t)
}

fn same_elem(ctx: &Context, a: Type, b: Type) -> Result<(), String> {
    if a != b {
        return Err(format!("operand element types must match, but got '{}' and '{}'", elem_name(ctx, a), elem_name(ctx, b)));
    }
    Ok(())
}

pub(super) fn infer_constant(ctx: &Context, _: &[Type], attrs: Attr) -> Infer {
    match ctx.dict_get(attrs, "value").map(|a| ctx.attr_kind(a)) {
        Some(AttrKind::DenseElements { ty, .. } | AttrKind::DenseResource { ty, .. }) => Ok(smallvec![*ty]),
        _ => Err("requires a dense elements attribute 'value'".into()),
    }
}

pub(super) fn infer_same(_: &Context, ops: &[Type], _: Attr) -> Infer {
    Ok(smallvec![ops[0]])
}

/// Every operand broadcast together (numpy), one element type: the binary elementwise ops
/// (`lhs`, `rhs`) and the ternary ones.
pub(super) fn infer_broadcast(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    if ops.iter().all(|&t| t == ops[0]) && ranked(ctx, ops[0]).is_some() {
        // The common case, without building a shape: a type broadcasts with itself to itself.
        return Ok(smallvec![ops[0]]);
    }
    let name = |i: usize| match (ops.len(), i) {
        (2, 0) => "lhs".to_string(),
        (2, _) => "rhs".to_string(),
        _ => format!("operand #{i}"),
    };
    let (mut shape, elem) = tensor_parts(ctx, ops[0], &name(0))?;
    for (i, &t) in ops.iter().enumerate().skip(1) {
        let (s, e) = tensor_parts(ctx, t, &name(i))?;
        same_elem(ctx, elem, e)?;
        shape = broadcast(&shape, &s)?;
    }
    Ok(smallvec![ctx.tensor_type(&shape, elem)])
}

pub(super) fn infer_cmp(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    let (a, ea) = tensor_parts(ctx, ops[0], "lhs")?;
    let (b, eb) = tensor_parts(ctx, ops[1], "rhs")?;
    same_elem(ctx, ea, eb)?;
    Ok(smallvec![ctx.tensor_type(&broadcast(&a, &b)?, ctx.i1_type())])
}

pub(super) fn infer_select(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    let (c, _) = tensor_parts(ctx, ops[0], "cond")?;
    let (a, ea) = tensor_parts(ctx, ops[1], "a")?;
    let (b, eb) = tensor_parts(ctx, ops[2], "b")?;
    same_elem(ctx, ea, eb)?;
    let s = broadcast(&broadcast(&c, &a)?, &b)?;
    Ok(smallvec![ctx.tensor_type(&s, ea)])
}

pub(super) fn infer_matmul(ctx: &Context, ops: &[Type], _: Attr) -> Infer {
    let (a, ea) = tensor_parts(ctx, ops[0], "lhs")?;
    let (b, eb) = tensor_parts(ctx, ops[1], "rhs")?;
    same_elem(ctx, ea, eb)?;
    if a.len() < 2 || b.len() < 2 {
        return Err(format!("matmul operands must have rank >= 2, but got {} and {}", a.len(), b.len()));
    }
    let (m, k1) = (a[a.len() - 2], a[a.len() - 1]);
    let (k2, n) = (b[b.len() - 2], b[b.len() - 1]);
    if k1 != k2 && k1 != DYNAMIC && k2 != DYNAMIC {
        return Err(format!(
            "matmul contraction dimensions do not match: lhs {} has K = {k1}, rhs {} has K = {k2}",
            shape_str(&a),
            shape_str(&b)
        ));
    }
    let batch = broadcast(&a[..a.len() - 2], &b[..b.len() - 2]).map_err(|e| format!("matmul batch dimensions: {e}"))?;
    let mut out = batch;
    out.extend([m, n]);
    Ok(smallvec![ctx.tensor_type(&out, ea)])
}

/// A parsed einsum equation: input label lists and the output labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Einsum {
    pub inputs: Vec<Vec<char>>,
    pub output: Vec<char>,
}

/// Parses `"bij,bjk->bik"` (or the implicit form `"ij,jk"`) for `n` operands.
pub fn parse_einsum(eq: &str, n: usize) -> Result<Einsum, String> {
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    if eq.contains("...") {
        return Err("einsum ellipsis ('...') is not supported".into());
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let inputs: Vec<Vec<char>> = lhs.split(',').map(|s| s.chars().collect()).collect();
    if inputs.len() != n {
        return Err(format!("einsum equation '{eq}' names {} operands, but the op has {n}", inputs.len()));
    }
    for c in inputs.iter().flatten() {
        if !c.is_ascii_alphabetic() {
            return Err(format!("einsum equation '{eq}' has an invalid label '{c}'"));
        }
    }
    let output: Vec<char> = match rhs {
        Some(r) => {
            let out: Vec<char> = r.chars().collect();
            for (i, c) in out.iter().enumerate() {
                if !c.is_ascii_alphabetic() {
                    return Err(format!("einsum equation '{eq}' has an invalid label '{c}'"));
                }
                if out[..i].contains(c) {
                    return Err(format!("einsum output label '{c}' appears more than once"));
                }
                if !inputs.iter().any(|l| l.contains(c)) {
                    return Err(format!("einsum output label '{c}' does not appear in any input"));
                }
            }
            out
        }
        None => {
            let mut once: Vec<char> = inputs
                .iter()
                .flatten()
                .copied()
                .filter(|c| inputs.iter().flatten().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort();
            once
        }
    };
    Ok(Einsum { inputs, output })
}

pub(super) fn infer_einsum(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let eq = ctx.dict_get(attrs, "equation").and_then(|a| ctx.as_str(a)).ok_or("requires string attribute 'equation'")?;
    let e = parse_einsum(eq, ops.len())?;
    let mut sizes: Vec<(char, i64)> = Vec::new();
    let mut elem = None;
    for (i, (labels, &t)) in e.inputs.iter().zip(ops).enumerate() {
        let (shape, et) = tensor_parts(ctx, t, "einsum operand")?;
        if let Some(prev) = elem {
            same_elem(ctx, prev, et)?;
        }
        elem = Some(et);
        if shape.len() != labels.len() {
            return Err(format!(
                "einsum operand #{i} has rank {} but the equation gives it {} labels",
                shape.len(),
                labels.len()
            ));
        }
        for (&c, &d) in labels.iter().zip(&shape) {
            match sizes.iter_mut().find(|(l, _)| *l == c) {
                Some((_, s)) => {
                    if *s == DYNAMIC {
                        *s = d;
                    } else if d != DYNAMIC && *s != d {
                        return Err(format!("einsum label '{c}' has size {s} and {d}"));
                    }
                }
                None => sizes.push((c, d)),
            }
        }
    }
    let out: Vec<i64> = e.output.iter().map(|c| sizes.iter().find(|(l, _)| l == c).map(|x| x.1).unwrap()).collect();
    Ok(smallvec![ctx.tensor_type(&out, elem.ok_or("einsum needs at least one operand")?)])
}

/// The normalised, sorted, unique axes of a reduction.
pub fn reduce_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for &a in axes {
        let n = norm_axis(a, rank).map_err(|e| format!("reduce {e}"))?;
        if out.contains(&n) {
            return Err(format!("reduce axes contain {a} more than once"));
        }
        out.push(n);
    }
    out.sort();
    Ok(out)
}

pub(super) fn infer_reduce(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let axes = reduce_axes(&attr_i64s(ctx, attrs, "axes")?, s.len())?;
    let keep = ctx.dict_get(attrs, "keepdims").and_then(|a| ctx.as_bool(a)).unwrap_or(false);
    let out: Vec<i64> = s
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if axes.contains(&i) { keep.then_some(1) } else { Some(d) })
        .collect();
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

pub(super) fn infer_softmax(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, _) = tensor_parts(ctx, ops[0], "x")?;
    norm_axis(attr_i64(ctx, attrs, "axis")?, s.len()).map_err(|e| format!("softmax {e}"))?;
    Ok(smallvec![ops[0]])
}

pub(super) fn infer_layer_norm(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let axis = norm_axis(attr_i64(ctx, attrs, "axis")?, s.len()).map_err(|e| format!("layer_norm {e}"))?;
    let normalized = &s[axis..];
    for (name, &t) in ["gamma", "beta"].iter().zip(&ops[1..3]) {
        let (gs, ge) = tensor_parts(ctx, t, name)?;
        same_elem(ctx, e, ge)?;
        let ok = gs.len() == normalized.len() && gs.iter().zip(normalized).all(|(&a, &b)| crate::shape::dims_compatible(a, b));
        if !ok {
            return Err(format!(
                "layer_norm {name} shape {} does not match the normalized dims {}",
                shape_str(&gs),
                shape_str(normalized)
            ));
        }
    }
    Ok(smallvec![ops[0]])
}

/// Checks that `perm` is a permutation of `0..rank`.
pub fn check_perm(perm: &[i64], rank: usize) -> Result<(), String> {
    let mut seen = vec![false; rank];
    let ok = perm.len() == rank
        && perm.iter().all(|&p| {
            p >= 0 && (p as usize) < rank && !std::mem::replace(&mut seen[p as usize], true)
        });
    if !ok {
        return Err(format!("transpose perm {perm:?} is not a permutation of 0..{rank}"));
    }
    Ok(())
}

pub(super) fn infer_transpose(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let perm = attr_i64s(ctx, attrs, "perm")?;
    check_perm(&perm, s.len())?;
    let out: Vec<i64> = perm.iter().map(|&p| s[p as usize]).collect();
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

pub(super) fn infer_slice(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (s, e) = tensor_parts(ctx, ops[0], "x")?;
    let start = attr_i64s(ctx, attrs, "start")?;
    let limit = attr_i64s(ctx, attrs, "limit")?;
    let stride = attr_i64s(ctx, attrs, "stride")?;
    for (name, v) in [("start", &start), ("limit", &limit), ("stride", &stride)] {
        if v.len() != s.len() {
            return Err(format!(
                "slice {name} has {} entries, but the operand has rank {} (start, limit and stride have one entry per dim)",
                v.len(),
                s.len()
            ));
        }
    }
    let mut out = Vec::with_capacity(s.len());
    for d in 0..s.len() {
        let (lo, hi, st) = (start[d], limit[d], stride[d]);
        if st < 1 {
            return Err(format!("slice stride {st} in dim {d} must be at least 1"));
        }
        if lo < 0 || hi < lo || (s[d] != DYNAMIC && hi > s[d]) {
            return Err(format!("slice bounds [{lo}, {hi}) in dim {d} are out of range for size {}", crate::shape::dim_str(s[d])));
        }
        out.push((hi - lo + st - 1) / st);
    }
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

pub(super) fn infer_concat(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    if ops.is_empty() {
        return Err("concat needs at least one operand".into());
    }
    let (first, e) = tensor_parts(ctx, ops[0], "operand")?;
    let axis = norm_axis(attr_i64(ctx, attrs, "axis")?, first.len()).map_err(|e| format!("concat {e}"))?;
    let mut out = first.clone();
    for (i, &t) in ops.iter().enumerate().skip(1) {
        let (s, et) = tensor_parts(ctx, t, "operand")?;
        same_elem(ctx, e, et)?;
        if s.len() != first.len() {
            return Err(format!("concat operand #{i} has rank {} but operand #0 has rank {}", s.len(), first.len()));
        }
        for d in 0..s.len() {
            if d == axis {
                out[d] = if out[d] == DYNAMIC || s[d] == DYNAMIC { DYNAMIC } else { out[d] + s[d] };
            } else if !crate::shape::dims_compatible(out[d], s[d]) {
                return Err(format!(
                    "concat operand #{i} has shape {} which does not match {} outside axis {axis}",
                    shape_str(&s),
                    shape_str(&first)
                ));
            } else if out[d] == DYNAMIC {
                out[d] = s[d];
            }
        }
    }
    Ok(smallvec![ctx.tensor_type(&out, e)])
}

pub(super) fn infer_gather(ctx: &Context, ops: &[Type], attrs: Attr) -> Infer {
    let (t, e) = tensor_parts(ctx, ops[0], "table")?;
    let (ix, _) = tensor_parts(ctx, ops[1], "indices")?;
    let axis = norm_axis(attr_i64(ctx, attrs, "axis")?, t.len()).map_err(|e| format!("gather {e}"))?;
    let mut out: Vec<i64> = t[..axis].to_vec();
    out.extend(&ix);
    out.extend(&t[axis + 1..]);
    Ok(smallvec![ctx.tensor_type(&out, e)])
}
