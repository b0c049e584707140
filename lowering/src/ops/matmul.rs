//! Contractions: `tensor.matmul` (batch dims broadcast) and `tensor.einsum` (one kernel
//! iteration per output element, nested loops over the contracted labels in order of first
//! appearance). An f32 matmul runs the packed SIMD kernel of `matmul_f32`; any other one
//! iterates per output row, a dot product in strict order per element. Floats accumulate in
//! f64 and round once, integers wrap in i64, as the interpreter does.

use xcs_dialects::interp::ElemType;

use super::matmul_f32::matmul_f32;
use crate::codegen::llvm_ir::Val;
use crate::codegen::loops::{broadcast_dims, broadcast_strides, grain_rows, offset, unflatten};
use crate::codegen::{check_result_dims, FunctionLowering, Kernel, LowerFn, OpSite, RunTimeCheck, Slot, TensorVal, R};

pub static MATMUL: LowerFn = LowerFn(matmul);
pub static EINSUM: LowerFn = LowerFn(einsum);

fn madd(k: &mut Kernel, float: bool, acc: &Val, a: &Val, b: &Val) -> Val {
    if float {
        let p = k.f.emit("double", format!("fmul double {a}, {b}"));
        k.f.emit("double", format!("fadd double {acc}, {p}"))
    } else {
        let p = k.f.emit("i64", format!("mul i64 {a}, {b}"));
        k.f.emit("i64", format!("add i64 {acc}, {p}"))
    }
}

/// A checked `tensor.matmul`: its operands, batch dims and strides, and result.
pub struct Plan {
    pub(super) a: TensorVal,
    pub(super) b: TensorVal,
    pub(super) batch: Vec<Val>,
    pub(super) abs: Vec<Val>,
    pub(super) bbs: Vec<Val>,
    pub(super) m: Val,
    pub(super) n: Val,
    pub(super) k: Val,
    /// Strides of A's rows and columns, of B's rows and columns.
    pub(super) st: [Val; 4],
    /// Result sizes (batch dims, M, N).
    pub dims: Vec<Val>,
    pub relem: ElemType,
}

impl Plan {
    /// Whether the packed f32 kernel computes it (and so can take an [`Epilogue`]).
    pub fn f32_kernel(&self) -> bool {
        self.a.elem == ElemType::F32 && self.relem == ElemType::F32
    }
}

/// Elementwise ops applied to each output tile of the f32 kernel right after its last K block,
/// while the tile is in L1 (a `tensor.fused` matmul epilogue, `ops/fused.rs`). Per element,
/// `eval` gets the matmul's value and the `leaves`' values (read broadcast to the result) and
/// returns the values stored into `outs` (contiguous, the result's sizes; one of them may be
/// the matmul's own buffer, updated in place).
pub struct Epilogue<'a> {
    pub leaves: Vec<TensorVal>,
    pub outs: Vec<TensorVal>,
    pub eval: &'a mut dyn FnMut(&mut Kernel, &Val, &[Val]) -> R<Vec<Val>>,
}

pub fn matmul(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let p = plan(fl, o)?;
    let out = fl.new_tensor(p.relem, &p.dims)?;
    if p.f32_kernel() {
        matmul_f32(fl, o, &p, &out, None)?;
        return Ok(vec![Slot::Tensor(out)]);
    }
    let Plan {
        a,
        b,
        batch,
        abs,
        bbs,
        m,
        n,
        k: ka,
        st: [sam, sak, sbk, sbn],
        ..
    } = p;
    let nb = fl.f.product(&batch);
    let rows = fl.f.mul(&nb, &m);
    let nk = fl.f.mul(&n, &ka);
    let total = fl.f.mul(&rows, &nk);
    let grain = grain_rows(&mut fl.f, &nk);
    let float = a.elem.is_float();
    let mut k = fl.kernel("matmul");
    let (ka_, kb_, ko) = (k.tensor(&a), k.tensor(&b), k.tensor(&out));
    let kbatch = k.cap_all(&batch);
    let (kabs, kbbs) = (k.cap_all(&abs), k.cap_all(&bbs));
    let (km, kn, kk) = (k.cap(&m), k.cap(&n), k.cap(&ka));
    let (ksam, ksak, ksbk, ksbn) = (k.cap(&sam), k.cap(&sak), k.cap(&sbk), k.cap(&sbn));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    k.for_range(&lo, &hi, |k, row| {
        let bi = k.f.div(row, &km);
        let i = k.f.rem(row, &km);
        let bidx = unflatten(&mut k.f, &bi, &kbatch);
        let a0 = offset(&mut k.f, &bidx, &kabs);
        let ai = k.f.mul(&i, &ksam);
        let abase = k.f.add(&a0, &ai);
        let bbase = offset(&mut k.f, &bidx, &kbbs);
        let obase = k.f.mul(row, &kn);
        k.for_range(&Val::i64(0), &kn, |k, j| {
            let bj = k.f.mul(j, &ksbn);
            let bcol = k.f.add(&bbase, &bj);
            let zero = if float { Val::f64(0.0) } else { Val::i64(0) };
            let s = k.for_acc(&Val::i64(0), &kk, &[zero], |k, p, acc| {
                let t = k.f.mul(p, &ksak);
                let ao = k.f.add(&abase, &t);
                let t = k.f.mul(p, &ksbk);
                let bo = k.f.add(&bcol, &t);
                let x = k.load_acc(&ka_, &ao);
                let y = k.load_acc(&kb_, &bo);
                Ok(vec![madd(k, float, &acc[0], &x, &y)])
            })?;
            let oo = k.f.add(&obase, j);
            k.store_acc(&ko, &oo, &s[0]);
            Ok(())
        })
    })?;
    fl.launch(k, &rows, &grain, &total)?;
    Ok(vec![Slot::Tensor(out)])
}

/// Checks a `tensor.matmul` (emitting its run-time size checks) and computes its sizes.
pub fn plan(fl: &mut FunctionLowering, o: &OpSite) -> R<Plan> {
    let (a, b) = (o.tensor(fl, 0)?, o.tensor(fl, 1)?);
    if a.rank() < 2 || b.rank() < 2 {
        return Err(o.err("operands must have rank >= 2"));
    }
    if !a.elem.is_numeric() || a.elem != b.elem {
        return Err(o.err("operands must have the same numeric element type"));
    }
    let (ra, rb) = (a.rank(), b.rank());
    let (m, ka) = (a.dims[ra - 2].clone(), a.dims[ra - 1].clone());
    let (kb, n) = (b.dims[rb - 2].clone(), b.dims[rb - 1].clone());
    let bad = fl.f.icmp("ne", &ka, &kb);
    let msg = o.msg(fl, "contraction dimensions differ: lhs has K = %lld, rhs has K = %lld");
    fl.fail2_if(&bad, o.site, &msg, &ka, &kb);
    let batch = broadcast_dims(fl, o, &[&a.dims[..ra - 2], &b.dims[..rb - 2]])?;
    let mut dims = batch.clone();
    dims.push(m.clone());
    dims.push(n.clone());
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    // Batch strides of each operand broadcast to the batch dims.
    let ab = TensorVal {
        dims: a.dims[..ra - 2].to_vec(),
        strides: a.strides[..ra - 2].to_vec(),
        ..a.clone()
    };
    let bb = TensorVal {
        dims: b.dims[..rb - 2].to_vec(),
        strides: b.strides[..rb - 2].to_vec(),
        ..b.clone()
    };
    let abs = broadcast_strides(&mut fl.f, &ab, &batch);
    let bbs = broadcast_strides(&mut fl.f, &bb, &batch);
    let (sam, sak) = (a.strides[ra - 2].clone(), a.strides[ra - 1].clone());
    let (sbk, sbn) = (b.strides[rb - 2].clone(), b.strides[rb - 1].clone());
    Ok(Plan {
        a,
        b,
        batch,
        abs,
        bbs,
        m,
        n,
        k: ka,
        st: [sam, sak, sbk, sbn],
        dims,
        relem,
    })
}

/// The f32 kernel computing `p` into `c` (a contiguous f32 tensor of the result's sizes) and
/// applying `epi` to each finished tile.
pub fn matmul_f32_into(fl: &mut FunctionLowering, o: &OpSite, p: &Plan, c: &TensorVal, epi: Epilogue) -> R<()> {
    matmul_f32(fl, o, p, c, Some(epi))
}

pub fn einsum(fl: &mut FunctionLowering, o: &OpSite) -> R<Vec<Slot>> {
    let ins = o.operands(fl)?;
    let eq = xcs_dialects::tensor::parse_einsum(o.str(fl, "equation")?, ins.len()).map_err(|e| o.err(&e))?;
    let first = ins.first().ok_or_else(|| o.err("needs at least one operand"))?;
    let elem = first.elem;
    if !elem.is_numeric() || ins.iter().any(|t| t.elem != elem) {
        return Err(o.err("operands must have the same numeric element type"));
    }
    // Label sizes (the first operand that has a label gives its size; the others must agree).
    let mut labels: Vec<char> = Vec::new();
    let mut sizes: Vec<Val> = Vec::new();
    for (i, (ls, t)) in eq.inputs.iter().zip(&ins).enumerate() {
        if ls.len() != t.rank() {
            return Err(o.err(&format!(
                "operand #{i} has rank {} but the equation gives it {} labels",
                t.rank(),
                ls.len()
            )));
        }
        for (&c, d) in ls.iter().zip(&t.dims) {
            match labels.iter().position(|&l| l == c) {
                Some(p) => {
                    let bad = fl.f.icmp("ne", &sizes[p], d);
                    let msg = o.msg(fl, &format!("label '{c}' has size %lld and %lld"));
                    let s = sizes[p].clone();
                    fl.fail2_if(&bad, o.site, &msg, &s, d);
                }
                None => {
                    labels.push(c);
                    sizes.push(d.clone());
                }
            }
        }
    }
    let size_of = |c: char| sizes[labels.iter().position(|&l| l == c).unwrap_or(0)].clone();
    let mut contracted: Vec<char> = Vec::new();
    for &c in eq.inputs.iter().flatten() {
        if !eq.output.contains(&c) && !contracted.contains(&c) {
            contracted.push(c);
        }
    }
    let dims: Vec<Val> = eq.output.iter().map(|&c| size_of(c)).collect();
    let cdims: Vec<Val> = contracted.iter().map(|&c| size_of(c)).collect();
    let (rd, relem) = o.result(fl, 0)?;
    let dims = check_result_dims(fl, o, dims, &rd)?;
    let out = fl.new_tensor(relem, &dims)?;
    let total_out = fl.f.product(&dims);
    let clen = fl.f.product(&cdims);
    let work = fl.f.mul(&total_out, &clen);
    let grain = grain_rows(&mut fl.f, &clen);
    let float = elem.is_float();
    let mut k = fl.kernel("einsum");
    let kin: Vec<TensorVal> = ins.iter().map(|t| k.tensor(t)).collect();
    let ko = k.tensor(&out);
    let (kdims, kcdims) = (k.cap_all(&dims), k.cap_all(&cdims));
    let (lo, hi) = (k.lo.clone(), k.hi.clone());
    let out_labels = eq.output.clone();
    let inputs = eq.inputs.clone();
    k.for_range(&lo, &hi, |k, e| {
        let oidx = unflatten(&mut k.f, e, &kdims);
        let zero = if float { Val::f64(0.0) } else { Val::i64(0) };
        let s = k.nest_acc(&kcdims, &[zero], &mut |k, cidx, acc| {
            let at = |c: char| -> Val {
                if let Some(p) = out_labels.iter().position(|&l| l == c) {
                    oidx[p].clone()
                } else {
                    cidx[contracted.iter().position(|&l| l == c).unwrap_or(0)].clone()
                }
            };
            let mut prod = if float { Val::f64(1.0) } else { Val::i64(1) };
            for (ls, t) in inputs.iter().zip(&kin) {
                let idx: Vec<Val> = ls.iter().map(|&c| at(c)).collect();
                let off = offset(&mut k.f, &idx, &t.strides);
                let v = k.load_acc(t, &off);
                prod = if float {
                    k.f.emit("double", format!("fmul double {prod}, {v}"))
                } else {
                    k.f.emit("i64", format!("mul i64 {prod}, {v}"))
                };
            }
            let next = if float {
                k.f.emit("double", format!("fadd double {}, {prod}", acc[0]))
            } else {
                k.f.emit("i64", format!("add i64 {}, {prod}", acc[0]))
            };
            Ok(vec![next])
        })?;
        k.store_acc(&ko, e, &s[0]);
        Ok(())
    })?;
    fl.launch(k, &total_out, &grain, &work)?;
    Ok(vec![Slot::Tensor(out)])
}
