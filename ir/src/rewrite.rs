//! Pattern rewriting: the [`RewritePattern`] trait ops declare as canonicalization patterns
//! (written as functions: [`FnPattern`], or [`ReplacePattern`] for one new op in place of the
//! old), and the [`Rewriter`] they mutate the IR through. The rewriter records what changed so a
//! driver (the greedy canonicalizer) can keep its worklist up to date.

use smallvec::SmallVec;

use crate::body::{Body, Op, OperationState, Value};
use crate::context::Context;

/// A rewrite rooted at one op. Returns `true` if it changed the IR (it must have, then).
pub trait RewritePattern: Sync + Send {
    /// A short name for debugging and statistics.
    fn name(&self) -> &'static str;
    /// Tries to rewrite `op`; all changes go through `rw`.
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool;
}

/// A pattern written as a plain function.
pub struct FnPattern {
    pub name: &'static str,
    pub f: fn(Op, &mut Rewriter<'_>) -> bool,
}

impl RewritePattern for FnPattern {
    fn name(&self) -> &'static str {
        self.name
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        (self.f)(op, rw)
    }
}

/// A pattern that replaces its op by one new op, written as a plain function that finds the
/// new op (its state), or `None` when the op does not match; the new op's results replace the
/// old op's. MLIR: a `matchAndRewrite` that ends in `replaceOpWithNewOp`.
pub struct ReplacePattern {
    pub name: &'static str,
    pub f: fn(&Context, &Body, Op) -> Option<OperationState>,
}

impl RewritePattern for ReplacePattern {
    fn name(&self) -> &'static str {
        self.name
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let Some(state) = (self.f)(rw.ctx, rw.body, op) else {
            return false;
        };
        rw.replace_op_with_new(op, state);
        true
    }
}

/// What a rewrite did, in order, for the driver's worklist.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RewriteEvent {
    Created(Op),
    Erased(Op),
    Modified(Op),
    /// The uses of this value changed owner (its old users should be revisited).
    Replaced(Value),
}

/// Mutation API for patterns. Every change is recorded as a [`RewriteEvent`].
pub struct Rewriter<'a> {
    pub ctx: &'a Context,
    pub body: &'a mut Body,
    events: Vec<RewriteEvent>,
}

impl<'a> Rewriter<'a> {
    pub fn new(ctx: &'a Context, body: &'a mut Body) -> Self {
        Rewriter { ctx, body, events: Vec::new() }
    }
    /// Takes the recorded events.
    pub fn take_events(&mut self) -> Vec<RewriteEvent> {
        std::mem::take(&mut self.events)
    }
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }
    /// Creates an op right before `anchor`.
    pub fn create_before(&mut self, anchor: Op, state: OperationState) -> Op {
        let op = self.body.create_op(state);
        self.body.insert_op_before(anchor, op);
        self.events.push(RewriteEvent::Created(op));
        op
    }
    /// Inserts an already created, detached op before `anchor`.
    pub fn insert_before(&mut self, anchor: Op, op: Op) {
        self.body.insert_op_before(anchor, op);
        self.events.push(RewriteEvent::Created(op));
    }
    /// Replaces all uses of `op`'s results by `values` and erases it.
    pub fn replace_op(&mut self, op: Op, values: &[Value]) {
        let results: SmallVec<[Value; 2]> = self.body.results(op).collect();
        assert_eq!(results.len(), values.len(), "replace_op: result count mismatch");
        for (r, &v) in results.into_iter().zip(values) {
            self.replace_all_uses(r, v);
        }
        self.erase_op(op);
    }
    /// Replaces `op` by a new op created before it; returns the new op.
    pub fn replace_op_with_new(&mut self, op: Op, state: OperationState) -> Op {
        let new = self.create_before(op, state);
        let vals: SmallVec<[Value; 2]> = self.body.results(new).collect();
        self.replace_op(op, &vals);
        new
    }
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        for user in self.body.users(from).collect::<SmallVec<[Op; 8]>>() {
            self.events.push(RewriteEvent::Modified(user));
        }
        self.body.replace_all_uses(from, to);
        self.events.push(RewriteEvent::Replaced(to));
    }
    pub fn erase_op(&mut self, op: Op) {
        // record nested ops too, so the driver can drop them from its worklist
        let mut nested = Vec::new();
        for &r in self.body.regions(op) {
            self.body.walk_region_into(r, &mut nested);
        }
        for o in nested {
            self.events.push(RewriteEvent::Erased(o));
        }
        for v in self.body.operands(op).collect::<SmallVec<[Value; 4]>>() {
            if let Some(d) = self.body.defining_op(v) {
                self.events.push(RewriteEvent::Modified(d));
            }
        }
        self.body.erase_op(op);
        self.events.push(RewriteEvent::Erased(op));
    }
    /// Records that `op` was changed in place (attributes, operands).
    pub fn modified(&mut self, op: Op) {
        self.events.push(RewriteEvent::Modified(op));
    }
    pub fn set_operand(&mut self, op: Op, i: usize, v: Value) {
        self.body.set_operand(op, i, v);
        self.events.push(RewriteEvent::Modified(op));
    }
}
