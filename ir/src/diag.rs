//! Diagnostics: errors, warnings, remarks and notes attached to locations. Passes and the
//! verifier emit [`Diagnostic`]s into a [`DiagSink`]; tools render them (see `render`) with the
//! source line and a caret, or match them against `expected-*` comments.

use crate::body::{Body, Op};
use crate::context::Context;
use crate::location::Location;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Remark,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Remark => "remark",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: Location,
    pub message: String,
    /// Attached notes, each with its own location.
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    pub fn new(severity: Severity, loc: Location, message: impl Into<String>) -> Self {
        Diagnostic { severity, loc, message: message.into(), notes: Vec::new() }
    }
    pub fn error(loc: Location, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, loc, message)
    }
    pub fn warning(loc: Location, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, loc, message)
    }
    pub fn remark(loc: Location, message: impl Into<String>) -> Self {
        Self::new(Severity::Remark, loc, message)
    }
    /// Adds a note at `loc`.
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Self {
        self.notes.push(Diagnostic::new(Severity::Note, loc, message));
        self
    }
    /// An error about an op, worded as MLIR words them: `'func.return' op <message>`.
    pub fn op_error(ctx: &Context, body: &Body, op: Op, message: impl AsRef<str>) -> Self {
        Diagnostic::error(body.op_loc(op), format!("'{}' op {}", ctx.op_name_str(body.op_name(op)), message.as_ref()))
    }
}

/// Where diagnostics go. Implemented by tools (print or collect) and by passes' buffers.
pub trait DiagSink: Send {
    fn emit(&mut self, d: Diagnostic);
}

/// Collects diagnostics in order.
#[derive(Default, Debug)]
pub struct DiagBuffer {
    pub diags: Vec<Diagnostic>,
}

impl DiagBuffer {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}

impl DiagSink for DiagBuffer {
    fn emit(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

impl DiagSink for Vec<Diagnostic> {
    fn emit(&mut self, d: Diagnostic) {
        self.push(d);
    }
}
