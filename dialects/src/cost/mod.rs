//! The `cost` dialect (seed 004): the cost attribute `#cost.cost<flops = "...", read = "...",
//! write = "...">` whose formulas are canonical symbolic expressions ([`crate::symbolic`]),
//! and the intermediate cost JSON as IR: `cost.kernel` (a leaf with formulas),
//! `cost.composite` with `cost.child` entries (kernel reference, bindings, count).
//! [`json`] converts between these ops and the seed's JSON files, both ways.

pub mod json;
pub mod library;
pub mod resolve;
/// True for the ops that define a kernel symbol of the cost graph (`cost.kernel`,
/// `cost.composite`).
pub fn is_cost_symbol(ctx: &Context, name: xcs_ir::OpName) -> bool {
    KernelOp::matches(ctx, name) || CompositeOp::matches(ctx, name)
}

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use xcs_ir::opdef::constraints::*;
use xcs_ir::opdef::{AttrConstraint, AttrDef, DialectDef, OpView, ParamsError, SymbolLookup, Syntax};
use xcs_ir::{op, Attr, AttrKind, Body, Context, Diagnostic, Op};

use crate::symbolic::{is_implicit_var, Expr, ExprError};

// ------------------------------------------------------------------------------ the attribute

/// The figures of one cost: FLOPs, bytes read, bytes written and, counted separately (they are
/// also in `flops`), transcendental operations. Each is a canonical [`Expr`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Cost {
    pub flops: Expr,
    pub read: Expr,
    pub write: Expr,
    pub transcendentals: Expr,
}

/// The keys of `#cost.cost<...>`, in their printed order.
pub const COST_KEYS: [&str; 4] = ["flops", "read", "write", "transcendentals"];

impl Cost {
    /// A cost from formula texts (`transcendentals` zero).
    pub fn parse(flops: &str, read: &str, write: &str) -> Result<Cost, (usize, ExprError)> {
        let f = |i: usize, t: &str| t.parse::<Expr>().map_err(|e| (i, e));
        Ok(Cost {
            flops: f(0, flops)?,
            read: f(1, read)?,
            write: f(2, write)?,
            transcendentals: Expr::zero(),
        })
    }
    /// The figures with their keys, in [`COST_KEYS`] order.
    pub fn fields(&self) -> [(&'static str, &Expr); 4] {
        [
            ("flops", &self.flops),
            ("read", &self.read),
            ("write", &self.write),
            ("transcendentals", &self.transcendentals),
        ]
    }
    fn fields_mut(&mut self) -> [&mut Expr; 4] {
        [
            &mut self.flops,
            &mut self.read,
            &mut self.write,
            &mut self.transcendentals,
        ]
    }
    fn map(&self, f: impl Fn(&Expr) -> Result<Expr, ExprError>) -> Result<Cost, ExprError> {
        Ok(Cost {
            flops: f(&self.flops)?,
            read: f(&self.read)?,
            write: f(&self.write)?,
            transcendentals: f(&self.transcendentals)?,
        })
    }
    /// The sum of two costs.
    pub fn add(&self, o: &Cost) -> Result<Cost, ExprError> {
        let mut out = self.clone();
        for (dst, (_, src)) in out.fields_mut().into_iter().zip(o.fields()) {
            *dst = dst.add(src)?;
        }
        Ok(out)
    }
    /// Every figure times `k` (a child's `count`).
    pub fn times(&self, k: &Expr) -> Result<Cost, ExprError> {
        self.map(|e| e.mul(k))
    }
    /// Substitutes variables in every figure (binding a child's parameters).
    pub fn substitute(&self, f: &dyn Fn(&str) -> Option<Expr>) -> Result<Cost, ExprError> {
        self.map(|e| e.substitute(f))
    }
    /// Every variable of every figure.
    pub fn free_vars(&self) -> BTreeSet<String> {
        self.fields().iter().flat_map(|(_, e)| e.free_vars()).collect()
    }

    /// The canonical parameter text: `<flops = "...", read = "...", write = "...">`, with
    /// `, transcendentals = "..."` only when it is not zero.
    pub fn params_text(&self) -> String {
        let mut s = String::from("<");
        for (i, (k, e)) in self.fields().iter().enumerate() {
            if i == 3 && e.is_zero() {
                break;
            }
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(k);
            s.push_str(" = \"");
            s.push_str(&e.to_string());
            s.push('"');
        }
        s.push('>');
        s
    }

    /// The attribute `#cost.cost<...>` (interned in its canonical form).
    pub fn to_attr(&self, ctx: &Context) -> Attr {
        ctx.attr(AttrKind::Dialect {
            dialect: ctx.ident("cost"),
            text: format!("cost.cost{}", self.params_text()).into(),
        })
    }

    /// The cost of a `#cost.cost<...>` attribute (`None` for any other attribute; an error for
    /// one whose text is not valid, which only Rust code can build).
    pub fn from_attr(ctx: &Context, a: Attr) -> Option<Result<Cost, ParamsError>> {
        match ctx.attr_kind(a) {
            AttrKind::Dialect { text, .. } => text
                .strip_prefix("cost.cost")
                .filter(|r| r.starts_with('<'))
                .map(parse_params),
            _ => None,
        }
    }
}

/// Parses the parameter text of `#cost.cost` (`<flops = "...", ...>`); errors carry the byte
/// offset in `text`.
pub fn parse_params(text: &str) -> Result<Cost, ParamsError> {
    let err = |off: usize, m: String| ParamsError {
        message: m,
        offset: Some(off),
    };
    let b = text.as_bytes();
    let shape = "expected '<flops = \"...\", read = \"...\", write = \"...\">'";
    if b.first() != Some(&b'<') {
        return Err(err(0, shape.into()));
    }
    let mut i = 1;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut seen: [Option<Expr>; 4] = Default::default();
    loop {
        skip_ws(&mut i);
        let key_start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let key = &text[key_start..i];
        if key.is_empty() {
            return Err(err(
                key_start,
                format!("{shape}: expected a key ({})", COST_KEYS.join(", ")),
            ));
        }
        let Some(k) = COST_KEYS.iter().position(|&x| x == key) else {
            return Err(err(
                key_start,
                format!("unknown cost key '{key}' (expected {})", COST_KEYS.join(", ")),
            ));
        };
        if seen[k].is_some() {
            return Err(err(key_start, format!("cost key '{key}' appears twice")));
        }
        skip_ws(&mut i);
        if b.get(i) != Some(&b'=') {
            return Err(err(i, format!("expected '=' after '{key}'")));
        }
        i += 1;
        skip_ws(&mut i);
        if b.get(i) != Some(&b'"') {
            return Err(err(i, format!("expected a formula string after '{key} ='")));
        }
        let (value, end) = decode_string(text, i).map_err(|(o, m)| err(o, m))?;
        let formula_start = i + 1;
        let e = value.parse::<Expr>().map_err(|e| {
            let off = formula_start + e.span.as_ref().map_or(0, |s| s.start);
            err(
                off,
                format!("malformed {key} formula \"{value}\": {}", e.describe(&value)),
            )
        })?;
        seen[k] = Some(e);
        i = end;
        skip_ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'>') => {
                i += 1;
                break;
            }
            _ => return Err(err(i, "expected ',' or '>' in '#cost.cost'".into())),
        }
    }
    if i != b.len() {
        return Err(err(i, "unexpected text after '>'".into()));
    }
    let [flops, read, write, tr] = seen;
    let missing: Vec<&str> = [&flops, &read, &write]
        .iter()
        .zip(COST_KEYS)
        .filter(|(v, _)| v.is_none())
        .map(|(_, k)| k)
        .collect();
    if !missing.is_empty() {
        return Err(err(
            text.len().saturating_sub(1),
            format!("'#cost.cost' is missing {}", missing.join(", ")),
        ));
    }
    Ok(Cost {
        flops: flops.unwrap_or_default(),
        read: read.unwrap_or_default(),
        write: write.unwrap_or_default(),
        transcendentals: tr.unwrap_or_default(),
    })
}

/// Decodes the MLIR string literal starting at `text[start] == '"'`; returns it and the offset
/// after its closing quote.
fn decode_string(text: &str, start: usize) -> Result<(String, usize), (usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Ok((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\\' => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (b.get(i + 1).copied(), b.get(i + 2).copied()) {
                    (Some(c @ (b'\\' | b'"')), _) => {
                        out.push(c);
                        i += 2;
                    }
                    (Some(b'n'), _) => {
                        out.push(b'\n');
                        i += 2;
                    }
                    (Some(b't'), _) => {
                        out.push(b'\t');
                        i += 2;
                    }
                    (Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                        out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                        i += 3;
                    }
                    _ => return Err((i, "unknown escape in string".into())),
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err((start, "unterminated string".into()))
}

/// The `params` hook of `#cost.cost`: validates and canonicalises, so equal costs are one
/// attribute (`#cost.cost<flops = "N*M + 0", ...>` is `#cost.cost<flops = "M*N", ...>`).
fn cost_params(_: &Context, text: &str) -> Result<String, ParamsError> {
    parse_params(text).map(|c| c.params_text())
}

/// The `cost` attribute of an op, if it has a valid one.
pub fn op_cost(ctx: &Context, body: &Body, op: Op) -> Option<Cost> {
    Cost::from_attr(ctx, body.attr(ctx, op, "cost")?)?.ok()
}

// ------------------------------------------------------------------------------ constraints

pub const COST_ATTR: AttrConstraint = AttrConstraint {
    desc: "#cost.cost attribute",
    check: |c, a| Cost::from_attr(c, a).is_some(),
};
pub const STR_ARRAY_ATTR: AttrConstraint = AttrConstraint {
    desc: "array of string attributes",
    check: |c, a| c.as_array(a).is_some_and(|v| v.iter().all(|&e| c.as_str(e).is_some())),
};
pub const BINDINGS_ATTR: AttrConstraint = AttrConstraint {
    desc: "dictionary of formula strings",
    check: |c, a| matches!(c.attr_kind(a), AttrKind::Dictionary(e) if e.iter().all(|&(_, v)| c.as_str(v).is_some())),
};
pub const COUNT_ATTR: AttrConstraint = AttrConstraint {
    desc: "64-bit signless integer attribute or formula string",
    check: |c, a| c.as_str(a).is_some() || (I64_ATTR.check)(c, a),
};

// ------------------------------------------------------------------------------ ops

op! {
    /// A leaf kernel of the cost model (a hand-written cost JSON): its parameters and its
    /// cost formulas. The formulas may use only the parameters and the implicit variables
    /// `batch_size`, `seq_len`, `cache_len`, `bytes` and `config.*`.
    ///
    /// ```mlir
    /// cost.kernel @torch.addmm {cost = #cost.cost<flops = "2*K*M*N + M*N", read = "K*M*bytes + K*N*bytes + M*N*bytes", write = "M*N*bytes">, forward_params = ["M", "K", "N"], init_params = []}
    /// ```
    /// JSON: `kernel_name` is the symbol name, `flops`/`memory_read`/`memory_write` the
    /// `cost` figures.
    pub struct KernelOp = "cost.kernel" in COST_OPS {
        summary: "Leaf cost kernel: parameters and formulas",
        attributes: { sym_name: SYMBOL_NAME_ATTR, init_params: STR_ARRAY_ATTR, forward_params: STR_ARRAY_ATTR, cost: COST_ATTR },
        traits: [Symbol],
        verify: verify_kernel,
        syntax: Syntax::Custom { parse: crate::symbol_syntax::parse_symbol_op, print: print_kernel },
    }
}

op! {
    /// A composite kernel: its parameters and, in its region, one `cost.child` per use of a
    /// child kernel (a module call or an inline op). Its cost is the sum of its children's
    /// costs times their counts (computed by the cost resolution, never written here).
    ///
    /// ```mlir
    /// cost.composite @Conv1D {forward_params = [], init_params = ["nf", "nx"]} {
    ///   cost.child "addmm" @torch.addmm {bindings = {K = "nx", M = "batch_size*seq_len", N = "nf"}, count = 1 : i64}
    /// }
    /// ```
    pub struct CompositeOp = "cost.composite" in COST_OPS {
        summary: "Composite cost kernel: children with bindings and counts",
        attributes: { sym_name: SYMBOL_NAME_ATTR, init_params: STR_ARRAY_ATTR, forward_params: STR_ARRAY_ATTR },
        regions: { children: 1 },
        traits: [IsolatedFromAbove, Symbol, NoTerminator, SingleBlock],
        verify: verify_composite,
        syntax: Syntax::Custom { parse: crate::symbol_syntax::parse_symbol_op, print: print_composite },
    }
}

op! {
    /// One use of a child kernel inside a `cost.composite`: `label` (unique in the composite),
    /// `kernel` (a `cost.kernel` or `cost.composite` symbol), `bindings` (each parameter of
    /// the child, and nothing else, mapped to a formula over the composite's parameters and
    /// the implicit variables) and `count` (how many times it runs: an integer >= 1 or a
    /// formula such as `"config.num_hidden_layers"`; default 1).
    ///
    /// ```mlir
    /// cost.child "c_attn" @Conv1D {bindings = {nf = "3*config.n_embd", nx = "config.n_embd"}, count = 1 : i64}
    /// ```
    pub struct ChildOp = "cost.child" in COST_OPS {
        summary: "A child kernel use: label, kernel, bindings, count",
        attributes: { label: STR_ATTR, kernel: FLAT_SYMBOL_REF_ATTR, #[optional] bindings: BINDINGS_ATTR, #[optional] count: COUNT_ATTR },
        verify: verify_child,
        verify_symbol_uses: verify_child_uses,
        syntax: Syntax::Custom { parse: parse_child, print: print_child },
    }
}

xcs_ir::op_list!(pub COST_OPS);

pub static COST_DIALECT: DialectDef = DialectDef {
    name: "cost",
    summary: "Symbolic costs (FLOPs, bytes) and the kernel cost tree",
    description: "Cost formulas are symbolic integer expressions over dimension symbols \
(`batch_size`, `seq_len`, `cache_len`, `bytes`, `config.*`, kernel parameters) in one canonical \
form: expanded polynomials whose atoms are variables and `a//b`, `a%b` subterms, terms ordered \
by degree then by name, so equal costs print equal. `cost.kernel` and `cost.composite` hold the \
seed's intermediate cost JSON (leaf and composite kernels), convertible both ways.",
    ops: xcs_ir::opdef::OpList::Collected(&COST_OPS),
    types: &[],
    attrs: &[AttrDef {
        mnemonic: "cost",
        summary: "A symbolic cost: FLOPs, bytes read, bytes written (and transcendentals)",
        description: r#"
            `#cost.cost<flops = "2*K*M*N + M*N", read = "K*M*bytes + K*N*bytes + M*N*bytes", write = "M*N*bytes">`.
            Each figure is a formula (integers, names such as `config.n_embd`, `+ - *`, `//`, `%`,
            `**` with a constant exponent, parentheses); `transcendentals` is optional (counted
            also in `flops`) and printed only when not zero. The parser canonicalises every
            formula, so `flops = "N*M + 0"` and `flops = "M*N"` are the same attribute, and
            reports a malformed formula at its column.
        "#,
        params: Some(cost_params),
    }],
    materialize_constant: None,
};

// ------------------------------------------------------------------------------ helpers

/// The strings of a string-array attribute.
fn str_list(ctx: &Context, a: Option<Attr>) -> Vec<String> {
    a.and_then(|a| ctx.as_array(a))
        .map(|v| v.iter().filter_map(|&e| ctx.as_str(e).map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The parameters (`init_params` then `forward_params`) of a kernel's attribute dictionary.
pub fn kernel_params(ctx: &Context, attrs: Attr) -> Vec<String> {
    let mut v = str_list(ctx, ctx.dict_get(attrs, "init_params"));
    v.extend(str_list(ctx, ctx.dict_get(attrs, "forward_params")));
    v
}

/// Checks the parameter lists: names that are formula variables, not implicit, not repeated.
fn check_params(v: &OpView, params: &[String]) -> Result<(), Diagnostic> {
    let mut seen = BTreeSet::new();
    for p in params {
        let is_name = p.parse::<Expr>().ok().is_some_and(|e| e.as_var() == Some(p.as_str()));
        if !is_name {
            return Err(v.error(format!(
                "parameter '{p}' is not a name (a parameter is an identifier usable in formulas)"
            )));
        }
        if is_implicit_var(p) {
            return Err(v.error(format!(
                "parameter '{p}' is an implicit variable; implicit variables (batch_size, seq_len, cache_len, bytes, config.*) are never parameters"
            )));
        }
        if !seen.insert(p.as_str()) {
            return Err(v.error(format!("parameter '{p}' is declared twice")));
        }
    }
    Ok(())
}

/// The rule every formula follows: its variables are parameters or implicit variables.
fn check_vars(v: &OpView, what: &str, e: &Expr, params: &[String], owner: &str) -> Result<(), Diagnostic> {
    for var in e.free_vars() {
        if !is_implicit_var(&var) && !params.contains(&var) {
            return Err(v.error(format!(
                "{what} uses '{var}', which is neither a parameter of {owner} nor an implicit variable (batch_size, seq_len, cache_len, bytes, config.*)"
            )));
        }
    }
    Ok(())
}

/// Parses a formula attribute value for the verifier.
fn formula(v: &OpView, what: &str, text: &str) -> Result<Expr, Diagnostic> {
    text.parse::<Expr>()
        .map_err(|e| v.error(format!("{what} \"{text}\" is malformed: {}", e.describe(text))))
}

// ------------------------------------------------------------------------------ verifiers

fn verify_kernel(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let params = kernel_params(ctx, v.attrs());
    check_params(v, &params)?;
    let Some(cost) = v.attr("cost").and_then(|a| Cost::from_attr(ctx, a)) else {
        return Ok(());
    };
    let cost = cost.map_err(|e| v.error(format!("invalid 'cost' attribute: {}", e.message)))?;
    let name = v.attr("sym_name").and_then(|a| ctx.as_str(a)).unwrap_or("");
    for (k, e) in cost.fields() {
        check_vars(v, &format!("{k} formula"), e, &params, &format!("@{name}"))?;
    }
    Ok(())
}

fn verify_composite(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    check_params(v, &kernel_params(ctx, v.attrs()))?;
    let Some(body) = v.body.nested(v.op) else { return Ok(()) };
    let ops = body
        .root_regions()
        .first()
        .and_then(|&r| body.entry_block(r))
        .map(|b| body.block_op_vec(b))
        .unwrap_or_default();
    if ops.is_empty() {
        return Err(v.error("needs at least one 'cost.child' (a kernel without children is a 'cost.kernel')"));
    }
    let mut labels: Vec<(String, Op)> = Vec::new();
    for op in ops {
        if !ChildOp::matches(ctx, body.op_name(op)) {
            return Err(Diagnostic::op_error(
                ctx,
                body,
                op,
                "is not allowed in 'cost.composite', which holds only 'cost.child' ops",
            ));
        }
        let Some(label) = body.attr(ctx, op, "label").and_then(|a| ctx.as_str(a)) else {
            continue;
        };
        if let Some((_, first)) = labels.iter().find(|(l, _)| l == label) {
            return Err(Diagnostic::op_error(
                ctx,
                body,
                op,
                format!("has the label '{label}' of an earlier child; labels are unique within a composite"),
            )
            .with_note(body.op_loc(*first), "the earlier child"));
        }
        labels.push((label.to_string(), op));
    }
    Ok(())
}

/// The `count` of a child as an expression (1 when absent).
pub fn child_count(ctx: &Context, body: &Body, op: Op) -> Result<Expr, String> {
    match body.attr(ctx, op, "count") {
        None => Ok(Expr::one()),
        Some(a) => match (ctx.as_int(a), ctx.as_str(a)) {
            (Some(n), _) => Ok(Expr::constant(n)),
            (_, Some(s)) => s.parse::<Expr>().map_err(|e| e.describe(s)),
            _ => Err("count is neither an integer nor a formula".into()),
        },
    }
}

/// The `bindings` of a child: parameter name and formula text, sorted by name.
pub fn child_bindings(ctx: &Context, body: &Body, op: Op) -> Vec<(String, String)> {
    let Some(d) = body.attr(ctx, op, "bindings") else {
        return Vec::new();
    };
    ctx.dict_entries(d)
        .iter()
        .filter_map(|&(k, a)| ctx.as_str(a).map(|s| (ctx.str(k).to_string(), s.to_string())))
        .collect()
}

fn verify_child(v: &OpView) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    // A child sits directly in the body of its composite (which is isolated from above).
    if v.body.parent_op(v.op).is_some() || !CompositeOp::matches(ctx, v.body.name()) {
        return Err(v.error("expects parent op 'cost.composite'"));
    }
    let parent = v.body.self_attrs();
    let params = kernel_params(ctx, parent);
    let owner = format!(
        "@{}",
        ctx.dict_get(parent, "sym_name")
            .and_then(|a| ctx.as_str(a))
            .unwrap_or("")
    );
    if let Some(l) = v.attr("label").and_then(|a| ctx.as_str(a)) {
        if l.is_empty() {
            return Err(v.error("has an empty label"));
        }
    }
    for (k, text) in child_bindings(ctx, v.body, v.op) {
        let e = formula(v, &format!("binding of '{k}'"), &text)?;
        check_vars(v, &format!("binding of '{k}'"), &e, &params, &owner)?;
    }
    if let Some(a) = v.attr("count") {
        if let Some(n) = ctx.as_int(a) {
            if n < 1 {
                return Err(v.error(format!("count must be at least 1, got {n}")));
            }
        } else if let Some(s) = ctx.as_str(a) {
            let e = formula(v, "count", s)?;
            check_vars(v, "count", &e, &params, &owner)?;
            if let Some(n) = e.as_constant().filter(|&n| n < 1) {
                return Err(v.error(format!("count must be at least 1, got \"{s}\" = {n}")));
            }
        }
    }
    Ok(())
}

fn verify_child_uses(v: &OpView, symbols: &dyn SymbolLookup) -> Result<(), Diagnostic> {
    let ctx = v.ctx;
    let Some(kernel) = v.attr("kernel").and_then(|a| ctx.as_symbol(a)) else {
        return Ok(());
    };
    let own = v.body.self_attr(ctx, "sym_name").and_then(|a| ctx.as_str(a));
    if own == Some(kernel) {
        return Err(v.error(format!(
            "refers to its own composite @{kernel}; the kernel graph must be acyclic"
        )));
    }
    let target = symbols
        .lookup(kernel)
        .filter(|s| is_cost_symbol(ctx, s.op_name));
    let Some(target) = target else {
        return Err(v.error(format!(
            "'@{kernel}' does not reference a 'cost.kernel' or 'cost.composite'"
        )));
    };
    let params = kernel_params(ctx, target.attrs);
    let bindings = child_bindings(ctx, v.body, v.op);
    let list = if params.is_empty() {
        "it has none".to_string()
    } else {
        format!("its parameters: {}", params.join(", "))
    };
    for (k, _) in &bindings {
        if !params.contains(k) {
            return Err(v.error(format!("binds '{k}', which is not a parameter of @{kernel} ({list})")));
        }
    }
    for p in &params {
        if !bindings.iter().any(|(k, _)| k == p) {
            return Err(v.error(format!(
                "does not bind parameter '{p}' of @{kernel}; every parameter of the child is bound"
            )));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------ syntax

fn print_kernel(p: &mut xcs_ir::printer::OpAsmPrinter<'_>) {
    crate::symbol_syntax::print_symbol_op(p, false)
}
fn print_composite(p: &mut xcs_ir::printer::OpAsmPrinter<'_>) {
    crate::symbol_syntax::print_symbol_op(p, false)
}

/// `cost.child "label" @kernel attr-dict`.
fn parse_child(
    p: &mut xcs_ir::parser::OpAsmParser<'_, '_>,
    st: &mut xcs_ir::OperationState,
) -> xcs_ir::parser::PResult<()> {
    let ctx = p.ctx();
    let label = p.parse_string()?;
    p.set_attr(st, "label", ctx.str_attr(&String::from_utf8_lossy(&label)));
    let kernel = p.parse_symbol_ident()?;
    p.set_attr(st, "kernel", ctx.symbol_ref(ctx.str(kernel)));
    p.parse_optional_attr_dict(st)
}

fn print_child(p: &mut xcs_ir::printer::OpAsmPrinter<'_>) {
    let ctx = p.ctx();
    let label = p.attr("label").and_then(|a| ctx.as_str(a));
    let kernel = p.attr("kernel").filter(|&a| ctx.as_symbol(a).is_some());
    let (Some(label), Some(kernel)) = (label, kernel) else {
        return p.fallback_to_generic();
    };
    p.write_str(" ");
    p.print_string(label);
    p.write_str(" ");
    p.print_attribute(kernel);
    let attrs = p.attrs();
    p.print_optional_attr_dict(attrs, &["label", "kernel"]);
}
