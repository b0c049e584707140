//! spike
use melior::{dialect::DialectRegistry, ir::{Module, operation::OperationLike}, utility::{register_all_dialects, register_all_llvm_translations, register_all_passes, parse_pass_pipeline}, Context, ExecutionEngine, pass::PassManager};

pub fn context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    register_all_llvm_translations(&context);
    register_all_passes();
    context
}

pub fn parse_and_verify(text: &str) -> Result<String, String> {
    let context = context();
    let module = Module::parse(&context, text).ok_or("parse failed")?;
    if !module.as_operation().verify() { return Err("verify failed".into()); }
    Ok(module.as_operation().to_string())
}

/// spike: add two f32 scalars through MLIR's pipeline and ExecutionEngine
pub fn run_add(a: f32, b: f32) -> Result<f32, String> {
    let context = context();
    let mut module = Module::parse(&context, r#"
      func.func @add(%a: f32, %b: f32) -> f32 attributes { llvm.emit_c_interface } {
        %c = arith.addf %a, %b : f32
        return %c : f32
      }"#).ok_or("parse failed")?;
    let pm = PassManager::new(&context);
    parse_pass_pipeline(pm.as_operation_pass_manager(), "builtin.module(convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts)").map_err(|e| e.to_string())?;
    pm.run(&mut module).map_err(|e| e.to_string())?;
    let engine = ExecutionEngine::new(&module, 2, &[], false, false);
    let mut a = a; let mut b = b; let mut r = 0f32;
    unsafe { engine.invoke_packed("add", &mut [&mut a as *mut f32 as *mut (), &mut b as *mut f32 as *mut (), &mut r as *mut f32 as *mut ()]).map_err(|e| e.to_string())?; }
    Ok(r)
}
