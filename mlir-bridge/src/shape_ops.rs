//! The export of XCS's data-movement and normalization ops to upstream MLIR: `reshape`
//! (`tensor.reshape`, or `collapse_shape`/`expand_shape` to and from rank 0), `broadcast_to`
//! (a copying `linalg.generic`), `slice` and `dynamic_slice` (`tensor.extract_slice`),
//! `dynamic_update_slice` (`tensor.insert_slice`), `concat` (`tensor.concat`), `gather` (a
//! `linalg.generic` whose body does `tensor.extract` of the table), `iota` (`linalg.index`),
//! `extract` (`tensor.extract`) and `layer_norm` (three `linalg.generic`s).

use xcs_dialects::tensor;
use xcs_ir::opdef::OpView;

use crate::export::{Emitter, ExportOp, GenericInput, ScalarBody};
use crate::ops::{bind_result, operand_names};

fn join<T: ToString>(xs: &[T]) -> String {
    xs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// `tensor.reshape` -> `tensor.reshape` with a constant shape operand (row-major in both);
/// to rank 0 `tensor.collapse_shape`, from rank 0 `tensor.expand_shape`.
pub struct Reshape;
impl ExportOp for Reshape {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let (in_ty, out_ty) = (op.operand_type(0), op.result_type(0));
        let (in_shape, _) = e.static_tensor(in_ty)?;
        let (out_shape, _) = e.static_tensor(out_ty)?;
        if in_ty == out_ty {
            bind_result(e, op, x);
            return Ok(());
        }
        let (a, c) = (e.ty(in_ty), e.ty(out_ty));
        let n = e.fresh();
        if out_shape.is_empty() {
            e.line(&format!("{n} = tensor.collapse_shape {x} [] : {a} into {c}"));
        } else if in_shape.is_empty() {
            e.line(&format!("{n} = tensor.expand_shape {x} [] output_shape [{}] : {a} into {c}", join(&out_shape)));
        } else {
            let shape = e.fresh();
            let st = format!("tensor<{}xi64>", out_shape.len());
            e.line(&format!("{shape} = arith.constant dense<[{}]> : {st}", join(&out_shape)));
            // Upstream's op has XCS's name, with the shape as an operand.
            e.line(&format!("{n} = {} {x}({shape}) : ({a}, {st}) -> {c}", tensor::ReshapeOp::DEF.name));
        }
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.broadcast_to` -> a `linalg.generic` copying the operand, whose indexing map reads a
/// broadcast dim (size 1, or missing on the left: numpy's rules) at index 0.
pub struct BroadcastTo;
impl ExportOp for BroadcastTo {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let (in_ty, out_ty) = (op.operand_type(0), op.result_type(0));
        let (in_shape, _) = e.static_tensor(in_ty)?;
        let (out_shape, _) = e.static_tensor(out_ty)?;
        let lead = out_shape.len().checked_sub(in_shape.len()).ok_or("the operand has a higher rank than the result")?;
        let map: Vec<Option<usize>> = (0..in_shape.len())
            .map(|d| if in_shape[d] == 1 && out_shape[lead + d] != 1 { None } else { Some(lead + d) })
            .collect();
        let out_map: Vec<Option<usize>> = (0..out_shape.len()).map(Some).collect();
        let init = e.empty(out_ty);
        let ins = [GenericInput { name: &x, ty: in_ty, map }];
        let n = e.generic(out_shape.len(), &[], &ins, &init, out_ty, &out_map, |_, ins, _| Ok(ins[0].clone()))?;
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.slice` -> `tensor.extract_slice` (offsets `start`, sizes the result's, `stride`).
pub struct Slice;
impl ExportOp for Slice {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let ints = |k: &str| op.attr(k).and_then(|a| op.ctx.as_i64_array(a)).ok_or(format!("missing '{k}'"));
        let (start, stride) = (ints("start")?, ints("stride")?);
        let (in_ty, out_ty) = (op.operand_type(0), op.result_type(0));
        let (sizes, _) = e.static_tensor(out_ty)?;
        e.static_tensor(in_ty)?;
        let n = e.fresh();
        let (a, c) = (e.ty(in_ty), e.ty(out_ty));
        e.line(&format!(
            "{n} = tensor.extract_slice {x}[{}] [{}] [{}] : {a} to {c}",
            join(&start),
            join(&sizes),
            join(&stride)
        ));
        bind_result(e, op, n);
        Ok(())
    }
}

/// The start of each dim of a dynamic slice as an `index`: `tensor.extract` of its 0-d tensor,
/// clamped to `[0, dim - size]` (StableHLO's rule, which XCS's ops keep).
fn clamped_starts(e: &mut Emitter, op: &OpView, first: usize, shape: &[i64], sizes: &[i64]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (d, (&dim, &size)) in shape.iter().zip(sizes).enumerate() {
        let s = e.name(op.operand(first + d))?;
        let st = op.operand_type(first + d);
        let (_, elem) = e.static_tensor(st)?;
        let (sty, ety) = (e.ty(st), e.ty(elem));
        let v = e.fresh();
        e.line(&format!("{v} = {} {s}[] : {sty}", tensor::ExtractOp::DEF.name));
        let zero = e.scalar_const("0", elem);
        let hi = e.scalar_const(&(dim - size).max(0).to_string(), elem);
        let (lo_c, hi_c, ix) = (e.fresh(), e.fresh(), e.fresh());
        e.line(&format!("{lo_c} = arith.maxsi {v}, {zero} : {ety}"));
        e.line(&format!("{hi_c} = arith.minsi {lo_c}, {hi} : {ety}"));
        e.line(&format!("{ix} = arith.index_cast {hi_c} : {ety} to index"));
        out.push(ix);
    }
    Ok(out)
}

/// `tensor.dynamic_slice` -> clamped starts, `tensor.extract_slice` at them.
pub struct DynamicSlice;
impl ExportOp for DynamicSlice {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let (in_ty, out_ty) = (op.operand_type(0), op.result_type(0));
        let (shape, _) = e.static_tensor(in_ty)?;
        let (sizes, _) = e.static_tensor(out_ty)?;
        if op.num_operands() != shape.len() + 1 || sizes.len() != shape.len() {
            return Err("needs one start per dim of the operand".into());
        }
        let starts = clamped_starts(e, op, 1, &shape, &sizes)?;
        let n = e.fresh();
        let (a, c) = (e.ty(in_ty), e.ty(out_ty));
        let ones = vec![1; shape.len()];
        e.line(&format!("{n} = tensor.extract_slice {x}[{}] [{}] [{}] : {a} to {c}", starts.join(", "), join(&sizes), join(&ones)));
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.dynamic_update_slice` -> clamped starts, `tensor.insert_slice` of the update there.
pub struct DynamicUpdateSlice;
impl ExportOp for DynamicUpdateSlice {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let (x, u) = (e.name(op.operand(0))?, e.name(op.operand(1))?);
        let (x_ty, u_ty) = (op.operand_type(0), op.operand_type(1));
        let (shape, _) = e.static_tensor(x_ty)?;
        let (sizes, _) = e.static_tensor(u_ty)?;
        if op.num_operands() != shape.len() + 2 || sizes.len() != shape.len() {
            return Err("needs one start per dim of the operand".into());
        }
        let starts = clamped_starts(e, op, 2, &shape, &sizes)?;
        let n = e.fresh();
        let (a, c) = (e.ty(u_ty), e.ty(x_ty));
        let ones = vec![1; shape.len()];
        e.line(&format!(
            "{n} = tensor.insert_slice {u} into {x}[{}] [{}] [{}] : {a} into {c}",
            starts.join(", "),
            join(&sizes),
            join(&ones)
        ));
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.concat` -> upstream's `tensor.concat` (the same name; the axis as `dim(axis)`).
pub struct Concat;
impl ExportOp for Concat {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let names = operand_names(e, op)?;
        let axis = op.attr("axis").and_then(|a| op.ctx.as_int(a)).ok_or("missing 'axis'")?;
        for &t in op.operand_types().iter() {
            e.static_tensor(t)?;
        }
        let out_ty = op.result_type(0);
        e.static_tensor(out_ty)?;
        let types: Vec<String> = op.operand_types().iter().map(|&t| e.ty(t)).collect();
        let n = e.fresh();
        let c = e.ty(out_ty);
        let name = tensor::ConcatOp::DEF.name;
        e.line(&format!("{n} = {name} dim({axis}) {} : ({}) -> {c}", names.join(", "), types.join(", ")));
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.extract` (of a 0-d integer tensor) -> upstream's `tensor.extract` with no indices.
pub struct Extract;
impl ExportOp for Extract {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let x = e.name(op.operand(0))?;
        let t = e.ty(op.operand_type(0));
        let n = e.fresh();
        e.line(&format!("{n} = {} {x}[] : {t}", tensor::ExtractOp::DEF.name));
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.gather` -> a `linalg.generic` over the result: the indices are its input (at the
/// result's dims `axis .. axis + rank(indices)`), and the body reads the table with
/// `tensor.extract` at the other loops' `linalg.index` and the index. An index outside
/// `[0, size)` is undefined behaviour here (a run-time error in XCS).
pub struct Gather;
impl ExportOp for Gather {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let (table, indices) = (e.name(op.operand(0))?, e.name(op.operand(1))?);
        let (table_ty, idx_ty, out_ty) = (op.operand_type(0), op.operand_type(1), op.result_type(0));
        let (table_shape, _) = e.static_tensor(table_ty)?;
        let (idx_shape, idx_elem) = e.static_tensor(idx_ty)?;
        let (out_shape, _) = e.static_tensor(out_ty)?;
        let axis = op.attr("axis").and_then(|a| op.ctx.as_int(a)).ok_or("missing 'axis'")? as usize;
        let k = idx_shape.len();
        if axis >= table_shape.len() || out_shape.len() != table_shape.len() - 1 + k {
            return Err("the result's rank is not the table's with the axis replaced by the indices' dims".into());
        }
        let idx_map: Vec<Option<usize>> = (axis..axis + k).map(Some).collect();
        let out_map: Vec<Option<usize>> = (0..out_shape.len()).map(Some).collect();
        let init = e.empty(out_ty);
        let ins = [GenericInput { name: &indices, ty: idx_ty, map: idx_map }];
        let (table_t, ie) = (e.ty(table_ty), e.ty(idx_elem));
        let n = e.generic(out_shape.len(), &[], &ins, &init, out_ty, &out_map, |b, ins, _| {
            let i = b.raw(|n| format!("{n} = arith.index_cast {} : {ie} to index", ins[0]));
            let mut at = Vec::new();
            for d in 0..table_shape.len() {
                at.push(match d {
                    _ if d == axis => i.clone(),
                    _ => {
                        let l = if d < axis { d } else { d - 1 + k };
                        b.raw(|n| format!("{n} = linalg.index {l} : index"))
                    }
                });
            }
            let name = tensor::ExtractOp::DEF.name;
            Ok(b.raw(|n| format!("{n} = {name} {table}[{}] : {table_t}", at.join(", "))))
        })?;
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.iota` -> a `linalg.generic` with no input yielding `linalg.index axis` as the
/// element type.
pub struct Iota;
impl ExportOp for Iota {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let out_ty = op.result_type(0);
        let (shape, elem) = e.static_tensor(out_ty)?;
        let axis = op.attr("axis").and_then(|a| op.ctx.as_int(a)).ok_or("missing 'axis'")?;
        let float = e.ctx.is_float(elem);
        let et = e.ty(elem);
        let init = e.empty(out_ty);
        let out_map: Vec<Option<usize>> = (0..shape.len()).map(Some).collect();
        let n = e.generic(shape.len(), &[], &[], &init, out_ty, &out_map, |b, _, _| {
            let i = b.raw(|n| format!("{n} = linalg.index {axis} : index"));
            Ok(if float {
                let w = b.raw(|n| format!("{n} = arith.index_cast {i} : index to i64"));
                b.raw(|n| format!("{n} = arith.sitofp {w} : i64 to {et}"))
            } else {
                b.raw(|n| format!("{n} = arith.index_cast {i} : index to {et}"))
            })
        })?;
        bind_result(e, op, n);
        Ok(())
    }
}

/// `tensor.layer_norm` -> three `linalg.generic`s over the operand: the sum of each row (the
/// normalized dims), the sum of squared deviations from its mean, and `(x - mean) / sqrt(var +
/// epsilon) * gamma + beta` (two passes, epsilon inside the root: the interpreter's formula).
pub struct LayerNorm;
impl ExportOp for LayerNorm {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String> {
        let names = operand_names(e, op)?;
        let ty = op.result_type(0);
        let (shape, elem) = e.static_tensor(ty)?;
        let axis = op.attr("axis").and_then(|a| op.ctx.as_int(a)).ok_or("missing 'axis'")?;
        let rank = shape.len();
        let axis = if axis < 0 { axis + rank as i128 } else { axis } as usize;
        let eps = op.attr("epsilon").and_then(|a| op.ctx.as_float(a)).ok_or("missing 'epsilon'")?;
        if axis >= rank || !e.ctx.is_float(elem) {
            return Err("needs a float operand and an axis within its rank".into());
        }
        let count = format!("{:.1}", shape[axis..].iter().product::<i64>() as f64);
        let eps = format!("{eps:.17e}");
        let row_ty = e.ctx.tensor_type(&shape[..axis], elem);
        let full: Vec<Option<usize>> = (0..rank).map(Some).collect();
        let rows: Vec<Option<usize>> = (0..axis).map(Some).collect();
        let normalized: Vec<Option<usize>> = (axis..rank).map(Some).collect();
        let reductions: Vec<usize> = (axis..rank).collect();
        let x = || GenericInput { name: &names[0], ty, map: full.clone() };
        let init = e.filled(row_ty, "0.0")?;
        let sum = e.generic(rank, &reductions, &[x()], &init, row_ty, &rows, |b, ins, out| {
            Ok(b.op("arith.addf", &[out, &ins[0]], elem))
        })?;
        let mean = |b: &mut ScalarBody, s: &str| {
            let c = b.constant(&count, elem);
            b.op("arith.divf", &[s, &c], elem)
        };
        let init = e.filled(row_ty, "0.0")?;
        let ins = [x(), GenericInput { name: &sum, ty: row_ty, map: rows.clone() }];
        let sq = e.generic(rank, &reductions, &ins, &init, row_ty, &rows, |b, ins, out| {
            let m = mean(b, &ins[1]);
            let d = b.op("arith.subf", &[&ins[0], &m], elem);
            let d2 = b.op("arith.mulf", &[&d, &d], elem);
            Ok(b.op("arith.addf", &[out, &d2], elem))
        })?;
        let param = |i: usize| GenericInput { name: &names[i], ty: op.operand_type(i), map: normalized.clone() };
        let ins = [
            x(),
            GenericInput { name: &sum, ty: row_ty, map: rows.clone() },
            GenericInput { name: &sq, ty: row_ty, map: rows.clone() },
            param(1),
            param(2),
        ];
        let init = e.empty(ty);
        let n = e.generic(rank, &[], &ins, &init, ty, &full, |b, ins, _| {
            let m = mean(b, &ins[1]);
            let var = mean(b, &ins[2]);
            let c = b.constant(&eps, elem);
            let ve = b.op("arith.addf", &[&var, &c], elem);
            let root = b.op("math.sqrt", &[&ve], elem);
            let d = b.op("arith.subf", &[&ins[0], &m], elem);
            let y = b.op("arith.divf", &[&d, &root], elem);
            let g = b.op("arith.mulf", &[&y, &ins[3]], elem);
            Ok(b.op("arith.addf", &[&g, &ins[4]], elem))
        })?;
        bind_result(e, op, n);
        Ok(())
    }
}
