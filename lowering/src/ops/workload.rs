//! `xcs.workload`: its outputs are new zeroed buffers; each top-level `parallel_for` nest (the
//! perfectly nested loops flattened into one iteration space) becomes an outlined loop kernel
//! run on the runtime's thread pool, whose iterations run the inner steps: loops in order and
//! launches. A launch passes each view to the kernel's function (`xcs.kernel` bodies are
//! lowered once each as functions of their view shapes, see `codegen/module.rs`): a view that is
//! contiguous in its tensor is passed as a pointer into it, others are copied to a temporary;
//! the new values the kernel returns are copied into the views of the outputs. The
//! interpreter's `xcs.workload` semantics (`dialects/src/xcs/semantics.rs`) is the reference.

use rustc_hash::FxHashMap;
use xcs_dialects::interp::ElemType;
use xcs_dialects::xcs::kernel::{ArgKind, KernelSignature};
use xcs_dialects::xcs::views::Affine;
use xcs_dialects::xcs::workload::{launch_plan, schedule, Binding, LaunchPlan, Step};
use xcs_ir::{Op, Value};

use crate::codegen::llvm_ir::Val;
use crate::codegen::module::Port;
use crate::codegen::types::{elem_size, mem_ty};
use crate::codegen::{FunctionLowering, Kernel, LowerError, LowerFn, OpSite, RunTimeCheck, Slot, TensorVal, R};

pub static WORKLOAD: LowerFn = LowerFn(workload);

/// What a launch needs inside a loop kernel, gathered before the kernel is opened.
struct LaunchInfo {
    plan: LaunchPlan,
    kinds: Vec<ArgKind>,
    /// The kernel function's LLVM name and result ports.
    llvm: String,
    outs: Vec<Port>,
    site: i32,
}

fn workload(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let ctx = fl.ctx();
    let steps = schedule(ctx, o.body, o.op).map_err(|(op, e)| OpSite::with_site(ctx, o.body, op, -1).err(&e))?;
    let mut tensors = Vec::new();
    for i in 0..o.body.num_operands(o.op) {
        let t = o.tensor(fl, i)?;
        tensors.push(fl.contiguous(&t)?);
    }
    fl.module.m.declare("llvm.memset.p0.i64", "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)");
    let mut outputs = Vec::new();
    for i in 0..o.body.num_results(o.op) {
        let (shape, elem) = o.result(fl, i)?;
        let dims: Vec<Val> = shape.iter().map(|&d| Val::i64(d)).collect();
        let t = fl.new_tensor(elem, &dims)?;
        let bytes = Val::i64(shape.iter().product::<i64>() * elem_size(elem));
        fl.f.raw(format!("call void @llvm.memset.p0.i64(ptr {}, i8 0, i64 {bytes}, i1 false)", t.ptr));
        tensors.push(t.clone());
        outputs.push(t);
    }
    let mut launches = FxHashMap::default();
    gather_launches(fl, o, &steps, &mut launches)?;
    for step in &steps {
        lower_top_step(fl, step, &tensors, &launches)?;
    }
    Ok(outputs.into_iter().map(Slot::Tensor).collect())
}

/// Plans every launch and asks for its kernel's function.
fn gather_launches(fl: &mut FunctionLowering, o: &OpSite, steps: &[Step], out: &mut FxHashMap<Op, LaunchInfo>) -> R<()> {
    let ctx = fl.ctx();
    for s in steps {
        match s {
            Step::Loop { body, .. } => gather_launches(fl, o, body, out)?,
            Step::Launch(op) => {
                let at = OpSite::with_site(ctx, o.body, *op, -1);
                let plan = launch_plan(ctx, o.body, *op).map_err(|e| at.err(&e))?;
                let kop = fl
                    .module
                    .func_op(&plan.kernel)
                    .ok_or_else(|| at.err(&format!("launches @{}, which is not a kernel of the module", plan.kernel)))?;
                let has_body = fl
                    .module
                    .source
                    .body
                    .nested(kop)
                    .and_then(|b| b.root_regions().first().and_then(|&r| b.entry_block(r)).map(|e| b.block_ops(e).next().is_some()))
                    .unwrap_or(false);
                if !has_body {
                    return Err(at.err(&format!("launches @{}, a kernel without a body, which cannot run", plan.kernel)));
                }
                let attrs = fl.module.source.body.attrs(kop);
                let sig = KernelSignature::from_attrs(ctx, attrs).map_err(|e| at.err(&e))?;
                let (_, outs) = fl.module.signature(&plan.kernel)?;
                let llvm = fl.module.request(&plan.kernel);
                let site = fl.module.site(o.body, *op);
                let kinds = sig.params.iter().map(|p| p.kind).collect();
                out.insert(*op, LaunchInfo { plan, kinds, llvm, outs, site });
            }
        }
    }
    Ok(())
}

/// A top-level step: a launch, or a nest of loops, as one loop kernel over the flattened
/// perfectly nested loops (on the thread pool).
fn lower_top_step(fl: &mut FunctionLowering, step: &Step, tensors: &[TensorVal], launches: &FxHashMap<Op, LaunchInfo>) -> R<()> {
    let mut loops: Vec<(Value, i64)> = Vec::new();
    let mut inner: &[Step] = std::slice::from_ref(step);
    while let [Step::Loop { axis, extent, body, .. }] = inner {
        loops.push((*axis, *extent));
        inner = body;
    }
    let n: i64 = loops.iter().map(|l| l.1).product();
    if n == 0 {
        return Ok(());
    }
    let mut k = fl.kernel("workload");
    let caps: Vec<TensorVal> = tensors.iter().map(|t| k.tensor(t)).collect();
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    k.for_range(&lo, &hi, |k, i| {
        let mut env = FxHashMap::default();
        let mut rest = i.clone();
        for &(axis, extent) in loops.iter().rev() {
            let idx = k.f.rem(&rest, &Val::i64(extent));
            rest = k.f.div(&rest, &Val::i64(extent));
            env.insert(axis, idx);
        }
        emit_steps(k, inner, &caps, launches, &mut env)
    })?;
    // Every iteration calls kernels: worth a thread whatever the size of its views (the pool
    // runs nested parallel loops of the kernels serially).
    fl.launch(k, &Val::i64(n), &Val::i64(1), &Val::i64(i64::MAX))
}

fn emit_steps(
    k: &mut Kernel,
    steps: &[Step],
    tensors: &[TensorVal],
    launches: &FxHashMap<Op, LaunchInfo>,
    env: &mut FxHashMap<Value, Val>,
) -> R<()> {
    for s in steps {
        match s {
            Step::Loop { axis, extent, body, .. } => {
                k.for_range(&Val::i64(0), &Val::i64(*extent), |k, i| {
                    env.insert(*axis, i.clone());
                    emit_steps(k, body, tensors, launches, env)
                })?;
            }
            Step::Launch(op) => {
                let info = launches.get(op).ok_or_else(|| LowerError::internal("a launch was not planned"))?;
                emit_launch(k, info, tensors, env)?;
            }
        }
    }
    Ok(())
}

/// `c0 + sum(c_k * axis_k)` in the kernel.
fn affine(k: &mut Kernel, a: &Affine, axes: &[Val]) -> Val {
    let mut v = Val::i64(a.constant);
    for (&c, x) in a.coefs.iter().zip(axes) {
        if c != 0 {
            let t = k.f.mul(x, &Val::i64(c));
            v = k.f.add(&v, &t);
        }
    }
    v
}

/// The first element of binding `b`'s view and the view's sizes and strides in its tensor.
fn view_of(k: &mut Kernel, b: &Binding, t: &TensorVal, axes: &[Val]) -> (Val, Vec<i64>, Vec<Val>) {
    let mut off = Val::i64(0);
    let (mut dims, mut strides) = (Vec::new(), Vec::new());
    for ((a, size), st) in b.view.dims.iter().zip(&t.strides) {
        let first = affine(k, a, axes);
        let term = k.f.mul(&first, st);
        off = k.f.add(&off, &term);
        if let Some(s) = size {
            dims.push(*s);
            strides.push(st.clone());
        }
    }
    let base = k.f.gep(mem_ty(t.elem), &t.ptr, &off);
    (base, dims, strides)
}

/// Whether a view of sizes `dims` and (constant) strides is row-major contiguous.
fn is_contiguous(dims: &[i64], strides: &[Val]) -> bool {
    let mut want = 1i64;
    for (d, s) in dims.iter().zip(strides).rev() {
        if *d != 1 && s.as_i64() != Some(want) {
            return false;
        }
        want *= d;
    }
    true
}

/// Copies `dims` elements of `elem` from `src` (strides `ss`) to `dst` (strides `ds`).
fn copy(k: &mut Kernel, elem: ElemType, dims: &[i64], src: &Val, ss: &[Val], dst: &Val, ds: &[Val]) -> R<()> {
    let sizes: Vec<Val> = dims.iter().map(|&d| Val::i64(d)).collect();
    let ty = mem_ty(elem);
    k.nest_acc(&sizes, &[], &mut |k, idx, _| {
        let (mut so, mut dof) = (Val::i64(0), Val::i64(0));
        for ((i, s), d) in idx.iter().zip(ss).zip(ds) {
            let a = k.f.mul(i, s);
            so = k.f.add(&so, &a);
            let b = k.f.mul(i, d);
            dof = k.f.add(&dof, &b);
        }
        let p = k.f.gep(ty, src, &so);
        let v = k.f.load(ty, &p);
        let q = k.f.gep(ty, dst, &dof);
        k.f.store(&v, &q);
        Ok(Vec::new())
    })?;
    Ok(())
}

fn row_major_consts(dims: &[i64]) -> Vec<Val> {
    let mut s = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * dims[d + 1];
    }
    s.into_iter().map(Val::i64).collect()
}

/// One launch inside a loop kernel: views in, the kernel's function called, its results copied
/// into the views of the outputs.
fn emit_launch(k: &mut Kernel, info: &LaunchInfo, tensors: &[TensorVal], env: &FxHashMap<Value, Val>) -> R<()> {
    let axes: Vec<Val> = info
        .plan
        .axes
        .iter()
        .map(|a| env.get(a).cloned().ok_or_else(|| LowerError::internal("an axis variable has no value")))
        .collect::<R<_>>()?;
    let mut args = Vec::new();
    let mut temps = Vec::new();
    let mut written = Vec::new();
    let (mut next_axis, mut bindings) = (axes.iter(), info.plan.bindings.iter());
    for kind in &info.kinds {
        if *kind == ArgKind::Axis {
            let a = next_axis.next().ok_or_else(|| LowerError::internal("too few axis operands"))?;
            args.push(a.t());
            continue;
        }
        let b = bindings.next().ok_or_else(|| LowerError::internal("too few bindings"))?;
        let t = &tensors[b.arg];
        let (base, dims, strides) = view_of(k, b, t, &axes);
        let ptr = if is_contiguous(&dims, &strides) {
            base.clone()
        } else {
            let bytes = Val::i64(dims.iter().product::<i64>() * elem_size(t.elem));
            let p = k.f.emit("ptr", format!("call ptr @xcs_rt_alloc(i64 {bytes})"));
            let null = k.f.emit("i1", format!("icmp eq ptr {p}, null"));
            k.fail_if(&null, info.site, &format!("'xcs.launch' op out of memory"));
            copy(k, t.elem, &dims, &base, &strides, &p, &row_major_consts(&dims))?;
            temps.push(p.clone());
            p
        };
        args.push(ptr.t());
        args.extend(dims.iter().map(|d| Val::i64(*d).t()));
        if kind.writes() {
            written.push((base, dims, strides, t.elem));
        }
    }
    let mut slots = Vec::new();
    for p in &info.outs {
        let s = k.f.alloca("i64", 1 + p.rank());
        args.push(s.t());
        slots.push(s);
    }
    let st = k.f.emit("i32", format!("call i32 @\"{}\"({})", info.llvm, args.join(", ")));
    let bad = k.f.icmp("ne", &st, &Val::i32(0));
    let ok = k.f.label("launched");
    k.f.condbr(&bad, "kerr", &ok);
    k.f.start(&ok);
    for (s, (base, dims, strides, elem)) in slots.iter().zip(written) {
        let r = k.f.load("ptr", s);
        copy(k, elem, &dims, &r, &row_major_consts(&dims), &base, &strides)?;
        k.f.raw(format!("call void @xcs_rt_free(ptr {r})"));
    }
    for p in temps {
        k.f.raw(format!("call void @xcs_rt_free(ptr {p})"));
    }
    Ok(())
}
