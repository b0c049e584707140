//! The kernel ops of the `xcs` dialect (seed 002: `@kernel` / KernelRef, no string task
//! names): `xcs.kernel @name` declarations with a signature of axis variables and
//! In/Out/InOut tensors plus constexpr parameters and a body that yields the new values of the
//! tensors it writes; `xcs.workload`, whose inputs and outputs are tensors (values), with
//! `xcs.parallel_for` grids of static extent; and `xcs.launch @name[%b, %h](%Q[%b, %h], ...)`
//! tasks that bind views of the workload's tensors (affine in the axis variables, see
//! `views.rs`). The interpreter runs workloads (`semantics.rs`), the LLVM backend compiles
//! them (`lowering/src/ops/workload.rs`); [`WorkloadSchedule`] is the grid both walk.

use xcs_ir::lexer::Tok;
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, OpView, SymbolLookup, Syntax};
use xcs_ir::parser::{OpAsmParser, PResult};
use xcs_ir::printer::OpAsmPrinter;
use xcs_ir::{op, Attr, AttrKind, Body, Context, Diagnostic, Op, OperationState, Type, Value};

/// What a kernel parameter is (`arg_kinds`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// An axis variable: the index of an enclosing `xcs.parallel_for` (type `index`).
    Axis,
    /// A tensor the kernel reads.
    In,
    /// A tensor the kernel writes (its previous contents are not read).
    Out,
    /// A tensor the kernel reads and writes.
    InOut,
}

impl ArgKind {
    pub fn parse(s: &str) -> Option<ArgKind> {
        Some(match s {
            "axis" => ArgKind::Axis,
            "in" => ArgKind::In,
            "out" => ArgKind::Out,
            "inout" => ArgKind::InOut,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ArgKind::Axis => "axis",
            ArgKind::In => "in",
            ArgKind::Out => "out",
            ArgKind::InOut => "inout",
        }
    }
    /// The kernel reads the tensor.
    pub fn reads(self) -> bool {
        matches!(self, ArgKind::In | ArgKind::InOut)
    }
    /// The kernel writes the tensor.
    pub fn writes(self) -> bool {
        matches!(self, ArgKind::Out | ArgKind::InOut)
    }
}

/// One positional kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    /// From `arg_names` when given.
    pub name: Option<String>,
    pub kind: ArgKind,
    pub ty: Type,
}

/// A compile-time parameter: a default value, or only its type (then every launch gives it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constexpr {
    pub name: String,
    /// The default (an integer, float or bool attribute); `None` when there is none.
    pub default: Option<Attr>,
    pub ty: Type,
}

/// A kernel's signature, read from its attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSignature {
    pub params: Vec<KernelParam>,
    pub constexprs: Vec<Constexpr>,
}

impl KernelSignature {
    /// Reads and checks `function_type`, `arg_kinds`, `arg_names` and `constexprs`.
    pub fn from_attrs(ctx: &Context, attrs: Attr) -> Result<KernelSignature, String> {
        let ft = ctx.dict_get(attrs, "function_type").and_then(|a| ctx.as_type(a));
        let Some((inputs, results)) = ft.and_then(|t| ctx.function_signature(t)) else {
            return Err("requires a 'function_type' attribute of function type".into());
        };
        if !results.is_empty() {
            return Err(
                "has results in its function_type; a kernel returns nothing, it writes its out and inout tensors"
                    .into(),
            );
        }
        let kinds: Vec<&str> = ctx
            .dict_get(attrs, "arg_kinds")
            .and_then(|a| ctx.as_array(a))
            .map(|v| v.iter().filter_map(|&e| ctx.as_str(e)).collect())
            .unwrap_or_default();
        if kinds.len() != inputs.len() {
            return Err(format!(
                "has {} arg_kinds for {} parameters; each parameter has one kind",
                kinds.len(),
                inputs.len()
            ));
        }
        let names: Option<Vec<&str>> = ctx.dict_get(attrs, "arg_names").map(|a| {
            ctx.as_array(a)
                .map(|v| v.iter().filter_map(|&e| ctx.as_str(e)).collect())
                .unwrap_or_default()
        });
        if let Some(n) = &names {
            if n.len() != inputs.len() {
                return Err(format!("has {} arg_names for {} parameters", n.len(), inputs.len()));
            }
            for (i, a) in n.iter().enumerate() {
                if !is_identifier(a) {
                    return Err(format!("arg_names entry '{a}' is not an identifier"));
                }
                if n[..i].contains(a) {
                    return Err(format!("parameter name '{a}' appears twice in arg_names"));
                }
            }
        }
        let mut params = Vec::with_capacity(inputs.len());
        for (i, (&k, &ty)) in kinds.iter().zip(inputs).enumerate() {
            let Some(kind) = ArgKind::parse(k) else {
                return Err(format!(
                    "parameter #{i} has kind '{k}'; a kind is \"axis\", \"in\", \"out\" or \"inout\""
                ));
            };
            let p = param_label(i, names.as_ref().map(|n| n[i]));
            match kind {
                ArgKind::Axis if ty != ctx.index_type() => {
                    return Err(format!(
                        "axis parameter {p} has type '{}'; axis variables are 'index'",
                        type_str(ctx, ty)
                    ));
                }
                ArgKind::In | ArgKind::Out | ArgKind::InOut if !ctx.is_ranked_tensor(ty) => {
                    return Err(format!(
                        "{} parameter {p} has type '{}'; tensor parameters are ranked tensors",
                        kind.as_str(),
                        type_str(ctx, ty)
                    ));
                }
                _ => {}
            }
            params.push(KernelParam {
                name: names.as_ref().map(|n| n[i].to_string()),
                kind,
                ty,
            });
        }
        if !params.iter().any(|p| p.kind.writes()) {
            return Err("has no out or inout parameter; a kernel's results are the tensors it writes".into());
        }
        let mut constexprs = Vec::new();
        if let Some(d) = ctx.dict_get(attrs, "constexprs") {
            for &(k, v) in ctx.dict_entries(d) {
                let name = ctx.str(k).to_string();
                if !is_identifier(&name) {
                    return Err(format!("constexpr name '{name}' is not an identifier"));
                }
                if names.as_ref().is_some_and(|n| n.contains(&name.as_str())) {
                    return Err(format!("constexpr '{name}' has the name of a parameter"));
                }
                let (default, ty) = match ctx.attr_kind(v) {
                    AttrKind::Integer { ty, .. } | AttrKind::Float { ty, .. } => (Some(v), *ty),
                    AttrKind::Type(t) if ctx.is_integer(*t) || ctx.is_float(*t) => (None, *t),
                    _ => {
                        return Err(format!(
                            "constexpr '{name}' must be an integer, float or bool default value, or an integer or float type (no default)"
                        ))
                    }
                };
                constexprs.push(Constexpr { name, default, ty });
            }
        }
        Ok(KernelSignature { params, constexprs })
    }

    /// The parameters of one kind group: axis variables, or tensors (in, out, inout).
    pub fn axes(&self) -> impl Iterator<Item = (usize, &KernelParam)> {
        self.params.iter().enumerate().filter(|(_, p)| p.kind == ArgKind::Axis)
    }
    pub fn tensors(&self) -> impl Iterator<Item = (usize, &KernelParam)> {
        self.params.iter().enumerate().filter(|(_, p)| p.kind != ArgKind::Axis)
    }
}

/// `'Q'` for a named parameter, `#2` otherwise.
fn param_label(i: usize, name: Option<&str>) -> String {
    name.map_or_else(|| format!("#{i}"), |n| format!("'{n}'"))
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic() || f == '_') && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

fn type_str(ctx: &Context, t: Type) -> String {
    xcs_ir::printer::type_to_string(ctx, t)
}

pub const ARG_KINDS_ATTR: AttrConstraint = AttrConstraint {
    desc: "array of \"axis\", \"in\", \"out\", \"inout\" strings",
    check: |c, a| {
        c.as_array(a)
            .is_some_and(|v| v.iter().all(|&e| c.as_str(e).and_then(ArgKind::parse).is_some()))
    },
};
pub const STR_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    desc: "array of string attributes",
    check: |c, a| c.as_array(a).is_some_and(|v| v.iter().all(|&e| c.as_str(e).is_some())),
};

op! {
    /// A kernel declaration (seed 002's `@kernel`): a symbol with a signature of positional
    /// parameters (`function_type` inputs, no results) whose `arg_kinds` say what each is:
    /// `"axis"` (an `index` from an enclosing `xcs.parallel_for`; the body computes with it
    /// through `tensor.from_index`), `"in"` (a tensor read),
    /// `"out"` (a tensor written) or `"inout"` (both); optional `arg_names`; and `constexprs`,
    /// compile-time parameters with a default value (`BLOCK_M = 128 : i64`) or only a type
    /// (`SCALE = f32`: every launch must give it).
    ///
    /// The optional body is the kernel's implementation: one block whose arguments are the
    /// parameters (a tensor parameter is the per-task view the launch binds, with the view's
    /// static shape), ending in `xcs.yield` of the **new values of its `out` and `inout`
    /// parameters, in parameter order** (tensors are values: writing `o[...] = e` in the
    /// frontend is building the new value of `o`; an `out` parameter enters with the current
    /// contents of its view, zeros unless an earlier launch wrote it). Constexpr values are
    /// substituted into the body by whoever writes it (the Python frontend traces one body per
    /// set of constexpr values); in the body they are constants. The interpreter runs the body
    /// per launch; the LLVM backend compiles it once as a function of the view shapes. A
    /// kernel without a body can be declared and launched but not run.
    ///
    /// ```mlir
    /// xcs.kernel @scale {arg_kinds = ["axis", "in", "out"], arg_names = ["i", "x", "y"], function_type = (index, tensor<4xf32>, tensor<4xf32>) -> ()} {
    /// ^bb0(%i: index, %x: tensor<4xf32>, %y: tensor<4xf32>):
    ///   %0 = tensor.add %x, %x : tensor<4xf32>
    ///   xcs.yield %0 : tensor<4xf32>
    /// }
    /// ```
    pub struct KernelOp = "xcs.kernel" in crate::xcs::XCS_OPS {
        summary: "Kernel: axis variables, In/Out/InOut tensors, constexprs; body yields the written tensors",
        attributes: {
            sym_name: SYMBOL_NAME_ATTR,
            function_type: FUNCTION_TYPE_ATTR,
            arg_kinds: ARG_KINDS_ATTR,
            #[optional] arg_names: STR_ARRAY_ATTR,
            #[optional] constexprs: DICT_ATTR,
            #[optional] sym_visibility: STR_ATTR,
        },
        regions: { body: 1 },
        traits: [IsolatedFromAbove, Symbol, NoTerminator, SingleBlock],
        verify: verify_kernel,
        syntax: Syntax::Custom { parse: crate::symbol_syntax::parse_symbol_op, print: print_kernel },
    }
}

op! {
    /// A workload (seed 002's `with workload():`): a grid of kernel launches over tensors. Its
    /// operands are the workload's inputs, its results its outputs (a `func.func` whose body
    /// is an `xcs.workload` returning its results is how `xcs-run`, the JIT and the C ABI call
    /// it). The body block's arguments are the inputs followed by the outputs, which start as
    /// zeros; launches read views of both and write views of the outputs; the results are
    /// the outputs after the last launch. The body holds only `xcs.parallel_for` and
    /// `xcs.launch`, in program order: ops run one after the other, the iterations of a
    /// `parallel_for` in any order or at once. Launches of parallel iterations may not write
    /// overlapping parts of an output, nor read a part of an output that another parallel
    /// iteration writes (compile-time errors at the launch; what an iteration itself writes,
    /// before or after, it may read). Workload tensors have static shapes.
    ///
    /// ```mlir
    /// %O = xcs.workload %Q : (tensor<2x8xf32>) -> tensor<2x8xf32> {
    /// ^bb0(%q: tensor<2x8xf32>, %o: tensor<2x8xf32>):
    ///   xcs.parallel_for {extent = 2 : i64} : () -> () {
    ///   ^bb0(%b: index):
    ///     xcs.launch @scale[%b](%q[%b], %o[%b]) : tensor<2x8xf32>, tensor<2x8xf32>
    ///   }
    /// }
    /// ```
    pub struct WorkloadOp = "xcs.workload" in crate::xcs::XCS_OPS {
        summary: "Grid of kernel launches: inputs in, outputs out",
        operands: { #[variadic] inputs: RANKED_TENSOR },
        results: { #[variadic] outputs: RANKED_TENSOR },
        regions: { body: 1 },
        traits: [NoTerminator, SingleBlock, RecursiveMemoryEffects],
        verify: super::workload::verify_workload,
        verify_symbol_uses: super::workload::verify_workload_writes,
        interfaces: [dyn crate::interp::Semantics => &super::semantics::WORKLOAD],
    }
}

op! {
    /// A parallel loop over `0 .. extent` (a static `i64` attribute): its block argument is
    /// the axis variable. Nested `xcs.parallel_for` ops form a grid; every iteration may run
    /// in parallel (the interpreter runs them in order, compiled code on the thread pool).
    /// Directly inside an `xcs.workload` or another `xcs.parallel_for`.
    ///
    /// ```mlir
    /// xcs.parallel_for {extent = 4 : i64} : () -> () {
    /// ^bb0(%h: index):
    ///   xcs.launch @flash_attn[%b, %h](%Q[%b, %h], %O[%b, %h]) : ...
    /// }
    /// ```
    pub struct ParallelForOp = "xcs.parallel_for" in crate::xcs::XCS_OPS {
        summary: "Parallel loop binding an axis variable",
        attributes: { extent: I64_ATTR },
        regions: { body: 1 },
        traits: [NoTerminator, SingleBlock, RecursiveMemoryEffects],
        verify: verify_parallel_for,
    }
}

op! {
    /// Launches kernel `@name` (a symbol reference, no string task names) at the grid point
    /// given by its axis operands, with views of workload tensors. The axis operands are the
    /// axis variables of enclosing `xcs.parallel_for` ops, one per `"axis"` parameter of the
    /// kernel. The tensor operands are block arguments of the enclosing `xcs.workload` (its
    /// inputs and outputs), one per tensor parameter in order, each with an optional view
    /// `%A[e0, e1, ...]`: per leading dim an index `e` (the dim is dropped), a range `lo:hi`
    /// (`hi - lo` constant) or `:` (the whole dim); dims not mentioned are whole. `e`, `lo`,
    /// `hi` are affine in the axis variables of enclosing `xcs.parallel_for` ops (`%b`,
    /// `4*%i + 4`, `-%h + 3`), passed to the kernel or not; the frontend substitutes
    /// constexprs (`A[b, i*T:(i+1)*T]` with `T = 4` is `%A[%b, 4*%i:4*%i + 4]`). The view's type
    /// (its ranges' sizes, the tensor's element type) must be the parameter's type, and every
    /// view must lie inside its tensor at every grid point. The kernel reads its `in` and
    /// `inout` views and writes its `out` and `inout` views, which must be of workload outputs
    /// (and a written tensor may not also be passed as another operand). The types after `:`
    /// are the workload tensors' (not the views'). `constexprs` overrides defaults and must give
    /// every constexpr that has none.
    ///
    /// Stored as one operand list split by `operandSegmentSizes = array<i32: axes, tensors>`, or
    /// `array<i32: axes, tensors, view indices>` when views use axis variables that are not axis
    /// operands (the view indices, in order of first use), and, when any operand has a view,
    /// `views`: per tensor operand an `array<i64>` with, per entry, `[tag, constant,
    /// coefficients]` (one coefficient per axis operand, then per view index; `tag`: the range
    /// size, -1 an index, -2 a whole dim; an empty array: the whole tensor).
    ///
    /// ```mlir
    /// xcs.launch @flash_attn[%b, %h](%Q[%b, %h], %K[%b], %V[%b], %O[%b, %h, 8*%h:8*%h + 8]) {constexprs = {BLOCK_M = 64 : i64}} : tensor<...>, tensor<...>, tensor<...>, tensor<...>
    /// xcs.launch @row_sum[](%X[%r], %Y[%r]) : tensor<8x16xf32>, tensor<8xf32>
    /// ```
    pub struct LaunchOp = "xcs.launch" in crate::xcs::XCS_OPS {
        summary: "Kernel launch at a grid point on views of workload tensors",
        operands: { #[variadic] operands: ANY_TYPE },
        attributes: { kernel: FLAT_SYMBOL_REF_ATTR, operandSegmentSizes: DENSE_I32_ARRAY_ATTR, #[optional] constexprs: DICT_ATTR, #[optional] views: ARRAY_ATTR },
        verify: verify_launch,
        verify_symbol_uses: verify_launch_uses,
        syntax: Syntax::Custom { parse: parse_launch, print: print_launch },
    }
}

// ------------------------------------------------------------------------------ verifiers

fn verify_kernel(v: &OpView) -> Result<(), Diagnostic> {
    let sig = KernelSignature::from_attrs(v.ctx, v.attrs()).map_err(|e| v.error(e))?;
    let Some(body) = v.body.nested(v.op) else { return Ok(()) };
    let Some(entry) = body.root_regions().first().and_then(|&r| body.entry_block(r)) else {
        return Ok(());
    };
    let args = body.block_args(entry);
    if args.len() != sig.params.len() {
        return Err(v.error(format!(
            "body has {} entry block arguments for {} parameters; the body takes the kernel's parameters",
            args.len(),
            sig.params.len()
        )));
    }
    for (i, (&a, p)) in args.iter().zip(&sig.params).enumerate() {
        let t = body.value_type(a);
        if t != p.ty {
            return Err(v.error(format!(
                "body argument #{i} has type '{}', but the parameter is '{}'",
                v.ty(t),
                v.ty(p.ty)
            )));
        }
    }
    // The body ends in xcs.yield of the new values of the written parameters.
    let Some(term) = body.last_op(entry) else {
        return Ok(()); // an empty block: a declaration
    };
    let written: Vec<Type> = sig.params.iter().filter(|p| p.kind.writes()).map(|p| p.ty).collect();
    if !super::YieldOp::matches(v.ctx, body.op_name(term)) {
        return Err(v.error(format!(
            "body must end in '{}' of the new values of its out and inout parameters",
            super::YieldOp::DEF.name
        )));
    }
    let yielded: Vec<Type> = body.operand_types(term).to_vec();
    if yielded != written {
        let list = |ts: &[Type]| ts.iter().map(|&t| v.ty(t)).collect::<Vec<_>>().join(", ");
        return Err(v.error(format!(
            "body yields ({}), but its out and inout parameters are ({}); it yields their new values in parameter order",
            list(&yielded),
            list(&written)
        )));
    }
    Ok(())
}

fn verify_parallel_for(v: &OpView) -> Result<(), Diagnostic> {
    let in_grid = v.body.parent_op(v.op).is_some_and(|p| {
        let n = v.body.op_name(p);
        WorkloadOp::matches(v.ctx, n) || ParallelForOp::matches(v.ctx, n)
    });
    if !in_grid {
        return Err(v.error("must be inside an 'xcs.workload' (directly or in another 'xcs.parallel_for')"));
    }
    if v.attr("extent").and_then(|a| v.ctx.as_int(a)).is_some_and(|e| e < 0) {
        return Err(v.error("extent must be non-negative"));
    }
    let r = v.body.regions(v.op)[0];
    let ok = v.body.entry_block(r).is_some_and(|b| {
        let a = v.body.block_args(b);
        a.len() == 1 && v.body.value_type(a[0]) == v.ctx.index_type()
    });
    if !ok {
        return Err(v.error("body must have one block with one 'index' argument (the axis variable)"));
    }
    Ok(())
}

/// The `[axes, tensors, view indices]` split of a launch's operands (the last segment is
/// optional: `array<i32: axes, tensors>` has no view indices).
pub fn launch_segments(ctx: &Context, body: &Body, op: Op) -> Option<(usize, usize, usize)> {
    let s = body.attr(ctx, op, "operandSegmentSizes")?;
    let n = body.num_operands(op);
    match ctx.as_dense_ints(s)?.as_slice() {
        &[a, t] if a >= 0 && t >= 0 && (a + t) as usize == n => Some((a as usize, t as usize, 0)),
        &[a, t, x] if a >= 0 && t >= 0 && x >= 0 && (a + t + x) as usize == n => {
            Some((a as usize, t as usize, x as usize))
        }
        _ => None,
    }
}

/// The axis operands and the tensor operands of a launch.
pub fn launch_operands(ctx: &Context, body: &Body, op: Op) -> Option<(Vec<Value>, Vec<Value>)> {
    let (a, t, _) = launch_segments(ctx, body, op)?;
    let all = body.operand_vec(op);
    Some((all[..a].to_vec(), all[a..a + t].to_vec()))
}

/// The index operands the views are affine in: the axis operands, then the view indices.
pub fn launch_index_operands(ctx: &Context, body: &Body, op: Op) -> Option<Vec<Value>> {
    let (a, t, _) = launch_segments(ctx, body, op)?;
    let all = body.operand_vec(op);
    let mut v = all[..a].to_vec();
    v.extend_from_slice(&all[a + t..]);
    Some(v)
}

/// The tensors a launch reads and writes, given its kernel's signature: `(operand, kind)` of
/// every tensor operand.
pub fn launch_effects(ctx: &Context, body: &Body, op: Op, sig: &KernelSignature) -> Vec<(Value, ArgKind)> {
    let Some((_, tensors)) = launch_operands(ctx, body, op) else {
        return Vec::new();
    };
    tensors.into_iter().zip(sig.tensors().map(|(_, p)| p.kind)).collect()
}

fn verify_launch(v: &OpView) -> Result<(), Diagnostic> {
    super::workload::launch_plan(v.ctx, v.body, v.op).map_err(|e| v.error(e))?;
    Ok(())
}

fn verify_launch_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Some(name) = v.attr("kernel").and_then(|a| ctx.as_symbol(a)) else {
        return Ok(());
    };
    let Some(target) = symbols
        .lookup(name)
        .filter(|s| KernelOp::matches(ctx, s.op_name))
    else {
        return Err(v.error(format!("'@{name}' does not reference an 'xcs.kernel'")));
    };
    let Ok(sig) = KernelSignature::from_attrs(ctx, target.attrs) else {
        return Ok(()); // the kernel's own verifier reports it
    };
    let Some((axes, tensors)) = launch_operands(ctx, v.body, v.op) else {
        return Ok(());
    };
    let n_axes = sig.axes().count();
    if axes.len() != n_axes {
        return Err(v.error(format!(
            "gives {} axis operands, but @{name} has {n_axes} axis parameters",
            axes.len()
        )));
    }
    let params: Vec<(usize, &KernelParam)> = sig.tensors().collect();
    let label = |i: usize, p: &KernelParam| param_label(i, p.name.as_deref());
    if tensors.len() < params.len() {
        let (i, p) = params[tensors.len()];
        return Err(v.error(format!(
            "does not bind {} parameter {} of @{name} (it gives {} tensor operands for {} tensor parameters)",
            p.kind.as_str(),
            label(i, p),
            tensors.len(),
            params.len()
        )));
    }
    if tensors.len() > params.len() {
        let names: Vec<String> = params.iter().map(|&(i, p)| label(i, p)).collect();
        return Err(v.error(format!(
            "gives {} tensor operands, but @{name} has {} tensor parameters ({}); tensor operand #{} binds none",
            tensors.len(),
            params.len(),
            names.join(", "),
            params.len()
        )));
    }
    let Ok(plan) = super::workload::launch_plan(ctx, v.body, v.op) else {
        return Ok(()); // verify_launch reports it
    };
    for (j, (b, &(i, p))) in plan.bindings.iter().zip(&params).enumerate() {
        let ty = b.view_type(ctx);
        if !crate::shape::types_compatible(ctx, ty, p.ty) {
            return Err(v.error(format!(
                "binds a view of type '{}' (tensor operand #{j}) to {} parameter {} of @{name}, which is '{}'",
                v.ty(ty),
                p.kind.as_str(),
                label(i, p),
                v.ty(p.ty)
            )));
        }
        if p.kind.writes() && b.arg < plan.inputs {
            return Err(v.error(format!(
                "binds workload input #{} (tensor operand #{j}) to {} parameter {} of @{name}; a kernel writes only the workload's outputs",
                b.arg,
                p.kind.as_str(),
                label(i, p)
            )));
        }
    }
    for (j, &(i, p)) in params.iter().enumerate() {
        if !p.kind.writes() {
            continue;
        }
        if let Some((k, point)) = aliasing_operand(&plan, j) {
            return Err(v.error(format!(
                "tensor operand #{j} is written by @{name} ({} parameter {}) and tensor operand #{k} views an overlapping part of the same tensor (at grid point ({})); a written view may not alias another operand",
                p.kind.as_str(),
                label(i, p),
                point.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    let given = v
        .attr("constexprs")
        .map(|d| ctx.dict_entries(d).to_vec())
        .unwrap_or_default();
    for &(k, val) in &given {
        let key = ctx.str(k);
        let Some(c) = sig.constexprs.iter().find(|c| c.name == key) else {
            let known: Vec<&str> = sig.constexprs.iter().map(|c| c.name.as_str()).collect();
            let list = if known.is_empty() {
                "it has none".to_string()
            } else {
                format!("it has {}", known.join(", "))
            };
            return Err(v.error(format!(
                "sets constexpr '{key}', which @{name} does not declare ({list})"
            )));
        };
        let vty = match ctx.attr_kind(val) {
            AttrKind::Integer { ty, .. } | AttrKind::Float { ty, .. } => Some(*ty),
            _ => None,
        };
        if vty != Some(c.ty) {
            return Err(v.error(format!(
                "constexpr '{key}' of @{name} is of type '{}'; the launch gives {}",
                v.ty(c.ty),
                xcs_ir::printer::attr_to_string(ctx, val)
            )));
        }
    }
    for c in &sig.constexprs {
        if c.default.is_none() && !given.iter().any(|&(k, _)| ctx.str(k) == c.name) {
            return Err(v.error(format!(
                "does not set constexpr '{}' of @{name}, which has no default",
                c.name
            )));
        }
    }
    Ok(())
}

/// Grid points beyond this many are not checked for aliasing views.
const MAX_CHECKED_POINTS: i64 = 1 << 16;

/// Another tensor operand of `plan` whose view overlaps binding `j`'s at some grid point.
fn aliasing_operand(plan: &super::workload::LaunchPlan, j: usize) -> Option<(usize, Vec<i64>)> {
    let w = &plan.bindings[j];
    let others: Vec<usize> = (0..plan.bindings.len()).filter(|&k| k != j && plan.bindings[k].arg == w.arg).collect();
    let total: i64 = plan.extents.iter().product();
    if others.is_empty() || total > MAX_CHECKED_POINTS {
        return None;
    }
    for n in 0..total {
        let mut rest = n;
        let mut point = vec![0; plan.extents.len()];
        for (d, &e) in plan.extents.iter().enumerate().rev() {
            point[d] = rest % e;
            rest /= e;
        }
        let a = w.view.boxes(&point);
        for &k in &others {
            let b = plan.bindings[k].view.boxes(&point);
            if a.iter().zip(&b).all(|(x, y)| x.0 < y.0 + y.1 && y.0 < x.0 + x.1) {
                return Some((k, point));
            }
        }
    }
    None
}

// ------------------------------------------------------------------------------ syntax

fn print_kernel(p: &mut OpAsmPrinter<'_>) {
    crate::symbol_syntax::print_symbol_op(p, true)
}

/// `@kernel [axes] (tensor view?, ...) attr-dict (: tensor-types)?` (views: `views.rs`).
fn parse_launch(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let ctx = p.ctx();
    let kernel = p.parse_symbol_ident()?;
    p.set_attr(st, "kernel", ctx.symbol_ref(ctx.str(kernel)));
    p.parse_lsquare()?;
    let mut axes = if p.parse_optional_rsquare() {
        Vec::new()
    } else {
        let a = p.parse_operand_list()?;
        p.parse_rsquare()?;
        a
    };
    let n_axes = axes.len();
    p.parse_lparen()?;
    let mut tensors = Vec::new();
    let mut views = Vec::new();
    if !p.parse_optional_rparen() {
        loop {
            tensors.push(p.parse_operand()?);
            views.push(if p.parse_optional_lsquare() { super::views::parse_view(p, &mut axes)? } else { Vec::new() });
            if p.parse_optional_rparen() {
                break;
            }
            p.parse_comma()?;
        }
    }
    if views.iter().any(|v| !v.is_empty()) {
        for v in views.iter_mut() {
            super::views::pad(v, axes.len());
        }
        let items: Vec<Attr> = views.iter().map(|v| super::views::encode(ctx, v, axes.len())).collect();
        p.set_attr(st, "views", ctx.array_attr(&items));
    }
    p.parse_optional_attr_dict(st)?;
    let types: Vec<Type> = if p.peek(Tok::Colon) {
        p.parse_colon_type_list()?.to_vec()
    } else {
        Vec::new()
    };
    let index = vec![ctx.index_type(); axes.len()];
    p.resolve_operands(&axes[..n_axes], &index[..n_axes], st)?;
    p.resolve_operands(&tensors, &types, st)?;
    p.resolve_operands(&axes[n_axes..], &index[n_axes..], st)?;
    let mut seg = vec![n_axes as i32, tensors.len() as i32];
    if axes.len() > n_axes {
        seg.push((axes.len() - n_axes) as i32);
    }
    let seg: Vec<u8> = seg
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    p.set_attr(
        st,
        "operandSegmentSizes",
        ctx.attr(AttrKind::DenseArray {
            elem: ctx.i32_type(),
            data: seg.into(),
        }),
    );
    Ok(())
}

/// Whether the custom form reparses to the same operands: the view indices (index operands
/// `a..a + x`) appear in the views in their order of first use, each at least once.
fn views_print_back(views: &[Vec<super::views::ViewDim>], a: usize, x: usize) -> bool {
    let mut next = a;
    for piece in views.iter().flat_map(|v| super::views::view_pieces(v)) {
        if let super::views::Piece::Axis(k) = piece {
            if k == next {
                next += 1;
            } else if k > next {
                return false;
            }
        }
    }
    next == a + x
}

/// ` @kernel[%b, %h](%Q, %O) {constexprs = {...}} : tensor<...>, tensor<...>`.
fn print_launch(p: &mut OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let kernel = p.attr("kernel").filter(|&a| ctx.as_symbol(a).is_some());
    let operands = p.operands();
    let (Some(kernel), Some(seg)) = (kernel, p.attr("operandSegmentSizes").and_then(|a| ctx.as_dense_ints(a))) else {
        return p.fallback_to_generic();
    };
    let (a, t, x) = match seg.as_slice() {
        &[a, t] => (a, t, 0),
        &[a, t, x] => (a, t, x),
        _ => return p.fallback_to_generic(),
    };
    if a < 0 || t < 0 || x < 0 || (a + t + x) as usize != operands.len() {
        return p.fallback_to_generic();
    }
    let (a, t, x) = (a as usize, t as usize, x as usize);
    // The view indices appear only in the views: each must appear there once at least.
    let index_operands: Vec<Value> = operands[..a].iter().chain(&operands[a + t..]).copied().collect();
    let views: Vec<Vec<super::views::ViewDim>> = match p.attr("views").map(|v| ctx.as_array(v).map(|x| x.to_vec())) {
        None if x == 0 => Vec::new(),
        Some(Some(items)) if items.len() == t => {
            match items.iter().map(|&v| super::views::decode(ctx, v, a + x)).collect::<Result<Vec<_>, _>>() {
                Ok(v) => v,
                Err(_) => return p.fallback_to_generic(),
            }
        }
        _ => return p.fallback_to_generic(),
    };
    if !views_print_back(&views, a, x) || index_operands.iter().skip(a).enumerate().any(|(i, v)| index_operands[..a + i].contains(v)) {
        return p.fallback_to_generic();
    }
    let types = p.operand_types();
    if types[..a].iter().chain(&types[a + t..]).any(|&t| t != ctx.index_type()) {
        return p.fallback_to_generic();
    }
    p.write_str(" ");
    p.print_attribute(kernel);
    p.write_str("[");
    p.print_operands(&operands[..a]);
    p.write_str("](");
    for (j, &tensor) in operands[a..a + t].iter().enumerate() {
        if j > 0 {
            p.write_str(", ");
        }
        p.print_operand(tensor);
        for piece in views.get(j).map(|v| super::views::view_pieces(v)).unwrap_or_default() {
            match piece {
                super::views::Piece::Text(s) => p.write_str(&s),
                super::views::Piece::Axis(k) => p.print_operand(index_operands[k]),
            }
        }
    }
    p.write_str(")");
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["kernel", "operandSegmentSizes", "views"]);
    if t > 0 {
        p.write_str(" : ");
        p.print_types(&types[a..a + t]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xcs_ir::parser::{parse_module, ParseOptions};
    use xcs_ir::verifier::verify_module;

    const PROGRAM: &str = r#"
xcs.kernel @flash_attn {function_type = (index, index, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (),
  arg_kinds = ["axis", "axis", "in", "inout", "out"], arg_names = ["b", "h", "Q", "S", "O"],
  constexprs = {BLOCK = 128 : i64, SCALE = f32}} {
^bb0(%b: index, %h: index, %q: tensor<8xf32>, %s: tensor<8xf32>, %o: tensor<8xf32>):
  %0 = tensor.add %q, %s : tensor<8xf32>
  %1 = tensor.mul %0, %q : tensor<8xf32>
  xcs.yield %0, %1 : tensor<8xf32>
}
func.func @main(%q: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %s, %o = xcs.workload %q : (tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  ^bb0(%qq: tensor<2x4x8xf32>, %ss: tensor<2x4x8xf32>, %oo: tensor<2x4x8xf32>):
    xcs.parallel_for {extent = 2 : i64} : () -> () {
    ^bb0(%b: index):
      xcs.parallel_for {extent = 4 : i64} : () -> () {
      ^bb0(%h: index):
        xcs.launch @flash_attn[%b, %h](%qq[%b, %h], %ss[%b, %h], %oo[%b, %h]) {constexprs = {SCALE = 0.5 : f32}} : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
      }
    }
  }
  return %s, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
"#;

    #[test]
    fn signature_and_effects() {
        let ctx = crate::context();
        let m = parse_module(&ctx, PROGRAM, "k.mlir", &ParseOptions::default()).unwrap();
        verify_module(&ctx, &m, false).map_err(|d| format!("{d:?}")).unwrap();
        let k = m.lookup_symbol(&ctx, "flash_attn").unwrap();
        let sig = KernelSignature::from_attrs(&ctx, m.body.attrs(k)).unwrap();
        let kinds: Vec<ArgKind> = sig.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [ArgKind::Axis, ArgKind::Axis, ArgKind::In, ArgKind::InOut, ArgKind::Out]
        );
        assert_eq!(sig.axes().count(), 2);
        assert_eq!(sig.tensors().map(|(i, _)| i).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(sig.params[2].name.as_deref(), Some("Q"));
        assert_eq!(sig.constexprs.len(), 2);
        assert_eq!(
            sig.constexprs[0],
            Constexpr {
                name: "BLOCK".into(),
                default: Some(ctx.i64_attr(128)),
                ty: ctx.i64_type()
            }
        );
        assert_eq!(sig.constexprs[1].default, None);
        assert!(ArgKind::InOut.reads() && ArgKind::InOut.writes() && ArgKind::In.reads() && !ArgKind::Out.reads());

        // The launch, deep in the function's body.
        let f = m.lookup_symbol(&ctx, "main").unwrap();
        let fb = m.body.nested(f).unwrap();
        let launch = fb
            .walk_ops()
            .into_iter()
            .find(|&op| LaunchOp::cast(&ctx, fb, op).is_some())
            .unwrap();
        let (axes, tensors) = launch_operands(&ctx, fb, launch).unwrap();
        assert_eq!((axes.len(), tensors.len()), (2, 3));
        let effects = launch_effects(&ctx, fb, launch, &sig);
        let wl = fb.walk_ops().into_iter().find(|&op| WorkloadOp::cast(&ctx, fb, op).is_some()).unwrap();
        let entry = fb.entry_block(fb.regions(wl)[0]).unwrap();
        let args = fb.block_args(entry);
        assert_eq!(
            effects,
            vec![
                (args[0], ArgKind::In),
                (args[1], ArgKind::InOut),
                (args[2], ArgKind::Out)
            ]
        );

        // The interpreter runs the workload: S = Q (S starts as zeros), O = S * Q.
        let q: Vec<f32> = (0..64).map(|i| i as f32 * 0.25 - 3.0).collect();
        let input = crate::interp::Tensor::f32(&[2, 4, 8], &q);
        let out = crate::interp::run_function(&ctx, &m, "main", vec![input.into()]).unwrap();
        let want_o: Vec<f32> = q.iter().map(|x| x * x).collect();
        let tensor = |v: &crate::interp::RtValue| match v {
            crate::interp::RtValue::Tensor(t) => t.clone(),
            other => panic!("not a tensor: {}", other.type_string()),
        };
        assert_eq!(tensor(&out[0]), crate::interp::Tensor::f32(&[2, 4, 8], &q));
        assert_eq!(tensor(&out[1]), crate::interp::Tensor::f32(&[2, 4, 8], &want_o));
    }

    #[test]
    fn signature_errors() {
        let ctx = crate::context();
        let attrs = |s: &str| xcs_ir::parser::parse_attr(&ctx, s).unwrap();
        let e = KernelSignature::from_attrs(&ctx, attrs("{arg_kinds = []}")).unwrap_err();
        assert!(e.contains("function_type"), "{e}");
        let e = KernelSignature::from_attrs(
            &ctx,
            attrs(r#"{function_type = (tensor<4xf32>) -> (), arg_kinds = ["in"]}"#),
        )
        .unwrap_err();
        assert!(e.contains("no out or inout parameter"), "{e}");
    }
}
