//! End to end against mlir-opt 22: each `data/verifier/X.mlir` is split, parsed, verified and
//! its diagnostics rendered (or matched with `--verify-diagnostics` for `vd*`), and the output
//! must equal `X.ref`, mlir-opt's stderr for
//! `mlir-opt --allow-unregistered-dialect --split-input-file [--verify-diagnostics] X.mlir`
//! (run in that directory). The inputs use `foo.*` ops, unregistered in both tools.
//!
//! Uses the parser and the printer.

use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::render::SourceMap;
use xcs_ir::split::{split_input, DEFAULT_SPLIT_MARKER};
use xcs_ir::verifier::{verify_module_with, VerifyOptions};
use xcs_ir::verify_diagnostics::{DiagnosticVerifier, VerifyLevel};
use xcs_ir::Diagnostic;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/verifier");

/// What xcs-opt prints on stderr for `file`.
fn run(file: &str, verify_diagnostics: bool) -> String {
    let src = std::fs::read_to_string(format!("{DATA}/{file}")).unwrap();
    let ctx = xcs_dialects::context();
    let mut sm = SourceMap::new();
    sm.add(file, &src);
    let mut v = DiagnosticVerifier::new(VerifyLevel::All);
    if verify_diagnostics {
        v.add_file(&sm, file);
    }
    let mut out = String::new();
    for c in split_input(&src, DEFAULT_SPLIT_MARKER).chunks {
        let popts = ParseOptions { allow_unregistered: true, line_offset: c.line_offset, col_offset: c.col_offset, ..Default::default() };
        let diags: Vec<Diagnostic> = match parse_module(&ctx, c.text, file, &popts) {
            Err(d) => vec![d],
            Ok(m) => {
                let vopts = VerifyOptions { print_op_on_diagnostic: !verify_diagnostics, ..Default::default() };
                verify_module_with(&ctx, &m, &vopts).err().unwrap_or_default()
            }
        };
        for d in &diags {
            if verify_diagnostics {
                v.process(&ctx, &sm, d);
            } else {
                out.push_str(&sm.render(&ctx, d));
            }
        }
    }
    if verify_diagnostics {
        v.finish(&sm);
        out.push_str(&v.take_output());
    }
    out
}

fn expected(name: &str) -> String {
    let text = std::fs::read_to_string(format!("{DATA}/{name}.ref")).unwrap();
    // mlir-opt 22 reports unmatched `@unknown` expectations twice; XCS once.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.dedup_by(|a, b| a.starts_with("<unknown>:0:") && a == b);
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn check(name: &str, verify_diagnostics: bool) {
    let got = run(&format!("{name}.mlir"), verify_diagnostics);
    let want = expected(name);
    if got != want {
        let diff: Vec<String> = want
            .lines()
            .zip(got.lines())
            .filter(|(a, b)| a != b)
            .take(6)
            .map(|(a, b)| format!("mlir-opt: {a}\nxcs:      {b}"))
            .collect();
        panic!("{name}: output differs from mlir-opt's\n{}\n--- full output:\n{got}", diff.join("\n"));
    }
}

#[test]
fn dominance_terminators_symbols_branches() {
    check("t1x", false);
}

#[test]
fn dominance_in_nested_and_unregistered_regions() {
    check("t2x", false);
}

#[test]
fn cond_br_nested_modules_func_and_call_hooks() {
    check("t5", false);
}

#[test]
fn call_arity_and_result_types() {
    check("t6", false);
}

#[test]
fn func_attribute_arrays_and_entry_blocks() {
    check("t7", false);
}

#[test]
fn verify_diagnostics_end_to_end() {
    for name in ["vd1x", "vd2x", "vd6x"] {
        check(name, true);
    }
}
