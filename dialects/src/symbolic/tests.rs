//! Tests of the symbolic expressions: the seed's formulas, canonical printing, errors with
//! columns, and property tests on random expressions (a reference evaluator with Python's
//! semantics is the oracle; python3 itself is a second oracle for the printed text).

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

use super::*;

fn canon(s: &str) -> String {
    match parse(s) {
        Ok(e) => e.to_string(),
        Err(e) => panic!("{s}: {}", e.describe(s)),
    }
}
fn err(s: &str) -> (String, Option<usize>) {
    let e = parse(s).expect_err(s);
    (e.message.clone(), e.column(s))
}
fn env(pairs: &[(&str, i128)]) -> BTreeMap<String, i128> {
    pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
}

#[test]
fn seed_formulas() {
    assert_eq!(canon("2 * M * K * N + M * N"), "2*K*M*N + M*N");
    assert_eq!(
        canon("(M * N + M * K + K * N) * bytes"),
        "K*M*bytes + K*N*bytes + M*N*bytes"
    );
    assert_eq!(canon("M * N * bytes"), "M*N*bytes");
    assert_eq!(canon("config.n_embd//config.n_head"), "config.n_embd//config.n_head");
    assert_eq!(canon("3*config.n_embd"), "3*config.n_embd");
    assert_eq!(
        canon("batch_size*config.n_head*seq_len"),
        "batch_size*config.n_head*seq_len"
    );
    assert_eq!(canon("0"), "0");
    assert_eq!(
        canon("2*(batch_size*seq_len)*nx*nf + (batch_size*seq_len)*nf"),
        "2*batch_size*nf*nx*seq_len + batch_size*nf*seq_len"
    );
}

#[test]
fn canonical_order_and_combining() {
    assert_eq!(canon("N*M + 0"), "M*N");
    assert_eq!(canon("x + 1 + x"), "2*x + 1");
    assert_eq!(canon("x - x"), "0");
    assert_eq!(canon("1 + x*x + x"), "x**2 + x + 1");
    assert_eq!(canon("(a + b)**2"), "a**2 + 2*a*b + b**2");
    assert_eq!(canon("(a - b)*(a + b)"), "a**2 - b**2");
    assert_eq!(canon("-x + 3"), "-x + 3");
    assert_eq!(canon("3 - x"), "-x + 3");
    assert_eq!(canon("-(x*y)"), "-x*y");
    assert_eq!(canon("-2*x**2"), "-2*x**2");
    assert_eq!(canon("- - x"), "x");
    assert_eq!(canon("+x"), "x");
    assert_eq!(canon("2**10"), "1024");
    assert_eq!(canon("x**0"), "1");
    assert_eq!(canon("0**0"), "1");
    assert_eq!(canon("  a\t*\nb "), "a*b");
}

#[test]
fn floor_division_and_modulo() {
    // Constants fold with floor semantics.
    assert_eq!(canon("7//2"), "3");
    assert_eq!(canon("-7//2"), "-4");
    assert_eq!(canon("7//-2"), "-4");
    assert_eq!(canon("7%3"), "1");
    assert_eq!(canon("-7%3"), "2");
    assert_eq!(canon("7%-3"), "-2");
    // Identities.
    assert_eq!(canon("x//1"), "x");
    assert_eq!(canon("x%1"), "0");
    assert_eq!(canon("x//-1"), "-x");
    assert_eq!(canon("(2*x)//2"), "x");
    assert_eq!(canon("(2*x + 3)//2"), "x + 1");
    assert_eq!(canon("(2*x + 3)%2"), "1");
    assert_eq!(canon("(x*y + 2*y + 1)//y"), "x + 1//y + 2");
    assert_eq!(canon("(x*y)//y"), "x");
    assert_eq!(canon("(x*y)%y"), "0");
    assert_eq!(canon("(2*x)//(4*y)"), "x//(2*y)");
    assert_eq!(canon("(2*x)%4"), "2*(x%2)");
    assert_eq!(canon("(2*x)//(4*x)"), "0");
    assert_eq!(canon("x//(-y)"), "(-x)//y");
    assert_eq!(canon("(-x)//y"), "(-x)//y");
    assert_eq!(canon("x%(-y)"), "-((-x)%y)");
    assert_eq!(canon("(x + y)//(x + y)"), "1");
    assert_eq!(canon("(3*x + 3*y)//(x + y)"), "3");
    assert_eq!(canon("0//x"), "0");
    // Atoms print with the parentheses they need.
    assert_eq!(canon("2*(a//b)"), "2*(a//b)");
    assert_eq!(canon("-(a//b)"), "-(a//b)");
    assert_eq!(canon("c - a//b"), "c - a//b");
    assert_eq!(canon("a//(b*c)"), "a//(b*c)");
    assert_eq!(canon("(a + 1)//b"), "(a + 1)//b");
    assert_eq!(canon("(a//b)**2"), "(a//b)**2");
    assert_eq!(canon("a//b*c"), "c*(a//b)");
    assert_eq!(canon("a**2//b"), "a**2//b");
    assert_eq!(canon("1//x"), "1//x");
    assert_eq!(canon("(-1)//x"), "-1//x");
    // Equal atoms combine.
    assert_eq!(canon("a//b + (2*a)//(2*b)"), "2*(a//b)");
    assert_eq!(canon("(a//b)%c + (a//b)%c"), "2*((a//b)%c)");
}

#[test]
fn errors_are_located() {
    assert_eq!(
        err(""),
        (
            "empty formula, expected an integer, a name, '(', '+' or '-'".into(),
            Some(1)
        )
    );
    let (m, c) = err("2 *");
    assert!(m.starts_with("unexpected end of formula"), "{m}");
    assert_eq!(c, Some(4));
    assert_eq!(
        err("a / b"),
        ("'/' is not supported: use '//' (floor division)".into(), Some(3))
    );
    let (m, c) = err("a + * b");
    assert!(m.starts_with("unexpected '*'"), "{m}");
    assert_eq!(c, Some(5));
    assert_eq!(err("a $ b").0, "unexpected character '$'");
    assert_eq!(err("(a + b").1, Some(7));
    assert!(err("a b").0.starts_with("unexpected 'b', expected '%', '*'"));
    assert_eq!(err("x // (y - y)"), ("division by zero".into(), Some(7)));
    assert_eq!(err("x % 0"), ("division by zero".into(), Some(5)));
    assert_eq!(
        err("x ** y"),
        ("the exponent of '**' must be an integer constant".into(), Some(6))
    );
    assert_eq!(
        err("x ** 1000").0,
        format!("the exponent of '**' must be between 0 and {MAX_EXPONENT}, got 1000")
    );
    assert_eq!(err("x ** -1").1, Some(6));
    assert!(err("99999999999999999999999999999999999999999").0.contains("too large"));
    assert!(err("2**127*2").0.contains("overflow"));
    assert!(err("(a+b+c+d+e+f+g+h+i+j)**8").0.contains("too large"));
    assert_eq!(
        err("1.5").0,
        "unexpected '.': names are dotted identifiers like 'config.n_embd', numbers are integers"
    );
    assert_eq!(err("config.").1, Some(7));
    // Non-ASCII: columns count characters.
    assert_eq!(err("é + 1").1, Some(1));
}

#[test]
fn deep_inputs_do_not_overflow_the_stack() {
    let deep = format!("{}x{}", "(".repeat(20000), ")".repeat(20000));
    assert_eq!(canon(&deep), "x");
    let long = vec!["x"; 50000].join(" - ");
    assert_eq!(canon(&long), "-49998*x");
    let negs = format!("{}x", "-".repeat(30001));
    assert_eq!(canon(&negs), "-x");
    let nested = format!("{}x{}", "(".repeat(40), ")//y".repeat(40));
    assert!(err(&nested).0.contains("nested more than"));
}

#[test]
fn substitution_evaluation_free_vars() {
    let addmm: Expr = "2*M*K*N + M*N".parse().unwrap();
    let b: BTreeMap<String, Expr> = [("M", "batch_size*seq_len"), ("K", "nx"), ("N", "nf")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
        .collect();
    let conv = addmm.substitute_map(&b).unwrap();
    assert_eq!(conv.to_string(), "2*batch_size*nf*nx*seq_len + batch_size*nf*seq_len");
    let b2: BTreeMap<String, Expr> = [("nf", "3*config.n_embd"), ("nx", "config.n_embd")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
        .collect();
    let attn = conv.substitute_map(&b2).unwrap();
    assert_eq!(
        attn.to_string(),
        "6*batch_size*config.n_embd**2*seq_len + 3*batch_size*config.n_embd*seq_len"
    );
    assert_eq!(
        attn.free_vars().into_iter().collect::<Vec<_>>(),
        vec!["batch_size".to_string(), "config.n_embd".into(), "seq_len".into()]
    );
    let partial = attn.bind(&env(&[("batch_size", 1), ("seq_len", 128)])).unwrap();
    assert_eq!(partial.to_string(), "768*config.n_embd**2 + 384*config.n_embd");
    assert_eq!(
        partial.eval_map(&env(&[("config.n_embd", 768)])).unwrap(),
        768 * 768 * 768 + 384 * 768
    );
    assert_eq!(
        attn.eval_map(&env(&[])).unwrap_err().message,
        "unbound variable 'batch_size'"
    );
    // Divisions re-simplify after substitution; a divisor that becomes zero is an error.
    let d: Expr = "config.n_embd//config.n_head".parse().unwrap();
    assert_eq!(
        d.bind(&env(&[("config.n_embd", 768), ("config.n_head", 12)]))
            .unwrap()
            .to_string(),
        "64"
    );
    assert_eq!(
        d.bind(&env(&[("config.n_head", 0)])).unwrap_err().message,
        "division by zero"
    );
    assert_eq!(
        d.substitute(&|v| (v == "config.n_embd").then(|| "64*config.n_head".parse().unwrap()))
            .unwrap()
            .to_string(),
        "64"
    );
    assert_eq!(
        d.eval_map(&env(&[("config.n_embd", 7), ("config.n_head", 0)]))
            .unwrap_err()
            .message,
        "division by zero"
    );
    assert_eq!(d.free_vars().len(), 2);
    assert_eq!(Expr::var("x").scale(0).unwrap(), Expr::zero());
    assert_eq!(Expr::var("x").pow(3).unwrap().to_string(), "x**3");
    assert!(Expr::constant(i128::MAX).add(&Expr::one()).is_err());
    assert!(Expr::constant(i128::MIN).floordiv(&Expr::constant(-1)).is_err());
}

#[test]
fn numeric_bindings() {
    assert_eq!(
        parse_numeric_bindings("batch_size=1, seq_len=128").unwrap(),
        env(&[("batch_size", 1), ("seq_len", 128)])
    );
    assert_eq!(
        parse_numeric_bindings("config.n_embd=-3").unwrap(),
        env(&[("config.n_embd", -3)])
    );
    assert!(parse_numeric_bindings("x").unwrap_err().contains("name=value"));
    assert!(parse_numeric_bindings("1x=2")
        .unwrap_err()
        .contains("not a variable name"));
    assert!(parse_numeric_bindings("x=a").unwrap_err().contains("not an integer"));
    assert!(parse_numeric_bindings("x=1,x=2").unwrap_err().contains("twice"));
    assert!(
        is_implicit_var("config.n_layer")
            && is_implicit_var("bytes")
            && !is_implicit_var("config.")
            && !is_implicit_var("M")
    );
}

// ------------------------------------------------------------------------------ properties

/// A random expression tree, evaluated by the reference semantics below.
#[derive(Clone, Debug)]
enum T {
    Int(i64),
    Var(usize),
    Add(Box<T>, Box<T>),
    Sub(Box<T>, Box<T>),
    Mul(Box<T>, Box<T>),
    Div(Box<T>, Box<T>),
    Mod(Box<T>, Box<T>),
    Neg(Box<T>),
    Pow(Box<T>, u32),
}

const VARS: [&str; 4] = ["a", "b", "config.n", "seq_len"];

fn tree(divisions: bool) -> impl Strategy<Value = T> {
    let leaf = prop_oneof![(-4i64..8).prop_map(T::Int), (0..VARS.len()).prop_map(T::Var)];
    leaf.prop_recursive(4, 24, 2, move |inner| {
        let mut options = vec![
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| T::Add(a.into(), b.into()))
                .boxed(),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| T::Sub(a.into(), b.into()))
                .boxed(),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| T::Mul(a.into(), b.into()))
                .boxed(),
            inner.clone().prop_map(|a| T::Neg(a.into())).boxed(),
            (inner.clone(), 0u32..3).prop_map(|(a, k)| T::Pow(a.into(), k)).boxed(),
        ];
        if divisions {
            options.push(
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| T::Div(a.into(), b.into()))
                    .boxed(),
            );
            options.push(
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| T::Mod(a.into(), b.into()))
                    .boxed(),
            );
        }
        proptest::strategy::Union::new(options)
    })
}

impl T {
    /// Fully parenthesised Python text.
    fn text(&self) -> String {
        match self {
            T::Int(v) if *v < 0 => format!("({v})"),
            T::Int(v) => v.to_string(),
            T::Var(i) => VARS[*i].to_string(),
            T::Add(a, b) => format!("({} + {})", a.text(), b.text()),
            T::Sub(a, b) => format!("({} - {})", a.text(), b.text()),
            T::Mul(a, b) => format!("({} * {})", a.text(), b.text()),
            T::Div(a, b) => format!("({} // {})", a.text(), b.text()),
            T::Mod(a, b) => format!("({} % {})", a.text(), b.text()),
            T::Neg(a) => format!("(-{})", a.text()),
            T::Pow(a, k) => format!("({} ** {k})", a.text()),
        }
    }
    /// Python's semantics; `None` for a zero divisor (or an overflow).
    fn eval(&self, p: &[i128; 4]) -> Option<i128> {
        Some(match self {
            T::Int(v) => *v as i128,
            T::Var(i) => p[*i],
            T::Add(a, b) => a.eval(p)?.checked_add(b.eval(p)?)?,
            T::Sub(a, b) => a.eval(p)?.checked_sub(b.eval(p)?)?,
            T::Mul(a, b) => a.eval(p)?.checked_mul(b.eval(p)?)?,
            T::Div(a, b) => {
                let (x, y) = (a.eval(p)?, b.eval(p)?);
                if y == 0 {
                    return None;
                }
                x.div_euclid(y) - if y < 0 && x.rem_euclid(y) != 0 { 1 } else { 0 }
            }
            T::Mod(a, b) => {
                let (x, y) = (a.eval(p)?, b.eval(p)?);
                if y == 0 {
                    return None;
                }
                let r = x.rem_euclid(y);
                if y < 0 && r != 0 {
                    r + y
                } else {
                    r
                }
            }
            T::Neg(a) => a.eval(p)?.checked_neg()?,
            T::Pow(a, k) => a.eval(p)?.checked_pow(*k)?,
        })
    }
}

fn at(p: &[i128; 4]) -> impl Fn(&str) -> Option<i128> + '_ {
    move |v| VARS.iter().position(|x| *x == v).map(|i| p[i])
}

fn points() -> impl Strategy<Value = Vec<[i128; 4]>> {
    proptest::collection::vec(proptest::array::uniform4(-40i128..40), 12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The canonical form has the value of the expression it came from (soundness), and its
    /// printed text re-parses to the same form.
    #[test]
    fn canonical_form_keeps_values_and_round_trips(t in tree(true), pts in points()) {
        let text = t.text();
        let Ok(e) = parse(&text) else {
            // Only a divisor that is identically zero may fail.
            prop_assert!(pts.iter().all(|p| t.eval(p).is_none()), "{} failed to parse", text);
            return Ok(());
        };
        let printed = e.to_string();
        let again = parse(&printed).map_err(|x| TestCaseError::fail(format!("{printed}: {}", x.describe(&printed))))?;
        prop_assert_eq!(&again, &e, "{} printed as {}", text, printed);
        prop_assert_eq!(again.to_string(), printed.clone());
        for p in &pts {
            if let Some(want) = t.eval(p) {
                // The canonical form may avoid a zero divisor that the original had
                // (`(x*y)//y` is `x`), never the reverse.
                prop_assert_eq!(e.eval(&at(p)).ok(), Some(want), "{} = {} at {:?}", text, printed, p);
            }
        }
    }

    /// Polynomials: equal canonical forms <=> equal values at random points.
    #[test]
    fn polynomial_equality_is_decided(t1 in tree(false), t2 in tree(false), pts in points()) {
        let (e1, e2) = (parse(&t1.text()).unwrap(), parse(&t2.text()).unwrap());
        let agree = pts.iter().all(|p| t1.eval(p) == t2.eval(p));
        prop_assert_eq!(e1 == e2, agree, "{} vs {}: {} vs {}", t1.text(), t2.text(), e1, e2);
        // The same polynomial written differently.
        let same = parse(&format!("({}) * 1 + ({}) - ({}) + 0", t1.text(), t2.text(), t2.text())).unwrap();
        prop_assert_eq!(&same, &e1);
        let swapped = parse(&format!("({}) * ({})", t2.text(), t1.text())).unwrap();
        prop_assert_eq!(swapped, parse(&format!("({}) * ({})", t1.text(), t2.text())).unwrap());
    }

    /// Rewrites that keep the value keep the canonical form, also with divisions.
    #[test]
    fn equivalent_rewrites_print_equal(t in tree(true), k in 1i64..6, v in 0..VARS.len()) {
        let Ok(e) = parse(&t.text()) else { return Ok(()); };
        let s = t.text();
        let x = VARS[v];
        for variant in [
            format!("({s} * {k}) // {k}"),
            format!("({s} * {x}) // {x}"),
            format!("({s} * -{k}) // (-{k})"),
            format!("({s} + {k} * {x}) - {x} * {k}"),
        ] {
            prop_assert_eq!(parse(&variant).unwrap(), e.clone(), "{}", variant);
        }
        prop_assert_eq!(parse(&format!("({s} * {k} * {x}) % ({k} * {x})")).unwrap(), Expr::zero());
    }

    /// Substituting then evaluating equals evaluating with the substituted values.
    #[test]
    fn substitution_commutes_with_evaluation(t in tree(true), s in tree(false), pts in points()) {
        let Ok(e) = parse(&t.text()) else { return Ok(()); };
        let s_expr = parse(&s.text()).unwrap();
        let Ok(sub) = e.substitute(&|v| (v == "a").then(|| s_expr.clone())) else { return Ok(()); };
        for p in &pts {
            let Ok(a_val) = s_expr.eval(&at(p)) else { continue };
            let q = [a_val, p[1], p[2], p[3]];
            let (x, y) = (sub.eval(&at(p)), e.eval(&at(&q)));
            if let (Ok(x), Ok(y)) = (x, y) {
                prop_assert_eq!(x, y, "{} with a = {}: {}", e, s_expr, sub);
            }
        }
    }
}

/// python3 evaluates the printed canonical text to the same value (precedence and floor
/// semantics agree with Python's); skipped when python3 is not installed.
#[test]
fn python_agrees_with_the_printed_form() {
    let mut runner = TestRunner::deterministic();
    let strat = tree(true);
    let p = [7i128, -3, 5, 11];
    let mut lines = Vec::new();
    let mut want = Vec::new();
    while lines.len() < 300 {
        let t = strat.new_tree(&mut runner).unwrap().current();
        let Ok(e) = parse(&t.text()) else { continue };
        let Ok(v) = e.eval(&at(&p)) else { continue };
        lines.push(format!("print({})", e.to_string().replace("config.n", "config_n")));
        want.push(v.to_string());
    }
    let prog = format!(
        "a, b, config_n, seq_len = {}, {}, {}, {}\n{}\n",
        p[0],
        p[1],
        p[2],
        p[3],
        lines.join("\n")
    );
    let Ok(out) = std::process::Command::new("python3").arg("-c").arg(&prog).output() else {
        eprintln!("python3 not found; skipped");
        return;
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    for ((g, w), l) in got.iter().zip(&want).zip(&lines) {
        assert_eq!(g, w, "{l}");
    }
    assert_eq!(got.len(), want.len());
}

proptest! {
    /// No text makes the parser panic; whatever parses prints back to itself.
    #[test]
    fn any_text_is_safe(s in "[-+*/%() a-z0-9_.]{0,40}") {
        if let Ok(e) = parse(&s) {
            prop_assert_eq!(parse(&e.to_string()).unwrap(), e);
        }
    }

    /// Nor does any `#cost.cost` parameter text.
    #[test]
    fn any_cost_params_are_safe(s in "<[a-z =\",\\\\0-9*/+-]{0,40}>?") {
        if let Ok(c) = crate::cost::parse_params(&s) {
            prop_assert_eq!(crate::cost::parse_params(&c.params_text()).unwrap(), c);
        }
    }
}
