//! The ops whose upstream form is XCS's own, written in MLIR's generic form: `cf.br`,
//! `cf.cond_br`, `cf.switch`, `cf.assert` (upstream's `cf` dialect has the same operands,
//! successors and properties) and the `shard` ops (XCS's `shard` dialect is upstream MLIR 22's,
//! attribute for attribute). XCS's discardable `xcs.*` attributes (e.g. a grid's `xcs.axes`) are
//! dropped; the MLIR backend refuses `shard` ops (it runs unsharded programs only).

use xcs_ir::opdef::OpView;
use xcs_ir::printer::attr_to_string;

use crate::export::{Emitter, ExportOp};

/// Whether `op` is a `shard.grid` (a top-level symbol the export writes next to the functions).
pub fn is_grid(op: &OpView) -> bool {
    xcs_dialects::shard::GridOp::matches(op.ctx, op.body.op_name(op.op))
}

/// `op` in MLIR's generic form, `%r = "name"(%a, %b)[^bb1, ^bb2] <{props}> {attrs} : (types) ->
/// (types)`, with the operands, results and successors named by `e`; attributes whose name
/// starts with `xcs.` are left out.
pub fn write_generic(e: &mut Emitter, op: &OpView) -> Result<(), String> {
    let operands: Vec<String> = (0..op.num_operands()).map(|i| e.name(op.operand(i))).collect::<Result<_, _>>()?;
    write_generic_with(e, op, operands)
}

/// As [`write_generic`], with the operands' names given.
fn write_generic_with(e: &mut Emitter, op: &OpView, operands: Vec<String>) -> Result<(), String> {
    let ctx = op.ctx;
    let successors: Vec<String> =
        op.body.successors(op.op).iter().map(|&b| e.block_label(b)).collect::<Result<_, _>>()?;
    let mut text = String::new();
    let n = e.fresh();
    match op.num_results() {
        0 => {}
        1 => text.push_str(&format!("{n} = ")),
        k => text.push_str(&format!("{n}:{k} = ")),
    }
    text.push_str(&format!("\"{}\"({})", op.name(), operands.join(", ")));
    if !successors.is_empty() {
        text.push_str(&format!("[{}]", successors.join(", ")));
    }
    if let Some(props) = op.body.props(op.op) {
        if !ctx.dict_entries(props).is_empty() {
            text.push_str(&format!(" <{}>", attr_to_string(ctx, props)));
        }
    }
    let kept: Vec<String> = ctx
        .dict_entries(op.attrs())
        .iter()
        .filter(|(k, _)| !ctx.str(*k).starts_with("xcs."))
        .map(|&(k, v)| format!("{} = {}", ctx.str(k), attr_to_string(ctx, v)))
        .collect();
    if !kept.is_empty() {
        text.push_str(&format!(" {{{}}}", kept.join(", ")));
    }
    let in_types: Vec<String> = op.operand_types().iter().map(|&t| e.ty(t)).collect();
    let out_types: Vec<String> = op.result_types().iter().map(|&t| e.ty(t)).collect();
    text.push_str(&format!(" : ({}) -> ({})", in_types.join(", "), out_types.join(", ")));
    e.line(&text);
    for j in 0..op.num_results() {
        let name = if op.num_results() == 1 { n.clone() } else { format!("{n}#{j}") };
        e.bind(op.body.result(op.op, j), name);
    }
    Ok(())
}

/// The name of operand `i` of `op`; for the MLIR backend, a tensor a branch passes to a block
/// is passed as a copy (`bufferization.alloc_tensor() copy(...)`): upstream's bufferization
/// cannot infer the buffer type of a loop-carried block argument whose value comes back through
/// an in-place update of another block argument (a `lax.scan` carry), and a fresh buffer has
/// a known one.
fn forwarded(e: &mut Emitter, op: &OpView, i: usize) -> Result<String, String> {
    let name = e.name(op.operand(i))?;
    let t = op.operand_type(i);
    if !e.for_backend || e.static_tensor(t).is_err() {
        return Ok(name);
    }
    let n = e.fresh();
    // (With its memory space given, the copy's buffer type does not depend on its source's.)
    e.line(&format!("{n} = bufferization.alloc_tensor() copy({name}) {{memory_space = 0 : i64}} : {}", e.ty(t)));
    Ok(n)
}

/// `cf.br`, `cf.cond_br`, `cf.assert` -> upstream's ops of the same name and form.
pub struct ControlFlow;
impl ExportOp for ControlFlow {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let operands = (0..op.num_operands()).map(|i| forwarded(e, op, i)).collect::<Result<_, _>>()?;
        write_generic_with(e, op, operands)
    }
}

/// `cf.switch` -> upstream's `cf.switch`; for the MLIR backend a chain of `cf.cond_br`s on
/// `arith.cmpi eq` (in case order: the first equal case wins, as in `cf.switch`), because
/// upstream's buffer deallocation takes no terminator of more than two successors.
pub struct Switch;
impl ExportOp for Switch {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        if !e.for_backend {
            return write_generic(e, op);
        }
        let targets = xcs_dialects::cf::SwitchOp::cast(op.ctx, op.body, op.op)
            .and_then(|s| s.targets(op.ctx, op.body))
            .ok_or("has malformed cases")?;
        let flag = e.name(op.operand(0))?;
        let flag_ty = e.ty(op.operand_type(0));
        let dest = |e: &mut Emitter, (block, range): (xcs_ir::Block, std::ops::Range<usize>)| -> Result<String, String> {
            let label = e.block_label(block)?;
            if range.is_empty() {
                return Ok(label);
            }
            let args: Vec<String> = range.clone().map(|i| forwarded(e, op, i)).collect::<Result<_, _>>()?;
            let types: Vec<String> = range.map(|i| e.ty(op.operand_type(i))).collect();
            Ok(format!("{label}({} : {})", args.join(", "), types.join(", ")))
        };
        let cond_br = xcs_dialects::cf::CondBranchOp::DEF.name;
        for case in &targets.cases {
            let value = e.scalar_const(&case.value.to_string(), op.operand_type(0));
            let eq = e.fresh();
            e.line(&format!("{eq} = arith.cmpi eq, {flag}, {value} : {flag_ty}"));
            let taken = dest(e, (case.dest, case.operands.clone()))?;
            let next = format!("^sw{}", e.fresh().trim_start_matches('%'));
            e.line(&format!("{cond_br} {eq}, {taken}, {next}"));
            e.block_header(&format!("{next}:"));
        }
        let default = dest(e, targets.default.clone())?;
        e.line(&format!("{} {default}", xcs_dialects::cf::BranchOp::DEF.name));
        Ok(())
    }
}

/// The `shard` ops -> upstream MLIR 22's `shard` ops of the same name and form; an error for the
/// MLIR backend.
pub struct Shard;
impl ExportOp for Shard {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        if e.for_backend {
            return Err("is a sharding op: the MLIR backend runs unsharded programs only (`xcs-translate --emit=mlir` \
                        exports it; `shard-partition` and `xcs-run --devices` run it)"
                .into());
        }
        write_generic(e, op)
    }
}
