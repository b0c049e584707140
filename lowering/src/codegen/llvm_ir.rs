//! A small builder of LLVM IR text: typed values ([`Val`]), functions with blocks, loops with
//! carried values and phi nodes ([`FunctionBuilder`]), and a module with deduplicated
//! declarations, string and data constants ([`ModuleBuilder`]). Index arithmetic on `i64`
//! constants folds here, so static shapes stay constants (buffer reuse and static checks rely on
//! it). LLVM parses the text through inkwell (see `docs/lowering.md` for why the IR is text).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{LowerError, R};

/// An SSA value or constant: its LLVM type (`i64`, `float`, `ptr`, ...) and operand text
/// (`%t3`, `42`, `0x3FF0000000000000`, `null`, `@g`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Val {
    pub ty: &'static str,
    pub s: String,
}

impl Val {
    pub fn new(ty: &'static str, s: impl Into<String>) -> Val {
        Val { ty, s: s.into() }
    }
    /// An `i64` constant.
    pub fn i64(v: i64) -> Val {
        Val::new("i64", v.to_string())
    }
    pub fn i32(v: i32) -> Val {
        Val::new("i32", v.to_string())
    }
    /// An integer constant of type `ty` (`i1` takes 0/1 and prints `true`/`false`).
    pub fn int(ty: &'static str, v: i64) -> Val {
        if ty == "i1" {
            Val::new("i1", if v != 0 { "true" } else { "false" })
        } else {
            Val::new(ty, v.to_string())
        }
    }
    pub fn bool(b: bool) -> Val {
        Val::new("i1", if b { "true" } else { "false" })
    }
    /// A `double` constant (exact hex form).
    pub fn f64(x: f64) -> Val {
        Val::new("double", format!("0x{:016X}", x.to_bits()))
    }
    /// A `float` constant: LLVM writes floats as the hex of the equal double.
    pub fn f32(x: f32) -> Val {
        Val::new("float", format!("0x{:016X}", (x as f64).to_bits()))
    }
    /// A float constant of compute type `ty` (`float` or `double`) with value `x` rounded to it.
    pub fn float(ty: &'static str, x: f64) -> Val {
        if ty == "float" {
            Val::f32(x as f32)
        } else {
            Val::f64(x)
        }
    }
    /// The value of an `i64` (or `i32`) constant.
    pub fn as_i64(&self) -> Option<i64> {
        if self.ty == "i64" || self.ty == "i32" {
            self.s.parse().ok()
        } else {
            None
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match (self.ty, self.s.as_str()) {
            ("i1", "true") => Some(true),
            ("i1", "false") => Some(false),
            _ => None,
        }
    }
    /// Not a register (a constant or a global): usable in any function of the module.
    pub fn is_const(&self) -> bool {
        !self.s.starts_with('%')
    }
    /// `ty text`, as an instruction operand with its type.
    pub fn t(&self) -> String {
        format!("{} {}", self.ty, self.s)
    }
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.s)
    }
}

/// One function being built: a header, its blocks as text, allocas hoisted to the entry block.
pub struct FunctionBuilder {
    pub name: String,
    linkage: String,
    ret: String,
    /// The parameter list text (may be set after the body is built).
    pub params: String,
    entry_allocas: String,
    body: String,
    next: u32,
    /// The label of the block being filled.
    pub cur: String,
    /// Phi placeholders to fill when the function is finished: marker -> lines.
    phis: BTreeMap<String, Vec<String>>,
    /// The attribute group (`#0`: the module's target attributes; see [`ModuleBuilder::finish`]).
    pub attrs: &'static str,
    /// The loops emitted so far ([`FunctionBuilder::loop_begin`]).
    pub loops: u32,
    /// Per open loop, outermost first: whether a loop has begun inside it.
    open_loops: Vec<bool>,
    /// Innermost loops left to LLVM's loop optimizer ([`FunctionBuilder::loop_end_md`]).
    optimizer_loops: u32,
}

/// A finished function: its text, and how many of its innermost loops are left to LLVM's loop
/// optimizer (see [`ModuleBuilder::needs_loop_optimizer`]).
pub struct FunctionText {
    pub text: String,
    pub optimizer_loops: u32,
}

/// The attribute group of call-shell functions (`#3`: `noinline optnone`): code that runs once
/// per call around the real work (the C ABI's argument checking and unpacking, and a JIT entry
/// without loops of its own: allocations and kernel launches, see `lower_function`), which
/// LLVM then neither optimizes nor code-generates beyond its fast instruction selector and
/// register allocator. A JIT compile of W5 (layer norm) costs about 8.6M instructions less (opt 64.5M ->
/// 60.4M, llc 85.3M -> 80.8M), W5 compiling about as fast as XLA instead of 1-3% slower.
pub const SHELL_ATTRS: &str = "#3";

/// The attribute group of a kernel whose only caller is its thread-pool trampoline (`#4`:
/// `alwaysinline`, see `FunctionLowering::launch`): LLVM inlines it into the trampoline before
/// simplifying either, so the kernel's body goes through the function simplification pipeline
/// once instead of twice (as a function, then again inlined into the trampoline, which LLVM did
/// anyway: the machine code is the same). W4's optimization 36.0M -> 26.5M instructions.
pub const KERNEL_INLINE_ATTRS: &str = "#4";

impl FunctionBuilder {
    /// A function `define <linkage> i32 @name(params) #0`; `params` is the parameter list text.
    pub fn new(name: &str, linkage: &str, ret: &str, params: &str) -> FunctionBuilder {
        let mut f = FunctionBuilder {
            name: name.to_string(),
            linkage: linkage.to_string(),
            ret: ret.to_string(),
            params: params.to_string(),
            entry_allocas: String::new(),
            body: String::new(),
            next: 0,
            cur: "entry".into(),
            phis: BTreeMap::new(),
            attrs: "#0",
            loops: 0,
            open_loops: Vec::new(),
            optimizer_loops: 0,
        };
        f.body.push_str("entry:\n  ;ALLOCAS\n");
        f
    }

    fn tmp(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    /// A fresh block label (not started).
    pub fn label(&mut self, hint: &str) -> String {
        self.next += 1;
        format!("{hint}{}", self.next)
    }

    /// Emits `%tN = rhs` of type `ty`.
    pub fn emit(&mut self, ty: &'static str, rhs: impl AsRef<str>) -> Val {
        let t = self.tmp();
        let _ = writeln!(self.body, "  {t} = {}", rhs.as_ref());
        Val::new(ty, t)
    }

    /// The scalar `v` in each of the `lanes` lanes of a vector of type `vty` (LLVM's splat idiom:
    /// `insertelement` into lane 0, then a `shufflevector` with an all-zero mask).
    pub fn splat(&mut self, vty: &'static str, lanes: i64, v: &Val) -> Val {
        let one = self.emit(vty, format!("insertelement {vty} poison, {} {v}, i64 0", v.ty));
        self.emit(vty, format!("shufflevector {vty} {one}, {vty} poison, <{lanes} x i32> zeroinitializer"))
    }

    /// Emits an instruction without a result.
    pub fn raw(&mut self, line: impl AsRef<str>) {
        let _ = writeln!(self.body, "  {}", line.as_ref());
    }

    /// An `alloca` in the entry block (so loops do not grow the stack).
    pub fn alloca(&mut self, ty: &str, count: usize) -> Val {
        let t = self.tmp();
        let _ = writeln!(
            self.entry_allocas,
            "  {t} = alloca {ty}, i64 {}, align 16",
            count.max(1)
        );
        Val::new("ptr", t)
    }

    /// Starts block `label` (the previous block must be terminated).
    pub fn start(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
        self.cur = label.to_string();
    }
    pub fn br(&mut self, label: &str) {
        self.raw(format!("br label %{label}"));
    }
    pub fn condbr(&mut self, c: &Val, t: &str, f: &str) {
        match c.as_bool() {
            Some(true) => self.br(t),
            Some(false) => self.br(f),
            None => self.raw(format!("br i1 {c}, label %{t}, label %{f}")),
        }
    }
    pub fn ret(&mut self, v: &Val) {
        self.raw(format!("ret {}", v.t()));
    }

    /// A placeholder for phi nodes (placed with [`FunctionBuilder::place_marker`] at a block start).
    pub fn new_marker(&mut self) -> String {
        self.next += 1;
        let m = format!(";PHI<{}>", self.next);
        self.phis.insert(m.clone(), Vec::new());
        m
    }
    pub fn place_marker(&mut self, m: &str) {
        let _ = writeln!(self.body, "  {m}");
    }
    /// A placeholder line for phi nodes, here.
    pub fn phi_marker(&mut self) -> String {
        let m = self.new_marker();
        self.place_marker(&m);
        m
    }
    /// A phi node of type `ty` at `marker`, with `incoming` (value, predecessor label) pairs.
    pub fn phi_at(&mut self, marker: &str, ty: &'static str, incoming: &[(String, String)]) -> Val {
        let t = self.tmp();
        let inc: Vec<String> = incoming.iter().map(|(v, b)| format!("[ {v}, %{b} ]")).collect();
        self.phis
            .entry(marker.to_string())
            .or_default()
            .push(format!("  {t} = phi {ty} {}", inc.join(", ")));
        Val::new(ty, t)
    }
    /// A phi node whose incoming list is completed later (`;INC<name>` is replaced).
    pub fn phi_open(&mut self, marker: &str, ty: &'static str) -> (Val, String) {
        let t = self.tmp();
        let key = format!(";INC<{}>", &t[1..]);
        self.phis
            .entry(marker.to_string())
            .or_default()
            .push(format!("  {t} = phi {ty} {key}"));
        (Val::new(ty, t), key)
    }

    /// The finished function.
    pub fn finish(mut self, open_incoming: &BTreeMap<String, Vec<(String, String)>>) -> FunctionText {
        let mut body = std::mem::take(&mut self.body);
        for (m, lines) in &self.phis {
            let mut text = lines.join("\n");
            for (key, inc) in open_incoming {
                if text.contains(key.as_str()) {
                    let s: Vec<String> = inc.iter().map(|(v, b)| format!("[ {v}, %{b} ]")).collect();
                    text = text.replace(key.as_str(), &s.join(", "));
                }
            }
            body = body.replacen(
                &format!("  {m}\n"),
                &if text.is_empty() {
                    String::new()
                } else {
                    format!("{text}\n")
                },
                1,
            );
        }
        body = body.replacen("  ;ALLOCAS\n", &self.entry_allocas, 1);
        let text = format!(
            "define {} {} @\"{}\"({}) {} {{\n{body}}}\n",
            self.linkage, self.ret, self.name, self.params, self.attrs
        );
        FunctionText { text, optimizer_loops: self.optimizer_loops }
    }

    // ------------------------------------------------------------ i64 arithmetic (folding)

    pub fn add(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Val::i64(x.wrapping_add(y)),
            (Some(0), _) => b.clone(),
            (_, Some(0)) => a.clone(),
            _ => self.emit("i64", format!("add i64 {a}, {b}")),
        }
    }
    pub fn sub(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Val::i64(x.wrapping_sub(y)),
            (_, Some(0)) => a.clone(),
            _ => self.emit("i64", format!("sub i64 {a}, {b}")),
        }
    }
    pub fn mul(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Val::i64(x.wrapping_mul(y)),
            (Some(0), _) | (_, Some(0)) => Val::i64(0),
            (Some(1), _) => b.clone(),
            (_, Some(1)) => a.clone(),
            _ => self.emit("i64", format!("mul i64 {a}, {b}")),
        }
    }
    /// Signed division of non-negative index values (`b` must not be 0 at run time).
    pub fn div(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) if y != 0 => Val::i64(x / y),
            (_, Some(1)) => a.clone(),
            _ => self.emit("i64", format!("sdiv i64 {a}, {b}")),
        }
    }
    pub fn rem(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) if y != 0 => Val::i64(x % y),
            (_, Some(1)) => Val::i64(0),
            _ => self.emit("i64", format!("srem i64 {a}, {b}")),
        }
    }
    /// `icmp pred` on i64 values, folded for constants.
    pub fn icmp(&mut self, pred: &str, a: &Val, b: &Val) -> Val {
        if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
            let r = match pred {
                "eq" => x == y,
                "ne" => x != y,
                "slt" => x < y,
                "sle" => x <= y,
                "sgt" => x > y,
                "sge" => x >= y,
                "ult" => (x as u64) < (y as u64),
                "uge" => (x as u64) >= (y as u64),
                _ => return self.emit("i1", format!("icmp {pred} {} {a}, {b}", a.ty)),
            };
            return Val::bool(r);
        }
        if a == b && matches!(pred, "eq" | "sle" | "sge") {
            return Val::bool(true);
        }
        if a == b && matches!(pred, "ne" | "slt" | "sgt") {
            return Val::bool(false);
        }
        self.emit("i1", format!("icmp {pred} {} {a}, {b}", a.ty))
    }
    pub fn select(&mut self, c: &Val, a: &Val, b: &Val) -> Val {
        match c.as_bool() {
            Some(true) => a.clone(),
            Some(false) => b.clone(),
            None if a == b => a.clone(),
            None => self.emit(a.ty, format!("select i1 {c}, {}, {}", a.t(), b.t())),
        }
    }
    pub fn and(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_bool(), b.as_bool()) {
            (Some(false), _) | (_, Some(false)) => Val::bool(false),
            (Some(true), _) => b.clone(),
            (_, Some(true)) => a.clone(),
            _ => self.emit("i1", format!("and i1 {a}, {b}")),
        }
    }
    pub fn or(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_bool(), b.as_bool()) {
            (Some(true), _) | (_, Some(true)) => Val::bool(true),
            (Some(false), _) => b.clone(),
            (_, Some(false)) => a.clone(),
            _ => self.emit("i1", format!("or i1 {a}, {b}")),
        }
    }
    pub fn smax(&mut self, a: &Val, b: &Val) -> Val {
        match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Val::i64(x.max(y)),
            _ => {
                let c = self.icmp("sgt", a, b);
                self.select(&c, a, b)
            }
        }
    }
    /// The product of `vals` (1 for none).
    pub fn product(&mut self, vals: &[Val]) -> Val {
        let mut p = Val::i64(1);
        for v in vals {
            p = self.mul(&p, v);
        }
        p
    }

    /// `getelementptr inbounds ty, ptr p, i64 idx`.
    pub fn gep(&mut self, elem_ty: &str, p: &Val, idx: &Val) -> Val {
        if idx.as_i64() == Some(0) {
            return p.clone();
        }
        self.emit("ptr", format!("getelementptr inbounds {elem_ty}, ptr {p}, i64 {idx}"))
    }
    pub fn load(&mut self, ty: &'static str, p: &Val) -> Val {
        self.emit(ty, format!("load {ty}, ptr {p}"))
    }
    pub fn store(&mut self, v: &Val, p: &Val) {
        self.raw(format!("store {}, ptr {p}", v.t()));
    }

    // ------------------------------------------------------------ loops

    /// `for i in lo..hi { body(i) }` (step 1); `body` may open blocks but must leave the builder
    /// in an unterminated block.
    pub fn for_range(&mut self, lo: &Val, hi: &Val, body: impl FnOnce(&mut FunctionBuilder, &Val) -> R<()>) -> R<()> {
        self.for_acc(lo, hi, &[], |f, i, _| body(f, i).map(|_| Vec::new()))
            .map(|_| ())
    }

    /// A loop with carried values: `accs = init; for i in lo..hi { accs = body(i, accs) }`;
    /// returns the final values.
    pub fn for_acc(
        &mut self,
        lo: &Val,
        hi: &Val,
        init: &[Val],
        body: impl FnOnce(&mut FunctionBuilder, &Val, &[Val]) -> R<Vec<Val>>,
    ) -> R<Vec<Val>> {
        let st = self.loop_begin(lo, hi, init);
        let next = body(self, &st.i, &st.accs)?;
        self.loop_end(st, &next)
    }

    /// The first half of a loop (see [`FunctionBuilder::for_acc`]): the header with the induction variable
    /// and carried values; the builder is left in the loop body.
    pub fn loop_begin(&mut self, lo: &Val, hi: &Val, init: &[Val]) -> LoopState {
        self.loops += 1;
        if let Some(outer) = self.open_loops.last_mut() {
            *outer = true;
        }
        self.open_loops.push(false);
        let pre = self.cur.clone();
        let hdr = self.label("loop");
        let bb = self.label("body");
        let exit = self.label("exit");
        self.br(&hdr);
        self.start(&hdr);
        let latch_key = format!("%<LATCH{}>", self.next);
        let i = self.tmp();
        let inext = format!("{i}.next");
        self.raw(format!("{i} = phi i64 [ {lo}, %{pre} ], [ {inext}, {latch_key} ]"));
        let mut accs = Vec::new();
        for (k, a) in init.iter().enumerate() {
            let t = format!("{i}.acc{k}");
            self.raw(format!(
                "{t} = phi {} [ {a}, %{pre} ], [ <{t}.next>, {latch_key} ]",
                a.ty
            ));
            accs.push(Val::new(a.ty, t));
        }
        let c = self.emit("i1", format!("icmp slt i64 {i}, {hi}"));
        self.condbr(&c, &bb, &exit);
        self.start(&bb);
        LoopState {
            hdr,
            exit,
            latch_key,
            i: Val::new("i64", i),
            accs,
        }
    }

    /// Counts the function's control flow as a loop left to LLVM's loop optimizer (a `cf` body,
    /// whose branches may loop: see `ModuleBuilder::needs_loop_optimizer`).
    pub fn leave_to_loop_optimizer(&mut self) {
        self.optimizer_loops += 1;
    }

    /// The second half of a loop: `next` are the carried values at the end of the body.
    pub fn loop_end(&mut self, st: LoopState, next: &[Val]) -> R<Vec<Val>> {
        self.loop_end_md(st, next, None, false)
    }

    /// [`FunctionBuilder::loop_end`] with loop metadata `md` (`!N`, see `ModuleBuilder::loop_interleave_md`) on the
    /// back edge. `as_written`: the loop is explicit vector code, or scalar code marked to stay
    /// scalar, so LLVM's loop vectorizer has nothing to do in it; an innermost loop that is not
    /// counts as left to LLVM's loop optimizer (`FunctionText::optimizer_loops`).
    pub fn loop_end_md(&mut self, st: LoopState, next: &[Val], md: Option<&str>, as_written: bool) -> R<Vec<Val>> {
        let innermost = !self.open_loops.pop().unwrap_or(false);
        if innermost && !as_written {
            self.optimizer_loops += 1;
        }
        if next.len() != st.accs.len() {
            return Err(LowerError::internal(
                "loop body returned the wrong number of carried values",
            ));
        }
        let inext = format!("{}.next", st.i.s);
        self.raw(format!("{inext} = add nsw i64 {}, 1", st.i.s));
        let latch = self.cur.clone();
        match md {
            Some(md) => self.raw(format!("br label %{}, !llvm.loop {md}", st.hdr)),
            None => self.br(&st.hdr),
        }
        self.body = self.body.replace(&st.latch_key, &format!("%{latch}"));
        for (a, n) in st.accs.iter().zip(next) {
            if n.ty != a.ty {
                return Err(LowerError::internal("a carried loop value changed its type"));
            }
            self.body = self.body.replace(&format!("<{}.next>", a.s), &n.s);
        }
        self.start(&st.exit);
        Ok(st.accs)
    }

    /// `if c { then() }`.
    pub fn if_then(&mut self, c: &Val, then: impl FnOnce(&mut FunctionBuilder) -> R<()>) -> R<()> {
        if c.as_bool() == Some(false) {
            return Ok(());
        }
        let t = self.label("then");
        let j = self.label("endif");
        self.condbr(c, &t, &j);
        self.start(&t);
        then(self)?;
        self.br(&j);
        self.start(&j);
        Ok(())
    }
}

/// An open loop (between [`FunctionBuilder::loop_begin`] and [`FunctionBuilder::loop_end`]).
pub struct LoopState {
    hdr: String,
    exit: String,
    latch_key: String,
    /// The induction variable.
    pub i: Val,
    /// The carried values in the body.
    pub accs: Vec<Val>,
}

/// The module being built: declarations (deduplicated by name), globals and function texts.
#[derive(Default)]
pub struct ModuleBuilder {
    decls: BTreeMap<String, String>,
    globals: Vec<String>,
    strings: BTreeMap<String, String>,
    funcs: Vec<String>,
    counter: u32,
    /// `attributes #0` contents (target cpu and features).
    pub fn_attrs: String,
    /// The target has AVX-512 F and DQ (`ops::math` then defines vector variants of some math).
    pub avx512: bool,
    /// Names of the functions defined once per module (`ops::math`'s function pairs).
    defined: std::collections::BTreeSet<String>,
    /// Functions kept alive until the optimizer has used them (`@llvm.compiler.used`).
    used: Vec<String>,
    /// Module-level metadata lines (`!0 = ...`), numbered in order.
    metadata: Vec<String>,
    /// Set by code emitted into a loop body that is one long dependency chain (`ops::math`'s
    /// `pow` and GELU erf): the innermost kernel loop around it asks the vectorizer to
    /// interleave this many vector iterations (see `Kernel::for_acc`).
    pub interleave: Option<u32>,
    /// Innermost loops of the functions added so far left to LLVM's loop optimizer.
    optimizer_loops: u32,
}

impl ModuleBuilder {
    /// Declares function `name` once (`decl` is the whole `declare ...` line).
    pub fn declare(&mut self, name: &str, decl: &str) {
        self.decls.entry(name.to_string()).or_insert_with(|| decl.to_string());
    }
    /// A private constant C string; returns `@name`.
    pub fn cstr(&mut self, s: &str) -> Val {
        if let Some(g) = self.strings.get(s) {
            return Val::new("ptr", g.clone());
        }
        self.counter += 1;
        let g = format!("@.str.{}", self.counter);
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        self.globals.push(format!(
            "{g} = private unnamed_addr constant [{} x i8] c\"{}\", align 1",
            bytes.len(),
            escape_bytes(&bytes)
        ));
        self.strings.insert(s.to_string(), g.clone());
        Val::new("ptr", g)
    }
    /// A private constant holding `bytes` (64-byte aligned); returns `@name`.
    pub fn data(&mut self, hint: &str, bytes: &[u8]) -> Val {
        self.counter += 1;
        let g = format!("@.{hint}.{}", self.counter);
        let n = bytes.len().max(1);
        let init = if bytes.is_empty() {
            "zeroinitializer".to_string()
        } else {
            format!("c\"{}\"", escape_bytes(bytes))
        };
        self.globals.push(format!(
            "{g} = private unnamed_addr constant [{n} x i8] {init}, align 64"
        ));
        Val::new("ptr", g)
    }
    /// A private constant array of i64; returns `@name`.
    pub fn i64_array(&mut self, vals: &[i64]) -> Val {
        self.counter += 1;
        let g = format!("@.dims.{}", self.counter);
        let items: Vec<String> = vals.iter().map(|v| format!("i64 {v}")).collect();
        let init = if vals.is_empty() {
            "[i64 0]".to_string()
        } else {
            format!("[{}]", items.join(", "))
        };
        self.globals.push(format!(
            "{g} = private unnamed_addr constant [{} x i64] {init}, align 8",
            vals.len().max(1)
        ));
        Val::new("ptr", g)
    }
    /// A private constant of type and value `typed_init` (`{ i32, ptr } { i32 1, ptr @x }`);
    /// returns `@name`.
    pub fn global(&mut self, hint: &str, typed_init: &str) -> Val {
        self.counter += 1;
        let g = format!("@.{hint}.{}", self.counter);
        self.globals.push(format!("{g} = private unnamed_addr constant {typed_init}, align 8"));
        Val::new("ptr", g)
    }
    pub fn unique(&mut self, hint: &str) -> String {
        self.counter += 1;
        format!("{hint}.{}", self.counter)
    }
    pub fn add_function(&mut self, f: FunctionText) {
        self.optimizer_loops += f.optimizer_loops;
        self.funcs.push(f.text);
    }
    /// Whether the module needs LLVM's loop optimizer ([`crate::llvm::Pipeline::Default`]): an
    /// innermost loop is left to its vectorizer, or a math function's vector variant waits for
    /// the vectorizer to call it (`used`). Otherwise every hot loop is already vector code (or
    /// scalar by choice) and [`crate::llvm::Pipeline::VectorCode`] gives the same machine code.
    pub fn needs_loop_optimizer(&self) -> bool {
        self.optimizer_loops > 0 || !self.used.is_empty()
    }
    /// True the first time `name` is passed: the caller then defines that function.
    pub fn define_once(&mut self, name: &str) -> bool {
        self.defined.insert(name.to_string())
    }
    /// Keeps function `name` in the module through the optimizer even while nothing calls it
    /// (a vector variant that the loop vectorizer calls; see `llvm::compile`).
    pub fn keep(&mut self, name: &str) {
        self.used.push(name.to_string());
    }
    /// A new loop ID (`!llvm.loop` metadata) asking for `n` interleaved vector iterations;
    /// returns its name (`!N`).
    pub fn loop_interleave_md(&mut self, n: u32) -> String {
        let id = self.metadata.len();
        self.metadata.push(format!("!{id} = distinct !{{!{id}, !{}}}", id + 1));
        self.metadata
            .push(format!("!{} = !{{!\"llvm.loop.interleave.count\", i32 {n}}}", id + 1));
        format!("!{id}")
    }
    /// A new loop ID asking LLVM to keep the loop rolled and, if `no_vectorize`, not to vectorize
    /// it (explicit vector code, or code that runs rarely or briefly, whose vector and unrolled
    /// copies would mostly cost compile time); returns its name (`!N`).
    pub fn loop_rolled_md(&mut self, no_vectorize: bool) -> String {
        let id = self.metadata.len();
        let n = if no_vectorize { 2 } else { 1 };
        let refs: Vec<String> = (1..=n).map(|i| format!("!{}", id + i)).collect();
        self.metadata.push(format!("!{id} = distinct !{{!{id}, {}}}", refs.join(", ")));
        self.metadata.push(format!("!{} = !{{!\"llvm.loop.unroll.disable\"}}", id + 1));
        if no_vectorize {
            self.metadata.push(format!("!{} = !{{!\"llvm.loop.vectorize.enable\", i1 false}}", id + 2));
        }
        format!("!{id}")
    }
    /// The `!nontemporal` metadata node (`!{i32 1}`, made once per module); returns its name
    /// (`!N`), to put on a store as `, !nontemporal !N`.
    pub fn nontemporal_md(&mut self) -> String {
        let line = |id: usize| format!("!{id} = !{{i32 1}}");
        if let Some(id) = (0..self.metadata.len()).find(|&id| self.metadata[id] == line(id)) {
            return format!("!{id}");
        }
        let id = self.metadata.len();
        self.metadata.push(line(id));
        format!("!{id}")
    }
    /// The module text.
    pub fn finish(&self, name: &str) -> String {
        let mut s = format!("; ModuleID = '{name}'\nsource_filename = \"{name}\"\n\n");
        for g in &self.globals {
            s.push_str(g);
            s.push('\n');
        }
        s.push('\n');
        for d in self.decls.values() {
            s.push_str(d);
            s.push('\n');
        }
        s.push('\n');
        for f in &self.funcs {
            s.push_str(f);
            s.push('\n');
        }
        if !self.used.is_empty() {
            let items: Vec<String> = self.used.iter().map(|u| format!("ptr @\"{u}\"")).collect();
            let _ = writeln!(
                s,
                "@llvm.compiler.used = appending global [{} x ptr] [{}], section \"llvm.metadata\"",
                items.len(),
                items.join(", ")
            );
        }
        let _ = writeln!(s, "attributes #0 = {{ nounwind {} }}", self.fn_attrs);
        // #1: a pure function kept out of line (the scalar side of a vector function pair);
        // #2: a pure function inlined wherever it is called (the vector side).
        let _ = writeln!(
            s,
            "attributes #1 = {{ nounwind noinline memory(none) willreturn {} }}",
            self.fn_attrs
        );
        let _ = writeln!(
            s,
            "attributes #2 = {{ nounwind alwaysinline memory(none) willreturn {} }}",
            self.fn_attrs
        );
        let _ = writeln!(s, "attributes {SHELL_ATTRS} = {{ nounwind noinline optnone {} }}", self.fn_attrs);
        let _ = writeln!(s, "attributes {KERNEL_INLINE_ATTRS} = {{ nounwind alwaysinline {} }}", self.fn_attrs);
        for md in &self.metadata {
            s.push_str(md);
            s.push('\n');
        }
        s
    }
}

fn escape_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for &c in b {
        if c.is_ascii_graphic() && c != b'"' && c != b'\\' || c == b' ' {
            s.push(c as char);
        } else {
            let _ = write!(s, "\\{c:02X}");
        }
    }
    s
}
