//! An IR builder for tests: modules and functions built with the `Body` API (with the test
//! dialect's integer ops), pipelines run with the test passes registered, and a compact,
//! deterministic dump of bodies to assert on (the real printer lives in `xcs_ir::printer`).
//! The pass tests of `xcs-passes` (`passes/tests/`) are written with it.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use xcs_dialects::cf::{BranchOp, CondBranchOp};
use xcs_dialects::func::{CallOp, FuncOp, ReturnOp};
use xcs_ir::opdef::OpDef;
use xcs_ir::pass::{PassManager, PassManagerOptions};
use xcs_ir::{Attr, AttrKind, Block, Body, Context, Location, Module, Op, OperationState, Region, Type, Value};

use crate::dialect::{AddIOp, ConstantOp, EffectOp, MulIOp, NegIOp};

/// Every XCS dialect and the test dialect ([`crate::context`]).
pub fn ctx() -> Context {
    crate::context()
}

/// Adds a `func.func` with the given signature to the end of `m` and returns it. The body
/// has one entry block whose arguments are the function's arguments; `build` fills it.
pub fn func(
    ctx: &Context,
    m: &mut Module,
    name: &str,
    args: &[Type],
    results: &[Type],
    private: bool,
    build: impl FnOnce(&mut Ir<'_>),
) -> Op {
    let blk = m.block();
    func_in(ctx, &mut m.body, blk, name, args, results, private, build)
}

/// A module with one function `@f(%a: i32) -> i32`, the most common test input; `build` fills
/// its body, given `%a`.
pub fn i32_function(ctx: &Context, build: impl FnOnce(&mut Ir<'_>, Value)) -> Module {
    let i32t = ctx.i32_type();
    let mut m = module(ctx);
    func(ctx, &mut m, "f", &[i32t], &[i32t], false, |ir| {
        let a = ir.arg(0);
        build(ir, a);
    });
    m
}

/// Like [`func`], in any block of any body.
#[allow(clippy::too_many_arguments)]
pub fn func_in(
    ctx: &Context,
    parent: &mut Body,
    at: Block,
    name: &str,
    args: &[Type],
    results: &[Type],
    private: bool,
    build: impl FnOnce(&mut Ir<'_>),
) -> Op {
    let loc = ctx.file_loc("t.mlir", 1, 1);
    let mut body = Body::new(ctx, ctx.op_name(FuncOp::DEF.name), loc);
    let r = body.add_root_region();
    let entry = body.create_block(args);
    body.append_block(r, entry);
    {
        let mut ir = Ir {
            ctx,
            body: &mut body,
            block: entry,
        };
        build(&mut ir);
    }
    let mut st = OperationState::of(ctx, FuncOp::DEF, loc)
        .attr(ctx, "sym_name", ctx.str_attr(name))
        .attr(ctx, "function_type", ctx.type_attr(ctx.function_type(args, results)));
    if private {
        st = st.attr(ctx, "sym_visibility", ctx.str_attr("private"));
    }
    st.nested = Some(Box::new(body));
    let op = parent.create_op(st);
    parent.append_op(at, op);
    op
}

/// A private external function declaration.
pub fn decl(ctx: &Context, m: &mut Module, name: &str, args: &[Type], results: &[Type]) -> Op {
    let loc = ctx.file_loc("t.mlir", 1, 1);
    let mut body = Body::new(ctx, ctx.op_name(FuncOp::DEF.name), loc);
    body.add_root_region();
    let mut st = OperationState::of(ctx, FuncOp::DEF, loc)
        .attr(ctx, "sym_name", ctx.str_attr(name))
        .attr(ctx, "function_type", ctx.type_attr(ctx.function_type(args, results)))
        .attr(ctx, "sym_visibility", ctx.str_attr("private"));
    st.nested = Some(Box::new(body));
    let op = m.body.create_op(st);
    let blk = m.block();
    m.body.append_op(blk, op);
    op
}

/// Appends ops to one block.
pub struct Ir<'a> {
    pub ctx: &'a Context,
    pub body: &'a mut Body,
    pub block: Block,
}

impl Ir<'_> {
    pub fn arg(&self, i: usize) -> Value {
        self.body.block_arg(self.block, i)
    }
    /// A generic op: `name(operands) {attrs} -> results`, at line `line` of `t.mlir`.
    pub fn op_at(&mut self, line: u32, name: &str, operands: &[Value], results: &[Type], attrs: &[(&str, Attr)]) -> Op {
        let st = OperationState::new(self.ctx, name, self.ctx.file_loc("t.mlir", line, 3));
        self.append(st, operands, results, attrs)
    }
    /// A generic op of any name (also unregistered ones), at line 0 of `t.mlir`.
    pub fn op(&mut self, name: &str, operands: &[Value], results: &[Type], attrs: &[(&str, Attr)]) -> Op {
        self.op_at(0, name, operands, results, attrs)
    }
    /// An op of a declaration, at line 0 of `t.mlir`.
    pub fn op_of(&mut self, def: &OpDef, operands: &[Value], results: &[Type], attrs: &[(&str, Attr)]) -> Op {
        let st = OperationState::of(self.ctx, def, self.ctx.file_loc("t.mlir", 0, 3));
        self.append(st, operands, results, attrs)
    }
    fn append(&mut self, st: OperationState, operands: &[Value], results: &[Type], attrs: &[(&str, Attr)]) -> Op {
        let mut st = st.operands(operands).results(results);
        for &(k, v) in attrs {
            st.add_attr(self.ctx, k, v);
        }
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        op
    }
    pub fn val(&mut self, name: &str, operands: &[Value], ty: Type) -> Value {
        let op = self.op(name, operands, &[ty], &[]);
        self.body.result(op, 0)
    }
    fn val_of(&mut self, def: &OpDef, operands: &[Value], ty: Type) -> Value {
        let op = self.op_of(def, operands, &[ty], &[]);
        self.body.result(op, 0)
    }
    /// `test.constant` of an `i32`.
    pub fn constant(&mut self, v: i128) -> Value {
        let ty = self.ctx.i32_type();
        let op = self.op_of(ConstantOp::DEF, &[], &[ty], &[("value", self.ctx.int_attr(v, ty))]);
        self.body.result(op, 0)
    }
    pub fn addi(&mut self, a: Value, b: Value) -> Value {
        let t = self.body.value_type(a);
        self.val_of(AddIOp::DEF, &[a, b], t)
    }
    pub fn muli(&mut self, a: Value, b: Value) -> Value {
        let t = self.body.value_type(a);
        self.val_of(MulIOp::DEF, &[a, b], t)
    }
    pub fn negi(&mut self, a: Value) -> Value {
        let t = self.body.value_type(a);
        self.val_of(NegIOp::DEF, &[a], t)
    }
    pub fn effect(&mut self, vals: &[Value]) -> Op {
        self.op_of(EffectOp::DEF, vals, &[], &[])
    }
    pub fn ret(&mut self, vals: &[Value]) -> Op {
        self.op_of(ReturnOp::DEF, vals, &[], &[])
    }
    pub fn call(&mut self, callee: &str, args: &[Value], results: &[Type]) -> Op {
        let a = self.ctx.symbol_ref(callee);
        self.op_of(CallOp::DEF, args, results, &[("callee", a)])
    }
    /// A new block appended to the same region (switch to it with [`Ir::at`]).
    pub fn new_block(&mut self, args: &[Type]) -> Block {
        let r = self.body.block_region(self.block).expect("block in a region");
        let b = self.body.create_block(args);
        self.body.append_block(r, b);
        b
    }
    pub fn at(&mut self, b: Block) -> &mut Self {
        self.block = b;
        self
    }
    pub fn br(&mut self, dest: Block, args: &[Value]) -> Op {
        let mut st = OperationState::of(self.ctx, BranchOp::DEF, Location::UNKNOWN).operands(args);
        st.successors.push(dest);
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        op
    }
    pub fn cond_br(&mut self, c: Value, t: Block, targs: &[Value], f: Block, fargs: &[Value]) -> Op {
        let mut ops = vec![c];
        ops.extend_from_slice(targs);
        ops.extend_from_slice(fargs);
        let seg: Vec<u8> = [1i32, targs.len() as i32, fargs.len() as i32]
            .iter()
            .flat_map(|s| s.to_le_bytes())
            .collect();
        let seg = self.ctx.attr(AttrKind::DenseArray {
            elem: self.ctx.i32_type(),
            data: seg.into(),
        });
        let mut st = OperationState::of(self.ctx, CondBranchOp::DEF, Location::UNKNOWN)
            .operands(&ops)
            .attr(self.ctx, "operandSegmentSizes", seg);
        st.successors.push(t);
        st.successors.push(f);
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        op
    }
    /// An op with one region of one block; `build` fills the block (with arguments `args`).
    pub fn region_op(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[Type],
        args: &[Type],
        build: impl FnOnce(&mut Ir<'_>),
    ) -> Op {
        let r = self.body.create_region();
        let b = self.body.create_block(args);
        self.body.append_block(r, b);
        {
            let mut inner = Ir {
                ctx: self.ctx,
                body: &mut *self.body,
                block: b,
            };
            build(&mut inner);
        }
        let mut st = OperationState::new(self.ctx, name, Location::UNKNOWN)
            .operands(operands)
            .results(results);
        st.regions.push(r);
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        op
    }
}

/// A module with the location `t.mlir:1:1`.
pub fn module(ctx: &Context) -> Module {
    Module::new(ctx, ctx.file_loc("t.mlir", 1, 1))
}

/// Verifies `m` (panicking with the verifier's messages), runs `pipeline` (any XCS or test
/// pass) with the real verifier after each pass and returns the diagnostics' messages.
pub fn run(ctx: &Context, m: &mut Module, pipeline: &str) -> Result<Vec<String>, Vec<String>> {
    if let Err(errs) = xcs_ir::verifier::verify_module(ctx, m, false) {
        let msgs: Vec<String> = errs.into_iter().map(|d| d.message).collect();
        panic!("test input does not verify: {msgs:?}\n{}", dump_module(ctx, m));
    }
    let mut pm = PassManager::parse(pipeline, &crate::registry()).unwrap_or_else(|e| panic!("{}", e.render()));
    pm.options = PassManagerOptions::default();
    let mut diags = Vec::new();
    let r = pm.run_with(ctx, m, &mut diags, &mut std::io::sink(), None);
    let msgs = diags.into_iter().map(|d| d.message).collect();
    if r.is_ok() {
        Ok(msgs)
    } else {
        Err(msgs)
    }
}

/// A compact dump of a body: one op per line,
/// `%0, %1 = name(%a, %b)[^bb1] {k = v}` with regions and nested bodies indented. Values are
/// numbered in definition order; types and locations are left out.
pub fn dump(ctx: &Context, body: &Body) -> String {
    let mut d = Dumper {
        ctx,
        out: String::new(),
        names: FxHashMap::default(),
        next: 0,
        blocks: FxHashMap::default(),
    };
    let name = ctx.op_name_str(body.name());
    let _ = write!(d.out, "{name}{}", d.attrs(body.self_attrs()));
    d.regions(body, body.root_regions(), 0);
    d.out.push('\n');
    d.out
}

/// [`dump`] of every top-level op of a module, one per function.
pub fn dump_module(ctx: &Context, m: &Module) -> String {
    dump(ctx, &m.body)
}

struct Dumper<'c> {
    ctx: &'c Context,
    out: String,
    names: FxHashMap<(usize, Value), String>,
    next: usize,
    blocks: FxHashMap<(usize, Block), usize>,
}

impl Dumper<'_> {
    fn v(&mut self, body: &Body, v: Value) -> String {
        let key = (body as *const Body as usize, v);
        if let Some(n) = self.names.get(&key) {
            return n.clone();
        }
        let n = format!("%{}", self.next);
        self.next += 1;
        self.names.insert(key, n.clone());
        n
    }
    fn attr(&self, a: Attr) -> String {
        let ctx = self.ctx;
        match ctx.attr_kind(a) {
            AttrKind::Integer { value, .. } => value.to_string(),
            AttrKind::String { .. } => format!("{:?}", ctx.as_str(a).unwrap_or("")),
            AttrKind::SymbolRef { root, nested } => {
                let mut s = format!("@{}", ctx.str(*root));
                for n in nested.iter() {
                    let _ = write!(s, "::@{}", ctx.str(*n));
                }
                s
            }
            AttrKind::Unit => "unit".into(),
            AttrKind::Type(_) => "type".into(),
            AttrKind::Array(items) => format!(
                "[{}]",
                items.iter().map(|&i| self.attr(i)).collect::<Vec<_>>().join(", ")
            ),
            AttrKind::Dictionary(_) => self.attrs(a),
            AttrKind::DenseArray { .. } => format!("{:?}", ctx.as_dense_ints(a).unwrap_or_default()),
            _ => "?".into(),
        }
    }
    fn attrs(&self, d: Attr) -> String {
        let entries: Vec<String> = self
            .ctx
            .dict_entries(d)
            .iter()
            .filter(|(k, _)| !matches!(self.ctx.str(*k), "function_type" | "operandSegmentSizes"))
            .map(|&(k, v)| format!("{} = {}", self.ctx.str(k), self.attr(v)))
            .collect();
        if entries.is_empty() {
            String::new()
        } else {
            format!(" {{{}}}", entries.join(", "))
        }
    }
    fn regions(&mut self, body: &Body, regions: &[Region], level: usize) {
        for &r in regions {
            self.out.push_str(" {");
            for (i, b) in body.region_blocks(r).enumerate() {
                let key = (body as *const Body as usize, b);
                let n = self.blocks.len();
                let label = *self.blocks.entry(key).or_insert(n);
                if i > 0 || !body.block_args(b).is_empty() {
                    let args: Vec<String> = body.block_args(b).iter().map(|&a| self.v(body, a)).collect();
                    let _ = write!(self.out, "\n{}^bb{label}({}):", "  ".repeat(level), args.join(", "));
                }
                for op in body.block_ops(b) {
                    self.op(body, op, level + 1);
                }
            }
            let _ = write!(self.out, "\n{}}}", "  ".repeat(level));
        }
    }
    fn op(&mut self, body: &Body, op: Op, level: usize) {
        let results: Vec<String> = body.results(op).map(|v| self.v(body, v)).collect();
        let operands: Vec<String> = body.operands(op).map(|v| self.v(body, v)).collect();
        let _ = write!(self.out, "\n{}", "  ".repeat(level));
        if !results.is_empty() {
            let _ = write!(self.out, "{} = ", results.join(", "));
        }
        let _ = write!(
            self.out,
            "{}({})",
            self.ctx.op_name_str(body.op_name(op)),
            operands.join(", ")
        );
        if !body.successors(op).is_empty() {
            let succ: Vec<String> = body
                .successors(op)
                .iter()
                .map(|&b| {
                    let key = (body as *const Body as usize, b);
                    let n = self.blocks.len();
                    format!("^bb{}", *self.blocks.entry(key).or_insert(n))
                })
                .collect();
            let _ = write!(self.out, "[{}]", succ.join(", "));
        }
        let a = self.attrs(body.attrs(op));
        self.out.push_str(&a);
        match body.nested(op) {
            Some(n) => {
                let roots: Vec<Region> = n.root_regions().to_vec();
                self.regions(n, &roots, level);
            }
            None => {
                let regions: Vec<Region> = body.regions(op).to_vec();
                self.regions(body, &regions, level);
            }
        }
    }
}
