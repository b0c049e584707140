//! Rendering diagnostics as `file:line:col: error: message` with the source line and a caret
//! (codespan-reporting).

use crate::context::Context;
use crate::diag::Diagnostic;

/// The source texts diagnostics point into, by file name.
#[derive(Default)]
pub struct SourceMap {
    files: Vec<(String, String)>,
}

impl SourceMap {
    pub fn add(&mut self, name: &str, text: &str) {
        self.files.push((name.to_string(), text.to_string()));
    }
    /// Renders a diagnostic and its notes.
    pub fn render(&self, _ctx: &Context, _d: &Diagnostic) -> String {
        unimplemented!("render")
    }
}
