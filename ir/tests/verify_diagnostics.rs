//! `--verify-diagnostics` against mlir-opt 22. For each `data/verify_diagnostics/X.mlir`:
//! `X.diags` holds the diagnostics mlir-opt emits for it (its plain error output, one header
//! line each, notes after their error) and `X.expected` the exact stderr of
//! `mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics X.mlir`.
//! The emitted diagnostics are fed to [`DiagnosticVerifier`] and its output must equal
//! mlir-opt's, byte for byte.

use xcs_ir::diag::{Diagnostic, Severity};
use xcs_ir::render::SourceMap;
use xcs_ir::verify_diagnostics::{scan_expectations, DiagnosticVerifier, VerifyLevel};
use xcs_ir::{Context, Location};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/verify_diagnostics");

fn severity(s: &str) -> Severity {
    match s {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        "remark" => Severity::Remark,
        _ => Severity::Note,
    }
}

/// Reads `X.diags`: `file:line:col: sev: message` or `<unknown>:0: sev: [loc("name"): ]message`.
fn read_diags(ctx: &Context, text: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for line in text.lines() {
        let (loc, rest) = if let Some(rest) = line.strip_prefix("<unknown>:0: ") {
            (Location::UNKNOWN, rest)
        } else {
            let mut parts = line.splitn(4, ':');
            let file = parts.next().unwrap();
            let l: u32 = parts.next().unwrap().parse().unwrap();
            let c: u32 = parts.next().unwrap().parse().unwrap();
            (ctx.file_loc(file, l, c), parts.next().unwrap().trim_start())
        };
        let (sev, mut msg) = rest.split_once(": ").unwrap();
        let mut loc = loc;
        if let Some(r) = msg.strip_prefix("loc(\"") {
            let (name, m) = r.split_once("\"): ").unwrap();
            loc = ctx.name_loc(name, None);
            msg = m;
        }
        let d = Diagnostic::new(severity(sev), loc, msg);
        if d.severity == Severity::Note && !out.is_empty() {
            out.last_mut().unwrap().notes.push(d);
        } else {
            out.push(d);
        }
    }
    out
}

fn run(name: &str, level: VerifyLevel) -> (String, bool) {
    let ctx = Context::new();
    let file = format!("{name}.mlir");
    let src = std::fs::read_to_string(format!("{DATA}/{file}")).unwrap();
    let diags = read_diags(&ctx, &std::fs::read_to_string(format!("{DATA}/{name}.diags")).unwrap());
    let mut sm = SourceMap::new();
    sm.add(&file, &src);
    let mut v = DiagnosticVerifier::new(level);
    v.add_file(&sm, &file);
    for d in &diags {
        v.process(&ctx, &sm, d);
    }
    let ok = v.finish(&sm);
    (v.take_output(), ok)
}

fn expected(name: &str) -> String {
    let text = std::fs::read_to_string(format!("{DATA}/{name}.expected")).unwrap();
    // mlir-opt 22 reports unmatched `@unknown` expectations twice (its handler's `verify()` runs
    // again in the destructor and does not clear them); XCS reports them once.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.dedup_by(|a, b| a.starts_with("<unknown>:0:") && a == b);
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn matches_mlir_opt_vd1() {
    let (out, ok) = run("vd1", VerifyLevel::All);
    assert!(!ok);
    assert_eq!(out, expected("vd1"));
}

#[test]
fn matches_mlir_opt_vd2_designators_regex_errors_near_misses_unknown() {
    let (out, ok) = run("vd2", VerifyLevel::All);
    assert!(!ok);
    assert_eq!(out, expected("vd2"));
}

#[test]
fn matches_mlir_opt_vd6_above_below_minus_notes_kind_mismatch() {
    let (out, ok) = run("vd6", VerifyLevel::All);
    assert!(!ok);
    assert_eq!(out, expected("vd6"));
}

#[test]
fn only_expected_ignores_unexpected() {
    let (out, _) = run("vd1", VerifyLevel::OnlyExpected);
    assert!(!out.contains("unexpected"), "{out}");
    assert!(out.contains("expected error \"wrong text\" was not produced"), "{out}");
}

#[test]
fn all_matched_is_success() {
    let ctx = Context::new();
    let src = "func.func @g() -> i32 {\n  // expected-error@+1 {{has 0 operands}}\n  return\n}\n";
    let mut sm = SourceMap::new();
    sm.add("ok.mlir", src);
    let mut v = DiagnosticVerifier::new(VerifyLevel::All);
    v.add_file(&sm, "ok.mlir");
    let d = Diagnostic::error(
        ctx.file_loc("ok.mlir", 3, 3),
        "'func.return' op has 0 operands, but enclosing function (@g) returns 1",
    );
    v.process(&ctx, &sm, &d);
    assert!(v.finish(&sm));
    assert_eq!(v.output(), "");
}

#[test]
fn scanning_designators() {
    let src = "a\n// expected-error@+2 {{x}}\n// expected-warning@below {{y}}\n\nb // expected-remark {{z}}\n// expected-note@above {{w}}\n// expected-error@-5 {{v}}\n// expected-error@unknown {{u}}\n";
    let (exps, errs) = scan_expectations("f.mlir", src, 0, 0);
    assert!(errs.is_empty());
    let got: Vec<(Severity, Option<u32>, &str)> = exps.iter().map(|e| (e.severity, e.line, e.text.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (Severity::Error, Some(4), "x"),
            (Severity::Warning, Some(4), "y"),
            (Severity::Remark, Some(5), "z"),
            (Severity::Note, Some(4), "w"),
            (Severity::Error, Some(2), "v"),
            (Severity::Error, None, "u"),
        ]
    );
    assert_eq!(exps[0].offset, src.find("expected-error@+2").unwrap());
    // a chunk scanned on its own keeps the file's line numbers and offsets
    let (exps, _) = scan_expectations("f.mlir", "\n// expected-error@+1 {{x}}\n", 10, 100);
    assert_eq!(exps[0].line, Some(13));
    assert_eq!(exps[0].offset, 104);
}

#[test]
fn regex_expectations() {
    let (exps, errs) = scan_expectations("f.mlir", "// expected-error-re {{op {{[a-z]+}} has {{[0-9]}} (x)}}\n", 0, 0);
    assert!(errs.is_empty());
    assert!(exps[0].matches_text("'foo' op bar has 3 (x) operands"));
    assert!(!exps[0].matches_text("'foo' op bar has x (x) operands"));
    // outside `{{...}}` the text is literal
    assert!(!exps[0].matches_text("op bar has 3 x"));
    let (_, errs) = scan_expectations("f.mlir", "// expected-error-re {{a {{(b}} c}}\n", 0, 0);
    assert_eq!(errs[0].message, "invalid regex: parentheses not balanced");
}
