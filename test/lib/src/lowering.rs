//! The LLVM lowering of the `test` dialect's integer ops (`test.constant` of an integer,
//! `test.addi`, `test.muli`, `test.negi`, `test.cmpi`), for tests of functions, calls and
//! control flow. Written against `xcs_lowering`'s public API only and attached to a context
//! from here, as any crate that owns ops lowers them (an external model: `xcs_lowering` does
//! not know the test dialect).

use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Context, Op};
use xcs_lowering::codegen::llvm_ir::Val;
use xcs_lowering::codegen::types::comp_ty;
use xcs_lowering::codegen::{FunctionLowering, LowerOp, OpSite, Slot, R};

use crate::dialect::{AddIOp, CmpIOp, ConstantOp, MulIOp, NegIOp, TEST_DIALECT};

/// What a test op computes on its integer operands.
enum TestOp {
    Constant,
    /// A binary instruction (`add`, `mul`).
    Binary(&'static str),
    Negate,
    Compare,
}

static CONSTANT: TestOp = TestOp::Constant;
static ADDI: TestOp = TestOp::Binary("add");
static MULI: TestOp = TestOp::Binary("mul");
static NEGI: TestOp = TestOp::Negate;
static CMPI: TestOp = TestOp::Compare;

/// Attaches the lowering of the test dialect's integer ops to `ctx` (registering the dialect
/// first if it is not yet); [`crate::lowering_context`] does it.
pub fn attach_test_dialect_lowering(ctx: &mut Context) {
    ctx.register_dialect(&TEST_DIALECT);
    ctx.attach_interface::<dyn LowerOp>(ConstantOp::DEF, &CONSTANT);
    ctx.attach_interface::<dyn LowerOp>(AddIOp::DEF, &ADDI);
    ctx.attach_interface::<dyn LowerOp>(MulIOp::DEF, &MULI);
    ctx.attach_interface::<dyn LowerOp>(NegIOp::DEF, &NEGI);
    ctx.attach_interface::<dyn LowerOp>(CmpIOp::DEF, &CMPI);
}

impl LowerOp for TestOp {
    /// Scalar code in the function itself (no kernel; the ops cannot fail, so no error site).
    fn lower(&self, fl: &mut FunctionLowering, body: &Body, op: Op) -> R<Vec<Slot>> {
        let ctx = fl.ctx();
        let o = OpSite::with_site(ctx, body, op, -1);
        let name = o.name;
        let e = body
            .result_types(op)
            .first()
            .and_then(|&t| ElemType::from_type(ctx, t))
            .filter(|e| !e.is_float() && *e != ElemType::Str);
        let e = e.ok_or_else(|| {
            o.located(format!(
                "'{name}' op: only integer results are supported by the LLVM backend"
            ))
        })?;
        let ty = comp_ty(e);
        let scalar = |fl: &FunctionLowering, i: usize| -> R<Val> {
            match fl.get(body.operand(op, i))? {
                Slot::Scalar(v, _) => Ok(v),
                Slot::Tensor(_) => Err(o.err("expects integer operands")),
            }
        };
        let v = match self {
            TestOp::Constant => {
                let a = body.attr(ctx, op, "value").and_then(|a| ctx.as_int(a));
                let a = a.ok_or_else(|| {
                    o.located(format!(
                        "'{name}' op: only integer values are supported by the LLVM backend"
                    ))
                })?;
                Val::int(ty, a as i64)
            }
            TestOp::Binary(inst) => {
                let (a, b) = (scalar(fl, 0)?, scalar(fl, 1)?);
                fl.f.emit(ty, format!("{inst} {ty} {a}, {b}"))
            }
            TestOp::Negate => {
                let a = scalar(fl, 0)?;
                fl.f.emit(ty, format!("sub {ty} 0, {a}"))
            }
            TestOp::Compare => {
                let (a, b) = (scalar(fl, 0)?, scalar(fl, 1)?);
                let pred = body
                    .attr(ctx, op, "predicate")
                    .and_then(|a| ctx.as_str(a))
                    .unwrap_or("eq");
                if !matches!(pred, "eq" | "ne" | "slt" | "sle" | "sgt" | "sge") {
                    return Err(o.located(format!("'{name}' op: unknown predicate \"{pred}\"")));
                }
                fl.f.emit("i1", format!("icmp {pred} {}, {b}", a.t()))
            }
        };
        Ok(vec![Slot::Scalar(v, e)])
    }
}
