//! The `test` dialect: small ops for testing the infrastructure (parser, verifier, passes),
//! like MLIR's own test dialect (`mlir/test/lib/Dialect/Test`). Not meant for user programs:
//! only the test tools and tests register it ([`crate::register_dialect`]). The integer ops
//! (`test.constant`, `test.addi`, `test.muli`, `test.negi`, `test.cmpi`) have interpreter
//! semantics (wrapping arithmetic at the result's width), so programs of the dialect run before
//! and after a pass.

use smallvec::{smallvec, SmallVec};
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{DialectDef, FoldResult, OpView, Syntax};
use xcs_ir::rewrite::{FnPattern, RewritePattern, Rewriter};
use xcs_ir::{op, Attr, AttrKind, Body, Context, Location, Op, OperationState, Type};

use xcs_dialects::interp::semantics::{OpInfo, Semantics, ValueKernel};
use xcs_dialects::interp::value::{tensor_from_attr, RtValue, Scalar};

op! {
    /// A constant of any attribute; the dialect's constant materializer creates these.
    pub struct ConstantOp = "test.constant" in TEST_OPS {
        summary: "A constant",
        results: { result: ANY_TYPE },
        attributes: { value: ANY_ATTR },
        traits: [Pure, ConstantLike],
        fold: |v, _| Some(smallvec![FoldResult::Attr(v.attr("value")?)]),
        interfaces: [dyn Semantics => &ValueKernel(constant)],
    }
}

op! {
    /// Integer addition. Folds constants, and `x + 0` to `x`.
    pub struct AddIOp = "test.addi" in TEST_OPS {
        summary: "Integer addition",
        operands: { lhs: SIGNLESS_INTEGER, rhs: SIGNLESS_INTEGER },
        results: { result: SIGNLESS_INTEGER },
        traits: [Pure, Commutative, SameOperandsAndResultType],
        fold: fold_addi,
        interfaces: [dyn Semantics => &ValueKernel(addi)],
    }
}

op! {
    /// Integer multiplication. Folds constants, `x * 1` to `x` and `x * 0` to the `0` operand; the pattern
    /// `x * 2 -> x + x` shows canonicalization patterns.
    pub struct MulIOp = "test.muli" in TEST_OPS {
        summary: "Integer multiplication",
        operands: { lhs: SIGNLESS_INTEGER, rhs: SIGNLESS_INTEGER },
        results: { result: SIGNLESS_INTEGER },
        traits: [Pure, Commutative, SameOperandsAndResultType],
        fold: fold_muli,
        patterns: &[&MUL_BY_TWO as &dyn RewritePattern],
        interfaces: [dyn Semantics => &ValueKernel(muli)],
    }
}

op! {
    /// Integer negation, an involution: `negi(negi(x))` folds to `x`.
    pub struct NegIOp = "test.negi" in TEST_OPS {
        summary: "Integer negation",
        operands: { operand: SIGNLESS_INTEGER },
        results: { result: SIGNLESS_INTEGER },
        traits: [Pure, Involution, SameOperandsAndResultType],
        fold: fold_negi,
        interfaces: [dyn Semantics => &ValueKernel(negi)],
    }
}

op! {
    /// Signed integer comparison; `predicate` is one of `eq`, `ne`, `slt`, `sle`, `sgt`, `sge`.
    /// Gives programs of the test dialect a branch condition (`cf.cond_br`), so control flow and
    /// recursion can be run by the interpreter before and after a pass.
    pub struct CmpIOp = "test.cmpi" in TEST_OPS {
        summary: "Integer comparison",
        operands: { lhs: SIGNLESS_INTEGER, rhs: SIGNLESS_INTEGER },
        results: { result: I1 },
        attributes: { predicate: STR_ATTR },
        traits: [Pure, SameTypeOperands],
        interfaces: [dyn Semantics => &ValueKernel(cmpi)],
    }
}

op! {
    /// An op without side effects and with any operands and results.
    pub struct PureOp = "test.pure" in TEST_OPS {
        summary: "A side-effect-free op",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] outputs: ANY_TYPE },
        traits: [Pure],
    }
}

op! {
    /// An op with unknown side effects (never removed, never merged).
    pub struct EffectOp = "test.effect" in TEST_OPS {
        summary: "An op with side effects",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] outputs: ANY_TYPE },
    }
}

op! {
    /// An op with one SSACFG region whose blocks end in `test.yield`; it has the side
    /// effects of what its region holds.
    pub struct RegionOp = "test.region" in TEST_OPS {
        summary: "An op with a region",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] outputs: ANY_TYPE },
        regions: { body: u32::MAX },
        traits: [RecursiveMemoryEffects],
    }
}

op! {
    /// Terminates the blocks of `test.region`, yielding its operands.
    pub struct YieldOp = "test.yield" in TEST_OPS {
        summary: "Terminator of test regions",
        operands: { #[variadic] values: ANY_TYPE },
        traits: [Pure, Terminator, ReturnLike],
    }
}

op! {
    /// An op whose single region is isolated from above (it gets its own body).
    pub struct IsolatedOp = "test.isolated" in TEST_OPS {
        summary: "An isolated-from-above op",
        regions: { body: u32::MAX },
        traits: [IsolatedFromAbove, NoTerminator],
    }
}

op! {
    /// An op whose single region is a graph region: uses may come before definitions.
    pub struct GraphOp = "test.graph" in TEST_OPS {
        summary: "A graph region op",
        regions: { body: 1 },
        traits: [GraphRegion, NoTerminator, SingleBlock],
    }
}

op! {
    /// Defines a symbol named by `sym_name`.
    pub struct SymbolOp = "test.symbol" in TEST_OPS {
        summary: "A symbol",
        attributes: { sym_name: SYMBOL_NAME_ATTR, #[optional] sym_visibility: STR_ATTR },
        traits: [Symbol],
    }
}

op! {
    /// A symbol table nested in a module.
    pub struct SymbolTableOp = "test.symbol_table" in TEST_OPS {
        summary: "A symbol table",
        attributes: { #[optional] sym_name: SYMBOL_NAME_ATTR },
        regions: { body: 1 },
        traits: [SymbolTable, NoTerminator, SingleBlock, GraphRegion],
    }
}

op! {
    /// Uses the symbol named by `symbol` (which must exist).
    pub struct SymbolUserOp = "test.symbol_user" in TEST_OPS {
        summary: "An op referring to a symbol",
        attributes: { symbol: FLAT_SYMBOL_REF_ATTR },
        verify_symbol_uses: |v, symbols| {
            let name = v.attr("symbol").and_then(|a| v.ctx.as_symbol(a)).unwrap_or("");
            match symbols.lookup(name) {
                Some(_) => Ok(()),
                None => Err(v.error(format!("'{name}' does not reference a valid symbol"))),
            }
        },
    }
}

op! {
    /// Requires its `value` attribute to be a positive integer (a custom verifier).
    pub struct PositiveOp = "test.positive" in TEST_OPS {
        summary: "An op with a custom verifier",
        attributes: { value: INT_ATTR },
        verify: |v| match v.attr("value").and_then(|a| v.ctx.as_int(a)) {
            Some(x) if x > 0 => Ok(()),
            Some(x) => Err(v.error(format!("attribute 'value' must be positive, but got {x}"))),
            None => Ok(()),
        },
    }
}

op! {
    /// Only parses and prints in the generic form.
    pub struct GenericOnlyOp = "test.generic_only" in TEST_OPS {
        summary: "An op without a custom form",
        operands: { #[variadic] inputs: ANY_TYPE },
        results: { #[variadic] outputs: ANY_TYPE },
        syntax: Syntax::Generic,
    }
}

xcs_ir::op_list!(pub TEST_OPS);

pub static TEST_DIALECT: DialectDef = DialectDef {
    name: "test",
    summary: "Ops for testing the XCS infrastructure",
    description: "Like MLIR's test dialect: constants, integer arithmetic with folders and a \
pattern, pure and effectful ops, region ops (SSACFG, graph, isolated), symbols, and an op with a \
custom verifier.",
    ops: xcs_ir::opdef::OpList::Collected(&TEST_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: Some(materialize),
};

fn materialize(ctx: &Context, body: &mut Body, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    let st = OperationState::of(ctx, ConstantOp::DEF, loc)
        .results(&[ty])
        .attr(ctx, "value", value);
    Some(body.create_op(st))
}

// ---------------------------------------------------------------------------- semantics

/// `test.constant`: an integer, string or dense constant.
fn constant(info: &OpInfo<'_>, _: &[&RtValue]) -> Result<RtValue, String> {
    let ctx = info.ctx;
    let value = info.op.attr("value").ok_or("requires attribute 'value'")?;
    Ok(match ctx.attr_kind(value) {
        AttrKind::Integer { value, ty } => RtValue::int(*value, ctx.int_width(*ty).unwrap_or(64)),
        AttrKind::String { .. } => RtValue::Str(ctx.as_str(value).ok_or("string is not UTF-8")?.to_string()),
        AttrKind::DenseElements { .. } => RtValue::Tensor(tensor_from_attr(ctx, value)?),
        _ => return Err("only integer, string and dense constants are supported".into()),
    })
}

/// The operands as integer scalars.
fn int_operands(args: &[&RtValue]) -> Result<Vec<Scalar>, String> {
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            a.as_scalar()
                .ok_or_else(|| format!("operand #{i} is a {}, not an integer", a.type_string()))
        })
        .collect()
}

/// The width of the integer result, which the arithmetic wraps at.
fn result_width(info: &OpInfo<'_>) -> Result<u32, String> {
    info.result_types
        .first()
        .and_then(|&t| info.ctx.int_width(t))
        .ok_or_else(|| "result is not an integer".into())
}

/// `test.addi`: wrapping addition.
fn addi(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    match (int_operands(args)?.as_slice(), result_width(info)?) {
        ([a, b], width) => Ok(RtValue::int(a.value.wrapping_add(b.value), width)),
        _ => Err("expects 2 operands".into()),
    }
}

/// `test.muli`: wrapping multiplication.
fn muli(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    match (int_operands(args)?.as_slice(), result_width(info)?) {
        ([a, b], width) => Ok(RtValue::int(a.value.wrapping_mul(b.value), width)),
        _ => Err("expects 2 operands".into()),
    }
}

/// `test.negi`: wrapping negation.
fn negi(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    match (int_operands(args)?.as_slice(), result_width(info)?) {
        ([a], width) => Ok(RtValue::int(a.value.wrapping_neg(), width)),
        _ => Err("expects 1 operands".into()),
    }
}

/// `test.cmpi`: the signed comparison its `predicate` names, as an `i1`.
fn cmpi(info: &OpInfo<'_>, args: &[&RtValue]) -> Result<RtValue, String> {
    let v = int_operands(args)?;
    let (a, b) = (
        v.first().ok_or("needs two operands")?.value,
        v.get(1).ok_or("needs two operands")?.value,
    );
    let pred = info
        .op
        .attr("predicate")
        .and_then(|a| info.ctx.as_str(a))
        .ok_or("requires 'predicate'")?;
    let r = match pred {
        "eq" => a == b,
        "ne" => a != b,
        "slt" => a < b,
        "sle" => a <= b,
        "sgt" => a > b,
        "sge" => a >= b,
        p => return Err(format!("unknown predicate \"{p}\"")),
    };
    Ok(RtValue::int(r as i128, 1))
}

// ---------------------------------------------------------------------------- folders

fn int_of(ctx: &Context, a: Option<Attr>) -> Option<(i128, Type)> {
    match ctx.attr_kind(a?) {
        AttrKind::Integer { value, ty } => Some((*value, *ty)),
        _ => None,
    }
}

fn fold_addi(v: &OpView, c: &[Option<Attr>]) -> Option<SmallVec<[FoldResult; 1]>> {
    let ctx = v.ctx;
    let ty = v.result_type(0);
    match (int_of(ctx, c[0]), int_of(ctx, c[1])) {
        (Some((a, _)), Some((b, _))) => Some(smallvec![FoldResult::Attr(ctx.int_attr(a.wrapping_add(b), ty))]),
        (_, Some((0, _))) => Some(smallvec![FoldResult::Value(v.operand(0))]),
        (Some((0, _)), _) => Some(smallvec![FoldResult::Value(v.operand(1))]),
        _ => None,
    }
}

fn fold_muli(v: &OpView, c: &[Option<Attr>]) -> Option<SmallVec<[FoldResult; 1]>> {
    let ctx = v.ctx;
    let ty = v.result_type(0);
    match (int_of(ctx, c[0]), int_of(ctx, c[1])) {
        (Some((a, _)), Some((b, _))) => Some(smallvec![FoldResult::Attr(ctx.int_attr(a.wrapping_mul(b), ty))]),
        (_, Some((1, _))) => Some(smallvec![FoldResult::Value(v.operand(0))]),
        (Some((1, _)), _) => Some(smallvec![FoldResult::Value(v.operand(1))]),
        // like arith.muli: the zero operand itself
        (_, Some((0, _))) => Some(smallvec![FoldResult::Value(v.operand(1))]),
        (Some((0, _)), _) => Some(smallvec![FoldResult::Value(v.operand(0))]),
        _ => None,
    }
}

fn fold_negi(v: &OpView, c: &[Option<Attr>]) -> Option<SmallVec<[FoldResult; 1]>> {
    let ctx = v.ctx;
    if let Some((a, _)) = int_of(ctx, c[0]) {
        return Some(smallvec![FoldResult::Attr(
            ctx.int_attr(a.wrapping_neg(), v.result_type(0))
        )]);
    }
    let inner = v.body.defining_op(v.operand(0))?;
    (v.body.op_name(inner) == v.body.op_name(v.op)).then(|| smallvec![FoldResult::Value(v.body.operand(inner, 0))])
}

/// `test.muli %x, 2` (2 from a constant) becomes `test.addi %x, %x`.
static MUL_BY_TWO: FnPattern = FnPattern {
    name: "test-mul-by-two",
    f: mul_by_two,
};

fn mul_by_two(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let ctx = rw.ctx;
    let body = &*rw.body;
    let rhs = body.operand(op, 1);
    let Some(def) = body.defining_op(rhs) else { return false };
    if !ConstantOp::matches(ctx, body.op_name(def)) {
        return false;
    }
    if body.attr(ctx, def, "value").and_then(|a| ctx.as_int(a)) != Some(2) {
        return false;
    }
    let x = body.operand(op, 0);
    let ty = body.value_type(body.result(op, 0));
    let st = OperationState::of(ctx, AddIOp::DEF, body.op_loc(op))
        .operands(&[x, x])
        .results(&[ty]);
    rw.replace_op_with_new(op, st);
    true
}
