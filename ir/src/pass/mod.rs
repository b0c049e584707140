//! The pass manager, in the model of MLIR's `lib/Pass`: the [`Pass`] trait, a
//! [`PassRegistry`] with typed options, textual pipelines (`builtin.module(func.func(cse))`),
//! nested pass managers that run over isolated-from-above ops in parallel, and
//! instrumentation (IR dumps, timing, verification after each pass).
//!
//! ```ignore
//! let mut registry = PassRegistry::new();
//! xcs_passes::register_all(&mut registry);
//! let mut pm = PassManager::parse("builtin.module(func.func(cse,canonicalize),symbol-dce)", &registry)?;
//! pm.options.verify_each = true;
//! pm.run(&ctx, &mut module, &mut sink)?;
//! ```

pub mod instrument;
pub mod manager;
pub mod options;
pub mod pipeline;
pub mod registry;

pub use instrument::{render_timing_report, TimingNode};
pub use manager::{
    PassManager, PassManagerOptions, PrintIrFn, PrintModuleFn, SymbolScope, VerifyIsolatedFn, VerifyModuleFn,
};
pub use options::{EnumValue, IntKind, OptionKind, OptionSpec, OptionValue, PassOptions};
pub use pipeline::{OpPassManager, PassEntry, PipelineElement, PipelineError};
pub use registry::{PassFactory, PassInfo, PassRegistry};

use crate::body::{Body, Op};
use crate::context::Context;
use crate::diag::DiagSink;

/// Whether a pass changed the IR (drives `--mlir-print-ir-after-change`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PassResult {
    Unchanged,
    Changed,
}

impl PassResult {
    pub fn from_changed(changed: bool) -> Self {
        if changed {
            PassResult::Changed
        } else {
            PassResult::Unchanged
        }
    }
    pub fn changed(self) -> bool {
        self == PassResult::Changed
    }
}

/// A transformation of one isolated-from-above op (the pass's anchor).
///
/// `run` gets the [`Body`] of the anchor op: the module for module-level passes, one
/// function for `func.func(...)` passes. Nested isolated ops are reached through
/// [`Body::nested_mut`] (see [`for_each_body_mut`]). A pass that fails emits an error into
/// `diags` and returns `Err(())`.
///
/// A pass names its registry entry ([`PassInfo`]) once, in [`Pass::info`]; its argument and
/// display name come from there, as MLIR's TableGen-generated pass base classes answer
/// `getArgument()` and `getName()` from the pass's `Passes.td` record.
pub trait Pass: Send + Sync {
    /// The registry entry that declares this pass (argument, name, summary, options, factory).
    fn info(&self) -> &'static PassInfo;
    /// The pipeline name (`cse`).
    fn argument(&self) -> &'static str {
        self.info().argument
    }
    /// The display name used in IR dump headers and timing reports (`CSE`).
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// The op name this pass is restricted to (`None`: any op).
    fn anchor(&self) -> Option<&'static str> {
        None
    }
    /// Transforms the anchor op's body.
    #[allow(clippy::result_unit_err)]
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()>;
}

/// Calls `f` on `body` and then on every nested body, depth-first, parents first, in op order.
pub fn for_each_body_mut(body: &mut Body, f: &mut dyn FnMut(&mut Body)) {
    f(body);
    let isolated: Vec<Op> = body.walk_ops().into_iter().filter(|&op| body.is_isolated(op)).collect();
    for (_, child) in body.nested_many_mut(&isolated) {
        for_each_body_mut(child, f);
    }
}

/// Like [`for_each_body_mut`] for a rewrite that says whether it changed a body: the
/// result is `Changed` if any call of `f` returned true (every body is visited either way).
pub fn rewrite_each_body(body: &mut Body, f: &mut dyn FnMut(&mut Body) -> bool) -> PassResult {
    let mut changed = false;
    for_each_body_mut(body, &mut |b| changed |= f(b));
    PassResult::from_changed(changed)
}

/// Like [`for_each_body_mut`] with a fallible function: stops at the first error.
pub fn try_for_each_body_mut<E>(body: &mut Body, f: &mut dyn FnMut(&mut Body) -> Result<(), E>) -> Result<(), E> {
    f(body)?;
    let isolated: Vec<Op> = body.walk_ops().into_iter().filter(|&op| body.is_isolated(op)).collect();
    for (_, child) in body.nested_many_mut(&isolated) {
        try_for_each_body_mut(child, f)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
