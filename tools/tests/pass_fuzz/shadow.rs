//! The float64 shadow of a generated program, the fuzzer's reference: the same program with
//! every float computed in f64 (its values are the "real" results up to f64 rounding), and
//! beside every value a running error bound (Wilkinson's forward error analysis, written as
//! tensor ops): an f64 tensor `e` of the value's shape such that the program's own value, in
//! its own element type and on any backend meeting the accuracy model below, is within `e` of
//! the f64 value, element by element. A value computed exactly (inputs, constants, layout
//! ops, `abs`, `max`, ... of exact values) has no error tensor at all.
//!
//! The accuracy model (per op, relative to the magnitude of the exact result): basic
//! arithmetic, `sqrt` and casts are within 2 units of roundoff `u` of the result type (`u` =
//! 2^-24 for f32, 2^-11 f16, 2^-8 bf16, 2^-53 f64); transcendental functions within `u + 20 *
//! 2^-24` for f16/bf16/f32 (the LLVM backend's contract is 1e-6 relative, about 17 f32 units)
//! and 8 `u` for f64; accumulations (reductions, contractions, the insides of softmax and
//! layer_norm) are at least f32: a sum of `n` terms is within `2 n min(u, 2^-24)` times the
//! sum of their magnitudes (in any order), then rounded once to the result type; GELU is also
//! allowed that transcendental error times `|x| + x^2 + x^4/20` (the cancellation of `1 +
//! erf` and the rounding of the tanh form's argument). An error `e` in an operand propagates
//! through the op's Lipschitz bound over `[x - e, x + e]`: `exp(x + e) e` for `exp`, `e / (x -
//! e)` for `log`, `min(sqrt(e), e / sqrt(x))` for `sqrt`, `(|a| + ea)(|b| + eb) - |a||b|` for
//! products and contractions, `min(r, 1 - r) (exp(2 E) - 1)` for softmax (E the largest error
//! along the axis), `(2 + |xhat|) E / sigma` for layer_norm. Discontinuous ops (`floor`,
//! `ceil`, `round`, `sign`, float-to-int casts, `cmp`, `rem`) are
//! exact where their operand is, and otherwise bounded by the jump they may take within twice
//! the operand's error: `floor(x + 2e) - floor(x - 2e)`, and for `cmp` an uncertainty (0 or 1)
//! that makes a `select` of it allow either side. First-order terms only: the comparison allows
//! twice the bound.

use std::collections::HashMap;

use xcs_dialects::interp::{tensor_from_attr, tensor_to_attr, ElemType};
use xcs_dialects::shape::ranked;
use xcs_dialects::tensor;
use xcs_ir::{Block, Body, Builder, Context, Location, Module, Op, OperationState, Type, TypeKind, Value};

type R<T> = Result<T, String>;

/// The unit roundoff of an element type (0 for integers: exact).
pub fn unit(ctx: &Context, elem: Type) -> f64 {
    if elem == ctx.f16_type() {
        2f64.powi(-11)
    } else if elem == ctx.bf16_type() {
        2f64.powi(-8)
    } else if elem == ctx.f32_type() {
        2f64.powi(-24)
    } else if elem == ctx.f64_type() {
        2f64.powi(-53)
    } else {
        0.0
    }
}

/// The smallest positive (subnormal) value of a float type: the absolute error of rounding
/// a result below the normal range.
fn tiny(ctx: &Context, elem: Type) -> f64 {
    let bits = if elem == ctx.f16_type() {
        -24
    } else if elem == ctx.bf16_type() {
        -133
    } else if elem == ctx.f32_type() {
        -149
    } else {
        -1074
    };
    2f64.powi(bits)
}

/// The relative error allowed of a basic op (add, mul, div, sqrt, cast) with result type `elem`.
fn basic(ctx: &Context, elem: Type) -> f64 {
    2.0 * unit(ctx, elem)
}

/// The relative error allowed of a transcendental function with result type `elem`.
fn transcendental(ctx: &Context, elem: Type) -> f64 {
    if elem == ctx.f64_type() {
        8.0 * unit(ctx, elem)
    } else {
        unit(ctx, elem) + 20.0 * 2f64.powi(-24)
    }
}

/// The shadow of `module`: every function `@f(T...) -> U...` becomes `@f(T'..., E(T)...) ->
/// (U'..., E(U)...)`, where `T'` is `T` with float elements made f64 and `E(T)` the f64 error
/// tensor of `T`'s shape.
pub fn shadow(ctx: &Context, module: &Module) -> R<Module> {
    let mut out = Module::new(ctx, Location::UNKNOWN);
    let block = out.block();
    for op in module.ops() {
        let Some(fbody) = module.body.nested(op) else { continue };
        let sb = function(ctx, fbody)?;
        let mut st = OperationState::new(ctx, "func.func", Location::UNKNOWN);
        st.attrs = sb.self_attrs();
        st.nested = Some(sb);
        let fop = out.body.create_op(st);
        out.body.append_op(block, fop);
    }
    Ok(out)
}

/// `t` with a float element type made f64.
pub fn value_type(ctx: &Context, t: Type) -> Type {
    match ranked(ctx, t) {
        Some((s, e)) if ctx.is_float(e) => ctx.tensor_type(s, ctx.f64_type()),
        _ => t,
    }
}

/// The f64 error tensor type of `t` (same shape).
pub fn error_type(ctx: &Context, t: Type) -> Type {
    match ranked(ctx, t) {
        Some((s, _)) => ctx.tensor_type(s, ctx.f64_type()),
        None => ctx.tensor_type(&[], ctx.f64_type()),
    }
}

fn function(ctx: &Context, fbody: &Body) -> R<Box<Body>> {
    let fty = fbody
        .self_attr(ctx, "function_type")
        .and_then(|a| ctx.as_type(a))
        .ok_or("a function without a type")?;
    let TypeKind::Function { inputs, results } = ctx.type_kind(fty).clone() else {
        return Err("function_type is not a function type".into());
    };
    let ins: Vec<Type> = inputs.iter().map(|&t| value_type(ctx, t)).chain(inputs.iter().map(|&t| error_type(ctx, t))).collect();
    let outs: Vec<Type> = results.iter().map(|&t| value_type(ctx, t)).chain(results.iter().map(|&t| error_type(ctx, t))).collect();
    let mut sb = Box::new(Body::new(ctx, ctx.op_name("func.func"), Location::UNKNOWN));
    sb.set_self_attrs(fbody.self_attrs());
    sb.set_self_attr(ctx, "function_type", Some(ctx.type_attr(ctx.function_type(&ins, &outs))));
    let region = sb.add_root_region();
    let block = sb.create_block(&ins);
    sb.append_block(region, block);
    let entry = fbody.entry_block(fbody.root_regions()[0]).ok_or("a function without a body")?;
    let n = inputs.len();
    let args = sb.block_args(block).to_vec();
    let mut tr = Translator { ctx, orig: fbody, map: HashMap::new() };
    for (i, &a) in fbody.block_args(entry).iter().enumerate() {
        tr.map.insert(a, (args[i], Some(args[n + i])));
    }
    tr.block(&mut sb, entry, block)?;
    Ok(sb)
}

/// Translates the ops of one original body (a function's, or a `tensor.fused` body) into a
/// shadow body; `map` gives each original value its shadow value and error (`None`: exact).
struct Translator<'a> {
    ctx: &'a Context,
    orig: &'a Body,
    map: HashMap<Value, (Value, Option<Value>)>,
}

/// Builds shadow ops at the end of one block.
struct Emit<'b> {
    ctx: &'b Context,
    sb: &'b mut Body,
    block: Block,
}

impl<'b> Emit<'b> {
    fn b(&mut self) -> Builder<'_> {
        Builder::at_end(self.ctx, self.sb, self.block)
    }
    fn ok(r: Result<Value, xcs_ir::Diagnostic>, what: &str) -> R<Value> {
        r.map_err(|d| format!("shadow {what}: {}", d.message))
    }
    fn c(&mut self, x: f64) -> R<Value> {
        let t = self.ctx.tensor_type(&[], self.ctx.f64_type());
        let mut b = self.b();
        Emit::ok(tensor::splat_float(&mut b, t, x), "constant")
    }
    fn elem(&self, v: Value) -> Type {
        ranked(self.ctx, self.sb.value_type(v)).map(|(_, e)| e).unwrap()
    }
    fn f64(&mut self, v: Value) -> R<Value> {
        if self.elem(v) == self.ctx.f64_type() {
            return Ok(v);
        }
        let f = self.ctx.f64_type();
        let mut b = self.b();
        Emit::ok(tensor::cast(&mut b, v, f), "cast")
    }
    fn cast(&mut self, v: Value, to: Type) -> R<Value> {
        let mut b = self.b();
        Emit::ok(tensor::cast(&mut b, v, to), "cast")
    }
    fn add(&mut self, a: Value, b: Value) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::add(&mut bl, a, b), "add")
    }
    fn sub(&mut self, a: Value, b: Value) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::sub(&mut bl, a, b), "sub")
    }
    fn mul(&mut self, a: Value, b: Value) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::mul(&mut bl, a, b), "mul")
    }
    fn div(&mut self, a: Value, b: Value) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::div(&mut bl, a, b), "div")
    }
    fn max(&mut self, a: Value, b: Value) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::max(&mut bl, a, b), "max")
    }
    fn min(&mut self, a: Value, b: Value) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::min(&mut bl, a, b), "min")
    }
    fn unary(&mut self, name: &str, a: Value) -> R<Value> {
        let mut b = self.b();
        let r = match name {
            "abs" => tensor::abs(&mut b, a),
            "exp" => tensor::exp(&mut b, a),
            "log" => tensor::log(&mut b, a),
            "sqrt" => tensor::sqrt(&mut b, a),
            "rsqrt" => tensor::rsqrt(&mut b, a),
            "floor" => tensor::floor(&mut b, a),
            "ceil" => tensor::ceil(&mut b, a),
            "round" => tensor::round(&mut b, a),
            "sign" => tensor::sign(&mut b, a),
            _ => return Err(format!("shadow: no unary {name}")),
        };
        Emit::ok(r, name)
    }
    fn abs(&mut self, a: Value) -> R<Value> {
        let a = self.f64(a)?;
        self.unary("abs", a)
    }
    fn scale(&mut self, a: Value, k: f64) -> R<Value> {
        let c = self.c(k)?;
        self.mul(a, c)
    }
    /// `k |r|`.
    fn rel(&mut self, r: Value, k: f64) -> R<Value> {
        let a = self.abs(r)?;
        self.scale(a, k)
    }
    /// Zeros of `v`'s shape, f64.
    fn zeros(&mut self, v: Value) -> R<Value> {
        let f = self.f64(v)?;
        self.scale(f, 0.0)
    }
    /// `e` broadcast to `like`'s shape (at run time).
    fn spread(&mut self, e: Value, like: Value) -> R<Value> {
        let z = self.zeros(like)?;
        let e = self.add(e, z)?;
        self.fit(e, like)
    }
    /// `e` (of `like`'s run-time shape, or one that broadcasts to it) with exactly the error
    /// type of `like`'s type (inference may know more static dims than the declared type).
    fn fit(&mut self, e: Value, like: Value) -> R<Value> {
        let want = error_type(self.ctx, self.sb.value_type(like));
        let have = self.sb.value_type(e);
        if have == want {
            return Ok(e);
        }
        let (hs, ws) = (ranked(self.ctx, have).unwrap().0.to_vec(), ranked(self.ctx, want).unwrap().0.to_vec());
        let compatible = hs.len() == ws.len() && hs.iter().zip(&ws).all(|(&a, &b)| xcs_dialects::shape::dims_compatible(a, b));
        if !compatible {
            return self.spread(e, like);
        }
        let mut b = self.b();
        Emit::ok(b.create1_with_types("tensor.cast", &[e], want, &[]), "cast")
    }
    /// The error tensor, zeros when exact.
    fn mat(&mut self, v: Value, e: Option<Value>) -> R<Value> {
        match e {
            Some(e) => self.fit(e, v),
            None => self.zeros(v),
        }
    }
    fn sum_opt(&mut self, a: Option<Value>, b: Option<Value>) -> R<Option<Value>> {
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(self.add(a, b)?),
            (x, None) | (None, x) => x,
        })
    }
    fn max_opt(&mut self, a: Option<Value>, b: Option<Value>) -> R<Option<Value>> {
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(self.max(a, b)?),
            (x, None) | (None, x) => x,
        })
    }
    fn reduce(&mut self, x: Value, kind: &str, axes: &[i64], keep: bool) -> R<Value> {
        let mut b = self.b();
        Emit::ok(tensor::reduce(&mut b, x, kind, axes, keep), "reduce")
    }
    fn cmp(&mut self, a: Value, b: Value, pred: &str) -> R<Value> {
        let mut bl = self.b();
        Emit::ok(tensor::cmp(&mut bl, a, b, pred), "cmp")
    }
    /// 1.0 where `a < b`, else 0.0.
    fn less(&mut self, a: Value, b: Value) -> R<Value> {
        let c = self.cmp(a, b, "lt")?;
        let f = self.ctx.f64_type();
        self.cast(c, f)
    }
    /// Clones op `op` of `orig` with new operands and result types (attributes kept).
    fn clone_op(&mut self, orig: &Body, op: Op, operands: &[Value], results: &[Type]) -> Vec<Value> {
        let name = self.ctx.op_name_str(orig.op_name(op)).to_string();
        let mut st = OperationState::new(self.ctx, &name, Location::UNKNOWN).operands(operands).results(results);
        st.attrs = orig.attrs(op);
        let o = self.b().create_state(st);
        self.sb.results(o).collect()
    }
}

/// The normalized non-negative axes `axis..rank`.
fn tail_axes(axis: i64, rank: usize) -> Vec<i64> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    (a..rank as i64).collect()
}

impl<'a> Translator<'a> {
    fn get(&self, v: Value) -> R<(Value, Option<Value>)> {
        self.map.get(&v).copied().ok_or_else(|| "shadow: a value used before it is translated".to_string())
    }

    /// Translates the ops of original block `ob` into shadow block `sblock`, terminator
    /// included (a `func.return` or `xcs.yield` returns the values, then the errors; a
    /// `tensor.yield` is left to the caller: its operands' shadows are returned).
    fn block(&mut self, sb: &mut Body, ob: Block, sblock: Block) -> R<Vec<(Value, Option<Value>)>> {
        for op in self.orig.block_op_vec(ob) {
            let name = self.ctx.op_name_str(self.orig.op_name(op)).to_string();
            let ins: Vec<(Value, Option<Value>)> = self.orig.operands(op).map(|v| self.get(v)).collect::<R<_>>()?;
            match name.as_str() {
                "func.return" | "xcs.yield" => {
                    let mut e = Emit { ctx: self.ctx, sb, block: sblock };
                    let mut vals: Vec<Value> = ins.iter().map(|p| p.0).collect();
                    for &(v, err) in &ins {
                        vals.push(e.mat(v, err)?);
                    }
                    let st = OperationState::new(self.ctx, &name, Location::UNKNOWN).operands(&vals);
                    e.b().create_state(st);
                }
                "tensor.yield" => return Ok(ins),
                "tensor.fused" => {
                    let fb = self.orig.nested(op).ok_or("tensor.fused without a body")?;
                    let entry = fb.entry_block(fb.root_regions()[0]).ok_or("tensor.fused without a block")?;
                    let mut inner = Translator { ctx: self.ctx, orig: fb, map: HashMap::new() };
                    for (&a, &p) in fb.block_args(entry).iter().zip(&ins) {
                        inner.map.insert(a, p);
                    }
                    let outs = inner.block(sb, entry, sblock)?;
                    for (r, p) in self.orig.results(op).zip(outs) {
                        self.map.insert(r, p);
                    }
                }
                "xcs.vmap" => self.vmap(sb, op, &ins, sblock)?,
                "func.constant" => {
                    // the function value of the shadow function (values, then errors)
                    let TypeKind::Function { inputs, results } = self.ctx.type_kind(self.orig.result_types(op)[0]).clone() else {
                        return Err("func.constant of a non-function type".into());
                    };
                    let doubled = |ts: &[Type]| -> Vec<Type> {
                        ts.iter().map(|&t| value_type(self.ctx, t)).chain(ts.iter().map(|&t| error_type(self.ctx, t))).collect()
                    };
                    let fty = self.ctx.function_type(&doubled(&inputs), &doubled(&results));
                    let mut e = Emit { ctx: self.ctx, sb, block: sblock };
                    let out = e.clone_op(self.orig, op, &[], &[fty]);
                    self.map.insert(self.orig.result(op, 0), (out[0], None));
                }
                "func.call" | "func.call_indirect" => {
                    let mut e = Emit { ctx: self.ctx, sb, block: sblock };
                    // call_indirect: the callee (a shadow function value) first
                    let (callee, ins) = if name == "func.call" { (None, &ins[..]) } else { (Some(ins[0].0), &ins[1..]) };
                    let mut args: Vec<Value> = callee.into_iter().chain(ins.iter().map(|p| p.0)).collect();
                    for &(v, err) in ins {
                        args.push(e.mat(v, err)?);
                    }
                    let rts = self.orig.result_types(op);
                    let types: Vec<Type> = rts.iter().map(|&t| value_type(self.ctx, t)).chain(rts.iter().map(|&t| error_type(self.ctx, t))).collect();
                    let outs = e.clone_op(self.orig, op, &args, &types);
                    let n = rts.len();
                    for (i, r) in self.orig.results(op).enumerate() {
                        self.map.insert(r, (outs[i], Some(outs[n + i])));
                    }
                }
                _ => {
                    let r = self.orig.result(op, 0);
                    let out = self.tensor_op(sb, sblock, op, &name, &ins)?;
                    self.map.insert(r, out);
                }
            }
        }
        Ok(Vec::new())
    }

    /// The shadow `xcs.vmap`: operands, block arguments, results and axes doubled (values,
    /// then errors).
    fn vmap(&mut self, sb: &mut Body, op: Op, ins: &[(Value, Option<Value>)], sblock: Block) -> R<()> {
        let ctx = self.ctx;
        let mut operands: Vec<Value> = ins.iter().map(|p| p.0).collect();
        {
            let mut e = Emit { ctx, sb, block: sblock };
            for &(v, err) in ins {
                operands.push(e.mat(v, err)?);
            }
        }
        let axes = |n: &str| ctx.as_i64_array(self.orig.attr(ctx, op, n).unwrap()).unwrap();
        let (in_axes, out_axes) = (axes("in_axes"), axes("out_axes"));
        let oregion = self.orig.regions(op)[0];
        let oentry = self.orig.entry_block(oregion).ok_or("xcs.vmap without a block")?;
        let oargs = self.orig.block_args(oentry).to_vec();
        let inner: Vec<Type> = oargs.iter().map(|&a| self.orig.value_type(a)).collect();
        let types: Vec<Type> = inner.iter().map(|&t| value_type(ctx, t)).chain(inner.iter().map(|&t| error_type(ctx, t))).collect();
        let region = sb.create_region();
        let eb = sb.create_block(&types);
        sb.append_block(region, eb);
        let n = oargs.len();
        for (i, &a) in oargs.iter().enumerate() {
            let (v, e) = (sb.block_arg(eb, i), sb.block_arg(eb, n + i));
            self.map.insert(a, (v, Some(e)));
        }
        self.block(sb, oentry, eb)?;
        let rts = self.orig.result_types(op);
        let results: Vec<Type> = rts.iter().map(|&t| value_type(ctx, t)).chain(rts.iter().map(|&t| error_type(ctx, t))).collect();
        let twice = |v: &[i64]| v.iter().chain(v).copied().collect::<Vec<i64>>();
        let mut st = OperationState::new(ctx, "xcs.vmap", Location::UNKNOWN)
            .operands(&operands)
            .results(&results)
            .attr(ctx, "in_axes", ctx.dense_i64_array(&twice(&in_axes)))
            .attr(ctx, "out_axes", ctx.dense_i64_array(&twice(&out_axes)));
        st.regions.push(region);
        let sop = Builder::at_end(ctx, sb, sblock).create_state(st);
        let outs: Vec<Value> = sb.results(sop).collect();
        let m = rts.len();
        for (i, r) in self.orig.results(op).enumerate() {
            self.map.insert(r, (outs[i], Some(outs[m + i])));
        }
        Ok(())
    }

    fn str_attr(&self, op: Op, name: &str) -> R<String> {
        self.orig
            .attr(self.ctx, op, name)
            .and_then(|a| self.ctx.as_str(a).map(String::from))
            .ok_or_else(|| format!("no {name} attribute"))
    }
    fn int_attr(&self, op: Op, name: &str) -> R<i64> {
        self.orig.attr(self.ctx, op, name).and_then(|a| self.ctx.as_int(a)).map(|v| v as i64).ok_or_else(|| format!("no {name}"))
    }

    /// One tensor op: its f64 value (the op itself on the shadow operands) and its error rule.
    fn tensor_op(&mut self, sb: &mut Body, sblock: Block, op: Op, name: &str, ins: &[(Value, Option<Value>)]) -> R<(Value, Option<Value>)> {
        let ctx = self.ctx;
        let short = name.strip_prefix("tensor.").ok_or_else(|| format!("shadow: unexpected op {name}"))?;
        let rty = self.orig.result_types(op)[0];
        let relem = ranked(ctx, rty).map(|(_, e)| e).unwrap();
        let (ub, ut) = (basic(ctx, relem), transcendental(ctx, relem));
        // accumulators (sums of reductions and contractions, softmax's and layer_norm's
        // intermediates) are at least f32
        let ua = 2.0 * unit(ctx, relem).min(2f64.powi(-24));
        let float = ctx.is_float(relem);
        let mut e = Emit { ctx, sb, block: sblock };
        if short == "constant" {
            let attr = self.orig.attr(ctx, op, "value").ok_or("constant without a value")?;
            let t = tensor_from_attr(ctx, attr)?;
            let t = if t.elem().is_float() { t.cast(ElemType::F64)? } else { t };
            let mut b = e.b();
            let v = Emit::ok(tensor::constant(&mut b, tensor_to_attr(ctx, &t)), "constant")?;
            return Ok((v, None));
        }
        let vals: Vec<Value> = ins.iter().map(|p| p.0).collect();
        let r = e.clone_op(self.orig, op, &vals, &[value_type(ctx, rty)])[0];
        if !float && ins.iter().all(|p| p.1.is_none()) {
            return Ok((r, None)); // integer and i1 results of exact operands are exact
        }
        let ea = ins.first().and_then(|p| p.1);
        let eb = ins.get(1).and_then(|p| p.1);
        let a = vals.first().copied();
        let err: Option<Value> = match short {
            "neg" | "abs" | "relu" => ea,
            "floor" | "ceil" | "round" if !float => ea,
            "floor" | "ceil" | "round" | "sign" => match ea {
                None => None,
                Some(ea) => Some(Self::jump(&mut e, short, a.unwrap(), ea)?),
            },
            "exp" | "log" | "tanh" | "sigmoid" | "silu" | "gelu" | "sin" | "cos" | "erf" | "rsqrt" => {
                let a = a.unwrap();
                let lip = match (short, ea) {
                    (_, None) => None,
                    ("exp", Some(ea)) => {
                        let s = e.add(a, ea)?;
                        Some(e.unary("exp", s)?)
                    }
                    ("log", Some(ea)) | ("rsqrt", Some(ea)) => {
                        let d = e.sub(a, ea)?;
                        let z = e.c(0.0)?;
                        let m = e.max(d, z)?;
                        if short == "log" {
                            let one = e.c(1.0)?;
                            Some(e.div(one, m)?)
                        } else {
                            let q = e.unary("rsqrt", m)?;
                            let q2 = e.mul(q, q)?;
                            let q3 = e.mul(q2, q)?;
                            Some(e.scale(q3, 0.5)?)
                        }
                    }
                    (_, Some(_)) => {
                        let l = match short {
                            "sigmoid" => 0.25,
                            "silu" => 1.1,
                            "gelu" | "erf" => 1.13,
                            _ => 1.0,
                        };
                        Some(e.c(l)?)
                    }
                };
                let mut total = e.abs(r)?;
                let mut prop = None;
                if let (Some(l), Some(ea)) = (lip, ea) {
                    let p = e.mul(l, ea)?;
                    total = e.add(total, p)?;
                    prop = Some(p);
                }
                if short == "gelu" {
                    // |x| + x^2 + x^4 / 20
                    let x = e.abs(a)?;
                    let x2 = e.mul(x, x)?;
                    let x4 = e.mul(x2, x2)?;
                    let x4 = e.scale(x4, 0.05)?;
                    let s = e.add(x, x2)?;
                    let s = e.add(s, x4)?;
                    total = e.add(total, s)?;
                }
                let round = e.scale(total, ut)?;
                Some(match prop {
                    Some(p) => e.add(p, round)?,
                    None => round,
                })
            }
            "sqrt" => {
                let round = e.rel(r, ub)?;
                match ea {
                    None => Some(round),
                    Some(ea) => {
                        let s = e.unary("sqrt", ea)?;
                        let q = e.div(ea, r)?;
                        let m = e.min(s, q)?;
                        Some(e.add(m, round)?)
                    }
                }
            }
            "add" | "sub" => {
                let s = e.sum_opt(ea, eb)?;
                let round = e.rel(r, ub)?;
                Some(match s {
                    Some(s) => e.add(s, round)?,
                    None => round,
                })
            }
            "mul" => {
                let (a, b) = (vals[0], vals[1]);
                let mut t = e.rel(r, ub)?;
                if let Some(eb) = eb {
                    let aa = e.abs(a)?;
                    let p = e.mul(aa, eb)?;
                    t = e.add(t, p)?;
                }
                if let Some(ea) = ea {
                    let ab = e.abs(b)?;
                    let p = e.mul(ab, ea)?;
                    t = e.add(t, p)?;
                }
                if let (Some(ea), Some(eb)) = (ea, eb) {
                    let p = e.mul(ea, eb)?;
                    t = e.add(t, p)?;
                }
                Some(t)
            }
            "div" if !float => match (ea, eb) {
                (None, None) => None,
                _ => {
                    // a constant divisor: trunc(a / c) moves by at most e / |c| + 1
                    let b = e.abs(vals[1])?;
                    let ea = e.mat(vals[0], ea)?;
                    let q = e.div(ea, b)?;
                    let one = e.c(1.0)?;
                    Some(e.add(q, one)?)
                }
            },
            "div" => {
                let (b, round) = (vals[1], e.rel(r, ub)?);
                let mut num = match ea {
                    Some(ea) => ea,
                    None => e.c(0.0)?,
                };
                let mut den = e.abs(b)?;
                if let Some(eb) = eb {
                    let rr = e.abs(r)?;
                    let p = e.mul(rr, eb)?;
                    num = e.add(num, p)?;
                    let d = e.sub(den, eb)?;
                    let z = e.c(0.0)?;
                    den = e.max(d, z)?;
                }
                let q = e.div(num, den)?;
                Some(e.add(q, round)?)
            }
            "max" | "min" | "clamp" => {
                let m = e.max_opt(ea, eb)?;
                match e.max_opt(m, ins.get(2).and_then(|p| p.1))? {
                    Some(m) => Some(e.spread(m, r)?),
                    None => None,
                }
            }
            "pow" if !float => match (ea, eb) {
                (None, None) => None,
                _ => {
                    let aa = e.abs(vals[0])?;
                    let ea = e.mat(vals[0], ea)?;
                    let up = e.add(aa, ea)?;
                    let k = e.f64(vals[1])?;
                    let mut bl = e.b();
                    let p1 = Emit::ok(tensor::pow(&mut bl, up, k), "pow")?;
                    let mut bl = e.b();
                    let p0 = Emit::ok(tensor::pow(&mut bl, aa, k), "pow")?;
                    Some(e.sub(p1, p0)?)
                }
            },
            "pow" => {
                // |ln(r~/r)| <= (|b| + eb) ea / (a - ea) + |ln a| eb =: D; |r~ - r| <= |r| (e^D - 1)
                let (a, b) = (vals[0], vals[1]);
                let round = e.rel(r, ut)?;
                let mut d: Option<Value> = None;
                if let Some(ea) = ea {
                    let bb = e.abs(b)?;
                    let bb = match eb {
                        Some(eb) => e.add(bb, eb)?,
                        None => bb,
                    };
                    let lo = e.sub(a, ea)?;
                    let z = e.c(0.0)?;
                    let lo = e.max(lo, z)?;
                    let q = e.div(ea, lo)?;
                    d = Some(e.mul(bb, q)?);
                }
                if let Some(eb) = eb {
                    let l = e.unary("log", a)?;
                    let l = e.abs(l)?;
                    let p = e.mul(l, eb)?;
                    d = e.sum_opt(d, Some(p))?;
                }
                match d {
                    None => Some(round),
                    Some(d) => {
                        let x = e.unary("exp", d)?;
                        let one = e.c(1.0)?;
                        let x = e.sub(x, one)?;
                        let rr = e.abs(r)?;
                        let p = e.mul(rr, x)?;
                        Some(e.add(p, round)?)
                    }
                }
            }
            "rem" => {
                let (a, b) = (vals[0], vals[1]);
                let bb = e.abs(b)?;
                let rr = e.abs(r)?;
                let s = e.add(rr, bb)?;
                let round = e.scale(s, ub)?;
                match (ea, eb) {
                    (None, None) if !float => None,
                    (None, None) => Some(round),
                    (_, Some(eb)) => {
                        // both results lie between 0 and the divisor
                        let t = e.add(bb, eb)?;
                        Some(e.add(t, round)?)
                    }
                    (Some(ea), None) => {
                        let w = e.scale(ea, 2.0)?;
                        let af = e.f64(a)?;
                        let bf = e.f64(b)?;
                        let hi = e.add(af, w)?;
                        let lo = e.sub(af, w)?;
                        let qh = e.div(hi, bf)?;
                        let ql = e.div(lo, bf)?;
                        let fh = e.unary("floor", qh)?;
                        let fl = e.unary("floor", ql)?;
                        let j = e.sub(fh, fl)?;
                        let j = e.abs(j)?;
                        let j = e.mul(j, bb)?;
                        let t = e.add(ea, j)?;
                        Some(e.add(t, round)?)
                    }
                }
            }
            "cmp" => match e.sum_opt(ea, eb)? {
                None => None,
                Some(s) => {
                    let af = e.f64(vals[0])?;
                    let bf = e.f64(vals[1])?;
                    let d = e.sub(af, bf)?;
                    let d = e.abs(d)?;
                    let w = e.scale(s, 2.0)?;
                    let u = e.less(d, w)?;
                    Some(e.fit(u, r)?)
                }
            },
            "select" => {
                let (c, x, y) = (ins[0], ins[1], ins[2]);
                match (c.1, x.1, y.1) {
                    (None, None, None) => None,
                    _ => {
                        let ex = e.mat(x.0, x.1)?;
                        let ey = e.mat(y.0, y.1)?;
                        let mut bl = e.b();
                        let base = Emit::ok(tensor::select(&mut bl, c.0, ex, ey), "select")?;
                        Some(match c.1 {
                            None => base,
                            Some(u) => {
                                let xf = e.f64(x.0)?;
                                let yf = e.f64(y.0)?;
                                let d = e.sub(xf, yf)?;
                                let d = e.abs(d)?;
                                let m = e.max(ex, ey)?;
                                let d = e.add(d, m)?;
                                let d = e.mul(u, d)?;
                                e.add(base, d)?
                            }
                        })
                    }
                }
            }
            "cast" => Self::cast(&mut e, self.orig.operand_types(op)[0], relem, a.unwrap(), ea, r)?,
            "matmul" | "einsum" => {
                let int = !float;
                let abs_ins: Vec<Value> = vals.iter().map(|&v| e.abs(v)).collect::<R<_>>()?;
                let p = e.clone_op(self.orig, op, &abs_ins, &[error_type(ctx, rty)])[0];
                let mut t: Option<Value> = None;
                if ins.iter().any(|p| p.1.is_some()) {
                    let mut up = Vec::new();
                    for (&x, p) in abs_ins.iter().zip(ins) {
                        up.push(match p.1 {
                            Some(err) => e.add(x, err)?,
                            None => x,
                        });
                    }
                    let pp = e.clone_op(self.orig, op, &up, &[error_type(ctx, rty)])[0];
                    t = Some(e.sub(pp, p)?);
                }
                if !int {
                    let ones: Vec<Value> = vals
                        .iter()
                        .map(|&v| {
                            let z = e.zeros(v)?;
                            let one = e.c(1.0)?;
                            e.add(z, one)
                        })
                        .collect::<R<_>>()?;
                    let k = e.clone_op(self.orig, op, &ones, &[error_type(ctx, rty)])[0];
                    let n = e.c(vals.len() as f64)?;
                    let k = e.add(k, n)?;
                    let k = e.scale(k, ua)?;
                    let last = e.c(ub)?;
                    let k = e.add(k, last)?;
                    let round = e.mul(k, p)?;
                    t = e.sum_opt(t, Some(round))?;
                }
                t
            }
            "reduce" => {
                let kind = self.str_attr(op, "kind")?;
                let axes = ctx.as_i64_array(self.orig.attr(ctx, op, "axes").unwrap()).unwrap();
                let keep = self.orig.attr(ctx, op, "keepdims").and_then(|k| ctx.as_bool(k)).unwrap_or(false);
                Self::reduce(&mut e, &kind, &axes, keep, a.unwrap(), ea, r, float, (ua, ub))?
            }
            "softmax" => {
                let axis = self.int_attr(op, "axis")?;
                let a = a.unwrap();
                let big = e.reduce(a, "max", &[axis], true)?;
                let small = e.reduce(a, "min", &[axis], true)?;
                let range = e.sub(big, small)?;
                let z = e.zeros(a)?;
                let one = e.c(1.0)?;
                let ones = e.add(z, one)?;
                let n = e.reduce(ones, "sum", &[axis], true)?;
                // relative: ua (n + 4 + 2 range) + ut (exp) + ub (the result's rounding)
                let range2 = e.scale(range, 2.0)?;
                let k = e.add(n, range2)?;
                let four = e.c(4.0)?;
                let k = e.add(k, four)?;
                let k = e.scale(k, ua)?;
                let t = e.c(ut + ub)?;
                let k = e.add(k, t)?;
                let rr = e.abs(r)?;
                let mut t = e.mul(rr, k)?;
                if let Some(ea) = ea {
                    // the errors move each ratio exp(a_j - a_i) by a factor within e^(+-2E): r and
                    // 1 - r move by at most that relative change
                    let emax = e.reduce(ea, "max", &[axis], true)?;
                    let x = e.scale(emax, 2.0)?;
                    let x = e.unary("exp", x)?;
                    let x = e.sub(x, one)?;
                    let q = e.sub(one, rr)?;
                    let m = e.min(rr, q)?;
                    let p = e.mul(m, x)?;
                    t = e.add(t, p)?;
                }
                Some(e.fit(t, r)?)
            }
            "layer_norm" => {
                let axis = self.int_attr(op, "axis")?;
                let eps = self.orig.attr(ctx, op, "epsilon").and_then(|a| ctx.as_float(a)).ok_or("no epsilon")?;
                let rank = ranked(ctx, rty).unwrap().0.len();
                Some(Self::layer_norm(&mut e, &tail_axes(axis, rank), eps, ins, r, (ua, ub, ut))?)
            }
            "transpose" | "reshape" | "broadcast_to" | "slice" => match ea {
                None => None,
                Some(ea) => Some(e.clone_op(self.orig, op, &[ea], &[error_type(ctx, rty)])[0]),
            },
            "concat" => {
                if ins.iter().all(|p| p.1.is_none()) {
                    None
                } else {
                    let es: Vec<Value> = ins.iter().map(|&(v, err)| e.mat(v, err)).collect::<R<_>>()?;
                    Some(e.clone_op(self.orig, op, &es, &[error_type(ctx, rty)])[0])
                }
            }
            "gather" => {
                let (t, i) = (ins[0], ins[1]);
                let g = match t.1 {
                    Some(et) => Some(e.clone_op(self.orig, op, &[et, i.0], &[error_type(ctx, rty)])[0]),
                    None => None,
                };
                match i.1 {
                    None => g,
                    Some(ei) => {
                        // an index that may differ: any element of the table
                        let rank_i = ranked(ctx, e.sb.value_type(ei)).unwrap().0.len() as i64;
                        let all_i: Vec<i64> = (0..rank_i).collect();
                        let any = if rank_i > 0 { e.reduce(ei, "max", &all_i, false)? } else { ei };
                        let rank_t = ranked(ctx, e.sb.value_type(t.0)).unwrap().0.len() as i64;
                        let all_t: Vec<i64> = (0..rank_t).collect();
                        let ta = e.abs(t.0)?;
                        let big = e.reduce(ta, "max", &all_t, false)?;
                        let mut big = e.scale(big, 2.0)?;
                        if let Some(et) = t.1 {
                            let m = e.reduce(et, "max", &all_t, false)?;
                            big = e.add(big, m)?;
                        }
                        let z = e.c(0.0)?;
                        let flag = e.less(z, any)?;
                        let extra = e.mul(flag, big)?;
                        let base = e.mat(r, g)?;
                        Some(e.add(base, extra)?)
                    }
                }
            }
            _ => return Err(format!("shadow: no rule for {name}")),
        };
        let err = match err {
            // results in the subnormal range are rounded to a multiple of the smallest one
            Some(x) if float => {
                let eta = e.c(tiny(ctx, relem))?;
                let x = e.add(x, eta)?;
                Some(e.fit(x, r)?)
            }
            Some(x) => Some(e.fit(x, r)?),
            None => None,
        };
        Ok((r, err))
    }

    /// The jump a monotone step function (`floor`, `ceil`, `round`, `sign`) may take within
    /// twice the error: `f(x + 2e) - f(x - 2e)`.
    fn jump(e: &mut Emit, f: &str, a: Value, ea: Value) -> R<Value> {
        let af = e.f64(a)?;
        let w = e.scale(ea, 2.0)?;
        let hi = e.add(af, w)?;
        let lo = e.sub(af, w)?;
        let fh = e.unary(f, hi)?;
        let fl = e.unary(f, lo)?;
        e.sub(fh, fl)
    }

    fn cast(e: &mut Emit, from: Type, to: Type, a: Value, ea: Option<Value>, r: Value) -> R<Option<Value>> {
        let ctx = e.ctx;
        let fe = ranked(ctx, from).unwrap().1;
        let (ffloat, tfloat) = (ctx.is_float(fe), ctx.is_float(to));
        if tfloat {
            // to a float: the rounding to `to`, exact when `to` is f64 (wider than every source)
            if to == ctx.f64_type() {
                return Ok(ea);
            }
            let round = e.rel(r, basic(ctx, to))?;
            return Ok(Some(match ea {
                Some(ea) => e.add(ea, round)?,
                None => round,
            }));
        }
        let Some(ea) = ea else { return Ok(None) };
        if !ffloat {
            return Ok(Some(ea)); // integer to integer (i1 to number: the uncertainty)
        }
        if to == ctx.i1_type() {
            // x != 0 is uncertain when |x| < 2e
            let af = e.abs(a)?;
            let w = e.scale(ea, 2.0)?;
            return Ok(Some(e.less(af, w)?));
        }
        // float to integer truncates toward zero (monotone): the jump within 2e
        let w = e.scale(ea, 2.0)?;
        let hi = e.add(a, w)?;
        let lo = e.sub(a, w)?;
        let hi = e.cast(hi, to)?;
        let lo = e.cast(lo, to)?;
        let hi = e.f64(hi)?;
        let lo = e.f64(lo)?;
        Ok(Some(e.sub(hi, lo)?))
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce(e: &mut Emit, kind: &str, axes: &[i64], keep: bool, a: Value, ea: Option<Value>, r: Value, float: bool, (ua, ub): (f64, f64)) -> R<Option<Value>> {
        let count = |e: &mut Emit| -> R<Value> {
            let z = e.zeros(a)?;
            let one = e.c(1.0)?;
            let ones = e.add(z, one)?;
            e.reduce(ones, "sum", axes, keep)
        };
        Ok(match kind {
            "max" | "min" => match ea {
                None => None,
                Some(ea) => Some(e.reduce(ea, "max", axes, keep)?),
            },
            "sum" | "mean" => {
                let prop = match ea {
                    None => None,
                    Some(ea) => Some(e.reduce(ea, kind, axes, keep)?),
                };
                if !float {
                    return Ok(match (kind, prop) {
                        ("mean", Some(p)) => {
                            let one = e.c(1.0)?;
                            Some(e.add(p, one)?)
                        }
                        (_, p) => p,
                    });
                }
                let n = count(e)?;
                let aa = e.abs(a)?;
                let s = e.reduce(aa, kind, axes, keep)?;
                let t = e.mul(n, s)?;
                let round = e.scale(t, ua)?;
                let rr = e.rel(r, ub)?;
                let round = e.add(round, rr)?;
                e.sum_opt(prop, Some(round))?
            }
            _ => {
                // prod: (prod(|a| + ea) - prod(|a|)) + 2 n u prod(|a| + ea)
                let aa = e.abs(a)?;
                let p = e.reduce(aa, "prod", axes, keep)?;
                let (up, t) = match ea {
                    Some(ea) => {
                        let s = e.add(aa, ea)?;
                        let up = e.reduce(s, "prod", axes, keep)?;
                        let d = e.sub(up, p)?;
                        (up, Some(d))
                    }
                    None => (p, None),
                };
                if !float {
                    return Ok(t);
                }
                let n = count(e)?;
                let k = e.scale(n, ua)?;
                let last = e.c(ub)?;
                let k = e.add(k, last)?;
                let round = e.mul(k, up)?;
                e.sum_opt(t, Some(round))?
            }
        })
    }

    /// layer_norm's bound over `axes` (see the module doc).
    fn layer_norm(e: &mut Emit, axes: &[i64], eps: f64, ins: &[(Value, Option<Value>)], r: Value, (ua, ub, ut): (f64, f64, f64)) -> R<Value> {
        let (x, ex) = ins[0];
        let (g, eg) = ins[1];
        let eb = ins[2].1;
        let z = e.zeros(x)?;
        let one = e.c(1.0)?;
        let ones = e.add(z, one)?;
        let n = e.reduce(ones, "sum", axes, true)?;
        let mu = e.reduce(x, "mean", axes, true)?;
        let d = e.sub(x, mu)?;
        let d2 = e.mul(d, d)?;
        let var = e.reduce(d2, "mean", axes, true)?;
        let epsv = e.c(eps)?;
        let var = e.add(var, epsv)?;
        let sigma = e.unary("sqrt", var)?;
        let xhat = e.div(d, sigma)?;
        let axh = e.abs(xhat)?;
        let ax = e.abs(x)?;
        let m = e.reduce(ax, "max", axes, true)?;
        let eight = e.c(8.0)?;
        let k = e.add(n, eight)?;
        let k = e.scale(k, ua)?;
        // rounding: k (M + |d|) / sigma + (k + ut) |xhat|
        let ad = e.abs(d)?;
        let s = e.add(m, ad)?;
        let s = e.mul(k, s)?;
        let mut num = s;
        if let Some(ex) = ex {
            let emax = e.reduce(ex, "max", axes, true)?;
            let two = e.c(2.0)?;
            let f = e.add(two, axh)?;
            let p = e.mul(emax, f)?;
            num = e.add(num, p)?;
        }
        let exh = e.div(num, sigma)?;
        let t = e.c(ut)?;
        let kt = e.add(k, t)?;
        let p = e.mul(kt, axh)?;
        let exh = e.add(exh, p)?;
        // y = xhat g + b
        let ag = e.abs(g)?;
        let mut ey = e.mul(ag, exh)?;
        if let Some(eg) = eg {
            let s = e.add(axh, exh)?;
            let p = e.mul(s, eg)?;
            ey = e.add(ey, p)?;
        }
        if let Some(eb) = eb {
            ey = e.add(ey, eb)?;
        }
        let xg = e.mul(axh, ag)?;
        let ar = e.abs(r)?;
        let s = e.add(xg, ar)?;
        let round = e.scale(s, 2.0 * ub)?;
        e.add(ey, round)
    }
}
