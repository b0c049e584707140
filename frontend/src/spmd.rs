//! `xcs._native.SpmdExecutable`: a partitioned function (what `shard-partition` makes, with its
//! recorded grid and split axes) compiled once through LLVM for its devices' local shapes and
//! run on every device of its grid as threads of this process (`xcs_lowering::spmd`, as
//! `xcs-run --devices` does): full numpy inputs in, sliced per device; full numpy outputs out,
//! reassembled from the devices' blocks. `xcs.shard_map` calls it.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use xcs_dialects::interp::spmd::Split;
use xcs_dialects::interp::{GridShape, RtValue};
use xcs_dialects::shard::Signature;
use xcs_lowering::spmd::run_compiled;

use crate::{from_rt_value, to_rt_value, xcs_error, AssertSend, Inner, SendCompiled};

/// A partitioned function compiled for the devices of its grid; call it with the full arrays.
#[pyclass(frozen, module = "xcs._native")]
pub struct SpmdExecutable {
    inner: Arc<Inner>,
    compiled: Arc<SendCompiled>,
    name: String,
    grid: GridShape,
    arg_splits: Vec<Split>,
    result_splits: Vec<Split>,
}

/// Compiles function `entry` of the program (partitioned: `shard.spmd_grid` and
/// `shard.split_axes` recorded on it) for its grid; a `CompileError` if it is not partitioned,
/// its grid has dynamic sizes or LLVM fails.
pub fn compile_spmd(py: Python<'_>, inner: &Arc<Inner>, entry: &str) -> PyResult<SpmdExecutable> {
    let module = inner.module_read();
    let fail = |msg: String| xcs_error(py, "CompileError", &format!("error: {msg}"));
    let (sig, grid) = match Signature::find(&inner.xcs.ctx, &module, entry) {
        None => return Err(fail(format!("@{entry} is not partitioned (it has no 'shard.spmd_grid' attribute)"))),
        Some(Err(e)) => return Err(fail(e)),
        Some(Ok(found)) => found,
    };
    let devices = grid.devices().ok_or_else(|| fail(format!("@{entry} runs on @{}, whose shape has dynamic sizes", grid.name)))?;
    let mut opts = xcs_lowering::Options::host();
    opts.threads = 1; // one thread per device already
    let jit = xcs_lowering::Jit::new(&inner.xcs.ctx, &module, opts);
    let compiled = jit.compile(entry, None).map_err(|e| xcs_error(py, "CompileError", &inner.render(e.to_diagnostic())))?;
    let (args, results) = compiled.ports();
    let arg_splits = sig.arg_splits(args.len()).map_err(&fail)?;
    let result_splits = sig.result_splits(results.len()).map_err(&fail)?;
    Ok(SpmdExecutable {
        inner: Arc::clone(inner),
        compiled: Arc::new(SendCompiled(compiled)),
        name: entry.to_string(),
        grid: devices,
        arg_splits,
        result_splits,
    })
}

#[pymethods]
impl SpmdExecutable {
    /// Runs the function on every device: `args` are the full (unpartitioned) numpy arrays, of
    /// the dtypes the function takes; the results are the full arrays.
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyTuple>> {
        let values = args.iter().map(|a| to_rt_value(&a)).collect::<PyResult<Vec<RtValue>>>()?;
        if let Some(i) = values.iter().position(|v| !matches!(v, RtValue::Tensor(_))) {
            return Err(xcs_error(py, "RunError", &format!("error: argument #{i} of @{} is not a numpy array of an XCS dtype", self.name)));
        }
        // The devices run without the GIL (they are threads of this process).
        let job = AssertSend(|| {
            run_compiled(self.compiled.0.callable(), &self.name, &self.grid, &values, &self.arg_splits, &self.result_splits)
        });
        let outcome = py.detach(move || AssertSend(job.run()));
        let results = outcome.0.map_err(|e| xcs_error(py, "RunError", &self.inner.render(e.to_diagnostic())))?;
        let objects = results.iter().map(|v| from_rt_value(py, v)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(py, objects)?.unbind())
    }

    /// The device grid's shape.
    #[getter]
    fn grid(&self) -> Vec<usize> {
        self.grid.0.clone()
    }

    /// Each argument's split axes (per dim, the grid axes splitting it), as recorded.
    #[getter]
    fn arg_splits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.arg_splits)
    }

    /// Each result's split axes.
    #[getter]
    fn result_splits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.result_splits)
    }
}
