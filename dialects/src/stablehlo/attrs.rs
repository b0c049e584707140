//! The `stablehlo` attributes JAX's exports use, as StableHLO's own printer writes them:
//! `#stablehlo.dot<lhs_batching_dimensions = [0], ...>`, `#stablehlo.gather<offset_dims = [1],
//! ...>`, `#stablehlo<comparison_direction GT>`, `#stablehlo<comparison_type FLOAT>` and
//! `#stablehlo<precision DEFAULT>`: their parameter checks (the parser calls them) and their
//! values as plain Rust (`DotDims`, `GatherDims`; a direction is the tensor dialect's
//! `Predicate`).

use xcs_ir::opdef::{AttrDef, ParamsError};
use xcs_ir::{Attr, AttrKind, Context};

use crate::tensor::elementwise::Predicate;

/// The attributes the dialect registers (the parser rejects other `#stablehlo` ones).
pub static STABLEHLO_ATTRS: &[AttrDef] = &[
    AttrDef {
        mnemonic: "dot",
        summary: "Dimension numbers of `stablehlo.dot_general`",
        description: "`#stablehlo.dot<lhs_batching_dimensions = [...], rhs_batching_dimensions = [...], \
lhs_contracting_dimensions = [...], rhs_contracting_dimensions = [...]>` (absent lists are empty).",
        params: Some(dot_params),
    },
    AttrDef {
        mnemonic: "gather",
        summary: "Dimension numbers of `stablehlo.gather`",
        description: "`#stablehlo.gather<offset_dims = [...], collapsed_slice_dims = [...], \
operand_batching_dims = [...], start_indices_batching_dims = [...], start_index_map = [...], \
index_vector_dim = N>` (absent lists are empty).",
        params: Some(gather_params),
    },
    AttrDef {
        mnemonic: "comparison_direction",
        summary: "Direction of `stablehlo.compare`",
        description: "`#stablehlo<comparison_direction EQ>`: one of EQ, NE, LT, LE, GT, GE.",
        params: Some(direction_params),
    },
    AttrDef {
        mnemonic: "comparison_type",
        summary: "Comparison type of `stablehlo.compare`",
        description: "`#stablehlo<comparison_type FLOAT>`: one of NOTYPE, FLOAT, TOTALORDER, SIGNED, UNSIGNED.",
        params: Some(compare_type_params),
    },
    AttrDef {
        mnemonic: "precision",
        summary: "Precision of a `stablehlo.dot_general` operand",
        description: "`#stablehlo<precision DEFAULT>`: one of DEFAULT, HIGH, HIGHEST (XCS computes in the \
operands' element type whatever the precision).",
        params: Some(precision_params),
    },
];

const DOT_KEYS: &[&str] =
    &["lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"];
const GATHER_KEYS: &[&str] = &[
    "offset_dims",
    "collapsed_slice_dims",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "start_index_map",
    "index_vector_dim",
];
const DIRECTIONS: &[&str] = &["EQ", "NE", "LT", "LE", "GT", "GE"];
const COMPARE_TYPES: &[&str] = &["NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"];
const PRECISIONS: &[&str] = &["DEFAULT", "HIGH", "HIGHEST"];

/// One `key = [a, b]` or `key = n` entry of a dimension-numbers attribute.
type Entry = (String, Vec<i64>);

/// Parses `<key = [1, 2], key = 3>` into its entries, checking the keys against `keys`.
fn parse_entries(text: &str, keys: &[&str]) -> Result<Vec<Entry>, ParamsError> {
    let err = |message: String, at: usize| ParamsError { message, offset: Some(at) };
    let inner = text
        .trim()
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .ok_or_else(|| err("expected '<' key = value, ... '>'".into(), 0))?;
    let base = text.find('<').map_or(0, |i| i + 1);
    let mut entries: Vec<Entry> = Vec::new();
    let mut rest = inner;
    while !rest.trim().is_empty() {
        let at = base + (inner.len() - rest.len());
        let (key, after) = rest.split_once('=').ok_or_else(|| err("expected 'key = value'".into(), at))?;
        let key = key.trim().trim_start_matches(',').trim();
        if !keys.contains(&key) {
            return Err(err(format!("unknown key '{key}' (expected one of {})", keys.join(", ")), at));
        }
        if entries.iter().any(|(k, _)| k == key) {
            return Err(err(format!("duplicate key '{key}'"), at));
        }
        let after = after.trim_start();
        let (value, tail) = if let Some(list) = after.strip_prefix('[') {
            let (body, tail) = list.split_once(']').ok_or_else(|| err("expected ']'".into(), at))?;
            let vals: Result<Vec<i64>, _> =
                body.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::parse::<i64>).collect();
            (vals.map_err(|_| err(format!("'{key}' expects a list of integers"), at))?, tail)
        } else {
            let end = after.find(',').unwrap_or(after.len());
            let n = after[..end].trim().parse::<i64>().map_err(|_| err(format!("'{key}' expects an integer"), at))?;
            (vec![n], &after[end..])
        };
        entries.push((key.to_string(), value));
        rest = tail.trim_start().strip_prefix(',').unwrap_or(tail.trim_start());
    }
    Ok(entries)
}

fn dot_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    parse_entries(text, DOT_KEYS)?;
    Ok(text.to_string())
}

fn gather_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    let entries = parse_entries(text, GATHER_KEYS)?;
    if !entries.iter().any(|(k, _)| k == "index_vector_dim") {
        return Err(ParamsError { message: "'index_vector_dim' is required".into(), offset: None });
    }
    Ok(text.to_string())
}

/// The check of an enum attribute written `#stablehlo<mnemonic VALUE>`.
fn keyword_params(text: &str, what: &str, allowed: &[&str]) -> Result<String, ParamsError> {
    let kw = text.trim();
    if allowed.contains(&kw) {
        Ok(format!(" {kw}"))
    } else {
        Err(ParamsError {
            message: format!("expected {what} to be one of: {}", allowed.join(", ")),
            offset: Some(text.len() - text.trim_start().len()),
        })
    }
}

fn direction_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    keyword_params(text, "::mlir::stablehlo::ComparisonDirection", DIRECTIONS)
}
fn compare_type_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    keyword_params(text, "::mlir::stablehlo::ComparisonType", COMPARE_TYPES)
}
fn precision_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    keyword_params(text, "::mlir::stablehlo::Precision", PRECISIONS)
}

/// The text of a `#stablehlo` attribute after `prefix` (`stablehlo.dot` or
/// `stablehlo<comparison_direction`).
fn text_after<'c>(ctx: &'c Context, a: Attr, prefix: &str) -> Option<&'c str> {
    match ctx.attr_kind(a) {
        AttrKind::Dialect { text, .. } => text.strip_prefix(prefix),
        _ => None,
    }
}

/// True if `a` is a `#stablehlo.<mnemonic>` (`opaque`: `#stablehlo<mnemonic ...>`) attribute.
pub(super) fn is_attr(ctx: &Context, a: Attr, mnemonic: &str, opaque: bool) -> bool {
    let prefix = if opaque { format!("stablehlo<{mnemonic} ") } else { format!("stablehlo.{mnemonic}<") };
    text_after(ctx, a, &prefix[..prefix.len() - 1]).is_some_and(|t| t.starts_with(&prefix[prefix.len() - 1..]))
}

fn entries_of(ctx: &Context, a: Attr, mnemonic: &str, keys: &[&str]) -> Option<Vec<Entry>> {
    parse_entries(text_after(ctx, a, &format!("stablehlo.{mnemonic}"))?, keys).ok()
}

fn list(entries: &[Entry], key: &str) -> Vec<i64> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap_or_default()
}

/// `#stablehlo.dot<...>` as lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DotDims {
    pub lhs_batch: Vec<i64>,
    pub rhs_batch: Vec<i64>,
    pub lhs_contract: Vec<i64>,
    pub rhs_contract: Vec<i64>,
}

impl DotDims {
    pub fn from_attr(ctx: &Context, a: Attr) -> Option<DotDims> {
        let e = entries_of(ctx, a, "dot", DOT_KEYS)?;
        Some(DotDims {
            lhs_batch: list(&e, DOT_KEYS[0]),
            rhs_batch: list(&e, DOT_KEYS[1]),
            lhs_contract: list(&e, DOT_KEYS[2]),
            rhs_contract: list(&e, DOT_KEYS[3]),
        })
    }
}

/// `#stablehlo.gather<...>` as lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GatherDims {
    pub offset_dims: Vec<i64>,
    pub collapsed_slice_dims: Vec<i64>,
    pub operand_batching_dims: Vec<i64>,
    pub start_indices_batching_dims: Vec<i64>,
    pub start_index_map: Vec<i64>,
    pub index_vector_dim: i64,
}

impl GatherDims {
    pub fn from_attr(ctx: &Context, a: Attr) -> Option<GatherDims> {
        let e = entries_of(ctx, a, "gather", GATHER_KEYS)?;
        Some(GatherDims {
            offset_dims: list(&e, GATHER_KEYS[0]),
            collapsed_slice_dims: list(&e, GATHER_KEYS[1]),
            operand_batching_dims: list(&e, GATHER_KEYS[2]),
            start_indices_batching_dims: list(&e, GATHER_KEYS[3]),
            start_index_map: list(&e, GATHER_KEYS[4]),
            index_vector_dim: *list(&e, GATHER_KEYS[5]).first()?,
        })
    }
}

/// The predicate of a `#stablehlo<comparison_direction ...>` attribute: the tensor dialect's
/// [`Predicate`] (`EQ` is `eq`, ...), which `tensor.cmp` takes as it is.
pub fn comparison_direction(ctx: &Context, a: Attr) -> Option<Predicate> {
    let kw = text_after(ctx, a, "stablehlo<comparison_direction ")?.strip_suffix('>')?;
    DIRECTIONS.contains(&kw).then(|| Predicate::parse(&kw.to_ascii_lowercase())).flatten()
}

/// The comparison type keyword of a `#stablehlo<comparison_type ...>` attribute.
pub fn compare_type(ctx: &Context, a: Attr) -> Option<&str> {
    text_after(ctx, a, "stablehlo<comparison_type ")?.strip_suffix('>')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries() {
        let e = parse_entries("<lhs_batching_dimensions = [0, 1], rhs_contracting_dimensions = [3]>", DOT_KEYS).unwrap();
        assert_eq!(list(&e, "lhs_batching_dimensions"), vec![0, 1]);
        assert_eq!(list(&e, "rhs_contracting_dimensions"), vec![3]);
        assert!(list(&e, "lhs_contracting_dimensions").is_empty());
        let g = parse_entries("<offset_dims = [1], index_vector_dim = 2>", GATHER_KEYS).unwrap();
        assert_eq!(list(&g, "index_vector_dim"), vec![2]);
        assert!(parse_entries("<bogus = [1]>", DOT_KEYS).unwrap_err().message.contains("unknown key 'bogus'"));
        assert!(parse_entries("<offset_dims = [x]>", GATHER_KEYS).is_err());
    }
}
