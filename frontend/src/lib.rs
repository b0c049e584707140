//! `xcs._native`, the native half of the Python package `xcs` (PyO3): parses and prints XCS IR,
//! runs textual pass pipelines, the reference interpreter (with Python providers and external
//! functions called back) and the LLVM JIT in-process. numpy arrays go into compiled code and
//! come back out without copies (descriptors point at the arrays' buffers; results own theirs).
//! Partitioned functions run on simulated devices (`spmd.rs`). Tracing, `xcs.numpy`, `vmap`,
//! `shard_map` and the rest are Python (`frontend/python/xcs`).

use std::ffi::{c_int, c_void};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use numpy::npyffi::{self, npy_intp, NpyTypes, PY_ARRAY_API};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use xcs_dialects::interp::{AnyValue, ElemType, Interpreter, RtValue, Tensor, TensorData};
use xcs_ir::printer::{print_module, PrintOptions};
use xcs_ir::{Diagnostic, Module};
use xcs_lowering::jit::Compiled;
use xcs_lowering::runtime::{self, XcsTensor};

mod spmd;

/// Raises the package's exception `kind` (`xcs.errors`: `CompileError`, `RunError`, ...) with
/// the rendered diagnostic as its message.
pub(crate) fn xcs_error(py: Python<'_>, kind: &str, rendered: &str) -> PyErr {
    let made = py
        .import("xcs.errors")
        .and_then(|m| m.getattr(kind))
        .and_then(|class| class.call1((rendered.trim_end().to_string(),)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// A compiler (context, passes) and one module: what `xcs.jit` builds per traced function.
pub(crate) struct Inner {
    xcs: xcs::Compiler,
    module: RwLock<Module>,
}

// SAFETY: the context is shared by the interpreter's own threads already (xcs.parallel_map);
// the module is behind a read-write lock; a `Compiled` is immutable machine code, callable from any
// thread (the runtime's error state is per thread).
unsafe impl Send for Inner {}
unsafe impl Sync for Inner {}

impl Inner {
    fn module(&self) -> RwLockWriteGuard<'_, Module> {
        self.module.write().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn module_read(&self) -> RwLockReadGuard<'_, Module> {
        self.module.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn render(&self, d: Diagnostic) -> String {
        self.xcs.error(vec![d]).rendered
    }
}

/// A parsed, verified module (`xcs._native.Program.parse(text, filename)`).
#[pyclass(frozen, module = "xcs._native")]
struct Program {
    inner: Arc<Inner>,
}

#[pymethods]
impl Program {
    /// Parses and verifies `text` (diagnostics name `filename`; ops of unregistered dialects
    /// only with `allow_unregistered`); a `CompileError` if it fails.
    #[staticmethod]
    #[pyo3(signature = (text, filename = "<python>", allow_unregistered = false))]
    fn parse(py: Python<'_>, text: &str, filename: &str, allow_unregistered: bool) -> PyResult<Program> {
        let mut xcs = xcs::Compiler::new();
        xcs.allow_unregistered = allow_unregistered;
        let module = xcs.parse_named(filename, text).map_err(|e| xcs_error(py, "CompileError", &e.rendered))?;
        Ok(Program { inner: Arc::new(Inner { xcs, module: RwLock::new(module) }) })
    }

    /// Runs a pipeline in MLIR's textual syntax (`builtin.module(inline,func.func(cse))`),
    /// verifying after each pass; a `CompileError` with the pass's located diagnostic if it fails.
    fn run_pipeline(&self, py: Python<'_>, pipeline: &str) -> PyResult<()> {
        let mut module = self.inner.module();
        self.inner.xcs.run(&mut module, pipeline).map_err(|e| xcs_error(py, "CompileError", &e.rendered))
    }

    /// The module as text: pretty (or MLIR's generic form), with locations if `debug_info`
    /// (as `xcs-opt --mlir-print-debuginfo`).
    #[pyo3(signature = (debug_info = false, generic = false))]
    fn text(&self, debug_info: bool, generic: bool) -> String {
        let opts = PrintOptions { generic, debug_info, ..Default::default() };
        print_module(&self.inner.xcs.ctx, &self.inner.module_read(), &opts)
    }

    /// Compiles function `entry` through LLVM for arguments of these shapes (sizes specialized).
    #[pyo3(signature = (entry, shapes, threads = 0))]
    fn compile(&self, py: Python<'_>, entry: &str, shapes: Vec<Vec<i64>>, threads: usize) -> PyResult<Executable> {
        let mut opts = xcs_lowering::Options::host();
        if threads > 0 {
            opts.threads = threads;
        }
        let module = self.inner.module_read();
        let jit = xcs_lowering::Jit::new(&self.inner.xcs.ctx, &module, opts);
        let compiled = jit.compile(entry, Some(shapes)).map_err(|e| {
            let rendered = self.inner.render(e.to_diagnostic());
            xcs_error(py, "CompileError", &rendered)
        })?;
        let (args, results) = compiled.ports();
        let arg_elems = args.iter().map(|p| p.elem).collect();
        let result_elems = results.iter().map(|p| p.elem).collect();
        Ok(Executable { inner: Arc::clone(&self.inner), compiled: Arc::new(SendCompiled(compiled)), arg_elems, result_elems })
    }

    /// Compiles the partitioned function `entry` (after `shard-partition`) for the devices of
    /// its grid: an `SpmdExecutable`, called with the full arrays (`xcs.shard_map`).
    fn compile_spmd(&self, py: Python<'_>, entry: &str) -> PyResult<spmd::SpmdExecutable> {
        spmd::compile_spmd(py, &self.inner, entry)
    }

    /// Runs `entry` on the reference interpreter. `args`: numpy arrays, `str`s, ints, other
    /// objects (for `!xcs.any`); `providers`: name -> `fn(model, prompt) -> str`; `externals`:
    /// symbol -> `fn(*args) -> tuple` for the external declarations the function calls.
    #[pyo3(signature = (entry, args, providers = None, externals = None))]
    fn interpret(
        &self,
        py: Python<'_>,
        entry: &str,
        args: Vec<Bound<'_, PyAny>>,
        providers: Option<Bound<'_, PyDict>>,
        externals: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyTuple>> {
        let values = args.iter().map(to_rt_value).collect::<PyResult<Vec<_>>>()?;
        let mut named_providers = Vec::new();
        for (name, f) in providers.iter().flat_map(|d| d.iter()) {
            named_providers.push((name.extract::<String>()?, python_provider(f.unbind())));
        }
        let mut named_externals = Vec::new();
        for (name, f) in externals.iter().flat_map(|d| d.iter()) {
            named_externals.push((name.extract::<String>()?, python_external(f.unbind())));
        }
        // The GIL is released while the interpreter runs (and while it waits for the module):
        // its thread pool (xcs.parallel_map) calls providers and externals back into Python,
        // and other Python threads may run this program at the same time (a read lock).
        let inner = Arc::clone(&self.inner);
        let job = AssertSend(move || {
            let module = inner.module_read();
            let mut interp = Interpreter::new(&inner.xcs.ctx, &module);
            for (name, p) in named_providers {
                interp = interp.with_provider(&name, p);
            }
            for (name, f) in named_externals {
                interp = interp.with_external(&name, f);
            }
            interp.call(entry, values)
        });
        let result = py.detach(move || AssertSend(job.run()));
        let results = result.0.map_err(|e| xcs_error(py, "RunError", &self.inner.render(e.to_diagnostic())))?;
        let objects = results.iter().map(|v| from_rt_value(py, v)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(py, objects)?.unbind())
    }
}

/// Moves a value across `Python::detach` (the interpreter's values and borrows are used on
/// this thread only: detach runs the closure right here).
pub(crate) struct AssertSend<T>(pub(crate) T);
unsafe impl<T> Send for AssertSend<T> {}
impl<R, F: FnOnce() -> R> AssertSend<F> {
    pub(crate) fn run(self) -> R {
        (self.0)()
    }
}

/// A Python callable as an LLM provider (its exceptions become run-time errors of the op).
fn python_provider(f: Py<PyAny>) -> Arc<dyn xcs_dialects::interp::LlmProvider> {
    Arc::new(move |model: &str, prompt: &str| -> Result<String, String> {
        Python::attach(|py| f.call1(py, (model, prompt)).and_then(|r| r.extract::<String>(py)).map_err(|e| python_message(py, e)))
    })
}

/// A Python callable as an external function: it returns a tuple of results.
fn python_external(f: Py<PyAny>) -> xcs_dialects::interp::ExternalFn {
    Arc::new(move |args: &[RtValue]| -> Result<Vec<RtValue>, String> {
        Python::attach(|py| {
            let call = || -> PyResult<Vec<RtValue>> {
                let objects = args.iter().map(|v| from_rt_value(py, v)).collect::<PyResult<Vec<_>>>()?;
                let result = f.call1(py, PyTuple::new(py, objects)?)?;
                let items: Vec<Bound<'_, PyAny>> = result.bind(py).try_iter()?.collect::<PyResult<_>>()?;
                items.iter().map(to_rt_value).collect()
            };
            call().map_err(|e| python_message(py, e))
        })
    })
}

/// `Type: message` of a Python exception (an `XcsError` keeps just its message).
fn python_message(py: Python<'_>, e: PyErr) -> String {
    let name = e.get_type(py).name().map(|n| n.to_string()).unwrap_or_default();
    format!("{name}: {}", e.value(py))
}

/// numpy's name of an element type (bf16 has none: it travels as float32).
fn numpy_name(e: ElemType) -> &'static str {
    match e {
        ElemType::F16 => "float16",
        ElemType::BF16 | ElemType::F32 => "float32",
        ElemType::F64 => "float64",
        ElemType::I1 => "bool",
        ElemType::I8 => "int8",
        ElemType::I16 => "int16",
        ElemType::I32 => "int32",
        ElemType::I64 => "int64",
        ElemType::Str => "object",
    }
}

/// The element type of a numpy dtype (`None`: not one XCS has).
fn elem_of(descr: &Bound<'_, PyArrayDescr>) -> Option<ElemType> {
    Some(match (descr.kind(), descr.itemsize()) {
        (b'f', 2) => ElemType::F16,
        (b'f', 4) => ElemType::F32,
        (b'f', 8) => ElemType::F64,
        (b'b', 1) => ElemType::I1,
        (b'i', 1) => ElemType::I8,
        (b'i', 2) => ElemType::I16,
        (b'i', 4) => ElemType::I32,
        (b'i', 8) => ElemType::I64,
        _ => return None,
    })
}

/// A Python value as an interpreter value: numpy arrays as tensors, `str` as `!xcs.str`, ints
/// as scalars, anything else as an opaque `!xcs.any`.
pub(crate) fn to_rt_value(obj: &Bound<'_, PyAny>) -> PyResult<RtValue> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(RtValue::Str(s.to_str()?.to_string()));
    }
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        if let Some(t) = tensor_of(a)? {
            return Ok(RtValue::Tensor(t));
        }
    }
    Ok(RtValue::Any(AnyValue(Arc::new(obj.clone().unbind()))))
}

macro_rules! read_array {
    ($a:expr, $t:ty) => {
        $a.cast::<PyArrayDyn<$t>>()?.to_owned_array().iter().copied().collect::<Vec<$t>>()
    };
}

/// A numpy array's elements as a tensor (a copy: the interpreter owns its values).
fn tensor_of(a: &Bound<'_, PyUntypedArray>) -> PyResult<Option<Tensor>> {
    let Some(elem) = elem_of(&a.dtype()) else { return Ok(None) };
    let shape = a.shape().to_vec();
    let data = match elem {
        ElemType::F16 => {
            let f = a.call_method1("astype", ("float32",))?;
            TensorData::F16(read_array!(f, f32).into_iter().map(half::f16::from_f32).collect())
        }
        ElemType::F32 => TensorData::F32(read_array!(a, f32)),
        ElemType::F64 => TensorData::F64(read_array!(a, f64)),
        ElemType::I1 => TensorData::I1(read_array!(a, bool)),
        ElemType::I8 => TensorData::I8(read_array!(a, i8)),
        ElemType::I16 => TensorData::I16(read_array!(a, i16)),
        ElemType::I32 => TensorData::I32(read_array!(a, i32)),
        ElemType::I64 => TensorData::I64(read_array!(a, i64)),
        _ => return Ok(None),
    };
    Ok(Some(Tensor { shape, data }))
}

/// An interpreter value as a Python value (tensors as numpy arrays).
pub(crate) fn from_rt_value(py: Python<'_>, v: &RtValue) -> PyResult<Py<PyAny>> {
    Ok(match v {
        RtValue::Str(s) => PyString::new(py, s).into_any().unbind(),
        RtValue::Scalar(s) => (s.value as i64).into_pyobject(py)?.into_any().unbind(),
        RtValue::Any(a) => match a.0.downcast_ref::<Py<PyAny>>() {
            Some(o) => o.clone_ref(py),
            None => py.None(),
        },
        RtValue::Func(f) => PyString::new(py, &format!("@{}", f.symbol)).into_any().unbind(),
        RtValue::Tensor(t) => numpy_of(py, t)?,
    })
}

fn numpy_of(py: Python<'_>, t: &Tensor) -> PyResult<Py<PyAny>> {
    let flat: Bound<'_, PyAny> = match &t.data {
        TensorData::F16(v) => numpy::PyArray1::from_vec(py, v.iter().map(|x| x.to_f32()).collect()).call_method1("astype", ("float16",))?,
        TensorData::BF16(v) => numpy::PyArray1::from_vec(py, v.iter().map(|x| x.to_f32()).collect()).into_any(),
        TensorData::F32(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::F64(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::I1(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::I8(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::I16(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::I32(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::I64(v) => numpy::PyArray1::from_slice(py, v).into_any(),
        TensorData::Str(v) => PyList::new(py, v)?.into_any(),
    };
    if matches!(t.data, TensorData::Str(_)) {
        return Ok(flat.unbind());
    }
    Ok(flat.call_method1("reshape", (PyTuple::new(py, &t.shape)?,))?.unbind())
}

/// A function compiled through LLVM for fixed argument shapes; calling it with numpy arrays
/// passes their buffers as they are (C-contiguous arrays of the compiled dtype; others are
/// converted once by `numpy.ascontiguousarray`) and wraps the result buffers as arrays.
#[pyclass(frozen, module = "xcs._native")]
struct Executable {
    inner: Arc<Inner>,
    compiled: Arc<SendCompiled>,
    arg_elems: Vec<ElemType>,
    result_elems: Vec<ElemType>,
}

#[pymethods]
impl Executable {
    /// Where the compile time went: `[(phase, wall_seconds, cpu_seconds), ...]` in order (lower,
    /// parse, target, optimize, codegen); the CPU time is the process's (all threads).
    fn compile_phases(&self) -> Vec<(String, f64, f64)> {
        self.compiled.0.phases.phases.iter().map(|p| (p.name.to_string(), p.wall.as_secs_f64(), p.cpu.as_secs_f64())).collect()
    }

    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyTuple>> {
        if args.len() != self.arg_elems.len() {
            let msg = format!("the compiled function takes {} arguments, but {} were given", self.arg_elems.len(), args.len());
            return Err(xcs_error(py, "RunError", &msg));
        }
        let mut keep = Vec::with_capacity(args.len());
        let mut descs = Vec::with_capacity(args.len());
        for (i, (arg, &elem)) in args.iter().zip(&self.arg_elems).enumerate() {
            let array = contiguous(py, &arg, elem).map_err(|e| {
                let msg = format!("error: argument #{i}: cannot pass it as a {} array: {}", numpy_name(elem), python_message(py, e));
                xcs_error(py, "RunError", &msg)
            })?;
            // SAFETY: `array` is a live C-contiguous numpy array of `elem`; its dims are
            // npy_intp (i64 here) and it outlives the call (`keep`).
            let desc = unsafe {
                let raw = array.as_array_ptr();
                XcsTensor {
                    data: (*raw).fields.data as *mut c_void,
                    rank: (*raw).fields.nd as i64,
                    shape: (*raw).fields.dimensions as *mut i64,
                    strides: std::ptr::null_mut(),
                    dtype: xcs_lowering::codegen::types::dtype_code(elem),
                }
            };
            descs.push(desc);
            keep.push(array);
        }
        // SAFETY: every descriptor points at a live buffer of its dtype and shape (above).
        // The GIL is released while the compiled code runs, so that Python threads (a
        // workload's grid, `xcs.parallel_map`) run compiled functions at the same time; the
        // buffers stay alive (`keep`) and the code touches no Python object.
        let compiled = Arc::clone(&self.compiled);
        let job = AssertSend(move || unsafe { compiled.0.call_descriptors(&descs) });
        let outs = py.detach(move || AssertSend(job.run())).0.map_err(|e| {
            let d = e.to_diagnostic();
            let rendered = if d.loc == xcs_ir::Location::UNKNOWN { format!("error: {}", d.message) } else { self.inner.render(d) };
            xcs_error(py, "RunError", &rendered)
        })?;
        drop(keep);
        let mut results = Vec::with_capacity(outs.len());
        let mut outs = outs.into_iter();
        for &elem in &self.result_elems {
            let Some(t) = outs.next() else { break };
            results.push(wrap_result(py, t, elem)?);
        }
        Ok(PyTuple::new(py, results)?.unbind())
    }

    /// The LLVM IR the function was compiled from (before optimization).
    fn llvm_ir(&self) -> String {
        self.compiled.0.ir.clone()
    }
}

/// Compiled code shared across Python threads (see `Inner`'s safety note).
pub(crate) struct SendCompiled(pub(crate) Compiled);
unsafe impl Send for SendCompiled {}
unsafe impl Sync for SendCompiled {}

/// `obj` as a C-contiguous, aligned numpy array of `elem` (itself when it already is one).
fn contiguous<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>, elem: ElemType) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        let aligned = unsafe { (*a.as_array_ptr()).fields.flags & npyffi::NPY_ARRAY_ALIGNED != 0 };
        if a.is_c_contiguous() && aligned && elem_of(&a.dtype()) == Some(elem) {
            return Ok(a.clone());
        }
    }
    let numpy = py.import("numpy")?;
    let converted = numpy.getattr("ascontiguousarray")?.call1((obj, numpy_name(elem)))?;
    Ok(converted.cast_into::<PyUntypedArray>()?)
}

/// A result buffer of compiled code, owned by the numpy array that wraps it (its `base`).
#[pyclass(module = "xcs._native")]
struct ResultBuffer {
    tensor: XcsTensor,
}

// SAFETY: the buffer is plain memory from the runtime's allocator, freed once, on any thread.
unsafe impl Send for ResultBuffer {}
unsafe impl Sync for ResultBuffer {}

impl Drop for ResultBuffer {
    fn drop(&mut self) {
        runtime::release(&mut self.tensor);
    }
}

/// A numpy array over a result descriptor's buffer (no copy; the array frees it).
fn wrap_result(py: Python<'_>, t: XcsTensor, elem: ElemType) -> PyResult<Py<PyAny>> {
    let rank = t.rank.max(0) as usize;
    let mut dims: Vec<npy_intp> = (0..rank).map(|d| unsafe { *t.shape.add(d) } as npy_intp).collect();
    let descr = PyArrayDescr::new(py, numpy_name(elem))?;
    let data = t.data;
    let owner = Bound::new(py, ResultBuffer { tensor: t })?;
    if data.is_null() {
        let numpy = py.import("numpy")?;
        return Ok(numpy.getattr("empty")?.call1((dims.clone(), descr))?.unbind());
    }
    // SAFETY: `data` holds prod(dims) elements of `elem`, C-contiguous; the new array keeps
    // `owner` (which frees the buffer) alive as its base.
    unsafe {
        let subtype = npyffi::get_type_object(py, NpyTypes::PyArray_Type);
        let flags = (npyffi::NPY_ARRAY_C_CONTIGUOUS | npyffi::NPY_ARRAY_WRITEABLE | npyffi::NPY_ARRAY_ALIGNED) as c_int;
        let ptr = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            subtype,
            descr.into_dtype_ptr(),
            rank as c_int,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            data,
            flags,
            std::ptr::null_mut(),
        );
        if ptr.is_null() {
            return Err(PyErr::fetch(py));
        }
        let array = Bound::from_owned_ptr(py, ptr);
        if PY_ARRAY_API.PyArray_SetBaseObject(py, ptr as *mut npyffi::PyArrayObject, owner.into_ptr()) != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(array.unbind())
    }
}

/// Which side the `classify` pass puts a Python module on by its seed tables (the same
/// [`Matcher::match_module`](xcs_passes::classify::tables::Matcher::match_module) it applies to
/// `xcs.module`): `"tensor"`, `"orchestration"` or `None`. `xcs.jit` intercepts calls into
/// orchestration modules with it (`_intercept.py`), so Python keeps no second list.
#[pyfunction]
fn classify_module(module: &str) -> Option<&'static str> {
    use xcs_passes::classify::tables::{Matcher, ORCHESTRATION, TENSOR};
    match Matcher::default().match_module(module) {
        TENSOR => Some("tensor"),
        ORCHESTRATION => Some("orchestration"),
        _ => None,
    }
}

/// The module `xcs._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Program>()?;
    m.add_class::<Executable>()?;
    m.add_class::<ResultBuffer>()?;
    m.add_class::<spmd::SpmdExecutable>()?;
    m.add_function(wrap_pyfunction!(classify_module, m)?)?;
    Ok(())
}
