//! The reference interpreter: runs the functions (`FunctionLike` ops, e.g. `func.func`) of an
//! in-memory [`Module`] on runtime values. It is the oracle for every pass and for code
//! generation, so it is written to be obviously right rather than fast. The engine
//! ([`Interpreter`]) knows no op: it runs blocks, and every op through its [`Semantics`]
//! interface (see [`mod@semantics`]), which the op's dialect declares with the op: straight-line
//! ops, branches between blocks (`cf.br`, `cf.cond_br`, `cf.switch`), assertions (`cf.assert`),
//! calls (`func.call`, and `func.call_indirect` of a function value that `func.constant` makes;
//! recursion up to a depth limit), every `tensor` op (`tensor::semantics`), the `xcs` ops (`xcs.llm` through an
//! [`LlmProvider`], `xcs.vmap`, `xcs.parallel_map` on a thread pool: `xcs::semantics`) and the
//! `test` dialect's integer ops. Every run-time error is an [`InterpError`] located at the op.
//!
//! Entry points: [`run_function`], [`Interpreter::call`], [`eval_kernel`] (one op on
//! constants, for folding), [`run_spmd`] (a partitioned program on every device of a grid,
//! devices as threads: [`mod@devices`], [`mod@shared_grid`], [`mod@spmd`]); values: [`RtValue`], [`Tensor`];
//! files: [`read_npy`], [`write_npy`]; inputs: [`random_input`].
//!
//! # Semantics (numpy's unless said otherwise)
//! - Broadcasting is numpy's; shapes of `?` dims come from the values and are checked when an
//!   op runs. Every op's results are checked against its declared result types, and function
//!   arguments and results against the function type.
//! - Elementwise float ops compute in f32 for f16, bf16 and f32 (f16/bf16 results rounded to
//!   nearest-even, as numpy does for float16) and in f64 for f64; IEEE throughout (`x/0` is
//!   `inf`/`nan`, `max`/`min` propagate NaN and order -0.0 below +0.0, as IEEE 754-2019
//!   `maximum`/`minimum` and LLVM's `llvm.maximum` do, so they are commutative; numpy returns the
//!   first operand of -0.0 and +0.0). Reductions, `softmax`, `layer_norm` (two-pass,
//!   epsilon inside the square root), `matmul` and `einsum` accumulate floats in f64 and round
//!   once, so compare other implementations with a tolerance.
//! - Integers wrap (two's complement). `tensor.div` truncates toward zero (C, LLVM `sdiv`,
//!   StableHLO — not numpy's floor division); division by zero and `pow` with a negative integer
//!   exponent are run-time errors; integer `mean` is the exact sum divided by the count,
//!   truncated toward zero; `max`/`min` of an empty axis is an error.
//! - `tensor.cast`: float to int truncates toward zero and saturates (NaN -> 0); int to int
//!   wraps; number to i1 is `!= 0`; i1 to number is 0/1 (see [`TensorData::cast`]).
//! - `tensor.gather` indices must be in `[0, size)`; `tensor.reshape` infers one `?` result dim;
//!   `tensor.broadcast_to` takes a `?` result dim from the operand.
//! - `xcs.format` prints tensors as numpy's `str()` (see [`mod@format`]); `xcs.llm` calls the
//!   provider named by `provider` (built-in: `echo`, which returns the prompt unchanged);
//!   `xcs.vmap`/`xcs.parallel_map` slice batched operands, run the region per element (in order,
//!   or on a pool of `max_concurrency` threads) and stack the results (see `xcs::semantics`).
//! - Calls nest up to [`DEFAULT_MAX_CALL_DEPTH`] (configurable); the native stack grows on
//!   demand, so deep recursion is an error, never a crash. [`Interpreter::with_op_limit`] bounds
//!   the ops one call may run.

mod compare;
pub mod devices;
mod error;
pub mod format;
mod frame;
mod interpreter;
pub mod npy;
pub mod provider;
pub mod random;
pub mod semantics;
pub mod shared_grid;
pub mod spmd;
pub mod value;

#[cfg(test)]
mod tests;

use xcs_ir::{Context, Module};

pub use devices::{Communicator, GridShape, Reduction, SingleDevice};
pub use error::InterpError;
pub use interpreter::{ExternalFn, Interpreter, DEFAULT_MAX_CALL_DEPTH};
pub use npy::{read_npy, read_npy_bytes, write_npy, write_npy_bytes};
pub use provider::{EchoProvider, LlmProvider, ProviderRegistry};
pub use random::{random_input, random_tensor};
pub use semantics::{eval_kernel, Control, Kernel, OpInfo, OpRun, Semantics, ValueKernel};
pub use shared_grid::{run_on_grid, SharedGrid, ThreadDevice};
pub use spmd::{run_spmd, shard_value, unshard_values, Split, Spmd};
pub use value::{splat_from_attr, splat_to_attr, tensor_from_attr, tensor_to_attr, AnyValue, ElemType, FuncValue, RtValue, Scalar, Tensor, TensorData};

/// Runs function `name` of `module` on `inputs` with the default settings (built-in providers).
pub fn run_function(ctx: &Context, module: &Module, name: &str, inputs: Vec<RtValue>) -> Result<Vec<RtValue>, InterpError> {
    Interpreter::new(ctx, module).call(name, inputs)
}
