//! Dispatch through the `Semantics` interface: what the interpreter (and constant folding)
//! computes for an op is whatever `Semantics` the op has in the context, declared with the op
//! (also by an op no XCS dialect knows) or attached to the context, never a name match.

use xcs_ir::opdef::constraints::ANY_TYPE;
use xcs_ir::opdef::{DialectDef, OpList, OpView};

use super::*;
use crate::interp::semantics::{Control, Kernel, OpInfo, OpRun, Semantics, ValueKernel};

/// The sum of integer operands, at the result's width.
fn sum_of_ints(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    let width = info
        .result_types
        .first()
        .and_then(|&t| info.ctx.int_width(t))
        .ok_or("result is not an integer")?;
    let total = args
        .iter()
        .map(|a| a.as_scalar().map(|s| s.value).ok_or("not an integer"))
        .sum::<Result<i128, _>>()?;
    Ok(RtValue::int(total, width))
}

#[test]
fn an_attached_semantics_replaces_the_declared_one_in_its_context_only() {
    // `tensor.add` computing `lhs - rhs` (with the shapes of the test: equal, no broadcasting)
    static SUBTRACT: Kernel = Kernel(|_, ts| {
        let (a, b) = (
            ts[0].data.to_i64s().unwrap_or_default(),
            ts[1].data.to_i64s().unwrap_or_default(),
        );
        let d: Vec<i64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        Tensor::from_f64s(
            ts[0].elem(),
            &ts[0].shape,
            &d.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        )
    });
    let src = r#"
func.func @f(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %r = tensor.add %a, %b : tensor<2xi32>
  return %r : tensor<2xi32>
}
"#;
    let args = || vec![Tensor::i32(&[2], &[10, 20]).into(), Tensor::i32(&[2], &[1, 2]).into()];
    let mut ctx = crate::context();
    ctx.attach_interface::<dyn Semantics>(crate::tensor::AddOp::DEF, &SUBTRACT);
    let out = run_src(&ctx, src, "f", args()).unwrap();
    assert_eq!(out[0].as_tensor(), Some(&Tensor::i32(&[2], &[9, 18])));
    let plain = crate::context();
    let out = run_src(&plain, src, "f", args()).unwrap();
    assert_eq!(
        out[0].as_tensor(),
        Some(&Tensor::i32(&[2], &[11, 22])),
        "another context keeps the declared semantics"
    );
    // constant folding evaluates the op through the same interface
    let m = parse(&ctx, src);
    let f = m.ops()[0];
    let fbody = m.body.nested(f).unwrap();
    let entry = fbody.entry_block(fbody.root_regions()[0]).unwrap();
    let add = fbody.first_op(entry).unwrap();
    let t = ctx.tensor_type(&[2], ctx.i32_type());
    let folded = eval_kernel(
        &OpView::new(&ctx, fbody, add),
        &[t],
        vec![Tensor::i32(&[2], &[5, 5]), Tensor::i32(&[2], &[1, 2])],
    );
    assert_eq!(folded.unwrap(), vec![Tensor::i32(&[2], &[4, 3])]);
}

/// A terminator that is not `ReturnLike`: its semantics leaves the region with its operands
/// doubled (what the engine does comes from the `Control` the op answers).
struct ReturnDoubled;
impl Semantics for ReturnDoubled {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let doubled = run
            .operands()
            .iter()
            .map(|v| {
                v.as_scalar()
                    .map(|s| RtValue::int(2 * s.value, s.width))
                    .ok_or_else(|| run.error("not an integer"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Control::Return(doubled))
    }
}

xcs_ir::op! {
    /// Adds its integer operands.
    pub struct SumOp = "semtest.sum" {
        summary: "Sum of integers",
        operands: { #[variadic] xs: ANY_TYPE },
        results: { r: ANY_TYPE },
        interfaces: [dyn Semantics => &ValueKernel(sum_of_ints)],
    }
}
xcs_ir::op! {
    /// Returns its operands, doubled, from the region.
    pub struct ReturnDoubledOp = "semtest.return_doubled" {
        summary: "Doubling return",
        operands: { #[variadic] xs: ANY_TYPE },
        traits: [Terminator],
        interfaces: [dyn Semantics => &ReturnDoubled],
    }
}
static SEMTEST: DialectDef = DialectDef {
    name: "semtest",
    summary: "",
    description: "",
    ops: OpList::Fixed(&[SumOp::DEF, ReturnDoubledOp::DEF]),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

#[test]
fn ops_declared_outside_the_xcs_dialects_run_through_their_semantics() {
    let mut ctx = crate::context();
    ctx.register_dialect(&SEMTEST);
    let i = ctx.i64_type();
    let (mut b, args) = B::func(&ctx, &[i, i]);
    let s = b.op1("semtest.sum", &[args[0], args[1], args[1]], i, &[]);
    b.op("semtest.return_doubled", &[s], &[], &[]);
    let mut m = Module::new(&ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", &[i, i], &[i]);
    let out = run_function(&ctx, &m, "f", vec![RtValue::int(1, 64), RtValue::int(10, 64)]).unwrap();
    assert_eq!(out[0].as_scalar(), Some(Scalar::new(42, 64)));
}
