//! `cost-annotate` (seed 004, issue 6): symbolic FLOPs / bytes of every op and function.
//! Shapes are inferred symbolically (dynamic argument dims are named by a `cost.dims` argument
//! attribute), every op with a cost rule (the `dyn CostRule` interface its declaration names,
//! `xcs_dialects::interfaces::cost`) gets `cost = #cost.cost<...>` from its leaf kernel of
//! `kernels/` with the rule's bindings, every function gets its total, and a call is a child
//! whose kernel is the callee (its total with the call site's shapes substituted). Calls
//! (`CallLike`), fused regions and maps are composites built here. `bind=` substitutes
//! numbers; `report=FILE` writes the resolved cost tree of the public functions. The counting
//! convention and the formats are in `docs/cost.md`.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use xcs_dialects::cost::library;
use xcs_dialects::cost::resolve::{Child, Kernel, KernelBody, KernelSet, ResolvedNode};
use xcs_dialects::cost::Cost;
use xcs_dialects::interfaces::cost::{elem_bytes, product, type_dims, CostOp, CostRule, Dims, Rule, ValInfo};
use xcs_dialects::symbolic::{parse_numeric_bindings, Expr, ExprError};
use xcs_dialects::tensor::FusedOp;
use xcs_dialects::xcs::{ParallelMapOp, VmapOp};
use xcs_ir::builtin::ModuleOp;
use xcs_ir::opdef::{OpView, Traits};
use xcs_ir::pass::{OptionKind, OptionSpec, Pass, PassInfo, PassOptions, PassRegistry, PassResult};
use xcs_ir::{Attr, Block, Body, Context, DiagSink, Diagnostic, Location, Op, Value};

use crate::util;

/// The pass.
pub struct CostAnnotate {
    pub bind: BTreeMap<String, i128>,
    pub report: Option<String>,
}

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "bind",
        kind: OptionKind::StrList,
        default: "",
        description: "Numbers for dimension symbols, substituted into every formula: `bind=batch_size=1,seq_len=128`",
    },
    OptionSpec {
        name: "report",
        kind: OptionKind::Str,
        default: "",
        description: "Write the resolved cost tree of the public functions (JSON, `schemas/resolved_cost_schema.json`) into this file",
    },
];

pub const INFO: PassInfo = PassInfo {
    argument: "cost-annotate",
    name: "CostAnnotate",
    summary: "Annotate every op and function with its symbolic FLOPs and bytes",
    description: "Infers symbolic shapes (dynamic dims of function arguments are named by the \
argument attribute `cost.dims`, e.g. `{cost.dims = [\"batch_size\", \"seq_len\", 768]}`) and \
attaches `cost = #cost.cost<flops = \"...\", read = \"...\", write = \"...\">` (with \
`transcendentals` when not zero) to every op from its leaf kernel of `kernels/`, chosen \
through `kernels/kernel_name_map.json` and bound by the cost rule the op declares (the \
`CostRule` interface), and to every function its total. A \
`func.call` costs the callee's total with the call site's dims substituted for the callee's dim \
names; a `tensor.fused` reads its inputs and writes its outputs once (its body ops count FLOPs \
only); an `xcs.vmap`/`xcs.parallel_map` costs its body times the batch size. Formulas are \
canonical, so equal costs print equal. The counting convention, the kernels and the report \
format are in `docs/cost.md`.",
    options: OPTIONS,
    factory,
};

fn factory(o: &PassOptions, _: &PassRegistry) -> Result<Box<dyn Pass>, String> {
    let bind = parse_numeric_bindings(&o.str_list("bind").join(","))?;
    let report = Some(o.str("report").to_string()).filter(|s| !s.is_empty());
    Ok(Box::new(CostAnnotate { bind, report }))
}

impl Pass for CostAnnotate {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn anchor(&self) -> Option<&'static str> {
        Some(ModuleOp::DEF.name)
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let lib = library::library();
        if let Some(e) = lib.errors.first() {
            diags.emit(Diagnostic::error(body.loc(), format!("cost-annotate: broken kernel library: {e}")));
            return Err(());
        }
        let mut a = Annotator { ctx, bind: &self.bind, diags, failed: false, funcs: FxHashMap::default(), kernels: Vec::new(), fresh: 0 };
        let funcs = a.run_module(body)?;
        if let Some(file) = &self.report {
            a.write_report(body, &funcs, file)?;
        }
        Ok(PassResult::Changed)
    }
}

/// What a processed function offers its callers.
struct FuncSummary {
    /// Its dim variables (from its arguments' dims, in order): its kernel's parameters.
    params: Vec<String>,
    arg_dims: Vec<Option<Dims>>,
    ret_dims: Vec<Option<Dims>>,
    /// Its total, symbolic (not bound).
    total: Cost,
    public: bool,
    has_body: bool,
}

/// One child of a composite being built (a function, a fused region or a map body).
struct ChildRec {
    label: String,
    kernel: String,
    bindings: Vec<(String, Expr)>,
    count: Expr,
    /// Per invocation, symbolic.
    cost: Cost,
}

struct Annotator<'a> {
    ctx: &'a Context,
    bind: &'a BTreeMap<String, i128>,
    diags: &'a mut dyn DiagSink,
    failed: bool,
    funcs: FxHashMap<String, FuncSummary>,
    /// Composite kernels for the report (functions, fused regions, map bodies).
    kernels: Vec<Kernel>,
    /// Counter of fresh dim names (`_dN`) over the module.
    fresh: usize,
}

/// A composite kernel being built (a function, a fused region or a map body): its name (the
/// prefix of the names of composites nested in it), its children so far with their unique
/// labels, and whether it is inside a fused region (whose ops move no memory of their own).
struct Composite {
    name: String,
    labels: Labels,
    children: Vec<ChildRec>,
    in_fused: bool,
}

impl Composite {
    fn new(name: String, in_fused: bool) -> Self {
        Composite { name, labels: Labels::default(), children: Vec::new(), in_fused }
    }

    /// The cost of one invocation: the sum of the children's costs times their counts.
    fn total(&self) -> Result<Cost, ExprError> {
        let mut total = Cost::default();
        for c in &self.children {
            total = c.cost.times(&c.count).and_then(|x| total.add(&x))?;
        }
        Ok(total)
    }
}

/// Unique labels within one composite.
#[derive(Default)]
struct Labels(FxHashSet<String>);

impl Labels {
    fn make(&mut self, ctx: &Context, name: &str, loc: Location) -> String {
        let base = match ctx.loc_file_line_col(loc) {
            Some((file, line, col)) => {
                let f = ctx.str(file);
                let f = f.rsplit('/').next().unwrap_or(f);
                format!("{name}@{f}:{line}:{col}")
            }
            None => name.to_string(),
        };
        let mut label = base.clone();
        let mut n = 2;
        while !self.0.insert(label.clone()) {
            label = format!("{base}#{n}");
            n += 1;
        }
        label
    }
}

type Env = FxHashMap<Value, ValInfo>;

fn err(e: xcs_dialects::symbolic::ExprError) -> String {
    e.message
}

impl<'a> Annotator<'a> {
    fn error(&mut self, d: Diagnostic) {
        self.failed = true;
        self.diags.emit(d);
    }

    fn fresh_name(&mut self) -> Expr {
        let e = Expr::var(&format!("_d{}", self.fresh));
        self.fresh += 1;
        e
    }

    /// Annotates every function (callees first); returns the module's functions in order.
    fn run_module(&mut self, module: &mut Body) -> Result<Vec<(Op, String)>, ()> {
        let ctx = self.ctx;
        let funcs: Vec<(Op, String)> = module
            .top_ops()
            .into_iter()
            .filter(|&op| util::has_trait(ctx, module, op, Traits::FunctionLike))
            .filter_map(|op| {
                let name = module.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a))?;
                Some((op, name.to_string()))
            })
            .collect();
        let order = self.call_order(module, &funcs)?;
        for i in order {
            let (op, name) = &funcs[i];
            let public = util::is_public(ctx, module, *op);
            let f = module.nested_mut(*op).ok_or(())?;
            let summary = self.function(f, name, public);
            match summary {
                Ok(s) => {
                    let attr = self.bound(&s.total).to_attr(ctx);
                    module.set_attr(ctx, *op, "cost", attr);
                    self.funcs.insert(name.clone(), s);
                }
                Err(()) => return Err(()),
            }
        }
        if self.failed {
            return Err(());
        }
        Ok(funcs)
    }

    fn bound(&self, c: &Cost) -> Cost {
        if self.bind.is_empty() {
            return c.clone();
        }
        let b = self.bind;
        c.substitute(&|v| b.get(v).map(|&x| Expr::constant(x))).unwrap_or_else(|_| c.clone())
    }

    /// Functions in callee-first order; a recursive call cycle is an error.
    fn call_order(&mut self, module: &Body, funcs: &[(Op, String)]) -> Result<Vec<usize>, ()> {
        let ctx = self.ctx;
        let index: FxHashMap<&str, usize> = funcs.iter().enumerate().map(|(i, (_, n))| (n.as_str(), i)).collect();
        // callees of each function, with the call op's location
        let mut callees: Vec<Vec<(usize, Location)>> = vec![Vec::new(); funcs.len()];
        for (i, (op, _)) in funcs.iter().enumerate() {
            let Some(f) = module.nested(*op) else { continue };
            f.for_each_body(&mut |b| {
                for o in b.walk_ops() {
                    if util::has_trait(ctx, b, o, Traits::CallLike) {
                        if let Some(c) = b.attr(ctx, o, "callee").and_then(|a| ctx.as_symbol(a)).and_then(|c| index.get(c)) {
                            callees[i].push((*c, b.op_loc(o)));
                        }
                    }
                }
            });
        }
        #[derive(Clone, Copy, PartialEq)]
        enum M {
            New,
            Open,
            Done,
        }
        let mut mark = vec![M::New; funcs.len()];
        let mut order = Vec::new();
        for r in 0..funcs.len() {
            if mark[r] != M::New {
                continue;
            }
            let mut stack = vec![(r, 0usize)];
            mark[r] = M::Open;
            while let Some(top) = stack.last_mut() {
                let (f, ci) = *top;
                if ci == callees[f].len() {
                    mark[f] = M::Done;
                    order.push(f);
                    stack.pop();
                    continue;
                }
                top.1 += 1;
                let (c, loc) = callees[f][ci];
                match mark[c] {
                    M::Done => {}
                    M::New => {
                        mark[c] = M::Open;
                        stack.push((c, 0));
                    }
                    M::Open => {
                        let start = stack.iter().position(|&(s, _)| s == c).unwrap_or(0);
                        let mut path: Vec<String> = stack[start..].iter().map(|&(s, _)| format!("@{}", funcs[s].1)).collect();
                        path.push(format!("@{}", funcs[c].1));
                        self.error(Diagnostic::error(
                            loc,
                            format!(
                                "'func.call' op is part of a recursive call cycle ({}); cost-annotate needs an acyclic call graph",
                                path.join(" -> ")
                            ),
                        ));
                        return Err(());
                    }
                }
            }
        }
        Ok(order)
    }

    /// The dims of a function's arguments from their types and `cost.dims`.
    fn arg_dims(&mut self, f: &Body, entry: Option<Block>) -> Result<Vec<Option<Dims>>, ()> {
        let ctx = self.ctx;
        let Some(ft) = f.self_attr(ctx, "function_type").and_then(|a| ctx.as_type(a)) else { return Ok(Vec::new()) };
        let Some((inputs, _)) = ctx.function_signature(ft) else { return Ok(Vec::new()) };
        let inputs = inputs.to_vec();
        let arg_attrs: Vec<Attr> = f.self_attr(ctx, "arg_attrs").and_then(|a| ctx.as_array(a)).map(|v| v.to_vec()).unwrap_or_default();
        let mut out = Vec::with_capacity(inputs.len());
        for (i, &t) in inputs.iter().enumerate() {
            let loc = entry.map(|b| f.block_arg(b, i)).and_then(|v| f.arg_loc(v)).unwrap_or(f.loc());
            let loc = if loc.is_unknown() { f.loc() } else { loc };
            let spec = arg_attrs.get(i).and_then(|&d| ctx.dict_get(d, "cost.dims"));
            let Some((shape, _)) = xcs_dialects::shape::ranked(ctx, t) else {
                if spec.is_some() {
                    self.error(Diagnostic::error(loc, format!("'cost.dims' on argument #{i}, which is not a ranked tensor")));
                }
                out.push(None);
                continue;
            };
            let shape = shape.to_vec();
            let Some(spec) = spec else {
                let dims = shape
                    .iter()
                    .enumerate()
                    .map(|(j, &d)| if d == xcs_ir::DYNAMIC { Expr::var(&format!("arg{i}.d{j}")) } else { Expr::constant(d as i128) })
                    .collect();
                out.push(Some(dims));
                continue;
            };
            let Some(items) = ctx.as_array(spec).map(|v| v.to_vec()) else {
                self.error(Diagnostic::error(loc, format!("'cost.dims' of argument #{i} must be an array of dim names and numbers")));
                out.push(None);
                continue;
            };
            if items.len() != shape.len() {
                self.error(Diagnostic::error(
                    loc,
                    format!("'cost.dims' of argument #{i} has {} entries, but the argument has rank {}", items.len(), shape.len()),
                ));
                out.push(None);
                continue;
            }
            let mut dims = Vec::with_capacity(items.len());
            for (j, (&item, &d)) in items.iter().zip(&shape).enumerate() {
                let e = if let Some(n) = ctx.as_int(item) {
                    Ok(Expr::constant(n))
                } else if let Some(s) = ctx.as_str(item) {
                    s.parse::<Expr>().map_err(|e| format!("'cost.dims' entry #{j} of argument #{i}, \"{s}\", is malformed: {}", e.describe(s)))
                } else {
                    Err(format!("'cost.dims' entry #{j} of argument #{i} must be a dim name (string) or a number"))
                };
                let e = match e {
                    Ok(e) => e,
                    Err(m) => {
                        self.error(Diagnostic::error(loc, m));
                        Expr::zero()
                    }
                };
                if d != xcs_ir::DYNAMIC && e.as_constant() != Some(d as i128) {
                    self.error(Diagnostic::error(
                        loc,
                        format!("'cost.dims' entry #{j} of argument #{i} is \"{e}\", but that dim is static ({d})"),
                    ));
                }
                dims.push(if d != xcs_ir::DYNAMIC { Expr::constant(d as i128) } else { e });
            }
            out.push(Some(dims));
        }
        Ok(out)
    }

    /// Annotates one function; returns its summary.
    fn function(&mut self, f: &mut Body, name: &str, public: bool) -> Result<FuncSummary, ()> {
        let ctx = self.ctx;
        let region = f.root_regions().first().copied();
        let entry = region.and_then(|r| f.entry_block(r));
        let arg_dims = self.arg_dims(f, entry)?;
        let mut params: Vec<String> = Vec::new();
        for d in arg_dims.iter().flatten().flatten() {
            for v in d.free_vars() {
                if !params.contains(&v) {
                    params.push(v);
                }
            }
        }
        let Some(entry) = entry else {
            // A declaration: no body, cost 0; its results get dims from their types.
            let ret_dims = self.result_type_dims(f);
            self.kernels.push(Kernel { name: name.to_string(), params: params.clone(), body: KernelBody::Leaf(Cost::default()), origin: String::new() });
            return Ok(FuncSummary { params, arg_dims, ret_dims, total: Cost::default(), public, has_body: false });
        };
        let mut env = Env::default();
        for (i, d) in arg_dims.iter().enumerate() {
            let v = f.block_arg(entry, i);
            if let Some(d) = d {
                let es = xcs_dialects::shape::ranked(ctx, f.value_type(v)).map_or(0, |(_, e)| elem_bytes(ctx, e));
                env.insert(v, ValInfo { dims: d.clone(), esize: es, imm: false });
            }
        }
        let mut comp = Composite::new(name.to_string(), false);
        let mut ret_dims: Option<Vec<Option<Dims>>> = None;
        let blocks: Vec<Block> = region.map(|r| f.region_blocks(r).collect()).unwrap_or_default();
        for b in blocks {
            if b != entry {
                self.block_args_from_types(f, b, &mut env);
            }
            let returned = self.block(f, b, &mut env, &mut comp)?;
            if let (Some(vals), None) = (returned, &ret_dims) {
                ret_dims = Some(vals.iter().map(|v| env.get(v).map(|x| x.dims.clone())).collect());
            }
        }
        let total = match comp.total() {
            Ok(t) => t,
            Err(e) => {
                self.error(Diagnostic::error(f.loc(), format!("cost-annotate: the total of @{name}: {}", e.message)));
                return Err(());
            }
        };
        self.push_composite(comp, params.clone());
        Ok(FuncSummary { params, arg_dims, ret_dims: ret_dims.unwrap_or_default(), total, public, has_body: true })
    }

    /// Adds `comp` to the report's kernels, with parameters `params`.
    fn push_composite(&mut self, comp: Composite, params: Vec<String>) {
        let Composite { name, children, .. } = comp;
        let chs = children
            .iter()
            .map(|c| Child { label: c.label.clone(), kernel: c.kernel.clone(), bindings: c.bindings.clone(), count: c.count.clone() })
            .collect();
        self.kernels.push(Kernel { name, params, body: KernelBody::Composite(chs), origin: String::new() });
    }

    fn result_type_dims(&mut self, f: &Body) -> Vec<Option<Dims>> {
        let ctx = self.ctx;
        let Some(ft) = f.self_attr(ctx, "function_type").and_then(|a| ctx.as_type(a)) else { return Vec::new() };
        let Some((_, results)) = ctx.function_signature(ft) else { return Vec::new() };
        let results = results.to_vec();
        results.iter().map(|&t| type_dims(ctx, t, &mut || self.fresh_name()).map(|(d, _)| d)).collect()
    }

    fn block_args_from_types(&mut self, body: &Body, b: Block, env: &mut Env) {
        for &v in body.block_args(b) {
            let t = body.value_type(v);
            if let Some((dims, es)) = type_dims(self.ctx, t, &mut || self.fresh_name()) {
                env.insert(v, ValInfo { dims, esize: es, imm: false });
            }
        }
    }

    /// Records the shapes of `op`'s results: the inferred dims, with every static dim of the
    /// result type taking its number; dims of other ranks come from the type.
    fn set_results(&mut self, body: &Body, op: Op, dims: Vec<Option<Dims>>, imm: bool, env: &mut Env) {
        let ctx = self.ctx;
        for (i, v) in body.results(op).enumerate() {
            let t = body.value_type(v);
            let Some((shape, e)) = xcs_dialects::shape::ranked(ctx, t) else { continue };
            let es = elem_bytes(ctx, e);
            let inferred = dims.get(i).cloned().flatten().filter(|d| d.len() == shape.len());
            let d: Dims = match inferred {
                Some(d) => shape
                    .iter()
                    .zip(d)
                    .map(|(&s, x)| if s == xcs_ir::DYNAMIC { x } else { Expr::constant(s as i128) })
                    .collect(),
                None => shape.to_vec().iter().map(|&s| if s == xcs_ir::DYNAMIC { self.fresh_name() } else { Expr::constant(s as i128) }).collect(),
            };
            env.insert(v, ValInfo { dims: d, esize: es, imm });
        }
    }

    /// Annotates the ops of one block. Returns the operands of its return-like terminator.
    /// Calls, fused regions and maps are composites built here; every other op costs what its
    /// declared [`CostRule`] says.
    fn block(
        &mut self,
        body: &mut Body,
        b: Block,
        env: &mut Env,
        comp: &mut Composite,
    ) -> Result<Option<Vec<Value>>, ()> {
        let ctx = self.ctx;
        let ops: Vec<Op> = body.block_ops(b).collect();
        let mut terminal = None;
        for op in ops {
            let name = body.op_name(op);
            let def = ctx.op_def(name);
            let traits = def.map_or(Traits::empty(), |d| d.traits);
            let child = if traits.contains(Traits::ReturnLike) {
                terminal = Some(body.operand_vec(op).to_vec());
                continue;
            } else if traits.contains(Traits::CallLike) {
                self.call(body, op, env, comp)?
            } else if def.is_some_and(|d| d.is::<FusedOp>()) {
                self.fused(body, op, env, comp)?
            } else if def.is_some_and(|d| d.is::<VmapOp>() || d.is::<ParallelMapOp>()) {
                self.map(body, op, env, comp)?
            } else if let Some(rule) = ctx.interface::<dyn CostRule>(name) {
                Some(self.leaf(body, op, rule, env, comp)?)
            } else {
                self.uncosted(body, op, traits, env);
                None
            };
            comp.children.extend(child);
        }
        Ok(terminal)
    }

    /// An op without a cost rule: no cost, results from their types. Warns when it touches
    /// tensors and is not a branch.
    fn uncosted(&mut self, body: &Body, op: Op, traits: Traits, env: &mut Env) {
        let ctx = self.ctx;
        let touches = body
            .operand_types(op)
            .iter()
            .chain(body.result_types(op).iter())
            .any(|&t| xcs_dialects::shape::ranked(ctx, t).is_some());
        if touches && !traits.contains(Traits::BranchLike) {
            let name = ctx.op_name_str(body.op_name(op));
            self.diags.emit(Diagnostic::warning(
                body.op_loc(op),
                format!("cost-annotate: '{name}' has no cost kernel; it is counted as 0"),
            ));
        }
        self.set_results(body, op, Vec::new(), false, env);
    }

    /// Runs `rule` on `op` with the shapes of `env`.
    fn apply_rule(&mut self, body: &Body, op: Op, rule: &dyn CostRule, env: &Env) -> Result<Rule, String> {
        let lookup = |v: Value| env.get(&v);
        let mut fresh_count = self.fresh;
        let mut fresh = || {
            let e = Expr::var(&format!("_d{fresh_count}"));
            fresh_count += 1;
            e
        };
        let r = rule.rule(&mut CostOp::new(OpView::new(self.ctx, body, op), &lookup, &mut fresh));
        self.fresh = fresh_count;
        r
    }

    /// An op with a cost rule: its leaf kernel, bound and substituted, becomes its `cost`.
    fn leaf(
        &mut self,
        body: &mut Body,
        op: Op,
        rule: &dyn CostRule,
        env: &mut Env,
        comp: &mut Composite,
    ) -> Result<ChildRec, ()> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(body.op_name(op));
        let rule = match self.apply_rule(body, op, rule, env) {
            Ok(r) => r,
            Err(m) => return self.op_fail(body, op, m),
        };
        if rule.guessed {
            self.diags.emit(Diagnostic::warning(
                body.op_loc(op),
                format!("cost-annotate: some result dims of '{name}' cannot be inferred from its operands; they are named _dN"),
            ));
        }
        let imm = rule.immediate
            || (rule.view && body.num_operands(op) > 0 && env.get(&body.operand(op, 0)).is_some_and(|x| x.imm));
        let Some(leaf_name) = library::map_name(&rule.key) else {
            return self.op_fail(body, op, format!("no kernel for '{}' in kernel_name_map.json", rule.key));
        };
        let Some(leaf) = library::leaf(leaf_name) else {
            return self.op_fail(body, op, format!("kernel '{leaf_name}' is not in kernels/"));
        };
        let mut bindings: Vec<(String, Expr)> = rule.bindings.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        bindings.push(("bytes".to_string(), Expr::constant(rule.bytes)));
        if comp.in_fused {
            zero_bytes(&mut bindings);
        }
        let KernelBody::Leaf(template) = &leaf.body else { return Err(()) };
        let cost = match xcs_dialects::cost::resolve::substitute(template, &bindings) {
            Ok(c) => c,
            Err(e) => return self.op_fail(body, op, e.message),
        };
        body.set_attr(ctx, op, "cost", self.bound(&cost).to_attr(ctx));
        self.set_results(body, op, rule.dims, imm, env);
        let label = comp.labels.make(ctx, name, body.op_loc(op));
        Ok(ChildRec { label, kernel: leaf_name.to_string(), bindings, count: Expr::one(), cost })
    }

    fn call(&mut self, body: &mut Body, op: Op, env: &mut Env, comp: &mut Composite) -> Result<Option<ChildRec>, ()> {
        let ctx = self.ctx;
        let Some(callee) = body.attr(ctx, op, "callee").and_then(|a| ctx.as_symbol(a)).map(str::to_string) else {
            return Ok(None);
        };
        let Some(s) = self.funcs.get(&callee) else {
            // Not a function of this module (the verifier reports unknown callees).
            self.set_results(body, op, Vec::new(), false, env);
            return Ok(None);
        };
        let mut bindings: Vec<(String, Expr)> = Vec::new();
        for (i, d) in s.arg_dims.iter().enumerate() {
            let (Some(d), Some(v)) = (d, (i < body.num_operands(op)).then(|| body.operand(op, i))) else { continue };
            let Some(actual) = env.get(&v) else { continue };
            for (callee_dim, call_dim) in d.iter().zip(&actual.dims) {
                if let Some(name) = callee_dim.as_var() {
                    if s.params.iter().any(|p| p == name) && !bindings.iter().any(|(k, _)| k == name) {
                        bindings.push((name.to_string(), call_dim.clone()));
                    }
                }
            }
        }
        let unbound: Vec<&String> = s.params.iter().filter(|p| !bindings.iter().any(|(k, _)| k == *p)).collect();
        if !unbound.is_empty() {
            let list: Vec<String> = unbound.iter().map(|p| format!("'{p}'")).collect();
            self.error(Diagnostic::op_error(
                ctx,
                body,
                op,
                format!(
                    "cost-annotate: cannot bind {} of @{callee} at this call: a dim name is bound only where it is a whole dim of an argument",
                    list.join(", ")
                ),
            ));
            return Err(());
        }
        let sub = |e: &Expr| e.substitute(&|v| bindings.iter().find(|(k, _)| k == v).map(|(_, x)| x.clone()));
        let cost = match xcs_dialects::cost::resolve::substitute(&s.total, &bindings) {
            Ok(c) => c,
            Err(e) => {
                self.error(Diagnostic::op_error(ctx, body, op, format!("cost-annotate: {}", e.message)));
                return Err(());
            }
        };
        let mut rets: Vec<Option<Dims>> = Vec::new();
        for d in &s.ret_dims {
            rets.push(match d {
                Some(d) => Some(d.iter().map(&sub).collect::<Result<Dims, _>>().map_err(|_| ())?),
                None => None,
            });
        }
        body.set_attr(ctx, op, "cost", self.bound(&cost).to_attr(ctx));
        self.set_results(body, op, rets, false, env);
        let label = comp.labels.make(ctx, ctx.op_name_str(body.op_name(op)), body.op_loc(op));
        Ok(Some(ChildRec { label, kernel: callee, bindings, count: Expr::one(), cost }))
    }

    fn fused(&mut self, body: &mut Body, op: Op, env: &mut Env, comp: &mut Composite) -> Result<Option<ChildRec>, ()> {
        let ctx = self.ctx;
        let label = comp.labels.make(ctx, FusedOp::DEF.name, body.op_loc(op));
        let kname = format!("{}/{label}", comp.name);
        let operands = body.operand_vec(op).to_vec();
        let infos: Vec<Option<ValInfo>> = operands.iter().map(|v| env.get(v).cloned()).collect();
        let Some(inner) = body.nested_mut(op) else { return Ok(None) };
        let Some(entry) = inner.root_regions().first().and_then(|&r| inner.entry_block(r)) else { return Ok(None) };
        let mut ienv = Env::default();
        for (i, info) in infos.iter().enumerate() {
            if let (Some(info), Some(&a)) = (info, inner.block_args(entry).get(i)) {
                ienv.insert(a, info.clone());
            }
        }
        let mut icomp = Composite::new(kname.clone(), true);
        let term = self.block(inner, entry, &mut ienv, &mut icomp)?;
        let ret: Vec<Option<Dims>> = term.map(|vals| vals.iter().map(|v| ienv.get(v).map(|x| x.dims.clone())).collect()).unwrap_or_default();
        self.set_results(body, op, ret, false, env);
        // The memory traffic: each input once (immediates free), each output once.
        let mut input_bytes = Expr::zero();
        for info in infos.iter().flatten() {
            if !info.imm {
                let n = product(&info.dims).and_then(|n| n.scale(info.esize).map_err(err));
                input_bytes = match n.and_then(|n| input_bytes.add(&n).map_err(err)) {
                    Ok(x) => x,
                    Err(m) => return self.op_fail(body, op, m),
                };
            }
        }
        let mut output_bytes = Expr::zero();
        for v in body.results(op).collect::<Vec<_>>() {
            if let Some(info) = env.get(&v) {
                let n = product(&info.dims).and_then(|n| n.scale(info.esize).map_err(err));
                output_bytes = match n.and_then(|n| output_bytes.add(&n).map_err(err)) {
                    Ok(x) => x,
                    Err(m) => return self.op_fail(body, op, m),
                };
            }
        }
        let mut io_bindings = vec![("input_bytes".to_string(), input_bytes), ("output_bytes".to_string(), output_bytes)];
        if comp.in_fused {
            zero_bytes(&mut io_bindings);
        }
        let io_leaf = library::leaf(FusedOp::DEF.name).ok_or(())?;
        let KernelBody::Leaf(io_t) = &io_leaf.body else { return Err(()) };
        let io_cost = xcs_dialects::cost::resolve::substitute(io_t, &io_bindings).map_err(|_| ())?;
        let io_label = icomp.labels.make(ctx, "io", Location::UNKNOWN);
        icomp.children.push(ChildRec { label: io_label, kernel: FusedOp::DEF.name.into(), bindings: io_bindings, count: Expr::one(), cost: io_cost });
        let total = match icomp.total() {
            Ok(t) => t,
            Err(e) => return self.op_fail(body, op, e.message),
        };
        body.set_attr(ctx, op, "cost", self.bound(&total).to_attr(ctx));
        self.push_composite(icomp, Vec::new());
        Ok(Some(ChildRec { label, kernel: kname, bindings: Vec::new(), count: Expr::one(), cost: total }))
    }

    fn op_fail<T>(&mut self, body: &Body, op: Op, m: String) -> Result<T, ()> {
        self.error(Diagnostic::op_error(self.ctx, body, op, format!("cost-annotate: {m}")));
        Err(())
    }

    /// `xcs.vmap` / `xcs.parallel_map`: the body once per batch element.
    fn map(&mut self, body: &mut Body, op: Op, env: &mut Env, comp: &mut Composite) -> Result<Option<ChildRec>, ()> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(body.op_name(op)).to_string();
        let label = comp.labels.make(ctx, &name, body.op_loc(op));
        let kname = format!("{}/{label}", comp.name);
        let in_axes = body.attr(ctx, op, "in_axes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
        let out_axes = body.attr(ctx, op, "out_axes").and_then(|a| ctx.as_i64_array(a)).unwrap_or_default();
        let Some(region) = body.regions(op).first().copied() else { return Ok(None) };
        let Some(entry) = body.entry_block(region) else { return Ok(None) };
        let mut batch: Option<Expr> = None;
        let operands = body.operand_vec(op).to_vec();
        let args = body.block_args(entry).to_vec();
        for (i, v) in operands.iter().enumerate() {
            let Some(info) = env.get(v).cloned() else { continue };
            // -1: not batched; another negative axis counts from the end (as the op's verifier
            // and semantics read it)
            let ax = in_axes.get(i).copied().unwrap_or(-1);
            let batched = if ax == -1 { None } else { xcs_dialects::shape::norm_axis(ax, info.dims.len()).ok() };
            let mut d = info.dims.clone();
            if let Some(a) = batched {
                let b = d.remove(a);
                batch.get_or_insert(b);
            }
            if let Some(&a) = args.get(i) {
                env.insert(a, ValInfo { dims: d, esize: info.esize, imm: info.imm && batched.is_none() });
            }
        }
        let batch = batch.unwrap_or_else(Expr::one);
        let mut icomp = Composite::new(kname.clone(), comp.in_fused);
        let term = self.block(body, entry, env, &mut icomp)?;
        let rets: Vec<Option<Dims>> = term
            .map(|vals| {
                vals.iter()
                    .enumerate()
                    .map(|(j, v)| {
                        env.get(v).map(|x| {
                            let mut d = x.dims.clone();
                            let ax = out_axes.get(j).copied().unwrap_or(-1);
                            if ax != -1 {
                                if let Ok(a) = xcs_dialects::shape::norm_axis(ax, d.len() + 1) {
                                    d.insert(a, batch.clone());
                                }
                            }
                            d
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.set_results(body, op, rets, false, env);
        let per = match icomp.total() {
            Ok(t) => t,
            Err(e) => return self.op_fail(body, op, e.message),
        };
        if icomp.children.is_empty() {
            // An empty body still needs a child for the composite; it costs nothing.
            let l = icomp.labels.make(ctx, "view", Location::UNKNOWN);
            icomp.children.push(ChildRec { label: l, kernel: "view".into(), bindings: Vec::new(), count: Expr::one(), cost: Cost::default() });
        }
        let total = match per.times(&batch) {
            Ok(t) => t,
            Err(e) => return self.op_fail(body, op, e.message),
        };
        body.set_attr(ctx, op, "cost", self.bound(&total).to_attr(ctx));
        self.push_composite(icomp, Vec::new());
        Ok(Some(ChildRec { label, kernel: kname, bindings: Vec::new(), count: batch, cost: per }))
    }

    /// Writes the report: a root named after the module (or `module`) whose children are the
    /// public functions with bodies, each the resolved tree of its kernel.
    fn write_report(&mut self, module: &Body, funcs: &[(Op, String)], file: &str) -> Result<(), ()> {
        let ctx = self.ctx;
        let mut set = KernelSet::new(false);
        for k in library::library().kernels.values() {
            let _ = set.add(k.clone());
        }
        for k in std::mem::take(&mut self.kernels) {
            if let Err(e) = set.add(k) {
                self.error(Diagnostic::error(module.loc(), format!("cost-annotate: {e}")));
                return Err(());
            }
        }
        let public: Vec<&str> = funcs
            .iter()
            .map(|(_, n)| n.as_str())
            .filter(|n| self.funcs.get(*n).is_some_and(|s| s.public && s.has_body))
            .collect();
        let order = match set.order_from(&public) {
            Ok(o) => o,
            Err(e) => {
                self.error(Diagnostic::error(module.loc(), format!("cost-annotate: {e}")));
                return Err(());
            }
        };
        let templates = match set.templates(&order) {
            Ok(t) => t,
            Err(e) => {
                self.error(Diagnostic::error(module.loc(), format!("cost-annotate: {e}")));
                return Err(());
            }
        };
        let root_name = module.self_attr(ctx, "sym_name").and_then(|a| ctx.as_str(a)).unwrap_or("module").to_string();
        let mut root = ResolvedNode {
            label: String::new(),
            kernel: root_name,
            count: Expr::one(),
            cost: Cost::default(),
            children: Vec::new(),
        };
        for name in public {
            match set.tree(&templates, name, self.bind) {
                Ok(mut n) => {
                    n.label = name.to_string();
                    root.cost = match root.cost.add(&n.cost) {
                        Ok(c) => c,
                        Err(e) => {
                            self.error(Diagnostic::error(module.loc(), format!("cost-annotate: {}", e.message)));
                            return Err(());
                        }
                    };
                    root.children.push(n);
                }
                Err(e) => {
                    self.error(Diagnostic::error(module.loc(), format!("cost-annotate: {e}")));
                    return Err(());
                }
            }
        }
        if let Err(e) = std::fs::write(file, root.to_json()) {
            self.error(Diagnostic::error(module.loc(), format!("cost-annotate: cannot write the report '{file}': {e}")));
            return Err(());
        }
        Ok(())
    }
}

/// Inside a fused region intermediates cost no bytes: every byte size (`bytes` and the
/// `*_bytes` parameters) is 0.
fn zero_bytes(b: &mut [(String, Expr)]) {
    for (k, v) in b.iter_mut() {
        if k == "bytes" || k.ends_with("_bytes") {
            *v = Expr::zero();
        }
    }
}

#[cfg(test)]
mod tests;
