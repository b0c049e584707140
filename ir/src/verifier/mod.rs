//! The verifier, in the model of MLIR's `mlir::verify` (`mlir/lib/IR/Verifier.cpp`): op
//! declarations and hooks, region shapes, terminators, successors, IsolatedFromAbove, symbol
//! tables and symbol uses, and SSA dominance, with MLIR's messages and MLIR's order of checks.
//!
//! Order (as MLIR): each op is checked on entrance (its declaration, traits and `verify` hook,
//! then its regions' shape), then its blocks and nested ops, then on exit the isolated-from-above
//! ops directly inside it (each a child [`Body`], verified in parallel with rayon), then its
//! region invariants (IsolatedFromAbove, SymbolTable: unique symbols, then symbol uses). A body's
//! dominance is checked after all that succeeded. The first failure of a body stops its
//! verification; sibling isolated ops are all verified and their errors are returned in program
//! order, so the result does not depend on the number of threads (mlir-opt reports a
//! thread-dependent subset there).
//!
//! Symbol uses: nested references (`@a::@b`) are not resolved; hooks receive flat names.

mod dominance;
mod symbols;

use rayon::prelude::*;
use smallvec::SmallVec;

use crate::body::{Block, Body, Op, Region};
use crate::context::Context;
use crate::diag::{Diagnostic, Severity};
use crate::entity::SecondaryMap;
use crate::module::Module;
use crate::opdef::{verify_op_def, OpDef, OpView, SuccessorOperands, SymbolLookup, Traits};

pub use symbols::{NoSymbols, Redefinition, SymbolTable};

/// Prints one op of a body in the generic form (for "see current operation" notes and
/// "block with no terminator, has ..." messages).
pub type OpPrinter = fn(&Context, &Body, Op) -> String;
/// Prints the op owning a body in the generic form.
pub type OwnerPrinter = fn(&Context, &Body) -> String;

/// Verifier settings.
#[derive(Clone, Copy)]
pub struct VerifyOptions {
    /// Verify sibling isolated-from-above ops (functions) in parallel.
    pub threads: bool,
    /// Attach `see current operation: <generic form>` notes to errors reported at an op, as
    /// mlir-opt does (`--mlir-print-op-on-diagnostic`, on by default, off under
    /// `--verify-diagnostics`).
    pub print_op_on_diagnostic: bool,
    /// How ops are printed in messages and notes.
    pub print_op: OpPrinter,
    pub print_owner: OwnerPrinter,
}

fn default_print_op(ctx: &Context, body: &Body, op: Op) -> String {
    crate::printer::print_op_generic(ctx, body, op).trim_end().to_string()
}

fn default_print_owner(ctx: &Context, body: &Body) -> String {
    let opts = crate::printer::PrintOptions {
        generic: true,
        ..Default::default()
    };
    crate::printer::print_isolated(ctx, body, &opts).trim_end().to_string()
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            threads: true,
            print_op_on_diagnostic: true,
            print_op: default_print_op,
            print_owner: default_print_owner,
        }
    }
}

/// Verifies a whole module; function bodies are verified in parallel unless `threads` is
/// false. Returns the errors in program order (empty = valid).
pub fn verify_module(ctx: &Context, m: &Module, threads: bool) -> Result<(), Vec<Diagnostic>> {
    verify_module_with(
        ctx,
        m,
        &VerifyOptions {
            threads,
            ..VerifyOptions::default()
        },
    )
}

/// [`verify_module`] with explicit options.
pub fn verify_module_with(ctx: &Context, m: &Module, opts: &VerifyOptions) -> Result<(), Vec<Diagnostic>> {
    let v = Verifier { ctx, opts };
    BodyVerifier::new(&v, &m.body).run(true, None)
}

/// Verifies the isolated op owning `body` and everything in it, resolving symbol uses that
/// leave it through `outer` (the nearest enclosing symbol table, e.g. a [`SymbolTable`] of the
/// module; MLIR never looks further out). The owner's own operands, results and `verify` hook
/// live in the parent body and are not checked here; its attributes and regions are. Isolated
/// ops nested in `body` are verified in parallel unless `threads` is false.
pub fn verify_isolated(
    ctx: &Context,
    body: &Body,
    outer: &dyn SymbolLookup,
    threads: bool,
) -> Result<(), Vec<Diagnostic>> {
    verify_isolated_with(
        ctx,
        body,
        outer,
        &VerifyOptions {
            threads,
            ..VerifyOptions::default()
        },
    )
}

/// [`verify_isolated`] with explicit options.
pub fn verify_isolated_with(
    ctx: &Context,
    body: &Body,
    outer: &dyn SymbolLookup,
    opts: &VerifyOptions,
) -> Result<(), Vec<Diagnostic>> {
    let v = Verifier { ctx, opts };
    BodyVerifier::new(&v, body).run(true, Some(outer))
}

// ---------------------------------------------------------------------------------------------

struct Verifier<'a> {
    ctx: &'a Context,
    opts: &'a VerifyOptions,
}

type Fail = Vec<Diagnostic>;

/// The op a region belongs to: an op of the body, or the body's owner.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Holder {
    Op(Op),
    Owner,
}

/// One step of the structural walk (MLIR's entrance/exit work items).
enum Work {
    EnterOp(Op),
    ExitOp(Op),
    EnterBlock(Block),
    ExitBlock(Block),
}

struct BodyVerifier<'a> {
    v: &'a Verifier<'a>,
    ctx: &'a Context,
    body: &'a Body,
    owner_def: Option<&'static OpDef>,
    /// How many successor references each block of this body has.
    preds: SecondaryMap<Block, u32>,
    /// The root region each (reachable-by-walk) region of this body belongs to.
    root_of: SecondaryMap<Region, Option<Region>>,
    /// Op positions and block indices, handed to the dominance check.
    layout: Option<dominance::Layout>,
}

impl<'a> BodyVerifier<'a> {
    fn new(v: &'a Verifier<'a>, body: &'a Body) -> Self {
        let ctx = v.ctx;
        let mut preds = SecondaryMap::new(0u32);
        let mut root_of = SecondaryMap::new(None);
        let mut layout = dominance::Layout::default();
        for &root in body.root_regions() {
            let mut stack = vec![root];
            while let Some(r) = stack.pop() {
                root_of.set(r, Some(root));
                for (bi, b) in body.region_blocks(r).enumerate() {
                    layout.block_index.set(b, bi as u32);
                    for (oi, op) in body.block_ops(b).enumerate() {
                        layout.op_pos.set(op, oi as u32);
                        for &s in body.successors(op) {
                            if body.contains_block(s) {
                                *preds.get_mut(s) += 1;
                            }
                        }
                        if !body.is_isolated(op) {
                            stack.extend_from_slice(body.regions(op));
                        }
                    }
                }
            }
        }
        BodyVerifier {
            v,
            ctx,
            body,
            owner_def: ctx.op_def(body.name()),
            preds,
            root_of,
            layout: Some(layout),
        }
    }

    // ------------------------------------------------------------------ helpers

    fn def(&self, op: Op) -> Option<&'static OpDef> {
        self.ctx.op_def(self.body.op_name(op))
    }

    fn holder_def(&self, h: Holder) -> Option<&'static OpDef> {
        match h {
            Holder::Op(op) => self.def(op),
            Holder::Owner => self.owner_def,
        }
    }

    fn holder_of(&self, r: Region) -> Holder {
        match self.body.region_parent_op(r) {
            Some(op) => Holder::Op(op),
            None => Holder::Owner,
        }
    }

    fn holder_loc(&self, h: Holder) -> crate::location::Location {
        match h {
            Holder::Op(op) => self.body.op_loc(op),
            Holder::Owner => self.body.loc(),
        }
    }

    fn holder_name(&self, h: Holder) -> &'a str {
        match h {
            Holder::Op(op) => self.ctx.op_name_str(self.body.op_name(op)),
            Holder::Owner => self.ctx.op_name_str(self.body.name()),
        }
    }

    /// `mightHaveTrait`: true for unregistered ops (MLIR cannot know).
    fn might_have(&self, h: Holder, t: Traits) -> bool {
        self.holder_def(h).is_none_or(|d| d.has(t))
    }

    /// The regions of an op, with the body holding them (the child body of an isolated op).
    fn op_regions(&self, op: Op) -> (&'a Body, &'a [Region]) {
        match self.body.nested(op) {
            Some(child) => (child, child.root_regions()),
            None => (self.body, self.body.regions(op)),
        }
    }

    fn holder_regions(&self, h: Holder) -> (&'a Body, &'a [Region]) {
        match h {
            Holder::Op(op) => self.op_regions(op),
            Holder::Owner => (self.body, self.body.root_regions()),
        }
    }

    /// An error reported by an op (MLIR's `Operation::emitError`): adds the "see current
    /// operation" note first.
    fn at_op(&self, op: Op, d: Diagnostic) -> Diagnostic {
        at_op(self.v, self.body, op, d)
    }

    fn at_holder(&self, h: Holder, d: Diagnostic) -> Diagnostic {
        match h {
            Holder::Op(op) => self.at_op(op, d),
            Holder::Owner => {
                let mut d = d;
                if self.v.opts.print_op_on_diagnostic {
                    let text = (self.v.opts.print_owner)(self.ctx, self.body);
                    d.notes.insert(0, current_op_note(self.body.loc(), &text));
                }
                d
            }
        }
    }

    /// `op.emitError(message)`: located at the op, no `'name' op` prefix.
    fn op_error(&self, op: Op, message: impl Into<String>) -> Diagnostic {
        self.at_op(op, Diagnostic::error(self.body.op_loc(op), message))
    }

    /// `op.emitOpError(message)`: `'name' op message`.
    fn op_op_error(&self, h: Holder, message: impl AsRef<str>) -> Diagnostic {
        let d = Diagnostic::error(
            self.holder_loc(h),
            format!("'{}' op {}", self.holder_name(h), message.as_ref()),
        );
        self.at_holder(h, d)
    }

    fn hook_error(&self, op: Op, d: Diagnostic) -> Diagnostic {
        hook_error(self.v, self.body, op, d)
    }

    // ------------------------------------------------------------------ the run

    /// Verifies this body. `owner_invariants`: check the owner's attributes and regions from
    /// its declaration (when no parent body did); `outer`: check symbol uses of this body's
    /// scope against it (when the owner is not a symbol table itself).
    fn run(mut self, owner_invariants: bool, outer: Option<&dyn SymbolLookup>) -> Result<(), Fail> {
        if owner_invariants {
            self.owner_invariants().map_err(one)?;
        }
        self.region_entry_checks(Holder::Owner).map_err(one)?;
        self.structure()?;
        self.exit(Holder::Owner)?;
        self.dominance().map_err(one)?;
        if let Some(outer) = outer {
            if !self.owner_def.is_some_and(|d| d.has(Traits::SymbolTable)) {
                let tasks: Vec<Task> = self
                    .body
                    .root_regions()
                    .iter()
                    .map(|&r| (self.body, r, false))
                    .collect();
                check_symbol_uses_seq(self.v, tasks, outer).map_err(one)?;
            }
        }
        Ok(())
    }

    /// The walk of MLIR's `verifyOperation`, over this body's root regions. Isolated ops are
    /// skipped here and verified at their parent's exit.
    fn structure(&self) -> Result<(), Fail> {
        let body = self.body;
        let mut stack: Vec<Work> = Vec::new();
        for &r in body.root_regions().iter().rev() {
            push_blocks(body, r, &mut stack);
        }
        while let Some(w) = stack.pop() {
            match w {
                Work::EnterBlock(b) => {
                    self.enter_block(b).map_err(one)?;
                    stack.push(Work::ExitBlock(b));
                    let ops: SmallVec<[Op; 16]> = body.block_ops(b).collect();
                    for &op in ops.iter().rev() {
                        if !body.is_isolated(op) {
                            stack.push(Work::EnterOp(op));
                        }
                    }
                }
                Work::ExitBlock(b) => self.exit_block(b).map_err(one)?,
                Work::EnterOp(op) => {
                    self.op_invariants(op).map_err(one)?;
                    let regions = body.regions(op);
                    if regions.is_empty() {
                        // Nothing to do on exit: no isolated children, no region invariants
                        // (a symbol table without its region fails its declaration check).
                        continue;
                    }
                    self.region_entry_checks(Holder::Op(op)).map_err(one)?;
                    stack.push(Work::ExitOp(op));
                    for &r in regions.iter().rev() {
                        push_blocks(body, r, &mut stack);
                    }
                }
                Work::ExitOp(op) => self.exit(Holder::Op(op))?,
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ ops

    /// MLIR's `verifyOnEntrance(Operation&)` up to the region checks: operands, the op's
    /// declaration, its traits and its `verify` hook.
    fn op_invariants(&self, op: Op) -> Result<(), Diagnostic> {
        let body = self.body;
        let ctx = self.ctx;
        for v in body.operands(op) {
            if !body.contains_value(v) {
                return Err(self.op_error(op, "null operand found"));
            }
        }
        let Some(def) = self.def(op) else {
            // Checked on exit, after the op's regions (as MLIR's verifyOnExit does).
            if body.regions(op).is_empty() {
                self.unknown_op_check(op)?;
            }
            return Ok(());
        };
        let view = OpView::new(ctx, body, op);
        verify_op_def(&view, def).map_err(|d| self.hook_error(op, d))?;
        if def.has(Traits::IsolatedFromAbove) && !body.is_isolated(op) && !body.regions(op).is_empty() {
            // XCS's storage invariant (hooks of isolated ops rely on their child body).
            return Err(self.op_op_error(
                Holder::Op(op),
                "is isolated from above, but its regions are not in a body of their own",
            ));
        }
        if def.has(Traits::Terminator) && body.next_op(op).is_some() {
            return Err(self.op_op_error(Holder::Op(op), "must be the last operation in the parent block"));
        }
        self.region_shape(Holder::Op(op), def)?;
        if def.has(Traits::Symbol) {
            self.symbol_trait(Holder::Op(op))?;
        }
        if def.has(Traits::BranchLike) {
            self.branch_operands(op, def)?;
        }
        if let Some(hook) = def.verify {
            hook(&view).map_err(|d| self.hook_error(op, d))?;
        }
        Ok(())
    }

    /// The declaration checks of the body's owner that need no parent body: attributes and
    /// regions.
    fn owner_invariants(&self) -> Result<(), Diagnostic> {
        let Some(def) = self.owner_def else { return Ok(()) };
        let ctx = self.ctx;
        let attrs = self.body.self_attrs();
        for spec in def.attributes {
            match ctx.dict_get(attrs, spec.name) {
                None if !spec.optional => {
                    return Err(self.op_op_error(Holder::Owner, format!("requires attribute '{}'", spec.name)));
                }
                Some(a) if !(spec.constraint.check)(ctx, a) => {
                    return Err(self.op_op_error(
                        Holder::Owner,
                        format!(
                            "attribute '{}' failed to satisfy constraint: {}",
                            spec.name, spec.constraint.desc
                        ),
                    ));
                }
                _ => {}
            }
        }
        let n = self.body.root_regions().len();
        if n != def.regions.len() {
            return Err(self.op_op_error(
                Holder::Owner,
                format!("requires {} regions, but found {n}", def.regions.len()),
            ));
        }
        self.region_shape(Holder::Owner, def)?;
        if def.has(Traits::Symbol) {
            self.symbol_trait(Holder::Owner)?;
        }
        Ok(())
    }

    /// Block counts: the `SingleBlock` trait and each region's declared maximum.
    fn region_shape(&self, h: Holder, def: &OpDef) -> Result<(), Diagnostic> {
        let (rb, regions) = self.holder_regions(h);
        for (i, &r) in regions.iter().enumerate() {
            let n = rb.region_blocks(r).count();
            if def.has(Traits::SingleBlock) {
                if n > 1 {
                    return Err(self.op_op_error(h, format!("expects region #{i} to have 0 or 1 blocks")));
                }
                if n == 1 && !def.has(Traits::NoTerminator) && rb.region_blocks(r).all(|b| rb.is_block_empty(b)) {
                    return Err(self.op_op_error(h, "expects a non-empty block"));
                }
            }
            if let Some(spec) = def.regions.get(i).or(def.regions.last().filter(|r| r.variadic)) {
                if spec.max_blocks == 1 && n > 1 {
                    return Err(self.op_op_error(h, format!("expects region #{i} to have 0 or 1 blocks")));
                }
                if spec.max_blocks != u32::MAX && n > spec.max_blocks as usize {
                    return Err(self.op_op_error(
                        h,
                        format!(
                            "region #{i} ('{}') failed to verify constraint: region with at most {} blocks",
                            spec.name, spec.max_blocks
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// MLIR's `detail::verifySymbol`: a string `sym_name` and a known visibility.
    fn symbol_trait(&self, h: Holder) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let attrs = match h {
            Holder::Op(op) => self.body.attrs(op),
            Holder::Owner => self.body.self_attrs(),
        };
        if ctx.dict_get(attrs, "sym_name").and_then(|a| ctx.as_str(a)).is_none() {
            return Err(self.op_op_error(h, "requires string attribute 'sym_name'"));
        }
        if let Some(vis) = ctx.dict_get(attrs, "sym_visibility") {
            match ctx.as_str(vis) {
                None => {
                    return Err(self.op_op_error(
                        h,
                        format!(
                            "requires visibility attribute 'sym_visibility' to be a string attribute, but got {}",
                            crate::printer::attr_to_string(ctx, vis)
                        ),
                    ))
                }
                Some("public" | "private" | "nested") => {}
                Some(_) => {
                    return Err(self.op_op_error(
                        h,
                        format!(
                            "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got {}",
                            crate::printer::attr_to_string(ctx, vis)
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// `BranchOpInterface`: the operands forwarded to each successor match its arguments.
    fn branch_operands(&self, op: Op, def: &OpDef) -> Result<(), Diagnostic> {
        let body = self.body;
        let ctx = self.ctx;
        let succs = body.successors(op);
        let operands: SmallVec<[crate::body::Value; 8]> = body.operands(op).collect();
        // The operand range forwarded to each successor, or nothing if it cannot be derived (a
        // malformed `operandSegmentSizes` is the op's own verifier's business).
        if def.successor_operands == SuccessorOperands::None {
            return Ok(());
        }
        let ranges: Option<Vec<std::ops::Range<usize>>> = (0..succs.len())
            .map(|i| match def.successor_operands {
                // `cf.br`-like ops forward nothing to any further successor
                SuccessorOperands::All if i > 0 => Some(0..0),
                so => so.range(ctx, body, op, i),
            })
            .collect();
        let Some(ranges) = ranges else { return Ok(()) };
        for (i, (&dest, range)) in succs.iter().zip(ranges).enumerate() {
            if !body.contains_block(dest) {
                continue; // reported as a branch to another region at the block's exit
            }
            let args = body.block_args(dest);
            if range.len() != args.len() {
                return Err(self.op_error(
                    op,
                    format!(
                        "branch has {} operands for successor #{i}, but target block has {}",
                        range.len(),
                        args.len()
                    ),
                ));
            }
            for (j, (&a, vi)) in args.iter().zip(range).enumerate() {
                if body.value_type(operands[vi]) != body.value_type(a) {
                    return Err(self.op_error(op, format!("type mismatch for bb argument #{j} of successor #{i}")));
                }
            }
        }
        Ok(())
    }

    /// The region part of MLIR's `verifyOnEntrance(Operation&)`: graph regions have at most
    /// one block; entry blocks have no predecessors.
    fn region_entry_checks(&self, h: Holder) -> Result<(), Diagnostic> {
        let def = self.holder_def(h);
        let regions: &[Region] = match h {
            Holder::Op(op) => {
                if self.body.is_isolated(op) {
                    return Ok(()); // checked by the child body's own verifier
                }
                self.body.regions(op)
            }
            Holder::Owner => self.body.root_regions(),
        };
        for (i, &r) in regions.iter().enumerate() {
            if def.is_some_and(|d| d.has(Traits::GraphRegion)) && self.body.region_blocks(r).nth(1).is_some() {
                return Err(self.op_op_error(h, format!("expects graph region #{i} to have 0 or 1 blocks")));
            }
            if let Some(entry) = self.body.entry_block(r) {
                if *self.preds.get(entry) != 0 {
                    return Err(Diagnostic::error(
                        self.holder_loc(h),
                        "entry block of region may not have predecessors",
                    ));
                }
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ blocks

    /// A block may lack a terminator if it is the only block of its region and the region's
    /// op might have `NoTerminator`.
    fn may_be_valid_without_terminator(&self, b: Block) -> bool {
        let Some(r) = self.body.block_region(b) else {
            return true;
        };
        if self.body.region_blocks(r).nth(1).is_some() {
            return false;
        }
        self.might_have(self.holder_of(r), Traits::NoTerminator)
    }

    fn enter_block(&self, b: Block) -> Result<(), Diagnostic> {
        let body = self.body;
        let Some(last) = body.last_op(b) else {
            if self.may_be_valid_without_terminator(b) {
                return Ok(());
            }
            let loc = body
                .block_region(b)
                .map_or(body.loc(), |r| self.holder_loc(self.holder_of(r)));
            return Err(Diagnostic::error(loc, "empty block: expect at least a terminator"));
        };
        for op in body.block_ops(b) {
            if op != last && !body.successors(op).is_empty() {
                return Err(self.op_error(op, "operation with block successors must terminate its parent block"));
            }
        }
        Ok(())
    }

    fn exit_block(&self, b: Block) -> Result<(), Diagnostic> {
        let body = self.body;
        let Some(last) = body.last_op(b) else { return Ok(()) };
        let region = body.block_region(b);
        for &s in body.successors(last) {
            if !body.contains_block(s) || body.block_region(s) != region {
                return Err(self.op_op_error(Holder::Op(last), "branching to block of a different region"));
            }
        }
        if self.may_be_valid_without_terminator(b) {
            return Ok(());
        }
        if !self.might_have(Holder::Op(last), Traits::Terminator) {
            let text = (self.v.opts.print_op)(self.ctx, body, last);
            return Err(self.op_error(last, format!("block with no terminator, has {text}")));
        }
        Ok(())
    }

    // ------------------------------------------------------------------ exits

    /// MLIR's `verifyOnExit(Operation&)` plus region invariants: the isolated ops directly in
    /// the op's regions, then IsolatedFromAbove (for the owner) and SymbolTable.
    fn exit(&self, h: Holder) -> Result<(), Fail> {
        let body = self.body;
        let regions: &[Region] = match h {
            Holder::Op(op) => body.regions(op),
            Holder::Owner => body.root_regions(),
        };
        let mut children: Vec<Op> = Vec::new();
        for &r in regions {
            for b in body.region_blocks(r) {
                children.extend(body.block_ops(b).filter(|&o| body.is_isolated(o)));
            }
        }
        if !children.is_empty() {
            self.verify_children(&children)?;
        }
        if h == Holder::Owner {
            self.isolation().map_err(one)?;
        }
        if self.holder_def(h).is_some_and(|d| d.has(Traits::SymbolTable)) {
            self.symbol_table(h).map_err(one)?;
        }
        if let Holder::Op(op) = h {
            match self.def(op) {
                None => self.unknown_op_check(op).map_err(one)?,
                Some(def) => {
                    if let Some(hook) = def.verify_regions {
                        let view = OpView::new(self.ctx, body, op);
                        hook(&view).map_err(|d| one(self.hook_error(op, d)))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// An unknown op of a registered dialect parses (as in MLIR) but does not verify.
    fn unknown_op_check(&self, op: Op) -> Result<(), Diagnostic> {
        let info = self.ctx.op_info(self.body.op_name(op));
        if !info.dialect.is_empty() && self.ctx.is_registered_dialect(&info.dialect) {
            return Err(self.op_error(
                op,
                format!(
                    "unregistered operation '{}' found in dialect ('{}') that does not allow unknown operations",
                    info.name, info.dialect
                ),
            ));
        }
        Ok(())
    }

    /// Verifies isolated ops of this body (their invariants here, their contents in their
    /// child bodies), all of them, in parallel if enabled; errors in program order.
    fn verify_children(&self, children: &[Op]) -> Result<(), Fail> {
        let run = |&x: &Op| -> Result<(), Fail> {
            self.op_invariants(x).map_err(one)?;
            let child = self.body.nested(x).expect("isolated op without a body");
            BodyVerifier::new(self.v, child).run(false, None)
        };
        let results: Vec<Result<(), Fail>> = if self.v.opts.threads && children.len() > 1 {
            children.par_iter().map(run).collect()
        } else {
            children.iter().map(run).collect()
        };
        let errors: Fail = results.into_iter().filter_map(Result::err).flatten().collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// MLIR's `verifyIsIsolatedFromAbove` for the owner: every operand is defined in the same
    /// root region as its user.
    fn isolation(&self) -> Result<(), Diagnostic> {
        let body = self.body;
        for &root in body.root_regions() {
            let mut stack = vec![root];
            while let Some(r) = stack.pop() {
                for b in body.region_blocks(r) {
                    for op in body.block_ops(b) {
                        for v in body.operands(op) {
                            let vr = body
                                .value_block(v)
                                .and_then(|vb| body.block_region(vb))
                                .and_then(|vr| *self.root_of.get(vr));
                            match vr {
                                None => return Err(self.op_error(op, "operation's operand is unlinked")),
                                Some(vr) if vr != root => {
                                    return Err(self
                                        .op_op_error(Holder::Op(op), "using value defined outside the region")
                                        .with_note(body.loc(), "required by region isolation constraints"));
                                }
                                _ => {}
                            }
                        }
                        if !body.is_isolated(op) {
                            stack.extend(body.regions(op).iter().rev());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// MLIR's `detail::verifySymbolTable`: one region with one block, unique symbol names, then
    /// every symbol use in the table's scope.
    fn symbol_table(&self, h: Holder) -> Result<(), Diagnostic> {
        let (rb, regions) = self.holder_regions(h);
        if regions.len() != 1 {
            return Err(self.op_op_error(h, "Operations with a 'SymbolTable' must have exactly one region"));
        }
        if rb.region_blocks(regions[0]).count() != 1 {
            return Err(self.op_op_error(h, "Operations with a 'SymbolTable' must have exactly one block"));
        }
        let table = match SymbolTable::build(self.ctx, rb, regions) {
            Ok(t) => t,
            Err(Redefinition { op, name, first }) => {
                // `rb` is this body (the table's regions are never in a child body here: the
                // child's own verifier checks an isolated table).
                let d = Diagnostic::error(rb.op_loc(op), format!("redefinition of symbol named '{name}'"));
                return Err(self
                    .at_op(op, d)
                    .with_note(first, "see existing symbol definition here"));
            }
        };
        let tasks: Vec<Task> = regions.iter().map(|&r| (rb, r, false)).collect();
        if self.v.opts.threads {
            check_symbol_uses_par(self.v, tasks, &table)
        } else {
            check_symbol_uses_seq(self.v, tasks, &table)
        }
    }

    // ------------------------------------------------------------------ dominance

    /// MLIR's `verifyDominanceOfContainedRegions` over this body: every operand of an op in a
    /// reachable block dominates it.
    fn dominance(&mut self) -> Result<(), Diagnostic> {
        let body = self.body;
        let layout = self.layout.take().unwrap_or_default();
        let mut dom = dominance::Dominance::new(self.ctx, body, layout);
        let mut stack: Vec<Holder> = vec![Holder::Owner];
        while let Some(h) = stack.pop() {
            let regions: &[Region] = match h {
                Holder::Op(op) => body.regions(op),
                Holder::Owner => body.root_regions(),
            };
            for &r in regions {
                for b in body.region_blocks(r) {
                    let reachable = dom.is_reachable(b);
                    for op in body.block_ops(b) {
                        if reachable {
                            for (i, v) in body.operands(op).enumerate() {
                                if !dom.value_dominates(v, op) {
                                    return Err(self.dominance_error(&dom, op, i));
                                }
                            }
                        }
                        if !body.is_isolated(op) && !body.regions(op).is_empty() {
                            stack.push(Holder::Op(op));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// MLIR's `diagnoseInvalidOperandDominance`.
    fn dominance_error(&self, dom: &dominance::Dominance<'_>, op: Op, i: usize) -> Diagnostic {
        let body = self.body;
        let d = self.op_error(op, format!("operand #{i} does not dominate this use"));
        let v = body.operand(op, i);
        let use_region = body.op_block(op).and_then(|b| body.block_region(b));
        let relation = |def_region: Option<Region>| -> &'static str {
            match (use_region, def_region) {
                (Some(r1), Some(r2)) if r1 == r2 => "same",
                (Some(r1), Some(r2)) if self.is_proper_ancestor(r2, r1) => "parent",
                (Some(r1), Some(r2)) if self.is_proper_ancestor(r1, r2) => "child",
                _ => "neither",
            }
        };
        match body.value_def(v) {
            crate::body::ValueDef::Result { op: def, .. } => {
                let def_block = body.op_block(def);
                let what = if def_block == body.op_block(op) {
                    "op in the same block"
                } else {
                    match relation(def_block.and_then(|b| body.block_region(b))) {
                        "same" => "op in the same region",
                        "parent" => "op in a parent region",
                        "child" => "op in a child region",
                        _ => "op is neither in a parent nor in a child region",
                    }
                };
                d.with_note(body.op_loc(def), format!("operand defined here ({what})"))
            }
            crate::body::ValueDef::Arg { block, .. } => {
                let region = body.block_region(block);
                let loc = region.map_or(body.loc(), |r| self.holder_loc(self.holder_of(r)));
                let index = dom.block_index(block);
                let where_ = match relation(region) {
                    "same" => "in the same region",
                    "parent" => "in a parent region",
                    "child" => "in a child region",
                    _ => "neither in a parent nor in a child region",
                };
                d.with_note(
                    loc,
                    format!("operand defined as a block argument (block #{index} {where_})"),
                )
            }
        }
    }

    /// True if region `a` strictly contains region `b`.
    fn is_proper_ancestor(&self, a: Region, b: Region) -> bool {
        let mut r = b;
        loop {
            let Some(op) = self.body.region_parent_op(r) else {
                return false;
            };
            let Some(parent) = self.body.op_block(op).and_then(|bb| self.body.block_region(bb)) else {
                return false;
            };
            if parent == a {
                return true;
            }
            r = parent;
        }
    }
}

/// An error reported by an op (MLIR's `Operation::emitError`): adds the "see current
/// operation" note first.
fn at_op(v: &Verifier<'_>, body: &Body, op: Op, mut d: Diagnostic) -> Diagnostic {
    if v.opts.print_op_on_diagnostic {
        let text = (v.opts.print_op)(v.ctx, body, op);
        d.notes.insert(0, current_op_note(body.op_loc(op), &text));
    }
    d
}

/// A hook's error about `op` gets the "see current operation" note if it is located there.
fn hook_error(v: &Verifier<'_>, body: &Body, op: Op, d: Diagnostic) -> Diagnostic {
    if d.loc == body.op_loc(op) {
        at_op(v, body, op, d)
    } else {
        d
    }
}

fn one(d: Diagnostic) -> Fail {
    vec![d]
}

fn current_op_note(loc: crate::location::Location, text: &str) -> Diagnostic {
    // As MLIR's `Diagnostic::appendOp`: an op printed on several lines starts on a new line.
    let sep = if text.contains('\n') { "\n" } else { "" };
    Diagnostic::new(Severity::Note, loc, format!("see current operation: {sep}{text}"))
}

fn push_blocks(body: &Body, r: Region, stack: &mut Vec<Work>) {
    let blocks: SmallVec<[Block; 8]> = body.region_blocks(r).collect();
    for &b in blocks.iter().rev() {
        stack.push(Work::EnterBlock(b));
    }
}

// ---------------------------------------------------------------------------------------------
// Symbol uses

/// A region to walk for symbol uses: its body, the region, and whether an unregistered
/// single-region op (a potential unknown symbol table) lies between it and the table.
type Task<'a> = (&'a Body, Region, bool);

/// MLIR's `walkSymbolTable` calling `verifySymbolUses`: the ops of a region in order, then
/// their regions, last pushed first; nested symbol tables are not entered.
fn walk_symbol_uses<'a>(
    v: &Verifier<'_>,
    stack: &mut Vec<Task<'a>>,
    table: &dyn SymbolLookup,
    mut on_children: impl FnMut(&mut Vec<Task<'a>>, usize),
) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    while let Some((body, r, unknown)) = stack.pop() {
        let before = stack.len();
        for b in body.region_blocks(r) {
            for op in body.block_ops(b) {
                let def = ctx.op_def(body.op_name(op));
                if let Some(hook) = def.and_then(|d| d.verify_symbol_uses) {
                    let lookup: &dyn SymbolLookup = if unknown { &NoSymbols } else { table };
                    let view = OpView::new(ctx, body, op);
                    if let Err(d) = hook(&view, lookup) {
                        return Err(hook_error(v, body, op, d));
                    }
                }
                if def.is_some_and(|d| d.has(Traits::SymbolTable)) {
                    continue;
                }
                let (rb, regions): (&'a Body, &'a [Region]) = match body.nested(op) {
                    Some(child) => (child, child.root_regions()),
                    None => (body, body.regions(op)),
                };
                let maybe_table = def.is_none()
                    && regions.len() == 1
                    && !ctx.is_registered_dialect(&ctx.op_info(body.op_name(op)).dialect);
                for &rr in regions {
                    stack.push((rb, rr, unknown || maybe_table));
                }
            }
        }
        on_children(stack, before);
    }
    Ok(())
}

fn check_symbol_uses_seq(
    v: &Verifier<'_>,
    mut tasks: Vec<Task<'_>>,
    table: &dyn SymbolLookup,
) -> Result<(), Diagnostic> {
    walk_symbol_uses(v, &mut tasks, table, |_, _| {})
}

/// As [`check_symbol_uses_seq`], with the regions found below the table's own region walked
/// in parallel; the error reported is the one the sequential walk would find first.
fn check_symbol_uses_par(
    v: &Verifier<'_>,
    tasks: Vec<Task<'_>>,
    table: &(dyn SymbolLookup + Sync),
) -> Result<(), Diagnostic> {
    let mut top = tasks;
    // Walk only the table's own regions here, collecting what they push.
    while let Some(t) = top.pop() {
        let mut one_task = vec![t];
        let mut collected: Vec<Task<'_>> = Vec::new();
        walk_symbol_uses(v, &mut one_task, table, |stack, before| {
            collected.extend(stack.drain(before..));
        })?;
        // The sequential walk processes `collected` last-first (each with everything below
        // it) before the rest of `top`: walk them in parallel, keep the first error in that order.
        let results: Vec<Result<(), Diagnostic>> = collected
            .par_iter()
            .rev()
            .map(|&task| {
                let mut s = vec![task];
                walk_symbol_uses(v, &mut s, table, |_, _| {})
            })
            .collect();
        if let Some(e) = results.into_iter().find_map(Result::err) {
            return Err(e);
        }
    }
    Ok(())
}
