//! The LLVM backend's op interface, [`LowerOp`]: how one op is lowered into the function being
//! lowered. The op loop (`function::lower_block`) finds it from the op's name in O(1)
//! (`Context::interface`), never by comparing names. `ir` and `dialects` know nothing of LLVM,
//! so the lowering *attaches* it to the ops it compiles, per context (`crate::ops`'s
//! `attach_interfaces`), as MLIR's external models do (`LLVMTranslationDialectInterface`
//! registered through a `DialectRegistry` extension); a crate with ops of its own attaches their
//! lowering the same way (`xcs-test-support`, `test/lib/src/lowering.rs`, does it for the test
//! dialect). Also the op being lowered with its run-time error site ([`OpSite`]) and
//! [`LowerFn`], the usual implementation.

use xcs_dialects::interp::ElemType;
use xcs_ir::opdef::OpView;
use xcs_ir::{Attr, Body, Context, Op, TypeKind, DYNAMIC};

use super::buffers::RunTimeCheck;
use super::function::FunctionLowering;
use super::llvm_ir::Val;
use super::values::{Slot, TensorVal};
use super::{LowerError, R};

/// How an op is lowered to LLVM IR: emits its code into the function being lowered and returns
/// the values of its results (none for terminators, which end the block themselves).
pub trait LowerOp: Sync {
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>>;
    /// The operand whose buffer the lowering may write its result into when the operand dies
    /// at the op (see `inplace`; MLIR's `BufferizableOpInterface::bufferizesToMemoryWrite` with
    /// the result aliasing that operand). `None`: the op never updates an operand.
    fn in_place_operand(&self) -> Option<usize> {
        None
    }
}
xcs_ir::op_interface!(dyn LowerOp, "llvm-lowering");

/// A [`LowerOp`] given as a function of the op and its run-time error site: the site is made
/// first (and is the current op's, which allocation failures report).
pub struct LowerFn(pub fn(&mut FunctionLowering, &OpSite) -> R<Vec<Slot>>);

impl LowerOp for LowerFn {
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>> {
        let o = OpSite::new(fl, body, op);
        fl.cur_site = o.site;
        (self.0)(fl, &o)
    }
}

/// A [`LowerFn`] whose result may take the buffer of operand `operand` when it dies at the op
/// ([`LowerOp::in_place_operand`]; the function asks [`FunctionLowering::can_update_in_place`]).
pub struct UpdateFn {
    pub lower: fn(&mut FunctionLowering, &OpSite) -> R<Vec<Slot>>,
    pub operand: usize,
}

impl LowerOp for UpdateFn {
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>> {
        LowerFn(self.lower).lower(fl, body, op)
    }
    fn in_place_operand(&self) -> Option<usize> {
        Some(self.operand)
    }
}

/// The op being lowered and its run-time error site (see [`super::ModuleLowering::site`]).
pub struct OpSite<'b> {
    pub body: &'b Body,
    pub op: Op,
    /// The site number run-time errors of this op report (-1: none).
    pub site: i32,
    /// The op's name, for messages.
    pub name: &'b str,
}

impl<'b> OpSite<'b> {
    /// `op` of `body` with a new error site.
    pub fn new<'m: 'b>(fl: &mut FunctionLowering<'_, 'm>, body: &'b Body, op: Op) -> OpSite<'b> {
        let site = fl.module.site(body, op);
        OpSite {
            body,
            op,
            site,
            name: fl.ctx().op_name_str(body.op_name(op)),
        }
    }
    /// `op` of `body` reporting its run-time errors at `site` (another op's, or -1 for none).
    pub fn with_site(ctx: &'b Context, body: &'b Body, op: Op, site: i32) -> OpSite<'b> {
        OpSite {
            body,
            op,
            site,
            name: ctx.op_name_str(body.op_name(op)),
        }
    }
    /// The op's name without its dialect (`add` for `tensor.add`), for kernel names.
    pub fn mnemonic(&self) -> &'b str {
        self.name.split_once('.').map_or(self.name, |(_, m)| m)
    }
    /// The op as an [`OpView`] (to ask it for its interfaces and attributes).
    pub fn view<'c>(&'c self, ctx: &'c Context) -> OpView<'c> {
        OpView::new(ctx, self.body, self.op)
    }
    /// A compile-time error located at this op, with `message` as it is.
    pub fn located(&self, message: impl Into<String>) -> LowerError {
        LowerError::new(self.body.op_loc(self.op), message)
    }
    /// A compile-time error of this op (`'name' op m`).
    pub fn err(&self, m: &str) -> LowerError {
        LowerError::new(self.body.op_loc(self.op), format!("'{}' op {m}", self.name))
    }
    pub fn attr(&self, fl: &FunctionLowering, key: &str) -> R<Attr> {
        self.body
            .attr(fl.ctx(), self.op, key)
            .ok_or_else(|| self.err(&format!("requires attribute '{key}'")))
    }
    pub fn i64(&self, fl: &FunctionLowering, key: &str) -> R<i64> {
        let a = self.attr(fl, key)?;
        fl.ctx()
            .as_int(a)
            .map(|v| v as i64)
            .ok_or_else(|| self.err(&format!("attribute '{key}' must be an integer")))
    }
    pub fn i64s(&self, fl: &FunctionLowering, key: &str) -> R<Vec<i64>> {
        let a = self.attr(fl, key)?;
        fl.ctx()
            .as_i64_array(a)
            .ok_or_else(|| self.err(&format!("attribute '{key}' must be an array<i64>")))
    }
    pub fn str<'c>(&self, fl: &FunctionLowering<'_, 'c>, key: &str) -> R<&'c str> {
        let a = self.attr(fl, key)?;
        fl.ctx()
            .as_str(a)
            .ok_or_else(|| self.err(&format!("attribute '{key}' must be a string")))
    }
    pub fn bool(&self, fl: &FunctionLowering, key: &str) -> R<bool> {
        let a = self.attr(fl, key)?;
        fl.ctx()
            .as_bool(a)
            .ok_or_else(|| self.err(&format!("attribute '{key}' must be a bool")))
    }
    pub fn f64(&self, fl: &FunctionLowering, key: &str) -> R<f64> {
        let a = self.attr(fl, key)?;
        fl.ctx()
            .as_float(a)
            .ok_or_else(|| self.err(&format!("attribute '{key}' must be a float")))
    }
    /// Operand `i` as a tensor.
    pub fn tensor(&self, fl: &FunctionLowering, i: usize) -> R<TensorVal> {
        if i >= self.body.num_operands(self.op) {
            return Err(self.err(&format!("has no operand #{i}")));
        }
        fl.tensor(self.body.operand(self.op, i))
            .map_err(|_| self.err(&format!("operand #{i} must be a tensor")))
    }
    pub fn operands(&self, fl: &FunctionLowering) -> R<Vec<TensorVal>> {
        (0..self.body.num_operands(self.op))
            .map(|i| self.tensor(fl, i))
            .collect()
    }
    /// The static sizes (`DYNAMIC` for `?`) and element type of result `i`.
    pub fn result(&self, fl: &FunctionLowering, i: usize) -> R<(Vec<i64>, ElemType)> {
        let ctx = fl.ctx();
        let t = *self
            .body
            .result_types(self.op)
            .get(i)
            .ok_or_else(|| self.err(&format!("has no result #{i}")))?;
        match ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, .. } => {
                let e = ElemType::from_type(ctx, *elem)
                    .filter(|e| *e != ElemType::Str)
                    .ok_or_else(|| self.err("has an element type the LLVM backend does not support"))?;
                Ok((shape.to_vec(), e))
            }
            _ => Err(self.err(&format!("result #{i} must be a ranked tensor"))),
        }
    }
    /// The full run-time error message `'op' op text`.
    pub fn msg(&self, fl: &FunctionLowering, text: &str) -> String {
        fl.module.msg(self.site, text)
    }
}

/// Checks computed sizes `dims` against the result type's static sizes at run time (where they
/// are not constants) and returns them with the static sizes substituted.
pub fn check_result_dims(fl: &mut FunctionLowering, o: &OpSite, dims: Vec<Val>, ty: &[i64]) -> R<Vec<Val>> {
    if dims.len() != ty.len() {
        return Err(o.err("computes a result of a different rank than its type"));
    }
    let mut out = Vec::with_capacity(dims.len());
    for (d, &s) in dims.into_iter().zip(ty) {
        if s == DYNAMIC {
            out.push(d);
            continue;
        }
        let bad = fl.f.icmp("ne", &d, &Val::i64(s));
        let msg = o.msg(fl, "computes size %lld where the result type has %lld");
        fl.fail2_if(&bad, o.site, &msg, &d, &Val::i64(s));
        out.push(Val::i64(s));
    }
    Ok(out)
}
