//! The functions a batched body calls: `vmap-batch` redirects a call with batched arguments to a
//! batched clone of its callee, `@<callee>_batched_<B>_<mask>`, made once per (callee, batched
//! argument types) by translating the callee's body with the same rules, and kept until the pass
//! adds it at the end of the module; it also decides which functions are pure tensor functions
//! (a call of one with unbatched arguments is computed once for the whole batch).

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xcs_dialects::func::{CallOp, ReturnOp};
use xcs_dialects::interfaces::batching::{BatchResult, BatchedValue, CallTarget, Unbatchable};
use xcs_ir::opdef::Traits;
use xcs_ir::{Body, Context, Op, Type, Value, DYNAMIC};

use super::translate::{is_tensor_op, BatchedCall, CallBatcher, Translator};
use crate::util;

/// What the pass keeps across functions: batched clones (made and pending insertion) and the
/// purity of functions.
#[derive(Default)]
pub(super) struct State {
    /// (callee, argument types of the batched call) -> the clone, or why there is none.
    clones: FxHashMap<(String, Vec<Type>), Result<CallTarget, Unbatchable>>,
    in_progress: FxHashSet<(String, Vec<Type>)>,
    /// `None` while being computed (recursion: not pure).
    pure: FxHashMap<String, Option<bool>>,
    /// Clones to add to the module, in creation order.
    pub(super) pending: Vec<(String, Box<Body>)>,
    pending_index: FxHashMap<String, usize>,
}

/// The module as seen while one function (taken out of it) is rewritten.
pub(super) struct Env<'a> {
    pub(super) ctx: &'a Context,
    pub(super) module: &'a Body,
    pub(super) funcs: &'a [Op],
    pub(super) index: &'a FxHashMap<String, usize>,
    pub(super) st: &'a mut State,
}

impl Env<'_> {
    /// The body of function `name` (a clone made by this pass, or a function of the module that
    /// is not being rewritten right now).
    fn body_of(&self, name: &str) -> Option<&Body> {
        if let Some(&i) = self.st.pending_index.get(name) {
            return Some(&self.st.pending[i].1);
        }
        let &i = self.index.get(name)?;
        self.module.nested(self.funcs[i])
    }

    /// The `xcs.class` of function `name` (written by `classify`), if any.
    pub(super) fn class_of(&self, name: &str) -> Option<String> {
        let ctx = self.ctx;
        let attrs = match self.st.pending_index.get(name) {
            Some(&i) => self.st.pending[i].1.self_attrs(),
            None => self.module.attrs(self.funcs[*self.index.get(name)?]),
        };
        ctx.dict_get(attrs, "xcs.class")
            .and_then(|a| ctx.as_str(a))
            .map(String::from)
    }

    fn name_taken(&self, name: &str) -> bool {
        self.index.contains_key(name) || self.st.pending_index.contains_key(name)
    }

    /// Makes the batched clone of the callee of `call` (see the module docs).
    fn make_clone(&mut self, call: BatchedCall<'_>) -> BatchResult<CallTarget> {
        let BatchedCall { callee, arg_types, batched, batch } = call;
        let ctx = self.ctx;
        if let Some(c @ ("orchestration" | "hybrid")) = self.class_of(callee).as_deref() {
            return Err(Unbatchable(format!("it calls @{callee}, classified \"{c}\"")));
        }
        let src = self.body_of(callee).ok_or_else(|| {
            Unbatchable(format!(
                "it calls @{callee}, which is not a function of the module outside the current call cycle"
            ))
        })?;
        let Some(&region) = src.root_regions().first() else {
            return Err(Unbatchable(format!("@{callee} has no body")));
        };
        let blocks: SmallVec<[xcs_ir::Block; 2]> = src.region_blocks(region).collect();
        let [entry] = blocks[..] else {
            return Err(Unbatchable(format!(
                "@{callee} is an external declaration or has more than one block"
            )));
        };
        if src.block_args(entry).len() != arg_types.len() {
            return Err(Unbatchable(format!(
                "the call of @{callee} has the wrong number of arguments"
            )));
        }
        let mut fb = Box::new(src.clone());
        let args: SmallVec<[Value; 4]> = fb.block_args(entry).into();
        let mut tx = Translator::new(ctx, batch);
        for ((&a, &t), &b) in args.iter().zip(arg_types).zip(batched) {
            fb.set_value_type(a, t);
            tx.bind(a, BatchedValue { value: a, batched: b });
        }
        let term = fb.last_op(entry).filter(|&t| ReturnOp::matches(ctx, fb.op_name(t)));
        let Some(term) = term else {
            return Err(Unbatchable(format!(
                "@{callee} does not end in '{}'",
                ReturnOp::DEF.name
            )));
        };
        for op in fb.block_op_vec(entry) {
            if op != term {
                tx.translate(&mut fb, op, self)
                    .map_err(|u| Unbatchable(format!("in @{callee}: {}", u.0)))?;
            }
        }
        let rets: Vec<BatchedValue> = fb.operands(term).map(|v| tx.get(v)).collect();
        let ret_vals: Vec<Value> = rets.iter().map(|b| b.value).collect();
        fb.set_operands(term, &ret_vals);
        for &op in tx.replaced().iter().rev() {
            fb.erase_op(op);
        }
        let results: Vec<(Type, bool)> = rets.iter().map(|b| (fb.value_type(b.value), b.batched)).collect();
        let result_types: Vec<Type> = results.iter().map(|r| r.0).collect();
        // @f_batched_8_bu: batch size (or dyn) and which arguments are batched
        let mask: String = batched.iter().map(|&b| if b { 'b' } else { 'u' }).collect();
        let size = if batch == DYNAMIC {
            "dyn".to_string()
        } else {
            batch.to_string()
        };
        let base = format!("{callee}_batched_{size}_{mask}");
        let mut name = base.clone();
        let mut k = 1;
        while self.name_taken(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        fb.set_self_attr(ctx, "sym_name", Some(ctx.str_attr(&name)));
        fb.set_self_attr(
            ctx,
            "function_type",
            Some(ctx.type_attr(ctx.function_type(arg_types, &result_types))),
        );
        fb.set_self_attr(ctx, "sym_visibility", Some(ctx.str_attr("private")));
        self.st.pending_index.insert(name.clone(), self.st.pending.len());
        self.st.pending.push((name.clone(), fb));
        Ok(CallTarget { callee: name, results })
    }

    fn compute_pure(&mut self, name: &str) -> bool {
        let ctx = self.ctx;
        if matches!(self.class_of(name).as_deref(), Some("orchestration" | "hybrid")) {
            return false;
        }
        let Some(body) = self.body_of(name) else { return false };
        let Some(&region) = body.root_regions().first() else {
            return false;
        };
        if body.region_is_empty(region) {
            return false; // a declaration: its effects are unknown
        }
        let mut callees = Vec::new();
        let mut ok = true;
        for op in body.walk_ops() {
            if CallOp::cast(ctx, body, op).is_some() {
                callees.push(
                    body.attr(ctx, op, "callee")
                        .and_then(|a| ctx.as_symbol(a))
                        .unwrap_or("")
                        .to_string(),
                );
            } else if !(util::has_trait(ctx, body, op, Traits::ReturnLike)
                || (is_tensor_op(ctx, body, op) && util::is_memory_effect_free(ctx, body, op)))
            {
                ok = false;
                break;
            }
        }
        ok && callees.iter().all(|c| self.is_pure_tensor(c))
    }
}

impl CallBatcher for Env<'_> {
    fn batched_call(&mut self, call: BatchedCall<'_>) -> BatchResult<CallTarget> {
        let BatchedCall { callee, arg_types, .. } = call;
        let key = (callee.to_string(), arg_types.to_vec());
        if let Some(r) = self.st.clones.get(&key) {
            return r.clone();
        }
        if !self.st.in_progress.insert(key.clone()) {
            return Err(Unbatchable(format!("@{callee} calls itself with batched arguments")));
        }
        let r = self.make_clone(call);
        self.st.in_progress.remove(&key);
        self.st.clones.insert(key, r.clone());
        r
    }

    fn is_pure_tensor(&mut self, callee: &str) -> bool {
        match self.st.pure.get(callee) {
            Some(Some(p)) => return *p,
            Some(None) => return false,
            None => {}
        }
        self.st.pure.insert(callee.to_string(), None);
        let p = self.compute_pure(callee);
        self.st.pure.insert(callee.to_string(), Some(p));
        p
    }
}
