//! The cost-rule interface of `cost-annotate`: what one op costs, given the symbolic shapes of
//! its operands. A rule names the leaf kernel of `kernels/` (by its key in
//! `kernels/kernel_name_map.json`), binds that kernel's parameters, and gives the symbolic
//! shapes of the results. Also the vocabulary rules share: symbolic shapes ([`Dims`],
//! [`ValInfo`]) and their arithmetic ([`product`], [`sum`], [`broadcast`], [`reshape_dims`],
//! [`type_dims`], [`elem_bytes`]). The tensor ops' rules are in `tensor/cost.rs`; the counting
//! convention is in `docs/cost.md`.

use std::borrow::Cow;

use xcs_ir::opdef::OpView;
use xcs_ir::{Context, Type, Value, DYNAMIC};

use crate::shape::ranked;
use crate::symbolic::{Expr, ExprError};

/// How an op costs: its leaf kernel's key and bindings and its results' symbolic shapes.
/// Found from the op's registration (`ctx.interface::<dyn CostRule>(name)`).
pub trait CostRule: Sync {
    /// The rule of this instance of the op; an `Err` is reported at the op.
    fn rule(&self, op: &mut CostOp<'_>) -> Result<Rule, String>;
}
xcs_ir::op_interface!(dyn CostRule, "cost-rule");

/// A cost rule given by a function (what the tensor ops declare).
pub struct CostFn(pub fn(&mut CostOp<'_>) -> Result<Rule, String>);

impl CostRule for CostFn {
    fn rule(&self, op: &mut CostOp<'_>) -> Result<Rule, String> {
        (self.0)(op)
    }
}

/// A symbolic shape: one canonical [`Expr`] per dim (numbers, names from `cost.dims`,
/// products, sums, quotients).
pub type Dims = Vec<Expr>;

/// What `cost-annotate` knows about a tensor value.
#[derive(Clone, Debug)]
pub struct ValInfo {
    pub dims: Dims,
    /// Bytes per element.
    pub esize: i128,
    /// An immediate: a rank-0 or splat constant (or a view of one), folded into its users, so
    /// reading it costs no bytes.
    pub imm: bool,
}

/// The outcome of a rule: the results' shapes, the kernel-map key and the kernel's bindings
/// (without `bytes`, which is [`Rule::bytes`]).
#[derive(Clone, Debug)]
pub struct Rule {
    /// One entry per result (`None`: taken from the result type).
    pub dims: Vec<Option<Dims>>,
    /// The key in `kernel_name_map.json`: the op's name, or the name and a variant
    /// (`tensor.matmul[batched]`).
    pub key: Cow<'static, str>,
    pub bindings: Vec<(&'static str, Expr)>,
    /// The element size bound to `bytes` (of an operand or of the result).
    pub bytes: i128,
    /// A view (reshape, transpose, broadcast_to, slice): operand 0's immediacy passes to the
    /// result.
    pub view: bool,
    /// The result is an immediate (a rank-0 or splat constant).
    pub immediate: bool,
    /// Some result dims could not be inferred and got fresh names (for a warning).
    pub guessed: bool,
}

impl Rule {
    /// A rule with one result of shape `dims`.
    pub fn new(key: Cow<'static, str>, dims: Dims, bindings: Vec<(&'static str, Expr)>, bytes: i128) -> Rule {
        Rule {
            dims: vec![Some(dims)],
            key,
            bindings,
            bytes,
            view: false,
            immediate: false,
            guessed: false,
        }
    }
    /// Marks the rule as a view's.
    pub fn as_view(self) -> Rule {
        Rule { view: true, ..self }
    }
    /// Records whether some result dims were given fresh names.
    pub fn with_guessed(self, guessed: bool) -> Rule {
        Rule { guessed, ..self }
    }
}

/// The op a rule costs, with what the pass knows of its operands.
pub struct CostOp<'a> {
    pub view: OpView<'a>,
    env: &'a dyn Fn(Value) -> Option<&'a ValInfo>,
    fresh: &'a mut dyn FnMut() -> Expr,
}

/// A symbolic result, or why it could not be computed.
pub type ExprResult = Result<Expr, String>;

fn expr_ok(r: Result<Expr, ExprError>) -> ExprResult {
    r.map_err(|e| e.message)
}

impl<'a> CostOp<'a> {
    /// `env` gives the operands' shapes; `fresh` names dims that cannot be inferred.
    pub fn new(
        view: OpView<'a>,
        env: &'a dyn Fn(Value) -> Option<&'a ValInfo>,
        fresh: &'a mut dyn FnMut() -> Expr,
    ) -> Self {
        CostOp { view, env, fresh }
    }
    /// The key of the op's single kernel: its declared name.
    pub fn key(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.view.def().map_or("", |d| d.name))
    }
    /// The key of a variant of the op's kernel: `name[variant]`.
    pub fn variant_key(&self, variant: impl std::fmt::Display) -> Cow<'static, str> {
        Cow::Owned(format!("{}[{variant}]", self.key()))
    }
    /// A fresh dim name (`_dN`).
    pub fn fresh(&mut self) -> Expr {
        (self.fresh)()
    }
    pub fn num_operands(&self) -> usize {
        self.view.num_operands()
    }
    pub fn info(&self, i: usize) -> Result<&'a ValInfo, String> {
        (self.env)(self.view.operand(i)).ok_or_else(|| format!("operand #{i} has no known shape"))
    }
    pub fn dims(&self, i: usize) -> Result<&'a Dims, String> {
        self.info(i).map(|x| &x.dims)
    }
    /// Elements read from operand `i` (0 for an immediate).
    pub fn read(&self, i: usize) -> ExprResult {
        let x = self.info(i)?;
        if x.imm {
            Ok(Expr::zero())
        } else {
            product(&x.dims)
        }
    }
    /// Element size of operand `i`.
    pub fn esize(&self, i: usize) -> Result<i128, String> {
        self.info(i).map(|x| x.esize)
    }
    /// Element size of result 0 (0 if it is not a ranked tensor).
    pub fn result_esize(&self) -> i128 {
        let ctx = self.view.ctx;
        self.view
            .result_types()
            .first()
            .and_then(|&t| ranked(ctx, t))
            .map_or(0, |(_, e)| elem_bytes(ctx, e))
    }
    /// The static shape of result 0 (`DYNAMIC` for `?`).
    pub fn result_shape(&self) -> Result<&'a [i64], String> {
        let (ctx, body, op) = (self.view.ctx, self.view.body, self.view.op);
        body.result_types(op)
            .first()
            .and_then(|&t| ranked(ctx, t))
            .map(|(s, _)| s)
            .ok_or_else(|| "the result is not a ranked tensor".to_string())
    }
    /// The dims (`?` get fresh names) and element size of result 0, from its type.
    pub fn result_from_type(&mut self) -> Result<(Dims, i128), String> {
        let t = self.view.result_type(0);
        type_dims(self.view.ctx, t, &mut *self.fresh).ok_or_else(|| "the result is not a ranked tensor".to_string())
    }
    pub fn i64_attr(&self, name: &str) -> Result<i64, String> {
        self.view
            .attr(name)
            .and_then(|a| self.view.ctx.as_int(a))
            .map(|v| v as i64)
            .ok_or_else(|| format!("missing integer attribute '{name}'"))
    }
    pub fn i64s_attr(&self, name: &str) -> Result<Vec<i64>, String> {
        self.view
            .attr(name)
            .and_then(|a| self.view.ctx.as_i64_array(a))
            .ok_or_else(|| format!("missing array<i64> attribute '{name}'"))
    }
    pub fn str_attr(&self, name: &str) -> Option<&'a str> {
        let ctx: &'a Context = self.view.ctx;
        self.view.attr(name).and_then(|a| ctx.as_str(a))
    }
    pub fn bool_attr(&self, name: &str) -> Option<bool> {
        self.view.attr(name).and_then(|a| self.view.ctx.as_bool(a))
    }
}

/// The product of some dims (1 for none).
pub fn product<'a>(it: impl IntoIterator<Item = &'a Expr>) -> ExprResult {
    let mut acc = Expr::one();
    for e in it {
        acc = expr_ok(acc.mul(e))?;
    }
    Ok(acc)
}

/// The sum of some dims (0 for none).
pub fn sum<'a>(it: impl IntoIterator<Item = &'a Expr>) -> ExprResult {
    let mut acc = Expr::zero();
    for e in it {
        acc = expr_ok(acc.add(e))?;
    }
    Ok(acc)
}

/// `a + b`.
pub fn add(a: &Expr, b: &Expr) -> ExprResult {
    expr_ok(a.add(b))
}

/// Bytes per element of an element type (`i1` is one byte).
pub fn elem_bytes(ctx: &Context, t: Type) -> i128 {
    ctx.bit_width(t).map_or(0, |w| (w as i128 + 7) / 8)
}

/// The dims of a type (`?` from `fresh`) and its element size, for ranked tensors.
pub fn type_dims(ctx: &Context, t: Type, fresh: &mut dyn FnMut() -> Expr) -> Option<(Dims, i128)> {
    let (s, e) = ranked(ctx, t)?;
    let dims = s
        .iter()
        .map(|&d| {
            if d == DYNAMIC {
                fresh()
            } else {
                Expr::constant(d as i128)
            }
        })
        .collect();
    Some((dims, elem_bytes(ctx, e)))
}

/// numpy broadcasting of symbolic shapes: a dim that is 1 takes the other; otherwise the
/// dims are equal (or the program fails at run time), and the first is taken.
pub fn broadcast(a: &[Expr], b: &[Expr]) -> Dims {
    let n = a.len().max(b.len());
    let one = Expr::one();
    (0..n)
        .map(|i| {
            let x = (i + a.len()).checked_sub(n).map(|j| &a[j]);
            let y = (i + b.len()).checked_sub(n).map(|j| &b[j]);
            match (x, y) {
                (Some(x), Some(y)) => {
                    if *x == one {
                        y.clone()
                    } else {
                        x.clone()
                    }
                }
                (Some(x), None) => x.clone(),
                (None, Some(y)) => y.clone(),
                (None, None) => one.clone(),
            }
        })
        .collect()
}

/// The result shape of a reshape of `input` to the type's shape `out`: static dims are theirs;
/// one `?` is the element count divided by the other dims; several `?` are matched with the
/// input's leading and trailing dims while those agree, the last remaining one being the
/// quotient; dims that still remain get fresh names (and `true` is returned).
pub fn reshape_dims(input: &[Expr], out: &[i64], fresh: &mut dyn FnMut() -> Expr) -> Result<(Dims, bool), String> {
    let total = product(input)?;
    let mut res: Vec<Option<Expr>> = out
        .iter()
        .map(|&d| (d != DYNAMIC).then(|| Expr::constant(d as i128)))
        .collect();
    let unknown = |res: &[Option<Expr>]| res.iter().filter(|d| d.is_none()).count();
    let quotient = |res: &[Option<Expr>]| -> ExprResult {
        let known = product(res.iter().flatten())?;
        if known.is_zero() {
            return Ok(Expr::zero());
        }
        expr_ok(total.floordiv(&known))
    };
    let fill_last = |mut res: Vec<Option<Expr>>| -> Result<Dims, String> {
        if let Some(i) = res.iter().position(|d| d.is_none()) {
            res[i] = Some(quotient(&res)?);
        }
        Ok(res.into_iter().map(|d| d.unwrap_or_default()).collect())
    };
    match unknown(&res) {
        0 => return Ok((res.into_iter().flatten().collect(), false)),
        1 => return Ok((fill_last(res)?, false)),
        _ => {}
    }
    // Leading and trailing dims that line up with the input's.
    let mut tried = res.clone();
    let n = out.len().min(input.len());
    let mut front = 0;
    while front < n {
        match &tried[front] {
            None => tried[front] = Some(input[front].clone()),
            Some(d) if *d == input[front] => {}
            Some(_) => break,
        }
        front += 1;
    }
    let mut back = 0;
    while back < n - front.min(n) {
        let (i, j) = (out.len() - 1 - back, input.len() - 1 - back);
        if i < front || j < front {
            break;
        }
        match &tried[i] {
            None => tried[i] = Some(input[j].clone()),
            Some(d) if *d == input[j] => {}
            Some(_) => break,
        }
        back += 1;
    }
    match unknown(&tried) {
        0 if product(tried.iter().flatten())? == total => return Ok((tried.into_iter().flatten().collect(), false)),
        1 => {
            let d = fill_last(tried)?;
            if product(&d)? == total {
                return Ok((d, false));
            }
        }
        _ => {}
    }
    // Fresh names for all but the last unknown dim, which is the quotient.
    let unknowns: Vec<usize> = res
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_none())
        .map(|(i, _)| i)
        .collect();
    for &i in &unknowns[..unknowns.len() - 1] {
        res[i] = Some(fresh());
    }
    Ok((fill_last(res)?, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> Expr {
        s.parse().unwrap()
    }

    fn dims(v: &[&str]) -> Vec<Expr> {
        v.iter().map(|s| e(s)).collect()
    }

    #[test]
    fn broadcast_of_symbolic_shapes() {
        assert_eq!(
            broadcast(&dims(&["b", "s", "768"]), &dims(&["768"])),
            dims(&["b", "s", "768"])
        );
        assert_eq!(broadcast(&dims(&["1", "s"]), &dims(&["b", "1"])), dims(&["b", "s"]));
        assert_eq!(broadcast(&dims(&[]), &dims(&["n"])), dims(&["n"]));
    }

    #[test]
    fn reshape_infers_symbolic_dims() {
        let mut n = 0;
        let mut fresh = || {
            n += 1;
            Expr::var(&format!("_d{n}"))
        };
        const DYN: i64 = DYNAMIC;
        // One unknown dim: the quotient.
        let (d, guessed) = reshape_dims(&dims(&["b", "s", "768"]), &[DYN, 768], &mut fresh).unwrap();
        assert_eq!(d, dims(&["b*s", "768"]));
        assert!(!guessed);
        // Several: matched with the input's leading and trailing dims.
        let (d, guessed) = reshape_dims(&dims(&["b", "s", "768"]), &[DYN, DYN, 12, 64], &mut fresh).unwrap();
        assert_eq!(d, dims(&["b", "s", "12", "64"]));
        assert!(!guessed);
        let (d, _) = reshape_dims(&dims(&["b", "s", "12", "64"]), &[DYN, DYN, 768], &mut fresh).unwrap();
        assert_eq!(d, dims(&["b", "s", "768"]));
        // The leading dim lines up, the rest is the quotient.
        let (d, guessed) = reshape_dims(&dims(&["a*b"]), &[DYN, DYN], &mut fresh).unwrap();
        assert_eq!(d, dims(&["a*b", "1"]));
        assert!(!guessed);
        // Nothing consistent lines up: a fresh name, the last unknown the quotient.
        let (d, guessed) = reshape_dims(&dims(&["n"]), &[DYN, DYN, 4], &mut fresh).unwrap();
        assert!(guessed);
        assert_eq!(d[0], e("_d1"));
        assert_eq!(d[1], e("n//(4*_d1)"));
        assert_eq!(d[2], e("4"));
    }
}
