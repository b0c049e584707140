//! Canonicalization patterns of `cf.br` and `cf.cond_br`, after MLIR's `ControlFlowOps.cpp`:
//! merge a block into its single `cf.br` predecessor, skip blocks that only branch on
//! (pass-through), fold `cf.cond_br` on a constant condition or with identical successors.
//! Blocks left without predecessors are removed by the canonicalizer's region simplification.

use smallvec::SmallVec;
use xcs_ir::opdef::Traits;
use xcs_ir::rewrite::{FnPattern, RewritePattern, Rewriter};
use xcs_ir::{AttrKind, Block, Body, Context, Location, Op, OperationState, Value};

pub(crate) static BR_PATTERNS: &[&dyn RewritePattern] = &[&BR_TO_SINGLE_PRED, &PASS_THROUGH_BR];
pub(crate) static COND_BR_PATTERNS: &[&dyn RewritePattern] =
    &[&CONST_COND_BRANCH, &PASS_THROUGH_COND_BR, &COND_BR_IDENTICAL_SUCCESSORS];

static BR_TO_SINGLE_PRED: FnPattern = FnPattern {
    name: "cf-br-to-block-with-single-pred",
    f: br_to_single_pred,
};
static PASS_THROUGH_BR: FnPattern = FnPattern {
    name: "cf-pass-through-br",
    f: pass_through_br,
};
static CONST_COND_BRANCH: FnPattern = FnPattern {
    name: "cf-const-cond-branch",
    f: const_cond_branch,
};
static PASS_THROUGH_COND_BR: FnPattern = FnPattern {
    name: "cf-pass-through-cond-br",
    f: pass_through_cond_br,
};
static COND_BR_IDENTICAL_SUCCESSORS: FnPattern = FnPattern {
    name: "cf-cond-br-identical-successors",
    f: cond_br_identical_successors,
};

/// The (terminator, successor index) pairs that branch to `b`, found by scanning its region.
fn predecessors(body: &Body, b: Block) -> SmallVec<[(Op, usize); 2]> {
    let mut out = SmallVec::new();
    let Some(r) = body.block_region(b) else { return out };
    for blk in body.region_blocks(r) {
        if let Some(t) = body.last_op(blk) {
            for (i, &s) in body.successors(t).iter().enumerate() {
                if s == b {
                    out.push((t, i));
                }
            }
        }
    }
    out
}

fn new_br(ctx: &Context, loc: Location, dest: Block, args: &[Value]) -> OperationState {
    let mut st = OperationState::of(ctx, crate::cf::BranchOp::DEF, loc).operands(args);
    st.successors.push(dest);
    st
}

fn new_cond_br(
    ctx: &Context,
    loc: Location,
    cond: Value,
    t: (Block, &[Value]),
    f: (Block, &[Value]),
) -> OperationState {
    let mut ops: SmallVec<[Value; 4]> = SmallVec::new();
    ops.push(cond);
    ops.extend_from_slice(t.1);
    ops.extend_from_slice(f.1);
    let seg: Vec<u8> = [1i32, t.1.len() as i32, f.1.len() as i32]
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect();
    let seg = ctx.attr(AttrKind::DenseArray {
        elem: ctx.i32_type(),
        data: seg.into(),
    });
    let mut st = OperationState::of(ctx, crate::cf::CondBranchOp::DEF, loc)
        .operands(&ops)
        .attr(ctx, "operandSegmentSizes", seg);
    st.successors.push(t.0);
    st.successors.push(f.0);
    st
}

/// The operands a `cf.cond_br` forwards to its true and false successors.
type ForwardedOperands = (SmallVec<[Value; 4]>, SmallVec<[Value; 4]>);

/// The two forwarded operand lists of a `cf.cond_br`.
fn cond_br_operands(ctx: &Context, body: &Body, op: Op) -> Option<ForwardedOperands> {
    let seg = body
        .attr(ctx, op, "operandSegmentSizes")
        .and_then(|a| ctx.as_dense_ints(a))?;
    if seg.len() != 3 || seg[1] < 0 || seg[2] < 0 {
        return None;
    }
    let (n1, n2) = (seg[1] as usize, seg[2] as usize);
    let ops = body.operand_vec(op);
    if ops.len() != 1 + n1 + n2 {
        return None;
    }
    Some((ops[1..1 + n1].into(), ops[1 + n1..].into()))
}

/// `cf.br ^succ(args)` where `^succ` has no other predecessor: splice `^succ` into this block.
fn br_to_single_pred(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let body = &*rw.body;
    let Some(&dest) = body.successors(op).first() else {
        return false;
    };
    let Some(blk) = body.op_block(op) else { return false };
    if dest == blk || body.block_region(dest) != body.block_region(blk) {
        return false;
    }
    let is_entry = body.block_region(dest).and_then(|r| body.entry_block(r)) == Some(dest);
    if is_entry || predecessors(body, dest).len() != 1 || body.block_args(dest).len() != body.num_operands(op) {
        return false;
    }
    let args: SmallVec<[Value; 4]> = body.block_args(dest).into();
    let vals = body.operand_vec(op);
    for (a, v) in args.into_iter().zip(vals) {
        rw.replace_all_uses(a, v);
    }
    let moved = rw.body.block_op_vec(dest);
    for &o in &moved {
        rw.body.detach_op(o);
        rw.body.append_op(blk, o);
        rw.modified(o);
    }
    rw.erase_op(op);
    rw.body.erase_block(dest);
    true
}

/// If `succ` only holds a `cf.br` whose operands are its arguments or outside values,
/// returns where it really goes and with which values (MLIR's `collapseBranch`).
fn collapse_one(ctx: &Context, body: &Body, succ: Block, operands: &[Value]) -> Option<(Block, SmallVec<[Value; 4]>)> {
    let br = body.first_op(succ)?;
    if body.last_op(succ) != Some(br) || crate::cf::BranchOp::cast(ctx, body, br).is_none() {
        return None;
    }
    for &a in body.block_args(succ) {
        if body.users(a).any(|u| u != br) {
            return None;
        }
    }
    let dest = *body.successors(br).first()?;
    if dest == succ || body.block_args(succ).len() != operands.len() {
        return None;
    }
    let vals = body
        .operands(br)
        .map(|v| match body.value_def(v) {
            xcs_ir::ValueDef::Arg { block, index } if block == succ => operands[index as usize],
            _ => v,
        })
        .collect();
    Some((dest, vals))
}

/// [`collapse_one`] followed to the end of a chain of pass-through blocks; `None` if there
/// is nothing to skip or the chain loops (an infinite loop of empty blocks stays as it is).
fn collapse(ctx: &Context, body: &Body, succ: Block, operands: &[Value]) -> Option<(Block, SmallVec<[Value; 4]>)> {
    let mut seen: SmallVec<[Block; 4]> = SmallVec::new();
    seen.push(succ);
    let (mut dest, mut vals) = collapse_one(ctx, body, succ, operands)?;
    while let Some((d, v)) = collapse_one(ctx, body, dest, &vals) {
        if seen.contains(&dest) {
            return None;
        }
        seen.push(dest);
        dest = d;
        vals = v;
    }
    if seen.contains(&dest) {
        return None;
    }
    Some((dest, vals))
}

fn pass_through_br(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let (ctx, body) = (rw.ctx, &*rw.body);
    let Some(&dest) = body.successors(op).first() else {
        return false;
    };
    let Some((to, vals)) = collapse(ctx, body, dest, &body.operand_vec(op)) else {
        return false;
    };
    let st = new_br(ctx, body.op_loc(op), to, &vals);
    rw.create_before(op, st);
    rw.erase_op(op);
    true
}

fn pass_through_cond_br(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let (ctx, body) = (rw.ctx, &*rw.body);
    let Some((t_ops, f_ops)) = cond_br_operands(ctx, body, op) else {
        return false;
    };
    let succ = body.successors(op);
    if succ.len() != 2 {
        return false;
    }
    let (t, f) = (succ[0], succ[1]);
    let ct = collapse(ctx, body, t, &t_ops);
    let cf = collapse(ctx, body, f, &f_ops);
    if ct.is_none() && cf.is_none() {
        return false;
    }
    let (t2, t_vals) = ct.unwrap_or((t, t_ops));
    let (f2, f_vals) = cf.unwrap_or((f, f_ops));
    let mut st = new_cond_br(ctx, body.op_loc(op), body.operand(op, 0), (t2, &t_vals), (f2, &f_vals));
    // the successors keep their order, so the branch weights stay (as in MLIR)
    if let Some(w) = body.attr(ctx, op, "branch_weights") {
        st = st.attr(ctx, "branch_weights", w);
    }
    rw.create_before(op, st);
    rw.erase_op(op);
    true
}

/// `cf.cond_br` on a constant `true`/`false`: a `cf.br` to the taken successor.
fn const_cond_branch(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let (ctx, body) = (rw.ctx, &*rw.body);
    let Some((t_ops, f_ops)) = cond_br_operands(ctx, body, op) else {
        return false;
    };
    let Some(def) = body.defining_op(body.operand(op, 0)) else {
        return false;
    };
    if !ctx
        .op_def(body.op_name(def))
        .is_some_and(|d| d.has(Traits::ConstantLike))
    {
        return false;
    }
    let Some(c) = body.attr(ctx, def, "value").and_then(|a| ctx.as_int(a)) else {
        return false;
    };
    let succ = body.successors(op);
    let (dest, vals) = if c != 0 { (succ[0], t_ops) } else { (succ[1], f_ops) };
    let st = new_br(ctx, body.op_loc(op), dest, &vals);
    rw.create_before(op, st);
    rw.erase_op(op);
    true
}

/// `cf.cond_br %c, ^a(x), ^a(x)`: a `cf.br ^a(x)`.
fn cond_br_identical_successors(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let (ctx, body) = (rw.ctx, &*rw.body);
    let Some((t_ops, f_ops)) = cond_br_operands(ctx, body, op) else {
        return false;
    };
    let succ = body.successors(op);
    if succ.len() != 2 || succ[0] != succ[1] || t_ops != f_ops {
        return false;
    }
    let st = new_br(ctx, body.op_loc(op), succ[0], &t_ops);
    rw.create_before(op, st);
    rw.erase_op(op);
    true
}
