//! From a function's IR to the model's [`Program`] (`shard-cost-model.md` section 1): its
//! tensor arguments, every op in its blocks as loops (the `LoopStructure` interface), an
//! annotation (`shard.shard`) or opaque (anything else touching a tensor, values its regions
//! capture included), constants (`ConstantLike`) as free values, and the operands of its
//! return-like terminators as results. Shapes must be static: a `?` is a located error.
//! [`IrMap`] remembers which IR value and op each model entity is, for the annotations and
//! the report.

use rustc_hash::FxHashMap;
use xcs_dialects::interfaces::cost::elem_bytes;
use xcs_dialects::shape::ranked;
use xcs_ir::interfaces::{LoopInfo, LoopStructure};
use xcs_ir::opdef::{OpView, Traits};
use xcs_ir::printer::type_to_string;
use xcs_ir::{Block, Body, Context, Diagnostic, Location, Op, Type, Value, DYNAMIC};

use super::mesh::Mesh;
use super::model::{ArgNode, OpKind, OpNode, Operand, Program, ResultNode, TypeId, ValueDef, ValueId, ValueNode};
use super::shard_ir::{self, UserAnnotation};
use super::sharding::{AxisState, Sharding, TensorType};
use crate::util;

/// Where each model entity is in the IR.
#[derive(Clone, Debug, Default)]
pub struct IrMap {
    /// Per model value, the IR value.
    pub values: Vec<Value>,
    /// Per model op, the IR op and, per model operand, the IR operand index (`None` for a value
    /// captured by the op's regions).
    pub ops: Vec<(Op, Vec<Option<usize>>)>,
    /// Per model argument, the entry block argument's position (`None` for arguments of other
    /// blocks).
    pub arg_positions: Vec<Option<usize>>,
    /// Per model result, the return op and the operand index.
    pub results: Vec<(Op, usize)>,
    /// Constant tensor values, with their type.
    pub constants: FxHashMap<Value, TypeId>,
}

/// The options the frontend needs.
pub struct Frontend<'a> {
    pub ctx: &'a Context,
    pub mesh: &'a Mesh,
    /// FLOPs of each op (from cost-annotate), by op.
    pub flops: &'a FxHashMap<Op, f64>,
    /// `outputs=free`: results without an annotation have no requirement.
    pub outputs_free: bool,
    /// The grid's symbol name: user annotations must name it.
    pub grid: &'a str,
}

/// Builds the program of one function body.
struct Builder<'a, 'f> {
    fe: &'a Frontend<'a>,
    f: &'f Body,
    prog: Program,
    map: IrMap,
    types: FxHashMap<TensorType, TypeId>,
    value_of: FxHashMap<Value, ValueId>,
}

impl<'a> Frontend<'a> {
    /// The program of function body `f`, or a located error.
    pub fn build(&self, f: &Body) -> Result<(Program, IrMap), Diagnostic> {
        let mut b = Builder {
            fe: self,
            f,
            prog: Program { mesh: self.mesh.clone(), types: Vec::new(), values: Vec::new(), args: Vec::new(), ops: Vec::new(), results: Vec::new() },
            map: IrMap::default(),
            types: FxHashMap::default(),
            value_of: FxHashMap::default(),
        };
        let Some(&region) = f.root_regions().first() else { return Ok((b.prog, b.map)) };
        let Some(entry) = f.entry_block(region) else { return Ok((b.prog, b.map)) };
        let args = f.block_args(entry).to_vec();
        for (i, &v) in args.iter().enumerate() {
            let loc = f.arg_loc(v).filter(|l| !l.is_unknown()).unwrap_or(f.loc());
            b.add_arg(v, Some(i), None, loc)?;
        }
        b.fix_annotated_args(entry)?;
        let blocks: Vec<Block> = f.region_blocks(region).collect();
        for blk in blocks {
            if blk != entry {
                for &v in f.block_args(blk) {
                    b.add_arg(v, None, Some(Sharding::REPLICATED), f.loc())?;
                }
            }
            for op in f.block_ops(blk) {
                b.add_op(op)?;
            }
        }
        Ok((b.prog, b.map))
    }
}

impl<'a, 'f> Builder<'a, 'f> {
    fn ctx(&self) -> &'a Context {
        self.fe.ctx
    }

    /// The model type of an IR type: `None` for non-tensors, an error for dynamic or unranked
    /// tensors.
    fn tensor_type(&mut self, t: Type, loc: Location) -> Result<Option<TypeId>, Diagnostic> {
        let ctx = self.ctx();
        let text = || type_to_string(ctx, t);
        let Some((shape, elem)) = ranked(ctx, t) else {
            if text().starts_with("tensor<*") {
                return Err(Diagnostic::error(loc, format!("auto-shard: '{}' is unranked; the cost model needs static shapes", text())));
            }
            return Ok(None);
        };
        if shape.contains(&DYNAMIC) {
            return Err(Diagnostic::error(loc, format!("auto-shard: '{}' has a dynamic dim; the cost model needs static shapes", text())));
        }
        let ty = TensorType { shape: shape.iter().map(|&d| d as u64).collect(), esize: elem_bytes(ctx, elem).max(1) as u64 };
        let next = self.prog.types.len();
        let id = *self.types.entry(ty.clone()).or_insert(next);
        if id == next {
            self.prog.types.push(ty);
        }
        Ok(Some(id))
    }

    fn new_value(&mut self, v: Value, ty: TypeId, def: ValueDef) -> ValueId {
        let id = self.prog.values.len();
        self.prog.values.push(ValueNode { ty, def });
        self.map.values.push(v);
        self.value_of.insert(v, id);
        id
    }

    fn add_arg(&mut self, v: Value, position: Option<usize>, fixed: Option<Sharding>, loc: Location) -> Result<(), Diagnostic> {
        let Some(ty) = self.tensor_type(self.f.value_type(v), loc)? else { return Ok(()) };
        let a = self.prog.args.len();
        let value = self.new_value(v, ty, ValueDef::Arg(a));
        self.prog.args.push(ArgNode { value, fixed });
        self.map.arg_positions.push(position);
        Ok(())
    }

    /// The model sharding of a user annotation (axes of size 1 dropped), or a located error.
    fn sharding_of(&self, ann: &UserAnnotation, op: Op) -> Result<Sharding, Diagnostic> {
        let mesh = self.fe.mesh;
        if ann.grid != self.fe.grid {
            let msg = format!("auto-shard: this annotation names the grid @{}, but the plan is for @{}", ann.grid, self.fe.grid);
            return Err(Diagnostic::op_error(self.ctx(), self.f, op, msg));
        }
        let mut s = Sharding::REPLICATED;
        for (d, axes) in ann.split_axes.iter().enumerate() {
            for &i in axes {
                let bad = || Diagnostic::op_error(self.ctx(), self.f, op, format!("auto-shard: the sharding names mesh axis {i}, but the mesh has {} axes", mesh.axes.len()));
                let i = usize::try_from(i).ok().filter(|&i| i < mesh.axes.len()).ok_or_else(bad)?;
                let Some(a) = mesh.active_of(i) else { continue };
                if s.get(a) != AxisState::Replicated {
                    return Err(Diagnostic::op_error(self.ctx(), self.f, op, format!("auto-shard: mesh axis '{}' splits two dims", mesh.axes[i].name)));
                }
                s.set(a, AxisState::Split(d));
            }
        }
        Ok(s)
    }

    /// Arguments with a user annotation (not `annotate_for_users`) are stored as it says.
    fn fix_annotated_args(&mut self, entry: Block) -> Result<(), Diagnostic> {
        for op in self.f.block_ops(entry) {
            let Some(ann) = shard_ir::annotation(self.ctx(), self.f, op) else { continue };
            if ann.for_users {
                continue;
            }
            let Some(&v) = self.value_of.get(&ann.value) else { continue };
            let ValueDef::Arg(a) = self.prog.values[v].def else { continue };
            let s = self.sharding_of(&ann, op)?;
            match self.prog.args[a].fixed {
                Some(old) if old != s => {
                    return Err(Diagnostic::op_error(self.ctx(), self.f, op, "auto-shard: this argument has two different sharding annotations"));
                }
                _ => self.prog.args[a].fixed = Some(s),
            }
        }
        Ok(())
    }

    /// The model operand of IR value `v`.
    fn operand(&mut self, v: Value, loc: Location) -> Result<Operand, Diagnostic> {
        let ty = self.tensor_type(self.f.value_type(v), loc)?;
        Ok(Operand { value: self.value_of.get(&v).copied(), ty })
    }

    /// Values of the function body used inside `op`'s regions.
    fn captured(&self, op: Op) -> Vec<Value> {
        let mut out = Vec::new();
        for &r in self.f.regions(op) {
            let mut ops = Vec::new();
            self.f.walk_region_into(r, &mut ops);
            for inner in ops {
                for v in self.f.operand_vec(inner) {
                    if (self.value_of.contains_key(&v) || self.map.constants.contains_key(&v)) && !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    fn add_op(&mut self, op: Op) -> Result<(), Diagnostic> {
        let (ctx, f) = (self.ctx(), self.f);
        let loc = f.op_loc(op);
        if util::has_trait(ctx, f, op, Traits::ReturnLike) && f.parent_op(op).is_none() {
            return self.add_results(op);
        }
        if util::has_trait(ctx, f, op, Traits::ConstantLike) {
            for v in f.results(op).collect::<Vec<_>>() {
                if let Some(ty) = self.tensor_type(f.value_type(v), loc)? {
                    self.map.constants.insert(v, ty);
                }
            }
            return Ok(());
        }
        if let Some(ann) = shard_ir::annotation(ctx, f, op) {
            let s = self.sharding_of(&ann, op)?;
            let operand = self.operand(ann.value, loc)?;
            return self.push_op(op, vec![operand], vec![Some(0)], OpKind::Annotation(s));
        }
        let mut operands = Vec::new();
        let mut slots = Vec::new();
        for (i, v) in f.operand_vec(op).into_iter().enumerate() {
            operands.push(self.operand(v, loc)?);
            slots.push(Some(i));
        }
        let mut result_types = Vec::new();
        for t in f.result_types(op) {
            result_types.push(self.tensor_type(t, loc)?);
        }
        let loops = self.loops(op, &operands, &result_types);
        let kind = match loops {
            Some(info) => OpKind::Loops(info),
            None => {
                // Opaque: tensor operands only, plus the values its regions capture.
                let keep: Vec<usize> = (0..operands.len()).filter(|&i| operands[i].ty.is_some()).collect();
                operands = keep.iter().map(|&i| operands[i].clone()).collect();
                slots = keep.into_iter().map(Some).collect();
                for v in self.captured(op) {
                    operands.push(self.operand(v, loc)?);
                    slots.push(None);
                }
                if operands.is_empty() && result_types.iter().all(Option::is_none) {
                    return Ok(());
                }
                OpKind::Opaque
            }
        };
        self.push_op(op, operands, slots, kind)
    }

    /// The loop structure of `op` if it declares one, all its operands and results are tensors,
    /// it has no regions, and its loops have static sizes.
    fn loops(&self, op: Op, operands: &[Operand], results: &[Option<TypeId>]) -> Option<LoopInfo> {
        let (ctx, f) = (self.ctx(), self.f);
        if !f.regions(op).is_empty() || f.is_isolated(op) || operands.iter().any(|o| o.ty.is_none()) || results.iter().any(Option::is_none) {
            return None;
        }
        let view = OpView::new(ctx, f, op);
        let info = view.interface::<dyn LoopStructure>()?.loops(&view).ok()?;
        let consistent = info.operands.len() == operands.len() && info.results.len() == results.len() && info.sizes.len() == info.loops.len() && info.sizes.iter().all(|&s| s >= 0);
        consistent.then_some(info)
    }

    fn push_op(&mut self, op: Op, operands: Vec<Operand>, slots: Vec<Option<usize>>, kind: OpKind) -> Result<(), Diagnostic> {
        let (f, loc) = (self.f, self.f.op_loc(op));
        let o = self.prog.ops.len();
        let mut results = Vec::new();
        for (index, v) in f.results(op).collect::<Vec<_>>().into_iter().enumerate() {
            if let Some(ty) = self.tensor_type(f.value_type(v), loc)? {
                results.push(self.new_value(v, ty, ValueDef::Result { op: o, index: results.len() }));
            }
            let _ = index;
        }
        let flops = self.fe.flops.get(&op).copied().unwrap_or(0.0);
        self.prog.ops.push(OpNode { operands, results, flops, kind });
        self.map.ops.push((op, slots));
        Ok(())
    }

    /// The tensor operands of the function's return op become results: required as their
    /// annotation says (`annotate_for_users` just before), else as `outputs` says.
    fn add_results(&mut self, op: Op) -> Result<(), Diagnostic> {
        let (ctx, f) = (self.ctx(), self.f);
        for (i, v) in f.operand_vec(op).into_iter().enumerate() {
            let Some(_) = self.tensor_type(f.value_type(v), f.op_loc(op))? else { continue };
            let annotated = match f.value_def(v) {
                xcs_ir::ValueDef::Result { op: def, .. } => shard_ir::annotation(ctx, f, def).filter(|a| a.for_users).map(|a| (a, def)),
                _ => None,
            };
            let required = match annotated {
                Some((ann, def)) => Some(self.sharding_of(&ann, def)?),
                None if self.fe.outputs_free => None,
                None => Some(Sharding::REPLICATED),
            };
            self.prog.results.push(ResultNode { value: self.value_of.get(&v).copied(), required });
            self.map.results.push((op, i));
        }
        Ok(())
    }
}
