//! What each covered XCS op becomes in upstream MLIR: a table keyed by the ops' typed
//! declarations (as the LLVM lowering's `attach_interfaces`; never by name strings) plus every op
//! with an `Elementwise` interface, which becomes a `linalg.generic` whose indexing maps come from
//! the op's `LoopStructure` and whose scalar body is its `ElementwiseFn` in `arith`/`math`.

use xcs_dialects::func as func_dialect;
use xcs_dialects::{cf, shard};
use xcs_dialects::tensor::elementwise::{elementwise_fn, BinaryFn, ElementwiseFn, Predicate, TernaryFn, UnaryFn};
use xcs_dialects::tensor;
use xcs_ir::interfaces::{LoopInfo, LoopStructure};
use xcs_ir::opdef::{OpDef, OpView};
use xcs_ir::printer::attr_to_string;
use xcs_ir::Type;

use crate::export::{Emitter, ExportOp, GenericInput, ScalarBody};
use crate::generic_ops::{ControlFlow, Shard, Switch};
use crate::shape_ops;

/// The covered ops other than the elementwise ones, by declaration.
static EXPORTS: &[(&OpDef, &dyn ExportOp)] = &[
    (tensor::ConstantOp::DEF, &Constant),
    (tensor::MatmulOp::DEF, &Contraction),
    (tensor::EinsumOp::DEF, &Contraction),
    (tensor::ReduceOp::DEF, &Reduce),
    (tensor::SoftmaxOp::DEF, &Softmax),
    (tensor::TransposeOp::DEF, &Transpose),
    (tensor::FusedOp::DEF, &Fused),
    (tensor::ReshapeOp::DEF, &shape_ops::Reshape),
    (tensor::BroadcastToOp::DEF, &shape_ops::BroadcastTo),
    (tensor::SliceOp::DEF, &shape_ops::Slice),
    (tensor::ConcatOp::DEF, &shape_ops::Concat),
    (tensor::GatherOp::DEF, &shape_ops::Gather),
    (tensor::IotaOp::DEF, &shape_ops::Iota),
    (tensor::DynamicSliceOp::DEF, &shape_ops::DynamicSlice),
    (tensor::DynamicUpdateSliceOp::DEF, &shape_ops::DynamicUpdateSlice),
    (tensor::ExtractOp::DEF, &shape_ops::Extract),
    (tensor::LayerNormOp::DEF, &shape_ops::LayerNorm),
    (func_dialect::CallOp::DEF, &Call),
    (func_dialect::ReturnOp::DEF, &Return),
    (cf::BranchOp::DEF, &ControlFlow),
    (cf::CondBranchOp::DEF, &ControlFlow),
    (cf::SwitchOp::DEF, &Switch),
    (cf::AssertOp::DEF, &ControlFlow),
    (shard::GridOp::DEF, &Shard),
    (shard::ShardingOp::DEF, &Shard),
    (shard::ShardOp::DEF, &Shard),
    (shard::AllGatherOp::DEF, &Shard),
    (shard::AllReduceOp::DEF, &Shard),
    (shard::ReduceScatterOp::DEF, &Shard),
    (shard::AllToAllOp::DEF, &Shard),
    (shard::AllSliceOp::DEF, &Shard),
    (shard::BroadcastOp::DEF, &Shard),
    (shard::ProcessMultiIndexOp::DEF, &Shard),
    (shard::ProcessLinearIndexOp::DEF, &Shard),
    (shard::GridShapeOp::DEF, &Shard),
];

/// The declarations of the ops the export covers besides the elementwise ones (for docs and tests).
pub fn covered_ops() -> impl Iterator<Item = &'static OpDef> {
    EXPORTS.iter().map(|&(d, _)| d)
}

/// The export of `op`, or an error naming it when it is not covered.
pub fn exporter_of(op: &OpView) -> Result<&'static dyn ExportOp, String> {
    let name = op.body.op_name(op.op);
    if let Some(&(_, x)) = EXPORTS.iter().find(|(d, _)| op.ctx.op_name(d.name) == name) {
        return Ok(x);
    }
    if elementwise_fn(op).is_some() {
        return Ok(&Elementwise);
    }
    Err("is not covered by the MLIR export (see docs/interop.md)".into())
}

fn loops_of(op: &OpView) -> Result<LoopInfo, String> {
    op.interface::<dyn LoopStructure>()
        .ok_or_else(|| format!("'{}' has no loop structure", op.name()))?
        .loops(op)
}

/// The loops absent from every result: reductions.
fn reduction_loops(info: &LoopInfo) -> Vec<usize> {
    (0..info.loops.len()).filter(|l| !info.results.iter().any(|r| r.contains(&Some(*l)))).collect()
}

/// The operands of `op` as generic inputs indexed per `info`.
fn inputs_of<'s>(e: &Emitter, op: &OpView, names: &'s [String], info: &LoopInfo) -> Vec<GenericInput<'s>> {
    let _ = e;
    names
        .iter()
        .enumerate()
        .map(|(i, n)| GenericInput { name: n, ty: op.operand_type(i), map: info.operands[i].clone() })
        .collect()
}

pub(crate) fn operand_names(e: &Emitter, op: &OpView) -> Result<Vec<String>, String> {
    (0..op.num_operands()).map(|i| e.name(op.operand(i))).collect()
}

pub(crate) fn bind_result(e: &mut Emitter, op: &OpView, name: String) {
    e.bind(op.body.result(op.op, 0), name);
}

// ---------------------------------------------------------------------------- constants, calls

/// `tensor.constant` -> `arith.constant dense<...>` (the same attribute syntax).
struct Constant;
impl ExportOp for Constant {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let value = op.attr("value").ok_or("missing 'value'")?;
        let text = attr_to_string(e.ctx, value);
        if !text.starts_with("dense<") {
            return Err(format!("the constant '{text}' is not covered by the MLIR export (dense elements only)"));
        }
        e.static_tensor(op.result_type(0))?;
        let n = e.fresh();
        e.line(&format!("{n} = arith.constant {text}"));
        bind_result(e, op, n);
        Ok(())
    }
}

struct Call;
impl ExportOp for Call {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let callee = op.attr("callee").and_then(|a| op.ctx.as_symbol(a)).ok_or("missing 'callee'")?;
        let args = operand_names(e, op)?;
        let arg_types: Vec<String> = op.operand_types().iter().map(|&t| e.ty(t)).collect();
        let res_types: Vec<String> = op.result_types().iter().map(|&t| e.ty(t)).collect();
        let n = e.fresh();
        let lhs = match op.num_results() {
            0 => String::new(),
            1 => format!("{n} = "),
            k => format!("{n}:{k} = "),
        };
        e.line(&format!(
            "{lhs}func.call @{callee}({}) : ({}) -> ({})",
            args.join(", "),
            arg_types.join(", "),
            res_types.join(", ")
        ));
        for j in 0..op.num_results() {
            let name = if op.num_results() == 1 { n.clone() } else { format!("{n}#{j}") };
            e.bind(op.body.result(op.op, j), name);
        }
        Ok(())
    }
}

struct Return;
impl ExportOp for Return {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let args = operand_names(e, op)?;
        // Upstream's `func.return` has XCS's name and form.
        let name = func_dialect::ReturnOp::DEF.name;
        if args.is_empty() {
            e.line(name);
        } else {
            let types: Vec<String> = op.operand_types().iter().map(|&t| e.ty(t)).collect();
            e.line(&format!("{name} {} : {}", args.join(", "), types.join(", ")));
        }
        Ok(())
    }
}

/// `tensor.fused` -> its body's ops in place (upstream has no such grouping op; linalg's own
/// fusion regroups them), the region's arguments named as the op's operands.
struct Fused;
impl ExportOp for Fused {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let inner = op.body.nested(op.op).ok_or("has no body")?;
        let block = inner.root_regions().first().and_then(|&r| inner.entry_block(r)).ok_or("has no block")?;
        let operands = operand_names(e, op)?;
        let outer = e.begin_scope();
        for (&a, n) in inner.block_args(block).iter().zip(operands) {
            e.bind(a, n);
        }
        let mut results = Vec::new();
        let mut exported = Ok(());
        for iop in inner.block_ops(block) {
            let view = OpView::new(op.ctx, inner, iop);
            if tensor::YieldOp::matches(op.ctx, inner.op_name(iop)) {
                match operand_names(e, &view) {
                    Ok(r) => results = r,
                    Err(m) => {
                        exported = Err(m);
                        break;
                    }
                }
            } else if let Err(m) = exporter_of(&view).and_then(|x| x.export(e, &view)) {
                exported = Err(format!("in its body, '{}': {m}", view.name()));
                break;
            }
        }
        e.end_scope(outer);
        exported?;
        for (j, n) in results.into_iter().enumerate() {
            e.bind(op.body.result(op.op, j), n);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------- structured ops

/// `tensor.matmul` of two matrices -> `linalg.matmul`; batched, broadcast matmuls and
/// `tensor.einsum` -> a `linalg.generic` (multiply, add into a zero-filled init) from the op's
/// loop structure.
struct Contraction;
impl ExportOp for Contraction {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let names = operand_names(e, op)?;
        let out_ty = op.result_type(0);
        let (shape, elem) = e.static_tensor(out_ty)?;
        let init = e.filled(out_ty, zero(e, elem))?;
        let is_matrix = |t: Type| e.static_tensor(t).is_ok_and(|(s, _)| s.len() == 2);
        let n = if tensor::MatmulOp::matches(op.ctx, op.body.op_name(op.op))
            && shape.len() == 2
            && op.operand_types().iter().all(|&t| is_matrix(t))
        {
            let n = e.fresh();
            let (a, b, c) = (e.ty(op.operand_type(0)), e.ty(op.operand_type(1)), e.ty(out_ty));
            e.line(&format!("{n} = linalg.matmul ins({}, {} : {a}, {b}) outs({init} : {c}) -> {c}", names[0], names[1]));
            n
        } else {
            let info = loops_of(op)?;
            let inputs = inputs_of(e, op, &names, &info);
            let float = e.ctx.is_float(elem);
            e.generic(info.loops.len(), &reduction_loops(&info), &inputs, &init, out_ty, &info.results[0], |b, ins, out| {
                let mut p = ins[0].clone();
                for x in &ins[1..] {
                    p = b.op(if float { "arith.mulf" } else { "arith.muli" }, &[&p, x], elem);
                }
                Ok(b.op(if float { "arith.addf" } else { "arith.addi" }, &[out, &p], elem))
            })?
        };
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.transpose` -> `linalg.transpose`.
struct Transpose;
impl ExportOp for Transpose {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let perm = op.attr("perm").and_then(|a| op.ctx.as_i64_array(a)).ok_or("missing 'perm'")?;
        let out_ty = op.result_type(0);
        e.static_tensor(out_ty)?;
        let init = e.empty(out_ty);
        let n = e.fresh();
        let (a, c) = (e.ty(op.operand_type(0)), e.ty(out_ty));
        let perm: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
        e.line(&format!("{n} = linalg.transpose ins({x} : {a}) outs({init} : {c}) permutation = [{}]", perm.join(", ")));
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.reduce` -> a `linalg.generic` over the operand's dims into an init filled with the
/// kind's identity (`mean`: the sum, then divided by the count in a second generic).
struct Reduce;
impl ExportOp for Reduce {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let names = operand_names(e, op)?;
        let kind = op.attr("kind").and_then(|a| op.ctx.as_str(a)).ok_or("missing 'kind'")?.to_string();
        let out_ty = op.result_type(0);
        let (out_shape, elem) = e.static_tensor(out_ty)?;
        let (in_shape, _) = e.static_tensor(op.operand_type(0))?;
        let float = e.ctx.is_float(elem);
        let (identity, combine) = reduction_of(e, &kind, elem)?;
        let init = e.filled(out_ty, &identity)?;
        let info = loops_of(op)?;
        let inputs = inputs_of(e, op, &names, &info);
        let reductions = reduction_loops(&info);
        let mut n = e.generic(info.loops.len(), &reductions, &inputs, &init, out_ty, &info.results[0], |b, ins, out| {
            Ok(b.op(combine, &[out, &ins[0]], elem))
        })?;
        if kind == "mean" {
            let count: i64 = reductions.iter().map(|&l| in_shape[l]).product();
            let count = if float { format!("{count}.0") } else { count.to_string() };
            let init = e.empty(out_ty);
            let identity_map: Vec<Option<usize>> = (0..out_shape.len()).map(Some).collect();
            let sum = [GenericInput { name: &n, ty: out_ty, map: identity_map.clone() }];
            n = e.generic(out_shape.len(), &[], &sum, &init, out_ty, &identity_map, |b, ins, _| {
                let c = b.constant(&count, elem);
                Ok(b.op(if float { "arith.divf" } else { "arith.divsi" }, &[&ins[0], &c], elem))
            })?;
        }
        bind_result(e, op, n);
        Ok(())
    }
}

/// The identity and the combining op of a reduction kind.
fn reduction_of(e: &Emitter, kind: &str, elem: Type) -> Result<(String, &'static str), String> {
    let float = e.ctx.is_float(elem);
    let width = e.ctx.int_width(elem).unwrap_or(64);
    Ok(match (kind, float) {
        ("sum" | "mean", true) => (zero(e, elem).to_string(), "arith.addf"),
        ("sum" | "mean", false) => ("0".into(), "arith.addi"),
        ("prod", true) => ("1.0".into(), "arith.mulf"),
        ("prod", false) => ("1".into(), "arith.muli"),
        ("max", true) => (infinity(e, elem, true)?, "arith.maximumf"),
        ("max", false) => ((-(1i128 << (width - 1))).to_string(), "arith.maxsi"),
        ("min", true) => (infinity(e, elem, false)?, "arith.minimumf"),
        ("min", false) => (((1i128 << (width - 1)) - 1).to_string(), "arith.minsi"),
        _ => return Err(format!("reduction kind '{kind}' is not covered by the MLIR export")),
    })
}

fn zero(e: &Emitter, elem: Type) -> &'static str {
    if e.ctx.is_float(elem) {
        "0.0"
    } else {
        "0"
    }
}

/// `-inf` (`negative`) or `+inf` as an MLIR float literal (the bit pattern, in hex).
fn infinity(e: &Emitter, elem: Type, negative: bool) -> Result<String, String> {
    let bits = match (e.ty(elem).as_str(), negative) {
        ("f32", true) => "0xFF800000",
        ("f32", false) => "0x7F800000",
        ("f64", true) => "0xFFF0000000000000",
        ("f64", false) => "0x7FF0000000000000",
        ("f16", true) => "0xFC00",
        ("f16", false) => "0x7C00",
        ("bf16", true) => "0xFF80",
        ("bf16", false) => "0x7F80",
        (t, _) => return Err(format!("no infinity for '{t}'")),
    };
    Ok(bits.to_string())
}

/// `tensor.softmax` -> four `linalg.generic`s: the max along the axis, `exp(x - max)`, its sum,
/// and the quotient (the numerically stable form XCS's backends compute).
struct Softmax;
impl ExportOp for Softmax {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let ty = op.result_type(0);
        let (shape, elem) = e.static_tensor(ty)?;
        let info = loops_of(op)?;
        let rank = shape.len();
        let axis = (0..rank).find(|&d| info.loops[d] == xcs_ir::interfaces::LoopKind::Whole).ok_or("no softmax axis")?;
        let full: Vec<Option<usize>> = (0..rank).map(Some).collect();
        let reduced: Vec<Option<usize>> = (0..rank).filter(|&d| d != axis).map(Some).collect();
        let reduced_shape: Vec<i64> = (0..rank).filter(|&d| d != axis).map(|d| shape[d]).collect();
        let red_ty = e.ctx.tensor_type(&reduced_shape, elem);
        let neg_inf = infinity(e, elem, true)?;
        let max_init = e.filled(red_ty, &neg_inf)?;
        let xin = [GenericInput { name: &x, ty, map: full.clone() }];
        let max = e.generic(rank, &[axis], &xin, &max_init, red_ty, &reduced, |b, ins, out| {
            Ok(b.op("arith.maximumf", &[out, &ins[0]], elem))
        })?;
        let exp_init = e.empty(ty);
        let ins2 = [GenericInput { name: &x, ty, map: full.clone() }, GenericInput { name: &max, ty: red_ty, map: reduced.clone() }];
        let exps = e.generic(rank, &[], &ins2, &exp_init, ty, &full, |b, ins, _| {
            let d = b.op("arith.subf", &[&ins[0], &ins[1]], elem);
            Ok(b.op("math.exp", &[&d], elem))
        })?;
        let sum_init = e.filled(red_ty, "0.0")?;
        let ein = [GenericInput { name: &exps, ty, map: full.clone() }];
        let sum = e.generic(rank, &[axis], &ein, &sum_init, red_ty, &reduced, |b, ins, out| {
            Ok(b.op("arith.addf", &[out, &ins[0]], elem))
        })?;
        let out_init = e.empty(ty);
        let ins4 = [GenericInput { name: &exps, ty, map: full.clone() }, GenericInput { name: &sum, ty: red_ty, map: reduced }];
        let n = e.generic(rank, &[], &ins4, &out_init, ty, &full, |b, ins, _| Ok(b.op("arith.divf", &[&ins[0], &ins[1]], elem)))?;
        bind_result(e, op, n);
        Ok(())
    }
}

// ---------------------------------------------------------------------------- elementwise ops

/// Every op with an `Elementwise` interface -> one `linalg.generic` (broadcasts in the indexing
/// maps) whose body computes the op's `ElementwiseFn` with `arith` and `math`.
struct Elementwise;
impl ExportOp for Elementwise {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let f = elementwise_fn(op).ok_or("not elementwise")??;
        let names = operand_names(e, op)?;
        let out_ty = op.result_type(0);
        let (_, out_elem) = e.static_tensor(out_ty)?;
        let in_elems: Vec<Type> =
            op.operand_types().iter().map(|&t| e.static_tensor(t).map(|(_, el)| el)).collect::<Result<_, _>>()?;
        let info = loops_of(op)?;
        let inputs = inputs_of(e, op, &names, &info);
        let init = e.empty(out_ty);
        let n = e.generic(info.loops.len(), &[], &inputs, &init, out_ty, &info.results[0], |b, ins, _| {
            scalar_fn(b, f, ins, &in_elems, out_elem)
        })?;
        bind_result(e, op, n);
        Ok(())
    }
}

/// The scalar body of one elementwise function on `ins` (of element types `elems`).
fn scalar_fn(b: &mut ScalarBody, f: ElementwiseFn, ins: &[String], elems: &[Type], out: Type) -> Result<String, String> {
    let float = b.e.ctx.is_float(elems[0]);
    match f {
        ElementwiseFn::Binary(bf) => binary(b, bf, &ins[0], &ins[1], elems[0], float),
        ElementwiseFn::Unary(uf) => unary(b, uf, &ins[0], elems[0], float),
        ElementwiseFn::Ternary(TernaryFn::Clamp) => {
            let (max, min) = if float { ("arith.maximumf", "arith.minimumf") } else { ("arith.maxsi", "arith.minsi") };
            let lo = b.op(max, &[&ins[0], &ins[1]], elems[0]);
            Ok(b.op(min, &[&lo, &ins[2]], elems[0]))
        }
        ElementwiseFn::Compare(p) => Ok(compare(b, p, &ins[0], &ins[1], elems[0], float)),
        ElementwiseFn::Select => {
            let ty = b.e.ty(out);
            Ok(b.raw(|n| format!("{n} = arith.select {}, {}, {} : {ty}", ins[0], ins[1], ins[2])))
        }
        ElementwiseFn::Cast => cast(b, &ins[0], elems[0], out),
    }
}

fn compare(b: &mut ScalarBody, p: Predicate, x: &str, y: &str, elem: Type, float: bool) -> String {
    let pred = match (p, float) {
        (Predicate::Eq, true) => "oeq",
        (Predicate::Ne, true) => "une",
        (Predicate::Lt, true) => "olt",
        (Predicate::Le, true) => "ole",
        (Predicate::Gt, true) => "ogt",
        (Predicate::Ge, true) => "oge",
        (Predicate::Eq, false) => "eq",
        (Predicate::Ne, false) => "ne",
        (Predicate::Lt, false) => "slt",
        (Predicate::Le, false) => "sle",
        (Predicate::Gt, false) => "sgt",
        (Predicate::Ge, false) => "sge",
    };
    let op = if float { "arith.cmpf" } else { "arith.cmpi" };
    let ty = b.e.ty(elem);
    b.raw(|n| format!("{n} = {op} {pred}, {x}, {y} : {ty}"))
}

fn binary(b: &mut ScalarBody, f: BinaryFn, x: &str, y: &str, elem: Type, float: bool) -> Result<String, String> {
    let op = match (f, float) {
        (BinaryFn::Add, true) => "arith.addf",
        (BinaryFn::Add, false) => "arith.addi",
        (BinaryFn::Sub, true) => "arith.subf",
        (BinaryFn::Sub, false) => "arith.subi",
        (BinaryFn::Mul, true) => "arith.mulf",
        (BinaryFn::Mul, false) => "arith.muli",
        (BinaryFn::Div, true) => "arith.divf",
        (BinaryFn::Div, false) => "arith.divsi",
        (BinaryFn::Max, true) => "arith.maximumf",
        (BinaryFn::Max, false) => "arith.maxsi",
        (BinaryFn::Min, true) => "arith.minimumf",
        (BinaryFn::Min, false) => "arith.minsi",
        (BinaryFn::Pow, true) => "math.powf",
        (BinaryFn::Rem, true) => return Ok(float_remainder(b, x, y, elem)),
        (BinaryFn::Rem, false) => return Ok(int_remainder(b, x, y, elem)),
        (f, false) => return Err(format!("integer {f:?} is not covered by the MLIR export")),
    };
    Ok(b.op(op, &[x, y], elem))
}

/// numpy's remainder from `arith.remf` (C's `fmod`, the dividend's sign): add `y` where the
/// signs of a nonzero remainder and `y` differ; a zero remainder takes `y`'s sign.
fn float_remainder(b: &mut ScalarBody, x: &str, y: &str, elem: Type) -> String {
    let ty = b.e.ty(elem);
    let r = b.op("arith.remf", &[x, y], elem);
    let zero = b.constant("0.0", elem);
    let r_neg = b.raw(|n| format!("{n} = arith.cmpf olt, {r}, {zero} : {ty}"));
    let y_neg = b.raw(|n| format!("{n} = arith.cmpf olt, {y}, {zero} : {ty}"));
    let r_nonzero = b.raw(|n| format!("{n} = arith.cmpf one, {r}, {zero} : {ty}"));
    let differ = b.raw(|n| format!("{n} = arith.xori {r_neg}, {y_neg} : i1"));
    let adjust = b.raw(|n| format!("{n} = arith.andi {differ}, {r_nonzero} : i1"));
    let shifted = b.op("arith.addf", &[&r, y], elem);
    let adjusted = b.raw(|n| format!("{n} = arith.select {adjust}, {shifted}, {r} : {ty}"));
    let signed_zero = b.op("math.copysign", &[&adjusted, y], elem);
    let is_zero = b.raw(|n| format!("{n} = arith.cmpf oeq, {adjusted}, {zero} : {ty}"));
    b.raw(|n| format!("{n} = arith.select {is_zero}, {signed_zero}, {adjusted} : {ty}"))
}

/// numpy's remainder of integers from `arith.remsi` (C's `%`): add `y` where a nonzero
/// remainder and `y` differ in sign. (Division by zero is undefined here, an error in XCS.)
fn int_remainder(b: &mut ScalarBody, x: &str, y: &str, elem: Type) -> String {
    let ty = b.e.ty(elem);
    let r = b.op("arith.remsi", &[x, y], elem);
    let zero = b.constant("0", elem);
    let r_neg = b.raw(|n| format!("{n} = arith.cmpi slt, {r}, {zero} : {ty}"));
    let y_neg = b.raw(|n| format!("{n} = arith.cmpi slt, {y}, {zero} : {ty}"));
    let r_nonzero = b.raw(|n| format!("{n} = arith.cmpi ne, {r}, {zero} : {ty}"));
    let differ = b.raw(|n| format!("{n} = arith.xori {r_neg}, {y_neg} : i1"));
    let adjust = b.raw(|n| format!("{n} = arith.andi {differ}, {r_nonzero} : i1"));
    let shifted = b.op("arith.addi", &[&r, y], elem);
    b.raw(|n| format!("{n} = arith.select {adjust}, {shifted}, {r} : {ty}"))
}

fn unary(b: &mut ScalarBody, f: UnaryFn, x: &str, elem: Type, float: bool) -> Result<String, String> {
    let one = |b: &mut ScalarBody| b.constant("1.0", elem);
    let simple = match (f, float) {
        (UnaryFn::Neg, true) => Some("arith.negf"),
        (UnaryFn::Abs, true) => Some("math.absf"),
        (UnaryFn::Abs, false) => Some("math.absi"),
        (UnaryFn::Exp, _) => Some("math.exp"),
        (UnaryFn::Log, _) => Some("math.log"),
        (UnaryFn::Tanh, _) => Some("math.tanh"),
        (UnaryFn::Sqrt, _) => Some("math.sqrt"),
        (UnaryFn::Rsqrt, _) => Some("math.rsqrt"),
        (UnaryFn::Sin, _) => Some("math.sin"),
        (UnaryFn::Cos, _) => Some("math.cos"),
        (UnaryFn::Erf, _) => Some("math.erf"),
        (UnaryFn::Floor, true) => Some("math.floor"),
        (UnaryFn::Ceil, true) => Some("math.ceil"),
        (UnaryFn::Round, true) => Some("math.roundeven"),
        _ => None,
    };
    if let Some(op) = simple {
        return Ok(b.op(op, &[x], elem));
    }
    Ok(match (f, float) {
        (UnaryFn::Floor | UnaryFn::Ceil | UnaryFn::Round, false) => x.to_string(),
        (UnaryFn::Neg, false) => {
            let z = b.constant("0", elem);
            b.op("arith.subi", &[&z, x], elem)
        }
        (UnaryFn::Relu, _) => {
            let z = b.constant(if float { "0.0" } else { "0" }, elem);
            b.op(if float { "arith.maximumf" } else { "arith.maxsi" }, &[x, &z], elem)
        }
        (UnaryFn::Sigmoid, true) => sigmoid(b, x, elem),
        (UnaryFn::Silu, true) => {
            let s = sigmoid(b, x, elem);
            b.op("arith.mulf", &[x, &s], elem)
        }
        (UnaryFn::GeluErf, true) => {
            let c = b.constant("0.70710678118654752", elem);
            let inner = b.op("arith.mulf", &[x, &c], elem);
            let erf = b.op("math.erf", &[&inner], elem);
            gelu_tail(b, x, &erf, elem)
        }
        (UnaryFn::GeluTanh, true) => {
            let (k, a) = (b.constant("0.79788456080286536", elem), b.constant("0.044715", elem));
            let x2 = b.op("arith.mulf", &[x, x], elem);
            let x3 = b.op("arith.mulf", &[&x2, x], elem);
            let ax3 = b.op("arith.mulf", &[&a, &x3], elem);
            let s = b.op("arith.addf", &[x, &ax3], elem);
            let ks = b.op("arith.mulf", &[&k, &s], elem);
            let t = b.op("math.tanh", &[&ks], elem);
            gelu_tail(b, x, &t, elem)
        }
        (UnaryFn::Sign, true) => {
            let ty = b.e.ty(elem);
            let (z, o) = (b.constant("0.0", elem), one(b));
            let m = b.constant("-1.0", elem);
            let gt = b.raw(|n| format!("{n} = arith.cmpf ogt, {x}, {z} : {ty}"));
            let lt = b.raw(|n| format!("{n} = arith.cmpf olt, {x}, {z} : {ty}"));
            let eq = b.raw(|n| format!("{n} = arith.cmpf oeq, {x}, {z} : {ty}"));
            let s0 = b.raw(|n| format!("{n} = arith.select {eq}, {z}, {x} : {ty}"));
            let s1 = b.raw(|n| format!("{n} = arith.select {lt}, {m}, {s0} : {ty}"));
            b.raw(|n| format!("{n} = arith.select {gt}, {o}, {s1} : {ty}"))
        }
        (f, _) => return Err(format!("{} {f:?} is not covered by the MLIR export", if float { "float" } else { "integer" })),
    })
}

/// `1 / (1 + exp(-x))`.
fn sigmoid(b: &mut ScalarBody, x: &str, elem: Type) -> String {
    let one = b.constant("1.0", elem);
    let neg = b.op("arith.negf", &[x], elem);
    let ex = b.op("math.exp", &[&neg], elem);
    let den = b.op("arith.addf", &[&one, &ex], elem);
    b.op("arith.divf", &[&one, &den], elem)
}

/// `0.5 * x * (1 + t)`.
fn gelu_tail(b: &mut ScalarBody, x: &str, t: &str, elem: Type) -> String {
    let (half, one) = (b.constant("0.5", elem), b.constant("1.0", elem));
    let s = b.op("arith.addf", &[&one, t], elem);
    let hx = b.op("arith.mulf", &[&half, x], elem);
    b.op("arith.mulf", &[&hx, &s], elem)
}

/// `tensor.cast` between float types and between floats and signed integers (the float to
/// integer direction as `arith.fptosi`: out-of-range values are not saturated, unlike XCS); i1
/// to a number is 0 or 1 (`arith.extui`, `arith.uitofp`), a number to i1 is `!= 0`.
fn cast(b: &mut ScalarBody, x: &str, from: Type, to: Type) -> Result<String, String> {
    let ctx = b.e.ctx;
    let (ff, tf) = (ctx.is_float(from), ctx.is_float(to));
    let (fw, tw) = (bit_width(b.e, from), bit_width(b.e, to));
    let (fs, ts) = (b.e.ty(from), b.e.ty(to));
    if from != to && tw == 1 && !tf {
        let zero = b.constant(if ff { "0.0" } else { "0" }, from);
        let cmp = if ff { "arith.cmpf une" } else { "arith.cmpi ne" };
        return Ok(b.raw(|n| format!("{n} = {cmp}, {x}, {zero} : {fs}")));
    }
    let op = match (ff, tf) {
        _ if from == to => return Ok(x.to_string()),
        (false, true) if fw == 1 => "arith.uitofp",
        (false, false) if fw == 1 => "arith.extui",
        (true, true) if fw < tw => "arith.extf",
        (true, true) => "arith.truncf",
        (false, true) if fw > 1 => "arith.sitofp",
        (true, false) if tw > 1 => "arith.fptosi",
        (false, false) if fw > 1 && tw > fw => "arith.extsi",
        (false, false) if tw > 1 && tw < fw => "arith.trunci",
        _ => return Err(format!("the cast from {fs} to {ts} is not covered by the MLIR export")),
    };
    Ok(b.raw(|n| format!("{n} = {op} {x} : {fs} to {ts}")))
}

fn bit_width(e: &Emitter, t: Type) -> u32 {
    match e.ty(t).as_str() {
        "f16" | "bf16" => 16,
        "f32" => 32,
        "f64" => 64,
        _ => e.ctx.int_width(t).unwrap_or(64),
    }
}
