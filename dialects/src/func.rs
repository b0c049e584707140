//! The `func` dialect, as MLIR defines it: `func.func` (a symbol with a function type and a
//! body), `func.return`, `func.call`, and function values: `func.constant` (a function as a
//! value) and `func.call_indirect` (a call of one). Its custom syntax matches mlir-opt's
//! output. The interpreter runs the calls through their `Semantics` ([`CallSemantics`],
//! [`CallIndirectSemantics`]; a function value is an `RtValue::Func`); `func.return` is
//! `ReturnLike`, which the interpreter runs for every such terminator. `func.call` declares its
//! `vmap-batch` batching rule here (a call of a batched clone).

use smallvec::SmallVec;
use xcs_ir::interfaces::{DefaultDialect, ResultName};
use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{DialectDef, OpView, SymbolLookup, Syntax, TypeConstraint};
use xcs_ir::rewrite::{FnPattern, RewritePattern, Rewriter};
use xcs_ir::{op, Body, Builder, Context, Diagnostic, Location, Module, Op, OperationState, Type, TypeKind, Value};

use crate::interfaces::batching::{
    BatchResult, BatchedResults, BatchedValue, Batcher, BatchingRule, RuleFn, Unbatchable,
};
use crate::interp::semantics::{Control, OpRun, Semantics};
use crate::interp::{FuncValue, InterpError, RtValue};

op! {
    /// An operation with a name containing a single SSACFG region: a function. Functions
    /// without a body (an empty region) are external declarations and may not be public.
    /// Custom form: `func.func private @name(%arg0: i32 {attrs}) -> (f32 {attrs}) attributes {..} {body}`.
    pub struct FuncOp = "func.func" in FUNC_OPS {
        summary: "An operation with a name containing a single `SSACFG` region",
        attributes: {
            sym_name: SYMBOL_NAME_ATTR,
            function_type: FUNCTION_TYPE_ATTR,
            #[optional] sym_visibility: STR_ATTR,
            #[optional] arg_attrs: DICT_ARRAY_ATTR,
            #[optional] res_attrs: DICT_ARRAY_ATTR,
            #[optional] no_inline: UNIT_ATTR,
        },
        regions: { body: u32::MAX },
        traits: [IsolatedFromAbove, Symbol, FunctionLike],
        verify: verify_func,
        interfaces: [DefaultDialect => &DefaultDialect("func")],
        syntax: Syntax::Custom { parse: crate::func_syntax::parse_func, print: crate::func_syntax::print_func },
    }
}

op! {
    /// Returns control from a function to its caller with the given values, which must match
    /// the function's result types. Custom form: `return %a, %b : i32, f32`.
    pub struct ReturnOp = "func.return" in FUNC_OPS {
        summary: "Function return operation",
        operands: { #[variadic] operands: ANY_TYPE },
        traits: [Pure, Terminator, ReturnLike],
        verify: verify_return,
        syntax: Syntax::Custom { parse: crate::func_syntax::parse_return, print: crate::func_syntax::print_return },
    }
}

op! {
    /// Calls the function named by `callee` (a symbol in the nearest symbol table) with the
    /// operands; operand and result types must match the callee's function type.
    /// Custom form: `%r = call @f(%a) : (i32) -> f32`.
    pub struct CallOp = "func.call" in FUNC_OPS {
        summary: "Call operation",
        operands: { #[variadic] operands: ANY_TYPE },
        results: { #[variadic] results: ANY_TYPE },
        attributes: {
            callee: FLAT_SYMBOL_REF_ATTR,
            #[optional] arg_attrs: DICT_ARRAY_ATTR,
            #[optional] res_attrs: DICT_ARRAY_ATTR,
            #[optional] no_inline: UNIT_ATTR,
        },
        traits: [CallLike],
        verify_symbol_uses: verify_call,
        interfaces: [
            dyn Semantics => &CallSemantics,
            dyn BatchingRule => &CALL_BATCHING,
        ],
        syntax: Syntax::Custom { parse: crate::func_syntax::parse_call, print: crate::func_syntax::print_call },
    }
}

op! {
    /// A function as an SSA value: `%f = func.constant @fn : (i32) -> i32` names the
    /// `func.func @fn` of that type (MLIR allows no direct reference to a function as an
    /// operand). Generic form: `"func.constant"() <{value = @fn}> : () -> ((i32) -> i32)`. It is
    /// pure and constant-like, so cse and canonicalize merge copies (hoisted to the function's
    /// entry) and dce removes unused ones; its reference keeps `@fn` alive for `symbol-dce` and
    /// the inliner. Its result prints as `%f` (`%f_0`, ... when taken), as mlir-opt names it.
    pub struct ConstantOp = "func.constant" in FUNC_OPS {
        summary: "constant",
        results: { result: ANY_TYPE },
        attributes: { value: FLAT_SYMBOL_REF_ATTR },
        traits: [Pure, ConstantLike],
        verify_symbol_uses: verify_constant,
        interfaces: [
            dyn Semantics => &ConstantSemantics,
            ResultName => &ResultName("f"),
        ],
        syntax: Syntax::Custom { parse: crate::func_syntax::parse_constant, print: crate::func_syntax::print_constant },
    }
}

op! {
    /// Calls the function value `callee` (e.g. made by `func.constant`) with the other
    /// operands; their types and the result types must be the callee's function type. Custom
    /// form: `%r = func.call_indirect %f(%a) : (i32) -> i32`. Its effects are those of any
    /// call (unknown: never removed, merged or moved). Canonicalization turns a call of a
    /// `func.constant` into a `func.call` of its function, which the inliner then inlines, as in
    /// MLIR (whose inliner leaves indirect calls alone).
    pub struct CallIndirectOp = "func.call_indirect" in FUNC_OPS {
        summary: "indirect call operation",
        operands: { callee: FUNCTION_TYPE, #[variadic] callee_operands: ANY_TYPE },
        results: { #[variadic] results: ANY_TYPE },
        attributes: {
            #[optional] arg_attrs: DICT_ARRAY_ATTR,
            #[optional] res_attrs: DICT_ARRAY_ATTR,
        },
        verify: verify_call_indirect,
        patterns: CALL_INDIRECT_PATTERNS,
        interfaces: [dyn Semantics => &CallIndirectSemantics],
        syntax: Syntax::Custom { parse: crate::func_syntax::parse_call_indirect, print: crate::func_syntax::print_call_indirect },
    }
}

xcs_ir::op_list!(pub FUNC_OPS);

/// A function type (`(i32) -> i32`; ODS's `FunctionType`).
pub const FUNCTION_TYPE: TypeConstraint = TypeConstraint {
    desc: "function type",
    check: |c, t| matches!(c.type_kind(t), TypeKind::Function { .. }),
};

/// What `func.constant` does when run: makes the function value of its `value` symbol.
pub struct ConstantSemantics;

impl Semantics for ConstantSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let (ctx, body, op) = (run.ctx, run.body, run.op);
        let symbol = body
            .attr(ctx, op, "value")
            .and_then(|a| ctx.as_symbol(a))
            .ok_or_else(|| run.error("requires a 'value' symbol reference"))?;
        let ty = *body.result_types(op).first().ok_or_else(|| run.error("has no result"))?;
        Ok(Control::Values(vec![RtValue::Func(FuncValue::new(ctx, symbol, ty))]))
    }
}

/// What `func.call_indirect` does when run: calls the function its first operand holds with
/// the other operands (one call level deeper) and gives the function's results.
pub struct CallIndirectSemantics;

impl Semantics for CallIndirectSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let mut args = run.operand_values();
        if args.is_empty() {
            return Err(run.error("has no callee"));
        }
        let callee = match args.remove(0) {
            RtValue::Func(f) => f,
            other => return Err(run.error(format!("callee is a {}, not a function", other.type_string()))),
        };
        run.call(&callee.symbol, args).map(Control::Values)
    }
}

static CALL_INDIRECT_PATTERNS: &[&dyn RewritePattern] = &[&CALL_OF_CONSTANT];
static CALL_OF_CONSTANT: FnPattern = FnPattern {
    name: "func-call-indirect-of-constant",
    f: call_of_constant,
};

/// `func.call_indirect` of a `func.constant @f`: a `func.call @f` (MLIR's
/// `CallIndirectOp::canonicalize`), keeping the argument and result attributes.
fn call_of_constant(op: Op, rw: &mut Rewriter<'_>) -> bool {
    let (ctx, body) = (rw.ctx, &*rw.body);
    let Some(callee) = body.operands(op).next().and_then(|v| body.defining_op(v)) else {
        return false;
    };
    if ConstantOp::cast(ctx, body, callee).is_none() {
        return false;
    }
    let Some(symbol) = body.attr(ctx, callee, "value").filter(|&a| ctx.as_symbol(a).is_some()) else {
        return false;
    };
    let args: SmallVec<[Value; 4]> = body.operands(op).skip(1).collect();
    let mut st = OperationState::of(ctx, CallOp::DEF, body.op_loc(op))
        .operands(&args)
        .attr(ctx, "callee", symbol);
    st.result_types = body.result_types(op);
    for key in ["arg_attrs", "res_attrs"] {
        if let Some(a) = body.attr(ctx, op, key) {
            st = st.attr(ctx, key, a);
        }
    }
    rw.replace_op_with_new(op, st);
    true
}

/// What `func.call` does when run: calls the function its `callee` names with the operands
/// (one call level deeper) and gives the function's results.
pub struct CallSemantics;

impl Semantics for CallSemantics {
    fn exec(&self, run: &OpRun<'_>) -> Result<Control, InterpError> {
        let callee = run
            .body
            .attr(run.ctx, run.op, "callee")
            .and_then(|a| run.ctx.as_symbol(a))
            .ok_or_else(|| run.error("requires a 'callee' symbol reference"))?;
        run.call(callee, run.operand_values()).map(Control::Values)
    }
}

pub static FUNC_DIALECT: DialectDef = DialectDef {
    name: "func",
    summary: "Functions, calls and returns (MLIR's `func` dialect)",
    description: "Functions are symbols in a module. A function with an empty body is an \
external declaration; XCS uses private declarations for the LLM, API and library calls that \
`classify` looks at.",
    ops: xcs_ir::opdef::OpList::Collected(&FUNC_OPS),
    types: &[],
    attrs: &[],
    materialize_constant: None,
};

/// The batching rule of `func.call` (`vmap-batch`): a call with batched arguments calls the
/// batched clone of its callee that the pass makes for this pattern of batched arguments
/// ([`Batcher::batched_call`]), with the same attributes.
static CALL_BATCHING: RuleFn = RuleFn(batch_call);

fn batch_call(b: &mut dyn Batcher<'_>, op: Op, ins: &[BatchedValue]) -> BatchResult<BatchedResults> {
    let ctx = b.ctx();
    let callee = b
        .body()
        .attr(ctx, op, "callee")
        .and_then(|a| ctx.as_symbol(a))
        .ok_or_else(|| Unbatchable::new("a call without a callee"))?;
    let types: SmallVec<[Type; 4]> = ins.iter().map(|v| b.body().value_type(v.value)).collect();
    let flags: SmallVec<[bool; 4]> = ins.iter().map(|v| v.batched).collect();
    let target = b.batched_call(callee, &types, &flags)?;
    let result_types: SmallVec<[Type; 2]> = target.results.iter().map(|r| r.0).collect();
    let attrs = b.attrs_with(op, &[("callee", ctx.symbol_ref(&target.callee))]);
    let operands: SmallVec<[Value; 4]> = ins.iter().map(|v| v.value).collect();
    let call = b.build(CallOp::DEF, &operands, &result_types, &attrs)?;
    let body = b.body();
    Ok(target
        .results
        .iter()
        .enumerate()
        .map(|(i, &(_, batched))| BatchedValue {
            value: body.result(call, i),
            batched,
        })
        .collect())
}

/// Builds `func.func @name` with arguments of types `inputs` at the end of `module`: `body`
/// gets a [`Builder`] at the end of the entry block (its location `loc`) and the arguments, and
/// returns the values to return; the function type is `inputs -> (types of those values)`.
/// Returns the `func.func` op, or the first error of the build (the module is then unchanged).
pub fn build_function(
    ctx: &Context,
    module: &mut Module,
    name: &str,
    inputs: &[Type],
    loc: Location,
    body: impl FnOnce(&mut Builder<'_>, &[Value]) -> Result<Vec<Value>, Diagnostic>,
) -> Result<Op, Diagnostic> {
    let mut fbody = Body::new(ctx, ctx.op_name(FuncOp::DEF.name), loc);
    let region = fbody.add_root_region();
    let entry = fbody.create_block(inputs);
    fbody.append_block(region, entry);
    let args = fbody.block_args(entry).to_vec();
    let mut b = Builder::at_end(ctx, &mut fbody, entry);
    b.set_loc(loc);
    let results = body(&mut b, &args)?;
    let result_types: Vec<Type> = results.iter().map(|&v| b.body.value_type(v)).collect();
    let ft = ctx.type_attr(ctx.function_type(inputs, &result_types));
    b.body.set_self_attr(ctx, "sym_name", Some(ctx.str_attr(name)));
    b.body.set_self_attr(ctx, "function_type", Some(ft));
    b.set_insertion_point_to_end(entry);
    b.create_with_types(ReturnOp::DEF.name, &results, &[], &[])?;
    let attrs = fbody.self_attrs();
    let mut st = OperationState::of(ctx, FuncOp::DEF, loc);
    st.attrs = attrs;
    st.nested = Some(Box::new(fbody));
    let block = module.block();
    Ok(Builder::at_end(ctx, &mut module.body, block).create_state(st))
}

/// The `(inputs, results)` of a `function_type` attribute value.
pub fn signature(ctx: &xcs_ir::Context, function_type: xcs_ir::Attr) -> Option<(Vec<Type>, Vec<Type>)> {
    let t = ctx.as_type(function_type)?;
    let (i, r) = ctx.function_signature(t)?;
    Some((i.to_vec(), r.to_vec()))
}

fn verify_func(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Some((inputs, results)) = v.attr("function_type").and_then(|a| signature(ctx, a)) else {
        return Ok(()); // reported by the declaration checks
    };
    // The function interface checks the attribute arrays before the body.
    for (key, what, n) in [("arg_attrs", "argument", inputs.len()), ("res_attrs", "result", results.len())] {
        if let Some(a) = v.attr(key) {
            let len = ctx.as_array(a).map_or(0, |x| x.len());
            if len != n {
                let plural = if what == "argument" { "arguments" } else { "results" };
                return Err(v.error(format!(
                    "expects {what} attribute array to have the same number of elements as the number of function {plural}, got {len}, but expected {n}"
                )));
            }
        }
    }
    // Argument and result attributes must be dialect attributes (`dialect.name`).
    for (key, plural) in [("arg_attrs", "arguments"), ("res_attrs", "results")] {
        let dicts = v.attr(key).and_then(|a| ctx.as_array(a)).unwrap_or_default();
        for &d in dicts.iter() {
            if ctx.dict_entries(d).iter().any(|(k, _)| !ctx.str(*k).contains('.')) {
                return Err(v.error(format!("{plural} may only have dialect attributes")));
            }
        }
    }
    let body = v.body.nested(v.op).expect("func.func has a nested body");
    let region = body.root_regions()[0];
    let public = v.attr("sym_visibility").and_then(|a| ctx.as_str(a)).is_none_or(|s| s == "public");
    match body.entry_block(region) {
        None => {
            if public {
                return Err(v.error("symbol declaration cannot have public visibility"));
            }
        }
        Some(entry) => {
            let args = body.block_args(entry);
            if args.len() != inputs.len() {
                return Err(v.error(format!(
                    "entry block must have {} arguments to match function signature",
                    inputs.len()
                )));
            }
            let arg_types = args.iter().map(|&a| body.value_type(a));
            if let Some((i, at, t)) = crate::shape::first_type_mismatch(arg_types, &inputs) {
                return Err(v.error(format!(
                    "type of entry block argument #{i}('{}') must match the type of the corresponding argument in function signature('{}')",
                    v.ty(at),
                    v.ty(t)
                )));
            }
        }
    }
    Ok(())
}

fn verify_return(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    // A return directly in a function body sits at the top of the function's Body.
    if v.body.parent_op(v.op).is_some() || !FuncOp::matches(ctx, v.body.name()) {
        return Err(v.error("expects parent op 'func.func'"));
    }
    let fname = v.body.self_attr(ctx, "sym_name").and_then(|a| ctx.as_str(a)).unwrap_or("");
    let Some((_, results)) = v.body.self_attr(ctx, "function_type").and_then(|a| signature(ctx, a)) else {
        return Ok(());
    };
    if v.num_operands() != results.len() {
        return Err(v.error(format!(
            "has {} operands, but enclosing function (@{fname}) returns {}",
            v.num_operands(),
            results.len()
        )));
    }
    for (i, &t) in results.iter().enumerate() {
        let ot = v.operand_type(i);
        if ot != t {
            // MLIR's `emitError`, without the `'func.return' op` prefix.
            return Err(Diagnostic::error(
                v.body.op_loc(v.op),
                format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{fname}",
                    v.ty(ot),
                    v.ty(t)
                ),
            ));
        }
    }
    Ok(())
}

fn verify_call(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Some(callee) = v.attr("callee").and_then(|a| ctx.as_symbol(a)) else {
        return Err(v.error("requires a 'callee' symbol reference attribute"));
    };
    let target = symbols.lookup(callee).filter(|s| FuncOp::matches(ctx, s.op_name));
    let Some(target) = target else {
        return Err(v.error(format!("'{callee}' does not reference a valid function")));
    };
    let Some((inputs, results)) = ctx.dict_get(target.attrs, "function_type").and_then(|a| signature(ctx, a)) else {
        return Err(v.error(format!("'{callee}' does not reference a valid function")));
    };
    if v.num_operands() != inputs.len() {
        return Err(v.error("incorrect number of operands for callee"));
    }
    for (i, &t) in inputs.iter().enumerate() {
        let ot = v.operand_type(i);
        if ot != t {
            return Err(v.error(format!(
                "operand type mismatch: expected operand type '{}', but provided '{}' for operand number {i}",
                v.ty(t),
                v.ty(ot)
            )));
        }
    }
    if v.num_results() != results.len() {
        return Err(v.error("incorrect number of results for callee"));
    }
    for (i, &t) in results.iter().enumerate() {
        let rt = v.result_type(i);
        if rt != t {
            let list = |ts: &mut dyn Iterator<Item = Type>| ts.map(|t| format!("'{}'", v.ty(t))).collect::<Vec<_>>().join(", ");
            let loc = v.body.op_loc(v.op);
            return Err(v
                .error(format!("result type mismatch at index {i}"))
                .with_note(loc, format!("      op result types: {}", list(&mut v.result_types().into_iter())))
                .with_note(loc, format!("function result types: {}", list(&mut results.iter().copied()))));
        }
    }
    Ok(())
}

/// MLIR's `ConstantOp::verifySymbolUses`: `value` names a `func.func` of the result's type.
fn verify_constant(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Some(name) = v.attr("value").and_then(|a| ctx.as_symbol(a)) else {
        return Ok(()); // reported by the declaration checks
    };
    let Some(target) = symbols.lookup(name).filter(|s| FuncOp::matches(ctx, s.op_name)) else {
        return Err(v.error(format!("reference to undefined function '{name}'")));
    };
    let ty = ctx.dict_get(target.attrs, "function_type").and_then(|a| ctx.as_type(a));
    if v.num_results() != 1 || ty != Some(v.result_type(0)) {
        return Err(v.error("reference to function with mismatched type"));
    }
    Ok(())
}

/// ODS's `TypesMatchWith` checks of `func.call_indirect`: the other operands and the results
/// have the callee's input and result types.
fn verify_call_indirect(v: &OpView) -> Result<(), Diagnostic> {
    let Some((inputs, results)) = v.ctx.function_signature(v.operand_type(0)) else {
        return Ok(()); // reported by the declaration checks
    };
    let args: SmallVec<[Type; 4]> = v.operand_types().into_iter().skip(1).collect();
    if inputs != args.as_slice() {
        return Err(v.error("failed to verify that callee input types match argument types"));
    }
    if results != v.result_types().as_slice() {
        return Err(v.error("failed to verify that callee result types match result types"));
    }
    Ok(())
}
