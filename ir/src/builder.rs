//! [`Builder`]: creates ops from Rust at an insertion point in a [`Body`] (MLIR's `OpBuilder`).
//! [`Builder::create`] looks up the op's [`OpDef`], infers the result types with its `infer`
//! hook, builds the attribute dictionary from `(name, Attr)` pairs, sets the builder's location,
//! checks the new op against its declaration and inserts it; nothing panics on bad input, every
//! mistake is a located [`Diagnostic`] worded as the verifier words it.
//!
//! ```ignore
//! let mut b = Builder::at_end(&ctx, &mut body, block);
//! b.set_loc(ctx.file_loc("model.py", 12, 1));
//! let s = b.create1("tensor.add", &[x, y], &[])?;                       // result type inferred
//! let r = b.create_with_types("tensor.reshape", &[s], &[ty], &[])?;     // ops without `infer`
//! ```

use smallvec::SmallVec;

use crate::body::{Block, Body, Op, OperationState, Value};
use crate::context::{Attr, Context};
use crate::diag::Diagnostic;
use crate::location::Location;
use crate::opdef::{verify_op_def, Arity, OpDef, OpView, ValueSpec};
use crate::types::Type;

/// Where the builder inserts: before `before` in `block`, or at the end of `block` when
/// `before` is `None` (MLIR's `(Block*, Block::iterator)` insertion point). Ops created one
/// after another appear in creation order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InsertPoint {
    pub block: Block,
    pub before: Option<Op>,
}

/// Creates ops in one [`Body`]. See the module docs.
pub struct Builder<'a> {
    pub ctx: &'a Context,
    pub body: &'a mut Body,
    ip: Option<InsertPoint>,
    loc: Location,
}

impl<'a> Builder<'a> {
    /// A builder without an insertion point: ops are created detached until one is set.
    pub fn new(ctx: &'a Context, body: &'a mut Body) -> Self {
        Builder {
            ctx,
            body,
            ip: None,
            loc: Location::UNKNOWN,
        }
    }
    /// A builder inserting at the end of `block`.
    pub fn at_end(ctx: &'a Context, body: &'a mut Body, block: Block) -> Self {
        let mut b = Builder::new(ctx, body);
        b.set_insertion_point_to_end(block);
        b
    }
    /// A builder inserting right before `op` (which must be in a block).
    pub fn before(ctx: &'a Context, body: &'a mut Body, op: Op) -> Self {
        let mut b = Builder::new(ctx, body);
        b.set_insertion_point_before(op);
        b
    }

    // ------------------------------------------------------------------ insertion point
    pub fn insertion_point(&self) -> Option<InsertPoint> {
        self.ip
    }
    pub fn set_insertion_point(&mut self, ip: Option<InsertPoint>) {
        self.ip = ip;
    }
    pub fn set_insertion_point_to_end(&mut self, block: Block) {
        self.ip = Some(InsertPoint { block, before: None });
    }
    pub fn set_insertion_point_to_start(&mut self, block: Block) {
        self.ip = Some(InsertPoint {
            block,
            before: self.body.first_op(block),
        });
    }
    /// Inserts before `op`; a detached `op` clears the insertion point.
    pub fn set_insertion_point_before(&mut self, op: Op) {
        self.ip = self.body.op_block(op).map(|block| InsertPoint {
            block,
            before: Some(op),
        });
    }
    /// Inserts after `op` (later ops follow the earlier ones); a detached `op` clears the
    /// insertion point.
    pub fn set_insertion_point_after(&mut self, op: Op) {
        self.ip = self.body.op_block(op).map(|block| InsertPoint {
            block,
            before: self.body.next_op(op),
        });
    }

    // ------------------------------------------------------------------ location
    /// The location given to created ops.
    pub fn loc(&self) -> Location {
        self.loc
    }
    pub fn set_loc(&mut self, loc: Location) {
        self.loc = loc;
    }

    // ------------------------------------------------------------------ creation
    /// Inserts a detached op at the insertion point (if there is one). If the op to insert
    /// before has been erased or moved to another block, inserts at the end of the block.
    pub fn insert(&mut self, op: Op) -> Op {
        match self.ip {
            Some(InsertPoint {
                block,
                before: Some(anchor),
            }) if self.body.contains_op(anchor) && self.body.op_block(anchor) == Some(block) => {
                self.body.insert_op_before(anchor, op)
            }
            Some(InsertPoint { block, .. }) => self.body.append_op(block, op),
            None => {}
        }
        op
    }

    /// Creates and inserts an op from a full [`OperationState`] without any checks (for ops
    /// with regions or successors, and unregistered ops).
    pub fn create_state(&mut self, state: OperationState) -> Op {
        let op = self.body.create_op(state);
        self.insert(op)
    }

    /// Creates registered op `name` with `operands` and attributes `attrs`, its result types
    /// inferred by the op's `infer` hook. Errors: the op is not registered, does not infer its
    /// result types (use [`Builder::create_with_types`]), has the wrong number of operands, an
    /// operand is not a value of this body, inference fails, or the new op does not verify
    /// against its declaration (attribute kinds, operand types, the op's verifier); a failed op
    /// is not left in the body.
    pub fn create(&mut self, name: &str, operands: &[Value], attrs: &[(&str, Attr)]) -> Result<Op, Diagnostic> {
        let def = self.registered(name)?;
        let Some(infer) = def.infer else {
            return Err(self.error(
                name,
                "does not infer its result types; create it with explicit result types (Builder::create_with_types)",
            ));
        };
        self.check_operands(name, def, operands)?;
        let dict = self.dict(attrs);
        let operand_types: SmallVec<[Type; 4]> = operands.iter().map(|&v| self.body.value_type(v)).collect();
        let results = infer(self.ctx, &operand_types, dict).map_err(|m| self.error(name, m))?;
        self.finish(name, Some(def), operands, &results, dict)
    }

    /// Like [`Builder::create`], but returns the single result of the op.
    pub fn create1(&mut self, name: &str, operands: &[Value], attrs: &[(&str, Attr)]) -> Result<Value, Diagnostic> {
        let op = self.create(name, operands, attrs)?;
        self.single_result(name, op)
    }

    /// Creates op `name` with explicit result types. A registered op is checked against its
    /// declaration as in [`Builder::create`] (including its `infer`, if any: the given types must
    /// be compatible with the inferred ones); an unregistered op is created as given.
    pub fn create_with_types(
        &mut self,
        name: &str,
        operands: &[Value],
        result_types: &[Type],
        attrs: &[(&str, Attr)],
    ) -> Result<Op, Diagnostic> {
        let def = self.ctx.op_def(self.ctx.op_name(name));
        if let Some(def) = def {
            self.check_operands(name, def, operands)?;
        } else {
            self.check_live(name, operands)?;
        }
        let dict = self.dict(attrs);
        self.finish(name, def, operands, result_types, dict)
    }

    /// Like [`Builder::create_with_types`], but returns the single result of the op.
    pub fn create1_with_types(
        &mut self,
        name: &str,
        operands: &[Value],
        result_type: Type,
        attrs: &[(&str, Attr)],
    ) -> Result<Value, Diagnostic> {
        let op = self.create_with_types(name, operands, &[result_type], attrs)?;
        self.single_result(name, op)
    }

    // ------------------------------------------------------------------ helpers
    fn error(&self, name: &str, message: impl AsRef<str>) -> Diagnostic {
        Diagnostic::error(self.loc, format!("'{name}' op {}", message.as_ref()))
    }

    fn registered(&self, name: &str) -> Result<&'static OpDef, Diagnostic> {
        self.ctx
            .op_def(self.ctx.op_name(name))
            .ok_or_else(|| Diagnostic::error(self.loc, format!("cannot build unregistered operation '{name}'")))
    }

    fn single_result(&self, name: &str, op: Op) -> Result<Value, Diagnostic> {
        match self.body.num_results(op) {
            1 => Ok(self.body.result(op, 0)),
            n => Err(self.error(name, format!("has {n} results, but one was expected"))),
        }
    }

    fn dict(&self, attrs: &[(&str, Attr)]) -> Attr {
        let entries: SmallVec<[_; 4]> = attrs.iter().map(|&(k, v)| (self.ctx.ident(k), v)).collect();
        self.ctx.dict(&entries)
    }

    fn check_live(&self, name: &str, operands: &[Value]) -> Result<(), Diagnostic> {
        match operands.iter().position(|&v| !self.body.contains_value(v)) {
            Some(i) => Err(self.error(name, format!("operand #{i} is not a value of the body being built"))),
            None => Ok(()),
        }
    }

    /// Operand count against the declaration (before `infer` indexes the operand types).
    fn check_operands(&self, name: &str, def: &OpDef, operands: &[Value]) -> Result<(), Diagnostic> {
        self.check_live(name, operands)?;
        match group_count_error(def.operands, operands.len(), "operand") {
            Some(m) => Err(self.error(name, m)),
            None => Ok(()),
        }
    }

    /// Creates the op, inserts it, verifies it against its declaration (if registered) and
    /// removes it again if that fails.
    fn finish(
        &mut self,
        name: &str,
        def: Option<&'static OpDef>,
        operands: &[Value],
        results: &[Type],
        dict: Attr,
    ) -> Result<Op, Diagnostic> {
        let mut st = OperationState::new(self.ctx, name, self.loc)
            .operands(operands)
            .results(results);
        st.attrs = dict;
        let op = self.create_state(st);
        if let Some(def) = def {
            let view = OpView::new(self.ctx, self.body, op);
            let checked = verify_op_def(&view, def).and_then(|_| def.verify.map_or(Ok(()), |f| f(&view)));
            if let Err(d) = checked {
                self.body.erase_op(op);
                return Err(d);
            }
        }
        Ok(op)
    }
}

/// The error message when `total` values do not fit groups `specs` (`None` when they fit):
/// `requires 2 operands, but found 1`, as the verifier words it.
pub fn group_count_error(specs: &[ValueSpec], total: usize, what: &str) -> Option<String> {
    let singles = specs.iter().filter(|s| s.arity == Arity::Single).count();
    let optional = specs.iter().filter(|s| s.arity == Arity::Optional).count();
    let variadic = specs.iter().any(|s| s.arity == Arity::Variadic);
    let ok = if variadic {
        total >= singles
    } else {
        total >= singles && total <= singles + optional
    };
    if ok {
        return None;
    }
    let expect = if variadic {
        format!("at least {singles}")
    } else if optional > 0 {
        format!("{singles} or {}", singles + optional)
    } else {
        format!("{singles}")
    };
    let plural = if singles == 1 && !variadic && optional == 0 {
        ""
    } else {
        "s"
    };
    Some(format!("requires {expect} {what}{plural}, but found {total}"))
}
