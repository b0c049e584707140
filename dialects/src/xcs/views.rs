//! The views an `xcs.launch` binds (`%A[%b, 4*%i:4*%i + 4]`): per tensor operand, one entry
//! per leading dim of the workload tensor, each an index or a range whose offset is an affine
//! expression of the launch's axis operands ([`Affine`]); their encoding in the `views`
//! attribute, their text form, and the element offsets a view covers at one grid point.

use xcs_ir::lexer::Tok;
use xcs_ir::parser::{OpAsmParser, PResult, UnresolvedOperand};
use xcs_ir::{Attr, Context};

/// `constant + sum(coefs[k] * axis_k)`, over the launch's axis operands (in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    pub constant: i64,
    pub coefs: Vec<i64>,
}

impl Affine {
    pub fn constant(c: i64, axes: usize) -> Affine {
        Affine { constant: c, coefs: vec![0; axes] }
    }
    /// The value at grid point `axes` (one value per axis operand).
    pub fn eval(&self, axes: &[i64]) -> i64 {
        self.coefs.iter().zip(axes).fold(self.constant, |s, (&c, &a)| s + c * a)
    }
    /// The smallest and largest value over the grid `0 <= axis_k < extents[k]`.
    pub fn range(&self, extents: &[i64]) -> (i64, i64) {
        let (mut lo, mut hi) = (self.constant, self.constant);
        for (&c, &e) in self.coefs.iter().zip(extents) {
            let last = c * (e - 1).max(0);
            lo += last.min(0);
            hi += last.max(0);
        }
        (lo, hi)
    }
    /// `4*%i + 4` with the axis operands' printed names.
    pub fn to_text(&self, names: &[String]) -> String {
        let mut out = Vec::new();
        self.pieces(&mut out);
        pieces_text(&out, names)
    }
    /// The text as pieces (axis operands apart, for the printer).
    pub fn pieces(&self, out: &mut Vec<Piece>) {
        let mut first = true;
        for (k, &c) in self.coefs.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let sign = match (first, c < 0) {
                (true, true) => "-",
                (true, false) => "",
                (false, true) => " - ",
                (false, false) => " + ",
            };
            let a = c.abs();
            out.push(Piece::Text(if a == 1 { sign.to_string() } else { format!("{sign}{a}*") }));
            out.push(Piece::Axis(k));
            first = false;
        }
        if first {
            out.push(Piece::Text(self.constant.to_string()));
        } else if self.constant != 0 {
            let sign = if self.constant < 0 { " - " } else { " + " };
            out.push(Piece::Text(format!("{sign}{}", self.constant.abs())));
        }
    }
}

/// Text of a view: literal text, or axis operand `k` of the launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Axis(usize),
}

fn pieces_text(pieces: &[Piece], names: &[String]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.as_str(),
            Piece::Axis(k) => names[*k].as_str(),
        })
        .collect()
}

/// One entry of a view, for one dim of the workload tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewDim {
    /// One index: the dim is dropped from the view.
    Index(Affine),
    /// `size` elements from the offset.
    Range(Affine, i64),
    /// The whole dim (`:`, or a trailing dim the view does not mention).
    Whole,
}

/// Encoding in the `views` attribute: per entry `[tag, constant, coefs...]` with `tag` the range
/// size (>= 0), `-1` for an index, `-2` for a whole dim.
const TAG_INDEX: i64 = -1;
const TAG_WHOLE: i64 = -2;

pub fn encode(ctx: &Context, dims: &[ViewDim], axes: usize) -> Attr {
    let mut v = Vec::new();
    for d in dims {
        let (tag, a) = match d {
            ViewDim::Index(a) => (TAG_INDEX, a.clone()),
            ViewDim::Range(a, s) => (*s, a.clone()),
            ViewDim::Whole => (TAG_WHOLE, Affine::constant(0, axes)),
        };
        v.push(tag);
        v.push(a.constant);
        v.extend(&a.coefs);
    }
    ctx.dense_i64_array(&v)
}

/// The entries of a view over `axes` axis operands, from its `views` attribute entry.
pub fn decode(ctx: &Context, a: Attr, axes: usize) -> Result<Vec<ViewDim>, String> {
    let v = ctx.as_i64_array(a).ok_or("each 'views' entry must be an array<i64>")?;
    let w = axes + 2;
    if v.len() % w != 0 {
        return Err(format!(
            "a 'views' entry has {} integers, not a multiple of {w} (size tag, constant and one coefficient per axis operand)",
            v.len()
        ));
    }
    v.chunks(w)
        .map(|c| {
            let a = Affine { constant: c[1], coefs: c[2..].to_vec() };
            match c[0] {
                TAG_INDEX => Ok(ViewDim::Index(a)),
                TAG_WHOLE => Ok(ViewDim::Whole),
                s if s >= 0 => Ok(ViewDim::Range(a, s)),
                s => Err(format!("a 'views' entry has size tag {s}; tags are a size >= 0, -1 (index) or -2 (whole dim)")),
            }
        })
        .collect()
}

/// A view resolved against the workload tensor's shape: per source dim, its offset and its
/// size in the view (`None`: an index, dropped).
#[derive(Clone, Debug)]
pub struct ResolvedView {
    pub dims: Vec<(Affine, Option<i64>)>,
}

impl ResolvedView {
    /// Fills trailing and `:` dims with the whole dim of `shape`.
    pub fn new(entries: &[ViewDim], shape: &[i64], axes: usize) -> Result<ResolvedView, String> {
        if entries.len() > shape.len() {
            return Err(format!("indexes {} dims of a tensor of rank {}", entries.len(), shape.len()));
        }
        let dims = shape
            .iter()
            .enumerate()
            .map(|(d, &n)| match entries.get(d) {
                Some(ViewDim::Index(a)) => (a.clone(), None),
                Some(ViewDim::Range(a, s)) => (a.clone(), Some(*s)),
                Some(ViewDim::Whole) | None => (Affine::constant(0, axes), Some(n)),
            })
            .collect();
        Ok(ResolvedView { dims })
    }
    /// The shape of the view (the sizes of its ranges).
    pub fn shape(&self) -> Vec<i64> {
        self.dims.iter().filter_map(|(_, s)| *s).collect()
    }
    /// Per source dim, the first index and the number of indices at grid point `axes`.
    pub fn boxes(&self, axes: &[i64]) -> Vec<(i64, i64)> {
        self.dims.iter().map(|(a, s)| (a.eval(axes), s.unwrap_or(1))).collect()
    }
    /// The row-major element offsets, in the source tensor of `shape`, of the view's elements
    /// at grid point `axes`, in the view's row-major order.
    pub fn element_offsets(&self, shape: &[i64], axes: &[i64]) -> Vec<usize> {
        let boxes = self.boxes(axes);
        let mut strides = vec![1i64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        let base: i64 = boxes.iter().zip(&strides).map(|(b, s)| b.0 * s).sum();
        let mut out = vec![base as usize];
        for (d, &(_, n)) in boxes.iter().enumerate() {
            if self.dims[d].1.is_none() {
                continue;
            }
            let prev = std::mem::take(&mut out);
            out.reserve(prev.len() * n as usize);
            for p in prev {
                for i in 0..n {
                    out.push((p as i64 + i * strides[d]) as usize);
                }
            }
        }
        out
    }
}

/// Parses `[entry, ...]` after a tensor operand (the `[` already read): an entry is `expr`
/// (an index), `expr : expr` (a range of constant size) or `:` (the whole dim); `expr` is an
/// affine expression of index values and integers. `axes` are the index operands so far (the
/// launch's axis operands first); a value not among them is appended. Coefficient vectors
/// may be shorter than the final number of index operands ([`pad`] them).
pub fn parse_view<'s>(p: &mut OpAsmParser<'_, 's>, axes: &mut Vec<UnresolvedOperand<'s>>) -> PResult<Vec<ViewDim>> {
    let mut dims = Vec::new();
    if p.parse_optional_rsquare() {
        return Ok(dims);
    }
    loop {
        if p.peek(Tok::Colon) {
            p.parse_colon()?;
            dims.push(ViewDim::Whole);
        } else {
            let off = p.offset();
            let lo = parse_affine(p, axes)?;
            if p.parse_optional_colon() {
                let hi = parse_affine(p, axes)?;
                if hi.coefs != lo.coefs || hi.constant < lo.constant {
                    return Err(p.emit_error_at(
                        off,
                        "a view range 'lo:hi' must have a constant, non-negative size hi - lo (the same axis terms on both sides)",
                    ));
                }
                dims.push(ViewDim::Range(lo.clone(), hi.constant - lo.constant));
            } else {
                dims.push(ViewDim::Index(lo));
            }
        }
        if p.parse_optional_rsquare() {
            return Ok(dims);
        }
        p.parse_comma()?;
    }
}

/// `term (('+' | '-') term)*`, a term `n`, `%x`, `n*%x` or `%x*n`, optionally negated.
fn parse_affine<'s>(p: &mut OpAsmParser<'_, 's>, axes: &mut Vec<UnresolvedOperand<'s>>) -> PResult<Affine> {
    let mut a = Affine::constant(0, axes.len());
    let mut sign = if p.parse_optional_token(Tok::Minus) { -1 } else { 1 };
    loop {
        let (coef, axis) = if p.peek(Tok::PercentId) {
            let k = parse_axis(p, axes)?;
            let c = if p.parse_optional_token(Tok::Star) { p.parse_integer()? } else { 1 };
            (c, Some(k))
        } else {
            let c = p.parse_integer()?;
            if p.parse_optional_token(Tok::Star) {
                (c, Some(parse_axis(p, axes)?))
            } else {
                (c, None)
            }
        };
        match axis {
            Some(k) => {
                if a.coefs.len() <= k {
                    a.coefs.resize(k + 1, 0);
                }
                a.coefs[k] += sign * coef
            }
            None => a.constant += sign * coef,
        }
        sign = if p.parse_optional_token(Tok::Plus) {
            1
        } else if p.parse_optional_token(Tok::Minus) {
            -1
        } else {
            return Ok(a);
        };
    }
}

fn parse_axis<'s>(p: &mut OpAsmParser<'_, 's>, axes: &mut Vec<UnresolvedOperand<'s>>) -> PResult<usize> {
    let u = p.parse_operand()?;
    Ok(match axes.iter().position(|a| a.name == u.name && a.number == u.number) {
        Some(k) => k,
        None => {
            axes.push(u);
            axes.len() - 1
        }
    })
}

/// Pads every coefficient vector of `dims` to `n` index operands.
pub fn pad(dims: &mut [ViewDim], n: usize) {
    for d in dims {
        if let ViewDim::Index(a) | ViewDim::Range(a, _) = d {
            a.coefs.resize(n, 0);
        }
    }
}

/// `[%b, 4*%i:4*%i + 4]` as pieces, or nothing for the whole tensor.
pub fn view_pieces(dims: &[ViewDim]) -> Vec<Piece> {
    let mut out = Vec::new();
    if dims.is_empty() {
        return out;
    }
    out.push(Piece::Text("[".into()));
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            out.push(Piece::Text(", ".into()));
        }
        match d {
            ViewDim::Index(a) => a.pieces(&mut out),
            ViewDim::Range(a, s) => {
                a.pieces(&mut out);
                out.push(Piece::Text(":".into()));
                Affine { constant: a.constant + s, coefs: a.coefs.clone() }.pieces(&mut out);
            }
            ViewDim::Whole => out.push(Piece::Text(":".into())),
        }
    }
    out.push(Piece::Text("]".into()));
    out
}

/// The text of a view with the axis operands' names.
pub fn view_text(dims: &[ViewDim], names: &[String]) -> String {
    pieces_text(&view_pieces(dims), names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_text_range_and_offsets() {
        let names = vec!["%b".to_string(), "%i".to_string()];
        let a = Affine { constant: 4, coefs: vec![0, 4] };
        assert_eq!(a.to_text(&names), "4*%i + 4");
        assert_eq!(Affine { constant: -1, coefs: vec![-1, 1] }.to_text(&names), "-%b + %i - 1");
        assert_eq!(Affine::constant(0, 2).to_text(&names), "0");
        assert_eq!(a.range(&[2, 3]), (4, 12));
        let dims = [ViewDim::Index(Affine { constant: 0, coefs: vec![1, 0] }), ViewDim::Whole, ViewDim::Range(a.clone(), 4)];
        assert_eq!(view_text(&dims, &names), "[%b, :, 4*%i + 4:4*%i + 8]");
        assert_eq!(a.eval(&[1, 2]), 12);
        // A[b, 2*i:2*i+2] of a 2x3x4 tensor: shape [2, 4] (the trailing dim is whole).
        let v = ResolvedView::new(
            &[ViewDim::Index(Affine { constant: 0, coefs: vec![1, 0] }), ViewDim::Range(Affine { constant: 0, coefs: vec![0, 1] }, 2)],
            &[2, 3, 4],
            2,
        )
        .unwrap();
        assert_eq!(v.shape(), [2, 4]);
        assert_eq!(v.element_offsets(&[2, 3, 4], &[1, 1]), [16, 17, 18, 19, 20, 21, 22, 23]);
        assert!(ResolvedView::new(&vec![ViewDim::Whole; 4], &[2, 3, 4], 2).is_err());
    }
}
