//! Tests of the interpreter. Programs are built with the `Body` API through the small builder
//! below (the text parser is written in parallel); expected values were computed by hand or with
//! numpy 2.4 (quoted where they come from numpy).

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in tests.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod control;
mod tensor;
mod values;
mod xcs;

use xcs_ir::{Attr, AttrKind, Block, Body, Context, Location, Module, OperationState, Region, Type, Value};

use super::*;

/// Builds one function body: ops are appended to the current block; every op gets the location
/// `test.mlir:<n>:1` with `n` counting up, so errors can be checked by line.
pub(crate) struct B<'c> {
    pub ctx: &'c Context,
    pub body: Body,
    pub block: Block,
    pub region: Region,
    pub line: u32,
}

impl<'c> B<'c> {
    /// A body for an isolated op named `name` whose entry block takes `inputs`.
    pub fn isolated(ctx: &'c Context, name: &str, inputs: &[Type]) -> (B<'c>, Vec<Value>) {
        let mut body = Body::new(ctx, ctx.op_name(name), Location::UNKNOWN);
        let region = body.add_root_region();
        let block = body.create_block(inputs);
        body.append_block(region, block);
        let args = body.block_args(block).to_vec();
        (B { ctx, body, block, region, line: 1 }, args)
    }
    pub fn func(ctx: &'c Context, inputs: &[Type]) -> (B<'c>, Vec<Value>) {
        Self::isolated(ctx, "func.func", inputs)
    }
    pub fn next_loc(&mut self) -> Location {
        self.line += 1;
        self.ctx.file_loc("test.mlir", self.line, 1)
    }
    /// Appends an op and returns its results.
    pub fn op(&mut self, name: &str, operands: &[Value], results: &[Type], attrs: &[(&str, Attr)]) -> Vec<Value> {
        let loc = self.next_loc();
        let mut st = OperationState::new(self.ctx, name, loc).operands(operands).results(results);
        for (k, v) in attrs {
            st.add_attr(self.ctx, k, *v);
        }
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        self.body.results(op).collect()
    }
    pub fn op1(&mut self, name: &str, operands: &[Value], result: Type, attrs: &[(&str, Attr)]) -> Value {
        self.op(name, operands, &[result], attrs)[0]
    }
    /// An op with one region (in this body) whose entry block takes `arg_types`; `build`
    /// fills the region (and must end it with a terminator).
    pub fn region_op(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, Attr)],
        arg_types: &[Type],
        build: impl FnOnce(&mut B<'c>, &[Value]),
    ) -> Vec<Value> {
        let region = self.body.create_region();
        let block = self.body.create_block(arg_types);
        self.body.append_block(region, block);
        let args = self.body.block_args(block).to_vec();
        let (saved_block, saved_region) = (self.block, self.region);
        self.block = block;
        self.region = region;
        build(self, &args);
        self.block = saved_block;
        self.region = saved_region;
        let loc = self.next_loc();
        let mut st = OperationState::new(self.ctx, name, loc).operands(operands).results(results);
        for (k, v) in attrs {
            st.add_attr(self.ctx, k, *v);
        }
        st.regions.push(region);
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        self.body.results(op).collect()
    }
    /// An isolated op (e.g. `tensor.fused`) whose nested body is built by `build`.
    pub fn isolated_op(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[Type],
        arg_types: &[Type],
        build: impl FnOnce(&mut B<'c>, &[Value]),
    ) -> Vec<Value> {
        let (mut inner, args) = B::isolated(self.ctx, name, arg_types);
        build(&mut inner, &args);
        let loc = self.next_loc();
        let mut st = OperationState::new(self.ctx, name, loc).operands(operands).results(results);
        st.nested = Some(Box::new(inner.body));
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
        self.body.results(op).collect()
    }
    /// A new block at the end of the current region.
    pub fn new_block(&mut self, arg_types: &[Type]) -> (Block, Vec<Value>) {
        let b = self.body.create_block(arg_types);
        self.body.append_block(self.region, b);
        let args = self.body.block_args(b).to_vec();
        (b, args)
    }
    pub fn set_block(&mut self, b: Block) {
        self.block = b;
    }
    pub fn ret(&mut self, vals: &[Value]) {
        self.op("func.return", vals, &[], &[]);
    }
    pub fn br(&mut self, dest: Block, args: &[Value]) {
        let loc = self.next_loc();
        let mut st = OperationState::new(self.ctx, "cf.br", loc).operands(args);
        st.successors.push(dest);
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
    }
    pub fn cond_br(&mut self, cond: Value, t: Block, targs: &[Value], f: Block, fargs: &[Value]) {
        let loc = self.next_loc();
        let mut ops = vec![cond];
        ops.extend(targs);
        ops.extend(fargs);
        let seg = i32_array(self.ctx, &[1, targs.len() as i32, fargs.len() as i32]);
        let mut st = OperationState::new(self.ctx, "cf.cond_br", loc).operands(&ops).attr(self.ctx, "operandSegmentSizes", seg);
        st.successors.push(t);
        st.successors.push(f);
        let op = self.body.create_op(st);
        self.body.append_op(self.block, op);
    }
    /// Adds this body as `func.func @name` to `module`.
    pub fn finish(self, module: &mut Module, name: &str, inputs: &[Type], results: &[Type]) {
        let ctx = self.ctx;
        let ft = ctx.type_attr(ctx.function_type(inputs, results));
        let mut st = OperationState::new(ctx, "func.func", ctx.file_loc("test.mlir", 1, 1))
            .attr(ctx, "sym_name", ctx.str_attr(name))
            .attr(ctx, "function_type", ft);
        st.nested = Some(Box::new(self.body));
        let block = module.block();
        let op = module.body.create_op(st);
        module.body.append_op(block, op);
    }
}

pub(crate) fn i32_array(ctx: &Context, v: &[i32]) -> Attr {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.attr(AttrKind::DenseArray { elem: ctx.i32_type(), data: data.into() })
}

/// `tensor<shape x elem>` (`-1` in `shape` = `?`).
pub(crate) fn tt(ctx: &Context, shape: &[i64], elem: ElemType) -> Type {
    let s: Vec<i64> = shape.iter().map(|&d| if d < 0 { xcs_ir::DYNAMIC } else { d }).collect();
    ctx.tensor_type(&s, elem.to_type(ctx))
}

/// The type of a runtime tensor.
pub(crate) fn ty_of(ctx: &Context, t: &Tensor) -> Type {
    t.ir_type(ctx)
}

/// Runs one op on tensor inputs: `fn(inputs) -> result_type { op }`.
pub(crate) fn run_op_in(ctx: &Context, name: &str, inputs: &[Tensor], result: Type, attrs: &[(&str, Attr)]) -> Result<Tensor, String> {
    let in_types: Vec<Type> = inputs.iter().map(|t| ty_of(ctx, t)).collect();
    let (mut b, args) = B::func(ctx, &in_types);
    let r = b.op1(name, &args, result, attrs);
    b.ret(&[r]);
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", &in_types, &[result]);
    let out = run_function(ctx, &m, "f", inputs.iter().cloned().map(RtValue::Tensor).collect()).map_err(|e| e.message)?;
    match out.into_iter().next() {
        Some(RtValue::Tensor(t)) => Ok(t),
        other => Err(format!("not a tensor: {other:?}")),
    }
}

/// Asserts bitwise equality with a readable message.
#[track_caller]
pub(crate) fn assert_bits(got: &Tensor, want: &Tensor) {
    assert!(got.bit_eq(want), "\n got: {got:?}\nwant: {want:?}");
}

/// Asserts closeness (numpy `allclose`).
#[track_caller]
pub(crate) fn assert_close(got: &Tensor, want: &Tensor, rtol: f64) {
    if let Err(e) = got.allclose(want, rtol, 0.0) {
        panic!("{e}\n got: {got:?}\nwant: {want:?}");
    }
}
