//! The JSON report of `classify` (`report=FILE`, `xcs-opt --classify-report=FILE`): one entry
//! per function with its class, source, summary, confidence and, for hybrid functions, the
//! call paths to its two kinds of signal. Its shape is `schemas/classify_report_schema.json`.

use serde_json::{json, Map, Value};

use xcs_ir::Context;

use super::analysis::{class_name, FuncResult};

/// The report's format version (the schema's `version` const).
pub const VERSION: u64 = 1;

/// One function's entry; `prefix` is the path of its nested module (`@inner::`), if any.
pub fn entry(ctx: &Context, prefix: &str, r: &FuncResult<'_>) -> Value {
    let strs = |a| -> Vec<&str> {
        ctx.as_array(a)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&x| ctx.as_str(x))
            .collect()
    };
    let mut m = Map::new();
    m.insert("name".into(), json!(format!("{prefix}@{}", r.name)));
    m.insert("class".into(), json!(class_name(r.bits)));
    m.insert("source".into(), json!(r.source.as_str()));
    m.insert("confidence".into(), json!(r.confidence));
    m.insert("declaration".into(), json!(r.declaration));
    m.insert("tensor_ops".into(), json!(strs(r.tensor_ops)));
    m.insert("orchestration_ops".into(), json!(strs(r.orchestration_ops)));
    if let Some(p) = r.pytree_safe {
        m.insert("pytree_safe".into(), json!(p));
    }
    if let Some([t, o]) = &r.paths {
        m.insert("hybrid_paths".into(), json!({ "tensor": t, "orchestration": o }));
    }
    Value::Object(m)
}

/// The whole report: `{"version": 1, "counts": {...}, "functions": [...]}`, functions in
/// module order (nested modules after their parent's functions).
pub fn to_value(entries: Vec<Value>) -> Value {
    let mut counts = Map::new();
    for c in ["tensor", "orchestration", "hybrid", "none"] {
        counts.insert(c.into(), json!(0));
    }
    for e in &entries {
        if let Some(Value::Number(n)) = e["class"].as_str().and_then(|c| counts.get_mut(c)) {
            *n = (n.as_u64().unwrap_or(0) + 1).into();
        }
    }
    json!({
        "version": VERSION,
        "counts": counts,
        "functions": entries,
    })
}

/// The report as pretty-printed text (ends with a newline).
pub fn render(entries: Vec<Value>) -> String {
    let mut s = serde_json::to_string_pretty(&to_value(entries)).unwrap_or_default();
    s.push('\n');
    s
}
