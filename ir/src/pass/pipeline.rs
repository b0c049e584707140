//! Textual pass pipelines, exactly MLIR's syntax:
//! `pipeline ::= op-anchor '(' element (',' element)* ')'`,
//! `element ::= pipeline | pass-name ('{' options '}')?`, anchor `any` or an op name; and the
//! [`OpPassManager`] tree they build, printed back as `--dump-pass-pipeline` does.

use std::fmt;

use super::options::PassOptions;
use super::registry::PassRegistry;
use super::{Pass, PassResult};
use crate::body::{Body, Op};
use crate::context::Context;
use crate::diag::DiagSink;
use crate::opdef::Traits;

/// A malformed pipeline: the message (mlir-opt's wording) and, when known, the byte offset
/// into the pipeline text it points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    pub message: String,
    pub offset: Option<usize>,
    /// The pipeline text (for [`PipelineError::render`]).
    pub pipeline: String,
}

impl PipelineError {
    fn at(pipeline: &str, offset: usize, message: impl Into<String>) -> Self {
        PipelineError {
            message: message.into(),
            offset: Some(offset),
            pipeline: pipeline.to_string(),
        }
    }
    fn plain(pipeline: &str, message: impl Into<String>) -> Self {
        PipelineError {
            message: message.into(),
            offset: None,
            pipeline: pipeline.to_string(),
        }
    }
    /// The error as mlir-opt prints it: with a position, `MLIR Textual PassPipeline
    /// Parser:1:COL: error: MESSAGE`, the pipeline line and a caret; else
    /// `<unknown>:0: error: MESSAGE`.
    pub fn render(&self) -> String {
        match self.offset {
            Some(off) => {
                let off = off.min(self.pipeline.len());
                let col = self.pipeline[..off].chars().count();
                format!(
                    "MLIR Textual PassPipeline Parser:1:{}: error: {}\n{}\n{}^",
                    col + 1,
                    self.message,
                    self.pipeline,
                    " ".repeat(col)
                )
            }
            None => format!("<unknown>:0: error: {}", self.message),
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PipelineError {}

/// A pass in a pipeline with the options it was created with (for printing).
pub struct PassEntry {
    pub pass: Box<dyn Pass>,
    pub options: PassOptions,
}

/// One element of a pipeline.
pub enum PipelineElement {
    Pass(PassEntry),
    Nested(OpPassManager),
}

/// A list of passes and nested pass managers anchored on an op name (or `any`), MLIR's
/// `OpPassManager`.
pub struct OpPassManager {
    anchor: String,
    elements: Vec<PipelineElement>,
}

impl OpPassManager {
    /// An empty pass manager anchored on `anchor` (`builtin.module`, `func.func`, `any`).
    pub fn new(anchor: &str) -> Self {
        OpPassManager {
            anchor: anchor.to_string(),
            elements: Vec::new(),
        }
    }
    pub fn anchor(&self) -> &str {
        &self.anchor
    }
    pub fn is_any(&self) -> bool {
        self.anchor == "any"
    }
    pub fn elements(&self) -> &[PipelineElement] {
        &self.elements
    }
    pub fn len(&self) -> usize {
        self.elements.len()
    }
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }
    /// Adds a pass with no options to print.
    pub fn add_pass(&mut self, pass: Box<dyn Pass>) {
        self.elements.push(PipelineElement::Pass(PassEntry {
            pass,
            options: PassOptions::none(),
        }));
    }
    pub fn add_entry(&mut self, entry: PassEntry) {
        self.elements.push(PipelineElement::Pass(entry));
    }
    /// Adds a nested pass manager anchored on `anchor` and returns it.
    pub fn nest(&mut self, anchor: &str) -> &mut OpPassManager {
        self.elements.push(PipelineElement::Nested(OpPassManager::new(anchor)));
        match self.elements.last_mut() {
            Some(PipelineElement::Nested(m)) => m,
            _ => unreachable!(),
        }
    }
    /// Adds registered pass `argument` with `options` (the inside of `{...}`), checking
    /// that the pass may run on this manager's anchor.
    pub fn add_registered(&mut self, registry: &PassRegistry, argument: &str, options: &str) -> Result<(), String> {
        let (pass, opts) = registry.create(argument, options)?;
        self.check_schedulable(&*pass, argument, options)?;
        self.add_entry(PassEntry { pass, options: opts });
        Ok(())
    }
    fn check_schedulable(&self, pass: &dyn Pass, argument: &str, options: &str) -> Result<(), String> {
        match pass.anchor() {
            Some(a) if !self.is_any() && a != self.anchor => Err(format!(
                "Can't add pass '{}' restricted to '{a}' on a PassManager intended to run on '{}', did you intend to nest?\nfailed to add `{argument}` with options `{options}`",
                pass.name(),
                self.anchor
            )),
            _ => Ok(()),
        }
    }

    /// Parses `options` (the inside of `{...}`) over the options of every pass `argument` in
    /// this manager and its nested managers, and re-creates each of them from the result. A
    /// driver flag that sets a pass option (`xcs-opt --classify-report=FILE`) goes through
    /// this. Returns how many passes were updated.
    pub fn set_pass_options(&mut self, registry: &PassRegistry, argument: &str, options: &str) -> Result<usize, String> {
        let mut n = 0;
        for e in &mut self.elements {
            match e {
                PipelineElement::Pass(p) if p.pass.argument() == argument => {
                    let Some(info) = registry.pass(argument) else { continue };
                    let fail = |e: String| format!("failed to set `{options}` on `{argument}`: {e}");
                    let mut opts = p.options.clone();
                    if opts.is_empty() {
                        opts = PassOptions::defaults(info.options);
                    }
                    opts.parse_into(options).map_err(fail)?;
                    p.pass = (info.factory)(&opts, registry).map_err(fail)?;
                    p.options = opts;
                    n += 1;
                }
                PipelineElement::Pass(_) => {}
                PipelineElement::Nested(m) => n += m.set_pass_options(registry, argument, options)?,
            }
        }
        Ok(n)
    }

    /// The number of passes, counting nested managers' passes.
    pub fn num_passes(&self) -> usize {
        self.elements
            .iter()
            .map(|e| match e {
                PipelineElement::Pass(_) => 1,
                PipelineElement::Nested(m) => m.num_passes(),
            })
            .sum()
    }

    /// The pipeline as text: `anchor(a,b{opts},nested(c))`, or, `pretty`, one element per
    /// line indented by two spaces per level (`--dump-pass-pipeline`).
    pub fn to_text(&self, pretty: bool) -> String {
        let mut s = String::new();
        self.print_into(&mut s, pretty, 0);
        s
    }
    fn print_into(&self, s: &mut String, pretty: bool, level: usize) {
        s.push_str(&self.anchor);
        s.push('(');
        if pretty {
            s.push('\n');
        }
        for (i, e) in self.elements.iter().enumerate() {
            if i > 0 {
                s.push(',');
                if pretty {
                    s.push('\n');
                }
            }
            if pretty {
                s.push_str(&"  ".repeat(level + 1));
            }
            match e {
                PipelineElement::Pass(p) => {
                    s.push_str(p.pass.argument());
                    s.push_str(&p.options.to_text());
                }
                PipelineElement::Nested(m) => m.print_into(s, pretty, level + 1),
            }
        }
        if pretty {
            s.push('\n');
            s.push_str(&"  ".repeat(level));
        }
        s.push(')');
    }

    /// Whether this manager runs on an op named `name` (MLIR's `canScheduleOn`): an exact
    /// anchor match; or for `any`, a registered isolated-from-above op on which every pass may
    /// run.
    pub fn can_schedule_on(&self, ctx: &Context, name: &str) -> bool {
        if !self.is_any() {
            return self.anchor == name;
        }
        let registered_isolated = ctx
            .op_def(ctx.op_name(name))
            .is_some_and(|d| d.has(Traits::IsolatedFromAbove));
        registered_isolated
            && self.elements.iter().all(|e| match e {
                PipelineElement::Pass(p) => p.pass.anchor().is_none_or(|a| a == name),
                PipelineElement::Nested(_) => true,
            })
    }

    /// The ops directly in `body`'s root regions that a nested manager runs on. Errors
    /// (an anchor match that is not isolated from above) are MLIR's.
    pub(crate) fn matching_ops(&self, ctx: &Context, body: &Body) -> Result<Vec<Op>, crate::diag::Diagnostic> {
        let mut out = Vec::new();
        for op in body.top_ops() {
            let name = ctx.op_name_str(body.op_name(op));
            if !self.can_schedule_on(ctx, name) {
                continue;
            }
            if !body.is_isolated(op) {
                return Err(crate::diag::Diagnostic::op_error(
                    ctx,
                    body,
                    op,
                    "trying to schedule a pass on an operation not marked as 'IsolatedFromAbove'",
                ));
            }
            out.push(op);
        }
        Ok(out)
    }

    /// Runs this manager's elements on `body` sequentially, without instrumentation or
    /// verification (for passes that run a nested pipeline, e.g. the inliner's
    /// `default-pipeline`). Returns whether anything changed.
    #[allow(clippy::result_unit_err)]
    pub fn run_on_body(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<bool, ()> {
        let mut changed = false;
        for e in &self.elements {
            match e {
                PipelineElement::Pass(p) => {
                    if p.pass.run(ctx, body, diags)? == PassResult::Changed {
                        changed = true;
                    }
                }
                PipelineElement::Nested(m) => {
                    let ops = match m.matching_ops(ctx, body) {
                        Ok(ops) => ops,
                        Err(d) => {
                            diags.emit(d);
                            return Err(());
                        }
                    };
                    for (_, child) in body.nested_many_mut(&ops) {
                        changed |= m.run_on_body(ctx, child, diags)?;
                    }
                }
            }
        }
        Ok(changed)
    }

    /// Parses a full pipeline `anchor(elements)`.
    pub fn parse(text: &str, registry: &PassRegistry) -> Result<OpPassManager, PipelineError> {
        let t = text.trim();
        let base = text.len() - text.trim_start().len();
        let wrapped = match t.find('(') {
            Some(p) if p > 0 && t.ends_with(')') => Some(p),
            _ => None,
        };
        let Some(open) = wrapped else {
            return Err(PipelineError::plain(
                text,
                "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'",
            ));
        };
        let anchor = t[..open].trim_end();
        let inner_start = base + open + 1;
        let inner_end = base + t.len() - 1;
        let mut pm = OpPassManager::new(anchor);
        pm.parse_elements_into(text, inner_start, inner_end, registry)?;
        Ok(pm)
    }

    /// Parses a comma-separated element list (the inside of `anchor(...)`) into this manager.
    pub fn parse_elements(&mut self, text: &str, registry: &PassRegistry) -> Result<(), PipelineError> {
        self.parse_elements_into(text, 0, text.len(), registry)
    }

    fn parse_elements_into(
        &mut self,
        full: &str,
        start: usize,
        end: usize,
        registry: &PassRegistry,
    ) -> Result<(), PipelineError> {
        if full[start..end].trim().is_empty() {
            return Ok(());
        }
        let mut p = Parser {
            text: full,
            pos: start,
            end,
        };
        let elems = p.elements(0)?;
        resolve(self, full, elems, registry, 0)
    }
}

/// A syntactic pipeline element before registry lookup.
enum RawElement {
    Pass {
        name: String,
        offset: usize,
        options: Option<(String, usize)>,
    },
    Nested {
        anchor: String,
        offset: usize,
        elements: Vec<RawElement>,
    },
}

/// MLIR's `TextualPipeline::parsePipelineText`, as recursive descent with byte offsets.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    end: usize,
}

impl Parser<'_> {
    fn err(&self, at: usize, msg: &str) -> PipelineError {
        PipelineError::at(self.text, at, msg)
    }
    fn skip_spaces(&mut self) {
        while self.pos < self.end && self.text.as_bytes()[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    /// The elements `out` at the end of the text: an error inside parentheses (`depth > 0`,
    /// the innermost opened at `open_pos`).
    fn at_end(&self, depth: usize, open_pos: usize, out: Vec<RawElement>) -> Result<Vec<RawElement>, PipelineError> {
        if depth > 0 {
            return Err(self.err(open_pos, "encountered unbalanced parentheses while parsing pipeline"));
        }
        Ok(out)
    }
    /// The `,` or `)` after a pass's options or a nested pipeline, consumed (spaces before it
    /// skipped); `None` at the end of the text.
    fn separator(&mut self) -> Result<Option<u8>, PipelineError> {
        self.skip_spaces();
        if self.pos == self.end {
            return Ok(None);
        }
        let sep = self.text.as_bytes()[self.pos];
        if sep != b',' && sep != b')' {
            return Err(self.err(self.pos, "expected ',' after parsing pipeline"));
        }
        self.pos += 1;
        Ok(Some(sep))
    }
    /// Parses elements up to the end or a `)` closing this level (consumed when `depth > 0`).
    fn elements(&mut self, depth: usize) -> Result<Vec<RawElement>, PipelineError> {
        let bytes = self.text.as_bytes();
        let open_pos = self.pos.saturating_sub(1);
        let mut out = Vec::new();
        loop {
            // name up to one of ",(){"
            let start = self.pos;
            let mut i = start;
            while i < self.end && !matches!(bytes[i], b',' | b'(' | b')' | b'{') {
                i += 1;
            }
            let raw = &self.text[start..i];
            let name = raw.trim().to_string();
            let offset = start + (raw.len() - raw.trim_start().len());
            self.pos = i;
            if i == self.end {
                out.push(RawElement::Pass {
                    name,
                    offset,
                    options: None,
                });
                return self.at_end(depth, open_pos, out);
            }
            let mut sep = bytes[i];
            self.pos += 1;
            match sep {
                b'{' => {
                    let opt_start = self.pos;
                    let mut depth_b = 1;
                    let mut j = opt_start;
                    let mut close = None;
                    while j < self.end {
                        match bytes[j] {
                            b'{' => depth_b += 1,
                            b'}' => {
                                depth_b -= 1;
                                if depth_b == 0 {
                                    close = Some(j);
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let Some(close) = close else {
                        return Err(self.err(i, "missing closing '}' while processing pass options"));
                    };
                    out.push(RawElement::Pass {
                        name,
                        offset,
                        options: Some((self.text[opt_start..close].to_string(), opt_start)),
                    });
                    self.pos = close + 1;
                    match self.separator()? {
                        Some(s) => sep = s,
                        None => return self.at_end(depth, open_pos, out),
                    }
                }
                b'(' => {
                    let elements = self.elements(depth + 1)?;
                    out.push(RawElement::Nested {
                        anchor: name,
                        offset,
                        elements,
                    });
                    match self.separator()? {
                        Some(s) => sep = s,
                        None => return self.at_end(depth, open_pos, out),
                    }
                }
                _ => out.push(RawElement::Pass {
                    name,
                    offset,
                    options: None,
                }),
            }
            match sep {
                b',' => continue,
                b')' => {
                    if depth == 0 {
                        return Err(self.err(
                            self.pos - 1,
                            "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
                        ));
                    }
                    return Ok(out);
                }
                _ => unreachable!(),
            }
        }
    }
}

/// Looks the elements up in the registry and adds them to `pm`.
fn resolve(
    pm: &mut OpPassManager,
    full: &str,
    elems: Vec<RawElement>,
    registry: &PassRegistry,
    depth: usize,
) -> Result<(), PipelineError> {
    for e in elems {
        match e {
            RawElement::Nested {
                anchor,
                offset,
                elements,
            } => {
                if anchor.is_empty() {
                    return Err(PipelineError::at(
                        full,
                        offset,
                        "'' does not refer to a registered pass or pass pipeline",
                    ));
                }
                let nested = pm.nest(&anchor);
                resolve(nested, full, elements, registry, depth)?;
            }
            RawElement::Pass { name, offset, options } => {
                if let Some(pl) = registry.pipeline(&name) {
                    if let Some((_, at)) = options {
                        return Err(PipelineError::at(
                            full,
                            at,
                            format!("pass pipeline '{name}' does not take options"),
                        ));
                    }
                    if depth > 8 {
                        return Err(PipelineError::at(
                            full,
                            offset,
                            format!("pass pipeline '{name}' expands into itself"),
                        ));
                    }
                    let text = pl.elements.clone();
                    let mut p = Parser {
                        text: &text,
                        pos: 0,
                        end: text.len(),
                    };
                    let sub = p.elements(0).map_err(|e| {
                        PipelineError::at(full, offset, format!("in pass pipeline '{name}': {}", e.message))
                    })?;
                    resolve(pm, &text, sub, registry, depth + 1).map_err(|e| {
                        PipelineError::at(full, offset, format!("in pass pipeline '{name}': {}", e.message))
                    })?;
                    continue;
                }
                if registry.pass(&name).is_none() {
                    return Err(PipelineError::at(
                        full,
                        offset,
                        format!("'{name}' does not refer to a registered pass or pass pipeline"),
                    ));
                }
                let (opts, at) = options.unwrap_or((String::new(), offset));
                pm.add_registered(registry, &name, &opts)
                    .map_err(|m| PipelineError::at(full, at, m))?;
            }
        }
    }
    Ok(())
}
