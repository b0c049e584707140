//! The loop structure of the tensor ops (`xcs_ir::interfaces::LoopStructure`): each op's
//! iteration space and the loop that indexes every dim of its operands and results, as linalg's
//! indexing maps or einsum labels (the model of auto-shard, `shard-cost-model.md` section 1).
//! `reshape`, `broadcast_to`, `slice`, `concat` and `gather` declare none: they are opaque.
//!
//! Loop order: the result's dims first (in order), then the loops absent from the result,
//! except for `reduce`, `softmax` and `layer_norm`, whose loops are the operand's dims in order.
//! A dynamic dim gives a loop of size `DYNAMIC`; in a broadcast, a `?` is taken to match the
//! other side (only a static 1 broadcasts).

use xcs_ir::interfaces::{LoopInfo, LoopKind, LoopStructure};
use xcs_ir::opdef::OpView;
use xcs_ir::{Type, DYNAMIC};

use super::{parse_einsum, reduce_axes};
use crate::shape::{norm_axis, ranked};

/// A loop structure given by a function.
pub struct LoopsFn(pub fn(&OpView) -> Result<LoopInfo, String>);

impl LoopStructure for LoopsFn {
    fn loops(&self, op: &OpView) -> Result<LoopInfo, String> {
        (self.0)(op)
    }
}

/// The elementwise ops (numpy broadcasting of all operands): one parallel loop per result dim.
pub static ELEMENTWISE: LoopsFn = LoopsFn(elementwise);
/// `[..., M, K] x [..., K, N]`: the batch dims (broadcast), m and n parallel, then k summed.
pub static MATMUL: LoopsFn = LoopsFn(matmul);
/// One loop per label: the output's labels, then the others (summed) by first appearance.
pub static EINSUM: LoopsFn = LoopsFn(einsum);
/// One loop per operand dim; the reduced ones by kind: `sum`/`mean` a sum, `max`, `min`, and
/// `prod` whole.
pub static REDUCE: LoopsFn = LoopsFn(reduce);
/// One loop per dim; the axis stays whole.
pub static SOFTMAX: LoopsFn = LoopsFn(softmax);
/// One loop per dim of `x`; the normalized dims stay whole and index `gamma` and `beta`.
pub static LAYER_NORM: LoopsFn = LoopsFn(layer_norm);
/// One loop per result dim: result dim `i` and operand dim `perm[i]`.
pub static TRANSPOSE: LoopsFn = LoopsFn(transpose);

fn shape<'a>(op: &OpView<'a>, t: Type) -> Result<&'a [i64], String> {
    ranked(op.ctx, t)
        .map(|(s, _)| s)
        .ok_or_else(|| format!("'{}' is not a ranked tensor", op.ty(t)))
}

/// The loops `0..n`, each indexing the dim of the same number.
fn identity(n: usize) -> Vec<Option<usize>> {
    (0..n).map(Some).collect()
}

/// numpy broadcasting: the dims of `operand`, right-aligned with `target`, whose dim `j` is
/// indexed by loop `first_loop + j`; a static 1 against another size is not indexed.
fn broadcast_map(operand: &[i64], target: &[i64], first_loop: usize) -> Result<Vec<Option<usize>>, String> {
    let offset = target
        .len()
        .checked_sub(operand.len())
        .ok_or("an operand has a higher rank than the result")?;
    Ok(operand
        .iter()
        .enumerate()
        .map(|(d, &size)| {
            let j = offset + d;
            (size != 1 || target[j] == 1).then_some(first_loop + j)
        })
        .collect())
}

fn elementwise(op: &OpView) -> Result<LoopInfo, String> {
    let result = shape(op, op.result_type(0))?;
    let operands = op
        .operand_types()
        .iter()
        .map(|&t| broadcast_map(shape(op, t)?, result, 0))
        .collect::<Result<_, String>>()?;
    Ok(LoopInfo {
        loops: vec![LoopKind::Parallel; result.len()],
        sizes: result.to_vec(),
        operands,
        results: vec![identity(result.len())],
    })
}

fn matmul(op: &OpView) -> Result<LoopInfo, String> {
    let (lhs, rhs) = (shape(op, op.operand_type(0))?, shape(op, op.operand_type(1))?);
    let result = shape(op, op.result_type(0))?;
    if lhs.len() < 2 || rhs.len() < 2 || result.len() < 2 {
        return Err("matmul operands must have rank >= 2".into());
    }
    let batch = &result[..result.len() - 2];
    let (m, n, k) = (batch.len(), batch.len() + 1, batch.len() + 2);
    let (k_lhs, k_rhs) = (lhs[lhs.len() - 1], rhs[rhs.len() - 2]);
    let mut sizes = result.to_vec();
    sizes.push(if k_lhs != DYNAMIC { k_lhs } else { k_rhs });
    let mut lhs_map = broadcast_map(&lhs[..lhs.len() - 2], batch, 0)?;
    lhs_map.extend([Some(m), Some(k)]);
    let mut rhs_map = broadcast_map(&rhs[..rhs.len() - 2], batch, 0)?;
    rhs_map.extend([Some(k), Some(n)]);
    let mut loops = vec![LoopKind::Parallel; result.len()];
    loops.push(LoopKind::ReduceSum);
    Ok(LoopInfo {
        loops,
        sizes,
        operands: vec![lhs_map, rhs_map],
        results: vec![identity(result.len())],
    })
}

fn einsum(op: &OpView) -> Result<LoopInfo, String> {
    let equation = op
        .attr("equation")
        .and_then(|a| op.ctx.as_str(a))
        .ok_or("missing 'equation'")?;
    let eq = parse_einsum(equation, op.num_operands())?;
    // The loops' labels: the output's, then the others by first appearance.
    let mut labels = eq.output.clone();
    for &c in eq.inputs.iter().flatten() {
        if !labels.contains(&c) {
            labels.push(c);
        }
    }
    let loop_of = |c: char| labels.iter().position(|&l| l == c);
    let mut sizes = vec![DYNAMIC; labels.len()];
    let mut operands = Vec::with_capacity(eq.inputs.len());
    for (i, input) in eq.inputs.iter().enumerate() {
        let dims = shape(op, op.operand_type(i))?;
        if dims.len() != input.len() {
            return Err(format!(
                "einsum operand #{i} has rank {} but {} labels",
                dims.len(),
                input.len()
            ));
        }
        for (&c, &d) in input.iter().zip(dims) {
            let size = &mut sizes[loop_of(c).expect("every input label has a loop")];
            if *size == DYNAMIC {
                *size = d;
            }
        }
        operands.push(input.iter().map(|&c| loop_of(c)).collect());
    }
    let mut loops = vec![LoopKind::Parallel; eq.output.len()];
    loops.resize(labels.len(), LoopKind::ReduceSum);
    Ok(LoopInfo {
        loops,
        sizes,
        operands,
        results: vec![identity(eq.output.len())],
    })
}

fn reduce(op: &OpView) -> Result<LoopInfo, String> {
    let x = shape(op, op.operand_type(0))?;
    let axes_attr = op
        .attr("axes")
        .and_then(|a| op.ctx.as_i64_array(a))
        .ok_or("missing 'axes'")?;
    let axes = reduce_axes(&axes_attr, x.len())?;
    let keepdims = op.attr("keepdims").and_then(|a| op.ctx.as_bool(a)).unwrap_or(false);
    let reduced = match op.attr("kind").and_then(|a| op.ctx.as_str(a)) {
        Some("sum" | "mean") => LoopKind::ReduceSum,
        Some("max") => LoopKind::ReduceMax,
        Some("min") => LoopKind::ReduceMin,
        Some("prod") => LoopKind::Whole,
        other => return Err(format!("unknown reduction kind {other:?}")),
    };
    let loops = (0..x.len())
        .map(|d| if axes.contains(&d) { reduced } else { LoopKind::Parallel })
        .collect();
    let result = (0..x.len())
        .filter_map(|d| match axes.contains(&d) {
            false => Some(Some(d)),
            true => keepdims.then_some(None),
        })
        .collect();
    Ok(LoopInfo {
        loops,
        sizes: x.to_vec(),
        operands: vec![identity(x.len())],
        results: vec![result],
    })
}

fn softmax(op: &OpView) -> Result<LoopInfo, String> {
    let x = shape(op, op.operand_type(0))?;
    let axis_attr = op.attr("axis").and_then(|a| op.ctx.as_int(a)).ok_or("missing 'axis'")?;
    let axis = norm_axis(axis_attr as i64, x.len())?;
    let loops = (0..x.len())
        .map(|d| if d == axis { LoopKind::Whole } else { LoopKind::Parallel })
        .collect();
    Ok(LoopInfo {
        loops,
        sizes: x.to_vec(),
        operands: vec![identity(x.len())],
        results: vec![identity(x.len())],
    })
}

fn layer_norm(op: &OpView) -> Result<LoopInfo, String> {
    let x = shape(op, op.operand_type(0))?;
    let axis_attr = op.attr("axis").and_then(|a| op.ctx.as_int(a)).ok_or("missing 'axis'")?;
    let axis = norm_axis(axis_attr as i64, x.len())?;
    let loops = (0..x.len())
        .map(|d| if d >= axis { LoopKind::Whole } else { LoopKind::Parallel })
        .collect();
    let normalized: Vec<Option<usize>> = (axis..x.len()).map(Some).collect();
    Ok(LoopInfo {
        loops,
        sizes: x.to_vec(),
        operands: vec![identity(x.len()), normalized.clone(), normalized],
        results: vec![identity(x.len())],
    })
}

fn transpose(op: &OpView) -> Result<LoopInfo, String> {
    let result = shape(op, op.result_type(0))?;
    let perm = op
        .attr("perm")
        .and_then(|a| op.ctx.as_i64_array(a))
        .ok_or("missing 'perm'")?;
    let mut operand = vec![None; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        *operand.get_mut(p as usize).ok_or("perm out of range")? = Some(i);
    }
    Ok(LoopInfo {
        loops: vec![LoopKind::Parallel; result.len()],
        sizes: result.to_vec(),
        operands: vec![operand],
        results: vec![identity(result.len())],
    })
}

#[cfg(test)]
mod tests {
    use xcs_ir::interfaces::{LoopInfo, LoopKind, LoopStructure};
    use xcs_ir::opdef::OpView;
    use xcs_ir::parser::{parse_module, ParseOptions};
    use xcs_ir::DYNAMIC;

    use LoopKind::{Parallel, ReduceMax, ReduceMin, ReduceSum, Whole};

    /// The loop structure of the one tensor op in `func @f(ARGS) { OP; return }`, found
    /// through the op's declaration.
    fn loops_of(args: &str, op: &str) -> Result<LoopInfo, String> {
        let ctx = crate::context();
        let src = format!("func.func @f({args}) {{\n  %r = {op}\n  return\n}}\n");
        let m = parse_module(&ctx, &src, "t.mlir", &ParseOptions::default())
            .unwrap_or_else(|d| panic!("{}\n{src}", d.message));
        let func = m.body.top_ops()[0];
        let body = m.body.nested(func).unwrap();
        let op = body.walk_ops()[0];
        let view = OpView::new(&ctx, body, op);
        let rule = view
            .interface::<dyn LoopStructure>()
            .unwrap_or_else(|| panic!("'{}' declares no loop structure", view.name()));
        rule.loops(&view)
    }

    fn all(n: usize) -> Vec<Option<usize>> {
        (0..n).map(Some).collect()
    }

    #[test]
    fn elementwise_ops_have_one_parallel_loop_per_result_dim() {
        let info = loops_of(
            "%a: tensor<2x3xf32>, %b: tensor<2x3xf32>",
            "tensor.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>",
        )
        .unwrap();
        assert_eq!(
            info,
            LoopInfo {
                loops: vec![Parallel; 2],
                sizes: vec![2, 3],
                operands: vec![all(2), all(2)],
                results: vec![all(2)]
            }
        );
        let info = loops_of("%a: tensor<4xf32>", "tensor.exp %a : (tensor<4xf32>) -> tensor<4xf32>").unwrap();
        assert_eq!(info.operands, vec![all(1)]);
    }

    #[test]
    fn broadcast_operand_dims_are_right_aligned_and_size_one_dims_are_not_indexed() {
        // [3] and [4, 1] against [4, 3]: the bias is the last dim; the column's 1 is broadcast.
        let info = loops_of(
            "%a: tensor<4x1xf32>, %b: tensor<3xf32>",
            "tensor.mul %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>",
        )
        .unwrap();
        assert_eq!(info.sizes, vec![4, 3]);
        assert_eq!(info.operands, vec![vec![Some(0), None], vec![Some(1)]]);
        // select broadcasts its condition too; a size-1 dim of a size-1 result is indexed.
        let info = loops_of(
            "%c: tensor<1x1xi1>, %a: tensor<1x5xf32>, %b: tensor<1x5xf32>",
            "tensor.select %c, %a, %b : (tensor<1x1xi1>, tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<1x5xf32>",
        )
        .unwrap();
        assert_eq!(info.operands[0], vec![Some(0), None]);
        assert_eq!(info.operands[1], all(2));
    }

    #[test]
    fn dynamic_dims_give_dynamic_loops_and_a_static_one_against_them_broadcasts() {
        let info = loops_of(
            "%a: tensor<?x8xf32>, %b: tensor<1x8xf32>",
            "tensor.sub %a, %b : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>",
        )
        .unwrap();
        assert_eq!(info.sizes, vec![DYNAMIC, 8]);
        assert_eq!(info.operands, vec![all(2), vec![None, Some(1)]]);
        let info = loops_of(
            "%a: tensor<?x?xf32>, %b: tensor<?x?xf32>",
            "tensor.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>",
        )
        .unwrap();
        assert_eq!(info.sizes, vec![DYNAMIC; 3]);
    }

    #[test]
    fn matmul_sums_over_k_and_broadcasts_batch_dims() {
        let info = loops_of(
            "%a: tensor<5x1x2x3xf32>, %b: tensor<4x3x7xf32>",
            "tensor.matmul %a, %b : (tensor<5x1x2x3xf32>, tensor<4x3x7xf32>) -> tensor<5x4x2x7xf32>",
        )
        .unwrap();
        // loops: batch 5, batch 4, m, n, k
        assert_eq!(info.loops, vec![Parallel, Parallel, Parallel, Parallel, ReduceSum]);
        assert_eq!(info.sizes, vec![5, 4, 2, 7, 3]);
        assert_eq!(info.operands[0], vec![Some(0), None, Some(2), Some(4)]);
        assert_eq!(info.operands[1], vec![Some(1), Some(4), Some(3)]);
        assert_eq!(info.results, vec![all(4)]);
    }

    #[test]
    fn matmul_takes_k_from_the_rhs_when_the_lhs_has_it_dynamic() {
        let info = loops_of(
            "%a: tensor<2x?xf32>, %b: tensor<6x3xf32>",
            "tensor.matmul %a, %b : (tensor<2x?xf32>, tensor<6x3xf32>) -> tensor<2x3xf32>",
        )
        .unwrap();
        assert_eq!(info.sizes, vec![2, 3, 6]);
        assert_eq!(info.operands, vec![vec![Some(0), Some(2)], vec![Some(2), Some(1)]]);
    }

    #[test]
    fn einsum_has_the_output_labels_then_the_summed_labels() {
        let info = loops_of(
            "%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x6x8xf32>",
            "tensor.einsum %q, %k {equation = \"bhse,bhte->bhst\"} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x5x6xf32>",
        )
        .unwrap();
        // loops b, h, s, t, then e
        assert_eq!(info.loops, vec![Parallel, Parallel, Parallel, Parallel, ReduceSum]);
        assert_eq!(info.sizes, vec![2, 4, 5, 6, 8]);
        assert_eq!(
            info.operands,
            vec![
                vec![Some(0), Some(1), Some(2), Some(4)],
                vec![Some(0), Some(1), Some(3), Some(4)]
            ]
        );
        assert_eq!(info.results, vec![all(4)]);
    }

    #[test]
    fn einsum_repeated_labels_in_one_operand_share_a_loop() {
        // the diagonal: both dims of the operand are loop i
        let info = loops_of(
            "%a: tensor<3x3xf32>",
            "tensor.einsum %a {equation = \"ii->i\"} : (tensor<3x3xf32>) -> tensor<3xf32>",
        )
        .unwrap();
        assert_eq!(info.loops, vec![Parallel]);
        assert_eq!(info.operands, vec![vec![Some(0), Some(0)]]);
        // the trace: one summed loop
        let info = loops_of(
            "%a: tensor<3x3xf32>",
            "tensor.einsum %a {equation = \"ii->\"} : (tensor<3x3xf32>) -> tensor<f32>",
        )
        .unwrap();
        assert_eq!(info.loops, vec![ReduceSum]);
        assert_eq!(info.sizes, vec![3]);
        assert_eq!(info.results, vec![vec![]]);
    }

    #[test]
    fn einsum_label_sizes_come_from_a_static_dim_of_any_operand() {
        let info = loops_of(
            "%a: tensor<?x4xf32>, %b: tensor<4x5xf32>",
            "tensor.einsum %a, %b {equation = \"ij,jk->ik\"} : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>",
        )
        .unwrap();
        assert_eq!(info.sizes, vec![DYNAMIC, 5, 4]);
    }

    #[test]
    fn reduce_kinds_give_their_reduction_loops() {
        let kind = |k: &str| {
            let op = format!("tensor.reduce %a {{kind = \"{k}\", axes = array<i64: 1>, keepdims = false}} : (tensor<2x3xf32>) -> tensor<2xf32>");
            loops_of("%a: tensor<2x3xf32>", &op).unwrap().loops[1]
        };
        assert_eq!(kind("sum"), ReduceSum);
        assert_eq!(kind("mean"), ReduceSum);
        assert_eq!(kind("max"), ReduceMax);
        assert_eq!(kind("min"), ReduceMin);
        assert_eq!(kind("prod"), Whole);
        let info = loops_of(
            "%a: tensor<2x3x4xf32>",
            "tensor.reduce %a {kind = \"sum\", axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>",
        )
        .unwrap();
        assert_eq!(info.loops, vec![ReduceSum, Parallel, ReduceSum]);
        assert_eq!(info.sizes, vec![2, 3, 4]);
        assert_eq!(info.operands, vec![all(3)]);
        assert_eq!(info.results, vec![vec![Some(1)]]);
    }

    #[test]
    fn reduce_keepdims_dims_are_not_indexed_in_the_result() {
        let info = loops_of(
            "%a: tensor<2x3xf32>",
            "tensor.reduce %a {kind = \"max\", axes = array<i64: -1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>",
        )
        .unwrap();
        assert_eq!(info.loops, vec![Parallel, ReduceMax]);
        assert_eq!(info.results, vec![vec![Some(0), None]]);
    }

    #[test]
    fn softmax_keeps_its_axis_whole() {
        let info = loops_of(
            "%a: tensor<2x3x4xf32>",
            "tensor.softmax %a {axis = 1} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>",
        )
        .unwrap();
        assert_eq!(info.loops, vec![Parallel, Whole, Parallel]);
        assert_eq!(info.operands, vec![all(3)]);
        assert_eq!(info.results, vec![all(3)]);
    }

    #[test]
    fn layer_norm_keeps_the_normalized_dims_whole_and_they_index_gamma_and_beta() {
        let info = loops_of(
            "%x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>, %b: tensor<3x4xf32>",
            "tensor.layer_norm %x, %g, %b {axis = -2, epsilon = 1.0e-05 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>",
        )
        .unwrap();
        assert_eq!(info.loops, vec![Parallel, Whole, Whole]);
        assert_eq!(
            info.operands,
            vec![all(3), vec![Some(1), Some(2)], vec![Some(1), Some(2)]]
        );
        assert_eq!(info.results, vec![all(3)]);
    }

    #[test]
    fn transpose_result_dim_i_is_operand_dim_perm_i() {
        let info = loops_of(
            "%a: tensor<2x3x4xf32>",
            "tensor.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
        )
        .unwrap();
        assert_eq!(info.sizes, vec![4, 2, 3]);
        // operand dim 0 (size 2) is result dim 1, dim 1 is result dim 2, dim 2 is result dim 0
        assert_eq!(info.operands, vec![vec![Some(1), Some(2), Some(0)]]);
        assert_eq!(info.results, vec![all(3)]);
    }

    #[test]
    fn layout_ops_declare_no_loop_structure() {
        let ctx = crate::context();
        for name in [
            "tensor.reshape",
            "tensor.broadcast_to",
            "tensor.slice",
            "tensor.concat",
            "tensor.gather",
            "tensor.constant",
            "tensor.fused",
        ] {
            assert!(
                ctx.interface::<dyn LoopStructure>(ctx.op_name(name)).is_none(),
                "{name}"
            );
        }
        for name in [
            "tensor.add",
            "tensor.gelu",
            "tensor.cmp",
            "tensor.cast",
            "tensor.matmul",
            "tensor.einsum",
        ] {
            assert!(
                ctx.interface::<dyn LoopStructure>(ctx.op_name(name)).is_some(),
                "{name}"
            );
        }
    }
}
