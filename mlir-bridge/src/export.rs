//! The export of an XCS tensor program to upstream MLIR (`xcs-translate --emit=mlir`): every
//! function becomes a `func.func` of upstream `linalg` (named and generic ops), `tensor`,
//! `arith`, `math`, `cf` and `shard` ops (blocks as `^bbN`), and every `shard.grid` a grid,
//! written as MLIR text op by op and then parsed and verified by MLIR itself through melior
//! (`export_module`). Which op becomes what lives in `ops.rs` (with `shape_ops.rs` and
//! `generic_ops.rs`).

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use xcs_dialects::func::{signature, FuncOp};
use xcs_ir::opdef::OpView;
use xcs_ir::printer::type_to_string;
use xcs_ir::{Block, Context, Diagnostic, Module, Type, TypeKind, Value};

use crate::ops::exporter_of;

/// Writes one function's ops as upstream MLIR text: SSA names for the XCS values, fresh names
/// for the helper values an op needs, and the linalg/arith building blocks `ops.rs` uses.
pub struct Emitter<'a> {
    pub ctx: &'a Context,
    /// Set when the module is exported for the MLIR backend (`xcs-run --backend=mlir`), which
    /// runs unsharded programs only: `shard` ops are then errors.
    pub for_backend: bool,
    names: FxHashMap<Value, String>,
    blocks: FxHashMap<Block, String>,
    next: usize,
    out: String,
}

/// One input of a `linalg.generic`: its SSA name, type and indexing map (for each of its dims
/// the loop indexing it, or `None` for a broadcast dim of size 1, read at index 0).
pub struct GenericInput<'s> {
    pub name: &'s str,
    pub ty: Type,
    pub map: Vec<Option<usize>>,
}

impl<'a> Emitter<'a> {
    fn new(ctx: &'a Context, for_backend: bool) -> Self {
        Emitter { ctx, for_backend, names: FxHashMap::default(), blocks: FxHashMap::default(), next: 0, out: String::new() }
    }

    /// The label of a block of the function being written (`^bbN`, in the region's order).
    pub fn block_label(&self, b: Block) -> Result<String, String> {
        self.blocks.get(&b).cloned().ok_or_else(|| "a successor outside the function".to_string())
    }

    /// Appends a block label line (`^bb1(%v3: tensor<4xf32>):`).
    pub fn block_header(&mut self, text: &str) {
        self.out.push_str("  ");
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A new SSA name.
    pub fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    /// The SSA name of an XCS value (given when its definition was written).
    pub fn name(&self, v: Value) -> Result<String, String> {
        self.names.get(&v).cloned().ok_or_else(|| format!("value {v:?} used before its definition"))
    }

    /// Names an XCS value (an op's result) with `name`.
    pub fn bind(&mut self, v: Value, name: String) {
        self.names.insert(v, name);
    }

    /// Starts the names of a nested, isolated body (`tensor.fused`'s): returns the outer ones,
    /// which [`Emitter::end_scope`] puts back.
    pub fn begin_scope(&mut self) -> FxHashMap<Value, String> {
        std::mem::take(&mut self.names)
    }
    pub fn end_scope(&mut self, outer: FxHashMap<Value, String>) {
        self.names = outer;
    }

    /// Appends one line of the function body.
    pub fn line(&mut self, text: &str) {
        self.out.push_str("    ");
        self.out.push_str(text);
        self.out.push('\n');
    }

    pub fn ty(&self, t: Type) -> String {
        type_to_string(self.ctx, t)
    }

    /// The static shape and element type of a ranked tensor; dynamic dims are not covered.
    pub fn static_tensor(&self, t: Type) -> Result<(Vec<i64>, Type), String> {
        match self.ctx.type_kind(t) {
            TypeKind::RankedTensor { shape, elem, encoding: None } if shape.iter().all(|&d| d >= 0) => {
                Ok((shape.to_vec(), *elem))
            }
            _ => Err(format!("type '{}' is not covered by the MLIR export (static ranked tensors only)", self.ty(t))),
        }
    }

    /// `tensor.empty` of type `t` (the init of a linalg op).
    pub fn empty(&mut self, t: Type) -> String {
        let n = self.fresh();
        let ty = self.ty(t);
        self.line(&format!("{n} = tensor.empty() : {ty}"));
        n
    }

    /// A scalar constant (`value` in MLIR's syntax for `elem`).
    pub fn scalar_const(&mut self, value: &str, elem: Type) -> String {
        let n = self.fresh();
        let e = self.ty(elem);
        self.line(&format!("{n} = arith.constant {value} : {e}"));
        n
    }

    /// A tensor of type `t` filled with the scalar `value` (`linalg.fill`).
    pub fn filled(&mut self, t: Type, value: &str) -> Result<String, String> {
        let (_, elem) = self.static_tensor(t)?;
        let init = self.empty(t);
        let c = self.scalar_const(value, elem);
        let n = self.fresh();
        let (e, ty) = (self.ty(elem), self.ty(t));
        self.line(&format!("{n} = linalg.fill ins({c} : {e}) outs({init} : {ty}) -> {ty}"));
        Ok(n)
    }

    /// A `linalg.generic` over `num_loops` loops (`reduction` for those in `reductions`) with
    /// `inputs` and one output initialized by `init` (of type `out_ty`, indexed by `out_map`).
    /// `body` writes the scalar body: it gets a [`ScalarBody`], the block's input arguments and
    /// the output's, and returns the value to yield. Returns the result's name.
    #[allow(clippy::too_many_arguments)]
    pub fn generic(
        &mut self,
        num_loops: usize,
        reductions: &[usize],
        inputs: &[GenericInput],
        init: &str,
        out_ty: Type,
        out_map: &[Option<usize>],
        body: impl FnOnce(&mut ScalarBody, &[String], &str) -> Result<String, String>,
    ) -> Result<String, String> {
        let dims: Vec<String> = (0..num_loops).map(|d| format!("d{d}")).collect();
        let map = |m: &[Option<usize>]| {
            let r: Vec<String> = m.iter().map(|l| l.map_or("0".to_string(), |l| format!("d{l}"))).collect();
            format!("affine_map<({}) -> ({})>", dims.join(", "), r.join(", "))
        };
        let mut maps: Vec<String> = inputs.iter().map(|i| map(&i.map)).collect();
        maps.push(map(out_map));
        let iters: Vec<&str> =
            (0..num_loops).map(|d| if reductions.contains(&d) { "\"reduction\"" } else { "\"parallel\"" }).collect();
        let mut block_args = Vec::new();
        let mut arg_names = Vec::new();
        for input in inputs {
            let (_, e) = self.static_tensor(input.ty)?;
            let a = self.fresh();
            block_args.push(format!("{a}: {}", self.ty(e)));
            arg_names.push(a);
        }
        let (_, out_elem) = self.static_tensor(out_ty)?;
        let out_arg = self.fresh();
        block_args.push(format!("{out_arg}: {}", self.ty(out_elem)));
        let mut sb = ScalarBody { e: self, lines: Vec::new() };
        let yielded = body(&mut sb, &arg_names, &out_arg)?;
        let lines = std::mem::take(&mut sb.lines);
        let n = self.fresh();
        let ins_names: Vec<&str> = inputs.iter().map(|i| i.name).collect();
        let ins_types: Vec<String> = inputs.iter().map(|i| self.ty(i.ty)).collect();
        let out_t = self.ty(out_ty);
        let ins = if inputs.is_empty() {
            String::new()
        } else {
            format!(" ins({} : {})", ins_names.join(", "), ins_types.join(", "))
        };
        let mut text = format!(
            "{n} = linalg.generic {{indexing_maps = [{}], iterator_types = [{}]}}{ins} outs({init} : {out_t}) {{\n    ^bb0({}):\n",
            maps.join(", "),
            iters.join(", "),
            block_args.join(", ")
        );
        for l in lines {
            let _ = writeln!(text, "      {l}");
        }
        let _ = write!(text, "      linalg.yield {yielded} : {}\n    }} -> {out_t}", self.ty(out_elem));
        self.line(&text);
        Ok(n)
    }
}

/// The scalar body of a `linalg.generic` being written: arith/math ops on element values.
pub struct ScalarBody<'e, 'a> {
    pub e: &'e mut Emitter<'a>,
    lines: Vec<String>,
}

impl ScalarBody<'_, '_> {
    /// `%n = <op> <operands> : <ty>` (the usual arith/math form); returns `%n`.
    pub fn op(&mut self, op: &str, operands: &[&str], ty: Type) -> String {
        let n = self.e.fresh();
        self.lines.push(format!("{n} = {op} {} : {}", operands.join(", "), self.e.ty(ty)));
        n
    }
    /// A line written as is, defining a fresh value: `text` gets it through `{}`.
    pub fn raw(&mut self, text: impl FnOnce(&str) -> String) -> String {
        let n = self.e.fresh();
        self.lines.push(text(&n));
        n
    }
    /// A scalar constant.
    pub fn constant(&mut self, value: &str, ty: Type) -> String {
        let n = self.e.fresh();
        self.lines.push(format!("{n} = arith.constant {value} : {}", self.e.ty(ty)));
        n
    }
}

/// Writes `module` as upstream MLIR text: its `shard.grid`s and its functions with their
/// signatures (argument and result attributes dropped) and bodies (their blocks and branches as
/// upstream's `cf`). Ops outside the covered set are errors located at the op.
pub fn export_text(ctx: &Context, module: &Module) -> Result<String, Diagnostic> {
    export_functions(ctx, module, false, |_| true)
}

/// As [`export_text`], for the functions whose names `keep` accepts; `for_backend` (the MLIR
/// backend's export) leaves out the grids and makes `shard` ops errors.
pub fn export_functions(
    ctx: &Context,
    module: &Module,
    for_backend: bool,
    keep: impl Fn(&str) -> bool,
) -> Result<String, Diagnostic> {
    let mut out = String::from("module {\n");
    for op in module.ops() {
        let view = OpView::new(ctx, &module.body, op);
        if crate::generic_ops::is_grid(&view) {
            if !for_backend {
                let mut e = Emitter::new(ctx, false);
                crate::generic_ops::write_generic(&mut e, &view).map_err(|m| view.error(m))?;
                out.push_str(&e.out);
            }
            continue;
        }
        let body = module.body.nested(op);
        let Some(body) = body.filter(|_| FuncOp::matches(ctx, module.body.op_name(op))) else {
            return Err(view.error("is not covered by the MLIR export (functions and shard.grid only at the top level)"));
        };
        let name = body.self_attr(ctx, "sym_name").and_then(|a| ctx.as_str(a)).unwrap_or("");
        if keep(name) {
            out.push_str(&export_function(ctx, &view, body, for_backend)?);
        }
    }
    out.push_str("}\n");
    Ok(out)
}

/// The functions `entry` calls, directly or not, and itself (a call's `callee` attribute).
pub fn reachable_functions(ctx: &Context, module: &Module, entry: &str) -> Vec<String> {
    let mut seen = vec![entry.to_string()];
    let mut i = 0;
    while i < seen.len() {
        let Some(body) = module.lookup_symbol(ctx, &seen[i]).and_then(|op| module.body.nested(op)) else {
            i += 1;
            continue;
        };
        for op in body.walk_ops() {
            if let Some(callee) = body.attr(ctx, op, "callee").and_then(|a| ctx.as_symbol(a)) {
                if !seen.iter().any(|s| s == callee) {
                    seen.push(callee.to_string());
                }
            }
        }
        i += 1;
    }
    seen
}

/// One `func.func` (`func` is its op, `body` its body): its blocks in order, labelled `^bbN`
/// after the entry, with their arguments.
fn export_function(ctx: &Context, func: &OpView, body: &xcs_ir::Body, for_backend: bool) -> Result<String, Diagnostic> {
    let attr = |n: &str| body.self_attr(ctx, n);
    let name = attr("sym_name").and_then(|a| ctx.as_str(a)).ok_or_else(|| func.error("a function without a name"))?;
    let (inputs, results) =
        attr("function_type").and_then(|a| signature(ctx, a)).ok_or_else(|| func.error("a function without a type"))?;
    let private = attr("sym_visibility").and_then(|a| ctx.as_str(a)) == Some("private");
    let mut e = Emitter::new(ctx, for_backend);
    let region = body.root_regions()[0];
    let blocks: Vec<_> = body.region_blocks(region).collect();
    let res_types: Vec<String> = results.iter().map(|&t| e.ty(t)).collect();
    let vis = if private { "private " } else { "" };
    if blocks.is_empty() {
        let args: Vec<String> = inputs.iter().map(|&t| e.ty(t)).collect();
        return Ok(format!("  func.func {vis}@{name}({}) -> ({})\n", args.join(", "), res_types.join(", ")));
    }
    for (i, &b) in blocks.iter().enumerate().skip(1) {
        e.blocks.insert(b, format!("^bb{i}"));
    }
    let mut block_args = Vec::new();
    for &b in &blocks {
        let mut args = Vec::new();
        for &a in body.block_args(b) {
            let n = e.fresh();
            args.push(format!("{n}: {}", e.ty(body.value_type(a))));
            e.bind(a, n);
        }
        block_args.push(args);
    }
    for (i, &b) in blocks.iter().enumerate() {
        if i > 0 {
            let args = &block_args[i];
            let header = if args.is_empty() { format!("^bb{i}:") } else { format!("^bb{i}({}):", args.join(", ")) };
            e.block_header(&header);
        }
        for op in body.block_ops(b) {
            let view = OpView::new(ctx, body, op);
            exporter_of(&view).and_then(|x| x.export(&mut e, &view)).map_err(|m| view.error(m))?;
        }
    }
    Ok(format!(
        "  func.func {vis}@{name}({}) -> ({}) {{\n{}  }}\n",
        block_args[0].join(", "),
        res_types.join(", "),
        e.out
    ))
}

/// What the export makes of one op: writes its upstream form with `e` and binds its results.
pub trait ExportOp: Sync {
    fn export(&self, e: &mut Emitter, op: &OpView) -> Result<(), String>;
}
