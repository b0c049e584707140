//! The straight-line part of `convert-stablehlo-to-tensor`: each `stablehlo`/`chlo` op of a
//! function (control flow already made `cf` blocks) becomes `tensor` ops built at its location.
//! Elementwise ops map one to one through tables keyed by declaration; the rest have a function
//! each (broadcast_in_dim, dot_general, reduce, remainder, the logical ops, ...).

use xcs_dialects::interp::{tensor_to_attr, ElemType, Tensor};
use xcs_dialects::shape::ranked;
use xcs_dialects::stablehlo::{self as sh, chlo, DotDims};
use xcs_dialects::tensor::{self, BuildResult};
use xcs_ir::opdef::OpDef;
use xcs_ir::{Body, Builder, Context, Diagnostic, Op, Type, Value};

use super::{is_frontend_attr, is_input_op, unsupported};

use super::sharding::{Grids, GSPMD_SHARDING};

type Binary = fn(&mut Builder<'_>, Value, Value) -> BuildResult;
type Unary = fn(&mut Builder<'_>, Value) -> BuildResult;

/// The elementwise binary ops that are one tensor op.
static BINARY: &[(&OpDef, Binary)] = &[
    (sh::AddOp::DEF, tensor::add),
    (sh::SubtractOp::DEF, tensor::sub),
    (sh::MultiplyOp::DEF, tensor::mul),
    (sh::DivideOp::DEF, tensor::div),
    (sh::MaximumOp::DEF, tensor::max),
    (sh::MinimumOp::DEF, tensor::min),
    (sh::PowerOp::DEF, tensor::pow),
];

/// The elementwise unary ops that are one tensor op (or a short composite).
static UNARY: &[(&OpDef, Unary)] = &[
    (sh::NegateOp::DEF, tensor::neg),
    (sh::AbsOp::DEF, tensor::abs),
    (sh::ExpOp::DEF, tensor::exp),
    (sh::LogOp::DEF, tensor::log),
    (sh::TanhOp::DEF, tensor::tanh),
    (sh::LogisticOp::DEF, tensor::sigmoid),
    (sh::SqrtOp::DEF, tensor::sqrt),
    (sh::RsqrtOp::DEF, tensor::rsqrt),
    (sh::SineOp::DEF, tensor::sin),
    (sh::CosineOp::DEF, tensor::cos),
    (sh::FloorOp::DEF, tensor::floor),
    (sh::CeilOp::DEF, tensor::ceil),
    (sh::RoundEvenOp::DEF, tensor::round),
    (sh::SignOp::DEF, tensor::sign),
    (chlo::ErfOp::DEF, tensor::erf),
    (chlo::ErfcOp::DEF, erfc),
    (chlo::SquareOp::DEF, square),
    (sh::Expm1Op::DEF, expm1),
    (sh::Log1pOp::DEF, log1p),
];

fn same(def: &OpDef, other: &OpDef) -> bool {
    def.handle == other.handle
}

/// Converts every `stablehlo`/`chlo` op of the function `body`, in order.
pub(super) fn convert_function(ctx: &Context, body: &mut Body, grids: &Grids) -> Result<(), Diagnostic> {
    for op in body.walk_ops() {
        // Ops inside a converted op's region (a reduce body) are gone with it.
        if !body.contains_op(op) || !is_input_op(ctx, body, op) {
            continue;
        }
        check_attrs(ctx, body, op)?;
        let loc = body.op_loc(op);
        let mut b = Builder::before(ctx, body, op);
        b.set_loc(loc);
        let results = convert_op(&mut b, op, grids)?;
        body.replace_op(op, &results);
    }
    Ok(())
}

/// Every attribute of `op` is one its declaration names or a frontend attribute.
fn check_attrs(ctx: &Context, body: &Body, op: Op) -> Result<(), Diagnostic> {
    let def = ctx.op_def(body.op_name(op)).expect("a registered op");
    for &(k, _) in ctx.dict_entries(body.attrs(op)) {
        let name = ctx.str(k);
        if !def.is_inherent_attr(name) && !is_frontend_attr(name) {
            return Err(unsupported(ctx, body, op, &format!("attribute '{name}'")));
        }
    }
    Ok(())
}

/// The tensor values that replace `op`'s results.
fn convert_op(b: &mut Builder<'_>, op: Op, grids: &Grids) -> Result<Vec<Value>, Diagnostic> {
    let ctx = b.ctx;
    let def = ctx.op_def(b.body.op_name(op)).expect("a registered op");
    let x: Vec<Value> = b.body.operand_vec(op).to_vec();
    if let Some(&(_, f)) = BINARY.iter().find(|(d, _)| same(d, def)) {
        return Ok(vec![f(b, x[0], x[1])?]);
    }
    if let Some(&(_, f)) = UNARY.iter().find(|(d, _)| same(d, def)) {
        return Ok(vec![f(b, x[0])?]);
    }
    let body: &Body = b.body;
    let attr = |name: &str| body.attr(ctx, op, name);
    let i64s = |name: &str| attr(name).and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    let result_ty = body.num_results(op).checked_sub(1).map(|_| body.value_type(body.result(op, 0)));
    let v = if sh::RemainderOp::cast(ctx, body, op).is_some() {
        remainder(b, x[0], x[1])?
    } else if sh::AndOp::cast(ctx, body, op).is_some() {
        let v = logical(b, op, x[0])?;
        tensor::select(b, v, x[1], x[0])?
    } else if sh::OrOp::cast(ctx, body, op).is_some() {
        let v = logical(b, op, x[0])?;
        tensor::select(b, v, x[0], x[1])?
    } else if sh::XorOp::cast(ctx, body, op).is_some() {
        logical(b, op, x[0])?;
        tensor::cmp(b, x[0], x[1], "ne")?
    } else if sh::NotOp::cast(ctx, body, op).is_some() {
        logical(b, op, x[0])?;
        let f = scalar(b, ctx.i1_type(), 0.0)?;
        tensor::cmp(b, x[0], f, "eq")?
    } else if sh::ClampOp::cast(ctx, body, op).is_some() {
        tensor::clamp(b, x[1], x[0], x[2])?
    } else if sh::SelectOp::cast(ctx, body, op).is_some() {
        tensor::select(b, x[0], x[1], x[2])?
    } else if sh::CompareOp::cast(ctx, body, op).is_some() {
        compare(b, op, x[0], x[1])?
    } else if sh::ConvertOp::cast(ctx, body, op).is_some() {
        let elem = elem_of(ctx, result_ty.expect("convert has a result"));
        tensor::cast(b, x[0], elem)?
    } else if sh::ConstantOp::cast(ctx, body, op).is_some() {
        let value = attr("value").expect("verified");
        tensor::constant(b, value)?
    } else if sh::IotaOp::cast(ctx, body, op).is_some() {
        let axis = attr("iota_dimension").expect("verified");
        let ty = result_ty.expect("iota has a result");
        b.create1_with_types(tensor::IotaOp::DEF.name, &[], ty, &[("axis", axis)])?
    } else if sh::BroadcastInDimOp::cast(ctx, body, op).is_some() {
        let dims = i64s("broadcast_dimensions");
        broadcast_in_dim(b, x[0], &dims, result_ty.expect("has a result"))?
    } else if sh::ReshapeOp::cast(ctx, body, op).is_some() {
        let shape = shape_of(ctx, result_ty.expect("has a result"));
        tensor::reshape(b, x[0], &shape)?
    } else if sh::TransposeOp::cast(ctx, body, op).is_some() {
        let perm = i64s("permutation");
        tensor::transpose(b, x[0], &perm)?
    } else if sh::ConcatenateOp::cast(ctx, body, op).is_some() {
        let axis = attr("dimension").and_then(|a| ctx.as_int(a)).unwrap_or(0) as i64;
        tensor::concat(b, &x, axis)?
    } else if sh::SliceOp::cast(ctx, body, op).is_some() {
        let (s, l, st) = (i64s("start_indices"), i64s("limit_indices"), i64s("strides"));
        tensor::slice(b, x[0], &s, &l, &st)?
    } else if sh::DynamicSliceOp::cast(ctx, body, op).is_some() {
        let sizes = ctx.dense_i64_array(&i64s("slice_sizes"));
        b.create1(tensor::DynamicSliceOp::DEF.name, &x, &[("sizes", sizes)])?
    } else if sh::DynamicUpdateSliceOp::cast(ctx, body, op).is_some() {
        b.create1(tensor::DynamicUpdateSliceOp::DEF.name, &x, &[])?
    } else if sh::DotGeneralOp::cast(ctx, body, op).is_some() {
        let dims = attr("dot_dimension_numbers").and_then(|a| DotDims::from_attr(ctx, a)).expect("verified");
        dot_general(b, x[0], x[1], &dims, result_ty.expect("has a result"))?
    } else if sh::GatherOp::cast(ctx, body, op).is_some() {
        super::gather::gather(b, op, x[0], x[1])?
    } else if sh::ReduceOp::cast(ctx, body, op).is_some() {
        return reduce(b, op, &x);
    } else if sh::sdy::ShardingConstraintOp::cast(ctx, body, op).is_some() {
        constrain(b, grids, x[0], attr("sharding").expect("verified"))?
    } else if sh::CustomCallOp::cast(ctx, body, op).is_some() {
        let target = attr("call_target_name").and_then(|a| ctx.as_str(a)).unwrap_or_default();
        let sharding = attr(GSPMD_SHARDING);
        match (target, sharding) {
            ("Sharding", Some(s)) if x.len() == 1 && body.num_results(op) == 1 => constrain(b, grids, x[0], s)?,
            _ => return Err(unsupported(ctx, body, op, &format!("custom_call @{target}"))),
        }
    } else {
        return Err(unsupported(ctx, b.body, op, "this op (control flow is converted before; is it in a region?)"));
    };
    Ok(vec![v])
}

// ---------------------------------------------------------------------------- helpers

/// `x` read in the sharding `s` (Shardy's attribute or GSPMD's string; as is on one device).
fn constrain(b: &mut Builder<'_>, grids: &Grids, x: Value, s: xcs_ir::Attr) -> Result<Value, Diagnostic> {
    match grids.sharding_of(b.ctx, s, b.loc())? {
        Some(s) => Ok(xcs_dialects::shard::build::annotate(b, x, &s, false)?),
        None => Ok(x),
    }
}

pub(super) fn elem_of(ctx: &Context, t: Type) -> Type {
    ranked(ctx, t).map_or(t, |(_, e)| e)
}
pub(super) fn shape_of(ctx: &Context, t: Type) -> Vec<i64> {
    ranked(ctx, t).map(|(s, _)| s.to_vec()).unwrap_or_default()
}
pub(super) fn value_shape(b: &Builder<'_>, v: Value) -> Vec<i64> {
    shape_of(b.ctx, b.body.value_type(v))
}

/// A 0-d constant of element type `elem` holding `v`.
pub(super) fn scalar(b: &mut Builder<'_>, elem: Type, v: f64) -> BuildResult {
    let loc = b.loc();
    let e = ElemType::from_type(b.ctx, elem)
        .ok_or_else(|| Diagnostic::error(loc, "element type not supported by the tensor dialect"))?;
    let t = Tensor::from_f64s(e, &[], &[v]).map_err(|m| Diagnostic::error(loc, m))?;
    tensor::constant(b, tensor_to_attr(b.ctx, &t))
}

/// Checks that a logical op works on i1 (bitwise ops on integers are not covered); returns
/// its first operand.
fn logical(b: &Builder<'_>, op: Op, x: Value) -> Result<Value, Diagnostic> {
    if elem_of(b.ctx, b.body.value_type(x)) != b.ctx.i1_type() {
        return Err(unsupported(b.ctx, b.body, op, "bitwise logic on integers (only i1 is covered)"));
    }
    Ok(x)
}

/// `erfc(x) = 1 - erf(x)` (absolute error of `erf`'s; relative error grows for large x).
fn erfc(b: &mut Builder<'_>, x: Value) -> BuildResult {
    let one = scalar(b, elem_of(b.ctx, b.body.value_type(x)), 1.0)?;
    let e = tensor::erf(b, x)?;
    tensor::sub(b, one, e)
}
fn square(b: &mut Builder<'_>, x: Value) -> BuildResult {
    tensor::mul(b, x, x)
}
/// `exp(x) - 1` (not the accurate `expm1` near 0).
fn expm1(b: &mut Builder<'_>, x: Value) -> BuildResult {
    let one = scalar(b, elem_of(b.ctx, b.body.value_type(x)), 1.0)?;
    let e = tensor::exp(b, x)?;
    tensor::sub(b, e, one)
}
/// `log(1 + x)` (not the accurate `log1p` near 0).
fn log1p(b: &mut Builder<'_>, x: Value) -> BuildResult {
    let one = scalar(b, elem_of(b.ctx, b.body.value_type(x)), 1.0)?;
    let s = tensor::add(b, one, x)?;
    tensor::log(b, s)
}

/// StableHLO's remainder has the dividend's sign (C's `fmod`, `%`); `tensor.rem` the divisor's
/// (numpy's): where the two differ (a nonzero result whose sign is not `x`'s), subtract `y`.
fn remainder(b: &mut Builder<'_>, x: Value, y: Value) -> BuildResult {
    let r = tensor::rem(b, x, y)?;
    let zero = scalar(b, elem_of(b.ctx, b.body.value_type(x)), 0.0)?;
    let nonzero = tensor::cmp(b, r, zero, "ne")?;
    let r_neg = tensor::cmp(b, r, zero, "lt")?;
    let x_neg = tensor::cmp(b, x, zero, "lt")?;
    let differ = tensor::cmp(b, r_neg, x_neg, "ne")?;
    let fix = tensor::select(b, nonzero, differ, nonzero)?;
    let shifted = tensor::sub(b, r, y)?;
    tensor::select(b, fix, shifted, r)
}

fn compare(b: &mut Builder<'_>, op: Op, lhs: Value, rhs: Value) -> BuildResult {
    let ctx = b.ctx;
    let pred = b.body.attr(ctx, op, "comparison_direction").and_then(|a| sh::comparison_direction(ctx, a));
    if let Some(t) = b.body.attr(ctx, op, "compare_type").and_then(|a| sh::compare_type(ctx, a)) {
        if t == "TOTALORDER" {
            return Err(unsupported(ctx, b.body, op, "comparison_type TOTALORDER"));
        }
    }
    tensor::cmp(b, lhs, rhs, pred.expect("verified").as_str())
}

/// Operand dim `i` goes to result dim `dims[i]`: transpose the operand so the dims are in
/// order, reshape it to the result's rank (size-1 dims elsewhere), broadcast.
fn broadcast_in_dim(b: &mut Builder<'_>, x: Value, dims: &[i64], ty: Type) -> BuildResult {
    let out = shape_of(b.ctx, ty);
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| dims[i]);
    let mut x = x;
    if order.iter().enumerate().any(|(i, &o)| i != o) {
        let perm: Vec<i64> = order.iter().map(|&o| o as i64).collect();
        x = tensor::transpose(b, x, &perm)?;
    }
    let xs = value_shape(b, x);
    let mut mid = vec![1i64; out.len()];
    for (k, &o) in order.iter().enumerate() {
        mid[dims[o] as usize] = xs[k];
    }
    if mid != xs {
        x = tensor::reshape(b, x, &mid)?;
    }
    if mid != out {
        x = tensor::broadcast_to(b, x, &out)?;
    }
    Ok(x)
}

/// `tensor.matmul` for `x @ W` (contracting lhs's last dim with a 2-d rhs's first) and for
/// batched matmuls (leading batch dims, lhs's last with rhs's second-to-last); `tensor.einsum`
/// otherwise. Operands are cast first when the result has another element type.
fn dot_general(b: &mut Builder<'_>, lhs: Value, rhs: Value, d: &DotDims, ty: Type) -> BuildResult {
    let elem = elem_of(b.ctx, ty);
    let (mut lhs, mut rhs) = (lhs, rhs);
    if elem_of(b.ctx, b.body.value_type(lhs)) != elem {
        lhs = tensor::cast(b, lhs, elem)?;
    }
    if elem_of(b.ctx, b.body.value_type(rhs)) != elem {
        rhs = tensor::cast(b, rhs, elem)?;
    }
    let (lr, rr) = (value_shape(b, lhs).len() as i64, value_shape(b, rhs).len() as i64);
    let nb = d.lhs_batch.len() as i64;
    let leading: Vec<i64> = (0..nb).collect();
    let batch_ok = d.lhs_batch == leading && d.rhs_batch == leading;
    let plain = nb == 0 && rr == 2 && d.lhs_contract == [lr - 1] && d.rhs_contract == [0];
    let matrices = batch_ok && lr == nb + 2 && rr == nb + 2 && d.lhs_contract.len() == 1 && nb > 0;
    if plain || (matrices && d.lhs_contract == [lr - 1] && d.rhs_contract == [nb]) {
        return tensor::matmul(b, lhs, rhs);
    }
    // Batched matrices contracted in other places (attention's `q @ k^T`): swap the last two
    // dims of an operand so that lhs contracts its last dim and rhs its first matrix dim.
    if matrices {
        let swap: Vec<i64> = (0..nb).chain([nb + 1, nb]).collect();
        if d.lhs_contract == [nb] {
            lhs = tensor::transpose(b, lhs, &swap)?;
        }
        if d.rhs_contract == [nb + 1] {
            rhs = tensor::transpose(b, rhs, &swap)?;
        }
        return tensor::matmul(b, lhs, rhs);
    }
    let letters: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
    if (lr + rr) as usize > letters.len() {
        return Err(Diagnostic::error(b.loc(), "dot_general of more than 52 dims is not supported"));
    }
    let lhs_l: Vec<char> = (0..lr as usize).map(|i| letters[i]).collect();
    let mut rhs_l: Vec<char> = (0..rr as usize).map(|i| letters[lr as usize + i]).collect();
    for (l, r) in d.lhs_batch.iter().zip(&d.rhs_batch).chain(d.lhs_contract.iter().zip(&d.rhs_contract)) {
        rhs_l[*r as usize] = lhs_l[*l as usize];
    }
    let mut out: String = d.lhs_batch.iter().map(|&i| lhs_l[i as usize]).collect();
    let used_l: Vec<i64> = d.lhs_batch.iter().chain(&d.lhs_contract).copied().collect();
    let used_r: Vec<i64> = d.rhs_batch.iter().chain(&d.rhs_contract).copied().collect();
    out.extend((0..lr).filter(|i| !used_l.contains(i)).map(|i| lhs_l[i as usize]));
    out.extend((0..rr).filter(|i| !used_r.contains(i)).map(|i| rhs_l[i as usize]));
    let eq = format!("{},{}->{out}", lhs_l.iter().collect::<String>(), rhs_l.iter().collect::<String>());
    tensor::einsum(b, &[lhs, rhs], &eq)
}

/// What a reduce body computes: the tensor.reduce kind and the combining op for the init value.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Combiner {
    Sum,
    Max,
    Min,
    Prod,
    And,
    Or,
}

/// The combiner of a reduce body `(acc, x) -> op(acc, x)` (either argument order).
fn combiner(ctx: &Context, body: &Body, op: Op) -> Option<Combiner> {
    let region = *body.regions(op).first()?;
    let block = body.entry_block(region)?;
    let args = body.block_args(block).to_vec();
    let ops = body.block_op_vec(block);
    let [inner, ret] = ops.as_slice() else { return None };
    let returned = sh::ReturnOp::cast(ctx, body, *ret)?;
    if args.len() != 2 || body.operand_vec(returned.0).as_slice() != [body.result(*inner, 0)] {
        return None;
    }
    let operands = body.operand_vec(*inner);
    if !(operands.as_slice() == [args[0], args[1]] || operands.as_slice() == [args[1], args[0]]) {
        return None;
    }
    let is_bool = elem_of(ctx, body.value_type(args[0])) == ctx.i1_type();
    let def = ctx.op_def(body.op_name(*inner))?;
    let table: [(&OpDef, Combiner); 6] = [
        (sh::AddOp::DEF, Combiner::Sum),
        (sh::MaximumOp::DEF, if is_bool { Combiner::Or } else { Combiner::Max }),
        (sh::MinimumOp::DEF, if is_bool { Combiner::And } else { Combiner::Min }),
        (sh::MultiplyOp::DEF, if is_bool { Combiner::And } else { Combiner::Prod }),
        (sh::AndOp::DEF, Combiner::And),
        (sh::OrOp::DEF, Combiner::Or),
    ];
    let c = table.iter().find(|(d, _)| same(d, def)).map(|&(_, c)| c)?;
    (is_bool == matches!(c, Combiner::And | Combiner::Or)).then_some(c)
}

/// `reduce` with one input and an add/max/min/mul (i1: and/or) body: `tensor.reduce` of the
/// dims, combined with the init value unless it is a constant identity of the combiner.
fn reduce(b: &mut Builder<'_>, op: Op, x: &[Value]) -> Result<Vec<Value>, Diagnostic> {
    let ctx = b.ctx;
    if x.len() != 2 {
        return Err(unsupported(ctx, b.body, op, "reduce of several inputs (e.g. argmax)"));
    }
    let Some(c) = combiner(ctx, b.body, op) else {
        return Err(unsupported(ctx, b.body, op, "reduce whose body is not one add, maximum, minimum, multiply, and or or of its arguments"));
    };
    let dims = b.body.attr(ctx, op, "dimensions").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
    let (input, init) = (x[0], x[1]);
    let identity = init_is_identity(ctx, b.body, init, c);
    let i8t = ctx.i8_type();
    let (kind, src) = match c {
        Combiner::Sum => ("sum", input),
        Combiner::Max => ("max", input),
        Combiner::Min => ("min", input),
        Combiner::Prod => ("prod", input),
        Combiner::And => ("min", tensor::cast(b, input, i8t)?),
        Combiner::Or => ("max", tensor::cast(b, input, i8t)?),
    };
    let mut r = if dims.is_empty() { src } else { tensor::reduce(b, src, kind, &dims, false)? };
    if matches!(c, Combiner::And | Combiner::Or) {
        r = tensor::cast(b, r, ctx.i1_type())?;
    }
    if !identity {
        r = match c {
            Combiner::Sum => tensor::add(b, r, init)?,
            Combiner::Max => tensor::max(b, r, init)?,
            Combiner::Min => tensor::min(b, r, init)?,
            Combiner::Prod => tensor::mul(b, r, init)?,
            Combiner::And => tensor::select(b, r, init, r)?,
            Combiner::Or => tensor::select(b, r, r, init)?,
        };
    }
    Ok(vec![r])
}

/// True if `init` is a (converted) constant equal to the combiner's identity.
fn init_is_identity(ctx: &Context, body: &Body, init: Value, c: Combiner) -> bool {
    let Some(def) = body.defining_op(init) else { return false };
    let Some(value) = tensor::ConstantOp::cast(ctx, body, def).and_then(|_| body.attr(ctx, def, "value")) else {
        return false;
    };
    let Ok(t) = xcs_dialects::interp::tensor_from_attr(ctx, value) else { return false };
    let Some(v) = t.data.to_f64s().and_then(|v| v.first().copied()) else { return false };
    let e = t.elem();
    let int_limit = |max: bool| -> f64 {
        let bits = match e {
            ElemType::I8 => 8,
            ElemType::I16 => 16,
            ElemType::I32 => 32,
            _ => 64,
        };
        if max { (2f64).powi(bits - 1) - 1.0 } else { -(2f64).powi(bits - 1) }
    };
    match c {
        Combiner::Sum => v == 0.0,
        Combiner::Prod => v == 1.0,
        Combiner::Max => v == f64::NEG_INFINITY || (e.is_int() && v == int_limit(false)),
        Combiner::Min => v == f64::INFINITY || (e.is_int() && v == int_limit(true)),
        Combiner::And => v != 0.0,
        Combiner::Or => v == 0.0,
    }
}
