//! Unit tests of cost-annotate: the report of every lit input
//! (valid against `schemas/resolved_cost_schema.json` with the `jsonschema` crate, every node the
//! sum of its children, every public function's node equal to its `cost` attribute), and
//! `bind=` agreeing with evaluating the symbolic formulas.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use xcs_dialects::cost::Cost;
use xcs_dialects::symbolic::Expr;
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::{Context, Module};

use crate::testing::{ctx, run};

fn e(s: &str) -> Expr {
    s.parse().unwrap()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xcs-cost-annotate-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn parse(ctx: &Context, text: &str) -> Module {
    let opts = ParseOptions {
        allow_unregistered: true,
        ..Default::default()
    };
    parse_module(ctx, text, "t.mlir", &opts).unwrap_or_else(|d| panic!("parse error: {}\n{text}", d.message))
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/resolved_cost_schema.json")).unwrap();
    jsonschema::draft202012::new(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn cost_of(v: &Value) -> Cost {
    let f = |k: &str| v.get(k).and_then(Value::as_str).map_or_else(Expr::zero, e);
    Cost {
        flops: f("flops"),
        read: f("memory_read"),
        write: f("memory_write"),
        transcendentals: f("transcendentals"),
    }
}

/// Every node's figures are the sum of its children's times their counts.
fn check_rollup(path: &str, v: &Value) {
    let Some(children) = v.get("children").and_then(Value::as_object) else {
        return;
    };
    let mut sum = Cost::default();
    for (label, c) in children {
        let count = match &c["count"] {
            Value::Number(n) => Expr::constant(n.as_i64().unwrap() as i128),
            Value::String(s) => e(s),
            other => panic!("{path}/{label}: count {other}"),
        };
        sum = sum.add(&cost_of(c).times(&count).unwrap()).unwrap();
        check_rollup(&format!("{path}/{label}"), c);
    }
    assert_eq!(sum, cost_of(v), "{path}: the node is not the sum of its children");
}

/// The lit inputs of test/Transforms/cost-annotate that cost-annotate accepts.
fn lit_chunks() -> Vec<(String, String)> {
    let dir = repo().join("test/Transforms/cost-annotate");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        if p.extension().is_none_or(|x| x != "mlir") || p.ends_with("errors.mlir") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for (i, chunk) in text.split("// -----").enumerate() {
            out.push((
                format!("{}#{i}", p.file_name().unwrap().to_string_lossy()),
                chunk.to_string(),
            ));
        }
    }
    out
}

#[test]
fn lit_reports_are_valid_and_roll_up() {
    let v = schema();
    let dir = tempdir("lit");
    let chunks = lit_chunks();
    assert!(chunks.len() >= 4, "{}", chunks.len());
    for (n, (name, text)) in chunks.iter().enumerate() {
        let ctx = ctx();
        let mut m = parse(&ctx, text);
        let report = dir.join(format!("{n}.json"));
        run(
            &ctx,
            &mut m,
            &format!("builtin.module(cost-annotate{{report={}}})", report.display()),
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let tree: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        if let Some(err) = v.iter_errors(&tree).next() {
            panic!("{name}: {err} at {}", err.instance_path());
        }
        check_rollup(name, &tree);
        // Each public function's node is its `cost` attribute.
        for op in m.ops() {
            let Some(fname) = m.body.attr(&ctx, op, "sym_name").and_then(|a| ctx.as_str(a)) else {
                continue;
            };
            let Some(node) = tree["children"].get(fname) else {
                continue;
            };
            let attr = m.body.attr(&ctx, op, "cost").expect("a function without cost");
            let c = Cost::from_attr(&ctx, attr).unwrap().unwrap();
            assert_eq!(c, cost_of(node), "{name}: @{fname}");
        }
    }
}

/// The schema rejects trees that break it (so the test above can fail).
#[test]
fn schema_rejects_bad_trees() {
    let v = schema();
    let good: Value = serde_json::json!({"kernel_name": "m", "flops": "1", "memory_read": "0", "memory_write": "0",
        "children": {"a": {"kernel": "k", "count": 1, "flops": "1", "memory_read": "0", "memory_write": "0"}}});
    assert!(v.is_valid(&good));
    let mut bad = good.clone();
    bad["children"]["a"]["count"] = Value::from(0);
    assert!(!v.is_valid(&bad));
    let mut bad = good.clone();
    bad["children"]["a"]["extra"] = Value::from("x");
    assert!(!v.is_valid(&bad));
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("memory_write");
    assert!(!v.is_valid(&bad));
}

/// `bind=` gives exactly the symbolic formulas evaluated at the numbers, op by op.
#[test]
fn bind_agrees_with_evaluating_the_formulas() {
    let values: BTreeMap<String, i128> = [
        ("batch_size", 3),
        ("seq_len", 7),
        ("config.n_embd", 16),
        ("batch", 2),
        ("hidden", 5),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let bind = values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut checked = 0;
    for (name, text) in lit_chunks() {
        let ctx = ctx();
        let mut sym = parse(&ctx, &text);
        run(&ctx, &mut sym, "builtin.module(cost-annotate)").unwrap();
        let mut num = parse(&ctx, &text);
        run(&ctx, &mut num, &format!("builtin.module(cost-annotate{{bind={bind}}})")).unwrap();
        let collect = |m: &Module| {
            let mut out = Vec::new();
            m.body.for_each_body(&mut |b| {
                for op in b.walk_ops() {
                    if let Some(a) = b.attr(&ctx, op, "cost") {
                        out.push(Cost::from_attr(&ctx, a).unwrap().unwrap());
                    }
                }
                if let Some(a) = b.self_attr(&ctx, "cost") {
                    out.push(Cost::from_attr(&ctx, a).unwrap().unwrap());
                }
            });
            out
        };
        let (s, n) = (collect(&sym), collect(&num));
        assert_eq!(s.len(), n.len(), "{name}");
        for (a, b) in s.iter().zip(&n) {
            let bound = a.substitute(&|v| values.get(v).map(|&x| Expr::constant(x))).unwrap();
            assert_eq!(bound, *b, "{name}");
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked}");
}
