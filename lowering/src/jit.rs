//! The JIT: compiles one function for the argument types it is called with (sizes specialized,
//! so static shapes fold through the whole function), optimized by `llvm::PIPELINE` (O2, no loop
//! unrolling) for the host CPU, with LLVM's MCJIT; runs it on interpreter values. Compiled
//! functions are cached by (function, argument element types and shapes): calling again with the
//! same types reuses the code ([`Jit::compilations`] counts real compilations).

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::rc::Rc;

use inkwell::context::Context as LlvmContext;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::module::Module as LlvmModule;
use inkwell::llvm_sys::execution_engine::LLVMGetExecutionEngineTargetMachine;
use inkwell::targets::TargetMachine;
use inkwell::OptimizationLevel;
use rustc_hash::FxHashMap;
use xcs_dialects::interp::{ElemType, RtValue, Scalar, Tensor};
use xcs_ir::{Context, Diagnostic, Location, Module};

use crate::codegen::Port;
use crate::runtime::{self, XcsTensor};
use crate::timing::Phases;
use crate::{lower_module, LowerError, Options, Which};

/// An error of a JIT call: the function cannot be compiled, or it failed at run time.
#[derive(Clone, Debug)]
pub enum JitError {
    Compile(LowerError),
    /// A run-time error at an op (`loc`) or of the arguments (unknown location).
    Run { loc: Location, message: String },
}

impl JitError {
    pub fn message(&self) -> String {
        match self {
            JitError::Compile(e) => e.message.clone(),
            JitError::Run { message, .. } => message.clone(),
        }
    }
    pub fn to_diagnostic(&self) -> Diagnostic {
        match self {
            JitError::Compile(e) => e.to_diagnostic(),
            JitError::Run { loc, message } => Diagnostic::error(*loc, message.clone()),
        }
    }
}

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

type Entry = unsafe extern "C" fn(*const *const XcsTensor, *mut XcsTensor) -> i32;

/// What is needed to call a compiled function: its entry point, error sites and signature.
/// Unlike [`Compiled`] it can be shared between threads (the devices of an SPMD run call it
/// concurrently); it is valid while the [`Compiled`] it came from lives.
#[derive(Clone)]
pub struct Callable {
    entry: Entry,
    sites: Vec<crate::Site>,
    args: Vec<Port>,
    results: Vec<Port>,
}

/// A compiled function: the machine code (owned by the execution engine) and what is needed to
/// call it.
pub struct Compiled {
    callable: Callable,
    /// The LLVM IR before optimization (for `--emit`-style debugging).
    pub ir: String,
    /// Where the compile time went (`xcs-run --time-phases`).
    pub phases: Phases,
    module: ManuallyDrop<LlvmModule<'static>>,
    engine: ManuallyDrop<ExecutionEngine<'static>>,
    llctx: ManuallyDrop<Box<LlvmContext>>,
}

impl Drop for Compiled {
    fn drop(&mut self) {
        // The module and engine borrow the context: drop them first.
        unsafe {
            ManuallyDrop::drop(&mut self.module);
            ManuallyDrop::drop(&mut self.engine);
            ManuallyDrop::drop(&mut self.llctx);
        }
    }
}

/// The cache key: function name and each argument's element type and shape (`None`: scalar).
type Key = (String, Vec<(ElemType, Option<Vec<usize>>)>);

/// A JIT for the functions of one module.
pub struct Jit<'a> {
    ctx: &'a Context,
    module: &'a Module,
    opts: Options,
    cache: RefCell<FxHashMap<Key, Rc<Compiled>>>,
    compilations: RefCell<usize>,
}

/// Input descriptors of one call (they point into `_bytes`).
pub struct Inputs {
    descs: Vec<XcsTensor>,
    _bytes: Vec<runtime::ArgBytes>,
    _shapes: Vec<Vec<i64>>,
}

// SAFETY: the descriptors point into the buffers the value owns, which nothing changes after
// it is made (compiled code only reads its arguments); the device threads of an SPMD run each
// use their own.
unsafe impl Send for Inputs {}
unsafe impl Sync for Inputs {}

impl<'a> Jit<'a> {
    /// A JIT for the functions of `module`; `ctx` must have the lowering attached
    /// ([`crate::context`] or [`crate::attach_interfaces`]).
    pub fn new(ctx: &'a Context, module: &'a Module, opts: Options) -> Jit<'a> {
        Jit { ctx, module, opts, cache: RefCell::new(FxHashMap::default()), compilations: RefCell::new(0) }
    }

    /// How many times code was compiled (a cached function is compiled once per argument types).
    pub fn compilations(&self) -> usize {
        *self.compilations.borrow()
    }

    /// The compiled code of `name` for arguments like `args`.
    pub fn compile_for(&self, name: &str, args: &[RtValue]) -> Result<Rc<Compiled>, JitError> {
        let mut key_args = Vec::new();
        for (i, a) in args.iter().enumerate() {
            key_args.push(match a {
                RtValue::Tensor(t) if t.elem() != ElemType::Str => (t.elem(), Some(t.shape.clone())),
                RtValue::Scalar(s) => (scalar_elem(s.width).ok_or_else(|| run_err(format!("argument #{i}: an i{} scalar is not supported", s.width)))?, None),
                other => return Err(run_err(format!("argument #{i}: a {} is not supported by the LLVM backend", other.type_string()))),
            });
        }
        let key: Key = (name.to_string(), key_args);
        if let Some(c) = self.cache.borrow().get(&key) {
            return Ok(Rc::clone(c));
        }
        let shapes: Vec<Vec<i64>> =
            key.1.iter().map(|(_, s)| s.as_ref().map(|s| s.iter().map(|&d| d as i64).collect()).unwrap_or_default()).collect();
        let c = Rc::new(self.compile(name, Some(shapes))?);
        *self.compilations.borrow_mut() += 1;
        self.cache.borrow_mut().insert(key, Rc::clone(&c));
        Ok(c)
    }

    /// Compiles `name` (argument sizes specialized to `shapes` when given).
    pub fn compile(&self, name: &str, shapes: Option<Vec<Vec<i64>>>) -> Result<Compiled, JitError> {
        let mut phases = Phases::default();
        phases.start();
        let which = Which::One { name: name.to_string(), symbol: "xcs_jit_entry".into(), shapes };
        let lowered = lower_module(self.ctx, self.module, &self.opts, &which).map_err(JitError::Compile)?;
        phases.ir_bytes = lowered.ir.len();
        phases.ir_functions = lowered.ir.matches("\ndefine ").count();
        phases.end("lower");
        let export = lowered.exports.into_iter().next().ok_or_else(|| JitError::Compile(LowerError::internal("nothing exported")))?;
        let llctx = Box::new(LlvmContext::create());
        // SAFETY: the context is boxed (stable address) and dropped after the module and the
        // engine that borrow it (`Compiled::drop`).
        let ctx_ref: &'static LlvmContext = unsafe { &*(llctx.as_ref() as *const LlvmContext) };
        crate::llvm::check_cpu(&self.opts.cpu).map_err(internal)?;
        let module = crate::llvm::parse_for_host(ctx_ref, &lowered.ir).map_err(internal)?;
        phases.end("parse");
        // MCJIT's own target machine also optimizes the module (MCJIT generates code only when
        // asked for an address): a second target machine would build a second X86 subtarget for
        // the functions' CPU and features (~5M instructions, 2 ms of a 20 ms compile).
        let engine = module
            .create_jit_execution_engine(OptimizationLevel::Aggressive)
            .map_err(|e| internal(e.to_string()))?;
        // SAFETY: the engine owns its target machine and outlives this borrow (ManuallyDrop:
        // not disposed here).
        let tm = ManuallyDrop::new(unsafe {
            TargetMachine::new(LLVMGetExecutionEngineTargetMachine(engine.as_mut_ptr()))
        });
        phases.end("target");
        if self.opts.optimize {
            crate::llvm::optimize(&module, &tm, lowered.pipeline).map_err(internal)?;
            phases.pipeline = lowered.pipeline.name();
        }
        phases.end("optimize");
        for (sym, addr) in runtime::symbols() {
            if let Some(f) = module.get_function(sym) {
                engine.add_global_mapping(&f, addr);
            }
        }
        let addr = engine.get_function_address("xcs_jit_entry_packed").map_err(|e| internal(format!("{e:?}")))?;
        // SAFETY: the packed wrapper has this signature (abi.rs).
        let entry: Entry = unsafe { std::mem::transmute::<usize, Entry>(addr) };
        phases.end("codegen");
        Ok(Compiled {
            callable: Callable { entry, sites: lowered.sites, args: export.args, results: export.results },
            ir: lowered.ir,
            phases,
            module: ManuallyDrop::new(module),
            engine: ManuallyDrop::new(engine),
            llctx: ManuallyDrop::new(llctx),
        })
    }

    /// Calls `name` with `args` (compiling it first unless cached).
    pub fn call(&self, name: &str, args: &[RtValue]) -> Result<Vec<RtValue>, JitError> {
        let c = self.compile_for(name, args)?;
        let inputs = c.inputs(args)?;
        c.run(&inputs)
    }
}

fn internal(e: impl Into<String>) -> JitError {
    JitError::Compile(LowerError::internal(&e.into()))
}

fn run_err(message: String) -> JitError {
    JitError::Run { loc: Location::UNKNOWN, message }
}

fn scalar_elem(width: u32) -> Option<ElemType> {
    Some(match width {
        1 => ElemType::I1,
        8 => ElemType::I8,
        16 => ElemType::I16,
        32 => ElemType::I32,
        64 => ElemType::I64,
        _ => return None,
    })
}

impl std::ops::Deref for Compiled {
    type Target = Callable;
    fn deref(&self) -> &Callable {
        &self.callable
    }
}

impl Compiled {
    /// The entry point and signature, to call the function from other threads while `self`
    /// lives.
    pub fn callable(&self) -> &Callable {
        &self.callable
    }
}

impl Callable {
    /// Descriptors of `args` for [`Callable::run`].
    pub fn inputs(&self, args: &[RtValue]) -> Result<Inputs, JitError> {
        if args.len() != self.args.len() {
            return Err(run_err(format!("the function takes {} arguments, but {} were given", self.args.len(), args.len())));
        }
        let mut bytes = Vec::new();
        let mut shapes = Vec::new();
        let mut dtypes = Vec::new();
        for a in args {
            match a {
                RtValue::Tensor(t) => {
                    bytes.push(runtime::ArgBytes::of_tensor(t));
                    shapes.push(t.shape.iter().map(|&d| d as i64).collect::<Vec<i64>>());
                    dtypes.push(crate::codegen::types::dtype_code(t.elem()));
                }
                RtValue::Scalar(Scalar { value, width }) => {
                    let e = scalar_elem(*width).ok_or_else(|| run_err(format!("an i{width} scalar is not supported")))?;
                    let v = *value as i64;
                    let b = v.to_le_bytes()[..crate::codegen::types::elem_size(e) as usize].to_vec();
                    bytes.push(runtime::ArgBytes::new(&if e == ElemType::I1 { vec![(v != 0) as u8] } else { b }));
                    shapes.push(Vec::new());
                    dtypes.push(crate::codegen::types::dtype_code(e));
                }
                other => return Err(run_err(format!("a {} argument is not supported by the LLVM backend", other.type_string()))),
            }
        }
        let mut descs = Vec::new();
        for i in 0..bytes.len() {
            descs.push(XcsTensor {
                data: bytes[i].as_ptr(),
                rank: shapes[i].len() as i64,
                shape: shapes[i].as_ptr() as *mut i64,
                strides: std::ptr::null_mut(),
                dtype: dtypes[i],
            });
        }
        Ok(Inputs { descs, _bytes: bytes, _shapes: shapes })
    }

    /// Calls the function and releases its results right away (for timing).
    pub fn run_discard(&self, inputs: &Inputs) -> Result<(), JitError> {
        let mut outs = self.call_raw(inputs)?;
        for o in outs.iter_mut() {
            runtime::release(o);
        }
        Ok(())
    }

    /// The argument and result ports (element type and sizes) the code was compiled for.
    pub fn ports(&self) -> (&[Port], &[Port]) {
        (&self.args, &self.results)
    }

    /// Calls the function on caller-made descriptors (the Python frontend points them at numpy
    /// arrays' buffers: no copies). The results are descriptors of buffers the caller owns and
    /// frees with [`runtime::release`]; a run-time error is located at its op.
    ///
    /// # Safety
    /// Each descriptor must point at a live, C-contiguous buffer of its dtype and shape.
    pub unsafe fn call_descriptors(&self, descs: &[XcsTensor]) -> Result<Vec<XcsTensor>, JitError> {
        if descs.len() != self.args.len() {
            return Err(run_err(format!("the function takes {} arguments, but {} were given", self.args.len(), descs.len())));
        }
        let ptrs: Vec<*const XcsTensor> = descs.iter().map(|d| d as *const XcsTensor).collect();
        self.call_ptrs(&ptrs)
    }

    fn call_raw(&self, inputs: &Inputs) -> Result<Vec<XcsTensor>, JitError> {
        let ptrs: Vec<*const XcsTensor> = inputs.descs.iter().map(|d| d as *const XcsTensor).collect();
        self.call_ptrs(&ptrs)
    }

    fn call_ptrs(&self, ptrs: &[*const XcsTensor]) -> Result<Vec<XcsTensor>, JitError> {
        let mut outs: Vec<XcsTensor> = (0..self.results.len().max(1)).map(|_| XcsTensor::default()).collect();
        runtime::clear_error();
        // SAFETY: the descriptors point at live buffers of the right sizes (`inputs`).
        let st = unsafe { (self.entry)(ptrs.as_ptr(), outs.as_mut_ptr()) };
        if st != 0 {
            let (site, message) = runtime::last_error();
            let loc = self.sites.get(site.max(0) as usize).filter(|_| site >= 0).map(|s| s.loc).unwrap_or(Location::UNKNOWN);
            return Err(JitError::Run { loc, message });
        }
        outs.truncate(self.results.len());
        Ok(outs)
    }

    /// Calls the function; results as interpreter values.
    pub fn run(&self, inputs: &Inputs) -> Result<Vec<RtValue>, JitError> {
        let mut outs = self.call_raw(inputs)?;
        let mut res = Vec::new();
        let mut err = None;
        for (o, p) in outs.iter_mut().zip(&self.results) {
            // SAFETY: filled by a successful call.
            let t = unsafe { runtime::read_result(o, p.elem) };
            runtime::release(o);
            match t {
                Ok(t) if p.dims.is_some() => res.push(RtValue::Tensor(t)),
                Ok(t) => res.push(scalar_value(&t, p.elem)),
                Err(e) => err = Some(run_err(e)),
            }
        }
        match err {
            Some(e) => Err(e),
            None => Ok(res),
        }
    }
}

fn scalar_value(t: &Tensor, e: ElemType) -> RtValue {
    let v = t.data.to_i64s().and_then(|v| v.first().copied()).unwrap_or(0);
    RtValue::Scalar(Scalar::new(v as i128, crate::codegen::types::int_bits(e)))
}
