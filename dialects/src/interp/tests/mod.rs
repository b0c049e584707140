//! Tests of the interpreter. Programs are written in the IR's text form, parsed and verified
//! ([`parse`]); single-op tests generate the text from the operand types and attributes
//! ([`run_op_in`]). The `Body` builder [`B`] remains for the tests that run IR the verifier
//! would reject (the interpreter must report such IR as a run-time error, not panic).
//! Expected values were computed by hand or with numpy 2.4 (quoted where they come from numpy).

// `&[x.clone()]` reads better than `std::slice::from_ref(&x)` in tests.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod control;
mod devices;
mod semantics;
mod tensor;
mod values;
mod xcs;

use xcs_ir::{Attr, Block, Body, Context, Location, Module, OperationState, Type, Value};

use super::*;

/// Builds one function body without the parser or verifier (for IR only a buggy pass would
/// produce): ops are appended to the entry block; op `n` gets the location `test.mlir:<n+1>:1`.
pub(crate) struct B<'c> {
    pub ctx: &'c Context,
    pub body: Body,
    pub block: Block,
    pub line: u32,
}

impl<'c> B<'c> {
    /// A `func.func` body whose entry block takes `inputs`.
    pub fn func(ctx: &'c Context, inputs: &[Type]) -> (B<'c>, Vec<Value>) {
        let mut body = Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN);
        let region = body.add_root_region();
        let block = body.create_block(inputs);
        body.append_block(region, block);
        let args = body.block_args(block).to_vec();
        (B { ctx, body, block, line: 1 }, args)
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
    pub fn ret(&mut self, vals: &[Value]) {
        self.op("func.return", vals, &[], &[]);
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

/// `tensor<shape x elem>` (`-1` in `shape` = `?`).
pub(crate) fn tt(ctx: &Context, shape: &[i64], elem: ElemType) -> Type {
    let s: Vec<i64> = shape.iter().map(|&d| if d < 0 { xcs_ir::DYNAMIC } else { d }).collect();
    ctx.tensor_type(&s, elem.to_type(ctx))
}

/// The type of a runtime tensor.
pub(crate) fn ty_of(ctx: &Context, t: &Tensor) -> Type {
    t.ir_type(ctx)
}

/// Parses and verifies a module (file name `test.mlir`); panics with the message on errors.
pub(crate) fn parse(ctx: &Context, src: &str) -> Module {
    parse_with(ctx, src, false)
}

pub(crate) fn parse_with(ctx: &Context, src: &str, allow_unregistered: bool) -> Module {
    let opts = xcs_ir::parser::ParseOptions { allow_unregistered, ..Default::default() };
    let m = xcs_ir::parser::parse_module(ctx, src, "test.mlir", &opts)
        .unwrap_or_else(|d| panic!("parse error: {}\n{src}", d.message));
    if let Err(ds) = xcs_ir::verifier::verify_module(ctx, &m, false) {
        let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
        panic!("verification failed: {msgs:?}\n{src}");
    }
    m
}

/// The location the parser gives the op starting at the first occurrence of `needle` in `src`.
pub(crate) fn loc_of(ctx: &Context, src: &str, needle: &str) -> Location {
    let at = src.find(needle).unwrap_or_else(|| panic!("'{needle}' not in the source"));
    let line = src[..at].matches('\n').count() as u32 + 1;
    let col = (at - src[..at].rfind('\n').map_or(0, |p| p + 1)) as u32 + 1;
    ctx.file_loc("test.mlir", line, col)
}

/// Runs one op on tensor inputs: the text `func.func @f(%a0: T0, ...) -> R { %r = op %a0, ...
/// {attrs} : (T0, ...) -> R  return %r : R }`, parsed and verified, then run.
pub(crate) fn run_op_in(ctx: &Context, name: &str, inputs: &[Tensor], result: Type, attrs: &[(&str, Attr)]) -> Result<Tensor, String> {
    let ty = |t: Type| xcs_ir::printer::type_to_string(ctx, t);
    let in_types: Vec<String> = inputs.iter().map(|t| ty(ty_of(ctx, t))).collect();
    let params: Vec<String> = in_types.iter().enumerate().map(|(i, t)| format!("%a{i}: {t}")).collect();
    let operands: Vec<String> = (0..inputs.len()).map(|i| format!("%a{i}")).collect();
    let dict = if attrs.is_empty() {
        String::new()
    } else {
        let items: Vec<String> = attrs.iter().map(|(k, v)| format!("{k} = {}", xcs_ir::printer::attr_to_string(ctx, *v))).collect();
        format!(" {{{}}}", items.join(", "))
    };
    let r = ty(result);
    let src = format!(
        "func.func @f({}) -> {r} {{\n  %r = {name} {}{dict} : ({}) -> {r}\n  return %r : {r}\n}}\n",
        params.join(", "),
        operands.join(", "),
        in_types.join(", ")
    );
    let m = parse(ctx, &src);
    first_tensor(run_function(ctx, &m, "f", inputs.iter().cloned().map(RtValue::Tensor).collect()))
}

/// Like [`run_op_in`], but the function is built with the `Body` API and not verified: for
/// IR that only a buggy pass would produce.
pub(crate) fn run_op_raw(ctx: &Context, name: &str, inputs: &[Tensor], result: Type, attrs: &[(&str, Attr)]) -> Result<Tensor, String> {
    let in_types: Vec<Type> = inputs.iter().map(|t| ty_of(ctx, t)).collect();
    let (mut b, args) = B::func(ctx, &in_types);
    let r = b.op1(name, &args, result, attrs);
    b.ret(&[r]);
    let mut m = Module::new(ctx, Location::UNKNOWN);
    b.finish(&mut m, "f", &in_types, &[result]);
    first_tensor(run_function(ctx, &m, "f", inputs.iter().cloned().map(RtValue::Tensor).collect()))
}

fn first_tensor(r: Result<Vec<RtValue>, InterpError>) -> Result<Tensor, String> {
    match r.map_err(|e| e.message)?.into_iter().next() {
        Some(RtValue::Tensor(t)) => Ok(t),
        other => Err(format!("not a tensor: {other:?}")),
    }
}

/// Parses, verifies and runs `@name` of a module written in text.
pub(crate) fn run_src(ctx: &Context, src: &str, name: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
    let m = parse(ctx, src);
    run_function(ctx, &m, name, args)
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
