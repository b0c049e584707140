//! `classify` (seed 000): tensor / orchestration / hybrid classification of every `func.func`.
//! Explicit markers, then the function's own `xcs.module`, then its body and signature,
//! interprocedurally over the call graph; the results become function attributes and, on
//! request, a JSON report. The rules are in `docs/classify.md`; the tables in [`tables`].

mod analysis;
pub mod report;
pub mod tables;

use xcs_ir::opdef::Traits;
use xcs_ir::pass::{OptionKind, OptionSpec, Pass, PassInfo, PassResult};
use xcs_ir::{Body, Context, DiagSink, Diagnostic, Op};

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
    fn argument(&self) -> &'static str {
        "classify"
    }
    fn name(&self) -> &'static str {
        "Classify"
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        if !ctx.op_def(body.name()).is_some_and(|d| d.has(Traits::SymbolTable)) {
            diags.emit(Diagnostic::error(
                body.loc(),
                format!(
                    "'{}' op  was scheduled to run under Classify, but does not define a symbol table",
                    ctx.op_name_str(body.name())
                ),
            ));
            return Err(());
        }
        let mut all = Vec::new();
        let changed = self.classify_table(ctx, body, "", &mut all, diags)?;
        if let Some(path) = &self.report {
            let json = report::render(&all);
            if let Err(e) = std::fs::write(path, json) {
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

impl Classify {
    /// Classifies the functions of one symbol table (and, recursively, of the modules nested
    /// in it) and writes their attributes. Returns whether an attribute changed.
    fn classify_table(
        &self,
        ctx: &Context,
        table: &mut Body,
        prefix: &str,
        out: &mut Vec<FuncResult>,
        diags: &mut dyn DiagSink,
    ) -> Result<bool, ()> {
        let results = match analysis::Analysis::new(ctx, &self.matcher).run(table, self.report.is_some()) {
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
            changed |= write_attrs(ctx, table, r);
        }
        out.extend(results.into_iter().map(|mut r| {
            r.name = format!("{prefix}@{}", r.name);
            r
        }));
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
                changed |= self.classify_table(ctx, child, &p, out, diags)?;
            }
        }
        Ok(changed)
    }
}

/// Sets the four result attributes of one function; true if any changed.
fn write_attrs(ctx: &Context, table: &mut Body, r: &FuncResult) -> bool {
    let strs = |v: &[String]| ctx.array_attr(&v.iter().map(|s| ctx.str_attr(s)).collect::<Vec<_>>());
    let before = table.attrs(r.op);
    let mut d = before;
    for (k, v) in [
        ("xcs.class", ctx.str_attr(class_name(r.bits))),
        ("xcs.class_source", ctx.str_attr(r.source.as_str())),
        ("xcs.orchestration_ops", strs(&r.orchestration_ops)),
        ("xcs.tensor_ops", strs(&r.tensor_ops)),
    ] {
        d = ctx.dict_set(d, ctx.ident(k), Some(v));
    }
    table.set_attrs(r.op, d);
    d != before
}

#[cfg(test)]
mod tests;
