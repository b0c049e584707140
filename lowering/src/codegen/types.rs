//! Element types in memory and in registers: i1 is a byte in memory and `i1` in registers; f16
//! is `half` in memory and `float` in registers; bf16 is its 16 bits (`i16`) in memory and
//! `float` in registers; f32/f64/integers are themselves. Loads convert memory to the compute
//! form, stores round back (f16/bf16 to nearest-even, as the interpreter does); [`cast`] is
//! `tensor.cast` on one element, with the interpreter's rules (saturating float to int, wrapping
//! int to int, single rounding to f16/bf16).

use xcs_dialects::interp::ElemType;

use crate::codegen::llvm_ir::{FunctionBuilder, ModuleBuilder, Val};

/// The C ABI code of an element type (`enum xcs_dtype` in `xcs_runtime.h`).
pub fn dtype_code(e: ElemType) -> i32 {
    match e {
        ElemType::F16 => 1,
        ElemType::BF16 => 2,
        ElemType::F32 => 3,
        ElemType::F64 => 4,
        ElemType::I1 => 5,
        ElemType::I8 => 6,
        ElemType::I16 => 7,
        ElemType::I32 => 8,
        ElemType::I64 => 9,
        ElemType::Str => 0,
    }
}

/// The LLVM type of an element in memory.
pub fn mem_ty(e: ElemType) -> &'static str {
    match e {
        ElemType::F16 => "half",
        ElemType::BF16 => "i16",
        ElemType::F32 => "float",
        ElemType::F64 => "double",
        ElemType::I1 | ElemType::I8 => "i8",
        ElemType::I16 => "i16",
        ElemType::I32 => "i32",
        ElemType::I64 => "i64",
        ElemType::Str => "ptr",
    }
}

/// Bytes per element in memory (a string element is a pointer).
pub fn elem_size(e: ElemType) -> i64 {
    e.stored_bytes().unwrap_or(8) as i64
}

/// Checks that a tensor of static sizes `shape` (`?` dims count as 1) and element `e` has a
/// byte size the backend's 64-bit index arithmetic can hold (below 2^62: sizes, strides and
/// offsets never wrap). A larger type, e.g. `tensor<999999999999x999999999999xf32>`, is a
/// compile-time error at the op or function that has it, never a wrapped allocation size.
pub fn check_addressable(shape: &[i64], e: ElemType) -> Result<(), String> {
    const LIMIT: u128 = 1 << 62;
    let mut bytes = elem_size(e) as u128;
    for &d in shape {
        bytes = bytes.saturating_mul(d.max(1) as u128);
    }
    if bytes >= LIMIT {
        let dims: Vec<String> = shape.iter().map(|d| if *d < 0 { "?".to_string() } else { d.to_string() }).collect();
        return Err(format!(
            "a tensor of shape [{}] and element type {} ({} bytes) is too large for the LLVM backend (the limit is 2^62 bytes)",
            dims.join("x"),
            e.name(),
            if bytes == u128::MAX { "more than 2^128".to_string() } else { bytes.to_string() }
        ));
    }
    Ok(())
}

/// The LLVM type an element is computed in.
pub fn comp_ty(e: ElemType) -> &'static str {
    match e {
        ElemType::F16 | ElemType::BF16 | ElemType::F32 => "float",
        ElemType::F64 => "double",
        ElemType::I1 => "i1",
        ElemType::I8 => "i8",
        ElemType::I16 => "i16",
        ElemType::I32 => "i32",
        ElemType::I64 | ElemType::Str => "i64",
    }
}

pub fn int_bits(e: ElemType) -> u32 {
    match e {
        ElemType::I1 => 1,
        ElemType::I8 => 8,
        ElemType::I16 => 16,
        ElemType::I32 => 32,
        _ => 64,
    }
}

/// Memory form -> compute form.
pub fn to_comp(f: &mut FunctionBuilder, e: ElemType, v: &Val) -> Val {
    match e {
        ElemType::F16 => f.emit("float", format!("fpext half {v} to float")),
        ElemType::BF16 => {
            let z = f.emit("i32", format!("zext i16 {v} to i32"));
            let s = f.emit("i32", format!("shl i32 {z}, 16"));
            f.emit("float", format!("bitcast i32 {s} to float"))
        }
        ElemType::I1 => f.emit("i1", format!("trunc i8 {v} to i1")),
        _ => v.clone(),
    }
}

/// f32 -> bf16 bits, round to nearest even (NaN stays a quiet NaN).
pub fn f32_to_bf16(f: &mut FunctionBuilder, v: &Val) -> Val {
    let b = f.emit("i32", format!("bitcast float {v} to i32"));
    let hi = f.emit("i32", format!("lshr i32 {b}, 16"));
    let lsb = f.emit("i32", format!("and i32 {hi}, 1"));
    let r1 = f.emit("i32", format!("add i32 {b}, 32767"));
    let r2 = f.emit("i32", format!("add i32 {r1}, {lsb}"));
    let r3 = f.emit("i32", format!("lshr i32 {r2}, 16"));
    let q = f.emit("i32", format!("or i32 {hi}, 64"));
    let nan = f.emit("i1", format!("fcmp uno float {v}, 0.0"));
    let r = f.emit("i32", format!("select i1 {nan}, i32 {q}, i32 {r3}"));
    f.emit("i16", format!("trunc i32 {r} to i16"))
}

/// Compute form -> memory form (rounding f16/bf16 once from the f32 value).
pub fn to_mem(f: &mut FunctionBuilder, e: ElemType, v: &Val) -> Val {
    match e {
        ElemType::F16 => f.emit("half", format!("fptrunc float {v} to half")),
        ElemType::BF16 => f32_to_bf16(f, v),
        ElemType::I1 => f.emit("i8", format!("zext i1 {v} to i8")),
        _ => v.clone(),
    }
}

/// Rounds a compute value to its element type and back (f16/bf16 results of each op are rounded,
/// as the interpreter stores them; a no-op for other types).
pub fn round_trip(f: &mut FunctionBuilder, e: ElemType, v: &Val) -> Val {
    match e {
        ElemType::F16 | ElemType::BF16 => {
            let m = to_mem(f, e, v);
            to_comp(f, e, &m)
        }
        _ => v.clone(),
    }
}

/// Loads element `idx` (in elements) of a buffer and converts it to the compute form.
pub fn load_elem(f: &mut FunctionBuilder, e: ElemType, base: &Val, idx: &Val) -> Val {
    let p = f.gep(mem_ty(e), base, idx);
    let m = f.load(mem_ty(e), &p);
    to_comp(f, e, &m)
}

/// Stores compute value `v` as element `idx` of a buffer.
pub fn store_elem(f: &mut FunctionBuilder, e: ElemType, base: &Val, idx: &Val, v: &Val) {
    let m = to_mem(f, e, v);
    let p = f.gep(mem_ty(e), base, idx);
    f.store(&m, &p);
}

/// A `double` accumulator value rounded once to element type `e` (memory form).
pub fn f64_to_mem(f: &mut FunctionBuilder, m: &mut ModuleBuilder, e: ElemType, v: &Val) -> Val {
    match e {
        ElemType::F64 => v.clone(),
        ElemType::F32 => f.emit("float", format!("fptrunc double {v} to float")),
        ElemType::F16 => f.emit("half", format!("fptrunc double {v} to half")),
        ElemType::BF16 => {
            m.declare("xcs_rt_f64_to_bf16", "declare i16 @xcs_rt_f64_to_bf16(double)");
            f.emit("i16", format!("call i16 @xcs_rt_f64_to_bf16(double {v})"))
        }
        _ => v.clone(),
    }
}

/// A compute value of float type `e` widened to `double` (exact).
pub fn comp_to_f64(f: &mut FunctionBuilder, e: ElemType, v: &Val) -> Val {
    if comp_ty(e) == "double" {
        v.clone()
    } else {
        f.emit("double", format!("fpext float {v} to double"))
    }
}

/// An integer compute value widened to i64 (signed; i1 as 0/1).
pub fn int_to_i64(f: &mut FunctionBuilder, e: ElemType, v: &Val) -> Val {
    match e {
        ElemType::I64 => v.clone(),
        ElemType::I1 => f.emit("i64", format!("zext i1 {v} to i64")),
        _ => f.emit("i64", format!("sext {} to i64", v.t())),
    }
}

/// `tensor.cast` of one element: compute value `v` of `from` to the memory form of `to`.
pub fn cast(f: &mut FunctionBuilder, m: &mut ModuleBuilder, from: ElemType, to: ElemType, v: &Val) -> Val {
    use ElemType::*;
    if from == to {
        return to_mem(f, to, v);
    }
    let fl = |e: ElemType| matches!(e, F16 | BF16 | F32 | F64);
    match (fl(from), to) {
        // from a float (v is float for f16/bf16/f32, double for f64)
        (true, I1) => {
            let c = f.emit("i1", format!("fcmp une {}, 0.0", v.t()));
            f.emit("i8", format!("zext i1 {c} to i8"))
        }
        (true, I8 | I16 | I32 | I64) => {
            let it = comp_ty(to);
            let ft = v.ty;
            let name = format!("llvm.fptosi.sat.{it}.{}", if ft == "float" { "f32" } else { "f64" });
            m.declare(&name, &format!("declare {it} @{name}({ft})"));
            f.emit(comp_ty(to), format!("call {it} @{name}({ft} {v})"))
        }
        (true, F64) => comp_to_f64(f, from, v),
        (true, F32) => {
            if v.ty == "double" {
                f.emit("float", format!("fptrunc double {v} to float"))
            } else {
                v.clone()
            }
        }
        (true, F16) => f.emit("half", format!("fptrunc {} to half", v.t())),
        (true, BF16) => {
            if v.ty == "double" {
                f64_to_mem(f, m, BF16, v)
            } else {
                f32_to_bf16(f, v)
            }
        }
        // from an integer or i1 (v is iN)
        (false, I1) => {
            let c = f.emit("i1", format!("icmp ne {}, 0", v.t()));
            f.emit("i8", format!("zext i1 {c} to i8"))
        }
        (false, I8 | I16 | I32 | I64) => {
            let (fb, tb) = (int_bits(from), int_bits(to));
            let t = comp_ty(to);
            if fb == tb {
                v.clone()
            } else if fb < tb {
                let op = if from == I1 { "zext" } else { "sext" };
                f.emit(t, format!("{op} {} to {t}", v.t()))
            } else {
                f.emit(t, format!("trunc {} to {t}", v.t()))
            }
        }
        (false, F32 | F64) => {
            let t = if to == F32 { "float" } else { "double" };
            let op = if from == I1 { "uitofp" } else { "sitofp" };
            f.emit(t, format!("{op} {} to {t}", v.t()))
        }
        (false, F16) => {
            // Exact in f64 up to 2^53; anything larger is far above f16's range (inf either way).
            let op = if from == I1 { "uitofp" } else { "sitofp" };
            let d = f.emit("double", format!("{op} {} to double", v.t()));
            f.emit("half", format!("fptrunc double {d} to half"))
        }
        (false, BF16) => match from {
            I1 | I8 | I16 => {
                let op = if from == I1 { "uitofp" } else { "sitofp" };
                let x = f.emit("float", format!("{op} {} to float", v.t()));
                f32_to_bf16(f, &x)
            }
            I32 => {
                let d = f.emit("double", format!("sitofp i32 {v} to double"));
                f64_to_mem(f, m, BF16, &d)
            }
            _ => {
                m.declare("xcs_rt_i64_to_bf16", "declare i16 @xcs_rt_i64_to_bf16(i64)");
                f.emit("i16", format!("call i16 @xcs_rt_i64_to_bf16(i64 {v})"))
            }
        },
        (_, Str) => v.clone(),
    }
}
