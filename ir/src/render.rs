//! Rendering diagnostics as mlir-opt does (`SourceMgrDiagnosticHandler` over LLVM's
//! `SMDiagnostic::print`): `file:line:col: error: message`, the source line, and a caret under
//! the column; notes the same way (their source line only where their location differs from the
//! previous one); call-site locations add `called from` notes.
//!
//! codespan-reporting keeps the files and their line tables (`SimpleFile` / `Files`); the layout
//! is written here, because none of codespan's renderers produces MLIR's: `Rich` draws boxes
//! and gutters, `Short` has no source line, and neither knows MLIR's `remark` severity. Columns
//! are 1-based byte columns, as in MLIR locations.

use std::borrow::Cow;
use std::fmt::Write as _;

use codespan_reporting::files::{Files, SimpleFile};
use rustc_hash::FxHashMap;

use crate::context::{Context, Ident};
use crate::diag::{Diagnostic, Severity};
use crate::location::{LocKind, Location};
use crate::source_text::SourceText;

/// How many `called from` frames a call-site location shows (MLIR's `callStackLimit`).
const CALL_STACK_LIMIT: usize = 10;
/// LLVM's tab stop for source lines.
const TAB_STOP: usize = 8;
/// Source lines longer than this (bytes) are shown as a window around the column, `...` at the
/// cut ends (LLVM prints the whole line, however long: a 200 MB single-line file would make a
/// 400 MB diagnostic; clang stops showing snippets past column 4096).
const MAX_SNIPPET_LINE: usize = 4096;
/// The window's width (bytes) either side of the column.
const SNIPPET_WINDOW: usize = 80;

/// The part of a long `line` around byte column `col` (cut at character boundaries, `...` where
/// cut), the column in it, and `range` clipped to it.
fn elide(line: &str, col: usize, range: Option<(usize, usize)>) -> (String, usize, Option<(usize, usize)>) {
    let mut start = col.saturating_sub(SNIPPET_WINDOW).min(line.len());
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = col.saturating_add(SNIPPET_WINDOW).min(line.len());
    while !line.is_char_boundary(end) {
        end += 1;
    }
    let prefix = if start > 0 { "..." } else { "" };
    let suffix = if end < line.len() { "..." } else { "" };
    let shift = |c: usize| c.clamp(start, end) - start + prefix.len();
    let window = format!("{prefix}{}{suffix}", &line[start..end]);
    (window, shift(col), range.map(|(a, b)| (shift(a), shift(b))))
}

/// Rendering settings.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// ANSI colors as LLVM uses on a terminal (bold header, colored severity, green caret).
    pub color: bool,
}

/// The source texts diagnostics point into, by file name.
#[derive(Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    by_name: FxHashMap<String, usize>,
    read_files: bool,
}

/// One file: its text, and its line table, built on the first diagnostic that needs it (a
/// mapped input is never scanned for lines unless something is reported in it).
struct SourceFile {
    text: SourceText,
    lines: std::sync::OnceLock<SimpleFile<String, SourceText>>,
    name: String,
}

impl SourceFile {
    fn indexed(&self) -> &SimpleFile<String, SourceText> {
        self.lines.get_or_init(|| SimpleFile::new(self.name.clone(), self.text.clone()))
    }
}

/// A position in a source file, as a location names it and as the file holds it.
struct Resolved<'a> {
    line_text: &'a str,
    /// 0-based byte column in `line_text`.
    col: usize,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file's text.
    pub fn add(&mut self, name: &str, text: &str) {
        self.add_owned(name, text.to_string());
    }

    /// Adds (or replaces) a file's text without copying it.
    pub fn add_owned(&mut self, name: &str, text: String) {
        self.add_text(name, SourceText::owned(text));
    }

    /// Adds (or replaces) a file's text, e.g. a mapped file ([`SourceText::read_file`]).
    pub fn add_text(&mut self, name: &str, text: SourceText) {
        let f = SourceFile { text, lines: std::sync::OnceLock::new(), name: name.to_string() };
        match self.by_name.get(name) {
            Some(&i) => self.files[i] = f,
            None => {
                self.by_name.insert(name.to_string(), self.files.len());
                self.files.push(f);
            }
        }
    }

    /// The text of a file added with [`SourceMap::add`].
    pub fn text(&self, name: &str) -> Option<&str> {
        self.by_name.get(name).map(|&i| self.files[i].text.as_str())
    }

    /// The shared text of a file (to hand to the parser, see [`crate::parser::ParseOptions::source`]).
    pub fn source_text(&self, name: &str) -> Option<SourceText> {
        self.by_name.get(name).map(|&i| self.files[i].text.clone())
    }

    /// Also read files that locations name but that were not added, from disk (as MLIR's
    /// source manager does, e.g. for `loc("model.py":3:1)`). Off by default.
    pub fn set_read_files(&mut self, on: bool) {
        self.read_files = on;
    }

    fn file(&self, name: &str) -> Option<Cow<'_, SimpleFile<String, SourceText>>> {
        if let Some(&i) = self.by_name.get(name) {
            return Some(Cow::Borrowed(self.files[i].indexed()));
        }
        if self.read_files {
            if let Ok(text) = std::fs::read_to_string(name) {
                return Some(Cow::Owned(SimpleFile::new(name.to_string(), SourceText::owned(text))));
            }
        }
        None
    }

    /// Renders a diagnostic and its notes (no colors).
    pub fn render(&self, ctx: &Context, d: &Diagnostic) -> String {
        self.render_with(ctx, d, RenderOptions::default())
    }

    /// Renders a diagnostic and its notes, as MLIR's `SourceMgrDiagnosticHandler`.
    pub fn render_with(&self, ctx: &Context, d: &Diagnostic, opts: RenderOptions) -> String {
        let mut out = String::new();
        let mut stack: Vec<(Location, &str)> = Vec::new();
        let mut add = |loc: Location, what: &'static str| {
            if let Some(l) = find_loc_to_show(ctx, loc) {
                stack.push((l, what));
            }
        };
        let mut loc = d.loc;
        add(loc, "");
        if let LocKind::CallSite { caller, .. } = call_site(ctx, loc) {
            loc = caller;
            for _ in 0..CALL_STACK_LIMIT {
                add(loc, "called from");
                match call_site(ctx, loc) {
                    LocKind::CallSite { caller, .. } => loc = caller,
                    _ => break,
                }
            }
        }
        if stack.is_empty() {
            self.emit(&mut out, ctx, d.loc, &d.message, d.severity, true, opts);
        } else {
            self.emit(&mut out, ctx, stack[0].0, &d.message, d.severity, true, opts);
            for &(l, what) in &stack[1..] {
                self.emit(&mut out, ctx, l, what, Severity::Note, true, opts);
            }
        }
        for n in &d.notes {
            self.emit(&mut out, ctx, n.loc, &n.message, n.severity, loc != n.loc, opts);
            loc = n.loc;
        }
        out
    }

    /// Renders one message at one location (MLIR's `emitDiagnostic(loc, message, kind,
    /// displaySourceLine)`), without notes.
    pub fn render_message(
        &self,
        ctx: &Context,
        loc: Location,
        severity: Severity,
        message: &str,
        opts: RenderOptions,
    ) -> String {
        let mut out = String::new();
        self.emit(&mut out, ctx, loc, message, severity, true, opts);
        out
    }

    /// Renders a message at a byte offset of a file, with `~` under the `len` bytes from there
    /// (LLVM's `SourceMgr::PrintMessage` with a range). `None` prints `<unknown>:0:`.
    pub fn render_at_offset(
        &self,
        at: Option<(&str, usize)>,
        len: usize,
        severity: Severity,
        message: &str,
        opts: RenderOptions,
    ) -> String {
        let mut out = String::new();
        let Some((name, offset)) = at else {
            write_header(&mut out, "<unknown>:0", severity, message, opts);
            return out;
        };
        let Some(file) = self.file(name) else {
            write_header(&mut out, name, severity, message, opts);
            return out;
        };
        let src = file.source().as_str();
        let offset = offset.min(src.len());
        let Ok(li) = file.line_index((), offset) else {
            write_header(&mut out, name, severity, message, opts);
            return out;
        };
        let start = file.line_range((), li).map_or(0, |r| r.start);
        let line_text = line_at(src, start);
        let col = offset - start;
        write_header(&mut out, &format!("{name}:{}:{}", li + 1, col + 1), severity, message, opts);
        write_snippet(&mut out, line_text, col, Some((col, col + len)), opts);
        out
    }

    /// Writes one diagnostic line (and its source line) for `loc`.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &self,
        out: &mut String,
        ctx: &Context,
        loc: Location,
        message: &str,
        severity: Severity,
        show_source: bool,
        opts: RenderOptions,
    ) {
        let Some((file, line, col)) = find_file_loc(ctx, loc) else {
            let msg = if loc.is_unknown() {
                message.to_string()
            } else {
                format!("{}: {message}", crate::printer::loc_to_string(ctx, loc))
            };
            write_header(out, "<unknown>:0", severity, &msg, opts);
            return;
        };
        let name = ctx.str(file);
        let locus = format!("{name}:{line}:{col}");
        if show_source {
            if let Some(f) = self.file(name) {
                if let Some(r) = resolve(&f, line, col) {
                    write_header(out, &locus, severity, message, opts);
                    write_snippet(out, r.line_text, r.col, None, opts);
                    return;
                }
            }
        }
        write_header(out, &locus, severity, message, opts);
    }
}

/// The text of the line starting at byte `start`, up to its `\n` or `\r`.
fn line_at(src: &str, start: usize) -> &str {
    let rest = &src[start..];
    let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    &rest[..end]
}

/// LLVM's `FindLocForLineAndColumn`: the line must exist and the column may point at most just
/// past its last character.
fn resolve<'a>(file: &'a SimpleFile<String, SourceText>, line: u32, col: u32) -> Option<Resolved<'a>> {
    if line == 0 || col == 0 {
        return None;
    }
    let range = file.line_range((), line as usize - 1).ok()?;
    let src = file.source().as_str();
    let line_text = line_at(src, range.start);
    let col = col as usize - 1;
    if col > line_text.len() {
        return None;
    }
    Some(Resolved { line_text, col })
}

fn severity_color(s: Severity) -> &'static str {
    match s {
        Severity::Error => "\x1b[1;31m",
        Severity::Warning => "\x1b[1;35m",
        Severity::Note => "\x1b[1;30m",
        Severity::Remark => "\x1b[1;34m",
    }
}

const BOLD: &str = "\x1b[1m";
const GREEN: &str = "\x1b[1;32m";
const RESET: &str = "\x1b[0m";

fn write_header(out: &mut String, locus: &str, severity: Severity, message: &str, opts: RenderOptions) {
    if opts.color {
        let _ = writeln!(
            out,
            "{BOLD}{locus}: {RESET}{}{}: {RESET}{BOLD}{message}{RESET}",
            severity_color(severity),
            severity.as_str()
        );
    } else {
        let _ = writeln!(out, "{locus}: {}: {message}", severity.as_str());
    }
}

/// The source line and the caret line under it, as LLVM's `SMDiagnostic::print`: tabs expand
/// to tab stops of 8 in both; a range is underlined with `~`; lines with non-ASCII characters
/// are shown without a caret line (LLVM cannot align it).
fn write_snippet(out: &mut String, line: &str, col: usize, range: Option<(usize, usize)>, opts: RenderOptions) {
    if line.len() > MAX_SNIPPET_LINE {
        let (window, col, range) = elide(line, col, range);
        return write_snippet(out, &window, col, range, opts);
    }
    let mut src = String::new();
    let mut out_col = 0;
    for ch in line.chars() {
        if ch == '\t' {
            loop {
                src.push(' ');
                out_col += 1;
                if out_col % TAB_STOP == 0 {
                    break;
                }
            }
        } else {
            src.push(ch);
            out_col += 1;
        }
    }
    out.push_str(&src);
    out.push('\n');
    if !line.is_ascii() {
        return;
    }
    let bytes = line.as_bytes();
    let mut caret = vec![b' '; bytes.len() + 1];
    if let Some((s, e)) = range {
        let e = e.min(caret.len());
        for c in caret.iter_mut().take(e).skip(s) {
            *c = b'~';
        }
    }
    let at = col.min(bytes.len());
    caret[at] = b'^';
    while caret.last() == Some(&b' ') {
        caret.pop();
    }
    let mut text = String::new();
    let mut out_col = 0;
    for (i, &c) in caret.iter().enumerate() {
        if i >= bytes.len() || bytes[i] != b'\t' {
            text.push(c as char);
            out_col += 1;
            continue;
        }
        loop {
            text.push(c as char);
            out_col += 1;
            if out_col % TAB_STOP == 0 {
                break;
            }
        }
    }
    if opts.color {
        let _ = writeln!(out, "{GREEN}{text}{RESET}");
    } else {
        out.push_str(&text);
        out.push('\n');
    }
}

fn call_site(ctx: &Context, loc: Location) -> LocKind {
    ctx.loc_kind(loc)
}

/// MLIR's `findLocToShow`: the location whose source line a diagnostic shows (a name's child,
/// a call site's callee, a fused location's first showable part; never `unknown`).
pub fn find_loc_to_show(ctx: &Context, loc: Location) -> Option<Location> {
    match ctx.loc_kind(loc) {
        LocKind::Unknown => None,
        LocKind::FileLineCol { .. } => Some(loc),
        LocKind::Name { child, .. } => child.and_then(|c| find_loc_to_show(ctx, c)),
        LocKind::CallSite { callee, .. } => find_loc_to_show(ctx, callee),
        LocKind::Fused { locs, .. } => locs.iter().find_map(|&l| find_loc_to_show(ctx, l)),
    }
}

/// MLIR's `loc->findInstanceOf<FileLineColLoc>()`: the first `file:line:col` in a pre-order walk
/// of the location (names' children, call sites' callee then caller, fused parts).
pub fn find_file_loc(ctx: &Context, loc: Location) -> Option<(Ident, u32, u32)> {
    match ctx.loc_kind(loc) {
        LocKind::Unknown => None,
        LocKind::FileLineCol { file, line, col, .. } => Some((file, line, col)),
        LocKind::Name { child, .. } => child.and_then(|c| find_file_loc(ctx, c)),
        LocKind::CallSite { callee, caller } => find_file_loc(ctx, callee).or_else(|| find_file_loc(ctx, caller)),
        LocKind::Fused { locs, .. } => locs.iter().find_map(|&l| find_file_loc(ctx, l)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm() -> SourceMap {
        let mut sm = SourceMap::new();
        sm.add("t3.mlir", "func.func @g() -> i32 {\n  return\n}\n\tx\tyz\n");
        sm
    }

    #[test]
    fn error_with_same_location_note() {
        let ctx = Context::new();
        let loc = ctx.file_loc("t3.mlir", 2, 3);
        let d = Diagnostic::error(loc, "'func.return' op has 0 operands, but enclosing function (@g) returns 1")
            .with_note(loc, "see current operation: \"func.return\"() : () -> ()");
        assert_eq!(
            sm().render(&ctx, &d),
            "t3.mlir:2:3: error: 'func.return' op has 0 operands, but enclosing function (@g) returns 1\n  return\n  ^\n\
             t3.mlir:2:3: note: see current operation: \"func.return\"() : () -> ()\n"
        );
    }

    #[test]
    fn note_at_other_location_shows_its_line() {
        let ctx = Context::new();
        let d = Diagnostic::error(ctx.file_loc("t3.mlir", 2, 3), "operand #0 does not dominate this use")
            .with_note(ctx.file_loc("t3.mlir", 1, 11), "operand defined here (op in the same block)");
        assert_eq!(
            sm().render(&ctx, &d),
            "t3.mlir:2:3: error: operand #0 does not dominate this use\n  return\n  ^\n\
             t3.mlir:1:11: note: operand defined here (op in the same block)\nfunc.func @g() -> i32 {\n          ^\n"
        );
    }

    #[test]
    fn unknown_and_name_locations() {
        let ctx = Context::new();
        let d = Diagnostic::error(Location::UNKNOWN, "boom");
        assert_eq!(sm().render(&ctx, &d), "<unknown>:0: error: boom\n");
        let named = ctx.name_loc("named", None);
        let d = Diagnostic::warning(named, "boom");
        let s = sm().render(&ctx, &d);
        assert!(s.starts_with("<unknown>:0: warning: loc("), "{s}");
        assert!(s.ends_with(": boom\n"), "{s}");
        // a name with a file child shows the child
        let named = ctx.name_loc("named", Some(ctx.file_loc("t3.mlir", 1, 5)));
        let d = Diagnostic::remark(named, "here");
        assert_eq!(sm().render(&ctx, &d), "t3.mlir:1:5: remark: here\nfunc.func @g() -> i32 {\n    ^\n");
    }

    #[test]
    fn call_site_and_fused_locations() {
        let ctx = Context::new();
        let cs =
            ctx.loc(LocKind::CallSite { callee: ctx.file_loc("a.mlir", 3, 4), caller: ctx.file_loc("t3.mlir", 2, 2) });
        let d = Diagnostic::error(cs, "bad").with_note(cs, "see current operation: x");
        assert_eq!(
            sm().render(&ctx, &d),
            "a.mlir:3:4: error: bad\nt3.mlir:2:2: note: called from\n  return\n ^\na.mlir:3:4: note: see current operation: x\n"
        );
        let fused = ctx.loc(LocKind::Fused {
            metadata: None,
            locs: vec![Location::UNKNOWN, ctx.file_loc("t3.mlir", 3, 1)].into(),
        });
        let d = Diagnostic::error(fused, "fused");
        assert_eq!(sm().render(&ctx, &d), "t3.mlir:3:1: error: fused\n}\n^\n");
    }

    #[test]
    fn positions_outside_the_file_have_no_snippet() {
        let ctx = Context::new();
        for (l, c) in [(300, 4), (3, 400), (0, 0)] {
            let d = Diagnostic::error(ctx.file_loc("t3.mlir", l, c), "m");
            assert_eq!(sm().render(&ctx, &d), format!("t3.mlir:{l}:{c}: error: m\n"));
        }
        let d = Diagnostic::error(ctx.file_loc("other.mlir", 1, 1), "m");
        assert_eq!(sm().render(&ctx, &d), "other.mlir:1:1: error: m\n");
        // one past the end of a line is a valid column
        let d = Diagnostic::error(ctx.file_loc("t3.mlir", 2, 9), "m");
        assert_eq!(sm().render(&ctx, &d), "t3.mlir:2:9: error: m\n  return\n        ^\n");
    }

    #[test]
    fn a_long_line_shows_a_window_around_the_column() {
        // a 10,000-byte line: the snippet is the 80 bytes either side of the caret, cut with `...`
        let line = format!("{}X{}", "a".repeat(5000), "b".repeat(4999));
        let mut out = String::new();
        write_snippet(&mut out, &line, 5000, None, RenderOptions::default());
        let want_src = format!("...{}X{}...", "a".repeat(80), "b".repeat(79));
        let want_caret = format!("{}^", " ".repeat(83));
        assert_eq!(out, format!("{want_src}\n{want_caret}\n"));
        // near the start: no leading `...`; a range is clipped to the window
        let mut out = String::new();
        write_snippet(&mut out, &line, 2, Some((2, 9000)), RenderOptions::default());
        let first = out.lines().next().unwrap();
        assert_eq!(first, format!("{}...", "a".repeat(82)));
        assert_eq!(out.lines().nth(1).unwrap(), format!("  ^{}", "~".repeat(79)));
        // multi-byte characters are never cut
        let line = "é".repeat(5000);
        let mut out = String::new();
        write_snippet(&mut out, &line, 5001, None, RenderOptions::default());
        assert!(out.starts_with("...é") && out.trim_end().ends_with("é..."), "{out}");
    }

    #[test]
    fn tabs_expand_and_ranges_underline() {
        let ctx = Context::new();
        let d = Diagnostic::error(ctx.file_loc("t3.mlir", 4, 3), "tab");
        // LLVM repeats the caret line's character over a tab's width
        assert_eq!(sm().render(&ctx, &d), "t3.mlir:4:3: error: tab\n        x       yz\n         ^^^^^^^\n");
        let src = "  // expected-error@+1 {{wrong text}}\n";
        let mut s = SourceMap::new();
        s.add("v.mlir", src);
        let at = src.find("expected").unwrap();
        assert_eq!(
            s.render_at_offset(Some(("v.mlir", at)), "wrong text".len(), Severity::Error, "expected error \"wrong text\" was not produced", RenderOptions::default()),
            "v.mlir:1:6: error: expected error \"wrong text\" was not produced\n  // expected-error@+1 {{wrong text}}\n     ^~~~~~~~~~\n"
        );
        assert_eq!(
            s.render_at_offset(None, 3, Severity::Error, "x", RenderOptions::default()),
            "<unknown>:0: error: x\n"
        );
    }

    #[test]
    fn non_ascii_lines_have_no_caret() {
        let ctx = Context::new();
        let mut s = SourceMap::new();
        s.add("u.mlir", "\"é\" x\n");
        let d = Diagnostic::error(ctx.file_loc("u.mlir", 1, 6), "m");
        assert_eq!(s.render(&ctx, &d), "u.mlir:1:6: error: m\n\"é\" x\n");
    }

    #[test]
    fn colors() {
        let ctx = Context::new();
        let d = Diagnostic::error(ctx.file_loc("t3.mlir", 2, 3), "m");
        let s = sm().render_with(&ctx, &d, RenderOptions { color: true });
        assert_eq!(
            s,
            "\x1b[1mt3.mlir:2:3: \x1b[0m\x1b[1;31merror: \x1b[0m\x1b[1mm\x1b[0m\n  return\n\x1b[1;32m  ^\x1b[0m\n"
        );
    }
}
