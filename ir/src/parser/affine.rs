//! `affine_map<...>`, `affine_set<...>` and `strided<...>` attributes, parsed as MLIR's
//! `AffineParser` parses them (same grammar, errors and construction-time simplification of
//! expressions: constants folded and moved right, `x * 1`, `x + 0`, `c1 * e + c2 * e`, ...) and
//! kept as the text MLIR prints for them, so that equal maps are equal attributes and print as
//! mlir-opt prints them. The simplification rules follow MLIR's `AffineExpr.cpp`
//! (`simplifyAdd`, `simplifyMul`, `simplifyFloorDiv`, `simplifyCeilDiv`, `simplifyMod`).

use super::{PResult, Parser};
use crate::lexer::Tok;

/// An affine expression (MLIR's `AffineExpr`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expr {
    Dim(u32),
    Sym(u32),
    Const(i64),
    Bin(Kind, Box<Expr>, Box<Expr>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Add,
    Mul,
    FloorDiv,
    CeilDiv,
    Mod,
}

use Expr::*;

fn bin(k: Kind, a: Expr, b: Expr) -> Expr {
    Bin(k, Box::new(a), Box::new(b))
}

impl Expr {
    fn is_symbolic_or_constant(&self) -> bool {
        match self {
            Const(_) | Sym(_) => true,
            Dim(_) => false,
            Bin(_, a, b) => a.is_symbolic_or_constant() && b.is_symbolic_or_constant(),
        }
    }
    fn konst(&self) -> Option<i64> {
        match self {
            Const(c) => Some(*c),
            _ => None,
        }
    }
    fn largest_known_divisor(&self) -> i64 {
        match self {
            Const(c) => c.wrapping_abs(),
            Dim(_) | Sym(_) | Bin(Kind::FloorDiv | Kind::CeilDiv, ..) => 1,
            Bin(Kind::Mul, a, b) => a.largest_known_divisor().wrapping_mul(b.largest_known_divisor()),
            Bin(Kind::Add | Kind::Mod, a, b) => gcd(a.largest_known_divisor(), b.largest_known_divisor()),
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

fn floor_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    }
}

fn modulo(a: i64, b: i64) -> i64 {
    let m = a % b;
    if m < 0 {
        m + b
    } else {
        m
    }
}

// ----------------------------------------------------------------- construction (simplifying)

fn add(l: Expr, r: Expr) -> Expr {
    if let (Some(a), Some(b)) = (l.konst(), r.konst()) {
        return Const(a.wrapping_add(b));
    }
    // Only the RHS is a constant; a symbolic term goes right of a dimensional one.
    if matches!(l, Const(_)) || (l.is_symbolic_or_constant() && !r.is_symbolic_or_constant()) {
        return add(r, l);
    }
    if r.konst() == Some(0) {
        return l;
    }
    // (d0 + 2) + 3 -> d0 + 5
    if let (Bin(Kind::Add, ll, lr), Some(c)) = (&l, r.konst()) {
        if let Some(lc) = lr.konst() {
            return add((**ll).clone(), Const(lc.wrapping_add(c)));
        }
    }
    // c1 * e + c2 * e -> (c1 + c2) * e
    let split = |e: &Expr| -> (i64, Expr) {
        match e {
            Bin(Kind::Mul, a, b) if b.konst().is_some() => (b.konst().unwrap_or(1), (**a).clone()),
            _ => (1, e.clone()),
        }
    };
    let (c1, e1) = split(&l);
    let (c2, e2) = split(&r);
    if e1 == e2 {
        return mul(e1, Const(c1.wrapping_add(c2)));
    }
    // (d0 + 2) + d1 -> (d0 + d1) + 2
    if let Bin(Kind::Add, ll, lr) = &l {
        if let Some(lc) = lr.konst() {
            return add(add((**ll).clone(), r), Const(lc));
        }
    }
    // expr - q * (expr floordiv q) -> expr mod q (MLIR looks at any binary RHS here)
    if let Bin(_, rl, rr) = &r {
        if rr.konst() == Some(-1) {
            if let Bin(Kind::Mul, a, q) = &**rl {
                let Bin(Kind::FloorDiv, e, q2) = &**a else {
                    return bin(Kind::Add, l, r);
                };
                if q == q2 && **e == l {
                    let q = (**q).clone();
                    return modulo_expr(l, q);
                }
            }
        }
        if let Bin(Kind::FloorDiv, e, q) = &**rl {
            if **e == l && **q == mul((**rr).clone(), Const(-1)) {
                let q = (**q).clone();
                return modulo_expr(l, q);
            }
        }
    }
    Bin(Kind::Add, Box::new(l), Box::new(r))
}

fn mul(l: Expr, r: Expr) -> Expr {
    if let (Some(a), Some(b)) = (l.konst(), r.konst()) {
        return Const(a.wrapping_mul(b));
    }
    // the constant/symbolic factor goes right (the parser rejects two non-symbolic factors)
    if !l.is_symbolic_or_constant() && !r.is_symbolic_or_constant() {
        return bin(Kind::Mul, l, r);
    }
    if !r.is_symbolic_or_constant() || matches!(l, Const(_)) {
        return mul(r, l);
    }
    match r.konst() {
        Some(1) => return l,
        Some(0) => return r,
        _ => {}
    }
    if let Bin(Kind::Mul, ll, lr) = &l {
        if let Some(lc) = lr.konst() {
            // (d0 * 2) * 3 -> d0 * 6
            if let Some(c) = r.konst() {
                return mul((**ll).clone(), Const(lc.wrapping_mul(c)));
            }
            // (d0 * 2) * s0 -> (d0 * s0) * 2
            return mul(mul((**ll).clone(), r), Const(lc));
        }
    }
    bin(Kind::Mul, l, r)
}

fn floordiv_expr(l: Expr, r: Expr) -> Expr {
    division_expr(Kind::FloorDiv, l, r, floor_div, |l, c| match l {
        // (a + b) floordiv c -> a floordiv c + b floordiv c when c divides a or b
        Bin(Kind::Add, ll, lr) if ll.largest_known_divisor() % c == 0 || lr.largest_known_divisor() % c == 0 => {
            Some(add(floordiv_expr((**ll).clone(), Const(c)), floordiv_expr((**lr).clone(), Const(c))))
        }
        _ => None,
    })
}

fn ceildiv_expr(l: Expr, r: Expr) -> Expr {
    division_expr(Kind::CeilDiv, l, r, ceil_div, |_, _| None)
}

/// `l kind r` for `floordiv` and `ceildiv` (`fold` on two constants), with the simplifications
/// both have for a constant divisor `c >= 1`: constants fold, `x / 1 = x`, `(x * k) / c = x * (k
/// / c)` when `c` divides `k`; then `more(l, c)`, the rules of one kind.
fn division_expr(
    kind: Kind,
    l: Expr,
    r: Expr,
    fold: fn(i64, i64) -> i64,
    more: impl FnOnce(&Expr, i64) -> Option<Expr>,
) -> Expr {
    let Some(c) = r.konst().filter(|&c| c >= 1) else {
        return bin(kind, l, r);
    };
    if let Some(a) = l.konst() {
        return Const(fold(a, c));
    }
    if c == 1 {
        return l;
    }
    if let Bin(Kind::Mul, ll, lr) = &l {
        if let Some(lc) = lr.konst() {
            if lc % c == 0 {
                return mul((**ll).clone(), Const(lc / c));
            }
        }
    }
    more(&l, c).unwrap_or_else(|| bin(kind, l, r))
}

fn modulo_expr(l: Expr, r: Expr) -> Expr {
    let Some(c) = r.konst().filter(|&c| c >= 1) else {
        return bin(Kind::Mod, l, r);
    };
    if let Some(a) = l.konst() {
        return Const(modulo(a, c));
    }
    if l.largest_known_divisor() % c == 0 {
        return Const(0);
    }
    if let Bin(Kind::Add, ll, lr) = &l {
        if ll.largest_known_divisor() % c == 0 {
            return modulo_expr((**lr).clone(), Const(c));
        }
        if lr.largest_known_divisor() % c == 0 {
            return modulo_expr((**ll).clone(), Const(c));
        }
    }
    if let Bin(Kind::Mod, ll, lr) = &l {
        if let Some(ic) = lr.konst() {
            if ic >= 1 && modulo(ic, c) == 0 {
                return modulo_expr((**ll).clone(), Const(c));
            }
        }
    }
    bin(Kind::Mod, l, r)
}

fn sub(l: Expr, r: Expr) -> Expr {
    add(l, mul(r, Const(-1)))
}

// ----------------------------------------------------------------- printing (MLIR's AsmPrinter)

fn print(e: &Expr, strong: bool, out: &mut String) {
    use std::fmt::Write;
    let (k, l, r) = match e {
        Dim(i) => return write!(out, "d{i}").unwrap_or(()),
        Sym(i) => return write!(out, "s{i}").unwrap_or(()),
        Const(c) => return write!(out, "{c}").unwrap_or(()),
        Bin(k, l, r) => (*k, &**l, &**r),
    };
    if strong {
        out.push('(');
    }
    if k != Kind::Add {
        if k == Kind::Mul && r.konst() == Some(-1) {
            out.push('-');
            print(l, true, out);
        } else {
            print(l, true, out);
            out.push_str(match k {
                Kind::Mul => " * ",
                Kind::FloorDiv => " floordiv ",
                Kind::CeilDiv => " ceildiv ",
                _ => " mod ",
            });
            print(r, true, out);
        }
    } else if let Some((rl, c)) = negative_product(r) {
        print(l, false, out);
        out.push_str(" - ");
        if c == -1 {
            print(rl, matches!(rl, Bin(Kind::Add, ..)), out);
        } else {
            print(rl, true, out);
            let _ = write!(out, " * {}", c.wrapping_neg());
        }
    } else if let Some(c) = r.konst().filter(|&c| c < 0) {
        print(l, false, out);
        let _ = write!(out, " - {}", c.wrapping_neg());
    } else {
        print(l, false, out);
        out.push_str(" + ");
        print(r, false, out);
    }
    if strong {
        out.push(')');
    }
}

/// `e * c` with a constant `c <= -1` (printed as a subtraction): `(e, c)`.
fn negative_product(r: &Expr) -> Option<(&Expr, i64)> {
    match r {
        Bin(Kind::Mul, rl, rr) => rr.konst().filter(|&c| c <= -1).map(|c| (&**rl, c)),
        _ => None,
    }
}

fn print_ids(out: &mut String, prefix: char, n: u32) {
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        out.push(prefix);
        out.push_str(&i.to_string());
    }
}

// ----------------------------------------------------------------- parsing (MLIR's AffineParser)

#[derive(Copy, Clone, PartialEq, Eq)]
enum Low {
    Add,
    Sub,
}

impl<'s> Parser<'s> {
    /// After the keyword: `<` body `>`; returns the canonical text of the whole attribute
    /// (`affine_map<(d0) -> (d0)>`).
    pub(crate) fn parse_affine_keyword(&mut self, kw: &[u8]) -> PResult<String> {
        self.bump();
        match kw {
            b"affine_map" => {
                self.expect(Tok::Less, "expected '<' in affine map")?;
                let body = self.tok.start;
                let (text, is_map) = self.parse_map_or_set()?;
                if !is_map {
                    return Err(self.error_at(body, "expected AffineMap, but got IntegerSet"));
                }
                self.expect(Tok::Greater, "expected '>' in affine map")?;
                Ok(format!("affine_map<{text}>"))
            }
            b"affine_set" => {
                self.expect(Tok::Less, "expected '<' in integer set")?;
                let body = self.tok.start;
                let (text, is_map) = self.parse_map_or_set()?;
                if is_map {
                    return Err(self.error_at(body, "expected IntegerSet, but got AffineMap"));
                }
                self.expect(Tok::Greater, "expected '>' in integer set")?;
                Ok(format!("affine_set<{text}>"))
            }
            _ => self.parse_strided(),
        }
    }

    /// `strided<[s0, s1, ...], offset: o>` with `?` for dynamic values; a zero offset is
    /// not printed.
    fn parse_strided(&mut self) -> PResult<String> {
        self.expect(Tok::Less, "expected '<'")?;
        self.expect(Tok::LSquare, "expected '['")?;
        let mut strides: Vec<String> = Vec::new();
        if !self.eat(Tok::RSquare) {
            loop {
                strides.push(self.strided_value()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RSquare, "expected ']'")?;
        }
        let mut offset = "0".to_string();
        if self.eat(Tok::Comma) {
            if !self.eat_kw("offset") {
                return Err(self.wrong_token("expected 'offset' after comma"));
            }
            self.expect(Tok::Colon, "expected ':'")?;
            offset = self.strided_value()?;
        }
        self.expect(Tok::Greater, "expected '>'")?;
        let mut s = format!("strided<[{}]", strides.join(", "));
        if offset != "0" {
            s.push_str(", offset: ");
            s.push_str(&offset);
        }
        s.push('>');
        Ok(s)
    }

    fn strided_value(&mut self) -> PResult<String> {
        if self.eat(Tok::Question) {
            return Ok("?".into());
        }
        let neg = self.eat(Tok::Minus);
        let t = self.tok;
        let v = match (t.kind, super::attrs::parse_uint(self.text(t))) {
            (Tok::Integer, Some(v)) if v <= i64::MAX as u128 + neg as u128 => v,
            _ => return Err(self.error_here("expected a 64-bit signed integer or '?'")),
        };
        self.bump();
        Ok(if neg { format!("-{v}") } else { v.to_string() })
    }

    /// `dims [syms]? -> (exprs)` or `dims [syms]? : (constraints)`: the canonical text and
    /// whether it was a map.
    fn parse_map_or_set(&mut self) -> PResult<(String, bool)> {
        let mut ids: Vec<(&'s [u8], Expr)> = Vec::new();
        let ndims = self.affine_id_list(
            &mut ids,
            Tok::LParen,
            Tok::RParen,
            " in dimensional identifier list",
            false,
        )?;
        let nsyms = if self.is(Tok::LSquare) {
            self.affine_id_list(&mut ids, Tok::LSquare, Tok::RSquare, " in symbol list", true)?
        } else {
            0
        };
        let mut text = String::from("(");
        print_ids(&mut text, 'd', ndims);
        text.push(')');
        if nsyms > 0 {
            text.push('[');
            print_ids(&mut text, 's', nsyms);
            text.push(']');
        }
        if !self.is(Tok::Arrow) && !self.is(Tok::Colon) {
            return Err(self.wrong_token("expected '->' or ':'"));
        }
        if self.eat(Tok::Arrow) {
            text.push_str(" -> (");
            let mut first = true;
            self.affine_list(" in affine map range", |p| {
                let e = p.affine_expr(&ids)?;
                if !first {
                    text.push_str(", ");
                }
                first = false;
                print(&e, false, &mut text);
                Ok(())
            })?;
            text.push(')');
            return Ok((text, true));
        }
        self.bump();
        text.push_str(" : (");
        let mut n = 0;
        self.affine_list(" in integer set constraint list", |p| {
            let (e, eq) = p.affine_constraint(&ids)?;
            if n > 0 {
                text.push_str(", ");
            }
            n += 1;
            print(&e, false, &mut text);
            text.push_str(if eq { " == 0" } else { " >= 0" });
            Ok(())
        })?;
        if n == 0 {
            text.push_str("0 == 0");
        }
        text.push(')');
        Ok((text, false))
    }

    /// `( elt (, elt)* )` or `()`, with MLIR's `parseCommaSeparatedList` errors.
    fn affine_list(&mut self, ctx: &str, mut elt: impl FnMut(&mut Self) -> PResult<()>) -> PResult<()> {
        if !self.is(Tok::LParen) {
            return Err(self.wrong_token(&format!("expected '('{ctx}")));
        }
        self.bump();
        if self.eat(Tok::RParen) {
            return Ok(());
        }
        loop {
            elt(self)?;
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        if !self.is(Tok::RParen) {
            return Err(self.wrong_token(&format!("expected ')'{ctx}")));
        }
        self.bump();
        Ok(())
    }

    fn affine_id_list(
        &mut self,
        ids: &mut Vec<(&'s [u8], Expr)>,
        open: Tok,
        close: Tok,
        ctx: &str,
        symbols: bool,
    ) -> PResult<u32> {
        let (o, c) = if open == Tok::LParen { ("(", ")") } else { ("[", "]") };
        if !self.is(open) {
            return Err(self.wrong_token(&format!("expected '{o}'{ctx}")));
        }
        self.bump();
        let mut n = 0u32;
        if !self.eat(close) {
            loop {
                if self.tok.kind != Tok::BareId {
                    return Err(self.wrong_token("expected bare identifier"));
                }
                let name = self.text(self.tok);
                if ids.iter().any(|(k, _)| *k == name) {
                    let msg = format!("redefinition of identifier '{}'", String::from_utf8_lossy(name));
                    return Err(self.error_here(msg));
                }
                self.bump();
                ids.push((name, if symbols { Sym(n) } else { Dim(n) }));
                n += 1;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            if !self.is(close) {
                return Err(self.wrong_token(&format!("expected '{c}'{ctx}")));
            }
            self.bump();
        }
        Ok(n)
    }

    fn affine_constraint(&mut self, ids: &[(&'s [u8], Expr)]) -> PResult<(Expr, bool)> {
        let lhs = self.affine_expr(ids)?;
        // `>=`, `<=` and `==` are two tokens each, consumed one at a time as MLIR does (so a
        // lone `>` is consumed before the error).
        if self.eat(Tok::Greater) && self.eat(Tok::Equal) {
            let rhs = self.affine_expr(ids)?;
            return Ok((sub(lhs, rhs), false));
        }
        if self.eat(Tok::Less) && self.eat(Tok::Equal) {
            let rhs = self.affine_expr(ids)?;
            return Ok((sub(rhs, lhs), false));
        }
        if self.eat(Tok::Equal) && self.eat(Tok::Equal) {
            let rhs = self.affine_expr(ids)?;
            return Ok((sub(lhs, rhs), true));
        }
        Err(self.error_here("expected '== affine-expr' or '>= affine-expr' at end of affine constraint"))
    }

    fn affine_expr(&mut self, ids: &[(&'s [u8], Expr)]) -> PResult<Expr> {
        self.enter()?;
        let r = self.low_prec(ids, None);
        self.leave();
        r
    }

    fn low_op(&mut self) -> Option<Low> {
        match self.tok.kind {
            Tok::Plus => {
                self.bump();
                Some(Low::Add)
            }
            Tok::Minus => {
                self.bump();
                Some(Low::Sub)
            }
            _ => None,
        }
    }

    fn high_op(&mut self) -> Option<Kind> {
        let k = match self.tok.kind {
            Tok::Star => Kind::Mul,
            Tok::BareId => match self.text(self.tok) {
                b"floordiv" => Kind::FloorDiv,
                b"ceildiv" => Kind::CeilDiv,
                b"mod" => Kind::Mod,
                _ => return None,
            },
            _ => return None,
        };
        self.bump();
        Some(k)
    }

    fn low_prec(&mut self, ids: &[(&'s [u8], Expr)], llhs: Option<(Expr, Low)>) -> PResult<Expr> {
        let lhs = self.affine_operand(ids, llhs.is_some())?;
        let combine = |l: Option<(Expr, Low)>, r: Expr| match l {
            Some((l, Low::Add)) => add(l, r),
            Some((l, Low::Sub)) => sub(l, r),
            None => r,
        };
        if let Some(op) = self.low_op() {
            let sum = combine(llhs, lhs);
            return self.low_prec(ids, Some((sum, op)));
        }
        let op_off = self.tok.start;
        if let Some(h) = self.high_op() {
            let high = self.high_prec(ids, lhs, h, op_off)?;
            let e = combine(llhs, high);
            if let Some(op) = self.low_op() {
                return self.low_prec(ids, Some((e, op)));
            }
            return Ok(e);
        }
        Ok(combine(llhs, lhs))
    }

    fn high_prec(&mut self, ids: &[(&'s [u8], Expr)], llhs: Expr, op: Kind, op_off: u32) -> PResult<Expr> {
        let lhs = self.affine_operand(ids, true)?;
        let next_off = self.tok.start;
        if let Some(next) = self.high_op() {
            let e = self.high_binary(op, llhs, lhs, op_off)?;
            return self.high_prec(ids, e, next, next_off);
        }
        self.high_binary(op, llhs, lhs, op_off)
    }

    fn high_binary(&mut self, op: Kind, l: Expr, r: Expr, op_off: u32) -> PResult<Expr> {
        let name = match op {
            Kind::Mul => {
                if !l.is_symbolic_or_constant() && !r.is_symbolic_or_constant() {
                    return Err(self.error_at(
                        op_off,
                        "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic",
                    ));
                }
                return Ok(mul(l, r));
            }
            Kind::FloorDiv => "floordiv",
            Kind::CeilDiv => "ceildiv",
            _ => "mod",
        };
        if !r.is_symbolic_or_constant() {
            let msg = format!("non-affine expression: right operand of {name} has to be either a constant or symbolic");
            return Err(self.error_at(op_off, msg));
        }
        Ok(match op {
            Kind::FloorDiv => floordiv_expr(l, r),
            Kind::CeilDiv => ceildiv_expr(l, r),
            _ => modulo_expr(l, r),
        })
    }

    /// An operand: identifier, integer, `( expr )` or `- operand`. `has_lhs` says whether a
    /// binary operator came before (for MLIR's "missing ... operand" wording).
    fn affine_operand(&mut self, ids: &[(&'s [u8], Expr)], has_lhs: bool) -> PResult<Expr> {
        match self.tok.kind {
            Tok::BareId => {
                let name = self.text(self.tok);
                match ids.iter().find(|(k, _)| *k == name) {
                    Some((_, e)) => {
                        let e = e.clone();
                        self.bump();
                        Ok(e)
                    }
                    None => Err(self.wrong_token("use of undeclared identifier")),
                }
            }
            Tok::Integer => {
                let t = self.tok;
                let v = super::attrs::parse_uint(self.text(t)).filter(|&v| v <= i64::MAX as u128);
                let Some(v) = v else {
                    return Err(self.error_here("constant too large for index"));
                };
                self.bump();
                Ok(Const(v as i64))
            }
            Tok::LParen => {
                self.bump();
                if self.is(Tok::RParen) {
                    return Err(self.error_here("no expression inside parentheses"));
                }
                let e = self.affine_expr(ids)?;
                self.expect(Tok::RParen, "expected ')'")?;
                Ok(e)
            }
            Tok::Minus => {
                self.bump();
                self.enter()?;
                let operand = self.affine_operand(ids, has_lhs);
                self.leave();
                match operand {
                    Ok(e) => Ok(mul(Const(-1), e)),
                    Err(d) => Err(d),
                }
            }
            Tok::Plus | Tok::Star => Err(self.error_here(if has_lhs {
                "missing right operand of binary operator"
            } else {
                "missing left operand of binary operator"
            })),
            _ => Err(self.error_here(if has_lhs {
                "missing right operand of binary operator"
            } else {
                "expected affine expression"
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(e: &Expr) -> String {
        let mut s = String::new();
        print(e, false, &mut s);
        s
    }

    /// Expectations printed by mlir-minimal-opt (LLVM 22) for the same expressions.
    #[test]
    fn simplifies_and_prints_as_mlir() {
        let (d0, d1, s0, s1) = (Dim(0), Dim(1), Sym(0), Sym(1));
        assert_eq!(p(&mul(Const(2), d1.clone())), "d1 * 2");
        assert_eq!(p(&sub(d0.clone(), s0.clone())), "d0 - s0");
        assert_eq!(p(&sub(d0.clone(), Const(2))), "d0 - 2");
        assert_eq!(p(&mul(Const(-1), d1.clone())), "-d1");
        assert_eq!(p(&add(d0.clone(), d0.clone())), "d0 * 2");
        assert_eq!(p(&add(Const(3), Const(4))), "7");
        assert_eq!(p(&mul(add(d0.clone(), d1.clone()), Const(2))), "(d0 + d1) * 2");
        assert_eq!(p(&add(d0.clone(), add(d1.clone(), Const(1)))), "d0 + d1 + 1");
        assert_eq!(p(&mul(modulo_expr(d0.clone(), Const(3)), Const(2))), "(d0 mod 3) * 2");
        assert_eq!(p(&mul(Const(-1), add(d0.clone(), d1.clone()))), "-(d0 + d1)");
        assert_eq!(p(&sub(d0.clone(), sub(d1.clone(), Const(1)))), "d0 - (d1 - 1)");
        assert_eq!(
            p(&add(add(s1.clone(), mul(d0.clone(), Const(4))), s0.clone())),
            "d0 * 4 + s1 + s0"
        );
        assert_eq!(p(&sub(Const(2), d0.clone())), "-d0 + 2");
        assert_eq!(
            p(&floordiv_expr(add(d0.clone(), Const(1)), Const(2))),
            "(d0 + 1) floordiv 2"
        );
        assert_eq!(p(&sub(Const(5), d0)), "-d0 + 5");
    }
}
