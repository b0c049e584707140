//! `auto-shard` (issue 18, seed 001's `shard_map` auto-sharding): the optimal sharding of
//! every tensor of each public function under the cost model of `docs/shard-cost-model.md`
//! (the pass is described in `docs/shard.md`), found by exact variable elimination (an anytime
//! search past the budget), written back as `shard` annotations in upstream's style and, on
//! request, as a JSON report. The parts: [`mesh`] and [`sharding`] (the model's vocabulary),
//! [`model`] (programs, choices, evaluation), [`build`] (IR to model), [`flops`],
//! [`problem`] + [`eliminate`] + [`pareto`] + [`local`] + [`solve`] (the solver),
//! [`shard_ir`] (the dialect as the pass reads and writes it), [`report`].

pub mod build;
pub mod eliminate;
pub mod flops;
pub mod local;
pub mod mesh;
pub mod model;
pub mod pareto;
pub mod problem;
pub mod report;
pub mod shard_ir;
pub mod sharding;
pub mod solve;

use std::time::Duration;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value as Json};
use xcs_ir::opdef::Traits;
use xcs_ir::pass::{EnumValue, IntKind, OptionKind, OptionSpec, Pass, PassInfo, PassOptions, PassRegistry, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic, Op};

use self::build::Frontend;
use self::mesh::{parse_bytes, parse_per_axis, parse_shape, Mesh, MeshAxis};
use self::model::Model;
use self::report::FunctionReport;
use self::solve::{Options, Solution};
use crate::util;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "alpha", kind: OptionKind::StrList, default: "", description: "Latency of one collective per mesh axis, seconds (one value per axis, or one for all; default 1e-5)" },
    OptionSpec { name: "axes", kind: OptionKind::StrList, default: "", description: "Names of the mesh axes (default: the grid's, else a0,a1,...)" },
    OptionSpec { name: "bandwidth", kind: OptionKind::StrList, default: "", description: "Bandwidth per mesh axis, bytes/s (one value per axis, or one for all; default 1e11)" },
    OptionSpec { name: "max-states", kind: OptionKind::Int(IntKind::ULong), default: "400000000", description: "Deterministic budget of the solver: combinations evaluated by exact elimination (Pareto points with a memory limit) and by the anytime search" },
    OptionSpec { name: "memory-limit", kind: OptionKind::Str, default: "", description: "Memory per device: bytes, or with a KiB/MiB/GiB suffix (default: none)" },
    OptionSpec { name: "mesh", kind: OptionKind::Str, default: "", description: "Mesh shape, e.g. 2x4 (default: the module's shard.grid)" },
    OptionSpec { name: "outputs", kind: OptionKind::Enum(OUTPUTS), default: "replicated", description: "Required sharding of results without an annotation" },
    OptionSpec { name: "peak-flops", kind: OptionKind::Str, default: "1e14", description: "Peak FLOP/s of one device" },
    OptionSpec { name: "report", kind: OptionKind::Str, default: "", description: "Write the plans as JSON into this file (xcs-opt --shard-report=FILE sets it; schemas/shard_report_schema.json)" },
    OptionSpec { name: "time-budget-ms", kind: OptionKind::Int(IntKind::ULong), default: "0", description: "Wall-clock bound of the anytime search, milliseconds (0: none; the result then depends on the host's speed)" },
];

const OUTPUTS: &[EnumValue] = &[
    EnumValue { name: "replicated", description: "results are required replicated" },
    EnumValue { name: "free", description: "results may stay in any sharding" },
];

pub const INFO: PassInfo = PassInfo {
    argument: "auto-shard",
    name: "AutoShard",
    summary: "Choose the optimal sharding of every tensor over a device mesh",
    description: "Finds, for each public function, the plan (a sharding of every argument, a strategy and \
a resolution for every op) of least modelled time under the cost model of `docs/shard-cost-model.md` (see `docs/shard.md`): \
compute split over the mesh axes an op's loops use, collectives priced by latency and bandwidth per \
axis, reshards as shortest paths, memory per device within `memory-limit`. The solver is exact \
(variable elimination, over time/memory Pareto sets under a memory limit) when its work fits in \
`max-states`, else an anytime search (the report then says `optimal: false`). The plan is written \
in upstream's style: a `shard.grid` (added, or the module's own), `shard.shard` on every tensor \
value with its sharding and `shard.shard ... annotate_for_users` on each use that needs another. \
User `shard.shard` annotations are constraints. Shapes must be static.",
    options: OPTIONS,
    factory,
};

/// The pass and its parsed options.
pub struct AutoShard {
    pub mesh_shape: Option<Vec<u64>>,
    pub axes: Vec<String>,
    pub alpha: Vec<String>,
    pub bandwidth: Vec<String>,
    pub peak_flops: f64,
    pub outputs_free: bool,
    pub solver: Options,
    pub report: Option<String>,
}

fn factory(o: &PassOptions, _: &PassRegistry) -> Result<Box<dyn Pass>, String> {
    let mesh_text = o.str("mesh");
    let mesh_shape = if mesh_text.trim().is_empty() { None } else { Some(parse_shape(mesh_text)?) };
    let peak_flops = o.str("peak-flops").trim().parse::<f64>().ok().filter(|v| *v > 0.0 && v.is_finite());
    let peak_flops = peak_flops.ok_or_else(|| format!("auto-shard: peak-flops='{}' is not a positive number", o.str("peak-flops")))?;
    let memory_limit = match o.str("memory-limit").trim() {
        "" => None,
        s => Some(parse_bytes(s).map_err(|e| format!("auto-shard: {e}"))?),
    };
    let pass = AutoShard {
        mesh_shape,
        axes: o.str_list("axes").to_vec(),
        alpha: o.str_list("alpha").to_vec(),
        bandwidth: o.str_list("bandwidth").to_vec(),
        peak_flops,
        outputs_free: o.str("outputs") == "free",
        solver: Options {
            memory_limit,
            max_states: o.int("max-states").max(1) as u128,
            time_budget: match o.int("time-budget-ms") {
                0 => None,
                ms => Some(Duration::from_millis(ms as u64)),
            },
        },
        report: Some(o.str("report").to_string()).filter(|s| !s.is_empty()),
    };
    if let Some(shape) = &pass.mesh_shape {
        pass.mesh(shape, &[]).map_err(|e| format!("auto-shard: {e}"))?;
    }
    Ok(Box::new(pass))
}

impl AutoShard {
    /// The mesh of `shape`, with the axis names of the options, else `grid_axes`, else
    /// `a0, a1, ...`.
    fn mesh(&self, shape: &[u64], grid_axes: &[String]) -> Result<Mesh, String> {
        let n = shape.len();
        let names: Vec<String> = if !self.axes.is_empty() {
            self.axes.iter().map(|s| s.trim().to_string()).collect()
        } else if !grid_axes.is_empty() {
            grid_axes.to_vec()
        } else {
            (0..n).map(|i| format!("a{i}")).collect()
        };
        if names.len() != n {
            return Err(format!("axes= names {} axes but the mesh has {n}", names.len()));
        }
        for (i, a) in names.iter().enumerate() {
            if a.is_empty() || names[..i].contains(a) {
                return Err(format!("axes=: the axis name '{a}' is empty or repeated"));
            }
        }
        let alpha = parse_per_axis("alpha", &self.alpha, n, 1e-5)?;
        let bandwidth = parse_per_axis("bandwidth", &self.bandwidth, n, 1e11)?;
        let axes = (0..n)
            .map(|i| MeshAxis { name: names[i].clone(), size: shape[i], alpha: alpha[i], bandwidth: bandwidth[i] })
            .collect();
        Mesh::new(axes, self.peak_flops)
    }
}

impl Pass for AutoShard {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, module: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        util::require_symbol_table(ctx, module, "AutoShard", diags)?;
        let grid = shard_ir::Grid::find(ctx, module).map_err(|d| diags.emit(d))?;
        let shape = match (&self.mesh_shape, &grid) {
            (Some(s), Some(g)) if *s != g.shape => {
                let d = Diagnostic::error(g.loc, format!("auto-shard: mesh={} disagrees with the module's grid @{} (shape = {})", shape_text(s), g.name, shape_text(&g.shape)));
                diags.emit(d);
                return Err(());
            }
            (Some(s), _) => s.clone(),
            (None, Some(g)) => g.shape.clone(),
            (None, None) => {
                diags.emit(Diagnostic::error(module.loc(), "auto-shard: no mesh: give mesh= (e.g. mesh=2x4) or put a shard.grid in the module"));
                return Err(());
            }
        };
        let grid_axes = grid.as_ref().map(|g| g.axes.clone()).unwrap_or_default();
        let mesh = self.mesh(&shape, &grid_axes).map_err(|e| diags.emit(Diagnostic::error(module.loc(), format!("auto-shard: {e}"))))?;
        let functions: Vec<Op> = module
            .top_ops()
            .into_iter()
            .filter(|&op| util::has_trait(ctx, module, op, Traits::FunctionLike) && util::is_public(ctx, module, op))
            .filter(|&op| module.nested(op).is_some_and(|f| f.root_regions().first().is_some_and(|&r| f.entry_block(r).is_some())))
            .collect();
        let flops = flops::module_flops(ctx, module, &functions).map_err(|e| diags.emit(Diagnostic::error(module.loc(), format!("auto-shard: cannot count FLOPs: {e}"))))?;
        if let Some(g) = &grid {
            let names: Vec<&str> = mesh.axes.iter().map(|a| a.name.as_str()).collect();
            if !g.axes.is_empty() && g.axes != names {
                let msg = format!("auto-shard: axes={} disagrees with the axis names of the grid @{} ({})", names.join(","), g.name, g.axes.join(","));
                diags.emit(Diagnostic::error(g.loc, msg));
                return Err(());
            }
        }
        let grid_name = match &grid {
            Some(g) => {
                if !self.axes.is_empty() {
                    shard_ir::name_grid_axes(ctx, module, &g.name, &mesh);
                }
                g.name.clone()
            }
            None => shard_ir::add_grid(ctx, module, &mesh),
        };
        let mut reports = Map::new();
        let mut failed = false;
        for func in functions {
            let name = util::symbol_name(ctx, module, func).unwrap_or("").to_string();
            let empty = FxHashMap::default();
            let fe = Frontend { ctx, mesh: &mesh, flops: flops.get(&func).unwrap_or(&empty), outputs_free: self.outputs_free, grid: &grid_name };
            let Some(f) = module.nested_mut(func) else { continue };
            match self.function(ctx, &fe, f, &grid_name) {
                Ok(json) => {
                    reports.insert(name, json);
                }
                Err(d) => {
                    diags.emit(d);
                    failed = true;
                }
            }
        }
        if failed {
            return Err(());
        }
        if let Some(file) = &self.report {
            let text = serde_json::to_string_pretty(&Json::Object(reports)).unwrap_or_default() + "\n";
            if let Err(e) = std::fs::write(file, text) {
                diags.emit(Diagnostic::error(module.loc(), format!("auto-shard: cannot write the report '{file}': {e}")));
                return Err(());
            }
        }
        Ok(PassResult::Changed)
    }
}

fn shape_text(s: &[u64]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x")
}

impl AutoShard {
    /// Plans one function, annotates it and returns its report.
    fn function(&self, ctx: &Context, fe: &Frontend, f: &mut Body, grid: &str) -> Result<Json, Diagnostic> {
        let (program, map) = fe.build(f)?;
        let model = Model::new(program).map_err(|e| Diagnostic::error(f.loc(), format!("auto-shard: {e}")))?;
        let solution = match solve::solve(&model, &self.solver) {
            Ok(s) => s,
            Err(inf) => return Err(self.infeasible(ctx, f, &model, &map, &inf.least)),
        };
        let json = match &self.report {
            Some(_) => FunctionReport { ctx, f, model: &model, map: &map, solution: &solution, arg_names: arg_names(ctx, f) }.to_json(),
            None => Json::Null,
        };
        shard_ir::annotate(ctx, f, &model, &map, &solution.plan, grid)?;
        Ok(json)
    }

    /// The error of an infeasible memory limit, with the least-memory plan as a note.
    fn infeasible(&self, ctx: &Context, f: &Body, model: &Model, map: &build::IrMap, least: &Solution) -> Diagnostic {
        let limit = self.solver.memory_limit.unwrap_or(0);
        let report = FunctionReport { ctx, f, model, map, solution: least, arg_names: arg_names(ctx, f) }.to_json();
        let mut lines = Vec::new();
        for a in report["arguments"].as_array().into_iter().flatten() {
            lines.push(format!("{}: {}", a["name"].as_str().unwrap_or("?"), a["sharding"]));
        }
        for o in report["ops"].as_array().into_iter().flatten() {
            lines.push(format!("{} ({}): {}", o["name"].as_str().unwrap_or("?"), o["op"].as_str().unwrap_or("?"), o["result"]));
        }
        Diagnostic::error(
            f.loc(),
            format!(
                "auto-shard: no plan fits in memory-limit={limit} bytes per device; the least-memory plan found needs {} bytes ({} s)",
                least.eval.memory,
                mesh::seconds(least.eval.total())
            ),
        )
        .with_note(f.loc(), format!("the least-memory plan: {}", lines.join("; ")))
    }
}

/// The `xcs.name` argument attribute of each argument of `f`.
fn arg_names(ctx: &Context, f: &Body) -> Vec<Option<String>> {
    let attrs: Vec<xcs_ir::Attr> = f.self_attr(ctx, "arg_attrs").and_then(|a| ctx.as_array(a)).map(|v| v.to_vec()).unwrap_or_default();
    attrs.iter().map(|&d| ctx.dict_get(d, "xcs.name").and_then(|a| ctx.as_str(a)).map(str::to_string)).collect()
}

#[cfg(test)]
mod brute;
#[cfg(test)]
mod tests;
