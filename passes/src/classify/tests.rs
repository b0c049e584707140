//! Tests of `classify`: the interprocedural result against a naive fixed-point reference on
//! random call graphs, long chains and big cycles (no recursion depth, paths cut), order
//! independence and idempotence, and the JSON report against its JSON Schema (every lit input
//! of `test/Transforms/classify`, and reports broken on purpose).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::Module;

use crate::testing::{ctx, run};

/// (class, source, tensor_ops, orchestration_ops) of every function, by symbol.
type Classes = BTreeMap<String, (String, String, Vec<String>, Vec<String>)>;

fn parse(ctx: &xcs_ir::Context, text: &str) -> Module {
    let opts = ParseOptions {
        allow_unregistered: true,
        ..Default::default()
    };
    match parse_module(ctx, text, "t.mlir", &opts) {
        Ok(m) => m,
        Err(d) => panic!("parse error: {}\n{text}", d.message),
    }
}

fn classes(ctx: &xcs_ir::Context, m: &Module) -> Classes {
    let strs = |a: Option<xcs_ir::Attr>| -> Vec<String> {
        a.and_then(|a| ctx.as_array(a).map(|v| v.to_vec()))
            .unwrap_or_default()
            .into_iter()
            .map(|x| ctx.as_str(x).unwrap_or("?").to_string())
            .collect()
    };
    let mut out = BTreeMap::new();
    for op in m.ops() {
        let Some(name) = crate::util::symbol_name(ctx, &m.body, op) else {
            continue;
        };
        let get = |k: &str| {
            m.body
                .attr(ctx, op, k)
                .and_then(|a| ctx.as_str(a))
                .unwrap_or("")
                .to_string()
        };
        out.insert(
            name.to_string(),
            (
                get("xcs.class"),
                get("xcs.class_source"),
                strs(m.body.attr(ctx, op, "xcs.tensor_ops")),
                strs(m.body.attr(ctx, op, "xcs.orchestration_ops")),
            ),
        );
    }
    out
}

fn classify_text(text: &str, pipeline: &str) -> Classes {
    let ctx = ctx();
    let mut m = parse(&ctx, text);
    run(&ctx, &mut m, pipeline).unwrap_or_else(|e| panic!("{e:?}"));
    classes(&ctx, &m)
}

/// A small deterministic generator (no dependency needed for a test's random graphs).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a generated function is.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A body with: 0 nothing, 1 a tensor op, 2 an LLM call, 3 both.
    Body(u8),
    /// A body with a marker (1 tensor, 2 orchestration, 3 hybrid).
    Marked(u8),
    /// A declaration: 1 `torch.`, 2 `openai.`, 3 unknown name.
    Decl(u8),
}

fn gen_module(rng: &mut Lcg, n: usize) -> (String, Vec<Kind>, Vec<Vec<usize>>) {
    let kinds: Vec<Kind> = (0..n)
        .map(|_| match rng.below(10) {
            0 => Kind::Marked(1 + rng.below(3) as u8),
            1 => Kind::Decl(1 + rng.below(3) as u8),
            _ => Kind::Body(match rng.below(6) {
                0 => 1,
                1 => 2,
                2 => 3,
                _ => 0,
            }),
        })
        .collect();
    let name = |i: usize, k: Kind| match k {
        Kind::Decl(1) => format!("torch.f{i}"),
        Kind::Decl(2) => format!("openai.f{i}"),
        Kind::Decl(_) => format!("ext{i}"),
        _ => format!("f{i}"),
    };
    let mut calls = vec![Vec::new(); n];
    let mut text = String::new();
    for i in 0..n {
        let k = kinds[i];
        match k {
            Kind::Decl(_) => {
                let _ = writeln!(text, "func.func private @{}()", name(i, k));
                continue;
            }
            Kind::Marked(b) => {
                let m = ["", "tensor", "orchestration", "hybrid"][b as usize];
                let _ = writeln!(text, "func.func @{}() attributes {{xcs.mark = \"{m}\"}} {{", name(i, k));
            }
            Kind::Body(_) => {
                let _ = writeln!(text, "func.func @{}() {{", name(i, k));
            }
        }
        let bits = match k {
            Kind::Body(b) => b,
            _ => 0,
        };
        if bits & 1 != 0 {
            text.push_str("  %c = tensor.constant {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>\n");
        }
        if bits & 2 != 0 {
            text.push_str("  %s = xcs.str_const {value = \"p\"} : !xcs.str\n  %r = xcs.llm %s {model = \"m\", provider = \"echo\"} : !xcs.str\n");
        }
        for _ in 0..rng.below(4) {
            let j = rng.below(n as u64) as usize;
            calls[i].push(j);
            let _ = writeln!(text, "  call @{}() : () -> ()", name(j, kinds[j]));
        }
        text.push_str("  return\n}\n");
    }
    let names = (0..n).map(|i| name(i, kinds[i])).collect::<Vec<_>>();
    let _ = names;
    (text, kinds, calls)
}

/// The naive reference: iterate `bits(f) = own(f) | bits(callees)` to a fixed point.
fn reference(kinds: &[Kind], calls: &[Vec<usize>]) -> Vec<u8> {
    let mut bits: Vec<u8> = kinds
        .iter()
        .map(|k| match *k {
            Kind::Body(b) | Kind::Marked(b) | Kind::Decl(b) => b,
        })
        .collect();
    loop {
        let mut changed = false;
        for i in 0..kinds.len() {
            if let Kind::Body(_) = kinds[i] {
                let mut b = bits[i];
                for &c in &calls[i] {
                    b |= bits[c];
                }
                if b != bits[i] {
                    bits[i] = b;
                    changed = true;
                }
            }
        }
        if !changed {
            return bits;
        }
    }
}

#[test]
fn random_call_graphs_match_the_fixed_point() {
    let mut rng = Lcg(7);
    let ctx = ctx();
    for round in 0..100 {
        let n = 1 + rng.below(40) as usize;
        let (text, kinds, calls) = gen_module(&mut rng, n);
        let expected = reference(&kinds, &calls);
        let mut m = parse(&ctx, &text);
        run(&ctx, &mut m, "builtin.module(classify)").unwrap();
        let got = classes(&ctx, &m);
        let order: Vec<_> = m
            .ops()
            .into_iter()
            .filter_map(|op| crate::util::symbol_name(&ctx, &m.body, op))
            .collect();
        for (i, name) in order.iter().enumerate() {
            let (class, source, t, o) = &got[*name];
            let want = super::class_name(expected[i]);
            assert_eq!(class, want, "round {round}, @{name}\n{text}");
            // the sets agree with the class
            assert_eq!(!t.is_empty(), expected[i] & 1 != 0, "round {round}, @{name} {t:?}");
            assert_eq!(!o.is_empty(), expected[i] & 2 != 0, "round {round}, @{name} {o:?}");
            let want_source = match kinds[i] {
                Kind::Marked(_) => "marker",
                Kind::Decl(3) => "unknown",
                _ => "analysis",
            };
            assert_eq!(source, want_source, "round {round}, @{name}");
        }
        // reversing the order of the functions changes nothing
        let mut funcs: Vec<&str> = Vec::new();
        let mut cur = String::new();
        for line in text.lines() {
            cur.push_str(line);
            cur.push('\n');
            if line == "}" || line.starts_with("func.func private") {
                funcs.push(Box::leak(std::mem::take(&mut cur).into_boxed_str()));
            }
        }
        funcs.reverse();
        let reversed = classify_text(&funcs.concat(), "builtin.module(classify)");
        assert_eq!(reversed, got, "round {round}: order dependence");
    }
}

#[test]
fn idempotent() {
    let text = "func.func private @ext()\nfunc.func @f(%x: tensor<2xf32>) {\n  call @ext() : () -> ()\n  return\n}\n";
    let ctx = ctx();
    let mut m = parse(&ctx, text);
    let print = |m: &Module| xcs_ir::printer::print_module(&ctx, m, &Default::default());
    run(&ctx, &mut m, "builtin.module(classify)").unwrap();
    let once = print(&m);
    run(&ctx, &mut m, "builtin.module(classify)").unwrap();
    assert_eq!(print(&m), once);
    // and the pass reports no change the second time
    let mut pass_changed = None;
    let c = super::Classify::default();
    let mut diags: Vec<xcs_ir::Diagnostic> = Vec::new();
    if let Ok(r) = xcs_ir::pass::Pass::run(&c, &ctx, &mut m.body, &mut diags) {
        pass_changed = Some(r.changed());
    }
    assert_eq!(pass_changed, Some(false));
}

/// A chain @f0 -> @f1 -> ... -> @f{n-1} -> @openai.x: every function is orchestration; the
/// report's paths are cut at 64 entries. Deep enough to overflow a recursive SCC search.
#[test]
fn long_chain() {
    let n = 20_000;
    let mut text = String::with_capacity(n * 60);
    for i in 0..n {
        let callee = if i + 1 < n {
            format!("f{}", i + 1)
        } else {
            "openai.x".to_string()
        };
        let _ = writeln!(
            text,
            "func.func @f{i}(%a: tensor<2xf32>) {{\n  call @{callee}(%a) : (tensor<2xf32>) -> ()\n  return\n}}"
        );
    }
    text.push_str("func.func private @openai.x(tensor<2xf32>)\n");
    let ctx = ctx();
    let mut m = parse(&ctx, &text);
    let dir = tempdir("long_chain");
    let report = dir.path().join("r.json");
    run(
        &ctx,
        &mut m,
        &format!("builtin.module(classify{{report={}}})", report.display()),
    )
    .unwrap();
    let got = classes(&ctx, &m);
    // tensor types in every signature, orchestration from the leaf: hybrid all the way
    assert_eq!(got.len(), n + 1);
    assert!(got
        .iter()
        .filter(|(k, _)| k.starts_with('f'))
        .all(|(_, c)| c.0 == "hybrid"));
    assert_eq!(got["openai.x"].0, "orchestration");
    assert_eq!(got["f0"].3, ["@f1"]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let f0 = &v["functions"][0];
    assert_eq!(f0["name"], "@f0");
    let path = f0["hybrid_paths"]["orchestration"].as_array().unwrap();
    assert_eq!(path.len(), super::analysis::MAX_PATH + 1);
    assert_eq!(path[1], "@f1");
    assert_eq!(path[super::analysis::MAX_PATH], "...");
    assert_eq!(
        f0["hybrid_paths"]["tensor"],
        serde_json::json!(["@f0", "tensor<2xf32>"])
    );
    // near the end the path reaches the declaration
    let last = &v["functions"][n - 2];
    assert_eq!(
        last["hybrid_paths"]["orchestration"],
        serde_json::json!([format!("@f{}", n - 2), format!("@f{}", n - 1), "@openai.x"])
    );
    validate(&v).unwrap();
}

/// One cycle through 10k functions with a single tensor op in one of them and an LLM call in
/// another: every function is hybrid and each path stays inside the cycle and ends at the op.
#[test]
fn big_cycle() {
    let n = 10_000;
    let mut text = String::new();
    for i in 0..n {
        let _ = writeln!(text, "func.func @g{i}() {{");
        if i == 7 {
            text.push_str("  %c = tensor.constant {value = dense<1.0> : tensor<2xf32>} : tensor<2xf32>\n");
        }
        if i == n - 3 {
            text.push_str("  %s = xcs.str_const {value = \"p\"} : !xcs.str\n  %r = xcs.llm %s {model = \"m\", provider = \"echo\"} : !xcs.str\n");
        }
        let _ = writeln!(text, "  call @g{}() : () -> ()\n  return\n}}", (i + 1) % n);
    }
    let ctx = ctx();
    let mut m = parse(&ctx, &text);
    let dir = tempdir("big_cycle");
    let report = dir.path().join("r.json");
    run(
        &ctx,
        &mut m,
        &format!("builtin.module(classify{{report={}}})", report.display()),
    )
    .unwrap();
    let got = classes(&ctx, &m);
    assert!(got.values().all(|c| c.0 == "hybrid"));
    assert_eq!(got["g7"].2, ["@g8", "tensor.constant"]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        v["functions"][5]["hybrid_paths"]["tensor"],
        serde_json::json!(["@g5", "@g6", "@g7", "tensor.constant"])
    );
    assert_eq!(
        v["functions"][7]["hybrid_paths"]["tensor"],
        serde_json::json!(["@g7", "tensor.constant"])
    );
    validate(&v).unwrap();
}

/// A fresh temporary directory, removed when dropped.
fn tempdir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("xcs-classify-{tag}-"))
        .tempdir()
        .unwrap()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn validate(report: &serde_json::Value) -> Result<(), String> {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("schemas/classify_report_schema.json")).unwrap())
            .unwrap();
    let v = jsonschema::draft202012::new(&schema).map_err(|e| format!("bad schema: {e}"))?;
    let first = v
        .iter_errors(report)
        .next()
        .map(|e| format!("{} at {}", e, e.instance_path()));
    match first {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

/// Every lit input of `test/Transforms/classify` (split at `// -----`), classified with a
/// report: each report is valid against `schemas/classify_report_schema.json`.
#[test]
fn lit_reports_match_the_schema() {
    let dir = repo().join("test/Transforms/classify");
    let out = tempdir("lit");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.extension().is_none_or(|e| e != "mlir") || path.ends_with("invalid.mlir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for chunk in text.split("// -----") {
            let ctx = ctx();
            let mut m = parse(&ctx, chunk);
            let report = out.path().join(format!("{n}.json"));
            run(
                &ctx,
                &mut m,
                &format!("builtin.module(classify{{report={}}})", report.display()),
            )
            .unwrap();
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
            validate(&v).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!v["functions"].as_array().unwrap().is_empty());
            n += 1;
        }
    }
    assert!(n >= 8, "only {n} inputs");
}

/// The schema rejects reports that break its rules (so the test above can fail).
#[test]
fn schema_rejects_bad_reports() {
    let ctx = ctx();
    let mut m = parse(
        &ctx,
        "func.func private @ext()\nfunc.func @f(%x: tensor<2xf32>) {\n  call @ext() : () -> ()\n  return\n}\nfunc.func @g() {\n  return\n}\n",
    );
    let bad_dir = tempdir("bad");
    let report = bad_dir.path().join("r.json");
    run(
        &ctx,
        &mut m,
        &format!("builtin.module(classify{{report={}}})", report.display()),
    )
    .unwrap();
    let good: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    validate(&good).unwrap();
    type Breaker = Box<dyn Fn(&mut serde_json::Value)>;
    let broken: Vec<(&str, Breaker)> = vec![
        ("unknown class", Box::new(|v| v["functions"][0]["class"] = "gpu".into())),
        (
            "no version",
            Box::new(|v| _ = v.as_object_mut().unwrap().remove("version")),
        ),
        (
            "hybrid without paths",
            Box::new(|v| _ = v["functions"][1].as_object_mut().unwrap().remove("hybrid_paths")),
        ),
        (
            "none with ops",
            Box::new(|v| v["functions"][2]["tensor_ops"] = serde_json::json!(["x"])),
        ),
        (
            "confidence > 1",
            Box::new(|v| v["functions"][2]["confidence"] = 1.5.into()),
        ),
        (
            "duplicate names",
            Box::new(|v| v["functions"][1]["tensor_ops"] = serde_json::json!(["a", "a"])),
        ),
        ("unknown field", Box::new(|v| v["functions"][0]["extra"] = 1.into())),
        (
            "unknown source not hybrid",
            Box::new(|v| v["functions"][0]["class"] = "tensor".into()),
        ),
        ("bad name", Box::new(|v| v["functions"][0]["name"] = "ext".into())),
    ];
    for (what, f) in broken {
        let mut v = good.clone();
        f(&mut v);
        assert!(validate(&v).is_err(), "accepted: {what}");
    }
}

#[test]
fn nested_modules_are_reported_with_their_path() {
    let ctx = ctx();
    let mut m = parse(
        &ctx,
        "module @outer {\n  func.func @a() {\n    return\n  }\n  module @inner {\n    func.func private @torch.relu()\n  }\n}\n",
    );
    let nested_dir = tempdir("nested");
    let report = nested_dir.path().join("r.json");
    run(
        &ctx,
        &mut m,
        &format!("builtin.module(classify{{report={}}})", report.display()),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let names: Vec<_> = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    // a file holding one module: that module is the top one (as in MLIR)
    assert_eq!(names, ["@a", "@inner::@torch.relu"]);
    validate(&v).unwrap();
}
