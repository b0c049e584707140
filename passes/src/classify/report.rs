//! The JSON report of `classify` (`report=FILE`, `xcs-opt --classify-report=FILE`): one entry
//! per function with its class, source, summary, confidence and, for hybrid functions, the
//! call paths to its two kinds of signal. Its shape is `schemas/classify_report_schema.json`.

use serde_json::{json, Map, Value};

use super::analysis::{class_name, FuncResult};

/// The report's format version (the schema's `version` const).
pub const VERSION: u64 = 1;

/// One function's entry.
pub fn entry(r: &FuncResult) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(r.name));
    m.insert("class".into(), json!(class_name(r.bits)));
    m.insert("source".into(), json!(r.source.as_str()));
    m.insert("confidence".into(), json!(r.confidence));
    m.insert("declaration".into(), json!(r.declaration));
    m.insert("tensor_ops".into(), json!(r.tensor_ops));
    m.insert("orchestration_ops".into(), json!(r.orchestration_ops));
    if let Some(p) = r.pytree_safe {
        m.insert("pytree_safe".into(), json!(p));
    }
    if let Some([t, o]) = &r.paths {
        m.insert("hybrid_paths".into(), json!({ "tensor": t, "orchestration": o }));
    }
    Value::Object(m)
}

/// The whole report: `{"version": 1, "counts": {...}, "functions": [...]}`, functions in
/// module order (nested modules after their parent's functions), pretty-printed.
pub fn to_value(results: &[FuncResult]) -> Value {
    let mut counts = Map::new();
    for c in ["tensor", "orchestration", "hybrid", "none"] {
        counts.insert(c.into(), json!(0));
    }
    for r in results {
        if let Some(Value::Number(n)) = counts.get_mut(class_name(r.bits)) {
            *n = (n.as_u64().unwrap_or(0) + 1).into();
        }
    }
    json!({
        "version": VERSION,
        "counts": counts,
        "functions": results.iter().map(entry).collect::<Vec<_>>(),
    })
}

/// The report as text (ends with a newline).
pub fn render(results: &[FuncResult]) -> String {
    let mut s = serde_json::to_string_pretty(&to_value(results)).unwrap_or_default();
    s.push('\n');
    s
}
