//! Canonicalization patterns of the `cf` ops, after MLIR's `ControlFlowOps.cpp`: merge a block
//! into its single `cf.br` predecessor, skip blocks that only branch on (pass-through), fold
//! `cf.cond_br` on a constant condition or with identical successors, fold `cf.switch` with
//! only a default, on a constant flag, or under a switch on the same flag, drop its cases that
//! go where the default goes, and erase `cf.assert` of a constant `true`. Blocks left without
//! predecessors are removed by the canonicalizer's region simplification.

use smallvec::SmallVec;
use xcs_ir::attrs::DenseData;
use xcs_ir::opdef::Traits;
use xcs_ir::rewrite::{FnPattern, ReplacePattern, RewritePattern, Rewriter};
use xcs_ir::{Attr, AttrKind, Block, Body, Context, Location, Op, OperationState, Type, TypeKind, Value};

use crate::cf::{SwitchOp, SwitchTargets};

pub(crate) static BR_PATTERNS: &[&dyn RewritePattern] = &[&BR_TO_SINGLE_PRED, &PASS_THROUGH_BR];
pub(crate) static COND_BR_PATTERNS: &[&dyn RewritePattern] =
    &[&CONST_COND_BRANCH, &PASS_THROUGH_COND_BR, &COND_BR_IDENTICAL_SUCCESSORS];
pub(crate) static SWITCH_PATTERNS: &[&dyn RewritePattern] = &[
    &SWITCH_ONLY_DEFAULT,
    &SWITCH_DROP_CASES_MATCHING_DEFAULT,
    &SWITCH_CONST_FLAG,
    &PASS_THROUGH_SWITCH,
    &SWITCH_FROM_SWITCH_ON_SAME_FLAG,
    &SWITCH_FROM_DEFAULT_SWITCH_ON_SAME_FLAG,
];
pub(crate) static ASSERT_PATTERNS: &[&dyn RewritePattern] = &[&ASSERT_TRUE];

static BR_TO_SINGLE_PRED: FnPattern = FnPattern {
    name: "cf-br-to-block-with-single-pred",
    f: br_to_single_pred,
};
static PASS_THROUGH_BR: ReplacePattern = ReplacePattern {
    name: "cf-pass-through-br",
    f: pass_through_br,
};
static CONST_COND_BRANCH: ReplacePattern = ReplacePattern {
    name: "cf-const-cond-branch",
    f: const_cond_branch,
};
static PASS_THROUGH_COND_BR: ReplacePattern = ReplacePattern {
    name: "cf-pass-through-cond-br",
    f: pass_through_cond_br,
};
static COND_BR_IDENTICAL_SUCCESSORS: ReplacePattern = ReplacePattern {
    name: "cf-cond-br-identical-successors",
    f: cond_br_identical_successors,
};

static SWITCH_ONLY_DEFAULT: ReplacePattern = ReplacePattern {
    name: "cf-switch-with-only-default",
    f: switch_only_default,
};
static SWITCH_DROP_CASES_MATCHING_DEFAULT: ReplacePattern = ReplacePattern {
    name: "cf-drop-switch-cases-that-match-default",
    f: switch_drop_cases_matching_default,
};
static SWITCH_CONST_FLAG: ReplacePattern = ReplacePattern {
    name: "cf-const-switch-value",
    f: switch_const_flag,
};
static PASS_THROUGH_SWITCH: ReplacePattern = ReplacePattern {
    name: "cf-pass-through-switch",
    f: pass_through_switch,
};
static SWITCH_FROM_SWITCH_ON_SAME_FLAG: ReplacePattern = ReplacePattern {
    name: "cf-switch-from-switch-on-same-condition",
    f: switch_from_switch_on_same_flag,
};
static SWITCH_FROM_DEFAULT_SWITCH_ON_SAME_FLAG: ReplacePattern = ReplacePattern {
    name: "cf-switch-from-default-switch-on-same-condition",
    f: switch_from_default_switch_on_same_flag,
};
static ASSERT_TRUE: FnPattern = FnPattern {
    name: "cf-assert-true",
    f: assert_true,
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

fn pass_through_br(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let &dest = body.successors(op).first()?;
    let (to, vals) = collapse(ctx, body, dest, &body.operand_vec(op))?;
    Some(new_br(ctx, body.op_loc(op), to, &vals))
}

fn pass_through_cond_br(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let (t_ops, f_ops) = cond_br_operands(ctx, body, op)?;
    let succ = body.successors(op);
    if succ.len() != 2 {
        return None;
    }
    let (t, f) = (succ[0], succ[1]);
    let ct = collapse(ctx, body, t, &t_ops);
    let cf = collapse(ctx, body, f, &f_ops);
    if ct.is_none() && cf.is_none() {
        return None;
    }
    let (t2, t_vals) = ct.unwrap_or((t, t_ops));
    let (f2, f_vals) = cf.unwrap_or((f, f_ops));
    let mut st = new_cond_br(ctx, body.op_loc(op), body.operand(op, 0), (t2, &t_vals), (f2, &f_vals));
    // the successors keep their order, so the branch weights stay (as in MLIR)
    if let Some(w) = body.attr(ctx, op, "branch_weights") {
        st = st.attr(ctx, "branch_weights", w);
    }
    Some(st)
}

/// `cf.cond_br` on a constant `true`/`false`: a `cf.br` to the taken successor.
fn const_cond_branch(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let (t_ops, f_ops) = cond_br_operands(ctx, body, op)?;
    let c = constant_int(ctx, body, body.operand(op, 0))?;
    let succ = body.successors(op);
    let (dest, vals) = if c != 0 { (succ[0], t_ops) } else { (succ[1], f_ops) };
    Some(new_br(ctx, body.op_loc(op), dest, &vals))
}

/// `cf.cond_br %c, ^a(x), ^a(x)`: a `cf.br ^a(x)`.
fn cond_br_identical_successors(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let (t_ops, f_ops) = cond_br_operands(ctx, body, op)?;
    let succ = body.successors(op);
    if succ.len() != 2 || succ[0] != succ[1] || t_ops != f_ops {
        return None;
    }
    Some(new_br(ctx, body.op_loc(op), succ[0], &t_ops))
}

// ---------------------------------------------------------------------------- cf.switch

/// The operands, successors and inherent attributes of a new `cf.switch` on `flag` (of integer
/// type `flag_ty`): `case_values` (absent without cases), `case_operand_segments`,
/// `operandSegmentSizes`.
pub(crate) struct SwitchParts {
    pub operands: SmallVec<[Value; 4]>,
    pub successors: SmallVec<[Block; 2]>,
    pub attrs: [(&'static str, Option<Attr>); 3],
}

impl SwitchParts {
    pub fn new(
        ctx: &Context,
        flag: Value,
        flag_ty: Type,
        default: (Block, &[Value]),
        cases: &[(i128, Block, &[Value])],
    ) -> SwitchParts {
        let mut operands: SmallVec<[Value; 4]> = SmallVec::new();
        operands.push(flag);
        operands.extend_from_slice(default.1);
        let mut successors: SmallVec<[Block; 2]> = SmallVec::new();
        successors.push(default.0);
        for &(_, dest, ops) in cases {
            operands.extend_from_slice(ops);
            successors.push(dest);
        }
        let i32_array = |v: &mut dyn Iterator<Item = usize>| {
            let data: Vec<u8> = v.flat_map(|n| (n as i32).to_le_bytes()).collect();
            ctx.attr(AttrKind::DenseArray {
                elem: ctx.i32_type(),
                data: data.into(),
            })
        };
        let n_cases: usize = cases.iter().map(|c| c.2.len()).sum();
        let segments = i32_array(&mut [1, default.1.len(), n_cases].into_iter());
        let case_segments = i32_array(&mut cases.iter().map(|c| c.2.len()));
        let values = (!cases.is_empty()).then(|| {
            let nbytes = xcs_ir::attrs::dense_elem_bytes(ctx, flag_ty);
            let is_i1 = ctx.int_width(flag_ty) == Some(1);
            let mut bytes = Vec::with_capacity(nbytes * cases.len());
            for &(v, _, _) in cases {
                if is_i1 {
                    bytes.push((v != 0) as u8);
                } else {
                    xcs_ir::attrs::write_int(&mut bytes, v, nbytes);
                }
            }
            // all equal: a splat, as MLIR stores it
            let data = if bytes.chunks_exact(nbytes.max(1)).all(|c| c == &bytes[..nbytes]) {
                DenseData::Splat(bytes[..nbytes].into())
            } else {
                DenseData::Elements(bytes.into())
            };
            let ty = ctx.intern_type(TypeKind::Vector {
                shape: Box::new([cases.len() as i64]),
                scalable: Box::new([false]),
                elem: flag_ty,
            });
            ctx.attr(AttrKind::DenseElements { ty, data })
        });
        SwitchParts {
            operands,
            successors,
            attrs: [
                ("case_values", values),
                ("case_operand_segments", Some(case_segments)),
                ("operandSegmentSizes", Some(segments)),
            ],
        }
    }

    fn state(self, ctx: &Context, loc: Location) -> OperationState {
        let mut st = OperationState::of(ctx, SwitchOp::DEF, loc).operands(&self.operands);
        st.successors = self.successors;
        for (name, value) in self.attrs {
            if let Some(v) = value {
                st = st.attr(ctx, name, v);
            }
        }
        st
    }
}

/// A `cf.switch` with its targets, its flag and the flag's type.
struct Switch {
    targets: SwitchTargets,
    flag: Value,
    flag_ty: Type,
    operands: SmallVec<[Value; 8]>,
}

impl Switch {
    fn of(ctx: &Context, body: &Body, op: Op) -> Option<Switch> {
        let targets = SwitchOp::cast(ctx, body, op)?.targets(ctx, body)?;
        let operands: SmallVec<[Value; 8]> = body.operands(op).collect();
        let flag = *operands.first()?;
        Some(Switch {
            targets,
            flag,
            flag_ty: body.value_type(flag),
            operands,
        })
    }
    fn default(&self) -> (Block, &[Value]) {
        (self.targets.default.0, &self.operands[self.targets.default.1.clone()])
    }
    fn cases(&self) -> Vec<(i128, Block, &[Value])> {
        self.targets
            .cases
            .iter()
            .map(|c| (c.value, c.dest, &self.operands[c.operands.clone()]))
            .collect()
    }
    /// A `cf.br` to where the switch goes when the flag is `flag`.
    fn br_for(&self, ctx: &Context, loc: Location, flag: i128) -> OperationState {
        let (dest, range) = self.targets.target(flag);
        new_br(ctx, loc, dest, &self.operands[range])
    }
}

/// A switch like `op` (`sw`) with `default` and `cases` (and the same flag).
fn switch_with_cases(
    ctx: &Context,
    body: &Body,
    op: Op,
    sw: &Switch,
    default: (Block, &[Value]),
    cases: &[(i128, Block, &[Value])],
) -> OperationState {
    SwitchParts::new(ctx, sw.flag, sw.flag_ty, default, cases).state(ctx, body.op_loc(op))
}

/// The integer value of a constant (a `ConstantLike` op's `value`).
fn constant_int(ctx: &Context, body: &Body, v: Value) -> Option<i128> {
    let def = body.defining_op(v)?;
    if !ctx
        .op_def(body.op_name(def))
        .is_some_and(|d| d.has(Traits::ConstantLike))
    {
        return None;
    }
    body.attr(ctx, def, "value").and_then(|a| ctx.as_int(a))
}

/// `cf.switch %f : i32, [default: ^bb1(x)]`: a `cf.br ^bb1(x)`.
fn switch_only_default(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let sw = Switch::of(ctx, body, op)?;
    if !sw.targets.cases.is_empty() {
        return None;
    }
    let (dest, ops) = sw.default();
    Some(new_br(ctx, body.op_loc(op), dest, ops))
}

/// Cases that go where the default goes, with the same operands, are dropped.
fn switch_drop_cases_matching_default(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let sw = Switch::of(ctx, body, op)?;
    let default = sw.default();
    let cases = sw.cases();
    let kept: Vec<(i128, Block, &[Value])> = cases
        .iter()
        .copied()
        .filter(|&(_, dest, ops)| dest != default.0 || ops != default.1)
        .collect();
    if kept.len() == cases.len() {
        return None;
    }
    Some(switch_with_cases(ctx, body, op, &sw, default, &kept))
}

/// A switch on a constant: a `cf.br` to the case it selects.
fn switch_const_flag(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let sw = Switch::of(ctx, body, op)?;
    let flag = constant_int(ctx, body, sw.flag)?;
    Some(sw.br_for(ctx, body.op_loc(op), flag))
}

/// Successors that only branch on are skipped (MLIR's `simplifyPassThroughSwitch`).
fn pass_through_switch(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let sw = Switch::of(ctx, body, op)?;
    let mut changed = false;
    let mut through = |dest: Block, ops: &[Value]| match collapse_one(ctx, body, dest, ops) {
        Some((d, v)) => {
            changed = true;
            (d, v)
        }
        None => (dest, ops.into()),
    };
    let cases: Vec<(i128, Block, SmallVec<[Value; 4]>)> = sw
        .cases()
        .into_iter()
        .map(|(value, dest, ops)| {
            let (d, v) = through(dest, ops);
            (value, d, v)
        })
        .collect();
    let (d0, o0) = sw.default();
    let default = through(d0, o0);
    if !changed {
        return None;
    }
    let cases: Vec<(i128, Block, &[Value])> = cases.iter().map(|(v, b, o)| (*v, *b, o.as_slice())).collect();
    Some(switch_with_cases(ctx, body, op, &sw, (default.0, &default.1), &cases))
}

/// The block's only predecessor edge, if it has exactly one.
fn single_predecessor(body: &Body, b: Block) -> Option<Op> {
    match predecessors(body, b).as_slice() {
        [(t, _)] => Some(*t),
        _ => None,
    }
}

/// In a block that only a case of a switch on the same flag reaches, the flag has that case's
/// value: the switch becomes a `cf.br` to where that value goes.
fn switch_from_switch_on_same_flag(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let (sw, blk, pred) = switch_under_switch_on_same_flag(ctx, body, op)?;
    if pred.targets.default.0 == blk {
        return None;
    }
    let case = pred.targets.cases.iter().find(|c| c.dest == blk)?;
    Some(sw.br_for(ctx, body.op_loc(op), case.value))
}

/// Switch `op`, its block and the switch on the same flag that is the block's only
/// predecessor, if there is one.
fn switch_under_switch_on_same_flag(ctx: &Context, body: &Body, op: Op) -> Option<(Switch, Block, Switch)> {
    let sw = Switch::of(ctx, body, op)?;
    let blk = body.op_block(op)?;
    let pred = single_predecessor(body, blk).and_then(|t| Switch::of(ctx, body, t))?;
    (pred.flag == sw.flag).then_some((sw, blk, pred))
}

/// In a block that only the default of a switch on the same flag reaches, the flag has none of
/// that switch's case values: those cases are dropped.
fn switch_from_default_switch_on_same_flag(ctx: &Context, body: &Body, op: Op) -> Option<OperationState> {
    let (sw, blk, pred) = switch_under_switch_on_same_flag(ctx, body, op)?;
    if pred.targets.default.0 != blk {
        return None;
    }
    let impossible: Vec<i128> = pred
        .targets
        .cases
        .iter()
        .filter(|c| c.dest != blk)
        .map(|c| c.value)
        .collect();
    let cases = sw.cases();
    let kept: Vec<(i128, Block, &[Value])> = cases.iter().copied().filter(|c| !impossible.contains(&c.0)).collect();
    if kept.len() == cases.len() {
        return None;
    }
    Some(switch_with_cases(ctx, body, op, &sw, sw.default(), &kept))
}

// ---------------------------------------------------------------------------- cf.assert

/// `cf.assert` of a constant `true` is erased.
fn assert_true(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let (ctx, body) = (rw.ctx, &*rw.body);
    if body.num_operands(op) != 1 || !constant_int(ctx, body, body.operand(op, 0)).is_some_and(|c| c != 0) {
        return false;
    }
    rw.erase_op(op);
    true
}
