//! Symbolic integer expressions for cost formulas (`2*K*M*N + M*N`, `config.n_embd//config.n_head`)
//! in one canonical form, so that equal costs print equal. An [`Expr`] is a polynomial with
//! integer coefficients over *atoms*: variables (dotted names like `config.n_embd` included) and
//! the non-polynomial subterms `a//b` (floor division) and `a%b` (Python's modulo, the sign of
//! the divisor), whose own arguments are canonical.
//!
//! Canonical form:
//! - fully expanded, like terms combined, no zero coefficients;
//! - terms ordered by total degree (highest first), then lexicographically by their atoms
//!   (variables by name, ASCII order; then `//` atoms, then `%` atoms), the constant last;
//!   within a term the atoms are in the same order, powers print as `x**2`;
//! - `//` and `%`: constants fold with floor semantics; `x//1 = x`, `x%1 = 0`; a negative leading
//!   divisor coefficient is moved to the numerator; the numerator is reduced by the divisor
//!   (multivariate division by its leading term with integer quotients, `a = q*d + r`, so
//!   `a//d = q + r//d`: `(2*x + 3)//2` is `x + 1`, `(x*y + 2*y + 1)//y` is `x + 1//y + 2`), and
//!   the common integer and monomial factors of what remains are cancelled (`(2*x)//(4*y)` is
//!   `x//(2*y)`, `(2*x)%4` is `2*(x%2)`).
//!
//! Equal polynomials always print equal. With `//` and `%` the rewriting is sound (it assumes
//! only that divisors are non-zero where the formula is evaluated) but not complete: some
//! equal expressions keep different forms (`x//2 + (x + 1)//2` is `x` for every integer `x`,
//! yet stays as written). Printing re-parses to the same form: `parse(e.to_string()) == e`.
//!
//! Limits that keep every input safe: at most [`MAX_TERMS`] terms, atoms nested at most
//! [`MAX_NESTING`] deep, exponents up to [`MAX_EXPONENT`], coefficients in `i128` (overflow is an
//! error, never a wrap or a panic).

mod parse;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::{Bound, Range};
use std::str::FromStr;
use std::sync::Arc;

pub use parse::{column, parse, MAX_EXPONENT};

/// The most terms an expression may have (beyond it, operations fail with "too large").
pub const MAX_TERMS: usize = 10_000;
/// The deepest nesting of `//` and `%` atoms inside each other.
pub const MAX_NESTING: usize = 32;

/// Implicit variables every cost formula may use besides its kernel's parameters.
pub const IMPLICIT_VARS: [&str; 4] = ["batch_size", "seq_len", "cache_len", "bytes"];

/// True for the implicit variables (`batch_size`, `seq_len`, `cache_len`, `bytes`) and for any
/// `config.xxx` field.
pub fn is_implicit_var(name: &str) -> bool {
    IMPLICIT_VARS.contains(&name) || name.strip_prefix("config.").is_some_and(|f| !f.is_empty())
}

// ------------------------------------------------------------------------------ errors

/// An error of parsing or of an operation, with the byte span in the formula when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    pub message: String,
    /// Byte offsets into the formula text.
    pub span: Option<Range<usize>>,
}

impl ExprError {
    pub fn new(message: impl Into<String>) -> Self {
        ExprError {
            message: message.into(),
            span: None,
        }
    }
    /// The same error located at `span`.
    pub fn at(mut self, span: Range<usize>) -> Self {
        self.span = Some(span);
        self
    }
    /// The 1-based column (in characters) of the error in `text`, the formula it came from.
    pub fn column(&self, text: &str) -> Option<usize> {
        self.span.as_ref().map(|s| column(text, s.start))
    }
    /// `message (at column N)` for the formula `text`.
    pub fn describe(&self, text: &str) -> String {
        match self.column(text) {
            Some(c) => format!("{} (at column {c})", self.message),
            None => self.message.clone(),
        }
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExprError {}

fn overflow() -> ExprError {
    ExprError::new("integer overflow in formula")
}
fn too_large() -> ExprError {
    ExprError::new(format!("formula too large (more than {MAX_TERMS} terms when expanded)"))
}
fn division_by_zero() -> ExprError {
    ExprError::new("division by zero")
}

// ------------------------------------------------------------------------------ data

/// A factor of a term: a variable or a floor-division / modulo subterm.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Atom {
    Var(Arc<str>),
    /// `num // den` (floor division); `den` is non-constant or the pair does not fold.
    FloorDiv(Box<Expr>, Box<Expr>),
    /// `num % den` (the result has the sign of `den`, as in Python).
    Mod(Box<Expr>, Box<Expr>),
}

/// A product of atoms with positive exponents, sorted by atom; empty for the constant term.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Monomial(Vec<(Atom, u32)>);

/// A canonical symbolic integer expression. See the module docs.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Expr {
    /// Sorted by [`Monomial`]'s order, coefficients non-zero.
    terms: Vec<(Monomial, i128)>,
}

impl Monomial {
    /// The factors with their exponents.
    pub fn factors(&self) -> &[(Atom, u32)] {
        &self.0
    }
    pub fn is_one(&self) -> bool {
        self.0.is_empty()
    }
    pub fn degree(&self) -> u64 {
        self.0.iter().map(|&(_, e)| e as u64).sum()
    }
    fn atom(a: Atom) -> Monomial {
        Monomial(vec![(a, 1)])
    }
    fn mul(&self, o: &Monomial) -> Result<Monomial, ExprError> {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::with_capacity(self.0.len() + o.0.len());
        while i < self.0.len() || j < o.0.len() {
            match (self.0.get(i), o.0.get(j)) {
                (Some(a), Some(b)) if a.0 == b.0 => {
                    out.push((a.0.clone(), a.1.checked_add(b.1).ok_or_else(overflow)?));
                    i += 1;
                    j += 1;
                }
                (Some(a), Some(b)) if a.0 < b.0 => {
                    out.push(a.clone());
                    i += 1;
                }
                (Some(_), Some(b)) | (None, Some(b)) => {
                    out.push(b.clone());
                    j += 1;
                }
                (Some(a), None) => {
                    out.push(a.clone());
                    i += 1;
                }
                (None, None) => break,
            }
        }
        Ok(Monomial(out))
    }
    /// True if `self` divides `o`.
    fn divides(&self, o: &Monomial) -> bool {
        self.0.iter().all(|(a, e)| o.0.iter().any(|(b, f)| a == b && f >= e))
    }
    /// `o / self`, assuming `self` divides `o`.
    fn quotient_of(&self, o: &Monomial) -> Monomial {
        let mut out = Vec::with_capacity(o.0.len());
        for (b, f) in &o.0 {
            let e = self.0.iter().find(|(a, _)| a == b).map_or(0, |&(_, e)| e);
            if *f > e {
                out.push((b.clone(), f - e));
            }
        }
        Monomial(out)
    }
    fn gcd(&self, o: &Monomial) -> Monomial {
        let mut out = Vec::new();
        for (a, e) in &self.0 {
            if let Some((_, f)) = o.0.iter().find(|(b, _)| a == b) {
                out.push((a.clone(), (*e).min(*f)));
            }
        }
        Monomial(out)
    }
}

/// Graded lexicographic order: higher total degree first; then, factor by factor, the smaller
/// atom first and, for the same atom, the higher exponent first. It is a monomial order
/// (compatible with multiplication, well-founded), which the division of `//` relies on.
impl Ord for Monomial {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.degree().cmp(&self.degree()).then_with(|| {
            for (a, b) in self.0.iter().zip(o.0.iter()) {
                let c = a.0.cmp(&b.0).then(b.1.cmp(&a.1));
                if c.is_ne() {
                    return c;
                }
            }
            self.0.len().cmp(&o.0.len())
        })
    }
}
impl PartialOrd for Monomial {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Python's `a // b` (`b != 0`), `None` on overflow.
fn floor_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}
/// Python's `a % b` (`b != 0`): the sign of `b`.
fn floor_mod(a: i128, b: i128) -> Option<i128> {
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        Some(r + b)
    } else {
        Some(r)
    }
}

type TermMap = BTreeMap<Monomial, i128>;

fn add_term(m: &mut TermMap, mono: Monomial, c: i128) -> Result<(), ExprError> {
    if c == 0 {
        return Ok(());
    }
    match m.entry(mono) {
        std::collections::btree_map::Entry::Vacant(v) => {
            v.insert(c);
        }
        std::collections::btree_map::Entry::Occupied(mut o) => {
            let s = o.get().checked_add(c).ok_or_else(overflow)?;
            if s == 0 {
                o.remove();
            } else {
                *o.get_mut() = s;
            }
        }
    }
    if m.len() > MAX_TERMS {
        return Err(too_large());
    }
    Ok(())
}

// ------------------------------------------------------------------------------ construction

impl Expr {
    /// The constant `v`.
    pub fn constant(v: i128) -> Expr {
        if v == 0 {
            Expr::default()
        } else {
            Expr {
                terms: vec![(Monomial::default(), v)],
            }
        }
    }
    pub fn zero() -> Expr {
        Expr::default()
    }
    pub fn one() -> Expr {
        Expr::constant(1)
    }
    /// The variable `name` (any text; the parser only produces dotted identifiers).
    pub fn var(name: &str) -> Expr {
        Expr::from_atom(Atom::Var(name.into()))
    }
    fn from_atom(a: Atom) -> Expr {
        Expr {
            terms: vec![(Monomial::atom(a), 1)],
        }
    }
    fn from_map(m: TermMap) -> Expr {
        Expr {
            terms: m.into_iter().filter(|&(_, c)| c != 0).collect(),
        }
    }
    fn to_map(&self) -> TermMap {
        self.terms.iter().cloned().collect()
    }

    // ---- queries
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }
    /// The value if the expression is a constant.
    pub fn as_constant(&self) -> Option<i128> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(m, c)] if m.is_one() => Some(*c),
            _ => None,
        }
    }
    /// The variable name if the expression is exactly one variable.
    pub fn as_var(&self) -> Option<&str> {
        match self.terms.as_slice() {
            [(m, 1)] => match m.0.as_slice() {
                [(Atom::Var(v), 1)] => Some(v),
                _ => None,
            },
            _ => None,
        }
    }
    /// The terms: monomial and non-zero coefficient, in canonical order.
    pub fn terms(&self) -> &[(Monomial, i128)] {
        &self.terms
    }
    pub fn num_terms(&self) -> usize {
        self.terms.len()
    }
    /// Every variable in the expression, including those inside `//` and `%`.
    pub fn free_vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }
    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        for (m, _) in &self.terms {
            for (a, _) in &m.0 {
                match a {
                    Atom::Var(v) => {
                        out.insert(v.to_string());
                    }
                    Atom::FloorDiv(n, d) | Atom::Mod(n, d) => {
                        n.collect_vars(out);
                        d.collect_vars(out);
                    }
                }
            }
        }
    }
    /// How deeply `//` and `%` atoms nest (0 for a polynomial in variables).
    pub fn nesting(&self) -> usize {
        self.terms
            .iter()
            .flat_map(|(m, _)| m.0.iter())
            .map(|(a, _)| match a {
                Atom::Var(_) => 0,
                Atom::FloorDiv(n, d) | Atom::Mod(n, d) => 1 + n.nesting().max(d.nesting()),
            })
            .max()
            .unwrap_or(0)
    }
    /// The coefficient and monomial of the leading term (`None` for zero).
    fn leading(&self) -> Option<(&Monomial, i128)> {
        self.terms.first().map(|(m, c)| (m, *c))
    }

    // ---- arithmetic
    pub fn add(&self, o: &Expr) -> Result<Expr, ExprError> {
        if o.is_zero() {
            return Ok(self.clone());
        }
        if self.is_zero() {
            return Ok(o.clone());
        }
        let mut m = self.to_map();
        for (mono, c) in &o.terms {
            add_term(&mut m, mono.clone(), *c)?;
        }
        Ok(Expr::from_map(m))
    }
    pub fn sub(&self, o: &Expr) -> Result<Expr, ExprError> {
        self.add(&o.neg()?)
    }
    pub fn neg(&self) -> Result<Expr, ExprError> {
        self.scale(-1)
    }
    /// `k * self`.
    pub fn scale(&self, k: i128) -> Result<Expr, ExprError> {
        if k == 0 {
            return Ok(Expr::zero());
        }
        let terms = self
            .terms
            .iter()
            .map(|(m, c)| c.checked_mul(k).map(|c| (m.clone(), c)).ok_or_else(overflow))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Expr { terms })
    }
    pub fn mul(&self, o: &Expr) -> Result<Expr, ExprError> {
        if self.is_zero() || o.is_zero() {
            return Ok(Expr::zero());
        }
        if let Some(k) = self.as_constant() {
            return o.scale(k);
        }
        if let Some(k) = o.as_constant() {
            return self.scale(k);
        }
        if self.terms.len().saturating_mul(o.terms.len()) > MAX_TERMS * 100 {
            return Err(too_large());
        }
        let mut m = TermMap::new();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &o.terms {
                add_term(&mut m, ma.mul(mb)?, ca.checked_mul(*cb).ok_or_else(overflow)?)?;
            }
        }
        Ok(Expr::from_map(m))
    }
    /// `self ** k`.
    pub fn pow(&self, mut k: u32) -> Result<Expr, ExprError> {
        let mut base = self.clone();
        let mut acc = Expr::one();
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(&base)?;
            }
            k >>= 1;
            if k > 0 {
                base = base.mul(&base)?;
            }
        }
        Ok(acc)
    }

    /// Floor division `self // d`. Fails on a zero divisor.
    pub fn floordiv(&self, d: &Expr) -> Result<Expr, ExprError> {
        if d.is_zero() {
            return Err(division_by_zero());
        }
        if let (Some(a), Some(b)) = (self.as_constant(), d.as_constant()) {
            return floor_div(a, b).map(Expr::constant).ok_or_else(overflow);
        }
        match d.as_constant() {
            Some(1) => return Ok(self.clone()),
            Some(-1) => return self.neg(),
            _ => {}
        }
        let (a, d) = if d.leading().is_some_and(|(_, c)| c < 0) {
            (self.neg()?, d.neg()?)
        } else {
            (self.clone(), d.clone())
        };
        let (q, r) = divide(&a, &d)?;
        if r.is_zero() {
            return Ok(q);
        }
        let (r, d, _) = cancel_common(&r, &d)?;
        let rest = match (r.as_constant(), d.as_constant()) {
            (Some(x), Some(y)) => Expr::constant(floor_div(x, y).ok_or_else(overflow)?),
            _ => atom_expr(Atom::FloorDiv(Box::new(r), Box::new(d)))?,
        };
        q.add(&rest)
    }

    /// Modulo `self % d` with Python's sign convention (the sign of `d`). Fails on a zero divisor.
    pub fn modulo(&self, d: &Expr) -> Result<Expr, ExprError> {
        if d.is_zero() {
            return Err(division_by_zero());
        }
        if let (Some(a), Some(b)) = (self.as_constant(), d.as_constant()) {
            return floor_mod(a, b).map(Expr::constant).ok_or_else(overflow);
        }
        if matches!(d.as_constant(), Some(1 | -1)) {
            return Ok(Expr::zero());
        }
        let negate = d.leading().is_some_and(|(_, c)| c < 0);
        let (a, d) = if negate {
            (self.neg()?, d.neg()?)
        } else {
            (self.clone(), d.clone())
        };
        let (_, r) = divide(&a, &d)?;
        if r.is_zero() {
            return Ok(Expr::zero());
        }
        let (r, d, factor) = cancel_common(&r, &d)?;
        let rest = match (r.as_constant(), d.as_constant()) {
            (Some(x), Some(y)) => Expr::constant(floor_mod(x, y).ok_or_else(overflow)?),
            _ => atom_expr(Atom::Mod(Box::new(r), Box::new(d)))?,
        };
        let out = factor.mul(&rest)?;
        if negate {
            out.neg()
        } else {
            Ok(out)
        }
    }

    // ---- substitution and evaluation
    /// Replaces variables: `f(name)` gives the replacement, `None` keeps the variable. The
    /// result is canonical (divisions re-simplify; a divisor that becomes zero is an error).
    pub fn substitute(&self, f: &dyn Fn(&str) -> Option<Expr>) -> Result<Expr, ExprError> {
        let mut out = TermMap::new();
        let mut acc = Expr::zero();
        for (m, c) in &self.terms {
            let mut t = Expr::constant(*c);
            let mut changed = false;
            for (a, e) in &m.0 {
                let s = match a {
                    Atom::Var(v) => match f(v) {
                        Some(x) => {
                            changed = true;
                            x
                        }
                        None => Expr::from_atom(a.clone()),
                    },
                    Atom::FloorDiv(n, d) => {
                        changed = true;
                        n.substitute(f)?.floordiv(&d.substitute(f)?)?
                    }
                    Atom::Mod(n, d) => {
                        changed = true;
                        n.substitute(f)?.modulo(&d.substitute(f)?)?
                    }
                };
                t = t.mul(&s.pow(*e)?)?;
            }
            if changed {
                acc = acc.add(&t)?;
            } else {
                add_term(&mut out, m.clone(), *c)?;
            }
        }
        Expr::from_map(out).add(&acc)
    }

    /// [`Expr::substitute`] from a map of names to expressions.
    pub fn substitute_map(&self, map: &BTreeMap<String, Expr>) -> Result<Expr, ExprError> {
        self.substitute(&|v| map.get(v).cloned())
    }

    /// Substitutes numbers for some variables (`bind=batch_size=1,seq_len=128`) and simplifies.
    pub fn bind(&self, values: &BTreeMap<String, i128>) -> Result<Expr, ExprError> {
        self.substitute(&|v| values.get(v).map(|&x| Expr::constant(x)))
    }

    /// The value with every variable given by `env` (an unbound variable, a zero divisor or an
    /// overflow is an error).
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Result<i128, ExprError> {
        let mut sum: i128 = 0;
        for (m, c) in &self.terms {
            let mut t = *c;
            for (a, e) in &m.0 {
                let v = match a {
                    Atom::Var(name) => env(name).ok_or_else(|| ExprError::new(format!("unbound variable '{name}'")))?,
                    Atom::FloorDiv(n, d) => {
                        let dv = d.eval(env)?;
                        if dv == 0 {
                            return Err(division_by_zero());
                        }
                        floor_div(n.eval(env)?, dv).ok_or_else(overflow)?
                    }
                    Atom::Mod(n, d) => {
                        let dv = d.eval(env)?;
                        if dv == 0 {
                            return Err(division_by_zero());
                        }
                        floor_mod(n.eval(env)?, dv).ok_or_else(overflow)?
                    }
                };
                let p = v.checked_pow(*e).ok_or_else(overflow)?;
                t = t.checked_mul(p).ok_or_else(overflow)?;
            }
            sum = sum.checked_add(t).ok_or_else(overflow)?;
        }
        Ok(sum)
    }

    /// [`Expr::eval`] from a map.
    pub fn eval_map(&self, values: &BTreeMap<String, i128>) -> Result<i128, ExprError> {
        self.eval(&|v| values.get(v).copied())
    }
}

fn atom_expr(a: Atom) -> Result<Expr, ExprError> {
    let e = Expr::from_atom(a);
    if e.nesting() > MAX_NESTING {
        return Err(ExprError::new(format!(
            "'//' and '%' nested more than {MAX_NESTING} levels deep"
        )));
    }
    Ok(e)
}

/// `a = q*d + r` by division by the leading term of `d` (whose coefficient is positive), with
/// integer quotients (`div_euclid`): afterwards every term of `r` divisible by the leading
/// monomial has a coefficient in `[0, lc)`. Terms are processed in order; subtracting a
/// multiple of `d` only touches later terms (the order is a monomial order), so it ends.
fn divide(a: &Expr, d: &Expr) -> Result<(Expr, Expr), ExprError> {
    let Some((lm, lc)) = d.leading() else {
        return Err(division_by_zero());
    };
    debug_assert!(lc > 0);
    let mut r = a.to_map();
    let mut q = TermMap::new();
    let mut cursor: Option<Monomial> = None;
    let mut steps = 0usize;
    loop {
        let next = {
            let range = match &cursor {
                None => r.range::<Monomial, _>(..),
                Some(c) => {
                    r.range::<Monomial, (Bound<&Monomial>, Bound<&Monomial>)>((Bound::Excluded(c), Bound::Unbounded))
                }
            };
            range
                .filter(|(m, c)| lm.divides(m) && c.div_euclid(lc) != 0)
                .map(|(m, c)| (m.clone(), *c))
                .next()
        };
        let Some((m, c)) = next else { break };
        steps += 1;
        if steps > MAX_TERMS * 4 {
            return Err(too_large());
        }
        let k = c.div_euclid(lc);
        let qm = lm.quotient_of(&m);
        add_term(&mut q, qm.clone(), k)?;
        for (dm, dc) in &d.terms {
            let prod = qm.mul(dm)?;
            let coef = dc.checked_mul(k).ok_or_else(overflow)?;
            add_term(&mut r, prod, coef.checked_neg().ok_or_else(overflow)?)?;
        }
        cursor = Some(m);
    }
    Ok((Expr::from_map(q), Expr::from_map(r)))
}

/// Divides `r` and `d` by their common integer factor `g` (positive) and common monomial `v`;
/// returns the reduced pair and `g*v`.
fn cancel_common(r: &Expr, d: &Expr) -> Result<(Expr, Expr, Expr), ExprError> {
    let mut g = 0i128;
    let mut v: Option<Monomial> = None;
    for (m, c) in r.terms.iter().chain(d.terms.iter()) {
        g = gcd(g, *c);
        v = Some(match v {
            None => m.clone(),
            Some(v) => v.gcd(m),
        });
    }
    let v = v.unwrap_or_default();
    if g <= 1 && v.is_one() {
        return Ok((r.clone(), d.clone(), Expr::one()));
    }
    let g = g.max(1);
    let reduce = |e: &Expr| Expr {
        terms: e.terms.iter().map(|(m, c)| (v.quotient_of(m), c / g)).collect(),
    };
    let factor = Expr {
        terms: vec![(v.clone(), g)],
    };
    Ok((reduce(r), reduce(d), factor))
}

// ------------------------------------------------------------------------------ printing

fn write_atom_operand(out: &mut String, e: &Expr, numerator: bool) {
    let simple = match e.as_constant() {
        Some(c) => c >= 0 || numerator,
        None => matches!(e.terms.as_slice(), [(m, 1)] if matches!(m.0.as_slice(), [(Atom::Var(_), _)])),
    };
    if simple {
        e.write(out);
    } else {
        out.push('(');
        e.write(out);
        out.push(')');
    }
}

fn write_atom(out: &mut String, a: &Atom) {
    match a {
        Atom::Var(v) => out.push_str(v),
        Atom::FloorDiv(n, d) | Atom::Mod(n, d) => {
            write_atom_operand(out, n, true);
            out.push_str(if matches!(a, Atom::FloorDiv(..)) { "//" } else { "%" });
            write_atom_operand(out, d, false);
        }
    }
}

impl Expr {
    fn write(&self, out: &mut String) {
        use std::fmt::Write as _;
        if self.terms.is_empty() {
            out.push('0');
            return;
        }
        for (i, (m, c)) in self.terms.iter().enumerate() {
            let neg = *c < 0;
            let mag = c.unsigned_abs();
            if i == 0 {
                if neg {
                    out.push('-');
                }
            } else {
                out.push_str(if neg { " - " } else { " + " });
            }
            if m.is_one() {
                let _ = write!(out, "{mag}");
                continue;
            }
            if mag != 1 {
                let _ = write!(out, "{mag}*");
            }
            let alone = m.0.len() == 1 && mag == 1 && !(i == 0 && neg);
            for (k, (a, e)) in m.0.iter().enumerate() {
                if k > 0 {
                    out.push('*');
                }
                let bare = matches!(a, Atom::Var(_)) || (alone && *e == 1);
                if bare {
                    write_atom(out, a);
                } else {
                    out.push('(');
                    write_atom(out, a);
                    out.push(')');
                }
                if *e > 1 {
                    let _ = write!(out, "**{e}");
                }
            }
        }
    }
}

/// The canonical formula text.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
    }
}

impl FromStr for Expr {
    type Err = ExprError;
    fn from_str(s: &str) -> Result<Expr, ExprError> {
        parse(s)
    }
}

/// The canonical text of a formula, or the error located in it.
pub fn canonicalize(text: &str) -> Result<String, ExprError> {
    parse(text).map(|e| e.to_string())
}

/// Parses numeric bindings `name=value,name=value` (`batch_size=1,seq_len=128`).
pub fn parse_numeric_bindings(text: &str) -> Result<BTreeMap<String, i128>, String> {
    let mut out = BTreeMap::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((k, v)) = item.split_once('=') else {
            return Err(format!("binding '{item}' is not of the form name=value"));
        };
        let (k, v) = (k.trim(), v.trim());
        let valid_name = parse(k).ok().and_then(|e| e.as_var().map(|n| n == k)).unwrap_or(false);
        if !valid_name {
            return Err(format!("binding '{item}': '{k}' is not a variable name"));
        }
        let v: i128 = v
            .parse()
            .map_err(|_| format!("binding '{item}': '{v}' is not an integer"))?;
        if out.insert(k.to_string(), v).is_some() {
            return Err(format!("variable '{k}' is bound twice"));
        }
    }
    Ok(out)
}
