//! `tensor.fused`: when the region is elementwise (elementwise ops, `broadcast_to`, constants)
//! and its results have one shape, it becomes ONE loop nest over the result's elements: each
//! needed region value is computed per element from the inputs read broadcast to the result
//! (rounded to its element type as the interpreter stores it), with no intermediate buffers.
//! Otherwise (a reduction, matmul, layout op, or results of different shapes) the region's ops
//! are lowered one after another like a function body, with the same buffer plan.

use rustc_hash::FxHashMap;
use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Value};

use super::elementwise::{broadcast_dims, ew_launch, eval, EwMsgs, EwOp};
use super::{check_result_dims, OpCx};
use crate::codegen::{lower_block_ops, FnLower, Kernel, Slot, TV};
use crate::ir::{Val, R};

/// How one needed region value is computed per element.
enum Node {
    /// Leaf `i` of the kernel's inputs.
    Leaf(usize),
    /// An elementwise op on other values.
    Ew { op: EwOp, args: Vec<Value>, ins: Vec<ElemType>, out: ElemType, msgs: EwMsgs, site: i32 },
    /// `broadcast_to`: the operand's value at the projected index.
    Same(Value),
}

pub fn fused(fl: &mut FnLower, o: &OpCx) -> R<Vec<Slot>> {
    let body = o.body.nested(o.op).ok_or_else(|| o.err("has no body"))?;
    let region = *body.root_regions().first().ok_or_else(|| o.err("has no region"))?;
    let entry = body.entry_block(region).ok_or_else(|| o.err("has no block"))?;
    let inputs = o.operands(fl)?;
    let args = body.block_args(entry).to_vec();
    if args.len() != inputs.len() {
        return Err(o.err("block arguments do not match the operands"));
    }
    if let Some(r) = try_one_nest(fl, o, body, entry, &args, &inputs)? {
        return Ok(r);
    }
    materialize(fl, o, body, entry, &args, inputs)
}

/// The region as one loop nest, if it qualifies (`None` otherwise; nothing is emitted then).
fn try_one_nest(
    fl: &mut FnLower,
    o: &OpCx,
    body: &Body,
    entry: xcs_ir::Block,
    args: &[Value],
    inputs: &[TV],
) -> R<Option<Vec<Slot>>> {
    let ctx = fl.ctx();
    let ops = body.block_op_vec(entry);
    let Some((&term, inner)) = ops.split_last() else { return Ok(None) };
    if ctx.op_name_str(body.op_name(term)) != "tensor.yield" {
        return Ok(None);
    }
    // Every op must be elementwise, broadcast_to or a constant.
    for &op in inner {
        let name = ctx.op_name_str(body.op_name(op));
        let sub = OpCx { body, op, site: o.site, name };
        let ok = matches!(name, "tensor.broadcast_to" | "tensor.constant") || EwOp::parse(fl, &sub)?.is_some();
        if !ok || body.num_results(op) != 1 {
            return Ok(None);
        }
    }
    // Values the yield needs, through elementwise ops.
    let yields: Vec<Value> = body.operands(term).collect();
    if yields.is_empty() {
        return Ok(None);
    }
    let mut needed: Vec<Value> = yields.clone();
    let mut i = 0;
    while i < needed.len() {
        if let Some(d) = body.defining_op(needed[i]) {
            for v in body.operands(d) {
                if !needed.contains(&v) {
                    needed.push(v);
                }
            }
        }
        i += 1;
    }
    // Sizes of every needed value (run-time broadcast checks), leaves and nodes in order.
    let mut dims: FxHashMap<Value, Vec<Val>> = FxHashMap::default();
    let mut nodes: Vec<(Value, Node)> = Vec::new();
    let mut leaves: Vec<TV> = Vec::new();
    for (a, t) in args.iter().zip(inputs) {
        if needed.contains(a) {
            dims.insert(*a, t.dims.clone());
            nodes.push((*a, Node::Leaf(leaves.len())));
            leaves.push(t.clone());
        }
    }
    for &op in inner {
        let r = body.result(op, 0);
        if !needed.contains(&r) {
            continue;
        }
        let name = ctx.op_name_str(body.op_name(op));
        let sub_site = fl.cx.site(body, op);
        let sub = OpCx { body, op, site: sub_site, name };
        match name {
            "tensor.constant" => {
                let Slot::T(t) = super::layout::constant(fl, &sub)?.remove(0) else { return Ok(None) };
                dims.insert(r, t.dims.clone());
                nodes.push((r, Node::Leaf(leaves.len())));
                leaves.push(t);
            }
            "tensor.broadcast_to" => {
                let x = body.operand(op, 0);
                let xd = dims.get(&x).cloned().ok_or_else(|| o.err("uses a value before it is defined"))?;
                let (rd, _) = sub.result(fl, 0)?;
                let off = rd.len().checked_sub(xd.len()).ok_or_else(|| sub.err("cannot broadcast to a lower rank"))?;
                let td: Vec<Val> = rd
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| match d {
                        xcs_ir::DYNAMIC if i >= off => xd[i - off].clone(),
                        xcs_ir::DYNAMIC => Val::i64(1),
                        d => Val::i64(d),
                    })
                    .collect();
                let msg = sub.msg(fl, "cannot broadcast size %lld to %lld");
                for (i, d) in xd.iter().enumerate() {
                    let t = &td[off + i];
                    let ne = fl.f.icmp("ne", d, t);
                    let n1 = fl.f.icmp("ne", d, &Val::i64(1));
                    let bad = fl.f.and(&ne, &n1);
                    fl.fail2_if(&bad, sub_site, &msg, d, t);
                }
                dims.insert(r, td);
                nodes.push((r, Node::Same(x)));
            }
            _ => {
                let op_kind = EwOp::parse(fl, &sub)?.ok_or_else(|| sub.err("is not elementwise"))?;
                let a: Vec<Value> = body.operands(op).collect();
                let ad: Vec<Vec<Val>> =
                    a.iter().map(|v| dims.get(v).cloned().ok_or_else(|| o.err("uses a value before it is defined"))).collect::<R<_>>()?;
                let refs: Vec<&[Val]> = ad.iter().map(|d| d.as_slice()).collect();
                let d = broadcast_dims(fl, &sub, &refs)?;
                let (rd, out) = sub.result(fl, 0)?;
                let d = check_result_dims(fl, &sub, d, &rd)?;
                let elem_of = |v: &Value| -> R<ElemType> {
                    let t = body.value_type(*v);
                    crate::codegen::port_of(ctx, t).map(|p| p.elem).map_err(|e| sub.err(&e))
                };
                let ins: Vec<ElemType> = match op_kind {
                    EwOp::Select => a[1..].iter().map(elem_of).collect::<R<_>>()?,
                    _ => a.iter().map(elem_of).collect::<R<_>>()?,
                };
                dims.insert(r, d);
                let msgs = EwMsgs::new(fl, &sub);
                nodes.push((r, Node::Ew { op: op_kind, args: a, ins, out, msgs, site: sub_site }));
            }
        }
    }
    // One shape for all results.
    let out_dims = dims.get(&yields[0]).cloned().ok_or_else(|| o.err("yields an undefined value"))?;
    if yields.iter().any(|y| dims.get(y) != Some(&out_dims)) {
        return Ok(None);
    }
    let mut outs = Vec::new();
    for i in 0..yields.len() {
        let (rd, relem) = o.result(fl, i)?;
        let d = check_result_dims(fl, o, out_dims.clone(), &rd)?;
        outs.push(fl.new_tensor(relem, &d)?);
    }
    let index: FxHashMap<Value, usize> = nodes.iter().enumerate().map(|(i, (v, _))| (*v, i)).collect();
    let mut kbody = |k: &mut Kernel, leaf_vals: &[Val]| -> R<Vec<Val>> {
        let mut vals: Vec<Val> = Vec::with_capacity(nodes.len());
        for (_, n) in &nodes {
            let v = match n {
                Node::Leaf(i) => leaf_vals[*i].clone(),
                Node::Same(x) => vals[index[x]].clone(),
                Node::Ew { op, args, ins, out, msgs, site } => {
                    let a: Vec<Val> = args.iter().map(|x| vals[index[x]].clone()).collect();
                    eval(k, *site, msgs, op, ins, *out, &a)?
                }
            };
            vals.push(v);
        }
        Ok(yields.iter().map(|y| vals[index[y]].clone()).collect())
    };
    ew_launch(fl, "fused", &leaves, &outs, &out_dims, &mut kbody)?;
    Ok(Some(outs.into_iter().map(Slot::T).collect()))
}

/// The region's ops lowered one by one (intermediate buffers planned by liveness).
fn materialize(fl: &mut FnLower, o: &OpCx, body: &Body, entry: xcs_ir::Block, args: &[Value], inputs: Vec<TV>) -> R<Vec<Slot>> {
    let saved = std::mem::take(&mut fl.vals);
    for (a, t) in args.iter().zip(inputs) {
        fl.define(*a, Slot::T(t));
    }
    let res = lower_block_ops(fl, body, entry, true);
    let nested = std::mem::replace(&mut fl.vals, saved);
    let yields = res?.ok_or_else(|| o.err("region does not end in 'tensor.yield'"))?;
    let mut out = Vec::new();
    for y in &yields {
        out.push(nested.get(y).cloned().ok_or_else(|| o.err("yields an undefined value"))?);
    }
    // Values still alive in the region (unused arguments, yielded values) drop their references.
    for (v, s) in nested {
        if yields.contains(&v) {
            // Handed to the fused op's results, which count their own references.
            fl.unref(&s);
        } else {
            fl.kill_slot(&s);
        }
    }
    Ok(out)
}
