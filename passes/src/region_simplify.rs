//! Region simplification, the canonicalizer's `region-simplify` step (MLIR's
//! `simplifyRegions`): erase blocks unreachable from their region's entry, then a liveness
//! fixed point over ops, values and block arguments that erases dead ops (dead cycles in graph
//! regions included) and dead arguments of non-entry blocks together with the operands
//! branches forward to them. Block merging (`aggressive`) is not implemented.

use rustc_hash::{FxHashMap, FxHashSet};
use xcs_ir::{Block, Body, Context, Op, Region, Value};

use crate::util;

/// Runs both steps on every region of `body` (not nested bodies). Returns whether anything
/// was erased.
pub fn simplify_regions(ctx: &Context, body: &mut Body) -> bool {
    let a = erase_unreachable_blocks(body);
    let b = run_region_dce(ctx, body);
    a || b
}

/// All regions of the body with their parent op (`None` for root regions), outer first.
fn all_regions(body: &Body) -> Vec<(Option<Op>, Region)> {
    let mut out: Vec<(Option<Op>, Region)> = body.root_regions().iter().map(|&r| (None, r)).collect();
    for op in body.walk_ops() {
        for &r in body.regions(op) {
            out.push((Some(op), r));
        }
    }
    out
}

/// Erases blocks that cannot be reached from their region's entry block.
pub fn erase_unreachable_blocks(body: &mut Body) -> bool {
    let mut changed = false;
    for (parent, r) in all_regions(body) {
        // nothing is created here, so a dead op's id is never reused
        if parent.is_some_and(|p| !body.contains_op(p)) {
            continue;
        }
        let Some(entry) = body.entry_block(r) else { continue };
        if body.next_block(entry).is_none() {
            continue;
        }
        let mut seen: FxHashSet<Block> = FxHashSet::default();
        let mut stack = vec![entry];
        seen.insert(entry);
        while let Some(b) = stack.pop() {
            for s in util::block_successors(body, b) {
                if seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        let dead: Vec<Block> = body.region_blocks(r).filter(|b| !seen.contains(b)).collect();
        if dead.is_empty() {
            continue;
        }
        let mut dead_ops: Vec<Op> = Vec::new();
        for &b in &dead {
            for op in body.block_ops(b) {
                dead_ops.push(op);
                for &rr in body.regions(op) {
                    body.walk_region_into(rr, &mut dead_ops);
                }
            }
        }
        let dead_set: FxHashSet<Op> = dead_ops.iter().copied().collect();
        // invalid IR (a reachable op using a value of an unreachable block): leave it
        let outside = |v: Value| body.users(v).any(|u| !dead_set.contains(&u));
        let used_outside = dead.iter().any(|&b| body.block_args(b).iter().any(|&a| outside(a)))
            || dead_ops.iter().any(|&op| body.results(op).any(outside));
        if used_outside {
            continue;
        }
        // the dead blocks may use each other's values: drop all their uses first
        for &op in &dead_ops {
            body.set_operands(op, &[]);
        }
        for b in dead {
            body.erase_block(b);
            changed = true;
        }
    }
    changed
}

/// The liveness fixed point and deletion (MLIR's `runRegionDCE`).
pub fn run_region_dce(ctx: &Context, body: &mut Body) -> bool {
    let ops = body.walk_ops();
    if ops.is_empty() {
        return false;
    }
    // predecessors: (terminator, successor index) per block
    let mut preds: FxHashMap<Block, Vec<(Op, usize)>> = FxHashMap::default();
    let mut live_ops: FxHashSet<Op> = FxHashSet::default();
    let mut live_vals: FxHashSet<Value> = FxHashSet::default();
    for &op in &ops {
        for (k, &s) in body.successors(op).iter().enumerate() {
            preds.entry(s).or_default().push((op, k));
        }
        if !util::would_be_trivially_dead(ctx, body, op) || !body.successors(op).is_empty() {
            live_ops.insert(op);
        }
    }
    // forwarded operand positions of branches whose forwarding is known; successors of other
    // ops with successors keep all their arguments
    let mut forwarded: FxHashMap<Op, Vec<(usize, std::ops::Range<usize>)>> = FxHashMap::default();
    for &op in &ops {
        let n = body.successors(op).len();
        if n == 0 {
            continue;
        }
        let ranges: Option<Vec<_>> = (0..n)
            .map(|k| util::successor_operands(ctx, body, op, k).map(|r| (k, r)))
            .collect();
        match ranges {
            Some(rs)
                if rs
                    .iter()
                    .all(|(k, r)| r.len() == body.block_args(body.successors(op)[*k]).len()) =>
            {
                forwarded.insert(op, rs);
            }
            _ => {
                for &s in body.successors(op) {
                    live_vals.extend(body.block_args(s).iter().copied());
                }
            }
        }
    }
    let is_forwarded = |op: Op, i: usize| {
        forwarded
            .get(&op)
            .is_some_and(|rs| rs.iter().any(|(_, r)| r.contains(&i)))
    };
    loop {
        let mut changed = false;
        for &op in ops.iter().rev() {
            if !live_ops.contains(&op) {
                if body.results(op).any(|v| live_vals.contains(&v)) {
                    live_ops.insert(op);
                    changed = true;
                } else {
                    continue;
                }
            }
            for (i, v) in body.operands(op).enumerate() {
                if !is_forwarded(op, i) && live_vals.insert(v) {
                    changed = true;
                }
            }
            if let Some(rs) = forwarded.get(&op) {
                for (k, r) in rs {
                    let s = body.successors(op)[*k];
                    for (j, &arg) in body.block_args(s).iter().enumerate() {
                        if live_vals.contains(&arg) && live_vals.insert(body.operand(op, r.start + j)) {
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut erased = false;
    // dead arguments of non-entry blocks whose predecessors all forward explicitly
    let mut dead_args: Vec<(Block, usize)> = Vec::new();
    for (&b, ps) in &preds {
        let is_entry = body.block_region(b).and_then(|r| body.entry_block(r)) == Some(b);
        if is_entry || !ps.iter().all(|(p, _)| forwarded.contains_key(p)) {
            continue;
        }
        for (j, &a) in body.block_args(b).iter().enumerate() {
            if !live_vals.contains(&a) {
                dead_args.push((b, j));
            }
        }
    }
    dead_args.sort_by_key(|&(_, j)| std::cmp::Reverse(j)); // highest index first
    for &(b, j) in &dead_args {
        for &(p, k) in &preds[&b] {
            util::erase_successor_operand(ctx, body, p, k, j);
        }
    }
    // dead ops: drop their uses first (graph regions may hold dead cycles)
    let dead_ops: Vec<Op> = ops.iter().copied().filter(|op| !live_ops.contains(op)).collect();
    for &op in &dead_ops {
        body.set_operands(op, &[]);
    }
    for &op in dead_ops.iter().rev() {
        if body.contains_op(op) && body.results(op).all(|v| !body.has_uses(v)) {
            body.erase_op(op);
            erased = true;
        }
    }
    for (b, j) in dead_args {
        if body.contains_block(b) && !body.has_uses(body.block_arg(b, j)) {
            body.erase_block_arg(b, j);
            erased = true;
        }
    }
    erased
}
