//! `.npy` files (numpy's array format) for interpreter inputs and outputs, through the `npyz`
//! crate. dtypes: `<f2` f16, `<f4` f32, `<f8` f64, `|b1` i1, `|i1` i8, `<i2` i16, `<i4` i32,
//! `<i8` i64 (either byte order when reading), and `<U` strings for `!xcs.str` elements.
//!
//! bf16 is not a numpy dtype: a bf16 tensor is written as `<u2` holding the raw bf16 bits (read it
//! in numpy with `ml_dtypes`: `np.load(f).view(ml_dtypes.bfloat16)`, or as f32 with
//! `(np.load(f).astype(np.uint32) << 16).view(np.float32)`), and `<u2` and `|V2` files (what
//! `np.save` makes of an `ml_dtypes.bfloat16` array) read back as bf16. Fortran-order files are
//! read (and transposed to row-major); files are always written in C order.

use std::path::Path;

use half::{bf16, f16};
use npyz::{DType, Order, TypeChar, WriterBuilder};

use super::value::{ElemType, Tensor, TensorData};

fn io_err(e: std::io::Error) -> String {
    e.to_string()
}

/// Reads a tensor from a `.npy` file.
pub fn read_npy(path: impl AsRef<Path>) -> Result<Tensor, String> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    read_npy_bytes(&bytes).map_err(|e| format!("'{}': {e}", path.display()))
}

/// Writes a tensor to a `.npy` file.
pub fn write_npy(path: impl AsRef<Path>, t: &Tensor) -> Result<(), String> {
    let path = path.as_ref();
    let bytes = write_npy_bytes(t)?;
    std::fs::write(path, bytes).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

/// Reads a tensor from the bytes of a `.npy` file.
pub fn read_npy_bytes(bytes: &[u8]) -> Result<Tensor, String> {
    read_from(bytes)
}

/// The preamble of a `.npy` file: where the data starts and the shape the header gives, read
/// before `npyz` is (which multiplies the sizes unchecked and allocates what the header says).
fn header_shape(bytes: &[u8]) -> Result<(usize, Vec<u64>), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a valid .npy file: no '\\x93NUMPY' magic string".into());
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("not a valid .npy file: format version {v} is not supported")),
    };
    let end = start.checked_add(len).filter(|&e| e <= bytes.len()).ok_or_else(|| {
        format!("not a valid .npy file: the header is {len} bytes long, the file ends before it does")
    })?;
    let header = String::from_utf8_lossy(&bytes[start..end]);
    let shape = header
        .split_once("'shape'")
        .and_then(|(_, rest)| rest.split_once('('))
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(dims, _)| dims.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| d.trim_end_matches('L').parse::<u64>()).collect::<Result<Vec<_>, _>>())
        .ok_or("not a valid .npy file: the header has no 'shape' tuple")?
        .map_err(|e| format!("not a valid .npy file: a size in the header's 'shape' is not a number ({e})"))?;
    Ok((end, shape))
}

fn read_from(bytes: &[u8]) -> Result<Tensor, String> {
    // The header must not promise more than the file holds (a lying header would otherwise
    // make npyz overflow or reserve its size up front).
    let (data_start, header_shape) = header_shape(bytes)?;
    let count = header_shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d)).ok_or_else(|| {
        format!("the header's shape {header_shape:?} has more than 2^64 elements")
    })?;
    let npy = npyz::NpyFile::new(bytes).map_err(|e| format!("not a valid .npy file: {e}"))?;
    let item = npy.dtype().num_bytes().unwrap_or(0) as u64;
    let need = count.checked_mul(item);
    let have = (bytes.len() - data_start) as u64;
    if need.is_none_or(|need| need > have) {
        return Err(format!(
            "the header says shape {header_shape:?} ({count} elements of {item} bytes), but the file holds only {have} bytes of data"
        ));
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let order = npy.order();
    let DType::Plain(ts) = npy.dtype() else {
        return Err(format!("structured dtype {} is not supported", npy.dtype().descr()));
    };
    let (ch, size) = (ts.type_char(), ts.size_field());
    let data = match (ch, size) {
        (TypeChar::Float, 2) => TensorData::F16(npy.into_vec::<f16>().map_err(io_err)?),
        (TypeChar::Float, 4) => TensorData::F32(npy.into_vec::<f32>().map_err(io_err)?),
        (TypeChar::Float, 8) => TensorData::F64(npy.into_vec::<f64>().map_err(io_err)?),
        (TypeChar::Bool, 1) => TensorData::I1(npy.into_vec::<bool>().map_err(io_err)?),
        (TypeChar::Int, 1) => TensorData::I8(npy.into_vec::<i8>().map_err(io_err)?),
        (TypeChar::Int, 2) => TensorData::I16(npy.into_vec::<i16>().map_err(io_err)?),
        (TypeChar::Int, 4) => TensorData::I32(npy.into_vec::<i32>().map_err(io_err)?),
        (TypeChar::Int, 8) => TensorData::I64(npy.into_vec::<i64>().map_err(io_err)?),
        (TypeChar::Uint, 2) => TensorData::BF16(npy.into_vec::<u16>().map_err(io_err)?.into_iter().map(bf16::from_bits).collect()),
        (TypeChar::RawData, 2) => TensorData::BF16(
            npy.into_vec::<Vec<u8>>()
                .map_err(io_err)?
                .into_iter()
                .map(|b| bf16::from_bits(u16::from_le_bytes([b.first().copied().unwrap_or(0), b.get(1).copied().unwrap_or(0)])))
                .collect(),
        ),
        (TypeChar::UnicodeStr, _) | (TypeChar::ByteStr, _) => TensorData::Str(npy.into_vec::<String>().map_err(io_err)?),
        _ => {
            return Err(format!(
                "dtype '{ts}' is not supported (use f2, f4, f8, b1, i1, i2, i4, i8, U, or u2 for bf16 bits)"
            ))
        }
    };
    let t = if order == Order::Fortran && shape.len() > 1 {
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        let perm: Vec<usize> = (0..shape.len()).rev().collect();
        Tensor::new(rev, data)?.transpose(&perm)?
    } else {
        Tensor::new(shape, data)?
    };
    Ok(t)
}

/// The bytes of a `.npy` file holding `t`.
pub fn write_npy_bytes(t: &Tensor) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let shape: Vec<u64> = t.shape.iter().map(|&d| d as u64).collect();
    fn dtype(s: &str) -> Result<DType, String> {
        s.parse::<npyz::TypeStr>().map(DType::Plain).map_err(|e| e.to_string())
    }
    fn put<T: npyz::Serialize>(out: &mut Vec<u8>, dt: DType, shape: &[u64], items: impl IntoIterator<Item = T>) -> Result<(), String> {
        let mut w = npyz::WriteOptions::<T>::new().dtype(dt).shape(shape).writer(&mut *out).begin_nd().map_err(io_err)?;
        w.extend(items).map_err(io_err)?;
        w.finish().map_err(io_err)
    }
    match &t.data {
        TensorData::F16(v) => put(&mut out, dtype("<f2")?, &shape, v.iter().copied())?,
        TensorData::BF16(v) => put(&mut out, dtype("<u2")?, &shape, v.iter().map(|x| x.to_bits()))?,
        TensorData::F32(v) => put(&mut out, dtype("<f4")?, &shape, v.iter().copied())?,
        TensorData::F64(v) => put(&mut out, dtype("<f8")?, &shape, v.iter().copied())?,
        TensorData::I1(v) => put(&mut out, dtype("|b1")?, &shape, v.iter().copied())?,
        TensorData::I8(v) => put(&mut out, dtype("|i1")?, &shape, v.iter().copied())?,
        TensorData::I16(v) => put(&mut out, dtype("<i2")?, &shape, v.iter().copied())?,
        TensorData::I32(v) => put(&mut out, dtype("<i4")?, &shape, v.iter().copied())?,
        TensorData::I64(v) => put(&mut out, dtype("<i8")?, &shape, v.iter().copied())?,
        TensorData::Str(v) => {
            let width = v.iter().map(|s| s.chars().count()).max().unwrap_or(0).max(1);
            let dt = dtype(&format!("<U{width}"))?;
            let mut w = npyz::WriteOptions::<str>::new().dtype(dt).shape(&shape).writer(&mut out).begin_nd().map_err(io_err)?;
            for s in v {
                w.push(s.as_str()).map_err(io_err)?;
            }
            w.finish().map_err(io_err)?;
        }
    }
    Ok(out)
}

/// The element type a `.npy` dtype string reads as (`<f4` -> f32, `<u2` -> bf16), if supported.
pub fn npy_dtype_elem(descr: &str) -> Option<ElemType> {
    let ts: npyz::TypeStr = descr.parse().ok()?;
    Some(match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 2) => ElemType::F16,
        (TypeChar::Float, 4) => ElemType::F32,
        (TypeChar::Float, 8) => ElemType::F64,
        (TypeChar::Bool, 1) => ElemType::I1,
        (TypeChar::Int, 1) => ElemType::I8,
        (TypeChar::Int, 2) => ElemType::I16,
        (TypeChar::Int, 4) => ElemType::I32,
        (TypeChar::Int, 8) => ElemType::I64,
        (TypeChar::Uint, 2) | (TypeChar::RawData, 2) => ElemType::BF16,
        (TypeChar::UnicodeStr, _) | (TypeChar::ByteStr, _) => ElemType::Str,
        _ => return None,
    })
}
