//! The LLVM side through inkwell: native target initialization, the host CPU and features,
//! target machines, and parsing + verifying + optimizing (`default<O3>`) the IR text the
//! lowering writes.

use std::sync::Once;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

static INIT: Once = Once::new();

/// Initializes LLVM's native target (once per process).
pub fn init() {
    INIT.call_once(|| {
        let _ = Target::initialize_native(&InitializationConfig::default());
    });
}

/// The host CPU's LLVM name and feature string.
pub fn host_cpu() -> (String, String) {
    init();
    (
        TargetMachine::get_host_cpu_name().to_string(),
        TargetMachine::get_host_cpu_features().to_string(),
    )
}

/// A target machine for the host triple with `cpu` and `features`.
pub fn target_machine(cpu: &str, features: &str, reloc: RelocMode) -> Result<TargetMachine, String> {
    init();
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    target
        .create_target_machine(&triple, cpu, features, OptimizationLevel::Aggressive, reloc, CodeModel::Default)
        .ok_or_else(|| format!("LLVM cannot make a target machine for {} ({cpu})", triple.as_str().to_string_lossy()))
}

/// Parses IR text into a module of `ctx` for `tm`, verifies it and optimizes it (when `optimize`).
pub fn compile<'c>(ctx: &'c Context, ir: &str, tm: &TargetMachine, optimize: bool) -> Result<Module<'c>, String> {
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "xcs");
    let module = ctx.create_module_from_ir(buf).map_err(|e| format!("LLVM rejected the generated IR: {}", e.to_string()))?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    module.verify().map_err(|e| format!("the generated IR does not verify: {}", e.to_string()))?;
    if optimize {
        module
            .run_passes("default<O3>", tm, PassBuilderOptions::create())
            .map_err(|e| format!("LLVM optimization failed: {}", e.to_string()))?;
        // Vector variants of math functions (`ops::math::vector_pair`) were kept for the loop
        // vectorizer; now they are inlined where it called them, and dropped.
        if let Some(used) = module.get_global("llvm.compiler.used") {
            unsafe { used.delete() };
            module
                .run_passes("always-inline,globaldce,function(simplifycfg)", tm, PassBuilderOptions::create())
                .map_err(|e| format!("LLVM optimization failed: {}", e.to_string()))?;
        }
    }
    Ok(module)
}
