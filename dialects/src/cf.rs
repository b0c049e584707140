//! The `cf` dialect (unstructured control flow, as MLIR's): `cf.br`, `cf.cond_br`, `cf.switch`
//! and `cf.assert`. Their custom syntax matches mlir-opt's: `cf.br ^bb1(%a : i32)`,
//! `cf.cond_br %c, ^bb1(%a : i32), ^bb2`, `cf.switch %f : i32, [default: ^bb1, 42: ^bb2]`,
//! `cf.assert %c, "message"`. When run (their `Semantics`), the branches answer
//! `Control::Branch`: the successor the interpreter goes on in and its block arguments.

use std::ops::Range;

use xcs_ir::attrs::{read_int, DenseData};
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, DialectDef, OpView, SuccessorCount, SuccessorOperands, Syntax};
use xcs_ir::{op, AttrKind, Block, Body, Context, Diagnostic, Op, TypeKind};

use crate::interp::semantics::{Control, OpRun, Semantics};
use crate::interp::InterpError;

op! {
    /// Branches to the successor block, passing the operands as its arguments.
    pub struct BranchOp = "cf.br" in CF_OPS {
        summary: "Branch operation",
        operands: { #[variadic] dest_operands: ANY_TYPE },
        successors: SuccessorCount::Exactly(1),
        successor_operands: SuccessorOperands::All,
        traits: [Pure, Terminator, BranchLike],
        patterns: crate::cf_patterns::BR_PATTERNS,
        interfaces: [dyn Semantics => &BranchSemantics],
        syntax: Syntax::Custom { parse: crate::cf_syntax::parse_br, print: crate::cf_syntax::print_br },
    }
}

op! {
    /// Branches to the first successor if `condition` is true, else to the second, passing
    /// each its operand segment (`operandSegmentSizes = array<i32: 1, n, m>`). The optional
    /// `branch_weights` (one weight per successor) are a property, as in MLIR 22.
    pub struct CondBranchOp = "cf.cond_br" in CF_OPS {
        summary: "Conditional branch operation",
        operands: { condition: I1, #[variadic] dest_operands: ANY_TYPE },
        attributes: { operandSegmentSizes: DENSE_I32_ARRAY_ATTR, #[optional] branch_weights: DENSE_I32_ARRAY_ATTR },
        successors: SuccessorCount::Exactly(2),
        successor_operands: SuccessorOperands::Segments { leading: 1 },
        traits: [Pure, Terminator, BranchLike],
        verify: verify_cond_br,
        patterns: crate::cf_patterns::COND_BR_PATTERNS,
        interfaces: [dyn Semantics => &CondBranchSemantics],
        syntax: Syntax::Custom { parse: crate::cf_syntax::parse_cond_br, print: crate::cf_syntax::print_cond_br },
    }
}

op! {
    /// Jumps to the successor of the first case whose value equals `flag` (a signless integer),
    /// else to the default successor, passing that successor its operands. Custom form:
    /// `cf.switch %flag : i32, [default: ^bb1(%a : i32), 42: ^bb2, 43: ^bb3(%b : i32)]`,
    /// printed one case a line. The case values are the property `case_values` (a
    /// `vector<Nxi32>` of the flag's type), the operands of each case a segment of
    /// `case_operand_segments` (MLIR's `VariadicOfVariadic`); `operandSegmentSizes` is
    /// `[1, default operands, all case operands]`. Case values may repeat: the first wins.
    pub struct SwitchOp = "cf.switch" in CF_OPS {
        summary: "Switch operation",
        operands: { flag: ANY_INTEGER, #[variadic] dest_operands: ANY_TYPE },
        attributes: {
            case_operand_segments: DENSE_I32_ARRAY_ATTR,
            #[optional] case_values: INT_ELEMENTS_ATTR,
            operandSegmentSizes: DENSE_I32_ARRAY_ATTR,
        },
        successors: SuccessorCount::Variadic,
        successor_operands: SuccessorOperands::FirstThenNested { leading: 1, nested: "case_operand_segments" },
        traits: [Pure, Terminator, BranchLike],
        verify: verify_switch,
        patterns: crate::cf_patterns::SWITCH_PATTERNS,
        interfaces: [dyn Semantics => &SwitchSemantics],
        syntax: Syntax::Custom { parse: crate::cf_syntax::parse_switch, print: crate::cf_syntax::print_switch },
    }
}

op! {
    /// Checks at run time that `arg` is true; if it is false, execution stops with a run-time
    /// error giving `msg`. Custom form: `cf.assert %c, "message"`. It has a side effect (in
    /// MLIR a write to the default resource), so no pass removes, merges or moves it; an
    /// assertion of a constant `true` is erased by canonicalization.
    pub struct AssertOp = "cf.assert" in CF_OPS {
        summary: "Assert operation with message attribute",
        operands: { arg: I1 },
        attributes: { msg: STR_ATTR },
        patterns: crate::cf_patterns::ASSERT_PATTERNS,
        interfaces: [dyn Semantics => &AssertSemantics],
        syntax: Syntax::Custom { parse: crate::cf_syntax::parse_assert, print: crate::cf_syntax::print_assert },
    }
}

xcs_ir::op_list!(pub CF_OPS);

/// An elements attribute of integers (`dense<[1, 2]> : vector<2xi32>`; ODS's `AnyIntElementsAttr`).
pub const INT_ELEMENTS_ATTR: AttrConstraint = AttrConstraint {
    desc: "integer elements attribute",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::DenseElements { ty, data } if c.is_integer(c.element_type(*ty)) && !matches!(data, DenseData::Strings(_))),
};

pub static CF_DIALECT: DialectDef = DialectDef {
    name: "cf",
    summary: "Unstructured control flow between blocks (MLIR's `cf` dialect subset)",
    description: "",
    ops: xcs_ir::opdef::OpList::Collected(&CF_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

fn verify_cond_br(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let seg = v.attr("operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    if seg.len() != 3 || seg[0] != 1 || seg.iter().any(|&s| s < 0) || seg.iter().sum::<i128>() != v.num_operands() as i128 {
        return Err(v.error(format!(
            "operand count ({}) does not match with the total size ({}) specified in attribute 'operandSegmentSizes'",
            v.num_operands(),
            seg.iter().sum::<i128>()
        )));
    }
    // MLIR's WeightedBranchOpInterface verifier (an empty list means no weights)
    let weights = v.attr("branch_weights").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    if !weights.is_empty() && weights.len() != 2 {
        return Err(v.error(format!(
            "expects number of branch weights to match number of successors: {} vs 2",
            weights.len()
        )));
    }
    Ok(())
}

/// The values of an integer elements attribute, in order, normalised to their element type
/// (`None` for any other attribute).
pub fn int_elements(ctx: &Context, a: xcs_ir::Attr) -> Option<Vec<i128>> {
    let AttrKind::DenseElements { ty, data } = ctx.attr_kind(a) else {
        return None;
    };
    let n = match ctx.type_kind(*ty) {
        TypeKind::Vector { shape, .. } | TypeKind::RankedTensor { shape, .. } => {
            shape.iter().try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?
        }
        _ => return None,
    };
    let elem = ctx.element_type(*ty);
    ctx.is_integer(elem).then_some(())?;
    let width = xcs_ir::attrs::dense_elem_bytes(ctx, elem);
    match data {
        DenseData::Splat(b) if b.len() >= width => Some(vec![read_int(ctx, elem, b, 0); n]),
        DenseData::Elements(b) if b.len() >= n.checked_mul(width)? => Some((0..n).map(|i| read_int(ctx, elem, b, i)).collect()),
        _ => None,
    }
}

/// One case of a `cf.switch`: its value, successor and the range of the op's operands passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchCase {
    pub value: i128,
    pub dest: Block,
    pub operands: Range<usize>,
}

/// Where a `cf.switch` may go, read from its attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchTargets {
    /// The default successor and the range of the op's operands passed to it.
    pub default: (Block, Range<usize>),
    pub cases: Vec<SwitchCase>,
}

impl SwitchTargets {
    /// The successor taken when the flag is `flag` (the first matching case, else the default).
    pub fn target(&self, flag: i128) -> (Block, Range<usize>) {
        match self.cases.iter().find(|c| c.value == flag) {
            Some(c) => (c.dest, c.operands.clone()),
            None => self.default.clone(),
        }
    }
}

impl SwitchOp {
    /// The default and the cases of this switch; `None` if its attributes are malformed (which
    /// the verifier reports).
    pub fn targets(self, ctx: &Context, body: &Body) -> Option<SwitchTargets> {
        let op: Op = self.0;
        let succ = body.successors(op);
        let (&default, case_dests) = succ.split_first()?;
        let values = match body.attr(ctx, op, "case_values") {
            Some(a) => int_elements(ctx, a)?,
            None => Vec::new(),
        };
        if values.len() != case_dests.len() {
            return None;
        }
        let forwarding = SwitchOp::DEF.successor_operands;
        let cases = values
            .into_iter()
            .zip(case_dests)
            .enumerate()
            .map(|(i, (value, &dest))| {
                let operands = forwarding.range(ctx, body, op, i + 1)?;
                Some(SwitchCase { value, dest, operands })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(SwitchTargets {
            default: (default, forwarding.range(ctx, body, op, 0)?),
            cases,
        })
    }
}

/// MLIR's checks of `cf.switch`: the operand segments (`AttrSizedOperandSegments`, the
/// `VariadicOfVariadic` case segments), then the case values against the flag and the cases.
fn verify_switch(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let ints = |name: &str| v.attr(name).and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    let seg = ints("operandSegmentSizes");
    if seg.len() != 3 {
        return Err(v.error(format!(
            "'operandSegmentSizes' attribute for specifying operand segments must have 3 elements, but got {}",
            seg.len()
        )));
    }
    if seg.iter().any(|&s| s < 0) {
        return Err(v.error("'operandSegmentSizes' attribute cannot have negative elements"));
    }
    if seg[0] != 1 || seg.iter().sum::<i128>() != v.num_operands() as i128 {
        return Err(v.error(format!(
            "operand count ({}) does not match with the total size ({}) specified in attribute 'operandSegmentSizes'",
            v.num_operands(),
            seg.iter().sum::<i128>()
        )));
    }
    let case_seg = ints("case_operand_segments");
    if case_seg.iter().any(|&s| s < 0) {
        return Err(v.error("'case_operand_segments' attribute cannot have negative elements"));
    }
    if case_seg.iter().sum::<i128>() != seg[2] {
        return Err(v.error(format!(
            "caseOperands count ({}) does not match with the total size ({}) specified in attribute 'case_operand_segments'",
            seg[2],
            case_seg.iter().sum::<i128>()
        )));
    }
    let n_succ = v.body.successors(v.op).len();
    if n_succ == 0 {
        return Err(v.error("requires at least 1 successors but found 0"));
    }
    let flag = v.operand_type(0);
    let values = v.attr("case_values");
    if let Some(a) = values {
        let AttrKind::DenseElements { ty, .. } = ctx.attr_kind(a) else {
            return Ok(()); // reported by the declaration checks
        };
        let elem = ctx.element_type(*ty);
        if elem != flag {
            return Err(v.error(format!(
                "'flag' type ('{}') should match case value type ('{}')",
                v.ty(flag),
                v.ty(elem)
            )));
        }
    }
    let n_values = values.and_then(|a| int_elements(ctx, a)).map_or(0, |x| x.len());
    if n_values != n_succ - 1 {
        return Err(v.error(format!(
            "number of case values ({n_values}) should match number of case destinations ({})",
            n_succ - 1
        )));
    }
    // MLIR does not check this (and misreads the cases when it is wrong)
    if case_seg.len() != n_succ - 1 {
        return Err(v.error(format!(
            "'case_operand_segments' has {} segments for {} case destinations",
            case_seg.len(),
            n_succ - 1
        )));
    }
    Ok(())
}

/// What `cf.br` does when run: goes to its successor with the operands as block arguments.
pub struct BranchSemantics;

impl Semantics for BranchSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let dest = *run.body.successors(run.op).first().ok_or_else(|| run.error("has no successor"))?;
        Ok(Control::Branch(dest, run.operand_values()))
    }
}

/// What `cf.cond_br` does when run: goes to the first successor with the first operand
/// segment if the condition is true, else to the second with the second segment.
pub struct CondBranchSemantics;

impl Semantics for CondBranchSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let ctx = run.ctx;
        let vals = run.operands();
        let seg = run.body.attr(ctx, run.op, "operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a));
        let seg = seg.unwrap_or_default();
        let total = seg.iter().sum::<i128>();
        if seg.len() != 3 || seg.iter().any(|&s| s < 0) || total as usize != vals.len() || seg[0] != 1 {
            return Err(run.error("has an invalid 'operandSegmentSizes'"));
        }
        let (n_true, n_false) = (seg[1] as usize, seg[2] as usize);
        let cond = match vals[0].as_scalar() {
            Some(s) if s.width == 1 => s.value != 0,
            _ => return Err(run.error(format!("condition is a {}, not an i1", vals[0].type_string()))),
        };
        let succ = run.body.successors(run.op);
        if succ.len() != 2 {
            return Err(run.error("needs two successors"));
        }
        let (dest, range) = if cond { (succ[0], 1..1 + n_true) } else { (succ[1], 1 + n_true..1 + n_true + n_false) };
        Ok(Control::Branch(dest, vals[range].iter().map(|v| (*v).clone()).collect()))
    }
}

/// What `cf.switch` does when run: goes to the successor of the first case equal to the flag
/// (else the default one) with that successor's operands.
pub struct SwitchSemantics;

impl Semantics for SwitchSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let targets = SwitchOp::cast(run.ctx, run.body, run.op)
            .and_then(|s| s.targets(run.ctx, run.body))
            .ok_or_else(|| run.error("has malformed cases"))?;
        let vals = run.operands();
        let flag = match vals.first().and_then(|v| v.as_scalar()) {
            Some(s) => s.value,
            None => return Err(run.error("flag is not an integer scalar")),
        };
        let (dest, range) = targets.target(flag);
        Ok(Control::Branch(dest, vals[range].iter().map(|v| (*v).clone()).collect()))
    }
}

/// What `cf.assert` does when run: nothing if its operand is true, else a run-time error with
/// its message (`'cf.assert' op assertion failed: <msg>`, located at the op).
pub struct AssertSemantics;

impl Semantics for AssertSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let holds = match run.operands().first().and_then(|v| v.as_scalar()) {
            Some(s) if s.width == 1 => s.value != 0,
            _ => return Err(run.error("operand is not an i1")),
        };
        if holds {
            return Ok(Control::Values(Vec::new()));
        }
        let msg = run.body.attr(run.ctx, run.op, "msg").and_then(|a| run.ctx.as_str(a)).unwrap_or("");
        Err(run.error(format!("assertion failed: {msg}")))
    }
}
