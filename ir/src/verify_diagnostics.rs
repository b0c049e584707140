//! mlir-opt's `--verify-diagnostics` (`SourceMgrDiagnosticVerifierHandler` in MLIR's
//! `Diagnostics.cpp`): `// expected-error@+1 {{text}}` comments (also `-warning`, `-remark`,
//! `-note`; designators `@+N`, `@-N`, `@above`, `@below`, `@unknown`, none = same line;
//! `expected-error-re {{text {{regex}} text}}`) are matched against the emitted diagnostics and
//! their notes. A diagnostic matches an expectation on the same line (any line for `@unknown`,
//! which takes diagnostics without a file location) whose text it contains (or whose regex
//! finds a match in it) and whose severity is the same. Mismatches are rendered exactly as
//! mlir-opt renders them.
//!
//! Regexes are Rust `regex` syntax (MLIR uses POSIX ERE; the common subset is the same).

use std::sync::OnceLock;

use regex::Regex;

use crate::context::Context;
use crate::diag::{Diagnostic, Severity};
use crate::render::{find_file_loc, RenderOptions, SourceMap};

/// `--verify-diagnostics=all` (report unexpected diagnostics too) or `=only-expected`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum VerifyLevel {
    #[default]
    All,
    OnlyExpected,
}

/// One `expected-*` comment.
#[derive(Clone, Debug)]
pub struct Expectation {
    pub severity: Severity,
    /// The file and the 1-based line the diagnostic is expected on (`None` for `@unknown`).
    pub line: Option<u32>,
    /// The file and byte offset of the `expected-` text (where mismatches are reported).
    pub file: String,
    pub offset: usize,
    /// The text between the outer `{{` and `}}`.
    pub text: String,
    regex: Option<Regex>,
    pub matched: bool,
}

impl Expectation {
    /// True if `message` satisfies this expectation's text (substring or regex search).
    pub fn matches_text(&self, message: &str) -> bool {
        match &self.regex {
            Some(r) => r.is_match(message),
            None => message.contains(self.text.as_str()),
        }
    }
}

/// A malformed expectation (bad `-re` regex): reported like a mismatch.
#[derive(Clone, Debug)]
pub struct ScanError {
    pub file: String,
    pub offset: usize,
    pub len: usize,
    pub message: String,
}

fn expected_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$")
            .expect("valid expectation regex")
    })
}

/// The regex of an `expected-*-re` text: literal parts escaped, `{{...}}` parts as groups.
fn compile_regex(text: &str) -> Result<Regex, String> {
    let mut pattern = String::new();
    let mut rest = text;
    loop {
        let Some(start) = rest.find("{{") else {
            pattern.push_str(&regex::escape(rest));
            break;
        };
        pattern.push_str(&regex::escape(&rest[..start]));
        rest = &rest[start + 2..];
        let Some(end) = rest.find("}}") else {
            return Err("found start of regex with no end '}}'".to_string());
        };
        let part = &rest[..end];
        if let Err(e) = regex_syntax::ast::parse::Parser::new().parse(part) {
            return Err(format!("invalid regex: {}", regex_error_text(&e)));
        }
        pattern.push('(');
        pattern.push_str(part);
        pattern.push(')');
        rest = &rest[end + 2..];
    }
    Regex::new(&pattern).map_err(|e| format!("invalid regex: {e}"))
}

/// The wording of LLVM's `regerror` for the common syntax errors, else regex-syntax's own.
fn regex_error_text(e: &regex_syntax::ast::Error) -> String {
    use regex_syntax::ast::ErrorKind as K;
    match e.kind() {
        K::ClassUnclosed | K::ClassRangeInvalid | K::ClassRangeLiteral => "brackets ([ ]) not balanced".into(),
        K::GroupUnclosed | K::GroupUnopened => "parentheses not balanced".into(),
        K::RepetitionCountUnclosed => "braces not balanced".into(),
        K::RepetitionCountInvalid | K::RepetitionCountDecimalEmpty => "invalid repetition count(s)".into(),
        K::RepetitionMissing => "repetition-operator operand invalid".into(),
        K::EscapeUnexpectedEof => "trailing backslash (\\)".into(),
        other => other.to_string(),
    }
}

/// Scans `text` (a whole file, or a chunk of it starting at line `line_offset + 1` and byte
/// `byte_offset` of file `file`) for expectations.
pub fn scan_expectations(
    file: &str,
    text: &str,
    line_offset: u32,
    byte_offset: usize,
) -> (Vec<Expectation>, Vec<ScanError>) {
    let re = expected_re();
    let mut out: Vec<Expectation> = Vec::new();
    let mut errors = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    let num_lines = lines.len() as u32;
    // MLIR's bookkeeping: the 0-based index of the last line without an expectation, and the
    // expectations waiting for the next such line (`@below`).
    let mut last_plain: u32 = 0;
    let mut waiting: Vec<usize> = Vec::new();
    let mut line_start = 0usize;
    for (i, raw) in lines.iter().enumerate() {
        let i = i as u32;
        let start_of_line = line_start;
        line_start += raw.len() + 1;
        let line = raw.trim_end();
        let Some(caps) = re.captures(line) else {
            for &w in &waiting {
                out[w].line = Some(line_offset + i + 1);
            }
            waiting.clear();
            last_plain = i;
            continue;
        };
        let whole = caps.get(0).expect("match");
        let offset = byte_offset + start_of_line + whole.start();
        let severity = match &caps[1] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "remark" => Severity::Remark,
            _ => Severity::Note,
        };
        let text = caps.get(5).map_or("", |m| m.as_str()).to_string();
        let mut e = Expectation {
            severity,
            line: Some(line_offset + i + 1),
            file: file.to_string(),
            offset,
            text,
            regex: None,
            matched: false,
        };
        if caps.get(2).is_some() {
            match compile_regex(&e.text) {
                Ok(r) => e.regex = Some(r),
                Err(message) => {
                    errors.push(ScanError { file: file.to_string(), offset, len: e.text.len(), message });
                    continue;
                }
            }
        }
        if let Some(d) = caps.get(4) {
            let d = d.as_str();
            if let Some(n) = d.strip_prefix('+') {
                let n: u32 = n.parse().unwrap_or(0);
                e.line = Some(line_offset + i + 1 + n);
            } else if let Some(n) = d.strip_prefix('-') {
                let n: u32 = n.parse().unwrap_or(0);
                e.line = Some((line_offset + i + 1).saturating_sub(n));
            } else if d == "unknown" {
                e.line = None;
            } else if d == "above" {
                e.line = Some(line_offset + last_plain + 1);
            } else {
                // `below`: the next line without an expectation; the last line if none follows.
                waiting.push(out.len());
                e.line = Some(line_offset + num_lines);
            }
        }
        out.push(e);
    }
    (out, errors)
}

/// Matches diagnostics against the expectations of one or more files and renders mismatches
/// as mlir-opt does. Typical use by a driver:
///
/// ```ignore
/// let mut v = DiagnosticVerifier::new(VerifyLevel::All);
/// v.add_file(&sources, "t.mlir");              // scan once for the whole file
/// for each chunk { for d in diagnostics { v.process(&ctx, &sources, &d) } }
/// let ok = v.finish(&sources);                  // reports expectations never produced
/// eprint!("{}", v.take_output());               // exit code 1 unless ok
/// ```
pub struct DiagnosticVerifier {
    level: VerifyLevel,
    files: Vec<(String, Vec<Expectation>)>,
    unknown: Vec<Expectation>,
    output: String,
    failed: bool,
    render: RenderOptions,
}

impl DiagnosticVerifier {
    pub fn new(level: VerifyLevel) -> Self {
        DiagnosticVerifier {
            level,
            files: Vec::new(),
            unknown: Vec::new(),
            output: String::new(),
            failed: false,
            render: RenderOptions::default(),
        }
    }

    /// Colors in the rendered mismatches.
    pub fn set_render_options(&mut self, opts: RenderOptions) {
        self.render = opts;
    }

    /// Scans the whole text of `file` (as added to `sources`) for expectations.
    pub fn add_file(&mut self, sources: &SourceMap, file: &str) {
        let text = sources.text(file).unwrap_or("").to_string();
        self.add_text(sources, file, &text, 0, 0);
    }

    /// Scans a chunk of `file` starting at line `line_offset + 1`, byte `byte_offset`.
    pub fn add_text(&mut self, sources: &SourceMap, file: &str, text: &str, line_offset: u32, byte_offset: usize) {
        let (exps, errors) = scan_expectations(file, text, line_offset, byte_offset);
        for e in errors {
            self.failed = true;
            self.output.push_str(&sources.render_at_offset(
                Some((&e.file, e.offset)),
                e.len,
                Severity::Error,
                &e.message,
                self.render,
            ));
        }
        for e in exps {
            if e.line.is_none() {
                self.unknown.push(e);
                continue;
            }
            match self.files.iter_mut().find(|(f, _)| f == file) {
                Some((_, v)) => v.push(e),
                None => self.files.push((file.to_string(), vec![e])),
            }
        }
    }

    /// All expectations, file by file, then the `@unknown` ones.
    pub fn expectations(&self) -> impl Iterator<Item = &Expectation> {
        self.files.iter().flat_map(|(_, v)| v.iter()).chain(self.unknown.iter())
    }

    /// Handles one emitted diagnostic and each of its notes.
    pub fn process(&mut self, ctx: &Context, sources: &SourceMap, d: &Diagnostic) {
        self.process_one(ctx, sources, d);
        for n in &d.notes {
            self.process_one(ctx, sources, n);
        }
    }

    fn process_one(&mut self, ctx: &Context, sources: &SourceMap, d: &Diagnostic) {
        let file_loc = find_file_loc(ctx, d.loc);
        let exps: &mut Vec<Expectation> = match file_loc {
            Some((file, ..)) => {
                let name = ctx.str(file);
                let i = match self.files.iter().position(|(f, _)| f == name) {
                    Some(i) => i,
                    None => {
                        self.files.push((name.to_string(), Vec::new()));
                        self.files.len() - 1
                    }
                };
                &mut self.files[i].1
            }
            None => &mut self.unknown,
        };
        let mut near_miss: Option<(Option<(String, usize)>, Severity)> = None;
        for e in exps.iter_mut() {
            if let Some((_, line, _)) = file_loc {
                if e.line != Some(line) {
                    continue;
                }
            }
            if e.matches_text(&d.message) {
                if e.severity == d.severity {
                    e.matched = true;
                    return;
                }
                near_miss = Some((e.line.map(|_| (e.file.clone(), e.offset)), e.severity));
            }
        }
        if self.level == VerifyLevel::OnlyExpected {
            return;
        }
        self.failed = true;
        let text = match near_miss {
            Some((at, expected)) => {
                let msg =
                    format!("'{}' diagnostic emitted when expecting a '{}'", d.severity.as_str(), expected.as_str());
                let at = at.as_ref().map(|(f, o)| (f.as_str(), *o));
                sources.render_at_offset(at, 0, Severity::Error, &msg, self.render)
            }
            None => {
                let msg = format!("unexpected {}: {}", d.severity.as_str(), d.message);
                sources.render_message(ctx, d.loc, Severity::Error, &msg, self.render)
            }
        };
        self.output.push_str(&text);
    }

    /// Reports every expectation that was not matched; returns true if everything matched and
    /// nothing unexpected was seen (the tool's exit code is 0 then).
    pub fn finish(&mut self, sources: &SourceMap) -> bool {
        let mut text = String::new();
        for e in self.files.iter().flat_map(|(_, v)| v.iter()).chain(self.unknown.iter()) {
            if e.matched {
                continue;
            }
            self.failed = true;
            let msg = format!("expected {} \"{}\" was not produced", e.severity.as_str(), e.text);
            let at = e.line.map(|_| (e.file.as_str(), e.offset));
            text.push_str(&sources.render_at_offset(at, e.text.len(), Severity::Error, &msg, self.render));
        }
        self.output.push_str(&text);
        // Like MLIR, expectations are reported once.
        for (_, v) in &mut self.files {
            v.clear();
        }
        self.unknown.clear();
        !self.failed
    }

    /// What the verifier has rendered so far (to print on stderr).
    pub fn output(&self) -> &str {
        &self.output
    }

    pub fn take_output(&mut self) -> String {
        std::mem::take(&mut self.output)
    }

    /// True if a mismatch has been seen so far.
    pub fn has_failed(&self) -> bool {
        self.failed
    }
}
