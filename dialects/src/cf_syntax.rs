//! The custom syntax of the `cf` ops, as mlir-opt prints them.

use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{Block, OperationState, Value};

use crate::cf::{SwitchOp, SwitchTargets};

/// `cf.br ^bb(%a : t)? attr-dict`
pub(crate) fn parse_br(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let (dest, vals) = p.parse_successor_and_use_list()?;
    st.successors.push(dest);
    st.operands.extend_from_slice(&vals);
    p.parse_optional_attr_dict(st)?;
    Ok(())
}
/// `cf.br ^bb1(%a : i32) {attrs}`.
pub(crate) fn print_br(p: &mut OpAsmPrinter<'_>) {
    let succs = p.successors();
    if succs.len() != 1 {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    let operands = p.operands();
    p.print_successor_and_use_list(succs[0], &operands);
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &[]);
}
/// `cf.cond_br %c (weights([w1, w2]))?, ^t(%a : t)?, ^f(%b : t)? attr-dict`
pub(crate) fn parse_cond_br(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let cond = p.parse_operand()?;
    let c = p.resolve_operand(&cond, ctx.i1_type())?;
    if p.parse_optional_keyword("weights") {
        p.parse_lparen()?;
        p.parse_lsquare()?;
        let mut weights: Vec<u8> = Vec::new();
        if !p.parse_optional_rsquare() {
            loop {
                let off = p.offset();
                let w = i32::try_from(p.parse_integer()?).map_err(|_| p.emit_error_at(off, "integer out of range for i32"))?;
                weights.extend_from_slice(&w.to_le_bytes());
                if !p.parse_optional_comma() {
                    break;
                }
            }
            p.parse_rsquare()?;
        }
        p.parse_rparen()?;
        let w = ctx.attr(xcs_ir::AttrKind::DenseArray { elem: ctx.i32_type(), data: weights.into() });
        p.set_attr(st, "branch_weights", w);
    }
    p.parse_comma()?;
    let (t, tv) = p.parse_successor_and_use_list()?;
    p.parse_comma()?;
    let (f, fv) = p.parse_successor_and_use_list()?;
    st.operands.push(c);
    st.operands.extend_from_slice(&tv);
    st.operands.extend_from_slice(&fv);
    st.successors.push(t);
    st.successors.push(f);
    let seg = ctx.attr(xcs_ir::AttrKind::DenseArray {
        elem: ctx.i32_type(),
        data: [1i32, tv.len() as i32, fv.len() as i32].iter().flat_map(|x| x.to_le_bytes()).collect(),
    });
    p.set_attr(st, "operandSegmentSizes", seg);
    p.parse_optional_attr_dict(st)?;
    Ok(())
}
/// `cf.cond_br %c weights([60, 40]), ^bb1(%a : i32), ^bb2 {attrs}` (`operandSegmentSizes` is
/// implied).
pub(crate) fn print_cond_br(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let operands = p.operands();
    let succs = p.successors();
    let seg = p.attr("operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a)).unwrap_or_default();
    let valid = succs.len() == 2
        && seg.len() == 3
        && seg[0] == 1
        && seg[1] >= 0
        && seg[2] >= 0
        && seg.iter().sum::<i128>() == operands.len() as i128;
    if !valid {
        return p.fallback_to_generic();
    }
    let n = seg[1] as usize;
    p.write_str(" ");
    p.print_operand(operands[0]);
    let weights = p.attr("branch_weights").filter(|&a| ctx.as_dense_ints(a).is_some());
    if let Some(w) = weights.and_then(|a| ctx.as_dense_ints(a)) {
        let list: Vec<String> = w.iter().map(|x| x.to_string()).collect();
        p.write_str(&format!(" weights([{}])", list.join(", ")));
    }
    p.write_str(", ");
    p.print_successor_and_use_list(succs[0], &operands[1..1 + n]);
    p.write_str(", ");
    p.print_successor_and_use_list(succs[1], &operands[1 + n..]);
    let attrs = p.attrs();
    let elided: &[&str] = if weights.is_some() { &["operandSegmentSizes", "branch_weights"] } else { &["operandSegmentSizes"] };
    p.print_optional_attr_dict(attrs, elided);
}
/// `cf.switch %flag : i32, [ default: ^bb(%a : t)?, (integer: ^bb(%b : t)?)* ] attr-dict`.
/// Case values are read as 64-bit integers and truncated to the flag's width (MLIR's
/// `parseSwitchOpCases`).
pub(crate) fn parse_switch(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let flag = p.parse_operand()?;
    p.parse_colon()?;
    let type_off = p.offset();
    let flag_ty = p.parse_type()?;
    if !ctx.is_integer(flag_ty) {
        let found = xcs_ir::printer::type_to_string(ctx, flag_ty);
        return Err(p.emit_error_at(
            type_off,
            format!("invalid kind of type specified: expected builtin.integer, but found '{found}'"),
        ));
    }
    p.parse_comma()?;
    p.parse_lsquare()?;
    // errors at the token, with the op's name (MLIR's custom-parser `emitError`)
    if !p.parse_optional_keyword("default") {
        let off = p.offset();
        return Err(p.emit_error_at(off, "expected 'default'"));
    }
    p.parse_colon()?;
    let (default, default_operands) = p.parse_successor_and_use_list()?;
    let mut cases: Vec<(i128, Block, smallvec::SmallVec<[Value; 4]>)> = Vec::new();
    while p.parse_optional_comma() {
        let off = p.offset();
        let value = p.parse_integer().map_err(|e| p.emit_error_at(off, e.message))?;
        let value = xcs_ir::attrs::normalize_int(ctx, value as i128, flag_ty);
        p.parse_colon()?;
        let (dest, operands) = p.parse_successor_and_use_list()?;
        cases.push((value, dest, operands));
    }
    p.parse_rsquare()?;
    let flag = p.resolve_operand(&flag, flag_ty)?;
    let cases: Vec<(i128, Block, &[Value])> = cases.iter().map(|(v, b, o)| (*v, *b, o.as_slice())).collect();
    let parts = crate::cf_patterns::SwitchParts::new(ctx, flag, flag_ty, (default, &default_operands), &cases);
    st.operands.extend_from_slice(&parts.operands);
    st.successors.extend_from_slice(&parts.successors);
    for (name, value) in parts.attrs {
        if let Some(v) = value {
            p.set_attr(st, name, v);
        }
    }
    p.parse_optional_attr_dict(st)?;
    Ok(())
}
/// `cf.switch %arg0 : i32, [` then `  default: ^bb1(%0 : i32),` and one `  42: ^bb2` per case
/// on lines of their own, then `]` (`default: ^bb1]` without cases) and the other attributes.
/// Case values print unsigned, as MLIR's `getLimitedValue` (`-1 : i32` prints `4294967295`).
pub(crate) fn print_switch(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let targets: Option<SwitchTargets> = match (p.body(), p.op()) {
        (Some(b), Some(op)) => SwitchOp::cast(ctx, b, op).and_then(|s| s.targets(ctx, b)),
        _ => None,
    };
    let operands = p.operands();
    let (Some(targets), Some(&flag)) = (targets, operands.first()) else {
        return p.fallback_to_generic();
    };
    let Some(flag_ty) = p.value_type(flag) else { return p.fallback_to_generic() };
    let width = ctx.int_width(flag_ty).unwrap_or(64);
    p.write_str(" ");
    p.print_operand(flag);
    p.write_str(" : ");
    p.print_type(flag_ty);
    p.write_str(", [");
    p.print_newline();
    p.write_str("  default: ");
    let (default, range) = targets.default;
    p.print_successor_and_use_list(default, &operands[range]);
    for case in &targets.cases {
        p.write_str(",");
        p.print_newline();
        p.write_str("  ");
        let unsigned = if width >= 128 { case.value as u128 } else { (case.value as u128) & ((1u128 << width) - 1) };
        p.write_str(&unsigned.min(u64::MAX as u128).to_string());
        p.write_str(": ");
        p.print_successor_and_use_list(case.dest, &operands[case.operands.clone()]);
    }
    if !targets.cases.is_empty() {
        p.print_newline();
    }
    p.write_str("]");
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["operandSegmentSizes", "case_operand_segments", "case_values"]);
}
/// `cf.assert %c, "message" attr-dict`
pub(crate) fn parse_assert(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let arg = p.parse_operand()?;
    p.parse_comma()?;
    let off = p.offset();
    let msg = p.parse_attribute()?;
    if ctx.as_str(msg).is_none() {
        return Err(p.emit_error_at(off, "invalid kind of attribute specified"));
    }
    p.set_attr(st, "msg", msg);
    p.parse_optional_attr_dict(st)?;
    let arg = p.resolve_operand(&arg, ctx.i1_type())?;
    st.operands.push(arg);
    Ok(())
}
/// `cf.assert %arg0, "message" {attrs}`.
pub(crate) fn print_assert(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let operands = p.operands();
    let (Some(msg), [arg]) = (p.attr("msg").filter(|&a| ctx.as_str(a).is_some()), operands.as_slice()) else {
        return p.fallback_to_generic();
    };
    p.write_str(" ");
    p.print_operand(*arg);
    p.write_str(", ");
    p.print_attribute(msg);
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["msg"]);
}
