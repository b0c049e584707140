//! The interpreter's run-time error, [`InterpError`]: where it happened (the op's location),
//! the message, worded as MLIR words op errors, and notes (call sites, batch elements).

use std::fmt;

use xcs_ir::{Body, Context, Diagnostic, Location, Op};

/// A run-time error: where it happened (the op's location), the message (`'tensor.div' op
/// integer division by zero`, worded as MLIR words op errors) and notes (call sites, batch
/// elements) from the innermost outwards.
#[derive(Clone, Debug)]
pub struct InterpError {
    pub loc: Location,
    pub message: String,
    pub notes: Vec<(Location, String)>,
}

impl InterpError {
    pub fn new(loc: Location, message: impl Into<String>) -> Self {
        InterpError {
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
    /// An error of op `op`: `'name' op <message>` at the op's location.
    pub fn op(ctx: &Context, body: &Body, op: Op, message: impl AsRef<str>) -> Self {
        let name = ctx.op_name_str(body.op_name(op));
        InterpError::new(body.op_loc(op), format!("'{name}' op {}", message.as_ref()))
    }
    /// Adds a note (at most a few, so deep recursion does not produce thousands).
    pub fn with_note(mut self, loc: Location, message: impl Into<String>) -> Self {
        if self.notes.len() < 8 {
            self.notes.push((loc, message.into()));
        }
        self
    }
    /// The error as a diagnostic, for rendering with the source line.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.loc, self.message.clone());
        for (loc, m) in &self.notes {
            d = d.with_note(*loc, m.clone());
        }
        d
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for (_, n) in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InterpError {}
