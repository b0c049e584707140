//! `xcs.format` templates: `{}` takes the next operand, `{N}` operand N, `{{` and `}}` are
//! literal braces. Parsed once by the verifier (which reports bad templates) and again when the
//! op runs.

/// The pieces of a format template: literal text and argument references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Arg(usize),
}

/// Parses a format template for `n` arguments.
pub fn parse_template(t: &str, n: usize) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut next = 0usize;
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut idx = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(d) if d.is_ascii_digit() => idx.push(d),
                        Some(d) => return Err(format!("format template has an invalid placeholder character '{d}'")),
                        None => return Err("format template has an unclosed '{'".into()),
                    }
                }
                let i = if idx.is_empty() {
                    next += 1;
                    next - 1
                } else {
                    idx.parse::<usize>()
                        .map_err(|_| "format template index is too large".to_string())?
                };
                if i >= n {
                    return Err(format!(
                        "format template refers to argument {i}, but the op has {n} operands"
                    ));
                }
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Arg(i));
            }
            '}' => return Err("format template has an unmatched '}'".into()),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        assert_eq!(
            parse_template("a {} b {0} {{x}}", 1).unwrap(),
            vec![
                Piece::Text("a ".into()),
                Piece::Arg(0),
                Piece::Text(" b ".into()),
                Piece::Arg(0),
                Piece::Text(" {x}".into())
            ]
        );
        assert!(parse_template("{} {}", 1).unwrap_err().contains("refers to argument 1"));
        assert!(parse_template("{", 1).is_err());
        assert!(parse_template("}", 1).is_err());
    }
}
