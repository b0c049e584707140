//! Formula text -> [`Expr`]: the LALRPOP grammar (`grammar.lalrpop`) builds a flat arena of
//! nodes in post-order, which is then folded into canonical expressions without recursion
//! (so no input, however long or deeply nested, can overflow the stack). Errors carry the
//! byte span of the offending text.

use lalrpop_util::ParseError;
use std::cell::RefCell;

use super::{Expr, ExprError};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, dead_code)]
    grammar,
    "/symbolic/grammar.rs"
);

/// One node of a parsed formula; children are indices of earlier nodes.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Node {
    pub kind: NodeKind,
    pub start: usize,
    pub end: usize,
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum NodeKind {
    /// An integer literal (its text is the span).
    Int,
    /// A variable (its text is the span).
    Var,
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    FloorDiv(usize, usize),
    Mod(usize, usize),
    Pow(usize, usize),
    Neg(usize),
}

/// Appends a node to the arena and returns its index (called by the grammar's actions).
pub(crate) fn push(arena: &RefCell<Vec<Node>>, start: usize, end: usize, kind: NodeKind) -> usize {
    let mut a = arena.borrow_mut();
    a.push(Node { kind, start, end });
    a.len() - 1
}

/// The largest exponent `**` accepts (bigger powers would only exceed the term limit).
pub const MAX_EXPONENT: i128 = 256;

/// Parses and canonicalises a formula.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    // The generated parser compiles its lexer's regular expressions when it is built, which
    // cost more than parsing a formula: build it once.
    static PARSER: std::sync::OnceLock<grammar::FormulaParser> = std::sync::OnceLock::new();
    let arena = RefCell::new(Vec::new());
    let root = PARSER
        .get_or_init(grammar::FormulaParser::new)
        .parse(&arena, text)
        .map_err(|e| syntax_error(text, e))?;
    let nodes = arena.into_inner();
    let mut values: Vec<Option<Expr>> = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let span = n.start..n.end;
        let mut take = |j: usize| values[j].take().expect("each formula node is used once");
        let at = |e: ExprError| if e.span.is_none() { e.at(span.clone()) } else { e };
        let v = match n.kind {
            NodeKind::Int => {
                let s = &text[span.clone()];
                match s.parse::<i128>() {
                    Ok(v) => Expr::constant(v),
                    Err(_) => return Err(ExprError::new(format!("integer literal '{s}' is too large")).at(span)),
                }
            }
            NodeKind::Var => Expr::var(&text[span]),
            NodeKind::Add(a, b) => {
                let (a, b) = (take(a), take(b));
                a.add(&b).map_err(at)?
            }
            NodeKind::Sub(a, b) => {
                let (a, b) = (take(a), take(b));
                a.sub(&b).map_err(at)?
            }
            NodeKind::Mul(a, b) => {
                let (a, b) = (take(a), take(b));
                a.mul(&b).map_err(at)?
            }
            NodeKind::FloorDiv(a, b) => {
                let (a, b) = (take(a), take(b));
                a.floordiv(&b).map_err(|e| divisor_error(e, &nodes, n, b_index(n)))?
            }
            NodeKind::Mod(a, b) => {
                let (a, b) = (take(a), take(b));
                a.modulo(&b).map_err(|e| divisor_error(e, &nodes, n, b_index(n)))?
            }
            NodeKind::Pow(a, b) => {
                let (base, exp) = (take(a), take(b));
                let en = &nodes[b];
                let Some(k) = exp.as_constant() else {
                    return Err(ExprError::new("the exponent of '**' must be an integer constant").at(en.start..en.end));
                };
                if !(0..=MAX_EXPONENT).contains(&k) {
                    return Err(ExprError::new(format!(
                        "the exponent of '**' must be between 0 and {MAX_EXPONENT}, got {k}"
                    ))
                    .at(en.start..en.end));
                }
                base.pow(k as u32).map_err(at)?
            }
            NodeKind::Neg(a) => take(a).neg().map_err(at)?,
        };
        values.push(Some(v));
        debug_assert_eq!(values.len(), i + 1);
    }
    Ok(values[root].take().unwrap_or_default())
}

fn b_index(n: &Node) -> usize {
    match n.kind {
        NodeKind::FloorDiv(_, b) | NodeKind::Mod(_, b) => b,
        _ => unreachable!("only divisions have a divisor"),
    }
}

/// Division by zero points at the divisor; other errors at the whole division.
fn divisor_error(e: ExprError, nodes: &[Node], n: &Node, b: usize) -> ExprError {
    if e.span.is_some() {
        return e;
    }
    if e.message.contains("division by zero") {
        e.at(nodes[b].start..nodes[b].end)
    } else {
        e.at(n.start..n.end)
    }
}

fn describe_expected(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .map(|e| {
            if e.contains("[0-9]+") || e == "INT" {
                "an integer".to_string()
            } else if e.contains("A-Za-z_") || e == "IDENT" {
                "a name".to_string()
            } else {
                format!("'{}'", e.trim_matches('"'))
            }
        })
        .collect();
    names.dedup();
    match names.len() {
        0 => String::new(),
        1 => format!(", expected {}", names[0]),
        _ => {
            let last = names.pop().unwrap_or_default();
            format!(", expected {} or {last}", names.join(", "))
        }
    }
}

fn syntax_error(text: &str, e: ParseError<usize, lalrpop_util::lexer::Token<'_>, &'static str>) -> ExprError {
    match e {
        ParseError::InvalidToken { location } => {
            let c = text[location..].chars().next().unwrap_or(' ');
            let msg = if c == '/' {
                "'/' is not supported: use '//' (floor division)".to_string()
            } else if c == '.' {
                "unexpected '.': names are dotted identifiers like 'config.n_embd', numbers are integers".to_string()
            } else {
                format!("unexpected character '{c}'")
            };
            ExprError::new(msg).at(location..location + c.len_utf8())
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let what = if text.trim().is_empty() {
                "empty formula"
            } else {
                "unexpected end of formula"
            };
            ExprError::new(format!("{what}{}", describe_expected(&expected))).at(location..location)
        }
        ParseError::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => ExprError::new(format!("unexpected '{}'{}", t.1, describe_expected(&expected))).at(l..r),
        ParseError::ExtraToken { token: (l, t, r) } => ExprError::new(format!("unexpected '{}'", t.1)).at(l..r),
        ParseError::User { error } => ExprError::new(error),
    }
}

/// The 1-based column (in characters) of byte offset `off` in `text`.
pub fn column(text: &str, off: usize) -> usize {
    let off = off.min(text.len());
    let mut o = off;
    while o > 0 && !text.is_char_boundary(o) {
        o -= 1;
    }
    text[..o].chars().count() + 1
}
