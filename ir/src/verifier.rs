//! The verifier: structure, dominance, terminators, successors, symbols, and each op's own rules.

use crate::body::Body;
use crate::context::Context;
use crate::diag::Diagnostic;
use crate::module::Module;
use crate::opdef::SymbolLookup;

/// Verifies a whole module; function bodies are verified in parallel unless `threads` is
/// false. Returns the errors in program order (empty = valid).
pub fn verify_module(_ctx: &Context, _m: &Module, _threads: bool) -> Result<(), Vec<Diagnostic>> {
    unimplemented!("verifier")
}

/// Verifies the isolated op owning `body` and everything in it, resolving symbol uses that
/// leave it through `outer` (the enclosing symbol tables).
pub fn verify_isolated(_ctx: &Context, _body: &Body, _outer: &dyn SymbolLookup) -> Result<(), Vec<Diagnostic>> {
    unimplemented!("verifier")
}
