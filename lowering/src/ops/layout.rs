//! Structural ops: constants (module globals; a splat is one element read with zero strides),
//! views without copies (transpose permutes strides, broadcast_to zeroes them, slice offsets
//! and scales them, reshape of a contiguous tensor renames its sizes), and copies (concat,
//! gather; `codegen::loops::copy_into` makes views contiguous).

use xcs_dialects::interp::{tensor_from_attr, ElemType};
use xcs_ir::DYNAMIC;

use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::{broadcast_strides, copy_into, grain_rows};
use crate::codegen::types::{elem_size, int_to_i64, load_elem, mem_ty, store_elem};
use crate::codegen::{check_result_dims, row_major, FunctionLowering, LowerFn, OpSite, RunTimeCheck, Slot, TensorVal, R};

pub static CONSTANT: LowerFn = LowerFn(constant);
pub static TRANSPOSE: LowerFn = LowerFn(transpose);
pub static RESHAPE: LowerFn = LowerFn(reshape);
pub static BROADCAST_TO: LowerFn = LowerFn(broadcast_to);
pub static SLICE: LowerFn = LowerFn(slice);
pub static CONCAT: LowerFn = LowerFn(concat);
pub static GATHER: LowerFn = LowerFn(gather);

pub fn constant(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let a = o.attr(fl, "value")?;
    let t = tensor_from_attr(fl.ctx(), a).map_err(|e| o.err(&e))?;
    if t.elem() == ElemType::Str {
        return Err(o.err("string constants are not supported by the LLVM backend"));
    }
    let bytes = t.data.to_le_bytes();
    let es = elem_size(t.elem()) as usize;
    let n = t.shape.iter().product::<usize>();
    let splat = n > 1 && bytes.chunks(es).all(|c| c == &bytes[..es]);
    let dims: Vec<Val> = t.shape.iter().map(|&d| Val::i64(d as i64)).collect();
    let (ptr, strides, contiguous) = if splat {
        (
            fl.module.m.data("splat", &bytes[..es]),
            vec![Val::i64(0); dims.len()],
            false,
        )
    } else {
        let s = row_major(&mut fl.f, &dims);
        (fl.module.m.data("const", &bytes), s, true)
    };
    Ok(vec![Slot::Tensor(TensorVal {
        ptr,
        dims,
        strides,
        elem: t.elem(),
        contiguous,
        buf: None,
    })])
}

pub fn transpose(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    let perm = o.i64s(fl, "perm")?;
    xcs_dialects::tensor::check_perm(&perm, x.rank()).map_err(|e| o.err(&e))?;
    let identity = perm.iter().enumerate().all(|(i, &p)| p as usize == i);
    let dims = perm.iter().map(|&p| x.dims[p as usize].clone()).collect();
    let strides = perm.iter().map(|&p| x.strides[p as usize].clone()).collect();
    Ok(vec![Slot::Tensor(TensorVal {
        dims,
        strides,
        contiguous: x.contiguous && identity,
        ..x
    })])
}

pub fn reshape(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    let (rdims, _) = o.result(fl, 0)?;
    let x = fl.contiguous(&x)?;
    let n = x.numel(&mut fl.f);
    let dynamic = rdims.iter().filter(|&&d| d == DYNAMIC).count();
    if dynamic > 1 {
        return Err(o.err("has a result type with more than one dynamic dim; the LLVM backend cannot infer the sizes"));
    }
    let known: i64 = rdims.iter().filter(|&&d| d != DYNAMIC).map(|&d| d.max(0)).product();
    let mut dims: Vec<Val> = rdims.iter().map(|&d| Val::i64(d.max(0))).collect();
    if dynamic == 1 {
        let pos = rdims.iter().position(|&d| d == DYNAMIC).unwrap_or(0);
        if known == 0 {
            let msg = o.msg(
                fl,
                "cannot reshape %lld elements into a shape with static size %lld and one dynamic dim",
            );
            fl.fail2_if(&Val::bool(true), o.site, &msg, &n, &Val::i64(known));
            dims[pos] = Val::i64(0);
        } else {
            let r = fl.f.rem(&n, &Val::i64(known));
            let bad = fl.f.icmp("ne", &r, &Val::i64(0));
            let msg = o.msg(
                fl,
                "cannot reshape %lld elements into a shape with static size %lld and one dynamic dim",
            );
            fl.fail2_if(&bad, o.site, &msg, &n, &Val::i64(known));
            dims[pos] = fl.f.div(&n, &Val::i64(known));
        }
    } else {
        let bad = fl.f.icmp("ne", &n, &Val::i64(known));
        let msg = o.msg(fl, "cannot reshape %lld elements to a shape of %lld elements");
        fl.fail2_if(&bad, o.site, &msg, &n, &Val::i64(known));
    }
    let strides = row_major(&mut fl.f, &dims);
    Ok(vec![Slot::Tensor(TensorVal { dims, strides, ..x })])
}

pub fn broadcast_to(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    let (rdims, _) = o.result(fl, 0)?;
    if x.rank() > rdims.len() {
        return Err(o.err("cannot broadcast to a lower rank"));
    }
    let off = rdims.len() - x.rank();
    let dims: Vec<Val> = rdims
        .iter()
        .enumerate()
        .map(|(i, &d)| match d {
            DYNAMIC if i >= off => x.dims[i - off].clone(),
            DYNAMIC => Val::i64(1),
            d => Val::i64(d),
        })
        .collect();
    let msg = o.msg(fl, "cannot broadcast size %lld to %lld");
    for (i, d) in x.dims.iter().enumerate() {
        let t = &dims[off + i];
        let ne = fl.f.icmp("ne", d, t);
        let n1 = fl.f.icmp("ne", d, &Val::i64(1));
        let bad = fl.f.and(&ne, &n1);
        fl.fail2_if(&bad, o.site, &msg, d, t);
    }
    let strides = broadcast_strides(&mut fl.f, &x, &dims);
    let same = x.rank() == dims.len() && x.dims.iter().zip(&dims).all(|(a, b)| a == b);
    Ok(vec![Slot::Tensor(TensorVal {
        dims,
        strides,
        contiguous: x.contiguous && same,
        ..x
    })])
}

pub fn slice(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let x = o.tensor(fl, 0)?;
    let (start, limit, stride) = (o.i64s(fl, "start")?, o.i64s(fl, "limit")?, o.i64s(fl, "stride")?);
    let r = x.rank();
    if start.len() != r || limit.len() != r || stride.len() != r {
        return Err(o.err(&format!(
            "start, limit and stride must each have {r} entries (the rank)"
        )));
    }
    let mut off = Val::i64(0);
    let mut dims = Vec::new();
    let mut strides = Vec::new();
    for d in 0..r {
        let (lo, hi, st) = (start[d], limit[d], stride[d]);
        if st < 1 || lo < 0 || hi < lo {
            return Err(o.err(&format!("slice [{lo}, {hi}) with stride {st} in dim {d} is invalid")));
        }
        let bad = fl.f.icmp("sgt", &Val::i64(hi), &x.dims[d]);
        let msg = o.msg(
            fl,
            &format!("slice [{lo}, %lld) with stride {st} in dim {d} is out of range for the run-time size %lld"),
        );
        fl.fail2_if(&bad, o.site, &msg, &Val::i64(hi), &x.dims[d]);
        let t = fl.f.mul(&Val::i64(lo), &x.strides[d]);
        off = fl.f.add(&off, &t);
        dims.push(Val::i64((hi - lo + st - 1) / st));
        strides.push(fl.f.mul(&x.strides[d], &Val::i64(st)));
    }
    let ptr = fl.f.gep(mem_ty(x.elem), &x.ptr, &off);
    let (rd, _) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    Ok(vec![Slot::Tensor(TensorVal {
        ptr,
        dims,
        strides,
        contiguous: false,
        ..x
    })])
}

pub fn concat(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let ins = o.operands(fl)?;
    let first = ins.first().ok_or_else(|| o.err("needs at least one operand"))?.clone();
    let r = first.rank();
    let axis = xcs_dialects::shape::norm_axis(o.i64(fl, "axis")?, r).map_err(|e| o.err(&e))?;
    let mut dims = first.dims.clone();
    for (i, t) in ins.iter().enumerate().skip(1) {
        if t.rank() != r {
            return Err(o.err(&format!(
                "operand #{i} has rank {} but operand #0 has rank {r}",
                t.rank()
            )));
        }
        for d in 0..r {
            if d == axis {
                dims[d] = fl.f.add(&dims[d], &t.dims[d]);
            } else {
                let bad = fl.f.icmp("ne", &t.dims[d], &first.dims[d]);
                let msg = o.msg(
                    fl,
                    &format!("operand #{i} has size %lld in dim {d}, but operand #0 has %lld"),
                );
                fl.fail2_if(&bad, o.site, &msg, &t.dims[d], &first.dims[d]);
            }
        }
    }
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    let out = fl.new_tensor(relem, &dims)?;
    let mut at = Val::i64(0);
    for t in &ins {
        let shift = fl.f.mul(&at, &out.strides[axis]);
        let ptr = fl.f.gep(mem_ty(relem), &out.ptr, &shift);
        let part = TensorVal {
            ptr,
            dims: t.dims.clone(),
            strides: out.strides.clone(),
            elem: relem,
            contiguous: false,
            buf: None,
        };
        copy_into(fl, t, &part)?;
        at = fl.f.add(&at, &t.dims[axis]);
    }
    Ok(vec![Slot::Tensor(out)])
}

pub fn gather(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let table = o.tensor(fl, 0)?;
    let idx = o.tensor(fl, 1)?;
    if !matches!(idx.elem, ElemType::I32 | ElemType::I64) {
        return Err(o.err("indices must be i32 or i64"));
    }
    let axis = xcs_dialects::shape::norm_axis(o.i64(fl, "axis")?, table.rank()).map_err(|e| o.err(&e))?;
    let table = fl.contiguous(&table)?;
    let idx = fl.contiguous(&idx)?;
    let mut dims: Vec<Val> = table.dims[..axis].to_vec();
    dims.extend(idx.dims.iter().cloned());
    dims.extend(table.dims[axis + 1..].iter().cloned());
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    let out = fl.new_tensor(relem, &dims)?;
    let outer = fl.f.product(&table.dims[..axis]);
    let inner = fl.f.product(&table.dims[axis + 1..]);
    let npos = idx.numel(&mut fl.f);
    let size = table.dims[axis].clone();
    let rows = fl.f.mul(&outer, &npos);
    let total = fl.f.mul(&rows, &inner);
    let grain = grain_rows(&mut fl.f, &inner);
    let msg = o.msg(fl, &format!("index %lld is out of range for axis {axis} of size %lld"));
    let site = o.site;
    let mut k = fl.kernel("gather");
    let (kt, ki, ko) = (k.tensor(&table), k.tensor(&idx), k.tensor(&out));
    let (kinner, knpos, ksize) = (k.cap(&inner), k.cap(&npos), k.cap(&size));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    k.for_range(&lo, &hi, |k, row| {
        let o_ = k.f.div(row, &knpos);
        let p = k.f.rem(row, &knpos);
        let iv = load_elem(&mut k.f, ki.elem, &ki.ptr, &p);
        let i64v = int_to_i64(&mut k.f, ki.elem, &iv);
        let bad = k.f.emit("i1", format!("icmp uge i64 {i64v}, {ksize}"));
        k.fail2_if(&bad, site, &msg, &i64v, &ksize);
        let t0 = k.f.mul(&o_, &ksize);
        let t1 = k.f.add(&t0, &i64v);
        let src = k.f.mul(&t1, &kinner);
        let dst = k.f.mul(row, &kinner);
        k.for_range(&Val::i64(0), &kinner, |k, j| {
            let s = k.f.add(&src, j);
            let v = load_elem(&mut k.f, kt.elem, &kt.ptr, &s);
            let d = k.f.add(&dst, j);
            store_elem(&mut k.f, ko.elem, &ko.ptr, &d, &v);
            Ok(())
        })
    })?;
    fl.launch(k, &rows, &grain, &total)?;
    Ok(vec![Slot::Tensor(out)])
}
