//! Outlined loop kernels: every op's loop nest is a function `i32 @name(captures..., i64 %lo,
//! i64 %hi)` of its own ([`Kernel`]), called over its outer iteration space directly or, above
//! a size threshold, through the runtime's thread pool ([`FunctionLowering::launch`]).

use xcs_dialects::interp::ElemType;

use super::buffers::{RunTimeCheck, RunTimeError};
use super::function::FunctionLowering;
use super::llvm_ir::{FunctionBuilder, ModuleBuilder, Val, KERNEL_INLINE_ATTRS};
use super::types::{comp_to_f64, comp_ty, f64_to_mem, int_to_i64, load_elem, mem_ty};
use super::values::TensorVal;
use super::R;

/// How [`Kernel::rolled_loops`] keeps loops rolled: vectorized by LLVM, scalar, or as written
/// (explicit vector code: LLVM's vectorizer has nothing to do in them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolledLoops {
    Vector,
    Scalar,
    Explicit,
}

/// An outlined loop kernel being built: `i32 @name(captures..., i64 %lo, i64 %hi)` returning 0,
/// or 1 after recording a run-time error. Registers of the calling function used inside are
/// captured as parameters ([`Kernel::cap`]); constants are used as they are, so static sizes
/// stay constants in the kernel. While a kernel is open it holds the module builder (`m`).
pub struct Kernel {
    pub f: FunctionBuilder,
    pub m: ModuleBuilder,
    caps: Vec<(Val, String)>,
    pub lo: Val,
    pub hi: Val,
    fails: u32,
    /// Loops ended while this is set stay rolled, and scalar if it says so
    /// (`ModuleBuilder::loop_rolled_md`).
    pub rolled_loops: Option<RolledLoops>,
}

impl Kernel {
    /// A captured value usable in the kernel.
    pub fn cap(&mut self, v: &Val) -> Val {
        if v.is_const() {
            return v.clone();
        }
        if let Some((_, p)) = self.caps.iter().find(|(o, _)| o == v) {
            return Val::new(v.ty, p.clone());
        }
        let p = format!("%c{}", self.caps.len());
        self.caps.push((v.clone(), p.clone()));
        Val::new(v.ty, p)
    }
    pub fn cap_all(&mut self, vs: &[Val]) -> Vec<Val> {
        vs.iter().map(|v| self.cap(v)).collect()
    }
    /// A tensor usable in the kernel.
    pub fn tensor(&mut self, t: &TensorVal) -> TensorVal {
        TensorVal {
            ptr: self.cap(&t.ptr),
            dims: self.cap_all(&t.dims),
            strides: self.cap_all(&t.strides),
            elem: t.elem,
            contiguous: t.contiguous,
            buf: t.buf,
        }
    }
    /// Element `idx` of `t` as an accumulator: widened to `double` for floats, to `i64` for
    /// integers (i1 as 0/1).
    pub fn load_acc(&mut self, t: &TensorVal, idx: &Val) -> Val {
        let v = load_elem(&mut self.f, t.elem, &t.ptr, idx);
        if t.elem.is_float() {
            comp_to_f64(&mut self.f, t.elem, &v)
        } else {
            int_to_i64(&mut self.f, t.elem, &v)
        }
    }
    /// Stores accumulator `acc` (`double` for floats, `i64` for integers) as element `idx` of
    /// `out`: floats round once to the element type, integers wrap.
    pub fn store_acc(&mut self, out: &TensorVal, idx: &Val, acc: &Val) {
        let v = if out.elem.is_float() {
            f64_to_mem(&mut self.f, &mut self.m, out.elem, acc)
        } else if out.elem == ElemType::I64 {
            acc.clone()
        } else {
            let t = comp_ty(out.elem);
            self.f.emit(t, format!("trunc i64 {acc} to {t}"))
        };
        let p = self.f.gep(mem_ty(out.elem), &out.ptr, idx);
        self.f.store(&v, &p);
    }
    /// `for i in lo..hi { body(i) }` in the kernel.
    pub fn for_range(&mut self, lo: &Val, hi: &Val, body: impl FnOnce(&mut Kernel, &Val) -> R<()>) -> R<()> {
        self.for_acc(lo, hi, &[], |k, i, _| body(k, i).map(|_| Vec::new()))
            .map(|_| ())
    }
    /// `lo..hi` in blocks of `block` iterations: `body(start, end)` for each block (the last one
    /// may be short). The body usually opens an inner [`Kernel::for_range`] over `start..end`.
    pub fn for_blocks(
        &mut self,
        lo: &Val,
        hi: &Val,
        block: i64,
        body: impl FnOnce(&mut Kernel, &Val, &Val) -> R<()>,
    ) -> R<()> {
        let n = self.f.sub(hi, lo);
        let n = self.f.add(&n, &Val::i64(block - 1));
        let blocks = self.f.div(&n, &Val::i64(block));
        self.for_range(&Val::i64(0), &blocks, |k, j| {
            let off = k.f.mul(j, &Val::i64(block));
            let start = k.f.add(lo, &off);
            let end = k.f.add(&start, &Val::i64(block));
            let short = k.f.icmp("slt", hi, &end);
            let end = k.f.select(&short, hi, &end);
            body(k, &start, &end)
        })
    }
    /// A loop with carried values in the kernel (see [`FunctionBuilder::for_acc`]).
    pub fn for_acc(
        &mut self,
        lo: &Val,
        hi: &Val,
        init: &[Val],
        body: impl FnOnce(&mut Kernel, &Val, &[Val]) -> R<Vec<Val>>,
    ) -> R<Vec<Val>> {
        let st = self.f.loop_begin(lo, hi, init);
        let (i, accs) = (st.i.clone(), st.accs.clone());
        // an interleave request made by the body (and not taken by a loop inside it) is this
        // loop's
        self.m.interleave = None;
        let next = body(self, &i, &accs)?;
        let (md, as_written) = match self.m.interleave.take() {
            Some(n) => (Some(self.m.loop_interleave_md(n)), false),
            None => (
                self.rolled_loops.map(|r| self.m.loop_rolled_md(r != RolledLoops::Vector)),
                matches!(self.rolled_loops, Some(RolledLoops::Scalar | RolledLoops::Explicit)),
            ),
        };
        self.f.loop_end_md(st, &next, md.as_deref(), as_written)
    }
    /// Nested loops over `dims` (first dim outermost) with carried values; `body` gets the index
    /// of every dim.
    pub fn nest_acc(
        &mut self,
        dims: &[Val],
        init: &[Val],
        body: &mut dyn FnMut(&mut Kernel, &[Val], &[Val]) -> R<Vec<Val>>,
    ) -> R<Vec<Val>> {
        fn go(
            k: &mut Kernel,
            dims: &[Val],
            idx: &mut Vec<Val>,
            accs: &[Val],
            body: &mut dyn FnMut(&mut Kernel, &[Val], &[Val]) -> R<Vec<Val>>,
        ) -> R<Vec<Val>> {
            if idx.len() == dims.len() {
                return body(k, idx, accs);
            }
            let d = dims[idx.len()].clone();
            k.for_acc(&Val::i64(0), &d, accs, |k, i, a| {
                idx.push(i.clone());
                let r = go(k, dims, idx, a, body);
                idx.pop();
                r
            })
        }
        go(self, dims, &mut Vec::new(), init, body)
    }
}

impl RunTimeCheck for Kernel {
    /// Records the error and returns 1 from the kernel.
    fn branch_to_failure(&mut self, bad: &Val, site: i32, error: RunTimeError<'_>) {
        self.fails += 1;
        let (e, ok) = (self.f.label("kfail"), self.f.label("kok"));
        self.f.condbr(bad, &e, &ok);
        self.f.start(&e);
        let record = error.record_call(&mut self.m, site);
        self.f.raw(record);
        self.f.br("kerr");
        self.f.start(&ok);
    }
}

impl FunctionLowering<'_, '_> {
    /// Opens a kernel (takes the module builder until [`FunctionLowering::launch`]).
    pub fn kernel(&mut self, hint: &str) -> Kernel {
        self.kernels += 1;
        let name = format!("{}.k{}.{hint}", self.f.name, self.kernels);
        let f = FunctionBuilder::new(&name, "internal", "i32", "");
        let m = std::mem::take(&mut self.module.m);
        Kernel {
            f,
            m,
            caps: Vec::new(),
            lo: Val::new("i64", "%lo"),
            hi: Val::new("i64", "%hi"),
            fails: 0,
            rolled_loops: None,
        }
    }

    /// Adds kernel `k` to the module with parameters (captures..., `extra`...) and attribute
    /// group `attrs`, and returns its name and captures.
    fn finish_kernel(&mut self, k: Kernel, extra: &[&str], attrs: &'static str) -> (String, Vec<(Val, String)>) {
        let Kernel { mut f, m, caps, .. } = k;
        f.attrs = attrs;
        self.module.m = m;
        f.ret(&Val::i32(0));
        f.start("kerr");
        f.ret(&Val::i32(1));
        let mut params: Vec<String> = caps
            .iter()
            .map(|(v, p)| {
                if v.ty == "ptr" {
                    format!("ptr noalias {p}")
                } else {
                    format!("{} {p}", v.ty)
                }
            })
            .collect();
        params.extend(extra.iter().map(|p| p.to_string()));
        f.params = params.join(", ");
        let name = f.name.clone();
        let text = f.finish(&Default::default());
        self.module.m.add_function(text);
        (name, caps)
    }

    /// Adds `i32 @tname(ptr %ctx, <params>)`, which calls kernel `name` with the captures loaded
    /// from the 8-byte slots of `ctx` and its own parameters (`args`, typed as the call gives them).
    fn add_trampoline(&mut self, name: &str, tname: &str, caps: &[(Val, String)], params: &str, args: &[&str]) {
        let mut t = FunctionBuilder::new(tname, "internal", "i32", &format!("ptr %ctx, {params}"));
        let mut targs = Vec::new();
        for (i, (v, _)) in caps.iter().enumerate() {
            let p = t.gep("i64", &Val::new("ptr", "%ctx"), &Val::i64(i as i64));
            let x = t.load(v.ty, &p);
            targs.push(x.t());
        }
        targs.extend(args.iter().map(|a| a.to_string()));
        let r = t.emit("i32", format!("call i32 @\"{name}\"({})", targs.join(", ")));
        t.ret(&r);
        self.module.m.add_function(t.finish(&Default::default()));
    }

    /// The captures stored in 8-byte slots of a stack array (a trampoline's `ctx`).
    fn store_captures(&mut self, caps: &[(Val, String)]) -> Val {
        let ctxp = self.f.alloca("i64", caps.len().max(1));
        for (i, (v, _)) in caps.iter().enumerate() {
            let p = self.f.gep("i64", &ctxp, &Val::i64(i as i64));
            self.f.store(v, &p);
        }
        ctxp
    }

    /// Finishes kernel `k` as a callback for runtime code (the f32 matmul library's epilogue):
    /// the kernel takes `params` (`"i64 %eb"`, ...: its body uses them by name) after its
    /// captures, and `i32 @<kernel>.cb(ptr %ctx, <params>)` calls it with the captures read from
    /// `ctx`. Returns the callback and its `ctx` (in the current function's frame).
    pub fn callback(&mut self, k: Kernel, params: &[&str]) -> (Val, Val) {
        let (name, caps) = self.finish_kernel(k, params, "#0");
        let tname = format!("{name}.cb");
        let args: Vec<&str> = params.to_vec();
        self.add_trampoline(&name, &tname, &caps, &params.join(", "), &args);
        let ctxp = self.store_captures(&caps);
        (Val::new("ptr", format!("@\"{tname}\"")), ctxp)
    }

    /// Finishes kernel `k` and calls it over `0..n` in the current function: directly, or when
    /// the options allow threads and `work` (elements touched) reaches the threshold, through
    /// `xcs_rt_parallel_for` in chunks of at least `grain` iterations. When a static `work`
    /// reaches the threshold, only the pool's trampoline calls the kernel, and the kernel is
    /// `alwaysinline` ([`KERNEL_INLINE_ATTRS`]).
    pub fn launch(&mut self, k: Kernel, n: &Val, grain: &Val, work: &Val) -> R<()> {
        let threshold = self.module.opts.parallel_threshold;
        let parallel = self.module.opts.threads > 1
            && work.as_i64().is_none_or(|w| w >= threshold)
            && n.as_i64().is_none_or(|v| v > 1);
        let only_parallel = parallel && work.as_i64().is_some();
        let attrs = if only_parallel { KERNEL_INLINE_ATTRS } else { "#0" };
        let (name, caps) = self.finish_kernel(k, &["i64 %lo", "i64 %hi"], attrs);
        let args: Vec<String> = caps.iter().map(|(v, _)| v.t()).collect();
        let call = |lo_hi: &str| {
            format!(
                "call i32 @\"{name}\"({}{}{lo_hi})",
                args.join(", "),
                if args.is_empty() { "" } else { ", " }
            )
        };
        if !parallel {
            self.direct_kernels += 1;
            let st = self.f.emit("i32", call(&format!("i64 0, i64 {n}")));
            self.check_status(&st);
            return Ok(());
        }
        // The trampoline the pool calls: i32 (ptr ctx, i64 lo, i64 hi), captures in ctx slots.
        let tname = format!("{name}.par");
        self.add_trampoline(&name, &tname, &caps, "i64 %lo, i64 %hi", &["i64 %lo", "i64 %hi"]);
        let pool_call = |fl: &mut FunctionLowering| {
            let ctxp = fl.store_captures(&caps);
            fl.f.emit(
                "i32",
                format!("call i32 @xcs_rt_parallel_for(ptr @\"{tname}\", ptr {ctxp}, i64 {n}, i64 {grain})"),
            )
        };
        if only_parallel {
            let st = pool_call(self);
            self.check_status(&st);
            return Ok(());
        }
        let big = self.f.icmp("sge", work, &Val::i64(threshold));
        let (par, ser, join) = (self.f.label("par"), self.f.label("ser"), self.f.label("join"));
        self.f.condbr(&big, &par, &ser);
        self.f.start(&par);
        let s1 = pool_call(self);
        let par_end = self.f.cur.clone();
        self.f.br(&join);
        self.f.start(&ser);
        self.direct_kernels += 1;
        let s2 = self.f.emit("i32", call(&format!("i64 0, i64 {n}")));
        let ser_end = self.f.cur.clone();
        self.f.br(&join);
        self.f.start(&join);
        let st = self
            .f
            .emit("i32", format!("phi i32 [ {s1}, %{par_end} ], [ {s2}, %{ser_end} ]"));
        self.check_status(&st);
        Ok(())
    }
}
