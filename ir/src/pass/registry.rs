//! The [`PassRegistry`]: every pass a pipeline may name (argument, summary, options, factory)
//! and named pass pipelines; `--list-passes` output in mlir-opt's layout.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::options::{help_lines, option_help_text, OptionKind, OptionSpec, PassOptions};
use super::Pass;

/// Builds a pass from its parsed options. The registry is there for passes that run a nested
/// pipeline (the inliner's `default-pipeline`). Errors are LLVM-style option messages.
pub type PassFactory = fn(&PassOptions, &PassRegistry) -> Result<Box<dyn Pass>, String>;

/// A registered pass.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// The pipeline name (`cse`), MLIR's `getArgument()`.
    pub argument: &'static str,
    /// The display name in IR dump headers and timing reports (`CSE`), MLIR's `getName()`.
    pub name: &'static str,
    pub summary: &'static str,
    /// What the pass does, for `docs/passes.md` (a paragraph of Markdown).
    pub description: &'static str,
    pub options: &'static [OptionSpec],
    pub factory: PassFactory,
}

/// A registered named pipeline: a list of pipeline elements (`cse,canonicalize`) that a
/// pipeline may name like a pass.
#[derive(Clone, Debug)]
pub struct PipelineInfo {
    pub argument: String,
    pub summary: String,
    pub elements: String,
}

#[derive(Clone)]
enum Entry {
    Pass(PassInfo),
    Pipeline(PipelineInfo),
}

/// Passes and pipelines by argument.
#[derive(Clone, Default)]
pub struct PassRegistry {
    entries: BTreeMap<String, Entry>,
}

impl PassRegistry {
    pub fn new() -> Self {
        Self::default()
    }
    /// Registers a pass (replacing one with the same argument).
    pub fn register(&mut self, info: PassInfo) {
        self.entries.insert(info.argument.to_string(), Entry::Pass(info));
    }
    /// Registers a named pipeline whose `elements` are parsed like the inside of
    /// `builtin.module(...)` when it is used.
    pub fn register_pipeline(&mut self, argument: &str, summary: &str, elements: &str) {
        self.entries.insert(
            argument.to_string(),
            Entry::Pipeline(PipelineInfo {
                argument: argument.to_string(),
                summary: summary.to_string(),
                elements: elements.to_string(),
            }),
        );
    }
    pub fn pass(&self, argument: &str) -> Option<&PassInfo> {
        match self.entries.get(argument) {
            Some(Entry::Pass(p)) => Some(p),
            _ => None,
        }
    }
    pub fn pipeline(&self, argument: &str) -> Option<&PipelineInfo> {
        match self.entries.get(argument) {
            Some(Entry::Pipeline(p)) => Some(p),
            _ => None,
        }
    }
    /// True if `argument` names a pass or a pipeline.
    pub fn contains(&self, argument: &str) -> bool {
        self.entries.contains_key(argument)
    }
    /// The registered passes, sorted by argument.
    pub fn passes(&self) -> impl Iterator<Item = &PassInfo> {
        self.entries.values().filter_map(|e| match e {
            Entry::Pass(p) => Some(p),
            _ => None,
        })
    }
    /// The registered pipelines, sorted by argument.
    pub fn pipelines(&self) -> impl Iterator<Item = &PipelineInfo> {
        self.entries.values().filter_map(|e| match e {
            Entry::Pipeline(p) => Some(p),
            _ => None,
        })
    }

    /// Creates pass `argument` with options text (the inside of `{...}`). The error is the
    /// message mlir-opt gives, e.g. ``failed to add `cse` with options `a=1`: no such option a``.
    pub fn create(&self, argument: &str, options: &str) -> Result<(Box<dyn Pass>, PassOptions), String> {
        let Some(info) = self.pass(argument) else {
            return Err(format!(
                "'{argument}' does not refer to a registered pass or pass pipeline"
            ));
        };
        let fail = |e: String| format!("failed to add `{argument}` with options `{options}`: {e}");
        let opts = PassOptions::parse(info.options, options).map_err(fail)?;
        let pass = (info.factory)(&opts, self).map_err(fail)?;
        Ok((pass, opts))
    }

    /// The pass reference page (`docs/passes.md`): each pass with its summary, description
    /// and options, generated from the registry (`xcs-opt --gen-pass-docs=docs/passes.md`).
    /// Passes whose argument starts with `test-` are left out.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        out.push_str("<!-- Generated from the pass registry by `xcs-opt --gen-pass-docs=docs/passes.md`; do not edit. -->\n\n");
        out.push_str("# Passes\n\nRun them with `xcs-opt --pass-pipeline='builtin.module(...)'` (MLIR's textual pipeline \
syntax), with one flag per pass (`xcs-opt --cse --canonicalize`), or from Rust with \
`xcs::Compiler::run`. Options go in braces: `canonicalize{max-iterations=3 top-down=false}`.\n\n");
        for p in self.passes().filter(|p| !p.argument.starts_with("test-")) {
            let _ = write!(out, "## `{}`\n\n_{}_\n\n", p.argument, p.summary);
            if !p.description.is_empty() {
                let _ = write!(out, "{}\n\n", p.description);
            }
            if !p.options.is_empty() {
                out.push_str("| Option | Type | Default | Description |\n| --- | --- | --- | --- |\n");
                let mut opts: Vec<&OptionSpec> = p.options.iter().collect();
                opts.sort_by_key(|o| o.name);
                for o in opts {
                    let default = if o.default.is_empty() { "(empty)".to_string() } else { format!("`{}`", o.default) };
                    let ty = match o.kind {
                        OptionKind::Bool => "bool".to_string(),
                        OptionKind::Enum(values) => values.iter().map(|v| format!("`{}`", v.name)).collect::<Vec<_>>().join(" \\| "),
                        OptionKind::StrList | OptionKind::IntList(_) => format!("list of {}", o.kind.value_name()),
                        _ => o.kind.value_name().to_string(),
                    };
                    let _ = writeln!(out, "| `{}` | {} | {} | {} |", o.name, ty, default, o.description.replace('|', "\\|"));
                }
                out.push('\n');
            }
        }
        for p in self.pipelines() {
            let _ = write!(out, "## `{}` (pipeline)\n\n_{}_\n\nRuns `{}`.\n\n", p.argument, p.summary, p.elements);
        }
        out
    }

    /// The `--list-passes` text: `Passes:` then each pass with its summary and options (with
    /// types, enum values and defaults), sorted by argument; then `Pass Pipelines:`.
    pub fn list_passes(&self) -> String {
        // mlir-opt's layout: the '-' of every line in one column, two past the widest entry.
        let mut width = 0;
        for e in self.entries.values() {
            let w = match e {
                Entry::Pass(p) => {
                    let opts = p
                        .options
                        .iter()
                        .map(|o| option_help_text(o).len() + 2)
                        .max()
                        .unwrap_or(0);
                    (p.argument.len() + 2).max(opts)
                }
                Entry::Pipeline(p) => p.argument.len() + 2,
            };
            width = width.max(w);
        }
        let dash_col = width + 6;
        let mut out = String::new();
        out.push_str("Passes:\n");
        for p in self.passes() {
            pass_line(p.argument, p.summary, dash_col, &mut out);
            let mut opts: Vec<&OptionSpec> = p.options.iter().collect();
            opts.sort_by_key(|o| o.name);
            for o in opts {
                help_lines(o, dash_col, &mut out);
            }
        }
        if self.pipelines().next().is_some() {
            out.push_str("Pass Pipelines:\n");
            for p in self.pipelines() {
                pass_line(&p.argument, &p.summary, dash_col, &mut out);
            }
        }
        out
    }
}

fn pass_line(arg: &str, summary: &str, dash_col: usize, out: &mut String) {
    let pad = dash_col.saturating_sub(4 + arg.len()).max(1);
    let _ = writeln!(out, "  --{arg}{:pad$}-   {summary}", "");
}
