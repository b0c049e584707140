//! The attributes of the `shard` dialect, as MLIR 22 writes them: the split axes of a sharding
//! (`#shard<axisarray[[0], []]>`, written `split_axes = [[0], []]` in `shard.sharding`), the
//! reduction of a collective (`#shard<partial max>`, written `reduction = max`) and grid axis
//! lists (`array<i16: 0, 1>`, written `grid_axes = [0, 1]`): their canonical text, and
//! conversions between the attributes and plain Rust values.

use xcs_ir::opdef::ParamsError;
use xcs_ir::{Attr, AttrKind, Context};

/// How a collective combines the values of a device group (MLIR's `shard::ReductionKind`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReductionKind {
    Sum,
    Max,
    Min,
    Product,
    /// Arithmetic mean.
    Average,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    Generic,
}

impl ReductionKind {
    /// Every kind, in MLIR's order (the order its parse error lists them in).
    pub const ALL: [ReductionKind; 9] = [
        ReductionKind::Sum,
        ReductionKind::Max,
        ReductionKind::Min,
        ReductionKind::Product,
        ReductionKind::Average,
        ReductionKind::BitwiseAnd,
        ReductionKind::BitwiseOr,
        ReductionKind::BitwiseXor,
        ReductionKind::Generic,
    ];

    /// The keyword (`sum`, `max`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            ReductionKind::Sum => "sum",
            ReductionKind::Max => "max",
            ReductionKind::Min => "min",
            ReductionKind::Product => "product",
            ReductionKind::Average => "average",
            ReductionKind::BitwiseAnd => "bitwise_and",
            ReductionKind::BitwiseOr => "bitwise_or",
            ReductionKind::BitwiseXor => "bitwise_xor",
            ReductionKind::Generic => "generic",
        }
    }

    pub fn from_keyword(s: &str) -> Option<ReductionKind> {
        Self::ALL.into_iter().find(|k| k.keyword() == s)
    }

    /// The keywords, as MLIR's parse error lists them (`sum, max, min, ...`).
    pub fn keyword_list() -> String {
        Self::ALL.map(|k| k.keyword()).join(", ")
    }

    /// `#shard<partial max>`.
    pub fn attr(self, ctx: &Context) -> Attr {
        dialect_attr(ctx, format!("shard<partial {}>", self.keyword()))
    }

    /// The kind of a `#shard<partial ...>` attribute.
    pub fn from_attr(ctx: &Context, a: Attr) -> Option<ReductionKind> {
        let text = dialect_text(ctx, a)?;
        let kw = text.strip_prefix("shard<partial ")?.strip_suffix('>')?;
        Self::from_keyword(kw)
    }
}

fn dialect_attr(ctx: &Context, text: String) -> Attr {
    ctx.attr(AttrKind::Dialect { dialect: ctx.ident("shard"), text: text.into() })
}

fn dialect_text(ctx: &Context, a: Attr) -> Option<&str> {
    match ctx.attr_kind(a) {
        AttrKind::Dialect { text, .. } => Some(text),
        _ => None,
    }
}

// ---------------------------------------------------------------------------- split axes

/// The split axes of a sharding: for each tensor dim (leading ones; missing trailing dims are
/// not split), the grid axes it is split along, in order.
pub type SplitAxes = Vec<Vec<i64>>;

/// `#shard<axisarray[[0], []]>` for `axes`.
pub fn split_axes_attr(ctx: &Context, axes: &[Vec<i64>]) -> Attr {
    dialect_attr(ctx, format!("shard<axisarray{}>", split_axes_text(axes)))
}

/// The axes of a `#shard<axisarray ...>` attribute.
pub fn split_axes_of(ctx: &Context, a: Attr) -> Option<SplitAxes> {
    let text = dialect_text(ctx, a)?;
    let body = text.strip_prefix("shard<axisarray")?.strip_suffix('>')?;
    parse_axis_lists(body).ok()
}

/// `[[0], [1, 2], []]`.
pub fn split_axes_text(axes: &[Vec<i64>]) -> String {
    let inner: Vec<String> = axes.iter().map(|a| int_list_text(a)).collect();
    format!("[{}]", inner.join(", "))
}

/// `[1, 2]`.
pub fn int_list_text(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Parses `[[0], [1, 2], []]` (at least one inner list; whitespace anywhere), each value an
/// `i16` as MLIR's grid axes are.
pub fn parse_axis_lists(text: &str) -> Result<SplitAxes, ParamsError> {
    let mut s = Scanner { text: text.as_bytes(), pos: 0 };
    s.expect(b'[')?;
    let mut out = Vec::new();
    loop {
        s.expect(b'[')?;
        let mut inner = Vec::new();
        if !s.eat(b']') {
            loop {
                inner.push(s.integer_i16()?);
                if s.eat(b']') {
                    break;
                }
                s.expect(b',')?;
            }
        }
        out.push(inner);
        if s.eat(b']') {
            break;
        }
        s.expect(b',')?;
    }
    s.skip_blanks();
    if s.pos != s.text.len() {
        return Err(s.error("expected '>'"));
    }
    Ok(out)
}

/// The parameter hook of `#shard<axisarray ...>`: canonical `[[0], []]`.
pub(crate) fn axisarray_params(_ctx: &Context, text: &str) -> Result<String, ParamsError> {
    parse_axis_lists(text).map(|axes| split_axes_text(&axes))
}

/// The parameter hook of `#shard<partial ...>`: canonical ` max` (one space, as MLIR prints it).
pub(crate) fn partial_params(_ctx: &Context, text: &str) -> Result<String, ParamsError> {
    let kw = text.trim();
    match ReductionKind::from_keyword(kw) {
        Some(k) => Ok(format!(" {}", k.keyword())),
        None => Err(ParamsError {
            message: format!(
                "expected ::mlir::shard::ReductionKind to be one of: {}",
                ReductionKind::keyword_list()
            ),
            offset: Some(text.len() - text.trim_start().len()),
        }),
    }
}

/// A byte cursor over attribute parameter text, with errors at byte offsets.
struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn skip_blanks(&mut self) {
        while self.pos < self.text.len() && self.text[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.skip_blanks();
        if self.text.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), ParamsError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", c as char)))
        }
    }
    fn error(&self, message: &str) -> ParamsError {
        ParamsError { message: message.to_string(), offset: Some(self.pos) }
    }
    fn integer_i16(&mut self) -> Result<i64, ParamsError> {
        self.skip_blanks();
        let start = self.pos;
        if self.text.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let digits = self.text[self.pos..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            self.pos = start;
            return Err(self.error("expected integer value"));
        }
        self.pos += digits;
        let s = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("");
        match s.parse::<i64>() {
            Ok(v) if i16::try_from(v).is_ok() => Ok(v),
            _ => {
                self.pos = start;
                Err(self.error("integer value too large"))
            }
        }
    }
}

// ---------------------------------------------------------------------------- grid axes

/// `array<i16: ...>`: a list of grid axes (`grid_axes`, `axes`).
pub fn grid_axes_attr(ctx: &Context, axes: &[i64]) -> Attr {
    let data: Vec<u8> = axes.iter().flat_map(|&a| (a as i16).to_le_bytes()).collect();
    ctx.attr(AttrKind::DenseArray { elem: ctx.i16_type(), data: data.into() })
}

/// The values of an `array<i16: ...>`.
pub fn grid_axes_of(ctx: &Context, a: Attr) -> Option<Vec<i64>> {
    match ctx.attr_kind(a) {
        AttrKind::DenseArray { elem, .. } if *elem == ctx.i16_type() => {
            ctx.as_dense_ints(a).map(|v| v.into_iter().map(|x| x as i64).collect())
        }
        _ => None,
    }
}

/// `array<i32: ...>` (`operandSegmentSizes`).
pub fn i32_array_attr(ctx: &Context, v: &[i32]) -> Attr {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    ctx.attr(AttrKind::DenseArray { elem: ctx.i32_type(), data: data.into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_lists_parse_with_blanks_and_print_canonically() {
        assert_eq!(parse_axis_lists(" [ [ 0 ,1 ] , [ ] ] ").unwrap(), vec![vec![0, 1], vec![]]);
        assert_eq!(split_axes_text(&[vec![0, 1], vec![]]), "[[0, 1], []]");
        assert_eq!(parse_axis_lists("[]").unwrap_err().message, "expected '['");
        assert_eq!(parse_axis_lists("[[70000]]").unwrap_err().message, "integer value too large");
        assert_eq!(parse_axis_lists("[[a]]").unwrap_err().offset, Some(2));
        assert_eq!(parse_axis_lists("<[[0]]>").unwrap_err().message, "expected '['");
    }

    #[test]
    fn reduction_kinds_round_trip_through_their_attribute() {
        let ctx = Context::new();
        for k in ReductionKind::ALL {
            assert_eq!(ReductionKind::from_attr(&ctx, k.attr(&ctx)), Some(k));
        }
        assert_eq!(partial_params(&ctx, "  max").unwrap(), " max");
        assert!(partial_params(&ctx, " bogus").is_err());
    }
}
