//! Lowering of functions: each `func.func` becomes an internal LLVM function over tensor
//! descriptors (data pointer and sizes; strides are implied, arguments are contiguous), each
//! tensor op a call of an outlined loop kernel (serial, or through the runtime's thread pool
//! above a size threshold), with run-time checks that branch to an error exit freeing what is
//! live. Buffers are planned by liveness (freed into a pool after their last use and reused for
//! an equal size; see [`FnLower::alloc`]). Also the exported C ABI wrappers. See
//! `docs/lowering.md` for the design.

use rustc_hash::FxHashMap;
use xcs_dialects::interp::ElemType;
use xcs_ir::{Body, Context, Location, Module, Op, Type, TypeKind, Value, DYNAMIC};

use crate::ir::{FnB, ModB, Val, R};
use crate::types::elem_size;
use crate::{LowerError, Options};

/// A tensor in registers: data pointer, sizes and strides (in elements), element type, whether
/// it is known to be row-major contiguous with `ptr` at the start of its buffer, and the buffer
/// it lives in (an owned allocation of this function; `None` for arguments, constants and views
/// of them).
#[derive(Clone, Debug)]
pub struct TV {
    pub ptr: Val,
    pub dims: Vec<Val>,
    pub strides: Vec<Val>,
    pub elem: ElemType,
    pub contiguous: bool,
    pub buf: Option<usize>,
}

impl TV {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    pub fn numel(&self, f: &mut FnB) -> Val {
        f.product(&self.dims)
    }
}

/// Row-major strides of `dims`.
pub fn row_major(f: &mut FnB, dims: &[Val]) -> Vec<Val> {
    let mut s = vec![Val::i64(1); dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = f.mul(&s[d + 1], &dims[d + 1]);
    }
    s
}

/// The value of an SSA value of the function being lowered.
#[derive(Clone, Debug)]
pub enum Slot {
    T(TV),
    /// An integer scalar (i1..i64) in registers.
    S(Val, ElemType),
}

/// A run-time error site: the op's location and name.
#[derive(Clone, Debug)]
pub struct Site {
    pub loc: Location,
    pub op: String,
}

/// The signature of a lowered function: per argument and result, the element type and static
/// sizes (`None` for a scalar).
#[derive(Clone, Debug)]
pub struct Port {
    pub elem: ElemType,
    /// Sizes (`DYNAMIC` for `?`), `None` for an integer scalar.
    pub dims: Option<Vec<i64>>,
}

impl Port {
    pub fn rank(&self) -> usize {
        self.dims.as_ref().map_or(0, |d| d.len())
    }
}

/// Reads an argument or result type.
pub fn port_of(ctx: &Context, t: Type) -> Result<Port, String> {
    match ctx.type_kind(t) {
        TypeKind::RankedTensor { shape, elem, .. } => {
            let e = ElemType::from_type(ctx, *elem)
                .filter(|e| *e != ElemType::Str)
                .ok_or_else(|| {
                    format!(
                        "element type '{}' is not supported by the LLVM backend",
                        xcs_ir::printer::type_to_string(ctx, *elem)
                    )
                })?;
            Ok(Port {
                elem: e,
                dims: Some(shape.to_vec()),
            })
        }
        TypeKind::Integer { .. } => match ElemType::from_type(ctx, t) {
            Some(e) => Ok(Port { elem: e, dims: None }),
            None => Err(format!(
                "type '{}' is not supported by the LLVM backend",
                xcs_ir::printer::type_to_string(ctx, t)
            )),
        },
        _ => Err(format!(
            "type '{}' is not supported by the LLVM backend",
            xcs_ir::printer::type_to_string(ctx, t)
        )),
    }
}

/// Module-wide lowering state.
pub struct Cx<'m> {
    pub ctx: &'m Context,
    pub module: &'m Module,
    pub m: ModB,
    pub opts: Options,
    pub sites: Vec<Site>,
    funcs: FxHashMap<String, Op>,
    /// Functions requested (called or exported) and whether they are lowered yet.
    requested: Vec<String>,
    lowered: usize,
    pub signatures: FxHashMap<String, (Vec<Port>, Vec<Port>)>,
    pub stats: PlanStats,
}

/// The LLVM name of the internal function for `func.func @name`.
pub fn internal_name(name: &str) -> String {
    format!("xcs.f.{name}")
}

impl<'m> Cx<'m> {
    pub fn new(ctx: &'m Context, module: &'m Module, opts: Options) -> Cx<'m> {
        let mut funcs = FxHashMap::default();
        for op in module.ops() {
            if ctx.op_name_str(module.body.op_name(op)) == "func.func" {
                if let Some(n) = module.body.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) {
                    funcs.entry(n.to_string()).or_insert(op);
                }
            }
        }
        let mut m = ModB::default();
        m.fn_attrs = format!(
            "\"target-cpu\"=\"{}\" \"target-features\"=\"{}\"",
            opts.cpu, opts.features
        );
        // With AVX-512, loops vectorize to 512-bit vectors (LLVM prefers 256 bits on these CPUs):
        // the inline math of `ops::math` is compute-bound at 256 bits.
        if opts.features.contains("+avx512f") {
            m.fn_attrs.push_str(" \"prefer-vector-width\"=\"512\"");
            m.avx512 = opts.features.contains("+avx512dq");
        }
        declare_runtime(&mut m);
        Cx {
            ctx,
            module,
            m,
            opts,
            sites: Vec::new(),
            funcs,
            requested: Vec::new(),
            lowered: 0,
            signatures: FxHashMap::default(),
            stats: PlanStats::default(),
        }
    }

    /// The `func.func` op named `name`.
    pub fn func_op(&self, name: &str) -> Option<Op> {
        self.funcs.get(name).copied()
    }

    /// Public functions with a body (the exported ones), in module order.
    pub fn public_functions(&self) -> Vec<String> {
        let ctx = self.ctx;
        let b = &self.module.body;
        let mut out = Vec::new();
        for op in self.module.ops() {
            if ctx.op_name_str(b.op_name(op)) != "func.func" {
                continue;
            }
            let private = b
                .attr(ctx, op, "sym_visibility")
                .and_then(|a| ctx.as_str(a))
                .is_some_and(|v| v != "public");
            let has_body = b
                .nested(op)
                .is_some_and(|n| n.root_regions().iter().any(|&r| !n.region_is_empty(r)));
            if let Some(n) = b.attr(ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) {
                if !private && has_body && !out.iter().any(|x| x == n) {
                    out.push(n.to_string());
                }
            }
        }
        out
    }

    /// The signature of function `name`.
    pub fn signature(&mut self, name: &str) -> R<(Vec<Port>, Vec<Port>)> {
        if let Some(s) = self.signatures.get(name) {
            return Ok(s.clone());
        }
        let op = self
            .func_op(name)
            .ok_or_else(|| LowerError::new(Location::UNKNOWN, format!("no function @{name}")))?;
        let b = &self.module.body;
        let loc = b.op_loc(op);
        let (ins, outs) = b
            .attr(self.ctx, op, "function_type")
            .and_then(|a| xcs_dialects::func::signature(self.ctx, a))
            .ok_or_else(|| LowerError::new(loc, format!("@{name} has no valid function_type")))?;
        let conv = |ts: &[Type]| -> R<Vec<Port>> {
            ts.iter()
                .map(|&t| port_of(self.ctx, t).map_err(|e| LowerError::new(loc, format!("@{name}: {e}"))))
                .collect()
        };
        let sig = (conv(&ins)?, conv(&outs)?);
        self.signatures.insert(name.to_string(), sig.clone());
        Ok(sig)
    }

    /// Asks for function `name` to be lowered; returns its internal LLVM name.
    pub fn request(&mut self, name: &str) -> String {
        if !self.requested.iter().any(|n| n == name) {
            self.requested.push(name.to_string());
        }
        internal_name(name)
    }

    /// Lowers every requested function (and those they call).
    pub fn lower_requested(&mut self) -> R<()> {
        while self.lowered < self.requested.len() {
            let name = self.requested[self.lowered].clone();
            self.lowered += 1;
            lower_function(self, &name, &internal_name(&name), None)?;
        }
        Ok(())
    }

    /// A new error site for `op` of `body`.
    pub fn site(&mut self, body: &Body, op: Op) -> i32 {
        let name = self.ctx.op_name_str(body.op_name(op)).to_string();
        self.sites.push(Site {
            loc: body.op_loc(op),
            op: name,
        });
        (self.sites.len() - 1) as i32
    }

    /// The message of a run-time error at `site`: `'tensor.div' op integer division by zero`,
    /// prefixed with `file:line:col: ` when the options ask for locations in messages.
    pub fn msg(&self, site: i32, text: &str) -> String {
        let Some(s) = self.sites.get(site as usize) else {
            return text.to_string();
        };
        let m = format!("'{}' op {text}", s.op);
        if self.opts.locations_in_messages {
            if let Some((file, line, col)) = self.ctx.loc_file_line_col(s.loc) {
                return format!("{}:{line}:{col}: {m}", self.ctx.str(file));
            }
        }
        m
    }
}

fn declare_runtime(m: &mut ModB) {
    for (name, decl) in [
        ("xcs_rt_alloc", "declare noalias ptr @xcs_rt_alloc(i64)"),
        ("xcs_rt_free", "declare void @xcs_rt_free(ptr)"),
        ("xcs_rt_fail", "declare i32 @xcs_rt_fail(i32, ptr)"),
        ("xcs_rt_fail2", "declare i32 @xcs_rt_fail2(i32, ptr, i64, i64)"),
        (
            "xcs_rt_parallel_for",
            "declare i32 @xcs_rt_parallel_for(ptr, ptr, i64, i64)",
        ),
        ("xcs_rt_call_enter", "declare i32 @xcs_rt_call_enter()"),
        ("xcs_rt_call_leave", "declare void @xcs_rt_call_leave()"),
        ("xcs_rt_frame_push", "declare i32 @xcs_rt_frame_push(ptr, ptr)"),
        ("xcs_rt_frame_release", "declare void @xcs_rt_frame_release(ptr)"),
        (
            "xcs_rt_arg",
            "declare i32 @xcs_rt_arg(ptr, i32, i32, i64, ptr, ptr, ptr, ptr)",
        ),
        ("xcs_rt_result", "declare i32 @xcs_rt_result(ptr, ptr, i64, ptr, i32)"),
        ("xcs_tensor_release", "declare void @xcs_tensor_release(ptr)"),
    ] {
        m.declare(name, decl);
    }
}

// ---------------------------------------------------------------------------- kernels

/// An outlined loop kernel being built: `i32 @name(captures..., i64 %lo, i64 %hi)` returning 0,
/// or 1 after recording a run-time error. Registers of the calling function used inside are
/// captured as parameters ([`Kernel::cap`]); constants are used as they are, so static sizes
/// stay constants in the kernel. While a kernel is open it holds the module builder (`m`).
pub struct Kernel {
    pub f: FnB,
    pub m: ModB,
    caps: Vec<(Val, String)>,
    pub lo: Val,
    pub hi: Val,
    fails: u32,
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
    pub fn tv(&mut self, t: &TV) -> TV {
        TV {
            ptr: self.cap(&t.ptr),
            dims: self.cap_all(&t.dims),
            strides: self.cap_all(&t.strides),
            elem: t.elem,
            contiguous: t.contiguous,
            buf: t.buf,
        }
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
    /// A loop with carried values in the kernel (see [`FnB::for_acc`]).
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
        let md = self.m.interleave.take().map(|n| self.m.loop_interleave_md(n));
        self.f.loop_end_md(st, &next, md.as_deref())
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

    /// Fails with `msg` (a full message, see [`Cx::msg`]) when `bad` holds.
    pub fn fail_if(&mut self, bad: &Val, site: i32, msg: &str) {
        if bad.as_bool() == Some(false) {
            return;
        }
        self.fails += 1;
        let (e, ok) = (self.f.label("kfail"), self.f.label("kok"));
        self.f.condbr(bad, &e, &ok);
        self.f.start(&e);
        let s = self.m.cstr(msg);
        self.f.raw(format!("call i32 @xcs_rt_fail(i32 {site}, ptr {s})"));
        self.f.br("kerr");
        self.f.start(&ok);
    }
    /// Fails with `fmt` (two `%lld`) formatted with `a` and `b` when `bad` holds.
    pub fn fail2_if(&mut self, bad: &Val, site: i32, fmt: &str, a: &Val, b: &Val) {
        if bad.as_bool() == Some(false) {
            return;
        }
        self.fails += 1;
        let (e, ok) = (self.f.label("kfail"), self.f.label("kok"));
        self.f.condbr(bad, &e, &ok);
        self.f.start(&e);
        let s = self.m.cstr(fmt);
        self.f
            .raw(format!("call i32 @xcs_rt_fail2(i32 {site}, ptr {s}, i64 {a}, i64 {b})"));
        self.f.br("kerr");
        self.f.start(&ok);
    }
}

// ---------------------------------------------------------------------------- buffers

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BufState {
    /// Referenced by live values.
    Live,
    /// Dead, kept for reuse by an allocation of the same size.
    Pooled,
    /// Handed to the caller as a result.
    Handed,
}

#[derive(Clone, Debug)]
struct Buf {
    ptr: Val,
    bytes: Val,
    state: BufState,
    /// Live values referring to it (views included).
    refs: u32,
    /// Owned by the frame of a function with several blocks (freed when it returns).
    in_frame: bool,
}

/// Statistics of the buffer plan of one lowering (for tests and `docs/lowering.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanStats {
    /// `xcs_rt_alloc` call sites emitted for intermediates and results.
    pub allocations: usize,
    /// Allocations served from a dead buffer of the same size instead.
    pub reuses: usize,
}

/// The lowering of one function body (and of `tensor.fused` bodies inlined into it).
pub struct FnLower<'a, 'm> {
    pub cx: &'a mut Cx<'m>,
    pub f: FnB,
    pub vals: FxHashMap<Value, Slot>,
    bufs: Vec<Buf>,
    /// `Some(frame)` in functions with several blocks: every buffer is kept until return.
    frame: Option<Val>,
    /// Result slot pointers of the function.
    results: Vec<Val>,
    /// The site of the op being lowered (allocation failures report it).
    pub cur_site: i32,
    kernels: u32,
    pub stats: PlanStats,
    /// Incoming (value, predecessor) pairs of open phi nodes.
    incoming: std::collections::BTreeMap<String, Vec<(String, String)>>,
    labels: FxHashMap<xcs_ir::Block, String>,
    block_phis: FxHashMap<xcs_ir::Block, (String, Vec<Vec<String>>)>,
}

impl<'a, 'm> FnLower<'a, 'm> {
    pub fn ctx(&self) -> &'m Context {
        self.cx.ctx
    }

    /// The value of `v`.
    pub fn get(&self, v: Value) -> R<Slot> {
        self.vals
            .get(&v)
            .cloned()
            .ok_or_else(|| LowerError::internal("a value is used before it is defined"))
    }
    /// The tensor value of `v`.
    pub fn tensor(&self, v: Value) -> R<TV> {
        match self.get(v)? {
            Slot::T(t) => Ok(t),
            Slot::S(..) => Err(LowerError::internal("a scalar is used as a tensor")),
        }
    }

    /// Defines `v` (counting a reference to its buffer).
    pub fn define(&mut self, v: Value, s: Slot) {
        if let Slot::T(TV { buf: Some(b), .. }) = &s {
            self.bufs[*b].refs += 1;
        }
        self.vals.insert(v, s);
    }

    /// `v` is dead: its buffer goes to the pool when no live value refers to it any more.
    pub fn kill(&mut self, v: Value) {
        if let Some(s) = self.vals.remove(&v) {
            self.kill_slot(&s);
        }
    }
    /// Drops one reference of a value's buffer (pooling it when it was the last).
    pub fn kill_slot(&mut self, s: &Slot) {
        if let Slot::T(TV { buf: Some(b), .. }) = s {
            let buf = &mut self.bufs[*b];
            buf.refs = buf.refs.saturating_sub(1);
            if buf.refs == 0 && buf.state == BufState::Live && self.frame.is_none() {
                buf.state = BufState::Pooled;
            }
        }
    }
    /// Drops one reference without pooling (the value is handed to another scope, which
    /// defines it again).
    pub fn unref(&mut self, s: &Slot) {
        if let Slot::T(TV { buf: Some(b), .. }) = s {
            self.bufs[*b].refs = self.bufs[*b].refs.saturating_sub(1);
        }
    }

    /// A buffer of `bytes` bytes: a dead buffer of the same (static or same-register) size if
    /// there is one, else a new allocation (failing with "out of memory" at the current op).
    pub fn alloc(&mut self, bytes: &Val) -> R<(Val, usize)> {
        if self.frame.is_none() {
            if let Some(i) = self
                .bufs
                .iter()
                .position(|b| b.state == BufState::Pooled && b.bytes == *bytes)
            {
                self.bufs[i].state = BufState::Live;
                self.stats.reuses += 1;
                return Ok((self.bufs[i].ptr.clone(), i));
            }
        }
        self.stats.allocations += 1;
        let p = self.f.emit("ptr", format!("call ptr @xcs_rt_alloc(i64 {bytes})"));
        let null = self.f.emit("i1", format!("icmp eq ptr {p}, null"));
        let site = self.cur_site;
        let msg = self.cx.msg(site, "out of memory");
        self.fail_if(&null, site, &msg);
        if let Some(fr) = self.frame.clone() {
            let st = self
                .f
                .emit("i32", format!("call i32 @xcs_rt_frame_push(ptr {fr}, ptr {p})"));
            let bad = self.f.emit("i1", format!("icmp ne i32 {st}, 0"));
            let e = self.f.label("pushfail");
            let ok = self.f.label("pushok");
            self.f.condbr(&bad, &e, &ok);
            self.f.start(&e);
            self.f.raw(format!("call void @xcs_rt_free(ptr {p})"));
            let s = self.cx.m.cstr(&msg);
            self.f.raw(format!("call i32 @xcs_rt_fail(i32 {site}, ptr {s})"));
            self.cleanup_and_ret(&Val::i32(1));
            self.f.start(&ok);
        }
        let in_frame = self.frame.is_some();
        self.bufs.push(Buf {
            ptr: p.clone(),
            bytes: bytes.clone(),
            state: BufState::Live,
            refs: 0,
            in_frame,
        });
        Ok((p, self.bufs.len() - 1))
    }

    /// A new contiguous tensor of `elem` with sizes `dims`.
    pub fn new_tensor(&mut self, elem: ElemType, dims: &[Val]) -> R<TV> {
        let n = self.f.product(dims);
        let bytes = self.f.mul(&n, &Val::i64(elem_size(elem)));
        let (ptr, b) = self.alloc(&bytes)?;
        let strides = row_major(&mut self.f, dims);
        Ok(TV {
            ptr,
            dims: dims.to_vec(),
            strides,
            elem,
            contiguous: true,
            buf: Some(b),
        })
    }

    /// Frees what this function owns (not results) and returns `status`.
    fn cleanup_and_ret(&mut self, status: &Val) {
        for b in &self.bufs {
            if matches!(b.state, BufState::Live | BufState::Pooled) && !b.in_frame {
                self.f.raw(format!("call void @xcs_rt_free(ptr {})", b.ptr));
            }
        }
        if let Some(fr) = &self.frame {
            self.f.raw(format!("call void @xcs_rt_frame_release(ptr {fr})"));
        }
        self.f.ret(status);
    }

    /// Returns with a run-time error (`msg`, a full message) when `bad` holds, freeing what is live.
    pub fn fail_if(&mut self, bad: &Val, site: i32, msg: &str) {
        if bad.as_bool() == Some(false) {
            return;
        }
        let (e, ok) = (self.f.label("fail"), self.f.label("ok"));
        self.f.condbr(bad, &e, &ok);
        self.f.start(&e);
        let s = self.cx.m.cstr(msg);
        self.f.raw(format!("call i32 @xcs_rt_fail(i32 {site}, ptr {s})"));
        self.cleanup_and_ret(&Val::i32(1));
        self.f.start(&ok);
    }

    /// Like [`FnLower::fail_if`] with two integers formatted into `fmt` (`%lld` twice).
    pub fn fail2_if(&mut self, bad: &Val, site: i32, fmt: &str, a: &Val, b: &Val) {
        if bad.as_bool() == Some(false) {
            return;
        }
        let (e, ok) = (self.f.label("fail"), self.f.label("ok"));
        self.f.condbr(bad, &e, &ok);
        self.f.start(&e);
        let s = self.cx.m.cstr(fmt);
        self.f
            .raw(format!("call i32 @xcs_rt_fail2(i32 {site}, ptr {s}, i64 {a}, i64 {b})"));
        self.cleanup_and_ret(&Val::i32(1));
        self.f.start(&ok);
    }

    /// Returns `st` when it is not 0 (the error is already recorded), freeing what is live.
    pub fn check_status(&mut self, st: &Val) {
        let bad = self.f.emit("i1", format!("icmp ne i32 {st}, 0"));
        let (e, ok) = (self.f.label("err"), self.f.label("ok"));
        self.f.condbr(&bad, &e, &ok);
        self.f.start(&e);
        self.cleanup_and_ret(st);
        self.f.start(&ok);
    }

    /// Opens a kernel (takes the module builder until [`FnLower::launch`]).
    pub fn kernel(&mut self, hint: &str) -> Kernel {
        self.kernels += 1;
        let name = format!("{}.k{}.{hint}", self.f.name, self.kernels);
        let f = FnB::new(&name, "internal", "i32", "");
        let m = std::mem::take(&mut self.cx.m);
        Kernel {
            f,
            m,
            caps: Vec::new(),
            lo: Val::new("i64", "%lo"),
            hi: Val::new("i64", "%hi"),
            fails: 0,
        }
    }

    /// Finishes kernel `k` and calls it over `0..n` in the current function: directly, or when
    /// the options allow threads and `work` (elements touched) reaches the threshold, through
    /// `xcs_rt_parallel_for` in chunks of at least `grain` iterations.
    pub fn launch(&mut self, k: Kernel, n: &Val, grain: &Val, work: &Val) -> R<()> {
        let Kernel { mut f, m, caps, .. } = k;
        self.cx.m = m;
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
        params.push("i64 %lo".into());
        params.push("i64 %hi".into());
        f.params = params.join(", ");
        let name = f.name.clone();
        let text = f.finish(&Default::default());
        self.cx.m.add_function(text);
        let args: Vec<String> = caps.iter().map(|(v, _)| v.t()).collect();
        let call = |lo_hi: &str| {
            format!(
                "call i32 @\"{name}\"({}{}{lo_hi})",
                args.join(", "),
                if args.is_empty() { "" } else { ", " }
            )
        };
        let parallel = self.cx.opts.threads > 1
            && work.as_i64().is_none_or(|w| w >= self.cx.opts.parallel_threshold)
            && n.as_i64().is_none_or(|v| v > 1);
        if !parallel {
            let st = self.f.emit("i32", call(&format!("i64 0, i64 {n}")));
            self.check_status(&st);
            return Ok(());
        }
        // The trampoline the pool calls: i32 (ptr ctx, i64 lo, i64 hi), captures in ctx slots.
        let tname = format!("{name}.par");
        let mut t = FnB::new(&tname, "internal", "i32", "ptr %ctx, i64 %lo, i64 %hi");
        let mut targs = Vec::new();
        for (i, (v, _)) in caps.iter().enumerate() {
            let p = t.gep("i64", &Val::new("ptr", "%ctx"), &Val::i64(i as i64));
            let x = t.load(v.ty, &p);
            targs.push(x.t());
        }
        targs.push("i64 %lo".into());
        targs.push("i64 %hi".into());
        let r = t.emit("i32", format!("call i32 @\"{name}\"({})", targs.join(", ")));
        t.ret(&r);
        self.cx.m.add_function(t.finish(&Default::default()));

        let big = self.f.icmp("sge", work, &Val::i64(self.cx.opts.parallel_threshold));
        let (par, ser, join) = (self.f.label("par"), self.f.label("ser"), self.f.label("join"));
        self.f.condbr(&big, &par, &ser);
        self.f.start(&par);
        let ctxp = self.f.alloca("i64", caps.len());
        for (i, (v, _)) in caps.iter().enumerate() {
            let p = self.f.gep("i64", &ctxp, &Val::i64(i as i64));
            self.f.store(v, &p);
        }
        let s1 = self.f.emit(
            "i32",
            format!("call i32 @xcs_rt_parallel_for(ptr @\"{tname}\", ptr {ctxp}, i64 {n}, i64 {grain})"),
        );
        let par_end = self.f.cur.clone();
        self.f.br(&join);
        self.f.start(&ser);
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

    /// A contiguous copy of `t` (or `t` itself when it is contiguous).
    pub fn contiguous(&mut self, t: &TV) -> R<TV> {
        if t.contiguous {
            return Ok(t.clone());
        }
        let out = self.new_tensor(t.elem, &t.dims)?;
        crate::ops::layout::copy_into(self, t, &out)?;
        Ok(out)
    }
}

// ---------------------------------------------------------------------------- functions

/// Lowers `func.func @name` to `define internal i32 @llvm_name(args..., results...)`.
/// Arguments: a tensor is `ptr data, i64 size...` (contiguous row-major), a scalar its value.
/// Results: one pointer per result to a slot `{ptr data, i64 size...}` (a scalar: its value
/// in the first 8 bytes) that the function fills with a buffer the caller then owns.
/// `spec` fixes the argument sizes (the JIT specializes the entry on its input shapes).
pub fn lower_function(cx: &mut Cx, name: &str, llvm_name: &str, spec: Option<&[Vec<i64>]>) -> R<()> {
    let module = cx.module;
    let fop = cx
        .func_op(name)
        .ok_or_else(|| LowerError::new(Location::UNKNOWN, format!("no function @{name}")))?;
    let floc = module.body.op_loc(fop);
    let (ins, outs) = cx.signature(name)?;
    let body = module
        .body
        .nested(fop)
        .filter(|b| b.root_regions().iter().any(|&r| !b.region_is_empty(r)))
        .ok_or_else(|| {
            LowerError::new(
                floc,
                format!("@{name} is an external declaration without a body; the LLVM backend cannot call it"),
            )
        })?;
    let region = body.root_regions()[0];
    let blocks: Vec<_> = body.region_blocks(region).collect();
    let multi = blocks.len() > 1;

    let mut params = Vec::new();
    for (i, p) in ins.iter().enumerate() {
        match &p.dims {
            Some(d) => {
                params.push(format!("ptr %a{i}"));
                for j in 0..d.len() {
                    params.push(format!("i64 %a{i}d{j}"));
                }
            }
            None => params.push(format!("{} %a{i}", crate::types::comp_ty(p.elem))),
        }
    }
    for k in 0..outs.len() {
        params.push(format!("ptr %r{k}"));
    }
    let f = FnB::new(llvm_name, "internal", "i32", &params.join(", "));
    let mut fl = FnLower {
        cx,
        f,
        vals: FxHashMap::default(),
        bufs: Vec::new(),
        frame: None,
        results: (0..outs.len()).map(|k| Val::new("ptr", format!("%r{k}"))).collect(),
        cur_site: -1,
        kernels: 0,
        stats: PlanStats::default(),
        incoming: Default::default(),
        labels: FxHashMap::default(),
        block_phis: FxHashMap::default(),
    };
    if multi {
        let fr = fl.f.alloca("{ i64, i64, ptr }", 1);
        fl.f.store(&Val::new("{ i64, i64, ptr }", "zeroinitializer"), &fr);
        fl.frame = Some(fr);
    }
    // Arguments.
    let entry = blocks[0];
    let args = body.block_args(entry).to_vec();
    if args.len() != ins.len() {
        return Err(LowerError::new(
            floc,
            format!("@{name}: the entry block arguments do not match the function type"),
        ));
    }
    for (i, (&a, p)) in args.iter().zip(&ins).enumerate() {
        let s = match &p.dims {
            Some(d) => {
                let dims: Vec<Val> = d
                    .iter()
                    .enumerate()
                    .map(|(j, &s)| {
                        let fixed = spec.and_then(|sp| sp.get(i)).and_then(|x| x.get(j)).copied();
                        match (s, fixed) {
                            (_, Some(v)) => Val::i64(v),
                            (DYNAMIC, None) => Val::new("i64", format!("%a{i}d{j}")),
                            (v, None) => Val::i64(v),
                        }
                    })
                    .collect();
                let strides = row_major(&mut fl.f, &dims);
                Slot::T(TV {
                    ptr: Val::new("ptr", format!("%a{i}")),
                    dims,
                    strides,
                    elem: p.elem,
                    contiguous: true,
                    buf: None,
                })
            }
            None => Slot::S(Val::new(crate::types::comp_ty(p.elem), format!("%a{i}")), p.elem),
        };
        fl.define(a, s);
    }

    if !multi {
        if lower_block_ops(&mut fl, body, entry, true)?.is_some() {
            return Err(LowerError::new(
                floc,
                format!("@{name}: 'tensor.yield' outside a 'tensor.fused' region"),
            ));
        }
    } else {
        lower_cfg(&mut fl, body, &blocks)?;
    }
    fl.f.raw("unreachable");
    let FnLower { f, incoming, stats, .. } = fl;
    cx.stats.allocations += stats.allocations;
    cx.stats.reuses += stats.reuses;
    let text = f.finish(&incoming);
    cx.m.add_function(text);
    Ok(())
}

/// Lowers the ops of a single block in order; with `liveness`, values die after their last use
/// in the block (single-block bodies), else they live to the end (blocks of a CFG, whose
/// buffers the frame owns). Stops at a `tensor.yield` and returns its operands (which stay
/// alive).
pub fn lower_block_ops(fl: &mut FnLower, body: &Body, block: xcs_ir::Block, liveness: bool) -> R<Option<Vec<Value>>> {
    let ctx = fl.ctx();
    let ops = body.block_op_vec(block);
    let is_yield = |op: Op| ctx.op_name_str(body.op_name(op)) == "tensor.yield";
    let mut last_use: FxHashMap<Value, usize> = FxHashMap::default();
    if liveness {
        for (i, &op) in ops.iter().enumerate() {
            if is_yield(op) {
                for v in body.operands(op) {
                    last_use.insert(v, usize::MAX);
                }
                continue;
            }
            for v in body.operands(op) {
                if last_use.get(&v) != Some(&usize::MAX) {
                    last_use.insert(v, i);
                }
            }
        }
    }
    for (i, &op) in ops.iter().enumerate() {
        if is_yield(op) {
            return Ok(Some(body.operands(op).collect()));
        }
        lower_op(fl, body, op)?;
        if liveness {
            let mut dead: Vec<Value> = body.operands(op).filter(|v| last_use.get(v) == Some(&i)).collect();
            dead.sort();
            dead.dedup();
            for r in body.results(op) {
                if !last_use.contains_key(&r) {
                    dead.push(r);
                }
            }
            for v in dead {
                fl.kill(v);
            }
        }
    }
    Ok(None)
}

/// Lowers one op (any but the CFG terminators, which [`lower_cfg`] handles).
fn lower_op(fl: &mut FnLower, body: &Body, op: Op) -> R<()> {
    let ctx = fl.ctx();
    let name = ctx.op_name_str(body.op_name(op));
    fl.cur_site = -1;
    let results: Vec<Slot> = match name {
        "func.return" => {
            lower_return(fl, body, op)?;
            return Ok(());
        }
        "func.call" => lower_call(fl, body, op)?,
        "cf.br" | "cf.cond_br" => {
            lower_branch(fl, body, op, name)?;
            return Ok(());
        }
        "test.constant" | "test.addi" | "test.muli" | "test.negi" | "test.cmpi" => lower_test_op(fl, body, op, name)?,
        n if n.starts_with("tensor.") => crate::ops::lower_tensor_op(fl, body, op, n)?,
        _ => {
            return Err(LowerError::new(
                body.op_loc(op),
                format!("'{name}' op is not supported by the LLVM backend"),
            ))
        }
    };
    if results.len() != body.num_results(op) {
        return Err(LowerError::new(
            body.op_loc(op),
            format!("'{name}' op produced the wrong number of results"),
        ));
    }
    for (r, s) in body.results(op).zip(results) {
        fl.define(r, s);
    }
    Ok(())
}

fn lower_test_op(fl: &mut FnLower, body: &Body, op: Op, name: &str) -> R<Vec<Slot>> {
    let ctx = fl.ctx();
    let loc = body.op_loc(op);
    let rt = body.result_types(op);
    let e = rt
        .first()
        .and_then(|&t| ElemType::from_type(ctx, t))
        .filter(|e| !e.is_float() && *e != ElemType::Str);
    let e = e.ok_or_else(|| {
        LowerError::new(
            loc,
            format!("'{name}' op: only integer results are supported by the LLVM backend"),
        )
    })?;
    let ty = crate::types::comp_ty(e);
    let scalar = |fl: &FnLower, i: usize| -> R<Val> {
        match fl.get(body.operand(op, i))? {
            Slot::S(v, _) => Ok(v),
            Slot::T(_) => Err(LowerError::new(loc, format!("'{name}' op expects integer operands"))),
        }
    };
    let v = match name {
        "test.constant" => {
            let a = body.attr(ctx, op, "value").and_then(|a| ctx.as_int(a));
            let a = a.ok_or_else(|| {
                LowerError::new(
                    loc,
                    "'test.constant' op: only integer values are supported by the LLVM backend",
                )
            })?;
            Val::int(ty, a as i64)
        }
        "test.addi" | "test.muli" => {
            let (a, b) = (scalar(fl, 0)?, scalar(fl, 1)?);
            let inst = if name == "test.addi" { "add" } else { "mul" };
            fl.f.emit(ty, format!("{inst} {ty} {a}, {b}"))
        }
        "test.negi" => {
            let a = scalar(fl, 0)?;
            fl.f.emit(ty, format!("sub {ty} 0, {a}"))
        }
        _ => {
            let (a, b) = (scalar(fl, 0)?, scalar(fl, 1)?);
            let pred = body
                .attr(ctx, op, "predicate")
                .and_then(|a| ctx.as_str(a))
                .unwrap_or("eq");
            if !matches!(pred, "eq" | "ne" | "slt" | "sle" | "sgt" | "sge") {
                return Err(LowerError::new(
                    loc,
                    format!("'test.cmpi' op: unknown predicate \"{pred}\""),
                ));
            }
            fl.f.emit("i1", format!("icmp {pred} {}, {b}", a.t()))
        }
    };
    Ok(vec![Slot::S(v, e)])
}

/// `func.call`: arguments made contiguous, result slots on the stack, the callee's buffers
/// become this function's.
fn lower_call(fl: &mut FnLower, body: &Body, op: Op) -> R<Vec<Slot>> {
    let ctx = fl.ctx();
    let loc = body.op_loc(op);
    let callee = body
        .attr(ctx, op, "callee")
        .and_then(|a| ctx.as_symbol(a))
        .ok_or_else(|| LowerError::new(loc, "'func.call' op requires a 'callee' symbol reference"))?
        .to_string();
    let site = fl.cx.site(body, op);
    fl.cur_site = site;
    let (_, outs) = fl.cx.signature(&callee).map_err(|e| LowerError::new(loc, e.message))?;
    if fl.cx.func_op(&callee).is_none() {
        return Err(LowerError::new(
            loc,
            format!("'func.call' op calls @{callee}, which is not a function of the module"),
        ));
    }
    let llvm = fl.cx.request(&callee);
    let mut args = Vec::new();
    let mut temps = Vec::new();
    for v in body.operands(op) {
        match fl.get(v)? {
            Slot::T(t) => {
                let c = fl.contiguous(&t)?;
                if !t.contiguous {
                    temps.push(c.buf);
                }
                args.push(c.ptr.t());
                for d in &c.dims {
                    args.push(d.t());
                }
            }
            Slot::S(s, _) => args.push(s.t()),
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
    let msg = fl.cx.msg(
        site,
        &format!("call depth limit of 512 exceeded calling @{callee} (unbounded recursion?)"),
    );
    fl.fail_if(&deep, site, &msg);
    let st = fl.f.emit("i32", format!("call i32 @\"{llvm}\"({})", args.join(", ")));
    fl.f.raw("call void @xcs_rt_call_leave()");
    for b in temps.into_iter().flatten() {
        fl.bufs[b].state = BufState::Pooled;
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
                let in_frame = fl.frame.is_some();
                if let Some(fr) = fl.frame.clone() {
                    let st =
                        fl.f.emit("i32", format!("call i32 @xcs_rt_frame_push(ptr {fr}, ptr {ptr})"));
                    let bad = fl.f.emit("i1", format!("icmp ne i32 {st}, 0"));
                    let msg = fl.cx.msg(site, "out of memory");
                    fl.f.if_then(&bad, |f| {
                        f.raw(format!("call void @xcs_rt_free(ptr {ptr})"));
                        Ok(())
                    })?;
                    fl.fail_if(&bad, site, &msg);
                }
                fl.bufs.push(Buf {
                    ptr: ptr.clone(),
                    bytes,
                    state: BufState::Live,
                    refs: 0,
                    in_frame,
                });
                let strides = row_major(&mut fl.f, &dims);
                res.push(Slot::T(TV {
                    ptr,
                    dims,
                    strides,
                    elem: p.elem,
                    contiguous: true,
                    buf: Some(fl.bufs.len() - 1),
                }));
            }
            None => {
                let ty = crate::types::comp_ty(p.elem);
                let v = fl.f.load(ty, s);
                res.push(Slot::S(v, p.elem));
            }
        }
    }
    Ok(res)
}

/// `func.return`: results handed over (owned contiguous buffers as they are, anything else
/// copied), everything else freed.
fn lower_return(fl: &mut FnLower, body: &Body, op: Op) -> R<()> {
    let site = fl.cx.site(body, op);
    fl.cur_site = site;
    let operands: Vec<Value> = body.operands(op).collect();
    if operands.len() != fl.results.len() {
        return Err(LowerError::new(
            body.op_loc(op),
            "'func.return' op returns the wrong number of values",
        ));
    }
    let mut handed: Vec<usize> = Vec::new();
    for (k, v) in operands.into_iter().enumerate() {
        let slot = fl.results[k].clone();
        match fl.get(v)? {
            Slot::T(t) => {
                let own = fl.frame.is_none()
                    && t.contiguous
                    && t.buf
                        .is_some_and(|b| fl.bufs[b].state == BufState::Live && !handed.contains(&b));
                let t = if own {
                    t
                } else {
                    // In a function with several blocks the copy is made outside the frame.
                    let frame = fl.frame.take();
                    let c = fl.new_tensor(t.elem, &t.dims);
                    fl.frame = frame;
                    let c = c?;
                    crate::ops::layout::copy_into(fl, &t, &c)?;
                    c
                };
                let b = t.buf.ok_or_else(|| LowerError::internal("a result has no buffer"))?;
                handed.push(b);
                fl.bufs[b].state = BufState::Handed;
                fl.f.store(&t.ptr, &slot);
                for (j, d) in t.dims.iter().enumerate() {
                    let q = fl.f.gep("i64", &slot, &Val::i64(1 + j as i64));
                    fl.f.store(d, &q);
                }
            }
            Slot::S(s, _) => {
                fl.f.store(&s, &slot);
            }
        }
    }
    fl.cleanup_and_ret(&Val::i32(0));
    // Code after a return (none in valid IR) goes to an unreachable block.
    let dead = fl.f.label("dead");
    fl.f.start(&dead);
    Ok(())
}

/// Functions with several blocks: blocks become LLVM blocks, block arguments phi nodes (tensors:
/// the data pointer and each dynamic size), `cf.br`/`cf.cond_br` branches. Values passed to
/// blocks are made contiguous first; every buffer is owned by the function's frame.
fn lower_cfg(fl: &mut FnLower, body: &Body, blocks: &[xcs_ir::Block]) -> R<()> {
    let ctx = fl.ctx();
    for (i, &b) in blocks.iter().enumerate() {
        fl.labels.insert(b, format!("bb{i}"));
    }
    // Phi nodes of block arguments, registered up front (branches may come before the block).
    for &b in &blocks[1..] {
        let marker = fl.f.new_marker();
        let mut keys = Vec::new();
        for &a in body.block_args(b) {
            let t = body.value_type(a);
            let p = port_of(ctx, t).map_err(|e| LowerError::new(body.arg_loc(a).unwrap_or(Location::UNKNOWN), e))?;
            let mut ks = Vec::new();
            let slot = match &p.dims {
                Some(d) => {
                    let (ptr, k) = fl.f.phi_open(&marker, "ptr");
                    ks.push(k);
                    let mut dims = Vec::new();
                    for &sd in d {
                        if sd == DYNAMIC {
                            let (v, k) = fl.f.phi_open(&marker, "i64");
                            ks.push(k);
                            dims.push(v);
                        } else {
                            dims.push(Val::i64(sd));
                        }
                    }
                    let strides = row_major(&mut fl.f, &dims);
                    Slot::T(TV {
                        ptr,
                        dims,
                        strides,
                        elem: p.elem,
                        contiguous: true,
                        buf: None,
                    })
                }
                None => {
                    let (v, k) = fl.f.phi_open(&marker, crate::types::comp_ty(p.elem));
                    ks.push(k);
                    Slot::S(v, p.elem)
                }
            };
            fl.define(a, slot);
            keys.push(ks);
        }
        fl.block_phis.insert(b, (marker, keys));
    }
    fl.f.br("bb0");
    for (i, &b) in blocks.iter().enumerate() {
        let label = fl.labels[&b].clone();
        if i > 0 {
            // The previous block ended in a terminator followed by an empty `dead` block.
            fl.f.raw("unreachable");
        }
        fl.f.start(&label);
        if let Some((marker, _)) = fl.block_phis.get(&b) {
            let m = marker.clone();
            fl.f.place_marker(&m);
        }
        if lower_block_ops(fl, body, b, false)?.is_some() {
            return Err(LowerError::internal("'tensor.yield' outside a 'tensor.fused' region"));
        }
    }
    Ok(())
}

/// The values of `operands` passed to block `dest` from the current block `from`.
fn pass_to_block(fl: &mut FnLower, body: &Body, dest: xcs_ir::Block, operands: &[Value]) -> R<()> {
    let keys = fl.block_phis.get(&dest).map(|(_, k)| k.clone()).unwrap_or_default();
    if keys.len() != operands.len() {
        return Err(LowerError::internal("a branch passes the wrong number of values"));
    }
    let _ = body;
    let mut all = Vec::new();
    for (&v, ks) in operands.iter().zip(keys) {
        let comps: Vec<Val> = match fl.get(v)? {
            Slot::T(t) => {
                let c = fl.contiguous(&t)?;
                let mut comps = vec![c.ptr.clone()];
                if let TypeKind::RankedTensor { shape, .. } = fl.ctx().type_kind(body.value_type(v)) {
                    for (j, &sd) in shape.iter().enumerate() {
                        if sd == DYNAMIC {
                            comps.push(c.dims[j].clone());
                        }
                    }
                }
                comps
            }
            Slot::S(s, _) => vec![s],
        };
        if comps.len() != ks.len() {
            return Err(LowerError::internal(
                "a block argument and its value have different types",
            ));
        }
        all.push((ks, comps));
    }
    // The predecessor is the block the branch ends up in (copies above may add blocks).
    let from = fl.f.cur.clone();
    for (ks, comps) in all {
        for (k, c) in ks.iter().zip(comps) {
            fl.incoming
                .entry(k.clone())
                .or_default()
                .push((c.s.clone(), from.clone()));
        }
    }
    Ok(())
}

fn lower_branch(fl: &mut FnLower, body: &Body, op: Op, name: &str) -> R<()> {
    let ctx = fl.ctx();
    let loc = body.op_loc(op);
    let succ = body.successors(op).to_vec();
    let ops: Vec<Value> = body.operands(op).collect();
    if name == "cf.br" {
        let dest = *succ
            .first()
            .ok_or_else(|| LowerError::new(loc, "'cf.br' op has no successor"))?;
        pass_to_block(fl, body, dest, &ops)?;
        let l = fl.labels[&dest].clone();
        fl.f.br(&l);
    } else {
        let seg = body
            .attr(ctx, op, "operandSegmentSizes")
            .and_then(|a| ctx.as_dense_ints(a))
            .unwrap_or_default();
        if seg.len() != 3 || succ.len() != 2 || seg[0] != 1 || (seg[1] + seg[2] + 1) as usize != ops.len() {
            return Err(LowerError::new(loc, "'cf.cond_br' op has invalid operand segments"));
        }
        let n_true = seg[1] as usize;
        let c = match fl.get(ops[0])? {
            Slot::S(v, ElemType::I1) => v,
            _ => return Err(LowerError::new(loc, "'cf.cond_br' op: the condition must be an i1")),
        };
        let (lt, lf) = (fl.f.label("edge"), fl.f.label("edge"));
        fl.f.raw(format!("br i1 {c}, label %{lt}, label %{lf}"));
        for (lab, dest, vals) in [
            (lt, succ[0], ops[1..1 + n_true].to_vec()),
            (lf, succ[1], ops[1 + n_true..].to_vec()),
        ] {
            fl.f.start(&lab);
            pass_to_block(fl, body, dest, &vals)?;
            let l = fl.labels[&dest].clone();
            fl.f.br(&l);
        }
    }
    let dead = fl.f.label("dead");
    fl.f.start(&dead);
    Ok(())
}
