//! Liveness and in-place updates of the function being lowered: where each value of the
//! function's blocks dies ([`InPlacePlan::last_use`]), which ops may write their result into
//! the buffer of an operand that dies at them, and which `cf` block arguments own their buffer.
//!
//! An op whose [`LowerOp::in_place_operand`] is `Some(k)` (`tensor.dynamic_update_slice`) may
//! write into operand `k`'s buffer instead of copying it when (1, here, on the IR) the operand
//! dies at the op: it is not used after it in its block, nor in another block, nor twice by
//! the op; and (2, when the op is lowered, [`FunctionLowering::can_update_in_place`]) the
//! buffer is the function's own (not an argument the caller owns, not a constant), contiguous,
//! and no other live value refers to it (the buffer's reference count, views included, is 1).
//! This is XLA's in-place `dynamic-update-slice` (buffer assignment shares the operand's
//! buffer with the result when the operand dies there) and MLIR one-shot bufferization's
//! in-place analysis (`BufferizableOpInterface`: the operand bufferizes to a memory write
//! aliasing the result; a write is in place unless a later read of the old value conflicts),
//! restricted to what is provable locally: anything else keeps copying.
//!
//! Loops carry their state through block arguments (`lax.scan` becomes a `cf` loop). A block
//! argument *owns* its buffer ([`InPlacePlan::owns`]) when an in-place op updates it where it
//! dies, or when it is forwarded where it dies to an owning argument: every branch then hands
//! it a buffer no other value refers to (the value passed dies at the branch, is passed once on
//! that edge and is its buffer's only reference), or a copy made on that edge (the loop's entry
//! edge, passing a constant or an argument, copies once). Ownership so goes around the back
//! edge, and a loop that updates its carry in place copies nothing per iteration (MLIR's
//! ownership-based buffer deallocation passes ownership through block arguments the same way).

use rustc_hash::{FxHashMap, FxHashSet};
use xcs_ir::{Block, Body, Context, Op, Value, ValueDef};

use super::function::FunctionLowering;
use super::interface::LowerOp;
use super::values::TensorVal;

/// Where a value of the function's blocks is last used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastUse {
    /// At this op of the value's own block (or an op nested in its regions): the value dies
    /// after it.
    At(Op),
    /// In another block: the value lives to the end of the function.
    Escapes,
}

/// The liveness facts of one function's blocks (see the module doc).
#[derive(Default)]
pub struct InPlacePlan {
    last: FxHashMap<Value, LastUse>,
    /// Top-level op -> its block and position in it.
    position: FxHashMap<Op, (Block, usize)>,
    owning: FxHashSet<Value>,
}

impl InPlacePlan {
    /// Analyses the blocks `blocks` (the function body's region, entry first).
    pub fn analyze(ctx: &Context, body: &Body, blocks: &[Block]) -> InPlacePlan {
        let mut plan = InPlacePlan::default();
        for &b in blocks {
            for (i, op) in body.block_op_vec(b).into_iter().enumerate() {
                plan.position.insert(op, (b, i));
            }
        }
        for &b in blocks {
            for &a in body.block_args(b) {
                plan.note_uses(body, a, b);
            }
            for op in body.block_op_vec(b) {
                for r in body.results(op) {
                    plan.note_uses(body, r, b);
                }
            }
        }
        plan.find_owning(ctx, body, blocks);
        plan
    }

    /// Records the last use of `v` (defined in block `home`); unused values get no entry.
    fn note_uses(&mut self, body: &Body, v: Value, home: Block) {
        let mut last: Option<(usize, Op)> = None;
        for user in body.users(v) {
            match self.top_level(body, user) {
                Some((op, b, i)) if b == home => {
                    if last.is_none_or(|(j, _)| i > j) {
                        last = Some((i, op));
                    }
                }
                _ => {
                    self.last.insert(v, LastUse::Escapes);
                    return;
                }
            }
        }
        if let Some((_, op)) = last {
            self.last.insert(v, LastUse::At(op));
        }
    }

    /// The op of the function's blocks that is `op` or contains it, with its block and position.
    fn top_level(&self, body: &Body, mut op: Op) -> Option<(Op, Block, usize)> {
        loop {
            if let Some(&(b, i)) = self.position.get(&op) {
                return Some((op, b, i));
            }
            op = body.parent_op(op)?;
        }
    }

    /// Where `v` is last used (`None`: never used).
    pub fn last_use(&self, v: Value) -> Option<LastUse> {
        self.last.get(&v).copied()
    }

    /// `v` dies at `op`, which uses it once.
    pub fn dies_at(&self, body: &Body, v: Value, op: Op) -> bool {
        self.last_use(v) == Some(LastUse::At(op)) && body.operands(op).filter(|&u| u == v).count() == 1
    }

    /// Block argument `a` owns its buffer: branches hand it one no other value refers to.
    pub fn owns(&self, a: Value) -> bool {
        self.owning.contains(&a)
    }

    /// The owning block arguments: the in-place operands that are block arguments (of blocks
    /// but the entry, whose arguments the caller owns) dying at their op, then, to a fixed
    /// point, the arguments forwarded where they die, once on the edge, to an owning argument.
    fn find_owning(&mut self, ctx: &Context, body: &Body, blocks: &[Block]) {
        let is_inner_arg = |v: Value| matches!(body.value_def(v), ValueDef::Arg { block, .. } if block != blocks[0]);
        let mut edges = Vec::new();
        for &b in blocks {
            for op in body.block_op_vec(b) {
                if let Some(k) = ctx.interface::<dyn LowerOp>(body.op_name(op)).and_then(|l| l.in_place_operand()) {
                    if k < body.num_operands(op) {
                        let x = body.operand(op, k);
                        if is_inner_arg(x) && self.dies_at(body, x, op) {
                            self.owning.insert(x);
                        }
                    }
                }
                let Some(def) = ctx.op_def(body.op_name(op)) else { continue };
                for (i, &dest) in body.successors(op).iter().enumerate() {
                    if let Some(range) = def.successor_operands.range(ctx, body, op, i) {
                        edges.push((op, dest, range));
                    }
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for (op, dest, range) in &edges {
                let passed: Vec<Value> = body.operands(*op).skip(range.start).take(range.len()).collect();
                for (&v, &a) in passed.iter().zip(body.block_args(*dest)) {
                    let once = passed.iter().filter(|&&u| u == v).count() == 1;
                    if self.owns(a)
                        && !self.owns(v)
                        && is_inner_arg(v)
                        && once
                        && self.last_use(v) == Some(LastUse::At(*op))
                    {
                        self.owning.insert(v);
                        changed = true;
                    }
                }
            }
        }
    }
}

impl FunctionLowering<'_, '_> {
    /// `x`, operand `k` of `op` (whose [`LowerOp::in_place_operand`] is `Some(k)`), may be
    /// overwritten by the op's result: it dies at `op` and its buffer is this function's,
    /// contiguous, and referred to by `x` alone.
    pub fn can_update_in_place(&self, body: &Body, op: Op, k: usize, x: &TensorVal) -> bool {
        k < body.num_operands(op)
            && self.plan.dies_at(body, body.operand(op, k), op)
            && x.contiguous
            && x.buf.is_some_and(|b| self.buffer_is_exclusive(b))
    }

    /// `v`, passed by the branch being lowered on an edge whose operands are `edge`, can hand
    /// its buffer to an owning block argument: it dies at the branch, is passed once on the
    /// edge, and its contiguous buffer is the function's and referred to by `v` alone.
    pub(super) fn can_hand_over(&self, body: &Body, v: Value, edge: &[Value], t: &TensorVal) -> bool {
        self.cur_op
            .is_some_and(|op| self.plan.last_use(v) == Some(LastUse::At(op)) && body.operands(op).any(|u| u == v))
            && edge.iter().filter(|&&u| u == v).count() == 1
            && t.contiguous
            && t.buf.is_some_and(|b| self.buffer_is_exclusive(b))
    }
}
