//! XCS and upstream MLIR through melior (MLIR's C API): the export of an XCS tensor program as
//! upstream `func`/`cf`/`linalg`/`tensor`/`arith`/`math`/`shard` ([`export`], `xcs-translate --emit=mlir`),
//! verified by MLIR's own verifier, and a second backend that compiles that module with MLIR's
//! own pipeline and runs it on MLIR's ExecutionEngine ([`engine`], `xcs-run --backend=mlir`).
//! Only the tools that need it (xcs-translate, xcs-run) and this crate's tests link it.

pub mod engine;
pub mod export;
mod generic_ops;
mod ops;
mod shape_ops;

use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::Module as MlirModule;
use melior::utility::{register_all_dialects, register_all_llvm_translations, register_all_passes};
use melior::Context as MlirContext;
use xcs_ir::{Context, Diagnostic, Module};

pub use ops::covered_ops;

/// An MLIR context with every upstream dialect, pass and LLVM translation registered.
pub fn mlir_context() -> MlirContext {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = MlirContext::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    register_all_llvm_translations(&context);
    register_all_passes();
    context
}

/// Parses upstream MLIR text into `context` and runs MLIR's verifier on it; MLIR's own
/// diagnostics (collected from the context) make the error.
pub fn parse_verified<'c>(context: &'c MlirContext, text: &str) -> Result<MlirModule<'c>, String> {
    let parsed = with_diagnostics(context, || {
        let module = MlirModule::parse(context, text).ok_or(())?;
        if module.as_operation().verify() {
            Ok(module)
        } else {
            Err(())
        }
    });
    parsed.map_err(|(_, why)| format!("MLIR rejects the exported module: {why}"))
}

/// Runs `f` collecting the diagnostics MLIR reports meanwhile; on an error, returns them too.
pub(crate) fn with_diagnostics<T, E>(context: &MlirContext, f: impl FnOnce() -> Result<T, E>) -> Result<T, (E, String)> {
    let messages = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let id = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {}", d.location(), d));
        true
    });
    let result = f();
    context.detach_diagnostic_handler(id);
    result.map_err(|e| (e, messages.borrow().join("; ")))
}

/// `module` as upstream MLIR, built through melior and verified by MLIR: the text MLIR prints.
pub fn export_module(ctx: &Context, module: &Module) -> Result<String, Diagnostic> {
    let text = export::export_text(ctx, module)?;
    let context = mlir_context();
    let m = parse_verified(&context, &text).map_err(|e| Diagnostic::error(xcs_ir::Location::UNKNOWN, e))?;
    Ok(m.as_operation().to_string())
}
