//! The rewrite of one analysed function into the program each device runs, in place and in
//! program order: arguments get their local types; each annotation becomes the reshard it
//! asks for; each op with a loop structure reads its strategy from its operands' layouts and
//! its results' annotations, gets its operands resharded to what the strategy needs, computes
//! on local slices, and has its pending results resolved to their stored layouts; opaque ops
//! get replicated operands (captured values of their regions too) and give replicated results;
//! returns keep their operands' layouts, which become the function's result shardings. At the
//! end the signature is updated and recorded, and the annotations are erased.

use rustc_hash::FxHashMap;
use xcs_dialects::interfaces::partition::SplitReduction;
use xcs_dialects::shard::{Grid, ShardingOp, Signature};
use xcs_ir::attrs::DenseData;
use xcs_ir::interfaces::LoopInfo;
use xcs_ir::{
    AttrKind, Body, Builder, Context, Diagnostic, Op, OpView, OperationState, Region, Traits, Type, TypeKind, Value,
};

use super::analysis::{blocks, Analysis};
use super::layout::Layout;
use super::reshard::{emit, moves, plan, resolve};
use super::strategy::Strategy;
use crate::util;

/// A value of the source function as the devices hold it: the value that holds each device's
/// part now, and how the parts lie.
#[derive(Clone, Debug)]
struct Local {
    value: Value,
    layout: Layout,
}

/// The state of the rewrite of one function.
pub struct Rewrite<'a> {
    ctx: &'a Context,
    an: &'a Analysis,
    locals: FxHashMap<Value, Local>,
    /// The layouts of the function's results, from its first return.
    results: Option<Vec<Layout>>,
    /// The local types of the function's results, from its first return.
    result_types: Option<Vec<Type>>,
    /// Splat constants replaced by local copies somewhere (erased at the end if unused).
    copied_constants: Vec<Op>,
}

impl<'a> Rewrite<'a> {
    pub fn new(ctx: &'a Context, an: &'a Analysis) -> Self {
        Rewrite {
            ctx,
            an,
            locals: FxHashMap::default(),
            results: None,
            result_types: None,
            copied_constants: Vec::new(),
        }
    }

    fn grid(&self) -> &'a Grid {
        &self.an.grid
    }

    /// Rewrites `f`, whose region is `region`.
    pub fn run(mut self, f: &mut Body, region: Region) -> Result<(), Diagnostic> {
        let blocks = blocks(f, region);
        for (i, &block) in blocks.iter().enumerate() {
            for v in f.block_args(block).to_vec() {
                let layout = match i {
                    0 => self.an.stored.get(&v).cloned(),
                    _ => None, // what branches pass is replicated
                };
                self.define(f, v, layout);
            }
            for op in f.block_op_vec(block) {
                self.op(f, op)?;
            }
        }
        let entry_args = blocks.first().map(|&b| f.block_args(b).to_vec()).unwrap_or_default();
        self.signature(f, &entry_args);
        self.cleanup(f)
    }

    /// Records `v` (an argument or an op result kept in place) in `layout` (replicated if
    /// none), giving it its local type.
    fn define(&mut self, f: &mut Body, v: Value, layout: Option<Layout>) {
        let Some(shape) = self.an.shapes.get(&v) else {
            self.locals.insert(
                v,
                Local {
                    value: v,
                    layout: Layout::replicated(0),
                },
            );
            return;
        };
        let layout = layout.unwrap_or_else(|| Layout::replicated(shape.len()));
        let ty = self.local_type(f.value_type(v), shape, &layout);
        f.set_value_type(v, ty);
        self.locals.insert(v, Local { value: v, layout });
    }

    /// The type of a device's part of a tensor of `ty` (global `shape`) in `layout`.
    fn local_type(&self, ty: Type, shape: &[i64], layout: &Layout) -> Type {
        match self.ctx.type_kind(ty) {
            TypeKind::RankedTensor { elem, .. } => self.ctx.tensor_type(&layout.local_shape(self.grid(), shape), *elem),
            _ => ty,
        }
    }

    fn local(&self, f: &Body, at: Op, v: Value) -> Result<Local, Diagnostic> {
        self.locals.get(&v).cloned().ok_or_else(|| {
            let msg = "shard-partition: an operand is defined after its use in block order (only blocks ordered by dominance are supported)";
            Diagnostic::error(f.op_loc(at), msg)
        })
    }

    fn op(&mut self, f: &mut Body, op: Op) -> Result<(), Diagnostic> {
        if let Some(ann) = self.an.annotations.get(&op) {
            let src = self.local(f, op, f.operand(op, 0))?;
            let value = self.reshard(f, op, &src, &ann.layout)?;
            self.locals.insert(
                f.result(op, 0),
                Local {
                    value,
                    layout: ann.layout.clone(),
                },
            );
            return Ok(());
        }
        if ShardingOp::cast(self.ctx, f, op).is_some() {
            for v in f.results(op).collect::<Vec<_>>() {
                self.define(f, v, None);
            }
            return Ok(());
        }
        if util::has_trait(self.ctx, f, op, Traits::ReturnLike) {
            return self.ret(f, op);
        }
        match self.an.loops.get(&op) {
            Some(info) => self.loop_op(f, op, info),
            None => self.opaque(f, op),
        }
    }

    /// `src` resharded to `target` before `at` (with `at`'s location).
    fn reshard(&mut self, f: &mut Body, at: Op, src: &Local, target: &Layout) -> Result<Value, Diagnostic> {
        if src.layout == *target {
            return Ok(src.value);
        }
        if src.layout.is_replicated() {
            if let Some(v) = self.local_splat(f, at, src.value, target) {
                return Ok(v);
            }
        }
        let steps = plan(&src.layout, target);
        let mut b = Builder::before(self.ctx, f, at);
        b.set_loc(b.body.op_loc(at));
        emit(&mut b, self.grid(), src.value, &steps)
    }

    /// A splat constant of `target`'s local shape before `at`, if `v` is made by a splat
    /// constant: every device makes its part itself (the cost model's constants).
    fn local_splat(&mut self, f: &mut Body, at: Op, v: Value, target: &Layout) -> Option<Value> {
        let ctx = self.ctx;
        let c = f
            .defining_op(v)
            .filter(|&c| util::has_trait(ctx, f, c, Traits::ConstantLike))?;
        let value = f.attr(ctx, c, "value")?;
        let AttrKind::DenseElements {
            data: data @ DenseData::Splat(_),
            ..
        } = ctx.attr_kind(value)
        else {
            return None;
        };
        let shape = self.an.shapes.get(&v)?;
        let ty = self.local_type(f.value_type(v), shape, target);
        let local_value = ctx.attr(AttrKind::DenseElements { ty, data: data.clone() });
        let mut st = OperationState::with_name(ctx, f.op_name(c), f.op_loc(at)).results(&[ty]);
        st.attrs = ctx.dict_set(f.attrs(c), ctx.ident("value"), Some(local_value));
        let copy = Builder::before(ctx, f, at).create_state(st);
        self.copied_constants.push(c);
        Some(f.result(copy, 0))
    }

    /// An op computed on local slices per the strategy its layouts ask for.
    fn loop_op(&mut self, f: &mut Body, op: Op, info: &LoopInfo) -> Result<(), Diagnostic> {
        let operands: Vec<Value> = f.operand_vec(op).to_vec();
        let results: Vec<Value> = f.results(op).collect();
        let current: Vec<Local> = operands
            .iter()
            .map(|&v| self.local(f, op, v))
            .collect::<Result<_, _>>()?;
        let layouts: Vec<&Layout> = current.iter().map(|l| &l.layout).collect();
        let votes: Vec<Option<&Layout>> = results.iter().map(|r| self.an.stored.get(r)).collect();
        let strategy = Strategy::read(info, self.grid(), &layouts, &votes);
        for (i, src) in current.iter().enumerate() {
            let value = self.reshard(f, op, src, &strategy.operand(info, i))?;
            f.set_operand(op, i, value);
        }
        let produced: Vec<Layout> = (0..results.len()).map(|r| strategy.produced(info, r)).collect();
        for (r, &v) in results.iter().enumerate() {
            let ty = self.local_type(f.value_type(v), &self.an.shapes[&v], &produced[r]);
            f.set_value_type(v, ty);
        }
        let finish = match strategy.splits_reduction(info) {
            true => self.split_reduction(f, op)?,
            false => None,
        };
        let mut b = Builder::new(self.ctx, f);
        b.set_insertion_point_after(op);
        b.set_loc(b.body.op_loc(op));
        for (r, &v) in results.iter().enumerate() {
            let target = self
                .an
                .stored
                .get(&v)
                .cloned()
                .unwrap_or_else(|| Layout::replicated(produced[r].dims.len()));
            let (steps, resolved) = resolve(&produced[r], &target);
            let mut value = emit(&mut b, self.grid(), v, &steps)?;
            if let Some(rule) = finish {
                value = rule.finish(&mut b, value, Strategy::reduced_count(info))?;
            }
            let value = emit(&mut b, self.grid(), value, &moves(&resolved, &target))?;
            self.locals.insert(v, Local { value, layout: target });
        }
        Ok(())
    }

    /// The op's local form when a reduction loop is split (its `SplitReduction`), if it needs
    /// a finishing step.
    fn split_reduction(&self, f: &mut Body, op: Op) -> Result<Option<&'static dyn SplitReduction>, Diagnostic> {
        let Some(rule) = OpView::new(self.ctx, f, op).interface::<dyn SplitReduction>() else {
            return Ok(None);
        };
        let needs_finish = rule
            .local_part(self.ctx, f, op)
            .map_err(|e| Diagnostic::error(f.op_loc(op), format!("shard-partition: {e}")))?;
        Ok(needs_finish.then_some(rule))
    }

    /// An op without a usable loop structure: replicated tensor operands (and captured
    /// values), replicated results.
    fn opaque(&mut self, f: &mut Body, op: Op) -> Result<(), Diagnostic> {
        for i in 0..f.num_operands(op) {
            let src = self.local(f, op, f.operand(op, i))?;
            let value = self.reshard(f, op, &src, &Layout::replicated(src.layout.dims.len()))?;
            f.set_operand(op, i, value);
        }
        if !f.is_isolated(op) && !f.regions(op).is_empty() {
            self.replicate_captures(f, op)?;
        }
        for v in f.results(op).collect::<Vec<_>>() {
            self.define(f, v, None);
        }
        Ok(())
    }

    /// The values of the function that ops inside `op`'s regions use, replicated before `op`.
    fn replicate_captures(&mut self, f: &mut Body, op: Op) -> Result<(), Diagnostic> {
        let mut inner = Vec::new();
        for &r in f.regions(op).to_vec().iter() {
            f.walk_region_into(r, &mut inner);
        }
        let mut replicated: FxHashMap<Value, Value> = FxHashMap::default();
        for o in inner {
            for i in 0..f.num_operands(o) {
                let v = f.operand(o, i);
                let Some(src) = self.locals.get(&v).cloned() else {
                    continue;
                };
                let value = match replicated.get(&v) {
                    Some(&r) => r,
                    None => {
                        let r = self.reshard(f, op, &src, &Layout::replicated(src.layout.dims.len()))?;
                        replicated.insert(v, r);
                        r
                    }
                };
                f.set_operand(o, i, value);
            }
        }
        Ok(())
    }

    /// A return: the first fixes the function's result layouts (its operands' own), later ones
    /// are resharded to them.
    fn ret(&mut self, f: &mut Body, op: Op) -> Result<(), Diagnostic> {
        let current: Vec<Local> = f
            .operand_vec(op)
            .iter()
            .map(|&v| self.local(f, op, v))
            .collect::<Result<_, _>>()?;
        let targets = match &self.results {
            Some(t) if t.len() == current.len() => t.clone(),
            _ => current.iter().map(|l| l.layout.clone()).collect(),
        };
        for (i, src) in current.iter().enumerate() {
            let value = self.reshard(f, op, src, &targets[i])?;
            f.set_operand(op, i, value);
        }
        self.results.get_or_insert(targets);
        if self.result_types.is_none() {
            self.result_types = Some(f.operand_types(op).to_vec());
        }
        Ok(())
    }

    /// The local function type and the recorded shardings of arguments and results.
    fn signature(&self, f: &mut Body, args: &[Value]) {
        let ctx = self.ctx;
        let Some((_, old_results)) = f
            .self_attr(ctx, "function_type")
            .and_then(|a| xcs_dialects::func::signature(ctx, a))
        else {
            return;
        };
        let inputs: Vec<Type> = args.iter().map(|&v| f.value_type(v)).collect();
        let result_layouts = self.results.clone().unwrap_or_default();
        let results = self.result_types.clone().unwrap_or(old_results);
        let described = |ty: Type, layout: Option<&Layout>| {
            matches!(ctx.type_kind(ty), TypeKind::RankedTensor { .. })
                .then(|| layout.map(Layout::split_axes).unwrap_or_else(|| vec![Vec::new()]))
        };
        let sig = Signature {
            grid: self.grid().name.clone(),
            args: args
                .iter()
                .map(|&v| described(f.value_type(v), self.locals.get(&v).map(|l| &l.layout)))
                .collect(),
            results: results
                .iter()
                .enumerate()
                .map(|(i, &t)| described(t, result_layouts.get(i)))
                .collect(),
        };
        f.set_self_attr(
            ctx,
            "function_type",
            Some(ctx.type_attr(ctx.function_type(&inputs, &results))),
        );
        sig.record(ctx, f);
    }

    /// Erases the annotations (latest first), then the shardings and copied splat constants
    /// nothing uses any more.
    fn cleanup(&self, f: &mut Body) -> Result<(), Diagnostic> {
        for &op in self.an.annotation_ops.iter().rev() {
            if f.results(op).any(|v| f.has_uses(v)) {
                let msg = "shard-partition: internal error: an annotation is still used after partitioning";
                return Err(Diagnostic::error(f.op_loc(op), msg));
            }
            f.erase_op(op);
        }
        let dead = |f: &Body, op: Op| f.contains_op(op) && f.results(op).all(|v| !f.has_uses(v));
        for op in f.top_ops() {
            if ShardingOp::cast(self.ctx, f, op).is_some() && dead(f, op) {
                f.erase_op(op);
            }
        }
        for &op in &self.copied_constants {
            if dead(f, op) {
                f.erase_op(op);
            }
        }
        Ok(())
    }
}
