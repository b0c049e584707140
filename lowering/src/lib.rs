//! XCS lowering: the `tensor` dialect (with `func`, `cf` and `tensor.fused`) to LLVM IR, then
//! through LLVM 22 (inkwell) to native code: a JIT with a compile cache ([`Jit`]), and LLVM IR,
//! assembly, object files and shared libraries with a C ABI ([`translate`]). Generated code calls
//! a small C runtime (`runtime/xcs_runtime.c`: buffers, errors, thread pool).
//!
//! Design (docs/lowering.md): every `func.func` becomes an LLVM function over tensor descriptors
//! whose sizes are run-time values (constants when static); every op becomes an outlined loop
//! kernel, one file per op family under [`ops`]; intermediate buffers are planned by liveness.
//! [`codegen`] is the core, which knows no op: it finds each op's lowering through the
//! [`LowerOp`] interface, which [`ops`] attaches to the ops it compiles ([`attach_interfaces`];
//! [`context`] makes a context with it). Numerics are the reference interpreter's, bit for bit
//! where the interpreter's order of operations allows it (see [`codegen::types`] and each op
//! family).

pub mod abi;
pub mod aot;
pub mod codegen;
pub mod jit;
pub mod llvm;
pub mod mpi;
pub mod ops;
pub mod runtime;
pub mod spmd;
pub mod timing;

use xcs_ir::{Context, Module};

pub use aot::{translate, Emit};
pub use codegen::{LowerError, LowerOp, MatmulKernel, Options, PlanStats, Port, Site};
pub use jit::{Jit, JitError};
pub use timing::Phases;
pub use ops::attach_interfaces;

/// A context with every XCS dialect registered and the LLVM lowering attached to the ops it
/// compiles ([`attach_interfaces`]): what every caller of the lowering uses. Each call makes an
/// independent context. A crate that owns other ops attaches their lowering to it the same way
/// (`xcs_test_support` does it for the test dialect's integer ops).
pub fn context() -> Context {
    let mut ctx = xcs_dialects::context();
    attach_interfaces(&mut ctx);
    ctx
}

/// One exported function of a lowered module.
#[derive(Clone, Debug)]
pub struct Export {
    /// The `func.func` name.
    pub name: String,
    /// The C symbol of its wrapper (`<symbol>_packed` is the packed form).
    pub symbol: String,
    pub args: Vec<Port>,
    pub results: Vec<Port>,
    /// C parameter names (from `xcs.name` attributes, else `argN` / `resultN`).
    pub arg_names: Vec<String>,
    pub result_names: Vec<String>,
    /// The function type as MLIR prints it (for the header's comments).
    pub type_text: String,
}

/// A module lowered to LLVM IR text.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub ir: String,
    /// Run-time error sites (index = site number passed to the runtime).
    pub sites: Vec<Site>,
    pub exports: Vec<Export>,
    pub stats: PlanStats,
    /// The LLVM optimization pipeline the module needs.
    pub pipeline: llvm::Pipeline,
}

/// What to lower.
#[derive(Clone, Debug)]
pub enum Which {
    /// Every public function with a body (and what they call), each exported.
    Public,
    /// One function, exported as `<symbol>_packed` only (the JIT's entry); `shapes` (one per
    /// argument, empty for scalars) specializes its argument sizes.
    One { name: String, symbol: String, shapes: Option<Vec<Vec<i64>>> },
}

/// Lowers `module` to LLVM IR text. `ctx` must have the lowering attached ([`context`] or
/// [`attach_interfaces`]).
pub fn lower_module(ctx: &Context, module: &Module, opts: &Options, which: &Which) -> Result<Lowered, LowerError> {
    let mut ml = codegen::ModuleLowering::new(ctx, module, opts.clone());
    let targets: Vec<(String, String, Option<Vec<Vec<i64>>>)> = match which {
        Which::Public => ml.public_functions().into_iter().map(|n| (n.clone(), format!("{}{}", opts.prefix, abi::c_ident(&n)), None)).collect(),
        Which::One { name, symbol, shapes } => vec![(name.clone(), symbol.clone(), shapes.clone())],
    };
    let mut exports = Vec::new();
    for (name, symbol, shapes) in targets {
        let (ins, outs) = ml.signature(&name)?;
        let internal = match &shapes {
            Some(s) => {
                let llvm = format!("xcs.spec.{name}");
                codegen::lower_function(&mut ml, &name, &llvm, Some(s))?;
                llvm
            }
            None => ml.request(&name),
        };
        abi::emit_wrapper(&mut ml, &symbol, &internal, &ins, &outs, matches!(which, Which::One { .. }))?;
        let (arg_names, result_names, type_text) = port_names(ctx, module, ml.func_op(&name), ins.len(), outs.len());
        exports.push(Export { name, symbol, args: ins, results: outs, arg_names, result_names, type_text });
    }
    ml.lower_requested()?;
    let pipeline = if ml.m.needs_loop_optimizer() { llvm::Pipeline::Default } else { llvm::Pipeline::VectorCode };
    let ir = ml.m.finish("xcs");
    Ok(Lowered { ir, sites: ml.sites, exports, stats: ml.stats, pipeline })
}

fn port_names(ctx: &Context, module: &Module, op: Option<xcs_ir::Op>, nin: usize, nout: usize) -> (Vec<String>, Vec<String>, String) {
    let b = &module.body;
    let names = |key: &str, n: usize, prefix: &str| -> Vec<String> {
        let dicts = op.and_then(|op| b.attr(ctx, op, key)).and_then(|a| ctx.as_array(a)).unwrap_or(&[]);
        let mut out: Vec<String> = Vec::new();
        for i in 0..n {
            let given = dicts.get(i).and_then(|&d| ctx.dict_get(d, "xcs.name")).and_then(|a| ctx.as_str(a)).map(abi::c_ident);
            let mut name = given.unwrap_or_else(|| format!("{prefix}{i}"));
            while out.contains(&name) {
                name.push('_');
            }
            out.push(name);
        }
        out
    };
    let ins = names("arg_attrs", nin, "arg");
    let mut outs = names("res_attrs", nout, "result");
    for o in outs.iter_mut() {
        while ins.contains(o) {
            o.push('_');
        }
    }
    let ty = op
        .and_then(|op| b.attr(ctx, op, "function_type"))
        .and_then(|a| ctx.as_type(a))
        .map(|t| xcs_ir::printer::type_to_string(ctx, t))
        .unwrap_or_default();
    (ins, outs, ty)
}
