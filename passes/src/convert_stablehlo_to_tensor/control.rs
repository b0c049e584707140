//! StableHLO's structured control flow as `cf` blocks, before the straight-line conversion:
//! `while` becomes a header block (the `cond` region's block, ending in `cf.cond_br` on the
//! `tensor.extract`ed condition), a loop block (the `body` region's, branching back) and an
//! exit block whose arguments replace the results; `case` a chain of `index == i` tests
//! (an out-of-range index runs the last branch, as StableHLO says) and `if` one `cf.cond_br`.
//! Regions are moved whole (their blocks keep their arguments); nested control flow surfaces
//! in the function's region and is flattened in a later round. This is what MLIR's
//! `scf-to-cf` does for `scf.while` and `scf.if`.

use xcs_dialects::cf::{BranchOp, CondBranchOp};
use xcs_dialects::stablehlo::{self as sh};
use xcs_dialects::tensor;
use xcs_ir::{AttrKind, Block, Body, Builder, Context, Diagnostic, Location, Op, OperationState, Value};

/// Why a function's control flow was not flattened.
pub(super) enum Unhandled {
    /// A shape the pass does not handle: the function is left alone.
    Warning(Diagnostic),
    /// A malformed program or a failed build.
    Error(Diagnostic),
}

impl From<Diagnostic> for Unhandled {
    fn from(d: Diagnostic) -> Self {
        Unhandled::Error(d)
    }
}

fn is_control(ctx: &Context, body: &Body, op: Op) -> bool {
    sh::WhileOp::cast(ctx, body, op).is_some() || sh::CaseOp::cast(ctx, body, op).is_some() || sh::IfOp::cast(ctx, body, op).is_some()
}

/// Flattens every `while`, `case` and `if` of the function `body` into `cf` blocks.
pub(super) fn flatten(ctx: &Context, body: &mut Body) -> Result<(), Unhandled> {
    let Some(&region) = body.root_regions().first() else { return Ok(()) };
    loop {
        let blocks: Vec<Block> = body.region_blocks(region).collect();
        let found = blocks.iter().flat_map(|&b| body.block_op_vec(b)).find(|&op| is_control(ctx, body, op));
        let Some(op) = found else { return Ok(()) };
        let single_blocks = body.regions(op).iter().all(|&r| body.region_blocks(r).count() == 1);
        let returns = body.regions(op).iter().all(|&r| {
            body.entry_block(r).and_then(|b| body.last_op(b)).is_some_and(|t| sh::ReturnOp::cast(ctx, body, t).is_some())
        });
        if !single_blocks || !returns {
            let msg = "convert-stablehlo-to-tensor leaves this function alone: its control flow has a region that is not one block ending in 'stablehlo.return'";
            return Err(Unhandled::Warning(Diagnostic::warning(body.op_loc(op), msg)));
        }
        if sh::WhileOp::cast(ctx, body, op).is_some() {
            flatten_while(ctx, body, op)?;
        } else if sh::CaseOp::cast(ctx, body, op).is_some() {
            flatten_case(ctx, body, op)?;
        } else {
            flatten_if(ctx, body, op)?;
        }
    }
}

/// Places `nb` right after `anchor` in its region.
fn insert_after(body: &mut Body, anchor: Block, nb: Block) {
    match body.next_block(anchor) {
        Some(n) => body.insert_block_before(n, nb),
        None => {
            let r = body.block_region(anchor).expect("a block in a region");
            body.append_block(r, nb);
        }
    }
}

/// Moves the ops after `op` into a new block (placed after `op`'s) whose arguments have the
/// types of `op`'s results and replace them; returns the block.
fn split_after(body: &mut Body, op: Op) -> Block {
    let blk = body.op_block(op).expect("an op in a block");
    let exit = body.create_block(&body.result_types(op));
    insert_after(body, blk, exit);
    let mut next = body.next_op(op);
    while let Some(o) = next {
        next = body.next_op(o);
        body.detach_op(o);
        body.append_op(exit, o);
    }
    for i in 0..body.num_results(op) {
        let (r, a) = (body.result(op, i), body.block_arg(exit, i));
        body.replace_all_uses(r, a);
    }
    exit
}

/// Moves the single block of region `i` of `op` after `anchor`; returns it.
fn take_region_block(body: &mut Body, op: Op, i: usize, anchor: Block) -> Block {
    let r = body.regions(op)[i];
    let b = body.entry_block(r).expect("checked: one block");
    body.detach_block(b);
    insert_after(body, anchor, b);
    b
}

fn br(ctx: &Context, body: &mut Body, at: Block, loc: Location, dest: Block, args: &[Value]) {
    let mut st = OperationState::of(ctx, BranchOp::DEF, loc).operands(args);
    st.successors.push(dest);
    let op = body.create_op(st);
    body.append_op(at, op);
}

#[allow(clippy::too_many_arguments)]
fn cond_br(ctx: &Context, body: &mut Body, at: Block, loc: Location, cond: Value, t: (Block, &[Value]), f: (Block, &[Value])) {
    let mut ops = vec![cond];
    ops.extend_from_slice(t.1);
    ops.extend_from_slice(f.1);
    let seg: Vec<u8> = [1i32, t.1.len() as i32, f.1.len() as i32].iter().flat_map(|s| s.to_le_bytes()).collect();
    let seg = ctx.attr(AttrKind::DenseArray { elem: ctx.i32_type(), data: seg.into() });
    let mut st = OperationState::of(ctx, CondBranchOp::DEF, loc).operands(&ops).attr(ctx, "operandSegmentSizes", seg);
    st.successors.push(t.0);
    st.successors.push(f.0);
    let op = body.create_op(st);
    body.append_op(at, op);
}

/// The scalar of a 0-d i1 tensor, built at the end of `at`.
fn extract(ctx: &Context, body: &mut Body, at: Block, loc: Location, v: Value) -> Result<Value, Diagnostic> {
    let mut b = Builder::at_end(ctx, body, at);
    b.set_loc(loc);
    b.create1(tensor::ExtractOp::DEF.name, &[v], &[])
}

/// Replaces the `stablehlo.return` ending `blk` by a branch to `dest` with its operands.
fn return_to(ctx: &Context, body: &mut Body, blk: Block, dest: Block) {
    let ret = body.last_op(blk).expect("checked: ends in a return");
    let (vals, loc) = (body.operand_vec(ret), body.op_loc(ret));
    body.erase_op(ret);
    br(ctx, body, blk, loc, dest, &vals);
}

fn flatten_while(ctx: &Context, body: &mut Body, w: Op) -> Result<(), Diagnostic> {
    let (blk, loc) = (body.op_block(w).expect("in a block"), body.op_loc(w));
    let inits = body.operand_vec(w);
    let exit = split_after(body, w);
    let header = take_region_block(body, w, 0, blk);
    let looped = take_region_block(body, w, 1, header);
    let ret = body.last_op(header).expect("checked");
    let (c, rloc) = (body.operand(ret, 0), body.op_loc(ret));
    body.erase_op(ret);
    let s = extract(ctx, body, header, rloc, c)?;
    let args = body.block_args(header).to_vec();
    cond_br(ctx, body, header, rloc, s, (looped, &args), (exit, &args));
    return_to(ctx, body, looped, header);
    body.erase_op(w);
    br(ctx, body, blk, loc, header, &inits);
    Ok(())
}

fn flatten_if(ctx: &Context, body: &mut Body, op: Op) -> Result<(), Diagnostic> {
    let (blk, loc) = (body.op_block(op).expect("in a block"), body.op_loc(op));
    let pred = body.operand(op, 0);
    let exit = split_after(body, op);
    let t = take_region_block(body, op, 0, blk);
    let f = take_region_block(body, op, 1, t);
    return_to(ctx, body, t, exit);
    return_to(ctx, body, f, exit);
    body.erase_op(op);
    let s = extract(ctx, body, blk, loc, pred)?;
    cond_br(ctx, body, blk, loc, s, (t, &[]), (f, &[]));
    Ok(())
}

fn flatten_case(ctx: &Context, body: &mut Body, op: Op) -> Result<(), Diagnostic> {
    let (blk, loc) = (body.op_block(op).expect("in a block"), body.op_loc(op));
    let index = body.operand(op, 0);
    let exit = split_after(body, op);
    let n = body.num_regions(op);
    let mut branches = Vec::with_capacity(n);
    let mut prev = blk;
    for i in 0..n {
        prev = take_region_block(body, op, i, prev);
        branches.push(prev);
        return_to(ctx, body, prev, exit);
    }
    body.erase_op(op);
    let idx_elem = super::ops::elem_of(ctx, body.value_type(index));
    // Tests `index == i` for i < n-1, in blocks after `blk`; the last branch takes the rest.
    let mut at = blk;
    for (i, &branch) in branches.iter().enumerate().take(n.saturating_sub(1)) {
        let mut b = Builder::at_end(ctx, body, at);
        b.set_loc(loc);
        let k = super::ops::scalar(&mut b, idx_elem, i as f64)?;
        let eq = tensor::cmp(&mut b, index, k, "eq")?;
        let s = extract(ctx, body, at, loc, eq)?;
        let otherwise = if i + 2 == n {
            branches[n - 1]
        } else {
            let test = body.create_block(&[]);
            insert_after(body, at, test);
            test
        };
        cond_br(ctx, body, at, loc, s, (branch, &[]), (otherwise, &[]));
        at = otherwise;
    }
    if n == 1 {
        br(ctx, body, blk, loc, branches[0], &[]);
    }
    Ok(())
}
