//! The LLVM side through inkwell: native target initialization, the host CPU and features,
//! target machines, and parsing + verifying + optimizing the IR text the lowering writes
//! ([`Pipeline`]: [`PIPELINE`], `default<O2>` without loop unrolling, or
//! [`VECTOR_CODE_PIPELINE`] for modules whose loops are vector code as written).

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

/// The CPU names of LLVM 22's X86 target (`x86_cpus.txt`: `llc -mcpu=help` for x86-64).
const X86_CPUS: &str = include_str!("x86_cpus.txt");

/// The CPU names LLVM's X86 target knows.
pub fn x86_cpu_names() -> impl Iterator<Item = &'static str> {
    X86_CPUS.lines().filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Checks that LLVM knows CPU `cpu` for the host's target (x86-64; other targets are not
/// checked). LLVM itself only warns about an unknown name, makes a subtarget without even
/// 64-bit mode and then aborts in code generation.
pub fn check_cpu(cpu: &str) -> Result<(), String> {
    init();
    let triple = TargetMachine::get_default_triple();
    let triple = triple.as_str().to_string_lossy();
    if !triple.starts_with("x86_64") || x86_cpu_names().any(|c| c == cpu) {
        return Ok(());
    }
    Err(format!(
        "'{cpu}' is not a CPU LLVM knows for {triple} (e.g. x86-64-v3, skylake-avx512, sapphirerapids; `llc -mcpu=help` lists them)"
    ))
}

/// A target machine for the host triple with `cpu` (checked by [`check_cpu`]) and `features`.
pub fn target_machine(cpu: &str, features: &str, reloc: RelocMode) -> Result<TargetMachine, String> {
    check_cpu(cpu)?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    target
        .create_target_machine(&triple, cpu, features, OptimizationLevel::Aggressive, reloc, CodeModel::Default)
        .ok_or_else(|| format!("LLVM cannot make a target machine for {} ({cpu})", triple.as_str().to_string_lossy()))
}

/// Parses IR text into a module of `ctx` for `tm`, verifies it and optimizes it with `pipeline`
/// (none: not optimized).
pub fn compile<'c>(ctx: &'c Context, ir: &str, tm: &TargetMachine, pipeline: Option<Pipeline>) -> Result<Module<'c>, String> {
    let module = parse(ctx, ir, tm)?;
    if let Some(pipeline) = pipeline {
        self::optimize(&module, tm, pipeline)?;
    }
    Ok(module)
}

/// Parses IR text into a module of `ctx` for the host's triple and verifies it; the data layout
/// is left to the JIT's engine (MCJIT sets its target machine's).
pub fn parse_for_host<'c>(ctx: &'c Context, ir: &str) -> Result<Module<'c>, String> {
    let module = parse_text(ctx, ir)?;
    module.set_triple(&TargetMachine::get_default_triple());
    verify(&module)?;
    Ok(module)
}

/// Parses IR text into a module of `ctx` for `tm` and verifies it.
pub fn parse<'c>(ctx: &'c Context, ir: &str, tm: &TargetMachine) -> Result<Module<'c>, String> {
    let module = parse_text(ctx, ir)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    verify(&module)?;
    Ok(module)
}

/// IR text parsed into a module of `ctx`.
fn parse_text<'c>(ctx: &'c Context, ir: &str) -> Result<Module<'c>, String> {
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "xcs");
    ctx.create_module_from_ir(buf).map_err(|e| format!("LLVM rejected the generated IR: {}", e.to_string()))
}

/// Verifies a parsed module.
fn verify(module: &Module) -> Result<(), String> {
    module.verify().map_err(|e| format!("the generated IR does not verify: {}", e.to_string()))
}

/// The optimization pipeline: LLVM's `default<O2>`. The lowering writes the vector code of its
/// hot kernels itself (the matmul microkernel, the math functions' vector variants), so O3's
/// extras (chiefly non-trivial loop unswitching, which duplicates loop nests that the
/// vectorizer then works through again) made the code no faster and took about twice as long:
/// W3's two matmul kernels 277-309 ms of `opt` CPU at O3, 136-160 ms at O2 (LLVM 22).
pub const PIPELINE: &str = "default<O2>";

/// The optimization pipeline of a module whose innermost loops are all explicit vector code or
/// scalar code marked to stay scalar (`ModuleBuilder::needs_loop_optimizer` false; W4's
/// softmax): what `default<O2>` does that changes such code: the kernels inlined into their
/// trampolines, instructions combined, loop invariants hoisted (the vector constants), loops
/// rotated and their induction variables folded, redundant loads removed. W4's machine code is
/// the same as with [`PIPELINE`] up to register names (the kernels' loops instruction for
/// instruction); its JIT optimization 6.0-6.5 ms -> 3.5-4.1, the whole compile 16.0-17.4 ms ->
/// 13.3-15.5 (10 alternating fresh processes). No inliner beyond `alwaysinline`, no
/// interprocedural constant propagation: a call shell keeps passing its constants.
pub const VECTOR_CODE_PIPELINE: &str =
    "always-inline,function(instcombine,simplifycfg,loop-mssa(loop-rotate,licm),loop(indvars),gvn,instcombine,simplifycfg)";

/// Which optimization pipeline a lowered module gets (`Lowered::pipeline`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    /// [`PIPELINE`] with [`pipeline_options`].
    Default,
    /// [`VECTOR_CODE_PIPELINE`].
    VectorCode,
}

impl Pipeline {
    /// The name `--time-phases` prints (`pipeline=`).
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Default => "default",
            Pipeline::VectorCode => "vector-code",
        }
    }

    /// The pass pipeline text (LLVM's new pass manager syntax, as `opt -passes=`).
    pub fn passes(self) -> &'static str {
        match self {
            Pipeline::Default => PIPELINE,
            Pipeline::VectorCode => VECTOR_CODE_PIPELINE,
        }
    }
}

/// The options of [`PIPELINE`]: no loop unrolling (as `opt --disable-loop-unrolling`; LLVM's
/// `PipelineTuningOptions::LoopUnrolling` off: neither partial nor full unrolling unless a
/// pragma forces it). The loop vectorizer already interleaves the loops it vectorizes (4 wide
/// vectors per iteration); the unroller then unrolled those 8x more (32 vector loads per
/// iteration of softmax's max loop), which made the code no faster (W1-W6 and the generated
/// matmul, same-run A/B) and cost 14% of W4's compile: its JIT compile took 114.9M instructions
/// with unrolling, 99.3M without (callgrind; optimize 45.4M -> 40.5M, codegen 65.6M -> 54.9M).
/// Turning the vectorizer's interleaving off as well would save another 17M there but made W4's
/// softmax 20% slower (its reductions are latency-bound without it): kept.
pub fn pipeline_options() -> PassBuilderOptions {
    let options = PassBuilderOptions::create();
    options.set_loop_unrolling(false);
    options
}

/// Optimizes a parsed module for `tm` with `pipeline`.
pub fn optimize(module: &Module, tm: &TargetMachine, pipeline: Pipeline) -> Result<(), String> {
    module
        .run_passes(pipeline.passes(), tm, pipeline_options())
        .map_err(|e| format!("LLVM optimization failed: {}", e.to_string()))?;
    // Vector variants of math functions (`ops::math::vector_pair`) were kept for the loop
    // vectorizer; now they are inlined where it called them, and dropped.
    if let Some(used) = module.get_global("llvm.compiler.used") {
        unsafe { used.delete() };
        module
            .run_passes("always-inline,globaldce,function(simplifycfg)", tm, PassBuilderOptions::create())
            .map_err(|e| format!("LLVM optimization failed: {}", e.to_string()))?;
    }
    Ok(())
}
