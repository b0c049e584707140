//! The plan report (`--shard-report=FILE`, `schemas/shard_report_schema.json`): per function,
//! its totals, the mesh, each argument's stored sharding, each op's consumed, produced and
//! resolved shardings with its collectives and compute time, and each result's required and
//! final shardings with the reshard steps, and each user annotation with the collectives that
//! reshard its operand. Shardings are lists with one entry per tensor
//! dim: the name of the mesh axis that splits it, or null.

use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value as Json};
use xcs_ir::{Body, Context, LocKind, Value};

use super::build::IrMap;
use super::mesh::{seconds, Mesh};
use super::model::{Model, OpKind, ValueDef};
use super::sharding::{Sharding, Step};
use super::solve::Solution;

/// A sharding as a list: per dim, the axis name or null.
pub fn dims_json(mesh: &Mesh, s: Sharding, rank: usize) -> Json {
    Json::Array(s.dims(mesh.rank(), rank).into_iter().map(|a| a.map_or(Json::Null, |a| Json::String(mesh.name(a).to_string()))).collect())
}

/// The collectives of a reshard, each `{kind, axis, bytes, time_s}` (plus `operand` for the
/// reshard of an operand use).
fn steps_json(mesh: &Mesh, steps: &[Step], operand: Option<usize>) -> Vec<Json> {
    steps
        .iter()
        .map(|s| {
            let mut m = Map::new();
            m.insert("kind".into(), json!(s.kind.name()));
            m.insert("axis".into(), json!(mesh.name(s.axis)));
            m.insert("bytes".into(), json!(s.bytes));
            m.insert("time_s".into(), json!(seconds(s.time)));
            if let Some(i) = operand {
                m.insert("operand".into(), json!(i));
            }
            Json::Object(m)
        })
        .collect()
}

/// Names of the function's top-level values as the printer numbers them: `%argN` for the
/// entry block's arguments, then `%N` per op with results (and per argument of other blocks)
/// in block order; `%N#i` for results of multi-result ops.
pub fn printed_names(f: &Body) -> FxHashMap<Value, String> {
    let mut names = FxHashMap::default();
    let Some(&region) = f.root_regions().first() else { return names };
    let entry = f.entry_block(region);
    let mut n = 0;
    for b in f.region_blocks(region) {
        for (i, &v) in f.block_args(b).iter().enumerate() {
            if Some(b) == entry {
                names.insert(v, format!("%arg{i}"));
            } else {
                names.insert(v, format!("%{n}"));
                n += 1;
            }
        }
        for op in f.block_ops(b) {
            let results: Vec<Value> = f.results(op).collect();
            match results.len() {
                0 => {}
                1 => {
                    names.insert(results[0], format!("%{n}"));
                    n += 1;
                }
                _ => {
                    for (i, &v) in results.iter().enumerate() {
                        names.insert(v, format!("%{n}#{i}"));
                    }
                    n += 1;
                }
            }
        }
    }
    names
}

/// What the report of one function needs.
pub struct FunctionReport<'a> {
    pub ctx: &'a Context,
    pub f: &'a Body,
    pub model: &'a Model,
    pub map: &'a IrMap,
    pub solution: &'a Solution,
    /// `xcs.name` of each entry block argument, if any.
    pub arg_names: Vec<Option<String>>,
}

impl<'a> FunctionReport<'a> {
    fn rank(&self, v: usize) -> usize {
        self.model.program.types[self.model.value_type(v)].rank()
    }

    /// The report object of the function.
    pub fn to_json(&self) -> Json {
        let model = self.model;
        let mesh = model.mesh();
        let e = &self.solution.eval;
        let mut m = Map::new();
        m.insert("total_time_s".into(), json!(seconds(e.total())));
        m.insert("compute_time_s".into(), json!(seconds(e.compute)));
        m.insert("comm_time_s".into(), json!(seconds(e.comm)));
        m.insert("memory_bytes_per_device".into(), json!(e.memory));
        m.insert("optimal".into(), json!(self.solution.optimal));
        m.insert("mesh".into(), json!({"shape": mesh.shape(), "axes": mesh.axes.iter().map(|a| a.name.clone()).collect::<Vec<_>>()}));
        m.insert("arguments".into(), Json::Array(self.arguments()));
        let names = printed_names(self.f);
        m.insert("ops".into(), Json::Array(self.ops(&names)));
        m.insert("results".into(), Json::Array(self.results()));
        m.insert("annotations".into(), Json::Array(self.annotations(&names)));
        Json::Object(m)
    }

    fn arguments(&self) -> Vec<Json> {
        let model = self.model;
        let plan = &self.solution.plan;
        let mut out = Vec::new();
        for (a, arg) in model.program.args.iter().enumerate() {
            let Some(pos) = self.map.arg_positions[a] else { continue };
            let name = self.arg_names.get(pos).cloned().flatten().unwrap_or_else(|| format!("%arg{pos}"));
            let s = model.spaces[model.value_type(arg.value)].states[plan.args[a] as usize];
            out.push(json!({"name": name, "sharding": dims_json(model.mesh(), s, self.rank(arg.value))}));
        }
        out
    }

    /// Per tensor op in program order (annotations excluded); `names`: the values as printed.
    fn ops(&self, names: &FxHashMap<Value, String>) -> Vec<Json> {
        let (ctx, f, model) = (self.ctx, self.f, self.model);
        let mesh = model.mesh();
        let plan = &self.solution.plan;
        let mut out = Vec::new();
        for (o, op) in model.program.ops.iter().enumerate() {
            if matches!(op.kind, OpKind::Annotation(_)) {
                continue;
            }
            let (ir_op, _) = self.map.ops[o];
            let c = &model.choices[o][plan.ops[o] as usize];
            let op_name = ctx.op_name_str(f.op_name(ir_op)).to_string();
            let name = match ctx.loc_kind(f.op_loc(ir_op)) {
                LocKind::Name { name, .. } => ctx.str(name).to_string(),
                _ => f.results(ir_op).next().and_then(|v| names.get(&v).cloned()).unwrap_or_else(|| op_name.clone()),
            };
            let operands: Vec<Json> = op
                .operands
                .iter()
                .enumerate()
                .map(|(i, x)| match x.ty {
                    Some(t) => dims_json(mesh, c.required[i].0, model.program.types[t].rank()),
                    None => Json::Null,
                })
                .collect();
            let mut collectives = Vec::new();
            for (r, &v) in op.results.iter().enumerate() {
                let space = &model.spaces[model.value_type(v)];
                collectives.extend(steps_json(mesh, &space.path(mesh, c.produced[r], c.resolved[r].0), None));
            }
            for (i, x) in op.operands.iter().enumerate() {
                let Some(v) = x.value else { continue };
                let space = &model.spaces[model.value_type(v)];
                let from = space.states[model.value_state(plan, v) as usize];
                collectives.extend(steps_json(mesh, &space.path(mesh, from, c.required[i].0), Some(i)));
            }
            let mut obj = Map::new();
            obj.insert("name".into(), json!(name));
            obj.insert("op".into(), json!(op_name));
            obj.insert("operands".into(), Json::Array(operands));
            let (produced, result) = match op.results.first() {
                Some(&v) => {
                    let rank = self.rank(v);
                    let partial: Vec<&str> = c.produced[0].partial_axes(mesh.rank()).into_iter().map(|a| mesh.name(a)).collect();
                    (json!({"dims": dims_json(mesh, c.produced[0], rank), "partial": partial}), dims_json(mesh, c.resolved[0].0, rank))
                }
                None => (Json::Null, Json::Null),
            };
            obj.insert("produced".into(), produced);
            obj.insert("result".into(), result);
            obj.insert("collectives".into(), Json::Array(collectives));
            obj.insert("compute_s".into(), json!(seconds(c.compute)));
            out.push(Json::Object(obj));
        }
        out
    }

    /// The user's `shard.shard` annotations: each one's value as printed, its sharding,
    /// whether it is `annotate_for_users`, and the collectives that reshard its operand.
    fn annotations(&self, names: &FxHashMap<Value, String>) -> Vec<Json> {
        let (ctx, f, model) = (self.ctx, self.f, self.model);
        let mesh = model.mesh();
        let plan = &self.solution.plan;
        let mut out = Vec::new();
        for (o, op) in model.program.ops.iter().enumerate() {
            let OpKind::Annotation(s) = op.kind else { continue };
            let (ir_op, _) = self.map.ops[o];
            let Some(&v) = op.results.first() else { continue };
            let name = f.results(ir_op).next().and_then(|r| names.get(&r).cloned()).unwrap_or_default();
            let for_users = super::shard_ir::annotation(ctx, f, ir_op).is_some_and(|a| a.for_users);
            let steps = match op.operands.first().and_then(|x| x.value) {
                Some(src) => {
                    let space = &model.spaces[model.value_type(src)];
                    space.path(mesh, space.states[model.value_state(plan, src) as usize], s)
                }
                None => Vec::new(),
            };
            out.push(json!({"name": name, "sharding": dims_json(mesh, s, self.rank(v)), "for_users": for_users, "collectives": steps_json(mesh, &steps, None)}));
        }
        out
    }

    fn results(&self) -> Vec<Json> {
        let model = self.model;
        let mesh = model.mesh();
        let plan = &self.solution.plan;
        let mut out = Vec::new();
        for (r, res) in model.program.results.iter().enumerate() {
            let (_, index) = self.map.results[r];
            let Some(v) = res.value else {
                // A constant: materialised as required.
                out.push(json!({"index": index, "required": Json::Null, "final": Json::Null, "reshard": []}));
                continue;
            };
            let rank = self.rank(v);
            let space = &model.spaces[model.value_type(v)];
            let from = space.states[model.value_state(plan, v) as usize];
            let (required, to, steps) = match res.required {
                Some(s) => (dims_json(mesh, s, rank), s, space.path(mesh, from, s)),
                None => (Json::Null, from, Vec::new()),
            };
            let _ = ValueDef::Arg(0);
            out.push(json!({"index": index, "required": required, "final": dims_json(mesh, to, rank), "reshard": steps_json(mesh, &steps, None)}));
        }
        out
    }
}
