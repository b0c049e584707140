//! The exported C ABI (docs/c-abi.md): for each public function a wrapper
//! `int32_t <prefix><name>(const xcs_tensor *arg..., xcs_tensor *result...)` that checks and
//! reads the arguments (copying strided ones), calls the internal function and fills the result
//! descriptors with library-allocated buffers; and `<prefix><name>_packed(const xcs_tensor
//! *const *args, xcs_tensor *results)` taking arrays (for FFIs that prefer one signature).

use xcs_dialects::interp::ElemType;
use xcs_ir::DYNAMIC;

use crate::codegen::llvm_ir::{FunctionBuilder, Val, SHELL_ATTRS};
use crate::codegen::{ModuleLowering, Port, R};
use crate::codegen::types::{comp_ty, dtype_code, mem_ty};

/// Size of `xcs_tensor` in bytes (data, rank, shape, strides, dtype + padding).
pub const XCS_TENSOR_SIZE: i64 = 40;

/// Emits the wrapper `export` around internal function `internal` and its `_packed` form; with
/// `packed_only` (the JIT, which calls the packed form), only `<export>_packed`, which reads its
/// argument and result pointers from the arrays itself (one function less to compile).
pub fn emit_wrapper(
    ml: &mut ModuleLowering,
    export: &str,
    internal: &str,
    ins: &[Port],
    outs: &[Port],
    packed_only: bool,
) -> R<()> {
    let mut params: Vec<String> = (0..ins.len()).map(|i| format!("ptr %in{i}")).collect();
    params.extend((0..outs.len()).map(|k| format!("ptr %out{k}")));
    let mut f = if packed_only {
        packed_entry(export, ins.len(), outs.len())
    } else {
        FunctionBuilder::new(export, "", "i32", &params.join(", "))
    };
    f.attrs = SHELL_ATTRS;
    let copies: Vec<Val> = (0..ins.len()).map(|_| f.alloca("ptr", 1)).collect();
    for c in &copies {
        f.store(&Val::new("ptr", "null"), c);
    }
    let free_copies = |f: &mut FunctionBuilder, n: usize| {
        for c in &copies[..n] {
            let p = f.load("ptr", c);
            f.raw(format!("call void @xcs_rt_free(ptr {p})"));
        }
    };
    let mut args: Vec<String> = Vec::new();
    for (i, p) in ins.iter().enumerate() {
        let rank = p.rank();
        let statics: Vec<i64> = p.dims.clone().unwrap_or_default().iter().map(|&d| if d == DYNAMIC { -1 } else { d }).collect();
        let sd = ml.m.i64_array(&statics);
        let data_slot = f.alloca("ptr", 1);
        let dims_slot = f.alloca("i64", rank);
        let st = f.emit(
            "i32",
            format!(
                "call i32 @xcs_rt_arg(ptr %in{i}, i32 {i}, i32 {}, i64 {rank}, ptr {sd}, ptr {data_slot}, ptr {dims_slot}, ptr {})",
                dtype_code(p.elem),
                copies[i]
            ),
        );
        let bad = f.emit("i1", format!("icmp ne i32 {st}, 0"));
        let (e, ok) = (f.label("argfail"), f.label("argok"));
        f.condbr(&bad, &e, &ok);
        f.start(&e);
        free_copies(&mut f, i);
        f.ret(&st);
        f.start(&ok);
        let data = f.load("ptr", &data_slot);
        match &p.dims {
            Some(d) => {
                args.push(data.t());
                for (j, &s) in d.iter().enumerate() {
                    let q = f.gep("i64", &dims_slot, &Val::i64(j as i64));
                    let v = if s == DYNAMIC { f.load("i64", &q) } else { Val::i64(s) };
                    args.push(v.t());
                }
            }
            None => {
                let m = f.load(mem_ty(p.elem), &data);
                let v = if p.elem == ElemType::I1 { f.emit("i1", format!("trunc i8 {m} to i1")) } else { m };
                args.push(v.t());
            }
        }
    }
    let slots: Vec<Val> = outs.iter().map(|p| f.alloca("i64", 1 + p.rank())).collect();
    for s in &slots {
        args.push(s.t());
    }
    let st = f.emit("i32", format!("call i32 @\"{internal}\"({})", args.join(", ")));
    free_copies(&mut f, ins.len());
    let bad = f.emit("i1", format!("icmp ne i32 {st}, 0"));
    let (e, ok) = (f.label("callfail"), f.label("callok"));
    f.condbr(&bad, &e, &ok);
    f.start(&e);
    f.ret(&st);
    f.start(&ok);
    // Result data pointers (scalars: a small buffer holding the value).
    let mut datas = Vec::new();
    for (p, s) in outs.iter().zip(&slots) {
        match &p.dims {
            Some(_) => datas.push(f.load("ptr", s)),
            None => {
                let v = f.load(comp_ty(p.elem), s);
                let buf = f.emit("ptr", "call ptr @xcs_rt_alloc(i64 8)");
                let m = if p.elem == ElemType::I1 { f.emit("i8", format!("zext i1 {v} to i8")) } else { v };
                // A failed 8-byte allocation is reported by xcs_rt_result below (NULL data with
                // rank 0 would be wrong), so check here.
                let null = f.emit("i1", format!("icmp eq ptr {buf}, null"));
                let (e, ok) = (f.label("oom"), f.label("ok"));
                f.condbr(&null, &e, &ok);
                f.start(&e);
                for (q, d) in outs.iter().zip(&datas) {
                    if q.dims.is_some() {
                        f.raw(format!("call void @xcs_rt_free(ptr {d})"));
                    }
                }
                let msg = ml.m.cstr("out of memory");
                f.raw(format!("call i32 @xcs_rt_fail(i32 -1, ptr {msg})"));
                f.ret(&Val::i32(1));
                f.start(&ok);
                f.store(&m, &buf);
                datas.push(buf);
            }
        }
    }
    for (k, (p, s)) in outs.iter().zip(&slots).enumerate() {
        let dims = f.gep("i64", s, &Val::i64(1));
        let st = f.emit(
            "i32",
            format!(
                "call i32 @xcs_rt_result(ptr %out{k}, ptr {}, i64 {}, ptr {dims}, i32 {})",
                datas[k],
                p.rank(),
                dtype_code(p.elem)
            ),
        );
        let bad = f.emit("i1", format!("icmp ne i32 {st}, 0"));
        let (e, ok) = (f.label("resfail"), f.label("resok"));
        f.condbr(&bad, &e, &ok);
        f.start(&e);
        for j in 0..k {
            f.raw(format!("call void @xcs_tensor_release(ptr %out{j})"));
        }
        for d in &datas[k + 1..] {
            f.raw(format!("call void @xcs_rt_free(ptr {d})"));
        }
        f.ret(&st);
        f.start(&ok);
    }
    f.ret(&Val::i32(0));
    ml.m.add_function(f.finish(&Default::default()));
    if packed_only {
        return Ok(());
    }

    // The packed form.
    let mut g = packed_entry(export, ins.len(), outs.len());
    g.attrs = SHELL_ATTRS;
    let r = g.emit("i32", format!("call i32 @\"{export}\"({})", params.join(", ")));
    g.ret(&r);
    ml.m.add_function(g.finish(&Default::default()));
    Ok(())
}

/// `i32 @<export>_packed(ptr %ins, ptr %outs)`, left after its prologue, which names the
/// wrapper's ports as the unpacked form's parameters: `%in<i>` loaded from `%ins`, `%out<k>`
/// the k-th `xcs_tensor` of `%outs`.
fn packed_entry(export: &str, ins: usize, outs: usize) -> FunctionBuilder {
    let mut f = FunctionBuilder::new(&format!("{export}_packed"), "", "i32", "ptr %ins, ptr %outs");
    for i in 0..ins {
        let q = f.gep("ptr", &Val::new("ptr", "%ins"), &Val::i64(i as i64));
        f.raw(format!("%in{i} = load ptr, ptr {q}"));
    }
    for k in 0..outs {
        f.raw(format!("%out{k} = getelementptr i8, ptr %outs, i64 {}", k as i64 * XCS_TENSOR_SIZE));
    }
    f
}

/// A C identifier from `s` (other characters become `_`; a leading digit gets a `_`).
pub fn c_ident(s: &str) -> String {
    let mut out: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}
