//! The MLIR token set, lexed with logos over bytes (MLIR strings are byte strings, so the
//! source need not be UTF-8). [`Lexer`] wraps the logos lexer with one token of state, can be
//! restarted at any byte offset (for shaped-type dimension lists such as `4x?xf32`, which MLIR
//! also re-lexes from inside a token), and [`LineIndex`] turns offsets into line:col lazily.

use logos::Logos;

/// Lexical errors; the parser turns them into located diagnostics with MLIR's wording.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LexError {
    #[default]
    UnexpectedChar,
    InvalidSsaName,
    InvalidBlockName,
    InvalidAttrName,
    InvalidTypeName,
    BadAtIdentifier,
    /// The string is not closed on its line (the error points at the line end).
    UnterminatedString,
    /// An escape other than `\\`, `\"`, `\n`, `\t`, `\XX` (points at the backslash).
    UnknownEscape,
    /// `{-#` without a closing `#-}`.
    UnterminatedMetadata,
    /// A `.` that does not start `...` (points after the first dot).
    BadEllipsis,
}

impl LexError {
    /// MLIR's message for this error.
    pub fn message(self) -> &'static str {
        match self {
            LexError::UnexpectedChar => "unexpected character",
            LexError::InvalidSsaName => "invalid SSA name",
            LexError::InvalidBlockName => "invalid block name",
            LexError::InvalidAttrName => "invalid attribute name",
            LexError::InvalidTypeName => "invalid type identifier",
            LexError::BadAtIdentifier => "@ identifier expected to start with letter or '_'",
            LexError::UnterminatedString => "expected '\"' in string literal",
            LexError::UnknownEscape => "unknown escape in string literal",
            LexError::UnterminatedMetadata => "expected '#-}' to end file metadata",
            LexError::BadEllipsis => "expected three consecutive dots for an ellipsis",
        }
    }
}

/// Where the last lexical error happened, when it is not the token start.
#[derive(Default, Clone, Copy, Debug)]
pub struct Extras {
    pub err_pos: Option<usize>,
}

/// Scans a string body after the opening quote (`lex.remainder()` starts right after it).
fn lex_string(lex: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    let rest = lex.remainder();
    let start = lex.span().end;
    let mut i = 0;
    loop {
        // memchr3 finds the next quote, backslash or newline fast.
        match memchr::memchr3(b'"', b'\\', b'\n', &rest[i..]) {
            None => {
                // Like MLIR, the error points at the end of the input... but stay before any
                // vertical tab / form feed / CR that would have ended the line.
                let end = rest.len();
                lex.bump(end);
                lex.extras.err_pos = Some(start + end);
                return Err(LexError::UnterminatedString);
            }
            Some(j) => {
                let k = i + j;
                match rest[k] {
                    b'"' => {
                        lex.bump(k + 1);
                        return Ok(());
                    }
                    b'\n' => {
                        lex.bump(k);
                        lex.extras.err_pos = Some(start + k);
                        return Err(LexError::UnterminatedString);
                    }
                    _ => {
                        // backslash
                        let next = rest.get(k + 1).copied();
                        match next {
                            Some(b'"' | b'\\' | b'n' | b't') => i = k + 2,
                            Some(c)
                                if c.is_ascii_hexdigit() && rest.get(k + 2).is_some_and(|d| d.is_ascii_hexdigit()) =>
                            {
                                i = k + 3
                            }
                            _ => {
                                lex.bump(k + 1);
                                lex.extras.err_pos = Some(start + k);
                                return Err(LexError::UnknownEscape);
                            }
                        }
                    }
                }
            }
        }
    }
}

fn lex_at_string(lex: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    lex_string(lex)
}

fn err_invalidssaname(_: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    Err(LexError::InvalidSsaName)
}
fn err_invalidblockname(_: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    Err(LexError::InvalidBlockName)
}
fn err_invalidattrname(_: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    Err(LexError::InvalidAttrName)
}
fn err_invalidtypename(_: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    Err(LexError::InvalidTypeName)
}
fn err_badatidentifier(lex: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    // MLIR points at the character after the `@`.
    lex.extras.err_pos = Some(lex.span().end);
    Err(LexError::BadAtIdentifier)
}

/// `{-# ... #-}` (file metadata): skipped as one token up to the matching `#-}`.
/// A `.` that is not part of `...` (MLIR's `lexEllipsis` error).
fn lex_lone_dot(lex: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    lex.extras.err_pos = Some(lex.span().end);
    Err(LexError::BadEllipsis)
}

fn lex_metadata(lex: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    let rest = lex.remainder();
    // The end is the first `#-}` outside string literals and comments (MLIR lexes the inside as
    // tokens, so a `"#-}"` string value does not end it).
    let mut i = 0;
    let mut end = None;
    while let Some(k) = memchr::memchr3(b'#', b'"', b'/', &rest[i..]) {
        let at = i + k;
        match rest[at] {
            b'#' if rest[at..].starts_with(b"#-}") => {
                end = Some(at);
                break;
            }
            b'"' => {
                let mut j = at + 1;
                while j < rest.len() && rest[j] != b'"' && rest[j] != b'\n' {
                    j += if rest[j] == b'\\' { 2 } else { 1 };
                }
                i = j + 1;
            }
            b'/' if rest[at..].starts_with(b"//") => {
                i = memchr::memchr(b'\n', &rest[at..]).map_or(rest.len(), |n| at + n + 1);
            }
            _ => i = at + 1,
        }
        if i >= rest.len() {
            break;
        }
    }
    match end {
        Some(k) => {
            lex.bump(k + 3);
            Ok(())
        }
        None => {
            lex.extras.err_pos = Some(lex.span().end + rest.len());
            lex.bump(rest.len());
            Err(LexError::UnterminatedMetadata)
        }
    }
}

/// The tokens of MLIR's textual IR. Identifier tokens include their sigil.
#[derive(Logos, Copy, Clone, Debug, PartialEq, Eq)]
#[logos(utf8 = false)]
#[logos(error = LexError)]
#[logos(extras = Extras)]
#[logos(skip r"[ \t\r\n\x0B\x0C]+")]
#[logos(skip(r"(?-u)//[^\n]*", allow_greedy = true))]
pub enum Tok {
    /// `[a-zA-Z_][a-zA-Z0-9_$.]*`: keywords, op names, type names.
    #[regex(r"[a-zA-Z_][a-zA-Z0-9_$.]*")]
    BareId,
    /// `%name`, `%0`.
    #[regex(r"%([0-9]+|[a-zA-Z$._\-][a-zA-Z0-9$._\-]*)")]
    #[token("%", err_invalidssaname)]
    PercentId,
    /// `^bb0`.
    #[regex(r"\^([0-9]+|[a-zA-Z$._\-][a-zA-Z0-9$._\-]*)")]
    #[token("^", err_invalidblockname)]
    CaretId,
    /// `#alias`, `#dialect.attr`.
    #[regex(r"#([0-9]+|[a-zA-Z$._\-][a-zA-Z0-9$._\-]*)")]
    #[token("#", err_invalidattrname)]
    HashId,
    /// `!alias`, `!dialect.type`.
    #[regex(r"!([0-9]+|[a-zA-Z$._\-][a-zA-Z0-9$._\-]*)")]
    #[token("!", err_invalidtypename)]
    ExclaimId,
    /// `@name` (bare; a quoted `@"name"` is [`Tok::AtString`]).
    #[regex(r"@[a-zA-Z_][a-zA-Z0-9_$.]*")]
    #[token("@", err_badatidentifier)]
    AtId,
    /// `@"quoted name"`.
    #[token("@\"", lex_at_string)]
    AtString,
    /// A decimal or `0x` hexadecimal integer (no sign).
    #[regex(r"[0-9]+")]
    #[regex(r"0x[0-9a-fA-F]+")]
    Integer,
    /// `[0-9]+.[0-9]*([eE][-+]?[0-9]+)?` (no sign).
    #[regex(r"[0-9]+\.[0-9]*([eE][-+]?[0-9]+)?")]
    Float,
    /// A string literal, quotes included.
    #[token("\"", lex_string)]
    String,
    #[token("->")]
    Arrow,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("=")]
    Equal,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LSquare,
    #[token("]")]
    RSquare,
    #[token("<")]
    Less,
    #[token(">")]
    Greater,
    #[token("?")]
    Question,
    #[token("*")]
    Star,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("|")]
    Vertical,
    /// A `/` that does not start a comment: MLIR lexes it as punctuation no rule accepts, so
    /// it is reported as an unexpected token ("expected ..."), not as a lexical error.
    #[token("/")]
    Slash,
    #[token("...")]
    Ellipsis,
    /// Never produced: a lone `.` is a lexical error.
    #[token(".", lex_lone_dot)]
    LoneDot,
    /// `{-# ... #-}` file metadata, consumed whole.
    #[token("{-#", lex_metadata)]
    FileMetadata,
    /// End of input (never produced by logos; added by [`Lexer`]).
    Eof,
    /// A lexical error (see [`Lexer::error`]).
    Error,
}

/// One token: its kind and byte span.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

impl Token {
    #[inline]
    pub fn is(&self, k: Tok) -> bool {
        self.kind == k
    }
    #[inline]
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The lexer: logos over the whole source, restartable at an offset.
#[derive(Clone)]
pub struct Lexer<'s> {
    src: &'s [u8],
    inner: logos::Lexer<'s, Tok>,
    /// The last lexical error and where it is.
    error: Option<(LexError, u32)>,
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `src`. Inputs must be shorter than 4 GiB (offsets are `u32`;
    /// the parser checks).
    pub fn new(src: &'s [u8]) -> Self {
        Lexer { src, inner: Tok::lexer(src), error: None }
    }
    pub fn src(&self) -> &'s [u8] {
        self.src
    }
    /// The next token (at the end, [`Tok::Eof`] forever).
    #[inline]
    pub fn next_token(&mut self) -> Token {
        match self.inner.next() {
            Some(Ok(kind)) => {
                let s = self.inner.span();
                Token { kind, start: s.start as u32, end: s.end as u32 }
            }
            Some(Err(e)) => {
                let s = self.inner.span();
                let pos = self.inner.extras.err_pos.take().unwrap_or(s.start);
                self.error = Some((e, pos as u32));
                Token { kind: Tok::Error, start: s.start as u32, end: s.end as u32 }
            }
            None => {
                let n = self.src.len() as u32;
                Token { kind: Tok::Eof, start: n, end: n }
            }
        }
    }
    /// Continues lexing at byte `offset` (MLIR's `resetPointer`).
    pub fn reset(&mut self, offset: usize) {
        let mut l = Tok::lexer(self.src);
        l.bump(offset.min(self.src.len()));
        self.inner = l;
    }
    /// The last lexical error: its kind and byte offset.
    pub fn error(&self) -> Option<(LexError, u32)> {
        self.error
    }
}

/// Decodes the body of a string literal token (quotes included in `tok`) into bytes,
/// processing `\\`, `\"`, `\n`, `\t` and `\XX`. The lexer has validated the escapes.
pub fn unescape(tok: &[u8], out: &mut Vec<u8>) {
    let body = &tok[1..tok.len().saturating_sub(1).max(1)];
    out.clear();
    let mut i = 0;
    while i < body.len() {
        match memchr::memchr(b'\\', &body[i..]) {
            None => {
                out.extend_from_slice(&body[i..]);
                break;
            }
            Some(j) => {
                out.extend_from_slice(&body[i..i + j]);
                let k = i + j;
                match body.get(k + 1).copied() {
                    Some(b'n') => {
                        out.push(b'\n');
                        i = k + 2;
                    }
                    Some(b't') => {
                        out.push(b'\t');
                        i = k + 2;
                    }
                    Some(c @ (b'\\' | b'"')) => {
                        out.push(c);
                        i = k + 2;
                    }
                    Some(h) => {
                        let l = body.get(k + 2).copied().unwrap_or(b'0');
                        out.push((hex_val(h) << 4) | hex_val(l));
                        i = k + 3;
                    }
                    None => break,
                }
            }
        }
    }
}

#[inline]
pub fn hex_val(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// Offsets to 1-based line:col, computed lazily: queries at increasing offsets count newlines
/// from the last query only (memchr), so a whole-file parse costs one pass over the text.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    off: usize,
    line: u32,
    line_start: usize,
}

impl LineIndex {
    pub fn new() -> Self {
        LineIndex { off: 0, line: 1, line_start: 0 }
    }
    /// The 1-based (line, column in bytes) of `off`.
    pub fn line_col(&mut self, src: &[u8], off: usize) -> (u32, u32) {
        let off = off.min(src.len());
        if off < self.off {
            // Rare (errors, deferred fix-ups): restart from the top.
            *self = LineIndex::new();
        }
        let chunk = &src[self.off..off];
        let n = memchr::memchr_iter(b'\n', chunk).count();
        if n > 0 {
            self.line += n as u32;
            self.line_start = self.off + memchr::memrchr(b'\n', chunk).unwrap_or(0) + 1;
        }
        self.off = off;
        (self.line, (off - self.line_start) as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Tok, String)> {
        let mut l = Lexer::new(s.as_bytes());
        let mut out = Vec::new();
        loop {
            let t = l.next_token();
            if t.kind == Tok::Eof {
                break;
            }
            out.push((t.kind, String::from_utf8_lossy(&s.as_bytes()[t.range()]).into_owned()));
            if t.kind == Tok::Error {
                break;
            }
        }
        out
    }

    #[test]
    fn tokens() {
        use Tok::*;
        let k = kinds("%0 %arg-1.x ^bb0 #map !foo.bar @f @\"a b\" \"s\\\"\" 42 0x1F 1.5e-3 2. -> :: : , = ( ) { } [ ] < > ? * + - | // c\nfoo.bar$x {-# x #-} ...");
        let kinds: Vec<Tok> = k.iter().map(|x| x.0).collect();
        assert_eq!(
            kinds,
            vec![
                PercentId,
                PercentId,
                CaretId,
                HashId,
                ExclaimId,
                AtId,
                AtString,
                String,
                Integer,
                Integer,
                Float,
                Float,
                Arrow,
                Colon, // `::` is two colons
                Colon,
                Colon,
                Comma,
                Equal,
                LParen,
                RParen,
                LBrace,
                RBrace,
                LSquare,
                RSquare,
                Less,
                Greater,
                Question,
                Star,
                Plus,
                Minus,
                Vertical,
                BareId,
                FileMetadata,
                Ellipsis
            ]
        );
        assert_eq!(k[1].1, "%arg-1.x");
        assert_eq!(k[31].1, "foo.bar$x");
    }

    #[test]
    fn dims_and_hex() {
        use Tok::*;
        let k = kinds("4x?xf32 0xf32 1e5");
        let kinds: Vec<Tok> = k.iter().map(|x| x.0).collect();
        assert_eq!(kinds, vec![Integer, BareId, Question, BareId, Integer, Integer, BareId]);
        assert_eq!(k[4].1, "0xf32");
        assert_eq!(k[5].1, "1");
    }

    #[test]
    fn errors() {
        let mut l = Lexer::new(b"\"abc\\q\"");
        assert_eq!(l.next_token().kind, Tok::Error);
        assert_eq!(l.error(), Some((LexError::UnknownEscape, 4)));
        let mut l = Lexer::new(b"\"abc\n\"");
        assert_eq!(l.next_token().kind, Tok::Error);
        assert_eq!(l.error(), Some((LexError::UnterminatedString, 4)));
        let mut l = Lexer::new(b"% $ \xff");
        assert_eq!(l.next_token().kind, Tok::Error);
        assert_eq!(l.error().unwrap().0, LexError::InvalidSsaName);
        assert_eq!(l.next_token().kind, Tok::Error);
        assert_eq!(l.error().unwrap().0, LexError::UnexpectedChar);
        assert_eq!(l.next_token().kind, Tok::Error);
        // comments may hold any bytes
        let mut l = Lexer::new(b"// \xff\xfe\nx");
        assert_eq!(l.next_token().kind, Tok::BareId);
    }

    #[test]
    fn reset_and_unescape() {
        let src = b"4x?xf32";
        let mut l = Lexer::new(src);
        l.reset(2);
        assert_eq!(l.next_token(), Token { kind: Tok::Question, start: 2, end: 3 });
        let mut v = Vec::new();
        unescape(b"\"a\\n\\t\\\\\\\"\\41\\ff\"", &mut v);
        assert_eq!(v, b"a\n\t\\\"A\xff");
    }

    #[test]
    fn line_index() {
        let src = b"ab\ncd\n\nef";
        let mut li = LineIndex::new();
        assert_eq!(li.line_col(src, 0), (1, 1));
        assert_eq!(li.line_col(src, 4), (2, 2));
        assert_eq!(li.line_col(src, 8), (4, 2));
        assert_eq!(li.line_col(src, 1), (1, 2));
    }
}
