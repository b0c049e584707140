//! Text of runtime values for `xcs.format` and for printing results: tensors print as numpy's
//! `str(array)` does with the default print options (a port of `numpy/_core/arrayprint.py`:
//! `precision=8`, `floatmode='maxprec'`, `linewidth=75`, `threshold=1000`, `edgeitems=3`).
//!
//! Floats use the shortest digits that round-trip in their own type (so an f16 `0.1` prints
//! `0.1`, as numpy's Dragon4 does), at most 8 fraction digits; an array switches to scientific
//! notation when its largest magnitude is `>= 10**min(8, precision of the type)` (1e3 for f16,
//! 1e6 for f32, 1e8 for f64), its smallest non-zero one `< 1e-4`, or their ratio `> 1000`. bf16 (not a numpy type) prints by the same rules with its own shortest digits.
//! In scientific notation all elements get as many digits as the longest needs (up to 8), the
//! extra digits being the exact value's. Rank-0 tensors print as the numpy scalar: `1.0`,
//! `1e-05`, `3`, `True`. Strings are the text
//! itself; string elements of a tensor print as Python `repr`s (`['a' 'b']`); integer scalars of
//! the test dialect print in decimal (`i1` as `true`/`false`); `!xcs.any` prints `<xcs.any>`, a function `@name`.
//! `Display` of [`RtValue`] and [`Tensor`] is this text.

use std::fmt;

use half::{bf16, f16};

use super::value::{bf16_from_f64, f16_from_f64, numel, strides, RtValue, Tensor, TensorData};

const PRECISION: usize = 8;
const LINE_WIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;

/// The text of a value (see the module docs).
pub fn value_string(v: &RtValue) -> String {
    match v {
        RtValue::Tensor(t) => tensor_string(t),
        RtValue::Str(s) => s.clone(),
        RtValue::Scalar(s) if s.width == 1 => (if s.value != 0 { "true" } else { "false" }).to_string(),
        RtValue::Scalar(s) => s.value.to_string(),
        RtValue::Any(_) => "<xcs.any>".to_string(),
        RtValue::Func(f) => format!("@{}", f.symbol),
    }
}

/// numpy's `str(array)`.
pub fn tensor_string(t: &Tensor) -> String {
    if t.shape.is_empty() {
        return scalar_string(&t.data, 0);
    }
    if t.numel() == 0 {
        return "[]".to_string();
    }
    let summarize = t.numel() > THRESHOLD;
    // The elements that are shown decide the format (numpy's `_leading_trailing`).
    let shown = shown_positions(&t.shape, summarize);
    let fmt = ElemFormat::new(&t.data, &shown);
    let st = strides(&t.shape);
    let mut index = Vec::new();
    recurse(t, &st, &fmt, summarize, &mut index, " ", LINE_WIDTH)
}

impl fmt::Display for RtValue {
    /// Values print as `xcs.format` prints them (tensors like numpy's `str()`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&value_string(self))
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&tensor_string(self))
    }
}

/// One element as `str()` of the numpy scalar prints it (no padding).
pub fn element_string(d: &TensorData, i: usize) -> String {
    scalar_string(d, i)
}

// ---------------------------------------------------------------------------- the array layout

fn recurse(
    t: &Tensor,
    st: &[usize],
    fmt: &ElemFormat,
    summarize: bool,
    index: &mut Vec<usize>,
    hanging_indent: &str,
    curr_width: usize,
) -> String {
    let axis = index.len();
    let axes_left = t.rank() - axis;
    if axes_left == 0 {
        let pos: usize = index.iter().zip(st).map(|(i, s)| i * s).sum();
        return fmt.format(&t.data, pos);
    }
    let next_hanging_indent = format!("{hanging_indent} ");
    let next_width = curr_width.saturating_sub(1);
    let a_len = t.shape[axis];
    let show_summary = summarize && 2 * EDGE_ITEMS < a_len;
    let (leading, trailing) = if show_summary { (EDGE_ITEMS, EDGE_ITEMS) } else { (0, a_len) };
    let separator = " ";
    let mut s = String::new();
    let child = |index: &mut Vec<usize>, i: usize| {
        index.push(i);
        let r = recurse(t, st, fmt, summarize, index, &next_hanging_indent, next_width);
        index.pop();
        r
    };
    if axes_left == 1 {
        let elem_width = curr_width.saturating_sub(1); // max(len(separator.rstrip()), len(']'))
        let mut line = hanging_indent.to_string();
        for i in 0..leading {
            let word = child(index, i);
            extend_line(&mut s, &mut line, &word, elem_width, hanging_indent);
            line.push_str(separator);
        }
        if show_summary {
            extend_line(&mut s, &mut line, "...", elem_width, hanging_indent);
            line.push_str(separator);
        }
        for i in (2..=trailing).rev() {
            let word = child(index, a_len - i);
            extend_line(&mut s, &mut line, &word, elem_width, hanging_indent);
            line.push_str(separator);
        }
        let word = child(index, a_len - 1);
        extend_line(&mut s, &mut line, &word, elem_width, hanging_indent);
        s.push_str(&line);
    } else {
        let line_sep = "\n".repeat(axes_left - 1);
        for i in 0..leading {
            let nested = child(index, i);
            s.push_str(hanging_indent);
            s.push_str(&nested);
            s.push_str(&line_sep);
        }
        if show_summary {
            s.push_str(hanging_indent);
            s.push_str("...");
            s.push_str(&line_sep);
        }
        for i in (2..=trailing).rev() {
            let nested = child(index, a_len - i);
            s.push_str(hanging_indent);
            s.push_str(&nested);
            s.push_str(&line_sep);
        }
        let nested = child(index, a_len - 1);
        s.push_str(hanging_indent);
        s.push_str(&nested);
    }
    format!("[{}]", &s[hanging_indent.len()..])
}

/// numpy's `_extendLine`: wraps before `word` if the line would get too long (unless wrapping
/// would not help).
fn extend_line(s: &mut String, line: &mut String, word: &str, line_width: usize, next_line_prefix: &str) {
    let mut needs_wrap = line.chars().count() + word.chars().count() > line_width;
    if line.chars().count() <= next_line_prefix.chars().count() {
        needs_wrap = false;
    }
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = next_line_prefix.to_string();
    }
    line.push_str(word);
}

/// Linear positions of the elements shown (all, or the edge items of each dim when summarizing).
fn shown_positions(shape: &[usize], summarize: bool) -> Vec<usize> {
    let per_dim: Vec<Vec<usize>> = shape
        .iter()
        .map(|&n| {
            if summarize && n > 2 * EDGE_ITEMS {
                (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
            } else {
                (0..n).collect()
            }
        })
        .collect();
    let st = strides(shape);
    let sizes: Vec<usize> = per_dim.iter().map(|v| v.len()).collect();
    let mut out = Vec::with_capacity(numel(&sizes));
    super::value::for_each_index(&sizes, |ix| {
        out.push(ix.iter().enumerate().map(|(d, &i)| per_dim[d][i] * st[d]).sum());
    });
    out
}

// ---------------------------------------------------------------------------- element formats

/// The per-array element format (numpy's `FloatingFormat`, `IntegerFormat`, `BoolFormat`, ...).
enum ElemFormat {
    Float(FloatFormat),
    Int { width: usize },
    Bool,
    Str,
}

impl ElemFormat {
    fn new(d: &TensorData, shown: &[usize]) -> ElemFormat {
        match d {
            TensorData::F16(_) | TensorData::BF16(_) | TensorData::F32(_) | TensorData::F64(_) => {
                ElemFormat::Float(FloatFormat::new(d, shown))
            }
            TensorData::I1(_) => ElemFormat::Bool,
            TensorData::Str(_) => ElemFormat::Str,
            _ => {
                let v = d.to_i64s().unwrap_or_default();
                let width = shown.iter().map(|&i| v[i].to_string().len()).max().unwrap_or(0);
                ElemFormat::Int { width }
            }
        }
    }
    fn format(&self, d: &TensorData, i: usize) -> String {
        match (self, d) {
            (ElemFormat::Float(f), _) => f.format(d, i),
            (ElemFormat::Int { width }, _) => {
                let v = d.to_i64s().map(|v| v[i]).unwrap_or(0);
                format!("{v:>width$}")
            }
            (ElemFormat::Bool, TensorData::I1(v)) => (if v[i] { " True" } else { "False" }).to_string(),
            (ElemFormat::Str, TensorData::Str(v)) => py_repr(&v[i]),
            _ => scalar_string(d, i),
        }
    }
}

/// A float value with its type, for shortest round-trip digits.
#[derive(Copy, Clone)]
enum FloatVal {
    F16(f16),
    BF16(bf16),
    F32(f32),
    F64(f64),
}

impl FloatVal {
    fn at(d: &TensorData, i: usize) -> FloatVal {
        match d {
            TensorData::F16(v) => FloatVal::F16(v[i]),
            TensorData::BF16(v) => FloatVal::BF16(v[i]),
            TensorData::F32(v) => FloatVal::F32(v[i]),
            TensorData::F64(v) => FloatVal::F64(v[i]),
            _ => FloatVal::F64(f64::NAN),
        }
    }
    fn f64(self) -> f64 {
        match self {
            FloatVal::F16(x) => x.to_f64(),
            FloatVal::BF16(x) => x.to_f64(),
            FloatVal::F32(x) => x as f64,
            FloatVal::F64(x) => x,
        }
    }
    /// Shortest decimal digits that read back to the same value in this type: `(digits, exp)`
    /// with value `= 0.d1 d2 ... * 10^(exp+1)`, i.e. `d1.d2... * 10^exp`. Finite, non-zero only.
    fn shortest(self) -> (String, i32) {
        let sci = match self {
            FloatVal::F32(x) => format!("{:e}", x.abs()),
            FloatVal::F64(x) => format!("{:e}", x.abs()),
            FloatVal::F16(_) | FloatVal::BF16(_) => {
                let x = self.f64().abs();
                let mut found = format!("{x:e}");
                for p in 0..17 {
                    let s = format!("{x:.p$e}");
                    let back: f64 = s.parse().unwrap_or(f64::NAN);
                    let same = match self {
                        FloatVal::F16(_) => f16_from_f64(back).to_bits() == f16_from_f64(x).to_bits(),
                        _ => bf16_from_f64(back).to_bits() == bf16_from_f64(x).to_bits(),
                    };
                    if same {
                        found = s;
                        break;
                    }
                }
                found
            }
        };
        let (digits, e) = split_sci(&sci);
        // Of equally short strings that read back, Dragon4 gives the exact value correctly
        // rounded (e.g. f32 20924.3125 -> "20924.312", where Rust's shortest says "...313").
        let x = self.f64().abs();
        let p = digits.len() - 1;
        let rounded = format!("{x:.p$e}");
        let back: f64 = rounded.parse().unwrap_or(f64::NAN);
        let same = match self {
            FloatVal::F32(v) => (back as f32).to_bits() == v.abs().to_bits(),
            FloatVal::F64(v) => back.to_bits() == v.abs().to_bits(),
            _ => false,
        };
        if same {
            return split_sci(&rounded);
        }
        (digits, e)
    }
}

/// Splits Rust's `{:e}` output `d.ddde-5` into (`dddd` without trailing zeros, exponent).
fn split_sci(s: &str) -> (String, i32) {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    (digits, exp.parse().unwrap_or(0))
}

/// Positional digits of `|x|` with at most `precision` fraction digits: (int part, frac part).
fn positional_parts(v: FloatVal, precision: usize) -> (String, String) {
    let x = v.f64().abs();
    if x == 0.0 {
        return ("0".into(), String::new());
    }
    let (digits, e) = v.shortest();
    let frac_needed = digits.len() as i32 - 1 - e;
    if frac_needed > precision as i32 {
        // Too many digits: round the exact value to `precision` fraction digits.
        let s = format!("{x:.precision$}");
        let (i, f) = s.split_once('.').unwrap_or((&s, ""));
        return (i.to_string(), f.trim_end_matches('0').to_string());
    }
    if e >= 0 {
        let e = e as usize;
        let mut int = String::new();
        for k in 0..=e {
            int.push(digits.as_bytes().get(k).map(|&b| b as char).unwrap_or('0'));
        }
        let frac = if digits.len() > e + 1 { digits[e + 1..].to_string() } else { String::new() };
        (int, frac)
    } else {
        ("0".into(), format!("{}{}", "0".repeat((-e - 1) as usize), digits))
    }
}

/// Scientific digits of `|x|` with at most `precision` mantissa fraction digits:
/// (first digit, fraction digits, exponent).
fn scientific_parts(v: FloatVal, precision: usize) -> (String, String, i32) {
    let x = v.f64().abs();
    if x == 0.0 {
        return ("0".into(), String::new(), 0);
    }
    let (digits, e) = v.shortest();
    if digits.len() - 1 > precision {
        let (d, e) = split_sci(&format!("{x:.precision$e}"));
        return (d[..1].to_string(), d[1..].to_string(), e);
    }
    (digits[..1].to_string(), digits[1..].to_string(), e)
}

/// `|x|` rounded to `precision` mantissa fraction digits: (first digit, fraction, exponent).
fn split_exact_sci(x: f64, precision: usize) -> (String, String, i32) {
    let s = format!("{x:.precision$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    (int.to_string(), frac.to_string(), exp.parse().unwrap_or(0))
}

fn exp_string(e: i32, min_digits: usize) -> String {
    let sign = if e < 0 { '-' } else { '+' };
    format!("{sign}{:0>min_digits$}", e.unsigned_abs())
}

/// numpy's `FloatingFormat` for one array (`floatmode='maxprec'`, `sign='-'`).
struct FloatFormat {
    exp_size: Option<usize>,
    precision: usize,
    pad_left: usize,
    pad_right: usize,
}

impl FloatFormat {
    fn new(d: &TensorData, shown: &[usize]) -> FloatFormat {
        let vals: Vec<FloatVal> = shown.iter().map(|&i| FloatVal::at(d, i)).collect();
        let finite: Vec<FloatVal> = vals.iter().copied().filter(|v| v.f64().is_finite()).collect();
        let mut f = FloatFormat { exp_size: None, precision: PRECISION, pad_left: 0, pad_right: 0 };
        if !finite.is_empty() {
            let abs_nz: Vec<f64> = finite.iter().map(|v| v.f64().abs()).filter(|&a| a != 0.0).collect();
            let exp_format = if abs_nz.is_empty() {
                false
            } else {
                let max = abs_nz.iter().cloned().fold(f64::MIN, f64::max);
                let min = abs_nz.iter().cloned().fold(f64::MAX, f64::min);
                max >= exp_cutoff_max(d) || min < 1e-4 || max / min > 1000.0
            };
            if exp_format {
                let parts: Vec<(String, String, i32, bool)> = finite
                    .iter()
                    .map(|&v| {
                        let (i, fr, e) = scientific_parts(v, PRECISION);
                        (i, fr, e, v.f64().is_sign_negative())
                    })
                    .collect();
                let exp_size = parts.iter().map(|p| exp_string(p.2, 2).len()).max().unwrap_or(3) - 1;
                f.exp_size = Some(exp_size);
                f.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
                f.pad_left = parts.iter().map(|p| p.0.len() + p.3 as usize).max().unwrap_or(0);
                f.pad_right = exp_size + 2 + f.precision;
            } else {
                let parts: Vec<(String, String, bool)> = finite
                    .iter()
                    .map(|&v| {
                        let (i, fr) = positional_parts(v, PRECISION);
                        (i, fr, v.f64().is_sign_negative())
                    })
                    .collect();
                f.pad_left = parts.iter().map(|p| p.0.len() + p.2 as usize).max().unwrap_or(0);
                f.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            }
        }
        if finite.len() != vals.len() {
            let neginf = vals.iter().any(|v| v.f64() == f64::NEG_INFINITY) as usize;
            let offset = f.pad_right + 1;
            f.pad_left = f.pad_left.max(3usize.saturating_sub(offset)).max((3 + neginf).saturating_sub(offset));
        }
        f
    }

    fn format(&self, d: &TensorData, i: usize) -> String {
        let v = FloatVal::at(d, i);
        let x = v.f64();
        if !x.is_finite() {
            let s = if x.is_nan() {
                "nan"
            } else if x > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{s:>width$}");
        }
        let sign = if x.is_sign_negative() { "-" } else { "" };
        match self.exp_size {
            Some(exp_size) => {
                // Every element gets exactly `precision` fraction digits; digits past the
                // shortest representation are the exact value's (Dragon4's `min_digits`).
                let (int, frac, e) = split_exact_sci(x.abs(), self.precision);
                let int = format!("{sign}{int}");
                format!("{int:>pl$}.{frac}e{}", exp_string(e, exp_size), pl = self.pad_left)
            }
            None => {
                let (int, frac) = positional_parts(v, self.precision);
                let int = format!("{sign}{int}");
                format!("{int:>pl$}.{frac:<pr$}", pl = self.pad_left, pr = self.pad_right)
            }
        }
    }
}

/// numpy >= 2.3 switches to scientific notation from `10**min(8, finfo(dtype).precision)`:
/// 1e3 for f16, 1e6 for f32, 1e8 for f64 (and 1e2 for bf16, whose `ml_dtypes` precision is 2).
fn exp_cutoff_max(d: &TensorData) -> f64 {
    match d {
        TensorData::F16(_) => 1e3,
        TensorData::BF16(_) => 1e2,
        TensorData::F32(_) => 1e6,
        _ => 1e8,
    }
}

/// `str()` of one element as a numpy scalar.
fn scalar_string(d: &TensorData, i: usize) -> String {
    match d {
        TensorData::I1(v) => (if v[i] { "True" } else { "False" }).to_string(),
        TensorData::Str(v) => v[i].clone(),
        TensorData::F16(_) | TensorData::BF16(_) | TensorData::F32(_) | TensorData::F64(_) => {
            float_scalar_string(FloatVal::at(d, i))
        }
        _ => d.to_i64s().map(|v| v[i].to_string()).unwrap_or_default(),
    }
}

/// numpy's scalar `str` of a float: positional with at least one fraction digit when
/// `1e-4 <= |x| < M` (or zero), else shortest scientific (`1e-05`, `1.5e+20`), where `M` is
/// 1e16 for f64, 1e6 for f32, 1e3 for f16 (numpy 2.4) and 1e2 for bf16. (1100 digits is more
/// than any f64 needs, i.e. no cut-off.)
fn float_scalar_string(v: FloatVal) -> String {
    let x = v.f64();
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let a = x.abs();
    let max_positional = match v {
        FloatVal::F16(_) => 1e3,
        FloatVal::BF16(_) => 1e2,
        FloatVal::F32(_) => 1e6,
        FloatVal::F64(_) => 1e16,
    };
    if a == 0.0 || (1e-4..max_positional).contains(&a) {
        let (int, frac) = positional_parts(v, 1100);
        let frac = if frac.is_empty() { "0".to_string() } else { frac };
        format!("{sign}{int}.{frac}")
    } else {
        let (int, frac, e) = scientific_parts(v, 1100);
        let frac = if frac.is_empty() { String::new() } else { format!(".{frac}") };
        format!("{sign}{int}{frac}e{}", exp_string(e, 2))
    }
}

/// Python's `repr` of a string: single quotes unless the text has `'` and no `"`.
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}
