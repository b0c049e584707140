//! Phase 2 of seed 004, bottom-up substitution: a set of kernels (leaves with formulas,
//! composites with children, bindings and counts) is checked (missing kernels, cycles,
//! unbound or unknown parameters, free variables), each kernel's *template* (its cost in its
//! own parameters) is computed once, leaves first, and the resolved tree of a root is built by
//! substituting each child's bindings into its kernel's memoized template.
//!
//! Work is linear in the number of kernel uses: every template is built once from its
//! children's templates (never by re-expanding the subtree), and each node of the output tree
//! costs one substitution into one template. Graph walks are iterative and tree recursion
//! grows the stack on demand, so deep kernel chains are fine.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::json::{Count, KernelBody as JsonBody, KernelCostJson};
use super::Cost;
use crate::symbolic::{is_implicit_var, Expr};

/// A kernel of the cost model.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// `init_params` then `forward_params`.
    pub params: Vec<String>,
    pub body: KernelBody,
    /// Where the kernel comes from (a file path), for error messages; may be empty.
    pub origin: String,
}

/// A leaf's formulas or a composite's children.
#[derive(Clone, Debug)]
pub enum KernelBody {
    Leaf(Cost),
    Composite(Vec<Child>),
}

/// One use of a child kernel.
#[derive(Clone, Debug)]
pub struct Child {
    pub label: String,
    pub kernel: String,
    /// Child variable -> expression in the parent's namespace.
    pub bindings: Vec<(String, Expr)>,
    pub count: Expr,
}

/// An error naming the file and the kernel it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolveError(pub String);

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ResolveError {}

fn where_(k: &Kernel) -> String {
    if k.origin.is_empty() {
        format!("kernel '{}'", k.name)
    } else {
        format!("{}: kernel '{}'", k.origin, k.name)
    }
}

impl Kernel {
    /// A kernel from its intermediate JSON, formulas parsed into canonical expressions; a
    /// malformed formula is an error naming `origin`, the kernel, the field and the column.
    pub fn from_json(j: &KernelCostJson, origin: &str) -> Result<Kernel, ResolveError> {
        let at = |m: String| {
            let o = if origin.is_empty() { String::new() } else { format!("{origin}: ") };
            ResolveError(format!("{o}kernel '{}': {m}", j.kernel_name))
        };
        let parse = |what: &str, text: &str| {
            text.parse::<Expr>()
                .map_err(|e| at(format!("malformed {what} formula \"{text}\": {}", e.describe(text))))
        };
        let mut params = j.init_params.clone();
        params.extend(j.forward_params.iter().cloned());
        let body = match &j.body {
            JsonBody::Leaf { flops, memory_read, memory_write, transcendentals } => KernelBody::Leaf(Cost {
                flops: parse("flops", flops)?,
                read: parse("memory_read", memory_read)?,
                write: parse("memory_write", memory_write)?,
                transcendentals: match transcendentals {
                    Some(t) => parse("transcendentals", t)?,
                    None => Expr::zero(),
                },
            }),
            JsonBody::Composite { children } => {
                let mut out = Vec::with_capacity(children.len());
                for c in children {
                    let mut bindings = Vec::with_capacity(c.bindings.len());
                    for (k, v) in &c.bindings {
                        bindings.push((k.clone(), parse(&format!("child '{}': binding of '{k}'", c.label), v)?));
                    }
                    let count = match &c.count {
                        Count::Int(i) => Expr::constant(*i as i128),
                        Count::Formula(s) => parse(&format!("child '{}': count", c.label), s)?,
                    };
                    out.push(Child { label: c.label.clone(), kernel: c.kernel.clone(), bindings, count });
                }
                KernelBody::Composite(out)
            }
        };
        Ok(Kernel { name: j.kernel_name.clone(), params, body, origin: origin.to_string() })
    }
}

/// A set of kernels by name.
#[derive(Default)]
pub struct KernelSet {
    kernels: Vec<Kernel>,
    index: FxHashMap<String, usize>,
    /// Strict (the seed's JSON rules): bindings name exactly the child's parameters and
    /// formulas use only parameters and implicit variables. Relaxed (cost-annotate's own
    /// kernels): a binding may substitute any variable of the child (e.g. `bytes`), unbound
    /// variables stay free.
    pub strict: bool,
}

/// The resolved cost tree: one node per kernel use, figures per invocation (the parent
/// multiplies by `count`).
#[derive(Debug, Default)]
pub struct ResolvedNode {
    pub label: String,
    pub kernel: String,
    pub count: Expr,
    pub cost: Cost,
    pub children: Vec<ResolvedNode>,
}

impl Drop for ResolvedNode {
    // Iterative, so dropping a very deep tree cannot overflow the stack.
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut n) = stack.pop() {
            stack.append(&mut n.children);
        }
    }
}

impl KernelSet {
    pub fn new(strict: bool) -> KernelSet {
        KernelSet { strict, ..Default::default() }
    }
    /// Adds a kernel; a second kernel of the same name is an error naming both origins.
    pub fn add(&mut self, k: Kernel) -> Result<(), ResolveError> {
        if let Some(&i) = self.index.get(&k.name) {
            let first = &self.kernels[i];
            return Err(ResolveError(format!(
                "{}: is defined twice (also in {})",
                where_(&k),
                if first.origin.is_empty() { "an earlier kernel".to_string() } else { first.origin.clone() }
            )));
        }
        self.index.insert(k.name.clone(), self.kernels.len());
        self.kernels.push(k);
        Ok(())
    }
    pub fn get(&self, name: &str) -> Option<&Kernel> {
        self.index.get(name).map(|&i| &self.kernels[i])
    }
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }
    pub fn len(&self) -> usize {
        self.kernels.len()
    }
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    /// The kernels reachable from `roots`, children before parents, after checking every one
    /// of them: a child kernel that does not exist, a cycle, and (strict) an unbound parameter,
    /// a binding of a non-parameter or a formula with a free variable are errors.
    pub fn order_from(&self, roots: &[&str]) -> Result<Vec<usize>, ResolveError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let mut mark = vec![Mark::New; self.kernels.len()];
        let mut order = Vec::new();
        for &root in roots {
            let Some(&r) = self.index.get(root) else {
                return Err(ResolveError(format!("root kernel '{root}' has no cost JSON")));
            };
            if mark[r] == Mark::Done {
                continue;
            }
            // (kernel, next child index)
            let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
            mark[r] = Mark::Open;
            self.check_kernel(r)?;
            while let Some(top) = stack.last_mut() {
                let (k, ci) = *top;
                let children = match &self.kernels[k].body {
                    KernelBody::Composite(c) => c.as_slice(),
                    KernelBody::Leaf(_) => &[],
                };
                if ci == children.len() {
                    mark[k] = Mark::Done;
                    order.push(k);
                    stack.pop();
                    continue;
                }
                top.1 += 1;
                let ch = &children[ci];
                let Some(&c) = self.index.get(&ch.kernel) else {
                    return Err(ResolveError(format!(
                        "{}: child '{}' uses kernel '{}', which has no cost JSON",
                        where_(&self.kernels[k]),
                        ch.label,
                        ch.kernel
                    )));
                };
                self.check_child(k, ch, c)?;
                match mark[c] {
                    Mark::Done => {}
                    Mark::Open => {
                        let start = stack.iter().position(|&(s, _)| s == c).unwrap_or(0);
                        let mut path: Vec<&str> = stack[start..].iter().map(|&(s, _)| self.kernels[s].name.as_str()).collect();
                        path.push(&self.kernels[c].name);
                        return Err(ResolveError(format!(
                            "{}: child '{}' closes a cycle: {}",
                            where_(&self.kernels[k]),
                            ch.label,
                            path.join(" -> ")
                        )));
                    }
                    Mark::New => {
                        mark[c] = Mark::Open;
                        self.check_kernel(c)?;
                        stack.push((c, 0));
                    }
                }
            }
        }
        Ok(order)
    }

    fn check_kernel(&self, k: usize) -> Result<(), ResolveError> {
        if !self.strict {
            return Ok(());
        }
        let kern = &self.kernels[k];
        let free = |what: &str, e: &Expr| -> Result<(), ResolveError> {
            for v in e.free_vars() {
                if !is_implicit_var(&v) && !kern.params.contains(&v) {
                    return Err(ResolveError(format!(
                        "{}: {what} uses '{v}', which is neither a parameter of the kernel nor an implicit variable (batch_size, seq_len, cache_len, bytes, config.*)",
                        where_(kern)
                    )));
                }
            }
            Ok(())
        };
        match &kern.body {
            KernelBody::Leaf(c) => {
                for (name, e) in [("flops", &c.flops), ("memory_read", &c.read), ("memory_write", &c.write), ("transcendentals", &c.transcendentals)] {
                    free(name, e)?;
                }
            }
            KernelBody::Composite(children) => {
                let mut seen = rustc_hash::FxHashSet::default();
                for ch in children {
                    if !seen.insert(ch.label.as_str()) {
                        return Err(ResolveError(format!("{}: child label '{}' is used twice", where_(kern), ch.label)));
                    }
                    for (p, e) in &ch.bindings {
                        free(&format!("child '{}': binding of '{p}'", ch.label), e)?;
                    }
                    free(&format!("child '{}': count", ch.label), &ch.count)?;
                }
            }
        }
        Ok(())
    }

    fn check_child(&self, parent: usize, ch: &Child, c: usize) -> Result<(), ResolveError> {
        if let Some(n) = ch.count.as_constant() {
            if n < 1 {
                return Err(ResolveError(format!(
                    "{}: child '{}': count must be at least 1, got {n}",
                    where_(&self.kernels[parent]),
                    ch.label
                )));
            }
        }
        if !self.strict {
            return Ok(());
        }
        let child = &self.kernels[c];
        for (p, _) in &ch.bindings {
            if !child.params.contains(p) {
                let list = if child.params.is_empty() { "it has none".to_string() } else { format!("its parameters: {}", child.params.join(", ")) };
                return Err(ResolveError(format!(
                    "{}: child '{}' binds '{p}', which is not a parameter of kernel '{}' ({list})",
                    where_(&self.kernels[parent]),
                    ch.label,
                    child.name
                )));
            }
        }
        for p in &child.params {
            if !ch.bindings.iter().any(|(k, _)| k == p) {
                return Err(ResolveError(format!(
                    "{}: child '{}' does not bind parameter '{p}' of kernel '{}' (unbound parameter)",
                    where_(&self.kernels[parent]),
                    ch.label,
                    child.name
                )));
            }
        }
        Ok(())
    }

    /// The templates of the kernels in `order` (children first, from [`KernelSet::order_from`]):
    /// a leaf's formulas; a composite's sum of child template (bindings substituted) times count.
    pub fn templates(&self, order: &[usize]) -> Result<Templates, ResolveError> {
        let mut t: Vec<Option<Cost>> = vec![None; self.kernels.len()];
        for &k in order {
            let kern = &self.kernels[k];
            let cost = match &kern.body {
                KernelBody::Leaf(c) => c.clone(),
                KernelBody::Composite(children) => {
                    let mut sum = Cost::default();
                    for ch in children {
                        let c = self.index[&ch.kernel];
                        let child = t[c].as_ref().expect("children come first in the order");
                        let one = substitute(child, &ch.bindings)
                            .and_then(|x| x.times(&ch.count))
                            .map_err(|e| ResolveError(format!("{}: child '{}': {e}", where_(kern), ch.label)))?;
                        sum = sum.add(&one).map_err(|e| ResolveError(format!("{}: {e}", where_(kern))))?;
                    }
                    sum
                }
            };
            t[k] = Some(cost);
        }
        Ok(Templates(t))
    }

    /// Checks, builds the templates and resolves the tree of `root`; `bind` substitutes numbers
    /// into every figure and count of the tree.
    pub fn resolve(&self, root: &str, bind: &BTreeMap<String, i128>) -> Result<ResolvedNode, ResolveError> {
        let order = self.order_from(&[root])?;
        let t = self.templates(&order)?;
        self.tree(&t, root, bind)
    }

    /// The resolved tree of `root` from its templates.
    pub fn tree(&self, t: &Templates, root: &str, bind: &BTreeMap<String, i128>) -> Result<ResolvedNode, ResolveError> {
        let r = *self.index.get(root).ok_or_else(|| ResolveError(format!("root kernel '{root}' has no cost JSON")))?;
        let sigma: Vec<(String, Expr)> = Vec::new();
        self.node(t, r, String::new(), Expr::one(), &sigma, bind)
    }

    fn node(
        &self,
        t: &Templates,
        k: usize,
        label: String,
        count: Expr,
        sigma: &[(String, Expr)],
        bind: &BTreeMap<String, i128>,
    ) -> Result<ResolvedNode, ResolveError> {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
            let kern = &self.kernels[k];
            let err = |e: crate::symbolic::ExprError| ResolveError(format!("{}: {e}", where_(kern)));
            let template = t.0[k].as_ref().ok_or_else(|| ResolveError(format!("{}: no template", where_(kern))))?;
            let mut cost = substitute(template, sigma).map_err(err)?;
            if !bind.is_empty() {
                cost = cost.substitute(&|v| bind.get(v).map(|&x| Expr::constant(x))).map_err(err)?;
            }
            let mut children = Vec::new();
            if let KernelBody::Composite(chs) = &kern.body {
                children.reserve(chs.len());
                for ch in chs {
                    let c = self.index[&ch.kernel];
                    let err = |e: crate::symbolic::ExprError| {
                        ResolveError(format!("{}: child '{}': {e}", where_(kern), ch.label))
                    };
                    let mut sub: Vec<(String, Expr)> = Vec::with_capacity(ch.bindings.len());
                    for (p, e) in &ch.bindings {
                        sub.push((p.clone(), subst_expr(e, sigma).map_err(err)?));
                    }
                    let mut n = subst_expr(&ch.count, sigma).map_err(err)?;
                    if !bind.is_empty() {
                        n = n.bind(bind).map_err(err)?;
                    }
                    children.push(self.node(t, c, ch.label.clone(), n, &sub, bind)?);
                }
            }
            Ok(ResolvedNode { label, kernel: kern.name.clone(), count, cost, children })
        })
    }
}

/// Memoized templates, indexed like the set's kernels.
pub struct Templates(Vec<Option<Cost>>);

impl Templates {
    pub fn get(&self, set: &KernelSet, name: &str) -> Option<&Cost> {
        set.index.get(name).and_then(|&i| self.0[i].as_ref())
    }
}

fn subst_expr(e: &Expr, sigma: &[(String, Expr)]) -> Result<Expr, crate::symbolic::ExprError> {
    if sigma.is_empty() {
        return Ok(e.clone());
    }
    e.substitute(&|v| sigma.iter().find(|(k, _)| k == v).map(|(_, x)| x.clone()))
}

/// `c` with the variables of `sigma` replaced (simultaneously).
pub fn substitute(c: &Cost, sigma: &[(String, Expr)]) -> Result<Cost, crate::symbolic::ExprError> {
    if sigma.is_empty() {
        return Ok(c.clone());
    }
    c.substitute(&|v| sigma.iter().find(|(k, _)| k == v).map(|(_, x)| x.clone()))
}

// ------------------------------------------------------------------------------ JSON output

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl ResolvedNode {
    /// The tree as the seed's resolved JSON (`resolved_cost_schema.json`), pretty-printed with
    /// two-space indents: the root has `kernel_name`, each child `kernel` and `count` (an
    /// integer when it is a constant >= 1, else the formula); `transcendentals` is written only
    /// when it is not zero; `children` only for composites.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0, true);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, indent: usize, root: bool) {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
            let pad = "  ".repeat(indent + 1);
            out.push_str("{\n");
            let field = |out: &mut String, k: &str, first: bool| {
                if !first {
                    out.push_str(",\n");
                }
                out.push_str(&pad);
                json_str(out, k);
                out.push_str(": ");
            };
            if root {
                field(out, "kernel_name", true);
                json_str(out, &self.kernel);
            } else {
                field(out, "kernel", true);
                json_str(out, &self.kernel);
                field(out, "count", false);
                match self.count.as_constant() {
                    Some(n) if n >= 1 && n <= i64::MAX as i128 => {
                        let _ = write!(out, "{n}");
                    }
                    _ => json_str(out, &self.count.to_string()),
                }
            }
            for (k, e) in [("flops", &self.cost.flops), ("memory_read", &self.cost.read), ("memory_write", &self.cost.write)] {
                field(out, k, false);
                json_str(out, &e.to_string());
            }
            if !self.cost.transcendentals.is_zero() {
                field(out, "transcendentals", false);
                json_str(out, &self.cost.transcendentals.to_string());
            }
            if !self.children.is_empty() {
                field(out, "children", false);
                out.push_str("{\n");
                let cpad = "  ".repeat(indent + 2);
                for (i, c) in self.children.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    out.push_str(&cpad);
                    json_str(out, &c.label);
                    out.push_str(": ");
                    c.write(out, indent + 2, false);
                }
                out.push('\n');
                out.push_str(&pad);
                out.push('}');
            }
            out.push('\n');
            out.push_str(&"  ".repeat(indent));
            out.push('}');
        })
    }

    /// The number of nodes.
    pub fn size(&self) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(x) = stack.pop() {
            n += 1;
            stack.extend(x.children.iter());
        }
        n
    }

    /// The child with `label`.
    pub fn child(&self, label: &str) -> Option<&ResolvedNode> {
        self.children.iter().find(|c| c.label == label)
    }
}
