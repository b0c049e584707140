//! `classify` (seed 000): tensor / orchestration / hybrid classification of every `func.func`.
//! Explicit markers, then the function's own `xcs.module`, then its body and signature,
//! interprocedurally over the call graph; the results become function attributes and, on
//! request, a JSON report. The rules are in `docs/classify.md`; the tables in [`tables`].

mod analysis;
pub mod report;
pub mod tables;

use xcs_ir::opdef::Traits;
use xcs_ir::pass::{OptionKind, OptionSpec, Pass, PassInfo, PassResult};
use xcs_ir::{Attr, AttrKind, Body, Context, DiagSink, Diagnostic, Ident, Op};

pub use analysis::{class_name, FuncResult, Source};
pub use analysis::{CONF_KEYWORD, CONF_MARKER, CONF_MODULE, CONF_NONE, CONF_OP, CONF_PREFIX, CONF_TYPE, CONF_UNKNOWN};
use tables::Matcher;

use crate::util;

static OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "orchestration-keywords",
        kind: OptionKind::StrList,
        default: "",
        description: "Extra orchestration keywords (substrings of lowercased names), after the seed's",
    },
    OptionSpec {
        name: "orchestration-prefixes",
        kind: OptionKind::StrList,
        default: "",
        description: "Extra orchestration module prefixes (e.g. mylib.agents), after the seed's",
    },
    OptionSpec {
        name: "report",
        kind: OptionKind::Str,
        default: "",
        description: "Write a JSON report of every function's classification to this file (xcs-opt --classify-report=FILE sets it)",
    },
    OptionSpec {
        name: "tensor-keywords",
        kind: OptionKind::StrList,
        default: "",
        description: "Extra tensor keywords (substrings of lowercased names), after the seed's",
    },
    OptionSpec {
        name: "tensor-prefixes",
        kind: OptionKind::StrList,
        default: "",
        description: "Extra tensor module prefixes (e.g. mylib.nn,mylib.ops), after the seed's",
    },
];

pub const INFO: PassInfo = PassInfo {
    argument: "classify",
    name: "Classify",
    summary: "Classify functions as tensor, orchestration, hybrid or none",
    description: "Seed 000's classification, on every `func.func` of the module (and of nested \
modules). Priority order: (1) an explicit `xcs.mark` (`\"tensor\"`, `\"orchestration\"`, \
`\"hybrid\"`) is trusted and nothing else is looked at (`xcs.pytree_safe` is kept); (2) the \
function's own `xcs.module` against the seed's module prefixes (`jax.` `jaxlib.` `numpy.` \
`torch.` `tensorflow.` `scipy.` are tensor; `anthropic.` `openai.` `langchain.` `litellm.` \
`ember.gateway.` `ember.operators.` are orchestration); (3) the body: `tensor` dialect ops are \
tensor ops, `xcs.llm` is orchestration, unregistered ops are matched by name, and each call \
takes the class of its callee, computed bottom-up over the call graph's strongly connected \
components (a recursive cycle is classified as a whole); (4) argument and result types whose \
text contains `tensor`, `array`, `ndarray` or `jax` are tensor signals. A declaration (no \
body) without a marker or a matching `xcs.module` is classified by its symbol name: module-aware \
matching first (a name starting with a prefix takes that side and skips keywords), then the \
keyword sets (`model`, `call`, `api`, `router`, `tool`, `dot` are deliberately not keywords); \
an unrecognized declaration is `hybrid` with source `unknown` (conservative). Results: \
`xcs.tensor_ops`, `xcs.orchestration_ops` (sorted names: op names, `@callee` symbols, type \
texts, the module, `xcs.mark` or `unknown`), `xcs.class` (`tensor`, `orchestration`, \
`hybrid`, `none`) and `xcs.class_source` (`marker`, `module`, `analysis`, `unknown`). The \
options extend the tables; `report=FILE` (or `xcs-opt --classify-report=FILE`) writes a JSON \
report with a confidence per function and, for hybrid functions, the call paths to their \
tensor and orchestration signals (`schemas/classify_report_schema.json`). See \
`docs/classify.md`.",
    options: OPTIONS,
    factory: |o, _| {
        Ok(Box::new(Classify {
            matcher: Matcher::new(
                o.str_list("tensor-prefixes"),
                o.str_list("orchestration-prefixes"),
                o.str_list("tensor-keywords"),
                o.str_list("orchestration-keywords"),
            ),
            report: Some(o.str("report").to_string()).filter(|r| !r.is_empty()),
        }))
    },
};

/// The classify pass.
#[derive(Default)]
pub struct Classify {
    pub matcher: Matcher,
    /// Where to write the JSON report.
    pub report: Option<String>,
}

impl Pass for Classify {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        util::require_symbol_table(ctx, body, "Classify", diags)?;
        let keys = ResultKeys::new(ctx);
        let mut entries = self.report.as_ref().map(|_| Vec::new());
        let changed = self.classify_table(ctx, &keys, body, "", &mut entries, diags)?;
        if let (Some(path), Some(entries)) = (&self.report, entries) {
            if let Err(e) = std::fs::write(path, report::render(entries)) {
                diags.emit(Diagnostic::error(
                    body.loc(),
                    format!("cannot write classify report '{path}': {e}"),
                ));
                return Err(());
            }
        }
        Ok(PassResult::from_changed(changed))
    }
}

/// The result attributes' names and the constant values, made once per run.
struct ResultKeys {
    /// `xcs.class`, `xcs.class_source`, `xcs.orchestration_ops`, `xcs.tensor_ops`: sorted.
    keys: [(Ident, &'static str); 4],
    classes: [Attr; 4],
    sources: [Attr; 4],
}

impl ResultKeys {
    fn new(ctx: &Context) -> Self {
        let names = [
            "xcs.class",
            "xcs.class_source",
            "xcs.orchestration_ops",
            "xcs.tensor_ops",
        ];
        ResultKeys {
            keys: names.map(|k| (ctx.ident(k), k)),
            classes: [0, 1, 2, 3].map(|b| ctx.str_attr(class_name(b))),
            sources: [Source::Marker, Source::Module, Source::Analysis, Source::Unknown]
                .map(|s| ctx.str_attr(s.as_str())),
        }
    }
}

impl Classify {
    /// Classifies the functions of one symbol table (and, recursively, of the modules nested
    /// in it) and writes their attributes; with a report, appends its entries. Returns whether
    /// an attribute changed.
    fn classify_table(
        &self,
        ctx: &Context,
        keys: &ResultKeys,
        table: &mut Body,
        prefix: &str,
        entries: &mut Option<Vec<serde_json::Value>>,
        diags: &mut dyn DiagSink,
    ) -> Result<bool, ()> {
        let results = match analysis::Analysis::new(ctx, &self.matcher).run(table, entries.is_some()) {
            Ok(r) => r,
            Err(errors) => {
                for e in errors {
                    diags.emit(e);
                }
                return Err(());
            }
        };
        let mut changed = false;
        for r in &results {
            changed |= write_attrs(ctx, keys, table, r);
        }
        if let Some(entries) = entries.as_mut() {
            entries.extend(results.iter().map(|r| report::entry(ctx, prefix, r)));
        }
        drop(results);
        // nested modules are symbol tables of their own
        let nested: Vec<(Op, String)> = table
            .top_ops()
            .into_iter()
            .filter(|&op| {
                table.is_isolated(op)
                    && util::has_trait(ctx, table, op, Traits::SymbolTable)
                    && !util::has_trait(ctx, table, op, Traits::FunctionLike)
            })
            .map(|op| {
                let name = util::symbol_name(ctx, table, op).unwrap_or("");
                (op, format!("{prefix}@{name}::"))
            })
            .collect();
        for (op, p) in nested {
            if let Some(child) = table.nested_mut(op) {
                changed |= self.classify_table(ctx, keys, child, &p, entries, diags)?;
            }
        }
        Ok(changed)
    }
}

/// Sets the four result attributes of one function (one new dictionary, merged in key
/// order); true if any changed.
fn write_attrs(ctx: &Context, keys: &ResultKeys, table: &mut Body, r: &FuncResult<'_>) -> bool {
    let source = match r.source {
        Source::Marker => 0,
        Source::Module => 1,
        Source::Analysis => 2,
        Source::Unknown => 3,
    };
    let values = [
        keys.classes[r.bits as usize & 3],
        keys.sources[source],
        r.orchestration_ops,
        r.tensor_ops,
    ];
    let before = table.attrs(r.op);
    let old = ctx.dict_entries(before);
    let mut merged: Vec<(Ident, Attr)> = Vec::with_capacity(old.len() + 4);
    let mut k = 0;
    for &(key, value) in old {
        if keys.keys.iter().any(|&(id, _)| id == key) {
            continue;
        }
        let name = ctx.str(key);
        while k < 4 && keys.keys[k].1 < name {
            merged.push((keys.keys[k].0, values[k]));
            k += 1;
        }
        merged.push((key, value));
    }
    while k < 4 {
        merged.push((keys.keys[k].0, values[k]));
        k += 1;
    }
    if merged.as_slice() == old {
        return false;
    }
    table.set_attrs(r.op, ctx.attr(AttrKind::Dictionary(merged.into())));
    true
}

#[cfg(test)]
mod tests;
