//! `func.call` and `func.return`. A call passes its tensor arguments contiguous (pointer and
//! sizes), gets its results through stack slots, and adopts the callee's result buffers; calls
//! nested deeper than 512 are a run-time error, as in the interpreter. A return hands the
//! results to the caller (`FunctionLowering::return_values`).

use xcs_ir::{Value, DYNAMIC};

use crate::codegen::llvm_ir::Val;
use crate::codegen::types::{comp_ty, elem_size};
use crate::codegen::{FunctionLowering, LowerFn, OpSite, RunTimeCheck, Slot, R};

pub static CALL: LowerFn = LowerFn(call);
pub static RETURN: LowerFn = LowerFn(ret);

/// `func.call`: arguments made contiguous, result slots on the stack, the callee's buffers
/// become this function's.
fn call(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let ctx = fl.ctx();
    let (body, op, site) = (o.body, o.op, o.site);
    let callee = body
        .attr(ctx, op, "callee")
        .and_then(|a| ctx.as_symbol(a))
        .ok_or_else(|| o.err("requires a 'callee' symbol reference"))?
        .to_string();
    let (_, outs) = fl.module.signature(&callee).map_err(|e| o.located(e.message))?;
    if fl.module.func_op(&callee).is_none() {
        return Err(o.err(&format!("calls @{callee}, which is not a function of the module")));
    }
    let llvm = fl.module.request(&callee);
    let mut args = Vec::new();
    let mut temps = Vec::new();
    for v in body.operands(op) {
        match fl.get(v)? {
            Slot::Tensor(t) => {
                let c = fl.contiguous(&t)?;
                if !t.contiguous {
                    temps.push(c.buf);
                }
                args.push(c.ptr.t());
                for d in &c.dims {
                    args.push(d.t());
                }
            }
            Slot::Scalar(s, _) => args.push(s.t()),
        }
    }
    let mut slots = Vec::new();
    for p in &outs {
        let s = fl.f.alloca("i64", 1 + p.rank());
        args.push(s.t());
        slots.push(s);
    }
    // The call depth limit (unbounded recursion is a run-time error, as in the interpreter).
    let d = fl.f.emit("i32", "call i32 @xcs_rt_call_enter()");
    let deep = fl.f.emit("i1", format!("icmp ne i32 {d}, 0"));
    let msg = fl.module.msg(
        site,
        &format!("call depth limit of 512 exceeded calling @{callee} (unbounded recursion?)"),
    );
    fl.fail_if(&deep, site, &msg);
    let st = fl.f.emit("i32", format!("call i32 @\"{llvm}\"({})", args.join(", ")));
    fl.f.raw("call void @xcs_rt_call_leave()");
    for b in temps.into_iter().flatten() {
        fl.pool_buffer(b);
    }
    fl.check_status(&st);
    let mut res = Vec::new();
    for (p, s) in outs.iter().zip(&slots) {
        match &p.dims {
            Some(d) => {
                let ptr = fl.f.load("ptr", s);
                let mut dims = Vec::new();
                for (j, &sd) in d.iter().enumerate() {
                    if sd == DYNAMIC {
                        let q = fl.f.gep("i64", s, &Val::i64(1 + j as i64));
                        dims.push(fl.f.load("i64", &q));
                    } else {
                        dims.push(Val::i64(sd));
                    }
                }
                let n = fl.f.product(&dims);
                let bytes = fl.f.mul(&n, &Val::i64(elem_size(p.elem)));
                res.push(Slot::Tensor(fl.adopt_tensor(ptr, dims, bytes, p.elem, site)?));
            }
            None => {
                let v = fl.f.load(comp_ty(p.elem), s);
                res.push(Slot::Scalar(v, p.elem));
            }
        }
    }
    Ok(res)
}

/// `func.return`: hands its operands to the caller.
fn ret(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let operands: Vec<Value> = o.body.operands(o.op).collect();
    fl.return_values(o, &operands)?;
    Ok(Vec::new())
}
